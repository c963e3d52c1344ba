#include "delta/log_cleanup.h"

#include <gtest/gtest.h>

#include <set>

#include "delta/checkpoint_writer.h"
#include "delta/table_properties.h"
#include "support/fault_injecting_object_store.h"
#include "support/wall_clock.h"
#include "unit/delta/log_test_util.h"

namespace silt::delta {
namespace {

using testing::kDay;
using testing::kHour;
using testing::kT0;
using testing::TestAdd;
using testing::TestCommitInfo;
using testing::TestMetadata;
using testing::TestProtocol;
using testing::TestTable;

int64_t DayOf(int64_t v) { return kT0 + v * kDay; }
std::string CrcKey(int64_t v) {
  std::string k = CommitKey(v);
  return k.substr(0, k.size() - 5) + ".crc";
}

// Commits 0..n-1, commit v (and its .crc) written at DayOf(v); a checkpoint right after each
// version in `checkpoints`; log retention 10 days unless `config` says otherwise.
void BuildDailyTable(TestTable& t, int64_t n, const std::set<int64_t>& checkpoints,
                     StringMap config = StringMap{
                         {"delta.logRetentionDuration", "interval 10 days"}}) {
  for (int64_t v = 0; v < n; ++v) {
    t.clock->SetMillis(DayOf(v));
    std::vector<Action> actions = {TestCommitInfo(DayOf(v))};
    if (v == 0) {
      actions.push_back(TestProtocol());
      actions.push_back(TestMetadata(config));
    }
    actions.push_back(TestAdd("f" + std::to_string(v) + ".parquet", "a", DayOf(v)));
    ASSERT_TRUE(t.Commit(v, actions).ok());
    ASSERT_TRUE(t.store->Put(CrcKey(v), "{}").ok());
    ASSERT_TRUE(t.store->Put("part=a/f" + std::to_string(v) + ".parquet", "data").ok());
    if (checkpoints.count(v)) {
      auto snap = t.Load(v);
      ASSERT_TRUE(snap.ok());
      CheckpointOptions options = WallCheckpoint();
      options.clock = t.clock.get();
      ASSERT_TRUE(WriteCheckpoint(*t.store, **snap, options).ok());
    }
  }
  // Never candidates: a writer's temp file and a hidden Hadoop checksum.
  ASSERT_TRUE(t.store->Put("_delta_log/.00000000000000000001.json.1234.tmp", "x").ok());
  ASSERT_TRUE(t.store->Put("_delta_log/.00000000000000000001.json.crc", "x").ok());
  ASSERT_TRUE(
      t.store->SetModificationTime("_delta_log/.00000000000000000001.json.1234.tmp", kT0).ok());
}

std::set<std::string> Keys(ObjectStore& store) {
  std::set<std::string> out;
  Status s = store.ListRecursive("", [&](const ObjectMeta& m) {
    if (!m.is_dir) out.insert(m.key);
    return Status::OK();
  });
  EXPECT_TRUE(s.ok());
  return out;
}

// Every version >= oldest_retained loads; older ones either load or fail with the classes a
// cleaned-up log gives.
void ExpectTimeTravel(const std::shared_ptr<ObjectStore>& store, int64_t oldest_retained,
                      int64_t latest) {
  for (int64_t v = 0; v <= latest; ++v) {
    auto snap = Snapshot::Load(store, v);
    if (v >= oldest_retained) {
      ASSERT_TRUE(snap.ok()) << "version " << v << ": " << snap.status().ToString();
      EXPECT_EQ((*snap)->files().size(), static_cast<size_t>(v + 1));
    } else if (!snap.ok()) {
      std::string_view cls = snap.status().error_class();
      EXPECT_TRUE(cls == "DELTA_CANNOT_RECONSTRUCT_VERSION" || cls == "DELTA_VERSION_NOT_FOUND")
          << "version " << v << ": " << snap.status().ToString();
    }
  }
}

Result<LogCleanupResult> Cleanup(TestTable& t, ObjectStore* store = nullptr,
                                 const LogCleanupOptions& options = {}) {
  auto snap = t.Load();
  if (!snap.ok()) return snap.status();
  return CleanupExpiredLogs(store ? *store : *t.store, **snap, *t.clock, options);
}

TEST(LogCleanupTest, RetentionBoundaryIsExactlyTheCutoff) {
  TestTable t;
  BuildDailyTable(t, 26, {10, 20});
  const std::string compact_old =
      "_delta_log/00000000000000000002.00000000000000000004.compacted.json";
  const std::string compact_new =
      "_delta_log/00000000000000000008.00000000000000000012.compacted.json";
  ASSERT_TRUE(t.store->Put(compact_old, "").ok());
  ASSERT_TRUE(t.store->Put(compact_new, "").ok());
  ASSERT_TRUE(t.store->SetModificationTime(compact_old, DayOf(4)).ok());
  ASSERT_TRUE(t.store->SetModificationTime(compact_new, DayOf(12)).ok());
  std::set<std::string> before = Keys(*t.store);

  // Cutoff 1 ms before commit 19: commits 0..18 are expired, 19 is the oldest retained version,
  // so the checkpoint at 10 must stay and only versions < 10 go.
  t.clock->SetMillis(DayOf(19) - 1 + 10 * kDay);
  auto r = Cleanup(t);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->skipped);
  EXPECT_EQ(r->cutoff_ms, DayOf(19) - 1);
  EXPECT_EQ(r->oldest_retained_version, 19);
  EXPECT_EQ(r->retained_checkpoint_version, 10);
  EXPECT_EQ(r->cut_version, 10);
  EXPECT_EQ(r->commits_deleted, 10);
  EXPECT_EQ(r->checksums_deleted, 10);
  EXPECT_EQ(r->checkpoints_deleted, 0);
  EXPECT_EQ(r->compactions_deleted, 1);
  std::set<std::string> after = Keys(*t.store);
  std::set<std::string> expected = before;
  for (int64_t v = 0; v < 10; ++v) expected.erase(CommitKey(v)), expected.erase(CrcKey(v));
  expected.erase(compact_old);
  EXPECT_EQ(after, expected);
  EXPECT_TRUE(after.count(CheckpointKey(10)));
  ExpectTimeTravel(t.store, 10, 25);

