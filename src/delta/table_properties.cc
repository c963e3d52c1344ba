#include "delta/table_properties.h"

#include <cctype>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "common/ascii.h"
#include "common/error_classes.h"
#include "delta/iceberg_compat.h"
#include "delta/table_features.h"

namespace silt::delta {
namespace {

constexpr int64_t kMicrosPerMilli = 1000;
constexpr int64_t kMicrosPerSecond = 1000 * kMicrosPerMilli;
constexpr int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
constexpr int64_t kMicrosPerHour = 60 * kMicrosPerMinute;
constexpr int64_t kMicrosPerDay = 24 * kMicrosPerHour;

Status BadInterval(std::string_view text, std::string_view why) {
  return Status::InvalidArgument(
      "'" + std::string(text) + "' is not a valid INTERVAL: " + std::string(why),
      kInvalidIntervalClass);
}

std::vector<std::string_view> SplitWhitespace(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t start = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

// Micros per unit (singular or plural), 0 for month-based units, -1 for unknown ones.
int64_t UnitMicros(std::string unit) {
  if (unit.size() > 1 && unit.back() == 's') unit.pop_back();
  if (unit == "week") return 7 * kMicrosPerDay;
  if (unit == "day") return kMicrosPerDay;
  if (unit == "hour") return kMicrosPerHour;
  if (unit == "minute") return kMicrosPerMinute;
  if (unit == "second") return kMicrosPerSecond;
  if (unit == "millisecond") return kMicrosPerMilli;
  if (unit == "microsecond") return 1;
  if (unit == "nanosecond") return 1;  // handled by the caller (divides by 1000)
  if (unit == "year" || unit == "month") return 0;
  return -1;
}

Result<std::string_view> Property(const StringMap& configuration, const char* key) {
  const std::string* v = configuration.Find(key);
  if (!v) return Status::NotFound(key);
  return std::string_view(*v);
}

Status BadProperty(const char* key, std::string_view value, std::string_view why) {
  return Status::InvalidArgument(
      std::string(key) + " = '" + std::string(value) + "': " + std::string(why),
      kInvalidTablePropertyClass);
}

Result<int64_t> DurationProperty(const StringMap& configuration, const char* key,
                                 int64_t default_millis) {
  auto v = Property(configuration, key);
  if (!v.ok()) return default_millis;
  auto millis = ParseIntervalMillis(*v);
  if (!millis.ok()) return BadProperty(key, *v, millis.status().message());
  return *millis;
}

}  // namespace

Result<bool> GetBoolProperty(const StringMap& configuration, const char* key, bool default_value) {
  auto v = Property(configuration, key);
  if (!v.ok()) return default_value;
  std::string lower = AsciiLower(*v);
  if (lower == "true") return true;
  if (lower == "false") return false;
  return BadProperty(key, *v, "needs to be a boolean (true or false)");
}

int RandomPrefixLength(const StringMap& configuration) {
  if (!GetBoolProperty(configuration, "delta.randomizeFilePrefixes", false).ValueOr(false))
    return 0;
  const std::string* n = configuration.Find("delta.randomPrefixLength");
  return n ? std::atoi(n->c_str()) : 2;
}

Result<int64_t> ParseIntervalMillis(std::string_view text) {
  std::vector<std::string_view> tokens = SplitWhitespace(text);
  size_t i = 0;
  if (!tokens.empty() && AsciiLower(tokens[0]) == "interval") ++i;
  if (i >= tokens.size()) return BadInterval(text, "no value");
  __int128 total = 0;
  while (i < tokens.size()) {
    if (i + 1 >= tokens.size()) return BadInterval(text, "a value without a unit");
    std::string_view num = tokens[i];
    std::string unit = AsciiLower(tokens[i + 1]);
    i += 2;
    int64_t per_unit = UnitMicros(unit);
    if (per_unit < 0) return BadInterval(text, "unknown unit '" + unit + "'");
    if (per_unit == 0) return BadInterval(text, "month-based units have no fixed length");
    bool negative = false;
    if (!num.empty() && (num[0] == '-' || num[0] == '+')) {
      negative = num[0] == '-';
      num.remove_prefix(1);
    }
    std::string_view whole = num, frac;
    if (size_t dot = num.find('.'); dot != std::string_view::npos) {
      whole = num.substr(0, dot);
      frac = num.substr(dot + 1);
      if (per_unit != kMicrosPerSecond || frac.empty() || frac.size() > 9)
        return BadInterval(text, "only seconds may have a fraction (up to 9 digits)");
    }
    if (whole.empty() || whole.size() > 18) return BadInterval(text, "bad number");
    int64_t n = 0;
    for (char c : whole) {
      if (c < '0' || c > '9') return BadInterval(text, "bad number");
      n = n * 10 + (c - '0');
    }
    __int128 micros = static_cast<__int128>(n) * per_unit;
    if (unit.rfind("nanosecond", 0) == 0) micros /= 1000;
    if (!frac.empty()) {
      int64_t f = 0;
      for (size_t k = 0; k < 9; ++k) {
        char c = k < frac.size() ? frac[k] : '0';
        if (c < '0' || c > '9') return BadInterval(text, "bad number");
        f = f * 10 + (c - '0');
      }
      micros += f / 1000;  // nanoseconds of the fraction → micros
    }
    total += negative ? -micros : micros;
    if (total > std::numeric_limits<int64_t>::max() || total < std::numeric_limits<int64_t>::min())
      return BadInterval(text, "out of range");
  }
  if (total < 0) return BadInterval(text, "negative durations are not allowed");
  return static_cast<int64_t>(total / kMicrosPerMilli);
}

Result<int64_t> GetCheckpointInterval(const StringMap& configuration) {
  auto v = Property(configuration, kCheckpointIntervalKey);
  if (!v.ok()) return kDefaultCheckpointInterval;
  std::string_view s = *v;
  // Spark's String.toInt: optional sign, decimal digits, 32-bit range.
  bool negative = !s.empty() && s[0] == '-';
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  int64_t n = 0;
  bool ok = !s.empty() && s.size() <= 10;
  for (char c : s) {
    if (c < '0' || c > '9') {
      ok = false;
      break;
    }
    n = n * 10 + (c - '0');
  }
  if (!ok || n > std::numeric_limits<int32_t>::max())
    return BadProperty(kCheckpointIntervalKey, *v, "needs to be an integer");
  if (negative || n <= 0) return BadProperty(kCheckpointIntervalKey, *v, "needs to be > 0");
  return n;
}

Result<int64_t> GetLogRetentionMillis(const StringMap& configuration) {
  return DurationProperty(configuration, kLogRetentionDurationKey, kDefaultLogRetentionMillis);
}

Result<int64_t> GetDeletedFileRetentionMillis(const StringMap& configuration) {
  return DurationProperty(configuration, kDeletedFileRetentionDurationKey,
                          kDefaultDeletedFileRetentionMillis);
}

Result<int64_t> GetCheckpointRetentionMillis(const StringMap& configuration) {
  return DurationProperty(configuration, kCheckpointRetentionDurationKey,
                          kDefaultCheckpointRetentionMillis);
}

Result<bool> GetEnableExpiredLogCleanup(const StringMap& configuration) {
  return GetBoolProperty(configuration, kEnableExpiredLogCleanupKey, true);
}

Result<bool> GetCheckpointWriteStatsAsJson(const StringMap& configuration) {
  return GetBoolProperty(configuration, kCheckpointWriteStatsAsJsonKey, true);
}

Result<std::optional<int64_t>> GetSetTransactionRetentionMillis(const StringMap& configuration) {
  auto v = Property(configuration, kSetTransactionRetentionDurationKey);
  if (!v.ok()) return std::optional<int64_t>();
  auto millis = ParseIntervalMillis(*v);
  if (!millis.ok())
    return BadProperty(kSetTransactionRetentionDurationKey, *v, millis.status().message());
  return std::optional<int64_t>(*millis);
}

namespace {

enum class Kind : uint8_t {
  kBool,
  kInterval,
  kPositiveInt,
  kIntAtLeastMinus1,
  kProtocolVersion,
  kString,
  kInternal
};

struct Known {
  const char* key;  // canonical spelling
  Kind kind;
  std::vector<std::string> choices;  // kString: allowed values (lower case); empty: any
};

const std::vector<Known>& KnownProperties() {
  static const std::vector<Known> kKnown = {
      {"delta.appendOnly", Kind::kBool, {}},
      {"delta.autoOptimize", Kind::kBool, {}},
      {"delta.autoOptimize.autoCompact", Kind::kString, {"auto", "legacy", "true", "false"}},
      {"delta.autoOptimize.optimizeWrite", Kind::kBool, {}},
      {"delta.checkpoint.writeStatsAsJson", Kind::kBool, {}},
      {"delta.checkpoint.writeStatsAsStruct", Kind::kBool, {}},
      {"delta.checkpointInterval", Kind::kPositiveInt, {}},
      {"delta.checkpointPolicy", Kind::kString, {"classic", "v2"}},
      {"delta.checkpointRetentionDuration", Kind::kInterval, {}},
      {"delta.columnMapping.maxColumnId", Kind::kInternal, {}},
      {"delta.columnMapping.mode", Kind::kString, {"none", "name", "id"}},
      {"delta.compatibility.symlinkFormatManifest.enabled", Kind::kBool, {}},
      {"delta.dataSkippingNumIndexedCols", Kind::kIntAtLeastMinus1, {}},
      {"delta.dataSkippingStatsColumns", Kind::kString, {}},
      {"delta.deletedFileRetentionDuration", Kind::kInterval, {}},
      {"delta.dropFeatureTruncateHistory.retentionDuration", Kind::kInterval, {}},
      {"delta.enableChangeDataCapture", Kind::kBool, {}},
      {"delta.enableChangeDataFeed", Kind::kBool, {}},
      {"delta.enableDeletionVectors", Kind::kBool, {}},
      {"delta.enableExpiredLogCleanup", Kind::kBool, {}},
      {"delta.enableFullRetentionRollback", Kind::kBool, {}},
      {"delta.enableIcebergCompatV1", Kind::kBool, {}},
      {"delta.enableIcebergCompatV2", Kind::kBool, {}},
      {"delta.enableInCommitTimestamps", Kind::kBool, {}},
      {"delta.enableRowTracking", Kind::kBool, {}},
      {"delta.enableTypeWidening", Kind::kBool, {}},
      {"delta.ignoreProtocolDefaults", Kind::kBool, {}},
      {"delta.inCommitTimestampEnablementTimestamp", Kind::kInternal, {}},
      {"delta.inCommitTimestampEnablementVersion", Kind::kInternal, {}},
      {"delta.isolationLevel", Kind::kString, {"serializable", "writeserializable"}},
      {"delta.logRetentionDuration", Kind::kInterval, {}},
      {"delta.minReaderVersion", Kind::kProtocolVersion, {}},
      {"delta.minWriterVersion", Kind::kProtocolVersion, {}},
      {"delta.parquet.vorder.enabled", Kind::kBool, {}},
      {"delta.randomizeFilePrefixes", Kind::kBool, {}},
      {"delta.randomPrefixLength", Kind::kPositiveInt, {}},
      {"delta.rowTracking.materializedRowCommitVersionColumnName", Kind::kInternal, {}},
      {"delta.rowTracking.materializedRowIdColumnName", Kind::kInternal, {}},
      {"delta.rowTrackingSuspended", Kind::kBool, {}},
      {"delta.sampleRetentionDuration", Kind::kInterval, {}},
      {"delta.setTransactionRetentionDuration", Kind::kInterval, {}},
      {"delta.targetFileSize", Kind::kString, {}},
      {"delta.timeUntilArchived", Kind::kInterval, {}},
      {"delta.tuneFileSizesForRewrites", Kind::kBool, {}},
      {"delta.universalFormat.enabledFormats", Kind::kString, {}},
  };
  return kKnown;
}

bool ParseInt32(std::string_view s, int64_t* out) {
  bool negative = !s.empty() && s[0] == '-';
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  if (s.empty() || s.size() > 10) return false;
  int64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + (c - '0');
  }
  if (n > std::numeric_limits<int32_t>::max()) return false;
  *out = negative ? -n : n;
  return true;
}

Status ValidateValue(const Known& k, const std::string& value) {
  auto fail = [&](std::string_view needs) {
    return BadProperty(k.key, value, std::string(k.key) + " " + std::string(needs));
  };
  int64_t n = 0;
  switch (k.kind) {
    case Kind::kBool: {
      std::string lower = AsciiLower(value);
      return lower == "true" || lower == "false" ? Status::OK() : fail("needs to be a boolean.");
    }
    case Kind::kInterval: {
      if (SplitWhitespace(value).empty()) {
        return Status::InvalidArgument("Interval cannot be null or blank.",
                                       errc::kDeltaInvalidCalendarIntervalEmpty);
      }
      Result<int64_t> ms = ParseIntervalMillis(value);
      if (ms.ok()) return Status::OK();
      return Status::InvalidArgument(
          std::string(ms.status().message()) + " (" + k.key +
              " needs to be provided as a calendar interval such as '2 weeks'. Months and "
              "years are not accepted. You may specify '365 days' for a year instead.)",
          kInvalidIntervalClass);
    }
    case Kind::kPositiveInt:
      return ParseInt32(value, &n) && n > 0 ? Status::OK()
                                            : fail("needs to be a positive integer.");
    case Kind::kIntAtLeastMinus1:
      return ParseInt32(value, &n) && n >= -1 ? Status::OK()
                                              : fail("needs to be larger than or equal to -1.");
    case Kind::kProtocolVersion: {
      bool reader = std::string_view(k.key) == "delta.minReaderVersion";
      if (ParseInt32(value, &n) && n >= 1 && n <= (reader ? 3 : 7)) return Status::OK();
      return fail(reader ? "needs to be one of 1, 2, 3."
                         : "needs to be one of 1, 2, 3, 4, 5, 6, 7.");
    }
    case Kind::kString: {
      if (k.choices.empty()) return Status::OK();
      std::string lower = AsciiLower(value);
      for (const auto& c : k.choices) {
        if (c == lower) return Status::OK();
      }
      std::string list;
      for (const auto& c : k.choices) list += (list.empty() ? "" : ", ") + c;
      return fail("needs to be one of: " + list + ".");
    }
    case Kind::kInternal:
      return Status::InvalidArgument(std::string("The Delta table configuration ") + k.key +
                                         " cannot be specified by the user",
                                     kCannotModifyTablePropertyClass);
  }
  return Status::OK();
}

const Known* FindKnown(std::string_view key) {
  static const std::map<std::string, const Known*> kByLower = [] {
    std::map<std::string, const Known*> m;
    for (const Known& k : KnownProperties()) m[AsciiLower(k.key)] = &k;
    return m;
  }();
  auto it = kByLower.find(AsciiLower(key));
  return it == kByLower.end() ? nullptr : it->second;
}

// `delta.feature.<name> = supported` (Delta's TableFeatureProtocolUtils): the feature's name as
// Delta spells it. The status must be supported (or enabled, its older spelling), and the
// feature one silt can write: a table claiming a feature silt does not implement is refused
// rather than created with a protocol that lies.
Result<std::string> FeatureOfProperty(const std::string& key, const std::string& value) {
  const std::string name = key.substr(std::string_view("delta.feature.").size());
  const std::string status = AsciiLower(value);
  if (status != "supported" && status != "enabled") {
    return Status::InvalidArgument("Unable to enable table feature " + name +
                                       " because it requires the status 'supported', got '" +
                                       value + "'.",
                                   errc::kDeltaUnsupportedFeatureStatus);
  }
  for (const auto* list : {&SupportedWriterFeatures(), &SupportedReaderFeatures()}) {
    for (const std::string& f : *list) {
      if (AsciiLower(f) == AsciiLower(name)) return f;
    }
  }
  return Status::InvalidArgument(
      "The following table features specified in config are not recognized or not supported "
      "by silt: " +
          name,
      errc::kDeltaUnsupportedFeaturesInConfig);
}

}  // namespace

std::string NormalizeTablePropertyKey(std::string_view key) {
  const Known* k = FindKnown(key);
  return k ? k->key : std::string(key);
}

Result<StringMap> ValidateTableProperties(const StringMap& properties, bool allow_arbitrary) {
  StringMap out;
  for (const auto& [key, value] : properties) {
    std::string lower = AsciiLower(key);
    if (lower.rfind("delta.feature.", 0) == 0) {
      SILT_ASSIGN_OR_RETURN(std::string feature, FeatureOfProperty(key, value));
      out.Set("delta.feature." + feature, value);
      continue;
    }
    if (lower.rfind("delta.", 0) != 0 || lower.rfind("delta.constraints.", 0) == 0 ||
        lower.rfind("delta.universalformat.config.", 0) == 0) {
      out.Set(key, value);
      continue;
    }
    const Known* known = FindKnown(key);
    if (!known) {
      if (allow_arbitrary) {
        out.Set(key, value);
        continue;
      }
      return Status::InvalidArgument(
          "Unknown configuration was specified: " + key +
              "\nTo disable this check, set "
              "spark.databricks.delta.allowArbitraryProperties.enabled=true in the Spark "
              "session configuration.",
          kUnknownConfigurationClass);
    }
    SILT_RETURN_NOT_OK(ValidateValue(*known, value));
    // IcebergCompatV1/V2 and UniForm (Iceberg) are built (delta/iceberg_compat.h); Hudi and
    // anything else would be a property that claims what the table does not do.
    const std::string_view k = known->key;
    if (k == "delta.universalFormat.enabledFormats") {
      for (const std::string& f : UniversalFormats(value)) {
        if (f == "iceberg") continue;
        if (f == "hudi") {
          return Status::NotImplemented("UniForm (Hudi) is not implemented; only 'iceberg' is",
                                        errc::kNotImplemented);
        }
        return BadProperty(known->key, value,
                           "delta.universalFormat.enabledFormats needs to be a comma-separated "
                           "list of formats among: iceberg, hudi.");
      }
    }
    out.Set(known->key, value);
  }
  return out;
}

}  // namespace silt::delta
