// The Delta streaming source and sink (ops/delta_source.h, ops/stream_query.h): spec part C's
// scenarios S-1..S-12, exactly-once restarts and a streaming table kept in sync with a source.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "delta/checkpoint_writer.h"
#include "delta/history.h"
#include "delta/schema_json.h"
#include "delta/snapshot.h"
#include "delta/transaction.h"
#include "dml_test_util.h"
#include "io/memory_object_store.h"
#include "ops/delta_source.h"
#include "ops/dml.h"
#include "ops/optimize.h"
#include "ops/stream_query.h"
#include "ops/vacuum.h"

namespace silt::ops {
namespace {

using testing::DmlTable;
using testing::kT0;
using testing::MatchInt;
using testing::PartitionIs;
using testing::Row;

std::vector<Row> Ids(int64_t from, int64_t to, std::string p = "a") {
  std::vector<Row> rows;
  for (int64_t i = from; i < to; ++i) rows.push_back(Row{i, "v" + std::to_string(i), p});
  return rows;
}

DeltaSourceOptions Opts(std::vector<std::pair<std::string, std::string>> kv) {
  auto o = ParseDeltaSourceOptions(kv);
  EXPECT_TRUE(o.ok()) << o.status().ToString();
  return o.ok() ? *o : DeltaSourceOptions{};
}

// A stream over `src` with its own sink and checkpoint (in memory).
class Stream {
 public:
  Stream(DmlTable& src, DeltaSourceOptions options)
      : src_(src),
        sink_(std::make_shared<InMemoryObjectStore>(src.clock(), "memory://sink")),
        checkpoint_(std::make_shared<InMemoryObjectStore>(src.clock(), "memory://cp")) {
    q_.source = src.store();
    q_.source_options = std::move(options);
    q_.sink.table = sink_;
    q_.checkpoint = checkpoint_;
    q_.clock = src.clock();
  }
  StreamQueryOptions& query() { return q_; }
  Result<StreamQueryResult> Run() { return RunStream(q_); }
  StreamQueryResult RunOk() {
    auto r = Run();
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : StreamQueryResult{};
  }
  // The sink's ids, sorted (duplicates kept).
  std::vector<int64_t> SinkIds() {
    std::vector<int64_t> out;
    for (const auto& s : testing::ReadRows(sink_))
      out.push_back(std::stoll(s.substr(0, s.find('|'))));
    std::sort(out.begin(), out.end());
    return out;
  }
  std::string OffsetFile(int64_t n) {
    auto t = checkpoint_->Get("offsets/" + std::to_string(n));
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() ? *t : "";
  }
  DeltaSourceOffset Offset(int64_t n) {
    auto cp = StreamCheckpoint::Open(checkpoint_);
    EXPECT_TRUE(cp.ok());
    auto o = cp->ReadOffset(n);
    EXPECT_TRUE(o.ok()) << o.status().ToString();
    return o.ok() ? *o : DeltaSourceOffset{};
  }
  std::shared_ptr<ObjectStore> sink() { return sink_; }
  std::shared_ptr<ObjectStore> checkpoint() { return checkpoint_; }

