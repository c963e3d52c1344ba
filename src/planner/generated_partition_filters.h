// Partition filters implied by filters on the column a generated partition column is computed
// from (Delta's OptimizablePartitionExpression and GeneratedColumn.generatePartitionFilters): a
// table partitioned by `d DATE GENERATED ALWAYS AS (CAST(ts AS DATE))` read with `ts >= c` can
// skip every partition with `d < CAST(c AS DATE)`.
//
// The generation expression of each partition column is bound over the table's columns. When it
// is a chain of non-decreasing functions of one column `col` (a cast of a timestamp or date to
// DATE, a date to TIMESTAMP or an integer to a wider one; year; date_format with 'yyyy-MM',
// 'yyyy-MM-dd' or 'yyyy-MM-dd-HH'; substring from position 0 or 1; trunc; date_trunc; div, `/`
// by a positive constant; floor; ceil), a conjunct on `col` with a literal c gives, as in Delta:
//   col < c, col <= c  →  part <= f(c)       col = c, col <=> c  →  part = f(c)
//   col > c, col >= c  →  part >= f(c)       col IN (c1, …)      →  part IN (f(c1), …)
//   col IS NULL        →  part IS NULL
// each OR `part IS NULL` (a NULL partition value is kept, as Delta keeps what yields NULL).
// Functions that are not monotone (month, day, hour, substring from a later position, other
// casts, date_format with other patterns) give the equality, IN and IS NULL forms only, and
// nothing over a floating-point column (0.0 = -0.0); year/month[/day[/hour]] partition columns of
// one column together give the lexicographic range filter of Delta's YearMonthDayHourPartitionExpr.
// f(c) is evaluated under the session's time zone and ANSI mode, which the writer's must match
// (Delta's assumption too); a literal whose f(c) is NULL or fails gives no filter.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "delta/snapshot.h"
#include "exec/expression.h"

namespace silt::planner {

struct GeneratedPartitionFilters {
  // The scan's columns, then the partition columns the filters read that the scan does not.
  std::vector<std::string> columns;
  std::vector<exec::ExprPtr> filters;  // conjuncts over `columns`
};

// The partition filters implied by `filters` (conjuncts over `scan_columns` of `snapshot`'s
// table, AND trees split). A generation expression that does not bind gives no filter (never an
// error).
Result<GeneratedPartitionFilters> DeriveGeneratedPartitionFilters(
    const delta::Snapshot& snapshot, const std::vector<std::string>& scan_columns,
    const std::vector<exec::ExprPtr>& filters, const exec::EvalContext& eval);

}  // namespace silt::planner
