// The statement commands: one file per statement, named after it (create_table.cc, insert.cc,
// vacuum.cc, reorg.cc, set.cc, …). A command gets the session's context, resolves its table and
// binds its predicates through the binder, and either runs an operation of ops/ (VACUUM, DML,
// OPTIMIZE/REORG, TRUNCATE, RESTORE: typed options in, typed result out) or does its work with
// exec/ and the Delta kernel itself, committing through one delta::Transaction; it returns its
// result rows (Spark's output schema for that command).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "delta/snapshot.h"
#include "delta/streaming_write.h"
#include "exec/expression.h"
#include "ops/dml.h"
#include "ops/optimize.h"
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
  // Optimizes and runs a bound plan, handing each chunk to `sink` as it comes; nothing is kept, so
  // a writer that takes the chunks (INSERT … SELECT, CTAS) holds what it buffers instead of every
  // row. Empty: StreamPlan hands over run_plan's rows.
  std::function<Status(const planner::PlanPtr&, const std::function<Status(DataChunk&)>& sink)>
      stream_plan;
  // The session's temporary views (CREATE/DROP VIEW change them).
  planner::TempViews* temp_views = nullptr;
  // Set by another thread to cancel the statement (engine::SessionState::cancelled): long
  // commands check it between files (VACUUM's delete batches, OPTIMIZE's bins). Null: never.
  const std::atomic<bool>* cancelled = nullptr;
  // Set: OPTIMIZE and REORG hand their resolved table and options here instead of running
  // (silt::DistributedJob plans them for a cluster, include/silt/distributed.h) and return no
  // rows. Empty: they run in process.
  std::function<Status(const planner::ResolvedTable&, const ops::OptimizeOptions&)> plan_optimize;
  // Set: VACUUM's file deletes go here (ops::VacuumOptions::delete_files, with the table's
  // location first) instead of to the store; silt::VacuumWithDeleter sets it. Empty: the store.
  std::function<void(const std::string& location, std::span<const std::string_view> keys,
                     std::span<Status> statuses)>
      delete_files;
  // Set: INSERT … SELECT and CREATE [OR REPLACE] TABLE … AS SELECT write their rows through it
  // and commit the files it returns (silt/distributed.h's distributed writes); INSERT forms it
  // cannot serve (REPLACE WHERE, file-source tables) are refused. Empty: WriteDataFilesFrom.
  delta::WriteFiles write_files;
};

// Runs `plan` through ctx.stream_plan (ctx.run_plan when that is empty), calling `sink` for each
// non-empty chunk in order; the first error (the plan's or the sink's) stops the run.
Status StreamPlan(CommandContext& ctx, const planner::PlanPtr& plan,
                  const std::function<Status(DataChunk&)>& sink);
// Builds a one-row-per-value result of string columns (SHOW …, SET, DESCRIBE …).
CommandResult StringRows(const std::vector<std::string>& column_names,
                         const std::vector<std::vector<std::string>>& rows);
// Converts rows of `chunks` (any columns) to the target column types with Spark's store
// assignment (ANSI casts: overflow and bad values are errors), e.g. for INSERT; strings and dates
// become timestamps in the session time zone `time_zone`.
Result<std::vector<DataChunk>> CastChunks(const std::vector<DataChunk>& chunks, const Schema& from,
                                          const Schema& to, const std::string& table_name,
                                          const std::string& time_zone);

// A predicate over a table's rows, bound for the DML/maintenance commands: the expression reads
// only `columns` (logical names, in the order of its column indices).
struct TablePredicate {
  exec::ExprPtr expr;  // null: no predicate (every row)
  std::vector<std::string> columns;
  std::string sql;  // the predicate's text for operationParameters
  bool partition_only = false;
};
// Binds `where` over the table's columns (qualified by `alias` or the table's name when given).
Result<TablePredicate> BindTablePredicate(const sql::ParsedExpr* where,
                                          const delta::Snapshot& snapshot, const std::string& alias,
                                          CommandContext& ctx);
// Whether a file's partition values make `pred` (partition-only) TRUE.
Result<bool> PartitionMatches(const TablePredicate& pred, const delta::Snapshot& snapshot,
                              const delta::AddFile& file, const exec::EvalContext& eval);
// A scan node of `snapshot` reading pred.columns, its files pruned by `pred` (PruneFiles: partition
// values, then min/max statistics when spark.databricks.delta.stats.skipping is on).
Result<planner::LogicalNode> PrunedScan(const TablePredicate& pred,
                                        std::shared_ptr<const delta::Snapshot> snapshot,
                                        CommandContext& ctx);
// The files the predicate may match by partition values and min/max statistics (PrunedScan's).
Result<std::unordered_set<const delta::AddFile*>> CandidateFiles(
    const TablePredicate& pred, std::shared_ptr<const delta::Snapshot> snapshot,
    CommandContext& ctx);
