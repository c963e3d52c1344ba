// Row-level concurrency (delta/transaction.cc, the rules above CheckConflicts): with deletion
// vectors and row tracking on, DELETE/UPDATE that change different rows of the same file both
// commit (the loser merges its DV with the winner's); the same row changed twice, a winner that
// rewrote the file, or the feature switched off still conflict.
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <set>
#include <thread>

#include "delta/deletion_vector.h"
#include "delta/scan.h"
#include "delta/stats_json.h"
#include "delta/transaction.h"
#include "io/local_object_store.h"
#include "ops/dml.h"
#include "unit/ops/dml_test_util.h"

namespace silt::ops {
namespace {

using testing::DmlTable;
using testing::MakeRows;
using testing::MatchInt;
using testing::ReadRows;
using testing::Row;
using testing::RowSchema;
using testing::TempDir;

std::vector<Row> Ids(int64_t from, int64_t to) {
  std::vector<Row> rows;
  for (int64_t i = from; i < to; ++i) rows.push_back({i, "v" + std::to_string(i), std::nullopt});
  return rows;
}

delta::StringMap RowLevelProps(bool row_tracking = true) {
  delta::StringMap m;
  if (row_tracking) m.Set("delta.enableRowTracking", "true");
  return m;
}

// kMaybe when the file's id range meets [lo, hi] (by its stats), kSkip otherwise: the pruning
// DML does, so concurrently added files outside the range do not conflict.
FileFilter IdRange(int64_t lo, int64_t hi) {
  return [lo, hi](const delta::AddFile& f) -> Result<FileVerdict> {
    if (!f.stats) return FileVerdict::kMaybe;
    SILT_ASSIGN_OR_RETURN(delta::FileStats st, delta::ParseStats(*f.stats, RowSchema(false)));
    const delta::ColumnStats* c = st.FindPath({"id"});
    if (!c || !c->min || !c->max) return FileVerdict::kMaybe;
    return c->max->integer() < lo || c->min->integer() > hi ? FileVerdict::kSkip
                                                            : FileVerdict::kMaybe;
  };
}

DeleteSpec DeleteIds(const DmlTable& t, int64_t lo, int64_t hi) {
  DeleteSpec s;
  s.predicate_sql = "id BETWEEN " + std::to_string(lo) + " AND " + std::to_string(hi);
  s.matcher = MatchInt(0, [lo, hi](int64_t v) { return v >= lo && v <= hi; });
  s.file_filter = IdRange(lo, hi);
  s.columns = {"id"};
  s.options = t.Options();
  return s;
}

// UPDATE t SET v = concat('u', id) WHERE id BETWEEN lo AND hi.
UpdateSpec UpdateIds(const DmlTable& t, int64_t lo, int64_t hi) {
  UpdateSpec s;
  s.predicate_sql = "id BETWEEN " + std::to_string(lo) + " AND " + std::to_string(hi);
  s.matcher = MatchInt(0, [lo, hi](int64_t v) { return v >= lo && v <= hi; });
  s.file_filter = IdRange(lo, hi);
  s.columns = {"id"};
  s.updater = [](const DataChunk& rows) -> Result<DataChunk> {
    std::vector<Row> out;
    for (size_t i = 0; i < rows.size(); ++i) {
      int64_t id = rows.columns[0].Get<int64_t>(i);
      out.push_back({id, "u" + std::to_string(id), std::nullopt});
    }
    return MakeRows(out, false);
  };
  s.options = t.Options();
  return s;
}

std::vector<delta::Action> ActionsAt(ObjectStore& store, int64_t version) {
  std::vector<delta::Action> actions;
  auto bytes = store.Get(delta::CommitKey(version));
  EXPECT_TRUE(bytes.ok());
  if (bytes.ok()) {
    EXPECT_TRUE(delta::ParseCommit(*bytes, &actions, "c").ok());
  }
  return actions;
}

std::set<uint64_t> DvRows(const std::shared_ptr<const delta::Snapshot>& snap,
                          const delta::AddFile& f) {
  auto dv = delta::LoadDeletionVector(*snap, f);
  EXPECT_TRUE(dv.ok()) << dv.status().ToString();
  std::set<uint64_t> out;
  if (dv.ok() && *dv)
    for (uint64_t r : (*dv)->ToSortedVector()) out.insert(r);
  return out;
}

// The DV merge itself: the winner deletes rows {1, 2} of the file, the loser (same snapshot)
// rows {5, 6}; the loser's commit removes the winner's add and adds the file with {1, 2, 5, 6}.
TEST(RowLevelConcurrency, LoserMergesItsDvWithTheWinnersAndCommits) {
  DmlTable t;
  t.Create(Ids(0, 100), false, true, RowLevelProps());
  auto snap = t.Latest();
  ASSERT_TRUE(delta::RowLevelConcurrencyEnabled(*snap));
  const delta::AddFile original = snap->files().at(0);
  ASSERT_TRUE(original.base_row_id.has_value());
  auto a = DeleteRows(t.store(), snap, DeleteIds(t, 1, 2));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto b = DeleteRows(t.store(), snap, DeleteIds(t, 5, 6));
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(*a->version, 1);
  EXPECT_EQ(*b->version, 2);

  // Version 2: remove(winner's add: its DV {1, 2}) + add(same file, DV {1, 2, 5, 6}).
  auto latest = t.Latest();
  std::optional<delta::AddFile> winner_add;
  for (const auto& act : ActionsAt(*t.store(), 1))
    if (auto* f = act.get_if<delta::AddFile>()) winner_add = *f;
  std::vector<delta::RemoveFile> removes;
  std::vector<delta::AddFile> adds;
  auto v2 = ActionsAt(*t.store(), 2);
  for (const auto& act : v2) {
    if (auto* r = act.get_if<delta::RemoveFile>()) removes.push_back(*r);
    if (auto* f = act.get_if<delta::AddFile>()) adds.push_back(*f);
  }
  ASSERT_EQ(removes.size(), 1u);
  ASSERT_EQ(adds.size(), 1u);
  ASSERT_TRUE(winner_add.has_value());
  ASSERT_TRUE(winner_add->deletion_vector.has_value());
  EXPECT_EQ(removes[0].path, original.path);
  EXPECT_EQ(removes[0].deletion_vector, winner_add->deletion_vector);
  EXPECT_EQ(adds[0].path, original.path);
  ASSERT_TRUE(adds[0].deletion_vector.has_value());
  EXPECT_EQ(adds[0].deletion_vector->cardinality, 4);
  EXPECT_EQ(DvRows(latest, adds[0]), (std::set<uint64_t>{1, 2, 5, 6}));
  // Row tracking: the file keeps its row ids and row commit version.
  EXPECT_EQ(adds[0].base_row_id, original.base_row_id);
  EXPECT_EQ(adds[0].default_row_commit_version, original.default_row_commit_version);
  EXPECT_EQ(removes[0].base_row_id, original.base_row_id);
  // The commit says which version it read.
  for (const auto& act : v2)
    if (auto* ci = act.get_if<delta::CommitInfo>()) {
      EXPECT_EQ(ci->read_version, 0);
    }

  ASSERT_EQ(latest->files().size(), 1u);
  auto rows = ReadRows(t.store());
  EXPECT_EQ(rows.size(), 96u);
  for (const std::string& r : rows) {
    for (const char* gone : {"1|", "2|", "5|", "6|"}) EXPECT_NE(r.rfind(gone, 0), 0u) << r;
  }
}

// Two winners, each with a DV update of one of the two files the loser deletes from.
TEST(RowLevelConcurrency, ALoserMergesWithSeveralWinners) {
  DmlTable t;
  t.Create(Ids(0, 10), false, true, RowLevelProps());
  t.Append(Ids(10, 20));
  auto snap = t.Latest();
  // The winner deletes from both files, the loser too (other rows).
  ASSERT_TRUE(DeleteRows(t.store(), snap, DeleteIds(t, 0, 0)).ok());
  ASSERT_TRUE(DeleteRows(t.store(), snap, DeleteIds(t, 19, 19)).ok());
  // A third writer on the same snapshot, deleting from both files: two winners to merge with.
  auto changes = MatchDeletedRows(t.store(), snap, DeleteIds(t, 5, 15));
  ASSERT_TRUE(changes.ok());
  auto r = ApplyRowChanges(t.store(), snap, std::move(*changes), t.Options());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r->version, 4);  // after the append (1) and the two winners (2, 3)
  EXPECT_EQ(ReadRows(t.store()).size(), 20u - 2 - 11);
  auto latest = t.Latest();
  ASSERT_EQ(latest->files().size(), 2u);
  for (const auto& f : latest->files()) {
    ASSERT_TRUE(f.deletion_vector.has_value());
    // ids 0..9: the winner's {0} + ours {5..9}; ids 10..19: the winner's {19} + ours {10..15}.
    const bool first = f.base_row_id == 0;  // the created file got row ids 0..9
    EXPECT_EQ(f.deletion_vector->cardinality, first ? 6 : 7) << f.path;
  }
}

TEST(RowLevelConcurrency, TheSameRowDeletedTwiceConflicts) {
  DmlTable t;
  t.Create(Ids(0, 100), false, true, RowLevelProps());
  auto snap = t.Latest();
  ASSERT_TRUE(DeleteRows(t.store(), snap, DeleteIds(t, 1, 3)).ok());
  auto b = DeleteRows(t.store(), snap, DeleteIds(t, 3, 4));
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().error_class(), "DELTA_CONCURRENT_DELETE_DELETE");
  EXPECT_NE(b.status().message().find("row 3 of file"), std::string::npos) << b.status().ToString();
  EXPECT_EQ(ReadRows(t.store()).size(), 97u);  // the winner's delete alone
  EXPECT_EQ(t.Latest()->version(), 1);
}

