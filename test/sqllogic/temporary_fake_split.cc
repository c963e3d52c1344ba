// TEMPORARY — test code, linked only while the tree has no src/sql/*.cc (see CMakeLists.txt): a
// definition of sql::SplitStatements so that the CLI links before the parser is merged. It knows
// '…', "…" and `…` quotes (backslash escapes in the first two), -- and nested /* */ comments.
// Delete this file once the parser lands (CMake stops using it by itself).
#include <cctype>

#include "sql/parser.h"

namespace silt::sql {

std::vector<std::string> SplitStatements(std::string_view text, bool* complete) {
  std::vector<std::string> out;
  std::string cur;
  size_t i = 0;
  bool open = false;  // inside a quote or block comment at the end
  auto blank = [](const std::string& s) {
    for (char c : s) {
      if (!std::isspace(static_cast<unsigned char>(c))) return false;
    }
    return true;
  };
  bool tail_has_code = false;
  while (i < text.size()) {
    char c = text[i];
    if (c == '\'' || c == '"' || c == '`') {
      size_t j = i + 1;
      while (j < text.size() && text[j] != c) j += (text[j] == '\\' && c != '`') ? 2 : 1;
      if (j >= text.size()) {
        open = true;
        cur.append(text.substr(i));
        i = text.size();
        break;
      }
      cur.append(text.substr(i, j + 1 - i));
      tail_has_code = true;
      i = j + 1;
    } else if (c == '-' && i + 1 < text.size() && text[i + 1] == '-') {
      size_t j = text.find('\n', i);
      if (j == std::string_view::npos) j = text.size();
      cur.append(text.substr(i, j - i));
      i = j;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      int depth = 0;
      size_t j = i;
      while (j < text.size()) {
        if (text.compare(j, 2, "/*") == 0) {
          ++depth;
          j += 2;
        } else if (text.compare(j, 2, "*/") == 0) {
          j += 2;
          if (--depth == 0) break;
        } else {
          ++j;
        }
      }
      if (depth > 0) open = true;
      cur.append(text.substr(i, j - i));
      i = j;
    } else if (c == ';') {
      if (!blank(cur)) out.push_back(cur);
      cur.clear();
      tail_has_code = false;
      ++i;
    } else {
      if (!std::isspace(static_cast<unsigned char>(c))) tail_has_code = true;
      cur += c;
      ++i;
    }
  }
  if (tail_has_code || open) out.push_back(cur);
  *complete = !open && !tail_has_code;
  return out;
}

}  // namespace silt::sql
