// Constant folding (planner/constant_folding.h): foldable subtrees become literals, columns and
// nondeterministic calls stay, a constant's error is the statement's outside conditional branches
// and left to the rows inside them, shared subtrees and plan nodes stay shared.
#include "planner/constant_folding.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exec/functions.h"

namespace silt::planner {
namespace {

using exec::ExprKind;
using exec::ExprPtr;

class ConstantFoldingTest : public ::testing::Test {
 protected:
  ConstantFoldingTest() {
    bctx_.ansi = true;
    ctx_.ansi = true;
  }
  ExprPtr Col(int i) { return exec::MakeColumn(i, DataType::Int32(), "c" + std::to_string(i)); }
  ExprPtr Int(int v) { return exec::MakeConstant(Value::Int32(v)); }
  ExprPtr Str(const std::string& s) { return exec::MakeConstant(Value::String(s)); }
  ExprPtr Call(const std::string& op, std::vector<ExprPtr> args) {
    auto r = exec::BindScalarFunction(op, std::move(args), bctx_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return *r;
  }
  ExprPtr CastToInt(ExprPtr e) {
    auto r = exec::BindCast(std::move(e), DataType::Int32(), false, bctx_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return *r;
  }
  std::string Folded(const ExprPtr& e, bool conditional = false) {
    auto r = FoldConstantExpr(e, ctx_, conditional);
    if (!r.ok()) return "ERROR " + std::string(r.status().error_class());
    return (*r)->ToString();
  }

  exec::BindContext bctx_;
  exec::EvalContext ctx_;
};

TEST_F(ConstantFoldingTest, FoldsConstantSubtreesAndKeepsColumns) {
  EXPECT_EQ(Folded(Call("+", {Col(0), Call("*", {Int(2), Int(3)})})), "(c0 + 6)");
  EXPECT_EQ(Folded(Call(">", {Col(0), Call("abs", {Int(-4)})})), "(c0 > 4)");
  // already a literal, or no constant at all: the same node
  ExprPtr plain = Call("+", {Col(0), Col(1)});
  auto r = FoldConstantExpr(plain, ctx_);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->get(), plain.get());
  // a literal cast that fails is kept as a cast by the binder, then folded here
  ExprPtr bad = CastToInt(Str("x"));
  EXPECT_EQ(bad->kind, ExprKind::kCast);
  EXPECT_EQ(Folded(CastToInt(Str("12"))), "12");
}

TEST_F(ConstantFoldingTest, ErrorsOutsideConditionalBranchesAreRaised) {
  EXPECT_EQ(Folded(Call("=", {Col(0), CastToInt(Str("x"))})), "ERROR CAST_INVALID_INPUT");
  EXPECT_EQ(Folded(Call("+", {Col(0), Call("+", {Int(2147483647), Int(1)})})),
            "ERROR ARITHMETIC_OVERFLOW");
  // the same constant in a CASE branch or a COALESCE argument is left to the rows
  ExprPtr when = Call(">", {Col(0), Int(100)});
  ExprPtr kase = exec::MakeSpecial(ExprKind::kCase, DataType::Int32(),
                                   {when, CastToInt(Str("x")), Col(0)}, true);
  EXPECT_EQ(Folded(kase), kase->ToString());
  ExprPtr co =
      exec::MakeSpecial(ExprKind::kCoalesce, DataType::Int32(), {Col(0), CastToInt(Str("x"))});
  EXPECT_EQ(Folded(co), co->ToString());
  // below a conditional branch, a foldable subtree that evaluates still folds
  ExprPtr ok = exec::MakeSpecial(ExprKind::kCase, DataType::Int32(),
                                 {when, Call("+", {Int(1), Int(2)}), Col(0)}, true);
  EXPECT_EQ(Folded(ok), "CASE WHEN (c0 > 100) THEN 3 ELSE c0 END");
  // the caller's flag
  EXPECT_EQ(Folded(CastToInt(Str("x")), /*conditional=*/true), CastToInt(Str("x"))->ToString());
  // a whole constant CASE is evaluated lazily: the branch not taken raises nothing
  ExprPtr lazy =
      exec::MakeSpecial(ExprKind::kCase, DataType::Int32(),
                        {Call(">", {Int(1), Int(2)}), CastToInt(Str("x")), Int(3)}, true);
  EXPECT_EQ(Folded(lazy), "3");
}

TEST_F(ConstantFoldingTest, NondeterministicAndClockCallsStay) {
  ExprPtr rnd = Call("rand", {Int(7)});
  EXPECT_EQ(Folded(rnd), rnd->ToString());
  ExprPtr now = Call("current_timestamp", {});
  EXPECT_EQ(Folded(now), now->ToString());
  EXPECT_NE(Folded(now).find("current_timestamp"), std::string::npos);
}

TEST_F(ConstantFoldingTest, SharedNodesStayShared) {
  // one subtree under two parents, and one plan node read twice (a CTE)
  ExprPtr shared = Call("+", {Col(0), Call("+", {Int(1), Int(1)})});
  auto scan = std::make_shared<LogicalNode>();
  scan->kind = LogicalKind::kValues;
  scan->columns = {OutputColumn{"c0", DataType::Int32(), true, ""}};
  PlanPtr a = MakeFilter(scan, Call(">", {shared, Int(0)}));
  PlanPtr b = MakeFilter(scan, Call("<", {shared, Int(9)}));
  auto join = std::make_shared<LogicalNode>();
  join->kind = LogicalKind::kJoin;
  join->join = JoinKind::kCross;
  join->children = {a, a, b};
  auto r = FoldConstants(join, ctx_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const PlanPtr& out = *r;
  EXPECT_EQ(out->children[0].get(), out->children[1].get());
  EXPECT_EQ(out->children[0]->predicate->ToString(), "((c0 + 2) > 0)");
  EXPECT_EQ(out->children[0]->predicate->children[0].get(),
            out->children[2]->predicate->children[0].get());
  EXPECT_EQ(out->children[0]->children[0].get(), scan.get());  // unchanged: not copied
  // an error anywhere in the plan is the statement's
  PlanPtr bad = MakeFilter(scan, Call("=", {Col(0), CastToInt(Str("x"))}));
  EXPECT_FALSE(FoldConstants(bad, ctx_).ok());
}

}  // namespace
}  // namespace silt::planner
