// Hostile files inside a table, end to end through the public API (issue 31): a data file whose
// row group claims 2^40 rows must make SELECT, DELETE and OPTIMIZE fail with SILT_PARQUET_CORRUPT
// (it aborted the process), and silt.io.confineReadsToTableRoot must keep a log's absolute paths
// from reading outside the table root and the allowed prefixes.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "io/read_confinement.h"
#include "parquet/metadata.h"
#include "silt/silt.h"

namespace silt {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void Spit(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::vector<fs::path> DataFiles(const fs::path& table) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(table))
    if (e.path().extension() == ".parquet") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

class HostileTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "silt-hostile-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    DatabaseOptions opts;
    opts.warehouse = (dir_ / "wh").string();
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
  void Ok(const std::string& sql) {
    auto r = con_->Query(sql);
    EXPECT_TRUE(r.ok()) << sql << "\n" << r.status().ToString();
  }
  std::string ClassOf(const std::string& sql) {
    auto r = con_->Query(sql);
    return r.ok() ? "OK"
                  : std::string(r.status().error_class()) + " (" + r.status().ToString() + ")";
  }
  std::string Scalar(const std::string& sql) {
    auto r = con_->Query(sql);
    EXPECT_TRUE(r.ok()) << sql << "\n" << r.status().ToString();
    if (!r.ok() || (*r)->num_rows() == 0) return "";
    return (*r)->Row(0)[0].ToString();
  }

  fs::path dir_;
  std::shared_ptr<Database> db_;
  std::unique_ptr<Connection> con_;
};

// Rewrites the footer of a Parquet file with `edit`.
void EditFooter(const fs::path& p, const std::function<void(parquet::FileMetaData&)>& edit) {
  std::string b = Slurp(p);
  uint32_t len;
  std::memcpy(&len, b.data() + b.size() - 8, 4);
  const size_t at = b.size() - 8 - len;
  parquet::FileMetaData md;
  ASSERT_TRUE(parquet::DeserializeFileMetaData(reinterpret_cast<const uint8_t*>(b.data()) + at, len,
                                               &md, {})
                  .ok());
  edit(md);
  std::string footer;
  parquet::SerializeFileMetaData(md, &footer);
  uint32_t n = static_cast<uint32_t>(footer.size());
  std::string out = b.substr(0, at) + footer;
  out.append(reinterpret_cast<const char*>(&n), 4);
  out += "PAR1";
  Spit(p, out);
}

bool StartsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

TEST_F(HostileTableTest, RowGroupClaimingTwoToTheFortyRowsFailsEveryStatementCleanly) {
  const fs::path t = dir_ / "t";
  Ok("CREATE TABLE t (a BIGINT, b STRING) USING DELTA LOCATION '" + t.string() + "'");
  Ok("INSERT INTO t VALUES (1, 'x'), (2, 'y')");
  Ok("INSERT INTO t VALUES (3, 'z')");
  std::vector<fs::path> files = DataFiles(t);
  ASSERT_EQ(files.size(), 2u);
  // Both files lie, so data skipping cannot step around the lie.
  for (const fs::path& f : files) {
    EditFooter(f, [](parquet::FileMetaData& md) {
      md.row_groups[0].num_rows = int64_t{1} << 40;
      md.num_rows = int64_t{1} << 40;
    });
  }
  for (const char* sql :
       {"SELECT * FROM t", "SELECT count(b) FROM t", "DELETE FROM t WHERE a = 2",
        "UPDATE t SET b = 'w' WHERE a = 1", "OPTIMIZE t", "SELECT * FROM t WHERE b = 'x'"}) {
    EXPECT_TRUE(StartsWith(ClassOf(sql), "SILT_PARQUET_CORRUPT")) << sql << ": " << ClassOf(sql);
  }
  // Nothing was committed by the failed statements: the CREATE and two INSERTs.
  EXPECT_EQ(ClassOf("SELECT * FROM t VERSION AS OF 3").substr(0, 23), "DELTA_VERSION_NOT_FOUND");
  auto history = con_->Query("DESCRIBE HISTORY t");
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  EXPECT_EQ((*history)->num_rows(), 3u);
}

// Rewrites commit `version` of table `t` with `edit` (the log's bytes in, new bytes out).
void EditCommit(const fs::path& t, int version,
                const std::function<std::string(std::string)>& edit) {
  char name[32];
  std::snprintf(name, sizeof name, "%020d.json", version);
  const fs::path p = t / "_delta_log" / name;
  Spit(p, edit(Slurp(p)));
}

std::string Replace(const std::string& s, const std::string& re, const std::string& with) {
  std::string out = std::regex_replace(s, std::regex(re), with);
  EXPECT_NE(out, s) << "no match for " << re;
  return out;
}

