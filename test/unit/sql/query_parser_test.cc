// Queries: SELECT blocks, FROM items, joins, set operations, organization clauses.
#include <gtest/gtest.h>

#include "sql/parser.h"
#include "unit/sql/parser_test_util.h"

namespace silt::sql {
namespace {

using testing::ParseError;
using testing::ParseQuery;

TEST(QueryParser, SelectListAndAliases) {
  auto q = ParseQuery("SELECT a, b AS x, c y, 1 + 1, `d e` AS `f g`, * FROM t");
  ASSERT_TRUE(q);
  ASSERT_EQ(q->select.size(), 6u);
  EXPECT_EQ(q->select[0].alias, "");
  EXPECT_EQ(q->select[1].alias, "x");
  EXPECT_EQ(q->select[2].alias, "y");
  EXPECT_EQ(q->select[3].expr->ToString(), "(1 + 1)");
  EXPECT_EQ(q->select[4].expr->names, std::vector<std::string>{"d e"});
  EXPECT_EQ(q->select[4].alias, "f g");
  EXPECT_EQ(q->select[5].expr->type, ExprType::kStar);
  ASSERT_EQ(q->from.size(), 1u);
  EXPECT_EQ(q->from[0]->name.parts, std::vector<std::string>{"t"});
  EXPECT_FALSE(q->distinct);
  EXPECT_TRUE(ParseQuery("SELECT DISTINCT a FROM t")->distinct);
  EXPECT_FALSE(ParseQuery("SELECT ALL a FROM t")->distinct);
  // Keywords as aliases with AS; non-reserved ones also without.
  auto k = ParseQuery("SELECT 1 AS from, 2 AS select, 3 year, 4 comment");
  EXPECT_EQ(k->select[0].alias, "from");
  EXPECT_EQ(k->select[1].alias, "select");
  EXPECT_EQ(k->select[2].alias, "year");
  EXPECT_EQ(k->select[3].alias, "comment");
  auto noFrom = ParseQuery("SELECT 1");
  EXPECT_TRUE(noFrom->from.empty());
}

TEST(QueryParser, WhereGroupHavingOrderLimit) {
  auto q = ParseQuery(
      "SELECT a, count(*) FROM t WHERE b > 1 GROUP BY a HAVING count(*) > 2 "
      "ORDER BY a DESC NULLS FIRST, 2 LIMIT 10 OFFSET 5");
  ASSERT_TRUE(q);
  ASSERT_TRUE(q->where);
  EXPECT_EQ(q->where->ToString(), "(b > 1)");
  ASSERT_EQ(q->group_by.size(), 1u);
  ASSERT_TRUE(q->having);
  ASSERT_EQ(q->order_by.size(), 2u);
  EXPECT_FALSE(q->order_by[0].ascending);
  EXPECT_EQ(q->order_by[0].nulls_first, std::optional<bool>(true));
  EXPECT_TRUE(q->order_by[1].ascending);
  EXPECT_FALSE(q->order_by[1].nulls_first.has_value());
  EXPECT_EQ(q->order_by[1].expr->literal.integer(), 2);  // ordinals stay literals
  EXPECT_EQ(q->limit->literal.integer(), 10);
  EXPECT_EQ(q->offset->literal.integer(), 5);
  auto all = ParseQuery("SELECT a FROM t LIMIT ALL");
  EXPECT_FALSE(all->limit);
  auto sort = ParseQuery("SELECT a FROM t SORT BY a");
  EXPECT_EQ(sort->order_by.size(), 1u);
  auto gb = ParseQuery("SELECT a, b FROM t GROUP BY 1, 2");
  EXPECT_EQ(gb->group_by[0]->type, ExprType::kLiteral);
}

TEST(QueryParser, GroupingVariants) {
  auto all = ParseQuery("SELECT a, sum(b) FROM t GROUP BY ALL");
  EXPECT_TRUE(all->group_by_all);
  // ROLLUP / CUBE items become their grouping sets (Spark's GroupingAnalytics).
  auto roll = ParseQuery("SELECT a, b FROM t GROUP BY ROLLUP(a, b)");
  EXPECT_EQ(roll->grouping, GroupingKind::kGroupingSets);
  EXPECT_EQ(roll->group_by.size(), 2u);
  ASSERT_EQ(roll->grouping_sets.size(), 3u);
  EXPECT_EQ(roll->grouping_sets[0].size(), 2u);
  EXPECT_EQ(roll->grouping_sets[2].size(), 0u);
  auto cube = ParseQuery("SELECT a, b FROM t GROUP BY CUBE (a, b)");
  EXPECT_EQ(cube->grouping, GroupingKind::kGroupingSets);
  ASSERT_EQ(cube->grouping_sets.size(), 4u);
  EXPECT_EQ(cube->grouping_sets[1][0]->ToString(), "a");  // (a, b), (a), (b), ()
  EXPECT_EQ(cube->grouping_sets[2][0]->ToString(), "b");
  // Items multiply: a × ((b, c), (b)) and a nested GROUPING SETS inside GROUPING SETS.
  auto mixed = ParseQuery("SELECT a FROM t GROUP BY a, ROLLUP(b, c)");
  EXPECT_EQ(mixed->group_by.size(), 3u);
  ASSERT_EQ(mixed->grouping_sets.size(), 3u);
  EXPECT_EQ(mixed->grouping_sets[0].size(), 3u);
  EXPECT_EQ(mixed->grouping_sets[2].size(), 1u);
  auto nested = ParseQuery("SELECT a FROM t GROUP BY GROUPING SETS (ROLLUP(a), (b), CUBE(a, b))");
  EXPECT_EQ(nested->grouping_sets.size(), 7u);
  // Tuples inside ROLLUP, and a parenthesised expression that goes on.
  auto tuple = ParseQuery("SELECT 1 FROM t GROUP BY ROLLUP((a, b), (c + 1) * 2)");
  ASSERT_EQ(tuple->grouping_sets.size(), 3u);
  EXPECT_EQ(tuple->grouping_sets[0].size(), 3u);
  EXPECT_EQ(tuple->grouping_sets[1].size(), 2u);
  auto with = ParseQuery("SELECT a, b FROM t GROUP BY a, b WITH ROLLUP");
  EXPECT_EQ(with->grouping, GroupingKind::kRollup);
  auto sets = ParseQuery("SELECT a, b FROM t GROUP BY GROUPING SETS ((a, b), (a), ())");
  EXPECT_EQ(sets->grouping, GroupingKind::kGroupingSets);
  ASSERT_EQ(sets->grouping_sets.size(), 3u);
  EXPECT_EQ(sets->grouping_sets[0].size(), 2u);
  EXPECT_EQ(sets->grouping_sets[1].size(), 1u);
  EXPECT_EQ(sets->grouping_sets[2].size(), 0u);
  // A column named "all" still groups by it when written as a call-free list item.
  auto col = ParseQuery("SELECT a FROM t GROUP BY all, b");
  EXPECT_FALSE(col->group_by_all);
  EXPECT_EQ(col->group_by.size(), 2u);
}

TEST(QueryParser, QualifyAndWindowClause) {
  auto q = ParseQuery(
      "SELECT a, rank() OVER w AS r FROM t WINDOW w AS (PARTITION BY b ORDER BY c) "
      "QUALIFY r = 1");
  ASSERT_TRUE(q);
  ASSERT_EQ(q->windows.size(), 1u);
  EXPECT_EQ(q->windows[0].first, "w");
  EXPECT_EQ(q->windows[0].second.partition_by.size(), 1u);
  ASSERT_TRUE(q->qualify);
  auto q2 = ParseQuery("SELECT a FROM t QUALIFY row_number() OVER (ORDER BY a) = 1");
  ASSERT_TRUE(q2->qualify);
  auto q3 = ParseQuery("SELECT sum(a) OVER w FROM t WINDOW w AS (ORDER BY a) ORDER BY 1");
  EXPECT_EQ(q3->windows.size(), 1u);
  EXPECT_EQ(q3->order_by.size(), 1u);
}

TEST(QueryParser, Joins) {
  auto q = ParseQuery(
      "SELECT * FROM a JOIN b ON a.x = b.x LEFT OUTER JOIN c USING (y, z) "
      "CROSS JOIN d NATURAL JOIN e RIGHT JOIN f ON true FULL OUTER JOIN g ON 1 = 1");
  ASSERT_TRUE(q);
  ASSERT_EQ(q->from.size(), 1u);
  const TableRef* r = q->from[0].get();
  // Left-deep: ((((((a ⋈ b) ⟕ c) × d) ⋈n e) ⟖ f) ⟗ g)
  ASSERT_EQ(r->kind, TableRef::Kind::kJoin);
  EXPECT_EQ(r->join_type, JoinType::kFull);
  r = r->left.get();
  EXPECT_EQ(r->join_type, JoinType::kRight);
  r = r->left.get();
  EXPECT_TRUE(r->natural);
  EXPECT_EQ(r->join_type, JoinType::kInner);
  r = r->left.get();
  EXPECT_EQ(r->join_type, JoinType::kCross);
  r = r->left.get();
  EXPECT_EQ(r->join_type, JoinType::kLeft);
  EXPECT_EQ(r->using_columns, (std::vector<std::string>{"y", "z"}));
  r = r->left.get();
  EXPECT_EQ(r->join_type, JoinType::kInner);
  ASSERT_TRUE(r->join_condition);
  EXPECT_EQ(r->left->name.parts, std::vector<std::string>{"a"});
  auto semi = ParseQuery("SELECT * FROM a LEFT SEMI JOIN b ON a.x = b.x SEMI JOIN c ON true");
  EXPECT_EQ(semi->from[0]->join_type, JoinType::kLeftSemi);
  EXPECT_EQ(semi->from[0]->left->join_type, JoinType::kLeftSemi);
  auto anti = ParseQuery("SELECT * FROM a LEFT ANTI JOIN b ON a.x = b.x ANTI JOIN c ON true");
  EXPECT_EQ(anti->from[0]->join_type, JoinType::kLeftAnti);
  EXPECT_EQ(anti->from[0]->left->join_type, JoinType::kLeftAnti);
  auto inner = ParseQuery("SELECT * FROM a INNER JOIN b ON a.x = b.x");
  EXPECT_EQ(inner->from[0]->join_type, JoinType::kInner);
  auto comma = ParseQuery("SELECT * FROM a, b x, (SELECT 1) s");
  ASSERT_EQ(comma->from.size(), 3u);
  EXPECT_EQ(comma->from[1]->alias, "x");
  EXPECT_EQ(comma->from[2]->kind, TableRef::Kind::kSubquery);
  EXPECT_EQ(comma->from[2]->alias, "s");
  auto lat = ParseQuery("SELECT * FROM a, LATERAL (SELECT a.x) l");
  EXPECT_TRUE(lat->from[1]->lateral);
  auto paren = ParseQuery("SELECT * FROM (a JOIN b ON a.x = b.x) j");
  EXPECT_EQ(paren->from[0]->kind, TableRef::Kind::kJoin);
  EXPECT_EQ(paren->from[0]->alias, "j");
}

TEST(QueryParser, TableRefKinds) {
  auto sub = ParseQuery("SELECT * FROM (SELECT 1 AS a) AS s (x)");
  EXPECT_EQ(sub->from[0]->kind, TableRef::Kind::kSubquery);
  EXPECT_EQ(sub->from[0]->alias, "s");
  EXPECT_EQ(sub->from[0]->column_aliases, std::vector<std::string>{"x"});
  auto vals = ParseQuery("SELECT * FROM VALUES (1, 'a'), (2, 'b') AS t(a, b)");
  const TableRef& v = *vals->from[0];
  EXPECT_EQ(v.kind, TableRef::Kind::kValues);
  ASSERT_EQ(v.values.size(), 2u);
  EXPECT_EQ(v.values[1][1]->literal.str(), "b");
  EXPECT_EQ(v.alias, "t");
  EXPECT_EQ(v.column_aliases, (std::vector<std::string>{"a", "b"}));
  auto pvals = ParseQuery("SELECT * FROM (VALUES (1), (2)) t(a)");
  EXPECT_EQ(pvals->from[0]->kind, TableRef::Kind::kSubquery);
  auto bare = ParseQuery("VALUES (1, 2), (3, 4)");
  ASSERT_EQ(bare->from.size(), 1u);
  EXPECT_EQ(bare->from[0]->kind, TableRef::Kind::kValues);
  EXPECT_EQ(bare->select[0].expr->type, ExprType::kStar);
  auto single = ParseQuery("VALUES 1, 2, 3");
  EXPECT_EQ(single->from[0]->values.size(), 3u);
  auto tvf = ParseQuery("SELECT * FROM range(10) r");
  EXPECT_EQ(tvf->from[0]->kind, TableRef::Kind::kFunction);
  EXPECT_EQ(tvf->from[0]->function_name, "range");
  EXPECT_EQ(tvf->from[0]->function_args.size(), 1u);
  EXPECT_EQ(tvf->from[0]->alias, "r");
  auto tc = ParseQuery("SELECT * FROM table_changes('t', 1, 2)");
  EXPECT_EQ(tc->from[0]->function_args.size(), 3u);
  auto qn = ParseQuery("SELECT * FROM cat.db.t AS x");
  EXPECT_EQ(qn->from[0]->name.parts, (std::vector<std::string>{"cat", "db", "t"}));
  EXPECT_EQ(qn->from[0]->name.ToString(), "cat.db.t");
  auto path = ParseQuery("SELECT * FROM delta.`/data/t` p");
  EXPECT_EQ(path->from[0]->name.path_format, "delta");
  EXPECT_EQ(path->from[0]->name.path, "/data/t");
  EXPECT_TRUE(path->from[0]->name.is_path());
  EXPECT_EQ(path->from[0]->name.ToString(), "delta.`/data/t`");
  EXPECT_EQ(path->from[0]->alias, "p");
  auto pq = ParseQuery("SELECT * FROM parquet.`/f.parquet`");
  EXPECT_EQ(pq->from[0]->name.path_format, "parquet");
  auto quoted = ParseQuery("SELECT * FROM `my db`.`my table`");
  EXPECT_EQ(quoted->from[0]->name.ToString(), "`my db`.`my table`");
  auto table = ParseQuery("TABLE db.t");
  EXPECT_EQ(table->from[0]->name.parts, (std::vector<std::string>{"db", "t"}));
  auto from_first = ParseQuery("FROM t SELECT a WHERE a > 1");
  EXPECT_EQ(from_first->from.size(), 1u);
  ASSERT_TRUE(from_first->where);
}

TEST(QueryParser, TimeTravel) {
  auto v = ParseQuery("SELECT * FROM t VERSION AS OF 3");
  ASSERT_TRUE(v->from[0]->time_travel);
  EXPECT_EQ(v->from[0]->time_travel->version, std::optional<int64_t>(3));
  auto ts = ParseQuery("SELECT * FROM t TIMESTAMP AS OF '2024-01-01' x");
  ASSERT_TRUE(ts->from[0]->time_travel);
  EXPECT_EQ(ts->from[0]->time_travel->timestamp->literal.str(), "2024-01-01");
  EXPECT_EQ(ts->from[0]->alias, "x");
  auto sv = ParseQuery("SELECT * FROM t FOR SYSTEM_VERSION AS OF 7");
  EXPECT_EQ(sv->from[0]->time_travel->version, std::optional<int64_t>(7));
  auto st =
      ParseQuery("SELECT * FROM t FOR SYSTEM_TIME AS OF current_timestamp() - INTERVAL 1 DAY");
  EXPECT_EQ(st->from[0]->time_travel->timestamp->type, ExprType::kBinary);
  auto at = ParseQuery("SELECT * FROM t@v123");
  EXPECT_EQ(at->from[0]->time_travel->version, std::optional<int64_t>(123));
  auto at_ts = ParseQuery("SELECT * FROM db.t@20240101000000000");
  ASSERT_TRUE(at_ts->from[0]->time_travel);
  EXPECT_EQ(at_ts->from[0]->time_travel->timestamp_text, "20240101000000000");
  EXPECT_EQ(at_ts->from[0]->time_travel->timestamp->literal.type()->id(), TypeId::kTimestamp);
  auto path = ParseQuery("SELECT * FROM delta.`/p` VERSION AS OF 0");
  EXPECT_EQ(path->from[0]->time_travel->version, std::optional<int64_t>(0));
  EXPECT_EQ(ParseError("SELECT * FROM t VERSION AS OF 'abc'").error_class(),
            "DELTA_VERSION_INVALID");
  EXPECT_FALSE(ParseStatement("SELECT * FROM t@x").ok());
}

TEST(QueryParser, SetOperationsPrecedence) {
  auto q = ParseQuery("SELECT 1 UNION SELECT 2 INTERSECT SELECT 3");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->set_op, SetOp::kUnion);
  EXPECT_FALSE(q->set_all);
  EXPECT_EQ(q->right->set_op, SetOp::kIntersect);
  auto q2 = ParseQuery("SELECT 1 INTERSECT SELECT 2 UNION ALL SELECT 3");
  EXPECT_EQ(q2->set_op, SetOp::kUnion);
  EXPECT_TRUE(q2->set_all);
  EXPECT_EQ(q2->left->set_op, SetOp::kIntersect);
  auto q3 = ParseQuery("SELECT 1 EXCEPT SELECT 2 MINUS SELECT 3");
  EXPECT_EQ(q3->set_op, SetOp::kExcept);
  EXPECT_EQ(q3->left->set_op, SetOp::kExcept);
  auto q4 = ParseQuery("SELECT 1 UNION DISTINCT SELECT 2 EXCEPT ALL SELECT 3");
  EXPECT_EQ(q4->set_op, SetOp::kExcept);
  EXPECT_TRUE(q4->set_all);
  EXPECT_FALSE(q4->left->set_all);
  auto paren = ParseQuery("SELECT 1 UNION (SELECT 2 UNION SELECT 3)");
  EXPECT_EQ(paren->right->set_op, SetOp::kUnion);
  auto ordered = ParseQuery("SELECT a FROM t UNION SELECT a FROM u ORDER BY a LIMIT 3");
  EXPECT_EQ(ordered->set_op, SetOp::kUnion);
  EXPECT_EQ(ordered->order_by.size(), 1u);
  ASSERT_TRUE(ordered->limit);
  EXPECT_TRUE(ordered->left->order_by.empty());
  auto inner =
      ParseQuery("(SELECT a FROM t ORDER BY a LIMIT 1) UNION ALL (SELECT b FROM u LIMIT 2)");
  EXPECT_EQ(inner->left->order_by.size(), 1u);
  ASSERT_TRUE(inner->right->limit);
  EXPECT_TRUE(ParseQuery("SELECT a FROM t UNION ALL BY NAME SELECT a FROM u")->by_name);
  // An outer ORDER BY on a parenthesised query that has its own LIMIT wraps it.
  auto wrapped = ParseQuery("(SELECT a FROM t LIMIT 5) ORDER BY a");
  ASSERT_EQ(wrapped->from.size(), 1u);
  EXPECT_EQ(wrapped->from[0]->kind, TableRef::Kind::kSubquery);
  EXPECT_EQ(wrapped->order_by.size(), 1u);
}

TEST(QueryParser, CommonTableExpressions) {
  auto q = ParseQuery("WITH a AS (SELECT 1 AS x), b (y) AS (SELECT x FROM a) SELECT * FROM b");
  ASSERT_TRUE(q);
  ASSERT_EQ(q->ctes.size(), 2u);
  EXPECT_EQ(q->ctes[0].name, "a");
  EXPECT_EQ(q->ctes[1].column_aliases, std::vector<std::string>{"y"});
  ASSERT_TRUE(q->ctes[1].query);
  auto noas = ParseQuery("WITH a (SELECT 1) SELECT * FROM a");
  EXPECT_EQ(noas->ctes.size(), 1u);
  auto setop = ParseQuery("WITH a AS (SELECT 1) SELECT * FROM a UNION ALL SELECT * FROM a");
  EXPECT_EQ(setop->ctes.size(), 1u);
  EXPECT_EQ(setop->set_op, SetOp::kUnion);
  auto nested = ParseQuery("WITH a AS (WITH b AS (SELECT 1) SELECT * FROM b) SELECT * FROM a");
  EXPECT_EQ(nested->ctes[0].query->ctes.size(), 1u);
}

TEST(QueryParser, HintsAndComments) {
  auto q = ParseQuery("SELECT /*+ BROADCAST(b) */ a -- trailing\nFROM /* c /* nested */ */ t");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->select.size(), 1u);
  EXPECT_EQ(q->from[0]->name.parts, std::vector<std::string>{"t"});
}

