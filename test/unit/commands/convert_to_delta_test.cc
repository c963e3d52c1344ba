// CONVERT TO DELTA end to end: Parquet files written directly (ParquetWriter) or copied from the
// Spark-written conformance data, converted through a Connection, then the version-0 log checked
// action by action and the converted table read back against the original.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "delta/snapshot.h"
#include "delta/stats_json.h"
#include "io/local_object_store.h"
#include "io/object_store.h"
#include "parquet/writer.h"
#include "silt/silt.h"
#include "unit/shared_dir.h"

namespace silt {
namespace {

namespace fs = std::filesystem;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string ConformanceDir() {
  for (std::string base : {std::string(silt::testing::SharedDir())}) {
    fs::path p = fs::path(base) / "conformance";
    std::error_code ec;
    if (fs::is_directory(p, ec)) return p.string();
  }
  return "";
}

class ConvertToDeltaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "silt-convert-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    DatabaseOptions opts;
    opts.warehouse = dir_ + "/wh";
    opts.clock = std::make_shared<ManualClock>(SystemClock().NowMillis());
    opts.threads = 2;
    auto db = Database::Open(opts);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = *db;
    con_ = std::make_unique<Connection>(db_);
  }
  void TearDown() override {
    con_.reset();
    db_.reset();
    fs::remove_all(dir_);
  }
  std::unique_ptr<QueryResult> Run(const std::string& sql) {
    auto r = con_->Query(sql);
    EXPECT_TRUE(r.ok()) << sql << "\n" << r.status().ToString();
    if (!r.ok()) return std::make_unique<QueryResult>(Schema{}, std::vector<DataChunk>{});
    return std::move(*r);
  }
  // The rows of a query as sorted "a|b|c" lines.
  std::vector<std::string> Rows(const std::string& sql) {
    auto r = Run(sql);
    std::vector<std::string> out;
    for (size_t i = 0; i < r->num_rows(); ++i) {
      std::string line;
      for (const Value& v : r->Row(i)) line += v.ToString() + "|";
      out.push_back(line);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  // Writes `chunk` (columns of `schema`) as a Parquet file at dir_/rel, row groups of `rg_rows`.
  void WriteParquet(const std::string& root, const std::string& key, const Schema& schema,
                    const DataChunk& chunk, int64_t rg_rows) {
    LocalObjectStore store(root);
    auto sink = store.OpenWrite(key);
    ASSERT_TRUE(sink.ok()) << sink.status().ToString();
    parquet::WriterOptions wo;
    wo.row_group_max_rows = rg_rows;
    auto w = parquet::ParquetWriter::Make(std::move(*sink), schema, wo);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_TRUE((*w)->Write(chunk).ok());
    ASSERT_TRUE((*w)->Close().ok());
  }
  std::shared_ptr<const delta::Snapshot> Load(const std::string& root) {
    auto snap = delta::Snapshot::Load(std::make_shared<LocalObjectStore>(root), std::nullopt);
    EXPECT_TRUE(snap.ok()) << snap.status().ToString();
    return snap.ok() ? *snap : nullptr;
  }
  // Copies `from` to `to` recursively, leaving out _delta_log.
  static void CopyWithoutLog(const fs::path& from, const fs::path& to) {
    fs::create_directories(to);
    for (const auto& e : fs::directory_iterator(from)) {
      if (e.path().filename() == "_delta_log") continue;
      if (e.is_directory()) {
        CopyWithoutLog(e.path(), to / e.path().filename());
      } else {
        fs::copy_file(e.path(), to / e.path().filename());
      }
    }
  }

  std::string dir_;
  std::shared_ptr<Database> db_;
  std::unique_ptr<Connection> con_;
};

TEST_F(ConvertToDeltaTest, LogContentsOfAnUnpartitionedConversion) {
  const std::string root = dir_ + "/pq";
  // a.parquet: x TINYINT, s STRING in two row groups; sub/b.parquet: x INT, y DOUBLE.
  Schema s1 = {Field{"x", DataType::Int8(), false, "{}"},
               Field{"s", DataType::String(), true, "{}"}};
  DataChunk c1 = DataChunk::FromSchema(s1);
  for (int i = 1; i <= 4; ++i) {
    c1.columns[0].Append<int8_t>(static_cast<int8_t>(i));
    if (i == 2) {
      c1.columns[1].AppendNull();
    } else {
      c1.columns[1].AppendString(std::string(1, static_cast<char>('a' + i)));
    }
  }
  WriteParquet(root, "a.parquet", s1, c1, 2);
  Schema s2 = {Field{"x", DataType::Int32(), true, "{}"},
               Field{"y", DataType::Double(), true, "{}"}};
  DataChunk c2 = DataChunk::FromSchema(s2);
  c2.columns[0].Append<int32_t>(-7);
  c2.columns[1].Append<double>(1.5);
  WriteParquet(root, "sub/b.parquet", s2, c2, 100);
  // Hidden files and directories are not data.
  std::ofstream(root + "/_SUCCESS").put('\n');
  std::ofstream(root + "/.a.parquet.crc") << "crc";
  fs::create_directories(root + "/_tmp");
  std::ofstream(root + "/_tmp/c.parquet") << "junk";
  const std::string a_before = ReadAll(root + "/a.parquet");
  struct stat st_a;
  ASSERT_EQ(::stat((root + "/a.parquet").c_str(), &st_a), 0);

  Run("SET spark.databricks.delta.properties.defaults.enableDeletionVectors = false");
  auto r = Run("CONVERT TO DELTA parquet.`" + root + "`");
  EXPECT_EQ(r->num_rows(), 0u);
  EXPECT_EQ(r->schema().size(), 0u);

  auto snap = Load(root);
  ASSERT_NE(snap, nullptr);
  EXPECT_EQ(snap->version(), 0);
  EXPECT_EQ(snap->protocol(), (delta::Protocol{1, 2, std::nullopt, std::nullopt}));
  EXPECT_TRUE(snap->metadata().partition_columns.empty());
  ASSERT_EQ(snap->schema().size(), 3u);
  EXPECT_EQ(snap->schema()[0].name, "x");
  EXPECT_EQ(snap->schema()[0].type->id(), TypeId::kInt32);  // tinyint and int merged
  EXPECT_TRUE(snap->schema()[0].nullable);
  EXPECT_EQ(snap->schema()[1].name, "s");
  EXPECT_EQ(snap->schema()[2].name, "y");
  EXPECT_EQ(snap->schema()[2].type->id(), TypeId::kDouble);
  ASSERT_EQ(snap->files().size(), 2u);
  const delta::AddFile* a = nullptr;
  const delta::AddFile* b = nullptr;
  for (const auto& f : snap->files()) (f.path == "a.parquet" ? a : b) = &f;
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->path, "sub/b.parquet");
  EXPECT_EQ(a->size, static_cast<int64_t>(a_before.size()));
  EXPECT_EQ(a->modification_time,
            static_cast<int64_t>(st_a.st_mtim.tv_sec) * 1000 + st_a.st_mtim.tv_nsec / 1000000);
  EXPECT_TRUE(a->data_change);
  EXPECT_TRUE(a->partition_values.empty());
  ASSERT_TRUE(a->stats.has_value());
  auto stats = delta::ParseStats(*a->stats, snap->schema());
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->num_records, 4);
  const delta::ColumnStats* x = stats->Find("x");
  ASSERT_NE(x, nullptr);
  ASSERT_TRUE(x->min && x->max);
  EXPECT_EQ(x->min->integer(), 1);  // over both row groups
  EXPECT_EQ(x->max->integer(), 4);
  EXPECT_EQ(x->null_count, 0);
  const delta::ColumnStats* s = stats->Find("s");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->null_count, 1);
  ASSERT_TRUE(s->min && s->max);
  EXPECT_EQ(s->min->str(), "b");
  EXPECT_EQ(s->max->str(), "e");
  auto bstats = delta::ParseStats(*b->stats, snap->schema());
  ASSERT_TRUE(bstats.ok());
  EXPECT_EQ(bstats->num_records, 1);

  const std::string log = ReadAll(root + "/_delta_log/00000000000000000000.json");
  EXPECT_NE(log.find("\"operation\":\"CONVERT\""), std::string::npos) << log;
  EXPECT_NE(
      log.find(
          "\"operationParameters\":{\"numFiles\":2,\"partitionedBy\":\"[]\",\"collectStats\":true"),
      std::string::npos)
      << log;
  EXPECT_NE(log.find("\"operationMetrics\":{\"numConvertedFiles\":\"2\"}"), std::string::npos)
      << log;
  EXPECT_EQ(log.find("catalogTable"), std::string::npos);
  // The data files are untouched, nothing else was written outside the log.
  EXPECT_EQ(ReadAll(root + "/a.parquet"), a_before);
  size_t entries = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.path().string().find("_delta_log") == std::string::npos) ++entries;
  }
  EXPECT_EQ(entries, 7u);  // a, .crc, _SUCCESS, _tmp, _tmp/c, sub, sub/b

  EXPECT_EQ(Rows("SELECT * FROM delta.`" + root + "`"),
            (std::vector<std::string>{"-7|NULL|1.5|", "1|b|NULL|", "2|NULL|NULL|", "3|d|NULL|",
                                      "4|e|NULL|"}));
  // Data skipping uses the converted stats.
  EXPECT_EQ(Rows("SELECT x FROM delta.`" + root + "` WHERE x > 3"),
            (std::vector<std::string>{"4|"}));

  // Converting again is a no-op.
  Run("CONVERT TO DELTA parquet.`" + root + "`");
  EXPECT_FALSE(fs::exists(root + "/_delta_log/00000000000000000001.json"));
}

