#include "exec/cast.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <vector>

#include "common/ascii.h"
#include "common/datetime.h"
#include "common/error_classes.h"
#include "common/number_format.h"
#include "vector/calendar_interval.h"
#include "vector/time_text.h"

namespace silt::exec {

bool IsIntegral(TypeId id) {
  return id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 ||
         id == TypeId::kInt64;
}
bool IsNumeric(TypeId id) {
  return IsIntegral(id) || id == TypeId::kFloat || id == TypeId::kDouble || id == TypeId::kDecimal;
}
bool IsDatetime(TypeId id) {
  return id == TypeId::kDate || id == TypeId::kTimestamp || id == TypeId::kTimestampNtz;
}

namespace {
// TIMESTAMP_LTZ(p) / TIMESTAMP_NTZ(p) with p 7..9; any of the four timestamp types.
bool IsNanosTimestamp(TypeId id) {
  return id == TypeId::kTimestampNanos || id == TypeId::kTimestampNtzNanos;
}
bool IsAnyTimestamp(TypeId id) {
  return id == TypeId::kTimestamp || id == TypeId::kTimestampNtz || IsNanosTimestamp(id);
}
}  // namespace

TypePtr DecimalForIntegral(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
      return DataType::Decimal(3, 0);
    case TypeId::kInt16:
      return DataType::Decimal(5, 0);
    case TypeId::kInt32:
      return DataType::Decimal(10, 0);
    default:
      return DataType::Decimal(20, 0);
  }
}

TypePtr AdjustedDecimal(int precision, int scale) {
  if (precision <= 38) return DataType::Decimal(precision, scale);
  int int_digits = precision - scale;
  int min_scale = std::min(scale, 6);
  int adjusted = std::max(38 - int_digits, min_scale);
  return DataType::Decimal(38, adjusted);
}

int128_t RescaleDown(int128_t v, int from, int to) {
  int128_t d = Pow10(from - to);
  int128_t q = v / d, r = v % d;
  if (r < 0) r = -r;
  if (2 * r >= d) q += v < 0 ? -1 : 1;  // HALF_UP
  return q;
}

bool CanCast(const TypePtr& from, const TypePtr& to) {
  TypeId f = from->id(), t = to->id();
  if (from->Equals(*to)) return true;
  if (f == TypeId::kNull) return true;
  // The legacy calendar interval casts only to and from strings (Spark's Cast.canCast).
  if (f == TypeId::kCalendarInterval || t == TypeId::kCalendarInterval)
    return f == TypeId::kString || t == TypeId::kString;
  if (t == TypeId::kString) return f != TypeId::kNull || true;
  if (f == TypeId::kString) return t != TypeId::kStruct && t != TypeId::kList && t != TypeId::kMap;
  if (IsNumeric(f) && IsNumeric(t)) return true;
  if (f == TypeId::kBoolean && (IsNumeric(t) || IsDatetime(t))) return t != TypeId::kDate;
  if (IsNumeric(f) && t == TypeId::kBoolean) return true;
  if (IsDatetime(f) && IsDatetime(t)) return true;
  if ((f == TypeId::kTimestamp && IsNumeric(t)) || (IsNumeric(f) && t == TypeId::kTimestamp))
    return true;
  if (f == TypeId::kBinary && t == TypeId::kString) return true;
  // TIME: to and from strings and every timestamp, between precisions, to integral numbers and
  // decimals (seconds since midnight). Nanosecond timestamps: to and from strings, dates and the
  // other timestamps.
  if (f == TypeId::kTime)
    return t == TypeId::kTime || IsAnyTimestamp(t) || IsIntegral(t) || t == TypeId::kDecimal;
  if (t == TypeId::kTime) return IsAnyTimestamp(f);
  if (IsNanosTimestamp(f) || IsNanosTimestamp(t)) {
    TypeId o = IsNanosTimestamp(f) ? t : f;
    return o == TypeId::kDate || IsAnyTimestamp(o);
  }
  // Intervals: to and from strings, within a kind, and to and from numbers, which count units of
  // the interval's end field (CAST(-122S AS INTERVAL YEAR TO MONTH) is -122 months).
  if (from->is_interval() || to->is_interval()) {
    if (f == t) return true;
    if (from->is_interval()) return IsIntegral(t) || t == TypeId::kDecimal;
    return IsIntegral(f) || f == TypeId::kDecimal;
  }
  if (f == TypeId::kStruct && t == TypeId::kStruct) {
    if (from->fields().size() != to->fields().size()) return false;
    for (size_t i = 0; i < from->fields().size(); ++i) {
      if (!CanCast(from->fields()[i].type, to->fields()[i].type)) return false;
    }
    return true;
  }
  if (f == TypeId::kList && t == TypeId::kList)
    return CanCast(from->element_type(), to->element_type());
  if (f == TypeId::kMap && t == TypeId::kMap) {
    return CanCast(from->key_type(), to->key_type()) &&
           CanCast(from->value_type(), to->value_type());
  }
  return false;
}

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

