// `silt serve [--port N] [--bind ADDR] [--token T] [--read-only] [WAREHOUSE]`: the web console
// (server/server.h, docs/console.md) until SIGTERM/SIGINT.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cli/render.h"
#include "cli/shell_input.h"
#include "server/server.h"

namespace silt::cli {
namespace {

std::atomic<bool> g_serve_stop{false};

void OnServeSignal(int) { g_serve_stop.store(true); }

void ServeUsage() {
  std::fprintf(stderr,
               "usage: silt serve [--port N] [--bind ADDR] [--token T] [--read-only]\n"
               "                  [--threads N] [WAREHOUSE]\n"
               "  --port: default 8080 (0: any free port)\n"
               "  --bind: default 127.0.0.1; another address needs a token (one is generated\n"
               "          and printed unless --token gives it)\n"
               "  --read-only: actions and writing SQL statements answer 403\n"
               "  WAREHOUSE: default ./silt-warehouse\n");
}

// 128 random bits as hex, from the kernel.
std::string RandomToken() {
  std::ifstream in("/dev/urandom", std::ios::binary);
  unsigned char bytes[16] = {};
  in.read(reinterpret_cast<char*>(bytes), sizeof bytes);
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

bool ParseInt(const std::string& s, long lo, long hi, long* out) {
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

}  // namespace

int RunServe(const std::vector<std::string>& args) {
  if (!server::Available()) {
    std::fprintf(stderr,
                 "silt serve: this build has no web console (cpp-httplib, Debian "
                 "libcpp-httplib-dev, was absent when it was configured)\n");
    return 1;
  }
  server::ServerOptions options;
  DatabaseOptions db_options;
  bool warehouse_given = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    long n = 0;
    if (a == "--port" && has_value) {
      if (!ParseInt(args[++i], 0, 65535, &n)) {
        std::fprintf(stderr, "silt serve: bad --port '%s'\n", args[i].c_str());
        return 2;
      }
      options.port = static_cast<int>(n);
    } else if (a == "--bind" && has_value) {
      options.bind = args[++i];
    } else if (a == "--token" && has_value) {
      options.token = args[++i];
      if (options.token.empty()) {
        std::fprintf(stderr, "silt serve: --token must not be empty\n");
        return 2;
      }
    } else if (a == "--read-only") {
      options.read_only = true;
    } else if (a == "--threads" && has_value) {
      if (!ParseInt(args[++i], 1, 1024, &n)) {
        std::fprintf(stderr, "silt serve: bad --threads '%s'\n", args[i].c_str());
        return 2;
      }
      db_options.threads = static_cast<int>(n);
    } else if (a == "-h" || a == "--help") {
      ServeUsage();
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "silt serve: unknown option '%s'\n", a.c_str());
      ServeUsage();
      return 2;
    } else if (!warehouse_given) {
      db_options.warehouse = a;
      warehouse_given = true;
    } else {
      std::fprintf(stderr, "silt serve: one warehouse only ('%s')\n", a.c_str());
      return 2;
    }
  }
  bool generated = false;
  if (!server::IsLoopback(options.bind) && options.token.empty()) {
    options.token = RandomToken();
    generated = true;
  }
  auto db = Database::Open(db_options);
  if (!db.ok()) {
    std::fprintf(stderr, "%s\n", FormatError(db.status()).c_str());
    return 1;
  }
  options.format_cell = [](const Vector& v, size_t row, const std::string& time_zone) {
    std::shared_ptr<const TimeZone> zone = RenderZone(time_zone);
    return FormatCell(v, row, CellStyle::kHive, zone.get());
  };
  options.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  server::Server srv(*db, options);
  Status st = srv.Start();
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", FormatError(st).c_str());
    return 1;
  }
  std::string host =
      options.bind.find(':') != std::string::npos ? "[" + options.bind + "]" : options.bind;
  std::string url = "http://" + host + ":" + std::to_string(srv.port()) + "/";
  if (!options.token.empty()) url += "#token=" + options.token;
  std::printf("silt console on %s (warehouse %s%s)\n", url.c_str(),
              (*db)->options().warehouse.c_str(), options.read_only ? ", read-only" : "");
  if (generated) std::printf("token (generated): %s\n", options.token.c_str());
  std::fflush(stdout);

  g_serve_stop.store(false);
  struct sigaction sa {};
  struct sigaction old_term {};
  struct sigaction old_int {};
  sa.sa_handler = OnServeSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGINT, &sa, &old_int);
  while (!g_serve_stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  srv.Stop();
  sigaction(SIGTERM, &old_term, nullptr);
  sigaction(SIGINT, &old_int, nullptr);
  std::printf("silt console stopped\n");
  return 0;
}

}  // namespace silt::cli
