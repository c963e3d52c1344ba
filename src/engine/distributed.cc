// silt::DistributedJob and silt::RunDistributedTask (include/silt/distributed.h): the statement is
// bound by its own command (commands/optimize.cc, reorg.cc), which hands its table and options
// over instead of running; the ops layer plans, rewrites one bin per task and commits.
// silt::WriteWithWorkers and silt::RunDistributedWrite run INSERT / CTAS with their data files
// written through CommandContext::write_files: elsewhere on the client, up to the files on a
// worker. silt::RunAutoTtl runs the maintenance service's pass with a remote executor
// (maintenance/service.h), whose TTL DELETE tasks RunDistributedTask also runs.
#include "silt/distributed.h"

#include <simdjson.h>

#include <chrono>
#include <optional>
#include <span>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "commands/command.h"
#include "common/error_classes.h"
#include "common/exception_status.h"
#include "delta/json_util.h"
#include "delta/scan.h"
#include "delta/schema_json.h"
#include "delta/streaming_write.h"
#include "delta/z85.h"
#include "engine/engine.h"
#include "maintenance/expiry.h"
#include "maintenance/service.h"
#include "ops/optimize.h"
#include "planner/binder.h"
#include "silt/arrow.h"
#include "sql/parser.h"
#include "sql/streaming_table.h"

namespace silt {

namespace {

// The table at `table_uri` at `version` (nullopt: the latest), for the distributed calls.
Result<planner::ResolvedTable> ResolveAt(planner::Binder& binder, std::string_view table_uri,
                                         std::optional<int64_t> version, bool load_files = true) {
  sql::TableName name;
  name.path_format = "delta";
  name.path = std::string(table_uri);
  sql::TimeTravel travel;
  travel.version = version;
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable table,
                        binder.ResolveTable(name, version ? &travel : nullptr,
                                            /*must_exist=*/true, load_files));
  if (!table.snapshot) {
    return Status::NotFound("`" + name.path + "` is not a Delta table", errc::kDeltaTableNotFound);
  }
  return table;
}

// The table's latest version (without its files) and its store.
Result<planner::ResolvedTable> ResolveLatestWithStore(planner::Binder& binder,
                                                      std::string_view table_uri,
                                                      const std::shared_ptr<Clock>& clock) {
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable table,
                        ResolveAt(binder, table_uri, std::nullopt, /*load_files=*/false));
  if (!table.store) {
    SILT_ASSIGN_OR_RETURN(table.store, planner::OpenTableStore(table.location, clock));
  }
  return table;
}

// A command context for binding on `binder` outside a statement (no plans run).
commands::CommandContext BindingContext(engine::SessionState& session, planner::Binder& binder) {
  commands::CommandContext ctx;
  ctx.catalog = session.db->catalog.get();
  ctx.config = &session.config;
  ctx.binder = &binder;
  ctx.clock = session.db->clock;
  ctx.pool = session.PoolForStatement();
  return ctx;
}

std::string QuoteIdentifier(std::string_view name) {
  std::string out = "`";
  for (char c : name) out += c == '`' ? std::string("``") : std::string(1, c);
  return out + "`";
}

}  // namespace

struct DistributedJob::State {
  std::string id;
  std::string kind;  // the statement's QueryResult::statement ("optimize", "reorg")
  std::shared_ptr<ObjectStore> store;
  ops::OptimizeOptions options;
  ops::OptimizePlan plan;
  std::vector<std::string> tasks;
  bool committed = false;
};

DistributedJob::DistributedJob(std::unique_ptr<State> state) : state_(std::move(state)) {}
DistributedJob::~DistributedJob() = default;
size_t DistributedJob::num_tasks() const { return state_->tasks.size(); }
const std::string& DistributedJob::task(size_t i) const { return state_->tasks.at(i); }
int64_t DistributedJob::read_version() const { return state_->plan.snapshot->version(); }