// The DML core's file filter and row matcher for a bound predicate: files that partition values
// or statistics exclude are skipped unread, files a partition-only predicate fully matches are
// taken whole, the others are read and filtered with `eval`. Leaves both empty without a predicate.
Status BindRowFilter(const TablePredicate& pred, std::shared_ptr<const delta::Snapshot> snapshot,
                     const exec::EvalContext& eval, CommandContext& ctx,
                     ops::FileFilter* file_filter, ops::RowMatcher* matcher);
// What BindDmlTarget binds besides the table and its WHERE.
struct BindDmlOptions {
  bool ansi_eval = false;     // evaluate with ANSI semantics (UPDATE's SET values)
  bool row_validator = true;  // bind the table's SQL constraints for rewritten/updated rows
  bool scan = false;          // prune even without WHERE (EXPLAIN prints the scan)
};
// The target of a DELETE or UPDATE (and their EXPLAIN), bound in one place: the resolved table,
// the WHERE over its columns, one pruning pass (the scan EXPLAIN prints; the file filter and row
// matcher the ops core takes are made from it), the evaluation context and the row validator.
struct BoundDmlTarget {
  planner::ResolvedTable table;
  std::string alias;  // the statement's alias, else the table's name ("" for a path)
  TablePredicate predicate;
  exec::EvalContext eval;
  planner::LogicalNode scan;    // pruned: with WHERE or BindDmlOptions::scan
  ops::FileFilter file_filter;  // empty without WHERE
  ops::RowMatcher matcher;      // empty without WHERE
  delta::RowValidator row_validator;
  // With WHERE: numFilesBeforeSkipping / numFilesAfterSkipping / numBytesBeforeSkipping /
  // numBytesAfterSkipping, and when the predicate has IN subqueries whose values dynamic file
  // pruning applied: numFilesBeforeDfp / numFilesPrunedByDfp / numFilesAfterDfp /
  // bytesPrunedByDfp (operationMetrics).
  std::vector<std::pair<std::string, int64_t>> skipping_metrics;
};
// The statement's table: resolution's errors; `operation` on a view (ExpectTable);
// DELTA_TABLE_NOT_FOUND without a Delta log.
Result<planner::ResolvedTable> ResolveDmlTable(const sql::TableName& table,
                                               const std::string& operation, CommandContext& ctx);
// Binds the rest for `resolved` (from ResolveDmlTable of `table`). Errors: the predicate's and the
// constraints' bind errors, pruning's errors.
Result<BoundDmlTarget> BindDmlTarget(planner::ResolvedTable resolved, const sql::TableName& table,
                                     const std::string& alias, const sql::ParsedExpr* where,
                                     const BindDmlOptions& options, CommandContext& ctx);
// A SQL constraint (CHECK constraint or invariant) bound over a table's logical columns.
struct BoundCheck {
  std::string name;          // the constraint's name (EXPRESSION(<sql>) for an invariant)
  std::string sql;           // as stored
  exec::ExprPtr expr;        // BOOLEAN, over the table's columns in logical order
  std::vector<int> columns;  // the columns it reads, ascending
};
// Binds `sql` over `logical`. Errors: its parse/bind errors; DELTA_NON_BOOLEAN_CHECK_CONSTRAINT
// when it is not a boolean expression.
Result<BoundCheck> BindCheck(const std::string& name, const std::string& sql, const Schema& logical,
                             CommandContext& ctx);
// The rows of `chunk` (the table's columns, logical order) that violate `check`: FALSE or NULL.
Result<std::vector<uint32_t>> CheckViolations(const BoundCheck& check, const DataChunk& chunk,
                                              const exec::EvalContext& eval);
// The RowValidator for writes to a table with `metadata` and schema `logical`: checks the SQL
// constraints the kernel leaves to it and fails on the first violating row with
// DELTA_VIOLATE_CONSTRAINT_WITH_VALUES and Spark's message (name, expression, the row's values of
// the columns it reads). Empty when the table has none.
Result<delta::RowValidator> MakeRowValidator(const delta::Metadata& metadata, const Schema& logical,
                                             CommandContext& ctx);
// The output columns of the view `name` (bound as a query would bind it).
Result<std::vector<planner::OutputColumn>> ViewColumns(const sql::TableName& name,
                                                       CommandContext& ctx);
// One row (or one per value) of BIGINT counters, e.g. num_affected_rows.
CommandResult CountRows(const std::vector<std::pair<std::string, int64_t>>& counters);

// Where CREATE TABLE puts its table: a path (unmanaged), or a catalog name in an existing schema
// (LOCATION, else the managed location). Errors: too many name parts, a missing schema.
struct CreateTarget {
  std::string location;
  std::string display;  // delta.`/p` or spark_catalog.schema.name
  bool catalog = false;
  std::string schema, name;
  bool managed = true;
  bool exists = false;  // ResolveTableTarget: a catalog entry of that name exists
  bool skip = false;    // ResolveTableTarget: IF NOT EXISTS and it exists, nothing to do
};
Result<CreateTarget> ResolveCreateTarget(const sql::TableName& tn, const std::string& location,
                                         CommandContext& ctx);
