#include "support/fake_s3_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>

#include "io/cloud_util.h"
#include "io/http_client.h"

namespace silt {

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::map<std::string, std::string> ParseQuery(const std::string& q) {
  std::map<std::string, std::string> out;
  size_t pos = 0;
  while (pos <= q.size() && !q.empty()) {
    size_t amp = q.find('&', pos);
    std::string part = q.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
    size_t eq = part.find('=');
    if (!part.empty()) {
      out[UrlDecode(part.substr(0, eq))] =
          eq == std::string::npos ? "" : UrlDecode(part.substr(eq + 1));
    }
    if (amp == std::string::npos) break;
    pos = amp + 1;
  }
  return out;
}

std::string ErrorXml(const std::string& code) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code +
         "</Code><Message>fake</Message></Error>";
}

// The region of "AWS4-HMAC-SHA256 Credential=AK/20240101/REGION/s3/aws4_request, ...".
std::string RegionOf(const std::string& authorization) {
  size_t c = authorization.find("Credential=");
  if (c == std::string::npos) return "";
  size_t s1 = authorization.find('/', c);
  size_t s2 = s1 == std::string::npos ? s1 : authorization.find('/', s1 + 1);
  size_t s3 = s2 == std::string::npos ? s2 : authorization.find('/', s2 + 1);
  if (s3 == std::string::npos) return "";
  return authorization.substr(s2 + 1, s3 - s2 - 1);
}

}  // namespace

FakeS3Server::FakeS3Server() {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  ::listen(fd_, 64);
  thread_ = std::thread([this] { Serve(); });
}

FakeS3Server::~FakeS3Server() {
  stop_ = true;
  ::shutdown(fd_, SHUT_RDWR);
  ::close(fd_);
  thread_.join();
}

std::string FakeS3Server::endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

void FakeS3Server::Inject(FaultKind kind, int count, const std::string& method,
                          const std::string& query_has) {
  std::lock_guard<std::mutex> lock(mu_);
  faults_.push_back({kind, count, method, query_has});
}

void FakeS3Server::SetBucketRegion(const std::string& bucket, const std::string& region,
                                   bool as_400) {
  std::lock_guard<std::mutex> lock(mu_);
  bucket_region_[bucket] = {region, as_400};
}

void FakeS3Server::FailInBatchOnce(const std::set<std::string>& keys, const std::string& code) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& k : keys) batch_failures_[k] = code;
}

void FakeS3Server::SetHandler(Handler handler) {
  std::lock_guard<std::mutex> lock(mu_);
  handler_ = std::move(handler);
}

std::vector<FakeS3Server::Request> FakeS3Server::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

void FakeS3Server::ClearRequests() {
  std::lock_guard<std::mutex> lock(mu_);
  requests_.clear();
}

std::map<std::string, std::string> FakeS3Server::objects(const std::string& bucket) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, std::string> out;
  if (auto it = buckets_.find(bucket); it != buckets_.end()) {
    for (const auto& [k, o] : it->second) out[k] = o.data;
  }
  return out;
}

void FakeS3Server::PutObject(const std::string& bucket, const std::string& key,
                             const std::string& data) {
  std::lock_guard<std::mutex> lock(mu_);
  Object& o = buckets_[bucket][key];
  o.data = data;
  o.etag = "\"e" + std::to_string(++etag_seq_) + "\"";
  o.mtime_ms = static_cast<int64_t>(std::time(nullptr)) * 1000;
}

void FakeS3Server::Serve() {
  while (!stop_) {
    int c = ::accept(fd_, nullptr, nullptr);
    if (c < 0) return;
    if (stop_) {
      ::close(c);
      return;
    }
    HandleConnection(c);
    ::close(c);
  }
}

void FakeS3Server::HandleConnection(int fd) {
  std::string in;
  char buf[65536];
  size_t header_end;
  while ((header_end = in.find("\r\n\r\n")) == std::string::npos) {
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) return;
    in.append(buf, static_cast<size_t>(n));
  }
  std::string head = in.substr(0, header_end);
  std::string body = in.substr(header_end + 4);
  size_t line_end = head.find("\r\n");
  std::string request_line = head.substr(0, line_end);
  size_t sp1 = request_line.find(' ');
  size_t sp2 = request_line.find(' ', sp1 + 1);
  std::string method = request_line.substr(0, sp1);
  std::string target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::map<std::string, std::string> headers;
  size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
  while (pos < head.size()) {
    size_t e = head.find("\r\n", pos);
    if (e == std::string::npos) e = head.size();
    std::string line = head.substr(pos, e - pos);
    size_t colon = line.find(':');
    if (colon != std::string::npos) {
      std::string v = line.substr(colon + 1);
      while (!v.empty() && v.front() == ' ') v.erase(0, 1);
      headers[Lower(line.substr(0, colon))] = v;
    }
    pos = e + 2;
  }
  size_t length = 0;
  if (auto it = headers.find("content-length"); it != headers.end()) {
    length = static_cast<size_t>(std::strtoull(it->second.c_str(), nullptr, 10));
  }
  while (body.size() < length) {
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) return;
    body.append(buf, static_cast<size_t>(n));
  }
  Response r = Handle(method, target, headers, body);
  std::string out = "HTTP/1.1 " + std::to_string(r.status) + " X\r\n";
  for (const auto& [k, v] : r.headers) out += k + ": " + v + "\r\n";
  int64_t content_length = r.head ? r.head_length : static_cast<int64_t>(r.body.size());
  out += "Content-Length: " + std::to_string(content_length) + "\r\nConnection: close\r\n\r\n";
  if (!r.head) out += r.truncate ? r.body.substr(0, r.body.size() / 2) : r.body;
  size_t sent = 0;
  while (sent < out.size()) {
    ssize_t n = ::send(fd, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += static_cast<size_t>(n);
  }
}

