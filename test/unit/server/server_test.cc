// The web console's JSON API (server/server.h): a server on a random port in this process, every
// endpoint called over HTTP with cpp-httplib's client, bad inputs, the token rules and read-only
// mode.
#include "server/server.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "engine/engine.h"
#include "silt/silt.h"

#if SILT_HAVE_HTTPLIB
#include <httplib.h>
#include <simdjson.h>

namespace silt::server {
namespace {

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "silt-serve-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    DatabaseOptions options;
    options.warehouse = dir_ + "/wh";
    auto db = Database::Open(options);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = *db;
    Connection con(db_);
    auto r = con.Query(
        "CREATE TABLE events (id INT, ts TIMESTAMP, p STRING) USING delta PARTITIONED BY (p) "
        "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true');"
        "INSERT INTO events VALUES (1, TIMESTAMP '2026-01-01 00:00:00', 'a'),"
        " (2, TIMESTAMP '2026-01-02 00:00:00', 'a'), (3, TIMESTAMP '2026-01-03 00:00:00', 'b');"
        "INSERT INTO events VALUES (4, TIMESTAMP '2026-01-04 00:00:00', 'a');"
        "DELETE FROM events WHERE id = 1;"
        "CREATE VIEW v AS SELECT 1 AS x");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  void TearDown() override {
    if (server_) server_->Stop();
    server_.reset();
    db_.reset();
    std::filesystem::remove_all(dir_);
  }

  void Start(ServerOptions options = {}) {
    options.port = 0;
    server_ = std::make_unique<Server>(db_, options);
    Status st = server_->Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    client_->set_read_timeout(60, 0);
  }

  httplib::Result Get(const std::string& path, const std::string& token = "") {
    httplib::Headers h;
    if (!token.empty()) h.emplace("Authorization", "Bearer " + token);
    return client_->Get(path.c_str(), h);
  }
  httplib::Result Post(const std::string& path, const std::string& body,
                       const std::string& token = "",
                       const std::string& type = "application/json") {
    httplib::Headers h;
    if (!token.empty()) h.emplace("Authorization", "Bearer " + token);
    return client_->Post(path.c_str(), h, body, type.c_str());
  }

  simdjson::dom::element Parse(const std::string& body) {
    docs_.push_back(std::make_unique<simdjson::dom::parser>());
    auto r = docs_.back()->parse(body);
    EXPECT_FALSE(r.error()) << body;
    return r.value();
  }
  std::string Str(simdjson::dom::element e, const char* key) {
    std::string_view v;
    if (e[key].get(v) != simdjson::SUCCESS) return "<missing " + std::string(key) + ">";
    return std::string(v);
  }
  int64_t Int(simdjson::dom::element e, const char* key) {
    int64_t v = -1;
    if (e[key].get(v) != simdjson::SUCCESS) return -1;
    return v;
  }
  // The value of `column` in the first row of a grid.
  std::string Cell(simdjson::dom::element grid, const std::string& column, size_t row = 0) {
    size_t i = 0;
    for (auto c : grid["columns"].get_array()) {
      if (Str(c, "name") == column) {
        std::string_view v;
        if (grid["rows"].at(row).at(i).get(v) != simdjson::SUCCESS) return "<no cell>";
        return std::string(v);
      }
      ++i;
    }
    return "<no column " + column + ">";
  }

