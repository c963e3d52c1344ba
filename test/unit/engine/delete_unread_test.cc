// DELETE drops a file unread when its statistics (min/max/nullCount, partition values) prove that
// every row matches. A file that would be read is overwritten with garbage first: the statement
// succeeding proves it was not opened. The reading path (the same condition plus a conjunct the
// statistics cannot prove, abs(id) >= 0) gives the same rows and the same history metrics.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "silt/silt.h"

namespace silt {
namespace {

class DeleteUnreadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "silt-delunread-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    DatabaseOptions opts;
    opts.warehouse = dir_ + "/wh";
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
  std::string Table(const std::string& name) { return "delta.`" + dir_ + "/" + name + "`"; }
  // One file per INSERT: ids [lo, lo + 10), n = id except n NULL where id is in `null_ids`, p the
  // partition value.
  void MakeTable(const std::string& name, const std::string& props) {
    const std::string t = Table(name);
    Run("CREATE TABLE " + t +
        " (id BIGINT, n INT, s STRING, p STRING) USING DELTA PARTITIONED BY (p) TBLPROPERTIES (" +
        props + ")");
    Run("INSERT INTO " + t + " SELECT id, CAST(id AS INT), concat('s', id), 'a' FROM range(0, 10)");
    Run("INSERT INTO " + t +
        " SELECT id, IF(id = 15, NULL, CAST(id AS INT)), concat('s', id), 'a' FROM range(10, 20)");
    Run("INSERT INTO " + t +
        " SELECT id, CAST(id AS INT), concat('s', id), 'b' FROM range(20, 30)");
    Run("INSERT INTO " + t + " SELECT id, NULL, concat('s', id), 'b' FROM range(30, 40)");
  }
  // The data files holding rows of `where`, overwritten with bytes that are no Parquet file.
  void Poison(const std::string& table, const std::string& where) {
    auto r = Run("SELECT DISTINCT input_file_name() FROM " + table + " WHERE " + where);
    ASSERT_GT(r->num_rows(), 0u);
    for (size_t i = 0; i < r->num_rows(); ++i) {
      std::string path = r->Row(i)[0].str();
      if (path.rfind("file://", 0) == 0) path = path.substr(7);
      ASSERT_TRUE(std::filesystem::exists(path)) << path;
      std::ofstream(path, std::ios::trunc | std::ios::binary) << "not a parquet file";
    }
  }
  std::string Rows(const std::string& table) {
    auto r = Run("SELECT id, n FROM " + table + " ORDER BY id");
    std::string out;
    for (size_t i = 0; i < r->num_rows(); ++i)
      out += r->Row(i)[0].ToString() + ":" + r->Row(i)[1].ToString() + " ";
    return out;
  }
  // The last commit's operationMetrics without the timings.
  std::map<std::string, std::string> Metrics(const std::string& table) {
    auto r = Run("DESCRIBE HISTORY " + table + " LIMIT 1");
    std::map<std::string, std::string> out;
    if (r->num_rows() != 1 || r->schema().size() < 13) return out;
    const std::vector<Value> row = r->Row(0);
    const std::vector<Value>& kv = row[12].children();  // key0, value0, key1, ...
    for (size_t i = 0; i + 1 < kv.size(); i += 2) {
      const std::string k = kv[i].str();
      if (k.size() > 6 && k.compare(k.size() - 6, 6, "TimeMs") == 0) continue;
      out[k] = kv[i + 1].str();
    }
    return out;
  }
  int64_t Affected(const std::string& sql) {
    auto r = Run(sql);
    return r->num_rows() == 1 ? r->Row(0)[0].integer() : -1;
  }

