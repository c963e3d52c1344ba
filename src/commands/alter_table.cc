// ALTER TABLE … SET/UNSET TBLPROPERTIES, ADD COLUMNS, DROP COLUMNS, RENAME COLUMN, ALTER|CHANGE
// COLUMN, ADD/DROP CONSTRAINT — Delta's alterDeltaTableCommands: each is one metadata-only commit
// (plus the protocol upgrade a newly enabled feature needs) with Spark's operation name and
// parameters. Dropping and renaming columns need column mapping (the data files keep the
// physical names); ADD CONSTRAINT checks every live row first. The table is untouched on error.
#include <simdjson.h>

#include <algorithm>

#include "commands/column_values.h"
#include "commands/command.h"
#include "common/error_classes.h"
#include "delta/auto_ttl.h"
#include "delta/clustering.h"
#include "delta/json_util.h"
#include "delta/scan.h"
#include "delta/schema_json.h"
#include "delta/table_features.h"
#include "delta/table_properties.h"
#include "delta/transaction.h"
#include "io/object_store_factory.h"
#include "planner/file_source.h"

namespace silt::commands {

namespace {

constexpr char kConstraintPrefix[] = "delta.constraints.";

std::string Json(std::string_view s) {
  std::string out;
  delta::AppendJacksonString(&out, s);
  return out;
}

std::string JsonList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + Json(items[i]);
  return out + "]";
}

Status ColumnNotFound(const std::string& name) {
  return Status::InvalidArgument(
      "A column or function parameter with name `" + name + "` cannot be resolved.",
      errc::kUnresolvedColumnWithSuggestion);
}

// The fields of the struct at `parent` (a path of struct fields from the top level), for editing.
Result<std::vector<Field>*> StructAt(Schema* schema, const std::vector<std::string>& parent,
                                     const std::string& what) {
  std::vector<Field>* fields = schema;
  for (const auto& name : parent) {
    int i = FindField(*fields, name);
    if (i < 0) return ColumnNotFound(name);
    Field& f = (*fields)[static_cast<size_t>(i)];
    if (f.type->id() != TypeId::kStruct) {
      return Status::InvalidArgument(
          what + " `" + name + "` is not a struct (" + f.type->ToString() + ")",
          errc::kDeltaUnsupportedNestedColumn);
    }
    // Types are immutable and shared: give the field its own copy of the struct to edit.
    f.type = DataType::Struct(f.type->fields());
    fields = const_cast<std::vector<Field>*>(&f.type->fields());
  }
  return fields;
}

// A field's metadata with "comment" set (or removed when `comment` is empty), other keys kept.
Result<std::string> WithComment(const std::string& metadata_json, const std::string& comment) {
  std::string out = "{";
  if (!metadata_json.empty() && metadata_json != "{}") {
    simdjson::dom::parser parser;
    simdjson::dom::object obj;
    if (parser.parse(metadata_json).get(obj))
      return Status::Corruption("invalid field metadata: " + metadata_json);
    for (auto [key, value] : obj) {
      if (key == "comment") continue;
      out += (out.size() > 1 ? "," : "") + Json(key) + ":" + simdjson::minify(value);
    }
  }
  if (!comment.empty()) out += (out.size() > 1 ? "," : "") + Json("comment") + ":" + Json(comment);
  return out + "}";
}

// Spark's operationParameters form of a column (DeltaOperations.structFieldToMap).
std::string FieldParam(const std::string& path, const Field& f) {
  std::string type = delta::PrimitiveTypeName(*f.type);
  if (type.empty())
    type = f.type->id() == TypeId::kStruct ? "struct"
           : f.type->id() == TypeId::kList ? "array"
                                           : "map";
  return "{\"name\":" + Json(path) + ",\"type\":" + Json(type) +
         ",\"nullable\":" + (f.nullable ? "true" : "false") +
         ",\"metadata\":" + (f.metadata_json.empty() ? "{}" : f.metadata_json) + "}";
}

// Inserts `f` into `fields` at the position a column definition asks for (FIRST, AFTER c) or at
// `default_at`; *position gets Spark's text for operationParameters ("" when none was given).
Status InsertAtPosition(std::vector<Field>* fields, Field f, const sql::ColumnDef& c,
                        size_t default_at, std::string* position) {
  size_t at = default_at;
  position->clear();
  if (c.position_first) {
    at = 0;
    *position = "FIRST";
  } else if (!c.position_after.empty()) {
    int i = FindField(*fields, c.position_after);
    if (i < 0) return ColumnNotFound(c.position_after);
    at = static_cast<size_t>(i) + 1;
    *position = "AFTER " + c.position_after;
  }
  fields->insert(fields->begin() + static_cast<long>(at), std::move(f));
  return Status::OK();
}

// A dotted column path resolved to the struct holding its last component (for editing).
struct FieldPath {
  std::vector<std::string> parent;  // the struct fields leading to it (empty: top level)
  std::string leaf;
  std::vector<Field>* fields = nullptr;
  int index = -1;  // of leaf in *fields, -1 when absent
};

Result<FieldPath> Locate(Schema* schema, const std::string& dotted, const std::string& what) {
  FieldPath p;
  p.parent = delta::SplitDotted(dotted);
  p.leaf = p.parent.back();
  p.parent.pop_back();
  SILT_ASSIGN_OR_RETURN(p.fields, StructAt(schema, p.parent, what));
  p.index = FindField(*p.fields, p.leaf);
  return p;
}

// One ALTER commit: the new metadata (and protocol, when it grew) and the operation.
struct Change {
  delta::Metadata metadata;
  std::optional<delta::Protocol> protocol;
  std::string operation;
  delta::StringMap parameters;
};

Status CommitChange(const planner::ResolvedTable& t, Change change, CommandContext& ctx) {
  const delta::Snapshot& snap = *t.snapshot;
  delta::Protocol proto = change.protocol.value_or(snap.protocol());
  SILT_ASSIGN_OR_RETURN(Schema schema,
                        delta::ParseSchemaString(change.metadata.schema_string.value_or("{}")));
  proto =
      delta::WithFeatures(proto, delta::FeaturesForMetadata(schema, change.metadata.configuration));
  SILT_RETURN_NOT_OK(delta::CheckWriteSupported(proto, change.metadata, false, t.display_name));
  delta::TransactionOptions topts;
  topts.clock = ctx.clock;
  delta::Transaction txn(t.store, t.snapshot, topts);
  txn.SetReadScope(delta::ReadScope::kWholeTable);
  if (proto != snap.protocol()) txn.UpdateProtocol(proto);
  txn.UpdateMetadata(std::move(change.metadata));
  txn.SetOperation(std::move(change.operation), std::move(change.parameters));
  Result<delta::CommitResult> committed = txn.Commit();
  return committed.status();
}

Status RequireColumnMapping(const delta::Snapshot& snap, const char* what,
                            const char* error_class) {
  if (snap.column_mapping_mode() != delta::ColumnMappingMode::kNone) return Status::OK();
  return Status::InvalidArgument(
      std::string("[") + error_class + "] " + what +
          " is not supported for your Delta table. Please enable Column Mapping on your "
          "Delta table with mapping mode 'name'. You can use one of the following "
          "commands.\n\nIf your table is already on the required protocol version:\n"
          "ALTER TABLE table_name SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name')",
      error_class);
}

// CHECK constraints that read `column` (a top-level name) block dropping or renaming it.
Status CheckNoDependentConstraints(const delta::Snapshot& snap, const std::string& column,
                                   CommandContext& ctx) {
  std::vector<std::string> dependent;
  for (const auto& [k, v] : snap.metadata().configuration) {
    if (k.rfind(kConstraintPrefix, 0) != 0) continue;
    SILT_ASSIGN_OR_RETURN(BoundCheck c,
                          BindCheck(k.substr(sizeof kConstraintPrefix - 1), v, snap.schema(), ctx));
    for (int i : c.columns) {
      if (planner::LowerName(snap.schema()[static_cast<size_t>(i)].name) ==
          planner::LowerName(column)) {
        dependent.push_back(c.name + " -> " + v);
      }
    }
  }
  if (dependent.empty()) return Status::OK();
  std::string list;
  for (const auto& d : dependent) list += "\n" + d;
  return Status::InvalidArgument(
      "Cannot alter column " + column +
          " because this column is referenced by the following check constraint(s):" + list,
      errc::kDeltaConstraintDependentColumnChange);
}

bool CaseSensitive(CommandContext& ctx) {
  return ctx.config->GetBool("spark.sql.caseSensitive", false);
}

// ALTER TABLE t [SET] DELETE ROWS n DAYS AFTER c (replace semantics: one SET TBLPROPERTIES
// commit with both keys) and ALTER TABLE t DROP ROW DELETION (UNSET TBLPROPERTIES of the keys;
// no commit when the table has no policy). Spec A.2-A.4.
Result<CommandResult> SetTtl(const sql::AlterTableStatement& stmt, const planner::ResolvedTable& t,
                             CommandContext& ctx) {
  const delta::Snapshot& snap = *t.snapshot;
  if (!stmt.ttl) {
    Change change{snap.metadata(), std::nullopt, "UNSET TBLPROPERTIES", {}};
    std::vector<std::string> keys;
    for (const auto& [k, v] : snap.metadata().configuration) {
      if (delta::IsAutoTtlKey(k)) keys.push_back(k);
    }
    if (!delta::RemoveAutoTtlPolicy(&change.metadata.configuration))
      return CommandResult{};  // rule 11
    change.parameters.Set("properties", Json(JsonList(keys)));
    change.parameters.Set("ifExists", "true");
    SILT_RETURN_NOT_OK(CommitChange(t, std::move(change), ctx));
    return CommandResult{};
  }
  Change change{snap.metadata(), std::nullopt, "SET TBLPROPERTIES", {}};
  SILT_RETURN_NOT_OK(delta::SetAutoTtlPolicy(&change.metadata.configuration, snap.schema(),
                                             stmt.ttl->column, stmt.ttl->amount,
                                             CaseSensitive(ctx)));
  std::string params = "{";
  for (const auto& [k, v] : change.metadata.configuration) {
    if (delta::IsAutoTtlKey(k)) params += (params.size() > 1 ? "," : "") + Json(k) + ":" + Json(v);
  }
  change.parameters.Set("properties", Json(params + "}"));
  SILT_RETURN_NOT_OK(CommitChange(t, std::move(change), ctx));
  return CommandResult{};
}

// SET TBLPROPERTIES naming Auto-TTL keys: both keys together (the id key is silt's own).
Status CheckAutoTtlPropertiesGiven(const sql::PropertyList& properties) {
  bool days = false, column = false, any = false;
  for (const auto& [k, v] : properties) {
    if (!delta::IsAutoTtlKey(k)) continue;
    any = true;
    const std::string key = delta::CanonicalAutoTtlKey(k);
    if (key == delta::kAutoTtlTimestampColumnIdKey) {
      return Status::InvalidArgument(
          std::string("[") + delta::kInvalidTablePropertyClass + "] '" + key +
              "' is maintained by silt and cannot be set or unset directly.",
          delta::kInvalidTablePropertyClass);
    }
    days = days || key == delta::kAutoTtlExpireInDaysKey;
    column = column || key == delta::kAutoTtlTimestampColumnKey;
  }
  if (any && !(days && column)) {
    return Status::InvalidArgument(
        std::string("[") + delta::kInvalidTablePropertyClass + "] '" +
            delta::kAutoTtlExpireInDaysKey + "' and '" + delta::kAutoTtlTimestampColumnKey +
            "' must be set or unset together (or use ALTER TABLE … DELETE ROWS n DAYS "
            "AFTER column / DROP ROW DELETION).",
        delta::kInvalidTablePropertyClass);
  }
  return Status::OK();
}

Result<CommandResult> SetProperties(const sql::AlterTableStatement& stmt,
                                    const planner::ResolvedTable& t, CommandContext& ctx) {
  const delta::Snapshot& snap = *t.snapshot;
  Change change{snap.metadata(), std::nullopt, "SET TBLPROPERTIES", {}};
  SILT_RETURN_NOT_OK(CheckAutoTtlPropertiesGiven(stmt.properties));
  delta::StringMap given;
  for (const auto& [k, v] : stmt.properties) {
    std::string lower = planner::LowerName(k);
    if (lower.rfind(kConstraintPrefix, 0) == 0) {
      return Status::InvalidArgument(
          "Please use ALTER TABLE ADD CONSTRAINT to add CHECK constraints.",
          errc::kDeltaAddConstraints);
    }
    if (k == "location") {
      return Status::InvalidArgument(
          "Cannot change the 'location' of the Delta table "
          "using SET TBLPROPERTIES. Please use ALTER TABLE SET LOCATION instead.",
          errc::kDeltaCannotChangeLocation);
    }
    if (k == "provider") {
      return Status::InvalidArgument(
          "'provider' is a reserved table property, and cannot "
          "be altered.",
          errc::kDeltaCannotChangeProvider);
    }
    if (lower == "delta.feature.clustering") {
      // Delta: the feature comes with CLUSTER BY, never from a property.
      return Status::InvalidArgument(
          "Cannot enable clustering table feature using ALTER TABLE SET TBLPROPERTIES. Please use "
          "CREATE OR REPLACE TABLE CLUSTER BY to create a Delta table with clustering.",
          errc::kDeltaAlterTableSetClusteringTableFeatureNotAllowed);
    }
    if (k == "comment") {
      change.metadata.description = v;
      continue;
    }
    given.Set(k, v);
  }
  SILT_ASSIGN_OR_RETURN(
      delta::StringMap props,
      delta::ValidateTableProperties(
          given,
          ctx.config->GetBool("spark.databricks.delta.allowArbitraryProperties.enabled", false)));

  // Protocol properties change the protocol action, not the configuration.
  delta::Protocol proto = snap.protocol();
  std::vector<std::string> features;
  auto version = [&](const char* key, int current) -> Result<int> {
    const std::string* v = props.Find(key);
    if (!v) return current;
    int want = std::atoi(v->c_str());
    if (want < current) {
      return Status::InvalidArgument("Protocol version cannot be downgraded from (" +
                                         std::to_string(snap.protocol().min_reader_version) + "," +
                                         std::to_string(snap.protocol().min_writer_version) +
                                         ") to " + key + " = " + *v,
                                     errc::kDeltaInvalidProtocolDowngrade);
    }
    return want;
  };
  SILT_ASSIGN_OR_RETURN(int reader, version("delta.minReaderVersion", proto.min_reader_version));
  SILT_ASSIGN_OR_RETURN(int writer, version("delta.minWriterVersion", proto.min_writer_version));
  delta::StringMap config = snap.metadata().configuration;
  for (const auto& [k, v] : props) {
    if (k == "delta.minReaderVersion" || k == "delta.minWriterVersion") continue;
    if (k.rfind("delta.feature.", 0) == 0) {  // validated: Delta's spelling of the name
      features.push_back(k.substr(std::string_view("delta.feature.").size()));
      continue;
    }
    config.Set(k, v);
  }
  if (reader > proto.min_reader_version || writer > proto.min_writer_version) {
    if (reader >= 3 && writer < 7) {
      return Status::InvalidArgument("reader version 3 needs writer version 7",
                                     errc::kDeltaInvalidProtocolVersion);
    }
    // Table-features versions list what the legacy versions implied.
    delta::Protocol up = proto;
    up.min_reader_version = reader;
    up.min_writer_version = writer;
    if (writer == 7 && !proto.writer_features) {
      up.writer_features = std::vector<std::string>{};
      for (const char* f : {"appendOnly", "invariants", "checkConstraints", "changeDataFeed",
                            "generatedColumns", "columnMapping", "identityColumns"}) {
        if (delta::HasFeature(proto, f)) up.writer_features->push_back(f);
      }
    }
    if (reader == 3 && !proto.reader_features) {
      up.reader_features = std::vector<std::string>{};
      if (proto.min_reader_version >= 2) up.reader_features->push_back("columnMapping");
    }
    proto = up;
  }
  proto = delta::WithFeatures(proto, features);

  // Column mapping: none → name/id assigns ids, keeping the current names as physical names.
  SILT_ASSIGN_OR_RETURN(delta::ColumnMappingMode old_mode,
                        delta::ParseColumnMappingMode(
                            snap.metadata().configuration.Find("delta.columnMapping.mode")
                                ? std::optional<std::string>(*snap.metadata().configuration.Find(
                                      "delta.columnMapping.mode"))
                                : std::nullopt));
  if (const std::string* m = props.Find("delta.columnMapping.mode")) {
    SILT_ASSIGN_OR_RETURN(delta::ColumnMappingMode new_mode, delta::ParseColumnMappingMode(*m));
    if (new_mode != old_mode) {
      if (old_mode != delta::ColumnMappingMode::kNone ||
          new_mode != delta::ColumnMappingMode::kName) {
        return Status::InvalidArgument(
            "Changing column mapping mode from '" +
                std::string(old_mode == delta::ColumnMappingMode::kNone   ? "none"
                            : old_mode == delta::ColumnMappingMode::kName ? "name"
                                                                          : "id") +
                "' to '" + planner::LowerName(*m) + "' is not supported.",
            errc::kDeltaUnsupportedColumnMappingModeChange);
      }
      int64_t max_id = 0;
      Schema mapped =
          delta::AssignColumnMapping(snap.schema(), &max_id, delta::PhysicalNames::kLogical);
      change.metadata.schema_string = delta::SerializeSchema(mapped);
      config.Set("delta.columnMapping.maxColumnId", std::to_string(max_id));
    }
  }
  // Features whose enablement on a table with history needs more than a metadata change.
  auto turning_on = [&](const char* key) {
    return delta::GetBoolProperty(config, key, false).ValueOr(false) &&
           !delta::GetBoolProperty(snap.metadata().configuration, key, false).ValueOr(false);
  };
  if (turning_on("delta.enableRowTracking")) {
    return Status::NotImplemented(
        "enabling row tracking on an existing table needs a backfill of row ids, which silt "
        "does not implement yet",
        errc::kNotImplemented);
  }
  if (turning_on("delta.enableInCommitTimestamps")) {
    return Status::NotImplemented(
        "enabling in-commit timestamps on an existing table is not implemented yet",
        errc::kNotImplemented);
  }
  // Auto-TTL keys (given now, or already set when column mapping turns on) pass the DDL's checks.
  SILT_ASSIGN_OR_RETURN(Schema new_schema,
                        delta::ParseSchemaString(change.metadata.schema_string.value_or("{}")));
  SILT_RETURN_NOT_OK(delta::NormalizeAutoTtlConfiguration(&config, new_schema, CaseSensitive(ctx)));
  change.metadata.configuration = config;
  change.protocol = proto;
  std::string params = "{";
  for (const auto& [k, v] : stmt.properties)
    params +=
        (params.size() > 1 ? "," : "") + Json(delta::NormalizeTablePropertyKey(k)) + ":" + Json(v);
  change.parameters.Set("properties", Json(params + "}"));
  SILT_RETURN_NOT_OK(CommitChange(t, std::move(change), ctx));
  return CommandResult{};
}

Result<CommandResult> UnsetProperties(const sql::AlterTableStatement& stmt,
                                      const planner::ResolvedTable& t, CommandContext& ctx) {
  const delta::Snapshot& snap = *t.snapshot;
  Change change{snap.metadata(), std::nullopt, "UNSET TBLPROPERTIES", {}};
  std::vector<std::string> keys;
  sql::PropertyList unset;
  for (const auto& k : stmt.keys) unset.emplace_back(k, "");
  SILT_RETURN_NOT_OK(CheckAutoTtlPropertiesGiven(unset));
  for (const auto& k : stmt.keys) {
    keys.push_back(delta::IsAutoTtlKey(k) ? delta::CanonicalAutoTtlKey(k)
                                          : delta::NormalizeTablePropertyKey(k));
  }
  // Both policy keys go: so does the column-mapping id that belongs to them.
  for (const auto& k : keys) {
    if (k == delta::kAutoTtlExpireInDaysKey)
      change.metadata.configuration.Erase(delta::kAutoTtlTimestampColumnIdKey);
  }
  for (const auto& k : keys) {
    if (k == "delta.columnMapping.mode" &&
        snap.column_mapping_mode() != delta::ColumnMappingMode::kNone) {
      return Status::NotImplemented(
          "removing column mapping (it rewrites every data file) is not implemented yet",
          errc::kNotImplemented);
    }
    if (k == "comment") {
      change.metadata.description.reset();
      continue;
    }
    if (!change.metadata.configuration.Erase(k) && !stmt.if_exists) {
      return Status::InvalidArgument(
          "Attempted to unset non-existent property '" + k + "' in table " + t.display_name,
          errc::kDeltaUnsetNonExistentProperty);
    }
  }
  change.parameters.Set("properties", Json(JsonList(keys)));
  change.parameters.Set("ifExists", stmt.if_exists ? "true" : "false");
  SILT_RETURN_NOT_OK(CommitChange(t, std::move(change), ctx));
  return CommandResult{};
}

Result<CommandResult> AddColumns(const sql::AlterTableStatement& stmt,
                                 const planner::ResolvedTable& t, CommandContext& ctx) {
  const delta::Snapshot& snap = *t.snapshot;
  Change change{snap.metadata(), std::nullopt, "ADD COLUMNS", {}};
  Schema schema = snap.schema();
  const bool mapped = snap.column_mapping_mode() != delta::ColumnMappingMode::kNone;
  const std::string* max = snap.metadata().configuration.Find("delta.columnMapping.maxColumnId");
  int64_t max_id = max ? std::atoll(max->c_str()) : 0;
  std::string params = "[";
  for (const sql::ColumnDef& c : stmt.columns) {
    if (!c.nullable) {
      return Status::InvalidArgument(
          "Operation not allowed: `NOT NULL in ALTER TABLE ADD "
          "COLUMNS` is not supported for Delta tables",
          errc::kDeltaOperationNotAllowed);
    }
    // Delta (SchemaUtils.addColumn) refuses a DEFAULT here whatever the table's features: rows
    // written before would need it too. GENERATED / IDENTITY are not in the grammar (parser).
    if (c.default_value) {
      return Status::InvalidArgument(
          "Failed to execute the command because DEFAULT values are not supported when adding "
          "new columns to previously existing Delta tables; please add the column without a "
          "default value first, then run a second ALTER TABLE ALTER COLUMN SET DEFAULT command "
          "to apply for future inserted rows instead.",
          errc::kWrongColumnDefaultsForDeltaAlterTableAddColumnNotSupported);
    }
    if (c.type->id() == TypeId::kNull) {
      return Status::InvalidArgument(
          "Column `" + c.name + "` has type void, which Delta tables do not support.",
          errc::kDeltaColumnDataTypeNotSupported);
    }
    SILT_RETURN_NOT_OK(RefuseCalendarInterval(c.type));
    if (c.type->is_interval() || c.type->id() == TypeId::kTime ||
        c.type->id() == TypeId::kTimestampNanos || c.type->id() == TypeId::kTimestampNtzNanos) {
      return Status::InvalidArgument("Found columns using unsupported data types: [" + c.name +
                                         ": " + c.type->ToString() +
                                         "]. Delta tables cannot store interval, TIME or "
                                         "nanosecond timestamp values.",
                                     errc::kDeltaUnsupportedDataTypes);
    }
    SILT_ASSIGN_OR_RETURN(FieldPath at, Locate(&schema, c.name, "Cannot add a column to"));
    if (at.index >= 0) {
      return Status::InvalidArgument("Cannot add column, because `" + at.leaf +
                                         "` already exists in " +
                                         DataType::Struct(*at.fields)->ToString() + ".",
                                     errc::kFieldAlreadyExists);
    }
    SILT_ASSIGN_OR_RETURN(std::string metadata, WithComment("{}", c.comment));
    Field f{at.leaf, c.type, true, metadata};
    if (mapped)
      f = delta::AssignColumnMapping({f}, &max_id)[0];  // new columns get fresh ids and names
    std::string position;
    const std::string param = FieldParam(c.name, f);
    SILT_RETURN_NOT_OK(InsertAtPosition(at.fields, std::move(f), c, at.fields->size(), &position));
    params += std::string(params.size() > 1 ? "," : "") + "{\"column\":" + param +
              (position.empty() ? "" : ",\"position\":" + Json(position)) + "}";
  }
  if (mapped)
    change.metadata.configuration.Set("delta.columnMapping.maxColumnId", std::to_string(max_id));
  change.metadata.schema_string = delta::SerializeSchema(schema);
  change.parameters.Set("columns", Json(params + "]"));
  SILT_RETURN_NOT_OK(CommitChange(t, std::move(change), ctx));
  return CommandResult{};
}

bool IsPartitionColumn(const delta::Snapshot& snap, const std::string& name) {
  for (const auto& p : snap.partition_columns()) {
    if (planner::LowerName(p) == planner::LowerName(name)) return true;
  }
  return false;
}

Result<CommandResult> DropColumns(const sql::AlterTableStatement& stmt,
                                  const planner::ResolvedTable& t, CommandContext& ctx) {
  const delta::Snapshot& snap = *t.snapshot;
  for (const std::string& name : stmt.column_names) {
    SILT_RETURN_NOT_OK(
        delta::CheckAutoTtlColumnDrop(snap.metadata().configuration, name, CaseSensitive(ctx)));
  }
  SILT_RETURN_NOT_OK(RequireColumnMapping(snap, "DROP COLUMN", errc::kDeltaUnsupportedDropColumn));
  Schema schema = snap.schema();
  SILT_ASSIGN_OR_RETURN(std::vector<std::string> clustering, delta::ClusteringColumns(snap));
  std::vector<std::string> dropped;
  for (const std::string& name : stmt.column_names) {
    Result<FieldPath> at = Locate(&schema, name, "Cannot drop a column of");
    if (!at.ok() || at->index < 0) {
      if (stmt.if_exists) continue;
      return ColumnNotFound(name);
    }
    if (at->parent.empty() && !clustering.empty()) {
      for (const auto& c : clustering) {
        if (planner::LowerName(c) == planner::LowerName(at->leaf)) {
          return Status::InvalidArgument("Dropping clustering columns (" + c + ") is not allowed.",
                                         errc::kDeltaUnsupportedDropClusteringColumn);
        }
      }
    }
    if (at->parent.empty() && IsPartitionColumn(snap, at->leaf)) {
      return Status::InvalidArgument(
          "Dropping partition columns (" + at->leaf + ") is not allowed.",
          errc::kDeltaUnsupportedDropPartitionColumn);
    }
    if (at->fields->size() == 1) {
      return Status::InvalidArgument(
          "Cannot drop column from a schema with a "
          "single column. Schema:\n" +
              DataType::Struct(schema)->ToString(),
          errc::kDeltaDropColumnOnSingleFieldSchema);
    }
    SILT_RETURN_NOT_OK(
        CheckNoDependentConstraints(snap, at->parent.empty() ? at->leaf : at->parent.front(), ctx));
    at->fields->erase(at->fields->begin() + at->index);
    dropped.push_back(name);
  }
  if (dropped.empty()) return CommandResult{};  // IF EXISTS and nothing to drop: no commit
  Change change{snap.metadata(), std::nullopt, "DROP COLUMNS", {}};
  change.metadata.schema_string = delta::SerializeSchema(schema);
  change.parameters.Set("columns", Json(JsonList(dropped)));
  SILT_RETURN_NOT_OK(CommitChange(t, std::move(change), ctx));
  return CommandResult{};
}

Result<CommandResult> RenameColumn(const sql::AlterTableStatement& stmt,
                                   const planner::ResolvedTable& t, CommandContext& ctx) {
  const delta::Snapshot& snap = *t.snapshot;
  SILT_RETURN_NOT_OK(delta::CheckAutoTtlColumnRename(snap.metadata().configuration,
                                                     stmt.column_names.at(0), CaseSensitive(ctx)));
  SILT_RETURN_NOT_OK(
      RequireColumnMapping(snap, "Column rename", errc::kDeltaUnsupportedRenameColumn));
  Schema schema = snap.schema();
  const std::string& old_name = stmt.column_names.at(0);
  SILT_ASSIGN_OR_RETURN(FieldPath at, Locate(&schema, old_name, "Cannot rename a column of"));
  if (at.index < 0) return ColumnNotFound(old_name);
  int clash = FindField(*at.fields, stmt.new_name);
  if (clash >= 0 && clash != at.index) {
    return Status::InvalidArgument(
        "Found duplicate column(s) in the data to save: " + planner::LowerName(stmt.new_name),
        errc::kDeltaDuplicateColumnsFound);
  }
  SILT_RETURN_NOT_OK(
      CheckNoDependentConstraints(snap, at.parent.empty() ? at.leaf : at.parent.front(), ctx));
  Field& renamed = (*at.fields)[static_cast<size_t>(at.index)];
  const std::string current = renamed.name;
  renamed.name = stmt.new_name;
  Change change{snap.metadata(), std::nullopt, "RENAME COLUMN", {}};
  change.metadata.schema_string = delta::SerializeSchema(schema);
  if (at.parent.empty()) {
    for (auto& p : change.metadata.partition_columns) {
      if (planner::LowerName(p) == planner::LowerName(current)) p = stmt.new_name;
    }
  }
  std::string new_path;
  for (const auto& p : at.parent) new_path += p + ".";
  change.parameters.Set("oldColumnPath", Json(old_name));
  change.parameters.Set("newColumnPath", Json(new_path + stmt.new_name));
  SILT_RETURN_NOT_OK(CommitChange(t, std::move(change), ctx));
  return CommandResult{};
}

// ALTER|CHANGE COLUMN c COMMENT '…' | DROP NOT NULL | TYPE <same type> | FIRST | AFTER x.
Result<CommandResult> AlterColumn(const sql::AlterTableStatement& stmt,
                                  const planner::ResolvedTable& t, CommandContext& ctx) {
  const delta::Snapshot& snap = *t.snapshot;
  Schema schema = snap.schema();
  const sql::ColumnDef& c = stmt.columns.at(0);
  SILT_ASSIGN_OR_RETURN(FieldPath at, Locate(&schema, c.name, "Cannot change a column of"));
  if (at.index < 0) return ColumnNotFound(c.name);
  Field f = (*at.fields)[static_cast<size_t>(at.index)];
  auto unsupported = [&](const std::string& to) {
    return Status::InvalidArgument(
        "ALTER TABLE CHANGE COLUMN is not "
        "supported for changing column " +
            c.name + " from " + f.type->ToString() + (f.nullable ? "" : " NOT NULL") + " to " + to,
        errc::kDeltaUnsupportedAlterTableChangeColOp);
  };
  if (stmt.new_type && at.parent.empty()) {
    SILT_RETURN_NOT_OK(delta::CheckAutoTtlColumnType(snap.metadata().configuration, f.name,
                                                     *stmt.new_type, CaseSensitive(ctx)));
  }
  if (stmt.new_type && !stmt.new_type->Equals(*f.type))
    return unsupported(stmt.new_type->ToString());
  if (stmt.set_not_null && *stmt.set_not_null && f.nullable)
    return unsupported(f.type->ToString() + " NOT NULL");
  if (stmt.set_not_null && !*stmt.set_not_null) f.nullable = true;
  if (stmt.new_comment) {
    SILT_ASSIGN_OR_RETURN(f.metadata_json, WithComment(f.metadata_json, *stmt.new_comment));
  }
  if (c.default_value || c.drop_default) {
    // SET / DROP DEFAULT: CURRENT_DEFAULT in the column's metadata (allowColumnDefaults).
    if (c.default_value) {
      if (!delta::HasFeature(snap.protocol(), "allowColumnDefaults")) {
        return Status::InvalidArgument(
            "Failed to execute ALTER TABLE command because it assigned a column DEFAULT value, "
            "but the corresponding table feature was not enabled. Please retry the command again "
            "after executing ALTER TABLE tableName SET "
            "TBLPROPERTIES('delta.feature.allowColumnDefaults' = 'supported').",
            errc::kWrongColumnDefaultsForDeltaFeatureNotEnabled);
      }
      SILT_ASSIGN_OR_RETURN(std::string text,
                            CheckDefaultExpression(c.default_text, f, "ALTER TABLE", ctx));
      std::string v;
      delta::AppendJacksonString(&v, text);
      f.metadata_json = SetFieldMetadata(f.metadata_json, "CURRENT_DEFAULT", v);
    } else {
      f.metadata_json = SetFieldMetadata(f.metadata_json, "CURRENT_DEFAULT", "");
    }
  }
  if (c.identity) {
    // SYNC IDENTITY: the high-water mark follows the column's values (IdentityColumn.scala):
    // the first start + n * step at or beyond the largest (smallest, for a negative step) value,
    // never below the current mark.
    Schema one{f};
    SILT_ASSIGN_OR_RETURN(ColumnValueRules rules, ReadColumnValueRules(one));
    if (!at.parent.empty() || !rules.identity[0]) {
      return Status::InvalidArgument(
          "ALTER TABLE ALTER COLUMN SYNC IDENTITY cannot be called on non IDENTITY columns.",
          errc::kDeltaIdentityColumnsAlterNonIdentityColumn);
    }
    const IdentitySpec& id = *rules.identity[0];
    delta::TableScanOptions so;
    so.columns = {f.name};
    SILT_ASSIGN_OR_RETURN(std::unique_ptr<delta::TableScan> scan,
                          delta::TableScan::Make(t.snapshot, so));
    std::optional<int64_t> extreme;
    DataChunk chunk;
    while (true) {
      SILT_ASSIGN_OR_RETURN(bool more, scan->Next(&chunk));
      if (!more) break;
      const Vector& col = chunk.columns[0];
      for (size_t r = 0; r < chunk.size(); ++r) {
        if (col.IsNull(r)) continue;
        const int64_t x = col.Get<int64_t>(r);
        if (!extreme || (id.step > 0 ? x > *extreme : x < *extreme)) extreme = x;
      }
    }
    if (extreme) {
      const __int128 step = id.step, start = id.start, x = *extreme;
      __int128 n = 0;
      if ((step > 0 && x > start) || (step < 0 && x < start))
        n = (x - start + step - (step > 0 ? 1 : -1)) / step;
      __int128 mark = start + n * step;
      if (id.high_water_mark)
        mark = step > 0 ? std::max<__int128>(mark, *id.high_water_mark)
                        : std::min<__int128>(mark, *id.high_water_mark);
      if (mark <= INT64_MAX && mark >= INT64_MIN) {
        std::string v;
        delta::AppendInt(&v, static_cast<int64_t>(mark));
        f.metadata_json = SetFieldMetadata(f.metadata_json, "delta.identity.highWaterMark", v);
      }
    }
  }
  at.fields->erase(at.fields->begin() + at.index);
  std::string position;
  const std::string param = FieldParam(c.name, f);
  SILT_RETURN_NOT_OK(
      InsertAtPosition(at.fields, std::move(f), c, static_cast<size_t>(at.index), &position));
  Change change{snap.metadata(), std::nullopt, "CHANGE COLUMN", {}};
  change.metadata.schema_string = delta::SerializeSchema(schema);
  change.parameters.Set("column", Json(param));
  if (!position.empty()) change.parameters.Set("position", Json(position));
  SILT_RETURN_NOT_OK(CommitChange(t, std::move(change), ctx));
  return CommandResult{};
}

Result<CommandResult> AddConstraint(const sql::AlterTableStatement& stmt,
                                    const planner::ResolvedTable& t, CommandContext& ctx) {
  const delta::Snapshot& snap = *t.snapshot;
  const std::string name = planner::LowerName(stmt.constraint_name);
  const std::string key = kConstraintPrefix + name;
  if (const std::string* old = snap.metadata().configuration.Find(key)) {
    return Status::InvalidArgument(
        "Constraint '" + name +
            "' already exists. Please delete the old constraint first.\nOld constraint:\n" + *old,
        errc::kDeltaConstraintAlreadyExists);
  }
  const std::string& sql = stmt.constraint_text;
  SILT_ASSIGN_OR_RETURN(BoundCheck check, BindCheck(name, sql, snap.schema(), ctx));
  // Every live row must satisfy the new constraint (DeltaErrors.newCheckConstraintViolated).
  SILT_ASSIGN_OR_RETURN(std::unique_ptr<delta::TableScan> scan, delta::TableScan::Make(t.snapshot));
  exec::EvalContext eval = ctx.binder->context().eval;
  int64_t violating = 0;
  DataChunk chunk;
  while (true) {
    SILT_ASSIGN_OR_RETURN(bool more, scan->Next(&chunk));
    if (!more) break;
    SILT_ASSIGN_OR_RETURN(std::vector<uint32_t> bad, CheckViolations(check, chunk, eval));
    violating += static_cast<int64_t>(bad.size());
  }
  if (violating > 0) {
    return Status::InvalidArgument(std::to_string(violating) + " rows in " + t.display_name +
                                       " violate the new CHECK constraint (" + sql + ")",
                                   errc::kDeltaNewCheckConstraintViolation);
  }
  Change change{snap.metadata(), std::nullopt, "ADD CONSTRAINT", {}};
  change.metadata.configuration.Set(key, sql);
  change.parameters.Set("name", Json(name));
  change.parameters.Set("expr", Json(sql));
  SILT_RETURN_NOT_OK(CommitChange(t, std::move(change), ctx));
  return CommandResult{};
}

Result<CommandResult> DropConstraint(const sql::AlterTableStatement& stmt,
                                     const planner::ResolvedTable& t, CommandContext& ctx) {
  const delta::Snapshot& snap = *t.snapshot;
  const std::string name = planner::LowerName(stmt.constraint_name);
  const std::string* old = snap.metadata().configuration.Find(kConstraintPrefix + name);
  if (!old && !stmt.if_exists) {
    return Status::InvalidArgument(
        "Cannot drop nonexistent constraint " + name + " from table " + t.display_name +
            ". To ignore this error, add the parameter IF EXISTS or set the SQL session "
            "configuration spark.databricks.delta.constraints.allowUnenforcedNotNull.enabled "
            "to true.",
        errc::kDeltaConstraintDoesNotExist);
  }
  Change change{snap.metadata(), std::nullopt, "DROP CONSTRAINT", {}};
  change.parameters.Set("name", Json(name));
  if (old) change.parameters.Set("expr", Json(*old));
  change.parameters.Set("existed", old ? "\"true\"" : "\"false\"");
  change.metadata.configuration.Erase(kConstraintPrefix + name);
  SILT_RETURN_NOT_OK(CommitChange(t, std::move(change), ctx));
  return CommandResult{};
}

// ALTER TABLE t RENAME TO u: a catalog operation (no commit). A managed table's directory moves
// to the new name's location, as Spark's session catalog does; an external table keeps its
// location. The new name is registered first (put-if-absent), so a concurrent rename or create
// of that name fails instead of being overwritten.
Result<CommandResult> RenameTable(const sql::AlterTableStatement& stmt,
                                  const planner::ResolvedTable& t, CommandContext& ctx) {
  if (!t.entry || t.is_temp_view) {
    return Status::InvalidArgument(
        "The feature is not supported: Table " + t.display_name +
            " does not support RENAME TO (only catalog tables can be renamed).",
        errc::kUnsupportedFeatureTableOperation);
  }
  const planner::TableEntry& old = *t.entry;
  std::vector<std::string> parts;
  for (size_t b = 0, e; b <= stmt.new_name.size(); b = e + 1) {
    e = stmt.new_name.find('.', b);
    if (e == std::string::npos) e = stmt.new_name.size();
    parts.push_back(stmt.new_name.substr(b, e - b));
  }
  planner::TableEntry renamed = old;
  renamed.name = planner::LowerName(parts.back());
  if (parts.size() >= 2 && planner::LowerName(parts[parts.size() - 2]) != old.schema) {
    return Status::InvalidArgument("The feature is not supported: RENAME TO another schema (`" +
                                       old.schema + "` to `" +
                                       planner::LowerName(parts[parts.size() - 2]) + "`).",
                                   errc::kUnsupportedFeatureTableOperation);
  }
  if (ctx.catalog->TableExists(old.schema, renamed.name)) {
    return Status::AlreadyExists("Cannot rename to `" + old.schema + "`.`" + renamed.name +
                                     "` because a table or view of that name already exists.",
                                 errc::kTableOrViewAlreadyExists);
  }
  if (old.managed) {
    renamed.location = ctx.catalog->ManagedLocation(old.schema, renamed.name);
    SILT_ASSIGN_OR_RETURN(bool exists, LocationExists(renamed.location));
    if (exists) {
      return Status::AlreadyExists("Cannot name the managed table as `" + old.schema + "`.`" +
                                       renamed.name + "`, as its associated location '" +
                                       renamed.location +
                                       "' already exists. Please pick a different table name, or "
                                       "remove the existing location first.",
                                   errc::kLocationAlreadyExists);
    }
  }
  SILT_RETURN_NOT_OK(ctx.catalog->RegisterTable(renamed));
  if (old.managed) {
    Status moved = MoveLocation(old.location, renamed.location);
    if (!moved.ok()) {
      (void)ctx.catalog->UnregisterTable(old.schema, renamed.name);
      return Status::IoError("cannot move " + old.location + " to " + renamed.location + ": " +
                             std::string(moved.message()));
    }
  }
  SILT_RETURN_NOT_OK(ctx.catalog->UnregisterTable(old.schema, old.name));
  return CommandResult{};
}

}  // namespace

