// OPTIMIZE t [WHERE partition_pred] [ZORDER BY (cols)]: resolve the table, check that WHERE names
// only partition columns, map session settings and table properties to OptimizeOptions, return
// Spark's (path, metrics) row. REORG TABLE (reorg.cc) shares the options and the result row.
#include "ops/optimize.h"

#include "commands/command.h"
#include "common/error_classes.h"
#include "delta/clustering.h"

namespace silt::commands {

Result<ops::OptimizeOptions> OptimizeStatementOptions(const planner::ResolvedTable& t,
                                                      const sql::ParsedExpr* where,
                                                      CommandContext& ctx) {
  ops::OptimizeOptions o;
  o.clock = ctx.clock;
  o.pool = ctx.pool;
  o.cancelled = ctx.cancelled;
  o.read_confinement = t.snapshot->read_confinement();
  SILT_ASSIGN_OR_RETURN(o.row_validator,
                        MakeRowValidator(t.snapshot->metadata(), t.snapshot->schema(), ctx));
  o.max_file_size = ctx.config->GetBytes("spark.databricks.delta.optimize.maxFileSize", 1LL << 30);
  if (auto p = t.snapshot->property("delta.targetFileSize")) {
    if (auto v = planner::ParseByteSize(*p)) o.max_file_size = *v;
  }
  o.min_file_size =
      ctx.config->GetBytes("spark.databricks.delta.optimize.minFileSize", o.max_file_size);
  o.clustering_min_cube_size = ctx.config->GetBytes(
      "spark.databricks.delta.optimize.clustering.mergeStrategy.minCubeSize.threshold",
      o.clustering_min_cube_size);
  o.clustering_target_cube_size = ctx.config->GetBytes(
      "spark.databricks.delta.optimize.clustering.mergeStrategy.minCubeSize.targetCubeSize",
      o.clustering_target_cube_size);
  if (auto r = ctx.config->Get("spark.databricks.delta.optimize.maxDeletedRowsRatio")) {
    char* end = nullptr;
    double v = std::strtod(r->c_str(), &end);
    if (!end || *end || v < 0 || v > 1) {
      return Status::InvalidArgument(
          "spark.databricks.delta.optimize.maxDeletedRowsRatio must be in [0, 1]",
          errc::kInvalidConfValue);
    }
    o.max_deleted_rows_ratio = v;
  }
  if (where) {
    SILT_ASSIGN_OR_RETURN(TablePredicate pred, BindTablePredicate(where, *t.snapshot, "", ctx));
    if (!pred.partition_only) {
      std::string parts;
      for (const auto& p : t.snapshot->partition_columns())
        parts += (parts.empty() ? "" : ", ") + p;
      return Status::InvalidArgument(
          "Predicate references non-partition column '" +
              (pred.columns.empty() ? std::string("?") : pred.columns[0]) +
              "'. Only the partition columns may be referenced: [" + parts + "]",
          errc::kDeltaNonPartitionColumnReference);
    }
    auto snap = t.snapshot;
    exec::EvalContext eval = ctx.binder->context().eval;
    o.partition_filter = [pred, snap, eval](const delta::AddFile& f) {
      return PartitionMatches(pred, *snap, f, eval);
    };
    o.predicate_text = "\"" + pred.sql + "\"";
  }
  return o;
}

Result<CommandResult> RunOptimize(const planner::ResolvedTable& t, const ops::OptimizeOptions& o,
                                  CommandContext& ctx) {
  if (ctx.plan_optimize) {
    SILT_RETURN_NOT_OK(ctx.plan_optimize(t, o));
    return CommandResult{};
  }
  SILT_ASSIGN_OR_RETURN(ops::OptimizeResult r, ops::Optimize(t.store, o));
  CommandResult out;
  out.schema = ops::OptimizeResultSchema();
  SILT_ASSIGN_OR_RETURN(DataChunk c, ops::OptimizeResultChunk(r));
  out.chunks.push_back(std::move(c));
  return out;
}

Result<CommandResult> OptimizeTable(const sql::OptimizeStatement& stmt, CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t,
                        ctx.binder->ResolveTable(stmt.table, std::nullopt));
  SILT_RETURN_NOT_OK(planner::ExpectTable(t, "OPTIMIZE"));
  // Clustered tables (Delta's OptimizeTableCommand): no WHERE, no ZORDER BY; FULL needs
  // clustering columns (ops::Optimize checks those two again for API callers).
  if (delta::IsClusteredTable(*t.snapshot)) {
    if (stmt.where) {
      return Status::Unsupported(
          "OPTIMIZE command for Delta table with clustering doesn't support partition "
          "predicates. Please remove the predicates (the WHERE clause).",
          errc::kDeltaClusteringWithPartitionPredicate);
    }
    if (!stmt.zorder_by.empty()) {
      std::string z;
      for (const auto& path : stmt.zorder_by) {
        std::string dotted;
        for (const auto& p : path) dotted += (dotted.empty() ? "" : ".") + p;
        z += (z.empty() ? "" : ", ") + dotted;
      }
      return Status::InvalidArgument(
          "OPTIMIZE command for Delta table with clustering cannot specify ZORDER BY. Please "
          "remove ZORDER BY (" +
              z + ").",
          errc::kDeltaClusteringWithZorderBy);
    }
  }
  if (stmt.full) {
    SILT_ASSIGN_OR_RETURN(std::vector<std::string> clustering,
                          delta::ClusteringColumns(*t.snapshot));
    if (clustering.empty()) {
      return Status::Unsupported(
          "OPTIMIZE FULL is only supported for clustered tables with non-empty clustering "
          "columns.",
          errc::kDeltaOptimizeFullNotSupported);
    }
  }
  SILT_ASSIGN_OR_RETURN(ops::OptimizeOptions o, OptimizeStatementOptions(t, stmt.where.get(), ctx));
  o.full = stmt.full;
  if (!stmt.zorder_by.empty()) {
    o.mode = ops::OptimizeOptions::Mode::kZOrder;
    for (const auto& path : stmt.zorder_by) {
      if (path.size() != 1)
        return Status::NotImplemented("ZORDER BY nested fields is not implemented yet",
                                      errc::kNotImplemented);
      o.zorder_by.push_back(path[0]);
    }
  }
  return RunOptimize(t, o, ctx);
}

}  // namespace silt::commands
