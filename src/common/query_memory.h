// The memory tracker of the statement a thread is working for, so code that has no ExecContext
// at hand (scalar function kernels building one huge string or array) can check a value's size
// against silt.memory.limit before allocating it. The engine sets it for a statement's thread;
// ThreadPool tasks inherit the tracker of the thread that submitted them.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "common/memory.h"
#include "common/status.h"

namespace silt {

// The current thread's statement tracker, or null (unlimited, unaccounted). Shared: a pool task
// that outlives its statement keeps the tracker alive instead of pointing at a freed one.
const std::shared_ptr<MemoryTracker>& CurrentQueryMemory();

// Sets the current thread's tracker for its lifetime (restores the previous one).
class ScopedQueryMemory {
 public:
  explicit ScopedQueryMemory(std::shared_ptr<MemoryTracker> tracker);
  ~ScopedQueryMemory();
  ScopedQueryMemory(const ScopedQueryMemory&) = delete;
  ScopedQueryMemory& operator=(const ScopedQueryMemory&) = delete;

 private:
  std::shared_ptr<MemoryTracker> saved_;
};

// OK when `bytes` more fit under the current statement's limit (and its ancestors') right now;
// else SILT_MEMORY_LIMIT_EXCEEDED prefixed by "owner: ". Nothing stays reserved: the caller
// checks before it allocates a value the limit cannot hold.
Status CheckQueryMemory(int64_t bytes, std::string_view owner);

}  // namespace silt
