#include "exec/functions.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "common/datetime.h"
#include "common/error_classes.h"
#include "common/time_zones.h"
#include "exec/cast.h"
#include "exec/function_registry.h"
#include "vector/time_text.h"

namespace silt::exec {

Result<ExprPtr> BindScalarFunction(std::string_view name, std::vector<ExprPtr> args,
                                   const BindContext& ctx) {
  const ScalarBinder* b = FunctionRegistry::Get().Find(name);
  if (!b) {
    return Status::InvalidArgument(
        "Cannot resolve routine `" + std::string(name) +
            "` on search path [`system`.`builtin`, `system`.`session`, `spark_catalog`.`default`].",
        errc::kUnresolvedRoutine);
  }
  return (*b)(std::move(args), ctx);
}

namespace {

int NumericRank(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
      return 1;
    case TypeId::kInt16:
      return 2;
    case TypeId::kInt32:
      return 3;
    case TypeId::kInt64:
      return 4;
    case TypeId::kFloat:
      return 5;
    case TypeId::kDouble:
      return 6;
    default:
      return 0;
  }
}

Status Mismatch(const TypePtr& a, const TypePtr& b) {
  return Status::InvalidArgument("Cannot resolve due to data type mismatch: the types \"" +
                                     a->ToString() + "\" and \"" + b->ToString() +
                                     "\" have no common type.",
                                 errc::kDatatypeMismatchDataDiffTypes);
}

// Fast vectorized numeric → numeric casts (no strings, no decimals).
template <typename From, typename To>
void CastLoop(const Vector& in, size_t rows, Vector* out) {
  out->ResizeUninitialized(rows);
  const From* s = in.data<From>();
  To* d = out->data<To>();
  for (size_t i = 0; i < rows; ++i) d[i] = static_cast<To>(s[i]);
  if (in.may_have_nulls()) {
    uint8_t* v = out->mutable_validity();
    std::copy(in.validity(), in.validity() + rows, v);
  }
}

template <typename From>
bool CastFromTo(const Vector& in, size_t rows, TypeId to, Vector* out) {
  switch (to) {
    case TypeId::kInt64:
      CastLoop<From, int64_t>(in, rows, out);
      return true;
    case TypeId::kDouble:
      CastLoop<From, double>(in, rows, out);
      return true;
    case TypeId::kFloat:
      CastLoop<From, float>(in, rows, out);
      return true;
    default:
      return false;
  }
}

// Widening casts that can never fail: int8/16/32 → int64/float/double, int64 → double/float,
// float → double, date → int etc. handled generically.
bool FastCast(const Vector& in, size_t rows, const TypePtr& to, Vector* out) {
  TypeId f = in.id(), t = to->id();
  if (NumericRank(t) <= NumericRank(f) || NumericRank(f) == 0 || NumericRank(t) == 0) {
    // Decimal rescales to a wider scale of an integral: int → decimal.
    if (t == TypeId::kDecimal && IsIntegral(f) &&
        to->precision() - to->scale() >= (f == TypeId::kInt64 ? 19 : 10)) {
      int128_t m = Pow10(to->scale());
      out->ResizeUninitialized(rows);
      int128_t* d = out->data<int128_t>();
      for (size_t i = 0; i < rows; ++i) {
        int64_t x = f == TypeId::kInt64   ? in.data<int64_t>()[i]
                    : f == TypeId::kInt32 ? in.data<int32_t>()[i]
                    : f == TypeId::kInt16 ? in.data<int16_t>()[i]
                                          : in.data<int8_t>()[i];
        d[i] = static_cast<int128_t>(x) * m;
      }
      if (in.may_have_nulls())
        std::copy(in.validity(), in.validity() + rows, out->mutable_validity());
      return true;
    }
    if (t == TypeId::kDecimal && f == TypeId::kDecimal && to->scale() >= in.type()->scale() &&
        to->precision() - to->scale() >= in.type()->precision() - in.type()->scale()) {
      int128_t m = Pow10(to->scale() - in.type()->scale());
      out->ResizeUninitialized(rows);
      const int128_t* s = in.data<int128_t>();
      int128_t* d = out->data<int128_t>();
      for (size_t i = 0; i < rows; ++i) d[i] = s[i] * m;
      if (in.may_have_nulls())
        std::copy(in.validity(), in.validity() + rows, out->mutable_validity());
      return true;
    }
    if (t == TypeId::kDouble && f == TypeId::kDecimal) {
      double div = std::pow(10.0, in.type()->scale());
      out->ResizeUninitialized(rows);
      const int128_t* s = in.data<int128_t>();
      double* d = out->data<double>();
      for (size_t i = 0; i < rows; ++i) d[i] = static_cast<double>(s[i]) / div;
      if (in.may_have_nulls())
        std::copy(in.validity(), in.validity() + rows, out->mutable_validity());
      return true;
    }
    return false;
  }
  switch (f) {
    case TypeId::kInt8:
      return CastFromTo<int8_t>(in, rows, t, out);
    case TypeId::kInt16:
      return CastFromTo<int16_t>(in, rows, t, out);
    case TypeId::kInt32:
      return CastFromTo<int32_t>(in, rows, t, out);
    case TypeId::kInt64:
      return CastFromTo<int64_t>(in, rows, t, out);
    case TypeId::kFloat:
      return CastFromTo<float>(in, rows, t, out);
    default:
      return false;
  }
}

// Casts whose result depends on the session time zone (Spark's TimeZoneAwareExpression casts): a
// TIMESTAMP is an instant, shown and truncated to a date in the session zone; a string without an
// offset, a DATE and a TIMESTAMP_NTZ are wall times in that zone.
// TIMESTAMP_LTZ(p) (nanoseconds) is an instant like TIMESTAMP; TIMESTAMP_NTZ(p) a wall time.
bool IsInstant(TypeId id) { return id == TypeId::kTimestamp || id == TypeId::kTimestampNanos; }
bool IsWallTime(TypeId id) {
  return id == TypeId::kString || id == TypeId::kDate || id == TypeId::kTimestampNtz ||
         id == TypeId::kTimestampNtzNanos || id == TypeId::kTime;
}
bool HasInstant(const TypePtr& t) {
  if (IsInstant(t->id())) return true;
  if (t->id() == TypeId::kList) return HasInstant(t->element_type());
  if (t->id() == TypeId::kMap) return HasInstant(t->key_type()) || HasInstant(t->value_type());
  for (const Field& f : t->fields())
    if (HasInstant(f.type)) return true;
  return false;
}
bool ZoneSensitiveCast(const TypePtr& from, const TypePtr& to) {
  const TypeId f = from->id(), t = to->id();
  // A nested value with instants inside, as a string: each instant in the session zone.
  if (t == TypeId::kString && from->is_nested()) return HasInstant(from);
  return (IsInstant(f) && IsWallTime(t)) || (IsInstant(t) && IsWallTime(f));
}

// An instant's wall time in `zone`, as a TIMESTAMP_NTZ of the same precision.
Value WallTime(const Value& v, const TimeZone& zone) {
  if (v.type()->id() == TypeId::kTimestamp) {
    return Value::Integer(DataType::TimestampNtz(), zone.UtcMicrosToLocal(v.integer()));
  }
  const int64_t n = v.integer(), us = FloorDiv(n, 1000);
  return Value::Integer(DataType::TimestampNtzNanos(v.type()->precision()),
                        zone.UtcMicrosToLocal(us) * 1000 + (n - us * 1000));
}

// The instant of a wall time (TIMESTAMP_NTZ micros, or nanos when `to` is TIMESTAMP_LTZ(p)).
Value Instant(int64_t wall, const TypePtr& to, const TimeZone& zone) {
  if (to->id() == TypeId::kTimestamp) return Value::Integer(to, zone.LocalMicrosToUtc(wall));
  const int64_t us = FloorDiv(wall, 1000);
  return Value::Integer(to, zone.LocalMicrosToUtc(us) * 1000 + (wall - us * 1000));
}

// CAST(TIME AS TIMESTAMP…): the time of day on the current date (in the session zone), Spark's
// TIME → TIMESTAMP_NTZ(p) / TIMESTAMP_LTZ(p).
Result<Value> TimeToTimestamp(const Value& v, const TypePtr& to, const TimeZone* zone,
                              int64_t now_micros) {
  if (v.is_null()) return Value::Null(to);
  const int64_t local_now = zone ? zone->UtcMicrosToLocal(now_micros) : now_micros;
  const int64_t day = FloorDiv(local_now, kMicrosPerDay);
  const int64_t ns = v.integer();
  const bool nanos = to->id() == TypeId::kTimestampNanos || to->id() == TypeId::kTimestampNtzNanos;
  int64_t wall = nanos ? TruncateNanos(day * kNanosPerDay + ns, to->precision())
                       : day * kMicrosPerDay + FloorDiv(ns, kNanosPerMicro);
  if (IsInstant(to->id())) return zone ? Instant(wall, to, *zone) : Value::Integer(to, wall);
  return Value::Integer(to, wall);
}

Result<Value> CastValueInZone(const Value& v, const TypePtr& to, bool ansi, const TimeZone& zone) {
  if (v.is_null()) return Value::Null(to);
  TypeId f = v.type()->id();
  if (to->id() == TypeId::kString && v.type()->is_nested()) {
    // castToString of a nested value (CastToString's form) with the instants in the zone.
    std::function<Result<std::string>(const Value&)> elem =
        [&](const Value& c) -> Result<std::string> {
      if (c.is_null()) return std::string("null");
      if (IsInstant(c.type()->id()) || c.type()->is_nested()) {
        SILT_ASSIGN_OR_RETURN(Value sv, CastValueInZone(c, to, ansi, zone));
        return sv.str();
      }
      return CastToString(c);
    };
    if (!HasInstant(v.type())) return Value::String(CastToString(v));
    const bool map = f == TypeId::kMap;
    std::string s = f == TypeId::kList ? "[" : "{";
    const auto& ch = v.children();
    for (size_t i = 0; i < ch.size(); i += map ? 2 : 1) {
      if (i) s += ", ";
      SILT_ASSIGN_OR_RETURN(std::string a, elem(ch[i]));
      s += a;
      if (map && i + 1 < ch.size()) {
        SILT_ASSIGN_OR_RETURN(std::string b, elem(ch[i + 1]));
        s += " -> " + b;
      }
    }
    return Value::String(s + (f == TypeId::kList ? "]" : "}"));
  }
  if (IsInstant(f)) {
    // The wall time in the zone, then the zone-free cast.
    return CastValue(WallTime(v, zone), to, ansi);
  }
  const bool nanos_to = to->id() == TypeId::kTimestampNanos;
  if (f == TypeId::kString) {
    int64_t micros;
    bool has_zone;
    std::string_view s = v.str();
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    if (ParseIsoTimestamp(s, &micros, &has_zone)) {
      const int64_t instant = has_zone ? micros : zone.LocalMicrosToUtc(micros);
      if (!nanos_to) return Value::Integer(to, instant);
      int64_t n;
      if (!MicrosToNanos(instant, &n) || __builtin_add_overflow(n, SubMicroNanos(s), &n)) {
        if (!ansi) return Value::Null(to);
        return Status::InvalidArgument("The value '" + std::string(s) +
                                           "' of the type \"string\" cannot be cast to \"" +
                                           to->ToString() + "\" due to an overflow.",
                                       errc::kCastOverflow);
      }
      return Value::Integer(to, TruncateNanos(n, to->precision()));
    }
  }
  // DATE, TIMESTAMP_NTZ(p) and date-only strings: their wall time, as an instant in the zone (a
  // string the zone-free cast rejects fails the same way here).
  TypePtr wall_type =
      nanos_to ? DataType::TimestampNtzNanos(to->precision()) : DataType::TimestampNtz();
  SILT_ASSIGN_OR_RETURN(Value local, CastValue(v, wall_type, ansi));
  if (local.is_null()) return Value::Null(to);
  return Instant(local.integer(), to, zone);
}

}  // namespace

