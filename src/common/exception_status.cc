#include "common/exception_status.h"

#include <new>
#include <stdexcept>
#include <string>

#include "common/error_classes.h"

namespace silt {

Status StatusFromCurrentException() {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("The statement ran out of memory (an allocation failed).",
                               errc::kSiltMemoryLimitExceeded);
  } catch (const std::length_error&) {
    return Status::OutOfMemory(
        "A value or buffer exceeds the largest size that can be "
        "allocated.",
        errc::kSiltMemoryLimitExceeded);
  } catch (const std::exception& e) {
    return Status::Internal(std::string("The statement failed with an internal error: ") +
                            e.what());
  } catch (...) {
    return Status::Internal("The statement failed with an internal error.");
  }
}

}  // namespace silt
