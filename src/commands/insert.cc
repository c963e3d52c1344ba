// INSERT INTO | OVERWRITE [TABLE] t [PARTITION (…)] [(cols) | BY NAME] [REPLACE WHERE pred] VALUES
// … | SELECT …
#include "commands/column_values.h"
#include "commands/command.h"
#include "common/error_classes.h"
#include "delta/actions.h"
#include "delta/streaming_write.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "exec/expression.h"
#include "exec/functions.h"
#include "ops/dml.h"
#include "planner/file_source.h"

namespace silt::commands {

namespace {

// Whether `f` lies in the static partitions of INSERT OVERWRITE … PARTITION (col = v, …): its
// value of every fixed column equals the static one (NULL matches a null partition value).
bool InStaticPartitions(const delta::AddFile& f, const Schema& schema,
                        const std::vector<std::optional<Value>>& fixed) {
  for (size_t i = 0; i < schema.size(); ++i) {
    if (!fixed[i]) continue;
    const std::optional<std::string>* pv = f.partition_values.Find(schema[i].name);
    std::optional<std::string> want =
        fixed[i]->is_null() ? std::nullopt : std::optional<std::string>(fixed[i]->ToString());
    if (!pv || *pv != want) return false;
  }
  return true;
}

std::string JsonStr(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}
CommandResult InsertedRows(int64_t n) {
  return CountRows({{"num_affected_rows", n}, {"num_inserted_rows", n}});
}

// INSERT INTO t REPLACE WHERE pred (Delta's replaceWhere): the rows matching pred are deleted —
// as DELETE deletes them, with deletion vectors or copy-on-write — and `data` added, in one WRITE
// commit. Every new row must satisfy pred (DELTA_REPLACE_WHERE_MISMATCH) unless
// spark.databricks.delta.replaceWhere.constraintCheck.enabled is false.
Result<CommandResult> ReplaceWhere(const sql::InsertStatement& stmt,
                                   const planner::ResolvedTable& table, std::vector<DataChunk> data,
                                   int64_t num_rows, delta::DataWriteOptions write,
                                   CommandContext& ctx) {
  const delta::Snapshot& snap = *table.snapshot;
  std::string alias = stmt.table.is_path() ? "" : stmt.table.parts.back();
  SILT_ASSIGN_OR_RETURN(TablePredicate pred,
                        BindTablePredicate(stmt.replace_where.get(), snap, alias, ctx));
  ops::DeleteSpec spec;
  spec.predicate_sql = pred.sql;
  spec.columns = pred.columns;
  spec.options.clock = ctx.clock;
  spec.options.pool = ctx.pool;
  spec.options.write = std::move(write);
  exec::EvalContext eval = ctx.binder->context().eval;
  SILT_RETURN_NOT_OK(
      BindRowFilter(pred, table.snapshot, eval, ctx, &spec.file_filter, &spec.matcher));
  if (spec.matcher &&
      ctx.config->GetBool("spark.databricks.delta.replaceWhere.constraintCheck.enabled", true)) {
    const Schema& schema = snap.schema();
    for (const DataChunk& c : data) {
      DataChunk view;
      view.num_rows_without_columns = c.size();
      for (const std::string& col : pred.columns)
        view.columns.push_back(c.columns[static_cast<size_t>(FindField(schema, col))]);
      SILT_ASSIGN_OR_RETURN(std::vector<uint32_t> ok, spec.matcher(view));
      if (ok.size() != c.size()) {
        return Status::InvalidArgument(
            "Written data does not conform to partial table overwrite "
            "condition or constraint '" +
                pred.sql + "'.",
            errc::kDeltaReplaceWhereMismatch);
      }
    }
  }
  const ops::DmlOptions options = spec.options;
  SILT_ASSIGN_OR_RETURN(ops::RowChanges changes,
                        ops::MatchDeletedRows(table.store, table.snapshot, spec));
  changes.operation = "WRITE";
  changes.parameters = delta::StringMap();
  changes.parameters.Set("mode", JsonStr("Overwrite"));
  std::string part = "[";
  for (size_t i = 0; i < snap.partition_columns().size(); ++i)
    part += (i ? "," : "") + JsonStr(snap.partition_columns()[i]);
  changes.parameters.Set("partitionBy", JsonStr(part + "]"));
  changes.parameters.Set("predicate", JsonStr(pred.sql));
  changes.extra_metrics.push_back({"numOutputRows", num_rows});
  for (DataChunk& c : data) {
    if (c.size()) changes.new_rows.push_back(std::move(c));
  }
  Result<ops::DmlResult> done =
      ops::ApplyRowChanges(table.store, table.snapshot, std::move(changes), options);
  SILT_RETURN_NOT_OK(done.status());
  return InsertedRows(num_rows);
}

// INSERT into a file-source table (planner/file_source.h): the rows go into new plain files of
// its format, no commit; OVERWRITE then deletes the files it replaces (all, or those of the
// static partitions).
Result<CommandResult> InsertIntoFileSource(
    const sql::InsertStatement& stmt, const planner::ResolvedTable& table,
    const std::vector<std::optional<Value>>& fixed, const planner::PlanPtr& plan,
    const std::function<Result<DataChunk>(const DataChunk&)>& convert, CommandContext& ctx) {
  const delta::Snapshot& snap = *table.snapshot;
  const Schema& schema = snap.schema();
  if (stmt.replace_where) {
    return Status::InvalidArgument(
        "Table " + table.display_name + " does not support INSERT … REPLACE WHERE.",
        errc::kUnsupportedFeatureTableOperation);
  }
  delta::RowSource rows = [&](const std::function<Status(const DataChunk&)>& out) -> Status {
    return StreamPlan(ctx, plan, [&](DataChunk& c) -> Status {
      SILT_ASSIGN_OR_RETURN(DataChunk d, convert(c));
      return out(d);
    });
  };
  if (table.entry->format == "json") {
    SILT_RETURN_NOT_OK(planner::WriteJsonFile(*table.store, schema, rows,
                                              ctx.binder->context().bind,
                                              ctx.binder->context().eval)
                           .status());
  } else {
    delta::DataWriteOptions write;
    write.clock = ctx.clock;
    int64_t max_records = ctx.config->GetInt("spark.sql.files.maxRecordsPerFile", 0);
    if (max_records > 0) write.max_rows_per_file = max_records;
    SILT_RETURN_NOT_OK(
        delta::WriteDataFilesFrom(*table.store, snap.metadata(), schema, rows, write).status());
  }
  if (stmt.overwrite) {
    std::vector<const delta::AddFile*> replaced;
    for (const auto& f : snap.files()) {
      if (InStaticPartitions(f, schema, fixed)) replaced.push_back(&f);
    }
    SILT_RETURN_NOT_OK(planner::DeleteDataFiles(*table.store, table.location, replaced));
  }
  // Spark's InsertIntoHadoopFsRelationCommand returns no rows (the counts are Delta's, on
  // Databricks).
  return CommandResult{};
}

}  // namespace

Result<CommandResult> Insert(const sql::InsertStatement& stmt, CommandContext& ctx) {
  if (stmt.if_not_exists) {
    return Status::NotImplemented("INSERT … IF NOT EXISTS is not implemented yet",
                                  errc::kNotImplemented);
  }
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable table,
                        ctx.binder->ResolveTable(stmt.table, std::nullopt));
  SILT_RETURN_NOT_OK(planner::ExpectTable(table, "INSERT"));
  const delta::Snapshot& snap = *table.snapshot;
  const Schema& schema = snap.schema();

