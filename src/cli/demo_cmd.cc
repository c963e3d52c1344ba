// `silt demo [DIR]`: what silt does today, end to end on a local warehouse folder — writes and
// inspects a Parquet file, creates a partitioned Delta table with deletion vectors enabled,
// appends to it, and reads it back (latest and time travel).
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace silt::cli {

int RunDemo(const std::vector<std::string>& args) {
  std::string dir = args.empty() ? "demo-out" : args[0];
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "IO_ERROR: cannot create %s: %s\n", dir.c_str(), ec.message().c_str());
    return 1;
  }
  std::string file = dir + "/generated.parquet";
  std::string table = dir + "/warehouse/events";
  struct Step {
    const char* title;
    int (*run)(const std::vector<std::string>&);
    std::vector<std::string> args;
  };
  std::vector<Step> steps = {
      {"write 100000 generated rows of every Parquet type", RunParquet,
       {"gen", file, "--rows", "100000", "--columns", "all", "--row-group-rows", "40000"}},
      {"schema of the file", RunParquet, {"schema", file}},
      {"first rows (id, s, dec38, ts, arr, m)", RunParquet, {"cat", file, "--limit", "5", "--columns", "id,s,dec38,ts,arr,m"}},
      {"decode every column of every row group", RunParquet, {"scan", file}},
      {"create a Delta table partitioned by s, deletion vectors on", RunDelta,
       {"gen", table, "--rows", "20000", "--columns", "flat", "--partition-by", "s", "--property",
        "delta.enableDeletionVectors=true"}},
      {"append to it", RunDelta, {"gen", table, "--rows", "5000", "--seed", "7"}},
      {"the table", RunDelta, {"info", table}},
      {"a few rows", RunDelta, {"cat", table, "--limit", "3"}},
      {"time travel: version 0", RunDelta, {"info", table, "--version", "0"}},
  };
  for (const Step& s : steps) {
    std::printf("\n== %s\n$ silt %s %s\n", s.title, s.run == RunParquet ? "parquet" : "delta",
                [&] {
                  std::string a;
                  for (const auto& x : s.args) a += (a.empty() ? "" : " ") + x;
                  return a;
                }().c_str());
    std::fflush(stdout);
    if (int rc = s.run(s.args)) return rc;
  }
  std::printf("\n== done: files are in %s\n", dir.c_str());
  return 0;
}

}  // namespace silt::cli