  // Starts an action and waits for its job to end; the final job JSON text.
  std::string RunAction(const std::string& body, const std::string& token = "") {
    auto r = Post("/api/actions", body, token);
    EXPECT_TRUE(r);
    if (!r) return "";
    EXPECT_EQ(r->status, 202) << r->body;
    if (r->status != 202) return r->body;
    int64_t id = Int(Parse(r->body), "id");
    for (int i = 0; i < 1200; ++i) {
      auto j = Get("/api/jobs/" + std::to_string(id), token);
      EXPECT_TRUE(j);
      if (!j) return "";
      if (Str(Parse(j->body), "state") != "running") return j->body;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ADD_FAILURE() << "job " << id << " did not end";
    return "";
  }

  std::string dir_;
  std::shared_ptr<Database> db_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<httplib::Client> client_;
  std::vector<std::unique_ptr<simdjson::dom::parser>> docs_;
};

TEST_F(ServerTest, InfoTreeAndStaticFiles) {
  Start();
  auto info = Get("/api/info");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->status, 200);
  auto j = Parse(info->body);
  EXPECT_EQ(Str(j, "warehouse"), dir_ + "/wh");
  auto tree = Get("/api/tree");
  ASSERT_TRUE(tree);
  EXPECT_EQ(tree->status, 200);
  EXPECT_NE(tree->body.find("\"id\":\"default.events\""), std::string::npos) << tree->body;
  EXPECT_NE(tree->body.find("\"type\":\"VIEW\""), std::string::npos) << tree->body;
  auto index = Get("/");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 200);
  EXPECT_NE(index->body.find("<script type=\"module\" src=\"app.js\">"), std::string::npos);
  EXPECT_EQ(index->get_header_value("Content-Type"), "text/html; charset=utf-8");
  auto app = Get("/app.js");
  ASSERT_TRUE(app);
  EXPECT_EQ(app->status, 200);
  EXPECT_NE(app->body.find("/api/actions"), std::string::npos);
  std::string etag = app->get_header_value("ETag");
  ASSERT_FALSE(etag.empty());
  auto again = client_->Get("/app.js", httplib::Headers{{"If-None-Match", etag}});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 304);
  EXPECT_TRUE(again->body.empty());
  auto missing = Get("/nope.js");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(Str(Parse(missing->body), "error_class"), "SILT_CONSOLE_NOT_FOUND");
}

TEST_F(ServerTest, TableFiguresEqualDescribeDetailAndAreCached) {
  Start();
  auto t = Get("/api/table?table=default.events");
  ASSERT_TRUE(t);
  ASSERT_EQ(t->status, 200) << t->body;
  auto f = Parse(t->body);
  auto d = Get("/api/table/detail?table=default.events");
  ASSERT_TRUE(d);
  ASSERT_EQ(d->status, 200) << d->body;
  auto detail = Parse(d->body);
  EXPECT_EQ(std::to_string(Int(f, "num_files")), Cell(detail, "numFiles"));
  EXPECT_EQ(std::to_string(Int(f, "size_in_bytes")), Cell(detail, "sizeInBytes"));
  EXPECT_EQ(Int(f, "num_files"), 3);  // the DELETE marked its row in a deletion vector
  EXPECT_EQ(Int(f, "num_partitions"), 2);
  EXPECT_EQ(Int(f, "small_files"), 3);
  EXPECT_EQ(Int(f, "num_rows"), 4);
  EXPECT_EQ(Int(f, "dv_files"), 1);
  EXPECT_EQ(Int(f, "dv_deleted_rows"), 1);
  EXPECT_EQ(Int(f, "version"), 3);
  // One point per version, the last one the figures themselves.
  auto series = f["series"].get_array();
  ASSERT_EQ(series.size(), 4u);
  EXPECT_EQ(Int(series.at(3), "files"), Int(f, "num_files"));
  EXPECT_EQ(Int(series.at(3), "bytes"), Int(f, "size_in_bytes"));
  EXPECT_EQ(Int(series.at(0), "files"), 0);
  EXPECT_EQ(Int(series.at(1), "files"), 2);
  EXPECT_EQ(Int(series.at(2), "files"), 3);
  EXPECT_EQ(Str(series.at(3), "operation"), "DELETE");
  EXPECT_EQ(Int(series.at(2), "dv_deleted_rows"), 0);
  EXPECT_EQ(Int(series.at(3), "dv_deleted_rows"), 1);
  bool cached = false;
  EXPECT_EQ(f["from_cache"].get(cached), simdjson::SUCCESS);
  EXPECT_FALSE(cached);
  auto again = Get("/api/table?table=default.events");
  ASSERT_TRUE(again);
  EXPECT_EQ(Parse(again->body)["from_cache"].get(cached), simdjson::SUCCESS);
  EXPECT_TRUE(cached);
  // A path table added by URL shows in the tree.
  auto added = Post("/api/paths", "{\"path\": \"" + dir_ + "/wh/events/\"}");
  ASSERT_TRUE(added);
  EXPECT_EQ(added->status, 200) << added->body;
  EXPECT_EQ(Str(Parse(added->body), "path"), dir_ + "/wh/events");
  auto tree = Get("/api/tree");
  ASSERT_TRUE(tree);
  EXPECT_NE(tree->body.find("\"paths\":[\"" + dir_ + "/wh/events\"]"), std::string::npos)
      << tree->body;
  // The same table by path.
  auto by_path = Get("/api/table?table=" + dir_ + "/wh/events");
  ASSERT_TRUE(by_path);
  EXPECT_EQ(by_path->status, 200) << by_path->body;
  EXPECT_EQ(Int(Parse(by_path->body), "num_files"), 3);
}