TEST(QueryParser, LateralViewsAndGeneratorAliases) {
  auto q = ParseQuery(
      "SELECT x, p FROM t LATERAL VIEW explode(a) e AS x LATERAL VIEW OUTER posexplode(b) f p, y "
      "WHERE x > 1");
  ASSERT_TRUE(q);
  ASSERT_EQ(q->lateral_views.size(), 2u);
  EXPECT_FALSE(q->lateral_views[0].outer);
  EXPECT_EQ(q->lateral_views[0].table_alias, "e");
  EXPECT_EQ(q->lateral_views[0].column_aliases, std::vector<std::string>{"x"});
  EXPECT_TRUE(q->lateral_views[1].outer);
  EXPECT_EQ(q->lateral_views[1].column_aliases, (std::vector<std::string>{"p", "y"}));
  EXPECT_TRUE(q->where);
  auto g = ParseQuery("SELECT posexplode(a) AS (p, v), b FROM t");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->select[0].aliases, (std::vector<std::string>{"p", "v"}));
  EXPECT_EQ(ParseError("SELECT * FROM t LATERAL VIEW e AS x").error_class(), "PARSE_SYNTAX_ERROR");
}

TEST(QueryParser, NotImplementedForms) {
  EXPECT_EQ(ParseError("SELECT * FROM t TABLESAMPLE (10 PERCENT)").code(),
            StatusCode::kNotImplemented);
}

