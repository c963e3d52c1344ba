// The engine behind the public API (include/silt/silt.h): database-wide state (catalog, thread
// pool, memory, clock) and per-connection session state (current schema, SET configuration),
// and statement execution: parse → dispatch to a command or bind → optimize → execute.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "common/memory.h"
#include "common/thread_pool.h"
#include "delta/streaming_write.h"
#include "ops/optimize.h"
#include "planner/binder.h"
#include "planner/catalog.h"
#include "planner/memory_relations.h"
#include "planner/session_config.h"
#include "silt/silt.h"
#include "sql/ast.h"

namespace silt::engine {

class DatabaseState {
 public:
  DatabaseOptions options;
  std::shared_ptr<planner::Catalog> catalog;
  std::unique_ptr<ThreadPool> pool;
  std::shared_ptr<MemoryTracker> memory;
  std::shared_ptr<Clock> clock;
  std::string temp_directory;  // DatabaseOptions::temp_directory (spill files)
};

class SessionState {
 public:
  explicit SessionState(DatabaseState* db) : db(db) {}
  DatabaseState* db;
  planner::SessionConfig config;
  std::string current_schema = planner::Catalog::kDefaultSchema;
  planner::TempViews temp_views;
  // The rows of the temporary views over in-memory data (silt::RegisterTemporaryView), by
  // lower-case view name: the session owns them (planner/memory_relations.h).
  std::map<std::string, std::shared_ptr<const planner::MemoryRelation>> memory_views;
  // Receives progress lines of long commands (VACUUM); empty: none are produced.
  std::function<void(const std::string&)> progress;
  // Set (by another thread) to cancel the running statement: query operators check it and fail
  // with Status::Cancelled (exec/operator.h); null: never cancelled.
  const std::atomic<bool>* cancelled = nullptr;

  // Set: OPTIMIZE and REORG statements hand their table and options here instead of running
  // (commands::CommandContext::plan_optimize; silt::DistributedJob::Plan sets it for one call).
  std::function<Status(const planner::ResolvedTable&, const ops::OptimizeOptions&)> plan_optimize;
  // Set: VACUUM's file deletes go here (commands::CommandContext::delete_files;
  // silt::VacuumWithDeleter sets it for one call).
  std::function<void(const std::string& location, std::span<const std::string_view> keys,
                     std::span<Status> statuses)>
      delete_files;
  // Set: INSERT and CTAS write their rows through it (commands::CommandContext::write_files;
  // silt::WriteWithWorkers and silt::RunDistributedWrite set it for one call).
  delta::WriteFiles write_files;

  // Runs one parsed statement.
  Result<std::unique_ptr<QueryResult>> Execute(const sql::Statement& stmt);

  // A statement's binder settings: the session's catalog, schema, configuration (ANSI mode, time
  // zone, legacy flags), temporary views and clock; current_timestamp() fixed to now.
  planner::BinderContext StatementBinderContext() const;

  // The pool a statement runs on: the database's, unless `SET silt.threads = N` (N > 0) asks for
  // another number of threads (the caller's thread counts as one: N = 1 runs on the caller only,
  // otherwise a pool of N - 1 workers kept by the session).
  ThreadPool* PoolForStatement();

 private:
  std::unique_ptr<ThreadPool> own_pool_;
};

}  // namespace silt::engine
