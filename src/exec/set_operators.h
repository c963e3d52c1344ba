// DISTINCT, UNION ALL and the set operations UNION / INTERSECT [ALL] / EXCEPT [ALL] with Spark's
// semantics: rows compare as whole tuples with NULLs equal (and NaN = NaN, -0.0 = 0.0).
//
// Children must produce the same column types (the binder coerces them with CommonType); the
// output schema is the first child's, with a column nullable when it is in any child. Output
// order is unspecified (DISTINCT and UNION keep first-appearance order in practice).
#pragma once

#include <string>
#include <vector>

#include "exec/hash_aggregate.h"
#include "exec/operator.h"

namespace silt::exec {

// SELECT DISTINCT: streams each row whose tuple was not seen before (memory on ctx.memory).
class DistinctOperator : public Operator {
 public:
  explicit DistinctOperator(OperatorPtr child);
  Result<bool> Next(ExecContext& ctx, DataChunk* out) override;
  std::string name() const override { return "Distinct"; }
  std::vector<const Operator*> children() const override { return {child_.get()}; }

 private:
  OperatorPtr child_;
  std::unique_ptr<GroupHashTable> table_;
  std::vector<uint32_t> groups_;
};

// UNION ALL of n >= 1 children, in child order.
class UnionAllOperator : public Operator {
 public:
  explicit UnionAllOperator(std::vector<OperatorPtr> children);
  Result<bool> Next(ExecContext& ctx, DataChunk* out) override;
  std::string name() const override { return "Union"; }
  std::vector<const Operator*> children() const override;

 private:
  std::vector<OperatorPtr> children_;
  size_t current_ = 0;
};

enum class SetOpKind : uint8_t { kIntersect, kIntersectAll, kExcept, kExceptAll };

// left INTERSECT [ALL] / EXCEPT [ALL] right:
//   INTERSECT      distinct rows of left that occur in right
//   INTERSECT ALL  each row min(count in left, count in right) times
//   EXCEPT         distinct rows of left that do not occur in right
//   EXCEPT ALL     each row max(0, count in left - count in right) times
// The left side is hashed (memory on ctx.memory), the right side streamed.
class SetOperator : public Operator {
 public:
  SetOperator(SetOpKind kind, OperatorPtr left, OperatorPtr right);
  Result<bool> Next(ExecContext& ctx, DataChunk* out) override;
  std::string name() const override;
  std::vector<const Operator*> children() const override { return {left_.get(), right_.get()}; }

 private:
  Status Build(ExecContext& ctx);
  SetOpKind kind_;
  OperatorPtr left_, right_;
  std::unique_ptr<GroupHashTable> table_;
  bool built_ = false;
  size_t next_group_ = 0;
  size_t pending_copies_ = 0;  // ALL: copies of group next_group_ still to emit
};

// left UNION right (distinct): Distinct over UnionAll.
OperatorPtr MakeUnionDistinct(std::vector<OperatorPtr> children);

}  // namespace silt::exec
