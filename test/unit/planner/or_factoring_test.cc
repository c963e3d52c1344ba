// OR factoring (planner/or_factoring.h): common conjuncts out of ORs, implied one-side filters.
#include "planner/or_factoring.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exec/functions.h"

namespace silt::planner {
namespace {

using exec::ExprKind;
using exec::ExprPtr;

class OrFactoringTest : public ::testing::Test {
 protected:
  // Columns 0..3 of an input: a, b (left side, [0, 2)), c, d (right side, [2, 4)); all INT.
  ExprPtr Col(int i) {
    return exec::MakeColumn(i, DataType::Int32(), std::string(1, static_cast<char>('a' + i)));
  }
  ExprPtr Call(const std::string& op, ExprPtr x, ExprPtr y) {
    auto r = exec::BindScalarFunction(op, {std::move(x), std::move(y)}, exec::BindContext{});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return *r;
  }
  ExprPtr Int(int v) { return exec::MakeConstant(Value::Int32(v)); }
  ExprPtr And(ExprPtr x, ExprPtr y) {
    return exec::MakeSpecial(ExprKind::kAnd, DataType::Boolean(), {std::move(x), std::move(y)});
  }
  ExprPtr Or(ExprPtr x, ExprPtr y) {
    return exec::MakeSpecial(ExprKind::kOr, DataType::Boolean(), {std::move(x), std::move(y)});
  }
  std::vector<std::string> Factored(const ExprPtr& e) {
    std::vector<ExprPtr> out;
    FactoredConjuncts(e, &out);
    std::vector<std::string> s;
    for (const auto& x : out) s.push_back(x->ToString());
    return s;
  }
};

TEST_F(OrFactoringTest, SameExprIsStructuralAndEqualityIsCommutative) {
  EXPECT_TRUE(SameExpr(Call("=", Col(0), Col(2)), Call("=", Col(0), Col(2))));
  EXPECT_TRUE(SameExpr(Call("=", Col(0), Col(2)), Call("=", Col(2), Col(0))));
  EXPECT_FALSE(SameExpr(Call("<", Col(0), Col(2)), Call("<", Col(2), Col(0))));
  EXPECT_FALSE(SameExpr(Call("=", Col(0), Col(2)), Call("=", Col(1), Col(2))));
  EXPECT_FALSE(SameExpr(Call("=", Col(0), Int(1)), Call("=", Col(0), Int(2))));
  EXPECT_TRUE(SameExpr(Call("=", Col(0), Int(1)), Call("=", Col(0), Int(1))));
}

TEST_F(OrFactoringTest, CommonConjunctsComeOutOfEveryBranch) {
  // (a = c AND b = 1) OR (c = a AND d = 2) OR (a = c AND b = 3 AND d = 4)
  ExprPtr key = Call("=", Col(0), Col(2));
  ExprPtr e = Or(Or(And(key, Call("=", Col(1), Int(1))),
                    And(Call("=", Col(2), Col(0)), Call("=", Col(3), Int(2)))),
                 And(And(key, Call("=", Col(1), Int(3))), Call("=", Col(3), Int(4))));
  std::vector<std::string> f = Factored(e);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0], key->ToString());
  EXPECT_EQ(f[1], "(((b = 1) OR (d = 2)) OR ((b = 3) AND (d = 4)))");
}

TEST_F(OrFactoringTest, AbsorptionAndNothingCommon) {
  ExprPtr key = Call("=", Col(0), Col(2));
  // a = c OR (a = c AND b = 1) is a = c
  EXPECT_EQ(Factored(Or(key, And(key, Call("=", Col(1), Int(1))))),
            std::vector<std::string>{key->ToString()});
  // nothing common: the OR stays whole
  ExprPtr e = Or(Call("=", Col(0), Int(1)), Call("=", Col(1), Int(2)));
  EXPECT_EQ(Factored(e), std::vector<std::string>{e->ToString()});
  // plain conjuncts are flattened
  EXPECT_EQ(Factored(And(Call("=", Col(0), Int(1)), Call("=", Col(1), Int(2)))).size(), 2u);
}

TEST_F(OrFactoringTest, NondeterministicOrIsKept) {
  auto r = exec::BindScalarFunction("rand", {}, exec::BindContext{});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExprPtr rnd = Call("<", *r, exec::MakeConstant(Value::Double(0.5)));
  ExprPtr key = Call("=", Col(0), Col(2));
  ExprPtr e = Or(And(key, rnd), And(key, Call("=", Col(1), Int(1))));
  EXPECT_EQ(Factored(e), std::vector<std::string>{e->ToString()});
}

TEST_F(OrFactoringTest, SideDisjunctionTakesEachBranchsPartOfOneSide) {
  // (a = 1 AND c = 2) OR (a = 3 AND b = 4 AND d = 5)
  ExprPtr e =
      Or(And(Call("=", Col(0), Int(1)), Call("=", Col(2), Int(2))),
         And(And(Call("=", Col(0), Int(3)), Call("=", Col(1), Int(4))), Call("=", Col(3), Int(5))));
  ExprPtr left = SideDisjunction(e, 0, 2);
  ASSERT_NE(left, nullptr);
  EXPECT_EQ(left->ToString(), "((a = 1) OR ((a = 3) AND (b = 4)))");
  ExprPtr right = SideDisjunction(e, 2, 4);
  ASSERT_NE(right, nullptr);
  EXPECT_EQ(right->ToString(), "((c = 2) OR (d = 5))");
  // a branch without a part on the side: nothing implied there
  ExprPtr f = Or(Call("=", Col(0), Int(1)), Call("=", Col(2), Int(2)));
  EXPECT_EQ(SideDisjunction(f, 0, 2), nullptr);
  EXPECT_EQ(SideDisjunction(Call("=", Col(0), Int(1)), 0, 2), nullptr);  // not an OR
}

}  // namespace
}  // namespace silt::planner
