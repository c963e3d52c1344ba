// Fast, non-cryptographic 64-bit hashing for in-memory hash tables (joins, aggregation, the
// Parquet writer's dictionary). Deterministic within a process; never persisted.
#pragma once

#include <cstddef>
#include <cstdint>

namespace silt {

// Mixes a 64-bit word into a well-distributed hash (murmur3's finalizer): every input bit reaches
// the low bits that pick a bucket.
inline uint64_t HashMix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// Hash of n bytes (8 at a time, murmur3-style rounds, HashMix at the end).
uint64_t HashBytes(const void* data, size_t n);

}  // namespace silt