 private:
  DmlTable& src_;
  std::shared_ptr<ObjectStore> sink_;
  std::shared_ptr<ObjectStore> checkpoint_;
  StreamQueryOptions q_;
};

std::vector<int64_t> Range(int64_t from, int64_t to) {
  std::vector<int64_t> v;
  for (int64_t i = from; i < to; ++i) v.push_back(i);
  return v;
}

void DeleteWhere(DmlTable& t, std::function<bool(int64_t)> pred) {
  DeleteSpec spec;
  spec.predicate_sql = "id matches";
  spec.matcher = MatchInt(0, pred);
  spec.options = t.Options();
  auto r = DeleteRows(t.store(), t.Latest(), spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

// ---- C.1 options -------------------------------------------------------------------------

TEST(DeltaSourceOptionsTest, ValidationErrorsCarryDeltaClasses) {
  auto bad = [](std::string k, std::string v) {
    auto o = ParseDeltaSourceOptions({{k, v}});
    EXPECT_FALSE(o.ok()) << k << "=" << v;
    return o.ok()
               ? std::string()
               : std::string(o.status().error_class()) + ": " + std::string(o.status().message());
  };
  EXPECT_EQ(bad("startingVersion", "-1").rfind("DELTA_ILLEGAL_OPTION", 0), 0u);
  EXPECT_NE(bad("startingVersion", "-1").find("must be greater than or equal to zero"),
            std::string::npos);
  EXPECT_NE(bad("maxFilesPerTrigger", "0").find("must be a positive integer"), std::string::npos);
  EXPECT_NE(bad("maxFilesPerTrigger", "-3").find("must be a positive integer"), std::string::npos);
  EXPECT_NE(bad("maxBytesPerTrigger", "ten").find("must be a size configuration such as '10g'"),
            std::string::npos);
  EXPECT_EQ(bad("ignoreDeletes", "yes").rfind("DELTA_ILLEGAL_OPTION", 0), 0u);
  EXPECT_EQ(bad("excludeRegex", "([a-").rfind("DELTA_ILLEGAL_OPTION", 0), 0u);

  EXPECT_EQ(bad("schemaTrackingLocation", "/cp/schema").rfind("NOT_IMPLEMENTED", 0), 0u);
  EXPECT_EQ(bad("withEventTimeOrder", "true").rfind("NOT_IMPLEMENTED", 0), 0u);

  auto o = ParseDeltaSourceOptions({});
  ASSERT_TRUE(o.ok());
  EXPECT_FALSE(o->max_files_per_trigger.has_value());  // 1000 applies unless only bytes are set
  EXPECT_TRUE(o->fail_on_data_loss);
  EXPECT_FALSE(o->skip_change_commits);
  auto ok = ParseDeltaSourceOptions(
      {{"MAXBYTESPERTRIGGER", "10g"}, {"startingVersion", "latest"}, {"readChangeData", "true"}});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(*ok->max_bytes_per_trigger, 10LL << 30);
  EXPECT_TRUE(ok->starting_version_latest);
  EXPECT_TRUE(ok->read_change_feed);
  EXPECT_EQ(ParseSparkByteSize("512k"), 512 * 1024);
  EXPECT_EQ(ParseSparkByteSize("1024"), 1024);
  EXPECT_FALSE(ParseSparkByteSize("1x").has_value());
}

// S-4
TEST(DeltaSourceOptionsTest, S4BothStartingVersionAndTimestamp) {
  auto o = ParseDeltaSourceOptions({{"startingVersion", "1"}, {"startingTimestamp", "2024-01-01"}});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().error_class(), "DELTA_STARTING_VERSION_AND_TIMESTAMP_BOTH_SET");
  EXPECT_NE(o.status().message().find("'startingVersion' or 'startingTimestamp'"),
            std::string::npos);
}

// ---- C.3 offsets ------------------------------------------------------------------------

// S-12
TEST(DeltaSourceOffsetTest, S12BaseIndexAndSourceVersions) {
  auto o = ParseDeltaSourceOffset(
      R"({"sourceVersion":1,"reservoirId":"abc","reservoirVersion":12,"index":-1,"isStartingVersion":false})");
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->index, DeltaSourceOffset::kBaseIndex);
  EXPECT_EQ(o->reservoir_version, 12);
  EXPECT_EQ(
      SerializeDeltaSourceOffset(*o),
      R"({"sourceVersion":1,"reservoirId":"abc","reservoirVersion":12,"index":-1,"isStartingVersion":false})");
  auto v2 = ParseDeltaSourceOffset(
      R"({"sourceVersion":2,"reservoirId":"abc","reservoirVersion":1,"index":0,"isStartingVersion":true})");
  ASSERT_FALSE(v2.ok());
  EXPECT_EQ(v2.status().error_class(), "DELTA_INVALID_SOURCE_VERSION");
  auto v4 = ParseDeltaSourceOffset(
      R"({"sourceVersion":4,"reservoirId":"abc","reservoirVersion":1,"index":0,"isStartingVersion":true})");
  ASSERT_FALSE(v4.ok());
  EXPECT_EQ(v4.status().error_class(), "DELTA_INVALID_FORMAT_FROM_SOURCE_VERSION");
  auto v0 = ParseDeltaSourceOffset(
      R"({"sourceVersion":0,"reservoirId":"abc","reservoirVersion":1,"index":0,"isStartingVersion":true})");
  EXPECT_EQ(v0.status().error_class(), "DELTA_INVALID_SOURCE_VERSION");
  EXPECT_EQ(ParseDeltaSourceOffset("[1]").status().error_class(),
            "DELTA_INVALID_SOURCE_OFFSET_FORMAT");
  DeltaSourceOffset meta{"abc", 3, DeltaSourceOffset::kMetadataChangeIndex, false};
  EXPECT_NE(SerializeDeltaSourceOffset(meta).find("\"sourceVersion\":3"), std::string::npos);
  auto back = ParseDeltaSourceOffset(SerializeDeltaSourceOffset(meta));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, meta);
}

// ---- S-1..S-3, S-5: where a stream starts ---------------------------------------------------

// S-1
TEST(DeltaStreamTest, S1SnapshotFirstWithIsStartingVersionUntilDrained) {
  DmlTable t;
  t.Create(Ids(0, 3), false, false);  // v0: one file
  t.Append(Ids(3, 6));                // v1
  t.Append(Ids(6, 9));                // v2
  Stream s(t, Opts({{"maxFilesPerTrigger", "1"}}));
  auto r = s.RunOk();
  EXPECT_EQ(r.batches, 3);  // the snapshot at v2 has 3 files, one per batch
  EXPECT_EQ(s.SinkIds(), Range(0, 9));
  EXPECT_TRUE(s.Offset(0).is_initial_snapshot);
  EXPECT_EQ(s.Offset(0).reservoir_version, 2);
  EXPECT_EQ(s.Offset(0).index, 0);
  EXPECT_TRUE(s.Offset(1).is_initial_snapshot);
  EXPECT_FALSE(s.Offset(2).is_initial_snapshot);  // drained: next version's base
  EXPECT_EQ(s.Offset(2).reservoir_version, 3);
  EXPECT_EQ(s.Offset(2).index, DeltaSourceOffset::kBaseIndex);
  EXPECT_NE(s.OffsetFile(0).find("\"isStartingVersion\":true"), std::string::npos);
  EXPECT_EQ(s.OffsetFile(0).rfind("v1\n{\"batchWatermarkMs\":0,", 0), 0u);
  // New commits after the snapshot stream as commits.
  t.Append(Ids(9, 12));
  s.RunOk();
  EXPECT_EQ(s.SinkIds(), Range(0, 12));
}

// S-2
TEST(DeltaStreamTest, S2StartingVersionReadsFromThereWithoutSnapshot) {
  DmlTable t;
  t.Create(Ids(0, 1), false, false);
  for (int64_t v = 1; v <= 9; ++v) t.Append(Ids(v * 10, v * 10 + 2));
  ASSERT_EQ(t.Latest()->version(), 9);
  Stream s(t, Opts({{"startingVersion", "5"}}));
  s.RunOk();
  std::vector<int64_t> want;
  for (int64_t v = 5; v <= 9; ++v) {
    want.push_back(v * 10);
    want.push_back(v * 10 + 1);
  }
  EXPECT_EQ(s.SinkIds(), want);
  EXPECT_NE(s.OffsetFile(0).find("\"isStartingVersion\":false"), std::string::npos);
  // A version that is not in the log.
  Stream gone(t, Opts({{"startingVersion", "42"}}));
  auto r = gone.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), "DELTA_VERSION_NOT_FOUND");
}

