#include "delta/partition_values.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

#include "common/ascii.h"
#include "common/datetime.h"
#include "common/error_classes.h"
#include "common/number_format.h"

namespace silt::delta {

namespace {

constexpr const char* kInvalidPartitionValueClass = errc::kDeltaInvalidPartitionValue;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

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

}  // namespace

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
    case TypeId::kNull:
      return Value::Null(type);
    case TypeId::kString:
      return Value::String(s);
    case TypeId::kBinary:
      return Value::Binary(s);
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
      if (!ParseIsoDate(s, &d)) return bad();
      return Value::Integer(type, d);
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: {
      int64_t us;
      bool has_zone;
      if (!ParseIsoTimestamp(s, &us, &has_zone)) return bad();
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
    case TypeId::kNull:
      return std::nullopt;
    case TypeId::kString:
    case TypeId::kBinary:
      if (v.str().empty()) return std::nullopt;
      return v.str();
    case TypeId::kBoolean:
      return std::string(v.boolean() ? "true" : "false");
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      return std::to_string(v.integer());
    case TypeId::kFloat:
      return FormatJavaFloat(static_cast<float>(v.floating()));
    case TypeId::kDouble:
      return FormatJavaDouble(v.floating());
    case TypeId::kDecimal:
      return FormatDecimal(v.decimal(), v.type()->scale());
    case TypeId::kDate:
      return FormatDate(static_cast<int32_t>(v.integer()));
    case TypeId::kTimestamp:
      return FormatIsoTimestampMicros(v.integer());
    case TypeId::kTimestampNtz: {
      std::string s = FormatTimestampMicros(v.integer());  // "yyyy-MM-dd HH:mm:ss.ffffff"
      while (s.back() == '0') s.pop_back();
      if (s.back() == '.') s.pop_back();
      return s;
    }
    default:
      return v.ToJson();
  }
}

}  // namespace silt::delta
