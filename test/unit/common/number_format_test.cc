#include "common/number_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace silt {
namespace {

TEST(JavaFormatTest, DoubleToString) {
  const std::pair<double, const char*> cases[] = {
      {1.0, "1.0"},
      {-0.0, "-0.0"},
      {100.0, "100.0"},
      {0.001, "0.001"},
      {0.0009999, "9.999E-4"},
      {1.2345e-5, "1.2345E-5"},
      {9999999.0, "9999999.0"},
      {1e7, "1.0E7"},
      {1.0e10, "1.0E10"},
      {123456789.125, "1.23456789125E8"},
      {0.1, "0.1"},
      {1.0 / 3, "0.3333333333333333"},
      {std::numeric_limits<double>::max(), "1.7976931348623157E308"},
      {std::numeric_limits<double>::denorm_min(), "4.9E-324"},
      {-2.5, "-2.5"},
  };
  for (const auto& [v, s] : cases) EXPECT_EQ(FormatJavaDouble(v), s) << s;
  EXPECT_EQ(FormatJavaFloat(0.1f), "0.1");
  EXPECT_EQ(FormatJavaFloat(1e10f), "1.0E10");
  EXPECT_EQ(FormatJavaFloat(3.4028235e38f), "3.4028235E38");
  EXPECT_EQ(FormatJavaFloat(1.1f), "1.1");
}

TEST(JavaFormatTest, BigDecimalToString) {
  EXPECT_EQ(FormatJavaBigDecimal(0, 10), "0E-10");
  EXPECT_EQ(FormatJavaBigDecimal(-31661, 12), "-3.1661E-8");
  EXPECT_EQ(FormatJavaBigDecimal(-136744000, 18), "-1.36744000E-10");
  EXPECT_EQ(FormatJavaBigDecimal(-98, 6), "-0.000098");
  EXPECT_EQ(FormatJavaBigDecimal(0, 2), "0.00");
  EXPECT_EQ(FormatJavaBigDecimal(0, 6), "0.000000");
  EXPECT_EQ(FormatJavaBigDecimal(123, 0), "123");
  __int128 u;
  ASSERT_TRUE(ParseDecimalText("-3.1661E-8", 25, 12, &u));
  EXPECT_EQ(u, -31661);
  ASSERT_TRUE(ParseDecimalText("0E-10", 20, 10, &u));
  EXPECT_EQ(u, 0);
  ASSERT_TRUE(ParseDecimalText("99999999999999999999999999999999999999", 38, 0, &u));
  EXPECT_EQ(Int128ToDecimalString(u), "99999999999999999999999999999999999999");
  EXPECT_FALSE(ParseDecimalText("100000000000000000000000000000000000000", 38, 0, &u));
  ASSERT_TRUE(ParseDecimalText("-22827907.000000000000000000000000", 35, 24, &u));
  EXPECT_EQ(FormatJavaBigDecimal(u, 24), "-22827907.000000000000000000000000");
  EXPECT_FALSE(ParseDecimalText("1e999999999", 38, 0, &u));
  EXPECT_TRUE(ParseDecimalText("1e-999", 38, 0, &u));
  EXPECT_EQ(u, 0);
}

TEST(JavaFormatTest, PlainDecimal) {
  EXPECT_EQ(FormatPlainDecimal(-50, 3), "-0.050");
  EXPECT_EQ(FormatPlainDecimal(12345, 2), "123.45");
  EXPECT_EQ(FormatPlainDecimal(7, 0), "7");
  EXPECT_EQ(FormatPlainDecimal(-7, -2), "-7");
  EXPECT_EQ(Int128ToDecimalString(0), "0");
  __int128 min = static_cast<__int128>(static_cast<unsigned __int128>(1) << 127);
  EXPECT_EQ(Int128ToDecimalString(min), "-170141183460469231731687303715884105728");
}

TEST(JavaFormatTest, ParseDecimalTextRoundsHalfUpAndRejectsMalformed) {
  __int128 u;
  ASSERT_TRUE(ParseDecimalText("1.005", 5, 2, &u));
  EXPECT_EQ(u, 101);
  ASSERT_TRUE(ParseDecimalText("-1.004", 5, 2, &u));
  EXPECT_EQ(u, -100);
  ASSERT_TRUE(ParseDecimalText("+12e1", 5, 0, &u));
  EXPECT_EQ(u, 120);
  EXPECT_FALSE(ParseDecimalText("", 5, 0, &u));
  EXPECT_FALSE(ParseDecimalText(".", 5, 0, &u));
  EXPECT_FALSE(ParseDecimalText("1e", 5, 0, &u));
  EXPECT_FALSE(ParseDecimalText("1.2.3", 5, 0, &u));
  EXPECT_FALSE(ParseDecimalText("12345", 4, 0, &u));  // precision
  EXPECT_FALSE(ParseDecimalText("9.995", 3, 2, &u));  // rounds up to 10.00: 4 digits
}

}  // namespace
}  // namespace silt
