#include "server/server.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "common/error_classes.h"
#include "common/json_escape.h"
#include "delta/json_util.h"
#include "engine/engine.h"
#include "io/object_store_factory.h"
#include "maintenance/service.h"
#include "planner/catalog.h"
#include "server/assets.h"
#include "server/figures.h"
#include "sql/parser.h"

#if SILT_HAVE_HTTPLIB
#include <httplib.h>
#endif

namespace silt::server {

bool IsLoopback(const std::string& bind) {
  return bind == "localhost" || bind == "::1" || bind == "[::1]" || bind.rfind("127.", 0) == 0;
}

#if !SILT_HAVE_HTTPLIB

bool Available() { return false; }

class Server::Impl {
 public:
  ServerOptions options;
};

Server::Server(std::shared_ptr<Database>, ServerOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
}
Server::~Server() = default;
Status Server::Start() {
  return Status::NotImplemented(
      "silt serve: this build has no HTTP server (cpp-httplib, Debian libcpp-httplib-dev, was "
      "absent when it was configured)");
}
void Server::Stop() {}
int Server::port() const { return 0; }
const ServerOptions& Server::options() const { return impl_->options; }

#else  // SILT_HAVE_HTTPLIB

bool Available() { return true; }

namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A small JSON writer: objects and arrays with commas placed by a stack.
class Json {
 public:
  Json& BeginObject() { return Open('{'); }
  Json& EndObject() { return Close('}'); }
  Json& BeginArray() { return Open('['); }
  Json& EndArray() { return Close(']'); }
  Json& Key(std::string_view k) {
    Comma();
    AppendJsonString(&out_, k, JsonHexCase::kLower);
    out_ += ':';
    after_key_ = true;
    return *this;
  }
  Json& Str(std::string_view s) {
    Comma();
    AppendJsonString(&out_, s, JsonHexCase::kLower);
    return *this;
  }
  Json& Int(int64_t v) {
    Comma();
    out_ += std::to_string(v);
    return *this;
  }
  Json& Num(double v) {
    Comma();
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    out_ += buf;
    return *this;
  }
  Json& Bool(bool v) {
    Comma();
    out_ += v ? "true" : "false";
    return *this;
  }
  Json& Null() {
    Comma();
    out_ += "null";
    return *this;
  }
  Json& Raw(std::string_view json) {
    Comma();
    out_ += json;
    return *this;
  }
  Json& OptStr(const std::optional<std::string>& s) { return s ? Str(*s) : Null(); }
  const std::string& str() const { return out_; }

 private:
  Json& Open(char c) {
    Comma();
    out_ += c;
    first_.push_back(true);
    return *this;
  }
  Json& Close(char c) {
    out_ += c;
    first_.pop_back();
    return *this;
  }
  void Comma() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_.empty()) {
      if (!first_.back()) out_ += ',';
      first_.back() = false;
    }
  }
  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

// An error of the API: the HTTP status, the error class and the message (the same text the CLI
// prints for statement errors: "Error: [CLASS] message").
struct ApiError {
  int http = 400;
  std::string error_class;
  std::string message;
};

std::string ErrorBody(const ApiError& e) {
  Json j;
  j.BeginObject();
  j.Key("error_class").Str(e.error_class);
  j.Key("message").Str(e.message);
  std::string cli = "Error: ";
  cli += e.error_class.empty() ? e.message : "[" + e.error_class + "] " + e.message;
  j.Key("error").Str(cli);
  j.EndObject();
  return j.str();
}

int HttpStatusOf(const Status& st) {
  switch (st.code()) {
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kInternal:
      return 500;
    case StatusCode::kCancelled:
      return 409;
    default:
      return 400;
  }
}

ApiError FromStatus(const Status& st) {
  ApiError e;
  e.http = HttpStatusOf(st);
  e.error_class = std::string(st.error_class());
  e.message = std::string(st.message());
  return e;
}

// The error body of a failed statement: exactly what `silt sql` prints ("Error: " + ToString()).
std::string StatementErrorBody(const Status& st) {
  Json j;
  j.BeginObject();
  j.Key("error_class").Str(st.error_class());
  j.Key("message").Str(st.message());
  j.Key("error").Str("Error: " + st.ToString());
  j.EndObject();
  return j.str();
}

std::string QuoteIdent(std::string_view s) {
  std::string out = "`";
  for (char c : s) {
    out += c;
    if (c == '`') out += '`';
  }
  return out + "`";
}

std::string QuoteString(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// A table the console shows: a catalog table or a path table.
struct TableRef {
  std::string display;  // schema.name or the location
  std::string sql;      // `schema`.`name` or delta.`location`
  std::string location;
  std::string schema, name;  // empty for path tables
};

bool IsPathLike(const std::string& s) {
  return s.find('/') != std::string::npos || s.find("://") != std::string::npos;
}

struct Grid {
  std::string json;  // {"columns":[...],"rows":[...],...}
};

// A long action running on its own thread.
struct Job {
  int64_t id = 0;
  std::string action;
  std::string table;
  std::string statement;
  std::string state = "running";  // running | succeeded | failed | cancelled
  std::vector<std::string> progress;
  std::string result_json;  // a grid (statements) or a pass report
  std::string error_json;
  int64_t started_ms = 0;
  int64_t ended_ms = 0;
  std::atomic<bool> cancel{false};
  std::thread thread;
};

}  // namespace