TEST_F(ConvertToDeltaTest, NoStatisticsWritesNoStats) {
  const std::string root = dir_ + "/pq";
  Schema s1 = {Field{"x", DataType::Int64(), true, "{}"}};
  DataChunk c1 = DataChunk::FromSchema(s1);
  c1.columns[0].Append<int64_t>(5);
  WriteParquet(root, "k=1/a.parquet", s1, c1, 10);
  WriteParquet(root, "k=2/a.parquet", s1, c1, 10);
  Run("CONVERT TO DELTA parquet.`" + root + "` NO STATISTICS PARTITIONED BY (k INT)");
  auto snap = Load(root);
  ASSERT_NE(snap, nullptr);
  EXPECT_EQ(snap->metadata().partition_columns, (std::vector<std::string>{"k"}));
  ASSERT_EQ(snap->files().size(), 2u);
  for (const auto& f : snap->files()) {
    EXPECT_FALSE(f.stats.has_value());
    ASSERT_TRUE(f.partition_values.Find("k"));
  }
  const std::string log = ReadAll(root + "/_delta_log/00000000000000000000.json");
  EXPECT_NE(log.find("\"partitionedBy\":\"[\\\"k\\\"]\",\"collectStats\":false"), std::string::npos)
      << log;
  EXPECT_EQ(Rows("SELECT k, x FROM delta.`" + root + "`"),
            (std::vector<std::string>{"1|5|", "2|5|"}));
  // DML with deletion vectors works without stats.
  Run("DELETE FROM delta.`" + root + "` WHERE k = 2");
  EXPECT_EQ(Rows("SELECT k, x FROM delta.`" + root + "`"), (std::vector<std::string>{"1|5|"}));
}