  // Static partition values: PARTITION (p = 'x') fixes columns the query doesn't provide.
  std::vector<std::optional<Value>> fixed(schema.size());
  for (const auto& [name, expr] : stmt.partition_spec) {
    int fi = FindField(schema, name);
    if (fi < 0) {
      return Status::InvalidArgument(
          "The partition column `" + name + "` is not in table " + table.display_name + ".",
          errc::kPartitionsNotFound);
    }
    if (!expr) {
      return Status::NotImplemented(
          "dynamic partition columns in PARTITION (…) are not supported yet",
          errc::kNotImplemented);
    }
    std::vector<planner::OutputColumn> none;
    SILT_ASSIGN_OR_RETURN(exec::ExprPtr b, ctx.binder->BindExpression(*expr, none));
    SILT_ASSIGN_OR_RETURN(b, exec::CoerceTo(b, schema[fi].type, ctx.binder->context().bind));
    SILT_ASSIGN_OR_RETURN(Value v, exec::EvaluateConstant(*b, ctx.binder->context().eval));
    fixed[fi] = v;
  }

  SILT_ASSIGN_OR_RETURN(ColumnValueRules rules, ReadColumnValueRules(schema));
  SILT_ASSIGN_OR_RETURN(planner::PlanPtr plan, ctx.binder->BindQuery(*stmt.query));
  Schema qschema;
  for (const auto& c : plan->columns) qschema.push_back({c.name, c.type, true, "{}"});

