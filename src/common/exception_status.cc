#include "common/exception_status.h"

#include <new>
#include <stdexcept>
#include <string>

namespace silt {

Status StatusFromCurrentException() {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory(
        "[SILT_MEMORY_LIMIT_EXCEEDED] The statement ran out of memory (an allocation failed).",
        "SILT_MEMORY_LIMIT_EXCEEDED");
  } catch (const std::length_error&) {
    return Status::OutOfMemory(
        "[SILT_MEMORY_LIMIT_EXCEEDED] A value or buffer exceeds the largest size that can be "
        "allocated.",
        "SILT_MEMORY_LIMIT_EXCEEDED");
  } catch (const std::exception& e) {
    return Status::Internal(
        std::string("[INTERNAL_ERROR] The statement failed with an internal error: ") + e.what());
  } catch (...) {
    return Status::Internal("[INTERNAL_ERROR] The statement failed with an internal error.");
  }
}

}  // namespace silt
