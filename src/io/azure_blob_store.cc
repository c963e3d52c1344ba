#include "io/azure_blob_store.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <span>

#include "common/clock.h"
#include "io/cloud_util.h"
#include "io/path.h"
#include "io/storage_config.h"

namespace silt {

namespace {

constexpr char kApiVersion[] = "2021-12-02";
// Azurite's well-known development account (public, documented by Microsoft).
constexpr char kEmulatorAccount[] = "devstoreaccount1";
constexpr char kEmulatorKey[] =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

using Headers = std::vector<std::pair<std::string, std::string>>;
using cloud::ForEachElement;
using cloud::IsTrue;
using cloud::Lower;
using cloud::RandomHex;
using cloud::XmlText;

Status BadLocation(std::string_view location, const std::string& why) {
  return Status::InvalidArgument("bad Azure location '" + std::string(location) + "': " + why,
                                 kErrorInvalidPath);
}

// ---- XML of List Blobs ---------------------------------------------------------------------

std::optional<std::string> BlobNameOf(std::string_view element) {
  std::string attrs;
  auto name = XmlText(element, "Name", &attrs);
  if (!name) return std::nullopt;
  if (attrs.find("Encoded=\"true\"") != std::string::npos) return UrlDecode(*name);
  return name;
}

// The error code of an Azure error response (<Code> of the body, else x-ms-error-code); never
// the message, which may quote a signature.
std::string ErrorCode(const HttpResponse& r) {
  std::string code(r.Header("x-ms-error-code"));
  if (code.empty()) {
    if (auto c = XmlText(r.body, "Code")) code = *c;
  }
  return code;
}

// ---- Handles -----------------------------------------------------------------------------------

// A blob opened for ranged reads: the first bytes are held (all of a small blob); the rest is read
// with If-Match on the ETag seen at open.
class AzureReadFile final : public RandomAccessFile {
 public:
  AzureReadFile(AzureBlobStore* store, std::string key, int64_t size, std::string etag,
                std::string head)
      : keep_(store->weak_from_this().lock()),
        store_(store),
        key_(std::move(key)),
        name_(store->Describe(key_)),
        size_(size),
        etag_(std::move(etag)),
        head_(std::move(head)) {}
  int64_t size() const override { return size_; }
  const std::string& name() const override { return name_; }
  Status ReadAt(int64_t offset, int64_t n, uint8_t* out) const override {
    if (offset < 0 || n < 0 || offset > size_ || n > size_ - offset) {
      return Status::IoError("read of " + std::to_string(n) + " bytes at " +
                             std::to_string(offset) + " past the end of " + name_ + " (" +
                             std::to_string(size_) + " bytes)");
    }
    if (n == 0) return Status::OK();
    if (offset + n <= static_cast<int64_t>(head_.size())) {
      std::memcpy(out, head_.data() + offset, static_cast<size_t>(n));
      return Status::OK();
    }
    std::string what = "read " + name_;
    Headers headers = {
        {"x-ms-range", "bytes=" + std::to_string(offset) + "-" + std::to_string(offset + n - 1)}};
    if (!etag_.empty()) headers.emplace_back("If-Match", etag_);
    SILT_ASSIGN_OR_RETURN(HttpResponse r,
                          store_->Call("GET", store_->BlobName(key_), {}, headers, {},
                                       RequestKind::kGet, what, nullptr, out, n));
    if (r.status == 412) {
      return Status::IoError(name_ + " changed since it was opened (ETag mismatch)",
                             kErrorCloudStorage);
    }
    if (r.status == 404)
      return Status::NotFound(name_ + " was deleted since it was opened", kErrorFileNotFound);
    if (r.status != 206 && r.status != 200) return store_->ErrorFor(r, "read", key_);
    if (r.out_bytes != n) {
      return Status::IoError("short read of " + name_ + ": " + std::to_string(r.out_bytes) +
                                 " of " + std::to_string(n) + " bytes",
                             kErrorCloudStorage);
    }
    return Status::OK();
  }

