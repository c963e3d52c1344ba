#include "planner/constant_folding.h"

#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace silt::planner {

using exec::Expr;
using exec::ExprKind;
using exec::ExprPtr;

namespace {

// Calls that read the statement's clock: left as calls so a plan shows what it computes (their
// value is already fixed per statement by EvalContext::now_micros).
bool ReadsClock(const Expr& e) {
  if (e.kind != ExprKind::kCall || !e.children.empty()) return false;
  static constexpr std::string_view kNames[] = {
      "current_timestamp", "now", "current_date", "curdate", "localtimestamp", "unix_timestamp"};
  for (std::string_view n : kNames) {
    if (e.name == n) return true;
  }
  return false;
}

bool Foldable(const Expr& e) {
  if (e.kind == ExprKind::kConstant || e.kind == ExprKind::kColumn) return false;
  if (ReadsClock(e)) return false;
  for (const auto& c : e.children) {
    if (ReadsClock(*c)) return false;
  }
  return exec::IsConstantExpr(e);
}

// Spark's ConditionalExpression: every child may be skipped at run time.
bool Conditional(const Expr& e) {
  return e.kind == ExprKind::kCase || e.kind == ExprKind::kCoalesce;
}

class Folder {
 public:
  explicit Folder(const exec::EvalContext& ctx) : ctx_(ctx) {}

  Result<ExprPtr> Fold(const ExprPtr& e, bool conditional) {
    if (!e || e->kind == ExprKind::kConstant || e->kind == ExprKind::kColumn) return e;
    auto& memo = memo_[conditional ? 1 : 0];
    if (auto it = memo.find(e.get()); it != memo.end()) return it->second;
    SILT_ASSIGN_OR_RETURN(ExprPtr out, FoldUncached(e, conditional));
    memo.emplace(e.get(), out);
    return out;
  }

  Status FoldAll(std::vector<ExprPtr>* v, bool conditional, bool* changed) {
    for (ExprPtr& e : *v) SILT_RETURN_NOT_OK(FoldOne(&e, conditional, changed));
    return Status::OK();
  }

  Status FoldOne(ExprPtr* e, bool conditional, bool* changed) {
    if (!*e) return Status::OK();
    SILT_ASSIGN_OR_RETURN(ExprPtr f, Fold(*e, conditional));
    if (f != *e) {
      *e = std::move(f);
      *changed = true;
    }
    return Status::OK();
  }

  Result<PlanPtr> FoldPlan(const PlanPtr& node) {
    if (auto it = plans_.find(node.get()); it != plans_.end()) return it->second;
    LogicalNode n = *node;
    bool changed = false;
    for (PlanPtr& c : n.children) {
      SILT_ASSIGN_OR_RETURN(PlanPtr f, FoldPlan(c));
      if (f != c) {
        c = std::move(f);
        changed = true;
      }
    }
    SILT_RETURN_NOT_OK(FoldAll(&n.pushed_filters, false, &changed));
    SILT_RETURN_NOT_OK(FoldOne(&n.predicate, false, &changed));
    SILT_RETURN_NOT_OK(FoldAll(&n.exprs, false, &changed));
    SILT_RETURN_NOT_OK(FoldAll(&n.group_keys, false, &changed));
    for (AggregateCall& a : n.aggregates) {
      SILT_RETURN_NOT_OK(FoldAll(&a.bound.args, false, &changed));
      SILT_RETURN_NOT_OK(FoldOne(&a.filter, false, &changed));
    }
    SILT_RETURN_NOT_OK(FoldAll(&n.left_keys, false, &changed));
    SILT_RETURN_NOT_OK(FoldAll(&n.right_keys, false, &changed));
    SILT_RETURN_NOT_OK(FoldOne(&n.condition, false, &changed));
    for (SortSpec& s : n.sort_keys) SILT_RETURN_NOT_OK(FoldOne(&s.expr, false, &changed));
    for (WindowCall& w : n.windows) {
      SILT_RETURN_NOT_OK(FoldAll(&w.partition_by, false, &changed));
      for (SortSpec& s : w.order_by) SILT_RETURN_NOT_OK(FoldOne(&s.expr, false, &changed));
      SILT_RETURN_NOT_OK(FoldAll(&w.fn.args, false, &changed));
      // lag/lead's default is used only for rows past the partition's edge.
      SILT_RETURN_NOT_OK(FoldOne(&w.fn.default_value, true, &changed));
    }
    PlanPtr out = changed ? std::make_shared<LogicalNode>(std::move(n)) : node;
    plans_.emplace(node.get(), out);
    return out;
  }

 private:
  Result<ExprPtr> FoldUncached(const ExprPtr& e, bool conditional) {
    if (Foldable(*e)) {
      Result<Value> v = exec::EvaluateConstant(*e, ctx_);
      if (!v.ok()) {
        // Outside a conditional branch every row evaluates the constant: its error is the
        // statement's, at plan time (Spark). Inside one it is left to the rows that take it.
        if (!conditional) return v.status();
        return e;
      }
      // A value whose type differs from the expression's (a struct's field names, …) stays a call.
      if (v->type()->Equals(*e->type)) return exec::MakeConstant(std::move(*v));
      return e;
    }
    const bool inner = conditional || Conditional(*e);
    std::vector<ExprPtr> children = e->children;
    bool changed = false;
    SILT_RETURN_NOT_OK(FoldAll(&children, inner, &changed));
    if (!changed) return e;
    auto c = std::make_shared<Expr>(*e);
    c->children = std::move(children);
    return ExprPtr(std::move(c));
  }

  const exec::EvalContext& ctx_;
  std::unordered_map<const Expr*, ExprPtr> memo_[2];
  std::unordered_map<const LogicalNode*, PlanPtr> plans_;
};

}  // namespace

Result<ExprPtr> FoldConstantExpr(const ExprPtr& e, const exec::EvalContext& ctx, bool conditional) {
  Folder f(ctx);
  return f.Fold(e, conditional);
}

Result<PlanPtr> FoldConstants(const PlanPtr& plan, const exec::EvalContext& ctx) {
  Folder f(ctx);
  return f.FoldPlan(plan);
}

}  // namespace silt::planner
