// Spark's math functions (mathExpressions.scala, arithmetic.scala for abs/negative/pmod):
// abs, negative, positive, sign, round/bround (HALF_UP/HALF_EVEN with Spark's decimal result
// types), floor/ceil (bigint for doubles, decimal rules), exponentials and logarithms (NULL
// outside the domain as Spark), trigonometry, pow, mod/pmod, rand/randn (Spark's XORShiftRandom,
// so seeded sequences match a single-partition Spark run), factorial, hypot, width_bucket, bin,
// conv, shifts.
//
// Doubles are rounded like Spark: BigDecimal(d) is built from the shortest decimal
// representation of d (Double.toString), so round(1.005, 2) = 1.01.
#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <optional>

#include "common/error_classes.h"
#include "exec/cast.h"
#include "exec/function_registry.h"
#include "exec/functions/function_util.h"
#include "exec/functions/random_util.h"

namespace silt::exec {

namespace {

using fn::XorShiftRandom;

using fn::CheckArity;
using fn::CoerceArg;
using fn::ConstantOf;
using fn::FixedWriter;
using fn::IsIntegralId;
using fn::IsNumericId;
using fn::MakeCall;
using fn::NullAt;
using fn::TypeMismatch;
using fn::ValAt;

using Args = std::vector<ExprPtr>;

TypePtr Dbl() { return DataType::Double(); }

Status Overflow(std::string_view what) {
  return Status::InvalidArgument(std::string(what) +
                                     " caused overflow. If necessary set spark.sql.ansi.enabled "
                                     "to \"false\" to bypass this error.",
                                 errc::kArithmeticOverflow);
}

// mod / pmod by zero under ANSI (Spark's Remainder and Pmod).
Status RemainderByZero() {
  return Status::InvalidArgument(
      "Remainder by zero. Use `try_mod` to tolerate divisor being 0 and return NULL instead. "
      "If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.",
      errc::kRemainderByZero);
}

// Java's (long) cast of a double: saturating, NaN → 0.
int64_t DoubleToLong(double d) {
  if (std::isnan(d)) return 0;
  if (d >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (d <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

// Calls f with a zero value of the C++ type of a fixed-width numeric TypeId.
template <typename F>
void DispatchNumeric(TypeId id, F&& f) {
  switch (id) {
    case TypeId::kInt8:
      f(int8_t{});
      break;
    case TypeId::kInt16:
      f(int16_t{});
      break;
    case TypeId::kInt32:
      f(int32_t{});
      break;
    case TypeId::kInt64:
      f(int64_t{});
      break;
    case TypeId::kFloat:
      f(float{});
      break;
    case TypeId::kDouble:
      f(double{});
      break;
    case TypeId::kDecimal:
      f(int128_t{});
      break;
    default:
      break;
  }
}

// Numeric argument: strings and other atomics coerce to double (Spark's implicit cast for
// NumericType inputs).
Status NumericArg(std::string_view name, Args& args, size_t i, const BindContext& ctx) {
  TypeId id = args[i]->type->id();
  if (IsNumericId(id)) return Status::OK();
  return CoerceArg(name, args, i, Dbl(), ctx);
}

// ---------------------------------------------------------------------------------------------
// Rounding

enum class Mode { kHalfUp, kHalfEven, kCeiling, kFloor };

// Rounds the unscaled value u (scale `from`) to scale `to` (< from), returning the value at
// scale max(to, 0)... callers pass the scale they keep.
int128_t RoundUnscaled(int128_t u, int drop, Mode mode) {
  if (drop <= 0) return u;
  if (drop > 38) return 0;
  int128_t p = Pow10(drop);
  int128_t q = u / p, r = u % p;
  if (r == 0) return q;
  int128_t ar = r < 0 ? -r : r;
  int sign = u < 0 ? -1 : 1;
  bool up = false;
  switch (mode) {
    case Mode::kHalfUp:
      up = ar * 2 >= p;
      break;
    case Mode::kHalfEven:
      up = ar * 2 > p || (ar * 2 == p && (q & 1));
      break;
    case Mode::kCeiling:
      up = sign > 0;
      break;
    case Mode::kFloor:
      up = sign < 0;
      break;
  }
  return up ? q + sign : q;
}

// BigDecimal(x).setScale(scale, mode) for a double via its shortest digits, back to double.
double RoundDouble(double x, int scale, Mode mode) {
  if (std::isnan(x) || std::isinf(x) || x == 0) return x;
  fn::DecimalDigits d = fn::ShortestDigits(x);
  int nd = static_cast<int>(d.digits.size());
  int k = d.exp10 + scale;  // digits kept
  if (k >= nd) return x;
  std::string keep;
  bool up;
  if (k < 0) {
    up = false;
  } else {
    keep = d.digits.substr(0, static_cast<size_t>(k));
    char first = d.digits[static_cast<size_t>(k)];
    bool rest_nonzero = k + 1 < nd;
    if (mode == Mode::kHalfUp) {
      up = first >= '5';
    } else {
      bool odd = !keep.empty() && ((keep.back() - '0') & 1);
      up = first > '5' || (first == '5' && (rest_nonzero || odd));
    }
  }
  if (keep.empty()) keep = "0";
  if (up) {
    int i = static_cast<int>(keep.size()) - 1;
    while (i >= 0 && keep[i] == '9') keep[i--] = '0';
    if (i >= 0) {
      ++keep[i];
    } else {
      keep.insert(keep.begin(), '1');
    }
  }
  // value = keep × 10^(-scale)
  std::string text = (d.negative ? "-" : "") + keep + "e" + std::to_string(-scale);
  return std::strtod(text.c_str(), nullptr);
}

Result<int> ConstantScale(std::string_view name, const ExprPtr& e, bool* is_null) {
  const Value* v = ConstantOf(e);
  if (!v) return TypeMismatch(name, "the scale argument must be a constant integer");
  *is_null = v->is_null();
  if (v->is_null()) return 0;
  return static_cast<int>(v->integer());
}

TypePtr DecimalFor(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
      return DataType::Decimal(3, 0);
    case TypeId::kInt16:
      return DataType::Decimal(5, 0);
    case TypeId::kInt32:
      return DataType::Decimal(10, 0);
    case TypeId::kInt64:
      return DataType::Decimal(20, 0);
    case TypeId::kFloat:
      return DataType::Decimal(14, 7);
    default:
      return DataType::Decimal(30, 15);
  }
}

// Spark's RoundBase.dataType for a decimal child.
TypePtr RoundedDecimalType(int p, int s, int scale) {
  int integral = p - s + 1;
  if (scale < 0) return DataType::Decimal(std::min(std::max(integral, -scale + 1), 38), 0);
  int ns = std::min(s, scale);
  return DataType::Decimal(std::min(integral + ns, 38), ns);
}

Result<ExprPtr> BindRound(std::string_view name, Args& args, const BindContext& ctx, Mode mode) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 1, 2));
  bool directed = mode == Mode::kCeiling || mode == Mode::kFloor;
  SILT_RETURN_NOT_OK(NumericArg(name, args, 0, ctx));
  int scale = 0;
  bool null_scale = false;
  if (args.size() == 2) {
    SILT_RETURN_NOT_OK(CoerceArg(name, args, 1, DataType::Int32(), ctx));
    SILT_ASSIGN_OR_RETURN(scale, ConstantScale(name, args[1], &null_scale));
  }
  if (directed && args[0]->type->id() != TypeId::kDecimal) {
    SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, DecimalFor(args[0]->type->id()), ctx));
  }
  const TypePtr& in = args[0]->type;
  TypePtr out_type =
      in->id() == TypeId::kDecimal ? RoundedDecimalType(in->precision(), in->scale(), scale) : in;
  bool ansi = ctx.ansi;
  return MakeCall(
      std::string(name), out_type, std::move(args),
      [=](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) -> Status {
        if (null_scale) {
          out->Resize(rows);
          for (size_t i = 0; i < rows; ++i) out->SetValid(i, false);
          return Status::OK();
        }
        const Arg& x = a[0];
        Status st;
        TypeId id = x.vector->id();
        if (id == TypeId::kDecimal) {
          int s = x.vector->type()->scale(), p = x.vector->type()->precision();
          int rs = out_type->scale();
          FixedWriter<int128_t> w(out, rows);
          for (size_t i = 0; i < rows; ++i) {
            if (NullAt(x, i)) {
              w.SetNull(i);
              continue;
            }
            int128_t u = ValAt<int128_t>(x, i);
            int128_t v;
            if (scale >= 0) {
              v = RoundUnscaled(u, s - rs, mode);
              // toPrecision(child precision): NULL when the rounded value no longer fits.
              if (!FitsPrecision(v, p)) {
                w.SetNull(i);
                continue;
              }
            } else {
              v = RoundUnscaled(u, s - scale, mode);
              v *= Pow10(-scale);
              if (!FitsPrecision(v, out_type->precision())) {
                w.SetNull(i);
                continue;
              }
            }
            w.Set(i, v);
          }
          return Status::OK();
        }
        DispatchNumeric(id, [&](auto zero) {
          using T = decltype(zero);
          FixedWriter<T> w(out, rows);
          for (size_t i = 0; i < rows && st.ok(); ++i) {
            if (NullAt(x, i)) {
              w.SetNull(i);
              continue;
            }
            T v = ValAt<T>(x, i);
            if constexpr (std::is_floating_point_v<T>) {
              w.Set(i, static_cast<T>(RoundDouble(static_cast<double>(v), scale, mode)));
            } else if constexpr (!std::is_same_v<T, int128_t>) {
              if (scale >= 0) {
                w.Set(i, v);
                continue;
              }
              int128_t r = -scale >= 20 ? 0 : RoundUnscaled(v, -scale, mode) * Pow10(-scale);
              if (ansi &&
                  (r > std::numeric_limits<T>::max() || r < std::numeric_limits<T>::min())) {
                st = Overflow(std::string(name));
                break;
              }
              w.Set(i, static_cast<T>(r));
            }
          }
        });
        return st;
      });
}

