// S3ObjectStore: the ObjectStore on the Amazon S3 REST API (contracts in io/object_store.h), for
// AWS S3 and S3-compatible endpoints (MinIO, emulators such as s3rver). See
// docs/cloud-storage.md for the URL forms, configuration names, credentials and the emulator's
// gaps.
//
// The requests, retries, reads, writes, listing loops and deletes are HttpObjectStore's
// (io/http_object_store.h); this class holds what is S3's own:
// - Addressing (virtual-hosted or path style) and SigV4 signing.
// - Put above `multipart_threshold` and OpenWrite above `part_size`: a multipart upload
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
// - Listing: ListObjectsV2 with prefix, delimiter '/' or flat, continuation tokens; ListFrom
//   starts after the key's parent-most prefix (start-after).
// - DeleteKeys (VACUUM) sends DeleteObjects of up to 1000 keys; keys it reports as failed with a
//   retryable code are deleted one by one with retries.
// Transient failures (429, 500, 503 SlowDown, timeouts, dropped connections) are retried by the
// HttpClient (io/http_client.h) with backoff and jitter.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/error_classes.h"
#include "io/http_client.h"
#include "io/http_object_store.h"

namespace silt {

class AwsCredentialsProvider;

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
  // Web identity, container or instance credentials, fetched and refreshed when requests need
  // them (io/aws_credentials.h); wins over `credentials` when set.
  std::shared_ptr<AwsCredentialsProvider> credentials_provider;
  // Server-side encryption headers on every object created (PutObject, CreateMultipartUpload):
  // x-amz-server-side-encryption and, for SSE-KMS, x-amz-server-side-encryption-aws-kms-key-id.
  std::vector<std::pair<std::string, std::string>> encryption_headers;
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

class S3ObjectStore final : public HttpObjectStore {
 public:
  S3ObjectStore(S3Location location, S3StoreOptions options);
  // The store at `location`, configured from the storage configuration.
  static Result<std::shared_ptr<S3ObjectStore>> Open(std::string_view location);

  Status PutIfAbsent(const std::string& key, std::string_view data) override;

  // Creates the bucket (CreateBucket); OK when this account owns it already. Tests use it.
  Status CreateBucket();

  const S3Location& location() const { return location_; }
  const S3StoreOptions& options() const { return options_; }
  // Forgets the process-wide result of the conditional-write probe and the bucket regions
  // learnt from redirects (tests).
  static void ForgetConditionalWriteProbesForTesting();
  // The region requests are signed for: the configured one until S3 redirects to another.
  std::string region() const;

  // Multipart upload: CreateMultipartUpload, UploadPart (part number index + 1; the part's
  // ETag), CompleteMultipartUpload (no conditional form: if_absent is refused),
  // AbortMultipartUpload.
  Result<std::string> StartParts(const std::string& key) override;
  Result<std::string> PutPart(const std::string& key, const std::string& upload, int index,
                              std::string_view data) override;
  Status CompleteParts(const std::string& key, const std::string& upload,
                       const std::vector<std::string>& parts, bool if_absent,
                       std::string_view whole) override;
  void AbortParts(const std::string& key, const std::string& upload) override;

 protected:
  Result<Page> ListPage(const std::string& prefix, bool delimited, const std::string& token,
                        const std::string& start_after, int max_keys) override;
  Result<HttpRequest> BuildRequest(const std::string& method, const std::string& object_key,
                                   const std::vector<std::pair<std::string, std::string>>& query,
                                   Headers headers, std::string_view body) const override;
  std::string ErrorCode(const HttpResponse& r) const override;
  std::string ErrorHint(int status, const std::string& code) const override;
  // 301/307 PermanentRedirect or 400 AuthorizationHeaderMalformed with x-amz-bucket-region:
  // the bucket lives in that region; signed for it from now on (and, with the default AWS
  // endpoint, sent to that region's endpoint), remembered for the process's later stores.
  bool Redirected(const HttpResponse& r) override;
  // DeleteObjects: up to 1000 keys per request.
  Status DeleteBatch(std::span<const std::string_view> keys, std::span<const size_t> index,
                     std::span<Status> statuses) override;

 private:
  // The conditional create.
  Status ConditionalCreate(const std::string& key, std::string_view data);
  // Whether the endpoint honours If-None-Match: * on PutObject (probed once per process and
  // endpoint/bucket).
  Result<bool> ConditionalWritesSupported();

  // The host of requests in `region` (the endpoint follows the region when it is AWS's default).
  std::string HostFor(const std::string& region) const;

  S3Location location_;
  S3StoreOptions options_;
  std::string scheme_;                    // "https" or "http"
  std::string base_path_;                 // "" or "/bucket" (path style)
  bool endpoint_follows_region_ = false;  // the endpoint is s3.<region>.amazonaws.com
  mutable std::mutex addressing_mu_;
  std::string region_;  // the signing region (a redirect changes it)
  std::string host_;    // the Host of requests: bucket.endpoint-host or endpoint-host
};

}  // namespace silt
