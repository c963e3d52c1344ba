// A listing may miss a commit written while it ran yet report a later one (the listing contract
// in io/object_store.h; ext4's readdir does this under concurrent commits). These tests hide a
// commit from listings, deterministically, and check that no reader or committer takes the gap
// for a hole (issue 31, item 1): BuildLogSegment / Snapshot::Load, the conflict check of a
// committing transaction, and history. A real hole is still DELTA_VERSIONS_NOT_CONTIGUOUS.
// Also damaged checkpoints (item 7): the snapshot falls back to an older checkpoint or to the
// commits, and stale temp files of crashed log writes are removed by age.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "delta/checkpoint_writer.h"
#include "delta/history.h"
#include "delta/log_cleanup.h"
#include "delta/log_listing.h"
#include "delta/transaction.h"
#include "log_test_util.h"
#include "support/forwarding_object_store.h"

namespace silt::delta {
namespace {

using namespace silt::delta::testing;  // NOLINT

// Forwards to `inner`, but ListFrom leaves out the keys told, for the next n listings (-1: all).
class HidingStore final : public ForwardingObjectStore {
 public:
  explicit HidingStore(std::shared_ptr<ObjectStore> inner)
      : ForwardingObjectStore(std::move(inner)) {}

  void Hide(const std::string& key, int listings) {
    std::lock_guard<std::mutex> l(mu_);
    hidden_[key] = listings;
  }
  int listings() const {
    std::lock_guard<std::mutex> l(mu_);
    return listings_;
  }

