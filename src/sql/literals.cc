#include "sql/literals.h"

#include <cctype>
#include <string>
#include <vector>

#include "common/ascii.h"
#include "common/datetime.h"
#include "common/error_classes.h"
#include "common/time_zones.h"

namespace silt::sql {

namespace {

constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
constexpr int64_t kMicrosPerHour = 60 * kMicrosPerMinute;
constexpr int64_t kMicrosPerDay = 24 * kMicrosPerHour;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (std::isspace(static_cast<unsigned char>(s.front())) || s.front() == '\0'))
    s.remove_prefix(1);
  while (!s.empty() && (std::isspace(static_cast<unsigned char>(s.back())) || s.back() == '\0'))
    s.remove_suffix(1);
  return s;
}

// Zone text → offset seconds. False when malformed; *unsupported for region ids.
bool ParseZone(std::string_view z, int64_t* offset, bool* unsupported) {
  z = Trim(z);
  *offset = 0;
  if (z.empty()) return false;
  std::string u = AsciiUpper(z);
  if (u == "Z" || u == "UTC" || u == "GMT" || u == "UT") return true;
  std::string_view off = z;
  for (std::string_view prefix : {"UTC", "GMT", "UT"}) {
    if (u.rfind(prefix, 0) == 0 && u.size() > prefix.size() &&
        (u[prefix.size()] == '+' || u[prefix.size()] == '-')) {
      off = z.substr(prefix.size());
      break;
    }
  }
  if (off[0] != '+' && off[0] != '-') {
    // A region id (letters and '/'): the caller looks it up.
    bool region = true;
    for (char c : off) {
      if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '/' || c == '_' || c == '-')) {
        region = false;
      }
    }
    if (region && off.find('/') != std::string_view::npos) *unsupported = true;
    return false;
  }
  int sign = off[0] == '-' ? -1 : 1;
  off.remove_prefix(1);
  int h = 0, m = 0, sec = 0;
  auto digits = [](std::string_view d, int* v) {
    if (d.empty() || d.size() > 2) return false;
    *v = 0;
    for (char c : d) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
      *v = *v * 10 + (c - '0');
    }
    return true;
  };
  size_t colon = off.find(':');
  if (colon != std::string_view::npos) {
    std::string_view hs = off.substr(0, colon), rest = off.substr(colon + 1);
    size_t c2 = rest.find(':');
    std::string_view ms = c2 == std::string_view::npos ? rest : rest.substr(0, c2);
    if (!digits(hs, &h) || ms.size() != 2 || !digits(ms, &m)) return false;
    if (c2 != std::string_view::npos && !digits(rest.substr(c2 + 1), &sec)) return false;
  } else if (off.size() <= 2) {
    if (!digits(off, &h)) return false;
  } else if (off.size() == 4) {
    if (!digits(off.substr(0, 2), &h) || !digits(off.substr(2), &m)) return false;
  } else if (off.size() == 6) {  // ±hhmmss (java.time's ZoneOffset.of)
    if (!digits(off.substr(0, 2), &h) || !digits(off.substr(2, 2), &m) ||
        !digits(off.substr(4), &sec)) {
      return false;
    }
  } else {
    return false;
  }
  if (h > 18 || m > 59 || sec > 59) return false;
  *offset = sign * (h * 3600 + m * 60 + sec);
  return true;
}

}  // namespace

std::optional<int32_t> ParseSparkDate(std::string_view text) {
  SparkDateTime t;
  if (!silt::ParseSparkDate(text, kSqlLiteralSyntax, &t)) return std::nullopt;
  int64_t days = DaysFromCivil(t.year, t.month, t.day);
  if (days < INT32_MIN || days > INT32_MAX) return std::nullopt;
  return static_cast<int32_t>(days);
}

std::optional<int64_t> ParseSparkTimestamp(std::string_view text, bool* has_zone,
                                           int64_t default_offset) {
  *has_zone = false;
  SparkDateTime t;
  if (!ParseSparkDateTime(text, kSqlLiteralSyntax, &t)) return std::nullopt;
  int64_t offset = default_offset;
  std::shared_ptr<const TimeZone> region;
  if (!t.zone.empty()) {
    bool region_id = false;
    if (!ParseZone(t.zone, &offset, &region_id)) {
      if (!region_id) return std::nullopt;
      // A region id (Europe/Paris): its offset at that wall time, from the time-zone database.
      auto zone = TimeZone::Find(Trim(t.zone));
      if (!zone.ok()) return std::nullopt;
      region = *zone;
      offset = 0;
    }
    *has_zone = true;
  }
  __int128 total = static_cast<__int128>(DaysFromCivil(t.year, t.month, t.day)) * kMicrosPerDay +
                   t.hour * kMicrosPerHour + t.minute * kMicrosPerMinute +
                   t.second * kMicrosPerSecond + t.micros -
                   static_cast<__int128>(offset) * kMicrosPerSecond;
  if (total > INT64_MAX || total < INT64_MIN) return std::nullopt;
  if (region) return region->LocalMicrosToUtc(static_cast<int64_t>(total));
  return static_cast<int64_t>(total);
}

