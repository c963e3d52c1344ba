// SHOW CREATE TABLE's multi-line text, through
// the public API (the sqllogictest format cannot hold multi-line values).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "silt/silt.h"

namespace silt {
namespace {

class ShowCreateTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "silt-show-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    DatabaseOptions opts;
    opts.warehouse = dir_ + "/wh";
    opts.threads = 1;
    auto db = Database::Open(opts);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = *db;
    con_ = std::make_unique<Connection>(db_);
  }
  void TearDown() override {
    con_.reset();
    db_.reset();
    std::filesystem::remove_all(dir_);
  }
  std::unique_ptr<QueryResult> Run(const std::string& sql) {
    auto r = con_->Query(sql);
    EXPECT_TRUE(r.ok()) << sql << "\n" << r.status().ToString();
    if (!r.ok()) return std::make_unique<QueryResult>(Schema{}, std::vector<DataChunk>{});
    return std::move(*r);
  }
  std::string Cell(const QueryResult& r, size_t row, size_t col) { return r.Row(row)[col].ToString(); }

  std::string dir_;
  std::shared_ptr<Database> db_;
  std::unique_ptr<Connection> con_;
};

TEST_F(ShowCreateTableTest, ShowCreateTableUsesSparksLayout) {
  Run("CREATE TABLE s (id INT NOT NULL, name STRING COMMENT 'the name', `odd col` BIGINT, "
      "d STRUCT<x: INT, y: ARRAY<STRING>>, m MAP<STRING, DECIMAL(10,2)>, p STRING) USING DELTA "
      "PARTITIONED BY (p) COMMENT 'it\\'s a table' TBLPROPERTIES ('my.key' = 'v')");
  auto r = Run("SHOW CREATE TABLE s");
  ASSERT_EQ(r->num_rows(), 1u);
  EXPECT_EQ(r->schema()[0].name, "createtab_stmt");
  std::string loc = "file:" + dir_ + "/wh/s";
  EXPECT_EQ(Cell(*r, 0, 0),
            "CREATE TABLE spark_catalog.default.s (\n"
            "  id INT NOT NULL,\n"
            "  name STRING COMMENT 'the name',\n"
            "  `odd col` BIGINT,\n"
            "  d STRUCT<x: INT, y: ARRAY<STRING>>,\n"
            "  m MAP<STRING, DECIMAL(10,2)>,\n"
            "  p STRING)\n"
            "USING delta\n"
            "PARTITIONED BY (p)\n"
            "COMMENT 'it\\'s a table'\n"
            "LOCATION '" + loc + "'\n"
            "TBLPROPERTIES (\n"
            "  'delta.enableDeletionVectors' = 'true',\n"
            "  'delta.feature.appendOnly' = 'supported',\n"
            "  'delta.feature.deletionVectors' = 'supported',\n"
            "  'delta.feature.invariants' = 'supported',\n"
            "  'delta.minReaderVersion' = '3',\n"
            "  'delta.minWriterVersion' = '7',\n"
            "  'my.key' = 'v')\n");
}


}  // namespace
}  // namespace silt
