// The maintenance service's Auto-TTL cycle (spec A.5, A.6, A.9 T-13..T-26, T-31, T-32) on a
// warehouse in memory with a ManualClock: DELETE → PURGE → VACUUM as tagged commits, the state
// machine beside the table, crash recovery from history, conflicts, failures and the history
// table.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

#include <algorithm>
#include <thread>

#include "delta/history.h"
#include "delta/snapshot.h"
#include "maintenance/expiry.h"
#include "maintenance/state.h"
#include "ops/vacuum.h"
#include "parquet/reader.h"
#include "support/fault_injecting_object_store.h"
#include "support/forwarding_object_store.h"
#include "unit/maintenance/maintenance_test_util.h"

namespace silt::maintenance {
namespace {

using testing::kDayMs;
using testing::kNow;
using testing::Metric;
using testing::OpTypes;

class TtlServiceTest : public testing::MaintenanceFixture {
 protected:
  // (id INT, ts TIMESTAMP) with DVs on or off, TTL n days on ts, one file per INSERT.
  void CreateTtlTable(const std::string& name, int days, bool dvs,
                      const std::string& type = "TIMESTAMP") {
    Sql("CREATE TABLE " + name + " (id INT, ts " + type + ") USING DELTA TBLPROPERTIES (" +
        "'delta.enableDeletionVectors' = '" + (dvs ? "true" : "false") +
        "', 'autottl.expireInDays' = '" + std::to_string(days) +
        "', 'autottl.timestampColumn' = 'ts')");
  }
  // The timestamp literal of kNow + offset (ms) in UTC.
  static std::string Ts(int64_t offset_ms) {
    int64_t ms = kNow + offset_ms;
    time_t secs = static_cast<time_t>(ms / 1000);
    struct tm tm {};
    gmtime_r(&secs, &tm);
    char buf[64];
    strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    return buf;
  }
  std::vector<std::string> Ids(const std::string& table) {
    return Rows("SELECT id FROM " + table + " ORDER BY id");
  }
  // The ts values (µs) of every row of every Parquet file under the table root, live or not:
  // what is physically still stored.
  std::vector<int64_t> StoredTs(const std::string& table) {
    auto store = TableStore(table);
    std::vector<int64_t> out;
    Status st = store->ListRecursive("", [&](const ObjectMeta& m) -> Status {
      if (m.is_dir || m.key.size() < 8 || m.key.compare(m.key.size() - 8, 8, ".parquet") != 0 ||
          m.key.rfind("_delta_log/", 0) == 0) {
        return Status::OK();
      }
      SILT_ASSIGN_OR_RETURN(auto handle, store->OpenRead(m.key));
      SILT_ASSIGN_OR_RETURN(auto pf, parquet::ParquetFile::Open(handle));
      std::shared_ptr<const parquet::ParquetFile> shared(std::move(pf));
      parquet::ScanOptions so;
      so.columns = {"ts"};
      SILT_ASSIGN_OR_RETURN(auto scan, parquet::ParquetScanner::Make(shared, so));
      DataChunk c;
      while (true) {
        SILT_ASSIGN_OR_RETURN(bool more, scan->Next(&c));
        if (!more) break;
        for (size_t i = 0; i < c.size(); ++i)
          if (!c.columns[0].IsNull(i)) out.push_back(c.columns[0].Get<int64_t>(i));
      }
      return Status::OK();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    return out;
  }
};

TEST_F(TtlServiceTest, T13BoundaryIsInclusive) {
  CreateTtlTable("t", 30, /*dvs=*/false);
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '" + Ts(-31 * kDayMs) + "')");
  Sql("INSERT INTO t VALUES (2, TIMESTAMP '" + Ts(-30 * kDayMs) + "')");
  Sql("INSERT INTO t VALUES (3, TIMESTAMP '" + Ts(-29 * kDayMs) + "')");
  PassReport r = Pass();
  EXPECT_EQ(OpTypes(r), (std::vector<std::string>{"DELETE:SUCCESSFUL"}));
  EXPECT_EQ(Ids("t"), (std::vector<std::string>{"3"}));
  ASSERT_EQ(r.operations.size(), 1u);
  EXPECT_EQ(Metric(r.operations[0], "num_deleted_rows"), "2");
  EXPECT_EQ(Metric(r.operations[0], "cutoff"), "TIMESTAMP '2025-12-02 00:00:00Z'");
}

TEST_F(TtlServiceTest, T14DateColumnUsesTheUtcDate) {
  clock_->SetMillis(1741608000000);  // 2025-03-10T12:00:00Z
  CreateTtlTable("t", 1, /*dvs=*/true, "DATE");
  Sql("INSERT INTO t VALUES (1, DATE '2025-03-08'), (2, DATE '2025-03-09'), (3, DATE "
      "'2025-03-10'), (4, NULL)");
  PassReport r = Pass();
  EXPECT_EQ(Ids("t"), (std::vector<std::string>{"3", "4"}));
  ASSERT_FALSE(r.operations.empty());
  EXPECT_EQ(Metric(r.operations[0], "cutoff"), "DATE '2025-03-09'");
}

TEST_F(TtlServiceTest, T15TimestampNtzIsUtcWhateverTheTimeZone) {
  for (const char* tz : {"America/Los_Angeles", "Asia/Tokyo"}) {
    const std::string name = std::string("t_") + (tz[0] == 'A' && tz[1] == 'm' ? "la" : "tokyo");
    CreateTtlTable(name, 31, /*dvs=*/true, "TIMESTAMP_NTZ");
    Sql("INSERT INTO " + name +
        " VALUES (1, TIMESTAMP_NTZ '2025-11-30 23:59:59'), (2, TIMESTAMP_NTZ '2025-12-01 "
        "00:00:00'), "
        "(3, TIMESTAMP_NTZ '2025-12-01 00:00:01')");
    const char* old = getenv("TZ");
    std::string saved = old ? old : "";
    setenv("TZ", tz, 1);
    tzset();
    Sql("SET spark.sql.session.timeZone = " + std::string(tz));
    Pass();
    if (old) {
      setenv("TZ", saved.c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
    Sql("SET spark.sql.session.timeZone = UTC");
    EXPECT_EQ(Ids(name), (std::vector<std::string>{"3"})) << tz;
  }
}

TEST_F(TtlServiceTest, T16NullAndFutureValuesNeverExpire) {
  CreateTtlTable("t", 0, /*dvs=*/true);
  Sql("INSERT INTO t VALUES (1, NULL), (2, TIMESTAMP '2999-01-01 00:00:00'), (3, TIMESTAMP '" +
      Ts(0) + "')");
  Pass();
  // n = 0 (T-4): the row at exactly now expires at once.
  EXPECT_EQ(Ids("t"), (std::vector<std::string>{"1", "2"}));
  clock_->AdvanceMillis(365 * kDayMs);
  Pass();
  EXPECT_EQ(Ids("t"), (std::vector<std::string>{"1", "2"}));
}

TEST_F(TtlServiceTest, T17PartitionAlignedExpiryRemovesWholeFiles) {
  Sql("CREATE TABLE p (id INT, d DATE) USING DELTA PARTITIONED BY (d) TBLPROPERTIES ("
      "'delta.enableDeletionVectors' = 'true', 'autottl.expireInDays' = '10', "
      "'autottl.timestampColumn' = 'd')");
  Sql("INSERT INTO p VALUES (1, DATE '2025-12-01'), (2, DATE '2025-12-01'), (3, DATE "
      "'2025-12-21'), "
      "(4, DATE '2025-12-22'), (5, DATE '2025-12-31')");
  PassReport r = Pass();
  // Cutoff 2025-12-22: three partitions go whole, no file is rewritten, no DV written.
  EXPECT_EQ(Ids("p"), (std::vector<std::string>{"5"}));
  ASSERT_EQ(OpTypes(r), (std::vector<std::string>{"DELETE:SUCCESSFUL"}));  // no PURGE: no DVs
  EXPECT_EQ(Metric(r.operations[0], "num_removed_files"), "3");
  EXPECT_EQ(Metric(r.operations[0], "num_added_files"), "0");
  EXPECT_EQ(Metric(r.operations[0], "num_copied_rows"), "0");
  EXPECT_EQ(Metric(r.operations[0], "num_dvs_added"), "0");
  auto snap = delta::Snapshot::Load(TableStore("p"));
  ASSERT_TRUE(snap.ok());
  for (const auto& f : (*snap)->files()) EXPECT_FALSE(f.deletion_vector.has_value());
}

TEST_F(TtlServiceTest, T18DvTableRunsDeletePurgeVacuum) {
  CreateTtlTable("t", 30, /*dvs=*/true);
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "'), (2, TIMESTAMP '" +
      Ts(-1 * kDayMs) + "')");
  Sql("INSERT INTO t VALUES (3, TIMESTAMP '" + Ts(-2 * kDayMs) +
      "')");  // a file without expired rows
  PassReport r = Pass();
  EXPECT_EQ(OpTypes(r), (std::vector<std::string>{"DELETE:SUCCESSFUL", "PURGE:SUCCESSFUL"}));
  ASSERT_EQ(r.operations.size(), 2u);
  EXPECT_EQ(Metric(r.operations[0], "num_dvs_added"), "1");
  EXPECT_EQ(Metric(r.operations[1], "num_purged_files"), "1");  // exactly the DV'd file
  EXPECT_EQ(Operations("t"),
            (std::vector<std::string>{"CREATE TABLE", "WRITE", "WRITE", "DELETE", "REORG"}));
  auto snap = delta::Snapshot::Load(TableStore("t"));
  ASSERT_TRUE(snap.ok());
  for (const auto& f : (*snap)->files()) EXPECT_FALSE(f.deletion_vector.has_value());
  // The REORG commit changes no data.
  auto params = HistoryColumn("t", "operationParameters");
  EXPECT_NE(params.back().find("applyPurge"), std::string::npos) << params.back();
  EXPECT_EQ(Ids("t"), (std::vector<std::string>{"2", "3"}));
  // VACUUM only after the retention (7 days).
  clock_->AdvanceMillis(6 * kDayMs);
  EXPECT_TRUE(Pass().operations.empty());
  clock_->AdvanceMillis(kDayMs + 1000);
  r = Pass();
  EXPECT_EQ(OpTypes(r), (std::vector<std::string>{"VACUUM:SUCCESSFUL"}));
  EXPECT_EQ(Operations("t"), (std::vector<std::string>{"CREATE TABLE", "WRITE", "WRITE", "DELETE",
                                                       "REORG", "VACUUM START", "VACUUM END"}));
  EXPECT_EQ(Metric(r.operations[0], "num_vacuumed_files"), "2");  // the purged file and its DV
  // Due at purge time + 7 days + 1 ms (the first instant VACUUM deletes the purged file).
  EXPECT_EQ(Metric(r.operations[0], "step_delay_ms"), "999");
}

// T-29: with the change data feed on, the TTL DELETE's version reads as `delete` rows equal to the
// expired rows (deletion vectors or copy-on-write alike); PURGE (dataChange=false) adds none.
TEST_F(TtlServiceTest, T29ChangeDataFeedShowsTheExpiredRowsAsDeletes) {
  for (bool dvs : {true, false}) {
    const std::string t = dvs ? "cdf_dv" : "cdf_cow";
    Sql("CREATE TABLE " + t +
        " (id INT, ts TIMESTAMP) USING DELTA TBLPROPERTIES ('delta.enableChangeDataFeed' = "
        "'true', 'delta.enableDeletionVectors' = '" +
        (dvs ? "true" : "false") +
        "', 'autottl.expireInDays' = '30', 'autottl.timestampColumn' = 'ts')");
    Sql("INSERT INTO " + t + " VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "'), (2, TIMESTAMP '" +
        Ts(-31 * kDayMs) + "'), (3, TIMESTAMP '" + Ts(-1 * kDayMs) + "')");
    Pass();
    EXPECT_EQ(Operations(t)[2], "DELETE");
    EXPECT_EQ(Rows("SELECT id, _change_type, _commit_version FROM table_changes('" + t +
                   "', 2) ORDER BY id"),
              (std::vector<std::string>{"1|delete|2", "2|delete|2"}))
        << t;
    EXPECT_EQ(Ids(t), (std::vector<std::string>{"3"}));
  }
}

TEST_F(TtlServiceTest, AStepLaterThanMaxDelayPerStepLogsAnAlert) {
  CreateTtlTable("t", 30, /*dvs=*/false);
  Sql("ALTER TABLE t SET TBLPROPERTIES ('silt.autottl.maxDelayPerStep' = 'interval 1 days')");
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "'), (2, TIMESTAMP '" +
      Ts(-25 * kDayMs) + "')");
  Pass();
  clock_->AdvanceMillis(8 * kDayMs);  // due after 7 days: 1 day late, not more; row 2 expires
  PassReport r = Pass();
  ASSERT_FALSE(r.operations.empty());
  EXPECT_EQ(Metric(r.operations[0], "step_delay_ms"), std::to_string(kDayMs - 1));
  for (const std::string& line : log_) EXPECT_EQ(line.find("ALERT"), std::string::npos) << line;
  // The next cycle's VACUUM runs 3 days late.
  clock_->AdvanceMillis(10 * kDayMs);
  r = Pass();
  ASSERT_FALSE(r.operations.empty());
  EXPECT_EQ(r.operations[0].operation_type, "VACUUM");
  EXPECT_EQ(Metric(r.operations[0], "step_delay_ms"), std::to_string(3 * kDayMs - 1));
  bool alerted = false;
  for (const std::string& line : log_) alerted |= line.find("ALERT VACUUM") != std::string::npos;
  EXPECT_TRUE(alerted);
}

TEST_F(TtlServiceTest, T19DvDisabledSkipsPurge) {
  CreateTtlTable("t", 30, /*dvs=*/false);
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "'), (2, TIMESTAMP '" +
      Ts(-1 * kDayMs) + "')");
  PassReport r = Pass();
  EXPECT_EQ(OpTypes(r), (std::vector<std::string>{"DELETE:SUCCESSFUL"}));
  EXPECT_EQ(Metric(r.operations[0], "num_copied_rows"), "1");  // copy-on-write
  clock_->AdvanceMillis(8 * kDayMs);
  r = Pass();
  EXPECT_EQ(OpTypes(r), (std::vector<std::string>{"VACUUM:SUCCESSFUL"}));
  EXPECT_EQ(Operations("t"), (std::vector<std::string>{"CREATE TABLE", "WRITE", "DELETE",
                                                       "VACUUM START", "VACUUM END"}));
}

TEST_F(TtlServiceTest, T20VacuumWaitsForRetentionThenTimeTravelFails) {
  CreateTtlTable("t", 30, /*dvs=*/false);
  Sql("ALTER TABLE t SET TBLPROPERTIES ('delta.deletedFileRetentionDuration' = 'interval 7 days')");
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "'), (2, TIMESTAMP '" +
      Ts(-1 * kDayMs) + "')");
  Pass();  // DELETE at version 3
  EXPECT_EQ(Count("SELECT count(*) FROM t VERSION AS OF 2"), 2);
  clock_->AdvanceMillis(7 * kDayMs - 1);
  EXPECT_TRUE(Pass().operations.empty());
  EXPECT_EQ(Count("SELECT count(*) FROM t VERSION AS OF 2"), 2);
  clock_->AdvanceMillis(1001);
  EXPECT_EQ(OpTypes(Pass()), (std::vector<std::string>{"VACUUM:SUCCESSFUL"}));
  auto r = con_->Query("SELECT count(*) FROM t VERSION AS OF 2");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("FILE"), std::string::npos) << r.status().ToString();
}

