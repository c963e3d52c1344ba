// The expression evaluator's handling of constant subtrees and of ANSI widening casts: a call's
// argument that reads no column (CAST(0.06 - 0.01 AS DECIMAL(15,2))) is computed once per chunk
// and passed to the call as a constant, not once per row; it is not computed for an empty
// chunk (its error is raised only when a row needs it); and ANSI casts of columns give the same
// values as the non-ANSI widening casts while the narrowing ones still raise.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "common/error_classes.h"
#include "exec/cast.h"
#include "exec/expression.h"
#include "exec/functions.h"

namespace silt::exec {
namespace {

// A call over `children` whose kernel records the rows it is asked for and whether each argument
// came as a constant, then gives args[0] (or `fail` when set and asked for rows).
struct Probe {
  std::vector<size_t> rows;
  std::vector<std::vector<bool>> constant;
  Status fail = Status::OK();
};

ExprPtr ProbeCall(TypePtr type, std::vector<ExprPtr> children, std::shared_ptr<Probe> probe) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCall;
  e->type = type;
  e->name = "probe";
  e->children = std::move(children);
  e->kernel = [probe](std::span<const Arg> args, size_t rows, const EvalContext&,
                      Vector* out) -> Status {
    probe->rows.push_back(rows);
    std::vector<bool> c;
    for (const Arg& a : args) c.push_back(a.constant);
    probe->constant.push_back(c);
    if (!probe->fail.ok() && rows > 0) return probe->fail;
    for (size_t i = 0; i < rows; ++i) {
      SILT_RETURN_NOT_OK(out->AppendValue(args[0].vector->GetValue(args[0].index(i))));
    }
    return Status::OK();
  };
  return e;
}

DataChunk Int64Chunk(size_t rows) {
  DataChunk chunk;
  Vector v(DataType::Int64());
  for (size_t i = 0; i < rows; ++i)
    EXPECT_TRUE(v.AppendValue(Value::Int64(static_cast<int64_t>(i))).ok());
  chunk.columns.push_back(std::move(v));
  return chunk;
}

TEST(ExpressionEvalTest, ConstantSubtreeIsComputedOncePerChunkAsAConstantArgument) {
  auto inner = std::make_shared<Probe>();
  auto outer = std::make_shared<Probe>();
  // outer(col, inner(5)): inner reads no column.
  ExprPtr in = ProbeCall(DataType::Int64(), {MakeConstant(Value::Int64(5))}, inner);
  ExprPtr e = ProbeCall(DataType::Int64(), {MakeColumn(0, DataType::Int64(), "c0"), in}, outer);
  DataChunk chunk = Int64Chunk(1000);
  Vector out(DataType::Int64());
  ASSERT_TRUE(Evaluate(*e, chunk, EvalContext{}, &out).ok());
  ASSERT_EQ(out.size(), 1000u);
  EXPECT_EQ(out.GetValue(999), Value::Int64(999));
  ASSERT_EQ(inner->rows.size(), 1u);
  EXPECT_EQ(inner->rows[0], 1u);  // one row, not 1000
  ASSERT_EQ(outer->rows.size(), 1u);
  EXPECT_EQ(outer->rows[0], 1000u);
  EXPECT_EQ(outer->constant[0], (std::vector<bool>{false, true}));
}

TEST(ExpressionEvalTest, ConstantSubtreeValueReachesEveryRow) {
  // col + CAST((2 - 1) AS BIGINT) through the real kernels: the constant is applied to all rows.
  BindContext bctx;
  bctx.ansi = true;
  auto diff =
      BindScalarFunction("-", {MakeConstant(Value::Int32(2)), MakeConstant(Value::Int32(1))}, bctx);
  ASSERT_TRUE(diff.ok()) << diff.status().ToString();
  auto cast = BindCast(*diff, DataType::Int64(), false, bctx);
  ASSERT_TRUE(cast.ok()) << cast.status().ToString();
  ASSERT_EQ((*cast)->kind, ExprKind::kCast);  // not folded at bind: the evaluator's case
  auto sum = BindScalarFunction("+", {MakeColumn(0, DataType::Int64(), "c0"), *cast}, bctx);
  ASSERT_TRUE(sum.ok()) << sum.status().ToString();
  DataChunk chunk = Int64Chunk(300);
  Vector out(DataType::Int64());
  EvalContext ctx;
  ctx.ansi = true;
  ASSERT_TRUE(Evaluate(**sum, chunk, ctx, &out).ok());
  ASSERT_EQ(out.size(), 300u);
  for (size_t i = 0; i < 300; ++i)
    EXPECT_EQ(out.GetValue(i), Value::Int64(static_cast<int64_t>(i) + 1)) << i;
}

TEST(ExpressionEvalTest, ConstantSubtreeErrorOnlyWhenARowNeedsIt) {
  auto inner = std::make_shared<Probe>();
  inner->fail = Status::InvalidArgument("boom", errc::kArithmeticOverflow);
  auto outer = std::make_shared<Probe>();
  ExprPtr in = ProbeCall(DataType::Int64(), {MakeConstant(Value::Int64(5))}, inner);
  ExprPtr e = ProbeCall(DataType::Int64(), {MakeColumn(0, DataType::Int64(), "c0"), in}, outer);
  Vector out(DataType::Int64());
  // No rows: the constant subtree is not computed, so its error is not raised.
  ASSERT_TRUE(Evaluate(*e, Int64Chunk(0), EvalContext{}, &out).ok());
  for (size_t r : inner->rows) EXPECT_EQ(r, 0u);
  outer->rows.clear();
  // With rows it is, and its error stops the evaluation.
  Status st = Evaluate(*e, Int64Chunk(10), EvalContext{}, &out);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error_class(), errc::kArithmeticOverflow);
  EXPECT_TRUE(outer->rows.empty());
}

