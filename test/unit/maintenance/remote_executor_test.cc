// The maintenance service with a remote executor (MaintenanceConfig::remote; silt.dask.ttl_delete
// and `silt maintain --dask-scheduler` use it, docs/scale-out.md), driven in-process: the tasks go
// through their JSON text to silt::RunDistributedTask on another connection, the VACUUM deletes
// to silt::DeleteTableFiles. The same table maintained locally and remotely ends with the same
// rows, the same DESCRIBE HISTORY (operations, parameters, metrics but times) and the same
// service metrics but `executor`.
#include <gtest/gtest.h>
#include <time.h>

#include <set>

#include "delta/snapshot.h"
#include "maintenance/expiry.h"
#include "silt/distributed.h"
#include "unit/maintenance/maintenance_test_util.h"

namespace silt::maintenance {
namespace {

using testing::kDayMs;
using testing::kNow;
using testing::Metric;
using testing::OpTypes;

std::string Ts(int64_t offset_ms) {
  const time_t secs = static_cast<time_t>((kNow + offset_ms) / 1000);
  struct tm tm {};
  gmtime_r(&secs, &tm);
  char buf[64];
  strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

class RemoteExecutorTest : public testing::MaintenanceFixture {
 protected:
  // Files: every row expired (removed unread), some expired (scanned: a DV or a rewrite), none.
  void CreateTable(const std::string& name, bool dvs) {
    Sql("CREATE TABLE " + name + " (id INT, ts TIMESTAMP) USING DELTA TBLPROPERTIES (" +
        "'delta.enableDeletionVectors' = '" + (dvs ? "true" : "false") +
        "', 'autottl.expireInDays' = '30', 'autottl.timestampColumn' = 'ts')");
    Sql("INSERT INTO " + name + " VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) +
        "'), (2, TIMESTAMP '" + Ts(-35 * kDayMs) + "')");
    Sql("INSERT INTO " + name + " VALUES (3, TIMESTAMP '" + Ts(-40 * kDayMs) +
        "'), (4, TIMESTAMP '" + Ts(-1 * kDayMs) + "'), (5, NULL)");
    Sql("INSERT INTO " + name + " VALUES (6, TIMESTAMP '" + Ts(-2 * kDayMs) + "')");
  }
  MaintainedTable Table(const std::string& name) {
    return MaintainedTable{TableLocation(name), "spark_catalog", "default", name};
  }
  MaintenanceConfig RemoteConfig() {
    MaintenanceConfig c = Config();
    RemoteExecutor r;
    r.name = "remote";
    r.min_table_bytes = -1;
    r.ttl_task_bytes = 1;  // one file per TTL DELETE task
    r.run_tasks =
        [this](const std::vector<std::string>& tasks) -> Result<std::vector<std::string>> {
      std::vector<std::string> out;
      // In reverse: the outputs may come back in any order.
      for (size_t i = tasks.size(); i-- > 0;) {
        SILT_ASSIGN_OR_RETURN(std::string o, RunDistributedTask(*worker_, tasks[i]));
        out.push_back(std::move(o));
      }
      tasks_ += tasks.size();
      return out;
    };
    r.delete_files = [this](const std::string& uri, const std::vector<std::string>& keys) {
      deletes_ += keys.size();
      Result<std::vector<Status>> st = DeleteTableFiles(*worker_, uri, keys);
      return st.ok() ? *st : std::vector<Status>(keys.size(), st.status());
    };
    c.remote = std::move(r);
    return c;
  }
  PassReport Run(const std::string& name, MaintenanceConfig config) {
    MaintenanceService service(warehouse_, clock_, std::move(config));
    auto report = service.RunPass({Table(name)});
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    return report.ok() ? *report : PassReport{};
  }
  void ExpectSameHistory(const std::string& a, const std::string& b) {
    EXPECT_EQ(Operations(a), Operations(b));
    EXPECT_EQ(HistoryColumn(a, "operationParameters"), HistoryColumn(b, "operationParameters"));
    EXPECT_EQ(HistoryColumn(a, "userName"), HistoryColumn(b, "userName"));
    EXPECT_EQ(HistoryColumn(a, "readVersion"), HistoryColumn(b, "readVersion"));
    // operationMetrics without the *TimeMs entries, oldest commit first.
    auto untimed = [&](const std::string& t) {
      auto r = Sql("DESCRIBE HISTORY " + t);
      size_t col = 0;
      for (size_t i = 0; i < r->schema().size(); ++i)
        if (r->schema()[i].name == "operationMetrics") col = i;
      std::vector<std::string> out;
      for (size_t i = r->num_rows(); i-- > 0;) {
        const Value m = r->Row(i)[col];
        std::string s;
        for (size_t k = 0; !m.is_null() && k + 1 < m.children().size(); k += 2) {
          const std::string key = m.children()[k].ToString();
          if (!key.ends_with("TimeMs")) s += key + "=" + m.children()[k + 1].ToString() + " ";
        }
        out.push_back(s);
      }
      return out;
    };
    EXPECT_EQ(untimed(a), untimed(b));
  }
  static void ExpectSameRecords(const PassReport& local, const PassReport& remote) {
    ASSERT_EQ(OpTypes(local), OpTypes(remote));
    for (size_t i = 0; i < local.operations.size(); ++i) {
      auto strip = [](const OperationRecord& r) {
        std::vector<std::pair<std::string, std::string>> m;
        for (const auto& kv : r.metrics)
          if (kv.first != "executor") m.push_back(kv);
        return m;
      };
      EXPECT_EQ(strip(local.operations[i]), strip(remote.operations[i]));
      EXPECT_EQ(Metric(local.operations[i], "executor"), "local");
      EXPECT_EQ(Metric(remote.operations[i], "executor"), "remote");
    }
  }
  void SetUp() override {
    MaintenanceFixture::SetUp();
    worker_ = std::make_unique<Connection>(db_);
  }
  void TearDown() override {
    worker_.reset();
    MaintenanceFixture::TearDown();
  }
  std::unique_ptr<Connection> worker_;  // a worker's connection
  size_t tasks_ = 0, deletes_ = 0;
};

TEST_F(RemoteExecutorTest, TheCycleEndsAsTheLocalOne) {
  for (bool dvs : {true, false}) {
    SCOPED_TRACE(dvs ? "deletion vectors" : "copy-on-write");
    const std::string l = dvs ? "l_dv" : "l_cow", r = dvs ? "r_dv" : "r_cow";
    CreateTable(l, dvs);
    CreateTable(r, dvs);
    MaintenanceConfig local_config = Config();
    local_config.remote = RemoteConfig().remote;
    local_config.remote->min_table_bytes = int64_t{1} << 40;  // configured, but l stays here
    PassReport local = Run(l, local_config);
    tasks_ = 0;
    PassReport remote = Run(r, RemoteConfig());
    const std::vector<std::string> want =
        dvs ? std::vector<std::string>{"DELETE:SUCCESSFUL", "PURGE:SUCCESSFUL"}
            : std::vector<std::string>{"DELETE:SUCCESSFUL"};
    EXPECT_EQ(OpTypes(remote), want);
    ExpectSameRecords(local, remote);
    EXPECT_EQ(Metric(remote.operations[0], "num_deleted_rows"), "3");  // 1, 2 unread; 3 scanned
    // File 0 removed unread; file 1 gets a DV, or is rewritten and removed (copy-on-write).
    EXPECT_EQ(Metric(remote.operations[0], "num_removed_files"), dvs ? "1" : "2");
    // Only the file that needed reading was a task (file 0 is removed unread, file 2 skipped);
    // with DVs the PURGE of file 1 is one more.
    EXPECT_EQ(tasks_, dvs ? 2u : 1u);
    EXPECT_EQ(Rows("SELECT id FROM " + r + " ORDER BY id"),
              Rows("SELECT id FROM " + l + " ORDER BY id"));
    ExpectSameHistory(l, r);
  }
  // The VACUUM after the retention (7 days): its deletes go to the executor.
  clock_->AdvanceMillis(8 * kDayMs);
  PassReport local = Run("l_dv", Config());
  deletes_ = 0;
  PassReport remote = Run("r_dv", RemoteConfig());
  EXPECT_EQ(OpTypes(remote), (std::vector<std::string>{"VACUUM:SUCCESSFUL"}));
  EXPECT_EQ(Metric(remote.operations[0], "num_vacuumed_files"),
            Metric(local.operations[0], "num_vacuumed_files"));
  EXPECT_EQ(deletes_,
            static_cast<size_t>(std::stoll(Metric(remote.operations[0], "num_vacuumed_files"))));
  ExpectSameHistory("l_dv", "r_dv");
}

TEST_F(RemoteExecutorTest, AFailingExecutorFailsTheStepAndChangesNothing) {
  CreateTable("t", true);
  const auto versions = Operations("t").size();
  MaintenanceConfig c = RemoteConfig();
  c.remote->run_tasks = [](const std::vector<std::string>&) -> Result<std::vector<std::string>> {
    return Status::IoError("the scheduler went away", "SILT_DASK_EXECUTOR_FAILED");
  };
  PassReport r = Run("t", c);
  ASSERT_EQ(OpTypes(r), (std::vector<std::string>{"DELETE:FAILED: INTERNAL_ERROR"}));
  EXPECT_EQ(Metric(r.operations[0], "error_class"), "SILT_DASK_EXECUTOR_FAILED");
  EXPECT_EQ(Metric(r.operations[0], "executor"), "remote");
  EXPECT_EQ(Operations("t").size(), versions);  // no local fallback, no commit
}

TEST_F(RemoteExecutorTest, OutputsOfAnotherTaskOrJobAreRefused) {
  CreateTable("t", true);
  MaintenanceConfig c = RemoteConfig();
  auto run = c.remote->run_tasks;
  for (int mode = 0; mode < 3; ++mode) {
    c.remote->run_tasks =
        [&, mode](const std::vector<std::string>& tasks) -> Result<std::vector<std::string>> {
      SILT_ASSIGN_OR_RETURN(std::vector<std::string> out, run(tasks));
      if (mode == 0) out.push_back(out.front());  // one output too many
      if (mode == 1) {                            // a task that does not exist
        const size_t at = out.front().find("\"task\":");
        if (at != std::string::npos) out.front().insert(at + 7, "7");
      }
      if (mode == 2) out.front().replace(8, 4, "0000");  // another job's id
      return out;
    };
    const auto versions = Operations("t").size();
    PassReport r = Run("t", c);
    ASSERT_FALSE(r.operations.empty());
    EXPECT_EQ(Metric(r.operations[0], "error_class"), "SILT_INVALID_DISTRIBUTED_TASK") << mode;
    EXPECT_EQ(Operations("t").size(), versions);
    clock_->AdvanceMillis(kDayMs);  // past the failed step's retry backoff
  }
}

}  // namespace
}  // namespace silt::maintenance
