// The logical plan: what a query computes, as a tree of relational operators over bound
// expressions (exec/expression.h). The binder builds it from the AST; the optimizer rewrites it
// (predicate pushdown, partition pruning and file skipping, projection pruning); the physical
// planner turns it into exec/ operators.
//
// Every node's output is a list of columns (OutputColumn); a kColumn expression in a node refers
// to its child's output by index (for joins: left columns then right columns).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "delta/snapshot.h"
#include "exec/aggregate.h"
#include "exec/expression.h"
#include "exec/window.h"
#include "vector/types.h"
#include "vector/vector.h"

namespace silt::planner {

struct OutputColumn {
  std::string name;
  TypePtr type;
  bool nullable = true;
  std::string qualifier;  // table alias or name it came from ("" after projections)
  // Reachable only by its qualified name and by `qualifier.*`, not by `*` or an unqualified name:
  // each side's join column after JOIN … USING / NATURAL JOIN (Spark's hidden output).
  bool hidden = false;
};

enum class LogicalKind : uint8_t {
  kScan,    // a Delta table (snapshot) read
  kValues,  // literal rows
  kFilter,
  kProject,
  kAggregate,
  kJoin,
  kSort,
  kLimit,
  kWindow,
  kUnionAll,
  kDistinct,
  kSetOp,     // INTERSECT / EXCEPT [ALL]
  kGenerate,  // explode & co. (LATERAL VIEW, a generator in a SELECT list)
};

enum class JoinKind : uint8_t { kInner, kLeft, kRight, kFull, kCross, kSemi, kAnti };

struct SortSpec {
  exec::ExprPtr expr;
  bool ascending = true;
  bool nulls_first = true;
};

struct AggregateCall {
  std::string name;      // display, e.g. "count(1)"
  std::string function;  // lower-case function name
  bool distinct = false;
  exec::BoundAggregate bound;
  exec::ExprPtr filter;  // FILTER (WHERE …), over the child's output
};

struct WindowCall {
  std::string name;         // display, e.g. "row_number() OVER (...)"
  exec::WindowFunction fn;  // bound function (args over the node's input)
  std::vector<exec::ExprPtr> partition_by;
  std::vector<SortSpec> order_by;
  TypePtr type;
};

// The literal rows of a kValues node. The optimizer rewrites a plan by copying its nodes, and the
// physical planner hands the rows to a ValuesOperator; a MERGE feeds all target rows through one
// Values node, so the rows are shared between those copies (copy-on-write) instead of being
// copied at each step.
class ValuesRows {
 public:
  ValuesRows() = default;
  ValuesRows(std::vector<DataChunk> rows)  // NOLINT: implicit, `node->rows = std::move(chunks)`
      : rows_(std::make_shared<std::vector<DataChunk>>(std::move(rows))) {}

  size_t size() const { return rows_ ? rows_->size() : 0; }
  bool empty() const { return size() == 0; }
  const DataChunk& operator[](size_t i) const { return (*rows_)[i]; }
  std::vector<DataChunk>::const_iterator begin() const {
    return rows_ ? rows_->cbegin() : Empty().cbegin();
  }
  std::vector<DataChunk>::const_iterator end() const {
    return rows_ ? rows_->cend() : Empty().cend();
  }
  void clear() { rows_.reset(); }
  void push_back(DataChunk c) { Mutable().push_back(std::move(c)); }
  // The rows as one shared, immutable vector (never null).
  std::shared_ptr<const std::vector<DataChunk>> shared() const {
    return rows_ ? std::shared_ptr<const std::vector<DataChunk>>(rows_)
                 : std::make_shared<const std::vector<DataChunk>>();
  }

 private:
  static const std::vector<DataChunk>& Empty() {
    static const std::vector<DataChunk> empty;
    return empty;
  }
  std::vector<DataChunk>& Mutable() {
    if (!rows_) {
      rows_ = std::make_shared<std::vector<DataChunk>>();
    } else if (rows_.use_count() > 1) {
      rows_ = std::make_shared<std::vector<DataChunk>>(*rows_);
    }
    return *rows_;
  }
  std::shared_ptr<std::vector<DataChunk>> rows_;
};

// Dynamic file pruning (planner/dynamic_file_pruning.h): a placeholder on a Delta scan for a
// filter on one of its columns whose values come, at run time, from a join's build side.
struct RuntimeFilter {
  int id = 0;
  int scan_column = -1;   // index into the scan's scan_columns
  std::string build_key;  // display of the build side's key ("dynamicpruning(...)")
  // A scan below the DFP thresholds still gets the row-level part of the filter (bloom or
  // min/max of the build keys, row groups by statistics) when it is big enough
  // (silt.runtimeFilter.rowFilterMinBytes): its files are not pruned and its DFP metrics stay
  // those of a scan DFP did not apply to.
  bool rows_only = false;
};

// What the hash join needs at run time to turn its build side into runtime filters.
struct DfpExecOptions {
  int64_t max_build_rows = 1000000;
  int64_t max_in_list_values = 1000;
  int64_t per_value_probe_limit = 64;
  double max_build_fraction = 1.0;  // silt.dfp.maxBuildFraction
  bool row_bloom_filter = true;     // spark.sql.optimizer.runtime.bloomFilter.enabled
};

struct LogicalNode;
using PlanPtr = std::shared_ptr<LogicalNode>;

struct LogicalNode {
  LogicalKind kind = LogicalKind::kValues;
  std::vector<OutputColumn> columns;
  std::vector<PlanPtr> children;