 private:
  std::shared_ptr<AzureBlobStore> keep_;  // the store outlives the handle when shared-owned
  AzureBlobStore* store_;
  std::string key_;
  std::string name_;
  int64_t size_;
  std::string etag_;
  std::string head_;
};

// Buffers a block at a time; a blob that fits one block is one Put Blob at Close, a larger one
// Put Blocks as it goes and commits them with Put Block List at Close.
class AzureWriteFile final : public WritableFile {
 public:
  AzureWriteFile(AzureBlobStore* store, std::string key)
      : store_(store), key_(std::move(key)), upload_id_(RandomHex(16)) {}
  Status Append(std::string_view data) override {
    if (closed_) return Status::IoError("append to closed writer of " + store_->Describe(key_));
    written_ += static_cast<int64_t>(data.size());
    while (!data.empty()) {
      size_t room = static_cast<size_t>(store_->block_size()) - buffer_.size();
      size_t take = std::min(room, data.size());
      buffer_.append(data.substr(0, take));
      data.remove_prefix(take);
      if (buffer_.size() == static_cast<size_t>(store_->block_size()) && !data.empty()) {
        SILT_RETURN_NOT_OK(Flush());
      }
    }
    return Status::OK();
  }
  Status Close() override {
    if (closed_) return Status::OK();
    closed_ = true;
    if (block_ids_.empty()) return store_->WriteObject(key_, buffer_, /*if_absent=*/false);
    if (!buffer_.empty()) SILT_RETURN_NOT_OK(Flush());
    return store_->UploadBlocks(key_, block_ids_, /*if_absent=*/false, {});
  }
  int64_t bytes_written() const override { return written_; }

