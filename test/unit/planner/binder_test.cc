// The binder on its own: name resolution (case-insensitive, qualified, ambiguous), implicit
// coercion of join keys and IN lists, and Spark's error classes for what cannot be bound.
#include <algorithm>

#include "unit/planner/planner_test_util.h"

namespace silt::planner {
namespace {

class BinderTest : public PlannerTest {
 protected:
  void SetUp() override {
    PlannerTest::SetUp();
    Run("CREATE TABLE t (id INT, name STRING, price DECIMAL(10,2)) USING delta");
    Run("INSERT INTO t VALUES (1, 'a', 1.50), (2, 'b', 2.25)");
    Run("CREATE TABLE big (k BIGINT, v DOUBLE) USING delta");
    Run("INSERT INTO big VALUES (1, 0.5), (3, 1.5)");
  }
};

TEST_F(BinderTest, ResolvesNamesCaseInsensitivelyWithAndWithoutQualifier) {
  auto plan =
      Bind("SELECT NAME, T.Id, x.price FROM t AS x JOIN big ON x.id = big.k WHERE Big.V > 0");
  // `T.Id` names no table in scope (t is aliased x), so that fails; the alias resolves.
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().error_class(), "UNRESOLVED_COLUMN.WITH_SUGGESTION")
      << plan.status().ToString();

  plan = Bind("SELECT NAME, X.Id, x.price FROM t AS x JOIN big ON x.id = big.k WHERE Big.V > 0");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const PlanPtr& p = *plan;
  ASSERT_EQ(p->columns.size(), 3u) << ExplainPlan(*p);
  EXPECT_EQ(p->columns[0].type->id(), TypeId::kString);
  EXPECT_EQ(p->columns[1].type->id(), TypeId::kInt32);
  EXPECT_EQ(p->columns[2].type->ToString(), "decimal(10,2)");
  // The projection reads columns 1, 0, 2 of the join's left side (t: id, name, price).
  auto projects = Find(p, LogicalKind::kProject);
  ASSERT_FALSE(projects.empty()) << ExplainPlan(*p);
  const LogicalNode* top = projects.front();
  ASSERT_EQ(top->exprs.size(), 3u);
  EXPECT_EQ(top->exprs[0]->kind, exec::ExprKind::kColumn);
  EXPECT_EQ(top->exprs[0]->column, 1);
  EXPECT_EQ(top->exprs[1]->column, 0);
  EXPECT_EQ(top->exprs[2]->column, 2);
}

TEST_F(BinderTest, UnknownColumnSuggestsTheColumnsInScope) {
  auto plan = Bind("SELECT nme FROM t");
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().error_class(), "UNRESOLVED_COLUMN.WITH_SUGGESTION");
  std::string msg = plan.status().ToString();
  EXPECT_NE(msg.find("`nme`"), std::string::npos) << msg;
  EXPECT_NE(msg.find("`t`.`name`"), std::string::npos) << msg;
}

TEST_F(BinderTest, SameColumnFromTwoSidesIsAmbiguous) {
  auto plan = Bind("SELECT id FROM t a JOIN t b ON a.id = b.id");
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().error_class(), "AMBIGUOUS_REFERENCE") << plan.status().ToString();
  EXPECT_TRUE(Bind("SELECT a.id FROM t a JOIN t b ON a.id = b.id").ok());
}

TEST_F(BinderTest, MissingTableAndAggregationErrors) {
  auto plan = Bind("SELECT * FROM nope");
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().error_class(), "TABLE_OR_VIEW_NOT_FOUND") << plan.status().ToString();

  // Without GROUP BY: Spark's MISSING_GROUP_BY; with it, a column outside the keys is
  // MISSING_AGGREGATION.
  plan = Bind("SELECT name, count(*) FROM t");
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().error_class(), "MISSING_GROUP_BY") << plan.status().ToString();

  plan = Bind("SELECT name, count(*) FROM t GROUP BY id");
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().error_class(), "MISSING_AGGREGATION") << plan.status().ToString();

  plan = Bind("SELECT name, count(*) FROM t GROUP BY name");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(Find(*plan, LogicalKind::kAggregate).size(), 1u);
}

