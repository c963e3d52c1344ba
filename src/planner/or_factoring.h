// OR factoring for predicates (WHERE and join conditions, where only TRUE keeps a row): the
// conjuncts common to every branch of an OR come out of it, and a join input gets the OR of its
// own parts of every branch as an implied filter (Spark's and DuckDB's rewrites; TPC-H Q19, Q7).
#pragma once

#include <vector>

#include "exec/expression.h"

namespace silt::planner {

// Structural equality of two deterministic bound expressions (x = y matches y = x).
bool SameExpr(const exec::ExprPtr& a, const exec::ExprPtr& b);
// Whether `v` holds an expression SameExpr as `e`.
bool ContainsExpr(const std::vector<exec::ExprPtr>& v, const exec::ExprPtr& e);
// The conjuncts of predicate `e` appended to *out, each OR's common conjuncts factored out:
// (a AND b) OR (a AND c) → a, (b OR c); a OR (a AND c) → a. Nondeterministic ORs are kept whole.
void FactoredConjuncts(const exec::ExprPtr& e, std::vector<exec::ExprPtr>* out);
// For an OR whose every branch has conjuncts reading only columns [lo, hi) (and at least one):
// the OR of those parts, a predicate the OR implies; nullptr otherwise.
exec::ExprPtr SideDisjunction(const exec::ExprPtr& e, int lo, int hi);

}  // namespace silt::planner
