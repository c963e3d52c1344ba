#include "io/http_object_store.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "io/cloud_util.h"
#include "io/path.h"

namespace silt {

namespace {

// An object opened for ranged reads: the first bytes are held (all of a small object); the rest
// is read with If-Match on the ETag seen at open.
class HttpReadFile final : public RandomAccessFile {
 public:
  HttpReadFile(HttpObjectStore* store, std::string key, int64_t size, std::string etag,
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
    HttpObjectStore::Headers headers = {
        {store_->traits().range_header,
         "bytes=" + std::to_string(offset) + "-" + std::to_string(offset + n - 1)}};
    if (!etag_.empty()) headers.emplace_back("If-Match", etag_);
    SILT_ASSIGN_OR_RETURN(HttpResponse r,
                          store_->Call("GET", store_->ObjectName(key_), {}, headers, {},
                                       RequestKind::kGet, "read " + name_, nullptr, out, n));
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
  std::shared_ptr<HttpObjectStore> keep_;  // the store outlives the handle when shared-owned
  HttpObjectStore* store_;
  std::string key_;
  std::string name_;
  int64_t size_;
  std::string etag_;
  std::string head_;
};

// Buffers one part: an object that fits is one PUT at Close; a larger one becomes an upload in
// parts started at the first full part and completed at Close (aborted when the writer is
// dropped unclosed or a part fails).
class HttpWriteFile final : public WritableFile {
 public:
  HttpWriteFile(HttpObjectStore* store, std::string key) : store_(store), key_(std::move(key)) {}
  ~HttpWriteFile() override {
    if (started_ && !completed_) store_->AbortParts(key_, upload_);
  }
  Status Append(std::string_view data) override {
    if (closed_) return Status::IoError("append to closed writer of " + store_->Describe(key_));
    written_ += static_cast<int64_t>(data.size());
    size_t part = static_cast<size_t>(store_->traits().part_size);
    while (!data.empty()) {
      size_t take = std::min(part - buffer_.size(), data.size());
      buffer_.append(data.substr(0, take));
      data.remove_prefix(take);
      if (buffer_.size() == part && !data.empty()) SILT_RETURN_NOT_OK(Flush());
    }
    return Status::OK();
  }
  Status Close() override {
    if (closed_) return Status::OK();
    closed_ = true;
    if (!started_) return store_->WriteObject(key_, buffer_, /*if_absent=*/false);
    if (!buffer_.empty()) SILT_RETURN_NOT_OK(Flush());
    SILT_RETURN_NOT_OK(store_->CompleteParts(key_, upload_, parts_, /*if_absent=*/false, {}));
    completed_ = true;
    return Status::OK();
  }
  int64_t bytes_written() const override { return written_; }