TEST_F(ServerTest, HistoryAdvisorAndOperationsHistory) {
  Start();
  auto h = Get("/api/table/history?table=default.events");
  ASSERT_TRUE(h);
  ASSERT_EQ(h->status, 200) << h->body;
  auto hist = Parse(h->body);
  EXPECT_EQ(Cell(hist, "operation"), "DELETE");
  EXPECT_NE(Cell(hist, "operationMetrics").find("numDeletedRows"), std::string::npos);
  EXPECT_EQ(hist["rows"].get_array().size(), 4u);
  auto limited = Get("/api/table/history?table=default.events&limit=1");
  ASSERT_TRUE(limited);
  EXPECT_EQ(Parse(limited->body)["rows"].get_array().size(), 1u);
  auto a = Get("/api/table/advisor?table=default.events");
  ASSERT_TRUE(a);
  ASSERT_EQ(a->status, 200) << a->body;
  auto adv = Parse(a->body);
  EXPECT_EQ(adv["rows"].get_array().size(), 6u);
  EXPECT_EQ(Cell(adv, "job"), "DELETE");
  auto o = Get("/api/ops-history?table=default.events&operation=VACUUM&status=SUCCESSFUL");
  ASSERT_TRUE(o);
  ASSERT_EQ(o->status, 200) << o->body;
  EXPECT_EQ(Cell(Parse(o->body), "operation_type"), "<no cell>");  // nothing ran yet
}

TEST_F(ServerTest, SqlEndpointReturnsGridOrTheCliError) {
  Start();
  auto ok = Post("/api/sql", R"({"sql": "SELECT id, p FROM events ORDER BY id"})");
  ASSERT_TRUE(ok);
  ASSERT_EQ(ok->status, 200) << ok->body;
  auto g = Parse(ok->body);
  EXPECT_EQ(Int(g, "num_rows"), 3);
  EXPECT_EQ(Cell(g, "id"), "2");
  EXPECT_EQ(Cell(g, "p", 2), "a");
  auto bad = Post("/api/sql", R"({"sql": "SELECT * FROM missing_table"})");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 404);
  auto e = Parse(bad->body);
  Connection con(db_);
  auto expected = con.Query("SELECT * FROM missing_table");
  ASSERT_FALSE(expected.ok());
  EXPECT_EQ(Str(e, "error_class"), "TABLE_OR_VIEW_NOT_FOUND");
  EXPECT_EQ(Str(e, "error"), "Error: " + expected.status().ToString());  // as `silt sql` prints
  auto syntax = Post("/api/sql", R"({"sql": "SELEC 1"})");
  ASSERT_TRUE(syntax);
  EXPECT_EQ(syntax->status, 400);
  EXPECT_EQ(Str(Parse(syntax->body), "error_class"), "PARSE_SYNTAX_ERROR");
}

