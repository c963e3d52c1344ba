#include "common/time_zones.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "common/error_classes.h"

namespace silt {

bool ParseHms(std::string_view s, size_t* i, int32_t* secs, bool allow_compact) {
  auto digits = [&](int max, int* v) {
    int n = 0;
    *v = 0;
    while (*i < s.size() && n < max && std::isdigit(static_cast<unsigned char>(s[*i]))) {
      *v = *v * 10 + (s[*i] - '0');
      ++*i;
      ++n;
    }
    return n;
  };
  int h = 0, m = 0, sec = 0;
  int nh = digits(2, &h);
  if (nh == 0) return false;
  if (*i < s.size() && s[*i] == ':') {
    ++*i;
    if (digits(2, &m) != 2) return false;
    if (*i < s.size() && s[*i] == ':') {
      ++*i;
      if (digits(2, &sec) != 2) return false;
    }
  } else if (allow_compact && nh == 2 && *i < s.size()) {
    // +hhmm / +hhmmss
    if (digits(2, &m) == 2) {
      if (*i < s.size()) {
        if (digits(2, &sec) != 2) return false;
      }
    }
  }
  if (m > 59 || sec > 59) return false;
  *secs = h * 3600 + m * 60 + sec;
  return true;
}

namespace {

// POSIX TZ strings from TZif footers: "CET-1CEST,M3.5.0,M10.5.0/3".
bool ParsePosixName(std::string_view s, size_t* i, std::string* name) {
  if (*i < s.size() && s[*i] == '<') {
    size_t close = s.find('>', *i);
    if (close == std::string_view::npos) return false;
    *name = std::string(s.substr(*i + 1, close - *i - 1));
    *i = close + 1;
    return true;
  }
  size_t b = *i;
  while (*i < s.size() && std::isalpha(static_cast<unsigned char>(s[*i]))) ++*i;
  *name = std::string(s.substr(b, *i - b));
  return *i - b >= 3;
}

bool ParsePosixOffset(std::string_view s, size_t* i, int32_t* secs) {
  int sign = 1;
  if (*i < s.size() && (s[*i] == '+' || s[*i] == '-')) {
    sign = s[*i] == '-' ? -1 : 1;
    ++*i;
  }
  int32_t v;
  // Hours may have up to 3 digits in rule times (v3: -167..167).
  size_t b = *i;
  int h = 0;
  while (*i < s.size() && std::isdigit(static_cast<unsigned char>(s[*i])) && *i - b < 3) {
    h = h * 10 + (s[*i] - '0');
    ++*i;
  }
  if (*i == b) return false;
  v = h * 3600;
  if (*i < s.size() && s[*i] == ':') {
    ++*i;
    int32_t rest;
    std::string_view tail = s;
    size_t j = *i;
    int m = 0, n = 0;
    while (j < tail.size() && std::isdigit(static_cast<unsigned char>(tail[j])) && n < 2) {
      m = m * 10 + (tail[j++] - '0');
      ++n;
    }
    rest = m * 60;
    if (j < tail.size() && tail[j] == ':') {
      ++j;
      int sec = 0;
      n = 0;
      while (j < tail.size() && std::isdigit(static_cast<unsigned char>(tail[j])) && n < 2) {
        sec = sec * 10 + (tail[j++] - '0');
        ++n;
      }
      rest += sec;
    }
    *i = j;
    v += rest;
  }
  *secs = sign * v;
  return true;
}

bool ParsePosixDate(std::string_view s, size_t* i, TimeZone::RuleDate* d) {
  auto num = [&](int* v) {
    size_t b = *i;
    *v = 0;
    while (*i < s.size() && std::isdigit(static_cast<unsigned char>(s[*i]))) {
      *v = *v * 10 + (s[*i] - '0');
      ++*i;
    }
    return *i > b;
  };
  if (*i >= s.size()) return false;
  if (s[*i] == 'M') {
    ++*i;
    d->kind = 'M';
    if (!num(&d->a) || *i >= s.size() || s[*i] != '.') return false;
    ++*i;
    if (!num(&d->b) || *i >= s.size() || s[*i] != '.') return false;
    ++*i;
    if (!num(&d->c)) return false;
  } else if (s[*i] == 'J') {
    ++*i;
    d->kind = 'J';
    if (!num(&d->a)) return false;
  } else {
    d->kind = 'N';
    if (!num(&d->a)) return false;
  }
  d->time = 7200;
  if (*i < s.size() && s[*i] == '/') {
    ++*i;
    if (!ParsePosixOffset(s, i, &d->time)) return false;
  }
  return true;
}

std::optional<TimeZone::Rule> ParsePosixRule(std::string_view s) {
  TimeZone::Rule r;
  size_t i = 0;
  int32_t off;
  if (!ParsePosixName(s, &i, &r.std_type.abbr) || !ParsePosixOffset(s, &i, &off)) {
    return std::nullopt;
  }
  r.std_type.offset = -off;
  r.std_type.dst = false;
  if (i >= s.size()) return r;
  if (!ParsePosixName(s, &i, &r.dst_type.abbr)) return std::nullopt;
  r.dst_type.dst = true;
  r.dst_type.offset = r.std_type.offset + 3600;
  if (i < s.size() && s[i] != ',') {
    if (!ParsePosixOffset(s, &i, &off)) return std::nullopt;
    r.dst_type.offset = -off;
  }
  if (i >= s.size() || s[i] != ',') return std::nullopt;
  ++i;
  if (!ParsePosixDate(s, &i, &r.start) || i >= s.size() || s[i] != ',') return std::nullopt;
  ++i;
  if (!ParsePosixDate(s, &i, &r.end)) return std::nullopt;
  r.has_dst = true;
  return r;
}

// Local seconds (of the rule's year) at which a rule date/time occurs.
int64_t RuleLocalSeconds(const TimeZone::RuleDate& d, int64_t year) {
  int64_t days;
  if (d.kind == 'J') {
    days = DaysFromCivil(year, 1, 1) + d.a - 1 + (IsLeapYear(year) && d.a >= 60 ? 1 : 0);
  } else if (d.kind == 'N') {
    days = DaysFromCivil(year, 1, 1) + d.a;
  } else {
    int64_t first = DaysFromCivil(year, d.a, 1);
    int dow = IsoDayOfWeek(first) % 7;  // 0 = Sunday
    int day = 1 + (d.c - dow + 7) % 7 + (d.b - 1) * 7;
    while (day > DaysInMonth(year, d.a)) day -= 7;
    days = first + day - 1;
  }
  return days * kSecondsPerDay + d.time;
}

struct ByteReader {
  const std::string& data;
  size_t pos = 0;
  bool Has(size_t n) const { return pos + n <= data.size(); }
  int64_t Be(int bytes) {
    uint64_t v = 0;
    for (int k = 0; k < bytes; ++k) v = (v << 8) | static_cast<uint8_t>(data[pos++]);
    if (bytes == 4) return static_cast<int32_t>(static_cast<uint32_t>(v));
    return static_cast<int64_t>(v);
  }
};

Result<TimeZonePtr> LoadTzif(const std::string& id) {
  for (char c : id) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '_' || c == '-' ||
          c == '+')) {
      return Status::InvalidArgument("", "");
    }
  }
  if (id.empty() || id.find("..") != std::string::npos || id[0] == '/') {
    return Status::InvalidArgument("", "");
  }
  std::ifstream f("/usr/share/zoneinfo/" + id, std::ios::binary);
  if (!f) return Status::InvalidArgument("", "");
  std::stringstream ss;
  ss << f.rdbuf();
  std::string data = ss.str();
  ByteReader r{data};
  auto bad = [] { return Status::InvalidArgument("", ""); };
  auto header = [&](int64_t counts[6]) {
    if (!r.Has(44) || data.compare(r.pos, 4, "TZif") != 0) return '\0';
    char version = data[r.pos + 4];
    r.pos += 20;
    for (int k = 0; k < 6; ++k) counts[k] = r.Be(4);
    return version == 0 ? '1' : version;
  };
  int64_t c[6];  // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
  char version = header(c);
  if (!version) return bad();
  int tsize = 4;
  if (version >= '2') {
    size_t skip = static_cast<size_t>(c[3] * 5 + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0]);
    if (!r.Has(skip)) return bad();
    r.pos += skip;
    if (!header(c)) return bad();
    tsize = 8;
  }
  size_t need =
      static_cast<size_t>(c[3] * (tsize + 1) + c[4] * 6 + c[5] + c[2] * (tsize + 4) + c[1] + c[0]);
  if (!r.Has(need)) return bad();
  std::vector<int64_t> transitions(static_cast<size_t>(c[3]));
  for (auto& t : transitions) t = r.Be(tsize);
  std::vector<uint8_t> idx(static_cast<size_t>(c[3]));
  for (auto& x : idx) x = static_cast<uint8_t>(r.Be(1));
  std::vector<TimeZone::Type> types(static_cast<size_t>(c[4]));
  std::vector<uint8_t> abbr_index(types.size());
  for (size_t k = 0; k < types.size(); ++k) {
    types[k].offset = static_cast<int32_t>(r.Be(4));
    types[k].dst = r.Be(1) != 0;
    abbr_index[k] = static_cast<uint8_t>(r.Be(1));
  }
  std::string chars = data.substr(r.pos, static_cast<size_t>(c[5]));
  r.pos += static_cast<size_t>(c[5]);
  for (size_t k = 0; k < types.size(); ++k) {
    if (abbr_index[k] < chars.size()) types[k].abbr = std::string(chars.c_str() + abbr_index[k]);
  }
  for (uint8_t x : idx) {
    if (x >= types.size()) return bad();
  }
  if (types.empty()) return bad();
  r.pos += static_cast<size_t>(c[2] * (tsize + 4) + c[1] + c[0]);
  std::optional<TimeZone::Rule> rule;
  if (version >= '2' && r.pos < data.size() && data[r.pos] == '\n') {
    size_t end = data.find('\n', r.pos + 1);
    if (end != std::string::npos) {
      std::string footer = data.substr(r.pos + 1, end - r.pos - 1);
      if (!footer.empty()) rule = ParsePosixRule(footer);
    }
  }
  return std::make_shared<const TimeZone>(id, std::move(transitions), std::move(idx),
                                          std::move(types), std::move(rule));
}

