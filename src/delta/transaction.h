// Transaction: one atomic commit to a Delta table. It collects actions against a read snapshot,
// writes `_delta_log/<version>.json` with put-if-absent, and when another writer won that
// version, checks the winning commits for logical conflicts (Delta's ConflictChecker rules) and
// retries at the next version when there are none. With row-level concurrency (the rules are in
// transaction.cc, above CheckConflicts, and in docs/concurrency.md) a loser whose deletion-vector
// update of a file lost to a winner's deletion-vector update of the same file merges the two
// DVs and retries, unless both changed the same row.
//
// Errors (Spark's exception classes as error classes): DELTA_CONCURRENT_APPEND,
// DELTA_CONCURRENT_DELETE_READ, DELTA_CONCURRENT_DELETE_DELETE, DELTA_METADATA_CHANGED,
// DELTA_PROTOCOL_CHANGED, DELTA_CONCURRENT_TRANSACTION (all StatusCode::kCommitConflict);
// storage failures as IoError. A failed commit leaves the table as it was (the commit file is
// the only thing a commit creates, and it appears atomically or not at all).
// Not thread-safe; use one Transaction per thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "delta/actions.h"
#include "delta/deletion_vector.h"
#include "delta/snapshot.h"
#include "io/object_store.h"

namespace silt::delta {

// What the transaction read, for conflict detection.
enum class ReadScope : uint8_t {
  kNothing,     // a blind append
  kPartitions,  // only files of the partitions in read_partitions (by partition values)
  kWholeTable,  // any new file could have changed the result
  kPredicate,   // only files for which the read predicate (SetReadPredicate) holds
};

// Could this (concurrently added) file hold rows the transaction would have read? DML passes
// its file-level pruning here, so appends its pruning would have skipped do not conflict.
using ReadFilePredicate = std::function<bool(const AddFile&)>;

struct TransactionOptions {
  // Commit timestamps, post-commit checkpoint and log cleanup. Required: the engine never reads the
  // system clock by itself; a null clock fails Commit with INTERNAL_ERROR.
  std::shared_ptr<Clock> clock;
  int max_attempts = 100;
  std::string engine_info = std::string("silt/") + SILT_VERSION;
  // commitInfo.isolationLevel and the conflict rules. "Serializable" (the default) follows the
  // table's delta.isolationLevel (TableIsolationLevel); OPTIMIZE passes "SnapshotIsolation".
  std::string isolation_level = "Serializable";
  // After a successful commit: write a checkpoint when delta.checkpointInterval says one is due,
  // then clean up expired log files (delta.enableExpiredLogCleanup). Failures there are logged
  // and do not fail the commit (it has already happened), as in Spark.
  bool post_commit_hooks = true;
  // CheckpointOptions::part_size of the post-commit checkpoint (0: single file).
  int64_t checkpoint_part_size = 0;
  // commitInfo.userName and userMetadata of the commit (the maintenance service tags its commits
  // with them); SetUserMetadata overrides user_metadata.
  std::optional<std::string> user_name;
  std::optional<std::string> user_metadata;
};

struct CommitResult {
  int64_t version = -1;
  int attempts = 0;
  bool checkpointed = false;  // a post-commit checkpoint was written
  int64_t timestamp_ms = -1;  // the commit's timestamp (its inCommitTimestamp when set)
  // Row-level concurrency: files whose deletion vector this commit merged with a concurrent
  // winner's (counted once per winner commit).
  int dv_merges = 0;
};

// Table property that turns row-level concurrency off (true by default; silt's own name, as
// Databricks has no documented switch).
inline constexpr char kRowLevelConcurrencyProperty[] = "silt.rowLevelConcurrency.enabled";

// Spark's AddFile.removeWithTimestamp: the remove carries the add's DV (and tags, row ids), so
// that under (path, dvId) reconciliation it cancels exactly that add.
RemoveFile MakeRemove(const AddFile& a, int64_t now_ms, bool data_change = true);

// Whether commits on this table resolve DV-vs-DV conflicts row by row: deletion vectors and row
// tracking on (the deletionVectors and rowTracking features, delta.enableDeletionVectors and
// delta.enableRowTracking true), no partition columns (as Databricks), and
// silt.rowLevelConcurrency.enabled not false.
bool RowLevelConcurrencyEnabled(const Snapshot& snapshot);

// The isolation level DML commits run at: the table's delta.isolationLevel ("Serializable" or
// "WriteSerializable", as Delta spells them), Serializable when unset (Delta's default).
std::string TableIsolationLevel(const Metadata& metadata);

class Transaction {
 public:
  // `read_snapshot` is null when creating a table (the commit is version 0).
  Transaction(std::shared_ptr<ObjectStore> store, std::shared_ptr<const Snapshot> read_snapshot,
              TransactionOptions options = {});

  int64_t read_version() const { return read_version_; }
  const Snapshot* read_snapshot() const { return read_snapshot_.get(); }
  // Reads on after `own`: this process's commit at read_version() + 1 that left the table's state
  // as it was (only a commitInfo, e.g. VACUUM START). This transaction then commits after it, as
  // if its read snapshot had been reloaded there. Ignored for any other commit.
  void ReadAfter(const CommitResult& own);

