#include "delta/partition_values.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

namespace silt::delta {

namespace {

constexpr const char* kInvalidPartitionValueClass = "DELTA_INVALID_PARTITION_VALUE";
constexpr int64_t kMicrosPerDay = 86400000000LL;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Howard Hinnant's days_from_civil.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned DaysInMonth(int64_t y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

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
bool ReadDate(std::string_view s, size_t* p, int64_t* days) {
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
  if (month < 1 || month > 12 || day < 1 ||
      static_cast<unsigned>(day) > DaysInMonth(year, static_cast<unsigned>(month))) {
    return false;
  }
  *days = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  *p = i;
  return true;
}

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

std::string UnsignedDigits(int128_t v) {
  std::string s = Int128ToString(v);
  if (!s.empty() && s[0] == '-') s.erase(0, 1);
  return s;
}

bool ParseDoubleText(std::string_view s, double* out) {
  if (s == "NaN") {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (s == "Infinity" || s == "+Infinity") {
    *out = std::numeric_limits<double>::infinity();
    return true;
  }
  if (s == "-Infinity") {
    *out = -std::numeric_limits<double>::infinity();
    return true;
  }
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  // Only Java/JSON number syntax: from_chars would also take "inf", "nan" and hex forms.
  if (s.empty() || !(IsDigit(s[0]) || s[0] == '-' || s[0] == '.')) return false;
  for (char c : s) {
    if (!(IsDigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) return false;
  }
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool ParseInt64Text(std::string_view s, int64_t* out) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

}  // namespace

std::string FormatJavaDouble(double v) { return FormatJava(v); }
std::string FormatJavaFloat(float v) { return FormatJava(v); }

std::string FormatJavaBigDecimal(int128_t unscaled, int scale) {
  std::string digits = UnsignedDigits(unscaled);
  int64_t adjusted = static_cast<int64_t>(digits.size()) - 1 - scale;
  if (scale >= 0 && adjusted >= -6) return FormatDecimal(unscaled, scale);
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

bool ParseDecimalText(std::string_view s, int precision, int scale, int128_t* unscaled) {
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
  int128_t v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  if (round_up) ++v;
  int128_t limit = 1;
  for (int k = 0; k < precision; ++k) limit *= 10;
  if (v >= limit) return false;
  *unscaled = neg ? -v : v;
  return true;
}

bool ParseDateText(std::string_view s, int32_t* days) {
  size_t p = 0;
  int64_t d;
  if (!ReadDate(s, &p, &d) || p != s.size()) return false;
  if (d < std::numeric_limits<int32_t>::min() || d > std::numeric_limits<int32_t>::max()) {
    return false;
  }
  *days = static_cast<int32_t>(d);
  return true;
}

bool ParseTimestampText(std::string_view s, int64_t* micros, bool* has_zone) {
  size_t p = 0;
  int64_t days;
  if (!ReadDate(s, &p, &days)) return false;
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

std::string FormatIsoTimestampMicros(int64_t micros) {
  std::string s = FormatTimestampMicros(micros);
  size_t sp = s.find(' ');
  if (sp != std::string::npos) s[sp] = 'T';
  return s + "Z";
}

std::string FormatIsoTimestampMillis(int64_t micros, bool with_zone) {
  std::string s = FormatTimestampMicros(FloorDiv(micros, 1000) * 1000);
  size_t sp = s.find(' ');
  if (sp != std::string::npos) s[sp] = 'T';
  s.resize(s.size() - 3);  // the floored micros end in "000"
  if (with_zone) s += 'Z';
  return s;
}

Result<Value> ParsePartitionValue(const std::optional<std::string>& text, const TypePtr& type) {
  if (!text || text->empty()) return Value::Null(type);
  const std::string& s = *text;
  auto bad = [&]() {
    return Status::InvalidArgument(
        "cannot parse partition value '" + s + "' as " + type->ToString(),
        kInvalidPartitionValueClass);
  };
  switch (type->id()) {
    case TypeId::kNull: return Value::Null(type);
    case TypeId::kString: return Value::String(s);
    case TypeId::kBinary: return Value::Binary(s);
    case TypeId::kBoolean:
      if (EqualsIgnoreCase(s, "true")) return Value::Boolean(true);
      if (EqualsIgnoreCase(s, "false")) return Value::Boolean(false);
      return bad();
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64: {
      int64_t v;
      if (!ParseInt64Text(s, &v)) return bad();
      int bits = type->fixed_width() * 8;
      if (bits < 64) {
        int64_t hi = (int64_t{1} << (bits - 1)) - 1;
        if (v > hi || v < -hi - 1) return bad();
      }
      return Value::Integer(type, v);
    }
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double v;
      if (!ParseDoubleText(s, &v)) return bad();
      if (type->id() == TypeId::kFloat) v = static_cast<double>(static_cast<float>(v));
      return Value::Floating(type, v);
    }
    case TypeId::kDecimal: {
      int128_t v;
      if (!ParseDecimalText(s, type->precision(), type->scale(), &v)) return bad();
      return Value::Decimal(type->precision(), type->scale(), v);
    }
    case TypeId::kDate: {
      int32_t d;
      if (!ParseDateText(s, &d)) return bad();
      return Value::Integer(type, d);
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: {
      int64_t us;
      bool has_zone;
      if (!ParseTimestampText(s, &us, &has_zone)) return bad();
      if (has_zone && type->id() == TypeId::kTimestampNtz) return bad();
      return Value::Integer(type, us);
    }
    default:
      return Status::InvalidArgument("partition column of non-primitive type " + type->ToString(),
                                     kInvalidPartitionValueClass);
  }
}

std::optional<std::string> FormatPartitionValue(const Value& v) {
  if (v.is_null()) return std::nullopt;
  switch (v.type()->id()) {
    case TypeId::kNull: return std::nullopt;
    case TypeId::kString:
    case TypeId::kBinary:
      if (v.str().empty()) return std::nullopt;
      return v.str();
    case TypeId::kBoolean: return std::string(v.boolean() ? "true" : "false");
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64: return std::to_string(v.integer());
    case TypeId::kFloat: return FormatJavaFloat(static_cast<float>(v.floating()));
    case TypeId::kDouble: return FormatJavaDouble(v.floating());
    case TypeId::kDecimal: return FormatDecimal(v.decimal(), v.type()->scale());
    case TypeId::kDate: return FormatDate(static_cast<int32_t>(v.integer()));
    case TypeId::kTimestamp: return FormatIsoTimestampMicros(v.integer());
    case TypeId::kTimestampNtz: {
      std::string s = FormatTimestampMicros(v.integer());  // "yyyy-MM-dd HH:mm:ss.ffffff"
      while (s.back() == '0') s.pop_back();
      if (s.back() == '.') s.pop_back();
      return s;
    }
    default: return v.ToJson();
  }
}

}  // namespace silt::delta
