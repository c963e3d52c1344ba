// Text forms of Spark's TIME(p) and nanosecond TIMESTAMP_LTZ(p) / TIMESTAMP_NTZ(p) values (the
// physical values are int64 nanoseconds, see include/silt/types.h): parsing Spark's time strings
// (DateTimeUtils.stringToTime), printing them as CAST(... AS STRING) and spark-sql do (the
// fraction without trailing zeros), truncation to a precision.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace silt {

inline constexpr int64_t kNanosPerMicro = 1000;
inline constexpr int64_t kNanosPerSecond = 1000000000LL;
inline constexpr int64_t kNanosPerDay = 86400LL * kNanosPerSecond;

// Spark's stringToTime: surrounding whitespace (bytes <= ' ') trimmed, then
// "h[h]:m[m][:s[s][.f{1,9}]]" with hour < 24, minute < 60, second < 60. False when malformed.
bool ParseTimeText(std::string_view text, int64_t* nanos_of_day);

// "HH:mm:ss" and, when the fraction is not zero, "." and its digits without trailing zeros
// (Spark's TimeFormatter for CAST(t AS STRING) and the spark-sql output).
std::string FormatTimeText(int64_t nanos_of_day);

// "yyyy-MM-dd HH:mm:ss[.fffffffff]" of epoch nanoseconds, trailing fraction zeros trimmed.
std::string FormatTimestampNanosText(int64_t epoch_nanos);

// `nanos` floored to `precision` fractional-second digits (0..9): 12:34:56.789012345 at 3 is
// 12:34:56.789. Works for negative epoch nanoseconds (floor, not truncation toward zero).
int64_t TruncateNanos(int64_t nanos, int precision);

// The sub-microsecond digits (the 7th to 9th of the fraction, 0..999) of a date-time text such
// as "2020-01-01 00:00:00.123456789": the part the microsecond parsers drop. 0 when the text has
// no fraction of more than six digits.
int64_t SubMicroNanos(std::string_view text);

// The number of fraction digits of the seconds of a date-time or time text (0 when none).
int FractionDigits(std::string_view text);

// Epoch micros ↔ nanos (floor division keeps pre-epoch values right). False on overflow.
bool MicrosToNanos(int64_t micros, int64_t* nanos);
int64_t NanosToMicros(int64_t nanos);

}  // namespace silt
