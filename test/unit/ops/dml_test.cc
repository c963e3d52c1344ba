// DELETE core (commands/dml.h): deletion vectors and copy-on-write, file-level shortcuts,
// metrics, the spec's DV bytes, Spark-written DV tables, conflicts and fault injection.
#include "ops/dml.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "delta/change_data_feed.h"
#include "delta/deletion_vector.h"
#include "delta/stats_json.h"
#include "io/local_object_store.h"
#include "io/memory_object_store.h"
#include "parquet/reader.h"
#include "support/fault_injecting_object_store.h"
#include "support/wall_clock.h"
#include "unit/delta/conformance_files.h"
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
using testing::TempDir;

delta::CommitInfo CommitInfoAt(ObjectStore& store, int64_t version) {
  std::vector<delta::Action> actions;
  auto bytes = store.Get(delta::CommitKey(version));
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  EXPECT_TRUE(delta::ParseCommit(*bytes, &actions, "c").ok());
  for (auto& a : actions) {
    if (auto* ci = a.get_if<delta::CommitInfo>()) return *ci;
  }
  ADD_FAILURE() << "no commitInfo in version " << version;
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

std::vector<std::string> Keys(ObjectStore& store, const std::string& contains) {
  std::vector<std::string> out;
  EXPECT_TRUE(store
                  .ListRecursive("",
                                 [&](const ObjectMeta& m) {
                                   if (!m.is_dir && m.key.find(contains) != std::string::npos)
                                     out.push_back(m.key);
                                   return Status::OK();
                                 })
                  .ok());
  return out;
}

std::vector<Row> Ids(int64_t from, int64_t to, std::optional<std::string> p = std::nullopt) {
  std::vector<Row> rows;
  for (int64_t i = from; i < to; ++i) rows.push_back({i, "v" + std::to_string(i), p});
  return rows;
}

std::vector<std::string> Expected(const std::vector<Row>& rows, bool partitioned) {
  std::vector<std::string> out;
  for (const Row& r : rows) {
    std::string s = (r.id ? std::to_string(*r.id) : "NULL") + "|" + (r.v ? *r.v : "NULL");
    if (partitioned) s += "|" + (r.p ? *r.p : std::string("NULL"));
    out.push_back(s);
  }
  return Sorted(out);
}

std::string Hex(std::string_view b) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : b) {
    if (!out.empty()) out += ' ';
    out += d[c >> 4];
    out += d[c & 15];
  }
  return out;
}

DeleteSpec DeleteWhere(const DmlTable& t, std::string sql, RowMatcher m, FileFilter f = nullptr) {
  DeleteSpec s;
  s.predicate_sql = std::move(sql);
  s.matcher = std::move(m);
  s.file_filter = std::move(f);
  s.columns = {"id"};
  s.options = t.Options();
  return s;
}

// ---------------------------------------------------------------------------------------------
// Deletion vectors: the spec's bytes

// Spec §1.6 Example A: rows {0, 9} of a 10-row file → the 45-byte DV file Databricks wrote.
TEST(DmlDeleteDv, WorkedExampleADvFileIsByteForByteTheSpecs) {
  DmlTable t;
  t.Create(Ids(0, 10), false, true);
  auto r = DeleteRows(
      t.store(), t.Latest(),
      DeleteWhere(t, "(value IN (0, 9))", MatchInt(0, [](int64_t v) { return v == 0 || v == 9; })));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->version, 1);
  EXPECT_TRUE(r->used_deletion_vectors);
  EXPECT_EQ(r->num_affected_rows, 2);
  auto dv_keys = Keys(*t.store(), "deletion_vector_");
  ASSERT_EQ(dv_keys.size(), 1u);
  auto bytes = t.store()->Get(dv_keys[0]);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(Hex(*bytes),
            "01 00 00 00 24 d1 d3 39 64 01 00 00 00 00 00 00 00 00 00 00 00 3a 30 00 00 01 00 00 "
            "00 00 00 01 00 10 00 00 00 00 00 09 00 2a 67 18 46");
  // remove(old, no DV) + add(same path, DV u/offset 1/36 bytes/2 rows, wide stats).
  auto actions = ActionsAt(*t.store(), 1);
  const delta::RemoveFile* rm = nullptr;
  const delta::AddFile* add = nullptr;
  for (auto& a : actions) {
    if (auto* x = a.get_if<delta::RemoveFile>()) rm = x;
    if (auto* x = a.get_if<delta::AddFile>()) add = x;
  }
  ASSERT_TRUE(rm && add);
  EXPECT_EQ(rm->path, add->path);
  EXPECT_FALSE(rm->deletion_vector.has_value());
  EXPECT_EQ(rm->extended_file_metadata, true);
  EXPECT_EQ(rm->deletion_timestamp, testing::kT0);
  ASSERT_TRUE(add->deletion_vector.has_value());
  EXPECT_EQ(add->deletion_vector->storage_type, 'u');
  EXPECT_EQ(add->deletion_vector->offset, 1);
  EXPECT_EQ(add->deletion_vector->size_in_bytes, 36);
  EXPECT_EQ(add->deletion_vector->cardinality, 2);
  EXPECT_EQ(*add->deletion_vector->AbsolutePath(""), dv_keys[0]);
  auto stats = delta::ParseStats(*add->stats, Schema{});
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->num_records, 10);
  EXPECT_EQ(stats->tight_bounds, false);
  EXPECT_NE(add->stats->find("\"minValues\":{\"id\":0,"), std::string::npos) << *add->stats;
  // History, as Databricks recorded it.
  auto ci = CommitInfoAt(*t.store(), 1);
  EXPECT_EQ(ci.operation, "DELETE");
  EXPECT_EQ(*ci.operation_parameters->Find("predicate"), "\"[\\\"(value IN (0, 9))\\\"]\"");
  EXPECT_EQ(ci.is_blind_append, false);
  EXPECT_EQ(ci.read_version, 0);
  EXPECT_EQ(Metric(ci, "numDeletionVectorsAdded"), "1");
  EXPECT_EQ(Metric(ci, "numDeletionVectorsRemoved"), "0");
  EXPECT_EQ(Metric(ci, "numDeletionVectorsUpdated"), "0");
  EXPECT_EQ(Metric(ci, "numDeletedRows"), "2");
  EXPECT_EQ(Metric(ci, "numRemovedFiles"), "0");
  EXPECT_EQ(Metric(ci, "numAddedFiles"), "0");
  EXPECT_EQ(Metric(ci, "numCopiedRows"), "0");
  EXPECT_EQ(Metric(ci, "numAddedChangeFiles"), "0");
  EXPECT_EQ(Metric(ci, "numRemovedBytes"), "0");
  EXPECT_EQ(Metric(ci, "numAddedBytes"), "0");
  EXPECT_EQ(Metric(ci, "executionTimeMs"), "0");  // manual clock
  EXPECT_EQ(Metric(ci, "scanTimeMs"), "0");
  EXPECT_EQ(Metric(ci, "rewriteTimeMs"), "0");
  auto expected = Ids(1, 9);
  EXPECT_EQ(ReadRows(t.store()), Expected(expected, false));
  EXPECT_EQ(ReadRows(t.store(), 0), Expected(Ids(0, 10), false));  // time travel unaffected
}