  // Which query column feeds each table column (-1: static partition value or NULL). BY NAME:
  // the query's column names are the column list.
  std::vector<std::string> named = stmt.columns;
  if (stmt.by_name) {
    for (const auto& c : qschema) named.push_back(c.name);
    for (const auto& n : named) {
      if (FindField(schema, n) < 0) {
        return Status::InvalidArgument("Cannot write incompatible data for the table " +
                                           table.display_name + ": Cannot find extra column `" + n +
                                           "`.",
                                       errc::kIncompatibleDataForTableExtraColumns);
      }
    }
  }
  std::vector<int> source(schema.size(), -1);
  if (!named.empty()) {
    if (named.size() != qschema.size()) {
      return Status::InvalidArgument(
          "Cannot write to " + table.display_name + ": the column list has " +
              std::to_string(named.size()) + " columns but the data has " +
              std::to_string(qschema.size()) + ".",
          named.size() < qschema.size() ? errc::kInsertColumnArityMismatchTooManyDataColumns
                                        : errc::kInsertColumnArityMismatchNotEnoughDataColumns);
    }
    for (size_t i = 0; i < named.size(); ++i) {
      int fi = FindField(schema, named[i]);
      if (fi < 0) {
        return Status::InvalidArgument(
            "A column or function parameter with name `" + named[i] + "` cannot be resolved.",
            errc::kUnresolvedColumnWithSuggestion);
      }
      if (source[fi] >= 0) {
        return Status::InvalidArgument("The column `" + named[i] + "` already exists.",
                                       errc::kColumnAlreadyExists);
      }
      source[fi] = static_cast<int>(i);
    }
  } else {
    size_t next = 0;
    size_t wanted = 0;
    for (size_t i = 0; i < schema.size(); ++i) wanted += fixed[i] ? 0 : 1;
    // Delta lets a positional INSERT leave out the generated and identity columns: the data
    // then fills the other columns in order.
    size_t ordinary = 0;
    for (size_t i = 0; i < schema.size(); ++i) ordinary += fixed[i] || rules.computed(i) ? 0 : 1;
    const bool skip_computed = !rules.empty() && ordinary != wanted && qschema.size() == ordinary;
    if (skip_computed) wanted = ordinary;
    if (wanted != qschema.size()) {
      bool fewer = qschema.size() < wanted;
      return Status::InvalidArgument(
          "Cannot write to " + table.display_name + ", the reason is " +
              (fewer ? "not enough" : "too many") + " data columns:\nTable columns: " +
              std::to_string(wanted) + ".\nData columns: " + std::to_string(qschema.size()) + ".",
          fewer ? errc::kInsertColumnArityMismatchNotEnoughDataColumns
                : errc::kInsertColumnArityMismatchTooManyDataColumns);
    }
    for (size_t i = 0; i < schema.size(); ++i) {
      if (!fixed[i] && !(skip_computed && rules.computed(i))) source[i] = static_cast<int>(next++);
    }
  }
  // Identity columns GENERATED ALWAYS take no values from the statement.
  for (size_t i = 0; i < schema.size(); ++i) {
    if (rules.identity[i] && rules.identity[i]->always && (source[i] >= 0 || fixed[i])) {
      return Status::InvalidArgument("Providing values for GENERATED ALWAYS AS IDENTITY column " +
                                         schema[i].name + " is not supported.",
                                     errc::kDeltaIdentityColumnsExplicitInsertNotSupported);
    }
  }
  // Columns the statement leaves out: generated and identity columns are computed below, the
  // others take their default (CURRENT_DEFAULT, else NULL).
  std::vector<bool> supplied(schema.size());
  std::vector<std::optional<Value>> constant = fixed;  // static partition values and defaults
  for (size_t i = 0; i < schema.size(); ++i) {
    supplied[i] = source[i] >= 0 || fixed[i].has_value();
    if (!supplied[i] && !rules.computed(i) && rules.defaults[i]) {
      SILT_ASSIGN_OR_RETURN(Value d, ColumnDefault(rules, schema, i, ctx));
      constant[i] = d;
    }
  }
  SILT_ASSIGN_OR_RETURN(std::vector<exec::ExprPtr> generated,
                        BindGenerationExpressions(rules, schema, ctx));
  IdentityAllocator identity(rules);
  const exec::EvalContext eval = ctx.binder->context().eval;

