#include "vector/value.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "common/datetime.h"
#include "common/json_escape.h"
#include "common/number_format.h"

namespace silt {

std::string Int128ToString(int128_t v) { return Int128ToDecimalString(v); }

std::string FormatDecimal(int128_t unscaled, int scale) {
  return FormatPlainDecimal(unscaled, scale);
}

void AppendJsonString(std::string* out, std::string_view s) {
  AppendJsonString(out, s, JsonHexCase::kLower);
}

std::string FormatDate(int32_t days) {
  CivilDate c = CivilFromDays(days);
  char buf[32];
  snprintf(buf, sizeof buf, "%04lld-%02d-%02d", static_cast<long long>(c.year), c.month, c.day);
  return buf;
}

std::string FormatTimestampMicros(int64_t micros) {
  int64_t days = FloorDiv(micros, 86400000000LL);
  int64_t rem = micros - days * 86400000000LL;
  int64_t secs = rem / 1000000, frac = rem % 1000000;
  char buf[64];
  snprintf(buf, sizeof buf, "%s %02lld:%02lld:%02lld.%06lld",
           FormatDate(static_cast<int32_t>(days)).c_str(), static_cast<long long>(secs / 3600),
           static_cast<long long>((secs / 60) % 60), static_cast<long long>(secs % 60),
           static_cast<long long>(frac));
  return buf;
}

std::string FormatDouble(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

namespace {
void ToJsonImpl(const Value& v, std::string* out) {
  if (v.is_null()) {
    *out += "null";
    return;
  }
  static const char* hex = "0123456789abcdef";
  switch (v.type()->id()) {
    case TypeId::kNull:
      *out += "null";
      break;
    case TypeId::kBoolean:
      *out += v.boolean() ? "true" : "false";
      break;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      *out += std::to_string(v.integer());
      break;
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double d = v.floating();
      if (std::isnan(d) || std::isinf(d)) {
        AppendJsonString(out, FormatDouble(d));
      } else {
        *out += FormatDouble(d);
      }
      break;
    }
    case TypeId::kDecimal:
      AppendJsonString(out, FormatDecimal(v.decimal(), v.type()->scale()));
      break;
    case TypeId::kString:
      AppendJsonString(out, v.str());
      break;
    case TypeId::kBinary: {
      *out += "\"0x";
      for (unsigned char c : v.str()) {
        out->push_back(hex[c >> 4]);
        out->push_back(hex[c & 15]);
      }
      *out += "\"";
      break;
    }
    case TypeId::kDate:
      AppendJsonString(out, FormatDate(static_cast<int32_t>(v.integer())));
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      AppendJsonString(out, FormatTimestampMicros(v.integer()));
      break;
    case TypeId::kStruct: {
      *out += "{";
      const auto& f = v.type()->fields();
      for (size_t i = 0; i < v.children().size(); ++i) {
        if (i) *out += ",";
        AppendJsonString(out, f[i].name);
        *out += ":";
        ToJsonImpl(v.children()[i], out);
      }
      *out += "}";
      break;
    }
    case TypeId::kList: {
      *out += "[";
      for (size_t i = 0; i < v.children().size(); ++i) {
        if (i) *out += ",";
        ToJsonImpl(v.children()[i], out);
      }
      *out += "]";
      break;
    }
    case TypeId::kMap: {
      *out += "[";
      for (size_t i = 0; i + 1 < v.children().size(); i += 2) {
        if (i) *out += ",";
        *out += "[";
        ToJsonImpl(v.children()[i], out);
        *out += ",";
        ToJsonImpl(v.children()[i + 1], out);
        *out += "]";
      }
      *out += "]";
      break;
    }
  }
}
}  // namespace

std::string Value::ToJson() const {
  std::string out;
  ToJsonImpl(*this, &out);
  return out;
}

std::string Value::ToString() const {
  if (is_null()) return "NULL";
  switch (type_->id()) {
    case TypeId::kString:
    case TypeId::kBinary:
      return str();
    case TypeId::kFloat:
    case TypeId::kDouble:
      return FormatDouble(floating());
    case TypeId::kDecimal:
      return FormatDecimal(decimal(), type_->scale());
    case TypeId::kDate:
      return FormatDate(static_cast<int32_t>(integer()));
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return FormatTimestampMicros(integer());
    case TypeId::kStruct:
    case TypeId::kList: {
      std::string s = type_->id() == TypeId::kList ? "[" : "{";
      for (size_t i = 0; i < children().size(); ++i) {
        if (i) s += ", ";
        s += children()[i].ToString();
      }
      return s + (type_->id() == TypeId::kList ? "]" : "}");
    }
    case TypeId::kMap: {
      std::string s = "{";
      for (size_t i = 0; i + 1 < children().size(); i += 2) {
        if (i) s += ", ";
        s += children()[i].ToString() + " -> " + children()[i + 1].ToString();
      }
      return s + "}";
    }
    default:
      return ToJson();
  }
}

bool Value::operator==(const Value& o) const {
  if (type_->id() != o.type_->id()) return false;
  if (is_null() || o.is_null()) return is_null() == o.is_null();
  if (std::holds_alternative<double>(v_)) {
    double a = floating(), b = o.floating();
    return (std::isnan(a) && std::isnan(b)) || a == b;
  }
  return v_ == o.v_;
}

}  // namespace silt
