// The Spark SQL lexer (SqlBaseLexer.g4's tokens): words (identifiers and keywords; keywords are
// recognised by the parser, case-insensitively), `quoted` identifiers, '…'/"…" strings with
// Spark's backslash escapes (R'…' raw strings), numbers with their Spark suffixes, X'…' binary
// literals and operators. Comments (--, nested /* */, /*+ hints */) and whitespace are skipped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "sql/ast.h"

namespace silt::sql {

enum class TokenKind : uint8_t {
  kEnd,
  kWord,    // unquoted identifier or keyword (text as written)
  kQuoted,  // `back-quoted` identifier (text unescaped)
  kString,  // '…' or "…" (text unescaped)
  kNumber,  // numeric literal (text as written, suffix included)
  kBinary,  // X'0A1B' (text = the hex digits)
  kOp,      // punctuation / operator (text)
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;
  SourcePos pos;
  int end_offset = 0;  // byte offset just past the token

  // Case-insensitive keyword test for kWord tokens (kw must be upper case).
  bool Is(std::string_view kw) const;
  bool IsOp(std::string_view op) const { return kind == TokenKind::kOp && text == op; }
};

// Tokenizes `text`; the last token is kEnd. Errors (unterminated string/comment/identifier,
// unexpected character) are PARSE_SYNTAX_ERROR / UNCLOSED_BRACKETED_COMMENT with position.
Result<std::vector<Token>> Tokenize(std::string_view text);

// Spark's unescapeSQLString for the body of a quoted string (without quotes).
std::string UnescapeSqlString(std::string_view body);

// The message of a PARSE_SYNTAX_ERROR-style error at `pos`, with the Spark caret display
// documented in parser.h. `what` is e.g. "Syntax error at or near 'FORM'". The class is not part
// of the message (Status::ToString() renders it).
std::string FormatParseError(std::string_view sql, std::string_view what, const SourcePos& pos);

}  // namespace silt::sql
