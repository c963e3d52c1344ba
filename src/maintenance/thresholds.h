// The thresholds that decide when a maintenance job is due, shared by the advisor
// (SHOW MAINTENANCE, `silt maintain --dry-run`) and the maintenance service, so that what the
// advisor says is what the service does. Each has a config key (session `SET`, or the service's
// configuration) and a default; docs/maintenance.md lists them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "common/status.h"
#include "delta/actions.h"

namespace silt::maintenance {

// OPTIMIZE's own knobs (the statement reads the same keys): files smaller than minFileSize are
// compaction candidates, bins are packed up to maxFileSize (the table's delta.targetFileSize
// overrides it), a file whose deletion vector marks more than maxDeletedRowsRatio of its rows is
// rewritten even alone.
inline constexpr char kOptimizeMaxFileSizeConf[] = "spark.databricks.delta.optimize.maxFileSize";
inline constexpr char kOptimizeMinFileSizeConf[] = "spark.databricks.delta.optimize.minFileSize";
inline constexpr char kOptimizeMaxDeletedRowsRatioConf[] =
    "spark.databricks.delta.optimize.maxDeletedRowsRatio";
inline constexpr char kTargetFileSizeProperty[] = "delta.targetFileSize";
// [silt decision] The service compacts a table when OPTIMIZE would rewrite at least this many
// small files (Databricks' auto compaction uses 50,
// spark.databricks.delta.autoCompact.minNumFiles), or any file over the deleted-rows ratio.
inline constexpr char kCompactionMinFilesConf[] = "silt.maintenance.optimize.minNumFiles";
inline constexpr int64_t kDefaultCompactionMinFiles = 50;
// Auto-TTL's buffer between a row's expiry and its physical removal, besides the table's
// retention: up to 3 days for DELETE and 3 for VACUUM (seed 004, spec A.1).
inline constexpr int64_t kAutoTtlBufferDays = 6;
inline constexpr int64_t kAutoTtlMaxDelayPerStepDays = 3;

struct Thresholds {
  int64_t max_file_size = 1LL << 30;
  int64_t min_file_size = 1LL << 30;
  double max_deleted_rows_ratio = 0.05;
  int64_t compaction_min_files = kDefaultCompactionMinFiles;
};

// Returns the value of a config key, nullopt when unset (a session's SET values, the service's
// configuration file, …).
using ConfigLookup = std::function<std::optional<std::string>(const std::string& key)>;

// The thresholds for one table: config keys above (null lookup: defaults), then the table's
// delta.targetFileSize. Errors: a value that does not parse, or a ratio outside [0, 1]:
// InvalidArgument with class INVALID_CONF_VALUE (naming the key).
Result<Thresholds> LoadThresholds(const ConfigLookup& config,
                                  const delta::StringMap& table_properties);

}  // namespace silt::maintenance