Result<std::unique_ptr<DistributedJob>> DistributedJob::Plan(Connection& con,
                                                             std::string_view statement) {
  SILT_ASSIGN_OR_RETURN(sql::StatementNode stmt,
                        CatchAsStatus([&] { return sql::ParseStatement(statement); }));
  auto state = std::make_unique<State>();
  if (stmt->kind == sql::StatementKind::kOptimize) {
    state->kind = "optimize";
  } else if (stmt->kind == sql::StatementKind::kReorg) {
    state->kind = "reorg";
  } else {
    return Status::NotImplemented(
        "only OPTIMIZE and REORG TABLE … APPLY (PURGE) run distributed so far",
        errc::kNotImplemented);
  }
  engine::SessionState& session = con.session();
  std::optional<planner::ResolvedTable> table;
  session.plan_optimize = [&](const planner::ResolvedTable& t, const ops::OptimizeOptions& o) {
    table = t;
    state->options = o;
    return Status::OK();
  };
  Result<std::unique_ptr<QueryResult>> bound =
      CatchAsStatus([&] { return session.Execute(*stmt); });
  session.plan_optimize = nullptr;
  SILT_RETURN_NOT_OK(bound.status());
  if (!table) return Status::Internal("the statement did not reach OPTIMIZE's planning");
  // The rewrites run on the workers: the client's pool and cancel flag (the statement's) are not
  // the commit's business.
  state->options.pool = nullptr;
  state->options.cancelled = nullptr;
  state->store = table->store;
  SILT_ASSIGN_OR_RETURN(state->plan,
                        ops::PlanOptimize(table->store, table->snapshot, state->options));
  state->id = delta::Uuid::Random().ToString();
  state->tasks = ops::OptimizeTasks(state->plan, state->options, state->id, table->location);
  return std::unique_ptr<DistributedJob>(new DistributedJob(std::move(state)));
}

Result<std::unique_ptr<QueryResult>> DistributedJob::Commit(
    const std::vector<std::string>& outputs) {
  State& s = *state_;
  if (s.committed) {
    return Status::InvalidArgument("this distributed job was already committed",
                                   errc::kSiltInvalidDistributedTask);
  }
  SILT_ASSIGN_OR_RETURN(std::vector<std::vector<delta::AddFile>> added,
                        ops::CollectOptimizeOutputs(s.id, s.tasks.size(), outputs));
  SILT_ASSIGN_OR_RETURN(ops::OptimizeResult result,
                        ops::CommitOptimize(s.store, s.plan, std::move(added), s.options));
  s.committed = true;
  SILT_ASSIGN_OR_RETURN(DataChunk row, ops::OptimizeResultChunk(result));
  std::vector<DataChunk> chunks;
  chunks.push_back(std::move(row));
  auto out = std::make_unique<QueryResult>(ops::OptimizeResultSchema(), std::move(chunks));
  out->statement = s.kind;
  return out;
}

Result<std::string> RunDistributedTask(Connection& con, std::string_view text) {
  engine::SessionState& session = con.session();
  planner::Binder binder(session.StatementBinderContext());
  if (maintenance::IsTtlDeleteTask(text)) {  // RunAutoTtl's DELETE scans
    SILT_ASSIGN_OR_RETURN(maintenance::TtlTaskTable at, maintenance::TtlDeleteTaskTable(text));
    SILT_ASSIGN_OR_RETURN(planner::ResolvedTable table,
                          ResolveAt(binder, at.table_uri, at.version));
    return CatchAsStatus([&] {
      return maintenance::RunTtlDeleteTask(table.store, table.snapshot, text, session.db->clock,
                                           session.PoolForStatement());
    });
  }
  SILT_ASSIGN_OR_RETURN(ops::OptimizeTask task, ops::ParseOptimizeTask(text));
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable table,
                        ResolveAt(binder, task.table_uri, task.version));
  // The bin's files as the planned version has them: a task naming other files is refused.
  std::unordered_map<std::string_view, const delta::AddFile*> live;
  for (const delta::AddFile& f : table.snapshot->files()) live.emplace(f.path, &f);
  std::vector<const delta::AddFile*> bin;
  for (const delta::AddFile& f : task.files) {
    auto it = live.find(f.path);
    if (it == live.end()) {
      return Status::InvalidArgument(
          "the task names " + f.path + ", not a file of version " + std::to_string(task.version),
          errc::kSiltInvalidDistributedTask);
    }
    bin.push_back(it->second);
  }
  commands::CommandContext ctx = BindingContext(session, binder);
  ops::OptimizeOptions o;
  o.mode = task.mode;
  o.zorder_by = task.zorder_by;
  o.max_file_size = task.max_file_size;
  o.clock = session.db->clock;
  o.pool = ctx.pool;
  o.cancelled = session.cancelled;
  o.read_confinement = table.snapshot->read_confinement();
  SILT_ASSIGN_OR_RETURN(o.row_validator, commands::MakeRowValidator(table.snapshot->metadata(),
                                                                    table.snapshot->schema(), ctx));
  ops::OptimizeOutput out;
  out.job = task.job;
  out.bin = task.bin;
  SILT_ASSIGN_OR_RETURN(out.added, CatchAsStatus([&] {
                          return ops::RewriteOptimizeBin(table.store, table.snapshot, bin, o);
                        }));
  return ops::SerializeOptimizeOutput(out);
}

