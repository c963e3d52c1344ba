// Calendar arithmetic, time zones and Spark datetime patterns for the date/time functions.
//
// - Proleptic Gregorian calendar (Spark 3's), days since 1970-01-01 and microseconds since the
//   epoch, as in vector/types.h.
// - TimeZone: the time-zone database, in common/time_zones.h.
// - DateTimePattern: Spark's DateTimeFormatter patterns (yyyy MM dd HH mm ss SSS EEE MMM a z XXX
//   ...) compiled once, then used to format and strictly parse (whole input, field ranges).
//
// Implemented in datetime_functions.cc.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/datetime.h"
#include "common/status.h"
#include "common/time_zones.h"

namespace silt::exec::cal {

// The calendar primitives live in common/datetime.h.
using silt::CivilDate;
using silt::CivilFromDays;
using silt::DaysFromCivil;
using silt::DaysInMonth;
using silt::FloorDiv;
using silt::FloorMod;
using silt::IsLeapYear;
using silt::IsoDayOfWeek;
using silt::kMicrosPerDay;
using silt::kMicrosPerSecond;
using silt::kSecondsPerDay;

inline int DayOfYear(int64_t days) {
  CivilDate c = CivilFromDays(days);
  return static_cast<int>(days - DaysFromCivil(c.year, 1, 1)) + 1;
}
// ISO-8601 week number (weeks start Monday; week 1 holds the year's first Thursday).
inline int IsoWeekOfYear(int64_t days) {
  int64_t thursday = days - IsoDayOfWeek(days) + 4;
  CivilDate c = CivilFromDays(thursday);
  return static_cast<int>((thursday - DaysFromCivil(c.year, 1, 1)) / 7) + 1;
}
inline int64_t IsoWeekYear(int64_t days) {
  return CivilFromDays(days - IsoDayOfWeek(days) + 4).year;
}

// Adds months like java.time.LocalDate.plusMonths (the day is clamped to the month's end).
inline int64_t AddMonthsToDays(int64_t days, int64_t months) {
  CivilDate c = CivilFromDays(days);
  int64_t total = c.year * 12 + (c.month - 1) + months;
  int64_t y = FloorDiv(total, 12);
  int m = static_cast<int>(FloorMod(total, 12)) + 1;
  int d = std::min(c.day, DaysInMonth(y, m));
  return DaysFromCivil(y, m, d);
}

// Time zones (common/time_zones.h).
using silt::ParseHms;
using silt::ParseOffset;
using silt::TimeZone;
using silt::TimeZonePtr;

// Months added to a timestamp's local date, its time of day kept (Spark's timestampAddMonths):
// with `zone` the microseconds are a UTC instant read in that zone, without a timestamp_ntz.
inline int64_t AddMonthsToMicros(int64_t ts, int64_t months, const TimeZone* zone) {
  const int64_t local = zone ? zone->UtcMicrosToLocal(ts) : ts;
  const int64_t days = FloorDiv(local, kMicrosPerDay);
  const int64_t shifted =
      AddMonthsToDays(days, months) * kMicrosPerDay + (local - days * kMicrosPerDay);
  return zone ? zone->LocalMicrosToUtc(shifted) : shifted;
}

// ---------------------------------------------------------------------------------------------
// Spark's string → date / timestamp conversions (the CAST and to_date/to_timestamp without a
// pattern): "[+-]yyyy[-[m]m[-[d]d]]" dates, optionally followed by "[T ]hh[:mm[:ss[.ffffff]]]"
// and a zone ("Z", "+08:00", "UTC", "Europe/Paris"), surrounding whitespace ignored.
std::optional<int32_t> ParseDate(std::string_view s);
// Local timestamps use `zone` unless the text names one; ntz ignores any zone in the text.
std::optional<int64_t> ParseTimestamp(std::string_view s, const TimeZone& zone);
std::optional<int64_t> ParseTimestampNtz(std::string_view s);

// ---------------------------------------------------------------------------------------------
// Datetime patterns

struct LocalFields {
  int64_t year = 1970;
  int month = 1, day = 1, hour = 0, minute = 0, second = 0;
  int64_t nanos = 0;
};

class DateTimePattern {
 public:
  // Compiles a Spark pattern; unsupported letters fail like Spark (week-based fields and
  // other letters Spark 3 rejects).
  static Result<DateTimePattern> Compile(std::string_view pattern);
  // The same without the legacy-formatter check (Spark's and java.time's errors as such).
  static Result<DateTimePattern> CompileStrict(std::string_view pattern);

  // Formats the UTC instant `micros` in `zone` (zone == nullptr: a local/ntz value, offsets
  // print as +00:00) and appends to *out.
  void Format(int64_t micros, const TimeZone* zone, std::string* out) const;
  // Parses the whole text; nullopt when it does not match. Returns UTC micros (zone from the
  // text, else `zone`; nullptr zone = local/ntz result).
  std::optional<int64_t> Parse(std::string_view text, const TimeZone* zone) const;
  // True when the pattern has a time-of-day field (to_date drops the time either way).
  bool has_time() const { return has_time_; }

  struct Token {
    char letter = 0;  // 0: literal
    int count = 0;
    std::string literal;
    bool optional_start = false, optional_end = false;
  };

 private:
  std::vector<Token> tokens_;
  bool has_time_ = false;
};

}  // namespace silt::exec::cal
