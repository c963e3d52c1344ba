// Leases (put-if-absent, expiry from the clock, safe take-over), the persisted state's JSON, the
// cutoff arithmetic, two service instances racing on one warehouse, and the routine jobs.
#include <gtest/gtest.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "delta/log_segment.h"
#include "delta/snapshot.h"
#include "delta/table_writer.h"
#include "io/memory_object_store.h"
#include "io/read_confinement.h"
#include "maintenance/expiry.h"
#include "maintenance/history_writer.h"
#include "maintenance/lease.h"
#include "maintenance/state.h"
#include "unit/maintenance/maintenance_test_util.h"

namespace silt::maintenance {
namespace {

using testing::kDayMs;
using testing::kNow;
using testing::OpTypes;

TEST(Lease, PutIfAbsentGivesOneHolderAndExpiryAllowsTakeOver) {
  auto clock = std::make_shared<ManualClock>(kNow);
  InMemoryObjectStore store(clock);
  LeaseManager a(clock, "a", 60 * 1000), b(clock, "b", 60 * 1000);
  auto la = a.TryAcquire(store);
  ASSERT_TRUE(la.ok() && la->has_value());
  EXPECT_EQ((*la)->generation, 1);
  auto lb = b.TryAcquire(store);
  ASSERT_TRUE(lb.ok());
  EXPECT_FALSE(lb->has_value());  // held by a
  EXPECT_TRUE(*a.StillHeld(store, **la));
  // a's lease expires: b takes over with a new generation; a no longer holds it.
  clock->AdvanceMillis(60 * 1000);
  lb = b.TryAcquire(store);
  ASSERT_TRUE(lb.ok() && lb->has_value());
  EXPECT_EQ((*lb)->generation, 2);
  EXPECT_FALSE(*a.StillHeld(store, **la));
  // a's late release does not free b's lease.
  ASSERT_TRUE(a.Release(store, **la).ok());
  auto again = a.TryAcquire(store);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->has_value());
  // b releases: a gets it at once.
  ASSERT_TRUE(b.Release(store, **lb).ok());
  again = a.TryAcquire(store);
  ASSERT_TRUE(again.ok() && again->has_value());
  EXPECT_EQ((*again)->generation, 3);
  // Only the newest generation object is kept.
  auto listed = store.ListFrom(std::string(kMaintenanceDir) + "/");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), 1u);
}

TEST(Lease, AnEmptyLeaseObjectReadsAsReleased) {
  auto clock = std::make_shared<ManualClock>(kNow);
  InMemoryObjectStore store(clock);
  LeaseManager a(clock, "a", 60 * 1000), b(clock, "b", 60 * 1000);
  auto la = a.TryAcquire(store);
  ASSERT_TRUE(la.ok() && la->has_value());
  EXPECT_FALSE(b.TryAcquire(store)->has_value());  // held by a
  // a crashed while writing its release (a hint): the object is empty.
  ASSERT_TRUE(store.Put(LeaseKey((*la)->generation), "").ok());
  auto lb = b.TryAcquire(store);
  ASSERT_TRUE(lb.ok()) << lb.status().ToString();
  ASSERT_TRUE(lb->has_value());
  EXPECT_EQ((*lb)->generation, (*la)->generation + 1);
  EXPECT_TRUE(*b.StillHeld(store, **lb));
}

