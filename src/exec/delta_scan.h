// DeltaScanOperator: reads a Delta snapshot's data files (a pruned subset) as chunks of the
// requested logical columns, applies pushed-down filters, and drops rows deleted by deletion
// vectors (delta::TableScan does the per-file work). The work units are page-aligned row ranges
// of row groups, read and filtered in parallel on the ExecContext's pool; Next() returns them in
// file and row order (deterministic), PushAll() in no particular order.
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "delta/scan.h"
#include "delta/snapshot.h"
#include "exec/expression.h"
#include "exec/operator.h"
#include "parquet/reader.h"

namespace silt::exec {

// Dynamic file pruning on one Delta scan (docs/dfp.md); EXPLAIN ANALYZE prints these under the
// names of spec B.4 (dfp.applied, dfp.reasonNotApplied, numFilesBeforeDfp, ...).
struct DfpScanMetrics {
  bool considered = false;         // a join planned runtime filters for the scan or said why not
  bool applied = false;            // some runtime filter pruned the scan's file list
  std::string reason_not_applied;  // disabled, below_size_threshold, ... ("" when applied)
  int64_t files_before = -1;       // files before the first runtime filter
  int64_t files_after = -1;
  int64_t bytes_pruned = 0;
  int64_t build_distinct_values = 0;
  std::string filter_kind = "none";  // in_list | in_ranges | range | none (several: joined by '+')
  double time_ms = 0;
  bool bloom_refused = false;  // a bloom filter was left out: the query's memory limit
};

class DeltaScanOperator final : public Operator {
 public:
  // Rows of a work unit: large enough that per-unit costs (page index, dictionary pages) stay
  // small, small enough that one file of one row group (1-2M rows) feeds every worker.
  static constexpr int64_t kScanUnitRows = 200'000;
  // files: the files to read (pointers into snapshot->files()); filters: conjuncts over the
  // output columns (rows where any is not TRUE are dropped).
  static Result<std::unique_ptr<DeltaScanOperator>> Make(
      std::shared_ptr<const delta::Snapshot> snapshot, std::vector<std::string> columns,
      std::vector<const delta::AddFile*> files, std::vector<ExprPtr> filters,
      std::string table_name);
  // Evaluates `exprs` (over the scan's columns; deterministic) on each filtered chunk in the scan's
  // worker tasks, so a projection above the scan runs in parallel too; the output schema becomes
  // `schema`.
  void SetProjection(std::vector<ExprPtr> exprs, Schema schema);
  // What EXPLAIN shows for this scan (columns, filters, how the files were chosen); default:
  // the table name and the number of files read.
  void SetExplainDetails(std::string details) { explain_details_ = std::move(details); }
  Result<bool> Next(ExecContext& ctx, DataChunk* out) override;
  // Each worker opens the next file and reads its units; once no file is left, idle workers take
  // the unread units of files still being read (dynamic balance, also within one big row
  // group). A worker holds one unit's columns at a time.
  Result<bool> PushAll(ExecContext& ctx, size_t workers, const ChunkSink& sink) override;
  std::string name() const override { return "DeltaScan"; }
  std::string details() const override;
  int64_t rows_read() const { return rows_read_; }

  const std::shared_ptr<const delta::Snapshot>& snapshot() const { return snapshot_; }
  const std::vector<const delta::AddFile*>& files() const { return files_; }
  // Replaces the files to read (dynamic file pruning); only before the first Next()/PushAll().
  Status SetFiles(std::vector<const delta::AddFile*> files);
  // Adds a conjunct over the scan's columns (before projection) that rows must pass.
  void AddRowFilter(ExprPtr filter) { filters_.push_back(std::move(filter)); }
  // Adds a conjunct that only saves work when it drops rows (a runtime filter, whose rows the
  // join tests exactly anyway): it runs on the first kAdaptiveSampleRows rows that pass the other
  // filters, and is then dropped for the rest of the scan when it kept more than
  // kAdaptiveKeepRatio of them (DataFusion's adaptive runtime filters).
  void AddAdaptiveRowFilter(ExprPtr filter) { adaptive_filters_.push_back(std::move(filter)); }
  static constexpr int64_t kAdaptiveSampleRows = 100'000;
  static constexpr double kAdaptiveKeepRatio = 0.95;
  void SetAdaptiveSampleRows(int64_t rows) { adaptive_sample_rows_ = rows; }  // tests
  // Late materialization (on by default; the session setting silt.lateMaterialization): when the
  // filters read some of the scan's columns only, those are decoded first and the others only for
  // the rows the filters keep (pages without such a row are skipped). Only before the first
  // Next()/PushAll().
  void SetLateMaterialization(bool on) { late_materialization_ = on; }
  static constexpr double kLateKeepRatio = 0.9;
  // Rows the late-materialized units decoded the filter columns of, and kept (tests, metrics).
  int64_t late_rows_seen() const { return late_seen_.load(); }
  int64_t late_rows_kept() const { return late_kept_.load(); }
  // "none", "sampling", "kept" or "dropped" (tests, EXPLAIN ANALYZE).
  std::string adaptive_filter_state() const;
  // Skips row groups whose statistics prove that scan column `column` satisfies none of
  // `alternatives` (see delta::TableScanFile::RowGroupMayMatch); counted in the DFP metrics.
  void AddRowGroupFilter(int column,
                         std::vector<std::vector<parquet::ColumnPredicate>> alternatives) {
    row_group_filters_.push_back({column, std::move(alternatives)});
  }
  DfpScanMetrics& dfp_metrics() { return dfp_; }
  const DfpScanMetrics& dfp_metrics() const { return dfp_; }
  // After a run: "numFilesRead=2, bytesRead=1234, rowsOutput=10" then the DFP metrics when
  // dynamic file pruning considered the scan (EXPLAIN ANALYZE).
  std::string AnalyzeDetails() const;

