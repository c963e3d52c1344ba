// Checkpoint replay: rows streamed from a Parquet checkpoint lose against newer commits by the
// same reconciliation key as JSON replay (decoded path, file: URIs canonical, DV id), whichever
// spelling of the path each side uses.
#include <gtest/gtest.h>

#include "delta/checkpoint_writer.h"
#include "delta/dv_descriptor.h"
#include "log_test_util.h"

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
  for (const auto& f : s.files()) out.push_back(f.path + (f.deletion_vector ? "#" + f.deletion_vector->UniqueId() : ""));
  std::sort(out.begin(), out.end());
  return out;
}

// v0: five files; checkpoint at v0; v1 and v2 remove or replace four of them, each spelled
// differently from the checkpoint's row.
void BuildLog(TestTable& t, bool checkpoint) {
  int64_t ts = kT0;
  AddFile escaped = TestAdd("f%20x.parquet", "a", ts);          // checkpoint: escaped
  AddFile colon = TestAdd("g:y.parquet", "a", ts);              // checkpoint: raw ':'
  AddFile with_dv = TestAdd("dv.parquet", "a", ts);
  with_dv.deletion_vector = InlineDv("wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L", 1);
  AddFile uri = TestAdd("abs.parquet", "a", ts);
  uri.path = "file:///tmp/table/abs.parquet";
  AddFile keep = TestAdd("keep.parquet", "a", ts);
  ASSERT_TRUE(t.Commit(0, {TestCommitInfo(ts), TestProtocol(), TestMetadata(), escaped, colon, with_dv, uri, keep}).ok());
  if (checkpoint) {
    auto snap = t.Load();
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    ASSERT_TRUE(WriteCheckpoint(*t.store, **snap).ok());
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

}  // namespace
}  // namespace silt::delta
