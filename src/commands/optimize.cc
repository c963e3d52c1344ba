// OPTIMIZE t [WHERE partition_pred] [ZORDER BY (cols)] and REORG TABLE t [WHERE …] APPLY (PURGE):
// resolve the table, check that WHERE names only partition columns, map session settings and
// table properties to OptimizeOptions, return Spark's (path, metrics) row.
#include "commands/command.h"
#include "ops/optimize.h"

namespace silt::commands {

namespace {

Result<OptimizeOptions> CommonOptions(const planner::ResolvedTable& t, const sql::ParsedExpr* where, CommandContext& ctx) {
  OptimizeOptions o;
  o.clock = ctx.clock;
  o.pool = ctx.pool;
  SILT_ASSIGN_OR_RETURN(o.row_validator, MakeRowValidator(t.snapshot->metadata(), t.snapshot->schema(), ctx));
  o.max_file_size = ctx.config->GetBytes("spark.databricks.delta.optimize.maxFileSize", 1LL << 30);
  if (auto p = t.snapshot->property("delta.targetFileSize")) {
    if (auto v = planner::ParseByteSize(*p)) o.max_file_size = *v;
  }
  o.min_file_size = ctx.config->GetBytes("spark.databricks.delta.optimize.minFileSize", o.max_file_size);
  if (auto r = ctx.config->Get("spark.databricks.delta.optimize.maxDeletedRowsRatio")) {
    char* end = nullptr;
    double v = std::strtod(r->c_str(), &end);
    if (!end || *end || v < 0 || v > 1) {
      return Status::InvalidArgument("[INVALID_CONF_VALUE] spark.databricks.delta.optimize.maxDeletedRowsRatio must be in [0, 1]",
                                     "INVALID_CONF_VALUE");
    }
    o.max_deleted_rows_ratio = v;
  }
  if (where) {
    SILT_ASSIGN_OR_RETURN(TablePredicate pred, BindTablePredicate(where, *t.snapshot, "", ctx));
    if (!pred.partition_only) {
      std::string parts;
      for (const auto& p : t.snapshot->partition_columns()) parts += (parts.empty() ? "" : ", ") + p;
      return Status::InvalidArgument("[DELTA_NON_PARTITION_COLUMN_REFERENCE] Predicate references non-partition column '" +
                                         (pred.columns.empty() ? std::string("?") : pred.columns[0]) +
                                         "'. Only the partition columns may be referenced: [" + parts + "]",
                                     "DELTA_NON_PARTITION_COLUMN_REFERENCE");
    }
    auto snap = t.snapshot;
    exec::EvalContext eval = ctx.binder->context().eval;
    o.partition_filter = [pred, snap, eval](const delta::AddFile& f) { return PartitionMatches(pred, *snap, f, eval); };
    o.predicate_text = "\"" + pred.sql + "\"";
  }
  return o;
}

Result<CommandResult> Run(const planner::ResolvedTable& t, const OptimizeOptions& o) {
  SILT_ASSIGN_OR_RETURN(OptimizeResult r, Optimize(t.store, o));
  CommandResult out;
  out.schema = OptimizeResultSchema();
  SILT_ASSIGN_OR_RETURN(DataChunk c, OptimizeResultChunk(r));
  out.chunks.push_back(std::move(c));
  return out;
}

}  // namespace

Result<CommandResult> OptimizeTable(const sql::OptimizeStatement& stmt, CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t, ctx.binder->ResolveTable(stmt.table, std::nullopt));
  SILT_RETURN_NOT_OK(planner::ExpectTable(t, "OPTIMIZE"));
  if (stmt.full) {
    return Status::InvalidArgument("[DELTA_CLUSTERING_NOT_ENABLED] OPTIMIZE FULL is only for tables with liquid clustering.",
                                   "DELTA_OPTIMIZE_FULL_NOT_SUPPORTED");
  }
  SILT_ASSIGN_OR_RETURN(OptimizeOptions o, CommonOptions(t, stmt.where.get(), ctx));
  if (!stmt.zorder_by.empty()) {
    o.mode = OptimizeOptions::Mode::kZOrder;
    for (const auto& path : stmt.zorder_by) {
      if (path.size() != 1) return Status::NotImplemented("ZORDER BY nested fields is not implemented yet", "NOT_IMPLEMENTED");
      o.zorder_by.push_back(path[0]);
    }
  }
  return Run(t, o);
}

Result<CommandResult> ReorgTable(const sql::ReorgStatement& stmt, CommandContext& ctx) {
  if (planner::LowerName(stmt.apply) != "purge") {
    return Status::NotImplemented("REORG TABLE … APPLY (" + stmt.apply + ") is not implemented; only APPLY (PURGE) is",
                                  "NOT_IMPLEMENTED");
  }
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t, ctx.binder->ResolveTable(stmt.table, std::nullopt));
  SILT_RETURN_NOT_OK(planner::ExpectTable(t, "REORG TABLE"));
  SILT_ASSIGN_OR_RETURN(OptimizeOptions o, CommonOptions(t, stmt.where.get(), ctx));
  o.mode = OptimizeOptions::Mode::kReorgPurge;
  return Run(t, o);
}

}  // namespace silt::commands