// S-3
TEST(DeltaStreamTest, S3StartingVersionLatestOnlyNewCommits) {
  DmlTable t;
  t.Create(Ids(0, 5), false, false);
  t.Append(Ids(5, 10));
  Stream s(t, Opts({{"startingVersion", "latest"}}));
  auto r = s.RunOk();
  EXPECT_EQ(r.rows, 0);
  t.Append(Ids(100, 103));
  s.RunOk();
  EXPECT_EQ(s.SinkIds(), Range(100, 103));
}

// S-5
TEST(DeltaStreamTest, S5StartingTimestampResolvesToVersion) {
  DmlTable t;
  std::vector<int64_t> ts;
  t.Create(Ids(0, 1), false, false);
  for (int64_t v = 1; v <= 5; ++v) {
    t.clock()->AdvanceMillis(10'000);
    t.Append(Ids(v * 10, v * 10 + 1));
  }
  auto commits = delta::ListCommits(*t.store(), 0);
  ASSERT_TRUE(commits.ok());
  for (const auto& c : *commits) ts.push_back(c.timestamp_ms);
  auto start_of = [&](int64_t ms) -> Result<std::vector<int64_t>> {
    Stream s(t, Opts({{"startingTimestamp", delta::FormatJavaTimestamp(ms)}}));
    auto r = s.Run();
    if (!r.ok()) return r.status();
    return s.SinkIds();
  };
  auto between = start_of(ts[3] + 5'000);  // between commits 3 and 4 → from 4
  ASSERT_TRUE(between.ok()) << between.status().ToString();
  EXPECT_EQ(*between, (std::vector<int64_t>{40, 50}));
  auto equal = start_of(ts[3]);  // equal to t3 → from 3
  ASSERT_TRUE(equal.ok());
  EXPECT_EQ(*equal, (std::vector<int64_t>{30, 40, 50}));
  auto after = start_of(ts[5] + 1'000);
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.status().error_class(), "DELTA_TIMESTAMP_GREATER_THAN_COMMIT");
  // With the out-of-range flag the stream waits for new data instead.
  Stream s(t,
           Opts({{"startingTimestamp", delta::FormatJavaTimestamp(ts[5] + 1'000)},
                 {"spark.databricks.delta.changeDataFeed.timestampOutOfRange.enabled", "true"}}));
  EXPECT_EQ(s.RunOk().rows, 0);
  t.Append(Ids(60, 61));
  s.RunOk();
  EXPECT_EQ(s.SinkIds(), (std::vector<int64_t>{60}));
}

// ---- C.2 commit classification ------------------------------------------------------------

// S-6
TEST(DeltaStreamTest, S6DeletionVectorDeleteFailsWithoutOptions) {
  DmlTable t;
  t.Create(Ids(0, 10), false, /*dvs=*/true);
  Stream s(t, Opts({}));
  s.RunOk();
  DeleteWhere(t, [](int64_t id) { return id < 3; });  // v1: remove + add with DV
  auto r = s.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), "DELTA_SOURCE_TABLE_IGNORE_CHANGES");
  EXPECT_NE(r.status().message().find("at version 1"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("DELETE ("), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("skipChangeCommits"), std::string::npos);
}

// S-7
TEST(DeltaStreamTest, S7WholeFileDeleteNeedsIgnoreDeletes) {
  DmlTable t;
  t.Create(Ids(0, 5, "a"), /*partitioned=*/true, false);
  t.Append(Ids(5, 10, "b"));
  Stream plain(t, Opts({}));
  Stream tolerant(t, Opts({{"ignoreDeletes", "true"}}));
  plain.RunOk();
  tolerant.RunOk();
  DeleteSpec spec;
  spec.predicate_sql = "p = 'a'";
  spec.file_filter = PartitionIs("a");
  spec.options = t.Options();
  ASSERT_TRUE(DeleteRows(t.store(), t.Latest(), spec).ok());  // v2: removes only
  t.Append(Ids(10, 12, "b"));                                 // v3
  auto r = plain.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), "DELTA_SOURCE_IGNORE_DELETE");
  EXPECT_NE(r.status().message().find("at version 2"), std::string::npos);
  EXPECT_NE(r.status().message().find("p=a/"), std::string::npos) << r.status().message();
  auto ok = tolerant.Run();
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(tolerant.SinkIds(), Range(0, 12));  // nothing for v2, v3's rows once
}

// S-8
TEST(DeltaStreamTest, S8IgnoreChangesReEmitsRewrittenFiles) {
  DmlTable t;
  t.Create(Ids(0, 4), false, /*dvs=*/false);
  Stream s(t, Opts({{"ignoreChanges", "true"}}));
  s.RunOk();
  UpdateSpec spec;
  spec.predicate_sql = "id = 1";
  spec.matcher = MatchInt(0, [](int64_t id) { return id == 1; });
  spec.updater = [](const DataChunk& rows) -> Result<DataChunk> {
    DataChunk out = rows;
    Vector v(DataType::String());
    for (size_t i = 0; i < rows.size(); ++i) v.AppendString("updated");
    out.columns[1] = std::move(v);
    return out;
  };
  spec.options = t.Options();
  auto u = UpdateRows(t.store(), t.Latest(), spec);
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  s.RunOk();
  // The rewritten file's rows again, the unchanged ones included.
  EXPECT_EQ(s.SinkIds(), (std::vector<int64_t>{0, 0, 1, 1, 2, 2, 3, 3}));
  auto rows = testing::ReadRows(s.sink());
  EXPECT_NE(std::find(rows.begin(), rows.end(), "1|updated"), rows.end());
}

// S-9
TEST(DeltaStreamTest, S9SkipChangeCommitsSkipsTheWholeCommit) {
  DmlTable t;
  t.Create(Ids(0, 4), false, /*dvs=*/true);
  Stream s(t, Opts({{"skipChangeCommits", "true"}}));
  s.RunOk();
  // A MERGE-like commit: deletes a row (DV) and inserts new rows in the same commit.
  DeleteSpec del;
  del.matcher = MatchInt(0, [](int64_t id) { return id == 2; });
  del.options = t.Options();
  auto changes = MatchDeletedRows(t.store(), t.Latest(), del);
  ASSERT_TRUE(changes.ok()) << changes.status().ToString();
  changes->operation = "MERGE";
  changes->metric_names = MetricNames::kMerge;
  changes->new_rows.push_back(testing::MakeRows(Ids(50, 52), false));
  ASSERT_TRUE(ApplyRowChanges(t.store(), t.Latest(), *changes, t.Options()).ok());
  DeleteWhere(t, [](int64_t id) { return id == 0; });  // a DV DELETE
  t.Append(Ids(60, 61));
  s.RunOk();
  EXPECT_EQ(s.SinkIds(), (std::vector<int64_t>{0, 1, 2, 3, 60}));  // 50, 51 lost: documented
}

// S-10
TEST(DeltaStreamTest, S10OptimizeAndPurgeAreInvisible) {
  DmlTable t;
  t.Create(Ids(0, 3), false, /*dvs=*/true);
  t.Append(Ids(3, 6));
  t.Append(Ids(6, 9));
  Stream s(t, Opts({{"skipChangeCommits", "true"}}));
  s.RunOk();
  DeleteWhere(t, [](int64_t id) { return id == 4; });  // skipped
  OptimizeOptions purge;
  purge.mode = OptimizeOptions::Mode::kReorgPurge;
  purge.clock = t.clock();
  ASSERT_TRUE(Optimize(t.store(), purge).ok());
  OptimizeOptions compact;
  compact.clock = t.clock();
  auto opt = Optimize(t.store(), compact);
  ASSERT_TRUE(opt.ok()) << opt.status().ToString();
  // Without any option too: only OPTIMIZE commits after the stream's position.
  Stream fresh(t, Opts({{"startingVersion", std::to_string(t.Latest()->version())}}));
  auto f = fresh.Run();
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->rows, 0);
  auto r = s.RunOk();
  EXPECT_EQ(r.rows, 0);
  EXPECT_EQ(s.SinkIds(), Range(0, 9));
}

