// Spark's CAST semantics on single values and the type helpers the function library shares:
// numeric type ranks, decimal result types, string ↔ value conversions as Spark prints and
// parses them. BindCast (functions.h) builds vectorized kernels on top of these.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "vector/types.h"
#include "vector/value.h"

namespace silt::exec {

bool IsIntegral(TypeId id);
bool IsNumeric(TypeId id);
bool IsDatetime(TypeId id);
// The decimal type that holds every value of an integral type (int → decimal(10,0)).
TypePtr DecimalForIntegral(TypeId id);
// Spark's DecimalType.bounded + adjustPrecisionScale (allowPrecisionLoss = true).
TypePtr AdjustedDecimal(int precision, int scale);

namespace detail {
constexpr std::array<int128_t, 39> MakePow10() {
  std::array<int128_t, 39> t{};
  t[0] = 1;
  for (size_t i = 1; i < t.size(); ++i) t[i] = t[i - 1] * 10;
  return t;
}
inline constexpr std::array<int128_t, 39> kPow10 = MakePow10();
}  // namespace detail
// 10^n for 0 <= n <= 38 (a table: this sits in the decimal arithmetic hot loops).
// Out of that range it wraps like the int128 arithmetic it replaces (callers check precision).
inline int128_t Pow10(int n) {
  if (n >= 0 && n < 39) return detail::kPow10[n];
  unsigned __int128 r = 1;
  for (int i = 0; i < n; ++i) r *= 10;
  return static_cast<int128_t>(r);
}
// Whether `unscaled` fits in `precision` digits.
inline bool FitsPrecision(int128_t unscaled, int precision) {
  int128_t lim = Pow10(precision);
  return unscaled < lim && unscaled > -lim;
}
// Rescales an unscaled decimal from scale `from` to `to`, rounding HALF_UP.
int128_t RescaleDown(int128_t unscaled, int from, int to);
inline int128_t Rescale(int128_t unscaled, int from, int to) {
  return to >= from ? unscaled * Pow10(to - from) : RescaleDown(unscaled, from, to);
}

// Whether Spark can cast `from` to `to` at all (non-ANSI rules; ANSI refuses a few more at run
// time, not here).
bool CanCast(const TypePtr& from, const TypePtr& to);

// Casts one value. Invalid input / overflow: NULL (ok) unless `ansi`, then CAST_INVALID_INPUT /
// CAST_OVERFLOW errors with Spark's messages.
Result<Value> CastValue(const Value& v, const TypePtr& to, bool ansi);

// Spark's string form of a value for CAST(x AS STRING): doubles as Java prints them ("1.0E10"),
// timestamps "yyyy-MM-dd HH:mm:ss[.ffffff]" without trailing zeros (UTC), dates "yyyy-MM-dd".
std::string CastToString(const Value& v);

}  // namespace silt::exec
