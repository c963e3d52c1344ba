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

// ---- The store -------------------------------------------------------------------------------

namespace {

HttpObjectStore::Traits AzureTraits(const AzureBlobStoreOptions& o) {
  HttpObjectStore::Traits t;
  t.range_header = "x-ms-range";
  t.put_ok_status = 201;
  t.put_headers = {{"x-ms-blob-type", "BlockBlob"}};
  t.prefetch_bytes = o.prefetch_bytes;
  t.part_size = o.block_size;
  t.single_put_limit = o.single_put_limit;
  t.list_page_size = o.list_page_size;
  t.dir_probe_page_size = 1;
  t.delete_batch_size = o.delete_batch_size;
  t.max_delete_batch = 256;
  return t;
}

}  // namespace

AzureBlobStore::AzureBlobStore(AzureLocation location, AzureBlobStoreOptions options)
    : HttpObjectStore(location.canonical, location.path, options.http, AzureTraits(options)),
      location_(std::move(location)),
      options_(std::move(options)) {
  size_t sep = options_.endpoint.find("://");
  size_t slash =
      sep == std::string::npos ? std::string::npos : options_.endpoint.find('/', sep + 3);
  base_url_ = options_.endpoint.substr(0, slash);
  endpoint_path_ = slash == std::string::npos ? "" : options_.endpoint.substr(slash);
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

Result<HttpRequest> AzureBlobStore::BuildRequest(
    const std::string& method, const std::string& blob,
    const std::vector<std::pair<std::string, std::string>>& query, Headers headers,
    std::string_view body) const {
  std::string path = "/" + UrlEncode(location_.container, false);
  if (!blob.empty()) path += "/" + UrlEncode(blob, /*keep_slash=*/true);
  return Sign(method, path, query, std::move(headers), body);
}

std::string AzureBlobStore::ErrorCode(const HttpResponse& r) const {
  // x-ms-error-code, else <Code> of the body; never the message, which may quote a signature.
  std::string code(r.Header("x-ms-error-code"));
  if (code.empty()) {
    if (auto c = XmlText(r.body, "Code")) code = *c;
  }
  return code;
}

std::string AzureBlobStore::ErrorHint(int status, const std::string& code) const {
  if (status == 401 || status == 403) {
    return " (check the account's credentials: docs/cloud-storage.md)";
  }
  if (code == "ContainerNotFound") {
    return " (container '" + location_.container + "' does not exist)";
  }
  return "";
}

Status AzureBlobStore::CreateContainer() {
  SILT_ASSIGN_OR_RETURN(HttpResponse r,
                        Call("PUT", "", {{"restype", "container"}}, {}, {}, RequestKind::kPut,
                             "Create Container " + location_.container));
  if (r.status == 201 || (r.status == 409 && ErrorCode(r) == "ContainerAlreadyExists"))
    return Status::OK();
  return ErrorFor(r, "Create Container", "");
}

Result<std::string> AzureBlobStore::StartParts(const std::string&) { return RandomHex(16); }

Result<std::string> AzureBlobStore::PutPart(const std::string& key, const std::string& upload,
                                            int index, std::string_view data) {
  char num[16];
  std::snprintf(num, sizeof(num), "%08d", index);
  std::string block_id = Base64Encode(upload + "-" + num);
  SILT_ASSIGN_OR_RETURN(HttpResponse r,
                        Call("PUT", ObjectName(key), {{"comp", "block"}, {"blockid", block_id}}, {},
                             data, RequestKind::kPut, "Put Block " + Describe(key)));
  if (r.status != 201) return ErrorFor(r, "Put Block", key);
  return block_id;
}

Status AzureBlobStore::CompleteParts(const std::string& key, const std::string& /*upload*/,
                                     const std::vector<std::string>& block_ids, bool if_absent,
                                     std::string_view whole) {
  std::string body = "<?xml version=\"1.0\" encoding=\"utf-8\"?><BlockList>";
  for (const auto& id : block_ids) body += "<Latest>" + id + "</Latest>";
  body += "</BlockList>";
  Headers headers = {{"Content-Type", "application/xml"}};
  if (if_absent) headers.emplace_back("If-None-Match", "*");
  bool ambiguous = false;
  SILT_ASSIGN_OR_RETURN(HttpResponse r,
                        Call("PUT", ObjectName(key), {{"comp", "blocklist"}}, headers, body,
                             RequestKind::kPut, "Put Block List " + Describe(key), &ambiguous));
  if (r.status == 201) return Status::OK();
  if (if_absent && (r.status == 409 || r.status == 412)) {
    return CreateConflict(key, whole, ambiguous);
  }
  return ErrorFor(r, "Put Block List", key);
}

Status AzureBlobStore::PutIfAbsent(const std::string& key, std::string_view data) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  return WriteObject(key, data, /*if_absent=*/true);
}

Status AzureBlobStore::DeleteBatch(std::span<const std::string_view> keys,
                                   std::span<const size_t> index, std::span<Status> statuses) {
  const std::string boundary = "batch_" + RandomHex(32);
  std::string body;
  for (size_t j = 0; j < index.size(); ++j) {
    std::string key(keys[index[j]]);
    std::string path = "/" + UrlEncode(location_.container, false) + "/" +
                       UrlEncode(ObjectName(key), /*keep_slash=*/true);
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
                             RequestKind::kDelete, "Blob Batch " + root()));
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

Result<HttpObjectStore::Page> AzureBlobStore::ListPage(const std::string& prefix, bool delimited,
                                                       const std::string& marker,
                                                       const std::string& /*start_after*/,
                                                       int max_results) {
  std::vector<std::pair<std::string, std::string>> query = {{"restype", "container"},
                                                            {"comp", "list"}};
  std::string full = name_prefix() + prefix;
  if (!full.empty()) query.emplace_back("prefix", full);
  if (delimited) query.emplace_back("delimiter", "/");
  if (!marker.empty()) query.emplace_back("marker", marker);
  query.emplace_back("maxresults", std::to_string(max_results));
  SILT_ASSIGN_OR_RETURN(HttpResponse r, Call("GET", "", query, {}, {}, RequestKind::kList,
                                             "LIST " + Describe(prefix)));
  if (r.status == 404 && ErrorCode(r) == "ContainerNotFound") return Page{};  // nothing there
  if (r.status != 200) return ErrorFor(r, "LIST", prefix);
  Page page;
  size_t n = name_prefix().size();
  SILT_RETURN_NOT_OK(ForEachElement(r.body, "Blob", [&](std::string_view el) -> Status {
    auto name = BlobNameOf(el);
    if (!name || name->size() <= n) return Status::OK();
    ObjectMeta m;
    m.key = name->substr(n);
    if (!ValidateObjectKey(m.key).ok()) return Status::OK();  // a name no key can reach
    if (auto len = XmlText(el, "Content-Length")) m.size = std::strtoll(len->c_str(), nullptr, 10);
    if (auto lm = XmlText(el, "Last-Modified"))
      m.modification_time_ms = std::max<int64_t>(0, ParseHttpDate(*lm));
    page.objects.push_back(std::move(m));
    return Status::OK();
  }));
  SILT_RETURN_NOT_OK(ForEachElement(r.body, "BlobPrefix", [&](std::string_view el) -> Status {
    auto name = BlobNameOf(el);
    if (name && name->size() > n) page.prefixes.push_back(name->substr(n));
    return Status::OK();
  }));
  if (auto next = XmlText(r.body, "NextMarker")) page.next_token = *next;
  return page;
}

}  // namespace silt
