// HttpClient: the HTTP layer of the cloud object stores (io/azure_blob_store.h), on libcurl.
//
// - Connections are reused: the process keeps a pool of curl easy handles (each keeps its
//   connections alive), taken by one request at a time, so many threads and every store (the
//   engine opens one per statement) share the connections.
// - Timeouts: a connect timeout, a whole-request timeout and a stall timeout (no byte moved for
//   that long) per attempt.
// - Retries (SendWithRetries): on a transport failure (timeout, refused or dropped connection,
//   truncated response) and on HTTP 408/429/500/502/503/504, up to `max_retries` more attempts
//   with exponential backoff and full jitter, bounded by `max_backoff_ms`. The request is built
//   anew for every attempt (a signature carries a date).
// - Requests are counted per kind (list/head/get/put/delete) and retries are counted, per client.
// - Secrets: nothing here logs, and the errors this layer builds never carry a URL, a header or a
//   body; callers name the object, not the request.
//
// Test support: a FaultHook sees every attempt and can answer it with a synthetic status, fail it
// as a timeout or a dropped connection, or drop the response after the server handled the
// request (the ambiguous case a conditional create must survive).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error_classes.h"
#include "common/status.h"

namespace silt {

inline constexpr auto& kErrorCloudStorage = errc::kSiltCloudStorageError;
inline constexpr auto& kErrorCloudAuth = errc::kSiltCloudStorageAuthFailed;

enum class RequestKind : uint8_t { kList = 0, kHead, kGet, kPut, kDelete, kCount };
const char* RequestKindName(RequestKind kind);

struct HttpRequest {
  std::string method;  // GET, HEAD, PUT, DELETE, POST
  std::string url;     // may carry a SAS token: never put it in a message
  std::vector<std::pair<std::string, std::string>> headers;
  std::string_view body;
  // Ranged GETs: the body goes straight into this buffer (at most `out_capacity` bytes) instead
  // of HttpResponse::body. Null: into the response.
  uint8_t* out = nullptr;
  int64_t out_capacity = 0;
};

struct HttpResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // names in lower case
  std::string body;
  int64_t out_bytes = 0;  // bytes written to HttpRequest::out
  // The value of header `name` (lower case), or "" when absent.
  std::string_view Header(std::string_view name) const;
};

// How one attempt ended, for the retry decision.
enum class TransportError : uint8_t { kNone, kTimeout, kConnect, kDropped, kOther };

struct HttpOptions {
  int64_t connect_timeout_ms = 10000;
  int64_t request_timeout_ms = 300000;  // one attempt, whole request
  int64_t stall_timeout_ms = 60000;     // no progress for this long: timeout
  int max_retries = 8;
  int64_t min_backoff_ms = 100;
  int64_t max_backoff_ms = 10000;
  // Sleeps between attempts (tests pass a recorder).
  std::function<void(int64_t ms)> sleep;
};

// A test hook on every attempt. Before the request: return kPass to send it, kStatus to answer
// with `status` without sending, kTimeout/kDropped to fail it without sending. kDropAfter sends
// the request and then reports a dropped connection (the server did the work, the client does not
// know).
struct FaultDecision {
  enum Action : uint8_t { kPass, kStatus, kTimeout, kDropped, kDropAfter } action = kPass;
  int status = 0;
};
using FaultHook = std::function<FaultDecision(const HttpRequest& request, RequestKind kind)>;

// A hook every client without its own consults (tests of whole statements on a cloud store:
// the stores the engine opens are out of the test's reach). Empty: none.
void SetGlobalFaultHookForTesting(FaultHook hook);

struct RequestCounts {
  int64_t by_kind[static_cast<int>(RequestKind::kCount)] = {};
  int64_t retries = 0;
  int64_t list() const { return by_kind[static_cast<int>(RequestKind::kList)]; }
  int64_t head() const { return by_kind[static_cast<int>(RequestKind::kHead)]; }
  int64_t get() const { return by_kind[static_cast<int>(RequestKind::kGet)]; }
  int64_t put() const { return by_kind[static_cast<int>(RequestKind::kPut)]; }
  int64_t del() const { return by_kind[static_cast<int>(RequestKind::kDelete)]; }
  int64_t total() const;
  // "list=N head=N get=N put=N delete=N retries=N"
  std::string ToString() const;
};

// Requests of every client in the process (benchmarks report them per operation).
RequestCounts GlobalRequestCounts();

class HttpClient {
 public:
  explicit HttpClient(HttpOptions options = {});
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // One attempt. A transport failure is an IoError (class kErrorCloudStorage) with `*error` set;
  // any HTTP status is OK (the caller judges it). Counts the request.
  Result<HttpResponse> Send(const HttpRequest& request, RequestKind kind, TransportError* error);

  // Attempts `build()` until a response that is not retryable or the retries run out. Returns
  // the last response (a retryable status after the last retry included), or the last transport
  // error as IoError naming `what` (e.g. "GET az://c/key"). `*ambiguous` (optional) becomes true
  // when an earlier attempt may have reached the server (a timeout, a dropped connection or a
  // 5xx after sending): a conditional create then must check what it finds.
  Result<HttpResponse> SendWithRetries(const std::function<Result<HttpRequest>()>& build,
                                       RequestKind kind, const std::string& what,
                                       bool* ambiguous = nullptr);

  static bool RetryableStatus(int status);

  void set_fault_hook(FaultHook hook);
  RequestCounts counts() const;
  void ResetCounts();
  const HttpOptions& options() const { return options_; }

 private:
  int64_t Backoff(int attempt);

  HttpOptions options_;
  std::mutex mu_;
  FaultHook fault_hook_;
  std::atomic<int64_t> counts_[static_cast<int>(RequestKind::kCount)] = {};
  std::atomic<int64_t> retries_{0};
};

// Percent-encodes `s` for a URL path (RFC 3986 unreserved characters and, with keep_slash, '/'
// stay as they are) or a query value (keep_slash = false).
std::string UrlEncode(std::string_view s, bool keep_slash);
// Decodes %XX escapes (and '+' stays '+'). Malformed escapes stay as they are.
std::string UrlDecode(std::string_view s);

// Base64 (standard alphabet, padded) and HMAC-SHA256, on OpenSSL.
std::string Base64Encode(std::string_view data);
Result<std::string> Base64Decode(std::string_view text);
std::string HmacSha256(std::string_view key, std::string_view data);

// An HTTP date (RFC 1123, "Sun, 06 Nov 1994 08:49:37 GMT") for `millis` since the epoch, and back
// (-1 when unparsable).
std::string HttpDate(int64_t millis);
int64_t ParseHttpDate(const std::string& text);

}  // namespace silt