class Server::Impl {
 public:
  Impl(std::shared_ptr<Database> db, ServerOptions options)
      : db_(std::move(db)),
        options_(std::move(options)),
        figures_(db_->state().clock, FiguresOptions{}) {}

  ~Impl() { Stop(); }

  Status Start();
  void Stop();
  int port() const { return port_; }
  const ServerOptions& options() const { return options_; }

 private:
  using Req = httplib::Request;
  using Res = httplib::Response;

  void Routes();
  void SendJson(Res& res, int status, const std::string& body) {
    res.status = status;
    res.set_content(body, "application/json; charset=utf-8");
    res.set_header("Cache-Control", "no-store");
  }
  void SendError(Res& res, const ApiError& e) { SendJson(res, e.http, ErrorBody(e)); }
  // Token and method checks: false (and the response written) when the request may not go on.
  bool Admit(const Req& req, Res& res, bool write);
  Result<TableRef> Resolve(const std::string& table);
  std::optional<ApiError> ParseBody(const Req& req, simdjson::dom::element* out);
  std::string param(const Req& req, const char* name) {
    return req.has_param(name) ? req.get_param_value(name) : std::string();
  }
  // Runs `sql` on a fresh connection; the result as a grid.
  Result<std::string> RunGrid(const std::string& sql, size_t max_rows,
                              const std::atomic<bool>* cancel = nullptr,
                              std::function<void(const std::string&)> progress = nullptr);
  std::string GridJson(const QueryResult& r, size_t max_rows);
  Status CheckReadOnlySql(const std::string& sql);

  void GetInfo(const Req& req, Res& res);
  void GetTree(const Req& req, Res& res);
  void PostPath(const Req& req, Res& res);
  void GetTable(const Req& req, Res& res);
  void GetTableSql(const Req& req, Res& res, const std::string& what);
  void GetOpsHistory(const Req& req, Res& res);
  void PostSql(const Req& req, Res& res);
  void PostAction(const Req& req, Res& res);
  void GetJob(const Req& req, Res& res);
  void PostCancel(const Req& req, Res& res);
  std::string JobJson(const Job& job);
  void RunJob(std::shared_ptr<Job> job, std::optional<TableRef> table);

  std::shared_ptr<Database> db_;
  ServerOptions options_;
  FiguresCache figures_;
  httplib::Server http_;
  std::thread listener_;
  int port_ = 0;
  bool started_ = false;

  std::mutex mu_;  // paths_, jobs_, next_job_, grids_
  // DESCRIBE DETAIL / HISTORY and SHOW MAINTENANCE results per table location and statement.
  struct CachedGrid {
    int64_t version = 0;
    int64_t made_ms = 0;
    std::string json;
  };
  static constexpr int64_t kAdvisorFreshMs = 10000;
  std::map<std::string, CachedGrid> grids_;
  std::vector<std::string> paths_;
  std::map<int64_t, std::shared_ptr<Job> > jobs_;
  int64_t next_job_ = 1;
};

bool Server::Impl::Admit(const Req& req, Res& res, bool write) {
  const bool need_token = !options_.token.empty() && (write || !IsLoopback(options_.bind));
  if (need_token) {
    std::string given;
    if (req.has_header("X-Silt-Token")) given = req.get_header_value("X-Silt-Token");
    std::string auth = req.get_header_value("Authorization");
    if (auth.rfind("Bearer ", 0) == 0) given = auth.substr(7);
    // Constant time in the token's length.
    bool same = given.size() == options_.token.size();
    unsigned char diff = 0;
    for (size_t i = 0; i < options_.token.size(); ++i)
      diff |= static_cast<unsigned char>(options_.token[i]) ^
              static_cast<unsigned char>(i < given.size() ? given[i] : 0);
    if (!same || diff != 0) {
      SendError(res, {401, "SILT_CONSOLE_UNAUTHORIZED",
                      given.empty() ? "this endpoint needs the console's token (header "
                                      "'Authorization: Bearer <token>')"
                                    : "wrong token"});
      return false;
    }
  }
  if (write) {
    // A JSON content type forces a CORS preflight, which the console never answers: another
    // site's page cannot post to it.
    std::string ct = req.get_header_value("Content-Type");
    if (ct.rfind("application/json", 0) != 0) {
      SendError(res, {415, "SILT_CONSOLE_UNSUPPORTED_MEDIA_TYPE",
                      "write requests must be sent as application/json"});
      return false;
    }
  }
  return true;
}

std::optional<ApiError> Server::Impl::ParseBody(const Req& req, simdjson::dom::element* out) {
  thread_local simdjson::dom::parser parser;
  auto doc = parser.parse(req.body.data(), req.body.size());
  if (doc.error()) {
    return ApiError{
        400, "SILT_CONSOLE_MALFORMED_JSON",
        std::string("the request body is not valid JSON: ") + simdjson::error_message(doc.error())};
  }
  if (!doc.value().is_object()) {
    return ApiError{400, "SILT_CONSOLE_MALFORMED_JSON", "the request body must be a JSON object"};
  }
  *out = doc.value();
  return std::nullopt;
}

