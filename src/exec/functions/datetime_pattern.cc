// exec::cal's text side (declared in datetime_calendar.h): Spark's string → date/timestamp
// conversions over the common/datetime.h grammar with the tz database, and the DateTimePattern
// engine (Spark's DateTimeFormatter patterns: compile, format, strict parse).
#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>

#include "common/ascii.h"
#include "common/error_classes.h"
#include "exec/functions/datetime_calendar.h"

namespace silt::exec {

namespace cal {

// ---------------------------------------------------------------------------------------------
// String → date / timestamp (Spark's stringToDate / stringToTimestamp)

namespace {

// CAST and the functions trim like UTF8String.trimAll and take an hour alone as a time.
constexpr const SparkDateTimeSyntax& kCastSyntax = kCastDateTimeSyntax;

// The fields of a timestamp text and its zone (null when the text names none).
struct ParsedStamp {
  SparkDateTime fields;
  TimeZonePtr zone;
};

std::optional<ParsedStamp> ParseStamp(std::string_view text) {
  ParsedStamp p;
  if (!ParseSparkDateTime(text, kCastSyntax, &p.fields)) return std::nullopt;
  if (!p.fields.zone.empty()) {
    auto tz = TimeZone::Find(p.fields.zone);
    if (!tz.ok()) return std::nullopt;
    p.zone = *tz;
  }
  return p;
}

}  // namespace

std::optional<int32_t> ParseDate(std::string_view text) {
  SparkDateTime t;
  if (!ParseSparkDate(text, kCastSyntax, &t)) return std::nullopt;
  return static_cast<int32_t>(DaysFromCivil(t.year, t.month, t.day));
}

std::optional<int64_t> ParseTimestamp(std::string_view s, const TimeZone& zone) {
  auto p = ParseStamp(s);
  int64_t local;
  if (!p || !SparkDateTimeLocalMicros(p->fields, &local)) return std::nullopt;
  return p->zone ? p->zone->LocalMicrosToUtc(local) : zone.LocalMicrosToUtc(local);
}

std::optional<int64_t> ParseTimestampNtz(std::string_view s) {
  auto p = ParseStamp(s);
  int64_t local;
  if (!p || !SparkDateTimeLocalMicros(p->fields, &local)) return std::nullopt;
  return local;
}

// ---------------------------------------------------------------------------------------------
// DateTimePattern

namespace {

const char* kMonthShort[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                             "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
const char* kMonthLong[] = {"January", "February", "March",     "April",   "May",      "June",
                            "July",    "August",   "September", "October", "November", "December"};
const char* kDayShort[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
const char* kDayLong[] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                          "Friday", "Saturday", "Sunday"};

Status PatternError(std::string_view pattern, const std::string& why, const char* cls) {
  return Status::InvalidArgument(
      "Fail to recognize '" + std::string(pattern) + "' pattern in the DateTimeFormatter: " + why,
      cls);
}

// A pattern java.time's DateTimeFormatter rejects (Spark's own checks passed).
Status JavaPatternError(std::string_view pattern) {
  return Status::InvalidArgument(
      "Fail to recognize '" + std::string(pattern) +
          "' pattern in the DateTimeFormatter. You can form a valid datetime pattern with the "
          "guide from 'https://spark.apache.org/docs/latest/sql-ref-datetime-pattern.html'.",
      errc::kInvalidDatetimePatternWithSuggestion);
}

bool IsNumericLetter(char c) { return std::strchr("yudDHhKkmsSMLQq", c) != nullptr; }

void AppendPadded(std::string* out, int64_t v, int width) {
  std::string d = std::to_string(v < 0 ? -v : v);
  if (v < 0) out->push_back('-');
  if (static_cast<int>(d.size()) < width) out->append(static_cast<size_t>(width) - d.size(), '0');
  *out += d;
}

void AppendOffset(std::string* out, int32_t off, bool colon, bool with_seconds_if_any,
                  bool minutes_optional) {
  int a = off < 0 ? -off : off;
  char buf[16];
  int h = a / 3600, m = a / 60 % 60, s = a % 60;
  out->push_back(off < 0 ? '-' : '+');
  snprintf(buf, sizeof buf, "%02d", h);
  *out += buf;
  if (minutes_optional && m == 0 && s == 0) return;
  if (colon) out->push_back(':');
  snprintf(buf, sizeof buf, "%02d", m);
  *out += buf;
  if (with_seconds_if_any && s) {
    if (colon) out->push_back(':');
    snprintf(buf, sizeof buf, "%02d", s);
    *out += buf;
  }
}

bool MatchText(std::string_view s, size_t* i, std::string_view word) {
  if (s.size() - *i < word.size()) return false;
  if (!EqualsIgnoreCase(s.substr(*i, word.size()), word)) return false;
  *i += word.size();
  return true;
}

// Parsed fields; -1 = absent.
struct Fields {
  int64_t year = INT64_MIN;
  int month = -1, day = -1, doy = -1;
  int hour24 = -1, hour12 = -1, ampm = -1, clock24 = -1;
  int minute = -1, second = -1;
  int64_t nanos = -1;
  bool era_bc = false;
  bool has_offset = false;
  int32_t offset = 0;
  TimeZonePtr zone;
};

}  // namespace

namespace {

// Whether Java's SimpleDateFormat (Spark's LEGACY time parser) accepts the pattern: letters of
// its set (X at most 3 times in a row), anything else a literal, quotes closed.
bool LegacyAccepts(std::string_view pattern) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\'') {
      size_t j = i + 1;
      while (j < pattern.size() && pattern[j] != '\'') ++j;
      if (j >= pattern.size()) return false;
      i = j;
      continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(c))) continue;
    if (!std::strchr("GyYMLwWDdFEuaHkKhmsSzZX", c)) return false;
    size_t j = i;
    while (j < pattern.size() && pattern[j] == c) ++j;
    if (c == 'X' && j - i > 3) return false;
    i = j - 1;
  }
  return true;
}

}  // namespace

