#include "io/s3_object_store.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <span>
#include <sstream>
#include <thread>

#include "common/clock.h"
#include "io/aws_credentials.h"
#include "io/cloud_util.h"
#include "io/path.h"
#include "io/storage_config.h"

namespace silt {

namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;
using cloud::ForEachElement;
using cloud::Hex;
using cloud::Lower;
using cloud::XmlText;

constexpr char kAlgorithm[] = "AWS4-HMAC-SHA256";

Status BadLocation(std::string_view location, const std::string& why) {
  return Status::InvalidArgument("bad S3 location '" + std::string(location) + "': " + why,
                                 kErrorInvalidPath);
}

std::string Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return std::string(s);
}

// "20150830T123600Z" of `millis` since the epoch.
std::string AmzDate(int64_t millis) {
  time_t t = static_cast<time_t>(millis / 1000);
  struct tm tm;
  gmtime_r(&t, &tm);
  char buf[32];
  strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

// ---- AWS profile files ----------------------------------------------------------------------

// The key = value pairs of section `section` of an INI file (~/.aws/credentials, ~/.aws/config);
// empty when the file or section is missing. Nested (indented) sub-sections are skipped.
std::map<std::string, std::string> IniSection(const std::string& path, const std::string& section) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  if (!in) return out;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    std::string t = Trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t.front() == '[' && t.back() == ']') {
      inside = Trim(std::string_view(t).substr(1, t.size() - 2)) == section;
      continue;
    }
    if (!inside || line[0] == ' ' || line[0] == '\t') continue;
    size_t eq = t.find('=');
    if (eq == std::string::npos) continue;
    out[Lower(Trim(std::string_view(t).substr(0, eq)))] = Trim(std::string_view(t).substr(eq + 1));
  }
  return out;
}

std::string HomeFile(const char* env, const char* rel) {
  if (const char* e = std::getenv(env); e != nullptr && *e != '\0') return e;
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : "") + "/" + rel;
}

struct Profile {
  std::map<std::string, std::string> credentials;  // ~/.aws/credentials [name]
  std::map<std::string, std::string> config;       // ~/.aws/config [profile name] / [default]
  std::string Get(const std::string& k) const {
    if (auto it = credentials.find(k); it != credentials.end()) return it->second;
    if (auto it = config.find(k); it != config.end()) return it->second;
    return "";
  }
};

Profile LoadProfile() {
  std::string name = "default";
  if (auto p = StorageSetting("fs.s3a.aws.profile", "AWS_PROFILE")) {
    name = *p;
  } else if (auto d = StorageSetting("", "AWS_DEFAULT_PROFILE")) {
    name = *d;
  }
  Profile p;
  p.credentials = IniSection(HomeFile("AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials"), name);
  std::string config = HomeFile("AWS_CONFIG_FILE", ".aws/config");
  p.config = IniSection(config, name == "default" ? "default" : "profile " + name);
  if (p.config.empty()) p.config = IniSection(config, name);
  return p;
}

// ---- Conditional-write probes ------------------------------------------------------------------

struct Probes {
  std::mutex mu;
  std::map<std::string, bool> supported;  // endpoint + "/" + bucket -> honours If-None-Match
  std::map<std::string, std::unique_ptr<std::mutex>> create_locks;  // single-process creates
  std::map<std::string, std::string> bucket_regions;  // endpoint + "/" + bucket -> region
};
Probes& GetProbes() {
  static Probes* p = new Probes();  // never destroyed: stores may be used at exit
  return *p;
}

}  // namespace

// ---- SigV4 -------------------------------------------------------------------------------------

std::string SigV4CanonicalRequest(const SigV4Request& request) {
  std::vector<std::pair<std::string, std::string>> q;
  for (const auto& [k, v] : request.query) q.emplace_back(UrlEncode(k, false), UrlEncode(v, false));
  std::sort(q.begin(), q.end());
  std::string query;
  for (const auto& [k, v] : q) {
    if (!query.empty()) query += "&";
    query += k + "=" + v;
  }
  std::vector<std::pair<std::string, std::string>> h;
  for (const auto& [k, v] : request.headers) {
    std::string value;
    bool space = false;
    for (char c : Trim(v)) {
      if (c == ' ' || c == '\t') {
        space = true;
        continue;
      }
      if (space && !value.empty()) value.push_back(' ');
      space = false;
      value.push_back(c);
    }
    h.emplace_back(Lower(k), std::move(value));
  }
  std::sort(h.begin(), h.end());
  std::string headers, signed_headers;
  for (const auto& [k, v] : h) {
    headers += k + ":" + v + "\n";
    signed_headers += (signed_headers.empty() ? "" : ";") + k;
  }
  return request.method + "\n" + request.canonical_uri + "\n" + query + "\n" + headers + "\n" +
         signed_headers + "\n" + request.payload_hash;
}

namespace {

std::string SignedHeaders(const SigV4Request& request) {
  std::vector<std::string> names;
  for (const auto& [k, v] : request.headers) names.push_back(Lower(k));
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ";") + n;
  return out;
}

