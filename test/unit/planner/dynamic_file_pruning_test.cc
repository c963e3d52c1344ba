// Dynamic file pruning (planner/dynamic_file_pruning.h): the runtime filter built from build-side
// keys, its file pruning, and the read set it gives a DML transaction (spec B.5 D-21).
#include "planner/dynamic_file_pruning.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "delta/table_writer.h"
#include "exec/delta_scan.h"
#include "exec/functions.h"
#include "exec/hash_join.h"
#include "ops/dml.h"
#include "parquet/reader.h"
#include "support/collect.h"
#include "unit/ops/dml_test_util.h"

namespace silt::planner {
namespace {

using ops::testing::DmlTable;
using ops::testing::Row;

std::vector<Row> Ids(int64_t from, int64_t to) {
  std::vector<Row> rows;
  for (int64_t i = from; i < to; ++i) rows.push_back({i, "v" + std::to_string(i), std::nullopt});
  return rows;
}

// Ten files, file i holding ids [10i, 10i + 9].
void MakeTenFiles(DmlTable& t) {
  t.Create(Ids(0, 10), false, true);
  for (int64_t i = 1; i < 10; ++i) t.Append(Ids(10 * i, 10 * i + 10));
}

exec::JoinKeySummary Keys(const std::vector<std::optional<int64_t>>& keys,
                          size_t max_distinct = 1000) {
  Vector v(DataType::Int64());
  for (const auto& k : keys) k ? v.Append<int64_t>(*k) : v.AppendNull();
  return exec::SummarizeKeys(v, max_distinct);
}

std::vector<const delta::AddFile*> AllFiles(const delta::Snapshot& s) {
  std::vector<const delta::AddFile*> out;
  for (const auto& f : s.files()) out.push_back(&f);
  return out;
}

const std::vector<std::string> kColumns = {"id", "v"};

exec::ExprPtr IdColumn() { return exec::MakeColumn(0, DataType::Int64(), "id"); }

TEST(DynamicFilePruning, InListKeepsOnlyFilesHoldingAKey) {
  DmlTable t;
  MakeTenFiles(t);
  auto snap = t.Latest();
  RuntimePredicate rp =
      MakeRuntimePredicate(Keys({12, std::nullopt, 57, 12}), IdColumn(), DfpExecOptions{});
  EXPECT_EQ(rp.kind, "in_list");
  EXPECT_EQ(rp.distinct, 2);
  auto kept = PruneFileList(*snap, kColumns, {rp.file}, AllFiles(*snap), true);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(kept->size(), 2u);
}

TEST(DynamicFilePruning, PerValueProbingIsMorePreciseThanTheListRange) {
  DmlTable t;
  MakeTenFiles(t);
  auto snap = t.Latest();
  DfpExecOptions o;
  auto keys = Keys({5, 95});
  auto probe = PruneFileList(*snap, kColumns, {MakeRuntimePredicate(keys, IdColumn(), o).file},
                             AllFiles(*snap), true);
  ASSERT_TRUE(probe.ok());
  EXPECT_EQ(probe->size(), 2u);
  o.per_value_probe_limit = 1;  // above it: at most one range, the list's min/max (as Delta)
  auto range = PruneFileList(*snap, kColumns, {MakeRuntimePredicate(keys, IdColumn(), o).file},
                             AllFiles(*snap), true);
  ASSERT_TRUE(range.ok());
  EXPECT_EQ(range->size(), 10u);
}

TEST(DynamicFilePruning, PastTheProbeLimitKeysCoalesceIntoRangesAtTheLargestGaps) {
  DmlTable t;
  MakeTenFiles(t);
  auto snap = t.Latest();
  DfpExecOptions o;
  o.per_value_probe_limit = 3;
  // Three clusters of keys: the two largest gaps (5 -> 52, 55 -> 91) split them.
  RuntimePredicate rp = MakeRuntimePredicate(Keys({97, 3, 52, 1, 55, 5, 91, 93, 3}), IdColumn(), o);
  EXPECT_EQ(rp.kind, "in_ranges");
  EXPECT_EQ(rp.distinct, 8);
  ASSERT_EQ(rp.ranges.size(), 3u);
  EXPECT_EQ(rp.ranges[0].lo.integer(), 1);
  EXPECT_EQ(rp.ranges[0].hi.integer(), 5);
  EXPECT_EQ(rp.ranges[1].lo.integer(), 52);
  EXPECT_EQ(rp.ranges[1].hi.integer(), 55);
  EXPECT_EQ(rp.ranges[2].lo.integer(), 91);
  EXPECT_EQ(rp.ranges[2].hi.integer(), 97);
  auto kept = PruneFileList(*snap, kColumns, {rp.file}, AllFiles(*snap), true);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(kept->size(), 3u);  // files 0, 5 and 9; the list's min/max would keep all 10
  // Always a superset of the per-value test (Delta's kept set).
  o.per_value_probe_limit = 64;
  RuntimePredicate exact =
      MakeRuntimePredicate(Keys({97, 3, 52, 1, 55, 5, 91, 93, 3}), IdColumn(), o);
  EXPECT_EQ(exact.kind, "in_list");
  auto exact_kept = PruneFileList(*snap, kColumns, {exact.file}, AllFiles(*snap), true);
  ASSERT_TRUE(exact_kept.ok());
  for (const delta::AddFile* f : *exact_kept)
    EXPECT_NE(std::find(kept->begin(), kept->end(), f), kept->end()) << f->path;
}

TEST(DynamicFilePruning, CoalesceKeyRangesOrdersAndSplitsStrings) {
  std::vector<Value> v = {Value::String("b2"), Value::String("a1"), Value::String("zz"),
                          Value::String("a2"), Value::String("b1"), Value::String("a1")};
  std::vector<KeyRange> r = CoalesceKeyRanges(v, 10);  // under the limit: one range per value
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0].lo.str(), "a1");
  EXPECT_EQ(r[4].hi.str(), "zz");
  r = CoalesceKeyRanges(v, 2);  // the largest gap is b2 -> zz
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].lo.str(), "a1");
  EXPECT_EQ(r[0].hi.str(), "b2");
  EXPECT_EQ(r[1].lo.str(), "zz");
  EXPECT_EQ(r[1].hi.str(), "zz");
  r = CoalesceKeyRanges(v, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].lo.str(), "a1");
  EXPECT_EQ(r[0].hi.str(), "zz");
  // Doubles: NaN sorts last (Spark order).
  r = CoalesceKeyRanges({Value::Double(std::nan("")), Value::Double(1.0), Value::Double(2.0)}, 2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].lo.floating(), 1.0);
  EXPECT_EQ(r[0].hi.floating(), 2.0);
  EXPECT_TRUE(std::isnan(r[1].lo.floating()));
  // A type without an order here: no ranges (the caller falls back to min/max).
  EXPECT_TRUE(CoalesceKeyRanges({Value::Boolean(true)}, 2).empty());
}

