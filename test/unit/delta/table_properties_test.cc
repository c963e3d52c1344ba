#include "delta/table_properties.h"

#include <gtest/gtest.h>

namespace silt::delta {
namespace {

constexpr int64_t kSec = 1000, kMin = 60 * kSec, kHr = 60 * kMin, kDy = 24 * kHr;

TEST(TablePropertiesTest, ParsesDeltaIntervalForms) {
  struct Case {
    const char* text;
    int64_t millis;
  } cases[] = {
      {"interval 7 days", 7 * kDy},
      {"interval 30 days", 30 * kDy},
      {"interval 1 hours", kHr},
      {"interval 1 hour", kHr},
      {"2 weeks", 14 * kDy},
      {"interval 1 week", 7 * kDy},
      {"INTERVAL 2 DAYS", 2 * kDy},
      {"  interval   3   Minutes  ", 3 * kMin},
      {"interval 1 day 12 hours", kDy + 12 * kHr},
      {"interval 90 seconds", 90 * kSec},
      {"interval 1.5 seconds", 1500},
      {"interval 250 milliseconds", 250},
      {"interval 2500 microseconds", 2},
      {"interval 3000000 nanoseconds", 3},
      {"interval 0 seconds", 0},
      {"interval 2 days -1 hours", 2 * kDy - kHr},
      {"30 days", 30 * kDy},
  };
  for (const auto& c : cases) {
    auto r = ParseIntervalMillis(c.text);
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.status().ToString();
    EXPECT_EQ(*r, c.millis) << c.text;
  }
}

TEST(TablePropertiesTest, RejectsBadIntervals) {
  for (const char* text :
       {"", "interval", "7", "days", "interval 7", "7 fortnights", "interval 1 month",
        "interval 2 years", "interval -1 days", "interval 1 days 2", "interval abc days",
        "interval 1.5 days", "interval 1e3 seconds", "interval 99999999999999999999 days",
        "interval 999999999999999999 weeks"}) {
    auto r = ParseIntervalMillis(text);
    ASSERT_FALSE(r.ok()) << "'" << text << "' parsed as " << *r;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << text;
    EXPECT_EQ(r.status().error_class(), kInvalidIntervalClass) << text;
  }
}

TEST(TablePropertiesTest, Defaults) {
  StringMap empty;
  EXPECT_EQ(*GetCheckpointInterval(empty), 10);
  EXPECT_EQ(*GetLogRetentionMillis(empty), 30 * kDy);
  EXPECT_EQ(*GetDeletedFileRetentionMillis(empty), 7 * kDy);
  EXPECT_EQ(*GetCheckpointRetentionMillis(empty), 2 * kDy);
  EXPECT_TRUE(*GetEnableExpiredLogCleanup(empty));
  EXPECT_TRUE(*GetCheckpointWriteStatsAsJson(empty));
  EXPECT_FALSE(GetSetTransactionRetentionMillis(empty)->has_value());
}

TEST(TablePropertiesTest, ReadsValues) {
  StringMap c{{"delta.checkpointInterval", "25"},
              {"delta.logRetentionDuration", "interval 12 hours"},
              {"delta.deletedFileRetentionDuration", "interval 1 days"},
              {"delta.checkpointRetentionDuration", "interval 3 days"},
              {"delta.enableExpiredLogCleanup", "FALSE"},
              {"delta.checkpoint.writeStatsAsJson", "False"},
              {"delta.setTransactionRetentionDuration", "interval 4 weeks"}};
  EXPECT_EQ(*GetCheckpointInterval(c), 25);
  EXPECT_EQ(*GetLogRetentionMillis(c), 12 * kHr);
  EXPECT_EQ(*GetDeletedFileRetentionMillis(c), kDy);
  EXPECT_EQ(*GetCheckpointRetentionMillis(c), 3 * kDy);
  EXPECT_FALSE(*GetEnableExpiredLogCleanup(c));
  EXPECT_FALSE(*GetCheckpointWriteStatsAsJson(c));
  EXPECT_EQ(**GetSetTransactionRetentionMillis(c), 28 * kDy);
}

TEST(TablePropertiesTest, InvalidValuesNameTheKey) {
  auto expect_bad = [](const Status& s, const char* key) {
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << key;
    EXPECT_EQ(s.error_class(), kInvalidTablePropertyClass) << key;
    EXPECT_NE(s.message().find(key), std::string_view::npos) << s.ToString();
  };
  for (const char* v : {"0", "-5", "ten", "", "1.5", "99999999999"}) {
    StringMap c{{kCheckpointIntervalKey, v}};
    expect_bad(GetCheckpointInterval(c).status(), kCheckpointIntervalKey);
  }
  StringMap bad{{kLogRetentionDurationKey, "forever"},
                {kDeletedFileRetentionDurationKey, "interval 1 month"},
                {kCheckpointRetentionDurationKey, "interval -2 days"},
                {kEnableExpiredLogCleanupKey, "yes"},
                {kCheckpointWriteStatsAsJsonKey, "1"},
                {kSetTransactionRetentionDurationKey, "7"}};
  expect_bad(GetLogRetentionMillis(bad).status(), kLogRetentionDurationKey);
  expect_bad(GetDeletedFileRetentionMillis(bad).status(), kDeletedFileRetentionDurationKey);
  expect_bad(GetCheckpointRetentionMillis(bad).status(), kCheckpointRetentionDurationKey);
  expect_bad(GetEnableExpiredLogCleanup(bad).status(), kEnableExpiredLogCleanupKey);
  expect_bad(GetCheckpointWriteStatsAsJson(bad).status(), kCheckpointWriteStatsAsJsonKey);
  expect_bad(GetSetTransactionRetentionMillis(bad).status(), kSetTransactionRetentionDurationKey);
}

TEST(TablePropertiesTest, ValidateNormalizesKnownKeysAndRejectsUnknownOnes) {
  StringMap given{{"DELTA.APPENDONLY", "TRUE"},
                  {"team", "data"},
                  {"delta.constraints.c", "id > 0"},
                  {"delta.feature.deletionVectors", "supported"},
                  {"delta.logRetentionDuration", "interval 2 weeks"}};
  Result<StringMap> ok = ValidateTableProperties(given, false);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(*ok->Find("delta.appendOnly"), "TRUE");
  EXPECT_FALSE(ok->Contains("DELTA.APPENDONLY"));
  EXPECT_EQ(ok->size(), given.size());
  EXPECT_EQ(NormalizeTablePropertyKey("delta.enabledeletionvectors"),
            "delta.enableDeletionVectors");
  EXPECT_EQ(NormalizeTablePropertyKey("Team"), "Team");

  StringMap unknown{{"delta.notAThing", "1"}};
  EXPECT_EQ(ValidateTableProperties(unknown, false).status().error_class(),
            kUnknownConfigurationClass);
  EXPECT_TRUE(ValidateTableProperties(unknown, true).ok());
  auto cls = [](const char* k, const char* v) {
    return std::string(ValidateTableProperties(StringMap{{k, v}}, false).status().error_class());
  };
  EXPECT_EQ(cls("delta.appendOnly", "1"), kInvalidTablePropertyClass);
  EXPECT_EQ(cls("delta.dataSkippingNumIndexedCols", "-2"), kInvalidTablePropertyClass);
  EXPECT_EQ(cls("delta.dataSkippingNumIndexedCols", "-1"), "");
  EXPECT_EQ(cls("delta.minWriterVersion", "8"), kInvalidTablePropertyClass);
  EXPECT_EQ(cls("delta.columnMapping.mode", "NAME"), "");
  EXPECT_EQ(cls("delta.columnMapping.mode", "names"), kInvalidTablePropertyClass);
  EXPECT_EQ(cls("delta.deletedFileRetentionDuration", "interval 1 month"), kInvalidIntervalClass);
  EXPECT_EQ(cls("delta.deletedFileRetentionDuration", ""), "DELTA_INVALID_CALENDAR_INTERVAL_EMPTY");
  EXPECT_EQ(cls("delta.columnMapping.maxColumnId", "3"), kCannotModifyTablePropertyClass);
}

}  // namespace
}  // namespace silt::delta
