#include "vector/calendar_interval.h"

#include <cctype>

#include "common/datetime.h"

namespace silt {

namespace {

constexpr int64_t kUsPerSecond = kMicrosPerSecond;
constexpr int64_t kUsPerMinute = 60 * kUsPerSecond;
constexpr int64_t kUsPerHour = 60 * kUsPerMinute;

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// Math.addExact / multiplyExact / toIntExact.
bool Add(int64_t a, int64_t b, int64_t* out) { return !__builtin_add_overflow(a, b, out); }
bool Mul(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }
bool ToInt(int64_t v, int32_t* out) {
  if (v < INT32_MIN || v > INT32_MAX) return false;
  *out = static_cast<int32_t>(v);
  return true;
}

}  // namespace

std::optional<CalendarInterval> ParseCalendarInterval(std::string_view text) {
  // UTF8String.trimAll (bytes <= ' ') and toLowerCase.
  size_t b = 0, e = text.size();
  while (b < e && static_cast<unsigned char>(text[b]) <= ' ') ++b;
  while (e > b && static_cast<unsigned char>(text[e - 1]) <= ' ') --e;
  std::string s(text.substr(b, e - b));
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s.empty()) return std::nullopt;
  size_t i = 0;
  if (s.compare(0, 8, "interval") == 0) {
    if (s.size() == 8 || !IsSpace(s[8])) return std::nullopt;
    i = 9;
  }
  auto match = [&](std::string_view word) { return s.compare(i, word.size(), word) == 0; };
  CalendarInterval out;
  int64_t months = 0, days = 0, micros = 0;
  bool any = false;
  while (true) {
    while (i < s.size() && IsSpace(s[i])) ++i;
    if (i == s.size()) break;
    // Sign, then optional whitespace, then digits with an optional fraction.
    bool negative = false;
    if (s[i] == '-' || s[i] == '+') {
      negative = s[i] == '-';
      ++i;
      while (i < s.size() && IsSpace(s[i])) ++i;
    }
    int64_t value = 0;
    int64_t fraction_nanos = 0;
    bool digits = false, has_fraction = false;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (!Mul(value, 10, &value) || !Add(value, s[i] - '0', &value)) return std::nullopt;
      digits = true;
      ++i;
    }
    if (i < s.size() && s[i] == '.') {
      has_fraction = true;
      ++i;
      int64_t scale = 100000000;  // nanoseconds of the first fraction digit
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        if (scale == 0) return std::nullopt;  // more than nanosecond precision
        fraction_nanos += (s[i] - '0') * scale;
        scale /= 10;
        digits = true;
        ++i;
      }
    }
    if (!digits || i == s.size() || !IsSpace(s[i])) return std::nullopt;
    while (i < s.size() && IsSpace(s[i])) ++i;
    if (i == s.size()) return std::nullopt;                // a number without its unit
    if (has_fraction && s[i] != 's') return std::nullopt;  // only seconds have a fraction
    if (negative) {
      value = -value;
      fraction_nanos = -fraction_nanos;
    }
    int64_t t;
    if (match("year")) {
      if (!Mul(value, 12, &t) || !Add(months, t, &months)) return std::nullopt;
      i += 4;
    } else if (match("month")) {
      if (!Add(months, value, &months)) return std::nullopt;
      i += 5;
    } else if (match("week")) {
      if (!Mul(value, 7, &t) || !Add(days, t, &days)) return std::nullopt;
      i += 4;
    } else if (match("day")) {
      if (!Add(days, value, &days)) return std::nullopt;
      i += 3;
    } else if (match("hour")) {
      if (!Mul(value, kUsPerHour, &t) || !Add(micros, t, &micros)) return std::nullopt;
      i += 4;
    } else if (match("minute")) {
      if (!Mul(value, kUsPerMinute, &t) || !Add(micros, t, &micros)) return std::nullopt;
      i += 6;
    } else if (match("second")) {
      if (!Mul(value, kUsPerSecond, &t) || !Add(micros, t, &micros) ||
          !Add(micros, fraction_nanos / 1000, &micros)) {
        return std::nullopt;
      }
      i += 6;
    } else if (match("millisecond")) {
      if (!Mul(value, 1000, &t) || !Add(micros, t, &micros)) return std::nullopt;
      i += 11;
    } else if (match("microsecond")) {
      if (!Add(micros, value, &micros)) return std::nullopt;
      i += 11;
    } else {
      return std::nullopt;
    }
    // Spark checks the int32 range of months and days as each unit is added.
    if (!ToInt(months, &out.months) || !ToInt(days, &out.days)) return std::nullopt;
    if (i < s.size() && s[i] == 's') ++i;  // plural
    if (i < s.size() && !IsSpace(s[i])) return std::nullopt;
    any = true;
  }
  if (!any) return std::nullopt;
  out.microseconds = micros;
  return out;
}

std::optional<CalendarInterval> MakeCalendarInterval(int64_t years, int64_t months, int64_t weeks,
                                                     int64_t days, int64_t hours, int64_t mins,
                                                     int64_t secs_micros) {
  int64_t m, d, us = secs_micros, t;
  CalendarInterval out;
  if (!Mul(years, 12, &t) || !Add(months, t, &m) || !ToInt(m, &out.months)) return std::nullopt;
  if (!Mul(weeks, 7, &t) || !Add(days, t, &d) || !ToInt(d, &out.days)) return std::nullopt;
  if (!Mul(hours, kUsPerHour, &t) || !Add(us, t, &us)) return std::nullopt;
  if (!Mul(mins, kUsPerMinute, &t) || !Add(us, t, &us)) return std::nullopt;
  out.microseconds = us;
  return out;
}

}  // namespace silt
