// Gathering fixed-width values by a selection: the copy behind Vector::AppendSelected and the
// in-place compaction of a scan's deletion-vector filter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace silt {

// dst[i] = src[sel[i]] for i < n, `width` bytes each. dst may be src when sel is increasing with
// sel[i] >= i (compaction in place). The common widths copy a constant size, so the compiler
// inlines each copy instead of calling memmove per value.
inline void GatherFixedWidth(uint8_t* dst, const uint8_t* src, size_t width, const uint32_t* sel,
                             size_t n) {
  auto gather = [&](auto w) {
    for (size_t i = 0; i < n; ++i) std::memmove(dst + i * w, src + size_t(sel[i]) * w, w);
  };
  switch (width) {
    case 1:
      gather(std::integral_constant<size_t, 1>());
      break;
    case 2:
      gather(std::integral_constant<size_t, 2>());
      break;
    case 4:
      gather(std::integral_constant<size_t, 4>());
      break;
    case 8:
      gather(std::integral_constant<size_t, 8>());
      break;
    case 16:
      gather(std::integral_constant<size_t, 16>());
      break;  // decimals
    default:
      gather(width);
      break;
  }
}

}  // namespace silt
