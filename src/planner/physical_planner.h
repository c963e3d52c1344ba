// The physical planner: turns an optimized logical plan into a tree of exec/ operators
// (hash joins for equi-joins with the smaller side as build side when known, nested-loop joins
// otherwise, top-N for ORDER BY + LIMIT, Delta scans over the pruned file list).
#pragma once

#include "common/status.h"
#include "exec/operator.h"
#include "planner/logical_plan.h"

namespace silt::planner {

Result<exec::OperatorPtr> BuildPhysical(const PlanPtr& plan);

// EXPLAIN text of a physical plan: an indented tree of "Name details" lines; `formatted`
// (EXPLAIN FORMATTED) prints the tree as "Name (id)" with ids in post order, then one section
// per operator with its details and output columns.
std::string ExplainPhysical(const exec::Operator& root, bool formatted);

}  // namespace silt::planner