// floor/ceil(x): bigint for non-decimals, decimal(p - s + 1, 0) for decimals.
Result<ExprPtr> BindFloorCeil(std::string_view name, Args& args, const BindContext& ctx,
                              bool ceil) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 1, 2));
  if (args.size() == 2) return BindRound(name, args, ctx, ceil ? Mode::kCeiling : Mode::kFloor);
  SILT_RETURN_NOT_OK(NumericArg(name, args, 0, ctx));
  TypeId id = args[0]->type->id();
  if (id == TypeId::kDecimal) {
    int p = args[0]->type->precision(), s = args[0]->type->scale();
    TypePtr t = s == 0 ? args[0]->type : DataType::Decimal(std::min(p - s + 1, 38), 0);
    return MakeCall(
        std::string(name), t, std::move(args),
        [s, ceil](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
          MapUnary<int128_t, int128_t>(a[0], rows, out, [&](int128_t u) {
            return RoundUnscaled(u, s, ceil ? Mode::kCeiling : Mode::kFloor);
          });
          return Status::OK();
        });
  }
  if (IsIntegralId(id)) {
    SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, DataType::Int64(), ctx));
    return args[0];
  }
  SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, Dbl(), ctx));
  return MakeCall(std::string(name), DataType::Int64(), std::move(args),
                  [ceil](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                    MapUnary<int64_t, double>(a[0], rows, out, [&](double d) {
                      return DoubleToLong(ceil ? std::ceil(d) : std::floor(d));
                    });
                    return Status::OK();
                  });
}

