// CREATE [OR REFRESH] STREAMING TABLE … AS … STREAM(src) … and REFRESH STREAMING TABLE t [FULL]
// (commands/streaming_table.h), through ops/stream_query.h.

#include "commands/streaming_table.h"

#include "common/error_classes.h"
#include "delta/json_util.h"
#include "delta/transaction.h"
#include "delta/z85.h"
#include "ops/delta_source.h"
#include "ops/dml.h"
#include "ops/stream_query.h"
#include "sql/parser.h"

namespace silt::commands {

namespace {

void CollectStreamRefs(sql::Query* q, std::vector<sql::TableRef*>* out);

void CollectStreamRefs(sql::TableRef* r, std::vector<sql::TableRef*>* out) {
  if (!r) return;
  switch (r->kind) {
    case sql::TableRef::Kind::kTable:
      if (r->function_name == sql::kStreamRefMarker) out->push_back(r);
      break;
    case sql::TableRef::Kind::kSubquery:
      CollectStreamRefs(r->subquery.get(), out);
      break;
    case sql::TableRef::Kind::kJoin:
      CollectStreamRefs(r->left.get(), out);
      CollectStreamRefs(r->right.get(), out);
      break;
    default:
      break;
  }
}

void CollectStreamRefs(sql::Query* q, std::vector<sql::TableRef*>* out) {
  if (!q) return;
  for (auto& c : q->ctes) CollectStreamRefs(c.query.get(), out);
  CollectStreamRefs(q->left.get(), out);
  CollectStreamRefs(q->right.get(), out);
  for (auto& f : q->from) CollectStreamRefs(f.get(), out);
}

// The defining query parsed again; its STREAM reference binds to a micro-batch's rows
// (BindWithStream).
struct DefiningQuery {
  sql::StatementNode statement;  // the QueryStatement holding `query`
  sql::Query* query = nullptr;
  sql::TableName source;
  std::vector<std::pair<std::string, std::string>> options;
};

Result<DefiningQuery> ParseDefiningQuery(const std::string& text) {
  DefiningQuery d;
  SILT_ASSIGN_OR_RETURN(d.statement, sql::ParseStatement(text));
  if (d.statement->kind != sql::StatementKind::kQuery) {
    return Status::InvalidArgument("a streaming table's definition must be a query: " + text,
                                   errc::kInvalidSqlSyntax);
  }
  d.query = static_cast<sql::QueryStatement&>(*d.statement).query.get();
  std::vector<sql::TableRef*> refs;
  CollectStreamRefs(d.query, &refs);
  if (refs.size() != 1) {
    return Status::NotImplemented(
        "a streaming table's query must read exactly one table as a stream (FROM STREAM(src) or "
        "STREAM src); this one reads " +
            std::to_string(refs.size()),
        errc::kNotImplemented);
  }
  sql::TableRef* ref = refs[0];
  d.source = ref->name;
  for (size_t i = 0; i + 1 < ref->function_args.size(); i += 2) {
    d.options.emplace_back(ref->function_args[i]->literal.str(),
                           ref->function_args[i + 1]->literal.str());
  }
  return d;
}

// Binds the defining query with its STREAM reference as the literal rows `rows` of `schema`
// (columns qualified by the reference's alias, else the table's name, as a table's are);
// *stream_node receives that node.
Result<planner::PlanPtr> BindWithStream(CommandContext& ctx, const DefiningQuery& dq,
                                        const Schema& schema, std::vector<DataChunk> rows,
                                        const planner::LogicalNode** stream_node) {
  planner::BinderContext bc = ctx.binder->context();
  bc.bind_stream = [&](const sql::TableRef& ref) -> Result<planner::PlanPtr> {
    auto v = std::make_shared<planner::LogicalNode>();
    v->kind = planner::LogicalKind::kValues;
    const std::string qualifier =
        !ref.alias.empty() ? ref.alias : (ref.name.is_path() ? "" : ref.name.parts.back());
    for (const Field& f : schema) v->columns.push_back({f.name, f.type, true, qualifier});
    v->rows = std::move(rows);
    v->table_name = ref.name.ToString();
    *stream_node = v.get();
    return planner::PlanPtr(v);
  };
  planner::Binder binder(bc);
  return binder.BindQuery(*dq.query);
}

// Whether `node` reads the stream (the node `stream`); *stateful names the first stateful
// operator above it (what Structured Streaming runs with a state store and watermarks).
bool ReadsStream(const planner::PlanPtr& node, const planner::LogicalNode* stream,
                 std::string* stateful) {
  if (!node) return false;
  bool reads = node.get() == stream;
  for (const auto& c : node->children) reads = ReadsStream(c, stream, stateful) || reads;
  if (reads && stateful->empty()) {
    switch (node->kind) {
      case planner::LogicalKind::kAggregate:
        *stateful = "an aggregation";
        break;
      case planner::LogicalKind::kSort:
        *stateful = "ORDER BY";
        break;
      case planner::LogicalKind::kLimit:
        *stateful = "LIMIT";
        break;
      case planner::LogicalKind::kWindow:
        *stateful = "a window function";
        break;
      case planner::LogicalKind::kDistinct:
      case planner::LogicalKind::kSetOp:
        *stateful = "DISTINCT / INTERSECT / EXCEPT";
        break;
      default:
        break;
    }
  }
  return reads;
}

// Streaming tables append what a stateless query makes of each micro-batch.
Status CheckStateless(const planner::PlanPtr& plan, const planner::LogicalNode* stream) {
  std::string stateful;
  ReadsStream(plan, stream, &stateful);
  if (stateful.empty()) return Status::OK();
  return Status::NotImplemented(
      "a streaming table's query with " + stateful +
          " over its stream (stateful streaming: state store, watermarks) is not supported; "
          "streaming tables append what projections, filters and joins with static tables make "
          "of the new rows",
      errc::kNotImplemented);
}

// The defining query's output columns, bound over an empty batch of the stream's schema (the
// source's columns, plus the change data feed's with readChangeFeed). Checks the source (a
// Delta table), the options and that the query is stateless over the stream.
Result<std::vector<planner::OutputColumn>> QueryColumns(CommandContext& ctx,
                                                        const DefiningQuery& dq) {
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable src,
                        ctx.binder->ResolveTable(dq.source, nullptr, true, false));
  SILT_RETURN_NOT_OK(planner::ExpectTable(src, "STREAM"));
  if (!src.snapshot) {
    return Status::NotFound(src.display_name + " is not a Delta table", errc::kDeltaTableNotFound);
  }
  SILT_ASSIGN_OR_RETURN(ops::DeltaSourceOptions options, ops::ParseDeltaSourceOptions(dq.options));
  SILT_ASSIGN_OR_RETURN(auto source, ops::DeltaSource::Open(src.store, options, ctx.clock));
  const planner::LogicalNode* stream_node = nullptr;
  SILT_ASSIGN_OR_RETURN(planner::PlanPtr plan,
                        BindWithStream(ctx, dq, source->schema(), {}, &stream_node));
  SILT_RETURN_NOT_OK(CheckStateless(plan, stream_node));
  std::vector<planner::OutputColumn> out;
  for (const auto& c : plan->columns) {
    if (!c.hidden) out.push_back(c);
  }
  return out;
}

Status WrongObjectType(const std::string& operation, const std::string& name) {
  return Status::InvalidArgument("The operation " + operation +
                                     " requires a STREAMING TABLE. But " + name +
                                     " is a TABLE. Use CREATE TABLE / INSERT instead.",
                                 errc::kWrongCommandForObjectType);
}

// REFRESH [FULL] of the streaming table `t` (its snapshot loaded).
Result<CommandResult> Refresh(const planner::ResolvedTable& t, bool full, CommandContext& ctx) {
  const delta::StringMap& conf = t.snapshot->metadata().configuration;
  const std::string* query_text = conf.Find(kStreamingTableQueryProperty);
  const std::string* checkpoint = conf.Find(kStreamingTableCheckpointProperty);
  if (!query_text || !checkpoint) {
    return WrongObjectType("REFRESH STREAMING TABLE", t.display_name);
  }
  std::string checkpoint_dir = *checkpoint;
  if (full) {
    // Empty the table and move to a fresh checkpoint in one commit: a crash leaves either the
    // old rows with the old checkpoint or no rows with the new one.
    checkpoint_dir = "_streaming/" + delta::Uuid::Random().ToString();
    delta::TransactionOptions txn_options;
    txn_options.clock = ctx.clock;
    delta::Transaction txn(t.store, t.snapshot, txn_options);
    const int64_t now = ctx.clock->NowMillis();
    int64_t removed = 0;
    for (const auto& a : t.snapshot->files()) {
      txn.Remove(delta::MakeRemove(a, now));
      ++removed;
    }
    delta::Metadata m = t.snapshot->metadata();
    m.configuration.Set(kStreamingTableCheckpointProperty, checkpoint_dir);
    txn.UpdateMetadata(std::move(m));
    txn.SetOperation("STREAMING TABLE FULL REFRESH", delta::StringMap{});
    txn.SetMetric("numRemovedFiles", removed);
    SILT_RETURN_NOT_OK(txn.Commit().status());
  }
  SILT_ASSIGN_OR_RETURN(DefiningQuery dq, ParseDefiningQuery(*query_text));
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable src, ctx.binder->ResolveTable(dq.source, nullptr));
  SILT_RETURN_NOT_OK(planner::ExpectTable(src, "STREAM"));
  if (!src.snapshot) {
    return Status::NotFound(src.display_name + " is not a Delta table", errc::kDeltaTableNotFound);
  }
  const std::string source_id = src.snapshot->metadata().id;
  if (source_id == t.snapshot->metadata().id) {
    return Status::InvalidArgument(
        "a streaming table cannot read itself as its stream source: " + t.display_name,
        errc::kInvalidParameterValue);
  }

