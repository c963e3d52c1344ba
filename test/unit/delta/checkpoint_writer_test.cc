#include "delta/checkpoint_writer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "delta/table_properties.h"
#include "io/local_object_store.h"
#include "io/object_store_factory.h"
#include "parquet/reader.h"
#include "support/fault_injecting_object_store.h"
#include "support/wall_clock.h"
#include "unit/delta/conformance_files.h"
#include "unit/delta/log_test_util.h"

namespace silt::delta {
namespace {

using testing::kDay;
using testing::kHour;
using testing::kT0;
using testing::RemoveOf;
using testing::SortedFiles;
using testing::SortedTombstones;
using testing::TestAdd;
using testing::TestCommitInfo;
using testing::TestMetadata;
using testing::TestProtocol;
using testing::TestTable;

DeletionVectorDescriptor UuidDv() {
  DeletionVectorDescriptor dv;
  dv.storage_type = 'u';
  dv.path_or_inline_dv = "ab^-aqEH.-t@S}K{vb[*k^";
  dv.offset = 1;
  dv.size_in_bytes = 36;
  dv.cardinality = 2;
  return dv;
}

DeletionVectorDescriptor InlineDv() {
  DeletionVectorDescriptor dv;
  dv.storage_type = 'i';
  dv.path_or_inline_dv = "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L";
  dv.size_in_bytes = 40;
  dv.cardinality = 6;
  return dv;
}

SetTransaction Txn(const std::string& app, int64_t v, std::optional<int64_t> last_updated) {
  SetTransaction t;
  t.app_id = app;
  t.version = v;
  t.last_updated = last_updated;
  return t;
}

DomainMetadata Domain(const std::string& d, const std::string& config, bool removed = false) {
  DomainMetadata m;
  m.domain = d;
  m.configuration = config;
  m.removed = removed;
  return m;
}

// Commits 0..10 exercising every action kind a checkpoint holds; commit v at kT0 + v hours.
void BuildRichTable(TestTable& t) {
  auto at = [&](int64_t v) {
    t.clock->SetMillis(kT0 + v * kHour);
    return kT0 + v * kHour;
  };
  int64_t ts = at(0);
  AddFile a0 = TestAdd("a0.parquet", "a", ts);
  AddFile a1 = TestAdd("a1.parquet", std::nullopt, ts);
  AddFile a2 = TestAdd("a2.parquet", "b", ts);
  a2.tags =
      StringMap{{"INSERTION_TIME", "1700000000000000"}, {"OPTIMIZE_TARGET_SIZE", "268435456"}};
  a2.base_row_id = 0;
  a2.default_row_commit_version = 0;
  ASSERT_TRUE(
      t.Commit(0, {TestCommitInfo(ts, "CREATE TABLE"), TestProtocol(), TestMetadata(), a0, a1, a2})
          .ok());

  ts = at(1);
  AddFile f10 = TestAdd("f1_0.parquet", "a", ts), f11 = TestAdd("f1_1.parquet", "c", ts);
  ASSERT_TRUE(t.Commit(1, {TestCommitInfo(ts), f10, f11, Txn("app1", 1, ts)}).ok());

  ts = at(2);  // a0 removed long ago (expired tombstone)
  ASSERT_TRUE(t.Commit(2, {TestCommitInfo(ts, "DELETE"), RemoveOf(a0, kT0 - 10 * kDay)}).ok());

  ts = at(3);  // DELETE with deletion vectors: the file is replaced by (path, dv)
  AddFile a1_dv = a1;
  a1_dv.deletion_vector = UuidDv();
  a1_dv.data_change = true;
  AddFile f11_dv = f11;
  f11_dv.deletion_vector = InlineDv();
  ASSERT_TRUE(t.Commit(3, {TestCommitInfo(ts, "DELETE"), RemoveOf(a1, ts), a1_dv, RemoveOf(f11, ts),
                           f11_dv})
                  .ok());

  ts = at(4);
  ASSERT_TRUE(
      t.Commit(4, {TestCommitInfo(ts), Domain("delta.rowTracking", R"({"rowIdHighWaterMark":29})"),
                   Domain("user.x", "{}")})
          .ok());

  ts = at(5);
  ASSERT_TRUE(
      t.Commit(5, {TestCommitInfo(ts), Txn("app1", 5, ts), Txn("app2", 1, std::nullopt)}).ok());

  ts = at(6);
  AddFile f6 = TestAdd("f6.parquet", "b", ts);
  f6.base_row_id = 30;
  f6.default_row_commit_version = 6;
  f6.clustering_provider = "liquid";
  ASSERT_TRUE(t.Commit(6, {TestCommitInfo(ts), Domain("user.x", "{}", true), f6}).ok());

  ts = at(7);
  RemoveFile r10 = RemoveOf(f10, ts);
  r10.extended_file_metadata = false;
  r10.partition_values.reset();
  r10.size.reset();
  AddFile odd = TestAdd("a%20b%3Dc.parquet", "x y", ts);
  odd.stats.reset();
  ASSERT_TRUE(t.Commit(7, {TestCommitInfo(ts), r10, odd}).ok());

  ts = at(8);  // a0 comes back: its (expired) tombstone is superseded
  AddFile a0_again = a0;
  a0_again.modification_time = ts;
  ASSERT_TRUE(t.Commit(8, {TestCommitInfo(ts), a0_again}).ok());

  ts = at(9);
  ASSERT_TRUE(t.Commit(9, {TestCommitInfo(ts, "SET TBLPROPERTIES"),
                           TestMetadata(StringMap{{"delta.checkpointInterval", "10"},
                                                  {"delta.enableDeletionVectors", "true"}})})
                  .ok());

  ts = at(10);
  RemoveFile no_ts = RemoveOf(a2, 0);
  no_ts.deletion_timestamp.reset();  // no timestamp: expired by definition
  AddFile f10b = TestAdd("f10.parquet", "a", ts);
  ASSERT_TRUE(t.Commit(10, {TestCommitInfo(ts), no_ts, f10b, Txn("app3", 7, ts)}).ok());
}

void AppendAfterCheckpoint(TestTable& t) {
  t.clock->SetMillis(kT0 + 11 * kHour);
  int64_t ts = t.clock->NowMillis();
  AddFile f11 = TestAdd("f11.parquet", "a", ts);
  ASSERT_TRUE(t.Commit(11, {TestCommitInfo(ts), f11, Txn("app1", 11, ts)}).ok());
  t.clock->SetMillis(kT0 + 12 * kHour);
  ts = t.clock->NowMillis();
  ASSERT_TRUE(t.Commit(12, {TestCommitInfo(ts, "DELETE"), RemoveOf(f11, ts),
                            RemoveOf(TestAdd("f6.parquet", "b", 0), ts)})
                  .ok());
}

void ExpectSameState(const Snapshot& expected, const Snapshot& actual, int64_t min_tombstone_ts) {
  EXPECT_EQ(expected.version(), actual.version());
  EXPECT_EQ(expected.protocol(), actual.protocol());
  EXPECT_EQ(expected.metadata(), actual.metadata());
  EXPECT_EQ(SortedFiles(expected), SortedFiles(actual));
  EXPECT_EQ(SortedTombstones(expected, min_tombstone_ts),
            SortedTombstones(actual, min_tombstone_ts));
  EXPECT_EQ(expected.transactions(), actual.transactions());
  EXPECT_EQ(expected.domains(), actual.domains());
}

TEST(CheckpointWriterTest, RoundTripMatchesJsonReplay) {
  TestTable t;
  BuildRichTable(t);
  auto json = t.Load();
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  ASSERT_EQ((*json)->version(), 10);
  ASSERT_EQ((*json)->segment().checkpoint_version, -1);

  ManualClock clock(kT0 + 11 * kHour);
  CheckpointOptions options = WallCheckpoint();
  options.clock = &clock;
  CheckpointInfo info;
  Status s = WriteCheckpoint(*t.store, **json, options, &info);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(info.version, 10);
  EXPECT_EQ(info.key, "_delta_log/00000000000000000010.checkpoint.parquet");
  EXPECT_FALSE(info.already_existed);
  EXPECT_TRUE(info.last_checkpoint_updated);
  EXPECT_EQ(info.num_add_files, static_cast<int64_t>((*json)->files().size()));
  // a1, f11 (replaced by DV versions) and f1_0; not a0 (re-added), not a2 (no timestamp).
  EXPECT_EQ(info.num_tombstones, 3);
  // protocol + metaData + 3 txns + 1 live domain + files + tombstones.
  EXPECT_EQ(info.num_actions, 2 + 3 + 1 + info.num_add_files + 3);

  auto head = t.store->Head(info.key);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->size, info.size_in_bytes);
  auto last = t.store->Get("_delta_log/_last_checkpoint");
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(*last, "{\"version\":10,\"size\":" + std::to_string(info.num_actions) +
                       ",\"sizeInBytes\":" + std::to_string(info.size_in_bytes) +
                       ",\"numOfAddFiles\":" + std::to_string(info.num_add_files) + "}");