// Spec §1.6 Example C: two DVs in one file (rows {3,4,7,11,18,29} of one file, 0..99 of another)
// through the primitive, in the order given.
TEST(DmlDeleteDv, WorkedExampleCTwoDvsInOneFile) {
  DmlTable t;
  t.Create(Ids(0, 30), false, true);
  t.Append(Ids(100, 300));
  auto snap = t.Latest();
  ASSERT_EQ(snap->files().size(), 2u);
  const delta::AddFile* small = &snap->files()[0];
  const delta::AddFile* big = &snap->files()[1];
  if (small->size > big->size) std::swap(small, big);
  RowChanges c;
  c.operation = "DELETE";
  c.parameters.Set("predicate", PredicateParameter("x"));
  FileRowDeletion d1{*small, {}, false}, d2{*big, {}, false};
  for (uint64_t r : {3, 4, 7, 11, 18, 29}) ASSERT_TRUE(d1.rows.Add(r).ok());
  ASSERT_TRUE(d2.rows.AddRange(0, 100).ok());
  c.deletions = {d1, d2};
  auto r = ApplyRowChanges(t.store(), snap, std::move(c), t.Options());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto dv_keys = Keys(*t.store(), "deletion_vector_");
  ASSERT_EQ(dv_keys.size(), 1u);
  auto bytes = t.store()->Get(dv_keys[0]);
  ASSERT_TRUE(bytes.ok());
  ASSERT_EQ(bytes->size(), 92u);
  EXPECT_EQ(Hex(bytes->substr(0, 5)), "01 00 00 00 2c");
  EXPECT_EQ(Hex(bytes->substr(5 + 44, 4)), "ac d7 4a 79");
  EXPECT_EQ(Hex(bytes->substr(53)),
            "00 00 00 1f d1 d3 39 64 01 00 00 00 00 00 00 00 00 00 00 00 3b 30 00 00 01 00 00 63 "
            "00 01 00 00 00 63 00 88 3c d5 29");
  auto after = t.Latest();
  int seen = 0;
  for (const auto& f : after->files()) {
    ASSERT_TRUE(f.deletion_vector.has_value());
    if (f.deletion_vector->cardinality == 6) {
      EXPECT_EQ(f.deletion_vector->offset, 1);
      EXPECT_EQ(f.deletion_vector->size_in_bytes, 44);
      ++seen;
    } else {
      EXPECT_EQ(f.deletion_vector->offset, 53);
      EXPECT_EQ(f.deletion_vector->size_in_bytes, 31);
      EXPECT_EQ(f.deletion_vector->cardinality, 100);
      ++seen;
    }
  }
  EXPECT_EQ(seen, 2);
  EXPECT_EQ(ReadRows(t.store()).size(), 30u - 6 + 200 - 100);
  auto ci = CommitInfoAt(*t.store(), 2);
  EXPECT_EQ(Metric(ci, "numDeletionVectorsAdded"), "2");
  EXPECT_EQ(Metric(ci, "numDeletedRows"), "106");
}

// ---------------------------------------------------------------------------------------------
// Deletion vectors: merging, full removal, NULLs

TEST(DmlDeleteDv, SecondDeleteUnionsWithTheExistingDv) {
  DmlTable t;
  t.Create(Ids(0, 10), false, true);
  ASSERT_TRUE(DeleteRows(t.store(), t.Latest(),
                         DeleteWhere(t, "id < 3", MatchInt(0, [](int64_t v) { return v < 3; })))
                  .ok());
  auto r = DeleteRows(t.store(), t.Latest(),
                      DeleteWhere(t, "id % 2 = 1", MatchInt(0, [](int64_t v) { return v % 2; })));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_affected_rows, 4);  // 3, 5, 7, 9: row 1 was deleted already
  auto snap = t.Latest();
  ASSERT_EQ(snap->files().size(), 1u);
  auto dv = delta::LoadDeletionVector(*snap, snap->files()[0]);
  ASSERT_TRUE(dv.ok() && dv->has_value());
  EXPECT_EQ((*dv)->ToSortedVector(), (std::vector<uint64_t>{0, 1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(ReadRows(t.store()), Expected({{4, "v4", {}}, {6, "v6", {}}, {8, "v8", {}}}, false));
  auto ci = CommitInfoAt(*t.store(), 2);
  // An updated DV counts as added + removed + updated (spec §2.7).
  EXPECT_EQ(Metric(ci, "numDeletionVectorsAdded"), "1");
  EXPECT_EQ(Metric(ci, "numDeletionVectorsRemoved"), "1");
  EXPECT_EQ(Metric(ci, "numDeletionVectorsUpdated"), "1");
  // The remove carries the old DV so it cancels exactly the old (path, DV).
  for (auto& a : ActionsAt(*t.store(), 2)) {
    if (auto* rm = a.get_if<delta::RemoveFile>()) {
      ASSERT_TRUE(rm->deletion_vector.has_value());
      EXPECT_EQ(rm->deletion_vector->cardinality, 3);
    }
  }
}

TEST(DmlDeleteDv, MatcherSeesOnlyLiveRowsAndNewlyDeletedCountsOnce) {
  DmlTable t;
  t.Create(Ids(0, 10), false, true);
  ASSERT_TRUE(DeleteRows(t.store(), t.Latest(),
                         DeleteWhere(t, "id < 5", MatchInt(0, [](int64_t v) { return v < 5; })))
                  .ok());
  size_t seen = 0;
  DeleteSpec s = DeleteWhere(t, "true", [&](const DataChunk& c) -> Result<std::vector<uint32_t>> {
    seen += c.size();
    EXPECT_EQ(c.columns.size(), 1u);
    return std::vector<uint32_t>{0};
  });
  auto r = DeleteRows(t.store(), t.Latest(), s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(seen, 5u);
  EXPECT_EQ(r->num_affected_rows, 1);
  EXPECT_EQ(ReadRows(t.store()), Expected(Ids(6, 10), false));
}

TEST(DmlDeleteDv, FileWhoseRowsAreAllDeletedIsRemovedWithoutADv) {
  DmlTable t;
  t.Create(Ids(0, 4), false, true);
  t.Append(Ids(10, 14));
  ASSERT_TRUE(DeleteRows(t.store(), t.Latest(),
                         DeleteWhere(t, "id < 2", MatchInt(0, [](int64_t v) { return v < 2; })))
                  .ok());
  // The rest of the first file (2, 3) plus one row of the second.
  auto r = DeleteRows(
      t.store(), t.Latest(),
      DeleteWhere(t, "id < 4 OR id = 13", MatchInt(0, [](int64_t v) { return v < 4 || v == 13; })));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_affected_rows, 3);
  auto snap = t.Latest();
  ASSERT_EQ(snap->files().size(), 1u);
  EXPECT_EQ(snap->files()[0].deletion_vector->cardinality, 1);
  auto ci = CommitInfoAt(*t.store(), 3);
  EXPECT_EQ(Metric(ci, "numRemovedFiles"), "1");
  EXPECT_EQ(Metric(ci, "numDeletionVectorsAdded"), "1");    // the second file's new DV
  EXPECT_EQ(Metric(ci, "numDeletionVectorsRemoved"), "1");  // the emptied file's DV
  EXPECT_EQ(Metric(ci, "numDeletionVectorsUpdated"), "0");
  EXPECT_EQ(Metric(ci, "numDeletedRows"), "3");
  EXPECT_NE(Metric(ci, "numRemovedBytes"), "0");
  EXPECT_EQ(ReadRows(t.store()), Expected(Ids(10, 13), false));
}

TEST(DmlDeleteDv, NullHeavyDataKeepsRowsWherePredicateIsNull) {
  DmlTable t;
  std::vector<Row> rows;
  for (int i = 0; i < 50; ++i) {
    rows.push_back({i % 3 == 0 ? std::nullopt : std::optional<int64_t>(i),
                    i % 2 ? std::nullopt : std::optional<std::string>("x"), std::nullopt});
  }
  t.Create(rows, false, true);
  // DELETE WHERE id > 20: NULL ids are kept.
  auto r = DeleteRows(t.store(), t.Latest(),
                      DeleteWhere(t, "id > 20", MatchInt(0, [](int64_t v) { return v > 20; })));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<Row> keep;
  for (const Row& x : rows) {
    if (!x.id || *x.id <= 20) keep.push_back(x);
  }
  EXPECT_EQ(r->num_affected_rows, static_cast<int64_t>(rows.size() - keep.size()));
  EXPECT_EQ(ReadRows(t.store()), Expected(keep, false));
  // DELETE WHERE v IS NULL (a matcher on the string column).
  DeleteSpec s =
      DeleteWhere(t, "v IS NULL", [](const DataChunk& c) -> Result<std::vector<uint32_t>> {
        std::vector<uint32_t> out;
        for (size_t i = 0; i < c.size(); ++i) {
          if (c.columns[0].IsNull(i)) out.push_back(static_cast<uint32_t>(i));
        }
        return out;
      });
  s.columns = {"v"};
  ASSERT_TRUE(DeleteRows(t.store(), t.Latest(), s).ok());
  std::vector<Row> keep2;
  for (const Row& x : keep) {
    if (x.v) keep2.push_back(x);
  }
  EXPECT_EQ(ReadRows(t.store()), Expected(keep2, false));
}

TEST(DmlDeleteDv, NoMatchWritesNoCommit) {
  DmlTable t;
  t.Create(Ids(0, 10), false, true);
  auto r = DeleteRows(t.store(), t.Latest(),
                      DeleteWhere(t, "id > 100", MatchInt(0, [](int64_t v) { return v > 100; })));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->version.has_value());
  EXPECT_EQ(r->num_affected_rows, 0);
  EXPECT_EQ(t.Latest()->version(), 0);
  EXPECT_TRUE(Keys(*t.store(), "deletion_vector_").empty());
}

TEST(DmlDeleteDv, BadMatcherIndexesAreRejectedBeforeAnythingIsWritten) {
  DmlTable t;
  t.Create(Ids(0, 10), false, true);
  for (std::vector<uint32_t> bad :
       {std::vector<uint32_t>{10}, std::vector<uint32_t>{3, 3}, std::vector<uint32_t>{4, 2}}) {
    auto r = DeleteRows(
        t.store(), t.Latest(),
        DeleteWhere(t, "x",
                    [bad](const DataChunk&) -> Result<std::vector<uint32_t>> { return bad; }));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().error_class(), kErrorBadMatcherResult);
  }
  auto err = DeleteRows(t.store(), t.Latest(),
                        DeleteWhere(t, "x", [](const DataChunk&) -> Result<std::vector<uint32_t>> {
                          return Status::InvalidArgument("boom", "MY_CLASS");
                        }));
  EXPECT_EQ(err.status().error_class(), "MY_CLASS");
  DeleteSpec unknown = DeleteWhere(t, "x", MatchInt(0, [](int64_t) { return true; }));
  unknown.columns = {"nope"};
  EXPECT_EQ(DeleteRows(t.store(), t.Latest(), unknown).status().error_class(), "UNRESOLVED_COLUMN");
  EXPECT_EQ(t.Latest()->version(), 0);
  EXPECT_EQ(ReadRows(t.store()), Expected(Ids(0, 10), false));
}

