// Conformance runner over ../shared/conformance: every golden table is opened and scanned by the
// kernel and compared with its expected/ rows (multiset of canonical rows, column names in order,
// nullability ignored); cases listed in golden_expectations.txt must fail (or are only run).
// kernel-data tables are checked against what delta-kernel-rs asserts for them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "delta/scan.h"
#include "delta/snapshot.h"
#include "io/local_object_store.h"
#include "io/object_store.h"
#include "parquet/reader.h"

namespace fs = std::filesystem;

namespace silt::delta {
namespace {

std::string ConformanceDir() {
  for (std::string p :
       {std::string(SILT_SHARED_DIR) + "/conformance", std::string("../shared/conformance")})
    if (fs::is_directory(p)) return p;
  return "";
}

std::string RowJson(const DataChunk& c, size_t r) {
  std::string s = "[";
  for (size_t k = 0; k < c.columns.size(); ++k) {
    if (k) s += ",";
    s += c.columns[k].GetValue(r).ToJson();
  }
  return s + "]";
}

struct Table {
  std::vector<std::string> names;
  std::vector<std::string> rows;  // sorted canonical rows
};

Result<Table> ScanTable(const std::string& root, std::optional<int64_t> version = std::nullopt) {
  auto store = std::make_shared<LocalObjectStore>(root);
  SILT_ASSIGN_OR_RETURN(auto snap, Snapshot::Load(store, version));
  SILT_ASSIGN_OR_RETURN(auto scan, TableScan::Make(snap));
  Table t;
  for (const auto& f : scan->output_schema()) t.names.push_back(f.name);
  DataChunk chunk;
  for (;;) {
    SILT_ASSIGN_OR_RETURN(bool more, scan->Next(&chunk));
    if (!more) break;
    for (size_t r = 0; r < chunk.size(); ++r) t.rows.push_back(RowJson(chunk, r));
  }
  std::sort(t.rows.begin(), t.rows.end());
  return t;
}

Result<Table> ReadExpected(const std::string& dir) {
  Table t;
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".parquet")
      files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    SILT_ASSIGN_OR_RETURN(auto pf, parquet::ParquetFile::OpenPath(f));
    if (t.names.empty())
      for (const auto& fl : pf->schema().schema()) t.names.push_back(fl.name);
    for (int rg = 0; rg < pf->num_row_groups(); ++rg) {
      DataChunk c;
      SILT_RETURN_NOT_OK(pf->ReadRowGroup(rg, {}, &c));
      for (size_t r = 0; r < c.size(); ++r) t.rows.push_back(RowJson(c, r));
    }
  }
  std::sort(t.rows.begin(), t.rows.end());
  return t;
}

std::map<std::string, std::pair<std::string, std::string>> Expectations() {
  std::map<std::string, std::pair<std::string, std::string>> out;
  std::ifstream in(std::string(SILT_SOURCE_DIR) + "/test/conformance/golden_expectations.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream ss(line);
    std::string name, what, why;
    std::getline(ss, name, '\t');
    std::getline(ss, what, '\t');
    std::getline(ss, why);
    out[name] = {what, why};
  }
  return out;
}

TEST(ConformanceGolden, ScansMatchExpected) {
  std::string dir = ConformanceDir();
  if (dir.empty()) GTEST_SKIP() << "SKIP: ../shared/conformance is absent";
  auto expectations = Expectations();
  ASSERT_FALSE(expectations.empty()) << "golden_expectations.txt not found";
  int passed = 0, failed_as_expected = 0, skipped = 0;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir + "/golden"))
    if (e.is_directory()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    std::string root = dir + "/golden/" + name + "/delta";
    std::string expected_dir = dir + "/golden/" + name + "/expected";
    auto it = expectations.find(name);
    auto actual = ScanTable(root);
    if (it != expectations.end() && it->second.first == "fail") {
      EXPECT_FALSE(actual.ok()) << name << " must fail: " << it->second.second;
      if (!actual.ok()) {
        EXPECT_NE(actual.status().code(), StatusCode::kInternal)
            << name << ": " << actual.status().ToString();
        ++failed_as_expected;
      }
      continue;
    }
    if (it != expectations.end() && it->second.first == "empty") {
      EXPECT_TRUE(actual.ok() && actual->rows.empty())
          << name << " must scan to no rows (" << it->second.second << "): "
          << (actual.ok() ? std::to_string(actual->rows.size()) + " rows"
                          : actual.status().ToString());
      if (actual.ok() && actual->rows.empty()) ++passed;
      continue;
    }
    if (it != expectations.end() && it->second.first == "skip") {
      std::printf("SKIP %s (%s): %s\n", name.c_str(), it->second.second.c_str(),
                  actual.ok() ? "scans" : actual.status().ToString().c_str());
      ++skipped;
      continue;
    }
    if (!fs::is_directory(expected_dir)) {
      // No expected rows (e.g. commit-info-only tables whose data files are absent): the snapshot
      // must load.
      auto snap = Snapshot::Load(std::make_shared<LocalObjectStore>(root));
      EXPECT_TRUE(snap.ok()) << name << ": " << snap.status().ToString();
      if (snap.ok()) ++passed;
      continue;
    }
    if (!actual.ok()) {
      ADD_FAILURE() << name << ": " << actual.status().ToString();
      continue;
    }
    auto expected = ReadExpected(expected_dir);
    ASSERT_TRUE(expected.ok()) << name << ": " << expected.status().ToString();
    bool ok = true;
    if (!expected->names.empty() && expected->names != actual->names) {
      ADD_FAILURE() << name << ": columns differ";
      ok = false;
    } else if (expected->rows != actual->rows) {
      std::string diff;
      size_t shown = 0;
      for (const auto& r : expected->rows)
        if (!std::binary_search(actual->rows.begin(), actual->rows.end(), r) && shown++ < 3)
          diff += "\n  missing " + r;
      shown = 0;
      for (const auto& r : actual->rows)
        if (!std::binary_search(expected->rows.begin(), expected->rows.end(), r) && shown++ < 3)
          diff += "\n  extra   " + r;
      ADD_FAILURE() << name << ": " << actual->rows.size() << " rows, expected "
                    << expected->rows.size() << diff;
      ok = false;
    }
    if (ok) ++passed;
  }
  std::printf("golden: %d match expected, %d fail as they must, %d skipped\n", passed,
              failed_as_expected, skipped);
  EXPECT_GE(passed, 40);
}

