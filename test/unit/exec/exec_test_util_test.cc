// Definitions for exec_test_util.h, and weak fallbacks for the expression core
// (exec/expression.cc, exec/operator.cc) while those land on other branches: a real definition
// anywhere in the link replaces these, so they only keep the operator tests linkable. The
// fallback evaluator handles columns, constants, calls, casts and AND/OR/NOT/IS [NOT] NULL
// (non-lazily); it is not the engine's evaluator. Delete the weak block once
// exec/expression.cc is merged.
#include "unit/exec/exec_test_util.h"

#include <gtest/gtest.h>

#include "exec/kernel_util.h"

namespace silt::exec {

namespace testing {

ExprPtr CompareInt(std::string op, ExprPtr a, ExprPtr b) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCall;
  e->type = DataType::Boolean();
  e->name = op;
  e->children = {a, b};
  bool wide_a = a->type->id() == TypeId::kInt64, wide_b = b->type->id() == TypeId::kInt64;
  e->kernel = [op, wide_a, wide_b](std::span<const Arg> args, size_t rows, const EvalContext&,
                                   Vector* out) {
    out->ResizeUninitialized(rows);
    uint8_t* dst = out->data<uint8_t>();
    for (size_t i = 0; i < rows; ++i) {
      size_t ia = args[0].index(i), ib = args[1].index(i);
      int64_t x =
          wide_a ? args[0].vector->data<int64_t>()[ia] : args[0].vector->data<int32_t>()[ia];
      int64_t y =
          wide_b ? args[1].vector->data<int64_t>()[ib] : args[1].vector->data<int32_t>()[ib];
      bool r = op == "<"    ? x < y
               : op == "<=" ? x <= y
               : op == ">"  ? x > y
               : op == ">=" ? x >= y
               : op == "="  ? x == y
                            : x != y;
      dst[i] = r;
    }
    PropagateNulls(args, rows, out);
    return Status::OK();
  };
  return e;
}

ExprPtr AddInt64(ExprPtr a, ExprPtr b) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCall;
  e->type = DataType::Int64();
  e->name = "+";
  e->children = {a, b};
  e->kernel = [](std::span<const Arg> args, size_t rows, const EvalContext&, Vector* out) {
    MapBinary<int64_t, int64_t, int64_t>(args[0], args[1], rows, out,
                                         [](int64_t x, int64_t y) { return x + y; });
    return Status::OK();
  };
  return e;
}

}  // namespace testing

// ---------------------------------------------------------------- weak fallbacks

__attribute__((weak)) ExprPtr MakeColumn(int index, TypePtr type, std::string display_name,
                                         bool nullable) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kColumn;
  e->column = index;
  e->type = std::move(type);
  e->name = std::move(display_name);
  e->nullable = nullable;
  return e;
}

__attribute__((weak)) ExprPtr MakeConstant(Value value) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kConstant;
  e->type = value.type();
  e->nullable = value.is_null();
  e->constant = std::move(value);
  return e;
}

__attribute__((weak)) ExprPtr MakeSpecial(ExprKind kind, TypePtr type,
                                          std::vector<ExprPtr> children, bool has_else) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->type = std::move(type);
  e->children = std::move(children);
  e->has_else = has_else;
  return e;
}

__attribute__((weak)) std::string Expr::ToString() const {
  switch (kind) {
    case ExprKind::kColumn:
      return name + "#" + std::to_string(column);
    case ExprKind::kConstant:
      return constant.ToString();
    default: {
      std::string s = name + "(";
      for (size_t i = 0; i < children.size(); ++i) s += (i ? ", " : "") + children[i]->ToString();
      return s + ")";
    }
  }
}