TEST(DmlDeleteDv, ExplicitDvsOnATableWithoutTheFeatureFail) {
  DmlTable t;
  t.Create(Ids(0, 10), false, false);
  DeleteSpec s = DeleteWhere(t, "x", MatchInt(0, [](int64_t v) { return v == 1; }));
  s.options.use_deletion_vectors = true;
  EXPECT_EQ(DeleteRows(t.store(), t.Latest(), s).status().error_class(), kErrorDvFeatureMissing);
}

TEST(DmlDeleteDv, AppendOnlyTableRefusesBeforeWriting) {
  DmlTable t;
  t.Create(Ids(0, 10), false, true, {{"delta.appendOnly", "true"}});
  auto r = DeleteRows(t.store(), t.Latest(),
                      DeleteWhere(t, "x", MatchInt(0, [](int64_t v) { return v == 1; })));
  EXPECT_EQ(r.status().error_class(), "DELTA_CANNOT_MODIFY_APPEND_ONLY");
  EXPECT_TRUE(Keys(*t.store(), "deletion_vector_").empty());
}

TEST(DmlDeleteDv, RandomPrefixPutsDvFilesInAPrefixDirectory) {
  DmlTable t;
  t.Create(Ids(0, 10), false, true,
           {{"delta.randomizeFilePrefixes", "true"}, {"delta.randomPrefixLength", "3"}});
  ASSERT_TRUE(DeleteRows(t.store(), t.Latest(),
                         DeleteWhere(t, "x", MatchInt(0, [](int64_t v) { return v == 1; })))
                  .ok());
  auto keys = Keys(*t.store(), "deletion_vector_");
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0].find('/'), 3u) << keys[0];
  EXPECT_EQ(ReadRows(t.store()).size(), 9u);
}

// ---------------------------------------------------------------------------------------------
// Copy-on-write

TEST(DmlDeleteCow, RewritesTouchedFilesOnly) {
  DmlTable t;
  t.Create(Ids(0, 10), false, false);
  t.Append(Ids(10, 20));
  auto r = DeleteRows(
      t.store(), t.Latest(),
      DeleteWhere(t, "id IN (1, 2)", MatchInt(0, [](int64_t v) { return v == 1 || v == 2; })));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->used_deletion_vectors);
  EXPECT_EQ(r->num_affected_rows, 2);
  EXPECT_TRUE(Keys(*t.store(), "deletion_vector_").empty());
  auto ci = CommitInfoAt(*t.store(), 2);
  EXPECT_EQ(Metric(ci, "numRemovedFiles"), "1");
  EXPECT_EQ(Metric(ci, "numAddedFiles"), "1");
  EXPECT_EQ(Metric(ci, "numCopiedRows"), "8");
  EXPECT_EQ(Metric(ci, "numDeletedRows"), "2");
  EXPECT_EQ(Metric(ci, "numDeletionVectorsAdded"), "0");
  EXPECT_NE(Metric(ci, "numAddedBytes"), "0");
  EXPECT_NE(Metric(ci, "numRemovedBytes"), "0");
  auto snap = t.Latest();
  ASSERT_EQ(snap->files().size(), 2u);
  std::vector<int64_t> counts;
  for (const auto& f : snap->files()) {
    EXPECT_FALSE(f.deletion_vector.has_value());
    auto st = delta::ParseStats(*f.stats, Schema{});
    counts.push_back(*st->num_records);
  }
  std::sort(counts.begin(), counts.end());
  EXPECT_EQ(counts, (std::vector<int64_t>{8, 10}));
  std::vector<Row> expected = Ids(0, 20);
  expected.erase(expected.begin() + 1, expected.begin() + 3);
  EXPECT_EQ(ReadRows(t.store()), Expected(expected, false));
}

