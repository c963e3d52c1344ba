// Typed access to the Delta table properties (metaData.configuration) that checkpointing and log
// cleanup read, with Delta-Spark's defaults and validation (DeltaConfigs.scala), and the parser
// for Spark's interval strings that the duration properties use.
//
// Every getter takes the table's configuration map, returns the default when the key is absent,
// and fails with InvalidArgument (class kInvalidTablePropertyClass, the message naming the key
// and the bad value) when the value does not validate — as Spark does when it reads the property.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/error_classes.h"
#include "common/status.h"
#include "delta/actions.h"

namespace silt::delta {

inline constexpr auto& kInvalidTablePropertyClass = errc::kDeltaInvalidTableProperty;
inline constexpr auto& kInvalidIntervalClass = errc::kDeltaInvalidInterval;
inline constexpr auto& kUnknownConfigurationClass = errc::kDeltaUnknownConfiguration;
inline constexpr auto& kCannotModifyTablePropertyClass = errc::kDeltaCannotModifyTableProperty;

inline constexpr char kCheckpointIntervalKey[] = "delta.checkpointInterval";
inline constexpr char kLogRetentionDurationKey[] = "delta.logRetentionDuration";
inline constexpr char kDeletedFileRetentionDurationKey[] = "delta.deletedFileRetentionDuration";
inline constexpr char kCheckpointRetentionDurationKey[] = "delta.checkpointRetentionDuration";
inline constexpr char kEnableExpiredLogCleanupKey[] = "delta.enableExpiredLogCleanup";
inline constexpr char kCheckpointWriteStatsAsJsonKey[] = "delta.checkpoint.writeStatsAsJson";
inline constexpr char kSetTransactionRetentionDurationKey[] =
    "delta.setTransactionRetentionDuration";

inline constexpr int64_t kMillisPerDay = 24LL * 3600 * 1000;
inline constexpr int64_t kDefaultCheckpointInterval = 10;
inline constexpr int64_t kDefaultLogRetentionMillis = 30 * kMillisPerDay;
inline constexpr int64_t kDefaultDeletedFileRetentionMillis = 7 * kMillisPerDay;
inline constexpr int64_t kDefaultCheckpointRetentionMillis = 2 * kMillisPerDay;

// Parses a Spark CalendarInterval string as Delta's duration properties hold it and returns its
// length in milliseconds (Delta's DeltaConfigs.getMilliSeconds: microseconds / 1000, a day is
// 24 hours). Accepted: optional leading "interval", then one or more "<integer> <unit>" pairs,
// e.g. "interval 7 days", "interval 1 hours", "2 weeks", "interval 1 day 12 hours". Units
// (singular or plural, case-insensitive): week, day, hour, minute, second (a fraction is allowed
// here, "1.5 seconds"), millisecond, microsecond, nanosecond (truncated to whole microseconds).
// Years and months are rejected (Delta refuses month-based retention: months have no fixed
// length); so are negative totals, overflow and anything else. Errors: InvalidArgument,
// class kInvalidIntervalClass.
Result<int64_t> ParseIntervalMillis(std::string_view text);

// A boolean property ("true"/"false", case-insensitive); default when absent, InvalidArgument
// (DELTA_INVALID_TABLE_PROPERTY) for any other text.
Result<bool> GetBoolProperty(const StringMap& configuration, const char* key, bool default_value);

// The random directory prefix length of new files (Spark's delta.randomPrefixLength, 2 when
// unset) when delta.randomizeFilePrefixes is true; 0 otherwise (lenient: bad text counts as off).
int RandomPrefixLength(const StringMap& configuration);

// delta.checkpointInterval: commits between checkpoints; an integer > 0, default 10.
Result<int64_t> GetCheckpointInterval(const StringMap& configuration);
// delta.logRetentionDuration: how long commits/checkpoints are kept; default 30 days.
Result<int64_t> GetLogRetentionMillis(const StringMap& configuration);
// delta.deletedFileRetentionDuration: how long tombstones are kept; default 1 week.
Result<int64_t> GetDeletedFileRetentionMillis(const StringMap& configuration);
// delta.checkpointRetentionDuration: default 2 days (Spark uses it for v2 sidecar cleanup).
Result<int64_t> GetCheckpointRetentionMillis(const StringMap& configuration);
// delta.enableExpiredLogCleanup: "true"/"false" (case-insensitive), default true.
Result<bool> GetEnableExpiredLogCleanup(const StringMap& configuration);
// delta.checkpoint.writeStatsAsJson: default true.
Result<bool> GetCheckpointWriteStatsAsJson(const StringMap& configuration);
// delta.setTransactionRetentionDuration: no default (nullopt: txns never expire).
Result<std::optional<int64_t>> GetSetTransactionRetentionMillis(const StringMap& configuration);

// Validates table properties a user gives (CREATE TABLE … TBLPROPERTIES, ALTER TABLE … SET
// TBLPROPERTIES) as Spark's DeltaConfigs.validateConfigurations does, and returns them with the
// keys of known delta.* properties in their canonical case ('DELTA.APPENDONLY' →
// delta.appendOnly). Keys outside delta.*, delta.constraints.*, delta.feature.* and
// delta.universalFormat.config.* pass unchanged. Known keys are the Delta Spark ones plus the
// Databricks/Fabric ones users meet (delta.targetFileSize, delta.autoOptimize.autoCompact,
// delta.parquet.vorder.enabled, …). Errors: an unknown delta.* key →
// kUnknownConfigurationClass, unless `allow_arbitrary`
// (spark.databricks.delta.allowArbitraryProperties.enabled); a bad value →
// kInvalidTablePropertyClass, naming the key and what it needs (empty interval:
// DELTA_INVALID_CALENDAR_INTERVAL_EMPTY; a bad one: kInvalidIntervalClass); an internal key
// (delta.columnMapping.maxColumnId, row tracking's column names) →
// kCannotModifyTablePropertyClass.
Result<StringMap> ValidateTableProperties(const StringMap& properties, bool allow_arbitrary);
// A property key as ValidateTableProperties would store it: known delta.* keys in their
// canonical case, anything else unchanged (Spark's DeltaConfigs.normalizeConfigKeys).
std::string NormalizeTablePropertyKey(std::string_view key);

}  // namespace silt::delta
