#include "delta/table_properties.h"

#include <cctype>
#include <limits>
#include <string>
#include <vector>

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

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
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
  std::string lower = Lower(*v);
  if (lower == "true") return true;
  if (lower == "false") return false;
  return BadProperty(key, *v, "needs to be a boolean (true or false)");
}

Result<int64_t> ParseIntervalMillis(std::string_view text) {
  std::vector<std::string_view> tokens = SplitWhitespace(text);
  size_t i = 0;
  if (!tokens.empty() && Lower(tokens[0]) == "interval") ++i;
  if (i >= tokens.size()) return BadInterval(text, "no value");
  __int128 total = 0;
  while (i < tokens.size()) {
    if (i + 1 >= tokens.size()) return BadInterval(text, "a value without a unit");
    std::string_view num = tokens[i];
    std::string unit = Lower(tokens[i + 1]);
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

}  // namespace silt::delta
