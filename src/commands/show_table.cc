// SHOW TBLPROPERTIES t [('key')], SHOW CREATE TABLE t and SHOW COLUMNS IN t, as Spark runs them
// for Delta (v2) tables. The properties are DeltaTableV2.properties minus Spark's reserved keys
// (provider, location, owner, comment, …): the table's configuration, delta.minReaderVersion,
// delta.minWriterVersion and, on table-features protocols, delta.feature.<name> = supported;
// listed sorted by key (ShowTablePropertiesExec / ShowCreateTableExec).
#include <simdjson.h>

#include <algorithm>
#include <map>
#include <set>

#include "commands/command.h"
#include "commands/streaming_table.h"
#include "common/ascii.h"
#include "common/error_classes.h"
#include "delta/clustering.h"
#include "planner/file_source.h"

namespace silt::commands {

namespace {

// DeltaTableV2.name(): the catalog identifier, or delta.`path`.
std::string V2Name(const planner::ResolvedTable& t) {
  if (t.entry && !t.is_temp_view) return "spark_catalog." + t.entry->schema + "." + t.entry->name;
  return t.display_name;
}

// Snapshot.getProperties without the reserved keys, sorted by key.
std::map<std::string, std::string> TableProperties(const delta::Snapshot& s) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : s.metadata().configuration.entries()) {
    if (k != "path") out[k] = v;
  }
  const delta::Protocol& p = s.protocol();
  out["delta.minReaderVersion"] = std::to_string(p.min_reader_version);
  out["delta.minWriterVersion"] = std::to_string(p.min_writer_version);
  std::set<std::string> features;
  if (p.reader_features) features.insert(p.reader_features->begin(), p.reader_features->end());
  if (p.writer_features) features.insert(p.writer_features->begin(), p.writer_features->end());
  for (const auto& f : features) out["delta.feature." + f] = "supported";
  return out;
}

// Spark's QuotingUtils.quoteIfNeeded.
std::string QuoteIfNeeded(const std::string& name) {
  bool plain = !name.empty();
  bool all_digits = true;
  for (char c : name) {
    bool alnum =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    plain = plain && alnum;
    all_digits = all_digits && c >= '0' && c <= '9';
  }
  if (plain && !all_digits) return name;
  std::string out = "`";
  for (char c : name) {
    out += c;
    if (c == '`') out += '`';
  }
  return out + "`";
}

std::string EscapeSingleQuoted(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  return out;
}

// The field's "comment" metadata, if any.
std::optional<std::string> CommentOf(const Field& f) {
  if (f.metadata_json.empty() || f.metadata_json == "{}") return std::nullopt;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(f.metadata_json).get(doc)) return std::nullopt;
  std::string_view c;
  if (doc["comment"].get(c)) return std::nullopt;
  return std::string(c);
}

// Spark's DataType.sql: "INT", "DECIMAL(10,2)", "ARRAY<INT>", "MAP<STRING, INT>",
// "STRUCT<a: INT, b: STRING NOT NULL>".
std::string SqlType(const DataType& t) {
  switch (t.id()) {
    case TypeId::kList:
      return "ARRAY<" + SqlType(*t.element_type()) + ">";
    case TypeId::kMap:
      return "MAP<" + SqlType(*t.key_type()) + ", " + SqlType(*t.value_type()) + ">";
    case TypeId::kStruct: {
      std::string out = "STRUCT<";
      for (size_t i = 0; i < t.fields().size(); ++i) {
        const Field& f = t.fields()[i];
        out += (i ? ", " : "") + QuoteIfNeeded(f.name) + ": " + SqlType(*f.type) +
               (f.nullable ? "" : " NOT NULL");
        if (auto c = CommentOf(f)) out += " COMMENT '" + EscapeSingleQuoted(*c) + "'";
      }
      return out + ">";
    }
    default: {
      return AsciiUpper(t.ToString());
    }
  }
}

std::string MultiLines(const std::vector<std::string>& items) {
  std::string out = "(\n  ";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ",\n  " : "") + items[i];
  return out + ")\n";
}

// CatalogUtils.URIToString of the table path: local paths as file:/… URIs.
std::string LocationUri(const std::string& location) {
  if (!location.empty() && location[0] == '/') return "file:" + location;
  if (location.rfind("file:///", 0) == 0) return "file:" + location.substr(7);
  return location;
}

}  // namespace

Result<CommandResult> ShowTblProperties(const sql::ShowStatement& stmt, CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t,
                        ctx.binder->ResolveTable(stmt.table, std::nullopt));
  // A view has no Delta properties (TBLPROPERTIES given at CREATE VIEW are not kept).
  std::map<std::string, std::string> props =
      t.is_view || (t.entry && planner::IsFileSourceTable(*t.entry))
          ? std::map<std::string, std::string>{}
          : TableProperties(*t.snapshot);
  std::vector<std::vector<std::string>> rows;
  if (!stmt.property_key.empty()) {
    auto it = props.find(stmt.property_key);
    rows.push_back({stmt.property_key,
                    it != props.end()
                        ? it->second
                        : "Table " + V2Name(t) + " does not have property: " + stmt.property_key});
  } else {
    for (const auto& [k, v] : props) rows.push_back({k, v});
  }
  CommandResult r = StringRows({"key", "value"}, rows);
  for (auto& f : r.schema) f.nullable = false;
  return r;
}