Result<std::unique_ptr<QueryResult>> VacuumWithDeleter(Connection& con, std::string_view statement,
                                                       FileDeleter deleter) {
  SILT_ASSIGN_OR_RETURN(sql::StatementNode stmt,
                        CatchAsStatus([&] { return sql::ParseStatement(statement); }));
  if (stmt->kind != sql::StatementKind::kVacuum) {
    return Status::NotImplemented("VacuumWithDeleter runs VACUUM statements only",
                                  errc::kNotImplemented);
  }
  engine::SessionState& session = con.session();
  session.delete_files = [&](const std::string& location, std::span<const std::string_view> keys,
                             std::span<Status> statuses) {
    std::vector<Status> out = deleter(location, std::vector<std::string>(keys.begin(), keys.end()));
    for (size_t i = 0; i < statuses.size(); ++i) {
      statuses[i] =
          i < out.size()
              ? std::move(out[i])
              : Status::IoError("the deleter reported no status for " + std::string(keys[i]));
    }
  };
  Result<std::unique_ptr<QueryResult>> r = CatchAsStatus([&] { return session.Execute(*stmt); });
  session.delete_files = nullptr;
  return r;
}

Result<std::vector<Status>> DeleteTableFiles(Connection& con, std::string_view table_uri,
                                             const std::vector<std::string>& keys) {
  for (const std::string& k : keys) {
    const bool climbs = k == ".." || k.starts_with("../") || k.find("/../") != std::string::npos ||
                        k.ends_with("/..");
    if (k.empty() || k.front() == '/' || k.find("://") != std::string::npos || climbs ||
        k.starts_with("_delta_log/")) {
      return Status::InvalidArgument("not a file below the table root: " + k,
                                     errc::kSiltInvalidDistributedTask);
    }
  }
  engine::SessionState& session = con.session();
  planner::Binder binder(session.StatementBinderContext());
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable table,
                        ResolveLatestWithStore(binder, table_uri, session.db->clock));
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::vector<Status> statuses(keys.size());
  table.store->DeleteKeys(views, statuses);
  return statuses;
}

Result<TableFiles> PruneTableFiles(Connection& con, std::string_view table_uri,
                                   std::optional<int64_t> version, std::string_view predicate) {
  engine::SessionState& session = con.session();
  planner::Binder binder(session.StatementBinderContext());
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable table, ResolveAt(binder, table_uri, version));
  TableFiles out;
  out.version = table.snapshot->version();
  std::optional<std::unordered_set<const delta::AddFile*>> candidates;
  if (!predicate.empty()) {
    SILT_ASSIGN_OR_RETURN(sql::ExprNode where,
                          CatchAsStatus([&] { return sql::ParseExpression(predicate); }));
    commands::CommandContext ctx = BindingContext(session, binder);
    SILT_ASSIGN_OR_RETURN(commands::TablePredicate pred,
                          commands::BindTablePredicate(where.get(), *table.snapshot, "", ctx));
    SILT_ASSIGN_OR_RETURN(candidates, commands::CandidateFiles(pred, table.snapshot, ctx));
  }
  for (const delta::AddFile& f : table.snapshot->files()) {
    if (candidates && !candidates->contains(&f)) continue;
    out.paths.push_back(f.path);
    out.sizes.push_back(f.size);
  }
  return out;
}

