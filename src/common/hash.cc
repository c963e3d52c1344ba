#include "common/hash.h"

#include <cstring>

#include "common/hash_rounds.h"

namespace silt {

uint64_t HashBytes(const void* data, size_t n) {
  using namespace hash_rounds;
  const uint8_t* s = static_cast<const uint8_t*>(data);
  uint64_t h = Start(n);
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, s, 8);
    h = Fold(h, w);
    h = Rotl(h, 27) * 5 + 0x52dce729;
    s += 8;
    n -= 8;
  }
  if (n) h = Fold(h, TailWord(s, n));
  return HashMix(h);
}

}  // namespace silt
