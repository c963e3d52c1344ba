// VACUUM: physically deletes files under a Delta table's root that the table no longer needs and
// that are older than a retention cutoff (spec: ../shared/specs/vacuum.md; user docs:
// docs/vacuum.md). This is the command core without SQL: the parser/binder turns
// `VACUUM t [LITE|FULL] [USING INVENTORY …] [RETAIN n HOURS] [DRY RUN]` into VacuumOptions.
//
// What it never does: write add/remove actions, touch `_delta_log/` (or any hidden path), delete
// anything outside the table root, delete a non-empty directory.
//
// Algorithm (Delta Spark's VacuumCommand, with the [silt decision]s documented in docs/vacuum.md):
//   cutoff  = clock.now - (effective RETAIN or delta.deletedFileRetentionDuration)
//   valid   = paths (and their ancestor directories) of the latest snapshot's live adds, their
//             deletion-vector files ('u' and in-root 'p'), and of tombstones not yet expired
//   listed  = FULL: a recursive listing of the root; INVENTORY: the given rows; LITE: the removes
//             and cdc files of the commits since the last LITE run (`_last_vacuum_info`)
//   delete  = listed entries (files older than cutoff, or directories) that no other old entry
//             lies below, minus `valid`
// Deletes run in batches on an optional thread pool and are idempotent: a crashed or failed run
// leaves the latest version readable, and rerunning finishes the job.
//
// Thread safety: Vacuum may run concurrently with readers, writers and other VACUUMs of the same
// table (it takes no lock; retention is what protects in-flight work — see docs/vacuum.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/error_classes.h"
#include "common/status.h"
#include "io/object_store.h"
#include "vector/types.h"
#include "vector/vector.h"

namespace silt {
class ThreadPool;
}
namespace silt::delta {
class Snapshot;
}

