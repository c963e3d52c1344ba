// CREATE [OR REPLACE] [TEMPORARY] VIEW and DROP VIEW.
//
// A view stores its query as written; every use binds it again (planner::Binder::BindView), so
// it sees the tables' current snapshots, as Spark's views do. Temporary views live in the
// session (Connection) and shadow catalog tables of the same one-part name; persistent views are
// catalog entries of format "view" and may not refer to temporary views.
#include <tuple>

#include "commands/command.h"
#include "common/error_classes.h"

namespace silt::commands {

namespace {

std::string Quoted(const std::string& schema, const std::string& name) {
  return schema.empty() ? "`" + name + "`" : "`spark_catalog`.`" + schema + "`.`" + name + "`";
}

Status AlreadyExists(const std::string& quoted, bool temporary) {
  if (temporary) {
    return Status::AlreadyExists(
        "Cannot create the temporary view " + quoted + " because it already exists.",
        errc::kTempTableOrViewAlreadyExists);
  }
  return Status::AlreadyExists(
      "Cannot create table or view " + quoted + " because it already exists.",
      errc::kTableOrViewAlreadyExists);
}

// schema.name of a persistent view or table name (one or two parts, or spark_catalog.schema.name).
Result<std::pair<std::string, std::string>> CatalogName(const sql::TableName& tn,
                                                        CommandContext& ctx) {
  if (tn.is_path()) {
    return Status::InvalidArgument("a view needs a name, not a path (" + tn.path + ")",
                                   errc::kInvalidSqlSyntax);
  }
  if (tn.parts.size() > 2 &&
      !(tn.parts.size() == 3 && planner::LowerName(tn.parts[0]) == "spark_catalog")) {
    return Status::InvalidArgument(tn.ToString() + " has too many name parts.",
                                   errc::kRequiresSinglePartNamespace);
  }
  std::string schema = planner::LowerName(tn.parts.size() >= 2 ? tn.parts[tn.parts.size() - 2]
                                                               : *ctx.current_schema);
  if (!ctx.catalog->SchemaExists(schema)) {
    return Status::NotFound("The schema `" + schema + "` cannot be found.", errc::kSchemaNotFound);
  }
  return std::make_pair(schema, planner::LowerName(tn.parts.back()));
}

}  // namespace

Result<CommandResult> CreateView(const sql::CreateViewStatement& stmt, CommandContext& ctx) {
  if (stmt.or_replace && stmt.if_not_exists) {
    return Status::InvalidArgument(
        "CREATE VIEW with both IF NOT EXISTS and REPLACE is not allowed.", errc::kInvalidSqlSyntax);
  }
  std::string schema, name;
  if (stmt.temporary) {
    if (stmt.name.is_path() || stmt.name.parts.size() != 1) {
      return Status::InvalidArgument(
          "CREATE TEMPORARY VIEW expects a single-part "
          "view name, but got: " +
              stmt.name.ToString() + ".",
          errc::kTempViewNameTooManyNameParts);
    }
    name = planner::LowerName(stmt.name.parts[0]);
    if (ctx.temp_views->count(name)) {
      if (stmt.if_not_exists) return CommandResult{};
      if (!stmt.or_replace) return AlreadyExists(Quoted("", name), true);
    }
  } else {
    SILT_ASSIGN_OR_RETURN(auto qualified, CatalogName(stmt.name, ctx));
    std::tie(schema, name) = qualified;
    Result<planner::TableEntry> existing = ctx.catalog->GetTable(schema, name);
    if (existing.ok()) {
      if (stmt.if_not_exists) return CommandResult{};
      if (existing->format != "view") {
        // Spark refuses to replace a table by a view, OR REPLACE or not.
        return Status::AlreadyExists(
            "The table " + Quoted(schema, name) + " is not a view; a view cannot replace it.",
            errc::kExpectViewNotTableNoAlternative);
      }
      if (!stmt.or_replace) return AlreadyExists(Quoted(schema, name), false);
    } else if (existing.status().code() != StatusCode::kNotFound) {
      return existing.status();
    }
  }

  // Bind the query now so that a broken view is refused at creation, with a fresh binder whose
  // record of expanded views tells whether the definition refers to itself.
  planner::Binder binder(ctx.binder->context());
  SILT_ASSIGN_OR_RETURN(planner::PlanPtr plan, binder.BindQuery(*stmt.query));
  std::string self_key = stmt.temporary ? name : schema + "." + name;
  if (binder.expanded_views().count(self_key)) {
    return Status::InvalidArgument(
        "Recursive view " + Quoted(schema, name) +
            " detected (cycle: the new definition refers to the view itself).",
        errc::kRecursiveView);
  }
  if (!stmt.temporary && binder.referenced_temp_view()) {
    return Status::InvalidArgument("Cannot create the persistent object " + Quoted(schema, name) +
                                       " of the type VIEW because it references a temporary view.",
                                   errc::kInvalidTempObjReference);
  }
  if (!stmt.column_aliases.empty() && stmt.column_aliases.size() != plan->columns.size()) {
    std::string cls = stmt.column_aliases.size() > plan->columns.size()
                          ? errc::kCreateViewColumnArityMismatchNotEnoughDataColumns
                          : errc::kCreateViewColumnArityMismatchTooManyDataColumns;
    return Status::InvalidArgument(
        "Cannot create view " + Quoted(schema, name) + ": the view has " +
            std::to_string(stmt.column_aliases.size()) + " columns but the query " +
            std::to_string(plan->columns.size()) + ".",
        cls);
  }
  std::vector<std::string> names = stmt.column_aliases;
  if (names.empty()) {
    for (const auto& c : plan->columns) names.push_back(c.name);
  }
  for (size_t i = 0; i < names.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (planner::LowerName(names[i]) == planner::LowerName(names[j])) {
        return Status::InvalidArgument(
            "The column `" + planner::LowerName(names[i]) + "` already exists.",
            errc::kColumnAlreadyExists);
      }
    }
  }