  auto ckpt = t.Load();
  ASSERT_TRUE(ckpt.ok()) << ckpt.status().ToString();
  EXPECT_EQ((*ckpt)->segment().checkpoint_version, 10);
  EXPECT_TRUE((*ckpt)->segment().commits.empty());
  ExpectSameState(**json, **ckpt, clock.NowMillis() - kDefaultDeletedFileRetentionMillis);
  // The expired tombstones really are gone, the live ones kept their fields.
  EXPECT_EQ((*ckpt)->tombstones().size(), 3u);
  for (const AddFile& f : (*ckpt)->files()) EXPECT_FALSE(f.data_change);
  for (const RemoveFile& r : (*ckpt)->tombstones()) EXPECT_FALSE(r.data_change);

  // Commits after the checkpoint replay on top of it exactly like the full JSON log.
  TestTable plain;
  BuildRichTable(plain);
  AppendAfterCheckpoint(plain);
  AppendAfterCheckpoint(t);
  auto a = plain.Load(), b = t.Load();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ((*b)->segment().checkpoint_version, 10);
  EXPECT_EQ((*b)->segment().commits.size(), 2u);
  ExpectSameState(**a, **b, clock.NowMillis() - kDefaultDeletedFileRetentionMillis);
}

TEST(CheckpointWriterTest, EveryRowHasExactlyOneAction) {
  TestTable t;
  BuildRichTable(t);
  auto snap = t.Load();
  ASSERT_TRUE(snap.ok());
  CheckpointOptions options = WallCheckpoint();
  ManualClock clock(kT0 + 11 * kHour);
  options.clock = &clock;
  options.rows_per_chunk = 3;  // several chunks through the writer
  CheckpointInfo info;
  ASSERT_TRUE(WriteCheckpoint(*t.store, **snap, options, &info).ok());
  auto file = t.store->OpenRead(info.key);
  ASSERT_TRUE(file.ok());
  auto pf = parquet::ParquetFile::Open(*file);
  ASSERT_TRUE(pf.ok()) << pf.status().ToString();
  EXPECT_EQ((*pf)->num_rows(), info.num_actions);
  const Schema& schema = (*pf)->schema().schema();
  ASSERT_EQ(schema.size(), 6u);
  std::vector<std::string> names;
  for (const Field& f : schema) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"txn", "add", "remove", "metaData", "protocol",
                                             "domainMetadata"}));
  std::vector<int64_t> per_column(schema.size());
  ASSERT_GE((*pf)->num_row_groups(), 2);
  for (int rg = 0; rg < (*pf)->num_row_groups(); ++rg) {
    DataChunk chunk;
    ASSERT_TRUE((*pf)->ReadRowGroup(rg, {}, &chunk).ok());
    for (size_t i = 0; i < chunk.size(); ++i) {
      int valid = 0;
      for (size_t c = 0; c < chunk.columns.size(); ++c) {
        if (!chunk.columns[c].IsValid(i)) continue;
        ++valid, ++per_column[c];
        // Row group 0 holds exactly the small actions (txn, metaData, protocol, domainMetadata),
        // so readers of protocol/metadata skip the file-action row groups by their null counts.
        const bool file_action = names[c] == "add" || names[c] == "remove";
        EXPECT_EQ(file_action, rg != 0) << names[c] << " in row group " << rg;
      }
      EXPECT_EQ(valid, 1) << "row " << i;
    }
  }
  EXPECT_EQ(per_column, (std::vector<int64_t>{3, info.num_add_files, 3, 1, 1, 1}));
}

