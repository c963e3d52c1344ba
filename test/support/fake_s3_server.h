// FakeS3Server: test support (not in the production library). A small S3 endpoint on 127.0.0.1
// with a kernel-chosen port, in memory, on plain sockets, speaking enough of the S3 REST API
// (path-style addressing) for the S3 store's tests without Node: PutObject (If-None-Match: *),
// GetObject (Range, If-Match), HeadObject, DeleteObject, CreateBucket, ListObjectsV2 with real
// paging (prefix, delimiter, max-keys, continuation-token, start-after) and DeleteObjects. What
// emulators cannot do it does on demand: 503 SlowDown, bodies cut short, and a bucket that lives
// in another region (301 PermanentRedirect with x-amz-bucket-region to a request signed for the
// wrong region). Signatures are not checked (the SigV4 tests check them); the region of a signed
// request's credential scope is.
//
// One connection at a time, each answered with "Connection: close".
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace silt {

class FakeS3Server {
 public:
  FakeS3Server();
  ~FakeS3Server();
  FakeS3Server(const FakeS3Server&) = delete;
  FakeS3Server& operator=(const FakeS3Server&) = delete;

  // "http://127.0.0.1:PORT".
  std::string endpoint() const;

  // What a scripted fault does to the request it meets.
  enum class FaultKind {
    kSlowDown,  // 503 SlowDown
    kTruncate,  // the right status and Content-Length, then half the body and a closed socket
    kInternal,  // 500 InternalError
  };
  // The next `count` requests whose method is `method` ("" for any) and whose query contains
  // `query_has` ("" for any) meet `kind`.
  void Inject(FaultKind kind, int count, const std::string& method = "",
              const std::string& query_has = "");
  // Requests to `bucket` signed for another region than `region` get 301 PermanentRedirect with
  // x-amz-bucket-region (and 400 AuthorizationHeaderMalformed with `as_400`, as S3 answers some).
  void SetBucketRegion(const std::string& bucket, const std::string& region, bool as_400 = false);
  // DeleteObjects reports these keys (full names) as failed with `code` once each.
  void FailInBatchOnce(const std::set<std::string>& keys, const std::string& code);

  struct Request {
    std::string method;
    std::string path;                            // decoded, "/bucket/key"
    std::string query;                           // raw
    std::string region;                          // of the credential scope, "" when unsigned
    std::map<std::string, std::string> headers;  // names in lower case
  };
  // A handler consulted before the S3 API (other services on the same port: STS, container
  // credentials, instance metadata): true when it answered (status and body set).
  using Handler = std::function<bool(const Request& request, const std::string& body, int* status,
                                     std::string* response)>;
  void SetHandler(Handler handler);

  std::vector<Request> requests() const;
  void ClearRequests();
  // The objects of `bucket` (full names -> bytes).
  std::map<std::string, std::string> objects(const std::string& bucket) const;
  void PutObject(const std::string& bucket, const std::string& key, const std::string& data);

 private:
  struct Object {
    std::string data;
    std::string etag;
    int64_t mtime_ms = 0;
  };
  struct Fault {
    FaultKind kind;
    int count;
    std::string method;
    std::string query_has;
  };
  struct Response {
    int status = 200;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    bool truncate = false;
    bool head = false;  // HEAD: Content-Length of the object, no body
    int64_t head_length = 0;
  };
  void Serve();
  void HandleConnection(int fd);
  Response Handle(const std::string& method, const std::string& target,
                  const std::map<std::string, std::string>& headers, const std::string& body);
  Response ListV2(const std::string& bucket, const std::map<std::string, std::string>& q);
  Response DeleteObjects(const std::string& bucket, const std::string& body);

  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mu_;
  std::map<std::string, std::map<std::string, Object>> buckets_;
  std::map<std::string, std::pair<std::string, bool>> bucket_region_;
  std::deque<Fault> faults_;
  std::map<std::string, std::string> batch_failures_;
  std::vector<Request> requests_;
  Handler handler_;
  int64_t etag_seq_ = 0;
};

}  // namespace silt
