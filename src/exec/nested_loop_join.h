// NestedLoopJoinOperator: joins on an arbitrary condition (non-equi joins, CROSS JOIN), for every
// join type, with Spark semantics (see hash_join.h for the type and output conventions).
//
// The right side is materialized (ctx.memory; SILT_MEMORY_LIMIT_EXCEEDED); the left side streams.
// Each left chunk is paired with every right row in batches of kChunkRows pairs and the condition
// is evaluated over the concatenated left+right row (a NULL or FALSE condition is no match). A
// null condition is CROSS JOIN (every pair matches). The binder expresses NOT IN over several
// columns here as a LeftAnti whose condition is `(a = x) OR isnull(a = x)`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/memory.h"
#include "exec/expression.h"
#include "exec/hash_join.h"
#include "exec/operator.h"

namespace silt::exec {

class NestedLoopJoinOperator final : public Operator {
 public:
  NestedLoopJoinOperator(OperatorPtr left, OperatorPtr right, JoinType type, ExprPtr condition);
  Result<bool> Next(ExecContext& ctx, DataChunk* out) override;
  std::string name() const override { return "NestedLoopJoin"; }
  std::string details() const override;
  std::vector<const Operator*> children() const override { return {left_.get(), right_.get()}; }

 private:
  Status ProbeChunk(const DataChunk& in, ExecContext& ctx);

  OperatorPtr left_;
  OperatorPtr right_;
  JoinType type_;
  ExprPtr condition_;
  Schema pair_schema_;
  size_t num_left_ = 0;

  bool built_ = false;
  DataChunk right_data_;
  std::vector<uint8_t> right_matched_;
  std::unique_ptr<MemoryReservation> reservation_;
  bool left_done_ = false;
  bool unmatched_emitted_ = false;
  std::vector<DataChunk> pending_;
  size_t pending_pos_ = 0;
};

}  // namespace silt::exec