TEST(Lease, RenewedAtHalfLifeAndExpiringWithoutIt) {
  auto clock = std::make_shared<ManualClock>(kNow);
  InMemoryObjectStore store(clock);
  LeaseManager me(clock, "me", 1000), other(clock, "other", 1000);
  auto got = me.TryAcquire(store);
  ASSERT_TRUE(got.ok() && got->has_value());
  Lease lease = **got;
  clock->AdvanceMillis(400);  // more than half left: nothing written
  auto held = me.CheckAndRenew(store, &lease);
  ASSERT_TRUE(held.ok());
  EXPECT_TRUE(*held);
  EXPECT_EQ(lease.expires_ms, kNow + 1000);
  clock->AdvanceMillis(200);  // less than half left: extended to now + duration, in the store too
  held = me.CheckAndRenew(store, &lease);
  ASSERT_TRUE(held.ok());
  EXPECT_TRUE(*held);
  EXPECT_EQ(lease.expires_ms, kNow + 1600);
  auto current = LeaseManager::Current(store);
  ASSERT_TRUE(current.ok() && current->has_value());
  EXPECT_EQ((*current)->expires_ms, kNow + 1600);
  EXPECT_EQ((*current)->generation, lease.generation);
  // Past the former expiry the other process still cannot take the table.
  clock->AdvanceMillis(500);
  auto taken = other.TryAcquire(store);
  ASSERT_TRUE(taken.ok());
  EXPECT_FALSE(taken->has_value());
  // A holder that stops renewing loses it at its expiry.
  clock->AdvanceMillis(500);
  held = me.CheckAndRenew(store, &lease);
  ASSERT_TRUE(held.ok());
  EXPECT_FALSE(*held);
  taken = other.TryAcquire(store);
  ASSERT_TRUE(taken.ok());
  EXPECT_TRUE(taken->has_value());
}

// usage_quantity is the CPU of every thread that worked for an operation: a pool thread's work
// counts while the calling thread only waits for it.
TEST(OperationCpu, CountsTheCpuOfOtherThreads) {
  const double before = ProcessCpuSeconds();
  std::thread worker([] {
    auto thread_cpu = [] {
      timespec ts{};
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
      return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
    };
    const double start = thread_cpu();
    volatile uint64_t x = 0;
    while (thread_cpu() - start < 0.05) x = x + 1;
  });
  worker.join();
  EXPECT_GE(ProcessCpuSeconds() - before, 0.05);
}

TEST(Lease, RacingAcquirersGetExactlyOneLease) {
  auto clock = std::make_shared<ManualClock>(kNow);
  auto store = std::make_shared<InMemoryObjectStore>(clock);
  for (int round = 0; round < 20; ++round) {
    std::atomic<int> winners{0};
    std::vector<std::thread> threads;
    std::vector<std::unique_ptr<LeaseManager>> managers;
    for (int i = 0; i < 4; ++i) {
      managers.push_back(std::make_unique<LeaseManager>(clock, "p" + std::to_string(i), 1000));
    }
    for (int i = 0; i < 4; ++i) {
      threads.emplace_back([&, i] {
        auto l = managers[i]->TryAcquire(*store);
        if (l.ok() && l->has_value()) ++winners;
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(winners.load(), 1) << "round " << round;
    clock->AdvanceMillis(1000);  // every lease of this round expires
  }
}

TEST(MaintenanceState, SavedAsAHintAnEmptyStateReadsAsNone) {
  auto clock = std::make_shared<ManualClock>(kNow);
  InMemoryObjectStore store(clock);
  TableState s;
  s.phase = TtlPhase::kVacuumDue;
  s.unvacuumed_ms = {kNow};
  s.unvacuumed_versions = {3};
  s.vacuum_due_ms = kNow + 7 * kDayMs + 1;
  ASSERT_TRUE(SaveState(store, s).ok());
  auto back = LoadState(store);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, s);
  // A crash right after a hint's write may leave it empty: no state (rebuilt from history).
  ASSERT_TRUE(store.Put(kStateKey, "").ok());
  back = LoadState(store);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, TableState{});
  // Garbage is still corruption.
  ASSERT_TRUE(store.Put(kStateKey, "{").ok());
  EXPECT_EQ(LoadState(store).status().error_class(), "SILT_MAINTENANCE_STATE_CORRUPT");
}

TEST(MaintenanceState, JsonRoundTripAndCommitTag) {
  TableState s;
  s.phase = TtlPhase::kPurgeDue;
  s.run_id = "r-1";
  s.cutoff = "(ts <= TIMESTAMP '2025-12-02 00:00:00Z')";
  s.delete_version = 4;
  s.delete_time_ms = kNow;
  s.dv_files = {"part-0.parquet", "a b/\"x\".parquet"};
  s.purge_version = -1;
  s.vacuum_due_ms = kNow + 7 * kDayMs;
  s.unvacuumed_ms = {kNow - kDayMs, kNow};
  s.unvacuumed_versions = {2, 4};
  s.vacuum_full = true;
  s.last_seen_version = 4;
  s.failures = 2;
  s.next_attempt_ms = kNow + 5;
  auto back = ParseState(SerializeState(s));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, s);
  // A state of an older silt (no versions): each entry's version is unknown.
  auto old = ParseState("{\"phase\":\"VACUUM_DUE\",\"unvacuumedMs\":[5,6]}");
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->unvacuumed_versions, (std::vector<int64_t>{-1, -1}));
  EXPECT_FALSE(old->vacuum_full);
  EXPECT_EQ(ParseState("{\"phase\":\"NOPE\"}").status().error_class(),
            "SILT_MAINTENANCE_STATE_CORRUPT");
  EXPECT_FALSE(ParseState("[").ok());
  auto tag = ParseCommitTag(CommitTag("autottl", "abc"));
  ASSERT_TRUE(tag.has_value());
  EXPECT_EQ(tag->trigger, "autottl");
  EXPECT_EQ(tag->run_id, "abc");
  EXPECT_FALSE(ParseCommitTag("not json").has_value());
  EXPECT_FALSE(ParseCommitTag("{\"trigger\":\"x\"}").has_value());
}