TEST(CheckpointWriterTest, ExistingCheckpointIsKept) {
  TestTable t;
  BuildRichTable(t);
  auto snap = t.Load();
  ASSERT_TRUE(snap.ok());
  CheckpointInfo first, second;
  ASSERT_TRUE(WriteCheckpoint(*t.store, **snap, WallCheckpoint(), &first).ok());
  auto before = t.store->Get(first.key);
  ASSERT_TRUE(WriteCheckpoint(*t.store, **snap, WallCheckpoint(), &second).ok());
  EXPECT_TRUE(second.already_existed);
  EXPECT_EQ(second.size_in_bytes, first.size_in_bytes);
  EXPECT_EQ(*t.store->Get(first.key), *before);
}

TEST(CheckpointWriterTest, LastCheckpointNeverMovesBack) {
  TestTable t;
  BuildRichTable(t);
  auto v10 = t.Load(), v5 = t.Load(5);
  ASSERT_TRUE(v10.ok() && v5.ok());
  ASSERT_TRUE(WriteCheckpoint(*t.store, **v10, WallCheckpoint()).ok());
  CheckpointInfo info;
  ASSERT_TRUE(WriteCheckpoint(*t.store, **v5, WallCheckpoint(), &info).ok());
  EXPECT_FALSE(info.last_checkpoint_updated);
  EXPECT_EQ(ReadLastCheckpointHint(*t.store), 10);
  EXPECT_TRUE(t.store->Head(CheckpointKey(5)).ok());
  // Time travel to 7 uses the checkpoint at 5.
  auto v7 = t.Load(7);
  ASSERT_TRUE(v7.ok()) << v7.status().ToString();
  EXPECT_EQ((*v7)->segment().checkpoint_version, 5);
}

