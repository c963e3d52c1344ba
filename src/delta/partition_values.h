// Partition values (add.partitionValues) as typed Values, plus the text conversions Delta-Spark
// uses for them and for statistics: Java's Double/Float.toString, BigDecimal.toString, and the
// date/timestamp forms.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "vector/types.h"
#include "vector/value.h"

namespace silt::delta {

// Parses a serialized partition value against `type` (a primitive type).
//   nullopt, or "" for any type (Spark cannot write empty-string partitions) → NULL of `type`
//   byte/short/int/long: decimal integer in range; float/double: Java forms ("1.0", "1.0E10",
//   "NaN", "Infinity", "-Infinity"); decimal: plain or exponent notation, rounded HALF_UP to the
//   scale, must fit the precision; boolean: true/false (any case); date: yyyy-MM-dd;
//   timestamp: "yyyy-MM-ddTHH:mm:ss[.f{0,9}]Z" / "+HH:mm" offsets, or the legacy
//   "yyyy-MM-dd HH:mm:ss[.ffffff]" read as UTC; timestamp_ntz: either separator, no zone;
//   string/binary: the text as is.
// A malformed value is InvalidArgument with class "DELTA_INVALID_PARTITION_VALUE".
Result<Value> ParsePartitionValue(const std::optional<std::string>& text, const TypePtr& type);

// The partition value string Spark writes for `value`: NULL and the empty string → nullopt;
// doubles/floats like Java; decimals plain with full scale; timestamps ISO-8601 UTC with six
// fraction digits and 'Z'; timestamp_ntz "yyyy-MM-dd HH:mm:ss[.f]" (trailing zeros dropped);
// binary as its raw bytes.
std::optional<std::string> FormatPartitionValue(const Value& value);

// Java's Double.toString / Float.toString: shortest round-trip digits; plain notation with at
// least one fraction digit when 1e-3 <= |v| < 1e7 ("100.0", "0.001"), else "d.dddE[-]n"
// ("1.0E7", "1.2345E-5"); "NaN", "Infinity", "-Infinity", "-0.0".
std::string FormatJavaDouble(double v);
std::string FormatJavaFloat(float v);

// Java's BigDecimal.toString of unscaled × 10^-scale: plain unless the adjusted exponent is
// below -6 ("-3.1661E-8", "0E-10"). This is how Spark writes decimals in stats JSON.
std::string FormatJavaBigDecimal(int128_t unscaled, int scale);

// Exact decimal text → unscaled value at `scale` (sign, digits, optional '.', optional exponent).
// Extra fraction digits are rounded HALF_UP. False if malformed or more than `precision` digits.
bool ParseDecimalText(std::string_view text, int precision, int scale, int128_t* unscaled);

// "yyyy-MM-dd" (year may have a sign or more digits) → days since epoch.
bool ParseDateText(std::string_view text, int32_t* days);

// Date-time text → microseconds since epoch. Accepts "yyyy-MM-dd", then 'T' or ' ' and
// HH:mm[:ss[.fraction]] (fraction 0–9 digits, truncated to micros), then optionally 'Z', "UTC",
// or an offset ±HH[:mm] / ±HHmm. *has_zone says whether a zone was present; without one the
// time is taken as UTC.
bool ParseTimestampText(std::string_view text, int64_t* micros, bool* has_zone);

// Days/micros since epoch → date parts, and formatting helpers.
std::string FormatIsoTimestampMicros(int64_t micros);   // "2024-06-15T19:30:45.000000Z"
std::string FormatIsoTimestampMillis(int64_t micros, bool with_zone);  // "...45.123Z" / "...45.123"

}  // namespace silt::delta
