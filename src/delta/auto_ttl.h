// Auto-TTL ("DELETE ROWS n DAYS AFTER col", spec A.3/A.5 of ../shared/specs/ttl-dfp-streaming.md):
// the policy is plain table metadata (two keys of metaData.configuration), not a table feature,
// so older readers and writers keep working on such tables. This header is the one place that
// knows the keys; the SQL commands write them, the maintenance service reads them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "delta/actions.h"
#include "vector/types.h"

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

namespace silt::delta {

// --- Validation shared by the DDL (CREATE … DELETE ROWS, ALTER … DELETE ROWS / DROP ROW
// DELETION) and by SET/UNSET TBLPROPERTIES on the keys (spec A.4). Error classes:
// AUTO_TTL_INVALID_EXPIRATION_DAYS, AUTO_TTL_INVALID_COLUMN_TYPE, AUTO_TTL_COLUMN_NOT_FOUND,
// AUTO_TTL_NESTED_COLUMN_NOT_SUPPORTED, AUTO_TTL_COLUMN_RENAME_NOT_SUPPORTED,
// AUTO_TTL_COLUMN_DROP_NOT_SUPPORTED, AUTO_TTL_UNSUPPORTED_TABLE_TYPE.

// True for the keys this header owns (case-insensitive), which SET/UNSET TBLPROPERTIES must
// route through the checks below.
bool IsAutoTtlKey(std::string_view key);
// The key in its canonical spelling (kAutoTtl*Key) when IsAutoTtlKey, else the key unchanged.
std::string CanonicalAutoTtlKey(std::string_view key);

// DATE, TIMESTAMP or TIMESTAMP_NTZ.
bool IsAutoTtlTimeType(const DataType& type);

// Rule 1: 0 <= days <= INT max.
Status ValidateAutoTtlExpireInDays(int64_t days);

// A column path as written ("a.b.c", no backquotes) split at each '.'; ALTER TABLE's nested
// column paths use it too.
std::vector<std::string> SplitDotted(const std::string& dotted);

// Rules 2-4: `column` as written (a dotted path names a nested field) resolved against the
// table's logical schema with the session's case sensitivity. Returns the index of the
// top-level field.
Result<size_t> ValidateAutoTtlColumn(const Schema& schema, const std::string& column,
                                     bool case_sensitive);

// Replaces the policy in `configuration` with (column, days) after validating both: stores the
// schema's spelling of the column, and kAutoTtlTimestampColumnIdKey when the configuration's
// delta.columnMapping.mode is name/id (the field must then carry its delta.columnMapping.id).
Status SetAutoTtlPolicy(StringMap* configuration, const Schema& schema, const std::string& column,
                        int64_t days, bool case_sensitive);

// Removes every Auto-TTL key; false when there was none.
bool RemoveAutoTtlPolicy(StringMap* configuration);

// Checks the policy a configuration carries (if any) against the schema it goes with and
// normalizes it (canonical column spelling, the column-mapping id key added or dropped).
// For CREATE TABLE … TBLPROPERTIES('autottl.*'=…) and ALTER TABLE SET TBLPROPERTIES.
Status NormalizeAutoTtlConfiguration(StringMap* configuration, const Schema& schema,
                                     bool case_sensitive);

// Schema-change guards for the policy's column (`old_configuration` = the table's current
// configuration; no policy → OK). Names are top-level column names or dotted paths as written.
Status CheckAutoTtlColumnRename(const StringMap& old_configuration, const std::string& column,
                                bool case_sensitive);
Status CheckAutoTtlColumnDrop(const StringMap& old_configuration, const std::string& column,
                              bool case_sensitive);
Status CheckAutoTtlColumnType(const StringMap& old_configuration, const std::string& column,
                              const DataType& new_type, bool case_sensitive);

}  // namespace silt::delta
