// silt_sql_tests: runs test/sql/**/*.test (or the files and folders given as arguments), each
// file in a fresh Database with its own temporary warehouse. See test/sql/README.md.
//
//   silt_sql_tests [-v] [--keep] [--shared DIR] [--store local|memory|azure|s3] [FILE|DIR ...]
//
// --store memory (or SILT_SQL_TEST_STORE=memory) puts each file's warehouse on a fresh
// in-memory store, memory://sqllogic-<pid>-<n> (path tables under __TEST_DIR__ stay local);
// files marked `require local-warehouse REASON` are skipped on that run.
// --store azure puts it below the Azure location in SILT_SQL_TEST_AZURE_BASE (test/cloud/run.sh
// sets it to a container on Azurite): <base>/sqllogic-<pid>-<n>, deleted afterwards; --store s3
// likewise below SILT_SQL_TEST_S3_BASE (test/cloud/run-s3.sh: a bucket on the S3 emulator).
//
// Prints the failures (file:line, SQL, expected vs actual), then
//   sqllogictest: N files (S skipped), N statements/queries passed, N failed, N skipped
//   N passed, N failed, N skipped
// and exits 1 on any failure (a malformed file counts as one failure).
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/object_store_factory.h"
#include "silt/silt.h"
#include "sqllogic/sqllogic.h"

namespace fs = std::filesystem;
using silt::sqllogic::FileOutcome;

namespace {

std::string DefaultSharedDir() {
  for (std::string base : {std::string(SILT_SHARED_DIR)}) {
    std::error_code ec;
    if (fs::is_directory(base, ec)) return fs::canonical(base, ec).string();
  }
  return "";
}

void Collect(const fs::path& p, std::vector<fs::path>* out) {
  std::error_code ec;
  if (fs::is_directory(p, ec)) {
    for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::end(it);
         it.increment(ec)) {
      if (it->is_regular_file() && it->path().extension() == ".test") out->push_back(it->path());
    }
  } else {
    out->push_back(p);
  }
}

std::string MakeTempDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/silt-sqllogic-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) return "";
  return std::string(buf.data());
}

