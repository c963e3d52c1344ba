// Catalog: schemas (databases) and tables of a warehouse (a local directory or any location the
// ObjectStore factory opens, io/object_store_factory.h), the way Spark's session catalog lays
// them out:
//   <warehouse>/<table>/              managed tables of schema `default`
//   <warehouse>/<schema>.db/<table>/  managed tables of other schemas
// and a small metastore under <warehouse>/.silt_catalog/ (per schema a directory with a
// `_schema.meta` object — older warehouses may lack it — and one JSON object per table;
// external tables — LOCATION '…' — and views are known only from there). A managed table
// directory that holds a `_delta_log` but has no entry (e.g. a spark-warehouse copied in) is
// still found by name.
//
// Names are case-insensitive (stored lower case, like Spark's Hive metastore). Errors use
// Spark's classes: SCHEMA_NOT_FOUND, SCHEMA_ALREADY_EXISTS, TABLE_OR_VIEW_NOT_FOUND,
// TABLE_OR_VIEW_ALREADY_EXISTS, SCHEMA_NOT_EMPTY. All I/O goes through the warehouse's
// ObjectStore. Thread-safe (entries are objects written atomically; creation uses put-if-absent).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "io/object_store.h"

namespace silt::planner {

struct TableEntry {
  std::string schema;            // lower case
  std::string name;              // lower case
  std::string location;          // absolute local path or URI of the table root
  bool managed = true;           // DROP TABLE deletes the data of managed tables
  std::string format = "delta";  // "delta" | "view" | a file source: "parquet" | "json"
  // Views: the SELECT text. File-source tables (planner/file_source.h): the declared schema, as
  // Delta's schemaString JSON (the entry keeps its size: binding recurses with entries on the
  // stack).
  std::string view_text;
  std::string comment;
  // Views: the column names given at CREATE VIEW (may be empty). File-source tables: the
  // partition columns.
  std::vector<std::string> view_columns;
  std::string view_current_schema;  // views: the schema unqualified names resolve in
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

  // Opens (creating if missing) the warehouse at `warehouse`: a local path or any location
  // io/object_store_factory.h opens (file:///..., memory://<name>). All its I/O goes through that
  // store. `clock` (required) gives the modification times of the memory stores it creates.
  static Result<std::shared_ptr<Catalog>> Open(const std::string& warehouse,
                                               std::shared_ptr<Clock> clock);
  // The warehouse location in canonical form (CanonicalLocation: an absolute path for local ones).
  const std::string& warehouse() const { return warehouse_; }
  const std::shared_ptr<Clock>& clock() const { return clock_; }

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
  // Where a managed table of that name lives (a location below warehouse()).
  std::string ManagedLocation(const std::string& schema, const std::string& name) const;

 private:
  Catalog(std::string warehouse, std::shared_ptr<ObjectStore> store, std::shared_ptr<Clock> clock);
  // Keys in the warehouse store.
  std::string SchemaDirKey(const std::string& schema) const;
  std::string SchemaMetaKey(const std::string& schema) const;
  std::string EntryKey(const std::string& schema, const std::string& name) const;
  std::string ManagedKey(const std::string& schema, const std::string& name) const;
  bool IsDeltaTableDir(const std::string& key) const;

  std::string warehouse_;
  std::shared_ptr<ObjectStore> store_;
  std::shared_ptr<Clock> clock_;
};

// Lower-cases ASCII (Spark identifiers are case-insensitive).
std::string LowerName(std::string_view s);

// Opens an ObjectStore rooted at a table location: io/object_store_factory.h's OpenObjectStore
// (local path, file:// or memory:// URI; cloud schemes fail with NOT_IMPLEMENTED until their
// stores land).
// `clock`: the modification times of a memory store the call creates (OpenObjectStore).
Result<std::shared_ptr<ObjectStore>> OpenTableStore(const std::string& location,
                                                    std::shared_ptr<Clock> clock);

}  // namespace silt::planner