// java.time.ZoneId.SHORT_IDS, which Spark's getZoneId passes.
const char* ShortId(std::string_view id) {
  static const std::pair<const char*, const char*> kIds[] = {
      {"ACT", "Australia/Darwin"},
      {"AET", "Australia/Sydney"},
      {"AGT", "America/Argentina/Buenos_Aires"},
      {"ART", "Africa/Cairo"},
      {"AST", "America/Anchorage"},
      {"BET", "America/Sao_Paulo"},
      {"BST", "Asia/Dhaka"},
      {"CAT", "Africa/Harare"},
      {"CNT", "America/St_Johns"},
      {"CST", "America/Chicago"},
      {"CTT", "Asia/Shanghai"},
      {"EAT", "Africa/Addis_Ababa"},
      {"ECT", "Europe/Paris"},
      {"IET", "America/Indiana/Indianapolis"},
      {"IST", "Asia/Kolkata"},
      {"JST", "Asia/Tokyo"},
      {"MIT", "Pacific/Apia"},
      {"NET", "Asia/Yerevan"},
      {"NST", "Pacific/Auckland"},
      {"PLT", "Asia/Karachi"},
      {"PNT", "America/Phoenix"},
      {"PRT", "America/Puerto_Rico"},
      {"PST", "America/Los_Angeles"},
      {"SST", "Pacific/Guadalcanal"},
      {"VST", "Asia/Ho_Chi_Minh"},
      {"EST", "-05:00"},
      {"MST", "-07:00"},
      {"HST", "-10:00"}};
  for (const auto& [k, v] : kIds) {
    if (id == k) return v;
  }
  return nullptr;
}

