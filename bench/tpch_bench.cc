// TPC-H-like benchmark, silt side: generates the tables as Delta (once, cached in the data
// directory), then runs bench/tpch/queries.sql through the public API, best of N runs each.
//
//   tpch_bench --data DIR [--sf 1] [--threads N] [--runs 3] [--queries bench/tpch/queries.sql]
//
// Prints `bench=tpch_<name> engine=silt threads=<n> seconds=<best> rows=<result rows>` per query
// and `checksum=<...>` lines so the driver can compare results with DuckDB's.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/tpch_gen.h"
#include "silt/silt.h"

namespace {

struct Query {
  std::string name, sql;
};

std::vector<Query> LoadQueries(const std::string& path, const std::string& data) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::vector<Query> out;
  std::string line;
  std::istringstream lines(ss.str());
  while (std::getline(lines, line)) {
    if (line.rfind("-- name: ", 0) == 0) {
      out.push_back({line.substr(9), ""});
    } else if (!out.empty() && line.rfind("--", 0) != 0) {
      out.back().sql += line + "\n";
    }
  }
  for (auto& q : out) {
    for (const char* t : {"lineitem", "orders", "customer", "part", "partsupp", "supplier", "nation", "region"}) {
      std::string key = std::string("{") + t + "}";
      std::string repl = "delta.`" + data + "/" + t + "`";
      for (size_t p; (p = q.sql.find(key)) != std::string::npos;) q.sql.replace(p, key.size(), repl);
    }
    while (!q.sql.empty() && (q.sql.back() == '\n' || q.sql.back() == ';')) q.sql.pop_back();
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string data, queries = "bench/tpch/queries.sql";
  double sf = 1;
  int threads = 0, runs = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--data") data = v;
    else if (k == "--sf") sf = std::stod(v);
    else if (k == "--threads") threads = std::stoi(v);
    else if (k == "--runs") runs = std::stoi(v);
    else if (k == "--queries") queries = v;
  }
  if (data.empty()) {
    std::fprintf(stderr, "usage: tpch_bench --data DIR [--sf 1] [--threads N] [--runs 3]\n");
    return 2;
  }
  data = std::filesystem::absolute(data).string();
  std::string marker = data + "/.complete-sf" + std::to_string(sf);
  if (!std::filesystem::exists(marker)) {
    auto t0 = std::chrono::steady_clock::now();
    silt::cli::TpchOptions opts;
    opts.scale = sf;
    auto r = silt::cli::GenerateTpch(data, opts);
    if (!r.ok()) {
      std::fprintf(stderr, "generate: %s\n", r.status().ToString().c_str());
      return 1;
    }
    std::ofstream(marker) << "ok\n";
    std::printf("# generated TPC-H-like SF %g in %.1f s\n", sf,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  silt::DatabaseOptions dbo;
  dbo.warehouse = data + "/.warehouse";
  dbo.threads = threads;
  auto db = silt::Database::Open(dbo);
  if (!db.ok()) {
    std::fprintf(stderr, "%s\n", db.status().ToString().c_str());
    return 1;
  }
  silt::Connection con(*db);
  int failures = 0;
  for (const auto& q : LoadQueries(queries, data)) {
    double best = -1;
    size_t rows = 0;
    std::string first_row;
    bool ok = true;
    for (int r = 0; r < runs; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      auto res = con.Query(q.sql);
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!res.ok()) {
        std::printf("# %s failed: %s\n", q.name.c_str(), res.status().ToString().c_str());
        ok = false;
        ++failures;
        break;
      }
      rows = (*res)->num_rows();
      if (rows) {
        first_row.clear();
        for (const auto& v : (*res)->Row(0)) first_row += (first_row.empty() ? "" : "|") + v.ToString();
      }
      if (best < 0 || s < best) best = s;
    }
    if (!ok) continue;
    std::printf("bench=tpch_%s engine=silt threads=%d seconds=%.6f rows=%zu\n", q.name.c_str(),
                threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency()), best, rows);
    std::printf("firstrow=tpch_%s %s\n", q.name.c_str(), first_row.c_str());
  }
  return failures ? 1 : 0;
}
