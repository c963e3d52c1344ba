// CONVERT TO DELTA parquet.`/path` [NO STATISTICS] [PARTITIONED BY (col TYPE, ...)]: maps the
// statement and session settings to ops::ConvertToDelta (ops/convert_to_delta.h has the
// semantics). Already a Delta table (a log exists, or the delta.`path` form): success, nothing
// done. No rows are returned. A catalog name can only refer to a Delta table or a view in
// silt's catalog.

#include "ops/convert_to_delta.h"

#include "commands/command.h"
#include "common/error_classes.h"

namespace silt::commands {

Result<CommandResult> ConvertToDelta(const sql::ConvertToDeltaStatement& stmt,
                                     CommandContext& ctx) {
  const sql::TableName& name = stmt.table;
  if (name.is_path()) {
    const std::string fmt = planner::LowerName(name.path_format);
    if (fmt == "delta") return CommandResult{};  // already Delta: Spark makes CONVERT idempotent
    if (fmt != "parquet") {
      return Status::InvalidArgument(
          "CONVERT TO DELTA only supports parquet tables, "
          "but you are trying to convert a " +
              fmt + " source: " + fmt + ".`" + name.path + "`",
          errc::kDeltaConvertNonParquetTable);
    }
    SILT_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> store,
                          planner::OpenTableStore(name.path, ctx.clock));
    ops::ConvertOptions options;
    options.clock = ctx.clock;
    for (const auto& c : stmt.partition_schema)
      options.partition_columns.push_back({c.name, c.type});
    options.collect_stats =
        !stmt.no_statistics && ctx.config->GetBool("spark.databricks.delta.stats.collect", true);
    options.ignore_partition_cast_failure = ctx.config->GetBool(
        "spark.databricks.delta.convert.partitionValues.ignoreCastFailure", false);
    options.enable_deletion_vectors = ctx.config->GetBool(
        "spark.databricks.delta.properties.defaults.enableDeletionVectors", true);
    options.display_path = name.path;
    Result<ops::ConvertResult> converted =
        ops::ConvertToDelta(store, options);  // kept: status() refers into it
    SILT_RETURN_NOT_OK(converted.status());
    return CommandResult{};
  }
  // silt's catalog holds Delta tables and views only: a Delta table is already converted.
  Result<planner::ResolvedTable> resolved =
      ctx.binder->ResolveTable(name, nullptr, /*must_exist=*/false);
  if (!resolved.ok()) {
    if (resolved.status().code() == StatusCode::kNotFound) {
      std::string schema =
          name.parts.size() >= 2 ? name.parts[name.parts.size() - 2] : *ctx.current_schema;
      std::string location = ctx.catalog->ManagedLocation(planner::LowerName(schema),
                                                          planner::LowerName(name.parts.back()));
      Result<std::shared_ptr<ObjectStore>> dir = planner::OpenTableStore(location, ctx.clock);
      Result<bool> dir_exists = dir.ok() ? (*dir)->DirExists("") : Result<bool>(false);
      if (dir_exists.ok() && *dir_exists) {
        return Status::NotImplemented(
            "silt's catalog holds only Delta tables and views, so " + name.ToString() +
                " cannot be a Parquet catalog table; convert its directory with "
                "CONVERT TO DELTA parquet.`" +
                location + "`",
            errc::kNotImplemented);
      }
    }
    return resolved.status();
  }
  if (resolved->is_view) {
    return Status::InvalidArgument(
        "Operation not allowed: `Converting a view to a Delta "
        "table` is not supported for Delta tables",
        errc::kDeltaOperationNotAllowed);
  }
  return CommandResult{};
}

}  // namespace silt::commands