Result<TableRef> Server::Impl::Resolve(const std::string& table) {
  if (table.empty()) {
    return Status::InvalidArgument("missing parameter 'table'", errc::kSiltConsoleBadParameter);
  }
  TableRef ref;
  const std::string& warehouse = db_->state().catalog->warehouse();
  if (IsPathLike(table)) {
    SILT_ASSIGN_OR_RETURN(std::string loc, CanonicalLocation(table));
    if (loc.size() <= warehouse.size() || loc.compare(0, warehouse.size(), warehouse) != 0 ||
        loc[warehouse.size()] != '/') {
      return Status::InvalidArgument("the path '" + table + "' is outside the warehouse " +
                                         warehouse +
                                         " (the console reads only tables under its warehouse)",
                                     errc::kSiltConsolePathOutsideWarehouse);
    }
    ref.display = loc;
    ref.location = loc;
    ref.sql = "delta." + QuoteIdent(loc);
    return ref;
  }
  std::string schema = planner::Catalog::kDefaultSchema, name = table;
  if (size_t dot = table.find('.'); dot != std::string::npos) {
    schema = table.substr(0, dot);
    name = table.substr(dot + 1);
  }
  SILT_ASSIGN_OR_RETURN(
      planner::TableEntry entry,
      db_->state().catalog->GetTable(planner::LowerName(schema), planner::LowerName(name)));
  if (entry.format != "delta") {
    return Status::InvalidArgument(table + " is a view, not a Delta table",
                                   errc::kExpectTableNotViewNoAlternative);
  }
  ref.schema = entry.schema;
  ref.name = entry.name;
  ref.display = entry.schema + "." + entry.name;
  ref.location = entry.location;
  ref.sql = QuoteIdent(entry.schema) + "." + QuoteIdent(entry.name);
  return ref;
}

std::string Server::Impl::GridJson(const QueryResult& r, size_t max_rows) {
  Json j;
  j.BeginObject();
  j.Key("statement").Str(r.statement);
  j.Key("columns").BeginArray();
  for (const Field& f : r.schema()) {
    j.BeginObject();
    j.Key("name").Str(f.name);
    j.Key("type").Str(f.type ? f.type->ToString() : "");
    j.EndObject();
  }
  j.EndArray();
  j.Key("rows").BeginArray();
  size_t shown = 0, total = 0;
  for (const DataChunk& c : r.chunks()) {
    for (size_t i = 0; i < c.size(); ++i, ++total) {
      if (shown >= max_rows) continue;
      ++shown;
      j.BeginArray();
      for (const Vector& v : c.columns) {
        if (options_.format_cell) {
          j.Str(options_.format_cell(v, i, r.time_zone));
        } else {
          j.Str(v.GetValue(i).ToString());
        }
      }
      j.EndArray();
    }
  }
  j.EndArray();
  j.Key("num_rows").Int(static_cast<int64_t>(total));
  j.Key("truncated").Int(static_cast<int64_t>(total - shown));
  j.EndObject();
  return j.str();
}

Result<std::string> Server::Impl::RunGrid(const std::string& sql, size_t max_rows,
                                          const std::atomic<bool>* cancel,
                                          std::function<void(const std::string&)> progress) {
  Connection con(db_);
  con.session().cancelled = cancel;
  if (progress) con.SetProgressHandler(std::move(progress));
  SILT_ASSIGN_OR_RETURN(std::unique_ptr<QueryResult> r, con.Query(sql));
  if (cancel && cancel->load()) return Status::Cancelled("cancelled");
  return GridJson(*r, max_rows);
}

Status Server::Impl::CheckReadOnlySql(const std::string& sql) {
  SILT_ASSIGN_OR_RETURN(std::vector<sql::StatementNode> stmts, sql::ParseScript(sql));
  using K = sql::StatementKind;
  static const std::set<K> kReads = {K::kQuery,
                                     K::kExplain,
                                     K::kShowSchemas,
                                     K::kShowTables,
                                     K::kShowTblProperties,
                                     K::kShowCreateTable,
                                     K::kShowColumns,
                                     K::kDescribeHistory,
                                     K::kDescribeDetail,
                                     K::kDescribeTable,
                                     K::kShowMaintenance,
                                     K::kSet,
                                     K::kReset,
                                     K::kUse};
  for (const sql::StatementNode& s : stmts) {
    if (!kReads.count(s->kind)) {
      return Status::Unsupported(
          "the console runs in read-only mode (--read-only): only queries, SHOW, DESCRIBE and "
          "EXPLAIN statements run",
          errc::kSiltConsoleReadOnly);
    }
  }
  return Status::OK();
}

void Server::Impl::GetInfo(const Req& req, Res& res) {
  if (!Admit(req, res, false)) return;
  Json j;
  j.BeginObject();
  j.Key("version").Str(SILT_VERSION);
  j.Key("warehouse").Str(db_->state().catalog->warehouse());
  j.Key("read_only").Bool(options_.read_only);
  j.Key("token_required").Bool(!options_.token.empty());
  j.Key("charts").Bool(HasChartLibrary());
  j.Key("max_body_bytes").Int(static_cast<int64_t>(options_.max_body_bytes));
  j.EndObject();
  SendJson(res, 200, j.str());
}

