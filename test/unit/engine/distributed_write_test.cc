// silt::WriteWithWorkers / silt::RunDistributedWrite (silt/distributed.h): a statement committed
// on one connection with its rows written by others ("workers": connections with their own
// sessions, whose temporary view `src` holds their share of the rows). The outcome — rows, log
// shape, metrics — is the local statement's; errors keep their classes; a lost attempt's files
// are never referenced.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "silt/distributed.h"
#include "silt/silt.h"

namespace silt {
namespace {

class DistributedWriteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "silt-dwrite-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    DatabaseOptions opts;
    opts.warehouse = dir_ + "/wh";
    opts.threads = 2;
    auto db = Database::Open(opts);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = *db;
    con_ = std::make_unique<Connection>(db_);
    worker_ = std::make_unique<Connection>(db_);
    // The client binds over `src` with no rows (silt.dask: the DataFrame's meta).
    Run(*con_,
        "CREATE TEMPORARY VIEW src AS SELECT id, concat('p', id % 3) AS p, id * 0.5 AS v "
        "FROM range(0, 0)");
  }
  void TearDown() override {
    worker_.reset();
    con_.reset();
    db_.reset();
    std::filesystem::remove_all(dir_);
  }
  static std::unique_ptr<QueryResult> Run(Connection& con, const std::string& sql) {
    auto r = con.Query(sql);
    EXPECT_TRUE(r.ok()) << sql << "\n" << r.status().ToString();
    if (!r.ok()) return std::make_unique<QueryResult>(Schema{}, std::vector<DataChunk>{});
    return std::move(*r);
  }
  std::string Path(const std::string& name) { return dir_ + "/" + name; }
  std::string Table(const std::string& name) { return "delta.`" + Path(name) + "`"; }
  // The shares of the rows [0, 300): one per worker call, `src` redefined on the worker each time.
  WriteTaskRunner Shares(std::vector<std::string>* lost = nullptr, bool lose_first = false) {
    return [this, lost, lose_first](const std::string& task) -> Result<std::vector<std::string>> {
      std::vector<std::string> outputs;
      for (int k = 0; k < 3; ++k) {
        Run(*worker_,
            "CREATE OR REPLACE TEMPORARY VIEW src AS SELECT id, concat('p', id % 3) AS "
            "p, id * 0.5 AS v FROM range(" +
                std::to_string(k * 100) + ", " + std::to_string(k * 100 + 100) + ")");
        SILT_ASSIGN_OR_RETURN(std::string out, RunDistributedWrite(*worker_, statement_, task));
        if (lose_first && k == 0 && lost) {  // the attempt's output never arrives: retried
          lost->push_back(out);
          SILT_ASSIGN_OR_RETURN(out, RunDistributedWrite(*worker_, statement_, task));
        }
        outputs.push_back(out);
      }
      return outputs;
    };
  }
  Result<std::unique_ptr<QueryResult>> Distributed(const std::string& statement,
                                                   const WriteTaskRunner& run) {
    statement_ = statement;
    return WriteWithWorkers(*con_, statement, run);
  }
  // The same statement run locally over all the rows.
  void Local(const std::string& statement) {
    Run(*con_,
        "CREATE OR REPLACE TEMPORARY VIEW all_src AS SELECT id, concat('p', id % 3) AS p, "
        "id * 0.5 AS v FROM range(0, 300)");
    std::string s = statement;
    s.replace(s.rfind("src"), 3, "all_src");
    Run(*con_, s);
  }
  std::string Rows(const std::string& table) {
    auto r = Run(*con_, "SELECT * FROM " + table + " ORDER BY id");
    std::string out;
    for (size_t i = 0; i < r->num_rows(); ++i) {
      for (const Value& v : r->Row(i)) out += v.ToString() + ",";
      out += ";";
    }
    return out;
  }
  // The last commit's version, operation, parameters and metrics (no timings, file counts or
  // bytes: each share writes its own files).
  std::map<std::string, std::string> LastCommit(const std::string& table) {
    auto r = Run(*con_, "DESCRIBE HISTORY " + table + " LIMIT 1");
    std::map<std::string, std::string> out;
    if (r->num_rows() != 1) return out;
    const std::vector<Value> row = r->Row(0);
    for (size_t c = 0; c < r->schema().size(); ++c) {
      const std::string& name = r->schema()[c].name;
      if (name == "operationMetrics" && !row[c].is_null()) {
        const std::vector<Value>& kv = row[c].children();
        for (size_t i = 0; i + 1 < kv.size(); i += 2) {
          const std::string k = kv[i].str();
          if (k.ends_with("TimeMs") || k == "numFiles" || k == "numOutputBytes" ||
              k == "numRemovedFiles")
            continue;
          out["metric." + k] = kv[i + 1].str();
        }
      } else if (name == "version" || name == "operation" || name == "operationParameters" ||
                 name == "readVersion" || name == "isBlindAppend" || name == "isolationLevel") {
        out[name] = row[c].ToString();
      }
    }
    return out;
  }
  std::set<std::string> DataFiles(const std::string& name) {
    std::set<std::string> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(Path(name))) {
      if (e.path().extension() == ".parquet" &&
          e.path().string().find("_delta_log") == std::string::npos)
        out.insert(std::filesystem::relative(e.path(), Path(name)).string());
    }
    return out;
  }
  size_t LiveFiles(const std::string& table) {
    return Run(*con_, "SELECT DISTINCT input_file_name() FROM " + table)->num_rows();
  }

  std::string dir_;
  std::string statement_;
  std::shared_ptr<Database> db_;
  std::unique_ptr<Connection> con_;
  std::unique_ptr<Connection> worker_;
};

