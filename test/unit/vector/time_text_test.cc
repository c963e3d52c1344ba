#include "vector/time_text.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "vector/type_sql.h"
#include "vector/types.h"

namespace silt {
namespace {

constexpr int64_t kH = 3600 * kNanosPerSecond;

TEST(TimeTextTest, ParsesSparkTimeGrammar) {
  int64_t ns = -1;
  EXPECT_TRUE(ParseTimeText("12:34:56.789012345", &ns));
  EXPECT_EQ(ns, 12 * kH + (34 * 60 + 56) * kNanosPerSecond + 789012345);
  EXPECT_TRUE(ParseTimeText(" 0:0:0 ", &ns));
  EXPECT_EQ(ns, 0);
  EXPECT_TRUE(ParseTimeText("1:2", &ns));
  EXPECT_EQ(ns, kH + 2 * 60 * kNanosPerSecond);
  EXPECT_TRUE(ParseTimeText("23:59:59.5", &ns));
  EXPECT_EQ(ns, 24 * kH - kNanosPerSecond / 2);
  for (const char* bad : {"24:00:00", "12:60", "12:00:60", "Unparseable", "12", "12:00:00.",
                          "12:00:00.1234567890", "12:00:00 PM", "", "123:00"}) {
    EXPECT_FALSE(ParseTimeText(bad, &ns)) << bad;
  }
}

TEST(TimeTextTest, PrintsWithoutTrailingZeros) {
  EXPECT_EQ(FormatTimeText(0), "00:00:00");
  EXPECT_EQ(FormatTimeText(12 * kH + 100000000), "12:00:00.1");
  EXPECT_EQ(FormatTimeText(24 * kH - 1), "23:59:59.999999999");
  EXPECT_EQ(FormatTimestampNanosText(0), "1970-01-01 00:00:00");
  EXPECT_EQ(FormatTimestampNanosText(-1), "1969-12-31 23:59:59.999999999");
  EXPECT_EQ(FormatTimestampNanosText(1577836800123456700LL), "2020-01-01 00:00:00.1234567");
}

TEST(TimeTextTest, TruncatesToPrecisionByFloor) {
  EXPECT_EQ(TruncateNanos(123456789, 9), 123456789);
  EXPECT_EQ(TruncateNanos(123456789, 7), 123456700);
  EXPECT_EQ(TruncateNanos(123456789, 0), 0);
  EXPECT_EQ(TruncateNanos(-1, 6), -1000);  // before the epoch: floor, not toward zero
  EXPECT_EQ(TruncateNanos(-123456789, 7), -123456800);
}

TEST(TimeTextTest, SubMicrosecondDigitsOfText) {
  EXPECT_EQ(SubMicroNanos("2020-01-01 00:00:00.123456789"), 789);
  EXPECT_EQ(SubMicroNanos("2020-01-01 00:00:00.1234567"), 700);
  EXPECT_EQ(SubMicroNanos("2020-01-01 00:00:00.123456"), 0);
  EXPECT_EQ(SubMicroNanos("2020-01-01"), 0);
  EXPECT_EQ(SubMicroNanos("2020-01-01T00:00:00.000000001+08:00"), 1);
  EXPECT_EQ(FractionDigits("2020-01-01 00:00:00.12345678"), 8);
  EXPECT_EQ(FractionDigits("12:34:56"), 0);
  int64_t n = 0;
  EXPECT_TRUE(MicrosToNanos(-1, &n));
  EXPECT_EQ(n, -1000);
  EXPECT_FALSE(MicrosToNanos(INT64_MAX / 10, &n));
  EXPECT_EQ(NanosToMicros(-1), -1);
}

TEST(TimeTextTest, TypeNames) {
  EXPECT_EQ(DataType::Time(3)->ToString(), "time(3)");
  EXPECT_EQ(DataType::TimestampNtzNanos(9)->ToString(), "timestamp_ntz(9)");
  EXPECT_EQ(TypeSql(DataType::TimestampNanos(7)), "TIMESTAMP_LTZ(7)");
  EXPECT_FALSE(DataType::Time(3)->Equals(*DataType::Time(6)));
  EXPECT_EQ(DataType::Time(0)->fixed_width(), 8);
}

}  // namespace
}  // namespace silt
