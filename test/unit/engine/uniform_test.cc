// UniForm (Iceberg) through SQL, at the level the independent Avro reader of test/uniform/ does not
// reach: the Iceberg metadata silt reads back names the live files, a failed conversion never
// fails the Delta commit (and is caught up by the next one), and VACUUM keeps a file the current
// Iceberg snapshot still references after Delta removed it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "delta/iceberg_metadata.h"
#include "delta/snapshot.h"
#include "delta/transaction.h"
#include "io/local_object_store.h"
#include "silt/silt.h"
#include "unit/ops/dml_test_util.h"

namespace silt {
namespace {

using ops::testing::TempDir;

class UniformTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DatabaseOptions o;
    o.warehouse = dir_.path() + "/warehouse";
    o.threads = 1;
    o.tune_allocator = false;
    auto db = Database::Open(o);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = *db;
    con_ = std::make_unique<Connection>(db_);
    table_ = dir_.path() + "/t";
    ref_ = "delta.`" + table_ + "`";
    Exec("CREATE TABLE " + ref_ +
         " (id BIGINT, v STRING) USING DELTA TBLPROPERTIES ("
         "'delta.enableIcebergCompatV2' = 'true', "
         "'delta.universalFormat.enabledFormats' = 'iceberg')");
    store_ = std::make_shared<LocalObjectStore>(table_);
  }

  void Exec(const std::string& sql) {
    auto r = con_->Query(sql);
    ASSERT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
  }

  std::set<std::string> LiveKeys() {
    auto snap = delta::Snapshot::Load(store_);
    EXPECT_TRUE(snap.ok()) << snap.status().ToString();
    std::set<std::string> out;
    if (snap.ok()) {
      for (const auto& f : (*snap)->files()) out.insert(f.path);
    }
    return out;
  }

  // The data files (*.parquet keys) the current Iceberg metadata names.
  std::set<std::string> IcebergDataKeys() {
    auto files = delta::IcebergReferencedFiles(*store_);
    EXPECT_TRUE(files.ok()) << files.status().ToString();
    std::set<std::string> out;
    if (files.ok()) {
      for (const auto& k : *files)
        if (k.size() > 8 && k.substr(k.size() - 8) == ".parquet") out.insert(k);
    }
    return out;
  }

  TempDir dir_;
  std::shared_ptr<Database> db_;
  std::unique_ptr<Connection> con_;
  std::string table_, ref_;
  std::shared_ptr<ObjectStore> store_;
};

TEST_F(UniformTest, MetadataNamesTheLiveFilesAfterEachCommit) {
  Exec("INSERT INTO " + ref_ + " SELECT id, 'a' FROM range(0, 10)");
  Exec("INSERT INTO " + ref_ + " SELECT id, 'b' FROM range(10, 20)");
  EXPECT_EQ(IcebergDataKeys(), LiveKeys());
  Exec("DELETE FROM " + ref_ + " WHERE id < 15");
  EXPECT_EQ(IcebergDataKeys(), LiveKeys());
  Exec("OPTIMIZE " + ref_);
  EXPECT_EQ(LiveKeys().size(), 1u);
  EXPECT_EQ(IcebergDataKeys(), LiveKeys());
  auto snap = delta::Snapshot::Load(store_);
  ASSERT_TRUE(snap.ok());
  auto converted = delta::IcebergConvertedVersion(*store_);
  ASSERT_TRUE(converted.ok());
  EXPECT_EQ(*converted, (*snap)->version());
}

TEST_F(UniformTest, FailedConversionDoesNotFailTheCommit) {
  Exec("INSERT INTO " + ref_ + " VALUES (1, 'a')");
  // A version hint that names no metadata: the conversion fails, the INSERT must not.
  const std::string hint = table_ + "/metadata/version-hint.text";
  std::string saved;
  {
    std::ifstream in(hint);
    std::getline(in, saved);
  }
  { std::ofstream(hint) << "999"; }
  Exec("INSERT INTO " + ref_ + " VALUES (2, 'b')");
  auto r = con_->Query("SELECT count(*) FROM " + ref_);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->Row(0)[0].integer(), 2);
  EXPECT_FALSE(delta::IcebergConvertedVersion(*store_).ok());
  // Repaired, the next commit's conversion catches up with every file.
  { std::ofstream(hint) << saved; }
  Exec("INSERT INTO " + ref_ + " VALUES (3, 'c')");
  EXPECT_EQ(IcebergDataKeys(), LiveKeys());
  EXPECT_EQ(LiveKeys().size(), 3u);
}

TEST_F(UniformTest, VacuumKeepsFilesTheIcebergSnapshotStillNames) {
  Exec("INSERT INTO " + ref_ + " VALUES (1, 'a')");
  Exec("INSERT INTO " + ref_ + " VALUES (2, 'b')");
  std::set<std::string> before = LiveKeys();
  ASSERT_EQ(before.size(), 2u);
  // Delta removes one file in a commit whose conversion does not run (as if it had failed).
  auto snap = delta::Snapshot::Load(store_);
  ASSERT_TRUE(snap.ok());
  delta::TransactionOptions topts;
  topts.clock = std::make_shared<SystemClock>();
  topts.post_commit_hooks = false;
  delta::Transaction txn(store_, *snap, topts);
  const delta::AddFile& gone = (*snap)->files().front();
  txn.Remove(delta::MakeRemove(gone, 0, true));
  txn.SetOperation("DELETE", {});
  ASSERT_TRUE(txn.Commit().ok());
  ASSERT_EQ(LiveKeys().size(), 1u);
  ASSERT_EQ(IcebergDataKeys(), before);

  Exec("SET spark.databricks.delta.retentionDurationCheck.enabled = false");
  Exec("VACUUM " + ref_ + " RETAIN 0 HOURS");
  EXPECT_TRUE(std::filesystem::exists(table_ + "/" + gone.path)) << "Iceberg still reads it";
  // Once the Iceberg metadata has caught up, the file may go.
  Exec("INSERT INTO " + ref_ + " VALUES (3, 'c')");
  EXPECT_EQ(IcebergDataKeys(), LiveKeys());
  Exec("VACUUM " + ref_ + " RETAIN 0 HOURS");
  EXPECT_FALSE(std::filesystem::exists(table_ + "/" + gone.path));
  for (const auto& k : LiveKeys()) EXPECT_TRUE(std::filesystem::exists(table_ + "/" + k));
  // The Iceberg metadata itself is never vacuumed.
  auto files = delta::IcebergReferencedFiles(*store_);
  ASSERT_TRUE(files.ok());
  for (const auto& k : *files) EXPECT_TRUE(std::filesystem::exists(table_ + "/" + k)) << k;
}

}  // namespace
}  // namespace silt
