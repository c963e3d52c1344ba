// The physical planner: turns an optimized logical plan into a tree of exec/ operators
// (hash joins for equi-joins with the smaller side as build side when known, nested-loop joins
// otherwise, top-N for ORDER BY + LIMIT, Delta scans over the pruned file list).
#pragma once

#include "common/status.h"
#include "exec/operator.h"
#include "planner/logical_plan.h"

namespace silt::planner {

// With `profile`, every operator is wrapped so that it counts the rows it returns and the time
// spent in it (children included), for ExplainAnalyzed.
Result<exec::OperatorPtr> BuildPhysical(const PlanPtr& plan, bool profile = false);

// EXPLAIN text of a physical plan: an indented tree of "Name details" lines; `formatted`
// (EXPLAIN FORMATTED) prints the tree as "Name (id)" with ids in post order, then one section
// per operator with its details and output columns.
std::string ExplainPhysical(const exec::Operator& root, bool formatted);
// EXPLAIN ANALYZE text of a physical plan that has run: ExplainPhysical's tree, each operator
// of a profiled plan followed by "(rows=N, time=T ms)" (time includes its children's), each Delta
// scan by what it read and its dynamic file pruning metrics
// ("{metrics: numFilesRead=2, bytesRead=…, rowsOutput=…, dfp.applied=true, …}", docs/dfp.md).
std::string ExplainAnalyzed(const exec::Operator& root);

}  // namespace silt::planner