Result<ExprPtr> BindCast(ExprPtr child, TypePtr target, bool try_cast, const BindContext& ctx) {
  if (child->type->Equals(*target)) return child;
  // An integral number to BINARY (its big-endian bytes) only outside ANSI mode, as in Spark.
  const bool integral_to_binary = IsIntegral(child->type->id()) && target->id() == TypeId::kBinary;
  if (integral_to_binary && (ctx.ansi || try_cast)) {
    return Status::InvalidArgument(
        "Cannot resolve \"CAST(" + child->ToString() + " AS " + target->ToString() +
            ")\" due to data type mismatch: cannot cast \"" + child->type->ToString() + "\" to \"" +
            target->ToString() +
            "\" with ANSI mode on. If you have to cast it, you can set \"spark.sql.ansi.enabled\" "
            "as 'false'.",
        errc::kDatatypeMismatchCastWithoutSuggestion);
  }
  if (!integral_to_binary && !CanCast(child->type, target)) {
    return Status::InvalidArgument(
        "Cannot resolve \"CAST(" + child->ToString() + " AS " + target->ToString() +
            ")\" due to data type mismatch: cannot cast \"" + child->type->ToString() + "\" to \"" +
            target->ToString() + "\".",
        errc::kDatatypeMismatchCastWithoutSuggestion);
  }
  // try_cast follows the ANSI rules (Spark's TRY eval mode: '1.23' is not an INT, 300 does not
  // wrap into a TINYINT) and turns their errors into NULL.
  const bool ansi = ctx.ansi || try_cast;
  std::shared_ptr<const TimeZone> zone;
  if (ZoneSensitiveCast(child->type, target)) {
    SILT_ASSIGN_OR_RETURN(zone, TimeZone::Find(ctx.time_zone));
  }
  // TIME → a timestamp: the current date of the statement (EvalContext::now_micros), so no
  // folding at bind time.
  if (child->type->id() == TypeId::kTime && target->id() != TypeId::kTime &&
      (target->id() == TypeId::kTimestamp || target->id() == TypeId::kTimestampNtz ||
       target->id() == TypeId::kTimestampNanos || target->id() == TypeId::kTimestampNtzNanos)) {
    std::shared_ptr<const TimeZone> tz;
    SILT_ASSIGN_OR_RETURN(tz, TimeZone::Find(ctx.time_zone));
    auto e = std::make_shared<Expr>();
    e->kind = ExprKind::kCast;
    e->type = target;
    e->name = try_cast ? "try_cast" : "cast";
    e->children = {child};
    e->nullable = child->nullable;
    // The current date is the statement's (as current_date()), so the cast stays foldable.
    e->deterministic = child->deterministic;
    TypePtr to = target;
    e->kernel = [to, tz](std::span<const Arg> args, size_t rows, const EvalContext& ectx,
                         Vector* out) -> Status {
      const Arg& a = args[0];
      for (size_t i = 0; i < rows; ++i) {
        size_t r = a.index(i);
        SILT_ASSIGN_OR_RETURN(
            Value v, TimeToTimestamp(a.vector->GetValue(r), to, tz.get(), ectx.now_micros));
        SILT_RETURN_NOT_OK(out->AppendValue(v));
      }
      return Status::OK();
    };
    return ExprPtr(e);
  }
  // Constant folding: a cast of a literal is computed once. One that fails stays a cast: its
  // error is raised by the optimizer's constant folding (planner/constant_folding.h) unless the
  // cast sits in a conditional branch (CASE, IF, COALESCE), where only a row taking it raises it.
  Result<Value> r = Value::Null(target);
  if (child->kind == ExprKind::kConstant) {
    r = zone ? CastValueInZone(child->constant, target, ansi, *zone)
             : CastValue(child->constant, target, ansi);
  }
  if (child->kind == ExprKind::kConstant && (r.ok() || try_cast)) {
    auto c = MakeConstant(r.ok() ? std::move(*r) : Value::Null(target));
    auto e = std::const_pointer_cast<Expr>(c);
    e->type = target;
    return ExprPtr(e);
  }
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCast;
  e->type = target;
  e->name = try_cast ? "try_cast" : "cast";
  e->children = {child};
  e->nullable = true;
  e->deterministic = child->deterministic;
  TypePtr to = target;
  e->kernel = [to, ansi, try_cast, zone](std::span<const Arg> args, size_t rows, const EvalContext&,
                                         Vector* out) -> Status {
    const Arg& a = args[0];
    // FastCast's casts are widenings that cannot fail, so ANSI mode (whose casts raise
    // instead of returning NULL) takes them too.
    if (!zone && !a.constant && FastCast(*a.vector, rows, to, out)) return Status::OK();
    for (size_t i = 0; i < rows; ++i) {
      size_t r = a.index(i);
      if (a.vector->IsNull(r)) {
        out->AppendNull();
        continue;
      }
      Result<Value> v = zone ? CastValueInZone(a.vector->GetValue(r), to, ansi, *zone)
                             : CastValue(a.vector->GetValue(r), to, ansi);
      if (!v.ok()) {
        if (!try_cast) return v.status();
        out->AppendNull();
        continue;
      }
      SILT_RETURN_NOT_OK(out->AppendValue(*v));
    }
    return Status::OK();
  };
  return ExprPtr(e);
}

