// The small operators every plan uses: Filter (keeps rows where a predicate is TRUE), Project
// (computes expressions), Values (literal rows / materialized results).
#pragma once

#include <string>
#include <vector>

#include "exec/expression.h"
#include "exec/operator.h"

namespace silt::exec {

class FilterOperator final : public Operator {
 public:
  FilterOperator(OperatorPtr child, ExprPtr predicate);
  Result<bool> Next(ExecContext& ctx, DataChunk* out) override;
  // Filters a parallel child's pushed chunks on its workers, once EnablePush() said the
  // predicate may run on several threads (deterministic).
  Result<bool> PushAll(ExecContext& ctx, size_t workers, const ChunkSink& sink) override;
  void EnablePush() { push_ = true; }
  std::string name() const override { return "Filter"; }
  std::string details() const override { return predicate_->ToString(); }
  std::vector<const Operator*> children() const override { return {child_.get()}; }

 private:
  OperatorPtr child_;
  ExprPtr predicate_;
  bool push_ = false;
};

// Evaluates `exprs` over *in into *out (columns of *in that are only passed through are moved).
Status ProjectChunk(const std::vector<ExprPtr>& exprs, const EvalContext& eval, DataChunk* in,
                    DataChunk* out);

class ProjectOperator final : public Operator {
 public:
  ProjectOperator(OperatorPtr child, std::vector<ExprPtr> exprs, std::vector<std::string> names);
  Result<bool> Next(ExecContext& ctx, DataChunk* out) override;
  // As FilterOperator::PushAll, for deterministic expressions.
  Result<bool> PushAll(ExecContext& ctx, size_t workers, const ChunkSink& sink) override;
  void EnablePush() { push_ = true; }
  std::string name() const override { return "Project"; }
  std::string details() const override;
  std::vector<const Operator*> children() const override { return {child_.get()}; }

 private:
  OperatorPtr child_;
  std::vector<ExprPtr> exprs_;
  bool push_ = false;
};

// Emits `chunks` once, split into pieces of at most kChunkRows rows.
class ValuesOperator final : public Operator {
 public:
  ValuesOperator(Schema schema, std::vector<DataChunk> chunks);
  // Rows shared with the plan that owns them (not copied).
  ValuesOperator(Schema schema, std::shared_ptr<const std::vector<DataChunk>> chunks);
  Result<bool> Next(ExecContext& ctx, DataChunk* out) override;
  std::string name() const override { return "Values"; }

 private:
  std::shared_ptr<const std::vector<DataChunk>> chunks_;
  size_t chunk_ = 0, offset_ = 0;
};

// range(start, end, step) streamed kChunkRows values at a time: `count` values start + k*step
// (wrapping arithmetic, the caller computed a count that stays within int64); the schema has the
// one BIGINT column `id`, or none (then it emits rows without columns).
class RangeOperator final : public Operator {
 public:
  RangeOperator(Schema schema, int64_t start, int64_t step, uint64_t count);
  Result<bool> Next(ExecContext& ctx, DataChunk* out) override;
  std::string name() const override { return "Range"; }
  std::string details() const override;

 private:
  int64_t start_, step_;
  uint64_t count_, done_ = 0;
};

}  // namespace silt::exec