// Spec §10 #28: a table that has DVs but DVs now disabled → copy-on-write that honours the old DV.
TEST(DmlDeleteCow, TableWithDvsButPropertyOffRewritesAndDropsTheDv) {
  DmlTable t;
  t.Create(Ids(0, 10), false, true);
  ASSERT_TRUE(DeleteRows(t.store(), t.Latest(),
                         DeleteWhere(t, "id < 3", MatchInt(0, [](int64_t v) { return v < 3; })))
                  .ok());
  DeleteSpec s = DeleteWhere(t, "id = 5", MatchInt(0, [](int64_t v) { return v == 5; }));
  s.options.use_deletion_vectors = false;
  auto r = DeleteRows(t.store(), t.Latest(), s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_affected_rows, 1);
  auto snap = t.Latest();
  ASSERT_EQ(snap->files().size(), 1u);
  EXPECT_FALSE(snap->files()[0].deletion_vector.has_value());
  auto ci = CommitInfoAt(*t.store(), 2);
  EXPECT_EQ(Metric(ci, "numDeletionVectorsRemoved"), "1");
  EXPECT_EQ(Metric(ci, "numCopiedRows"), "6");
  EXPECT_EQ(ReadRows(t.store()), Expected({{3, "v3", {}},
                                           {4, "v4", {}},
                                           {6, "v6", {}},
                                           {7, "v7", {}},
                                           {8, "v8", {}},
                                           {9, "v9", {}}},
                                          false));
}

TEST(DmlDeleteCow, AllRowsOfAFileDeletedAddsNothing) {
  DmlTable t;
  t.Create(Ids(0, 5), false, false);
  auto r = DeleteRows(t.store(), t.Latest(),
                      DeleteWhere(t, "id < 5", MatchInt(0, [](int64_t v) { return v < 5; })));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(t.Latest()->files().empty());
  auto ci = CommitInfoAt(*t.store(), 1);
  EXPECT_EQ(Metric(ci, "numAddedFiles"), "0");
  EXPECT_EQ(Metric(ci, "numRemovedFiles"), "1");
  EXPECT_EQ(Metric(ci, "numDeletedRows"), "5");
}

// ---------------------------------------------------------------------------------------------
// Partitions and file-level shortcuts

void CreatePartitioned(DmlTable& t, bool dvs) {
  t.Create(Ids(0, 5, "a"), true, dvs);
  t.Append(Ids(5, 10, "b"));
  t.Append(Ids(10, 15, "a"));
}

TEST(DmlDeletePartitions, PartitionOnlyPredicateRemovesFilesUnread) {
  for (bool dvs : {true, false}) {
    DmlTable t;
    CreatePartitioned(t, dvs);
    auto faulty = std::make_shared<FaultInjectingObjectStore>(t.store());
    FaultRule no_reads = FaultRule::FailAll(ObjectOp::kOpenRead);
    no_reads.key_contains = ".parquet";
    faulty->AddRule(no_reads);
    DeleteSpec s;
    s.predicate_sql = "(p = 'a')";
    s.file_filter = PartitionIs("a");
    s.options = t.Options();
    auto r = DeleteRows(faulty, t.Latest(faulty), s);  // no matcher: the filter decides
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(faulty->faults_injected(), 0);
    EXPECT_EQ(r->metrics.files_removed_unread, 2);
    EXPECT_EQ(r->metrics.files_read, 0);
    EXPECT_EQ(r->num_affected_rows, 10);  // from stats
    EXPECT_TRUE(Keys(*t.store(), "deletion_vector_").empty());
    auto ci = CommitInfoAt(*t.store(), 3);
    EXPECT_EQ(Metric(ci, "numRemovedFiles"), "2");
    EXPECT_EQ(Metric(ci, "numDeletedRows"), "10");
    EXPECT_EQ(Metric(ci, "numAddedFiles"), "0");
    EXPECT_EQ(ReadRows(t.store()), Expected(Ids(5, 10, "b"), true));
  }
}

TEST(DmlDeletePartitions, SkippedFilesAreNeverOpened) {
  DmlTable t;
  CreatePartitioned(t, true);
  auto faulty = std::make_shared<FaultInjectingObjectStore>(t.store());
  FaultRule no_b = FaultRule::FailAll();
  no_b.key_contains = "p=b";
  faulty->AddRule(no_b);
  auto r =
      DeleteRows(faulty, t.Latest(faulty),
                 DeleteWhere(t, "p = 'a' AND id % 2 = 0",
                             MatchInt(0, [](int64_t v) { return v % 2 == 0; }), InPartition("a")));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(faulty->faults_injected(), 0);
  EXPECT_EQ(r->metrics.files_skipped, 1);
  EXPECT_EQ(r->metrics.files_read, 2);
  EXPECT_EQ(r->num_affected_rows, 3 + 3);  // 0 2 4, 10 12 14
  std::vector<Row> expected;
  for (const Row& x : Ids(0, 15)) {
    bool in_a = *x.id < 5 || *x.id >= 10;
    if (in_a && *x.id % 2 == 0) continue;
    expected.push_back({x.id, x.v, in_a ? "a" : "b"});
  }
  EXPECT_EQ(ReadRows(t.store()), Expected(expected, true));
  // New adds keep their partition values.
  auto latest = t.Latest();
  for (const auto& f : latest->files()) {
    EXPECT_EQ(f.path.substr(0, 4) == "p=a/", **f.partition_values.Find("p") == "a");
  }
}

TEST(DmlDeletePartitions, CopyOnWriteKeepsPartitionValues) {
  DmlTable t;
  CreatePartitioned(t, false);
  auto r = DeleteRows(
      t.store(), t.Latest(),
      DeleteWhere(t, "id IN (1, 6)", MatchInt(0, [](int64_t v) { return v == 1 || v == 6; })));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<Row> expected;
  for (const Row& x : Ids(0, 15)) {
    if (*x.id == 1 || *x.id == 6) continue;
    expected.push_back({x.id, x.v, (*x.id >= 5 && *x.id < 10) ? "b" : "a"});
  }
  EXPECT_EQ(ReadRows(t.store()), Expected(expected, true));
  auto ci = CommitInfoAt(*t.store(), 3);
  EXPECT_EQ(Metric(ci, "numRemovedFiles"), "2");
  EXPECT_EQ(Metric(ci, "numAddedFiles"), "2");
  EXPECT_EQ(Metric(ci, "numCopiedRows"), "8");
}

