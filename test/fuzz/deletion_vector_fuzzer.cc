// libFuzzer target: serialized deletion vectors (magic + RoaringBitmapArray) from untrusted bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "delta/deletion_vector.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace silt::delta;
  auto dv =
      DeletionVector::Deserialize(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!dv.ok()) return 0;
  uint8_t keep[64];
  dv->FillSelection(0, sizeof keep, keep);
  (void)dv->Cardinality();
  auto again = DeletionVector::Deserialize(dv->Serialize());
  if (!again.ok() || !(*again == *dv)) __builtin_trap();  // a valid DV must round-trip
  return 0;
}
