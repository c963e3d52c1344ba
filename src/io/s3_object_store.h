// S3ObjectStore: the ObjectStore on the Amazon S3 REST API (contracts in io/object_store.h), for
// AWS S3 and S3-compatible endpoints (MinIO, emulators such as s3rver). See
// docs/cloud-storage.md for the URL forms, configuration names, credentials and the emulator's
// gaps.
//
// Mapping of the contracts:
// - Head/Get: HeadObject / GetObject. OpenRead reads the first `prefetch_bytes` with one ranged
//   GetObject that also returns the size and ETag; a small object is held whole, a larger one is
//   read with ranged GetObject + If-Match on the ETag (a replaced object: IoError).
// - Put: one PutObject (atomic) up to `multipart_threshold`, multipart upload above it; OpenWrite
//   buffers `part_size` bytes: one PutObject at Close when it all fits, else a multipart upload
//   (nothing visible until CompleteMultipartUpload; an abandoned writer aborts its upload).
// - PutIfAbsent (the commit): PutObject with If-None-Match: * ; 412 -> AlreadyExists, 409
//   (a concurrent conditional write in flight) is retried. Whether the endpoint honours the
//   condition is probed once per process and bucket (a probe object written twice with the
//   condition must meet 412); an endpoint that ignores it or answers 501/NotImplemented fails
//   the commit with a clear NOT_IMPLEMENTED error, never a silent overwrite. With
//   fs.s3a.conditional.put = single-process (Delta's S3SingleDriverLogStore contract: one
//   process writes the table) creates are serialised in this process and checked with
//   HeadObject instead. A retried create whose first outcome is unknown reads the object back:
//   our own bytes mean our create won.
// - Listing: ListObjectsV2 with prefix, delimiter '/' (ListFrom, ListDirs) or flat
//   (ListRecursive, with the directories implied by names), following continuation tokens;
//   ListFrom starts after the key's parent-most prefix (start-after).
// - Delete: DeleteObject (S3 answers 204 for a missing key); DeleteKeys (VACUUM) sends
//   DeleteObjects of up to 1000 keys; keys it reports as failed with a retryable code, and a
//   batch that fails as a whole, are deleted one by one with retries. No directories:
//   DeleteEmptyDirs removes none, DeleteDir is OK when nothing lies below the directory.
// Transient failures (429, 500, 503 SlowDown, timeouts, dropped connections) are retried by the
// HttpClient (io/http_client.h) with backoff and jitter.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/error_classes.h"
#include "io/http_client.h"
#include "io/object_store.h"

namespace silt {

// A location on S3: s3://bucket/path or s3a://bucket/path.
struct S3Location {
  std::string bucket;
  std::string path;       // key prefix below the bucket: no leading or trailing '/'
  std::string canonical;  // the location in the engine's form: no trailing '/'
};

bool IsS3Location(std::string_view location);
Result<S3Location> ParseS3Location(std::string_view location);

struct S3Credentials {
  std::string access_key;  // empty: anonymous (unsigned requests)
  std::string secret_key;
  std::string session_token;
};

// ---- Signature Version 4 (AWS General Reference, "Create a signed AWS API request") ----------

struct SigV4Request {
  std::string method;
  std::string canonical_uri;  // the path as sent, percent-encoded ("/bucket/a%20b")
  std::vector<std::pair<std::string, std::string>> query;    // decoded names and values
  std::vector<std::pair<std::string, std::string>> headers;  // every signed header, host too
  std::string payload_hash;                                  // hex SHA-256 of the body
};
// The canonical request, the string to sign and the Authorization header value of `request`
// signed at `amz_date` ("20150830T123600Z") for `region` and `service`.
std::string SigV4CanonicalRequest(const SigV4Request& request);
std::string SigV4StringToSign(const SigV4Request& request, const std::string& amz_date,
                              const std::string& region, const std::string& service);
std::string SigV4Authorization(const SigV4Request& request, const S3Credentials& credentials,
                               const std::string& amz_date, const std::string& region,
                               const std::string& service);

// ---- Configuration -------------------------------------------------------------------------

struct S3StoreOptions {
  HttpOptions http;
  std::string endpoint;  // scheme://host[:port], e.g. "https://s3.us-east-1.amazonaws.com"
  std::string region = "us-east-1";
  bool path_style = false;  // https://endpoint/bucket/key instead of https://bucket.endpoint/key
  S3Credentials credentials;
  int64_t part_size = 8 << 20;             // OpenWrite's buffer and multipart part size
  int64_t multipart_threshold = 64 << 20;  // Put uses one PutObject up to this size
  int64_t prefetch_bytes = 256 << 10;      // OpenRead's first ranged read
  int list_page_size = 1000;               // ListObjectsV2 max-keys
  int delete_batch_size = 1000;            // DeleteObjects keys per request (S3's maximum)
  // How PutIfAbsent is made exclusive: the endpoint's conditional writes (probed), or a lock in
  // this process (only one process writes).
  enum class CreateMode { kConditional, kSingleProcess } create_mode = CreateMode::kConditional;
};

// Resolves endpoint, region, credentials and HTTP settings of `location` from the storage
// configuration (fs.s3a.*, per bucket fs.s3a.bucket.<b>.*), the AWS environment variables and
// the AWS profile files (names in docs/cloud-storage.md).
Result<S3StoreOptions> S3OptionsFromConfig(const S3Location& location);

class S3ObjectStore final : public ObjectStore, public std::enable_shared_from_this<S3ObjectStore> {
 public:
  S3ObjectStore(S3Location location, S3StoreOptions options);
  // The store at `location`, configured from the storage configuration.
  static Result<std::shared_ptr<S3ObjectStore>> Open(std::string_view location);

