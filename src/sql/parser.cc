// The parser's entry points (ParseScript, ParseStatement, ParseExpression, ParseDataType,
// SplitStatements), the statement dispatch and the shared name rules; the grammar itself is in
// parse_*.cc around the Parser class of parser_internal.h.
#include "sql/parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <utility>

#include "sql/parser_internal.h"

namespace silt::sql {

namespace internal {

// Words that never start an implicit (AS-less) alias: Spark's strict-non-reserved keywords plus
// the words that begin a following clause (ANTLR's prediction picks the clause there).
const std::set<std::string>& NoBareAlias() {
  static const std::set<std::string> k = {
      "ANTI",    "CROSS",       "EXCEPT",  "FULL",      "INNER",          "INTERSECT",
      "JOIN",    "LATERAL",     "LEFT",    "MINUS",     "NATURAL",        "ON",
      "RIGHT",   "SEMI",        "UNION",   "USING",     "SELECT",         "FROM",
      "WHERE",   "GROUP",       "HAVING",  "ORDER",     "LIMIT",          "OFFSET",
      "WINDOW",  "QUALIFY",     "SORT",    "CLUSTER",   "DISTRIBUTE",     "PIVOT",
      "UNPIVOT", "TABLESAMPLE", "FOR",     "WHEN",      "THEN",           "ELSE",
      "END",     "AND",         "OR",      "AS",        "INTO",           "VALUES",
      "SET",     "WITH",        "VERSION", "TIMESTAMP", "SYSTEM_VERSION", "SYSTEM_TIME",
      "TO",      "IN",          "IS",      "NOT",       "LIKE",           "ILIKE",
      "RLIKE",   "REGEXP",      "BETWEEN", "OVER",      "FILTER",         "BY",
      "OUTER"};
  return k;
}

// Words that are never a bare column reference (they always continue or end a clause).
const std::set<std::string>& NotAColumn() {
  static const std::set<std::string> k = {
      "SELECT", "FROM", "WHERE",   "HAVING", "UNION", "INTERSECT", "EXCEPT",  "MINUS", "JOIN",
      "ON",     "WHEN", "THEN",    "ELSE",   "END",   "AND",       "OR",      "AS",    "INTO",
      "IS",     "IN",   "BETWEEN", "LIKE",   "ILIKE", "RLIKE",     "QUALIFY", "INNER", "CROSS"};
  return k;
}

const std::set<std::string>& PathFormats() {
  static const std::set<std::string> k = {"delta", "parquet", "json",       "csv",    "orc",
                                          "text",  "avro",    "binaryfile", "iceberg"};
  return k;
}

ExprNode NewExpr(ExprType type, SourcePos pos) {
  auto e = std::make_unique<ParsedExpr>();
  e->type = type;
  e->pos = pos;
  return e;
}

int HeightOf(const ParsedExpr& e) {
  int h = 0;
  for (const auto& c : e.children) h = std::max(h, c->height);
  if (e.filter) h = std::max(h, e.filter->height);
  if (e.over) {
    for (const auto& p : e.over->partition_by) h = std::max(h, p->height);
    for (const auto& o : e.over->order_by) h = std::max(h, o.expr->height);
    if (e.over->frame) {
      if (e.over->frame->start_offset) h = std::max(h, e.over->frame->start_offset->height);
      if (e.over->frame->end_offset) h = std::max(h, e.over->frame->end_offset->height);
    }
  }
  for (const auto& o : e.within_group) h = std::max(h, o.expr->height);
  return h + 1;
}

// ---------------------------------------------------------------------------------------------
// Identifiers, names, properties

Result<std::string> Parser::Identifier() {
  const Token& t = Peek();
  if (!IsIdentToken(t)) return ErrorHere();
  Next();
  return t.text;
}

Result<std::vector<std::string>> Parser::QualifiedName() {
  std::vector<std::string> parts;
  SILT_ASSIGN_OR_RETURN(auto first, Identifier());
  parts.push_back(std::move(first));
  while (AtOp(".") && IsIdentToken(Peek(1))) {
    Next();
    parts.push_back(Next().text);
  }
  return parts;
}

Result<std::vector<std::string>> Parser::IdentifierList() {
  SILT_RETURN_NOT_OK(ExpectOp("("));
  std::vector<std::string> out;
  do {
    SILT_ASSIGN_OR_RETURN(auto id, Identifier());
    out.push_back(std::move(id));
  } while (AcceptOp(","));
  SILT_RETURN_NOT_OK(ExpectOp(")"));
  return out;
}

bool Parser::AtBareAlias() const {
  const Token& t = Peek();
  if (t.kind == TokenKind::kQuoted) return true;
  if (t.kind != TokenKind::kWord) return false;
  return NoBareAlias().count(AsciiUpper(t.text)) == 0;
}

Result<std::string> Parser::StringLit() {
  if (Peek().kind != TokenKind::kString) return ErrorHere();
  std::string s = Next().text;
  while (Peek().kind == TokenKind::kString) s += Next().text;
  return s;
}

Result<TableName> Parser::ParseTableName(bool allow_string_path) {
  TableName n;
  n.pos = Peek().pos;
  if (Peek().kind == TokenKind::kString) {
    if (!allow_string_path) return ErrorHere();
    SILT_ASSIGN_OR_RETURN(n.path, StringLit());
    n.path_format = "delta";
    if (n.path.empty()) return ErrorAt(t_[p_ - 1], "empty path");
    return n;
  }
  // format.`path`
  if (Peek().kind == TokenKind::kWord && AtOp(".", 1) && Peek(2).kind == TokenKind::kQuoted &&
      PathFormats().count(AsciiLower(Peek().text)) && !AtOp(".", 3)) {
    n.path_format = AsciiLower(Next().text);
    Next();
    n.path = Next().text;
    if (n.path.empty()) return ErrorAt(t_[p_ - 1], "empty path");
    return n;
  }
  SILT_ASSIGN_OR_RETURN(n.parts, QualifiedName());
  return n;
}

Result<std::pair<std::string, std::string>> Parser::Property(bool value_required) {
  std::pair<std::string, std::string> kv;
  if (Peek().kind == TokenKind::kString) {
    SILT_ASSIGN_OR_RETURN(kv.first, StringLit());
  } else {
    SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
    for (size_t i = 0; i < parts.size(); ++i) kv.first += (i ? "." : "") + parts[i];
  }
  bool has_eq = AcceptOp("=");
  const Token& v = Peek();
  if (v.kind == TokenKind::kString) {
    SILT_ASSIGN_OR_RETURN(kv.second, StringLit());
  } else if (v.kind == TokenKind::kNumber) {
    kv.second = Next().text;
  } else if (v.IsOp("-") && Peek(1).kind == TokenKind::kNumber) {
    Next();
    kv.second = "-" + Next().text;
  } else if (v.Is("TRUE") || v.Is("FALSE")) {
    kv.second = AsciiLower(Next().text);
  } else if (has_eq || value_required) {
    return ErrorHere();
  }
  return kv;
}

Result<PropertyList> Parser::PropertyListClause() {
  SILT_RETURN_NOT_OK(ExpectOp("("));
  PropertyList out;
  if (!AtOp(")")) {
    do {
      SILT_ASSIGN_OR_RETURN(auto kv, Property(false));
      out.push_back(std::move(kv));
    } while (AcceptOp(","));
  }
  SILT_RETURN_NOT_OK(ExpectOp(")"));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Statements

Result<StatementNode> Parser::Statement() {
  SILT_ASSIGN_OR_RETURN(auto s, StatementBody());
  AcceptOp(";");
  while (AcceptOp(";")) {
  }
  if (Peek().kind != TokenKind::kEnd) {
    if (last_bare_alias_ != static_cast<size_t>(-1) && last_bare_alias_ + 1 == p_ &&
        t_[last_bare_alias_].kind == TokenKind::kWord) {
      return ErrorAt(t_[last_bare_alias_]);
    }
    return ErrorHere();
  }
  return s;
}

Result<std::vector<StatementNode>> Parser::Script() {
  std::vector<StatementNode> out;
  while (true) {
    while (AcceptOp(";")) {
    }
    if (Peek().kind == TokenKind::kEnd) break;
    last_bare_alias_ = static_cast<size_t>(-1);
    SILT_ASSIGN_OR_RETURN(auto s, StatementBody());
    if (!AtOp(";") && Peek().kind != TokenKind::kEnd) {
      if (last_bare_alias_ != static_cast<size_t>(-1) && last_bare_alias_ + 1 == p_ &&
          t_[last_bare_alias_].kind == TokenKind::kWord) {
        return ErrorAt(t_[last_bare_alias_]);
      }
      return ErrorHere();
    }
    out.push_back(std::move(s));
  }
  return out;
}

Result<StatementNode> Parser::StatementBody() {
  const Token& first = Peek();
  SourcePos pos = first.pos;
  size_t start_tok = p_;
  Result<StatementNode> r = Status::Internal("unparsed statement");
  if (AtQueryStart()) {
    auto qs = std::make_unique<QueryStatement>();
    SILT_ASSIGN_OR_RETURN(qs->query, Query());
    r = StatementNode(std::move(qs));
  } else if (first.Is("EXPLAIN")) {
    r = Explain();
  } else if (AtStreamingTable()) {
    r = StreamingTable();
  } else if (first.Is("CREATE")) {
    r = Create();
  } else if (first.Is("REPLACE") && AtKw("TABLE", 1)) {
    Next();
    r = CreateTable(true, true, pos);
  } else if (first.Is("DROP")) {
    r = Drop();
  } else if (first.Is("TRUNCATE")) {
    Next();
    SILT_RETURN_NOT_OK(ExpectKw("TABLE"));
    auto t = std::make_unique<TruncateStatement>();
    SILT_ASSIGN_OR_RETURN(t->table, ParseTableName(true));
    if (AcceptKw("PARTITION")) {
      t->partition = true;
      SILT_RETURN_NOT_OK(ExpectOp("("));
      for (int depth = 1; depth > 0; Next()) {
        if (Peek().kind == TokenKind::kEnd) return ErrorHere();
        if (AtOp("(")) ++depth;
        if (AtOp(")")) --depth;
      }
    }
    r = StatementNode(std::move(t));
  } else if (first.Is("USE")) {
    r = Use();
  } else if (first.Is("SHOW")) {
    r = Show();
  } else if (first.Is("ALTER")) {
    r = Alter();
  } else if (first.Is("INSERT")) {
    r = Insert();
  } else if (first.Is("DELETE")) {
    r = Delete();
  } else if (first.Is("UPDATE")) {
    r = Update();
  } else if (first.Is("MERGE")) {
    r = Merge();
  } else if (first.Is("VACUUM")) {
    r = Vacuum();
  } else if (first.Is("OPTIMIZE")) {
    r = Optimize();
  } else if (first.Is("REORG")) {
    r = Reorg();
  } else if (first.Is("RESTORE")) {
    r = Restore();
  } else if (first.Is("DESCRIBE") || first.Is("DESC")) {
    r = Describe();
  } else if (first.Is("CONVERT")) {
    r = Convert();
  } else if (first.Is("SET")) {
    r = Set();
  } else if (first.Is("RESET")) {
    r = Reset();
  } else {
    return ErrorHere();
  }
  if (!r.ok()) return r.status();
  StatementNode s = std::move(r).MoveValue();
  s->pos = pos;
  size_t end_off =
      p_ > start_tok ? static_cast<size_t>(t_[p_ - 1].end_offset) : static_cast<size_t>(pos.offset);
  if (s->kind == StatementKind::kSet || s->kind == StatementKind::kReset) {
    // SET consumed raw text up to the terminator.
    end_off = static_cast<size_t>(Peek().pos.offset);
  }
  std::string_view text = sql_.substr(pos.offset, end_off - pos.offset);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  s->text = std::string(text);
  return s;
}

Result<StatementNode> Parser::Explain() {
  Next();
  auto e = std::make_unique<ExplainStatement>();
  for (const char* m : {"EXTENDED", "FORMATTED", "CODEGEN", "COST", "LOGICAL", "ANALYZE"}) {
    if (AtKw(m) && !AtOp("(", 1)) {
      e->mode = AsciiLower(Next().text);
      break;
    }
  }
  SILT_ASSIGN_OR_RETURN(e->inner, StatementBody());
  return StatementNode(std::move(e));
}

Result<ExprNode> Parser::StandaloneExpression() {
  SILT_ASSIGN_OR_RETURN(auto e, Expression());
  if (Peek().kind != TokenKind::kEnd) return ErrorHere();
  return e;
}

Result<TypePtr> Parser::StandaloneType() {
  SILT_ASSIGN_OR_RETURN(auto t, DataTypeRule());
  if (Peek().kind != TokenKind::kEnd) return ErrorHere();
  return t;
}

}  // namespace internal

using internal::Parser;

Result<std::vector<StatementNode>> ParseScript(std::string_view text) {
  SILT_ASSIGN_OR_RETURN(auto toks, Tokenize(text));
  Parser p(text, std::move(toks));
  return p.Script();
}

Result<StatementNode> ParseStatement(std::string_view text) {
  SILT_ASSIGN_OR_RETURN(auto toks, Tokenize(text));
  Parser p(text, std::move(toks));
  return p.Statement();
}

Result<ExprNode> ParseExpression(std::string_view text) {
  SILT_ASSIGN_OR_RETURN(auto toks, Tokenize(text));
  Parser p(text, std::move(toks));
  return p.StandaloneExpression();
}

Result<TypePtr> ParseDataType(std::string_view text) {
  SILT_ASSIGN_OR_RETURN(auto toks, Tokenize(text));
  Parser p(text, std::move(toks));
  return p.StandaloneType();
}

std::vector<std::string> SplitStatements(std::string_view text, bool* complete) {
  std::vector<std::string> out;
  std::string cur;
  size_t i = 0, n = text.size();
  bool ok = true;
  auto flush = [&]() {
    std::string_view v = cur;
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
    if (!v.empty()) out.emplace_back(v);
    cur.clear();
  };
  bool has_content = false;  // non-comment, non-space text in the current statement
  while (i < n) {
    char c = text[i];
    if (c == '-' && i + 1 < n && text[i + 1] == '-') {
      size_t e = text.find('\n', i);
      if (e == std::string_view::npos) e = n;
      cur.append(text.substr(i, e - i));
      i = e;
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      int depth = 0;
      size_t st = i;
      while (i < n) {
        if (text[i] == '/' && i + 1 < n && text[i + 1] == '*') {
          ++depth;
          i += 2;
        } else if (text[i] == '*' && i + 1 < n && text[i + 1] == '/') {
          i += 2;
          if (--depth == 0) break;
        } else {
          ++i;
        }
      }
      if (depth != 0) ok = false;
      cur.append(text.substr(st, i - st));
      continue;
    }
    if (c == '\'' || c == '"' || c == '`') {
      size_t st = i++;
      bool closed = false;
      while (i < n) {
        if (c != '`' && text[i] == '\\' && i + 1 < n) {
          i += 2;
          continue;
        }
        if (text[i] == c) {
          if (c == '`' && i + 1 < n && text[i + 1] == '`') {
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        ++i;
      }
      if (!closed) ok = false;
      cur.append(text.substr(st, i - st));
      has_content = true;
      continue;
    }
    if (c == ';') {
      flush();
      has_content = false;
      ++i;
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(c))) has_content = true;
    cur.push_back(c);
    ++i;
  }
  // Text after the last ';' is an unterminated statement when it holds more than comments.
  if (has_content) ok = false;
  if (has_content || !ok) {
    flush();
  } else {
    cur.clear();
  }
  if (complete) *complete = ok;
  return out;
}

}  // namespace silt::sql