std::string Scope(const std::string& amz_date, const std::string& region,
                  const std::string& service) {
  return amz_date.substr(0, 8) + "/" + region + "/" + service + "/aws4_request";
}

}  // namespace

std::string SigV4StringToSign(const SigV4Request& request, const std::string& amz_date,
                              const std::string& region, const std::string& service) {
  return std::string(kAlgorithm) + "\n" + amz_date + "\n" + Scope(amz_date, region, service) +
         "\n" + Hex(cloud::Sha256(SigV4CanonicalRequest(request)));
}

std::string SigV4Authorization(const SigV4Request& request, const S3Credentials& credentials,
                               const std::string& amz_date, const std::string& region,
                               const std::string& service) {
  std::string k = HmacSha256("AWS4" + credentials.secret_key, amz_date.substr(0, 8));
  k = HmacSha256(k, region);
  k = HmacSha256(k, service);
  k = HmacSha256(k, "aws4_request");
  std::string signature = Hex(HmacSha256(k, SigV4StringToSign(request, amz_date, region, service)));
  return std::string(kAlgorithm) + " Credential=" + credentials.access_key + "/" +
         Scope(amz_date, region, service) + ", SignedHeaders=" + SignedHeaders(request) +
         ", Signature=" + signature;
}

// ---- Locations and configuration ----------------------------------------------------------------

bool IsS3Location(std::string_view location) {
  std::string scheme = UriScheme(location);
  return (scheme == "s3" || scheme == "s3a") && location.find("://") != std::string_view::npos;
}

Result<S3Location> ParseS3Location(std::string_view location) {
  if (size_t q = location.find('?'); q != std::string_view::npos) {
    return Status::InvalidArgument("bad S3 location '" + std::string(location.substr(0, q)) +
                                       "?…': a location has no query string",
                                   kErrorInvalidPath);
  }
  size_t sep = location.find("://");
  if (sep == std::string_view::npos) return BadLocation(location, "expected s3://bucket/path");
  std::string_view rest = location.substr(sep + 3);
  size_t slash = rest.find('/');
  S3Location loc;
  loc.bucket = std::string(rest.substr(0, slash));
  if (loc.bucket.empty()) return BadLocation(location, "no bucket");
  if (loc.bucket.find_first_of("@:") != std::string::npos) {
    return BadLocation(location, "credentials or a port do not belong in the bucket name");
  }
  std::string path = slash == std::string_view::npos ? "" : std::string(rest.substr(slash + 1));
  while (!path.empty() && path.back() == '/') path.pop_back();
  while (!path.empty() && path.front() == '/') path.erase(0, 1);
  if (!path.empty()) {
    Status st = ValidateObjectKey(path);
    if (!st.ok()) return BadLocation(location, std::string(st.message()));
  }
  loc.path = path;
  loc.canonical = Lower(location.substr(0, sep)) + "://" + loc.bucket;
  if (!path.empty()) loc.canonical += "/" + path;
  return loc;
}

