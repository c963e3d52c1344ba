// The public API end to end: Database + Connection over a temporary warehouse with a manual
// clock — statements whose results depend on time (history, time travel by timestamp, VACUUM).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "parquet/reader.h"
#include "silt/silt.h"

namespace silt {
namespace {

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "silt-engine-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    // Start at the real time: file modification times (commit timestamps, VACUUM ages) are real.
    clock_ = std::make_shared<ManualClock>(SystemClock().NowMillis());
    DatabaseOptions opts;
    opts.warehouse = dir_ + "/wh";
    opts.clock = clock_;
    opts.threads = 2;
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
  std::unique_ptr<QueryResult> Run(const std::string& sql) {
    auto r = con_->Query(sql);
    EXPECT_TRUE(r.ok()) << sql << "\n" << r.status().ToString();
    if (!r.ok()) return std::make_unique<QueryResult>(Schema{}, std::vector<DataChunk>{});
    return std::move(*r);
  }
  std::string Cell(const QueryResult& r, size_t row, size_t col) {
    return r.Row(row)[col].ToString();
  }

  std::string dir_;
  std::shared_ptr<ManualClock> clock_;
  std::shared_ptr<Database> db_;
  std::unique_ptr<Connection> con_;
};

TEST_F(EngineTest, QueryAllRunsStatementsInOrderAndKeepsSessionSettings) {
  // ANSI mode is the default (Spark 4): division by zero is an error.
  EXPECT_EQ(con_->GetConfig("spark.sql.ansi.enabled").value_or(""), "true");
  auto a = con_->Query("SELECT 1 / 0");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().error_class(), "DIVIDE_BY_ZERO");
  auto all = con_->QueryAll(
      "CREATE TABLE t (a INT) USING DELTA; INSERT INTO t VALUES (1), (2); SET "
      "spark.sql.ansi.enabled = false; SELECT sum(a) FROM t");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 4u);
  EXPECT_EQ((*all)[3]->Row(0)[0].ToString(), "3");
  EXPECT_EQ(con_->GetConfig("spark.sql.ansi.enabled").value_or(""), "false");
  // ANSI off: division by zero is NULL.
  auto n = Run("SELECT 1 / 0");
  ASSERT_EQ(n->num_rows(), 1u);
  EXPECT_TRUE(n->Row(0)[0].is_null());
  Run("RESET spark.sql.ansi.enabled");
  auto r = con_->Query("SELECT 1 / 0");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), "DIVIDE_BY_ZERO");
}

TEST_F(EngineTest, StopsAtTheFirstErrorAndLeavesEarlierStatementsApplied) {
  auto r = con_->QueryAll(
      "CREATE TABLE t (a INT) USING DELTA; INSERT INTO t VALUES (1); SELECT * FROM missing; INSERT "
      "INTO t VALUES (2)");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), "TABLE_OR_VIEW_NOT_FOUND");
  auto c = Run("SELECT count(*) FROM t");
  EXPECT_EQ(Cell(*c, 0, 0), "1");
}

TEST_F(EngineTest, DescribeHistoryListsEveryCommitNewestFirst) {
  Run("CREATE TABLE h (id INT, p STRING) USING DELTA PARTITIONED BY (p)");
  clock_->AdvanceHours(1);
  Run("INSERT INTO h VALUES (1, 'a'), (2, 'b')");
  clock_->AdvanceHours(1);
  Run("INSERT OVERWRITE h VALUES (3, 'c')");
  auto r = Run("DESCRIBE HISTORY h");
  ASSERT_EQ(r->num_rows(), 3u);
  ASSERT_EQ(r->schema().size(), 15u);
  EXPECT_EQ(r->schema()[0].name, "version");
  EXPECT_EQ(r->schema()[12].name, "operationMetrics");
  EXPECT_EQ(Cell(*r, 0, 0), "2");
  EXPECT_EQ(Cell(*r, 0, 4), "WRITE");
  EXPECT_EQ(Cell(*r, 1, 4), "WRITE");
  EXPECT_EQ(Cell(*r, 2, 4), "CREATE TABLE");
  EXPECT_NE(Cell(*r, 0, 5).find("mode -> Overwrite"), std::string::npos) << Cell(*r, 0, 5);
  EXPECT_NE(Cell(*r, 1, 12).find("numOutputRows -> 2"), std::string::npos) << Cell(*r, 1, 12);
  EXPECT_EQ(Cell(*r, 1, 11), "true");  // blind append
  EXPECT_EQ(Cell(*r, 0, 9), "1");      // readVersion
  auto limited = Run("DESCRIBE HISTORY h LIMIT 1");
  EXPECT_EQ(limited->num_rows(), 1u);
}

