// Recursive-descent parser for Spark SQL (SqlBaseParser.g4, non-ANSI keyword rules) plus Delta's
// extensions (DeltaSqlBase.g4). Expression precedence follows Spark's grammar:
//   OR < AND < NOT < predicate (comparison chain, then one of BETWEEN/IN/LIKE/IS …)
//   < | < ^ < & < shifts < + - || < * / % DIV < unary - + ~ < postfix ([i], .f, ::type).
// Comparisons are part of valueExpression in Spark, so `a = b IS NULL` is `(a = b) IS NULL` and
// BETWEEN bounds are full value expressions.
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

#include "common/ascii.h"
#include "sql/lexer.h"
#include "sql/literals.h"

namespace silt::sql {

namespace {

constexpr int kMaxNesting = 256;  // parentheses / subqueries / nested types

// Words that never start an implicit (AS-less) alias: Spark's strict-non-reserved keywords plus
// the words that begin a following clause (ANTLR's prediction picks the clause there).
const std::set<std::string>& NoBareAlias() {
  static const std::set<std::string> k = {
      "ANTI",     "CROSS",     "EXCEPT", "FULL",   "INNER",   "INTERSECT", "JOIN",  "LATERAL",
      "LEFT",     "MINUS",     "NATURAL", "ON",    "RIGHT",   "SEMI",      "UNION", "USING",
      "SELECT",   "FROM",      "WHERE",  "GROUP",  "HAVING",  "ORDER",     "LIMIT", "OFFSET",
      "WINDOW",   "QUALIFY",   "SORT",   "CLUSTER", "DISTRIBUTE", "PIVOT", "UNPIVOT",
      "TABLESAMPLE", "FOR",    "WHEN",   "THEN",   "ELSE",    "END",       "AND",   "OR",
      "AS",       "INTO",      "VALUES", "SET",    "WITH",    "VERSION",   "TIMESTAMP",
      "SYSTEM_VERSION", "SYSTEM_TIME", "TO", "IN", "IS", "NOT", "LIKE", "ILIKE", "RLIKE",
      "REGEXP", "BETWEEN", "OVER", "FILTER", "BY", "OUTER"};
  return k;
}

// Words that are never a bare column reference (they always continue or end a clause).
const std::set<std::string>& NotAColumn() {
  static const std::set<std::string> k = {
      "SELECT", "FROM", "WHERE", "HAVING", "UNION", "INTERSECT", "EXCEPT", "MINUS", "JOIN",
      "ON",     "WHEN", "THEN",  "ELSE",   "END",   "AND",       "OR",     "AS",    "INTO",
      "IS",     "IN",   "BETWEEN", "LIKE", "ILIKE", "RLIKE", "QUALIFY", "INNER", "CROSS"};
  return k;
}

const std::set<std::string>& PathFormats() {
  static const std::set<std::string> k = {"delta", "parquet", "json", "csv", "orc",
                                          "text",  "avro",    "binaryfile"};
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

class Parser {
 public:
  Parser(std::string_view sql, std::vector<Token> toks) : sql_(sql), t_(std::move(toks)) {}

  Result<StatementNode> Statement();
  Result<std::vector<StatementNode>> Script();
  Result<ExprNode> StandaloneExpression();
  Result<TypePtr> StandaloneType();

 private:
  // ---- token helpers
  const Token& Peek(size_t k = 0) const {
    size_t i = std::min(p_ + k, t_.size() - 1);
    return t_[i];
  }
  const Token& Next() {
    const Token& t = t_[p_];
    if (p_ + 1 < t_.size()) ++p_;
    return t;
  }
  bool AtKw(std::string_view kw, size_t k = 0) const { return Peek(k).Is(kw); }
  // The script's text between two token offsets, without surrounding whitespace.
  std::string SourceText(int begin, int end) const {
    std::string_view v = sql_.substr(static_cast<size_t>(begin), static_cast<size_t>(end - begin));
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
    return std::string(v);
  }
  bool AtOp(std::string_view op, size_t k = 0) const { return Peek(k).IsOp(op); }
  bool AtEnd() const { return Peek().kind == TokenKind::kEnd || AtOp(";"); }
  bool AtEndAfter(size_t k) const { return Peek(k).kind == TokenKind::kEnd || AtOp(";", k); }
  bool AcceptKw(std::string_view kw) {
    if (!AtKw(kw)) return false;
    Next();
    return true;
  }
  bool AcceptOp(std::string_view op) {
    if (!AtOp(op)) return false;
    Next();
    return true;
  }
  Status ExpectKw(std::string_view kw) {
    if (AcceptKw(kw)) return Status::OK();
    return ErrorHere();
  }
  Status ExpectOp(std::string_view op) {
    if (AcceptOp(op)) return Status::OK();
    return ErrorHere();
  }
  bool IsIdentToken(const Token& t) const {
    return t.kind == TokenKind::kWord || t.kind == TokenKind::kQuoted;
  }

  Status ErrorAt(const Token& t, std::string extra = "") const {
    std::string what;
    if (t.kind == TokenKind::kEnd) {
      what = "Syntax error at or near end of input";
    } else {
      std::string shown(sql_.substr(t.pos.offset, t.end_offset - t.pos.offset));
      what = "Syntax error at or near '" + shown + "'";
    }
    if (!extra.empty()) what += ": " + extra;
    return Status::InvalidArgument(FormatParseError(sql_, "PARSE_SYNTAX_ERROR", what, t.pos),
                                   "PARSE_SYNTAX_ERROR");
  }
  Status ErrorHere(std::string extra = "") const { return ErrorAt(Peek(), std::move(extra)); }
  Status ClassError(std::string_view cls, std::string msg, const SourcePos& pos) const {
    return Status::InvalidArgument(FormatParseError(sql_, cls, msg, pos), std::string(cls));
  }

  // Nesting guard: parentheses, subqueries, nested types.
  struct DepthGuard {
    explicit DepthGuard(int* d) : d_(d) { ++*d_; }
    ~DepthGuard() { --*d_; }
    int* d_;
  };
  Status CheckDepth() const {
    if (depth_ > kMaxNesting) {
      return ClassError("PARSE_SYNTAX_ERROR",
                        "The statement is nested too deeply (more than " +
                            std::to_string(kMaxNesting) + " levels of parentheses or subqueries)",
                        Peek().pos);
    }
    return Status::OK();
  }
  Result<ExprNode> Finish(ExprNode e) {
    e->height = HeightOf(*e);
    if (e->height > kMaxExprHeight) {
      return ClassError("PARSE_SYNTAX_ERROR",
                        "The expression is too deep (more than " + std::to_string(kMaxExprHeight) +
                            " levels)",
                        e->pos);
    }
    return e;
  }

  // ---- identifiers and names
  Result<std::string> Identifier();
  Result<std::vector<std::string>> QualifiedName();
  Result<std::vector<std::string>> IdentifierList();  // ( a, b )
  bool AtBareAlias() const;
  Result<TableName> ParseTableName(bool allow_string_path);
  Result<std::string> StringLit();
  Result<PropertyList> PropertyListClause();
  Result<std::pair<std::string, std::string>> Property(bool value_required);

  // ---- types
  Result<TypePtr> DataTypeRule();

  // ---- expressions
  Result<ExprNode> Expression();
  Result<ExprNode> BooleanExpr(int prec);  // 0: OR, 1: AND
  Result<ExprNode> NotExpr();
  Result<ExprNode> Predicated();
  Result<ExprNode> ValueExpr(int prec);
  Result<ExprNode> UnaryExpr();
  Result<ExprNode> PostfixExpr();
  Result<ExprNode> PrimaryExpr();
  Result<ExprNode> NumberLiteral(const Token& t, bool negative);
  Result<ExprNode> IntervalLiteral(SourcePos pos);
  Result<ExprNode> FunctionCall(std::vector<std::string> name, SourcePos pos);
  Result<ExprNode> CaseExpr(SourcePos pos);
  Result<ExprNode> TypedStringLiteral(std::string_view type_kw, SourcePos pos);
  Result<WindowSpec> WindowSpecBody();
  Result<OrderItem> SortItem();
  Result<std::vector<OrderItem>> SortList();
  Result<std::vector<ExprNode>> ExpressionList();
  // "GROUPING SETS ( set [, set]* )" with set = "( [expr [, expr]*] )" or a bare expression.
  Result<std::vector<std::vector<ExprNode>>> GroupingSetsClause();

  // ---- queries
  Result<QueryNode> Query();
  Result<QueryNode> QueryTerm(int prec);
  Result<QueryNode> QueryPrimary();
  Result<QueryNode> SelectBlock(std::vector<TableRefNode> from_first);
  Status QueryOrganization(struct Query* q);
  Result<QueryNode> ValuesQuery();
  Result<std::vector<TableRefNode>> FromList();
  Result<TableRefNode> Relation();
  Result<TableRefNode> RelationPrimary();
  Status TableAlias(TableRef* r);
  Result<std::optional<TimeTravel>> TemporalClause();
  Result<std::vector<std::vector<ExprNode>>> ValuesRows();
  bool AtQueryStart(size_t k = 0) const;

  // ---- statements
  Result<StatementNode> StatementBody();
  Result<StatementNode> Explain();
  Result<StatementNode> Create();
  Result<StatementNode> CreateTable(bool or_replace, bool replace_only, SourcePos pos);
  Result<StatementNode> CreateView(bool or_replace, bool temporary, SourcePos pos);
  Result<StatementNode> Drop();
  Result<StatementNode> Use();
  Result<StatementNode> Show();
  Result<StatementNode> Alter();
  Result<StatementNode> Insert();
  Result<StatementNode> Delete();
  Result<StatementNode> Update();
  Result<StatementNode> Merge();
  Result<StatementNode> Vacuum();
  Result<StatementNode> Optimize();
  Result<StatementNode> Reorg();
  Result<StatementNode> Restore();
  Result<StatementNode> Describe();
  Result<StatementNode> Convert();
  Result<StatementNode> Set();
  Result<StatementNode> Reset();
  Result<ColumnDef> ColumnDefinition(bool require_type, bool qualified_name);
  Result<std::vector<ColumnDef>> ColumnDefList();
  Result<TtlClause> TtlClauseBody();  // after DELETE
  Result<std::vector<Assignment>> Assignments();
  Result<int64_t> SignedInteger();

  std::string_view sql_;
  std::vector<Token> t_;
  size_t p_ = 0;
  int depth_ = 0;
  // Index of the token taken as an AS-less select alias, for a better error position when the
  // alias was really a misspelt keyword (SELECT a FORM t → error at FORM).
  size_t last_bare_alias_ = static_cast<size_t>(-1);
};

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
// Types

Result<TypePtr> Parser::DataTypeRule() {
  DepthGuard g(&depth_);
  SILT_RETURN_NOT_OK(CheckDepth());
  const Token& t = Peek();
  if (t.kind != TokenKind::kWord) return ErrorHere();
  std::string name = AsciiUpper(t.text);
  SourcePos pos = t.pos;
  Next();
  auto close_angle = [&]() -> Status { return ExpectOp(">"); };
  if (name == "ARRAY") {
    SILT_RETURN_NOT_OK(ExpectOp("<"));
    SILT_ASSIGN_OR_RETURN(auto elem, DataTypeRule());
    SILT_RETURN_NOT_OK(close_angle());
    return DataType::List(std::move(elem));
  }
  if (name == "MAP") {
    SILT_RETURN_NOT_OK(ExpectOp("<"));
    SILT_ASSIGN_OR_RETURN(auto k, DataTypeRule());
    SILT_RETURN_NOT_OK(ExpectOp(","));
    SILT_ASSIGN_OR_RETURN(auto v, DataTypeRule());
    SILT_RETURN_NOT_OK(close_angle());
    return DataType::Map(std::move(k), std::move(v));
  }
  if (name == "STRUCT") {
    std::vector<Field> fields;
    if (AcceptOp("<>")) return DataType::Struct({});
    SILT_RETURN_NOT_OK(ExpectOp("<"));
    if (!AtOp(">")) {
      do {
        Field f;
        SILT_ASSIGN_OR_RETURN(f.name, Identifier());
        AcceptOp(":");
        SILT_ASSIGN_OR_RETURN(f.type, DataTypeRule());
        f.nullable = true;
        if (AtKw("NOT") && AtKw("NULL", 1)) {
          Next();
          Next();
          f.nullable = false;
        }
        if (AcceptKw("COMMENT")) {
          SILT_ASSIGN_OR_RETURN(auto c, StringLit());
          std::string js;
          AppendJsonString(&js, c);
          f.metadata_json = "{\"comment\":" + js + "}";
        } else {
          f.metadata_json = "{}";
        }
        fields.push_back(std::move(f));
      } while (AcceptOp(","));
    }
    SILT_RETURN_NOT_OK(close_angle());
    return DataType::Struct(std::move(fields));
  }
  // Primitive, with optional (n[, m]).
  std::vector<int64_t> params;
  if (AtOp("(")) {
    Next();
    do {
      if (Peek().kind != TokenKind::kNumber) return ErrorHere();
      const Token& nt = Next();
      int64_t v = 0;
      auto [ptr, ec] = std::from_chars(nt.text.data(), nt.text.data() + nt.text.size(), v);
      if (ec != std::errc() || ptr != nt.text.data() + nt.text.size()) return ErrorAt(nt);
      params.push_back(v);
    } while (AcceptOp(","));
    SILT_RETURN_NOT_OK(ExpectOp(")"));
  }
  auto no_params = [&](TypePtr ty) -> Result<TypePtr> {
    if (!params.empty()) {
      return ClassError("UNSUPPORTED_DATATYPE", "Unsupported data type \"" + name + "(" +
                                                    std::to_string(params[0]) + ")\"",
                        pos);
    }
    return ty;
  };
  if (name == "BOOLEAN") return no_params(DataType::Boolean());
  if (name == "TINYINT" || name == "BYTE") return no_params(DataType::Int8());
  if (name == "SMALLINT" || name == "SHORT") return no_params(DataType::Int16());
  if (name == "INT" || name == "INTEGER") return no_params(DataType::Int32());
  if (name == "BIGINT" || name == "LONG") return no_params(DataType::Int64());
  if (name == "FLOAT" || name == "REAL") return no_params(DataType::Float());
  if (name == "DOUBLE") return no_params(DataType::Double());
  if (name == "STRING") return no_params(DataType::String());
  if (name == "BINARY") return no_params(DataType::Binary());
  if (name == "DATE") return no_params(DataType::Date());
  if (name == "TIMESTAMP" || name == "TIMESTAMP_LTZ") return no_params(DataType::Timestamp());
  if (name == "TIMESTAMP_NTZ") return no_params(DataType::TimestampNtz());
  if (name == "VOID") return no_params(DataType::Null());
  if (name == "CHAR" || name == "CHARACTER" || name == "VARCHAR") {
    if (params.size() != 1) {
      return ClassError("DATATYPE_MISSING_SIZE",
                        "DataType \"" + name + "\" requires a length parameter, for example \"" +
                            name + "(10)\". Please specify the length.",
                        pos);
    }
    return DataType::String();
  }
  if (name == "DECIMAL" || name == "DEC" || name == "NUMERIC") {
    int64_t p = params.empty() ? 10 : params[0];
    int64_t s = params.size() > 1 ? params[1] : 0;
    if (params.size() > 2) return ErrorAt(t_[p_ - 1]);
    if (p < 1 || p > 38) {
      return ClassError("DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION",
                        "Decimal precision " + std::to_string(p) +
                            " exceeds max precision 38",
                        pos);
    }
    if (s < 0 || s > p) {
      return ClassError("INVALID_PARAMETER_VALUE",
                        "Decimal scale (" + std::to_string(s) +
                            ") cannot be greater than precision (" + std::to_string(p) + ")",
                        pos);
    }
    return DataType::Decimal(static_cast<int>(p), static_cast<int>(s));
  }
  if (name == "INTERVAL" || name == "VARIANT" || name == "TIME") {
    return Status::NotImplemented("data type " + name + " is not supported by silt");
  }
  return ClassError("UNSUPPORTED_DATATYPE", "Unsupported data type \"" + name + "\"", pos);
}

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
      if (!AtOp(")")) {
        do {
          SILT_ASSIGN_OR_RETURN(auto pat, Expression());
          l->children.push_back(std::move(pat));
        } while (AcceptOp(","));
      }
      SILT_RETURN_NOT_OK(ExpectOp(")"));
      return Finish(std::move(l));
    }
    SILT_ASSIGN_OR_RETURN(auto pat, ValueExpr(0));
    l->children.push_back(std::move(pat));
    if (kind != "rlike" && AtKw("ESCAPE")) {
      SourcePos epos = Next().pos;
      SILT_ASSIGN_OR_RETURN(auto esc, StringLit());
      if (esc.size() != 1) {
        return ClassError("INVALID_ESCAPE_CHAR",
                          "The escape character must be a string literal of length one, got '" +
                              esc + "'",
                          epos);
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
    if (s == "|") { *op = "|"; return 2; }
    if (s == "^") { *op = "^"; return 3; }
    if (s == "&") { *op = "&"; return 4; }
    if (s == "<<") { *op = "<<"; return 5; }
    if (s == "+" || s == "-" || s == "||") { *op = s; return 6; }
    if (s == "*" || s == "/" || s == "%") { *op = s; return 7; }
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

Result<ExprNode> Parser::NumberLiteral(const Token& t, bool negative) {
  std::string text = t.text;
  auto e = NewExpr(ExprType::kLiteral, t.pos);
  std::string u = AsciiUpper(text);
  auto range_error = [&](const std::string& type, const std::string& lo, const std::string& hi) {
    return ClassError("INVALID_NUMERIC_LITERAL_RANGE",
                      "Numeric literal " + std::string(negative ? "-" : "") +
                          text.substr(0, text.size() - (type == "decimal" ? 2 : 1)) +
                          " is outside the valid range for " + type + " with minimum value of " +
                          lo + " and maximum value of " + hi + ". Please adjust the value accordingly",
                      t.pos);
  };
  auto parse_int = [&](std::string_view digits, __int128* out) {
    __int128 v = 0;
    for (char c : digits) {
      v = v * 10 + (c - '0');
      if (v > (static_cast<__int128>(1) << 100)) return false;
    }
    *out = negative ? -v : v;
    return true;
  };
  char last = u.back();
  bool is_decimal_text = u.find('.') != std::string::npos;
  bool has_exp = u.find('E') != std::string::npos;
  bool bd = u.size() >= 2 && u.substr(u.size() - 2) == "BD";
  if (bd) {
    int128_t unscaled;
    int p, s;
    std::string body = (negative ? "-" : "") + text.substr(0, text.size() - 2);
    if (!ParseDecimalLiteral(body, &unscaled, &p, &s)) {
      return ClassError("DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION",
                        "Decimal precision exceeds max precision 38 in literal " + body, t.pos);
    }
    e->literal = Value::Decimal(p, s, unscaled);
    return e;
  }
  if (!is_decimal_text && !has_exp && (last == 'L' || last == 'S' || last == 'Y')) {
    __int128 v;
    std::string digits = text.substr(0, text.size() - 1);
    bool ok = parse_int(digits, &v);
    if (last == 'L') {
      if (!ok || v < INT64_MIN || v > INT64_MAX) {
        return range_error("bigint", "-9223372036854775808", "9223372036854775807");
      }
      e->literal = Value::Int64(static_cast<int64_t>(v));
    } else if (last == 'S') {
      if (!ok || v < INT16_MIN || v > INT16_MAX) return range_error("smallint", "-32768", "32767");
      e->literal = Value::Integer(DataType::Int16(), static_cast<int64_t>(v));
    } else {
      if (!ok || v < INT8_MIN || v > INT8_MAX) return range_error("tinyint", "-128", "127");
      e->literal = Value::Integer(DataType::Int8(), static_cast<int64_t>(v));
    }
    return e;
  }
  if (last == 'D' || last == 'F' || has_exp) {
    bool is_float = last == 'F';
    std::string body = text;
    if (last == 'D' || last == 'F') body.pop_back();
    double d = 0;
    auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), d);
    if (ptr != body.data() + body.size() || (ec != std::errc() && ec != std::errc::result_out_of_range)) {
      return ErrorAt(t);
    }
    if (ec == std::errc::result_out_of_range || std::isinf(d) ||
        (is_float && std::fabs(d) > std::numeric_limits<float>::max())) {
      if (is_float) {
        return range_error("float", "-3.4028234663852886E+38", "3.4028234663852886E+38");
      }
      // Keep the whole text in the message for doubles (no suffix to strip when exponent only).
      return ClassError("INVALID_NUMERIC_LITERAL_RANGE",
                        "Numeric literal " + std::string(negative ? "-" : "") + body +
                            " is outside the valid range for double with minimum value of "
                            "-1.7976931348623157E+308 and maximum value of 1.7976931348623157E+308. "
                            "Please adjust the value accordingly",
                        t.pos);
    }
    if (negative) d = -d;
    e->literal = is_float ? Value::Floating(DataType::Float(), static_cast<float>(d))
                          : Value::Double(d);
    return e;
  }
  if (is_decimal_text) {
    int128_t unscaled;
    int p, s;
    std::string body = (negative ? "-" : "") + text;
    if (!ParseDecimalLiteral(body, &unscaled, &p, &s)) {
      return ClassError("DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION",
                        "Decimal precision exceeds max precision 38 in literal " + body, t.pos);
    }
    e->literal = Value::Decimal(p, s, unscaled);
    return e;
  }
  // INTEGER_VALUE: int when it fits, else bigint, else decimal(digits, 0).
  __int128 v;
  if (parse_int(text, &v) && v >= INT32_MIN && v <= INT32_MAX) {
    e->literal = Value::Int32(static_cast<int32_t>(v));
  } else if (parse_int(text, &v) && v >= INT64_MIN && v <= INT64_MAX) {
    e->literal = Value::Int64(static_cast<int64_t>(v));
  } else {
    int128_t unscaled;
    int p, s;
    std::string body = (negative ? "-" : "") + text;
    if (!ParseDecimalLiteral(body, &unscaled, &p, &s)) {
      return ClassError("DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION",
                        "Decimal precision " + std::to_string(text.size()) +
                            " exceeds max precision 38",
                        t.pos);
    }
    e->literal = Value::Decimal(p, s, unscaled);
  }
  return e;
}

namespace {
struct UnitInfo {
  const char* name;  // canonical upper-case singular
  bool year_month;
  int64_t micros;  // per unit (day-time)
  int64_t months;  // per unit (year-month)
  int rank;        // for qualifier ordering: YEAR 0, MONTH 1, DAY 2, HOUR 3, MINUTE 4, SECOND 5
};
std::optional<UnitInfo> LookupUnit(std::string_view word, bool allow_plural) {
  std::string u = AsciiUpper(word);
  if (allow_plural && u.size() > 1 && u.back() == 'S' && u != "S") u.pop_back();
  static const UnitInfo kUnits[] = {
      {"YEAR", true, 0, 12, 0},
      {"MONTH", true, 0, 1, 1},
      {"WEEK", false, 7LL * 86400000000LL, 0, 2},
      {"DAY", false, 86400000000LL, 0, 2},
      {"HOUR", false, 3600000000LL, 0, 3},
      {"MINUTE", false, 60000000LL, 0, 4},
      {"SECOND", false, 1000000LL, 0, 5},
      {"MILLISECOND", false, 1000LL, 0, 5},
      {"MICROSECOND", false, 1LL, 0, 5},
  };
  for (const auto& k : kUnits) {
    if (u == k.name) return k;
  }
  return std::nullopt;
}
}  // namespace

Result<ExprNode> Parser::IntervalLiteral(SourcePos pos) {
  auto e = NewExpr(ExprType::kInterval, pos);
  auto invalid = [&](const std::string& what) {
    return ClassError("INVALID_INTERVAL_FORMAT", "Error parsing interval: " + what, pos);
  };
  // INTERVAL 'string' alone: a calendar interval from the text.
  if (Peek().kind == TokenKind::kString && !(LookupUnit(Peek(1).text, true) && Peek(1).kind == TokenKind::kWord)) {
    SILT_ASSIGN_OR_RETURN(auto text, StringLit());
    auto r = ParseIntervalString(text);
    if (!r.ok()) return invalid("'" + text + "'");
    e->interval_months = r->first;
    e->interval_micros = r->second;
    return e;
  }
  __int128 months = 0, micros = 0;
  int min_rank = 99, max_rank = -1;
  bool any_ym = false, any_dt = false;
  std::string first_unit, last_unit;
  int count = 0;
  while (true) {
    // intervalValue: [+-] (INTEGER | DECIMAL | string)
    bool neg = false;
    size_t save = p_;
    if (AtOp("-") || AtOp("+")) neg = Next().IsOp("-");
    std::string value_text;
    bool is_string = false;
    if (Peek().kind == TokenKind::kNumber) {
      value_text = Next().text;
    } else if (Peek().kind == TokenKind::kString) {
      value_text = Next().text;
      is_string = true;
    } else {
      p_ = save;
      break;
    }
    if (Peek().kind != TokenKind::kWord) return ErrorHere();
    auto unit = LookupUnit(Peek().text, true);
    if (!unit) return ErrorHere();
    Next();
    ++count;
    // Unit TO unit (only as the single element).
    if (count == 1 && AtKw("TO")) {
      Next();
      if (Peek().kind != TokenKind::kWord) return ErrorHere();
      auto to = LookupUnit(Peek().text, false);
      if (!to) return ErrorHere();
      Next();
      std::string from_name = unit->name, to_name = to->name;
      std::string s = value_text;
      bool sneg = neg;
      if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        sneg = sneg != (s[0] == '-');
        s = s.substr(1);
      }
      auto num = [&](std::string_view d, int64_t* v) {
        if (d.empty() || d.size() > 18) return false;
        *v = 0;
        for (char c : d) {
          if (!std::isdigit(static_cast<unsigned char>(c))) return false;
          *v = *v * 10 + (c - '0');
        }
        return true;
      };
      if (from_name == "YEAR" && to_name == "MONTH") {
        size_t dash = s.find('-');
        int64_t y, m;
        if (dash == std::string::npos || !num(s.substr(0, dash), &y) || !num(s.substr(dash + 1), &m) ||
            m > 11) {
          return invalid("'" + value_text + "' for YEAR TO MONTH");
        }
        months = y * 12 + m;
        if (sneg) months = -months;
        e->interval_months = static_cast<int64_t>(months);
        e->interval_qualifier = "YEAR TO MONTH";
        return e;
      }
      if (unit->year_month || to->year_month || unit->rank >= to->rank || unit->micros < 1000000 ||
          to->micros < 1000000 || std::string(unit->name) == "WEEK") {
        return invalid(from_name + " TO " + to_name + " is not supported");
      }
      // Day-time: fields separated by ' ' (after days) and ':'; seconds may have a fraction.
      std::vector<std::string> parts;
      {
        std::string cur;
        for (char c : s) {
          if (c == ' ' || c == ':') {
            parts.push_back(cur);
            cur.clear();
          } else {
            cur.push_back(c);
          }
        }
        parts.push_back(cur);
      }
      int nfields = to->rank - unit->rank + 1;
      if (static_cast<int>(parts.size()) != nfields) {
        return invalid("'" + value_text + "' for " + from_name + " TO " + to_name);
      }
      __int128 total = 0;
      for (int k = 0; k < nfields; ++k) {
        int rank = unit->rank + k;
        const std::string& part = parts[k];
        int64_t per = rank == 2 ? 86400000000LL : rank == 3 ? 3600000000LL
                                                : rank == 4 ? 60000000LL : 1000000LL;
        if (rank == 5) {
          int128_t unscaled;
          int p, sc;
          if (!ParseDecimalLiteral(part, &unscaled, &p, &sc) || p > 20 || sc > 9) {
            return invalid("'" + value_text + "'");
          }
          __int128 pw = 1;
          for (int j = 0; j < sc; ++j) pw *= 10;
          total += unscaled * per / pw;
        } else {
          int64_t v;
          if (!num(part, &v)) return invalid("'" + value_text + "'");
          if (k > 0 && ((rank == 3 && v > 23) || (rank == 4 && v > 59))) {
            return invalid("'" + value_text + "'");
          }
          total += static_cast<__int128>(v) * per;
        }
      }
      if (total > INT64_MAX) return invalid("'" + value_text + "' overflows");
      e->interval_micros = static_cast<int64_t>(sneg ? -total : total);
      e->interval_qualifier = from_name + " TO " + to_name;
      return e;
    }
    // Single unit value.
    std::string v = value_text;
    if (is_string) {
      // Trim and accept a sign inside the string.
      while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.erase(0, 1);
      while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
    }
    int128_t unscaled;
    int p, sc;
    if (!ParseDecimalLiteral(v, &unscaled, &p, &sc) || p > 24) {
      return invalid("'" + value_text + "'");
    }
    if (neg) unscaled = -unscaled;
    __int128 pw = 1;
    for (int j = 0; j < sc; ++j) pw *= 10;
    if (unit->year_month) {
      if (sc != 0) return invalid("fractional " + std::string(unit->name));
      months += unscaled * unit->months;
      any_ym = true;
    } else {
      micros += unscaled * unit->micros / pw;
      any_dt = true;
    }
    if (micros > INT64_MAX || micros < INT64_MIN || months > INT32_MAX || months < INT32_MIN) {
      return invalid("the interval overflows");
    }
    int rank = unit->rank;
    std::string qname = std::string(unit->name);
    if (qname == "WEEK") qname = "DAY";
    if (qname == "MILLISECOND" || qname == "MICROSECOND") qname = "SECOND";
    if (rank < min_rank) {
      min_rank = rank;
      first_unit = qname;
    }
    if (rank > max_rank) {
      max_rank = rank;
      last_unit = qname;
    }
    if (!(Peek().kind == TokenKind::kNumber || Peek().kind == TokenKind::kString ||
          ((AtOp("-") || AtOp("+")) && (Peek(1).kind == TokenKind::kNumber ||
                                        Peek(1).kind == TokenKind::kString)))) {
      break;
    }
  }
  if (count == 0) return ErrorHere();
  e->interval_months = static_cast<int64_t>(months);
  e->interval_micros = static_cast<int64_t>(micros);
  if (any_ym && any_dt) {
    e->interval_qualifier = "";
  } else {
    e->interval_qualifier = first_unit == last_unit ? first_unit : first_unit + " TO " + last_unit;
  }
  return e;
}

Result<ExprNode> Parser::TypedStringLiteral(std::string_view kw, SourcePos pos) {
  SILT_ASSIGN_OR_RETURN(auto text, StringLit());
  auto e = NewExpr(ExprType::kLiteral, pos);
  auto invalid = [&]() {
    return ClassError("INVALID_TYPED_LITERAL",
                      "The value of the typed literal \"" + std::string(kw) + "\" is invalid: '" +
                          text + "'",
                      pos);
  };
  if (kw == "DATE") {
    auto d = ParseSparkDate(text);
    if (!d) return invalid();
    e->literal = Value::Integer(DataType::Date(), *d);
    return e;
  }
  if (kw == "TIMESTAMP" || kw == "TIMESTAMP_LTZ" || kw == "TIMESTAMP_NTZ") {
    bool has_zone = false, unsupported = false;
    auto ts = ParseSparkTimestamp(text, &has_zone, &unsupported);
    if (unsupported) {
      return Status::NotImplemented("time zone region ids in TIMESTAMP literals ('" + text +
                                    "'); use an offset such as +01:00");
    }
    if (!ts) return invalid();
    if (kw == "TIMESTAMP_NTZ") {
      // Spark ignores nothing here: a zone makes a TIMESTAMP_NTZ literal invalid.
      if (has_zone) return invalid();
      e->literal = Value::Integer(DataType::TimestampNtz(), *ts);
    } else {
      e->literal = Value::Integer(DataType::Timestamp(), *ts);
      e->local_timestamp = !has_zone;
    }
    return e;
  }
  if (kw == "X") {
    std::string hex = text;
    if (hex.size() % 2) hex = "0" + hex;
    std::string bytes;
    for (size_t i = 0; i < hex.size(); i += 2) {
      auto hv = [](char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
      };
      int a = hv(hex[i]), b = hv(hex[i + 1]);
      if (a < 0 || b < 0) return invalid();
      bytes.push_back(static_cast<char>(a * 16 + b));
    }
    e->literal = Value::Binary(std::move(bytes));
    return e;
  }
  return invalid();
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
      // struct(a AS x) / named_struct-like aliases are not modelled; Spark's first/last
      // (x IGNORE NULLS) form is.
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
  if (AtKw("FROM", k) || AtKw("TABLE", k)) return IsIdentToken(Peek(k + 1)) || AtOp("(", k + 1) || Peek(k + 1).kind == TokenKind::kString;
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
        int a = std::isxdigit(static_cast<unsigned char>(hex[i])) ? std::stoi(hex.substr(i, 1), nullptr, 16) : -1;
        int b = std::isxdigit(static_cast<unsigned char>(hex[i + 1])) ? std::stoi(hex.substr(i + 1, 1), nullptr, 16) : -1;
        if (a < 0 || b < 0) {
          return ClassError("INVALID_TYPED_LITERAL",
                            "The value of the typed literal \"X\" is invalid: '" + t.text + "'", pos);
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
        if (AtOp(",")) {
          // Row constructor (a, b) → struct(a, b).
          auto row = NewExpr(ExprType::kFunction, pos);
          row->names = {"struct"};
          row->children.push_back(std::move(inner));
          while (AcceptOp(",")) {
            SILT_ASSIGN_OR_RETURN(auto item, Expression());
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
    if ((u == "DATE" || u == "TIMESTAMP" || u == "TIMESTAMP_NTZ" || u == "TIMESTAMP_LTZ") &&
        Peek(1).kind == TokenKind::kString) {
      Next();
      return TypedStringLiteral(u, pos);
    }
    if (u == "INTERVAL" && (Peek(1).kind == TokenKind::kNumber || Peek(1).kind == TokenKind::kString ||
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
        (AtKw("SELECT", 2) || AtKw("WITH", 2) || AtKw("FROM", 2) || AtKw("VALUES", 2) || AtKw("TABLE", 2) || AtOp("(", 2))) {
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
    if (Peek().kind != TokenKind::kWord || !AtOp("(", 1)) return ErrorHere("LATERAL VIEW expects a generator function call");
    SILT_ASSIGN_OR_RETURN(lv.generator, PrimaryExpr());
    if (lv.generator->type != ExprType::kFunction) return ErrorHere("LATERAL VIEW expects a generator function call");
    SILT_ASSIGN_OR_RETURN(lv.table_alias, Identifier());
    if (AcceptKw("AS") || AtBareAlias()) {
      do {
        SILT_ASSIGN_OR_RETURN(std::string c, Identifier());
        lv.column_aliases.push_back(std::move(c));
      } while (AcceptOp(","));
    }
    q->lateral_views.push_back(std::move(lv));
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
    } else if ((AtKw("ROLLUP") || AtKw("CUBE")) && AtOp("(", 1)) {
      q->grouping = Next().Is("ROLLUP") ? GroupingKind::kRollup : GroupingKind::kCube;
      Next();
      SILT_ASSIGN_OR_RETURN(q->group_by, ExpressionList());
      SILT_RETURN_NOT_OK(ExpectOp(")"));
      if (AtOp(",")) return Status::NotImplemented("mixing ROLLUP/CUBE with other GROUP BY items");
    } else if (AtKw("GROUPING") && AtKw("SETS", 1)) {
      q->grouping = GroupingKind::kGroupingSets;
      SILT_ASSIGN_OR_RETURN(q->grouping_sets, GroupingSetsClause());
    } else {
      SILT_ASSIGN_OR_RETURN(q->group_by, ExpressionList());
      if (AtKw("WITH") && (AtKw("ROLLUP", 1) || AtKw("CUBE", 1))) {
        Next();
        q->grouping = Next().Is("ROLLUP") ? GroupingKind::kRollup : GroupingKind::kCube;
      } else if (AtKw("GROUPING") && AtKw("SETS", 1)) {
        // GROUP BY a, b GROUPING SETS ((a), (b))
        q->grouping = GroupingKind::kGroupingSets;
        SILT_ASSIGN_OR_RETURN(q->grouping_sets, GroupingSetsClause());
        q->group_by.clear();
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
      return ClassError("DELTA_VERSION_INVALID",
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
        std::all_of(v.text.begin() + 1, v.text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      int64_t ver = 0;
      auto [ptr, ec] = std::from_chars(v.text.data() + 1, v.text.data() + v.text.size(), ver);
      if (ec != std::errc()) return ErrorAt(v);
      (void)ptr;
      tt.version = ver;
      Next();
    } else if (v.kind == TokenKind::kNumber && v.text.size() == 17 &&
               std::all_of(v.text.begin(), v.text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      tt.timestamp_text = v.text;
      // yyyyMMddHHmmssSSS → a timestamp literal.
      std::string s = v.text;
      std::string iso = s.substr(0, 4) + "-" + s.substr(4, 2) + "-" + s.substr(6, 2) + " " +
                        s.substr(8, 2) + ":" + s.substr(10, 2) + ":" + s.substr(12, 2) + "." +
                        s.substr(14, 3);
      bool hz, unsup;
      auto ts = ParseSparkTimestamp(iso, &hz, &unsup);
      if (!ts) {
        return ClassError("DELTA_TIMESTAMP_INVALID",
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
  size_t end_off = p_ > start_tok ? static_cast<size_t>(t_[p_ - 1].end_offset)
                                  : static_cast<size_t>(pos.offset);
  if (s->kind == StatementKind::kSet || s->kind == StatementKind::kReset) {
    // SET consumed raw text up to the terminator.
    end_off = static_cast<size_t>(Peek().pos.offset);
  }
  std::string_view text = sql_.substr(pos.offset, end_off - pos.offset);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
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

Result<StatementNode> Parser::Create() {
  SourcePos pos = Next().pos;  // CREATE
  bool or_replace = false;
  if (AtKw("OR") && AtKw("REPLACE", 1)) {
    Next();
    Next();
    or_replace = true;
  }
  if (AtKw("SCHEMA") || AtKw("DATABASE") || AtKw("NAMESPACE")) {
    Next();
    if (or_replace) return ErrorAt(t_[p_ - 1]);
    auto s = std::make_unique<CreateSchemaStatement>();
    if (AtKw("IF")) {
      Next();
      SILT_RETURN_NOT_OK(ExpectKw("NOT"));
      SILT_RETURN_NOT_OK(ExpectKw("EXISTS"));
      s->if_not_exists = true;
    }
    SILT_ASSIGN_OR_RETURN(s->name, QualifiedName());
    while (true) {
      if (AcceptKw("COMMENT")) {
        SILT_ASSIGN_OR_RETURN(s->comment, StringLit());
      } else if (AcceptKw("LOCATION")) {
        SILT_ASSIGN_OR_RETURN(s->location, StringLit());
      } else if (AtKw("WITH") && (AtKw("DBPROPERTIES", 1) || AtKw("PROPERTIES", 1))) {
        Next();
        Next();
        SILT_ASSIGN_OR_RETURN(s->properties, PropertyListClause());
      } else {
        break;
      }
    }
    return StatementNode(std::move(s));
  }
  bool temporary = false;
  if (AcceptKw("GLOBAL")) {
    if (!AtKw("TEMP") && !AtKw("TEMPORARY")) return ErrorHere();
  }
  if (AtKw("TEMP") || AtKw("TEMPORARY")) {
    Next();
    temporary = true;
  }
  if (AtKw("VIEW")) return CreateView(or_replace, temporary, pos);
  if (temporary) return ErrorHere();
  bool external = AcceptKw("EXTERNAL");
  if (!AtKw("TABLE")) return ErrorHere();
  SILT_ASSIGN_OR_RETURN(auto st, CreateTable(or_replace, false, pos));
  static_cast<CreateTableStatement*>(st.get())->external = external;
  return st;
}

Result<int64_t> Parser::SignedInteger() {
  bool neg = false;
  if (AtOp("-") || AtOp("+")) neg = Next().IsOp("-");
  const Token& t = Peek();
  if (t.kind != TokenKind::kNumber) return ErrorHere();
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
  if (ec != std::errc() || ptr != t.text.data() + t.text.size()) return ErrorHere();
  Next();
  return neg ? -v : v;
}

Result<ColumnDef> Parser::ColumnDefinition(bool require_type, bool qualified_name) {
  ColumnDef c;
  c.pos = Peek().pos;
  if (qualified_name) {
    SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
    for (size_t i = 0; i < parts.size(); ++i) c.name += (i ? "." : "") + parts[i];
  } else {
    SILT_ASSIGN_OR_RETURN(c.name, Identifier());
  }
  if (!require_type && (AtOp(",") || AtOp(")"))) return c;
  SILT_ASSIGN_OR_RETURN(c.type, DataTypeRule());
  std::set<std::string> seen;
  auto once = [&](const std::string& clause, const SourcePos& p) -> Status {
    if (!seen.insert(clause).second) {
      return ClassError("DUPLICATE_CLAUSES",
                        "Found duplicate clauses: " + clause + ". Please, remove one of them", p);
    }
    return Status::OK();
  };
  while (true) {
    SourcePos p = Peek().pos;
    if (AtKw("NOT") && AtKw("NULL", 1)) {
      Next();
      Next();
      SILT_RETURN_NOT_OK(once("NOT NULL", p));
      c.nullable = false;
    } else if (AtKw("NULL")) {
      Next();
    } else if (AcceptKw("COMMENT")) {
      SILT_RETURN_NOT_OK(once("COMMENT", p));
      SILT_ASSIGN_OR_RETURN(c.comment, StringLit());
    } else if (AcceptKw("DEFAULT")) {
      SILT_RETURN_NOT_OK(once("DEFAULT", p));
      SILT_ASSIGN_OR_RETURN(c.default_value, Expression());
    } else if (AtKw("GENERATED")) {
      Next();
      SILT_RETURN_NOT_OK(once("GENERATED", p));
      bool always = true;
      if (AcceptKw("ALWAYS")) {
        always = true;
      } else if (AtKw("BY") && AtKw("DEFAULT", 1)) {
        Next();
        Next();
        always = false;
      } else {
        return ErrorHere();
      }
      SILT_RETURN_NOT_OK(ExpectKw("AS"));
      if (AcceptKw("IDENTITY")) {
        c.identity = true;
        c.identity_always = always;
        if (AcceptOp("(")) {
          while (!AtOp(")")) {
            if (AtKw("START")) {
              Next();
              SILT_RETURN_NOT_OK(ExpectKw("WITH"));
              SILT_ASSIGN_OR_RETURN(c.identity_start, SignedInteger());
            } else if (AtKw("INCREMENT")) {
              Next();
              SILT_RETURN_NOT_OK(ExpectKw("BY"));
              SILT_ASSIGN_OR_RETURN(c.identity_step, SignedInteger());
            } else {
              return ErrorHere();
            }
          }
          SILT_RETURN_NOT_OK(ExpectOp(")"));
        }
      } else {
        if (!always) return ErrorHere();
        SILT_RETURN_NOT_OK(ExpectOp("("));
        SILT_ASSIGN_OR_RETURN(c.generated_as, Expression());
        SILT_RETURN_NOT_OK(ExpectOp(")"));
      }
    } else {
      break;
    }
  }
  return c;
}

Result<std::vector<ColumnDef>> Parser::ColumnDefList() {
  SILT_RETURN_NOT_OK(ExpectOp("("));
  std::vector<ColumnDef> cols;
  do {
    SILT_ASSIGN_OR_RETURN(auto c, ColumnDefinition(true, false));
    cols.push_back(std::move(c));
  } while (AcceptOp(","));
  SILT_RETURN_NOT_OK(ExpectOp(")"));
  return cols;
}

Result<TtlClause> Parser::TtlClauseBody() {
  // After DELETE: ROWS <n> DAYS AFTER <column>
  SILT_RETURN_NOT_OK(ExpectKw("ROWS"));
  TtlClause ttl;
  SourcePos npos = Peek().pos;
  bool neg = false;
  if (AtOp("-")) {
    Next();
    neg = true;
  }
  const Token& n = Peek();
  if (n.kind != TokenKind::kNumber) return ErrorHere();
  bool digits = std::all_of(n.text.begin(), n.text.end(),
                            [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(n.text.data(), n.text.data() + n.text.size(), v);
  (void)ptr;
  if (neg || !digits || ec != std::errc() || v > INT32_MAX) {
    return ClassError("AUTO_TTL_INVALID_EXPIRATION_DAYS",
                      "The expiration period must be a non-negative integer number of days that "
                      "fits in INT, got " +
                          std::string(neg ? "-" : "") + n.text,
                      npos);
  }
  Next();
  ttl.amount = v;
  if (!AtKw("DAYS")) return ErrorHere();
  Next();
  ttl.unit = "days";
  SILT_RETURN_NOT_OK(ExpectKw("AFTER"));
  SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
  for (size_t i = 0; i < parts.size(); ++i) ttl.column += (i ? "." : "") + parts[i];
  return ttl;
}

Result<StatementNode> Parser::CreateTable(bool or_replace, bool replace_only, SourcePos pos) {
  (void)pos;
  SILT_RETURN_NOT_OK(ExpectKw("TABLE"));
  auto s = std::make_unique<CreateTableStatement>();
  s->or_replace = or_replace;
  s->replace_only = replace_only;
  if (AtKw("IF") && AtKw("NOT", 1) && AtKw("EXISTS", 2)) {
    Next();
    Next();
    Next();
    s->if_not_exists = true;
    if (or_replace) {
      return ClassError("INVALID_SQL_SYNTAX",
                        "Invalid SQL syntax: CREATE OR REPLACE TABLE IF NOT EXISTS is not allowed",
                        pos);
    }
  }
  SILT_ASSIGN_OR_RETURN(s->name, ParseTableName(false));
  if (AtOp("(") && !AtQueryStart()) {
    Next();
    do {
      if (AtKw("CONSTRAINT")) {
        Next();
        SILT_ASSIGN_OR_RETURN(auto cname, Identifier());
        SILT_RETURN_NOT_OK(ExpectKw("CHECK"));
        SILT_RETURN_NOT_OK(ExpectOp("("));
        const int start = Peek().pos.offset;
        SILT_ASSIGN_OR_RETURN(auto cexpr, Expression());
        s->constraint_texts.push_back(SourceText(start, Peek().pos.offset));
        SILT_RETURN_NOT_OK(ExpectOp(")"));
        s->constraints.emplace_back(std::move(cname), std::move(cexpr));
        continue;
      }
      if (AtKw("PRIMARY") || AtKw("FOREIGN") || AtKw("UNIQUE")) {
        return Status::NotImplemented("PRIMARY KEY / FOREIGN KEY / UNIQUE constraints");
      }
      SILT_ASSIGN_OR_RETURN(auto c, ColumnDefinition(false, false));
      s->columns.push_back(std::move(c));
    } while (AcceptOp(","));
    SILT_RETURN_NOT_OK(ExpectOp(")"));
  }
  bool untyped = false;
  for (const auto& c : s->columns) untyped = untyped || !c.type;
  std::set<std::string> seen;
  auto once = [&](const std::string& clause, const SourcePos& p) -> Status {
    if (!seen.insert(clause).second) {
      return ClassError("DUPLICATE_CLAUSES",
                        "Found duplicate clauses: " + clause + ". Please, remove one of them", p);
    }
    return Status::OK();
  };
  while (true) {
    SourcePos p = Peek().pos;
    if (AcceptKw("USING")) {
      SILT_RETURN_NOT_OK(once("USING", p));
      SILT_ASSIGN_OR_RETURN(auto fmt, Identifier());
      s->using_format = AsciiLower(fmt);
    } else if (AcceptKw("OPTIONS")) {
      SILT_RETURN_NOT_OK(once("OPTIONS", p));
      SILT_ASSIGN_OR_RETURN(s->options, PropertyListClause());
    } else if (AtKw("PARTITIONED") && AtKw("BY", 1)) {
      Next();
      Next();
      SILT_RETURN_NOT_OK(once("PARTITIONED BY", p));
      SILT_RETURN_NOT_OK(ExpectOp("("));
      do {
        SILT_ASSIGN_OR_RETURN(auto c, ColumnDefinition(false, false));
        s->partition_by.push_back(c.name);
        if (c.type) s->partition_columns.push_back(std::move(c));
      } while (AcceptOp(","));
      SILT_RETURN_NOT_OK(ExpectOp(")"));
    } else if (AtKw("CLUSTER") && AtKw("BY", 1)) {
      Next();
      Next();
      SILT_RETURN_NOT_OK(once("CLUSTER BY", p));
      SILT_RETURN_NOT_OK(ExpectOp("("));
      do {
        SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
        std::string joined;
        for (size_t i = 0; i < parts.size(); ++i) joined += (i ? "." : "") + parts[i];
        s->cluster_by.push_back(std::move(joined));
      } while (AcceptOp(","));
      SILT_RETURN_NOT_OK(ExpectOp(")"));
    } else if (AcceptKw("LOCATION")) {
      SILT_RETURN_NOT_OK(once("LOCATION", p));
      SILT_ASSIGN_OR_RETURN(s->location, StringLit());
    } else if (AcceptKw("COMMENT")) {
      SILT_RETURN_NOT_OK(once("COMMENT", p));
      SILT_ASSIGN_OR_RETURN(s->comment, StringLit());
    } else if (AcceptKw("TBLPROPERTIES")) {
      SILT_RETURN_NOT_OK(once("TBLPROPERTIES", p));
      SILT_ASSIGN_OR_RETURN(s->properties, PropertyListClause());
    } else if (AtKw("DELETE") && AtKw("ROWS", 1)) {
      Next();
      SILT_RETURN_NOT_OK(once("DELETE ROWS", p));
      SILT_ASSIGN_OR_RETURN(s->ttl, TtlClauseBody());
    } else {
      break;
    }
  }
  if (AcceptKw("AS") || AtQueryStart()) {
    SILT_ASSIGN_OR_RETURN(s->as_query, Query());
  } else if (untyped) {
    return ErrorHere("column types are required unless the table is created AS a query");
  }
  return StatementNode(std::move(s));
}

Result<StatementNode> Parser::CreateView(bool or_replace, bool temporary, SourcePos pos) {
  (void)pos;
  Next();  // VIEW
  auto v = std::make_unique<CreateViewStatement>();
  v->or_replace = or_replace;
  v->temporary = temporary;
  if (AtKw("IF") && AtKw("NOT", 1) && AtKw("EXISTS", 2)) {
    Next();
    Next();
    Next();
    v->if_not_exists = true;
  }
  SILT_ASSIGN_OR_RETURN(v->name, ParseTableName(false));
  if (AtOp("(")) {
    Next();
    do {
      SILT_ASSIGN_OR_RETURN(auto id, Identifier());
      if (AcceptKw("COMMENT")) {
        SILT_ASSIGN_OR_RETURN(auto ignored, StringLit());
        (void)ignored;
      }
      v->column_aliases.push_back(std::move(id));
    } while (AcceptOp(","));
    SILT_RETURN_NOT_OK(ExpectOp(")"));
  }
  while (true) {
    if (AcceptKw("COMMENT")) {
      SILT_ASSIGN_OR_RETURN(v->comment, StringLit());
    } else if (AcceptKw("TBLPROPERTIES")) {
      SILT_ASSIGN_OR_RETURN(auto ignored, PropertyListClause());
      (void)ignored;
    } else {
      break;
    }
  }
  SILT_RETURN_NOT_OK(ExpectKw("AS"));
  size_t begin = static_cast<size_t>(Peek().pos.offset);
  SILT_ASSIGN_OR_RETURN(v->query, Query());
  size_t end = p_ > 0 ? static_cast<size_t>(t_[p_ - 1].end_offset) : begin;
  v->query_text = std::string(sql_.substr(begin, end > begin ? end - begin : 0));
  return StatementNode(std::move(v));
}

Result<StatementNode> Parser::Drop() {
  Next();  // DROP
  auto if_exists = [&]() {
    if (AtKw("IF") && AtKw("EXISTS", 1)) {
      Next();
      Next();
      return true;
    }
    return false;
  };
  if (AtKw("SCHEMA") || AtKw("DATABASE") || AtKw("NAMESPACE")) {
    Next();
    auto s = std::make_unique<DropSchemaStatement>();
    s->if_exists = if_exists();
    SILT_ASSIGN_OR_RETURN(s->name, QualifiedName());
    if (AcceptKw("CASCADE")) {
      s->cascade = true;
    } else {
      AcceptKw("RESTRICT");
    }
    return StatementNode(std::move(s));
  }
  if (AcceptKw("TABLE")) {
    auto s = std::make_unique<DropTableStatement>();
    s->if_exists = if_exists();
    SILT_ASSIGN_OR_RETURN(s->name, ParseTableName(false));
    s->purge = AcceptKw("PURGE");
    return StatementNode(std::move(s));
  }
  if (AcceptKw("VIEW")) {
    auto s = std::make_unique<DropViewStatement>();
    s->if_exists = if_exists();
    SILT_ASSIGN_OR_RETURN(s->name, ParseTableName(false));
    return StatementNode(std::move(s));
  }
  return ErrorHere();
}

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
  return ErrorHere();
}

Result<StatementNode> Parser::Alter() {
  Next();  // ALTER
  if (!AcceptKw("TABLE")) return ErrorHere();
  auto s = std::make_unique<AlterTableStatement>();
  SILT_ASSIGN_OR_RETURN(s->name, ParseTableName(false));
  using A = AlterTableStatement::Action;
  auto if_exists = [&]() {
    if (AtKw("IF") && AtKw("EXISTS", 1)) {
      Next();
      Next();
      return true;
    }
    return false;
  };
  auto position = [&](ColumnDef* c) -> Status {
    if (AcceptKw("FIRST")) {
      c->position_first = true;
    } else if (AcceptKw("AFTER")) {
      SILT_ASSIGN_OR_RETURN(c->position_after, Identifier());
    }
    return Status::OK();
  };
  if (AcceptKw("ADD")) {
    if (AtKw("CONSTRAINT")) {
      Next();
      s->action = A::kAddConstraint;
      SILT_ASSIGN_OR_RETURN(s->constraint_name, Identifier());
      SILT_RETURN_NOT_OK(ExpectKw("CHECK"));
      SILT_RETURN_NOT_OK(ExpectOp("("));
      const int start = Peek().pos.offset;
      SILT_ASSIGN_OR_RETURN(s->constraint_expr, Expression());
      s->constraint_text = SourceText(start, Peek().pos.offset);
      SILT_RETURN_NOT_OK(ExpectOp(")"));
      return StatementNode(std::move(s));
    }
    if (AtKw("PARTITION")) return Status::NotImplemented("ALTER TABLE ADD PARTITION");
    if (!AcceptKw("COLUMNS")) {
      if (!AcceptKw("COLUMN")) return ErrorHere();
    }
    s->action = A::kAddColumns;
    bool paren = AcceptOp("(");
    do {
      SILT_ASSIGN_OR_RETURN(auto c, ColumnDefinition(true, true));
      SILT_RETURN_NOT_OK(position(&c));
      s->columns.push_back(std::move(c));
    } while (AcceptOp(","));
    if (paren) SILT_RETURN_NOT_OK(ExpectOp(")"));
    return StatementNode(std::move(s));
  }
  if (AtKw("DROP")) {
    Next();
    if (AcceptKw("CONSTRAINT")) {
      s->action = A::kDropConstraint;
      s->if_exists = if_exists();
      SILT_ASSIGN_OR_RETURN(s->constraint_name, Identifier());
      return StatementNode(std::move(s));
    }
    if (AcceptKw("TTL") || (AtKw("ROW") && AtKw("DELETION", 1))) {
      if (AtKw("ROW")) {
        Next();
        Next();
      }
      s->action = A::kSetTtl;
      s->ttl.reset();
      return StatementNode(std::move(s));
    }
    if (AtKw("PARTITION")) return Status::NotImplemented("ALTER TABLE DROP PARTITION");
    if (!AcceptKw("COLUMNS") && !AcceptKw("COLUMN")) return ErrorHere();
    s->action = A::kDropColumns;
    s->if_exists = if_exists();
    bool paren = AcceptOp("(");
    do {
      SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
      std::string joined;
      for (size_t i = 0; i < parts.size(); ++i) joined += (i ? "." : "") + parts[i];
      s->column_names.push_back(std::move(joined));
    } while (AcceptOp(","));
    if (paren) SILT_RETURN_NOT_OK(ExpectOp(")"));
    return StatementNode(std::move(s));
  }
  if (AcceptKw("RENAME")) {
    if (AcceptKw("COLUMN")) {
      s->action = A::kRenameColumn;
      SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
      std::string joined;
      for (size_t i = 0; i < parts.size(); ++i) joined += (i ? "." : "") + parts[i];
      s->column_names.push_back(std::move(joined));
      SILT_RETURN_NOT_OK(ExpectKw("TO"));
      SILT_ASSIGN_OR_RETURN(s->new_name, Identifier());
      return StatementNode(std::move(s));
    }
    SILT_RETURN_NOT_OK(ExpectKw("TO"));
    s->action = A::kRenameTable;
    SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
    for (size_t i = 0; i < parts.size(); ++i) s->new_name += (i ? "." : "") + parts[i];
    return StatementNode(std::move(s));
  }
  if (AtKw("ALTER") || AtKw("CHANGE")) {
    Next();
    AcceptKw("COLUMN");
    s->action = A::kAlterColumn;
    ColumnDef c;
    c.pos = Peek().pos;
    SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
    for (size_t i = 0; i < parts.size(); ++i) c.name += (i ? "." : "") + parts[i];
    if (AcceptKw("TYPE")) {
      SILT_ASSIGN_OR_RETURN(s->new_type, DataTypeRule());
    } else if (AtKw("SET") && AtKw("NOT", 1)) {
      Next();
      Next();
      SILT_RETURN_NOT_OK(ExpectKw("NULL"));
      s->set_not_null = true;
    } else if (AtKw("DROP") && AtKw("NOT", 1)) {
      Next();
      Next();
      SILT_RETURN_NOT_OK(ExpectKw("NULL"));
      s->set_not_null = false;
    } else if (AtKw("SET") && AtKw("DEFAULT", 1)) {
      Next();
      Next();
      SILT_ASSIGN_OR_RETURN(c.default_value, Expression());
    } else if (AtKw("DROP") && AtKw("DEFAULT", 1)) {
      Next();
      Next();
      c.drop_default = true;
    } else if (AcceptKw("COMMENT")) {
      SILT_ASSIGN_OR_RETURN(auto cm, StringLit());
      s->new_comment = cm;
    } else if (AtKw("FIRST") || AtKw("AFTER")) {
      SILT_RETURN_NOT_OK(position(&c));
    } else if (IsIdentToken(Peek())) {
      // Hive-style CHANGE COLUMN old new type [COMMENT …]: only the same name is supported.
      SILT_ASSIGN_OR_RETURN(auto new_name, Identifier());
      if (AsciiLower(new_name) != AsciiLower(parts.back())) {
        return Status::NotImplemented("CHANGE COLUMN with a new name (use RENAME COLUMN)");
      }
      SILT_ASSIGN_OR_RETURN(s->new_type, DataTypeRule());
      if (AcceptKw("COMMENT")) {
        SILT_ASSIGN_OR_RETURN(auto cm, StringLit());
        s->new_comment = cm;
      }
    } else {
      return ErrorHere();
    }
    if (AtKw("FIRST") || AtKw("AFTER")) SILT_RETURN_NOT_OK(position(&c));
    s->columns.push_back(std::move(c));
    return StatementNode(std::move(s));
  }
  if (AtKw("SET")) {
    Next();
    if (AcceptKw("TBLPROPERTIES")) {
      s->action = A::kSetProperties;
      SILT_ASSIGN_OR_RETURN(s->properties, PropertyListClause());
      return StatementNode(std::move(s));
    }
    if (AcceptKw("DELETE")) {
      s->action = A::kSetTtl;
      SILT_ASSIGN_OR_RETURN(auto ttl, TtlClauseBody());
      s->ttl = std::move(ttl);
      return StatementNode(std::move(s));
    }
    if (AtKw("LOCATION")) return Status::NotImplemented("ALTER TABLE SET LOCATION");
    return ErrorHere();
  }
  if (AtKw("DELETE") && AtKw("ROWS", 1)) {
    Next();
    s->action = A::kSetTtl;
    SILT_ASSIGN_OR_RETURN(auto ttl, TtlClauseBody());
    s->ttl = std::move(ttl);
    return StatementNode(std::move(s));
  }
  if (AcceptKw("UNSET")) {
    SILT_RETURN_NOT_OK(ExpectKw("TBLPROPERTIES"));
    s->action = A::kUnsetProperties;
    s->if_exists = if_exists();
    SILT_ASSIGN_OR_RETURN(auto props, PropertyListClause());
    for (auto& kv : props) s->keys.push_back(kv.first);
    return StatementNode(std::move(s));
  }
  if (AtKw("CLUSTER") && AtKw("BY", 1)) {
    Next();
    Next();
    s->action = A::kClusterBy;
    if (AcceptKw("NONE")) return StatementNode(std::move(s));
    SILT_RETURN_NOT_OK(ExpectOp("("));
    do {
      SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
      std::string joined;
      for (size_t i = 0; i < parts.size(); ++i) joined += (i ? "." : "") + parts[i];
      s->column_names.push_back(std::move(joined));
    } while (AcceptOp(","));
    SILT_RETURN_NOT_OK(ExpectOp(")"));
    return StatementNode(std::move(s));
  }
  return ErrorHere();
}

Result<StatementNode> Parser::Insert() {
  Next();  // INSERT
  auto s = std::make_unique<InsertStatement>();
  if (AcceptKw("OVERWRITE")) {
    s->overwrite = true;
  } else {
    SILT_RETURN_NOT_OK(ExpectKw("INTO"));
  }
  AcceptKw("TABLE");
  SILT_ASSIGN_OR_RETURN(s->table, ParseTableName(false));
  if (AtKw("PARTITION") && AtOp("(", 1)) {
    Next();
    Next();
    do {
      SILT_ASSIGN_OR_RETURN(auto col, Identifier());
      ExprNode val;
      if (AcceptOp("=")) {
        SILT_ASSIGN_OR_RETURN(val, Expression());
      }
      s->partition_spec.emplace_back(std::move(col), std::move(val));
    } while (AcceptOp(","));
    SILT_RETURN_NOT_OK(ExpectOp(")"));
  }
  if (AtKw("IF") && AtKw("NOT", 1) && AtKw("EXISTS", 2)) {
    Next();
    Next();
    Next();
    s->if_not_exists = true;
  }
  if (AtKw("BY") && AtKw("NAME", 1)) {
    Next();
    Next();
    s->by_name = true;
  } else if (AtOp("(") && !AtQueryStart()) {
    SILT_ASSIGN_OR_RETURN(s->columns, IdentifierList());
  }
  if (AtKw("REPLACE") && AtKw("WHERE", 1)) {
    Next();
    Next();
    SILT_ASSIGN_OR_RETURN(s->replace_where, Expression());
  }
  if (!AtQueryStart()) return ErrorHere();
  SILT_ASSIGN_OR_RETURN(s->query, Query());
  return StatementNode(std::move(s));
}

Result<StatementNode> Parser::Delete() {
  Next();
  SILT_RETURN_NOT_OK(ExpectKw("FROM"));
  auto s = std::make_unique<DeleteStatement>();
  SILT_ASSIGN_OR_RETURN(s->table, ParseTableName(false));
  if (AcceptKw("AS")) {
    SILT_ASSIGN_OR_RETURN(s->alias, Identifier());
  } else if (AtBareAlias()) {
    s->alias = Next().text;
  }
  if (AcceptKw("WHERE")) {
    SILT_ASSIGN_OR_RETURN(s->where, Expression());
  }
  return StatementNode(std::move(s));
}

Result<std::vector<Assignment>> Parser::Assignments() {
  std::vector<Assignment> out;
  do {
    Assignment a;
    SILT_ASSIGN_OR_RETURN(a.column, QualifiedName());
    SILT_RETURN_NOT_OK(ExpectOp("="));
    if (AtKw("DEFAULT") && (AtOp(",", 1) || AtEndAfter(1) || AtKw("WHERE", 1) ||
                            AtKw("WHEN", 1))) {
      Next();
    } else {
      SILT_ASSIGN_OR_RETURN(a.value, Expression());
    }
    out.push_back(std::move(a));
  } while (AcceptOp(","));
  return out;
}

Result<StatementNode> Parser::Update() {
  Next();
  auto s = std::make_unique<UpdateStatement>();
  SILT_ASSIGN_OR_RETURN(s->table, ParseTableName(false));
  if (AcceptKw("AS")) {
    SILT_ASSIGN_OR_RETURN(s->alias, Identifier());
  } else if (AtBareAlias()) {
    s->alias = Next().text;
  }
  SILT_RETURN_NOT_OK(ExpectKw("SET"));
  SILT_ASSIGN_OR_RETURN(s->set, Assignments());
  if (AcceptKw("WHERE")) {
    SILT_ASSIGN_OR_RETURN(s->where, Expression());
  }
  return StatementNode(std::move(s));
}

Result<StatementNode> Parser::Merge() {
  Next();  // MERGE
  auto s = std::make_unique<MergeStatement>();
  if (AtKw("WITH") && AtKw("SCHEMA", 1) && AtKw("EVOLUTION", 2)) {
    Next();
    Next();
    Next();
    s->with_schema_evolution = true;
  }
  SILT_RETURN_NOT_OK(ExpectKw("INTO"));
  SILT_ASSIGN_OR_RETURN(s->target, ParseTableName(false));
  if (AcceptKw("AS")) {
    SILT_ASSIGN_OR_RETURN(s->target_alias, Identifier());
  } else if (AtBareAlias()) {
    s->target_alias = Next().text;
  }
  SILT_RETURN_NOT_OK(ExpectKw("USING"));
  SILT_ASSIGN_OR_RETURN(s->source, RelationPrimary());
  SILT_RETURN_NOT_OK(ExpectKw("ON"));
  SILT_ASSIGN_OR_RETURN(s->on, Expression());
  if (!AtKw("WHEN")) return ErrorHere();
  while (AtKw("WHEN")) {
    MergeClause c;
    c.pos = Next().pos;
    if (AcceptKw("MATCHED")) {
      c.match = MergeClause::Match::kMatched;
    } else {
      SILT_RETURN_NOT_OK(ExpectKw("NOT"));
      SILT_RETURN_NOT_OK(ExpectKw("MATCHED"));
      c.match = MergeClause::Match::kNotMatched;
      if (AcceptKw("BY")) {
        if (AcceptKw("SOURCE")) {
          c.match = MergeClause::Match::kNotMatchedBySource;
        } else {
          SILT_RETURN_NOT_OK(ExpectKw("TARGET"));
        }
      }
    }
    if (AcceptKw("AND")) {
      SILT_ASSIGN_OR_RETURN(c.condition, Expression());
    }
    SILT_RETURN_NOT_OK(ExpectKw("THEN"));
    if (c.match == MergeClause::Match::kNotMatched) {
      SILT_RETURN_NOT_OK(ExpectKw("INSERT"));
      if (AcceptOp("*")) {
        c.action = MergeClause::Action::kInsertStar;
      } else {
        c.action = MergeClause::Action::kInsert;
        if (AtOp("(")) {
          Next();
          do {
            SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
            std::string joined;
            for (size_t i = 0; i < parts.size(); ++i) joined += (i ? "." : "") + parts[i];
            c.insert_columns.push_back(std::move(joined));
          } while (AcceptOp(","));
          SILT_RETURN_NOT_OK(ExpectOp(")"));
        }
        SILT_RETURN_NOT_OK(ExpectKw("VALUES"));
        SILT_RETURN_NOT_OK(ExpectOp("("));
        SILT_ASSIGN_OR_RETURN(c.insert_values, ExpressionList());
        SILT_RETURN_NOT_OK(ExpectOp(")"));
      }
    } else {
      if (AcceptKw("DELETE")) {
        c.action = MergeClause::Action::kDelete;
      } else {
        SILT_RETURN_NOT_OK(ExpectKw("UPDATE"));
        SILT_RETURN_NOT_OK(ExpectKw("SET"));
        if (AcceptOp("*")) {
          if (c.match == MergeClause::Match::kNotMatchedBySource) {
            return ErrorAt(t_[p_ - 1]);
          }
          c.action = MergeClause::Action::kUpdateStar;
        } else {
          c.action = MergeClause::Action::kUpdate;
          SILT_ASSIGN_OR_RETURN(c.set, Assignments());
        }
      }
    }
    s->clauses.push_back(std::move(c));
  }
  return StatementNode(std::move(s));
}

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
      if (last == 'D' && body.size() >= 2 &&
          AsciiToUpper(body[body.size() - 2]) == 'B') {
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
    return ClassError("DUPLICATE_CLAUSES",
                      "Found duplicate clauses: " + clause + ". Please, remove one of them", p);
  };
  (void)type_pos;
  if (n_type > 1) return dup("LITE/FULL", pos);
  if (n_inventory > 1) return dup("INVENTORY", pos);
  if (n_retain > 1) return dup("RETAIN", pos);
  if (n_dry > 1) return dup("DRY RUN", pos);
  if (n_inventory > 0 && lite) {
    return ClassError("_LEGACY_ERROR_TEMP_0035",
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
    if (u == "TIME ZONE" && (rest.size() == 9 || std::isspace(static_cast<unsigned char>(rest[9])))) {
      std::string_view v = trim(rest.substr(9));
      s->key = "spark.sql.session.timeZone";
      if (AsciiUpper(v) == "LOCAL") {
        s->value = "LOCAL";
      } else if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"') && v.back() == v.front()) {
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
        return ClassError("INVALID_SET_SYNTAX",
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
    return ClassError("INVALID_SET_SYNTAX",
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
  while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front()))) rest.remove_prefix(1);
  while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back()))) rest.remove_suffix(1);
  if (rest.size() >= 2 && rest.front() == '`' && rest.back() == '`') rest = rest.substr(1, rest.size() - 2);
  s->key = std::string(rest);
  p_ = j;
  return StatementNode(std::move(s));
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

}  // namespace

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