 private:
  Status Flush() {
    char num[16];
    std::snprintf(num, sizeof(num), "%08zu", block_ids_.size());
    std::string id = Base64Encode(upload_id_ + "-" + num);
    SILT_RETURN_NOT_OK(store_->PutBlock(key_, id, buffer_));
    block_ids_.push_back(std::move(id));
    buffer_.clear();
    return Status::OK();
  }
  AzureBlobStore* store_;
  std::string key_;
  std::string upload_id_;
  std::string buffer_;
  std::vector<std::string> block_ids_;
  int64_t written_ = 0;
  bool closed_ = false;
};

}  // namespace

// ---- Locations and configuration ----------------------------------------------------------------

bool IsAzureLocation(std::string_view location) {
  std::string scheme = UriScheme(location);
  if (scheme == "abfs" || scheme == "abfss" || scheme == "wasb" || scheme == "wasbs" ||
      scheme == "az" || scheme == "adl" || scheme == "azure") {
    return true;
  }
  if (scheme != "https") return false;
  std::string_view rest = location.substr(8);
  std::string host(rest.substr(0, rest.find('/')));
  host = Lower(host);
  return host.ends_with(".blob.core.windows.net") || host.ends_with(".dfs.core.windows.net") ||
         host.ends_with(".blob.fabric.microsoft.com") ||
         host.ends_with(".dfs.fabric.microsoft.com");
}

Result<AzureLocation> ParseAzureLocation(std::string_view location) {
  if (size_t q = location.find('?'); q != std::string_view::npos) {
    // Most likely a SAS token pasted with the URL: refused, and not echoed (locations are printed).
    return Status::InvalidArgument(
        "bad Azure location '" + std::string(location.substr(0, q)) +
            "?…': a location has no query string; give a SAS token with AZURE_STORAGE_SAS_TOKEN "
            "or fs.azure.sas.fixed.token.<account>.dfs.core.windows.net (docs/cloud-storage.md)",
        kErrorInvalidPath);
  }
  std::string scheme = UriScheme(location);
  size_t sep = location.find("://");
  if (sep == std::string_view::npos) return BadLocation(location, "expected scheme://");
  std::string_view rest = location.substr(sep + 3);
  size_t slash = rest.find('/');
  std::string authority(rest.substr(0, slash));
  std::string path = slash == std::string_view::npos ? "" : std::string(rest.substr(slash + 1));
  AzureLocation loc;
  if (scheme == "az" || scheme == "azure") {
    // az://container/path; the account comes from the configuration.
    loc.container = authority;
    auto account = StorageSetting("fs.azure.account.name", "AZURE_STORAGE_ACCOUNT_NAME");
    if (!account) account = StorageSetting("fs.azure.account.name", "AZURE_STORAGE_ACCOUNT");
    if (!account &&
        IsTrue(StorageSetting("fs.azure.storage.use.emulator", "AZURE_STORAGE_USE_EMULATOR"))) {
      account = kEmulatorAccount;
    }
    if (!account) {
      return BadLocation(
          location, "az:// names no account: set AZURE_STORAGE_ACCOUNT or fs.azure.account.name");
    }
    loc.account = *account;
    loc.host = loc.account + ".blob.core.windows.net";
  } else if (scheme == "https") {
    // https://account.blob.core.windows.net/container/path
    loc.host = Lower(authority);
    loc.account = loc.host.substr(0, loc.host.find('.'));
    size_t s2 = path.find('/');
    loc.container = path.substr(0, s2);
    path = s2 == std::string::npos ? "" : path.substr(s2 + 1);
  } else if (scheme == "adl") {
    return Status::NotImplemented(
        "ADLS Gen1 (adl://) was retired by Azure; use abfss:// for ADLS Gen2: " +
        std::string(location));
  } else {
    // abfs[s]://container@account.dfs.core.windows.net/path, wasb[s]://container@account.blob...
    size_t at = authority.find('@');
    if (at == std::string::npos) return BadLocation(location, "expected container@account.host");
    loc.container = authority.substr(0, at);
    loc.host = Lower(authority.substr(at + 1));
    loc.account = loc.host.substr(0, loc.host.find('.'));
  }
  loc.onelake = loc.host.find(".fabric.microsoft.com") != std::string::npos;
  if (loc.container.empty()) return BadLocation(location, "no container");
  if (loc.account.empty()) return BadLocation(location, "no account");
  // Blob names below the container, taken as they are (no percent-decoding: the engine's
  // locations are raw, as memory:// ones), '/'-separated, normalised.
  while (!path.empty() && path.back() == '/') path.pop_back();
  while (!path.empty() && path.front() == '/') path.erase(0, 1);
  if (!path.empty()) {
    Status st = ValidateObjectKey(path);
    if (!st.ok()) return BadLocation(location, std::string(st.message()));
  }
  loc.path = path;
  std::string c(location.substr(0, sep + 3));
  for (char& ch : c) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  loc.canonical = c + std::string(rest.substr(0, slash));
  if (scheme == "https") loc.canonical += "/" + loc.container;
  if (!path.empty()) loc.canonical += "/" + path;
  return loc;
}

namespace {

// The first configured value among `keys`.
std::optional<std::string> FirstSetting(const std::vector<std::string>& keys) {
  for (const auto& k : keys) {
    if (auto v = GetStorageConfig(k)) return v;
  }
  return std::nullopt;
}

int64_t IntSetting(const std::string& key, int64_t fallback) {
  auto v = GetStorageConfig(key);
  if (!v) return fallback;
  char* end = nullptr;
  long long n = std::strtoll(v->c_str(), &end, 10);
  return end != v->c_str() && *end == '\0' && n >= 0 ? n : fallback;
}

}  // namespace

Result<AzureBlobStoreOptions> AzureOptionsFromConfig(const AzureLocation& loc) {
  AzureBlobStoreOptions o;
  const std::string& a = loc.account;
  std::string blob_host = loc.host;
  if (size_t d = blob_host.find(".dfs."); d != std::string::npos) blob_host.replace(d, 5, ".blob.");
  bool emulator =
      IsTrue(StorageSetting("fs.azure.storage.use.emulator", "AZURE_STORAGE_USE_EMULATOR"));
  // Endpoint.
  if (auto e = FirstSetting({"fs.azure.storage.endpoint." + a, "fs.azure.storage.endpoint"})) {
    o.endpoint = *e;
  } else if (auto env = StorageSetting("", "AZURE_STORAGE_ENDPOINT")) {
    o.endpoint = *env;
  } else if (emulator) {
    o.endpoint = std::string("http://127.0.0.1:10000/") + kEmulatorAccount;
  } else {
    o.endpoint = "https://" + blob_host;
  }
  while (!o.endpoint.empty() && o.endpoint.back() == '/') o.endpoint.pop_back();
  // Credentials: configuration first (Hadoop names), then the environment.
  std::vector<std::string> hosts = {loc.host, a + ".dfs.core.windows.net",
                                    a + ".blob.core.windows.net"};
  std::vector<std::string> key_names, sas_names;
  for (const auto& h : hosts) key_names.push_back("fs.azure.account.key." + h);
  key_names.push_back("fs.azure.account.key." + a);
  for (const auto& h : hosts) sas_names.push_back("fs.azure.sas.fixed.token." + h);
  sas_names.push_back("fs.azure.sas." + loc.container + "." + a + ".blob.core.windows.net");
  sas_names.push_back("fs.azure.sas.fixed.token");
  AzureCredentials& c = o.credentials;
  std::optional<std::string> key = FirstSetting(key_names);
  std::optional<std::string> sas = FirstSetting(sas_names);
  std::optional<std::string> token =
      FirstSetting({"fs.azure.storage.token." + a, "fs.azure.storage.token"});
  if (!key && !sas && !token) {
    auto env_account = StorageSetting("", "AZURE_STORAGE_ACCOUNT_NAME");
    if (!env_account) env_account = StorageSetting("", "AZURE_STORAGE_ACCOUNT");
    bool account_matches = !env_account || *env_account == a;
    if (account_matches) {
      key = StorageSetting("", "AZURE_STORAGE_ACCOUNT_KEY");
      if (!key) key = StorageSetting("", "AZURE_STORAGE_KEY");
      if (!key) key = StorageSetting("", "AZURE_STORAGE_ACCESS_KEY");
      sas = StorageSetting("", "AZURE_STORAGE_SAS_TOKEN");
    }
    token = StorageSetting("", "AZURE_STORAGE_TOKEN");
    if (!key && !sas && !token && emulator && a == kEmulatorAccount) key = kEmulatorKey;
  }
  if (key) {
    auto decoded = Base64Decode(*key);
    if (!decoded.ok() || decoded->empty()) {
      return Status::InvalidArgument("the account key configured for Azure account '" + a +
                                         "' is not base64 (its value is not shown)",
                                     kErrorCloudAuth);
    }
    c.kind = AzureCredentials::Kind::kSharedKey;
    c.key = *decoded;
  } else if (sas) {
    c.kind = AzureCredentials::Kind::kSas;
    c.sas = *sas;
    if (!c.sas.empty() && c.sas[0] == '?') c.sas.erase(0, 1);
  } else if (token) {
    c.kind = AzureCredentials::Kind::kBearer;
    c.token = *token;
  }
  // HTTP settings by the ABFS driver's names.
  o.http.max_retries =
      static_cast<int>(IntSetting("fs.azure.io.retry.max.retries", o.http.max_retries));
  o.http.min_backoff_ms =
      IntSetting("fs.azure.io.retry.min.backoff.interval", o.http.min_backoff_ms);
  o.http.max_backoff_ms =
      IntSetting("fs.azure.io.retry.max.backoff.interval", o.http.max_backoff_ms);
  o.http.connect_timeout_ms =
      IntSetting("fs.azure.http.connection.timeout", o.http.connect_timeout_ms);
  o.http.stall_timeout_ms = IntSetting("fs.azure.http.read.timeout", o.http.stall_timeout_ms);
  o.http.request_timeout_ms =
      IntSetting("fs.azure.http.request.timeout", o.http.request_timeout_ms);
  o.block_size = std::max<int64_t>(1, IntSetting("fs.azure.write.request.size", o.block_size));
  o.prefetch_bytes = IntSetting("fs.azure.read.request.size", o.prefetch_bytes);
  return o;
}

// ---- The store
// -----------------------------------------------------------------------------------

AzureBlobStore::AzureBlobStore(AzureLocation location, AzureBlobStoreOptions options)
    : location_(std::move(location)), options_(std::move(options)) {
  root_ = location_.canonical + "/";
  prefix_ = location_.path.empty() ? "" : location_.path + "/";
  size_t sep = options_.endpoint.find("://");
  size_t slash =
      sep == std::string::npos ? std::string::npos : options_.endpoint.find('/', sep + 3);
  base_url_ = options_.endpoint.substr(0, slash);
  endpoint_path_ = slash == std::string::npos ? "" : options_.endpoint.substr(slash);
  http_ = std::make_unique<HttpClient>(options_.http);
}

Result<std::shared_ptr<AzureBlobStore>> AzureBlobStore::Open(std::string_view location) {
  SILT_ASSIGN_OR_RETURN(AzureLocation loc, ParseAzureLocation(location));
  SILT_ASSIGN_OR_RETURN(AzureBlobStoreOptions options, AzureOptionsFromConfig(loc));
  return std::make_shared<AzureBlobStore>(std::move(loc), std::move(options));
}

Result<HttpRequest> AzureBlobStore::Sign(
    const std::string& method, const std::string& path,
    const std::vector<std::pair<std::string, std::string>>& query, Headers headers,
    std::string_view body, bool subrequest) const {
  HttpRequest req;
  req.method = method;
  headers.emplace_back("x-ms-date", HttpDate(SystemClock().NowMillis()));
  if (!subrequest) headers.emplace_back("x-ms-version", kApiVersion);
  if ((method == "PUT" || method == "POST") && !subrequest) {
    bool has_type = false;
    for (auto& [k, v] : headers) has_type |= Lower(k) == "content-type";
    if (!has_type) headers.emplace_back("Content-Type", "application/octet-stream");
  }
  std::string q;
  for (const auto& [k, v] : query) {
    q += q.empty() ? "?" : "&";
    q += UrlEncode(k, false) + "=" + UrlEncode(v, false);
  }
  const AzureCredentials& c = options_.credentials;
  if (c.kind == AzureCredentials::Kind::kSas) {
    q += q.empty() ? "?" : "&";
    q += c.sas;
  } else if (c.kind == AzureCredentials::Kind::kBearer) {
    headers.emplace_back("Authorization", "Bearer " + c.token);
  } else if (c.kind == AzureCredentials::Kind::kSharedKey) {
    auto get = [&](std::string_view name) -> std::string {
      for (auto& [k, v] : headers) {
        if (Lower(k) == name) return v;
      }
      return "";
    };
    std::string length = body.empty() ? "" : std::to_string(body.size());
    std::string sts = method + "\n" + get("content-encoding") + "\n" + get("content-language") +
                      "\n" + length + "\n" + get("content-md5") + "\n" + get("content-type") +
                      "\n" + "\n" + get("if-modified-since") + "\n" + get("if-match") + "\n" +
                      get("if-none-match") + "\n" + get("if-unmodified-since") + "\n" +
                      get("range") + "\n";
    std::vector<std::pair<std::string, std::string>> ms;
    for (auto& [k, v] : headers) {
      std::string lk = Lower(k);
      if (lk.starts_with("x-ms-")) ms.emplace_back(lk, v);
    }
    std::sort(ms.begin(), ms.end());
    for (auto& [k, v] : ms) sts += k + ":" + v + "\n";
    sts += "/" + location_.account + endpoint_path_ + path;
    std::vector<std::pair<std::string, std::string>> qs;
    for (const auto& [k, v] : query) qs.emplace_back(Lower(k), v);
    std::sort(qs.begin(), qs.end());
    for (auto& [k, v] : qs) sts += "\n" + k + ":" + v;
    headers.emplace_back("Authorization", "SharedKey " + location_.account + ":" +
                                              Base64Encode(HmacSha256(c.key, sts)));
  }
  req.url = base_url_ + endpoint_path_ + path + q;
  req.headers = std::move(headers);
  req.body = body;
  return req;
}

Result<HttpResponse> AzureBlobStore::Call(const std::string& method, const std::string& blob,
                                          std::vector<std::pair<std::string, std::string>> query,
                                          Headers headers, std::string_view body, RequestKind kind,
                                          const std::string& what, bool* ambiguous, uint8_t* out,
                                          int64_t out_capacity) {
  std::string path = "/" + UrlEncode(location_.container, false);
  if (!blob.empty()) path += "/" + UrlEncode(blob, /*keep_slash=*/true);
  return http_->SendWithRetries(
      [&]() -> Result<HttpRequest> {
        SILT_ASSIGN_OR_RETURN(HttpRequest r, Sign(method, path, query, headers, body));
        r.out = out;
        r.out_capacity = out_capacity;
        return r;
      },
      kind, what, ambiguous);
}

Status AzureBlobStore::ErrorFor(const HttpResponse& r, const std::string& what,
                                const std::string& key) const {
  std::string code = ErrorCode(r);
  std::string msg = what + " " + Describe(key) + ": HTTP " + std::to_string(r.status) +
                    (code.empty() ? "" : " " + code);
  if (r.status == 401 || r.status == 403) {
    return Status::IoError(msg + " (check the account's credentials: docs/cloud-storage.md)",
                           kErrorCloudAuth);
  }
  if (code == "ContainerNotFound") {
    return Status::IoError(msg + " (container '" + location_.container + "' does not exist)",
                           kErrorCloudStorage);
  }
  return Status::IoError(msg, kErrorCloudStorage);
}

Status AzureBlobStore::CreateContainer() {
  SILT_ASSIGN_OR_RETURN(HttpResponse r,
                        Call("PUT", "", {{"restype", "container"}}, {}, {}, RequestKind::kPut,
                             "Create Container " + location_.container));
  if (r.status == 201 || (r.status == 409 && ErrorCode(r) == "ContainerAlreadyExists"))
    return Status::OK();
  return ErrorFor(r, "Create Container", "");
}

Result<ObjectMeta> AzureBlobStore::Head(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  SILT_ASSIGN_OR_RETURN(HttpResponse r, Call("HEAD", BlobName(key), {}, {}, {}, RequestKind::kHead,
                                             "HEAD " + Describe(key)));
  if (r.status == 404)
    return Status::NotFound("object not found: " + Describe(key), kErrorFileNotFound);
  if (r.status != 200) return ErrorFor(r, "HEAD", key);
  ObjectMeta m;
  m.key = key;
  m.size = std::strtoll(std::string(r.Header("content-length")).c_str(), nullptr, 10);
  m.modification_time_ms =
      std::max<int64_t>(0, ParseHttpDate(std::string(r.Header("last-modified"))));
  return m;
}

Result<std::string> AzureBlobStore::Get(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  SILT_ASSIGN_OR_RETURN(HttpResponse r, Call("GET", BlobName(key), {}, {}, {}, RequestKind::kGet,
                                             "GET " + Describe(key)));
  if (r.status == 404)
    return Status::NotFound("object not found: " + Describe(key), kErrorFileNotFound);
  if (r.status != 200) return ErrorFor(r, "GET", key);
  return std::move(r.body);
}

Result<std::shared_ptr<RandomAccessFile>> AzureBlobStore::OpenRead(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  int64_t want = std::max<int64_t>(1, options_.prefetch_bytes);
  SILT_ASSIGN_OR_RETURN(
      HttpResponse r,
      Call("GET", BlobName(key), {}, {{"x-ms-range", "bytes=0-" + std::to_string(want - 1)}}, {},
           RequestKind::kGet, "GET " + Describe(key)));
  if (r.status == 404)
    return Status::NotFound("object not found: " + Describe(key), kErrorFileNotFound);
  if (r.status == 416) {
    // A range from 0 is unsatisfiable only for an empty blob.
    SILT_ASSIGN_OR_RETURN(ObjectMeta m, Head(key));
    if (m.size != 0) return ErrorFor(r, "GET", key);
    return std::shared_ptr<RandomAccessFile>(std::make_shared<AzureReadFile>(this, key, 0, "", ""));
  }
  if (r.status != 200 && r.status != 206) return ErrorFor(r, "GET", key);
  int64_t size = static_cast<int64_t>(r.body.size());
  std::string_view range = r.Header("content-range");  // "bytes 0-N/TOTAL"
  if (r.status == 206) {
    size_t slash = range.rfind('/');
    if (slash == std::string_view::npos) return ErrorFor(r, "GET (no Content-Range)", key);
    size = std::strtoll(std::string(range.substr(slash + 1)).c_str(), nullptr, 10);
  }
  std::string etag(r.Header("etag"));
  return std::shared_ptr<RandomAccessFile>(
      std::make_shared<AzureReadFile>(this, key, size, std::move(etag), std::move(r.body)));
}

Status AzureBlobStore::WriteObject(const std::string& key, std::string_view data, bool if_absent) {
  if (static_cast<int64_t>(data.size()) > options_.single_put_limit) {
    std::vector<std::string> ids;
    std::string upload = RandomHex(16);
    for (size_t pos = 0, i = 0; pos < data.size();
         pos += static_cast<size_t>(options_.block_size), ++i) {
      char num[16];
      std::snprintf(num, sizeof(num), "%08zu", i);
      ids.push_back(Base64Encode(upload + "-" + num));
      SILT_RETURN_NOT_OK(
          PutBlock(key, ids.back(), data.substr(pos, static_cast<size_t>(options_.block_size))));
    }
    return UploadBlocks(key, ids, if_absent, data);
  }
  Headers headers = {{"x-ms-blob-type", "BlockBlob"}};
  if (if_absent) headers.emplace_back("If-None-Match", "*");
  bool ambiguous = false;
  SILT_ASSIGN_OR_RETURN(HttpResponse r,
                        Call("PUT", BlobName(key), {}, headers, data, RequestKind::kPut,
                             "PUT " + Describe(key), &ambiguous));
  if (r.status == 201) return Status::OK();
  if (if_absent && (r.status == 409 || r.status == 412)) {
    if (ambiguous) {
      // An earlier attempt may have created it: our bytes there mean we won.
      Result<std::string> now = Get(key);
      if (now.ok() && *now == data) return Status::OK();
    }
    return Status::AlreadyExists("object already exists: " + Describe(key),
                                 kErrorFileAlreadyExists);
  }
  return ErrorFor(r, "PUT", key);
}

Status AzureBlobStore::PutBlock(const std::string& key, const std::string& block_id,
                                std::string_view data) {
  SILT_ASSIGN_OR_RETURN(HttpResponse r,
                        Call("PUT", BlobName(key), {{"comp", "block"}, {"blockid", block_id}}, {},
                             data, RequestKind::kPut, "Put Block " + Describe(key)));
  if (r.status != 201) return ErrorFor(r, "Put Block", key);
  return Status::OK();
}

Status AzureBlobStore::UploadBlocks(const std::string& key,
                                    const std::vector<std::string>& block_ids, bool if_absent,
                                    std::string_view whole_for_check) {
  std::string body = "<?xml version=\"1.0\" encoding=\"utf-8\"?><BlockList>";
  for (const auto& id : block_ids) body += "<Latest>" + id + "</Latest>";
  body += "</BlockList>";
  Headers headers = {{"Content-Type", "application/xml"}};
  if (if_absent) headers.emplace_back("If-None-Match", "*");
  bool ambiguous = false;
  SILT_ASSIGN_OR_RETURN(HttpResponse r,
                        Call("PUT", BlobName(key), {{"comp", "blocklist"}}, headers, body,
                             RequestKind::kPut, "Put Block List " + Describe(key), &ambiguous));
  if (r.status == 201) return Status::OK();
  if (if_absent && (r.status == 409 || r.status == 412)) {
    if (ambiguous) {
      Result<std::string> now = Get(key);
      if (now.ok() && *now == whole_for_check) return Status::OK();
    }
    return Status::AlreadyExists("object already exists: " + Describe(key),
                                 kErrorFileAlreadyExists);
  }
  return ErrorFor(r, "Put Block List", key);
}

Status AzureBlobStore::Put(const std::string& key, std::string_view data) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  return WriteObject(key, data, /*if_absent=*/false);
}

