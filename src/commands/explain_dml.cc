// EXPLAIN DELETE / UPDATE: the command, then the scan of the target's files that the command will
// read. The files come from BindDmlTarget's pruning pass — the one DeleteFrom / UpdateTable use —
// so the counts are the files the command really reads. A partition-only predicate's matching
// files match in all their rows (no row filter is evaluated); the scan line says so.
#include "commands/command.h"
#include "common/error_classes.h"

namespace silt::commands {

Result<std::string> ExplainDml(const sql::Statement& stmt, CommandContext& ctx) {
  const sql::TableName* table = nullptr;
  const sql::ParsedExpr* where = nullptr;
  std::string alias;
  std::string text;
  if (stmt.kind == sql::StatementKind::kDelete) {
    const auto& d = static_cast<const sql::DeleteStatement&>(stmt);
    table = &d.table;
    where = d.where.get();
    alias = d.alias;
    text = "DeleteCommand";
  } else if (stmt.kind == sql::StatementKind::kUpdate) {
    const auto& u = static_cast<const sql::UpdateStatement&>(stmt);
    table = &u.table;
    where = u.where.get();
    alias = u.alias;
    text = "UpdateCommand";
  } else {
    return Status::NotImplemented("EXPLAIN of this statement is not supported yet",
                                  errc::kNotImplemented);
  }
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t, ResolveDmlTable(*table, "EXPLAIN", ctx));
  SILT_ASSIGN_OR_RETURN(BoundDmlTarget b,
                        BindDmlTarget(std::move(t), *table, alias, where,
                                      {.row_validator = false, .scan = true}, ctx));
  planner::LogicalNode& scan = b.scan;
  const TablePredicate& pred = b.predicate;
  scan.table_name = b.table.display_name;
  text += " " + scan.table_name;
  if (stmt.kind == sql::StatementKind::kUpdate) {
    const auto& u = static_cast<const sql::UpdateStatement&>(stmt);
    text += " set=[";
    for (size_t i = 0; i < u.set.size(); ++i) {
      std::string col;
      for (const auto& part : u.set[i].column) col += (col.empty() ? "" : ".") + part;
      text += (i ? ", " : "") + col;
    }
    text += "]";
  }
  text += "\n+- DeltaScan " + planner::ScanDetails(scan);
  // IN subqueries' values prune as runtime filters (already run at bind time).
  int64_t before_dfp = -1, after_dfp = -1;
  for (const auto& [k, v] : b.skipping_metrics) {
    if (k == "numFilesBeforeDfp") before_dfp = v;
    if (k == "numFilesAfterDfp") after_dfp = v;
  }
  if (after_dfp >= 0) {
    text += " (dynamic file pruning: files: " + std::to_string(after_dfp) + " of " +
            std::to_string(before_dfp) + ")";
  }
  if (pred.expr && pred.partition_only)
    text += " (partition-only predicate: all rows of these files match)";
  return text + "\n";
}

}  // namespace silt::commands
