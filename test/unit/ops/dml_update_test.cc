// UPDATE core, the ApplyRowChanges primitive (as MERGE uses it) and the change data feed.
#include <gtest/gtest.h>

#include "delta/stats_json.h"
#include "io/path.h"
#include "ops/dml.h"
#include "parquet/reader.h"
#include "support/fault_injecting_object_store.h"
#include "unit/ops/dml_test_util.h"

namespace silt::ops {
namespace {

using testing::DmlTable;
using testing::InPartition;
using testing::MatchInt;
using testing::PartitionIs;
using testing::ReadRows;
using testing::Row;
using testing::Sorted;

std::vector<Row> Ids(int64_t from, int64_t to, std::optional<std::string> p = std::nullopt) {
  std::vector<Row> rows;
  for (int64_t i = from; i < to; ++i) rows.push_back({i, "v" + std::to_string(i), p});
  return rows;
}

delta::CommitInfo CommitInfoAt(ObjectStore& store, int64_t version) {
  std::vector<delta::Action> actions;
  auto bytes = store.Get(delta::CommitKey(version));
  EXPECT_TRUE(bytes.ok());
  EXPECT_TRUE(delta::ParseCommit(*bytes, &actions, "c").ok());
  for (auto& a : actions) {
    if (auto* ci = a.get_if<delta::CommitInfo>()) return *ci;
  }
  return {};
}

std::vector<delta::Action> ActionsAt(ObjectStore& store, int64_t version) {
  std::vector<delta::Action> actions;
  auto bytes = store.Get(delta::CommitKey(version));
  EXPECT_TRUE(bytes.ok());
  EXPECT_TRUE(delta::ParseCommit(*bytes, &actions, "c").ok());
  return actions;
}

std::string Metric(const delta::CommitInfo& ci, const std::string& key) {
  if (!ci.operation_metrics) return "<none>";
  const std::string* v = ci.operation_metrics->Find(key);
  return v ? *v : "<absent>";
}

// SET v = concat('u', v) [, p = new_p].
RowUpdater PrefixV(std::optional<std::string> new_p = std::nullopt) {
  return [new_p](const DataChunk& in) -> Result<DataChunk> {
    DataChunk out;
    out.columns.push_back(in.columns[0]);
    Vector v(DataType::String());
    for (size_t i = 0; i < in.size(); ++i) {
      if (in.columns[1].IsNull(i)) {
        v.AppendNull();
      } else {
        v.AppendString("u" + std::string(in.columns[1].GetString(i)));
      }
    }
    out.columns.push_back(std::move(v));
    if (in.columns.size() > 2) {
      if (new_p) {
        Vector p(DataType::String());
        for (size_t i = 0; i < in.size(); ++i) p.AppendString(*new_p);
        out.columns.push_back(std::move(p));
      } else {
        out.columns.push_back(in.columns[2]);
      }
    }
    return out;
  };
}

UpdateSpec UpdateWhere(const DmlTable& t, std::string sql, RowMatcher m, RowUpdater u,
                       FileFilter f = nullptr) {
  UpdateSpec s;
  s.predicate_sql = std::move(sql);
  s.matcher = std::move(m);
  s.updater = std::move(u);
  s.file_filter = std::move(f);
  s.columns = {"id"};
  s.options = t.Options();
  return s;
}

std::vector<std::string> Rows(const std::vector<Row>& rows, bool partitioned) {
  std::vector<std::string> out;
  for (const Row& r : rows) {
    std::string s = (r.id ? std::to_string(*r.id) : "NULL") + "|" + (r.v ? *r.v : "NULL");
    if (partitioned) s += "|" + (r.p ? *r.p : std::string("NULL"));
    out.push_back(s);
  }
  return Sorted(out);
}

// ---------------------------------------------------------------------------------------------
// UPDATE

TEST(DmlUpdate, DvModeDeletesMatchedRowsAndWritesOnlyUpdatedRows) {
  DmlTable t;
  t.Create(Ids(0, 10), false, true);
  auto r = UpdateRows(
      t.store(), t.Latest(),
      UpdateWhere(t, "(id < 3)", MatchInt(0, [](int64_t v) { return v < 3; }), PrefixV()));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->used_deletion_vectors);
  EXPECT_EQ(r->num_affected_rows, 3);
  auto expected = Ids(0, 10);
  for (int i = 0; i < 3; ++i) expected[i].v = "uv" + std::to_string(i);
  EXPECT_EQ(ReadRows(t.store()), Rows(expected, false));
  auto snap = t.Latest();
  ASSERT_EQ(snap->files().size(), 2u);
  int with_dv = 0;
  for (const auto& f : snap->files()) {
    if (f.deletion_vector) {
      ++with_dv;
      EXPECT_EQ(f.deletion_vector->cardinality, 3);
    } else {
      // The new file holds only the updated rows, with tight stats.
      auto st = delta::ParseStats(*f.stats, Schema{});
      EXPECT_EQ(st->num_records, 3);
      EXPECT_EQ(st->tight_bounds, true);
    }
  }
  EXPECT_EQ(with_dv, 1);
  auto ci = CommitInfoAt(*t.store(), 1);
  EXPECT_EQ(ci.operation, "UPDATE");
  EXPECT_EQ(*ci.operation_parameters->Find("predicate"), "\"[\\\"(id < 3)\\\"]\"");
  EXPECT_EQ(Metric(ci, "numUpdatedRows"), "3");
  EXPECT_EQ(Metric(ci, "numCopiedRows"), "0");
  EXPECT_EQ(Metric(ci, "numAddedFiles"), "1");
  EXPECT_EQ(Metric(ci, "numRemovedFiles"), "0");
  EXPECT_EQ(Metric(ci, "numDeletionVectorsAdded"), "1");
  EXPECT_EQ(Metric(ci, "numDeletionVectorsRemoved"), "0");
  EXPECT_EQ(Metric(ci, "numDeletionVectorsUpdated"), "0");
  EXPECT_EQ(Metric(ci, "numAddedChangeFiles"), "0");
  EXPECT_EQ(Metric(ci, "numDeletedRows"), "<absent>");
  EXPECT_NE(Metric(ci, "numAddedBytes"), "0");
  EXPECT_EQ(Metric(ci, "numRemovedBytes"), "0");
  EXPECT_EQ(Metric(ci, "scanTimeMs"), "0");
}

TEST(DmlUpdate, CopyOnWriteRewritesTouchedFilesWithUnmodifiedRows) {
  DmlTable t;
  t.Create(Ids(0, 10), false, false);
  t.Append(Ids(10, 20));
  auto r = UpdateRows(
      t.store(), t.Latest(),
      UpdateWhere(t, "(id = 15)", MatchInt(0, [](int64_t v) { return v == 15; }), PrefixV()));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->used_deletion_vectors);
  auto expected = Ids(0, 20);
  expected[15].v = "uv15";
  EXPECT_EQ(ReadRows(t.store()), Rows(expected, false));
  auto ci = CommitInfoAt(*t.store(), 2);
  EXPECT_EQ(Metric(ci, "numUpdatedRows"), "1");
  EXPECT_EQ(Metric(ci, "numCopiedRows"), "9");
  EXPECT_EQ(Metric(ci, "numRemovedFiles"), "1");
  EXPECT_EQ(Metric(ci, "numAddedFiles"), "1");  // copied and updated rows share one new file
  EXPECT_EQ(Metric(ci, "numDeletionVectorsAdded"), "0");
  EXPECT_EQ(t.Latest()->files().size(), 2u);
}