TEST_F(TtlServiceTest, T21TwoPassesAtOneInstantDeleteOnce) {
  CreateTtlTable("t", 30, /*dvs=*/true);
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "'), (2, TIMESTAMP '" +
      Ts(-1 * kDayMs) + "')");
  Pass();
  EXPECT_TRUE(Pass().operations.empty());
  auto ops = Operations("t");
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "DELETE"), 1);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "REORG"), 1);
}

TEST_F(TtlServiceTest, T22DisabledTableIsLeftAloneUntilReenabled) {
  CreateTtlTable("t", 30, /*dvs=*/true);
  Sql("ALTER TABLE t SET TBLPROPERTIES ('silt.maintenance.enabled' = 'false')");
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "'), (2, TIMESTAMP '" +
      Ts(-1 * kDayMs) + "')");
  PassReport r = Pass();
  EXPECT_TRUE(r.operations.empty());
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_NE(r.skipped[0].find("silt.maintenance.enabled"), std::string::npos);
  EXPECT_EQ(Ids("t"), (std::vector<std::string>{"1", "2"}));
  Sql("ALTER TABLE t SET TBLPROPERTIES ('silt.maintenance.enabled' = 'true')");
  Pass();
  EXPECT_EQ(Ids("t"), (std::vector<std::string>{"2"}));
}