  // Arrange the rows in table column order, then cast with store-assignment rules.
  Schema arranged;
  for (size_t i = 0; i < schema.size(); ++i) {
    if (source[i] >= 0)
      arranged.push_back(qschema[source[i]]);
    else
      arranged.push_back(
          {schema[i].name, constant[i] ? constant[i]->type() : schema[i].type, true, "{}"});
  }
  // Each chunk of the query's rows in table column order, cast with store-assignment rules.
  const std::string& time_zone = ctx.binder->context().bind.time_zone;
  auto convert = [&](const DataChunk& c) -> Result<DataChunk> {
    std::vector<DataChunk> one(1);
    DataChunk& o = one[0];
    o.num_rows_without_columns = c.size();
    for (size_t i = 0; i < schema.size(); ++i) {
      if (source[i] >= 0) {
        o.columns.push_back(c.columns[source[i]]);
        continue;
      }
      Vector v(arranged[i].type);
      Value val = constant[i] ? *constant[i] : Value::Null(arranged[i].type);
      for (size_t r = 0; r < c.size(); ++r) {
        SILT_RETURN_NOT_OK(v.AppendValue(val));
      }
      o.columns.push_back(std::move(v));
    }
    SILT_ASSIGN_OR_RETURN(std::vector<DataChunk> cast,
                          CastChunks(one, arranged, schema, table.display_name, time_zone));
    DataChunk& out = cast[0];
    if (!rules.empty()) {
      for (size_t i = 0; i < schema.size(); ++i) {
        if (rules.identity[i] && !supplied[i]) SILT_RETURN_NOT_OK(identity.Fill(i, &out));
      }
      SILT_RETURN_NOT_OK(ComputeGeneratedColumns(generated, supplied, eval, &out));
    }
    return std::move(out);
  };