  std::string dir_;
  std::shared_ptr<Database> db_;
  std::unique_ptr<Connection> con_;
};

// Each case: a condition, the rows of the files it proves entirely matched (poisoned on the
// proving table; the DELETE removes them, so the rows left are comparable), and the expected
// deleted count.
struct Case {
  const char* where;
  const char* proven_files;  // nullptr: no file is proven (all candidates are read)
  int64_t deleted;
};
const Case kCases[] = {
    {"id < 10", "id < 10", 10},  // max < 10
    {"id >= 20 AND p = 'b' AND n IS NOT NULL", "id BETWEEN 20 AND 29", 10},
    {"n < 100", "id < 10 OR id BETWEEN 20 AND 29", 29},  // the file with a NULL n is read
    {"n IS NULL", "id >= 30", 11},                       // nullCount = numRecords
    {"id IN (1, 2) OR id < 10", "id < 10", 10},          // an OR branch proves it
    {"id <> 50 AND s >= 's'", "id >= 0", 40},            // strings: min/max
    {"id = 3", nullptr, 1},                              // min <> max: read
};

TEST_F(DeleteUnreadTest, StatsProvenFilesAreDroppedUnreadWithTheReadingPathsMetrics) {
  int k = 0;
  for (const char* props :
       {"'delta.enableDeletionVectors' = 'true'", "'delta.enableDeletionVectors' = 'false'"}) {
    for (const Case& c : kCases) {
      SCOPED_TRACE(std::string(props) + " WHERE " + c.where);
      const std::string proving = "p" + std::to_string(k), reading = "r" + std::to_string(k++);
      MakeTable(proving, props);
      MakeTable(reading, props);
      if (c.proven_files) Poison(Table(proving), c.proven_files);
      EXPECT_EQ(Affected("DELETE FROM " + Table(proving) + " WHERE " + c.where), c.deleted);
      EXPECT_EQ(
          Affected("DELETE FROM " + Table(reading) + " WHERE (" + c.where + ") AND abs(id) >= 0"),
          c.deleted);
      auto m = Metrics(Table(proving));
      EXPECT_EQ(m, Metrics(Table(reading)));
      EXPECT_EQ(m["numDeletedRows"], std::to_string(c.deleted));
      EXPECT_EQ(Rows(Table(proving)), Rows(Table(reading)));
    }
  }
}

TEST_F(DeleteUnreadTest, NullRowsAreNotProvenAndSurvive) {
  MakeTable("t", "'delta.enableDeletionVectors' = 'true'");
  // The file of ids 10..19 has a NULL n: reading it is required (poisoned, the statement fails).
  Poison(Table("t"), "id BETWEEN 10 AND 19");
  auto r = con_->Query("DELETE FROM " + Table("t") + " WHERE n >= 0");
  EXPECT_FALSE(r.ok());
  MakeTable("u", "'delta.enableDeletionVectors' = 'true'");
  EXPECT_EQ(Affected("DELETE FROM " + Table("u") + " WHERE n >= 0"), 29);
  EXPECT_EQ(Rows(Table("u")),
            "15:NULL 30:NULL 31:NULL 32:NULL 33:NULL 34:NULL 35:NULL 36:NULL "
            "37:NULL 38:NULL 39:NULL ");
}

// A file with a deletion vector: numDeletedRows = numRecords minus the rows the DV already hides.
TEST_F(DeleteUnreadTest, DeletionVectorRowsAreNotCountedTwice) {
  for (const char* name : {"proving", "reading"}) {
    MakeTable(name, "'delta.enableDeletionVectors' = 'true'");
    EXPECT_EQ(Affected("DELETE FROM " + Table(name) + " WHERE id IN (2, 4, 6)"), 3);
  }
  Poison(Table("proving"), "id < 10");
  EXPECT_EQ(Affected("DELETE FROM " + Table("proving") + " WHERE id < 10"), 7);
  EXPECT_EQ(Affected("DELETE FROM " + Table("reading") + " WHERE id < 10 AND abs(id) >= 0"), 7);
  auto m = Metrics(Table("proving"));
  EXPECT_EQ(m, Metrics(Table("reading")));
  EXPECT_EQ(m["numDeletedRows"], "7");
  EXPECT_EQ(m["numDeletionVectorsRemoved"], "1");
  EXPECT_EQ(m["numRemovedFiles"], "1");
}

// UPDATE shares the filter: a proven file is read and every row updated without the condition
// being evaluated; the rows and metrics are the reading path's.
TEST_F(DeleteUnreadTest, UpdateOfProvenFilesMatchesTheReadingPath) {
  for (const char* name : {"proving", "reading"}) {
    MakeTable(name, "'delta.enableDeletionVectors' = 'true'");
    const std::string extra = std::string(name) == "reading" ? " AND abs(id) >= 0" : "";
    EXPECT_EQ(Affected("UPDATE " + Table(name) + " SET n = -n WHERE n < 100" + extra), 29);
  }
  EXPECT_EQ(Rows(Table("proving")), Rows(Table("reading")));
  EXPECT_EQ(Metrics(Table("proving")), Metrics(Table("reading")));
}

// Without statistics skipping nothing is proven (the files are read).
TEST_F(DeleteUnreadTest, StatsSkippingOffReadsTheFiles) {
  MakeTable("t", "'delta.enableDeletionVectors' = 'true'");
  Poison(Table("t"), "id < 10");
  Run("SET spark.databricks.delta.stats.skipping = false");
  EXPECT_FALSE(con_->Query("DELETE FROM " + Table("t") + " WHERE id < 10").ok());
}

}  // namespace
}  // namespace silt