Result<S3StoreOptions> S3OptionsFromConfig(const S3Location& loc) {
  S3StoreOptions o;
  // Per-bucket settings (fs.s3a.bucket.<b>.<name>) win over the general ones (fs.s3a.<name>).
  auto setting = [&](const std::string& name) -> std::optional<std::string> {
    if (auto v = GetStorageConfig("fs.s3a.bucket." + loc.bucket + "." + name)) return v;
    return GetStorageConfig("fs.s3a." + name);
  };
  Profile profile = LoadProfile();
  // Credentials, as S3A's fs.s3a.aws.credentials.provider lists them (class names, the SDK v1
  // and v2 ones), or by default the SDK chain: configuration, environment, web identity, profile
  // files, container credentials, instance metadata. Static keys are read here; the other
  // sources when a request needs them (AwsCredentialsProvider).
  S3Credentials& c = o.credentials;
  bool want_config = false, want_env = false, want_profile = false, want_web = false,
       want_container = false, want_instance = false, anonymous = false;
  bool default_chain = true;
  if (auto list = setting("aws.credentials.provider"); list && !Trim(*list).empty()) {
    default_chain = false;
    std::stringstream names(*list);
    std::string name;
    while (std::getline(names, name, ',')) {
      name = Trim(name);
      while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
      if (name.empty()) continue;
      std::string simple =
          name.substr(name.rfind('.') == std::string::npos ? 0 : name.rfind('.') + 1);
      if (simple == "SimpleAWSCredentialsProvider" || simple == "TemporaryAWSCredentialsProvider") {
        want_config = true;
      } else if (simple == "EnvironmentVariableCredentialsProvider") {
        want_env = true;
      } else if (simple == "ProfileCredentialsProvider") {
        want_profile = true;
      } else if (simple == "WebIdentityTokenCredentialsProvider" ||
                 simple == "WebIdentityTokenFileCredentialsProvider") {
        want_web = true;
      } else if (simple == "ContainerCredentialsProvider") {
        want_container = true;
      } else if (simple == "InstanceProfileCredentialsProvider") {
        want_instance = true;
      } else if (simple == "IAMInstanceCredentialsProvider" ||
                 simple == "EC2ContainerCredentialsProviderWrapper") {
        want_container = want_instance = true;
      } else if (simple == "AnonymousAWSCredentialsProvider" ||
                 simple == "AnonymousCredentialsProvider") {
        anonymous = true;
      } else if (simple == "DefaultAWSCredentialsProviderChain" ||
                 simple == "DefaultCredentialsProvider") {
        default_chain = true;
      } else {
        return Status::NotImplemented("fs.s3a.aws.credentials.provider: " + name +
                                          " is not supported (docs/cloud-storage.md lists "
                                          "the providers silt resolves)",
                                      errc::kNotImplemented);
      }
    }
  }
  if (default_chain) want_config = want_env = want_profile = want_web = want_container = true;
  bool found = false;
  auto access = want_config ? setting("access.key") : std::nullopt;
  auto secret = want_config ? setting("secret.key") : std::nullopt;
  auto env_access = want_env ? StorageSetting("", "AWS_ACCESS_KEY_ID") : std::nullopt;
  if (access || secret) {
    if (!access || !secret) {
      return Status::InvalidArgument(
          std::string("S3 bucket '") + loc.bucket + "': " +
              (access ? "fs.s3a.access.key is set but not fs.s3a.secret.key"
                      : "fs.s3a.secret.key is set but not fs.s3a.access.key"),
          kErrorCloudAuth);
    }
    c.access_key = *access;
    c.secret_key = *secret;
    c.session_token = setting("session.token").value_or("");
    found = true;
  } else if (env_access) {
    auto env_secret = StorageSetting("", "AWS_SECRET_ACCESS_KEY");
    if (!env_secret) {
      return Status::InvalidArgument("AWS_ACCESS_KEY_ID is set but not AWS_SECRET_ACCESS_KEY",
                                     kErrorCloudAuth);
    }
    c.access_key = *env_access;
    c.secret_key = *env_secret;
    c.session_token = StorageSetting("", "AWS_SESSION_TOKEN").value_or("");
    found = true;
  }
  // Web identity comes before the profile files in the SDK chain.
  auto web_token_file = StorageSetting("", "AWS_WEB_IDENTITY_TOKEN_FILE");
  auto role_arn = StorageSetting("", "AWS_ROLE_ARN");
  bool web_ready = want_web && web_token_file && role_arn;
  if (!found && !web_ready && want_profile && !profile.Get("aws_access_key_id").empty()) {
    c.access_key = profile.Get("aws_access_key_id");
    c.secret_key = profile.Get("aws_secret_access_key");
    c.session_token = profile.Get("aws_session_token");
    if (c.secret_key.empty()) {
      return Status::InvalidArgument(
          "the AWS profile has aws_access_key_id but no aws_secret_access_key", kErrorCloudAuth);
    }
    found = true;
  }
  if (anonymous) c = S3Credentials{};
  // Region and endpoint.
  if (auto r = setting("endpoint.region")) {
    o.region = *r;
  } else if (auto er = StorageSetting("", "AWS_REGION")) {
    o.region = *er;
  } else if (auto dr = StorageSetting("", "AWS_DEFAULT_REGION")) {
    o.region = *dr;
  } else if (!profile.Get("region").empty()) {
    o.region = profile.Get("region");
  }
  // The sources fetched when a request needs them.
  if (!found && !anonymous) {
    AwsCredentialsProvider::Options p;
    if (web_ready || (want_web && !default_chain)) {
      p.chain.push_back(AwsCredentialsProvider::Source::kWebIdentity);
      p.token_file = web_token_file.value_or("");
      p.role_arn = role_arn.value_or("");
      p.session_name = StorageSetting("", "AWS_ROLE_SESSION_NAME").value_or("");
      p.sts_endpoint = StorageSetting("", "AWS_ENDPOINT_URL_STS")
                           .value_or("https://sts." + o.region + ".amazonaws.com");
      while (!p.sts_endpoint.empty() && p.sts_endpoint.back() == '/') p.sts_endpoint.pop_back();
    }
    auto full_uri = StorageSetting("", "AWS_CONTAINER_CREDENTIALS_FULL_URI");
    auto relative_uri = StorageSetting("", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI");
    if (want_container && (relative_uri || full_uri || !default_chain)) {
      p.chain.push_back(AwsCredentialsProvider::Source::kContainer);
      p.container_uri =
          relative_uri ? "http://169.254.170.2" + *relative_uri : full_uri.value_or("");
      p.container_auth = StorageSetting("", "AWS_CONTAINER_AUTHORIZATION_TOKEN").value_or("");
      p.container_auth_file =
          StorageSetting("", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE").value_or("");
    }
    bool imds_off = cloud::IsTrue(StorageSetting("", "AWS_EC2_METADATA_DISABLED"));
    if ((want_instance || default_chain) && !imds_off) {
      p.chain.push_back(AwsCredentialsProvider::Source::kInstance);
      p.imds_endpoint = StorageSetting("", "AWS_EC2_METADATA_SERVICE_ENDPOINT")
                            .value_or("http://169.254.169.254");
      while (!p.imds_endpoint.empty() && p.imds_endpoint.back() == '/') p.imds_endpoint.pop_back();
    }
    // The default chain with no source configured ends unsigned when the metadata service does
    // not answer its one quick try (public buckets, emulators).
    p.anonymous_fallback = default_chain && p.chain.size() == 1 &&
                           p.chain[0] == AwsCredentialsProvider::Source::kInstance;
    if (p.anonymous_fallback) p.http.max_retries = 0;
    if (!p.chain.empty()) {
      o.credentials_provider = AwsCredentialsProvider::Shared(p);
    } else if (!default_chain) {
      return Status::InvalidArgument(
          "fs.s3a.aws.credentials.provider names no source with credentials for bucket '" +
              loc.bucket + "'",
          kErrorCloudAuth);
    }
  }
  if (auto e = setting("endpoint")) {
    o.endpoint = *e;
  } else if (auto es = StorageSetting("", "AWS_ENDPOINT_URL_S3")) {
    o.endpoint = *es;
  } else if (auto eu = StorageSetting("", "AWS_ENDPOINT_URL")) {
    o.endpoint = *eu;
  } else if (!profile.Get("endpoint_url").empty()) {
    o.endpoint = profile.Get("endpoint_url");
  } else {
    o.endpoint = "s3." + o.region + ".amazonaws.com";
  }
  if (o.endpoint.find("://") == std::string::npos) {
    auto ssl = setting("connection.ssl.enabled");
    o.endpoint = (ssl && !cloud::IsTrue(ssl) ? "http://" : "https://") + o.endpoint;
  }
  // scheme://host[:port] only.
  size_t host_at = o.endpoint.find("://") + 3;
  o.endpoint = o.endpoint.substr(0, o.endpoint.find('/', host_at));
  // Path style when asked, and by default for an IP or localhost endpoint (emulators), where
  // bucket.host names cannot resolve.
  if (auto ps = setting("path.style.access")) {
    o.path_style = cloud::IsTrue(ps);
  } else {
    std::string host = o.endpoint.substr(host_at);
    if (!host.empty() && host[0] != '[') host = host.substr(0, host.find(':'));
    o.path_style = host == "localhost" || host.starts_with("[") ||
                   host.find_first_not_of("0123456789.") == std::string::npos;
  }
  // Exclusive creates.
  std::optional<std::string> mode = setting("conditional.put");
  if (!mode) mode = StorageSetting("", "SILT_S3_CONDITIONAL_PUT");
  if (mode) {
    std::string m = Lower(*mode);
    if (m == "single-process") {
      o.create_mode = S3StoreOptions::CreateMode::kSingleProcess;
    } else if (m != "conditional" && m != "true") {
      return Status::InvalidArgument(
          "fs.s3a.conditional.put must be 'conditional' or 'single-process', not '" + *mode + "'",
          errc::kInvalidConfValue);
    }
  }
  // Server-side encryption (S3A's names; the legacy ones too).
  auto algorithm = setting("encryption.algorithm");
  if (!algorithm) algorithm = setting("server-side-encryption-algorithm");
  auto sse_key = setting("encryption.key");
  if (!sse_key) sse_key = setting("server-side-encryption.key");
  if (algorithm && !algorithm->empty()) {
    std::string a = cloud::Lower(*algorithm);
    if (a == "sse-s3" || a == "aes256") {
      o.encryption_headers = {{"x-amz-server-side-encryption", "AES256"}};
    } else if (a == "sse-kms" || a == "aws:kms" || a == "dsse-kms") {
      o.encryption_headers = {
          {"x-amz-server-side-encryption", a == "dsse-kms" ? "aws:kms:dsse" : "aws:kms"}};
      // Without a key S3 uses the account's default KMS key (aws/s3).
      if (sse_key && !sse_key->empty()) {
        o.encryption_headers.emplace_back("x-amz-server-side-encryption-aws-kms-key-id", *sse_key);
      }
    } else if (a == "sse-c" || a == "cse-kms") {
      return Status::NotImplemented("fs.s3a.encryption.algorithm " + *algorithm +
                                        " is not supported (SSE-S3 and SSE-KMS are)",
                                    errc::kNotImplemented);
    } else if (a != "none") {
      return Status::InvalidArgument(
          "fs.s3a.encryption.algorithm must be SSE-S3, SSE-KMS, "
          "DSSE-KMS or none, not '" +
              *algorithm + "'",
          errc::kInvalidConfValue);
    }
  }
  // HTTP settings (Hadoop S3A names; durations take Hadoop's units, a bare number is ms).
  o.http.max_retries =
      static_cast<int>(cloud::IntSetting(setting("retry.limit"), o.http.max_retries));
  o.http.min_backoff_ms =
      cloud::DurationMsSetting(setting("retry.interval"), 1, o.http.min_backoff_ms);
  o.http.max_backoff_ms =
      cloud::DurationMsSetting(setting("retry.max.interval"), 1, o.http.max_backoff_ms);
  o.http.connect_timeout_ms = cloud::DurationMsSetting(setting("connection.establish.timeout"), 1,
                                                       o.http.connect_timeout_ms);
  o.http.stall_timeout_ms =
      cloud::DurationMsSetting(setting("connection.timeout"), 1, o.http.stall_timeout_ms);
  o.http.request_timeout_ms =
      cloud::DurationMsSetting(setting("connection.request.timeout"), 1, o.http.request_timeout_ms);
  o.part_size = std::max<int64_t>(1, cloud::BytesSetting(setting("multipart.size"), o.part_size));
  o.multipart_threshold = std::max<int64_t>(
      1, cloud::BytesSetting(setting("multipart.threshold"), o.multipart_threshold));
  o.prefetch_bytes = cloud::BytesSetting(setting("readahead.range"), o.prefetch_bytes);
  // ListObjectsV2 max-keys (S3 answers at most 1000; emulators may take more).
  o.list_page_size = static_cast<int>(std::clamp<int64_t>(
      cloud::IntSetting(setting("paging.maximum"), o.list_page_size), 1, 1 << 20));
  return o;
}

// ---- The store -------------------------------------------------------------------------------

namespace {

HttpObjectStore::Traits S3Traits(const S3StoreOptions& o) {
  HttpObjectStore::Traits t;
  t.range_header = "Range";
  t.put_ok_status = 200;
  t.prefetch_bytes = o.prefetch_bytes;
  t.part_size = o.part_size;
  t.single_put_limit = o.multipart_threshold;
  t.list_page_size = o.list_page_size;
  // One full page rather than max-keys=1: a truncated answer needs a continuation token, which
  // s3rver cannot make on current Node (DES); S3 answers either in one request.
  t.dir_probe_page_size = o.list_page_size;
  t.delete_batch_size = o.delete_batch_size;
  t.max_delete_batch = 1000;
  return t;
}

}  // namespace

S3ObjectStore::S3ObjectStore(S3Location location, S3StoreOptions options)
    : HttpObjectStore(location.canonical, location.path, options.http, S3Traits(options)),
      location_(std::move(location)),
      options_(std::move(options)) {
  size_t sep = options_.endpoint.find("://");
  scheme_ = sep == std::string::npos ? "https" : options_.endpoint.substr(0, sep);
  if (options_.path_style) base_path_ = "/" + UrlEncode(location_.bucket, false);
  endpoint_follows_region_ =
      options_.endpoint == "https://s3." + options_.region + ".amazonaws.com";
  region_ = options_.region;
  {
    // A region a redirect taught this process.
    Probes& p = GetProbes();
    std::lock_guard<std::mutex> lock(p.mu);
    if (auto it = p.bucket_regions.find(options_.endpoint + "/" + location_.bucket);
        it != p.bucket_regions.end()) {
      region_ = it->second;
    }
  }
  host_ = HostFor(region_);
}

std::string S3ObjectStore::HostFor(const std::string& region) const {
  size_t sep = options_.endpoint.find("://");
  std::string hostport =
      sep == std::string::npos ? options_.endpoint : options_.endpoint.substr(sep + 3);
  if (endpoint_follows_region_) hostport = "s3." + region + ".amazonaws.com";
  return options_.path_style ? hostport : location_.bucket + "." + hostport;
}

std::string S3ObjectStore::region() const {
  std::lock_guard<std::mutex> lock(addressing_mu_);
  return region_;
}

bool S3ObjectStore::Redirected(const HttpResponse& r) {
  if (r.status != 301 && r.status != 307 && r.status != 400) return false;
  std::string region(r.Header("x-amz-bucket-region"));
  if (region.empty() || region.find_first_of("/:@ ") != std::string::npos) return false;
  {
    std::lock_guard<std::mutex> lock(addressing_mu_);
    if (region == region_) return false;
    region_ = region;
    host_ = HostFor(region);
  }
  Probes& p = GetProbes();
  std::lock_guard<std::mutex> lock(p.mu);
  p.bucket_regions[options_.endpoint + "/" + location_.bucket] = region;
  return true;
}

Result<std::shared_ptr<S3ObjectStore>> S3ObjectStore::Open(std::string_view location) {
  SILT_ASSIGN_OR_RETURN(S3Location loc, ParseS3Location(location));
  SILT_ASSIGN_OR_RETURN(S3StoreOptions options, S3OptionsFromConfig(loc));
  return std::make_shared<S3ObjectStore>(std::move(loc), std::move(options));
}

Result<HttpRequest> S3ObjectStore::BuildRequest(
    const std::string& method, const std::string& object_key,
    const std::vector<std::pair<std::string, std::string>>& query, Headers headers,
    std::string_view body) const {
  std::string region, host;
  {
    std::lock_guard<std::mutex> lock(addressing_mu_);
    region = region_;
    host = host_;
  }
  SigV4Request s;
  s.method = method;
  s.canonical_uri = base_path_;
  if (!object_key.empty()) {
    s.canonical_uri += "/" + UrlEncode(object_key, /*keep_slash=*/true);
  } else if (s.canonical_uri.empty()) {
    s.canonical_uri = "/";
  }
  s.query = query;
  s.payload_hash = Hex(cloud::Sha256(body));
  if ((method == "PUT" || method == "POST")) {
    bool has_type = false;
    for (auto& [k, v] : headers) has_type |= Lower(k) == "content-type";
    if (!has_type) headers.emplace_back("Content-Type", "application/octet-stream");
  }
  // Server-side encryption where objects are created: PutObject, CreateMultipartUpload.
  bool creates = (method == "PUT" && !object_key.empty() && query.empty()) ||
                 (method == "POST" && query.size() == 1 && query[0].first == "uploads");
  if (creates) {
    for (const auto& h : options_.encryption_headers) headers.push_back(h);
  }
  headers.emplace_back("Host", host);
  headers.emplace_back("x-amz-content-sha256", s.payload_hash);
  S3Credentials c = options_.credentials;
  if (options_.credentials_provider) {
    SILT_ASSIGN_OR_RETURN(AwsSessionCredentials fetched, options_.credentials_provider->Get());
    c = {fetched.access_key, fetched.secret_key, fetched.session_token};
  }
  if (!c.access_key.empty()) {
    std::string date = AmzDate(SystemClock().NowMillis());
    headers.emplace_back("x-amz-date", date);
    if (!c.session_token.empty()) headers.emplace_back("x-amz-security-token", c.session_token);
    s.headers = headers;
    headers.emplace_back("Authorization", SigV4Authorization(s, c, date, region, "s3"));
  }
  // The URL's query in the canonical (sorted, encoded) form.
  std::vector<std::pair<std::string, std::string>> q;
  for (const auto& [k, v] : query) q.emplace_back(UrlEncode(k, false), UrlEncode(v, false));
  std::sort(q.begin(), q.end());
  std::string qs;
  for (const auto& [k, v] : q) qs += (qs.empty() ? "?" : "&") + k + "=" + v;
  HttpRequest req;
  req.method = method;
  req.url = scheme_ + "://" + host + s.canonical_uri + qs;
  req.headers = std::move(headers);
  req.body = body;
  return req;
}

std::string S3ObjectStore::ErrorCode(const HttpResponse& r) const {
  // <Code>, never the message, which may quote a string to sign.
  if (auto c = XmlText(r.body, "Code")) return *c;
  return "";
}

std::string S3ObjectStore::ErrorHint(int status, const std::string& code) const {
  if (status == 401 || status == 403) return " (check the credentials: docs/cloud-storage.md)";
  if (code == "NoSuchBucket") return " (bucket '" + location_.bucket + "' does not exist)";
  if (code == "PermanentRedirect" || code == "AuthorizationHeaderMalformed") {
    return " (the bucket is in another region and S3 did not say which: set "
           "fs.s3a.endpoint.region)";
  }
  return "";
}

Status S3ObjectStore::CreateBucket() {
  std::string body;
  if (options_.region != "us-east-1") {
    body =
        "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        "<LocationConstraint>" +
        options_.region + "</LocationConstraint></CreateBucketConfiguration>";
  }
  SILT_ASSIGN_OR_RETURN(HttpResponse r,
                        Call("PUT", "", {}, {{"Content-Type", "application/xml"}}, body,
                             RequestKind::kPut, "CreateBucket " + location_.bucket));
  // Real S3 answers BucketAlreadyOwnedByYou for our own bucket; emulators BucketAlreadyExists.
  if (r.status == 200 || (r.status == 409 && (ErrorCode(r) == "BucketAlreadyOwnedByYou" ||
                                              ErrorCode(r) == "BucketAlreadyExists")))
    return Status::OK();
  return ErrorFor(r, "CreateBucket", "");
}

Result<std::string> S3ObjectStore::StartParts(const std::string& key) {
  SILT_ASSIGN_OR_RETURN(HttpResponse r,
                        Call("POST", ObjectName(key), {{"uploads", ""}}, {}, {}, RequestKind::kPut,
                             "CreateMultipartUpload " + Describe(key)));
  if (r.status != 200) return ErrorFor(r, "CreateMultipartUpload", key);
  auto id = XmlText(r.body, "UploadId");
  if (!id || id->empty()) return ErrorFor(r, "CreateMultipartUpload (no UploadId)", key);
  return *id;
}

Result<std::string> S3ObjectStore::PutPart(const std::string& key, const std::string& upload_id,
                                           int index, std::string_view data) {
  SILT_ASSIGN_OR_RETURN(
      HttpResponse r, Call("PUT", ObjectName(key),
                           {{"partNumber", std::to_string(index + 1)}, {"uploadId", upload_id}}, {},
                           data, RequestKind::kPut, "UploadPart " + Describe(key)));
  if (r.status != 200) return ErrorFor(r, "UploadPart", key);
  std::string etag(r.Header("etag"));
  if (etag.empty()) return ErrorFor(r, "UploadPart (no ETag)", key);
  return etag;
}

Status S3ObjectStore::CompleteParts(const std::string& key, const std::string& upload_id,
                                    const std::vector<std::string>& etags, bool if_absent,
                                    std::string_view /*whole*/) {
  if (if_absent) {
    // Conditional creates are single PutObjects (PutIfAbsent): commits are small.
    return Status::NotImplemented("a conditional multipart upload of " + Describe(key),
                                  errc::kNotImplemented);
  }
  std::string body = "<CompleteMultipartUpload>";
  for (size_t i = 0; i < etags.size(); ++i) {
    body += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" +
            cloud::XmlEscape(etags[i]) + "</ETag></Part>";
  }
  body += "</CompleteMultipartUpload>";
  SILT_ASSIGN_OR_RETURN(HttpResponse r,
                        Call("POST", ObjectName(key), {{"uploadId", upload_id}},
                             {{"Content-Type", "application/xml"}}, body, RequestKind::kPut,
                             "CompleteMultipartUpload " + Describe(key)));
  // S3 may answer 200 with an error document once the upload is under way.
  if (r.status != 200 || r.body.find("<Error>") != std::string::npos) {
    return ErrorFor(r, "CompleteMultipartUpload", key);
  }
  return Status::OK();
}

void S3ObjectStore::AbortParts(const std::string& key, const std::string& upload_id) {
  // Best effort: a leftover upload holds no visible object (a bucket lifecycle rule reaps it).
  (void)Call("DELETE", ObjectName(key), {{"uploadId", upload_id}}, {}, {}, RequestKind::kDelete,
             "AbortMultipartUpload " + Describe(key));
}

void S3ObjectStore::ForgetConditionalWriteProbesForTesting() {
  Probes& p = GetProbes();
  std::lock_guard<std::mutex> lock(p.mu);
  p.supported.clear();
  p.bucket_regions.clear();
}

Result<bool> S3ObjectStore::ConditionalWritesSupported() {
  Probes& p = GetProbes();
  std::string id = options_.endpoint + "/" + location_.bucket;
  {
    std::lock_guard<std::mutex> lock(p.mu);
    if (auto it = p.supported.find(id); it != p.supported.end()) return it->second;
  }
  // A hidden probe object below the store's prefix (callers skip names starting with '.'),
  // written twice with If-None-Match: * : the second write must meet 412 (or 409).
  std::string probe = ObjectName(".silt-conditional-put-probe-" + cloud::RandomHex(16));
  std::string what = "conditional-write probe " + root();
  bool supported = false;
  SILT_ASSIGN_OR_RETURN(HttpResponse first, Call("PUT", probe, {}, {{"If-None-Match", "*"}},
                                                 "probe", RequestKind::kPut, what));
  if (first.status == 200) {
    SILT_ASSIGN_OR_RETURN(HttpResponse second, Call("PUT", probe, {}, {{"If-None-Match", "*"}},
                                                    "probe", RequestKind::kPut, what));
    supported = second.status == 412 || second.status == 409;
    if (!supported && second.status != 200 && second.status != 501 && second.status != 400) {
      return ErrorFor(second, "conditional-write probe", "");
    }
  } else if (first.status != 501 && first.status != 400) {
    return ErrorFor(first, "conditional-write probe", "");
  }
  (void)Call("DELETE", probe, {}, {}, {}, RequestKind::kDelete, what);
  std::lock_guard<std::mutex> lock(p.mu);
  p.supported[id] = supported;
  return supported;
}

Status S3ObjectStore::ConditionalCreate(const std::string& key, std::string_view data) {
  // 409 ConditionalRequestConflict: another conditional write of the key is in flight; try
  // again (it then meets 412 if that one won).
  for (int attempt = 0;; ++attempt) {
    bool ambiguous = false;
    SILT_ASSIGN_OR_RETURN(HttpResponse r,
                          Call("PUT", ObjectName(key), {}, {{"If-None-Match", "*"}}, data,
                               RequestKind::kPut, "PUT " + Describe(key), &ambiguous));
    if (r.status == 200) return Status::OK();
    if (r.status == 412) return CreateConflict(key, data, ambiguous);
    if (r.status == 501 || (r.status == 400 && ErrorCode(r) == "NotImplemented")) {
      return Status::NotImplemented(
          "the S3 endpoint of " + Describe(key) +
              " does not support conditional writes (If-None-Match: *), which Delta commits "
              "need; set fs.s3a.conditional.put=single-process if only this process writes the "
              "table (docs/cloud-storage.md)",
          errc::kNotImplemented);
    }
    if (r.status == 409 && attempt < 8) {
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min<int64_t>(
          options_.http.max_backoff_ms, options_.http.min_backoff_ms << attempt)));
      continue;
    }
    return ErrorFor(r, "PUT", key);
  }
}