  const std::string& root() const override { return root_; }

  Result<std::vector<ObjectMeta>> ListFrom(const std::string& key) override;
  Status ListRecursive(const std::string& dir, const ObjectVisitor& visit) override;
  Result<ObjectMeta> Head(const std::string& key) override;
  Result<std::string> Get(const std::string& key) override;
  Result<std::shared_ptr<RandomAccessFile>> OpenRead(const std::string& key) override;
  Status Put(const std::string& key, std::string_view data) override;
  Status PutIfAbsent(const std::string& key, std::string_view data) override;
  Result<std::unique_ptr<WritableFile>> OpenWrite(const std::string& key) override;
  Status Delete(const std::string& key) override;
  // DeleteObjects: up to 1000 keys per request.
  void DeleteKeys(std::span<const std::string_view> keys, std::span<Status> statuses) override;
  Result<int64_t> DeleteEmptyDirs(const std::string& dir) override;
  Status DeleteDir(const std::string& dir) override;
  Result<std::vector<std::string>> ListDirs(const std::string& dir) override;
  Result<bool> DirExists(const std::string& dir) override;

  // Creates the bucket (CreateBucket); OK when this account owns it already. Tests use it.
  Status CreateBucket();

  HttpClient& http() { return *http_; }
  RequestCounts counts() const { return http_->counts(); }
  const S3Location& location() const { return location_; }
  const S3StoreOptions& options() const { return options_; }
  // Forgets the process-wide result of the conditional-write probe (tests).
  static void ForgetConditionalWriteProbesForTesting();

  // Internal, for the read and write handles.
  Result<HttpResponse> Call(const std::string& method, const std::string& object_key,
                            std::vector<std::pair<std::string, std::string>> query,
                            std::vector<std::pair<std::string, std::string>> headers,
                            std::string_view body, RequestKind kind, const std::string& what,
                            bool* ambiguous = nullptr, uint8_t* out = nullptr,
                            int64_t out_capacity = 0);
  Status ErrorFor(const HttpResponse& r, const std::string& what, const std::string& key) const;
  std::string ObjectKey(const std::string& key) const { return prefix_ + key; }
  std::string Describe(const std::string& key) const { return root_ + key; }
  Status WriteObject(const std::string& key, std::string_view data);
  Result<std::string> StartMultipart(const std::string& key);
  Result<std::string> UploadPart(const std::string& key, const std::string& upload_id, int number,
                                 std::string_view data);
  Status CompleteMultipart(const std::string& key, const std::string& upload_id,
                           const std::vector<std::string>& etags);
  void AbortMultipart(const std::string& key, const std::string& upload_id);

 private:
  struct Page {
    std::vector<ObjectMeta> objects;    // keys relative to the store
    std::vector<std::string> prefixes;  // relative, with trailing '/'
    std::string next_token;
  };
  Result<Page> ListPage(const std::string& prefix, bool delimited, const std::string& token,
                        const std::string& start_after, int max_keys);
  Result<HttpRequest> Sign(const std::string& method, const std::string& object_key,
                           const std::vector<std::pair<std::string, std::string>>& query,
                           std::vector<std::pair<std::string, std::string>> headers,
                           std::string_view body) const;
  Status DeleteBatch(std::span<const std::string_view> keys, std::span<const size_t> index,
                     std::span<Status> statuses);
  // The conditional create; `probe`: the probe's own writes (no support check).
  Status ConditionalCreate(const std::string& key, std::string_view data);
  // Whether the endpoint honours If-None-Match: * on PutObject (probed once per process and
  // endpoint/bucket).
  Result<bool> ConditionalWritesSupported();

  S3Location location_;
  S3StoreOptions options_;
  std::string root_;
  std::string prefix_;     // location_.path + "/" or ""
  std::string scheme_;     // "https" or "http"
  std::string host_;       // the Host of requests: bucket.endpoint-host or endpoint-host
  std::string base_url_;   // scheme://host (path style: scheme://host/bucket)
  std::string base_path_;  // "" or "/bucket" (path style)
  std::unique_ptr<HttpClient> http_;
};

}  // namespace silt
