// `silt demo [DIR]`: what silt does today, end to end on a local warehouse folder — writes and
// inspects a Parquet file, creates a partitioned Delta table with the kernel tools, then loads
// TPC-H-like data into Delta tables of an embedded warehouse and runs Spark SQL on them:
// queries, a DELETE with deletion vectors, time travel, history, REORG PURGE and VACUUM; and
// last an Auto-TTL table (DELETE ROWS 365 DAYS AFTER ts) maintained by `silt maintain` with a
// pinned clock: rows before and after, and the operations-history system table; and a streaming
// table kept in sync with a source that receives appends, DELETEs, OPTIMIZE and VACUUM.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/render.h"
#include "cli/tpch_gen.h"
#include "common/clock.h"
#include "silt/silt.h"

namespace silt::cli {

namespace {

// Runs each statement of `sql` on `con` and prints it with its result.
int RunStatements(Connection& con, const std::vector<std::string>& sql) {
  RenderOptions ro;
  ro.max_rows = 12;
  for (const auto& q : sql) {
    std::printf("\nsilt> %s;\n", q.c_str());
    std::fflush(stdout);
    auto r = con.Query(q);
    if (!r.ok()) {
      std::fprintf(stderr, "Error: %s\n", r.status().ToString().c_str());
      return 1;
    }
    if (!(*r)->schema().empty()) RenderResult((*r)->schema(), (*r)->chunks(), ro, std::cout);
    std::cout.flush();
  }
  return 0;
}

int RunSqlDemo(const std::string& dir) {
  std::string data = dir + "/tpch-data";  // external tables: registered with LOCATION below
  std::printf("\n== generate TPC-H-like data (scale 0.01) as Delta tables in %s\n", data.c_str());
  std::fflush(stdout);
  TpchOptions topts;
  topts.scale = 0.01;
  auto tables = GenerateTpch(data, topts);
  if (!tables.ok()) {
    std::fprintf(stderr, "%s\n", tables.status().ToString().c_str());
    return 1;
  }
  DatabaseOptions dbo;
  dbo.warehouse = dir + "/warehouse";
  auto db = Database::Open(dbo);
  if (!db.ok()) {
    std::fprintf(stderr, "%s\n", db.status().ToString().c_str());
    return 1;
  }
  Connection con(*db);
  std::vector<std::string> sql = {"CREATE SCHEMA IF NOT EXISTS tpch"};
  for (const auto& t : *tables)
    sql.push_back("CREATE TABLE tpch." + t + " USING DELTA LOCATION '" + data + "/" + t + "'");
  sql.insert(
      sql.end(),
      {
          "SHOW TABLES IN tpch",
          "SELECT l_returnflag, l_linestatus, count(*) AS orders, sum(l_quantity) AS qty, "
          "avg(l_discount) AS avg_disc "
          "FROM tpch.lineitem WHERE l_shipdate <= DATE '1998-09-02' GROUP BY l_returnflag, "
          "l_linestatus ORDER BY 1, 2",
          "SELECT n_name, count(*) AS customers, round(avg(c_acctbal), 2) AS avg_balance FROM "
          "tpch.customer c "
          "JOIN tpch.nation n ON c.c_nationkey = n.n_nationkey GROUP BY n_name ORDER BY customers "
          "DESC, n_name LIMIT 5",
          "SELECT o_orderpriority, count(*) AS n FROM tpch.orders o WHERE EXISTS (SELECT 1 FROM "
          "tpch.lineitem l "
          "WHERE l.l_orderkey = o.o_orderkey AND l_commitdate < l_receiptdate) GROUP BY 1 ORDER BY "
          "1",
          "DELETE FROM tpch.orders WHERE o_orderpriority = '5-LOW' AND o_totalprice > 300000",
          "SELECT count(*) AS now, (SELECT count(*) FROM tpch.orders VERSION AS OF 1) AS before "
          "FROM tpch.orders",
          "DESCRIBE DETAIL tpch.orders",
          "REORG TABLE tpch.orders APPLY (PURGE)",
          "VACUUM tpch.orders DRY RUN",
          "EXPLAIN SELECT count(*) FROM tpch.lineitem WHERE l_shipdate < DATE '1992-03-01'",
      });
  return RunStatements(con, sql);
}

// Auto-TTL: a table of 400 days of events with DELETE ROWS 365 DAYS AFTER ts, one `silt maintain`
// pass at "now" (DELETE + PURGE of the expired rows) and one 8 days later, past the table's
// 7-day retention (VACUUM deletes the files that held them), then the history system table.
// In-commit timestamps make the commits' times the pinned clock's (a local file's mtime is the
// wall clock's, which VACUUM would otherwise compare with the pinned "now").
int RunTtlDemo(const std::string& dir) {
  const std::string warehouse = dir + "/ttl-warehouse";
  const int64_t day_ms = 86400LL * 1000;
  const int64_t t0 = 1767225600000LL;  // 2026-01-01T00:00:00Z
  auto clock = std::make_shared<ManualClock>(t0);
  std::printf(
      "\n== Auto-TTL: a table maintained by `silt maintain`, the clock pinned with --now\n");
  DatabaseOptions dbo;
  dbo.warehouse = warehouse;
  dbo.clock = clock;
  auto db = Database::Open(dbo);
  if (!db.ok()) {
    std::fprintf(stderr, "%s\n", db.status().ToString().c_str());
    return 1;
  }
  Connection con(*db);
  std::vector<std::string> sql = {
      "SET spark.sql.session.timeZone = UTC",
      "CREATE TABLE events (id BIGINT, ts TIMESTAMP) USING DELTA "
      "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true', "
      "'delta.enableInCommitTimestamps' = 'true') DELETE ROWS 365 DAYS AFTER ts"};
  // 400 days of events, one per day, ending yesterday: four INSERTs (files) of 100 days each.
  for (int chunk = 0; chunk < 4; ++chunk) {
    sql.push_back(
        "INSERT INTO events SELECT id, timestampadd(DAY, -id, TIMESTAMP '2026-01-01') "
        "FROM range(" +
        std::to_string(chunk * 100 + 1) + ", " + std::to_string(chunk * 100 + 101) + ")");
  }
  sql.push_back(
      "SELECT count(*) AS rows, count_if(ts <= TIMESTAMP '2026-01-01' - INTERVAL 365 DAYS) AS "
      "expired, min(ts) AS oldest FROM events");
  sql.push_back("SHOW MAINTENANCE events");
  if (int rc = RunStatements(con, sql)) return rc;
  for (const char* now : {"2026-01-01T00:00:00Z", "2026-01-09T00:00:00Z"}) {
    std::vector<std::string> args = {"--warehouse", warehouse, "--once", "--now", now};
    std::printf("\n$ silt maintain");
    for (const auto& a : args) std::printf(" %s", a.c_str());
    std::printf("\n");
    std::fflush(stdout);
    if (int rc = RunMaintain(args)) return rc;
  }
  clock->AdvanceMillis(8 * day_ms);  // the SQL session's clock follows the second pass
  return RunStatements(
      con, {"SELECT count(*) AS rows, min(ts) AS oldest FROM events",
            "SELECT operation_type, operation_status, start_time, "
            "operation_metrics['num_deleted_rows'] AS deleted_rows, "
            "operation_metrics['num_vacuumed_files'] AS vacuumed_files "
            "FROM system.storage.predictive_optimization_operations_history ORDER BY start_time, "
            "operation_type"});
}

// A streaming table (CREATE STREAMING TABLE … AS … FROM STREAM(src)) kept in sync with a source
// that receives appends, a DELETE with deletion vectors, OPTIMIZE and VACUUM: each REFRESH
// appends exactly the new rows (skipChangeCommits skips the DELETE; OPTIMIZE and VACUUM are
// invisible to the stream).
int RunStreamingDemo(const std::string& dir) {
  std::printf("\n== a streaming table following a Delta table (docs/streaming.md)\n");
  DatabaseOptions dbo;
  dbo.warehouse = dir + "/stream-warehouse";
  auto db = Database::Open(dbo);
  if (!db.ok()) {
    std::fprintf(stderr, "%s\n", db.status().ToString().c_str());
    return 1;
  }
  Connection con(*db);
  return RunStatements(
      con,
      {"SET spark.databricks.delta.retentionDurationCheck.enabled = false",
       "CREATE TABLE clicks (id BIGINT, page STRING) USING DELTA "
       "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')",
       "INSERT INTO clicks SELECT id, 'page' || (id % 5) FROM range(0, 1000)",
       "CREATE STREAMING TABLE home_clicks AS SELECT id, upper(page) AS page FROM STREAM(clicks) "
       "WITH ('skipChangeCommits' = 'true') WHERE page IN ('page0', 'page1')",
       "SELECT page, count(*) AS clicks FROM home_clicks GROUP BY page ORDER BY page",
       "INSERT INTO clicks SELECT id, 'page' || (id % 5) FROM range(1000, 1500)",
       "DELETE FROM clicks WHERE id < 100", "OPTIMIZE clicks",
       "REFRESH STREAMING TABLE home_clicks", "VACUUM clicks RETAIN 0 HOURS",
       "INSERT INTO clicks VALUES (5000, 'page0'), (5001, 'page3')",
       "REFRESH STREAMING TABLE home_clicks",
       "SELECT page, count(*) AS clicks, max(id) AS last_id FROM home_clicks GROUP BY page "
       "ORDER BY page",
       "SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids FROM home_clicks"});
}

}  // namespace

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
      {"write 100000 generated rows of every Parquet type",
       RunParquet,
       {"gen", file, "--rows", "100000", "--columns", "all", "--row-group-rows", "40000"}},
      {"schema of the file", RunParquet, {"schema", file}},
      {"first rows (id, s, dec38, ts, arr, m)",
       RunParquet,
       {"cat", file, "--limit", "5", "--columns", "id,s,dec38,ts,arr,m"}},
      {"decode every column of every row group", RunParquet, {"scan", file}},
      {"create a Delta table partitioned by s, deletion vectors on",
       RunDelta,
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
                }()
                    .c_str());
    std::fflush(stdout);
    if (int rc = s.run(s.args)) return rc;
  }
  if (int rc = RunSqlDemo(dir)) return rc;
  if (int rc = RunTtlDemo(dir)) return rc;
  if (int rc = RunStreamingDemo(dir)) return rc;
  std::printf("\n== done: files are in %s (try: silt sql --warehouse %s/warehouse)\n", dir.c_str(),
              dir.c_str());
  return 0;
}

}  // namespace silt::cli
