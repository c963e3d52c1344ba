// Spark's date/time functions (datetimeExpressions.scala, DateTimeUtils.scala) over the calendar,
// time zone and pattern machinery of datetime_calendar.h (text parsing and patterns in
// datetime_pattern.cc, the tz database in common/time_zones.cc).
//
// Time zones: the session zone comes from EvalContext::time_zone at evaluation (BindContext's
// at bind time only to validate literal zone arguments). TIMESTAMP values are UTC instants shown
// in the session zone; TIMESTAMP_NTZ values are wall-clock values used as they are.
#include <algorithm>
#include <cctype>

#include "common/ascii.h"
#include "common/error_classes.h"
#include "exec/function_registry.h"
#include "exec/functions/datetime_calendar.h"
#include "exec/functions/function_util.h"
#include "vector/time_text.h"

namespace silt::exec {

namespace {

using cal::CivilDate;
using cal::CivilFromDays;
using cal::DaysFromCivil;
using cal::FloorDiv;
using cal::kMicrosPerDay;
using cal::kMicrosPerSecond;
using cal::TimeZone;
using cal::TimeZonePtr;
using fn::CheckArity;
using fn::CoerceArg;
using fn::ConstantOf;
using fn::FixedWriter;
using fn::MakeCall;
using fn::NullAt;
using fn::StrAt;
using fn::StringWriter;
using fn::TypeMismatch;
using fn::ValAt;

using Args = std::vector<ExprPtr>;

TypePtr DateT() { return DataType::Date(); }
TypePtr TsT() { return DataType::Timestamp(); }
TypePtr IntT() { return DataType::Int32(); }
TypePtr LongT() { return DataType::Int64(); }

Result<TimeZonePtr> SessionZone(const EvalContext& ctx) {
  return TimeZone::Find(ctx.time_zone.empty() ? "UTC" : ctx.time_zone);
}

// Coerces a date-ish argument: strings and timestamps become dates via the cast.
Status DateArg(std::string_view name, Args& args, size_t i, const BindContext& ctx) {
  return CoerceArg(name, args, i, DateT(), ctx);
}

// Timestamp-ish argument: TIMESTAMP_NTZ stays, everything else becomes TIMESTAMP.
Status TimestampArg(std::string_view name, Args& args, size_t i, const BindContext& ctx) {
  if (args[i]->type->id() == TypeId::kTimestampNtz) return Status::OK();
  // TIMESTAMP_NTZ(p): its wall time in microseconds (the field functions' precision).
  if (args[i]->type->id() == TypeId::kTimestampNtzNanos) {
    return CoerceArg(name, args, i, DataType::TimestampNtz(), ctx);
  }
  return CoerceArg(name, args, i, TsT(), ctx);
}

// A TIME value as the TIMESTAMP_NTZ of that time on 1970-01-01 (the formatting functions only
// read its time fields).
ExprPtr TimeAsEpochNtz(ExprPtr time) {
  return MakeCall("time_as_ntz", DataType::TimestampNtz(), {std::move(time)},
                  [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                    MapUnary<int64_t, int64_t>(
                        a[0], rows, out, [](int64_t ns) { return FloorDiv(ns, kNanosPerMicro); });
                    return Status::OK();
                  });
}

Status CannotParseTime(std::string_view text, std::string_view fmt) {
  return Status::InvalidArgument(
      "The value '" + std::string(text) + "' cannot be parsed as TIME" +
          (fmt.empty() ? std::string() : " with the format '" + std::string(fmt) + "'") + ".",
      errc::kCannotParseTime);
}

// Integer day/month counts: int8/16/32; strings and NULL coerce to int; wider types are an error
// (Spark has no implicit narrowing cast).
Status IntArg(std::string_view name, Args& args, size_t i, const BindContext& ctx) {
  TypeId id = args[i]->type->id();
  if (id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 ||
      id == TypeId::kString || id == TypeId::kNull) {
    return CoerceArg(name, args, i, IntT(), ctx);
  }
  return fn::UnexpectedType(name, i, "(\"INT\" or \"SMALLINT\" or \"TINYINT\")", args[i]->type);
}

// make_timestamp(date[, time[, timezone]]) (Spark 4.1): the date at the time of day (midnight
// without one) in `timezone`, else the session zone; the time's sub-microsecond digits dropped.
Result<ExprPtr> BindMakeTimestampFromDate(std::string_view name, Args& args,
                                          const BindContext& ctx) {
  TypeId d = args[0]->type->id();
  if (d != TypeId::kDate && d != TypeId::kNull) {
    return fn::UnexpectedType(name, 0, "\"DATE\"", args[0]->type);
  }
  SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, DateT(), ctx));
  if (args.size() >= 2) {
    TypeId t = args[1]->type->id();
    if (t != TypeId::kNull && t != TypeId::kTime) {
      return fn::UnexpectedType(name, 1, "\"TIME\"", args[1]->type);
    }
    // TIME: nanoseconds since midnight; NULL: an all-NULL column of the same physical type.
    if (t == TypeId::kNull) SILT_RETURN_NOT_OK(CoerceArg(name, args, 1, LongT(), ctx));
  }
  if (args.size() == 3) {
    SILT_RETURN_NOT_OK(CoerceArg(name, args, 2, DataType::String(), ctx));
  }
  return MakeCall(
      std::string(name), TsT(), std::move(args),
      [](std::span<const Arg> x, size_t rows, const EvalContext& ec, Vector* out) -> Status {
        SILT_ASSIGN_OR_RETURN(TimeZonePtr session, SessionZone(ec));
        FixedWriter<int64_t> w(out, rows);
        for (size_t i = 0; i < rows; ++i) {
          if (AnyNull(x, i)) {
            w.SetNull(i);
            continue;
          }
          int64_t local = int64_t{ValAt<int32_t>(x[0], i)} * kMicrosPerDay;
          if (x.size() >= 2) local += FloorDiv(ValAt<int64_t>(x[1], i), kNanosPerMicro);
          if (x.size() == 3) {
            SILT_ASSIGN_OR_RETURN(TimeZonePtr z, TimeZone::Find(StrAt(x[2], i)));
            w.Set(i, z->LocalMicrosToUtc(local));
          } else {
            w.Set(i, session->LocalMicrosToUtc(local));
          }
        }
        return Status::OK();
      });
}

// Local wall micros of a timestamp column value (UTC instant in zone, or ntz as is).
inline int64_t LocalMicros(int64_t v, const TimeZone* zone) {
  return zone ? zone->UtcMicrosToLocal(v) : v;
}

// ---------------------------------------------------------------------------------------------
// Field extraction

enum class Field {
  kYear,
  kQuarter,
  kMonth,
  kDay,
  kDayOfWeek,
  kWeekday,
  kDayOfYear,
  kWeekOfYear,
  kYearOfWeek,
  kDayOfWeekIso,
  kHour,
  kMinute,
  kSecond
};

int32_t DateField(int32_t days, Field f) {
  switch (f) {
    case Field::kYear:
      return static_cast<int32_t>(CivilFromDays(days).year);
    case Field::kQuarter:
      return (CivilFromDays(days).month - 1) / 3 + 1;
    case Field::kMonth:
      return CivilFromDays(days).month;
    case Field::kDay:
      return CivilFromDays(days).day;
    case Field::kDayOfWeek:
      return cal::IsoDayOfWeek(days) % 7 + 1;
    case Field::kWeekday:
      return cal::IsoDayOfWeek(days) - 1;
    case Field::kDayOfWeekIso:
      return cal::IsoDayOfWeek(days);
    case Field::kDayOfYear:
      return cal::DayOfYear(days);
    case Field::kWeekOfYear:
      return cal::IsoWeekOfYear(days);
    case Field::kYearOfWeek:
      return static_cast<int32_t>(cal::IsoWeekYear(days));
    default:
      return 0;
  }
}

Result<ExprPtr> BindDateField(std::string_view name, Args& args, const BindContext& ctx, Field f) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 1, 1));
  SILT_RETURN_NOT_OK(DateArg(name, args, 0, ctx));
  return MakeCall(std::string(name), IntT(), std::move(args),
                  [f](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                    MapUnary<int32_t, int32_t>(a[0], rows, out,
                                               [f](int32_t d) { return DateField(d, f); });
                    return Status::OK();
                  });
}

// hour/minute/second of a TIME value (nanoseconds since midnight).
Result<ExprPtr> BindTimeOfDayField(std::string_view name, Args& args, Field f) {
  return MakeCall(std::string(name), IntT(), std::move(args),
                  [f](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                    MapUnary<int32_t, int64_t>(a[0], rows, out, [f](int64_t ns) {
                      int64_t secs = ns / kNanosPerSecond;
                      if (f == Field::kHour) return static_cast<int32_t>(secs / 3600);
                      if (f == Field::kMinute) return static_cast<int32_t>(secs / 60 % 60);
                      return static_cast<int32_t>(secs % 60);
                    });
                    return Status::OK();
                  });
}

Result<ExprPtr> BindTimeField(std::string_view name, Args& args, const BindContext& ctx, Field f) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 1, 1));
  if (args[0]->type->id() == TypeId::kTime) return BindTimeOfDayField(name, args, f);
  SILT_RETURN_NOT_OK(TimestampArg(name, args, 0, ctx));
  bool ntz = args[0]->type->id() == TypeId::kTimestampNtz;
  return MakeCall(
      std::string(name), IntT(), std::move(args),
      [f, ntz](std::span<const Arg> a, size_t rows, const EvalContext& ec, Vector* out) -> Status {
        TimeZonePtr zone;
        if (!ntz) {
          SILT_ASSIGN_OR_RETURN(zone, SessionZone(ec));
        }
        const TimeZone* z = zone.get();
        MapUnary<int32_t, int64_t>(a[0], rows, out, [&](int64_t v) {
          int64_t local = LocalMicros(v, z);
          int64_t tod = local - FloorDiv(local, kMicrosPerDay) * kMicrosPerDay;
          int64_t secs = tod / kMicrosPerSecond;
          if (f == Field::kHour) return static_cast<int32_t>(secs / 3600);
          if (f == Field::kMinute) return static_cast<int32_t>(secs / 60 % 60);
          return static_cast<int32_t>(secs % 60);
        });
        return Status::OK();
      });
}