Status InvalidInput(const Value& v, const TypePtr& to) {
  return Status::InvalidArgument(
      "The value '" + v.ToString() + "' of the type \"" + v.type()->ToString() +
          "\" cannot be cast to \"" + to->ToString() +
          "\" because it is malformed. Correct the value as per the syntax, or change its target "
          "type. "
          "Use `try_cast` to tolerate malformed input and return NULL instead.",
      errc::kCastInvalidInput);
}

Status Overflow(const Value& v, const TypePtr& to) {
  return Status::InvalidArgument(
      "The value " + v.ToString() + " of the type \"" + v.type()->ToString() +
          "\" cannot be cast to \"" + to->ToString() +
          "\" due to an overflow. Use `try_cast` to tolerate overflow and return NULL instead.",
      errc::kCastOverflow);
}

// Spark's NUMERIC_VALUE_OUT_OF_RANGE(.WITH_SUGGESTION): a value that does not fit a decimal type
// (`text` is the value at the target's scale, as Spark prints it).
Status DecimalOutOfRange(const std::string& text, const TypePtr& to) {
  return Status::InvalidArgument(
      text + " cannot be represented as Decimal(" + std::to_string(to->precision()) + ", " +
          std::to_string(to->scale()) +
          "). If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error, and "
          "return NULL instead.",
      errc::kNumericValueOutOfRange);
}

bool IntegralRange(TypeId t, int64_t* lo, int64_t* hi) {
  switch (t) {
    case TypeId::kInt8:
      *lo = INT8_MIN;
      *hi = INT8_MAX;
      return true;
    case TypeId::kInt16:
      *lo = INT16_MIN;
      *hi = INT16_MAX;
      return true;
    case TypeId::kInt32:
      *lo = INT32_MIN;
      *hi = INT32_MAX;
      return true;
    case TypeId::kInt64:
      *lo = INT64_MIN;
      *hi = INT64_MAX;
      return true;
    default:
      return false;
  }
}

// Wraps like a Java narrowing conversion.
int64_t Wrap(int64_t v, TypeId t) {
  switch (t) {
    case TypeId::kInt8:
      return static_cast<int8_t>(v);
    case TypeId::kInt16:
      return static_cast<int16_t>(v);
    case TypeId::kInt32:
      return static_cast<int32_t>(v);
    default:
      return v;
  }
}

// Parses a Spark numeric string for integral targets: optional sign, digits, optional fraction
// (truncated, as UTF8String.toLong does; refused under ANSI, as UTF8String.toLongExact does).
bool ParseIntegral(std::string_view s, int64_t* out, bool allow_fraction = true) {
  s = Trim(s);
  if (s.empty()) return false;
  bool neg = false;
  size_t i = 0;
  if (s[0] == '-' || s[0] == '+') {
    neg = s[0] == '-';
    i = 1;
  }
  if (i >= s.size()) return false;
  __int128 v = 0;
  bool digits = false;
  for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
    v = v * 10 + (s[i] - '0');
    digits = true;
    if (v > (static_cast<__int128>(INT64_MAX) + 1)) return false;
  }
  if (i < s.size() && s[i] == '.') {
    if (!allow_fraction) return false;
    ++i;
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) digits = true;
  }
  if (i != s.size() || !digits) return false;
  if (neg) v = -v;
  if (v > INT64_MAX || v < INT64_MIN) return false;
  *out = static_cast<int64_t>(v);
  return true;
}

