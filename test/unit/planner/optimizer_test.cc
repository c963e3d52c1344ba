// The optimizer on bound plans: predicate pushdown into scans, partition pruning and min/max
// file skipping (PruneFiles' counters), and the greedy order of inner-join chains.
#include <algorithm>

#include "planner/join_order.h"
#include "unit/planner/planner_test_util.h"

namespace silt::planner {
namespace {

class OptimizerTest : public PlannerTest {
 protected:
  const LogicalNode* OnlyScan(const PlanPtr& plan) {
    auto scans = Find(plan, LogicalKind::kScan);
    EXPECT_EQ(scans.size(), 1u) << ExplainPlan(*plan);
    return scans.empty() ? nullptr : scans[0];
  }
};

TEST_F(OptimizerTest, FiltersArePushedIntoTheScanAndOnlyNeededColumnsRead) {
  Run("CREATE TABLE t (id INT, name STRING, extra STRING) USING delta");
  Run("INSERT INTO t VALUES (1, 'a', 'x'), (2, 'b', 'y')");
  auto bound = Bind("SELECT name FROM (SELECT * FROM t) WHERE id > 1 AND rand() < 2");
  ASSERT_TRUE(bound.ok()) << bound.status().ToString();
  EXPECT_TRUE(OnlyScan(*bound)->pushed_filters.empty());

  auto plan = BindAndOptimize("SELECT name FROM (SELECT * FROM t) WHERE id > 1 AND rand() < 2");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const LogicalNode* scan = OnlyScan(*plan);
  ASSERT_NE(scan, nullptr);
  // The deterministic conjunct reaches the scan; rand() stays above it in a Filter.
  ASSERT_EQ(scan->pushed_filters.size(), 1u) << ExplainPlan(**plan);
  EXPECT_NE(scan->pushed_filters[0]->ToString().find("> 1"), std::string::npos)
      << scan->pushed_filters[0]->ToString();
  auto filters = Find(*plan, LogicalKind::kFilter);
  ASSERT_FALSE(filters.empty()) << ExplainPlan(**plan);
  EXPECT_FALSE(Deterministic(filters[0]->predicate));
  // Projection pruning: `extra` is not read.
  EXPECT_EQ(scan->scan_columns, (std::vector<std::string>{"id", "name"})) << ExplainPlan(**plan);
}

TEST_F(OptimizerTest, PartitionPruningKeepsTheMatchingPartitionsFiles) {
  Run("CREATE TABLE p (id INT, part STRING) USING delta PARTITIONED BY (part)");
  Run("INSERT INTO p VALUES (1, 'a'), (2, 'b'), (3, 'c')");
  Run("INSERT INTO p VALUES (4, 'b')");
  auto plan = BindAndOptimize("SELECT id FROM p WHERE part = 'b'");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const LogicalNode* scan = OnlyScan(*plan);
  ASSERT_NE(scan, nullptr);
  EXPECT_EQ(scan->files_total, 4);
  EXPECT_EQ(scan->files_after_partition_pruning, 2);
  EXPECT_EQ(scan->files_after_stats_pruning, 2);
  ASSERT_TRUE(scan->pruned_files.has_value());
  ASSERT_EQ(scan->pruned_files->size(), 2u);
  for (const delta::AddFile* f : *scan->pruned_files) {
    const std::optional<std::string>* v = f->partition_values.Find("part");
    ASSERT_NE(v, nullptr) << f->path;
    EXPECT_EQ(*v, std::optional<std::string>("b")) << f->path;
  }
}

TEST_F(OptimizerTest, MinMaxStatisticsSkipFilesUnlessDisabled) {
  Run("CREATE TABLE s (id INT, v STRING) USING delta");
  Run("INSERT INTO s VALUES (1, 'a'), (10, 'b')");
  Run("INSERT INTO s VALUES (11, 'c'), (20, 'd')");
  Run("INSERT INTO s VALUES (21, 'e'), (30, 'f')");
  auto plan = BindAndOptimize("SELECT v FROM s WHERE id > 25");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const LogicalNode* scan = OnlyScan(*plan);
  ASSERT_NE(scan, nullptr);
  EXPECT_EQ(scan->files_total, 3);
  EXPECT_EQ(scan->files_after_partition_pruning, 3);
  EXPECT_EQ(scan->files_after_stats_pruning, 1);
  ASSERT_TRUE(scan->pruned_files.has_value());
  EXPECT_EQ(scan->pruned_files->size(), 1u);

  // spark.databricks.delta.stats.skipping=false: every file is read.
  plan = BindAndOptimize("SELECT v FROM s WHERE id > 25", /*stats_skipping=*/false);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  scan = OnlyScan(*plan);
  ASSERT_NE(scan, nullptr);
  EXPECT_EQ(scan->files_after_stats_pruning, 3);
  EXPECT_FALSE(scan->pruned_files.has_value() && scan->pruned_files->size() != 3u);
}

TEST_F(OptimizerTest, PruneFilesOnAScanWithFiltersGivenByHand) {
  Run("CREATE TABLE s (id INT, part INT) USING delta PARTITIONED BY (part)");
  Run("INSERT INTO s VALUES (1, 1), (5, 1)");
  Run("INSERT INTO s VALUES (6, 1), (9, 1)");
  Run("INSERT INTO s VALUES (1, 2), (9, 2)");
  Binder& b = binder();
  sql::TableName name;
  name.parts = {"s"};
  auto table = b.ResolveTable(name, nullptr);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  auto scan = b.ScanPlan(*table, "s");
  ASSERT_TRUE(scan.ok()) << scan.status().ToString();
  auto pred = sql::ParseExpression("part = 1 AND id < 3");
  ASSERT_TRUE(pred.ok());
  auto bound = b.BindExpression(**pred, (*scan)->columns);
  ASSERT_TRUE(bound.ok()) << bound.status().ToString();
  Conjuncts(*bound, &(*scan)->pushed_filters);
  ASSERT_EQ((*scan)->pushed_filters.size(), 2u);

  ASSERT_TRUE(PruneFiles(scan->get(), OptimizerOptions{}).ok());
  EXPECT_EQ((*scan)->files_total, 3);
  EXPECT_EQ((*scan)->files_after_partition_pruning, 2);  // part = 1
  EXPECT_EQ((*scan)->files_after_stats_pruning, 1);      // id in [1, 5]
  ASSERT_TRUE((*scan)->pruned_files.has_value());
  ASSERT_EQ((*scan)->pruned_files->size(), 1u);
  EXPECT_NE(ScanFilesSummary(**scan).find("1 of 3"), std::string::npos) << ScanFilesSummary(**scan);
}

// The tables a plan's scans read, left to right.
std::vector<std::string> ScanTables(const PlanPtr& plan) {
  std::vector<std::string> out;
  std::function<void(const LogicalNode&)> walk = [&](const LogicalNode& n) {
    if (n.kind == LogicalKind::kScan)
      out.push_back(n.table_name.substr(n.table_name.rfind('.') + 1));
    for (const auto& c : n.children) walk(*c);
  };
  walk(*plan);
  return out;
}

TEST_F(OptimizerTest, JoinChainStartsWithTheSmallestConnectedPair) {
  // a: 1 row, b: 40 rows, c: 8 rows. Written order a, b, c would start with a cross join of a
  // and b (no condition between them); the greedy order joins a with c first (estimated 1 row),
  // then b (c–b estimated 8 rows), and every join gets hash keys.
  Run("CREATE TABLE a (x INT) USING delta");
  Run("CREATE TABLE b (y INT) USING delta");
  Run("CREATE TABLE c (x INT, y INT) USING delta");
  Run("INSERT INTO a VALUES (1)");
  Run("INSERT INTO b SELECT id FROM range(40)");
  Run("INSERT INTO c SELECT id, id * 5 FROM range(8)");
  const std::string q = "SELECT * FROM a, b, c WHERE a.x = c.x AND b.y = c.y";

  auto bound = Bind(q);
  ASSERT_TRUE(bound.ok()) << bound.status().ToString();
  auto bound_joins = Find(*bound, LogicalKind::kJoin);
  ASSERT_EQ(bound_joins.size(), 2u);
  // As bound: (a × b) ⋈ c, the inner join without keys.
  EXPECT_TRUE(bound_joins[1]->left_keys.empty()) << ExplainPlan(**bound);
  EXPECT_EQ(ScanTables(bound_joins[0]->children[0]), (std::vector<std::string>{"a", "b"}))
      << ExplainPlan(**bound);
  EXPECT_GT(EstimateRows(**bound), 0.0);

  auto plan = BindAndOptimize(q);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  auto joins = Find(*plan, LogicalKind::kJoin);
  ASSERT_EQ(joins.size(), 2u) << ExplainPlan(**plan);
  for (const LogicalNode* j : joins) {
    EXPECT_EQ(j->left_keys.size(), 1u) << ExplainPlan(**plan);
  }
  // The inner join (pre-order: the outer one first) reads a and c.
  PlanPtr inner;
  for (const auto& c : joins[0]->children) {
    if (!Find(c, LogicalKind::kJoin).empty()) inner = c;
  }
  ASSERT_NE(inner, nullptr) << ExplainPlan(**plan);
  auto tables = ScanTables(inner);
  std::sort(tables.begin(), tables.end());
  ASSERT_EQ(tables.size(), 2u) << ExplainPlan(**plan);
  EXPECT_EQ(tables, (std::vector<std::string>{"a", "c"})) << ExplainPlan(**plan);
  // The output keeps the written column order: a.x, b.y, c.x, c.y.
  ASSERT_EQ((*plan)->columns.size(), 4u);
  EXPECT_EQ((*plan)->columns[0].name, "x");
  EXPECT_EQ((*plan)->columns[1].name, "y");
  EXPECT_EQ((*plan)->columns[2].name, "x");
  EXPECT_EQ((*plan)->columns[3].name, "y");
}

TEST_F(OptimizerTest, ForeignKeyJoinIsEstimatedFromTheKeySide) {
  // f: 1000 rows; f.ok a foreign key of o (values 0, 4, …, 996, four rows each: its min/max
  // range, 997 values, is no tighter than f's rows, as for lineitem's l_orderkey), f.pk one of p.
  // o: 250 rows, key ok. p: 100 rows, key pk, filtered to 50. The join f–o keeps all 1000 rows
  // and f–p 500, so f meets p first. Taking the larger distinct count (997) for f–o would
  // estimate it at 250 and start there.
  Run("CREATE TABLE f (ok INT, pk INT) USING delta");
  Run("CREATE TABLE o (ok INT, odate INT) USING delta");
  Run("CREATE TABLE p (pk INT, pname STRING) USING delta");
  Run("INSERT INTO f SELECT CAST(id DIV 4 * 4 AS INT), CAST(id % 100 AS INT) FROM range(1000)");
  Run("INSERT INTO o SELECT CAST(id * 4 AS INT), CAST(id AS INT) FROM range(250)");
  Run("INSERT INTO p SELECT CAST(id AS INT), 'n' || id FROM range(100)");
  const std::string q =
      "SELECT count(*), sum(odate), sum(p.pk) FROM f, o, p "
      "WHERE f.ok = o.ok AND f.pk = p.pk AND p.pk < 50";
  auto plan = BindAndOptimize(q);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  auto joins = Find(*plan, LogicalKind::kJoin);
  ASSERT_EQ(joins.size(), 2u) << ExplainPlan(**plan);
  PlanPtr inner;
  for (const auto& c : joins[0]->children) {
    if (!Find(c, LogicalKind::kJoin).empty()) inner = c;
  }
  ASSERT_NE(inner, nullptr) << ExplainPlan(**plan);
  auto tables = ScanTables(inner);
  std::sort(tables.begin(), tables.end());
  EXPECT_EQ(tables, (std::vector<std::string>{"f", "p"})) << ExplainPlan(**plan);
  // The answer: the 500 rows of f with pk < 50, each meeting one row of o (odate = ok / 4).
  auto res = con_->Query(q);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  ASSERT_EQ((*res)->num_rows(), 1u);
  const auto row = (*res)->Row(0);
  EXPECT_EQ(row[0].ToString(), "500");
  // Σ over f rows with id % 100 < 50 of id div 4; Σ of pk: 10 × (0 + … + 49).
  int64_t odate = 0;
  for (int64_t id = 0; id < 1000; ++id) {
    if (id % 100 < 50) odate += id / 4;
  }
  EXPECT_EQ(row[1].ToString(), std::to_string(odate));
  EXPECT_EQ(row[2].ToString(), "12250");
}

TEST_F(OptimizerTest, ImpliedEqualityLetsInputsLinkedThroughAThirdMeetFirst) {
  // a.x = b.x AND b.x = c.x: a and c (10 and 20 rows) have no condition of their own, but
  // a.x = c.x follows, so they meet first (about 10 rows) before the 1000 rows of b; b then
  // joins on one key, the other equality being implied by the two already applied.
  Run("CREATE TABLE a (x INT) USING delta");
  Run("CREATE TABLE b (x INT) USING delta");
  Run("CREATE TABLE c (x INT) USING delta");
  Run("INSERT INTO a SELECT CAST(id AS INT) FROM range(10)");
  Run("INSERT INTO b SELECT CAST(id AS INT) FROM range(1000)");
  Run("INSERT INTO c SELECT CAST(id AS INT) FROM range(20)");
  const std::string q = "SELECT count(*), sum(b.x) FROM a, b, c WHERE a.x = b.x AND b.x = c.x";
  auto plan = BindAndOptimize(q);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  auto joins = Find(*plan, LogicalKind::kJoin);
  ASSERT_EQ(joins.size(), 2u) << ExplainPlan(**plan);
  PlanPtr inner;
  for (const auto& c : joins[0]->children) {
    if (!Find(c, LogicalKind::kJoin).empty()) inner = c;
  }
  ASSERT_NE(inner, nullptr) << ExplainPlan(**plan);
  auto tables = ScanTables(inner);
  std::sort(tables.begin(), tables.end());
  EXPECT_EQ(tables, (std::vector<std::string>{"a", "c"})) << ExplainPlan(**plan);
  EXPECT_EQ(joins[0]->left_keys.size(), 1u) << ExplainPlan(**plan);
  EXPECT_EQ(joins[1]->left_keys.size(), 1u) << ExplainPlan(**plan);
  auto res = con_->Query(q);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  ASSERT_EQ((*res)->num_rows(), 1u);
  EXPECT_EQ((*res)->Row(0)[0].ToString(), "10");
  EXPECT_EQ((*res)->Row(0)[1].ToString(), "45");
}

// A join's estimate is |L|·|R| / its key's domain (min/max statistics): a filter on the
// dimension carries through to the fact table it joins, a semi join keeps the left side's
// fraction of the keys the right side holds, an outer join at least its preserved side.
TEST_F(OptimizerTest, JoinEstimatesCarryTheDimensionsFilter) {
  Run("CREATE TABLE fact (k INT) USING delta");
  Run("INSERT INTO fact SELECT CAST(id % 100 AS INT) FROM range(1000)");
  Run("CREATE TABLE dim (id INT, g INT) USING delta");
  Run("INSERT INTO dim SELECT CAST(id AS INT), CAST(id % 10 AS INT) FROM range(100)");
  auto estimate = [&](const std::string& q) {
    auto plan = BindAndOptimize(q);
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    auto joins = Find(*plan, LogicalKind::kJoin);
    EXPECT_EQ(joins.size(), 1u) << ExplainPlan(**plan);
    return joins.empty() ? -1 : EstimateRows(*joins[0]);
  };
  EXPECT_DOUBLE_EQ(estimate("SELECT * FROM fact JOIN dim ON fact.k = dim.id"), 1000);
  EXPECT_DOUBLE_EQ(estimate("SELECT * FROM fact JOIN dim ON fact.k = dim.id WHERE dim.g = 3"), 100);
  EXPECT_DOUBLE_EQ(estimate("SELECT * FROM fact, dim WHERE dim.id = fact.k AND dim.g = 3"), 100);
  EXPECT_DOUBLE_EQ(estimate("SELECT * FROM fact WHERE k IN (SELECT id FROM dim WHERE g = 3)"), 100);
  EXPECT_DOUBLE_EQ(
      estimate("SELECT * FROM fact WHERE NOT EXISTS (SELECT 1 FROM dim WHERE id = k AND g = 3)"),
      1000);
  EXPECT_DOUBLE_EQ(
      estimate("SELECT * FROM fact LEFT JOIN (SELECT * FROM dim WHERE g = 3) d ON fact.k = d.id"),
      1000);
  EXPECT_DOUBLE_EQ(estimate("SELECT * FROM fact CROSS JOIN (SELECT * FROM dim WHERE g = 3) d"),
                   10000);
}

TEST_F(OptimizerTest, LikeWithALiteralWordKeepsAFifthInTheEstimate) {
  Run("CREATE TABLE w (name STRING) USING delta");
  Run("INSERT INTO w SELECT 'n' || id FROM range(1000)");
  auto all = BindAndOptimize("SELECT * FROM w");
  auto word = BindAndOptimize("SELECT * FROM w WHERE name LIKE '%green%'");
  auto prefix = BindAndOptimize("SELECT * FROM w WHERE name LIKE 'green%'");
  auto any = BindAndOptimize("SELECT * FROM w WHERE name LIKE '%g%'");
  ASSERT_TRUE(all.ok() && word.ok() && prefix.ok() && any.ok());
  const double rows = EstimateRows(**all);
  EXPECT_DOUBLE_EQ(EstimateRows(**word), rows * 0.2);
  EXPECT_DOUBLE_EQ(EstimateRows(**prefix), rows * 0.1);
  EXPECT_DOUBLE_EQ(EstimateRows(**any), rows * 0.5);  // a one-letter word: any filter's half
}

TEST_F(OptimizerTest, CrossJoinWithAnEqualityFilterBecomesAHashJoin) {
  Run("CREATE TABLE l (id INT, v STRING) USING delta");
  Run("CREATE TABLE r (k INT, w STRING) USING delta");
  const std::string q = "SELECT v, w FROM l, r WHERE l.id = r.k AND w <> 'x'";
  auto bound = Bind(q);
  ASSERT_TRUE(bound.ok()) << bound.status().ToString();
  auto joins = Find(*bound, LogicalKind::kJoin);
  ASSERT_EQ(joins.size(), 1u);
  EXPECT_TRUE(joins[0]->left_keys.empty()) << ExplainPlan(**bound);
  EXPECT_EQ(Find(*bound, LogicalKind::kFilter).size(), 1u) << ExplainPlan(**bound);

  auto plan = BindAndOptimize(q);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  joins = Find(*plan, LogicalKind::kJoin);
  ASSERT_EQ(joins.size(), 1u) << ExplainPlan(**plan);
  ASSERT_EQ(joins[0]->left_keys.size(), 1u) << ExplainPlan(**plan);
  EXPECT_EQ(joins[0]->left_keys[0]->kind, exec::ExprKind::kColumn);
  EXPECT_EQ(joins[0]->right_keys[0]->kind, exec::ExprKind::kColumn);
  EXPECT_EQ(joins[0]->condition, nullptr) << joins[0]->condition->ToString();
  EXPECT_TRUE(Find(*plan, LogicalKind::kFilter).empty()) << ExplainPlan(**plan);
  // w <> 'x' went into r's scan.
  auto scans = Find(*plan, LogicalKind::kScan);
  ASSERT_EQ(scans.size(), 2u);
  EXPECT_TRUE(scans[0]->pushed_filters.empty()) << ExplainPlan(**plan);
  EXPECT_EQ(scans[1]->pushed_filters.size(), 1u) << ExplainPlan(**plan);
}

TEST_F(OptimizerTest, OrderByLimitWithAProjectionAboveTheSortBecomesATopN) {
  Run("CREATE TABLE t (id INT, v STRING, w STRING) USING delta");
  // ORDER BY columns not selected: a projection sits between Limit and Sort.
  const std::string q = "SELECT v FROM t ORDER BY id + 1 DESC, w LIMIT 3";
  // (Projection pruning puts a projection between the binder's Limit and Sort; before this
  // rewrite the plan sorted every row, then limited.)
  auto plan = BindAndOptimize(q);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  auto limits = Find(*plan, LogicalKind::kLimit);
  ASSERT_EQ(limits.size(), 1u) << ExplainPlan(**plan);
  ASSERT_EQ(limits[0]->children[0]->kind, LogicalKind::kSort) << ExplainPlan(**plan);
  EXPECT_EQ(*limits[0]->limit, 3);
  EXPECT_EQ(limits[0]->columns.size(), limits[0]->children[0]->columns.size());
  // The projection now runs above the limit and still outputs v alone.
  EXPECT_EQ((*plan)->kind, LogicalKind::kProject) << ExplainPlan(**plan);
  ASSERT_EQ((*plan)->columns.size(), 1u);
  EXPECT_EQ((*plan)->columns[0].name, "v");

  // A LIMIT without ORDER BY keeps its place.
  plan = BindAndOptimize("SELECT v FROM (SELECT v, id FROM t) LIMIT 2");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_TRUE(Find(*plan, LogicalKind::kSort).empty()) << ExplainPlan(**plan);
  EXPECT_EQ(Find(*plan, LogicalKind::kLimit).size(), 1u) << ExplainPlan(**plan);
}

TEST_F(OptimizerTest, AnAggregatingCteReadTwiceRunsOnceAndIsShared) {
  Run("CREATE TABLE s (k INT, amount DOUBLE) USING delta");
  int runs = 0;
  BinderContext ctx;
  ctx.catalog = catalog_.get();
  ctx.config = &config_;
  ctx.clock = clock_;
  ctx.eval.now_micros = clock_->NowMicros();
  ctx.execute = [&runs](const PlanPtr& plan) -> Result<std::vector<DataChunk>> {
    ++runs;
    EXPECT_FALSE(plan->columns.empty());
    return std::vector<DataChunk>{};
  };
  Binder b(std::move(ctx));
  auto bind = [&b](const std::string& sql) -> Result<PlanPtr> {
    SILT_ASSIGN_OR_RETURN(sql::StatementNode stmt, sql::ParseStatement(sql));
    return b.BindQuery(*static_cast<const sql::QueryStatement&>(*stmt).query);
  };

  // Q15's shape: the CTE in FROM and in an uncorrelated scalar subquery (run at bind time).
  auto plan = bind(
      "WITH rev (no, total) AS (SELECT k, sum(amount) FROM s GROUP BY k) "
      "SELECT no FROM rev WHERE total = (SELECT max(total) FROM rev)");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  // The CTE ran once (the scalar subquery over its rows is the second run).
  EXPECT_EQ(runs, 2);
  EXPECT_TRUE(Find(*plan, LogicalKind::kScan).empty()) << ExplainPlan(**plan);
  auto values = Find(*plan, LogicalKind::kValues);
  ASSERT_EQ(values.size(), 1u) << ExplainPlan(**plan);
  EXPECT_EQ(values[0]->table_name, "rev");
  EXPECT_NE(ExplainPlan(**plan).find("materialized CTE rev"), std::string::npos);

  runs = 0;
  plan = bind(
      "WITH rev AS (SELECT k, sum(amount) AS total FROM s GROUP BY k) "
      "SELECT * FROM rev a JOIN rev b ON a.k = b.k");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(Find(*plan, LogicalKind::kValues).size(), 2u) << ExplainPlan(**plan);
  EXPECT_TRUE(Find(*plan, LogicalKind::kScan).empty()) << ExplainPlan(**plan);

  // Read once, or a body that does not aggregate: inlined, nothing runs at bind time.
  runs = 0;
  plan = bind("WITH rev AS (SELECT k, sum(amount) AS total FROM s GROUP BY k) SELECT * FROM rev");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(Find(*plan, LogicalKind::kScan).size(), 1u) << ExplainPlan(**plan);
  plan = bind(
      "WITH f AS (SELECT k, amount FROM s WHERE k > 1) SELECT * FROM f a JOIN f b ON a.k = b.k");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(Find(*plan, LogicalKind::kScan).size(), 2u) << ExplainPlan(**plan);
  EXPECT_EQ(runs, 0);
}

// Below the DFP thresholds an inner join's probe-side scan of at least
// silt.runtimeFilter.rowFilterMinBytes gets a rows-only runtime filter (no file pruning, the DFP
// reason kept); the build side stays the one the estimates choose; outer joins get none.
TEST_F(OptimizerTest, ProbeScanBelowTheDfpThresholdsGetsARowsOnlyRuntimeFilter) {
  Run("CREATE TABLE f (k INT, v STRING) USING delta");
  Run("INSERT INTO f VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')");
  Run("INSERT INTO f VALUES (5, 'e'), (6, 'f')");
  Run("CREATE TABLE d (k INT, name STRING) USING delta");
  Run("INSERT INTO d VALUES (2, 'x'), (5, 'y')");
  auto optimize = [&](const std::string& sql, int64_t min_bytes,
                      int64_t size_threshold = DfpOptions{}.size_threshold) -> Result<PlanPtr> {
    SILT_ASSIGN_OR_RETURN(PlanPtr plan, Bind(sql));
    OptimizerOptions o;
    o.dfp.row_filter_min_bytes = min_bytes;
    o.dfp.size_threshold = size_threshold;
    o.dfp.files_threshold = 0;
    return Optimize(plan, o);
  };
  auto scan_of = [&](const PlanPtr& plan, const std::string& table) -> const LogicalNode* {
    for (const LogicalNode* s : Find(plan, LogicalKind::kScan)) {
      if (s->table_name == table) return s;
    }
    ADD_FAILURE() << table << " not scanned in " << ExplainPlan(*plan);
    return nullptr;
  };
  const std::string inner = "SELECT f.v FROM f JOIN d ON f.k = d.k WHERE d.name = 'x'";

  // The default minimum (8 MB) is above this table's size: no filter.
  auto plan = optimize(inner, DfpOptions{}.row_filter_min_bytes);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const LogicalNode* f = scan_of(*plan, "default.f");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->runtime_filters.empty()) << ExplainPlan(**plan);
  EXPECT_EQ(f->dfp_reason, "below_size_threshold");

