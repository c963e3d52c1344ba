// Spark's XORShiftRandom (rand, randn, shuffle): seeded like Spark (MurmurHash3 of the seed's
// bytes), so a seeded sequence matches a single-partition Spark run (partition index 0).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>

#include "exec/functions/function_util.h"

namespace silt::exec::fn {

inline uint32_t Rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

// Scala's MurmurHash3.bytesHash (standard murmur3 x86_32).
inline uint32_t ScalaBytesHash(const uint8_t* data, size_t len, uint32_t seed) {
  uint32_t h = seed;
  size_t i = 0;
  auto mix_k = [](uint32_t k) {
    k *= 0xcc9e2d51u;
    k = Rotl32(k, 15);
    return k * 0x1b873593u;
  };
  for (; i + 4 <= len; i += 4) {
    uint32_t k = uint32_t{data[i]} | (uint32_t{data[i + 1]} << 8) | (uint32_t{data[i + 2]} << 16) |
                 (uint32_t{data[i + 3]} << 24);
    h ^= mix_k(k);
    h = Rotl32(h, 13) * 5 + 0xe6546b64u;
  }
  uint32_t k = 0;
  size_t rem = len - i;
  if (rem == 3) k ^= uint32_t{data[i + 2]} << 16;
  if (rem >= 2) k ^= uint32_t{data[i + 1]} << 8;
  if (rem >= 1) {
    k ^= data[i];
    h ^= mix_k(k);
  }
  h ^= static_cast<uint32_t>(len);
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

class XorShiftRandom {
 public:
  explicit XorShiftRandom(int64_t init) {
    uint8_t bytes[8];
    for (int i = 0; i < 8; ++i)
      bytes[i] = static_cast<uint8_t>(static_cast<uint64_t>(init) >> (56 - 8 * i));
    uint32_t low = ScalaBytesHash(bytes, 8, 0x3c074a61u);
    uint32_t high = ScalaBytesHash(bytes, 8, low);
    seed_ = (static_cast<uint64_t>(high) << 32) | low;
  }
  int32_t Next(int bits) {
    uint64_t s = seed_ ^ (seed_ << 21);
    s ^= s >> 35;
    s ^= s << 4;
    seed_ = s;
    return static_cast<int32_t>(s & ((uint64_t{1} << bits) - 1));
  }
  // java.util.Random.nextInt(bound), bound > 0.
  int32_t NextInt(int32_t bound) {
    int32_t r = Next(31);
    int32_t m = bound - 1;
    if ((bound & m) == 0) return static_cast<int32_t>((static_cast<int64_t>(bound) * r) >> 31);
    for (int32_t u = r;
         static_cast<int32_t>(static_cast<uint32_t>(u) - static_cast<uint32_t>(r = u % bound) +
                              static_cast<uint32_t>(m)) < 0;
         u = Next(31)) {
    }
    return r;
  }
  double NextDouble() {
    int64_t hi = Next(26), lo = Next(27);
    return static_cast<double>((hi << 27) + lo) * 0x1.0p-53;
  }
  double NextGaussian() {
    if (have_next_) {
      have_next_ = false;
      return next_gaussian_;
    }
    double v1, v2, s;
    do {
      v1 = 2 * NextDouble() - 1;
      v2 = 2 * NextDouble() - 1;
      s = v1 * v1 + v2 * v2;
    } while (s >= 1 || s == 0);
    double m = std::sqrt(-2 * std::log(s) / s);
    next_gaussian_ = v2 * m;
    have_next_ = true;
    return v1 * m;
  }

 private:
  uint64_t seed_;
  bool have_next_ = false;
  double next_gaussian_ = 0;
};

// The seed argument args[i] of rand/randn/shuffle: an integral or NULL literal (NULL = 0), or a
// fresh random seed when absent (Spark assigns one at analysis).
inline Result<int64_t> RandomSeedArg(std::string_view name, const std::vector<ExprPtr>& args,
                                     size_t i) {
  if (args.size() <= i) {
    std::random_device rd;
    return static_cast<int64_t>((uint64_t{rd()} << 32) | rd());
  }
  const Value* v = ConstantOf(args[i]);
  TypeId id = args[i]->type->id();
  if (!v || !(IsIntegralId(id) || id == TypeId::kNull)) {
    return TypeMismatch(name, "Input argument to " + std::string(name) +
                                  " must be an integer, long, or null constant.");
  }
  return v->is_null() ? int64_t{0} : v->integer();
}

}  // namespace silt::exec::fn
