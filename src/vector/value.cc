#include "vector/value.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace silt {

std::string Int128ToString(int128_t v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u = neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
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

std::string FormatDecimal(int128_t unscaled, int scale) {
  std::string digits = Int128ToString(unscaled);
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

namespace {
// Howard Hinnant's civil_from_days.
void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t yy = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = yy + (*m <= 2);
}
int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
}  // namespace

std::string FormatDate(int32_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  char buf[32];
  snprintf(buf, sizeof buf, "%04lld-%02u-%02u", static_cast<long long>(y), m, d);
  return buf;
}

std::string FormatTimestampMicros(int64_t micros) {
  int64_t days = FloorDiv(micros, 86400000000LL);
  int64_t rem = micros - days * 86400000000LL;
  int64_t secs = rem / 1000000, frac = rem % 1000000;
  char buf[64];
  snprintf(buf, sizeof buf, "%s %02lld:%02lld:%02lld.%06lld", FormatDate(static_cast<int32_t>(days)).c_str(),
           static_cast<long long>(secs / 3600), static_cast<long long>((secs / 60) % 60),
           static_cast<long long>(secs % 60), static_cast<long long>(frac));
  return buf;
}

std::string FormatDouble(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

void AppendJsonString(std::string* out, std::string_view s) {
  static const char* hex = "0123456789abcdef";
  out->push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      case '\b': *out += "\\b"; break;
      case '\f': *out += "\\f"; break;
      default:
        if (c < 0x20) {
          *out += "\\u00";
          out->push_back(hex[c >> 4]);
          out->push_back(hex[c & 15]);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
}

namespace {
void ToJsonImpl(const Value& v, std::string* out) {
  if (v.is_null()) {
    *out += "null";
    return;
  }
  static const char* hex = "0123456789abcdef";
  switch (v.type()->id()) {
    case TypeId::kNull: *out += "null"; break;
    case TypeId::kBoolean: *out += v.boolean() ? "true" : "false"; break;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64: *out += std::to_string(v.integer()); break;
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
    case TypeId::kDecimal: AppendJsonString(out, FormatDecimal(v.decimal(), v.type()->scale())); break;
    case TypeId::kString: AppendJsonString(out, v.str()); break;
    case TypeId::kBinary: {
      *out += "\"0x";
      for (unsigned char c : v.str()) {
        out->push_back(hex[c >> 4]);
        out->push_back(hex[c & 15]);
      }
      *out += "\"";
      break;
    }
    case TypeId::kDate: AppendJsonString(out, FormatDate(static_cast<int32_t>(v.integer()))); break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: AppendJsonString(out, FormatTimestampMicros(v.integer())); break;
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
    case TypeId::kBinary: return str();
    case TypeId::kFloat:
    case TypeId::kDouble: return FormatDouble(floating());
    case TypeId::kDecimal: return FormatDecimal(decimal(), type_->scale());
    case TypeId::kDate: return FormatDate(static_cast<int32_t>(integer()));
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: return FormatTimestampMicros(integer());
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
    default: return ToJson();
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