// ---- C.4 admission control -----------------------------------------------------------------

std::vector<int64_t> BatchFileCounts(DeltaSource& src, DeltaSourceOffset start,
                                     std::optional<int64_t> limit = std::nullopt) {
  std::vector<int64_t> counts;
  for (int i = 0; i < 100; ++i) {
    auto end = src.NextOffset(start, limit);
    EXPECT_TRUE(end.ok()) << end.status().ToString();
    if (!end.ok() || !*end) break;
    auto files = src.FilesBetween(start, **end);
    EXPECT_TRUE(files.ok());
    counts.push_back(files.ok() ? static_cast<int64_t>(files->size()) : -1);
    start = **end;
  }
  return counts;
}

// S-11
TEST(DeltaStreamTest, S11MaxFilesAndMaxBytesPerTrigger) {
  DmlTable t;
  t.Create(Ids(0, 2), false, false);
  for (int i = 1; i < 5; ++i) t.Append(Ids(i * 10, i * 10 + 2));  // 5 files
  auto two = DeltaSource::Open(t.store(), Opts({{"maxFilesPerTrigger", "2"}}), t.clock());
  ASSERT_TRUE(two.ok());
  auto start = (*two)->InitialOffset();
  ASSERT_TRUE(start.ok());
  EXPECT_EQ(BatchFileCounts(**two, *start), (std::vector<int64_t>{2, 2, 1}));
  auto tiny = DeltaSource::Open(t.store(), Opts({{"maxBytesPerTrigger", "1b"}}), t.clock());
  ASSERT_TRUE(tiny.ok());
  EXPECT_EQ(BatchFileCounts(**tiny, *(*tiny)->InitialOffset()),
            (std::vector<int64_t>{1, 1, 1, 1, 1}));
  // Commits are admitted whole: a 3-file commit in a 2-file budget still goes, alone.
  t.Append(Ids(100, 101));
  auto snap = t.Latest();
  DataChunk big = testing::MakeRows(Ids(200, 203), false);
  delta::DataWriteOptions w;
  w.clock = t.clock();
  w.max_rows_per_file = 1;
  auto r = delta::AppendRows(t.store(), {big}, w, t.TxnOptions());
  ASSERT_TRUE(r.ok());
  t.Append(Ids(300, 301));
  DeltaSourceOffset after{(*two)->table_id(), snap->version(), DeltaSourceOffset::kBaseIndex,
                          false};
  EXPECT_EQ(BatchFileCounts(**two, after), (std::vector<int64_t>{1, 3, 1}));
  // AvailableNow: nothing past the version fixed at start.
  EXPECT_EQ(BatchFileCounts(**two, after, snap->version() + 1), (std::vector<int64_t>{1, 3}));
}

