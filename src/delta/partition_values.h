// Partition values (add.partitionValues) as typed Values, plus the ISO timestamp forms Delta-Spark
// writes. The number and date/time text rules themselves live in common/number_format.h and
// common/datetime.h.
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

// Days/micros since epoch → date parts, and formatting helpers.
std::string FormatIsoTimestampMicros(int64_t micros);  // "2024-06-15T19:30:45.000000Z"
std::string FormatIsoTimestampMillis(int64_t micros, bool with_zone);  // "...45.123Z" / "...45.123"

}  // namespace silt::delta
