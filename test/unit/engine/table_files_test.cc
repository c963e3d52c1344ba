// silt::ListTableFiles (silt/table_files.h): a version's live files as rows, against the log.
#include "silt/table_files.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

namespace {

class TableFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    silt::DatabaseOptions opts;
    opts.warehouse = "memory://table-files-test";
    opts.threads = 1;
    auto db = silt::Database::Open(opts);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    con_ = std::make_unique<silt::Connection>(*db);
  }
  void Run(const std::string& sql) {
    auto r = con_->Query(sql);
    ASSERT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
  }
  std::set<std::string> InputFiles(const std::string& table) {
    auto r = con_->Query("SELECT DISTINCT input_file_name() FROM " + table);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::set<std::string> out;
    if (r.ok())
      for (size_t i = 0; i < (*r)->num_rows(); ++i) out.insert((*r)->Row(i)[0].str());
    return out;
  }
  std::unique_ptr<silt::Connection> con_;
};

TEST_F(TableFilesTest, LiveFilesOfEachVersion) {
  const std::string path = "memory://table-files-test/t";
  const std::string t = "delta.`" + path + "`";
  Run("CREATE TABLE " + t +
      " (id INT, p STRING) USING DELTA PARTITIONED BY (p) "
      "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
  Run("INSERT INTO " + t + " VALUES (1, 'a'), (2, 'a'), (3, NULL)");
  Run("INSERT INTO " + t + " VALUES (4, 'b')");
  Run("DELETE FROM " + t + " WHERE id = 2");

  auto files = silt::ListTableFiles(*con_, path);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  const silt::QueryResult& r = **files;
  std::vector<std::string> names;
  for (const silt::Field& f : r.schema()) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"path", "uri", "size_bytes", "modification_time",
                                             "data_change", "partition_values", "num_records",
                                             "stats", "deletion_vector_cardinality"}));
  ASSERT_EQ(r.num_rows(), 3u);  // p=a (with a deletion vector), p=NULL, p=b
  std::set<std::string> uris;
  int with_dv = 0;
  for (size_t i = 0; i < r.num_rows(); ++i) {
    std::vector<silt::Value> row = r.Row(i);
    const std::string& rel = row[0].str();
    EXPECT_EQ(row[1].str(), path + "/" + rel);  // no character to encode in these names
    EXPECT_TRUE(rel.rfind("p=", 0) == 0) << rel;
    EXPECT_GT(row[2].integer(), 0);
    EXPECT_FALSE(row[6].is_null());  // statistics are written
    EXPECT_NE(row[7].str().find("numRecords"), std::string::npos);
    if (!row[8].is_null()) {
      ++with_dv;
      EXPECT_EQ(row[8].integer(), 1);
      EXPECT_EQ(row[6].integer(), 2);  // the file's rows, the deleted one included
      EXPECT_EQ(rel.substr(0, 4), "p=a/");
    }
    uris.insert(row[1].str());
  }
  EXPECT_EQ(with_dv, 1);
  // input_file_name() of the rows names the same files.
  EXPECT_EQ(InputFiles(t), uris);

  // Version 1: the first commit's two files, no deletion vector.
  auto v1 = silt::ListTableFiles(*con_, path, 1);
  ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  EXPECT_EQ((*v1)->num_rows(), 2u);
  for (size_t i = 0; i < (*v1)->num_rows(); ++i) EXPECT_TRUE((*v1)->Row(i)[8].is_null());

  auto missing = silt::ListTableFiles(*con_, path, 99);
  EXPECT_FALSE(missing.ok());
  auto none = silt::ListTableFiles(*con_, "memory://table-files-test/none");
  EXPECT_FALSE(none.ok());
  EXPECT_FALSE(silt::ListTableFiles(*con_, "").ok());
}

}  // namespace
