// Spark's ANSI interval types in expressions: year-month intervals (int32 months) and day-time
// intervals (int64 microseconds). Arithmetic as Spark 4 resolves it (BinaryArithmeticWithDatetime
// Resolver, MultiplyYMInterval / DivideDTInterval, SubtractTimestamps, SubtractDates, DateAdd
// YMInterval, TimestampAddInterval), unary minus / abs, make_ym_interval and make_dt_interval.
// Overflow raises INTERVAL_ARITHMETIC_OVERFLOW (or ARITHMETIC_OVERFLOW where Spark uses the plain
// Java exact operations), division by zero INTERVAL_DIVIDED_BY_ZERO.
#include <cmath>
#include <limits>
#include <type_traits>

#include "common/error_classes.h"
#include "exec/cast.h"
#include "exec/function_registry.h"
#include "exec/functions/datetime_calendar.h"
#include "exec/functions/function_util.h"
#include "vector/calendar_interval.h"
#include "vector/time_text.h"

namespace silt::exec::fn {

namespace {

using Args = std::vector<ExprPtr>;
using cal::kMicrosPerDay;
using cal::TimeZone;
using cal::TimeZonePtr;

bool IsYm(const TypePtr& t) { return t->id() == TypeId::kYearMonthInterval; }
bool IsDt(const TypePtr& t) { return t->id() == TypeId::kDayTimeInterval; }
bool IsInterval(const TypePtr& t) { return IsYm(t) || IsDt(t); }

Status IntervalOverflow(std::string_view what) {
  return Status::InvalidArgument("Interval value overflows after being " + std::string(what) +
                                     ". If necessary set \"spark.sql.ansi.enabled\" to \"false\" "
                                     "to bypass this error.",
                                 errc::kIntervalArithmeticOverflow);
}

Status LongOverflow(std::string_view what) {
  return Status::InvalidArgument(std::string(what) + " overflow.", errc::kArithmeticOverflow);
}

Status DividedByZero() {
  return Status::InvalidArgument(
      "Division by zero. Use `try_divide` to tolerate divisor being 0 "
      "and return NULL instead.",
      errc::kIntervalDividedByZero);
}

Status OperandError(std::string_view sql, const std::string& detail) {
  return Status::InvalidArgument(
      "Cannot resolve \"" + std::string(sql) + "\" due to data type mismatch: " + detail,
      errc::kDatatypeMismatchBinaryOpDiffTypes);
}

std::string Sql(const Args& a, char op) {
  return "(" + a[0]->ToString() + " " + op + " " + a[1]->ToString() + ")";
}

// Java's RoundingMode.HALF_UP of a / b (b != 0).
int64_t DivHalfUp(int64_t a, int64_t b) {
  int64_t q = a / b, r = a % b;
  if (r != 0) {
    unsigned __int128 r2 =
        static_cast<unsigned __int128>(r < 0 ? -static_cast<__int128>(r) : r) * 2;
    unsigned __int128 bb = static_cast<unsigned __int128>(b < 0 ? -static_cast<__int128>(b) : b);
    if (r2 >= bb) q += ((a < 0) != (b < 0)) ? -1 : 1;
  }
  return q;
}

// HALF_UP of an int128 quotient.
__int128 DivHalfUp128(__int128 a, __int128 b) {
  __int128 q = a / b, r = a % b;
  if (r != 0) {
    __int128 r2 = (r < 0 ? -r : r) * 2, bb = b < 0 ? -b : b;
    if (r2 >= bb) q += ((a < 0) != (b < 0)) ? -1 : 1;
  }
  return q;
}

// The common year-month / day-time type of two intervals of one kind: the widest fields.
TypePtr WidenInterval(const TypePtr& a, const TypePtr& b) {
  int s = std::min(a->interval_start(), b->interval_start());
  int e = std::max(a->interval_end(), b->interval_end());
  return IsYm(a) ? DataType::YearMonthInterval(s, e) : DataType::DayTimeInterval(s, e);
}

// A kernel over two fixed-width operands producing a fixed-width result, NULL on any NULL. f gets
// the session time zone when `zoned` (looked up once per batch), else nullptr.
template <typename A, typename B, typename R, typename F>
ExprPtr Binary2(std::string name, TypePtr rt, Args a, F f, bool zoned = false) {
  return MakeCall(std::move(name), std::move(rt), std::move(a),
                  [f, zoned](std::span<const Arg> x, size_t rows, const EvalContext& ec,
                             Vector* out) -> Status {
                    TimeZonePtr zone;
                    if (zoned) {
                      SILT_ASSIGN_OR_RETURN(
                          zone, TimeZone::Find(ec.time_zone.empty() ? "UTC" : ec.time_zone));
                    }
                    FixedWriter<R> w(out, rows);
                    for (size_t i = 0; i < rows; ++i) {
                      if (NullAt(x[0], i) || NullAt(x[1], i)) {
                        w.SetNull(i);
                        continue;
                      }
                      R r;
                      SILT_RETURN_NOT_OK(f(ValAt<A>(x[0], i), ValAt<B>(x[1], i), zone.get(), &r));
                      w.Set(i, r);
                    }
                    return Status::OK();
                  });
}

// interval ± interval (same kind).
Result<ExprPtr> BindIntervalPlusInterval(std::string_view name, char op, Args& a) {
  const bool sub = op == '-';
  if (IsYm(a[0]->type) != IsYm(a[1]->type)) {
    return OperandError(Sql(a, op),
                        "the left and right operands of the binary operator have "
                        "incompatible types (\"" +
                            a[0]->type->ToString() + "\" and \"" + a[1]->type->ToString() + "\").");
  }
  TypePtr rt = WidenInterval(a[0]->type, a[1]->type);
  if (IsYm(rt)) {
    return Binary2<int32_t, int32_t, int32_t>(
        std::string(name), rt, std::move(a),
        [sub](int32_t x, int32_t y, const TimeZone*, int32_t* r) -> Status {
          int64_t v = sub ? int64_t{x} - y : int64_t{x} + y;
          if (v > INT32_MAX || v < INT32_MIN) return IntervalOverflow(sub ? "subtracted" : "added");
          *r = static_cast<int32_t>(v);
          return Status::OK();
        });
  }
  return Binary2<int64_t, int64_t, int64_t>(
      std::string(name), rt, std::move(a),
      [sub](int64_t x, int64_t y, const TimeZone*, int64_t* r) -> Status {
        bool ovf = sub ? __builtin_sub_overflow(x, y, r) : __builtin_add_overflow(x, y, r);
        if (ovf) return LongOverflow("long");
        return Status::OK();
      });
}

// date/timestamp ± interval (the interval second; sub negates it).
Result<ExprPtr> BindDatetimePlusInterval(std::string_view name, bool sub, Args& a,
                                         const BindContext& ctx) {
  TypeId x = a[0]->type->id();
  const TypePtr& it = a[1]->type;
  if (x == TypeId::kNull) {
    SILT_ASSIGN_OR_RETURN(a[0], CoerceTo(a[0], DataType::Timestamp(), ctx));
    x = TypeId::kTimestamp;
  }
  if (x == TypeId::kDate && IsYm(it)) {
    return Binary2<int32_t, int32_t, int32_t>(
        std::string(name), DataType::Date(), std::move(a),
        [sub](int32_t d, int32_t m, const TimeZone*, int32_t* r) -> Status {
          int64_t months = sub ? -int64_t{m} : m;
          int64_t days = cal::AddMonthsToDays(d, months);
          if (days > INT32_MAX || days < INT32_MIN) return LongOverflow("integer");
          *r = static_cast<int32_t>(days);
          return Status::OK();
        });
  }
  if (x == TypeId::kDate && IsDt(it) && it->interval_start() == kIntervalDay &&
      it->interval_end() == kIntervalDay) {
    return Binary2<int32_t, int64_t, int32_t>(
        std::string(name), DataType::Date(), std::move(a),
        [sub](int32_t d, int64_t us, const TimeZone*, int32_t* r) -> Status {
          int64_t days = us / kMicrosPerDay;
          int64_t v = sub ? int64_t{d} - days : int64_t{d} + days;
          if (v > INT32_MAX || v < INT32_MIN) return LongOverflow("integer");
          *r = static_cast<int32_t>(v);
          return Status::OK();
        });
  }
  if (x == TypeId::kDate || x == TypeId::kString) {
    SILT_ASSIGN_OR_RETURN(a[0], CoerceTo(a[0], DataType::Timestamp(), ctx));
    x = TypeId::kTimestamp;
  }
  if (x != TypeId::kTimestamp && x != TypeId::kTimestampNtz) {
    return Status::InvalidArgument(
        "Cannot resolve \"" + Sql(a, sub ? '-' : '+') + "\" due to data type mismatch: " +
            "the binary operator requires the input type (\"NUMERIC\" or \"INTERVAL DAY TO "
            "SECOND\" or \"INTERVAL YEAR TO MONTH\" or \"INTERVAL\"), not \"" +
            a[0]->type->ToString() + "\".",
        errc::kDatatypeMismatchBinaryOpDiffTypes);
  }
  TypePtr rt = a[0]->type;
  const bool ntz = x == TypeId::kTimestampNtz;
  if (IsYm(it)) {
    return Binary2<int64_t, int32_t, int64_t>(
        std::string(name), rt, std::move(a),
        [sub](int64_t ts, int32_t m, const TimeZone* zone, int64_t* r) -> Status {
          *r = cal::AddMonthsToMicros(ts, sub ? -int64_t{m} : m, zone);
          return Status::OK();
        },
        !ntz);
  }
  return Binary2<int64_t, int64_t, int64_t>(
      std::string(name), rt, std::move(a),
      [sub](int64_t ts, int64_t us, const TimeZone*, int64_t* r) -> Status {
        bool ovf = sub ? __builtin_sub_overflow(ts, us, r) : __builtin_add_overflow(ts, us, r);
        if (ovf) return LongOverflow("long");
        return Status::OK();
      });
}

// interval * number, interval / number.
Result<ExprPtr> BindIntervalScale(std::string_view name, char op, Args& a, const BindContext& ctx) {
  const bool div = op == '/';
  TypeId n = a[1]->type->id();
  if (n == TypeId::kNull || n == TypeId::kString) {
    SILT_ASSIGN_OR_RETURN(
        a[1], CoerceTo(a[1], n == TypeId::kNull ? DataType::Int64() : DataType::Double(), ctx));
    n = a[1]->type->id();
  }
  if (!IsNumeric(n)) {
    return Status::InvalidArgument(
        "Cannot resolve \"" + Sql(a, op) + "\" due to data type mismatch: the " +
            (div ? "divisor" : "multiplier") + " requires the \"NUMERIC\" type, not \"" +
            a[1]->type->ToString() + "\".",
        errc::kDatatypeMismatchUnexpectedInputType);
  }
  TypePtr rt = a[0]->type;
  const bool ym = IsYm(rt);
  const int64_t lo = ym ? INT32_MIN : INT64_MIN, hi = ym ? INT32_MAX : INT64_MAX;
  const char* what = div ? "divided" : "multiplied";
  if (IsIntegral(n)) {
    SILT_ASSIGN_OR_RETURN(a[1], CoerceTo(a[1], DataType::Int64(), ctx));
    auto f = [div, lo, hi, what](int64_t v, int64_t k, int64_t* r) -> Status {
      if (div) {
        if (k == 0) return DividedByZero();
        if (v == lo && k == -1) return IntervalOverflow(what);
        *r = DivHalfUp(v, k);
        return Status::OK();
      }
      __int128 p = static_cast<__int128>(v) * k;
      if (p > hi || p < lo) return LongOverflow(hi == INT32_MAX ? "integer" : "long");
      *r = static_cast<int64_t>(p);
      return Status::OK();
    };
    if (ym) {
      return Binary2<int32_t, int64_t, int32_t>(
          std::string(name), rt, std::move(a),
          [f](int32_t v, int64_t k, const TimeZone*, int32_t* r) -> Status {
            int64_t out;
            SILT_RETURN_NOT_OK(f(v, k, &out));
            *r = static_cast<int32_t>(out);
            return Status::OK();
          });
    }
    return Binary2<int64_t, int64_t, int64_t>(
        std::string(name), rt, std::move(a),
        [f](int64_t v, int64_t k, const TimeZone*, int64_t* r) { return f(v, k, r); });
  }
  if (n == TypeId::kDecimal && a[1]->type->precision() <= 18) {
    const int scale = a[1]->type->scale();
    auto f = [div, lo, hi, scale, what](int64_t v, int128_t k, int64_t* r) -> Status {
      __int128 q;
      if (div) {
        if (k == 0) return DividedByZero();
        // v / (k / 10^s) = v * 10^s / k, HALF_UP.
        q = DivHalfUp128(static_cast<__int128>(v) * Pow10(scale), k);
      } else {
        q = DivHalfUp128(static_cast<__int128>(v) * k, Pow10(scale));
      }
      if (q > hi || q < lo) return IntervalOverflow(what);
      *r = static_cast<int64_t>(q);
      return Status::OK();
    };
    if (ym) {
      return Binary2<int32_t, int128_t, int32_t>(
          std::string(name), rt, std::move(a),
          [f](int32_t v, int128_t k, const TimeZone*, int32_t* r) -> Status {
            int64_t out;
            SILT_RETURN_NOT_OK(f(v, k, &out));
            *r = static_cast<int32_t>(out);
            return Status::OK();
          });
    }
    return Binary2<int64_t, int128_t, int64_t>(
        std::string(name), rt, std::move(a),
        [f](int64_t v, int128_t k, const TimeZone*, int64_t* r) { return f(v, k, r); });
  }
  SILT_ASSIGN_OR_RETURN(a[1], CoerceTo(a[1], DataType::Double(), ctx));
  auto f = [div, lo, hi, what](int64_t v, double k, int64_t* r) -> Status {
    if (div && k == 0) return DividedByZero();
    double q = div ? static_cast<double>(v) / k : static_cast<double>(v) * k;
    if (std::isnan(q)) return IntervalOverflow(what);
    q = std::round(q);  // HALF_UP (away from zero), as Guava's DoubleMath with HALF_UP
    if (!(q >= static_cast<double>(lo) && q < static_cast<double>(hi) + 1.0)) {
      return IntervalOverflow(what);
    }
    *r = q >= 9223372036854775807.0 ? INT64_MAX : static_cast<int64_t>(q);
    return Status::OK();
  };
  if (ym) {
    return Binary2<int32_t, double, int32_t>(
        std::string(name), rt, std::move(a),
        [f](int32_t v, double k, const TimeZone*, int32_t* r) -> Status {
          int64_t out;
          SILT_RETURN_NOT_OK(f(v, k, &out));
          *r = static_cast<int32_t>(out);
          return Status::OK();
        });
  }
  return Binary2<int64_t, double, int64_t>(
      std::string(name), rt, std::move(a),
      [f](int64_t v, double k, const TimeZone*, int64_t* r) { return f(v, k, r); });
}

// timestamp - timestamp (and date/timestamp mixes) → interval day to second; date - date →
// interval day.
Result<ExprPtr> BindDatetimeDiff(std::string_view name, Args& a, const BindContext& ctx) {
  TypeId x = a[0]->type->id(), y = a[1]->type->id();
  if (x == TypeId::kDate && y == TypeId::kDate) {
    return Binary2<int32_t, int32_t, int64_t>(
        std::string(name), DataType::DayTimeInterval(kIntervalDay, kIntervalDay), std::move(a),
        [](int32_t p, int32_t q, const TimeZone*, int64_t* r) {
          *r = (int64_t{p} - q) * kMicrosPerDay;
          return Status::OK();
        });
  }
  const bool ntz = x == TypeId::kTimestampNtz && y == TypeId::kTimestampNtz;
  if (!ntz) {
    for (auto& e : a) {
      if (e->type->id() != TypeId::kTimestamp) {
        SILT_ASSIGN_OR_RETURN(e, CoerceTo(e, DataType::Timestamp(), ctx));
      }
    }
  }
  // Spark's DateTimeUtils.subtractTimestamps: the difference of the local date-times in the
  // session time zone (so a DST change between them does not count).
  return Binary2<int64_t, int64_t, int64_t>(
      std::string(name), DataType::DayTimeInterval(), std::move(a),
      [](int64_t p, int64_t q, const TimeZone* zone, int64_t* r) -> Status {
        if (zone) {
          p = zone->UtcMicrosToLocal(p);
          q = zone->UtcMicrosToLocal(q);
        }
        if (__builtin_sub_overflow(p, q, r)) return LongOverflow("long");
        return Status::OK();
      },
      !ntz);
}

bool IsDatetimeId(TypeId t) {
  return t == TypeId::kDate || t == TypeId::kTimestamp || t == TypeId::kTimestampNtz;
}

}  // namespace

// TIME - TIME: an INTERVAL HOUR TO SECOND (microseconds, the nanoseconds dropped toward zero).
// TIME ± day-time interval: a TIME of the wider precision (6 when the interval has seconds),
// DATETIME_OVERFLOW outside the day.
Result<ExprPtr> BindTimeArith(std::string_view name, char op, Args& a) {
  const TypePtr l = a[0]->type, r = a[1]->type;
  if (r->id() == TypeId::kTime) {
    return MakeCall(
        std::string(name), DataType::DayTimeInterval(kIntervalHour, kIntervalSecond), std::move(a),
        [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
          FixedWriter<int64_t> w(out, rows);
          for (size_t i = 0; i < rows; ++i) {
            if (AnyNull(x, i)) {
              w.SetNull(i);
              continue;
            }
            w.Set(i, (ValAt<int64_t>(x[0], i) - ValAt<int64_t>(x[1], i)) / kNanosPerMicro);
          }
          return Status::OK();
        });
  }
  if (r->id() == TypeId::kYearMonthInterval) {
    return OperandError(Sql(a, op),
                        "the left and right operands of the binary operator have incompatible "
                        "types (\"" +
                            l->ToString() + "\" and \"" + r->ToString() + "\").");
  }
  const int p = std::max(l->precision(), r->interval_end() == kIntervalSecond ? 6 : 0);
  const bool minus = op == '-';
  std::string sql = Sql(a, op);
  return MakeCall(
      std::string(name), DataType::Time(p), std::move(a),
      [minus, sql](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
        FixedWriter<int64_t> w(out, rows);
        for (size_t i = 0; i < rows; ++i) {
          if (AnyNull(x, i)) {
            w.SetNull(i);
            continue;
          }
          const __int128 us = ValAt<int64_t>(x[1], i);
          const __int128 v = ValAt<int64_t>(x[0], i) + (minus ? -us : us) * kNanosPerMicro;
          if (v < 0 || v >= kNanosPerDay) {
            return Status::InvalidArgument("Datetime operation overflow: " + sql + ".",
                                           errc::kDatetimeOverflow);
          }
          w.Set(i, static_cast<int64_t>(v));
        }
        return Status::OK();
      });
}

bool IsCal(const TypePtr& t) { return t->id() == TypeId::kCalendarInterval; }

Status CalOverflow(const char* what) {
  return Status::InvalidArgument(std::string(what) +
                                     " overflow. If necessary set \"spark.sql.ansi.enabled\" to "
                                     "\"false\" to bypass this error.",
                                 errc::kArithmeticOverflow);
}

// DateTimeUtils.timestampAddInterval: months then days on the local date-time in `zone` (none for
// timestamp_ntz), then the microseconds on the instant; false on overflow.
bool TimestampAddCalendar(int64_t ts, const CalendarInterval& c, const TimeZone* zone,
                          int64_t* out) {
  int64_t t = ts;
  if (c.months != 0 || c.days != 0) {
    int64_t local = zone ? zone->UtcMicrosToLocal(ts) : ts;
    int64_t days = FloorDiv(local, kMicrosPerDay);
    int64_t tod = local - days * kMicrosPerDay;
    days = cal::AddMonthsToDays(days, c.months) + c.days;
    __int128 l = static_cast<__int128>(days) * kMicrosPerDay + tod;
    if (l > INT64_MAX || l < INT64_MIN) return false;
    t = zone ? zone->LocalMicrosToUtc(static_cast<int64_t>(l)) : static_cast<int64_t>(l);
  }
  return !__builtin_add_overflow(t, c.microseconds, out);
}

// Spark's legacy calendar interval in + - * / : Add / Subtract of two (IntervalUtils.addExact,
// wrapping when not ANSI), TimeAdd and DateAddInterval with a date or timestamp,
// MultiplyInterval / DivideInterval by a number (IntervalUtils.fromDoubles: the fraction of a
// day goes to microseconds, a fraction of a month is dropped). Overflow and a zero divisor fail
// under ANSI and give NULL otherwise (* and /) — Spark's own exceptions there carry no class.
Result<ExprPtr> BindCalendarArith(std::string_view name, char op, Args& a, const BindContext& ctx) {
  const bool ansi = ctx.ansi;
  for (int k = 0; k < 2; ++k) {
    if (a[k]->type->id() == TypeId::kNull && IsCal(a[1 - k]->type) && (op == '+' || op == '-')) {
      SILT_ASSIGN_OR_RETURN(a[k], CoerceTo(a[k], DataType::CalendarInterval(), ctx));
    }
  }
  TypeId x = a[0]->type->id(), y = a[1]->type->id();
  bool lc = x == TypeId::kCalendarInterval, rc = y == TypeId::kCalendarInterval;
  auto mismatch = [&]() {
    return OperandError(Sql(a, op),
                        "the left and right operands of the binary operator have "
                        "incompatible types (\"" +
                            a[0]->type->ToString() + "\" and \"" + a[1]->type->ToString() + "\").");
  };
  if ((op == '+' || op == '-') && lc && rc) {
    const bool sub = op == '-';
    return Binary2<int128_t, int128_t, int128_t>(
        std::string(name), DataType::CalendarInterval(), std::move(a),
        [sub, ansi](int128_t p, int128_t q, const TimeZone*, int128_t* r) -> Status {
          CalendarInterval u = UnpackCalendarInterval(p), v = UnpackCalendarInterval(q), w;
          auto step = [sub](auto p, auto q, auto* out) {
            return sub ? __builtin_sub_overflow(p, q, out) : __builtin_add_overflow(p, q, out);
          };
          const bool ovf_m = step(u.months, v.months, &w.months);
          const bool ovf_d = step(u.days, v.days, &w.days);
          const bool ovf_us = step(u.microseconds, v.microseconds, &w.microseconds);
          if (ansi && (ovf_m || ovf_d || ovf_us)) {
            return CalOverflow(ovf_us && !ovf_m && !ovf_d ? "long" : "integer");
          }
          *r = PackCalendarInterval(w);
          return Status::OK();
        });
  }
  if (op == '+' && lc && (x != y) &&
      (y == TypeId::kDate || y == TypeId::kTimestamp || y == TypeId::kTimestampNtz ||
       y == TypeId::kNull)) {
    std::swap(a[0], a[1]);
    std::swap(x, y);
    std::swap(lc, rc);
  }
  if ((op == '+' || op == '-') && rc) {
    const bool sub = op == '-';
    if (x == TypeId::kNull) {
      SILT_ASSIGN_OR_RETURN(a[0], CoerceTo(a[0], DataType::Timestamp(), ctx));
      x = TypeId::kTimestamp;
    }
    auto negate = [sub](int128_t p, CalendarInterval* c) {
      *c = UnpackCalendarInterval(p);
      if (!sub) return true;
      if (c->months == INT32_MIN || c->days == INT32_MIN || c->microseconds == INT64_MIN) {
        return false;
      }
      *c = {-c->months, -c->days, -c->microseconds};
      return true;
    };
    if (x == TypeId::kDate) {
      return Binary2<int32_t, int128_t, int32_t>(
          std::string(name), DataType::Date(), std::move(a),
          [ansi, negate](int32_t d, int128_t p, const TimeZone* zone, int32_t* r) -> Status {
            CalendarInterval c;
            if (!negate(p, &c)) return CalOverflow("integer");
            int64_t days;
            if (c.microseconds == 0) {
              days = cal::AddMonthsToDays(d, c.months) + c.days;
            } else if (ansi) {
              return Status::InvalidArgument(
                  "Cannot add an interval to a date because its microseconds part is not 0. If "
                  "necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.",
                  errc::kInvalidIntervalWithMicrosecondsAddition);
            } else {
              // Through the timestamp of the date's midnight in the session time zone.
              int64_t ts;
              if (!TimestampAddCalendar(zone->LocalMicrosToUtc(int64_t{d} * kMicrosPerDay), c, zone,
                                        &ts)) {
                return CalOverflow("long");
              }
              days = FloorDiv(zone->UtcMicrosToLocal(ts), kMicrosPerDay);
            }
            if (days > INT32_MAX || days < INT32_MIN) return CalOverflow("integer");
            *r = static_cast<int32_t>(days);
            return Status::OK();
          },
          true);
    }
    if (x == TypeId::kTimestamp || x == TypeId::kTimestampNtz) {
      TypePtr rt = a[0]->type;
      const bool ntz = x == TypeId::kTimestampNtz;
      return Binary2<int64_t, int128_t, int64_t>(
          std::string(name), rt, std::move(a),
          [negate](int64_t ts, int128_t p, const TimeZone* zone, int64_t* r) -> Status {
            CalendarInterval c;
            if (!negate(p, &c) || !TimestampAddCalendar(ts, c, zone, r)) {
              return CalOverflow("long");
            }
            return Status::OK();
          },
          !ntz);
    }
    return mismatch();
  }
  if ((op == '*' && (lc != rc)) || (op == '/' && lc && !rc)) {
    if (rc) std::swap(a[0], a[1]);
    const TypeId n = a[1]->type->id();
    if (!IsNumeric(n) && n != TypeId::kNull && n != TypeId::kString) return mismatch();
    SILT_ASSIGN_OR_RETURN(a[1], CoerceTo(a[1], DataType::Double(), ctx));
    const bool div = op == '/';
    return MakeCall(
        std::string(name), DataType::CalendarInterval(), std::move(a),
        [div, ansi](std::span<const Arg> x, size_t rows, const EvalContext&,
                    Vector* out) -> Status {
          FixedWriter<int128_t> w(out, rows);
          for (size_t i = 0; i < rows; ++i) {
            if (AnyNull(x, i)) {
              w.SetNull(i);
              continue;
            }
            const CalendarInterval c = UnpackCalendarInterval(ValAt<int128_t>(x[0], i));
            const double k = ValAt<double>(x[1], i);
            if (div && k == 0) {
              if (ansi) return DividedByZero();
              w.SetNull(i);
              continue;
            }
            auto scale = [&](double v) { return div ? v / k : v * k; };
            const double m = scale(c.months), d = scale(c.days), us = scale(c.microseconds);
            // Java's double.toLong saturates (NaN is 0), then Math.toIntExact.
            auto to_long = [](double v) -> int64_t {
              if (std::isnan(v)) return 0;
              if (v >= 9223372036854775807.0) return INT64_MAX;
              if (v <= -9223372036854775808.0) return INT64_MIN;
              return static_cast<int64_t>(v);
            };
            const int64_t tm = to_long(m), td = to_long(d);
            if (tm > INT32_MAX || tm < INT32_MIN || td > INT32_MAX || td < INT32_MIN) {
              if (ansi) return CalOverflow("integer");
              w.SetNull(i);
              continue;
            }
            // Math.round: floor(v + 0.5), saturating.
            const double micros = us + static_cast<double>(kMicrosPerDay) * (d - td);
            w.Set(i, PackCalendarInterval({static_cast<int32_t>(tm), static_cast<int32_t>(td),
                                           to_long(std::floor(micros + 0.5))}));
          }
          return Status::OK();
        });
  }
  return mismatch();
}

Result<ExprPtr> BindIntervalArith(std::string_view name, char op, std::vector<ExprPtr>& a,
                                  const BindContext& ctx) {
  if (a.size() != 2) return ExprPtr();
  if (IsCal(a[0]->type) || IsCal(a[1]->type)) return BindCalendarArith(name, op, a, ctx);
  const TypePtr l = a[0]->type, r = a[1]->type;
  const bool li = IsInterval(l), ri = IsInterval(r);
  TypeId x = l->id(), y = r->id();
  if (x == TypeId::kTime &&
      ((op == '-' && y == TypeId::kTime) || ((op == '-' || op == '+') && ri))) {
    return BindTimeArith(name, op, a);
  }
  if (op == '+' && li && y == TypeId::kTime) {
    std::swap(a[0], a[1]);
    return BindTimeArith(name, op, a);
  }
  if (!li && !ri) {
    // A datetime + NULL: the NULL is read as an interval, so the sum is a NULL timestamp (Spark's
    // TimeAdd; a date becomes a timestamp first).
    if (op == '+' &&
        ((IsDatetimeId(x) && y == TypeId::kNull) || (x == TypeId::kNull && IsDatetimeId(y)))) {
      const TypeId d = x == TypeId::kNull ? y : x;
      return MakeConstant(Value::Null(d == TypeId::kTimestampNtz ? DataType::TimestampNtz()
                                                                 : DataType::Timestamp()));
    }
    if (op != '-') return ExprPtr();
    // date - 'string' / NULL and the like: the other side takes the datetime's type first (a
    // string only under ANSI; Spark's legacy coercion has only 'string' - date).
    const bool ansi = ctx.ansi;
    auto soft = [ansi](TypeId t) { return t == TypeId::kNull || (ansi && t == TypeId::kString); };
    if (IsDatetimeId(x) && soft(y)) {
      SILT_ASSIGN_OR_RETURN(a[1], CoerceTo(a[1], l, ctx));
    } else if (IsDatetimeId(y) && (soft(x) || (x == TypeId::kString && y == TypeId::kDate))) {
      SILT_ASSIGN_OR_RETURN(a[0], CoerceTo(a[0], r, ctx));
    }
    if (IsDatetimeId(a[0]->type->id()) && IsDatetimeId(a[1]->type->id())) {
      return BindDatetimeDiff(name, a, ctx);
    }
    return ExprPtr();
  }
  switch (op) {
    case '+':
    case '-':
      if (li && ri) return BindIntervalPlusInterval(name, op, a);
      if (ri && y != TypeId::kNull &&
          (IsDatetimeId(x) || (x == TypeId::kString && IsDt(r)) || x == TypeId::kNull)) {
        return BindDatetimePlusInterval(name, op == '-', a, ctx);
      }
      // A string takes a day-time interval as a timestamp would (Spark's TimeAdd); with a
      // year-month interval it is a type mismatch.
      if (li && op == '+' && (IsDatetimeId(y) || (y == TypeId::kString && IsDt(l)))) {
        std::swap(a[0], a[1]);
        return BindDatetimePlusInterval(name, false, a, ctx);
      }
      if (li && (y == TypeId::kNull)) {
        SILT_ASSIGN_OR_RETURN(a[1], CoerceTo(a[1], l, ctx));
        return BindIntervalPlusInterval(name, op, a);
      }
      if (ri && x == TypeId::kNull) {
        SILT_ASSIGN_OR_RETURN(a[0], CoerceTo(a[0], r, ctx));
        return BindIntervalPlusInterval(name, op, a);
      }
      return OperandError(Sql(a, op),
                          "the left and right operands of the binary operator have "
                          "incompatible types (\"" +
                              l->ToString() + "\" and \"" + r->ToString() + "\").");
    case '*':
      if (li && ri) {
        return OperandError(Sql(a, op), "the binary operator requires numeric operands, not \"" +
                                            l->ToString() + "\" and \"" + r->ToString() + "\".");
      }
      if (ri) std::swap(a[0], a[1]);
      return BindIntervalScale(name, '*', a, ctx);
    case '/':
      if (ri) {
        return Status::InvalidArgument(
            "Cannot resolve \"" + Sql(a, op) + "\" due to data type mismatch: the divisor " +
                "requires the \"NUMERIC\" type, not \"" + r->ToString() + "\".",
            errc::kDatatypeMismatchUnexpectedInputType);
      }
      return BindIntervalScale(name, '/', a, ctx);
    default:
      return Status::InvalidArgument("Cannot resolve \"" + Sql(a, op) +
                                         "\" due to data type mismatch: the binary operator " +
                                         "requires numeric operands, not an interval.",
                                     errc::kDatatypeMismatchBinaryOpDiffTypes);
  }
}

Result<ExprPtr> BindIntervalUnary(std::string_view name, std::vector<ExprPtr>& a,
                                  const BindContext& ctx) {
  if (a.size() == 1 && IsCal(a[0]->type) && name != "abs") {
    if (name == "positive") return a[0];
    // UnaryMinus: IntervalUtils.negateExact under ANSI, negate (wrapping) otherwise.
    const bool ansi = ctx.ansi;
    return MakeCall(
        std::string(name), DataType::CalendarInterval(), std::move(a),
        [ansi](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
          FixedWriter<int128_t> w(out, rows);
          for (size_t i = 0; i < rows; ++i) {
            if (NullAt(x[0], i)) {
              w.SetNull(i);
              continue;
            }
            const CalendarInterval c = UnpackCalendarInterval(ValAt<int128_t>(x[0], i));
            if (ansi && (c.months == INT32_MIN || c.days == INT32_MIN)) {
              return CalOverflow("integer");
            }
            if (ansi && c.microseconds == INT64_MIN) return CalOverflow("long");
            const auto neg = [](auto v) {
              using U = std::make_unsigned_t<decltype(v)>;
              return static_cast<decltype(v)>(U{0} - static_cast<U>(v));
            };
            w.Set(i, PackCalendarInterval({neg(c.months), neg(c.days), neg(c.microseconds)}));
          }
          return Status::OK();
        });
  }
  if (a.size() != 1 || !IsInterval(a[0]->type)) return ExprPtr();
  if (name == "positive") return a[0];
  const bool abs = name == "abs";
  TypePtr t = a[0]->type;
  const bool ym = IsYm(t);
  return MakeCall(
      std::string(name), t, std::move(a),
      [abs, ym](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
        auto one = [abs](auto v, auto minv, auto* r) -> Status {
          if (abs && v >= 0) {
            *r = v;
            return Status::OK();
          }
          if (v == minv) return IntervalOverflow("negated");
          *r = -v;
          return Status::OK();
        };
        if (ym) {
          FixedWriter<int32_t> w(out, rows);
          for (size_t i = 0; i < rows; ++i) {
            if (NullAt(x[0], i)) {
              w.SetNull(i);
              continue;
            }
            int32_t r;
            SILT_RETURN_NOT_OK(one(ValAt<int32_t>(x[0], i), INT32_MIN, &r));
            w.Set(i, r);
          }
        } else {
          FixedWriter<int64_t> w(out, rows);
          for (size_t i = 0; i < rows; ++i) {
            if (NullAt(x[0], i)) {
              w.SetNull(i);
              continue;
            }
            int64_t r;
            SILT_RETURN_NOT_OK(one(ValAt<int64_t>(x[0], i), INT64_MIN, &r));
            w.Set(i, r);
          }
        }
        return Status::OK();
      });
}

void RegisterIntervalFunctions(FunctionRegistry& r) {
  // make_ym_interval([years[, months]]) → interval year to month.
  Reg(r, {"make_ym_interval"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 0, 2));
        while (a.size() < 2) a.push_back(MakeConstant(Value::Int32(0)));
        for (size_t i = 0; i < 2; ++i) {
          SILT_RETURN_NOT_OK(CoerceArg(n, a, i, DataType::Int32(), c));
        }
        return Binary2<int32_t, int32_t, int32_t>(
            std::string(n), DataType::YearMonthInterval(), std::move(a),
            [](int32_t y, int32_t m, const TimeZone*, int32_t* r) -> Status {
              int64_t v = int64_t{y} * 12 + m;
              if (v > INT32_MAX || v < INT32_MIN) return IntervalOverflow("multiplied");
              *r = static_cast<int32_t>(v);
              return Status::OK();
            });
      });
  // make_dt_interval([days[, hours[, mins[, secs]]]]) → interval day to second; secs is
  // decimal(18,6).
  Reg(r, {"make_dt_interval"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 0, 4));
        while (a.size() < 3) a.push_back(MakeConstant(Value::Int32(0)));
        if (a.size() < 4) a.push_back(MakeConstant(Value::Decimal(18, 6, 0)));
        for (size_t i = 0; i < 3; ++i) {
          SILT_RETURN_NOT_OK(CoerceArg(n, a, i, DataType::Int32(), c));
        }
        SILT_RETURN_NOT_OK(CoerceArg(n, a, 3, DataType::Decimal(18, 6), c));
        return MakeCall(
            std::string(n), DataType::DayTimeInterval(), std::move(a),
            [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
              FixedWriter<int64_t> w(out, rows);
              for (size_t i = 0; i < rows; ++i) {
                if (AnyNull(x, i)) {
                  w.SetNull(i);
                  continue;
                }
                __int128 v = static_cast<__int128>(ValAt<int32_t>(x[0], i)) * kMicrosPerDay +
                             static_cast<__int128>(ValAt<int32_t>(x[1], i)) * 3600000000LL +
                             static_cast<__int128>(ValAt<int32_t>(x[2], i)) * 60000000LL +
                             ValAt<int128_t>(x[3], i);
                if (v > INT64_MAX || v < INT64_MIN) return IntervalOverflow("added");
                w.Set(i, static_cast<int64_t>(v));
              }
              return Status::OK();
            });
      });
  // make_interval([years[, months[, weeks[, days[, hours[, mins[, secs]]]]]]]) → the legacy
  // calendar interval; secs is decimal(18,6). An int overflow is ARITHMETIC_OVERFLOW under ANSI
  // and NULL otherwise (always NULL for try_make_interval), as Spark's MakeInterval.
  Reg(r, {"make_interval", "try_make_interval"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 0, 7));
        while (a.size() < 6) a.push_back(MakeConstant(Value::Int32(0)));
        if (a.size() < 7) a.push_back(MakeConstant(Value::Decimal(18, 6, 0)));
        for (size_t i = 0; i < 6; ++i) {
          SILT_RETURN_NOT_OK(CoerceArg(n, a, i, DataType::Int32(), c));
        }
        SILT_RETURN_NOT_OK(CoerceArg(n, a, 6, DataType::Decimal(18, 6), c));
        const bool fail = c.ansi && n == "make_interval";
        return MakeCall(
            std::string(n), DataType::CalendarInterval(), std::move(a),
            [fail](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
              FixedWriter<int128_t> w(out, rows);
              for (size_t i = 0; i < rows; ++i) {
                if (AnyNull(x, i)) {
                  w.SetNull(i);
                  continue;
                }
                auto v = MakeCalendarInterval(ValAt<int32_t>(x[0], i), ValAt<int32_t>(x[1], i),
                                              ValAt<int32_t>(x[2], i), ValAt<int32_t>(x[3], i),
                                              ValAt<int32_t>(x[4], i), ValAt<int32_t>(x[5], i),
                                              static_cast<int64_t>(ValAt<int128_t>(x[6], i)));
                if (v) {
                  w.Set(i, PackCalendarInterval(*v));
                } else if (fail) {
                  return Status::InvalidArgument(
                      "integer overflow. Use 'try_make_interval' to tolerate overflow and return "
                      "NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to "
                      "bypass this error.",
                      errc::kArithmeticOverflow);
                } else {
                  w.SetNull(i);
                }
              }
              return Status::OK();
            });
      });
}

}  // namespace silt::exec::fn
