// Queries: WITH, set operations, SELECT blocks, FROM/JOIN/LATERAL VIEW, VALUES, time travel.
#include <functional>

#include "common/error_classes.h"
#include "sql/parser_internal.h"

namespace silt::sql::internal {

// ---------------------------------------------------------------------------------------------
// Queries

Result<QueryNode> Parser::Query() {
  DepthGuard g(&depth_);
  SILT_RETURN_NOT_OK(CheckDepth());
  SourcePos pos = Peek().pos;
  std::vector<CommonTableExpr> ctes;
  bool recursive = false;
  if (AcceptKw("WITH")) {
    recursive = AcceptKw("RECURSIVE");
    do {
      CommonTableExpr cte;
      SILT_ASSIGN_OR_RETURN(cte.name, Identifier());
      if (AtOp("(") && !AtQueryStart()) {
        SILT_ASSIGN_OR_RETURN(cte.column_aliases, IdentifierList());
      }
      AcceptKw("AS");
      SILT_RETURN_NOT_OK(ExpectOp("("));
      SILT_ASSIGN_OR_RETURN(cte.query, Query());
      SILT_RETURN_NOT_OK(ExpectOp(")"));
      ctes.push_back(std::move(cte));
    } while (AcceptOp(","));
    // Spark's AstBuilder.withCTE: the names of one WITH must differ (compared as written).
    std::string dups;
    for (size_t i = 0; i < ctes.size(); ++i) {
      bool first = true, dup = false;
      for (size_t j = 0; j < ctes.size(); ++j) {
        if (j != i && ctes[j].name == ctes[i].name) {
          dup = true;
          first = first && j > i;
        }
      }
      if (dup && first) dups += (dups.empty() ? "`" : ", `") + ctes[i].name + "`";
    }
    if (!dups.empty()) {
      return ClassError(errc::kDuplicatedCteNames,
                        "CTE definition can't have duplicate names: " + dups + ".", pos);
    }
  }
  SILT_ASSIGN_OR_RETURN(auto q, QueryTerm(0));
  // ORDER BY / LIMIT / OFFSET apply to the whole term; wrap when the term already has its own.
  bool has_org = AtKw("ORDER") || AtKw("SORT") || AtKw("CLUSTER") || AtKw("DISTRIBUTE") ||
                 AtKw("LIMIT") || AtKw("OFFSET") || AtKw("WINDOW");
  auto wrap = [&](QueryNode inner) {
    auto w = std::make_unique<struct Query>();
    w->pos = inner->pos;
    SelectItem star;
    star.expr = NewExpr(ExprType::kStar, inner->pos);
    w->select.push_back(std::move(star));
    auto ref = std::make_unique<TableRef>();
    ref->kind = TableRef::Kind::kSubquery;
    ref->pos = inner->pos;
    ref->subquery = std::move(inner);
    w->from.push_back(std::move(ref));
    return w;
  };
  if (has_org && (!q->order_by.empty() || q->limit || q->offset || !q->ctes.empty())) {
    q = wrap(std::move(q));
  }
  if (has_org) SILT_RETURN_NOT_OK(QueryOrganization(q.get()));
  if (!ctes.empty()) {
    if (!q->ctes.empty()) q = wrap(std::move(q));
    q->ctes = std::move(ctes);
    q->recursive_cte = recursive;
  }
  q->pos = pos;
  return q;
}

Status Parser::QueryOrganization(struct Query* q) {
  if (AtKw("WINDOW") && q->set_op == SetOp::kNone && IsIdentToken(Peek(1))) {
    Next();
    do {
      SILT_ASSIGN_OR_RETURN(auto name, Identifier());
      SILT_RETURN_NOT_OK(ExpectKw("AS"));
      SILT_RETURN_NOT_OK(ExpectOp("("));
      SILT_ASSIGN_OR_RETURN(auto spec, WindowSpecBody());
      q->windows.emplace_back(std::move(name), std::move(spec));
    } while (AcceptOp(","));
  }
  for (const char* kw : {"ORDER", "CLUSTER", "DISTRIBUTE", "SORT"}) {
    if (AtKw(kw) && AtKw("BY", 1)) {
      Next();
      Next();
      if (std::string_view(kw) == "DISTRIBUTE" || std::string_view(kw) == "CLUSTER") {
        // Partitioning hints: silt runs in one process; CLUSTER BY also sorts.
        SILT_ASSIGN_OR_RETURN(auto exprs, ExpressionList());
        if (std::string_view(kw) == "CLUSTER") {
          for (auto& e : exprs) {
            OrderItem it;
            it.expr = std::move(e);
            q->order_by.push_back(std::move(it));
          }
        }
      } else {
        if (!q->order_by.empty()) return ErrorAt(t_[p_ - 2]);
        SILT_ASSIGN_OR_RETURN(q->order_by, SortList());
      }
    }
  }
  if (AtKw("WINDOW") && IsIdentToken(Peek(1))) {
    if (q->set_op != SetOp::kNone) return ErrorHere();
    Next();
    do {
      SILT_ASSIGN_OR_RETURN(auto name, Identifier());
      SILT_RETURN_NOT_OK(ExpectKw("AS"));
      SILT_RETURN_NOT_OK(ExpectOp("("));
      SILT_ASSIGN_OR_RETURN(auto spec, WindowSpecBody());
      q->windows.emplace_back(std::move(name), std::move(spec));
    } while (AcceptOp(","));
  }
  if (AcceptKw("LIMIT")) {
    if (AcceptKw("ALL")) {
      q->limit = nullptr;
    } else {
      SILT_ASSIGN_OR_RETURN(q->limit, Expression());
    }
  }
  if (AcceptKw("OFFSET")) {
    SILT_ASSIGN_OR_RETURN(q->offset, Expression());
  }
  return Status::OK();
}

Result<QueryNode> Parser::QueryTerm(int prec) {
  // prec 0: UNION / EXCEPT / MINUS; prec 1: INTERSECT (binds tighter).
  if (prec >= 2) return QueryPrimary();
  SILT_ASSIGN_OR_RETURN(auto left, QueryTerm(prec + 1));
  int chain = 0;
  while (true) {
    SetOp op;
    if (prec == 0 && AtKw("UNION")) {
      op = SetOp::kUnion;
    } else if (prec == 0 && (AtKw("EXCEPT") || AtKw("MINUS"))) {
      op = SetOp::kExcept;
    } else if (prec == 1 && AtKw("INTERSECT")) {
      op = SetOp::kIntersect;
    } else {
      break;
    }
    if (++chain > kMaxExprHeight) return ErrorHere("too many set operations");
    SourcePos pos = Next().pos;
    auto q = std::make_unique<struct Query>();
    q->pos = left->pos;
    (void)pos;
    q->set_op = op;
    if (AcceptKw("ALL")) {
      q->set_all = true;
    } else {
      AcceptKw("DISTINCT");
    }
    if (AtKw("BY") && AtKw("NAME", 1)) {
      Next();
      Next();
      q->by_name = true;
    }
    SILT_ASSIGN_OR_RETURN(auto right, QueryTerm(prec + 1));
    q->left = std::move(left);
    q->right = std::move(right);
    left = std::move(q);
  }
  return left;
}

Result<QueryNode> Parser::QueryPrimary() {
  SourcePos pos = Peek().pos;
  if (AtKw("SELECT")) return SelectBlock({});
  if (AtKw("VALUES")) return ValuesQuery();
  if (AtKw("TABLE")) {
    Next();
    auto q = std::make_unique<struct Query>();
    q->pos = pos;
    SelectItem star;
    star.expr = NewExpr(ExprType::kStar, pos);
    q->select.push_back(std::move(star));
    auto ref = std::make_unique<TableRef>();
    ref->kind = TableRef::Kind::kTable;
    ref->pos = Peek().pos;
    SILT_ASSIGN_OR_RETURN(ref->name, ParseTableName(false));
    q->from.push_back(std::move(ref));
    return q;
  }
  if (AtKw("FROM")) {
    // FROM t SELECT … (Hive-style).
    Next();
    SILT_ASSIGN_OR_RETURN(auto from, FromList());
    if (!AtKw("SELECT")) {
      // FROM t alone: SELECT *.
      auto q = std::make_unique<struct Query>();
      q->pos = pos;
      SelectItem star;
      star.expr = NewExpr(ExprType::kStar, pos);
      q->select.push_back(std::move(star));
      q->from = std::move(from);
      return q;
    }
    return SelectBlock(std::move(from));
  }
  if (AtOp("(")) {
    Next();
    DepthGuard g(&depth_);
    SILT_RETURN_NOT_OK(CheckDepth());
    SILT_ASSIGN_OR_RETURN(auto q, Query());
    SILT_RETURN_NOT_OK(ExpectOp(")"));
    return q;
  }
  return ErrorHere();
}

Result<std::vector<std::vector<ExprNode>>> Parser::ValuesRows() {
  // After VALUES: rows (a, b), (c, d) or bare expressions 1, 2 (one column each).
  std::vector<std::vector<ExprNode>> rows;
  do {
    std::vector<ExprNode> row;
    if (AtOp("(") && !AtQueryStart()) {
      Next();
      DepthGuard g(&depth_);
      SILT_RETURN_NOT_OK(CheckDepth());
      SILT_ASSIGN_OR_RETURN(row, ExpressionList());
      SILT_RETURN_NOT_OK(ExpectOp(")"));
    } else {
      SILT_ASSIGN_OR_RETURN(auto e, Expression());
      row.push_back(std::move(e));
    }
    rows.push_back(std::move(row));
  } while (AcceptOp(","));
  return rows;
}

Result<QueryNode> Parser::ValuesQuery() {
  SourcePos pos = Next().pos;  // VALUES
  auto ref = std::make_unique<TableRef>();
  ref->kind = TableRef::Kind::kValues;
  ref->pos = pos;
  SILT_ASSIGN_OR_RETURN(ref->values, ValuesRows());
  SILT_RETURN_NOT_OK(TableAlias(ref.get()));
  auto q = std::make_unique<struct Query>();
  q->pos = pos;
  SelectItem star;
  star.expr = NewExpr(ExprType::kStar, pos);
  q->select.push_back(std::move(star));
  q->from.push_back(std::move(ref));
  return q;
}

Result<QueryNode> Parser::SelectBlock(std::vector<TableRefNode> from_first) {
  auto q = std::make_unique<struct Query>();
  q->pos = Peek().pos;
  SILT_RETURN_NOT_OK(ExpectKw("SELECT"));
  if (AcceptKw("DISTINCT")) {
    q->distinct = true;
  } else if (AtKw("ALL") && !AtOp(",", 1) && !AtKw("FROM", 1) && !AtEndAfter(1)) {
    Next();
  }
  do {
    SelectItem item;
    SILT_ASSIGN_OR_RETURN(item.expr, Expression());
    if (AcceptKw("AS")) {
      if (AcceptOp("(")) {
        do {
          SILT_ASSIGN_OR_RETURN(std::string a, Identifier());
          item.aliases.push_back(std::move(a));
        } while (AcceptOp(","));
        SILT_RETURN_NOT_OK(ExpectOp(")"));
        q->select.push_back(std::move(item));
        continue;
      }
      SILT_ASSIGN_OR_RETURN(item.alias, Identifier());
    } else if (AtBareAlias() && item.expr->type != ExprType::kStar) {
      last_bare_alias_ = p_;
      item.alias = Next().text;
    }
    q->select.push_back(std::move(item));
  } while (AcceptOp(","));
  if (!from_first.empty()) {
    q->from = std::move(from_first);
  } else if (AcceptKw("FROM")) {
    SILT_ASSIGN_OR_RETURN(q->from, FromList());
  }
  while (AtKw("LATERAL") && AtKw("VIEW", 1)) {
    LateralView lv;
    lv.pos = Next().pos;
    Next();
    lv.outer = AcceptKw("OUTER");
    if (Peek().kind != TokenKind::kWord || !AtOp("(", 1))
      return ErrorHere("LATERAL VIEW expects a generator function call");
    SILT_ASSIGN_OR_RETURN(lv.generator, PrimaryExpr());
    if (lv.generator->type != ExprType::kFunction)
      return ErrorHere("LATERAL VIEW expects a generator function call");
    SILT_ASSIGN_OR_RETURN(lv.table_alias, Identifier());
    if (AcceptKw("AS") || AtBareAlias()) {
      do {
        SILT_ASSIGN_OR_RETURN(std::string c, Identifier());
        lv.column_aliases.push_back(std::move(c));
      } while (AcceptOp(","));
    }
    q->lateral_views.push_back(std::move(lv));
  }
  if (AtKw("PIVOT") && AtOp("(", 1) && !q->from.empty()) {
    SILT_RETURN_NOT_OK(PivotClause(q.get()));
    // The pivoted relation may be joined further (`PIVOT (…) p JOIN t ON …`).
    SILT_ASSIGN_OR_RETURN(q->from[0], JoinChain(std::move(q->from[0])));
  }
  if (AcceptKw("WHERE")) {
    SILT_ASSIGN_OR_RETURN(q->where, Expression());
  }
  if (AtKw("GROUP") && AtKw("BY", 1)) {
    Next();
    Next();
    if (AtKw("ALL") && !AtOp("(", 1) && !AtOp(",", 1)) {
      Next();
      q->group_by_all = true;
    } else if (((AtKw("ROLLUP") || AtKw("CUBE")) && AtOp("(", 1)) ||
               (AtKw("GROUPING") && AtKw("SETS", 1)) || GroupByHasAnalytics()) {
      SILT_RETURN_NOT_OK(GroupingAnalytics(q.get()));
    } else {
      SILT_ASSIGN_OR_RETURN(q->group_by, ExpressionList());
      if (AtKw("WITH") && (AtKw("ROLLUP", 1) || AtKw("CUBE", 1))) {
        Next();
        q->grouping = Next().Is("ROLLUP") ? GroupingKind::kRollup : GroupingKind::kCube;
      } else if (AtKw("GROUPING") && AtKw("SETS", 1)) {
        // GROUP BY a, b GROUPING SETS ((a), (b))
        // (the listed expressions stay the grouping columns: grouping__id's bits, and a column
        // in no set is NULL)
        q->grouping = GroupingKind::kGroupingSets;
        SILT_ASSIGN_OR_RETURN(q->grouping_sets, GroupingSetsClause());
      }
    }
  }
  if (AcceptKw("HAVING")) {
    SILT_ASSIGN_OR_RETURN(q->having, Expression());
  }
  for (int round = 0; round < 2; ++round) {
    if (AtKw("WINDOW") && IsIdentToken(Peek(1)) && q->windows.empty()) {
      Next();
      do {
        SILT_ASSIGN_OR_RETURN(auto name, Identifier());
        SILT_RETURN_NOT_OK(ExpectKw("AS"));
        SILT_RETURN_NOT_OK(ExpectOp("("));
        SILT_ASSIGN_OR_RETURN(auto spec, WindowSpecBody());
        q->windows.emplace_back(std::move(name), std::move(spec));
      } while (AcceptOp(","));
    }
    if (!q->qualify && AcceptKw("QUALIFY")) {
      SILT_ASSIGN_OR_RETURN(q->qualify, Expression());
    }
  }
  return q;
}

Result<std::vector<TableRefNode>> Parser::FromList() {
  std::vector<TableRefNode> out;
  do {
    SILT_ASSIGN_OR_RETURN(auto r, Relation());
    out.push_back(std::move(r));
  } while (AcceptOp(","));
  return out;
}

Result<TableRefNode> Parser::Relation() {
  bool lateral = AcceptKw("LATERAL");
  SILT_ASSIGN_OR_RETURN(auto left, RelationPrimary());
  if (lateral) {
    if (left->kind != TableRef::Kind::kSubquery) return ErrorHere();
    left->lateral = true;
  }
  return JoinChain(std::move(left));
}

Result<TableRefNode> Parser::JoinChain(TableRefNode left) {
  int chain = 0;
  while (true) {
    SourcePos pos = Peek().pos;
    bool natural = false;
    size_t save = p_;
    if (AcceptKw("NATURAL")) natural = true;
    JoinType jt = JoinType::kInner;
    bool is_join = false;
    if (AcceptKw("JOIN")) {
      is_join = true;
    } else if (AtKw("INNER") && AtKw("JOIN", 1)) {
      Next();
      Next();
      is_join = true;
    } else if (AtKw("CROSS") && AtKw("JOIN", 1)) {
      Next();
      Next();
      jt = JoinType::kCross;
      is_join = true;
    } else if (AtKw("LEFT") || AtKw("RIGHT") || AtKw("FULL") || AtKw("SEMI") || AtKw("ANTI")) {
      std::string w = AsciiUpper(Next().text);
      if (w == "LEFT" && (AtKw("SEMI") || AtKw("ANTI"))) w = AsciiUpper(Next().text);
      if (w == "LEFT" || w == "RIGHT" || w == "FULL") AcceptKw("OUTER");
      if (!AtKw("JOIN")) return ErrorHere();
      Next();
      jt = w == "LEFT"    ? JoinType::kLeft
           : w == "RIGHT" ? JoinType::kRight
           : w == "FULL"  ? JoinType::kFull
           : w == "SEMI"  ? JoinType::kLeftSemi
                          : JoinType::kLeftAnti;
      is_join = true;
    }
    if (!is_join) {
      if (natural) p_ = save;
      if (natural) return ErrorHere();
      break;
    }
    if (++chain > kMaxExprHeight) return ErrorHere("too many joins");
    bool rlateral = AcceptKw("LATERAL");
    SILT_ASSIGN_OR_RETURN(auto right, RelationPrimary());
    if (rlateral) {
      if (right->kind != TableRef::Kind::kSubquery) return ErrorHere();
      right->lateral = true;
    }
    auto j = std::make_unique<TableRef>();
    j->kind = TableRef::Kind::kJoin;
    j->pos = left->pos;
    (void)pos;
    j->join_type = jt;
    j->natural = natural;
    if (!natural) {
      if (AcceptKw("ON")) {
        SILT_ASSIGN_OR_RETURN(j->join_condition, Expression());
      } else if (AtKw("USING")) {
        Next();
        SILT_ASSIGN_OR_RETURN(j->using_columns, IdentifierList());
      }
    }
    j->left = std::move(left);
    j->right = std::move(right);
    left = std::move(j);
  }
  return left;
}

Result<std::optional<TimeTravel>> Parser::TemporalClause() {
  size_t save = p_;
  bool had_for = AcceptKw("FOR");
  if ((AtKw("VERSION") || AtKw("SYSTEM_VERSION")) && AtKw("AS", 1) && AtKw("OF", 2)) {
    Next();
    Next();
    Next();
    TimeTravel tt;
    const Token& v = Peek();
    std::string text;
    if (v.kind == TokenKind::kNumber || v.kind == TokenKind::kString) {
      text = Next().text;
    } else {
      return ErrorHere();
    }
    int64_t ver = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), ver);
    if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) {
      return ClassError(errc::kDeltaVersionInvalid,
                        "The provided version (" + text + ") is not a valid version", v.pos);
    }
    tt.version = ver;
    return std::optional<TimeTravel>(std::move(tt));
  }
  if ((AtKw("TIMESTAMP") || AtKw("SYSTEM_TIME")) && AtKw("AS", 1) && AtKw("OF", 2)) {
    Next();
    Next();
    Next();
    TimeTravel tt;
    SILT_ASSIGN_OR_RETURN(tt.timestamp, ValueExpr(0));
    return std::optional<TimeTravel>(std::move(tt));
  }
  if (had_for) p_ = save;
  return std::optional<TimeTravel>();
}

