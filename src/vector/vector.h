// Moved to the public API (include/silt/vector.h); this path stays for the engine's own includes.
#pragma once

#include "silt/vector.h"  // IWYU pragma: export