TEST(ExpressionEvalTest, AnsiConstantArithmeticOverflowStillRaised) {
  // col < 2147483647 + 1 under ANSI: the constant operand overflows for the first row.
  BindContext bctx;
  bctx.ansi = true;
  auto add = BindScalarFunction(
      "+", {MakeConstant(Value::Int32(2147483647)), MakeConstant(Value::Int32(1))}, bctx);
  ASSERT_TRUE(add.ok());
  auto lt = BindScalarFunction("<", {MakeColumn(0, DataType::Int64(), "c0"), *add}, bctx);
  ASSERT_TRUE(lt.ok()) << lt.status().ToString();
  EvalContext ctx;
  ctx.ansi = true;
  std::vector<uint32_t> sel;
  Status st = EvaluateFilter(**lt, Int64Chunk(5), ctx, &sel);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error_class(), errc::kArithmeticOverflow);
}

TEST(ExpressionEvalTest, AnsiWideningCastsOfColumnsMatchNonAnsi) {
  // INT → BIGINT, INT → DOUBLE, INT → DECIMAL(12,2), DECIMAL(7,2) → DECIMAL(15,2) and
  // DECIMAL(7,2) → DOUBLE, with NULLs, in both modes.
  struct Case {
    TypePtr from, to;
    std::vector<Value> values;
  };
  std::vector<Case> cases = {
      {DataType::Int32(),
       DataType::Int64(),
       {Value::Int32(1), Value::Null(DataType::Int32()), Value::Int32(2147483647),
        Value::Int32(-2147483647 - 1)}},
      {DataType::Int32(),
       DataType::Double(),
       {Value::Int32(-7), Value::Null(DataType::Int32()), Value::Int32(2147483647)}},
      {DataType::Int32(),
       DataType::Decimal(12, 2),
       {Value::Int32(-7), Value::Null(DataType::Int32()), Value::Int32(2147483647)}},
      {DataType::Decimal(7, 2),
       DataType::Decimal(15, 2),
       {Value::Decimal(7, 2, 12345), Value::Null(DataType::Decimal(7, 2)),
        Value::Decimal(7, 2, -9999999)}},
      {DataType::Decimal(7, 2),
       DataType::Double(),
       {Value::Decimal(7, 2, 12345), Value::Null(DataType::Decimal(7, 2))}},
  };
  for (const Case& c : cases) {
    DataChunk chunk;
    Vector col(c.from);
    for (const Value& v : c.values) ASSERT_TRUE(col.AppendValue(v).ok());
    chunk.columns.push_back(std::move(col));
    std::vector<Vector> results;
    for (bool ansi : {false, true}) {
      BindContext bctx;
      bctx.ansi = ansi;
      auto cast = BindCast(MakeColumn(0, c.from, "c0"), c.to, false, bctx);
      ASSERT_TRUE(cast.ok()) << cast.status().ToString();
      EvalContext ctx;
      ctx.ansi = ansi;
      Vector out(c.to);
      ASSERT_TRUE(Evaluate(**cast, chunk, ctx, &out).ok()) << c.to->ToString();
      results.push_back(std::move(out));
    }
    for (size_t i = 0; i < c.values.size(); ++i) {
      Value expected =
          c.values[i].is_null() ? Value::Null(c.to) : *CastValue(c.values[i], c.to, false);
      EXPECT_EQ(results[0].GetValue(i), expected) << c.to->ToString() << " row " << i;
      EXPECT_EQ(results[1].GetValue(i), expected) << c.to->ToString() << " row " << i;
    }
  }
}

TEST(ExpressionEvalTest, AnsiNarrowingCastsOfColumnsStillRaise) {
  BindContext bctx;
  bctx.ansi = true;
  EvalContext ctx;
  ctx.ansi = true;
  DataChunk chunk;
  Vector col(DataType::Int64());
  ASSERT_TRUE(col.AppendValue(Value::Int64(1)).ok());
  ASSERT_TRUE(col.AppendValue(Value::Int64(int64_t{1} << 40)).ok());
  chunk.columns.push_back(std::move(col));
  auto to_int = BindCast(MakeColumn(0, DataType::Int64(), "c0"), DataType::Int32(), false, bctx);
  ASSERT_TRUE(to_int.ok());
  Vector out(DataType::Int32());
  Status st = Evaluate(**to_int, chunk, ctx, &out);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error_class(), errc::kCastOverflow);
  // INT → DECIMAL(5,0): too few integer digits for every INT, so the value is checked.
  DataChunk ints;
  Vector ic(DataType::Int32());
  ASSERT_TRUE(ic.AppendValue(Value::Int32(123456)).ok());
  ints.columns.push_back(std::move(ic));
  auto to_dec =
      BindCast(MakeColumn(0, DataType::Int32(), "c0"), DataType::Decimal(5, 0), false, bctx);
  ASSERT_TRUE(to_dec.ok());
  Vector dout(DataType::Decimal(5, 0));
  st = Evaluate(**to_dec, ints, ctx, &dout);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error_class(), errc::kNumericValueOutOfRange);
}

}  // namespace
}  // namespace silt::exec