void Server::Impl::GetTree(const Req& req, Res& res) {
  if (!Admit(req, res, false)) return;
  planner::Catalog& catalog = *db_->state().catalog;
  Json j;
  j.BeginObject();
  j.Key("warehouse").Str(catalog.warehouse());
  j.Key("schemas").BeginArray();
  for (const std::string& schema : catalog.ListSchemas()) {
    Result<std::vector<std::string> > tables = catalog.ListTables(schema);
    if (!tables.ok()) return SendError(res, FromStatus(tables.status()));
    j.BeginObject();
    j.Key("name").Str(schema);
    j.Key("tables").BeginArray();
    for (const std::string& t : *tables) {
      Result<planner::TableEntry> e = catalog.GetTable(schema, t);
      if (!e.ok()) continue;  // dropped meanwhile
      j.BeginObject();
      j.Key("name").Str(t);
      j.Key("id").Str(schema + "." + t);
      j.Key("type").Str(e->format == "view" ? "VIEW" : (e->managed ? "MANAGED" : "EXTERNAL"));
      j.Key("location").Str(e->location);
      j.EndObject();
    }
    j.EndArray();
    j.EndObject();
  }
  j.EndArray();
  j.Key("paths").BeginArray();
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& p : paths_) j.Str(p);
  }
  j.EndArray();
  j.EndObject();
  SendJson(res, 200, j.str());
}

void Server::Impl::PostPath(const Req& req, Res& res) {
  if (!Admit(req, res, true)) return;
  simdjson::dom::element body;
  if (auto e = ParseBody(req, &body)) return SendError(res, *e);
  std::string_view path;
  if (body["path"].get(path) != simdjson::SUCCESS || path.empty()) {
    return SendError(
        res, {400, errc::kSiltConsoleBadParameter, "expected {\"path\": \"<table path>\"}"});
  }
  std::string p(path);
  if (!IsPathLike(p)) {
    return SendError(res, {400, errc::kSiltConsoleBadParameter,
                           "'" + p + "' is not a path (a path table's location contains '/')"});
  }
  Result<TableRef> ref = Resolve(p);
  if (!ref.ok()) return SendError(res, FromStatus(ref.status()));
  bool cached = false;
  Result<std::shared_ptr<const TableFigures> > f = figures_.Get(ref->location, &cached);
  if (!f.ok()) return SendError(res, FromStatus(f.status()));  // not a Delta table
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (std::find(paths_.begin(), paths_.end(), ref->location) == paths_.end())
      paths_.push_back(ref->location);
  }
  Json j;
  j.BeginObject();
  j.Key("path").Str(ref->location);
  j.EndObject();
  SendJson(res, 200, j.str());
}

void Server::Impl::GetTable(const Req& req, Res& res) {
  if (!Admit(req, res, false)) return;
  const int64_t t0 = NowMs();
  Result<TableRef> ref = Resolve(param(req, "table"));
  if (!ref.ok()) return SendError(res, FromStatus(ref.status()));
  bool cached = false;
  Result<std::shared_ptr<const TableFigures> > got = figures_.Get(ref->location, &cached);
  if (!got.ok()) return SendError(res, FromStatus(got.status()));
  const TableFigures& f = **got;
  Json j;
  j.BeginObject();
  j.Key("table").Str(ref->display);
  j.Key("sql_name").Str(ref->sql);
  j.Key("location").Str(f.location);
  j.Key("version").Int(f.version);
  j.Key("timestamp_ms").Int(f.timestamp_ms);
  j.Key("num_files").Int(f.files);
  j.Key("size_in_bytes").Int(f.bytes);
  j.Key("num_rows").Int(f.rows);
  j.Key("files_without_stats").Int(f.files_without_stats);
  j.Key("small_files").Int(f.small_files);
  j.Key("small_files_bytes").Int(f.small_files_bytes);
  j.Key("min_file_size").Int(f.min_file_size);
  j.Key("dv_files").Int(f.dv_files);
  j.Key("dv_deleted_rows").Int(f.dv_deleted_rows);
  j.Key("deleted_rows_ratio").Num(f.DeletedRatio());
  j.Key("tombstones").Int(f.tombstones);
  j.Key("tombstone_bytes").Int(f.tombstone_bytes);
  j.Key("partition_columns").BeginArray();
  for (const std::string& c : f.partition_columns) j.Str(c);
  j.EndArray();
  j.Key("num_partitions").Int(f.num_partitions);
  j.Key("partitions").BeginArray();
  for (const PartitionFigure& p : f.partitions) {
    j.BeginObject();
    j.Key("partition").Str(p.partition);
    j.Key("files").Int(p.files);
    j.Key("bytes").Int(p.bytes);
    j.EndObject();
  }
  j.EndArray();
  j.Key("ttl").BeginObject();
  j.Key("expire_in_days").OptStr(f.ttl_days);
  j.Key("timestamp_column").OptStr(f.ttl_column);
  j.EndObject();
  j.Key("properties").BeginObject();
  for (const auto& [k, v] : f.properties) j.Key(k).Str(v);
  j.EndObject();
  j.Key("series").BeginArray();
  for (const VersionPoint& p : f.series) {
    j.BeginObject();
    j.Key("version").Int(p.version);
    j.Key("timestamp_ms").Int(p.timestamp_ms);
    j.Key("operation").Str(p.operation);
    j.Key("files").Int(p.files);
    j.Key("bytes").Int(p.bytes);
    j.Key("small_files").Int(p.small_files);
    j.Key("dv_deleted_rows").Int(p.dv_deleted_rows);
    j.Key("bytes_exact").Bool(p.bytes_exact);
    j.EndObject();
  }
  j.EndArray();
  j.Key("from_cache").Bool(cached);
  j.Key("elapsed_ms").Int(NowMs() - t0);
  j.EndObject();
  SendJson(res, 200, j.str());
}

