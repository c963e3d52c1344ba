#include "planner/or_factoring.h"

#include <algorithm>

#include "planner/optimizer.h"

namespace silt::planner {

using exec::Expr;
using exec::ExprKind;
using exec::ExprPtr;

namespace {

ExprPtr AndAll(const std::vector<ExprPtr>& v) {
  ExprPtr acc;
  for (const auto& e : v)
    acc = acc ? exec::MakeSpecial(ExprKind::kAnd, DataType::Boolean(), {acc, e}) : e;
  return acc;
}

void Disjuncts(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (e->kind == ExprKind::kOr) {
    Disjuncts(e->children[0], out);
    Disjuncts(e->children[1], out);
    return;
  }
  out->push_back(e);
}

ExprPtr OrAll(const std::vector<ExprPtr>& v) {
  ExprPtr acc;
  for (const auto& e : v)
    acc = acc ? exec::MakeSpecial(ExprKind::kOr, DataType::Boolean(), {acc, e}) : e;
  return acc;
}

}  // namespace

bool SameExpr(const ExprPtr& a, const ExprPtr& b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || a->children.size() != b->children.size()) return false;
  if (!a->deterministic || !b->deterministic) return false;
  if (!a->type || !b->type || !a->type->Equals(*b->type)) return false;
  switch (a->kind) {
    case ExprKind::kColumn:
      if (a->column != b->column) return false;
      break;
    case ExprKind::kConstant:
      if (a->constant.is_null() != b->constant.is_null()) return false;
      if (!a->constant.is_null() && !(a->constant == b->constant)) return false;
      break;
    case ExprKind::kCall:
    case ExprKind::kCast:
      if (a->name != b->name) return false;
      break;
    case ExprKind::kCase:
      if (a->has_else != b->has_else) return false;
      break;
    default:
      break;
  }
  if (a->kind == ExprKind::kCast || (a->kind == ExprKind::kCall && a->name.empty())) {
    // Kernels are opaque: casts (and unnamed calls) are the same only when they print the same.
    if (a->ToString() != b->ToString()) return false;
  }
  bool same = true;
  for (size_t i = 0; i < a->children.size() && same; ++i)
    same = SameExpr(a->children[i], b->children[i]);
  // x = y is y = x (Q19 writes its key both ways in some texts).
  if (!same && a->kind == ExprKind::kCall && a->children.size() == 2 &&
      (a->name == "=" || a->name == "==" || a->name == "<=>")) {
    same = SameExpr(a->children[0], b->children[1]) && SameExpr(a->children[1], b->children[0]);
  }
  return same;
}

bool ContainsExpr(const std::vector<ExprPtr>& v, const ExprPtr& e) {
  return std::any_of(v.begin(), v.end(), [&](const ExprPtr& x) { return SameExpr(x, e); });
}

// The conjuncts of a predicate (a WHERE or join condition: only TRUE keeps a row), with the
// conjuncts common to every branch of an OR factored out, as Spark's and DuckDB's optimizers do:
// (a AND b) OR (a AND c) → a AND (b OR c), and a OR (a AND c) → a (absorption). Both identities
// hold in SQL's three-valued logic. Q19's join condition, an OR of three ANDs that all contain
// p_partkey = l_partkey, so gets its equi-key (a hash join) with the OR as residual.
void FactoredConjuncts(const ExprPtr& e, std::vector<ExprPtr>* out) {
  std::vector<ExprPtr> conj;
  Conjuncts(e, &conj);
  for (const ExprPtr& c : conj) {
    if (c->kind != ExprKind::kOr || !Deterministic(c)) {
      out->push_back(c);
      continue;
    }
    std::vector<ExprPtr> branches;
    Disjuncts(c, &branches);
    std::vector<std::vector<ExprPtr>> parts(branches.size());
    for (size_t i = 0; i < branches.size(); ++i) FactoredConjuncts(branches[i], &parts[i]);
    std::vector<ExprPtr> common;
    for (const ExprPtr& x : parts[0]) {
      bool everywhere = !ContainsExpr(common, x);
      for (size_t i = 1; i < parts.size() && everywhere; ++i)
        everywhere = ContainsExpr(parts[i], x);
      if (everywhere) common.push_back(x);
    }
    if (common.empty()) {
      out->push_back(c);
      continue;
    }
    bool absorbed = false;  // a branch is exactly the common part: the OR adds nothing
    std::vector<ExprPtr> rest;
    for (const auto& part : parts) {
      std::vector<ExprPtr> r;
      for (const ExprPtr& x : part) {
        if (!ContainsExpr(common, x)) r.push_back(x);
      }
      if (r.empty())
        absorbed = true;
      else
        rest.push_back(AndAll(r));
    }
    out->insert(out->end(), common.begin(), common.end());
    if (!absorbed) out->push_back(OrAll(rest));
  }
}

// For an OR over both inputs of a join whose every branch has conjuncts over columns [lo, hi)
// alone: the OR of those parts, implied by the predicate, a filter for that input alone
// (Spark's PushExtraPredicateThroughJoin; Q19's (p_brand = … AND p_size BETWEEN …) OR (…) and
// (l_quantity BETWEEN …) OR (…), Q7's (n1.n_name = … AND n2.n_name = …) OR (…)). nullptr when a
// branch has no such part (the OR filters nothing on that side). The original stays as residual.
ExprPtr SideDisjunction(const ExprPtr& e, int lo, int hi) {
  if (e->kind != ExprKind::kOr || !Deterministic(e)) return nullptr;
  std::vector<ExprPtr> branches;
  Disjuncts(e, &branches);
  std::vector<ExprPtr> side;
  for (const ExprPtr& b : branches) {
    std::vector<ExprPtr> conj, mine;
    Conjuncts(b, &conj);
    for (const ExprPtr& x : conj) {
      std::vector<int> cols;
      exec::CollectColumns(*x, &cols);
      bool within = !cols.empty();
      for (int col : cols) within = within && col >= lo && col < hi;
      if (within) mine.push_back(x);
    }
    if (mine.empty()) return nullptr;
    side.push_back(AndAll(mine));
  }
  return OrAll(side);
}

}  // namespace silt::planner
