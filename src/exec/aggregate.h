// Aggregate functions (count, sum, avg, min, max, count(DISTINCT), approx_count_distinct, ...)
// with per-group state that the hash aggregate stores inline in its table.
//
// Contract
// - A bound AggregateFunction is immutable and shared between threads; the states are not.
// - State is state_size() bytes, 16-byte aligned, initialised by Init and released by Destroy
//   (states that own heap memory: DISTINCT sets, min/max of strings, collect_list).
// - Update adds rows [0, rows) of `args` into states[i] (row i's group). NULL handling is Spark's
//   (count(x) skips NULLs, sum of no non-NULL rows is NULL, count(*) has no args).
// - Combine merges a partial state into another (parallel aggregation); Finalize appends one
//   result row per state to *out (typed result_type(); callers usually pass an empty vector).
//   Finalize does not consume the states: Destroy is still called for each.
// - Update, Combine and Finalize may run on several threads at once over disjoint states.
// - Errors (ANSI overflow in sum) are Status values with Spark's error classes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "exec/expression.h"
#include "exec/functions.h"

namespace silt::exec {

class AggregateFunction {
 public:
  virtual ~AggregateFunction() = default;
  const TypePtr& result_type() const { return result_type_; }
  virtual size_t state_size() const = 0;
  virtual void Init(uint8_t* state) const = 0;
  virtual Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                        const EvalContext& ctx) const = 0;
  virtual Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext& ctx) const = 0;
  virtual Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                          const EvalContext& ctx) const = 0;
  virtual void Destroy(uint8_t* /*state*/) const {}
  // Bytes a state holds outside its state_size() bytes (collect_list values, DISTINCT sets,
  // percentile buffers); 0 for fixed-size states. The hash aggregate reserves them on the
  // query's MemoryTracker. Only functions that return true from has_heap_state() are asked.
  virtual bool has_heap_state() const { return false; }
  virtual size_t HeapBytes(const uint8_t* /*state*/) const { return 0; }

 protected:
  TypePtr result_type_;
};

struct BoundAggregate {
  std::shared_ptr<const AggregateFunction> function;
  // Coerced arguments evaluated per row (empty for count(*)). Bind-time constant parameters
  // (first's ignoreNulls, approx_count_distinct's rsd, percentile's percentage, accuracy) are
  // folded into the function and are not listed here.
  std::vector<ExprPtr> args;
};

// Resolves an aggregate call by Spark name (case-insensitive) over bound argument expressions
// (coercing them as Spark does, e.g. avg(int) → double, sum(decimal(p,s)) → decimal(p+10,s)).
// `distinct` is count(DISTINCT x) / sum(DISTINCT x): rows where an argument is NULL are skipped
// and the inner aggregate sees each distinct argument tuple once (ignored where it cannot change
// the result: min, max, first, any_value, bool_and, ...). Errors: UNRESOLVED_ROUTINE,
// WRONG_NUM_ARGS, DATATYPE_MISMATCH. The set of names is in aggregate_functions.cc.
Result<BoundAggregate> BindAggregateFunction(std::string_view name, std::vector<ExprPtr> args,
                                             bool distinct, const BindContext& ctx);
bool IsAggregateFunction(std::string_view name);

}  // namespace silt::exec