 private:
  Status Flush() {
    if (!started_) {
      SILT_ASSIGN_OR_RETURN(upload_, store_->StartParts(key_));
      started_ = true;
    }
    SILT_ASSIGN_OR_RETURN(std::string id,
                          store_->PutPart(key_, upload_, static_cast<int>(parts_.size()), buffer_));
    parts_.push_back(std::move(id));
    buffer_.clear();
    return Status::OK();
  }
  HttpObjectStore* store_;
  std::string key_;
  std::string upload_;
  std::vector<std::string> parts_;
  std::string buffer_;
  int64_t written_ = 0;
  bool started_ = false;
  bool closed_ = false;
  bool completed_ = false;
};

std::string DirPrefix(const std::string& dir) {
  std::string prefix = dir;
  if (!prefix.empty() && prefix.back() != '/') prefix.push_back('/');
  return prefix;
}

}  // namespace

HttpObjectStore::HttpObjectStore(const std::string& canonical, const std::string& path,
                                 HttpOptions http, Traits traits)
    : root_(canonical + "/"),
      prefix_(path.empty() ? "" : path + "/"),
      traits_(std::move(traits)),
      http_(std::make_unique<HttpClient>(std::move(http))) {}

Result<HttpResponse> HttpObjectStore::Call(const std::string& method, const std::string& name,
                                           std::vector<std::pair<std::string, std::string>> query,
                                           Headers headers, std::string_view body, RequestKind kind,
                                           const std::string& what, bool* ambiguous, uint8_t* out,
                                           int64_t out_capacity) {
  auto build = [&]() -> Result<HttpRequest> {
    SILT_ASSIGN_OR_RETURN(HttpRequest r, BuildRequest(method, name, query, headers, body));
    r.out = out;
    r.out_capacity = out_capacity;
    return r;
  };
  Result<HttpResponse> r = http_->SendWithRetries(build, kind, what, ambiguous);
  if (r.ok() && Redirected(*r)) r = http_->SendWithRetries(build, kind, what, ambiguous);
  return r;
}

Status HttpObjectStore::ErrorFor(const HttpResponse& r, const std::string& what,
                                 const std::string& key) const {
  std::string code = ErrorCode(r);
  std::string msg = what + " " + Describe(key) + ": HTTP " + std::to_string(r.status) +
                    (code.empty() ? "" : " " + code) + ErrorHint(r.status, code);
  return Status::IoError(msg,
                         r.status == 401 || r.status == 403 ? kErrorCloudAuth : kErrorCloudStorage);
}

Status HttpObjectStore::CreateConflict(const std::string& key, std::string_view data,
                                       bool ambiguous) {
  if (ambiguous) {
    // An earlier attempt may have created it: our bytes there mean we won.
    Result<std::string> now = Get(key);
    if (now.ok() && *now == data) return Status::OK();
  }
  return Status::AlreadyExists("object already exists: " + Describe(key), kErrorFileAlreadyExists);
}

// ---- Reads -----------------------------------------------------------------------------------

Result<ObjectMeta> HttpObjectStore::Head(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  SILT_ASSIGN_OR_RETURN(HttpResponse r, Call("HEAD", ObjectName(key), {}, {}, {},
                                             RequestKind::kHead, "HEAD " + Describe(key)));
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

Result<std::string> HttpObjectStore::Get(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  SILT_ASSIGN_OR_RETURN(HttpResponse r, Call("GET", ObjectName(key), {}, {}, {}, RequestKind::kGet,
                                             "GET " + Describe(key)));
  if (r.status == 404)
    return Status::NotFound("object not found: " + Describe(key), kErrorFileNotFound);
  if (r.status != 200) return ErrorFor(r, "GET", key);
  return std::move(r.body);
}

namespace {

// A Parquet object in a _delta_log/ directory at any depth of the key: a checkpoint (classic,
// multi-part or V2) or a sidecar in _delta_log/_sidecars/.
bool IsLogParquet(std::string_view key) {
  if (!key.ends_with(".parquet")) return false;
  size_t at = key.find("_delta_log/");
  while (at != std::string_view::npos && at != 0 && key[at - 1] != '/')
    at = key.find("_delta_log/", at + 1);
  return at != std::string_view::npos;
}

}  // namespace

Result<std::shared_ptr<RandomAccessFile>> HttpObjectStore::OpenRead(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  auto empty = [&]() {
    return std::shared_ptr<RandomAccessFile>(std::make_shared<HttpReadFile>(this, key, 0, "", ""));
  };
  int64_t want = std::max<int64_t>(
      1, IsLogParquet(key) ? traits_.log_parquet_prefetch_bytes : traits_.prefetch_bytes);
  Result<HttpResponse> first = Call("GET", ObjectName(key), {},
                                    {{traits_.range_header, "bytes=0-" + std::to_string(want - 1)}},
                                    {}, RequestKind::kGet, "GET " + Describe(key));
  if (!first.ok()) {
    // Some endpoints (s3rver) answer a ranged GET of an empty object with a truncated 206
    // instead of 416: an empty object is still an empty object.
    Result<ObjectMeta> m = Head(key);
    if (m.ok() && m->size == 0) return empty();
    return first.status();
  }
  HttpResponse r = std::move(*first);
  if (r.status == 404)
    return Status::NotFound("object not found: " + Describe(key), kErrorFileNotFound);
  if (r.status == 416) {
    // A range from 0 is unsatisfiable only for an empty object.
    SILT_ASSIGN_OR_RETURN(ObjectMeta m, Head(key));
    if (m.size != 0) return ErrorFor(r, "GET", key);
    return empty();
  }
  if (r.status != 200 && r.status != 206) return ErrorFor(r, "GET", key);
  int64_t size = static_cast<int64_t>(r.body.size());
  if (r.status == 206) {
    std::string_view range = r.Header("content-range");  // "bytes 0-N/TOTAL"
    size_t slash = range.rfind('/');
    if (slash == std::string_view::npos) return ErrorFor(r, "GET (no Content-Range)", key);
    size = std::strtoll(std::string(range.substr(slash + 1)).c_str(), nullptr, 10);
  }
  std::string etag(r.Header("etag"));
  return std::shared_ptr<RandomAccessFile>(
      std::make_shared<HttpReadFile>(this, key, size, std::move(etag), std::move(r.body)));
}

// ---- Writes ----------------------------------------------------------------------------------

Status HttpObjectStore::WriteObject(const std::string& key, std::string_view data, bool if_absent) {
  if (static_cast<int64_t>(data.size()) > traits_.single_put_limit) {
    SILT_ASSIGN_OR_RETURN(std::string upload, StartParts(key));
    std::vector<std::string> parts;
    size_t part = static_cast<size_t>(std::max<int64_t>(1, traits_.part_size));
    for (size_t pos = 0; pos < data.size(); pos += part) {
      Result<std::string> id =
          PutPart(key, upload, static_cast<int>(parts.size()), data.substr(pos, part));
      if (!id.ok()) {
        AbortParts(key, upload);
        return id.status();
      }
      parts.push_back(std::move(*id));
    }
    Status st = CompleteParts(key, upload, parts, if_absent, data);
    if (!st.ok() && !st.IsAlreadyExists()) AbortParts(key, upload);
    return st;
  }
  Headers headers = traits_.put_headers;
  if (if_absent) headers.emplace_back("If-None-Match", "*");
  bool ambiguous = false;
  SILT_ASSIGN_OR_RETURN(HttpResponse r,
                        Call("PUT", ObjectName(key), {}, headers, data, RequestKind::kPut,
                             "PUT " + Describe(key), &ambiguous));
  if (r.status == traits_.put_ok_status) return Status::OK();
  if (if_absent && (r.status == 409 || r.status == 412))
    return CreateConflict(key, data, ambiguous);
  return ErrorFor(r, "PUT", key);
}

Status HttpObjectStore::Put(const std::string& key, std::string_view data) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  return WriteObject(key, data, /*if_absent=*/false);
}

Result<std::unique_ptr<WritableFile>> HttpObjectStore::OpenWrite(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  return std::unique_ptr<WritableFile>(std::make_unique<HttpWriteFile>(this, key));
}

// ---- Deletes ---------------------------------------------------------------------------------

Status HttpObjectStore::Delete(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  SILT_ASSIGN_OR_RETURN(HttpResponse r, Call("DELETE", ObjectName(key), {}, {}, {},
                                             RequestKind::kDelete, "DELETE " + Describe(key)));
  if ((r.status >= 200 && r.status < 300) || r.status == 404) return Status::OK();
  return ErrorFor(r, "DELETE", key);
}

void HttpObjectStore::DeleteKeys(std::span<const std::string_view> keys,
                                 std::span<Status> statuses) {
  std::vector<size_t> todo;
  for (size_t i = 0; i < keys.size(); ++i) {
    statuses[i] = ValidateObjectKey(keys[i]);
    if (statuses[i].ok()) todo.push_back(i);
  }
  size_t per =
      static_cast<size_t>(std::clamp(traits_.delete_batch_size, 0, traits_.max_delete_batch));
  for (size_t begin = 0; begin < todo.size();) {
    size_t n = per == 0 ? 1 : std::min(per, todo.size() - begin);
    std::span<const size_t> chunk(todo.data() + begin, n);
    if (n < 2 || !DeleteBatch(keys, chunk, statuses).ok()) {
      for (size_t i : chunk) statuses[i] = Delete(std::string(keys[i]));
    }
    begin += n;
  }
}

Result<int64_t> HttpObjectStore::DeleteEmptyDirs(const std::string& dir) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
  return int64_t{0};
}

Status HttpObjectStore::DeleteDir(const std::string& dir) {
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

// ---- Listing ---------------------------------------------------------------------------------

namespace {

// The longest prefix of `key` without its last character (whole UTF-8 sequences), for an
// exclusive start-after: every key >= `key` sorts after it.
std::string StartAfterFor(const std::string& key) {
  if (key.empty()) return "";
  size_t n = key.size() - 1;
  while (n > 0 && (static_cast<unsigned char>(key[n]) & 0xC0) == 0x80) --n;
  return key.substr(0, n);
}

bool KeyOrder(const ObjectMeta& a, const ObjectMeta& b) { return a.key < b.key; }

}  // namespace

Result<std::vector<ObjectMeta>> HttpObjectStore::ListFrom(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key, /*allow_dir=*/true));
  std::string dir = key.substr(0, key.rfind('/') == std::string::npos ? 0 : key.rfind('/') + 1);
  std::string start_after = key.size() > dir.size() ? StartAfterFor(key) : "";
  if (start_after.size() < dir.size()) start_after.clear();
  std::vector<ObjectMeta> out;
  std::string token;
  do {
    SILT_ASSIGN_OR_RETURN(
        Page page, ListPage(dir, /*delimited=*/true, token, start_after, traits_.list_page_size));
    for (auto& m : page.objects) {
      if (m.key >= key && m.key.find('/', dir.size()) == std::string::npos)
        out.push_back(std::move(m));
    }
    token = page.next_token;
  } while (!token.empty());
  std::sort(out.begin(), out.end(), KeyOrder);
  return out;
}