// Spark checks a pattern itself (week-based letters, letters it does not support, some lengths),
// then with java.time's DateTimeFormatter; when either rejects it and the legacy formatter would
// have accepted it, the error is DATETIME_PATTERN_RECOGNITION (the pattern meant something before
// Spark 3.0); otherwise Spark's own checks keep their class and java.time's errors become
// INVALID_DATETIME_PATTERN.WITH_SUGGESTION.
Result<DateTimePattern> DateTimePattern::Compile(std::string_view pattern) {
  Result<DateTimePattern> strict = CompileStrict(pattern);
  if (strict.ok()) return strict;
  if (LegacyAccepts(pattern)) {
    return Status::InvalidArgument(
        "Fail to recognize '" + std::string(pattern) +
            "' pattern in the DateTimeFormatter. You can set \"spark.sql.legacy.timeParserPolicy\" "
            "to \"LEGACY\" to restore the behavior before Spark 3.0. You can form a valid datetime "
            "pattern with the guide from "
            "'https://spark.apache.org/docs/latest/sql-ref-datetime-pattern.html'.",
        errc::kInconsistentBehaviorCrossVersionDatetimePatternRecognition);
  }
  return strict;
}

Result<DateTimePattern> DateTimePattern::CompileStrict(std::string_view pattern) {
  DateTimePattern p;
  bool has_era = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\'') {
      size_t j = i + 1;
      std::string lit;
      while (j < pattern.size()) {
        if (pattern[j] == '\'') {
          if (j + 1 < pattern.size() && pattern[j + 1] == '\'') {
            lit += '\'';
            j += 2;
            continue;
          }
          break;
        }
        lit += pattern[j++];
      }
      if (j >= pattern.size() && !(i + 1 < pattern.size() && pattern[i + 1] == '\'')) {
        return JavaPatternError(pattern);  // "Pattern ends with an incomplete string literal"
      }
      if (j == i + 1) lit = "'";  // '' is a single quote
      Token t;
      t.literal = lit;
      p.tokens_.push_back(t);
      i = j;
      continue;
    }
    if (c == '[' || c == ']') {
      Token t;
      t.letter = c;
      p.tokens_.push_back(t);
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < pattern.size() && pattern[j] == c) ++j;
      int count = static_cast<int>(j - i);
      if (std::strchr("YWwuec", c)) {
        return Status::InvalidArgument(
            std::string("All week-based patterns are unsupported since Spark 3.0, detected: ") + c +
                ", Please use the SQL function EXTRACT instead",
            errc::kInconsistentBehaviorCrossVersionDatetimeWeekBasedPattern);
      }
      if (std::strchr("AnNpB", c)) {  // Spark's own list of unsupported letters
        return PatternError(pattern, std::string("Illegal pattern character: ") + c,
                            errc::kInvalidDatetimePatternIllegalCharacter);
      }
      if (!std::strchr("GyMLdDQqEFahKkHmsSVzOXxZ", c)) {
        return JavaPatternError(pattern);  // "Unknown pattern letter"
      }
      if ((std::strchr("GMLEQq", c) && count >= 5) || (c == 'y' && count >= 7)) {
        // Spark's own length check.
        return PatternError(pattern, std::string("Too many pattern letters: ") + c,
                            errc::kInvalidDatetimePatternLength);
      }
      if ((std::strchr("dHhKkms", c) && count > 2) || (c == 'D' && count > 3) ||
          (c == 'a' && count > 1) || (c == 'V' && count != 2) || (c == 'S' && count > 9) ||
          (std::strchr("XxZ", c) && count > 5) || (c == 'O' && count != 1 && count != 4) ||
          (c == 'z' && count > 4) || (c == 'F' && count > 1)) {
        return JavaPatternError(pattern);  // java.time: "Too many pattern letters"
      }
      has_era = has_era || c == 'G';
      Token t;
      t.letter = c;
      t.count = count;
      p.tokens_.push_back(t);
      p.has_time_ = p.has_time_ || std::strchr("HhKkmsSa", c);
      i = j - 1;
      continue;
    }
    if (!p.tokens_.empty() && p.tokens_.back().letter == 0) {
      p.tokens_.back().literal += c;
    } else {
      Token t;
      t.literal = std::string(1, c);
      p.tokens_.push_back(t);
    }
  }
  // Spark substitutes 'y' with 'u' (proleptic, signed year) unless the pattern has an era.
  if (!has_era) {
    for (Token& t : p.tokens_) {
      if (t.letter == 'y') t.letter = 'u';
    }
  }
  return p;
}

