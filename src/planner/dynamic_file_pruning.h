// Dynamic file pruning (DFP; spec B.4, docs/dfp.md): the keys of a hash join's build side,
// known only at run time, prune the data files of a Delta scan on its probe side before any of
// them is read.
//
// Planning (PlanDynamicFilePruning, the optimizer's last step): for each equi-join whose join
// type lets rows of one side without a match be dropped — INNER (either side), LEFT SEMI (left;
// IN/EXISTS subqueries), LEFT OUTER (right), RIGHT OUTER (left); never FULL OUTER, LEFT ANTI or
// NOT IN — each key of that side that is a plain column of a Delta scan (through filters,
// projections and inner/semi joins, as a column or a widening numeric cast of one) gets a
// RuntimeFilter placeholder on the scan, and the join is marked so that the physical planner
// makes that side the hash join's probe side. A scan smaller than the size/files thresholds
// (after static pruning), a key of a type without statistics, or the session switch off records
// the reason on the scan instead.
//
// Execution (ApplyRuntimeFilters, called by HashJoinOperator right after its build): per filter,
// the build side's non-NULL keys become `k IN (values)` (at most silt.dfp.maxInListValues distinct
// values; each value is tested against the file's min/max up to silt.dfp.perValueProbeLimit
// values, else the sorted values coalesced into that many ranges split at their largest gaps) or
// `k BETWEEN min AND max`; an empty build side
// (or only NULL keys) keeps no file. The predicate prunes the scan's file list with the rules of
// static data skipping (partition values exactly, then min/max/nullCount statistics) and is also
// added as a row filter of the scan. A build side above silt.dfp.maxBuildRows rows leaves the
// scan as it is (reason build_too_large). The join still evaluates its full condition: results
// never depend on pruning.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "delta/transaction.h"
#include "exec/delta_scan.h"
#include "exec/hash_join.h"
#include "planner/logical_plan.h"
#include "planner/optimizer.h"
#include "planner/session_config.h"

namespace silt::planner {

// The session's DFP settings (spark.databricks.optimizer.* and silt.dfp.*).
DfpOptions DfpOptionsFrom(const SessionConfig& config);
// The summed sizes of `files` (the bytes metrics of pruning).
int64_t FileBytes(const std::vector<const delta::AddFile*>& files);

// Marks joins and scans of `plan` (modified in place; its nodes must not be shared with another
// plan — Optimize copies them first). Never fails for a plan it cannot prune.
Status PlanDynamicFilePruning(LogicalNode* plan, const DfpOptions& options);

// One runtime filter at run time: key `key` of the join's build side prunes `scan`, whose column
// `scan_column` (of `scan_columns`, type column_type) is the probe side's key.
struct DfpTarget {
  int id = 0;
  size_t key = 0;
  exec::DeltaScanOperator* scan = nullptr;
  int scan_column = -1;
  std::vector<std::string> scan_columns;
  TypePtr column_type;
  bool rows_only = false;  // RuntimeFilter::rows_only: row filters, no file pruning, no metrics
};

// A closed interval [lo, hi] of key values.
struct KeyRange {
  Value lo;
  Value hi;
};

// The sorted, disjoint ranges that cover `values` (non-NULL keys of one orderable type, any
// order, duplicates allowed): one single-value range per distinct value when there are at most
// `max_ranges`, else `max_ranges` ranges obtained by splitting the sorted values at their
// `max_ranges - 1` largest gaps (numeric distance; strings by their first 8 bytes). A file whose
// [min, max] overlaps no range holds no key, so the kept files are a superset of Delta's
// per-value test.
std::vector<KeyRange> CoalesceKeyRanges(const std::vector<Value>& values, int64_t max_ranges);

// The runtime filter for a column whose values must be among a build side's keys `keys`.
struct RuntimePredicate {
  exec::ExprPtr file;     // for PruneFileList: `col IN (...)`, an OR of `col >= lo AND col <= hi`
                          // ranges, `col >= min AND col <= max` or FALSE
  exec::ExprPtr row;      // a bound row filter (null when none is needed or possible)
  std::string kind;       // in_list | in_ranges | range
  int64_t distinct = -1;  // distinct keys (-1: more than max_in_list_values)
  std::vector<KeyRange> ranges;  // sorted ranges of the keys (one per value for an IN list;
                                 // empty for a range or a type without an order here)
};
RuntimePredicate MakeRuntimePredicate(const exec::JoinKeySummary& keys, const exec::ExprPtr& column,
                                      const DfpExecOptions& options);

// The read predicate of a DML transaction whose target files a runtime filter pruned (spec B.4
// step 9): a concurrently added file conflicts only when `file_predicate` (over `columns`) may
// hold for one of its rows; pruned files are not in the read set, so removing them does not
// conflict either.
delta::ReadFilePredicate DfpReadPredicate(std::shared_ptr<const delta::Snapshot> snapshot,
                                          std::vector<std::string> columns,
                                          exec::ExprPtr file_predicate);

// Applies `targets` after `join` built its hash table (before the probe side is pulled). The
// bloom filters' memory is charged to `memory` (the query's tracker; null: unaccounted); a bloom
// filter that would exceed its limit is left out (the scan goes on without it, metric
// dfpBloomFilterRefused).
Status ApplyRuntimeFilters(exec::HashJoinOperator& join, const std::vector<DfpTarget>& targets,
                           const DfpExecOptions& options, MemoryTracker* memory = nullptr);

}  // namespace silt::planner
