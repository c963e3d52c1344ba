// `silt maintain [--warehouse DIR] [--once | --interval DURATION] [--now TIMESTAMP] [--dry-run]
// [TABLE…]`: the maintenance service (src/maintenance/service.h) over the warehouse's tables or
// the listed ones (paths or [schema.]names). --once runs one pass and exits (the default);
// --interval runs a pass every DURATION until SIGTERM/SIGINT, which stop it cleanly after the
// current table. --now pins the service's clock (one pass only). One line per operation.
// --dry-run prints the advisor's rows; --conf KEY=VALUE sets a threshold key (thresholds.h).
// --dask-scheduler ADDRESS (silt.maintenance.dask.scheduler) sends the jobs of tables larger than
// --dask-min-table-size (silt.maintenance.dask.minTableSize, default 10g) to a Dask cluster
// (cli/dask_executor.h); Dask or the scheduler missing is an error at start.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cli/dask_executor.h"
#include "common/clock.h"
#include "common/error_classes.h"
#include "common/thread_pool.h"
#include "delta/history.h"
#include "delta/partition_values.h"
#include "delta/table_properties.h"
#include "io/object_store_factory.h"
#include "maintenance/service.h"
#include "planner/catalog.h"
#include "planner/session_config.h"

namespace silt::cli {
namespace {

std::atomic<bool> g_stop{false};

void OnSignal(int) { g_stop.store(true); }

void Usage() {
  std::fprintf(
      stderr,
      "usage: silt maintain [--warehouse DIR] [--once | --interval DURATION] [--now TIMESTAMP]\n"
      "                     [--dry-run] [--no-routine] [--conf KEY=VALUE ...]\n"
      "                     [--threads N] [--dask-scheduler ADDRESS]\n"
      "                     [--dask-min-table-size SIZE] [TABLE ...]\n"
      "  TABLE: a table path, or [SCHEMA.]NAME in the warehouse; none: every warehouse table\n"
      "  DURATION: 30s, 15m, 1h, 1d or an interval such as '1 hour'\n"
      "  TIMESTAMP: pins the clock, e.g. 2026-01-01T00:00:00Z (with --once only)\n"
      "  --dry-run: print the advisor's rows (as SHOW MAINTENANCE) and change nothing\n"
      "  --conf: a threshold key such as silt.maintenance.optimize.minNumFiles=10\n"
      "  --dask-scheduler: run the jobs of large tables on this Dask scheduler (tcp://host:8786)\n"
      "  --dask-min-table-size: tables above this size (bytes, or 512m, 10g) go there (10g)\n"
      "  (or --conf silt.maintenance.dask.scheduler=…, .minTableSize=…, .python=python3)\n");
}

Result<int64_t> ParseDurationMillis(const std::string& text) {
  if (!text.empty()) {
    char unit = text.back();
    std::string digits = text.substr(0, text.size() - 1);
    int64_t mult = unit == 's'   ? 1000
                   : unit == 'm' ? 60000
                   : unit == 'h' ? 3600000
                   : unit == 'd' ? 86400000
                                 : 0;
    if (mult && !digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos) {
      return static_cast<int64_t>(std::stoll(digits)) * mult;
    }
  }
  return delta::ParseIntervalMillis(text);
}

Result<maintenance::MaintainedTable> Resolve(const std::string& target,
                                             const std::string& warehouse,
                                             const std::shared_ptr<Clock>& clock) {
  if (target.find('/') != std::string::npos || target.find("://") != std::string::npos) {
    SILT_ASSIGN_OR_RETURN(std::string loc, CanonicalLocation(target));
    return maintenance::MaintainedTable{loc, "", "", loc};
  }
  SILT_ASSIGN_OR_RETURN(auto catalog, planner::Catalog::Open(warehouse, clock));
  std::string schema = planner::Catalog::kDefaultSchema, name = target;
  if (size_t dot = target.find('.'); dot != std::string::npos) {
    schema = target.substr(0, dot);
    name = target.substr(dot + 1);
  }
  SILT_ASSIGN_OR_RETURN(planner::TableEntry entry,
                        catalog->GetTable(planner::LowerName(schema), planner::LowerName(name)));
  if (entry.format != "delta") {
    return Status::InvalidArgument(target + " is a view, not a Delta table",
                                   errc::kExpectTableNotViewNoAlternative);
  }
  return maintenance::MaintainedTable{entry.location, "spark_catalog", entry.schema, entry.name};
}

constexpr char kDaskSchedulerConf[] = "silt.maintenance.dask.scheduler";
constexpr char kDaskMinTableSizeConf[] = "silt.maintenance.dask.minTableSize";
constexpr char kDaskPythonConf[] = "silt.maintenance.dask.python";
constexpr char kDaskMinTableSizeDefault[] = "10g";

// The Dask executor the configuration asks for (nullopt: none); an error when it cannot be
// used, never a silent local run.
Result<std::optional<maintenance::RemoteExecutor>> DaskExecutor(
    const std::map<std::string, std::string>& conf) {
  auto get = [&](const char* key, const char* def) {
    auto it = conf.find(key);
    return it == conf.end() ? std::string(def) : it->second;
  };
  const std::string scheduler = get(kDaskSchedulerConf, "");
  if (scheduler.empty()) return std::optional<maintenance::RemoteExecutor>();
  const std::string size = get(kDaskMinTableSizeConf, kDaskMinTableSizeDefault);
  std::optional<int64_t> bytes = planner::ParseByteSize(size);
  if (!bytes || *bytes < 0) {
    return Status::InvalidArgument("The value '" + size + "' in the config \"" +
                                       kDaskMinTableSizeConf + "\" is invalid: a byte size",
                                   errc::kInvalidConfValue);
  }
  SILT_ASSIGN_OR_RETURN(maintenance::RemoteExecutor ex,
                        MakeDaskExecutor(scheduler, get(kDaskPythonConf, "python3"), *bytes));
  return std::optional<maintenance::RemoteExecutor>(std::move(ex));
}

std::string IsoNow(const Clock& clock) {
  return delta::FormatIsoTimestampMillis(clock.NowMillis() * 1000, /*with_zone=*/true);
}

}  // namespace

int RunMaintain(const std::vector<std::string>& args) {
  std::string warehouse = "./silt-warehouse";
  bool once = false, dry_run = false, routine = true;
  std::map<std::string, std::string> conf;
  size_t threads = 1;  // --threads N: scans and rewrites of each job on N threads  // --conf
                       // KEY=VALUE (maintenance/thresholds.h keys)
  std::optional<int64_t> interval_ms, now_ms;
  std::vector<std::string> targets;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--warehouse" && has_value) {
      warehouse = args[++i];
    } else if (a == "--once") {
      once = true;
    } else if (a == "--interval" && has_value) {
      Result<int64_t> ms = ParseDurationMillis(args[++i]);
      if (!ms.ok() || *ms <= 0) {
        std::fprintf(stderr, "silt maintain: bad --interval '%s'\n", args[i].c_str());
        return 2;
      }
      interval_ms = *ms;
    } else if (a == "--now" && has_value) {
      Result<int64_t> ms = delta::ParseTimestampLiteralMillis(args[++i]);
      if (!ms.ok()) {
        std::fprintf(stderr, "silt maintain: bad --now: %s\n", ms.status().ToString().c_str());
        return 2;
      }
      now_ms = *ms;
    } else if (a == "--threads" && has_value) {
      const std::string v = args[++i];
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || n < 1 || n > 1024) {
        std::fprintf(stderr, "silt maintain: bad --threads '%s'\n", v.c_str());
        return 2;
      }
      threads = static_cast<size_t>(n);
    } else if (a == "--conf" && has_value) {
      const std::string kv = args[++i];
      const size_t eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) {
        std::fprintf(stderr, "silt maintain: --conf needs KEY=VALUE, got '%s'\n", kv.c_str());
        return 2;
      }
      conf[kv.substr(0, eq)] = kv.substr(eq + 1);
    } else if (a == "--dask-scheduler" && has_value) {
      conf[kDaskSchedulerConf] = args[++i];
    } else if (a == "--dask-min-table-size" && has_value) {
      conf[kDaskMinTableSizeConf] = args[++i];
    } else if (a == "--dry-run") {
      dry_run = true;
    } else if (a == "--no-routine") {
      routine = false;
    } else if (a == "-h" || a == "--help") {
      Usage();
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "silt maintain: unknown option '%s'\n", a.c_str());
      Usage();
      return 2;
    } else {
      targets.push_back(a);
    }
  }
  if (once && interval_ms) {
    std::fprintf(stderr, "silt maintain: --once and --interval exclude each other\n");
    return 2;
  }
  if (now_ms && interval_ms) {
    std::fprintf(stderr, "silt maintain: --now pins the clock; it needs --once\n");
    return 2;
  }
  std::shared_ptr<Clock> clock = SystemClock::Default();
  if (now_ms) clock = std::make_shared<ManualClock>(*now_ms);
  Result<std::string> canonical = CanonicalLocation(warehouse);
  if (!canonical.ok()) {
    std::fprintf(stderr, "%s\n", canonical.status().ToString().c_str());
    return 1;
  }
  maintenance::MaintenanceConfig config;
  config.dry_run = dry_run;
  config.routine_jobs = routine;
  std::unique_ptr<ThreadPool> pool;
  if (threads > 1) {
    pool = std::make_unique<ThreadPool>(threads);
    config.pool = pool.get();
  }
  config.conf = [conf](const std::string& key) -> std::optional<std::string> {
    auto it = conf.find(key);
    if (it == conf.end()) return std::nullopt;
    return it->second;
  };
  config.wait = [clock](int64_t ms) {
    if (auto* manual = dynamic_cast<ManualClock*>(clock.get())) {
      manual->AdvanceMillis(ms);  // a pinned clock: the backoff passes in simulated time
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    }
  };
  config.should_stop = [] { return g_stop.load(); };  // a signal stops after the current table
  config.log = [clock](const std::string& line) {
    std::printf("%s %s\n", IsoNow(*clock).c_str(), line.c_str());
    std::fflush(stdout);
  };
  if (!dry_run) {
    Result<std::optional<maintenance::RemoteExecutor>> dask = DaskExecutor(conf);
    if (!dask.ok()) {
      std::fprintf(stderr, "silt maintain: %s\n", dask.status().ToString().c_str());
      return 1;
    }
    config.remote = std::move(*dask);
    if (config.remote) {
      config.log(std::string("jobs of tables larger than ") +
                 std::to_string(config.remote->min_table_bytes) + " bytes run on " +
                 config.remote->name);
    }
  }
  maintenance::MaintenanceService service(*canonical, clock, config);

  auto tables = [&]() -> Result<std::vector<maintenance::MaintainedTable>> {
    if (targets.empty()) return service.WarehouseTables();
    std::vector<maintenance::MaintainedTable> out;
    for (const std::string& t : targets) {
      SILT_ASSIGN_OR_RETURN(maintenance::MaintainedTable m, Resolve(t, *canonical, clock));
      out.push_back(std::move(m));
    }
    return out;
  };
  auto pass = [&]() -> int {
    Result<std::vector<maintenance::MaintainedTable>> list = tables();
    if (!list.ok()) {
      std::fprintf(stderr, "%s\n", list.status().ToString().c_str());
      return 1;
    }
    Result<maintenance::PassReport> report = service.RunPass(std::move(*list));
    if (!report.ok()) {
      std::fprintf(stderr, "%s\n", report.status().ToString().c_str());
      return 1;
    }
    auto due_rows = [](const maintenance::PassReport& p) {
      int64_t n = 0;
      for (const auto& a : p.advice) n += a.row.due;
      return n;
    };
    int64_t failed = 0;
    for (const auto& r : report->operations)
      failed += r.operation_status != maintenance::kStatusSuccessful;
    std::printf(
        "%s pass done: %lld tables, %zu operations (%lld failed)%s\n", IsoNow(*clock).c_str(),
        static_cast<long long>(report->tables), report->operations.size(),
        static_cast<long long>(failed),
        dry_run ? (", dry run: " + std::to_string(due_rows(*report)) + " jobs due").c_str() : "");
    std::fflush(stdout);
    return failed ? 1 : 0;
  };
  if (!interval_ms) return pass();

  g_stop.store(false);
  struct sigaction sa {};
  struct sigaction old_term {};
  struct sigaction old_int {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGINT, &sa, &old_int);
  while (!g_stop.load()) {
    (void)pass();  // failures are logged and recorded; the daemon goes on
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(*interval_ms);
    while (!g_stop.load() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  sigaction(SIGTERM, &old_term, nullptr);
  sigaction(SIGINT, &old_int, nullptr);
  std::printf("%s stopping: signal received\n", IsoNow(*clock).c_str());
  std::fflush(stdout);
  return 0;
}

}  // namespace silt::cli
