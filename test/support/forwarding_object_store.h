// ForwardingObjectStore: test support (not in the production library). Forwards every
// ObjectStore call to an inner store, so a test store overrides only the calls it changes (a
// listing that lags or hides keys) or observes (OnCall: counting, crashing at the n-th call).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/object_store.h"

namespace silt {

class ForwardingObjectStore : public ObjectStore {
 public:
  explicit ForwardingObjectStore(std::shared_ptr<ObjectStore> inner) : inner_(std::move(inner)) {}

  ObjectStore& inner() const { return *inner_; }
  const std::shared_ptr<ObjectStore>& inner_ptr() const { return inner_; }

  const std::string& root() const override { return inner_->root(); }
  Result<std::vector<ObjectMeta>> ListFrom(const std::string& key) override {
    OnCall();
    return inner_->ListFrom(key);
  }
  Status ListRecursive(const std::string& dir, const ObjectVisitor& visit) override {
    OnCall();
    return inner_->ListRecursive(dir, visit);
  }
  Status ListRecursiveSomeMeta(const std::string& dir, const ObjectVisitor& visit,
                               const std::function<bool(std::string_view key)>& need_meta,
                               ThreadPool* pool = nullptr) override {
    OnCall();
    return inner_->ListRecursiveSomeMeta(dir, visit, need_meta, pool);
  }
  Result<ObjectMeta> Head(const std::string& key) override {
    OnCall();
    return inner_->Head(key);
  }
  Result<std::string> Get(const std::string& key) override {
    OnCall();
    return inner_->Get(key);
  }
  Result<std::shared_ptr<RandomAccessFile>> OpenRead(const std::string& key) override {
    OnCall();
    return inner_->OpenRead(key);
  }
  Status Put(const std::string& key, std::string_view data) override {
    OnCall();
    return inner_->Put(key, data);
  }
  Status PutHint(const std::string& key, std::string_view data) override {
    OnCall();
    return inner_->PutHint(key, data);
  }
  Status PutIfAbsent(const std::string& key, std::string_view data) override {
    OnCall();
    return inner_->PutIfAbsent(key, data);
  }
  Result<std::unique_ptr<WritableFile>> OpenWrite(const std::string& key) override {
    OnCall();
    return inner_->OpenWrite(key);
  }
  Status Delete(const std::string& key) override {
    OnCall();
    return inner_->Delete(key);
  }
  void DeleteKeys(std::span<const std::string_view> keys, std::span<Status> statuses) override {
    OnCall();
    inner_->DeleteKeys(keys, statuses);
  }
  Result<int64_t> DeleteEmptyDirs(const std::string& dir) override {
    OnCall();
    return inner_->DeleteEmptyDirs(dir);
  }
  Status DeleteDir(const std::string& dir) override {
    OnCall();
    return inner_->DeleteDir(dir);
  }
  Result<std::vector<std::string>> ListDirs(const std::string& dir) override {
    OnCall();
    return inner_->ListDirs(dir);
  }
  Result<bool> DirExists(const std::string& dir) override {
    OnCall();
    return inner_->DirExists(dir);
  }
  Status RenameDir(const std::string& from, const std::string& to) override {
    OnCall();
    return inner_->RenameDir(from, to);
  }

 protected:
  // Runs before every forwarded call (root() excepted), in the calling thread. Default: nothing.
  virtual void OnCall() {}

 private:
  std::shared_ptr<ObjectStore> inner_;
};

}  // namespace silt