FileOutcome RunOne(const fs::path& path, const std::string& shared, bool keep, bool verbose,
                   const std::string& store) {
  FileOutcome out;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    out.failed = 1;
    out.report = "FAIL " + path.string() + ": cannot read the file\n";
    return out;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string dir = MakeTempDir();
  if (dir.empty()) {
    out.failed = 1;
    out.report = "FAIL " + path.string() + ": cannot create a temporary directory\n";
    return out;
  }
  silt::sqllogic::Variables vars;
  vars.test_dir = dir + "/files";
  vars.warehouse = dir + "/warehouse";
  vars.shared_dir = shared;
  std::string memory_name;
  std::string cloud_warehouse;
  if (store == "azure" || store == "s3") {
    static int counter = 0;
    const char* base =
        std::getenv(store == "s3" ? "SILT_SQL_TEST_S3_BASE" : "SILT_SQL_TEST_AZURE_BASE");
    cloud_warehouse = std::string(base ? base : "") + "/sqllogic-" + std::to_string(::getpid()) +
                      "-" + std::to_string(++counter);
    vars.warehouse = cloud_warehouse;
    vars.memory_warehouse = true;  // not on the local file system
  }
  if (store == "memory") {
    static int counter = 0;
    memory_name = "sqllogic-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
    vars.warehouse = "memory://" + memory_name;
    vars.memory_warehouse = true;
  }
  std::error_code ec;
  fs::create_directories(vars.test_dir, ec);
  auto file = silt::sqllogic::ParseTestFile(ss.str(), path.string(), vars);
  if (!file.ok()) {
    out.failed = 1;
    out.report = "FAIL " + std::string(file.status().message()) + "\n";
  } else if (!file->skip_reason.empty()) {
    out = silt::sqllogic::RunTestFile(*file, nullptr);
    std::printf("SKIP %s: %s\n", path.string().c_str(), file->skip_reason.c_str());
  } else {
    silt::DatabaseOptions options;
    options.warehouse = vars.warehouse;
    silt::sqllogic::Environment env;
    env.test_dir = vars.test_dir;
    std::shared_ptr<silt::ManualClock> clock;
    if (file->uses_clock) {
      // Starts at the real time; `clock set` / `clock advance` move it (no sleeping).
      clock = std::make_shared<silt::ManualClock>(silt::SystemClock().NowMillis());
      options.clock = clock;
      env.clock = clock.get();
    }
    auto db = silt::Database::Open(options);
    if (!db.ok()) {
      out.failed = 1;
      out.report =
          "FAIL " + path.string() + ": cannot open a database: " + db.status().ToString() + "\n";
    } else {
      silt::Connection con(*db);
      out = silt::sqllogic::RunTestFile(
          *file, [&](const std::string& sql) { return con.Query(sql); }, env);
    }
  }
  if (!memory_name.empty()) silt::DropMemoryStore(memory_name);
  if (!cloud_warehouse.empty() && !keep) {
    silt::Status st = silt::DeleteLocation(cloud_warehouse);
    if (!st.ok())
      std::printf("note: could not delete %s: %s\n", cloud_warehouse.c_str(),
                  st.ToString().c_str());
  }
  if (keep) {
    std::printf("kept %s for %s\n", dir.c_str(), path.string().c_str());
  } else {
    fs::remove_all(dir, ec);
  }
  std::fputs(out.report.c_str(), stdout);
  out.report.clear();
  if (verbose || out.failed) {
    std::printf("%s %s (%d passed, %d failed, %d skipped)\n", out.failed ? "FAIL" : "PASS",
                path.string().c_str(), out.passed, out.failed, out.skipped);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  bool verbose = false, keep = false;
  const char* store_env = std::getenv("SILT_SQL_TEST_STORE");
  std::string store = store_env && *store_env ? store_env : "local";
  std::string shared = DefaultSharedDir();
  std::vector<fs::path> files;
  std::vector<std::string> targets;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-v" || a == "--verbose") {
      verbose = true;
    } else if (a == "--keep") {
      keep = true;
    } else if (a == "--shared" && i + 1 < argc) {
      shared = argv[++i];
    } else if (a == "--store" && i + 1 < argc) {
      store = argv[++i];
    } else if (a == "-h" || a == "--help") {
      std::printf(
          "usage: silt_sql_tests [-v] [--keep] [--shared DIR] [--store local|memory|azure|s3] "
          "[FILE|DIR ...]\n");
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "silt_sql_tests: unknown option %s\n", a.c_str());
      return 2;
    } else {
      targets.push_back(a);
    }
  }
  if (store != "local" && store != "memory" && store != "azure" && store != "s3") {
    std::fprintf(stderr, "silt_sql_tests: --store must be local, memory, azure or s3, not %s\n",
                 store.c_str());
    return 2;
  }
  const char* azure_base = std::getenv("SILT_SQL_TEST_AZURE_BASE");
  if (store == "azure" && (azure_base == nullptr || *azure_base == '\0')) {
    std::fprintf(
        stderr,
        "silt_sql_tests: --store azure needs SILT_SQL_TEST_AZURE_BASE (see test/cloud/run.sh)\n");
    return 2;
  }
  const char* s3_base = std::getenv("SILT_SQL_TEST_S3_BASE");
  if (store == "s3" && (s3_base == nullptr || *s3_base == '\0')) {
    std::fprintf(
        stderr,
        "silt_sql_tests: --store s3 needs SILT_SQL_TEST_S3_BASE (see test/cloud/run-s3.sh)\n");
    return 2;
  }
  if (targets.empty()) targets.push_back(std::string(SILT_SOURCE_DIR) + "/test/sql");
  for (const std::string& t : targets) Collect(t, &files);
  std::sort(files.begin(), files.end());
  int passed = 0, failed = 0, skipped = 0, files_skipped = 0;
  for (const fs::path& f : files) {
    FileOutcome o = RunOne(f, shared, keep, verbose, store);
    std::fputs(o.report.c_str(), stdout);
    passed += o.passed;
    failed += o.failed;
    skipped += o.skipped;
    if (o.passed == 0 && o.failed == 0 && o.skipped > 0) ++files_skipped;
  }
  std::printf(
      "sqllogictest: %zu files (%d skipped), %d statements/queries passed, %d failed, %d "
      "skipped\n",
      files.size(), files_skipped, passed, failed, skipped);
  std::printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed ? 1 : 0;
}
