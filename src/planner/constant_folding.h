// Constant folding (Spark's ConstantFolding rule): every deterministic expression that reads no
// column — a cast of a literal, arithmetic on literals, a function of literals — is evaluated once
// at plan time and replaced by its literal, so EXPLAIN shows the value, operators do not compute it
// per chunk, and pruning and join-order estimates see it. As in Spark, the error of a constant
// (CAST('x' AS INT) under ANSI, 1/0) is raised at plan time, even when no row is ever read (an
// empty table, a filter that prunes every file); only a constant inside a conditional branch
// (CASE / IF / COALESCE / NULLIF / NVL2) keeps its error for the rows that reach it, since the
// branch may never be taken.
#pragma once

#include "common/status.h"
#include "exec/expression.h"
#include "planner/logical_plan.h"

namespace silt::planner {

// `e` with its foldable subexpressions replaced by literals. `conditional`: `e` is inside a
// conditional branch (its constants' errors are left to run time).
Result<exec::ExprPtr> FoldConstantExpr(const exec::ExprPtr& e, const exec::EvalContext& ctx,
                                       bool conditional = false);

// The plan with every expression of every node folded (nodes shared by the binder, a CTE read
// twice, stay shared). Errors: the first constant that fails to evaluate outside a conditional
// branch.
Result<PlanPtr> FoldConstants(const PlanPtr& plan, const exec::EvalContext& ctx);

}  // namespace silt::planner
