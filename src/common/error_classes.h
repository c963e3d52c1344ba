// Moved to the public API (include/silt/error_classes.h); this path stays for the engine's own
// includes.
#pragma once

#include "silt/error_classes.h"  // IWYU pragma: export
