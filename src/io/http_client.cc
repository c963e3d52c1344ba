#include "io/http_client.h"

#include <curl/curl.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <thread>

namespace silt {

namespace {

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Sink {
  HttpResponse* response;
  uint8_t* out;
  int64_t capacity;
  bool overflow = false;
};

size_t WriteBody(char* data, size_t size, size_t n, void* user) {
  auto* sink = static_cast<Sink*>(user);
  size_t bytes = size * n;
  if (sink->out != nullptr && sink->response->status >= 200 && sink->response->status < 300) {
    int64_t room = sink->capacity - sink->response->out_bytes;
    if (static_cast<int64_t>(bytes) > room) {
      sink->overflow = true;
      return 0;  // aborts the transfer
    }
    std::memcpy(sink->out + sink->response->out_bytes, data, bytes);
    sink->response->out_bytes += static_cast<int64_t>(bytes);
  } else {
    sink->response->body.append(data, bytes);
  }
  return bytes;
}

size_t WriteHeader(char* data, size_t size, size_t n, void* user) {
  auto* sink = static_cast<Sink*>(user);
  size_t bytes = size * n;
  std::string_view line(data, bytes);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (line.starts_with("HTTP/")) {
    // A new response (after 100 Continue or a redirect): forget earlier headers.
    sink->response->headers.clear();
    size_t sp = line.find(' ');
    if (sp != std::string_view::npos)
      sink->response->status = std::atoi(std::string(line.substr(sp + 1, 3)).c_str());
    return bytes;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return bytes;
  std::string name(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  sink->response->headers.emplace_back(std::move(name), std::string(value));
  return bytes;
}

struct Upload {
  std::string_view body;
  size_t pos = 0;
};

size_t ReadBody(char* buffer, size_t size, size_t n, void* user) {
  auto* up = static_cast<Upload*>(user);
  size_t take = std::min(size * n, up->body.size() - up->pos);
  std::memcpy(buffer, up->body.data() + up->pos, take);
  up->pos += take;
  return take;
}

int SeekBody(void* user, curl_off_t offset, int origin) {
  auto* up = static_cast<Upload*>(user);
  if (origin != SEEK_SET || offset < 0 || static_cast<size_t>(offset) > up->body.size()) {
    return CURL_SEEKFUNC_FAIL;
  }
  up->pos = static_cast<size_t>(offset);
  return CURL_SEEKFUNC_OK;
}

TransportError Classify(CURLcode code) {
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
      return TransportError::kTimeout;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return TransportError::kConnect;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
      return TransportError::kDropped;
    default:
      return TransportError::kOther;
  }
}

const char* TransportErrorText(TransportError e) {
  switch (e) {
    case TransportError::kTimeout:
      return "timed out";
    case TransportError::kConnect:
      return "could not connect";
    case TransportError::kDropped:
      return "connection dropped";
    default:
      return "transport error";
  }
}

// The process's idle curl handles (bounded; the rest are cleaned up).
struct HandlePool {
  std::mutex mu;
  std::vector<CURL*> idle;
};
HandlePool& Pool() {
  static HandlePool* pool = new HandlePool();  // never destroyed: used at exit too
  return *pool;
}
constexpr size_t kMaxIdleHandles = 64;

CURL* AcquireHandle() {
  HandlePool& p = Pool();
  {
    std::lock_guard<std::mutex> lock(p.mu);
    if (!p.idle.empty()) {
      CURL* h = p.idle.back();
      p.idle.pop_back();
      return h;
    }
  }
  return curl_easy_init();
}

void ReleaseHandle(CURL* handle) {
  HandlePool& p = Pool();
  {
    std::lock_guard<std::mutex> lock(p.mu);
    if (p.idle.size() < kMaxIdleHandles) {
      p.idle.push_back(handle);
      return;
    }
  }
  curl_easy_cleanup(handle);
}

std::atomic<int64_t> g_counts[static_cast<int>(RequestKind::kCount)];
std::atomic<int64_t> g_retries{0};

std::mutex& GlobalHookMutex() {
  static std::mutex* mu = new std::mutex();
  return *mu;
}

FaultHook& GlobalHook() {
  static FaultHook* hook = new FaultHook();
  return *hook;
}

}  // namespace

namespace {

// SILT_STORAGE_STATS=1: the process's cloud requests on stderr at exit (bench/cloud.sh reads
// them). Counts only; no names, no URLs.
void PrintStatsAtExit() {
  std::fprintf(stderr, "storage requests: %s\n", GlobalRequestCounts().ToString().c_str());
}

[[maybe_unused]] const bool kStatsRegistered = [] {
  const char* v = std::getenv("SILT_STORAGE_STATS");
  if (v != nullptr && std::string_view(v) == "1") std::atexit(PrintStatsAtExit);
  return true;
}();

}  // namespace

void SetGlobalFaultHookForTesting(FaultHook hook) {
  std::lock_guard<std::mutex> lock(GlobalHookMutex());
  GlobalHook() = std::move(hook);
}

const char* RequestKindName(RequestKind kind) {
  switch (kind) {
    case RequestKind::kList:
      return "list";
    case RequestKind::kHead:
      return "head";
    case RequestKind::kGet:
      return "get";
    case RequestKind::kPut:
      return "put";
    case RequestKind::kDelete:
      return "delete";
    default:
      return "?";
  }
}

std::string_view HttpResponse::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (k == name) return v;
  }
  return {};
}

