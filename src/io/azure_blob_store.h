// AzureBlobStore: the ObjectStore on the Azure Blob REST API (contracts in io/object_store.h),
// which Azure Blob Storage, ADLS Gen2 accounts (their blob endpoint) and OneLake serve, and which
// Azurite emulates. See docs/cloud-storage.md for the URL forms, configuration names and auth.
//
// Mapping of the contracts:
// - Head/Get: Get Blob Properties / Get Blob. OpenRead reads the first `prefetch_bytes` with one
//   ranged Get Blob that also returns the size and ETag; a small object is then held whole (the
//   handle keeps the bytes it opened), a larger one is read with ranged Get Blob + If-Match on
//   the ETag, so a handle never mixes two versions (a changed object: IoError).
// - Put: one Put Blob (atomic); above `single_put_limit`, Put Block + Put Block List (blocks are
//   invisible until the list commits). OpenWrite buffers `block_size` bytes per block.
// - PutIfAbsent: Put Blob (or Put Block List) with If-None-Match: * ; 409/412 -> AlreadyExists.
//   When an earlier attempt's outcome is unknown (timeout, dropped connection, 5xx) and the
//   retry finds the blob, the blob is read back: our own bytes mean our create won.
// - Listing: List Blobs with prefix, delimiter '/' (ListFrom, ListDirs) or flat (ListRecursive,
//   with the directories implied by names), following NextMarker pages; ListFrom filters its
//   start key on the client (the API has no start-after).
// - Delete: Delete Blob, 404 is OK; DeleteKeys (VACUUM) sends Blob Batches of 256. No directories:
// DeleteEmptyDirs removes none, DeleteDir is
//   OK when nothing lies below the directory. A flat namespace lets "a" and "a/b" both exist
//   (the file-system shape InMemoryObjectStore emulates is not enforced here).
// Transient failures are retried by the HttpClient (io/http_client.h).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/error_classes.h"
#include "io/http_client.h"
#include "io/object_store.h"

namespace silt {

// A location on Azure, parsed from the URL forms of docs/cloud-storage.md.
struct AzureLocation {
  std::string account;    // storage account ("onelake" for OneLake)
  std::string container;  // container / file system / Fabric workspace
  std::string path;       // blob name prefix below the container: no leading or trailing '/'
  std::string host;       // the host the URL named ("acct.dfs.core.windows.net"), for config keys
  std::string canonical;  // the location in the engine's form: no trailing '/'
  bool onelake = false;
};

// Whether `location` has one of the Azure schemes (abfs, abfss, wasb, wasbs, az, adl) or is an
// https URL of an Azure or OneLake blob/dfs endpoint.
bool IsAzureLocation(std::string_view location);
// Parses `location` (InvalidArgument, class SILT_INVALID_PATH-like kErrorInvalidPath, when
// malformed; an az:// URL takes its account from the configuration).
Result<AzureLocation> ParseAzureLocation(std::string_view location);

struct AzureCredentials {
  enum class Kind { kAnonymous, kSharedKey, kSas, kBearer } kind = Kind::kAnonymous;
  std::string key;    // SharedKey: the decoded account key
  std::string sas;    // SAS: the query string, without '?'
  std::string token;  // bearer token
};

struct AzureBlobStoreOptions {
  HttpOptions http;
  std::string endpoint;  // "https://acct.blob.core.windows.net" or
                         // "http://127.0.0.1:10000/devstoreaccount1"
  AzureCredentials credentials;
  int64_t block_size = 8 << 20;         // OpenWrite's block, and Put's block above the limit
  int64_t single_put_limit = 64 << 20;  // Put Blob up to this size, blocks above
  int64_t prefetch_bytes = 256 << 10;   // OpenRead's first ranged read
  int list_page_size = 5000;            // List Blobs maxresults
  int delete_batch_size = 256;  // Blob Batch subrequests (the service's maximum); 0: no batches
};

// Resolves the endpoint, credentials and HTTP settings of `location` from the storage
// configuration and the environment (io/storage_config.h; names in docs/cloud-storage.md).
Result<AzureBlobStoreOptions> AzureOptionsFromConfig(const AzureLocation& location);

class AzureBlobStore final : public ObjectStore,
                             public std::enable_shared_from_this<AzureBlobStore> {
 public:
  AzureBlobStore(AzureLocation location, AzureBlobStoreOptions options);
  // The store at `location`, configured from the storage configuration.
  static Result<std::shared_ptr<AzureBlobStore>> Open(std::string_view location);

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
  // Blob Batch: up to 256 Delete Blob subrequests in one request (falls back to one Delete Blob
  // per key when a batch fails as a whole, e.g. on an endpoint without batch support).
  void DeleteKeys(std::span<const std::string_view> keys, std::span<Status> statuses) override;
  Result<int64_t> DeleteEmptyDirs(const std::string& dir) override;
  Status DeleteDir(const std::string& dir) override;
  Result<std::vector<std::string>> ListDirs(const std::string& dir) override;
  Result<bool> DirExists(const std::string& dir) override;

  // Creates the container (Create Container); OK when it exists already. Tests and benches use it;
  // tables live in containers their owners create.
  Status CreateContainer();

  HttpClient& http() { return *http_; }
  RequestCounts counts() const { return http_->counts(); }
  const AzureLocation& location() const { return location_; }

  // Internal, for the read and write handles.
  struct Blob;
  Result<HttpResponse> Call(const std::string& method, const std::string& blob,
                            std::vector<std::pair<std::string, std::string>> query,
                            std::vector<std::pair<std::string, std::string>> headers,
                            std::string_view body, RequestKind kind, const std::string& what,
                            bool* ambiguous = nullptr, uint8_t* out = nullptr,
                            int64_t out_capacity = 0);
  Status ErrorFor(const HttpResponse& r, const std::string& what, const std::string& key) const;
  Status UploadBlocks(const std::string& key, const std::vector<std::string>& block_ids,
                      bool if_absent, std::string_view whole_for_check);
  std::string BlobName(const std::string& key) const { return prefix_ + key; }
  std::string Describe(const std::string& key) const { return root_ + key; }
  int64_t block_size() const { return options_.block_size; }
  Status PutBlock(const std::string& key, const std::string& block_id, std::string_view data);
  Status WriteObject(const std::string& key, std::string_view data, bool if_absent);

 private:
  struct Page {
    std::vector<ObjectMeta> blobs;      // keys relative to the store
    std::vector<std::string> prefixes;  // relative, with trailing '/'
    std::string next_marker;
  };
  Result<Page> ListPage(const std::string& prefix, bool delimited, const std::string& marker,
                        int max_results);
  // `subrequest`: a Blob Batch part (no x-ms-version, as the service wants).
  Result<HttpRequest> Sign(const std::string& method, const std::string& path,
                           const std::vector<std::pair<std::string, std::string>>& query,
                           std::vector<std::pair<std::string, std::string>> headers,
                           std::string_view body, bool subrequest = false) const;
  // One Blob Batch of Delete Blob subrequests for keys[index[i]]; fills their statuses. An error
  // when the batch as a whole failed (the caller then deletes one by one).
  Status DeleteBatch(std::span<const std::string_view> keys, std::span<const size_t> index,
                     std::span<Status> statuses);

  AzureLocation location_;
  AzureBlobStoreOptions options_;
  std::string root_;
  std::string prefix_;         // location_.path + "/" or ""
  std::string base_url_;       // scheme://host[:port]
  std::string endpoint_path_;  // "" or "/devstoreaccount1"
  std::unique_ptr<HttpClient> http_;
};

}  // namespace silt