// ---- deletion vectors, CDF, table identity -------------------------------------------------

TEST(DeltaStreamTest, SnapshotHonoursDeletionVectors) {
  DmlTable t;
  t.Create(Ids(0, 6), false, /*dvs=*/true);
  DeleteWhere(t, [](int64_t id) { return id % 2 == 0; });
  Stream s(t, Opts({}));
  s.RunOk();
  EXPECT_EQ(s.SinkIds(), (std::vector<int64_t>{1, 3, 5}));
  // With ignoreChanges a later DV DELETE re-emits the file's remaining rows, never deleted ones.
  Stream ic(t, Opts({{"ignoreChanges", "true"}}));
  ic.RunOk();
  DeleteWhere(t, [](int64_t id) { return id == 3; });
  ic.RunOk();
  EXPECT_EQ(ic.SinkIds(), (std::vector<int64_t>{1, 1, 3, 5, 5}));
}

TEST(DeltaStreamTest, ReadChangeFeedStreamsDeletesAsRows) {
  DmlTable t;
  t.Create(Ids(0, 4), false, /*dvs=*/true, {{"delta.enableChangeDataFeed", "true"}});
  Stream s(t, Opts({{"readChangeFeed", "true"}}));
  s.RunOk();
  DeleteWhere(t, [](int64_t id) { return id == 1; });
  t.Append(Ids(10, 11));
  s.RunOk();
  auto rows = testing::ReadRows(s.sink());
  std::map<std::string, int> by_type;
  for (const auto& r : rows) {
    // id|v|_change_type|_commit_version|_commit_timestamp
    size_t a = r.find('|'), b = r.find('|', a + 1), c = r.find('|', b + 1);
    by_type[r.substr(b + 1, c - b - 1)]++;
  }
  EXPECT_EQ(by_type["insert"], 5);
  EXPECT_EQ(by_type["delete"], 1);
  EXPECT_EQ(rows.size(), 6u);
}