int64_t RequestCounts::total() const {
  int64_t t = 0;
  for (int64_t n : by_kind) t += n;
  return t;
}

std::string RequestCounts::ToString() const {
  return "list=" + std::to_string(list()) + " head=" + std::to_string(head()) +
         " get=" + std::to_string(get()) + " put=" + std::to_string(put()) +
         " delete=" + std::to_string(del()) + " retries=" + std::to_string(retries);
}

HttpClient::HttpClient(HttpOptions options) : options_(std::move(options)) { GlobalInit(); }

HttpClient::~HttpClient() = default;

RequestCounts GlobalRequestCounts() {
  RequestCounts c;
  for (int i = 0; i < static_cast<int>(RequestKind::kCount); ++i) c.by_kind[i] = g_counts[i].load();
  c.retries = g_retries.load();
  return c;
}

void HttpClient::set_fault_hook(FaultHook hook) {
  std::lock_guard<std::mutex> lock(mu_);
  fault_hook_ = std::move(hook);
}

RequestCounts HttpClient::counts() const {
  RequestCounts c;
  for (int i = 0; i < static_cast<int>(RequestKind::kCount); ++i) c.by_kind[i] = counts_[i].load();
  c.retries = retries_.load();
  return c;
}

void HttpClient::ResetCounts() {
  for (auto& c : counts_) c.store(0);
  retries_.store(0);
}

bool HttpClient::RetryableStatus(int status) {
  return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 ||
         status == 504;
}

Result<HttpResponse> HttpClient::Send(const HttpRequest& request, RequestKind kind,
                                      TransportError* error) {
  *error = TransportError::kNone;
  counts_[static_cast<int>(kind)].fetch_add(1, std::memory_order_relaxed);
  g_counts[static_cast<int>(kind)].fetch_add(1, std::memory_order_relaxed);
  FaultHook hook;
  {
    std::lock_guard<std::mutex> lock(mu_);
    hook = fault_hook_;
  }
  if (!hook) {
    std::lock_guard<std::mutex> lock(GlobalHookMutex());
    hook = GlobalHook();
  }
  FaultDecision fault;
  if (hook) fault = hook(request, kind);
  if (fault.action == FaultDecision::kStatus) {
    HttpResponse r;
    r.status = fault.status;
    r.body = "<?xml version=\"1.0\"?><Error><Code>InjectedFault</Code></Error>";
    return r;
  }
  if (fault.action == FaultDecision::kTimeout || fault.action == FaultDecision::kDropped) {
    *error = fault.action == FaultDecision::kTimeout ? TransportError::kTimeout
                                                     : TransportError::kDropped;
    return Status::IoError(std::string("injected fault: ") + TransportErrorText(*error),
                           kErrorCloudStorage);
  }

  CURL* curl = AcquireHandle();
  if (curl == nullptr) return Status::IoError("curl_easy_init failed", kErrorCloudStorage);
  curl_easy_reset(curl);  // keeps the connection cache
  HttpResponse response;
  Sink sink{&response, request.out, request.out_capacity};
  Upload upload{request.body};
  curl_slist* headers = nullptr;
  for (const auto& [k, v] : request.headers)
    headers = curl_slist_append(headers, (k + ": " + v).c_str());
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, WriteBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, WriteHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &sink);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout_ms));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.request_timeout_ms));
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME,
                   std::max(1L, static_cast<long>(options_.stall_timeout_ms / 1000)));
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
  if (request.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (request.method == "GET") {
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  } else if (request.method == "PUT" || request.method == "POST") {
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, ReadBody);
    curl_easy_setopt(curl, CURLOPT_READDATA, &upload);
    curl_easy_setopt(curl, CURLOPT_SEEKFUNCTION, SeekBody);
    curl_easy_setopt(curl, CURLOPT_SEEKDATA, &upload);
    curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    if (request.method == "POST") curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "POST");
  } else {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  CURLcode code = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  if (code != CURLE_OK && sink.overflow) {
    ReleaseHandle(curl);
    return Status::IoError(
        "response larger than the " + std::to_string(request.out_capacity) + " bytes requested",
        kErrorCloudStorage);
  }
  if (code == CURLE_OK) {
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    response.status = static_cast<int>(status);
  }
  ReleaseHandle(curl);
  if (code != CURLE_OK) {
    *error = Classify(code);
    return Status::IoError(
        std::string(TransportErrorText(*error)) + " (" + curl_easy_strerror(code) + ")",
        kErrorCloudStorage);
  }
  if (fault.action == FaultDecision::kDropAfter) {
    *error = TransportError::kDropped;
    return Status::IoError("injected fault: connection dropped after the request",
                           kErrorCloudStorage);
  }
  return response;
}

