// TRUNCATE TABLE t: every live file removed in one commit, operation "TRUNCATE" (Delta's
// DeltaOperations.Truncate), through the DML core so that append-only tables, table features
// and the change data feed are handled as DELETE without WHERE handles them. Files are dropped
// unread; the data stays readable by time travel until VACUUM.
#include "commands/command.h"
#include "ops/dml.h"

namespace silt::commands {

Result<CommandResult> TruncateTable(const sql::TruncateStatement& stmt, CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t,
                        ctx.binder->ResolveTable(stmt.table, std::nullopt));
  SILT_RETURN_NOT_OK(planner::ExpectTable(t, "TRUNCATE TABLE"));
  if (stmt.partition) {
    return Status::InvalidArgument(
        "[DELTA_TRUNCATE_TABLE_PARTITION_NOT_SUPPORTED] Operation not allowed: TRUNCATE TABLE on "
        "Delta "
        "tables does not support partition predicates; use DELETE to delete specific partitions or "
        "rows.",
        "DELTA_TRUNCATE_TABLE_PARTITION_NOT_SUPPORTED");
  }
  ops::RowChanges changes;
  changes.operation = "TRUNCATE";
  changes.metric_names = ops::MetricNames::kDelete;
  for (const delta::AddFile& f : t.snapshot->files()) {
    ops::FileRowDeletion d;
    d.file = f;
    d.all_rows = true;
    changes.deletions.push_back(std::move(d));
  }
  ops::DmlOptions options;
  options.clock = ctx.clock;
  options.pool = ctx.pool;
  Result<ops::DmlResult> done = ops::ApplyRowChanges(t.store, t.snapshot, std::move(changes), options);
  SILT_RETURN_NOT_OK(done.status());
  return CommandResult{};
}

}  // namespace silt::commands