Result<std::unique_ptr<QueryResult>> ReadTableFiles(Connection& con, std::string_view table_uri,
                                                    int64_t version,
                                                    const std::vector<std::string>& paths,
                                                    const std::vector<std::string>& columns,
                                                    std::string_view predicate) {
  engine::SessionState& session = con.session();
  planner::Binder binder(session.StatementBinderContext());
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable table, ResolveAt(binder, table_uri, version));
  std::unordered_map<std::string_view, const delta::AddFile*> live;
  for (const delta::AddFile& f : table.snapshot->files()) live.emplace(f.path, &f);
  std::vector<const delta::AddFile*> files;
  for (const std::string& p : paths) {
    auto it = live.find(p);
    if (it == live.end()) {
      return Status::InvalidArgument("not a file of version " + std::to_string(version) + ": " + p,
                                     errc::kSiltInvalidDistributedTask);
    }
    files.push_back(it->second);
  }
  if (!predicate.empty()) {  // one expression, never more SQL
    SILT_RETURN_NOT_OK(CatchAsStatus([&] { return sql::ParseExpression(predicate); }).status());
  }
  SILT_ASSIGN_OR_RETURN(std::unique_ptr<delta::TableScan> scan,
                        delta::TableScan::Make(table.snapshot));
  std::vector<DataChunk> chunks;
  for (const delta::AddFile* f : files) {
    SILT_RETURN_NOT_OK(scan->ScanFile(*f, [&](DataChunk& c) {
      if (c.size()) chunks.push_back(std::move(c));
      return Status::OK();
    }));
  }
  // The predicate and the projection are a query over the rows read: the same evaluation,
  // casts and errors as SELECT.
  const std::string view = "__silt_read_" + delta::Uuid::Random().ToString().substr(0, 8);
  SILT_RETURN_NOT_OK(RegisterTemporaryView(con, view, scan->output_schema(), std::move(chunks)));
  std::string select;
  for (const std::string& c : columns) select += (select.empty() ? "" : ", ") + QuoteIdentifier(c);
  std::string query = "SELECT " + (select.empty() ? std::string("*") : select) + " FROM " + view;
  if (!predicate.empty()) query += " WHERE " + std::string(predicate);
  Result<std::unique_ptr<QueryResult>> rows = con.Query(query);
  Status dropped = DropTemporaryView(con, view);
  SILT_RETURN_NOT_OK(rows.status());
  SILT_RETURN_NOT_OK(dropped);
  return rows;
}

namespace {

Status BadWrite(const std::string& what) {
  return Status::InvalidArgument("not a distributed write task or output: " + what,
                                 errc::kSiltInvalidDistributedTask);
}

// The statements a distributed write runs (WriteWithWorkers' contract), parsed.
Result<sql::StatementNode> ParseWriteStatement(std::string_view statement) {
  SILT_ASSIGN_OR_RETURN(sql::StatementNode stmt,
                        CatchAsStatus([&] { return sql::ParseStatement(statement); }));
  if (stmt->kind == sql::StatementKind::kInsert) return stmt;
  if (stmt->kind == sql::StatementKind::kCreateTable) {
    const auto& c = static_cast<const sql::CreateTableStatement&>(*stmt);
    if (c.as_query && c.copy_from == sql::CreateTableStatement::CopyFrom::kNone &&
        (c.using_format.empty() || c.using_format == "delta") &&
        !dynamic_cast<const sql::StreamingTableStatement*>(&c)) {
      return stmt;
    }
  }
  return Status::NotImplemented(
      "distributed writes run INSERT … SELECT and CREATE TABLE … AS SELECT of Delta tables",
      errc::kNotImplemented);
}

// Runs `stmt` on `con` with its rows written through `write_files`.
Result<std::unique_ptr<QueryResult>> ExecuteWriting(Connection& con, const sql::Statement& stmt,
                                                    delta::WriteFiles write_files) {
  engine::SessionState& session = con.session();
  session.write_files = std::move(write_files);
  Result<std::unique_ptr<QueryResult>> r = CatchAsStatus([&] { return session.Execute(stmt); });
  session.write_files = nullptr;
  return r;
}

bool SameColumns(const Schema& a, const Schema& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].nullable != b[i].nullable || !a[i].type->Equals(*b[i].type))
      return false;
  }
  return true;
}

}  // namespace

