// REORG TABLE t [WHERE partition_pred] APPLY (PURGE): OPTIMIZE's options (optimize.cc) in the
// kReorgPurge mode, which rewrites every selected file with a deletion vector.
#include "commands/command.h"
#include "common/error_classes.h"
#include "ops/optimize.h"

namespace silt::commands {

Result<CommandResult> ReorgTable(const sql::ReorgStatement& stmt, CommandContext& ctx) {
  if (planner::LowerName(stmt.apply) != "purge") {
    return Status::NotImplemented(
        "REORG TABLE … APPLY (" + stmt.apply + ") is not implemented; only APPLY (PURGE) is",
        errc::kNotImplemented);
  }
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t,
                        ctx.binder->ResolveTable(stmt.table, std::nullopt));
  SILT_RETURN_NOT_OK(planner::ExpectTable(t, "REORG TABLE"));
  SILT_ASSIGN_OR_RETURN(ops::OptimizeOptions o, OptimizeStatementOptions(t, stmt.where.get(), ctx));
  o.mode = ops::OptimizeOptions::Mode::kReorgPurge;
  return RunOptimize(t, o, ctx);
}

}  // namespace silt::commands