  // kScan
  std::shared_ptr<const delta::Snapshot> snapshot;
  std::string table_name;                 // for EXPLAIN
  std::vector<std::string> scan_columns;  // logical names read, in output order
  std::vector<exec::ExprPtr>
      pushed_filters;  // conjuncts over the scan output (pruning + filtering)
  // Partition filters the pushed filters imply for generated partition columns (filled by
  // PruneFiles; over the scan's columns then the partition columns it does not read).
  std::vector<exec::ExprPtr> generated_partition_filters;
  // Files kept after pruning (filled by the optimizer; nullopt = all live files).
  std::optional<std::vector<const delta::AddFile*>> pruned_files;
  int64_t files_total = 0;
  int64_t files_after_partition_pruning = 0;
  int64_t files_after_stats_pruning = 0;
  bool stats_skipping = true;        // whether the optimizer applied min/max stats skipping
  bool late_materialization = true;  // silt.lateMaterialization (exec/delta_scan.h)
  // Runtime filters of dynamic file pruning on this scan, and why it did not apply when a join
  // could have pruned it ("" = applied or not considered).
  std::vector<RuntimeFilter> runtime_filters;
  std::string dfp_reason;

  // kValues
  ValuesRows rows;
  // kValues that is range(start, end, step) (Spark's Range): no rows are held; the physical plan
  // streams range_count values start, start + step, ... (range_count computed without overflow).
  // With no columns (a projection kept none, count(*)) it streams empty rows.
  bool is_range = false;
  int64_t range_start = 0, range_end = 0, range_step = 1;
  uint64_t range_count = 0;

  // kFilter
  exec::ExprPtr predicate;

  // kProject
  std::vector<exec::ExprPtr> exprs;

  // kAggregate: output = group keys then aggregates (+ grouping id when grouping_sets.size()>1)
  std::vector<exec::ExprPtr> group_keys;
  std::vector<AggregateCall> aggregates;
  std::vector<std::vector<int>> grouping_sets;  // empty: one set of all keys

  // kJoin
  JoinKind join = JoinKind::kInner;
  std::vector<exec::ExprPtr> left_keys, right_keys;  // over left / right output
  std::vector<bool> null_safe;
  exec::ExprPtr condition;       // residual, over left ++ right output
  bool null_aware_anti = false;  // NOT IN subquery semantics
  // Dynamic file pruning: the side (0 left, 1 right) whose Delta scans runtime filters prune —
  // the hash join's probe side, its build side runs first (-1: none); per filter its id and
  // the index of its key in left_keys/right_keys.
  int dfp_pruned_side = -1;
  std::vector<std::pair<int, int>> dfp_filters;
  DfpExecOptions dfp;

  // kSort (and the ordering of kLimit when it is a top-N)
  std::vector<SortSpec> sort_keys;

  // kLimit
  std::optional<int64_t> limit;
  int64_t offset = 0;

  // kWindow: output = child columns then one per call
  std::vector<WindowCall> windows;

  // kGenerate: output = child columns then the generated ones; exprs[0] = the generator's
  // argument over the child's output
  std::string generator;  // function name as called, e.g. "posexplode_outer"

  // kUnionAll (n children), kSetOp
  bool intersect = false;  // kSetOp: INTERSECT (true) or EXCEPT
  bool set_all = false;

  // Display form for EXPLAIN, one line.
  std::string Describe() const;
};

// EXPLAIN text of a pruned scan's file selection, "files: 3 of 12 (partition pruning: 6 skipped,
// stats: 3 skipped)" ("" before pruning); the counters are those of PruneFiles, which chose the
// files the scan reads.
std::string ScanFilesSummary(const LogicalNode& scan);
// "default.t [a, b] filters=[…] files: …" (the DeltaScan line of EXPLAIN without its name).
std::string ScanDetails(const LogicalNode& scan);

// Multi-line EXPLAIN text of a plan (indented tree).
std::string ExplainPlan(const LogicalNode& root);

// Helpers for building plans.
PlanPtr MakeProject(PlanPtr child, std::vector<exec::ExprPtr> exprs,
                    std::vector<std::string> names);
PlanPtr MakeFilter(PlanPtr child, exec::ExprPtr predicate);

}  // namespace silt::planner