bool ParseDouble(std::string_view s, double* out) {
  s = Trim(s);
  if (s.empty()) return false;
  std::string l = AsciiLower(s);
  if (l == "nan") {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (l == "infinity" || l == "+infinity" || l == "inf" || l == "+inf") {
    *out = INFINITY;
    return true;
  }
  if (l == "-infinity" || l == "-inf") {
    *out = -INFINITY;
    return true;
  }
  std::string str(s);
  if (!str.empty() &&
      (str.back() == 'd' || str.back() == 'D' || str.back() == 'f' || str.back() == 'F'))
    str.pop_back();
  char* end = nullptr;
  *out = std::strtod(str.c_str(), &end);
  return end && *end == '\0' && end != str.c_str();
}

double ToDouble(const Value& v) {
  switch (v.type()->id()) {
    case TypeId::kFloat:
    case TypeId::kDouble:
      return v.floating();
    case TypeId::kDecimal:
      return static_cast<double>(v.decimal()) / std::pow(10.0, v.type()->scale());
    case TypeId::kBoolean:
      return v.boolean() ? 1 : 0;
    default:
      return static_cast<double>(v.integer());
  }
}

std::string TimestampText(int64_t micros) {
  std::string s = FormatTimestampMicros(micros);  // "yyyy-MM-dd HH:mm:ss.ffffff"
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

}  // namespace

std::string CastToString(const Value& v) {
  switch (v.type()->id()) {
    case TypeId::kBoolean:
      return v.boolean() ? "true" : "false";
    case TypeId::kFloat:
      return FormatJavaFloat(static_cast<float>(v.floating()));
    case TypeId::kDouble:
      return FormatJavaDouble(v.floating());
    case TypeId::kDecimal:
      return FormatDecimal(v.decimal(), v.type()->scale());
    case TypeId::kDate:
      return FormatDate(static_cast<int32_t>(v.integer()));
    case TypeId::kYearMonthInterval:
      return FormatYearMonthInterval(static_cast<int32_t>(v.integer()), v.type()->interval_start(),
                                     v.type()->interval_end(), true);
    case TypeId::kDayTimeInterval:
      return FormatDayTimeInterval(v.integer(), v.type()->interval_start(),
                                   v.type()->interval_end(), true);
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return TimestampText(v.integer());
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
      return FormatTimestampNanosText(v.integer());
    case TypeId::kTime:
      return FormatTimeText(v.integer());
    case TypeId::kCalendarInterval:
      return FormatCalendarInterval(v.calendar_interval());
    case TypeId::kString:
    case TypeId::kBinary:
      return v.str();
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap: {
      // Spark's castToString of a nested value: each element in its own string form ("null"
      // for NULL), "[a, b]" / "{a, b}" / "{k -> v}".
      auto elem = [](const Value& c) {
        return c.is_null() ? std::string("null") : CastToString(c);
      };
      const bool map = v.type()->id() == TypeId::kMap;
      std::string s = v.type()->id() == TypeId::kList ? "[" : "{";
      const auto& ch = v.children();
      for (size_t i = 0; i < ch.size(); i += map ? 2 : 1) {
        if (i) s += ", ";
        s += elem(ch[i]);
        if (map && i + 1 < ch.size()) s += " -> " + elem(ch[i + 1]);
      }
      return s + (v.type()->id() == TypeId::kList ? "]" : "}");
    }
    default:
      return std::to_string(v.integer());
  }
}

// Microseconds (day-time) or months (year-month) per unit of an interval field.
int64_t IntervalUnit(bool ym, int field) {
  if (ym) return field == kIntervalYear ? 12 : 1;
  static const int64_t kUnits[] = {kMicrosPerDay, 3600 * kMicrosPerSecond, 60 * kMicrosPerSecond,
                                   kMicrosPerSecond};
  return kUnits[field];
}

// Parses the body of a year-month / day-time interval string for the fields of `to` (Spark's
// castStringToYMInterval / castStringToDTInterval): "[+|-]y-m", "[+|-]d hh:mm:ss.ffffff", ... or
// the ANSI form "INTERVAL '<body>' <fields>" naming the same fields.
std::optional<int64_t> ParseIntervalText(std::string_view text, const TypePtr& to) {
  const bool ym = to->id() == TypeId::kYearMonthInterval;
  const int start = to->interval_start(), end = to->interval_end();
  std::string_view s = Trim(text);
  bool neg = false;
  if (s.size() > 8 && AsciiLower(s.substr(0, 8)) == "interval" &&
      std::isspace(static_cast<unsigned char>(s[8]))) {
    s = Trim(s.substr(8));
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
      neg = s[0] == '-';
      s = Trim(s.substr(1));
    }
    if (s.empty() || s[0] != '\'') return std::nullopt;
    size_t close = s.find('\'', 1);
    if (close == std::string_view::npos) return std::nullopt;
    std::string qualifier = AsciiUpper(Trim(s.substr(close + 1)));
    std::string want = to->ToString().substr(9);  // after "interval "
    if (qualifier != AsciiUpper(want)) return std::nullopt;
    s = s.substr(1, close - 1);
  }
  s = Trim(s);
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = neg != (s[0] == '-');
    s = s.substr(1);
  }
  // Split into the fields: '-' separates year and month; ' ' the days, ':' the time fields.
  std::vector<std::string_view> parts;
  size_t b = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || (ym ? s[i] == '-' : (s[i] == ' ' || s[i] == ':'))) {
      parts.push_back(s.substr(b, i - b));
      b = i + 1;
    }
  }
  if (static_cast<int>(parts.size()) != end - start + 1) return std::nullopt;
  __int128 total = 0;
  for (int k = 0; k < static_cast<int>(parts.size()); ++k) {
    int field = start + k;
    std::string_view p = parts[k];
    int64_t frac = 0;
    if (!ym && field == kIntervalSecond) {
      size_t dot = p.find('.');
      if (dot != std::string_view::npos) {
        std::string_view f = p.substr(dot + 1);
        if (f.empty() || f.size() > 9) return std::nullopt;
        for (size_t j = 0; j < 6; ++j) {
          char c = j < f.size() ? f[j] : '0';
          if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
          frac = frac * 10 + (c - '0');
        }
        for (size_t j = 6; j < f.size(); ++j) {
          if (!std::isdigit(static_cast<unsigned char>(f[j]))) return std::nullopt;
        }
        p = p.substr(0, dot);
      }
    }
    if (p.empty() || p.size() > 18) return std::nullopt;
    int64_t v = 0;
    for (char c : p) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
      v = v * 10 + (c - '0');
    }
    if (k > 0) {
      int64_t limit = ym ? 11 : field == kIntervalHour ? 23 : 59;
      if (v > limit) return std::nullopt;
    }
    total += static_cast<__int128>(v) * IntervalUnit(ym, field) + frac;
  }
  if (neg) total = -total;
  int64_t lo = ym ? INT32_MIN : INT64_MIN, hi = ym ? INT32_MAX : INT64_MAX;
  if (total < lo || total > hi) return std::nullopt;
  return static_cast<int64_t>(total);
}