  // commitInfo: Spark's operation name ("WRITE", "DELETE", "CREATE TABLE", …), parameters as
  // JSON-encoded strings (as Spark writes them), metrics as plain strings.
  void SetOperation(std::string operation, StringMap parameters = {});
  void SetMetric(const std::string& key, int64_t value);
  void SetUserMetadata(std::string value) { user_metadata_ = std::move(value); }
  // commitInfo.tags entry (e.g. delta.rowTracking.preserved = false for a commit that moved rows
  // to new files without keeping their row ids).
  void SetTag(const std::string& key, std::string value) { tags_.Set(key, std::move(value)); }

  void UpdateProtocol(Protocol p) { new_protocol_ = std::move(p); }
  void UpdateMetadata(Metadata m) { new_metadata_ = std::move(m); }
  void Add(AddFile f) { adds_.push_back(std::move(f)); }
  void Remove(RemoveFile r) { removes_.push_back(std::move(r)); }
  // A change data file (`cdc` action) written for this commit's data changes.
  void AddCdc(AddCDCFile c) { cdcs_.push_back(std::move(c)); }
  void SetAppTransaction(SetTransaction t) { txns_.push_back(std::move(t)); }
  void SetDomain(DomainMetadata d) { domains_.push_back(std::move(d)); }

  // The read set. Default: kNothing when the transaction only adds files, else kWholeTable.
  void SetReadScope(ReadScope scope) { read_scope_ = scope; }
  void AddReadPartition(PartitionValues values) { read_partitions_.push_back(std::move(values)); }
  // Sets the read scope to kPredicate with `predicate`.
  void SetReadPredicate(ReadFilePredicate predicate) {
    read_scope_ = ReadScope::kPredicate;
    read_predicate_ = std::move(predicate);
  }
  // Files the transaction read (by path); a concurrent remove of one is a conflict.
  void AddReadFile(const std::string& path) { read_files_.push_back(path); }

  // Objects the commit references that are still being written (a deletion-vector file on
  // another thread): Commit publishes the commit only once `wait` returned OK, and returns its
  // failure otherwise (nothing committed). The commit's own bytes are staged and synced while
  // waiting where the store can (ObjectStore::PutIfAbsentAfter). `wait` may be called more than
  // once and must return the same status each time. Commit waits even when it fails before
  // publishing, so that no write referenced by this transaction outlives it.
  void WaitBeforePublish(std::function<Status()> wait) { wait_before_publish_ = std::move(wait); }

  // Writes the commit. Call once. On tables with the rowTracking feature, adds without a
  // baseRowId get one from the table's row id high-water mark (domain delta.rowTracking), their
  // defaultRowCommitVersion is the commit's version, and the commit updates the domain; both are
  // recomputed when a concurrent commit wins the version. Such adds need numRecords in their
  // stats (DELTA_ROW_ID_ASSIGNMENT_WITHOUT_STATS otherwise).
  Result<CommitResult> Commit();

  // The actions of the commit at `version` (commitInfo first), as written.
  std::vector<Action> BuildActions(int64_t version) const;

 private:
  Result<CommitResult> CommitAfterWait();
  Status CheckConflicts(const std::vector<Action>& winner, int64_t winner_version);
  // Row-level concurrency: merges the winner's DVs of `paths` (our DV updates of the same files)
  // into ours, or fails when a row was changed by both.
  Status MergeDeletionVectors(const std::vector<std::pair<std::string, const AddFile*>>& files,
                              int64_t winner_version);
  std::string isolation_level() const;
  void RunPostCommitHooks(CommitResult* result) const;
  bool is_blind_append() const;
  bool row_tracking_supported() const;

  std::shared_ptr<ObjectStore> store_;
  std::shared_ptr<const Snapshot> read_snapshot_;
  TransactionOptions options_;
  std::string operation_ = "WRITE";
  StringMap operation_parameters_;
  StringMap operation_metrics_;
  std::optional<std::string> user_metadata_;
  StringMap tags_;
  std::optional<Protocol> new_protocol_;
  std::optional<Metadata> new_metadata_;
  std::vector<AddFile> adds_;
  std::vector<RemoveFile> removes_;
  std::vector<AddCDCFile> cdcs_;
  std::vector<SetTransaction> txns_;
  std::vector<DomainMetadata> domains_;
  std::optional<ReadScope> read_scope_;
  std::vector<PartitionValues> read_partitions_;
  ReadFilePredicate read_predicate_;
  std::vector<std::string> read_files_;
  std::string txn_id_;
  int64_t read_version_ = -1;
  int64_t last_commit_timestamp_ = -1;  // newest known commit's timestamp, for ICT monotonicity
  // Row tracking: the highest row id assigned so far (-1: none) and numRecords per add.
  int64_t row_id_high_water_mark_ = -1;
  std::vector<int64_t> add_num_records_;
  bool committed_ = false;
  // Row-level concurrency (computed by Commit): on for this commit, and our DV updates by
  // normalized path: the indexes of the remove and the add in removes_/adds_, and the rows this
  // transaction deleted from the file (its DV minus the read snapshot's), loaded on first use.
  bool row_level_ = false;
  struct DvUpdate {
    size_t remove_index = 0;
    size_t add_index = 0;
    std::optional<DeletionVector> ours;
    bool dropped = false;  // the merged DV covers every row: the add is dropped
  };
  std::map<std::string, DvUpdate> dv_updates_;
  int dv_merges_ = 0;
  std::function<Status()> wait_before_publish_;
};

}  // namespace silt::delta
