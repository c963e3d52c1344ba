// RESTORE TABLE t TO VERSION AS OF n | TIMESTAMP AS OF '…' (Delta's RestoreTableCommand): one
// commit that re-adds the files of the target version missing from the current one (with the
// deletion vectors they had then) and removes the current files the target does not have, both
// with dataChange=true, and restores the target's metadata (the protocol is never downgraded).
// Before committing, every file to re-add must still exist: files removed by VACUUM make the
// version unrestorable, and the table is left untouched.
#include "ops/restore.h"

#include "commands/command.h"
#include "common/error_classes.h"

namespace silt::commands {

namespace {

// Time travel's timestamp-range errors, restated as RESTORE's own classes (RestoreTableCommand);
// both name the provided and the bounding commit timestamp, in that order.
Status RestoreTimestampError(const Status& st) {
  const std::string cls(st.error_class());
  const bool after = cls == errc::kDeltaTimestampGreaterThanCommit;
  if (!after && cls != errc::kDeltaTimestampEarlierThanCommitRetention) return st;
  std::vector<std::string> ts;  // the parenthesised timestamps of time travel's message
  for (size_t open = st.message().find('('); open != std::string::npos && ts.size() < 2;
       open = st.message().find('(', open + 1)) {
    size_t close = st.message().find(')', open);
    if (close == std::string::npos) break;
    ts.emplace_back(st.message().substr(open + 1, close - open - 1));
  }
  if (ts.size() < 2) return st;
  const std::string out_class =
      after ? errc::kDeltaCannotRestoreTimestampGreater : errc::kDeltaCannotRestoreTimestampEarlier;
  return Status::InvalidArgument("[" + out_class + "] Cannot restore table to timestamp (" + ts[0] +
                                     ") as it is " +
                                     (after ? "after the latest" : "before the earliest") +
                                     " version available. Please use a timestamp " +
                                     (after ? "before" : "after") + " (" + ts[1] + ")",
                                 out_class);
}

}  // namespace

Result<CommandResult> RestoreTable(const sql::RestoreStatement& stmt, CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable cur,
                        ctx.binder->ResolveTable(stmt.table, std::nullopt));
  SILT_RETURN_NOT_OK(planner::ExpectTable(cur, "RESTORE"));
  const int64_t latest = cur.snapshot->version();
  if (stmt.target.version && (*stmt.target.version < 0 || *stmt.target.version > latest)) {
    return Status::InvalidArgument("Cannot restore table to version " +
                                       std::to_string(*stmt.target.version) +
                                       ". Available versions: [0, " + std::to_string(latest) + "].",
                                   errc::kDeltaCannotRestoreTableVersion);
  }
  Result<planner::ResolvedTable> resolved = ctx.binder->ResolveTable(stmt.table, &stmt.target);
  if (!resolved.ok()) return RestoreTimestampError(resolved.status());
  planner::ResolvedTable target = std::move(*resolved);

  ops::RestoreOptions options;
  options.clock = ctx.clock;
  options.ignore_missing_files = ctx.config->GetBool("spark.sql.files.ignoreMissingFiles", false);
  if (stmt.target.version) {
    options.parameters.Set("version", std::to_string(target.snapshot->version()));
  } else {
    std::string ts = stmt.target.timestamp_text;
    if (ts.empty() && stmt.target.timestamp) ts = stmt.target.timestamp->ToString();
    if (ts.size() >= 2 && ts.front() == '\'' && ts.back() == '\'') ts = ts.substr(1, ts.size() - 2);
    options.parameters.Set("timestamp", "\"" + ts + "\"");
  }
  SILT_ASSIGN_OR_RETURN(ops::RestoreResult r,
                        ops::Restore(cur.store, cur.snapshot, target.snapshot, options));
  return CountRows({{"table_size_after_restore", r.table_size_after_restore},
                    {"num_of_files_after_restore", r.num_of_files_after_restore},
                    {"num_removed_files", r.num_removed_files},
                    {"num_restored_files", r.num_restored_files},
                    {"removed_files_size", r.removed_files_size},
                    {"restored_files_size", r.restored_files_size}});
}

}  // namespace silt::commands