  // Cutoff exactly at commit 19's time: 19 is expired too (inclusive, as Spark), 20 is the
  // oldest retained version and has a checkpoint, so everything below 20 goes.
  t.clock->AdvanceMillis(1);
  r = Cleanup(t);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->cutoff_ms, DayOf(19));
  EXPECT_EQ(r->oldest_retained_version, 20);
  EXPECT_EQ(r->retained_checkpoint_version, 20);
  EXPECT_EQ(r->commits_deleted, 10);
  EXPECT_EQ(r->checksums_deleted, 10);
  EXPECT_EQ(r->checkpoints_deleted, 1);
  EXPECT_EQ(r->compactions_deleted, 1);
  after = Keys(*t.store);
  for (int64_t v = 0; v < 20; ++v) {
    EXPECT_FALSE(after.count(CommitKey(v))) << v;
    EXPECT_FALSE(after.count(CrcKey(v))) << v;
  }
  EXPECT_FALSE(after.count(CheckpointKey(10)));
  for (int64_t v = 20; v < 26; ++v) EXPECT_TRUE(after.count(CommitKey(v))) << v;
  EXPECT_TRUE(after.count(CheckpointKey(20)));
  EXPECT_TRUE(after.count("_delta_log/_last_checkpoint"));
  EXPECT_TRUE(after.count("_delta_log/.00000000000000000001.json.1234.tmp"));
  EXPECT_TRUE(after.count("_delta_log/.00000000000000000001.json.crc"));
  for (int64_t v = 0; v < 26; ++v)
    EXPECT_TRUE(after.count("part=a/f" + std::to_string(v) + ".parquet"));
  ExpectTimeTravel(t.store, 20, 25);
  for (int64_t v = 0; v < 20; ++v) {
    auto snap = t.Load(v);
    ASSERT_FALSE(snap.ok()) << v;
    EXPECT_EQ(snap.status().error_class(), "DELTA_CANNOT_RECONSTRUCT_VERSION") << v;
  }
  EXPECT_FALSE(t.Load(26).ok());
  EXPECT_EQ(t.Load(26).status().error_class(), "DELTA_VERSION_NOT_FOUND");

