// Moved to the public API (include/silt/types.h); this path stays for the engine's own includes.
#pragma once

#include "silt/types.h"  // IWYU pragma: export
