// Cardinality estimates and the join order of inner-join chains.
#pragma once

#include "planner/logical_plan.h"

namespace silt::planner {

// A rough row count of a plan's output: scans from the statistics of the files they read (the
// pruned ones once file pruning ran), each pushed filter and each Filter node halving it, joins
// as key–foreign-key joins (the larger side). Used to order joins and choose build sides.
double EstimateRows(const LogicalNode& n);

// Reorders every chain of inner and cross joins (three tables or more: `FROM a, b, c WHERE …`,
// or nested INNER JOINs) greedily: at each step the two connected inputs whose join is estimated
// smallest are joined, so selective dimensions (a filtered `region`) meet their fact tables early.
// A join on a = b is estimated at |A|·|B| / max(rows of a's table, rows of b's table); inputs with
// no condition between them are joined last, smallest first. The rebuilt joins carry their
// conditions as `condition` (predicate pushdown then extracts the hash keys), and a projection on
// top restores the chain's column order. Chains with a nondeterministic condition are kept.
// Expects filters already pushed into the scans (so the estimates see them).
Result<PlanPtr> ReorderJoins(const PlanPtr& plan);

}  // namespace silt::planner
