// CREATE SCHEMA, DROP SCHEMA, USE, SHOW SCHEMAS.
#include <regex>

#include "commands/command.h"
#include "common/error_classes.h"

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
    std::string alt =
        pattern.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
    std::string re;
    for (char c : planner::LowerName(alt)) {
      if (c == '*')
        re += ".*";
      else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_')
        re += c;
      else
        re += std::string("\\") + c;
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
        return Status::NotImplemented(
            "CREATE SCHEMA … LOCATION is not supported; schemas live in the warehouse",
            errc::kNotImplemented);
      }
      SILT_RETURN_NOT_OK(ctx.catalog->CreateSchema(SingleName(s.name), s.if_not_exists, s.comment));
      return CommandResult{};
    }
    case sql::StatementKind::kDropSchema: {
      const auto& s = static_cast<const sql::DropSchemaStatement&>(stmt);
      std::string name = planner::LowerName(SingleName(s.name));
      if (name == *ctx.current_schema && name != planner::Catalog::kDefaultSchema &&
          ctx.catalog->SchemaExists(name)) {
        *ctx.current_schema = planner::Catalog::kDefaultSchema;
      }
      SILT_RETURN_NOT_OK(ctx.catalog->DropSchema(name, s.if_exists, s.cascade));
      return CommandResult{};
    }
    case sql::StatementKind::kUse: {
      const auto& s = static_cast<const sql::UseStatement&>(stmt);
      std::string name = planner::LowerName(SingleName(s.name));
      if (!ctx.catalog->SchemaExists(name)) {
        return Status::NotFound("The schema `" + name + "` cannot be found.",
                                errc::kSchemaNotFound);
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
  std::string schema =
      planner::LowerName(stmt.schema.empty() ? *ctx.current_schema : SingleName(stmt.schema));
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

}  // namespace silt::commands
