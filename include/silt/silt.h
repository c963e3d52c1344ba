// silt's public C++ API: open a database (a warehouse: a local directory or a storage URI), open
// connections, run Spark SQL, read results as columnar chunks.
//
//   auto db = silt::Database::Open({.warehouse = "./silt-warehouse"});
//   silt::Connection con(*db);
//   auto result = con.Query("SELECT count(*) FROM delta.`/data/events`");
//   if (!result.ok()) { std::cerr << result.status().ToString(); }
//   for (const silt::DataChunk& chunk : (*result)->chunks()) { ... }
//
// Thread-safety: a Database is shared by any number of Connections and threads; a Connection is
// used by one thread at a time (it holds session state: current schema, SET configuration).
// Errors are Status values carrying Spark/Delta error classes (Status::error_class()).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "silt/clock.h"
#include "silt/status.h"
#include "silt/types.h"
#include "silt/vector.h"

namespace silt {

namespace engine {
class DatabaseState;
class SessionState;
}  // namespace engine

struct DatabaseOptions {
  // Root of the warehouse: managed tables and the catalog live here. Created if missing. A local
  // path, a file:/// URI or "memory://<name>" (an in-memory store shared by every Database and
  // store opened on that name in the process, e.g. for tests), or an Azure / ADLS Gen2 / OneLake
  // location (abfss://, az://, wasbs://, https://…; docs/cloud-storage.md); s3:// and gs:// fail
  // with NOT_IMPLEMENTED for now. See docs/storage.md.
  std::string warehouse = "./silt-warehouse";
  // Worker threads for scans, joins and aggregation (0 = one per core).
  int threads = 0;
  // Memory limit for all queries together (bytes; < 0 = unlimited).
  int64_t memory_limit_bytes = -1;
  // Where queries spill what does not fit under the memory limit (empty = the system temp
  // directory); the silt.tempDirectory setting overrides it per session.
  std::string temp_directory;
  // Source of "now" for commits, retention and current_timestamp() (tests inject a ManualClock).
  std::shared_ptr<Clock> clock;
  // Tune the process's malloc for scan buffers on Open (process-wide, once). Turn off when the
  // host tunes its own allocator.
  bool tune_allocator = true;
};

class Database {
 public:
  static Result<std::shared_ptr<Database>> Open(DatabaseOptions options = {});
  ~Database();
  const DatabaseOptions& options() const;
  engine::DatabaseState& state() { return *state_; }

 private:
  Database() = default;
  std::unique_ptr<engine::DatabaseState> state_;
};

// The result of one statement: its schema and rows (materialized, as columnar chunks).
class QueryResult {
 public:
  QueryResult(Schema schema, std::vector<DataChunk> chunks)
      : schema_(std::move(schema)), chunks_(std::move(chunks)) {}
  const Schema& schema() const { return schema_; }
  const std::vector<DataChunk>& chunks() const { return chunks_; }
  size_t num_rows() const;
  // Row i as Values (slow path, for printing and tests).
  std::vector<Value> Row(size_t i) const;
  // The statement kind that produced it ("query", "create_table", "insert", "set", ...).
  std::string statement;
  // The session time zone (spark.sql.session.timeZone) the statement ran in: TIMESTAMP values
  // are UTC instants, which spark-sql shows as wall times in this zone (cli/render.h).
  std::string time_zone = "UTC";

 private:
  Schema schema_;
  std::vector<DataChunk> chunks_;
};

class Connection {
 public:
  explicit Connection(std::shared_ptr<Database> db);
  ~Connection();
  Connection(Connection&&) noexcept;
  Connection& operator=(Connection&&) noexcept;

  // Runs one or more ';'-separated statements in order, stopping at the first error; returns the
  // result of the last statement (an empty result for statements that return nothing). Session
  // settings made by SET / USE carry over to later statements and calls.
  Result<std::unique_ptr<QueryResult>> Query(std::string_view sql);
  // Like Query, but returns every statement's result.
  Result<std::vector<std::unique_ptr<QueryResult>>> QueryAll(std::string_view sql);

  // Session configuration (SET / RESET), e.g. "spark.sql.ansi.enabled".
  std::optional<std::string> GetConfig(const std::string& key) const;
  Status SetConfig(const std::string& key, const std::string& value);
  const std::string& current_schema() const;
  // Progress lines of long-running commands (e.g. "VACUUM: 1200 of 50000 deleted, 80000
  // listed"), called on the statement's thread while it runs; empty to turn them off.
  void SetProgressHandler(std::function<void(const std::string&)> handler);

  engine::SessionState& session() { return *session_; }

 private:
  std::shared_ptr<Database> db_;
  std::unique_ptr<engine::SessionState> session_;
};

}  // namespace silt
