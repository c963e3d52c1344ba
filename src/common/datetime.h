// Calendar arithmetic and the string → date/timestamp parsers, one home for every layer.
//
// - Proleptic Gregorian calendar (Spark 3's): days since 1970-01-01 and microseconds since the
//   epoch, as in vector/types.h.
// - Two text grammars:
//   * ISO (ParseIsoDate / ParseIsoTimestamp): the fixed-width forms Delta writes in partition
//     values, statistics and commit timestamps.
//   * Spark's lenient stringToDate / stringToTimestamp (ParseSparkDateTime): what CAST, typed
//     literals and to_date/to_timestamp without a pattern accept. It returns the fields and the
//     zone text; resolving the zone (a fixed offset, or a tz database region) is the caller's.
#pragma once

#include <cstdint>
#include <string_view>

namespace silt {

inline constexpr int64_t kMicrosPerSecond = 1000000;
inline constexpr int64_t kSecondsPerDay = 86400;
inline constexpr int64_t kMicrosPerDay = kSecondsPerDay * kMicrosPerSecond;

// Floor division and modulo (towards negative infinity); b > 0.
constexpr int64_t FloorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}
constexpr int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

constexpr bool IsLeapYear(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
// m in 1..12.
constexpr int DaysInMonth(int64_t y, int m) {
  constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeapYear(y) ? 29 : kDays[m - 1];
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
constexpr int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

struct CivilDate {
  int64_t year;
  int month;  // 1..12
  int day;    // 1..31
};

// The inverse of DaysFromCivil (Howard Hinnant's civil_from_days).
constexpr CivilDate CivilFromDays(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (m <= 2), m, d};
}

// ISO day of week: 1 = Monday .. 7 = Sunday.
constexpr int IsoDayOfWeek(int64_t days) { return static_cast<int>(FloorMod(days + 3, 7)) + 1; }

// ---------------------------------------------------------------------------------------------
// ISO forms (no surrounding whitespace)

// "[+-]yyyy[y…]-MM-dd" (4 to 9 year digits, exactly two month and day digits) → days since
// epoch. False when malformed or outside int32.
bool ParseIsoDate(std::string_view text, int32_t* days);

// An ISO date as above, then optionally 'T' or ' ' and HH:mm[:ss[.fraction]] (two digits each,
// fraction 0–9 digits truncated to micros), then optionally 'Z', "UTC", or an offset ±HH[:mm] /
// ±HHmm (hours <= 18). *has_zone says whether a zone was present; without one the time is taken
// as UTC. False when malformed or outside the int64 micros range.
bool ParseIsoTimestamp(std::string_view text, int64_t* micros, bool* has_zone);

// ---------------------------------------------------------------------------------------------
// Spark's lenient grammar: "[+-]yyyy[y…][-[m]m[-[d]d]]" (4 to 7 year digits), optionally
// followed by ' ' or 'T' and a time "h[h]:m[m][:s[s][.fraction]]" (fraction up to 9 digits,
// truncated to micros) and then zone text.

// The two callers differ in small ways; each keeps its own accepted forms.
struct SparkDateTimeSyntax {
  // Which bytes count as surrounding whitespace: false = isspace() and NUL (the SQL literal
  // rules), true = every byte <= ' ' (UTF8String.trimAll, as CAST and the functions use).
  bool trim_all_controls = false;
  // "2024-01-01 12" (an hour alone) is a time; otherwise it is malformed.
  bool allow_hour_only = false;
  // "12:00:00." (a '.' without fraction digits) is accepted as no fraction.
  bool allow_empty_fraction = false;
};

// SQL typed literals (DATE '…', TIMESTAMP '…'): isspace/NUL trimmed, an hour alone is malformed,
// "12:00:00." accepted.
inline constexpr SparkDateTimeSyntax kSqlLiteralSyntax{/*trim_all_controls=*/false,
                                                       /*allow_hour_only=*/false,
                                                       /*allow_empty_fraction=*/true};
// CAST and to_date/to_timestamp without a pattern: every control byte trimmed, an hour alone is a
// time, "12:00:00." malformed.
inline constexpr SparkDateTimeSyntax kCastDateTimeSyntax{/*trim_all_controls=*/true,
                                                         /*allow_hour_only=*/true,
                                                         /*allow_empty_fraction=*/false};

struct SparkDateTime {
  int64_t year = 0;
  int month = 1, day = 1, hour = 0, minute = 0, second = 0;
  int64_t micros = 0;     // fraction of the second
  bool has_time = false;  // a ' '/'T' separator followed the date
  std::string_view zone;  // the text after the time with surrounding whitespace removed
                          // ("" when none); it points into the input
};

// Spark's stringToDate: the trimmed text starts with a date; whatever follows a ' '/'T' after a
// full date is ignored. Fields are range-checked (month 1–12, day within the month).
bool ParseSparkDate(std::string_view text, const SparkDateTimeSyntax& syntax, SparkDateTime* out);

// Spark's stringToTimestamp up to the zone: date, optional time, and the zone text (not
// interpreted here; the caller resolves it and rejects what it does not know).
bool ParseSparkDateTime(std::string_view text, const SparkDateTimeSyntax& syntax,
                        SparkDateTime* out);

// The local wall-clock micros of `t`'s fields (no zone applied). False when they do not fit in
// int64 micros.
bool SparkDateTimeLocalMicros(const SparkDateTime& t, int64_t* micros);

}  // namespace silt