TEST(CheckpointWriterTest, StatsAsJsonDisabledDropsTheColumn) {
  TestTable t;
  t.clock->SetMillis(kT0);
  AddFile a = TestAdd("x.parquet", "a", kT0);
  ASSERT_TRUE(
      t.Commit(0, {TestProtocol(false),
                   TestMetadata(StringMap{{"delta.checkpoint.writeStatsAsJson", "false"}}), a})
          .ok());
  auto snap = t.Load();
  ASSERT_TRUE(snap.ok());
  CheckpointInfo info;
  ASSERT_TRUE(WriteCheckpoint(*t.store, **snap, WallCheckpoint(), &info).ok());
  auto pf = parquet::ParquetFile::Open(*t.store->OpenRead(info.key));
  ASSERT_TRUE(pf.ok());
  const Field& add = (*pf)->schema().schema()[1];
  EXPECT_EQ(FindField(add.type->fields(), "stats"), -1);
  auto again = t.Load();
  ASSERT_TRUE(again.ok());
  ASSERT_EQ((*again)->files().size(), 1u);
  EXPECT_FALSE((*again)->files()[0].stats.has_value());
  EXPECT_EQ((*again)->protocol(), TestProtocol(false));
}

TEST(CheckpointWriterTest, V2CheckpointTablesGetAUuidNamedV2Checkpoint) {
  TestTable t;
  Protocol p = TestProtocol();
  p.reader_features->push_back("v2Checkpoint");
  p.writer_features->push_back("v2Checkpoint");
  int64_t ts = kT0;
  ASSERT_TRUE(
      t.Commit(0, {TestCommitInfo(ts), p, TestMetadata(StringMap{{"delta.checkpointPolicy", "v2"}}),
                   TestAdd("a.parquet", "x", ts), TestAdd("b.parquet", "y", ts)})
          .ok());
  auto json = t.Load();
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  CheckpointOptions options = WallCheckpoint();
  options.part_size = 1;  // ignored: V2 checkpoints are single files
  CheckpointInfo info;
  Status s = WriteCheckpoint(*t.store, **json, options, &info);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_FALSE(t.store->Head(CheckpointKey(0)).ok());
  ASSERT_EQ(info.part_keys.size(), 1u);
  auto f = ParseLogFileName(t.store->Head(info.key).value());
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, LogFileKind::kUuidCheckpoint);
  EXPECT_EQ(info.num_actions, 5);  // checkpointMetadata + protocol + metaData + 2 adds
  // The checkpointMetadata row names the version.
  auto pf = parquet::ParquetFile::Open(t.store->OpenRead(info.key).value()).value();
  int cm = FindField(pf->schema().schema(), "checkpointMetadata");
  ASSERT_GE(cm, 0);
  DataChunk c;
  ASSERT_TRUE(pf->ReadRowGroup(0, {cm}, &c).ok());
  ASSERT_TRUE(c.columns[0].IsValid(0));
  EXPECT_EQ(c.columns[0].child(0).Get<int64_t>(0), 0);
  for (size_t r = 1; r < c.size(); ++r) EXPECT_TRUE(c.columns[0].IsNull(r));
  auto ckpt = t.Load();
  ASSERT_TRUE(ckpt.ok()) << ckpt.status().ToString();
  EXPECT_EQ((*ckpt)->segment().checkpoint_version, 0);
  EXPECT_EQ(SortedFiles(**ckpt), SortedFiles(**json));
  // A second writer keeps the V2 checkpoint that is there.
  CheckpointInfo again;
  ASSERT_TRUE(WriteCheckpoint(*t.store, **ckpt, WallCheckpoint(), &again).ok());
  EXPECT_TRUE(again.already_existed);
  EXPECT_EQ(again.key, info.key);
}

