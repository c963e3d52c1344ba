// Auto-TTL policy keys and validation (delta/auto_ttl.h, spec A.3/A.4).
#include "delta/auto_ttl.h"

#include <gtest/gtest.h>

#include "delta/schema_json.h"
#include "delta/table_properties.h"

namespace silt::delta {
namespace {

Schema TestSchema() {
  TypePtr inner = DataType::Struct({{"ts", DataType::Timestamp(), true, "{}"}});
  return {
      {"id", DataType::Int64(), false, "{}"},   {"created_at", DataType::Timestamp(), true, "{}"},
      {"d", DataType::Date(), true, "{}"},      {"ntz", DataType::TimestampNtz(), true, "{}"},
      {"name", DataType::String(), true, "{}"}, {"s", inner, true, "{}"}};
}

std::string ClassOf(const Status& s) { return std::string(s.error_class()); }

TEST(AutoTtlTest, PolicyOfReadsBothKeysOrNone) {
  StringMap config;
  auto none = AutoTtlPolicyOf(config);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  config.Set(kAutoTtlExpireInDaysKey, "30");
  EXPECT_EQ(ClassOf(AutoTtlPolicyOf(config).status()), kInvalidTablePropertyClass);
  config.Set(kAutoTtlTimestampColumnKey, "created_at");
  auto p = AutoTtlPolicyOf(config);
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE(p->has_value());
  EXPECT_EQ((*p)->expire_in_days, 30);
  EXPECT_EQ((*p)->timestamp_column, "created_at");
  config.Set(kAutoTtlExpireInDaysKey, "-1");
  EXPECT_EQ(ClassOf(AutoTtlPolicyOf(config).status()), "AUTO_TTL_INVALID_EXPIRATION_DAYS");
}

TEST(AutoTtlTest, ExpireInDaysBounds) {
  EXPECT_TRUE(ValidateAutoTtlExpireInDays(0).ok());
  EXPECT_TRUE(ValidateAutoTtlExpireInDays(2147483647).ok());
  EXPECT_EQ(ClassOf(ValidateAutoTtlExpireInDays(-1)), "AUTO_TTL_INVALID_EXPIRATION_DAYS");
  EXPECT_EQ(ClassOf(ValidateAutoTtlExpireInDays(2147483648LL)), "AUTO_TTL_INVALID_EXPIRATION_DAYS");
}

TEST(AutoTtlTest, ColumnRules) {
  Schema schema = TestSchema();
  auto ts = ValidateAutoTtlColumn(schema, "created_at", false);
  ASSERT_TRUE(ts.ok());
  EXPECT_EQ(*ts, 1u);
  EXPECT_TRUE(ValidateAutoTtlColumn(schema, "d", false).ok());
  EXPECT_TRUE(ValidateAutoTtlColumn(schema, "ntz", false).ok());
  EXPECT_EQ(ClassOf(ValidateAutoTtlColumn(schema, "name", false).status()),
            "AUTO_TTL_INVALID_COLUMN_TYPE");
  EXPECT_EQ(ClassOf(ValidateAutoTtlColumn(schema, "id", false).status()),
            "AUTO_TTL_INVALID_COLUMN_TYPE");
  EXPECT_EQ(ClassOf(ValidateAutoTtlColumn(schema, "nope", false).status()),
            "AUTO_TTL_COLUMN_NOT_FOUND");
  EXPECT_EQ(ClassOf(ValidateAutoTtlColumn(schema, "s.ts", false).status()),
            "AUTO_TTL_NESTED_COLUMN_NOT_SUPPORTED");
  EXPECT_EQ(ClassOf(ValidateAutoTtlColumn(schema, "s", false).status()),
            "AUTO_TTL_INVALID_COLUMN_TYPE");
  // Case sensitivity follows the session.
  EXPECT_TRUE(ValidateAutoTtlColumn(schema, "CREATED_AT", false).ok());
  EXPECT_EQ(ClassOf(ValidateAutoTtlColumn(schema, "CREATED_AT", true).status()),
            "AUTO_TTL_COLUMN_NOT_FOUND");
}

TEST(AutoTtlTest, SetStoresSchemaSpellingAndReplaces) {
  Schema schema = TestSchema();
  StringMap config;
  config.Set("delta.enableDeletionVectors", "true");
  ASSERT_TRUE(SetAutoTtlPolicy(&config, schema, "Created_At", 30, false).ok());
  EXPECT_EQ(*config.Find(kAutoTtlExpireInDaysKey), "30");
  EXPECT_EQ(*config.Find(kAutoTtlTimestampColumnKey), "created_at");
  EXPECT_FALSE(config.Contains(kAutoTtlTimestampColumnIdKey));
  ASSERT_TRUE(SetAutoTtlPolicy(&config, schema, "d", 60, false).ok());
  EXPECT_EQ(*config.Find(kAutoTtlExpireInDaysKey), "60");
  EXPECT_EQ(*config.Find(kAutoTtlTimestampColumnKey), "d");
  EXPECT_EQ(config.size(), 3u);
  // A failed validation leaves the configuration as it was.
  EXPECT_FALSE(SetAutoTtlPolicy(&config, schema, "name", 1, false).ok());
  EXPECT_EQ(*config.Find(kAutoTtlTimestampColumnKey), "d");
  EXPECT_TRUE(RemoveAutoTtlPolicy(&config));
  EXPECT_FALSE(RemoveAutoTtlPolicy(&config));
  EXPECT_EQ(config.size(), 1u);
}

TEST(AutoTtlTest, ColumnMappingRecordsTheFieldId) {
  int64_t max_id = 0;
  Schema mapped = AssignColumnMapping(TestSchema(), &max_id);
  StringMap config;
  config.Set("delta.columnMapping.mode", "name");
  ASSERT_TRUE(SetAutoTtlPolicy(&config, mapped, "created_at", 7, false).ok());
  ASSERT_TRUE(config.Contains(kAutoTtlTimestampColumnIdKey));
  EXPECT_EQ(*config.Find(kAutoTtlTimestampColumnIdKey),
            std::to_string(*ColumnMappingId(mapped[1])));
}

TEST(AutoTtlTest, NormalizeChecksPropertiesLikeTheDdl) {
  Schema schema = TestSchema();
  StringMap config;
  config.Set("autoTTL.expireInDays", "5");
  config.Set("AUTOTTL.TIMESTAMPCOLUMN", "CREATED_AT");
  ASSERT_TRUE(NormalizeAutoTtlConfiguration(&config, schema, false).ok());
  EXPECT_EQ(config.size(), 2u);
  EXPECT_EQ(*config.Find(kAutoTtlExpireInDaysKey), "5");
  EXPECT_EQ(*config.Find(kAutoTtlTimestampColumnKey), "created_at");

  StringMap bad_type;
  bad_type.Set(kAutoTtlExpireInDaysKey, "5");
  bad_type.Set(kAutoTtlTimestampColumnKey, "name");
  EXPECT_EQ(ClassOf(NormalizeAutoTtlConfiguration(&bad_type, schema, false)),
            "AUTO_TTL_INVALID_COLUMN_TYPE");
  StringMap one_key;
  one_key.Set(kAutoTtlTimestampColumnKey, "created_at");
  EXPECT_EQ(ClassOf(NormalizeAutoTtlConfiguration(&one_key, schema, false)),
            kInvalidTablePropertyClass);
  StringMap bad_days;
  bad_days.Set(kAutoTtlExpireInDaysKey, "ten");
  bad_days.Set(kAutoTtlTimestampColumnKey, "created_at");
  EXPECT_EQ(ClassOf(NormalizeAutoTtlConfiguration(&bad_days, schema, false)),
            "AUTO_TTL_INVALID_EXPIRATION_DAYS");
  StringMap id_only;
  id_only.Set(kAutoTtlTimestampColumnIdKey, "3");
  EXPECT_EQ(ClassOf(NormalizeAutoTtlConfiguration(&id_only, schema, false)),
            kInvalidTablePropertyClass);
  StringMap none;
  none.Set("delta.appendOnly", "false");
  EXPECT_TRUE(NormalizeAutoTtlConfiguration(&none, schema, false).ok());
  EXPECT_EQ(none.size(), 1u);
}

TEST(AutoTtlTest, SchemaChangeGuards) {
  StringMap config;
  config.Set(kAutoTtlExpireInDaysKey, "30");
  config.Set(kAutoTtlTimestampColumnKey, "created_at");
  EXPECT_EQ(ClassOf(CheckAutoTtlColumnRename(config, "CREATED_AT", false)),
            "AUTO_TTL_COLUMN_RENAME_NOT_SUPPORTED");
  EXPECT_TRUE(CheckAutoTtlColumnRename(config, "CREATED_AT", true).ok());
  EXPECT_TRUE(CheckAutoTtlColumnRename(config, "name", false).ok());
  EXPECT_EQ(ClassOf(CheckAutoTtlColumnDrop(config, "created_at", false)),
            "AUTO_TTL_COLUMN_DROP_NOT_SUPPORTED");
  EXPECT_TRUE(CheckAutoTtlColumnDrop(config, "id", false).ok());
  EXPECT_EQ(ClassOf(CheckAutoTtlColumnType(config, "created_at", *DataType::String(), false)),
            "AUTO_TTL_INVALID_COLUMN_TYPE");
  EXPECT_TRUE(CheckAutoTtlColumnType(config, "created_at", *DataType::TimestampNtz(), false).ok());
  StringMap empty;
  EXPECT_TRUE(CheckAutoTtlColumnDrop(empty, "created_at", false).ok());
}

}  // namespace
}  // namespace silt::delta
