// Spark's CAST semantics on single values and the type helpers the function library shares:
// numeric type ranks, decimal result types, string ↔ value conversions as Spark prints and
// parses them. BindCast (functions.h) builds vectorized kernels on top of these.
#pragma once

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
// 10^n as int128 (n ≤ 38).
int128_t Pow10(int n);
// Whether `unscaled` fits in `precision` digits.
bool FitsPrecision(int128_t unscaled, int precision);
// Rescales an unscaled decimal from scale `from` to `to`, rounding HALF_UP.
int128_t Rescale(int128_t unscaled, int from, int to);

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