__attribute__((weak)) Status Evaluate(const Expr& expr, const DataChunk& input,
                                      const EvalContext& ctx, Vector* out) {
  const size_t n = input.size();
  *out = Vector(expr.type);
  switch (expr.kind) {
    case ExprKind::kColumn:
      out->AppendRange(input.columns[expr.column], 0, n);
      return Status::OK();
    case ExprKind::kConstant:
      for (size_t i = 0; i < n; ++i) SILT_RETURN_NOT_OK(out->AppendValue(expr.constant));
      return Status::OK();
    case ExprKind::kCall:
    case ExprKind::kCast: {
      std::vector<Vector> vals;
      vals.reserve(expr.children.size());
      for (const ExprPtr& c : expr.children) {
        vals.emplace_back(c->type);
        SILT_RETURN_NOT_OK(Evaluate(*c, input, ctx, &vals.back()));
      }
      std::vector<Arg> args;
      for (const Vector& v : vals) args.push_back(Arg{&v, false});
      return expr.kernel(args, n, ctx, out);
    }
    case ExprKind::kAnd:
    case ExprKind::kOr:
    case ExprKind::kNot:
    case ExprKind::kIsNull:
    case ExprKind::kIsNotNull: {
      std::vector<Vector> vals;
      for (const ExprPtr& c : expr.children) {
        vals.emplace_back(c->type);
        SILT_RETURN_NOT_OK(Evaluate(*c, input, ctx, &vals.back()));
      }
      for (size_t i = 0; i < n; ++i) {
        if (expr.kind == ExprKind::kIsNull || expr.kind == ExprKind::kIsNotNull) {
          out->Append<uint8_t>(vals[0].IsNull(i) == (expr.kind == ExprKind::kIsNull));
          continue;
        }
        if (expr.kind == ExprKind::kNot) {
          if (vals[0].IsNull(i)) {
            out->AppendNull();
          } else {
            out->Append<uint8_t>(!vals[0].data<uint8_t>()[i]);
          }
          continue;
        }
        bool an = vals[0].IsNull(i), bn = vals[1].IsNull(i);
        bool a = !an && vals[0].data<uint8_t>()[i], b = !bn && vals[1].data<uint8_t>()[i];
        bool is_and = expr.kind == ExprKind::kAnd;
        if (is_and ? ((!an && !a) || (!bn && !b)) : ((!an && a) || (!bn && b))) {
          out->Append<uint8_t>(!is_and);
        } else if (an || bn) {
          out->AppendNull();
        } else {
          out->Append<uint8_t>(is_and);
        }
      }
      return Status::OK();
    }
    default:
      return Status::NotImplemented("test fallback evaluator: " + expr.ToString());
  }
}

__attribute__((weak)) Status EvaluateFilter(const Expr& predicate, const DataChunk& input,
                                            const EvalContext& ctx, std::vector<uint32_t>* sel) {
  Vector v(DataType::Boolean());
  SILT_RETURN_NOT_OK(Evaluate(predicate, input, ctx, &v));
  sel->clear();
  for (size_t i = 0; i < v.size(); ++i) {
    if (v.IsValid(i) && v.data<uint8_t>()[i]) sel->push_back(static_cast<uint32_t>(i));
  }
  return Status::OK();
}

__attribute__((weak)) bool IsConstantExpr(const Expr& expr) {
  if (expr.kind == ExprKind::kColumn || !expr.deterministic) return false;
  for (const ExprPtr& c : expr.children) {
    if (!IsConstantExpr(*c)) return false;
  }
  return true;
}

__attribute__((weak)) Result<Value> EvaluateConstant(const Expr& expr, const EvalContext& ctx) {
  DataChunk one;
  one.num_rows_without_columns = 1;
  Vector v(expr.type);
  SILT_RETURN_NOT_OK(Evaluate(expr, one, ctx, &v));
  return v.GetValue(0);
}

__attribute__((weak)) Result<std::vector<DataChunk>> CollectAll(Operator& op, ExecContext& ctx) {
  std::vector<DataChunk> out;
  while (true) {
    DataChunk c;
    SILT_ASSIGN_OR_RETURN(bool more, op.Next(ctx, &c));
    if (!more) break;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace silt::exec