void DateTimePattern::Format(int64_t micros, const TimeZone* zone, std::string* out) const {
  int64_t secs = FloorDiv(micros, kMicrosPerSecond);
  int32_t offset = zone ? zone->OffsetAt(secs) : 0;
  int64_t local = micros + int64_t{offset} * kMicrosPerSecond;
  int64_t days = FloorDiv(local, kMicrosPerDay);
  int64_t tod = local - days * kMicrosPerDay;
  CivilDate c = CivilFromDays(days);
  int hour = static_cast<int>(tod / (3600 * kMicrosPerSecond));
  int minute = static_cast<int>(tod / (60 * kMicrosPerSecond) % 60);
  int second = static_cast<int>(tod / kMicrosPerSecond % 60);
  int64_t nanos = tod % kMicrosPerSecond * 1000;
  int dow = IsoDayOfWeek(days);
  for (const Token& t : tokens_) {
    if (t.letter == 0) {
      *out += t.literal;
      continue;
    }
    int n = t.count;
    switch (t.letter) {
      case '[':
      case ']':
        break;
      case 'G':
        *out += c.year > 0 ? (n == 4 ? "Anno Domini" : "AD") : (n == 4 ? "Before Christ" : "BC");
        break;
      case 'y':
      case 'u': {
        int64_t y = t.letter == 'y' ? (c.year > 0 ? c.year : 1 - c.year) : c.year;
        if (n == 2) {
          AppendPadded(out, FloorMod(y, 100), 2);
        } else {
          if (n >= 4 && y > 0 && std::to_string(y).size() > static_cast<size_t>(n))
            out->push_back('+');
          AppendPadded(out, y, n);
        }
        break;
      }
      case 'M':
      case 'L':
        if (n >= 4) {
          *out += kMonthLong[c.month - 1];
        } else if (n == 3) {
          *out += kMonthShort[c.month - 1];
        } else {
          AppendPadded(out, c.month, n);
        }
        break;
      case 'd':
        AppendPadded(out, c.day, n);
        break;
      case 'D':
        AppendPadded(out, DayOfYear(days), n);
        break;
      case 'Q':
      case 'q': {
        int q = (c.month - 1) / 3 + 1;
        static const char* kQ[] = {"1st quarter", "2nd quarter", "3rd quarter", "4th quarter"};
        if (n <= 2) {
          AppendPadded(out, q, n);
        } else if (n == 3) {
          *out += "Q" + std::to_string(q);
        } else {
          *out += kQ[q - 1];
        }
        break;
      }
      case 'E':
        *out += n >= 4 ? kDayLong[dow - 1] : kDayShort[dow - 1];
        break;
      case 'F':
        AppendPadded(out, (c.day - 1) % 7 + 1, n);
        break;
      case 'a':
        *out += hour < 12 ? "AM" : "PM";
        break;
      case 'h':
        AppendPadded(out, hour % 12 == 0 ? 12 : hour % 12, n);
        break;
      case 'K':
        AppendPadded(out, hour % 12, n);
        break;
      case 'k':
        AppendPadded(out, hour == 0 ? 24 : hour, n);
        break;
      case 'H':
        AppendPadded(out, hour, n);
        break;
      case 'm':
        AppendPadded(out, minute, n);
        break;
      case 's':
        AppendPadded(out, second, n);
        break;
      case 'S': {
        char buf[16];
        snprintf(buf, sizeof buf, "%09lld", static_cast<long long>(nanos));
        out->append(buf, static_cast<size_t>(n));
        break;
      }
      case 'V':
        *out += zone ? zone->id() : "Z";
        break;
      case 'z':
        *out += zone ? zone->Abbreviation(secs) : "UTC";
        break;
      case 'O':
        *out += "GMT";
        if (offset != 0) {
          if (n == 1) {
            int a = offset < 0 ? -offset : offset;
            *out += offset < 0 ? "-" : "+";
            *out += std::to_string(a / 3600);
            if (a / 60 % 60) {
              char buf[8];
              snprintf(buf, sizeof buf, ":%02d", a / 60 % 60);
              *out += buf;
            }
          } else {
            AppendOffset(out, offset, true, true, false);
          }
        }
        break;
      case 'X':
      case 'x':
        if (t.letter == 'X' && offset == 0) {
          *out += "Z";
          break;
        }
        if (n == 1) {
          AppendOffset(out, offset, false, false, true);
        } else {
          AppendOffset(out, offset, n == 3 || n == 5, n >= 4, false);
        }
        break;
      case 'Z':
        if (n <= 3) {
          AppendOffset(out, offset, false, false, false);
        } else if (n == 4) {
          *out += "GMT";
          if (offset != 0) AppendOffset(out, offset, true, true, false);
        } else if (offset == 0) {
          *out += "Z";
        } else {
          AppendOffset(out, offset, true, true, false);
        }
        break;
      default:
        break;
    }
  }
}

