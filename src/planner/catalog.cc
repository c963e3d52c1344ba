#include "planner/catalog.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <cerrno>
#include <cstring>

#include <unistd.h>

#include <simdjson.h>

#include "delta/json_util.h"
#include "io/path.h"

namespace silt::planner {

namespace fs = std::filesystem;

std::string LowerName(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

namespace {

constexpr const char* kMetaDir = ".silt_catalog";

Status WriteFileAtomic(const std::string& path, const std::string& data, bool if_absent) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  std::string tmp = path + ".tmp." + std::to_string(reinterpret_cast<uintptr_t>(&data));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << data;
    if (!out.good()) return Status::IoError("cannot write " + tmp);
  }
  if (if_absent) {
    // link() fails if the target exists: an atomic put-if-absent on local disks.
    if (::link(tmp.c_str(), path.c_str()) != 0) {
      int err = errno;
      fs::remove(tmp, ec);
      if (err == EEXIST) return Status::AlreadyExists(path, "TABLE_OR_VIEW_ALREADY_EXISTS");
      return Status::IoError("cannot create " + path + ": " + std::strerror(err));
    }
    fs::remove(tmp, ec);
    return Status::OK();
  }
  fs::rename(tmp, path, ec);
  if (ec) return Status::IoError("cannot write " + path + ": " + ec.message());
  return Status::OK();
}

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
  if (e.format == "view") {
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

Result<TableEntry> ParseEntry(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("catalog entry missing: " + path, "TABLE_OR_VIEW_NOT_FOUND");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(text).get(doc) != simdjson::SUCCESS || !doc.is_object()) {
    return Status::Corruption("catalog entry is not valid JSON: " + path, "SILT_CATALOG_CORRUPT");
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

bool IsDeltaTableDir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p / "_delta_log", ec);
}

}  // namespace

Catalog::Catalog(std::string warehouse) : warehouse_(std::move(warehouse)) {}

Result<std::shared_ptr<Catalog>> Catalog::Open(const std::string& warehouse_dir) {
  SILT_ASSIGN_OR_RETURN(std::string local, LocalPathFromUri(warehouse_dir));
  std::error_code ec;
  fs::path root = fs::absolute(local, ec);
  if (ec) return Status::IoError("bad warehouse path " + warehouse_dir + ": " + ec.message());
  fs::create_directories(root / kMetaDir / kDefaultSchema, ec);
  if (ec) return Status::IoError("cannot create warehouse " + root.string() + ": " + ec.message());
  return std::shared_ptr<Catalog>(new Catalog(root.lexically_normal().string()));
}

std::string Catalog::SchemaDir(const std::string& schema) const {
  return (fs::path(warehouse_) / kMetaDir / LowerName(schema)).string();
}

std::string Catalog::EntryPath(const std::string& schema, const std::string& name) const {
  return (fs::path(SchemaDir(schema)) / (LowerName(name) + ".json")).string();
}

std::string Catalog::ManagedLocation(const std::string& schema, const std::string& name) const {
  std::string s = LowerName(schema);
  fs::path base = s == kDefaultSchema ? fs::path(warehouse_) : fs::path(warehouse_) / (s + ".db");
  return (base / LowerName(name)).string();
}

bool Catalog::SchemaExists(const std::string& name) const {
  std::error_code ec;
  return fs::is_directory(SchemaDir(name), ec);
}

Status Catalog::CreateSchema(const std::string& name, bool if_not_exists, const std::string& comment) {
  if (SchemaExists(name)) {
    if (if_not_exists) return Status::OK();
    return Status::AlreadyExists("[SCHEMA_ALREADY_EXISTS] Cannot create schema `" + LowerName(name) +
                                     "` because it already exists.",
                                 "SCHEMA_ALREADY_EXISTS");
  }
  std::error_code ec;
  fs::create_directories(SchemaDir(name), ec);
  if (ec) return Status::IoError("cannot create schema " + name + ": " + ec.message());
  if (!comment.empty()) {
    std::string meta = "{\"comment\":";
    delta::AppendJacksonString(&meta, comment);
    meta += "}\n";
    SILT_RETURN_NOT_OK(WriteFileAtomic((fs::path(SchemaDir(name)) / "_schema.meta").string(), meta, false));
  }
  return Status::OK();
}

