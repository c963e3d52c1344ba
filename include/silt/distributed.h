// Table maintenance, scans and writes spread over a cluster (silt.dask on Dask's distributed
// scheduler, docs/scale-out.md): one process plans the statement with the kernel, any number of
// processes run its tasks, and the planning process commits once.
//
//   silt::Connection con(db);
//   auto job = silt::DistributedJob::Plan(con, "OPTIMIZE delta.`/data/events` WHERE day = 3");
//   std::vector<std::string> outputs;
//   for (size_t i = 0; i < (*job)->num_tasks(); ++i)              // anywhere, in any order,
//     outputs.push_back(*silt::RunDistributedTask(other_con, (*job)->task(i)));  // retried at will
//   auto rows = (*job)->Commit(outputs);   // the statement's own result row, one commit
//
// Statements: OPTIMIZE [WHERE] [ZORDER BY] (liquid clustering too) and REORG TABLE … APPLY
// (PURGE), each on a table named by path or catalog name. The plan is the local command's (same
// settings, table properties, bin packing, 5% deleted-rows rule); each task is one bin. A task
// and its output are JSON text holding the table's URI, the planned version and add actions —
// no credentials: a worker opens the table with its own storage settings. A task writes new data
// files only; files of an attempt whose output is not committed (a killed worker, a retry that
// lost the race) are never referenced and are left for VACUUM. The commit is the local
// command's: operation, parameters, metrics, isolation and conflict checks against the planned
// version.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "silt/silt.h"

namespace silt {

class DistributedJob {
 public:
  ~DistributedJob();
  DistributedJob(const DistributedJob&) = delete;
  DistributedJob& operator=(const DistributedJob&) = delete;

  // Binds and plans `statement` on `con` (its session settings apply) against the table's latest
  // version. Errors: the local statement's (table not found, DELTA_NON_PARTITION_COLUMN_REFERENCE,
  // ZORDER BY errors, …); NOT_IMPLEMENTED for any other statement.
  static Result<std::unique_ptr<DistributedJob>> Plan(Connection& con, std::string_view statement);

  // The tasks (zero: nothing to do; Commit then returns the statement's result without a commit).
  size_t num_tasks() const;
  const std::string& task(size_t i) const;
  // The version the plan read (the commit's read version).
  int64_t read_version() const;

  // Commits the outputs of RunDistributedTask, exactly one per task in any order, as one commit
  // and returns the local statement's result (path, metrics). Errors: commit conflicts as the
  // local command's; SILT_INVALID_DISTRIBUTED_TASK for missing, duplicate or foreign outputs.
  // A job commits at most once.
  Result<std::unique_ptr<QueryResult>> Commit(const std::vector<std::string>& outputs);

  struct State;

