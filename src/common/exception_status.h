// Exceptions at a boundary they must not cross (a worker thread, the library's API) become a
// Status: std::bad_alloc and std::length_error (an allocation that failed or a container asked
// for more than it can hold) SILT_MEMORY_LIMIT_EXCEEDED, anything else INTERNAL_ERROR with its
// text. An exception escaping a std::thread would terminate the process.
#pragma once

#include <exception>

#include "common/status.h"

namespace silt {

// The Status for the exception being handled; call only inside a catch block.
Status StatusFromCurrentException();

// Runs f() (returning Status or Result<T>) and returns its value, or the exception it threw as a
// Status.
template <typename F>
auto CatchAsStatus(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (...) {
    return StatusFromCurrentException();
  }
}

}  // namespace silt
