// HttpObjectStore: what the ObjectStores on an object-storage REST API (io/s3_object_store.h,
// io/azure_blob_store.h) share. It holds the HTTP call with its retries (io/http_client.h), the
// mapping of error responses, and every operation whose requests differ between the services only
// in their addressing, signing and a few names:
// - Head/Get: one HEAD / GET of the object. OpenRead reads the first `prefetch_bytes` with one
//   ranged GET that also returns the size and ETag; a small object is then held whole (the handle
//   keeps the bytes it opened), a larger one is read with ranged GETs + If-Match on the ETag, so a
//   handle never mixes two versions (a replaced object: IoError). A checkpoint or sidecar
//   (`_delta_log/...parquet`) is prefetched up to `log_parquet_prefetch_bytes`: one GET. An
//   endpoint that fails the ranged GET of an empty object (s3rver answers a truncated 206) still
//   opens it as empty.
// - Put and OpenWrite: one PUT up to `single_put_limit`, else an upload in parts (S3 multipart
//   upload, Azure blocks + block list) that the subclass implements; OpenWrite buffers
//   `part_size` bytes and uses one PUT at Close when everything fits.
// - Listing: the subclass reads one page (ListPage); ListFrom, ListRecursive (the directories
//   implied by the names), ListDirs and DirExists follow the continuation tokens here.
// - Delete: one DELETE (404 is OK); DeleteKeys sends the subclass's batches of up to
//   `delete_batch_size` keys and deletes one by one a batch that failed as a whole. No
//   directories: DeleteEmptyDirs removes none, DeleteDir is OK when nothing lies below it.
// - A create whose outcome is unknown (ambiguous: a timeout, a dropped connection or a 5xx after
//   sending) and that then meets the object reads it back: our own bytes mean our create won.
// The subclass keeps the addressing and signing of a request (BuildRequest), its error codes and
// hints, one page of listing, one batch of deletes, the parts of an upload and PutIfAbsent.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/http_client.h"
#include "io/object_store.h"

namespace silt {

class HttpObjectStore : public ObjectStore, public std::enable_shared_from_this<HttpObjectStore> {
 public:
  using Headers = std::vector<std::pair<std::string, std::string>>;

  // The numbers and names in which the services' requests differ.
  struct Traits {
    std::string range_header = "Range";  // Azure: x-ms-range
    int put_ok_status = 200;             // a PUT's success (Azure: 201 Created)
    Headers put_headers;                 // on every PUT of a whole object
    int64_t prefetch_bytes = 256 << 10;  // OpenRead's first ranged read
    // OpenRead's first ranged read of a Parquet object in a _delta_log/ directory (checkpoints,
    // sidecars): they are immutable and decoded nearly whole, so one GET of up to this many
    // bytes holds them, instead of a GET per column chunk and row group (hundreds at 100k files).
    int64_t log_parquet_prefetch_bytes = 64 << 20;
    int64_t part_size = 8 << 20;          // OpenWrite's buffer, and the part of a large Put
    int64_t single_put_limit = 64 << 20;  // one PUT up to this size, parts above
    int list_page_size = 1000;            // keys per listing request
    int dir_probe_page_size = 1;          // DirExists' page
    int delete_batch_size = 1000;         // keys per batch delete; 0: none
    int max_delete_batch = 1000;          // the service's maximum
  };

  // `canonical`: the location in the engine's form (no trailing '/'); `path`: the name prefix
  // below the bucket/container (no leading or trailing '/').
  HttpObjectStore(const std::string& canonical, const std::string& path, HttpOptions http,
                  Traits traits);

  const std::string& root() const override { return root_; }

  Result<std::vector<ObjectMeta>> ListFrom(const std::string& key) override;
  Status ListRecursive(const std::string& dir, const ObjectVisitor& visit) override;
  Result<ObjectMeta> Head(const std::string& key) override;
  Result<std::string> Get(const std::string& key) override;
  Result<std::shared_ptr<RandomAccessFile>> OpenRead(const std::string& key) override;
  Status Put(const std::string& key, std::string_view data) override;
  Result<std::unique_ptr<WritableFile>> OpenWrite(const std::string& key) override;
  Status Delete(const std::string& key) override;
  void DeleteKeys(std::span<const std::string_view> keys, std::span<Status> statuses) override;
  Result<int64_t> DeleteEmptyDirs(const std::string& dir) override;
  Status DeleteDir(const std::string& dir) override;
  Result<std::vector<std::string>> ListDirs(const std::string& dir) override;
  Result<bool> DirExists(const std::string& dir) override;