// Spec §10 #27 / §2.3: DELETE without a condition removes every file; DV'd files count as
// numDeletionVectorsRemoved; numDeletedRows = numRecords - cardinality from the log.
TEST(DmlDeleteWholeTable, RemovesEveryFileWithRowCountsFromStats) {
  DmlTable t;
  t.Create(Ids(0, 10), false, true);
  t.Append(Ids(10, 20));
  ASSERT_TRUE(DeleteRows(t.store(), t.Latest(),
                         DeleteWhere(t, "id < 3", MatchInt(0, [](int64_t v) { return v < 3; })))
                  .ok());
  auto faulty = std::make_shared<FaultInjectingObjectStore>(t.store());
  DeleteSpec s;
  s.options = t.Options();
  auto r = DeleteRows(faulty, t.Latest(faulty), s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(faulty->op_count(ObjectOp::kOpenRead), 0);
  EXPECT_EQ(r->num_affected_rows, 17);
  EXPECT_TRUE(t.Latest()->files().empty());
  auto ci = CommitInfoAt(*t.store(), 3);
  EXPECT_EQ(*ci.operation_parameters->Find("predicate"), "\"[]\"");
  EXPECT_EQ(Metric(ci, "numRemovedFiles"), "2");
  EXPECT_EQ(Metric(ci, "numDeletionVectorsRemoved"), "1");
  EXPECT_EQ(Metric(ci, "numDeletedRows"), "17");
  EXPECT_TRUE(ReadRows(t.store()).empty());
}

TEST(DmlDeleteWholeTable, WithoutStatsRowMetricsAreOmittedAsSparkDoes) {
  DmlTable t;
  t.Create(Ids(0, 10), false, false);
  // Strip the stats from the add (an old writer's table).
  auto snap = t.Latest();
  delta::AddFile f = snap->files()[0];
  delta::Transaction txn(t.store(), snap, t.TxnOptions());
  // Re-adding the same (path, DV) replaces the add (no remove: a commit may not hold both).
  f.stats.reset();
  f.data_change = false;
  txn.Add(f);
  ASSERT_TRUE(txn.Commit().ok());
  DeleteSpec s;
  s.options = t.Options();
  auto r = DeleteRows(t.store(), t.Latest(), s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_affected_rows, -1);
  auto ci = CommitInfoAt(*t.store(), 2);
  EXPECT_EQ(Metric(ci, "numRemovedFiles"), "1");
  EXPECT_EQ(Metric(ci, "numDeletedRows"), "<absent>");
  EXPECT_EQ(Metric(ci, "numCopiedRows"), "<absent>");
  EXPECT_EQ(Metric(ci, "numAddedFiles"), "<absent>");
}

TEST(DmlDeleteDv, FileWithoutStatsGetsNumRecordsFromTheFooter) {
  DmlTable t;
  t.Create(Ids(0, 10), false, true);
  auto snap = t.Latest();
  delta::AddFile f = snap->files()[0];
  delta::Transaction txn(t.store(), snap, t.TxnOptions());
  // Re-adding the same (path, DV) replaces the add (no remove: a commit may not hold both).
  f.stats.reset();
  f.data_change = false;
  txn.Add(f);
  ASSERT_TRUE(txn.Commit().ok());
  ASSERT_TRUE(DeleteRows(t.store(), t.Latest(),
                         DeleteWhere(t, "id = 4", MatchInt(0, [](int64_t v) { return v == 4; })))
                  .ok());
  auto after = t.Latest();
  EXPECT_EQ(*after->files()[0].stats, "{\"numRecords\":10,\"tightBounds\":false}");
  EXPECT_EQ(ReadRows(t.store()).size(), 9u);
}

// ---------------------------------------------------------------------------------------------
// Spark-written tables that already carry DVs (copied: ../shared is read-only)

std::string CopyConformanceTable(const TempDir& tmp, const std::string& rel) {
  std::string dir = delta::testing::ConformanceDir();
  if (dir.empty()) return "";
  std::string dst = tmp.path() + "/t";
  std::filesystem::copy(dir + "/" + rel, dst, std::filesystem::copy_options::recursive);
  return dst;
}

TEST(DmlDeleteConformance, TableWithDvSmallDeletesMoreRows) {
  TempDir tmp;
  std::string root = CopyConformanceTable(tmp, "kernel-data/table-with-dv-small");
  if (root.empty()) GTEST_SKIP() << "no conformance data";
  DmlTable t(std::make_shared<LocalObjectStore>(root));
  // Spark deleted {0, 9}; delete 5 and 6 more.
  ASSERT_EQ(ReadRows(t.store()), Sorted({"1", "2", "3", "4", "5", "6", "7", "8"}));
  DeleteSpec s =
      DeleteWhere(t, "(value IN (5, 6))", [](const DataChunk& c) -> Result<std::vector<uint32_t>> {
        std::vector<uint32_t> out;
        for (size_t i = 0; i < c.size(); ++i) {
          int32_t v = c.columns[0].Get<int32_t>(i);
          if (c.columns[0].IsValid(i) && (v == 5 || v == 6))
            out.push_back(static_cast<uint32_t>(i));
        }
        return out;
      });
  s.columns = {"value"};
  auto r = DeleteRows(t.store(), t.Latest(), s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_affected_rows, 2);
  EXPECT_EQ(ReadRows(t.store()), Sorted({"1", "2", "3", "4", "7", "8"}));
  auto snap = t.Latest();
  auto dv = delta::LoadDeletionVector(*snap, snap->files()[0]);
  ASSERT_TRUE(dv.ok() && dv->has_value());
  EXPECT_EQ((*dv)->ToSortedVector(), (std::vector<uint64_t>{0, 5, 6, 9}));
  auto ci = CommitInfoAt(*t.store(), 2);
  EXPECT_EQ(Metric(ci, "numDeletionVectorsUpdated"), "1");
  // Spark's original DV file is untouched (time travel to version 1 still works).
  EXPECT_EQ(ReadRows(t.store(), 1).size(), 8u);
  // The add keeps Spark's tags and modificationTime.
  EXPECT_EQ(snap->files()[0].modification_time, 1677811178336);
  EXPECT_TRUE(snap->files()[0].tags->Contains("INSERTION_TIME"));
}

// Spark-written (part, col1, col2) tables with DVs in several partitions: delete the odd col1
// rows everywhere and compare with the rows read before.
void DeleteOddCol1(const std::string& rel) {
  TempDir tmp;
  std::string root = CopyConformanceTable(tmp, rel);
  if (root.empty()) GTEST_SKIP() << "no conformance data";
  DmlTable t(std::make_shared<LocalObjectStore>(root));
  auto before = ReadRows(t.store());
  ASSERT_FALSE(before.empty());
  // (part, col1, col2): delete rows whose col1 is odd, in every partition.
  auto odd = [](const DataChunk& c) -> Result<std::vector<uint32_t>> {
    std::vector<uint32_t> out;
    for (size_t i = 0; i < c.size(); ++i) {
      if (c.columns[0].IsValid(i) && c.columns[0].Get<int32_t>(i) % 2 != 0) {
        out.push_back(static_cast<uint32_t>(i));
      }
    }
    return out;
  };
  DeleteSpec s = DeleteWhere(t, "(col1 % 2 != 0)", odd);
  s.columns = {"col1"};
  auto had_dvs = 0;
  auto latest = t.Latest();
  for (const auto& f : latest->files()) had_dvs += f.deletion_vector.has_value();
  ASSERT_GT(had_dvs, 0);
  auto r = DeleteRows(t.store(), t.Latest(), s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::string> expected;
  for (const auto& row : before) {
    // "part|col1|col2"
    size_t a = row.find('|'), b = row.find('|', a + 1);
    std::string col1 = row.substr(a + 1, b - a - 1);
    if (col1 == "NULL" || std::stoi(col1) % 2 == 0) expected.push_back(row);
  }
  EXPECT_EQ(static_cast<size_t>(r->num_affected_rows), before.size() - expected.size());
  EXPECT_EQ(ReadRows(t.store()), expected);
}

TEST(DmlDeleteConformance, DvPartitionedWithCheckpointCombinedDvsAreCorrect) {
  DeleteOddCol1("golden/dv-partitioned-with-checkpoint/delta");
}

// Column mapping (name mode): the matcher sees logical names; DV-only changes keep the adds'
// physical partition keys and stats.
TEST(DmlDeleteConformance, DvWithColumnMappingCombinedDvsAreCorrect) {
  DeleteOddCol1("golden/dv-with-columnmapping/delta");
}

// ---------------------------------------------------------------------------------------------
// Concurrency

TEST(DmlDeleteConflicts, ConcurrentAppendToAnotherPartitionDoesNotConflict) {
  DmlTable t;
  CreatePartitioned(t, true);
  auto snap = t.Latest();
  t.Append(Ids(100, 103, "b"));  // a concurrent writer, after our snapshot
  auto r = DeleteRows(t.store(), snap,
                      DeleteWhere(t, "p = 'a' AND id = 1",
                                  MatchInt(0, [](int64_t v) { return v == 1; }), InPartition("a")));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 4);
  EXPECT_EQ(ReadRows(t.store()).size(), 15u + 3 - 1);
}

TEST(DmlDeleteConflicts, ConcurrentAppendToTheReadPartitionConflicts) {
  DmlTable t;
  CreatePartitioned(t, true);
  auto snap = t.Latest();
  t.Append(Ids(100, 103, "a"));
  auto r = DeleteRows(t.store(), snap,
                      DeleteWhere(t, "p = 'a' AND id = 1",
                                  MatchInt(0, [](int64_t v) { return v == 1; }), InPartition("a")));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), "DELTA_CONCURRENT_APPEND");
}

