// Tables on each cloud store (issue 24's "Must show"), one typed fixture over Azure and S3: a
// warehouse created and queried, DELETE/UPDATE/MERGE with deletion vectors, OPTIMIZE, REORG PURGE,
// VACUUM (nothing outside the table deleted), time travel; 16 concurrent committers; injected
// throttling, timeouts and lost responses; shallow and deep CLONE (issue 28). Each needs its
// emulator (test/cloud/run.sh starts Azurite, test/cloud/run-s3.sh s3rver) and skips with a message
// otherwise. The test names carry the store ("CloudTableTest/Azure.…", "CloudTableTest/S3.…"), so
// the scripts' filters pick them.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>
#include <vector>

#include "io/azure_blob_store.h"
#include "io/object_store_factory.h"
#include "io/s3_object_store.h"
#include "io/storage_config.h"
#include "silt/silt.h"
#include "unit/io/cloud_test_util.h"

namespace silt {
namespace {

using cloudtest::CountObjects;
using cloudtest::Exec;
using cloudtest::Scalar;
using cloudtest::Unique;

bool EnvIs1(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string(v) == "1";
}

struct OnAzure {
  static constexpr const char* kName = "Azure";
  static bool Available() { return EnvIs1("SILT_TEST_AZURE"); }
  static constexpr const char* kSkip = "SKIP Azurite is not running (test/cloud/run.sh starts it)";
  static constexpr const char* kMinBackoff = "fs.azure.io.retry.min.backoff.interval";
  static constexpr const char* kMaxBackoff = "fs.azure.io.retry.max.backoff.interval";
  static constexpr int kThrottle = 429;
  // A fresh directory in container "tables" (created when missing).
  static std::string FreshBase() {
    auto whole = AzureBlobStore::Open("az://tables");
    EXPECT_TRUE(whole.ok()) << whole.status().ToString();
    if (whole.ok()) {
      EXPECT_TRUE((*whole)->CreateContainer().ok());
    }
    return "az://tables/" + Unique("w");
  }
};

struct OnS3 {
  static constexpr const char* kName = "S3";
  static bool Available() { return EnvIs1("SILT_TEST_S3"); }
  static constexpr const char* kSkip =
      "SKIP the S3 emulator is not running (test/cloud/run-s3.sh starts it)";
  static constexpr const char* kMinBackoff = "fs.s3a.retry.interval";
  static constexpr const char* kMaxBackoff = "fs.s3a.retry.max.interval";
  static constexpr int kThrottle = 500;
  static std::string FreshBase() {
    auto whole = S3ObjectStore::Open("s3://tables");
    EXPECT_TRUE(whole.ok()) << whole.status().ToString();
    if (whole.ok()) {
      EXPECT_TRUE((*whole)->CreateBucket().ok());
    }
    return "s3a://tables/" + Unique("w");
  }
};

struct StoreName {
  template <typename T>
  static std::string GetName(int) {
    return T::kName;
  }
};

template <typename Store>
class CloudTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Store::Available()) GTEST_SKIP() << Store::kSkip;
    base_ = Store::FreshBase();
    DatabaseOptions options;
    options.warehouse = base_ + "/warehouse";
    options.threads = 2;
    auto db = Database::Open(options);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = *db;
  }
  std::string base_;
  std::shared_ptr<Database> db_;
};

using Stores = ::testing::Types<OnAzure, OnS3>;
TYPED_TEST_SUITE(CloudTableTest, Stores, StoreName);

