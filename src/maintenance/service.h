// The maintenance service core (issue #21; spec A.6 of ../shared/specs/ttl-dfp-streaming.md): one
// pass over a set of Delta tables runs, per table, the Auto-TTL cycle DELETE → PURGE → VACUUM and
// the routine jobs a user expects from predictive optimization (compaction, checkpoint, expired
// log cleanup), and records every operation in the operations-history table. The same core
// serves `silt maintain --once` and the daemon (`--interval`): only the lifecycle differs.
//
// Time comes only from the injected Clock, captured once per table; waits (retry backoff) go
// through MaintenanceConfig::wait. Tables are visited in a deterministic order (by location).
//
// Per table, in order:
//  1. skip unless a Delta table; skip when the table property silt.maintenance.enabled = false
//     (the analogue of predictive optimization being off: nothing runs, TTL included);
//  2. take the table's lease (maintenance/lease.h) — skip when another process holds it;
//  3. load the TTL state (maintenance/state.h) and repair it from history: a maintenance commit
//     newer than the state (a crash between commit and state update) is adopted, never redone;
//  4. TTL, when the table has a policy (delta/auto_ttl.h) or a cycle is in progress:
//     IDLE       → DELETE when the stats pre-check finds something expired (maintenance/expiry.h);
//                  then PURGE_DUE (the DELETE wrote deletion vectors) or VACUUM_DUE;
//     PURGE_DUE  → REORG … APPLY (PURGE) limited to the files the DELETE gave deletion vectors
//                  (one tick later at most: due at once), then VACUUM_DUE;
//     VACUUM_DUE → when now >= vacuum_due_ms = (time of the cycle's last commit) + the table's
//                  delta.deletedFileRetentionDuration (never shorter, so never before
//                  deleteCommitTime + retention): VACUUM LITE, FULL on DELTA_CANNOT_VACUUM_LITE,
//                  with the retention check on; then IDLE.
//     A new DELETE starts only from IDLE; removing the policy cancels a pending DELETE but lets
//     a started PURGE / VACUUM finish.
//  5. routine jobs (MaintenanceConfig::routine_jobs): COMPACTION (OPTIMIZE), CHECKPOINT and
//     LOG_CLEANUP, each exactly when the advisor says it is due (maintenance/advisor.h,
//     AdviseRoutineJobs, with the thresholds of maintenance/thresholds.h loaded from
//     MaintenanceConfig::conf: the same rule as SHOW MAINTENANCE). A config value that does not
//     parse fails the table (INVALID_CONF_VALUE), never falls back to the default.
//  6. release the lease and append the operations to the history table.
// Every commit is an ordinary one tagged as maintenance: commitInfo.userName = config.principal,
// userMetadata = {"trigger":"autottl"|"maintenance","runId":…}.
//
// Conflicts: a user commit always wins (the maintenance commit is the one that fails); the step is
// retried on a fresh snapshot up to max_retries times (table property silt.maintenance.maxRetries
// overrides the config), waiting retry_backoff_ms * 2^attempt between attempts, then recorded as
// FAILED (error_class and retries in its metrics); the next pass retries it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "io/object_store.h"
#include "io/read_confinement.h"
#include "maintenance/advisor.h"
#include "maintenance/expiry.h"
#include "maintenance/history_writer.h"
#include "maintenance/lease.h"
#include "maintenance/thresholds.h"

