// Logical optimizations, in order: predicate pushdown (through projections, into joins — a
// cross join with an equality filter becomes a hash join — and into scans), the order of inner
// join chains (planner/join_order.h), projection pruning
// (scans read only the columns a query needs), and file pruning of Delta scans by partition
// values and per-file min/max/nullCount statistics.
#pragma once

#include "common/status.h"
#include "exec/expression.h"
#include "planner/logical_plan.h"

namespace silt::planner {

struct OptimizerOptions {
  bool stats_skipping = true;  // spark.databricks.delta.stats.skipping
  exec::EvalContext eval;
};

Result<PlanPtr> Optimize(PlanPtr plan, const OptimizerOptions& options);
// Whether no node of `e` is nondeterministic (rand(), uuid(), …).
bool Deterministic(const exec::ExprPtr& e);
// The conjuncts of `e` (its AND tree flattened, left to right) appended to *out.
void Conjuncts(const exec::ExprPtr& e, std::vector<exec::ExprPtr>* out);

// Keeps the files of `scan`'s snapshot that may hold rows matching its pushed filters (fills
// pruned_files and the counters). Exposed for DML commands, which prune the same way.
Status PruneFiles(LogicalNode* scan, const OptimizerOptions& options);

}  // namespace silt::planner
