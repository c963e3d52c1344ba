#include "io/object_store.h"

#include <algorithm>
#include <set>

#include "common/thread_pool.h"
#include "io/object_store_internal.h"
#include "io/path.h"

namespace silt {

// ---------------------------------------------------------------------------------------------
// Keys

Status ValidateObjectKey(std::string_view key, bool allow_dir) {
  auto bad = [&](const char* why) {
    return Status::InvalidArgument("invalid object key '" + std::string(key) + "': " + why,
                                   kErrorInvalidObjectKey);
  };
  if (key.empty()) return allow_dir ? Status::OK() : bad("empty");
  if (key.front() == '/') return bad("starts with '/'");
  if (key.find('\0') != std::string_view::npos) return bad("contains a NUL byte");
  std::string_view rest = key;
  if (rest.back() == '/') {
    if (!allow_dir) return bad("ends with '/'");
    rest.remove_suffix(1);
  }
  size_t start = 0;
  while (true) {
    size_t end = rest.find('/', start);
    std::string_view seg = rest.substr(start, end == std::string_view::npos ? end : end - start);
    if (seg.empty()) return bad("has an empty segment");
    if (seg == "." || seg == "..") return bad("has a '.' or '..' segment");
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return Status::OK();
}

namespace store_internal {

// "a/b/c" -> {"a/b/", "c"}; "c" -> {"", "c"}; "a/" -> {"a/", ""}.
std::pair<std::string, std::string> SplitKey(const std::string& key) {
  size_t slash = key.rfind('/');
  if (slash == std::string::npos) return {"", key};
  return {key.substr(0, slash + 1), key.substr(slash + 1)};
}

// Directory segments of a directory prefix ("a/b/" or "a/b") -> {"a", "b"}.
std::vector<std::string> DirSegments(std::string_view dir) {
  std::vector<std::string> segs;
  size_t start = 0;
  while (start < dir.size()) {
    size_t end = dir.find('/', start);
    if (end == std::string_view::npos) end = dir.size();
    if (end > start) segs.emplace_back(dir.substr(start, end - start));
    start = end + 1;
  }
  return segs;
}

// "a/b" or "a/b/" -> "a/b/"; "" -> "".
std::string DirPrefix(std::string_view dir) {
  std::string p(dir);
  if (!p.empty() && p.back() != '/') p.push_back('/');
  return p;
}

Status NotFoundError(const std::string& root, const std::string& key) {
  return Status::NotFound("object " + key + " not found in " + root, kErrorFileNotFound);
}

Status AlreadyExistsError(const std::string& root, const std::string& key) {
  return Status::AlreadyExists("object " + key + " already exists in " + root,
                               kErrorFileAlreadyExists);
}

}  // namespace store_internal

Status ObjectStore::PutIfAbsentAfter(const std::string& key, std::string_view data,
                                     const std::function<Status()>& before_publish) {
  SILT_RETURN_NOT_OK(before_publish());
  return PutIfAbsent(key, data);
}

void ObjectStore::DeleteKeys(std::span<const std::string_view> keys, std::span<Status> statuses) {
  for (size_t i = 0; i < keys.size(); ++i) statuses[i] = Delete(std::string(keys[i]));
}

Status ObjectStore::DeleteMany(const std::vector<std::string>& keys, ThreadPool* pool) {
  if (pool) return pool->ParallelFor(keys.size(), [&](size_t i) { return Delete(keys[i]); });
  Status first;
  for (const auto& key : keys) {
    Status st = Delete(key);
    if (!st.ok() && first.ok()) first = std::move(st);
  }
  return first;
}

namespace {

// Stops a listing early; never escapes the functions below.
constexpr char kStopListing[] = "SILT_INTERNAL_STOP_LISTING";

bool IsStop(const Status& st) {
  return st.code() == StatusCode::kInternal && st.message() == kStopListing;
}

}  // namespace

Result<std::vector<std::string>> ObjectStore::ListDirs(const std::string& dir) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
  const std::string prefix = store_internal::DirPrefix(dir);
  std::set<std::string> names;
  SILT_RETURN_NOT_OK(ListRecursive(dir, [&](const ObjectMeta& m) -> Status {
    if (!m.key.starts_with(prefix)) return Status::OK();
    std::string_view rest = std::string_view(m.key).substr(prefix.size());
    size_t slash = rest.find('/');
    if (slash != std::string_view::npos) {
      names.emplace(rest.substr(0, slash));
    } else if (m.is_dir) {
      names.emplace(rest);
    }
    return Status::OK();
  }));
  return std::vector<std::string>(names.begin(), names.end());
}

Result<bool> ObjectStore::DirExists(const std::string& dir) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
  bool found = false;
  Status st = ListRecursive(dir, [&](const ObjectMeta&) -> Status {
    found = true;
    return Status::Internal(kStopListing);
  });
  if (!st.ok() && !IsStop(st)) return st;
  return found;
}

Status ObjectStore::RenameDir(const std::string& from, const std::string& to) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(from, /*allow_dir=*/true));
  SILT_RETURN_NOT_OK(ValidateObjectKey(to, /*allow_dir=*/true));
  const std::string from_prefix = store_internal::DirPrefix(from);
  const std::string to_prefix = store_internal::DirPrefix(to);
  if (from_prefix.empty() || to_prefix.empty() || to_prefix.starts_with(from_prefix) ||
      from_prefix.starts_with(to_prefix)) {
    return Status::InvalidArgument(
        "cannot move directory '" + from + "' to '" + to + "' in " + root(),
        kErrorInvalidObjectKey);
  }
  SILT_ASSIGN_OR_RETURN(bool target_exists, DirExists(to_prefix));
  if (target_exists) {
    return Status::IoError("cannot move " + root() + from_prefix + " to " + root() + to_prefix +
                               ": the target already exists",
                           kErrorFileAlreadyExists);
  }
  std::vector<std::string> keys;
  SILT_RETURN_NOT_OK(ListRecursive(from_prefix, [&](const ObjectMeta& m) -> Status {
    if (!m.is_dir) keys.push_back(m.key);
    return Status::OK();
  }));
  constexpr int64_t kChunk = int64_t{8} << 20;
  std::string buf;
  for (const std::string& key : keys) {
    std::string target = to_prefix + key.substr(from_prefix.size());
    SILT_ASSIGN_OR_RETURN(std::shared_ptr<RandomAccessFile> in, OpenRead(key));
    SILT_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> out, OpenWrite(target));
    for (int64_t off = 0; off < in->size(); off += kChunk) {
      int64_t n = std::min(kChunk, in->size() - off);
      buf.resize(static_cast<size_t>(n));
      SILT_RETURN_NOT_OK(in->ReadAt(off, n, reinterpret_cast<uint8_t*>(buf.data())));
      SILT_RETURN_NOT_OK(out->Append(buf));
    }
    SILT_RETURN_NOT_OK(out->Close());
  }
  return DeleteTree(*this, from_prefix);
}

Status DeleteTree(ObjectStore& store, const std::string& dir) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
  std::vector<std::string> keys;
  SILT_RETURN_NOT_OK(store.ListRecursive(dir, [&](const ObjectMeta& m) -> Status {
    if (!m.is_dir) keys.push_back(m.key);
    return Status::OK();
  }));
  SILT_RETURN_NOT_OK(store.DeleteMany(keys));
  SILT_RETURN_NOT_OK(store.DeleteEmptyDirs(dir));
  if (dir.empty() || dir == "/") return Status::OK();
  return store.DeleteDir(dir);
}

}  // namespace silt
