#include "ops/ops.h"

#include <string>

namespace silt::ops {

Status RequireClock(const std::shared_ptr<Clock>& clock, std::string_view options_name) {
  if (clock) return Status::OK();
  return Status::InvalidArgument(
      std::string(options_name) + ".clock is null: operations take the clock explicitly",
      kErrorMissingClock);
}

}  // namespace silt::ops
