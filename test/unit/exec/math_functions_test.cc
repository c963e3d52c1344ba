// Math family: Spark's documented examples, result types, NULL/overflow/ANSI edge cases.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>

#include "unit/exec/function_test_util.h"

namespace silt::exec::fntest {
namespace {

std::string E(const std::string& name, const std::vector<Value>& args, const BindContext& b = {}) {
  return J(Eval(name, args, {}, b));
}
std::string EK(const std::string& name, const std::vector<Value>& args, const BindContext& b = {}) {
  return J(Eval(name, args, {}, b, args.size() - 1));
}
std::string T(const std::string& name, const std::vector<Value>& args) {
  auto t = TypeOf(name, args);
  return t.ok() ? (*t)->ToString() : std::string(t.status().error_class());
}
BindContext Ansi() {
  BindContext b;
  b.ansi = true;
  return b;
}

TEST(MathFunctions, AbsNegativePositive) {
  EXPECT_EQ(E("abs", {I(-1)}), "1");
  EXPECT_EQ(E("abs", {D(-2.5)}), "2.5");
  EXPECT_EQ(E("abs", {Dec(5, 2, -12345)}), "\"123.45\"");
  EXPECT_EQ(E("abs", {I(INT_MIN)}), std::to_string(INT_MIN));  // wraps like Java
  EXPECT_EQ(E("abs", {I(INT_MIN)}, Ansi()), "error:ARITHMETIC_OVERFLOW");
  EXPECT_EQ(E("abs", {Null(DataType::Int32())}), "null");
  EXPECT_EQ(E("abs", {S("-3.5")}), "3.5");
  EXPECT_EQ(T("abs", {Value::Integer(DataType::Int8(), 1)}), "tinyint");
  EXPECT_EQ(E("negative", {I(1)}), "-1");
  EXPECT_EQ(E("negative", {L(LLONG_MIN)}, Ansi()), "error:ARITHMETIC_OVERFLOW");
  EXPECT_EQ(E("positive", {I(1)}), "1");
  EXPECT_EQ(E("sign", {D(-5)}), "-1");
  EXPECT_EQ(E("signum", {I(0)}), "0");
  EXPECT_EQ(T("signum", {I(3)}), "double");
}

TEST(MathFunctions, RoundAndBround) {
  EXPECT_EQ(EK("round", {Dec(2, 1, 25), I(0)}), "\"3\"");
  EXPECT_EQ(T("round", {Dec(2, 1, 25), I(0)}), "decimal(2,0)");
  EXPECT_EQ(EK("bround", {Dec(2, 1, 25), I(0)}), "\"2\"");
  EXPECT_EQ(EK("bround", {I(25), I(-1)}), "20");
  EXPECT_EQ(EK("round", {I(25), I(-1)}), "30");
  EXPECT_EQ(EK("round", {I(12345), I(-2)}), "12300");
  EXPECT_EQ(E("round", {D(2.5)}), "3");
  EXPECT_EQ(E("round", {D(-2.5)}), "-3");
  EXPECT_EQ(E("bround", {D(2.5)}), "2");
  EXPECT_EQ(E("bround", {D(3.5)}), "4");
  EXPECT_EQ(EK("round", {D(1.005), I(2)}), "1.01");  // BigDecimal(Double.toString)
  EXPECT_EQ(EK("round", {D(123.456), I(-1)}), "120");
  EXPECT_EQ(EK("round", {D(0.0004), I(2)}), "0");
  EXPECT_EQ(EK("round", {D(std::nan("")), I(2)}), "\"NaN\"");
  EXPECT_EQ(EK("round", {Dec(6, 3, 123456), I(1)}), "\"123.5\"");
  EXPECT_EQ(T("round", {Dec(6, 3, 123456), I(1)}), "decimal(5,1)");
  EXPECT_EQ(EK("round", {Dec(6, 3, 123456), I(-1)}), "\"120\"");
  EXPECT_EQ(T("round", {Dec(6, 3, 123456), I(-1)}), "decimal(4,0)");
  EXPECT_EQ(EK("round", {Dec(3, 2, 999), I(1)}), "\"10.0\"");
  EXPECT_EQ(EK("round", {Dec(6, 3, 123456), I(5)}), "\"123.456\"");
  EXPECT_EQ(EK("round", {I(2147483647), I(-1)}), "-2147483646");  // wraps
  EXPECT_EQ(EK("round", {I(2147483647), I(-1)}, Ansi()), "error:ARITHMETIC_OVERFLOW");
  EXPECT_EQ(EK("round", {Null(DataType::Double()), I(1)}), "null");
  EXPECT_EQ(EK("round", {D(1.5), Null(DataType::Int32())}), "null");
  auto cols =
      EvalRows("round", {Col(DataType::Double(), {D(1.25)}), Col(DataType::Int32(), {I(1)})});
  EXPECT_FALSE(cols.ok());  // the scale must be a constant
}

TEST(MathFunctions, FloorCeil) {
  EXPECT_EQ(E("ceil", {D(-0.1)}), "0");
  EXPECT_EQ(E("ceil", {I(5)}), "5");
  EXPECT_EQ(T("ceil", {I(5)}), "bigint");
  EXPECT_EQ(T("ceil", {D(5)}), "bigint");
  EXPECT_EQ(E("ceiling", {D(1.2)}), "2");
  EXPECT_EQ(E("floor", {D(-0.1)}), "-1");
  EXPECT_EQ(E("floor", {D(1e300)}), std::to_string(LLONG_MAX));
  EXPECT_EQ(E("ceil", {Dec(2, 1, 99)}), "\"10\"");
  EXPECT_EQ(T("ceil", {Dec(2, 1, 99)}), "decimal(2,0)");
  EXPECT_EQ(E("floor", {Dec(3, 1, -15)}), "\"-2\"");
  EXPECT_EQ(EK("ceil", {Dec(5, 4, 31411), I(3)}), "\"3.142\"");
  EXPECT_EQ(EK("floor", {Dec(5, 4, 31411), I(3)}), "\"3.141\"");
  EXPECT_EQ(EK("floor", {Dec(5, 4, 31411), I(-3)}), "\"0\"");
  EXPECT_EQ(EK("ceil", {Dec(5, 4, 31411), I(-3)}), "\"1000\"");
  EXPECT_EQ(E("floor", {Null(DataType::Double())}), "null");
}

TEST(MathFunctions, ExpLogTrig) {
  EXPECT_EQ(E("sqrt", {I(4)}), "2");
  EXPECT_EQ(E("sqrt", {D(-1)}), "\"NaN\"");
  EXPECT_EQ(E("cbrt", {D(27)}), "3");
  EXPECT_EQ(E("exp", {I(0)}), "1");
  EXPECT_EQ(E("ln", {I(1)}), "0");
  EXPECT_EQ(E("ln", {I(0)}), "null");
  EXPECT_EQ(E("ln", {D(-1)}), "null");
  EXPECT_EQ(E("log", {I(10), I(100)}), "2");
  EXPECT_EQ(E("log", {I(-1), I(100)}), "null");
  EXPECT_EQ(E("log", {D(std::exp(1.0))}), "1");
  EXPECT_EQ(E("log10", {I(10)}), "1");
  EXPECT_EQ(E("log2", {I(2)}), "1");
  EXPECT_EQ(E("log1p", {I(0)}), "0");
  EXPECT_EQ(E("log1p", {I(-1)}), "null");
  EXPECT_EQ(E("pow", {I(2), I(3)}), "8");
  EXPECT_EQ(E("power", {I(2), I(-1)}), "0.5");
  EXPECT_EQ(E("sin", {I(0)}), "0");
  EXPECT_EQ(E("cos", {I(0)}), "1");
  EXPECT_EQ(E("acos", {I(2)}), "\"NaN\"");
  EXPECT_EQ(E("atan2", {I(0), I(0)}), "0");
  EXPECT_EQ(E("degrees", {D(3.141592653589793)}), "180");
  EXPECT_EQ(E("radians", {I(180)}), "3.141592653589793");
  EXPECT_EQ(E("hypot", {I(3), I(4)}), "5");
  EXPECT_EQ(E("cot", {I(1)}), "0.6420926159343306");
  EXPECT_EQ(E("sinh", {I(0)}), "0");
  EXPECT_EQ(E("asinh", {I(0)}), "0");
  EXPECT_EQ(E("e", {}), "2.718281828459045");
  EXPECT_EQ(E("pi", {}), "3.141592653589793");
  EXPECT_EQ(E("sqrt", {Null(DataType::Double())}), "null");
}

TEST(MathFunctions, ModPmod) {
  EXPECT_EQ(E("mod", {I(2), Dec(2, 1, 18)}), "\"0.2\"");
  EXPECT_EQ(T("mod", {I(2), Dec(2, 1, 18)}), "decimal(2,1)");
  EXPECT_EQ(E("mod", {I(-7), I(3)}), "-1");
  EXPECT_EQ(E("pmod", {I(10), I(3)}), "1");
  EXPECT_EQ(E("pmod", {I(-10), I(3)}), "2");
  EXPECT_EQ(E("pmod", {D(-7.5), D(2)}), "0.5");
  EXPECT_EQ(E("pmod", {Dec(3, 1, -75), I(2)}), "\"0.5\"");
  EXPECT_EQ(E("mod", {I(5), I(0)}), "null");
  EXPECT_EQ(E("mod", {D(5), D(0)}), "null");
  EXPECT_EQ(E("mod", {I(5), I(0)}, Ansi()), "error:REMAINDER_BY_ZERO");
  EXPECT_EQ(E("mod", {I(INT_MIN), I(-1)}), "0");
  EXPECT_EQ(E("mod", {I(5), L(3)}), "2");
  EXPECT_EQ(T("mod", {I(5), L(3)}), "bigint");
  EXPECT_EQ(E("pmod", {Null(DataType::Int32()), I(3)}), "null");
}

TEST(MathFunctions, RandMatchesSpark) {
  // Spark: SELECT rand(0) → 0.7604953758285915; randn(0) → 1.6034991609278433 (one partition).
  auto r = EvalRows("rand", {Lit(I(0))}, {}, {}, 1);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].ToJson(), "0.7604953758285915");
  auto n = EvalRows("randn", {Lit(I(0))}, {}, {}, 1);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ((*n)[0].ToJson(), "1.6034991609278433");
  EXPECT_EQ(J(EvalRows("rand", {Lit(Null())}, {}, {}, 1).ok()
                  ? Result<Value>((*EvalRows("rand", {Lit(Null())}, {}, {}, 1))[0])
                  : Result<Value>(Status::Internal("x"))),
            "0.7604953758285915");
  auto many = EvalRows("rand", {}, {}, {}, 100);
  ASSERT_TRUE(many.ok());
  for (const Value& v : *many) {
    EXPECT_GE(v.floating(), 0.0);
    EXPECT_LT(v.floating(), 1.0);
  }
  EXPECT_NE((*many)[0].floating(), (*many)[1].floating());
  auto e = Bind("rand", {});
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE((*e)->deterministic);
  EXPECT_EQ(J(Result<Value>(Bind("rand", {Lit(S("x"))}).status())), "error:DATATYPE_MISMATCH");
}

