#include "planner/catalog.h"

#include <simdjson.h>

#include <algorithm>

#include "common/ascii.h"
#include "common/error_classes.h"
#include "delta/json_util.h"
#include "io/object_store_factory.h"
#include "io/path.h"

namespace silt::planner {

std::string LowerName(std::string_view s) { return AsciiLower(s); }

namespace {

constexpr const char* kMetaDir = ".silt_catalog";
constexpr const char* kSchemaMeta = "_schema.meta";

std::string SerializeEntry(const TableEntry& e) {
  std::string out = "{\"schema\":";
  delta::AppendJacksonString(&out, e.schema);
  out += ",\"name\":";
  delta::AppendJacksonString(&out, e.name);
  out += ",\"location\":";
  delta::AppendJacksonString(&out, e.location);
  out += ",\"managed\":";
  out += e.managed ? "true" : "false";
  out += ",\"format\":";
  delta::AppendJacksonString(&out, e.format);
  out += ",\"viewText\":";
  delta::AppendJacksonString(&out, e.view_text);
  if (e.format == "view" || !e.view_columns.empty()) {
    out += ",\"viewColumns\":[";
    for (size_t i = 0; i < e.view_columns.size(); ++i) {
      if (i) out += ',';
      delta::AppendJacksonString(&out, e.view_columns[i]);
    }
    out += "],\"viewCurrentSchema\":";
    delta::AppendJacksonString(&out, e.view_current_schema);
  }
  out += ",\"comment\":";
  delta::AppendJacksonString(&out, e.comment);
  out += "}\n";
  return out;
}

Result<TableEntry> ParseEntry(const std::string& text, const std::string& path) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(text).get(doc) != simdjson::SUCCESS || !doc.is_object()) {
    return Status::Corruption("catalog entry is not valid JSON: " + path,
                              errc::kSiltCatalogCorrupt);
  }
  TableEntry e;
  auto str = [&](const char* key, std::string* out) {
    std::string_view v;
    if (doc[key].get_string().get(v) == simdjson::SUCCESS) *out = std::string(v);
  };
  str("schema", &e.schema);
  str("name", &e.name);
  str("location", &e.location);
  str("format", &e.format);
  str("viewText", &e.view_text);
  str("comment", &e.comment);
  str("viewCurrentSchema", &e.view_current_schema);
  simdjson::dom::array cols;
  if (doc["viewColumns"].get_array().get(cols) == simdjson::SUCCESS) {
    for (simdjson::dom::element c : cols) {
      std::string_view v;
      if (c.get_string().get(v) == simdjson::SUCCESS) e.view_columns.emplace_back(v);
    }
  }
  bool managed = true;
  if (doc["managed"].get_bool().get(managed) == simdjson::SUCCESS) e.managed = managed;
  return e;
}

}  // namespace

Catalog::Catalog(std::string warehouse, std::shared_ptr<ObjectStore> store,
                 std::shared_ptr<Clock> clock)
    : warehouse_(std::move(warehouse)), store_(std::move(store)), clock_(std::move(clock)) {}

Result<std::shared_ptr<Catalog>> Catalog::Open(const std::string& warehouse,
                                               std::shared_ptr<Clock> clock) {
  if (!clock) return Status::Internal("Catalog::Open(" + warehouse + "): no clock");
  SILT_ASSIGN_OR_RETURN(std::string location, CanonicalLocation(warehouse));
  SILT_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> store, OpenObjectStore(location, clock));
  std::shared_ptr<Catalog> catalog(new Catalog(location, std::move(store), std::move(clock)));
  if (!catalog->SchemaExists(kDefaultSchema)) {
    Status st = catalog->store_->PutIfAbsent(catalog->SchemaMetaKey(kDefaultSchema), "{}\n");
    if (!st.ok() && st.code() != StatusCode::kAlreadyExists) {
      return Status::IoError("cannot create warehouse " + location + ": " +
                             std::string(st.message()));
    }
  }
  return catalog;
}