// ALTER TABLE t CLUSTER BY (cols) | CLUSTER BY NONE (Delta's AlterTableClusterByDeltaCommand):
// sets the delta.clustering domain, turning the clustering feature on for a table that has not
// got it; NONE on an unclustered table does nothing. Existing files stay as they are; OPTIMIZE
// reclusters them (files clustered by other columns only with OPTIMIZE FULL).
Result<CommandResult> ClusterBy(const sql::AlterTableStatement& stmt,
                                const planner::ResolvedTable& t, CommandContext& ctx) {
  const delta::Snapshot& snap = *t.snapshot;
  const Schema& schema = snap.schema();
  // The columns are checked first (Delta's validateClusterBySpec), then the partitioning.
  SILT_ASSIGN_OR_RETURN(
      std::vector<std::string> columns,
      delta::ResolveClusteringColumns(schema, snap.metadata().configuration, stmt.column_names));
  if (!snap.partition_columns().empty()) {
    return Status::InvalidArgument(
        "ALTER TABLE CLUSTER BY cannot be applied to a partitioned table.",
        errc::kDeltaAlterTableClusterByOnPartitionedTableNotAllowed);
  }
  const bool clustered = delta::IsClusteredTable(snap);
  if (stmt.column_names.empty() && !clustered) return CommandResult{};
  SILT_ASSIGN_OR_RETURN(std::vector<std::string> old, delta::ClusteringColumns(snap));
  delta::Protocol proto = snap.protocol();
  if (!clustered) proto = delta::WithFeatures(proto, {"domainMetadata", delta::kClusteringFeature});
  SILT_RETURN_NOT_OK(delta::CheckWriteSupported(proto, snap.metadata(), false, t.display_name));
  delta::TransactionOptions topts;
  topts.clock = ctx.clock;
  delta::Transaction txn(t.store, t.snapshot, topts);
  txn.SetReadScope(delta::ReadScope::kWholeTable);
  if (proto != snap.protocol()) txn.UpdateProtocol(proto);
  txn.SetDomain(delta::ClusteringDomainFor(schema, snap.column_mapping_mode(), columns));
  auto join = [](const std::vector<std::string>& v) {
    std::string out;
    for (const auto& c : v) out += (out.empty() ? "" : ",") + c;
    return out;
  };
  delta::StringMap params;
  params.Set("oldClusteringColumns", Json(join(old)));
  params.Set("newClusteringColumns", Json(join(columns)));
  txn.SetOperation("CLUSTER BY", params);
  SILT_RETURN_NOT_OK(txn.Commit().status());
  return CommandResult{};
}