// ---------------------------------------------------------------------------------------------
// abs / negative

Result<ExprPtr> BindAbsNeg(std::string_view name, Args& args, const BindContext& ctx, bool abs) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 1, 1));
  SILT_ASSIGN_OR_RETURN(ExprPtr iv, fn::BindIntervalUnary(name, args, ctx));
  if (iv) return iv;
  SILT_RETURN_NOT_OK(NumericArg(name, args, 0, ctx));
  TypePtr t = args[0]->type;
  bool ansi = ctx.ansi;
  std::string fname(name);
  return MakeCall(
      fname, t, std::move(args),
      [abs, ansi, fname](std::span<const Arg> a, size_t rows, const EvalContext&,
                         Vector* out) -> Status {
        Status st;
        DispatchNumeric(a[0].vector->id(), [&](auto zero) {
          using T = decltype(zero);
          if constexpr (std::is_floating_point_v<T>) {
            MapUnary<T, T>(a[0], rows, out, [&](T v) { return abs ? std::fabs(v) : -v; });
          } else if constexpr (std::is_same_v<T, int128_t>) {
            MapUnary<T, T>(a[0], rows, out, [&](T v) { return abs ? (v < 0 ? -v : v) : -v; });
          } else {
            using U = std::make_unsigned_t<T>;
            bool overflow = false;
            MapUnary<T, T>(a[0], rows, out, [&](T v) {
              if (v == std::numeric_limits<T>::min() && (!abs || v < 0)) overflow = true;
              // Two's complement wrap, as Java's non-ANSI arithmetic.
              U m = static_cast<U>(v);
              if (!abs || v < 0) m = static_cast<U>(U{0} - m);
              return static_cast<T>(m);
            });
            if (overflow && ansi) {
              // Only rows that are not NULL count.
              for (size_t i = 0; i < rows; ++i) {
                if (!NullAt(a[0], i) && ValAt<T>(a[0], i) == std::numeric_limits<T>::min()) {
                  st = Overflow(fname == "abs" ? "abs" : "negative");
                  break;
                }
              }
            }
          }
        });
        return st;
      });
}

// An interval's months (year-month) or microseconds (day-time) as a double.
double IntervalAsDouble(const Arg& a, size_t row) {
  return a.vector->id() == TypeId::kYearMonthInterval ? static_cast<double>(ValAt<int32_t>(a, row))
                                                      : static_cast<double>(ValAt<int64_t>(a, row));
}

// A double argument, or an interval's months or microseconds.
double NumberAsDouble(const Arg& a, size_t row) {
  return a.vector->id() == TypeId::kDouble ? ValAt<double>(a, row) : IntervalAsDouble(a, row);
}

// ---------------------------------------------------------------------------------------------
// Unary double functions

using DoubleFn = double (*)(double);

// f over doubles; `domain_min` (exclusive) makes values <= it NULL (Spark's log family).
Result<ExprPtr> BindUnaryDouble(std::string_view name, Args& args, const BindContext& ctx,
                                DoubleFn f, std::optional<double> null_at_or_below = {}) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 1, 1));
  SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, Dbl(), ctx));
  return MakeCall(
      std::string(name), Dbl(), std::move(args),
      [f, null_at_or_below](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
        MapUnary<double, double>(a[0], rows, out, f);
        if (null_at_or_below) {
          const double lim = *null_at_or_below;
          for (size_t i = 0; i < rows; ++i) {
            if (ValAt<double>(a[0], i) <= lim) out->SetValid(i, false);
          }
        }
        return Status::OK();
      });
}