  ops::StreamQueryOptions q;
  q.source = src.store;
  SILT_ASSIGN_OR_RETURN(q.source_options, ops::ParseDeltaSourceOptions(dq.options));
  q.sink.table = t.store;
  q.sink.mode = ops::SinkMode::kAppend;
  q.sink.clock = ctx.clock;
  SILT_ASSIGN_OR_RETURN(q.checkpoint,
                        planner::OpenTableStore(t.location + "/" + checkpoint_dir, ctx.clock));
  q.trigger = ops::Trigger::kAvailableNow;
  q.clock = ctx.clock;
  q.warn = [&ctx](const std::string& w) {
    if (ctx.progress) ctx.progress("WARNING: " + w);
  };
  const std::string& time_zone = ctx.binder->context().bind.time_zone;
  q.transform = [&](ops::SourceBatch batch) -> Result<ops::SourceBatch> {
    const planner::LogicalNode* stream_node = nullptr;
    SILT_ASSIGN_OR_RETURN(
        planner::PlanPtr plan,
        BindWithStream(ctx, dq, batch.schema, std::move(batch.chunks), &stream_node));
    SILT_RETURN_NOT_OK(CheckStateless(plan, stream_node));
    SILT_ASSIGN_OR_RETURN(std::vector<DataChunk> result, ctx.run_plan(plan));
    Schema from;
    for (const auto& c : plan->columns) from.push_back({c.name, c.type, true, "{}"});
    delta::SnapshotOptions no_files;
    no_files.load_files = false;
    SILT_ASSIGN_OR_RETURN(auto sink_snap, delta::Snapshot::Load(t.store, std::nullopt, no_files));
    const Schema& to = sink_snap->schema();
    if (from.size() != to.size()) {
      return Status::InvalidArgument(
          "the streaming table " + t.display_name + " has " + std::to_string(to.size()) +
              " columns but its query returns " + std::to_string(from.size()),
          errc::kDeltaMetadataMismatchSchemaMismatch);
    }
    ops::SourceBatch out;
    out.schema = to;
    SILT_ASSIGN_OR_RETURN(out.chunks, CastChunks(result, from, to, t.display_name, time_zone));
    for (const auto& c : out.chunks) out.num_rows += static_cast<int64_t>(c.size());
    out.num_files = batch.num_files;
    return out;
  };
  SILT_RETURN_NOT_OK(ops::RunStream(q).status());
  return CommandResult{};
}

}  // namespace