std::string Catalog::SchemaDirKey(const std::string& schema) const {
  return std::string(kMetaDir) + "/" + LowerName(schema);
}

std::string Catalog::SchemaMetaKey(const std::string& schema) const {
  return SchemaDirKey(schema) + "/" + kSchemaMeta;
}

std::string Catalog::EntryKey(const std::string& schema, const std::string& name) const {
  return SchemaDirKey(schema) + "/" + LowerName(name) + ".json";
}

std::string Catalog::ManagedKey(const std::string& schema, const std::string& name) const {
  std::string s = LowerName(schema);
  return s == kDefaultSchema ? LowerName(name) : s + ".db/" + LowerName(name);
}

std::string Catalog::ManagedLocation(const std::string& schema, const std::string& name) const {
  return ChildLocation(warehouse_, ManagedKey(schema, name));
}

bool Catalog::IsDeltaTableDir(const std::string& key) const {
  if (!ValidateObjectKey(key, /*allow_dir=*/true).ok()) return false;
  Result<bool> exists = store_->DirExists(JoinPath(key, "_delta_log"));
  return exists.ok() && *exists;
}

bool Catalog::SchemaExists(const std::string& name) const {
  std::string s = LowerName(name);
  if (!ValidateObjectKey(SchemaDirKey(s)).ok()) return false;
  if (store_->Head(SchemaMetaKey(s)).ok()) return true;
  // Warehouses of earlier versions: a schema is a directory, possibly without _schema.meta.
  Result<bool> exists = store_->DirExists(SchemaDirKey(s));
  return exists.ok() && *exists;
}

Status Catalog::CreateSchema(const std::string& name, bool if_not_exists,
                             const std::string& comment) {
  if (SchemaExists(name)) {
    if (if_not_exists) return Status::OK();
    return Status::AlreadyExists(
        "Cannot create schema `" + LowerName(name) + "` because it already exists.",
        errc::kSchemaAlreadyExists);
  }
  SILT_RETURN_NOT_OK(ValidateObjectKey(SchemaDirKey(name)));
  std::string meta = "{";
  if (!comment.empty()) {
    meta += "\"comment\":";
    delta::AppendJacksonString(&meta, comment);
  }
  meta += "}\n";
  Status st = store_->PutIfAbsent(SchemaMetaKey(name), meta);
  if (st.code() == StatusCode::kAlreadyExists) {
    if (if_not_exists) return Status::OK();
    return Status::AlreadyExists(
        "Cannot create schema `" + LowerName(name) + "` because it already exists.",
        errc::kSchemaAlreadyExists);
  }
  if (!st.ok())
    return Status::IoError("cannot create schema " + name + ": " + std::string(st.message()));
  return Status::OK();
}

Status Catalog::DropSchema(const std::string& name, bool if_exists, bool cascade) {
  std::string s = LowerName(name);
  if (!SchemaExists(s)) {
    if (if_exists) return Status::OK();
    return Status::NotFound("The schema `" + s + "` cannot be found.", errc::kSchemaNotFound);
  }
  if (s == kDefaultSchema) {
    return Status::InvalidArgument("Can not drop default database",
                                   errc::kUnsupportedFeatureDropDatabase);
  }
  SILT_ASSIGN_OR_RETURN(std::vector<std::string> tables, ListTables(s));
  if (!tables.empty() && !cascade) {
    return Status::InvalidArgument(
        "Cannot drop a schema `" + s +
            "` because it contains objects. Use DROP SCHEMA ... CASCADE.",
        errc::kSchemaNotEmpty);
  }
  // Best effort, as a recursive directory removal: what cannot be removed stays behind.
  for (const std::string& t : tables) {
    SILT_ASSIGN_OR_RETURN(TableEntry e, GetTable(s, t));
    if (e.managed && e.format != "view") (void)DeleteLocation(e.location);
  }
  (void)DeleteTree(*store_, SchemaDirKey(s));
  (void)DeleteTree(*store_, s + ".db");
  return Status::OK();
}