// ---------------------------------------------------------------------------------------------
// Truncation

enum TruncLevel {
  kTruncInvalid = -1,
  kTruncMicro,
  kTruncMilli,
  kTruncSecond,
  kTruncMinute,
  kTruncHour,
  kTruncDay,
  kTruncWeek,
  kTruncMonth,
  kTruncQuarter,
  kTruncYear
};

TruncLevel ParseTruncLevel(std::string_view s, bool date_only) {
  std::string u = AsciiUpper(s);
  if (u == "YEAR" || u == "YYYY" || u == "YY") return kTruncYear;
  if (u == "QUARTER") return kTruncQuarter;
  if (u == "MONTH" || u == "MM" || u == "MON") return kTruncMonth;
  if (u == "WEEK") return kTruncWeek;
  if (date_only) return kTruncInvalid;
  if (u == "DAY" || u == "DD") return kTruncDay;
  if (u == "HOUR") return kTruncHour;
  if (u == "MINUTE") return kTruncMinute;
  if (u == "SECOND") return kTruncSecond;
  if (u == "MILLISECOND") return kTruncMilli;
  if (u == "MICROSECOND") return kTruncMicro;
  return kTruncInvalid;
}

int64_t TruncDays(int64_t days, TruncLevel level) {
  CivilDate c = CivilFromDays(days);
  switch (level) {
    case kTruncWeek:
      return days - (cal::IsoDayOfWeek(days) - 1);
    case kTruncMonth:
      return DaysFromCivil(c.year, c.month, 1);
    case kTruncQuarter:
      return DaysFromCivil(c.year, (c.month - 1) / 3 * 3 + 1, 1);
    case kTruncYear:
      return DaysFromCivil(c.year, 1, 1);
    default:
      return days;
  }
}

int64_t TruncTimestamp(int64_t micros, TruncLevel level, const TimeZone* zone) {
  switch (level) {
    case kTruncMicro:
      return micros;
    case kTruncMilli:
      return micros - cal::FloorMod(micros, 1000);
    case kTruncSecond:
      return micros - cal::FloorMod(micros, kMicrosPerSecond);
    default:
      break;
  }
  int64_t local = LocalMicros(micros, zone);
  int64_t t;
  if (level == kTruncMinute) {
    t = local - cal::FloorMod(local, 60 * kMicrosPerSecond);
  } else if (level == kTruncHour) {
    t = local - cal::FloorMod(local, 3600 * kMicrosPerSecond);
  } else {
    t = TruncDays(FloorDiv(local, kMicrosPerDay), level == kTruncDay ? kTruncInvalid : level) *
        kMicrosPerDay;
  }
  if (!zone) return t;
  // java.time keeps the original offset when it is still valid for the truncated time.
  int32_t orig = zone->OffsetAt(FloorDiv(micros, kMicrosPerSecond));
  int64_t candidate = t - int64_t{orig} * kMicrosPerSecond;
  if (zone->OffsetAt(FloorDiv(candidate, kMicrosPerSecond)) == orig) return candidate;
  return zone->LocalMicrosToUtc(t);
}

// ---------------------------------------------------------------------------------------------
// Parsing helpers for to_date / to_timestamp / unix_timestamp

Status ParseError(std::string_view text, std::string_view fmt) {
  return Status::InvalidArgument(
      "Text '" + std::string(text) + "' could not be parsed" +
          (fmt.empty() ? std::string() : " with the pattern '" + std::string(fmt) + "'") +
          ". If necessary set spark.sql.ansi.enabled to \"false\" to bypass this error.",
      errc::kCannotParseTimestamp);
}

struct PatternSource {
  std::shared_ptr<const cal::DateTimePattern> fixed;
  bool null_pattern = false;
};

Result<std::shared_ptr<const cal::DateTimePattern>> CompilePattern(std::string_view fmt,
                                                                   bool parsing) {
  SILT_ASSIGN_OR_RETURN(cal::DateTimePattern p, cal::DateTimePattern::Compile(fmt));
  if (parsing) {
    for (char bad : {'E', 'F', 'q', 'Q'}) {
      if (fmt.find(bad) != std::string_view::npos) {
        // Only outside quotes matters; recompiling the pattern already split them.
        bool in_quote = false;
        for (char c : fmt) {
          if (c == '\'') in_quote = !in_quote;
          if (!in_quote && c == bad) {
            return Status::InvalidArgument(
                std::string("Illegal pattern character: ") + bad + " (not allowed for parsing)",
                errc::kInvalidDatetimePatternIllegalCharacter);
          }
        }
      }
    }
  }
  return std::make_shared<const cal::DateTimePattern>(std::move(p));
}

Result<PatternSource> PreparePattern(const ExprPtr& fmt, bool parsing) {
  PatternSource src;
  if (const Value* v = ConstantOf(fmt)) {
    if (v->is_null()) {
      src.null_pattern = true;
    } else {
      SILT_ASSIGN_OR_RETURN(src.fixed, CompilePattern(v->str(), parsing));
    }
  }
  return src;
}

class PatternCache {
 public:
  PatternCache(const PatternSource& src, bool parsing) : src_(src), parsing_(parsing) {}
  Result<const cal::DateTimePattern*> Get(std::string_view fmt) {
    if (src_.fixed) return src_.fixed.get();
    if (last_ && fmt == last_fmt_) return last_.get();
    SILT_ASSIGN_OR_RETURN(last_, CompilePattern(fmt, parsing_));
    last_fmt_ = std::string(fmt);
    return last_.get();
  }

 private:
  const PatternSource& src_;
  bool parsing_;
  std::string last_fmt_;
  std::shared_ptr<const cal::DateTimePattern> last_;
};

// Parses arg 0 (string) with the pattern in arg 1 (or `default_fmt`) into UTC micros (or local
// micros when ntz); NULL rows stay NULL; failures are NULL or, in ANSI mode, an error.
enum class ParseOut { kTimestamp, kTimestampNtz, kDate, kUnixSeconds };

Result<ExprPtr> BindParse(std::string_view name, Args& args, const BindContext& ctx, ParseOut kind,
                          std::string default_fmt) {
  TypePtr result = kind == ParseOut::kDate           ? DateT()
                   : kind == ParseOut::kTimestampNtz ? DataType::TimestampNtz()
                   : kind == ParseOut::kUnixSeconds  ? LongT()
                                                     : TsT();
  TypeId in = args[0]->type->id();
  bool has_fmt = args.size() == 2;
  // Date/timestamp inputs: the pattern does not apply (Spark's GetTimestamp).
  if (in == TypeId::kDate || in == TypeId::kTimestamp || in == TypeId::kTimestampNtz) {
    if (has_fmt) args.pop_back();
    if (kind == ParseOut::kUnixSeconds) {
      SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, TsT(), ctx));
      return MakeCall(std::string(name), LongT(), std::move(args),
                      [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                        MapUnary<int64_t, int64_t>(a[0], rows, out, [](int64_t v) {
                          return FloorDiv(v, kMicrosPerSecond);
                        });
                        return Status::OK();
                      });
    }
    return BindCast(args[0], result, false, ctx);
  }
  if (!has_fmt && default_fmt.empty()) {
    // to_date(str) / to_timestamp(str): Spark's CAST.
    SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, DataType::String(), ctx));
    return BindCast(args[0], result, false, ctx);
  }
  SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, DataType::String(), ctx));
  if (has_fmt) {
    SILT_RETURN_NOT_OK(CoerceArg(name, args, 1, DataType::String(), ctx));
  } else {
    args.push_back([&] {
      auto e = std::make_shared<Expr>();
      e->kind = ExprKind::kConstant;
      e->type = DataType::String();
      e->constant = Value::String(default_fmt);
      e->nullable = false;
      return ExprPtr(e);
    }());
  }
  SILT_ASSIGN_OR_RETURN(PatternSource src, PreparePattern(args[1], true));
  bool ansi = ctx.ansi;
  return MakeCall(std::string(name), result, std::move(args),
                  [src, kind, ansi](std::span<const Arg> a, size_t rows, const EvalContext& ec,
                                    Vector* out) -> Status {
                    TimeZonePtr zone;
                    SILT_ASSIGN_OR_RETURN(zone, SessionZone(ec));
                    PatternCache cache(src, true);
                    size_t w = out->type()->fixed_width();
                    (void)w;
                    for (size_t i = 0; i < rows; ++i) {
                      if (src.null_pattern || AnyNull(a, i)) {
                        out->AppendNull();
                        continue;
                      }
                      std::string_view fmt = StrAt(a[1], i);
                      SILT_ASSIGN_OR_RETURN(const cal::DateTimePattern* p, cache.Get(fmt));
                      std::string_view text = StrAt(a[0], i);
                      std::optional<int64_t> v =
                          p->Parse(text, kind == ParseOut::kTimestampNtz ? nullptr : zone.get());
                      if (!v) {
                        if (ansi) return ParseError(text, fmt);
                        out->AppendNull();
                        continue;
                      }
                      switch (kind) {
                        case ParseOut::kTimestamp:
                        case ParseOut::kTimestampNtz:
                          out->Append<int64_t>(*v);
                          break;
                        case ParseOut::kDate:
                          out->Append<int32_t>(static_cast<int32_t>(
                              FloorDiv(zone->UtcMicrosToLocal(*v), kMicrosPerDay)));
                          break;
                        case ParseOut::kUnixSeconds:
                          out->Append<int64_t>(FloorDiv(*v, kMicrosPerSecond));
                          break;
                      }
                    }
                    return Status::OK();
                  });
}

