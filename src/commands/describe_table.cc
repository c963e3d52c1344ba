// DESCRIBE [TABLE] [EXTENDED] t [time travel] and DESCRIBE QUERY q: columns, partition columns and,
// with EXTENDED, the table's catalog details (Spark's col_name, data_type, comment rows).
#include "commands/command.h"
#include "delta/clustering.h"
#include "delta/operations_history.h"

namespace silt::commands {

Result<CommandResult> DescribeTable(const sql::DescribeStatement& stmt, CommandContext& ctx) {
  std::vector<std::vector<std::string>> rows;
  if (stmt.query) {
    // DESCRIBE QUERY: the output schema of the query.
    SILT_ASSIGN_OR_RETURN(planner::PlanPtr plan, ctx.binder->BindQuery(*stmt.query));
    for (const auto& c : plan->columns) rows.push_back({c.name, c.type->ToString(), "NULL"});
    return StringRows({"col_name", "data_type", "comment"}, rows);
  }
  // A system table not written yet has no snapshot (must_exist=false) but its columns.
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t,
                        ctx.binder->ResolveTable(stmt.table, stmt.time_travel,
                                                 !planner::IsSystemTableName(stmt.table)));
  if (t.is_system && !t.snapshot) {
    for (const Field& f : delta::OperationsHistorySchema())
      rows.push_back({f.name, f.type->ToString(), "NULL"});
    if (stmt.extended) {
      rows.push_back({"", "", ""});
      rows.push_back({"# Detailed Table Information", "", ""});
      rows.push_back({"Location", t.location, ""});
      rows.push_back({"Provider", "delta", ""});
    }
    return StringRows({"col_name", "data_type", "comment"}, rows);
  }
  if (t.is_view) {
    SILT_ASSIGN_OR_RETURN(std::vector<planner::OutputColumn> columns, ViewColumns(stmt.table, ctx));
    for (const auto& c : columns) rows.push_back({c.name, c.type->ToString(), "NULL"});
    if (stmt.extended) {
      rows.push_back({"", "", ""});
      rows.push_back({"# Detailed Table Information", "", ""});
      if (!t.is_temp_view) {
        rows.push_back({"Catalog", "spark_catalog", ""});
        rows.push_back({"Database", t.entry->schema, ""});
      }
      rows.push_back({"Table", t.entry->name, ""});
      rows.push_back({"Type", t.is_temp_view ? "VIEW (temporary)" : "VIEW", ""});
      if (!t.entry->comment.empty()) rows.push_back({"Comment", t.entry->comment, ""});
      rows.push_back({"View Text", t.entry->view_text, ""});
      rows.push_back({"View Current Schema", t.entry->view_current_schema, ""});
    }
    return StringRows({"col_name", "data_type", "comment"}, rows);
  }
  auto comment_of = [](const Field& f) -> std::string {
    auto p = f.metadata_json.find("\"comment\":\"");
    if (p == std::string::npos) return "NULL";
    auto e = f.metadata_json.find('"', p + 11);
    return f.metadata_json.substr(p + 11, e - p - 11);
  };
  const Schema& schema = t.snapshot->schema();
  for (const Field& f : schema) rows.push_back({f.name, f.type->ToString(), comment_of(f)});
  const auto& parts = t.snapshot->partition_columns();
  if (!parts.empty()) {
    rows.push_back({"# Partition Information", "", ""});
    rows.push_back({"# col_name", "data_type", "comment"});
    for (const auto& p : parts) {
      int fi = FindField(schema, p);
      if (fi >= 0)
        rows.push_back({schema[fi].name, schema[fi].type->ToString(), comment_of(schema[fi])});
    }
  }
  // Spark 4's "# Clustering Information" section for a table with clustering columns.
  SILT_ASSIGN_OR_RETURN(std::vector<std::string> clustering, delta::ClusteringColumns(*t.snapshot));
  if (!clustering.empty()) {
    rows.push_back({"# Clustering Information", "", ""});
    rows.push_back({"# col_name", "data_type", "comment"});
    for (const auto& c : clustering) {
      int fi = FindField(schema, c);
      if (fi >= 0)
        rows.push_back({schema[fi].name, schema[fi].type->ToString(), comment_of(schema[fi])});
    }
  }
  if (stmt.extended) {
    rows.push_back({"", "", ""});
    rows.push_back({"# Detailed Table Information", "", ""});
    if (t.entry) {
      rows.push_back({"Catalog", "spark_catalog", ""});
      rows.push_back({"Database", t.entry->schema, ""});
      rows.push_back({"Table", t.entry->name, ""});
      rows.push_back({"Type", t.entry->managed ? "MANAGED" : "EXTERNAL", ""});
    }
    rows.push_back({"Location", t.location, ""});
    // File-source tables (planner/file_source.h) record their provider; the rest are Delta.
    rows.push_back(
        {"Provider", t.entry && t.entry->format != "view" ? t.entry->format : "delta", ""});
    std::string props = "[";
    for (const auto& [k, v] : t.snapshot->metadata().configuration.entries())
      props += (props.size() > 1 ? "," : "") + k + "=" + v;
    rows.push_back({"Table Properties", props + "]", ""});
  }
  return StringRows({"col_name", "data_type", "comment"}, rows);
}

}  // namespace silt::commands