TEST_F(TtlServiceTest, T23UserCommitWinsAndTheJobRetries) {
  CreateTtlTable("t", 30, /*dvs=*/true);
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "'), (2, TIMESTAMP '" +
      Ts(-1 * kDayMs) +
      "'), "
      "(3, TIMESTAMP '" +
      Ts(-1 * kDayMs) + "')");
  MaintenanceConfig c = Config();
  bool user_ok = false;
  c.open_store = [&](const std::string& location) -> Result<std::shared_ptr<ObjectStore>> {
    SILT_ASSIGN_OR_RETURN(auto inner, OpenObjectStore(location, clock_));
    // Just before the TTL DELETE commits, a user DELETE on the same file commits first.
    return std::shared_ptr<ObjectStore>(std::make_shared<testing::InterceptingStore>(inner, [&] {
      auto r = con_->Query("DELETE FROM t WHERE id = 3");
      user_ok = r.ok();
      EXPECT_TRUE(r.ok()) << r.status().ToString();
    }));
  };
  PassReport r = Pass(c);
  EXPECT_TRUE(user_ok);
  ASSERT_FALSE(r.operations.empty());
  EXPECT_EQ(r.operations[0].operation_type, "DELETE");
  EXPECT_EQ(r.operations[0].operation_status, kStatusSuccessful);
  EXPECT_EQ(Metric(r.operations[0], "retries"), "1");
  EXPECT_EQ(Ids("t"), (std::vector<std::string>{"2"}));
  auto ops = Operations("t");
  ASSERT_GE(ops.size(), 4u);
  EXPECT_EQ(ops[2], "DELETE");  // the user's
  EXPECT_EQ(HistoryColumn("t", "userName")[2], "NULL");
  EXPECT_EQ(ops[3], "DELETE");  // the TTL's, after it
  EXPECT_EQ(HistoryColumn("t", "userName")[3], "silt-maintenance");
}

TEST_F(TtlServiceTest, T23ConflictsBeyondMaxRetriesRecordFailed) {
  CreateTtlTable("t", 30, /*dvs=*/true);
  Sql("ALTER TABLE t SET TBLPROPERTIES ('silt.maintenance.maxRetries' = '0')");
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "'), (2, TIMESTAMP '" +
      Ts(-1 * kDayMs) + "')");
  MaintenanceConfig c = Config();
  c.open_store = [&](const std::string& location) -> Result<std::shared_ptr<ObjectStore>> {
    SILT_ASSIGN_OR_RETURN(auto inner, OpenObjectStore(location, clock_));
    return std::shared_ptr<ObjectStore>(std::make_shared<testing::InterceptingStore>(
        inner, [&] { EXPECT_TRUE(con_->Query("DELETE FROM t WHERE id = 2").ok()); }));
  };
  PassReport r = Pass(c);
  ASSERT_EQ(r.operations.size(), 1u);
  EXPECT_EQ(r.operations[0].operation_status, kStatusFailed);
  EXPECT_EQ(Metric(r.operations[0], "error_class").rfind("DELTA_CONCURRENT", 0), 0u)
      << Metric(r.operations[0], "error_class");
  EXPECT_EQ(Count("SELECT count(*) FROM t"), 1);  // the user's delete stands
  // The next pass (after the backoff) deletes the expired row.
  clock_->AdvanceMillis(60 * 1000);
  r = Pass();
  // Every row of the file is deleted now: a plain remove, no DV, so no PURGE.
  EXPECT_EQ(OpTypes(r), (std::vector<std::string>{"DELETE:SUCCESSFUL"}));
  EXPECT_EQ(Count("SELECT count(*) FROM t"), 0);
}

TEST_F(TtlServiceTest, T24CrashAfterDeleteCommitResumesWithoutRedeleting) {
  CreateTtlTable("t", 30, /*dvs=*/true);
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "'), (2, TIMESTAMP '" +
      Ts(-1 * kDayMs) + "')");
  MaintenanceConfig c = Config();
  std::shared_ptr<FaultInjectingObjectStore> faulty;
  c.open_store = [&](const std::string& location) -> Result<std::shared_ptr<ObjectStore>> {
    SILT_ASSIGN_OR_RETURN(auto inner, OpenObjectStore(location, clock_));
    faulty = std::make_shared<FaultInjectingObjectStore>(inner);
    // The process dies before the state records the DELETE (its first save).
    FaultRule crash = FaultRule::FailAfter(0, ObjectOp::kPut);
    crash.key_contains = "state.json";
    faulty->AddRule(crash);
    return std::shared_ptr<ObjectStore>(faulty);
  };
  PassReport r = Pass(c);
  ASSERT_FALSE(r.operations.empty());
  EXPECT_EQ(r.operations[0].operation_type, "DELETE");
  EXPECT_EQ(Operations("t").back(), "DELETE");
  auto state = LoadState(*TableStore("t"));
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(state->phase, TtlPhase::kIdle);  // never saved
  // Restart: the tagged DELETE is found in history; the cycle goes on with PURGE.
  r = Pass();
  EXPECT_EQ(OpTypes(r), (std::vector<std::string>{"PURGE:SUCCESSFUL"}));
  auto ops = Operations("t");
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "DELETE"), 1);
  EXPECT_EQ(ops.back(), "REORG");
  state = LoadState(*TableStore("t"));
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(state->phase, TtlPhase::kVacuumDue);
}

