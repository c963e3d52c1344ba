// Spark's literal text rules used by the parser (and reusable by casts): typed numeric literals,
// DATE / TIMESTAMP strings, interval strings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "vector/types.h"
#include "vector/value.h"

namespace silt::sql {

// Spark's stringToDate: trimmed "[+-]yyyy[y…]", "yyyy-[m]m", "yyyy-[m]m-[d]d", optionally followed
// by ' ' or 'T' and anything. nullopt when malformed or out of range.
std::optional<int32_t> ParseSparkDate(std::string_view text);

// Spark's stringToTimestamp: a date as above, then [T ]h[h]:m[m][:s[s][.fraction]] and an optional
// zone (Z, UTC, GMT, UT, ±h[h][:mm], ±hhmm, UTC±…/GMT±…). Without a zone the time is in
// `default_offset_seconds` (the session time zone as an offset; silt's session default is UTC).
// *has_zone reports whether a zone was written; a region id such as America/Los_Angeles is
// resolved with the time-zone database (common/time_zones.h). nullopt when malformed (an unknown
// region id included).
std::optional<int64_t> ParseSparkTimestamp(std::string_view text, bool* has_zone,
                                           int64_t default_offset_seconds = 0);

// Decimal text (digits, optional '.', optional exponent) → unscaled value, precision and scale as
// java.math.BigDecimal gives them (precision >= scale as Spark's Decimal makes it; a negative
// scale is folded into the unscaled value). False when malformed or wider than 38 digits.
bool ParseDecimalLiteral(std::string_view text, int128_t* unscaled, int* precision, int* scale);

// Months and microseconds of an interval string with units ("1 day 2 hours", "interval 3 weeks",
// "-1 year 2 months"). Error class INVALID_INTERVAL_FORMAT-like messages on failure.
Result<std::pair<int64_t, int64_t>> ParseIntervalString(std::string_view text);

}  // namespace silt::sql
