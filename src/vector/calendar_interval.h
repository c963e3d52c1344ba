// Spark's legacy CalendarInterval (TypeId::kCalendarInterval, struct CalendarInterval in
// include/silt/types.h): reading its text as IntervalUtils.stringToInterval does and building
// one as IntervalUtils.makeInterval. The arithmetic is in exec/functions/interval_functions.cc,
// the printing (FormatCalendarInterval) in vector/value.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "vector/types.h"

namespace silt {

// IntervalUtils.stringToInterval: "[interval] {[+|-] number unit}..." (units year, month, week,
// day, hour, minute, second, millisecond, microsecond, each optionally plural; only seconds take
// a fraction, up to nine digits, kept to microseconds), case-insensitive, whitespace between
// the sign and the number allowed. nullopt when malformed or out of range (CAST gives NULL).
std::optional<CalendarInterval> ParseCalendarInterval(std::string_view text);

// IntervalUtils.makeInterval(years, months, weeks, days, hours, mins, secs): `secs_micros` is the
// seconds as microseconds (Spark's decimal(18, 6) unscaled). nullopt on int32 / int64 overflow.
std::optional<CalendarInterval> MakeCalendarInterval(int64_t years, int64_t months, int64_t weeks,
                                                     int64_t days, int64_t hours, int64_t mins,
                                                     int64_t secs_micros);

}  // namespace silt