TEST_F(EngineTest, DescribeDetailReportsFilesSizesAndProtocol) {
  Run("CREATE TABLE d (id INT, p STRING) USING DELTA PARTITIONED BY (p) TBLPROPERTIES "
      "('delta.appendOnly' = 'false')");
  Run("INSERT INTO d VALUES (1, 'a'), (2, 'b')");
  auto r = Run("DESCRIBE DETAIL d");
  ASSERT_EQ(r->num_rows(), 1u);
  EXPECT_EQ(Cell(*r, 0, 0), "delta");
  EXPECT_EQ(Cell(*r, 0, 2), "spark_catalog.default.d");
  EXPECT_EQ(Cell(*r, 0, 7), "[p]");
  EXPECT_EQ(Cell(*r, 0, 9), "2");  // one file per partition
  EXPECT_NE(Cell(*r, 0, 11).find("delta.enableDeletionVectors -> true"), std::string::npos)
      << Cell(*r, 0, 11);
  EXPECT_EQ(Cell(*r, 0, 12), "3");  // deletion vectors need reader 3 / writer 7
  EXPECT_EQ(Cell(*r, 0, 13), "7");
  EXPECT_NE(Cell(*r, 0, 14).find("deletionVectors"), std::string::npos);
}

TEST_F(EngineTest, TimeTravelByTimestampUsesCommitTimes) {
  Run("CREATE TABLE tt (id INT) USING DELTA");  // at T
  clock_->AdvanceHours(1);
  Run("INSERT INTO tt VALUES (1)");  // T+1h
  clock_->AdvanceHours(1);
  Run("INSERT INTO tt VALUES (2)");  // T+2h
  // Commit timestamps are the commit files' modification times (no in-commit timestamps):
  // resolve the exact timestamp DESCRIBE HISTORY reports for version 1.
  auto hist = Run("DESCRIBE HISTORY tt");
  ASSERT_EQ(hist->num_rows(), 3u);
  std::string v1 = Cell(*hist, 1, 1);
  auto at1 = Run("SELECT count(*) FROM tt TIMESTAMP AS OF '" + v1 + "'");
  EXPECT_EQ(Cell(*at1, 0, 0), "1");
  auto late = con_->Query("SELECT * FROM tt TIMESTAMP AS OF '2999-01-01 00:00:00'");
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().error_class(), "DELTA_TIMESTAMP_GREATER_THAN_COMMIT");
  auto early = con_->Query("SELECT * FROM tt TIMESTAMP AS OF '1999-01-01'");
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.status().error_class(), "DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION");
}

