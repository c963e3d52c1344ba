// VACUUM as a SQL statement: resolves the table and the inventory, maps session settings to
// VacuumOptions (docs/vacuum.md has the table) and shapes Spark's output.
#include "ops/vacuum.h"

#include "commands/command.h"
#include "common/error_classes.h"
#include "common/thread_pool.h"

namespace silt::commands {

Result<CommandResult> VacuumTable(const sql::VacuumStatement& stmt, CommandContext& ctx) {
  // Without the file list: VACUUM streams the file actions it needs (LITE only probes the few
  // paths its commits name), so a 1M-file table is never materialised.
  auto resolved = ctx.binder->ResolveTable(stmt.table, std::nullopt, false, /*load_files=*/false);
  if (!resolved.ok() && resolved.status().error_class() == errc::kDeltaUnsupportedFeaturesForRead) {
    // The binder's snapshot load refuses a catalogManaged table (a reader feature) before VACUUM
    // can: the user is owed the catalog's error, as Vacuum() gives it for a store (§1.4).
    std::string_view msg = resolved.status().message();
    if (msg.find("catalogManaged") != std::string_view::npos ||
        msg.find("catalogOwned-preview") != std::string_view::npos) {
      return Status::Unsupported(
          "VACUUM is blocked by the catalog for Catalog-Managed tables. (" +
              (stmt.table.is_path() ? stmt.table.path : stmt.table.ToString()) + ")",
          ops::kErrorCatalogManagedOperation);
    }
  }
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable table, std::move(resolved));
  if (table.is_view) {
    return Status::InvalidArgument(
        table.display_name + " is not a Delta table. VACUUM is only supported for Delta tables.",
        ops::kErrorTableOnlyOperation);
  }
  SILT_RETURN_NOT_OK(planner::ExpectTable(table, "VACUUM"));  // system tables are read-only
  ops::VacuumOptions opts;
  opts.retain_hours = stmt.retain_hours;
  opts.dry_run = stmt.dry_run;
  opts.mode = stmt.type == "lite" ? ops::VacuumMode::kLite : ops::VacuumMode::kFull;
  opts.retention_check_enabled =
      ctx.config->GetBool("spark.databricks.delta.retentionDurationCheck.enabled", true);
  opts.logging_enabled = ctx.config->GetBool("spark.databricks.delta.vacuum.logging.enabled", true);
  opts.relativize_ignore_error =
      ctx.config->GetBool("spark.databricks.delta.vacuum.relativize.ignoreError", false);
  if (auto mode = ctx.config->Get("silt.vacuum.retainArgumentMode");
      mode && planner::LowerName(*mode) == "ignorenonzero") {
    opts.retain_argument_mode = ops::RetainArgumentMode::kIgnoreNonZero;
  }
  // [silt decision] parallel by default (Spark: off); the conf set to false deletes in this thread.
  if (ctx.config->GetBool("spark.databricks.delta.vacuum.parallelDelete.enabled", true))
    opts.delete_pool = ctx.pool;
  // [silt decision] the FULL listing reads directories in parallel on the statement's pool.
  if (ctx.config->GetBool("silt.vacuum.parallelListing.enabled", true)) opts.list_pool = ctx.pool;
  opts.log_pool = ctx.pool;
  if (ctx.delete_files) {
    opts.delete_files = [&](std::span<const std::string_view> keys, std::span<Status> statuses) {
      ctx.delete_files(table.location, keys, statuses);
    };
  }
  opts.clock = ctx.clock;
  if (ctx.progress || ctx.cancelled) {
    opts.progress = [&](const ops::VacuumProgress& p) -> Status {
      if (ctx.cancelled && ctx.cancelled->load()) return Status::Cancelled("VACUUM cancelled");
      if (!ctx.progress) return Status::OK();
      if (p.phase == ops::VacuumProgress::Phase::kListing) {
        ctx.progress("VACUUM: " + std::to_string(p.listed) + " listed");
      } else {
        ctx.progress("VACUUM: " + std::to_string(p.deleted) + " of " + std::to_string(p.to_delete) +
                     " deleted, " + std::to_string(p.listed) + " listed");
      }
      return Status::OK();
    };
  }
  if (stmt.inventory_table || stmt.inventory_query) {
    planner::PlanPtr plan;
    if (stmt.inventory_table) {
      SILT_ASSIGN_OR_RETURN(planner::ResolvedTable inv,
                            ctx.binder->ResolveTable(*stmt.inventory_table, std::nullopt));
      SILT_ASSIGN_OR_RETURN(plan, ctx.binder->ScanPlan(inv, ""));
    } else {
      SILT_ASSIGN_OR_RETURN(plan, ctx.binder->BindQuery(*stmt.inventory_query));
    }
    Schema schema;
    for (const auto& c : plan->columns) schema.push_back({c.name, c.type, c.nullable, "{}"});
    SILT_RETURN_NOT_OK(ops::ValidateInventorySchema(schema));  // not .status(): it would dangle
    SILT_ASSIGN_OR_RETURN(std::vector<DataChunk> rows, ctx.run_plan(plan));
    SILT_ASSIGN_OR_RETURN(opts.inventory, ops::InventoryFromChunks(schema, rows));
  }
  // Resolution loaded the latest snapshot a moment ago: VACUUM uses that one.
  if (table.snapshot && table.snapshot->version() >= 0) opts.snapshot = table.snapshot;
  if (!table.store) {
    SILT_ASSIGN_OR_RETURN(table.store, planner::OpenTableStore(table.location, ctx.clock));
  }
  SILT_ASSIGN_OR_RETURN(ops::VacuumResult r, ops::Vacuum(table.store, opts));
  if (stmt.dry_run) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& c : r.candidates) rows.push_back({c.path});
    return StringRows({"path"}, rows);
  }
  return StringRows({"path"}, {{r.table_path}});
}

}  // namespace silt::commands