void Server::Impl::GetTableSql(const Req& req, Res& res, const std::string& what) {
  if (!Admit(req, res, false)) return;
  Result<TableRef> ref = Resolve(param(req, "table"));
  if (!ref.ok()) return SendError(res, FromStatus(ref.status()));
  std::string sql;
  if (what == "detail") {
    sql = "DESCRIBE DETAIL " + ref->sql;
  } else if (what == "history") {
    sql = "DESCRIBE HISTORY " + ref->sql;
    std::string limit = param(req, "limit");
    if (!limit.empty()) {
      if (limit.find_first_not_of("0123456789") != std::string::npos || limit.size() > 9) {
        return SendError(res,
                         {400, errc::kSiltConsoleBadParameter, "limit must be a positive integer"});
      }
      sql += " LIMIT " + limit;
    }
  } else {
    sql = "SHOW MAINTENANCE " + ref->sql;
  }
  // Served from memory while the table's version is the same (the advisor's rows also depend on
  // the clock: they are kept for kAdvisorFreshMs at most).
  bool cached = false;
  Result<std::shared_ptr<const TableFigures> > figures = figures_.Get(ref->location, &cached);
  if (!figures.ok()) return SendError(res, FromStatus(figures.status()));
  const int64_t version = (*figures)->version;
  const std::string key = ref->location + '\n' + sql;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = grids_.find(key);
    if (it != grids_.end() && it->second.version == version &&
        (what != "advisor" || NowMs() - it->second.made_ms < kAdvisorFreshMs)) {
      return SendJson(res, 200, it->second.json);
    }
  }
  Result<std::string> grid = RunGrid(sql, 100000);
  if (!grid.ok())
    return SendJson(res, HttpStatusOf(grid.status()), StatementErrorBody(grid.status()));
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (grids_.size() > 1000) grids_.clear();
    grids_[key] = CachedGrid{version, NowMs(), *grid};
  }
  SendJson(res, 200, *grid);
}

void Server::Impl::GetOpsHistory(const Req& req, Res& res) {
  if (!Admit(req, res, false)) return;
  std::vector<std::string> where;
  std::string table = param(req, "table");
  if (!table.empty()) {
    Result<TableRef> ref = Resolve(table);
    if (!ref.ok()) return SendError(res, FromStatus(ref.status()));
    if (ref->schema.empty()) {
      where.push_back("table_name = " + QuoteString(ref->location));
    } else {
      where.push_back("schema_name = " + QuoteString(ref->schema) +
                      " AND table_name = " + QuoteString(ref->name));
    }
  }
  if (std::string op = param(req, "operation"); !op.empty())
    where.push_back("operation_type = " + QuoteString(op));
  if (std::string st = param(req, "status"); !st.empty())
    where.push_back("operation_status = " + QuoteString(st));
  if (std::string since = param(req, "since"); !since.empty())
    where.push_back("start_time >= TIMESTAMP " + QuoteString(since));
  std::string limit = param(req, "limit");
  if (limit.empty()) limit = "200";
  if (limit.find_first_not_of("0123456789") != std::string::npos || limit.size() > 6) {
    return SendError(res,
                     {400, errc::kSiltConsoleBadParameter, "limit must be a positive integer"});
  }
  std::string sql =
      "SELECT start_time, end_time, catalog_name, schema_name, table_name, operation_type, "
      "operation_status, operation_metrics, usage_unit, usage_quantity, operation_id FROM "
      "system.storage.maintenance_operations_history";
  for (size_t i = 0; i < where.size(); ++i) sql += (i ? " AND " : " WHERE ") + where[i];
  sql += " ORDER BY start_time DESC LIMIT " + limit;
  Result<std::string> grid = RunGrid(sql, 100000);
  if (!grid.ok())
    return SendJson(res, HttpStatusOf(grid.status()), StatementErrorBody(grid.status()));
  SendJson(res, 200, *grid);
}