TEST(MathFunctions, IntegerFunctions) {
  EXPECT_EQ(E("factorial", {I(5)}), "120");
  EXPECT_EQ(E("factorial", {I(20)}), "2432902008176640000");
  EXPECT_EQ(E("factorial", {I(21)}), "null");
  EXPECT_EQ(E("factorial", {I(-1)}), "null");
  EXPECT_EQ(E("width_bucket", {D(5.3), D(0.2), D(10.6), L(5)}), "3");
  EXPECT_EQ(E("width_bucket", {D(-2.1), D(1.3), D(3.4), L(3)}), "0");
  EXPECT_EQ(E("width_bucket", {D(8.1), D(0.0), D(5.7), L(4)}), "5");
  EXPECT_EQ(E("width_bucket", {D(-0.9), D(5.2), D(0.5), L(2)}), "3");
  EXPECT_EQ(E("width_bucket", {D(1), D(1), D(1), L(2)}), "null");
  EXPECT_EQ(E("bin", {L(13)}), "\"1101\"");
  EXPECT_EQ(E("bin", {L(-13)}),
            "\"1111111111111111111111111111111111111111111111111111111111110011\"");
  EXPECT_EQ(E("bin", {L(0)}), "\"0\"");
  EXPECT_EQ(E("conv", {S("100"), I(2), I(10)}), "\"4\"");
  EXPECT_EQ(E("conv", {I(-10), I(16), I(-10)}), "\"-16\"");
  EXPECT_EQ(E("conv", {S("-10"), I(16), I(10)}), "\"18446744073709551600\"");
  EXPECT_EQ(E("conv", {S("ff"), I(16), I(2)}), "\"11111111\"");
  EXPECT_EQ(E("conv", {S("zz"), I(2), I(10)}), "\"0\"");
  EXPECT_EQ(E("conv", {S("1"), I(1), I(10)}), "null");
  EXPECT_EQ(E("shiftleft", {I(2), I(1)}), "4");
  EXPECT_EQ(E("shiftright", {I(4), I(1)}), "2");
  EXPECT_EQ(E("shiftright", {I(-4), I(1)}), "-2");
  EXPECT_EQ(E("shiftrightunsigned", {I(-1), I(28)}), "15");
  EXPECT_EQ(E("shiftleft", {L(1), I(63)}), std::to_string(LLONG_MIN));
}

TEST(MathFunctions, ArityAndColumns) {
  EXPECT_EQ(E("sqrt", {}), "error:WRONG_NUM_ARGS");
  EXPECT_EQ(E("pow", {I(1)}), "error:WRONG_NUM_ARGS");
  auto rows = EvalRows("abs", {Col(DataType::Int64(), {L(-1), Null(DataType::Int64()), L(3)})});
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ((*rows)[0].ToJson(), "1");
  EXPECT_EQ((*rows)[1].ToJson(), "null");
  EXPECT_EQ((*rows)[2].ToJson(), "3");
  // An overflow on a NULL row does not count in ANSI mode.
  auto ok = EvalRows("abs", {Col(DataType::Int32(), {I(1), Null(DataType::Int32())})}, {}, Ansi());
  EXPECT_TRUE(ok.ok());
}

}  // namespace
}  // namespace silt::exec::fntest