TEST(DeltaStreamTest, CheckpointOfAnotherTableIsRejected) {
  DmlTable a, b;
  a.Create(Ids(0, 2), false, false);
  b.Create(Ids(0, 2), false, false);
  Stream s(a, Opts({}));
  s.RunOk();
  s.query().source = b.store();
  auto r = s.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), "DIFFERENT_DELTA_TABLE_READ_BY_STREAMING_SOURCE");
}

TEST(DeltaStreamTest, MissingCommitFailsOnDataLossUnlessDisabled) {
  DmlTable t;
  t.Create(Ids(0, 2), false, false);
  Stream s(t, Opts({}));
  Stream lenient(t, Opts({{"failOnDataLoss", "false"}}));
  s.RunOk();
  lenient.RunOk();
  t.Append(Ids(2, 4));  // v1
  t.Append(Ids(4, 6));  // v2
  delta::CheckpointOptions co;
  co.clock = t.clock().get();
  ASSERT_TRUE(delta::WriteCheckpoint(*t.store(), *t.Latest(), co).ok());
  ASSERT_TRUE(t.store()->Delete(delta::CommitKey(1)).ok());
  auto r = s.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), "DELTA_LOG_FILE_NOT_FOUND_FOR_STREAMING_SOURCE");
  ASSERT_TRUE(lenient.Run().ok());
  EXPECT_EQ(lenient.SinkIds(), (std::vector<int64_t>{0, 1, 4, 5}));
}

TEST(DeltaStreamTest, AutoTtlSourceWarnsWithoutSkipChangeCommits) {
  DmlTable t;
  t.Create(Ids(0, 2), false, true,
           {{"autottl.expireInDays", "30"}, {"autottl.timestampColumn", "v"}});
  std::vector<std::string> warnings;
  Stream plain(t, Opts({}));
  plain.query().warn = [&](const std::string& w) { warnings.push_back(w); };
  plain.RunOk();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("skipChangeCommits"), std::string::npos);
  Stream skipping(t, Opts({{"skipChangeCommits", "true"}}));
  skipping.query().warn = [&](const std::string& w) { warnings.push_back(w); };
  skipping.RunOk();
  EXPECT_EQ(warnings.size(), 1u);
}

TEST(DeltaStreamTest, ProcessingTimeTriggerRunsUntilTold) {
  DmlTable t;
  t.Create(Ids(0, 2), false, false);
  Stream s(t, Opts({}));
  s.query().trigger = Trigger::kProcessingTime;
  int triggers = 0;
  s.query().wait_for_trigger = [&]() {
    ++triggers;
    if (triggers == 1) t.Append(Ids(2, 4));  // arrives between triggers
    return triggers < 3;
  };
  auto r = s.RunOk();
  EXPECT_EQ(triggers, 3);
  EXPECT_EQ(r.batches, 2);  // the third trigger found nothing new
  EXPECT_EQ(s.SinkIds(), Range(0, 4));
}

// ---- schema changes of the source (Delta's checkReadIncompatibleSchemaChanges) -------------