TEST(DmlUpdate, EveryRowOfAFileUpdatedRemovesItWithoutADv) {
  DmlTable t;
  t.Create(Ids(0, 4), false, true);
  auto r = UpdateRows(t.store(), t.Latest(), UpdateWhere(t, "", nullptr, PrefixV()));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_affected_rows, 4);
  auto snap = t.Latest();
  ASSERT_EQ(snap->files().size(), 1u);
  EXPECT_FALSE(snap->files()[0].deletion_vector.has_value());
  auto ci = CommitInfoAt(*t.store(), 1);
  EXPECT_EQ(Metric(ci, "numRemovedFiles"), "1");
  EXPECT_EQ(Metric(ci, "numDeletionVectorsAdded"), "0");
  EXPECT_EQ(*ci.operation_parameters->Find("predicate"), "\"[]\"");
  auto expected = Ids(0, 4);
  for (auto& x : expected) x.v = "u" + *x.v;
  EXPECT_EQ(ReadRows(t.store()), Rows(expected, false));
}

TEST(DmlUpdate, PartitionedUpdateMovesRowsToAnotherPartition) {
  for (bool dvs : {true, false}) {
    DmlTable t;
    t.Create(Ids(0, 5, "a"), true, dvs);
    t.Append(Ids(5, 10, "b"));
    auto faulty = std::make_shared<FaultInjectingObjectStore>(t.store());
    FaultRule no_b = FaultRule::FailAll(ObjectOp::kOpenRead);
    no_b.key_contains = "p=b/";
    faulty->AddRule(no_b);
    auto r = UpdateRows(
        faulty, t.Latest(faulty),
        UpdateWhere(t, "(p = 'a' AND id >= 3)", MatchInt(0, [](int64_t v) { return v >= 3; }),
                    PrefixV("b"), InPartition("a")));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(faulty->faults_injected(), 0);
    EXPECT_EQ(r->num_affected_rows, 2);
    auto expected = Ids(0, 5, "a");
    for (auto& x : Ids(5, 10, "b")) expected.push_back(x);
    for (int i = 3; i < 5; ++i) {
      expected[i].v = "uv" + std::to_string(i);
      expected[i].p = "b";
    }
    EXPECT_EQ(ReadRows(t.store()), Rows(expected, true)) << dvs;
    auto snap = t.Latest();
    for (const auto& f : snap->files()) {
      EXPECT_EQ(f.path.substr(0, 4), "p=" + **f.partition_values.Find("p") + "/");
    }
  }
}

