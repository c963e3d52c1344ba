// The maintenance advisor (maintenance/advisor.h) on tables written through SQL with a manual
// clock: Auto-TTL expiry from statistics, PURGE/VACUUM/COMPACTION figures, the checkpoint and
// log-cleanup jobs, and seed 004's formula (spec A.9 T-30).
#include "maintenance/advisor.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "common/datetime.h"
#include "delta/snapshot.h"
#include "delta/transaction.h"
#include "io/object_store_factory.h"
#include "silt/silt.h"
#include "vector/value.h"

namespace silt::maintenance {
namespace {

constexpr int64_t kDayMs = 24LL * 3600 * 1000;

TEST(TargetExpirationDays, SeedExamples) {
  EXPECT_EQ(*TargetExpirationDays(30, 7 * kDayMs), 17);
  EXPECT_EQ(*TargetExpirationDays(90, 30 * kDayMs), 54);
  EXPECT_EQ(*TargetExpirationDays(13, 7 * kDayMs), 0);
  // A retention that is not whole days is rounded up, so that the target holds.
  EXPECT_EQ(*TargetExpirationDays(30, 36LL * 3600 * 1000), 22);
}

TEST(TargetExpirationDays, NegativeAdvisesToLowerTheRetention) {
  Result<int64_t> r = TargetExpirationDays(10, 7 * kDayMs);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), kErrorAutoTtlTargetTooShort);
  EXPECT_NE(r.status().message().find("lower delta.deletedFileRetentionDuration to at most 4 days"),
            std::string::npos)
      << r.status().ToString();
  Result<int64_t> r2 = TargetExpirationDays(5, 0);
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.status().message().find("raise the target to at least 6 days"), std::string::npos);
}

TEST(AutoTtlCutoff, TimestampAndDate) {
  int32_t days = 0;
  ASSERT_TRUE(ParseIsoDate("2025-03-10", &days));
  int64_t now = days * kDayMs + 12 * 3600 * 1000;  // 2025-03-10T12:00Z
  int64_t d = AutoTtlCutoff(TypeId::kDate, 1, now);
  EXPECT_EQ(AutoTtlCutoffLiteral(TypeId::kDate, d), "DATE '2025-03-09'");
  int64_t ts = AutoTtlCutoff(TypeId::kTimestamp, 30, now);
  EXPECT_EQ(ts, now * 1000 - 30LL * 86400000000LL);
  EXPECT_EQ(AutoTtlCutoffLiteral(TypeId::kTimestamp, ts), "TIMESTAMP '2025-02-08 12:00:00Z'");
  EXPECT_EQ(AutoTtlCutoffLiteral(TypeId::kTimestampNtz, ts), "TIMESTAMP_NTZ '2025-02-08 12:00:00'");
}

TEST(LoadThresholds, ConfigAndTableProperty) {
  std::map<std::string, std::string> conf{{kOptimizeMinFileSizeConf, "1m"},
                                          {kCompactionMinFilesConf, "3"}};
  ConfigLookup lookup = [&](const std::string& k) -> std::optional<std::string> {
    auto it = conf.find(k);
    return it == conf.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  delta::StringMap props;
  props.Set("delta.targetFileSize", "64m");
  Result<Thresholds> t = LoadThresholds(lookup, props);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->min_file_size, 1LL << 20);
  EXPECT_EQ(t->max_file_size, 64LL << 20);
  EXPECT_EQ(t->compaction_min_files, 3);
  EXPECT_DOUBLE_EQ(t->max_deleted_rows_ratio, 0.05);
  conf[kOptimizeMaxDeletedRowsRatioConf] = "1.5";
  EXPECT_EQ(LoadThresholds(lookup, props).status().error_class(), "INVALID_CONF_VALUE");
  conf.erase(kOptimizeMaxDeletedRowsRatioConf);
  conf[kCompactionMinFilesConf] = "0";
  EXPECT_EQ(LoadThresholds(lookup, props).status().error_class(), "INVALID_CONF_VALUE");
}

class AdvisorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "silt-advisor-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    // Real time: the local store's modification times are real.
    clock_ = std::make_shared<ManualClock>(SystemClock().NowMillis());
    DatabaseOptions opts;
    opts.warehouse = dir_ + "/wh";
    opts.clock = clock_;
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
  // A TIMESTAMP literal `days` days before the clock's now.
  std::string DaysAgo(int64_t days) {
    int64_t ms = clock_->NowMillis() - days * kDayMs;
    return "TIMESTAMP '" + FormatTimestampMicros(ms * 1000) + "Z'";
  }
  TableAdvice Advice(const std::string& table, Thresholds t = {}) {
    auto store = OpenObjectStore(dir_ + "/" + table, clock_);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    auto snap = delta::Snapshot::Load(*store);
    EXPECT_TRUE(snap.ok()) << snap.status().ToString();
    AdvisorOptions o;
    o.thresholds = t;
    o.clock = clock_;
    Result<TableAdvice> a = Advise(**snap, o);
    EXPECT_TRUE(a.ok()) << a.status().ToString();
    return a.ok() ? *a : TableAdvice{};
  }
  static const JobAdvice& JobOf(const TableAdvice& a, Job j) {
    return a.jobs.at(static_cast<size_t>(j));
  }

  std::string dir_;
  std::shared_ptr<ManualClock> clock_;
  std::shared_ptr<Database> db_;
  std::unique_ptr<Connection> con_;
};

TEST_F(AdvisorTest, AutoTtlExpiryFromStatistics) {
  Run("CREATE TABLE ev (id INT, ts TIMESTAMP) USING DELTA LOCATION '" + dir_ +
      "/ev' "
      "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
  // One file entirely expired (40 and 35 days old), one straddling the cutoff, one recent, one
  // with only NULL times (never expires).
  Run("INSERT INTO ev VALUES (1, " + DaysAgo(40) + "), (2, " + DaysAgo(35) + ")");
  Run("INSERT INTO ev VALUES (3, " + DaysAgo(31) + "), (4, " + DaysAgo(2) + "), (5, " + DaysAgo(1) +
      ")");
  Run("INSERT INTO ev VALUES (6, " + DaysAgo(1) + ")");
  Run("INSERT INTO ev VALUES (7, NULL)");
  // No policy yet: the DELETE job has nothing to say.
  TableAdvice none = Advice("ev");
  EXPECT_FALSE(none.ttl.has_value());
  EXPECT_FALSE(JobOf(none, Job::kAutoTtlDelete).due);
  Run("ALTER TABLE ev SET TBLPROPERTIES ('autottl.expireInDays' = '30', 'autottl.timestampColumn' "
      "= 'ts')");
  TableAdvice a = Advice("ev");
  ASSERT_TRUE(a.ttl.has_value());
  EXPECT_EQ(a.ttl->cutoff, clock_->NowMillis() * 1000 - 30LL * 86400000000LL);
  EXPECT_EQ(a.ttl->files_fully_expired, 1);
  EXPECT_EQ(a.ttl->rows_fully_expired, 2);
  EXPECT_EQ(a.ttl->files_partially_expired, 1);
  EXPECT_EQ(a.ttl->rows_partially_expired_max, 3);
  EXPECT_EQ(a.ttl->files_without_stats, 0);
  ASSERT_TRUE(a.ttl->gone_by_millis.has_value());
  EXPECT_EQ(*a.ttl->gone_by_millis,
            clock_->NowMillis() + 13 * kDayMs);  // 6 days + 7 days retention
  const JobAdvice& del = JobOf(a, Job::kAutoTtlDelete);
  EXPECT_TRUE(del.due);
  EXPECT_EQ(del.files, 2);
  EXPECT_EQ(del.rows, 2);
  std::vector<AdviceRow> rows = AdviceRows(a, "default.ev");
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0].job, "DELETE");
  ASSERT_TRUE(rows[0].action.has_value());
  EXPECT_EQ(*rows[0].action, "DELETE FROM default.ev WHERE ts <= " +
                                 AutoTtlCutoffLiteral(TypeId::kTimestamp, a.ttl->cutoff));

  // Running the DELETE the advisor proposes leaves nothing expired.
  Run(*rows[0].action);
  TableAdvice after = Advice("ev");
  EXPECT_FALSE(JobOf(after, Job::kAutoTtlDelete).due);
  EXPECT_EQ(after.ttl->files_fully_expired + after.ttl->files_partially_expired, 0);
  EXPECT_FALSE(after.ttl->gone_by_millis.has_value());
  // The straddling file got a deletion vector and keeps its old (loose) bounds: reported, not due;
  // PURGE is due, and after it the bounds are tight again.
  EXPECT_EQ(after.ttl->files_loose_bounds, 1);
  EXPECT_EQ(after.ttl->rows_loose_bounds_max, 2);
  EXPECT_TRUE(JobOf(after, Job::kPurge).due);
  EXPECT_EQ(JobOf(after, Job::kPurge).rows, 1);
  Run("REORG TABLE ev APPLY (PURGE)");
  TableAdvice purged = Advice("ev");
  EXPECT_EQ(purged.ttl->files_loose_bounds, 0);
  EXPECT_FALSE(JobOf(purged, Job::kPurge).due);
  EXPECT_FALSE(JobOf(purged, Job::kAutoTtlDelete).due);
  // The removed files are tombstones now: VACUUM is due only after the retention.
  EXPECT_FALSE(JobOf(after, Job::kVacuum).due);
  clock_->AdvanceMillis(8 * kDayMs);
  TableAdvice later = Advice("ev");
  EXPECT_TRUE(JobOf(later, Job::kVacuum).due);
  EXPECT_EQ(JobOf(later, Job::kVacuum).files, 2);  // the fully expired file, the purged one
  EXPECT_GT(JobOf(later, Job::kVacuum).bytes, 0);
}