TEST_F(TtlServiceTest, T24CrashAfterPurgeCommitResumesWithVacuum) {
  CreateTtlTable("t", 30, /*dvs=*/true);
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "'), (2, TIMESTAMP '" +
      Ts(-1 * kDayMs) + "')");
  MaintenanceConfig c = Config();
  c.open_store = [&](const std::string& location) -> Result<std::shared_ptr<ObjectStore>> {
    SILT_ASSIGN_OR_RETURN(auto inner, OpenObjectStore(location, clock_));
    auto faulty = std::make_shared<FaultInjectingObjectStore>(inner);
    FaultRule crash = FaultRule::FailAfter(1, ObjectOp::kPut);  // the DELETE's save passes
    crash.key_contains = "state.json";
    faulty->AddRule(crash);
    return std::shared_ptr<ObjectStore>(faulty);
  };
  Pass(c);
  EXPECT_EQ(Operations("t").back(), "REORG");
  clock_->AdvanceMillis(8 * kDayMs);
  PassReport r = Pass();
  EXPECT_EQ(OpTypes(r), (std::vector<std::string>{"VACUUM:SUCCESSFUL"}));
  auto ops = Operations("t");
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "REORG"), 1);
  EXPECT_EQ(ops.back(), "VACUUM END");
}

TEST_F(TtlServiceTest, T24CrashAfterVacuumCommitEndsTheCycle) {
  CreateTtlTable("t", 30, /*dvs=*/false);
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "'), (2, TIMESTAMP '" +
      Ts(-1 * kDayMs) + "')");
  Pass();  // DELETE
  clock_->AdvanceMillis(8 * kDayMs);
  MaintenanceConfig c = Config();
  c.open_store = [&](const std::string& location) -> Result<std::shared_ptr<ObjectStore>> {
    SILT_ASSIGN_OR_RETURN(auto inner, OpenObjectStore(location, clock_));
    auto faulty = std::make_shared<FaultInjectingObjectStore>(inner);
    FaultRule crash = FaultRule::FailAll(ObjectOp::kPut);  // dies before recording the VACUUM
    crash.key_contains = "state.json";
    faulty->AddRule(crash);
    return std::shared_ptr<ObjectStore>(faulty);
  };
  PassReport r = Pass(c);
  ASSERT_FALSE(r.operations.empty());
  EXPECT_EQ(r.operations[0].operation_type, "VACUUM");
  auto state = LoadState(*TableStore("t"));
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(state->phase, TtlPhase::kVacuumDue);
  // Restart: the tagged VACUUM END closes the cycle; no second VACUUM.
  EXPECT_TRUE(Pass().operations.empty());
  state = LoadState(*TableStore("t"));
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(state->phase, TtlPhase::kIdle);
  auto ops = Operations("t");
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "VACUUM END"), 1);
}

TEST_F(TtlServiceTest, T25HistoryTableAfterAFullCycle) {
  CreateTtlTable("t", 30, /*dvs=*/true);
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "'), (2, TIMESTAMP '" +
      Ts(-1 * kDayMs) + "')");
  Pass();
  clock_->AdvanceMillis(8 * kDayMs);
  Pass();
  auto rows = Rows(
      "SELECT operation_type, operation_status, catalog_name, schema_name, table_name, "
      "start_time <= end_time, length(table_id) > 0, length(operation_id), usage_unit, "
      "usage_quantity >= 0 FROM " +
      HistoryTable() + " ORDER BY start_time, operation_type");
  EXPECT_EQ(rows, (std::vector<std::string>{
                      "DELETE|SUCCESSFUL|spark_catalog|default|t|true|true|36|CPU_SECONDS|true",
                      "PURGE|SUCCESSFUL|spark_catalog|default|t|true|true|36|CPU_SECONDS|true",
                      "VACUUM|SUCCESSFUL|spark_catalog|default|t|true|true|36|CPU_SECONDS|true"}));
  auto metrics =
      Rows("SELECT operation_metrics['cutoff'], operation_metrics['num_deleted_rows'] FROM " +
           HistoryTable() + " WHERE operation_type = 'DELETE'");
  EXPECT_EQ(metrics, (std::vector<std::string>{"TIMESTAMP '2025-12-02 00:00:00Z'|1"}));
}

TEST_F(TtlServiceTest, T26StorageFailureIsRecordedAndRetried) {
  CreateTtlTable("t", 30, /*dvs=*/true);
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "'), (2, TIMESTAMP '" +
      Ts(-1 * kDayMs) + "')");
  MaintenanceConfig c = Config();
  c.open_store = [&](const std::string& location) -> Result<std::shared_ptr<ObjectStore>> {
    SILT_ASSIGN_OR_RETURN(auto inner, OpenObjectStore(location, clock_));
    auto faulty = std::make_shared<FaultInjectingObjectStore>(inner);
    FaultRule fail = FaultRule::FailAll(ObjectOp::kPutIfAbsent);
    fail.key_contains = "_delta_log/";
    faulty->AddRule(fail);
    return std::shared_ptr<ObjectStore>(faulty);
  };
  PassReport r = Pass(c);
  ASSERT_EQ(r.operations.size(), 1u);
  EXPECT_EQ(r.operations[0].operation_status, "FAILED: INTERNAL_ERROR");
  EXPECT_EQ(Metric(r.operations[0], "error_class"), kErrorInjectedFault);
  EXPECT_EQ(Rows("SELECT operation_type, operation_status, operation_metrics['error_class'] FROM " +
                 HistoryTable()),
            (std::vector<std::string>{"DELETE|FAILED: INTERNAL_ERROR|SILT_INJECTED_FAULT"}));
  EXPECT_EQ(Count("SELECT count(*) FROM t"), 2);
  // Inside the backoff nothing runs; after it the DELETE is retried and succeeds.
  EXPECT_TRUE(Pass().operations.empty());
  clock_->AdvanceMillis(10 * 1000);
  r = Pass();
  EXPECT_EQ(OpTypes(r), (std::vector<std::string>{"DELETE:SUCCESSFUL", "PURGE:SUCCESSFUL"}));
  EXPECT_EQ(Count("SELECT count(*) FROM t"), 1);
}

TEST_F(TtlServiceTest, T31HistoryCarriesTheMaintenanceUserAndTheCutoffLiteral) {
  CreateTtlTable("t", 30, /*dvs=*/true);
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "'), (2, TIMESTAMP '" +
      Ts(-1 * kDayMs) + "')");
  Pass();
  auto users = HistoryColumn("t", "userName");
  auto meta = HistoryColumn("t", "userMetadata");
  auto params = HistoryColumn("t", "operationParameters");
  ASSERT_EQ(users.size(), 4u);  // CREATE, WRITE, DELETE, REORG
  for (size_t v : {2u, 3u}) {
    EXPECT_EQ(users[v], "silt-maintenance");
    auto tag = ParseCommitTag(meta[v]);
    ASSERT_TRUE(tag.has_value()) << meta[v];
    EXPECT_EQ(tag->trigger, "autottl");
    EXPECT_EQ(tag->run_id.size(), 36u);
  }
  EXPECT_EQ(ParseCommitTag(meta[2])->run_id, ParseCommitTag(meta[3])->run_id);  // one cycle
  // The predicate literal is the cutoff of the clock: now - 30 days.
  EXPECT_NE(params[2].find("(ts <= TIMESTAMP '2025-12-02 00:00:00Z')"), std::string::npos)
      << params[2];
}