int64_t HttpClient::Backoff(int attempt) {
  thread_local std::mt19937_64 rng(std::random_device{}());
  int64_t cap = options_.min_backoff_ms;
  for (int i = 0; i < attempt && cap < options_.max_backoff_ms; ++i) cap *= 2;
  cap = std::min(cap, options_.max_backoff_ms);
  std::uniform_int_distribution<int64_t> dist(0, std::max<int64_t>(cap, 0));
  return std::min(options_.max_backoff_ms, options_.min_backoff_ms / 2 + dist(rng));
}

Result<HttpResponse> HttpClient::SendWithRetries(const std::function<Result<HttpRequest>()>& build,
                                                 RequestKind kind, const std::string& what,
                                                 bool* ambiguous) {
  if (ambiguous != nullptr) *ambiguous = false;
  Status last;
  for (int attempt = 0;; ++attempt) {
    if (attempt > 0) {
      retries_.fetch_add(1, std::memory_order_relaxed);
      g_retries.fetch_add(1, std::memory_order_relaxed);
      int64_t ms = Backoff(attempt - 1);
      if (options_.sleep) {
        options_.sleep(ms);
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      }
    }
    SILT_ASSIGN_OR_RETURN(HttpRequest request, build());
    TransportError error;
    Result<HttpResponse> r = Send(request, kind, &error);
    bool last_attempt = attempt >= options_.max_retries;
    if (r.ok()) {
      if (!RetryableStatus(r->status) || last_attempt) return r;
      // A 5xx may come after the server acted; 429 and 503 (throttled) did nothing.
      if (ambiguous != nullptr && r->status != 429 && r->status != 503) *ambiguous = true;
      continue;
    }
    if (error == TransportError::kOther) {
      return Status::IoError(what + ": " + std::string(r.status().message()), kErrorCloudStorage);
    }
    if (ambiguous != nullptr && error != TransportError::kConnect) *ambiguous = true;
    last = r.status();
    if (last_attempt) {
      return Status::IoError(what + " failed after " + std::to_string(attempt + 1) +
                                 " attempts: " + std::string(last.message()),
                             kErrorCloudStorage);
    }
  }
}

std::string UrlEncode(std::string_view s, bool keep_slash) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size() * 3 / 2);
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
        (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

std::string UrlDecode(std::string_view s) {
  auto val = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && val(s[i + 1]) >= 0 && val(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(val(s[i + 1]) * 16 + val(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

std::string Base64Encode(std::string_view data) {
  std::string out(4 * ((data.size() + 2) / 3), '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(data.data()),
                          static_cast<int>(data.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  std::string in;
  for (char c : text) {
    if (c != '\n' && c != '\r' && c != ' ') in.push_back(c);
  }
  if (in.size() % 4 != 0) return Status::InvalidArgument("not base64 (length)");
  std::string out(in.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(in.data()),
                          static_cast<int>(in.size()));
  if (n < 0) return Status::InvalidArgument("not base64");
  size_t pad = 0;
  if (!in.empty() && in.back() == '=') ++pad;
  if (in.size() >= 2 && in[in.size() - 2] == '=') ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest, &len);
  return std::string(reinterpret_cast<char*>(digest), len);
}

std::string HttpDate(int64_t millis) {
  time_t t = static_cast<time_t>(millis / 1000);
  struct tm tm;
  gmtime_r(&t, &tm);
  char buf[64];
  strftime(buf, sizeof(buf), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

int64_t ParseHttpDate(const std::string& text) {
  time_t t = curl_getdate(text.c_str(), nullptr);
  return t < 0 ? -1 : static_cast<int64_t>(t) * 1000;
}

}  // namespace silt
