// Row-level DML core: DELETE and UPDATE of table rows chosen by caller-supplied callbacks, and the
// "apply per-file row deletions plus new rows" primitive that MERGE builds on. No SQL here: the
// binder/planner turns `DELETE FROM t WHERE …` / `UPDATE t SET … WHERE …` into the callbacks
// (spec: ../shared/specs/dml-dv-optimize-reorg.md §1–2, §8).
//
// How rows go away (Spark's DeleteCommand / UpdateCommand / DMLWithDeletionVectorsHelper):
//   deletion vectors (delta.enableDeletionVectors=true and the deletionVectors feature): the
//     matched physical row indexes of a file are unioned with its old DV and written to one new
//     `deletion_vector_<uuid>.bin` per commit (several DVs per file, storage type 'u'); the
//     commit carries remove(old add, old DV) + add(same path, new DV, stats tightBounds=false).
//     A file whose every row ends up deleted gets a plain remove instead.
//   copy-on-write (otherwise): every touched file is rewritten without the deleted rows and
//     removed (its old DV is honoured while copying).
// Files whose verdict is kAll are removed without being read; kSkip files are never opened.
// A statement that changes nothing writes no commit (Spark's skipRecordingEmptyCommits).
//
// Failure: data and DV files are written before the commit, so any failure leaves the table as
// it was (at worst with unreferenced files, which VACUUM removes). Conflicts with concurrent
// writers surface as Transaction's DELTA_CONCURRENT_* errors (StatusCode::kCommitConflict).
//
// Thread safety: each call is independent. Callbacks are called from the calling thread only,
// except DELETE's matcher when DmlOptions::pool is set: files are then scanned in parallel and
// the matcher is called concurrently from the pool's threads (it must be thread-safe).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/error_classes.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "delta/actions.h"
#include "delta/deletion_vector.h"
#include "delta/snapshot.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "io/object_store.h"
#include "vector/vector.h"

