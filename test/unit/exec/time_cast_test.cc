// CastValue / CanCast on TIME(p) and the nanosecond timestamps (zone-free paths; the session-zone
// casts are covered by test/sql/types/timestamp_nanos.test).
#include <gtest/gtest.h>

#include <cstdint>

#include "common/error_classes.h"
#include "exec/cast.h"
#include "vector/time_text.h"

namespace silt::exec {
namespace {

constexpr int64_t kS = kNanosPerSecond;

Value Time(int64_t ns, int p = 6) { return Value::Integer(DataType::Time(p), ns); }

TEST(TimeCastTest, StringToTimeAndBack) {
  auto t = CastValue(Value::String("12:34:56.789012345"), DataType::Time(3), true);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->integer(), (12 * 3600 + 34 * 60 + 56) * kS + 789000000);
  EXPECT_EQ(CastToString(*t), "12:34:56.789");
  auto bad = CastValue(Value::String("25:00"), DataType::Time(), true);
  EXPECT_EQ(bad.status().error_class(), "CAST_INVALID_INPUT");
  auto lenient = CastValue(Value::String("25:00"), DataType::Time(), false);
  ASSERT_TRUE(lenient.ok());
  EXPECT_TRUE(lenient->is_null());
}

TEST(TimeCastTest, TimeToNumbers) {
  auto i = CastValue(Time(17 * kS + 900000000), DataType::Int32(), true);
  ASSERT_TRUE(i.ok());
  EXPECT_EQ(i->integer(), 17);
  auto over = CastValue(Time(86399 * kS), DataType::Int8(), true);
  EXPECT_EQ(over.status().error_class(), "CAST_OVERFLOW");
  auto d = CastValue(Time(86399 * kS + 999999999), DataType::Decimal(14, 8), true);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(CastToString(*d), "86400.00000000");  // HALF_UP
  auto out = CastValue(Time(60 * kS), DataType::Decimal(1, 0), true);
  EXPECT_EQ(out.status().error_class(), "NUMERIC_VALUE_OUT_OF_RANGE");
}

TEST(TimeCastTest, TimestampsToTimeFloorToPrecision) {
  // 1969-12-31 23:59:59.123456 (pre-epoch): the wall time of day.
  auto t = CastValue(Value::Integer(DataType::TimestampNtz(), -876544), DataType::Time(6), true);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(CastToString(*t), "23:59:59.123456");
  auto n = CastValue(Value::Integer(DataType::TimestampNtzNanos(9), 1589718896789012345LL),
                     DataType::Time(7), true);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(CastToString(*n), "12:34:56.7890123");
}

TEST(TimeCastTest, NanosecondTimestamps) {
  auto n = CastValue(Value::String("2020-01-01 00:00:00.123456789"), DataType::TimestampNtzNanos(8),
                     true);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(CastToString(*n), "2020-01-01 00:00:00.12345678");
  auto micro = CastValue(*n, DataType::TimestampNtz(), true);
  ASSERT_TRUE(micro.ok());
  EXPECT_EQ(micro->integer(), 1577836800123456LL);
  auto pre =
      CastValue(Value::Integer(DataType::TimestampNtzNanos(9), -1), DataType::TimestampNtz(), true);
  EXPECT_EQ(pre->integer(), -1);  // floor
  auto date = CastValue(Value::Integer(DataType::TimestampNtzNanos(9), -1), DataType::Date(), true);
  EXPECT_EQ(date->integer(), -1);
  auto wide =
      CastValue(Value::Integer(DataType::TimestampNtz(), 1), DataType::TimestampNtzNanos(9), true);
  EXPECT_EQ(wide->integer(), 1000);
  auto bad = CastValue(Value::String("a"), DataType::TimestampNanos(9), true);
  EXPECT_EQ(bad.status().error_class(), "CAST_INVALID_INPUT");
}

TEST(TimeCastTest, WhichCastsExist) {
  EXPECT_TRUE(CanCast(DataType::Time(), DataType::String()));
  EXPECT_TRUE(CanCast(DataType::String(), DataType::Time()));
  EXPECT_TRUE(CanCast(DataType::Time(), DataType::TimestampNtzNanos(9)));
  EXPECT_TRUE(CanCast(DataType::Timestamp(), DataType::Time(0)));
  EXPECT_TRUE(CanCast(DataType::Time(), DataType::Decimal(10, 2)));
  EXPECT_FALSE(CanCast(DataType::Date(), DataType::Time()));
  EXPECT_FALSE(CanCast(DataType::Time(), DataType::Date()));
  EXPECT_FALSE(CanCast(DataType::Time(), DataType::Double()));
  EXPECT_TRUE(CanCast(DataType::Date(), DataType::TimestampNanos(7)));
  EXPECT_FALSE(CanCast(DataType::Int64(), DataType::TimestampNtzNanos(9)));
}

}  // namespace
}  // namespace silt::exec