void Server::Impl::PostSql(const Req& req, Res& res) {
  if (!Admit(req, res, true)) return;
  simdjson::dom::element body;
  if (auto e = ParseBody(req, &body)) return SendError(res, *e);
  std::string_view sql;
  if (body["sql"].get(sql) != simdjson::SUCCESS) {
    return SendError(res,
                     {400, errc::kSiltConsoleBadParameter, "expected {\"sql\": \"<statements>\"}"});
  }
  if (options_.read_only) {
    Status st = CheckReadOnlySql(std::string(sql));
    if (!st.ok()) {
      return SendJson(res, st.error_class() == errc::kSiltConsoleReadOnly ? 403 : 400,
                      StatementErrorBody(st));
    }
  }
  const int64_t t0 = NowMs();
  Result<std::string> grid = RunGrid(std::string(sql), options_.max_result_rows);
  if (!grid.ok())
    return SendJson(res, HttpStatusOf(grid.status()), StatementErrorBody(grid.status()));
  std::string out = *grid;
  out.pop_back();
  out += ",\"elapsed_ms\":" + std::to_string(NowMs() - t0) + "}";
  SendJson(res, 200, out);
}

std::string Server::Impl::JobJson(const Job& job) {
  Json j;
  j.BeginObject();
  j.Key("id").Int(job.id);
  j.Key("action").Str(job.action);
  j.Key("table").Str(job.table);
  j.Key("statement").Str(job.statement);
  j.Key("state").Str(job.state);
  j.Key("progress").BeginArray();
  for (const std::string& p : job.progress) j.Str(p);
  j.EndArray();
  j.Key("elapsed_ms").Int((job.ended_ms ? job.ended_ms : NowMs()) - job.started_ms);
  if (!job.result_json.empty()) j.Key("result").Raw(job.result_json);
  if (!job.error_json.empty()) j.Key("error").Raw(job.error_json);
  j.EndObject();
  return j.str();
}

void Server::Impl::PostAction(const Req& req, Res& res) {
  if (!Admit(req, res, true)) return;
  simdjson::dom::element body;
  if (auto e = ParseBody(req, &body)) return SendError(res, *e);
  std::string_view action_sv, table_sv;
  if (body["action"].get(action_sv) != simdjson::SUCCESS) {
    return SendError(res, {400, errc::kSiltConsoleBadParameter,
                           "expected {\"action\": \"vacuum_dry_run|vacuum|optimize|reorg_purge|"
                           "set_ttl|drop_ttl|maintain_dry_run|maintain\", \"table\": …}"});
  }
  const std::string action(action_sv);
  static const std::set<std::string> kActions = {"vacuum_dry_run",   "vacuum",  "optimize",
                                                 "reorg_purge",      "set_ttl", "drop_ttl",
                                                 "maintain_dry_run", "maintain"};
  if (!kActions.count(action)) {
    return SendError(res, {400, errc::kSiltConsoleBadParameter, "unknown action '" + action + "'"});
  }
  const bool dry = action == "vacuum_dry_run" || action == "maintain_dry_run";
  if (options_.read_only && !dry) {
    return SendError(res, {403, errc::kSiltConsoleReadOnly,
                           "the console runs in read-only mode (--read-only): action '" + action +
                               "' changes the table"});
  }
  if (body["table"].get(table_sv) != simdjson::SUCCESS) table_sv = {};
  std::optional<TableRef> ref;
  if (!table_sv.empty() || action.rfind("maintain", 0) != 0) {
    Result<TableRef> r = Resolve(std::string(table_sv));
    if (!r.ok()) return SendError(res, FromStatus(r.status()));
    ref = *r;
  }
  auto job = std::make_shared<Job>();
  job->action = action;
  job->table = ref ? ref->display : "";
  if (action == "vacuum_dry_run" || action == "vacuum") {
    job->statement = "VACUUM " + ref->sql;
    int64_t hours = 0;
    auto h = body["retain_hours"];
    if (!h.error()) {
      if (h.get(hours) != simdjson::SUCCESS || hours < 0) {
        return SendError(res, {400, errc::kSiltConsoleBadParameter,
                               "retain_hours must be a non-negative integer"});
      }
      job->statement += " RETAIN " + std::to_string(hours) + " HOURS";
    }
    if (action == "vacuum_dry_run") job->statement += " DRY RUN";
  } else if (action == "optimize") {
    job->statement = "OPTIMIZE " + ref->sql;
  } else if (action == "reorg_purge") {
    job->statement = "REORG TABLE " + ref->sql + " APPLY (PURGE)";
  } else if (action == "set_ttl") {
    int64_t days = 0;
    std::string_view column;
    if (body["days"].get(days) != simdjson::SUCCESS ||
        body["column"].get(column) != simdjson::SUCCESS || column.empty()) {
      return SendError(res, {400, errc::kSiltConsoleBadParameter,
                             "set_ttl expects {\"days\": <integer>, \"column\": \"<column>\"}"});
    }
    job->statement = "ALTER TABLE " + ref->sql + " SET DELETE ROWS " + std::to_string(days) +
                     " DAYS AFTER " + QuoteIdent(column);
  } else if (action == "drop_ttl") {
    job->statement = "ALTER TABLE " + ref->sql + " DROP ROW DELETION";
  } else {
    job->statement = dry ? "silt maintain --once --dry-run" : "silt maintain --once";
    if (ref) job->statement += " " + (ref->schema.empty() ? ref->location : ref->display);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    job->id = next_job_++;
    job->started_ms = NowMs();
    jobs_[job->id] = job;
    // Keep the last 100 finished jobs.
    while (jobs_.size() > 100) {
      auto it = std::find_if(jobs_.begin(), jobs_.end(),
                             [](const auto& kv) { return kv.second->state != "running"; });
      if (it == jobs_.end()) break;
      if (it->second->thread.joinable()) it->second->thread.join();
      jobs_.erase(it);
    }
  }
  std::string started;
  {
    // Under the lock: Stop() and the pruning above read the job's thread.
    std::lock_guard<std::mutex> lock(mu_);
    started = JobJson(*job);
    job->thread = std::thread([this, job, ref] { RunJob(job, ref); });
  }
  SendJson(res, 202, started);
}