FakeS3Server::Response FakeS3Server::Handle(const std::string& method, const std::string& target,
                                            const std::map<std::string, std::string>& headers,
                                            const std::string& body) {
  auto header = [&](const char* name) -> std::string {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  };
  size_t qmark = target.find('?');
  std::string path = UrlDecode(target.substr(0, qmark));
  std::string raw_query = qmark == std::string::npos ? "" : target.substr(qmark + 1);
  std::map<std::string, std::string> q = ParseQuery(raw_query);
  std::string rest = path.size() > 1 ? path.substr(1) : "";
  size_t slash = rest.find('/');
  std::string bucket = rest.substr(0, slash);
  std::string key = slash == std::string::npos ? "" : rest.substr(slash + 1);
  std::string region = RegionOf(header("authorization"));

  std::lock_guard<std::mutex> lock(mu_);
  requests_.push_back({method, path, raw_query, region, headers});
  Response r;
  if (handler_) {
    std::string answer;
    int status = 0;
    if (handler_(requests_.back(), body, &status, &answer)) {
      r.status = status;
      r.body = std::move(answer);
      return r;
    }
  }
  // Scripted faults, in order.
  for (auto it = faults_.begin(); it != faults_.end(); ++it) {
    if ((!it->method.empty() && it->method != method) ||
        (!it->query_has.empty() && raw_query.find(it->query_has) == std::string::npos)) {
      continue;
    }
    FaultKind kind = it->kind;
    if (--it->count <= 0) faults_.erase(it);
    if (kind == FaultKind::kSlowDown) {
      r.status = 503;
      r.body = ErrorXml("SlowDown");
      return r;
    }
    if (kind == FaultKind::kInternal) {
      r.status = 500;
      r.body = ErrorXml("InternalError");
      return r;
    }
    r.truncate = true;
    break;
  }
  // A bucket in another region.
  if (auto it = bucket_region_.find(bucket);
      it != bucket_region_.end() && !region.empty() && region != it->second.first) {
    Response redirect;
    redirect.status = it->second.second ? 400 : 301;
    redirect.headers.emplace_back("x-amz-bucket-region", it->second.first);
    redirect.body =
        ErrorXml(it->second.second ? "AuthorizationHeaderMalformed" : "PermanentRedirect");
    return redirect;
  }
  auto& objects = buckets_[bucket];
  auto not_found = [&]() {
    Response nf;
    nf.status = 404;
    nf.body = method == "HEAD" ? "" : ErrorXml("NoSuchKey");
    return nf;
  };
  if (key.empty()) {
    if (method == "PUT") return r;  // CreateBucket
    if (method == "GET" && q.count("list-type") != 0) {
      Response l = ListV2(bucket, q);
      l.truncate = r.truncate;
      return l;
    }
    if (method == "POST" && q.count("delete") != 0) {
      Response d = DeleteObjects(bucket, body);
      d.truncate = r.truncate;
      return d;
    }
    r.status = 400;
    r.body = ErrorXml("NotImplemented");
    return r;
  }
  if (method == "PUT") {
    if (q.count("partNumber") != 0 || q.count("uploadId") != 0) {
      r.status = 501;
      r.body = ErrorXml("NotImplemented");
      return r;
    }
    if (header("if-none-match") == "*" && objects.count(key) != 0) {
      r.status = 412;
      r.body = ErrorXml("PreconditionFailed");
      return r;
    }
    Object& o = objects[key];
    o.data = body;
    o.etag = "\"e" + std::to_string(++etag_seq_) + "\"";
    o.mtime_ms = static_cast<int64_t>(std::time(nullptr)) * 1000;
    r.headers.emplace_back("ETag", o.etag);
    return r;
  }
  if (method == "DELETE") {
    objects.erase(key);
    r.status = 204;
    r.truncate = false;
    return r;
  }
  auto it = objects.find(key);
  if (it == objects.end()) return not_found();
  const Object& o = it->second;
  r.headers.emplace_back("ETag", o.etag);
  r.headers.emplace_back("Last-Modified", HttpDate(o.mtime_ms));
  if (method == "HEAD") {
    r.head = true;
    r.head_length = static_cast<int64_t>(o.data.size());
    return r;
  }
  if (std::string m = header("if-match"); !m.empty() && m != o.etag) {
    r.status = 412;
    r.body = ErrorXml("PreconditionFailed");
    return r;
  }
  std::string range = header("range");
  if (range.starts_with("bytes=")) {
    int64_t size = static_cast<int64_t>(o.data.size());
    size_t dash = range.find('-');
    int64_t from = std::strtoll(range.c_str() + 6, nullptr, 10);
    int64_t to = std::strtoll(range.c_str() + dash + 1, nullptr, 10);
    if (from >= size) {
      r.status = 416;
      r.body = ErrorXml("InvalidRange");
      return r;
    }
    to = std::min(to, size - 1);
    r.status = 206;
    r.headers.emplace_back("Content-Range", "bytes " + std::to_string(from) + "-" +
                                                std::to_string(to) + "/" + std::to_string(size));
    r.body = o.data.substr(static_cast<size_t>(from), static_cast<size_t>(to - from + 1));
    return r;
  }
  r.body = o.data;
  return r;
}