// As Delta's Checkpoints.getV2CheckpointFormatOpt: the v2Checkpoint feature alone (the classic
// policy, e.g. while DROP FEATURE v2Checkpoint runs) gives a classic checkpoint.
TEST(CheckpointWriterTest, V2CheckpointFeatureWithClassicPolicyGetsAClassicCheckpoint) {
  for (const char* policy : {"", "classic"}) {
    TestTable t;
    Protocol p = TestProtocol();
    p.reader_features->push_back("v2Checkpoint");
    p.writer_features->push_back("v2Checkpoint");
    StringMap config;
    if (*policy) config.Set("delta.checkpointPolicy", policy);
    ASSERT_TRUE(t.Commit(0, {p, TestMetadata(config), TestAdd("a.parquet", "x", kT0)}).ok());
    auto snap = t.Load();
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    CheckpointInfo info;
    ASSERT_TRUE(WriteCheckpoint(*t.store, **snap, WallCheckpoint(), &info).ok());
    EXPECT_EQ(info.key, CheckpointKey(0)) << policy;
    EXPECT_EQ(info.num_actions, 3);  // protocol + metaData + add, no checkpointMetadata
    auto again = t.Load();
    ASSERT_TRUE(again.ok());
    EXPECT_EQ((*again)->segment().checkpoint_parts.at(0).kind, LogFileKind::kCheckpoint);
  }
}

TEST(CheckpointWriterTest, RefusesUnknownWriterFeatures) {
  {
    TestTable t;
    Protocol p = TestProtocol();
    p.writer_features->push_back("someFutureFeature");
    ASSERT_TRUE(t.Commit(0, {p, TestMetadata()}).ok());
    auto snap = t.Load();
    ASSERT_TRUE(snap.ok());
    Status s = WriteCheckpoint(*t.store, **snap, WallCheckpoint());
    EXPECT_EQ(s.code(), StatusCode::kUnsupported);
    EXPECT_EQ(s.error_class(), "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE");
    EXPECT_NE(s.message().find("someFutureFeature"), std::string_view::npos);
  }
}

TEST(CheckpointWriterTest, InvalidRetentionPropertyFails) {
  TestTable t;
  ASSERT_TRUE(t.Commit(0, {TestProtocol(), TestMetadata(StringMap{{kDeletedFileRetentionDurationKey,
                                                                   "interval 1 month"}})})
                  .ok());
  auto snap = t.Load();
  ASSERT_TRUE(snap.ok());
  Status s = WriteCheckpoint(*t.store, **snap, WallCheckpoint());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.error_class(), kInvalidTablePropertyClass);
  EXPECT_NE(s.message().find(kDeletedFileRetentionDurationKey), std::string_view::npos);
}

