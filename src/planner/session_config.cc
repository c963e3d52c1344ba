#include "planner/session_config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "common/error_classes.h"
#include "io/storage_config.h"
#include "planner/catalog.h"

namespace silt::planner {

const std::vector<ConfigKey>& KnownConfigKeys() {
  using K = ConfigKey::Kind;
  static const std::vector<ConfigKey> keys = [] {
    std::vector<ConfigKey> k = {
        {"spark.sql.ansi.enabled", "true",
         "ANSI SQL mode (Spark 4's default): errors instead of NULL on bad casts, overflow, "
         "division by zero, invalid dates and array indexes; false gives Spark 3's results.",
         K::kBool},
        {"spark.sql.session.timeZone", "UTC", "Time zone of the session (IANA name or +hh:mm).",
         K::kString},
        {"spark.sql.caseSensitive", "false", "Whether column names are case-sensitive.", K::kBool},
        {"spark.sql.legacy.parser.havingWithoutGroupByAsWhere", "false",
         "HAVING without GROUP BY filters rows like WHERE (Spark 2 behaviour) instead of a global "
         "aggregate.",
         K::kBool},
        {"spark.sql.shuffle.partitions", "200",
         "Accepted for compatibility; silt sizes its own parallelism.", K::kInt},
        {"spark.databricks.delta.retentionDurationCheck.enabled", "true",
         "VACUUM refuses a retention shorter than the table's deletedFileRetentionDuration.",
         K::kBool},
        {"spark.databricks.delta.vacuum.parallelDelete.enabled", "true",
         "Delete files in parallel during VACUUM (silt's default; Spark's is false).", K::kBool},
        {"spark.databricks.delta.vacuum.logging.enabled", "true",
         "Record VACUUM START/END commits in the table history.", K::kBool},
        {"spark.databricks.delta.optimize.maxFileSize", "1073741824",
         "Target size of files written by OPTIMIZE.", K::kBytes},
        {"spark.databricks.delta.optimize.minFileSize", "1073741824",
         "Files smaller than this are compacted by OPTIMIZE.", K::kBytes},
        {"spark.databricks.delta.optimize.maxDeletedRowsRatio", "0.05",
         "OPTIMIZE rewrites files whose deleted-row ratio is above this.", K::kString},
        {"spark.databricks.delta.properties.defaults.enableDeletionVectors", "true",
         "Deletion vectors on for new tables.", K::kBool},
        {"spark.databricks.delta.schema.autoMerge.enabled", "false",
         "Schema evolution on write/MERGE.", K::kBool},
        {"spark.databricks.delta.stats.skipping", "true", "Skip files by their min/max statistics.",
         K::kBool},
        {"spark.databricks.delta.generatedColumn.partitionFilterOptimization.enabled", "true",
         "Derive partition filters from filters on the columns generated partition columns are "
         "computed from.",
         K::kBool},
        {"spark.databricks.delta.merge.enableLowShuffle", "true", "Accepted for compatibility.",
         K::kBool},
        {"spark.databricks.delta.optimizeWrite.enabled", "false", "Accepted for compatibility.",
         K::kBool},
        {"spark.sql.files.maxRecordsPerFile", "0",
         "Maximum rows per written data file (0 = no limit).", K::kInt},
        {"silt.memory.limit", "-1",
         "Memory limit for one query in bytes (-1 = the database limit).", K::kBytes},
        {"silt.tempDirectory", "",
         "Directory under which queries spill sort runs, aggregation and join partitions that do "
         "not fit under the memory limit (empty = DatabaseOptions.temp_directory, else the system "
         "temp directory).",
         K::kString},
        {"silt.spill.enabled", "true",
         "Spill to silt.tempDirectory when a sort, aggregation, join or window would exceed the "
         "memory limit (false: fail with SILT_MEMORY_LIMIT_EXCEEDED).",
         K::kBool},
        {"silt.threads", "0", "Threads for one query (0 = all).", K::kInt},
        {"silt.io.confineReadsToTableRoot", "false",
         "Read absolute add/deletion-vector paths (shallow clones) only inside the table root and "
         "silt.io.allowedReadPrefixes; others fail with SILT_READ_OUTSIDE_TABLE_ROOT. On in the "
         "maintenance service.",
         K::kBool},
        {"silt.io.allowedReadPrefixes", "",
         "Comma-separated locations whose files tables may also read while "
         "silt.io.confineReadsToTableRoot is on.",
         K::kString},
        {"spark.databricks.optimizer.dynamicFilePruning", "true",
         "Dynamic file pruning: a join's build-side keys prune the files of a Delta scan on its "
         "probe side at run time (docs/dfp.md).",
         K::kBool},
        {"spark.databricks.optimizer.deltaTableSizeThreshold", "10000000000",
         "Dynamic file pruning applies only to a Delta scan of at least this many bytes (after "
         "static pruning).",
         K::kBytes},
        {"spark.databricks.optimizer.deltaTableFilesThreshold", "10",
         "Dynamic file pruning applies only to a Delta scan of at least this many files (after "
         "static pruning).",
         K::kInt},
        {"silt.dfp.maxBuildRows", "1000000",
         "Dynamic file pruning is not applied when the join's build side has more rows.", K::kInt},
        {"silt.dfp.maxBuildFraction", "1.0",
         "Dynamic file pruning is not applied when the build side's distinct keys cover at least "
         "this fraction of the integer values between the probe column's smallest and largest "
         "statistics (1.0: only when every value there is a key, so nothing could be pruned).",
         K::kDouble},
        {"silt.runtimeFilter.rowFilterMinBytes", "8000000",
         "An inner or semi join's probe-side Delta scan below the dynamic file pruning thresholds "
         "but of "
         "at least this many bytes still filters its rows by the build keys (bloom or min/max "
         "filter, row groups by statistics) without pruning files.",
         K::kBytes},
        {"spark.sql.optimizer.runtime.bloomFilter.enabled", "true",
         "Dynamic file pruning also filters the pruned scan's rows by a bloom filter of the join's "
         "build keys (adaptive: dropped when it keeps more than 95% of the first rows).",
         K::kBool},
        {"silt.lateMaterialization", "true",
         "Delta scans with filters on some of their columns (dynamic file pruning's row filters, "
         "a pushed-down WHERE) decode those columns first and the others only for the rows the "
         "filters keep (adaptive: off for the rest of a scan whose filters keep most rows).",
         K::kBool},
        {"silt.dfp.maxInListValues", "1000",
         "Up to this many distinct build keys the runtime filter is an IN list, else a min/max "
         "range.",
         K::kInt},
        {"silt.dfp.perValueProbeLimit", "64",
         "IN lists up to this size test each value against a file's min/max; longer ones are "
         "coalesced into this many ranges split at the largest gaps between the sorted values.",
         K::kInt},
        {"silt.dfp.waitTimeoutMs", "0",
         "Accepted: silt's hash join always finishes its build side before the pruned scan lists "
         "its files, so there is never a wait.",
         K::kInt},
    };
    std::sort(k.begin(), k.end(),
              [](const ConfigKey& a, const ConfigKey& b) { return std::string(a.key) < b.key; });
    return k;
  }();
  return keys;
}

namespace {
const ConfigKey* FindKey(const std::string& key) {
  for (const ConfigKey& k : KnownConfigKeys()) {
    if (LowerName(k.key) == LowerName(key)) return &k;
  }
  return nullptr;
}
}  // namespace

std::optional<bool> ParseBoolText(const std::string& text) {
  std::string t = LowerName(text);
  if (t == "true") return true;
  if (t == "false") return false;
  return std::nullopt;
}

std::optional<int64_t> ParseByteSize(const std::string& text) {
  std::string t = LowerName(text);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  size_t i = 0;
  bool neg = !t.empty() && t[0] == '-';
  if (neg) ++i;
  size_t digits_start = i;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  if (i == digits_start) return std::nullopt;
  int64_t v = std::strtoll(t.substr(digits_start, i - digits_start).c_str(), nullptr, 10);
  std::string unit = t.substr(i);
  int64_t mult = 1;
  if (unit.empty() || unit == "b")
    mult = 1;
  else if (unit == "k" || unit == "kb")
    mult = 1LL << 10;
  else if (unit == "m" || unit == "mb")
    mult = 1LL << 20;
  else if (unit == "g" || unit == "gb")
    mult = 1LL << 30;
  else if (unit == "t" || unit == "tb")
    mult = 1LL << 40;
  else
    return std::nullopt;
  return (neg ? -v : v) * mult;
}

Status SessionConfig::Set(const std::string& key, const std::string& value) {
  if (IsStorageConfigKey(key)) {
    // Cloud storage credentials and endpoints (io/storage_config.h): process-wide, like the
    // Hadoop configuration; the session keeps only the redacted text, so SET never prints them.
    SetStorageConfig(key, value);
    values_[key] = kRedactedValue;
    return Status::OK();
  }
  const ConfigKey* k = FindKey(key);
  std::string name = k ? k->key : key;
  if (k) {
    bool ok = true;
    switch (k->kind) {
      case ConfigKey::Kind::kBool:
        ok = ParseBoolText(value).has_value();
        break;
      case ConfigKey::Kind::kInt: {
        char* end = nullptr;
        std::strtoll(value.c_str(), &end, 10);
        ok = !value.empty() && *end == '\0';
        break;
      }
      case ConfigKey::Kind::kBytes:
        ok = ParseByteSize(value).has_value();
        break;
      case ConfigKey::Kind::kDouble: {
        char* end = nullptr;
        const double d = std::strtod(value.c_str(), &end);
        ok = !value.empty() && *end == '\0' && std::isfinite(d);
        break;
      }
      case ConfigKey::Kind::kString:
        break;
    }
    if (!ok) {
      return Status::InvalidArgument(
          "The value '" + value + "' in the config \"" + name + "\" is invalid.",
          errc::kInvalidConfValue);
    }
  }
  values_[name] = value;
  return Status::OK();
}

void SessionConfig::Reset(const std::string& key) {
  if (IsStorageConfigKey(key) && values_.count(key) != 0) SetStorageConfig(key, std::nullopt);
  const ConfigKey* k = FindKey(key);
  values_.erase(k ? k->key : key);
}

std::optional<std::string> SessionConfig::Get(const std::string& key) const {
  const ConfigKey* k = FindKey(key);
  auto it = values_.find(k ? k->key : key);
  if (it != values_.end()) return it->second;
  if (k) return std::string(k->default_value);
  return std::nullopt;
}

bool SessionConfig::GetBool(const std::string& key, bool fallback) const {
  auto v = Get(key);
  if (!v) return fallback;
  return ParseBoolText(*v).value_or(fallback);
}

int64_t SessionConfig::GetInt(const std::string& key, int64_t fallback) const {
  auto v = Get(key);
  if (!v) return fallback;
  char* end = nullptr;
  int64_t r = std::strtoll(v->c_str(), &end, 10);
  return (end && *end == '\0' && !v->empty()) ? r : fallback;
}

double SessionConfig::GetDouble(const std::string& key, double fallback) const {
  auto v = Get(key);
  if (!v) return fallback;
  char* end = nullptr;
  const double r = std::strtod(v->c_str(), &end);
  return (end && *end == '\0' && !v->empty() && std::isfinite(r)) ? r : fallback;
}

int64_t SessionConfig::GetBytes(const std::string& key, int64_t fallback) const {
  auto v = Get(key);
  if (!v) return fallback;
  return ParseByteSize(*v).value_or(fallback);
}

}  // namespace silt::planner