Status AzureBlobStore::PutIfAbsent(const std::string& key, std::string_view data) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  return WriteObject(key, data, /*if_absent=*/true);
}

Result<std::unique_ptr<WritableFile>> AzureBlobStore::OpenWrite(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  return std::unique_ptr<WritableFile>(std::make_unique<AzureWriteFile>(this, key));
}

Status AzureBlobStore::Delete(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  SILT_ASSIGN_OR_RETURN(HttpResponse r, Call("DELETE", BlobName(key), {}, {}, {},
                                             RequestKind::kDelete, "DELETE " + Describe(key)));
  if (r.status == 202 || r.status == 200 || r.status == 404) return Status::OK();
  return ErrorFor(r, "DELETE", key);
}

void AzureBlobStore::DeleteKeys(std::span<const std::string_view> keys,
                                std::span<Status> statuses) {
  std::vector<size_t> todo;
  for (size_t i = 0; i < keys.size(); ++i) {
    statuses[i] = ValidateObjectKey(keys[i]);
    if (statuses[i].ok()) todo.push_back(i);
  }
  size_t per = static_cast<size_t>(std::max(0, options_.delete_batch_size));
  for (size_t begin = 0; begin < todo.size();) {
    size_t n = per == 0 ? 1 : std::min(per, todo.size() - begin);
    std::span<const size_t> chunk(todo.data() + begin, n);
    if (n < 2 || !DeleteBatch(keys, chunk, statuses).ok()) {
      for (size_t i : chunk) statuses[i] = Delete(std::string(keys[i]));
    }
    begin += n;
  }
}

