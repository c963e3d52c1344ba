// Reads every Parquet file under ../shared/conformance: Spark-written Delta data files and
// checkpoints (golden/, kernel-data/) must decode without error; apache/parquet-testing files
// must decode or fail with a clear, expected status; bad_data files must never crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "parquet/reader.h"

namespace fs = std::filesystem;

namespace silt::parquet {
namespace {

std::string ConformanceDir() {
  for (std::string p :
       {std::string(SILT_SHARED_DIR) + "/conformance", std::string("../shared/conformance")})
    if (fs::is_directory(p)) return p;
  return "";
}

std::vector<std::string> ParquetFilesUnder(const std::string& dir) {
  std::vector<std::string> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".parquet") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

Status ReadWholeFile(const std::string& path, int64_t* rows) {
  ReaderOptions opts;
  opts.verify_page_crc = true;
  SILT_ASSIGN_OR_RETURN(auto pf, ParquetFile::OpenPath(path, opts));
  *rows = 0;
  for (int rg = 0; rg < pf->num_row_groups(); ++rg) {
    DataChunk c;
    SILT_RETURN_NOT_OK(pf->ReadRowGroup(rg, {}, &c));
    if (static_cast<int64_t>(c.size()) != pf->metadata().row_groups[rg].num_rows)
      return Status::Internal("row count mismatch in row group " + std::to_string(rg));
    *rows += static_cast<int64_t>(c.size());
  }
  return Status::OK();
}

TEST(ConformanceParquet, EveryDeltaDataAndCheckpointFileReads) {
  std::string dir = ConformanceDir();
  if (dir.empty()) GTEST_SKIP() << "SKIP: ../shared/conformance is absent";
  int files = 0;
  for (const char* sub : {"/golden", "/kernel-data"}) {
    for (const auto& f : ParquetFilesUnder(dir + sub)) {
      int64_t rows = 0;
      Status s = ReadWholeFile(f, &rows);
      EXPECT_TRUE(s.ok()) << f << ": " << s.ToString();
      ++files;
    }
  }
  EXPECT_GT(files, 100);
}

// Files of apache/parquet-testing that use features silt refuses on purpose, with the reason.
bool ExpectedUnsupported(const std::string& name, const Status& s) {
  if (s.code() != StatusCode::kNotImplemented && s.code() != StatusCode::kUnsupported) return false;
  for (const char* known : {"encrypt", "lzo", "LZO", "interval", "INTERVAL", "large_string_map"})
    if (name.find(known) != std::string::npos || s.message().find(known) != std::string::npos)
      return true;
  return s.message().find("LZO") != std::string::npos ||
         s.message().find("encrypted") != std::string::npos;
}

TEST(ConformanceParquet, ParquetTestingDataFiles) {
  std::string dir = ConformanceDir();
  if (dir.empty()) GTEST_SKIP() << "SKIP: ../shared/conformance is absent";
  int ok = 0, refused = 0;
  for (const auto& f : ParquetFilesUnder(dir + "/parquet-testing/data")) {
    int64_t rows = 0;
    Status s = ReadWholeFile(f, &rows);
    std::string name = fs::path(f).filename().string();
    // Deliberately damaged files: the damage must be reported.
    bool damaged = name.find("corrupt-checksum") != std::string::npos ||
                   name.find("dict-malformed") != std::string::npos;
    if (damaged) {
      EXPECT_TRUE(s.IsCorruption()) << name << " must fail with Corruption, got " << s.ToString();
    } else if (s.ok()) {
      ++ok;
    } else if (ExpectedUnsupported(name, s)) {
      ++refused;
    } else {
      ADD_FAILURE() << name << ": " << s.ToString();
    }
  }
  EXPECT_GT(ok, 50);
  std::printf("parquet-testing: %d files read, %d refused as unsupported\n", ok, refused);
}

TEST(ConformanceParquet, BadDataNeverCrashes) {
  std::string dir = ConformanceDir();
  if (dir.empty()) GTEST_SKIP() << "SKIP: ../shared/conformance is absent";
  int files = 0;
  for (const auto& f : ParquetFilesUnder(dir + "/parquet-testing/bad_data")) {
    int64_t rows = 0;
    Status s = ReadWholeFile(f, &rows);
    std::string name = fs::path(f).filename().string();
    ++files;
    // Dictionary indices of bit width 0 are legal (every index is 0); the rest is damaged.
    if (name == "ARROW-GH-43605.parquet") {
      EXPECT_TRUE(s.ok()) << name << ": " << s.ToString();
      continue;
    }
    EXPECT_TRUE(s.IsCorruption()) << name << " must fail with Corruption, got " << s.ToString();
    EXPECT_EQ(s.error_class(), "SILT_PARQUET_CORRUPT") << name << ": " << s.ToString();
  }
  EXPECT_GT(files, 5);
}

}  // namespace
}  // namespace silt::parquet
