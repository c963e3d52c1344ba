// Running a call on a thread of its own with a stack of a chosen size.
#pragma once

#include <cstddef>
#include <functional>

namespace silt {

// Runs `fn` on a new thread whose stack holds `stack_bytes` and waits for it. The caller's
// thread-local state is not visible to `fn` (the query memory tracker is installed inside the
// statement it runs). Returns false, without calling `fn`, when the thread cannot be created
// (address space or thread limits); `fn` must not throw.
bool RunOnLargeStack(size_t stack_bytes, const std::function<void()>& fn);

}  // namespace silt
