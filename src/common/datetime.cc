#include "common/datetime.h"

#include <cctype>
#include <limits>

namespace silt {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// ---------------------------------------------------------------------------------------------
// ISO forms

// Reads exactly `n` digits at *p.
bool ReadDigits(std::string_view s, size_t* p, int n, int* out) {
  if (*p + static_cast<size_t>(n) > s.size()) return false;
  int v = 0;
  for (int i = 0; i < n; ++i) {
    char c = s[*p + static_cast<size_t>(i)];
    if (!IsDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *p += static_cast<size_t>(n);
  *out = v;
  return true;
}

// Parses the date prefix "[+-]yyyy[y*]-MM-dd" at *p.
bool ReadIsoDate(std::string_view s, size_t* p, int64_t* days) {
  size_t i = *p;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    neg = s[i] == '-';
    ++i;
  }
  size_t start = i;
  int64_t year = 0;
  while (i < s.size() && IsDigit(s[i]) && i - start < 9) year = year * 10 + (s[i++] - '0');
  if (i - start < 4 || i >= s.size() || s[i] != '-') return false;
  if (neg) year = -year;
  ++i;
  int month, day;
  if (!ReadDigits(s, &i, 2, &month) || i >= s.size() || s[i] != '-') return false;
  ++i;
  if (!ReadDigits(s, &i, 2, &day)) return false;
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month)) return false;
  *days = DaysFromCivil(year, month, day);
  *p = i;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Spark's lenient grammar

bool IsTrimmed(char c, const SparkDateTimeSyntax& syntax) {
  if (syntax.trim_all_controls) return static_cast<unsigned char>(c) <= ' ';
  return std::isspace(static_cast<unsigned char>(c)) || c == '\0';
}

std::string_view Trim(std::string_view s, const SparkDateTimeSyntax& syntax) {
  while (!s.empty() && IsTrimmed(s.front(), syntax)) s.remove_prefix(1);
  while (!s.empty() && IsTrimmed(s.back(), syntax)) s.remove_suffix(1);
  return s;
}

// Parses the date part "[+-]yyyy[-[m]m[-[d]d]]" at the start of `s`; *rest receives the text
// after a ' '/'T' that follows a full date (*had_sep), else "".
bool ParseSparkDatePart(std::string_view s, SparkDateTime* out, std::string_view* rest,
                        bool* had_sep) {
  size_t i = 0;
  int64_t sign = 1;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    sign = s[i] == '-' ? -1 : 1;
    ++i;
  }
  int64_t seg[3] = {0, 1, 1};
  int nseg = 0;
  *had_sep = false;
  *rest = {};
  while (nseg < 3) {
    size_t start = i;
    int64_t v = 0;
    while (i < s.size() && IsDigit(s[i])) {
      v = v * 10 + (s[i] - '0');
      ++i;
      if (i - start > 7) return false;
    }
    size_t len = i - start;
    if (nseg == 0 ? (len < 4 || len > 7) : (len < 1 || len > 2)) return false;
    seg[nseg++] = v;
    if (i >= s.size()) break;
    if (s[i] == '-' && nseg < 3) {
      ++i;
      continue;
    }
    if (nseg == 3 && (s[i] == ' ' || s[i] == 'T')) {
      *had_sep = true;
      *rest = s.substr(i + 1);
      break;
    }
    return false;
  }
  if (i < s.size() && !*had_sep) return false;
  int64_t year = sign * seg[0];
  int month = static_cast<int>(seg[1]), day = static_cast<int>(seg[2]);
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month)) return false;
  out->year = year;
  out->month = month;
  out->day = day;
  return true;
}

}  // namespace

bool ParseIsoDate(std::string_view s, int32_t* days) {
  size_t p = 0;
  int64_t d;
  if (!ReadIsoDate(s, &p, &d) || p != s.size()) return false;
  if (d < std::numeric_limits<int32_t>::min() || d > std::numeric_limits<int32_t>::max()) {
    return false;
  }
  *days = static_cast<int32_t>(d);
  return true;
}