TEST(QueryParser, SyntaxErrorsWithPosition) {
  Status s = ParseError("SELECT a FORM t");
  EXPECT_EQ(s.error_class(), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(std::string(s.message()),
            "Syntax error at or near 'FORM'. (line 1, column 10)\n"
            "== SQL ==\n"
            "SELECT a FORM t\n"
            "---------^^^");
  Status s2 = ParseError("SELECT a\nFROM t\nWHERE a = = 1\nORDER BY a");
  EXPECT_EQ(std::string(s2.message()),
            "Syntax error at or near '='. (line 3, column 11)\n"
            "== SQL ==\n"
            "SELECT a\n"
            "FROM t\n"
            "WHERE a = = 1\n"
            "----------^^^\n"
            "ORDER BY a");
  Status s3 = ParseError("SELECT (1");
  EXPECT_NE(std::string(s3.message()).find("Syntax error at or near end of input"),
            std::string::npos);
  EXPECT_NE(std::string(s3.message()).find("(line 1, column 10)"), std::string::npos);
  Status s4 = ParseError("SELEC 1");
  EXPECT_NE(std::string(s4.message()).find("'SELEC'. (line 1, column 1)"), std::string::npos);
  Status s5 = ParseError("SELECT * FROM t WHERE");
  EXPECT_EQ(s5.error_class(), "PARSE_SYNTAX_ERROR");
  Status s6 = ParseError("SELECT 'é', b c d FROM t");
  EXPECT_NE(std::string(s6.message()).find("'c'. (line 1, column 15)"), std::string::npos);
  EXPECT_EQ(ParseError("SELECT 1 /* open").error_class(), "UNCLOSED_BRACKETED_COMMENT");
  EXPECT_FALSE(ParseStatement("SELECT * FROM").ok());
  EXPECT_FALSE(ParseStatement("SELECT a FROM t JOIN").ok());
  EXPECT_FALSE(ParseStatement("SELECT a FROM t GROUP a").ok());
  EXPECT_FALSE(ParseStatement("SELECT 1 UNION").ok());
  EXPECT_FALSE(ParseStatement("").ok());
}

TEST(QueryParser, DeepNestingIsAnError) {
  std::string q;
  for (int i = 0; i < 500; ++i) q += "SELECT * FROM (";
  q += "SELECT 1";
  for (int i = 0; i < 500; ++i) q += ")";
  EXPECT_FALSE(ParseStatement(q).ok());
  std::string u = "SELECT 1";
  for (int i = 0; i < 3000; ++i) u += " UNION ALL SELECT 1";
  EXPECT_FALSE(ParseStatement(u).ok());
  std::string ok = "SELECT 1";
  for (int i = 0; i < 300; ++i) ok += " UNION ALL SELECT 1";
  EXPECT_TRUE(ParseStatement(ok).ok());
}

}  // namespace
}  // namespace silt::sql
