#include "vector/types.h"

#include <strings.h>

namespace silt {

int DataType::fixed_width() const {
  switch (id_) {
    case TypeId::kBoolean:
    case TypeId::kInt8:
      return 1;
    case TypeId::kInt16:
      return 2;
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kFloat:
    case TypeId::kYearMonthInterval:
      return 4;
    case TypeId::kInt64:
    case TypeId::kDouble:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
    case TypeId::kTime:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
      return 8;
    case TypeId::kDecimal:
    case TypeId::kCalendarInterval:
      return 16;
    default:
      return 0;
  }
}

std::string DataType::ToString() const {
  switch (id_) {
    case TypeId::kNull:
      return "void";
    case TypeId::kBoolean:
      return "boolean";
    case TypeId::kInt8:
      return "tinyint";
    case TypeId::kInt16:
      return "smallint";
    case TypeId::kInt32:
      return "int";
    case TypeId::kInt64:
      return "bigint";
    case TypeId::kFloat:
      return "float";
    case TypeId::kDouble:
      return "double";
    case TypeId::kDecimal:
      return "decimal(" + std::to_string(precision_) + "," + std::to_string(scale_) + ")";
    case TypeId::kString:
      return "string";
    case TypeId::kBinary:
      return "binary";
    case TypeId::kDate:
      return "date";
    case TypeId::kTimestamp:
      return "timestamp";
    case TypeId::kTimestampNtz:
      return "timestamp_ntz";
    case TypeId::kTime:
      return "time(" + std::to_string(precision_) + ")";
    case TypeId::kTimestampNanos:
      return "timestamp_ltz(" + std::to_string(precision_) + ")";
    case TypeId::kTimestampNtzNanos:
      return "timestamp_ntz(" + std::to_string(precision_) + ")";
    case TypeId::kCalendarInterval:
      return "interval";
    case TypeId::kStruct: {
      std::string s = "struct<";
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i) s += ",";
        s += fields_[i].name + ":" + fields_[i].type->ToString();
      }
      return s + ">";
    }
    case TypeId::kList:
      return "array<" + element_type()->ToString() + ">";
    case TypeId::kMap:
      return "map<" + key_type()->ToString() + "," + value_type()->ToString() + ">";
    case TypeId::kYearMonthInterval:
    case TypeId::kDayTimeInterval: {
      static const char* const kYm[] = {"year", "month"};
      static const char* const kDt[] = {"day", "hour", "minute", "second"};
      const char* const* names = id_ == TypeId::kYearMonthInterval ? kYm : kDt;
      std::string s = std::string("interval ") + names[precision_];
      if (scale_ != precision_) s += std::string(" to ") + names[scale_];
      return s;
    }
  }
  return "?";
}

bool DataType::Equals(const DataType& o, bool compare_nullability) const {
  if (id_ != o.id_) return false;
  if (id_ == TypeId::kDecimal || is_interval() || id_ == TypeId::kTime ||
      id_ == TypeId::kTimestampNanos || id_ == TypeId::kTimestampNtzNanos)
    return precision_ == o.precision_ && scale_ == o.scale_;
  if (fields_.size() != o.fields_.size()) return false;
  for (size_t i = 0; i < fields_.size(); ++i) {
    const Field &a = fields_[i], &b = o.fields_[i];
    if (id_ == TypeId::kStruct && a.name != b.name) return false;
    if (compare_nullability && a.nullable != b.nullable) return false;
    if (!a.type->Equals(*b.type, compare_nullability)) return false;
  }
  return true;
}

#define SILT_PRIMITIVE(Name, Id)                                                                 \
  TypePtr DataType::Name() {                                                                     \
    static const TypePtr t = std::make_shared<DataType>(TypeId::Id, 0, 0, std::vector<Field>{}); \
    return t;                                                                                    \
  }
SILT_PRIMITIVE(Null, kNull)
SILT_PRIMITIVE(Boolean, kBoolean)
SILT_PRIMITIVE(Int8, kInt8)
SILT_PRIMITIVE(Int16, kInt16)
SILT_PRIMITIVE(Int32, kInt32)
SILT_PRIMITIVE(Int64, kInt64)
SILT_PRIMITIVE(Float, kFloat)
SILT_PRIMITIVE(Double, kDouble)
SILT_PRIMITIVE(String, kString)
SILT_PRIMITIVE(Binary, kBinary)
SILT_PRIMITIVE(Date, kDate)
SILT_PRIMITIVE(Timestamp, kTimestamp)
SILT_PRIMITIVE(TimestampNtz, kTimestampNtz)
SILT_PRIMITIVE(CalendarInterval, kCalendarInterval)
#undef SILT_PRIMITIVE

TypePtr DataType::Decimal(int precision, int scale) {
  return std::make_shared<DataType>(TypeId::kDecimal, precision, scale, std::vector<Field>{});
}
TypePtr DataType::Time(int precision) {
  return std::make_shared<DataType>(TypeId::kTime, precision, 0, std::vector<Field>{});
}
TypePtr DataType::TimestampNanos(int precision) {
  return std::make_shared<DataType>(TypeId::kTimestampNanos, precision, 0, std::vector<Field>{});
}
TypePtr DataType::TimestampNtzNanos(int precision) {
  return std::make_shared<DataType>(TypeId::kTimestampNtzNanos, precision, 0, std::vector<Field>{});
}
TypePtr DataType::YearMonthInterval(int start, int end) {
  return std::make_shared<DataType>(TypeId::kYearMonthInterval, start, end, std::vector<Field>{});
}
TypePtr DataType::DayTimeInterval(int start, int end) {
  return std::make_shared<DataType>(TypeId::kDayTimeInterval, start, end, std::vector<Field>{});
}
TypePtr DataType::Struct(std::vector<Field> fields) {
  return std::make_shared<DataType>(TypeId::kStruct, 0, 0, std::move(fields));
}
TypePtr DataType::List(TypePtr element, bool contains_null) {
  return std::make_shared<DataType>(
      TypeId::kList, 0, 0, std::vector<Field>{{"element", std::move(element), contains_null, ""}});
}
TypePtr DataType::Map(TypePtr key, TypePtr value, bool value_contains_null) {
  return std::make_shared<DataType>(
      TypeId::kMap, 0, 0,
      std::vector<Field>{{"key", std::move(key), false, ""},
                         {"value", std::move(value), value_contains_null, ""}});
}

int FindField(const std::vector<Field>& fields, const std::string& name) {
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name == name) return static_cast<int>(i);
  for (size_t i = 0; i < fields.size(); ++i)
    if (strcasecmp(fields[i].name.c_str(), name.c_str()) == 0) return static_cast<int>(i);
  return -1;
}

}  // namespace silt