TEST_F(TtlServiceTest, T32ReplaceWithoutPolicyStopsScheduling) {
  CreateTtlTable("t", 30, /*dvs=*/true);
  Sql("CREATE OR REPLACE TABLE t (id INT, ts TIMESTAMP) USING DELTA");
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "')");
  EXPECT_TRUE(Pass().operations.empty());
  EXPECT_EQ(Ids("t"), (std::vector<std::string>{"1"}));
}

TEST_F(TtlServiceTest, DroppedPolicyLetsAStartedVacuumFinish) {
  CreateTtlTable("t", 30, /*dvs=*/false);
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "'), (2, TIMESTAMP '" +
      Ts(-1 * kDayMs) + "')");
  Pass();
  Sql("ALTER TABLE t UNSET TBLPROPERTIES ('autottl.expireInDays', 'autottl.timestampColumn')");
  clock_->AdvanceMillis(8 * kDayMs);
  EXPECT_EQ(OpTypes(Pass()), (std::vector<std::string>{"VACUUM:SUCCESSFUL"}));
  clock_->AdvanceMillis(400 * kDayMs);
  EXPECT_TRUE(Pass().operations.empty());
  EXPECT_EQ(Ids("t"), (std::vector<std::string>{"2"}));
}

TEST_F(TtlServiceTest, VacuumNeverDeletesTheStateDirectory) {
  EXPECT_TRUE(ops::IsHiddenName(kMaintenanceDir, {}, false));
  CreateTtlTable("t", 30, /*dvs=*/true);
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "'), (2, TIMESTAMP '" +
      Ts(-1 * kDayMs) + "')");
  Pass();
  clock_->AdvanceMillis(30 * kDayMs);
  Sql("SET spark.databricks.delta.retentionDurationCheck.enabled = false");
  Sql("VACUUM t RETAIN 0 HOURS");
  EXPECT_TRUE(TableStore("t")->Head(kStateKey).ok());
  // The service's VACUUM (then a DELETE of the rows expired since) still finds its state.
  PassReport r = Pass();
  ASSERT_FALSE(r.operations.empty());
  EXPECT_EQ(r.operations[0].operation_type, "VACUUM");
  EXPECT_TRUE(TableStore("t")->Head(kStateKey).ok());
}

TEST_F(TtlServiceTest, DryRunPlansWithoutCommitting) {
  CreateTtlTable("t", 30, /*dvs=*/true);
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "')");
  MaintenanceConfig c = Config();
  c.dry_run = true;
  PassReport r = Pass(c);
  EXPECT_TRUE(r.operations.empty());
  // The advisor's rows (as SHOW MAINTENANCE): one per job, DELETE due with its statement.
  ASSERT_EQ(r.advice.size(), 6u);
  EXPECT_EQ(r.advice[0].row.job, "DELETE");
  EXPECT_TRUE(r.advice[0].row.due);
  ASSERT_TRUE(r.advice[0].row.action.has_value());
  EXPECT_NE(r.advice[0].row.action->find("WHERE ts <= TIMESTAMP '2025-12-02"), std::string::npos)
      << *r.advice[0].row.action;
  std::vector<std::string> jobs;
  for (const auto& a : r.advice) jobs.push_back(a.row.job);
  EXPECT_EQ(jobs, (std::vector<std::string>{"DELETE", "PURGE", "VACUUM", "COMPACTION", "CHECKPOINT",
                                            "LOG_CLEANUP"}));
  EXPECT_EQ(Operations("t").back(), "WRITE");
  EXPECT_FALSE(TableStore("t")->Head(kStateKey).ok());
}

// The issue's "Must show": rows over 400 days, TTL 365; after the pass that runs with the clock
// past the retention no expired row is readable nor present in any data file, and the history
// table shows DELETE, PURGE, VACUUM as SUCCESSFUL.
TEST_F(TtlServiceTest, EndToEndRowsOver400DaysTtl365) {
  CreateTtlTable("events", 365, /*dvs=*/true);
  for (int chunk = 0; chunk < 4; ++chunk) {  // four files, each spanning 100 days
    std::string values;
    for (int d = chunk * 100; d < (chunk + 1) * 100; ++d) {
      if (!values.empty()) values += ", ";
      values += "(" + std::to_string(d) + ", TIMESTAMP '" +
                Ts(-static_cast<int64_t>(d) * kDayMs - 3600 * 1000) + "')";
    }
    Sql("INSERT INTO events VALUES " + values);
  }
  const std::string cutoff = Ts(-365 * kDayMs);
  ASSERT_EQ(Count("SELECT count(*) FROM events WHERE ts <= TIMESTAMP '" + cutoff + "'"), 35);
  PassReport first = Pass();
  EXPECT_EQ(OpTypes(first), (std::vector<std::string>{"DELETE:SUCCESSFUL", "PURGE:SUCCESSFUL"}));
  clock_->AdvanceMillis(7 * kDayMs + 60 * 1000);  // past delta.deletedFileRetentionDuration
  PassReport second = Pass();
  ASSERT_FALSE(second.operations.empty());
  EXPECT_EQ(second.operations[0].operation_type, "VACUUM");
  EXPECT_EQ(second.operations[0].operation_status, kStatusSuccessful);

  // Not readable: nothing at or before the first cutoff (nor the current one).
  EXPECT_EQ(Count("SELECT count(*) FROM events WHERE ts <= TIMESTAMP '" + cutoff + "'"), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM events WHERE ts <= TIMESTAMP '" +
                  Ts(7 * kDayMs + 60000 - 365 * kDayMs) + "'"),
            0);
  EXPECT_EQ(Count("SELECT count(*) FROM events"), 358);
  // Not present: read every Parquet file under the table root, live or not.
  const int64_t cutoff_us = (kNow - 365 * kDayMs) * 1000;
  const std::vector<int64_t> stored = StoredTs("events");
  EXPECT_FALSE(stored.empty());
  for (int64_t ts : stored) EXPECT_GT(ts, cutoff_us);
  // The history table.
  // (The second pass also deleted and purged the rows that expired in the 7 days between.)
  auto hist =
      Rows("SELECT operation_type, operation_status, count(*) FROM " + HistoryTable() +
           " WHERE operation_type IN ('DELETE', 'PURGE', 'VACUUM') GROUP BY 1, 2 ORDER BY 1, 2");
  EXPECT_EQ(hist, (std::vector<std::string>{"DELETE|SUCCESSFUL|2", "PURGE|SUCCESSFUL|2",
                                            "VACUUM|SUCCESSFUL|1"}));
}

