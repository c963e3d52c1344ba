// The statement commands: one file per statement kind (create_table.cc, insert.cc, vacuum.cc,
// …). A command gets the session's context, plans any queries it contains through the binder,
// does its work with exec/ and the Delta kernel, commits through one delta::Transaction, and
// returns its result rows (Spark's output schema for that command).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "planner/binder.h"
#include "planner/catalog.h"
#include "planner/logical_plan.h"
#include "planner/session_config.h"
#include "sql/ast.h"
#include "vector/vector.h"

namespace silt::commands {

struct CommandResult {
  Schema schema;
  std::vector<DataChunk> chunks;
};

struct CommandContext {
  planner::Catalog* catalog = nullptr;
  planner::SessionConfig* config = nullptr;
  std::string* current_schema = nullptr;
  planner::Binder* binder = nullptr;
  std::shared_ptr<Clock> clock;
  ThreadPool* pool = nullptr;
  // Progress lines for long commands (the CLI prints them); may be empty.
  std::function<void(const std::string&)> progress;
  // Optimizes and runs a bound plan, returning all its rows.
  std::function<Result<std::vector<DataChunk>>(const planner::PlanPtr&)> run_plan;
};

// Builds a one-row-per-value result of string columns (SHOW …, SET, DESCRIBE …).
CommandResult StringRows(const std::vector<std::string>& column_names, const std::vector<std::vector<std::string>>& rows);
// Converts rows of `chunks` (any columns) to the target column types with Spark's store
// assignment (ANSI casts: overflow and bad values are errors), e.g. for INSERT.
Result<std::vector<DataChunk>> CastChunks(const std::vector<DataChunk>& chunks, const Schema& from, const Schema& to,
                                          const std::string& table_name);

Result<CommandResult> CreateTable(const sql::CreateTableStatement& stmt, CommandContext& ctx);
Result<CommandResult> DropTable(const sql::DropTableStatement& stmt, CommandContext& ctx);
Result<CommandResult> Insert(const sql::InsertStatement& stmt, CommandContext& ctx);
Result<CommandResult> SchemaCommand(const sql::Statement& stmt, CommandContext& ctx);  // CREATE/DROP/USE/SHOW SCHEMAS
Result<CommandResult> ShowTables(const sql::ShowStatement& stmt, CommandContext& ctx);
Result<CommandResult> SetCommand(const sql::Statement& stmt, CommandContext& ctx);  // SET / RESET
Result<CommandResult> VacuumTable(const sql::VacuumStatement& stmt, CommandContext& ctx);
Result<CommandResult> DescribeHistory(const sql::DescribeStatement& stmt, CommandContext& ctx);
Result<CommandResult> DescribeDetail(const sql::DescribeStatement& stmt, CommandContext& ctx);
Result<CommandResult> DescribeTable(const sql::DescribeStatement& stmt, CommandContext& ctx);

}  // namespace silt::commands