TEST(DmlDeleteConflicts, ConcurrentDeleteOfTheSameFileConflicts) {
  for (bool dvs : {true, false}) {
    DmlTable t;
    t.Create(Ids(0, 10), false, dvs);
    auto snap = t.Latest();
    ASSERT_TRUE(DeleteRows(t.store(), snap,
                           DeleteWhere(t, "id = 1", MatchInt(0, [](int64_t v) { return v == 1; })))
                    .ok());
    auto r = DeleteRows(t.store(), snap,
                        DeleteWhere(t, "id = 2", MatchInt(0, [](int64_t v) { return v == 2; })));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().error_class(), "DELTA_CONCURRENT_DELETE_DELETE") << dvs;
    EXPECT_EQ(ReadRows(t.store()).size(), 9u);
  }
}

TEST(DmlDeleteConflicts, ConcurrentRemovalOfAFileWeOnlyReadConflicts) {
  DmlTable t;
  t.Create(Ids(0, 10), false, true);
  t.Append(Ids(10, 20));
  auto snap = t.Latest();
  // The winner deletes from the first file; we read both files but delete only from the second.
  ASSERT_TRUE(DeleteRows(t.store(), snap,
                         DeleteWhere(t, "id = 1", MatchInt(0, [](int64_t v) { return v == 1; })))
                  .ok());
  auto r = DeleteRows(t.store(), snap,
                      DeleteWhere(t, "id = 15", MatchInt(0, [](int64_t v) { return v == 15; }),
                                  [](const delta::AddFile&) -> Result<FileVerdict> {
                                    return FileVerdict::kMaybe;
                                  }));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), "DELTA_CONCURRENT_DELETE_READ");
}

// ---------------------------------------------------------------------------------------------
// Parallel scan (DmlOptions::pool): files are matched concurrently, results merged in file order.

// A copy of every object of `from` (same keys and bytes), so two runs start from the same table.
std::shared_ptr<ObjectStore> CopyStore(ObjectStore& from, std::shared_ptr<Clock> clock) {
  auto to = std::make_shared<InMemoryObjectStore>(clock);
  EXPECT_TRUE(from.ListRecursive("",
                                 [&](const ObjectMeta& m) -> Status {
                                   if (m.is_dir) return Status::OK();
                                   SILT_ASSIGN_OR_RETURN(std::string bytes, from.Get(m.key));
                                   return to->Put(m.key, bytes);
                                 })
                  .ok());
  return to;
}

// The DV files' bytes, sorted (their names hold random UUIDs).
std::vector<std::string> DvFileBytes(ObjectStore& store) {
  std::vector<std::string> out;
  for (const auto& k : Keys(store, "deletion_vector_")) out.push_back(*store.Get(k));
  std::sort(out.begin(), out.end());
  return out;
}

// add/remove actions of a commit without the DV file's name: path, DV offset/size/cardinality.
std::vector<std::string> FileActions(ObjectStore& store, int64_t version) {
  std::vector<std::string> out;
  auto dv = [](const std::optional<delta::DeletionVectorDescriptor>& d) {
    return d ? std::to_string(d->offset.value_or(-1)) + "/" + std::to_string(d->size_in_bytes) +
                   "/" + std::to_string(d->cardinality)
             : std::string("-");
  };
  for (auto& a : ActionsAt(store, version)) {
    if (auto* add = a.get_if<delta::AddFile>()) {
      out.push_back("add " + add->path + " " + dv(add->deletion_vector) + " " +
                    add->stats.value_or(""));
    } else if (auto* rm = a.get_if<delta::RemoveFile>()) {
      out.push_back("remove " + rm->path + " " + dv(rm->deletion_vector));
    }
  }
  return out;
}

// Ids of the rows of the files a commit adds without a DV (copy-on-write output), in file order.
std::vector<int64_t> RewrittenIds(const std::shared_ptr<ObjectStore>& store, int64_t version) {
  std::vector<int64_t> ids;
  auto snap = delta::Snapshot::Load(store, version);
  EXPECT_TRUE(snap.ok());
  auto scan = delta::TableScan::Make(*snap);
  EXPECT_TRUE(scan.ok());
  for (auto& a : ActionsAt(*store, version)) {
    auto* add = a.get_if<delta::AddFile>();
    if (!add || add->deletion_vector) continue;
    EXPECT_TRUE((*scan)
                    ->ScanFile(*add,
                               [&](DataChunk& c) {
                                 for (size_t i = 0; i < c.size(); ++i)
                                   ids.push_back(c.columns[0].Get<int64_t>(i));
                                 return Status::OK();
                               })
                    .ok());
  }
  return ids;
}

TEST(DmlDeleteParallel, PoolScanCommitsWhatTheSerialScanCommits) {
  ThreadPool pool(3);
  for (int mode = 0; mode < 4; ++mode) {
    const bool cdf = mode & 1, cow = mode & 2;
    SCOPED_TRACE(std::string(cdf ? "cdf" : "no cdf") + (cow ? ", copy-on-write" : ", DVs"));
    DmlTable base;
    delta::StringMap props;
    if (cdf) props.Set("delta.enableChangeDataFeed", "true");
    base.Create(Ids(0, 100), false, true, props);
    for (int64_t f = 1; f < 8; ++f) base.Append(Ids(f * 100, f * 100 + 100));
    // Older DVs on every file, so the new ones are unions.
    ASSERT_TRUE(DeleteRows(base.store(), base.Latest(),
                           DeleteWhere(base, "id % 7 = 0",
                                       MatchInt(0, [](int64_t v) { return v % 7 == 0; })))
                    .ok());
    const int64_t v0 = base.Latest()->version();
    // Files from id 500 on have no match.
    auto matcher = MatchInt(0, [](int64_t v) { return v % 3 == 0 && v < 500; });
    std::vector<std::string> rows[2], metrics[2], actions[2], dv_bytes[2], feed[2];
    std::vector<int64_t> rewritten[2];
    for (int parallel = 0; parallel < 2; ++parallel) {
      DmlTable t(CopyStore(*base.store(), base.clock()));
      DeleteSpec spec = DeleteWhere(t, "id % 3 = 0 AND id < 500", matcher);
      if (parallel) spec.options.pool = &pool;
      if (cow) spec.options.use_deletion_vectors = false;  // rewrites files that have older DVs
      auto r = DeleteRows(t.store(), t.Latest(), std::move(spec));
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      ASSERT_EQ(r->version, v0 + 1);
      EXPECT_EQ(r->metrics.files_read, cow ? 8 + 5 : 8);  // copy-on-write reads 5 files again
      EXPECT_EQ(r->num_affected_rows, 143);  // multiples of 3 below 500, minus those of 21
      rows[parallel] = ReadRows(t.store());
      auto ci = CommitInfoAt(*t.store(), v0 + 1);
      ASSERT_TRUE(ci.operation_metrics.has_value());
      for (const auto& [k, v] : ci.operation_metrics->entries())
        metrics[parallel].push_back(k + "=" + v);
      actions[parallel] = FileActions(*t.store(), v0 + 1);
      // The rewritten file's name is random: compare its rows, in order, instead. The survivors
      // of all 5 files reach the writer as separate chunks and still make one file.
      if (cow) {
        EXPECT_EQ(std::count_if(actions[parallel].begin(), actions[parallel].end(),
                                [](const std::string& a) { return a.rfind("add ", 0) == 0; }),
                  1);
      }
      if (cow)
        actions[parallel].erase(
            std::remove_if(actions[parallel].begin(), actions[parallel].end(),
                           [](const std::string& a) { return a.rfind("add ", 0) == 0; }),
            actions[parallel].end());
      rewritten[parallel] = RewrittenIds(t.store(), v0 + 1);
      dv_bytes[parallel] = DvFileBytes(*t.store());
      if (cdf) {
        auto changes = delta::ReadChangeFeed(t.store(), v0 + 1, v0 + 1);
        ASSERT_TRUE(changes.ok()) << changes.status().ToString();
        for (const DataChunk& c : changes->chunks)
          for (size_t i = 0; i < c.size(); ++i)
            feed[parallel].push_back(c.columns[0].GetValue(i).ToString());
        EXPECT_EQ(feed[parallel].size(), 143u);
      }
    }
    EXPECT_EQ(rows[1], rows[0]);
    EXPECT_EQ(metrics[1], metrics[0]);
    EXPECT_EQ(actions[1], actions[0]);
    EXPECT_EQ(actions[0].size(), cow ? 5u : 10u);  // 5 files: remove (+ add with the new DV)
    EXPECT_EQ(rewritten[1], rewritten[0]);
    EXPECT_EQ(rewritten[0].size(), cow ? 500u - 72 - 143 : 0u);  // survivors of the 5 files
    EXPECT_EQ(dv_bytes[1], dv_bytes[0]);
    EXPECT_EQ(feed[1], feed[0]);  // same rows in the same order
  }
}

