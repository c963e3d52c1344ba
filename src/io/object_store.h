// ObjectStore: the storage seam of the Delta kernel, with the exact contracts the commit protocol
// needs (Delta protocol "Commit protocol / storage requirements"; delta-kernel-rs StorageHandler):
// sorted listing from a key, atomic whole-object visibility, exclusive create, idempotent delete,
// ranged reads.
//
// Keys. A key names an object relative to the store root: '/'-separated segments, no leading '/',
// no empty, "." or ".." segment, no NUL byte (violations: InvalidArgument, class
// kErrorInvalidObjectKey). Keys are raw bytes: no percent-decoding happens here (see io/path.h for
// turning `add.path` URIs into keys). Order is bytewise (== code-point order for UTF-8).
// A "directory" argument is "" (the root) or a key, optionally ending in '/'.
//
// Errors. Missing object: NotFound, class kErrorFileNotFound. Exclusive create lost:
// AlreadyExists, class kErrorFileAlreadyExists. Anything else the storage reports: IoError. Every
// message names the key (and the store's root()).
//
// Directories. Object stores have none; the local file system does. Listings never report an
// object for a directory, writes create missing parent directories, and a directory is never a
// NotFound-vs-exists trap: Head/Get of a directory key is NotFound, Delete of it is OK.
// DeleteEmptyDirs removes what VACUUM leaves behind.
//
// Hidden names. Stores that stage writes (LocalObjectStore) do so in hidden temp objects named
// ".<name>.<random>.tmp" in the target's directory; a listing may show them while a write is in
// flight or after a crash. Callers skip names starting with '.' (the Delta spec requires that
// anyway: a listing may contain temp files).
//
// Thread safety: every implementation is safe for concurrent use by many threads and (Local) many
// processes. Handles it returns (RandomAccessFile, WritableFile) follow file.h's rules.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "io/file.h"

namespace silt {

class ThreadPool;

inline constexpr char kErrorFileNotFound[] = "DELTA_FILE_NOT_FOUND";
inline constexpr char kErrorFileAlreadyExists[] = "DELTA_FILE_ALREADY_EXISTS";
inline constexpr char kErrorInvalidObjectKey[] = "SILT_INVALID_OBJECT_KEY";
inline constexpr char kErrorInjectedFault[] = "SILT_INJECTED_FAULT";
inline constexpr char kErrorDirectoryNotEmpty[] = "SILT_DIRECTORY_NOT_EMPTY";

struct ObjectMeta {
  std::string key;
  int64_t size = 0;                  // bytes; 0 for directories
  int64_t modification_time_ms = 0;  // ms since the Unix epoch (local: st_mtime)
  bool is_dir = false;               // only ListRecursive reports directories
  bool operator==(const ObjectMeta&) const = default;
};

// Called once per entry by ListRecursive; a non-OK return stops the listing and is returned.
using ObjectVisitor = std::function<Status(const ObjectMeta&)>;

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  // Where the store lives, for messages: "file:///abs/path/" or "memory://".
  virtual const std::string& root() const = 0;

  // delta-kernel-rs `list_from`: the objects directly in the directory containing `key` (the part
  // up to and including its last '/', the root if none) whose key is >= `key`, sorted bytewise by
  // key. `key` ending in '/' or empty lists the whole directory. Subdirectories and their contents
  // are not reported. A missing directory lists as empty (object stores cannot tell them apart).
  virtual Result<std::vector<ObjectMeta>> ListFrom(const std::string& key) = 0;

  // Every object below directory `dir`, recursively, plus the directories themselves
  // (is_dir = true, key without a trailing '/'; Local reports real directories, empty ones too;
  // InMemory the ones implied by keys). Entries come in bytewise order of key, where a directory
  // sorts as its key + "/" and so right before its contents. Streams: memory is bounded by one
  // directory's entries per level, never the whole tree. Entries created or removed during the
  // walk may or may not be seen; the visitor may call back into the store (e.g. Delete).
  // A missing `dir` visits nothing.
  virtual Status ListRecursive(const std::string& dir, const ObjectVisitor& visit) = 0;

  // ListRecursive for callers that need size and modification time of only some files (VACUUM:
  // not of the live ones): a file whose key `need_meta` rejects may be reported with size 0 and
  // modification_time_ms 0, which lets a store skip fetching them (Local: no stat per file when
  // readdir tells the type). Same entries as ListRecursive otherwise.
  // With a `pool`, a store may list directories in parallel on it (Local does): the entries are
  // the same but their order is unspecified (one directory's entries still come together, in key
  // order, and a directory before its contents); `visit` is still called only in the caller's
  // thread, never concurrently, while `need_meta` may run on pool threads concurrently. Memory
  // stays bounded by a few directories' entries and a bounded queue of pending directories.
  // Default: ListRecursive (sequential, key order; a paged cloud listing fits here).
  virtual Status ListRecursiveSomeMeta(const std::string& dir, const ObjectVisitor& visit,
                                       const std::function<bool(std::string_view key)>& need_meta,
                                       ThreadPool* pool = nullptr) {
    (void)need_meta;
    (void)pool;
    return ListRecursive(dir, visit);
  }

  // Size and modification time of one object; NotFound when it does not exist.
  virtual Result<ObjectMeta> Head(const std::string& key) = 0;