Status AzureBlobStore::DeleteBatch(std::span<const std::string_view> keys,
                                   std::span<const size_t> index, std::span<Status> statuses) {
  const std::string boundary = "batch_" + RandomHex(32);
  std::string body;
  for (size_t j = 0; j < index.size(); ++j) {
    std::string key(keys[index[j]]);
    std::string path = "/" + UrlEncode(location_.container, false) + "/" +
                       UrlEncode(BlobName(key), /*keep_slash=*/true);
    SILT_ASSIGN_OR_RETURN(HttpRequest sub, Sign("DELETE", path, {}, {}, {}, /*subrequest=*/true));
    body += "--" + boundary +
            "\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n"
            "Content-ID: " +
            std::to_string(j) + "\r\n\r\nDELETE " + sub.url.substr(base_url_.size()) +
            " HTTP/1.1\r\n";
    for (const auto& [k, v] : sub.headers) body += k + ": " + v + "\r\n";
    body += "Content-Length: 0\r\n\r\n";
  }
  body += "--" + boundary + "--\r\n";
  SILT_ASSIGN_OR_RETURN(HttpResponse r,
                        Call("POST", "", {{"restype", "container"}, {"comp", "batch"}},
                             {{"Content-Type", "multipart/mixed; boundary=" + boundary}}, body,
                             RequestKind::kDelete, "Blob Batch " + root_));
  if (r.status != 202) return ErrorFor(r, "Blob Batch", "");
  // The parts answer in Content-ID order; each has a status line.
  std::vector<int> status(index.size(), 0);
  size_t pos = 0;
  while ((pos = r.body.find("Content-ID:", pos)) != std::string::npos) {
    size_t line_end = r.body.find('\n', pos);
    int id = std::atoi(r.body.substr(pos + 11, line_end - pos - 11).c_str());
    size_t http = r.body.find("HTTP/1.1 ", pos);
    if (http == std::string::npos) break;
    if (id >= 0 && static_cast<size_t>(id) < status.size()) {
      status[static_cast<size_t>(id)] = std::atoi(r.body.substr(http + 9, 3).c_str());
    }
    pos = http + 9;
  }
  for (size_t j = 0; j < index.size(); ++j) {
    int st = status[j];
    std::string key(keys[index[j]]);
    if (st == 202 || st == 200 || st == 404) {
      statuses[index[j]] = Status::OK();
    } else if (st == 0 || HttpClient::RetryableStatus(st)) {
      statuses[index[j]] = Delete(key);  // no answer, or throttled: on its own, with retries
    } else {
      HttpResponse part;
      part.status = st;
      statuses[index[j]] = ErrorFor(part, "DELETE (in a batch)", key);
    }
  }
  return Status::OK();
}