Result<std::unique_ptr<QueryResult>> WriteWithWorkers(Connection& con, std::string_view statement,
                                                      const WriteTaskRunner& run) {
  SILT_ASSIGN_OR_RETURN(sql::StatementNode stmt, ParseWriteStatement(statement));
  const std::string job = delta::Uuid::Random().ToString();
  bool called = false;
  auto write_files = [&](ObjectStore& store, const delta::Metadata& md, const Schema& schema,
                         const delta::RowSource&,
                         const delta::DataWriteOptions&) -> Result<delta::WrittenFiles> {
    if (called) return Status::Internal("a distributed write wrote its rows twice");
    called = true;
    for (const Field& f : schema) {
      if (f.metadata_json.find("\"delta.identity.start\"") != std::string::npos) {
        return Status::NotImplemented("distributed writes into a table with the IDENTITY column " +
                                          f.name + " are not implemented",
                                      errc::kNotImplemented);
      }
    }
    std::string task = "{\"job\":";
    delta::AppendJacksonString(&task, job);
    task += ",\"table\":";
    delta::AppendJacksonString(&task, store.root());
    task += ",\"metadata\":";
    task += delta::SerializeAction(delta::Action(md));
    task += '}';
    SILT_ASSIGN_OR_RETURN(std::vector<std::string> outputs, run(task));
    delta::WrittenFiles all;
    simdjson::dom::parser parser;
    for (const std::string& text : outputs) {
      simdjson::dom::object obj;
      std::string_view out_job;
      int64_t rows = 0;
      simdjson::dom::array added;
      if (parser.parse(text.data(), text.size()).get(obj) || obj["job"].get(out_job) ||
          obj["rows"].get(rows) || obj["added"].get(added)) {
        return BadWrite("a field is missing or mistyped");
      }
      if (out_job != job) return BadWrite("an output of another job");
      all.rows += rows;
      for (simdjson::dom::element a : added) {
        std::string line;
        delta::AppendJsonElement(&line, a);
        delta::Action action;
        SILT_RETURN_NOT_OK(delta::ParseActionLine(line, &action));
        delta::AddFile* add = action.get_if<delta::AddFile>();
        if (!add) return BadWrite("a file that is not an add action");
        all.adds.push_back(std::move(*add));
      }
    }
    return all;
  };
  return ExecuteWriting(con, *stmt, write_files);
}

