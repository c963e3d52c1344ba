// CREATE [OR REPLACE] TABLE [IF NOT EXISTS] … USING DELTA, and CTAS; CREATE TABLE … USING
// PARQUET | JSON (file-source tables, planner/file_source.h).

#include <functional>
#include <utility>

#include "commands/column_values.h"
#include "commands/command.h"
#include "commands/streaming_table.h"
#include "common/error_classes.h"
#include "delta/actions.h"
#include "delta/auto_ttl.h"
#include "delta/clustering.h"
#include "delta/iceberg_compat.h"
#include "delta/json_util.h"
#include "delta/schema_json.h"
#include "delta/snapshot.h"
#include "delta/streaming_write.h"
#include "delta/table_features.h"
#include "delta/table_properties.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "io/object_store_factory.h"
#include "planner/file_source.h"

namespace silt::commands {

namespace {

std::string CommentMetadata(const std::string& comment) {
  if (comment.empty()) return "{}";
  std::string out = "{\"comment\":";
  delta::AppendJacksonString(&out, comment);
  return out + "}";
}

// CREATE TABLE … CLUSTER BY over an existing table (Delta's
// validateClusteringColumnsInSnapshot): the columns must be the table's clustering columns.
Status CheckSameClustering(const delta::Snapshot& snap, const std::vector<std::string>& given) {
  SILT_ASSIGN_OR_RETURN(std::vector<std::string> have, delta::ClusteringColumns(snap));
  bool same = have.size() == given.size();
  for (size_t i = 0; same && i < have.size(); ++i)
    same = planner::LowerName(have[i]) == planner::LowerName(given[i]);
  if (same) return Status::OK();
  auto join = [](const std::vector<std::string>& v) {
    std::string out;
    for (const auto& c : v) out += (out.empty() ? "" : ",") + c;
    return out;
  };
  return Status::InvalidArgument(
      "The provided clustering columns do not match the existing table's.\n- provided: " +
          join(given) + "\n- existing: " + join(have),
      errc::kDeltaClusteringColumnsMismatch);
}

// CREATE TABLE … USING parquet | json [PARTITIONED BY (…)] [LOCATION …] [AS SELECT …]: Spark's
// data-source table. The catalog entry keeps the provider and the schema; CTAS rows go into
// plain files of that format (no Delta log).
Result<CommandResult> CreateFileSourceTable(const sql::CreateTableStatement& stmt,
                                            CommandContext& ctx) {
  const std::string& format = stmt.using_format;
  auto unsupported = [&](const std::string& what) {
    return Status::NotImplemented(
        what + " is not supported for CREATE TABLE … USING " + format + " (only Delta tables)",
        errc::kSiltUnsupportedDataSource);
  };
  if (stmt.name.is_path()) return unsupported("a path as table name");
  if (stmt.or_replace || stmt.replace_only) return unsupported("REPLACE TABLE");
  if (!stmt.cluster_by.empty()) return unsupported("CLUSTER BY");
  if (!stmt.constraints.empty()) return unsupported("CHECK constraints");
  if (stmt.ttl) return unsupported("DELETE ROWS … AFTER");
  if (!stmt.options.empty()) return unsupported("OPTIONS");
  for (const auto& c : stmt.columns) {
    if (c.generated_as || c.identity || c.default_value)
      return unsupported("DEFAULT, GENERATED or IDENTITY columns");
  }
  if (format == "json" && !stmt.partition_by.empty()) return unsupported("PARTITIONED BY");
  SILT_ASSIGN_OR_RETURN(CreateTarget target, ResolveCreateTarget(stmt.name, stmt.location, ctx));
  if (ctx.catalog->TableExists(target.schema, target.name)) {
    if (stmt.if_not_exists) return CommandResult{};
    return Status::AlreadyExists("Cannot create table or view `" + target.schema + "`.`" +
                                     target.name + "` because it already exists.",
                                 errc::kTableOrViewAlreadyExists);
  }
  Schema schema;
  for (const auto& c : stmt.columns)
    schema.push_back({c.name, c.type, c.nullable, CommentMetadata(c.comment)});
  planner::PlanPtr query;
  Schema qschema;
  if (stmt.as_query) {
    SILT_ASSIGN_OR_RETURN(query, ctx.binder->BindQuery(*stmt.as_query));
    for (const auto& c : query->columns) qschema.push_back({c.name, c.type, true, "{}"});
    if (schema.empty()) schema = qschema;
  }
  if (schema.empty()) {
    return Status::InvalidArgument(
        "Unable to infer schema for " + format + ". It must be specified manually.",
        errc::kUnableToInferSchema);
  }
  for (const auto& f : schema) SILT_RETURN_NOT_OK(RefuseCalendarInterval(f.type));
  for (size_t i = 0; i < schema.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (planner::LowerName(schema[i].name) == planner::LowerName(schema[j].name)) {
        return Status::InvalidArgument("The column `" + schema[i].name + "` already exists.",
                                       errc::kColumnAlreadyExists);
      }
    }
  }
  // Partition columns go last, in PARTITIONED BY order (Spark's DataSource tables).
  Schema ordered;
  std::vector<bool> is_part(schema.size());
  std::vector<std::string> partition_columns;
  for (const auto& p : stmt.partition_by) {
    int fi = FindField(schema, p);
    if (fi < 0) {
      return Status::InvalidArgument(
          "The column `" + p + "` is not defined in table " + target.display + ".",
          errc::kColumnNotDefinedInTable);
    }
    is_part[fi] = true;
    partition_columns.push_back(schema[fi].name);
  }
  for (size_t i = 0; i < schema.size(); ++i)
    if (!is_part[i]) ordered.push_back(schema[i]);
  for (const auto& p : partition_columns) ordered.push_back(schema[FindField(schema, p)]);
  const bool cast = query && !stmt.columns.empty();
  // The CTAS rows in the table's column order.
  std::vector<int> order;
  for (const auto& f : ordered) order.push_back(FindField(schema, f.name));

