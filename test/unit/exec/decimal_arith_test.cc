// Decimal + - * over columns: the 64-bit fast path (every operand of the chunk fits in 64 bits and
// the result type bounds the result) and the checked 128-bit loops must give the same exact values,
// NULLs, and errors: a chunk holding one value beyond 64 bits, a result type whose scale was cut
// (rounding), out-of-range results (ANSI error / NULL), constant operands, empty input.
#include <gtest/gtest.h>

#include <climits>

#include "unit/exec/function_test_util.h"

namespace silt::exec::fntest {
namespace {

// The exact results of `l op r` as strings ("null" for NULL).
std::vector<std::string> Rows(const std::string& op, const TestArg& l, const TestArg& r,
                              bool ansi = true) {
  EvalContext ctx;
  ctx.ansi = ansi;
  BindContext bctx;
  bctx.ansi = ansi;
  auto rows = EvalRows(op, {l, r}, ctx, bctx, 0);
  std::vector<std::string> out;
  if (!rows.ok()) return {"ERROR " + std::string(rows.status().error_class())};
  for (const Value& v : *rows) out.push_back(v.is_null() ? "null" : v.ToString());
  return out;
}

using V = std::vector<std::string>;

TEST(DecimalArithTest, MultiplyOfSixtyFourBitOperandsIsExact) {
  // TPC-H Q1: decimal(15,2) * decimal(16,2) -> decimal(32,4)
  auto price = Col(DataType::Decimal(15, 2), {Dec(15, 2, 9999999999999), Dec(15, 2, -12345),
                                              Null(DataType::Decimal(15, 2)), Dec(15, 2, 100)});
  auto disc = Col(DataType::Decimal(16, 2), {Dec(16, 2, 9999999999999), Dec(16, 2, 96),
                                             Dec(16, 2, 5), Null(DataType::Decimal(16, 2))});
  EXPECT_EQ(Rows("*", price, disc),
            (V{"9999999999998000000000.0001", "-118.5120", "null", "null"}));
  // a constant operand
  EXPECT_EQ(Rows("*", price, Lit(Dec(3, 2, 150))),
            (V{"149999999999.9850", "-185.1750", "null", "1.5000"}));
}

TEST(DecimalArithTest, MultiplyWithAValueBeyondSixtyFourBits) {
  // decimal(20,0) * decimal(18,0) -> decimal(38,0): the chunk's 10^19 does not fit in 64 bits,
  // the checked loop runs for all rows.
  const int128_t e19 = static_cast<int128_t>(10000000000000000000ULL);
  auto a = Col(DataType::Decimal(20, 0), {Dec(20, 0, e19), Dec(20, 0, 3), Dec(20, 0, -7)});
  auto b = Col(DataType::Decimal(18, 0), {Dec(18, 0, 1000), Dec(18, 0, 5), Dec(18, 0, 6)});
  EXPECT_EQ(Rows("*", a, b), (V{"10000000000000000000000", "15", "-42"}));
  // out of range: 10^19 * 10^19 * 10^19 > 10^38
  auto c = Col(DataType::Decimal(38, 0), {Dec(38, 0, e19 * e19), Dec(38, 0, 1)});
  auto d = Col(DataType::Decimal(38, 0), {Dec(38, 0, e19), Dec(38, 0, 1)});
  EXPECT_EQ(Rows("*", c, d), (V{"ERROR NUMERIC_VALUE_OUT_OF_RANGE"}));
  EXPECT_EQ(Rows("*", c, d, /*ansi=*/false), (V{"null", "1"}));
}

TEST(DecimalArithTest, MultiplyWithAReducedScaleRounds) {
  // decimal(38,10) * decimal(38,10): the result scale is cut to 6 (Spark), so the product is
  // rescaled with rounding — not the fast path's plain product.
  auto a = Col(DataType::Decimal(38, 10), {Dec(38, 10, 10000000000), Dec(38, 10, 12345678)});
  auto b = Col(DataType::Decimal(38, 10), {Dec(38, 10, 25000000000), Dec(38, 10, 5000000000)});
  EXPECT_EQ(Rows("*", a, b), (V{"2.500000", "0.000617"}));
}

TEST(DecimalArithTest, AddSubtractWithAConstant) {
  // 1 - l_discount, 1 + l_tax: the integer literal becomes decimal(10,0) and is scaled once.
  auto disc = Col(DataType::Decimal(15, 2),
                  {Dec(15, 2, 4), Dec(15, 2, 0), Null(DataType::Decimal(15, 2)), Dec(15, 2, -250)});
  EXPECT_EQ(Rows("-", Lit(I(1)), disc), (V{"0.96", "1.00", "null", "3.50"}));
  EXPECT_EQ(Rows("+", disc, Lit(I(1))), (V{"1.04", "1.00", "null", "-1.50"}));
  // columns at different scales (one rescaled per row): not the fast path, same values
  auto x = Col(DataType::Decimal(10, 1), {Dec(10, 1, 15), Dec(10, 1, -3)});
  auto y = Col(DataType::Decimal(10, 3), {Dec(10, 3, 1), Dec(10, 3, 2000)});
  EXPECT_EQ(Rows("+", x, y), (V{"1.501", "1.700"}));
}

TEST(DecimalArithTest, AddNearTheTypeLimits) {
  // decimal(18,0) + decimal(18,0) -> decimal(19,0): the sum of two 18-digit values fits the type
  const int128_t nines = static_cast<int128_t>(999999999999999999LL);
  auto a = Col(DataType::Decimal(18, 0), {Dec(18, 0, nines), Dec(18, 0, -nines)});
  EXPECT_EQ(Rows("+", a, a), (V{"1999999999999999998", "-1999999999999999998"}));
  EXPECT_EQ(Rows("-", a, a), (V{"0", "0"}));
  // decimal(38,0) + decimal(38,0) stays decimal(38,0): 64-bit operands cannot leave it, wide
  // ones can
  int128_t max38 = 1;
  for (int i = 0; i < 38; ++i) max38 *= 10;
  max38 -= 1;
  auto w = Col(DataType::Decimal(38, 0), {Dec(38, 0, INT64_MAX), Dec(38, 0, INT64_MIN)});
  EXPECT_EQ(Rows("+", w, w), (V{"18446744073709551614", "-18446744073709551616"}));
  auto m = Col(DataType::Decimal(38, 0), {Dec(38, 0, max38), Dec(38, 0, 1)});
  auto one = Col(DataType::Decimal(38, 0), {Dec(38, 0, 1), Dec(38, 0, 1)});
  EXPECT_EQ(Rows("+", m, one), (V{"ERROR NUMERIC_VALUE_OUT_OF_RANGE"}));
  EXPECT_EQ(Rows("+", m, one, /*ansi=*/false), (V{"null", "2"}));
}

TEST(DecimalArithTest, EmptyAndAllNullInput) {
  auto none = Col(DataType::Decimal(15, 2), {});
  EXPECT_EQ(Rows("*", none, none), V{});
  EXPECT_EQ(Rows("+", none, Lit(I(1))), V{});
  auto nulls = Col(DataType::Decimal(15, 2),
                   {Null(DataType::Decimal(15, 2)), Null(DataType::Decimal(15, 2))});
  EXPECT_EQ(Rows("*", nulls, nulls), (V{"null", "null"}));
  EXPECT_EQ(Rows("-", Lit(I(1)), nulls), (V{"null", "null"}));
}

}  // namespace
}  // namespace silt::exec::fntest
