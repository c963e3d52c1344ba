// The rounds of HashBytes (common/hash.cc), for callers that inline the hash of short strings
// (exec/row_hash.cc): one definition, so every such hash stays equal to HashBytes'.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace silt::hash_rounds {

inline uint64_t Rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// The state before the first round: the seed and the length.
inline uint64_t Start(size_t n) { return 0x8a5cd789635d2dffULL ^ (n * 0x9e3779b97f4a7c15ULL); }

// One word folded into the state (murmur3's k1 step).
inline uint64_t Fold(uint64_t h, uint64_t w) {
  return h ^ Rotl(w * 0x87c37b91114253d5ULL, 31) * 0x4cf5ad432745937fULL;
}

// The last 1 to 7 bytes as one word, without a variable-length memcpy (a libc call per value
// for short strings, such as one-letter group keys): two overlapping 4-byte loads, or three
// single bytes.
inline uint64_t TailWord(const uint8_t* s, size_t n) {
  if (n >= 4) {
    uint32_t lo, hi;
    std::memcpy(&lo, s, 4);
    std::memcpy(&hi, s + n - 4, 4);
    return lo | static_cast<uint64_t>(hi) << 32;
  }
  return s[0] | static_cast<uint64_t>(s[n >> 1]) << 8 | static_cast<uint64_t>(s[n - 1]) << 16;
}

}  // namespace silt::hash_rounds
