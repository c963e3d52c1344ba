// Auto-TTL ("DELETE ROWS n DAYS AFTER col", spec A.3/A.5 of ../shared/specs/ttl-dfp-streaming.md):
// the policy is plain table metadata (two keys of metaData.configuration), not a table feature,
// so older readers and writers keep working on such tables. This header is the one place that
// knows the keys; the SQL commands write them, the maintenance service reads them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/status.h"
#include "delta/actions.h"

namespace silt::delta {

inline constexpr char kAutoTtlExpireInDaysKey[] = "autottl.expireInDays";
inline constexpr char kAutoTtlTimestampColumnKey[] = "autottl.timestampColumn";
// When column mapping is on: the TTL column's delta.columnMapping.id (a silt addition, A.3).
inline constexpr char kAutoTtlTimestampColumnIdKey[] = "silt.autottl.timestampColumnId";

struct AutoTtlPolicy {
  std::string timestamp_column;  // logical name of a top-level DATE/TIMESTAMP/TIMESTAMP_NTZ column
  int32_t expire_in_days = 0;    // >= 0
};

// The table's policy: nullopt when neither key is set. Both keys present and valid → the policy;
// one key alone, or an expireInDays that is not a non-negative INT in decimal, is
// InvalidArgument with class AUTO_TTL_INVALID_EXPIRATION_DAYS (bad number) or
// DELTA_INVALID_TABLE_PROPERTY (one key missing). Does not check the column against the schema.
Result<std::optional<AutoTtlPolicy>> AutoTtlPolicyOf(const StringMap& configuration);

}  // namespace silt::delta
