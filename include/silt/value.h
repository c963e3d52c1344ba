// Value: one dynamically typed datum (a cell). Used at the edges — literals, statistics, tests,
// printing — never in hot loops, which work on Vectors.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "silt/types.h"

namespace silt {

class Value {
 public:
  Value() : type_(DataType::Null()) {}
  static Value Null(TypePtr type) { return Value(std::move(type)); }
  static Value Boolean(bool v) { return Value(DataType::Boolean(), Storage(v)); }
  // Integral family (int8..int64, date, timestamp, timestamp_ntz) stored as int64.
  static Value Integer(TypePtr type, int64_t v) { return Value(std::move(type), Storage(v)); }
  static Value Int32(int32_t v) { return Integer(DataType::Int32(), v); }
  static Value Int64(int64_t v) { return Integer(DataType::Int64(), v); }
  static Value Floating(TypePtr type, double v) { return Value(std::move(type), Storage(v)); }
  static Value Double(double v) { return Floating(DataType::Double(), v); }
  static Value Decimal(int precision, int scale, int128_t unscaled) {
    return Value(DataType::Decimal(precision, scale), Storage(unscaled));
  }
  static Value CalendarInterval(const silt::CalendarInterval& c) {
    return Value(DataType::CalendarInterval(), Storage(PackCalendarInterval(c)));
  }
  static Value String(std::string v) { return Value(DataType::String(), Storage(std::move(v))); }
  static Value Binary(std::string v) { return Value(DataType::Binary(), Storage(std::move(v))); }
  // struct: one child per field; list: the elements; map: key0, value0, key1, value1, ...
  static Value Nested(TypePtr type, std::vector<Value> children) {
    return Value(std::move(type), Storage(std::move(children)));
  }

  const TypePtr& type() const { return type_; }
  bool is_null() const { return std::holds_alternative<std::monostate>(v_); }
  bool boolean() const { return std::get<bool>(v_); }
  int64_t integer() const { return std::get<int64_t>(v_); }
  double floating() const { return std::get<double>(v_); }
  int128_t decimal() const { return std::get<int128_t>(v_); }
  silt::CalendarInterval calendar_interval() const {
    return UnpackCalendarInterval(std::get<int128_t>(v_));
  }
  const std::string& str() const { return std::get<std::string>(v_); }
  const std::vector<Value>& children() const { return std::get<std::vector<Value>>(v_); }

  // Canonical JSON used by tests and `silt parquet cat --json`: numbers as JSON numbers (float and
  // double as the shortest round-trip form of the double value, NaN/Infinity as strings), decimals
  // as strings "12.30", strings JSON-escaped, binary as "0x" + hex, date "YYYY-MM-DD", timestamps
  // "YYYY-MM-DD HH:MM:SS.ffffff" (UTC for timestamp), struct as an object, list as an array, map as
  // an array of [key, value].
  std::string ToJson() const;
  // Spark-like display text ("NULL", plain strings, "[1, 2]", "{a -> 1}", "{1, x}").
  std::string ToString() const;
  // Exact equality of type id and content (floats bitwise-by-value, NaN == NaN).
  bool operator==(const Value& other) const;
  bool operator!=(const Value& other) const { return !(*this == other); }

 private:
  using Storage = std::variant<std::monostate, bool, int64_t, double, int128_t, std::string,
                               std::vector<Value>>;
  explicit Value(TypePtr type) : type_(std::move(type)) {}
  Value(TypePtr type, Storage v) : type_(std::move(type)), v_(std::move(v)) {}
  TypePtr type_;
  Storage v_;
};

// Formatting helpers shared by printing code.
std::string FormatDecimal(int128_t unscaled, int scale);
std::string Int128ToString(int128_t v);
std::string FormatDate(int32_t days);
std::string FormatTimestampMicros(int64_t micros);
// "yyyy-mm-dd hh:mm:ss.fffffffff" (nine fraction digits) and "hh:mm:ss.fffffffff" for time(p).
std::string FormatTimestampNanos(int64_t nanos);
std::string FormatTimeNanos(int64_t nanos_of_day);
// Spark's interval text (IntervalUtils.toYearMonthIntervalString / toDayTimeIntervalString):
// ansi = true gives the CAST(... AS STRING) form "INTERVAL '1-2' YEAR TO MONTH"; false gives the
// Hive form spark-sql prints in results ("1-2", "1 02:03:04.500000000").
std::string FormatYearMonthInterval(int32_t months, int start, int end, bool ansi);
std::string FormatDayTimeInterval(int64_t micros, int start, int end, bool ansi);
// Spark's CalendarInterval.toString: "1 years 2 months 3 days 4 hours 5 minutes 6.5 seconds"
// (zero units left out, "0 seconds" when all are zero).
std::string FormatCalendarInterval(const CalendarInterval& c);
void AppendJsonString(std::string* out, std::string_view s);
std::string FormatDouble(double v);

}  // namespace silt