Result<ExprPtr> BindBinaryDouble(std::string_view name, Args& args, const BindContext& ctx,
                                 double (*f)(double, double)) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 2));
  SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, Dbl(), ctx));
  SILT_RETURN_NOT_OK(CoerceArg(name, args, 1, Dbl(), ctx));
  return MakeCall(std::string(name), Dbl(), std::move(args),
                  [f](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                    MapBinary<double, double, double>(a[0], a[1], rows, out, f);
                    return Status::OK();
                  });
}

double Cot(double x) { return 1.0 / std::tan(x); }
double Sec(double x) { return 1.0 / std::cos(x); }
double Csc(double x) { return 1.0 / std::sin(x); }
double Degrees(double x) { return x * (180.0 / M_PI); }
double Radians(double x) { return x / 180.0 * M_PI; }
double Log2(double x) { return std::log(x) / std::log(2.0); }
double Signum(double x) {
  if (std::isnan(x)) return x;
  return x > 0 ? 1.0 : (x < 0 ? -1.0 : x);
}
double Ln(double x) { return std::log(x); }
double Log10(double x) { return std::log10(x); }
double Log1p(double x) { return std::log1p(x); }
double Exp(double x) { return std::exp(x); }
double Expm1(double x) { return std::expm1(x); }
double Sqrt(double x) { return std::sqrt(x); }
// glibc's cbrt is not correctly rounded (cbrt(27) = 3.0000000000000004); one Newton step in
// long double fixes the last ulp, as Java's StrictMath.cbrt gives exact cubes.
double Cbrt(double x) {
  double r = std::cbrt(x);
  if (!std::isfinite(r) || r == 0) return r;
  long double lr = r;
  lr -= (lr * lr * lr - x) / (3 * lr * lr);
  return static_cast<double>(lr);
}
double Rint(double x) { return std::nearbyint(x); }
double Asinh(double x) {
  return std::isinf(x) ? x : std::log(x + std::sqrt(x * x + 1.0));  // Spark's formula
}
double Acosh(double x) { return std::log(x + std::sqrt(x * x - 1.0)); }
double Atanh(double x) { return 0.5 * (std::log1p(x) - std::log1p(-x)); }

// ---------------------------------------------------------------------------------------------
// mod / pmod

Result<ExprPtr> BindMod(std::string_view name, Args& args, const BindContext& ctx, bool pmod) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 2));
  SILT_RETURN_NOT_OK(NumericArg(name, args, 0, ctx));
  SILT_RETURN_NOT_OK(NumericArg(name, args, 1, ctx));
  const TypePtr& ta = args[0]->type;
  const TypePtr& tb = args[1]->type;
  TypePtr t;
  if (ta->id() == TypeId::kDecimal || tb->id() == TypeId::kDecimal) {
    bool fp = ta->id() == TypeId::kFloat || ta->id() == TypeId::kDouble ||
              tb->id() == TypeId::kFloat || tb->id() == TypeId::kDouble;
    if (fp) {
      t = Dbl();
    } else {
      TypePtr da = ta->id() == TypeId::kDecimal ? ta : DecimalFor(ta->id());
      TypePtr db = tb->id() == TypeId::kDecimal ? tb : DecimalFor(tb->id());
      SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, da, ctx));
      SILT_RETURN_NOT_OK(CoerceArg(name, args, 1, db, ctx));
      int s = std::max(da->scale(), db->scale());
      int p = std::min(da->precision() - da->scale(), db->precision() - db->scale()) + s;
      t = DataType::Decimal(std::min(p, 38), std::min(s, 38));
    }
  } else {
    SILT_ASSIGN_OR_RETURN(t, CommonType(ta, tb));
  }
  if (t->id() != TypeId::kDecimal) {
    SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, t, ctx));
    SILT_RETURN_NOT_OK(CoerceArg(name, args, 1, t, ctx));
  }
  bool ansi = ctx.ansi;
  return MakeCall(std::string(name), t, std::move(args),
                  [t, ansi, pmod](std::span<const Arg> a, size_t rows, const EvalContext&,
                                  Vector* out) -> Status {
                    Status st;
                    if (t->id() == TypeId::kDecimal) {
                      int sa = a[0].vector->type()->scale(), sb = a[1].vector->type()->scale();
                      int s = t->scale();
                      FixedWriter<int128_t> w(out, rows);
                      for (size_t i = 0; i < rows; ++i) {
                        if (AnyNull(a, i)) {
                          w.SetNull(i);
                          continue;
                        }
                        int128_t x = ValAt<int128_t>(a[0], i) * Pow10(s - sa);
                        int128_t y = ValAt<int128_t>(a[1], i) * Pow10(s - sb);
                        if (y == 0) {
                          if (ansi) return RemainderByZero();
                          w.SetNull(i);
                          continue;
                        }
                        int128_t r = x % y;
                        if (pmod && r < 0) r = (r + y) % y;
                        w.Set(i, r);
                      }
                      return Status::OK();
                    }
                    DispatchNumeric(t->id(), [&](auto zero) {
                      using T = decltype(zero);
                      if constexpr (!std::is_same_v<T, int128_t>) {
                        FixedWriter<T> w(out, rows);
                        for (size_t i = 0; i < rows; ++i) {
                          if (AnyNull(a, i)) {
                            w.SetNull(i);
                            continue;
                          }
                          T x = ValAt<T>(a[0], i), y = ValAt<T>(a[1], i);
                          if (y == 0) {
                            if (ansi) {
                              st = RemainderByZero();
                              return;
                            }
                            w.SetNull(i);
                            continue;
                          }
                          T r;
                          if constexpr (std::is_floating_point_v<T>) {
                            r = std::fmod(x, y);
                            if (pmod && r < 0) r = std::fmod(r + y, y);
                          } else {
                            if (y == -1) {
                              r = 0;  // avoids INT_MIN % -1 (Java gives 0)
                            } else {
                              r = static_cast<T>(x % y);
                              if (pmod && r < 0) r = static_cast<T>((r + y) % y);
                            }
                          }
                          w.Set(i, r);
                        }
                      }
                    });
                    return st;
                  });
}