TEST_F(AdvisorTest, AFullyExpiredFileStaysFullyExpiredAfterAUserDelete) {
  Run("CREATE TABLE u (id INT, ts TIMESTAMP) USING DELTA LOCATION '" + dir_ +
      "/u' "
      "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true', 'autottl.expireInDays' = '30', "
      "'autottl.timestampColumn' = 'ts')");
  Run("INSERT INTO u VALUES (1, " + DaysAgo(50) + "), (2, " + DaysAgo(45) + "), (3, " +
      DaysAgo(40) + ")");
  Run("DELETE FROM u WHERE id = 2");  // a deletion vector; the bounds are loose now
  TableAdvice a = Advice("u");
  ASSERT_TRUE(a.ttl.has_value());
  EXPECT_EQ(a.ttl->files_fully_expired, 1);
  EXPECT_EQ(a.ttl->rows_fully_expired, 2);
  EXPECT_EQ(a.ttl->files_loose_bounds, 0);
  EXPECT_TRUE(JobOf(a, Job::kAutoTtlDelete).due);
}

TEST_F(AdvisorTest, AutoTtlOnADatePartitionColumn) {
  Run("CREATE TABLE d (id INT, day DATE) USING DELTA PARTITIONED BY (day) LOCATION '" + dir_ +
      "/d'");
  Run("INSERT INTO d VALUES (1, DATE '2000-01-01'), (2, DATE '2000-01-01'), (3, DATE "
      "'2999-01-01'), (4, NULL)");
  Run("ALTER TABLE d SET TBLPROPERTIES ('autottl.expireInDays' = '1', 'autottl.timestampColumn' = "
      "'day')");
  TableAdvice a = Advice("d");
  ASSERT_TRUE(a.ttl.has_value());
  EXPECT_EQ(a.ttl->column_type, TypeId::kDate);
  EXPECT_EQ(a.ttl->files_fully_expired, 1);
  EXPECT_EQ(a.ttl->rows_fully_expired, 2);
  EXPECT_EQ(a.ttl->files_partially_expired, 0);
}