// Commits a metaData action with the table's schema changed by `change`.
void CommitSchema(DmlTable& t, const std::function<void(Schema*)>& change) {
  auto snap = t.Latest();
  delta::Metadata m = snap->metadata();
  Schema schema = snap->schema();
  change(&schema);
  m.schema_string = delta::SerializeSchema(schema);
  delta::Transaction txn(t.store(), snap, t.TxnOptions());
  txn.UpdateMetadata(std::move(m));
  txn.SetOperation("CHANGE COLUMN");
  auto r = txn.Commit();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

TEST(DeltaStreamTest, AddedColumnStopsARunningStreamUntilRestart) {
  DmlTable t;
  t.Create(Ids(0, 2), false, false);
  auto running = DeltaSource::Open(t.store(), Opts({}), t.clock());
  ASSERT_TRUE(running.ok()) << running.status().ToString();
  auto from_v0 = DeltaSource::Open(t.store(), Opts({{"startingVersion", "0"}}), t.clock());
  ASSERT_TRUE(from_v0.ok());
  auto start = (*running)->InitialOffset();
  ASSERT_TRUE(start.ok());
  auto start_v0 = (*from_v0)->InitialOffset();
  ASSERT_TRUE(start_v0.ok());
  CommitSchema(t, [](Schema* s) { s->push_back(Field{"w", DataType::Int64(), true, "{}"}); });
  // Opened before the change: the data schema has a column the stream does not read.
  auto next = (*running)->NextOffset(*start, std::nullopt);
  ASSERT_FALSE(next.ok());
  EXPECT_EQ(next.status().error_class(), "DELTA_SCHEMA_CHANGED_WITH_VERSION");
  EXPECT_NE(next.status().message().find("Detected schema change in version 1"), std::string::npos)
      << next.status().ToString();
  auto next_v0 = (*from_v0)->NextOffset(*start_v0, std::nullopt);
  ASSERT_FALSE(next_v0.ok());
  EXPECT_EQ(next_v0.status().error_class(), "DELTA_SCHEMA_CHANGED_WITH_STARTING_OPTIONS");
  // Restarted: the stream reads with the new schema; the old schema is a subset of it.
  auto restarted = DeltaSource::Open(t.store(), Opts({{"startingVersion", "0"}}), t.clock());
  ASSERT_TRUE(restarted.ok());
  auto s0 = (*restarted)->InitialOffset();
  ASSERT_TRUE(s0.ok());
  auto n = (*restarted)->NextOffset(*s0, std::nullopt);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  auto batch = (*restarted)->GetBatch(*s0, **n);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(batch->num_rows, 2);
  ASSERT_FALSE(batch->schema.empty());
  EXPECT_EQ(batch->schema.back().name, "w");
}

TEST(DeltaStreamTest, TypeChangeIsReadIncompatible) {
  DmlTable t;
  t.Create(Ids(0, 2), false, false);
  auto source = DeltaSource::Open(t.store(), Opts({}), t.clock());
  ASSERT_TRUE(source.ok());
  auto start = (*source)->InitialOffset();
  ASSERT_TRUE(start.ok());
  CommitSchema(t, [](Schema* s) { (*s)[0].type = DataType::String(); });
  auto next = (*source)->NextOffset(*start, std::nullopt);
  ASSERT_FALSE(next.ok());
  EXPECT_EQ(next.status().error_class(), "DELTA_SCHEMA_CHANGED_WITH_VERSION");
}

TEST(DeltaStreamTest, RenameOrDropOnColumnMappingNeedsASchemaLog) {
  for (bool drop : {false, true}) {
    DmlTable t;
    t.Create(Ids(0, 2), false, false, {{"delta.columnMapping.mode", "name"}});
    auto source = DeltaSource::Open(t.store(), Opts({}), t.clock());
    ASSERT_TRUE(source.ok());
    auto start = (*source)->InitialOffset();
    ASSERT_TRUE(start.ok());
    CommitSchema(t, [drop](Schema* s) {
      if (drop) {
        s->erase(s->begin() + 1);
      } else {
        (*s)[1].name = "v_renamed";
      }
    });
    auto next = (*source)->NextOffset(*start, std::nullopt);
    ASSERT_FALSE(next.ok()) << drop;
    EXPECT_EQ(next.status().error_class(),
              "DELTA_STREAMING_INCOMPATIBLE_SCHEMA_CHANGE_USE_SCHEMA_LOG");
    EXPECT_NE(next.status().message().find(drop ? "column v dropped" : "renamed to v_renamed"),
              std::string::npos)
        << next.status().ToString();
    // A stream restarted before the change (startingVersion 0) is checked at its start too.
    Stream s(t, Opts({{"startingVersion", "0"}}));
    auto r = s.Run();
    ASSERT_FALSE(r.ok()) << drop;
    EXPECT_EQ(r.status().error_class(),
              "DELTA_STREAMING_INCOMPATIBLE_SCHEMA_CHANGE_USE_SCHEMA_LOG");
  }
}

// ---- the sink: exactly once ----------------------------------------------------------------

TEST(DeltaSinkTest, TxnActionRecordsTheBatchInTheSameCommit) {
  DmlTable t;
  t.Create(Ids(0, 3), false, false);
  Stream s(t, Opts({}));
  auto r = s.RunOk();
  auto snap = delta::Snapshot::Load(s.sink());
  ASSERT_TRUE(snap.ok());
  ASSERT_EQ((*snap)->transactions().size(), 1u);
  const auto& txn = (*snap)->transactions().begin()->second;
  EXPECT_EQ(txn.app_id, r.query_id);
  EXPECT_EQ(txn.version, 0);
  auto commit = s.sink()->Get(delta::CommitKey((*snap)->version()));
  ASSERT_TRUE(commit.ok());
  EXPECT_NE(commit->find("\"operation\":\"STREAMING UPDATE\""), std::string::npos);
  EXPECT_NE(commit->find("\"txn\":{\"appId\":\"" + r.query_id + "\",\"version\":0"),
            std::string::npos)
      << *commit;
  EXPECT_TRUE(s.checkpoint()->Get("commits/0").ok());
  EXPECT_TRUE(s.checkpoint()->Get("metadata").ok());
}

// A crash after any step of a batch: the restart holds every row exactly once.
TEST(DeltaSinkTest, CrashAtEveryStepThenRestartIsExactlyOnce) {
  for (const char* step : {"offsets", "sink"}) {
    for (int64_t crash_batch = 0; crash_batch < 3; ++crash_batch) {
      SCOPED_TRACE(std::string(step) + " of batch " + std::to_string(crash_batch));
      DmlTable t;
      t.Create(Ids(0, 2), false, false);
      for (int i = 1; i < 4; ++i) t.Append(Ids(i * 10, i * 10 + 2));
      Stream s(t, Opts({{"maxFilesPerTrigger", "1"}}));
      s.query().step_hook = [&](int64_t batch, std::string_view at) -> Status {
        if (batch == crash_batch && at == step) return Status::IoError("simulated crash");
        return Status::OK();
      };
      auto r = s.Run();
      ASSERT_FALSE(r.ok());
      s.query().step_hook = nullptr;
      t.Append(Ids(100, 101));
      auto again = s.Run();
      ASSERT_TRUE(again.ok()) << again.status().ToString();
      EXPECT_EQ(s.SinkIds(), (std::vector<int64_t>{0, 1, 10, 11, 20, 21, 30, 31, 100}));
      if (std::string(step) == "sink") {
        EXPECT_EQ(again->batches_skipped_by_sink, 1);
      }
    }
  }
}

TEST(DeltaSinkTest, UpsertReplacesRowsByKey) {
  DmlTable t;
  t.Create(Ids(0, 3), false, false);
  Stream s(t, Opts({{"ignoreChanges", "true"}}));
  s.query().sink.mode = SinkMode::kUpsert;
  s.query().sink.key_columns = {"id"};
  s.query().sink.properties.Set("delta.enableDeletionVectors", "true");
  s.RunOk();
  t.Append({Row{1, "new1", "a"}, Row{7, "v7", "a"}});
  s.RunOk();
  auto rows = testing::ReadRows(s.sink());
  EXPECT_EQ(rows, (std::vector<std::string>{"0|v0", "1|new1", "2|v2", "7|v7"}));
  // A re-run of the same batch id is skipped.
  auto cp = StreamCheckpoint::Open(s.checkpoint());
  ASSERT_TRUE(cp.ok());
  SourceBatch again;
  again.schema = testing::RowSchema(false);
  again.chunks.push_back(testing::MakeRows({Row{1, "dup", "a"}}, false));
  again.num_rows = 1;
  DeltaSinkOptions sink = s.query().sink;
  sink.clock = t.clock();
  auto skipped = AddBatchToSink(sink, cp->query_id(), 1, again);
  ASSERT_TRUE(skipped.ok()) << skipped.status().ToString();
  EXPECT_FALSE(*skipped);
  EXPECT_EQ(testing::ReadRows(s.sink()), rows);
}

// A streaming table kept in sync with a source that receives appends, DV DELETEs, OPTIMIZE and
// VACUUM (skipChangeCommits: the appended rows arrive once; change commits are skipped).
TEST(DeltaStreamTest, StreamingTableFollowsAppendsDeletesOptimizeVacuum) {
  DmlTable t;
  t.Create(Ids(0, 5), false, /*dvs=*/true);
  Stream s(t, Opts({{"skipChangeCommits", "true"}}));
  s.RunOk();
  std::vector<int64_t> want = Range(0, 5);
  for (int round = 1; round <= 4; ++round) {
    t.Append(Ids(round * 100, round * 100 + 5));
    for (int64_t i = round * 100; i < round * 100 + 5; ++i) want.push_back(i);
    DeleteWhere(t, [round](int64_t id) { return id == round * 100 + 1; });
    OptimizeOptions o;
    o.clock = t.clock();
    ASSERT_TRUE(Optimize(t.store(), o).ok());
    auto r = s.Run();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(s.SinkIds(), want);
    // VACUUM (after the retention) commits only commitInfo actions: invisible to the stream.
    t.clock()->AdvanceHours(8 * 24);
    VacuumOptions v;
    v.clock = t.clock();
    auto vr = Vacuum(t.store(), v);
    ASSERT_TRUE(vr.ok()) << vr.status().ToString();
    EXPECT_GT(vr->num_deleted_files, 0);
  }
}

}  // namespace
}  // namespace silt::ops
