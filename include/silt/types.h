// silt's logical types: the Delta/Spark type system (primitives, decimal(p,s), timestamps with and
// without time zone, struct, array, map). Types are immutable and shared (TypePtr).
//
// Physical representation in a Vector (see vector.h):
//   boolean → uint8_t (0/1)     byte → int8_t     short → int16_t    int, date → int32_t
//   long, timestamp, timestamp_ntz (microseconds since epoch) → int64_t
//   timestamp_ltz(p), timestamp_ntz(p) with p in 7..9 (nanoseconds since epoch) → int64_t
//   time(p) (nanoseconds since midnight, p in 0..9 digits kept) → int64_t
//   interval year to month (months) → int32_t    interval day to second (microseconds) → int64_t
//   interval (Spark's legacy CalendarInterval) → __int128 packing months, days, microseconds
//   float → float   double → double   decimal(p,s) → __int128 unscaled value
//   string, binary → offsets + bytes   struct → children   array → offsets + child
//   map → offsets + one struct child {key, value}         void (null) → no storage
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace silt {

enum class TypeId : uint8_t {
  kNull,
  kBoolean,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kFloat,
  kDouble,
  kDecimal,
  kString,
  kBinary,
  kDate,          // days since 1970-01-01
  kTimestamp,     // microseconds since epoch, UTC instant
  kTimestampNtz,  // microseconds since epoch, no time zone
  kStruct,
  kList,
  kMap,
  kYearMonthInterval,  // YearMonthIntervalType: int32 months; start/end fields in the type
  kDayTimeInterval,    // DayTimeIntervalType: int64 microseconds; start/end fields
  kTime,               // TimeType(p): int64 nanoseconds since midnight; precision() = p
  kTimestampNanos,     // timestamp_ltz(p), p 7..9: int64 nanoseconds since epoch, UTC instant
  kTimestampNtzNanos,  // timestamp_ntz(p), p 7..9: int64 nanoseconds since epoch, no zone
  // Spark's legacy CalendarIntervalType ("interval"): months, days and microseconds kept apart
  // (a month has no fixed number of days, a day no fixed number of microseconds across DST).
  // Not orderable and never stored in a table, as in Spark; packed in an int128 (see below).
  kCalendarInterval,
};

// Interval fields (Spark's YearMonthIntervalType.YEAR/MONTH, DayTimeIntervalType.DAY..SECOND).
enum IntervalField : int { kIntervalYear = 0, kIntervalMonth = 1 };
enum DayTimeField : int {
  kIntervalDay = 0,
  kIntervalHour = 1,
  kIntervalMinute = 2,
  kIntervalSecond = 3
};

using int128_t = __int128;

// One value of kCalendarInterval (Spark's CalendarInterval). In a Vector and a Value it is one
// int128: months in bits 96..127, days in 64..95, microseconds in 0..63.
struct CalendarInterval {
  int32_t months = 0;
  int32_t days = 0;
  int64_t microseconds = 0;
  bool operator==(const CalendarInterval&) const = default;
};
inline int128_t PackCalendarInterval(const CalendarInterval& c) {
  using u128 = unsigned __int128;
  return static_cast<int128_t>((static_cast<u128>(static_cast<uint32_t>(c.months)) << 96) |
                               (static_cast<u128>(static_cast<uint32_t>(c.days)) << 64) |
                               static_cast<u128>(static_cast<uint64_t>(c.microseconds)));
}
inline CalendarInterval UnpackCalendarInterval(int128_t v) {
  using u128 = unsigned __int128;
  const u128 u = static_cast<u128>(v);
  return {static_cast<int32_t>(static_cast<uint32_t>(u >> 96)),
          static_cast<int32_t>(static_cast<uint32_t>(u >> 64)), static_cast<int64_t>(u)};
}

class DataType;
using TypePtr = std::shared_ptr<const DataType>;

struct Field {
  std::string name;
  TypePtr type;
  bool nullable = true;
  // Delta field metadata as a JSON object text ("{}" when empty); carried, not interpreted here.
  std::string metadata_json;
};

class DataType {
 public:
  TypeId id() const { return id_; }
  int precision() const { return precision_; }  // decimal only
  int scale() const { return scale_; }          // decimal only
  // Intervals: the start and end field (IntervalField / DayTimeField).
  int interval_start() const { return precision_; }
  int interval_end() const { return scale_; }
  bool is_interval() const {
    return id_ == TypeId::kYearMonthInterval || id_ == TypeId::kDayTimeInterval;
  }
  // struct: its fields; list: one field "element"; map: fields "key", "value".
  const std::vector<Field>& fields() const { return fields_; }
  const TypePtr& element_type() const { return fields_[0].type; }  // list
  bool contains_null() const { return fields_[0].nullable; }       // list
  const TypePtr& key_type() const { return fields_[0].type; }      // map
  const TypePtr& value_type() const { return fields_[1].type; }    // map
  bool value_contains_null() const { return fields_[1].nullable; }

  bool is_nested() const {
    return id_ == TypeId::kStruct || id_ == TypeId::kList || id_ == TypeId::kMap;
  }
  bool is_binary_like() const { return id_ == TypeId::kString || id_ == TypeId::kBinary; }
  // Bytes per value for fixed-width types; 0 for variable-width, nested and null.
  int fixed_width() const;

  // Spark's simple string: "int", "decimal(10,2)", "struct<a:int,b:string>", "array<int>",
  // "map<string,int>", "timestamp_ntz".
  std::string ToString() const;
  // Structural equality; compare_nullability also compares field nullability.
  bool Equals(const DataType& other, bool compare_nullability = false) const;

  static TypePtr Null();
  static TypePtr Boolean();
  static TypePtr Int8();
  static TypePtr Int16();
  static TypePtr Int32();
  static TypePtr Int64();
  static TypePtr Float();
  static TypePtr Double();
  static TypePtr String();
  static TypePtr Binary();
  static TypePtr Date();
  static TypePtr Timestamp();
  static TypePtr TimestampNtz();
  static TypePtr Decimal(int precision, int scale);
  // time(p): Spark's TimeType, p fractional-second digits (default 6).
  static TypePtr Time(int precision = 6);
  // timestamp_ltz(p) / timestamp_ntz(p) with nanosecond storage (p 7..9).
  static TypePtr TimestampNanos(int precision = 9);
  static TypePtr TimestampNtzNanos(int precision = 9);
  // interval year to month (start YEAR, end MONTH) unless given; interval day to second likewise.
  static TypePtr YearMonthInterval(int start = kIntervalYear, int end = kIntervalMonth);
  static TypePtr DayTimeInterval(int start = kIntervalDay, int end = kIntervalSecond);
  // Spark's legacy calendar "interval" (CalendarIntervalType).
  static TypePtr CalendarInterval();
  static TypePtr Struct(std::vector<Field> fields);
  static TypePtr List(TypePtr element, bool contains_null = true);
  static TypePtr Map(TypePtr key, TypePtr value, bool value_contains_null = true);

  DataType(TypeId id, int precision, int scale, std::vector<Field> fields)
      : id_(id), precision_(precision), scale_(scale), fields_(std::move(fields)) {}

 private:
  TypeId id_;
  int precision_ = 0;
  int scale_ = 0;
  std::vector<Field> fields_;
};

// Schema = the fields of a top-level struct.
using Schema = std::vector<Field>;

// Index of the field named `name` (exact match first, then ASCII case-insensitive), or -1.
int FindField(const std::vector<Field>& fields, const std::string& name);

}  // namespace silt