// ---------------------------------------------------------------------------------------------
// rand / randn: Spark's XORShiftRandom (seed + partition index 0) and java.util.Random's
// nextDouble / nextGaussian.

Result<ExprPtr> BindRand(std::string_view name, Args& args, const BindContext&, bool gaussian) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 0, 1));
  SILT_ASSIGN_OR_RETURN(int64_t seed, fn::RandomSeedArg(name, args, 0));
  struct State {
    std::mutex mu;
    XorShiftRandom rng;
    explicit State(int64_t s) : rng(s) {}
  };
  auto state = std::make_shared<State>(seed);
  return MakeCall(
      std::string(name), Dbl(), {},
      [state, gaussian](std::span<const Arg>, size_t rows, const EvalContext&, Vector* out) {
        FixedWriter<double> w(out, rows);
        std::lock_guard<std::mutex> lock(state->mu);
        for (size_t i = 0; i < rows; ++i) {
          w.Set(i, gaussian ? state->rng.NextGaussian() : state->rng.NextDouble());
        }
        return Status::OK();
      },
      /*deterministic=*/false, /*nullable=*/false);
}

// ---------------------------------------------------------------------------------------------
// conv (Spark's NumberConverter)

Result<std::optional<std::string>> Conv(std::string_view num, int from, int to, bool ansi) {
  if (from < 2 || from > 36 || std::abs(to) < 2 || std::abs(to) > 36) return std::nullopt;
  while (!num.empty() && num.front() == ' ') num.remove_prefix(1);
  while (!num.empty() && num.back() == ' ') num.remove_suffix(1);
  if (num.empty()) return std::nullopt;
  bool negative = num[0] == '-';
  if (negative) num.remove_prefix(1);
  uint64_t v = 0;
  bool overflow = false;
  for (char c : num) {
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'z' ? c - 'a' + 10
            : c >= 'A' && c <= 'Z' ? c - 'A' + 10
                                   : 99;
    if (d >= from) break;
    unsigned __int128 n =
        static_cast<unsigned __int128>(v) * static_cast<unsigned>(from) + static_cast<unsigned>(d);
    if (n > std::numeric_limits<uint64_t>::max()) {
      overflow = true;
      break;
    }
    v = static_cast<uint64_t>(n);
  }
  if (overflow) {
    if (ansi) return Overflow("conv");
    v = ~uint64_t{0};
  }
  int64_t sv = static_cast<int64_t>(v);
  if (negative && to > 0) sv = sv < 0 ? -1 : -sv;
  bool out_negative = negative && to < 0;
  if (to < 0 && sv < 0) {
    sv = -sv;
    out_negative = true;
  }
  uint64_t u = static_cast<uint64_t>(sv);
  unsigned base = static_cast<unsigned>(std::abs(to));
  std::string s;
  do {
    unsigned d = static_cast<unsigned>(u % base);
    s.insert(s.begin(), static_cast<char>(d < 10 ? '0' + d : 'A' + d - 10));
    u /= base;
  } while (u);
  if (out_negative) s.insert(s.begin(), '-');
  return std::optional<std::string>(s);
}

}  // namespace