Result<AzureBlobStore::Page> AzureBlobStore::ListPage(const std::string& prefix, bool delimited,
                                                      const std::string& marker, int max_results) {
  std::vector<std::pair<std::string, std::string>> query = {{"restype", "container"},
                                                            {"comp", "list"}};
  std::string full = prefix_ + prefix;
  if (!full.empty()) query.emplace_back("prefix", full);
  if (delimited) query.emplace_back("delimiter", "/");
  if (!marker.empty()) query.emplace_back("marker", marker);
  query.emplace_back("maxresults", std::to_string(max_results));
  SILT_ASSIGN_OR_RETURN(HttpResponse r, Call("GET", "", query, {}, {}, RequestKind::kList,
                                             "LIST " + Describe(prefix)));
  if (r.status == 404 && ErrorCode(r) == "ContainerNotFound") return Page{};  // nothing there
  if (r.status != 200) return ErrorFor(r, "LIST", prefix);
  Page page;
  size_t n = prefix_.size();
  SILT_RETURN_NOT_OK(ForEachElement(r.body, "Blob", [&](std::string_view el) -> Status {
    auto name = BlobNameOf(el);
    if (!name || name->size() <= n) return Status::OK();
    ObjectMeta m;
    m.key = name->substr(n);
    if (!ValidateObjectKey(m.key).ok()) return Status::OK();  // a name no key can reach
    if (auto len = XmlText(el, "Content-Length")) m.size = std::strtoll(len->c_str(), nullptr, 10);
    if (auto lm = XmlText(el, "Last-Modified"))
      m.modification_time_ms = std::max<int64_t>(0, ParseHttpDate(*lm));
    page.blobs.push_back(std::move(m));
    return Status::OK();
  }));
  SILT_RETURN_NOT_OK(ForEachElement(r.body, "BlobPrefix", [&](std::string_view el) -> Status {
    auto name = BlobNameOf(el);
    if (name && name->size() > n) page.prefixes.push_back(name->substr(n));
    return Status::OK();
  }));
  if (auto next = XmlText(r.body, "NextMarker")) page.next_marker = *next;
  return page;
}

