// Where the repository's ../shared lives, for unit tests that read the conformance data.
#pragma once

namespace silt::testing {

// The absolute path of ../shared next to the source tree. It is compiled into shared_dir.cc
// alone, so the other unit-test objects do not depend on the checkout's path and come from the
// compiler cache in every worktree.
const char* SharedDir();

}  // namespace silt::testing