 private:
  DeltaScanOperator() = default;
  // A work unit: rows [begin, end) of one row group of a file (page-aligned, about
  // kScanUnitRows rows), so several workers can share one big row group.
  struct ScanUnit {
    int row_group;
    int64_t begin, end;
  };
  // The units of the file's row groups that the row-group filters keep.
  std::vector<ScanUnit> SplitFile(const delta::TableScanFile& file);
  Status FillBatch(ExecContext& ctx);
  void BuildAllFilters();
  // Filters and projects one row group's chunk and passes it to `emit` in kChunkRows pieces.
  // `sel` is scratch space of the calling worker.
  Status ScanGroup(ExecContext& ctx, DataChunk& group, std::vector<uint32_t>* sel,
                   const std::function<Status(DataChunk&)>& emit);
  // The rows of `group` that the filters keep (the adaptive ones while they run).
  Status Select(ExecContext& ctx, const DataChunk& group, std::vector<uint32_t>* sel, bool* all);
  // Select over a chunk whose dictionary-encoded filter columns are still dictionaries
  // (TableScanFile::ReadRowsSelecting): conjuncts of one of them run once per dictionary value.
  Status SelectWithDictionaries(ExecContext& ctx, DataChunk& group,
                                std::vector<std::optional<DictionaryVector>>* dicts,
                                std::vector<uint32_t>* sel, bool* all);
  // The adaptive-filter bookkeeping around select_rows(filters) of Select.
  Status SelectAdaptive(const std::function<Status(const std::vector<ExprPtr>&)>& select_rows,
                        size_t rows, std::vector<uint32_t>* sel, bool* all);
  // Projects the rows `sel` (all: every row) of `group` and passes them to `emit` in kChunkRows
  // pieces.
  Status Emit(ExecContext& ctx, DataChunk& group, const std::vector<uint32_t>* sel, bool all,
              const std::function<Status(DataChunk&)>& emit);
  // Reads, filters and emits one unit: late materialized when the filters read a strict subset of
  // the scan's columns (the other columns are decoded for the rows they keep only).
  Status ReadUnit(ExecContext& ctx, const delta::TableScanFile& file, const ScanUnit& unit,
                  std::vector<uint32_t>* sel, const std::function<Status(DataChunk&)>& emit);
  std::shared_ptr<const delta::Snapshot> snapshot_;
  std::unique_ptr<delta::TableScan> scan_;
  std::vector<const delta::AddFile*> files_;
  std::vector<ExprPtr> filters_;
  std::vector<ExprPtr> adaptive_filters_;
  std::vector<ExprPtr> all_filters_;  // filters_ then adaptive_filters_ (built on first use)
  enum AdaptiveState : int { kSampling = 0, kKeep = 1, kDrop = 2 };
  std::atomic<int> adaptive_state_{kSampling};
  int64_t adaptive_sample_rows_ = kAdaptiveSampleRows;
  std::atomic<int64_t> adaptive_seen_{0};    // sampled rows that passed filters_
  std::atomic<int64_t> adaptive_passed_{0};  // ... and the adaptive filters
  std::vector<ExprPtr> projection_;          // empty: the scan's columns as read
  // Per scan column, 1 when projection_ reads it (built with the filters; empty: every column).
  std::vector<uint8_t> projected_columns_;
  // Late materialization: the scan columns the filters read (empty: off), without and with the
  // adaptive filters; switched off for the rest of the scan once the filters kept more than
  // kLateKeepRatio of the first kAdaptiveSampleRows rows (nothing to skip, one more copy).
  bool late_materialization_ = true;
  std::vector<int> late_static_, late_all_;
  std::atomic<bool> late_on_{true};
  std::atomic<int64_t> late_seen_{0}, late_kept_{0};
  std::string table_name_;
  std::string explain_details_;
  size_t next_file_ = 0;
  std::deque<DataChunk> ready_;
  std::deque<size_t> ready_files_;  // the file (index into files_) of each ready_ chunk
  // Per file, its URI for input_file_name() (exec/input_file.h), made when the file is opened.
  std::vector<std::shared_ptr<const std::string>> file_uris_;
  std::shared_ptr<const std::string> FileUri(size_t file);
  int64_t rows_read_ = 0;
  bool started_ = false;
  DfpScanMetrics dfp_;
  struct RowGroupFilter {
    int column;
    std::vector<std::vector<parquet::ColumnPredicate>> alternatives;
  };
  std::vector<RowGroupFilter> row_group_filters_;
  std::atomic<int64_t> row_groups_pruned_{0};
};

// Keeps the rows of `chunk` where all `filters` are TRUE (in place).
Status ApplyFilters(const std::vector<ExprPtr>& filters, const EvalContext& ctx, DataChunk* chunk);
// The rows of `chunk` where all `filters` are TRUE, evaluating each conjunct only on the rows the
// earlier ones kept: *all when every row passes (sel is then not filled), else their indices.
Status SelectRows(const std::vector<ExprPtr>& filters, const EvalContext& ctx,
                  const DataChunk& chunk, std::vector<uint32_t>* sel, bool* all);
// A conjunct `column <op> constant` (or `constant <op> column`, or `column <op> column` of one
// type; op one of = <> < <= > >=) over a fixed-width column (integral, date/time, interval, float,
// double, decimal) applied to the rows *sel of `chunk` in place, without gathering them first: the
// kept rows are those where the comparison is TRUE (NULL drops a row; NaN equals NaN and is above
// every number, as in the comparison kernels). False, with *sel untouched, when `filter` is not of
// that shape.
bool RefineByComparison(const Expr& filter, const DataChunk& chunk, std::vector<uint32_t>* sel);

}  // namespace silt::exec