  if (stmt.temporary) {
    (*ctx.temp_views)[name] = planner::TempView{stmt.name.parts[0], stmt.query_text,
                                                stmt.column_aliases, *ctx.current_schema};
    return CommandResult{};
  }
  planner::TableEntry e;
  e.schema = schema;
  e.name = name;
  e.managed = false;
  e.format = "view";
  e.view_text = stmt.query_text;
  e.view_columns = stmt.column_aliases;
  e.view_current_schema = *ctx.current_schema;
  e.comment = stmt.comment;
  SILT_RETURN_NOT_OK(ctx.catalog->RegisterTable(e, /*replace=*/stmt.or_replace));
  return CommandResult{};
}

Result<std::vector<planner::OutputColumn>> ViewColumns(const sql::TableName& name,
                                                       CommandContext& ctx) {
  sql::TableRef ref;
  ref.kind = sql::TableRef::Kind::kTable;
  ref.name = name;
  SILT_ASSIGN_OR_RETURN(planner::PlanPtr plan, ctx.binder->BindTableRef(ref));
  return plan->columns;
}

Result<CommandResult> DropView(const sql::DropViewStatement& stmt, CommandContext& ctx) {
  if (!stmt.name.is_path() && stmt.name.parts.size() == 1 &&
      ctx.temp_views->erase(planner::LowerName(stmt.name.parts[0]))) {
    return CommandResult{};
  }
  SILT_ASSIGN_OR_RETURN(auto qualified, CatalogName(stmt.name, ctx));
  const auto& [schema, name] = qualified;
  Result<planner::TableEntry> e = ctx.catalog->GetTable(schema, name);
  if (!e.ok()) {
    if (e.status().code() != StatusCode::kNotFound) return e.status();
    if (stmt.if_exists) return CommandResult{};
    return Status::NotFound("The view " + Quoted(schema, name) + " cannot be found.",
                            errc::kTableOrViewNotFound);
  }
  if (e->format != "view") {
    return Status::InvalidArgument("The operation DROP VIEW requires a VIEW. But " +
                                       Quoted(schema, name) +
                                       " is a TABLE. Use DROP TABLE instead.",
                                   errc::kWrongCommandForObjectType);
  }
  SILT_RETURN_NOT_OK(ctx.catalog->UnregisterTable(schema, name));
  return CommandResult{};
}

}  // namespace silt::commands
