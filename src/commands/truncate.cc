// TRUNCATE TABLE t: resolves the table and runs ops::Truncate (every live file removed in one
// commit, operation "TRUNCATE"; see ops/truncate.h); a file-source table's files are deleted.
#include "ops/truncate.h"

#include "commands/command.h"
#include "common/error_classes.h"
#include "planner/file_source.h"

namespace silt::commands {

Result<CommandResult> TruncateTable(const sql::TruncateStatement& stmt, CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t,
                        ctx.binder->ResolveTable(stmt.table, std::nullopt));
  if (t.entry && planner::IsFileSourceTable(*t.entry) && !stmt.partition) {
    // A file-source table (planner/file_source.h): its data files are deleted.
    std::vector<const delta::AddFile*> files;
    for (const auto& f : t.snapshot->files()) files.push_back(&f);
    SILT_RETURN_NOT_OK(planner::DeleteDataFiles(*t.store, t.location, files));
    return CommandResult{};
  }
  SILT_RETURN_NOT_OK(planner::ExpectTable(t, "TRUNCATE TABLE"));
  if (stmt.partition) {
    return Status::InvalidArgument(
        "Operation not allowed: TRUNCATE TABLE on "
        "Delta "
        "tables does not support partition predicates; use DELETE to delete specific partitions or "
        "rows.",
        errc::kDeltaTruncateTablePartitionNotSupported);
  }
  ops::DmlOptions options;
  options.clock = ctx.clock;
  options.pool = ctx.pool;
  Result<ops::DmlResult> done = ops::Truncate(t.store, t.snapshot, options);
  SILT_RETURN_NOT_OK(done.status());
  return CommandResult{};
}

}  // namespace silt::commands