// CAST involving an interval type (CanCast allowed it). Numbers count units of the interval's
// end field: to integers truncated, to decimals rounded HALF_UP to the scale; from decimals the
// value is rounded HALF_UP to microseconds (months), then cut to the end field.
// An overflow is an error in both modes, as in Spark (its interval casts use exact arithmetic).
Result<Value> CastIntervalValue(const Value& v, const TypePtr& to, bool ansi) {
  const TypePtr& from = v.type();
  auto overflow = [&]() -> Result<Value> { return Overflow(v, to); };
  if (from->id() == TypeId::kString) {
    auto r = ParseIntervalText(v.str(), to);
    if (!r) {
      if (ansi) return InvalidInput(v, to);
      return Value::Null(to);
    }
    return Value::Integer(to, *r);
  }
  if (from->is_interval()) {
    const bool ym = from->id() == TypeId::kYearMonthInterval;
    const int64_t x = v.integer();
    if (to->is_interval()) {
      // Within a kind: keep the value down to the target's end field.
      int64_t unit = IntervalUnit(ym, to->interval_end());
      return Value::Integer(to, x - x % unit);
    }
    const int64_t unit = IntervalUnit(ym, from->interval_end());
    if (to->id() == TypeId::kDecimal) {
      int p = to->precision(), sc = to->scale();
      __int128 num = static_cast<__int128>(x) * Pow10(sc);
      __int128 q = num / unit, rem = num % unit;
      if (rem != 0 && (rem < 0 ? -rem : rem) * 2 >= unit) q += num < 0 ? -1 : 1;
      if (!FitsPrecision(q, p)) return DecimalOutOfRange(FormatDecimal(q, sc), to);
      return Value::Decimal(p, sc, q);
    }
    int64_t n = x / unit, lo, hi;
    IntegralRange(to->id(), &lo, &hi);
    if (n < lo || n > hi) return overflow();
    return Value::Integer(to, n);
  }
  // A number to an interval.
  const bool ym = to->id() == TypeId::kYearMonthInterval;
  const int64_t unit = IntervalUnit(ym, to->interval_end());
  const __int128 lo = ym ? INT32_MIN : INT64_MIN, hi = ym ? INT32_MAX : INT64_MAX;
  __int128 x;
  if (v.type()->id() == TypeId::kDecimal) {
    __int128 d = v.decimal(), den = Pow10(v.type()->scale());
    long double approx = static_cast<long double>(d) / static_cast<long double>(den) * unit;
    if (approx > static_cast<long double>(hi) + 1 || approx < static_cast<long double>(lo) - 1) {
      return overflow();
    }
    // Digits far below a microsecond cannot matter: drop them until d * unit fits.
    const __int128 limit = static_cast<__int128>(1) << 88;
    while (den > 1 && (d > limit || d < -limit)) {
      d /= 10;
      den /= 10;
    }
    __int128 num = d * unit;
    __int128 q = num / den, rem = num % den;
    if (rem != 0 && (rem < 0 ? -rem : rem) * 2 >= den) q += num < 0 ? -1 : 1;
    // The SECOND field keeps its fraction (microseconds); a coarser end field is cut to it.
    x = !ym && to->interval_end() == kIntervalSecond ? q : q - q % unit;
  } else {
    x = static_cast<__int128>(v.integer()) * unit;
  }
  if (x < lo || x > hi) return overflow();
  return Value::Integer(to, static_cast<int64_t>(x));
}

