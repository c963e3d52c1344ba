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
//
// Implementations: LocalObjectStore (io/local_object_store.h), InMemoryObjectStore
// (io/memory_object_store.h); FaultInjectingObjectStore is test support
// (test/support/fault_injecting_object_store.h). Code outside io/ does not construct them: it
// opens a location (local path, file:// or memory:// URI) with OpenObjectStore in
// io/object_store_factory.h. See docs/storage.md.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error_classes.h"
#include "common/status.h"
#include "io/file.h"

namespace silt {

class ThreadPool;

inline constexpr auto& kErrorFileNotFound = errc::kDeltaFileNotFound;
inline constexpr auto& kErrorFileAlreadyExists = errc::kDeltaFileAlreadyExists;
inline constexpr auto& kErrorInvalidObjectKey = errc::kSiltInvalidObjectKey;
inline constexpr auto& kErrorDirectoryNotEmpty = errc::kSiltDirectoryNotEmpty;

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
  //
  // What a listing may miss (every listing here, ListRecursive* and ListDirs too): it reports
  // every object that existed for the whole listing (created before it began, not deleted before
  // it ended). An object created or deleted while the listing runs may or may not be reported,
  // independently of every other one: a listing can miss key A and report key B although B was
  // created after A (a readdir on ext4 walks hash order, not creation order; paged cloud
  // listings behave alike). So a listing is not a snapshot of the directory. Callers that need a
  // gap-free sequence (the Delta log's commits: delta/log_listing.h FillCommitGaps) list
  // again or Head the keys missing between reported ones; only a key that a later Head does not
  // find is really absent.
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

  // PutIfAbsent whose object is published only after `before_publish` returned OK: a commit that
  // must not appear before other objects it references are durable (a DELETE's deletion-vector
  // file, written meanwhile on another thread). A store may stage and sync the object's bytes
  // first, so that its own sync overlaps the wait (Local does); nothing is visible under `key`
  // before `before_publish` returns, and when it fails, the object is abandoned and its status
  // returned. `before_publish` is called at most once. Default: before_publish(), then
  // PutIfAbsent (so a wrapper that injects faults into PutIfAbsent still sees the commit).
  virtual Status PutIfAbsentAfter(const std::string& key, std::string_view data,
                                  const std::function<Status()>& before_publish);

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

  // The names (one segment, no '/') of the directories directly in `dir`, sorted bytewise; S3's
  // CommonPrefixes of a delimiter listing. Local: real directories (empty ones too, symlinks
  // skipped); stores without directories: the ones implied by keys. A missing `dir` has none.
  // Default: from ListRecursive (correct, but walks the whole subtree).
  virtual Result<std::vector<std::string>> ListDirs(const std::string& dir);

  // Whether directory `dir` ("" = the root) exists: Local asks the file system (an empty
  // directory exists); stores without directories: while some object lies below it.
  // Default: from ListRecursive, stopping at the first entry.
  virtual Result<bool> DirExists(const std::string& dir);

  // Moves every object below directory `from` to the same key below `to` (ALTER TABLE RENAME of a
  // managed table). `to` must not hold objects yet (IoError, kErrorFileAlreadyExists otherwise).
  // Local: one rename(2) of the directory (atomic). Default: copies each object (streamed, so
  // memory stays bounded) and deletes the source afterwards — not atomic, as on an object store;
  // after a failure the objects copied so far stay under `to`.
  virtual Status RenameDir(const std::string& from, const std::string& to);
};

// Deletes directory `dir` of `store` with everything below it (hidden objects included): every
// object, then the emptied directories, then `dir` itself unless it is the root (""). A missing
// `dir` is OK. Returns the first failure after attempting every object.
Status DeleteTree(ObjectStore& store, const std::string& dir);

// Validates an object key (see the contract above). `allow_dir` admits "" and a trailing '/'.
Status ValidateObjectKey(std::string_view key, bool allow_dir = false);

}  // namespace silt
