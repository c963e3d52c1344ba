#include "delta/partition_values.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace silt::delta {
namespace {

Value MustParse(std::optional<std::string> text, const TypePtr& type) {
  auto r = ParsePartitionValue(text, type);
  EXPECT_TRUE(r.ok()) << (text ? *text : "null") << " as " << type->ToString() << ": "
                      << r.status().ToString();
  return r.ok() ? r.MoveValue() : Value();
}

constexpr int64_t kMicrosPerSecond = 1000000;

TEST(PartitionValueTest, Nulls) {
  for (const TypePtr& t : {DataType::String(), DataType::Int32(), DataType::Date(),
                           DataType::Timestamp(), DataType::Decimal(10, 2)}) {
    EXPECT_TRUE(MustParse(std::nullopt, t).is_null());
    EXPECT_TRUE(MustParse("", t).is_null());  // "" ⇒ NULL for every type, strings included
  }
  EXPECT_EQ(FormatPartitionValue(Value::Null(DataType::Int32())), std::nullopt);
  EXPECT_EQ(FormatPartitionValue(Value::String("")), std::nullopt);
}

TEST(PartitionValueTest, ParseTable) {
  struct Case {
    const char* text;
    TypePtr type;
    Value expected;
  };
  const Case cases[] = {
      {"US/East", DataType::String(), Value::String("US/East")},
      {"-1", DataType::Int8(), Value::Integer(DataType::Int8(), -1)},
      {"-128", DataType::Int8(), Value::Integer(DataType::Int8(), -128)},
      {"32767", DataType::Int16(), Value::Integer(DataType::Int16(), 32767)},
      {"-2147483648", DataType::Int32(), Value::Int32(INT32_MIN)},
      {"9223372036854775807", DataType::Int64(), Value::Int64(INT64_MAX)},
      {"0.0", DataType::Double(), Value::Double(0.0)},
      {"1.0E10", DataType::Double(), Value::Double(1e10)},
      {"1.2345E-5", DataType::Double(), Value::Double(1.2345e-5)},
      {"-Infinity", DataType::Double(), Value::Double(-INFINITY)},
      {"Infinity", DataType::Float(), Value::Floating(DataType::Float(), INFINITY)},
      {"NaN", DataType::Double(), Value::Double(NAN)},
      {"1.5", DataType::Float(), Value::Floating(DataType::Float(), 1.5)},
      {"1.230000000000000000", DataType::Decimal(38, 18),
       Value::Decimal(38, 18, static_cast<int128_t>(1230000000000000000LL))},
      {"-0.05", DataType::Decimal(5, 2), Value::Decimal(5, 2, -5)},
      {"12", DataType::Decimal(5, 2), Value::Decimal(5, 2, 1200)},
      {"1.005", DataType::Decimal(5, 2), Value::Decimal(5, 2, 101)},  // HALF_UP
      {"1E+2", DataType::Decimal(5, 0), Value::Decimal(5, 0, 100)},
      {"true", DataType::Boolean(), Value::Boolean(true)},
      {"FALSE", DataType::Boolean(), Value::Boolean(false)},
      {"2024-01-01", DataType::Date(), Value::Integer(DataType::Date(), 19723)},
      {"1969-12-31", DataType::Date(), Value::Integer(DataType::Date(), -1)},
      {"2024-06-15T19:30:45.000000Z", DataType::Timestamp(),
       Value::Integer(DataType::Timestamp(), 1718479845 * kMicrosPerSecond)},
      {"2024-06-15 19:30:45", DataType::Timestamp(),
       Value::Integer(DataType::Timestamp(), 1718479845 * kMicrosPerSecond)},
      {"2024-06-15 19:30:45.5", DataType::Timestamp(),
       Value::Integer(DataType::Timestamp(), 1718479845 * kMicrosPerSecond + 500000)},
      {"2024-06-15T21:30:45.123456+02:00", DataType::Timestamp(),
       Value::Integer(DataType::Timestamp(), 1718479845 * kMicrosPerSecond + 123456)},
      {"1970-01-01 00:00:00.000001", DataType::Timestamp(),
       Value::Integer(DataType::Timestamp(), 1)},
      {"1969-12-31 23:59:59.999999", DataType::Timestamp(),
       Value::Integer(DataType::Timestamp(), -1)},
      {"2024-06-15 12:30:45", DataType::TimestampNtz(),
       Value::Integer(DataType::TimestampNtz(), 1718454645 * kMicrosPerSecond)},
      {"2024-06-15T12:30:45.1", DataType::TimestampNtz(),
       Value::Integer(DataType::TimestampNtz(), 1718454645 * kMicrosPerSecond + 100000)},
      {"a\x01\xff", DataType::Binary(), Value::Binary("a\x01\xff")},
  };
  for (const Case& c : cases) {
    Value v = MustParse(c.text, c.type);
    EXPECT_EQ(v, c.expected) << c.text << " as " << c.type->ToString() << " got " << v.ToString();
  }
}

TEST(PartitionValueTest, ParseErrors) {
  const std::pair<const char*, TypePtr> bad[] = {
      {"128", DataType::Int8()},
      {"1.0", DataType::Int32()},
      {"12a", DataType::Int64()},
      {"99999999999999999999", DataType::Int64()},
      {"inf", DataType::Double()},
      {"0x10", DataType::Double()},
      {"1.0.0", DataType::Double()},
      {"yes", DataType::Boolean()},
      {"1000.00", DataType::Decimal(5, 2)},
      {"1e", DataType::Decimal(5, 2)},
      {"2024-13-01", DataType::Date()},
      {"2023-02-29", DataType::Date()},
      {"2024-1-1", DataType::Date()},
      {"2024-06-15 25:00:00", DataType::Timestamp()},
      {"2024-06-15T12:30:45Z", DataType::TimestampNtz()},
      {"2024-06-15 12:30:45.1234567890", DataType::Timestamp()},
  };
  for (const auto& [text, type] : bad) {
    auto r = ParsePartitionValue(std::string(text), type);
    EXPECT_FALSE(r.ok()) << text << " as " << type->ToString();
    if (!r.ok()) {
      EXPECT_EQ(r.status().error_class(), "DELTA_INVALID_PARTITION_VALUE");
    }
  }
}

TEST(PartitionValueTest, FormatTable) {
  EXPECT_EQ(FormatPartitionValue(Value::String("US/East")), "US/East");
  EXPECT_EQ(FormatPartitionValue(Value::Int32(-1)), "-1");
  EXPECT_EQ(FormatPartitionValue(Value::Double(0.0)), "0.0");
  EXPECT_EQ(FormatPartitionValue(Value::Double(1e10)), "1.0E10");
  EXPECT_EQ(FormatPartitionValue(Value::Double(NAN)), "NaN");
  EXPECT_EQ(FormatPartitionValue(Value::Double(-INFINITY)), "-Infinity");
  EXPECT_EQ(FormatPartitionValue(Value::Floating(DataType::Float(), 0.1f)), "0.1");
  EXPECT_EQ(FormatPartitionValue(Value::Decimal(38, 18, 1230000000000000000LL)),
            "1.230000000000000000");
  EXPECT_EQ(FormatPartitionValue(Value::Decimal(5, 2, -5)), "-0.05");
  EXPECT_EQ(FormatPartitionValue(Value::Boolean(true)), "true");
  EXPECT_EQ(FormatPartitionValue(Value::Integer(DataType::Date(), 19723)), "2024-01-01");
  EXPECT_EQ(
      FormatPartitionValue(Value::Integer(DataType::Timestamp(), 1718479845 * kMicrosPerSecond)),
      "2024-06-15T19:30:45.000000Z");
  EXPECT_EQ(FormatPartitionValue(Value::Integer(DataType::Timestamp(), -1)),
            "1969-12-31T23:59:59.999999Z");
  EXPECT_EQ(
      FormatPartitionValue(Value::Integer(DataType::TimestampNtz(), 1718454645 * kMicrosPerSecond)),
      "2024-06-15 12:30:45");
  EXPECT_EQ(FormatPartitionValue(
                Value::Integer(DataType::TimestampNtz(), 1718454645 * kMicrosPerSecond + 120000)),
            "2024-06-15 12:30:45.12");
  EXPECT_EQ(FormatPartitionValue(Value::Binary("\x01z")), "\x01z");
}

TEST(PartitionValueTest, FormatParseRoundTrip) {
  const Value values[] = {
      Value::Int64(INT64_MIN),
      Value::Double(-1.2345e-300),
      Value::Double(123456789.0),
      Value::Floating(DataType::Float(), 3.4028235e38f),
      Value::Decimal(38, 10, -1),
      Value::Integer(DataType::Date(), -719162),                    // 0001-01-01
      Value::Integer(DataType::Timestamp(), 253402300799999999LL),  // 9999-12-31 23:59:59.999999
      Value::Integer(DataType::TimestampNtz(), -62135596800000000LL),
  };
  for (const Value& v : values) {
    auto text = FormatPartitionValue(v);
    ASSERT_TRUE(text);
    EXPECT_EQ(MustParse(text, v.type()), v) << *text;
  }
}

}  // namespace
}  // namespace silt::delta
