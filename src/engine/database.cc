#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>

#include "commands/command.h"
#include "common/allocator.h"
#include "common/error_classes.h"
#include "common/exception_status.h"
#include "common/large_stack.h"
#include "common/query_memory.h"
#include "engine/engine.h"
#include "exec/operator.h"
#include "exec/spill.h"
#include "planner/binder.h"
#include "planner/dynamic_file_pruning.h"
#include "planner/optimizer.h"
#include "planner/physical_planner.h"
#include "sql/parser.h"

namespace silt {

// ---------------------------------------------------------------------------------------------
// Database

Result<std::shared_ptr<Database>> Database::Open(DatabaseOptions options) {
  if (options.tune_allocator) TuneAllocatorForScans();
  auto state = std::make_unique<engine::DatabaseState>();
  if (!options.clock) options.clock = SystemClock::Default();
  SILT_ASSIGN_OR_RETURN(state->catalog, planner::Catalog::Open(options.warehouse, options.clock));
  // The pool's workers plus the calling thread share the work (ParallelFor runs on the caller).
  size_t threads = options.threads > 0 ? static_cast<size_t>(options.threads)
                                       : std::thread::hardware_concurrency();
  if (threads > 1) state->pool = std::make_unique<ThreadPool>(threads - 1);
  state->memory = std::make_shared<MemoryTracker>("database", options.memory_limit_bytes);
  state->temp_directory = options.temp_directory;
  state->clock = options.clock;
  state->options = std::move(options);
  std::shared_ptr<Database> db(new Database());
  db->state_ = std::move(state);
  return db;
}

Database::~Database() = default;
const DatabaseOptions& Database::options() const { return state_->options; }

size_t QueryResult::num_rows() const {
  size_t n = 0;
  for (const auto& c : chunks_) n += c.size();
  return n;
}

std::vector<Value> QueryResult::Row(size_t i) const {
  for (const auto& c : chunks_) {
    if (i < c.size()) return c.GetRow(i);
    i -= c.size();
  }
  return {};
}

// ---------------------------------------------------------------------------------------------
// Connection

Connection::Connection(std::shared_ptr<Database> db)
    : db_(std::move(db)), session_(std::make_unique<engine::SessionState>(&db_->state())) {}
Connection::~Connection() = default;
Connection::Connection(Connection&&) noexcept = default;
Connection& Connection::operator=(Connection&&) noexcept = default;

namespace {

// No exception may leave the library: the host (Python, a web server) would terminate. A stray
// one (a bug: std::bad_variant_access, std::out_of_range) becomes INTERNAL_ERROR with its text,
// std::bad_alloc an out-of-memory error; the session stays usable.
template <typename F>
auto Guarded(F&& f) -> decltype(f()) {
  return CatchAsStatus(std::forward<F>(f));
}

// The stack a statement gets when the caller's is too small to bind it (address space only: the
// pages are touched as the recursion goes).
constexpr size_t kDeepQueryStackBytes = size_t{16} << 20;

}  // namespace

Result<std::vector<std::unique_ptr<QueryResult>>> Connection::QueryAll(std::string_view sql) {
  SILT_ASSIGN_OR_RETURN(std::vector<sql::StatementNode> stmts,
                        Guarded([&] { return sql::ParseScript(sql); }));
  std::vector<std::unique_ptr<QueryResult>> out;
  for (const auto& s : stmts) {
    Result<std::unique_ptr<QueryResult>> attempt = Guarded([&] { return session_->Execute(*s); });
    if (!attempt.ok() && attempt.status().error_class() == errc::kSiltQueryTooDeep) {
      // The binder stops at half of the calling thread's stack, which the host chose (8 MB on a
      // main thread, less on many others), before anything is written. A deeply nested query
      // binds, plans and runs again on a stack of its own; past half of that it is too deep.
      RunOnLargeStack(kDeepQueryStackBytes,
                      [&] { attempt = Guarded([&] { return session_->Execute(*s); }); });
    }
    SILT_ASSIGN_OR_RETURN(std::unique_ptr<QueryResult> r, std::move(attempt));
    r->time_zone = session_->config.Get("spark.sql.session.timeZone").value_or("UTC");
    out.push_back(std::move(r));
  }
  return out;
}

Result<std::unique_ptr<QueryResult>> Connection::Query(std::string_view sql) {
  SILT_ASSIGN_OR_RETURN(auto all, QueryAll(sql));
  if (all.empty()) return std::make_unique<QueryResult>(Schema{}, std::vector<DataChunk>{});
  return std::move(all.back());
}

std::optional<std::string> Connection::GetConfig(const std::string& key) const {
  return session_->config.Get(key);
}
Status Connection::SetConfig(const std::string& key, const std::string& value) {
  return session_->config.Set(key, value);
}
const std::string& Connection::current_schema() const { return session_->current_schema; }

void Connection::SetProgressHandler(std::function<void(const std::string&)> handler) {
  session_->progress = std::move(handler);
}

namespace engine {

namespace {

std::unique_ptr<QueryResult> ToResult(commands::CommandResult r, std::string kind) {
  auto out = std::make_unique<QueryResult>(std::move(r.schema), std::move(r.chunks));
  out->statement = std::move(kind);
  return out;
}

}  // namespace

ThreadPool* SessionState::PoolForStatement() {
  const int64_t threads = config.GetInt("silt.threads", 0);
  if (threads <= 0) return db->pool.get();
  if (threads == 1) return nullptr;
  constexpr int64_t kMaxThreads = 256;  // a typo must not start millions of threads
  const size_t workers = static_cast<size_t>(std::min(threads, kMaxThreads) - 1);
  if (db->pool && db->pool->num_threads() == workers) return db->pool.get();
  if (!own_pool_ || own_pool_->num_threads() != workers) {
    own_pool_.reset();  // joins the old workers first
    own_pool_ = std::make_unique<ThreadPool>(workers);
  }
  return own_pool_.get();
}

planner::BinderContext SessionState::StatementBinderContext() const {
  planner::BinderContext bctx;
  bctx.catalog = db->catalog.get();
  bctx.config = &config;
  bctx.current_schema = current_schema;
  bctx.bind.ansi = config.GetBool("spark.sql.ansi.enabled", true);
  bctx.bind.time_zone = config.Get("spark.sql.session.timeZone").value_or("UTC");
  bctx.bind.legacy_java_charsets = config.GetBool("spark.sql.legacy.javaCharsets", false);
  bctx.bind.legacy_coding_error_action =
      config.GetBool("spark.sql.legacy.codingErrorAction", false);
  bctx.bind.legacy_negative_index_in_array_insert =
      config.GetBool("spark.sql.legacy.negativeIndexInArrayInsert", false);
  bctx.eval.ansi = bctx.bind.ansi;
  bctx.eval.time_zone = bctx.bind.time_zone;
  bctx.eval.now_micros = db->clock->NowMicros();
  bctx.clock = db->clock;
  bctx.temp_views = &temp_views;
  return bctx;
}

Result<std::unique_ptr<QueryResult>> SessionState::Execute(const sql::Statement& stmt) {
  // Per-statement settings: ANSI mode, time zone, a fixed current_timestamp().
  planner::BinderContext bctx = StatementBinderContext();

  int64_t limit = config.GetBytes("silt.memory.limit", -1);
  auto memory = std::make_shared<MemoryTracker>("query", limit, db->memory);
  // Scalar functions check the values they build against the same limit (common/query_memory.h).
  ScopedQueryMemory query_memory(memory);
  planner::OptimizerOptions opt;
  opt.stats_skipping = config.GetBool("spark.databricks.delta.stats.skipping", true);
  opt.generated_partition_filters = config.GetBool(
      "spark.databricks.delta.generatedColumn.partitionFilterOptimization.enabled", true);
  opt.eval = bctx.eval;
  opt.dfp = planner::DfpOptionsFrom(config);
  opt.late_materialization = config.GetBool("silt.lateMaterialization", true);
  exec::ExecContext ectx;
  ectx.eval = bctx.eval;
  ThreadPool* const pool = PoolForStatement();
  ectx.pool = pool;
  ectx.memory = memory.get();
  ectx.cancelled = cancelled;
  // Rows the statement collects in memory (its result, a CTE or subquery run at bind time, the
  // source of MERGE; INSERT … SELECT and CTAS stream theirs, below) count against the statement's
  // memory limit while it runs: a result of many chunks, each passing every operator's check, must
  // not grow past silt.memory.limit.
  MemoryReservation collected(memory.get(), "rows collected by the statement");
  int64_t collected_bytes = 0;
  constexpr size_t kCompactRows = 256;
  auto collect = [&](exec::Operator& op) -> Result<std::vector<DataChunk>> {
    std::vector<DataChunk> rows;
    for (DataChunk c;; c = DataChunk()) {
      SILT_ASSIGN_OR_RETURN(bool more, op.Next(ectx, &c));
      if (!more) break;
      if (c.size() == 0) continue;
      for (Vector& v : c.columns) {
        // A few rows left of a batch (after a filter or a limit) keep the batch's buffers:
        // a copy holds only what the rows need.
        if (c.size() <= kCompactRows) v = Vector(v);
        collected_bytes += static_cast<int64_t>(v.MemoryUsage());
      }
      SILT_RETURN_NOT_OK(collected.Resize(collected_bytes));
      rows.push_back(std::move(c));
    }
    return rows;
  };
  // Spill files of this statement: the directory goes when the statement ends (declared before
  // the operators, so it outlives them).
  std::string temp_dir = config.Get("silt.tempDirectory").value_or("");
  if (temp_dir.empty()) temp_dir = db->temp_directory;
  // Spilling applies under a limit (the statement's or the database's); without one the
  // operators keep their in-memory paths.
  const bool limited = limit >= 0 || db->options.memory_limit_bytes >= 0;
  exec::SpillManager spill(temp_dir, limited && config.GetBool("silt.spill.enabled", true));
  spill.set_shared_memory(db->memory.get());  // a database limit bounds the operators' budgets
  ectx.spill = &spill;
  auto run_plan = [&](const planner::PlanPtr& plan) -> Result<std::vector<DataChunk>> {
    SILT_ASSIGN_OR_RETURN(planner::PlanPtr optimized, planner::Optimize(plan, opt));
    SILT_ASSIGN_OR_RETURN(exec::OperatorPtr op, planner::BuildPhysical(optimized));
    return collect(*op);
  };
  // INSERT … SELECT and CTAS take the rows as they come (written to data files), so only what the
  // writer buffers is held, not the statement's whole result.
  auto stream_plan = [&](const planner::PlanPtr& plan,
                         const std::function<Status(DataChunk&)>& sink) -> Status {
    SILT_ASSIGN_OR_RETURN(planner::PlanPtr optimized, planner::Optimize(plan, opt));
    SILT_ASSIGN_OR_RETURN(exec::OperatorPtr op, planner::BuildPhysical(optimized));
    for (DataChunk c;; c = DataChunk()) {
      SILT_ASSIGN_OR_RETURN(bool more, op->Next(ectx, &c));
      if (!more) break;
      SILT_RETURN_NOT_OK(sink(c));
    }
    return Status::OK();
  };
  bctx.execute = run_plan;
  bctx.explain_only = stmt.kind == sql::StatementKind::kExplain &&
                      static_cast<const sql::ExplainStatement&>(stmt).mode != "analyze";
  planner::Binder binder(bctx);

  commands::CommandContext cctx;
  cctx.catalog = db->catalog.get();
  cctx.config = &config;
  cctx.current_schema = &current_schema;
  cctx.binder = &binder;
  cctx.clock = db->clock;
  cctx.run_plan = run_plan;
  cctx.stream_plan = stream_plan;
  cctx.pool = pool;
  cctx.progress = progress;
  cctx.temp_views = &temp_views;
  cctx.cancelled = cancelled;
  cctx.plan_optimize = plan_optimize;
  cctx.delete_files = delete_files;
  cctx.write_files = write_files;

  using K = sql::StatementKind;
  switch (stmt.kind) {
    case K::kQuery: {
      const auto& q = static_cast<const sql::QueryStatement&>(stmt);
      SILT_ASSIGN_OR_RETURN(planner::PlanPtr plan, binder.BindQuery(*q.query));
      Schema schema;
      for (const auto& c : plan->columns) schema.push_back({c.name, c.type, c.nullable, "{}"});
      SILT_ASSIGN_OR_RETURN(std::vector<DataChunk> rows, run_plan(plan));
      commands::CommandResult r{std::move(schema), std::move(rows)};
      return ToResult(std::move(r), "query");
    }
    case K::kExplain: {
      const auto& e = static_cast<const sql::ExplainStatement&>(stmt);
      if (e.mode == "analyze" && e.inner->kind == K::kQuery) {
        // Runs the query, then prints the physical plan with what each Delta scan read and its
        // dynamic file pruning metrics (docs/dfp.md).
        const auto& q = static_cast<const sql::QueryStatement&>(*e.inner);
        SILT_ASSIGN_OR_RETURN(planner::PlanPtr plan, binder.BindQuery(*q.query));
        SILT_ASSIGN_OR_RETURN(planner::PlanPtr optimized, planner::Optimize(plan, opt));
        SILT_ASSIGN_OR_RETURN(exec::OperatorPtr op,
                              planner::BuildPhysical(optimized, /*profile=*/true));
        const auto start = std::chrono::steady_clock::now();
        int64_t n = 0;  // the rows are counted, not kept
        for (DataChunk c;; c = DataChunk()) {
          SILT_ASSIGN_OR_RETURN(bool more, op->Next(ectx, &c));
          if (!more) break;
          n += static_cast<int64_t>(c.size());
        }
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        char head[96];
        std::snprintf(head, sizeof(head), "== Physical Plan (analyzed: %lld rows, %.3f ms",
                      static_cast<long long>(n), ms);
        std::string header = head;
        if (spill.files_created() > 0) {
          header += ", spilled " + std::to_string(spill.bytes_written()) + " bytes in " +
                    std::to_string(spill.files_created()) + " files";
        }
        header += ") ==\n";
        return ToResult(commands::StringRows({"plan"}, {{header + planner::ExplainAnalyzed(*op)}}),
                        "explain");
      }
      if (e.mode == "codegen" || e.mode == "logical" || e.mode == "analyze") {
        return Status::NotImplemented(
            "EXPLAIN " + e.mode + " is not supported (use EXPLAIN [EXTENDED | FORMATTED | COST])",
            errc::kNotImplemented);
      }
      if (e.inner->kind == K::kDelete || e.inner->kind == K::kUpdate) {
        SILT_ASSIGN_OR_RETURN(std::string text, commands::ExplainDml(*e.inner, cctx));
        return ToResult(commands::StringRows({"plan"}, {{"== Physical Plan ==\n" + text}}),
                        "explain");
      }
      if (e.inner->kind != K::kQuery) {
        return Status::NotImplemented(
            "EXPLAIN of this statement is not supported yet (queries, DELETE and UPDATE are)",
            errc::kNotImplemented);
      }
      const auto& q = static_cast<const sql::QueryStatement&>(*e.inner);
      SILT_ASSIGN_OR_RETURN(planner::PlanPtr plan, binder.BindQuery(*q.query));
      std::string text;
      if (e.mode == "extended")
        text = "== Analyzed Logical Plan ==\n" + planner::ExplainPlan(*plan) + "\n";
      SILT_ASSIGN_OR_RETURN(planner::PlanPtr optimized, planner::Optimize(plan, opt));
      if (e.mode == "extended" || e.mode == "cost") {
        text += "== Optimized Logical Plan ==\n" + planner::ExplainPlan(*optimized);
      }
      if (e.mode != "cost") {
        SILT_ASSIGN_OR_RETURN(exec::OperatorPtr op, planner::BuildPhysical(optimized));
        if (!text.empty()) text += "\n";
        text += "== Physical Plan ==\n" + planner::ExplainPhysical(*op, e.mode == "formatted");
      }
      return ToResult(commands::StringRows({"plan"}, {{text}}), "explain");
    }
    default:
      break;
  }
  Result<commands::CommandResult> r =
      Status::NotImplemented("statement not implemented yet", errc::kNotImplemented);
  std::string kind = "command";
  switch (stmt.kind) {
    case K::kCreateTable:
      r = commands::CreateTable(static_cast<const sql::CreateTableStatement&>(stmt), cctx);
      kind = "create_table";
      break;
    case K::kDropTable:
      r = commands::DropTable(static_cast<const sql::DropTableStatement&>(stmt), cctx);
      kind = "drop_table";
      break;
    case K::kTruncate:
      r = commands::TruncateTable(static_cast<const sql::TruncateStatement&>(stmt), cctx);
      break;
    case K::kCreateView:
      r = commands::CreateView(static_cast<const sql::CreateViewStatement&>(stmt), cctx);
      break;
    case K::kDropView:
      r = commands::DropView(static_cast<const sql::DropViewStatement&>(stmt), cctx);
      break;
    case K::kAlterTable:
      r = commands::AlterTable(static_cast<const sql::AlterTableStatement&>(stmt), cctx);
      break;
    case K::kInsert:
      r = commands::Insert(static_cast<const sql::InsertStatement&>(stmt), cctx);
      kind = "insert";
      break;
    case K::kCreateSchema:
    case K::kDropSchema:
    case K::kUse:
    case K::kShowSchemas:
      r = commands::SchemaCommand(stmt, cctx);
      break;
    case K::kShowTables:
      r = commands::ShowTables(static_cast<const sql::ShowStatement&>(stmt), cctx);
      break;
    case K::kSet:
    case K::kReset:
      r = commands::SetCommand(stmt, cctx);
      kind = "set";
      break;
    case K::kDelete:
      r = commands::DeleteFrom(static_cast<const sql::DeleteStatement&>(stmt), cctx);
      kind = "delete";
      break;
    case K::kUpdate:
      r = commands::UpdateTable(static_cast<const sql::UpdateStatement&>(stmt), cctx);
      kind = "update";
      break;
    case K::kMerge:
      r = commands::MergeInto(static_cast<const sql::MergeStatement&>(stmt), cctx);
      kind = "merge";
      break;
    case K::kOptimize:
      r = commands::OptimizeTable(static_cast<const sql::OptimizeStatement&>(stmt), cctx);
      kind = "optimize";
      break;
    case K::kReorg:
      r = commands::ReorgTable(static_cast<const sql::ReorgStatement&>(stmt), cctx);
      kind = "reorg";
      break;
    case K::kVacuum:
      r = commands::VacuumTable(static_cast<const sql::VacuumStatement&>(stmt), cctx);
      kind = "vacuum";
      break;
    case K::kShowTblProperties:
      r = commands::ShowTblProperties(static_cast<const sql::ShowStatement&>(stmt), cctx);
      break;
    case K::kShowCreateTable:
      r = commands::ShowCreateTable(static_cast<const sql::ShowStatement&>(stmt), cctx);
      break;
    case K::kShowColumns:
      r = commands::ShowColumns(static_cast<const sql::ShowStatement&>(stmt), cctx);
      break;
    case K::kShowMaintenance:
      r = commands::ShowMaintenance(static_cast<const sql::ShowStatement&>(stmt), cctx);
      break;
    case K::kRestore:
      r = commands::RestoreTable(static_cast<const sql::RestoreStatement&>(stmt), cctx);
      kind = "restore";
      break;
    case K::kConvertToDelta:
      r = commands::ConvertToDelta(static_cast<const sql::ConvertToDeltaStatement&>(stmt), cctx);
      kind = "convert";
      break;
    case K::kDescribeHistory:
      r = commands::DescribeHistory(static_cast<const sql::DescribeStatement&>(stmt), cctx);
      break;
    case K::kDescribeDetail:
      r = commands::DescribeDetail(static_cast<const sql::DescribeStatement&>(stmt), cctx);
      break;
    case K::kDescribeTable:
      r = commands::DescribeTable(static_cast<const sql::DescribeStatement&>(stmt), cctx);
      break;
    default:
      r = Status::NotImplemented("this statement is not implemented yet: " + stmt.text,
                                 errc::kNotImplemented);
  }
  SILT_RETURN_NOT_OK(r.status());
  return ToResult(std::move(*r), kind);
}

}  // namespace engine
}  // namespace silt
