// Dynamic file pruning (planner/dynamic_file_pruning.h): the runtime filter built from build-side
// keys, its file pruning, and the read set it gives a DML transaction (spec B.5 D-21).
#include "planner/dynamic_file_pruning.h"

#include <gtest/gtest.h>

#include "commands/dml.h"
#include "exec/hash_join.h"
#include "unit/commands/dml_test_util.h"

namespace silt::planner {
namespace {

using commands::testing::DmlTable;
using commands::testing::Row;

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

exec::JoinKeySummary Keys(const std::vector<std::optional<int64_t>>& keys, size_t max_distinct = 1000) {
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
  RuntimePredicate rp = MakeRuntimePredicate(Keys({12, std::nullopt, 57, 12}), IdColumn(), DfpExecOptions{});
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
  auto probe = PruneFileList(*snap, kColumns, {MakeRuntimePredicate(keys, IdColumn(), o).file}, AllFiles(*snap), true);
  ASSERT_TRUE(probe.ok());
  EXPECT_EQ(probe->size(), 2u);
  o.per_value_probe_limit = 1;  // above it: the list's min/max, as Delta
  auto range = PruneFileList(*snap, kColumns, {MakeRuntimePredicate(keys, IdColumn(), o).file}, AllFiles(*snap), true);
  ASSERT_TRUE(range.ok());
  EXPECT_EQ(range->size(), 10u);
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
  RuntimePredicate rp = MakeRuntimePredicate(Keys({std::nullopt, std::nullopt}), IdColumn(), DfpExecOptions{});
  auto kept = PruneFileList(*snap, kColumns, {rp.file}, AllFiles(*snap), true);
  ASSERT_TRUE(kept.ok());
  EXPECT_TRUE(kept->empty());
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
    commands::DeleteSpec b;
    b.predicate_sql = "id = 95";
    b.columns = {"id"};
    b.options = t.Options();
    b.matcher = commands::testing::MatchInt(0, [](int64_t v) { return v == 95; });
    auto rb = commands::DeleteRows(t.store(), snap, b);
    ASSERT_TRUE(rb.ok()) << rb.status().ToString();

    // A: updates id 1 (a DV on file 0 plus the new row), with its read set.
    commands::RowChanges a;
    a.operation = "MERGE";
    a.metric_names = commands::MetricNames::kMerge;
    auto only_id_1 = PruneFileList(*snap, kColumns, {MakeRuntimePredicate(Keys({1}), IdColumn(), DfpExecOptions{}).file},
                                   AllFiles(*snap), true);
    ASSERT_TRUE(only_id_1.ok());
    ASSERT_EQ(only_id_1->size(), 1u);
    const delta::AddFile* file0 = (*only_id_1)[0];
    commands::FileRowDeletion d;
    d.file = *file0;
    ASSERT_TRUE(d.rows.Add(1).ok());
    a.deletions.push_back(std::move(d));
    a.new_rows.push_back(commands::testing::MakeRows({{1, "updated", std::nullopt}}, false));
    if (dfp) {
      for (const delta::AddFile* f : *kept) a.read_files.push_back(f->path);
      a.read_predicate = DfpReadPredicate(snap, kColumns, rp.file);
    } else {
      for (const auto& f : snap->files()) a.read_files.push_back(f.path);
    }
    auto ra = commands::ApplyRowChanges(t.store(), snap, std::move(a), t.Options());
    if (dfp) {
      ASSERT_TRUE(ra.ok()) << ra.status().ToString();
      auto rows = commands::testing::ReadRows(t.store());
      EXPECT_EQ(rows.size(), 99u);
      EXPECT_NE(std::find(rows.begin(), rows.end(), "1|updated"), rows.end());
    } else {
      ASSERT_FALSE(ra.ok());
      const std::string c(ra.status().error_class());
      EXPECT_TRUE(c == "DELTA_CONCURRENT_DELETE_READ" || c == "DELTA_CONCURRENT_APPEND") << ra.status().ToString();
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
  commands::RowChanges a;
  a.operation = "MERGE";
  a.metric_names = commands::MetricNames::kMerge;
  a.new_rows.push_back(commands::testing::MakeRows({{2000, "new", std::nullopt}}, false));
  a.read_predicate = DfpReadPredicate(snap, kColumns, rp.file);
  auto ra = commands::ApplyRowChanges(t.store(), snap, std::move(a), t.Options());
  ASSERT_FALSE(ra.ok());
  EXPECT_EQ(ra.status().error_class(), "DELTA_CONCURRENT_APPEND");
}

}  // namespace
}  // namespace silt::planner