TEST(RowLevelConcurrency, TheSameRowUpdatedAndDeletedConflicts) {
  DmlTable t;
  t.Create(Ids(0, 100), false, true, RowLevelProps());
  auto snap = t.Latest();
  ASSERT_TRUE(UpdateRows(t.store(), snap, UpdateIds(t, 10, 12)).ok());
  auto b = DeleteRows(t.store(), snap, DeleteIds(t, 12, 12));
  ASSERT_FALSE(b.ok());
  // The winner's new file holds id 12 (an append our predicate reads) and its DV row 12.
  EXPECT_TRUE(b.status().error_class() == "DELTA_CONCURRENT_APPEND" ||
              b.status().error_class() == "DELTA_CONCURRENT_DELETE_DELETE")
      << b.status().ToString();
  // Without the append (the winner deletes instead), the row itself conflicts.
  DmlTable u;
  u.Create(Ids(0, 100), false, true, RowLevelProps());
  auto snap2 = u.Latest();
  ASSERT_TRUE(DeleteRows(u.store(), snap2, DeleteIds(u, 10, 12)).ok());
  auto c = UpdateRows(u.store(), snap2, UpdateIds(u, 12, 14));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().error_class(), "DELTA_CONCURRENT_DELETE_DELETE");
}

// UPDATE against DELETE on other rows of the same file: both commit; the UPDATE's new rows stay
// in its own new file; the result equals the serial run.
TEST(RowLevelConcurrency, UpdateAndDeleteOfOtherRowsBothCommitAsASerialRun) {
  DmlTable t, serial;
  t.Create(Ids(0, 100), false, true, RowLevelProps());
  serial.Create(Ids(0, 100), false, true, RowLevelProps());
  auto snap = t.Latest();
  ASSERT_TRUE(UpdateRows(t.store(), snap, UpdateIds(t, 10, 19)).ok());
  auto d = DeleteRows(t.store(), snap, DeleteIds(t, 50, 59));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_TRUE(UpdateRows(serial.store(), serial.Latest(), UpdateIds(serial, 10, 19)).ok());
  ASSERT_TRUE(DeleteRows(serial.store(), serial.Latest(), DeleteIds(serial, 50, 59)).ok());
  EXPECT_EQ(ReadRows(t.store()), ReadRows(serial.store()));
  EXPECT_EQ(ReadRows(t.store()).size(), 90u);
  EXPECT_EQ(t.Latest()->files().size(), 2u);  // the original (merged DV) + the updated rows
  // Updated rows got fresh row ids after the high-water mark, none reused.
  std::set<int64_t> bases;
  auto latest = t.Latest();
  for (const auto& f : latest->files()) {
    ASSERT_TRUE(f.base_row_id.has_value());
    EXPECT_TRUE(bases.insert(*f.base_row_id).second);
  }
}

