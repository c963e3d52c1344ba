#include "io/aws_credentials.h"

#include <fstream>
#include <map>
#include <sstream>

#include "io/cloud_util.h"

namespace silt {

namespace {

Status AuthError(const std::string& msg) { return Status::IoError(msg, kErrorCloudAuth); }

// The string value of "key" in a flat JSON object ("" when absent); escapes \" \\ \/ only, which
// is all credential documents carry.
std::string JsonString(const std::string& json, const std::string& key) {
  std::string quoted = "\"" + key + "\"";
  size_t k = json.find(quoted);
  if (k == std::string::npos) return "";
  size_t colon = json.find(':', k + quoted.size());
  if (colon == std::string::npos) return "";
  size_t open = json.find('"', colon + 1);
  if (open == std::string::npos) return "";
  std::string out;
  for (size_t i = open + 1; i < json.size(); ++i) {
    char c = json[i];
    if (c == '\\' && i + 1 < json.size()) {
      out.push_back(json[++i]);
    } else if (c == '"') {
      return out;
    } else {
      out.push_back(c);
    }
  }
  return "";
}

Result<std::string> ReadFile(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return AuthError(std::string("cannot read the ") + what + " file " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

Result<AwsSessionCredentials> FromJson(const HttpResponse& r, const char* source) {
  AwsSessionCredentials c;
  c.access_key = JsonString(r.body, "AccessKeyId");
  c.secret_key = JsonString(r.body, "SecretAccessKey");
  c.session_token = JsonString(r.body, "Token");
  std::string expiration = JsonString(r.body, "Expiration");
  if (c.access_key.empty() || c.secret_key.empty()) {
    return AuthError(std::string(source) + " answered no AccessKeyId/SecretAccessKey");
  }
  if (!expiration.empty())
    c.expiration_ms = std::max<int64_t>(0, cloud::ParseIso8601Millis(expiration));
  return c;
}

HttpRequest Request(const std::string& method, const std::string& url,
                    std::vector<std::pair<std::string, std::string>> headers,
                    std::string_view body = {}) {
  HttpRequest r;
  r.method = method;
  r.url = url;
  r.headers = std::move(headers);
  r.body = body;
  return r;
}

const char* SourceName(AwsCredentialsProvider::Source s) {
  switch (s) {
    case AwsCredentialsProvider::Source::kWebIdentity:
      return "web identity (STS AssumeRoleWithWebIdentity)";
    case AwsCredentialsProvider::Source::kContainer:
      return "container credentials";
    case AwsCredentialsProvider::Source::kInstance:
      return "EC2 instance metadata (IMDSv2)";
  }
  return "?";
}

HttpOptions Defaults(HttpOptions h) {
  // The metadata endpoints answer at once or not at all.
  h.max_retries = std::min(h.max_retries, 2);
  h.connect_timeout_ms = std::min<int64_t>(h.connect_timeout_ms, 1000);
  h.request_timeout_ms = std::min<int64_t>(h.request_timeout_ms, 5000);
  return h;
}

}  // namespace

bool ContainerCredentialsHostAllowed(const std::string& url) {
  std::string lower = cloud::Lower(url);
  if (lower.starts_with("https://")) return true;
  if (!lower.starts_with("http://")) return false;
  std::string rest = lower.substr(7);
  std::string host = rest.substr(0, rest.find_first_of("/?#"));
  if (host.starts_with("[")) {
    host = host.substr(0, host.find(']') + 1);
    return host == "[::1]" || host == "[fd00:ec2::23]";
  }
  host = host.substr(0, host.find(':'));
  return host == "localhost" || host.starts_with("127.") || host == "169.254.170.2" ||
         host == "169.254.170.23";
}

AwsCredentialsProvider::AwsCredentialsProvider(Options options)
    : options_(std::move(options)), http_(Defaults(options_.http)) {}

int64_t AwsCredentialsProvider::Now() const {
  return options_.clock != nullptr ? options_.clock->NowMillis() : SystemClock().NowMillis();
}

int64_t AwsCredentialsProvider::fetches() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fetches_;
}

Result<AwsSessionCredentials> AwsCredentialsProvider::Get() {
  std::lock_guard<std::mutex> lock(mu_);
  if (cached_ && (cached_->expiration_ms == 0 ||
                  Now() < cached_->expiration_ms - options_.refresh_before_ms)) {
    return *cached_;
  }
  std::string tried;
  for (Source s : options_.chain) {
    ++fetches_;
    Result<AwsSessionCredentials> c = Fetch(s);
    if (c.ok()) {
      cached_ = *c;
      return *c;
    }
    tried += std::string(tried.empty() ? "" : "; ") + SourceName(s) + ": " +
             std::string(c.status().message());
  }
  if (cached_ && (cached_->expiration_ms == 0 || Now() < cached_->expiration_ms)) {
    return *cached_;  // the refresh failed; the old credentials still hold a while
  }
  if (options_.anonymous_fallback) {
    cached_ = AwsSessionCredentials{};
    return *cached_;
  }
  return AuthError("no AWS credentials: " + (tried.empty() ? std::string("no source") : tried) +
                   " (docs/cloud-storage.md)");
}

Result<AwsSessionCredentials> AwsCredentialsProvider::Fetch(Source source) {
  switch (source) {
    case Source::kWebIdentity:
      return FetchWebIdentity();
    case Source::kContainer:
      return FetchContainer();
    case Source::kInstance:
      return FetchInstance();
  }
  return AuthError("unknown source");
}

Result<AwsSessionCredentials> AwsCredentialsProvider::FetchWebIdentity() {
  if (options_.token_file.empty() || options_.role_arn.empty()) {
    return AuthError("AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN are not both set");
  }
  SILT_ASSIGN_OR_RETURN(std::string token, ReadFile(options_.token_file, "web identity token"));
  std::string session =
      options_.session_name.empty() ? "silt-" + cloud::RandomHex(12) : options_.session_name;
  std::string body = "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=" +
                     UrlEncode(options_.role_arn, false) +
                     "&RoleSessionName=" + UrlEncode(session, false) +
                     "&WebIdentityToken=" + UrlEncode(token, false);
  std::string url = options_.sts_endpoint + "/";
  SILT_ASSIGN_OR_RETURN(
      HttpResponse r,
      http_.SendWithRetries(
          [&]() -> Result<HttpRequest> {
            return Request("POST", url,
                           {{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"},
                            {"Accept", "application/xml"}},
                           body);
          },
          RequestKind::kGet, "STS AssumeRoleWithWebIdentity"));
  if (r.status != 200) {
    return AuthError("STS AssumeRoleWithWebIdentity for " + options_.role_arn + ": HTTP " +
                     std::to_string(r.status) + " " + cloud::XmlText(r.body, "Code").value_or(""));
  }
  std::string creds = cloud::XmlText(r.body, "Credentials").value_or("");
  AwsSessionCredentials c;
  c.access_key = cloud::XmlText(creds, "AccessKeyId").value_or("");
  c.secret_key = cloud::XmlText(creds, "SecretAccessKey").value_or("");
  c.session_token = cloud::XmlText(creds, "SessionToken").value_or("");
  if (c.access_key.empty() || c.secret_key.empty()) {
    return AuthError("STS AssumeRoleWithWebIdentity answered no credentials");
  }
  c.expiration_ms = std::max<int64_t>(
      0, cloud::ParseIso8601Millis(cloud::XmlText(creds, "Expiration").value_or("")));
  return c;
}

Result<AwsSessionCredentials> AwsCredentialsProvider::FetchContainer() {
  if (options_.container_uri.empty()) {
    return AuthError("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI/FULL_URI are not set");
  }
  if (!ContainerCredentialsHostAllowed(options_.container_uri)) {
    return AuthError(
        "AWS_CONTAINER_CREDENTIALS_FULL_URI over http must name a loopback or the ECS/EKS "
        "credential host");
  }
  std::string auth = options_.container_auth;
  if (!options_.container_auth_file.empty()) {
    SILT_ASSIGN_OR_RETURN(auth,
                          ReadFile(options_.container_auth_file, "container authorization token"));
  }
  std::vector<std::pair<std::string, std::string>> headers = {{"Accept", "application/json"}};
  if (!auth.empty()) headers.emplace_back("Authorization", auth);
  SILT_ASSIGN_OR_RETURN(
      HttpResponse r,
      http_.SendWithRetries(
          [&]() -> Result<HttpRequest> { return Request("GET", options_.container_uri, headers); },
          RequestKind::kGet, "container credentials"));
  if (r.status != 200) {
    return AuthError("the container credentials endpoint answered HTTP " +
                     std::to_string(r.status));
  }
  return FromJson(r, "the container credentials endpoint");
}

Result<AwsSessionCredentials> AwsCredentialsProvider::FetchInstance() {
  const std::string& ep = options_.imds_endpoint;
  SILT_ASSIGN_OR_RETURN(HttpResponse t,
                        http_.SendWithRetries(
                            [&]() -> Result<HttpRequest> {
                              return Request("PUT", ep + "/latest/api/token",
                                             {{"X-aws-ec2-metadata-token-ttl-seconds", "21600"}});
                            },
                            RequestKind::kPut, "IMDSv2 token"));
  if (t.status != 200 || t.body.empty()) {
    return AuthError("the instance metadata service answered HTTP " + std::to_string(t.status) +
                     " to the IMDSv2 token request");
  }
  std::vector<std::pair<std::string, std::string>> headers = {{"X-aws-ec2-metadata-token", t.body}};
  std::string base = ep + "/latest/meta-data/iam/security-credentials/";
  SILT_ASSIGN_OR_RETURN(
      HttpResponse role,
      http_.SendWithRetries([&]() -> Result<HttpRequest> { return Request("GET", base, headers); },
                            RequestKind::kGet, "IMDS role"));
  std::string name = role.body.substr(0, role.body.find('\n'));
  while (!name.empty() && (name.back() == '\r' || name.back() == ' ')) name.pop_back();
  if (role.status != 200 || name.empty()) {
    return AuthError("the instance has no IAM role (instance metadata answered HTTP " +
                     std::to_string(role.status) + ")");
  }
  SILT_ASSIGN_OR_RETURN(HttpResponse r, http_.SendWithRetries(
                                            [&]() -> Result<HttpRequest> {
                                              return Request("GET", base + UrlEncode(name, false),
                                                             headers);
                                            },
                                            RequestKind::kGet, "IMDS credentials"));
  if (r.status != 200) {
    return AuthError("instance metadata answered HTTP " + std::to_string(r.status) +
                     " for the role's credentials");
  }
  return FromJson(r, "the instance metadata service");
}

namespace {

struct SharedProviders {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<AwsCredentialsProvider>> by_key;
};
SharedProviders& Providers() {
  static SharedProviders* p = new SharedProviders();  // never destroyed: used at exit
  return *p;
}

}  // namespace

std::shared_ptr<AwsCredentialsProvider> AwsCredentialsProvider::Shared(const Options& o) {
  std::string key;
  for (Source s : o.chain) key += std::to_string(static_cast<int>(s)) + ",";
  for (const std::string* part :
       {&o.token_file, &o.role_arn, &o.session_name, &o.sts_endpoint, &o.container_uri,
        &o.container_auth, &o.container_auth_file, &o.imds_endpoint}) {
    key += "\x1f" + *part;
  }
  key += o.anonymous_fallback ? "\x1f"
                                "a"
                              : "\x1f"
                                "-";
  SharedProviders& p = Providers();
  std::lock_guard<std::mutex> lock(p.mu);
  auto& slot = p.by_key[key];
  if (!slot) slot = std::make_shared<AwsCredentialsProvider>(o);
  return slot;
}

void AwsCredentialsProvider::ForgetSharedForTesting() {
  SharedProviders& p = Providers();
  std::lock_guard<std::mutex> lock(p.mu);
  p.by_key.clear();
}

}  // namespace silt
