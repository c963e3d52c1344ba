// Liquid clustering in OPTIMIZE: the Hilbert curve, the layout it leaves (average overlap depth of
// the files' clustering-column ranges, against the unclustered layout), incremental clustering
// (only new files are rewritten once z-cubes are large enough), and a table laid out as
// Spark/Databricks writes one (hand-built log: clustering + domainMetadata features, the
// delta.clustering domain by physical name, clusteringProvider and ZCUBE tags) round-tripping.
#include "delta/clustering.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <set>

#include "delta/checkpoint_writer.h"
#include "delta/scan.h"
#include "delta/schema_json.h"
#include "delta/snapshot.h"
#include "delta/stats_json.h"
#include "delta/table_features.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "io/memory_object_store.h"
#include "ops/optimize.h"
#include "support/wall_clock.h"

namespace silt::ops {
namespace {

constexpr int64_t kT0 = 1700000000000;

TEST(HilbertIndexTest, VisitsEveryCellOnceMovingToANeighbourEachStep) {
  for (size_t dims : {2u, 3u}) {
    const int bits = 3;
    const uint32_t side = 1u << bits;
    size_t cells = 1;
    for (size_t d = 0; d < dims; ++d) cells *= side;
    std::vector<std::vector<uint32_t>> at(cells);
    for (size_t c = 0; c < cells; ++c) {
      std::vector<uint32_t> p(dims);
      size_t rest = c;
      for (size_t d = 0; d < dims; ++d) {
        p[d] = static_cast<uint32_t>(rest % side);
        rest /= side;
      }
      uint64_t h = HilbertIndex(p, bits);
      ASSERT_LT(h, cells);
      ASSERT_TRUE(at[h].empty()) << "two cells share index " << h;
      at[h] = p;
    }
    EXPECT_EQ(at[0], std::vector<uint32_t>(dims, 0));
    for (size_t h = 1; h < cells; ++h) {
      uint32_t dist = 0;
      for (size_t d = 0; d < dims; ++d)
        dist += at[h][d] > at[h - 1][d] ? at[h][d] - at[h - 1][d] : at[h - 1][d] - at[h][d];
      EXPECT_EQ(dist, 1u) << "step " << h << " in " << dims << " dimensions";
    }
  }
}

class ClusteringTest : public ::testing::Test {
 protected:
  void SetUp() override {
    clock_ = std::make_shared<ManualClock>(kT0);
    store_ = std::make_shared<InMemoryObjectStore>(clock_);
  }
  static Schema TableSchema() {
    return {{"x", DataType::Int64(), true, "{}"},
            {"y", DataType::Int64(), true, "{}"},
            {"payload", DataType::String(), true, "{}"}};
  }
  void Create(std::optional<std::vector<std::string>> clustering) {
    delta::CreateTableOptions o = WallCreate();
    o.clustering_columns = std::move(clustering);
    o.txn.clock = clock_;
    o.write.clock = clock_;
    auto r = delta::CreateTable(store_, TableSchema(), {}, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  // One file of n rows with x, y uniform in [0, 10000).
  void Append(int64_t n) {
    DataChunk c = DataChunk::FromSchema(TableSchema());
    for (int64_t i = 0; i < n; ++i) {
      c.columns[0].Append<int64_t>(static_cast<int64_t>(rng_() % 10000));
      c.columns[1].Append<int64_t>(static_cast<int64_t>(rng_() % 10000));
      c.columns[2].AppendString("row " + std::to_string(rows_++));
    }
    delta::DataWriteOptions w = WallWrite();
    w.clock = clock_;
    delta::TransactionOptions t = WallTxn();
    t.clock = clock_;
    auto r = delta::AppendRows(store_, {c}, w, t);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    clock_->AdvanceMillis(1000);
  }
  std::shared_ptr<const delta::Snapshot> Latest() { return *delta::Snapshot::Load(store_); }
  // A copy: a range-for over Latest()->files() would outlive the snapshot.
  std::vector<delta::AddFile> Files() { return Latest()->files(); }
  OptimizeResult Run(OptimizeOptions o) {
    o.clock = clock_;
    auto r = Optimize(store_, o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : OptimizeResult{};
  }
  int64_t TableBytes() {
    int64_t b = 0;
    for (const auto& f : Files()) b += f.size;
    return b;
  }
  // Average overlap depth of the files' [min, max] ranges of `column`: how many files cover a
  // value, averaged over the span the files cover (1 = the files partition the values).
  double AverageOverlapDepth(const std::string& column) {
    std::vector<std::pair<int64_t, int>> events;  // (value, +1 at a start / -1 after an end)
    for (const auto& f : Files()) {
      auto st = delta::ParseStats(*f.stats, TableSchema());
      EXPECT_TRUE(st.ok()) << st.status().ToString() << " in " << *f.stats;
      if (!st.ok()) return -1;
      const delta::ColumnStats* cs = st->FindPath({column});
      EXPECT_TRUE(cs && cs->min && cs->max) << *f.stats;
      if (!cs || !cs->min || !cs->max) return -1;
      events.emplace_back(cs->min->integer(), +1);
      events.emplace_back(cs->max->integer() + 1, -1);
    }
    std::sort(events.begin(), events.end());
    double covered = 0, weighted = 0;
    int depth = 0;
    for (size_t i = 0; i + 1 < events.size(); ++i) {
      depth += events[i].second;
      double len = static_cast<double>(events[i + 1].first - events[i].first);
      if (depth > 0) {
        covered += len;
        weighted += len * depth;
      }
    }
    return covered > 0 ? weighted / covered : 0;
  }
  int64_t RowCount() { return RowCountOf(Latest()); }
  static int64_t RowCountOf(std::shared_ptr<const delta::Snapshot> snap) {
    auto made = delta::TableScan::Make(std::move(snap));
    EXPECT_TRUE(made.ok());
    auto scan = std::move(*made);
    int64_t n = 0;
    DataChunk c;
    while (*scan->Next(&c)) n += static_cast<int64_t>(c.size());
    return n;
  }

  std::mt19937_64 rng_{42};
  int64_t rows_ = 0;
  std::shared_ptr<ManualClock> clock_;
  std::shared_ptr<InMemoryObjectStore> store_;
};

TEST_F(ClusteringTest, CreateSetsTheFeaturesAndTheDomainByPhysicalName) {
  delta::CreateTableOptions o = WallCreate();
  o.clustering_columns = std::vector<std::string>{"Y", "x"};
  o.properties.Set("delta.columnMapping.mode", "name");
  ASSERT_TRUE(delta::CreateTable(store_, TableSchema(), {}, o).ok());
  auto snap = Latest();
  EXPECT_TRUE(delta::HasFeature(snap->protocol(), "clustering"));
  EXPECT_TRUE(delta::HasFeature(snap->protocol(), "domainMetadata"));
  EXPECT_TRUE(delta::IsClusteredTable(*snap));
  auto it = snap->domains().find("delta.clustering");
  ASSERT_NE(it, snap->domains().end());
  auto paths = delta::ParseClusteringDomain(it->second.configuration);
  ASSERT_TRUE(paths.ok());
  ASSERT_EQ(paths->size(), 2u);
  EXPECT_EQ((*paths)[0][0], *delta::PhysicalName(snap->schema()[1]));
  EXPECT_NE((*paths)[0][0], "y");  // a physical name, not the logical one
  EXPECT_EQ(*delta::ClusteringColumns(*snap), (std::vector<std::string>{"y", "x"}));
}

TEST_F(ClusteringTest, CreateErrors) {
  auto fails = [&](std::vector<std::string> cols, const char* cls, Schema schema = TableSchema(),
                   std::vector<std::string> parts = {}) {
    delta::CreateTableOptions o = WallCreate();
    o.clustering_columns = std::move(cols);
    o.partition_columns = std::move(parts);
    auto r = delta::CreateTable(store_, schema, {}, o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().error_class(), cls);
  };
  fails({"x", "y", "payload", "x2", "y2"}, "DELTA_CLUSTER_BY_INVALID_NUM_COLUMNS",
        {{"x", DataType::Int64(), true, "{}"},
         {"y", DataType::Int64(), true, "{}"},
         {"payload", DataType::String(), true, "{}"},
         {"x2", DataType::Int64(), true, "{}"},
         {"y2", DataType::Int64(), true, "{}"}});
  fails({"x"}, "DELTA_CLUSTER_BY_WITH_PARTITIONED_BY", TableSchema(), {"payload"});
  fails({"b"}, "DELTA_CLUSTERING_COLUMNS_DATATYPE_NOT_SUPPORTED",
        {{"x", DataType::Int64(), true, "{}"}, {"b", DataType::Binary(), true, "{}"}});
  fails({"nope"}, "DELTA_COLUMN_NOT_FOUND_IN_SCHEMA");
  EXPECT_FALSE(store_->Get("_delta_log/00000000000000000000.json").ok());
}

TEST_F(ClusteringTest, OptimizeLeavesFilesWhoseRangesBarelyOverlap) {
  // Unclustered: 16 files of random points, each spanning (nearly) the whole range.
  Create(std::vector<std::string>{"x", "y"});
  for (int i = 0; i < 16; ++i) Append(1000);
  const double x_before = AverageOverlapDepth("x"), y_before = AverageOverlapDepth("y");
  OptimizeOptions o;
  o.max_file_size = TableBytes() / 16;
  auto r = Run(o);
  ASSERT_TRUE(r.committed_version);
  EXPECT_EQ(r.num_files_removed, 16);
  EXPECT_GE(r.num_files_added, 12);
  EXPECT_EQ(RowCount(), 16000);
  const double x_after = AverageOverlapDepth("x"), y_after = AverageOverlapDepth("y");
  std::printf("average overlap depth over %lld files: x %.2f -> %.2f, y %.2f -> %.2f\n",
              static_cast<long long>(Files().size()), x_before, x_after, y_before, y_after);
  EXPECT_GT(x_before, 14);
  EXPECT_GT(y_before, 14);
  // A Hilbert curve over 2 columns cuts the plane into ~4 × 4 cells: about 4 files cover a value
  // of either column, against all 16 before.
  EXPECT_LT(x_after, 6);
  EXPECT_LT(y_after, 6);
  // Every file written is a liquid-clustered member of one z-cube.
  std::set<std::string> cubes;
  for (const auto& f : Files()) {
    EXPECT_EQ(f.clustering_provider, std::optional<std::string>("liquid"));
    ASSERT_TRUE(f.tags);
    ASSERT_TRUE(f.tags->Find("ZCUBE_ID"));
    cubes.insert(*f.tags->Find("ZCUBE_ID"));
    EXPECT_EQ(*f.tags->Find("ZCUBE_ZORDER_BY"), "[\"x\",\"y\"]");
    EXPECT_FALSE(f.data_change);
  }
  EXPECT_EQ(cubes.size(), 1u);
}

TEST_F(ClusteringTest, OneClusteringColumnPartitionsItsValues) {
  Create(std::vector<std::string>{"x"});
  for (int i = 0; i < 8; ++i) Append(1000);
  EXPECT_GT(AverageOverlapDepth("x"), 7);
  OptimizeOptions o;
  o.max_file_size = TableBytes() / 8;
  Run(o);
  EXPECT_LT(AverageOverlapDepth("x"), 1.3);
}

TEST_F(ClusteringTest, UnclusteredOptimizeOnlyCompacts) {
  // The same data without CLUSTER BY: OPTIMIZE bin-packs and leaves the ranges overlapping.
  Create(std::nullopt);
  for (int i = 0; i < 16; ++i) Append(1000);
  OptimizeOptions o;
  o.max_file_size = TableBytes() / 4;
  o.min_file_size = o.max_file_size;
  Run(o);
  EXPECT_GT(AverageOverlapDepth("x"), 0.9 * static_cast<double>(Files().size()));
  for (const auto& f : Files()) EXPECT_FALSE(f.clustering_provider);
}

TEST_F(ClusteringTest, IncrementalOptimizeRewritesOnlyNewFiles) {
  Create(std::vector<std::string>{"x", "y"});
  for (int i = 0; i < 8; ++i) Append(500);
  OptimizeOptions o;
  o.max_file_size = TableBytes() / 4;
  o.clustering_min_cube_size = 1;  // every z-cube written is "large": never merged again
  o.clustering_target_cube_size = 1LL << 40;
  Run(o);
  std::set<std::string> clustered;
  for (const auto& f : Files()) clustered.insert(f.path);
  // Nothing new: no commit.
  auto same = Run(o);
  EXPECT_FALSE(same.committed_version);
  Append(500);
  Append(500);
  std::set<std::string> fresh;
  for (const auto& f : Files())
    if (!clustered.count(f.path)) fresh.insert(f.path);
  ASSERT_EQ(fresh.size(), 2u);
  auto r = Run(o);
  ASSERT_TRUE(r.committed_version);
  EXPECT_EQ(r.num_files_removed, 2);
  EXPECT_EQ(r.total_considered_files, static_cast<int64_t>(clustered.size() + 2));
  std::set<std::string> cubes;
  size_t kept = 0;
  for (const auto& f : Files()) {
    EXPECT_FALSE(fresh.count(f.path));
    kept += clustered.count(f.path);
    cubes.insert(*f.tags->Find("ZCUBE_ID"));
  }
  EXPECT_EQ(kept, clustered.size());  // the earlier z-cube was not touched
  EXPECT_EQ(cubes.size(), 2u);
  EXPECT_EQ(RowCount(), 5000);

  // FULL reclusters every file into one z-cube.
  OptimizeOptions full = o;
  full.full = true;
  auto rf = Run(full);
  EXPECT_EQ(rf.num_files_removed, static_cast<int64_t>(clustered.size() + r.num_files_added));
  cubes.clear();
  for (const auto& f : Files()) cubes.insert(*f.tags->Find("ZCUBE_ID"));
  EXPECT_EQ(cubes.size(), 1u);
  EXPECT_EQ(RowCount(), 5000);
}

TEST_F(ClusteringTest, SmallZCubesAreMergedWithNewFilesAndOtherColumnsNeedFull) {
  Create(std::vector<std::string>{"x", "y"});
  for (int i = 0; i < 4; ++i) Append(500);
  OptimizeOptions o;  // Delta's defaults: a z-cube below 100 GB is merged with new files
  Run(o);
  const size_t after_first = Files().size();
  Append(500);
  auto r = Run(o);
  EXPECT_EQ(r.num_files_removed, static_cast<int64_t>(after_first + 1));

  // Files clustered by other columns (say before ALTER TABLE CLUSTER BY) are left alone; FULL
  // takes them.
  auto snap = Latest();
  delta::TransactionOptions topts = WallTxn();
  delta::Transaction txn(store_, snap, topts);
  txn.SetDomain(delta::ClusteringDomainFor(snap->schema(), snap->column_mapping_mode(), {"y"}));
  txn.SetOperation("CLUSTER BY");
  ASSERT_TRUE(txn.Commit().ok());
  auto none = Run(o);
  EXPECT_FALSE(none.committed_version);
  EXPECT_EQ(none.total_files_skipped, none.total_considered_files);
  OptimizeOptions full = o;
  full.full = true;
  auto rf = Run(full);
  EXPECT_EQ(rf.num_files_removed, rf.total_considered_files);
  for (const auto& f : Files()) EXPECT_EQ(*f.tags->Find("ZCUBE_ZORDER_BY"), "[\"y\"]");
}

TEST_F(ClusteringTest, ZOrderAndFullErrors) {
  Create(std::vector<std::string>{"x"});
  Append(10);
  OptimizeOptions o;
  o.clock = clock_;
  o.mode = OptimizeOptions::Mode::kZOrder;
  o.zorder_by = {"y"};
  auto r = Optimize(store_, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), "DELTA_CLUSTERING_WITH_ZORDER_BY");

  auto other = std::make_shared<InMemoryObjectStore>(clock_);
  delta::CreateTableOptions co = WallCreate();
  ASSERT_TRUE(delta::CreateTable(other, TableSchema(), {}, co).ok());
  OptimizeOptions f;
  f.clock = clock_;
  f.full = true;
  r = Optimize(other, f);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), "DELTA_OPTIMIZE_FULL_NOT_SUPPORTED");
}

// A clustered table as Spark/Databricks lays it out, the log written by hand from the protocol:
// column mapping (physical names "col-…"), the clustering and domainMetadata writer features,
// the delta.clustering domain naming the physical column, one file Spark's OPTIMIZE clustered
// (clusteringProvider + ZCUBE tags naming the logical column) and one appended after it.
TEST_F(ClusteringTest, SparkLayoutTableRoundTrips) {
  const std::string schema_json =
      "{\"type\":\"struct\",\"fields\":["
      "{\"name\":\"k\",\"type\":\"long\",\"nullable\":true,\"metadata\":{"
      "\"delta.columnMapping.id\":1,\"delta.columnMapping.physicalName\":"
      "\"col-6f1b2c3d-0000-4000-8000-000000000001\"}},"
      "{\"name\":\"v\",\"type\":\"string\",\"nullable\":true,\"metadata\":{"
      "\"delta.columnMapping.id\":2,\"delta.columnMapping.physicalName\":"
      "\"col-6f1b2c3d-0000-4000-8000-000000000002\"}}]}";
  auto schema = delta::ParseSchemaString(schema_json);
  ASSERT_TRUE(schema.ok());
  delta::Metadata md;
  md.id = "0b6b1b44-7a58-4c0e-9a5e-3a1b5bd0f001";
  md.schema_string = schema_json;
  md.configuration.Set("delta.columnMapping.mode", "name");
  md.configuration.Set("delta.columnMapping.maxColumnId", "2");
  md.configuration.Set("delta.enableDeletionVectors", "true");
  md.created_time = kT0;
  auto rows = [&](int64_t from, int64_t to) {
    DataChunk c = DataChunk::FromSchema(*schema);
    for (int64_t i = from; i < to; ++i) {
      c.columns[0].Append<int64_t>((i * 7919) % 1000);
      c.columns[1].AppendString("v" + std::to_string(i));
    }
    return c;
  };
  delta::DataWriteOptions w = WallWrite();
  auto first = delta::WriteDataFiles(*store_, md, *schema, {rows(0, 400)}, w);
  auto second = delta::WriteDataFiles(*store_, md, *schema, {rows(400, 600)}, w);
  ASSERT_TRUE(first.ok() && second.ok());
  ASSERT_EQ(first->size(), 1u);
  ASSERT_EQ(second->size(), 1u);
  delta::AddFile clustered = (*first)[0];
  clustered.data_change = false;
  clustered.clustering_provider = "liquid";
  clustered.tags = delta::StringMap{};
  clustered.tags->Set("ZCUBE_ID", "3d2c9a57-13a4-4b9e-8f77-7c0f5b1d2e11");
  clustered.tags->Set("ZCUBE_ZORDER_BY", "[\"k\"]");
  // Version 0: CREATE TABLE … CLUSTER BY (k), as Spark writes it.
  std::string v0 =
      "{\"commitInfo\":{\"timestamp\":1700000000000,\"operation\":\"CREATE TABLE\","
      "\"operationParameters\":{\"partitionBy\":\"[]\",\"clusterBy\":\"[\\\"k\\\"]\","
      "\"description\":null,\"isManaged\":\"false\",\"properties\":\"{}\"},"
      "\"isolationLevel\":\"Serializable\",\"isBlindAppend\":true,\"operationMetrics\":{},"
      "\"engineInfo\":\"Apache-Spark/3.5.3 Delta-Lake/3.3.0\"}}\n"
      "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,"
      "\"readerFeatures\":[\"columnMapping\",\"deletionVectors\"],"
      "\"writerFeatures\":[\"columnMapping\",\"deletionVectors\",\"domainMetadata\","
      "\"clustering\"]}}\n" +
      delta::SerializeAction(md) +
      "\n{\"domainMetadata\":{\"domain\":\"delta.clustering\",\"configuration\":"
      "\"{\\\"clusteringColumns\\\":[[\\\"col-6f1b2c3d-0000-4000-8000-000000000001\\\"]]}\","
      "\"removed\":false}}\n";
  std::string v1 =
      "{\"commitInfo\":{\"timestamp\":1700000001000,\"operation\":\"OPTIMIZE\","
      "\"operationParameters\":{\"predicate\":\"[]\",\"clusterBy\":\"[\\\"k\\\"]\","
      "\"zOrderBy\":\"[]\",\"auto\":false},\"readVersion\":0,\"isolationLevel\":"
      "\"SnapshotIsolation\",\"isBlindAppend\":false}}\n" +
      delta::SerializeAction(clustered) + "\n";
  std::string v2 =
      "{\"commitInfo\":{\"timestamp\":1700000002000,\"operation\":\"WRITE\","
      "\"operationParameters\":{\"mode\":\"Append\",\"partitionBy\":\"[]\"},\"readVersion\":1,"
      "\"isolationLevel\":\"Serializable\",\"isBlindAppend\":true}}\n" +
      delta::SerializeAction((*second)[0]) + "\n";
  ASSERT_TRUE(store_->Put("_delta_log/00000000000000000000.json", v0).ok());
  ASSERT_TRUE(store_->Put("_delta_log/00000000000000000001.json", v1).ok());
  ASSERT_TRUE(store_->Put("_delta_log/00000000000000000002.json", v2).ok());

  auto snap = Latest();
  ASSERT_TRUE(delta::IsClusteredTable(*snap));
  EXPECT_EQ(*delta::ClusteringColumns(*snap), std::vector<std::string>{"k"});
  EXPECT_EQ(RowCountOf(snap), 600);

  // Maintained: OPTIMIZE merges Spark's (small) z-cube with the appended file, by k.
  auto r = Run(OptimizeOptions{});
  ASSERT_TRUE(r.committed_version);
  EXPECT_EQ(r.num_files_removed, 2);
  snap = Latest();
  EXPECT_EQ(RowCountOf(snap), 600);
  for (const auto& f : snap->files()) {
    EXPECT_EQ(f.clustering_provider, std::optional<std::string>("liquid"));
    EXPECT_EQ(*f.tags->Find("ZCUBE_ZORDER_BY"), "[\"k\"]");
  }
  // The domain, protocol and metadata are untouched; a checkpoint keeps the domain.
  EXPECT_EQ(snap->domains().at("delta.clustering").configuration,
            "{\"clusteringColumns\":[[\"col-6f1b2c3d-0000-4000-8000-000000000001\"]]}");
  ASSERT_TRUE(delta::WriteCheckpoint(*store_, *snap, WallCheckpoint()).ok());
  auto reloaded = Latest();
  EXPECT_EQ(*delta::ClusteringColumns(*reloaded), std::vector<std::string>{"k"});
  EXPECT_EQ(reloaded->files().size(), snap->files().size());
  // The files written use the physical column names: rows read back by logical name.
  auto made = delta::TableScan::Make(reloaded);
  ASSERT_TRUE(made.ok());
  auto scan = std::move(*made);
  int64_t sum = 0;
  DataChunk c;
  while (*scan->Next(&c))
    for (size_t i = 0; i < c.size(); ++i) sum += c.columns[0].Get<int64_t>(i);
  int64_t expect = 0;
  for (int64_t i = 0; i < 600; ++i) expect += (i * 7919) % 1000;
  EXPECT_EQ(sum, expect);
}

}  // namespace
}  // namespace silt::ops