// Files larger than the matcher's slices, in several row groups: physical indexes are right at
// slice and row-group boundaries, both without a DV (computed from positions) and with one (the
// scan's row-index column).
TEST(DmlDeleteParallel, BigRowGroupsAreMatchedInSlicesWithTheirPhysicalIndexes) {
  ThreadPool pool(1);
  DmlTable t;
  t.Create({}, false, true);
  delta::DataWriteOptions w = WallWrite();
  w.clock = t.clock();
  w.parquet.row_group_max_rows = 40000;
  for (int64_t f = 0; f < 2; ++f) {
    ASSERT_TRUE(delta::AppendRows(t.store(),
                                  {testing::MakeRows(Ids(f * 50000, f * 50000 + 50000), false)}, w,
                                  t.TxnOptions())
                    .ok());
  }
  auto snap = t.Latest();
  ASSERT_EQ(snap->files().size(), 2u);
  for (const auto& f : snap->files()) {
    auto pf = parquet::ParquetFile::Open(*t.store()->OpenRead(f.path));
    ASSERT_TRUE(pf.ok());
    ASSERT_EQ((*pf)->num_row_groups(), 2);  // 40000 + 10000 rows
  }
  // Row i of a file holds id = file * 50000 + i.
  auto boundary = [](int64_t v) {
    int64_t i = v % 50000;
    return i % 1000 == 7 || i == 16383 || i == 16384 || i == 32768 || i == 39999 || i == 40000 ||
           i == 49999;
  };
  auto second = [](int64_t v) { return v % 50000 % 1000 == 8 || v % 50000 == 0; };
  std::set<uint64_t> expected;
  for (int64_t i = 0; i < 50000; ++i) {
    if (boundary(i)) expected.insert(static_cast<uint64_t>(i));
  }
  for (int round = 0; round < 2; ++round) {
    DeleteSpec spec = DeleteWhere(
        t, "x", MatchInt(0, round == 0 ? std::function<bool(int64_t)>(boundary) : second));
    spec.options.pool = &pool;
    auto r = DeleteRows(t.store(), t.Latest(), std::move(spec));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    if (round == 1) {
      for (int64_t i = 0; i < 50000; ++i) {
        if (second(i)) expected.insert(static_cast<uint64_t>(i));
      }
    }
    EXPECT_EQ(r->num_affected_rows, round == 0 ? 2 * 56 : 2 * 51);
    auto after = t.Latest();
    ASSERT_EQ(after->files().size(), 2u);
    for (const auto& f : after->files()) {
      auto dv = delta::LoadDeletionVector(*after, f);
      ASSERT_TRUE(dv.ok() && dv->has_value());
      auto rows = (*dv)->ToSortedVector();
      EXPECT_EQ(std::set<uint64_t>(rows.begin(), rows.end()), expected) << "round " << round;
    }
  }
  EXPECT_EQ(ReadRows(t.store()).size(), 2u * (50000 - expected.size()));
}

TEST(DmlDeleteParallel, MatcherErrorOnAnyFileFailsTheStatementBeforeWriting) {
  ThreadPool pool(3);
  DmlTable t;
  t.Create(Ids(0, 100), false, true);
  for (int64_t f = 1; f < 6; ++f) t.Append(Ids(f * 100, f * 100 + 100));
  const int64_t v0 = t.Latest()->version();
  DeleteSpec spec =
      DeleteWhere(t, "boom", [](const DataChunk& rows) -> Result<std::vector<uint32_t>> {
        for (size_t i = 0; i < rows.size(); ++i) {
          if (rows.columns[0].Get<int64_t>(i) == 420) return Status::InvalidArgument("boom at 420");
        }
        return std::vector<uint32_t>{0};
      });
  spec.options.pool = &pool;
  auto r = DeleteRows(t.store(), t.Latest(), std::move(spec));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("boom at 420"), std::string::npos);
  EXPECT_EQ(t.Latest()->version(), v0);
  EXPECT_TRUE(Keys(*t.store(), "deletion_vector_").empty());
}

// With a pool, the deletion-vector file is written there while the commit is staged; the commit
// is published only once the DV file is durable (on the local store too, whose commit waits
// between syncing its temp file and publishing it).
TEST(DmlDeleteParallel, DeletionVectorWrittenBesideTheCommit) {
  ThreadPool pool(2);
  TempDir tmp;
  DmlTable t(std::make_shared<LocalObjectStore>(tmp.path() + "/t"));
  t.Create(Ids(0, 100), false, true);
  t.Append(Ids(100, 200));
  const int64_t v0 = t.Latest()->version();
  for (int round = 0; round < 3; ++round) {
    DeleteSpec spec = DeleteWhere(t, "id % 10 = round",
                                  MatchInt(0, [round](int64_t v) { return v % 10 == round; }));
    spec.options.pool = &pool;
    auto r = DeleteRows(t.store(), t.Latest(), std::move(spec));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->num_affected_rows, 20);
    EXPECT_EQ(r->version, v0 + 1 + round);
  }
  auto snap = t.Latest();
  ASSERT_EQ(snap->files().size(), 2u);
  for (const auto& f : snap->files()) {
    auto dv = delta::LoadDeletionVector(*snap, f);
    ASSERT_TRUE(dv.ok() && dv->has_value()) << (dv.ok() ? "no DV" : dv.status().ToString());
    EXPECT_EQ((*dv)->Cardinality(), 30u);
  }
  EXPECT_EQ(ReadRows(t.store()).size(), 140u);
  EXPECT_EQ(Keys(*t.store(), "deletion_vector_").size(), 3u);
}