// ---------------------------------------------------------------------------------------------
// Misc helpers

int DayOfWeekFromName(std::string_view s) {
  std::string u = AsciiUpper(s);
  static const char* kNames[7][3] = {{"MO", "MON", "MONDAY"},    {"TU", "TUE", "TUESDAY"},
                                     {"WE", "WED", "WEDNESDAY"}, {"TH", "THU", "THURSDAY"},
                                     {"FR", "FRI", "FRIDAY"},    {"SA", "SAT", "SATURDAY"},
                                     {"SU", "SUN", "SUNDAY"}};
  for (int d = 0; d < 7; ++d) {
    for (const char* n : kNames[d]) {
      if (u == n) return d + 1;  // ISO
    }
  }
  return 0;
}

double MonthsBetween(int64_t t1, int64_t t2, bool round_off, const TimeZone* zone) {
  int64_t l1 = LocalMicros(t1, zone), l2 = LocalMicros(t2, zone);
  int64_t d1 = FloorDiv(l1, kMicrosPerDay), d2 = FloorDiv(l2, kMicrosPerDay);
  CivilDate c1 = CivilFromDays(d1), c2 = CivilFromDays(d2);
  int end1 = cal::DaysInMonth(c1.year, c1.month) - c1.day;
  int end2 = cal::DaysInMonth(c2.year, c2.month) - c2.day;
  double month_diff = static_cast<double>((c1.year * 12 + c1.month) - (c2.year * 12 + c2.month));
  if (c1.day == c2.day || (end1 == 0 && end2 == 0)) return month_diff;
  int64_t s1 = (l1 - d1 * kMicrosPerDay) / kMicrosPerSecond;
  int64_t s2 = (l2 - d2 * kMicrosPerDay) / kMicrosPerSecond;
  int64_t secs_diff = (c1.day - c2.day) * cal::kSecondsPerDay + s1 - s2;
  double diff = month_diff + static_cast<double>(secs_diff) / (31.0 * cal::kSecondsPerDay);
  if (!round_off) return diff;
  return std::floor(diff * 1e8 + 0.5) / 1e8;
}

Status FieldOutOfBounds(const std::string& what) {
  return Status::InvalidArgument(what +
                                     ". If necessary set spark.sql.ansi.enabled to \"false\" "
                                     "to bypass this error.",
                                 errc::kDatetimeFieldOutOfBounds);
}

// Zero-argument kernels (current_date, now, ...).
ExprPtr NowCall(std::string_view name, TypePtr type,
                std::function<void(const EvalContext&, size_t, Vector*, Status*)> fill) {
  return MakeCall(
      std::string(name), std::move(type), {},
      [fill](std::span<const Arg>, size_t rows, const EvalContext& ec, Vector* out) {
        Status st;
        fill(ec, rows, out, &st);
        return st;
      },
      true, false);
}

// extract / date_part of a legacy calendar interval (Spark's ExtractInterval* over
// IntervalUtils.getYears …): YEAR → int (months / 12), MONTH → tinyint (months % 12), DAY →
// int (the days), HOUR → bigint, MINUTE → tinyint, SECOND → decimal(8,6), from the microseconds.
Result<ExprPtr> BindCalendarExtract(std::string_view name, const std::string& field_text,
                                    const std::string& field, Args& rest) {
  enum { kYears, kMonths, kDays, kHours, kMinutes, kSeconds } f;
  TypePtr rt;
  if (field == "YEAR" || field == "Y" || field == "YEARS" || field == "YR" || field == "YRS") {
    f = kYears;
    rt = IntT();
  } else if (field == "MONTH" || field == "MON" || field == "MONS" || field == "MONTHS") {
    f = kMonths;
    rt = DataType::Int8();
  } else if (field == "DAY" || field == "D" || field == "DAYS") {
    f = kDays;
    rt = IntT();
  } else if (field == "HOUR" || field == "H" || field == "HOURS" || field == "HR" ||
             field == "HRS") {
    f = kHours;
    rt = DataType::Int64();
  } else if (field == "MINUTE" || field == "M" || field == "MIN" || field == "MINS" ||
             field == "MINUTES") {
    f = kMinutes;
    rt = DataType::Int8();
  } else if (field == "SECOND" || field == "S" || field == "SEC" || field == "SECONDS" ||
             field == "SECS") {
    f = kSeconds;
    rt = DataType::Decimal(8, 6);
  } else {
    return Status::InvalidArgument(
        "Cannot extract " + field_text + " from " + rest[0]->ToString() + ".",
        errc::kInvalidExtractField);
  }
  return MakeCall(
      std::string(name), rt, std::move(rest),
      [f](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) -> Status {
        constexpr int64_t kHour = 3600 * kMicrosPerSecond, kMinute = 60 * kMicrosPerSecond;
        auto cal = [](int128_t v) { return UnpackCalendarInterval(v); };
        switch (f) {
          case kYears:
            MapUnary<int32_t, int128_t>(a[0], rows, out,
                                        [&](int128_t v) { return cal(v).months / 12; });
            break;
          case kMonths:
            MapUnary<int8_t, int128_t>(a[0], rows, out, [&](int128_t v) {
              return static_cast<int8_t>(cal(v).months % 12);
            });
            break;
          case kDays:
            MapUnary<int32_t, int128_t>(a[0], rows, out, [&](int128_t v) { return cal(v).days; });
            break;
          case kHours:
            MapUnary<int64_t, int128_t>(a[0], rows, out,
                                        [&](int128_t v) { return cal(v).microseconds / kHour; });
            break;
          case kMinutes:
            MapUnary<int8_t, int128_t>(a[0], rows, out, [&](int128_t v) {
              return static_cast<int8_t>(cal(v).microseconds % kHour / kMinute);
            });
            break;
          case kSeconds:
            MapUnary<int128_t, int128_t>(a[0], rows, out, [&](int128_t v) {
              return static_cast<int128_t>(cal(v).microseconds % kMinute);
            });
            break;
        }
        return Status::OK();
      });
}

// extract / date_part of a year-month or day-time interval (Spark's ExtractANSIInterval*): the
// field must be one of the type's fields. YEAR → int, MONTH → tinyint, DAY → int, HOUR and
// MINUTE → tinyint, SECOND → decimal(8,6) with the fraction; negative intervals give negative
// parts.
Result<ExprPtr> BindIntervalExtract(std::string_view name, const std::string& field_text,
                                    const std::string& field, Args& rest) {
  const TypePtr& t = rest[0]->type;
  const bool ym = t->id() == TypeId::kYearMonthInterval;
  const bool calendar = t->id() == TypeId::kCalendarInterval;
  int f = -1;
  if (calendar) return BindCalendarExtract(name, field_text, field, rest);
  if (ym) {
    if (field == "YEAR" || field == "Y" || field == "YEARS" || field == "YR" || field == "YRS")
      f = kIntervalYear;
    if (field == "MONTH" || field == "MON" || field == "MONS" || field == "MONTHS") {
      f = kIntervalMonth;
    }
  } else {
    if (field == "DAY" || field == "D" || field == "DAYS") f = kIntervalDay;
    if (field == "HOUR" || field == "H" || field == "HOURS" || field == "HR" || field == "HRS")
      f = kIntervalHour;
    if (field == "MINUTE" || field == "M" || field == "MIN" || field == "MINS" ||
        field == "MINUTES")
      f = kIntervalMinute;
    if (field == "SECOND" || field == "S" || field == "SEC" || field == "SECONDS" ||
        field == "SECS")
      f = kIntervalSecond;
  }
  if (f < t->interval_start() || f > t->interval_end()) {
    return Status::InvalidArgument("Cannot extract " + field_text + " from " + t->ToString() + ".",
                                   errc::kInvalidExtractField);
  }
  if (ym) {
    TypePtr rt = f == kIntervalYear ? IntT() : DataType::Int8();
    return MakeCall(
        std::string(name), rt, std::move(rest),
        [f](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) -> Status {
          if (f == kIntervalYear) {
            MapUnary<int32_t, int32_t>(a[0], rows, out, [](int32_t m) { return m / 12; });
          } else {
            MapUnary<int8_t, int32_t>(a[0], rows, out,
                                      [](int32_t m) { return static_cast<int8_t>(m % 12); });
          }
          return Status::OK();
        });
  }
  TypePtr rt = f == kIntervalDay      ? IntT()
               : f == kIntervalSecond ? DataType::Decimal(8, 6)
                                      : DataType::Int8();
  return MakeCall(
      std::string(name), rt, std::move(rest),
      [f](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) -> Status {
        constexpr int64_t kHour = 3600 * kMicrosPerSecond, kMinute = 60 * kMicrosPerSecond;
        switch (f) {
          case kIntervalDay:
            MapUnary<int32_t, int64_t>(a[0], rows, out, [](int64_t us) {
              return static_cast<int32_t>(us / kMicrosPerDay);
            });
            break;
          case kIntervalHour:
            MapUnary<int8_t, int64_t>(
                a[0], rows, out, [](int64_t us) { return static_cast<int8_t>(us / kHour % 24); });
            break;
          case kIntervalMinute:
            MapUnary<int8_t, int64_t>(
                a[0], rows, out, [](int64_t us) { return static_cast<int8_t>(us / kMinute % 60); });
            break;
          default:
            MapUnary<int128_t, int64_t>(
                a[0], rows, out, [](int64_t us) { return static_cast<int128_t>(us % kMinute); });
            break;
        }
        return Status::OK();
      });
}

