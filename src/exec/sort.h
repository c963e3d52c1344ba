// Sorting operators (ORDER BY, ORDER BY … LIMIT, LIMIT/OFFSET) and the Spark value ordering they
// share with window functions and joins.
//
// Ordering (Spark's): ASC defaults to NULLS FIRST, DESC to NULLS LAST (the binder fills
// SortKey::nulls_first); NaN is greater than every other float/double and equal to itself; -0.0 ==
// 0.0; strings and binary compare bytes unsigned; booleans false < true; decimals by value (the
// type is fixed per key); dates/timestamps by instant; structs field by field and arrays element by
// element then by length, with NULL fields/elements first (direction reverses the whole nested
// comparison). Maps are not orderable (Spark rejects them at analysis): DATATYPE_MISMATCH.
//
// Sorting is stable: rows that compare equal keep their input order. Sort and TopN buffer their
// input (reserved on ctx.memory: SILT_MEMORY_LIMIT_EXCEEDED) and sort on ctx.pool when it is set.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/memory.h"
#include "exec/expression.h"
#include "exec/operator.h"

namespace silt::exec {

struct SortKey {
  ExprPtr expr;
  bool ascending = true;
  bool nulls_first = true;
};

// The key with Spark's default NULL ordering for its direction.
inline SortKey MakeSortKey(ExprPtr expr, bool ascending) {
  return SortKey{std::move(expr), ascending, ascending};
}

struct SortOrder {
  bool ascending = true;
  bool nulls_first = true;
};

// DATATYPE_MISMATCH when values of `type` cannot be ordered (maps, or nested types holding maps).
Status CheckOrderable(const DataType& type);

// Three-way comparison of a[i] and b[j] (same type) in ascending Spark order, NULLs first
// (nested NULLs too). Slow path for single comparisons (min/max, boundaries).
int CompareValues(const Vector& a, size_t i, const Vector& b, size_t j);

// Compares rows of a set of key columns under per-key orders. The key vectors must outlive it.
// Comparison dispatches per key through a function chosen once per type (no per-row switch).
class RowComparator {
 public:
  // keys_a / keys_b: the key columns of the two sides (the same vectors when comparing rows of one
  // table). orders.size() == keys_a.size() == keys_b.size().
  RowComparator(std::vector<const Vector*> keys_a, std::vector<const Vector*> keys_b,
                std::vector<SortOrder> orders);
  RowComparator(std::vector<const Vector*> keys, std::vector<SortOrder> orders)
      : RowComparator(keys, keys, std::move(orders)) {}
  // <0, 0, >0: row i of side a against row j of side b.
  int Compare(size_t i, size_t j) const;

  using CompareFn = int (*)(const Vector& a, size_t i, const Vector& b, size_t j);