TEST_F(EngineTest, VacuumDryRunThenRealRunWithTheRetentionCheckOff) {
  Run("CREATE TABLE v (id INT) USING DELTA");
  Run("INSERT INTO v VALUES (1), (2)");
  Run("INSERT OVERWRITE v VALUES (3)");  // the first file is now a tombstone
  auto too_short = con_->Query("VACUUM v RETAIN 0 HOURS");
  ASSERT_FALSE(too_short.ok());
  EXPECT_EQ(too_short.status().error_class(), "DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT");
  Run("SET spark.databricks.delta.retentionDurationCheck.enabled = false");
  clock_->AdvanceHours(1);
  auto dry = Run("VACUUM v RETAIN 0 HOURS DRY RUN");
  ASSERT_EQ(dry->num_rows(), 1u);
  EXPECT_NE(Cell(*dry, 0, 0).find(".parquet"), std::string::npos);
  auto real = Run("VACUUM v RETAIN 0 HOURS");
  ASSERT_EQ(real->num_rows(), 1u);
  auto after = Run("VACUUM v RETAIN 0 HOURS DRY RUN");
  EXPECT_EQ(after->num_rows(), 0u);
  auto rows = Run("SELECT id FROM v");
  EXPECT_EQ(Cell(*rows, 0, 0), "3");
  auto hist = Run("DESCRIBE HISTORY v LIMIT 2");
  EXPECT_EQ(Cell(*hist, 0, 4), "VACUUM END");
  EXPECT_EQ(Cell(*hist, 1, 4), "VACUUM START");
}

// Seed 001's compliance flow, checked at the byte level: after DELETE (DV) → REORG PURGE →
// VACUUM RETAIN 0 HOURS, no data file left in the table directory holds the deleted value
// (every file decompressed and every row read), and no DV file remains.
TEST_F(EngineTest, CompliancePurgeLeavesTheDeletedValueInNoDataFile) {
  Run("CREATE TABLE pii (id INT, email STRING) USING DELTA");
  Run("INSERT INTO pii VALUES (1, 'keep@example.com'), (2, 'erase-me@example.com')");
  Run("INSERT INTO pii VALUES (3, 'other@example.com')");
  Run("DELETE FROM pii WHERE email = 'erase-me@example.com'");
  auto scan_files = [&](bool* found, int* dv_files, int* data_files) {
    *found = false;
    *dv_files = *data_files = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir_ + "/wh/pii")) {
      std::string name = e.path().filename().string();
      if (e.path().string().find("_delta_log") != std::string::npos) continue;
      if (name.rfind("deletion_vector_", 0) == 0) ++*dv_files;
      if (e.path().extension() != ".parquet") continue;
      ++*data_files;
      auto f = parquet::ParquetFile::OpenPath(e.path().string());
      ASSERT_TRUE(f.ok()) << f.status().ToString();
      for (int rg = 0; rg < (*f)->num_row_groups(); ++rg) {
        DataChunk c;
        ASSERT_TRUE((*f)->ReadRowGroup(rg, {}, &c).ok());
        for (size_t i = 0; i < c.size(); ++i) {
          for (const auto& v : c.GetRow(i)) {
            if (v.ToString() == "erase-me@example.com") *found = true;
          }
        }
      }
    }
  };
  bool found;
  int dvs, files;
  scan_files(&found, &dvs, &files);
  EXPECT_TRUE(found) << "before REORG the value is only masked by a deletion vector";
  EXPECT_EQ(dvs, 1);
  Run("REORG TABLE pii APPLY (PURGE)");
  Run("SET spark.databricks.delta.retentionDurationCheck.enabled = false");
  clock_->AdvanceMillis(1000);
  Run("VACUUM pii RETAIN 0 HOURS");
  scan_files(&found, &dvs, &files);
  EXPECT_FALSE(found);
  EXPECT_EQ(dvs, 0);
  EXPECT_EQ(files, 2);
  auto rows = Run("SELECT id FROM pii ORDER BY id");
  ASSERT_EQ(rows->num_rows(), 2u);
  EXPECT_EQ(Cell(*rows, 0, 0), "1");
  EXPECT_EQ(Cell(*rows, 1, 0), "3");
  // Versions before the purge are gone with their files: a clear error names the missing file.
  auto old = con_->Query("SELECT * FROM pii VERSION AS OF 1");
  EXPECT_FALSE(old.ok());

  // What remains where: the log still holds the old files' statistics (the value was a min/max
  // of the first file), until log cleanup drops the commits older than the log retention at a
  // checkpoint; checkpoints keep no statistics of removed files.
  auto log_mentions = [&](const std::string& needle) {
    int hits = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir_ + "/wh/pii/_delta_log")) {
      if (e.path().extension() == ".json") {
        std::ifstream in(e.path());
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        hits += text.find(needle) != std::string::npos;
      } else if (e.path().extension() == ".parquet") {
        auto f = parquet::ParquetFile::OpenPath(e.path().string());
        EXPECT_TRUE(f.ok()) << f.status().ToString();
        if (!f.ok()) continue;
        for (int rg = 0; rg < (*f)->num_row_groups(); ++rg) {
          DataChunk c;
          EXPECT_TRUE((*f)->ReadRowGroup(rg, {}, &c).ok());
          for (size_t i = 0; i < c.size(); ++i) {
            for (const auto& v : c.GetRow(i))
              hits += v.ToString().find(needle) != std::string::npos;
          }
        }
      }
    }
    return hits;
  };
  EXPECT_GT(log_mentions("erase-me@example.com"), 0);
  Run("ALTER TABLE pii SET TBLPROPERTIES ('delta.logRetentionDuration' = 'interval 1 hours', "
      "'delta.checkpointInterval' = '1')");
  clock_->AdvanceMillis(2 * 3600 * 1000);
  Run("INSERT INTO pii VALUES (4, 'new@example.com')");  // checkpoint, then log cleanup
  EXPECT_EQ(log_mentions("erase-me@example.com"), 0);
  EXPECT_EQ(Cell(*Run("SELECT count(*) FROM pii"), 0, 0), "3");
}

