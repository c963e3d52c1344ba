#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <set>

#include "agg_test_util.h"
#include "exec/aggregate.h"

namespace silt::exec {
namespace {

using namespace silt::exec::aggtest;  // NOLINT

// Binds `name` over the columns `cols` (plus bind-time constant arguments), aggregates row i into
// group groups[i], and returns the finalized column (one row per group). With split, rows go into
// two sets of partial states that are then combined (the parallel path).
struct Runner {
  bool ansi = false;
  bool split = false;

  Result<Vector> Run(const std::string& name, const std::vector<Vector>& cols,
                     const std::vector<uint32_t>& groups, size_t ngroups, bool distinct = false,
                     std::vector<Value> constants = {}) {
    std::vector<ExprPtr> args;
    for (size_t c = 0; c < cols.size(); ++c)
      args.push_back(MakeColumn(static_cast<int>(c), cols[c].type(), "c"));
    for (Value& v : constants) args.push_back(MakeConstant(std::move(v)));
    BindContext bctx;
    bctx.ansi = ansi;
    SILT_ASSIGN_OR_RETURN(BoundAggregate b,
                          BindAggregateFunction(name, std::move(args), distinct, bctx));
    EvalContext ctx;
    ctx.ansi = ansi;
    const AggregateFunction& fn = *b.function;
    size_t stride = (fn.state_size() + 15) / 16 * 16;
    int parts = split ? 2 : 1;
    std::vector<std::unique_ptr<uint8_t[]>> mem;
    std::vector<std::vector<uint8_t*>> st(parts);
    for (int p = 0; p < parts; ++p) {
      mem.emplace_back(new uint8_t[stride * ngroups + 16]);
      for (size_t g = 0; g < ngroups; ++g) {
        st[p].push_back(mem.back().get() + g * stride);
        fn.Init(st[p][g]);
      }
    }
    size_t n = groups.size();
    size_t half = split ? n / 2 : n;
    Status status;
    for (int p = 0; p < parts && status.ok(); ++p) {
      size_t from = p == 0 ? 0 : half, to = p == 0 ? half : n;
      std::vector<Vector> sliced;
      std::vector<Arg> a;
      sliced.reserve(b.args.size());
      for (const ExprPtr& e : b.args) {
        if (e->kind != ExprKind::kColumn)
          return Status::Internal("test runner: non-column argument");
        sliced.emplace_back(cols[e->column].type());
        sliced.back().AppendRange(cols[e->column], from, to - from);
        a.push_back(Arg{&sliced.back(), false});
      }
      std::vector<uint8_t*> ptrs;
      for (size_t i = from; i < to; ++i) ptrs.push_back(st[p][groups[i]]);
      if (!ptrs.empty()) status = fn.Update(a, ptrs.size(), ptrs.data(), ctx);
    }
    if (status.ok() && split) {
      for (size_t g = 0; g < ngroups && status.ok(); ++g)
        status = fn.Combine(st[1][g], st[0][g], ctx);
    }
    Vector out(fn.result_type());
    if (status.ok()) {
      std::vector<const uint8_t*> cp(st[0].begin(), st[0].end());
      status = fn.Finalize(cp.data(), ngroups, &out, ctx);
    }
    for (auto& v : st) {
      for (uint8_t* s : v) fn.Destroy(s);
    }
    if (!status.ok()) return status;
    return out;
  }