class ServiceTest : public testing::MaintenanceFixture {};

TEST_F(ServiceTest, CutoffPerColumnTypeAndBadColumns) {
  Sql("CREATE TABLE c (a TIMESTAMP, b TIMESTAMP_NTZ, d DATE, s STRING) USING DELTA");
  auto snap = delta::Snapshot::Load(TableStore("c"));
  ASSERT_TRUE(snap.ok());
  const int64_t now = kNow + 12 * 3600 * 1000 + 345;  // 2026-01-01T12:00:00.345Z
  auto a = ComputeCutoff({"a", 1}, **snap, now);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->literal, "TIMESTAMP '2025-12-31 12:00:00.345Z'");
  EXPECT_EQ(a->value, (now - kDayMs) * 1000);
  auto b = ComputeCutoff({"B", 0}, **snap, now);  // case-insensitive
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->predicate_sql, "(b <= TIMESTAMP_NTZ '2026-01-01 12:00:00.345')");
  auto d = ComputeCutoff({"d", 1}, **snap, now);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->literal, "DATE '2025-12-31'");
  EXPECT_EQ(ComputeCutoff({"s", 1}, **snap, now).status().error_class(), kErrorTtlColumnType);
  EXPECT_EQ(ComputeCutoff({"zz", 1}, **snap, now).status().error_class(), kErrorTtlColumnNotFound);
}

TEST_F(ServiceTest, PrecheckSkipsTablesWithNothingExpired) {
  Sql("CREATE TABLE t (id INT, ts TIMESTAMP) USING DELTA TBLPROPERTIES ('autottl.expireInDays' = "
      "'30', "
      "'autottl.timestampColumn' = 'ts')");
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '2025-12-31 00:00:00'), (2, NULL)");
  auto snap = delta::Snapshot::Load(TableStore("t"));
  ASSERT_TRUE(snap.ok());
  auto cutoff = ComputeCutoff({"ts", 30}, **snap, kNow);
  ASSERT_TRUE(cutoff.ok());
  EXPECT_FALSE(*MayHaveExpiredRows(*cutoff, **snap));
  EXPECT_TRUE(Pass().operations.empty());
  EXPECT_EQ(Operations("t").back(), "WRITE");  // no commit at all
  auto later = ComputeCutoff({"ts", 30}, **snap, kNow + 40 * kDayMs);
  ASSERT_TRUE(later.ok());
  EXPECT_TRUE(*MayHaveExpiredRows(*later, **snap));
}