TEST(DmlUpdate, KAllFilesAreReadAndEveryRowUpdatedWithoutCallingTheMatcher) {
  DmlTable t;
  t.Create(Ids(0, 3, "a"), true, true);
  t.Append(Ids(3, 6, "b"));
  bool called = false;
  auto r = UpdateRows(t.store(), t.Latest(),
                      UpdateWhere(
                          t, "(p = 'a')",
                          [&](const DataChunk&) -> Result<std::vector<uint32_t>> {
                            called = true;
                            return std::vector<uint32_t>{};
                          },
                          PrefixV(), PartitionIs("a")));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(called);
  EXPECT_EQ(r->num_affected_rows, 3);
  auto expected = Ids(0, 3, "a");
  for (auto& x : expected) x.v = "u" + *x.v;
  for (auto& x : Ids(3, 6, "b")) expected.push_back(x);
  EXPECT_EQ(ReadRows(t.store()), Rows(expected, true));
}

TEST(DmlUpdate, NullsInThePredicateColumnAreNotUpdated) {
  DmlTable t;
  t.Create({{std::nullopt, "a", {}},
            {1, std::nullopt, {}},
            {2, "b", {}},
            {std::nullopt, std::nullopt, {}}},
           false, true);
  auto r = UpdateRows(
      t.store(), t.Latest(),
      UpdateWhere(t, "(id >= 1)", MatchInt(0, [](int64_t v) { return v >= 1; }), PrefixV()));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_affected_rows, 2);
  EXPECT_EQ(ReadRows(t.store()), Sorted({"NULL|a", "NULL|NULL", "1|NULL", "2|ub"}));
}

TEST(DmlUpdate, UpdaterMustKeepRowCountAndSchema) {
  DmlTable t;
  t.Create(Ids(0, 4), false, true);
  auto drop_one = [](const DataChunk& in) -> Result<DataChunk> {
    DataChunk out = DataChunk::FromSchema(testing::RowSchema(false));
    for (size_t k = 0; k < 2; ++k) out.columns[k].AppendRange(in.columns[k], 0, in.size() - 1);
    return out;
  };
  auto r = UpdateRows(t.store(), t.Latest(), UpdateWhere(t, "", nullptr, drop_one));
  EXPECT_EQ(r.status().error_class(), kErrorUpdateRowCount);
  auto wrong_type = [](const DataChunk& in) -> Result<DataChunk> {
    DataChunk out;
    out.columns.push_back(in.columns[1]);
    out.columns.push_back(in.columns[1]);
    return out;
  };
  r = UpdateRows(t.store(), t.Latest(), UpdateWhere(t, "", nullptr, wrong_type));
  EXPECT_EQ(r.status().error_class(), kErrorUpdateRowCount);
  EXPECT_EQ(t.Latest()->version(), 0);
  EXPECT_EQ(ReadRows(t.store()), Rows(Ids(0, 4), false));
}