  planner::TableEntry e;
  e.schema = target.schema;
  e.name = target.name;
  e.location = target.location;
  e.managed = target.managed;
  e.format = format;
  e.comment = stmt.comment;
  e.view_text = delta::SerializeSchema(ordered);  // the schema (planner/catalog.h)
  e.view_columns = partition_columns;             // the partition columns
  if (!query) {
    SILT_RETURN_NOT_OK(ctx.catalog->RegisterTable(e));
    return CommandResult{};
  }
  SILT_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> store,
                        planner::OpenTableStore(target.location, ctx.clock));
  const std::string time_zone = ctx.binder->context().bind.time_zone;
  delta::RowSource rows = [&](const std::function<Status(const DataChunk&)>& out) -> Status {
    return StreamPlan(ctx, query, [&](DataChunk& c) -> Status {
      if (cast) {
        std::vector<DataChunk> one(1);
        one[0] = std::move(c);
        SILT_ASSIGN_OR_RETURN(one, CastChunks(one, qschema, schema, target.display, time_zone));
        c = std::move(one[0]);
      }
      DataChunk r;
      r.num_rows_without_columns = c.size();
      for (int i : order) r.columns.push_back(c.columns[static_cast<size_t>(i)]);
      return out(r);
    });
  };
  Status written;
  if (format == "json") {
    written = planner::WriteJsonFile(*store, ordered, rows, ctx.binder->context().bind,
                                     ctx.binder->context().eval)
                  .status();
  } else {
    delta::Metadata md;
    md.format.provider = format;
    md.schema_string = e.view_text;
    md.partition_columns = partition_columns;
    delta::DataWriteOptions write;
    write.clock = ctx.clock;
    written = delta::WriteDataFilesFrom(*store, md, ordered, rows, write).status();
  }
  if (!written.ok()) {
    if (target.managed) (void)DeleteLocation(target.location);
    return written;
  }
  SILT_RETURN_NOT_OK(ctx.catalog->RegisterTable(e));
  return CommandResult{};
}

}  // namespace

