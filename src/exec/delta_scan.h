// DeltaScanOperator: reads a Delta snapshot's data files (a pruned subset) as chunks of the
// requested logical columns, applies pushed-down filters, and drops rows deleted by deletion
// vectors (delta::TableScan does the per-file work). Files are read and filtered in parallel on
// the ExecContext's pool, a batch at a time; output order is file order (deterministic).
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "delta/scan.h"
#include "delta/snapshot.h"
#include "exec/expression.h"
#include "exec/operator.h"

namespace silt::exec {

class DeltaScanOperator final : public Operator {
 public:
  // files: the files to read (pointers into snapshot->files()); filters: conjuncts over the
  // output columns (rows where any is not TRUE are dropped).
  static Result<std::unique_ptr<DeltaScanOperator>> Make(std::shared_ptr<const delta::Snapshot> snapshot,
                                                         std::vector<std::string> columns,
                                                         std::vector<const delta::AddFile*> files,
                                                         std::vector<ExprPtr> filters, std::string table_name);
  // Evaluates `exprs` (over the scan's columns; deterministic) on each filtered chunk in the scan's
  // worker tasks, so a projection above the scan runs in parallel too; the output schema becomes
  // `schema`.
  void SetProjection(std::vector<ExprPtr> exprs, Schema schema);
  // What EXPLAIN shows for this scan (columns, filters, how the files were chosen); default:
  // the table name and the number of files read.
  void SetExplainDetails(std::string details) { explain_details_ = std::move(details); }
  Result<bool> Next(ExecContext& ctx, DataChunk* out) override;
  // Files are taken by the workers one at a time (dynamic balance); row groups are cut into
  // kChunkRows pieces before filtering, so each worker holds one row group's columns at a time.
  Result<bool> PushAll(ExecContext& ctx, size_t workers, const ChunkSink& sink) override;
  std::string name() const override { return "DeltaScan"; }
  std::string details() const override;
  int64_t rows_read() const { return rows_read_; }

 private:
  DeltaScanOperator() = default;
  Status FillBatch(ExecContext& ctx);
  // Reads one file: each row group in kChunkRows pieces, filtered and projected, to `emit`.
  Status ScanOne(ExecContext& ctx, const delta::AddFile& file, const std::function<Status(DataChunk&)>& emit);
  std::shared_ptr<const delta::Snapshot> snapshot_;
  std::unique_ptr<delta::TableScan> scan_;
  std::vector<const delta::AddFile*> files_;
  std::vector<ExprPtr> filters_;
  std::vector<ExprPtr> projection_;  // empty: the scan's columns as read
  std::string table_name_;
  std::string explain_details_;
  size_t next_file_ = 0;
  std::deque<DataChunk> ready_;
  int64_t rows_read_ = 0;
};

// Keeps the rows of `chunk` where all `filters` are TRUE (in place).
Status ApplyFilters(const std::vector<ExprPtr>& filters, const EvalContext& ctx, DataChunk* chunk);
// The rows of `chunk` where all `filters` are TRUE, evaluating each conjunct only on the rows the
// earlier ones kept: *all when every row passes (sel is then not filled), else their indices.
Status SelectRows(const std::vector<ExprPtr>& filters, const EvalContext& ctx, const DataChunk& chunk,
                  std::vector<uint32_t>* sel, bool* all);

}  // namespace silt::exec