Result<std::vector<ObjectMeta>> AzureBlobStore::ListFrom(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key, /*allow_dir=*/true));
  std::string dir = key.substr(0, key.rfind('/') == std::string::npos ? 0 : key.rfind('/') + 1);
  std::vector<ObjectMeta> out;
  std::string marker;
  do {
    SILT_ASSIGN_OR_RETURN(Page page,
                          ListPage(dir, /*delimited=*/true, marker, options_.list_page_size));
    for (auto& m : page.blobs) {
      if (m.key >= key && m.key.find('/', dir.size()) == std::string::npos)
        out.push_back(std::move(m));
    }
    marker = page.next_marker;
  } while (!marker.empty());
  std::sort(out.begin(), out.end(),
            [](const ObjectMeta& a, const ObjectMeta& b) { return a.key < b.key; });
  return out;
}

Status AzureBlobStore::ListRecursive(const std::string& dir, const ObjectVisitor& visit) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
  std::string prefix = dir;
  if (!prefix.empty() && prefix.back() != '/') prefix.push_back('/');
  cloud::ImpliedDirs dirs(prefix);
  std::string marker;
  do {
    SILT_ASSIGN_OR_RETURN(Page page,
                          ListPage(prefix, /*delimited=*/false, marker, options_.list_page_size));
    for (const ObjectMeta& m : page.blobs) {
      if (!m.key.starts_with(prefix)) continue;
      SILT_RETURN_NOT_OK(dirs.Visit(m, visit));
    }
    marker = page.next_marker;
  } while (!marker.empty());
  return Status::OK();
}

