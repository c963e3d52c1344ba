// Equi-joins: HashJoinOperator (build side materialized into a chained hash table, probe side
// streamed chunk by chunk), plus the join type and output-schema conventions shared with
// NestedLoopJoinOperator.
//
// Semantics (Spark's)
// - Output: left (probe) columns then right (build) columns; LeftSemi/LeftAnti output the left
//   columns only. Outer joins pad the missing side with NULLs (those fields become nullable).
// - A NULL key never matches, except for null-safe keys (<=>), where NULL matches NULL. Floating
//   keys are normalized (-0.0 = 0.0, NaN = NaN); see exec/join_keys.h.
// - The residual condition (over the concatenated left+right row; may be null) is part of the
//   join condition: for outer/semi/anti joins a pair whose residual is FALSE or NULL is not a
//   match.
// - LeftAnti keeps every left row without a match (so a left row with a NULL key is kept).
//   With null_aware_anti (the binder's NOT IN subquery, Spark's null-aware anti join; one key,
//   no residual): an empty build side keeps every left row; a build side with any NULL key
//   yields no rows; otherwise a left row is kept when its key is non-NULL and unmatched.
// - Output order is unspecified (serial runs emit in probe order, matches in build order).
//
// Execution: the first Next() (or an explicit Build()) materializes the build side and its hash
// table (reserved on ctx.memory; SILT_MEMORY_LIMIT_EXCEEDED); with ctx.pool the build's hashing
// and insertion and the probe of batches of chunks run in parallel. A single integral key
// without <=> uses an int64 fast path. Errors: DATATYPE_MISMATCH when the two sides' key types
// differ or are not joinable, NotImplemented for null-aware anti joins with several keys or a
// residual, errors of key/residual evaluation, Cancelled.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/memory.h"
#include "exec/expression.h"
#include "exec/operator.h"
#include "vector/value.h"

namespace silt::exec {

enum class JoinType : uint8_t {
  kInner,
  kLeftOuter,
  kRightOuter,
  kFullOuter,
  kLeftSemi,
  kLeftAnti,
  // The build side's rows that have a match (RightSemi) or none (RightAnti), each once, after the
  // probe side is consumed: a semi/anti join whose preserved side is the smaller one is built
  // on it (TPC-H Q4's orders against lineitem). Output: the build (right) columns only.
  kRightSemi,
  kRightAnti,
};

const char* JoinTypeName(JoinType type);  // "Inner", "LeftOuter", ...

// left fields then right fields (left only for semi/anti, right only for right semi/anti);
// fields of a side that outer joins pad with NULLs become nullable.
Schema JoinOutputSchema(const Schema& left, const Schema& right, JoinType type);

// Writes n joined rows to *out (schema: left fields then right fields; nl = number of left
// fields): left columns from rows ls[] of `left`, right columns from rows rs[] of `right`; a null
// ls or rs pads that side with NULLs.
void GatherJoinPairs(const DataChunk& left, const uint32_t* ls, const DataChunk& right,
                     const uint32_t* rs, size_t n, const Schema& schema, size_t nl, DataChunk* out);

// Build-side facts for dynamic file pruning of the probe side, per key (right_keys order).
struct JoinKeySummary {
  int64_t non_null_count = 0;
  bool has_nulls = false;
  // Spark-ordered min/max of the non-NULL keys (present when non_null_count > 0).
  bool has_min_max = false;
  Value min;
  Value max;
  // Every distinct non-NULL key, in first-seen order, when there are at most
  // kJoinSummaryMaxDistinct of them (or the operator's SetSummaryMaxDistinct; distinct_complete);
  // otherwise empty.
  bool distinct_complete = false;
  std::vector<Value> distinct_values;
};

inline constexpr size_t kJoinSummaryMaxDistinct = 64;

// The summary of one key column (NULLs counted apart; at most max_distinct distinct values kept).
JoinKeySummary SummarizeKeys(const Vector& key, size_t max_distinct);

struct JoinBuildSummary {
  int64_t build_rows = 0;
  std::vector<JoinKeySummary> keys;
};

class HashJoinOperator final : public Operator {
 public:
  // left_keys[k] (over the probe schema) is compared with right_keys[k] (over the build schema);
  // both must have the same type (the binder coerces them). null_safe may be empty (all false).
  HashJoinOperator(OperatorPtr probe, OperatorPtr build, JoinType type,
                   std::vector<ExprPtr> left_keys, std::vector<ExprPtr> right_keys,
                   std::vector<bool> null_safe, ExprPtr residual, bool null_aware_anti = false);
  ~HashJoinOperator() override;