std::string OffsetId(int32_t secs) {
  if (secs == 0) return "Z";
  char buf[16];
  int a = secs < 0 ? -secs : secs;
  if (a % 60) {
    snprintf(buf, sizeof buf, "%c%02d:%02d:%02d", secs < 0 ? '-' : '+', a / 3600, a / 60 % 60,
             a % 60);
  } else {
    snprintf(buf, sizeof buf, "%c%02d:%02d", secs < 0 ? '-' : '+', a / 3600, a / 60 % 60);
  }
  return buf;
}

Result<TimeZonePtr> FindUncached(std::string_view name) {
  auto invalid = [&] {
    return Status::InvalidArgument(
        "The timezone: " + std::string(name) +
            " is invalid. The timezone must be either a region-based zone ID or a zone offset. "
            "Region IDs must have the form 'area/city', such as 'America/Los_Angeles'. Zone "
            "offsets must be in the format '(+|-)HH', '(+|-)HH:mm' or '(+|-)HH:mm:ss', e.g '-08', "
            "'+01:00' or '-13:33:33'., and must be in the range from -18:00 to +18:00. 'Z' and "
            "'UTC' are accepted as synonyms for '+00:00'.",
        errc::kInvalidTimezone);
  };
  std::string_view n = name;
  if (n == "Z" || n == "UTC" || n == "GMT" || n == "UT") {
    return std::make_shared<const TimeZone>(std::string(n == "Z" ? "Z" : n), 0);
  }
  if (const char* s = ShortId(n)) return FindUncached(s);
  for (std::string_view prefix : {"UTC", "GMT", "UT"}) {
    if (n.size() > prefix.size() && n.substr(0, prefix.size()) == prefix &&
        (n[prefix.size()] == '+' || n[prefix.size()] == '-')) {
      auto off = ParseOffset(n.substr(prefix.size()));
      if (!off) return invalid();
      return std::make_shared<const TimeZone>(std::string(n), *off);
    }
  }
  if (!n.empty() && (n[0] == '+' || n[0] == '-')) {
    auto off = ParseOffset(n);
    if (!off) return invalid();
    return std::make_shared<const TimeZone>(OffsetId(*off), *off);
  }
  auto tz = LoadTzif(std::string(n));
  if (!tz.ok()) return invalid();
  return tz;
}

}  // namespace