Result<Value> CastValue(const Value& v, const TypePtr& to, bool ansi) {
  if (v.is_null()) return Value::Null(to);
  const TypeId f = v.type()->id(), t = to->id();
  if (v.type()->Equals(*to)) return v;
  auto fail_invalid = [&]() -> Result<Value> {
    if (ansi) return InvalidInput(v, to);
    return Value::Null(to);
  };
  auto fail_overflow = [&]() -> Result<Value> {
    if (ansi) return Overflow(v, to);
    return Value::Null(to);
  };
  if (t == TypeId::kString) return Value::String(CastToString(v));
  if (t == TypeId::kCalendarInterval) {
    // Spark's safeStringToInterval: a malformed string is NULL in both modes.
    auto c = ParseCalendarInterval(v.str());
    return c ? Value::CalendarInterval(*c) : Value::Null(to);
  }
  if (t == TypeId::kBinary && f == TypeId::kString) return Value::Binary(v.str());
  if (t == TypeId::kBinary && IsIntegral(f)) {
    // Non-ANSI only (BindCast refuses it under ANSI): the big-endian bytes of the value's width.
    const int width = f == TypeId::kInt8    ? 1
                      : f == TypeId::kInt16 ? 2
                      : f == TypeId::kInt32 ? 4
                                            : 8;
    const uint64_t x = static_cast<uint64_t>(v.integer());
    std::string bytes(static_cast<size_t>(width), '\0');
    for (int i = 0; i < width; ++i)
      bytes[static_cast<size_t>(i)] = static_cast<char>((x >> (8 * (width - 1 - i))) & 0xff);
    return Value::Binary(std::move(bytes));
  }
  if (v.type()->is_interval() || to->is_interval()) return CastIntervalValue(v, to, ansi);

  // Integral targets.
  int64_t lo, hi;
  if (IntegralRange(t, &lo, &hi)) {
    if (IsIntegral(f) || IsDatetime(f) == false) {
      if (IsIntegral(f)) {
        int64_t x = v.integer();
        if (x < lo || x > hi) {
          if (ansi) return Overflow(v, to);
          return Value::Integer(to, Wrap(x, t));
        }
        return Value::Integer(to, x);
      }
    }
    switch (f) {
      case TypeId::kBoolean:
        return Value::Integer(to, v.boolean() ? 1 : 0);
      case TypeId::kFloat:
      case TypeId::kDouble: {
        double d = v.floating();
        if (std::isnan(d))
          return ansi ? Result<Value>(Overflow(v, to)) : Result<Value>(Value::Integer(to, 0));
        double tr = std::trunc(d);
        if (tr < static_cast<double>(lo) || tr > static_cast<double>(hi)) {
          if (ansi) return Overflow(v, to);
          // Java's (int)/(long) saturate; narrower types go through int first.
          int64_t sat = tr < 0 ? (t == TypeId::kInt64 ? INT64_MIN : INT32_MIN)
                               : (t == TypeId::kInt64 ? INT64_MAX : INT32_MAX);
          return Value::Integer(to, Wrap(sat, t));
        }
        return Value::Integer(to, static_cast<int64_t>(tr));
      }
      case TypeId::kDecimal: {
        int128_t q = v.decimal() / Pow10(v.type()->scale());
        if (q < lo || q > hi) return fail_overflow();
        return Value::Integer(to, static_cast<int64_t>(q));
      }
      case TypeId::kString: {
        int64_t x;
        if (!ParseIntegral(v.str(), &x, !ansi) || x < lo || x > hi) return fail_invalid();
        return Value::Integer(to, x);
      }
      case TypeId::kTimestamp: {
        int64_t secs = FloorDiv(v.integer(), 1000000);
        if (secs < lo || secs > hi) return fail_overflow();
        return Value::Integer(to, secs);
      }
      case TypeId::kTime: {
        // Whole seconds since midnight (the fraction floored), as Spark's TIME → integral.
        int64_t secs = FloorDiv(v.integer(), kNanosPerSecond);
        if (secs < lo || secs > hi) return fail_overflow();
        return Value::Integer(to, secs);
      }
      default:
        break;
    }
  }
  if (t == TypeId::kFloat || t == TypeId::kDouble) {
    double d;
    switch (f) {
      case TypeId::kString:
        if (!ParseDouble(v.str(), &d)) return fail_invalid();
        break;
      case TypeId::kTimestamp:
        d = static_cast<double>(v.integer()) / 1e6;
        break;
      default:
        if (!IsNumeric(f) && f != TypeId::kBoolean) return fail_invalid();
        d = ToDouble(v);
    }
    if (t == TypeId::kFloat) d = static_cast<double>(static_cast<float>(d));
    return Value::Floating(to, d);
  }
  if (t == TypeId::kDecimal) {
    int p = to->precision(), s = to->scale();
    int128_t u;
    switch (f) {
      case TypeId::kDecimal:
        u = Rescale(v.decimal(), v.type()->scale(), s);
        break;
      case TypeId::kBoolean:
        u = (v.boolean() ? 1 : 0) * Pow10(s);
        break;
      case TypeId::kFloat:
      case TypeId::kDouble: {
        double d = v.floating();
        if (!std::isfinite(d)) return fail_invalid();
        double scaled = d * std::pow(10.0, s);
        if (std::fabs(scaled) >= 1e38) {
          if (ansi) return DecimalOutOfRange(v.ToString(), to);
          return Value::Null(to);
        }
        u = static_cast<int128_t>(std::llround(scaled));
        if (std::fabs(scaled) >= 9e18) u = static_cast<int128_t>(scaled);
        break;
      }
      case TypeId::kString: {
        std::string_view txt = Trim(v.str());
        if (!ParseDecimalText(txt, 38, s, &u)) return fail_invalid();
        break;
      }
      case TypeId::kTime: {
        // Seconds since midnight with nine fraction digits, rounded HALF_UP to the scale; the
        // error shows the exact value (Spark's "60.000000000").
        u = Rescale(static_cast<int128_t>(v.integer()), 9, s);
        if (!FitsPrecision(u, p)) {
          if (ansi) return DecimalOutOfRange(FormatDecimal(v.integer(), 9), to);
          return Value::Null(to);
        }
        return Value::Decimal(p, s, u);
      }
      default:
        if (!IsIntegral(f)) return fail_invalid();
        u = static_cast<int128_t>(v.integer()) * Pow10(s);
    }
    if (!FitsPrecision(u, p)) {
      if (ansi) return DecimalOutOfRange(FormatDecimal(u, s), to);
      return Value::Null(to);
    }
    return Value::Decimal(p, s, u);
  }
  if (t == TypeId::kBoolean) {
    if (f == TypeId::kString) {
      std::string l = AsciiLower(Trim(v.str()));
      if (l == "t" || l == "true" || l == "y" || l == "yes" || l == "1")
        return Value::Boolean(true);
      if (l == "f" || l == "false" || l == "n" || l == "no" || l == "0")
        return Value::Boolean(false);
      return fail_invalid();
    }
    if (IsNumeric(f)) return Value::Boolean(ToDouble(v) != 0);
    if (f == TypeId::kTimestamp) return Value::Boolean(v.integer() != 0);
  }
  if (t == TypeId::kDate) {
    switch (f) {
      case TypeId::kString: {
        std::string_view s = Trim(v.str());
        if (s.size() > 10 && (s[10] == ' ' || s[10] == 'T')) s = s.substr(0, 10);
        int32_t days;
        std::string str(s);
        if (str.size() == 4)
          str += "-01-01";
        else if (str.size() == 7)
          str += "-01";
        if (!ParseIsoDate(str, &days)) return fail_invalid();
        return Value::Integer(to, days);
      }
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz:
        return Value::Integer(to, FloorDiv(v.integer(), kMicrosPerDay));
      case TypeId::kTimestampNanos:
      case TypeId::kTimestampNtzNanos:
        return Value::Integer(to, FloorDiv(v.integer(), kNanosPerDay));
      default:
        break;
    }
  }
  if (t == TypeId::kTime) {
    // The time of day (a timestamp's wall time: CastValueInZone gives a TIMESTAMP's), floored to
    // the target's precision.
    int64_t ns;
    switch (f) {
      case TypeId::kString:
        if (!ParseTimeText(v.str(), &ns)) return fail_invalid();
        break;
      case TypeId::kTime:
        ns = v.integer();
        break;
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz:
        ns = FloorMod(v.integer(), kMicrosPerDay) * kNanosPerMicro;
        break;
      case TypeId::kTimestampNanos:
      case TypeId::kTimestampNtzNanos:
        ns = FloorMod(v.integer(), kNanosPerDay);
        break;
      default:
        return fail_invalid();
    }
    return Value::Integer(to, TruncateNanos(ns, to->precision()));
  }
  if (IsNanosTimestamp(t)) {
    // Zone-free: a TIMESTAMP source is taken as UTC wall time here (CastValueInZone converts the
    // zone-sensitive pairs before calling this).
    int64_t n;
    switch (f) {
      case TypeId::kString: {
        std::string_view s = Trim(v.str());
        int64_t micros;
        bool has_zone;
        if (ParseIsoTimestamp(s, &micros, &has_zone)) {
          if (!MicrosToNanos(micros, &n) || __builtin_add_overflow(n, SubMicroNanos(s), &n)) {
            return fail_overflow();
          }
          break;
        }
        int32_t days;
        if (!ParseIsoDate(s, &days)) return fail_invalid();
        if (__builtin_mul_overflow(static_cast<int64_t>(days), kNanosPerDay, &n)) {
          return fail_overflow();
        }
        break;
      }
      case TypeId::kDate:
        if (__builtin_mul_overflow(v.integer(), kNanosPerDay, &n)) return fail_overflow();
        break;
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz:
        if (!MicrosToNanos(v.integer(), &n)) return fail_overflow();
        break;
      case TypeId::kTimestampNanos:
      case TypeId::kTimestampNtzNanos:
        n = v.integer();
        break;
      default:
        return fail_invalid();
    }
    return Value::Integer(to, TruncateNanos(n, to->precision()));
  }
  if (t == TypeId::kTimestamp || t == TypeId::kTimestampNtz) {
    switch (f) {
      case TypeId::kString: {
        std::string_view s = Trim(v.str());
        int64_t micros;
        bool has_zone;
        if (ParseIsoTimestamp(s, &micros, &has_zone)) return Value::Integer(to, micros);
        int32_t days;
        if (ParseIsoDate(s, &days)) return Value::Integer(to, days * kMicrosPerDay);
        return fail_invalid();
      }
      case TypeId::kDate:
        return Value::Integer(to, v.integer() * kMicrosPerDay);
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz:
        return Value::Integer(to, v.integer());
      case TypeId::kTimestampNanos:
      case TypeId::kTimestampNtzNanos:  // the sub-microsecond digits dropped (floor)
        return Value::Integer(to, NanosToMicros(v.integer()));
      default:
        if (t == TypeId::kTimestamp && IsNumeric(f)) {
          double secs = ToDouble(v);
          if (!std::isfinite(secs)) return fail_invalid();
          return Value::Integer(to, static_cast<int64_t>(secs * 1e6));
        }
    }
  }
  if (f == TypeId::kNull) return Value::Null(to);
  if (t == TypeId::kStruct && f == TypeId::kStruct && v.children().size() == to->fields().size()) {
    std::vector<Value> out;
    for (size_t i = 0; i < v.children().size(); ++i) {
      SILT_ASSIGN_OR_RETURN(Value c, CastValue(v.children()[i], to->fields()[i].type, ansi));
      out.push_back(std::move(c));
    }
    return Value::Nested(to, std::move(out));
  }
  if (t == TypeId::kList && f == TypeId::kList) {
    std::vector<Value> out;
    for (const auto& c : v.children()) {
      SILT_ASSIGN_OR_RETURN(Value x, CastValue(c, to->element_type(), ansi));
      out.push_back(std::move(x));
    }
    return Value::Nested(to, std::move(out));
  }
  if (t == TypeId::kMap && f == TypeId::kMap) {
    std::vector<Value> out;
    for (size_t i = 0; i < v.children().size(); ++i) {
      SILT_ASSIGN_OR_RETURN(
          Value x, CastValue(v.children()[i], i % 2 ? to->value_type() : to->key_type(), ansi));
      out.push_back(std::move(x));
    }
    return Value::Nested(to, std::move(out));
  }
  return Status::InvalidArgument(
      "cannot cast " + v.type()->ToString() + " to " + to->ToString() + ".",
      errc::kDatatypeMismatchCastWithoutSuggestion);
}

}  // namespace silt::exec