  Result<std::vector<ObjectMeta>> ListFrom(const std::string& key) override {
    SILT_ASSIGN_OR_RETURN(auto listing, inner().ListFrom(key));
    std::lock_guard<std::mutex> l(mu_);
    ++listings_;
    std::vector<ObjectMeta> out;
    for (auto& m : listing) {
      auto it = hidden_.find(m.key);
      if (it != hidden_.end() && it->second != 0) {
        if (it->second > 0) --it->second;
        continue;
      }
      out.push_back(std::move(m));
    }
    return out;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, int> hidden_;
  int listings_ = 0;
};

// v0 creates the table with files a and b; v1..v(n-1) each add one more file.
void BuildCommits(TestTable& t, int n) {
  ASSERT_TRUE(t.Commit(0, {TestCommitInfo(kT0, "CREATE TABLE"), TestProtocol(false), TestMetadata(),
                           TestAdd("a.parquet", "x", kT0), TestAdd("b.parquet", "x", kT0)})
                  .ok());
  for (int v = 1; v < n; ++v) {
    t.clock->SetMillis(kT0 + v * 1000);
    ASSERT_TRUE(t.Commit(v, {TestCommitInfo(kT0 + v * 1000),
                             TestAdd("f" + std::to_string(v) + ".parquet", "x", kT0)})
                    .ok());
  }
}

std::vector<int64_t> Versions(const LogSegment& seg) {
  std::vector<int64_t> out;
  for (const auto& c : seg.commits) out.push_back(c.version);
  return out;
}

TEST(LogListingRaceTest, CommitHiddenFromOneListingIsNoHole) {
  TestTable t;
  BuildCommits(t, 6);
  HidingStore store(t.store);
  store.Hide(CommitKey(3), 1);
  auto seg = BuildLogSegment(store, std::nullopt);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(seg->version, 5);
  EXPECT_EQ(Versions(*seg), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(seg->commits[3].meta.key, CommitKey(3));
}

TEST(LogListingRaceTest, CommitHiddenFromEveryListingIsFoundByHead) {
  TestTable t;
  BuildCommits(t, 6);
  HidingStore store(t.store);
  store.Hide(CommitKey(2), -1);
  store.Hide(CommitKey(4), -1);
  auto seg = BuildLogSegment(store, std::nullopt);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(Versions(*seg), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_GT(seg->commits[2].meta.size, 0);
  // Time travel into the range, and a whole snapshot over the hiding store.
  auto at3 = BuildLogSegment(store, 3);
  ASSERT_TRUE(at3.ok()) << at3.status().ToString();
  EXPECT_EQ(Versions(*at3), (std::vector<int64_t>{0, 1, 2, 3}));
  auto shared = std::make_shared<HidingStore>(t.store);
  shared->Hide(CommitKey(2), -1);
  auto snap = Snapshot::Load(shared);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ((*snap)->version(), 5);
  EXPECT_EQ((*snap)->files().size(), 2u + 5u);
}

TEST(LogListingRaceTest, HiddenCommitAfterACheckpointIsNoHole) {
  TestTable t;
  BuildCommits(t, 4);
  auto snap = t.Load();
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  CheckpointOptions co;
  co.clock = t.clock.get();
  ASSERT_TRUE(WriteCheckpoint(*t.store, **snap, co).ok());
  for (int v = 4; v < 8; ++v)
    ASSERT_TRUE(t.Commit(v, {TestCommitInfo(kT0 + v * 1000),
                             TestAdd("g" + std::to_string(v) + ".parquet", "x", kT0)})
                    .ok());
  HidingStore store(t.store);
  store.Hide(CommitKey(5), 1);  // the listing from the _last_checkpoint hint misses it
  auto seg = BuildLogSegment(store, std::nullopt);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(seg->checkpoint_version, 3);
  EXPECT_EQ(Versions(*seg), (std::vector<int64_t>{4, 5, 6, 7}));
}

TEST(LogListingRaceTest, ARealHoleIsStillReported) {
  TestTable t;
  BuildCommits(t, 6);
  ASSERT_TRUE(t.store->Delete(CommitKey(3)).ok());
  auto seg = BuildLogSegment(*t.store, std::nullopt);
  ASSERT_FALSE(seg.ok());
  EXPECT_EQ(seg.status().error_class(), "DELTA_VERSIONS_NOT_CONTIGUOUS");
  EXPECT_NE(seg.status().message().find("missing commit 3"), std::string_view::npos)
      << seg.status().ToString();
  // Versions below the hole still load.
  auto at2 = BuildLogSegment(*t.store, 2);
  ASSERT_TRUE(at2.ok()) << at2.status().ToString();
}

TEST(LogListingRaceTest, FillCommitGapsReportsTheFirstRealHole) {
  TestTable t;
  BuildCommits(t, 8);
  ASSERT_TRUE(t.store->Delete(CommitKey(5)).ok());
  HidingStore store(t.store);
  store.Hide(CommitKey(2), -1);
  std::map<int64_t, LogFile> commits;
  for (int64_t v : {0, 1, 3, 4, 7}) {
    auto meta = t.store->Head(CommitKey(v));
    ASSERT_TRUE(meta.ok());
    commits[v] = *ParseLogFileName(*meta);
  }
  auto hole = FillCommitGaps(store, &commits, 0, 7);
  ASSERT_TRUE(hole.ok()) << hole.status().ToString();
  ASSERT_TRUE(hole->has_value());
  EXPECT_EQ(**hole, 5);
  // 2 (hidden: Head) and 6 (listed again) were recovered; 5 really is gone.
  EXPECT_EQ(commits.count(2), 1u);
  EXPECT_EQ(commits.count(6), 1u);
  EXPECT_EQ(commits.count(5), 0u);
  auto none = FillCommitGaps(store, &commits, 6, 7);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST(LogListingRaceTest, HugeHoleIsBoundedAndReported) {
  TestTable t;
  BuildCommits(t, 2);
  std::map<int64_t, LogFile> commits;
  for (int64_t v : {0, 1}) commits[v] = *ParseLogFileName(*t.store->Head(CommitKey(v)));
  auto hole = FillCommitGaps(*t.store, &commits, 0, int64_t{1} << 60);
  ASSERT_TRUE(hole.ok()) << hole.status().ToString();
  ASSERT_TRUE(hole->has_value());
  EXPECT_EQ(**hole, 2);
}

// A committer whose conflict check lists the winners must not skip one the listing missed: here
// the missed winner removed the file this transaction removes too.
TEST(LogListingRaceTest, ConflictCheckSeesAWinnerTheListingMissed) {
  TestTable t;
  BuildCommits(t, 1);
  auto store = std::make_shared<HidingStore>(t.store);
  auto read = Snapshot::Load(store);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  AddFile a = TestAdd("a.parquet", "x", kT0);
  // Winners: v1 deletes a, v2 appends.
  ASSERT_TRUE(t.Commit(1, {TestCommitInfo(kT0 + 1000, "DELETE"), RemoveOf(a, kT0 + 1000)}).ok());
  ASSERT_TRUE(t.Commit(2, {TestCommitInfo(kT0 + 2000), TestAdd("c.parquet", "x", kT0)}).ok());
  store->Hide(CommitKey(1), -1);
  TransactionOptions opts;
  opts.clock = t.clock;
  opts.post_commit_hooks = false;
  Transaction txn(store, *read, opts);
  txn.SetOperation("DELETE");
  txn.Remove(RemoveOf(a, kT0 + 3000));
  auto committed = txn.Commit();
  ASSERT_FALSE(committed.ok()) << "committed at " << committed->version
                               << " over a missed conflict";
  EXPECT_EQ(committed.status().error_class(), "DELTA_CONCURRENT_DELETE_DELETE")
      << committed.status().ToString();
  EXPECT_FALSE(t.store->Head(CommitKey(3)).ok());
}

TEST(LogListingRaceTest, HistoryShowsACommitTheListingMissed) {
  TestTable t;
  BuildCommits(t, 5);
  HidingStore store(t.store);
  store.Hide(CommitKey(2), -1);
  auto commits = ListCommits(store, 0);
  ASSERT_TRUE(commits.ok()) << commits.status().ToString();
  ASSERT_EQ(commits->size(), 5u);
  for (int64_t v = 0; v < 5; ++v) EXPECT_EQ((*commits)[v].version, v);
}

// --- Damaged checkpoints (issue 31, item 7) -------------------------------------------------

// v0..v3, a checkpoint at 3, v4..v5: the state of every version is known from the commits.
void BuildCheckpointedLog(TestTable& t, std::vector<int64_t> checkpoints = {3}) {
  BuildCommits(t, 6);
  CheckpointOptions co;
  co.clock = t.clock.get();
  for (int64_t c : checkpoints) {
    auto snap = t.Load(c);
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    ASSERT_TRUE(WriteCheckpoint(*t.store, **snap, co).ok());
  }
}

std::vector<std::string> Paths(const Snapshot& s) {
  std::vector<std::string> out;
  for (const auto& f : SortedFiles(s)) out.push_back(f.path);
  return out;
}

TEST(CheckpointFallbackTest, GarbledCheckpointFallsBackToTheCommits) {
  TestTable t;
  BuildCheckpointedLog(t);
  auto good = t.Load();
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  ASSERT_EQ((*good)->segment().checkpoint_version, 3);
  auto bytes = t.store->Get(CheckpointKey(3));
  ASSERT_TRUE(bytes.ok());
  std::string garbled = *bytes;
  for (size_t i = garbled.size() / 4; i < garbled.size() - 8; i += 7)
    garbled[i] = static_cast<char>(garbled[i] ^ 0x5a);
  ASSERT_TRUE(t.store->Put(CheckpointKey(3), garbled).ok());
  auto snap = t.Load();
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ((*snap)->version(), 5);
  EXPECT_EQ((*snap)->segment().checkpoint_version, -1);
  EXPECT_EQ(Paths(**snap), Paths(**good));
  auto at4 = t.Load(4);
  ASSERT_TRUE(at4.ok()) << at4.status().ToString();
  EXPECT_EQ((*at4)->files().size(), 2u + 4u);
}

TEST(CheckpointFallbackTest, TruncatedCheckpointFallsBackToTheOlderOne) {
  TestTable t;
  BuildCheckpointedLog(t, {1, 3});
  auto good = t.Load();
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  auto bytes = t.store->Get(CheckpointKey(3));
  ASSERT_TRUE(bytes.ok());
  ASSERT_TRUE(t.store->Put(CheckpointKey(3), bytes->substr(0, bytes->size() / 2)).ok());
  // Commit 0 is gone: only checkpoint 1 can start the segment.
  ASSERT_TRUE(t.store->Delete(CommitKey(0)).ok());
  auto snap = t.Load();
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ((*snap)->segment().checkpoint_version, 1);
  EXPECT_EQ(Paths(**snap), Paths(**good));
}

TEST(CheckpointFallbackTest, NoFallbackLeftReportsTheDamage) {
  TestTable t;
  BuildCheckpointedLog(t);
  ASSERT_TRUE(t.store->Put(CheckpointKey(3), "PAR1 not a parquet file PAR1").ok());
  ASSERT_TRUE(t.store->Delete(CommitKey(0)).ok());
  auto snap = t.Load();
  ASSERT_FALSE(snap.ok());
  // The checkpoint's own error, not "cannot reconstruct".
  EXPECT_NE(snap.status().error_class(), "DELTA_CANNOT_RECONSTRUCT_VERSION")
      << snap.status().ToString();
}

// Damage found only while walking the file actions (VACUUM's walk over a snapshot loaded without
// its files, where the checkpoint's add columns are read later): the walk falls back like Load
// and lists every live file, never a partial list; with no fallback left it fails.
TEST(CheckpointFallbackTest, CheckpointDamagedAfterTheLoadFallsBackInTheFileWalk) {
  TestTable t;
  BuildCheckpointedLog(t);
  auto good = t.Load();
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  const std::vector<std::string> expected = Paths(**good);
  SnapshotOptions lazy_options;
  lazy_options.load_files = false;
  auto lazy = Snapshot::Load(t.store, std::nullopt, lazy_options);
  ASSERT_TRUE(lazy.ok()) << lazy.status().ToString();
  ASSERT_EQ((*lazy)->segment().checkpoint_version, 3);
  auto walk = [&](std::vector<std::string>* adds) {
    std::mutex mu;
    return (*lazy)->ForEachFileAction([&](const FileActionRef& fa) -> Status {
      std::lock_guard<std::mutex> lock(mu);
      if (fa.is_add) adds->emplace_back(fa.path);
      return Status::OK();
    });
  };
  const std::string intact = *t.store->Get(CheckpointKey(3));
  for (const std::string& damaged :
       {std::string("PAR1 not a parquet file PAR1"), intact.substr(0, intact.size() / 2)}) {
    ASSERT_TRUE(t.store->Put(CheckpointKey(3), damaged).ok());
    std::vector<std::string> adds;
    Status s = walk(&adds);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::sort(adds.begin(), adds.end());
    adds.erase(std::unique(adds.begin(), adds.end()), adds.end());
    EXPECT_EQ(adds, expected);
  }
  // A visitor's own error is returned as is (no retry over an older segment).
  ASSERT_TRUE(t.store->Put(CheckpointKey(3), intact).ok());
  int calls = 0;
  Status own = (*lazy)->ForEachFileAction([&](const FileActionRef& fa) -> Status {
    // a.parquet (commit 0) comes from the checkpoint.
    if (!fa.is_add || fa.path.find("a.parquet") == std::string_view::npos) return Status::OK();
    ++calls;
    return Status::InvalidArgument("stop", "TEST_STOP");
  });
  EXPECT_EQ(own.error_class(), "TEST_STOP");
  EXPECT_EQ(calls, 1);
  // Nothing to fall back to: the walk fails.
  ASSERT_TRUE(t.store->Put(CheckpointKey(3), "PAR1 not a parquet file PAR1").ok());
  ASSERT_TRUE(t.store->Delete(CommitKey(0)).ok());
  std::vector<std::string> adds;
  EXPECT_FALSE(walk(&adds).ok());
}

TEST(CheckpointFallbackTest, LastCheckpointPointingToAMissingCheckpoint) {
  TestTable t;
  BuildCheckpointedLog(t);
  ASSERT_TRUE(
      t.store->Put(std::string(kLogDir) + "_last_checkpoint", R"({"version":5,"size":7})").ok());
  auto snap = t.Load();
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ((*snap)->version(), 5);
  EXPECT_EQ((*snap)->segment().checkpoint_version, 3);
  // Pointing to a damaged one: the hint is skipped like the checkpoint.
  ASSERT_TRUE(
      t.store->Put(std::string(kLogDir) + "_last_checkpoint", R"({"version":3,"size":7})").ok());
  ASSERT_TRUE(t.store->Put(CheckpointKey(3), "garbage").ok());
  snap = t.Load();
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ((*snap)->segment().checkpoint_version, -1);
  EXPECT_EQ((*snap)->files().size(), 2u + 5u);
}

TEST(CheckpointFallbackTest, StaleTempFilesOfCrashedLogWritesAreRemovedByAge) {
  TestTable t;
  BuildCommits(t, 3);
  const std::string old_cp =
      std::string(kLogDir) + ".00000000000000000002.checkpoint.parquet.0a1b2c.tmp";
  const std::string old_commit = std::string(kLogDir) + ".00000000000000000003.json.crash-1.tmp";
  const std::string other = std::string(kLogDir) + ".something.tmp";
  ASSERT_TRUE(t.store->Put(old_cp, "partial").ok());
  ASSERT_TRUE(t.store->Put(old_commit, "{").ok());
  ASSERT_TRUE(t.store->Put(other, "x").ok());
  t.clock->SetMillis(t.clock->NowMillis() + kStaleLogTempFileAgeMs + 1);
  // Written just now: another writer may still be writing it.
  const std::string fresh =
      std::string(kLogDir) + ".00000000000000000005.checkpoint.parquet.ffff.tmp";
  ASSERT_TRUE(t.store->Put(fresh, "in flight").ok());
  auto snap = t.Load();
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  CheckpointOptions co;
  co.clock = t.clock.get();
  ASSERT_TRUE(WriteCheckpoint(*t.store, **snap, co).ok());
  EXPECT_FALSE(t.store->Head(old_cp).ok());
  EXPECT_FALSE(t.store->Head(old_commit).ok());
  EXPECT_TRUE(t.store->Head(fresh).ok());
  EXPECT_TRUE(t.store->Head(other).ok());  // not a log file's temp: not ours to judge
  auto again = DeleteStaleLogTempFiles(*t.store, *t.clock);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->empty());
}

}  // namespace
}  // namespace silt::delta