  // One group over all rows; the result as JSON.
  std::string One(const std::string& name, const std::vector<Vector>& cols, bool distinct = false,
                  std::vector<Value> constants = {}) {
    size_t n = cols.empty() ? 0 : cols[0].size();
    auto r = Run(name, cols, std::vector<uint32_t>(n, 0), 1, distinct, std::move(constants));
    if (!r.ok()) return "ERROR " + r.status().ToString();
    return r->GetValue(0).ToJson();
  }
  std::string TypeOf(const std::string& name, const std::vector<Vector>& cols) {
    auto r = Run(name, cols, {}, 0);
    if (!r.ok()) return "ERROR " + r.status().ToString();
    return r->type()->ToString();
  }
};

std::string Json(const Vector& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + v.GetValue(i).ToJson();
  return s + "]";
}

Vector Ints(std::vector<std::optional<int64_t>> xs, TypePtr t = DataType::Int64()) {
  Vector v(t);
  for (auto x : xs) {
    if (x) {
      EXPECT_TRUE(v.AppendValue(Value::Integer(t, *x)).ok());
    } else {
      v.AppendNull();
    }
  }
  return v;
}
Vector Doubles(std::vector<std::optional<double>> xs) {
  Vector v(DataType::Double());
  for (auto x : xs) {
    if (x) {
      v.Append<double>(*x);
    } else {
      v.AppendNull();
    }
  }
  return v;
}
Vector Strings(std::vector<std::optional<std::string>> xs) {
  Vector v(DataType::String());
  for (auto& x : xs) {
    if (x) {
      v.AppendString(*x);
    } else {
      v.AppendNull();
    }
  }
  return v;
}
Vector Decimals(int p, int s, std::vector<std::optional<int128_t>> xs) {
  Vector v(DataType::Decimal(p, s));
  for (auto x : xs) {
    if (x) {
      v.Append<int128_t>(*x);
    } else {
      v.AppendNull();
    }
  }
  return v;
}
Vector Bools(std::vector<std::optional<bool>> xs) {
  Vector v(DataType::Boolean());
  for (auto x : xs) {
    if (x) {
      v.Append<uint8_t>(*x ? 1 : 0);
    } else {
      v.AppendNull();
    }
  }
  return v;
}

class AggFnTest : public ::testing::TestWithParam<bool> {
 protected:
  Runner R() {
    Runner r;
    r.split = GetParam();
    return r;
  }
};

TEST_P(AggFnTest, Count) {
  Runner r = R();
  Vector x = Ints({1, std::nullopt, 3, 3});
  Vector y = Strings({"a", "b", std::nullopt, "a"});
  EXPECT_EQ(r.One("count", {}), "0");  // count(*) over no rows
  auto star = r.Run("count", {}, {0, 0, 1}, 3);
  ASSERT_TRUE(star.ok()) << star.status().ToString();
  EXPECT_EQ(Json(*star), "[2,1,0]");
  EXPECT_EQ(r.One("COUNT", {x}), "3");
  EXPECT_EQ(r.One("count", {x, y}), "2");
  EXPECT_EQ(r.One("count", {x}, true), "2");
  EXPECT_EQ(r.One("count", {x, y}, true), "2");  // (1,a), (3,a); rows with a NULL skipped
  EXPECT_EQ(r.TypeOf("count", {x}), "bigint");
  EXPECT_EQ(r.One("count", {Ints({std::nullopt, std::nullopt})}), "0");
}

TEST_P(AggFnTest, CountDistinctTuples) {
  Runner r = R();
  Vector x = Ints({1, 1, 3, 3, 1});
  Vector y = Strings({"a", "a", "a", std::nullopt, "b"});
  // (1,a) (3,a) (1,b); (3,NULL) skipped.
  EXPECT_EQ(r.One("count", {x, y}, true), "3");
  Vector d = Doubles({0.0, -0.0, NAN, -NAN, 1.0});
  EXPECT_EQ(r.One("count", {d}, true), "3");  // 0.0 = -0.0, NaN = NaN
}

TEST_P(AggFnTest, CountDistinctOfEachRawWidth) {
  // One integer-like column compares raw values (1, 2, 4, 8 and 16 bytes); NULLs are skipped.
  Runner r = R();
  for (TypePtr t : {DataType::Int8(), DataType::Int16(), DataType::Int32(), DataType::Int64()}) {
    EXPECT_EQ(r.One("count",
                    {Ints({0, 1, -1, 100, std::nullopt, -100, 1, 0, 127, -128, 127, -1}, t)}, true),
              "7")
        << t->ToString();
  }
  const int128_t big = static_cast<int128_t>(1) << 80;
  EXPECT_EQ(
      r.One("count", {Decimals(38, 2, {1, big + 1, 1, -big, std::nullopt, big + 1, -1})}, true),
      "4");
  EXPECT_EQ(r.One("count", {Bools({true, false, std::nullopt, true})}, true), "2");
  // Many values (the set grows and, split, is combined): every third one repeats.
  Vector many(DataType::Int64());
  for (int64_t i = 0; i < 30000; ++i) many.Append<int64_t>(i % 3 == 0 ? i / 3 : i * 1000003);
  int64_t expect = 0;
  std::set<int64_t> seen;
  for (int64_t i = 0; i < 30000; ++i)
    expect += seen.insert(i % 3 == 0 ? i / 3 : i * 1000003).second;
  EXPECT_EQ(r.One("count", {many}, true), std::to_string(expect));
}

TEST_P(AggFnTest, SumIntegral) {
  Runner r = R();
  EXPECT_EQ(r.One("sum", {Ints({1, 2, std::nullopt, 4}, DataType::Int32())}), "7");
  EXPECT_EQ(r.TypeOf("sum", {Ints({}, DataType::Int32())}), "bigint");
  EXPECT_EQ(r.TypeOf("sum", {Ints({}, DataType::Int8())}), "bigint");
  EXPECT_EQ(r.One("sum", {Ints({std::nullopt}, DataType::Int16())}), "null");
  EXPECT_EQ(r.One("sum", {Ints({})}), "null");
  auto g = r.Run("sum", {Ints({5, 6, 7}, DataType::Int8())}, {1, 0, 1}, 3);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(Json(*g), "[6,12,null]");
}

TEST_P(AggFnTest, SumOverflow) {
  Runner r = R();
  Vector big = Ints({INT64_MAX, 1});
  // Non-ANSI wraps like Java long addition.
  EXPECT_EQ(r.One("sum", {big}), std::to_string(INT64_MIN));
  EXPECT_EQ(r.One("try_sum", {big}), "null");
  r.ansi = true;
  std::string e = r.One("sum", {big});
  EXPECT_NE(e.find("ARITHMETIC_OVERFLOW"), std::string::npos) << e;
  EXPECT_EQ(r.One("try_sum", {big}), "null");
  EXPECT_EQ(r.One("sum", {Ints({INT64_MAX, -1, 1})}), std::to_string(INT64_MAX));
}

TEST_P(AggFnTest, SumAvgDouble) {
  Runner r = R();
  EXPECT_EQ(r.One("sum", {Doubles({1.5, std::nullopt, 2.25})}), "3.75");
  EXPECT_EQ(r.One("avg", {Doubles({1.5, std::nullopt, 2.5})}), "2");
  EXPECT_EQ(r.One("mean", {Ints({1, 2}, DataType::Int32())}), "1.5");
  EXPECT_EQ(r.TypeOf("avg", {Ints({})}), "double");
  EXPECT_EQ(r.One("avg", {Ints({std::nullopt})}), "null");
  EXPECT_EQ(r.One("avg", {Ints({})}), "null");
  Vector f(DataType::Float());
  f.Append<float>(0.5f);
  f.Append<float>(0.25f);
  EXPECT_EQ(r.One("sum", {f}), "0.75");
  EXPECT_EQ(r.TypeOf("sum", {f}), "double");
  Vector nulls(DataType::Null());
  nulls.AppendNull();
  EXPECT_EQ(r.One("sum", {nulls}), "null");
  EXPECT_EQ(r.TypeOf("avg", {nulls}), "double");
}

// sum over decimals wider than 18 digits (a product of decimals, TPC-H Q1) adds 64-bit words when
// every value of the chunk fits in 64 bits, and the 128-bit sum otherwise: both give the exact sum,
// with NULLs skipped, partial words that wrap folded, and chunks of either kind mixed.
TEST_P(AggFnTest, SumOfWideDecimalsWithSixtyFourBitValues) {
  Runner r = R();
  const int128_t big = static_cast<int128_t>(INT64_MAX) - 5;  // fits in 64 bits
  const int128_t wide = static_cast<int128_t>(1) << 70;       // does not
  auto exact = [](int128_t v) { return "\"" + Value::Decimal(38, 4, v).ToString() + "\""; };
  // small values and NULLs
  EXPECT_EQ(r.One("sum", {Decimals(32, 4, {10000, std::nullopt, -2500, 7})}), exact(7507));
  // the 64-bit partial wraps (4 values near 2^63) and is folded into the 128-bit sum
  EXPECT_EQ(r.One("sum", {Decimals(32, 4, {big, big, big, big, std::nullopt})}), exact(4 * big));
  EXPECT_EQ(r.One("sum", {Decimals(32, 4, {-big, -big, -big, 3})}), exact(-3 * big + 3));
  // a value beyond 64 bits in the chunk: the 128-bit loop, same sum
  EXPECT_EQ(r.One("sum", {Decimals(32, 4, {big, wide, big, -1})}), exact(2 * big + wide - 1));
  // all NULL, and no rows
  EXPECT_EQ(r.One("sum", {Decimals(32, 4, {std::nullopt, std::nullopt})}), "null");
  EXPECT_EQ(r.One("sum", {Decimals(32, 4, {})}), "null");
  // avg takes the same path
  EXPECT_EQ(r.One("avg", {Decimals(32, 4, {big, big, std::nullopt})}),
            "\"" + Value::Decimal(36, 8, big * 10000).ToString() + "\"");
  // per group, 64-bit and wide chunks
  auto g = r.Run("sum", {Decimals(32, 4, {1, big, 2, big, big})}, {0, 1, 0, 1, 1}, 2);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(Json(*g), "[" + exact(3) + "," + exact(3 * big) + "]");
}

TEST_P(AggFnTest, SumAvgDecimal) {
  Runner r = R();
  Vector d = Decimals(10, 2, {100, 200, 200, std::nullopt});  // 1.00 2.00 2.00 NULL
  EXPECT_EQ(r.TypeOf("sum", {d}), "decimal(20,2)");
  EXPECT_EQ(r.One("sum", {d}), "\"5.00\"");
  EXPECT_EQ(r.TypeOf("avg", {d}), "decimal(14,6)");
  EXPECT_EQ(r.One("avg", {d}), "\"1.666667\"");
  EXPECT_EQ(r.One("avg", {Decimals(10, 2, {-100, -200, -200})}), "\"-1.666667\"");
  EXPECT_EQ(r.One("avg", {Decimals(10, 2, {1, 2})}), "\"0.015000\"");
  EXPECT_EQ(r.TypeOf("sum", {Decimals(30, 5, {})}), "decimal(38,5)");
  EXPECT_EQ(r.TypeOf("avg", {Decimals(36, 36, {})}), "decimal(38,38)");
  EXPECT_EQ(r.One("sum", {Decimals(10, 2, {std::nullopt})}), "null");
  // avg of 10^33 and 10^33 + 1 in decimal(38,0) → decimal(38,4): exactly ...0.5.
  int128_t e33 = 1;
  for (int i = 0; i < 33; ++i) e33 *= 10;
  EXPECT_EQ(r.One("avg", {Decimals(38, 0, {e33, e33 + 1})}),
            "\"1000000000000000000000000000000000.5000\"");
  // Rounding HALF_UP: 1/3 of 0.01 → 0.003333 ; 2/3 → 0.006667
  EXPECT_EQ(r.One("avg", {Decimals(10, 2, {1, 0, 0})}), "\"0.003333\"");
  EXPECT_EQ(r.One("avg", {Decimals(10, 2, {1, 1, 0})}), "\"0.006667\"");
}

TEST_P(AggFnTest, SumDecimalBeyond64Bits) {
  // Inputs of 9-18 digits add up in a 64-bit partial that folds into the 128-bit sum when it
  // would overflow: sums past 2^63 either way, and back, stay exact.
  Runner r = R();
  const int128_t big = 999999999999999999;  // 18 nines
  std::vector<std::optional<int128_t>> up(25, big), down(25, -big), mixed;
  for (int i = 0; i < 40; ++i) mixed.push_back(i % 4 == 3 ? -big : big);
  EXPECT_EQ(r.One("sum", {Decimals(18, 0, up)}), "\"24999999999999999975\"");
  EXPECT_EQ(r.One("sum", {Decimals(18, 0, down)}), "\"-24999999999999999975\"");
  EXPECT_EQ(r.One("sum", {Decimals(18, 0, mixed)}), "\"19999999999999999980\"");
  EXPECT_EQ(r.One("avg", {Decimals(18, 2, up)}), "\"9999999999999999.990000\"");
  auto g = r.Run("sum", {Decimals(18, 0, mixed)}, std::vector<uint32_t>(40, 1), 2);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(Json(*g), "[null,\"19999999999999999980\"]");
}

TEST_P(AggFnTest, DecimalOverflow) {
  Runner r = R();
  int128_t max38 = 1;
  for (int i = 0; i < 38; ++i) max38 *= 10;
  max38 -= 1;
  Vector d = Decimals(38, 0, {max38, 1});
  EXPECT_EQ(r.One("sum", {d}), "null");
  // avg of 10^36 needs 37 integer digits; decimal(38,4) has 34.
  int128_t e36 = (max38 + 1) / 100;
  EXPECT_EQ(r.One("avg", {Decimals(38, 0, {e36, e36})}), "null");
  r.ansi = true;
  std::string e = r.One("sum", {d});
  EXPECT_NE(e.find("ARITHMETIC_OVERFLOW"), std::string::npos) << e;
  e = r.One("avg", {Decimals(38, 0, {e36, e36})});
  EXPECT_NE(e.find("ARITHMETIC_OVERFLOW"), std::string::npos) << e;
  EXPECT_EQ(r.One("try_sum", {d}), "null");
  // Not an overflow: the running sum comes back in range only through a larger intermediate
  // that still fits decimal(38).
  EXPECT_EQ(r.One("sum", {Decimals(38, 0, {max38, -max38, 5})}), "\"5\"");
}

TEST_P(AggFnTest, MinMax) {
  Runner r = R();
  Vector x = Ints({3, std::nullopt, -7, 10}, DataType::Int32());
  EXPECT_EQ(r.One("min", {x}), "-7");
  EXPECT_EQ(r.One("max", {x}), "10");
  EXPECT_EQ(r.TypeOf("max", {x}), "int");
  EXPECT_EQ(r.One("min", {Ints({std::nullopt})}), "null");
  EXPECT_EQ(r.One("max", {Ints({})}), "null");
  Vector d = Doubles({1.0, NAN, -3.0, std::nullopt});
  EXPECT_EQ(r.One("max", {d}), "\"NaN\"");
  EXPECT_EQ(r.One("min", {d}), "-3");
  Vector s =
      Strings({"b", "\xc3\xa9", "a", std::nullopt, "z"});  // é sorts after z (bytes unsigned)
  EXPECT_EQ(r.One("max", {s}), "\"\xc3\xa9\"");
  EXPECT_EQ(r.One("min", {s}), "\"a\"");
  EXPECT_EQ(r.One("min", {Decimals(5, 2, {-100, 250, -101})}), "\"-1.01\"");
  EXPECT_EQ(r.One("max", {Bools({false, std::nullopt, true})}), "true");
  EXPECT_EQ(r.One("min", {Bools({true, false})}), "false");
  Vector dates = Ints({19000, 18000, 20000}, DataType::Date());
  EXPECT_EQ(r.One("min", {dates}), "\"2019-04-14\"");
  EXPECT_EQ(r.TypeOf("min", {dates}), "date");
  Vector ts = Ints({5, -5}, DataType::Timestamp());
  EXPECT_EQ(r.One("max", {ts}), "\"1970-01-01 00:00:00.000005\"");
  auto g = r.Run("max", {Strings({"x", "yy", std::nullopt, "a"})}, {0, 0, 1, 2}, 3);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(Json(*g), R"(["yy",null,"a"])");
  auto err = r.Run("max", {Vector(DataType::List(DataType::Int32()))}, {}, 0);
  EXPECT_FALSE(err.ok());
}

TEST_P(AggFnTest, FirstLast) {
  Runner r = R();
  Vector x = Ints({std::nullopt, 2, 3, std::nullopt});
  if (!GetParam()) {  // order-dependent: serial only
    EXPECT_EQ(r.One("first", {x}), "null");
    EXPECT_EQ(r.One("last", {x}), "null");
    EXPECT_EQ(r.One("first", {x}, false, {Bool(true)}), "2");
    EXPECT_EQ(r.One("last_value", {x}, false, {Bool(true)}), "3");
    EXPECT_EQ(r.One("first_value", {Strings({"a", "b"})}), "\"a\"");
    EXPECT_EQ(r.One("any_value", {x}, false, {Bool(true)}), "2");
  }
  EXPECT_EQ(r.One("first", {Ints({std::nullopt, std::nullopt})}, false, {Bool(true)}), "null");
  EXPECT_EQ(r.One("last", {Ints({})}), "null");
  std::string e = r.One("first", {x}, false, {I32(1)});
  EXPECT_NE(e.find("DATATYPE_MISMATCH"), std::string::npos) << e;
  // Nested values go through the generic slot.
  auto lt = DataType::List(DataType::Int32());
  Vector l = Col(lt, {Value::Nested(lt, {I32(1), I32(2)})});
  EXPECT_EQ(r.One("first", {l}), "[1,2]");
}

TEST_P(AggFnTest, BooleanAggregates) {
  Runner r = R();
  Vector b = Bools({true, std::nullopt, false, true});
  EXPECT_EQ(r.One("count_if", {b}), "2");
  EXPECT_EQ(r.One("bool_and", {b}), "false");
  EXPECT_EQ(r.One("every", {Bools({true, std::nullopt})}), "true");
  EXPECT_EQ(r.One("bool_or", {b}), "true");
  EXPECT_EQ(r.One("some", {Bools({false, std::nullopt})}), "false");
  EXPECT_EQ(r.One("any", {Bools({std::nullopt})}), "null");
  EXPECT_EQ(r.One("count_if", {Bools({})}), "0");
  std::string e = r.One("bool_and", {Ints({1})});
  EXPECT_NE(e.find("DATATYPE_MISMATCH"), std::string::npos) << e;
}

TEST_P(AggFnTest, CollectListAndSet) {
  Runner r = R();
  Vector x = Ints({1, std::nullopt, 2, 1});
  EXPECT_EQ(r.One("collect_list", {x}), "[1,2,1]");
  EXPECT_EQ(r.TypeOf("collect_list", {x}), "array<bigint>");
  EXPECT_EQ(r.One("collect_list", {Ints({std::nullopt})}), "[]");
  EXPECT_EQ(r.One("collect_set", {x}), "[1,2]");
  EXPECT_EQ(r.One("array_agg", {Strings({"a", "b"})}), "[\"a\",\"b\"]");
  EXPECT_EQ(r.One("collect_set", {Strings({"a", "b", "a", std::nullopt})}), "[\"a\",\"b\"]");
  EXPECT_EQ(r.One("collect_set", {Ints({})}), "[]");
}

TEST_P(AggFnTest, Variance) {
  Runner r = R();
  Vector x = Ints({1, 2, 3, 4, std::nullopt}, DataType::Int32());
  EXPECT_EQ(r.One("var_samp", {x}), "1.6666666666666667");
  EXPECT_EQ(r.One("variance", {x}), "1.6666666666666667");
  EXPECT_EQ(r.One("var_pop", {x}), "1.25");
  EXPECT_EQ(r.One("stddev_samp", {x}), "1.2909944487358056");
  EXPECT_EQ(r.One("stddev", {x}), "1.2909944487358056");
  EXPECT_EQ(r.One("std", {x}), "1.2909944487358056");
  EXPECT_EQ(r.One("stddev_pop", {x}), "1.118033988749895");
  Vector one = Doubles({5.0});
  EXPECT_EQ(r.One("stddev_samp", {one}), "null");  // n = 1: NULL (Spark 3.1+)
  EXPECT_EQ(r.One("var_samp", {one}), "null");
  EXPECT_EQ(r.One("stddev_pop", {one}), "0");
  EXPECT_EQ(r.One("var_pop", {Doubles({})}), "null");
  EXPECT_EQ(r.TypeOf("stddev", {x}), "double");
}

TEST_P(AggFnTest, Covariance) {
  Runner r = R();
  Vector x = Ints({1, 2, 3, std::nullopt});
  Vector y = Doubles({2, 4, 6, 8});
  EXPECT_EQ(r.One("covar_pop", {x, y}), "1.3333333333333333");
  EXPECT_EQ(r.One("covar_samp", {x, y}), "2");
  EXPECT_EQ(r.One("corr", {x, y}), "1");
  EXPECT_EQ(r.One("corr", {Doubles({1}), Doubles({2})}), "null");
  EXPECT_EQ(r.One("covar_pop", {Doubles({1}), Doubles({2})}), "0");
  EXPECT_EQ(r.One("covar_samp", {Doubles({}), Doubles({})}), "null");
}

TEST_P(AggFnTest, ApproxCountDistinct) {
  Runner r = R();
  EXPECT_EQ(r.One("approx_count_distinct", {Ints({})}), "0");
  EXPECT_EQ(r.One("approx_count_distinct", {Ints({std::nullopt})}), "0");
  EXPECT_EQ(r.One("approx_count_distinct", {Ints({1, 1, 2, std::nullopt, 3})}), "3");
  for (int64_t card : {10, 100, 1000, 10000, 100000, 400000}) {
    Vector v(DataType::Int64());
    for (int64_t i = 0; i < card; ++i) v.Append<int64_t>(i * 7919);
    for (int64_t i = 0; i < card; i += 3) v.Append<int64_t>(i * 7919);  // duplicates
    std::string s = r.One("approx_count_distinct", {v});
    double est = std::atof(s.c_str());
    // rsd 0.05 → 512 registers, standard error 1.04/sqrt(512) = 4.6%; 3 sigma.
    EXPECT_NEAR(est, static_cast<double>(card), 0.14 * static_cast<double>(card) + 1) << card;
  }
  Vector s = Strings({"a", "b", "c", "a"});
  EXPECT_EQ(r.One("approx_count_distinct", {s}), "3");
  Vector v(DataType::Int64());
  for (int64_t i = 0; i < 50000; ++i) v.Append<int64_t>(i);
  double est = std::atof(r.One("approx_count_distinct", {v}, false, {Dbl(0.01)}).c_str());
  EXPECT_NEAR(est, 50000, 0.03 * 50000);
  std::string e = r.One("approx_count_distinct", {v}, false, {Dbl(0.5)});
  EXPECT_NE(e.find("HLL++ requires at least 4 bits"), std::string::npos) << e;
}

TEST_P(AggFnTest, Percentiles) {
  Runner r = R();
  Vector x = Ints({4, 1, std::nullopt, 3, 2}, DataType::Int32());
  EXPECT_EQ(r.One("median", {x}), "2.5");
  EXPECT_EQ(r.One("percentile", {x}, false, {Dbl(0.25)}), "1.75");
  EXPECT_EQ(r.One("percentile", {x}, false, {Dbl(1.0)}), "4");
  EXPECT_EQ(r.One("median", {Ints({})}), "null");
  EXPECT_EQ(r.One("percentile_approx", {x}, false, {Dbl(0.5)}), "2");
  EXPECT_EQ(r.TypeOf("percentile_approx", {x}),
            "ERROR [WRONG_NUM_ARGS] The `percentile_approx` requires [2, 3] parameters but the "
            "actual number is 1. SQLSTATE: 42605");
  EXPECT_EQ(r.One("approx_percentile", {x}, false, {Dbl(0.0), I32(100)}), "1");
  EXPECT_EQ(r.One("percentile_approx", {x}, false, {Dbl(1.0)}), "4");
  std::string e = r.One("percentile", {x}, false, {Dbl(1.5)});
  EXPECT_NE(e.find("DATATYPE_MISMATCH"), std::string::npos) << e;
}

TEST_P(AggFnTest, MaxByMinBy) {
  Runner r = R();
  Vector x = Strings({"a", "b", std::nullopt, "d", "e"});
  Vector ord = Ints({1, 5, 9, std::nullopt, 0});
  EXPECT_EQ(r.One("max_by", {x, ord}), "null");  // the row with ord 9 has x NULL
  EXPECT_EQ(r.One("min_by", {x, ord}), "\"e\"");
  EXPECT_EQ(r.One("max_by", {Strings({"p", "q"}), Strings({"z", "y"})}), "\"p\"");
  EXPECT_EQ(r.One("max_by", {Strings({}), Ints({})}), "null");
  if (!GetParam()) {
    EXPECT_EQ(r.One("max_by", {Strings({"p", "q"}), Ints({7, 7})}), "\"p\"");  // first wins ties
  }
}

TEST_P(AggFnTest, DistinctSumAvg) {
  Runner r = R();
  Vector x = Ints({1, 1, 2, std::nullopt, 2, 3}, DataType::Int32());
  EXPECT_EQ(r.One("sum", {x}, true), "6");
  EXPECT_EQ(r.One("avg", {x}, true), "2");
  EXPECT_EQ(r.One("sum", {Ints({})}, true), "null");
  auto g = r.Run("count", {x}, {0, 1, 0, 0, 0, 1}, 3, true);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(Json(*g), "[2,2,0]");
  EXPECT_EQ(r.One("sum", {Decimals(10, 2, {150, 150, 25})}, true), "\"1.75\"");
  EXPECT_EQ(r.One("collect_list", {x}, true), "[1,2,3]");
  EXPECT_EQ(r.One("max", {x}, true), "3");
}

TEST_P(AggFnTest, ManyGroups) {
  Runner r = R();
  const size_t n = 100000, groups = 1000;
  Vector x(DataType::Int64());
  std::vector<uint32_t> g(n);
  for (size_t i = 0; i < n; ++i) {
    x.Append<int64_t>(static_cast<int64_t>(i));
    g[i] = static_cast<uint32_t>(i % groups);
  }
  auto sum = r.Run("sum", {x}, g, groups);
  auto cnt = r.Run("count", {x}, g, groups, true);
  ASSERT_TRUE(sum.ok() && cnt.ok());
  for (size_t k = 0; k < groups; ++k) {
    int64_t expect = 0;
    for (size_t i = k; i < n; i += groups) expect += static_cast<int64_t>(i);
    ASSERT_EQ(sum->data<int64_t>()[k], expect);
    ASSERT_EQ(cnt->data<int64_t>()[k], static_cast<int64_t>(n / groups));
  }
}

INSTANTIATE_TEST_SUITE_P(SerialAndCombined, AggFnTest, ::testing::Values(false, true));

TEST(AggregateBindTest, Errors) {
  BindContext ctx;
  auto unknown = BindAggregateFunction("no_such_agg", {}, false, ctx);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().error_class(), "UNRESOLVED_ROUTINE");
  auto arity = BindAggregateFunction("sum", {}, false, ctx);
  ASSERT_FALSE(arity.ok());
  EXPECT_EQ(arity.status().error_class(), "WRONG_NUM_ARGS");
  auto bad = BindAggregateFunction("sum", {MakeColumn(0, DataType::Boolean(), "b")}, false, ctx);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().error_class(), "DATATYPE_MISMATCH");
  auto bad2 = BindAggregateFunction("avg", {MakeColumn(0, DataType::Date(), "d")}, false, ctx);
  ASSERT_FALSE(bad2.ok());
  EXPECT_EQ(bad2.status().error_class(), "DATATYPE_MISMATCH");
  auto star_distinct = BindAggregateFunction("count", {}, true, ctx);
  EXPECT_FALSE(star_distinct.ok());
  auto nonconst = BindAggregateFunction(
      "first", {MakeColumn(0, DataType::Int32(), "a"), MakeColumn(1, DataType::Boolean(), "b")},
      false, ctx);
  ASSERT_FALSE(nonconst.ok());
  EXPECT_EQ(nonconst.status().error_class(), "DATATYPE_MISMATCH");
  EXPECT_TRUE(IsAggregateFunction("COUNT"));
  EXPECT_TRUE(IsAggregateFunction("approx_count_distinct"));
  EXPECT_FALSE(IsAggregateFunction("upper"));
  auto ok = BindAggregateFunction(
      "first", {MakeColumn(0, DataType::Int32(), "a"), MakeConstant(Value::Boolean(true))}, false,
      ctx);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->args.size(), 1u);  // the ignoreNulls constant is folded
}

}  // namespace
}  // namespace silt::exec