// MERGE without NOT MATCHED BY SOURCE reads only the target files whose key statistics overlap
// the source keys: with the other file damaged on storage the MERGE still succeeds (it is never
// opened), and reads that do need it fail.
TEST_F(EngineTest, MergeSkipsTargetFilesOutsideTheSourceKeyRange) {
  Run("CREATE TABLE tgt (k INT, v STRING) USING DELTA");
  Run("INSERT INTO tgt VALUES (1, 'a'), (2, 'b'), (3, 'c')");
  Run("INSERT INTO tgt VALUES (100, 'x'), (101, 'y')");
  std::string far_file;
  for (const auto& e : std::filesystem::directory_iterator(dir_ + "/wh/tgt")) {
    if (e.path().extension() != ".parquet") continue;
    auto f = parquet::ParquetFile::OpenPath(e.path().string());
    ASSERT_TRUE(f.ok());
    DataChunk c;
    ASSERT_TRUE((*f)->ReadRowGroup(0, {}, &c).ok());
    if (c.GetRow(0)[0].ToString() == "100") far_file = e.path().string();
  }
  ASSERT_FALSE(far_file.empty());
  std::filesystem::resize_file(far_file, 10);  // unreadable from now on
  // MERGE prunes its target under the size and files thresholds of dynamic file pruning, whose
  // defaults (10 GB, 10 files) exclude this table.
  Run("SET spark.databricks.optimizer.deltaTableSizeThreshold = 0");
  Run("SET spark.databricks.optimizer.deltaTableFilesThreshold = 0");
  Run("MERGE INTO tgt USING (SELECT * FROM VALUES (2, 'B'), (4, 'D') AS s(k, v)) s ON tgt.k = s.k "
      "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *");
  EXPECT_FALSE(con_->Query("SELECT count(*) FROM tgt").ok()) << "the damaged file is still live";
  auto rows = Run("SELECT k, v FROM tgt WHERE k < 50 ORDER BY k");
  ASSERT_EQ(rows->num_rows(), 4u);
  EXPECT_EQ(Cell(*rows, 1, 1), "B");
  EXPECT_EQ(Cell(*rows, 3, 0), "4");
  // NOT MATCHED BY SOURCE needs every target row: that MERGE must read the damaged file and fail.
  EXPECT_FALSE(con_->Query("MERGE INTO tgt USING (SELECT 2 AS k) s ON tgt.k = s.k "
                           "WHEN NOT MATCHED BY SOURCE THEN DELETE")
                   .ok());
}

