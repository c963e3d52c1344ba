#include "common/error_classes.h"

#include <algorithm>

namespace silt::errc {

namespace {

constexpr ErrorClassInfo kCatalogue[] = {
#define SILT_ERROR_CLASS(name, cls, sql_state, origin) {cls, sql_state, Origin::origin},
#include "silt/error_classes.def"
#undef SILT_ERROR_CLASS
};

constexpr bool Sorted() {
  for (size_t i = 1; i < std::size(kCatalogue); ++i) {
    if (!(kCatalogue[i - 1].error_class < kCatalogue[i].error_class)) return false;
  }
  return true;
}
static_assert(Sorted(), "error_classes.def must be sorted by class, without duplicates");

}  // namespace

std::span<const ErrorClassInfo> AllErrorClasses() { return kCatalogue; }

const ErrorClassInfo* FindErrorClass(std::string_view error_class) {
  auto it = std::lower_bound(
      std::begin(kCatalogue), std::end(kCatalogue), error_class,
      [](const ErrorClassInfo& e, std::string_view c) { return e.error_class < c; });
  if (it == std::end(kCatalogue) || it->error_class != error_class) return nullptr;
  return &*it;
}

}  // namespace silt::errc