bool ParseDecimalLiteral(std::string_view text, int128_t* unscaled, int* precision, int* scale) {
  size_t i = 0;
  bool neg = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    neg = text[i] == '-';
    ++i;
  }
  std::string digits;
  int frac_digits = 0;
  bool seen_dot = false, any = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits.push_back(c);
      if (seen_dot) ++frac_digits;
      any = true;
    } else if (c == '.' && !seen_dot) {
      seen_dot = true;
    } else {
      break;
    }
  }
  if (!any) return false;
  int64_t exp = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
      eneg = text[i] == '-';
      ++i;
    }
    size_t st = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (exp < 100000) exp = exp * 10 + (text[i] - '0');
      ++i;
    }
    if (i == st) return false;
    if (eneg) exp = -exp;
  }
  if (i != text.size()) return false;
  // Strip leading zeros (BigDecimal's unscaled value has no leading zeros).
  size_t nz = 0;
  while (nz + 1 < digits.size() && digits[nz] == '0') ++nz;
  digits = digits.substr(nz);
  int64_t sc = frac_digits - exp;
  if (sc < 0) {
    // Negative scale: fold into the unscaled digits (Spark disallows negative-scale decimals).
    if (digits != "0") digits.append(static_cast<size_t>(-sc), '0');
    sc = 0;
  }
  if (digits.size() > 38 || sc > 38) return false;
  int128_t v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  int p = digits == "0" ? 1 : static_cast<int>(digits.size());
  if (sc > p) p = static_cast<int>(sc);
  if (p > 38) return false;
  *unscaled = neg ? -v : v;
  *precision = p;
  *scale = static_cast<int>(sc);
  return true;
}

Result<std::pair<int64_t, int64_t>> ParseIntervalString(std::string_view text) {
  std::string_view s = Trim(text);
  auto bad = [&]() {
    return Status::InvalidArgument("Error parsing '" + std::string(text) + "' to interval",
                                   errc::kInvalidIntervalFormat);
  };
  std::vector<std::string> words;
  {
    size_t i = 0;
    while (i < s.size()) {
      while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
      size_t st = i;
      while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
      if (i > st) {
        words.push_back(AsciiLower(s.substr(st, i - st)));
      }
    }
  }
  size_t k = 0;
  if (k < words.size() && words[k] == "interval") ++k;
  if (k >= words.size()) return bad();
  __int128 months = 0, micros = 0;
  while (k < words.size()) {
    if (k + 1 >= words.size()) return bad();
    const std::string& num = words[k];
    std::string unit = words[k + 1];
    k += 2;
    if (unit.size() > 1 && unit.back() == 's') unit.pop_back();
    int128_t unscaled;
    int p, sc;
    if (!ParseDecimalLiteral(num, &unscaled, &p, &sc) || p > 24) return bad();
    __int128 pow10 = 1;
    for (int j = 0; j < sc; ++j) pow10 *= 10;
    int64_t per = 0;
    if (unit == "year" || unit == "month") {
      if (sc != 0) return bad();
      months += unscaled * (unit == "year" ? 12 : 1);
      continue;
    }
    if (unit == "week")
      per = 7 * kMicrosPerDay;
    else if (unit == "day")
      per = kMicrosPerDay;
    else if (unit == "hour")
      per = kMicrosPerHour;
    else if (unit == "minute")
      per = kMicrosPerMinute;
    else if (unit == "second")
      per = kMicrosPerSecond;
    else if (unit == "millisecond")
      per = 1000;
    else if (unit == "microsecond")
      per = 1;
    else
      return bad();
    micros += unscaled * per / pow10;
    if (micros > INT64_MAX || micros < INT64_MIN || months > INT32_MAX || months < INT32_MIN) {
      return bad();
    }
  }
  return std::make_pair(static_cast<int64_t>(months), static_cast<int64_t>(micros));
}

}  // namespace silt::sql
