// Moved to the public API (include/silt/clock.h); this path stays for the engine's own includes.
#pragma once

#include "silt/clock.h"  // IWYU pragma: export