TYPED_TEST(CloudTableTest, DmlWithDeletionVectorsMaintenanceAndTimeTravel) {
  Connection con(this->db_);
  std::string t = this->base_ + "/t";
  auto outside = *OpenObjectStore(this->base_, nullptr);
  ASSERT_TRUE(outside->Put("t-sibling/keep.parquet", "x").ok());
  ASSERT_TRUE(outside->Put("other/part-0.parquet", "x").ok());
  Exec(con, "CREATE TABLE delta.`" + t +
                "` (id BIGINT, s STRING) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' "
                "= 'true')");
  Exec(con, "INSERT INTO delta.`" + t + "` SELECT id, concat('v', id) FROM range(1000)");
  Exec(con, "INSERT INTO delta.`" + t + "` SELECT id, 'w' FROM range(1000, 1500)");
  EXPECT_EQ(Scalar(con, "SELECT count(*) FROM delta.`" + t + "`"), "1500");
  Exec(con, "DELETE FROM delta.`" + t + "` WHERE id % 10 = 0");
  EXPECT_EQ(Scalar(con, "SELECT count(*) FROM delta.`" + t + "`"), "1350");
  Exec(con, "UPDATE delta.`" + t + "` SET s = 'u' WHERE id < 100");
  EXPECT_EQ(Scalar(con, "SELECT count(*) FROM delta.`" + t + "` WHERE s = 'u'"), "90");
  Exec(
      con,
      "MERGE INTO delta.`" + t +
          "` AS d USING (SELECT id, 'm' AS s FROM range(1490, 1510)) AS src "
          "ON d.id = src.id WHEN MATCHED THEN UPDATE SET s = src.s WHEN NOT MATCHED THEN INSERT *");
  // 1491..1499 matched, 1490 (deleted) and 1500..1509 inserted.
  EXPECT_EQ(Scalar(con, "SELECT count(*) FROM delta.`" + t + "` WHERE s = 'm'"), "20");
  EXPECT_EQ(Scalar(con, "SELECT count(*) FROM delta.`" + t + "`"), "1361");
  Exec(con, "OPTIMIZE delta.`" + t + "`");
  Exec(con, "REORG TABLE delta.`" + t + "` APPLY (PURGE)");
  EXPECT_EQ(Scalar(con, "SELECT count(*) FROM delta.`" + t + "`"), "1361");
  // Time travel to the first insert.
  EXPECT_EQ(Scalar(con, "SELECT count(*) FROM delta.`" + t + "` VERSION AS OF 1"), "1000");
  // VACUUM deletes the table's unreferenced files, never anything outside it.
  Exec(con, "SET spark.databricks.delta.retentionDurationCheck.enabled = false");
  int64_t before = CountObjects(*outside, "t");
  Exec(con, "VACUUM delta.`" + t + "` RETAIN 0 HOURS");
  EXPECT_LT(CountObjects(*outside, "t"), before);
  EXPECT_EQ(Scalar(con, "SELECT count(*) FROM delta.`" + t + "`"), "1361");
  EXPECT_EQ(*outside->Get("t-sibling/keep.parquet"), "x");
  EXPECT_EQ(*outside->Get("other/part-0.parquet"), "x");
  // A managed table in the warehouse, too.
  Exec(con, "CREATE TABLE m (a INT) USING DELTA");
  Exec(con, "INSERT INTO m VALUES (1), (2)");
  EXPECT_EQ(Scalar(con, "SELECT sum(a) FROM m"), "3");
}

