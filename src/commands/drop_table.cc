// DROP TABLE [IF EXISTS] name: unregisters a catalog table (or drops a temporary view of that
// name, as Spark does); a managed table's directory is deleted with it.

#include "commands/command.h"
#include "common/error_classes.h"
#include "io/object_store_factory.h"

namespace silt::commands {

Result<CommandResult> DropTable(const sql::DropTableStatement& stmt, CommandContext& ctx) {
  if (stmt.name.is_path()) {
    return Status::InvalidArgument("DROP TABLE needs a catalog table name, not a path",
                                   errc::kInvalidSqlSyntax);
  }
  if (planner::IsSystemTableName(stmt.name)) {
    return Status::InvalidArgument(
        "The feature is not supported: Table `" + stmt.name.ToString() +
            "` does not support DROP TABLE. It is a read-only system table written by the "
            "maintenance service.",
        errc::kUnsupportedFeatureTableOperation);
  }
  std::string schema =
      planner::LowerName(stmt.name.parts.size() >= 2 ? stmt.name.parts[stmt.name.parts.size() - 2]
                                                     : *ctx.current_schema);
  // Spark's DROP TABLE drops a temporary view of that name too.
  if (stmt.name.parts.size() == 1 && ctx.temp_views->erase(planner::LowerName(stmt.name.parts[0])))
    return CommandResult{};
  Result<planner::TableEntry> e = ctx.catalog->GetTable(schema, stmt.name.parts.back());
  if (!e.ok()) {
    if (stmt.if_exists && e.status().code() == StatusCode::kNotFound) return CommandResult{};
    return Status::NotFound("The table or view `" + schema + "`.`" +
                                planner::LowerName(stmt.name.parts.back()) + "` cannot be found.",
                            errc::kTableOrViewNotFound);
  }
  if (e->format == "view") {
    return Status::InvalidArgument(
        "The operation DROP TABLE requires a TABLE. But `spark_catalog`.`" + e->schema + "`.`" +
            e->name + "` is a VIEW. Use DROP VIEW instead.",
        errc::kWrongCommandForObjectType);
  }
  SILT_RETURN_NOT_OK(ctx.catalog->UnregisterTable(e->schema, e->name));
  if (e->managed) {
    // Best effort, as before: a failed removal leaves files behind but the table is dropped.
    (void)DeleteLocation(e->location);
  }
  return CommandResult{};
}

}  // namespace silt::commands
