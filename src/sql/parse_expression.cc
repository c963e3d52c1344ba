// Expressions: boolean/predicate/arithmetic precedence, postfix, primaries, function calls, CASE,
// windows.
#include <algorithm>
#include <iterator>

#include "common/error_classes.h"
#include "sql/parser_internal.h"

namespace silt::sql::internal {

// ---------------------------------------------------------------------------------------------
// Expressions

Result<ExprNode> Parser::Expression() {
  DepthGuard g(&depth_);
  SILT_RETURN_NOT_OK(CheckDepth());
  return BooleanExpr(0);
}

Result<ExprNode> Parser::BooleanExpr(int prec) {
  if (prec >= 2) return NotExpr();
  SILT_ASSIGN_OR_RETURN(auto left, BooleanExpr(prec + 1));
  const char* kw = prec == 0 ? "OR" : "AND";
  while (AtKw(kw)) {
    SourcePos pos = Next().pos;
    SILT_ASSIGN_OR_RETURN(auto right, BooleanExpr(prec + 1));
    auto e = NewExpr(ExprType::kBinary, pos);
    e->op = prec == 0 ? "or" : "and";
    e->pos = left->pos;
    e->children.push_back(std::move(left));
    e->children.push_back(std::move(right));
    SILT_ASSIGN_OR_RETURN(left, Finish(std::move(e)));
  }
  return left;
}

Result<ExprNode> Parser::NotExpr() {
  if (AtKw("NOT") || AtOp("!")) {
    SourcePos pos = Next().pos;
    DepthGuard g(&depth_);
    SILT_RETURN_NOT_OK(CheckDepth());
    bool exists_next = AtKw("EXISTS") && AtOp("(", 1);
    SILT_ASSIGN_OR_RETURN(auto inner, NotExpr());
    if (exists_next && inner->type == ExprType::kExists && !inner->negated) {
      inner->negated = true;  // NOT EXISTS (…)
      return inner;
    }
    auto e = NewExpr(ExprType::kUnary, pos);
    e->op = "not";
    e->children.push_back(std::move(inner));
    return Finish(std::move(e));
  }
  return Predicated();
}

Result<ExprNode> Parser::Predicated() {
  SourcePos start = Peek().pos;
  SILT_ASSIGN_OR_RETURN(auto e, ValueExpr(0));
  // One optional predicate (Spark's `valueExpression predicate?`).
  bool negated = false;
  size_t save = p_;
  if (AtKw("NOT") && (AtKw("BETWEEN", 1) || AtKw("IN", 1) || AtKw("LIKE", 1) || AtKw("ILIKE", 1) ||
                      AtKw("RLIKE", 1) || AtKw("REGEXP", 1))) {
    Next();
    negated = true;
  }
  const Token& t = Peek();
  if (t.Is("BETWEEN")) {
    Next();
    auto b = NewExpr(ExprType::kBetween, start);
    b->negated = negated;
    b->children.push_back(std::move(e));
    SILT_ASSIGN_OR_RETURN(auto lo, ValueExpr(0));
    SILT_RETURN_NOT_OK(ExpectKw("AND"));
    SILT_ASSIGN_OR_RETURN(auto hi, ValueExpr(0));
    b->children.push_back(std::move(lo));
    b->children.push_back(std::move(hi));
    return Finish(std::move(b));
  }
  if (t.Is("IN")) {
    Next();
    SILT_RETURN_NOT_OK(ExpectOp("("));
    DepthGuard g(&depth_);
    SILT_RETURN_NOT_OK(CheckDepth());
    if (AtQueryStart()) {
      auto q = NewExpr(ExprType::kInSubquery, start);
      q->negated = negated;
      q->children.push_back(std::move(e));
      SILT_ASSIGN_OR_RETURN(q->subquery, Query());
      SILT_RETURN_NOT_OK(ExpectOp(")"));
      return Finish(std::move(q));
    }
    auto in = NewExpr(ExprType::kInList, start);
    in->negated = negated;
    in->children.push_back(std::move(e));
    do {
      SILT_ASSIGN_OR_RETURN(auto item, Expression());
      in->children.push_back(std::move(item));
    } while (AcceptOp(","));
    SILT_RETURN_NOT_OK(ExpectOp(")"));
    return Finish(std::move(in));
  }
  if (t.Is("LIKE") || t.Is("ILIKE") || t.Is("RLIKE") || t.Is("REGEXP")) {
    const SourcePos like_pos = t.pos;
    std::string kind = AsciiLower(Next().text);
    if (kind == "regexp") kind = "rlike";
    auto l = NewExpr(ExprType::kLike, start);
    l->op = kind;
    l->negated = negated;
    l->children.push_back(std::move(e));
    if (kind != "rlike" && (AtKw("ANY") || AtKw("SOME") || AtKw("ALL")) && AtOp("(", 1)) {
      l->quantifier = AtKw("ALL") ? "all" : "any";
      Next();
      Next();
      if (AtOp(")")) {
        // LIKE ALL () / LIKE ANY (): Spark's parse error.
        return ClassError(errc::kInvalidSqlSyntaxEmptyQuantifiedPattern,
                          "Invalid SQL syntax: Expected something between '(' and ')'", like_pos);
      }
      do {
        SILT_ASSIGN_OR_RETURN(auto pat, Expression());
        l->children.push_back(std::move(pat));
      } while (AcceptOp(","));
      SILT_RETURN_NOT_OK(ExpectOp(")"));
      return Finish(std::move(l));
    }
    SILT_ASSIGN_OR_RETURN(auto pat, ValueExpr(0));
    l->children.push_back(std::move(pat));
    if (kind != "rlike" && AtKw("ESCAPE")) {
      SourcePos epos = Next().pos;
      SILT_ASSIGN_OR_RETURN(auto esc, StringLit());
      if (esc.size() != 1) {
        return ClassError(
            errc::kInvalidEscapeChar,
            "The escape character must be a string literal of length one, got '" + esc + "'", epos);
      }
      auto lit = NewExpr(ExprType::kLiteral, epos);
      lit->literal = Value::String(esc);
      l->children.push_back(std::move(lit));
    }
    return Finish(std::move(l));
  }
  if (negated) {
    p_ = save;
    return e;
  }
  if (t.Is("IS")) {
    Next();
    bool neg = AcceptKw("NOT");
    if (AcceptKw("NULL") || AcceptKw("UNKNOWN")) {
      auto n = NewExpr(ExprType::kIsNull, start);
      n->negated = neg;
      n->children.push_back(std::move(e));
      return Finish(std::move(n));
    }
    if (AtKw("TRUE") || AtKw("FALSE")) {
      auto n = NewExpr(ExprType::kIsBool, start);
      n->bool_value = Next().Is("TRUE");
      n->negated = neg;
      n->children.push_back(std::move(e));
      return Finish(std::move(n));
    }
    if (AcceptKw("DISTINCT")) {
      SILT_RETURN_NOT_OK(ExpectKw("FROM"));
      auto n = NewExpr(ExprType::kIsDistinctFrom, start);
      n->negated = neg;
      n->children.push_back(std::move(e));
      SILT_ASSIGN_OR_RETURN(auto r, ValueExpr(0));
      n->children.push_back(std::move(r));
      return Finish(std::move(n));
    }
    return ErrorHere();
  }
  return e;
}

namespace {
// Binary operator precedence levels of valueExpression (higher binds tighter).
int BinaryPrec(const Token& t, const Token& next, std::string* op) {
  if (t.kind == TokenKind::kOp) {
    const std::string& s = t.text;
    if (s == "=" || s == "==" || s == "<>" || s == "!=" || s == "<" || s == "<=" || s == ">=" ||
        s == "<=>" || s == "!>" || s == "!<") {
      *op = s == "!>" ? "<=" : s == "!<" ? ">=" : s;
      return 1;
    }
    if (s == ">") {
      if (next.IsOp(">") && next.pos.offset == t.end_offset) {
        *op = ">>";
        return 5;
      }
      *op = ">";
      return 1;
    }
    if (s == "|") {
      *op = "|";
      return 2;
    }
    if (s == "^") {
      *op = "^";
      return 3;
    }
    if (s == "&") {
      *op = "&";
      return 4;
    }
    if (s == "<<") {
      *op = "<<";
      return 5;
    }
    if (s == "+" || s == "-" || s == "||") {
      *op = s;
      return 6;
    }
    if (s == "*" || s == "/" || s == "%") {
      *op = s;
      return 7;
    }
    return -1;
  }
  if (t.Is("DIV")) {
    *op = "div";
    return 7;
  }
  return -1;
}
}  // namespace

Result<ExprNode> Parser::ValueExpr(int min_prec) {
  SILT_ASSIGN_OR_RETURN(auto left, UnaryExpr());
  while (true) {
    std::string op;
    int prec = BinaryPrec(Peek(), Peek(1), &op);
    if (prec < 0 || prec < min_prec) break;
    Next();
    if (op == ">>") {
      Next();
      if (AtOp(">") && Peek().pos.offset == t_[p_ - 1].end_offset) {
        Next();
        op = ">>>";
      }
    }
    SILT_ASSIGN_OR_RETURN(auto right, ValueExpr(prec + 1));
    auto e = NewExpr(ExprType::kBinary, left->pos);
    e->op = op;
    e->children.push_back(std::move(left));
    e->children.push_back(std::move(right));
    SILT_ASSIGN_OR_RETURN(left, Finish(std::move(e)));
  }
  return left;
}

Result<ExprNode> Parser::UnaryExpr() {
  const Token& t = Peek();
  if (t.IsOp("-") || t.IsOp("+") || t.IsOp("~")) {
    // Spark's `number: MINUS? INTEGER_VALUE …`: a minus directly before a number is part of the
    // literal (so -2147483648 is an int and prints as -2147483648).
    if (t.IsOp("-") && Peek(1).kind == TokenKind::kNumber) {
      const Token& minus = Next();
      const Token& num = Next();
      SILT_ASSIGN_OR_RETURN(auto lit, NumberLiteral(num, true));
      lit->pos = minus.pos;
      // A cast still applies to the literal (-1::string).
      if (AtOp("::")) {
        ExprNode base = std::move(lit);
        while (AtOp("::")) {
          Next();
          auto c = NewExpr(ExprType::kCast, base->pos);
          SILT_ASSIGN_OR_RETURN(c->cast_type, DataTypeRule());
          c->children.push_back(std::move(base));
          SILT_ASSIGN_OR_RETURN(base, Finish(std::move(c)));
        }
        return base;
      }
      return lit;
    }
    std::string op = t.text;
    SourcePos pos = Next().pos;
    DepthGuard g(&depth_);
    SILT_RETURN_NOT_OK(CheckDepth());
    SILT_ASSIGN_OR_RETURN(auto inner, UnaryExpr());
    auto e = NewExpr(ExprType::kUnary, pos);
    e->op = op;
    e->children.push_back(std::move(inner));
    return Finish(std::move(e));
  }
  return PostfixExpr();
}

Result<ExprNode> Parser::PostfixExpr() {
  SILT_ASSIGN_OR_RETURN(auto base, PrimaryExpr());
  while (true) {
    if (AtOp("[")) {
      Next();
      auto s = NewExpr(ExprType::kSubscript, base->pos);
      s->children.push_back(std::move(base));
      SILT_ASSIGN_OR_RETURN(auto idx, Expression());
      s->children.push_back(std::move(idx));
      SILT_RETURN_NOT_OK(ExpectOp("]"));
      SILT_ASSIGN_OR_RETURN(base, Finish(std::move(s)));
      continue;
    }
    if (AtOp(".") && IsIdentToken(Peek(1))) {
      Next();
      std::string field = Next().text;
      if (base->type == ExprType::kColumnRef) {
        base->names.push_back(std::move(field));
        continue;
      }
      auto f = NewExpr(ExprType::kFieldAccess, base->pos);
      f->field = std::move(field);
      f->children.push_back(std::move(base));
      SILT_ASSIGN_OR_RETURN(base, Finish(std::move(f)));
      continue;
    }
    if (AtOp(".") && AtOp("*", 1) && base->type == ExprType::kColumnRef) {
      Next();
      Next();
      auto star = NewExpr(ExprType::kStar, base->pos);
      star->names = std::move(base->names);
      if (AtKw("EXCEPT") && AtOp("(", 1)) {
        Next();
        Next();
        do {
          SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
          std::string joined;
          for (size_t i = 0; i < parts.size(); ++i) joined += (i ? "." : "") + parts[i];
          star->except_columns.push_back(std::move(joined));
        } while (AcceptOp(","));
        SILT_RETURN_NOT_OK(ExpectOp(")"));
      }
      return star;
    }
    if (AtOp("::")) {
      Next();
      auto c = NewExpr(ExprType::kCast, base->pos);
      SILT_ASSIGN_OR_RETURN(c->cast_type, DataTypeRule());
      c->children.push_back(std::move(base));
      SILT_ASSIGN_OR_RETURN(base, Finish(std::move(c)));
      continue;
    }
    break;
  }
  return base;
}

Result<OrderItem> Parser::SortItem() {
  OrderItem item;
  SILT_ASSIGN_OR_RETURN(item.expr, Expression());
  if (AcceptKw("ASC")) {
    item.ascending = true;
  } else if (AcceptKw("DESC")) {
    item.ascending = false;
  }
  if (AtKw("NULLS")) {
    Next();
    if (AcceptKw("FIRST")) {
      item.nulls_first = true;
    } else if (AcceptKw("LAST")) {
      item.nulls_first = false;
    } else {
      return ErrorHere();
    }
  }
  return item;
}

Result<std::vector<OrderItem>> Parser::SortList() {
  std::vector<OrderItem> out;
  do {
    SILT_ASSIGN_OR_RETURN(auto it, SortItem());
    out.push_back(std::move(it));
  } while (AcceptOp(","));
  return out;
}

Result<std::vector<ExprNode>> Parser::ExpressionList() {
  std::vector<ExprNode> out;
  do {
    SILT_ASSIGN_OR_RETURN(auto e, Expression());
    out.push_back(std::move(e));
  } while (AcceptOp(","));
  return out;
}

Result<std::vector<std::vector<ExprNode>>> Parser::GroupingSetsClause() {
  Next();  // GROUPING
  Next();  // SETS
  SILT_RETURN_NOT_OK(ExpectOp("("));
  std::vector<std::vector<ExprNode>> sets;
  do {
    std::vector<ExprNode> set;
    if (AtOp("(")) {
      Next();
      if (!AtOp(")")) {
        SILT_ASSIGN_OR_RETURN(set, ExpressionList());
      }
      SILT_RETURN_NOT_OK(ExpectOp(")"));
    } else {
      SILT_ASSIGN_OR_RETURN(auto e, Expression());
      set.push_back(std::move(e));
    }
    sets.push_back(std::move(set));
  } while (AcceptOp(","));
  SILT_RETURN_NOT_OK(ExpectOp(")"));
  return sets;
}

Result<WindowSpec> Parser::WindowSpecBody() {
  // After '(' : [name] [PARTITION|DISTRIBUTE BY …] [ORDER|SORT BY …] [frame] ')'
  WindowSpec w;
  if (IsIdentToken(Peek()) && !AtKw("PARTITION") && !AtKw("DISTRIBUTE") && !AtKw("ORDER") &&
      !AtKw("SORT") && !AtKw("ROWS") && !AtKw("RANGE") && !AtKw("CLUSTER")) {
    w.name = Next().text;
  }
  if ((AtKw("PARTITION") || AtKw("DISTRIBUTE") || AtKw("CLUSTER")) && AtKw("BY", 1)) {
    Next();
    Next();
    SILT_ASSIGN_OR_RETURN(w.partition_by, ExpressionList());
  }
  if ((AtKw("ORDER") || AtKw("SORT")) && AtKw("BY", 1)) {
    Next();
    Next();
    SILT_ASSIGN_OR_RETURN(w.order_by, SortList());
  }
  if (AtKw("ROWS") || AtKw("RANGE")) {
    WindowFrame f;
    f.unit = Next().Is("ROWS") ? WindowFrame::Unit::kRows : WindowFrame::Unit::kRange;
    auto bound = [&](WindowFrame::BoundType* type, ExprNode* off) -> Status {
      if (AtKw("UNBOUNDED")) {
        Next();
        if (AcceptKw("PRECEDING")) {
          *type = WindowFrame::BoundType::kUnboundedPreceding;
        } else if (AcceptKw("FOLLOWING")) {
          *type = WindowFrame::BoundType::kUnboundedFollowing;
        } else {
          return ErrorHere();
        }
        return Status::OK();
      }
      if (AtKw("CURRENT") && AtKw("ROW", 1)) {
        Next();
        Next();
        *type = WindowFrame::BoundType::kCurrentRow;
        return Status::OK();
      }
      SILT_ASSIGN_OR_RETURN(*off, Expression());
      if (AcceptKw("PRECEDING")) {
        *type = WindowFrame::BoundType::kPreceding;
      } else if (AcceptKw("FOLLOWING")) {
        *type = WindowFrame::BoundType::kFollowing;
      } else {
        return ErrorHere();
      }
      return Status::OK();
    };
    if (AcceptKw("BETWEEN")) {
      SILT_RETURN_NOT_OK(bound(&f.start, &f.start_offset));
      SILT_RETURN_NOT_OK(ExpectKw("AND"));
      SILT_RETURN_NOT_OK(bound(&f.end, &f.end_offset));
    } else {
      SILT_RETURN_NOT_OK(bound(&f.start, &f.start_offset));
      f.end = WindowFrame::BoundType::kCurrentRow;
    }
    w.frame = std::move(f);
  }
  SILT_RETURN_NOT_OK(ExpectOp(")"));
  return w;
}

// `value AS name` as a struct field (struct(a AS x), (a AS x, b AS y)): a kNamedArgument with
// op "as"; the value alone without AS.
Result<ExprNode> Parser::StructFieldAlias(ExprNode value) {
  if (!AtKw("AS")) return value;
  Next();
  if (!IsIdentToken(Peek())) return ErrorHere();
  auto na = NewExpr(ExprType::kNamedArgument, value->pos);
  na->op = "as";
  na->field = Next().text;
  na->children.push_back(std::move(value));
  return Finish(std::move(na));
}

Result<ExprNode> Parser::FunctionCall(std::vector<std::string> name, SourcePos pos) {
  // At '('.
  Next();
  DepthGuard g(&depth_);
  SILT_RETURN_NOT_OK(CheckDepth());
  auto f = NewExpr(ExprType::kFunction, pos);
  f->names = std::move(name);
  std::string lname = AsciiLower(f->names.back());
  if (AtOp("*") && AtOp(")", 1)) {
    Next();
    f->star_arg = true;
  } else if (!AtOp(")")) {
    if (AtKw("DISTINCT")) {
      Next();
      f->distinct = true;
    } else if (AtKw("ALL") && !AtOp(")", 1) && !AtOp(",", 1)) {
      Next();
    }
    do {
      // Named argument: name => value.
      if (IsIdentToken(Peek()) && AtOp("=>", 1)) {
        auto na = NewExpr(ExprType::kNamedArgument, Peek().pos);
        na->field = Next().text;
        Next();
        SILT_ASSIGN_OR_RETURN(auto v, Expression());
        na->children.push_back(std::move(v));
        SILT_ASSIGN_OR_RETURN(na, Finish(std::move(na)));
        f->children.push_back(std::move(na));
        continue;
      }
      SILT_ASSIGN_OR_RETURN(auto arg, Expression());
      if (lname == "struct" && f->names.size() == 1) {
        SILT_ASSIGN_OR_RETURN(arg, StructFieldAlias(std::move(arg)));
      }
      // Spark's first/last (x IGNORE NULLS) form.
      if ((lname == "first" || lname == "last" || lname == "first_value" || lname == "last_value" ||
           lname == "any_value") &&
          AtKw("IGNORE") && AtKw("NULLS", 1)) {
        Next();
        Next();
        f->ignore_nulls = true;
      }
      f->children.push_back(std::move(arg));
    } while (AcceptOp(","));
  }
  SILT_RETURN_NOT_OK(ExpectOp(")"));
  if (AtKw("WITHIN") && AtKw("GROUP", 1)) {
    Next();
    Next();
    SILT_RETURN_NOT_OK(ExpectOp("("));
    SILT_RETURN_NOT_OK(ExpectKw("ORDER"));
    SILT_RETURN_NOT_OK(ExpectKw("BY"));
    SILT_ASSIGN_OR_RETURN(f->within_group, SortList());
    SILT_RETURN_NOT_OK(ExpectOp(")"));
  }
  if (AtKw("FILTER") && AtOp("(", 1)) {
    Next();
    Next();
    SILT_RETURN_NOT_OK(ExpectKw("WHERE"));
    SILT_ASSIGN_OR_RETURN(f->filter, Expression());
    SILT_RETURN_NOT_OK(ExpectOp(")"));
  }
  if ((AtKw("IGNORE") || AtKw("RESPECT")) && AtKw("NULLS", 1)) {
    f->ignore_nulls = Next().Is("IGNORE");
    Next();
  }
  if (AtKw("OVER")) {
    Next();
    f->over = std::make_unique<WindowSpec>();
    if (AcceptOp("(")) {
      SILT_ASSIGN_OR_RETURN(*f->over, WindowSpecBody());
    } else {
      SILT_ASSIGN_OR_RETURN(f->over->name, Identifier());
    }
  }
  return Finish(std::move(f));
}

Result<ExprNode> Parser::CaseExpr(SourcePos pos) {
  auto c = NewExpr(ExprType::kCase, pos);
  if (!AtKw("WHEN")) {
    SILT_ASSIGN_OR_RETURN(auto operand, Expression());
    c->children.push_back(std::move(operand));
    c->has_operand = true;
  }
  if (!AtKw("WHEN")) return ErrorHere();
  while (AcceptKw("WHEN")) {
    SILT_ASSIGN_OR_RETURN(auto w, Expression());
    SILT_RETURN_NOT_OK(ExpectKw("THEN"));
    SILT_ASSIGN_OR_RETURN(auto t, Expression());
    c->children.push_back(std::move(w));
    c->children.push_back(std::move(t));
  }
  if (AcceptKw("ELSE")) {
    SILT_ASSIGN_OR_RETURN(auto e, Expression());
    c->children.push_back(std::move(e));
    c->has_else = true;
  }
  SILT_RETURN_NOT_OK(ExpectKw("END"));
  return Finish(std::move(c));
}

bool Parser::AtQueryStart(size_t k) const {
  if (AtKw("SELECT", k) || AtKw("WITH", k) || AtKw("VALUES", k)) return true;
  if (AtKw("FROM", k) || AtKw("TABLE", k))
    return IsIdentToken(Peek(k + 1)) || AtOp("(", k + 1) || Peek(k + 1).kind == TokenKind::kString;
  if (AtOp("(", k)) {
    // Parenthesised query: look through opening parentheses.
    size_t j = k;
    while (AtOp("(", j) && j < k + kMaxNesting) ++j;
    return AtKw("SELECT", j) || AtKw("WITH", j) || AtKw("VALUES", j) ||
           (AtKw("FROM", j) && IsIdentToken(Peek(j + 1)));
  }
  return false;
}

Result<ExprNode> Parser::PrimaryExpr() {
  const Token& t = Peek();
  SourcePos pos = t.pos;
  switch (t.kind) {
    case TokenKind::kNumber: {
      Next();
      return NumberLiteral(t, false);
    }
    case TokenKind::kString: {
      auto e = NewExpr(ExprType::kLiteral, pos);
      SILT_ASSIGN_OR_RETURN(auto s, StringLit());
      e->literal = Value::String(std::move(s));
      return e;
    }
    case TokenKind::kBinary: {
      Next();
      auto e = NewExpr(ExprType::kLiteral, pos);
      std::string hex = t.text;
      if (hex.size() % 2) hex = "0" + hex;
      std::string bytes;
      for (size_t i = 0; i < hex.size(); i += 2) {
        int a = std::isxdigit(static_cast<unsigned char>(hex[i]))
                    ? std::stoi(hex.substr(i, 1), nullptr, 16)
                    : -1;
        int b = std::isxdigit(static_cast<unsigned char>(hex[i + 1]))
                    ? std::stoi(hex.substr(i + 1, 1), nullptr, 16)
                    : -1;
        if (a < 0 || b < 0) {
          return ClassError(errc::kInvalidTypedLiteral,
                            "The value of the typed literal \"X\" is invalid: '" + t.text + "'",
                            pos);
        }
        bytes.push_back(static_cast<char>(a * 16 + b));
      }
      e->literal = Value::Binary(std::move(bytes));
      return e;
    }
    case TokenKind::kOp: {
      if (t.IsOp("*")) {
        Next();
        auto star = NewExpr(ExprType::kStar, pos);
        if (AtKw("EXCEPT") && AtOp("(", 1)) {
          Next();
          Next();
          do {
            SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
            std::string joined;
            for (size_t i = 0; i < parts.size(); ++i) joined += (i ? "." : "") + parts[i];
            star->except_columns.push_back(std::move(joined));
          } while (AcceptOp(","));
          SILT_RETURN_NOT_OK(ExpectOp(")"));
        }
        return star;
      }
      if (t.IsOp("?")) {
        Next();
        return NewExpr(ExprType::kPositional, pos);
      }
      if (t.IsOp("(")) {
        DepthGuard g(&depth_);
        SILT_RETURN_NOT_OK(CheckDepth());
        if (AtQueryStart()) {
          // ((SELECT 1) + 1) also looks like a query start: when the subquery reading fails
          // behind extra parentheses, read a parenthesised expression instead.
          size_t save = p_;
          bool nested = AtOp("(", 1);
          Next();
          auto sq = NewExpr(ExprType::kScalarSubquery, pos);
          auto q = Query();
          if (q.ok() && AtOp(")")) {
            Next();
            sq->subquery = std::move(q).MoveValue();
            return sq;
          }
          if (!nested) {
            if (!q.ok()) return q.status();
            return ErrorHere();
          }
          p_ = save;
        }
        // Lambda (x, y) -> body.
        {
          size_t j = 1;
          bool ids = true;
          while (true) {
            if (!IsIdentToken(Peek(j))) {
              ids = false;
              break;
            }
            ++j;
            if (AtOp(",", j)) {
              ++j;
              continue;
            }
            break;
          }
          if (ids && AtOp(")", j) && AtOp("->", j + 1)) {
            Next();
            auto lam = NewExpr(ExprType::kLambda, pos);
            do {
              lam->lambda_params.push_back(Next().text);
            } while (AcceptOp(","));
            SILT_RETURN_NOT_OK(ExpectOp(")"));
            SILT_RETURN_NOT_OK(ExpectOp("->"));
            SILT_ASSIGN_OR_RETURN(auto body, Expression());
            lam->children.push_back(std::move(body));
            return Finish(std::move(lam));
          }
        }
        Next();
        SILT_ASSIGN_OR_RETURN(auto inner, Expression());
        if (AtOp(",") || (AtKw("AS") && IsIdentToken(Peek(1)) && AtOp(",", 2))) {
          // Row constructor (a, b) → struct(a, b); (a AS x, b AS y) names the fields.
          auto row = NewExpr(ExprType::kFunction, pos);
          row->names = {"struct"};
          SILT_ASSIGN_OR_RETURN(inner, StructFieldAlias(std::move(inner)));
          row->children.push_back(std::move(inner));
          while (AcceptOp(",")) {
            SILT_ASSIGN_OR_RETURN(auto item, Expression());
            SILT_ASSIGN_OR_RETURN(item, StructFieldAlias(std::move(item)));
            row->children.push_back(std::move(item));
          }
          SILT_RETURN_NOT_OK(ExpectOp(")"));
          return Finish(std::move(row));
        }
        SILT_RETURN_NOT_OK(ExpectOp(")"));
        return inner;
      }
      return ErrorHere();
    }
    case TokenKind::kQuoted: {
      // `name` or `name`(…) or `x` -> …
      if (AtOp("->", 1)) break;
      if (AtOp("(", 1)) {
        std::vector<std::string> n = {Next().text};
        return FunctionCall(std::move(n), pos);
      }
      break;
    }
    case TokenKind::kWord:
      break;
    case TokenKind::kEnd:
      return ErrorHere();
  }
  // Words.
  std::string u = AsciiUpper(t.text);
  if (t.kind == TokenKind::kWord) {
    if (u == "NULL") {
      Next();
      auto e = NewExpr(ExprType::kLiteral, pos);
      e->literal = Value();
      return e;
    }
    if (u == "TRUE" || u == "FALSE") {
      Next();
      auto e = NewExpr(ExprType::kLiteral, pos);
      e->literal = Value::Boolean(u == "TRUE");
      return e;
    }
    if ((u == "DATE" || u == "TIMESTAMP" || u == "TIMESTAMP_NTZ" || u == "TIMESTAMP_LTZ" ||
         u == "TIME") &&
        Peek(1).kind == TokenKind::kString) {
      Next();
      return TypedStringLiteral(u, pos);
    }
    if (u == "INTERVAL" &&
        (Peek(1).kind == TokenKind::kNumber || Peek(1).kind == TokenKind::kString ||
         ((AtOp("-", 1) || AtOp("+", 1)) &&
          (Peek(2).kind == TokenKind::kNumber || Peek(2).kind == TokenKind::kString)))) {
      Next();
      return IntervalLiteral(pos);
    }
    if (u == "CASE") {
      Next();
      DepthGuard g(&depth_);
      SILT_RETURN_NOT_OK(CheckDepth());
      return CaseExpr(pos);
    }
    if ((u == "CAST" || u == "TRY_CAST") && AtOp("(", 1)) {
      Next();
      Next();
      DepthGuard g(&depth_);
      SILT_RETURN_NOT_OK(CheckDepth());
      auto c = NewExpr(ExprType::kCast, pos);
      c->try_cast = u == "TRY_CAST";
      SILT_ASSIGN_OR_RETURN(auto v, Expression());
      SILT_RETURN_NOT_OK(ExpectKw("AS"));
      SILT_ASSIGN_OR_RETURN(c->cast_type, DataTypeRule());
      SILT_RETURN_NOT_OK(ExpectOp(")"));
      c->children.push_back(std::move(v));
      return Finish(std::move(c));
    }
    // EXISTS (query); exists(array, x -> …) is the higher-order function (a call).
    if (u == "EXISTS" && AtOp("(", 1) &&
        (AtKw("SELECT", 2) || AtKw("WITH", 2) || AtKw("FROM", 2) || AtKw("VALUES", 2) ||
         AtKw("TABLE", 2) || AtOp("(", 2))) {
      Next();
      Next();
      DepthGuard g(&depth_);
      SILT_RETURN_NOT_OK(CheckDepth());
      auto ex = NewExpr(ExprType::kExists, pos);
      SILT_ASSIGN_OR_RETURN(ex->subquery, Query());
      SILT_RETURN_NOT_OK(ExpectOp(")"));
      return ex;
    }
    if ((u == "CURRENT_DATE" || u == "CURRENT_TIMESTAMP" || u == "CURRENT_USER" || u == "USER" ||
         u == "SESSION_USER") &&
        !AtOp("(", 1) && !AtOp(".", 1)) {
      Next();
      auto f = NewExpr(ExprType::kFunction, pos);
      f->names = {AsciiLower(u)};
      f->no_parens = true;
      return f;
    }
    if (u == "EXTRACT" && AtOp("(", 1) && IsIdentToken(Peek(2)) && AtKw("FROM", 3)) {
      Next();
      Next();
      auto f = NewExpr(ExprType::kFunction, pos);
      f->names = {"extract"};
      auto field = NewExpr(ExprType::kLiteral, Peek().pos);
      field->literal = Value::String(Next().text);
      Next();  // FROM
      SILT_ASSIGN_OR_RETURN(auto src, Expression());
      SILT_RETURN_NOT_OK(ExpectOp(")"));
      f->children.push_back(std::move(field));
      f->children.push_back(std::move(src));
      return Finish(std::move(f));
    }
    // TIMESTAMPDIFF | DATEDIFF | DATE_DIFF (unit, start, end) and TIMESTAMPADD | DATEADD |
    // DATE_ADD (unit, quantity, ts): Spark's datetimeUnit keyword becomes a string literal first
    // argument of timestampdiff / timestampadd; the two-argument date forms stay as they are.
    const bool diff_form =
        u == "TIMESTAMPDIFF" || u == "DATEDIFF" || u == "DATE_DIFF" || u == "TIMEDIFF";
    const bool add_form = u == "TIMESTAMPADD" || u == "DATEADD" || u == "DATE_ADD";
    if ((diff_form || add_form) && AtOp("(", 1) && AtOp(",", 3)) {
      static const char* const kUnits[] = {"YEAR",   "QUARTER",     "MONTH",      "WEEK",
                                           "DAY",    "DAYOFYEAR",   "HOUR",       "MINUTE",
                                           "SECOND", "MILLISECOND", "MICROSECOND"};
      const Token& unit_tok = Peek(2);
      const std::string unit = AsciiUpper(unit_tok.text);
      const bool is_unit = unit_tok.kind == TokenKind::kWord &&
                           std::any_of(std::begin(kUnits), std::end(kUnits),
                                       [&](const char* k) { return unit == k; });
      // A quoted unit: Spark's invalidUnit alternative of the three-argument forms.
      bool three_args = u == "TIMESTAMPDIFF" || u == "TIMESTAMPADD" || u == "TIMEDIFF";
      if (unit_tok.kind == TokenKind::kString && !three_args) {
        size_t save = p_;
        Next();
        Next();
        Next();
        Next();  // ,
        DepthGuard g(&depth_);
        three_args = Expression().ok() && AcceptOp(",") && Expression().ok() && AtOp(")");
        p_ = save;
      }
      if (unit_tok.kind == TokenKind::kString && three_args) {
        return ClassError(errc::kInvalidParameterValueDatetimeUnit,
                          "The value of parameter(s) `unit` in `" + AsciiLower(u) +
                              "` is invalid: expects one of the units without quotes YEAR, "
                              "QUARTER, MONTH, WEEK, DAY, "
                              "DAYOFYEAR, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND, but got "
                              "the string literal '" +
                              unit_tok.text + "'.",
                          unit_tok.pos);
      }
      if (is_unit) {
        size_t save = p_;
        Next();
        Next();
        SourcePos upos = Next().pos;
        Next();  // ,
        DepthGuard g(&depth_);
        SILT_RETURN_NOT_OK(CheckDepth());
        SILT_ASSIGN_OR_RETURN(auto first, Expression());
        if (AcceptOp(",")) {
          SILT_ASSIGN_OR_RETURN(auto second, Expression());
          SILT_RETURN_NOT_OK(ExpectOp(")"));
          auto f = NewExpr(ExprType::kFunction, pos);
          f->names = {diff_form ? "timestampdiff" : "timestampadd"};
          auto lit = NewExpr(ExprType::kLiteral, upos);
          lit->literal = Value::String(unit);
          f->children.push_back(std::move(lit));
          f->children.push_back(std::move(first));
          f->children.push_back(std::move(second));
          return Finish(std::move(f));
        }
        p_ = save;  // date_add(day, 1) with a column named day
      }
    }
    if ((u == "SUBSTRING" || u == "SUBSTR") && AtOp("(", 1)) {
      // SUBSTRING(str FROM pos [FOR len]) or the call form.
      size_t save = p_;
      Next();
      Next();
      DepthGuard g(&depth_);
      SILT_RETURN_NOT_OK(CheckDepth());
      SILT_ASSIGN_OR_RETURN(auto str, Expression());
      if (AtKw("FROM")) {
        Next();
        auto f = NewExpr(ExprType::kFunction, pos);
        f->names = {AsciiLower(t.text)};
        f->children.push_back(std::move(str));
        SILT_ASSIGN_OR_RETURN(auto from, Expression());
        f->children.push_back(std::move(from));
        if (AcceptKw("FOR")) {
          SILT_ASSIGN_OR_RETURN(auto len, Expression());
          f->children.push_back(std::move(len));
        }
        SILT_RETURN_NOT_OK(ExpectOp(")"));
        return Finish(std::move(f));
      }
      p_ = save;
    }
    if (u == "POSITION" && AtOp("(", 1)) {
      size_t save = p_;
      Next();
      Next();
      DepthGuard g(&depth_);
      SILT_RETURN_NOT_OK(CheckDepth());
      SILT_ASSIGN_OR_RETURN(auto sub, ValueExpr(0));
      if (AcceptKw("IN")) {
        auto f = NewExpr(ExprType::kFunction, pos);
        f->names = {"position"};
        f->children.push_back(std::move(sub));
        SILT_ASSIGN_OR_RETURN(auto str, ValueExpr(0));
        f->children.push_back(std::move(str));
        SILT_RETURN_NOT_OK(ExpectOp(")"));
        return Finish(std::move(f));
      }
      p_ = save;
    }
    if (u == "TRIM" && AtOp("(", 1)) {
      size_t save = p_;
      Next();
      Next();
      DepthGuard g(&depth_);
      SILT_RETURN_NOT_OK(CheckDepth());
      std::string fname = "trim";
      bool spec = false;
      if (AtKw("BOTH") || AtKw("LEADING") || AtKw("TRAILING")) {
        std::string w = AsciiUpper(Next().text);
        fname = w == "LEADING" ? "ltrim" : w == "TRAILING" ? "rtrim" : "trim";
        spec = true;
      }
      if (spec && AcceptKw("FROM")) {
        auto f = NewExpr(ExprType::kFunction, pos);
        f->names = {fname};
        SILT_ASSIGN_OR_RETURN(auto src, Expression());
        f->children.push_back(std::move(src));
        SILT_RETURN_NOT_OK(ExpectOp(")"));
        return Finish(std::move(f));
      }
      SILT_ASSIGN_OR_RETURN(auto first, Expression());
      if (AcceptKw("FROM")) {
        auto f = NewExpr(ExprType::kFunction, pos);
        f->names = {fname};
        SILT_ASSIGN_OR_RETURN(auto src, Expression());
        // Spark's function form: trim(trimStr, srcStr).
        f->children.push_back(std::move(first));
        f->children.push_back(std::move(src));
        SILT_RETURN_NOT_OK(ExpectOp(")"));
        return Finish(std::move(f));
      }
      if (spec) return ErrorHere();
      p_ = save;
    }
  }
  // Lambda x -> body.
  if (IsIdentToken(t) && AtOp("->", 1)) {
    auto lam = NewExpr(ExprType::kLambda, pos);
    lam->lambda_params.push_back(Next().text);
    Next();
    DepthGuard g(&depth_);
    SILT_RETURN_NOT_OK(CheckDepth());
    SILT_ASSIGN_OR_RETURN(auto body, Expression());
    lam->children.push_back(std::move(body));
    return Finish(std::move(lam));
  }
  // Such words may still name a function: rlike(s, re), like(s, p).
  bool fn = (u == "RLIKE" || u == "LIKE" || u == "ILIKE") && AtOp("(", 1);
  if (t.kind == TokenKind::kWord && NotAColumn().count(u) && !fn) return ErrorHere();
  // Name: column path or function call.
  std::vector<std::string> names = {Next().text};
  while (AtOp(".") && IsIdentToken(Peek(1)) && AtOp("(", 2)) {
    Next();
    names.push_back(Next().text);
  }
  if (AtOp("(")) return FunctionCall(std::move(names), pos);
  auto col = NewExpr(ExprType::kColumnRef, pos);
  col->names = std::move(names);
  return col;
}

}  // namespace silt::sql::internal