// Spec A.1's worst case with a daily tick: rows expiring every day for 30 days, in files that
// mix expiry days (so DELETE writes deletion vectors and PURGE rewrites); every row is gone from
// every data file by expiry + 6 days + retention (7 days) at the latest. A pending VACUUM must not
// hold back the next DELETE, and the daily DELETEs must not postpone the VACUUM.
TEST_F(TtlServiceTest, LatencyBoundWithADailyTickAndRowsExpiringEveryDay) {
  CreateTtlTable("t", 30, /*dvs=*/true);
  const int64_t retention = 7 * kDayMs;
  // Row i (0..29) expires at kNow + i days + 12 h; three files of ten consecutive days each.
  for (int f = 0; f < 3; ++f) {
    std::string values;
    for (int i = f * 10; i < f * 10 + 10; ++i) {
      if (!values.empty()) values += ", ";
      values += "(" + std::to_string(i) + ", TIMESTAMP '" +
                Ts(-30 * kDayMs + i * kDayMs + 12 * 3600 * 1000) + "')";
    }
    Sql("INSERT INTO t VALUES " + values);
  }
  int vacuums = 0, deletes = 0;
  int64_t worst_ms = 0;  // the latest a row was still stored after its expiry
  for (int day = 1; day <= 50; ++day) {
    clock_->AdvanceMillis(kDayMs);
    PassReport r = Pass();
    for (const auto& op : r.operations) {
      EXPECT_EQ(op.operation_status, kStatusSuccessful) << op.operation_type;
      vacuums += op.operation_type == "VACUUM";
      deletes += op.operation_type == "DELETE";
    }
    const int64_t now = clock_->NowMillis();
    for (int64_t ts_us : StoredTs("t")) {
      const int64_t expiry = ts_us / 1000 + 30 * kDayMs;
      if (now > expiry) worst_ms = std::max(worst_ms, now - expiry);
      EXPECT_LE(now, expiry + kAutoTtlBufferDays * kDayMs + retention)
          << "day " << day << ": a row that expired at " << expiry << " is still stored";
    }
  }
  EXPECT_EQ(Count("SELECT count(*) FROM t"), 0);
  EXPECT_TRUE(StoredTs("t").empty());
  EXPECT_GE(deletes, 25);  // a DELETE at (almost) every tick, not one per VACUUM cycle
  EXPECT_GE(vacuums, 3);
  // With a daily tick: DELETE ≤ 1 day after expiry, VACUUM ≤ 1 day after the retention.
  EXPECT_LE(worst_ms, 2 * kDayMs + retention);
}

// T-27 end to end: a service pass, then both system table names and the seed's two monitoring
// queries (test/sql/ttl/operations_history.test) through SQL.
TEST_F(TtlServiceTest, T27SystemTablesShowTheServicesOperations) {
  CreateTtlTable("events", 30, /*dvs=*/true);
  Sql("INSERT INTO events VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "'), (2, TIMESTAMP '" +
      Ts(-1 * kDayMs) + "')");
  Pass();
  clock_->AdvanceMillis(8 * kDayMs);
  PassReport r = Pass();
  EXPECT_EQ(OpTypes(r), (std::vector<std::string>{"VACUUM:SUCCESSFUL"}));
  for (const char* t : {"system.storage.maintenance_operations_history",
                        "system.storage.predictive_optimization_operations_history"}) {
    EXPECT_EQ(Rows(std::string("SELECT operation_type, operation_status, table_name FROM ") + t +
                   " ORDER BY start_time, operation_type"),
              (std::vector<std::string>{"DELETE|SUCCESSFUL|events", "PURGE|SUCCESSFUL|events",
                                        "VACUUM|SUCCESSFUL|events"}))
        << t;
  }
  // Seed 004's first monitoring query (verbatim but the projection).
  EXPECT_EQ(Rows(R"(WITH tables_with_deletes AS (
  SELECT DISTINCT catalog_name, schema_name, table_name
  FROM system.storage.predictive_optimization_operations_history
  WHERE
    operation_type = 'DELETE'
    AND timestampdiff(day, start_time, now()) < 30
)
SELECT hist.operation_type, hist.schema_name
FROM system.storage.predictive_optimization_operations_history AS hist
INNER JOIN tables_with_deletes AS t
  ON hist.catalog_name = t.catalog_name
  AND hist.schema_name = t.schema_name
  AND hist.table_name = t.table_name
WHERE
  hist.operation_type IN ('DELETE', 'PURGE', 'VACUUM')
  AND timestampdiff(day, hist.start_time, now()) < 30
ORDER BY hist.start_time DESC, hist.operation_type)"),
            (std::vector<std::string>{"VACUUM|default", "DELETE|default", "PURGE|default"}));
  // The second (verbatim): silt records CPU_SECONDS, not ESTIMATED_DBU
  // (docs/maintenance-service.md), so the DBU sum is NULL; the same query over CPU_SECONDS sums the
  // three operations.
  const std::string dbu_query = R"(WITH tables_with_deletes AS (
  SELECT DISTINCT table_name
  FROM system.storage.predictive_optimization_operations_history
  WHERE
    operation_type = 'DELETE'
    AND timestampdiff(day, start_time, now()) < 30
)
SELECT SUM(usage_quantity) AS total_estimated_dbu
FROM system.storage.predictive_optimization_operations_history AS hist
INNER JOIN tables_with_deletes AS t
  ON hist.table_name = t.table_name
WHERE
  hist.operation_type IN ('DELETE', 'PURGE', 'VACUUM')
  AND hist.usage_unit = 'ESTIMATED_DBU'
  AND timestampdiff(day, hist.start_time, now()) < 30)";
  EXPECT_EQ(Rows(dbu_query), (std::vector<std::string>{"NULL"}));
  std::string cpu_query = dbu_query;
  cpu_query.replace(cpu_query.find("'ESTIMATED_DBU'"), 15, "'CPU_SECONDS'");
  auto cpu = Rows(cpu_query);
  ASSERT_EQ(cpu.size(), 1u);
  EXPECT_NE(cpu[0], "NULL");
}

// --- VACUUM bookkeeping with a short retention (issue 21) ---

// Forwards to `inner` and calls `on_write(key)` before each Put / PutHint / OpenWrite: e.g. the
// PURGE's rewrite of a data file, which happens after the DELETE's commit and before the REORG
// reads its commit time — where a test moves the clock by a millisecond.
class WriteHookStore final : public ForwardingObjectStore {
 public:
  WriteHookStore(std::shared_ptr<ObjectStore> inner,
                 std::function<void(const std::string&)> on_write)
      : ForwardingObjectStore(std::move(inner)), on_write_(std::move(on_write)) {}
  Status Put(const std::string& key, std::string_view data) override {
    on_write_(key);
    return inner().Put(key, data);
  }
  Status PutHint(const std::string& key, std::string_view data) override {
    on_write_(key);
    return inner().PutHint(key, data);
  }
  Result<std::unique_ptr<WritableFile>> OpenWrite(const std::string& key) override {
    on_write_(key);
    return inner().OpenWrite(key);
  }

 private:
  std::function<void(const std::string&)> on_write_;
};

bool IsDataFile(const std::string& key) {
  return key.size() > 8 && key.compare(key.size() - 8, 8, ".parquet") == 0 &&
         key.rfind("_delta_log/", 0) != 0;
}