  if (ctx.write_files &&
      (stmt.replace_where || (table.entry && planner::IsFileSourceTable(*table.entry)))) {
    return Status::NotImplemented(
        "distributed writes run INSERT INTO | OVERWRITE of a Delta table without REPLACE WHERE",
        errc::kNotImplemented);
  }
  if (table.entry && planner::IsFileSourceTable(*table.entry)) {
    return InsertIntoFileSource(stmt, table, fixed, plan, convert, ctx);
  }
  delta::DataWriteOptions write;
  write.clock = ctx.clock;
  SILT_ASSIGN_OR_RETURN(write.row_validator, MakeRowValidator(snap.metadata(), schema, ctx));
  int64_t max_records = ctx.config->GetInt("spark.sql.files.maxRecordsPerFile", 0);
  if (max_records > 0) write.max_rows_per_file = max_records;
  int64_t num_rows = 0;
  if (stmt.replace_where) {
    // REPLACE WHERE checks every new row against its predicate before it deletes and writes in one
    // pass (ops::ApplyRowChanges), so its rows are collected.
    std::vector<DataChunk> data;
    SILT_RETURN_NOT_OK(StreamPlan(ctx, plan, [&](DataChunk& c) -> Status {
      SILT_ASSIGN_OR_RETURN(DataChunk d, convert(c));
      num_rows += static_cast<int64_t>(d.size());
      data.push_back(std::move(d));
      return Status::OK();
    }));
    if (identity.allocated()) {
      return Status::NotImplemented(
          "INSERT … REPLACE WHERE into a table with IDENTITY columns is not implemented yet",
          errc::kNotImplemented);
    }
    return ReplaceWhere(stmt, table, std::move(data), num_rows, std::move(write), ctx);
  }
  // The rows go into the data files as the query produces them (files cut at max_rows_per_file),
  // so an INSERT larger than the memory limit holds only the writer's row groups. Nothing is
  // committed until every file is complete; on failure the writer deletes the files it started.
  delta::RowSource query_rows = [&](const std::function<Status(const DataChunk&)>& out) -> Status {
    return StreamPlan(ctx, plan, [&](DataChunk& c) -> Status {
      SILT_ASSIGN_OR_RETURN(DataChunk d, convert(c));
      return out(d);
    });
  };
  SILT_ASSIGN_OR_RETURN(
      delta::WrittenFiles written,
      ctx.write_files
          ? ctx.write_files(*table.store, snap.metadata(), schema, query_rows, write)
          : delta::WriteDataFilesFrom(*table.store, snap.metadata(), schema, query_rows, write));
  num_rows = written.rows;
  std::vector<delta::AddFile> adds = std::move(written.adds);
  delta::TransactionOptions txn_opts;
  txn_opts.clock = ctx.clock;
  delta::Transaction txn(table.store, table.snapshot, txn_opts);
  delta::StringMap params;
  params.Set("mode", JsonStr(stmt.overwrite ? "Overwrite" : "Append"));
  params.Set("statsOnLoad", "false");
  std::string part = "[";
  for (size_t i = 0; i < snap.partition_columns().size(); ++i)
    part += (i ? "," : "") + JsonStr(snap.partition_columns()[i]);
  params.Set("partitionBy", JsonStr(part + "]"));
  int64_t bytes = 0;
  for (const auto& a : adds) bytes += a.size;
  if (stmt.overwrite) {
    // Overwrite: every file (or every file of the static partitions) is replaced.
    txn.SetReadScope(delta::ReadScope::kWholeTable);
    int64_t now = ctx.clock->NowMillis();
    int64_t removed = 0;
    for (const auto& f : snap.files()) {
      if (!InStaticPartitions(f, schema, fixed)) continue;
      delta::RemoveFile r;
      r.path = f.path;
      r.deletion_timestamp = now;
      r.extended_file_metadata = true;
      r.partition_values = f.partition_values;
      r.size = f.size;
      r.deletion_vector = f.deletion_vector;
      txn.Remove(std::move(r));
      ++removed;
    }
    txn.SetMetric("numRemovedFiles", removed);
  }
  // The identity high-water marks go into the same commit (a metadata action: a concurrent
  // writer that allocates values too fails with DELTA_METADATA_CHANGED).
  if (identity.allocated()) txn.UpdateMetadata(identity.UpdatedMetadata(snap.metadata(), schema));
  txn.SetOperation("WRITE", params);
  txn.SetMetric("numFiles", static_cast<int64_t>(adds.size()));
  txn.SetMetric("numOutputRows", num_rows);
  txn.SetMetric("numOutputBytes", bytes);
  for (auto& a : adds) txn.Add(std::move(a));
  Result<delta::CommitResult> committed = txn.Commit();
  SILT_RETURN_NOT_OK(committed.status());
  // Spark's INSERT returns no rows (num_affected_rows on Databricks); silt reports the count.
  return InsertedRows(num_rows);
}

}  // namespace silt::commands