// Spark-written partitioned Parquet directory (the golden table's data files without its log):
// the converted log's partition values equal the ones Spark wrote, the rows equal the table's.
TEST_F(ConvertToDeltaTest, ConformancePartitionedSparkDirectory) {
  const std::string conf = ConformanceDir();
  if (conf.empty()) GTEST_SKIP() << "no conformance data";
  const fs::path src = fs::path(conf) / "golden/data-reader-partition-values/delta";
  if (!fs::is_directory(src)) GTEST_SKIP() << "case missing";
  const std::string root = dir_ + "/pv";
  CopyWithoutLog(src, root);
  Run("CONVERT TO DELTA parquet.`" + root +
      "` PARTITIONED BY (as_int INT, as_long BIGINT, as_byte TINYINT, as_short SMALLINT, "
      "as_boolean BOOLEAN, "
      "as_float FLOAT, as_double DOUBLE, as_string STRING, as_string_lit_null STRING, as_date "
      "DATE, "
      "as_timestamp TIMESTAMP, as_big_decimal DECIMAL(1,0))");
  auto converted = Load(root);
  auto original = Load(src.string());
  ASSERT_NE(converted, nullptr);
  ASSERT_NE(original, nullptr);
  ASSERT_EQ(converted->files().size(), original->files().size());
  for (const auto& o : original->files()) {
    auto it = std::find_if(converted->files().begin(), converted->files().end(),
                           [&](const delta::AddFile& c) { return c.path == o.path; });
    ASSERT_NE(it, converted->files().end()) << o.path;
    EXPECT_EQ(it->size, o.size);
    for (const auto& [k, v] : o.partition_values) {
      const auto* cv = it->partition_values.Find(k);
      ASSERT_NE(cv, nullptr) << k;
      EXPECT_EQ(*cv, v) << k;
    }
  }
  const std::string cols =
      "as_int, as_long, as_byte, as_short, as_boolean, as_float, as_double, as_string, "
      "as_string_lit_null, "
      "as_date, as_timestamp, as_big_decimal, as_list_of_records, as_nested_struct, value";
  EXPECT_EQ(Rows("SELECT " + cols + " FROM delta.`" + root + "`"),
            Rows("SELECT " + cols + " FROM delta.`" + src.string() + "`"));
}