// Both writers' deletions together cover every row: the loser removes the file.
TEST(RowLevelConcurrency, MergedDvCoveringTheFileRemovesIt) {
  DmlTable t;
  t.Create(Ids(0, 10), false, true, RowLevelProps());
  auto snap = t.Latest();
  ASSERT_TRUE(DeleteRows(t.store(), snap, DeleteIds(t, 0, 4)).ok());
  auto b = DeleteRows(t.store(), snap, DeleteIds(t, 5, 9));
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_TRUE(t.Latest()->files().empty());
  EXPECT_TRUE(ReadRows(t.store()).empty());
  int adds = 0, removes = 0;
  for (const auto& act : ActionsAt(*t.store(), 2)) {
    adds += act.get_if<delta::AddFile>() != nullptr;
    removes += act.get_if<delta::RemoveFile>() != nullptr;
  }
  EXPECT_EQ(adds, 0);
  EXPECT_EQ(removes, 1);
}

// A winner that rewrote the file (copy-on-write here, as OPTIMIZE or PURGE would) still
// conflicts.
TEST(RowLevelConcurrency, AFileTheWinnerRewroteStillConflicts) {
  DmlTable t;
  t.Create(Ids(0, 100), false, true, RowLevelProps());
  auto snap = t.Latest();
  DeleteSpec cow = DeleteIds(t, 1, 1);
  cow.options.use_deletion_vectors = false;
  ASSERT_TRUE(DeleteRows(t.store(), snap, cow).ok());
  auto b = DeleteRows(t.store(), snap, DeleteIds(t, 5, 5));
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().error_class(), "DELTA_CONCURRENT_DELETE_DELETE");
}