TEST_F(BinderTest, JoinKeysOfDifferentIntegerTypesMeetAtTheWiderType) {
  auto plan = Bind("SELECT * FROM t JOIN big ON t.id = big.k");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  auto joins = Find(*plan, LogicalKind::kJoin);
  ASSERT_EQ(joins.size(), 1u) << ExplainPlan(**plan);
  const LogicalNode* j = joins[0];
  ASSERT_EQ(j->left_keys.size(), 1u) << ExplainPlan(**plan);
  ASSERT_EQ(j->right_keys.size(), 1u);
  // INT = BIGINT: the INT side is cast up to BIGINT, the BIGINT side read as is.
  EXPECT_EQ(j->left_keys[0]->type->id(), TypeId::kInt64);
  EXPECT_EQ(j->left_keys[0]->kind, exec::ExprKind::kCast) << j->left_keys[0]->ToString();
  EXPECT_EQ(j->right_keys[0]->type->id(), TypeId::kInt64);
  EXPECT_EQ(j->right_keys[0]->kind, exec::ExprKind::kColumn) << j->right_keys[0]->ToString();
  EXPECT_EQ(j->right_keys[0]->column, 0);  // big.k, numbered within the right side
}

TEST_F(BinderTest, InListValuesAreCoercedToOneCommonType) {
  auto plan = Bind("SELECT id FROM t WHERE id IN (1, 2.5)");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  auto filters = Find(*plan, LogicalKind::kFilter);
  ASSERT_EQ(filters.size(), 1u) << ExplainPlan(**plan);
  const exec::ExprPtr& in = filters[0]->predicate;
  ASSERT_EQ(in->kind, exec::ExprKind::kIn) << in->ToString();
  ASSERT_EQ(in->children.size(), 3u);
  // INT and DECIMAL(2,1) meet at a decimal wide enough for both: DECIMAL(11,1).
  for (const auto& c : in->children)
    EXPECT_EQ(c->type->ToString(), "decimal(11,1)") << in->ToString();
  EXPECT_EQ(in->children[0]->kind, exec::ExprKind::kCast) << in->ToString();
}

TEST_F(BinderTest, BindExpressionOverGivenColumns) {
  std::vector<OutputColumn> cols = {{"a", DataType::Int32(), true, "s"},
                                    {"b", DataType::String(), true, "s"}};
  auto e = sql::ParseExpression("S.A + 1 > 2 AND b IS NOT NULL");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  auto bound = binder().BindExpression(**e, cols);
  ASSERT_TRUE(bound.ok()) << bound.status().ToString();
  EXPECT_EQ((*bound)->type->id(), TypeId::kBoolean);
  std::vector<int> read;
  exec::CollectColumns(**bound, &read);
  std::sort(read.begin(), read.end());
  read.erase(std::unique(read.begin(), read.end()), read.end());
  EXPECT_EQ(read, (std::vector<int>{0, 1}));

  auto bad = sql::ParseExpression("c > 1");
  ASSERT_TRUE(bad.ok());
  auto unbound = binder().BindExpression(**bad, cols);
  ASSERT_FALSE(unbound.ok());
  EXPECT_EQ(unbound.status().error_class(), "UNRESOLVED_COLUMN.WITH_SUGGESTION");
}

TEST_F(BinderTest, InAndExistsSubqueriesInWhereBecomeSemiAndAntiJoins) {
  auto plan = Bind("SELECT name FROM t WHERE id IN (SELECT k FROM big)");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  auto joins = Find(*plan, LogicalKind::kJoin);
  ASSERT_EQ(joins.size(), 1u) << ExplainPlan(**plan);
  EXPECT_EQ(joins[0]->join, JoinKind::kSemi);
  ASSERT_EQ(joins[0]->left_keys.size(), 1u) << ExplainPlan(**plan);
  EXPECT_EQ(joins[0]->left_keys[0]->type->id(), TypeId::kInt64);  // INT id compared as BIGINT
  EXPECT_TRUE(Find(*plan, LogicalKind::kFilter).empty()) << ExplainPlan(**plan);

  plan = Bind("SELECT name FROM t WHERE NOT EXISTS (SELECT 1 FROM big WHERE big.k = t.id)");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  joins = Find(*plan, LogicalKind::kJoin);
  ASSERT_EQ(joins.size(), 1u) << ExplainPlan(**plan);
  EXPECT_EQ(joins[0]->join, JoinKind::kAnti);
  EXPECT_EQ(joins[0]->left_keys.size(), 1u) << ExplainPlan(**plan);
}

}  // namespace
}  // namespace silt::planner
