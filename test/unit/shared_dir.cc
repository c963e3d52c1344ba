#include "shared_dir.h"

namespace silt::testing {

const char* SharedDir() { return SILT_SHARED_DIR; }

}  // namespace silt::testing