TEST_F(ServiceTest, TwoServicesRacingOnOneWarehouseDeleteOnce) {
  for (const char* name : {"a", "b", "c"}) {
    Sql(std::string("CREATE TABLE ") + name +
        " (id INT, ts TIMESTAMP) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = "
        "'true', "
        "'autottl.expireInDays' = '30', 'autottl.timestampColumn' = 'ts')");
    Sql(std::string("INSERT INTO ") + name +
        " VALUES (1, TIMESTAMP '2025-01-01 00:00:00'), (2, TIMESTAMP '2025-12-31 00:00:00')");
  }
  std::vector<PassReport> reports(2);
  std::vector<std::thread> threads;
  for (int i = 0; i < 2; ++i) {
    threads.emplace_back([&, i] {
      MaintenanceConfig c = Config();
      c.wait = nullptr;  // the clock is shared: no simulated waits from two threads
      c.owner_id = "service-" + std::to_string(i);
      MaintenanceService s(warehouse_, clock_, c);
      auto tables = s.WarehouseTables();
      if (!tables.ok()) return;
      auto r = s.RunPass(*tables);
      if (r.ok()) reports[i] = *r;
    });
  }
  for (auto& t : threads) t.join();
  for (const char* name : {"a", "b", "c"}) {
    auto ops = Operations(name);
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "DELETE"), 1) << name;
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "REORG"), 1) << name;
    EXPECT_EQ(Count(std::string("SELECT count(*) FROM ") + name), 1) << name;
  }
  EXPECT_EQ(Count("SELECT count(*) FROM " + HistoryTable() + " WHERE operation_type = 'DELETE'"),
            3);
}

TEST_F(ServiceTest, LeasedTableIsSkipped) {
  Sql("CREATE TABLE t (id INT, ts TIMESTAMP) USING DELTA TBLPROPERTIES ('autottl.expireInDays' = "
      "'30', "
      "'autottl.timestampColumn' = 'ts')");
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '2025-01-01 00:00:00')");
  LeaseManager other(clock_, "another-process", 3600 * 1000);
  auto held = other.TryAcquire(*TableStore("t"));
  ASSERT_TRUE(held.ok() && held->has_value());
  PassReport r = Pass();
  EXPECT_TRUE(r.operations.empty());
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_NE(r.skipped[0].find("leased"), std::string::npos);
  clock_->AdvanceMillis(3600 * 1000);  // the other process died: its lease expires
  EXPECT_EQ(OpTypes(Pass()), (std::vector<std::string>{"DELETE:SUCCESSFUL"}));
}

TEST_F(ServiceTest, ALeaseThatExpiresMidRunStopsBeforeTheNextStep) {
  Sql("CREATE TABLE t (id INT, ts TIMESTAMP) USING DELTA TBLPROPERTIES "
      "('delta.enableDeletionVectors' = "
      "'true', 'autottl.expireInDays' = '30', 'autottl.timestampColumn' = 'ts')");
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '2025-01-01 00:00:00'), (2, TIMESTAMP '2025-12-31 "
      "00:00:00'), "
      "(3, TIMESTAMP '2025-12-31 00:00:00')");
  MaintenanceConfig c = Config();
  c.lease_duration_ms = 500;  // shorter than the retry backoff (1 s) the conflict below causes
  c.open_store = [&](const std::string& location) -> Result<std::shared_ptr<ObjectStore>> {
    SILT_ASSIGN_OR_RETURN(auto inner, OpenObjectStore(location, clock_));
    return std::shared_ptr<ObjectStore>(std::make_shared<testing::InterceptingStore>(
        inner, [&] { EXPECT_TRUE(con_->Query("DELETE FROM t WHERE id = 3").ok()); }));
  };
  PassReport r = Pass(c);
  // The DELETE retried (the wait moved the clock past the lease) and committed, but PURGE did
  // not start without the lease.
  EXPECT_EQ(OpTypes(r), (std::vector<std::string>{"DELETE:SUCCESSFUL"}));
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_NE(r.skipped[0].find("lease expired"), std::string::npos) << r.skipped[0];
  // The next pass (a fresh lease) continues the cycle.
  EXPECT_EQ(OpTypes(Pass()), (std::vector<std::string>{"PURGE:SUCCESSFUL"}));
  auto ops = Operations("t");
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "DELETE"), 2);  // the user's and the TTL's
  EXPECT_EQ(ops.back(), "REORG");
}

