// InMemoryObjectStore: the ObjectStore in memory (contracts in io/object_store.h). Named shared
// instances ("memory://<name>") are kept by the factory, io/object_store_factory.h.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "io/object_store.h"

namespace silt {

// Thread-safe object store in memory, for fast tests. Modification times come from `clock`
// (tests of retention pass a ManualClock). Emulates a file system's shape: a key cannot be both
// an object and a parent of other objects (IoError), so tests behave as on LocalObjectStore.
class InMemoryObjectStore final : public ObjectStore {
 public:
  // `clock` gives the modification times (required, not null). `root` names the store in
  // messages and root(): "memory://" (anonymous) or, for the named stores of
  // io/object_store_factory.h, "memory://<name>/".
  explicit InMemoryObjectStore(std::shared_ptr<Clock> clock, std::string root = "memory://");

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
  Result<int64_t> DeleteEmptyDirs(const std::string& dir) override;
  Status DeleteDir(const std::string& dir) override;

  // Sets an object's modification time (tests of retention on files "written long ago").
  Status SetModificationTime(const std::string& key, int64_t millis);

 private:
  struct Entry {
    std::shared_ptr<const std::string> data;
    int64_t mtime_ms;
  };
  Status Store(const std::string& key, std::string_view data, bool if_absent);
  Status CheckShapeLocked(const std::string& key) const;

  std::shared_ptr<Clock> clock_;
  std::string root_;
  mutable std::mutex mu_;
  std::map<std::string, Entry, std::less<>> objects_;
};

}  // namespace silt