TEST(DynamicFilePruning, OverflowBecomesARange) {
  DmlTable t;
  MakeTenFiles(t);
  auto snap = t.Latest();
  DfpExecOptions o;
  o.max_in_list_values = 3;
  RuntimePredicate rp = MakeRuntimePredicate(Keys({20, 21, 22, 23, 35}, 3), IdColumn(), o);
  EXPECT_EQ(rp.kind, "range");
  EXPECT_EQ(rp.distinct, -1);
  auto kept = PruneFileList(*snap, kColumns, {rp.file}, AllFiles(*snap), true);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->size(), 2u);
}

TEST(DynamicFilePruning, OnlyNullKeysKeepNoFile) {
  DmlTable t;
  MakeTenFiles(t);
  auto snap = t.Latest();
  RuntimePredicate rp =
      MakeRuntimePredicate(Keys({std::nullopt, std::nullopt}), IdColumn(), DfpExecOptions{});
  auto kept = PruneFileList(*snap, kColumns, {rp.file}, AllFiles(*snap), true);
  ASSERT_TRUE(kept.ok());
  EXPECT_TRUE(kept->empty());
}

// Row groups of a kept file are pruned by their Parquet statistics.
TEST(DynamicFilePruning, RowGroupsArePrunedByTheirStatistics) {
  DmlTable t;
  t.Create({}, false, false);
  delta::DataWriteOptions w;
  w.clock = t.clock();
  w.parquet.row_group_max_rows = 10;  // one file of 10 row groups: ids [10i, 10i + 9]
  ASSERT_TRUE(
      delta::AppendRows(t.store(), {ops::testing::MakeRows(Ids(0, 100), false)}, w, t.TxnOptions())
          .ok());
  auto snap = t.Latest();
  ASSERT_EQ(snap->files().size(), 1u);
  for (bool push : {false, true}) {
    auto scan = exec::DeltaScanOperator::Make(snap, kColumns, AllFiles(*snap), {}, "t");
    ASSERT_TRUE(scan.ok()) << scan.status().ToString();
    parquet::ColumnPredicate eq;
    eq.op = parquet::ColumnPredicate::kEq;
    eq.literal = Value::Int64(15);
    parquet::ColumnPredicate ge = eq, le = eq;
    ge.op = parquet::ColumnPredicate::kGe;
    ge.literal = Value::Int64(71);
    le.op = parquet::ColumnPredicate::kLe;
    le.literal = Value::Int64(72);
    (*scan)->AddRowGroupFilter(0, {{eq}, {ge, le}});
    (*scan)->dfp_metrics().considered = true;
    (*scan)->dfp_metrics().files_before = (*scan)->dfp_metrics().files_after = 1;
    exec::ExecContext ctx;
    int64_t rows = 0;
    if (push) {
      auto r = (*scan)->PushAll(ctx, 1, [&](size_t, DataChunk& c) {
        rows += static_cast<int64_t>(c.size());
        return Status::OK();
      });
      ASSERT_TRUE(r.ok() && *r);
    } else {
      auto chunks = exec::CollectAll(**scan, ctx);
      ASSERT_TRUE(chunks.ok()) << chunks.status().ToString();
      for (const auto& c : *chunks) rows += static_cast<int64_t>(c.size());
    }
    EXPECT_EQ(rows, 20);  // row groups [10, 19] and [70, 79]
    EXPECT_NE((*scan)->AnalyzeDetails().find("numRowGroupsPrunedByDfp=8"), std::string::npos)
        << (*scan)->AnalyzeDetails();
  }
}