TEST(CheckpointWriterTest, CrashWhileWritingLeavesNoCheckpoint) {
  TestTable t;
  BuildRichTable(t);
  auto faulty = std::make_shared<FaultInjectingObjectStore>(t.store);
  faulty->AddRule(FaultRule::CrashMidWrite(ObjectOp::kOpenWrite, 100));
  auto snap = Snapshot::Load(faulty);
  ASSERT_TRUE(snap.ok());
  Status s = WriteCheckpoint(*faulty, **snap, WallCheckpoint());
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(t.store->Head(CheckpointKey(10)).status().IsNotFound());
  EXPECT_FALSE(t.store->Head("_delta_log/_last_checkpoint").ok());
  auto reload = t.Load();
  ASSERT_TRUE(reload.ok()) << reload.status().ToString();
  EXPECT_EQ((*reload)->segment().checkpoint_version, -1);

  // The _last_checkpoint update failing leaves a valid checkpoint that readers use.
  faulty->ClearRules();
  faulty->AddRule(FaultRule::FailAll(ObjectOp::kPut));
  s = WriteCheckpoint(*faulty, **snap, WallCheckpoint());
  EXPECT_FALSE(s.ok());
  reload = t.Load();
  ASSERT_TRUE(reload.ok());
  EXPECT_EQ((*reload)->segment().checkpoint_version, 10);

  faulty->ClearRules();
  CheckpointInfo info;
  ASSERT_TRUE(WriteCheckpoint(*faulty, **snap, WallCheckpoint(), &info).ok());
  EXPECT_TRUE(info.already_existed);
  EXPECT_EQ(ReadLastCheckpointHint(*t.store), 10);
}

TEST(CheckpointWriterTest, ShouldCheckpointFollowsInterval) {
  TestTable t;
  ASSERT_TRUE(t.Commit(0, {TestProtocol(), TestMetadata()}).ok());
  auto def = t.Load();
  ASSERT_TRUE(def.ok());
  EXPECT_FALSE(ShouldCheckpoint(0, **def));
  EXPECT_FALSE(ShouldCheckpoint(5, **def));
  EXPECT_TRUE(ShouldCheckpoint(10, **def));
  EXPECT_FALSE(ShouldCheckpoint(11, **def));
  EXPECT_TRUE(ShouldCheckpoint(20, **def));
  ASSERT_TRUE(t.Commit(1, {TestMetadata(StringMap{{kCheckpointIntervalKey, "3"}})}).ok());
  auto three = t.Load();
  ASSERT_TRUE(three.ok());
  EXPECT_TRUE(ShouldCheckpoint(3, **three));
  EXPECT_TRUE(ShouldCheckpoint(6, **three));
  EXPECT_FALSE(ShouldCheckpoint(10, **three));
  ASSERT_TRUE(t.Commit(2, {TestMetadata(StringMap{{kCheckpointIntervalKey, "zero"}})}).ok());
  auto bad = t.Load();
  ASSERT_TRUE(bad.ok());
  EXPECT_TRUE(ShouldCheckpoint(10, **bad));  // invalid value: the default
}

// --- against a table written by Delta-Spark

std::string GoldenTable() {
  std::string dir = testing::ConformanceDir();
  if (dir.empty()) return "";
  std::string p = dir + "/golden/basic-with-inserts-deletes-checkpoint/delta";
  return std::filesystem::is_directory(p) ? p : "";
}

