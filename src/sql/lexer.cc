#include "sql/lexer.h"

#include <cctype>

#include "common/ascii.h"
#include "common/error_classes.h"
#include "common/utf8.h"

namespace silt::sql {

namespace {

bool IsWordChar(unsigned char c) {
  // Spark's IDENTIFIER allows any Unicode letter; every non-ASCII byte is taken as part of a
  // word (UTF-8 continuation and lead bytes), which keeps multi-byte letters together.
  return std::isalnum(c) || c == '_' || c >= 0x80;
}

SourcePos PosAt(std::string_view text, size_t offset) {
  SourcePos p;
  p.offset = static_cast<int>(offset);
  size_t line_start = 0;
  int line = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  int col = 1;
  for (size_t i = line_start; i < offset && i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++col;
  }
  p.line = line;
  p.column = col;
  return p;
}

int HexVal(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool Token::Is(std::string_view kw) const {
  if (kind != TokenKind::kWord || text.size() != kw.size()) return false;
  for (size_t i = 0; i < kw.size(); ++i) {
    if (AsciiToUpper(text[i]) != kw[i]) return false;
  }
  return true;
}

std::string UnescapeSqlString(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c != '\\' || i + 1 >= s.size()) {
      out.push_back(c);
      continue;
    }
    char n = s[++i];
    // \uXXXX
    if (n == 'u' && i + 4 < s.size()) {
      uint32_t cp = 0;
      bool ok = true;
      for (size_t k = 1; k <= 4; ++k) {
        int h = HexVal(s[i + k]);
        if (h < 0) {
          ok = false;
          break;
        }
        cp = cp * 16 + static_cast<uint32_t>(h);
      }
      if (ok) {
        AppendUtf8(&out, cp);
        i += 4;
        continue;
      }
    }
    // Octal \NNN (first digit 0-3).
    if (n >= '0' && n <= '3' && i + 2 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '7' &&
        s[i + 2] >= '0' && s[i + 2] <= '7') {
      int v = (n - '0') * 64 + (s[i + 1] - '0') * 8 + (s[i + 2] - '0');
      out.push_back(static_cast<char>(v));
      i += 2;
      continue;
    }
    switch (n) {
      case '0':
        out.push_back('\0');
        break;
      case '\'':
        out.push_back('\'');
        break;
      case '"':
        out.push_back('"');
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'Z':
        out.push_back('\x1A');
        break;
      case '\\':
        out.push_back('\\');
        break;
      // Spark keeps the backslash before % and _ (LIKE patterns need it).
      case '%':
        out += "\\%";
        break;
      case '_':
        out += "\\_";
        break;
      default:
        out.push_back(n);
        break;
    }
  }
  return out;
}

std::string FormatParseError(std::string_view sql, std::string_view what, const SourcePos& pos) {
  std::string msg = std::string(what) + ". (line " + std::to_string(pos.line) + ", column " +
                    std::to_string(pos.column) + ")";
  msg += "\n== SQL ==\n";
  // Lines up to the error line, the caret line, then the rest (Spark's ParseException layout).
  int line = 1;
  size_t start = 0;
  bool caret_done = false;
  while (start <= sql.size()) {
    size_t nl = sql.find('\n', start);
    std::string_view l =
        sql.substr(start, nl == std::string_view::npos ? sql.size() - start : nl - start);
    msg.append(l);
    msg.push_back('\n');
    if (line == pos.line) {
      msg.append(static_cast<size_t>(pos.column > 0 ? pos.column - 1 : 0), '-');
      msg += "^^^\n";
      caret_done = true;
    }
    if (nl == std::string_view::npos) break;
    start = nl + 1;
    ++line;
  }
  if (!caret_done) {
    msg.append(static_cast<size_t>(pos.column > 0 ? pos.column - 1 : 0), '-');
    msg += "^^^\n";
  }
  if (!msg.empty() && msg.back() == '\n') msg.pop_back();
  return msg;
}

Result<std::vector<Token>> Tokenize(std::string_view text) {
  std::vector<Token> toks;
  size_t i = 0;
  const size_t n = text.size();
  auto error = [&](size_t at, std::string what, std::string cls = errc::kParseSyntaxError) {
    return Status::InvalidArgument(FormatParseError(text, what, PosAt(text, at)), cls);
  };
  // Positions are computed incrementally (line starts) to stay linear.
  int line = 1;
  size_t line_start = 0, scanned = 0;
  int col_cache = 1;
  auto pos_of = [&](size_t off) {
    // Advance the incremental line/column state to `off` (offsets only increase).
    for (; scanned < off; ++scanned) {
      unsigned char c = static_cast<unsigned char>(text[scanned]);
      if (c == '\n') {
        ++line;
        line_start = scanned + 1;
        col_cache = 1;
      } else if ((c & 0xC0) != 0x80) {
        ++col_cache;
      }
    }
    (void)line_start;
    SourcePos p;
    p.line = line;
    p.column = col_cache;
    p.offset = static_cast<int>(off);
    return p;
  };
  auto push = [&](TokenKind k, std::string t, size_t start, size_t end) {
    Token tok;
    tok.kind = k;
    tok.text = std::move(t);
    tok.pos = pos_of(start);
    tok.end_offset = static_cast<int>(end);
    toks.push_back(std::move(tok));
  };

  while (i < n) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (std::isspace(c)) {
      ++i;
      continue;
    }
    // Comments.
    if (c == '-' && i + 1 < n && text[i + 1] == '-') {
      while (i < n && text[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      size_t start = i;
      int depth = 0;
      while (i < n) {
        if (text[i] == '/' && i + 1 < n && text[i + 1] == '*') {
          ++depth;
          i += 2;
        } else if (text[i] == '*' && i + 1 < n && text[i + 1] == '/') {
          --depth;
          i += 2;
          if (depth == 0) break;
        } else {
          ++i;
        }
      }
      if (depth != 0) {
        return error(
            start,
            "Found an unclosed bracketed comment. Please, append */ at the end of the comment",
            errc::kUnclosedBracketedComment);
      }
      continue;
    }
    size_t start = i;
    // Raw strings R'…' / R"…".
    if ((c == 'R' || c == 'r') && i + 1 < n && (text[i + 1] == '\'' || text[i + 1] == '"')) {
      char q = text[i + 1];
      size_t j = i + 2;
      while (j < n && text[j] != q) ++j;
      if (j >= n) return error(start, "Syntax error at or near end of input: unterminated string");
      push(TokenKind::kString, std::string(text.substr(i + 2, j - i - 2)), start, j + 1);
      i = j + 1;
      continue;
    }
    // Binary literal X'…'.
    if ((c == 'X' || c == 'x') && i + 1 < n && text[i + 1] == '\'') {
      size_t j = i + 2;
      while (j < n && text[j] != '\'') ++j;
      if (j >= n) return error(start, "Syntax error at or near end of input: unterminated string");
      push(TokenKind::kBinary, std::string(text.substr(i + 2, j - i - 2)), start, j + 1);
      i = j + 1;
      continue;
    }
    if (c == '\'' || c == '"') {
      size_t j = i + 1;
      while (j < n && text[j] != static_cast<char>(c)) {
        if (text[j] == '\\' && j + 1 < n) ++j;
        ++j;
      }
      if (j >= n) {
        return error(start, "Syntax error at or near end of input: unterminated string");
      }
      push(TokenKind::kString, UnescapeSqlString(text.substr(i + 1, j - i - 1)), start, j + 1);
      i = j + 1;
      continue;
    }
    if (c == '`') {
      std::string name;
      size_t j = i + 1;
      bool closed = false;
      while (j < n) {
        if (text[j] == '`') {
          if (j + 1 < n && text[j + 1] == '`') {
            name.push_back('`');
            j += 2;
            continue;
          }
          closed = true;
          break;
        }
        name.push_back(text[j++]);
      }
      if (!closed) {
        return error(start, "Syntax error at or near end of input: unterminated quoted identifier");
      }
      push(TokenKind::kQuoted, std::move(name), start, j + 1);
      i = j + 1;
      continue;
    }
    // Numbers: digits, or '.' followed by a digit. A digit-led run of word characters that is
    // not a valid number is an identifier (Spark's IDENTIFIER allows a leading digit).
    if (std::isdigit(c) ||
        (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
      size_t j = i;
      while (j < n && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      bool had_digits = j > i;
      bool is_decimal = false;
      if (j < n && text[j] == '.') {
        // DECIMAL_DIGITS: DIGIT+ '.' DIGIT* | '.' DIGIT+
        size_t k = j + 1;
        while (k < n && std::isdigit(static_cast<unsigned char>(text[k]))) ++k;
        if (had_digits || k > j + 1) {
          is_decimal = true;
          j = k;
        }
      }
      size_t num_end = j;
      // Exponent.
      if (j < n && (text[j] == 'e' || text[j] == 'E')) {
        size_t k = j + 1;
        if (k < n && (text[k] == '+' || text[k] == '-')) ++k;
        size_t d = k;
        while (k < n && std::isdigit(static_cast<unsigned char>(text[k]))) ++k;
        if (k > d) num_end = k;
      }
      // Suffix.
      size_t end = num_end;
      if (end < n) {
        char s0 = AsciiToUpper(text[end]);
        char s1 = end + 1 < n ? AsciiToUpper(text[end + 1]) : 0;
        bool has_exp = num_end > j;
        if (s0 == 'B' && s1 == 'D') {
          end += 2;
        } else if (s0 == 'F' || s0 == 'D') {
          end += 1;
        } else if ((s0 == 'L' || s0 == 'S' || s0 == 'Y') && !is_decimal && !has_exp) {
          end += 1;
        }
      }
      if (end < n && IsWordChar(static_cast<unsigned char>(text[end]))) {
        if (!is_decimal) {
          // Not a valid number: an identifier such as 1a or 123abc.
          size_t k = i;
          while (k < n && IsWordChar(static_cast<unsigned char>(text[k]))) ++k;
          push(TokenKind::kWord, std::string(text.substr(i, k - i)), start, k);
          i = k;
          continue;
        }
        if (!had_digits) {
          // `.5x` is not a decimal (isValidDecimal): a '.' then a word, as in db.2024_t.
          push(TokenKind::kOp, ".", start, i + 1);
          i += 1;
          continue;
        }
        // A decimal followed by letters (1.5x): the number ends at its digits (isValidDecimal
        // fails, so Spark lexes the integer part, '.', …); we report it as a syntax error.
        return error(start,
                     "Syntax error at or near '" + std::string(text.substr(i, end - i + 1)) + "'");
      }
      push(TokenKind::kNumber, std::string(text.substr(i, end - i)), start, end);
      i = end;
      continue;
    }
    if (IsWordChar(c)) {
      size_t j = i;
      while (j < n && IsWordChar(static_cast<unsigned char>(text[j]))) ++j;
      push(TokenKind::kWord, std::string(text.substr(i, j - i)), start, j);
      i = j;
      continue;
    }
    // Operators, longest first.
    static const char* const kOps[] = {
        "<=>", "!>", "!<", "<>", "!=", "<=", ">=", "==", "||", "::", "->", "=>", "<<",
        "(",   ")",  ",",  ".",  ";",  "*",  "+",  "-",  "/",  "%",  "=",  "<",  ">",
        "|",   "&",  "^",  "~",  "!",  ":",  "[",  "]",  "{",  "}",  "?",  "@"};
    bool matched = false;
    for (const char* op : kOps) {
      std::string_view o(op);
      if (text.substr(i, o.size()) == o) {
        push(TokenKind::kOp, std::string(o), start, i + o.size());
        i += o.size();
        matched = true;
        break;
      }
    }
    if (!matched) {
      return error(start, "Syntax error at or near '" + std::string(1, static_cast<char>(c)) + "'");
    }
  }
  Token end;
  end.kind = TokenKind::kEnd;
  end.pos = pos_of(n);
  end.end_offset = static_cast<int>(n);
  toks.push_back(std::move(end));
  return toks;
}

}  // namespace silt::sql
