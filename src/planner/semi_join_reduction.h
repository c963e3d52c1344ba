// Semi-join reduction (DuckDB's delim join, Spark's injected semi joins): a join whose probe
// side takes its key from a small filtered subtree gets its large build side reduced to that
// subtree's keys first — the aggregate of a decorrelated scalar subquery (TPC-H Q2/Q17/Q20)
// groups only the probed keys, the inner side of EXISTS / NOT EXISTS (Q4, Q22) keeps only keys
// that can match. Estimates: planner/join_order.h.
#pragma once

#include "planner/logical_plan.h"

namespace silt::planner {

// The plan with every inner, left outer, semi and (not null-aware) anti join reduced where the
// estimates say it pays (build side ≥ 100k rows and ≥ 10 times the key's filtered origin).
PlanPtr ReduceJoins(const PlanPtr& plan);

}  // namespace silt::planner