class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("silt_ckpt_" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// Spark's field must exist in ours with the same type and nullability, in the same relative
// order. Known differences: Delta 3.0 (which wrote the golden table) had maxRowIndex in the DV
// struct, dropped since; clusteringProvider is newer than that table.
void ExpectSparkCompatible(const Field& spark, const Field& ours, const std::string& path) {
  EXPECT_EQ(spark.nullable, ours.nullable) << path;
  ASSERT_EQ(spark.type->id(), ours.type->id())
      << path << ": " << spark.type->ToString() << " vs " << ours.type->ToString();
  if (!spark.type->is_nested()) {
    EXPECT_TRUE(spark.type->Equals(*ours.type, true)) << path;
    return;
  }
  const auto& sf = spark.type->fields();
  const auto& of = ours.type->fields();
  int last = -1;
  for (const Field& f : sf) {
    if (f.name == "maxRowIndex") continue;
    int k = -1;
    for (size_t i = 0; i < of.size(); ++i)
      if (of[i].name == f.name) k = static_cast<int>(i);
    ASSERT_GE(k, 0) << path << "." << f.name << " missing";
    EXPECT_GT(k, last) << path << "." << f.name << " out of order";
    last = k;
    ExpectSparkCompatible(f, of[static_cast<size_t>(k)], path + "." + f.name);
  }
  for (const Field& f : of) {
    bool in_spark = false;
    for (const Field& s : sf) in_spark |= s.name == f.name;
    if (!in_spark) {
      EXPECT_EQ(f.name, "clusteringProvider") << path;
    }
  }
}

TEST(CheckpointWriterTest, SparkTableCheckpointMatchesSpark) {
  std::string golden = GoldenTable();
  if (golden.empty()) GTEST_SKIP() << "conformance data not found";
  TempDir tmp;
  std::filesystem::copy(golden, tmp.path(), std::filesystem::copy_options::recursive);
  std::string log = tmp.path() + "/_delta_log/";
  std::string spark_ckpt = log + "00000000000000000010.checkpoint.parquet";
  std::string spark_copy = tmp.path() + "/spark_checkpoint.parquet";
  std::filesystem::rename(spark_ckpt, spark_copy);
  std::filesystem::remove(log + "_last_checkpoint");
  for (const auto& e : std::filesystem::directory_iterator(log))  // Hadoop .crc sidecars
    if (e.path().filename().string().find(".checkpoint.parquet") != std::string::npos)
      std::filesystem::remove(e.path());

  auto ours_store = std::make_shared<LocalObjectStore>(tmp.path());
  auto json10 = Snapshot::Load(ours_store, 10);
  ASSERT_TRUE(json10.ok()) << json10.status().ToString();
  ASSERT_EQ((*json10)->segment().checkpoint_version, -1);
  // "Now" shortly after the table was written, so its tombstones are unexpired, as for Spark.
  ManualClock clock(1691426740498 + kHour);
  CheckpointOptions options = WallCheckpoint();
  options.clock = &clock;
  CheckpointInfo info;
  Status s = WriteCheckpoint(*ours_store, **json10, options, &info);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(info.num_actions, 13);  // Spark's _last_checkpoint: "size":13
  EXPECT_EQ(info.num_add_files, 6);

  auto spark_store = OpenObjectStore(golden, WallClock());
  ASSERT_TRUE(spark_store.ok());
  for (int64_t v : {10, 13}) {
    auto spark = Snapshot::Load(*spark_store, v);
    auto ours = Snapshot::Load(ours_store, v);
    ASSERT_TRUE(spark.ok() && ours.ok());
    EXPECT_EQ((*spark)->segment().checkpoint_version, 10);
    EXPECT_EQ((*ours)->segment().checkpoint_version, 10);
    ExpectSameState(**spark, **ours, -1);
  }

  auto spark_pf = parquet::ParquetFile::OpenPath(spark_copy);
  auto ours_pf = parquet::ParquetFile::OpenPath(spark_ckpt);
  ASSERT_TRUE(spark_pf.ok() && ours_pf.ok());
  const Schema& spark_schema = (*spark_pf)->schema().schema();
  const Schema& ours_schema = (*ours_pf)->schema().schema();
  ASSERT_EQ(spark_schema.size(), ours_schema.size());
  for (size_t i = 0; i < spark_schema.size(); ++i) {
    EXPECT_EQ(spark_schema[i].name, ours_schema[i].name);
    ExpectSparkCompatible(spark_schema[i], ours_schema[i], spark_schema[i].name);
  }
  EXPECT_EQ((*ours_pf)->num_rows(), (*spark_pf)->num_rows());
}

}  // namespace
}  // namespace silt::delta

