#include "vector/time_text.h"

#include <cstdio>

#include "common/datetime.h"
#include "vector/value.h"

namespace silt {

namespace {

bool Digit(char c) { return c >= '0' && c <= '9'; }

// One or two digits at s[*i] (the lenient h/m/s fields of stringToTime).
bool TimeField(std::string_view s, size_t* i, int* out) {
  size_t st = *i;
  int v = 0;
  while (*i < s.size() && Digit(s[*i]) && *i - st < 2) v = v * 10 + (s[(*i)++] - '0');
  if (*i == st) return false;
  *out = v;
  return true;
}

std::string TrimFraction(std::string s) {
  size_t dot = s.rfind('.');
  if (dot == std::string::npos) return s;
  size_t end = s.size();
  while (end > dot + 1 && s[end - 1] == '0') --end;
  s.resize(end == dot + 1 ? dot : end);
  return s;
}

// Offset just past the "h:m:s" of the first time in `s` (its seconds digits end there), or npos.
size_t SecondsEnd(std::string_view s) {
  size_t c1 = s.find(':');
  if (c1 == std::string_view::npos) return c1;
  size_t c2 = s.find(':', c1 + 1);
  if (c2 == std::string_view::npos) return c2;
  size_t i = c2 + 1;
  while (i < s.size() && Digit(s[i])) ++i;
  return i;
}

}  // namespace

bool ParseTimeText(std::string_view s, int64_t* nanos_of_day) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  size_t i = 0;
  int h = 0, m = 0, sec = 0;
  int64_t frac = 0;
  if (!TimeField(s, &i, &h) || i >= s.size() || s[i] != ':') return false;
  ++i;
  if (!TimeField(s, &i, &m)) return false;
  if (i < s.size()) {
    if (s[i] != ':') return false;
    ++i;
    if (!TimeField(s, &i, &sec)) return false;
    if (i < s.size()) {
      if (s[i] != '.') return false;
      ++i;
      int nd = 0;
      while (i < s.size() && Digit(s[i]) && nd < 9) {
        frac = frac * 10 + (s[i++] - '0');
        ++nd;
      }
      if (nd == 0 || i != s.size()) return false;
      for (int k = nd; k < 9; ++k) frac *= 10;
    }
  }
  if (h > 23 || m > 59 || sec > 59) return false;
  *nanos_of_day = (static_cast<int64_t>(h) * 3600 + m * 60 + sec) * kNanosPerSecond + frac;
  return true;
}

std::string FormatTimeText(int64_t ns) {
  ns = FloorMod(ns, kNanosPerDay);
  int64_t secs = ns / kNanosPerSecond, frac = ns % kNanosPerSecond;
  char buf[48];
  snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld.%09lld", static_cast<long long>(secs / 3600),
           static_cast<long long>((secs / 60) % 60), static_cast<long long>(secs % 60),
           static_cast<long long>(frac));
  return TrimFraction(buf);
}

std::string FormatTimestampNanosText(int64_t epoch_nanos) {
  return TrimFraction(FormatTimestampNanos(epoch_nanos));
}

int64_t TruncateNanos(int64_t nanos, int precision) {
  if (precision >= 9) return nanos;
  if (precision < 0) precision = 0;
  int64_t unit = 1;
  for (int k = precision; k < 9; ++k) unit *= 10;
  return FloorDiv(nanos, unit) * unit;
}

int64_t SubMicroNanos(std::string_view text) {
  size_t i = SecondsEnd(text);
  if (i == std::string_view::npos || i >= text.size() || text[i] != '.') return 0;
  ++i;
  int64_t sub = 0;
  int nd = 0;
  while (i < text.size() && Digit(text[i]) && nd < 9) {
    if (nd >= 6) sub = sub * 10 + (text[i] - '0');
    ++nd;
    ++i;
  }
  for (int k = nd < 6 ? 6 : nd; k < 9; ++k) sub *= 10;
  return nd > 6 ? sub : 0;
}

int FractionDigits(std::string_view text) {
  size_t i = SecondsEnd(text);
  if (i == std::string_view::npos || i >= text.size() || text[i] != '.') return 0;
  int nd = 0;
  for (++i; i < text.size() && Digit(text[i]); ++i) ++nd;
  return nd;
}

bool MicrosToNanos(int64_t micros, int64_t* nanos) {
  return !__builtin_mul_overflow(micros, kNanosPerMicro, nanos);
}

int64_t NanosToMicros(int64_t nanos) { return FloorDiv(nanos, kNanosPerMicro); }

}  // namespace silt