  plan = optimize(inner, 0);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  f = scan_of(*plan, "default.f");
  const LogicalNode* d = scan_of(*plan, "default.d");
  ASSERT_NE(f, nullptr);
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(f->runtime_filters.size(), 1u) << ExplainPlan(**plan);
  EXPECT_TRUE(f->runtime_filters[0].rows_only);
  EXPECT_EQ(f->scan_columns[static_cast<size_t>(f->runtime_filters[0].scan_column)], "k");
  EXPECT_EQ(f->dfp_reason, "below_size_threshold");
  EXPECT_TRUE(d->runtime_filters.empty());
  auto joins = Find(*plan, LogicalKind::kJoin);
  ASSERT_EQ(joins.size(), 1u);
  EXPECT_EQ(joins[0]->dfp_pruned_side, 0);  // f probes, as without the filter
  EXPECT_NE(ExplainPlan(**plan).find("[RuntimeRowFilter#1: k IN runtimefilter("), std::string::npos)
      << ExplainPlan(**plan);

  // Above the size threshold it is dynamic file pruning proper.
  plan = optimize(inner, 0, 0);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  f = scan_of(*plan, "default.f");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->runtime_filters.size(), 1u) << ExplainPlan(**plan);
  EXPECT_FALSE(f->runtime_filters[0].rows_only);
  EXPECT_EQ(f->dfp_reason, "");

  // An outer join: none (rows-only filters are for inner joins).
  plan = optimize("SELECT f.v FROM f LEFT JOIN d ON f.k = d.k AND d.name = 'x'", 0);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  for (const LogicalNode* s : Find(*plan, LogicalKind::kScan))
    EXPECT_TRUE(s->runtime_filters.empty()) << ExplainPlan(**plan);
}

}  // namespace
}  // namespace silt::planner
