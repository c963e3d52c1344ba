#include "io/memory_object_store.h"

#include <cstring>

#include "io/object_store_internal.h"

namespace silt {

using store_internal::AlreadyExistsError;
using store_internal::DirPrefix;
using store_internal::NotFoundError;
using store_internal::SplitKey;

// ---------------------------------------------------------------------------------------------
// InMemoryObjectStore

namespace {

// Reads an immutable shared buffer: OpenRead costs no copy, and later overwrites do not change
// bytes under an open handle.
class SharedBufferFile final : public RandomAccessFile {
 public:
  SharedBufferFile(std::shared_ptr<const std::string> data, std::string name)
      : data_(std::move(data)), name_(std::move(name)) {}
  int64_t size() const override { return static_cast<int64_t>(data_->size()); }
  const std::string& name() const override { return name_; }
  Status ReadAt(int64_t offset, int64_t n, uint8_t* out) const override {
    if (offset < 0 || n < 0 || offset > size() || n > size() - offset)
      return Status::IoError("read of " + std::to_string(n) + " bytes at " +
                             std::to_string(offset) + " past the end of " + name_ + " (" +
                             std::to_string(size()) + " bytes)");
    if (n) std::memcpy(out, data_->data() + offset, static_cast<size_t>(n));
    return Status::OK();
  }

 private:
  std::shared_ptr<const std::string> data_;
  std::string name_;
};

class MemoryWriter final : public WritableFile {
 public:
  MemoryWriter(InMemoryObjectStore* store, std::string key) : store_(store), key_(std::move(key)) {}
  Status Append(std::string_view data) override {
    if (closed_) return Status::IoError("write to closed object " + key_);
    buf_.append(data);
    return Status::OK();
  }
  Status Close() override {
    if (closed_) return Status::OK();
    closed_ = true;
    return store_->Put(key_, buf_);
  }
  int64_t bytes_written() const override { return static_cast<int64_t>(buf_.size()); }

 private:
  InMemoryObjectStore* store_;
  std::string key_;
  std::string buf_;
  bool closed_ = false;
};

}  // namespace

InMemoryObjectStore::InMemoryObjectStore(std::shared_ptr<Clock> clock, std::string root)
    : clock_(std::move(clock)), root_(std::move(root)) {}

Result<std::vector<ObjectMeta>> InMemoryObjectStore::ListFrom(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key, /*allow_dir=*/true));
  std::string prefix = SplitKey(key).first;
  std::vector<ObjectMeta> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = objects_.lower_bound(key);
       it != objects_.end() && it->first.starts_with(prefix);) {
    size_t slash = it->first.find('/', prefix.size());
    if (slash != std::string::npos) {
      // Skip the whole subdirectory: its keys all start with "<sub>/"; '0' follows '/'.
      it = objects_.lower_bound(it->first.substr(0, slash) + "0");
      continue;
    }
    out.push_back(
        {it->first, static_cast<int64_t>(it->second.data->size()), it->second.mtime_ms, false});
    ++it;
  }
  return out;
}

Status InMemoryObjectStore::ListRecursive(const std::string& dir, const ObjectVisitor& visit) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
  const std::string prefix = DirPrefix(dir);
  constexpr size_t kBatch = 256;
  std::string cursor = prefix;         // next batch starts after this key (prefix itself is no key)
  std::vector<std::string> open_dirs;  // implied directories already reported, outermost first
  while (true) {
    std::vector<ObjectMeta> batch;
    {
      // Visit outside the lock: the visitor may call back into the store.
      std::lock_guard<std::mutex> lock(mu_);
      for (auto it = objects_.upper_bound(cursor);
           it != objects_.end() && it->first.starts_with(prefix) && batch.size() < kBatch; ++it) {
        batch.push_back(
            {it->first, static_cast<int64_t>(it->second.data->size()), it->second.mtime_ms, false});
      }
    }
    if (batch.empty()) return Status::OK();
    for (const auto& meta : batch) {
      while (!open_dirs.empty() && !meta.key.starts_with(open_dirs.back() + "/"))
        open_dirs.pop_back();
      for (size_t pos = open_dirs.empty() ? prefix.size() : open_dirs.back().size() + 1;
           (pos = meta.key.find('/', pos)) != std::string::npos; ++pos) {
        open_dirs.push_back(meta.key.substr(0, pos));
        SILT_RETURN_NOT_OK(visit(ObjectMeta{open_dirs.back(), 0, 0, true}));
      }
      SILT_RETURN_NOT_OK(visit(meta));
    }
    cursor = batch.back().key;
  }
}