std::optional<int64_t> DateTimePattern::Parse(std::string_view s, const TimeZone* zone) const {
  Fields f;
  size_t i = 0;
  size_t k = 0;
  // Parses tokens_[k..] until the end or the ']' closing the current optional section.
  std::function<bool(int)> parse_seq = [&](int depth) -> bool {
    while (k < tokens_.size()) {
      const Token& t = tokens_[k];
      if (t.letter == ']') {
        if (depth > 0) return true;
        ++k;
        continue;
      }
      if (t.letter == '[') {
        ++k;
        size_t save_i = i;
        Fields save_f = f;
        size_t start_k = k;
        if (!parse_seq(depth + 1)) {
          i = save_i;
          f = save_f;
          // Skip to the matching ']'.
          int d = 0;
          k = start_k;
          while (k < tokens_.size()) {
            if (tokens_[k].letter == '[') ++d;
            if (tokens_[k].letter == ']') {
              if (d == 0) break;
              --d;
            }
            ++k;
          }
        }
        if (k < tokens_.size()) ++k;  // the ']'
        continue;
      }
      ++k;
      if (t.letter == 0) {
        if (!MatchText(s, &i, t.literal)) return false;
        continue;
      }
      bool adjacent =
          k < tokens_.size() && tokens_[k].letter != 0 && IsNumericLetter(tokens_[k].letter);
      auto digits = [&](int min, int max, int64_t* v) {
        size_t b = i;
        *v = 0;
        while (i < s.size() && static_cast<int>(i - b) < max && s[i] >= '0' && s[i] <= '9') {
          *v = *v * 10 + (s[i] - '0');
          ++i;
        }
        return static_cast<int>(i - b) >= min;
      };
      int64_t v = 0;
      int n = t.count;
      switch (t.letter) {
        case 'G':
          if (MatchText(s, &i, "AD")) {
            f.era_bc = false;
          } else if (MatchText(s, &i, "BC")) {
            f.era_bc = true;
          } else {
            return false;
          }
          break;
        case 'y':
        case 'u': {
          if (n == 2) {
            if (!digits(2, 2, &v)) return false;
            f.year = 2000 + v;
            break;
          }
          int sign = 1;
          if (i < s.size() && (s[i] == '+' || s[i] == '-') && t.letter == 'u') {
            sign = s[i] == '-' ? -1 : 1;
            ++i;
          }
          if (!digits(n, adjacent ? std::max(n, 4) : 10, &v)) return false;
          f.year = sign * v;
          break;
        }
        case 'M':
        case 'L':
          if (n >= 3) {
            bool found = false;
            for (int m = 0; m < 12 && !found; ++m) {
              if (MatchText(s, &i, n == 3 ? kMonthShort[m] : kMonthLong[m])) {
                f.month = m + 1;
                found = true;
              }
            }
            if (!found) return false;
          } else {
            if (!digits(n, n == 1 && !adjacent ? 2 : 2, &v)) return false;
            f.month = static_cast<int>(v);
          }
          break;
        case 'd':
          if (!digits(n, 2, &v)) return false;
          f.day = static_cast<int>(v);
          break;
        case 'D':
          if (!digits(n, 3, &v)) return false;
          f.doy = static_cast<int>(v);
          break;
        case 'a':
          if (MatchText(s, &i, "AM")) {
            f.ampm = 0;
          } else if (MatchText(s, &i, "PM")) {
            f.ampm = 1;
          } else {
            return false;
          }
          break;
        case 'H':
          if (!digits(n, 2, &v)) return false;
          f.hour24 = static_cast<int>(v);
          break;
        case 'k':
          if (!digits(n, 2, &v)) return false;
          f.clock24 = static_cast<int>(v);
          break;
        case 'h':
          if (!digits(n, 2, &v) || v < 1 || v > 12) return false;
          f.hour12 = static_cast<int>(v % 12);
          break;
        case 'K':
          if (!digits(n, 2, &v) || v > 11) return false;
          f.hour12 = static_cast<int>(v);
          break;
        case 'm':
          if (!digits(n, 2, &v)) return false;
          f.minute = static_cast<int>(v);
          break;
        case 's':
          if (!digits(n, 2, &v)) return false;
          f.second = static_cast<int>(v);
          break;
        case 'S': {
          size_t b = i;
          if (!digits(1, n, &v)) return false;
          int got = static_cast<int>(i - b);
          for (int z = got; z < 9; ++z) v *= 10;
          f.nanos = v;
          break;
        }
        case 'V':
        case 'z': {
          size_t b = i;
          while (i < s.size() &&
                 (std::isalnum(static_cast<unsigned char>(s[i])) || std::strchr("/_+-:", s[i]))) {
            ++i;
          }
          auto tz = TimeZone::Find(s.substr(b, i - b));
          if (!tz.ok()) return false;
          f.zone = *tz;
          break;
        }
        case 'O':
        case 'X':
        case 'x':
        case 'Z': {
          if (t.letter == 'O' || (t.letter == 'Z' && n == 4)) {
            if (!MatchText(s, &i, "GMT")) return false;
            if (i >= s.size() || (s[i] != '+' && s[i] != '-')) {
              f.has_offset = true;
              f.offset = 0;
              break;
            }
          }
          if (i < s.size() && (s[i] == 'Z' || s[i] == 'z') && t.letter != 'x') {
            ++i;
            f.has_offset = true;
            f.offset = 0;
            break;
          }
          if (i >= s.size() || (s[i] != '+' && s[i] != '-')) return false;
          int sign = s[i] == '-' ? -1 : 1;
          ++i;
          int32_t secs;
          if (!ParseHms(s, &i, &secs, true)) return false;
          f.has_offset = true;
          f.offset = sign * secs;
          break;
        }
        default:
          return false;  // E, F, Q, q are rejected for parsing at bind time
      }
    }
    return depth == 0;
  };
  if (!parse_seq(0) || i != s.size()) return std::nullopt;

  // Resolve like Spark's DateTimeFormatterHelper.toLocalDate / toLocalTime.
  int64_t year = f.year == INT64_MIN ? 1970 : f.year;
  if (f.era_bc) year = 1 - year;
  int month, day;
  if (f.doy >= 0) {
    int ylen = IsLeapYear(year) ? 366 : 365;
    if (f.doy < 1 || f.doy > ylen) return std::nullopt;
    CivilDate c = CivilFromDays(DaysFromCivil(year, 1, 1) + f.doy - 1);
    if ((f.month >= 0 && f.month != c.month) || (f.day >= 0 && f.day != c.day)) return std::nullopt;
    month = c.month;
    day = c.day;
  } else {
    month = f.month >= 0 ? f.month : 1;
    day = f.day >= 0 ? f.day : 1;
  }
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month)) return std::nullopt;
  int hour;
  if (f.hour24 >= 0) {
    hour = f.hour24;
  } else if (f.clock24 >= 0) {
    if (f.clock24 < 1 || f.clock24 > 24) return std::nullopt;
    hour = f.clock24 % 24;
  } else if (f.hour12 >= 0) {
    hour = f.hour12 + (f.ampm == 1 ? 12 : 0);
  } else {
    hour = f.ampm == 1 ? 12 : 0;
  }
  int minute = f.minute >= 0 ? f.minute : 0;
  int second = f.second >= 0 ? f.second : 0;
  if (hour > 23 || minute > 59 || second > 59) return std::nullopt;
  int64_t nanos = f.nanos >= 0 ? f.nanos : 0;
  // Far years overflow the microseconds (Spark: ArithmeticException "long overflow"): no value.
  int64_t local = 0;
  const int64_t minutes = (DaysFromCivil(year, month, day) * 24 + hour) * 60 + minute;
  if (__builtin_mul_overflow(minutes, 60 * kMicrosPerSecond, &local) ||
      __builtin_add_overflow(local, second * kMicrosPerSecond + nanos / 1000, &local)) {
    return std::nullopt;
  }
  if (f.has_offset) return local - int64_t{f.offset} * kMicrosPerSecond;
  if (f.zone) return f.zone->LocalMicrosToUtc(local);
  if (!zone) return local;
  return zone->LocalMicrosToUtc(local);
}

}  // namespace cal

}  // namespace silt::exec
