// `silt maintain`: one pass with a pinned clock over a warehouse table, a listed path table, a
// dry run, and usage errors.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "cli/commands.h"
#include "silt/silt.h"

namespace silt::cli {
namespace {

class MaintainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "silt-maintain-XXXXXX").string();
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
  int64_t Count(const std::string& sql) {
    auto r = con_->Query(sql);
    EXPECT_TRUE(r.ok()) << sql << "\n" << r.status().ToString();
    return r.ok() && (*r)->num_rows() == 1 ? (*r)->Row(0)[0].integer() : -1;
  }
  std::string dir_;
  std::shared_ptr<Database> db_;
  std::unique_ptr<Connection> con_;
};

TEST_F(MaintainTest, OnePassWithAPinnedClock) {
  ASSERT_TRUE(con_->Query("CREATE TABLE ev (id INT, ts TIMESTAMP) USING DELTA TBLPROPERTIES ("
                          "'autottl.expireInDays' = '30', 'autottl.timestampColumn' = 'ts')")
                  .ok());
  ASSERT_TRUE(con_->Query("INSERT INTO ev VALUES (1, TIMESTAMP '2030-01-01 00:00:00'), "
                          "(2, TIMESTAMP '2030-03-01 00:00:00')")
                  .ok());
  const std::string wh = dir_ + "/wh";
  // Dry run: nothing changes.
  EXPECT_EQ(
      RunMaintain({"--warehouse", wh, "--once", "--now", "2030-02-15T00:00:00Z", "--dry-run"}), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM ev"), 2);
  EXPECT_FALSE(std::filesystem::exists(wh + "/.silt_system"));
  // 2030-02-15 - 30 days = 2030-01-16: row 1 goes.
  EXPECT_EQ(RunMaintain({"--warehouse", wh, "--once", "--now", "2030-02-15T00:00:00Z", "ev"}), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM ev"), 1);
  EXPECT_EQ(Count("SELECT count(*) FROM delta.`" + wh +
                  "/.silt_system/storage/maintenance_operations_history` WHERE operation_type = "
                  "'DELETE' AND "
                  "operation_status = 'SUCCESSFUL'"),
            1);
  // The table by path, later: row 2 goes too.
  EXPECT_EQ(RunMaintain({"--warehouse", wh, "--now", "2030-05-01T00:00:00Z", wh + "/ev"}), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM ev"), 0);
}

// --conf sets the advisor's threshold keys for the service's routine jobs; a bad value fails the
// table (exit 1) instead of falling back to the default; --threads runs the same pass.
TEST_F(MaintainTest, ConfThresholdsAndThreads) {
  ASSERT_TRUE(con_->Query("CREATE TABLE r (id INT) USING DELTA").ok());
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(con_->Query("INSERT INTO r VALUES (" + std::to_string(i) + ")").ok());
  const std::string wh = dir_ + "/wh";
  EXPECT_EQ(RunMaintain({"--warehouse", wh, "--conf",
                         "spark.databricks.delta.optimize.maxDeletedRowsRatio=2", "r"}),
            1);
  // The default minNumFiles (50) leaves 4 small files alone; 3 makes COMPACTION due.
  EXPECT_EQ(RunMaintain({"--warehouse", wh, "--threads", "2", "r"}), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM delta.`" + wh +
                  "/.silt_system/storage/maintenance_operations_history` WHERE operation_type = "
                  "'COMPACTION' AND operation_status = 'SUCCESSFUL'"),
            0);
  EXPECT_EQ(RunMaintain({"--warehouse", wh, "--threads", "2", "--conf",
                         "silt.maintenance.optimize.minNumFiles=3", "r"}),
            0);
  EXPECT_EQ(Count("SELECT count(*) FROM delta.`" + wh +
                  "/.silt_system/storage/maintenance_operations_history` WHERE operation_type = "
                  "'COMPACTION' AND operation_status = 'SUCCESSFUL'"),
            1);
  EXPECT_EQ(Count("SELECT count(*) FROM r"), 4);
  EXPECT_EQ(RunMaintain({"--warehouse", wh, "--conf", "novalue"}), 2);
  EXPECT_EQ(RunMaintain({"--warehouse", wh, "--threads", "0"}), 2);
}

TEST_F(MaintainTest, UsageErrors) {
  EXPECT_EQ(RunMaintain({"--bogus"}), 2);
  EXPECT_EQ(RunMaintain({"--once", "--interval", "1h"}), 2);
  EXPECT_EQ(RunMaintain({"--interval", "1h", "--now", "2030-01-01T00:00:00Z"}), 2);
  EXPECT_EQ(RunMaintain({"--interval", "soon"}), 2);
  EXPECT_EQ(RunMaintain({"--now", "yesterday"}), 2);
  EXPECT_EQ(RunMaintain({"--warehouse", dir_ + "/wh", "--once", "nope"}), 1);
}

}  // namespace
}  // namespace silt::cli