Result<CommandResult> ShowCreateTable(const sql::ShowStatement& stmt, CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t,
                        ctx.binder->ResolveTable(stmt.table, std::nullopt));
  if (t.is_view) {
    // Spark's layout: CREATE VIEW name (col, …) [COMMENT '…'] AS <query as written>.
    SILT_ASSIGN_OR_RETURN(std::vector<planner::OutputColumn> columns, ViewColumns(stmt.table, ctx));
    std::vector<std::string> cols;
    for (const auto& c : columns) cols.push_back(QuoteIfNeeded(c.name));
    std::string out = "CREATE " + std::string(t.is_temp_view ? "TEMPORARY " : "") + "VIEW " +
                      V2Name(t) + " " + MultiLines(cols);
    if (!t.entry->comment.empty())
      out += "COMMENT '" + EscapeSingleQuoted(t.entry->comment) + "'\n";
    out += "AS " + t.entry->view_text + "\n";
    CommandResult r = StringRows({"createtab_stmt"}, {{out}});
    r.schema[0].nullable = false;
    return r;
  }
  const delta::Snapshot& s = *t.snapshot;
  // A streaming table (commands/streaming_table.h) prints as Databricks' CREATE STREAMING TABLE
  // with its defining query; its silt.streamingTable.* properties are that query and the stream
  // state, not clauses.
  const std::string* streaming_query =
      s.metadata().configuration.Find(kStreamingTableQueryProperty);
  std::string out =
      std::string(streaming_query ? "CREATE STREAMING TABLE " : "CREATE TABLE ") + V2Name(t) + " ";
  std::vector<std::string> cols;
  for (const Field& f : s.schema()) {
    std::string c =
        QuoteIfNeeded(f.name) + " " + SqlType(*f.type) + (f.nullable ? "" : " NOT NULL");
    if (auto cm = CommentOf(f)) c += " COMMENT '" + EscapeSingleQuoted(*cm) + "'";
    cols.push_back(std::move(c));
  }
  out += MultiLines(cols);
  // File-source tables (planner/file_source.h): their provider, and no Delta properties.
  const bool file_source = t.entry && planner::IsFileSourceTable(*t.entry);
  out += "USING " + (file_source ? t.entry->format : std::string("delta")) + "\n";
  const auto& parts = s.partition_columns();
  if (!parts.empty()) {
    out += "PARTITIONED BY (";
    for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + QuoteIfNeeded(parts[i]);
    out += ")\n";
  }
  SILT_ASSIGN_OR_RETURN(std::vector<std::string> clustering, delta::ClusteringColumns(s));
  if (!clustering.empty()) {
    out += "CLUSTER BY (";
    for (size_t i = 0; i < clustering.size(); ++i)
      out += (i ? ", " : "") + QuoteIfNeeded(clustering[i]);
    out += ")\n";
  }
  if (s.metadata().description)
    out += "COMMENT '" + EscapeSingleQuoted(*s.metadata().description) + "'\n";
  out += "LOCATION '" + EscapeSingleQuoted(LocationUri(t.location)) + "'\n";
  std::vector<std::string> props;
  for (const auto& [k, v] :
       file_source ? std::map<std::string, std::string>{} : TableProperties(s)) {
    if (streaming_query && k.rfind("silt.streamingTable.", 0) == 0) continue;
    props.push_back("'" + EscapeSingleQuoted(k) + "' = '" + EscapeSingleQuoted(v) + "'");
  }
  if (!props.empty()) out += "TBLPROPERTIES " + MultiLines(props);
  if (streaming_query) out += "AS " + *streaming_query + "\n";
  CommandResult r = StringRows({"createtab_stmt"}, {{out}});
  r.schema[0].nullable = false;
  return r;
}

Result<CommandResult> ShowColumns(const sql::ShowStatement& stmt, CommandContext& ctx) {
  sql::TableName name = stmt.table;
  if (!stmt.schema.empty() && !name.is_path()) {
    // SHOW COLUMNS IN t IN db: the namespaces must agree (SHOW_COLUMNS_WITH_CONFLICT_NAMESPACE).
    if (name.parts.size() > 1) {
      std::vector<std::string> ns(name.parts.begin(), name.parts.end() - 1);
      auto lower = [](std::vector<std::string> v) {
        for (auto& s : v) s = planner::LowerName(s);
        return v;
      };
      if (lower(ns) != lower(stmt.schema)) {
        std::string a, b;
        for (const auto& p : stmt.schema) a += (a.empty() ? "" : ".") + ("`" + p + "`");
        for (const auto& p : ns) b += (b.empty() ? "" : ".") + ("`" + p + "`");
        return Status::InvalidArgument(
            "SHOW COLUMNS with conflicting namespaces: " + a + " != " + b + ".",
            errc::kShowColumnsWithConflictNamespace);
      }
    } else {
      std::vector<std::string> parts = stmt.schema;
      parts.push_back(name.parts.back());
      name.parts = parts;
    }
  }
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t, ctx.binder->ResolveTable(name, std::nullopt));
  std::vector<std::vector<std::string>> rows;
  if (t.is_view) {
    SILT_ASSIGN_OR_RETURN(std::vector<planner::OutputColumn> columns, ViewColumns(name, ctx));
    for (const auto& c : columns) rows.push_back({c.name});
  } else {
    for (const Field& f : t.snapshot->schema()) rows.push_back({f.name});
  }
  CommandResult r = StringRows({"col_name"}, rows);
  r.schema[0].nullable = false;
  return r;
}

}  // namespace silt::commands