Result<ObjectMeta> InMemoryObjectStore::Head(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return NotFoundError(root_, key);
  return ObjectMeta{key, static_cast<int64_t>(it->second.data->size()), it->second.mtime_ms, false};
}

Result<std::string> InMemoryObjectStore::Get(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  std::shared_ptr<const std::string> data;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = objects_.find(key);
    if (it == objects_.end()) return NotFoundError(root_, key);
    data = it->second.data;
  }
  return *data;
}

Result<std::shared_ptr<RandomAccessFile>> InMemoryObjectStore::OpenRead(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return NotFoundError(root_, key);
  return std::shared_ptr<RandomAccessFile>(
      std::make_shared<SharedBufferFile>(it->second.data, root_ + key));
}

Status InMemoryObjectStore::CheckShapeLocked(const std::string& key) const {
  for (size_t pos = key.find('/'); pos != std::string::npos; pos = key.find('/', pos + 1)) {
    if (objects_.count(key.substr(0, pos)))
      return Status::IoError("cannot write " + root_ + key + ": " + key.substr(0, pos) +
                             " is an object, not a directory");
  }
  auto child = objects_.lower_bound(key + "/");
  if (child != objects_.end() && child->first.starts_with(key + "/"))
    return Status::IoError("cannot write " + root_ + key + ": it is a directory");
  return Status::OK();
}

Status InMemoryObjectStore::Store(const std::string& key, std::string_view data, bool if_absent) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  auto bytes = std::make_shared<const std::string>(data);  // copy outside the lock
  int64_t now = clock_->NowMillis();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(key);
  if (it != objects_.end()) {
    if (if_absent) return AlreadyExistsError(root_, key);
    it->second = Entry{std::move(bytes), now};
    return Status::OK();
  }
  SILT_RETURN_NOT_OK(CheckShapeLocked(key));
  objects_.emplace(key, Entry{std::move(bytes), now});
  return Status::OK();
}

Status InMemoryObjectStore::Put(const std::string& key, std::string_view data) {
  return Store(key, data, /*if_absent=*/false);
}

Status InMemoryObjectStore::PutIfAbsent(const std::string& key, std::string_view data) {
  return Store(key, data, /*if_absent=*/true);
}

Result<std::unique_ptr<WritableFile>> InMemoryObjectStore::OpenWrite(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  return std::unique_ptr<WritableFile>(std::make_unique<MemoryWriter>(this, key));
}

Status InMemoryObjectStore::Delete(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  std::lock_guard<std::mutex> lock(mu_);
  objects_.erase(key);
  return Status::OK();
}

Result<int64_t> InMemoryObjectStore::DeleteEmptyDirs(const std::string& dir) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
  return int64_t{0};
}

Status InMemoryObjectStore::DeleteDir(const std::string& dir) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
  if (dir.empty() || dir == "/")
    return Status::InvalidArgument("DeleteDir needs a directory below the root",
                                   kErrorInvalidObjectKey);
  const std::string prefix = dir.ends_with('/') ? dir : dir + "/";
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.lower_bound(prefix);
  if (it != objects_.end() && it->first.starts_with(prefix))
    return Status::IoError("directory " + root_ + prefix + " is not empty",
                           kErrorDirectoryNotEmpty);
  return Status::OK();
}

Status InMemoryObjectStore::SetModificationTime(const std::string& key, int64_t millis) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return NotFoundError(root_, key);
  it->second.mtime_ms = millis;
  return Status::OK();
}

}  // namespace silt
