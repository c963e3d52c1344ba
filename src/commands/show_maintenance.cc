// SHOW MAINTENANCE t: what each maintenance job would do on the table now (the advisor,
// maintenance/advisor.h), one row per job: job, due, action, files, bytes, rows, detail.
// docs/maintenance.md documents the columns. Reads the log and the file statistics only.
#include "commands/command.h"
#include "common/error_classes.h"
#include "maintenance/advisor.h"

namespace silt::commands {

Result<CommandResult> ShowMaintenance(const sql::ShowStatement& stmt, CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t,
                        ctx.binder->ResolveTable(stmt.table, std::nullopt));
  SILT_RETURN_NOT_OK(planner::ExpectTable(t, "SHOW MAINTENANCE"));
  if (!t.snapshot) {
    return Status::NotFound("Delta table " + t.display_name + " doesn't exist.",
                            errc::kDeltaTableNotFound);
  }
  planner::SessionConfig* config = ctx.config;
  maintenance::ConfigLookup lookup =
      [config](const std::string& key) -> std::optional<std::string> {
    return config ? config->Get(key) : std::nullopt;
  };
  maintenance::AdvisorOptions o;
  SILT_ASSIGN_OR_RETURN(o.thresholds,
                        maintenance::LoadThresholds(lookup, t.snapshot->metadata().configuration));
  o.clock = ctx.clock;
  SILT_ASSIGN_OR_RETURN(maintenance::TableAdvice advice, maintenance::Advise(*t.snapshot, o));
  CommandResult r;
  r.schema = {{"job", DataType::String(), false, "{}"},   {"due", DataType::Boolean(), false, "{}"},
              {"action", DataType::String(), true, "{}"}, {"files", DataType::Int64(), false, "{}"},
              {"bytes", DataType::Int64(), false, "{}"},  {"rows", DataType::Int64(), true, "{}"},
              {"detail", DataType::String(), false, "{}"}};
  DataChunk c = DataChunk::FromSchema(r.schema);
  for (const maintenance::AdviceRow& row : maintenance::AdviceRows(advice, t.display_name)) {
    std::vector<Value> v{Value::String(row.job),
                         Value::Boolean(row.due),
                         row.action ? Value::String(*row.action) : Value::Null(DataType::String()),
                         Value::Int64(row.files),
                         Value::Int64(row.bytes),
                         row.rows ? Value::Int64(*row.rows) : Value::Null(DataType::Int64()),
                         Value::String(row.detail)};
    for (size_t i = 0; i < v.size(); ++i) SILT_RETURN_NOT_OK(c.columns[i].AppendValue(v[i]));
  }
  r.chunks.push_back(std::move(c));
  return r;
}

}  // namespace silt::commands
