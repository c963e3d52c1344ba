// DELETE FROM t [[AS] a] [WHERE pred]: deletion vectors (or copy-on-write) through the DML core;
// files that partition values or statistics exclude are never read, files a partition-only
// predicate fully matches are dropped unread.
#include "commands/command.h"
#include "ops/dml.h"

namespace silt::commands {

Result<CommandResult> DeleteFrom(const sql::DeleteStatement& stmt, CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t, ctx.binder->ResolveTable(stmt.table, std::nullopt));
  SILT_RETURN_NOT_OK(planner::ExpectTable(t, "DELETE"));
  std::string alias = !stmt.alias.empty() ? stmt.alias : (stmt.table.is_path() ? "" : stmt.table.parts.back());
  SILT_ASSIGN_OR_RETURN(TablePredicate pred, BindTablePredicate(stmt.where.get(), *t.snapshot, alias, ctx));
  ops::DeleteSpec spec;
  spec.predicate_sql = pred.sql;
  spec.columns = pred.columns;
  spec.options.clock = ctx.clock;
  spec.options.pool = ctx.pool;  // BindRowFilter's matcher is thread-safe
  SILT_ASSIGN_OR_RETURN(spec.options.write.row_validator, MakeRowValidator(t.snapshot->metadata(), t.snapshot->schema(), ctx));
  exec::EvalContext eval = ctx.binder->context().eval;
  SILT_RETURN_NOT_OK(BindRowFilter(pred, t.snapshot, eval, ctx, &spec.file_filter, &spec.matcher));
  SILT_ASSIGN_OR_RETURN(ops::DmlResult r, ops::DeleteRows(t.store, t.snapshot, std::move(spec)));
  return CountRows({{"num_affected_rows", r.num_affected_rows}});
}

}  // namespace silt::commands