void Server::Impl::RunJob(std::shared_ptr<Job> job, std::optional<TableRef> table) {
  auto progress = [this, job](const std::string& line) {
    std::lock_guard<std::mutex> lock(mu_);
    job->progress.push_back(line);
    if (job->progress.size() > 1000) job->progress.erase(job->progress.begin());
  };
  std::string result, error;
  std::string state = "succeeded";
  if (job->action.rfind("maintain", 0) == 0) {
    maintenance::MaintenanceConfig config;
    config.dry_run = job->action == "maintain_dry_run";
    config.should_stop = [job] { return job->cancel.load(); };
    config.log = progress;
    config.wait = [job](int64_t ms) {
      for (int64_t waited = 0; waited < ms && !job->cancel.load(); waited += 50)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    };
    const std::string& warehouse = db_->state().catalog->warehouse();
    maintenance::MaintenanceService service(warehouse, db_->state().clock, config);
    Result<std::vector<maintenance::MaintainedTable> > tables =
        std::vector<maintenance::MaintainedTable>{};
    if (table) {
      tables->push_back(table->schema.empty()
                            ? maintenance::MaintainedTable{table->location, "", "", table->location}
                            : maintenance::MaintainedTable{table->location, "spark_catalog",
                                                           table->schema, table->name});
    } else {
      tables = service.WarehouseTables();
    }
    Result<maintenance::PassReport> report = tables.ok()
                                                 ? service.RunPass(std::move(*tables))
                                                 : Result<maintenance::PassReport>(tables.status());
    if (!report.ok()) {
      error = StatementErrorBody(report.status());
      state = "failed";
    } else {
      Json j;
      j.BeginObject();
      j.Key("tables").Int(report->tables);
      int64_t failed = 0;
      j.Key("operations").BeginArray();
      for (const auto& op : report->operations) {
        failed += op.operation_status != maintenance::kStatusSuccessful;
        j.BeginObject();
        j.Key("table").Str(op.table_name);
        j.Key("operation_type").Str(op.operation_type);
        j.Key("operation_status").Str(op.operation_status);
        j.EndObject();
      }
      j.EndArray();
      j.Key("advice").BeginArray();
      for (const auto& a : report->advice) {
        j.BeginObject();
        j.Key("table").Str(a.table);
        j.Key("job").Str(a.row.job);
        j.Key("due").Bool(a.row.due);
        j.Key("action").OptStr(a.row.action);
        j.Key("files").Int(a.row.files);
        j.Key("bytes").Int(a.row.bytes);
        j.Key("detail").Str(a.row.detail);
        j.EndObject();
      }
      j.EndArray();
      j.Key("skipped").BeginArray();
      for (const auto& s : report->skipped) j.Str(s);
      j.EndArray();
      j.Key("failed").Int(failed);
      j.EndObject();
      result = j.str();
      if (job->cancel.load()) state = "cancelled";
      if (failed) state = "failed";
    }
  } else {
    Result<std::string> grid = RunGrid(job->statement, 10000, &job->cancel, progress);
    if (grid.ok()) {
      result = *grid;
    } else {
      error = StatementErrorBody(grid.status());
      state = grid.status().code() == StatusCode::kCancelled ? "cancelled" : "failed";
    }
  }
  if (table) figures_.Invalidate(table->location);
  std::lock_guard<std::mutex> lock(mu_);
  // An action can change what the advisor says without a new version (a checkpoint, VACUUM's
  // deletes): the table's cached grids go (every table's after a warehouse-wide pass).
  for (auto it = grids_.begin(); it != grids_.end();) {
    if (!table || it->first.rfind(table->location + '\n', 0) == 0) {
      it = grids_.erase(it);
    } else {
      ++it;
    }
  }
  job->result_json = std::move(result);
  job->error_json = std::move(error);
  job->ended_ms = NowMs();
  job->state = state;
}

void Server::Impl::GetJob(const Req& req, Res& res) {
  if (!Admit(req, res, false)) return;
  int64_t id = std::strtoll(req.matches[1].str().c_str(), nullptr, 10);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) {
    return SendError(res, {404, "SILT_CONSOLE_NOT_FOUND", "no job " + req.matches[1].str()});
  }
  SendJson(res, 200, JobJson(*it->second));
}

