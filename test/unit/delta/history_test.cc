#include "delta/history.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "delta/log_segment.h"
#include "io/local_object_store.h"
#include "io/memory_object_store.h"
#include "io/object_store.h"
#include "support/fault_injecting_object_store.h"
#include "unit/delta/conformance_files.h"

namespace silt::delta {
namespace {

constexpr char kSchema[] =
    R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]})";

struct CommitSpec {
  int64_t mtime_ms = 0;                       // the clock when the commit file is written
  std::optional<int64_t> ict = std::nullopt;  // commitInfo.inCommitTimestamp
  bool with_commit_info = true;
  std::optional<StringMap> new_config = std::nullopt;  // writes a metaData with it
  std::string operation = "WRITE";
};

class HistoryTest : public ::testing::Test {
 protected:
  HistoryTest()
      : clock_(std::make_shared<ManualClock>(0)),
        store_(std::make_shared<InMemoryObjectStore>(clock_)) {}

  // Writes commit `version`; version 0 always carries protocol and metaData.
  void Commit(int64_t version, const CommitSpec& spec) {
    std::vector<Action> actions;
    if (spec.with_commit_info) {
      CommitInfo ci;
      ci.in_commit_timestamp = spec.ict;
      ci.timestamp = spec.ict.value_or(spec.mtime_ms);
      ci.operation = spec.operation;
      ci.operation_parameters = StringMap{{"mode", "\"Append\""}};
      ci.read_version = version - 1;
      ci.isolation_level = "Serializable";
      ci.is_blind_append = true;
      ci.operation_metrics =
          StringMap{{"numFiles", "1"}, {"numOutputRows", std::to_string(version)}};
      ci.engine_info = "silt-test";
      if (version == 2) ci.user_metadata = "note for v2";
      actions.emplace_back(std::move(ci));  // first line, as ICT requires
    }
    if (version == 0) {
      Protocol p;
      p.min_reader_version = 1;
      p.min_writer_version = 2;
      actions.emplace_back(p);
    }
    if (version == 0 || spec.new_config) {
      actions.emplace_back(MakeMetadata(spec.new_config.value_or(StringMap{})));
    }
    AddFile add;
    add.path = "part-" + std::to_string(version) + ".parquet";
    add.size = 100;
    add.modification_time = spec.mtime_ms;
    actions.emplace_back(std::move(add));
    clock_->SetMillis(spec.mtime_ms);
    ASSERT_TRUE(store_->Put(CommitKey(version), SerializeCommit(actions)).ok());
  }

  static Metadata MakeMetadata(StringMap config) {
    Metadata md;
    md.id = "test-table";
    md.schema_string = kSchema;
    md.configuration = std::move(config);
    md.created_time = 0;
    return md;
  }

  // A v2 (UUID-named) JSON checkpoint of `version`, which Snapshot can read without Parquet.
  void JsonCheckpoint(int64_t version, StringMap config = {}) {
    std::vector<Action> actions;
    actions.emplace_back(CheckpointMetadata{version, std::nullopt});
    Protocol p;
    actions.emplace_back(p);
    actions.emplace_back(MakeMetadata(std::move(config)));
    char name[96];
    std::snprintf(name, sizeof name,
                  "_delta_log/%020lld.checkpoint.0f0e0d0c-0b0a-0908-0706-050403020100.json",
                  static_cast<long long>(version));
    ASSERT_TRUE(store_->Put(name, SerializeCommit(actions)).ok());
  }

  static StringMap IctConfigAt(int64_t version, int64_t ict) {
    return StringMap{{kPropEnableInCommitTimestamps, "true"},
                     {kPropIctEnablementVersion, std::to_string(version)},
                     {kPropIctEnablementTimestamp, std::to_string(ict)}};
  }

  std::shared_ptr<ManualClock> clock_;
  std::shared_ptr<InMemoryObjectStore> store_;
};

