// DELETE FROM t [[AS] a] [WHERE pred]: deletion vectors (or copy-on-write) through the DML core
// (ops::DeleteRows); files that partition values or statistics exclude are never read, files
// whose partition values or statistics prove every row matches are dropped unread. The statement
// binds its target once (BindDmlTarget); the core checks write support once, and the commit
// reuses that verdict.
#include "commands/command.h"
#include "ops/dml.h"

namespace silt::commands {

Result<CommandResult> DeleteFrom(const sql::DeleteStatement& stmt, CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t, ResolveDmlTable(stmt.table, "DELETE", ctx));
  SILT_ASSIGN_OR_RETURN(BoundDmlTarget b, BindDmlTarget(std::move(t), stmt.table, stmt.alias,
                                                        stmt.where.get(), {}, ctx));
  ops::DeleteSpec spec;
  spec.predicate_sql = b.predicate.sql;
  spec.columns = b.predicate.columns;
  spec.options.clock = ctx.clock;
  spec.options.pool = ctx.pool;  // the matcher is thread-safe
  spec.options.write.row_validator = std::move(b.row_validator);
  spec.file_filter = std::move(b.file_filter);
  spec.matcher = std::move(b.matcher);
  spec.extra_metrics = std::move(b.skipping_metrics);
  SILT_ASSIGN_OR_RETURN(ops::DmlResult r,
                        ops::DeleteRows(b.table.store, b.table.snapshot, std::move(spec)));
  return CountRows({{"num_affected_rows", r.num_affected_rows}});
}

}  // namespace silt::commands