Status S3ObjectStore::PutIfAbsent(const std::string& key, std::string_view data) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  if (options_.create_mode == S3StoreOptions::CreateMode::kSingleProcess) {
    // Delta's S3SingleDriverLogStore: creates of this process are serialised per bucket and
    // checked with HeadObject; another process writing the same table is not excluded.
    std::mutex* mu;
    {
      Probes& p = GetProbes();
      std::lock_guard<std::mutex> lock(p.mu);
      auto& slot = p.create_locks[options_.endpoint + "/" + location_.bucket];
      if (!slot) slot = std::make_unique<std::mutex>();
      mu = slot.get();
    }
    std::lock_guard<std::mutex> lock(*mu);
    Result<ObjectMeta> head = Head(key);
    if (head.ok()) {
      return Status::AlreadyExists("object already exists: " + Describe(key),
                                   kErrorFileAlreadyExists);
    }
    if (!head.status().IsNotFound()) return head.status();
    return WriteObject(key, data, /*if_absent=*/false);
  }
  SILT_ASSIGN_OR_RETURN(bool supported, ConditionalWritesSupported());
  if (!supported) {
    return Status::NotImplemented(
        "the S3 endpoint of " + Describe(key) +
            " ignores conditional writes (If-None-Match: *), which Delta commits need: a commit "
            "could silently overwrite another; set fs.s3a.conditional.put=single-process if only "
            "this process writes the table (docs/cloud-storage.md)",
        errc::kNotImplemented);
  }
  return ConditionalCreate(key, data);
}

