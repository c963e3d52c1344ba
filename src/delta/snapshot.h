// Snapshot: the state of a Delta table at one version — protocol, metadata, schema and the live
// data files — reconstructed from a LogSegment by Delta's action reconciliation (newest action per
// (path, deletion vector) wins; latest protocol/metadata; latest txn per app; live domains).
//
// A Snapshot is immutable and safe to share between threads. It knows nothing of SQL.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "delta/actions.h"
#include "delta/log_segment.h"
#include "delta/schema_json.h"
#include "io/object_store.h"
#include "vector/types.h"

namespace silt {
struct ReadConfinement;  // io/read_confinement.h
}

namespace silt::delta {

struct SnapshotOptions {
  // Read the add/remove actions (false: only protocol, metadata and the small actions).
  bool load_files = true;
  // When set, absolute add/DV paths are read only inside the table root or its allowed prefixes
  // (io/read_confinement.h; silt.io.confineReadsToTableRoot).
  std::shared_ptr<const ReadConfinement> read_confinement = nullptr;
};

// One reconciled file action, as Snapshot::ForEachFileAction reports it (views valid during the
// call only).
struct FileActionRef {
  bool is_add = true;
  std::string_view path;  // as written in the log (percent-encoded URI or relative path)
  const DeletionVectorDescriptor* deletion_vector = nullptr;
  std::optional<int64_t> deletion_timestamp;  // removes only
  // The walk already found no '%' or ':' in path (no escape to decode, no scheme). False means
  // unchecked, not escaped.
  bool unescaped = false;
};
using FileActionVisitor = std::function<Status(const FileActionRef&)>;
// Makes a visitor for one task of a parallel walk (ForEachFileActionOn): each gets its own, so
// per-walk state (e.g. the last directory seen) needs no sharing.
using FileActionVisitorFactory = std::function<FileActionVisitor()>;

class Snapshot {
 public:
  // Loads `version` (latest when absent) of the table whose root is the store's root.
  static Result<std::shared_ptr<const Snapshot>> Load(std::shared_ptr<ObjectStore> store,
                                                      std::optional<int64_t> version = std::nullopt,
                                                      SnapshotOptions options = {});

  int64_t version() const { return segment_.version; }
  const LogSegment& segment() const { return segment_; }
  const Protocol& protocol() const { return protocol_; }
  const Metadata& metadata() const { return metadata_; }
  // The logical schema (from metaData.schemaString).
  const Schema& schema() const { return schema_; }
  const std::vector<std::string>& partition_columns() const { return metadata_.partition_columns; }
  ColumnMappingMode column_mapping_mode() const { return column_mapping_; }
  // Value of a table property (metaData.configuration), if set.
  std::optional<std::string> property(const std::string& key) const;

  // Live data files (order: as found during replay — deterministic for a given log).
  const std::vector<AddFile>& files() const { return files_; }
  // Tombstones: removes not superseded by a newer add of the same file.
  const std::vector<RemoveFile>& tombstones() const { return tombstones_; }
  // Whether files() and tombstones() were loaded (SnapshotOptions::load_files).
  bool files_loaded() const { return files_loaded_; }
  // Visits every live add and every tombstone (files() and tombstones(); order unspecified) with
  // only path, DV and deletionTimestamp. With the files loaded it walks them; without,
  // it replays the log's file actions again, streaming: of a Parquet checkpoint it decodes only
  // those columns, and it holds only the keys of the commits after the checkpoint, never the file
  // list (VACUUM of a 1M-file table needs a few paths, not 1M AddFiles). A non-OK return of
  // `visit` stops the walk and is returned.
  Status ForEachFileAction(const FileActionVisitor& visit) const;
  // The same walk split into tasks run on `pool` (null: in order on the caller): the commits,
  // then each page range of a checkpoint's add.path or row group of its other columns. Each task
  // visits with a visitor of its own from `make_visitor` (called on the task's thread), so
  // visitors run concurrently: what they share must be thread-safe.
  Status ForEachFileActionOn(ThreadPool* pool, const FileActionVisitorFactory& make_visitor) const;
  const std::map<std::string, SetTransaction>& transactions() const { return txns_; }
  const std::map<std::string, DomainMetadata>& domains() const { return domains_; }
  // Commit timestamp of this version: inCommitTimestamp when present, else the commit file's
  // modification time (ms since epoch); -1 when unknown.
  int64_t timestamp_ms() const { return timestamp_ms_; }
  const std::shared_ptr<ObjectStore>& store() const { return store_; }
  // SnapshotOptions::read_confinement (null: absolute paths are read wherever they point).
  const std::shared_ptr<const ReadConfinement>& read_confinement() const {
    return read_confinement_;
  }

  // delta::CheckWriteSupported for this snapshot's protocol and metadata (`table` names the table
  // in the error). The verdict is computed once per snapshot and `removes_data`: a statement's
  // early check and its commit (Transaction::Commit without a new protocol or metadata) share
  // it. Errors are not cached. Thread-safe.
  Status CheckWriteSupported(bool removes_data, const std::string& table) const;

 private:
  struct ReplayState;
  Status Replay(const SnapshotOptions& options);
  // Reconciles one action; checkpoint actions only lose against newer commits.
  void Apply(Action& a, bool from_checkpoint, ReplayState* st);
  Status ReadCheckpoint(const SnapshotOptions& options, ReplayState* st);
  Status ReadParquetCheckpoint(const std::string& key, bool load_files, ReplayState* st);
  static Status VisitFileAction(Action& a, bool from_checkpoint, ReplayState* st,
                                const FileActionVisitor& visit);
  Status VisitParquetCheckpoint(const std::string& key, ReplayState* st,
                                const FileActionVisitorFactory& make_visitor,
                                ThreadPool* pool) const;

  std::shared_ptr<ObjectStore> store_;
  std::shared_ptr<const ReadConfinement> read_confinement_;
  LogSegment segment_;
  Protocol protocol_;
  Metadata metadata_;
  Schema schema_;
  ColumnMappingMode column_mapping_ = ColumnMappingMode::kNone;
  std::vector<AddFile> files_;
  std::vector<RemoveFile> tombstones_;
  bool files_loaded_ = true;
  std::map<std::string, SetTransaction> txns_;
  std::map<std::string, DomainMetadata> domains_;
  int64_t timestamp_ms_ = -1;
  // Bit (1 << removes_data): CheckWriteSupported passed. A copy starts unchecked.
  struct WriteCheckMemo {
    mutable std::atomic<uint8_t> ok{0};
    WriteCheckMemo() = default;
    WriteCheckMemo(const WriteCheckMemo&) {}
    WriteCheckMemo& operator=(const WriteCheckMemo&) {
      ok = 0;
      return *this;
    }
  };
  WriteCheckMemo write_check_;
};

}  // namespace silt::delta