// A run that outlasts half of its lease renews it before the next step: a second process cannot
// take the table over at the lease's first expiry while the first one still works on it.
TEST_F(ServiceTest, ALongRunRenewsItsLease) {
  Sql("CREATE TABLE t (id INT, ts TIMESTAMP) USING DELTA TBLPROPERTIES "
      "('delta.enableDeletionVectors' = 'true', 'autottl.expireInDays' = '30', "
      "'autottl.timestampColumn' = 'ts')");
  Sql("INSERT INTO t VALUES (1, TIMESTAMP '2025-01-01 00:00:00'), (2, TIMESTAMP '2025-12-31 "
      "00:00:00'), (3, TIMESTAMP '2025-12-31 00:00:00')");
  MaintenanceConfig c = Config();
  c.lease_duration_ms = 3000;
  c.retry_backoff_ms = 2000;  // the DELETE's retry uses two thirds of the lease
  c.open_store = [&](const std::string& location) -> Result<std::shared_ptr<ObjectStore>> {
    SILT_ASSIGN_OR_RETURN(auto inner, OpenObjectStore(location, clock_));
    return std::shared_ptr<ObjectStore>(std::make_shared<testing::InterceptingStore>(
        inner, [&] { EXPECT_TRUE(con_->Query("DELETE FROM t WHERE id = 3").ok()); }));
  };
  const int64_t start = clock_->NowMillis();
  PassReport r = Pass(c);
  EXPECT_EQ(OpTypes(r), (std::vector<std::string>{"DELETE:SUCCESSFUL", "PURGE:SUCCESSFUL"}));
  auto lease = LeaseManager::Current(*TableStore("t"));
  ASSERT_TRUE(lease.ok() && lease->has_value());
  // Renewed before the PURGE (2 s into the run): it lasted to 2 s + 3 s, not to 3 s.
  EXPECT_EQ((*lease)->expires_ms, start + 2000 + 3000);
  EXPECT_TRUE((*lease)->released);
}

TEST_F(ServiceTest, APolicyOnANonTimeColumnFailsAndBacksOff) {
  // Written below SQL (which validates the policy): a path table whose policy names a STRING.
  auto store = OpenObjectStore(warehouse_ + "/raw", clock_);
  ASSERT_TRUE(store.ok());
  delta::CreateTableOptions o;
  o.properties.Set("autottl.expireInDays", "1");
  o.properties.Set("autottl.timestampColumn", "s");
  o.txn.clock = clock_;
  o.write.clock = clock_;
  ASSERT_TRUE(
      delta::CreateTable(*store, Schema{Field{"s", DataType::String(), true, "{}"}}, {}, o).ok());
  MaintenanceService service(warehouse_, clock_, Config());
  const std::vector<MaintainedTable> tables{{warehouse_ + "/raw", "", "", warehouse_ + "/raw"}};
  auto r = service.RunPass(tables);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->operations.size(), 1u);
  EXPECT_EQ(r->operations[0].operation_status, kStatusFailed);
  EXPECT_EQ(testing::Metric(r->operations[0], "error_class"), kErrorTtlColumnType);
  EXPECT_EQ(r->operations[0].table_name, warehouse_ + "/raw");
  r = service.RunPass(tables);  // inside the backoff: no second FAILED row
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->operations.empty());
  EXPECT_EQ(Count("SELECT count(*) FROM " + HistoryTable()), 1);
}