namespace silt::delta {
namespace {

using namespace silt::delta::testing;  // NOLINT

// Paths of the add/remove rows of one checkpoint file, sorted.
std::vector<std::string> FilePathsIn(ObjectStore& store, const std::string& key, int64_t* rows) {
  auto pf = parquet::ParquetFile::Open(store.OpenRead(key).value()).value();
  std::vector<std::string> out;
  *rows = pf->num_rows();
  const Schema& schema = pf->schema().schema();
  for (int rg = 0; rg < pf->num_row_groups(); ++rg) {
    DataChunk c;
    EXPECT_TRUE(pf->ReadRowGroup(rg, {}, &c).ok());
    for (const char* col : {"add", "remove"}) {
      const Vector& v = c.columns[static_cast<size_t>(FindField(schema, col))];
      for (size_t r = 0; r < c.size(); ++r)
        if (v.IsValid(r))
          out.push_back(std::string(col) + ":" + std::string(v.child(0).GetString(r)));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(CheckpointWriterTest, MultiPartCheckpointRoundTripsAndIsDeterministic) {
  TestTable t;
  BuildRichTable(t);
  auto json = t.Load().value();
  ManualClock clock(kT0 + 11 * kHour);
  CheckpointOptions options = WallCheckpoint();
  options.clock = &clock;
  options.part_size = 3;
  CheckpointInfo info;
  ASSERT_TRUE(WriteCheckpoint(*t.store, *json, options, &info).ok());
  const int64_t parts = (info.num_actions + 2) / 3;
  ASSERT_GT(parts, 1);
  ASSERT_EQ(info.part_keys.size(), static_cast<size_t>(parts));
  EXPECT_EQ(info.key, MultiPartCheckpointKey(10, 1, parts));
  EXPECT_EQ(info.part_keys.back(), MultiPartCheckpointKey(10, parts, parts));
  EXPECT_FALSE(t.store->Head(CheckpointKey(10)).ok());
  auto last = t.store->Get("_delta_log/_last_checkpoint").value();
  EXPECT_NE(last.find(",\"parts\":" + std::to_string(parts) + "}"), std::string::npos) << last;
  int64_t rows = 0, total = 0;
  for (const auto& k : info.part_keys) {
    FilePathsIn(*t.store, k, &rows);
    total += rows;
  }
  EXPECT_EQ(total, info.num_actions);

  auto ckpt = t.Load();
  ASSERT_TRUE(ckpt.ok()) << ckpt.status().ToString();
  EXPECT_EQ((*ckpt)->segment().checkpoint_version, 10);
  EXPECT_EQ((*ckpt)->segment().checkpoint_parts.size(), static_cast<size_t>(parts));
  ExpectSameState(*json, **ckpt, clock.NowMillis() - kDefaultDeletedFileRetentionMillis);

  // A writer whose snapshot came from a (classic) checkpoint lists files in another order but
  // puts every action in the same part.
  TestTable u;
  BuildRichTable(u);
  CheckpointOptions classic = WallCheckpoint();
  classic.clock = &clock;
  ASSERT_TRUE(WriteCheckpoint(*u.store, *u.Load().value(), classic).ok());
  auto from_ckpt = u.Load().value();
  ASSERT_EQ(from_ckpt->segment().checkpoint_version, 10);
  CheckpointInfo info2;
  ASSERT_TRUE(WriteCheckpoint(*u.store, *from_ckpt, options, &info2).ok());
  ASSERT_EQ(info2.part_keys, info.part_keys);
  for (size_t i = 0; i < info.part_keys.size(); ++i) {
    int64_t r1 = 0, r2 = 0;
    EXPECT_EQ(FilePathsIn(*t.store, info.part_keys[i], &r1),
              FilePathsIn(*u.store, info2.part_keys[i], &r2))
        << i;
    EXPECT_EQ(r1, r2);
  }
  // Rewriting keeps the parts that are there.
  CheckpointInfo again;
  ASSERT_TRUE(WriteCheckpoint(*t.store, *json, options, &again).ok());
  EXPECT_TRUE(again.already_existed);
}

}  // namespace
}  // namespace silt::delta