TEST_F(DistributedWriteTest, CtasAppendAndOverwriteCommitWhatTheLocalStatementsCommit) {
  for (const std::string& partitioning : {std::string(), std::string(" PARTITIONED BY (p)")}) {
    SCOPED_TRACE(partitioning);
    const std::string name = partitioning.empty() ? "plain" : "parts";
    // Live files after each statement: one per share (and partition value) written.
    const size_t per_write = partitioning.empty() ? 3 : 9;
    const size_t live[] = {per_write, 2 * per_write, per_write};
    size_t step = 0;
    for (const std::string& statement :
         {"CREATE TABLE {} USING DELTA" + partitioning + " AS SELECT * FROM src",
          std::string("INSERT INTO {} BY NAME SELECT * FROM src"),
          std::string("INSERT OVERWRITE {} BY NAME SELECT * FROM src")}) {
      SCOPED_TRACE(statement);
      auto fill = [&](const std::string& t) {
        std::string s = statement;
        s.replace(s.find("{}"), 2, t);
        return s;
      };
      const std::string dist = Table(name + "_dist"), local = Table(name + "_local");
      auto r = Distributed(fill(dist), Shares());
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      Local(fill(local));
      EXPECT_EQ(Rows(dist), Rows(local));
      EXPECT_EQ(LastCommit(dist), LastCommit(local));
      EXPECT_EQ(LiveFiles(dist), live[step++]);
    }
  }
}

TEST_F(DistributedWriteTest, RowsAreConvertedAndCheckedOnTheWorkers) {
  const std::string t = Table("checked");
  Run(*con_, "CREATE TABLE " + t +
                 " (id BIGINT, p STRING, v DOUBLE, w DOUBLE GENERATED ALWAYS AS (v * 2), "
                 "d STRING DEFAULT 'dflt') USING DELTA TBLPROPERTIES "
                 "('delta.feature.allowColumnDefaults' = 'supported')");
  Run(*con_, "ALTER TABLE " + t + " ADD CONSTRAINT small CHECK (id < 250)");
  auto bad = Distributed("INSERT INTO " + t + " (id, p, v) SELECT * FROM src", Shares());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().error_class(), "DELTA_VIOLATE_CONSTRAINT_WITH_VALUES");
  EXPECT_EQ(LastCommit(t)["version"], "1");  // nothing committed
  Run(*con_, "ALTER TABLE " + t + " DROP CONSTRAINT small");
  auto ok = Distributed("INSERT INTO " + t + " (id, p, v) SELECT * FROM src", Shares());
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  auto r = Run(*con_, "SELECT count(*), sum(w), min(d) FROM " + t);
  EXPECT_EQ(r->Row(0)[0].ToString(), "300");
  EXPECT_EQ(r->Row(0)[1].ToString(), "44850");  // sum(id) = 44850, w = id
  EXPECT_EQ(r->Row(0)[2].ToString(), "dflt");
}

TEST_F(DistributedWriteTest, ALostAttemptsFilesAreNeverReferenced) {
  const std::string t = Table("lost");
  std::vector<std::string> lost;
  auto r = Distributed("CREATE TABLE " + t + " USING DELTA AS SELECT * FROM src",
                       Shares(&lost, /*lose_first=*/true));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(LiveFiles(t), 3u);
  EXPECT_EQ(DataFiles("lost").size(), 4u);  // the lost attempt's file is left for VACUUM
  EXPECT_EQ(Run(*con_, "SELECT count(*) FROM " + t)->Row(0)[0].ToString(), "300");
}