Result<CommandResult> StreamingTable(const sql::StreamingTableStatement& stmt,
                                     CommandContext& ctx) {
  auto resolved = ctx.binder->ResolveTable(stmt.name, nullptr, /*must_exist=*/false);
  bool exists = false;
  if (resolved.ok()) {
    exists = resolved->is_view || resolved->snapshot != nullptr;
  } else if (resolved.status().error_class() != errc::kTableOrViewNotFound &&
             resolved.status().error_class() != errc::kDeltaTableNotFound) {
    return resolved.status();
  }
  if (stmt.refresh_only) {
    SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t, std::move(resolved));
    if (t.is_view || !t.snapshot) {
      SILT_RETURN_NOT_OK(planner::ExpectTable(t, "REFRESH STREAMING TABLE"));
      return Status::NotFound("The table " + stmt.name.ToString() + " cannot be found.",
                              errc::kTableOrViewNotFound);
    }
    return Refresh(t, stmt.full, ctx);
  }
  if (exists) {
    const planner::ResolvedTable& t = *resolved;
    if (!stmt.or_refresh) {
      return Status::AlreadyExists(
          "Cannot create table or view " + t.display_name + " because it already exists.",
          errc::kTableOrViewAlreadyExists);
    }
    SILT_RETURN_NOT_OK(planner::ExpectTable(t, "CREATE OR REFRESH STREAMING TABLE"));
    const std::string* stored =
        t.snapshot->metadata().configuration.Find(kStreamingTableQueryProperty);
    if (!stored) return WrongObjectType("CREATE OR REFRESH STREAMING TABLE", t.display_name);
    if (*stored == stmt.query_text) return Refresh(t, /*full=*/false, ctx);
    // A new query: as a pipeline update, it applies to the rows the stream reads from now on
    // (REFRESH … FULL reprocesses everything). Its rows must still fit the table's columns.
    if (!stmt.columns.empty() || !stmt.properties.empty() || !stmt.partition_by.empty() ||
        !stmt.cluster_by.empty() || !stmt.location.empty() || !stmt.comment.empty() || stmt.ttl) {
      return Status::NotImplemented(
          "changing the columns or table clauses of the streaming table " + t.display_name +
              " with CREATE OR REFRESH (use ALTER TABLE, or DROP it and create it again)",
          errc::kNotImplemented);
    }
    SILT_ASSIGN_OR_RETURN(DefiningQuery dq, ParseDefiningQuery(stmt.query_text));
    SILT_ASSIGN_OR_RETURN(std::vector<planner::OutputColumn> cols, QueryColumns(ctx, dq));
    const size_t visible = cols.size();
    if (visible != t.snapshot->schema().size()) {
      return Status::InvalidArgument(
          "The new query of the streaming table " + t.display_name + " returns " +
              std::to_string(visible) + " columns; the table has " +
              std::to_string(t.snapshot->schema().size()) +
              " (a FULL refresh does not change columns either: DROP the table and create it "
              "again)",
          errc::kDeltaMetadataMismatchSchemaMismatch);
    }
    delta::TransactionOptions txn_options;
    txn_options.clock = ctx.clock;
    delta::Transaction txn(t.store, t.snapshot, txn_options);
    delta::Metadata m = t.snapshot->metadata();
    m.configuration.Set(kStreamingTableQueryProperty, stmt.query_text);
    txn.UpdateMetadata(std::move(m));
    std::string props = "{";
    delta::AppendJacksonString(&props, kStreamingTableQueryProperty);
    props += ":";
    delta::AppendJacksonString(&props, stmt.query_text);
    props += "}";
    std::string param;
    delta::AppendJacksonString(&param, props);
    delta::StringMap params;
    params.Set("properties", param);
    txn.SetOperation("SET TBLPROPERTIES", params);
    SILT_RETURN_NOT_OK(txn.Commit().status());
    SILT_ASSIGN_OR_RETURN(planner::ResolvedTable updated,
                          ctx.binder->ResolveTable(stmt.name, nullptr));
    return Refresh(updated, /*full=*/false, ctx);
  }

  // A new streaming table: its columns are the query's (or the given ones).
  SILT_ASSIGN_OR_RETURN(DefiningQuery dq, ParseDefiningQuery(stmt.query_text));
  SILT_ASSIGN_OR_RETURN(std::vector<planner::OutputColumn> out_cols, QueryColumns(ctx, dq));

  // The statement again, as a plain CREATE TABLE without its query.
  SILT_ASSIGN_OR_RETURN(sql::StatementNode again, sql::ParseStatement(stmt.text));
  sql::CreateTableStatement create;
  static_cast<sql::CreateTableStatement&>(create) =
      std::move(static_cast<sql::CreateTableStatement&>(*again));
  create.as_query.reset();
  if (create.columns.empty()) {
    for (const auto& c : out_cols) {
      sql::ColumnDef d;
      d.name = c.name;
      d.type = c.type;
      create.columns.push_back(std::move(d));
    }
  } else {
    if (create.columns.size() != out_cols.size()) {
      return Status::InvalidArgument("The streaming table " + stmt.name.ToString() + " declares " +
                                         std::to_string(create.columns.size()) +
                                         " columns but its query returns " +
                                         std::to_string(out_cols.size()),
                                     errc::kDeltaMetadataMismatchSchemaMismatch);
    }
    for (size_t i = 0; i < create.columns.size(); ++i) {
      if (!create.columns[i].type) create.columns[i].type = out_cols[i].type;
    }
  }
  create.properties.emplace_back(kStreamingTableQueryProperty, stmt.query_text);
  create.properties.emplace_back(kStreamingTableCheckpointProperty,
                                 "_streaming/" + delta::Uuid::Random().ToString());
  SILT_RETURN_NOT_OK(CreateTable(create, ctx).status());
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t, ctx.binder->ResolveTable(stmt.name, nullptr));
  return Refresh(t, /*full=*/false, ctx);
}

}  // namespace silt::commands
