// The glue of `silt sql` and `silt shell`: runs statements on a Connection and prints results.
// Only the public API (include/silt/) and sql::SplitStatements are used.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "cli/progress.h"
#include "cli/shell_input.h"
#include "silt/silt.h"

namespace silt::cli {

class SqlSession {
 public:
  SqlSession(std::shared_ptr<Database> db, ShellSettings settings);
  Connection& connection() { return con_; }
  ShellSettings& settings() { return settings_; }

  // Runs one statement and prints its result (and the time taken with .timing on); on failure
  // prints FormatError(status) to stderr and returns false.
  bool RunStatement(const std::string& sql);
  // Runs every statement of a script in order, stopping at the first error (false).
  bool RunScript(std::string_view text);
  // Runs a script file ("-" = stdin).
  bool RunFile(const std::string& path);
  // Reads statements and dot-commands line by line: with line editing and history when stdin
  // is a terminal (returns 0 at .quit / Ctrl-D), else without prompts, stopping at the first
  // error (returns 1). Returns the process exit code.
  int RunLines();

 private:
  // Handles a dot-command line; false when it failed. Sets *quit for .quit/.exit.
  bool RunDotCommand(std::string_view line, bool* quit);
  int RunInteractive();
  int RunPiped(std::FILE* in);

  std::shared_ptr<Database> db_;
  Connection con_;
  ShellSettings settings_;
  std::unique_ptr<ProgressLine> progress_;
};

}  // namespace silt::cli