Status HttpObjectStore::ListRecursive(const std::string& dir, const ObjectVisitor& visit) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
  std::string prefix = DirPrefix(dir);
  cloud::ImpliedDirs dirs(prefix);
  std::string token;
  do {
    SILT_ASSIGN_OR_RETURN(Page page,
                          ListPage(prefix, /*delimited=*/false, token, "", traits_.list_page_size));
    // The services list in UTF-8 binary order; some emulators (s3rver) walk their directories
    // instead, which puts "p=1/x" before "p=1.txt" within a page.
    std::sort(page.objects.begin(), page.objects.end(), KeyOrder);
    for (const ObjectMeta& m : page.objects) {
      if (!m.key.starts_with(prefix)) continue;
      SILT_RETURN_NOT_OK(dirs.Visit(m, visit));
    }
    token = page.next_token;
  } while (!token.empty());
  return Status::OK();
}

Result<std::vector<std::string>> HttpObjectStore::ListDirs(const std::string& dir) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
  std::string prefix = DirPrefix(dir);
  std::vector<std::string> out;
  std::string token;
  do {
    SILT_ASSIGN_OR_RETURN(Page page,
                          ListPage(prefix, /*delimited=*/true, token, "", traits_.list_page_size));
    for (const auto& p : page.prefixes) {
      if (p.size() > prefix.size() + 1 && p.starts_with(prefix)) {
        out.push_back(p.substr(prefix.size(), p.size() - prefix.size() - 1));
      }
    }
    token = page.next_token;
  } while (!token.empty());
  std::sort(out.begin(), out.end());
  return out;
}

Result<bool> HttpObjectStore::DirExists(const std::string& dir) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
  SILT_ASSIGN_OR_RETURN(Page page, ListPage(DirPrefix(dir), /*delimited=*/false, "", "",
                                            std::max(1, traits_.dir_probe_page_size)));
  return !page.objects.empty();
}

}  // namespace silt
