#include "common/hash.h"

#include <cstring>

namespace silt {

namespace {
inline uint64_t Rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
}  // namespace

uint64_t HashBytes(const void* data, size_t n) {
  const uint8_t* s = static_cast<const uint8_t*>(data);
  uint64_t h = 0x8a5cd789635d2dffULL ^ (n * 0x9e3779b97f4a7c15ULL);
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, s, 8);
    h ^= Rotl(w * 0x87c37b91114253d5ULL, 31) * 0x4cf5ad432745937fULL;
    h = Rotl(h, 27) * 5 + 0x52dce729;
    s += 8;
    n -= 8;
  }
  if (n) {
    // The tail without a variable-length memcpy (a libc call per value for short strings, such
    // as one-letter group keys): two overlapping 4-byte loads, or three single bytes.
    uint64_t w;
    if (n >= 4) {
      uint32_t lo, hi;
      std::memcpy(&lo, s, 4);
      std::memcpy(&hi, s + n - 4, 4);
      w = lo | static_cast<uint64_t>(hi) << 32;
    } else {
      w = s[0] | static_cast<uint64_t>(s[n >> 1]) << 8 | static_cast<uint64_t>(s[n - 1]) << 16;
    }
    h ^= Rotl(w * 0x87c37b91114253d5ULL, 31) * 0x4cf5ad432745937fULL;
  }
  return HashMix(h);
}

}  // namespace silt