 private:
  struct Key {
    const Vector* a;
    const Vector* b;
    const uint8_t* valid_a;  // null: no nulls
    const uint8_t* valid_b;
    CompareFn fn;
    bool ascending;
    bool nulls_first;
  };
  std::vector<Key> keys_;
};

// The stable sorted permutation of rows [0, num_rows) of the key columns: (*perm)[k] is the input
// row at output position k. Uses a normalized-key radix sort when every key is fixed-width and
// the encoded keys fit 16 bytes, otherwise a column-wise comparator merge sort; runs in parallel
// on pool when set and the input is large. Errors: DATATYPE_MISMATCH (unorderable key),
// Cancelled.
Status SortPermutation(std::span<const Vector* const> keys, std::span<const SortOrder> orders,
                       size_t num_rows, const ExecContext& ctx, std::vector<uint32_t>* perm);

// --- helpers shared by the buffering operators (sort, top-N, window, joins)

// Evaluates expr over chunk; a plain column reference is returned without copying (*result points
// into chunk), anything else is evaluated into *scratch.
Status EvaluateOrReference(const Expr& expr, const DataChunk& chunk, const EvalContext& ctx,
                           Vector* scratch, const Vector** result);

// Appends chunk to *all, reserving on *reservation what the buffer then holds plus `base` and
// per_row_bytes for each buffered row (before appending: a limit hit leaves *all as it was,
// *appended false; after: *appended true). NotImplemented past 4 GiB of offsets or 2^32 rows.
Status AppendToBuffer(const DataChunk& chunk, DataChunk* all, MemoryReservation* reservation,
                      int64_t base, int64_t per_row_bytes, bool* appended);

// Bytes a row of evaluated (not column-reference) sort keys takes, estimated for strings: what
// a buffering operator sets aside per row so it can still sort what it buffered.
int64_t EvaluatedKeyBytesPerRow(std::span<const SortKey> keys);

// Pulls every chunk of child and appends it to *all (one Vector per column; all must be built
// from the child's schema), reserving the bytes on *reservation. Fails with NotImplemented when a
// string/list column would pass the 4 GiB offset range of a single Vector.
Status BufferAll(Operator& child, ExecContext& ctx, DataChunk* all, MemoryReservation* reservation);

// Appends n NULL rows to v.
void AppendNulls(Vector* v, size_t n);

// Writes rows sel[0..n) of every column of src to out (a fresh chunk shaped like src).
void GatherChunk(const DataChunk& src, const uint32_t* sel, size_t n, DataChunk* out);

// ORDER BY: buffers the input, sorts it stably and emits it in chunks of kChunkRows.
class ExternalSort;  // exec/external_sort.h

// Past the memory limit (with ctx.spill), the buffer is sorted and spilled as runs that are
// merged at the end (external_sort.h).
class SortOperator final : public Operator {
 public:
  SortOperator(OperatorPtr child, std::vector<SortKey> keys);
  Result<bool> Next(ExecContext& ctx, DataChunk* out) override;
  ~SortOperator() override;
  std::string name() const override { return "Sort"; }
  std::string details() const override;
  std::vector<const Operator*> children() const override { return {child_.get()}; }
  std::string RuntimeMetrics() const override;

 private:
  Status Run(ExecContext& ctx);
  std::unique_ptr<ExternalSort> external_;
  OperatorPtr child_;
  std::vector<SortKey> keys_;
  bool done_input_ = false;
  DataChunk data_;
  std::vector<uint32_t> perm_;
  size_t emitted_ = 0;  // rows of perm_ gathered into output chunks
  // Output chunks gathered ahead, in order (a batch is gathered in parallel on ctx.pool).
  std::deque<DataChunk> ready_;
  std::unique_ptr<MemoryReservation> reservation_;
};

// ORDER BY … LIMIT limit OFFSET offset: the same rows as Sort followed by Limit (ties keep their
// input order), holding only about limit+offset rows (plus one chunk) at a time.
class TopNOperator final : public Operator {
 public:
  TopNOperator(OperatorPtr child, std::vector<SortKey> keys, int64_t limit, int64_t offset = 0);
  Result<bool> Next(ExecContext& ctx, DataChunk* out) override;
  std::string name() const override { return "TopN"; }
  std::string details() const override;
  std::vector<const Operator*> children() const override { return {child_.get()}; }

 private:
  Status Consume(ExecContext& ctx);
  Status Compact(const ExecContext& ctx);
  OperatorPtr child_;
  std::vector<SortKey> keys_;
  int64_t limit_;
  int64_t offset_;
  bool done_input_ = false;
  DataChunk buffer_;                 // retained rows (sorted prefix after each compaction)
  std::vector<Vector> buffer_keys_;  // evaluated sort keys of buffer_, row-aligned
  bool have_boundary_ = false;       // buffer_ holds exactly `keep` sorted rows from compaction
  size_t emitted_ = 0;
  std::unique_ptr<MemoryReservation> reservation_;
};

// LIMIT limit OFFSET offset (limit < 0: no limit). Stops pulling the child once done.
class LimitOperator final : public Operator {
 public:
  LimitOperator(OperatorPtr child, int64_t limit, int64_t offset = 0);
  Result<bool> Next(ExecContext& ctx, DataChunk* out) override;
  std::string name() const override { return "Limit"; }
  std::string details() const override;
  std::vector<const Operator*> children() const override { return {child_.get()}; }

 private:
  OperatorPtr child_;
  int64_t limit_;
  int64_t offset_;
  int64_t skipped_ = 0;
  int64_t returned_ = 0;
  bool done_ = false;
};

}  // namespace silt::exec