void RegisterMathFunctions(FunctionRegistry& r) {
  Reg(r, {"abs"},
      [](std::string_view n, Args& a, const BindContext& c) { return BindAbsNeg(n, a, c, true); });
  Reg(r, {"negative"},
      [](std::string_view n, Args& a, const BindContext& c) { return BindAbsNeg(n, a, c, false); });
  Reg(r, {"positive"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
    if (a[0]->type->is_interval()) return a[0];
    SILT_RETURN_NOT_OK(NumericArg(n, a, 0, c));
    return a[0];
  });
  Reg(r, {"sign", "signum"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        if (a.size() == 1 && a[0]->type->is_interval()) {
          // Spark: the sign of the interval's months or microseconds, as a double.
          return MakeCall(std::string(n), Dbl(), std::move(a),
                          [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                            FixedWriter<double> w(out, rows);
                            for (size_t i = 0; i < rows; ++i) {
                              if (NullAt(x[0], i)) {
                                w.SetNull(i);
                              } else {
                                w.Set(i, Signum(IntervalAsDouble(x[0], i)));
                              }
                            }
                            return Status::OK();
                          });
        }
        return BindUnaryDouble(n, a, c, Signum);
      });
  Reg(r, {"round"}, [](std::string_view n, Args& a, const BindContext& c) {
    return BindRound(n, a, c, Mode::kHalfUp);
  });
  Reg(r, {"bround"}, [](std::string_view n, Args& a, const BindContext& c) {
    return BindRound(n, a, c, Mode::kHalfEven);
  });
  Reg(r, {"floor"}, [](std::string_view n, Args& a, const BindContext& c) {
    return BindFloorCeil(n, a, c, false);
  });
  Reg(r, {"ceil", "ceiling"}, [](std::string_view n, Args& a, const BindContext& c) {
    return BindFloorCeil(n, a, c, true);
  });
  struct Unary {
    const char* name;
    DoubleFn f;
    std::optional<double> null_below;
  };
  static const Unary kUnary[] = {
      {"sqrt", Sqrt, {}},       {"cbrt", Cbrt, {}},      {"exp", Exp, {}},
      {"expm1", Expm1, {}},     {"ln", Ln, 0.0},         {"log10", Log10, 0.0},
      {"log2", Log2, 0.0},      {"log1p", Log1p, -1.0},  {"sin", std::sin, {}},
      {"cos", std::cos, {}},    {"tan", std::tan, {}},   {"asin", std::asin, {}},
      {"acos", std::acos, {}},  {"atan", std::atan, {}}, {"sinh", std::sinh, {}},
      {"cosh", std::cosh, {}},  {"tanh", std::tanh, {}}, {"asinh", Asinh, {}},
      {"acosh", Acosh, {}},     {"atanh", Atanh, {}},    {"cot", Cot, {}},
      {"sec", Sec, {}},         {"csc", Csc, {}},        {"degrees", Degrees, {}},
      {"radians", Radians, {}}, {"rint", Rint, {}},
  };
  for (const Unary& u : kUnary) {
    Unary copy = u;
    Reg(r, {u.name}, [copy](std::string_view n, Args& a, const BindContext& c) {
      return BindUnaryDouble(n, a, c, copy.f, copy.null_below);
    });
  }
  Reg(r, {"log"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 2));
    if (a.size() == 1) return BindUnaryDouble(n, a, c, Ln, 0.0);
    SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, Dbl(), c));
    SILT_RETURN_NOT_OK(CoerceArg(n, a, 1, Dbl(), c));
    return MakeCall(std::string(n), Dbl(), std::move(a),
                    [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                      FixedWriter<double> w(out, rows);
                      for (size_t i = 0; i < rows; ++i) {
                        double base = ValAt<double>(x[0], i), v = ValAt<double>(x[1], i);
                        if (AnyNull(x, i) || base <= 0 || v <= 0) {
                          w.SetNull(i);
                        } else {
                          w.Set(i, std::log(v) / std::log(base));
                        }
                      }
                      return Status::OK();
                    });
  });
  Reg(r, {"pow", "power"}, [](std::string_view n, Args& a, const BindContext& c) {
    return BindBinaryDouble(n, a, c, [](double x, double y) { return std::pow(x, y); });
  });
  Reg(r, {"atan2"}, [](std::string_view n, Args& a, const BindContext& c) {
    // Spark adds 0.0 to both arguments so that -0.0 behaves as 0.0.
    return BindBinaryDouble(n, a, c,
                            [](double y, double x) { return std::atan2(y + 0.0, x + 0.0); });
  });
  Reg(r, {"hypot"}, [](std::string_view n, Args& a, const BindContext& c) {
    return BindBinaryDouble(n, a, c, [](double x, double y) { return std::hypot(x, y); });
  });
  Reg(r, {"mod"},
      [](std::string_view n, Args& a, const BindContext& c) { return BindMod(n, a, c, false); });
  Reg(r, {"pmod"},
      [](std::string_view n, Args& a, const BindContext& c) { return BindMod(n, a, c, true); });
  Reg(r, {"rand", "random"},
      [](std::string_view n, Args& a, const BindContext& c) { return BindRand(n, a, c, false); });
  Reg(r, {"randn"},
      [](std::string_view n, Args& a, const BindContext& c) { return BindRand(n, a, c, true); });
  for (auto [cname, cvalue] : {std::pair<const char*, double>{"e", M_E}, {"pi", M_PI}}) {
    double value = cvalue;
    Reg(r, {cname}, [value](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
      SILT_RETURN_NOT_OK(CheckArity(n, a, 0, 0));
      return MakeCall(
          std::string(n), Dbl(), {},
          [value](std::span<const Arg>, size_t rows, const EvalContext&, Vector* out) {
            FixedWriter<double> w(out, rows);
            for (size_t i = 0; i < rows; ++i) w.Set(i, value);
            return Status::OK();
          },
          true, false);
    });
  }
  Reg(r, {"factorial"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
    SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, DataType::Int32(), c));
    return MakeCall(std::string(n), DataType::Int64(), std::move(a),
                    [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                      FixedWriter<int64_t> w(out, rows);
                      for (size_t i = 0; i < rows; ++i) {
                        int32_t v = ValAt<int32_t>(x[0], i);
                        if (NullAt(x[0], i) || v < 0 || v > 20) {
                          w.SetNull(i);
                          continue;
                        }
                        int64_t f = 1;
                        for (int k = 2; k <= v; ++k) f *= k;
                        w.Set(i, f);
                      }
                      return Status::OK();
                    });
  });
  Reg(r, {"width_bucket"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 4, 4));
        bool intervals =
            a[0]->type->is_interval() || a[1]->type->is_interval() || a[2]->type->is_interval();
        if (intervals) {
          // Spark: value, min and max all year-month or all day-time intervals; the buckets
          // are computed on their months or microseconds.
          TypeId family = TypeId::kNull;
          for (size_t i = 0; i < 3; ++i) {
            TypeId id = a[i]->type->id();
            if (id == TypeId::kNull) continue;
            if (!a[i]->type->is_interval() || (family != TypeId::kNull && id != family)) {
              return TypeMismatch(n,
                                  "the first three arguments must be numbers, or intervals "
                                  "of the same kind (year-month or day-time)");
            }
            family = id;
          }
        } else {
          for (size_t i = 0; i < 3; ++i) {
            SILT_RETURN_NOT_OK(CoerceArg(n, a, i, Dbl(), c));
          }
        }
        SILT_RETURN_NOT_OK(CoerceArg(n, a, 3, DataType::Int64(), c));
        return MakeCall(
            std::string(n), DataType::Int64(), std::move(a),
            [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
              FixedWriter<int64_t> w(out, rows);
              for (size_t i = 0; i < rows; ++i) {
                if (AnyNull(x, i)) {
                  w.SetNull(i);
                  continue;
                }
                double v = NumberAsDouble(x[0], i), lo = NumberAsDouble(x[1], i),
                       hi = NumberAsDouble(x[2], i);
                int64_t nb = ValAt<int64_t>(x[3], i);
                if (nb <= 0 || nb == std::numeric_limits<int64_t>::max() || std::isnan(v) ||
                    lo == hi || !std::isfinite(lo) || !std::isfinite(hi)) {
                  w.SetNull(i);
                  continue;
                }
                double lower = std::min(lo, hi), upper = std::max(lo, hi);
                int64_t b;
                if (lo < hi) {
                  b = v < lower ? 0
                      : v >= upper
                          ? nb + 1
                          : DoubleToLong(static_cast<double>(nb) * (v - lower) / (upper - lower)) +
                                1;
                } else {
                  b = v > upper ? 0
                      : v <= lower
                          ? nb + 1
                          : DoubleToLong(static_cast<double>(nb) * (upper - v) / (upper - lower)) +
                                1;
                }
                w.Set(i, b);
              }
              return Status::OK();
            });
      });
  Reg(r, {"bin"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
    SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, DataType::Int64(), c));
    return MakeCall(std::string(n), DataType::String(), std::move(a),
                    [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                      fn::StringWriter w(out, rows);
                      for (size_t i = 0; i < rows; ++i) {
                        if (NullAt(x[0], i)) {
                          w.CommitNull();
                          continue;
                        }
                        uint64_t v = static_cast<uint64_t>(ValAt<int64_t>(x[0], i));
                        char buf[65];
                        int p = 64;
                        buf[p] = 0;
                        do {
                          buf[--p] = static_cast<char>('0' + (v & 1));
                          v >>= 1;
                        } while (v);
                        w.Append(std::string_view(buf + p, static_cast<size_t>(64 - p)));
                      }
                      w.Finish();
                      return Status::OK();
                    });
  });
  Reg(r, {"conv"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 3, 3));
    SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, DataType::String(), c));
    SILT_RETURN_NOT_OK(CoerceArg(n, a, 1, DataType::Int32(), c));
    SILT_RETURN_NOT_OK(CoerceArg(n, a, 2, DataType::Int32(), c));
    bool ansi = c.ansi;
    return MakeCall(std::string(n), DataType::String(), std::move(a),
                    [ansi](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                      fn::StringWriter w(out, rows);
                      for (size_t i = 0; i < rows; ++i) {
                        if (AnyNull(x, i)) {
                          w.CommitNull();
                          continue;
                        }
                        SILT_ASSIGN_OR_RETURN(auto s,
                                              Conv(fn::StrAt(x[0], i), ValAt<int32_t>(x[1], i),
                                                   ValAt<int32_t>(x[2], i), ansi));
                        if (s) {
                          w.Append(*s);
                        } else {
                          w.CommitNull();
                        }
                      }
                      w.Finish();
                      return Status::OK();
                    });
  });
  // Bitwise a & b, a | b, a ^ b and ~a over integral types (the wider of the two).
  auto integral_kernel = [](TypeId id, auto&& run) {
    switch (id) {
      case TypeId::kInt8:
        run(int8_t{});
        break;
      case TypeId::kInt16:
        run(int16_t{});
        break;
      case TypeId::kInt32:
        run(int32_t{});
        break;
      default:
        run(int64_t{});
        break;
    }
  };
  for (const char* name : {"&", "|", "^"}) {
    char op = name[0];
    Reg(r, {name},
        [op, integral_kernel](std::string_view n, Args& a,
                              const BindContext& c) -> Result<ExprPtr> {
          SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
          for (size_t i = 0; i < 2; ++i) {
            if (!IsIntegralId(a[i]->type->id()) && a[i]->type->id() != TypeId::kNull) {
              return fn::UnexpectedType(n, i, "\"INTEGRAL\"", a[i]->type);
            }
          }
          static const TypeId kOrder[] = {TypeId::kInt8, TypeId::kInt16, TypeId::kInt32,
                                          TypeId::kInt64};
          auto rank = [](TypeId id) {
            return static_cast<int>(std::find(std::begin(kOrder), std::end(kOrder), id) -
                                    std::begin(kOrder));
          };
          TypeId wide =
              kOrder[std::min(3, std::max(rank(a[0]->type->id()) % 4, rank(a[1]->type->id()) % 4))];
          TypePtr t = wide == TypeId::kInt8    ? DataType::Int8()
                      : wide == TypeId::kInt16 ? DataType::Int16()
                      : wide == TypeId::kInt32 ? DataType::Int32()
                                               : DataType::Int64();
          SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, t, c));
          SILT_RETURN_NOT_OK(CoerceArg(n, a, 1, t, c));
          return MakeCall(
              std::string(n), t, std::move(a),
              [op, wide, integral_kernel](std::span<const Arg> x, size_t rows, const EvalContext&,
                                          Vector* out) {
                integral_kernel(wide, [&](auto zero) {
                  using T = decltype(zero);
                  MapBinary<T, T, T>(x[0], x[1], rows, out, [op](T l, T r) {
                    return static_cast<T>(op == '&' ? (l & r) : op == '|' ? (l | r) : (l ^ r));
                  });
                });
                return Status::OK();
              });
        });
  }
  Reg(r, {"~"},
      [integral_kernel](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
        TypeId id = a[0]->type->id();
        if (!IsIntegralId(id)) return fn::UnexpectedType(n, 0, "\"INTEGRAL\"", a[0]->type);
        TypePtr t = a[0]->type;
        return MakeCall(std::string(n), t, std::move(a),
                        [id, integral_kernel](std::span<const Arg> x, size_t rows,
                                              const EvalContext&, Vector* out) {
                          integral_kernel(id, [&](auto zero) {
                            using T = decltype(zero);
                            MapUnary<T, T>(x[0], rows, out, [](T v) { return static_cast<T>(~v); });
                          });
                          return Status::OK();
                        });
      });
  for (int kind = 0; kind < 3; ++kind) {
    static const char* kNames[] = {"shiftleft", "shiftright", "shiftrightunsigned"};
    static const char* kOperators[] = {"<<", ">>", ">>>"};  // the operators' spelling
    Reg(r, {kNames[kind], kOperators[kind]},
        [kind](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
          SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
          TypeId id = a[0]->type->id();
          TypePtr t = id == TypeId::kInt64 ? DataType::Int64() : DataType::Int32();
          SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, t, c));
          SILT_RETURN_NOT_OK(CoerceArg(n, a, 1, DataType::Int32(), c));
          return MakeCall(
              std::string(n), t, std::move(a),
              [kind, t](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                auto run = [&](auto zero) {
                  using T = decltype(zero);
                  using U = std::make_unsigned_t<T>;
                  constexpr int kMask = sizeof(T) * 8 - 1;
                  MapBinary<T, T, int32_t>(x[0], x[1], rows, out, [&](T v, int32_t s) {
                    int sh = s & kMask;
                    if (kind == 0) return static_cast<T>(static_cast<U>(v) << sh);
                    if (kind == 1) return static_cast<T>(v >> sh);
                    return static_cast<T>(static_cast<U>(v) >> sh);
                  });
                };
                if (t->id() == TypeId::kInt64) {
                  run(int64_t{});
                } else {
                  run(int32_t{});
                }
                return Status::OK();
              });
        });
  }
}

}  // namespace silt::exec