// Spark's analyzer refuses its legacy calendar interval anywhere in a table schema, whatever the
// source (SchemaUtils.failWithIntervalType): _LEGACY_ERROR_TEMP_1183 when `type` holds one.
Status RefuseCalendarInterval(const TypePtr& type);
// The same for CREATE [OR REPLACE] TABLE / REPLACE TABLE `stmt` over what the catalog holds (an
// existing entry's location). Errors: TABLE_OR_VIEW_ALREADY_EXISTS (without OR REPLACE, or a
// view of that name), TABLE_OR_VIEW_NOT_FOUND for REPLACE TABLE of a missing table.
Result<CreateTarget> ResolveTableTarget(const sql::CreateTableStatement& stmt, CommandContext& ctx);
Result<CommandResult> CreateTable(const sql::CreateTableStatement& stmt, CommandContext& ctx);
// CREATE TABLE … [SHALLOW | DEEP] CLONE src and CREATE TABLE … LIKE src (clone_table.cc).
Result<CommandResult> CloneTable(const sql::CreateTableStatement& stmt, CommandContext& ctx);
Result<CommandResult> CreateTableLike(const sql::CreateTableStatement& stmt, CommandContext& ctx);
Result<CommandResult> DropTable(const sql::DropTableStatement& stmt, CommandContext& ctx);
Result<CommandResult> TruncateTable(const sql::TruncateStatement& stmt, CommandContext& ctx);
Result<CommandResult> CreateView(const sql::CreateViewStatement& stmt,
                                 CommandContext& ctx);  // views.cc
Result<CommandResult> DropView(const sql::DropViewStatement& stmt, CommandContext& ctx);
Result<CommandResult> AlterTable(const sql::AlterTableStatement& stmt, CommandContext& ctx);
// ALTER TABLE t DROP FEATURE f [TRUNCATE HISTORY] (drop_feature.cc), `t` resolved by AlterTable.
Result<CommandResult> DropFeature(const sql::AlterTableStatement& stmt,
                                  const planner::ResolvedTable& t, CommandContext& ctx);
Result<CommandResult> Insert(const sql::InsertStatement& stmt, CommandContext& ctx);
Result<CommandResult> SchemaCommand(const sql::Statement& stmt,
                                    CommandContext& ctx);  // CREATE/DROP/USE/SHOW SCHEMAS
Result<CommandResult> ShowTables(const sql::ShowStatement& stmt, CommandContext& ctx);
Result<CommandResult> SetCommand(const sql::Statement& stmt, CommandContext& ctx);  // SET / RESET
Result<CommandResult> DeleteFrom(const sql::DeleteStatement& stmt, CommandContext& ctx);
Result<CommandResult> UpdateTable(const sql::UpdateStatement& stmt, CommandContext& ctx);
// EXPLAIN text of a DELETE or UPDATE (explain_dml.cc): the command and the scan of the files it
// will read, chosen as the command chooses them.
Result<std::string> ExplainDml(const sql::Statement& stmt, CommandContext& ctx);
Result<CommandResult> MergeInto(const sql::MergeStatement& stmt, CommandContext& ctx);
Result<CommandResult> OptimizeTable(const sql::OptimizeStatement& stmt, CommandContext& ctx);
Result<CommandResult> ReorgTable(const sql::ReorgStatement& stmt, CommandContext& ctx);
// OPTIMIZE's and REORG's shared options (optimize.cc): session settings and table properties,
// the row validator and the partition-only WHERE (DELTA_NON_PARTITION_COLUMN_REFERENCE otherwise).
Result<ops::OptimizeOptions> OptimizeStatementOptions(const planner::ResolvedTable& t,
                                                      const sql::ParsedExpr* where,
                                                      CommandContext& ctx);
// Runs ops::Optimize (or hands it to ctx.plan_optimize) and shapes Spark's (path, metrics) row.
Result<CommandResult> RunOptimize(const planner::ResolvedTable& t, const ops::OptimizeOptions& o,
                                  CommandContext& ctx);
Result<CommandResult> VacuumTable(const sql::VacuumStatement& stmt, CommandContext& ctx);
Result<CommandResult> ShowTblProperties(const sql::ShowStatement& stmt, CommandContext& ctx);
Result<CommandResult> ShowCreateTable(const sql::ShowStatement& stmt, CommandContext& ctx);
Result<CommandResult> ShowColumns(const sql::ShowStatement& stmt, CommandContext& ctx);
// SHOW MAINTENANCE t: the maintenance advisor's rows (show_maintenance.cc, docs/maintenance.md).
Result<CommandResult> ShowMaintenance(const sql::ShowStatement& stmt, CommandContext& ctx);
Result<CommandResult> RestoreTable(const sql::RestoreStatement& stmt, CommandContext& ctx);
Result<CommandResult> ConvertToDelta(const sql::ConvertToDeltaStatement& stmt, CommandContext& ctx);
Result<CommandResult> DescribeHistory(const sql::DescribeStatement& stmt, CommandContext& ctx);
Result<CommandResult> DescribeDetail(const sql::DescribeStatement& stmt, CommandContext& ctx);
Result<CommandResult> DescribeTable(const sql::DescribeStatement& stmt, CommandContext& ctx);

}  // namespace silt::commands