Result<std::string> RunDistributedWrite(Connection& con, std::string_view statement,
                                        std::string_view task) {
  SILT_ASSIGN_OR_RETURN(sql::StatementNode stmt, ParseWriteStatement(statement));
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  std::string_view job, table;
  simdjson::dom::element metadata;
  if (parser.parse(task.data(), task.size()).get(obj) || obj["job"].get(job) ||
      obj["table"].get(table) || obj["metadata"].get(metadata)) {
    return BadWrite("a field is missing or mistyped");
  }
  std::string line;
  delta::AppendJsonElement(&line, metadata);
  delta::Action action;
  SILT_RETURN_NOT_OK(delta::ParseActionLine(line, &action));
  const delta::Metadata* want = action.get_if<delta::Metadata>();
  if (!want) return BadWrite("the metadata is not a metaData action");
  SILT_ASSIGN_OR_RETURN(Schema want_schema,
                        delta::ParseSchemaString(want->schema_string.value_or("{}")));
  const bool creates = stmt->kind == sql::StatementKind::kCreateTable;
  std::optional<delta::WrittenFiles> written;
  auto write_files = [&](ObjectStore& store, const delta::Metadata& md, const Schema& schema,
                         const delta::RowSource& rows,
                         const delta::DataWriteOptions& write) -> Result<delta::WrittenFiles> {
    // INSERT: the table must still have the planned metadata. CTAS: this process built its own
    // (fresh ids, column mapping names): the columns and partitioning must be the planned ones,
    // and the files are written with the planned metadata, which is the one committed.
    if (store.root() != table) {
      return BadWrite("the statement writes to " + store.root() + ", the task's table is " +
                      std::string(table));
    }
    const bool same = creates ? SameColumns(schema, want_schema) &&
                                    md.partition_columns == want->partition_columns
                              : md == *want;
    if (!same) {
      return Status::InvalidArgument(
          "The metadata of the Delta table " + std::string(table) +
              " has been changed since the distributed write was planned.",
          errc::kDeltaMetadataChanged);
    }
    SILT_ASSIGN_OR_RETURN(written,
                          delta::WriteDataFilesFrom(store, *want, want_schema, rows, write));
    // The statement must not go on to commit: this unwinds it (the caller sees `written`).
    return Status::Cancelled(
        "distributed write: the files are written, the commit is the client's");
  };
  Result<std::unique_ptr<QueryResult>> r = ExecuteWriting(con, *stmt, write_files);
  if (!written) {
    SILT_RETURN_NOT_OK(r.status());
    return Status::Internal("the statement wrote no rows through the distributed write");
  }
  std::string out = "{\"job\":";
  delta::AppendJacksonString(&out, job);
  out += ",\"rows\":";
  delta::AppendInt(&out, written->rows);
  out += ",\"added\":[";
  for (size_t i = 0; i < written->adds.size(); ++i) {
    if (i) out += ',';
    out += delta::SerializeAction(delta::Action(written->adds[i]));
  }
  out += "]}";
  return out;
}

Result<AutoTtlReport> RunAutoTtl(Connection& con, std::string_view table_uri,
                                 std::optional<int64_t> now_ms, const std::string& executor_name,
                                 TaskRunner run_tasks, FileDeleter deleter) {
  engine::SessionState& session = con.session();
  planner::Binder binder(session.StatementBinderContext());
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable table,
                        ResolveLatestWithStore(binder, table_uri, session.db->clock));
  // `silt maintain --now` pins the clock the same way.
  std::shared_ptr<Clock> clock = session.db->clock;
  if (now_ms) clock = std::make_shared<ManualClock>(*now_ms);
  maintenance::MaintenanceConfig config;
  config.routine_jobs = false;
  config.pool = session.PoolForStatement();
  config.open_store =
      [store = table.store](const std::string&) -> Result<std::shared_ptr<ObjectStore>> {
    return store;
  };
  config.wait = [clock](int64_t ms) {
    if (auto* manual = dynamic_cast<ManualClock*>(clock.get())) {
      manual->AdvanceMillis(ms);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    }
  };
  maintenance::RemoteExecutor remote;
  remote.name = executor_name;
  remote.min_table_bytes = -1;  // every table: the caller asked for the cluster
  remote.run_tasks = std::move(run_tasks);
  remote.delete_files = std::move(deleter);
  config.remote = std::move(remote);
  maintenance::MaintenanceService service(session.db->options.warehouse, clock, std::move(config));
  SILT_ASSIGN_OR_RETURN(
      maintenance::PassReport pass,
      service.RunPass({maintenance::MaintainedTable{table.location, "", "", table.location}}));
  AutoTtlReport out;
  for (maintenance::OperationRecord& r : pass.operations) {
    out.operations.push_back(
        {std::move(r.operation_type), std::move(r.operation_status), std::move(r.metrics)});
  }
  out.skipped = std::move(pass.skipped);
  return out;
}

}  // namespace silt