TEST_F(EngineTest, RestoreReportsSparksMetricsAndHistory) {
  Run("CREATE TABLE r (id INT) USING DELTA");
  Run("INSERT INTO r VALUES (1), (2)");
  Run("INSERT INTO r VALUES (3)");
  Run("DELETE FROM r WHERE id = 3");  // removes the whole second file
  Run("OPTIMIZE r");                  // nothing to compact: one file
  auto out = Run("RESTORE TABLE r TO VERSION AS OF 2");
  ASSERT_EQ(out->schema().size(), 6u);
  EXPECT_EQ(out->schema()[0].name, "table_size_after_restore");
  EXPECT_EQ(Cell(*out, 0, 1), "2");  // num_of_files_after_restore
  EXPECT_EQ(Cell(*out, 0, 2), "0");  // num_removed_files
  EXPECT_EQ(Cell(*out, 0, 3), "1");  // num_restored_files
  EXPECT_EQ(Cell(*out, 0, 4), "0");  // removed_files_size
  EXPECT_NE(Cell(*out, 0, 5), "0");  // restored_files_size
  auto count = Run("SELECT count(*) FROM r");
  EXPECT_EQ(Cell(*count, 0, 0), "3");
  auto h = Run("DESCRIBE HISTORY r LIMIT 1");
  ASSERT_EQ(h->num_rows(), 1u);
  std::string row;
  for (const auto& v : h->Row(0)) row += v.ToString() + "|";
  EXPECT_NE(row.find("RESTORE"), std::string::npos) << row;
  EXPECT_NE(row.find("numRestoredFiles"), std::string::npos) << row;
  EXPECT_NE(row.find("version -> 2"), std::string::npos) << row;
  EXPECT_NE(row.find("RESTORE|{version -> 2}|NULL|NULL|NULL|3|Serializable|false"),
            std::string::npos)
      << row;
}

// Each ALTER TABLE form is one commit with Spark's operation name and parameters.
TEST_F(EngineTest, AlterTableHistoryHasSparksOperationsAndParameters) {
  Run("CREATE TABLE a (id INT, v STRING) USING DELTA");
  Run("ALTER TABLE a SET TBLPROPERTIES ('delta.appendOnly' = 'false', 'k' = 'v')");
  Run("ALTER TABLE a UNSET TBLPROPERTIES IF EXISTS ('k')");
  Run("ALTER TABLE a ADD COLUMNS (c BIGINT COMMENT 'n' FIRST)");
  Run("ALTER TABLE a ADD CONSTRAINT pos CHECK (id > 0)");
  Run("ALTER TABLE a DROP CONSTRAINT pos");
  Run("ALTER TABLE a SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name')");
  Run("ALTER TABLE a RENAME COLUMN v TO w");
  Run("ALTER TABLE a DROP COLUMN w");
  Run("ALTER TABLE a ALTER COLUMN id COMMENT 'the id'");
  auto h = Run("DESCRIBE HISTORY a");
  std::vector<std::string> want = {
      "CHANGE COLUMN|{column -> "
      "{\"name\":\"id\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{",
      "DROP COLUMNS|{columns -> [\"w\"]}",
      "RENAME COLUMN|{oldColumnPath -> v, newColumnPath -> w}",
      "SET TBLPROPERTIES|{properties -> {\"delta.columnMapping.mode\":\"name\"}}",
      "DROP CONSTRAINT|{name -> pos, expr -> id > 0, existed -> true}",
      "ADD CONSTRAINT|{name -> pos, expr -> id > 0}",
      "ADD COLUMNS|{columns -> "
      "[{\"column\":{\"name\":\"c\",\"type\":\"long\",\"nullable\":true,\"metadata\":{\"comment\":"
      "\"n\"}},\"position\":\"FIRST\"}]}",
      "UNSET TBLPROPERTIES|{properties -> [\"k\"], ifExists -> true}",
      "SET TBLPROPERTIES|{properties -> {\"delta.appendOnly\":\"false\",\"k\":\"v\"}}",
  };
  ASSERT_EQ(h->num_rows(), want.size() + 1);
  for (size_t i = 0; i < want.size(); ++i) {
    std::string row = Cell(*h, i, 4) + "|" + Cell(*h, i, 5);
    EXPECT_EQ(row.rfind(want[i], 0), 0u) << row;
    EXPECT_EQ(Cell(*h, i, 11), "false");  // isBlindAppend
  }
  auto cols = Run("SHOW COLUMNS IN a");
  ASSERT_EQ(cols->num_rows(), 2u);
  EXPECT_EQ(Cell(*cols, 0, 0), "c");
  EXPECT_EQ(Cell(*cols, 1, 0), "id");
}

}  // namespace
}  // namespace silt

