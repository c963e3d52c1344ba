// The URI -> ObjectStore factory (io/object_store_factory.h): location forms, named in-memory
// stores, whole-location operations, and a Database whose warehouse is an in-memory store.
#include "io/object_store_factory.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "io/local_object_store.h"
#include "silt/silt.h"
#include "support/wall_clock.h"

namespace silt {
namespace {

namespace fs = std::filesystem;

template <typename T>
T Must(Result<T> r) {
  if (!r.ok()) {
    ADD_FAILURE() << r.status().ToString();
    return T{};
  }
  return r.MoveValue();
}

class ObjectStoreFactoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/silt_factory_test_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    name_ = "factory-test-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override {
    DropMemoryStore(name_);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string dir_, name_;
};

TEST_F(ObjectStoreFactoryTest, LocalPathsAndFileUrisOpenTheSameDirectory) {
  auto a = Must(OpenObjectStore(dir_ + "/t", WallClock()));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->root(), "file://" + dir_ + "/t/");
  ASSERT_TRUE(a->Put("_delta_log/0.json", "x").ok());
  EXPECT_TRUE(fs::exists(dir_ + "/t/_delta_log/0.json"));
  for (std::string uri :
       {"file://" + dir_ + "/t", "file:" + dir_ + "/t/", "file://localhost" + dir_ + "/t"}) {
    auto b = Must(OpenObjectStore(uri, WallClock()));
    ASSERT_TRUE(b) << uri;
    EXPECT_EQ(Must(b->Get("_delta_log/0.json")), "x") << uri;
  }
  // Percent-decoded once in URIs, raw in plain paths.
  auto spaced = Must(OpenObjectStore("file://" + dir_ + "/a%20b", WallClock()));
  ASSERT_TRUE(spaced->Put("k", "v").ok());
  EXPECT_TRUE(fs::exists(dir_ + "/a b/k"));
  // Relative paths resolve against the working directory.
  EXPECT_EQ(Must(CanonicalLocation("rel/x/")), (fs::current_path() / "rel/x").string());
  EXPECT_EQ(Must(CanonicalLocation("file://" + dir_ + "/a/../t/")), dir_ + "/t");
}

