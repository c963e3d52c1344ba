// Binding UNION / INTERSECT / EXCEPT and ORDER BY over a plan's output columns.
#include "common/error_classes.h"
#include "planner/binder_impl.h"
#include "vector/type_sql.h"

namespace silt::planner {

Result<PlanPtr> Binder::Impl::BindSetOp(const sql::Query& q) {
  SILT_ASSIGN_OR_RETURN(PlanPtr l, self->BindQuery(*q.left));
  SILT_ASSIGN_OR_RETURN(PlanPtr r, self->BindQuery(*q.right));
  if (q.by_name) {
    std::vector<ExprPtr> exprs;
    for (const auto& c : l->columns) {
      size_t consumed;
      SILT_ASSIGN_OR_RETURN(int i, ResolveColumn({c.name}, r->columns, &consumed));
      exprs.push_back(exec::MakeColumn(i, r->columns[i].type, r->columns[i].name));
    }
    r = MakeProject(r, exprs, Names(l));
  }
  if (l->columns.size() != r->columns.size()) {
    return Status::InvalidArgument(std::string(q.set_op == sql::SetOp::kUnion       ? "UNION"
                                               : q.set_op == sql::SetOp::kIntersect ? "INTERSECT"
                                                                                    : "EXCEPT") +
                                       " can only be performed on inputs with the same number of "
                                       "columns, but the first input has " +
                                       std::to_string(l->columns.size()) +
                                       " columns and the second input has " +
                                       std::to_string(r->columns.size()) + " columns.",
                                   errc::kNumColumnsMismatch);
  }
  std::vector<ExprPtr> le, re;
  bool lcast = false, rcast = false;
  std::vector<OutputColumn> out = l->columns;
  for (size_t i = 0; i < out.size(); ++i) {
    Result<TypePtr> common = exec::CommonType(l->columns[i].type, r->columns[i].type, ctx().bind);
    if (!common.ok()) {
      // Spark's CheckAnalysis for set operations: INCOMPATIBLE_COLUMN_TYPE (also TIME with a
      // timestamp: no implicit conversion).
      static const char* const kOrdinals[] = {"first", "second",  "third",  "fourth", "fifth",
                                              "sixth", "seventh", "eighth", "ninth",  "tenth"};
      std::string ord = i < 10 ? kOrdinals[i] : std::to_string(i + 1) + "th";
      std::string op = q.set_op == sql::SetOp::kUnion       ? "UNION"
                       : q.set_op == sql::SetOp::kIntersect ? "INTERSECT"
                                                            : "EXCEPT";
      if (q.set_all && q.set_op != sql::SetOp::kUnion) op += " ALL";
      return Status::InvalidArgument(
          op + " can only be performed on tables with compatible column types. The " + ord +
              " column of the second table is \"" + TypeSql(r->columns[i].type) +
              "\" type which is not compatible with \"" + TypeSql(l->columns[i].type) +
              "\" at the same column of the first table.",
          errc::kIncompatibleColumnType);
    }
    TypePtr t = *common;
    ExprPtr a = exec::MakeColumn(static_cast<int>(i), l->columns[i].type, l->columns[i].name);
    ExprPtr b = exec::MakeColumn(static_cast<int>(i), r->columns[i].type, r->columns[i].name);
    lcast |= !t->Equals(*l->columns[i].type);
    rcast |= !t->Equals(*r->columns[i].type);
    SILT_ASSIGN_OR_RETURN(a, exec::CoerceTo(a, t, ctx().bind));
    SILT_ASSIGN_OR_RETURN(b, exec::CoerceTo(b, t, ctx().bind));
    le.push_back(a);
    re.push_back(b);
    out[i].type = t;
    out[i].nullable = l->columns[i].nullable || r->columns[i].nullable;
    out[i].qualifier = "";
  }
  if (lcast) l = MakeProject(l, le, Names(l));
  if (rcast) r = MakeProject(r, re, Names(l));
  auto node = std::make_shared<LogicalNode>();
  node->columns = out;
  node->children = {l, r};
  node->set_all = q.set_all;
  if (q.set_op == sql::SetOp::kUnion) {
    node->kind = LogicalKind::kUnionAll;
    if (q.set_all) return PlanPtr(node);
    auto d = std::make_shared<LogicalNode>();
    d->kind = LogicalKind::kDistinct;
    d->columns = out;
    d->children = {node};
    return PlanPtr(d);
  }
  node->kind = LogicalKind::kSetOp;
  node->intersect = q.set_op == sql::SetOp::kIntersect;
  return PlanPtr(node);
}

// ORDER BY over a plan's output by name/ordinal (set operations, VALUES queries).
Result<PlanPtr> Binder::Impl::OrderByOutput(PlanPtr plan, const sql::Query& q) {
  if (q.order_by.empty()) return plan;
  std::vector<SortSpec> keys;
  for (const auto& o : q.order_by) {
    SortSpec k;
    k.ascending = o.ascending;
    k.nulls_first = o.nulls_first.value_or(o.ascending);
    if (o.expr->type == ExprType::kLiteral && !o.expr->literal.is_null() &&
        o.expr->literal.type()->id() == TypeId::kInt32) {
      int64_t ord = o.expr->literal.integer();
      if (ord < 1 || ord > static_cast<int64_t>(plan->columns.size())) {
        return Status::InvalidArgument("ORDER BY position " + std::to_string(ord) +
                                           " is not in select list (valid range is [1, " +
                                           std::to_string(plan->columns.size()) + "]).",
                                       errc::kOrderByPosOutOfRange);
      }
      const auto& c = plan->columns[ord - 1];
      k.expr = exec::MakeColumn(static_cast<int>(ord - 1), c.type, c.name, c.nullable);
    } else {
      std::vector<OutputColumn> cols = plan->columns;
      ExprScope s;
      s.columns = &cols;
      SILT_ASSIGN_OR_RETURN(k.expr, Bind(*o.expr, s));
    }
    keys.push_back(k);
  }
  return MakeSort(plan, std::move(keys));
}

}  // namespace silt::planner