TEST_F(AdvisorTest, DeletionVectorsPurgeVacuumAndCompaction) {
  Run("CREATE TABLE s (id INT) USING DELTA LOCATION '" + dir_ +
      "/s' TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
  for (int i = 0; i < 4; ++i) {
    Run("INSERT INTO s SELECT id FROM range(" + std::to_string(i * 100) + ", " +
        std::to_string(i * 100 + 100) + ")");
  }
  // 4 small files; the default threshold (50 files) says not due, 3 says due.
  TableAdvice a = Advice("s");
  const JobAdvice& c = JobOf(a, Job::kCompaction);
  EXPECT_EQ(c.files, 4);
  EXPECT_FALSE(c.due);
  Thresholds three;
  three.compaction_min_files = 3;
  EXPECT_TRUE(JobOf(Advice("s", three), Job::kCompaction).due);
  EXPECT_EQ(JobOf(a, Job::kPurge).files, 0);

  // A DELETE of 10 rows of the first file: a DV over 5% of its rows.
  Run("DELETE FROM s WHERE id < 10");
  TableAdvice b = Advice("s");
  EXPECT_EQ(b.deleted_rows, 10);
  EXPECT_EQ(b.num_records, 390);
  const JobAdvice& purge = JobOf(b, Job::kPurge);
  EXPECT_EQ(purge.files, 1);
  EXPECT_EQ(purge.rows, 10);
  EXPECT_FALSE(purge.due);                      // no TTL policy: OPTIMIZE takes care of it
  EXPECT_TRUE(JobOf(b, Job::kCompaction).due);  // a file over the deleted-rows ratio
  EXPECT_EQ(JobOf(b, Job::kCompaction).rows, 10);

  // OPTIMIZE rewrites all four; the old ones become tombstones, VACUUM reclaims them after the
  // retention, and once it ran the advisor finds them gone (HEAD) instead of counting them again.
  Run("OPTIMIZE s");
  TableAdvice o = Advice("s");
  EXPECT_EQ(JobOf(o, Job::kCompaction).files, 0);
  EXPECT_EQ(JobOf(o, Job::kPurge).files, 0);
  EXPECT_FALSE(JobOf(o, Job::kVacuum).due);
  clock_->AdvanceMillis(7 * kDayMs + 3600 * 1000);
  TableAdvice v = Advice("s");
  EXPECT_TRUE(JobOf(v, Job::kVacuum).due);
  EXPECT_EQ(JobOf(v, Job::kVacuum).files, 4);
  Run("VACUUM s");
  TableAdvice v2 = Advice("s");
  EXPECT_FALSE(JobOf(v2, Job::kVacuum).due);
  EXPECT_EQ(JobOf(v2, Job::kVacuum).files, 0);
  EXPECT_NE(JobOf(v2, Job::kVacuum).detail.find("4 already deleted"), std::string::npos)
      << JobOf(v2, Job::kVacuum).detail;
}

TEST_F(AdvisorTest, CheckpointAndLogCleanup) {
  Run("CREATE TABLE k (id INT) USING DELTA LOCATION '" + dir_ +
      "/k' TBLPROPERTIES ('delta.checkpointInterval' = '100')");
  for (int i = 0; i < 3; ++i) Run("INSERT INTO k VALUES (" + std::to_string(i) + ")");
  TableAdvice a = Advice("k");
  const JobAdvice& cp = JobOf(a, Job::kCheckpoint);
  EXPECT_FALSE(cp.due);
  EXPECT_EQ(cp.files, 4);  // commits 0..3, no checkpoint
  EXPECT_FALSE(JobOf(a, Job::kLogCleanup).due);
  Run("ALTER TABLE k SET TBLPROPERTIES ('delta.checkpointInterval' = '2')");
  // The commit of version 4 wrote the checkpoint itself; without it (a failed write), one is due.
  EXPECT_FALSE(JobOf(Advice("k"), Job::kCheckpoint).due);
  std::filesystem::remove(dir_ + "/k/_delta_log/00000000000000000004.checkpoint.parquet");
  std::filesystem::remove(dir_ + "/k/_delta_log/_last_checkpoint");
  TableAdvice b = Advice("k");
  EXPECT_TRUE(JobOf(b, Job::kCheckpoint).due);
  EXPECT_EQ(AdviceRows(b, "k")[4].action.value_or(""), "write a checkpoint at version 4");
}

TEST_F(AdvisorTest, TtlColumnOfTheWrongTypeIsAnError) {
  // silt's DDL refuses such a policy; another writer may still leave one in the log.
  Run("CREATE TABLE w (id INT, s STRING) USING DELTA LOCATION '" + dir_ + "/w'");
  Run("INSERT INTO w VALUES (1, 'x')");
  auto store = OpenObjectStore(dir_ + "/w", clock_);
  ASSERT_TRUE(store.ok());
  {
    auto snap = delta::Snapshot::Load(*store);
    ASSERT_TRUE(snap.ok());
    delta::Metadata m = (*snap)->metadata();
    m.configuration.Set("autottl.expireInDays", "3");
    m.configuration.Set("autottl.timestampColumn", "s");
    delta::TransactionOptions topts;
    topts.clock = clock_;
    delta::Transaction txn(*store, *snap, topts);
    txn.SetOperation("SET TBLPROPERTIES");
    txn.UpdateMetadata(std::move(m));
    auto committed = txn.Commit();
    ASSERT_TRUE(committed.ok()) << committed.status().ToString();
  }
  auto snap = delta::Snapshot::Load(*store);
  ASSERT_TRUE(snap.ok());
  AdvisorOptions o;
  o.clock = clock_;
  EXPECT_EQ(Advise(**snap, o).status().error_class(), "AUTO_TTL_INVALID_COLUMN_TYPE");
  o.clock = nullptr;
  EXPECT_EQ(Advise(**snap, o).status().error_class(), "SILT_OPS_MISSING_CLOCK");
}

}  // namespace
}  // namespace silt::maintenance
