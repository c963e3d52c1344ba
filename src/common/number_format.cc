#include "common/number_format.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace silt {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Splits a finite nonzero double/float's shortest digits: v = 0.d1d2... × 10^(exp10 + 1),
// i.e. d1.d2d3... × 10^exp10.
template <typename F>
void ShortestDigits(F v, std::string* digits, int* exp10) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string_view s(buf, static_cast<size_t>(r.ptr - buf));
  size_t e = s.find('e');
  digits->clear();
  for (size_t i = 0; i < e; ++i) {
    if (IsDigit(s[i])) digits->push_back(s[i]);
  }
  int x = 0;
  std::from_chars(s.data() + e + 1 + (s[e + 1] == '+' ? 1 : 0), s.data() + s.size(), x);
  *exp10 = x;
  if (digits->size() == 1) {
    // Java always prints two significant digits (d.d) and picks the pair closest to the exact
    // value: 4.9E-324, not 5.0E-324. The correctly rounded 2-digit form does exactly that.
    r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific, 1);
    s = std::string_view(buf, static_cast<size_t>(r.ptr - buf));
    e = s.find('e');
    digits->clear();
    for (size_t i = 0; i < e; ++i) {
      if (IsDigit(s[i])) digits->push_back(s[i]);
    }
    std::from_chars(s.data() + e + 1 + (s[e + 1] == '+' ? 1 : 0), s.data() + s.size(), x);
    *exp10 = x;
    while (digits->size() > 1 && digits->back() == '0') digits->pop_back();
  }
}

template <typename F>
std::string FormatJava(F v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  std::string out = std::signbit(v) ? "-" : "";
  if (v == 0) return out + "0.0";
  std::string d;
  int e;
  ShortestDigits(std::fabs(v), &d, &e);
  F a = std::fabs(v);
  if (a >= static_cast<F>(1e-3) && a < static_cast<F>(1e7)) {
    if (e >= 0) {
      size_t int_len = static_cast<size_t>(e) + 1;
      if (d.size() <= int_len) {
        out += d;
        out.append(int_len - d.size(), '0');
        out += ".0";
      } else {
        out.append(d, 0, int_len);
        out += '.';
        out.append(d, int_len, std::string::npos);
      }
    } else {
      out += "0.";
      out.append(static_cast<size_t>(-e - 1), '0');
      out += d;
    }
    return out;
  }
  out += d[0];
  out += '.';
  out += d.size() > 1 ? d.substr(1) : "0";
  out += 'E';
  out += std::to_string(e);
  return out;
}

}  // namespace

std::string FormatJavaDouble(double v) { return FormatJava(v); }
std::string FormatJavaFloat(float v) { return FormatJava(v); }

std::string Int128ToDecimalString(__int128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u =
      neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  char buf[48];
  int p = 47;
  buf[p] = 0;
  while (u) {
    buf[--p] = static_cast<char>('0' + static_cast<int>(u % 10));
    u /= 10;
  }
  if (neg) buf[--p] = '-';
  return std::string(buf + p);
}

std::string FormatPlainDecimal(__int128 unscaled, int scale) {
  std::string digits = Int128ToDecimalString(unscaled);
  bool neg = digits[0] == '-';
  std::string_view mag(digits);
  if (neg) mag.remove_prefix(1);
  std::string out = neg ? "-" : "";
  if (scale <= 0) return out.append(mag);
  size_t s = static_cast<size_t>(scale);
  if (mag.size() <= s) {
    out += "0.";
    out.append(s - mag.size(), '0');
    return out.append(mag);
  }
  out.append(mag.substr(0, mag.size() - s));
  out += '.';
  return out.append(mag.substr(mag.size() - s));
}

std::string FormatJavaBigDecimal(__int128 unscaled, int scale) {
  std::string digits = Int128ToDecimalString(unscaled);
  if (digits[0] == '-') digits.erase(0, 1);
  int64_t adjusted = static_cast<int64_t>(digits.size()) - 1 - scale;
  if (scale >= 0 && adjusted >= -6) return FormatPlainDecimal(unscaled, scale);
  std::string out = unscaled < 0 ? "-" : "";
  out += digits[0];
  if (digits.size() > 1) {
    out += '.';
    out.append(digits, 1, std::string::npos);
  }
  out += 'E';
  if (adjusted > 0) out += '+';
  out += std::to_string(adjusted);
  return out;
}

bool ParseDecimalText(std::string_view s, int precision, int scale, __int128* unscaled) {
  if (precision < 1 || precision > 38 || scale < 0 || scale > precision) return false;
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  std::string digits;  // significant digits, leading zeros dropped
  int64_t frac_digits = 0;
  bool seen_digit = false, seen_point = false;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (IsDigit(c)) {
      seen_digit = true;
      if (seen_point) ++frac_digits;
      if (!(digits.empty() && c == '0')) digits.push_back(c);
      if (digits.size() > 200) return false;  // far beyond any decimal(38)
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!seen_digit) return false;
  int64_t exp = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
    size_t start = i;
    while (i < s.size() && IsDigit(s[i])) {
      exp = exp * 10 + (s[i++] - '0');
      if (exp > 100000) return false;
    }
    if (i == start) return false;
    if (eneg) exp = -exp;
  }
  if (i != s.size()) return false;
  // value = digits × 10^(exp - frac_digits); we want it × 10^scale.
  int64_t shift = exp - frac_digits + scale;
  bool round_up = false;
  if (shift < 0) {
    size_t drop = static_cast<size_t>(-shift);
    if (drop > digits.size()) {
      digits.clear();
    } else {
      round_up = digits[digits.size() - drop] >= '5';
      digits.resize(digits.size() - drop);
    }
  } else if (!digits.empty()) {
    if (digits.size() + static_cast<size_t>(shift) > static_cast<size_t>(precision)) return false;
    digits.append(static_cast<size_t>(shift), '0');
  }
  if (digits.size() > static_cast<size_t>(precision)) return false;
  __int128 v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  if (round_up) ++v;
  __int128 limit = 1;
  for (int k = 0; k < precision; ++k) limit *= 10;
  if (v >= limit) return false;
  *unscaled = neg ? -v : v;
  return true;
}

}  // namespace silt