// 16 sessions append to one table at once: every commit lands at exactly one version, none lost.
TYPED_TEST(CloudTableTest, SixteenConcurrentCommittersOneWinnerPerVersion) {
  std::string t = this->base_ + "/c";
  {
    Connection con(this->db_);
    Exec(con, "CREATE TABLE delta.`" + t + "` (w INT, i INT) USING DELTA");
  }
  constexpr int kWriters = 16;
  std::atomic<int> ok{0};
  std::vector<std::string> errors(kWriters);
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      Connection con(this->db_);
      auto r = con.Query("INSERT INTO delta.`" + t + "` VALUES (" + std::to_string(w) + ", 1)");
      if (r.ok()) {
        ok++;
      } else {
        errors[w] = r.status().ToString();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (const auto& e : errors) {
    if (!e.empty()) {
      EXPECT_NE(e.find("CONCURRENT"), std::string::npos) << e;  // only conflicts
    }
  }
  EXPECT_GE(ok.load(), 1);
  Connection con(this->db_);
  EXPECT_EQ(Scalar(con, "SELECT count(*) FROM delta.`" + t + "`"), std::to_string(ok.load()));
  EXPECT_EQ(Scalar(con, "SELECT count(DISTINCT w) FROM delta.`" + t + "`"),
            std::to_string(ok.load()));
  // The log: versions 0..ok, each exactly once.
  auto store = *OpenObjectStore(t, nullptr);
  auto log = *store->ListFrom("_delta_log/");
  std::set<std::string> commits;
  for (const auto& m : log) {
    if (m.key.ends_with(".json")) commits.insert(m.key);
  }
  EXPECT_EQ(commits.size(), static_cast<size_t>(ok.load() + 1));
  auto history = con.Query("DESCRIBE HISTORY delta.`" + t + "`");
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  EXPECT_EQ((*history)->num_rows(), static_cast<size_t>(ok.load() + 1));
}

// Statements under injected throttling, timeouts and lost responses: each succeeds (retried) or
// fails with a clear error; the table stays readable and holds exactly the successful inserts.
TYPED_TEST(CloudTableTest, InjectedFaultsNeverTearTheTable) {
  std::string t = this->base_ + "/f";
  // Short backoffs (the stores the statements open read them).
  SetStorageConfig(TypeParam::kMinBackoff, "1");
  SetStorageConfig(TypeParam::kMaxBackoff, "20");
  Connection con(this->db_);
  Exec(con, "CREATE TABLE delta.`" + t + "` (i INT) USING DELTA");
  std::atomic<uint64_t> seq{0};
  SetGlobalFaultHookForTesting([&](const HttpRequest&, RequestKind kind) {
    uint64_t x = seq.fetch_add(1) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    FaultDecision d;
    switch (x % 10) {
      case 0:
        d = {FaultDecision::kStatus, TypeParam::kThrottle};
        break;
      case 1:
        d = {FaultDecision::kStatus, 503};  // Azure's ServerBusy, S3's SlowDown
        break;
      case 2:
        d.action = FaultDecision::kTimeout;
        break;
      case 3:
        if (kind == RequestKind::kPut) d.action = FaultDecision::kDropAfter;
        break;
      default:
        break;
    }
    return d;
  });
  int succeeded = 0;
  int64_t retries_before = GlobalRequestCounts().retries;
  for (int i = 0; i < 10; ++i) {
    auto r = con.Query("INSERT INTO delta.`" + t + "` VALUES (" + std::to_string(i) + ")");
    if (r.ok()) {
      ++succeeded;
    } else {
      EXPECT_EQ(r.status().code(), StatusCode::kIoError) << r.status().ToString();
    }
  }
  SetGlobalFaultHookForTesting(nullptr);
  EXPECT_GT(GlobalRequestCounts().retries - retries_before, 10);  // the faults were met
  SetStorageConfig(TypeParam::kMinBackoff, std::nullopt);
  SetStorageConfig(TypeParam::kMaxBackoff, std::nullopt);
  EXPECT_EQ(Scalar(con, "SELECT count(*) FROM delta.`" + t + "`"), std::to_string(succeeded));
  EXPECT_EQ(Scalar(con, "SELECT count(DISTINCT i) FROM delta.`" + t + "`"),
            std::to_string(succeeded));
  EXPECT_GE(succeeded, 8);
}

// CLONE (issue 28): a shallow clone of a table opened by az:// (or s3a://) names the source's
// files by the URIs Spark opens (abfss://container@account.dfs.core.windows.net/…, s3a://… as
// written), silt reads them back, VACUUM on the clone keeps them, and a deep clone into a local
// directory owns copies.
TYPED_TEST(CloudTableTest, ShallowCloneNamesSparkUrisAndDeepCloneCopiesAcrossStores) {
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
  std::string uri_prefix = this->base_ + "/";
  if (uri_prefix.rfind("az://tables/", 0) == 0)
    uri_prefix = "abfss://tables@devstoreaccount1.dfs.core.windows.net/" + uri_prefix.substr(12);
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  const std::string data_uri = "\"path\":\"" + uri_prefix + "src/part-";
  const std::string dv_uri = "\"pathOrInlineDv\":\"" + uri_prefix + "src/deletion_vector_";
  EXPECT_NE(log->find(data_uri), std::string::npos) << *log;
  EXPECT_NE(log->find(dv_uri), std::string::npos) << *log;
  EXPECT_EQ(Scalar(con, "SELECT count(*) FROM delta.`" + sc + "`"), "90");

  // VACUUM on the clone (opened by another URL form than its paths) keeps the source's files.
  Exec(con, "SET spark.databricks.delta.retentionDurationCheck.enabled = false");
  Exec(con, "VACUUM delta.`" + sc + "` RETAIN 0 HOURS");
  EXPECT_EQ(Scalar(con, "SELECT count(*) FROM delta.`" + src + "`"), "90");
  EXPECT_EQ(Scalar(con, "SELECT count(*) FROM delta.`" + sc + "`"), "90");

  // A deep clone into a local directory owns copies: the source's data can go.
  char local_dir[] = "/tmp/silt-clone-XXXXXX";
  ASSERT_NE(::mkdtemp(local_dir), nullptr);
  const std::string dc = std::string(local_dir) + "/dc";
  Exec(con, "CREATE TABLE delta.`" + dc + "` CLONE delta.`" + src + "`");
  Exec(con, "TRUNCATE TABLE delta.`" + src + "`");
  Exec(con, "VACUUM delta.`" + src + "` RETAIN 0 HOURS");
  EXPECT_EQ(Scalar(con, "SELECT count(*) FROM delta.`" + dc + "`"), "90");
  EXPECT_EQ(Scalar(con, "SELECT count(*) FROM delta.`" + sc + "`").rfind("ERROR", 0), 0u);
  std::error_code ec;
  std::filesystem::remove_all(local_dir, ec);
}

}  // namespace
}  // namespace silt
