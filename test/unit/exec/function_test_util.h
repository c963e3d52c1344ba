// Test helpers for the scalar function families: bind a function through the registry over
// literal and column arguments and run its kernel (and the kernels of any casts CoerceTo
// inserted) with a small evaluator, so the tests do not depend on the expression evaluator.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "exec/expression.h"
#include "exec/function_registry.h"
#include "exec/functions.h"
#include "vector/vector.h"

namespace silt::exec::fntest {

struct TestArg {
  bool is_column = false;
  Value value;                // literal
  TypePtr type;               // column
  std::vector<Value> values;  // column rows
};

inline TestArg Lit(Value v) {
  TestArg a;
  a.value = std::move(v);
  return a;
}
inline TestArg Col(TypePtr type, std::vector<Value> values) {
  TestArg a;
  a.is_column = true;
  a.type = std::move(type);
  a.values = std::move(values);
  return a;
}

inline Value S(std::string s) { return Value::String(std::move(s)); }
inline Value I(int32_t v) { return Value::Int32(v); }
inline Value L(int64_t v) { return Value::Int64(v); }
inline Value D(double v) { return Value::Double(v); }
inline Value B(bool v) { return Value::Boolean(v); }
inline Value Bin(std::string s) { return Value::Binary(std::move(s)); }
inline Value Dec(int p, int s, int128_t u) { return Value::Decimal(p, s, u); }
inline Value Date(int32_t days) { return Value::Integer(DataType::Date(), days); }
inline Value Ts(int64_t micros) { return Value::Integer(DataType::Timestamp(), micros); }
inline Value Null(TypePtr t = DataType::Null()) { return Value::Null(std::move(t)); }

inline Result<ExprPtr> Bind(const std::string& name, const std::vector<TestArg>& args,
                            const BindContext& bctx = {}) {
  std::vector<ExprPtr> children;
  int col = 0;
  for (const TestArg& a : args) {
    auto e = std::make_shared<Expr>();
    if (a.is_column) {
      e->kind = ExprKind::kColumn;
      e->type = a.type;
      e->column = col++;
      e->name = "c" + std::to_string(e->column);
    } else {
      e->kind = ExprKind::kConstant;
      e->type = a.value.type();
      e->constant = a.value;
      e->nullable = a.value.is_null();
    }
    children.push_back(e);
  }
  const ScalarBinder* binder = FunctionRegistry::Get().Find(name);
  if (!binder) return Status::InvalidArgument("unknown function " + name, "UNRESOLVED_ROUTINE");
  return (*binder)(std::move(children), bctx);
}

// Evaluates kColumn/kConstant/kCall/kCast trees; *constant tells whether the result is one row
// that applies to all.
inline Status RunExpr(const Expr& e, const std::vector<Vector>& cols, size_t rows,
                      const EvalContext& ctx, Vector* out, bool* constant) {
  switch (e.kind) {
    case ExprKind::kColumn:
      *out = cols[static_cast<size_t>(e.column)];
      *constant = false;
      return Status::OK();
    case ExprKind::kConstant: {
      *out = Vector(e.type);
      SILT_RETURN_NOT_OK(out->AppendValue(e.constant));
      *constant = true;
      return Status::OK();
    }
    case ExprKind::kCall:
    case ExprKind::kCast: {
      std::vector<Vector> vecs;
      std::vector<bool> consts;
      bool all_const = true;
      for (const ExprPtr& c : e.children) {
        Vector v(c->type);
        bool k = false;
        SILT_RETURN_NOT_OK(RunExpr(*c, cols, rows, ctx, &v, &k));
        vecs.push_back(std::move(v));
        consts.push_back(k);
        all_const = all_const && k;
      }
      std::vector<Arg> args;
      for (size_t i = 0; i < vecs.size(); ++i) args.push_back(Arg{&vecs[i], consts[i]});
      // Constant children fold to one row (as a constant-folding evaluator would), except for
      // non-deterministic calls and calls without arguments, which run over all rows.
      bool fold = all_const && !e.children.empty() && e.deterministic;
      size_t n = fold ? 1 : rows;
      *out = Vector(e.type);
      SILT_RETURN_NOT_OK(e.kernel(args, n, ctx, out));
      if (out->size() != n) {
        return Status::Internal(e.name + " kernel wrote " + std::to_string(out->size()) +
                                " rows, expected " + std::to_string(n));
      }
      *constant = fold;
      return Status::OK();
    }
    default:
      return Status::NotImplemented("test evaluator: special form");
  }
}

// Binds and evaluates over the column rows (all columns must have the same length; with no
// columns, over `rows_without_columns` rows). Returns one Value per row.
inline Result<std::vector<Value>> EvalRows(const std::string& name,
                                           const std::vector<TestArg>& args,
                                           const EvalContext& ctx = {},
                                           const BindContext& bctx = {},
                                           size_t rows_without_columns = 1) {
  SILT_ASSIGN_OR_RETURN(ExprPtr e, Bind(name, args, bctx));
  std::vector<Vector> cols;
  size_t rows = rows_without_columns;
  for (const TestArg& a : args) {
    if (!a.is_column) continue;
    Vector v(a.type);
    for (const Value& x : a.values) SILT_RETURN_NOT_OK(v.AppendValue(x));
    rows = v.size();
    cols.push_back(std::move(v));
  }
  Vector out(e->type);
  bool constant = false;
  SILT_RETURN_NOT_OK(RunExpr(*e, cols, rows, ctx, &out, &constant));
  std::vector<Value> result;
  for (size_t i = 0; i < rows; ++i) result.push_back(out.GetValue(constant ? 0 : i));
  return result;
}

// Evaluates name(literals...) twice — with literal arguments and with every argument as a
// one-row column — and fails unless both agree; returns the value.
// Arguments at index >= literal_from stay literals in the column run too (arguments Spark
// requires to be constant: LIKE's escape, regexp_replace's position, to_binary's format).
inline Result<Value> Eval(const std::string& name, const std::vector<Value>& literals,
                          const EvalContext& ctx = {}, const BindContext& bctx = {},
                          size_t literal_from = SIZE_MAX) {
  std::vector<TestArg> lits, cols;
  for (size_t i = 0; i < literals.size(); ++i) {
    const Value& v = literals[i];
    lits.push_back(Lit(v));
    cols.push_back(i >= literal_from ? Lit(v) : Col(v.type(), {v}));
  }
  SILT_ASSIGN_OR_RETURN(auto a, EvalRows(name, lits, ctx, bctx));
  SILT_ASSIGN_OR_RETURN(auto b, EvalRows(name, cols, ctx, bctx));
  if (!(a[0] == b[0]) || !a[0].type()->Equals(*b[0].type())) {
    return Status::Internal("literal and column evaluation differ: " + a[0].ToJson() + " vs " +
                            b[0].ToJson());
  }
  return a[0];
}

// Result type of a bound call.
inline Result<TypePtr> TypeOf(const std::string& name, const std::vector<Value>& literals,
                              const BindContext& bctx = {}) {
  std::vector<TestArg> lits;
  for (const Value& v : literals) lits.push_back(Lit(v));
  SILT_ASSIGN_OR_RETURN(ExprPtr e, Bind(name, lits, bctx));
  return e->type;
}

// "value as JSON" or "ERROR_CLASS" for compact expectations.
inline std::string J(const Result<Value>& r) {
  if (!r.ok()) return std::string("error:") + std::string(r.status().error_class());
  return r->ToJson();
}

}  // namespace silt::exec::fntest
