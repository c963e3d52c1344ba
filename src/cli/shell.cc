#include "cli/shell.h"

#include <editline/readline.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "common/error_classes.h"
#include "sql/parser.h"

namespace silt::cli {

namespace {

std::vector<std::string> Split(std::string_view text, bool* complete) {
  return sql::SplitStatements(text, complete);
}

// Terminal width for the box renderer; 0 when stdout is no terminal.
size_t TerminalWidth() {
  winsize ws{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    return ws.ws_col;
  }
  return 0;
}

std::string HistoryPath() {
  const char* home = std::getenv("HOME");
  if (!home || !*home) return "";
  return std::string(home) + "/.silt_history";
}

}  // namespace

SqlSession::SqlSession(std::shared_ptr<Database> db, ShellSettings settings)
    : db_(db),
      con_(std::move(db)),
      settings_(std::move(settings)),
      progress_(std::make_unique<ProgressLine>(stderr, isatty(STDERR_FILENO) != 0)) {
  con_.SetProgressHandler([p = progress_.get()](const std::string& line) {
    // Warnings (e.g. a streaming table over an Auto-TTL source) stay on stderr, not redrawn.
    if (line.rfind("WARNING: ", 0) == 0) {
      p->Finish();
      std::fprintf(stderr, "%s\n", line.c_str());
      return;
    }
    p->Update(line, ProgressLine::Clock::now());
  });
}

bool SqlSession::RunStatement(const std::string& sql) {
  auto start = std::chrono::steady_clock::now();
  progress_->Start(start);
  auto result = con_.Query(sql);
  progress_->Finish();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!result.ok()) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", FormatError(result.status()).c_str());
    return false;
  }
  const QueryResult& r = **result;
  RenderOptions opts = settings_.render;
  opts.time_zone = RenderZone(r.time_zone);
  if (opts.mode == OutputMode::kBox && opts.max_width == 0) opts.max_width = TerminalWidth();
  RenderResult(r.schema(), r.chunks(), opts, std::cout);
  std::cout.flush();
  if (settings_.timing) {
    size_t rows = 0;
    for (const DataChunk& c : r.chunks()) rows += c.size();
    // spark-sql's line.
    std::fprintf(stderr, "Time taken: %.3f seconds, Fetched %zu row(s)\n", secs, rows);
  }
  return true;
}

bool SqlSession::RunScript(std::string_view text) {
  for (const std::string& stmt : SplitScript(text, Split)) {
    if (!RunStatement(stmt)) return false;
  }
  return true;
}

bool SqlSession::RunFile(const std::string& path) {
  std::stringstream ss;
  if (path == "-") {
    ss << std::cin.rdbuf();
  } else {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
      std::fprintf(stderr, "%s\n",
                   FormatError(Status::NotFound("cannot open script file '" + path + "'",
                                                errc::kPathNotFound))
                       .c_str());
      return false;
    }
    ss << f.rdbuf();
  }
  return RunScript(ss.str());
}

bool SqlSession::RunDotCommand(std::string_view line, bool* quit) {
  auto cmd = ParseDotCommand(line);
  auto action = ApplyDotCommand(*cmd, &settings_);
  if (!action.ok()) {
    std::fprintf(stderr, "%s\n", FormatError(action.status()).c_str());
    return false;
  }
  switch (action->kind) {
    case DotAction::kQuit:
      *quit = true;
      return true;
    case DotAction::kHelp:
      std::fputs(DotHelpText(), stdout);
      return true;
    case DotAction::kRead:
      return RunFile(action->path);
    case DotAction::kNone:
      return true;
  }
  return true;
}

int SqlSession::RunLines() {
  if (isatty(STDIN_FILENO)) return RunInteractive();
  return RunPiped(stdin);
}

int SqlSession::RunPiped(std::FILE* in) {
  StatementBuffer buffer(Split);
  std::string line;
  bool quit = false;
  int c = 0;
  while (!quit) {
    line.clear();
    while ((c = std::fgetc(in)) != EOF && c != '\n') line += static_cast<char>(c);
    if (c == EOF && line.empty()) break;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (buffer.empty() && ParseDotCommand(line)) {
      if (!RunDotCommand(line, &quit)) return 1;
      continue;
    }
    for (const std::string& stmt : buffer.AddLine(line)) {
      if (!RunStatement(stmt)) return 1;
    }
    if (c == EOF) break;
  }
  // Piped input may end without the final ';' (like -f).
  if (!quit && !buffer.empty() && !RunScript(buffer.TakePending())) return 1;
  return 0;
}

int SqlSession::RunInteractive() {
  std::string history = HistoryPath();
  using_history();
  stifle_history(2000);
  if (!history.empty()) read_history(history.c_str());
  std::printf("silt %s — Spark SQL on Delta tables. Statements end with ';'. .help for help.\n",
              SILT_VERSION);
  StatementBuffer buffer(Split);
  bool quit = false;
  while (!quit) {
    char* raw = readline(buffer.empty() ? "silt> " : "  ...> ");
    if (!raw) break;  // Ctrl-D
    std::string line(raw);
    std::free(raw);
    if (!IsBlank(line)) {
      add_history(line.c_str());
      if (!history.empty()) write_history(history.c_str());
    }
    if (buffer.empty() && ParseDotCommand(line)) {
      RunDotCommand(line, &quit);  // errors are printed; the shell goes on
      continue;
    }
    for (const std::string& stmt : buffer.AddLine(line)) {
      if (!RunStatement(stmt)) break;  // the rest of that input line is dropped, as in spark-sql
    }
  }
  if (!quit) std::printf("\n");
  return 0;
}

}  // namespace silt::cli