Status S3ObjectStore::DeleteBatch(std::span<const std::string_view> keys,
                                  std::span<const size_t> index, std::span<Status> statuses) {
  std::string body = "<Delete><Quiet>true</Quiet>";
  for (size_t i : index) {
    body +=
        "<Object><Key>" + cloud::XmlEscape(ObjectName(std::string(keys[i]))) + "</Key></Object>";
  }
  body += "</Delete>";
  SILT_ASSIGN_OR_RETURN(
      HttpResponse r,
      Call("POST", "", {{"delete", ""}},
           {{"Content-Type", "application/xml"}, {"Content-MD5", Base64Encode(cloud::Md5(body))}},
           body, RequestKind::kDelete, "DeleteObjects " + root()));
  if (r.status != 200) return ErrorFor(r, "DeleteObjects", "");
  // Quiet mode: only the failures are listed.
  std::map<std::string, std::string> failed;  // full key -> code
  SILT_RETURN_NOT_OK(ForEachElement(r.body, "Error", [&](std::string_view el) -> Status {
    auto key = XmlText(el, "Key");
    if (key) failed[*key] = XmlText(el, "Code").value_or("");
    return Status::OK();
  }));
  for (size_t i : index) {
    std::string key(keys[i]);
    auto it = failed.find(ObjectName(key));
    if (it == failed.end() || it->second == "NoSuchKey") {
      statuses[i] = Status::OK();
    } else if (it->second == "AccessDenied") {
      HttpResponse part;
      part.status = 403;
      statuses[i] = ErrorFor(part, "DELETE (in DeleteObjects, AccessDenied)", key);
    } else {
      statuses[i] = Delete(key);  // throttled or failed inside the batch: on its own, with retries
    }
  }
  return Status::OK();
}