namespace silt::maintenance {

// Table properties read by the service (a value that does not parse fails the table with
// DELTA_INVALID_TABLE_PROPERTY).
inline constexpr char kPropMaintenanceEnabled[] = "silt.maintenance.enabled";
inline constexpr char kPropMaxRetries[] = "silt.maintenance.maxRetries";
// An interval ("interval 3 days", the default): a PURGE / VACUUM that runs later than this after
// it became due logs an ALERT line (step_delay_ms is in its history metrics either way).
inline constexpr char kPropMaxDelayPerStep[] = "silt.autottl.maxDelayPerStep";

inline constexpr char kTriggerAutoTtl[] = "autottl";
inline constexpr char kTriggerMaintenance[] = "maintenance";

// Where a large table's jobs run instead of this process (`silt maintain --dask-scheduler`,
// silt.dask.ttl_delete; docs/scale-out.md): the TTL DELETE's scans and the PURGE / COMPACTION
// rewrites go to `run_tasks` as tasks (silt::RunDistributedTask runs each on a worker), VACUUM's
// file deletes to `delete_files`; the planning, commits, leases, state and history stay in this
// process, so a table's history is the same wherever its jobs ran. Checkpoints and log cleanup
// always run here.
struct RemoteExecutor {
  std::string name;  // where the jobs ran: the history's `executor` metric ("dask tcp://…")
  // Tables whose live data files total more bytes than this go remote; the others run here.
  int64_t min_table_bytes = 0;
  int64_t ttl_task_bytes = kDefaultTtlTaskBytes;  // files per TTL DELETE task
  TaskRunner run_tasks;
  // One status per key (paths below the table root), OK for a key already gone.
  std::function<std::vector<Status>(const std::string& table_uri,
                                    const std::vector<std::string>& keys)>
      delete_files;
};

struct MaintenanceConfig {
  // commitInfo.userName of maintenance commits.
  std::string principal = "silt-maintenance";
  // This process's id for leases; empty: a random UUID.
  std::string owner_id;
  int64_t lease_duration_ms = 3600LL * 1000;
  int max_retries = 3;              // silt.maintenance.maxRetries
  int64_t retry_backoff_ms = 1000;  // first backoff; doubled per retry
  // Plan only: no commit, no state or lease written; PassReport::advice has the advisor's rows
  // (AdviceRows, as SHOW MAINTENANCE shows them) for every table.
  bool dry_run = false;
  bool routine_jobs = true;
  // The config keys of maintenance/thresholds.h (the service's analogue of a session's SET
  // values); null: every default.
  ConfigLookup conf;
  // Waits `ms` between retries (daemon: sleeps; tests: advance a ManualClock). Null: no wait.
  std::function<void(int64_t ms)> wait;
  // One line per operation (and per skipped table); null: none.
  std::function<void(const std::string&)> log;
  HistoryWriterOptions history;
  // Asked before each table: true ends the pass early (the daemon's SIGTERM). Null: never.
  std::function<bool()> should_stop;
  // Opens a table's store from its location (tests wrap it to inject faults and concurrent
  // commits); null: OpenObjectStore (io/object_store_factory.h).
  std::function<Result<std::shared_ptr<ObjectStore>>(const std::string& location)> open_store;
  ThreadPool* pool = nullptr;  // for scans and rewrites; null: the calling thread
  // Set: tables above its size threshold have their jobs run there, and every history row of a
  // TTL DELETE, PURGE, VACUUM or COMPACTION gets the metric `executor` (its name, or "local").
  std::optional<RemoteExecutor> remote;
};

// A table the service maintains.
struct MaintainedTable {
  std::string location;      // the table root (local path or URI)
  std::string catalog_name;  // "spark_catalog" for warehouse tables, "" for path tables
  std::string schema_name;   // "" for path tables
  std::string table_name;    // the name, or the location of a path table
  // What history and log lines call it: schema.name, or the location.
  std::string DisplayName() const;
};

struct PlannedRow {
  std::string table;  // MaintainedTable::DisplayName
  AdviceRow row;
};

struct PassReport {
  std::vector<OperationRecord> operations;  // as appended to the history table
  std::vector<std::string> skipped;         // "<table>: <reason>"
  std::vector<PlannedRow> advice;           // dry run: the advisor's rows, per table
  int64_t tables = 0;
};

class MaintenanceService {
 public:
  // `warehouse`: where the history table lives (and, for WarehouseTables, the catalog); may be
  // empty when only path tables are maintained and no history is wanted (then none is written).
  MaintenanceService(std::string warehouse, std::shared_ptr<Clock> clock, MaintenanceConfig config);

  // The Delta tables registered in (or found under) the warehouse's catalog, every schema.
  Result<std::vector<MaintainedTable>> WarehouseTables() const;

  // One pass over `tables` (sorted by location first). Per-table failures are recorded (FAILED
  // rows, log lines) and do not stop the pass; an error is returned only when the history
  // table cannot be written.
  Result<PassReport> RunPass(std::vector<MaintainedTable> tables);

  const MaintenanceConfig& config() const { return config_; }

 private:
  class TableRun;
  Status SetReadConfinement();
  std::string warehouse_;
  std::shared_ptr<Clock> clock_;
  MaintenanceConfig config_;
  std::unique_ptr<LeaseManager> leases_;
  // Reads of absolute add/DV paths are confined to the table root (and silt.io.allowedReadPrefixes)
  // unless conf sets silt.io.confineReadsToTableRoot=false: a hostile log cannot make the service
  // read or rewrite files of other tables (io/read_confinement.h). Set at the start of each pass.
  std::shared_ptr<const ReadConfinement> read_confinement_;
};

}  // namespace silt::maintenance
