#include <gtest/gtest.h>

#include <cstdint>

#include "vector/type_sql.h"
#include "vector/types.h"
#include "vector/value.h"
#include "vector/vector.h"

namespace silt {
namespace {

TEST(IntervalTypeTest, NamesAndEquality) {
  EXPECT_EQ(DataType::YearMonthInterval()->ToString(), "interval year to month");
  EXPECT_EQ(DataType::YearMonthInterval(kIntervalMonth, kIntervalMonth)->ToString(),
            "interval month");
  EXPECT_EQ(DataType::DayTimeInterval()->ToString(), "interval day to second");
  EXPECT_EQ(DataType::DayTimeInterval(kIntervalHour, kIntervalMinute)->ToString(),
            "interval hour to minute");
  EXPECT_EQ(TypeSql(DataType::DayTimeInterval(kIntervalDay, kIntervalDay)), "INTERVAL DAY");
  EXPECT_TRUE(DataType::YearMonthInterval()->Equals(*DataType::YearMonthInterval()));
  EXPECT_FALSE(DataType::YearMonthInterval()->Equals(
      *DataType::YearMonthInterval(kIntervalYear, kIntervalYear)));
  EXPECT_FALSE(DataType::DayTimeInterval()->Equals(*DataType::Int64()));
  EXPECT_EQ(DataType::YearMonthInterval()->fixed_width(), 4);
  EXPECT_EQ(DataType::DayTimeInterval()->fixed_width(), 8);
}

TEST(IntervalTypeTest, YearMonthText) {
  EXPECT_EQ(FormatYearMonthInterval(14, kIntervalYear, kIntervalMonth, false), "1-2");
  EXPECT_EQ(FormatYearMonthInterval(-11, kIntervalYear, kIntervalMonth, false), "-0-11");
  EXPECT_EQ(FormatYearMonthInterval(14, kIntervalYear, kIntervalMonth, true),
            "INTERVAL '1-2' YEAR TO MONTH");
  EXPECT_EQ(FormatYearMonthInterval(24, kIntervalYear, kIntervalYear, true), "INTERVAL '2' YEAR");
  EXPECT_EQ(FormatYearMonthInterval(-14, kIntervalMonth, kIntervalMonth, true),
            "INTERVAL '-14' MONTH");
  EXPECT_EQ(FormatYearMonthInterval(INT32_MIN, kIntervalYear, kIntervalMonth, false),
            "-178956970-8");
}

TEST(IntervalTypeTest, DayTimeText) {
  const int64_t s = 1000000;
  int64_t v = ((1 * 24 + 2) * 3600 + 3 * 60 + 4) * s + s / 2;
  EXPECT_EQ(FormatDayTimeInterval(v, kIntervalDay, kIntervalSecond, false), "1 02:03:04.500000000");
  EXPECT_EQ(FormatDayTimeInterval(v, kIntervalDay, kIntervalSecond, true),
            "INTERVAL '1 02:03:04.5' DAY TO SECOND");
  EXPECT_EQ(FormatDayTimeInterval(-13123456, kIntervalSecond, kIntervalSecond, false),
            "-0 00:00:13.123456000");
  EXPECT_EQ(FormatDayTimeInterval(2 * s, kIntervalSecond, kIntervalSecond, true),
            "INTERVAL '02' SECOND");
  EXPECT_EQ(FormatDayTimeInterval(-90 * 60 * s, kIntervalMinute, kIntervalMinute, true),
            "INTERVAL '-90' MINUTE");
  EXPECT_EQ(FormatDayTimeInterval(3 * 24 * 3600 * s, kIntervalDay, kIntervalDay, true),
            "INTERVAL '3' DAY");
  EXPECT_EQ(FormatDayTimeInterval(INT64_MIN, kIntervalDay, kIntervalSecond, false),
            "-106751991 04:00:54.775808000");
  EXPECT_EQ(FormatDayTimeInterval(INT64_MIN, kIntervalDay, kIntervalSecond, true),
            "INTERVAL '-106751991 04:00:54.775808' DAY TO SECOND");
}

TEST(IntervalTypeTest, VectorRoundTrip) {
  Vector v(DataType::DayTimeInterval());
  v.Append<int64_t>(90 * 1000000LL);
  v.AppendNull();
  EXPECT_EQ(v.GetValue(0).ToString(), "0 00:01:30.000000000");
  EXPECT_TRUE(v.GetValue(1).is_null());
  Vector ym(DataType::YearMonthInterval());
  ASSERT_TRUE(ym.AppendValue(Value::Integer(DataType::YearMonthInterval(), -25)).ok());
  EXPECT_EQ(ym.GetValue(0).ToString(), "-2-1");
  EXPECT_EQ(ym.GetValue(0).ToJson(), "\"-2-1\"");
}

}  // namespace
}  // namespace silt
