// KeyQuickFilter: a quick negative test for a small set of string keys (file paths), for loops
// that probe every path of a large table against a few keys (the removes of the commits after a
// checkpoint, the candidates of a VACUUM LITE run). One bit per key in a 64k-bit map, indexed by a
// hash of the key's length and its first, middle and last 8 bytes (a data file's directory, UUID
// and extension). MayContain costs a few instructions and no hashing of the whole key; false
// proves the key was never added, true means "look it up".
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace silt {

class KeyQuickFilter {
 public:
  void Add(std::string_view key) {
    const uint32_t s = Slot(key);
    bits_[s >> 6] |= uint64_t{1} << (s & 63);
  }
  bool MayContain(std::string_view key) const {
    const uint32_t s = Slot(key);
    return (bits_[s >> 6] >> (s & 63)) & 1;
  }

 private:
  static uint32_t Slot(std::string_view key) {
    const size_t n = key.size();
    uint64_t h = n * 0x9E3779B97F4A7C15ULL;
    if (n >= 8) {
      // First, middle and last 8 bytes: directory, UUID and extension of a data file's path.
      for (size_t at : {size_t{0}, n / 2 - 4, n - 8}) {
        uint64_t w;
        std::memcpy(&w, key.data() + at, 8);  // at + 8 <= n
        h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
        h ^= h >> 29;
      }
    } else {
      uint64_t w = 0;
      for (char c : key) w = (w << 8) | static_cast<unsigned char>(c);
      h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
    }
    return static_cast<uint32_t>(h >> 48);
  }
  std::array<uint64_t, 1024> bits_{};
};

}  // namespace silt
