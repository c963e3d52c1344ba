// The time-zone database: fixed offsets ("+08:00", "UTC", "GMT-3", "Z") and IANA names read
// from the system tz database (/usr/share/zoneinfo TZif files, including their POSIX footer rule
// for instants past the last listed transition). Local→UTC follows java.time: in a gap the local
// time moves forward by the gap, in an overlap the earlier offset wins.
//
// Thread-safe: zones are immutable and cached.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/datetime.h"
#include "common/status.h"

namespace silt {

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
    return micros +
           static_cast<int64_t>(OffsetAt(FloorDiv(micros, kMicrosPerSecond))) * kMicrosPerSecond;
  }
  int64_t LocalMicrosToUtc(int64_t local) const {
    int64_t secs = FloorDiv(local, kMicrosPerSecond);
    return (LocalToUtc(secs) - secs) * kMicrosPerSecond + local;
  }

  struct Type {
    int32_t offset = 0;
    bool dst = false;
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
  TimeZone(std::string id, int32_t fixed_offset)
      : id_(std::move(id)), fixed_offset_(fixed_offset) {}
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

// Reads an offset magnitude at *i: "h[h]", "hh:mm", "hh:mm:ss", and with allow_compact also
// "hhmm" / "hhmmss"; minutes and seconds <= 59. *secs gets the total seconds, *i the end.
bool ParseHms(std::string_view s, size_t* i, int32_t* secs, bool allow_compact);

// Parses an offset like "+08:00", "-8", "+0530", "+08:00:00" (sign required); nullopt if not one.
std::optional<int32_t> ParseOffset(std::string_view s);

}  // namespace silt
