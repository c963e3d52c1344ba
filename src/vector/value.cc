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
  // As java.time's LocalDate.toString (Spark's rendering): four digits at least, a sign outside
  // years 0000..9999 ("+10000-01-01", "-0001-01-28").
  const long long y = static_cast<long long>(c.year);
  snprintf(buf, sizeof buf, "%s%04lld-%02d-%02d",
           y < 0      ? "-"
           : y > 9999 ? "+"
                      : "",
           y < 0 ? -y : y, c.month, c.day);
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

std::string FormatTimestampNanos(int64_t nanos) {
  int64_t micros = FloorDiv(nanos, 1000);
  char buf[8];
  snprintf(buf, sizeof buf, "%03lld", static_cast<long long>(nanos - micros * 1000));
  return FormatTimestampMicros(micros) + buf;
}

std::string FormatTimeNanos(int64_t ns) {
  int64_t secs = ns / 1000000000, frac = ns % 1000000000;
  char buf[48];
  snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld.%09lld", static_cast<long long>(secs / 3600),
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
    case TypeId::kYearMonthInterval:
    case TypeId::kDayTimeInterval:
      AppendJsonString(out, v.ToString());
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      AppendJsonString(out, FormatTimestampMicros(v.integer()));
      break;
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
    case TypeId::kTime:
    case TypeId::kCalendarInterval:
      AppendJsonString(out, v.ToString());
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
    case TypeId::kYearMonthInterval:
      return FormatYearMonthInterval(static_cast<int32_t>(integer()), type_->interval_start(),
                                     type_->interval_end(), false);
    case TypeId::kDayTimeInterval:
      return FormatDayTimeInterval(integer(), type_->interval_start(), type_->interval_end(),
                                   false);
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return FormatTimestampMicros(integer());
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
      return FormatTimestampNanos(integer());
    case TypeId::kTime:
      return FormatTimeNanos(integer());
    case TypeId::kCalendarInterval:
      return FormatCalendarInterval(calendar_interval());
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

std::string FormatYearMonthInterval(int32_t months, int start, int end, bool ansi) {
  int64_t abs_months = months;
  std::string sign;
  if (months < 0) {
    sign = "-";
    abs_months = -abs_months;
  }
  std::string year = sign + std::to_string(abs_months / 12);
  std::string year_month = year + "-" + std::to_string(abs_months % 12);
  if (!ansi) return year_month;
  if (start == end) {
    if (start == kIntervalYear) return "INTERVAL '" + year + "' YEAR";
    return "INTERVAL '" + std::to_string(months) + "' MONTH";
  }
  return "INTERVAL '" + year_month + "' YEAR TO MONTH";
}

namespace {
constexpr int64_t kUsPerSecond = 1000000;
constexpr int64_t kUsPerMinute = 60 * kUsPerSecond;
constexpr int64_t kUsPerHour = 60 * kUsPerMinute;
constexpr int64_t kUsPerDay = 24 * kUsPerHour;

// BigDecimal.valueOf(us, 6).stripTrailingZeros.toPlainString with a leading zero below 10 s.
std::string AnsiSeconds(uint64_t us) {
  std::string s = us < 10 * static_cast<uint64_t>(kUsPerSecond) ? "0" : "";
  s += std::to_string(us / kUsPerSecond);
  uint64_t frac = us % kUsPerSecond;
  if (frac != 0) {
    char buf[8];
    snprintf(buf, sizeof(buf), "%06llu", static_cast<unsigned long long>(frac));
    std::string f = buf;
    while (!f.empty() && f.back() == '0') f.pop_back();
    s += "." + f;
  }
  return s;
}
std::string Two(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof(buf), "%02llu", static_cast<unsigned long long>(v));
  return buf;
}
}  // namespace

std::string FormatCalendarInterval(const CalendarInterval& c) {
  if (c.months == 0 && c.days == 0 && c.microseconds == 0) return "0 seconds";
  std::string s;
  auto unit = [&](int64_t v, const char* name) {
    if (v != 0) s += std::to_string(v) + " " + name + " ";
  };
  // Java's truncating division and remainder, as CalendarInterval.toString.
  unit(c.months / 12, "years");
  unit(c.months % 12, "months");
  unit(c.days, "days");
  int64_t rest = c.microseconds;
  unit(rest / kUsPerHour, "hours");
  rest %= kUsPerHour;
  unit(rest / kUsPerMinute, "minutes");
  rest %= kUsPerMinute;
  if (rest != 0) {
    // BigDecimal.valueOf(rest, 6).stripTrailingZeros().toPlainString(): no forced leading zero.
    const uint64_t mag = rest < 0 ? static_cast<uint64_t>(-rest) : static_cast<uint64_t>(rest);
    std::string secs = AnsiSeconds(mag);
    if (secs.size() > 1 && secs[0] == '0' && secs[1] != '.') secs.erase(0, 1);
    s += (rest < 0 ? "-" : "") + secs + " seconds ";
  }
  s.pop_back();
  return s;
}

std::string FormatDayTimeInterval(int64_t micros, int start, int end, bool ansi) {
  static const char* const kNames[] = {"DAY", "HOUR", "MINUTE", "SECOND"};
  std::string sign;
  uint64_t rest = static_cast<uint64_t>(micros);
  if (micros < 0) {
    sign = "-";
    rest = static_cast<uint64_t>(0) - rest;  // also right for INT64_MIN
  }
  if (!ansi) {
    uint64_t sec_frac = rest % kUsPerMinute;
    rest /= kUsPerMinute;
    uint64_t minutes = rest % 60;
    rest /= 60;
    uint64_t hours = rest % 24;
    uint64_t days = rest / 24;
    char buf[96];
    snprintf(buf, sizeof(buf), "%s%llu %02llu:%02llu:%02llu.%09llu", sign.c_str(),
             static_cast<unsigned long long>(days), static_cast<unsigned long long>(hours),
             static_cast<unsigned long long>(minutes),
             static_cast<unsigned long long>(sec_frac / kUsPerSecond),
             static_cast<unsigned long long>((sec_frac % kUsPerSecond) * 1000));
    return buf;
  }
  std::string body = sign;
  switch (start) {
    case kIntervalDay:
      body += std::to_string(rest / kUsPerDay);
      rest %= kUsPerDay;
      break;
    case kIntervalHour:
      body += Two(rest / kUsPerHour);
      rest %= kUsPerHour;
      break;
    case kIntervalMinute:
      body += Two(rest / kUsPerMinute);
      rest %= kUsPerMinute;
      break;
    default:
      body += AnsiSeconds(rest);
      break;
  }
  if (start < kIntervalHour && kIntervalHour <= end) {
    body += " " + Two(rest / kUsPerHour);
    rest %= kUsPerHour;
  }
  if (start < kIntervalMinute && kIntervalMinute <= end) {
    body += ":" + Two(rest / kUsPerMinute);
    rest %= kUsPerMinute;
  }
  if (start < kIntervalSecond && kIntervalSecond <= end) body += ":" + AnsiSeconds(rest);
  std::string fields =
      start == end ? kNames[start] : std::string(kNames[start]) + " TO " + kNames[end];
  return "INTERVAL '" + body + "' " + fields;
}

}  // namespace silt
