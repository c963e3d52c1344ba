// SHOW TBLPROPERTIES t [('key')] and SHOW COLUMNS IN t: what Spark shows for a Delta table — the
// table's configuration plus delta.minReaderVersion / delta.minWriterVersion and, for table
// features, delta.feature.<name> = supported (DeltaTableV2.properties).
#include <algorithm>
#include <set>

#include "commands/command.h"

namespace silt::commands {

Result<CommandResult> ShowTblProperties(const sql::ShowStatement& stmt, CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t, ctx.binder->ResolveTable(stmt.table, std::nullopt));
  std::vector<std::pair<std::string, std::string>> props;
  for (const auto& [k, v] : t.snapshot->metadata().configuration) props.emplace_back(k, v);
  const delta::Protocol& p = t.snapshot->protocol();
  props.emplace_back("delta.minReaderVersion", std::to_string(p.min_reader_version));
  props.emplace_back("delta.minWriterVersion", std::to_string(p.min_writer_version));
  std::set<std::string> features;
  if (p.reader_features) features.insert(p.reader_features->begin(), p.reader_features->end());
  if (p.writer_features) features.insert(p.writer_features->begin(), p.writer_features->end());
  for (const auto& f : features) props.emplace_back("delta.feature." + f, "supported");
  std::sort(props.begin(), props.end());
  std::vector<std::vector<std::string>> rows;
  if (!stmt.property_key.empty()) {
    auto it = std::find_if(props.begin(), props.end(), [&](const auto& kv) { return kv.first == stmt.property_key; });
    if (it == props.end()) {
      rows.push_back({stmt.property_key, "Table " + t.display_name + " does not have property: " + stmt.property_key});
    } else {
      rows.push_back({it->first, it->second});
    }
  } else {
    for (const auto& [k, v] : props) rows.push_back({k, v});
  }
  return StringRows({"key", "value"}, rows);
}

Result<CommandResult> ShowColumns(const sql::ShowStatement& stmt, CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t, ctx.binder->ResolveTable(stmt.table, std::nullopt));
  std::vector<std::vector<std::string>> rows;
  for (const auto& f : t.snapshot->schema()) rows.push_back({f.name});
  return StringRows({"col_name"}, rows);
}

}  // namespace silt::commands