// Spark-written unpartitioned Parquet directories (the golden cases' expected/ files, with
// _SUCCESS and .crc files): the converted table reads like the original Delta table.
TEST_F(ConvertToDeltaTest, ConformanceUnpartitionedSparkDirectories) {
  const std::string conf = ConformanceDir();
  if (conf.empty()) GTEST_SKIP() << "no conformance data";
  int converted = 0;
  for (const char* name :
       {"data-reader-primitives", "data-reader-nested-struct", "data-reader-array-primitives",
        "basic-decimal-table", "parquet-all-types"}) {
    const fs::path src = fs::path(conf) / "golden" / name;
    if (!fs::is_directory(src / "expected")) continue;
    const std::string root = dir_ + "/" + name;
    CopyWithoutLog(src / "expected", root);
    Run(std::string("CONVERT TO DELTA parquet.`") + root + "`");
    EXPECT_EQ(Rows("SELECT * FROM delta.`" + root + "`"),
              Rows("SELECT * FROM delta.`" + (src / "delta").string() + "`"))
        << name;
    ++converted;
  }
  EXPECT_GT(converted, 0);
}

TEST_F(ConvertToDeltaTest, ErrorsLeaveNoLog) {
  const std::string root = dir_ + "/pq";
  Schema s1 = {Field{"x", DataType::Int64(), true, "{}"}};
  DataChunk c1 = DataChunk::FromSchema(s1);
  c1.columns[0].Append<int64_t>(1);
  WriteParquet(root, "a=1/b=x/f.parquet", s1, c1, 10);
  // As in Spark, the values are cast-checked before the names are compared.
  auto r = con_->Query("CONVERT TO DELTA parquet.`" + root + "` PARTITIONED BY (b STRING, a INT)");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), "DELTA_FAILED_CAST_PARTITION_VALUE");
  r = con_->Query("CONVERT TO DELTA parquet.`" + root + "` PARTITIONED BY (b STRING, a STRING)");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), "DELTA_UNEXPECTED_PARTITION_COLUMN_FROM_FILE_NAME");
  r = con_->Query("CONVERT TO DELTA parquet.`" + root + "` PARTITIONED BY (a INT)");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), "DELTA_UNEXPECTED_NUM_PARTITION_COLUMNS_FROM_FILE_NAME");
  EXPECT_FALSE(fs::exists(root + "/_delta_log/00000000000000000000.json"));
  // Column names match case-insensitively; values keep their text.
  Run("CONVERT TO DELTA parquet.`" + root + "` PARTITIONED BY (A INT, B STRING)");
  EXPECT_EQ(Rows("SELECT A, B, x FROM delta.`" + root + "`"), (std::vector<std::string>{"1|x|1|"}));
}

}  // namespace
}  // namespace silt