std::vector<std::string> Catalog::ListSchemas() const {
  Result<std::vector<std::string>> dirs = store_->ListDirs(kMetaDir);
  if (!dirs.ok()) return {};
  return *dirs;
}

Result<std::vector<std::string>> Catalog::ListTables(const std::string& schema) const {
  std::string s = LowerName(schema);
  if (!SchemaExists(s)) {
    return Status::NotFound("The schema `" + s + "` cannot be found.", errc::kSchemaNotFound);
  }
  std::vector<std::string> out;
  SILT_ASSIGN_OR_RETURN(std::vector<ObjectMeta> entries, store_->ListFrom(SchemaDirKey(s) + "/"));
  for (const ObjectMeta& m : entries) {
    std::string fn = m.key.substr(m.key.rfind('/') + 1);
    if (fn.size() > 5 && !fn.starts_with(".") && fn.ends_with(".json"))
      out.push_back(fn.substr(0, fn.size() - 5));
  }
  // Unregistered managed Delta tables (a copied-in spark-warehouse).
  std::string base = s == kDefaultSchema ? "" : s + ".db";
  SILT_ASSIGN_OR_RETURN(std::vector<std::string> dirs, store_->ListDirs(base));
  for (const std::string& fn : dirs) {
    if (!fn.starts_with(".") && IsDeltaTableDir(JoinPath(base, fn))) out.push_back(LowerName(fn));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Result<TableEntry> Catalog::GetTable(const std::string& schema, const std::string& name) const {
  std::string s = LowerName(schema), n = LowerName(name);
  auto not_found = [&] {
    return Status::NotFound(
        "The table or view `" + s + "`.`" + n +
            "` cannot be found. Verify the spelling and correctness of the schema and catalog.",
        errc::kTableOrViewNotFound);
  };
  std::string key = EntryKey(s, n);
  if (!ValidateObjectKey(key).ok()) return not_found();
  Result<std::string> text = store_->Get(key);
  if (text.ok()) return ParseEntry(*text, store_->root() + key);
  if (text.status().code() != StatusCode::kNotFound) return text.status();
  if (SchemaExists(s) && IsDeltaTableDir(ManagedKey(s, n))) {
    TableEntry e;
    e.schema = s;
    e.name = n;
    e.location = ManagedLocation(s, n);
    return e;
  }
  return not_found();
}

bool Catalog::TableExists(const std::string& schema, const std::string& name) const {
  return GetTable(schema, name).ok();
}

Status Catalog::RegisterTable(const TableEntry& entry, bool replace) {
  TableEntry e = entry;
  e.schema = LowerName(e.schema);
  e.name = LowerName(e.name);
  if (!SchemaExists(e.schema)) {
    return Status::NotFound("The schema `" + e.schema + "` cannot be found.",
                            errc::kSchemaNotFound);
  }
  std::string key = EntryKey(e.schema, e.name);
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  std::string text = SerializeEntry(e);
  Status st = replace ? store_->Put(key, text) : store_->PutIfAbsent(key, text);
  if (st.code() == StatusCode::kAlreadyExists) {
    return Status::AlreadyExists("Cannot create table or view `" + e.schema + "`.`" + e.name +
                                     "` because it already exists.",
                                 errc::kTableOrViewAlreadyExists);
  }
  return st;
}

Status Catalog::UnregisterTable(const std::string& schema, const std::string& name) {
  std::string key = EntryKey(schema, name);
  if (!ValidateObjectKey(key).ok()) return Status::OK();
  (void)store_->Delete(key);
  return Status::OK();
}

Result<std::shared_ptr<ObjectStore>> OpenTableStore(const std::string& location,
                                                    std::shared_ptr<Clock> clock) {
  return OpenObjectStore(location, std::move(clock));
}

}  // namespace silt::planner
