// DELETE FROM t [[AS] a] [WHERE pred]: deletion vectors (or copy-on-write) through the DML core;
// files that partition values or statistics exclude are never read, files a partition-only
// predicate fully matches are dropped unread.
#include "commands/command.h"
#include "commands/dml.h"

namespace silt::commands {

Result<CommandResult> DeleteFrom(const sql::DeleteStatement& stmt, CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t, ctx.binder->ResolveTable(stmt.table, std::nullopt));
  std::string alias = !stmt.alias.empty() ? stmt.alias : (stmt.table.is_path() ? "" : stmt.table.parts.back());
  SILT_ASSIGN_OR_RETURN(TablePredicate pred, BindTablePredicate(stmt.where.get(), *t.snapshot, alias, ctx));
  DeleteSpec spec;
  spec.predicate_sql = pred.sql;
  spec.columns = pred.columns;
  spec.options.clock = ctx.clock;
  exec::EvalContext eval = ctx.binder->context().eval;
  if (pred.expr) {
    SILT_ASSIGN_OR_RETURN(auto candidates, CandidateFiles(pred, t.snapshot, ctx));
    const delta::Snapshot* snap = t.snapshot.get();
    spec.file_filter = [pred, candidates, snap, eval](const delta::AddFile& f) -> Result<FileVerdict> {
      if (!candidates.count(&f)) return FileVerdict::kSkip;
      if (pred.partition_only) {
        SILT_ASSIGN_OR_RETURN(bool all, PartitionMatches(pred, *snap, f, eval));
        return all ? FileVerdict::kAll : FileVerdict::kSkip;
      }
      return FileVerdict::kMaybe;
    };
    exec::ExprPtr e = pred.expr;
    spec.matcher = [e, eval](const DataChunk& rows) -> Result<std::vector<uint32_t>> {
      std::vector<uint32_t> sel;
      SILT_RETURN_NOT_OK(exec::EvaluateFilter(*e, rows, eval, &sel));
      return sel;
    };
  }
  SILT_ASSIGN_OR_RETURN(DmlResult r, DeleteRows(t.store, t.snapshot, std::move(spec)));
  return CountRows({{"num_affected_rows", r.num_affected_rows}});
}

}  // namespace silt::commands
