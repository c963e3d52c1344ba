// `silt serve`: the web console. An HTTP server (cpp-httplib) with a JSON API over one Database —
// the warehouse tree, per-table health figures and their history over versions (from the log,
// cached per table version), DESCRIBE HISTORY / DETAIL, the maintenance advisor, the TTL policy,
// the operations-history table, a SQL endpoint — and actions (VACUUM, OPTIMIZE, REORG … APPLY
// (PURGE), set/drop TTL, one maintenance pass) run as jobs with progress and cancel. The web app
// (plain ES modules, uPlot vendored from npm at build time) is compiled into the binary
// (server/assets.h). See docs/console.md.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/status.h"
#include "silt/silt.h"
#include "vector/vector.h"

namespace silt::server {

// True when this build has the HTTP server (cpp-httplib was found at configure time).
bool Available();

struct ServerOptions {
  std::string bind = "127.0.0.1";
  int port = 8080;  // 0: any free port (Server::port() tells which)
  // Required for write endpoints (POST) when non-empty, and for every /api call when the bind
  // address is not a loopback one. Start() refuses a non-loopback bind without a token.
  std::string token;
  bool read_only = false;  // actions, and SQL statements other than reads, answer 403
  // Request bodies larger than this answer 413.
  size_t max_body_bytes = 1 << 20;
  // SQL endpoint: at most this many rows go back (the rest is counted in "truncated").
  size_t max_result_rows = 1000;
  // The text of one result cell, as the CLI prints it (cli/render.h's FormatCell in the Hive
  // style); null: Value::ToString.
  std::function<std::string(const Vector& v, size_t row, const std::string& time_zone)> format_cell;
  // Request log lines (one per request); null: none.
  std::function<void(const std::string&)> log;
};

// True for 127.0.0.0/8, ::1 and "localhost".
bool IsLoopback(const std::string& bind);

class Server {
 public:
  Server(std::shared_ptr<Database> db, ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and starts serving on a background thread; returns once it listens.
  Status Start();
  // Stops listening, cancels running jobs and waits for them.
  void Stop();
  int port() const;
  const ServerOptions& options() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace silt::server