TEST_F(ServerTest, BadInputsAre4xxWithAClearMessage) {
  ServerOptions o;
  o.max_body_bytes = 4096;
  Start(o);
  auto unknown = Get("/api/table?table=default.nope");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_EQ(Str(Parse(unknown->body), "error_class"), "TABLE_OR_VIEW_NOT_FOUND");
  auto no_param = Get("/api/table");
  ASSERT_TRUE(no_param);
  EXPECT_EQ(no_param->status, 400);
  EXPECT_EQ(Str(Parse(no_param->body), "error_class"), "SILT_CONSOLE_BAD_PARAMETER");
  auto view = Get("/api/table?table=v");
  ASSERT_TRUE(view);
  EXPECT_EQ(view->status, 400);
  for (const std::string& outside :
       {std::string("/etc/passwd"), dir_ + "/wh/../../x", dir_ + "/whx/t"}) {
    auto r = Get("/api/table?table=" + outside);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << outside;
    EXPECT_EQ(Str(Parse(r->body), "error_class"), "SILT_CONSOLE_PATH_OUTSIDE_WAREHOUSE") << outside;
    auto p = Post("/api/paths", "{\"path\": \"" + outside + "\"}");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->status, 400) << outside;
  }
  auto not_delta = Post("/api/paths", "{\"path\": \"" + dir_ + "/wh/no_table_here\"}");
  ASSERT_TRUE(not_delta);
  EXPECT_GE(not_delta->status, 400);
  EXPECT_LT(not_delta->status, 500);
  auto malformed = Post("/api/sql", "{\"sql\": ");
  ASSERT_TRUE(malformed);
  EXPECT_EQ(malformed->status, 400);
  EXPECT_EQ(Str(Parse(malformed->body), "error_class"), "SILT_CONSOLE_MALFORMED_JSON");
  auto not_object = Post("/api/actions", "[1, 2]");
  ASSERT_TRUE(not_object);
  EXPECT_EQ(not_object->status, 400);
  auto huge = Post("/api/sql", "{\"sql\": \"" + std::string(10000, ' ') + "SELECT 1\"}");
  ASSERT_TRUE(huge);
  EXPECT_EQ(huge->status, 413);
  EXPECT_EQ(Str(Parse(huge->body), "error_class"), "SILT_CONSOLE_BODY_TOO_LARGE");
  auto plain = Post("/api/sql", R"({"sql": "SELECT 1"})", "", "text/plain");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->status, 415);
  auto action = Post("/api/actions", R"({"action": "drop_everything", "table": "events"})");
  ASSERT_TRUE(action);
  EXPECT_EQ(action->status, 400);
  auto ttl = Post("/api/actions", R"({"action": "set_ttl", "table": "events", "days": "x"})");
  ASSERT_TRUE(ttl);
  EXPECT_EQ(ttl->status, 400);
  auto no_job = Get("/api/jobs/999");
  ASSERT_TRUE(no_job);
  EXPECT_EQ(no_job->status, 404);
  auto limit = Get("/api/table/history?table=events&limit=-1");
  ASSERT_TRUE(limit);
  EXPECT_EQ(limit->status, 400);
}

