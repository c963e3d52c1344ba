// Checkpoint replay: rows streamed from a Parquet checkpoint lose against newer commits by the
// same reconciliation key as JSON replay (decoded path, file: URIs canonical, DV id), whichever
// spelling of the path each side uses.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>

#include "common/thread_pool.h"
#include "delta/checkpoint_writer.h"
#include "delta/dv_descriptor.h"
#include "log_test_util.h"
#include "support/wall_clock.h"

namespace silt::delta {
namespace {

using namespace silt::delta::testing;  // NOLINT

DeletionVectorDescriptor InlineDv(const std::string& payload, int64_t cardinality) {
  DeletionVectorDescriptor d;
  d.storage_type = 'i';
  d.path_or_inline_dv = payload;
  d.size_in_bytes = static_cast<int32_t>(payload.size());
  d.cardinality = cardinality;
  return d;
}

std::vector<std::string> LiveKeys(const Snapshot& s) {
  std::vector<std::string> out;
  for (const auto& f : s.files())
    out.push_back(f.path + (f.deletion_vector ? "#" + f.deletion_vector->UniqueId() : ""));
  std::sort(out.begin(), out.end());
  return out;
}

// v0: five files; checkpoint at v0; v1 and v2 remove or replace four of them, each spelled
// differently from the checkpoint's row.
void BuildLog(TestTable& t, bool checkpoint) {
  int64_t ts = kT0;
  AddFile escaped = TestAdd("f%20x.parquet", "a", ts);  // checkpoint: escaped
  AddFile colon = TestAdd("g:y.parquet", "a", ts);      // checkpoint: raw ':'
  AddFile with_dv = TestAdd("dv.parquet", "a", ts);
  with_dv.deletion_vector = InlineDv("wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L", 1);
  AddFile uri = TestAdd("abs.parquet", "a", ts);
  uri.path = "file:///tmp/table/abs.parquet";
  AddFile keep = TestAdd("keep.parquet", "a", ts);
  ASSERT_TRUE(t.Commit(0, {TestCommitInfo(ts), TestProtocol(), TestMetadata(), escaped, colon,
                           with_dv, uri, keep})
                  .ok());
  if (checkpoint) {
    auto snap = t.Load();
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    ASSERT_TRUE(WriteCheckpoint(*t.store, **snap, WallCheckpoint()).ok());
  }
  t.clock->SetMillis(kT0 + kHour);
  ts = t.clock->NowMillis();
  RemoveFile r1 = RemoveOf(escaped, ts);
  r1.path = "part=a/f x.parquet";
  RemoveFile r2 = RemoveOf(colon, ts);
  r2.path = "part=a/g%3Ay.parquet";
  RemoveFile r3 = RemoveOf(uri, ts);
  r3.path = "/tmp/table/abs.parquet";
  ASSERT_TRUE(t.Commit(1, {TestCommitInfo(ts, "DELETE"), r1, r2, r3}).ok());
  // The DV'd file gets a new DV: the old (path, dv) pair is removed, the new one added.
  AddFile redv = with_dv;
  redv.deletion_vector = InlineDv("wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{M", 2);
  ASSERT_TRUE(t.Commit(2, {TestCommitInfo(ts, "DELETE"), RemoveOf(with_dv, ts), redv}).ok());
}

TEST(SnapshotReplayTest, CheckpointRowsLoseToNewerCommitsWhateverThePathSpelling) {
  TestTable json, ckpt;
  BuildLog(json, false);
  BuildLog(ckpt, true);
  auto a = json.Load(), b = ckpt.Load();
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ((*b)->segment().checkpoint_version, 0);
  std::vector<std::string> want = {
      "part=a/dv.parquet#iwi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{M",
      "part=a/keep.parquet"};
  EXPECT_EQ(LiveKeys(**a), want);
  EXPECT_EQ(LiveKeys(**b), want);
  // Tombstones: the four removes of the commits; the checkpoint had none.
  EXPECT_EQ((*b)->tombstones().size(), 4u);
  EXPECT_EQ((*a)->tombstones().size(), 4u);
}

TEST(SnapshotReplayTest, CheckpointAloneKeepsEveryRow) {
  TestTable t;
  BuildLog(t, true);
  auto snap = Snapshot::Load(t.store, 0);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_TRUE((*snap)->segment().commits.empty());
  EXPECT_EQ((*snap)->files().size(), 5u);
}

// "+<path>#<dv id>" for adds, "-<path>#<dv id>@<deletionTimestamp>" for tombstones, sorted.
// With a pool: the walk split into tasks (ForEachFileActionOn); *visitors counts their visitors.
std::vector<std::string> Streamed(const Snapshot& s, ThreadPool* pool = nullptr,
                                  int* visitors = nullptr) {
  std::vector<std::string> out;
  std::mutex mu;
  auto visit = [&](const FileActionRef& fa) {
    std::string k = (fa.is_add ? "+" : "-") + std::string(fa.path) + "#" +
                    (fa.deletion_vector ? fa.deletion_vector->UniqueId() : "");
    if (!fa.is_add) k += "@" + std::to_string(fa.deletion_timestamp.value_or(-1));
    std::lock_guard<std::mutex> lock(mu);
    out.push_back(std::move(k));
    return Status::OK();
  };
  Status st = pool == nullptr ? s.ForEachFileAction(visit)
                              : s.ForEachFileActionOn(pool, [&]() -> FileActionVisitor {
                                  std::lock_guard<std::mutex> lock(mu);
                                  if (visitors) ++*visitors;
                                  return visit;
                                });
  EXPECT_TRUE(st.ok()) << st.ToString();
  std::sort(out.begin(), out.end());
  return out;
}
std::vector<std::string> Listed(const Snapshot& s) {
  std::vector<std::string> out;
  for (const auto& f : s.files())
    out.push_back("+" + f.path + "#" + (f.deletion_vector ? f.deletion_vector->UniqueId() : ""));
  for (const auto& r : s.tombstones())
    out.push_back("-" + r.path + "#" + (r.deletion_vector ? r.deletion_vector->UniqueId() : "") +
                  "@" + std::to_string(r.deletion_timestamp.value_or(-1)));
  std::sort(out.begin(), out.end());
  return out;
}

// ForEachFileAction without the file list (a second, column-pruned replay) reports exactly the
// reconciled adds and tombstones a full load holds: checkpoint rows (single- and multi-part) with
// DVs and tombstones, later commits that remove, replace or re-add them under other spellings.
TEST(SnapshotReplayTest, ForEachFileActionStreamsWhatTheFileListHolds) {
  for (int64_t part_size : {0, 2}) {
    TestTable t;
    BuildLog(t, true);
    AddFile dv_file = TestAdd("udv.parquet", "b", t.clock->NowMillis());
    DeletionVectorDescriptor u;
    u.storage_type = 'u';
    u.path_or_inline_dv = "ab^-aqEH.-t@S}K{vb[*k^";
    u.offset = 1;
    u.size_in_bytes = 36;
    u.cardinality = 3;
    dv_file.deletion_vector = u;
    int64_t ts = t.clock->NowMillis();
    ASSERT_TRUE(t.Commit(3, {TestCommitInfo(ts), dv_file, TestAdd("gone.parquet", "b", ts)}).ok());
    ASSERT_TRUE(t.Commit(4, {TestCommitInfo(ts, "DELETE"),
                             RemoveOf(TestAdd("gone.parquet", "b", ts), ts + 5)})
                    .ok());
    auto at4 = t.Load();
    ASSERT_TRUE(at4.ok()) << at4.status().ToString();
    CheckpointOptions co = WallCheckpoint();
    co.part_size = part_size;
    ASSERT_TRUE(WriteCheckpoint(*t.store, **at4, co).ok());
    // After the checkpoint: the removed path comes back, the DV'd file is removed, "keep" gets
    // a DV under an escaped spelling of its path.
    AddFile back = TestAdd("gone.parquet", "b", ts);
    AddFile keep_dv = TestAdd("keep.parquet", "a", ts);
    keep_dv.path = "part%3Da/keep.parquet";
    keep_dv.deletion_vector = InlineDv("wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{N", 1);
    ASSERT_TRUE(t.Commit(5, {TestCommitInfo(ts), back, RemoveOf(dv_file, ts + 7), keep_dv,
                             RemoveOf(TestAdd("keep.parquet", "a", ts), ts + 7)})
                    .ok());
    for (int64_t v = 0; v <= 5; ++v) {
      auto full = Snapshot::Load(t.store, v);
      auto lean = Snapshot::Load(t.store, v, SnapshotOptions{.load_files = false});
      ASSERT_TRUE(full.ok() && lean.ok());
      EXPECT_TRUE((*full)->files_loaded());
      EXPECT_FALSE((*lean)->files_loaded());
      EXPECT_TRUE((*lean)->files().empty());
      std::vector<std::string> want = Listed(**full);
      EXPECT_EQ(Streamed(**full), want) << "version " << v;
      EXPECT_EQ(Streamed(**lean), want) << "version " << v << ", part size " << part_size;
    }
    auto latest = Snapshot::Load(t.store, std::nullopt, SnapshotOptions{.load_files = false});
    ASSERT_TRUE(latest.ok());
    ASSERT_EQ((*latest)->segment().checkpoint_version, 4);
    if (part_size > 0) {
      EXPECT_GT((*latest)->segment().checkpoint_parts.size(), 1u);
    }
    std::vector<std::string> s = Streamed(**latest);
    EXPECT_TRUE(std::count(s.begin(), s.end(), "+part=b/gone.parquet#"));
    EXPECT_TRUE(std::count(s.begin(), s.end(),
                           "-part=b/udv.parquet#" + u.UniqueId() + "@" + std::to_string(ts + 7)));
  }
}

// On a pool, a checkpoint's add.path pages are walked in parallel ranges (here: pages of 3 rows,
// row groups of 40, tombstones in their own tasks), each task with its own visitor: the same
// actions, each once.
TEST(SnapshotReplayTest, ForEachFileActionOnAPoolStreamsTheSameActions) {
  TestTable t;
  int64_t ts = kT0;
  std::vector<Action> v0 = {TestCommitInfo(ts), TestProtocol(), TestMetadata()};
  for (int i = 0; i < 100; ++i)
    v0.push_back(TestAdd("f" + std::to_string(i) + ".parquet", i % 2 ? "a" : "b", ts));
  ASSERT_TRUE(t.Commit(0, std::move(v0)).ok());
  std::vector<Action> v1 = {TestCommitInfo(ts, "DELETE")};
  for (int i = 0; i < 100; i += 7)
    v1.push_back(
        RemoveOf(TestAdd("f" + std::to_string(i) + ".parquet", i % 2 ? "a" : "b", ts), ts + i));
  ASSERT_TRUE(t.Commit(1, std::move(v1)).ok());
  auto at1 = t.Load();
  ASSERT_TRUE(at1.ok()) << at1.status().ToString();
  CheckpointOptions co = WallCheckpoint();
  co.parquet.page_rows = 3;
  co.parquet.row_group_max_rows = 40;
  co.clock = t.clock.get();  // the tombstones are unexpired: they go in the checkpoint too
  ASSERT_TRUE(WriteCheckpoint(*t.store, **at1, co).ok());
  // After the checkpoint: one more file removed, one removed file back.
  ASSERT_TRUE(
      t.Commit(2, {TestCommitInfo(ts, "WRITE"), RemoveOf(TestAdd("f1.parquet", "a", ts), ts + 1),
                   TestAdd("f7.parquet", "a", ts)})
          .ok());
  auto full = Snapshot::Load(t.store);
  auto lean = Snapshot::Load(t.store, std::nullopt, SnapshotOptions{.load_files = false});
  ASSERT_TRUE(full.ok() && lean.ok());
  ASSERT_EQ((*lean)->segment().checkpoint_version, 1);
  std::vector<std::string> want = Listed(**full);
  ASSERT_EQ(want.size(), 100u);  // 85 files, 15 tombstones
  ThreadPool pool(2);
  EXPECT_EQ(Streamed(**lean), want);
  int visitors = 0;
  EXPECT_EQ(Streamed(**lean, &pool, &visitors), want);
  EXPECT_GT(visitors, 6);  // the commits', and one per task of 3 row groups in 3-row pages
  EXPECT_EQ(Streamed(**full, &pool), want);
}

TEST(SnapshotReplayTest, ForEachFileActionStopsAtTheVisitorsError) {
  TestTable t;
  BuildLog(t, true);
  auto lean = Snapshot::Load(t.store, 0, SnapshotOptions{.load_files = false});
  ASSERT_TRUE(lean.ok());
  int calls = 0;
  Status st = (*lean)->ForEachFileAction([&](const FileActionRef&) {
    ++calls;
    return Status::Cancelled("enough");
  });
  EXPECT_EQ(st.code(), StatusCode::kCancelled);
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace silt::delta
