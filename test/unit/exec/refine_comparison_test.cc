// RefineByComparison (the scan's later conjuncts `column <op> constant|column` applied to a
// selection in place) keeps exactly the rows the comparison kernels keep: every operator, both
// operand orders, column against column, every fixed-width type, NULL rows, NaN and -0.0; other
// shapes are left to the evaluator.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "exec/delta_scan.h"
#include "exec/functions.h"

namespace silt::exec {
namespace {

// The rows of `sel` where `pred` is TRUE, through the evaluator (the reference).
std::vector<uint32_t> Reference(const Expr& pred, const DataChunk& chunk,
                                const std::vector<uint32_t>& sel) {
  std::vector<uint32_t> next;
  EXPECT_TRUE(EvaluateFilter(pred, SubsetFor(pred, chunk, sel), EvalContext{}, &next).ok());
  for (uint32_t& k : next) k = sel[k];
  return next;
}

struct TypeCase {
  TypePtr type;
  std::vector<Value> values;  // column values and constants drawn from these (plus NULL rows)
};

TEST(RefineByComparisonTest, MatchesTheComparisonKernels) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<TypeCase> cases = {
      {DataType::Int8(),
       {Value::Integer(DataType::Int8(), -3), Value::Integer(DataType::Int8(), 0),
        Value::Integer(DataType::Int8(), 7)}},
      {DataType::Int16(),
       {Value::Integer(DataType::Int16(), -300), Value::Integer(DataType::Int16(), 5)}},
      {DataType::Int32(), {Value::Int32(-5), Value::Int32(0), Value::Int32(24), Value::Int32(99)}},
      {DataType::Date(),
       {Value::Integer(DataType::Date(), 8766), Value::Integer(DataType::Date(), 9131),
        Value::Integer(DataType::Date(), 9000)}},
      {DataType::Int64(), {Value::Int64(-1), Value::Int64(int64_t{1} << 40), Value::Int64(3)}},
      {DataType::Timestamp(),
       {Value::Integer(DataType::Timestamp(), 0), Value::Integer(DataType::Timestamp(), 1000)}},
      {DataType::Double(),
       {Value::Double(1.5), Value::Double(-0.0), Value::Double(0.0), Value::Double(nan),
        Value::Double(-1e300)}},
      {DataType::Float(),
       {Value::Floating(DataType::Float(), 1.5), Value::Floating(DataType::Float(), nan),
        Value::Floating(DataType::Float(), -2)}},
      {DataType::Decimal(15, 2),
       {Value::Decimal(15, 2, 5), Value::Decimal(15, 2, 7), Value::Decimal(15, 2, 6),
        Value::Decimal(15, 2, -2400)}},
  };
  const char* ops[] = {"=", "<>", "<", "<=", ">", ">=", "!=", "=="};
  std::mt19937 rng(7);
  for (const TypeCase& tc : cases) {
    for (bool nulls : {false, true}) {
      DataChunk chunk;
      Vector other(DataType::Int32());  // column 0: another column, column 1: the compared one
      Vector col(tc.type);
      for (int i = 0; i < 500; ++i) {
        ASSERT_TRUE(other.AppendValue(Value::Int32(i)).ok());
        if (nulls && rng() % 4 == 0) {
          ASSERT_TRUE(col.AppendValue(Value::Null(tc.type)).ok());
        } else {
          ASSERT_TRUE(col.AppendValue(tc.values[rng() % tc.values.size()]).ok());
        }
      }
      Vector col2(tc.type);  // column 2: a second column of the type, for column <op> column
      for (int i = 0; i < 500; ++i) {
        if (nulls && rng() % 5 == 0) {
          ASSERT_TRUE(col2.AppendValue(Value::Null(tc.type)).ok());
        } else {
          ASSERT_TRUE(col2.AppendValue(tc.values[rng() % tc.values.size()]).ok());
        }
      }
      chunk.columns.push_back(std::move(other));
      chunk.columns.push_back(std::move(col));
      chunk.columns.push_back(std::move(col2));
      std::vector<uint32_t> sel;
      for (uint32_t i = 0; i < 500; ++i)
        if (rng() % 3 != 0) sel.push_back(i);
      for (const char* op : ops) {
        SCOPED_TRACE(tc.type->ToString() + " column " + op + " column" + (nulls ? " nulls" : ""));
        auto pred = BindScalarFunction(
            op, {MakeColumn(1, tc.type, "c"), MakeColumn(2, tc.type, "d")}, BindContext{});
        ASSERT_TRUE(pred.ok()) << pred.status().ToString();
        std::vector<uint32_t> got = sel;
        ASSERT_TRUE(RefineByComparison(**pred, chunk, &got));
        EXPECT_EQ(got, Reference(**pred, chunk, sel));
      }
      for (const Value& c : tc.values) {
        for (const char* op : ops) {
          for (bool constant_first : {false, true}) {
            SCOPED_TRACE(tc.type->ToString() + " " + op + " " + c.ToString() +
                         (constant_first ? " constant first" : "") + (nulls ? " nulls" : ""));
            ExprPtr column = MakeColumn(1, tc.type, "c");
            ExprPtr literal = MakeConstant(c);
            auto pred = BindScalarFunction(op,
                                           constant_first ? std::vector<ExprPtr>{literal, column}
                                                          : std::vector<ExprPtr>{column, literal},
                                           BindContext{});
            ASSERT_TRUE(pred.ok()) << pred.status().ToString();
            std::vector<uint32_t> got = sel;
            ASSERT_TRUE(RefineByComparison(**pred, chunk, &got));
            EXPECT_EQ(got, Reference(**pred, chunk, sel));
          }
        }
      }
    }
  }
}

TEST(RefineByComparisonTest, OtherShapesAreLeftToTheEvaluator) {
  DataChunk chunk;
  Vector a(DataType::Int64()), s(DataType::String());
  for (int i = 0; i < 10; ++i) {
    a.Append<int64_t>(i);
    s.AppendString("x" + std::to_string(i));
  }
  chunk.columns.push_back(std::move(a));
  chunk.columns.push_back(std::move(s));
  const ExprPtr col = MakeColumn(0, DataType::Int64(), "a");
  std::vector<uint32_t> sel = {1, 3, 5};
  auto try_refine = [&](const std::string& name, std::vector<ExprPtr> args) {
    auto e = BindScalarFunction(name, std::move(args), BindContext{});
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    std::vector<uint32_t> s2 = sel;
    bool done = RefineByComparison(**e, chunk, &s2);
    EXPECT_EQ(s2, sel);  // untouched when not applied
    return done;
  };
  // A NULL constant, a string column, an expression operand, not a comparison.
  EXPECT_FALSE(try_refine("<", {col, MakeConstant(Value::Null(DataType::Int64()))}));
  EXPECT_FALSE(
      try_refine("=", {MakeColumn(1, DataType::String(), "s"), MakeConstant(Value::String("x3"))}));
  auto plus = BindScalarFunction("+", {col, MakeConstant(Value::Int64(1))}, BindContext{});
  ASSERT_TRUE(plus.ok());
  EXPECT_FALSE(try_refine("<", {*plus, MakeConstant(Value::Int64(4))}));
  EXPECT_FALSE(try_refine("<=>", {col, MakeConstant(Value::Int64(3))}));
  // A placeholder column (another conjunct's subset) is not read.
  DataChunk holes;
  Vector placeholder(DataType::Null());
  placeholder.Resize(10);
  holes.columns.push_back(std::move(placeholder));
  auto lt = BindScalarFunction("<", {col, MakeConstant(Value::Int64(4))}, BindContext{});
  ASSERT_TRUE(lt.ok());
  std::vector<uint32_t> s3 = sel;
  EXPECT_FALSE(RefineByComparison(**lt, holes, &s3));
  // And the shape it takes: rows 1 and 3 of {1, 3, 5} are below 4.
  EXPECT_TRUE(RefineByComparison(**lt, chunk, &s3));
  EXPECT_EQ(s3, (std::vector<uint32_t>{1, 3}));
}

}  // namespace
}  // namespace silt::exec