Result<CreateTarget> ResolveCreateTarget(const sql::TableName& tn, const std::string& location,
                                         CommandContext& ctx) {
  CreateTarget t;
  if (tn.is_path()) {
    t.location = tn.path;
    t.display = "delta.`" + tn.path + "`";
    t.managed = false;
    return t;
  }
  if (tn.parts.size() > 2 &&
      !(tn.parts.size() == 3 && planner::LowerName(tn.parts[0]) == "spark_catalog")) {
    return Status::InvalidArgument(tn.ToString() + " has too many name parts.",
                                   errc::kRequiresSinglePartNamespace);
  }
  t.catalog = true;
  t.schema = planner::LowerName(tn.parts.size() >= 2 ? tn.parts[tn.parts.size() - 2]
                                                     : *ctx.current_schema);
  t.name = planner::LowerName(tn.parts.back());
  if (!ctx.catalog->SchemaExists(t.schema)) {
    return Status::NotFound("The schema `" + t.schema + "` cannot be found.",
                            errc::kSchemaNotFound);
  }
  t.display = "spark_catalog." + t.schema + "." + t.name;
  t.managed = location.empty();
  t.location = location.empty() ? ctx.catalog->ManagedLocation(t.schema, t.name) : location;
  return t;
}

Result<CreateTarget> ResolveTableTarget(const sql::CreateTableStatement& stmt,
                                        CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(CreateTarget target, ResolveCreateTarget(stmt.name, stmt.location, ctx));
  const bool exists = target.catalog && ctx.catalog->TableExists(target.schema, target.name);
  target.exists = exists;
  if (exists && stmt.if_not_exists) {
    target.skip = true;
    return target;
  }
  if (exists && !stmt.or_replace) {
    return Status::AlreadyExists("Cannot create table or view `" + target.schema + "`.`" +
                                     target.name + "` because it already exists.",
                                 errc::kTableOrViewAlreadyExists);
  }
  if (stmt.replace_only && !exists && target.catalog) {
    return Status::NotFound("The table " + target.display + " cannot be found.",
                            errc::kTableOrViewNotFound);
  }
  if (exists) {
    SILT_ASSIGN_OR_RETURN(planner::TableEntry e, ctx.catalog->GetTable(target.schema, target.name));
    if (e.format == "view") {
      return Status::AlreadyExists("Cannot create table `" + target.schema + "`.`" + target.name +
                                       "` because a view of that name exists.",
                                   errc::kTableOrViewAlreadyExists);
    }
    target.location = e.location;
    target.managed = e.managed;
  }
  return target;
}