TEST(DmlUpdate, NoMatchWritesNoCommit) {
  DmlTable t;
  t.Create(Ids(0, 4), false, true);
  auto r = UpdateRows(
      t.store(), t.Latest(),
      UpdateWhere(t, "(id > 9)", MatchInt(0, [](int64_t v) { return v > 9; }), PrefixV()));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->version.has_value());
  EXPECT_EQ(t.Latest()->version(), 0);
}

TEST(DmlUpdate, RepeatedUpdatesOnATableWithDvsKeepRecordCounts) {
  DmlTable t;
  t.Create(Ids(0, 20), false, true);
  for (int round = 0; round < 3; ++round) {
    auto r = UpdateRows(
        t.store(), t.Latest(),
        UpdateWhere(t, "(id % 3 = round)",
                    MatchInt(0, [round](int64_t v) { return v % 3 == round; }), PrefixV()));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  auto expected = Ids(0, 20);
  for (auto& x : expected) x.v = "u" + *x.v;
  EXPECT_EQ(ReadRows(t.store()), Rows(expected, false));
}

TEST(DmlUpdate, ConcurrentUpdateOfTheSameFileConflicts) {
  DmlTable t;
  t.Create(Ids(0, 10), false, true);
  auto snap = t.Latest();
  ASSERT_TRUE(
      UpdateRows(t.store(), snap,
                 UpdateWhere(t, "a", MatchInt(0, [](int64_t v) { return v == 1; }), PrefixV()))
          .ok());
  auto r =
      UpdateRows(t.store(), snap,
                 UpdateWhere(t, "b", MatchInt(0, [](int64_t v) { return v == 2; }), PrefixV()));
  EXPECT_EQ(r.status().error_class(), "DELTA_CONCURRENT_DELETE_DELETE");
}

TEST(DmlUpdate, AnyFailedStoreOperationLeavesTheTableAsItWas) {
  for (bool dvs : {true, false}) {
    for (int64_t n = 0;; ++n) {
      DmlTable t;
      t.Create(Ids(0, 5, "a"), true, dvs);
      t.Append(Ids(5, 10, "b"));
      auto before = ReadRows(t.store());
      auto faulty = std::make_shared<FaultInjectingObjectStore>(t.store());
      auto snap = t.Latest(faulty);
      faulty->AddRule(FaultRule::FailAfter(n));
      auto r = UpdateRows(
          faulty, snap,
          UpdateWhere(t, "x", MatchInt(0, [](int64_t v) { return v % 2 == 0; }), PrefixV("c")));
      if (faulty->faults_injected() == 0) {
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        EXPECT_EQ(ReadRows(t.store()).size(), 10u);
        break;
      }
      EXPECT_FALSE(r.ok());
      EXPECT_EQ(t.Latest()->version(), 1) << n;
      EXPECT_EQ(ReadRows(t.store()), before) << n;
      ASSERT_LT(n, 200);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The primitive, as MERGE uses it

TEST(DmlApplyRowChanges, MergeStyleDeletionsAndInsertsWithMergeMetricNames) {
  DmlTable t;
  t.Create(Ids(0, 10), false, true);
  auto snap = t.Latest();
  RowChanges c;
  c.operation = "MERGE";
  c.parameters.Set("predicate", PredicateParameter("(t.id = s.id)"));
  c.metric_names = MetricNames::kMerge;
  c.extra_metrics = {{"numSourceRows", 4},
                     {"numTargetRowsInserted", 2},
                     {"numTargetRowsUpdated", 1},
                     {"numTargetRowsDeleted", 1}};
  FileRowDeletion d{snap->files()[0], {}, false};
  ASSERT_TRUE(d.rows.Add(2).ok());  // updated
  ASSERT_TRUE(d.rows.Add(7).ok());  // deleted
  c.deletions.push_back(d);
  c.new_rows.push_back(
      testing::MakeRows({{2, "new2", {}}, {100, "i100", {}}, {101, "i101", {}}}, false));
  c.read_files = {snap->files()[0].path};
  auto r = ApplyRowChanges(t.store(), snap, std::move(c), t.Options());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->version, 1);
  auto ci = CommitInfoAt(*t.store(), 1);
  EXPECT_EQ(ci.operation, "MERGE");
  EXPECT_EQ(Metric(ci, "numTargetFilesAdded"), "1");
  EXPECT_EQ(Metric(ci, "numTargetFilesRemoved"), "0");
  EXPECT_EQ(Metric(ci, "numTargetDeletionVectorsAdded"), "1");
  EXPECT_EQ(Metric(ci, "numTargetDeletionVectorsRemoved"), "0");
  EXPECT_EQ(Metric(ci, "numTargetDeletionVectorsUpdated"), "0");
  EXPECT_EQ(Metric(ci, "numTargetRowsCopied"), "0");
  EXPECT_EQ(Metric(ci, "numTargetChangeFilesAdded"), "0");
  EXPECT_EQ(Metric(ci, "numSourceRows"), "4");
  EXPECT_EQ(Metric(ci, "numTargetRowsInserted"), "2");
  EXPECT_EQ(Metric(ci, "numAddedFiles"), "<absent>");
  EXPECT_NE(Metric(ci, "numTargetBytesAdded"), "0");
  auto expected = Ids(0, 10);
  expected.erase(expected.begin() + 7);
  expected[2].v = "new2";
  expected.push_back({100, "i100", {}});
  expected.push_back({101, "i101", {}});
  EXPECT_EQ(ReadRows(t.store()), Rows(expected, false));
}

TEST(DmlApplyRowChanges, InsertOnlyTouchesNoFileAndEmptyChangesCommitNothing) {
  DmlTable t;
  t.Create(Ids(0, 3), false, true);
  RowChanges empty;
  empty.operation = "MERGE";
  auto r0 = ApplyRowChanges(t.store(), t.Latest(), empty, t.Options());
  ASSERT_TRUE(r0.ok());
  EXPECT_FALSE(r0->version.has_value());
  RowChanges c;
  c.operation = "MERGE";
  c.metric_names = MetricNames::kMerge;
  c.new_rows.push_back(testing::MakeRows({{9, "x", {}}}, false));
  auto r = ApplyRowChanges(t.store(), t.Latest(), std::move(c), t.Options());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 1);
  for (auto& a : ActionsAt(*t.store(), 1)) EXPECT_FALSE(a.get_if<delta::RemoveFile>());
  EXPECT_EQ(ReadRows(t.store()).size(), 4u);
}

TEST(DmlApplyRowChanges, DeletingRowsTheOldDvHidesAlreadyIsANoOp) {
  DmlTable t;
  t.Create(Ids(0, 5), false, true);
  ASSERT_TRUE(DeleteRows(t.store(), t.Latest(),
                         [&] {
                           DeleteSpec s;
                           s.matcher = MatchInt(0, [](int64_t v) { return v == 1; });
                           s.columns = {"id"};
                           s.options = t.Options();
                           return s;
                         }())
                  .ok());
  auto snap = t.Latest();
  RowChanges c;
  c.operation = "MERGE";
  FileRowDeletion d{snap->files()[0], {}, false};
  ASSERT_TRUE(d.rows.Add(1).ok());
  c.deletions.push_back(d);
  auto r = ApplyRowChanges(t.store(), snap, std::move(c), t.Options());
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->version.has_value());
}

TEST(DmlApplyRowChanges, AFileListedTwiceIsRejected) {
  DmlTable t;
  t.Create(Ids(0, 5), false, true);
  auto snap = t.Latest();
  RowChanges c;
  c.operation = "MERGE";
  c.deletions.push_back({snap->files()[0], {}, true});
  c.deletions.push_back({snap->files()[0], {}, true});
  EXPECT_EQ(ApplyRowChanges(t.store(), snap, std::move(c), t.Options()).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(t.Latest()->version(), 0);
}

// ---------------------------------------------------------------------------------------------
// Change data feed

// The rows of every cdc file of `version`, as "id|v|p|_change_type" (partition from the path).
std::vector<std::string> ChangeRowsAt(DmlTable& t, int64_t version) {
  std::vector<std::string> out;
  for (auto& a : ActionsAt(*t.store(), version)) {
    auto* c = a.get_if<delta::AddCDCFile>();
    if (!c) continue;
    EXPECT_EQ(c->path.rfind("_change_data/", 0), 0u) << c->path;
    EXPECT_FALSE(c->data_change);
    auto raw = t.store()->OpenRead(*PercentDecode(c->path));
    EXPECT_TRUE(raw.ok());
    auto pf = parquet::ParquetFile::Open(*raw);
    EXPECT_TRUE(pf.ok());
    for (int rg = 0; rg < (*pf)->num_row_groups(); ++rg) {
      DataChunk chunk;
      EXPECT_TRUE((*pf)->ReadRowGroup(rg, {}, &chunk).ok());
      for (size_t i = 0; i < chunk.size(); ++i) {
        std::string s;
        for (size_t k = 0; k < chunk.columns.size(); ++k) {
          if (k == chunk.columns.size() - 1 && !c->partition_values.empty()) {
            s += **c->partition_values.Find("p") + "|";
          }
          s += chunk.columns[k].GetValue(i).ToString();
          if (k + 1 < chunk.columns.size()) s += "|";
        }
        out.push_back(s);
      }
    }
  }
  return Sorted(out);
}

TEST(DmlChangeDataFeed, DeleteWritesDeleteRowsInTheSameCommit) {
  for (bool dvs : {true, false}) {
    DmlTable t;
    t.Create(Ids(0, 5, "a"), true, dvs, {{"delta.enableChangeDataFeed", "true"}});
    t.Append(Ids(5, 8, "b"));
    DeleteSpec s;
    s.predicate_sql = "(id IN (1, 6))";
    s.matcher = MatchInt(0, [](int64_t v) { return v == 1 || v == 6; });
    s.columns = {"id"};
    s.options = t.Options();
    auto r = DeleteRows(t.store(), t.Latest(), s);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(ChangeRowsAt(t, 2), Sorted({"1|v1|a|delete", "6|v6|b|delete"})) << dvs;
    auto ci = CommitInfoAt(*t.store(), 2);
    EXPECT_EQ(Metric(ci, "numAddedChangeFiles"), "2");
    // The change files are not table data.
    EXPECT_EQ(ReadRows(t.store()).size(), 6u);
  }
}

TEST(DmlChangeDataFeed, UpdateWritesPreAndPostImages) {
  DmlTable t;
  t.Create(Ids(0, 4), false, true, {{"delta.enableChangeDataFeed", "true"}});
  auto r = UpdateRows(
      t.store(), t.Latest(),
      UpdateWhere(t, "(id = 2)", MatchInt(0, [](int64_t v) { return v == 2; }), PrefixV()));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(ChangeRowsAt(t, 1), Sorted({"2|v2|update_preimage", "2|uv2|update_postimage"}));
}

TEST(DmlChangeDataFeed, FilesDroppedUnreadAreReadForTheFeedWhenTheCommitHasChangeFiles) {
  DmlTable t;
  t.Create(Ids(0, 3, "a"), true, true, {{"delta.enableChangeDataFeed", "true"}});
  t.Append(Ids(3, 6, "b"));
  // Partition-only: removes alone describe the change, no change files.
  DeleteSpec only_a;
  only_a.file_filter = PartitionIs("a");
  only_a.options = t.Options();
  auto r1 = DeleteRows(t.store(), t.Latest(), only_a);
  ASSERT_TRUE(r1.ok()) << r1.status().ToString();
  EXPECT_TRUE(ChangeRowsAt(t, 2).empty());
  // Mixed: partition b dropped whole, plus a row-level delete elsewhere.
  t.Append(Ids(10, 13, "c"));
  DeleteSpec mixed;
  mixed.file_filter = [](const delta::AddFile& f) -> Result<FileVerdict> {
    return **f.partition_values.Find("p") == "b" ? FileVerdict::kAll : FileVerdict::kMaybe;
  };
  mixed.matcher = MatchInt(0, [](int64_t v) { return v == 11; });
  mixed.columns = {"id"};
  mixed.options = t.Options();
  auto r2 = DeleteRows(t.store(), t.Latest(), mixed);
  ASSERT_TRUE(r2.ok()) << r2.status().ToString();
  EXPECT_EQ(ChangeRowsAt(t, 4),
            Sorted({"11|v11|c|delete", "3|v3|b|delete", "4|v4|b|delete", "5|v5|b|delete"}));
  EXPECT_EQ(ReadRows(t.store()), Sorted({"10|v10|c", "12|v12|c"}));
}

}  // namespace
}  // namespace silt::ops
