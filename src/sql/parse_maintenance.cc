// Delta maintenance and metadata: VACUUM, OPTIMIZE, REORG, RESTORE, DESCRIBE, CONVERT TO DELTA.
#include "common/error_classes.h"
#include "sql/parser_internal.h"

namespace silt::sql::internal {

Result<StatementNode> Parser::Vacuum() {
  SourcePos pos = Next().pos;
  auto s = std::make_unique<VacuumStatement>();
  SILT_ASSIGN_OR_RETURN(s->table, ParseTableName(true));
  int n_type = 0, n_inventory = 0, n_retain = 0, n_dry = 0;
  bool lite = false;
  SourcePos type_pos = pos, inv_pos = pos, retain_pos = pos, dry_pos = pos;
  while (!AtEnd()) {
    const Token& t = Peek();
    if (t.Is("LITE") || t.Is("FULL")) {
      if (n_type++ == 0) type_pos = t.pos;
      s->type = AsciiLower(Next().text);
      lite = lite || s->type == "lite";
    } else if (t.Is("USING") && AtKw("INVENTORY", 1)) {
      if (n_inventory++ == 0) inv_pos = t.pos;
      Next();
      Next();
      if (AtOp("(")) {
        Next();
        SILT_ASSIGN_OR_RETURN(s->inventory_query, Query());
        SILT_RETURN_NOT_OK(ExpectOp(")"));
      } else {
        SILT_ASSIGN_OR_RETURN(auto inv, ParseTableName(false));
        s->inventory_table = std::move(inv);
      }
    } else if (t.Is("RETAIN")) {
      if (n_retain++ == 0) retain_pos = t.pos;
      Next();
      bool neg = false;
      if (AtOp("-")) {
        Next();
        neg = true;
      }
      const Token& num = Peek();
      if (num.kind != TokenKind::kNumber) return ErrorHere();
      std::string body = num.text;
      char last = AsciiToUpper(body.back());
      // L/S/Y/BD/F suffixes are rejected (Spark's grammar lets L/S/Y/BD through to a failing
      // double conversion; F is not in the grammar); D parses.
      if (last == 'D' && body.size() >= 2 && AsciiToUpper(body[body.size() - 2]) == 'B') {
        return ErrorAt(num);
      }
      if (last == 'L' || last == 'S' || last == 'Y' || last == 'F') return ErrorAt(num);
      if (last == 'D') body.pop_back();
      double v = 0;
      auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
      if (ec != std::errc() || ptr != body.data() + body.size()) return ErrorAt(num);
      Next();
      s->retain_hours = neg ? -v : v;
      SILT_RETURN_NOT_OK(ExpectKw("HOURS"));
    } else if (t.Is("DRY")) {
      if (n_dry++ == 0) dry_pos = t.pos;
      Next();
      SILT_RETURN_NOT_OK(ExpectKw("RUN"));
      s->dry_run = true;
    } else {
      return ErrorHere();
    }
  }
  auto dup = [&](const std::string& clause, const SourcePos& p) {
    return ClassError(errc::kDuplicateClauses,
                      "Found duplicate clauses: " + clause + ". Please, remove one of them", p);
  };
  (void)type_pos;
  if (n_type > 1) return dup("LITE/FULL", pos);
  if (n_inventory > 1) return dup("INVENTORY", pos);
  if (n_retain > 1) return dup("RETAIN", pos);
  if (n_dry > 1) return dup("DRY RUN", pos);
  if (n_inventory > 0 && lite) {
    return ClassError(errc::kLegacyErrorTemp0035,
                      "Operation not allowed: Inventory option is not compatible with LITE", pos);
  }
  (void)inv_pos;
  (void)retain_pos;
  (void)dry_pos;
  return StatementNode(std::move(s));
}

Result<StatementNode> Parser::Optimize() {
  Next();
  auto s = std::make_unique<OptimizeStatement>();
  SILT_ASSIGN_OR_RETURN(s->table, ParseTableName(true));
  if (AcceptKw("FULL")) s->full = true;
  if (AcceptKw("WHERE")) {
    SILT_ASSIGN_OR_RETURN(s->where, Expression());
  }
  if (AtKw("ZORDER")) {
    Next();
    SILT_RETURN_NOT_OK(ExpectKw("BY"));
    bool paren = AcceptOp("(");
    do {
      SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
      s->zorder_by.push_back(std::move(parts));
    } while (AcceptOp(","));
    if (paren) SILT_RETURN_NOT_OK(ExpectOp(")"));
  }
  if (AcceptKw("FULL")) {
    if (s->full) return ErrorAt(t_[p_ - 1]);
    s->full = true;
  }
  return StatementNode(std::move(s));
}

Result<StatementNode> Parser::Reorg() {
  Next();
  SILT_RETURN_NOT_OK(ExpectKw("TABLE"));
  auto s = std::make_unique<ReorgStatement>();
  SILT_ASSIGN_OR_RETURN(s->table, ParseTableName(true));
  if (AcceptKw("WHERE")) {
    SILT_ASSIGN_OR_RETURN(s->where, Expression());
  }
  SILT_RETURN_NOT_OK(ExpectKw("APPLY"));
  SILT_RETURN_NOT_OK(ExpectOp("("));
  if (AcceptKw("PURGE")) {
    s->apply = "purge";
  } else if (AtKw("UPGRADE")) {
    Next();
    SILT_RETURN_NOT_OK(ExpectKw("UNIFORM"));
    s->apply = "upgrade uniform";
    SILT_RETURN_NOT_OK(ExpectOp("("));
    int start = Peek().pos.offset;
    int depth = 1;
    while (Peek().kind != TokenKind::kEnd) {
      if (AtOp("(")) ++depth;
      if (AtOp(")") && --depth == 0) break;
      Next();
    }
    int end = Peek().pos.offset;
    SILT_RETURN_NOT_OK(ExpectOp(")"));
    std::string args(sql_.substr(start, end - start));
    while (!args.empty() && std::isspace(static_cast<unsigned char>(args.back()))) args.pop_back();
    s->apply_args = args;
  } else {
    return ErrorHere();
  }
  SILT_RETURN_NOT_OK(ExpectOp(")"));
  return StatementNode(std::move(s));
}

Result<StatementNode> Parser::Restore() {
  Next();
  AcceptKw("TABLE");
  auto s = std::make_unique<RestoreStatement>();
  SILT_ASSIGN_OR_RETURN(s->table, ParseTableName(false));
  AcceptKw("TO");
  SILT_ASSIGN_OR_RETURN(auto tt, TemporalClause());
  if (!tt) return ErrorHere();
  s->target = std::move(*tt);
  return StatementNode(std::move(s));
}

Result<StatementNode> Parser::Describe() {
  Next();
  if (AtKw("HISTORY") && (IsIdentToken(Peek(1)) || Peek(1).kind == TokenKind::kString)) {
    Next();
    auto s = std::make_unique<DescribeStatement>(StatementKind::kDescribeHistory);
    SILT_ASSIGN_OR_RETURN(s->table, ParseTableName(true));
    if (AcceptKw("LIMIT")) {
      SILT_ASSIGN_OR_RETURN(s->limit, Expression());
    }
    return StatementNode(std::move(s));
  }
  if (AtKw("DETAIL") && (IsIdentToken(Peek(1)) || Peek(1).kind == TokenKind::kString)) {
    Next();
    auto s = std::make_unique<DescribeStatement>(StatementKind::kDescribeDetail);
    SILT_ASSIGN_OR_RETURN(s->table, ParseTableName(true));
    return StatementNode(std::move(s));
  }
  if (AtKw("QUERY") && AtQueryStart(1)) {
    Next();
  }
  bool table_kw = AtKw("TABLE") && IsIdentToken(Peek(1));
  if (!table_kw && AtQueryStart()) {
    auto s = std::make_unique<DescribeStatement>(StatementKind::kDescribeTable);
    SILT_ASSIGN_OR_RETURN(s->query, Query());
    return StatementNode(std::move(s));
  }
  if ((AtKw("SCHEMA") || AtKw("DATABASE") || AtKw("FUNCTION") || AtKw("CATALOG")) &&
      IsIdentToken(Peek(1))) {
    return Status::NotImplemented("DESCRIBE " + AsciiUpper(Peek().text));
  }
  auto s = std::make_unique<DescribeStatement>(StatementKind::kDescribeTable);
  if (table_kw) Next();
  if ((AtKw("EXTENDED") || AtKw("FORMATTED")) && IsIdentToken(Peek(1))) {
    Next();
    s->extended = true;
  }
  SILT_ASSIGN_OR_RETURN(s->table, ParseTableName(false));
  SILT_ASSIGN_OR_RETURN(s->time_travel, TemporalClause());
  if (AtKw("PARTITION")) return Status::NotImplemented("DESCRIBE TABLE … PARTITION");
  if (IsIdentToken(Peek())) {
    SILT_ASSIGN_OR_RETURN(s->column, QualifiedName());
  }
  return StatementNode(std::move(s));
}

Result<StatementNode> Parser::Convert() {
  Next();
  SILT_RETURN_NOT_OK(ExpectKw("TO"));
  SILT_RETURN_NOT_OK(ExpectKw("DELTA"));
  auto s = std::make_unique<ConvertToDeltaStatement>();
  SILT_ASSIGN_OR_RETURN(s->table, ParseTableName(false));
  for (int round = 0; round < 2; ++round) {
    if (AtKw("NO") && AtKw("STATISTICS", 1)) {
      Next();
      Next();
      s->no_statistics = true;
    }
    if (AtKw("PARTITIONED") && AtKw("BY", 1)) {
      Next();
      Next();
      SILT_ASSIGN_OR_RETURN(s->partition_schema, ColumnDefList());
    }
  }
  return StatementNode(std::move(s));
}

}  // namespace silt::sql::internal