Result<CommandResult> CreateTable(const sql::CreateTableStatement& stmt, CommandContext& ctx) {
  if (const auto* st = dynamic_cast<const sql::StreamingTableStatement*>(&stmt)) {
    return StreamingTable(*st, ctx);
  }
  using C = sql::CreateTableStatement::CopyFrom;
  if (stmt.copy_from == C::kLike) return CreateTableLike(stmt, ctx);
  if (stmt.copy_from != C::kNone) return CloneTable(stmt, ctx);
  if (planner::IsFileSourceFormat(stmt.using_format)) return CreateFileSourceTable(stmt, ctx);
  if (!stmt.using_format.empty() && stmt.using_format != "delta") {
    return Status::NotImplemented("CREATE TABLE … USING " + stmt.using_format +
                                      " is not supported; silt creates Delta tables",
                                  errc::kSiltUnsupportedDataSource);
  }
  if (!stmt.cluster_by.empty() && !stmt.partition_by.empty()) {
    return Status::InvalidArgument(
        "Clustering and partitioning cannot both be specified. Please remove partitionedBy if you "
        "want to create a Delta table with clustering.",
        errc::kDeltaClusterByWithPartitionedBy);
  }
  SILT_ASSIGN_OR_RETURN(CreateTarget target, ResolveTableTarget(stmt, ctx));
  if (target.skip) return CommandResult{};
  const bool exists = target.exists;
  SILT_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> store,
                        planner::OpenTableStore(target.location, ctx.clock));
  Result<std::shared_ptr<const delta::Snapshot>> existing =
      delta::Snapshot::Load(store, std::nullopt, {.load_files = true});
  bool has_log = existing.ok();
  if (!existing.ok() && existing.status().code() != StatusCode::kNotFound) return existing.status();

  // Schema: the column list, or the query's output (CTAS).
  Schema schema;
  for (const auto& c : stmt.columns)
    schema.push_back({c.name, c.type, c.nullable, CommentMetadata(c.comment)});
  for (size_t i = 0; i < schema.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (planner::LowerName(schema[i].name) == planner::LowerName(schema[j].name)) {
        return Status::InvalidArgument("The column `" + schema[i].name + "` already exists.",
                                       errc::kColumnAlreadyExists);
      }
    }
  }
  // CTAS: the query is bound here and run when the table's files are written (its rows go into
  // them as they come, cast to the declared columns when there are any).
  planner::PlanPtr query;
  Schema qschema;
  bool cast = false;
  if (stmt.as_query) {
    SILT_ASSIGN_OR_RETURN(query, ctx.binder->BindQuery(*stmt.as_query));
    for (const auto& c : query->columns) qschema.push_back({c.name, c.type, true, "{}"});
    if (schema.empty()) {
      schema = qschema;
    } else {
      cast = true;
    }
    for (const auto& f : schema) {
      if (f.type->id() == TypeId::kNull) {
        return Status::InvalidArgument(
            "Column `" + f.name + "` has type void, which Delta tables do not support.",
            errc::kDeltaColumnDataTypeNotSupported);
      }
    }
  }
  for (const auto& f : schema) SILT_RETURN_NOT_OK(RefuseCalendarInterval(f.type));
  {
    // Delta has no interval, TIME or nanosecond timestamp types (Delta's
    // SchemaUtils.findUnsupportedDataTypes; the protocol's timestamps are microseconds).
    std::string bad;
    std::function<bool(const TypePtr&)> has_interval = [&](const TypePtr& t) {
      if (t->is_interval() || t->id() == TypeId::kTime || t->id() == TypeId::kTimestampNanos ||
          t->id() == TypeId::kTimestampNtzNanos)
        return true;
      for (const Field& f : t->fields())
        if (has_interval(f.type)) return true;
      return false;
    };
    for (const auto& f : schema) {
      if (has_interval(f.type))
        bad += std::string(bad.empty() ? "" : ", ") + f.name + ": " + f.type->ToString();
    }
    if (!bad.empty()) {
      return Status::InvalidArgument(
          "Found columns using unsupported data types: [" + bad +
              "]. Delta tables cannot store interval, TIME or nanosecond timestamp values.",
          errc::kDeltaUnsupportedDataTypes);
    }
  }
  if (schema.empty() && has_log && !stmt.or_replace && stmt.ttl) {
    return Status::InvalidArgument(
        "CREATE TABLE over the existing Delta table at " + target.location +
            " registers it as it is and cannot set an Auto-TTL policy; register it first, "
            "then use ALTER TABLE … DELETE ROWS n DAYS AFTER column.",
        errc::kAutoTtlUnsupportedTableType);
  }
  if (has_log && !stmt.or_replace && !stmt.cluster_by.empty()) {
    // CREATE TABLE … CLUSTER BY over an existing table: its clustering columns must be these.
    SILT_RETURN_NOT_OK(CheckSameClustering(**existing, stmt.cluster_by));
  }
  if (schema.empty() && has_log && !stmt.or_replace) {
    // CREATE TABLE t LOCATION '<existing delta table>': register it as it is.
    if (!target.catalog) return CommandResult{};
    planner::TableEntry e{
        target.schema, target.name, target.location, false, "delta", "", stmt.comment, {}, ""};
    SILT_RETURN_NOT_OK(ctx.catalog->RegisterTable(e));
    return CommandResult{};
  }
  if (schema.empty()) {
    return Status::InvalidArgument(
        "Table schema is not provided. Please provide the schema "
        "(column definition) of the table when using REPLACE table and an AS SELECT query is not "
        "provided.",
        errc::kDeltaSchemaNotProvided);
  }
  for (const auto& p : stmt.partition_by) {
    if (FindField(schema, p) < 0) {
      return Status::InvalidArgument(
          "Couldn't find column " + p + " in:\n" + DataType::Struct(schema)->ToString(),
          errc::kDeltaColumnNotFoundInSchema);
    }
  }
  delta::StringMap given;
  for (const auto& [k, v] : stmt.properties) {
    // Delta (ClusteredTableUtils.validateExistingTableFeatureProperties): the feature comes with
    // CLUSTER BY, never from a property.
    if (planner::LowerName(k) == "delta.feature.clustering") {
      return Status::InvalidArgument(
          "Cannot enable clustering table feature using TBLPROPERTIES. Please use CREATE OR "
          "REPLACE TABLE CLUSTER BY to create a Delta table with clustering.",
          errc::kDeltaCreateTableSetClusteringTableFeatureNotAllowed);
    }
    given.Set(k, v);
  }
  SILT_ASSIGN_OR_RETURN(
      delta::StringMap props,
      delta::ValidateTableProperties(
          given,
          ctx.config->GetBool("spark.databricks.delta.allowArbitraryProperties.enabled", false)));
  // IcebergCompatV2's auto-set properties (column mapping) shape the files written below.
  delta::ApplyIcebergCompatDefaults(&props);
  for (size_t i = 0; i < stmt.constraints.size(); ++i) {
    props.Set("delta.constraints." + planner::LowerName(stmt.constraints[i].first),
              stmt.constraint_texts[i]);
  }
  // DEFAULT, GENERATED ALWAYS AS and IDENTITY: column metadata (commands/column_values.h).
  {
    bool column_values = false;
    for (const auto& c : stmt.columns)
      column_values |= c.generated_as || c.identity || c.default_value;
    if (column_values) {
      const std::string* feature = props.Find("delta.feature.allowColumnDefaults");
      const bool defaults = feature && (*feature == "supported" || *feature == "enabled");
      SILT_RETURN_NOT_OK(AddColumnValueMetadata(stmt.columns, stmt.partition_by, defaults,
                                                "CREATE TABLE", &schema, ctx));
    }
  }
  // Auto-TTL (spec A.3/A.4): the DELETE ROWS clause, or the keys given as TBLPROPERTIES, checked
  // against the new schema. Under column mapping the policy records the column's id, so the ids
  // are assigned here (CreateTable keeps them).
  bool ttl = stmt.ttl.has_value();
  for (const auto& [k, v] : props) ttl = ttl || delta::IsAutoTtlKey(k);
  if (ttl && has_log && !stmt.or_replace) {
    return Status::InvalidArgument(
        "CREATE TABLE over the existing Delta table at " + target.location +
            " registers it as it is and cannot set an Auto-TTL policy; register it first, "
            "then use ALTER TABLE … DELETE ROWS n DAYS AFTER column.",
        errc::kAutoTtlUnsupportedTableType);
  }
  if (ttl) {
    const bool case_sensitive = ctx.config->GetBool("spark.sql.caseSensitive", false);
    const std::string* cm_mode = props.Find("delta.columnMapping.mode");
    SILT_ASSIGN_OR_RETURN(delta::ColumnMappingMode cm,
                          delta::ParseColumnMappingMode(
                              cm_mode ? std::optional<std::string>(*cm_mode) : std::nullopt));
    if (cm != delta::ColumnMappingMode::kNone) {
      int64_t max_id = 0;
      if (const std::string* m = props.Find("delta.columnMapping.maxColumnId"))
        max_id = std::atoll(m->c_str());
      schema = delta::AssignColumnMapping(schema, &max_id);
      props.Set("delta.columnMapping.maxColumnId", std::to_string(max_id));
    }
    SILT_RETURN_NOT_OK(delta::NormalizeAutoTtlConfiguration(&props, schema, case_sensitive));
    if (stmt.ttl) {
      SILT_RETURN_NOT_OK(delta::SetAutoTtlPolicy(&props, schema, stmt.ttl->column, stmt.ttl->amount,
                                                 case_sensitive));
    }
  }
  if (!props.Contains("delta.enableDeletionVectors") &&
      ctx.config->GetBool("spark.databricks.delta.properties.defaults.enableDeletionVectors",
                          true)) {
    props.Set("delta.enableDeletionVectors", "true");
  }
  if (has_log && !stmt.or_replace) {
    if (!target.catalog) {
      return Status::AlreadyExists("Table " + target.display + " already exists.",
                                   errc::kDeltaTableAlreadyExists);
    }
    // An existing table at LOCATION: the declared schema must match it.
    const Schema& have = (*existing)->schema();
    bool same = have.size() == schema.size();
    for (size_t i = 0; same && i < have.size(); ++i) {
      same = planner::LowerName(have[i].name) == planner::LowerName(schema[i].name) &&
             have[i].type->Equals(*schema[i].type);
    }
    if (!same) {
      return Status::InvalidArgument(
          "The specified schema does not match the existing "
          "schema at " +
              target.location + ".",
          errc::kDeltaCreateTableSchemeMismatch);
    }
    planner::TableEntry e{
        target.schema, target.name, target.location, false, "delta", "", stmt.comment, {}, ""};
    SILT_RETURN_NOT_OK(ctx.catalog->RegisterTable(e));
    return CommandResult{};
  }

  delta::TransactionOptions txn_opts;
  txn_opts.clock = ctx.clock;
  delta::DataWriteOptions write;
  write.clock = ctx.clock;
  const std::string time_zone = ctx.binder->context().bind.time_zone;
  // CTAS into declared DEFAULT, GENERATED or IDENTITY columns (as Databricks): the query's
  // columns fill the declared ones in order, leaving out the generated and identity columns when
  // it has exactly as many columns as the others (a positional INSERT's rule); identity values
  // are then assigned and generated ones computed, and the identity high-water marks are
  // committed with the table.
  ColumnValueRules rules;
  if (query && cast) {
    SILT_ASSIGN_OR_RETURN(rules, ReadColumnValueRules(schema));
  }
  std::vector<int> source;  // per table column: the query column that fills it, -1 computed
  Schema arranged;          // the chunk CastChunks converts: query or computed column types
  std::vector<exec::ExprPtr> generated;
  IdentityAllocator identity(rules);
  if (!rules.empty()) {
    size_t ordinary = 0;
    for (size_t i = 0; i < schema.size(); ++i) ordinary += rules.computed(i) ? 0 : 1;
    const bool skip_computed = qschema.size() != schema.size() && qschema.size() == ordinary;
    if (!skip_computed && qschema.size() != schema.size()) {
      const bool fewer = qschema.size() < schema.size();
      return Status::InvalidArgument(
          "Cannot write to " + target.display + ", the reason is " +
              (fewer ? "not enough" : "too many") +
              " data columns:\nTable columns: " + std::to_string(schema.size()) +
              ".\nData columns: " + std::to_string(qschema.size()) + ".",
          fewer ? errc::kInsertColumnArityMismatchNotEnoughDataColumns
                : errc::kInsertColumnArityMismatchTooManyDataColumns);
    }
    int next = 0;
    for (size_t i = 0; i < schema.size(); ++i) {
      const bool computed = skip_computed && rules.computed(i);
      source.push_back(computed ? -1 : next++);
      if (!computed && rules.identity[i] && rules.identity[i]->always) {
        return Status::InvalidArgument("Providing values for GENERATED ALWAYS AS IDENTITY column " +
                                           schema[i].name + " is not supported.",
                                       errc::kDeltaIdentityColumnsExplicitInsertNotSupported);
      }
      arranged.push_back(computed ? schema[i] : qschema[source.back()]);
    }
    SILT_ASSIGN_OR_RETURN(generated, BindGenerationExpressions(rules, schema, ctx));
  }
  const exec::EvalContext eval = ctx.binder->context().eval;
  std::vector<bool> supplied;
  for (int s : source) supplied.push_back(s >= 0);
  delta::RowSource rows = [&](const std::function<Status(const DataChunk&)>& out) -> Status {
    return StreamPlan(ctx, query, [&](DataChunk& c) -> Status {
      if (!cast) return out(c);
      std::vector<DataChunk> one(1);
      if (rules.empty()) {
        one[0] = std::move(c);
      } else {
        one[0].num_rows_without_columns = c.size();
        for (size_t i = 0; i < schema.size(); ++i) {
          if (source[i] >= 0) {
            one[0].columns.push_back(c.columns[source[i]]);
            continue;
          }
          Vector v(schema[i].type);
          for (size_t r = 0; r < c.size(); ++r)
            SILT_RETURN_NOT_OK(v.AppendValue(Value::Null(schema[i].type)));
          one[0].columns.push_back(std::move(v));
        }
      }
      SILT_ASSIGN_OR_RETURN(one, CastChunks(one, rules.empty() ? qschema : arranged, schema,
                                            target.display, time_zone));
      for (size_t i = 0; i < supplied.size(); ++i) {
        if (rules.identity[i] && !supplied[i]) SILT_RETURN_NOT_OK(identity.Fill(i, &one[0]));
      }
      if (!rules.empty())
        SILT_RETURN_NOT_OK(ComputeGeneratedColumns(generated, supplied, eval, &one[0]));
      return out(one[0]);
    });
  };
  if (query) {
    delta::Metadata declared;  // CTAS rows meet the declared CHECK constraints
    declared.configuration = props;
    SILT_ASSIGN_OR_RETURN(write.row_validator, MakeRowValidator(declared, schema, ctx));
  }
  if (has_log) {
    // CREATE OR REPLACE over an existing table: one commit with the new metadata, every old file
    // removed and the new rows added (time travel still sees the old versions).
    const auto& snap = *existing;
    // Column mapping of the replacing schema (Delta's assignColumnIdAndPhysicalName with the old
    // metadata): fresh ids after the table's maxColumnId, so no id is reused for another column.
    if (const std::string* cm_mode = props.Find("delta.columnMapping.mode");
        cm_mode && planner::LowerName(*cm_mode) != "none") {
      int64_t max_id = 0;
      for (const delta::StringMap* conf :
           {&snap->metadata().configuration, &std::as_const(props)}) {
        if (const std::string* m = conf->Find("delta.columnMapping.maxColumnId"))
          max_id = std::max<int64_t>(max_id, std::atoll(m->c_str()));
      }
      schema = delta::AssignColumnMapping(schema, &max_id);
      props.Set("delta.columnMapping.maxColumnId", std::to_string(max_id));
      delta::AssignIcebergNestedIds(&schema, &props);
    }
    delta::Metadata md = snap->metadata();
    md.schema_string = delta::SerializeSchema(schema);
    md.partition_columns = stmt.partition_by;
    md.configuration = props;
    if (!stmt.comment.empty()) md.description = stmt.comment;
    delta::Transaction txn(store, snap, txn_opts);
    txn.UpdateMetadata(md);
    delta::Protocol proto = delta::ProtocolForNewTable(schema, props);
    // Clustering (Delta's ClusteredTableUtils.getDomainMetadataFromTransaction): CLUSTER BY sets
    // the domain; without it a clustered table keeps the feature with no clustering columns.
    const bool was_clustered = delta::IsClusteredTable(*snap);
    std::vector<std::string> clustering;
    if (!stmt.cluster_by.empty()) {
      SILT_ASSIGN_OR_RETURN(clustering,
                            delta::ResolveClusteringColumns(schema, props, stmt.cluster_by));
    } else if (was_clustered && !stmt.partition_by.empty()) {
      return Status::InvalidArgument(
          "Replacing a clustered Delta table with a partitioned table is not allowed.",
          errc::kDeltaClusteringReplaceTableWithPartitionedTable);
    }
    if (!stmt.cluster_by.empty() || snap->domains().count(delta::kClusteringDomain)) {
      proto = delta::WithFeatures(proto, {"domainMetadata", delta::kClusteringFeature});
      SILT_ASSIGN_OR_RETURN(
          delta::ColumnMappingMode cm,
          delta::ParseColumnMappingMode(
              props.Find("delta.columnMapping.mode")
                  ? std::optional<std::string>(*props.Find("delta.columnMapping.mode"))
                  : std::nullopt));
      txn.SetDomain(delta::ClusteringDomainFor(schema, cm, clustering));
    } else if (was_clustered) {
      proto = delta::WithFeatures(proto, {"domainMetadata", delta::kClusteringFeature});
    }
    if (proto.min_reader_version > snap->protocol().min_reader_version ||
        proto.min_writer_version > snap->protocol().min_writer_version ||
        proto != snap->protocol()) {
      txn.UpdateProtocol(proto);
    }
    txn.SetReadScope(delta::ReadScope::kWholeTable);
    int64_t now = ctx.clock->NowMillis();
    for (const auto& f : snap->files()) {
      delta::RemoveFile r;
      r.path = f.path;
      r.deletion_timestamp = now;
      r.data_change = true;
      r.extended_file_metadata = true;
      r.partition_values = f.partition_values;
      r.size = f.size;
      r.deletion_vector = f.deletion_vector;
      txn.Remove(std::move(r));
    }
    delta::StringMap params;
    params.Set("isManaged", target.managed ? "\"true\"" : "\"false\"");
    if (!stmt.cluster_by.empty()) {
      std::string cb;
      delta::AppendJacksonString(&cb, delta::ClusteringColumnsJson(clustering));
      params.Set("clusterBy", cb);
    }
    txn.SetOperation(
        stmt.as_query ? "CREATE OR REPLACE TABLE AS SELECT" : "CREATE OR REPLACE TABLE", params);
    if (query) {
      SILT_ASSIGN_OR_RETURN(delta::WrittenFiles files,
                            ctx.write_files
                                ? ctx.write_files(*store, md, schema, rows, write)
                                : delta::WriteDataFilesFrom(*store, md, schema, rows, write));
      txn.SetMetric("numOutputRows", files.rows);
      txn.SetMetric("numFiles", static_cast<int64_t>(files.adds.size()));
      for (auto& a : files.adds) txn.Add(std::move(a));
      if (identity.allocated()) txn.UpdateMetadata(identity.UpdatedMetadata(md, schema));
    }
    Result<delta::CommitResult> committed = txn.Commit();
    SILT_RETURN_NOT_OK(committed.status());
  } else {
    delta::CreateTableOptions opts;
    opts.partition_columns = stmt.partition_by;
    opts.properties = props;
    if (!stmt.cluster_by.empty()) opts.clustering_columns = stmt.cluster_by;
    if (!stmt.comment.empty()) opts.description = stmt.comment;
    opts.write = write;
    opts.txn = txn_opts;
    opts.final_metadata = [&](const delta::Metadata& md) -> Result<delta::Metadata> {
      if (!identity.allocated()) return md;
      // The table's schema (with its column mapping metadata) gets the high-water marks.
      SILT_ASSIGN_OR_RETURN(Schema table_schema,
                            delta::ParseSchemaString(md.schema_string.value_or("{}")));
      return identity.UpdatedMetadata(md, table_schema);
    };
    Result<delta::CommitResult> created =
        query ? delta::CreateTableFrom(store, schema, rows, opts, ctx.write_files)
              : delta::CreateTable(store, schema, {}, opts);
    SILT_RETURN_NOT_OK(created.status());
  }
  if (target.catalog && !exists) {
    planner::TableEntry e{target.schema,  target.name, target.location,
                          target.managed, "delta",     "",
                          stmt.comment,   {},          ""};
    SILT_RETURN_NOT_OK(ctx.catalog->RegisterTable(e));
  }
  return CommandResult{};
}

}  // namespace silt::commands