Result<TypePtr> CommonType(const TypePtr& a, const TypePtr& b) {
  if (a->Equals(*b)) return a;
  TypeId x = a->id(), y = b->id();
  if (x == TypeId::kNull) return b;
  if (y == TypeId::kNull) return a;
  // The legacy calendar interval is not atomic: no type (a string included) widens to it.
  if (x == TypeId::kCalendarInterval || y == TypeId::kCalendarInterval) return Mismatch(a, b);
  if (IsNumeric(x) && IsNumeric(y)) {
    if (x == TypeId::kDecimal || y == TypeId::kDecimal) {
      if (x == TypeId::kFloat || x == TypeId::kDouble || y == TypeId::kFloat ||
          y == TypeId::kDouble)
        return DataType::Double();
      TypePtr da = x == TypeId::kDecimal ? a : DecimalForIntegral(x);
      TypePtr db = y == TypeId::kDecimal ? b : DecimalForIntegral(y);
      int scale = std::max(da->scale(), db->scale());
      int range = std::max(da->precision() - da->scale(), db->precision() - db->scale());
      return DataType::Decimal(std::min(38, range + scale),
                               std::min(scale, 38 - std::min(38, range)));
    }
    return NumericRank(x) >= NumericRank(y) ? a : b;
  }
  if (a->is_interval() && x == y) {
    // Intervals of one kind widen to the widest fields (Spark's findWiderTypeForTwo).
    int s = std::min(a->interval_start(), b->interval_start());
    int e = std::max(a->interval_end(), b->interval_end());
    return x == TypeId::kYearMonthInterval ? DataType::YearMonthInterval(s, e)
                                           : DataType::DayTimeInterval(s, e);
  }
  if (x == TypeId::kTime && y == TypeId::kTime) {
    return DataType::Time(std::max(a->precision(), b->precision()));
  }
  const bool xn = x == TypeId::kTimestampNanos || x == TypeId::kTimestampNtzNanos;
  const bool yn = y == TypeId::kTimestampNanos || y == TypeId::kTimestampNtzNanos;
  if ((xn || yn) && (xn || IsDatetime(x)) && (yn || IsDatetime(y))) {
    // A nanosecond timestamp with a date or another timestamp: the finer precision; LTZ wins.
    int p = std::max(xn ? a->precision() : 0, yn ? b->precision() : 0);
    bool ltz = IsInstant(x) || IsInstant(y);
    return ltz ? DataType::TimestampNanos(p) : DataType::TimestampNtzNanos(p);
  }
  if (IsDatetime(x) && IsDatetime(y)) {
    if (x == TypeId::kTimestamp || y == TypeId::kTimestamp) return DataType::Timestamp();
    return DataType::TimestampNtz();
  }
  bool xs = x == TypeId::kString, ys = y == TypeId::kString;
  if ((xs || ys) && !a->is_nested() && !b->is_nested() && x != TypeId::kBinary &&
      y != TypeId::kBinary) {
    return DataType::String();
  }
  if (x == y && x == TypeId::kList) {
    SILT_ASSIGN_OR_RETURN(TypePtr e, CommonType(a->element_type(), b->element_type()));
    return DataType::List(e, a->contains_null() || b->contains_null());
  }
  if (x == y && x == TypeId::kMap) {
    SILT_ASSIGN_OR_RETURN(TypePtr k, CommonType(a->key_type(), b->key_type()));
    SILT_ASSIGN_OR_RETURN(TypePtr v, CommonType(a->value_type(), b->value_type()));
    return DataType::Map(k, v);
  }
  if (x == y && x == TypeId::kStruct && a->fields().size() == b->fields().size()) {
    std::vector<Field> fields;
    for (size_t i = 0; i < a->fields().size(); ++i) {
      SILT_ASSIGN_OR_RETURN(TypePtr t, CommonType(a->fields()[i].type, b->fields()[i].type));
      fields.push_back(
          {a->fields()[i].name, t, a->fields()[i].nullable || b->fields()[i].nullable, "{}"});
    }
    return DataType::Struct(std::move(fields));
  }
  return Mismatch(a, b);
}

