// Bound expressions: the typed, resolved form of a SQL expression that operators evaluate over
// DataChunks. The binder (planner/) builds them from the AST; functions are resolved when the
// expression is built (BindScalarFunction, BindCast in exec/functions.h), so evaluation does no
// lookups.
//
// Contract
// - An Expr is immutable after construction and shared (ExprPtr); evaluating it from several
//   threads at once is safe (kernels keep no mutable state, or guard it).
// - Evaluate() writes exactly input.size() rows of expr.type into *out (out is reset first).
// - Column references index the input chunk's columns.
// - Special forms (AND, OR, CASE, IF, COALESCE, IN-list) evaluate lazily like Spark: a branch is
//   evaluated only for the rows that reach it, so an ANSI error (division by zero, overflow, bad
//   cast) in a branch no row takes is never raised.
// - Errors are Status values with Spark's error classes (DIVIDE_BY_ZERO, ARITHMETIC_OVERFLOW,
//   CAST_INVALID_INPUT, ...).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"
#include "vector/types.h"
#include "vector/value.h"
#include "vector/vector.h"

namespace silt::exec {

// Per-statement evaluation settings (fixed when the statement starts).
struct EvalContext {
  bool ansi = false;              // spark.sql.ansi.enabled
  std::string time_zone = "UTC";  // spark.sql.session.timeZone (IANA name or +hh:mm)
  int64_t now_micros = 0;         // current_timestamp() of this statement, UTC microseconds
};

// One argument of a scalar kernel. A constant argument is a 1-row vector that applies to every
// row (kernels read row `index(i)`), so `col < 5` does not materialize a column of fives.
struct Arg {
  const Vector* vector = nullptr;
  bool constant = false;
  size_t index(size_t row) const { return constant ? 0 : row; }
};

// A resolved scalar function: computes `rows` rows into *out (already typed as the call's result
// type, empty). Must handle NULL arguments (Spark: most functions return NULL on NULL input).
using ScalarKernel = std::function<Status(std::span<const Arg> args, size_t rows,
                                          const EvalContext& ctx, Vector* out)>;

enum class ExprKind : uint8_t {
  kColumn,    // input column `column`
  kConstant,  // `constant` (typed; may be NULL)
  kCall,      // scalar function `name` with `kernel` over `children`
  kCast,      // children[0] to `type` (kernel holds the conversion; try_cast/ANSI resolved at bind)
  kAnd,       // children[0] AND children[1] (three-valued, lazy)
  kOr,        // children[0] OR children[1] (three-valued, lazy)
  kNot,
  kIsNull,
  kIsNotNull,
  kCase,      // children = when0, then0, when1, then1, ..., [else]; has_else tells
  kCoalesce,  // first non-null child (lazy)
  kIn,        // children[0] IN (children[1..]) with SQL NULL semantics
};

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  ExprKind kind = ExprKind::kConstant;
  TypePtr type;
  bool nullable = true;
  std::vector<ExprPtr> children;
  int column = -1;            // kColumn
  Value constant;             // kConstant
  std::string name;           // kCall: Spark function name (lower case); kColumn: display name
  ScalarKernel kernel;        // kCall, kCast
  bool has_else = false;      // kCase
  bool deterministic = true;  // false for rand(), uuid(): never folded or pushed down

  // Spark-like display text, e.g. "(a#0 > 5)", used by EXPLAIN and error messages.
  std::string ToString() const;
};

ExprPtr MakeColumn(int index, TypePtr type, std::string display_name, bool nullable = true);
ExprPtr MakeConstant(Value value);
// AND/OR/NOT/IS [NOT] NULL/CASE/COALESCE/IN; children must already have compatible types
// (the binder coerces them with CommonType / BindCast).
ExprPtr MakeSpecial(ExprKind kind, TypePtr type, std::vector<ExprPtr> children,
                    bool has_else = false);

// Evaluates `expr` over all rows of `input` into *out (expr.type, input.size() rows).
Status Evaluate(const Expr& expr, const DataChunk& input, const EvalContext& ctx, Vector* out);
// Evaluates a boolean predicate; *sel receives the indices of rows where it is TRUE (NULL and
// FALSE rows are dropped), ascending.
Status EvaluateFilter(const Expr& predicate, const DataChunk& input, const EvalContext& ctx,
                      std::vector<uint32_t>* sel);
// Evaluates an expression that reads no columns (a constant expression) to a single Value.
Result<Value> EvaluateConstant(const Expr& expr, const EvalContext& ctx);
// True when the expression reads no input columns and is deterministic (foldable).
bool IsConstantExpr(const Expr& expr);
// Columns (input indices) the expression reads.
void CollectColumns(const Expr& expr, std::vector<int>* columns);
// The rows `sel` of `in` for evaluating `e` alone: the columns `e` reads are gathered, the others
// are NULL-typed placeholders of the right length (no data).
DataChunk SubsetFor(const Expr& e, const DataChunk& in, const std::vector<uint32_t>& sel);

}  // namespace silt::exec
