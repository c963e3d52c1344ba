// Moved to the public API (include/silt/status.h); this path stays for the engine's own includes.
#pragma once

#include "silt/status.h"  // IWYU pragma: export
