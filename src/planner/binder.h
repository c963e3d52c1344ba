// The binder: resolves an AST query (sql/ast.h) against the catalog into a logical plan with
// bound, typed expressions — names to columns (case-insensitive, Spark's rules for qualifiers
// and ambiguity), functions to kernels, implicit casts, aggregates and windows, subqueries
// (uncorrelated scalar subqueries are run once and become constants; IN/EXISTS become semi/anti
// joins; correlated equality subqueries are decorrelated into joins).
//
// Errors carry Spark's classes: TABLE_OR_VIEW_NOT_FOUND, UNRESOLVED_COLUMN.WITH_SUGGESTION,
// AMBIGUOUS_REFERENCE, MISSING_AGGREGATION, DATATYPE_MISMATCH.*, UNRESOLVED_ROUTINE, ...
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "exec/functions.h"
#include "io/object_store.h"
#include "planner/catalog.h"
#include "planner/logical_plan.h"
#include "planner/session_config.h"
#include "sql/ast.h"

namespace silt::planner {

// Expr::name of the `IN (v1, v2, ...)` list an uncorrelated IN subquery binds to outside a
// SELECT's WHERE (DML predicates): its values are run-time keys, not literals of the statement.
inline constexpr const char* kInSubqueryValues = "in_subquery";

// A table named in a statement, resolved to its storage and (for Delta tables) a snapshot.
struct ResolvedTable {
  std::string display_name;  // `spark_catalog`.`default`.`t` style for messages: default.t
  std::string location;
  std::shared_ptr<ObjectStore> store;
  std::shared_ptr<const delta::Snapshot> snapshot;  // null when the table has no log yet
  std::optional<TableEntry> entry;                  // catalog tables and views; temporary views too
  bool is_view = false;
  bool is_temp_view = false;
  // A read-only system table (system.storage.maintenance_operations_history and its Databricks
  // name, delta/operations_history.h); snapshot is null while the table has no rows yet.
  bool is_system = false;
};

// True for the names of the operations-history system table (three parts, case-insensitive).
bool IsSystemTableName(const sql::TableName& name);

// EXPECT_TABLE_NOT_VIEW.NO_ALTERNATIVE for a view given to a command that needs a Delta table;
// UNSUPPORTED_FEATURE.TABLE_OPERATION for a system table given to one that writes (any command
// but DESCRIBE …).
Status ExpectTable(const ResolvedTable& table, std::string_view command);

struct BinderContext {
  Catalog* catalog = nullptr;
  const SessionConfig* config = nullptr;
  std::string current_schema = "default";
  exec::BindContext bind;
  exec::EvalContext eval;
  std::shared_ptr<Clock> clock;
  // Runs a plan to completion (uncorrelated scalar / EXISTS subqueries at bind time).
  std::function<Result<std::vector<DataChunk>>(const PlanPtr&)> execute;
  // EXPLAIN (not EXPLAIN ANALYZE): a CTE that a run would materialize is not run; its references
  // read a placeholder LocalRelation over the CTE's plan (Binder::Impl::MaterializedCte).
  bool explain_only = false;
  // The session's temporary views (may be null): a one-part name resolves to one of them before
  // the catalog, as in Spark.
  const TempViews* temp_views = nullptr;
  // Binds a STREAM reference (sql/streaming_table.h): a streaming table's refresh sets it to
  // the rows of the current micro-batch (columns qualified as the binder qualifies a table's).
  // Empty: a STREAM reference fails with NOT_IMPLEMENTED (a batch query cannot read a stream).
  std::function<Result<PlanPtr>(const sql::TableRef&)> bind_stream;
};

class Binder {
 public:
  explicit Binder(BinderContext ctx);
  ~Binder();

  Result<PlanPtr> BindQuery(const sql::Query& query);
  // A FROM item (table, subquery, VALUES, join) as a plan; columns qualified by its alias.
  Result<PlanPtr> BindTableRef(const sql::TableRef& ref);
  // Binds an expression over the given columns (CHECK constraints, DELETE/UPDATE predicates,
  // assignments). Aggregates, windows and subqueries are refused unless allow_subqueries.
  Result<exec::ExprPtr> BindExpression(const sql::ParsedExpr& expr,
                                       const std::vector<OutputColumn>& columns,
                                       const std::string& qualifier = "");
  // Resolves a table (catalog name or path) at the requested version. must_exist=false returns
  // a ResolvedTable without snapshot when the location has no Delta log. load_files=false loads
  // the snapshot without its file list (VACUUM streams the file actions it needs instead).
  Result<ResolvedTable> ResolveTable(const sql::TableName& name,
                                     const std::optional<sql::TimeTravel>& time_travel,
                                     bool must_exist = true, bool load_files = true) {
    return ResolveTable(name, time_travel ? &*time_travel : nullptr, must_exist, load_files);
  }
  // The same with the version given by `time_travel` (null: the latest).
  Result<ResolvedTable> ResolveTable(const sql::TableName& name, const sql::TimeTravel* time_travel,
                                     bool must_exist = true, bool load_files = true);
  // A scan of a resolved table as a plan (all columns, qualifier = alias or table name).
  Result<PlanPtr> ScanPlan(const ResolvedTable& table, const std::string& qualifier);

  const BinderContext& context() const { return ctx_; }
  // The views expanded while binding so far ("schema.name" for catalog views, "name" for
  // temporary ones, lower case), e.g. to refuse a view that would refer to itself.
  const std::set<std::string>& expanded_views() const;
  bool referenced_temp_view() const;

 private:
  struct Impl;
  BinderContext ctx_;
  std::unique_ptr<Impl> impl_;
};

// Spark's output name of an unaliased expression (its SQL text).
std::string ColumnNameOf(const sql::ParsedExpr& expr);

// Rewrites column indices of a bound expression through `map` (old index → new index); null
// stays null.
exec::ExprPtr RemapColumns(const exec::ExprPtr& e, const std::function<int(int)>& map);

}  // namespace silt::planner
