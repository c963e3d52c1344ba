// FaultInjectingObjectStore: test support (not in the production library). Wraps any ObjectStore
// (io/object_store.h), counts its operations and injects failures, crashes and delays by rules.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/object_store.h"

namespace silt {

inline constexpr char kErrorInjectedFault[] = "SILT_INJECTED_FAULT";

}  // namespace silt

namespace silt {

// Operations a FaultInjectingObjectStore counts and can fail. DeleteMany counts one kDelete per
// key; kReadAt is one ReadAt on a handle from OpenRead; kWriteClose is Close of an OpenWrite
// writer (kOpenWrite is the open itself).
enum class ObjectOp : int {
  kListFrom,
  kListRecursive,
  kHead,
  kGet,
  kOpenRead,
  kReadAt,
  kPut,
  kPutIfAbsent,
  kOpenWrite,
  kWriteClose,
  kDelete,
  kDeleteEmptyDirs,
  kDeleteDir,
};
inline constexpr int kNumObjectOps = 13;
const char* ObjectOpName(ObjectOp op);

// One rule of a FaultInjectingObjectStore. A rule matches an operation of kind `op` (any kind
// when unset) whose key contains `key_contains`; of the matching operations the first `after`
// pass, then each one fires with `probability` (drawn from the store's seeded generator) until
// the rule has fired `max_faults` times (-1: no limit).
struct FaultRule {
  enum class Action {
    kFail,           // the operation does nothing and returns IoError (kErrorInjectedFault)
    kCrashMidWrite,  // Put/PutIfAbsent/OpenWrite: see below; other kinds: like kFail
    kDelay,          // sleeps delay_ms, then runs the operation normally
  };
  Action action = Action::kFail;
  std::optional<ObjectOp> op;
  std::string key_contains;
  int64_t after = 0;
  double probability = 1.0;
  int64_t max_faults = -1;
  // kCrashMidWrite: how many bytes reach storage before the "crash" (-1: half of a Put's bytes;
  // OpenWrite: the crash hits the Append that crosses this count, or Close if never crossed;
  // -1 crashes at Close, after every appended byte reached storage but before publishing).
  // The bytes land in a hidden temp object ".<name>.crash-<n>.tmp" beside the key, the key itself
  // stays untouched, and the call returns IoError — what a crashed writer leaves on a store with
  // atomic visibility. With crash_leaves_visible_partial (OpenWrite only) the partial bytes land
  // under the key itself, simulating a store without atomic visibility.
  int64_t crash_after_bytes = -1;
  bool crash_leaves_visible_partial = false;
  int64_t delay_ms = 0;

  static FaultRule FailAll(std::optional<ObjectOp> op = std::nullopt) {
    FaultRule r;
    r.op = op;
    return r;
  }
  // Lets n matching operations succeed, then fails every later one.
  static FaultRule FailAfter(int64_t n, std::optional<ObjectOp> op = std::nullopt) {
    FaultRule r = FailAll(op);
    r.after = n;
    return r;
  }
  static FaultRule FailWithProbability(double p, std::optional<ObjectOp> op = std::nullopt) {
    FaultRule r = FailAll(op);
    r.probability = p;
    return r;
  }
  static FaultRule CrashMidWrite(ObjectOp op, int64_t after_bytes = -1) {
    FaultRule r = FailAll(op);
    r.action = Action::kCrashMidWrite;
    r.crash_after_bytes = after_bytes;
    return r;
  }
  static FaultRule Delay(int64_t ms, std::optional<ObjectOp> op = std::nullopt) {
    FaultRule r = FailAll(op);
    r.action = Action::kDelay;
    r.delay_ms = ms;
    return r;
  }
};

// Wraps a store, counts operations per kind and injects faults by rules (reliability tests).
// With no rules it behaves exactly like `inner`. Rules are checked in the order added; the first
// that fires decides. Thread-safe; rules may be changed while operations run.
class FaultInjectingObjectStore final : public ObjectStore {
 public:
  explicit FaultInjectingObjectStore(std::shared_ptr<ObjectStore> inner, uint64_t seed = 42);

  void AddRule(FaultRule rule);
  void ClearRules();
  // Operations attempted (failed ones included) per kind / in total; faults fired.
  int64_t op_count(ObjectOp op) const;
  int64_t total_ops() const;
  int64_t faults_injected() const;
  void ResetCounters();

  ObjectStore& inner() { return *inner_; }
  const std::string& root() const override { return inner_->root(); }

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
  // Count and fail as kListRecursive (they are listings); RenameDir keeps the default, so a move
  // is the copies and deletes it is made of, each counted and failed by its own kind.
  Result<std::vector<std::string>> ListDirs(const std::string& dir) override;
  Result<bool> DirExists(const std::string& dir) override;

  // Shared with the handles the store hands out (they count and fail ReadAt and Close).
  struct Injector;

 private:
  std::shared_ptr<ObjectStore> inner_;
  std::shared_ptr<Injector> injector_;
};

}  // namespace silt