TEST_F(ServiceTest, AStopRequestEndsThePassAfterTheCurrentTable) {
  for (const char* name : {"a", "b"}) {
    Sql(std::string("CREATE TABLE ") + name +
        " (id INT, ts TIMESTAMP) USING DELTA TBLPROPERTIES ('autottl.expireInDays' = '30', "
        "'autottl.timestampColumn' = 'ts')");
    Sql(std::string("INSERT INTO ") + name + " VALUES (1, TIMESTAMP '2025-01-01 00:00:00')");
  }
  MaintenanceConfig c = Config();
  int asked = 0;
  c.should_stop = [&] { return ++asked > 1; };  // the signal arrives during the first table
  PassReport r = Pass(c);
  EXPECT_EQ(r.tables, 1);
  EXPECT_EQ(OpTypes(r), (std::vector<std::string>{"DELETE:SUCCESSFUL"}));
  EXPECT_EQ(Count("SELECT count(*) FROM a"), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM b"), 1);  // left for the next run
}

TEST_F(ServiceTest, RoutineCompactionCheckpointAndLogCleanup) {
  Sql("CREATE TABLE r (id INT) USING DELTA TBLPROPERTIES ('delta.checkpointInterval' = '100', "
      "'delta.logRetentionDuration' = 'interval 1 days')");
  for (int i = 0; i < 12; ++i) Sql("INSERT INTO r VALUES (" + std::to_string(i) + ")");
  MaintenanceConfig c = Config();
  c.routine_jobs = true;
  c.conf = [](const std::string& key) -> std::optional<std::string> {
    if (key == kCompactionMinFilesConf) return "10";
    return std::nullopt;
  };
  PassReport r = Pass(c);
  EXPECT_EQ(OpTypes(r), (std::vector<std::string>{"COMPACTION:SUCCESSFUL"}));
  EXPECT_EQ(Operations("r").back(), "OPTIMIZE");
  EXPECT_EQ(HistoryColumn("r", "userName").back(), "silt-maintenance");
  auto snap = delta::Snapshot::Load(TableStore("r"));
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ((*snap)->files().size(), 1u);
  EXPECT_EQ(Count("SELECT count(*) FROM r"), 12);
  // A lower checkpoint interval makes a checkpoint due; two days later old log files go.
  Sql("ALTER TABLE r SET TBLPROPERTIES ('delta.checkpointInterval' = '5')");
  r = Pass(c);
  bool checkpointed = false;
  for (const auto& op : r.operations) checkpointed |= op.operation_type == "CHECKPOINT";
  EXPECT_TRUE(checkpointed ||
              (*delta::Snapshot::Load(TableStore("r")))->segment().checkpoint_version >= 0);
  clock_->AdvanceMillis(3 * kDayMs);
  Sql("INSERT INTO r VALUES (100)");
  r = Pass(c);
  EXPECT_EQ(Count("SELECT count(*) FROM r"), 13);
  auto commit0 = TableStore("r")->Head("_delta_log/00000000000000000000.json");
  EXPECT_TRUE(commit0.status().IsNotFound()) << "expired log files are cleaned up";
}

// The routine compaction of a clustered table clusters it: the service calls the same
// ops::Optimize as OPTIMIZE, which clusters tables with clustering columns.
TEST_F(ServiceTest, RoutineCompactionClustersAClusteredTable) {
  Sql("CREATE TABLE lc (k INT, v INT) USING DELTA CLUSTER BY (k) TBLPROPERTIES "
      "('delta.checkpointInterval' = '100')");
  for (int i = 0; i < 12; ++i)
    Sql("INSERT INTO lc VALUES (" + std::to_string(11 - i) + ", " + std::to_string(i) + ")");
  MaintenanceConfig c = Config();
  c.routine_jobs = true;
  c.conf = [](const std::string& key) -> std::optional<std::string> {
    if (key == kCompactionMinFilesConf) return "10";
    return std::nullopt;
  };
  PassReport r = Pass(c);
  EXPECT_EQ(OpTypes(r), (std::vector<std::string>{"COMPACTION:SUCCESSFUL"}));
  EXPECT_EQ(Operations("lc").back(), "OPTIMIZE");
  auto snap = delta::Snapshot::Load(TableStore("lc"));
  ASSERT_TRUE(snap.ok());
  ASSERT_EQ((*snap)->files().size(), 1u);
  const delta::AddFile& f = (*snap)->files()[0];
  EXPECT_EQ(f.clustering_provider, std::optional<std::string>("liquid"));
  ASSERT_TRUE(f.tags && f.tags->Find("ZCUBE_ZORDER_BY"));
  EXPECT_EQ(*f.tags->Find("ZCUBE_ZORDER_BY"), "[\"k\"]");
  EXPECT_EQ(Count("SELECT count(*) FROM lc"), 12);
  // Clustered (one small z-cube): the compaction is no longer due.
  r = Pass(c);
  EXPECT_TRUE(OpTypes(r).empty());
}

// A hostile log (a "shallow clone" adding another table's files by absolute path) cannot make the
// service read or rewrite files outside the table: its reads are confined unless the config says
// otherwise (io/read_confinement.h).
TEST_F(ServiceTest, ReadsAreConfinedToTheTableRootUnlessConfiguredOtherwise) {
  Sql("CREATE TABLE src (id INT) USING DELTA");
  for (int i = 0; i < 3; ++i) Sql("INSERT INTO src VALUES (" + std::to_string(i) + ")");
  std::shared_ptr<ObjectStore> src = TableStore("src");
  std::string log;
  for (int v = 0; v <= 3; ++v) {
    auto commit = src->Get(delta::CommitKey(v));
    ASSERT_TRUE(commit.ok()) << commit.status().ToString();
    log += *commit;
  }
  std::string root = src->root();
  if (!root.ends_with("/")) root += "/";
  const std::string rel = "\"path\":\"", abs = "\"path\":\"" + root;
  for (size_t at = log.find(rel); at != std::string::npos; at = log.find(rel, at + abs.size()))
    log.replace(at, rel.size(), abs);
  const std::string clone = warehouse_ + "/clone";
  auto clone_store = OpenObjectStore(clone, clock_);
  ASSERT_TRUE(clone_store.ok());
  ASSERT_TRUE((*clone_store)->Put(delta::CommitKey(0), log).ok());
  const std::vector<MaintainedTable> tables{{clone, "", "", clone}};
  MaintenanceConfig c = Config();
  c.routine_jobs = true;
  bool confine = true;
  c.conf = [&](const std::string& key) -> std::optional<std::string> {
    if (key == kCompactionMinFilesConf) return "2";
    if (key == kConfineReadsKey && !confine) return "false";
    return std::nullopt;
  };
  {
    MaintenanceService service(warehouse_, clock_, c);
    auto r = service.RunPass(tables);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_FALSE(r->operations.empty());
    EXPECT_EQ(r->operations[0].operation_type, "COMPACTION");
    EXPECT_EQ(r->operations[0].operation_status, kStatusFailed);
    EXPECT_EQ(testing::Metric(r->operations[0], "error_class"), kReadOutsideTableRootClass);
  }
  confine = false;
  MaintenanceService service(warehouse_, clock_, c);
  auto r = service.RunPass(tables);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->operations.empty());
  EXPECT_EQ(r->operations[0].operation_type, "COMPACTION");
  EXPECT_EQ(r->operations[0].operation_status, "SUCCESSFUL");
  EXPECT_EQ(Count("SELECT count(*) FROM delta.`" + clone + "`"), 3);
}

}  // namespace
}  // namespace silt::maintenance