 private:
  explicit DistributedJob(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// Runs one task of a DistributedJob or of RunAutoTtl (below) on `con`'s database (any process;
// concurrent calls on different connections are safe) and returns its output for Commit (or the
// task runner's caller). The task's files are
// written through the table's store; error classes are the local command's (a table's CHECK
// constraints are checked on rewritten rows as there).
Result<std::string> RunDistributedTask(Connection& con, std::string_view task);

// VACUUM with its file deletes elsewhere: `deleter` gets the table's URI and each batch of keys
// (paths below the table root, decoded) and returns one status per key (OK for a key already
// gone); a failed delete is counted as VACUUM counts it (the next run retries the file). The
// rest — listing, retention rules and checks, the VACUUM START / END commits, directories — is
// the local statement's, run here. `statement` is a VACUUM statement (NOT_IMPLEMENTED
// otherwise); the result is the statement's.
using FileDeleter = std::function<std::vector<Status>(const std::string& table_uri,
                                                      const std::vector<std::string>& keys)>;
Result<std::unique_ptr<QueryResult>> VacuumWithDeleter(Connection& con, std::string_view statement,
                                                       FileDeleter deleter);

// A deleter's work on a worker: deletes `keys` below the root of the table at `table_uri`
// (opened with `con`'s storage settings); one status per key. A key that is absolute, climbs out
// of the root ("..") or names the log (`_delta_log/`) is refused (SILT_INVALID_DISTRIBUTED_TASK)
// and nothing is deleted.
Result<std::vector<Status>> DeleteTableFiles(Connection& con, std::string_view table_uri,
                                             const std::vector<std::string>& keys);

// Distributed reads (silt.dask.read_delta). The planning half: the live files of version
// `version` (nullopt: the latest) of the table at `table_uri` that may hold rows for which
// `predicate` (a SQL boolean expression over the table's columns; empty: every file) is true —
// pruned by partition values and min/max statistics as a query's scan prunes them.
struct TableFiles {
  int64_t version = 0;
  std::vector<std::string> paths;  // add.path as the log has it
  std::vector<int64_t> sizes;
};
Result<TableFiles> PruneTableFiles(Connection& con, std::string_view table_uri,
                                   std::optional<int64_t> version, std::string_view predicate);

// The reading half, on a worker: the rows of `paths` (files of `version`, as PruneTableFiles
// gives them), deletion vectors applied, for which `predicate` is true (empty: all rows), with
// `columns` (empty: all) in that order. A path that is not a live file of that version is
// refused (SILT_INVALID_DISTRIBUTED_TASK). Errors as a SELECT's.
Result<std::unique_ptr<QueryResult>> ReadTableFiles(Connection& con, std::string_view table_uri,
                                                    int64_t version,
                                                    const std::vector<std::string>& paths,
                                                    const std::vector<std::string>& columns,
                                                    std::string_view predicate);

// Distributed writes (silt.dask.write_deltalake): the local statement — INSERT INTO | OVERWRITE
// [TABLE] t … SELECT or CREATE [OR REPLACE] TABLE t … AS SELECT, t a Delta table — runs on `con`
// (binding, checks, table creation, operation, parameters, metrics, conflict checks: all its
// own, in one commit), except that where it would write its query's rows it calls `run` once
// with a task (JSON text: the table's URI and the metadata the files must be written with, no
// credentials) and commits the add actions of the outputs `run` returns — the outputs of
// RunDistributedWrite for that task, one per share of the rows, in the order their files are to
// be listed. The query's own rows on `con` are not read. Errors: the statement's; `run`'s;
// SILT_INVALID_DISTRIBUTED_TASK for a foreign or malformed output; NOT_IMPLEMENTED for other
// statements, INSERT … REPLACE WHERE, file-source tables and tables with IDENTITY columns (the
// values would have to be handed out across processes).
using WriteTaskRunner = std::function<Result<std::vector<std::string>>(const std::string& task)>;
Result<std::unique_ptr<QueryResult>> WriteWithWorkers(Connection& con, std::string_view statement,
                                                      const WriteTaskRunner& run);

// A share of a distributed write on a worker: runs `statement` — the planning statement's form
// whose query reads this worker's rows — on `con` up to its data files, written with the task's
// metadata through the table's store, and returns their add actions and row count (the output
// for WriteWithWorkers); nothing is committed. Rows are converted and checked as the local
// statement does (casts, defaults, generated columns, CHECK constraints, NOT NULL). Errors: the
// statement's; DELTA_METADATA_CHANGED when the table's metadata is no longer the task's. Files of
// a failed call are deleted; those of a call whose output is never committed are left for VACUUM.
Result<std::string> RunDistributedWrite(Connection& con, std::string_view statement,
                                        std::string_view task);
// The Auto-TTL cycle of the maintenance service (`silt maintain`, docs/auto-ttl.md) on one table,
// its work spread over a cluster (silt.dask.ttl_delete): the same pass as
// `silt maintain --once --no-routine <table_uri>` — lease, TTL state, DELETE (cutoff of the
// table's `DELETE ROWS n DAYS AFTER col` policy at `now_ms`, nullopt: the database's clock) →
// REORG … APPLY (PURGE) of the files it gave deletion vectors → VACUUM LITE once the retention
// has passed, with the same commits (userName silt-maintenance, userMetadata
// {"trigger":"autottl","runId":…}) — except that the DELETE's file scans and the PURGE's
// rewrites are tasks handed to `run_tasks` (each run by RunDistributedTask on a worker; one
// output per task, any order) and VACUUM's file deletes go to `deleter`. Files fully expired by
// their statistics are removed unread, as locally. The operations history goes to the
// database's warehouse (`executor` = `executor_name` in each row's metrics). Returns one entry
// per operation as the history records it, and the reason when the pass skipped the table (e.g.
// another maintenance process holds its lease). Errors: a failed step is a FAILED entry (its
// error_class and error_message in the metrics), as the service records it; an error here only
// when the table cannot be opened or the history cannot be written.
using TaskRunner =
    std::function<Result<std::vector<std::string>>(const std::vector<std::string>& tasks)>;
struct MaintenanceOperation {
  std::string operation_type;    // DELETE, PURGE, VACUUM, MAINTENANCE
  std::string operation_status;  // SUCCESSFUL or "FAILED: INTERNAL_ERROR" (as the history says)
  std::vector<std::pair<std::string, std::string>> metrics;
};
struct AutoTtlReport {
  std::vector<MaintenanceOperation> operations;
  std::vector<std::string> skipped;
};
Result<AutoTtlReport> RunAutoTtl(Connection& con, std::string_view table_uri,
                                 std::optional<int64_t> now_ms, const std::string& executor_name,
                                 TaskRunner run_tasks, FileDeleter deleter);

}  // namespace silt
