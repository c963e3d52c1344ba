// Internal to the aggregate function library (aggregate_functions.cc and the families in their
// own files): state access, argument views, and the factories of the functions defined in
// aggregate_distinct.cc and aggregate_statistics.cc.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#include "exec/aggregate.h"

namespace silt::exec::agg {

using FnPtr = std::shared_ptr<const AggregateFunction>;

template <typename T>
inline T& St(uint8_t* p) {
  return *std::launder(reinterpret_cast<T*>(p));
}
template <typename T>
inline const T& St(const uint8_t* p) {
  return *std::launder(reinterpret_cast<const T*>(p));
}

// Broadcast-aware view of an argument: a constant argument reads row 0 for every row.
struct ArgView {
  const Vector* v;
  size_t stride;
  bool null_type;
  explicit ArgView(const Arg& a)
      : v(a.vector), stride(a.constant ? 0 : 1), null_type(a.vector->id() == TypeId::kNull) {}
  size_t row(size_t i) const { return i * stride; }
  bool may_null() const { return null_type || v->may_have_nulls(); }
  bool null(size_t i) const { return null_type || v->IsNull(i * stride); }
  template <typename T>
  const T* data() const {
    return v->data<T>();
  }
};

// Converts an argument to doubles (NULL rows: valid[i] = 0). Integral, floating, TIME and
// interval inputs only; decimals and strings are cast at bind time.
inline void ToDoubles(const Arg& a, size_t rows, std::vector<double>* out,
                      std::vector<uint8_t>* valid) {
  ArgView v(a);
  out->resize(rows);
  valid->assign(rows, 1);
  double* o = out->data();
  auto conv = [&](auto tag) {
    using T = decltype(tag);
    const T* d = v.data<T>();
    for (size_t i = 0; i < rows; ++i) o[i] = static_cast<double>(d[v.row(i)]);
  };
  switch (a.vector->id()) {
    case TypeId::kInt8:
      conv(int8_t{});
      break;
    case TypeId::kInt16:
      conv(int16_t{});
      break;
    case TypeId::kInt32:
    case TypeId::kYearMonthInterval:  // months
      conv(int32_t{});
      break;
    case TypeId::kInt64:
    case TypeId::kTime:             // nanoseconds since midnight: exact in a double (< 2^47)
    case TypeId::kDayTimeInterval:  // microseconds
      conv(int64_t{});
      break;
    case TypeId::kFloat:
      conv(float{});
      break;
    case TypeId::kDouble:
      conv(double{});
      break;
    default:
      valid->assign(rows, 0);
      return;  // void: all NULL
  }
  if (v.may_null()) {
    for (size_t i = 0; i < rows; ++i) (*valid)[i] = !v.null(i);
  }
}

// Spark's value order for min/max: NaN above everything, -0.0 equal to 0.0.
template <typename T>
inline int Cmp(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
  }
  return a < b ? -1 : (b < a ? 1 : 0);
}

// ---- aggregate_distinct.cc

// `inner` over the distinct argument tuples of each group (argument types `arg_types`).
FnPtr MakeDistinct(FnPtr inner, std::vector<TypePtr> arg_types);
// The inner aggregate of a MakeDistinct function (count of count(DISTINCT x), collect_list of
// collect_set); null for any other function.
FnPtr DistinctInner(const AggregateFunction& fn);

// ---- aggregate_statistics.cc

enum class MomentKind { kVarSamp, kVarPop, kStddevSamp, kStddevPop };
enum class CovKind { kCovarPop, kCovarSamp, kCorr };

// var_samp / var_pop / stddev_samp / stddev_pop over doubles (Spark's Welford updates).
FnPtr MakeCentralMoment(MomentKind kind);
// covar_samp / covar_pop / corr over two double arguments.
FnPtr MakeCovariance(CovKind kind);
// approx_count_distinct as HyperLogLog with 2^p registers.
FnPtr MakeHll(int p);
// percentile / median / percentile_cont (exact, interpolated) and percentile_disc (discrete:
// the first value whose cumulative distribution reaches p) of doubles, in ascending or
// descending order.
// `result_type` TIME(p) (a TIME argument): the percentile as a TIME, truncated to the nanosecond.
FnPtr MakePercentile(double p, bool discrete = false, bool descending = false,
                     TypePtr result_type = nullptr);
// ---- aggregate_histogram.cc

// histogram_numeric(x, nb) of a numeric, datetime or interval argument of type `type` (null for
// other types): array<struct<x: type, y: double>>.
FnPtr MakeHistogramNumeric(const TypePtr& type, size_t nb);

// percentile_approx of a numeric, date or timestamp argument of type `type`; null for other
// types.
FnPtr MakePercentileApprox(const TypePtr& type, double p, int64_t accuracy);

}  // namespace silt::exec::agg