// Off without row tracking, and with silt.rowLevelConcurrency.enabled = false: file-level
// conflicts as before.
TEST(RowLevelConcurrency, OffWithoutRowTrackingOrWhenSwitchedOff) {
  for (int mode = 0; mode < 2; ++mode) {
    DmlTable t;
    delta::StringMap props = RowLevelProps(mode == 1);
    if (mode == 1) props.Set(delta::kRowLevelConcurrencyProperty, "false");
    t.Create(Ids(0, 100), false, true, props);
    auto snap = t.Latest();
    EXPECT_FALSE(delta::RowLevelConcurrencyEnabled(*snap));
    ASSERT_TRUE(DeleteRows(t.store(), snap, DeleteIds(t, 1, 2)).ok());
    auto b = DeleteRows(t.store(), snap, DeleteIds(t, 5, 6));
    ASSERT_FALSE(b.ok()) << mode;
    EXPECT_EQ(b.status().error_class(), "DELTA_CONCURRENT_DELETE_DELETE") << mode;
  }
}

// A file the loser only read (its DELETE matched nothing there) but the winner gave a new DV:
// no conflict under row-level concurrency.
TEST(RowLevelConcurrency, AFileWeOnlyReadAndTheWinnerDvUpdatedDoesNotConflict) {
  DmlTable t;
  t.Create(Ids(0, 10), false, true, RowLevelProps());
  t.Append(Ids(10, 20));
  auto snap = t.Latest();
  ASSERT_TRUE(DeleteRows(t.store(), snap, DeleteIds(t, 1, 1)).ok());
  DeleteSpec d = DeleteIds(t, 15, 15);
  d.file_filter = [](const delta::AddFile&) -> Result<FileVerdict> { return FileVerdict::kMaybe; };
  auto r = DeleteRows(t.store(), snap, d);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(ReadRows(t.store()).size(), 18u);
}

// An UPDATE's new rows that the loser's predicate could match are still a concurrent append.
TEST(RowLevelConcurrency, AWinnersUpdatedRowsInOurRangeConflict) {
  DmlTable t;
  t.Create(Ids(0, 100), false, true, RowLevelProps());
  auto snap = t.Latest();
  ASSERT_TRUE(UpdateRows(t.store(), snap, UpdateIds(t, 10, 19)).ok());
  auto b = DeleteRows(t.store(), snap, DeleteIds(t, 15, 30));
  ASSERT_FALSE(b.ok());
  // Row 15..19 were changed by both: whichever check comes first, it is a conflict.
  EXPECT_TRUE(b.status().error_class() == "DELTA_CONCURRENT_APPEND" ||
              b.status().error_class() == "DELTA_CONCURRENT_DELETE_DELETE")
      << b.status().ToString();
}

// Partitioned tables: row-level concurrency is off (as Databricks).
TEST(RowLevelConcurrency, OffOnPartitionedTables) {
  DmlTable t;
  std::vector<Row> rows;
  for (int64_t i = 0; i < 10; ++i) rows.push_back({i, "v", std::string("a")});
  t.Create(rows, true, true, RowLevelProps());
  EXPECT_FALSE(delta::RowLevelConcurrencyEnabled(*t.Latest()));
}

