// TEMPORARY — DELETE AT MERGE. Minimal stand-ins for symbols that other helpers implement
// (exec/expression.cc, exec/functions.cc, the operator helpers), so that branch h-agg's unit tests
// link on their own. Only what the aggregate/set-operator tests use: column references,
// constants, boolean filters over a column, CoerceTo to the same type.
#include <string>

#include "exec/expression.h"
#include "exec/functions.h"
#include "exec/operator.h"

namespace silt::exec {

ExprPtr MakeColumn(int index, TypePtr type, std::string display_name, bool nullable) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kColumn;
  e->type = std::move(type);
  e->column = index;
  e->name = std::move(display_name);
  e->nullable = nullable;
  return e;
}

ExprPtr MakeConstant(Value value) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kConstant;
  e->type = value.type();
  e->nullable = value.is_null();
  e->constant = std::move(value);
  return e;
}

std::string Expr::ToString() const {
  if (kind == ExprKind::kColumn) return name + "#" + std::to_string(column);
  if (kind == ExprKind::kConstant) return constant.ToString();
  return name;
}

Status Evaluate(const Expr& expr, const DataChunk& input, const EvalContext&, Vector* out) {
  *out = Vector(expr.type);
  if (expr.kind == ExprKind::kColumn) {
    out->AppendRange(input.columns[expr.column], 0, input.size());
    return Status::OK();
  }
  if (expr.kind == ExprKind::kConstant) {
    for (size_t i = 0; i < input.size(); ++i) SILT_RETURN_NOT_OK(out->AppendValue(expr.constant));
    return Status::OK();
  }
  return Status::NotImplemented("temporary stub: only columns and constants");
}

Status EvaluateFilter(const Expr& predicate, const DataChunk& input, const EvalContext& ctx,
                      std::vector<uint32_t>* sel) {
  Vector v(predicate.type);
  SILT_RETURN_NOT_OK(Evaluate(predicate, input, ctx, &v));
  sel->clear();
  for (size_t i = 0; i < v.size(); ++i) {
    if (v.IsValid(i) && v.data<uint8_t>()[i]) sel->push_back(static_cast<uint32_t>(i));
  }
  return Status::OK();
}

bool IsConstantExpr(const Expr& expr) { return expr.kind == ExprKind::kConstant; }

Result<ExprPtr> CoerceTo(ExprPtr e, const TypePtr& type, const BindContext&) {
  if (e->type->Equals(*type)) return e;
  return Status::NotImplemented("temporary stub: CoerceTo");
}

Result<std::vector<DataChunk>> CollectAll(Operator& op, ExecContext& ctx) {
  std::vector<DataChunk> out;
  while (true) {
    DataChunk c = DataChunk::FromSchema(op.output_schema());
    SILT_ASSIGN_OR_RETURN(bool more, op.Next(ctx, &c));
    if (!more) break;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace silt::exec