// The value, or a test failure (and -999) for an error.
int64_t Ok(const Result<int64_t>& r) {
  if (!r.ok()) {
    ADD_FAILURE() << r.status().ToString();
    return -999;
  }
  return *r;
}

std::vector<int64_t> Timestamps(const std::vector<CommitEntry>& entries) {
  std::vector<int64_t> out;
  for (const auto& e : entries) out.push_back(e.timestamp_ms);
  return out;
}
std::vector<int64_t> Versions(const std::vector<CommitEntry>& entries) {
  std::vector<int64_t> out;
  for (const auto& e : entries) out.push_back(e.version);
  return out;
}

TEST_F(HistoryTest, ListCommitsAdjustsNonMonotonicModificationTimes) {
  const int64_t mtimes[] = {1000, 2000, 1500, 1500, 3000, 3000};
  for (int v = 0; v < 6; ++v) Commit(v, {.mtime_ms = mtimes[v]});
  auto commits = ListCommits(*store_);
  ASSERT_TRUE(commits.ok()) << commits.status().ToString();
  EXPECT_EQ(Versions(*commits), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  // Spark: max(own mtime, previous + 1).
  EXPECT_EQ(Timestamps(*commits), (std::vector<int64_t>{1000, 2000, 2001, 2002, 3000, 3001}));
  EXPECT_EQ((*commits)[2].file_modification_ms, 1500);
  EXPECT_FALSE((*commits)[2].commit_info);  // not requested
  EXPECT_FALSE((*commits)[2].uses_in_commit_timestamp);

  // From a later version the adjustment is anchored at the first listed commit.
  auto tail = ListCommits(*store_, 3, /*read_commit_info=*/true);
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(Timestamps(*tail), (std::vector<int64_t>{1500, 3000, 3001}));
  ASSERT_TRUE((*tail)[0].commit_info);
  EXPECT_EQ((*tail)[0].commit_info->version, 3);
  EXPECT_EQ((*tail)[0].commit_info->operation, "WRITE");
}

TEST_F(HistoryTest, EmptyLog) {
  auto commits = ListCommits(*store_);
  ASSERT_TRUE(commits.ok());
  EXPECT_TRUE(commits->empty());
  auto history = ReadHistory(*store_, std::nullopt);
  ASSERT_TRUE(history.ok());
  EXPECT_TRUE(history->empty());
  auto v = VersionAtTimestamp(*store_, 0);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().error_class(), kErrorNoCommitsFound);
  EXPECT_EQ(EarliestRecreatableVersion(*store_).status().error_class(), kErrorNoCommitsFound);
}

TEST_F(HistoryTest, TimeTravelExactBoundaries) {
  Commit(0, {.mtime_ms = 1000});
  Commit(1, {.mtime_ms = 2000});
  Commit(2, {.mtime_ms = 3000});
  struct Case {
    int64_t t;
    int64_t version;
  } cases[] = {{1000, 0}, {1001, 0}, {1999, 0}, {2000, 1}, {2999, 1}, {3000, 2}};
  for (const auto& c : cases) {
    auto v = VersionAtTimestamp(*store_, c.t);
    ASSERT_TRUE(v.ok()) << c.t << ": " << v.status().ToString();
    EXPECT_EQ(*v, c.version) << c.t;
  }
  auto commit = ActiveCommitAtTimestamp(*store_, 2500);
  ASSERT_TRUE(commit.ok());
  EXPECT_EQ(commit->version, 1);
  EXPECT_EQ(commit->timestamp_ms, 2000);
}