// The nanoseconds of a time_trunc / time_diff unit (HOUR … MICROSECOND), from a string literal.
Result<int64_t> TimeUnitNanos(std::string_view name, const ExprPtr& unit) {
  const Value* v = ConstantOf(unit);
  if (!v || v->is_null() || v->type()->id() != TypeId::kString) {
    return TypeMismatch(name, "the unit argument must be a string literal");
  }
  const std::string u = AsciiUpper(v->str());
  if (u == "HOUR") return 3600 * kNanosPerSecond;
  if (u == "MINUTE") return 60 * kNanosPerSecond;
  if (u == "SECOND") return kNanosPerSecond;
  if (u == "MILLISECOND") return kNanosPerSecond / 1000;
  if (u == "MICROSECOND") return kNanosPerMicro;
  return Status::InvalidArgument("The value of parameter(s) `unit` in `" + std::string(name) +
                                     "` is invalid: expects one of the units without quotes "
                                     "HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND, but got '" +
                                     v->str() + "'.",
                                 errc::kInvalidParameterValue);
}

Result<ExprPtr> BindExtract(std::string_view name, Args& args, const BindContext& ctx) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 2));
  const Value* fv = ConstantOf(args[0]);
  if (!fv || fv->is_null() || fv->type()->id() != TypeId::kString) {
    return TypeMismatch(name, "the field argument must be a string literal");
  }
  std::string field = AsciiUpper(fv->str());
  Args rest{args[1]};
  if (rest[0]->type->is_interval() || rest[0]->type->id() == TypeId::kCalendarInterval) {
    return BindIntervalExtract(name, fv->str(), field, rest);
  }
  auto date_field = [&](Field f) { return BindDateField(name, rest, ctx, f); };
  auto time_field = [&](Field f) { return BindTimeField(name, rest, ctx, f); };
  if (field == "YEAR" || field == "Y" || field == "YEARS" || field == "YR" || field == "YRS") {
    return date_field(Field::kYear);
  }
  if (field == "YEAROFWEEK") return date_field(Field::kYearOfWeek);
  if (field == "QUARTER" || field == "QTR") return date_field(Field::kQuarter);
  if (field == "MONTH" || field == "MON" || field == "MONS" || field == "MONTHS") {
    return date_field(Field::kMonth);
  }
  if (field == "WEEK" || field == "W" || field == "WEEKS") return date_field(Field::kWeekOfYear);
  if (field == "DAY" || field == "D" || field == "DAYS") return date_field(Field::kDay);
  if (field == "DAYOFWEEK" || field == "DOW") return date_field(Field::kDayOfWeek);
  if (field == "DAYOFWEEK_ISO" || field == "DOW_ISO") return date_field(Field::kDayOfWeekIso);
  if (field == "DOY") return date_field(Field::kDayOfYear);
  if (field == "HOUR" || field == "H" || field == "HOURS" || field == "HR" || field == "HRS") {
    return time_field(Field::kHour);
  }
  if (field == "MINUTE" || field == "M" || field == "MIN" || field == "MINS" ||
      field == "MINUTES") {
    return time_field(Field::kMinute);
  }
  if (field == "SECOND" || field == "S" || field == "SEC" || field == "SECONDS" ||
      field == "SECS") {
    // SecondWithFraction: decimal(8,6) seconds including the fraction.
    if (rest[0]->type->id() == TypeId::kTime) {
      return MakeCall(
          std::string(name), DataType::Decimal(8, 6), std::move(rest),
          [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
            MapUnary<int128_t, int64_t>(a[0], rows, out, [](int64_t ns) {
              return static_cast<int128_t>(ns % (60 * kNanosPerSecond) / kNanosPerMicro);
            });
            return Status::OK();
          });
    }
    SILT_RETURN_NOT_OK(TimestampArg(name, rest, 0, ctx));
    bool ntz = rest[0]->type->id() == TypeId::kTimestampNtz;
    return MakeCall(
        std::string(name), DataType::Decimal(8, 6), std::move(rest),
        [ntz](std::span<const Arg> a, size_t rows, const EvalContext& ec, Vector* out) -> Status {
          TimeZonePtr zone;
          if (!ntz) {
            SILT_ASSIGN_OR_RETURN(zone, SessionZone(ec));
          }
          const TimeZone* z = zone.get();
          MapUnary<int128_t, int64_t>(a[0], rows, out, [&](int64_t v) {
            int64_t local = LocalMicros(v, z);
            return static_cast<int128_t>(cal::FloorMod(local, 60 * kMicrosPerSecond));
          });
          return Status::OK();
        });
  }
  return Status::InvalidArgument(
      "Cannot extract " + fv->str() + " from " + args[1]->type->ToString() + ".",
      errc::kInvalidExtractField);
}

}  // namespace

namespace {

// ---------------------------------------------------------------------------------------------
// timestampdiff / timestampadd (Spark's TimestampDiff / TimestampAdd, DateTimeUtils.timestampDiff
// and timestampAdd). The parser turns the unit keyword into an upper-case string literal.

enum class DtUnit {
  kMicrosecond,
  kMillisecond,
  kSecond,
  kMinute,
  kHour,
  kDay,
  kDayOfYear,
  kWeek,
  kMonth,
  kQuarter,
  kYear
};

Result<DtUnit> BindDtUnit(std::string_view name, const ExprPtr& arg, bool allow_day_of_year) {
  const Value* v = ConstantOf(arg);
  std::string unit =
      v && !v->is_null() && v->type()->id() == TypeId::kString ? AsciiUpper(v->str()) : "";
  static const std::pair<const char*, DtUnit> kUnits[] = {{"MICROSECOND", DtUnit::kMicrosecond},
                                                          {"MILLISECOND", DtUnit::kMillisecond},
                                                          {"SECOND", DtUnit::kSecond},
                                                          {"MINUTE", DtUnit::kMinute},
                                                          {"HOUR", DtUnit::kHour},
                                                          {"DAY", DtUnit::kDay},
                                                          {"DAYOFYEAR", DtUnit::kDayOfYear},
                                                          {"WEEK", DtUnit::kWeek},
                                                          {"MONTH", DtUnit::kMonth},
                                                          {"QUARTER", DtUnit::kQuarter},
                                                          {"YEAR", DtUnit::kYear}};
  for (const auto& [text, u] : kUnits) {
    if (unit == text && (allow_day_of_year || u != DtUnit::kDayOfYear)) return u;
  }
  return Status::InvalidArgument(
      "The value of parameter(s) `unit` in `" + std::string(name) +
          "` is invalid: expects one of the units without quotes YEAR, QUARTER, MONTH, "
          "WEEK, DAY, DAYOFYEAR, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND, but got "
          "the string literal '" +
          unit + "'.",
      errc::kInvalidParameterValueDatetimeUnit);
}

int64_t UnitMicros(DtUnit u) {
  switch (u) {
    case DtUnit::kMicrosecond:
      return 1;
    case DtUnit::kMillisecond:
      return 1000;
    case DtUnit::kSecond:
      return kMicrosPerSecond;
    case DtUnit::kMinute:
      return 60 * kMicrosPerSecond;
    case DtUnit::kHour:
      return 3600 * kMicrosPerSecond;
    default:
      return 0;
  }
}

// java.time LocalDateTime.until(end, unit) on local wall-clock micros: time units are the
// difference truncated toward zero; date units compare the dates after moving the end date one
// day towards the start when its time of day has not reached the start's, months as
// (prolepticMonth * 32 + dayOfMonth) differences / 32 (truncating).
int64_t LocalUntil(int64_t start, int64_t end, DtUnit u) {
  if (int64_t per = UnitMicros(u)) return (end - start) / per;
  int64_t start_day = FloorDiv(start, kMicrosPerDay), end_day = FloorDiv(end, kMicrosPerDay);
  int64_t start_tod = start - start_day * kMicrosPerDay, end_tod = end - end_day * kMicrosPerDay;
  if (end_day > start_day && end_tod < start_tod) {
    --end_day;
  } else if (end_day < start_day && end_tod > start_tod) {
    ++end_day;
  }
  if (u == DtUnit::kDay || u == DtUnit::kDayOfYear) return end_day - start_day;
  if (u == DtUnit::kWeek) return (end_day - start_day) / 7;
  CivilDate a = CivilFromDays(end_day), b = CivilFromDays(start_day);
  int64_t packed_end = (static_cast<int64_t>(a.year) * 12 + (a.month - 1)) * 32 + a.day;
  int64_t packed_start = (static_cast<int64_t>(b.year) * 12 + (b.month - 1)) * 32 + b.day;
  int64_t months = (packed_end - packed_start) / 32;
  if (u == DtUnit::kQuarter) return months / 3;
  if (u == DtUnit::kYear) return months / 12;
  return months;
}

Result<ExprPtr> BindTimestampDiff(std::string_view n, Args& a, const BindContext& c) {
  SILT_RETURN_NOT_OK(CheckArity(n, a, 3, 3));
  SILT_ASSIGN_OR_RETURN(DtUnit unit, BindDtUnit(n, a[0], false));
  SILT_RETURN_NOT_OK(CoerceArg(n, a, 1, TsT(), c));
  SILT_RETURN_NOT_OK(CoerceArg(n, a, 2, TsT(), c));
  return MakeCall(
      std::string(n), LongT(), std::move(a),
      [unit](std::span<const Arg> x, size_t rows, const EvalContext& ec, Vector* out) -> Status {
        SILT_ASSIGN_OR_RETURN(TimeZonePtr zone, SessionZone(ec));
        FixedWriter<int64_t> w(out, rows);
        for (size_t i = 0; i < rows; ++i) {
          if (NullAt(x[1], i) || NullAt(x[2], i)) {
            w.SetNull(i);
            continue;
          }
          w.Set(i, LocalUntil(zone->UtcMicrosToLocal(ValAt<int64_t>(x[1], i)),
                              zone->UtcMicrosToLocal(ValAt<int64_t>(x[2], i)), unit));
        }
        return Status::OK();
      });
}

Result<ExprPtr> BindTimestampAdd(std::string_view n, Args& a, const BindContext& c) {
  SILT_RETURN_NOT_OK(CheckArity(n, a, 3, 3));
  SILT_ASSIGN_OR_RETURN(DtUnit unit, BindDtUnit(n, a[0], true));
  SILT_RETURN_NOT_OK(CoerceArg(n, a, 1, LongT(), c));
  SILT_RETURN_NOT_OK(TimestampArg(n, a, 2, c));
  TypePtr type = a[2]->type;
  const bool ntz = type->id() == TypeId::kTimestampNtz;
  std::string unit_text = AsciiUpper(ConstantOf(a[0])->str());
  return MakeCall(std::string(n), type, std::move(a),
                  [unit, ntz, unit_text](std::span<const Arg> x, size_t rows, const EvalContext& ec,
                                         Vector* out) -> Status {
                    TimeZonePtr zone;
                    if (!ntz) {
                      SILT_ASSIGN_OR_RETURN(zone, SessionZone(ec));
                    }
                    FixedWriter<int64_t> w(out, rows);
                    for (size_t i = 0; i < rows; ++i) {
                      if (NullAt(x[1], i) || NullAt(x[2], i)) {
                        w.SetNull(i);
                        continue;
                      }
                      const int64_t q = ValAt<int64_t>(x[1], i), ts = ValAt<int64_t>(x[2], i);
                      auto overflow = [&] {
                        return Status::InvalidArgument("Datetime operation overflow: add " +
                                                           std::to_string(q) + " " + unit_text +
                                                           " to TIMESTAMP " + std::to_string(ts) +
                                                           " (microseconds since the epoch).",
                                                       errc::kDatetimeOverflow);
                      };
                      int64_t result = 0;
                      if (int64_t per = UnitMicros(unit)) {
                        int64_t micros = 0;
                        if (__builtin_mul_overflow(q, per, &micros) ||
                            __builtin_add_overflow(ts, micros, &result)) {
                          return overflow();
                        }
                      } else {
                        // Math.toIntExact(quantity), then months or days on the local date.
                        const int64_t factor = unit == DtUnit::kWeek      ? 7
                                               : unit == DtUnit::kQuarter ? 3
                                               : unit == DtUnit::kYear    ? 12
                                                                          : 1;
                        int32_t amount = 0;
                        if (q < INT32_MIN || q > INT32_MAX ||
                            __builtin_mul_overflow(static_cast<int32_t>(q),
                                                   static_cast<int32_t>(factor), &amount)) {
                          return overflow();
                        }
                        const bool months = unit == DtUnit::kMonth || unit == DtUnit::kQuarter ||
                                            unit == DtUnit::kYear;
                        int64_t local = zone ? zone->UtcMicrosToLocal(ts) : ts;
                        int64_t day = FloorDiv(local, kMicrosPerDay);
                        int64_t tod = local - day * kMicrosPerDay;
                        int64_t new_day = months ? cal::AddMonthsToDays(day, amount) : day + amount;
                        if (__builtin_mul_overflow(new_day, kMicrosPerDay, &local) ||
                            __builtin_add_overflow(local, tod, &local)) {
                          return overflow();
                        }
                        result = zone ? zone->LocalMicrosToUtc(local) : local;
                      }
                      w.Set(i, result);
                    }
                    return Status::OK();
                  });
}

}  // namespace