Result<CommandResult> AlterTable(const sql::AlterTableStatement& stmt, CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t,
                        ctx.binder->ResolveTable(stmt.name, std::nullopt));
  if (t.is_system) SILT_RETURN_NOT_OK(planner::ExpectTable(t, "ALTER TABLE"));  // read-only
  // File-source tables (USING parquet | json) have no Delta log to change.
  if (t.entry && planner::IsFileSourceTable(*t.entry))
    SILT_RETURN_NOT_OK(planner::ExpectTable(t, "ALTER TABLE"));
  using A = sql::AlterTableStatement::Action;
  if (t.is_view && stmt.action == A::kSetTtl) {
    return Status::InvalidArgument(
        "Auto-TTL (DELETE ROWS … AFTER / DROP ROW "
        "DELETION) needs a Delta table; " +
            t.display_name + " is a view.",
        errc::kAutoTtlUnsupportedTableType);
  }
  if (t.is_view) {
    return Status::InvalidArgument(
        "'ALTER TABLE' expects a table but " + t.display_name + " is a view.",
        errc::kExpectTableNotViewNoAlternative);
  }
  switch (stmt.action) {
    case A::kSetProperties:
      return SetProperties(stmt, t, ctx);
    case A::kUnsetProperties:
      return UnsetProperties(stmt, t, ctx);
    case A::kAddColumns:
      return AddColumns(stmt, t, ctx);
    case A::kDropColumns:
      return DropColumns(stmt, t, ctx);
    case A::kRenameColumn:
      return RenameColumn(stmt, t, ctx);
    case A::kAlterColumn:
      return AlterColumn(stmt, t, ctx);
    case A::kAddConstraint:
      return AddConstraint(stmt, t, ctx);
    case A::kDropConstraint:
      return DropConstraint(stmt, t, ctx);
    case A::kRenameTable:
      return RenameTable(stmt, t, ctx);
    case A::kSetTtl:
      return SetTtl(stmt, t, ctx);
    case A::kClusterBy:
      return ClusterBy(stmt, t, ctx);
    case A::kDropFeature:
      return DropFeature(stmt, t, ctx);
  }
  return Status::NotImplemented("this ALTER TABLE form is not implemented yet",
                                errc::kNotImplemented);
}

}  // namespace silt::commands