TEST_F(HistoryTest, TimeTravelOutOfRangeErrorsAndOptions) {
  clock_->SetMillis(0);
  Commit(0, {.mtime_ms = 1'600'000'000'000});  // 2020-09-13 12:26:40 UTC
  Commit(1, {.mtime_ms = 1'600'000'001'500});

  auto before = VersionAtTimestamp(*store_, 1'599'999'999'999);
  ASSERT_FALSE(before.ok());
  EXPECT_EQ(before.status().error_class(), kErrorTimestampEarlierThanRetention);
  EXPECT_EQ(before.status().message(),
            "The provided timestamp (2020-09-13 12:26:39.999) is before the earliest version "
            "available to this table (2020-09-13 12:26:40.0). Please use a timestamp after "
            "2020-09-13 12:26:40.");

  auto after = VersionAtTimestamp(*store_, 1'600'000'001'501);
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.status().error_class(), kErrorTimestampGreaterThanCommit);
  EXPECT_EQ(after.status().message(),
            "The provided timestamp (2020-09-13 12:26:41.501) is after the latest version "
            "available to this table (2020-09-13 12:26:41.5). Please use a timestamp before or at "
            "2020-09-13 12:26:41.5.");

  auto last = VersionAtTimestamp(*store_, 1'600'000'001'501, {.can_return_last_commit = true});
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(*last, 1);
  auto earliest =
      VersionAtTimestamp(*store_, 1'599'999'999'999, {.can_return_earliest_commit = true});
  ASSERT_TRUE(earliest.ok());
  EXPECT_EQ(*earliest, 0);
}

TEST_F(HistoryTest, TimeTravelUsesAdjustedTimestamps) {
  Commit(0, {.mtime_ms = 1000});
  Commit(1, {.mtime_ms = 2000});
  Commit(2, {.mtime_ms = 1500});  // clock skew: adjusted to 2001
  EXPECT_EQ(Ok(VersionAtTimestamp(*store_, 1999)), 0);
  EXPECT_EQ(Ok(VersionAtTimestamp(*store_, 2000)), 1);
  EXPECT_EQ(Ok(VersionAtTimestamp(*store_, 2001)), 2);
  auto after = VersionAtTimestamp(*store_, 2002);
  EXPECT_EQ(after.status().error_class(), kErrorTimestampGreaterThanCommit);
  // SetModificationTime moves a commit later: v1 becomes 2500, so v2 is adjusted to 2501.
  ASSERT_TRUE(store_->SetModificationTime(CommitKey(1), 2500).ok());
  EXPECT_EQ(Ok(VersionAtTimestamp(*store_, 2400)), 0);
  EXPECT_EQ(Ok(VersionAtTimestamp(*store_, 2500)), 1);
  EXPECT_EQ(Ok(VersionAtTimestamp(*store_, 2501)), 2);
}

TEST_F(HistoryTest, InCommitTimestampsFromEnablementVersion) {
  Commit(0, {.mtime_ms = 1000});
  Commit(1, {.mtime_ms = 2000});
  Commit(2, {.mtime_ms = 3000});
  // ICT enabled at version 3; the mtimes of ICT commits are meaningless (here: far off).
  Commit(3, {.mtime_ms = 3500, .ict = 5000, .new_config = IctConfigAt(3, 5000)});
  Commit(4, {.mtime_ms = 100, .ict = 6000});
  Commit(5, {.mtime_ms = 50, .ict = 7000});

  auto cfg = ReadIctConfig(*store_);
  ASSERT_TRUE(cfg.ok()) << cfg.status().ToString();
  EXPECT_TRUE(cfg->enabled);
  EXPECT_EQ(cfg->enablement_version, 3);
  EXPECT_EQ(cfg->enablement_timestamp_ms, 5000);

  auto commits = ListCommits(*store_);
  ASSERT_TRUE(commits.ok()) << commits.status().ToString();
  EXPECT_EQ(Timestamps(*commits), (std::vector<int64_t>{1000, 2000, 3000, 5000, 6000, 7000}));
  EXPECT_FALSE((*commits)[2].uses_in_commit_timestamp);
  EXPECT_TRUE((*commits)[3].uses_in_commit_timestamp);
  EXPECT_EQ((*commits)[4].file_modification_ms, 100);

  struct Case {
    int64_t t;
    int64_t version;
  } cases[] = {{1000, 0}, {2999, 1}, {3000, 2}, {4999, 2}, {5000, 3},
               {5999, 3}, {6000, 4}, {6500, 4}, {7000, 5}};
  for (const auto& c : cases) {
    auto v = VersionAtTimestamp(*store_, c.t);
    ASSERT_TRUE(v.ok()) << c.t << ": " << v.status().ToString();
    EXPECT_EQ(*v, c.version) << c.t;
  }
  EXPECT_EQ(VersionAtTimestamp(*store_, 7001).status().error_class(),
            kErrorTimestampGreaterThanCommit);
  EXPECT_EQ(VersionAtTimestamp(*store_, 999).status().error_class(),
            kErrorTimestampEarlierThanRetention);
}