void RegisterDateTimeFunctions(FunctionRegistry& r) {
  fn::RegisterIntervalFunctions(r);
  Reg(r, {"timestampdiff"}, BindTimestampDiff);
  Reg(r, {"timestampadd"}, BindTimestampAdd);
  Reg(r, {"current_date", "curdate"},
      [](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 0, 0));
        return NowCall(n, DateT(), [](const EvalContext& ec, size_t rows, Vector* out, Status* st) {
          auto zone = SessionZone(ec);
          if (!zone.ok()) {
            *st = zone.status();
            return;
          }
          int32_t d = static_cast<int32_t>(
              FloorDiv((*zone)->UtcMicrosToLocal(ec.now_micros), kMicrosPerDay));
          FixedWriter<int32_t> w(out, rows);
          for (size_t i = 0; i < rows; ++i) w.Set(i, d);
        });
      });
  // current_time([p]): the session zone's time of day of the statement's instant, TIME(p).
  Reg(r, {"current_time"}, [](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 0, 1));
    int p = 6;
    if (a.size() == 1) {
      const Value* v = ConstantOf(a[0]);
      if (!v || v->is_null() || !fn::IsIntegralId(v->type()->id())) {
        return TypeMismatch(n, "the precision must be an integer literal");
      }
      if (v->integer() < 0 || v->integer() > 9) {
        return Status::InvalidArgument("The seconds precision " + std::to_string(v->integer()) +
                                           " of the TIME data type is out of the supported range "
                                           "[0, 9].",
                                       errc::kUnsupportedTimePrecision);
      }
      p = static_cast<int>(v->integer());
    }
    return NowCall(n, DataType::Time(p),
                   [p](const EvalContext& ec, size_t rows, Vector* out, Status* st) {
                     auto zone = SessionZone(ec);
                     if (!zone.ok()) {
                       *st = zone.status();
                       return;
                     }
                     int64_t local = (*zone)->UtcMicrosToLocal(ec.now_micros);
                     int64_t ns = TruncateNanos(FloorMod(local, kMicrosPerDay) * kNanosPerMicro, p);
                     FixedWriter<int64_t> w(out, rows);
                     for (size_t i = 0; i < rows; ++i) w.Set(i, ns);
                   });
  });
  // time_trunc(unit, time): the time floored to the unit, same TIME(p).
  Reg(r, {"time_trunc"}, [](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
    SILT_ASSIGN_OR_RETURN(int64_t unit, TimeUnitNanos(n, a[0]));
    if (a[1]->type->id() != TypeId::kTime) {
      return fn::UnexpectedType(n, 1, "\"TIME\"", a[1]->type);
    }
    TypePtr t = a[1]->type;
    Args rest{a[1]};
    return MakeCall(std::string(n), t, std::move(rest),
                    [unit](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                      MapUnary<int64_t, int64_t>(x[0], rows, out,
                                                 [unit](int64_t ns) { return ns / unit * unit; });
                      return Status::OK();
                    });
  });
  // time_diff(unit, start, end): whole units from start to end (toward zero), BIGINT.
  Reg(r, {"time_diff"}, [](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 3, 3));
    SILT_ASSIGN_OR_RETURN(int64_t unit, TimeUnitNanos(n, a[0]));
    for (size_t i = 1; i < 3; ++i) {
      if (a[i]->type->id() != TypeId::kTime)
        return fn::UnexpectedType(n, i, "\"TIME\"", a[i]->type);
    }
    Args rest{a[1], a[2]};
    return MakeCall(
        std::string(n), LongT(), std::move(rest),
        [unit](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
          FixedWriter<int64_t> w(out, rows);
          for (size_t i = 0; i < rows; ++i) {
            if (AnyNull(x, i)) {
              w.SetNull(i);
              continue;
            }
            w.Set(i, (ValAt<int64_t>(x[1], i) - ValAt<int64_t>(x[0], i)) / unit);
          }
          return Status::OK();
        });
  });
  Reg(r, {"current_timestamp", "now"},
      [](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 0, 0));
        return NowCall(n, TsT(), [](const EvalContext& ec, size_t rows, Vector* out, Status*) {
          FixedWriter<int64_t> w(out, rows);
          for (size_t i = 0; i < rows; ++i) w.Set(i, ec.now_micros);
        });
      });
  Reg(r, {"localtimestamp"},
      [](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 0, 0));
        return NowCall(n, DataType::TimestampNtz(),
                       [](const EvalContext& ec, size_t rows, Vector* out, Status* st) {
                         auto zone = SessionZone(ec);
                         if (!zone.ok()) {
                           *st = zone.status();
                           return;
                         }
                         int64_t v = (*zone)->UtcMicrosToLocal(ec.now_micros);
                         FixedWriter<int64_t> w(out, rows);
                         for (size_t i = 0; i < rows; ++i) w.Set(i, v);
                       });
      });
  Reg(r, {"current_timezone"},
      [](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 0, 0));
        return NowCall(n, DataType::String(),
                       [](const EvalContext& ec, size_t rows, Vector* out, Status*) {
                         for (size_t i = 0; i < rows; ++i) out->AppendString(ec.time_zone);
                       });
      });

  // date_add / date_sub / dateadd
  for (int sub = 0; sub < 2; ++sub) {
    auto names = sub ? std::vector<const char*>{"date_sub"}
                     : std::vector<const char*>{"date_add", "dateadd"};
    for (const char* name : names) {
      Reg(r, {name}, [sub](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
        SILT_RETURN_NOT_OK(DateArg(n, a, 0, c));
        // A string number of days: implicitly cast under ANSI; outside it only a literal is.
        if (!c.ansi && a[1]->type->id() == TypeId::kString && a[1]->kind != ExprKind::kConstant)
          return fn::UnexpectedType(n, 1, "(\"INT\" or \"SMALLINT\" or \"TINYINT\")", a[1]->type);
        SILT_RETURN_NOT_OK(IntArg(n, a, 1, c));
        return MakeCall(
            std::string(n), DateT(), std::move(a),
            [sub](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
              MapBinary<int32_t, int32_t, int32_t>(
                  x[0], x[1], rows, out, [sub](int32_t d, int32_t k) {
                    uint32_t r = sub ? static_cast<uint32_t>(d) - static_cast<uint32_t>(k)
                                     : static_cast<uint32_t>(d) + static_cast<uint32_t>(k);
                    return static_cast<int32_t>(r);
                  });
              return Status::OK();
            });
      });
    }
  }
  Reg(r, {"add_months"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
    SILT_RETURN_NOT_OK(DateArg(n, a, 0, c));
    SILT_RETURN_NOT_OK(IntArg(n, a, 1, c));
    return MakeCall(std::string(n), DateT(), std::move(a),
                    [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                      MapBinary<int32_t, int32_t, int32_t>(
                          x[0], x[1], rows, out, [](int32_t d, int32_t m) {
                            return static_cast<int32_t>(cal::AddMonthsToDays(d, m));
                          });
                      return Status::OK();
                    });
  });
  Reg(r, {"datediff", "date_diff"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
        SILT_RETURN_NOT_OK(DateArg(n, a, 0, c));
        SILT_RETURN_NOT_OK(DateArg(n, a, 1, c));
        return MakeCall(
            std::string(n), IntT(), std::move(a),
            [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
              MapBinary<int32_t, int32_t, int32_t>(x[0], x[1], rows, out, [](int32_t e, int32_t s) {
                return static_cast<int32_t>(static_cast<uint32_t>(e) - static_cast<uint32_t>(s));
              });
              return Status::OK();
            });
      });
  Reg(r, {"months_between"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 3));
        SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, TsT(), c));
        SILT_RETURN_NOT_OK(CoerceArg(n, a, 1, TsT(), c));
        if (a.size() == 3) {
          SILT_RETURN_NOT_OK(CoerceArg(n, a, 2, DataType::Boolean(), c));
        }
        return MakeCall(
            std::string(n), DataType::Double(), std::move(a),
            [](std::span<const Arg> x, size_t rows, const EvalContext& ec, Vector* out) -> Status {
              SILT_ASSIGN_OR_RETURN(TimeZonePtr zone, SessionZone(ec));
              FixedWriter<double> w(out, rows);
              for (size_t i = 0; i < rows; ++i) {
                if (AnyNull(x, i)) {
                  w.SetNull(i);
                  continue;
                }
                bool round_off = x.size() == 3 ? ValAt<uint8_t>(x[2], i) != 0 : true;
                w.Set(i, MonthsBetween(ValAt<int64_t>(x[0], i), ValAt<int64_t>(x[1], i), round_off,
                                       zone.get()));
              }
              return Status::OK();
            });
      });
  Reg(r, {"date_format"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
    if (a[0]->type->id() == TypeId::kTime) a[0] = TimeAsEpochNtz(a[0]);
    SILT_RETURN_NOT_OK(TimestampArg(n, a, 0, c));
    SILT_RETURN_NOT_OK(CoerceArg(n, a, 1, DataType::String(), c));
    bool ntz = a[0]->type->id() == TypeId::kTimestampNtz;
    SILT_ASSIGN_OR_RETURN(PatternSource src, PreparePattern(a[1], false));
    return MakeCall(std::string(n), DataType::String(), std::move(a),
                    [src, ntz](std::span<const Arg> x, size_t rows, const EvalContext& ec,
                               Vector* out) -> Status {
                      TimeZonePtr zone;
                      if (!ntz) {
                        SILT_ASSIGN_OR_RETURN(zone, SessionZone(ec));
                      }
                      PatternCache cache(src, false);
                      StringWriter w(out, rows);
                      for (size_t i = 0; i < rows; ++i) {
                        if (src.null_pattern || AnyNull(x, i)) {
                          w.CommitNull();
                          continue;
                        }
                        SILT_ASSIGN_OR_RETURN(const cal::DateTimePattern* p,
                                              cache.Get(StrAt(x[1], i)));
                        p->Format(ValAt<int64_t>(x[0], i), zone.get(), &w.buf());
                        w.Commit();
                      }
                      w.Finish();
                      return Status::OK();
                    });
  });
  Reg(r, {"to_date"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 2));
    return BindParse(n, a, c, ParseOut::kDate, "");
  });
  Reg(r, {"to_timestamp"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 2));
        return BindParse(n, a, c, ParseOut::kTimestamp, "");
      });
  Reg(r, {"to_timestamp_ntz"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 2));
        return BindParse(n, a, c, ParseOut::kTimestampNtz, "");
      });
  // to_time(str[, fmt]) / try_to_time: Spark's TIME(6) parse; without a format the CAST grammar
  // ("h:m[:s[.f]]"), with one the datetime pattern (its time of day). to_time fails with
  // CANNOT_PARSE_TIME in either mode; try_to_time gives NULL.
  for (bool try_mode : {false, true}) {
    Reg(r, {try_mode ? "try_to_time" : "to_time"},
        [try_mode](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
          SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 2));
          for (size_t i = 0; i < a.size(); ++i) {
            SILT_RETURN_NOT_OK(CoerceArg(n, a, i, DataType::String(), c));
          }
          PatternSource src;
          if (a.size() == 2) {
            SILT_ASSIGN_OR_RETURN(src, PreparePattern(a[1], true));
          }
          return MakeCall(std::string(n), DataType::Time(6), std::move(a),
                          [src, try_mode](std::span<const Arg> x, size_t rows, const EvalContext&,
                                          Vector* out) -> Status {
                            PatternCache cache(src, true);
                            for (size_t i = 0; i < rows; ++i) {
                              if (src.null_pattern || AnyNull(x, i)) {
                                out->AppendNull();
                                continue;
                              }
                              std::string_view text = StrAt(x[0], i);
                              std::string_view fmt;
                              int64_t ns = 0;
                              bool ok;
                              if (x.size() == 2) {
                                fmt = StrAt(x[1], i);
                                SILT_ASSIGN_OR_RETURN(const cal::DateTimePattern* p,
                                                      cache.Get(fmt));
                                std::optional<int64_t> v = p->Parse(text, nullptr);
                                ok = v.has_value();
                                if (ok) ns = FloorMod(*v, kMicrosPerDay) * kNanosPerMicro;
                              } else {
                                ok = ParseTimeText(text, &ns);
                              }
                              if (!ok) {
                                if (!try_mode) return CannotParseTime(text, fmt);
                                out->AppendNull();
                                continue;
                              }
                              out->Append<int64_t>(TruncateNanos(ns, 6));
                            }
                            return Status::OK();
                          });
        });
  }
  // make_time(hour, minute, second DECIMAL(16, 6)) → TIME(6).
  Reg(r, {"make_time"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 3, 3));
    SILT_RETURN_NOT_OK(IntArg(n, a, 0, c));
    SILT_RETURN_NOT_OK(IntArg(n, a, 1, c));
    SILT_RETURN_NOT_OK(CoerceArg(n, a, 2, DataType::Decimal(16, 6), c));
    return MakeCall(
        std::string(n), DataType::Time(6), std::move(a),
        [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
          for (size_t i = 0; i < rows; ++i) {
            if (AnyNull(x, i)) {
              out->AppendNull();
              continue;
            }
            const int32_t h = ValAt<int32_t>(x[0], i), m = ValAt<int32_t>(x[1], i);
            const int128_t sec_u = ValAt<int128_t>(x[2], i);
            const int64_t whole = static_cast<int64_t>(sec_u / 1000000);
            std::string err;
            if (h < 0 || h > 23) {
              err = "Invalid value for HourOfDay (valid values 0 - 23): " + std::to_string(h);
            } else if (m < 0 || m > 59) {
              err = "Invalid value for MinuteOfHour (valid values 0 - 59): " + std::to_string(m);
            } else if (sec_u < 0 || whole > 59) {
              err = "Invalid value for SecondOfMinute (valid values 0 - 59): " +
                    std::to_string(whole);
            }
            if (!err.empty()) return FieldOutOfBounds(err);
            out->Append<int64_t>((int64_t{h} * 3600 + int64_t{m} * 60) * kNanosPerSecond +
                                 static_cast<int64_t>(sec_u) * kNanosPerMicro);
          }
          return Status::OK();
        });
  });
  Reg(r, {"unix_timestamp", "to_unix_timestamp"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, n == "unix_timestamp" ? 0 : 1, 2));
        if (a.empty()) {
          return NowCall(n, LongT(), [](const EvalContext& ec, size_t rows, Vector* out, Status*) {
            FixedWriter<int64_t> w(out, rows);
            for (size_t i = 0; i < rows; ++i) w.Set(i, FloorDiv(ec.now_micros, kMicrosPerSecond));
          });
        }
        return BindParse(n, a, c, ParseOut::kUnixSeconds, "yyyy-MM-dd HH:mm:ss");
      });
  Reg(r, {"from_unixtime"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 2));
        SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, LongT(), c));
        if (a.size() == 2) {
          SILT_RETURN_NOT_OK(CoerceArg(n, a, 1, DataType::String(), c));
        } else {
          auto e = std::make_shared<Expr>();
          e->kind = ExprKind::kConstant;
          e->type = DataType::String();
          e->constant = Value::String("yyyy-MM-dd HH:mm:ss");
          e->nullable = false;
          a.push_back(e);
        }
        SILT_ASSIGN_OR_RETURN(PatternSource src, PreparePattern(a[1], false));
        return MakeCall(std::string(n), DataType::String(), std::move(a),
                        [src](std::span<const Arg> x, size_t rows, const EvalContext& ec,
                              Vector* out) -> Status {
                          SILT_ASSIGN_OR_RETURN(TimeZonePtr zone, SessionZone(ec));
                          PatternCache cache(src, false);
                          StringWriter w(out, rows);
                          for (size_t i = 0; i < rows; ++i) {
                            if (src.null_pattern || AnyNull(x, i)) {
                              w.CommitNull();
                              continue;
                            }
                            SILT_ASSIGN_OR_RETURN(const cal::DateTimePattern* p,
                                                  cache.Get(StrAt(x[1], i)));
                            int64_t secs = ValAt<int64_t>(x[0], i);
                            p->Format(secs * kMicrosPerSecond, zone.get(), &w.buf());
                            w.Commit();
                          }
                          w.Finish();
                          return Status::OK();
                        });
      });

  struct DF {
    const char* name;
    Field f;
  };
  static const DF kDateFields[] = {{"year", Field::kYear},
                                   {"quarter", Field::kQuarter},
                                   {"month", Field::kMonth},
                                   {"day", Field::kDay},
                                   {"dayofmonth", Field::kDay},
                                   {"dayofweek", Field::kDayOfWeek},
                                   {"weekday", Field::kWeekday},
                                   {"dayofyear", Field::kDayOfYear},
                                   {"weekofyear", Field::kWeekOfYear}};
  for (const DF& d : kDateFields) {
    Field f = d.f;
    Reg(r, {d.name}, [f](std::string_view n, Args& a, const BindContext& c) {
      return BindDateField(n, a, c, f);
    });
  }
  static const DF kTimeFields[] = {
      {"hour", Field::kHour}, {"minute", Field::kMinute}, {"second", Field::kSecond}};
  for (const DF& d : kTimeFields) {
    Field f = d.f;
    Reg(r, {d.name}, [f](std::string_view n, Args& a, const BindContext& c) {
      return BindTimeField(n, a, c, f);
    });
  }
  Reg(r, {"date_part", "datepart", "extract"}, BindExtract);

  Reg(r, {"last_day"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
    SILT_RETURN_NOT_OK(DateArg(n, a, 0, c));
    return MakeCall(std::string(n), DateT(), std::move(a),
                    [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                      MapUnary<int32_t, int32_t>(x[0], rows, out, [](int32_t d) {
                        CivilDate cd = CivilFromDays(d);
                        return static_cast<int32_t>(
                            DaysFromCivil(cd.year, cd.month, cal::DaysInMonth(cd.year, cd.month)));
                      });
                      return Status::OK();
                    });
  });
  Reg(r, {"next_day"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
    SILT_RETURN_NOT_OK(DateArg(n, a, 0, c));
    SILT_RETURN_NOT_OK(CoerceArg(n, a, 1, DataType::String(), c));
    bool ansi = c.ansi;
    return MakeCall(
        std::string(n), DateT(), std::move(a),
        [ansi](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
          FixedWriter<int32_t> w(out, rows);
          for (size_t i = 0; i < rows; ++i) {
            if (AnyNull(x, i)) {
              w.SetNull(i);
              continue;
            }
            int dow = DayOfWeekFromName(StrAt(x[1], i));
            if (dow == 0) {
              if (ansi) {
                return Status::InvalidArgument(
                    "Illegal input for day of week: " + std::string(StrAt(x[1], i)) + ".",
                    errc::kIllegalDayOfWeek);
              }
              w.SetNull(i);
              continue;
            }
            int32_t d = ValAt<int32_t>(x[0], i);
            int delta = (dow - cal::IsoDayOfWeek(d) + 7) % 7;
            w.Set(i, d + (delta == 0 ? 7 : delta));
          }
          return Status::OK();
        });
  });
  Reg(r, {"trunc"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
    SILT_RETURN_NOT_OK(DateArg(n, a, 0, c));
    SILT_RETURN_NOT_OK(CoerceArg(n, a, 1, DataType::String(), c));
    return MakeCall(std::string(n), DateT(), std::move(a),
                    [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                      FixedWriter<int32_t> w(out, rows);
                      for (size_t i = 0; i < rows; ++i) {
                        TruncLevel level =
                            AnyNull(x, i) ? kTruncInvalid : ParseTruncLevel(StrAt(x[1], i), true);
                        if (level == kTruncInvalid) {
                          w.SetNull(i);
                        } else {
                          w.Set(i, static_cast<int32_t>(TruncDays(ValAt<int32_t>(x[0], i), level)));
                        }
                      }
                      return Status::OK();
                    });
  });
  Reg(r, {"date_trunc"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
    SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, DataType::String(), c));
    SILT_RETURN_NOT_OK(TimestampArg(n, a, 1, c));
    TypePtr t = a[1]->type;
    bool ntz = t->id() == TypeId::kTimestampNtz;
    return MakeCall(
        std::string(n), t, std::move(a),
        [ntz](std::span<const Arg> x, size_t rows, const EvalContext& ec, Vector* out) -> Status {
          TimeZonePtr zone;
          if (!ntz) {
            SILT_ASSIGN_OR_RETURN(zone, SessionZone(ec));
          }
          FixedWriter<int64_t> w(out, rows);
          for (size_t i = 0; i < rows; ++i) {
            TruncLevel level =
                AnyNull(x, i) ? kTruncInvalid : ParseTruncLevel(StrAt(x[0], i), false);
            if (level == kTruncInvalid) {
              w.SetNull(i);
            } else {
              w.Set(i, TruncTimestamp(ValAt<int64_t>(x[1], i), level, zone.get()));
            }
          }
          return Status::OK();
        });
  });
  // __timestamp_add_interval(ts, months, micros), built by the binder for TIMESTAMP ± INTERVAL:
  // Spark's TimestampAddInterval — the months go to the local date in the session time zone (the
  // day clamped to the month's end, the time of day kept), then the micros to the instant.
  Reg(r, {"__timestamp_add_interval"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 3, 3));
        SILT_RETURN_NOT_OK(TimestampArg(n, a, 0, c));
        SILT_RETURN_NOT_OK(CoerceArg(n, a, 1, DataType::Int64(), c));
        SILT_RETURN_NOT_OK(CoerceArg(n, a, 2, DataType::Int64(), c));
        TypePtr t = a[0]->type;
        bool ntz = t->id() == TypeId::kTimestampNtz;
        return MakeCall(std::string(n), t, std::move(a),
                        [ntz](std::span<const Arg> x, size_t rows, const EvalContext& ec,
                              Vector* out) -> Status {
                          TimeZonePtr zone;
                          if (!ntz) {
                            SILT_ASSIGN_OR_RETURN(zone, SessionZone(ec));
                          }
                          FixedWriter<int64_t> w(out, rows);
                          for (size_t i = 0; i < rows; ++i) {
                            if (AnyNull(x, i)) {
                              w.SetNull(i);
                              continue;
                            }
                            int64_t ts = ValAt<int64_t>(x[0], i);
                            if (int64_t months = ValAt<int64_t>(x[1], i)) {
                              int64_t local = zone ? zone->UtcMicrosToLocal(ts) : ts;
                              int64_t days = FloorDiv(local, cal::kMicrosPerDay);
                              local = cal::AddMonthsToDays(days, months) * cal::kMicrosPerDay +
                                      (local - days * cal::kMicrosPerDay);
                              ts = zone ? zone->LocalMicrosToUtc(local) : local;
                            }
                            w.Set(i, ts + ValAt<int64_t>(x[2], i));
                          }
                          return Status::OK();
                        });
      });
  Reg(r, {"make_date"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 3, 3));
    for (size_t i = 0; i < 3; ++i) {
      SILT_RETURN_NOT_OK(CoerceArg(n, a, i, IntT(), c));
    }
    bool ansi = c.ansi;
    return MakeCall(
        std::string(n), DateT(), std::move(a),
        [ansi](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
          FixedWriter<int32_t> w(out, rows);
          for (size_t i = 0; i < rows; ++i) {
            if (AnyNull(x, i)) {
              w.SetNull(i);
              continue;
            }
            int32_t y = ValAt<int32_t>(x[0], i), m = ValAt<int32_t>(x[1], i),
                    d = ValAt<int32_t>(x[2], i);
            std::string err;
            if (y < -999999999 || y > 999999999) {
              err = "Invalid value for Year (valid values -999999999 - 999999999): " +
                    std::to_string(y);
            } else if (m < 1 || m > 12) {
              err = "Invalid value for MonthOfYear (valid values 1 - 12): " + std::to_string(m);
            } else if (d < 1 || d > cal::DaysInMonth(y, m)) {
              err = "Invalid date '" + std::to_string(y) + "-" + std::to_string(m) + "-" +
                    std::to_string(d) + "'";
            }
            if (!err.empty()) {
              if (ansi) return FieldOutOfBounds(err);
              w.SetNull(i);
              continue;
            }
            w.Set(i, static_cast<int32_t>(DaysFromCivil(y, m, d)));
          }
          return Status::OK();
        });
  });
  // make_timestamp / try_make_timestamp (NULL instead of the field errors) / make_timestamp_ntz.
  for (int kind = 0; kind < 3; ++kind) {
    const bool ntz = kind == 2;
    const char* fname = kind == 0   ? "make_timestamp"
                        : kind == 1 ? "try_make_timestamp"
                                    : "make_timestamp_ntz";
    Reg(r, {fname},
        [ntz, kind](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
          if (!ntz && a.size() >= 1 && a.size() <= 3) return BindMakeTimestampFromDate(n, a, c);
          if (ntz || a.size() != 6) {
            SILT_RETURN_NOT_OK(CheckArity(n, a, 6, ntz ? 6 : 7));
          }
          for (size_t i = 0; i < 5; ++i) {
            SILT_RETURN_NOT_OK(CoerceArg(n, a, i, IntT(), c));
          }
          SILT_RETURN_NOT_OK(CoerceArg(n, a, 5, DataType::Decimal(16, 6), c));
          if (a.size() == 7) {
            SILT_RETURN_NOT_OK(CoerceArg(n, a, 6, DataType::String(), c));
          }
          bool ansi = c.ansi && kind != 1;
          return MakeCall(
              std::string(n), ntz ? DataType::TimestampNtz() : TsT(), std::move(a),
              [ansi, ntz](std::span<const Arg> x, size_t rows, const EvalContext& ec,
                          Vector* out) -> Status {
                TimeZonePtr session;
                if (!ntz) {
                  SILT_ASSIGN_OR_RETURN(session, SessionZone(ec));
                }
                FixedWriter<int64_t> w(out, rows);
                for (size_t i = 0; i < rows; ++i) {
                  if (AnyNull(x, i)) {
                    w.SetNull(i);
                    continue;
                  }
                  int32_t y = ValAt<int32_t>(x[0], i), mo = ValAt<int32_t>(x[1], i),
                          d = ValAt<int32_t>(x[2], i);
                  int32_t h = ValAt<int32_t>(x[3], i), mi = ValAt<int32_t>(x[4], i);
                  int128_t sec_u = ValAt<int128_t>(x[5], i);
                  int64_t whole = static_cast<int64_t>(sec_u / 1000000),
                          frac = static_cast<int64_t>(sec_u % 1000000);
                  std::string err;
                  bool plus_minute = false;
                  if (mo < 1 || mo > 12) {
                    err = "Invalid value for MonthOfYear (valid values 1 - 12): " +
                          std::to_string(mo);
                  } else if (d < 1 || d > cal::DaysInMonth(y, mo)) {
                    err = "Invalid date '" + std::to_string(y) + "-" + std::to_string(mo) + "-" +
                          std::to_string(d) + "'";
                  } else if (h < 0 || h > 23) {
                    err = "Invalid value for HourOfDay (valid values 0 - 23): " + std::to_string(h);
                  } else if (mi < 0 || mi > 59) {
                    err = "Invalid value for MinuteOfHour (valid values 0 - 59): " +
                          std::to_string(mi);
                  } else if (sec_u < 0 || whole > 60 || (whole == 60 && frac != 0)) {
                    err = "Invalid value for SecondOfMinute (valid values 0 - 59): " +
                          std::to_string(whole);
                  } else if (whole == 60) {
                    plus_minute = true;  // 60 seconds with no fraction: the next minute
                    whole = 0;
                  }
                  if (!err.empty()) {
                    if (ansi) return FieldOutOfBounds(err);
                    w.SetNull(i);
                    continue;
                  }
                  int64_t local =
                      ((DaysFromCivil(y, mo, d) * 24 + h) * 60 + mi + (plus_minute ? 1 : 0)) * 60 *
                          kMicrosPerSecond +
                      whole * kMicrosPerSecond + frac;
                  if (ntz) {
                    w.Set(i, local);
                    continue;
                  }
                  const TimeZone* z = session.get();
                  TimeZonePtr explicit_zone;
                  if (x.size() == 7) {
                    auto tz = TimeZone::Find(StrAt(x[6], i));
                    if (!tz.ok()) return tz.status();
                    explicit_zone = *tz;
                    z = explicit_zone.get();
                  }
                  w.Set(i, z->LocalMicrosToUtc(local));
                }
                return Status::OK();
              });
        });
  }
  Reg(r, {"timestamp_seconds"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
        TypeId id = a[0]->type->id();
        if (!fn::IsNumericId(id)) {
          SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, LongT(), c));
        }
        return MakeCall(
            std::string(n), TsT(), std::move(a),
            [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
              FixedWriter<int64_t> w(out, rows);
              const Vector& v = *x[0].vector;
              for (size_t i = 0; i < rows; ++i) {
                if (NullAt(x[0], i)) {
                  w.SetNull(i);
                  continue;
                }
                size_t r = x[0].index(i);
                int64_t micros;
                switch (v.id()) {
                  case TypeId::kFloat:
                  case TypeId::kDouble: {
                    double d = v.id() == TypeId::kFloat ? v.data<float>()[r] : v.data<double>()[r];
                    if (!std::isfinite(d)) {
                      w.SetNull(i);
                      continue;
                    }
                    micros = static_cast<int64_t>(d * 1e6);
                    break;
                  }
                  case TypeId::kDecimal: {
                    int s = v.type()->scale();
                    int128_t u = v.data<int128_t>()[r];
                    int128_t m = s <= 6 ? u * static_cast<int128_t>(std::pow(10, 6 - s))
                                        : u / static_cast<int128_t>(std::pow(10, s - 6));
                    if (m > INT64_MAX || m < INT64_MIN)
                      return Status::InvalidArgument("Overflow in timestamp_seconds",
                                                     errc::kArithmeticOverflow);
                    micros = static_cast<int64_t>(m);
                    break;
                  }
                  default: {
                    int64_t s = static_cast<int64_t>(v.GetValue(r).integer());
                    if (__builtin_mul_overflow(s, kMicrosPerSecond, &micros)) {
                      return Status::InvalidArgument(
                          "Datetime operation overflow: create a TIMESTAMP from " +
                              std::to_string(s) + "L seconds since the epoch.",
                          errc::kDatetimeOverflow);
                    }
                  }
                }
                w.Set(i, micros);
              }
              return Status::OK();
            });
      });
  for (int64_t unit : {int64_t{1000}, int64_t{1}}) {
    Reg(r, {unit == 1000 ? "timestamp_millis" : "timestamp_micros"},
        [unit](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
          SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
          SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, LongT(), c));
          return MakeCall(std::string(n), TsT(), std::move(a),
                          [unit](std::span<const Arg> x, size_t rows, const EvalContext&,
                                 Vector* out) -> Status {
                            FixedWriter<int64_t> w(out, rows);
                            for (size_t i = 0; i < rows; ++i) {
                              if (NullAt(x[0], i)) {
                                w.SetNull(i);
                                continue;
                              }
                              int64_t m;
                              if (__builtin_mul_overflow(ValAt<int64_t>(x[0], i), unit, &m)) {
                                return Status::InvalidArgument(
                                    "Datetime operation overflow: create a TIMESTAMP from " +
                                        std::to_string(ValAt<int64_t>(x[0], i)) + "L " +
                                        (unit == 1000 ? "milliseconds" : "microseconds") +
                                        " since the epoch.",
                                    errc::kDatetimeOverflow);
                              }
                              w.Set(i, m);
                            }
                            return Status::OK();
                          });
        });
  }
  Reg(r, {"unix_date"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
    SILT_RETURN_NOT_OK(DateArg(n, a, 0, c));
    return MakeCall(std::string(n), IntT(), std::move(a),
                    [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                      MapUnary<int32_t, int32_t>(x[0], rows, out, [](int32_t d) { return d; });
                      return Status::OK();
                    });
  });
  Reg(r, {"date_from_unix_date"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
        SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, IntT(), c));
        return MakeCall(std::string(n), DateT(), std::move(a),
                        [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                          MapUnary<int32_t, int32_t>(x[0], rows, out, [](int32_t d) { return d; });
                          return Status::OK();
                        });
      });
  static const std::pair<const char*, int64_t> kUnixUnits[] = {
      {"unix_seconds", kMicrosPerSecond}, {"unix_millis", 1000}, {"unix_micros", 1}};
  for (const auto& [uname, div] : kUnixUnits) {
    int64_t d = div;
    Reg(r, {uname}, [d](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
      SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
      SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, TsT(), c));
      return MakeCall(std::string(n), LongT(), std::move(a),
                      [d](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                        MapUnary<int64_t, int64_t>(x[0], rows, out,
                                                   [d](int64_t v) { return FloorDiv(v, d); });
                        return Status::OK();
                      });
    });
  }
  for (int to_utc = 0; to_utc < 2; ++to_utc) {
    Reg(r, {to_utc ? "to_utc_timestamp" : "from_utc_timestamp"},
        [to_utc](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
          SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
          SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, TsT(), c));
          SILT_RETURN_NOT_OK(CoerceArg(n, a, 1, DataType::String(), c));
          TimeZonePtr fixed;
          if (const Value* v = ConstantOf(a[1]); v && !v->is_null()) {
            SILT_ASSIGN_OR_RETURN(fixed, TimeZone::Find(v->str()));
          }
          return MakeCall(std::string(n), TsT(), std::move(a),
                          [to_utc, fixed](std::span<const Arg> x, size_t rows, const EvalContext&,
                                          Vector* out) -> Status {
                            FixedWriter<int64_t> w(out, rows);
                            for (size_t i = 0; i < rows; ++i) {
                              if (AnyNull(x, i)) {
                                w.SetNull(i);
                                continue;
                              }
                              TimeZonePtr zone = fixed;
                              if (!zone) {
                                SILT_ASSIGN_OR_RETURN(zone, TimeZone::Find(StrAt(x[1], i)));
                              }
                              int64_t v = ValAt<int64_t>(x[0], i);
                              w.Set(i,
                                    to_utc ? zone->LocalMicrosToUtc(v) : zone->UtcMicrosToLocal(v));
                            }
                            return Status::OK();
                          });
        });
  }
}

}  // namespace silt::exec
