// `silt sql [-e SQL] [-f FILE] ...` and `silt shell`: Spark SQL from the command line.
#include <unistd.h>

#include <cstdio>

#include "cli/commands.h"
#include "cli/shell.h"

namespace silt::cli {
namespace {

int UsageError(const Status& s, const char* cmd) {
  std::fprintf(stderr, "%s\n(see `silt help` for the options of `silt %s`)\n",
               FormatError(s).c_str(), cmd);
  return 2;
}

// Opens the database and a session configured by the options; nullptr after printing an error.
std::unique_ptr<SqlSession> OpenSession(const SqlArgs& args) {
  DatabaseOptions options;
  options.warehouse = args.warehouse;
  options.threads = args.threads;
  options.memory_limit_bytes = args.memory_limit_bytes;
  auto db = Database::Open(options);
  if (!db.ok()) {
    std::fprintf(stderr, "%s\n", FormatError(db.status()).c_str());
    return nullptr;
  }
  ShellSettings settings;
  settings.render.mode =
      args.mode.value_or(isatty(STDOUT_FILENO) ? OutputMode::kBox : OutputMode::kTabs);
  settings.timing = args.timing;
  auto session = std::make_unique<SqlSession>(*db, settings);
  for (const auto& [k, v] : args.conf) {
    Status s = session->connection().SetConfig(k, v);
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", FormatError(s).c_str());
      return nullptr;
    }
  }
  return session;
}

}  // namespace

int RunSql(const std::vector<std::string>& args) {
  auto parsed = ParseSqlArgs(args, /*allow_scripts=*/true);
  if (!parsed.ok()) return UsageError(parsed.status(), "sql");
  auto session = OpenSession(*parsed);
  if (!session) return 1;
  // Without -e/-f, `silt sql` is the shell (as spark-sql without -e/-f is interactive).
  if (parsed->scripts.empty()) return session->RunLines();
  for (const auto& [kind, text] : parsed->scripts) {
    bool ok = kind == 'e' ? session->RunScript(text) : session->RunFile(text);
    if (!ok) return 1;
  }
  return 0;
}

int RunShell(const std::vector<std::string>& args) {
  auto parsed = ParseSqlArgs(args, /*allow_scripts=*/false);
  if (!parsed.ok()) return UsageError(parsed.status(), "shell");
  auto session = OpenSession(*parsed);
  if (!session) return 1;
  return session->RunLines();
}

}  // namespace silt::cli
