// AzureBlobStore: the ObjectStore on the Azure Blob REST API (contracts in io/object_store.h),
// which Azure Blob Storage, ADLS Gen2 accounts (their blob endpoint) and OneLake serve, and which
// Azurite emulates. See docs/cloud-storage.md for the URL forms, configuration names and auth.
//
// The requests, retries, reads, writes, listing loops and deletes are HttpObjectStore's
// (io/http_object_store.h); this class holds what is Azure's own:
// - Addressing (the endpoint, Azurite's account path) and auth: SharedKey, SAS, bearer tokens.
// - Put above `single_put_limit` and OpenWrite above `block_size`: Put Block + Put Block List
//   (blocks are invisible until the list commits).
// - PutIfAbsent: Put Blob (or Put Block List) with If-None-Match: * ; 409/412 -> AlreadyExists.
//   When an earlier attempt's outcome is unknown (timeout, dropped connection, 5xx) and the
//   retry finds the blob, the blob is read back: our own bytes mean our create won.
// - Listing: List Blobs with prefix, delimiter '/' or flat, NextMarker pages; the API has no
//   start-after (ListFrom filters on the client).
// - DeleteKeys (VACUUM) sends Blob Batches of 256 (one Delete Blob per key when a batch fails
//   as a whole, e.g. on an endpoint without batch support). A flat namespace lets "a" and "a/b"
//   both exist (the file-system shape InMemoryObjectStore emulates is not enforced here).
// Transient failures are retried by the HttpClient (io/http_client.h).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/error_classes.h"
#include "io/http_client.h"
#include "io/http_object_store.h"

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

class AzureBlobStore final : public HttpObjectStore {
 public:
  AzureBlobStore(AzureLocation location, AzureBlobStoreOptions options);
  // The store at `location`, configured from the storage configuration.
  static Result<std::shared_ptr<AzureBlobStore>> Open(std::string_view location);

  Status PutIfAbsent(const std::string& key, std::string_view data) override;

  // Creates the container (Create Container); OK when it exists already. Tests and benches use it;
  // tables live in containers their owners create.
  Status CreateContainer();

  const AzureLocation& location() const { return location_; }

  // Blocks: ids made of a random upload id and the index, Put Block, Put Block List (with
  // If-None-Match: * for a create); nothing to abort (uncommitted blocks expire).
  Result<std::string> StartParts(const std::string& key) override;
  Result<std::string> PutPart(const std::string& key, const std::string& upload, int index,
                              std::string_view data) override;
  Status CompleteParts(const std::string& key, const std::string& upload,
                       const std::vector<std::string>& parts, bool if_absent,
                       std::string_view whole) override;
  void AbortParts(const std::string&, const std::string&) override {}

 protected:
  Result<Page> ListPage(const std::string& prefix, bool delimited, const std::string& token,
                        const std::string& start_after, int max_keys) override;
  Result<HttpRequest> BuildRequest(const std::string& method, const std::string& blob,
                                   const std::vector<std::pair<std::string, std::string>>& query,
                                   Headers headers, std::string_view body) const override;
  std::string ErrorCode(const HttpResponse& r) const override;
  std::string ErrorHint(int status, const std::string& code) const override;
  // Blob Batch: up to 256 Delete Blob subrequests in one request.
  Status DeleteBatch(std::span<const std::string_view> keys, std::span<const size_t> index,
                     std::span<Status> statuses) override;

 private:
  // `path`: "/container[/blob]", encoded; `subrequest`: a Blob Batch part (no x-ms-version, as
  // the service wants).
  Result<HttpRequest> Sign(const std::string& method, const std::string& path,
                           const std::vector<std::pair<std::string, std::string>>& query,
                           Headers headers, std::string_view body, bool subrequest = false) const;

  AzureLocation location_;
  AzureBlobStoreOptions options_;
  std::string base_url_;       // scheme://host[:port]
  std::string endpoint_path_;  // "" or "/devstoreaccount1"
};

}  // namespace silt