TEST_F(ObjectStoreFactoryTest, NamedMemoryStoresAreSharedAndSubpathsAreViews) {
  auto whole = Must(OpenObjectStore("memory://" + name_, WallClock()));
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->root(), "memory://" + name_ + "/");
  auto table = Must(OpenObjectStore("memory://" + name_ + "/db/t/", WallClock()));
  ASSERT_TRUE(table);
  EXPECT_EQ(table->root(), "memory://" + name_ + "/db/t/");
  ASSERT_TRUE(table->Put("_delta_log/0.json", "c").ok());
  EXPECT_EQ(Must(whole->Get("db/t/_delta_log/0.json")), "c");
  ASSERT_TRUE(whole->Put("db/other", "o").ok());
  EXPECT_EQ(Must(table->ListFrom("")).size(), 0u);  // only _delta_log/, a subdirectory
  auto listed = Must(table->ListFrom("_delta_log/"));
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].key, "_delta_log/0.json");
  EXPECT_EQ(Must(table->Head("_delta_log/0.json")).key, "_delta_log/0.json");
  // Another open of the name sees the same objects; MemoryStore returns the same store.
  auto again = Must(OpenObjectStore("memory://" + name_ + "/db", WallClock()));
  EXPECT_EQ(Must(again->Get("t/_delta_log/0.json")), "c");
  EXPECT_EQ(Must(MemoryStore(name_, WallClock())).get(), whole.get());
  // After DropMemoryStore, the name starts empty again (open handles keep the old objects).
  EXPECT_TRUE(DropMemoryStore(name_));
  EXPECT_FALSE(DropMemoryStore(name_));
  auto fresh = Must(OpenObjectStore("memory://" + name_, WallClock()));
  EXPECT_EQ(fresh->Get("db/t/_delta_log/0.json").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(Must(table->Get("_delta_log/0.json")), "c");
  // Anonymous stores share nothing.
  auto anon1 = Must(OpenObjectStore("memory://", WallClock()));
  auto anon2 = Must(OpenObjectStore("memory://", WallClock()));
  ASSERT_TRUE(anon1->Put("k", "v").ok());
  EXPECT_EQ(anon2->Get("k").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(Must(CanonicalLocation("memory://" + name_ + "/db/t/")), "memory://" + name_ + "/db/t");
}

// Azure locations open an AzureBlobStore (io/azure_blob_store.h; azure_blob_store_test.cc), S3
// ones an S3ObjectStore (io/s3_object_store.h; s3_object_store_test.cc).
TEST_F(ObjectStoreFactoryTest, CloudAndUnknownSchemesAreNotImplementedYet) {
  for (const char* uri : {"s3n://bucket/t", "gs://bucket/t", "hdfs://nn/t", "ftp://host/t"}) {
    auto store = OpenObjectStore(uri, WallClock());
    ASSERT_FALSE(store.ok()) << uri;
    EXPECT_EQ(store.status().code(), StatusCode::kNotImplemented) << uri;
    EXPECT_EQ(store.status().error_class(), "NOT_IMPLEMENTED") << uri;
    EXPECT_NE(store.status().message().find(uri), std::string_view::npos)
        << store.status().ToString();
    EXPECT_EQ(CanonicalLocation(uri).status().code(), StatusCode::kNotImplemented) << uri;
  }
  for (const char* uri :
       {"abfss://c@acct.dfs.core.windows.net/t", "wasbs://c@a.blob.core.windows.net/t",
        "https://a.blob.core.windows.net/c/t", "s3://bucket/t", "s3a://bucket/t/x"}) {
    auto store = OpenObjectStore(uri, WallClock());
    ASSERT_TRUE(store.ok()) << uri << ": " << store.status().ToString();
    EXPECT_EQ((*store)->root(), std::string(uri) + "/");
  }
  EXPECT_EQ(OpenObjectStore("", WallClock()).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(OpenObjectStore("memory:///t", WallClock()).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(OpenObjectStore("memory://n/../x", WallClock()).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(OpenObjectStore("file://otherhost/t", WallClock()).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(ObjectStoreFactoryTest, ChildAndRelativeLocations) {
  EXPECT_EQ(ChildLocation("/wh", "s.db/t"), "/wh/s.db/t");
  EXPECT_EQ(ChildLocation("memory://n", "t"), "memory://n/t");
  EXPECT_EQ(RelativeLocation("/wh", "/wh/s.db/t").value_or("-"), "s.db/t");
  EXPECT_EQ(RelativeLocation("memory://n", "memory://n/t/").value_or("-"), "t");
  EXPECT_FALSE(RelativeLocation("/wh", "/wh").has_value());
  EXPECT_FALSE(RelativeLocation("/wh", "/whx/t").has_value());
  EXPECT_FALSE(RelativeLocation("/wh", "/wh/../t").has_value());
}

// DeleteLocation / LocationExists / MoveLocation / OpenLocationForRead on both kinds of store.
TEST_F(ObjectStoreFactoryTest, WholeLocationOperations) {
  for (std::string base : {dir_, "memory://" + name_}) {
    SCOPED_TRACE(base);
    auto store = Must(OpenObjectStore(base, WallClock()));
    ASSERT_TRUE(store->Put("t/_delta_log/0.json", "c").ok());
    ASSERT_TRUE(store->Put("t/p=1/f.parquet", "data").ok());
    ASSERT_TRUE(store->Put("t2/keep", "k").ok());
    EXPECT_TRUE(Must(LocationExists(base + "/t")));
    EXPECT_TRUE(Must(LocationExists(base + "/t/p=1/f.parquet")));
    EXPECT_FALSE(Must(LocationExists(base + "/u")));
    auto file = Must(OpenLocationForRead(base + "/t/p=1/f.parquet"));
    ASSERT_TRUE(file);
    EXPECT_EQ(file->size(), 4);
    EXPECT_EQ(OpenLocationForRead(base + "/t/missing").status().code(), StatusCode::kNotFound);

    ASSERT_TRUE(MoveLocation(base + "/t", base + "/u").ok());
    EXPECT_FALSE(Must(LocationExists(base + "/t")));
    EXPECT_EQ(Must(store->Get("u/p=1/f.parquet")), "data");
    EXPECT_EQ(MoveLocation(base + "/u", base + "/t2").code(), StatusCode::kIoError);  // occupied

    ASSERT_TRUE(DeleteLocation(base + "/u").ok());
    EXPECT_FALSE(Must(LocationExists(base + "/u")));
    EXPECT_TRUE(DeleteLocation(base + "/u").ok());  // missing: OK
    EXPECT_EQ(Must(store->Get("t2/keep")), "k");
  }
  EXPECT_FALSE(fs::exists(dir_ + "/u"));
  EXPECT_EQ(MoveLocation(dir_ + "/t2", "memory://" + name_ + "/t3").code(),
            StatusCode::kNotImplemented);
}

// The engine on an in-memory warehouse: managed tables, the catalog and DDL all land in the
// named store, and a second Database on that name sees them.
TEST_F(ObjectStoreFactoryTest, DatabaseRunsOnAnInMemoryWarehouse) {
  DatabaseOptions opts;
  opts.warehouse = "memory://" + name_ + "/wh";
  opts.threads = 2;
  auto db = Must(Database::Open(opts));
  ASSERT_TRUE(db);
  Connection con(db);
  for (const char* sql :
       {"CREATE SCHEMA s", "CREATE TABLE s.t (id INT, p STRING) USING DELTA PARTITIONED BY (p)",
        "INSERT INTO s.t VALUES (1, 'a'), (2, 'b')", "DELETE FROM s.t WHERE id = 1",
        "CREATE TABLE d (x INT) USING DELTA", "ALTER TABLE d RENAME TO e"}) {
    auto r = con.Query(sql);
    ASSERT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
  }
  auto store = Must(MemoryStore(name_, WallClock()));
  EXPECT_TRUE(store->Head("wh/s.db/t/_delta_log/00000000000000000000.json").ok());
  EXPECT_TRUE(store->Head("wh/e/_delta_log/00000000000000000000.json").ok());
  EXPECT_FALSE(Must(store->DirExists("wh/d")));
  EXPECT_TRUE(store->Head("wh/.silt_catalog/s/t.json").ok());
  EXPECT_FALSE(fs::exists("memory:"));  // nothing leaked to the local file system

  auto db2 = Must(Database::Open(opts));
  Connection con2(db2);
  auto r = con2.Query("SELECT id, p FROM s.t");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ((*r)->num_rows(), 1u);
  EXPECT_EQ((*r)->Row(0)[0].ToString(), "2");
  auto tables = con2.Query("SHOW TABLES IN s");
  ASSERT_TRUE(tables.ok()) << tables.status().ToString();
  EXPECT_EQ((*tables)->num_rows(), 1u);

  ASSERT_TRUE(con2.Query("DROP SCHEMA s CASCADE").ok());
  EXPECT_FALSE(Must(store->DirExists("wh/s.db")));
  EXPECT_FALSE(Must(store->DirExists("wh/.silt_catalog/s")));
  ASSERT_TRUE(con2.Query("DROP TABLE e").ok());
  EXPECT_FALSE(Must(store->DirExists("wh/e")));
  DatabaseOptions cloud_opts;
  cloud_opts.warehouse = "gs://bucket/wh";
  auto cloud = Database::Open(cloud_opts);
  ASSERT_FALSE(cloud.ok());
  EXPECT_EQ(cloud.status().error_class(), "NOT_IMPLEMENTED");
}

}  // namespace
}  // namespace silt