namespace silt::ops {

// Error classes (Spark's where Spark has one).
inline constexpr auto& kErrorVacuumRetentionTooShort = errc::kDeltaVacuumRetentionPeriodTooShort;
inline constexpr auto& kErrorVacuumRetentionNegative = errc::kDeltaVacuumRetentionPeriodNegative;
inline constexpr auto& kErrorCannotVacuumLite = errc::kDeltaCannotVacuumLite;
inline constexpr auto& kErrorInvalidInventorySchema = errc::kDeltaInvalidInventorySchema;
inline constexpr auto& kErrorTableOnlyOperation = errc::kDeltaTableOnlyOperation;
inline constexpr auto& kErrorCatalogManagedOperation =
    errc::kDeltaUnsupportedCatalogManagedTableOperation;
inline constexpr auto& kErrorFailRelativizePath = errc::kDeltaFailRelativizePath;
// Spark raises a plain IllegalArgumentException ("No state defined for this table") here.
inline constexpr auto& kErrorVacuumNoState = errc::kSiltVacuumNoState;

// `_delta_log/_last_vacuum_info`: {"latestCommitVersionOutsideOfRetentionWindow": <long>}.
inline constexpr char kLastVacuumInfoKey[] = "_delta_log/_last_vacuum_info";

// One row of a USING INVENTORY source (Spark's required inventory schema).
struct InventoryEntry {
  std::string path;  // fully qualified URI, NOT percent-encoded ("file:///t/a b/f.parquet")
  int64_t length = 0;
  bool is_dir = false;
  // ms since epoch. A NULL in the source becomes INT64_MAX: never old enough to delete.
  int64_t modification_time_ms = 0;
  bool operator==(const InventoryEntry&) const = default;
};

// Checks an inventory schema: columns path STRING, length BIGINT, isDir BOOLEAN,
// modificationTime BIGINT must exist; other columns are ignored. [silt decision] names match
// case-insensitively, in any order, nullability is not compared, and length/modificationTime may
// be any integer type (TINYINT..BIGINT). Returns the column index of each of the four, in that
// order. Error: InvalidArgument, kErrorInvalidInventorySchema, with Spark's message and the
// required schema's tree string.
Result<std::vector<int>> ValidateInventorySchema(const Schema& schema);

// Validates `schema` and converts the rows of `chunks` (columns in `schema` order, e.g. a query
// result) to inventory entries. Rows with a NULL path are skipped; NULL length → 0, NULL isDir →
// false, NULL modificationTime → INT64_MAX.
Result<std::vector<InventoryEntry>> InventoryFromChunks(const Schema& schema,
                                                        const std::vector<DataChunk>& chunks);

enum class VacuumMode : uint8_t { kFull, kLite };

// silt.vacuum.retainArgumentMode: kHonor (Delta <= 4.0, Databricks, delta-rs) or
// kIgnoreNonZero (Delta >= 4.1: a RETAIN that does not round to 0 hours is ignored).
enum class RetainArgumentMode : uint8_t { kHonor, kIgnoreNonZero };

struct VacuumProgress {
  // kListing: every kProgressListEvery entries of a FULL listing; kPlanned: candidates known.
  enum class Phase : uint8_t { kListing, kPlanned, kDeleting, kDone };
  Phase phase = Phase::kPlanned;
  int64_t listed = 0;     // entries seen by the listing / inventory / log scan
  int64_t to_delete = 0;  // candidates (files and directories)
  int64_t attempted = 0;  // deletes attempted so far
  int64_t deleted = 0;    // successful deletes so far
};

struct VacuumOptions {
  // RETAIN n HOURS. Rounded half-up to whole hours first (Spark's Math.round).
  std::optional<double> retain_hours;
  RetainArgumentMode retain_argument_mode = RetainArgumentMode::kHonor;
  bool dry_run = false;
  VacuumMode mode = VacuumMode::kFull;
  // USING INVENTORY: entries replace the listing (FULL only; with kLite: InvalidArgument).
  std::optional<std::vector<InventoryEntry>> inventory;
  // spark.databricks.delta.retentionDurationCheck.enabled.
  bool retention_check_enabled = true;
  // spark.databricks.delta.vacuum.logging.enabled: VACUUM START / VACUUM END commits on non-dry
  // runs. [silt decision] default on for every store (Spark: scheme-based, off on S3).
  bool logging_enabled = true;
  // spark.databricks.delta.vacuum.relativize.ignoreError: an absolute log path of another file
  // system is ignored instead of failing with kErrorFailRelativizePath.
  bool relativize_ignore_error = false;
  // [silt decision] A successful FULL run records the LITE watermark it makes safe, so a later
  // LITE run does not need the cleaned-up start of the log. false: Spark parity (writes `{}`).
  bool full_records_lite_watermark = true;
  // Deletes run on this pool when set (spark.databricks.delta.vacuum.parallelDelete.enabled),
  // else in the caller's thread. Not owned.
  ThreadPool* delete_pool = nullptr;
  // The FULL listing reads directories in parallel on this pool when set (the statement's pool;
  // silt.vacuum.parallelListing.enabled), else walks the tree in the caller's thread. The result
  // does not depend on it: VACUUM's planning is independent of the listing order. Not owned.
  ThreadPool* list_pool = nullptr;
  // LITE reads the checkpoint's file actions (the probe of its candidates) in parallel page
  // ranges on this pool when set (the statement's pool), else in the caller's thread. Not owned.
  ThreadPool* log_pool = nullptr;
  // Set: each batch's file deletes go here instead of to the store (silt.dask shards them over a
  // cluster's workers, docs/scale-out.md). It gets the batch's keys (below the table root, raw,
  // decoded) and fills one status per key as ObjectStore::DeleteKeys does (OK for a missing
  // key). Directories are still deleted by Vacuum, after the files.
  std::function<void(std::span<const std::string_view> keys, std::span<Status> statuses)>
      delete_files;
  // Deletes handed to the pool at a time; progress is reported after each batch (>= 1).
  size_t delete_batch_size = 1000;
  // The latest snapshot of the table when the caller has just loaded it (the SQL statement's
  // table resolution does, without files); null: Vacuum loads it without files. The valid set
  // comes from Snapshot::ForEachFileAction either way: a loaded file list is walked, else the
  // file actions are streamed from the log (never 1M AddFiles in memory).
  std::shared_ptr<const delta::Snapshot> snapshot;
  // The only source of "now". Required (no system-clock default): null fails with
  // kErrorMissingClock (ops/ops.h).
  std::shared_ptr<Clock> clock;
  // Called in the caller's thread: once when the delete set is known, after every delete batch,
  // and at the end. A non-OK return stops the run before the next batch; the VACUUM END commit
  // then says FAILED and Vacuum returns that status.
  std::function<Status(const VacuumProgress&)> progress;
  // commitInfo.userName / userMetadata of the VACUUM START / END commits (TransactionOptions'),
  // e.g. the maintenance service's tag.
  std::optional<std::string> commit_user_name;
  std::optional<std::string> commit_user_metadata;
};

// One file or directory the run deletes (or would delete, in a dry run).
struct VacuumCandidate {
  std::string key;   // object key below the table root (raw, decoded)
  std::string path;  // absolute and decoded, as Spark's DRY RUN prints it: table_path + "/" + key
  int64_t size = 0;
  bool is_dir = false;
  bool operator==(const VacuumCandidate&) const = default;
};

struct VacuumResult {
  // The qualified, decoded table root ("file:///data/t", "memory://"): the one output row of a
  // non-dry SQL VACUUM.
  std::string table_path;
  bool dry_run = false;
  VacuumMode mode = VacuumMode::kFull;
  bool used_inventory = false;
  // Every candidate, sorted by key: the rows of a DRY RUN (`path`), and what a real run tried.
  std::vector<VacuumCandidate> candidates;
  // The keys a real run deleted successfully (empty for a dry run).
  std::vector<std::string> deleted;
  // Metrics, named as in Spark's VACUUM START / END operationMetrics.
  int64_t num_files_to_delete = 0;       // candidates, files and directories
  int64_t size_of_data_to_delete = 0;    // bytes of the candidates
  int64_t num_deleted_files = 0;         // successful deletes, files and directories
  int64_t num_vacuumed_directories = 0;  // directories listed + 1 (Spark: "dirs scanned")
  int64_t num_failed_deletes = 0;        // deletes that failed with an error (not counted above)
  Status first_delete_error;             // the first such error, for the caller's log
  // Retention.
  int64_t default_retention_millis = 0;               // the table's deletedFileRetentionDuration
  std::optional<int64_t> specified_retention_millis;  // the RETAIN in effect, if any
  int64_t min_retained_timestamp_ms = 0;              // the cutoff
  bool retain_ignored = false;                        // RETAIN dropped by kIgnoreNonZero
  // The snapshot the valid set came from, and the history commits written (non-dry runs).
  int64_t snapshot_version = -1;
  std::optional<int64_t> start_commit_version;
  std::optional<int64_t> end_commit_version;
  // LITE: the commit range scanned (absent when there was nothing to scan); any mode: the
  // watermark written to _last_vacuum_info.
  std::optional<int64_t> eligible_start_commit_version;
  std::optional<int64_t> eligible_end_commit_version;
  std::optional<int64_t> recorded_watermark;
};

// Runs VACUUM on the table whose root is `table_store`'s root (always the latest version).
// Errors, checked in this order before anything is deleted (also in a dry run):
//   no table: kErrorTableOnlyOperation ("`<path>` is not a Delta table. VACUUM is only supported
//     for Delta tables."); a log without a commit: kErrorVacuumNoState;
//   catalog-managed table: kErrorCatalogManagedOperation; a writer feature silt lacks:
//     DELTA_UNSUPPORTED_FEATURES_FOR_WRITE (the vacuumProtocolCheck rule);
//   LITE with an inventory: InvalidArgument; retention: kErrorVacuumRetentionNegative,
//     kErrorVacuumRetentionTooShort (with "delta.retentionDurationCheck.enabled = false" and
//     "at least <n> hours"); bad table property: DELTA_INVALID_INTERVAL;
//   LITE without the log it needs: kErrorCannotVacuumLite; an absolute log path of another file
//     system: kErrorFailRelativizePath; listing/log read failures: their status.
// A failed individual delete is not an error (Spark parity): it is counted in
// num_failed_deletes and the file is retried by the next run. A failed history commit or a
// progress callback's error is returned (the END commit, if START was written, says FAILED).
Result<VacuumResult> Vacuum(std::shared_ptr<ObjectStore> table_store, VacuumOptions options);

// Delta's hidden-name rule for one path component (DeltaTableUtils.isHiddenDirectory): names
// starting with '.' or '_' except `_delta_index*`, `_change_data*` and `<partitionColumn>=…`;
// and `metadata` when Iceberg UniForm is on. `partition_prefixes` are "col=" strings.
bool IsHiddenName(std::string_view name, const std::vector<std::string>& partition_prefixes,
                  bool uniform_iceberg);

}  // namespace silt::ops