  // The whole object.
  virtual Result<std::string> Get(const std::string& key) = 0;

  // A handle for ranged reads (RandomAccessFile::ReadAt). It reads the object as it was when
  // opened (local: the open inode; later overwrites replace the name, not the bytes).
  virtual Result<std::shared_ptr<RandomAccessFile>> OpenRead(const std::string& key) = 0;

  // Creates or replaces the object atomically: readers see the old or the new bytes, never a mix
  // or a prefix. Durable when it returns OK.
  virtual Status Put(const std::string& key, std::string_view data) = 0;

  // Put of a hint whose loss in a crash is harmless (_delta_log/_last_vacuum_info): as atomic
  // for readers, but a store may skip making it durable (local: no fsync, as Hadoop's local file
  // system writes it for Spark). After a crash the key may hold the old bytes, or be empty.
  virtual Status PutHint(const std::string& key, std::string_view data) { return Put(key, data); }

  // Creates the object only if no object has that key: AlreadyExists (kErrorFileAlreadyExists)
  // otherwise. Atomic and exclusive: of concurrent callers (threads or processes) exactly one
  // succeeds; no reader ever sees a partial object. This is the Delta commit primitive.
  virtual Status PutIfAbsent(const std::string& key, std::string_view data) = 0;

  // Streams a (large) object. Nothing is visible under `key` until Close returns OK; then the
  // object appears atomically, replacing any previous one (data files have unique names).
  // Destroying the writer without a successful Close abandons the write. A writer must be closed
  // or destroyed before the store is.
  virtual Result<std::unique_ptr<WritableFile>> OpenWrite(const std::string& key) = 0;

  // Removes the object. A missing key (or a directory key) is OK: delete is idempotent.
  virtual Status Delete(const std::string& key) = 0;

  // Deletes keys[i] as Delete would and puts its outcome in statuses[i] (same size), in the
  // caller's thread. Local opens a directory once for consecutive keys in it (sort the keys);
  // the default calls Delete per key, so faults injected there apply.
  virtual void DeleteKeys(std::span<const std::string_view> keys, std::span<Status> statuses);

  // Deletes every key (on `pool` when given, else in the caller's thread). All keys are attempted;
  // returns the first failure by index. Implemented on Delete, so faults injected there apply.
  Status DeleteMany(const std::vector<std::string>& keys, ThreadPool* pool = nullptr);

  // Removes every directory strictly below `dir` that is empty or holds only empty directories,
  // deepest first; `dir` itself stays. Returns how many were removed. A directory that gains an
  // entry concurrently is kept. Stores without directories return 0.
  virtual Result<int64_t> DeleteEmptyDirs(const std::string& dir) = 0;

  // Removes the one directory `dir` (a non-empty key, optionally ending in '/'), never its
  // contents: OK when it was removed or does not exist; IoError (kErrorDirectoryNotEmpty) when it
  // still holds an object or a directory — the non-recursive delete VACUUM needs to remove a
  // directory it found empty without racing writers that fill it meanwhile. Stores without
  // directories treat a directory as existing while some key lies below it.
  virtual Status DeleteDir(const std::string& dir) = 0;
};

// Validates an object key (see the contract above). `allow_dir` admits "" and a trailing '/'.
Status ValidateObjectKey(std::string_view key, bool allow_dir = false);

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
  Result<std::unique_ptr<WritableFile>> OpenWrite(const std::string& key) override;
  Status Delete(const std::string& key) override;
  void DeleteKeys(std::span<const std::string_view> keys, std::span<Status> statuses) override;
  Result<int64_t> DeleteEmptyDirs(const std::string& dir) override;
  Status DeleteDir(const std::string& dir) override;

 private:
  // A fresh hidden temp name beside `base` (O_EXCL makes collisions retry, not clobber).
  std::string TempName(std::string_view base);
  enum class PublishMode { kOverwrite, kIfAbsent };
  // durable: fsync the object and its directory before returning.
  Status WriteObject(const std::string& key, std::string_view data, PublishMode mode, bool durable = true);

  std::string root_path_;  // no trailing '/' (except "/")
  std::string root_uri_;
  std::mutex rng_mu_;
  std::mt19937_64 rng_;
};

// Thread-safe object store in memory, for fast tests. Modification times come from `clock`
// (tests of retention pass a ManualClock). Emulates a file system's shape: a key cannot be both
// an object and a parent of other objects (IoError), so tests behave as on LocalObjectStore.
class InMemoryObjectStore final : public ObjectStore {
 public:
  // `clock` gives the modification times (required, not null).
  explicit InMemoryObjectStore(std::shared_ptr<Clock> clock);

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
  std::string root_ = "memory://";
  mutable std::mutex mu_;
  std::map<std::string, Entry, std::less<>> objects_;
};

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

  // Shared with the handles the store hands out (they count and fail ReadAt and Close).
  struct Injector;

 private:
  std::shared_ptr<ObjectStore> inner_;
  std::shared_ptr<Injector> injector_;
};

// An object store for a table root given as a local path or a file: URI (io/path.h); "memory://"
// gives a fresh InMemoryObjectStore whose modification times come from `clock`. Other schemes:
// NotImplemented.
Result<std::shared_ptr<ObjectStore>> OpenObjectStore(std::string_view root_uri_or_path,
                                                     std::shared_ptr<Clock> clock);

}  // namespace silt
