// Private to the parser files: the recursive-descent Parser class (src/sql/parse_*.cc).
// Recursive-descent parser for Spark SQL (SqlBaseParser.g4, non-ANSI keyword rules) plus Delta's
// extensions (DeltaSqlBase.g4). Expression precedence follows Spark's grammar:
//   OR < AND < NOT < predicate (comparison chain, then one of BETWEEN/IN/LIKE/IS …)
//   < | < ^ < & < shifts < + - || < * / % DIV < unary - + ~ < postfix ([i], .f, ::type).
// Comparisons are part of valueExpression in Spark, so `a = b IS NULL` is `(a = b) IS NULL` and
// BETWEEN bounds are full value expressions.
#pragma once

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/ascii.h"
#include "common/error_classes.h"
#include "common/status.h"
#include "sql/ast.h"
#include "sql/lexer.h"
#include "sql/literals.h"
#include "sql/parser.h"

namespace silt::sql::internal {

inline constexpr int kMaxNesting = 256;  // parentheses / subqueries / nested types

// Words that never start an implicit (AS-less) alias: Spark's strict-non-reserved keywords plus
// the words that begin a following clause (ANTLR's prediction picks the clause there).
const std::set<std::string>& NoBareAlias();
// Words that are never a bare column reference (they always continue or end a clause).
const std::set<std::string>& NotAColumn();
const std::set<std::string>& PathFormats();
ExprNode NewExpr(ExprType type, SourcePos pos);
int HeightOf(const ParsedExpr& e);

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
    return Status::InvalidArgument(FormatParseError(sql_, what, t.pos), errc::kParseSyntaxError);
  }
  Status ErrorHere(std::string extra = "") const { return ErrorAt(Peek(), std::move(extra)); }
  Status ClassError(std::string_view cls, std::string msg, const SourcePos& pos) const {
    return Status::InvalidArgument(FormatParseError(sql_, msg, pos), std::string(cls));
  }

  // Nesting guard: parentheses, subqueries, nested types.
  struct DepthGuard {
    explicit DepthGuard(int* d) : d_(d) { ++*d_; }
    ~DepthGuard() { --*d_; }
    int* d_;
  };
  Status CheckDepth() const {
    if (depth_ > kMaxNesting) {
      return ClassError(errc::kParseSyntaxError,
                        "The statement is nested too deeply (more than " +
                            std::to_string(kMaxNesting) + " levels of parentheses or subqueries)",
                        Peek().pos);
    }
    return Status::OK();
  }
  Result<ExprNode> Finish(ExprNode e) {
    e->height = HeightOf(*e);
    if (e->height > kMaxExprHeight) {
      return ClassError(
          errc::kParseSyntaxError,
          "The expression is too deep (more than " + std::to_string(kMaxExprHeight) + " levels)",
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
  Result<ExprNode> StructFieldAlias(ExprNode value);
  Result<ExprNode> CaseExpr(SourcePos pos);
  Result<ExprNode> TypedStringLiteral(std::string_view type_kw, SourcePos pos);
  Result<WindowSpec> WindowSpecBody();
  Result<OrderItem> SortItem();
  Result<std::vector<OrderItem>> SortList();
  Result<std::vector<ExprNode>> ExpressionList();
  // "GROUPING SETS ( set [, set]* )" with set = "( [expr [, expr]*] )" or a bare expression.
  Result<std::vector<std::vector<ExprNode>>> GroupingSetsClause();
  bool GroupByHasAnalytics() const;
  Status GroupingAnalytics(silt::sql::Query* q);
  Status PivotClause(silt::sql::Query* q);

  // ---- queries
  Result<QueryNode> Query();
  Result<QueryNode> QueryTerm(int prec);
  Result<QueryNode> QueryPrimary();
  Result<QueryNode> SelectBlock(std::vector<TableRefNode> from_first);
  Status QueryOrganization(struct Query* q);
  Result<QueryNode> ValuesQuery();
  Result<std::vector<TableRefNode>> FromList();
  Result<TableRefNode> Relation();
  // The joins following `left` (none: left itself).
  Result<TableRefNode> JoinChain(TableRefNode left);
  Result<TableRefNode> RelationPrimary();
  Status TableAlias(TableRef* r);
  Result<std::optional<TimeTravel>> TemporalClause();
  Result<std::vector<std::vector<ExprNode>>> ValuesRows();
  bool AtQueryStart(size_t k = 0) const;

  // ---- statements
  Result<StatementNode> StatementBody();
  Result<StatementNode> Explain();
  Result<StatementNode> Create();
  // CREATE [OR REFRESH] STREAMING TABLE / REFRESH STREAMING TABLE (parse_streaming.cc).
  bool AtStreamingTable() const;
  Result<StatementNode> StreamingTable();
  // FROM STREAM(t) / STREAM t [WITH (options)] (sql/streaming_table.h): fills *r, false when the
  // tokens are not a stream reference.
  Result<bool> StreamRelation(TableRef* r);
  Result<StatementNode> CreateTable(bool or_replace, bool replace_only, SourcePos pos);
  Result<StatementNode> CloneOrLikeTail(std::unique_ptr<CreateTableStatement> s);
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

}  // namespace silt::sql::internal
