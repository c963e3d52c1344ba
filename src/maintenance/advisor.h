// The maintenance advisor: for one snapshot of a table and the clock's "now", what each
// maintenance job would do and reclaim if it ran now — Auto-TTL's DELETE, REORG … APPLY (PURGE),
// VACUUM, OPTIMIZE (compaction), checkpoint and expired log cleanup — and, for an Auto-TTL table,
// when the rows expired now will be physically gone (seed 004's worst case, spec A.1/A.5).
//
// Cheap by design: the log and the per-file statistics only. It reads no data file; the only
// object-store calls are one listing of `_delta_log/` (log cleanup) and one HEAD per tombstone
// past the retention (VACUUM: is the file still there?). What the statistics cannot tell exactly
// (rows of a file whose time range straddles the TTL cutoff) is reported as a bound.
//
// Used by SHOW MAINTENANCE (commands/show_maintenance.cc) and the service's dry run; the same
// Thresholds decide "due" in both. docs/maintenance.md documents the output.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/error_classes.h"
#include "common/status.h"
#include "delta/auto_ttl.h"
#include "delta/snapshot.h"
#include "maintenance/thresholds.h"

namespace silt::maintenance {

// Error class of TargetExpirationDays when the target cannot be met with the table's retention
// ([silt decision]; SQLSTATE 22023, invalid parameter value).
inline constexpr auto& kErrorAutoTtlTargetTooShort = errc::kAutoTtlTargetTooShort;

// Seed 004's formula for the expiration period that deletes rows from storage within
// `target_days` of their time value: target_days − 6 (the buffer) − retention in days (the
// table's delta.deletedFileRetentionDuration, rounded up to whole days so that the target is
// met). (30, 7 days) → 17; (90, 30 days) → 54. A negative result is InvalidArgument with
// kErrorAutoTtlTargetTooShort, advising to lower the retention (or raise the target).
Result<int64_t> TargetExpirationDays(int64_t target_days, int64_t retention_millis);

// The Auto-TTL cutoff of spec A.5 for `now_millis`, as microseconds since the epoch (TIMESTAMP,
// TIMESTAMP_NTZ taken as UTC: now − n×24 h) or days since the epoch (DATE: UTC date of now − n).
// Rows whose time value is <= the cutoff are expired.
int64_t AutoTtlCutoff(TypeId column_type, int32_t expire_in_days, int64_t now_millis);
// The cutoff as a SQL literal, the one form of SHOW MAINTENANCE, the history's cutoff metric and
// the TTL DELETE's predicate: TIMESTAMP '2025-02-08 12:00:00Z' (UTC, Spark's fraction form:
// trailing zeros of the fraction dropped, then the ISO-8601 zone designator of UTC, which every
// session time zone reads as the same instant), TIMESTAMP_NTZ '2025-02-08 12:00:00.345' or
// DATE '2025-03-09'.
std::string AutoTtlCutoffLiteral(TypeId column_type, int64_t cutoff);

enum class Job : uint8_t { kAutoTtlDelete, kPurge, kVacuum, kCompaction, kCheckpoint, kLogCleanup };
// The job's name: DELETE, PURGE, VACUUM, COMPACTION (as operation_type in the operations-history
// table), CHECKPOINT, LOG_CLEANUP.
const char* JobName(Job job);

struct AutoTtlAdvice {
  delta::AutoTtlPolicy policy;
  TypeId column_type = TypeId::kTimestamp;
  int64_t cutoff = 0;  // AutoTtlCutoff
  // Files whose statistics show every row expired (max <= cutoff, no NULL): DELETE removes them
  // whole. Their live rows are counted exactly.
  int64_t files_fully_expired = 0;
  int64_t bytes_fully_expired = 0;
  int64_t rows_fully_expired = 0;
  // Files whose range straddles the cutoff (min <= cutoff < max, or NULLs): some rows expired;
  // at most rows_partially_expired_max of them (their live rows).
  int64_t files_partially_expired = 0;
  int64_t bytes_partially_expired = 0;
  int64_t rows_partially_expired_max = 0;
  // Files without usable statistics for the column (counted as possibly expired).
  int64_t files_without_stats = 0;
  // Files with a deletion vector whose statistics predate it (tightBounds=false) and straddle
  // the cutoff: their expired rows may be exactly the deleted ones (all below it: fully expired).
  // Not counted above and not making DELETE due: on an Auto-TTL table PURGE is due while they
  // exist, and the rewritten files have tight statistics again, so no expired row is missed for
  // longer than a cycle.
  int64_t files_loose_bounds = 0;
  int64_t rows_loose_bounds_max = 0;
  // The table's delta.deletedFileRetentionDuration.
  int64_t retention_millis = 0;
  // When a row expired now is physically gone at the latest: now + 6 days + retention
  // (ms since epoch); absent when nothing is expired.
  std::optional<int64_t> gone_by_millis;
};

// What one job would do now.
struct JobAdvice {
  Job job = Job::kAutoTtlDelete;
  bool due = false;
  int64_t files = 0;            // files the job would remove, rewrite or delete
  int64_t bytes = 0;            // their bytes
  std::optional<int64_t> rows;  // rows it removes from live files; absent: the job touches none
  std::string detail;           // one line for people
};

struct TableAdvice {
  int64_t version = -1;
  int64_t now_millis = 0;
  int64_t num_files = 0;
  int64_t num_bytes = 0;
  int64_t num_records = 0;   // live rows per statistics (files without numRecords add nothing)
  int64_t deleted_rows = 0;  // rows marked by deletion vectors
  std::optional<AutoTtlAdvice> ttl;  // set when the table has an Auto-TTL policy
  bool deletion_vectors_enabled = false;
  // One per Job, in the order of the enum.
  std::vector<JobAdvice> jobs;
};

struct AdvisorOptions {
  Thresholds thresholds;
  // The only source of "now". Required.
  std::shared_ptr<Clock> clock;
  // HEAD each expired tombstone to count only files still present (false: trust the log).
  bool verify_tombstones = true;
};

// Advice for `snapshot`, which must have its files loaded (SnapshotOptions::load_files). Errors:
// a null clock (SILT_OPS_MISSING_CLOCK-like INTERNAL_ERROR), invalid table properties
// (DELTA_INVALID_TABLE_PROPERTY, DELTA_INVALID_INTERVAL, AUTO_TTL_*), a TTL column that is not
// in the schema or not DATE/TIMESTAMP/TIMESTAMP_NTZ (AUTO_TTL_COLUMN_NOT_FOUND,
// AUTO_TTL_INVALID_COLUMN_TYPE), storage errors of the log listing.
Result<TableAdvice> Advise(const delta::Snapshot& snapshot, const AdvisorOptions& options);

// The routine jobs alone, as Advise reports them: COMPACTION, CHECKPOINT, LOG_CLEANUP (in that
// order). The maintenance service runs each exactly when this says it is due (one rule for
// SHOW MAINTENANCE, `silt maintain --dry-run` and the service). Errors as Advise's.
Result<std::vector<JobAdvice>> AdviseRoutineJobs(const delta::Snapshot& snapshot,
                                                 const Thresholds& thresholds, int64_t now_millis);

// One displayable row per job (SHOW MAINTENANCE, `silt maintain --dry-run`): `action` is the
// statement the job would run on `table_sql_name`, absent when the job has nothing to do.
struct AdviceRow {
  std::string job;
  bool due = false;
  std::optional<std::string> action;
  int64_t files = 0;
  int64_t bytes = 0;
  std::optional<int64_t> rows;
  std::string detail;
};
std::vector<AdviceRow> AdviceRows(const TableAdvice& advice, const std::string& table_sql_name);

}  // namespace silt::maintenance