Result<TypePtr> CommonType(const TypePtr& a, const TypePtr& b, const BindContext& ctx) {
  if (!ctx.ansi || a->Equals(*b)) return CommonType(a, b);
  TypeId x = a->id(), y = b->id();
  if ((x == TypeId::kString) != (y == TypeId::kString)) {
    const TypePtr& other = x == TypeId::kString ? b : a;
    TypeId o = other->id();
    if (o == TypeId::kNull) return DataType::String();
    if (other->is_interval() || o == TypeId::kCalendarInterval) return Mismatch(a, b);
    if (!other->is_nested()) {
      if (IsIntegral(o)) return DataType::Int64();
      if (o == TypeId::kFloat || o == TypeId::kDouble) return DataType::Double();
      return other;
    }
  }
  if (x == y && x == TypeId::kList) {
    SILT_ASSIGN_OR_RETURN(TypePtr e, CommonType(a->element_type(), b->element_type(), ctx));
    return DataType::List(e, a->contains_null() || b->contains_null());
  }
  if (x == y && x == TypeId::kMap) {
    SILT_ASSIGN_OR_RETURN(TypePtr k, CommonType(a->key_type(), b->key_type(), ctx));
    SILT_ASSIGN_OR_RETURN(TypePtr v, CommonType(a->value_type(), b->value_type(), ctx));
    return DataType::Map(k, v);
  }
  if (x == y && x == TypeId::kStruct && a->fields().size() == b->fields().size()) {
    std::vector<Field> fields;
    for (size_t i = 0; i < a->fields().size(); ++i) {
      SILT_ASSIGN_OR_RETURN(TypePtr t, CommonType(a->fields()[i].type, b->fields()[i].type, ctx));
      fields.push_back(
          {a->fields()[i].name, t, a->fields()[i].nullable || b->fields()[i].nullable, "{}"});
    }
    return DataType::Struct(std::move(fields));
  }
  return CommonType(a, b);
}

Result<ExprPtr> CoerceTo(ExprPtr e, const TypePtr& type, const BindContext& ctx) {
  if (e->type->Equals(*type)) return e;
  BindContext lenient = ctx;
  // Implicit widening never fails; string → other implicit casts follow the session's mode.
  return BindCast(std::move(e), type, false, lenient);
}

}  // namespace silt::exec