Status Catalog::DropSchema(const std::string& name, bool if_exists, bool cascade) {
  std::string s = LowerName(name);
  if (!SchemaExists(s)) {
    if (if_exists) return Status::OK();
    return Status::NotFound("[SCHEMA_NOT_FOUND] The schema `" + s + "` cannot be found.", "SCHEMA_NOT_FOUND");
  }
  if (s == kDefaultSchema) {
    return Status::InvalidArgument("Can not drop default database", "UNSUPPORTED_FEATURE.DROP_DATABASE");
  }
  SILT_ASSIGN_OR_RETURN(std::vector<std::string> tables, ListTables(s));
  if (!tables.empty() && !cascade) {
    return Status::InvalidArgument("[SCHEMA_NOT_EMPTY] Cannot drop a schema `" + s +
                                       "` because it contains objects. Use DROP SCHEMA ... CASCADE.",
                                   "SCHEMA_NOT_EMPTY");
  }
  std::error_code ec;
  for (const std::string& t : tables) {
    SILT_ASSIGN_OR_RETURN(TableEntry e, GetTable(s, t));
    if (e.managed && e.format != "view") fs::remove_all(e.location, ec);
  }
  fs::remove_all(SchemaDir(s), ec);
  fs::remove_all(fs::path(warehouse_) / (s + ".db"), ec);
  return Status::OK();
}

std::vector<std::string> Catalog::ListSchemas() const {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& d : fs::directory_iterator(fs::path(warehouse_) / kMetaDir, ec)) {
    if (d.is_directory()) out.push_back(d.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::vector<std::string>> Catalog::ListTables(const std::string& schema) const {
  std::string s = LowerName(schema);
  if (!SchemaExists(s)) {
    return Status::NotFound("[SCHEMA_NOT_FOUND] The schema `" + s + "` cannot be found.", "SCHEMA_NOT_FOUND");
  }
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(SchemaDir(s), ec)) {
    std::string fn = f.path().filename().string();
    if (fn.size() > 5 && fn.ends_with(".json")) out.push_back(fn.substr(0, fn.size() - 5));
  }
  // Unregistered managed Delta tables (a copied-in spark-warehouse).
  fs::path base = s == kDefaultSchema ? fs::path(warehouse_) : fs::path(warehouse_) / (s + ".db");
  for (const auto& d : fs::directory_iterator(base, ec)) {
    std::string fn = d.path().filename().string();
    if (d.is_directory() && !fn.starts_with(".") && IsDeltaTableDir(d.path())) out.push_back(LowerName(fn));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Result<TableEntry> Catalog::GetTable(const std::string& schema, const std::string& name) const {
  std::string s = LowerName(schema), n = LowerName(name);
  std::string path = EntryPath(s, n);
  std::error_code ec;
  if (fs::exists(path, ec)) return ParseEntry(path);
  std::string managed = ManagedLocation(s, n);
  if (SchemaExists(s) && IsDeltaTableDir(managed)) {
    TableEntry e;
    e.schema = s;
    e.name = n;
    e.location = managed;
    return e;
  }
  return Status::NotFound("[TABLE_OR_VIEW_NOT_FOUND] The table or view `" + s + "`.`" + n +
                              "` cannot be found. Verify the spelling and correctness of the schema and catalog.",
                          "TABLE_OR_VIEW_NOT_FOUND");
}

bool Catalog::TableExists(const std::string& schema, const std::string& name) const {
  return GetTable(schema, name).ok();
}

Status Catalog::RegisterTable(const TableEntry& entry, bool replace) {
  TableEntry e = entry;
  e.schema = LowerName(e.schema);
  e.name = LowerName(e.name);
  if (!SchemaExists(e.schema)) {
    return Status::NotFound("[SCHEMA_NOT_FOUND] The schema `" + e.schema + "` cannot be found.", "SCHEMA_NOT_FOUND");
  }
  Status st = WriteFileAtomic(EntryPath(e.schema, e.name), SerializeEntry(e), !replace);
  if (st.code() == StatusCode::kAlreadyExists) {
    return Status::AlreadyExists("[TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create table or view `" + e.schema + "`.`" +
                                     e.name + "` because it already exists.",
                                 "TABLE_OR_VIEW_ALREADY_EXISTS");
  }
  return st;
}

Status Catalog::UnregisterTable(const std::string& schema, const std::string& name) {
  std::error_code ec;
  fs::remove(EntryPath(schema, name), ec);
  return Status::OK();
}

Result<std::shared_ptr<ObjectStore>> OpenTableStore(const std::string& location) {
  std::string scheme = UriScheme(location);
  if (!scheme.empty() && scheme != "file") {
    return Status::NotImplemented("storage scheme '" + scheme + "' is not supported yet (table " + location + ")",
                                  "SILT_UNSUPPORTED_STORAGE_SCHEME");
  }
  SILT_ASSIGN_OR_RETURN(std::string local, LocalPathFromUri(location));
  std::error_code ec;
  std::string abs = fs::absolute(local, ec).lexically_normal().string();
  if (abs.size() > 1 && abs.back() == '/') abs.pop_back();
  return std::shared_ptr<ObjectStore>(std::make_shared<LocalObjectStore>(abs));
}

}  // namespace silt::planner