FakeS3Server::Response FakeS3Server::ListV2(const std::string& bucket,
                                            const std::map<std::string, std::string>& q) {
  auto get = [&](const char* name) -> std::string {
    auto it = q.find(name);
    return it == q.end() ? "" : it->second;
  };
  std::string prefix = get("prefix");
  std::string delimiter = get("delimiter");
  int max_keys = q.count("max-keys") ? std::atoi(get("max-keys").c_str()) : 1000;
  std::string after = get("start-after");
  // The continuation token is opaque to clients: here the hex of the last name returned.
  if (std::string token = get("continuation-token"); !token.empty()) {
    after.clear();
    for (size_t i = 0; i + 1 < token.size(); i += 2) {
      after.push_back(static_cast<char>(std::strtol(token.substr(i, 2).c_str(), nullptr, 16)));
    }
  }
  const auto& objects = buckets_[bucket];
  std::string contents, prefixes, last;
  int n = 0;
  bool truncated = false;
  for (auto it = objects.upper_bound(after); it != objects.end(); ++it) {
    const std::string& k = it->first;
    if (!k.starts_with(prefix)) continue;
    std::string entry = k;
    bool is_prefix = false;
    if (!delimiter.empty()) {
      size_t d = k.find(delimiter, prefix.size());
      if (d != std::string::npos) {
        entry = k.substr(0, d + delimiter.size());
        is_prefix = true;
        if (entry == last) continue;  // the same common prefix
        if (entry <= after) continue;
      }
    }
    if (n == max_keys) {
      truncated = true;
      break;
    }
    ++n;
    if (is_prefix) {
      prefixes +=
          "<CommonPrefixes><Prefix>" + cloud::XmlEscape(entry) + "</Prefix></CommonPrefixes>";
    } else {
      contents += "<Contents><Key>" + cloud::XmlEscape(k) + "</Key><LastModified>" +
                  cloud::FormatIso8601Millis(it->second.mtime_ms) + "</LastModified><ETag>" +
                  cloud::XmlEscape(it->second.etag) + "</ETag><Size>" +
                  std::to_string(it->second.data.size()) +
                  "</Size><StorageClass>STANDARD</StorageClass></Contents>";
    }
    last = entry;
  }
  Response r;
  r.headers.emplace_back("Content-Type", "application/xml");
  r.body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult><Name>" + bucket +
           "</Name><Prefix>" + cloud::XmlEscape(prefix) + "</Prefix><KeyCount>" +
           std::to_string(n) + "</KeyCount><MaxKeys>" + std::to_string(max_keys) +
           "</MaxKeys><IsTruncated>" + (truncated ? "true" : "false") + "</IsTruncated>" +
           contents + prefixes;
  if (truncated) {
    // A common prefix continues after every name below it.
    std::string resume = last;
    if (!delimiter.empty() && resume.ends_with(delimiter)) resume += "\xff";
    r.body += "<NextContinuationToken>" + cloud::Hex(resume) + "</NextContinuationToken>";
  }
  r.body += "</ListBucketResult>";
  return r;
}

FakeS3Server::Response FakeS3Server::DeleteObjects(const std::string& bucket,
                                                   const std::string& body) {
  auto& objects = buckets_[bucket];
  std::string errors;
  bool quiet = body.find("<Quiet>true</Quiet>") != std::string::npos;
  std::string deleted;
  (void)cloud::ForEachElement(body, "Object", [&](std::string_view el) -> Status {
    auto key = cloud::XmlText(el, "Key");
    if (!key) return Status::OK();
    if (auto f = batch_failures_.find(*key); f != batch_failures_.end()) {
      errors += "<Error><Key>" + cloud::XmlEscape(*key) + "</Key><Code>" + f->second +
                "</Code><Message>fake</Message></Error>";
      batch_failures_.erase(f);
      return Status::OK();
    }
    objects.erase(*key);
    if (!quiet) deleted += "<Deleted><Key>" + cloud::XmlEscape(*key) + "</Key></Deleted>";
    return Status::OK();
  });
  Response r;
  r.headers.emplace_back("Content-Type", "application/xml");
  r.body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><DeleteResult>" + deleted + errors +
           "</DeleteResult>";
  return r;
}

}  // namespace silt