  HttpClient& http() { return *http_; }
  RequestCounts counts() const { return http_->counts(); }
  const Traits& traits() const { return traits_; }

  // Internal, for the read and write handles and the subclasses.
  // One request on object `name` (the full name below the bucket/container; "" for the
  // bucket/container itself), with retries.
  Result<HttpResponse> Call(const std::string& method, const std::string& name,
                            std::vector<std::pair<std::string, std::string>> query, Headers headers,
                            std::string_view body, RequestKind kind, const std::string& what,
                            bool* ambiguous = nullptr, uint8_t* out = nullptr,
                            int64_t out_capacity = 0);
  // The error of an unexpected response to `what` on `key` (never the response's message, which
  // may quote a signature): class kErrorCloudAuth on 401/403, else kErrorCloudStorage.
  Status ErrorFor(const HttpResponse& r, const std::string& what, const std::string& key) const;
  std::string ObjectName(const std::string& key) const { return prefix_ + key; }
  std::string Describe(const std::string& key) const { return root_ + key; }
  // Put (if_absent: an exclusive create with If-None-Match: *, 409/412 -> AlreadyExists): one
  // PUT up to single_put_limit, an upload in parts above it.
  Status WriteObject(const std::string& key, std::string_view data, bool if_absent);

  // An upload in parts: started (an id), parts put (0-based `index`; each answers the id that
  // completes it), completed (if_absent: only when nothing is there; `whole`: all the bytes, for
  // the read-back of an ambiguous create) or aborted (best effort).
  virtual Result<std::string> StartParts(const std::string& key) = 0;
  virtual Result<std::string> PutPart(const std::string& key, const std::string& upload, int index,
                                      std::string_view data) = 0;
  virtual Status CompleteParts(const std::string& key, const std::string& upload,
                               const std::vector<std::string>& parts, bool if_absent,
                               std::string_view whole) = 0;
  virtual void AbortParts(const std::string& key, const std::string& upload) = 0;

 protected:
  struct Page {
    std::vector<ObjectMeta> objects;    // keys relative to the store
    std::vector<std::string> prefixes;  // relative, with trailing '/'
    std::string next_token;             // "" on the last page
  };
  // One page of the listing of `prefix` (relative to the store), delimited by '/' or flat, after
  // `token` (a continuation token or marker); `start_after` (relative) where the service can
  // start there (a hint: callers filter).
  virtual Result<Page> ListPage(const std::string& prefix, bool delimited, const std::string& token,
                                const std::string& start_after, int max_keys) = 0;
  // The request, addressed and signed (built anew for every attempt: a signature has a date).
  virtual Result<HttpRequest> BuildRequest(
      const std::string& method, const std::string& name,
      const std::vector<std::pair<std::string, std::string>>& query, Headers headers,
      std::string_view body) const = 0;
  // The service's error code of a response ("" when none).
  virtual std::string ErrorCode(const HttpResponse& r) const = 0;
  // What an error message adds for `status`/`code` (" (...)"), "" for nothing.
  virtual std::string ErrorHint(int status, const std::string& code) const = 0;
  // One batch deleting keys[index[i]]: fills their statuses; an error when the batch as a whole
  // failed (the caller then deletes one by one).
  virtual Status DeleteBatch(std::span<const std::string_view> keys, std::span<const size_t> index,
                             std::span<Status> statuses) = 0;

  // Whether `r` redirects the store (S3: a bucket in another region); the subclass then has
  // changed its addressing and the request is sent once more.
  virtual bool Redirected(const HttpResponse& /*r*/) { return false; }
  // The end of an exclusive create that met an object: OK when the create's outcome was unknown
  // (`ambiguous`) and the object holds `data` (our create won), else AlreadyExists.
  Status CreateConflict(const std::string& key, std::string_view data, bool ambiguous);
  // The prefix of store keys below the bucket/container ("" or ending in '/').
  const std::string& name_prefix() const { return prefix_; }

 private:
  std::string root_;
  std::string prefix_;
  Traits traits_;
  std::unique_ptr<HttpClient> http_;
};

// Whether `store` is an object store on a REST API (every request a network round trip), for
// callers that overlap requests there but not on the local file system.
inline bool IsObjectStorage(const ObjectStore& store) {
  return dynamic_cast<const HttpObjectStore*>(&store) != nullptr;
}

}  // namespace silt