  // A rerun at the same time finds nothing more to do.
  r = Cleanup(t);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->deleted_keys.empty());
}

TEST(LogCleanupTest, NoOpWhenNoCheckpointIsOldEnough) {
  TestTable t;
  BuildDailyTable(t, 16, {10});
  std::set<std::string> before = Keys(*t.store);
  // Nothing expired: the cutoff is 1 ms before commit 0.
  t.clock->SetMillis(DayOf(0) + 10 * kDay - 1);
  auto r = Cleanup(t);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->oldest_retained_version, 0);
  EXPECT_EQ(r->retained_checkpoint_version, -1);
  EXPECT_TRUE(r->deleted_keys.empty());
  // Commits 0..8 expired, but the only checkpoint (10) is newer than the oldest retained
  // version 9: deleting anything would make 9 unreadable.
  t.clock->SetMillis(DayOf(8) + 10 * kDay);
  r = Cleanup(t);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->oldest_retained_version, 9);
  EXPECT_EQ(r->retained_checkpoint_version, -1);
  EXPECT_TRUE(r->deleted_keys.empty());
  EXPECT_EQ(Keys(*t.store), before);
  ExpectTimeTravel(t.store, 0, 15);
}

TEST(LogCleanupTest, EverythingExpiredKeepsTheLatestCheckpointAndAfter) {
  TestTable t;
  BuildDailyTable(t, 26, {10, 20});
  // An incomplete multi-part checkpoint is no anchor and is not below the cut either.
  const std::string part =
      "_delta_log/00000000000000000023.checkpoint.0000000001.0000000002.parquet";
  ASSERT_TRUE(t.store->Put(part, "PAR1").ok());
  t.clock->SetMillis(DayOf(400));
  auto r = Cleanup(t);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->oldest_retained_version, 25);
  EXPECT_EQ(r->retained_checkpoint_version, 20);
  EXPECT_EQ(r->commits_deleted, 20);
  EXPECT_EQ(r->checkpoints_deleted, 1);
  std::set<std::string> keys = Keys(*t.store);
  EXPECT_TRUE(keys.count(part));
  EXPECT_TRUE(keys.count(CheckpointKey(20)));
  ExpectTimeTravel(t.store, 20, 25);
}

TEST(LogCleanupTest, SnapshotVersionBoundsTheCleanup) {
  TestTable t;
  BuildDailyTable(t, 26, {10, 20});
  t.clock->SetMillis(DayOf(400));
  auto v15 = t.Load(15);
  ASSERT_TRUE(v15.ok());
  auto r = CleanupExpiredLogs(*t.store, **v15, *t.clock);
  ASSERT_TRUE(r.ok());
  // Cleaning up for version 15 keeps what version 15 needs: the checkpoint at 10.
  EXPECT_EQ(r->oldest_retained_version, 15);
  EXPECT_EQ(r->retained_checkpoint_version, 10);
  EXPECT_EQ(r->commits_deleted, 10);
  ExpectTimeTravel(t.store, 10, 25);
}

TEST(LogCleanupTest, NonMonotonicCommitTimesMoveTheCutBack) {
  TestTable t;
  BuildDailyTable(t, 20, {10});
  // Commit 10's file is older than commit 9's: time travel sees it at commit 9's time + 1 ms,
  // anchored on commit 9, so commit 9 must survive with it.
  ASSERT_TRUE(t.store->SetModificationTime(CommitKey(10), DayOf(9) - kHour).ok());
  t.clock->SetMillis(DayOf(15) + 10 * kDay);
  auto r = Cleanup(t);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->oldest_retained_version, 16);
  EXPECT_EQ(r->retained_checkpoint_version, 10);
  EXPECT_EQ(r->cut_version, 9);
  EXPECT_EQ(r->commits_deleted, 9);
  std::set<std::string> keys = Keys(*t.store);
  EXPECT_TRUE(keys.count(CommitKey(9)));
  EXPECT_FALSE(keys.count(CommitKey(8)));
  ExpectTimeTravel(t.store, 10, 19);
}