namespace silt::ops {

// Error classes.
inline constexpr auto& kErrorDvFeatureMissing = errc::kSiltDeletionVectorsNotSupportedByTable;
inline constexpr auto& kErrorBadMatcherResult = errc::kSiltDmlInvalidMatch;
inline constexpr auto& kErrorUpdateRowCount = errc::kSiltDmlUpdateRowCount;

// What file-level pruning (partition values, stats) proves about a live file.
enum class FileVerdict : uint8_t {
  kSkip,   // no row can match: the file is never opened
  kAll,    // every row matches (e.g. a partition-only predicate): DELETE drops it unread
  kMaybe,  // read it and ask the RowMatcher
};
// May return an error (it aborts the statement). Must be deterministic and cheap: the commit also
// calls it on files that concurrent writers added, to decide whether they conflict.
using FileFilter = std::function<Result<FileVerdict>(const delta::AddFile& file)>;

// Given a chunk of live rows (deletion-vector-masked) holding the spec's `columns`, returns the
// indexes (into the chunk) of the rows the predicate is TRUE for, strictly ascending. Rows where
// the predicate is NULL must not be returned (Spark keeps them). Out-of-range or unordered
// indexes: InvalidArgument (kErrorBadMatcherResult).
using RowMatcher = std::function<Result<std::vector<uint32_t>>(const DataChunk& rows)>;

// Given matched rows with every table column (logical schema order), returns their new values:
// the same number of rows, same columns and types (else InvalidArgument, kErrorUpdateRowCount).
using RowUpdater = std::function<Result<DataChunk>(const DataChunk& matched_rows)>;

struct DmlOptions {
  // nullopt: as the table says (delta.enableDeletionVectors=true and the deletionVectors feature
  // in the protocol). false: copy-on-write. true: DVs; InvalidArgument (kErrorDvFeatureMissing)
  // when the protocol lacks the feature.
  std::optional<bool> use_deletion_vectors;
  // The source of "now": commit timestamps, deletionTimestamp, and the *TimeMs metrics.
  // Required (no system-clock default): null fails with kErrorMissingClock (ops/ops.h).
  std::shared_ptr<Clock> clock;
  delta::DataWriteOptions write;  // for rewritten / updated rows (its clock is replaced by `clock`)
  delta::TransactionOptions txn;  // its clock is replaced by `clock`
  // When set, DELETE scans its candidate files on it (see Thread safety above) and copy-on-write
  // reads the files it rewrites on it.
  ThreadPool* pool = nullptr;
};

// operationMetrics of a DML commit (Spark's names in the comments; DV counters as written to
// history, i.e. numDeletionVectorsAdded = added + updated, numDeletionVectorsRemoved = removed +
// updated — see spec §2.7).
struct DmlMetrics {
  int64_t num_added_files = 0;               // numAddedFiles / numTargetFilesAdded
  int64_t num_removed_files = 0;             // numRemovedFiles / numTargetFilesRemoved
  int64_t num_added_change_files = 0;        // numAddedChangeFiles / numTargetChangeFilesAdded
  int64_t num_deletion_vectors_added = 0;    // numDeletionVectorsAdded
  int64_t num_deletion_vectors_removed = 0;  // numDeletionVectorsRemoved
  int64_t num_deletion_vectors_updated = 0;  // numDeletionVectorsUpdated
  std::optional<int64_t> num_deleted_rows;   // numDeletedRows; nullopt when stats cannot tell
  int64_t num_updated_rows = 0;              // numUpdatedRows (UPDATE)
  int64_t num_copied_rows = 0;               // numCopiedRows / numTargetRowsCopied
  int64_t num_removed_bytes = 0;             // numRemovedBytes / numTargetBytesRemoved
  int64_t num_added_bytes = 0;               // numAddedBytes / numTargetBytesAdded
  int64_t execution_time_ms = 0;             // executionTimeMs
  int64_t scan_time_ms = 0;                  // scanTimeMs
  int64_t rewrite_time_ms = 0;               // rewriteTimeMs
  // Not in history: how many data files were opened / pruned / dropped unread.
  int64_t files_read = 0;
  int64_t files_skipped = 0;
  int64_t files_removed_unread = 0;
};

struct DmlResult {
  std::optional<int64_t> version;  // the commit; nullopt when nothing changed (no commit)
  int64_t num_affected_rows = 0;   // deleted/updated rows; -1 when unknown (stats missing)
  bool used_deletion_vectors = false;
  DmlMetrics metrics;
};

// DELETE FROM t [WHERE …].
struct DeleteSpec {
  // The condition's SQL text for history: operationParameters.predicate = "[\"<text>\"]", or
  // "[]" when empty (DELETE without WHERE).
  std::string predicate_sql;
  // Optional pruning; null: every file is kMaybe.
  FileFilter file_filter;
  // Null: every row of every non-skipped file matches (DELETE without WHERE, or a predicate the
  // file filter decides completely). Without a filter too, this is Spark's whole-table delete:
  // every file is removed unread and numDeletedRows comes from stats.
  RowMatcher matcher;
  // Logical columns the matcher sees, in this order; empty: all table columns.
  std::vector<std::string> columns;
  DmlOptions options;
  // operationMetrics set verbatim after the computed ones (file skipping, dynamic file pruning).
  std::vector<std::pair<std::string, int64_t>> extra_metrics;
};

// Deletes the matched rows of `snapshot` (normally the latest version of the table in `store`)
// and commits operation "DELETE" with Spark's DELETE metrics. Errors: the callbacks' errors;
// DELTA_CANNOT_MODIFY_APPEND_ONLY / DELTA_UNSUPPORTED_FEATURES_FOR_WRITE before anything is
// written; UNRESOLVED_COLUMN for an unknown column; storage and conflict errors.
// delta.enableChangeDataFeed=true: the deleted rows go to `_change_data/` files
// (_change_type = "delete") with cdc actions in the same commit.
Result<DmlResult> DeleteRows(std::shared_ptr<ObjectStore> store,
                             std::shared_ptr<const delta::Snapshot> snapshot, DeleteSpec spec);

// UPDATE t SET … [WHERE …].
struct UpdateSpec {
  std::string predicate_sql;  // as DeleteSpec
  FileFilter file_filter;     // as DeleteSpec; kAll files are read (their rows are updated)
  RowMatcher matcher;         // null: every row of every non-skipped file matches
  std::vector<std::string> columns;
  RowUpdater updater;  // required
  DmlOptions options;
  std::vector<std::pair<std::string, int64_t>> extra_metrics;  // as DeleteSpec
};

// Updates the matched rows: they are deleted from their files (DV or copy-on-write) and their new
// versions written to new data files in the same commit, operation "UPDATE". CDF: pre- and
// post-images (update_preimage / update_postimage). Errors as DeleteRows, plus the updater's.
Result<DmlResult> UpdateRows(std::shared_ptr<ObjectStore> store,
                             std::shared_ptr<const delta::Snapshot> snapshot, UpdateSpec spec);

// ---------------------------------------------------------------------------------------------
// The primitive (MERGE uses it directly).

// Rows to delete from one live file of the snapshot.
struct FileRowDeletion {
  delta::AddFile file;         // exactly as in snapshot.files() (path + DV identify it)
  delta::DeletionVector rows;  // physical row indexes; rows its old DV hides already are ignored
  bool all_rows = false;       // every row: the file is removed without being read (rows ignored)
};

// Rows `sel` of the first `num_columns` columns of `chunk` (e.g. a joined row's target image).
DataChunk Gather(const DataChunk& chunk, size_t num_columns, const std::vector<uint32_t>& sel);

// Rows for the change data feed, in the table's logical schema (no _change_type column).
struct ChangeRows {
  std::string change_type;  // "insert", "delete", "update_preimage", "update_postimage"
  std::vector<DataChunk> rows;
};

enum class MetricNames : uint8_t { kDelete, kUpdate, kMerge };

struct RowChanges {
  std::string operation;        // "DELETE", "UPDATE", "MERGE"
  delta::StringMap parameters;  // operationParameters (JSON texts, see Transaction)
  MetricNames metric_names = MetricNames::kDelete;
  // Set verbatim after the computed metrics (e.g. MERGE's numSourceRows, numTargetRowsInserted).
  std::vector<std::pair<std::string, int64_t>> extra_metrics;
  std::vector<FileRowDeletion> deletions;  // at most one entry per file
  std::vector<DataChunk> new_rows;         // table schema: written to new data files
  // CDF only (ignored unless delta.enableChangeDataFeed=true): the changed rows, except those of
  // all_rows deletions, which the primitive reads itself when the commit has change files.
  std::vector<ChangeRows> change_rows;
  // Read set for conflict detection: paths of the files the statement read (files it deletes
  // from are added automatically) and, when set, which concurrently added files could have
  // mattered (Transaction::SetReadPredicate); unset: any concurrent add conflicts.
  std::vector<std::string> read_files;
  delta::ReadFilePredicate read_predicate;
  // Known so far (e.g. the scan of DELETE/UPDATE); the primitive adds the rest.
  DmlMetrics metrics;
  int64_t start_time_ms = -1;  // for executionTimeMs; -1: now
  // `txn` actions committed with the changes (a streaming sink's batch id, exactly once).
  std::vector<delta::SetTransaction> app_transactions;
  // Committed with the changes when set (e.g. identity columns' new high-water marks).
  std::optional<delta::Metadata> new_metadata;
};

// Builds the actions for `changes` (DVs or copy-on-write, as options say), writes the DV, data
// and change files, and commits. Commits nothing (version nullopt) when no file changes and
// there are no new rows. numDeletedRows counts rows newly deleted from the table.
Result<DmlResult> ApplyRowChanges(std::shared_ptr<ObjectStore> store,
                                  std::shared_ptr<const delta::Snapshot> snapshot,
                                  RowChanges changes, const DmlOptions& options);

// DeleteRows without its commit: the DELETE's row changes (deletions, metrics, CDF images), for a
// statement that adds to them before ApplyRowChanges (INSERT … REPLACE WHERE). Checks and errors
// as DeleteRows'.
Result<RowChanges> MatchDeletedRows(const std::shared_ptr<ObjectStore>& store,
                                    const std::shared_ptr<const delta::Snapshot>& snapshot,
                                    const DeleteSpec& spec);

// Whether DML on this table writes deletion vectors by default (spec §2.1 dvWritable).
bool DeletionVectorsWritable(const delta::Snapshot& snapshot);

// The commit's read predicate for a DELETE / UPDATE pruned by `filter`: a concurrently added file
// conflicts unless the filter says kSkip (an error counts as a match). Null filter: null.
delta::ReadFilePredicate ReadPredicateOf(const FileFilter& filter);

// operationParameters.predicate for a condition's SQL text ("" → "[]").
std::string PredicateParameter(const std::string& predicate_sql);

// `stats` (add.stats JSON) with "tightBounds":false (replaced or appended), everything else kept
// byte for byte; nullopt/empty → {"numRecords":<num_records>,"tightBounds":false}.
std::string StatsWithWideBounds(const std::optional<std::string>& stats, int64_t num_records);

}  // namespace silt::ops