// D-21: a MERGE whose runtime filter kept files {0, 1} commits after a concurrent DELETE from
// file 9; without pruning (the whole table read) the same commit conflicts.
TEST(DynamicFilePruning, PrunedFilesAreNotInTheReadSet) {
  for (bool dfp : {true, false}) {
    DmlTable t;
    MakeTenFiles(t);
    auto snap = t.Latest();
    // Transaction A's read: source keys {1, 12}.
    RuntimePredicate rp = MakeRuntimePredicate(Keys({1, 12}), IdColumn(), DfpExecOptions{});
    auto kept = PruneFileList(*snap, kColumns, {rp.file}, AllFiles(*snap), true);
    ASSERT_TRUE(kept.ok());
    ASSERT_EQ(kept->size(), 2u);

    // Transaction B deletes id 95 (file 9) and commits first.
    ops::DeleteSpec b;
    b.predicate_sql = "id = 95";
    b.columns = {"id"};
    b.options = t.Options();
    b.matcher = ops::testing::MatchInt(0, [](int64_t v) { return v == 95; });
    auto rb = ops::DeleteRows(t.store(), snap, b);
    ASSERT_TRUE(rb.ok()) << rb.status().ToString();

    // A: updates id 1 (a DV on file 0 plus the new row), with its read set.
    ops::RowChanges a;
    a.operation = "MERGE";
    a.metric_names = ops::MetricNames::kMerge;
    auto only_id_1 = PruneFileList(
        *snap, kColumns, {MakeRuntimePredicate(Keys({1}), IdColumn(), DfpExecOptions{}).file},
        AllFiles(*snap), true);
    ASSERT_TRUE(only_id_1.ok());
    ASSERT_EQ(only_id_1->size(), 1u);
    const delta::AddFile* file0 = (*only_id_1)[0];
    ops::FileRowDeletion d;
    d.file = *file0;
    ASSERT_TRUE(d.rows.Add(1).ok());
    a.deletions.push_back(std::move(d));
    a.new_rows.push_back(ops::testing::MakeRows({{1, "updated", std::nullopt}}, false));
    if (dfp) {
      for (const delta::AddFile* f : *kept) a.read_files.push_back(f->path);
      a.read_predicate = DfpReadPredicate(snap, kColumns, rp.file);
    } else {
      for (const auto& f : snap->files()) a.read_files.push_back(f.path);
    }
    auto ra = ops::ApplyRowChanges(t.store(), snap, std::move(a), t.Options());
    if (dfp) {
      ASSERT_TRUE(ra.ok()) << ra.status().ToString();
      auto rows = ops::testing::ReadRows(t.store());
      EXPECT_EQ(rows.size(), 99u);
      EXPECT_NE(std::find(rows.begin(), rows.end(), "1|updated"), rows.end());
    } else {
      ASSERT_FALSE(ra.ok());
      const std::string c(ra.status().error_class());
      EXPECT_TRUE(c == "DELTA_CONCURRENT_DELETE_READ" || c == "DELTA_CONCURRENT_APPEND")
          << ra.status().ToString();
    }
  }
}

