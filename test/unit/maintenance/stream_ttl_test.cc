// Spec A.9 T-28 and A.8: Delta streams over a table with an Auto-TTL policy while the maintenance
// service runs its cycle DELETE → PURGE → VACUUM. A stream with skipChangeCommits keeps going
// and never emits the TTL commit; without it the TTL DELETE stops the stream
// (DELTA_SOURCE_TABLE_IGNORE_CHANGES with deletion vectors, DELTA_SOURCE_IGNORE_DELETE for
// whole-file deletes); the PURGE and VACUUM commits never break a stream. Starting a stream on
// such a table without skipChangeCommits warns.
#include <gtest/gtest.h>
#include <time.h>

#include "unit/maintenance/maintenance_test_util.h"

namespace silt::maintenance {
namespace {

using testing::kDayMs;
using testing::kNow;
using testing::OpTypes;

class StreamTtlTest : public testing::MaintenanceFixture {
 protected:
  static std::string Ts(int64_t offset_ms) {
    int64_t ms = kNow + offset_ms;
    time_t secs = static_cast<time_t>(ms / 1000);
    struct tm tm {};
    gmtime_r(&secs, &tm);
    char buf[64];
    strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    return buf;
  }
  // src (id INT, ts TIMESTAMP), TTL 30 days on ts; one expired and one live row per file, and a
  // file of expired rows only.
  void CreateSource(bool dvs) {
    Sql(std::string("CREATE TABLE src (id INT, ts TIMESTAMP) USING DELTA TBLPROPERTIES (") +
        "'delta.enableDeletionVectors' = '" + (dvs ? "true" : "false") +
        "', 'autottl.expireInDays' = '30', 'autottl.timestampColumn' = 'ts')");
    if (dvs) {
      Sql("INSERT INTO src VALUES (1, TIMESTAMP '" + Ts(-40 * kDayMs) + "'), (2, TIMESTAMP '" +
          Ts(-1 * kDayMs) + "')");
    }
    Sql("INSERT INTO src VALUES (3, TIMESTAMP '" + Ts(-50 * kDayMs) + "')");
    Sql("INSERT INTO src VALUES (4, TIMESTAMP '" + Ts(-2 * kDayMs) + "')");
  }
  Status Try(const std::string& sql) {
    auto r = con_->Query(sql);
    return r.ok() ? Status::OK() : r.status();
  }
  std::vector<std::string> Ids(const std::string& table) {
    return Rows("SELECT id FROM " + table + " ORDER BY id");
  }
};

TEST_F(StreamTtlTest, T28SkipChangeCommitsKeepsGoingThroughTheTtlCycle) {
  CreateSource(/*dvs=*/true);
  std::vector<std::string> progress;
  con_->SetProgressHandler([&](const std::string& line) { progress.push_back(line); });
  Sql("CREATE STREAMING TABLE skipping AS SELECT * FROM STREAM src WITH ('skipChangeCommits' = "
      "'true')");
  for (const auto& line : progress) EXPECT_EQ(line.find("Auto-TTL"), std::string::npos) << line;
  Sql("CREATE STREAMING TABLE plain AS SELECT * FROM STREAM(src)");
  // A.8: the source has a policy and the stream does not skip change commits.
  bool warned = false;
  for (const auto& line : progress) {
    warned = warned || (line.find("WARNING") != std::string::npos &&
                        line.find("Auto-TTL") != std::string::npos &&
                        line.find("skipChangeCommits") != std::string::npos);
  }
  EXPECT_TRUE(warned);
  EXPECT_EQ(Ids("plain"), (std::vector<std::string>{"1", "2", "3", "4"}));

  // The TTL DELETE (a DV on the file of 1 and 2, the file of 3 removed whole), then at once the
  // PURGE of the DV files (REORG … APPLY (PURGE): dataChange=false, invisible to streams).
  PassReport r = Pass();
  EXPECT_EQ(OpTypes(r), (std::vector<std::string>{"DELETE:SUCCESSFUL", "PURGE:SUCCESSFUL"}));
  EXPECT_EQ(Ids("src"), (std::vector<std::string>{"2", "4"}));
  Sql("INSERT INTO src VALUES (5, TIMESTAMP '" + Ts(0) + "')");
  Status plain = Try("REFRESH STREAMING TABLE plain");
  EXPECT_EQ(plain.error_class(), "DELTA_SOURCE_TABLE_IGNORE_CHANGES") << plain.ToString();
  EXPECT_NE(plain.message().find("DELETE"), std::string::npos) << plain.ToString();
  Sql("REFRESH STREAMING TABLE skipping");
  // The TTL commit is not emitted (the expired rows stay downstream); the new row arrives.
  EXPECT_EQ(Ids("skipping"), (std::vector<std::string>{"1", "2", "3", "4", "5"}));

  // VACUUM after the retention: invisible to the stream too.
  clock_->AdvanceMillis(8 * kDayMs);
  r = Pass();
  EXPECT_EQ(OpTypes(r), (std::vector<std::string>{"VACUUM:SUCCESSFUL"}));
  Sql("INSERT INTO src VALUES (6, TIMESTAMP '" + Ts(8 * kDayMs) + "')");
  Sql("REFRESH STREAMING TABLE skipping");
  EXPECT_EQ(Ids("skipping"), (std::vector<std::string>{"1", "2", "3", "4", "5", "6"}));
  // The plain stream stays stopped at the TTL commit.
  plain = Try("REFRESH STREAMING TABLE plain");
  EXPECT_EQ(plain.error_class(), "DELTA_SOURCE_TABLE_IGNORE_CHANGES");
}

TEST_F(StreamTtlTest, T28WholeFileTtlDeleteNeedsIgnoreDeletesOrSkip) {
  CreateSource(/*dvs=*/false);
  Sql("CREATE STREAMING TABLE plain AS SELECT * FROM STREAM(src)");
  Sql("CREATE STREAMING TABLE skipping AS SELECT * FROM STREAM(src) WITH "
      "('skipChangeCommits' = 'true')");
  PassReport r = Pass();
  EXPECT_EQ(OpTypes(r), (std::vector<std::string>{"DELETE:SUCCESSFUL"}));
  Sql("INSERT INTO src VALUES (5, TIMESTAMP '" + Ts(0) + "')");
  // Without deletion vectors the expired file is only removed: a delete, not a change.
  Status plain = Try("REFRESH STREAMING TABLE plain");
  EXPECT_EQ(plain.error_class(), "DELTA_SOURCE_IGNORE_DELETE") << plain.ToString();
  Sql("REFRESH STREAMING TABLE skipping");
  EXPECT_EQ(Ids("skipping"), (std::vector<std::string>{"3", "4", "5"}));
}

}  // namespace
}  // namespace silt::maintenance