bool ParseIsoTimestamp(std::string_view s, int64_t* micros, bool* has_zone) {
  size_t p = 0;
  int64_t days;
  if (!ReadIsoDate(s, &p, &days)) return false;
  int64_t time_us = 0;
  *has_zone = false;
  if (p < s.size() && (s[p] == 'T' || s[p] == ' ')) {
    ++p;
    int hh, mm, ss = 0;
    if (!ReadDigits(s, &p, 2, &hh) || p >= s.size() || s[p] != ':') return false;
    ++p;
    if (!ReadDigits(s, &p, 2, &mm)) return false;
    if (p < s.size() && s[p] == ':') {
      ++p;
      if (!ReadDigits(s, &p, 2, &ss)) return false;
      if (p < s.size() && s[p] == '.') {
        ++p;
        int64_t frac = 0;
        int n = 0;
        while (p < s.size() && IsDigit(s[p])) {
          if (n < 6) frac = frac * 10 + (s[p] - '0');
          ++n;
          ++p;
        }
        if (n > 9) return false;
        for (int k = n; k < 6; ++k) frac *= 10;
        time_us = frac;
      }
    }
    if (hh > 23 || mm > 59 || ss > 59) return false;
    time_us += (static_cast<int64_t>(hh) * 3600 + mm * 60 + ss) * 1000000LL;
    if (p < s.size()) {
      int64_t offset_s = 0;
      if (s[p] == 'Z') {
        ++p;
      } else if (s.substr(p) == "UTC") {
        p = s.size();
      } else if (s[p] == '+' || s[p] == '-') {
        bool neg = s[p] == '-';
        ++p;
        int oh, om = 0;
        if (!ReadDigits(s, &p, 2, &oh)) return false;
        if (p < s.size() && s[p] == ':') ++p;
        if (p < s.size() && !ReadDigits(s, &p, 2, &om)) return false;
        if (oh > 18 || om > 59) return false;
        offset_s = (oh * 3600 + om * 60) * (neg ? -1 : 1);
      } else {
        return false;
      }
      *has_zone = true;
      time_us -= offset_s * 1000000LL;
    }
  }
  if (p != s.size()) return false;
  // int64 micros span about ±292k years (106751991 days).
  if (days > 106751990 || days < -106751990) return false;
  *micros = days * kMicrosPerDay + time_us;
  return true;
}

bool ParseSparkDate(std::string_view text, const SparkDateTimeSyntax& syntax, SparkDateTime* out) {
  *out = SparkDateTime{};
  std::string_view rest;
  bool sep;
  return ParseSparkDatePart(Trim(text, syntax), out, &rest, &sep);
}

bool ParseSparkDateTime(std::string_view text, const SparkDateTimeSyntax& syntax,
                        SparkDateTime* out) {
  *out = SparkDateTime{};
  std::string_view rest;
  bool sep;
  // A date followed directly by a zone ("2024-01-01Z", "2024-01-01+01:00") is not in Spark's
  // grammar: the date part rejects it.
  if (!ParseSparkDatePart(Trim(text, syntax), out, &rest, &sep)) return false;
  if (!sep) return true;
  out->has_time = true;
  // Time: h[h][:m[m][:s[s][.f{0,9}]]] then zone. "2024-01-01T" (nothing after the separator) is
  // midnight.
  size_t i = 0;
  int fields[3] = {0, 0, 0};
  int nf = 0;
  while (nf < 3) {
    size_t st = i;
    int v = 0;
    while (i < rest.size() && IsDigit(rest[i]) && i - st < 2) {
      v = v * 10 + (rest[i] - '0');
      ++i;
    }
    if (i == st) {
      if (nf == 0 && rest.empty()) break;
      return false;
    }
    fields[nf++] = v;
    if (i < rest.size() && rest[i] == ':' && nf < 3) {
      ++i;
      continue;
    }
    break;
  }
  if (nf == 1 && !syntax.allow_hour_only) return false;
  if (nf == 3 && i < rest.size() && rest[i] == '.') {
    ++i;
    int64_t frac = 0;
    int nd = 0;
    while (i < rest.size() && IsDigit(rest[i])) {
      if (nd < 6) frac = frac * 10 + (rest[i] - '0');
      ++nd;
      ++i;
    }
    if (nd > 9 || (nd == 0 && !syntax.allow_empty_fraction)) return false;
    for (int k = nd; k < 6; ++k) frac *= 10;
    out->micros = frac;
  }
  if (fields[0] > 23 || fields[1] > 59 || fields[2] > 59) return false;
  out->hour = fields[0];
  out->minute = fields[1];
  out->second = fields[2];
  std::string_view zone = rest.substr(i);
  if (syntax.trim_all_controls) {
    // The whole text is already trimmed at the end; spaces may separate the time and the zone.
    while (!zone.empty() && zone.front() == ' ') zone.remove_prefix(1);
  } else {
    zone = Trim(zone, syntax);
  }
  out->zone = zone;
  return true;
}

bool SparkDateTimeLocalMicros(const SparkDateTime& t, int64_t* micros) {
  __int128 total =
      static_cast<__int128>(DaysFromCivil(t.year, t.month, t.day)) * kMicrosPerDay +
      (static_cast<int64_t>(t.hour) * 3600 + t.minute * 60 + t.second) * kMicrosPerSecond +
      t.micros;
  if (total > std::numeric_limits<int64_t>::max() || total < std::numeric_limits<int64_t>::min()) {
    return false;
  }
  *micros = static_cast<int64_t>(total);
  return true;
}

}  // namespace silt