// A concurrent append of a key the runtime filter kept still conflicts.
TEST(DynamicFilePruning, ConcurrentAppendOfAKeptKeyConflicts) {
  DmlTable t;
  MakeTenFiles(t);
  auto snap = t.Latest();
  RuntimePredicate rp = MakeRuntimePredicate(Keys({1, 12}), IdColumn(), DfpExecOptions{});
  t.Append(Ids(12, 13));
  t.Append(Ids(500, 501));
  ops::RowChanges a;
  a.operation = "MERGE";
  a.metric_names = ops::MetricNames::kMerge;
  a.new_rows.push_back(ops::testing::MakeRows({{2000, "new", std::nullopt}}, false));
  a.read_predicate = DfpReadPredicate(snap, kColumns, rp.file);
  auto ra = ops::ApplyRowChanges(t.store(), snap, std::move(a), t.Options());
  ASSERT_FALSE(ra.ok());
  EXPECT_EQ(ra.status().error_class(), "DELTA_CONCURRENT_APPEND");
}

// The scan's row filter from a runtime filter is adaptive: dropped after its first sample of rows
// when it keeps more than 95% of them, kept otherwise (results never depend on it: the join tests
// membership exactly).
TEST(DynamicFilePruning, AdaptiveRowFilterIsDroppedWhenItKeepsNearlyEveryRow) {
  DmlTable t;
  t.Create({}, false, true);
  delta::DataWriteOptions w;
  w.clock = t.clock();
  w.parquet.row_group_max_rows = 10;  // one file of 10 row groups: ids [10i, 10i + 9]
  ASSERT_TRUE(
      delta::AppendRows(t.store(), {ops::testing::MakeRows(Ids(0, 100), false)}, w, t.TxnOptions())
          .ok());
  auto snap = t.Latest();
  struct Case {
    const char* op;
    int64_t literal;
    int64_t rows;
    const char* state;
  };
  // id >= 1 keeps 29 of the first 30 rows: dropped, the other 70 rows all pass unfiltered.
  // id < 50 keeps all of the first 30 rows: dropped, all 100 rows pass (the join would filter).
  // id >= 20 keeps 10 of the first 30 rows: kept, exactly the 80 matching rows pass.
  for (const Case& c :
       {Case{">=", 1, 99, "dropped"}, Case{"<", 50, 100, "dropped"}, Case{">=", 20, 80, "kept"}}) {
    SCOPED_TRACE(std::string(c.op) + std::to_string(c.literal));
    auto scan = exec::DeltaScanOperator::Make(snap, kColumns, AllFiles(*snap), {}, "t");
    ASSERT_TRUE(scan.ok()) << scan.status().ToString();
    auto f = exec::BindScalarFunction(
        c.op, {IdColumn(), exec::MakeConstant(Value::Int64(c.literal))}, exec::BindContext{});
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    (*scan)->AddAdaptiveRowFilter(*f);
    (*scan)->SetAdaptiveSampleRows(30);
    EXPECT_EQ((*scan)->adaptive_filter_state(), "sampling");
    exec::ExecContext ctx;
    auto chunks = exec::CollectAll(**scan, ctx);
    ASSERT_TRUE(chunks.ok()) << chunks.status().ToString();
    int64_t rows = 0;
    for (const auto& ch : *chunks) rows += static_cast<int64_t>(ch.size());
    EXPECT_EQ(rows, c.rows);
    EXPECT_EQ((*scan)->adaptive_filter_state(), c.state);
  }
}

}  // namespace
}  // namespace silt::planner

namespace silt::planner {
namespace {

// The session keys of the row bloom filter and of the build-fraction heuristic (validated: a
// fraction must be a finite number).
TEST(DynamicFilePruning, BloomAndBuildFractionSettings) {
  SessionConfig config;
  DfpOptions d = DfpOptionsFrom(config);
  EXPECT_TRUE(d.exec.row_bloom_filter);
  EXPECT_DOUBLE_EQ(d.exec.max_build_fraction, 1.0);
  ASSERT_TRUE(config.Set("silt.dfp.maxBuildFraction", "0.25").ok());
  ASSERT_TRUE(config.Set("spark.sql.optimizer.runtime.bloomFilter.enabled", "false").ok());
  d = DfpOptionsFrom(config);
  EXPECT_FALSE(d.exec.row_bloom_filter);
  EXPECT_DOUBLE_EQ(d.exec.max_build_fraction, 0.25);
  EXPECT_FALSE(config.Set("silt.dfp.maxBuildFraction", "a lot").ok());
  EXPECT_FALSE(config.Set("silt.dfp.maxBuildFraction", "inf").ok());
  EXPECT_DOUBLE_EQ(DfpOptionsFrom(config).exec.max_build_fraction, 0.25);
}

}  // namespace
}  // namespace silt::planner
