// The `silt` command line: dispatches subcommands (see `silt help`).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/allocator.h"

namespace {

// One entry per subcommand: its usage lines, shown by `silt help` (all of them) and by
// `silt help CMD` / `silt CMD --help` (that one).
struct CommandHelp {
  const char* name;
  const char* text;
};

constexpr const char* kSqlOptions =
    "      OPTIONS: --warehouse DIR (default ./silt-warehouse)  --mode box|csv|json|tabs\n"
    "               (default box on a terminal, else tabs like spark-sql)  --timing\n"
    "               --conf KEY=VALUE ...  --threads N  --memory-limit SIZE (e.g. 4GB)\n"
    "      exit code: 0 success, 1 a statement failed (\"Error: [CLASS] message\" on stderr),\n"
    "                 2 usage error\n";

constexpr CommandHelp kCommands[] = {
    {"version", "  silt version                      print the version\n"},
    {"parquet",
     "  silt parquet schema FILE          print a Parquet file's schema\n"
     "  silt parquet meta FILE            print a Parquet file's metadata (row groups, columns)\n"
     "  silt parquet cat FILE [--json] [--limit N] [--columns a,b]\n"
     "                                    print a Parquet file's rows\n"},
    {"delta",
     "  silt delta info|files|cat PATH [--version N] [--json] [--limit N]\n"
     "                                    inspect a Delta table (metadata, live files, rows)\n"
     "  silt delta gen PATH [--columns SET] [--rows N] [--partition-by COL]\n"
     "                                    create (or append to) a table of generated rows\n"},
    {"inspect",
     "  silt inspect PATH|TABLE [--warehouse DIR] [--json]\n"
     "                                    live files, sizes, rows and deleted rows per file and\n"
     "                                    partition, with OPTIMIZE / REORG / VACUUM hints\n"},
    {"maintain",
     "  silt maintain [--warehouse DIR] [--once | --interval DURATION] [--now TIMESTAMP]\n"
     "                [--dry-run] [--no-routine] [--conf KEY=VALUE] [TABLE...]\n"
     "                                    run the maintenance service (Auto-TTL DELETE/PURGE/\n"
     "                                    VACUUM, compaction, checkpoints, log cleanup) once or\n"
     "                                    every DURATION until SIGTERM/SIGINT; --dry-run prints\n"
     "                                    what SHOW MAINTENANCE says and changes nothing\n"},
    {"stream",
     "  silt stream SOURCE SINK --checkpoint DIR [--option KEY=VALUE ...]\n"
     "              [--available-now | --once | --interval DURATION] [--upsert-keys COLS]\n"
     "                                    stream a Delta table into another exactly once\n"
     "                                    (Spark's Delta source options and checkpoint layout)\n"},
    {"serve",
     "  silt serve [--port N] [--bind ADDR] [--token T] [--read-only] [WAREHOUSE]\n"
     "                                    the web console: table health, history, advisor,\n"
     "                                    maintenance actions and a SQL box (docs/console.md)\n"},
    {"demo",
     "  silt demo [DIR]                   write a Parquet file of generated data and inspect it\n"},
    {"sql",
     "  silt sql [-e SQL] [-f FILE|-] [OPTIONS]\n"
     "                                    run ';'-separated Spark SQL statements and print each\n"
     "                                    result; without -e/-f the same as `silt shell`\n"},
    {"shell",
     "  silt shell [OPTIONS]              interactive SQL (line editing, ~/.silt_history,\n"
     "                                    .help for the dot-commands); reads piped stdin too\n"},
};

// Prints the usage of `only` (a subcommand), or of every subcommand when it is empty. False when
// `only` is not a subcommand.
bool PrintUsage(const std::string& only = "") {
  std::string text;
  for (const CommandHelp& c : kCommands)
    if (only.empty() || only == c.name) text += c.text;
  if (text.empty()) return false;
  if (only.empty() || only == "sql" || only == "shell") text += kSqlOptions;
  std::printf("silt %s — an embeddable engine for Delta Lake tables\n\nusage:\n%s", SILT_VERSION,
              text.c_str());
  return true;
}

bool WantsHelp(const std::vector<std::string>& args) {
  for (const std::string& a : args)
    if (a == "--help") return true;
  return !args.empty() && args[0] == "-h";
}

}  // namespace

int main(int argc, char** argv) {
  // Also for the subcommands that read Parquet without opening a Database.
  silt::TuneAllocatorForScans();
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    // `silt help --help` / `silt help help`: the whole usage, like `silt help`.
    const bool about_help =
        args.size() > 1 && (args[1] == "--help" || args[1] == "-h" || args[1] == "help");
    if (args.size() > 1 && !about_help && !PrintUsage(args[1])) {
      std::fprintf(stderr, "silt: unknown command '%s' (see `silt help`)\n", args[1].c_str());
      return 2;
    }
    if (args.size() <= 1 || about_help) PrintUsage();
    return args.empty() ? 1 : 0;
  }
  const std::string& cmd = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  // `silt CMD --help` (or -h first): that command's usage, before it parses its options.
  if (WantsHelp(rest) && PrintUsage(cmd)) return 0;
  if (cmd == "version" || cmd == "--version") {
    std::printf("silt %s\n", SILT_VERSION);
    return 0;
  }
  if (cmd == "parquet") return silt::cli::RunParquet(rest);
  if (cmd == "demo") return silt::cli::RunDemo(rest);
  if (cmd == "delta") return silt::cli::RunDelta(rest);
  if (cmd == "sql") return silt::cli::RunSql(rest);
  if (cmd == "shell") return silt::cli::RunShell(rest);
  if (cmd == "inspect") return silt::cli::RunInspect(rest);
  if (cmd == "maintain") return silt::cli::RunMaintain(rest);
  if (cmd == "stream") return silt::cli::RunStream(rest);
  if (cmd == "serve") return silt::cli::RunServe(rest);
  std::fprintf(stderr, "silt: unknown command '%s' (see `silt help`)\n", cmd.c_str());
  return 2;
}
