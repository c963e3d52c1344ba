// Databricks SQL's streaming tables: CREATE [OR REFRESH] STREAMING TABLE t … AS SELECT … FROM
// STREAM(src) and REFRESH STREAMING TABLE t [FULL] (sql/streaming_table.h), run by
// commands/streaming_table.cc through ops/stream_query.h.
#include "common/ascii.h"
#include "common/error_classes.h"
#include "sql/parser_internal.h"
#include "sql/streaming_table.h"

namespace silt::sql::internal {

bool Parser::AtStreamingTable() const {
  if (AtKw("CREATE")) {
    return (AtKw("STREAMING", 1) && AtKw("TABLE", 2)) ||
           (AtKw("OR", 1) && AtKw("REFRESH", 2) && AtKw("STREAMING", 3));
  }
  return AtKw("REFRESH") && AtKw("STREAMING", 1) && AtKw("TABLE", 2);
}

Result<StatementNode> Parser::StreamingTable() {
  SourcePos pos = Peek().pos;
  auto s = std::make_unique<StreamingTableStatement>();
  if (AcceptKw("REFRESH")) {
    Next();  // STREAMING
    Next();  // TABLE
    s->refresh_only = true;
    SILT_ASSIGN_OR_RETURN(s->name, ParseTableName(false));
    s->full = AcceptKw("FULL");
    return StatementNode(std::move(s));
  }
  Next();  // CREATE
  if (AcceptKw("OR")) {
    Next();  // REFRESH
    s->or_refresh = true;
  }
  Next();  // STREAMING
  if (AtKw("PRIVATE")) {
    return Status::NotImplemented("CREATE PRIVATE STREAMING TABLE (pipeline-private tables)",
                                  errc::kNotImplemented);
  }
  SILT_ASSIGN_OR_RETURN(StatementNode created, CreateTable(false, false, pos));
  auto& base = static_cast<CreateTableStatement&>(*created);
  if (base.if_not_exists) {
    return ClassError(errc::kInvalidSqlSyntax,
                      "Invalid SQL syntax: CREATE STREAMING TABLE IF NOT EXISTS is not allowed",
                      pos);
  }
  if (!base.as_query) {
    return Status::NotImplemented(
        "CREATE STREAMING TABLE without AS query (a pipeline's flow target) is not supported",
        errc::kNotImplemented);
  }
  const size_t begin = static_cast<size_t>(base.as_query->pos.offset);
  const size_t end = p_ > 0 ? static_cast<size_t>(t_[p_ - 1].end_offset) : begin;
  static_cast<CreateTableStatement&>(*s) = std::move(base);
  s->query_text = std::string(sql_.substr(begin, end > begin ? end - begin : 0));
  return StatementNode(std::move(s));
}

// STREAM(name) / STREAM name, then [WITH (options)]: RelationPrimary's stream reference.
Result<bool> Parser::StreamRelation(TableRef* r) {
  if (!AtKw("STREAM")) return false;
  const bool paren = AtOp("(", 1) && IsIdentToken(Peek(2));
  const Token& next = Peek(1);
  const bool bare =
      next.kind == TokenKind::kQuoted ||
      (next.kind == TokenKind::kWord && NoBareAlias().count(AsciiUpper(next.text)) == 0);
  if (!paren && !bare) return false;
  if (!paren && AtOp("(", 2)) {
    return Status::NotImplemented(
        "STREAM " + Peek(1).text + "(…): silt streams from Delta tables only (STREAM(table))",
        errc::kNotImplemented);
  }
  Next();  // STREAM
  if (paren) Next();
  r->kind = TableRef::Kind::kTable;
  r->function_name = kStreamRefMarker;
  SILT_ASSIGN_OR_RETURN(r->name, ParseTableName(false));
  if (paren) SILT_RETURN_NOT_OK(ExpectOp(")"));
  if (AtKw("WITH") && AtOp("(", 1)) {
    Next();
    SILT_ASSIGN_OR_RETURN(PropertyList options, PropertyListClause());
    for (auto& [k, v] : options) {
      for (std::string* text : {&k, &v}) {
        auto lit = NewExpr(ExprType::kLiteral, r->pos);
        lit->literal = Value::String(*text);
        r->function_args.push_back(std::move(lit));
      }
    }
  }
  return true;
}

}  // namespace silt::sql::internal