// Semantic garbage in an add action: a negative size or DV size / cardinality / offset is a
// corrupt log (DELTA_INVALID_COMMIT_FILE), never a read with a nonsense size or a count off by
// a negative cardinality.
TEST_F(HostileTableTest, NegativeSizesInTheLogAreACorruptCommit) {
  const fs::path t = dir_ / "t";
  Ok("CREATE TABLE t (a BIGINT) USING DELTA LOCATION '" + t.string() +
     "' TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
  Ok("INSERT INTO t VALUES (1), (2), (3)");
  Ok("DELETE FROM t WHERE a = 2");  // version 2: a DV with cardinality 1
  EXPECT_EQ(Scalar("SELECT count(*) FROM t"), "2");
  struct Case {
    int version;
    const char* re;
    const char* with;
  } cases[] = {
      {1, R"("size":[0-9]+)", R"("size":-5)"},
      {2, R"("cardinality":1)", R"("cardinality":-1)"},
      {2, R"("sizeInBytes":[0-9]+)", R"("sizeInBytes":-34)"},
      {2, R"("offset":[0-9]+)", R"("offset":-1)"},
  };
  for (const Case& c : cases) {
    char name[32];
    std::snprintf(name, sizeof name, "%020d.json", c.version);
    const std::string before = Slurp(t / "_delta_log" / name);
    EditCommit(t, c.version, [&](std::string b) { return Replace(b, c.re, c.with); });
    EXPECT_TRUE(StartsWith(ClassOf("SELECT count(*) FROM t"), "DELTA_INVALID_COMMIT_FILE"))
        << c.re << ": " << ClassOf("SELECT count(*) FROM t");
    Spit(t / "_delta_log" / name, before);
  }
  EXPECT_EQ(Scalar("SELECT count(*) FROM t"), "2");
}

// Stats are advisory: a minimum above the maximum is garbage and must not skip the file (it
// skipped the file holding a = 2: a wrong, empty answer).
TEST_F(HostileTableTest, StatsWithMinAboveMaxDoNotSkip) {
  const fs::path t = dir_ / "t";
  Ok("CREATE TABLE t (a BIGINT) USING DELTA LOCATION '" + t.string() + "'");
  Ok("INSERT INTO t VALUES (1), (2), (3)");
  EditCommit(t, 1, [](std::string b) {
    // Inside the add's "stats" string the quotes are escaped: \"minValues\":{\"a\":1}.
    auto swap = [&b](const std::string& from, const std::string& to) {
      size_t at = b.find(from);
      ASSERT_NE(at, std::string::npos) << from;
      b.replace(at, from.size(), to);
    };
    swap(R"(\"minValues\":{\"a\":1})", R"(\"minValues\":{\"a\":100})");
    swap(R"(\"maxValues\":{\"a\":3})", R"(\"maxValues\":{\"a\":-100})");
    return b;
  });
  EXPECT_EQ(Scalar("SELECT count(*) FROM t WHERE a = 2"), "1");
  EXPECT_EQ(Scalar("SELECT count(*) FROM t WHERE a > 2"), "1");
  EXPECT_EQ(Scalar("SELECT count(*) FROM t WHERE a < 2"), "1");
}

// A "shallow clone": a table whose log adds the files of another table by absolute path.
TEST_F(HostileTableTest, ConfinedReadsRefuseAbsolutePathsOutsideTheTableRoot) {
  const fs::path src = dir_ / "src", clone = dir_ / "clone";
  Ok("CREATE TABLE src (a BIGINT) USING DELTA LOCATION '" + src.string() + "'");
  Ok("INSERT INTO src VALUES (1), (2)");
  Ok("INSERT INTO src VALUES (3)");
  std::string log = Slurp(src / "_delta_log" / "00000000000000000000.json") +
                    Slurp(src / "_delta_log" / "00000000000000000001.json") +
                    Slurp(src / "_delta_log" / "00000000000000000002.json");
  // Relative "part-…" paths become absolute file: URIs into src.
  const std::string rel = "\"path\":\"", abs = "\"path\":\"file://" + src.string() + "/";
  size_t n = 0;
  for (size_t at = log.find(rel); at != std::string::npos; at = log.find(rel, at + abs.size()), ++n)
    log.replace(at, rel.size(), abs);
  ASSERT_EQ(n, 2u);
  fs::create_directories(clone / "_delta_log");
  Spit(clone / "_delta_log" / "00000000000000000000.json", log);
  const std::string q = "SELECT sum(a) FROM delta.`" + clone.string() + "`";

  // Plain sessions read shallow clones.
  EXPECT_EQ(Scalar(q), "6");
  Ok(std::string("SET ") + kConfineReadsKey + " = true");
  EXPECT_TRUE(StartsWith(ClassOf(q), kReadOutsideTableRootClass)) << ClassOf(q);
  EXPECT_TRUE(StartsWith(ClassOf("DELETE FROM delta.`" + clone.string() + "` WHERE a = 2"),
                         kReadOutsideTableRootClass));
  EXPECT_TRUE(
      StartsWith(ClassOf("OPTIMIZE delta.`" + clone.string() + "`"), kReadOutsideTableRootClass));
  // The table's own files stay readable.
  EXPECT_EQ(Scalar("SELECT sum(a) FROM src"), "6");
  // An allowed prefix opens the source again.
  Ok(std::string("SET ") + kAllowedReadPrefixesKey + " = " + src.string());
  EXPECT_EQ(Scalar(q), "6");
  Ok(std::string("SET ") + kAllowedReadPrefixesKey + " = " + (dir_ / "elsewhere").string());
  EXPECT_TRUE(StartsWith(ClassOf(q), kReadOutsideTableRootClass));
  Ok(std::string("SET ") + kConfineReadsKey + " = false");
  EXPECT_EQ(Scalar(q), "6");
}

}  // namespace
}  // namespace silt
