// ops/: the SQL-free table operations (VACUUM, DELETE/UPDATE and the MERGE primitive, OPTIMIZE /
// REORG PURGE, TRUNCATE, RESTORE). Each takes a table (an ObjectStore rooted at the table and,
// where it matters, a Snapshot), typed options and returns a typed result carrying the metrics
// the SQL statement prints. Callers: the statements in commands/, embedders, the maintenance
// service and the Python API. ops/ includes common, vector, io, parquet, delta and exec (bound
// expressions, kernels) only — never sql/, planner/ or commands/. See docs/ARCHITECTURE.md.
//
// Time comes only from the options' Clock: no operation falls back to the system clock.
#pragma once

#include <memory>
#include <string_view>

#include "common/clock.h"
#include "common/error_classes.h"
#include "common/status.h"

namespace silt::ops {

// An operation was called without the Clock its options must carry.
inline constexpr auto& kErrorMissingClock = errc::kSiltOpsMissingClock;

// OK when `clock` is set; else InvalidArgument (kErrorMissingClock) naming `options_name`.
Status RequireClock(const std::shared_ptr<Clock>& clock, std::string_view options_name);

}  // namespace silt::ops
