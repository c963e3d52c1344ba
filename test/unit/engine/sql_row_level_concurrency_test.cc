// Row-level concurrency through SQL: writers on threads, each with its own Database and
// Connection, run DELETE / UPDATE / MERGE on different rows of the same files of one Delta table
// (by path). All commit, and the table equals a serial run row for row; writers on the same
// rows conflict with DELTA_CONCURRENT_DELETE_DELETE.
#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <string>
#include <thread>
#include <vector>

#include "silt/silt.h"
#include "unit/ops/dml_test_util.h"

namespace silt {
namespace {

using ops::testing::TempDir;

std::shared_ptr<Database> OpenDb(const std::string& warehouse) {
  DatabaseOptions o;
  o.warehouse = warehouse;
  o.threads = 1;
  o.tune_allocator = false;
  auto db = Database::Open(o);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return db.ok() ? *db : nullptr;
}

void Exec(Connection& con, const std::string& sql) {
  auto r = con.Query(sql);
  ASSERT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
}

std::vector<std::string> Rows(Connection& con, const std::string& sql) {
  std::vector<std::string> out;
  auto r = con.Query(sql);
  EXPECT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
  if (!r.ok()) return out;
  for (size_t i = 0; i < (*r)->num_rows(); ++i) {
    std::string s;
    for (const Value& v : (*r)->Row(i)) s += (s.empty() ? "" : "|") + v.ToString();
    out.push_back(s);
  }
  return out;
}

// (id BIGINT, v STRING), DVs and row tracking on, 400 rows per file.
void CreateTable(Connection& con, const std::string& ref, int64_t rows) {
  Exec(con, "CREATE TABLE " + ref +
                " (id BIGINT, v STRING) USING DELTA TBLPROPERTIES ("
                "'delta.enableDeletionVectors' = 'true', 'delta.enableRowTracking' = 'true')");
  for (int64_t lo = 0; lo < rows; lo += 400) {
    Exec(con, "INSERT INTO " + ref + " SELECT id, concat('v', id) FROM range(" +
                  std::to_string(lo) + ", " + std::to_string(std::min(rows, lo + 400)) + ")");
  }
}

// Writer w's statement on ids [w*100+10, w*100+19]: DELETE, UPDATE or MERGE by w % 3.
std::string Statement(const std::string& ref, int w) {
  const std::string lo = std::to_string(w * 100 + 10), hi = std::to_string(w * 100 + 19);
  switch (w % 3) {
    case 0:
      return "DELETE FROM " + ref + " WHERE id BETWEEN " + lo + " AND " + hi;
    case 1:
      return "UPDATE " + ref + " SET v = concat('u', id) WHERE id BETWEEN " + lo + " AND " + hi;
    default:
      return "MERGE INTO " + ref + " t USING (SELECT id FROM range(" + lo + ", " + hi +
             " + 1)) s ON t.id = s.id WHEN MATCHED AND t.id % 2 = 0 THEN DELETE "
             "WHEN MATCHED THEN UPDATE SET v = concat('m', t.id)";
  }
}

// MERGE prunes target files by the source keys (and so reads only their files) on any table
// size: the dynamic file pruning thresholds down to one byte and one file.
void PruneSmallTables(Connection& con) {
  Exec(con, "SET spark.databricks.optimizer.deltaTableSizeThreshold = 1");
  Exec(con, "SET spark.databricks.optimizer.deltaTableFilesThreshold = 1");
}

void RunWriters(int n) {
  TempDir dir;
  const std::string ref = "delta.`" + dir.path() + "/t`";
  const std::string serial_ref = "delta.`" + dir.path() + "/serial`";
  const int64_t rows = std::max(n, 4) * 100;
  auto setup_db = OpenDb(dir.path() + "/wh");
  ASSERT_NE(setup_db, nullptr);
  Connection setup(setup_db);
  PruneSmallTables(setup);
  CreateTable(setup, ref, rows);
  CreateTable(setup, serial_ref, rows);
  const size_t commits_before = Rows(setup, "DESCRIBE HISTORY " + ref).size();

  std::vector<std::string> errors(n);
  std::barrier sync(n);
  std::vector<std::thread> threads;
  for (int w = 0; w < n; ++w) {
    threads.emplace_back([&, w] {
      auto db = OpenDb(dir.path() + "/wh" + std::to_string(w));
      Connection con(db);
      PruneSmallTables(con);
      sync.arrive_and_wait();
      auto r = con.Query(Statement(ref, w));
      if (!r.ok()) errors[w] = r.status().ToString();
    });
  }
  for (auto& th : threads) th.join();
  for (int w = 0; w < n; ++w) EXPECT_EQ(errors[w], "") << "writer " << w;

  for (int w = 0; w < n; ++w) Exec(setup, Statement(serial_ref, w));
  const std::string q = "SELECT id, v FROM ";
  auto got = Rows(setup, q + ref + " ORDER BY id");
  EXPECT_EQ(got, Rows(setup, q + serial_ref + " ORDER BY id"));
  EXPECT_LT(got.size(), static_cast<size_t>(rows));
  // One commit per writer.
  EXPECT_EQ(Rows(setup, "DESCRIBE HISTORY " + ref).size(), commits_before + n);
}

TEST(RowLevelConcurrencySql, TwoWritersOnDisjointRowsBothCommit) { RunWriters(2); }
TEST(RowLevelConcurrencySql, EightWritersDeleteUpdateMergeDisjointRowsAllCommit) { RunWriters(8); }

// Two writers deleting overlapping rows: the loser fails with the Delta conflict class (or,
// if it happened to read after the winner's commit, deletes only what is left); the table
// never loses a row neither asked for.
TEST(RowLevelConcurrencySql, OverlappingRowsConflict) {
  TempDir dir;
  const std::string ref = "delta.`" + dir.path() + "/t`";
  auto setup_db = OpenDb(dir.path() + "/wh");
  ASSERT_NE(setup_db, nullptr);
  Connection setup(setup_db);
  CreateTable(setup, ref, 400);
  std::vector<Status> results(2);
  std::barrier sync(2);
  std::vector<std::thread> threads;
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&, w] {
      auto db = OpenDb(dir.path() + "/wh" + std::to_string(w));
      Connection con(db);
      sync.arrive_and_wait();
      auto r = con.Query(w == 0 ? "UPDATE " + ref + " SET v = 'a' WHERE id BETWEEN 10 AND 20"
                                : "DELETE FROM " + ref + " WHERE id BETWEEN 15 AND 25");
      results[w] = r.ok() ? Status::OK() : r.status();
    });
  }
  for (auto& th : threads) th.join();
  int failed = 0;
  for (const Status& s : results) {
    if (s.ok()) continue;
    ++failed;
    EXPECT_TRUE(s.error_class() == "DELTA_CONCURRENT_DELETE_DELETE" ||
                s.error_class() == "DELTA_CONCURRENT_APPEND")
        << s.ToString();
  }
  EXPECT_LE(failed, 1);
  auto count = Rows(setup, "SELECT count(*) FROM " + ref + " WHERE id < 10 OR id > 25");
  EXPECT_EQ(count, std::vector<std::string>{"384"});
}

}  // namespace
}  // namespace silt