// Isolation levels: a blind append conflicts with a DELETE that read the whole table under
// Serializable (the default) and not under WriteSerializable.
TEST(RowLevelConcurrency, BlindAppendsConflictOnlyUnderSerializable) {
  for (const char* level : {"Serializable", "WriteSerializable"}) {
    DmlTable t;
    delta::StringMap props = RowLevelProps();
    props.Set("delta.isolationLevel", level);
    t.Create(Ids(0, 10), false, true, props);
    auto snap = t.Latest();
    t.Append(Ids(100, 110));
    DeleteSpec d = DeleteIds(t, 1, 1);
    d.file_filter = nullptr;  // reads the whole table
    auto r = DeleteRows(t.store(), snap, d);
    if (std::string(level) == "Serializable") {
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().error_class(), "DELTA_CONCURRENT_APPEND");
    } else {
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(ReadRows(t.store()).size(), 19u);
      bool found = false;
      for (const auto& act : ActionsAt(*t.store(), *r->version))
        if (auto* ci = act.get_if<delta::CommitInfo>()) {
          EXPECT_EQ(ci->isolation_level, "WriteSerializable");
          found = true;
        }
      EXPECT_TRUE(found);
    }
  }
}

// Row tracking as PROTOCOL.md requires: enabling it assigns the materialized column names; a
// commit that moved rows into new files (UPDATE) says it did not preserve row ids; a DV-only
// DELETE did.
TEST(RowLevelConcurrency, RowTrackingMetadataAndPreservedTag) {
  DmlTable t;
  t.Create(Ids(0, 100), false, true, RowLevelProps());
  auto created = t.Latest();
  const auto& conf = created->metadata().configuration;
  const std::string* id_col = conf.Find("delta.rowTracking.materializedRowIdColumnName");
  const std::string* cv_col = conf.Find("delta.rowTracking.materializedRowCommitVersionColumnName");
  ASSERT_NE(id_col, nullptr);
  ASSERT_NE(cv_col, nullptr);
  EXPECT_EQ(id_col->rfind("_row-id-col-", 0), 0u) << *id_col;
  EXPECT_EQ(cv_col->rfind("_row-commit-version-col-", 0), 0u) << *cv_col;
  auto tag = [&](int64_t version) -> std::string {
    for (const auto& act : ActionsAt(*t.store(), version))
      if (auto* ci = act.get_if<delta::CommitInfo>(); ci && ci->tags)
        if (const std::string* v = ci->tags->Find("delta.rowTracking.preserved")) return *v;
    return "<absent>";
  };
  ASSERT_TRUE(DeleteRows(t.store(), t.Latest(), DeleteIds(t, 1, 1)).ok());
  EXPECT_EQ(tag(1), "true");
  ASSERT_TRUE(UpdateRows(t.store(), t.Latest(), UpdateIds(t, 2, 2)).ok());
  EXPECT_EQ(tag(2), "false");
  // A rewrite (dataChange=false, as OPTIMIZE commits it) of the updated rows' file: fresh row
  // ids, so not preserved either.
  auto snap = t.Latest();
  const delta::AddFile* updated = nullptr;
  for (const auto& f : snap->files())
    if (!f.deletion_vector) updated = &f;
  ASSERT_NE(updated, nullptr);
  delta::Transaction txn(t.store(), snap, t.TxnOptions());
  txn.SetOperation("OPTIMIZE");
  txn.Remove(MakeRemove(*updated, testing::kT0, /*data_change=*/false));
  delta::AddFile copy = *updated;
  copy.data_change = false;
  copy.base_row_id.reset();
  copy.default_row_commit_version.reset();
  txn.Add(copy);
  ASSERT_TRUE(txn.Commit().ok());
  EXPECT_EQ(tag(3), "false");
}

// delta.rowTrackingSuspended = true: the feature stays, no row ids are assigned.
TEST(RowLevelConcurrency, SuspendedRowTrackingAssignsNoRowIds) {
  DmlTable t;
  t.Create({}, false, true, RowLevelProps());
  {
    auto snap = t.Latest();
    delta::Metadata md = snap->metadata();
    md.configuration.Set("delta.enableRowTracking", "false");
    md.configuration.Set("delta.rowTrackingSuspended", "true");
    delta::Transaction txn(t.store(), snap, t.TxnOptions());
    txn.SetOperation("SET TBLPROPERTIES");
    txn.UpdateMetadata(md);
    ASSERT_TRUE(txn.Commit().ok());
  }
  t.Append(Ids(0, 10));
  auto snap = t.Latest();
  ASSERT_EQ(snap->files().size(), 1u);
  EXPECT_FALSE(snap->files()[0].base_row_id.has_value());
  EXPECT_FALSE(snap->files()[0].default_row_commit_version.has_value());
}

