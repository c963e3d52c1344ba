// A bloom filter over one join key column's build-side values, used as the row-level runtime
// filter of dynamic file pruning (docs/dfp.md): rows of the probe side's Delta scan whose key
// cannot be among the build keys are dropped in the scan, before they are gathered, projected and
// probed into the hash join. Register-blocked (one 64-bit word per key, 4 bits in it, about 16
// bits per key: ~1% false positives at one cache miss per probe); no false negatives, so it never
// changes a result (the join still tests exact membership).
//
// Keys: integral types (BOOLEAN, TINYINT..BIGINT, DATE, TIMESTAMP[_NTZ]) hash their value widened
// to int64, so an INT column probes a BIGINT build side; STRING hashes its bytes. NULL keys are not
// inserted and never pass (an equality join never matches NULL).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/memory.h"
#include "exec/expression.h"
#include "vector/vector.h"

namespace silt::exec {

class KeyBloomFilter {
 public:
  // Whether a build key of type `build` can filter a column of type `probe`.
  static bool Supports(const DataType& build, const DataType& probe);
  // The filter of the non-NULL values of `keys` (a Supports() type); `expected` sizes it (the
  // number of rows is a safe upper bound of the distinct values). Its memory (SizeFor(expected))
  // is reserved in `memory` (the query's tracker; null: unaccounted) before it is allocated and
  // released when the filter is destroyed; when the reservation would exceed a limit, nothing is
  // allocated and the tracker's SILT_MEMORY_LIMIT_EXCEEDED error is returned (the caller goes on
  // without the filter).
  static Result<std::shared_ptr<KeyBloomFilter>> Build(const Vector& keys, size_t expected,
                                                       MemoryTracker* memory);
  static std::shared_ptr<KeyBloomFilter> Build(const Vector& keys, size_t expected) {
    return Build(keys, expected, nullptr).value();
  }
  // The bytes of the filter Build(keys, expected) makes.
  static size_t SizeFor(size_t expected);

  // keep[r] = 1 when row r of `column` may be a build key (0 for NULL), for rows [0, rows).
  void Probe(const Vector& column, size_t rows, uint8_t* keep) const;
  size_t size_bytes() const { return words_.size() * sizeof(uint64_t); }

 private:
  void Insert(uint64_t h) { words_[h & mask_] |= Bits(h); }
  bool MayContain(uint64_t h) const {
    const uint64_t b = Bits(h);
    return (words_[h & mask_] & b) == b;
  }
  static uint64_t Bits(uint64_t h) {
    return (1ULL << ((h >> 40) & 63)) | (1ULL << ((h >> 46) & 63)) | (1ULL << ((h >> 52) & 63)) |
           (1ULL << ((h >> 58) & 63));
  }
  std::vector<uint64_t> words_;
  uint64_t mask_ = 0;
  std::unique_ptr<MemoryReservation> reservation_;  // its bytes in the query's tracker
};

// `might_contain(column)`: a BOOLEAN, never NULL: TRUE when the row's value may be in `filter`
// (FALSE for NULL). `column` must be a Supports() type for the filter's keys.
ExprPtr MakeBloomFilterExpr(std::shared_ptr<const KeyBloomFilter> filter, ExprPtr column);

}  // namespace silt::exec
