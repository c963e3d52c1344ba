// delta::ReadIcebergTable (CLONE iceberg.`path`) over the Iceberg metadata UniForm writes: the
// schema with Iceberg's field ids as column mapping ids, identity partitions, one add per live
// data file with its record count; and the refusals (DELTA_CLONE_INCOMPATIBLE_SOURCE) for
// metadata edited to a non-identity transform, partition evolution and a list column.
#include <gtest/gtest.h>

#include <string>

#include "delta/iceberg_metadata.h"
#include "io/local_object_store.h"
#include "silt/silt.h"
#include "unit/ops/dml_test_util.h"

namespace silt {
namespace {

using ops::testing::TempDir;

class IcebergTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DatabaseOptions o;
    o.warehouse = dir_.path() + "/warehouse";
    o.threads = 1;
    o.tune_allocator = false;
    auto db = Database::Open(o);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    Connection con(*db);
    const std::string ref = "delta.`" + dir_.path() + "/t`";
    for (const std::string& sql :
         {"CREATE TABLE " + ref +
              " (id BIGINT, v STRING, p INT) USING DELTA PARTITIONED BY (p) TBLPROPERTIES ("
              "'delta.enableIcebergCompatV2' = 'true', "
              "'delta.universalFormat.enabledFormats' = 'iceberg')",
          "INSERT INTO " + ref + " SELECT id, 'a', CAST(id % 2 AS INT) FROM range(10)",
          "INSERT INTO " + ref + " VALUES (10, 'b', NULL)"}) {
      auto r = con.Query(sql);
      ASSERT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
    }
    store_ = std::make_shared<LocalObjectStore>(dir_.path() + "/t");
  }

  // Rewrites the current metadata file with `from` replaced by `to` (which must occur).
  void EditMetadata(const std::string& from, const std::string& to) {
    auto hint = store_->Get("metadata/version-hint.text");
    ASSERT_TRUE(hint.ok());
    const std::string key = "metadata/v" + *hint + ".metadata.json";
    auto text = store_->Get(key);
    ASSERT_TRUE(text.ok());
    const size_t at = text->find(from);
    ASSERT_NE(at, std::string::npos) << *text;
    ASSERT_TRUE(store_->Put(key, text->substr(0, at) + to + text->substr(at + from.size())).ok());
  }

  void ExpectRefused(const std::string& why) {
    auto t = delta::ReadIcebergTable(*store_);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().error_class(), "DELTA_CLONE_INCOMPATIBLE_SOURCE");
    EXPECT_NE(t.status().message().find(why), std::string::npos) << t.status().ToString();
  }

  TempDir dir_;
  std::shared_ptr<ObjectStore> store_;
};

TEST_F(IcebergTableTest, DescribesTheCurrentSnapshot) {
  auto t = delta::ReadIcebergTable(*store_);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->schema.size(), 3u);
  EXPECT_EQ(t->schema[0].name, "id");
  EXPECT_EQ(t->schema[0].metadata_json,
            "{\"delta.columnMapping.id\":1,\"delta.columnMapping.physicalName\":\"id\"}");
  EXPECT_EQ(t->max_column_id, 3);
  ASSERT_EQ(t->partition_columns, std::vector<std::string>{"p"});
  ASSERT_EQ(t->files.size(), 3u);  // p=0, p=1, p=null
  int64_t rows = 0, nulls = 0;
  for (const auto& f : t->files) {
    EXPECT_EQ(f.path.rfind("file:///", 0), 0u) << f.path;  // absolute, as the manifest names it
    EXPECT_GT(f.size, 0);
    const std::string& s = *f.stats;
    rows += std::stoll(s.substr(s.find(':') + 1));
    const auto* p = f.partition_values.Find("p");
    ASSERT_NE(p, nullptr);
    if (!p->has_value()) ++nulls;
  }
  EXPECT_EQ(rows, 11);
  EXPECT_EQ(nulls, 1);
}

TEST_F(IcebergTableTest, RefusesNonIdentityTransforms) {
  EditMetadata("\"transform\":\"identity\"", "\"transform\":\"bucket[4]\"");
  ExpectRefused("bucket[4]");
}

TEST_F(IcebergTableTest, RefusesPartitionEvolution) {
  // A second spec (unpartitioned) made the default: the manifests hold spec 0's files.
  EditMetadata("\"default-spec-id\":0,\"partition-specs\":[",
               "\"default-spec-id\":1,\"partition-specs\":[{\"spec-id\":1,\"fields\":[]},");
  ExpectRefused("partition evolution");
}

TEST_F(IcebergTableTest, RefusesAMissingDefaultSpec) {
  EditMetadata("\"default-spec-id\":0", "\"default-spec-id\":7");
  ExpectRefused("no partition spec 7");
}

TEST_F(IcebergTableTest, RefusesListColumns) {
  EditMetadata("\"type\":\"string\"",
               "\"type\":{\"type\":\"list\",\"element-id\":9,\"element\":\"string\","
               "\"element-required\":false}");
  ExpectRefused("list column");
}

TEST_F(IcebergTableTest, NoMetadataIsNotAnIcebergTable) {
  auto empty = std::make_shared<LocalObjectStore>(dir_.path() + "/warehouse");
  auto t = delta::ReadIcebergTable(*empty);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().error_class(), "DELTA_CLONE_UNSUPPORTED_SOURCE");
}

}  // namespace
}  // namespace silt
