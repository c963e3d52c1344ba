// Auto-TTL expiry (spec A.5 of ../shared/specs/ttl-dfp-streaming.md): the cutoff of a table's
// "DELETE ROWS n DAYS AFTER col" policy at one clock instant, the cheap stats pre-check, and the
// TTL DELETE as an ops call (no SQL).
//
// Cutoff, computed once per run from the injected clock's `now` (UTC):
//   TIMESTAMP      col <= now - n*24h (instant arithmetic)
//   TIMESTAMP_NTZ  the same, the wall-clock value read as UTC (never a session time zone)
//   DATE           col <= date_utc(now) - n days
// NULL values never expire; future values only once reached. The DELETE's history predicate is
// the literal form `(col <= TIMESTAMP '2025-01-01 00:00:00Z')` (TIMESTAMP_NTZ '…', DATE '…'), so
// a rerun with the same clock matches nothing and history says exactly what was deleted.
//
// Per file (FileVerdict of ops/dml.h):
//   partition column: the partition value decides (kAll when <= cutoff, kSkip otherwise or NULL):
//     whole files go in a remove-only commit (numCopiedRows = 0);
//   data column, from add.stats: min > cutoff (or every value NULL, or no rows) → kSkip;
//     max <= cutoff with nullCount 0 and tight bounds → kAll (removed unread); else kMaybe
//     (read, matched rows get a deletion vector when the table uses DVs, else copy-on-write).
//   Timestamp stats are millisecond-truncated (Delta writes them so): a max is only trusted as
//   <= cutoff when max + 999 µs is.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/error_classes.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "delta/auto_ttl.h"
#include "delta/snapshot.h"
#include "io/object_store.h"
#include "ops/dml.h"
#include "vector/types.h"

namespace silt::maintenance {

// The column named by the policy is missing or not DATE/TIMESTAMP/TIMESTAMP_NTZ (e.g. the schema
// changed behind the policy's back): the job fails with these classes (A.4).
inline constexpr auto& kErrorTtlColumnNotFound = errc::kAutoTtlColumnNotFound;
inline constexpr auto& kErrorTtlColumnType = errc::kAutoTtlInvalidColumnType;

struct TtlCutoff {
  std::string column;           // logical name as in the schema
  std::string physical_column;  // its name in data files / partition values
  bool partition_column = false;
  TypeId type = TypeId::kTimestamp;  // kDate, kTimestamp or kTimestampNtz
  int64_t value = 0;                 // DATE: days since epoch; else µs since epoch
  std::string literal;               // "TIMESTAMP '2025-01-01 00:00:00Z'", "DATE '2025-01-01'"
  std::string predicate_sql;         // "(created_at <= TIMESTAMP '…')"
  std::string text;                  // the cutoff alone ("2025-01-01 00:00:00Z"), for metrics
};

// The cutoff of `policy` on the table `snapshot` at `now_ms`. Errors: the classes above.
Result<TtlCutoff> ComputeCutoff(const delta::AutoTtlPolicy& policy, const delta::Snapshot& snapshot,
                                int64_t now_ms);

// What the stats and partition values prove about one live file (see the file comment).
Result<ops::FileVerdict> ExpiryVerdict(const TtlCutoff& cutoff, const Schema& physical_schema,
                                       const delta::AddFile& file);

// The cheap pre-check: whether some live file of `snapshot` (loaded with files) may hold an
// expired row. False means the TTL DELETE would change nothing and is skipped.
Result<bool> MayHaveExpiredRows(const TtlCutoff& cutoff, const delta::Snapshot& snapshot);

struct TtlDeleteResult {
  ops::DmlResult dml;
  // Paths of the files this DELETE gave a (new or wider) deletion vector: what PURGE rewrites.
  std::vector<std::string> dv_files;
  bool skipped_by_precheck = false;
};

// Runs DELETE FROM t WHERE col <= <cutoff> on `snapshot` (latest, with files) through
// ops::DeleteRows: DVs when the table uses them, copy-on-write otherwise; `options` carries the
// clock and the commit's userName/userMetadata. No commit when nothing is expired.
Result<TtlDeleteResult> RunTtlDelete(std::shared_ptr<ObjectStore> store,
                                     std::shared_ptr<const delta::Snapshot> snapshot,
                                     const TtlCutoff& cutoff, ops::DmlOptions options);

// Distributed TTL DELETE (silt.dask.ttl_delete; `silt maintain` with a Dask scheduler;
// docs/scale-out.md). Planned here exactly as RunTtlDelete plans it: the stats pre-check, then
// every live file judged by ExpiryVerdict — kAll files are removed unread by the commit, kSkip
// files never opened, and the kMaybe files are grouped (about `task_bytes` of files per group)
// into tasks. A task (JSON: table URI, planned version, the cutoff, the group's paths; no
// credentials) is scanned by a worker with RunTtlDelete's matcher and returns the matched rows of
// each file. The commit is RunTtlDelete's, against the planned version: one DELETE with the same
// parameters, metrics, one DV file (or copy-on-write rewrites, done here, when the table does not
// use deletion vectors) and the same conflict checks. A table with the change data feed on is
// NOT_IMPLEMENTED (its deleted rows would have to travel back).

// Runs `tasks` somewhere and returns one output per task, in any order.
using TaskRunner =
    std::function<Result<std::vector<std::string>>(const std::vector<std::string>& tasks)>;

inline constexpr int64_t kDefaultTtlTaskBytes = 256LL << 20;

// RunTtlDelete with the scans run by `run_tasks`; `table_uri` is what a worker opens.
// Errors: RunTtlDelete's, the tasks' (their classes unchanged), SILT_INVALID_DISTRIBUTED_TASK
// for missing, duplicate or foreign outputs.
Result<TtlDeleteResult> RunTtlDeleteRemotely(std::shared_ptr<ObjectStore> store,
                                             std::shared_ptr<const delta::Snapshot> snapshot,
                                             const TtlCutoff& cutoff, ops::DmlOptions options,
                                             const std::string& table_uri,
                                             const TaskRunner& run_tasks,
                                             int64_t task_bytes = kDefaultTtlTaskBytes);

// The table a TTL DELETE task names; an error (SILT_INVALID_DISTRIBUTED_TASK) when `task` is not
// one (RunDistributedTask tells the kinds of task apart with it).
struct TtlTaskTable {
  std::string table_uri;
  int64_t version = 0;
};
Result<TtlTaskTable> TtlDeleteTaskTable(std::string_view task);
bool IsTtlDeleteTask(std::string_view task);

// A worker's part: scans the task's files in `snapshot` (the task's table at its version) and
// returns the output for RunTtlDeleteRemotely. A path that is not a live file of that version is
// refused (SILT_INVALID_DISTRIBUTED_TASK).
Result<std::string> RunTtlDeleteTask(const std::shared_ptr<ObjectStore>& store,
                                     const std::shared_ptr<const delta::Snapshot>& snapshot,
                                     std::string_view task, std::shared_ptr<Clock> clock,
                                     ThreadPool* pool);

}  // namespace silt::maintenance
