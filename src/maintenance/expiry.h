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
#include <memory>
#include <optional>
#include <string>

#include "common/clock.h"
#include "common/error_classes.h"
#include "common/status.h"
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

}  // namespace silt::maintenance
