// CREATE SCHEMA, DROP SCHEMA, USE, SHOW SCHEMAS.
#include <regex>

#include "commands/command.h"

namespace silt::commands {

namespace {
std::string SingleName(const std::vector<std::string>& parts) {
  // spark_catalog.db → db
  if (parts.size() == 2 && planner::LowerName(parts[0]) == "spark_catalog") return parts[1];
  return parts.empty() ? "" : parts.back();
}
}  // namespace

// Spark's SHOW … LIKE pattern: '*' matches anything, '|' separates alternatives, case-insensitive.
bool MatchesShowPattern(const std::string& name, const std::string& pattern) {
  if (pattern.empty()) return true;
  size_t start = 0;
  while (start <= pattern.size()) {
    size_t bar = pattern.find('|', start);
    std::string alt = pattern.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
    std::string re;
    for (char c : planner::LowerName(alt)) {
      if (c == '*') re += ".*";
      else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') re += c;
      else re += std::string("\\") + c;
    }
    if (std::regex_match(planner::LowerName(name), std::regex(re))) return true;
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  return false;
}

Result<CommandResult> SchemaCommand(const sql::Statement& stmt, CommandContext& ctx) {
  switch (stmt.kind) {
    case sql::StatementKind::kCreateSchema: {
      const auto& s = static_cast<const sql::CreateSchemaStatement&>(stmt);
      if (!s.location.empty()) {
        return Status::NotImplemented("CREATE SCHEMA … LOCATION is not supported; schemas live in the warehouse",
                                      "NOT_IMPLEMENTED");
      }
      SILT_RETURN_NOT_OK(ctx.catalog->CreateSchema(SingleName(s.name), s.if_not_exists, s.comment));
      return CommandResult{};
    }
    case sql::StatementKind::kDropSchema: {
      const auto& s = static_cast<const sql::DropSchemaStatement&>(stmt);
      std::string name = planner::LowerName(SingleName(s.name));
      if (name == *ctx.current_schema && name != planner::Catalog::kDefaultSchema && ctx.catalog->SchemaExists(name)) {
        *ctx.current_schema = planner::Catalog::kDefaultSchema;
      }
      SILT_RETURN_NOT_OK(ctx.catalog->DropSchema(name, s.if_exists, s.cascade));
      return CommandResult{};
    }
    case sql::StatementKind::kUse: {
      const auto& s = static_cast<const sql::UseStatement&>(stmt);
      std::string name = planner::LowerName(SingleName(s.name));
      if (!ctx.catalog->SchemaExists(name)) {
        return Status::NotFound("[SCHEMA_NOT_FOUND] The schema `" + name + "` cannot be found.", "SCHEMA_NOT_FOUND");
      }
      *ctx.current_schema = name;
      return CommandResult{};
    }
    case sql::StatementKind::kShowSchemas: {
      const auto& s = static_cast<const sql::ShowStatement&>(stmt);
      std::vector<std::vector<std::string>> rows;
      for (const auto& n : ctx.catalog->ListSchemas()) {
        if (MatchesShowPattern(n, s.pattern)) rows.push_back({n});
      }
      return StringRows({"namespace"}, rows);
    }
    default:
      return Status::Internal("not a schema statement");
  }
}

Result<CommandResult> ShowTables(const sql::ShowStatement& stmt, CommandContext& ctx) {
  std::string schema = planner::LowerName(stmt.schema.empty() ? *ctx.current_schema : SingleName(stmt.schema));
  SILT_ASSIGN_OR_RETURN(std::vector<std::string> tables, ctx.catalog->ListTables(schema));
  CommandResult r;
  r.schema = {{"namespace", DataType::String(), false, "{}"},
              {"tableName", DataType::String(), false, "{}"},
              {"isTemporary", DataType::Boolean(), false, "{}"}};
  DataChunk c;
  c.columns.emplace_back(DataType::String());
  c.columns.emplace_back(DataType::String());
  c.columns.emplace_back(DataType::Boolean());
  for (const auto& t : tables) {
    if (!MatchesShowPattern(t, stmt.pattern)) continue;
    c.columns[0].AppendString(schema);
    c.columns[1].AppendString(t);
    c.columns[2].Append<uint8_t>(0);
  }
  // Temporary views are listed with every schema, with an empty namespace (as Spark does).
  for (const auto& [name, view] : *ctx.temp_views) {
    if (!MatchesShowPattern(name, stmt.pattern)) continue;
    c.columns[0].AppendString("");
    c.columns[1].AppendString(name);
    c.columns[2].Append<uint8_t>(1);
  }
  if (c.size()) r.chunks.push_back(std::move(c));
  return r;
}

Result<CommandResult> SetCommand(const sql::Statement& stmt, CommandContext& ctx) {
  if (stmt.kind == sql::StatementKind::kReset) {
    const auto& s = static_cast<const sql::ResetStatement&>(stmt);
    if (s.key.empty()) ctx.config->ResetAll();
    else ctx.config->Reset(s.key);
    return CommandResult{};
  }
  const auto& s = static_cast<const sql::SetStatement&>(stmt);
  if (s.verbose) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& k : planner::KnownConfigKeys()) rows.push_back({k.key, *ctx.config->Get(k.key), k.doc});
    return StringRows({"key", "value", "meaning"}, rows);
  }
  if (s.key.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& [k, v] : ctx.config->values()) rows.push_back({k, v});
    return StringRows({"key", "value"}, rows);
  }
  if (s.value) {
    SILT_RETURN_NOT_OK(ctx.config->Set(s.key, *s.value));
    return StringRows({"key", "value"}, {{s.key, *s.value}});
  }
  auto v = ctx.config->Get(s.key);
  return StringRows({"key", "value"}, {{s.key, v ? *v : "<undefined>"}});
}

Result<CommandResult> DescribeTable(const sql::DescribeStatement& stmt, CommandContext& ctx) {
  std::vector<std::vector<std::string>> rows;
  if (stmt.query) {
    // DESCRIBE QUERY: the output schema of the query.
    SILT_ASSIGN_OR_RETURN(planner::PlanPtr plan, ctx.binder->BindQuery(*stmt.query));
    for (const auto& c : plan->columns) rows.push_back({c.name, c.type->ToString(), "NULL"});
    return StringRows({"col_name", "data_type", "comment"}, rows);
  }
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t, ctx.binder->ResolveTable(stmt.table, stmt.time_travel));
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
      if (fi >= 0) rows.push_back({schema[fi].name, schema[fi].type->ToString(), comment_of(schema[fi])});
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
    rows.push_back({"Provider", "delta", ""});
    std::string props = "[";
    for (const auto& [k, v] : t.snapshot->metadata().configuration.entries()) props += (props.size() > 1 ? "," : "") + k + "=" + v;
    rows.push_back({"Table Properties", props + "]", ""});
  }
  return StringRows({"col_name", "data_type", "comment"}, rows);
}

}  // namespace silt::commands