std::optional<int32_t> ParseOffset(std::string_view s) {
  if (s.empty() || (s[0] != '+' && s[0] != '-')) return std::nullopt;
  int sign = s[0] == '-' ? -1 : 1;
  size_t i = 1;
  int32_t secs;
  if (!ParseHms(s, &i, &secs, true) || i != s.size()) return std::nullopt;
  if (secs > 18 * 3600) return std::nullopt;
  return sign * secs;
}

TimeZone::TimeZone(std::string id, std::vector<int64_t> transitions,
                   std::vector<uint8_t> type_index, std::vector<Type> types,
                   std::optional<Rule> rule)
    : id_(std::move(id)),
      transitions_(std::move(transitions)),
      type_index_(std::move(type_index)),
      types_(std::move(types)) {
  if (rule) {
    has_rule_ = true;
    rule_ = std::move(*rule);
  }
  if (transitions_.empty() && !has_rule_) fixed_offset_ = types_[0].offset;
}

std::shared_ptr<const TimeZone> TimeZone::Utc() {
  static const TimeZonePtr utc = std::make_shared<const TimeZone>("UTC", 0);
  return utc;
}

Result<TimeZonePtr> TimeZone::Find(std::string_view name) {
  static std::mutex mu;
  static std::unordered_map<std::string, TimeZonePtr> cache;
  std::string key(name);
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  SILT_ASSIGN_OR_RETURN(TimeZonePtr tz, FindUncached(name));
  std::lock_guard<std::mutex> lock(mu);
  cache.emplace(key, tz);
  return tz;
}

const TimeZone::Type& TimeZone::RuleTypeAt(int64_t t) const {
  if (!rule_.has_dst) return rule_.std_type;
  int64_t year = CivilFromDays(FloorDiv(t + rule_.std_type.offset, kSecondsPerDay)).year;
  int64_t start = RuleLocalSeconds(rule_.start, year) - rule_.std_type.offset;
  int64_t end = RuleLocalSeconds(rule_.end, year) - rule_.dst_type.offset;
  bool dst = start < end ? (t >= start && t < end) : !(t >= end && t < start);
  return dst ? rule_.dst_type : rule_.std_type;
}

const TimeZone::Type& TimeZone::TypeAt(int64_t t) const {
  if (transitions_.empty()) return has_rule_ ? RuleTypeAt(t) : types_[0];
  auto it = std::upper_bound(transitions_.begin(), transitions_.end(), t);
  if (it == transitions_.begin()) return types_[0];
  if (it == transitions_.end() && has_rule_) return RuleTypeAt(t);
  return types_[type_index_[static_cast<size_t>(it - transitions_.begin() - 1)]];
}

int32_t TimeZone::OffsetAt(int64_t utc_seconds) const {
  if (fixed()) return fixed_offset_;
  return TypeAt(utc_seconds).offset;
}

int64_t TimeZone::LocalToUtc(int64_t local) const {
  if (fixed()) return local - fixed_offset_;
  // At most one transition near a local time in practice: compare the offsets a day around it.
  int32_t before = OffsetAt(local - kSecondsPerDay);
  int32_t after = OffsetAt(local + kSecondsPerDay);
  if (before == after) {
    int32_t o = OffsetAt(local - before);
    return local - o;
  }
  bool before_ok = OffsetAt(local - before) == before;
  bool after_ok = OffsetAt(local - after) == after;
  if (before_ok) return local - before;  // unique, or the earlier offset of an overlap
  if (after_ok) return local - after;
  return local - before;  // gap: shift forward by its length
}

std::string TimeZone::Abbreviation(int64_t utc_seconds) const {
  if (fixed()) {
    if (!types_.empty() && !types_[0].abbr.empty()) return types_[0].abbr;
    if (fixed_offset_ == 0) return id_ == "Z" ? "Z" : id_;
    return OffsetId(fixed_offset_);
  }
  return TypeAt(utc_seconds).abbr;
}

}  // namespace silt