Status Parser::TableAlias(TableRef* r) {
  if (AcceptKw("AS")) {
    SILT_ASSIGN_OR_RETURN(r->alias, Identifier());
  } else if (AtBareAlias()) {
    r->alias = Next().text;
  } else {
    return Status::OK();
  }
  if (AtOp("(") && IsIdentToken(Peek(1))) {
    SILT_ASSIGN_OR_RETURN(r->column_aliases, IdentifierList());
  }
  return Status::OK();
}

Result<TableRefNode> Parser::RelationPrimary() {
  auto r = std::make_unique<TableRef>();
  r->pos = Peek().pos;
  if (AtKw("VALUES")) {
    Next();
    r->kind = TableRef::Kind::kValues;
    SILT_ASSIGN_OR_RETURN(r->values, ValuesRows());
    SILT_RETURN_NOT_OK(TableAlias(r.get()));
    return r;
  }
  if (AtOp("(")) {
    DepthGuard g(&depth_);
    SILT_RETURN_NOT_OK(CheckDepth());
    Next();
    if (AtQueryStart()) {
      r->kind = TableRef::Kind::kSubquery;
      SILT_ASSIGN_OR_RETURN(r->subquery, Query());
      SILT_RETURN_NOT_OK(ExpectOp(")"));
      SILT_RETURN_NOT_OK(TableAlias(r.get()));
      return r;
    }
    // Parenthesised relation (a JOIN b).
    SILT_ASSIGN_OR_RETURN(auto inner, Relation());
    SILT_RETURN_NOT_OK(ExpectOp(")"));
    if (!inner->alias.empty() || AtKw("AS") || AtBareAlias()) {
      if (!inner->alias.empty()) return ErrorHere();
      SILT_RETURN_NOT_OK(TableAlias(inner.get()));
    }
    return inner;
  }
  SILT_ASSIGN_OR_RETURN(bool stream, StreamRelation(r.get()));
  if (stream) {
    SILT_RETURN_NOT_OK(TableAlias(r.get()));
    return r;
  }
  // Table-valued function: name(args).
  if (IsIdentToken(Peek()) && AtOp("(", 1)) {
    r->kind = TableRef::Kind::kFunction;
    r->function_name = Next().text;
    Next();
    DepthGuard g(&depth_);
    SILT_RETURN_NOT_OK(CheckDepth());
    if (!AtOp(")")) {
      SILT_ASSIGN_OR_RETURN(r->function_args, ExpressionList());
    }
    SILT_RETURN_NOT_OK(ExpectOp(")"));
    SILT_RETURN_NOT_OK(TableAlias(r.get()));
    return r;
  }
  r->kind = TableRef::Kind::kTable;
  SILT_ASSIGN_OR_RETURN(r->name, ParseTableName(false));
  // t@v123 / t@yyyyMMddHHmmssSSS (Delta).
  if (AtOp("@")) {
    Next();
    TimeTravel tt;
    const Token& v = Peek();
    if (v.kind == TokenKind::kWord && (v.text[0] == 'v' || v.text[0] == 'V') && v.text.size() > 1 &&
        std::all_of(v.text.begin() + 1, v.text.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      int64_t ver = 0;
      auto [ptr, ec] = std::from_chars(v.text.data() + 1, v.text.data() + v.text.size(), ver);
      if (ec != std::errc()) return ErrorAt(v);
      (void)ptr;
      tt.version = ver;
      Next();
    } else if (v.kind == TokenKind::kNumber && v.text.size() == 17 &&
               std::all_of(v.text.begin(), v.text.end(),
                           [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      tt.timestamp_text = v.text;
      // yyyyMMddHHmmssSSS → a timestamp literal.
      std::string s = v.text;
      std::string iso = s.substr(0, 4) + "-" + s.substr(4, 2) + "-" + s.substr(6, 2) + " " +
                        s.substr(8, 2) + ":" + s.substr(10, 2) + ":" + s.substr(12, 2) + "." +
                        s.substr(14, 3);
      bool hz;
      auto ts = ParseSparkTimestamp(iso, &hz);
      if (!ts) {
        return ClassError(
            errc::kDeltaTimestampInvalid,
            "The provided timestamp (" + v.text + ") cannot be converted to a valid timestamp",
            v.pos);
      }
      auto lit = NewExpr(ExprType::kLiteral, v.pos);
      lit->literal = Value::Integer(DataType::Timestamp(), *ts);
      tt.timestamp = std::move(lit);
      Next();
    } else {
      return ErrorHere();
    }
    r->time_travel = std::move(tt);
  } else {
    SILT_ASSIGN_OR_RETURN(r->time_travel, TemporalClause());
  }
  if (AtKw("TABLESAMPLE")) return Status::NotImplemented("TABLESAMPLE");
  SILT_RETURN_NOT_OK(TableAlias(r.get()));
  return r;
}

// ---------------------------------------------------------------------------------------------
// GROUP BY with ROLLUP / CUBE / GROUPING SETS items (Spark's GroupingAnalytics)

// Whether the GROUP BY item list starting here has a ROLLUP(, CUBE( or GROUPING SETS item after a
// plain item (`GROUP BY a, ROLLUP(b, c)`), scanning at parenthesis depth 0 to the clause's end.
bool Parser::GroupByHasAnalytics() const {
  int depth = 0;
  for (size_t k = 0;; ++k) {
    const Token& t = Peek(k);
    if (t.kind == TokenKind::kEnd) return false;
    if (t.IsOp("(")) {
      ++depth;
    } else if (t.IsOp(")")) {
      if (--depth < 0) return false;
    } else if (depth == 0) {
      if (t.IsOp(";")) return false;
      if (t.IsOp(",")) {
        if (((Peek(k + 1).Is("ROLLUP") || Peek(k + 1).Is("CUBE")) && Peek(k + 2).IsOp("(")) ||
            (Peek(k + 1).Is("GROUPING") && Peek(k + 2).Is("SETS")))
          return true;
      } else if (t.kind != TokenKind::kOp && k > 0 &&
                 (t.Is("HAVING") || t.Is("ORDER") || t.Is("LIMIT") || t.Is("WINDOW") ||
                  t.Is("QUALIFY") || t.Is("UNION") || t.Is("EXCEPT") || t.Is("INTERSECT") ||
                  t.Is("MINUS") || t.Is("SORT") || t.Is("CLUSTER") || t.Is("DISTRIBUTE") ||
                  t.Is("WITH") || t.Is("OFFSET"))) {
        return false;
      }
    }
  }
}

// GROUP BY item, item, … where an item is an expression, ROLLUP(e, …), CUBE(e, …) or
// GROUPING SETS(…) (whose elements may be tuples, expressions, or ROLLUP/CUBE/GROUPING SETS
// again). The grouping sets are the cartesian product of the items' sets (`a, ROLLUP(b, c)` =
// (a, b, c), (a, b), (a)); the grouping columns are the distinct expressions in order of
// appearance. Sets are built as token positions and each expression is parsed again from its
// position, so every set holds its own copy.
Status Parser::GroupingAnalytics(silt::sql::Query* q) {
  using Set = std::vector<size_t>;  // token positions of the set's expressions
  using Sets = std::vector<Set>;
  std::vector<size_t> all;  // every expression position, in order of appearance
  auto expr_at_here = [&]() -> Result<size_t> {
    size_t at = p_;
    SILT_ASSIGN_OR_RETURN(auto e, Expression());
    (void)e;
    all.push_back(at);
    return at;
  };
  // ( e, … ) or () as one set; a parenthesised expression that goes on (`(a + b) * 2`) is one
  // expression.
  auto tuple = [&]() -> Result<Set> {
    size_t start = p_;
    Next();  // (
    Set set;
    size_t mark = all.size();
    if (!AtOp(")")) {
      do {
        SILT_ASSIGN_OR_RETURN(size_t at, expr_at_here());
        set.push_back(at);
      } while (AcceptOp(","));
    }
    SILT_RETURN_NOT_OK(ExpectOp(")"));
    if (AtOp(",") || AtOp(")") || AtEnd() || (Peek().kind != TokenKind::kOp)) return set;
    p_ = start;
    all.resize(mark);
    SILT_ASSIGN_OR_RETURN(size_t at, expr_at_here());
    return Set{at};
  };
  std::function<Result<Sets>()> item = [&]() -> Result<Sets> {
    if ((AtKw("ROLLUP") || AtKw("CUBE")) && AtOp("(", 1)) {
      const bool rollup = Next().Is("ROLLUP");
      Next();  // (
      std::vector<Set> elems;
      do {
        if (AtOp("(")) {
          SILT_ASSIGN_OR_RETURN(Set t, tuple());
          if (t.empty()) {
            return Status::InvalidArgument(std::string("Empty set in ") +
                                               (rollup ? "ROLLUP" : "CUBE") +
                                               " grouping sets is not supported.",
                                           errc::kLegacyErrorTemp0051);
          }
          elems.push_back(std::move(t));
        } else {
          SILT_ASSIGN_OR_RETURN(size_t at, expr_at_here());
          elems.push_back(Set{at});
        }
      } while (AcceptOp(","));
      SILT_RETURN_NOT_OK(ExpectOp(")"));
      Sets out;
      if (rollup) {
        for (size_t n = elems.size() + 1; n-- > 0;) {
          Set set;
          for (size_t k = 0; k < n; ++k) set.insert(set.end(), elems[k].begin(), elems[k].end());
          out.push_back(std::move(set));
        }
      } else {
        // Spark's order: cube(x :: xs) = cube(xs).map(x ++ _) ++ cube(xs).
        out.push_back(Set{});
        for (size_t k = elems.size(); k-- > 0;) {
          Sets with;
          for (const Set& rest : out) {
            Set set = elems[k];
            set.insert(set.end(), rest.begin(), rest.end());
            with.push_back(std::move(set));
          }
          with.insert(with.end(), out.begin(), out.end());
          out = std::move(with);
        }
      }
      return out;
    }
    if (AtKw("GROUPING") && AtKw("SETS", 1)) {
      Next();
      Next();
      SILT_RETURN_NOT_OK(ExpectOp("("));
      Sets out;
      do {
        if (AtOp("(")) {
          SILT_ASSIGN_OR_RETURN(Set t, tuple());
          out.push_back(std::move(t));
        } else if (((AtKw("ROLLUP") || AtKw("CUBE")) && AtOp("(", 1)) ||
                   (AtKw("GROUPING") && AtKw("SETS", 1))) {
          SILT_ASSIGN_OR_RETURN(Sets inner, item());
          out.insert(out.end(), inner.begin(), inner.end());
        } else {
          SILT_ASSIGN_OR_RETURN(size_t at, expr_at_here());
          out.push_back(Set{at});
        }
      } while (AcceptOp(","));
      SILT_RETURN_NOT_OK(ExpectOp(")"));
      return out;
    }
    SILT_ASSIGN_OR_RETURN(size_t at, expr_at_here());
    return Sets{Set{at}};
  };
  Sets product{Set{}};
  do {
    SILT_ASSIGN_OR_RETURN(Sets sets, item());
    Sets next;
    for (const Set& a : product) {
      for (const Set& b : sets) {
        Set set = a;
        set.insert(set.end(), b.begin(), b.end());
        next.push_back(std::move(set));
      }
    }
    product = std::move(next);
  } while (AcceptOp(","));
  const size_t end = p_;
  auto parse_at = [&](size_t at) -> Result<ExprNode> {
    p_ = at;
    return Expression();
  };
  std::vector<std::string> texts;
  for (size_t at : all) {
    SILT_ASSIGN_OR_RETURN(ExprNode e, parse_at(at));
    std::string text = e->ToString();
    if (std::find(texts.begin(), texts.end(), text) != texts.end()) continue;
    texts.push_back(std::move(text));
    q->group_by.push_back(std::move(e));
  }
  for (const Set& set : product) {
    std::vector<ExprNode> exprs;
    for (size_t at : set) {
      SILT_ASSIGN_OR_RETURN(ExprNode e, parse_at(at));
      exprs.push_back(std::move(e));
    }
    q->grouping_sets.push_back(std::move(exprs));
  }
  p_ = end;
  q->grouping = GroupingKind::kGroupingSets;
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// PIVOT

namespace {

void CollectColumnNames(const ParsedExpr& e, std::vector<std::string>* out) {
  if (e.type == ExprType::kColumnRef && !e.names.empty()) out->push_back(e.names.back());
  for (const auto& c : e.children) CollectColumnNames(*c, out);
  if (e.filter) CollectColumnNames(*e.filter, out);
}

ExprNode Binary(std::string op, ExprNode a, ExprNode b) {
  auto e = NewExpr(ExprType::kBinary, a->pos);
  e->op = std::move(op);
  e->height = 1 + std::max(a->height, b->height);
  e->children.push_back(std::move(a));
  e->children.push_back(std::move(b));
  return e;
}

}  // namespace

// FROM … PIVOT (agg [AS a], … FOR col IN (v [AS n], …)) (also FOR (c1, c2) IN ((v1, v2) …)), as
// Spark's Pivot: the FROM becomes
//   (SELECT * EXCEPT (columns the aggregates and the pivot read),
//           __pivot_agg(agg, __pivot_match(col, v)) AS `n[_a]`, … FROM … GROUP BY ALL)
// so the other columns group the rows; a column is named after the value (its alias, or the
// value as a string), with `_` and the aggregate's alias or text when there are several. The
// binder gives every aggregate call in agg the FILTER (WHERE col <=> v) and makes Spark's checks,
// which need resolution (an aggregate in agg, a comparable column, constant values).
// The expressions are parsed again from their token positions for each copy.
Status Parser::PivotClause(silt::sql::Query* q) {
  const SourcePos pos = Peek().pos;
  Next();  // PIVOT
  Next();  // (
  struct Agg {
    size_t at;
    std::string alias, text;
  };
  std::vector<Agg> aggs;
  std::vector<std::string> read;
  do {
    const size_t at = p_;
    SILT_ASSIGN_OR_RETURN(ExprNode e, Expression());
    CollectColumnNames(*e, &read);
    Agg a{at, "", e->ToString()};
    if (AcceptKw("AS")) {
      SILT_ASSIGN_OR_RETURN(a.alias, Identifier());
    } else if (IsIdentToken(Peek()) && !AtKw("FOR")) {
      a.alias = Next().text;
    }
    aggs.push_back(std::move(a));
  } while (AcceptOp(","));
  SILT_RETURN_NOT_OK(ExpectKw("FOR"));
  std::vector<size_t> columns;
  auto pivot_column = [&]() -> Status {
    columns.push_back(p_);
    SILT_ASSIGN_OR_RETURN(ExprNode c, PrimaryExpr());  // a column: `col IN (…)` follows
    CollectColumnNames(*c, &read);
    return Status::OK();
  };
  if (AcceptOp("(")) {
    do {
      SILT_RETURN_NOT_OK(pivot_column());
    } while (AcceptOp(","));
    SILT_RETURN_NOT_OK(ExpectOp(")"));
  } else {
    SILT_RETURN_NOT_OK(pivot_column());
  }
  SILT_RETURN_NOT_OK(ExpectKw("IN"));
  SILT_RETURN_NOT_OK(ExpectOp("("));
  struct Val {
    std::vector<size_t> at;
    std::string name;
  };
  std::vector<Val> values;
  do {
    Val v;
    std::vector<std::string> texts;
    auto one = [&]() -> Status {
      v.at.push_back(p_);
      SILT_ASSIGN_OR_RETURN(ExprNode e, Expression());
      const bool str = e->type == ExprType::kLiteral && !e->literal.is_null() &&
                       e->literal.type()->id() == TypeId::kString;
      texts.push_back(
          str ? std::string(e->literal.str())
              : (e->type == ExprType::kLiteral && e->literal.is_null() ? "null" : e->ToString()));
      return Status::OK();
    };
    if (columns.size() > 1 && !AtOp("(") &&
        (Peek().kind == TokenKind::kString || Peek().kind == TokenKind::kNumber)) {
      // A single literal for several pivot columns (a struct): Spark's
      // PIVOT_VALUE_DATA_TYPE_MISMATCH.
      return ClassError(errc::kPivotValueDataTypeMismatch,
                        "Invalid pivot value '" + Peek().text +
                            "': the value is a single literal but the pivot column is a struct "
                            "of " +
                            std::to_string(columns.size()) + " columns.",
                        Peek().pos);
    }
    if (columns.size() > 1) {
      SILT_RETURN_NOT_OK(ExpectOp("("));
      do {
        SILT_RETURN_NOT_OK(one());
      } while (AcceptOp(","));
      SILT_RETURN_NOT_OK(ExpectOp(")"));
    } else {
      SILT_RETURN_NOT_OK(one());
    }
    if (v.at.size() != columns.size()) {
      return Status::InvalidArgument("The pivot value does not have one value per pivot column.",
                                     errc::kInvalidSqlSyntax);
    }
    if (AcceptKw("AS")) {
      SILT_ASSIGN_OR_RETURN(v.name, Identifier());
    } else if (IsIdentToken(Peek())) {
      v.name = Next().text;
    } else if (texts.size() == 1) {
      v.name = texts[0];
    } else {
      v.name = "{";
      for (size_t i = 0; i < texts.size(); ++i) v.name += (i ? ", " : "") + texts[i];
      v.name += "}";
    }
    values.push_back(std::move(v));
  } while (AcceptOp(","));
  SILT_RETURN_NOT_OK(ExpectOp(")"));
  SILT_RETURN_NOT_OK(ExpectOp(")"));
  const size_t end = p_;
  auto parse_at = [&](size_t at) -> Result<ExprNode> {
    p_ = at;
    return Expression();
  };
  auto inner = std::make_unique<struct Query>();
  inner->pos = pos;
  inner->from = std::move(q->from);
  inner->lateral_views = std::move(q->lateral_views);
  SelectItem star;
  star.expr = NewExpr(ExprType::kStar, pos);
  star.expr->except_columns = read;
  inner->select.push_back(std::move(star));
  for (const Val& v : values) {
    for (const Agg& a : aggs) {
      SILT_ASSIGN_OR_RETURN(ExprNode agg, parse_at(a.at));
      ExprNode cond;
      for (size_t k = 0; k < columns.size(); ++k) {
        p_ = columns[k];
        SILT_ASSIGN_OR_RETURN(ExprNode c, PrimaryExpr());
        SILT_ASSIGN_OR_RETURN(ExprNode x, parse_at(v.at[k]));
        ExprNode eq = NewExpr(ExprType::kFunction, c->pos);
        eq->names = {"__pivot_match"};  // <=>, refusing an incomparable column
        eq->height = 1 + std::max(c->height, x->height);
        eq->children.push_back(std::move(c));
        eq->children.push_back(std::move(x));
        cond = cond ? Binary("and", std::move(cond), std::move(eq)) : std::move(eq);
      }
      // __pivot_agg(agg, cond): the binder adds cond to the FILTER of every aggregate call in agg
      // (and refuses an agg without one, as Spark).
      ExprNode call = NewExpr(ExprType::kFunction, agg->pos);
      call->names = {"__pivot_agg"};
      call->height = 1 + std::max(agg->height, cond->height);
      call->children.push_back(std::move(agg));
      call->children.push_back(std::move(cond));
      SelectItem item;
      item.expr = std::move(call);
      item.alias = aggs.size() == 1 ? v.name : v.name + "_" + (a.alias.empty() ? a.text : a.alias);
      inner->select.push_back(std::move(item));
    }
  }
  inner->group_by_all = true;
  p_ = end;
  auto ref = std::make_unique<TableRef>();
  ref->kind = TableRef::Kind::kSubquery;
  ref->pos = pos;
  ref->subquery = std::move(inner);
  SILT_RETURN_NOT_OK(TableAlias(ref.get()));  // PIVOT (…) AS p
  q->from.clear();
  q->from.push_back(std::move(ref));
  return Status::OK();
}

}  // namespace silt::sql::internal