// kernel-data tables: row counts / values delta-kernel-rs asserts.
TEST(ConformanceKernelData, DeletionVectorsAndCheckpoints) {
  std::string dir = ConformanceDir();
  if (dir.empty()) GTEST_SKIP() << "SKIP: ../shared/conformance is absent";
  struct Case {
    const char* name;
    size_t rows;
  };
  for (Case c : {Case{"table-with-dv-small", 8}, Case{"table-without-dv-small", 10},
                 Case{"with-short-dv", 7}, Case{"compacted-log-files-table", 5},
                 Case{"app-txn-checkpoint", 22}, Case{"v2-checkpoints-json-with-sidecars", 1233},
                 Case{"v2-checkpoints-parquet-with-sidecars", 1233},
                 Case{"v2-classic-checkpoint-json", 20}, Case{"v2-classic-checkpoint-parquet", 20},
                 Case{"v2-checkpoints-json-with-last-checkpoint", 10},
                 Case{"v2-checkpoints-parquet-with-last-checkpoint", 10}}) {
    auto t = ScanTable(dir + "/kernel-data/" + c.name);
    ASSERT_TRUE(t.ok()) << c.name << ": " << t.status().ToString();
    EXPECT_EQ(t->rows.size(), c.rows) << c.name;
  }
  auto small = ScanTable(dir + "/kernel-data/table-with-dv-small");
  ASSERT_TRUE(small.ok());
  std::vector<std::string> want;
  for (int v = 1; v <= 8; ++v) want.push_back("[" + std::to_string(v) + "]");
  std::sort(want.begin(), want.end());
  EXPECT_EQ(small->rows, want);
  // V2 checkpoints that hold every action themselves (no sidecars): the snapshot comes from the
  // checkpoint at v2 and keeps its txn.
  for (const char* name :
       {"v2-checkpoints-json-without-sidecars", "v2-checkpoints-parquet-without-sidecars"}) {
    auto snap = Snapshot::Load(std::make_shared<LocalObjectStore>(dir + "/kernel-data/" + name));
    ASSERT_TRUE(snap.ok()) << name << ": " << snap.status().ToString();
    EXPECT_EQ((*snap)->segment().checkpoint_version, 2) << name;
    EXPECT_EQ((*snap)->files().size(), 3u) << name;
    ASSERT_EQ((*snap)->transactions().count("app-1"), 1u) << name;
    EXPECT_EQ((*snap)->transactions().at("app-1").version, 2) << name;
  }
  auto no_hint = Snapshot::Load(
      std::make_shared<LocalObjectStore>(dir + "/kernel-data/with_checkpoint_no_last_checkpoint"));
  ASSERT_TRUE(no_hint.ok()) << no_hint.status().ToString();
  EXPECT_EQ((*no_hint)->segment().checkpoint_version, 2);
  // Every kernel-data table loads (some lack their data files, so no scan).
  for (const auto& e : fs::directory_iterator(dir + "/kernel-data")) {
    if (!e.is_directory()) continue;
    auto snap = Snapshot::Load(std::make_shared<LocalObjectStore>(e.path().string()));
    EXPECT_TRUE(snap.ok()) << e.path().filename() << ": " << snap.status().ToString();
  }
}

}  // namespace
}  // namespace silt::delta