Result<std::vector<std::string>> AzureBlobStore::ListDirs(const std::string& dir) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
  std::string prefix = dir;
  if (!prefix.empty() && prefix.back() != '/') prefix.push_back('/');
  std::vector<std::string> out;
  std::string marker;
  do {
    SILT_ASSIGN_OR_RETURN(Page page,
                          ListPage(prefix, /*delimited=*/true, marker, options_.list_page_size));
    for (const auto& p : page.prefixes) {
      if (p.size() > prefix.size() + 1 && p.starts_with(prefix)) {
        out.push_back(p.substr(prefix.size(), p.size() - prefix.size() - 1));
      }
    }
    marker = page.next_marker;
  } while (!marker.empty());
  std::sort(out.begin(), out.end());
  return out;
}

Result<bool> AzureBlobStore::DirExists(const std::string& dir) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
  std::string prefix = dir;
  if (!prefix.empty() && prefix.back() != '/') prefix.push_back('/');
  SILT_ASSIGN_OR_RETURN(Page page, ListPage(prefix, /*delimited=*/false, "", 1));
  return !page.blobs.empty();
}

Result<int64_t> AzureBlobStore::DeleteEmptyDirs(const std::string& dir) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
  return int64_t{0};
}

Status AzureBlobStore::DeleteDir(const std::string& dir) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
  if (dir.empty() || dir == "/") {
    return Status::InvalidArgument("DeleteDir needs a directory below the root",
                                   kErrorInvalidObjectKey);
  }
  SILT_ASSIGN_OR_RETURN(bool exists, DirExists(dir));
  if (exists) {
    return Status::IoError("directory not empty: " + Describe(dir), kErrorDirectoryNotEmpty);
  }
  return Status::OK();
}

}  // namespace silt