// A failed deletion-vector write fails the DELETE and commits nothing.
TEST(DmlDeleteParallel, DeletionVectorWriteFailureCommitsNothing) {
  ThreadPool pool(2);
  DmlTable t;
  t.Create(Ids(0, 100), false, true);
  const int64_t v0 = t.Latest()->version();
  auto faulty = std::make_shared<FaultInjectingObjectStore>(t.store());
  FaultRule dv = FaultRule::FailAll(ObjectOp::kPutIfAbsent);
  dv.key_contains = "deletion_vector_";
  faulty->AddRule(dv);
  DeleteSpec spec = DeleteWhere(t, "id < 10", MatchInt(0, [](int64_t v) { return v < 10; }));
  spec.options.pool = &pool;
  auto r = DeleteRows(faulty, t.Latest(faulty), std::move(spec));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), kErrorInjectedFault) << r.status().ToString();
  EXPECT_EQ(faulty->faults_injected(), 1);
  EXPECT_EQ(t.Latest()->version(), v0);
  EXPECT_EQ(ReadRows(t.store()).size(), 100u);
}

// ---------------------------------------------------------------------------------------------
// Fault injection: fail the n-th store operation, for every n, in DV and CoW mode.

TEST(DmlDeleteFaults, AnyFailedStoreOperationLeavesTheTableAsItWas) {
  for (bool dvs : {true, false}) {
    for (int64_t n = 0;; ++n) {
      DmlTable t;
      CreatePartitioned(t, dvs);
      ASSERT_TRUE(
          DeleteRows(t.store(), t.Latest(),
                     DeleteWhere(t, "id = 0", MatchInt(0, [](int64_t v) { return v == 0; })))
              .ok());
      auto before = ReadRows(t.store());
      int64_t version = t.Latest()->version();
      auto faulty = std::make_shared<FaultInjectingObjectStore>(t.store());
      auto snap = t.Latest(faulty);
      faulty->ResetCounters();
      faulty->AddRule(FaultRule::FailAfter(n));
      auto r = DeleteRows(
          faulty, snap,
          DeleteWhere(t, "id % 3 = 1", MatchInt(0, [](int64_t v) { return v % 3 == 1; })));
      if (faulty->faults_injected() == 0) {
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        std::vector<std::string> expected;
        for (const auto& row : before) {
          if (std::stoi(row.substr(0, row.find('|'))) % 3 != 1) expected.push_back(row);
        }
        EXPECT_EQ(ReadRows(t.store()), expected);
        EXPECT_GT(n, 2);
        break;
      }
      EXPECT_FALSE(r.ok()) << "fault " << n << " was swallowed";
      EXPECT_EQ(t.Latest()->version(), version) << n;
      EXPECT_EQ(ReadRows(t.store()), before) << n;
      ASSERT_LT(n, 200);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Scan with physical row indexes (kernel extension used by DML)

TEST(DmlScan, RowIndexColumnIsThePhysicalPositionAfterDvMasking) {
  DmlTable t;
  t.Create(Ids(0, 10), false, true);
  ASSERT_TRUE(DeleteRows(t.store(), t.Latest(),
                         DeleteWhere(t, "x", MatchInt(0, [](int64_t v) { return v % 4 == 0; })))
                  .ok());
  delta::TableScanOptions so;
  so.columns = {"id"};
  so.with_row_index = true;
  auto scan = delta::TableScan::Make(t.Latest(), so);
  ASSERT_TRUE(scan.ok());
  ASSERT_EQ((*scan)->output_schema().size(), 2u);
  EXPECT_EQ((*scan)->output_schema()[1].name, delta::kRowIndexColumn);
  DataChunk c;
  std::vector<int64_t> idx;
  while (*(*scan)->Next(&c)) {
    for (size_t i = 0; i < c.size(); ++i) {
      EXPECT_EQ(c.columns[0].Get<int64_t>(i), c.columns[1].Get<int64_t>(i));  // id == position
      idx.push_back(c.columns[1].Get<int64_t>(i));
    }
  }
  EXPECT_EQ(idx, (std::vector<int64_t>{1, 2, 3, 5, 6, 7, 9}));
}

TEST(DmlScan, DeletedRowsAreDroppedFromEveryColumnKind) {
  // The scan drops a DV's rows in place: fixed-width and string columns with nulls and strings
  // of every length (the survivors move left over the dropped ones), plus partition values.
  std::vector<Row> rows;
  std::vector<std::string> expected;
  for (int64_t i = 0; i < 300; ++i) {
    Row r;
    if (i % 7 != 3) r.id = i * 10 + i % 3;
    if (i % 5 != 1 || i % 7 == 3)
      r.v = std::string(static_cast<size_t>(i % 23), static_cast<char>('a' + i % 26)) +
            std::to_string(i);
    r.p = i % 2 ? "odd" : "even";
    rows.push_back(r);
    if (i % 4 == 0 || i % 9 == 8) continue;  // deleted below
    expected.push_back((r.id ? std::to_string(*r.id) : "NULL") + "|" + (r.v ? *r.v : "NULL") + "|" +
                       *r.p);
  }
  DmlTable t;
  t.Create(rows, /*partitioned=*/true, /*dvs=*/true);
  auto doomed = [](int64_t i) { return i % 4 == 0 || i % 9 == 8; };
  // v ends with the row number i when present; else id (never NULL then) is i * 10 + i % 3.
  DeleteSpec spec = DeleteWhere(t, "x", [&](const DataChunk& c) -> Result<std::vector<uint32_t>> {
    std::vector<uint32_t> out;
    for (size_t r = 0; r < c.size(); ++r) {
      int64_t i;
      if (c.columns[1].IsNull(r)) {
        i = c.columns[0].Get<int64_t>(r) / 10;
      } else {
        std::string_view v = c.columns[1].GetString(r);
        i = std::stoll(std::string(v.substr(v.find_first_of("0123456789"))));
      }
      if (doomed(i)) out.push_back(static_cast<uint32_t>(r));
    }
    return out;
  });
  spec.columns = {"id", "v"};
  ASSERT_TRUE(DeleteRows(t.store(), t.Latest(), spec).ok());
  auto snap = t.Latest();
  ASSERT_FALSE(snap->files().empty());
  for (const auto& f : snap->files()) EXPECT_TRUE(f.deletion_vector.has_value()) << f.path;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(ReadRows(t.store()), expected);
}

TEST(DmlStats, WideBoundsRewriteKeepsEverythingElse) {
  EXPECT_EQ(StatsWithWideBounds(std::string(R"({"numRecords":3,"tightBounds":true})"), 3),
            R"({"numRecords":3,"tightBounds":false})");
  EXPECT_EQ(
      StatsWithWideBounds(
          std::string(R"({"numRecords":3,"minValues":{"d":123456789012345678901234567890}})"), 3),
      R"({"numRecords":3,"minValues":{"d":123456789012345678901234567890},"tightBounds":false})");
  EXPECT_EQ(
      StatsWithWideBounds(
          std::string(R"({"numRecords":3,"minValues":{"tightBounds":"}"},"tightBounds": false})"),
          3),
      R"({"numRecords":3,"minValues":{"tightBounds":"}"},"tightBounds": false})");
  EXPECT_EQ(StatsWithWideBounds(std::nullopt, 7), R"({"numRecords":7,"tightBounds":false})");
  EXPECT_EQ(StatsWithWideBounds(std::string("{ }"), 7), R"({ "tightBounds":false})");
  EXPECT_EQ(PredicateParameter(""), "\"[]\"");
  EXPECT_EQ(PredicateParameter("a = 'x'"), "\"[\\\"a = 'x'\\\"]\"");
}

}  // namespace
}  // namespace silt::ops
