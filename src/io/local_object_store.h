// LocalObjectStore: the ObjectStore on a local POSIX file system (contracts in io/object_store.h).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/object_store.h"

namespace silt {

// Object store on a local POSIX file system below `root_path` (created on first write).
// Keys map to files below the root; no symlink inside the root is followed (a key whose path
// crosses one is InvalidArgument; listings skip them), so a key never escapes the root.
// Writes go to a hidden temp file in the target directory, are fsync'd, then published with
// rename (Put, OpenWrite) or renameat2(RENAME_NOREPLACE) / link (PutIfAbsent); the directory is
// fsync'd after publishing.
class LocalObjectStore final : public ObjectStore {
 public:
  explicit LocalObjectStore(std::string root_path);

  const std::string& root() const override { return root_uri_; }
  const std::string& root_path() const { return root_path_; }

  Result<std::vector<ObjectMeta>> ListFrom(const std::string& key) override;
  Status ListRecursive(const std::string& dir, const ObjectVisitor& visit) override;
  Status ListRecursiveSomeMeta(const std::string& dir, const ObjectVisitor& visit,
                               const std::function<bool(std::string_view key)>& need_meta,
                               ThreadPool* pool = nullptr) override;
  Result<ObjectMeta> Head(const std::string& key) override;
  Result<std::string> Get(const std::string& key) override;
  Result<std::shared_ptr<RandomAccessFile>> OpenRead(const std::string& key) override;
  Status Put(const std::string& key, std::string_view data) override;
  Status PutHint(const std::string& key, std::string_view data) override;
  Status PutIfAbsent(const std::string& key, std::string_view data) override;
  // Writes and fsyncs the temp file, then waits for `before_publish`, then publishes.
  Status PutIfAbsentAfter(const std::string& key, std::string_view data,
                          const std::function<Status()>& before_publish) override;
  Result<std::unique_ptr<WritableFile>> OpenWrite(const std::string& key) override;
  Status Delete(const std::string& key) override;
  void DeleteKeys(std::span<const std::string_view> keys, std::span<Status> statuses) override;
  Result<int64_t> DeleteEmptyDirs(const std::string& dir) override;
  Status DeleteDir(const std::string& dir) override;
  Result<std::vector<std::string>> ListDirs(const std::string& dir) override;
  Result<bool> DirExists(const std::string& dir) override;
  Status RenameDir(const std::string& from, const std::string& to) override;

 private:
  // A fresh hidden temp name beside `base` (O_EXCL makes collisions retry, not clobber).
  std::string TempName(std::string_view base);
  enum class PublishMode { kOverwrite, kIfAbsent };
  // durable: fsync the object and its directory before returning.
  // before_publish: called once the temp file is durable, before it is published; its failure
  // abandons the write.
  Status WriteObject(const std::string& key, std::string_view data, PublishMode mode,
                     bool durable = true, const std::function<Status()>* before_publish = nullptr);

  std::string root_path_;  // no trailing '/' (except "/")
  std::string root_uri_;
  std::mutex rng_mu_;
  std::mt19937_64 rng_;
};

}  // namespace silt