void Server::Impl::PostCancel(const Req& req, Res& res) {
  if (!Admit(req, res, true)) return;
  int64_t id = std::strtoll(req.matches[1].str().c_str(), nullptr, 10);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) {
    return SendError(res, {404, "SILT_CONSOLE_NOT_FOUND", "no job " + req.matches[1].str()});
  }
  it->second->cancel.store(true);
  SendJson(res, 202, JobJson(*it->second));
}

void Server::Impl::Routes() {
  http_.set_payload_max_length(options_.max_body_bytes);
  http_.set_error_handler([this](const Req&, Res& res) {
    if (!res.body.empty()) return;
    if (res.status == 413) {
      SendError(res, {413, "SILT_CONSOLE_BODY_TOO_LARGE",
                      "the request body is larger than " + std::to_string(options_.max_body_bytes) +
                          " bytes"});
    } else if (res.status == 404) {
      SendError(res, {404, "SILT_CONSOLE_NOT_FOUND", "no such endpoint or page"});
    } else {
      SendError(res, {res.status, "SILT_CONSOLE_BAD_REQUEST", "the request failed"});
    }
  });
  if (options_.log) {
    http_.set_logger([this](const Req& req, const Res& res) {
      options_.log(req.method + " " + req.path + " " + std::to_string(res.status));
    });
  }
  http_.Get("/api/info", [this](const Req& q, Res& s) { GetInfo(q, s); });
  http_.Get("/api/tree", [this](const Req& q, Res& s) { GetTree(q, s); });
  http_.Post("/api/paths", [this](const Req& q, Res& s) { PostPath(q, s); });
  http_.Get("/api/table", [this](const Req& q, Res& s) { GetTable(q, s); });
  http_.Get("/api/table/detail", [this](const Req& q, Res& s) { GetTableSql(q, s, "detail"); });
  http_.Get("/api/table/history", [this](const Req& q, Res& s) { GetTableSql(q, s, "history"); });
  http_.Get("/api/table/advisor", [this](const Req& q, Res& s) { GetTableSql(q, s, "advisor"); });
  http_.Get("/api/ops-history", [this](const Req& q, Res& s) { GetOpsHistory(q, s); });
  http_.Post("/api/sql", [this](const Req& q, Res& s) { PostSql(q, s); });
  http_.Post("/api/actions", [this](const Req& q, Res& s) { PostAction(q, s); });
  http_.Get(R"(/api/jobs/(\d+))", [this](const Req& q, Res& s) { GetJob(q, s); });
  http_.Post(R"(/api/jobs/(\d+)/cancel)", [this](const Req& q, Res& s) { PostCancel(q, s); });
  auto serve_asset = [this](const Req& req, Res& res) {
    std::string path = req.path == "/" ? "/index.html" : req.path;
    const Asset* a = FindAsset(path.substr(1));
    if (!a) return SendError(res, {404, "SILT_CONSOLE_NOT_FOUND", "no page " + req.path});
    // Revalidated by ETag (the content's hash): a reload gets 304s, not the files again (which
    // cpp-httplib would compress again on every request).
    const std::string etag =
        "\"" + std::to_string(std::hash<std::string_view>()(std::string_view(a->data, a->size))) +
        "\"";
    res.set_header("ETag", etag);
    res.set_header("Cache-Control", "no-cache");
    if (req.get_header_value("If-None-Match") == etag) {
      res.status = 304;
      return;
    }
    res.set_content(std::string(a->data, a->size), a->content_type);
    res.set_header("X-Content-Type-Options", "nosniff");
  };
  http_.Get("/", serve_asset);
  http_.Get(R"(/([A-Za-z0-9_.-]+))", serve_asset);
}

Status Server::Impl::Start() {
  if (!IsLoopback(options_.bind) && options_.token.empty()) {
    return Status::InvalidArgument(
        "a bind address other than loopback (" + options_.bind + ") needs a token (--token)",
        errc::kSiltConsoleTokenRequired);
  }
  Routes();
  if (options_.port == 0) {
    port_ = http_.bind_to_any_port(options_.bind);
    if (port_ <= 0) {
      return Status::IoError("cannot bind " + options_.bind + " to any port");
    }
  } else {
    if (!http_.bind_to_port(options_.bind, options_.port)) {
      return Status::IoError("cannot listen on " + options_.bind + ":" +
                             std::to_string(options_.port) + " (in use, or not an address here)");
    }
    port_ = options_.port;
  }
  started_ = true;
  listener_ = std::thread([this] { http_.listen_after_bind(); });
  return Status::OK();
}

void Server::Impl::Stop() {
  if (started_) {
    http_.stop();
    if (listener_.joinable()) listener_.join();
    started_ = false;
  }
  std::vector<std::shared_ptr<Job> > jobs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, job] : jobs_) {
      job->cancel.store(true);
      jobs.push_back(job);
    }
  }
  for (auto& job : jobs)
    if (job->thread.joinable()) job->thread.join();
}

Server::Server(std::shared_ptr<Database> db, ServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(db), std::move(options))) {}
Server::~Server() = default;
Status Server::Start() { return impl_->Start(); }
void Server::Stop() { impl_->Stop(); }
int Server::port() const { return impl_->port(); }
const ServerOptions& Server::options() const { return impl_->options(); }

#endif  // SILT_HAVE_HTTPLIB

}  // namespace silt::server
