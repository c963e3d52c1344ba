// Row tracking on write: new adds get baseRowId after the delta.rowTracking high-water mark and
// defaultRowCommitVersion = the commit version, the mark is updated in the same commit, and a
// retry after a concurrent commit reassigns ids after the winner's.
#include <gtest/gtest.h>

#include <algorithm>

#include "delta/log_segment.h"
#include "delta/snapshot.h"
#include "delta/table_features.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "io/memory_object_store.h"
#include "io/object_store.h"
#include "support/wall_clock.h"

namespace silt::delta {
namespace {

Schema IdSchema() { return {{"id", DataType::Int64(), true, ""}}; }

DataChunk Ids(int64_t first, int64_t n) {
  DataChunk c = DataChunk::FromSchema(IdSchema());
  for (int64_t i = 0; i < n; ++i) c.columns[0].Append<int64_t>(first + i);
  return c;
}

std::vector<Action> CommitActions(ObjectStore& store, int64_t version) {
  std::vector<Action> actions;
  std::string bytes = store.Get(CommitKey(version)).value();
  EXPECT_TRUE(ParseCommit(bytes, &actions, CommitKey(version)).ok());
  return actions;
}

std::string HighWaterMarkDomain(const Snapshot& snap) {
  auto it = snap.domains().find("delta.rowTracking");
  return it == snap.domains().end() ? "" : it->second.configuration;
}

std::shared_ptr<InMemoryObjectStore> RowTrackingTable(int64_t rows) {
  auto store = std::make_shared<InMemoryObjectStore>(WallClock());
  CreateTableOptions opts = WallCreate();
  opts.properties.Set("delta.enableRowTracking", "true");
  auto created = CreateTable(store, IdSchema(), {Ids(0, rows)}, opts);
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  return store;
}

TEST(RowTrackingTest, CreateAndAppendAssignContiguousRowIds) {
  auto store = RowTrackingTable(5);
  auto snap = Snapshot::Load(store).value();
  EXPECT_TRUE(HasFeature(snap->protocol(), "rowTracking"));
  EXPECT_TRUE(HasFeature(snap->protocol(), "domainMetadata"));
  ASSERT_EQ(snap->files().size(), 1u);
  EXPECT_EQ(snap->files()[0].base_row_id, 0);
  EXPECT_EQ(snap->files()[0].default_row_commit_version, 0);
  EXPECT_EQ(HighWaterMarkDomain(*snap), R"({"rowIdHighWaterMark":4})");
  // Spark's tag for commits that preserve row tracking.
  std::vector<Action> v0 = CommitActions(*store, 0);
  const CommitInfo* ci = v0[0].get_if<CommitInfo>();
  ASSERT_TRUE(ci && ci->tags);
  EXPECT_EQ(*ci->tags->Find("delta.rowTracking.preserved"), "true");

  // Seven rows in two chunks, at most four rows per file → two files in one commit (4 + 3 rows):
  // their ranges follow each other.
  DataWriteOptions write = WallWrite();
  write.max_rows_per_file = 4;
  ASSERT_TRUE(AppendRows(store, {Ids(10, 3), Ids(20, 4)}, write, WallTxn()).ok());
  snap = Snapshot::Load(store).value();
  std::vector<std::pair<int64_t, int64_t>> ranges;  // (baseRowId, defaultRowCommitVersion)
  for (const auto& f : snap->files()) {
    ASSERT_TRUE(f.base_row_id && f.default_row_commit_version);
    ranges.emplace_back(*f.base_row_id, *f.default_row_commit_version);
  }
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::pair<int64_t, int64_t>> want = {{0, 0}, {5, 1}, {9, 1}};
  EXPECT_EQ(ranges, want);
  EXPECT_EQ(HighWaterMarkDomain(*snap), R"({"rowIdHighWaterMark":11})");
}

TEST(RowTrackingTest, RetryAfterConcurrentCommitReassignsAfterTheWinner) {
  auto store = RowTrackingTable(2);  // mark 1
  auto snap = Snapshot::Load(store).value();
  auto adds_of = [&](int64_t first, int64_t n) {
    return WriteDataFiles(*store, snap->metadata(), snap->schema(), {Ids(first, n)}, WallWrite())
        .value();
  };
  Transaction loser(store, snap, WallTxn());
  for (auto& a : adds_of(100, 10)) loser.Add(std::move(a));
  Transaction winner(store, snap, WallTxn());
  for (auto& a : adds_of(200, 3)) winner.Add(std::move(a));
  ASSERT_TRUE(winner.Commit().ok());  // ids 2..4
  auto res = loser.Commit();
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->version, 2);
  EXPECT_EQ(res->attempts, 2);
  auto latest = Snapshot::Load(store).value();
  EXPECT_EQ(HighWaterMarkDomain(*latest), R"({"rowIdHighWaterMark":14})");
  for (const auto& a : CommitActions(*store, 2)) {
    if (const AddFile* f = a.get_if<AddFile>()) {
      EXPECT_EQ(f->base_row_id, 5);
      EXPECT_EQ(f->default_row_commit_version, 2);
    }
  }
}

TEST(RowTrackingTest, AddWithoutNumRecordsIsRefused) {
  auto store = RowTrackingTable(1);
  Transaction txn(store, Snapshot::Load(store).value(), WallTxn());
  AddFile a;
  a.path = "x.parquet";
  a.size = 1;
  txn.Add(a);
  EXPECT_EQ(txn.Commit().status().error_class(), "DELTA_ROW_ID_ASSIGNMENT_WITHOUT_STATS");
}

TEST(RowTrackingTest, TablesWithoutTheFeatureGetNoRowIds) {
  auto store = std::make_shared<InMemoryObjectStore>(WallClock());
  ASSERT_TRUE(CreateTable(store, IdSchema(), {Ids(0, 3)}, WallCreate()).ok());
  auto snap = Snapshot::Load(store).value();
  EXPECT_FALSE(snap->files()[0].base_row_id);
  EXPECT_FALSE(snap->files()[0].default_row_commit_version);
  EXPECT_TRUE(snap->domains().empty());
}

}  // namespace
}  // namespace silt::delta