namespace silt {
namespace {

// DatabaseOptions.memory_limit_bytes bounds every statement of the database (the parent of each
// statement's tracker); silt.memory.limit lowers it per session; a failure releases everything.
TEST(EngineMemoryLimitTest, DatabaseLimitAndSessionLimit) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "silt-engine-mem-XXXXXX").string();
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  std::string dir = tmpl;
  {
    DatabaseOptions opts;
    opts.warehouse = dir + "/wh";
    opts.threads = 2;
    opts.memory_limit_bytes = 2 << 20;
    auto db = Database::Open(opts);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    Connection con(*db);
    ASSERT_TRUE(con.Query("CREATE TABLE t (id BIGINT, s STRING) USING DELTA").ok());
    // INSERT … SELECT holds the rows it writes (charged to the limit): four smaller inserts.
    for (int part = 0; part < 4; ++part) {
      auto ins =
          con.Query("INSERT INTO t SELECT id, concat('v', id) FROM range(" +
                    std::to_string(part * 50000) + ", " + std::to_string((part + 1) * 50000) + ")");
      ASSERT_TRUE(ins.ok()) << ins.status().ToString();
    }
    // The errors without spilling (test/sql/spill/ and SpillingUnderTheDatabaseLimit below have
    // the spilling operators).
    ASSERT_TRUE(con.Query("SET silt.spill.enabled = false").ok());
    auto r = con.Query("SELECT count(*) FROM (SELECT s FROM t ORDER BY s)");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().error_class(), "SILT_MEMORY_LIMIT_EXCEEDED");
    EXPECT_NE(r.status().message().find(
                  "Sort: memory limit of 2.0 MiB (2097152 bytes) for the database exceeded"),
              std::string::npos)
        << r.status().ToString();
    // A session limit above the database's does not lift it.
    ASSERT_TRUE(con.Query("SET silt.memory.limit = 1GB").ok());
    r = con.Query("SELECT count(DISTINCT s) FROM t");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("HashAggregate: memory limit of 2.0 MiB"),
              std::string::npos)
        << r.status().ToString();
    // A lower one applies first.
    ASSERT_TRUE(con.Query("SET silt.memory.limit = 64KB").ok());
    r = con.Query("SELECT count(*) FROM (SELECT id FROM t ORDER BY id)");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("memory limit of 64.0 KiB (65536 bytes) for the query"),
              std::string::npos)
        << r.status().ToString();
    // Small statements still run, and nothing stayed reserved.
    ASSERT_TRUE(con.Query("RESET silt.memory.limit").ok());
    r = con.Query("SELECT max(id) FROM t");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)->Row(0)[0].ToString(), "199999");
  }
  std::filesystem::remove_all(dir);
}

