// Row-key hashing and equality over key columns: the shared mechanics of hash aggregation,
// DISTINCT, set operations and hash joins.
//
// Contract
// - Hashes are 64-bit, deterministic within a process (not persisted), and equal for values that
//   compare equal under these rules: NULL hashes to a fixed constant; floating-point keys are
//   normalized as Spark's NormalizeFloatingNumbers does (-0.0 = 0.0, every NaN = NaN); strings and
//   binaries by their bytes; decimals by their unscaled value (columns being compared share one
//   type); nested values (struct, array, map) recursively by content.
// - Key columns being compared must have the same TypeId (and decimal scale); the callers coerce
//   keys to a common type first.
// - NULL handling is explicit: kNullsEqual (GROUP BY, DISTINCT, set operations, `<=>` joins) or
//   kNullsNeverEqual (`=` join keys: a NULL never matches anything, not even NULL).
// - Functions are pure; they may be called from several threads on const vectors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "common/hash.h"
#include "vector/vector.h"

namespace silt::exec {

enum class NullEquality : uint8_t { kNullsEqual, kNullsNeverEqual };

inline constexpr uint64_t kNullHash = 0x6a09e667f3bcc908ULL;

// Combines the hash of the next key column into a running row hash (order-dependent).
inline uint64_t HashCombine(uint64_t seed, uint64_t h) {
  return HashMix(seed * 0x9e3779b97f4a7c15ULL + h + 0x632be59bd9b4e019ULL);
}

// Hashes rows [0, rows) of col into hashes (combine=false) or combines them into hashes
// (combine=true), column after column.
void HashColumn(const Vector& col, size_t rows, uint64_t* hashes, bool combine);
// Same over the rows sel[0..n) of col; hashes[k] belongs to row sel[k].
void HashColumnSelected(const Vector& col, const uint32_t* sel, size_t n, uint64_t* hashes,
                        bool combine);
// Row hash of rows [0, rows) over several key columns (no columns: every hash is the same).
void HashRows(std::span<const Vector* const> cols, size_t rows, uint64_t* hashes);
// Hash of one value (the same value HashColumn computes for that row as the first column).
uint64_t HashValueAt(const Vector& col, size_t row);

// Equality of a[i] and b[j] (same type) under `nulls`.
bool ValuesEqualAt(const Vector& a, size_t i, const Vector& b, size_t j, NullEquality nulls);
// Equality of row i of the columns `a` and row j of the columns `b` (same count and types).
bool RowsEqual(std::span<const Vector* const> a, size_t i, std::span<const Vector* const> b,
               size_t j, NullEquality nulls);

// Column-wise match refinement (vectorized key comparison). Candidates are indices c into the
// aligned arrays a_rows/b_rows: candidate c compares a[a_rows[c]] with b[b_rows[c]]. Of
// cand[0..n), the matching ones stay (in order) at cand[0..return value); the others are appended
// to miss[*n_miss...] and *n_miss is advanced. Call once per key column to compare whole rows.
size_t MatchColumn(const Vector& a, const uint32_t* a_rows, const Vector& b, const uint32_t* b_rows,
                   uint32_t* cand, size_t n, NullEquality nulls, uint32_t* miss, size_t* n_miss);

}  // namespace silt::exec