class VacuumBookkeepingTest : public TtlServiceTest {
 protected:
  // A DV table with a zero retention (as bench/maintenance.sh sets it): one file with an expired
  // and a live row, so DELETE writes a deletion vector and PURGE rewrites the file.
  void CreateZeroRetentionTable(const std::string& name) {
    CreateTtlTable(name, 30, /*dvs=*/true);
    Sql("ALTER TABLE " + name +
        " SET TBLPROPERTIES ('delta.deletedFileRetentionDuration' = 'interval 0 hours')");
    Sql("INSERT INTO " + name + " VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) +
        "'), (2, TIMESTAMP '" + Ts(-1 * kDayMs) + "')");
  }
  // The service's config with the clock moved by `data_ms` before every data-file write of the
  // pass (the PURGE's rewrite: after the DELETE, before the REORG takes its time), and by what
  // `also(key)` returns before any other write.
  MaintenanceConfig TickingConfig(int64_t data_ms,
                                  std::function<int64_t(const std::string&)> also = nullptr) {
    MaintenanceConfig c = Config();
    c.open_store = [this, data_ms,
                    also](const std::string& location) -> Result<std::shared_ptr<ObjectStore>> {
      SILT_ASSIGN_OR_RETURN(auto inner, OpenObjectStore(location, clock_));
      return std::shared_ptr<ObjectStore>(
          std::make_shared<WriteHookStore>(inner, [this, data_ms, also](const std::string& key) {
            clock_->AdvanceMillis(IsDataFile(key) ? data_ms : also ? also(key) : 0);
          }));
    };
    return c;
  }
  // Data files (and deletion vectors) stored under the table root, live or not.
  int64_t StoredDataFiles(const std::string& table) {
    int64_t n = 0;
    Status st = TableStore(table)->ListRecursive("", [&](const ObjectMeta& m) -> Status {
      if (!m.is_dir && m.key.rfind("_delta_log/", 0) != 0 && m.key.rfind("_silt", 0) != 0) ++n;
      return Status::OK();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    return n;
  }
  TableState State(const std::string& table) {
    auto s = LoadState(*TableStore(table));
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : TableState{};
  }
  // The newest commit's time as VACUUM LITE sees it (the log listing, mtimes made increasing).
  int64_t LastCommitTime(const std::string& table) {
    auto commits = delta::ListCommits(*TableStore(table));
    EXPECT_TRUE(commits.ok() && !commits->empty());
    return commits.ok() && !commits->empty() ? commits->back().timestamp_ms : -1;
  }
};

// The PURGE ends 1 ms after the DELETE. A VACUUM in the PURGE's millisecond would delete the
// DELETE's removes but not the purged file (removed at its cutoff, not before), nor would it when
// the REORG commit's time as the log lists it (the mtime, made increasing: here ahead of the
// clock) is not before its cutoff — VACUUM LITE looks only at older commits. No such VACUUM runs:
// the cycle has one entry, the later of both, and it stays until a VACUUM covers it; then the
// files are gone and the state is IDLE.
TEST_F(VacuumBookkeepingTest, AVacuumRunsOnlyWhenItCoversTheCycle) {
  CreateZeroRetentionTable("t");
  const int64_t t0 = clock_->NowMillis();
  EXPECT_EQ(StoredDataFiles("t"), 1);
  PassReport r = Pass(TickingConfig(1));
  EXPECT_EQ(OpTypes(r), (std::vector<std::string>{"DELETE:SUCCESSFUL", "PURGE:SUCCESSFUL"}));
  EXPECT_EQ(clock_->NowMillis(), t0 + 1);
  EXPECT_EQ(Operations("t").back(), "REORG");
  const int64_t purge_commit = LastCommitTime("t");
  EXPECT_GE(purge_commit, t0 + 1);
  // The original file, its DV and the PURGE's rewrite: nothing vacuumed yet.
  EXPECT_EQ(StoredDataFiles("t"), 3);
  TableState s = State("t");
  EXPECT_EQ(s.phase, TtlPhase::kVacuumDue);
  EXPECT_EQ(s.unvacuumed_ms, (std::vector<int64_t>{purge_commit}));  // one entry: the PURGE's
  EXPECT_EQ(s.unvacuumed_versions, (std::vector<int64_t>{s.purge_version}));
  EXPECT_EQ(s.vacuum_due_ms, purge_commit + 1);
  // The REORG's millisecond: nothing is due.
  clock_->AdvanceMillis(purge_commit - clock_->NowMillis());
  EXPECT_TRUE(Pass().operations.empty());
  clock_->AdvanceMillis(1);
  r = Pass();
  ASSERT_EQ(OpTypes(r), (std::vector<std::string>{"VACUUM:SUCCESSFUL"}));
  EXPECT_EQ(Metric(r.operations[0], "vacuum_mode"), "LITE");
  EXPECT_EQ(Metric(r.operations[0], "num_vacuumed_files"), "2");  // the purged file and its DV
  EXPECT_EQ(StoredDataFiles("t"), 1);
  EXPECT_EQ(StoredTs("t").size(), 1u);  // only the live row is stored
  s = State("t");
  EXPECT_EQ(s.phase, TtlPhase::kIdle);
  EXPECT_TRUE(s.unvacuumed_ms.empty());
  // Nothing left: no VACUUM that deletes nothing.
  clock_->AdvanceMillis(1000);
  EXPECT_TRUE(Pass().operations.empty());
}

// When the clock is past the cycle's entry right after the PURGE, the same pass's VACUUM covers
// the whole cycle.
TEST_F(VacuumBookkeepingTest, AVacuumDueRightAfterThePurgeDeletesEverything) {
  CreateZeroRetentionTable("t");
  const int64_t t0 = clock_->NowMillis();
  // The clock moves 10 ms when the PURGE's state is saved: past the REORG commit's time.
  bool purged = false;
  MaintenanceConfig c = TickingConfig(1, [&](const std::string& key) -> int64_t {
    return purged && key.find("state.json") != std::string::npos ? 10 : 0;
  });
  c.log = [&](const std::string& line) {
    if (line.find(" PURGE SUCCESSFUL") != std::string::npos) purged = true;
  };
  PassReport r = Pass(c);
  ASSERT_EQ(OpTypes(r), (std::vector<std::string>{"DELETE:SUCCESSFUL", "PURGE:SUCCESSFUL",
                                                  "VACUUM:SUCCESSFUL"}));
  EXPECT_GE(clock_->NowMillis(), t0 + 11);
  EXPECT_EQ(Metric(r.operations[2], "num_vacuumed_files"), "2");
  EXPECT_EQ(StoredDataFiles("t"), 1);
  TableState s = State("t");
  EXPECT_EQ(s.phase, TtlPhase::kIdle);
  EXPECT_TRUE(s.unvacuumed_ms.empty());
  EXPECT_TRUE(Pass().operations.empty());
}

// A VACUUM that becomes due while the pass works on later tables runs at the end of the pass
// (under the lease still held), not at the next tick; one not due by then is left to the next
// tick and its lease released.
TEST_F(VacuumBookkeepingTest, AVacuumDueDuringThePassRunsAtItsEnd) {
  CreateZeroRetentionTable("a");
  CreateZeroRetentionTable("b");
  // Each PURGE's rewrite moves the clock 5 ms: a's cycle is due before the pass ends, b's (whose
  // PURGE is the pass's last step) is not.
  PassReport r = Pass(TickingConfig(5));
  std::vector<std::string> seen;
  for (const auto& op : r.operations) seen.push_back(op.table_name + ":" + op.operation_type);
  EXPECT_EQ(seen,
            (std::vector<std::string>{"a:DELETE", "a:PURGE", "b:DELETE", "b:PURGE", "a:VACUUM"}));
  for (const auto& op : r.operations) EXPECT_EQ(op.operation_status, kStatusSuccessful);
  EXPECT_LE(State("b").vacuum_due_ms, clock_->NowMillis() + 1000);
  EXPECT_GT(State("b").vacuum_due_ms, clock_->NowMillis());
  EXPECT_EQ(StoredDataFiles("a"), 1);
  EXPECT_EQ(State("a").phase, TtlPhase::kIdle);
  EXPECT_EQ(StoredDataFiles("b"), 3);
  EXPECT_EQ(State("b").phase, TtlPhase::kVacuumDue);
  for (const char* t : {"a", "b"}) {
    auto lease = LeaseManager::Current(*TableStore(t));
    ASSERT_TRUE(lease.ok() && lease->has_value()) << t;
    EXPECT_TRUE((*lease)->released) << t;
  }
  clock_->AdvanceMillis(State("b").vacuum_due_ms - clock_->NowMillis());
  EXPECT_EQ(OpTypes(Pass()), (std::vector<std::string>{"VACUUM:SUCCESSFUL"}));
  EXPECT_EQ(StoredDataFiles("b"), 1);
}

// Lists commit files `lag_ms` earlier than they were written, as a file system whose mtimes come
// from a coarse clock does (Linux's lag the precise clock by up to a tick).
class LaggingMtimeStore final : public ForwardingObjectStore {
 public:
  LaggingMtimeStore(std::shared_ptr<ObjectStore> inner, int64_t lag_ms)
      : ForwardingObjectStore(std::move(inner)), lag_ms_(lag_ms) {}
  Result<std::vector<ObjectMeta>> ListFrom(const std::string& key) override {
    SILT_ASSIGN_OR_RETURN(std::vector<ObjectMeta> out, inner().ListFrom(key));
    for (ObjectMeta& m : out)
      if (m.key.rfind("_delta_log/", 0) == 0) m.modification_time_ms -= lag_ms_;
    return out;
  }

 private:
  int64_t lag_ms_;
};

// A VACUUM LITE whose cutoff falls between a younger cycle's commit time (as the log lists it,
// an mtime lagging the clock) and its removes' time: LITE's window reaches that commit without
// deleting its files, so its watermark stops before the commit (ops/vacuum.cc). The state keeps
// the cycle and the next VACUUM LITE reads that commit again and deletes them.
TEST_F(VacuumBookkeepingTest, ALiteWindowPastAYoungCommitLeavesItToTheNextLiteRun) {
  CreateTtlTable("t", 30, /*dvs=*/false);
  const int64_t retention = 30 * 60 * 1000;
  Sql("ALTER TABLE t SET TBLPROPERTIES ('delta.deletedFileRetentionDuration' = 'interval 30 "
      "minutes')");
  // File A expired an hour ago; file B expires in 5 minutes. Each wholly: DELETE removes it.
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '" + Ts(-30 * kDayMs - 3600 * 1000) + "')");
  Sql("INSERT INTO t VALUES (2, TIMESTAMP '" + Ts(-30 * kDayMs + 5 * 60 * 1000) + "')");
  Sql("INSERT INTO t VALUES (3, TIMESTAMP '" + Ts(-kDayMs) + "')");
  MaintenanceConfig c = Config();
  c.open_store = [this](const std::string& location) -> Result<std::shared_ptr<ObjectStore>> {
    SILT_ASSIGN_OR_RETURN(auto inner, OpenObjectStore(location, clock_));
    return std::shared_ptr<ObjectStore>(std::make_shared<LaggingMtimeStore>(inner, 10));
  };
  EXPECT_EQ(OpTypes(Pass(c)), (std::vector<std::string>{"DELETE:SUCCESSFUL"}));  // A
  clock_->AdvanceMillis(10 * 60 * 1000);
  EXPECT_EQ(OpTypes(Pass(c)), (std::vector<std::string>{"DELETE:SUCCESSFUL"}));  // B
  const int64_t t2 = clock_->NowMillis();
  EXPECT_EQ(StoredDataFiles("t"), 3);
  // Cutoff t2 − 5 ms: after A's removal, before B's, after B's commit as listed (t2 − 10 ms).
  clock_->AdvanceMillis(retention - 5);
  PassReport r = Pass(c);
  ASSERT_EQ(OpTypes(r), (std::vector<std::string>{"VACUUM:SUCCESSFUL"}));
  EXPECT_EQ(Metric(r.operations[0], "vacuum_mode"), "LITE");
  EXPECT_EQ(Metric(r.operations[0], "num_vacuumed_files"), "1");  // A
  EXPECT_EQ(StoredDataFiles("t"), 2);
  TableState s = State("t");
  EXPECT_EQ(s.phase, TtlPhase::kVacuumDue);
  EXPECT_EQ(s.unvacuumed_ms, (std::vector<int64_t>{t2}));
  EXPECT_FALSE(s.vacuum_full);
  clock_->AdvanceMillis(6);
  r = Pass(c);
  ASSERT_EQ(OpTypes(r), (std::vector<std::string>{"VACUUM:SUCCESSFUL"}));
  EXPECT_EQ(Metric(r.operations[0], "vacuum_mode"), "LITE");
  EXPECT_EQ(Metric(r.operations[0], "num_vacuumed_files"), "1");  // B
  EXPECT_EQ(StoredDataFiles("t"), 1);
  EXPECT_EQ(Ids("t"), (std::vector<std::string>{"3"}));
  s = State("t");
  EXPECT_EQ(s.phase, TtlPhase::kIdle);
  EXPECT_FALSE(s.vacuum_full);
}

// A cycle waiting for its VACUUM's retention costs a pass no lease (no put-if-absent, no state
// write) until the VACUUM is due.
TEST_F(VacuumBookkeepingTest, AWaitingVacuumTakesNoLeaseUntilDue) {
  CreateTtlTable("t", 30, /*dvs=*/true);
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "'), (2, TIMESTAMP '" +
      Ts(-1 * kDayMs) + "')");
  EXPECT_EQ(OpTypes(Pass()), (std::vector<std::string>{"DELETE:SUCCESSFUL", "PURGE:SUCCESSFUL"}));
  auto generation = [&] {
    auto lease = LeaseManager::Current(*TableStore("t"));
    EXPECT_TRUE(lease.ok() && lease->has_value());
    return lease.ok() && lease->has_value() ? (*lease)->generation : -1;
  };
  const int64_t g = generation();
  const TableState before = State("t");
  for (int day = 1; day <= 6; ++day) {
    clock_->AdvanceMillis(kDayMs);
    EXPECT_TRUE(Pass().operations.empty());
  }
  EXPECT_EQ(generation(), g);
  EXPECT_EQ(State("t"), before);
  clock_->AdvanceMillis(kDayMs + 1);  // the retention (7 days) + 1 ms
  EXPECT_EQ(OpTypes(Pass()), (std::vector<std::string>{"VACUUM:SUCCESSFUL"}));
  EXPECT_EQ(generation(), g + 1);
}

}  // namespace
}  // namespace silt::maintenance
