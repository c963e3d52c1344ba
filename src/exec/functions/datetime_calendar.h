// Calendar arithmetic, time zones and Spark datetime patterns for the date/time functions.
//
// - Proleptic Gregorian calendar (Spark 3's), days since 1970-01-01 and microseconds since the
//   epoch, as in vector/types.h.
// - TimeZone: fixed offsets ("+08:00", "UTC", "GMT-3", "Z") and IANA names read from the system
//   tz database (/usr/share/zoneinfo TZif files, including their POSIX footer rule for instants
//   past the last listed transition). Local→UTC follows java.time: in a gap the local time moves
//   forward by the gap, in an overlap the earlier offset wins.
// - DateTimePattern: Spark's DateTimeFormatter patterns (yyyy MM dd HH mm ss SSS EEE MMM a z XXX
//   ...) compiled once, then used to format and strictly parse (whole input, field ranges).
//
// Implemented in datetime_functions.cc. Thread-safe: zones are immutable and cached.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/datetime.h"
#include "common/status.h"

namespace silt::exec::cal {

// The calendar primitives live in common/datetime.h.
using silt::CivilDate;
using silt::CivilFromDays;
using silt::DaysFromCivil;
using silt::DaysInMonth;
using silt::FloorDiv;
using silt::FloorMod;
using silt::IsLeapYear;
using silt::kMicrosPerDay;
using silt::kMicrosPerSecond;
using silt::kSecondsPerDay;

// ISO day of week: 1 = Monday .. 7 = Sunday.
inline int IsoDayOfWeek(int64_t days) { return static_cast<int>(FloorMod(days + 3, 7)) + 1; }
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

// ---------------------------------------------------------------------------------------------
// Time zones

class TimeZone {
 public:
  // "UTC", "Z", "GMT", "+08:00", "-8", "+0530", "UTC+8", "GMT-03:30", or an IANA region name
  // ("Europe/Paris"). Unknown names fail with INVALID_TIMEZONE (Spark's error for bad zone ids).
  static Result<std::shared_ptr<const TimeZone>> Find(std::string_view name);
  static std::shared_ptr<const TimeZone> Utc();

  // Offset (seconds east of UTC) in effect at the UTC instant.
  int32_t OffsetAt(int64_t utc_seconds) const;
  // UTC instant of a local wall time (java.time resolution of gaps and overlaps).
  int64_t LocalToUtc(int64_t local_seconds) const;
  // Short name in effect at the instant ("CET", "PDT", "UTC", or "+08:00" for fixed offsets).
  std::string Abbreviation(int64_t utc_seconds) const;
  const std::string& id() const { return id_; }
  bool fixed() const { return transitions_.empty() && !has_rule_; }

  int64_t UtcMicrosToLocal(int64_t micros) const {
    return micros + static_cast<int64_t>(OffsetAt(FloorDiv(micros, kMicrosPerSecond))) *
                        kMicrosPerSecond;
  }
  int64_t LocalMicrosToUtc(int64_t local) const {
    int64_t secs = FloorDiv(local, kMicrosPerSecond);
    return (LocalToUtc(secs) - secs) * kMicrosPerSecond + local;
  }

  struct Type {
    int32_t offset;
    bool dst;
    std::string abbr;
  };
  // POSIX TZ rule (TZif footer) for instants after the last transition.
  struct RuleDate {
    char kind = 'M';  // 'J' (1..365, no Feb 29), 'N' (0..365), 'M' (month.week.weekday)
    int a = 0, b = 0, c = 0;
    int32_t time = 7200;  // seconds after local midnight
  };
  struct Rule {
    Type std_type, dst_type;
    bool has_dst = false;
    RuleDate start, end;
  };

  // Constructed by Find.
  TimeZone(std::string id, int32_t fixed_offset) : id_(std::move(id)), fixed_offset_(fixed_offset) {}
  TimeZone(std::string id, std::vector<int64_t> transitions, std::vector<uint8_t> type_index,
           std::vector<Type> types, std::optional<Rule> rule);

 private:
  const Type& TypeAt(int64_t utc_seconds) const;
  const Type& RuleTypeAt(int64_t utc_seconds) const;

  std::string id_;
  int32_t fixed_offset_ = 0;
  std::vector<int64_t> transitions_;
  std::vector<uint8_t> type_index_;
  std::vector<Type> types_;
  Type fixed_type_;
  bool has_rule_ = false;
  Rule rule_;
};
using TimeZonePtr = std::shared_ptr<const TimeZone>;

// Parses an offset like "+08:00", "-8", "+0530", "+08:00:00" (sign required); nullopt if not one.
std::optional<int32_t> ParseOffset(std::string_view s);

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