Result<HttpObjectStore::Page> S3ObjectStore::ListPage(const std::string& prefix, bool delimited,
                                                      const std::string& token,
                                                      const std::string& start_after,
                                                      int max_keys) {
  std::vector<std::pair<std::string, std::string>> query = {{"list-type", "2"}};
  std::string full = name_prefix() + prefix;
  if (!full.empty()) query.emplace_back("prefix", full);
  if (delimited) query.emplace_back("delimiter", "/");
  if (!token.empty()) {
    query.emplace_back("continuation-token", token);
  } else if (!start_after.empty()) {
    query.emplace_back("start-after", name_prefix() + start_after);
  }
  query.emplace_back("max-keys", std::to_string(max_keys));
  SILT_ASSIGN_OR_RETURN(HttpResponse r, Call("GET", "", query, {}, {}, RequestKind::kList,
                                             "LIST " + Describe(prefix)));
  if (r.status != 200) return ErrorFor(r, "LIST", prefix);
  Page page;
  size_t n = name_prefix().size();
  SILT_RETURN_NOT_OK(ForEachElement(r.body, "Contents", [&](std::string_view el) -> Status {
    auto name = XmlText(el, "Key");
    if (!name || name->size() <= n || !name->starts_with(name_prefix())) return Status::OK();
    ObjectMeta m;
    m.key = name->substr(n);
    if (!ValidateObjectKey(m.key).ok()) return Status::OK();  // a name no key can reach
    if (auto len = XmlText(el, "Size")) m.size = std::strtoll(len->c_str(), nullptr, 10);
    if (auto lm = XmlText(el, "LastModified"))
      m.modification_time_ms = std::max<int64_t>(0, cloud::ParseIso8601Millis(*lm));
    page.objects.push_back(std::move(m));
    return Status::OK();
  }));
  SILT_RETURN_NOT_OK(ForEachElement(r.body, "CommonPrefixes", [&](std::string_view el) -> Status {
    auto name = XmlText(el, "Prefix");
    if (name && name->size() > n && name->starts_with(name_prefix()))
      page.prefixes.push_back(name->substr(n));
    return Status::OK();
  }));
  if (cloud::IsTrue(XmlText(r.body, "IsTruncated"))) {
    page.next_token = XmlText(r.body, "NextContinuationToken").value_or("");
    if (page.next_token.empty()) {
      return Status::IoError(
          "LIST " + Describe(prefix) + ": a truncated listing without NextContinuationToken",
          kErrorCloudStorage);
    }
  }
  return page;
}

}  // namespace silt
