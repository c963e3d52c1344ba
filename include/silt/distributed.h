// Table maintenance spread over a cluster (silt.dask on Dask's distributed scheduler,
// docs/scale-out.md): one process plans the statement with the kernel, any number of processes
// run its tasks, and the planning process commits once.
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
#include <memory>
#include <string>
#include <string_view>
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

// Runs one task of a DistributedJob on `con`'s database (any process; concurrent calls on
// different connections are safe) and returns its output for Commit. The task's files are
// written through the table's store; error classes are the local command's (a table's CHECK
// constraints are checked on rewritten rows as there).
Result<std::string> RunDistributedTask(Connection& con, std::string_view task);

}  // namespace silt