TEST_F(DistributedWriteTest, TheTableChangingUnderTheWorkersFailsTheWrite) {
  const std::string t = Table("changed");
  Run(*con_, "CREATE TABLE " + t + " (id BIGINT, p STRING, v DOUBLE) USING DELTA");
  WriteTaskRunner alter_first = [&](const std::string& task) {
    Run(*worker_, "ALTER TABLE " + t + " ADD COLUMN x INT");
    return Shares()(task);
  };
  auto r = Distributed("INSERT INTO " + t + " BY NAME SELECT * FROM src", alter_first);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), "DELTA_METADATA_CHANGED");
  EXPECT_EQ(LastCommit(t)["operation"], "ADD COLUMNS");
  // The worker refused before writing (not only the commit's conflict check).
  EXPECT_TRUE(DataFiles("changed").empty());
}

TEST_F(DistributedWriteTest, ConflictsAreTheLocalStatements) {
  const std::string t = Table("conflict");
  Run(*con_, "CREATE TABLE " + t + " (id BIGINT, p STRING, v DOUBLE) USING DELTA");
  WriteTaskRunner append_first = [&](const std::string& task) {
    Run(*worker_, "INSERT INTO " + t + " VALUES (-1, 'x', 0.0)");
    return Shares()(task);
  };
  // A blind append commits after the user's append; an overwrite read the whole table.
  auto append = Distributed("INSERT INTO " + t + " BY NAME SELECT * FROM src", append_first);
  ASSERT_TRUE(append.ok()) << append.status().ToString();
  EXPECT_EQ(Run(*con_, "SELECT count(*) FROM " + t)->Row(0)[0].ToString(), "301");
  auto overwrite =
      Distributed("INSERT OVERWRITE " + t + " BY NAME SELECT * FROM src", append_first);
  ASSERT_FALSE(overwrite.ok());
  EXPECT_EQ(overwrite.status().error_class(), "DELTA_CONCURRENT_APPEND");
  EXPECT_EQ(Run(*con_, "SELECT count(*) FROM " + t)->Row(0)[0].ToString(), "302");
}

TEST_F(DistributedWriteTest, WhatItCannotRunIsRefused) {
  const std::string t = Table("refused");
  Run(*con_, "CREATE TABLE " + t +
                 " (id BIGINT GENERATED ALWAYS AS IDENTITY, p STRING, v DOUBLE)"
                 " USING DELTA");
  WriteTaskRunner none = [](const std::string&) -> Result<std::vector<std::string>> {
    ADD_FAILURE() << "no task should run";
    return std::vector<std::string>{};
  };
  const std::string plain = Table("plain");
  Run(*con_, "CREATE TABLE " + plain + " (id BIGINT, p STRING, v DOUBLE) USING DELTA");
  for (const std::string& s :
       {std::string("SELECT * FROM src"), "DELETE FROM " + t,
        "INSERT INTO " + t + " (p, v) SELECT p, v FROM src",
        "INSERT INTO " + plain + " REPLACE WHERE p = 'x' SELECT * FROM src",
        "CREATE TABLE " + Table("pq") + " USING parquet AS SELECT * FROM src"}) {
    auto r = Distributed(s, none);
    ASSERT_FALSE(r.ok()) << s;
    EXPECT_EQ(r.status().error_class(), "NOT_IMPLEMENTED") << s << ": " << r.status().ToString();
  }
  // Outputs that are not a task's.
  const std::string u = Table("foreign");
  WriteTaskRunner foreign = [](const std::string&) -> Result<std::vector<std::string>> {
    return std::vector<std::string>{R"({"job":"other","rows":0,"added":[]})"};
  };
  auto r = Distributed("CREATE TABLE " + u + " USING DELTA AS SELECT * FROM src", foreign);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), "SILT_INVALID_DISTRIBUTED_TASK");
  // A worker's statement writing another table than the task's.
  const std::string other = Table("other");
  Run(*con_, "CREATE TABLE " + other + " (id BIGINT, p STRING, v DOUBLE) USING DELTA");
  Run(*worker_, "CREATE OR REPLACE TEMPORARY VIEW src AS SELECT 1L AS id, 'a' AS p, 1.0D AS v");
  WriteTaskRunner elsewhere = [&](const std::string& task) -> Result<std::vector<std::string>> {
    SILT_ASSIGN_OR_RETURN(
        std::string out,
        RunDistributedWrite(*worker_, "INSERT INTO " + plain + " SELECT * FROM src", task));
    return std::vector<std::string>{out};
  };
  auto misdirected =
      WriteWithWorkers(*con_, "INSERT INTO " + other + " SELECT * FROM src", elsewhere);
  ASSERT_FALSE(misdirected.ok());
  EXPECT_EQ(misdirected.status().error_class(), "SILT_INVALID_DISTRIBUTED_TASK");
  EXPECT_TRUE(DataFiles("plain").empty());
  auto task = RunDistributedWrite(*worker_, "INSERT INTO " + t + " SELECT * FROM src", "{}");
  ASSERT_FALSE(task.ok());
  EXPECT_EQ(task.status().error_class(), "SILT_INVALID_DISTRIBUTED_TASK");
}

}  // namespace
}  // namespace silt
