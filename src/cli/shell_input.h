// The pure parts of `silt sql` and `silt shell`: command-line parsing, statement buffering and
// dot-commands. No engine and no terminal here, so they are unit-tested alone; shell.cc is the
// glue that runs statements on a silt::Connection.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/render.h"
#include "common/status.h"

namespace silt::cli {

// sql::SplitStatements's signature (injected so tests need no parser). Contract relied on:
// returns the statements in order without their ';' and sets *complete to false when the text
// ends inside a statement that is not terminated; the unterminated tail may or may not be among
// the returned statements (SplitScript and StatementBuffer work either way).
using Splitter = std::function<std::vector<std::string>(std::string_view, bool*)>;

// True when s has nothing but whitespace.
bool IsBlank(std::string_view s);

// Splits a whole script (-e, -f, .read, the end of piped input) into statements. A missing
// final ';' is fine ("SELECT 1" is one statement). When the script cannot be split (it ends in an
// open quote or comment) the result is the whole script as one statement, so that the parser
// reports the error with its position.
std::vector<std::string> SplitScript(std::string_view text, const Splitter& split);

// Accumulates interactive (or piped) input line by line. A statement is complete when the text
// so far ends in a top-level ';'; until then the shell shows its continuation prompt.
class StatementBuffer {
 public:
  explicit StatementBuffer(Splitter split) : split_(std::move(split)) {}
  // Adds one line (without its '\n'). Returns the statements it completed (maybe none).
  std::vector<std::string> AddLine(std::string_view line);
  // Nothing pending: the next line starts a new statement (and may be a dot-command).
  bool empty() const { return pending_.empty(); }
  // The unterminated text (at end of input), and resets the buffer.
  std::string TakePending();

 private:
  Splitter split_;
  std::string pending_;
};

// A dot-command line (".mode csv"): the command word and its arguments.
struct DotCommand {
  std::string name;  // without the dot: "mode", "timing", ...
  std::vector<std::string> args;
};
// Parses a line that starts with '.' (after leading spaces); nullopt otherwise. Arguments are
// separated by spaces; "double" or 'single' quotes keep spaces inside one argument.
std::optional<DotCommand> ParseDotCommand(std::string_view line);

// Shell settings that dot-commands change.
struct ShellSettings {
  RenderOptions render;
  bool timing = false;
};

// What a dot-command asks the shell to do beyond changing settings.
struct DotAction {
  enum Kind { kNone, kQuit, kRead, kHelp } kind = kNone;
  std::string path;  // kRead
};
// Applies .mode/.timing/.maxrows/.maxwidth to settings, or returns the action for
// .quit/.exit/.read/.help; InvalidArgument for unknown commands and bad arguments.
Result<DotAction> ApplyDotCommand(const DotCommand& cmd, ShellSettings* settings);
// The text `.help` prints.
const char* DotHelpText();

// `silt sql` / `silt shell` options.
struct SqlArgs {
  std::string warehouse = "./silt-warehouse";
  // The -e texts and -f paths in command-line order; kind 'e' or 'f'.
  std::vector<std::pair<char, std::string>> scripts;
  std::optional<OutputMode> mode;  // unset: box on a terminal, tabs otherwise
  bool timing = false;
  std::vector<std::pair<std::string, std::string>> conf;  // --conf k=v
  int threads = 0;
  int64_t memory_limit_bytes = -1;
};
// Parses the arguments after `sql` / `shell`. Errors are usage errors (exit code 2).
Result<SqlArgs> ParseSqlArgs(const std::vector<std::string>& args, bool allow_scripts);

// "4GB", "512MiB", "1.5g", "1024" (bytes), "-1" / "unlimited" (-1). Units are binary as in Spark's
// byte strings (k = kb = kib = 1024), case-insensitive.
Result<int64_t> ParseByteSize(std::string_view text);

// "Error: " + status.ToString(), i.e. "Error: [ERROR_CLASS] message SQLSTATE: xxxxx" as Spark
// prints an error.
std::string FormatError(const Status& status);

}  // namespace silt::cli
