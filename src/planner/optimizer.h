// Logical optimizations, in order: constant folding (planner/constant_folding.h: constant
// expressions become literals, a constant's error is raised here), predicate pushdown (through
// projections, into joins — a cross join with an equality filter becomes a hash join — and into
// scans), the order of inner join chains (planner/join_order.h), projection pruning (scans read
// only the columns a query needs), and file pruning of Delta scans by partition values and
// per-file min/max/nullCount statistics.
#pragma once

#include <memory>
#include <vector>

#include "common/status.h"
#include "exec/expression.h"
#include "planner/logical_plan.h"

namespace silt::planner {

// Dynamic file pruning settings (docs/dfp.md; defaults as Databricks).
struct DfpOptions {
  bool enabled = true;                   // spark.databricks.optimizer.dynamicFilePruning
  int64_t size_threshold = 10000000000;  // spark.databricks.optimizer.deltaTableSizeThreshold
  int64_t files_threshold = 10;          // spark.databricks.optimizer.deltaTableFilesThreshold
  // silt.runtimeFilter.rowFilterMinBytes: an inner or semi join's probe-side scan below the
  // thresholds above but at least this big gets the runtime row filters only (-1: never).
  int64_t row_filter_min_bytes = 8000000;
  DfpExecOptions exec;  // silt.dfp.*
};

struct OptimizerOptions {
  bool stats_skipping = true;        // spark.databricks.delta.stats.skipping
  bool late_materialization = true;  // silt.lateMaterialization: on every Delta scan
  // spark.databricks.delta.generatedColumn.partitionFilterOptimization.enabled: partition filters
  // implied by filters on the base columns of generated partition columns
  // (planner/generated_partition_filters.h).
  bool generated_partition_filters = true;
  exec::EvalContext eval;
  DfpOptions dfp;
};

Result<PlanPtr> Optimize(PlanPtr plan, const OptimizerOptions& options);
// Whether no node of `e` is nondeterministic (rand(), uuid(), …).
bool Deterministic(const exec::ExprPtr& e);
// The conjuncts of `e` (its AND tree flattened, left to right) appended to *out.
void Conjuncts(const exec::ExprPtr& e, std::vector<exec::ExprPtr>* out);
// The comparison operator op' with `b op' a` equivalent to `a op b` ("<" → ">", "=" → "=").
std::string SwappedComparison(const std::string& op);

// Keeps the files of `scan`'s snapshot that may hold rows matching its pushed filters and the
// partition filters they imply for generated partition columns (fills pruned_files,
// generated_partition_filters and the counters). Exposed for DML commands, which prune the same
// way.
Status PruneFiles(LogicalNode* scan, const OptimizerOptions& options);
// The files of `in` (live files of `snapshot`) that may hold rows where every one of `filters`
// (conjuncts over the columns `scan_columns`) is true: partition values exactly, then min/max/
// nullCount statistics (when stats_skipping) with Delta's data-skipping rules. Unknown → kept.
// *after_partition (optional) receives the count after the partition-value step.
Result<std::vector<const delta::AddFile*>> PruneFileList(
    const delta::Snapshot& snapshot, const std::vector<std::string>& scan_columns,
    const std::vector<exec::ExprPtr>& filters, const std::vector<const delta::AddFile*>& in,
    bool stats_skipping, int64_t* after_partition = nullptr);

// Proves from partition values and min/max/nullCount statistics (the rules of PruneFileList,
// read the other way) that every row of a file makes every one of `filters` TRUE: then DELETE can
// drop the file unread. Never true when unsure: a comparison needs the column NULL-free (nullCount
// 0), a file without statistics or with a truncated string maximum proves nothing, nor do
// floating-point columns (NaN). Rows a deletion vector hides are covered too (the statistics
// describe every physical row). Copyable; AllRowsMatch is thread-safe.
class AllRowsProver {
 public:
  static Result<AllRowsProver> Make(const delta::Snapshot& snapshot,
                                    const std::vector<std::string>& scan_columns,
                                    std::vector<exec::ExprPtr> filters);
  bool AllRowsMatch(const delta::AddFile& file) const;

 private:
  struct Keys;
  std::shared_ptr<const Keys> keys_;
  std::vector<exec::ExprPtr> filters_;
};

// What data skipping knows of scan column `column` (an index into `scan_columns`) in each file of
// `in`, read with the rules of PruneFileList (partition value exactly; else the statistics'
// min/max, a truncated string maximum unused, a timestamp maximum + 999 µs; only the column's
// statistics are parsed). For a cheap per-file test of one column (dynamic file pruning).
struct FileColumnRange {
  enum class State { kUnknown, kNoValue, kRange };
  State state = State::kUnknown;  // kNoValue: the file holds only NULLs in the column
  Value min;                      // kRange: bounds of its non-NULL values
  Value max;
};
Result<std::vector<FileColumnRange>> FileColumnRanges(const delta::Snapshot& snapshot,
                                                      const std::vector<std::string>& scan_columns,
                                                      int column,
                                                      const std::vector<const delta::AddFile*>& in,
                                                      bool stats_skipping);

}  // namespace silt::planner