TEST(LogCleanupTest, DisabledOrProtectedTablesAreSkipped) {
  {
    TestTable t;
    BuildDailyTable(t, 16, {10}, StringMap{{"delta.enableExpiredLogCleanup", "false"}});
    std::set<std::string> before = Keys(*t.store);
    t.clock->SetMillis(DayOf(400));
    auto r = Cleanup(t);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->skipped);
    EXPECT_EQ(Keys(*t.store), before);
  }
  {
    TestTable t;
    BuildDailyTable(t, 12, {10});
    Protocol p = TestProtocol();
    p.writer_features->push_back("checkpointProtection");
    t.clock->SetMillis(DayOf(12));
    ASSERT_TRUE(t.Commit(12, {p, TestMetadata(StringMap{
                                     {"delta.requireCheckpointProtectionBeforeVersion", "5"}})})
                    .ok());
    std::set<std::string> before = Keys(*t.store);
    t.clock->SetMillis(DayOf(400));
    auto r = Cleanup(t);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r->skipped);
    EXPECT_EQ(Keys(*t.store), before);
  }
  {
    TestTable t;
    BuildDailyTable(t, 3, {}, StringMap{{"delta.logRetentionDuration", "interval 1 month"}});
    auto r = Cleanup(t);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().error_class(), kInvalidTablePropertyClass);
  }
}

TEST(LogCleanupTest, CutoffTruncationAndOverride) {
  TestTable t;
  BuildDailyTable(t, 12, {10});
  t.clock->SetMillis(DayOf(11) + 13 * kHour);
  LogCleanupOptions options;
  options.truncation = CutoffTruncation::kDay;
  auto r = Cleanup(t, nullptr, options);
  ASSERT_TRUE(r.ok());
  int64_t raw = t.clock->NowMillis() - 10 * kDay;
  EXPECT_EQ(r->cutoff_ms, raw - raw % kDay);
  options.truncation = CutoffTruncation::kHour;
  r = Cleanup(t, nullptr, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->cutoff_ms, raw - raw % kHour);
  options.truncation = CutoffTruncation::kNone;
  options.retention_millis_override = 0;
  r = Cleanup(t, nullptr, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->cutoff_ms, t.clock->NowMillis());
  EXPECT_EQ(r->retained_checkpoint_version, 10);
  EXPECT_EQ(r->commits_deleted, 10);
}

TEST(LogCleanupTest, FailedDeleteLeavesLoadableTableAndRerunCompletes) {
  TestTable t;
  BuildDailyTable(t, 26, {10, 20});
  TestTable clean;
  BuildDailyTable(clean, 26, {10, 20});
  t.clock->SetMillis(DayOf(19) + 10 * kDay);
  clean.clock->SetMillis(t.clock->NowMillis());
  ASSERT_TRUE(Cleanup(clean).ok());

  auto faulty = std::make_shared<FaultInjectingObjectStore>(t.store);
  for (int64_t fail_after : {7, 30}) {
    faulty->ClearRules();
    faulty->AddRule(FaultRule::FailAfter(fail_after, ObjectOp::kDelete));
    auto r = Cleanup(t, faulty.get());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().error_class(), kErrorInjectedFault);
    ExpectTimeTravel(faulty, 20, 25);
    auto latest = Snapshot::Load(faulty);
    ASSERT_TRUE(latest.ok());
    EXPECT_EQ((*latest)->version(), 25);
  }
  faulty->ClearRules();
  auto r = Cleanup(t, faulty.get());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->deleted_keys.empty());
  EXPECT_EQ(Keys(*t.store), Keys(*clean.store));
  ExpectTimeTravel(t.store, 20, 25);
}

}  // namespace
}  // namespace silt::delta
