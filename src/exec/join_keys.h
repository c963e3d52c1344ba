// Hashing and equality of equi-join key columns (hash join build/probe, join summaries).
// Join-local for now; the lead may unify it with the aggregate's row hashing (exec/row_hash.h).
//
// Semantics are Spark's for join keys: floating keys are normalized first (-0.0 equals 0.0, every
// NaN equals every NaN — NormalizeFloatingNumbers), strings/binary compare bytes, nested keys
// (struct, array) compare element-wise with NULL elements equal to each other. Top-level NULLs
// are the caller's business: a NULL never matches unless the key is null-safe (<=>), where NULL
// matches NULL. Maps are not valid join keys (DATATYPE_MISMATCH from CheckJoinKeyType).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/hash.h"
#include "common/status.h"
#include "vector/vector.h"

namespace silt::exec {

// DATATYPE_MISMATCH when values of `type` cannot be join keys.
Status CheckJoinKeyType(const DataType& type);

inline constexpr uint64_t kNullKeyHash = 0x9e3779b97f4a7c15ULL;

// True for the integer-like key types of the single-int-key fast path (boolean, byte..long, date,
// timestamps): their values widen losslessly to int64.
bool IsIntegralKeyType(TypeId id);
// out[r - begin] = row r of an integral column widened to int64, for rows [begin, end) (NULL
// slots keep their defined value).
void WidenToInt64(const Vector& v, size_t begin, size_t end, int64_t* out);

// hashes[r - begin] = hash of row r over all key columns (a NULL hashes to a fixed value per
// column), for rows [begin, end). Equal keys (in the sense above) hash equally; keys non-empty.
void HashKeyColumns(std::span<const Vector* const> keys, size_t begin, size_t end,
                    uint64_t* hashes);

// Keeps the candidate pairs (a_rows[k], b_rows[k]) whose key columns are equal (column by column,
// one type dispatch per column) and compacts both arrays in place; returns the new count.
// null_safe[k]: NULL equals NULL for key k; otherwise a NULL on either side never matches.
size_t FilterEqualKeys(std::span<const Vector* const> a, std::span<const Vector* const> b,
                       const std::vector<bool>& null_safe, uint32_t* a_rows, uint32_t* b_rows,
                       size_t n);

// Row-at-a-time key equality with the same rules (early-exit probes of semi/anti joins).
bool KeysEqualAt(std::span<const Vector* const> a, size_t i, std::span<const Vector* const> b,
                 size_t j, const std::vector<bool>& null_safe);

}  // namespace silt::exec
