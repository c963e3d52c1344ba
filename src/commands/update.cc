// UPDATE t [[AS] a] SET col = expr, … [WHERE pred]: matched rows are deleted (deletion vector or
// copy-on-write) and their new versions written in the same commit.
#include "commands/column_values.h"
#include "commands/command.h"
#include "common/error_classes.h"
#include "exec/functions.h"
#include "ops/dml.h"

namespace silt::commands {

Result<CommandResult> UpdateTable(const sql::UpdateStatement& stmt, CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t, ResolveDmlTable(stmt.table, "UPDATE", ctx));
  const Schema& schema = t.snapshot->schema();
  std::string alias =
      !stmt.alias.empty() ? stmt.alias : (stmt.table.is_path() ? "" : stmt.table.parts.back());
  std::vector<planner::OutputColumn> cols;
  for (const Field& f : schema) cols.push_back({f.name, f.type, f.nullable, alias});

  // New value per column: the assignment (cast to the column's type) or the column itself.
  std::vector<exec::ExprPtr> values(schema.size());
  SILT_ASSIGN_OR_RETURN(ColumnValueRules rules, ReadColumnValueRules(schema));
  std::vector<bool> supplied(schema.size());
  exec::BindContext store_assign = ctx.binder->context().bind;
  store_assign.ansi = true;  // spark.sql.storeAssignmentPolicy=ANSI
  for (const auto& a : stmt.set) {
    std::vector<std::string> path = a.column;
    if (path.size() == 2 && planner::LowerName(path[0]) == planner::LowerName(alias))
      path.erase(path.begin());
    if (path.size() != 1) {
      return Status::NotImplemented("UPDATE of nested fields is not implemented yet",
                                    errc::kNotImplemented);
    }
    int fi = FindField(schema, path[0]);
    if (fi < 0) {
      return Status::InvalidArgument("A column, variable, or function parameter with name `" +
                                         path[0] + "` cannot be resolved.",
                                     errc::kUnresolvedColumnWithSuggestion);
    }
    if (values[fi]) {
      return Status::InvalidArgument(
          "There is a conflict from these SET columns: [`" + path[0] + "`].",
          errc::kDeltaConflictSetColumn);
    }
    if (rules.identity[fi]) {
      return Status::InvalidArgument(
          "UPDATE on IDENTITY column " + schema[fi].name + " is not supported.",
          errc::kDeltaIdentityColumnsUpdateNotSupported);
    }
    if (!a.value && rules.generation[fi]) {
      // SET g = DEFAULT on a generated column: its expression over the new row (below).
      values[fi] = exec::MakeColumn(fi, schema[fi].type, schema[fi].name, schema[fi].nullable);
      continue;
    }
    supplied[fi] = true;
    if (!a.value) {
      // SET c = DEFAULT: the column's CURRENT_DEFAULT, else NULL.
      SILT_ASSIGN_OR_RETURN(Value d, ColumnDefault(rules, schema, static_cast<size_t>(fi), ctx));
      values[fi] = exec::MakeConstant(d);
      continue;
    }
    SILT_ASSIGN_OR_RETURN(exec::ExprPtr v, ctx.binder->BindExpression(*a.value, cols));
    if (!v->type->Equals(*schema[fi].type)) {
      SILT_ASSIGN_OR_RETURN(v, exec::BindCast(v, schema[fi].type, false, store_assign));
    }
    values[fi] = v;
  }
  for (size_t i = 0; i < schema.size(); ++i) {
    if (!values[i])
      values[i] =
          exec::MakeColumn(static_cast<int>(i), schema[i].type, schema[i].name, schema[i].nullable);
  }

  const std::shared_ptr<const delta::Snapshot> snapshot = t.snapshot;
  const std::shared_ptr<ObjectStore> store = t.store;
  SILT_ASSIGN_OR_RETURN(BoundDmlTarget b,
                        BindDmlTarget(std::move(t), stmt.table, stmt.alias, stmt.where.get(),
                                      {.ansi_eval = true}, ctx));
  ops::UpdateSpec spec;
  spec.predicate_sql = b.predicate.sql;
  spec.columns = b.predicate.columns;
  spec.options.clock = ctx.clock;
  spec.options.pool = ctx.pool;  // copy-on-write reads the rewritten files on it
  spec.options.write.row_validator = std::move(b.row_validator);
  spec.file_filter = std::move(b.file_filter);
  spec.matcher = std::move(b.matcher);
  spec.extra_metrics = std::move(b.skipping_metrics);
  const exec::EvalContext eval = b.eval;
  // Generated columns not SET are recomputed over the updated row; SET ones are checked (the
  // "Generated Column" constraint).
  SILT_ASSIGN_OR_RETURN(std::vector<exec::ExprPtr> generated,
                        BindGenerationExpressions(rules, schema, ctx));
  spec.updater = [values, eval, generated, supplied](const DataChunk& rows) -> Result<DataChunk> {
    DataChunk out;
    out.num_rows_without_columns = rows.size();
    for (const auto& v : values) {
      Vector col(v->type);
      SILT_RETURN_NOT_OK(exec::Evaluate(*v, rows, eval, &col));
      out.columns.push_back(std::move(col));
    }
    SILT_RETURN_NOT_OK(ComputeGeneratedColumns(generated, supplied, eval, &out));
    return out;
  };
  SILT_ASSIGN_OR_RETURN(ops::DmlResult r, ops::UpdateRows(store, snapshot, std::move(spec)));
  return CountRows({{"num_affected_rows", r.num_affected_rows}});
}

}  // namespace silt::commands
