// TPC-H benchmark, silt side (bench/tpch.sh drives it): generates the eight tables as Delta
// tables (once, cached in the data directory; their data files are the plain Parquet files DuckDB
// reads), registers them as external tables, and runs queries of bench/tpch/queries.sql through
// the public API, best of N runs each, optionally writing the full answer as JSON lines.
//
//   tpch_bench --data DIR --sf 1 --generate                 generate (if not done yet) and exit
//   tpch_bench --data DIR --external ...    DIR holds Delta tables made elsewhere (e.g. DuckDB's
//                                           dbgen output converted with CONVERT TO DELTA): never
//                                           generate (the generator replaces the tables)
//   tpch_bench --data DIR --sf 1 [--threads N] [--runs 3] [--query q01] [--dump FILE]
//              [--memory-limit BYTES] [--max-repeat-seconds 20] [--queries bench/tpch/queries.sql]
//
// Prints `bench=tpch_<name> engine=silt threads=<n> seconds=<best> rows=<result rows>` per query,
// or `error=tpch_<name> engine=silt threads=<n> <status>`. --dump writes the rows of the last run,
// one JSON array per line (Value::ToJson; bench/tpch/tpch.mjs compares them with DuckDB's).
// A run slower than --max-repeat-seconds is not repeated (the driver also has a timeout).
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

const char* kTables[] = {"region", "nation",   "supplier", "customer",
                         "part",   "partsupp", "orders",   "lineitem"};

// Generator version: bump when src/cli/tpch_gen.cc changes its data, so cached data is rebuilt.
constexpr int kGeneratorVersion = 2;

struct Query {
  std::string name, sql;
};

// Q11's FRACTION: 0.0001 / SF as a decimal literal (bench/tpch/tpch.mjs's fraction()).
std::string Fraction(double sf) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.12f", 0.0001 / sf);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  return s;
}

std::vector<Query> LoadQueries(const std::string& path, double sf) {
  std::ifstream in(path);
  std::vector<Query> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("-- name: ", 0) == 0) {
      out.push_back({line.substr(9), ""});
    } else if (!out.empty() && line.rfind("--", 0) != 0) {
      out.back().sql += line + "\n";
    }
  }
  const std::string key = "{fraction}", frac = Fraction(sf);
  for (auto& q : out) {
    for (size_t p; (p = q.sql.find(key)) != std::string::npos;) q.sql.replace(p, key.size(), frac);
    while (!q.sql.empty() && (q.sql.back() == '\n' || q.sql.back() == ';' || q.sql.back() == ' '))
      q.sql.pop_back();
  }
  return out;
}

bool WriteDump(const std::string& path, const silt::QueryResult& res) {
  std::ofstream out(path, std::ios::trunc);
  for (size_t i = 0; i < res.num_rows(); ++i) {
    std::string line = "[";
    bool first = true;
    for (const auto& v : res.Row(i)) {
      if (!first) line += ',';
      first = false;
      line += v.ToJson();
    }
    out << line << "]\n";
  }
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  std::string data, queries = "bench/tpch/queries.sql", only, dump;
  double sf = 1, max_repeat_seconds = 20;
  int threads = 0, runs = 3;
  int64_t memory_limit = -1;
  bool generate_only = false, external = false;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (k == "--generate") {
      generate_only = true;
      continue;
    }
    if (k == "--external") {
      external = true;
      continue;
    }
    if (i + 1 >= argc) break;
    std::string v = argv[++i];
    if (k == "--data") {
      data = v;
    } else if (k == "--sf") {
      sf = std::stod(v);
    } else if (k == "--threads") {
      threads = std::stoi(v);
    } else if (k == "--runs") {
      runs = std::stoi(v);
    } else if (k == "--queries") {
      queries = v;
    } else if (k == "--query") {
      only = v;
    } else if (k == "--dump") {
      dump = v;
    } else if (k == "--memory-limit") {
      memory_limit = std::stoll(v);
    } else if (k == "--max-repeat-seconds") {
      max_repeat_seconds = std::stod(v);
    } else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  if (data.empty()) {
    std::fprintf(
        stderr,
        "usage: tpch_bench --data DIR [--sf 1] [--generate | --external] [--threads N] [--runs 3]\n"
        "                  [--query NAME] [--dump FILE] [--memory-limit BYTES]\n"
        "                  [--max-repeat-seconds S]\n");
    return 2;
  }
  data = std::filesystem::absolute(data).string();
  char marker_name[64];
  std::snprintf(marker_name, sizeof marker_name, "/.complete-v%d-sf%g", kGeneratorVersion, sf);
  const std::string marker = data + marker_name;
  if (!external && !std::filesystem::exists(marker)) {
    auto t0 = std::chrono::steady_clock::now();
    silt::cli::TpchOptions opts;
    opts.scale = sf;
    auto r = silt::cli::GenerateTpch(data, opts);
    if (!r.ok()) {
      std::fprintf(stderr, "generate: %s\n", r.status().ToString().c_str());
      return 1;
    }
    std::filesystem::remove_all(data + "/.warehouse");
    std::ofstream(marker) << "ok\n";
    std::printf("# generated TPC-H SF %g in %.1f s\n", sf,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  if (generate_only) return 0;

  silt::DatabaseOptions dbo;
  dbo.warehouse = data + "/.warehouse";
  dbo.threads = threads;
  dbo.memory_limit_bytes = memory_limit;
  auto db = silt::Database::Open(dbo);
  if (!db.ok()) {
    std::fprintf(stderr, "%s\n", db.status().ToString().c_str());
    return 1;
  }
  silt::Connection con(*db);
  for (const char* t : kTables) {
    auto r = con.Query(std::string("CREATE TABLE IF NOT EXISTS ") + t + " USING DELTA LOCATION '" +
                       data + "/" + t + "'");
    if (!r.ok()) {
      std::fprintf(stderr, "register %s: %s\n", t, r.status().ToString().c_str());
      return 1;
    }
  }
  const int shown_threads =
      threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
  int failures = 0;
  for (const auto& q : LoadQueries(queries, sf)) {
    if (!only.empty() && q.name != only) continue;
    double best = -1;
    size_t rows = 0;
    bool ok = true;
    for (int r = 0; r < runs; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      auto res = con.Query(q.sql);
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!res.ok()) {
        std::string msg = res.status().ToString();
        for (auto& c : msg) c = c == '\n' ? ' ' : c;
        std::printf("error=tpch_%s engine=silt threads=%d %s\n", q.name.c_str(), shown_threads,
                    msg.c_str());
        ok = false;
        ++failures;
        break;
      }
      rows = (*res)->num_rows();
      if (best < 0 || s < best) best = s;
      if (r == 0 && !dump.empty() && !WriteDump(dump, **res)) {
        std::fprintf(stderr, "cannot write %s\n", dump.c_str());
        return 1;
      }
      if (s > max_repeat_seconds) break;
    }
    if (!ok) continue;
    std::printf("bench=tpch_%s engine=silt threads=%d seconds=%.6f rows=%zu\n", q.name.c_str(),
                shown_threads, best, rows);
    std::fflush(stdout);
  }
  return failures ? 1 : 0;
}