TEST_F(ServerTest, ActionsRunAsJobsAndHistoryUpdates) {
  Start();
  auto dry = Parse(RunAction(R"({"action": "vacuum_dry_run", "table": "default.events"})"));
  EXPECT_EQ(Str(dry, "state"), "succeeded");
  EXPECT_EQ(Str(dry, "statement"), "VACUUM `default`.`events` DRY RUN");
  auto opt = Parse(RunAction(R"({"action": "optimize", "table": "default.events"})"));
  EXPECT_EQ(Str(opt, "state"), "succeeded");
  auto h = Get("/api/table/history?table=default.events&limit=1");
  ASSERT_TRUE(h);
  EXPECT_EQ(Cell(Parse(h->body), "operation"), "OPTIMIZE");
  // A failing action: VACUUM under the retention with the check on.
  auto fail = Parse(RunAction(R"({"action": "vacuum", "table": "default.events",
                                  "retain_hours": 0})"));
  EXPECT_EQ(Str(fail, "state"), "failed");
  EXPECT_EQ(Str(fail["error"], "error_class"), "DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT");
  auto set = Parse(
      RunAction(R"({"action": "set_ttl", "table": "default.events", "days": 30, "column": "ts"})"));
  EXPECT_EQ(Str(set, "state"), "succeeded");
  auto t = Get("/api/table?table=default.events");
  ASSERT_TRUE(t);
  EXPECT_NE(t->body.find(R"("ttl":{"expire_in_days":"30","timestamp_column":"ts"})"),
            std::string::npos)
      << t->body;
  auto bad_col = Parse(RunAction(
      R"({"action": "set_ttl", "table": "default.events", "days": 30, "column": "nope"})"));
  EXPECT_EQ(Str(bad_col, "state"), "failed");
  EXPECT_EQ(Str(bad_col["error"], "error_class"), "AUTO_TTL_COLUMN_NOT_FOUND");
  auto reorg = Parse(RunAction(R"({"action": "reorg_purge", "table": "default.events"})"));
  EXPECT_EQ(Str(reorg, "state"), "succeeded");
  auto plan = Parse(RunAction(R"({"action": "maintain_dry_run", "table": "default.events"})"));
  EXPECT_EQ(Str(plan, "state"), "succeeded");
  EXPECT_EQ(plan["result"]["advice"].get_array().size(), 6u);
  auto pass = Parse(RunAction(R"({"action": "maintain"})"));
  EXPECT_NE(Str(pass, "state"), "running");
  EXPECT_EQ(Int(pass["result"], "tables"), 1);
  auto drop = Parse(RunAction(R"({"action": "drop_ttl", "table": "default.events"})"));
  EXPECT_EQ(Str(drop, "state"), "succeeded");
  t = Get("/api/table?table=default.events");
  ASSERT_TRUE(t);
  EXPECT_NE(t->body.find(R"("ttl":{"expire_in_days":null,"timestamp_column":null})"),
            std::string::npos);
  // Cancel: the endpoint answers for a known job and the job ends.
  auto start = Post("/api/actions", R"({"action": "maintain_dry_run"})");
  ASSERT_TRUE(start);
  int64_t id = Int(Parse(start->body), "id");
  auto cancel = Post("/api/jobs/" + std::to_string(id) + "/cancel", "{}");
  ASSERT_TRUE(cancel);
  EXPECT_EQ(cancel->status, 202);
}

TEST_F(ServerTest, TokenRules) {
  // Loopback with a token: reads are open, writes need it.
  ServerOptions o;
  o.token = "s3cret";
  Start(o);
  auto read = Get("/api/tree");
  ASSERT_TRUE(read);
  EXPECT_EQ(read->status, 200);
  for (const char* path : {"/api/sql", "/api/actions", "/api/paths", "/api/jobs/1/cancel"}) {
    auto none = Post(path, R"({"sql": "SELECT 1"})");
    ASSERT_TRUE(none);
    EXPECT_EQ(none->status, 401) << path;
    EXPECT_EQ(Str(Parse(none->body), "error_class"), "SILT_CONSOLE_UNAUTHORIZED");
    auto wrong = Post(path, R"({"sql": "SELECT 1"})", "s3cres");
    ASSERT_TRUE(wrong);
    EXPECT_EQ(wrong->status, 401) << path;
  }
  auto good = Post("/api/sql", R"({"sql": "SELECT 1"})", "s3cret");
  ASSERT_TRUE(good);
  EXPECT_EQ(good->status, 200);
  httplib::Headers h{{"X-Silt-Token", "s3cret"}};
  auto header = client_->Post("/api/sql", h, R"({"sql": "SELECT 1"})", "application/json");
  ASSERT_TRUE(header);
  EXPECT_EQ(header->status, 200);
  server_->Stop();

  // Beyond loopback: no start without a token; with one, every API call needs it.
  ServerOptions wide;
  wide.bind = "0.0.0.0";
  wide.port = 0;
  Server refused(db_, wide);
  Status st = refused.Start();
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.error_class(), "SILT_CONSOLE_TOKEN_REQUIRED");
  wide.token = "t0ken";
  Start(wide);
  auto anon = Get("/api/tree");
  ASSERT_TRUE(anon);
  EXPECT_EQ(anon->status, 401);
  auto auth = Get("/api/tree", "t0ken");
  ASSERT_TRUE(auth);
  EXPECT_EQ(auth->status, 200);
  auto write = Post("/api/actions", R"({"action": "optimize", "table": "events"})");
  ASSERT_TRUE(write);
  EXPECT_EQ(write->status, 401);
}

