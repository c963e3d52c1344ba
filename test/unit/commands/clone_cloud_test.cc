// CLONE on the cloud stores (issue 28): a shallow clone of a table on Azure (opened by az://) or
// S3 names the source's files by URIs that Spark opens too (abfss://container@account.dfs.core.
// windows.net/…, s3a://bucket/… as written), silt reads them back, VACUUM on the clone keeps
// them, and a deep clone into a local directory owns copies. Needs the emulators (test/cloud/
// run.sh, run-s3.sh); skips otherwise. Test names carry the store for the scripts' filters.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "io/azure_blob_store.h"
#include "io/object_store_factory.h"
#include "io/s3_object_store.h"
#include "silt/silt.h"
#include "unit/io/cloud_test_util.h"
#include "unit/ops/vacuum_test_util.h"

namespace silt {
namespace {

using cloudtest::Exec;
using cloudtest::Scalar;
using cloudtest::Unique;

bool EnvIs1(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string(v) == "1";
}

struct CloneOnAzure {
  static constexpr const char* kName = "Azure";
  static bool Available() { return EnvIs1("SILT_TEST_AZURE"); }
  // A fresh directory in container "tables" by az://, and the prefix its shallow clones write.
  static std::string FreshBase(std::string* uri_prefix) {
    auto whole = AzureBlobStore::Open("az://tables");
    EXPECT_TRUE(whole.ok()) << whole.status().ToString();
    if (whole.ok()) {
      EXPECT_TRUE((*whole)->CreateContainer().ok());
    }
    const std::string dir = Unique("clone");
    *uri_prefix = "abfss://tables@devstoreaccount1.dfs.core.windows.net/" + dir + "/";
    return "az://tables/" + dir;
  }
};

struct CloneOnS3 {
  static constexpr const char* kName = "S3";
  static bool Available() { return EnvIs1("SILT_TEST_S3"); }
  static std::string FreshBase(std::string* uri_prefix) {
    auto whole = S3ObjectStore::Open("s3://tables");
    EXPECT_TRUE(whole.ok()) << whole.status().ToString();
    if (whole.ok()) {
      EXPECT_TRUE((*whole)->CreateBucket().ok());
    }
    const std::string dir = Unique("clone");
    *uri_prefix = "s3a://tables/" + dir + "/";
    return "s3a://tables/" + dir;
  }
};

struct StoreName {
  template <typename T>
  static std::string GetName(int) {
    return T::kName;
  }
};

template <typename Store>
class CloneCloudTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Store::Available()) GTEST_SKIP() << "SKIP the " << Store::kName << " emulator is off";
    base_ = Store::FreshBase(&uri_prefix_);
    DatabaseOptions options;
    options.warehouse = base_ + "/warehouse";
    options.threads = 2;
    auto db = Database::Open(options);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = *db;
  }
  std::string base_, uri_prefix_;
  std::shared_ptr<Database> db_;
};

using Stores = ::testing::Types<CloneOnAzure, CloneOnS3>;
TYPED_TEST_SUITE(CloneCloudTest, Stores, StoreName);

TYPED_TEST(CloneCloudTest, ShallowCloneNamesSparkUrisAndDeepCloneCopiesAcrossStores) {
  Connection con(this->db_);
  const std::string src = this->base_ + "/src", sc = this->base_ + "/sc";
  Exec(con, "CREATE TABLE delta.`" + src +
                "` (id BIGINT) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
  Exec(con, "INSERT INTO delta.`" + src + "` SELECT id FROM range(100)");
  Exec(con, "DELETE FROM delta.`" + src + "` WHERE id < 10");
  Exec(con, "CREATE TABLE delta.`" + sc + "` SHALLOW CLONE delta.`" + src + "`");

  // The clone's commit: every add (and its DV) by the source's URI in Spark's form.
  auto store = OpenObjectStore(sc, nullptr);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto log = (*store)->Get("_delta_log/00000000000000000000.json");
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  const std::string data_uri = "\"path\":\"" + this->uri_prefix_ + "src/part-";
  const std::string dv_uri = "\"pathOrInlineDv\":\"" + this->uri_prefix_ + "src/deletion_vector_";
  EXPECT_NE(log->find(data_uri), std::string::npos) << *log;
  EXPECT_NE(log->find(dv_uri), std::string::npos) << *log;
  EXPECT_EQ(Scalar(con, "SELECT count(*) FROM delta.`" + sc + "`"), "90");

  // VACUUM on the clone (opened by another URL form than its paths) keeps the source's files.
  Exec(con, "SET spark.databricks.delta.retentionDurationCheck.enabled = false");
  Exec(con, "VACUUM delta.`" + sc + "` RETAIN 0 HOURS");
  EXPECT_EQ(Scalar(con, "SELECT count(*) FROM delta.`" + src + "`"), "90");
  EXPECT_EQ(Scalar(con, "SELECT count(*) FROM delta.`" + sc + "`"), "90");

  // A deep clone into a local directory owns copies: the source's data can go.
  ops::testing::TempDir local;
  const std::string dc = local.path() + "/dc";
  Exec(con, "CREATE TABLE delta.`" + dc + "` CLONE delta.`" + src + "`");
  Exec(con, "TRUNCATE TABLE delta.`" + src + "`");
  Exec(con, "VACUUM delta.`" + src + "` RETAIN 0 HOURS");
  EXPECT_EQ(Scalar(con, "SELECT count(*) FROM delta.`" + dc + "`"), "90");
  EXPECT_EQ(Scalar(con, "SELECT count(*) FROM delta.`" + sc + "`").rfind("ERROR", 0), 0u);
}

}  // namespace
}  // namespace silt
