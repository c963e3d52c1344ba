#include "cli/shell_input.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "common/ascii.h"
#include "common/error_classes.h"

namespace silt::cli {

bool IsBlank(std::string_view s) {
  for (char c : s) {
    if (!std::isspace(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

namespace {
std::vector<std::string> NonBlank(std::vector<std::string> v) {
  std::vector<std::string> out;
  for (auto& s : v) {
    if (!IsBlank(s)) out.push_back(std::move(s));
  }
  return out;
}
}  // namespace

std::vector<std::string> SplitScript(std::string_view text, const Splitter& split) {
  bool complete = false;
  std::vector<std::string> stmts = split(text, &complete);
  if (complete) return NonBlank(std::move(stmts));
  // Terminate the last statement ourselves; the newline ends a trailing "-- comment".
  std::string terminated(text);
  terminated += "\n;";
  stmts = split(terminated, &complete);
  if (complete) return NonBlank(std::move(stmts));
  // An open quote or comment: let the parser see (and report on) the whole text.
  if (IsBlank(text)) return {};
  return {std::string(text)};
}

std::vector<std::string> StatementBuffer::AddLine(std::string_view line) {
  if (pending_.empty() && IsBlank(line)) return {};
  if (!pending_.empty()) pending_ += '\n';
  pending_ += line;
  bool complete = false;
  std::vector<std::string> stmts = split_(pending_, &complete);
  if (!complete) return {};
  pending_.clear();
  return NonBlank(std::move(stmts));
}

std::string StatementBuffer::TakePending() {
  std::string s = std::move(pending_);
  pending_.clear();
  return s;
}

std::optional<DotCommand> ParseDotCommand(std::string_view line) {
  size_t p = 0;
  while (p < line.size() && std::isspace(static_cast<unsigned char>(line[p]))) ++p;
  if (p >= line.size() || line[p] != '.') return std::nullopt;
  ++p;
  DotCommand cmd;
  std::vector<std::string> words;
  while (p < line.size()) {
    while (p < line.size() && std::isspace(static_cast<unsigned char>(line[p]))) ++p;
    if (p >= line.size()) break;
    std::string w;
    if (line[p] == '"' || line[p] == '\'') {
      char q = line[p++];
      while (p < line.size() && line[p] != q) w += line[p++];
      if (p < line.size()) ++p;
    } else {
      while (p < line.size() && !std::isspace(static_cast<unsigned char>(line[p]))) w += line[p++];
    }
    words.push_back(std::move(w));
  }
  if (words.empty()) return DotCommand{};
  cmd.name = words[0];
  cmd.args.assign(words.begin() + 1, words.end());
  return cmd;
}

namespace {
Result<size_t> ParseCount(const std::string& s, const std::string& what) {
  size_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) {
    return Status::InvalidArgument(what + " needs a number of rows/columns >= 0, got '" + s + "'",
                                   errc::kInvalidArgument);
  }
  return v;
}
}  // namespace

Result<DotAction> ApplyDotCommand(const DotCommand& cmd, ShellSettings* settings) {
  auto usage = [&](const char* text) {
    return Status::InvalidArgument(std::string("usage: ") + text, errc::kInvalidArgument);
  };
  DotAction action;
  if (cmd.name == "quit" || cmd.name == "exit" || cmd.name == "q") {
    action.kind = DotAction::kQuit;
  } else if (cmd.name == "help") {
    action.kind = DotAction::kHelp;
  } else if (cmd.name == "mode") {
    if (cmd.args.size() != 1) return usage(".mode box|csv|json|tabs");
    auto m = ParseOutputMode(cmd.args[0]);
    if (!m) return usage(".mode box|csv|json|tabs");
    settings->render.mode = *m;
  } else if (cmd.name == "timing") {
    if (cmd.args.size() != 1 || (cmd.args[0] != "on" && cmd.args[0] != "off")) {
      return usage(".timing on|off");
    }
    settings->timing = cmd.args[0] == "on";
  } else if (cmd.name == "maxrows") {
    if (cmd.args.size() != 1) return usage(".maxrows N (0 = all)");
    SILT_ASSIGN_OR_RETURN(settings->render.max_rows, ParseCount(cmd.args[0], ".maxrows"));
  } else if (cmd.name == "maxwidth") {
    if (cmd.args.size() != 1) return usage(".maxwidth N (0 = no limit)");
    SILT_ASSIGN_OR_RETURN(settings->render.max_cell_width, ParseCount(cmd.args[0], ".maxwidth"));
  } else if (cmd.name == "read") {
    if (cmd.args.size() != 1) return usage(".read FILE");
    action.kind = DotAction::kRead;
    action.path = cmd.args[0];
  } else {
    return Status::InvalidArgument("unknown command '." + cmd.name + "' (.help lists the commands)",
                                   errc::kInvalidArgument);
  }
  return action;
}

const char* DotHelpText() {
  return "Statements end with ';' and may span lines. Commands:\n"
         "  .mode box|csv|json|tabs   output format (box: tables; tabs: like spark-sql)\n"
         "  .timing on|off            print the time each statement took\n"
         "  .maxrows N                box mode: show at most N rows (0 = all)\n"
         "  .maxwidth N               box mode: cut cells to N characters (0 = no limit)\n"
         "  .read FILE                run the statements in FILE\n"
         "  .help                     this text\n"
         "  .quit, .exit (or Ctrl-D)  leave the shell\n";
}

Result<int64_t> ParseByteSize(std::string_view text) {
  std::string s;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) {
      s += AsciiToLower(c);
    }
  }
  if (s == "-1" || s == "unlimited" || s == "none") return int64_t{-1};
  auto bad = [&] {
    return Status::InvalidArgument(
        "invalid byte size '" + std::string(text) + "' (expected e.g. 4GB, 512MiB, 1024)",
        errc::kInvalidArgument);
  };
  size_t p = 0;
  while (p < s.size() && (std::isdigit(static_cast<unsigned char>(s[p])) || s[p] == '.')) ++p;
  if (p == 0) return bad();
  char* end = nullptr;
  std::string num = s.substr(0, p);
  double v = std::strtod(num.c_str(), &end);
  if (end != num.c_str() + num.size()) return bad();
  std::string unit = s.substr(p);
  double mult = 1;
  if (unit.empty() || unit == "b") {
    mult = 1;
  } else if (unit == "k" || unit == "kb" || unit == "kib") {
    mult = 1024.0;
  } else if (unit == "m" || unit == "mb" || unit == "mib") {
    mult = 1024.0 * 1024;
  } else if (unit == "g" || unit == "gb" || unit == "gib") {
    mult = 1024.0 * 1024 * 1024;
  } else if (unit == "t" || unit == "tb" || unit == "tib") {
    mult = 1024.0 * 1024 * 1024 * 1024;
  } else {
    return bad();
  }
  double bytes = v * mult;
  if (!std::isfinite(bytes) || bytes > 9.0e18) return bad();
  return static_cast<int64_t>(std::llround(bytes));
}

Result<SqlArgs> ParseSqlArgs(const std::vector<std::string>& args, bool allow_scripts) {
  SqlArgs out;
  auto usage = [](std::string msg) {
    return Status::InvalidArgument(std::move(msg), errc::kUsage);
  };
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    std::string value;
    bool has_inline = false;
    if (a.rfind("--", 0) == 0) {
      size_t eq = a.find('=');
      if (eq != std::string::npos) {
        value = a.substr(eq + 1);
        a = a.substr(0, eq);
        has_inline = true;
      }
    }
    auto next = [&]() -> Result<std::string> {
      if (has_inline) return value;
      if (i + 1 >= args.size()) return usage(a + " needs a value");
      return args[++i];
    };
    if (allow_scripts && (a == "-e" || a == "--execute")) {
      SILT_ASSIGN_OR_RETURN(std::string v, next());
      out.scripts.emplace_back('e', std::move(v));
    } else if (allow_scripts && (a == "-f" || a == "--file")) {
      SILT_ASSIGN_OR_RETURN(std::string v, next());
      out.scripts.emplace_back('f', std::move(v));
    } else if (a == "--warehouse") {
      SILT_ASSIGN_OR_RETURN(out.warehouse, next());
    } else if (a == "--mode") {
      SILT_ASSIGN_OR_RETURN(std::string v, next());
      out.mode = ParseOutputMode(v);
      if (!out.mode) return usage("--mode must be box, csv, json or tabs, got '" + v + "'");
    } else if (a == "--timing") {
      out.timing = true;
    } else if (a == "--conf" || a == "-c") {
      SILT_ASSIGN_OR_RETURN(std::string v, next());
      size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0)
        return usage("--conf needs key=value, got '" + v + "'");
      out.conf.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (a == "--threads") {
      SILT_ASSIGN_OR_RETURN(std::string v, next());
      int n = -1;
      auto r = std::from_chars(v.data(), v.data() + v.size(), n);
      if (v.empty() || r.ec != std::errc() || r.ptr != v.data() + v.size() || n < 0) {
        return usage("--threads needs a number >= 0 (0 = one per core), got '" + v + "'");
      }
      out.threads = n;
    } else if (a == "--memory-limit") {
      SILT_ASSIGN_OR_RETURN(std::string v, next());
      auto bytes = ParseByteSize(v);
      if (!bytes.ok()) return usage("--memory-limit: " + std::string(bytes.status().message()));
      out.memory_limit_bytes = *bytes;
    } else {
      return usage("unknown option '" + args[i] + "'");
    }
  }
  return out;
}

std::string FormatError(const Status& status) { return "Error: " + status.ToString(); }

}  // namespace silt::cli