// N writers on threads, all on the same snapshot (so every commit but the first must merge):
// writer w deletes (even w) or updates (odd w) ids [w*100+10, w*100+19]; files hold the rows of
// four writers each. All commit and the table equals the serial run, row for row.
void RunWriters(int n) {
  TempDir dir;
  auto store = std::make_shared<LocalObjectStore>(dir.path());
  DmlTable t(store), serial;
  const int64_t per_file = 400;
  const int64_t total = std::max<int64_t>(n, 4) * 100;
  t.Create(Ids(0, per_file), false, true, RowLevelProps());
  serial.Create(Ids(0, per_file), false, true, RowLevelProps());
  for (int64_t lo = per_file; lo < total; lo += per_file) {
    t.Append(Ids(lo, std::min(total, lo + per_file)));
    serial.Append(Ids(lo, std::min(total, lo + per_file)));
  }
  auto snap = t.Latest();
  const int64_t start_version = snap->version();
  std::vector<Status> results(n);
  std::barrier sync(n);
  std::vector<std::thread> threads;
  for (int w = 0; w < n; ++w) {
    threads.emplace_back([&, w] {
      const int64_t lo = w * 100 + 10, hi = w * 100 + 19;
      sync.arrive_and_wait();
      if (w % 2 == 0) {
        auto r = DeleteRows(store, snap, DeleteIds(t, lo, hi));
        results[w] = r.ok() ? Status::OK() : r.status();
      } else {
        auto r = UpdateRows(store, snap, UpdateIds(t, lo, hi));
        results[w] = r.ok() ? Status::OK() : r.status();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int w = 0; w < n; ++w) EXPECT_TRUE(results[w].ok()) << w << ": " << results[w].ToString();
  EXPECT_EQ(t.Latest()->version(), start_version + n);
  for (int w = 0; w < n; ++w) {
    const int64_t lo = w * 100 + 10, hi = w * 100 + 19;
    if (w % 2 == 0) {
      ASSERT_TRUE(DeleteRows(serial.store(), serial.Latest(), DeleteIds(serial, lo, hi)).ok());
    } else {
      ASSERT_TRUE(UpdateRows(serial.store(), serial.Latest(), UpdateIds(serial, lo, hi)).ok());
    }
  }
  auto got = ReadRows(store);
  EXPECT_EQ(got, ReadRows(serial.store()));
  EXPECT_EQ(got.size(), static_cast<size_t>(total - 10 * ((n + 1) / 2)));
}

TEST(RowLevelConcurrency, TwoWritersOnTheSameSnapshotBothCommit) { RunWriters(2); }
TEST(RowLevelConcurrency, EightWritersOnTheSameSnapshotAllCommit) { RunWriters(8); }

// Two threads deleting overlapping rows from the same snapshot: exactly one commits.
TEST(RowLevelConcurrency, OverlappingWritersOnThreadsOneConflicts) {
  TempDir dir;
  auto store = std::make_shared<LocalObjectStore>(dir.path());
  DmlTable t(store);
  t.Create(Ids(0, 100), false, true, RowLevelProps());
  auto snap = t.Latest();
  std::vector<Status> results(2);
  std::barrier sync(2);
  std::vector<std::thread> threads;
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&, w] {
      sync.arrive_and_wait();
      auto r = DeleteRows(store, snap, DeleteIds(t, 10 + w * 5, 20 + w * 5));
      results[w] = r.ok() ? Status::OK() : r.status();
    });
  }
  for (auto& th : threads) th.join();
  int ok = 0;
  for (const Status& s : results) {
    if (s.ok()) {
      ++ok;
    } else {
      EXPECT_EQ(s.error_class(), "DELTA_CONCURRENT_DELETE_DELETE") << s.ToString();
    }
  }
  EXPECT_EQ(ok, 1);
  EXPECT_EQ(ReadRows(store).size(), 89u);
}

}  // namespace
}  // namespace silt::ops