TEST_F(ServerTest, ReadOnlyRefusesWrites) {
  ServerOptions o;
  o.read_only = true;
  Start(o);
  auto opt = Post("/api/actions", R"({"action": "optimize", "table": "events"})");
  ASSERT_TRUE(opt);
  EXPECT_EQ(opt->status, 403);
  EXPECT_EQ(Str(Parse(opt->body), "error_class"), "SILT_CONSOLE_READ_ONLY");
  for (const char* a : {"vacuum", "reorg_purge", "drop_ttl", "maintain"}) {
    auto r = Post("/api/actions", std::string(R"({"action": ")") + a + R"(", "table": "events"})");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 403) << a;
  }
  auto insert = Post("/api/sql", R"j({"sql": "INSERT INTO events VALUES (9, NULL, 'z')"})j");
  ASSERT_TRUE(insert);
  EXPECT_EQ(insert->status, 403);
  EXPECT_EQ(Str(Parse(insert->body), "error_class"), "SILT_CONSOLE_READ_ONLY");
  auto select = Post("/api/sql", R"({"sql": "SELECT count(*) AS n FROM events"})");
  ASSERT_TRUE(select);
  EXPECT_EQ(select->status, 200);
  EXPECT_EQ(Cell(Parse(select->body), "n"), "3");
  auto dry = Parse(RunAction(R"({"action": "vacuum_dry_run", "table": "events"})"));
  EXPECT_EQ(Str(dry, "state"), "succeeded");  // the preview still works
  Connection con(db_);
  auto n = con.Query("SELECT count(*) FROM events");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ((*n)->Row(0)[0].ToString(), "3");
}

}  // namespace
}  // namespace silt::server

#else

TEST(ServerTest, NotInThisBuild) {
  EXPECT_FALSE(silt::server::Available());
  GTEST_SKIP() << "cpp-httplib (libcpp-httplib-dev) was absent at configure time";
}

#endif

// The cancel flag a console job sets on its connection (engine::SessionState::cancelled): a
// query, OPTIMIZE (before a bin's rewrite) and VACUUM (at its progress reports) stop with
// Cancelled and commit nothing.
TEST(ConsoleCancelTest, CancelFlagStopsQueryOptimizeAndVacuum) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "silt-cancel-XXXXXX").string();
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  {
    silt::DatabaseOptions options;
    options.warehouse = tmpl;
    auto db = silt::Database::Open(options);
    ASSERT_TRUE(db.ok());
    silt::Connection con(*db);
    auto setup = con.Query(
        "CREATE TABLE t (id INT) USING delta; INSERT INTO t VALUES (1); INSERT INTO t VALUES (2);"
        "INSERT INTO t VALUES (3)");
    ASSERT_TRUE(setup.ok()) << setup.status().ToString();
    std::atomic<bool> cancel{true};
    silt::Connection job(*db);
    job.session().cancelled = &cancel;
    for (const char* sql : {"SELECT count(*) FROM t", "OPTIMIZE t", "VACUUM t"}) {
      auto r = job.Query(sql);
      ASSERT_FALSE(r.ok()) << sql;
      EXPECT_EQ(r.status().code(), silt::StatusCode::kCancelled)
          << sql << ": " << r.status().ToString();
    }
    auto version = con.Query("DESCRIBE HISTORY t LIMIT 1");
    ASSERT_TRUE(version.ok());
    EXPECT_EQ((*version)->Row(0)[0].ToString(), "3");  // nothing committed after the inserts
    cancel.store(false);
    auto ok = job.Query("OPTIMIZE t");
    EXPECT_TRUE(ok.ok()) << ok.status().ToString();
  }
  std::filesystem::remove_all(tmpl);
}
