// `silt inspect`: the report over a table made through the public API, with deletion vectors,
// partitions, and a removed file awaiting VACUUM.
#include "cli/inspect.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "cli/commands.h"
#include "io/local_object_store.h"
#include "silt/silt.h"

namespace silt::cli {
namespace {

class InspectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "silt-inspect-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    DatabaseOptions opts;
    opts.warehouse = dir_ + "/wh";
    opts.threads = 1;
    auto db = Database::Open(opts);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = *db;
    con_ = std::make_unique<Connection>(db_);
  }
  void TearDown() override {
    con_.reset();
    db_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Run(const std::string& sql) {
    auto r = con_->Query(sql);
    ASSERT_TRUE(r.ok()) << sql << "\n" << r.status().ToString();
  }
  InspectReport Inspect(InspectOptions opts = {}) {
    auto snap = delta::Snapshot::Load(std::make_shared<LocalObjectStore>(dir_ + "/wh/t"));
    EXPECT_TRUE(snap.ok()) << snap.status().ToString();
    if (!snap.ok()) return {};
    auto r = BuildInspectReport(**snap, dir_ + "/wh/t", opts);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : InspectReport{};
  }
  std::string dir_;
  std::shared_ptr<Database> db_;
  std::unique_ptr<Connection> con_;
};

TEST_F(InspectTest, CountsFilesRowsAndDeletedRowsPerFileAndPartition) {
  Run("CREATE TABLE t (id BIGINT, p INT) USING DELTA PARTITIONED BY (p) "
      "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
  Run("INSERT INTO t SELECT id, CAST(id % 2 AS INT) FROM range(100)");  // 50 rows in each of p=0,
                                                                        // p=1
  Run("INSERT INTO t SELECT id, 0 FROM range(100, 120)");               // a second file in p=0
  Run("DELETE FROM t WHERE p = 1 AND id < 20");                         // 10 rows of p=1 → a DV
  Run("DELETE FROM t WHERE p = 0 AND id >= 100 AND id < 101");  // 1 of 20 rows → a DV (5%)

  InspectReport r = Inspect();
  EXPECT_EQ(r.partition_columns, std::vector<std::string>{"p"});
  EXPECT_EQ(r.totals.files, 3);
  EXPECT_EQ(r.totals.rows, 120);
  EXPECT_EQ(r.totals.deleted_rows, 11);
  EXPECT_EQ(r.totals.files_without_stats, 0);
  EXPECT_EQ(r.dv_files, 2);
  ASSERT_EQ(r.partitions.size(), 2u);
  EXPECT_EQ(r.partitions[0].partition, "p=0");
  EXPECT_EQ(r.partitions[0].counts.files, 2);
  EXPECT_EQ(r.partitions[0].counts.rows, 70);
  EXPECT_EQ(r.partitions[0].counts.deleted_rows, 1);
  EXPECT_EQ(r.partitions[1].partition, "p=1");
  EXPECT_EQ(r.partitions[1].counts.files, 1);
  EXPECT_EQ(r.partitions[1].counts.rows, 50);
  EXPECT_EQ(r.partitions[1].counts.deleted_rows, 10);
  EXPECT_DOUBLE_EQ(r.partitions[1].counts.deleted_ratio(), 0.2);
  int64_t bytes = 0;
  for (const auto& f : r.files) bytes += f.size;
  EXPECT_EQ(r.totals.bytes, bytes);
  // Per file: the p=1 file has 10 of 50 deleted (over the 5% threshold); the 20-row p=0 file 1
  // (exactly 5%, not over).
  int over = 0, at = 0;
  for (const auto& f : r.files) {
    ASSERT_TRUE(f.num_records.has_value());
    if (f.partition == "p=1") {
      EXPECT_EQ(*f.num_records, 50);
      EXPECT_EQ(f.deleted_rows, 10);
      ++over;
    } else if (*f.num_records == 20) {
      EXPECT_EQ(f.deleted_rows, 1);
      EXPECT_DOUBLE_EQ(f.deleted_ratio(), 0.05);
      ++at;
    } else {
      EXPECT_EQ(*f.num_records, 50);
      EXPECT_EQ(f.deleted_rows, 0);
      EXPECT_FALSE(f.has_dv);
    }
  }
  EXPECT_EQ(over, 1);
  EXPECT_EQ(at, 1);
  EXPECT_EQ(r.dv_bloated_files, 1);
  // All files are far below 1 GiB; two share p=0, so compaction is hinted for those two.
  EXPECT_EQ(r.small_files, 3);
  ASSERT_EQ(r.hints.size(), 2u);
  EXPECT_NE(r.hints[0].find("2 files are smaller than minFileSize"), std::string::npos)
      << r.hints[0];
  EXPECT_NE(r.hints[0].find("OPTIMIZE"), std::string::npos);
  EXPECT_NE(r.hints[1].find("REORG TABLE"), std::string::npos) << r.hints[1];
  EXPECT_EQ(r.tombstones, 0);

  std::string json = RenderInspectJson(r);
  EXPECT_NE(json.find("\"totals\":{\"files\":3,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"rows\":120,\"deletedRows\":11,"), std::string::npos) << json;
  EXPECT_NE(json.find("{\"partition\":\"p=1\",\"files\":1,"), std::string::npos) << json;
  std::string text = RenderInspectText(r);
  EXPECT_NE(text.find("p=1\t1\t"), std::string::npos) << text;
  EXPECT_NE(text.find("120 rows, 11 deleted rows (9.17%)"), std::string::npos) << text;
}

TEST_F(InspectTest, CopyOnWriteDeleteLeavesRemovedFilesAndThresholdsApply) {
  Run("CREATE TABLE t (id BIGINT) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = "
      "'false')");
  Run("INSERT INTO t SELECT id FROM range(10)");
  Run("DELETE FROM t WHERE id < 3");  // rewrites the file: one tombstone
  InspectOptions opts;
  opts.min_file_size = 1;  // nothing is small
  opts.now_millis = SystemClock().NowMillis();
  InspectReport r = Inspect(opts);
  EXPECT_EQ(r.totals.files, 1);
  EXPECT_EQ(r.totals.rows, 7);
  EXPECT_EQ(r.totals.deleted_rows, 0);
  EXPECT_EQ(r.dv_files, 0);
  EXPECT_EQ(r.small_files, 0);
  EXPECT_EQ(r.tombstones, 1);
  EXPECT_GT(r.tombstone_bytes, 0);
  EXPECT_EQ(r.vacuumable, 0);  // removed just now, retention is 7 days
  EXPECT_EQ(r.retention_millis, 7LL * 24 * 3600 * 1000);
  ASSERT_EQ(r.hints.size(), 1u);
  EXPECT_NE(r.hints[0].find("1 removed files"), std::string::npos) << r.hints[0];
  opts.now_millis += 8LL * 24 * 3600 * 1000;
  EXPECT_EQ(Inspect(opts).vacuumable, 1);
}

TEST_F(InspectTest, CommandResolvesNamesInTheWarehouse) {
  Run("CREATE TABLE t (id BIGINT) USING DELTA");
  Run("INSERT INTO t SELECT id FROM range(5)");
  EXPECT_EQ(RunInspect({"t", "--warehouse", dir_ + "/wh", "--json"}), 0);
  EXPECT_EQ(RunInspect({"default.t", "--warehouse", dir_ + "/wh"}), 0);
  EXPECT_EQ(RunInspect({dir_ + "/wh/t"}), 0);
  EXPECT_EQ(RunInspect({"nope", "--warehouse", dir_ + "/wh"}), 1);
  EXPECT_EQ(RunInspect({}), 2);
  EXPECT_EQ(RunInspect({"t", "--max-deleted-rows-ratio", "2"}), 2);
}

}  // namespace
}  // namespace silt::cli