TEST_F(HistoryTest, InCommitTimestampsFromCreationBinarySearch) {
  // ICT on from version 0 (no enablement properties); every file has the same mtime.
  StringMap ict_on{{kPropEnableInCommitTimestamps, "true"}};
  for (int v = 0; v < 40; ++v) {
    Commit(v, {.mtime_ms = 42,
               .ict = 10'000 + 100 * v,
               .new_config = v == 0 ? std::optional<StringMap>(ict_on) : std::nullopt});
  }
  auto cfg = ReadIctConfig(*store_);
  ASSERT_TRUE(cfg.ok());
  EXPECT_TRUE(cfg->enabled);
  EXPECT_EQ(cfg->enablement_version, 0);
  EXPECT_FALSE(cfg->enablement_timestamp_ms);
  for (int v = 0; v < 40; ++v) {
    int64_t ict = 10'000 + 100 * v;
    EXPECT_EQ(Ok(VersionAtTimestamp(*store_, ict)), v);
    if (v < 39) {
      EXPECT_EQ(Ok(VersionAtTimestamp(*store_, ict + 99)), v);
    }
    if (v > 0) {
      EXPECT_EQ(Ok(VersionAtTimestamp(*store_, ict - 1)), v - 1);
    }
  }
  EXPECT_EQ(VersionAtTimestamp(*store_, 9'999).status().error_class(),
            kErrorTimestampEarlierThanRetention);
  EXPECT_EQ(VersionAtTimestamp(*store_, 13'901).status().error_class(),
            kErrorTimestampGreaterThanCommit);
  EXPECT_EQ(Ok(VersionAtTimestamp(*store_, 13'901, {.can_return_last_commit = true})), 39);
}

TEST_F(HistoryTest, InCommitTimestampSearchReadsFewCommits) {
  StringMap ict_on{{kPropEnableInCommitTimestamps, "true"}};
  for (int v = 0; v < 200; ++v) {
    Commit(v, {.mtime_ms = 42,
               .ict = 10'000 + 100 * v,
               .new_config = v == 0 ? std::optional<StringMap>(ict_on) : std::nullopt});
  }
  JsonCheckpoint(198, ict_on);  // so the latest snapshot reads one checkpoint and one commit
  auto counting = std::make_shared<FaultInjectingObjectStore>(store_);
  EXPECT_EQ(Ok(VersionAtTimestamp(*counting, 10'000 + 100 * 57 + 5)), 57);
  // _last_checkpoint probe + checkpoint + commit 199 + a binary search over 200 ICTs (8 reads).
  EXPECT_LE(counting->op_count(ObjectOp::kGet), 12);
}

TEST_F(HistoryTest, MissingInCommitTimestampIsAnError) {
  StringMap ict_on{{kPropEnableInCommitTimestamps, "true"}};
  Commit(0, {.mtime_ms = 1, .ict = 100, .new_config = ict_on});
  Commit(1, {.mtime_ms = 2});  // commitInfo without inCommitTimestamp
  Commit(2, {.mtime_ms = 3, .ict = 300, .with_commit_info = false});
  auto commits = ListCommits(*store_);
  ASSERT_FALSE(commits.ok());
  EXPECT_EQ(commits.status().error_class(), kErrorMissingCommitTimestamp);
  auto history = ReadHistory(*store_, 1);  // only version 2, which has no commitInfo at all
  ASSERT_FALSE(history.ok());
  EXPECT_EQ(history.status().error_class(), kErrorMissingCommitInfo);
}

TEST_F(HistoryTest, HalfOfTheEnablementPropertiesIsCorruption) {
  Commit(0, {.mtime_ms = 1,
             .new_config = StringMap{{kPropEnableInCommitTimestamps, "true"},
                                     {kPropIctEnablementVersion, "0"}}});
  auto cfg = ReadIctConfig(*store_);
  ASSERT_FALSE(cfg.ok());
  EXPECT_TRUE(cfg.status().IsCorruption());
}

TEST_F(HistoryTest, CleanedUpLogStartsAtTheCheckpoint) {
  for (int v = 0; v < 8; ++v) Commit(v, {.mtime_ms = 1000 * (v + 1)});
  JsonCheckpoint(5);
  for (int v = 0; v < 5; ++v) ASSERT_TRUE(store_->Delete(CommitKey(v)).ok());

  auto earliest = EarliestRecreatableVersion(*store_);
  ASSERT_TRUE(earliest.ok()) << earliest.status().ToString();
  EXPECT_EQ(*earliest, 5);
  auto commits = ListCommits(*store_);
  ASSERT_TRUE(commits.ok()) << commits.status().ToString();
  EXPECT_EQ(Versions(*commits), (std::vector<int64_t>{5, 6, 7}));

  EXPECT_EQ(Ok(VersionAtTimestamp(*store_, 6000)), 5);
  EXPECT_EQ(Ok(VersionAtTimestamp(*store_, 8000)), 7);
  auto gone = VersionAtTimestamp(*store_, 4000);  // version 3's time
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.status().error_class(), kErrorTimestampEarlierThanRetention);
  EXPECT_NE(gone.status().message().find("(1970-01-01 00:00:06.0)"), std::string_view::npos)
      << gone.status().message();
  EXPECT_EQ(Ok(VersionAtTimestamp(*store_, 4000, {.can_return_earliest_commit = true})), 5);

  EXPECT_TRUE(CheckVersionExists(*store_, 5).ok());
  EXPECT_TRUE(CheckVersionExists(*store_, 7).ok());
  Status st = CheckVersionExists(*store_, 3);
  EXPECT_EQ(st.error_class(), kErrorVersionNotFound);
  EXPECT_EQ(st.message(),
            "Cannot time travel Delta table to version 3. Available versions: [5, 7].");
  EXPECT_EQ(CheckVersionExists(*store_, 8).error_class(), kErrorVersionNotFound);
}

TEST_F(HistoryTest, OlderCommitsBeforeTheCheckpointAreNotRecreatable) {
  for (int v = 0; v < 8; ++v) Commit(v, {.mtime_ms = 1000 * (v + 1)});
  JsonCheckpoint(5);
  for (int v = 0; v < 3; ++v) ASSERT_TRUE(store_->Delete(CommitKey(v)).ok());
  // Commits 3 and 4 remain but nothing reconstructs them.
  EXPECT_EQ(Ok(EarliestRecreatableVersion(*store_)), 5);
  EXPECT_EQ(VersionAtTimestamp(*store_, 4000).status().error_class(),
            kErrorTimestampEarlierThanRetention);
  EXPECT_EQ(Ok(VersionAtTimestamp(*store_, 4000, {.must_be_recreatable = false})), 3);
  EXPECT_TRUE(CheckVersionExists(*store_, 3, /*must_be_recreatable=*/false).ok());
  EXPECT_EQ(CheckVersionExists(*store_, 3).message(),
            "Cannot time travel Delta table to version 3. Available versions: [5, 7].");
}

TEST_F(HistoryTest, EarliestRecreatableCheckpointKinds) {
  for (int v = 0; v < 12; ++v) Commit(v, {.mtime_ms = 1000 * (v + 1)});
  // An empty classic checkpoint (crashed write) and an incomplete multi-part one do not count.
  ASSERT_TRUE(store_->Put("_delta_log/00000000000000000004.checkpoint.parquet", "").ok());
  ASSERT_TRUE(
      store_->Put("_delta_log/00000000000000000006.checkpoint.0000000001.0000000002.parquet", "x")
          .ok());
  ASSERT_TRUE(
      store_->Put("_delta_log/00000000000000000008.checkpoint.0000000001.0000000002.parquet", "x")
          .ok());
  ASSERT_TRUE(
      store_->Put("_delta_log/00000000000000000008.checkpoint.0000000002.0000000002.parquet", "x")
          .ok());
  ASSERT_TRUE(store_->Put("_delta_log/00000000000000000010.checkpoint.parquet", "x").ok());
  EXPECT_EQ(Ok(EarliestRecreatableVersion(*store_)), 0);
  for (int v = 0; v < 4; ++v) ASSERT_TRUE(store_->Delete(CommitKey(v)).ok());
  EXPECT_EQ(Ok(EarliestRecreatableVersion(*store_)), 8);  // complete multi-part
  for (int v = 4; v < 10; ++v) ASSERT_TRUE(store_->Delete(CommitKey(v)).ok());
  EXPECT_EQ(Ok(EarliestRecreatableVersion(*store_)), 10);
  ASSERT_TRUE(store_->Delete("_delta_log/00000000000000000010.checkpoint.parquet").ok());
  ASSERT_TRUE(store_->Delete(CommitKey(10)).ok());
  auto none = EarliestRecreatableVersion(*store_);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().error_class(), kErrorNoRecreatableHistory);
}

TEST_F(HistoryTest, ReadHistoryNewestFirstWithParsedFields) {
  for (int v = 0; v < 5; ++v) {
    Commit(v, {.mtime_ms = 1000 * (v + 1),
               .with_commit_info = v != 3,
               .operation = v == 0 ? "CREATE TABLE" : "WRITE"});
  }
  auto all = ReadHistory(*store_, std::nullopt);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(Versions(*all), (std::vector<int64_t>{4, 3, 2, 1, 0}));
  EXPECT_EQ(Timestamps(*all), (std::vector<int64_t>{5000, 4000, 3000, 2000, 1000}));
  for (const auto& e : *all) {
    ASSERT_TRUE(e.commit_info) << e.version;
    EXPECT_EQ(e.commit_info->version, e.version);
  }
  const CommitInfo& v2 = *(*all)[2].commit_info;
  EXPECT_EQ(v2.operation, "WRITE");
  EXPECT_EQ(v2.read_version, 1);
  EXPECT_EQ(v2.isolation_level, "Serializable");
  EXPECT_EQ(v2.is_blind_append, true);
  EXPECT_EQ(v2.engine_info, "silt-test");
  EXPECT_EQ(v2.user_metadata, "note for v2");
  EXPECT_EQ(v2.timestamp, 3000);
  ASSERT_TRUE(v2.operation_parameters);
  EXPECT_EQ(*v2.operation_parameters->Find("mode"), "\"Append\"");
  ASSERT_TRUE(v2.operation_metrics);
  EXPECT_EQ(*v2.operation_metrics->Find("numOutputRows"), "2");
  EXPECT_EQ((*all)[4].commit_info->operation, "CREATE TABLE");
  // A commit without commitInfo gets an empty one (Spark's CommitInfo.empty).
  const CommitInfo& v3 = *(*all)[1].commit_info;
  EXPECT_FALSE(v3.operation);
  EXPECT_FALSE(v3.timestamp);

  auto two = ReadHistory(*store_, 2);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(Versions(*two), (std::vector<int64_t>{4, 3}));
  auto many = ReadHistory(*store_, 100);
  ASSERT_TRUE(many.ok());
  EXPECT_EQ(many->size(), 5u);
  auto zero = ReadHistory(*store_, 0);
  ASSERT_TRUE(zero.ok());
  EXPECT_TRUE(zero->empty());
  EXPECT_EQ(ReadHistory(*store_, -1).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(HistoryTest, ReadHistoryUsesInCommitTimestamps) {
  Commit(0, {.mtime_ms = 1000});
  Commit(1, {.mtime_ms = 900});  // adjusted to 1001
  Commit(2, {.mtime_ms = 10, .ict = 5000, .new_config = IctConfigAt(2, 5000)});
  auto history = ReadHistory(*store_, std::nullopt);
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  EXPECT_EQ(Timestamps(*history), (std::vector<int64_t>{5000, 1001, 1000}));
  EXPECT_TRUE((*history)[0].uses_in_commit_timestamp);
  EXPECT_EQ((*history)[0].commit_info->in_commit_timestamp, 5000);
}

TEST(TimestampLiteralTest, ParsesSparkForms) {
  struct Case {
    const char* text;
    int64_t millis;
  } cases[] = {
      {"1970-01-01", 0},
      {"2024-06-15", 1718409600000},
      {"2024-06-15 19:30:45", 1718479845000},
      {"2024-06-15 19:30", 1718479800000},
      {"2024-06-15 19:30:45.1", 1718479845100},
      {"2024-06-15 19:30:45.123", 1718479845123},
      {"2024-06-15 19:30:45.123456", 1718479845123},
      {"2024-06-15 19:30:45.123999999", 1718479845123},  // truncated, not rounded
      {"2024-06-15T19:30:45", 1718479845000},
      {"2024-06-15T19:30:45.5Z", 1718479845500},
      {"2024-06-15T19:30:45+02:00", 1718472645000},
      {"2024-06-15T19:30:45-0130", 1718485245000},
      {"2024-06-15 19:30:45 ", 1718479845000},  // Spark trims blanks
      {"  2024-06-15", 1718409600000},
      {"2024-06-15 19:30:45UTC", 1718479845000},
      {"1969-12-31 23:59:59.9995", -1},  // floor toward the past
  };
  for (const auto& c : cases) {
    auto ms = ParseTimestampLiteralMillis(c.text);
    ASSERT_TRUE(ms.ok()) << c.text << ": " << ms.status().ToString();
    EXPECT_EQ(*ms, c.millis) << c.text;
  }
  const char* bad[] = {"",
                       "  ",
                       "yesterday",
                       "2024-13-01",
                       "2024-06-15 25:00:00",
                       "2024-06-15 19:30:45 PST",
                       "2024-06-15T",
                       "1718479845000"};
  for (const char* text : bad) {
    auto ms = ParseTimestampLiteralMillis(text);
    ASSERT_FALSE(ms.ok()) << text;
    EXPECT_EQ(ms.status().error_class(), kErrorTimestampInvalid) << text;
  }
  EXPECT_EQ(ParseTimestampLiteralMillis("x").status().message(),
            "The provided timestamp ('x') cannot be converted to a valid timestamp.");
}

TEST(TimestampLiteralTest, FormatsLikeJavaSqlTimestamp) {
  EXPECT_EQ(FormatJavaTimestamp(0), "1970-01-01 00:00:00.0");
  EXPECT_EQ(FormatJavaTimestamp(1500), "1970-01-01 00:00:01.5");
  EXPECT_EQ(FormatJavaTimestamp(1718479845123), "2024-06-15 19:30:45.123");
  EXPECT_EQ(FormatJavaTimestamp(-1), "1969-12-31 23:59:59.999");
}

std::string GoldenTable(const std::string& name) {
  std::string dir = testing::ConformanceDir();
  if (dir.empty()) return "";
  std::string path = dir + "/golden/" + name + "/delta";
  std::error_code ec;
  return std::filesystem::is_directory(path + "/_delta_log", ec) ? path : "";
}

TEST(HistoryGoldenTest, DeltalogCommitInfo) {
  std::string root = GoldenTable("deltalog-commit-info");
  if (root.empty()) GTEST_SKIP() << "conformance data not found";
  LocalObjectStore store(root);  // read-only use of the shared table
  auto history = ReadHistory(store, std::nullopt);
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  ASSERT_EQ(history->size(), 1u);
  const CommitEntry& e = (*history)[0];
  EXPECT_EQ(e.version, 0);
  EXPECT_EQ(e.timestamp_ms, e.file_modification_ms);
  ASSERT_TRUE(e.commit_info);
  const CommitInfo& ci = *e.commit_info;
  EXPECT_EQ(ci.timestamp, 1540415658000);
  EXPECT_EQ(ci.user_id, "user_0");
  EXPECT_EQ(ci.user_name, "username_0");
  EXPECT_EQ(ci.operation, "WRITE");
  ASSERT_TRUE(ci.operation_parameters);
  EXPECT_EQ(*ci.operation_parameters->Find("test"), "\"test\"");
  EXPECT_EQ(ci.cluster_id, "cluster_id_0");
  EXPECT_EQ(ci.read_version, -1);
  EXPECT_EQ(ci.isolation_level, "default");
  EXPECT_EQ(ci.is_blind_append, true);
  ASSERT_TRUE(ci.operation_metrics);
  EXPECT_EQ(*ci.operation_metrics->Find("test"), "test");
  EXPECT_EQ(ci.user_metadata, "foo");
}

TEST(HistoryGoldenTest, BasicWithInsertsDeletesCheckpoint) {
  std::string root = GoldenTable("basic-with-inserts-deletes-checkpoint");
  if (root.empty()) GTEST_SKIP() << "conformance data not found";
  LocalObjectStore store(root);
  auto history = ReadHistory(store, std::nullopt);
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  ASSERT_EQ(history->size(), 14u);
  for (size_t i = 0; i < history->size(); ++i) {
    const CommitEntry& e = (*history)[i];
    int64_t v = 13 - static_cast<int64_t>(i);
    EXPECT_EQ(e.version, v);
    ASSERT_TRUE(e.commit_info);
    const char* op = (v >= 5 && v <= 9) || v == 13 ? "DELETE" : "WRITE";
    EXPECT_EQ(e.commit_info->operation, op) << v;
    // Newest first, strictly decreasing after the monotonic adjustment (copied files may share
    // one mtime).
    if (i > 0) {
      EXPECT_LT(e.timestamp_ms, (*history)[i - 1].timestamp_ms);
    }
  }
  EXPECT_EQ((*history)[0].commit_info->timestamp, 1691426743015);
  auto limited = ReadHistory(store, 3);
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(Versions(*limited), (std::vector<int64_t>{13, 12, 11}));

  EXPECT_EQ(Ok(EarliestRecreatableVersion(store)), 0);
  auto commits = ListCommits(store);
  ASSERT_TRUE(commits.ok());
  ASSERT_EQ(commits->size(), 14u);
  EXPECT_EQ(Ok(VersionAtTimestamp(store, (*commits)[7].timestamp_ms)), 7);
  EXPECT_EQ(Ok(VersionAtTimestamp(store, (*commits)[13].timestamp_ms)), 13);
  EXPECT_EQ(VersionAtTimestamp(store, (*commits)[13].timestamp_ms + 1).status().error_class(),
            kErrorTimestampGreaterThanCommit);
  EXPECT_EQ(VersionAtTimestamp(store, (*commits)[0].timestamp_ms - 1).status().error_class(),
            kErrorTimestampEarlierThanRetention);
}

}  // namespace
}  // namespace silt::delta
