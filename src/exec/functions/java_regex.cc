// Java regular expressions (Spark's dialect) translated to RE2 (declared in regex_util.h).
#include "common/error_classes.h"
#include "exec/functions/function_util.h"
#include "exec/functions/regex_util.h"

namespace silt::exec::fn {

// ---------------------------------------------------------------------------------------------
// Java regex → RE2

namespace {

Status PatternError(std::string_view func, std::string_view pattern, std::string_view why) {
  return Status::InvalidArgument("The value of parameter(s) `regexp` in `" + std::string(func) +
                                     "` is invalid: '" + std::string(pattern) +
                                     "': " + std::string(why),
                                 errc::kInvalidParameterValuePattern);
}

// Java's \p{Name} POSIX-style classes that RE2 spells [[:name:]].
const char* PosixClass(std::string_view name) {
  static const std::pair<const char*, const char*> kMap[] = {
      {"Lower", "lower"}, {"Upper", "upper"}, {"ASCII", "ascii"}, {"Alpha", "alpha"},
      {"Digit", "digit"}, {"Alnum", "alnum"}, {"Punct", "punct"}, {"Graph", "graph"},
      {"Print", "print"}, {"Blank", "blank"}, {"Cntrl", "cntrl"}, {"XDigit", "xdigit"},
      {"Space", "space"}};
  for (const auto& [j, p] : kMap) {
    if (name == j) return p;
  }
  return nullptr;
}

Result<std::string> TranslateJavaRegex(std::string_view p, std::string_view func) {
  std::string out;
  out.reserve(p.size() + 8);
  int class_depth = 0;
  bool quoted = false;  // inside \Q...\E
  for (size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (quoted) {
      if (c == '\\' && i + 1 < p.size() && p[i + 1] == 'E') {
        quoted = false;
        out += "\\E";
        ++i;
      } else {
        out += c;
      }
      continue;
    }
    if (c == '\\') {
      if (i + 1 >= p.size()) return PatternError(func, p, "unexpected end after '\\'");
      char n = p[i + 1];
      if ((n == 'p' || n == 'P') && i + 2 < p.size() && p[i + 2] == '{') {
        size_t close = p.find('}', i + 3);
        if (close != std::string_view::npos) {
          std::string_view name = p.substr(i + 3, close - i - 3);
          if (name.substr(0, 2) == "Is" && !PosixClass(name)) name.remove_prefix(2);
          if (const char* posix = PosixClass(name)) {
            std::string cls = std::string("[:") + (n == 'P' ? "^" : "") + posix + ":]";
            out += class_depth > 0 ? cls : "[" + cls + "]";
          } else {
            out += "\\";
            out += n;
            out += "{";
            out += name;
            out += "}";
          }
          i = close;
          continue;
        }
      }
      if (n >= '1' && n <= '9' && class_depth == 0) {
        return PatternError(func, p, "backreferences are not supported (silt matches with RE2)");
      }
      if (n == 'Z') {  // end of input (RE2 has no "before a final line terminator" form)
        out += "\\z";
        ++i;
        continue;
      }
      if (n == 'G' || n == 'R' || n == 'X' || n == 'h' || n == 'H' || n == 'k') {
        return PatternError(func, p,
                            std::string("\\") + n + " is not supported (silt matches with RE2)");
      }
      if (n == 'Q') quoted = true;
      out += c;
      out += n;
      ++i;
      continue;
    }
    if (class_depth > 0) {
      if (c == '[') {
        // Java nested classes / unions are not RE2 syntax unless it is a [:posix:] class.
        if (i + 1 < p.size() && p[i + 1] == ':') {
          size_t close = p.find(":]", i + 2);
          if (close != std::string_view::npos) {
            out.append(p.substr(i, close + 2 - i));
            i = close + 1;
            continue;
          }
        }
        return PatternError(func, p, "nested character classes are not supported");
      }
      if (c == '&' && i + 1 < p.size() && p[i + 1] == '&') {
        return PatternError(func, p, "character class intersection (&&) is not supported");
      }
      if (c == ']') --class_depth;
      out += c;
      continue;
    }
    if (c == '[') {
      ++class_depth;
      out += c;
      // A leading ']' (or '^]') is literal in both dialects.
      if (i + 1 < p.size() && p[i + 1] == '^') {
        out += '^';
        ++i;
      }
      if (i + 1 < p.size() && p[i + 1] == ']') {
        out += "\\]";
        ++i;
      }
      continue;
    }
    if (c == '(' && i + 2 < p.size() && p[i + 1] == '?') {
      char k = p[i + 2];
      if (k == '=' || k == '!') return PatternError(func, p, "lookahead is not supported");
      if (k == '>') return PatternError(func, p, "atomic groups are not supported");
      if (k == '<' && i + 3 < p.size() && (p[i + 3] == '=' || p[i + 3] == '!')) {
        return PatternError(func, p, "lookbehind is not supported");
      }
      if (k == '<') {  // (?<name>...) → (?P<name>...)
        out += "(?P<";
        i += 2;
        continue;
      }
    }
    if ((c == '+') && !out.empty()) {
      char prev = out.back();
      bool after_quantifier = prev == '*' || prev == '+' || prev == '?' || prev == '}';
      // "a++", "a*+", "a?+", "a{2}+" are possessive in Java; a lazy "+?" is fine.
      if (after_quantifier && !(out.size() >= 2 && out[out.size() - 2] == '\\')) {
        return PatternError(func, p, "possessive quantifiers are not supported");
      }
    }
    out += c;
  }
  return out;
}

}  // namespace

Result<std::shared_ptr<const RE2>> CompileJavaRegex(std::string_view pattern,
                                                    std::string_view func) {
  SILT_ASSIGN_OR_RETURN(std::string translated, TranslateJavaRegex(pattern, func));
  RE2::Options opts;
  opts.set_log_errors(false);
  opts.set_encoding(RE2::Options::EncodingUTF8);
  auto re = std::make_shared<RE2>(translated, opts);
  if (!re->ok()) return PatternError(func, pattern, re->error());
  return std::shared_ptr<const RE2>(std::move(re));
}

}  // namespace silt::exec::fn