  Result<bool> Next(ExecContext& ctx, DataChunk* out) override;
  // Builds, then probes the probe side's pushed chunks on its workers (when it can push).
  Result<bool> PushAll(ExecContext& ctx, size_t workers, const ChunkSink& sink) override;
  std::string name() const override { return "HashJoin"; }
  std::string details() const override;
  std::vector<const Operator*> children() const override { return {probe_.get(), build_.get()}; }
  std::string RuntimeMetrics() const override;  // the grace join's spill (grace_join.cc)

  // Materializes the build side and its hash table (idempotent; Next() calls it). Lets the
  // planner build first and use build_summary() to prune the probe side before pulling it.
  Status Build(ExecContext& ctx);
  // Build-side key summary, computed on first use after Build(); null before Build().
  const JoinBuildSummary* build_summary();
  // The build side's values of key k (right_keys order; NULLs included); null before Build().
  const Vector* build_key(size_t k) const {
    return k < build_keys_.size() ? build_keys_[k] : nullptr;
  }
  // Distinct keys the summary keeps per key column (default kJoinSummaryMaxDistinct).
  void SetSummaryMaxDistinct(size_t n) { summary_max_distinct_ = n; }
  // Called once at the end of Build(), before any probe-side row is pulled: dynamic file pruning
  // turns build_summary() into runtime filters of the probe side's Delta scans here.
  using BuildHook = std::function<Status(ExecContext& ctx, HashJoinOperator& join)>;
  void SetAfterBuild(BuildHook hook) { after_build_ = std::move(hook); }

 private:
  // Grace join (grace_join.h): under a memory limit with spilling on, a build side that does
  // not fit is partitioned to disk with the probe side and joined partition by partition.
  struct Grace;
  static constexpr int kFirstGraceShift = 44;  // the first split's hash bits
  // Buffers the build side into build_data_, or spills it by key hash (true; grace_ is set).
  Result<bool> BufferBuildOrSpill(ExecContext& ctx);
  Result<bool> GraceNext(ExecContext& ctx, DataChunk* out);
  std::unique_ptr<Grace> grace_;
  int grace_shift_ = kFirstGraceShift;
  int64_t spilled_rows_ = 0;
  int64_t spilled_bytes_ = 0;

  struct ProbeScratch;
  Status ValidateKeys() const;
  Status ProbeChunk(const DataChunk& in, const EvalContext& ctx,
                    std::vector<DataChunk>* outputs) const;
  void EmitUnmatchedBuild(std::vector<DataChunk>* outputs);
  void ComputeSummary();
  void MarkBuildMatched(uint32_t row) const;

  OperatorPtr probe_;
  OperatorPtr build_;
  JoinType type_;
  std::vector<ExprPtr> left_keys_;
  std::vector<ExprPtr> right_keys_;
  std::vector<bool> null_safe_;
  ExprPtr residual_;
  bool null_aware_anti_;
  Schema pair_schema_;
  size_t num_left_ = 0;  // left + right fields: what the residual is evaluated over

  // Build side.
  bool built_ = false;
  DataChunk build_data_;
  std::vector<Vector> build_key_storage_;
  std::vector<const Vector*> build_keys_;
  bool int_fast_path_ = false;
  std::vector<int64_t> build_int_keys_;
  std::vector<uint64_t> build_hashes_;
  std::vector<uint32_t> heads_;
  std::vector<uint32_t> next_;
  uint64_t mask_ = 0;
  size_t inserted_rows_ = 0;
  bool build_has_null_key_ = false;             // some row has a NULL in a non-null-safe key
  mutable std::vector<uint8_t> build_matched_;  // right/full outer (atomic_ref writes)
  std::unique_ptr<MemoryReservation> reservation_;
  bool summary_done_ = false;
  JoinBuildSummary summary_;
  size_t summary_max_distinct_ = kJoinSummaryMaxDistinct;
  BuildHook after_build_;

  // Probe side.
  bool probe_done_ = false;
  bool unmatched_emitted_ = false;
  std::deque<DataChunk> pending_;
};

}  // namespace silt::exec
