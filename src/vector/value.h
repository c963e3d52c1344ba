// Moved to the public API (include/silt/value.h); this path stays for the engine's own includes.
#pragma once

#include "silt/value.h"  // IWYU pragma: export
