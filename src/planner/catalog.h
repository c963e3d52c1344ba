// Catalog: schemas (databases) and tables of a local warehouse directory, the way Spark's
// session catalog lays them out:
//   <warehouse>/<table>/              managed tables of schema `default`
//   <warehouse>/<schema>.db/<table>/  managed tables of other schemas
// and a small metastore under <warehouse>/.silt_catalog/ (one JSON file per schema and per table;
// external tables — LOCATION '…' — and views are known only from there). A managed table
// directory that holds a `_delta_log` but has no entry (e.g. a spark-warehouse copied in) is
// still found by name.
//
// Names are case-insensitive (stored lower case, like Spark's Hive metastore). Errors use
// Spark's classes: SCHEMA_NOT_FOUND, SCHEMA_ALREADY_EXISTS, TABLE_OR_VIEW_NOT_FOUND,
// TABLE_OR_VIEW_ALREADY_EXISTS, SCHEMA_NOT_EMPTY. Thread-safe (entries are files written
// atomically; creation uses put-if-absent).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "io/object_store.h"

namespace silt::planner {

struct TableEntry {
  std::string schema;    // lower case
  std::string name;      // lower case
  std::string location;  // absolute local path or URI of the table root
  bool managed = true;   // DROP TABLE deletes the data of managed tables
  std::string format = "delta";  // "delta" | "view"
  std::string view_text;         // views: the SELECT text
  std::string comment;
  std::vector<std::string> view_columns;  // views: the column names given at CREATE VIEW (may be empty)
  std::string view_current_schema;        // views: the schema unqualified names resolve in
};

// A session's temporary view (CREATE TEMPORARY VIEW): its query text, bound again at each use as
// Spark does, the column names given at creation and the schema current at creation.
struct TempView {
  std::string name;  // as written
  std::string sql;
  std::vector<std::string> columns;
  std::string current_schema;
};
using TempViews = std::map<std::string, TempView>;  // by lower-case name

class Catalog {
 public:
  static constexpr const char* kDefaultSchema = "default";

  // Opens (creating if missing) the warehouse at `warehouse_dir` (a local path).
  static Result<std::shared_ptr<Catalog>> Open(const std::string& warehouse_dir);
  const std::string& warehouse() const { return warehouse_; }

  Status CreateSchema(const std::string& name, bool if_not_exists, const std::string& comment = "");
  // cascade: drop the schema's tables too (managed data deleted).
  Status DropSchema(const std::string& name, bool if_exists, bool cascade);
  bool SchemaExists(const std::string& name) const;
  std::vector<std::string> ListSchemas() const;

  // Tables (and views) of a schema, sorted.
  Result<std::vector<std::string>> ListTables(const std::string& schema) const;
  Result<TableEntry> GetTable(const std::string& schema, const std::string& name) const;
  bool TableExists(const std::string& schema, const std::string& name) const;
  // Registers a table; AlreadyExists (TABLE_OR_VIEW_ALREADY_EXISTS) when the name is taken,
  // unless replace is set.
  Status RegisterTable(const TableEntry& entry, bool replace = false);
  // Removes the entry (not the data).
  Status UnregisterTable(const std::string& schema, const std::string& name);
  // Where a managed table of that name lives.
  std::string ManagedLocation(const std::string& schema, const std::string& name) const;

 private:
  explicit Catalog(std::string warehouse);
  std::string SchemaDir(const std::string& schema) const;
  std::string EntryPath(const std::string& schema, const std::string& name) const;
  std::string warehouse_;
};

// Lower-cases ASCII (Spark identifiers are case-insensitive).
std::string LowerName(std::string_view s);

// Opens an ObjectStore rooted at a table location (local path or file:// URI; other schemes
// fail with a clear error until their stores land).
Result<std::shared_ptr<ObjectStore>> OpenTableStore(const std::string& location);

}  // namespace silt::planner