// Under DatabaseOptions.memory_limit_bytes alone the operators spill to
// DatabaseOptions.temp_directory, and the statement's spill directory is gone afterwards.
TEST(EngineMemoryLimitTest, SpillingUnderTheDatabaseLimit) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "silt-engine-spill-XXXXXX").string();
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  std::string dir = tmpl;
  {
    DatabaseOptions opts;
    opts.warehouse = dir + "/wh";
    opts.threads = 2;
    opts.memory_limit_bytes = 4 << 20;
    opts.temp_directory = dir + "/spill";
    auto db = Database::Open(opts);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    Connection con(*db);
    // (Plain columns, nothing above the sort that reserves: with only a database limit a spilling
    // operator fills up to it, so an expression or aggregate beside it can still hit the limit;
    // a statement limit leaves them a quarter, see SpillBudget.)
    auto r = con.Query(
        "SELECT count(*), min(id), max(id) FROM (SELECT id FROM range(300000) ORDER BY id DESC)");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)->Row(0)[0].ToString(), "300000");
    EXPECT_EQ((*r)->Row(0)[2].ToString(), "299999");
    ASSERT_TRUE(std::filesystem::exists(dir + "/spill"));
    EXPECT_TRUE(std::filesystem::is_empty(dir + "/spill"));
  }
  std::filesystem::remove_all(dir);
}

// Long commands report progress through the connection's handler (the CLI draws it on stderr).
TEST_F(EngineTest, VacuumReportsProgressToTheConnectionsHandler) {
  Run("CREATE TABLE v (id INT) USING DELTA");
  Run("INSERT INTO v VALUES (1)");
  std::vector<std::string> lines;
  con_->SetProgressHandler([&](const std::string& line) { lines.push_back(line); });
  Run("VACUUM v");
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front().rfind("VACUUM: 0 of 0 deleted, ", 0), 0u) << lines.front();
  con_->SetProgressHandler(nullptr);
  lines.clear();
  Run("VACUUM v");
  EXPECT_TRUE(lines.empty());
}

// SHOW CREATE TABLE's multi-line text (the sqllogictest format cannot hold multi-line values).
TEST_F(EngineTest, ShowCreateTableUsesSparksLayout) {
  Run("CREATE TABLE s (id INT NOT NULL, name STRING COMMENT 'the name', `odd col` BIGINT, "
      "d STRUCT<x: INT, y: ARRAY<STRING>>, m MAP<STRING, DECIMAL(10,2)>, p STRING) USING DELTA "
      "PARTITIONED BY (p) COMMENT 'it\\'s a table' TBLPROPERTIES ('my.key' = 'v')");
  auto r = Run("SHOW CREATE TABLE s");
  ASSERT_EQ(r->num_rows(), 1u);
  EXPECT_EQ(r->schema()[0].name, "createtab_stmt");
  std::string loc = "file:" + dir_ + "/wh/s";
  EXPECT_EQ(Cell(*r, 0, 0),
            "CREATE TABLE spark_catalog.default.s (\n"
            "  id INT NOT NULL,\n"
            "  name STRING COMMENT 'the name',\n"
            "  `odd col` BIGINT,\n"
            "  d STRUCT<x: INT, y: ARRAY<STRING>>,\n"
            "  m MAP<STRING, DECIMAL(10,2)>,\n"
            "  p STRING)\n"
            "USING delta\n"
            "PARTITIONED BY (p)\n"
            "COMMENT 'it\\'s a table'\n"
            "LOCATION '" +
                loc +
                "'\n"
                "TBLPROPERTIES (\n"
                "  'delta.enableDeletionVectors' = 'true',\n"
                "  'delta.feature.appendOnly' = 'supported',\n"
                "  'delta.feature.deletionVectors' = 'supported',\n"
                "  'delta.feature.invariants' = 'supported',\n"
                "  'delta.minReaderVersion' = '3',\n"
                "  'delta.minWriterVersion' = '7',\n"
                "  'my.key' = 'v')\n");
}

}  // namespace
}  // namespace silt
