// Cardinality estimates and the join order of inner-join chains.
#pragma once

#include "planner/logical_plan.h"

namespace silt::planner {

// A rough row count of a plan's output: scans from the statistics of the files they read (the
// pruned ones once file pruning ran), each pushed filter and each Filter node halving it; LIKE
// with a literal prefix keeps a tenth, with a literal word of three characters or more
// ('%green%') a fifth. An equi-join whose keys trace to scan columns is |L|·|R| / the keys'
// domain (as ReorderJoins estimates it; its most selective key pair), so a fact table joined to
// a filtered dimension keeps the dimension's fraction (TPC-H Q21's lineitem ⋈ supplier ⋈ one
// nation); an outer join keeps at least its preserved side(s); a semi join keeps the left
// side's fraction |R| / domain (at most all of it), an anti join all of it; other joins as
// key–foreign-key joins (the larger side), cross joins |L|·|R|. Used to order joins and choose
// build sides.
double EstimateRows(const LogicalNode& n);

// Whether a semi or anti join (with hash keys, not NOT IN's null-aware one) is better run with
// its hash table on the preserved left side, the right side probing and marking matches (a
// right semi/anti join): the right side is estimated at more than twice the left.
bool SemiJoinBuildsOnLeft(const LogicalNode& join);

// Reorders every chain of inner and cross joins (three tables or more: `FROM a, b, c WHERE …`,
// or nested INNER JOINs) greedily: at each step the two connected inputs whose join is estimated
// smallest are joined, so selective dimensions (a filtered `region`) meet their fact tables early.
// A join on a = b is estimated at |A|·|B| / the larger distinct count of a and b (each its
// table's rows, or its min/max range when narrower), or the key's count when one of them is a
// key (as many distinct values as rows: the other is taken as its foreign key); inputs with
// no condition between them are joined last, smallest first. Column equalities implied by
// transitivity (a = b, b = c: a = c) join inputs linked only through a third one, and an equality
// the rows below a join already hold is left out of its keys. The rebuilt joins carry their
// conditions as `condition` (predicate pushdown then extracts the hash keys), and a projection on
// top restores the chain's column order. Chains with a nondeterministic condition are kept.
// Expects filters already pushed into the scans (so the estimates see them).
Result<PlanPtr> ReorderJoins(const PlanPtr& plan);

}  // namespace silt::planner
