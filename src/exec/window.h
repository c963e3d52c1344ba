// Window functions: WindowOperator evaluates functions that share one PARTITION BY / ORDER BY
// (the planner groups a query's window expressions by specification and stacks operators).
//
// Semantics (Spark's)
// - Output: the input columns followed by one column per function, rows in partition-then-order
//   order (partitions sorted by their keys, ASC NULLS FIRST; rows by the ORDER BY keys, stably).
// - Ranking: row_number, rank, dense_rank, ntile → int; percent_rank, cume_dist → double. Peers
//   are rows whose ORDER BY keys compare equal. These and lag/lead ignore the frame.
// - lag/lead(input[, offset[, default]]): the value `offset` rows before/after within the
//   partition (default 1; a negative offset looks the other way), else `default` (evaluated at
//   the current row; NULL when absent). IGNORE NULLS counts only non-NULL values.
// - first_value/last_value/nth_value(input, n) (also first/last) over the frame, optionally
//   IGNORE NULLS; NULL when the frame has no such row.
// - Aggregates over the frame through the AggregateFunction interface (exec/aggregate.h):
//   Update/Combine/Finalize; sliding frames use a segment tree of Combine()d states, so the
//   aggregate must be order-insensitive (all of Spark's numeric aggregates are).
// - Frames: ROWS or RANGE BETWEEN UNBOUNDED PRECEDING | n PRECEDING | CURRENT ROW | n FOLLOWING |
//   UNBOUNDED FOLLOWING. Default (no frame given): RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT
//   ROW with ORDER BY, the whole partition without. RANGE CURRENT ROW means the peer group. RANGE
//   with an offset needs exactly one ORDER BY key of numeric, date (offset in days) or timestamp
//   (offset in microseconds) type; a row whose key is NULL gets the NULL peer group as frame.
//   Errors: DATATYPE_MISMATCH for invalid RANGE frames, INVALID_PARAMETER_VALUE for a bad
//   ntile/nth_value argument.
// - The input is buffered (ctx.memory; SILT_MEMORY_LIMIT_EXCEEDED) and sorted with sort.h.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/memory.h"
#include "exec/aggregate.h"
#include "exec/expression.h"
#include "exec/operator.h"
#include "exec/sort.h"
#include "vector/value.h"

namespace silt::exec {

enum class WindowFrameType : uint8_t { kRows, kRange };

enum class WindowBoundKind : uint8_t {
  kUnboundedPreceding,
  kPreceding,
  kCurrentRow,
  kFollowing,
  kUnboundedFollowing,
};

struct WindowBound {
  WindowBoundKind kind = WindowBoundKind::kCurrentRow;
  // kPreceding/kFollowing: a non-negative constant. ROWS: an integer row count. RANGE: an
  // integer, floating or decimal value in the ORDER BY key's units.
  Value offset;
};

struct WindowFrame {
  WindowFrameType type = WindowFrameType::kRange;
  WindowBound start{WindowBoundKind::kUnboundedPreceding, {}};
  WindowBound end{WindowBoundKind::kCurrentRow, {}};
};

// Spark's default frame: RANGE UNBOUNDED PRECEDING..CURRENT ROW with ORDER BY, else ROWS
// UNBOUNDED PRECEDING..UNBOUNDED FOLLOWING.
WindowFrame DefaultWindowFrame(bool has_order_by);

enum class WindowFunctionKind : uint8_t {
  kRowNumber,
  kRank,
  kDenseRank,
  kPercentRank,
  kCumeDist,
  kNtile,
  kLag,
  kLead,
  kFirstValue,
  kLastValue,
  kNthValue,
  kAggregate,
};

struct WindowFunction {
  std::string name;  // Spark name as written ("row_number", "sum", ...), for EXPLAIN
  WindowFunctionKind kind = WindowFunctionKind::kRowNumber;
  // lag/lead/first/last/nth: {input}; aggregates: their coerced arguments; ranking: none.
  std::vector<ExprPtr> args;
  TypePtr result_type;
  std::optional<WindowFrame> frame;  // nullopt: Spark's default for the operator's ORDER BY
  bool ignore_nulls = false;
  int64_t offset = 1;     // lag/lead offset, ntile bucket count, nth_value n
  ExprPtr default_value;  // lag/lead default (null: NULL)
  std::shared_ptr<const AggregateFunction> aggregate;  // kAggregate
};

// True for the window-only functions BindWindowFunction knows (not the aggregates).
bool IsWindowFunction(std::string_view name);

// Binds a ranking/offset/value window function by Spark name (case-insensitive): row_number(),
// rank(), dense_rank(), percent_rank(), cume_dist(), ntile(n), lag/lead(x[, offset[, default]]),
// first_value/first(x[, ignore_nulls]), last_value/last(x[, ignore_nulls]), nth_value(x, n).
// Constant arguments (offset, n, ignore_nulls) must be foldable; default must have x's type
// (coerce it first). Errors: UNRESOLVED_ROUTINE, WRONG_NUM_ARGS, DATATYPE_MISMATCH,
// INVALID_PARAMETER_VALUE (ntile(0), nth_value(x, 0)).
Result<WindowFunction> BindWindowFunction(std::string_view name, std::vector<ExprPtr> args,
                                          bool ignore_nulls = false);

// An aggregate over a window (sum(x) OVER (...)).
WindowFunction MakeAggregateWindowFunction(std::string name, BoundAggregate aggregate,
                                           std::optional<WindowFrame> frame = std::nullopt);

class WindowOperator final : public Operator {
 public:
  WindowOperator(OperatorPtr child, std::vector<ExprPtr> partition_by,
                 std::vector<SortKey> order_by, std::vector<WindowFunction> functions);
  ~WindowOperator() override;
  Result<bool> Next(ExecContext& ctx, DataChunk* out) override;
  std::string name() const override { return "Window"; }
  std::string details() const override;
  std::vector<const Operator*> children() const override { return {child_.get()}; }
  std::string RuntimeMetrics() const override;

 private:
  // Spilling (window_spill.cc): past the memory limit with PARTITION BY, the input goes through
  // the external sort and is evaluated in batches of whole partitions.
  struct Spill;
  Result<bool> BufferOrSpill(ExecContext& ctx);  // true: spilled (spill_ set)
  Result<bool> SpilledNext(ExecContext& ctx, DataChunk* out);
  std::unique_ptr<Spill> spill_;
  bool no_spill_ = false;  // a batch's own window
  int64_t spilled_batches_ = 0;

  struct Layout;
  Status Run(ExecContext& ctx);
  Status Compute(const WindowFunction& fn, const Layout& layout, ExecContext& ctx, Vector* out);

  OperatorPtr child_;
  std::vector<ExprPtr> partition_by_;
  std::vector<SortKey> order_by_;
  std::vector<WindowFunction> functions_;
  bool done_input_ = false;
  DataChunk data_;
  std::vector<uint32_t> perm_;
  std::vector<Vector> results_;
  size_t emitted_ = 0;           // rows gathered into output chunks
  std::deque<DataChunk> ready_;  // gathered, not yet returned (in order)
  std::unique_ptr<MemoryReservation> reservation_;
};

}  // namespace silt::exec
