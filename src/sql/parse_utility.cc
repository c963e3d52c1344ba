// Session statements: USE, SHOW, SET and RESET.
#include "common/error_classes.h"
#include "sql/parser_internal.h"

namespace silt::sql::internal {

Result<StatementNode> Parser::Use() {
  Next();
  auto s = std::make_unique<UseStatement>();
  if ((AtKw("SCHEMA") || AtKw("DATABASE") || AtKw("NAMESPACE") || AtKw("CATALOG")) &&
      IsIdentToken(Peek(1))) {
    Next();
  }
  SILT_ASSIGN_OR_RETURN(s->name, QualifiedName());
  return StatementNode(std::move(s));
}

Result<StatementNode> Parser::Show() {
  Next();  // SHOW
  auto pattern = [&](ShowStatement* s) -> Status {
    if (AcceptKw("LIKE")) {
      SILT_ASSIGN_OR_RETURN(s->pattern, StringLit());
    } else if (Peek().kind == TokenKind::kString) {
      SILT_ASSIGN_OR_RETURN(s->pattern, StringLit());
    }
    return Status::OK();
  };
  if (AtKw("SCHEMAS") || AtKw("DATABASES") || AtKw("NAMESPACES")) {
    Next();
    auto s = std::make_unique<ShowStatement>(StatementKind::kShowSchemas);
    if (AcceptKw("FROM") || AcceptKw("IN")) {
      SILT_ASSIGN_OR_RETURN(s->schema, QualifiedName());
    }
    SILT_RETURN_NOT_OK(pattern(s.get()));
    return StatementNode(std::move(s));
  }
  if (AtKw("TABLES")) {
    Next();
    auto s = std::make_unique<ShowStatement>(StatementKind::kShowTables);
    if (AcceptKw("FROM") || AcceptKw("IN")) {
      SILT_ASSIGN_OR_RETURN(s->schema, QualifiedName());
    }
    SILT_RETURN_NOT_OK(pattern(s.get()));
    return StatementNode(std::move(s));
  }
  if (AtKw("TBLPROPERTIES")) {
    Next();
    auto s = std::make_unique<ShowStatement>(StatementKind::kShowTblProperties);
    SILT_ASSIGN_OR_RETURN(s->table, ParseTableName(false));
    if (AcceptOp("(")) {
      SILT_ASSIGN_OR_RETURN(auto kv, Property(false));
      s->property_key = kv.first;
      SILT_RETURN_NOT_OK(ExpectOp(")"));
    }
    return StatementNode(std::move(s));
  }
  if (AtKw("CREATE") && AtKw("TABLE", 1)) {
    Next();
    Next();
    auto s = std::make_unique<ShowStatement>(StatementKind::kShowCreateTable);
    SILT_ASSIGN_OR_RETURN(s->table, ParseTableName(false));
    if (AtKw("AS") && AtKw("SERDE", 1)) return Status::NotImplemented("SHOW CREATE TABLE AS SERDE");
    return StatementNode(std::move(s));
  }
  if (AtKw("COLUMNS")) {
    Next();
    auto s = std::make_unique<ShowStatement>(StatementKind::kShowColumns);
    if (!AcceptKw("FROM") && !AcceptKw("IN")) return ErrorHere();
    SILT_ASSIGN_OR_RETURN(s->table, ParseTableName(false));
    if (AcceptKw("FROM") || AcceptKw("IN")) {
      SILT_ASSIGN_OR_RETURN(s->schema, QualifiedName());
    }
    return StatementNode(std::move(s));
  }
  if (AtKw("MAINTENANCE")) {
    Next();
    auto s = std::make_unique<ShowStatement>(StatementKind::kShowMaintenance);
    SILT_ASSIGN_OR_RETURN(s->table, ParseTableName(false));
    return StatementNode(std::move(s));
  }
  return ErrorHere();
}

Result<StatementNode> Parser::Set() {
  const Token& set_tok = Next();
  auto s = std::make_unique<SetStatement>();
  // The rest of the statement is raw text up to the next top-level ';' (tokens know quotes).
  size_t j = p_;
  while (t_[j].kind != TokenKind::kEnd && !t_[j].IsOp(";")) ++j;
  int start = set_tok.end_offset;
  int end = t_[j].pos.offset;
  std::string_view rest = sql_.substr(start, end - start);
  auto trim = [](std::string_view v) {
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
    return v;
  };
  rest = trim(rest);
  p_ = j;
  if (rest.empty()) return StatementNode(std::move(s));
  if (rest == "-v" || rest == "-V") {
    s->verbose = true;
    return StatementNode(std::move(s));
  }
  // SET TIME ZONE 'x' | LOCAL | INTERVAL …
  {
    std::string u = AsciiUpper(rest.substr(0, std::min<size_t>(rest.size(), 9)));
    if (u == "TIME ZONE" &&
        (rest.size() == 9 || std::isspace(static_cast<unsigned char>(rest[9])))) {
      std::string_view v = trim(rest.substr(9));
      s->key = "spark.sql.session.timeZone";
      if (AsciiUpper(v) == "LOCAL") {
        s->value = "LOCAL";
      } else if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"') &&
                 v.back() == v.front()) {
        s->value = UnescapeSqlString(v.substr(1, v.size() - 2));
      } else {
        return Status::NotImplemented("SET TIME ZONE with an interval or unquoted value");
      }
      return StatementNode(std::move(s));
    }
  }
  size_t eq = std::string_view::npos;
  // The key may be back-quoted and contain '='.
  if (rest.front() == '`') {
    size_t close = rest.find('`', 1);
    if (close == std::string_view::npos) return ErrorAt(t_[p_ > 0 ? p_ - 1 : 0]);
    s->key = std::string(rest.substr(1, close - 1));
    std::string_view after = trim(rest.substr(close + 1));
    if (after.empty()) return StatementNode(std::move(s));
    if (after.front() != '=') return ErrorAt(set_tok);
    std::string v(trim(after.substr(1)));
    if (v.size() >= 2 && v.front() == '`' && v.back() == '`') v = v.substr(1, v.size() - 2);
    s->value = std::move(v);
    return StatementNode(std::move(s));
  }
  eq = rest.find('=');
  if (eq == std::string_view::npos) {
    s->key = std::string(rest);
    for (char c : s->key) {
      if (std::isspace(static_cast<unsigned char>(c))) {
        return ClassError(errc::kInvalidSetSyntax,
                          "Expected format is 'SET', 'SET key', or 'SET key=value'. If you want to "
                          "include special characters in key, or include semicolon in value, "
                          "please use backquotes, e.g., SET `key`=`value`",
                          set_tok.pos);
      }
    }
    return StatementNode(std::move(s));
  }
  s->key = std::string(trim(rest.substr(0, eq)));
  std::string v(trim(rest.substr(eq + 1)));
  if (v.size() >= 2 && v.front() == '`' && v.back() == '`') v = v.substr(1, v.size() - 2);
  s->value = std::move(v);
  if (s->key.empty()) {
    return ClassError(errc::kInvalidSetSyntax,
                      "Expected format is 'SET', 'SET key', or 'SET key=value'", set_tok.pos);
  }
  return StatementNode(std::move(s));
}

Result<StatementNode> Parser::Reset() {
  const Token& tok = Next();
  auto s = std::make_unique<ResetStatement>();
  size_t j = p_;
  while (t_[j].kind != TokenKind::kEnd && !t_[j].IsOp(";")) ++j;
  std::string_view rest = sql_.substr(tok.end_offset, t_[j].pos.offset - tok.end_offset);
  while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front())))
    rest.remove_prefix(1);
  while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back())))
    rest.remove_suffix(1);
  if (rest.size() >= 2 && rest.front() == '`' && rest.back() == '`')
    rest = rest.substr(1, rest.size() - 2);
  s->key = std::string(rest);
  p_ = j;
  return StatementNode(std::move(s));
}

}  // namespace silt::sql::internal
