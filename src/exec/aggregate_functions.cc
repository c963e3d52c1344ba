// Spark's aggregate functions over inline per-group states (see exec/aggregate.h).
//
// Every function is a class whose Update is a tight loop over the argument arrays; types are
// resolved at bind time into template instantiations ("slots" say how a value of a type is read,
// compared, stored in a state and emitted). Results follow Spark 3.5:
//   count → bigint (never NULL); sum(integral) → bigint (wraps, ANSI: ARITHMETIC_OVERFLOW);
//   sum(float/double) → double; sum(decimal(p,s)) → decimal(min(38,p+10), s), NULL on overflow
//   (ANSI: ARITHMETIC_OVERFLOW); avg(numeric) → double; avg(decimal(p,s)) → decimal(p+4, s+4)
//   bounded at 38, computed like Spark's Decimal division (38 significant digits HALF_UP, then
//   HALF_UP to the result scale); variance family with Spark's Welford updates and merges (NULL for
//   n = 1 in the sample variants); approx_count_distinct as HyperLogLog with Spark's register count
//   for the given rsd and Ertl's improved raw estimator (no empirical bias tables: the estimate is
//   not Spark's bit for bit, but its error is within the same bound, ~1.04/sqrt(2^p)).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <unordered_map>

#include "common/ascii.h"
#include "common/error_classes.h"
#include "exec/aggregate.h"
#include "exec/aggregate_util.h"
#include "exec/kernel_util.h"
#include "exec/row_hash.h"

namespace silt::exec {

namespace {

using uint128_t = unsigned __int128;
using agg::ArgView;
using agg::Cmp;
using agg::St;
using agg::ToDoubles;

Status OverflowError(const std::string& what, std::string_view try_fn) {
  return Status::InvalidArgument(
      what + ". Use '" + std::string(try_fn) +
          "' to tolerate overflow and return NULL instead. If necessary "
          "set spark.sql.ansi.enabled to \"false\" to bypass this error.",
      errc::kArithmeticOverflow);
}

Status Mismatch(std::string_view fn, const std::string& why) {
  return Status::InvalidArgument(
      "Cannot resolve \"" + std::string(fn) + "\" due to data type mismatch: " + why,
      errc::kDatatypeMismatch);
}

const int128_t* Pow10Table() {
  static const auto* table = [] {
    auto* t = new int128_t[39];
    t[0] = 1;
    for (int i = 1; i <= 38; ++i) t[i] = t[i - 1] * 10;
    return t;
  }();
  return table;
}
inline int128_t Pow10(int n) { return Pow10Table()[n]; }

int Digits(uint128_t v) {
  int d = 0;
  while (v) {
    v /= 10;
    ++d;
  }
  return d;
}

// --- slots: how a value of one physical type lives in a state

template <typename T>
struct FixedSlot {
  using Stored = T;
  static void Load(const Vector& v, size_t i, Stored* d) { *d = v.data<T>()[i]; }
  static Status Emit(const Stored& s, Vector* out) {
    out->Append<T>(s);
    return Status::OK();
  }
  static int Compare(const Vector& v, size_t i, const Stored& s) {
    return Cmp<T>(v.data<T>()[i], s);
  }
  static int CompareStored(const Stored& a, const Stored& b) { return Cmp<T>(a, b); }
};

struct StringSlot {
  using Stored = std::string;
  static void Load(const Vector& v, size_t i, Stored* d) {
    std::string_view s = v.GetString(i);
    d->assign(s.data(), s.size());
  }
  static Status Emit(const Stored& s, Vector* out) {
    out->AppendString(s);
    return Status::OK();
  }
  // Unsigned byte order (Spark compares UTF8String / binary bytes unsigned).
  static int Compare(const Vector& v, size_t i, const Stored& s) {
    int c = v.GetString(i).compare(std::string_view(s));
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  static int CompareStored(const Stored& a, const Stored& b) {
    int c = a.compare(b);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
};

// Any type (nested, void): a Value per state. Slow path; not orderable here.
struct ValueSlot {
  using Stored = Value;
  static void Load(const Vector& v, size_t i, Stored* d) { *d = v.GetValue(i); }
  static Status Emit(const Stored& s, Vector* out) { return out->AppendValue(s); }
};

// Calls make.template operator()<Slot>() with the slot for `type`; orderable = false also accepts
// nested and void types (ValueSlot).
template <bool kAllowAny, typename Make>
auto DispatchSlot(const TypePtr& type, Make&& make)
    -> decltype(make.template operator()<StringSlot>()) {
  switch (type->id()) {
    case TypeId::kBoolean:
      return make.template operator()<FixedSlot<uint8_t>>();
    case TypeId::kInt8:
      return make.template operator()<FixedSlot<int8_t>>();
    case TypeId::kInt16:
      return make.template operator()<FixedSlot<int16_t>>();
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return make.template operator()<FixedSlot<int32_t>>();
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kTime:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
    case TypeId::kDayTimeInterval:
      return make.template operator()<FixedSlot<int64_t>>();
    case TypeId::kFloat:
      return make.template operator()<FixedSlot<float>>();
    case TypeId::kDouble:
      return make.template operator()<FixedSlot<double>>();
    case TypeId::kDecimal:
      return make.template operator()<FixedSlot<int128_t>>();
    case TypeId::kString:
    case TypeId::kBinary:
      return make.template operator()<StringSlot>();
    default:
      if constexpr (kAllowAny) {
        return make.template operator()<ValueSlot>();
      } else {
        return Status::NotImplemented("ordering of " + type->ToString() + " values in aggregates");
      }
  }
}

using agg::FnPtr;

// ---------------------------------------------------------------- count

class CountFn final : public AggregateFunction {
 public:
  explicit CountFn(bool star) : star_(star) { result_type_ = DataType::Int64(); }
  size_t state_size() const override { return sizeof(int64_t); }
  void Init(uint8_t* s) const override { St<int64_t>(s) = 0; }
  Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                const EvalContext&) const override {
    bool any_null = false;
    if (!star_) {
      for (const Arg& a : args) any_null |= ArgView(a).may_null();
    }
    if (!any_null) {
      for (size_t i = 0; i < rows; ++i) ++St<int64_t>(states[i]);
      return Status::OK();
    }
    for (size_t i = 0; i < rows; ++i) {
      bool skip = false;
      for (const Arg& a : args) skip |= ArgView(a).null(i);
      St<int64_t>(states[i]) += skip ? 0 : 1;
    }
    return Status::OK();
  }
  Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext&) const override {
    St<int64_t>(dst) += St<int64_t>(src);
    return Status::OK();
  }
  Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                  const EvalContext&) const override {
    for (size_t i = 0; i < n; ++i) out->Append<int64_t>(St<int64_t>(states[i]));
    return Status::OK();
  }

 private:
  bool star_;
};

class CountIfFn final : public AggregateFunction {
 public:
  CountIfFn() { result_type_ = DataType::Int64(); }
  size_t state_size() const override { return sizeof(int64_t); }
  void Init(uint8_t* s) const override { St<int64_t>(s) = 0; }
  Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                const EvalContext&) const override {
    ArgView v(args[0]);
    if (v.null_type) return Status::OK();
    const uint8_t* d = v.data<uint8_t>();
    for (size_t i = 0; i < rows; ++i) St<int64_t>(states[i]) += (d[v.row(i)] && !v.null(i)) ? 1 : 0;
    return Status::OK();
  }
  Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext&) const override {
    St<int64_t>(dst) += St<int64_t>(src);
    return Status::OK();
  }
  Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                  const EvalContext&) const override {
    for (size_t i = 0; i < n; ++i) out->Append<int64_t>(St<int64_t>(states[i]));
    return Status::OK();
  }
};

// ---------------------------------------------------------------- sum / avg

// sum(integral) → bigint. Non-ANSI wraps like Spark's long addition; ANSI fails; try_sum → NULL.
template <typename T>
class SumIntFn final : public AggregateFunction {
 public:
  explicit SumIntFn(bool try_mode) : try_(try_mode) { result_type_ = DataType::Int64(); }
  struct State {
    int64_t sum;
    bool has;
    bool overflow;
  };
  size_t state_size() const override { return sizeof(State); }
  void Init(uint8_t* s) const override { St<State>(s) = State{0, false, false}; }
  Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                const EvalContext& ctx) const override {
    ArgView v(args[0]);
    if (v.null_type) return Status::OK();
    const T* d = v.data<T>();
    const bool nulls = v.may_null();
    if (!try_ && !ctx.ansi) {
      for (size_t i = 0; i < rows; ++i) {
        if (nulls && v.null(i)) continue;
        State& s = St<State>(states[i]);
        s.sum = static_cast<int64_t>(static_cast<uint64_t>(s.sum) +
                                     static_cast<uint64_t>(static_cast<int64_t>(d[v.row(i)])));
        s.has = true;
      }
      return Status::OK();
    }
    for (size_t i = 0; i < rows; ++i) {
      if (nulls && v.null(i)) continue;
      State& s = St<State>(states[i]);
      s.has = true;
      if (__builtin_add_overflow(s.sum, static_cast<int64_t>(d[v.row(i)]), &s.sum)) {
        if (!try_) return OverflowError("long overflow", "try_sum");
        s.overflow = true;
      }
    }
    return Status::OK();
  }
  Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext& ctx) const override {
    const State& a = St<State>(src);
    State& b = St<State>(dst);
    if (!a.has) return Status::OK();
    b.has = true;
    b.overflow |= a.overflow;
    if (!try_ && !ctx.ansi) {
      b.sum = static_cast<int64_t>(static_cast<uint64_t>(b.sum) + static_cast<uint64_t>(a.sum));
    } else if (__builtin_add_overflow(b.sum, a.sum, &b.sum)) {
      if (!try_) return OverflowError("long overflow", "try_sum");
      b.overflow = true;
    }
    return Status::OK();
  }
  Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                  const EvalContext&) const override {
    for (size_t i = 0; i < n; ++i) {
      const State& s = St<State>(states[i]);
      if (s.has && !s.overflow) {
        out->Append<int64_t>(s.sum);
      } else {
        out->AppendNull();
      }
    }
    return Status::OK();
  }

 private:
  bool try_;
};

// sum/avg of a year-month (T = int32_t months) or day-time (T = int64_t micros) interval: an
// interval of the same kind with Spark's default fields; the sum must fit the type (ARITHMETIC_
// OVERFLOW otherwise) and the average rounds HALF_UP as Spark's interval division does.
template <typename T>
class IntervalSumFn final : public AggregateFunction {
 public:
  IntervalSumFn(bool avg, bool try_mode) : avg_(avg), try_(try_mode) {
    result_type_ =
        std::is_same_v<T, int32_t> ? DataType::YearMonthInterval() : DataType::DayTimeInterval();
  }
  struct State {
    __int128 sum;
    int64_t count;
  };
  size_t state_size() const override { return sizeof(State); }
  void Init(uint8_t* s) const override { St<State>(s) = State{0, 0}; }
  Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                const EvalContext&) const override {
    ArgView v(args[0]);
    if (v.null_type) return Status::OK();
    const T* d = v.data<T>();
    const bool nulls = v.may_null();
    for (size_t i = 0; i < rows; ++i) {
      if (nulls && v.null(i)) continue;
      State& s = St<State>(states[i]);
      s.sum += d[v.row(i)];
      ++s.count;
    }
    return Status::OK();
  }
  Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext&) const override {
    const State& a = St<State>(src);
    State& b = St<State>(dst);
    b.sum += a.sum;
    b.count += a.count;
    return Status::OK();
  }
  Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                  const EvalContext&) const override {
    constexpr __int128 lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
    for (size_t i = 0; i < n; ++i) {
      const State& s = St<State>(states[i]);
      if (s.count == 0) {
        out->AppendNull();
        continue;
      }
      __int128 v = s.sum;
      if (avg_) {
        __int128 q = v / s.count, r = v % s.count;
        if (r != 0 && (r < 0 ? -r : r) * 2 >= s.count) q += v < 0 ? -1 : 1;
        v = q;
      }
      if (v < lo || v > hi) {
        if (try_) {
          out->AppendNull();
          continue;
        }
        return OverflowError(std::is_same_v<T, int32_t> ? "integer overflow" : "long overflow",
                             avg_ ? "try_avg" : "try_sum");
      }
      out->Append<T>(static_cast<T>(v));
    }
    return Status::OK();
  }

 private:
  bool avg_;
  bool try_;
};

// sum(float/double) → double; avg(integral/float/double) → double (Spark sums as double).
template <typename T>
class SumDoubleFn final : public AggregateFunction {
 public:
  explicit SumDoubleFn(bool avg) : avg_(avg) { result_type_ = DataType::Double(); }
  struct State {
    double sum;
    int64_t count;
  };
  size_t state_size() const override { return sizeof(State); }
  void Init(uint8_t* s) const override { St<State>(s) = State{0.0, 0}; }
  Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                const EvalContext&) const override {
    ArgView v(args[0]);
    if constexpr (std::is_void_v<T>) {
      return Status::OK();
    } else {
      const T* d = v.data<T>();
      if (!v.may_null()) {
        for (size_t i = 0; i < rows; ++i) {
          State& s = St<State>(states[i]);
          s.sum += static_cast<double>(d[v.row(i)]);
          ++s.count;
        }
      } else {
        for (size_t i = 0; i < rows; ++i) {
          if (v.null(i)) continue;
          State& s = St<State>(states[i]);
          s.sum += static_cast<double>(d[v.row(i)]);
          ++s.count;
        }
      }
      return Status::OK();
    }
  }
  Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext&) const override {
    St<State>(dst).sum += St<State>(src).sum;
    St<State>(dst).count += St<State>(src).count;
    return Status::OK();
  }
  Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                  const EvalContext&) const override {
    for (size_t i = 0; i < n; ++i) {
      const State& s = St<State>(states[i]);
      if (s.count == 0) {
        out->AppendNull();
      } else {
        out->Append<double>(avg_ ? s.sum / static_cast<double>(s.count) : s.sum);
      }
    }
    return Status::OK();
  }

 private:
  bool avg_;
};

// Rounds num/den (den > 0) like Spark's Decimal division followed by toPrecision: the quotient
// is first rounded HALF_UP to 38 significant digits, then HALF_UP to `k2` more digits than num's
// scale. Sets *overflow when the result needs more than `precision` digits.
int128_t DecimalDivideRound(int128_t num, int64_t den, int k2, int precision, bool* overflow) {
  bool neg = num < 0;
  uint128_t a = neg ? static_cast<uint128_t>(-num) : static_cast<uint128_t>(num);
  uint128_t d = static_cast<uint128_t>(den);
  uint128_t q0 = a / d, r = a % d;
  int digits = Digits(q0);
  uint128_t res = q0;
  if (q0 != 0 && 38 - digits < k2) {
    int k1 = 38 - digits;
    if (digits + k2 > 38) {
      *overflow = true;
      return 0;
    }
    for (int i = 0; i < k1; ++i) {
      r *= 10;
      res = res * 10 + r / d;
      r %= d;
    }
    if (2 * r >= d) res += 1;
    for (int i = k1; i < k2; ++i) res *= 10;
  } else {
    if (digits + k2 > 38) {
      *overflow = true;
      return 0;
    }
    for (int i = 0; i < k2; ++i) {
      r *= 10;
      res = res * 10 + r / d;
      r %= d;
    }
    int m = q0 == 0 ? 38 : 38 - digits - k2;  // digits the first rounding keeps beyond k2
    bool up;
    if (m == 0 || m >= 20) {
      up = 2 * r >= d;
    } else {
      uint128_t p = static_cast<uint128_t>(Pow10(m));
      up = 2 * r * p + d >= d * p;  // the 38-digit rounding carries the tail to >= 0.5
    }
    if (up) res += 1;
  }
  if (res >= static_cast<uint128_t>(Pow10(precision))) {
    *overflow = true;
    return 0;
  }
  return neg ? -static_cast<int128_t>(res) : static_cast<int128_t>(res);
}

// sum/avg of decimal(p,s). The running sum is bounded to decimal(min(38,p+10), s): exceeding it
// makes the result NULL (sticky, as in Spark) or, under ANSI, an ARITHMETIC_OVERFLOW error.
class DecimalSumFn final : public AggregateFunction {
 public:
  DecimalSumFn(int p, int s, bool avg, bool try_mode)
      : input_precision_(p), scale_(s), avg_(avg), try_(try_mode) {
    sum_precision_ = std::min(38, p + 10);
    limit_ = Pow10(sum_precision_);
    if (avg) {
      result_type_ = DataType::Decimal(std::min(38, p + 4), std::min(38, s + 4));
    } else {
      result_type_ = DataType::Decimal(sum_precision_, s);
    }
  }
  // The sum is `sum + partial`. Inputs of at most 18 digits accumulate in the 64-bit partial and
  // fold into `sum` (with its range check) when the partial would overflow or at the end: the hot
  // loop then adds 64-bit words. Any partial is below 2^63 < 10^19 <= the limit (p + 10 >= 19
  // digits), so it alone never passes the limit.
  struct State {
    int128_t sum;
    int64_t partial;
    int64_t count;
    bool overflow;
  };
  size_t state_size() const override { return sizeof(State); }
  void Init(uint8_t* s) const override { St<State>(s) = State{0, 0, 0, false}; }
  bool word_partials() const { return input_precision_ >= 9 && input_precision_ <= 18; }

  Status Add(State& s, int128_t v, const EvalContext& ctx) const {
    int128_t t;
    if (__builtin_add_overflow(s.sum, v, &t) || t >= limit_ || t <= -limit_) {
      if (ctx.ansi && !try_)
        return OverflowError("Overflow in sum of decimals", avg_ ? "try_avg" : "try_sum");
      s.overflow = true;
    }
    s.sum = t;
    return Status::OK();
  }
  Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                const EvalContext& ctx) const override {
    ArgView v(args[0]);
    const int128_t* d = v.data<int128_t>();
    const bool nulls = v.may_null();
    // Inputs of at most 28 digits cannot overflow int128 when added to a sum within the limit
    // (< 10^38): only the limit needs checking.
    const bool small = input_precision_ <= 28;
    // Wider inputs (a product of decimals, TPC-H Q1's sum(price * (1 - disc) * (1 + tax))) take
    // the same 64-bit loop when every value of the chunk fits in 64 bits: the limit is then
    // 10^(p + 10) >= 10^29 > 2^63.
    if (word_partials() ||
        (input_precision_ > 18 && !v.null_type && AllFitInt64(d, v.stride == 0, rows))) {
      for (size_t i = 0; i < rows; ++i) {
        if (nulls && v.null(i)) continue;
        State& s = St<State>(states[i]);
        ++s.count;
        const int64_t x = static_cast<int64_t>(d[v.row(i)]);
        if (__builtin_add_overflow(s.partial, x, &s.partial)) [[unlikely]] {
          // The wrapped partial is off by exactly 2^64: fold the true value.
          const int128_t t =
              static_cast<int128_t>(s.partial) +
              (x < 0 ? -(static_cast<int128_t>(1) << 64) : (static_cast<int128_t>(1) << 64));
          s.partial = 0;
          if (!s.overflow) SILT_RETURN_NOT_OK(Add(s, t, ctx));
        }
      }
      return Status::OK();
    }
    for (size_t i = 0; i < rows; ++i) {
      if (nulls && v.null(i)) continue;
      State& s = St<State>(states[i]);
      ++s.count;
      if (s.overflow) continue;
      int128_t x = d[v.row(i)];
      int128_t t;
      if (small) {
        t = s.sum + x;
      } else if (__builtin_add_overflow(s.sum, x, &t)) {
        SILT_RETURN_NOT_OK(Add(s, x, ctx));
        continue;
      }
      if (t >= limit_ || t <= -limit_) [[unlikely]] {
        SILT_RETURN_NOT_OK(Add(s, x, ctx));
      } else {
        s.sum = t;
      }
    }
    return Status::OK();
  }
  Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext& ctx) const override {
    const State& a = St<State>(src);
    State& b = St<State>(dst);
    b.count += a.count;
    b.overflow |= a.overflow;
    if (!b.overflow) SILT_RETURN_NOT_OK(Add(b, a.sum, ctx));
    if (!b.overflow) SILT_RETURN_NOT_OK(Add(b, a.partial, ctx));
    return Status::OK();
  }
  Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                  const EvalContext& ctx) const override {
    for (size_t i = 0; i < n; ++i) {
      State s = St<State>(states[i]);
      if (!s.overflow && s.partial != 0) SILT_RETURN_NOT_OK(Add(s, s.partial, ctx));
      if (s.count == 0 || s.overflow) {
        out->AppendNull();
        continue;
      }
      if (!avg_) {
        out->Append<int128_t>(s.sum);
        continue;
      }
      bool overflow = false;
      int128_t r = DecimalDivideRound(s.sum, s.count, result_type_->scale() - scale_,
                                      result_type_->precision(), &overflow);
      if (overflow) {
        if (ctx.ansi && !try_) {
          return OverflowError("Overflow in average of decimals", "try_avg");
        }
        out->AppendNull();
      } else {
        out->Append<int128_t>(r);
      }
    }
    return Status::OK();
  }

 private:
  int input_precision_;
  int scale_;
  int sum_precision_;
  int128_t limit_;
  bool avg_;
  bool try_;
};

// ---------------------------------------------------------------- min / max / first / last

template <typename Slot, bool kMax>
class MinMaxFn final : public AggregateFunction {
 public:
  explicit MinMaxFn(TypePtr type) { result_type_ = std::move(type); }
  struct State {
    typename Slot::Stored value;
    bool has;
  };
  size_t state_size() const override { return sizeof(State); }
  void Init(uint8_t* s) const override { new (s) State{typename Slot::Stored{}, false}; }
  void Destroy(uint8_t* s) const override { St<State>(s).~State(); }
  Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                const EvalContext&) const override {
    ArgView v(args[0]);
    const bool nulls = v.may_null();
    for (size_t i = 0; i < rows; ++i) {
      if (nulls && v.null(i)) continue;
      State& s = St<State>(states[i]);
      size_t r = v.row(i);
      if (!s.has) {
        Slot::Load(*v.v, r, &s.value);
        s.has = true;
      } else {
        int c = Slot::Compare(*v.v, r, s.value);
        if (kMax ? c > 0 : c < 0) Slot::Load(*v.v, r, &s.value);
      }
    }
    return Status::OK();
  }
  Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext&) const override {
    const State& a = St<State>(src);
    State& b = St<State>(dst);
    if (!a.has) return Status::OK();
    int c = b.has ? Slot::CompareStored(a.value, b.value) : 0;
    if (!b.has || (kMax ? c > 0 : c < 0)) {
      b.value = a.value;
      b.has = true;
    }
    return Status::OK();
  }
  Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                  const EvalContext&) const override {
    for (size_t i = 0; i < n; ++i) {
      const State& s = St<State>(states[i]);
      if (s.has) {
        SILT_RETURN_NOT_OK(Slot::Emit(s.value, out));
      } else {
        out->AppendNull();
      }
    }
    return Status::OK();
  }
};

// first/last (and any_value): the first/last row's value in input order; with ignore_nulls the
// first/last non-NULL one. Under parallel aggregation "first" is the first of some partial.
template <typename Slot>
class FirstLastFn final : public AggregateFunction {
 public:
  FirstLastFn(TypePtr type, bool last, bool ignore_nulls)
      : last_(last), ignore_nulls_(ignore_nulls) {
    result_type_ = std::move(type);
  }
  struct State {
    typename Slot::Stored value;
    bool set;
    bool is_null;
  };
  size_t state_size() const override { return sizeof(State); }
  void Init(uint8_t* s) const override { new (s) State{typename Slot::Stored{}, false, false}; }
  void Destroy(uint8_t* s) const override { St<State>(s).~State(); }
  Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                const EvalContext&) const override {
    ArgView v(args[0]);
    for (size_t i = 0; i < rows; ++i) {
      State& s = St<State>(states[i]);
      if (s.set && !last_) continue;
      if (v.null(i)) {
        if (ignore_nulls_) continue;
        s.set = true;
        s.is_null = true;
      } else {
        Slot::Load(*v.v, v.row(i), &s.value);
        s.set = true;
        s.is_null = false;
      }
    }
    return Status::OK();
  }
  Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext&) const override {
    const State& a = St<State>(src);
    State& b = St<State>(dst);
    if (a.set && (last_ || !b.set)) {
      b.value = a.value;
      b.set = true;
      b.is_null = a.is_null;
    }
    return Status::OK();
  }
  Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                  const EvalContext&) const override {
    for (size_t i = 0; i < n; ++i) {
      const State& s = St<State>(states[i]);
      if (s.set && !s.is_null) {
        SILT_RETURN_NOT_OK(Slot::Emit(s.value, out));
      } else {
        out->AppendNull();
      }
    }
    return Status::OK();
  }

 private:
  bool last_;
  bool ignore_nulls_;
};

// max_by(x, ord) / min_by(x, ord): x of the row with the largest/smallest ord (first such row on
// ties); rows with a NULL ord are skipped; x may be NULL.
template <typename OrdSlot>
class ByFn final : public AggregateFunction {
 public:
  ByFn(TypePtr type, bool max) : max_(max) { result_type_ = std::move(type); }
  struct State {
    typename OrdSlot::Stored ord;
    Value x;
    bool has;
  };
  size_t state_size() const override { return sizeof(State); }
  void Init(uint8_t* s) const override {
    new (s) State{typename OrdSlot::Stored{}, Value(), false};
  }
  void Destroy(uint8_t* s) const override { St<State>(s).~State(); }
  Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                const EvalContext&) const override {
    ArgView x(args[0]), o(args[1]);
    for (size_t i = 0; i < rows; ++i) {
      if (o.null(i)) continue;
      State& s = St<State>(states[i]);
      size_t r = o.row(i);
      if (s.has) {
        int c = OrdSlot::Compare(*o.v, r, s.ord);
        if (max_ ? c <= 0 : c >= 0) continue;
      }
      OrdSlot::Load(*o.v, r, &s.ord);
      s.x = x.null_type ? Value::Null(result_type_) : x.v->GetValue(x.row(i));
      s.has = true;
    }
    return Status::OK();
  }
  Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext&) const override {
    const State& a = St<State>(src);
    State& b = St<State>(dst);
    if (!a.has) return Status::OK();
    if (b.has) {
      int c = OrdSlot::CompareStored(a.ord, b.ord);
      if (max_ ? c <= 0 : c >= 0) return Status::OK();
    }
    b.ord = a.ord;
    b.x = a.x;
    b.has = true;
    return Status::OK();
  }
  Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                  const EvalContext&) const override {
    for (size_t i = 0; i < n; ++i) {
      const State& s = St<State>(states[i]);
      if (s.has && !s.x.is_null()) {
        SILT_RETURN_NOT_OK(out->AppendValue(s.x));
      } else {
        out->AppendNull();
      }
    }
    return Status::OK();
  }

 private:
  bool max_;
};

// bool_and/every and bool_or/some/any: NULL when no non-NULL input.
class BoolFn final : public AggregateFunction {
 public:
  explicit BoolFn(bool is_and) : and_(is_and) { result_type_ = DataType::Boolean(); }
  struct State {
    uint8_t has;
    uint8_t value;
  };
  size_t state_size() const override { return sizeof(State); }
  void Init(uint8_t* s) const override {
    St<State>(s) = State{0, static_cast<uint8_t>(and_ ? 1 : 0)};
  }
  Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                const EvalContext&) const override {
    ArgView v(args[0]);
    if (v.null_type) return Status::OK();
    const uint8_t* d = v.data<uint8_t>();
    for (size_t i = 0; i < rows; ++i) {
      if (v.null(i)) continue;
      State& s = St<State>(states[i]);
      s.has = 1;
      uint8_t x = d[v.row(i)] ? 1 : 0;
      s.value = and_ ? (s.value & x) : (s.value | x);
    }
    return Status::OK();
  }
  Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext&) const override {
    const State& a = St<State>(src);
    State& b = St<State>(dst);
    if (!a.has) return Status::OK();
    b.value = b.has ? (and_ ? (a.value & b.value) : (a.value | b.value)) : a.value;
    b.has = 1;
    return Status::OK();
  }
  Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                  const EvalContext&) const override {
    for (size_t i = 0; i < n; ++i) {
      const State& s = St<State>(states[i]);
      if (s.has) {
        out->Append<uint8_t>(s.value);
      } else {
        out->AppendNull();
      }
    }
    return Status::OK();
  }

 private:
  bool and_;
};

// bit_and / bit_or / bit_xor of an integral column, typed as it; NULL when no non-NULL input.
class BitFn final : public AggregateFunction {
 public:
  enum Op { kAnd, kOr, kXor };
  BitFn(Op op, TypePtr t) : op_(op) { result_type_ = std::move(t); }
  struct State {
    int64_t value;
    uint8_t has;
  };
  size_t state_size() const override { return sizeof(State); }
  void Init(uint8_t* s) const override { St<State>(s) = State{op_ == kAnd ? -1 : 0, 0}; }
  int64_t Apply(int64_t a, int64_t b) const {
    return op_ == kAnd ? (a & b) : op_ == kOr ? (a | b) : (a ^ b);
  }
  Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                const EvalContext&) const override {
    ArgView v(args[0]);
    if (v.null_type) return Status::OK();
    const TypeId id = result_type_->id();
    for (size_t i = 0; i < rows; ++i) {
      if (v.null(i)) continue;
      const size_t r = v.row(i);
      const int64_t x = id == TypeId::kInt8    ? v.data<int8_t>()[r]
                        : id == TypeId::kInt16 ? v.data<int16_t>()[r]
                        : id == TypeId::kInt32 ? v.data<int32_t>()[r]
                                               : v.data<int64_t>()[r];
      State& s = St<State>(states[i]);
      s.value = Apply(s.value, x);
      s.has = 1;
    }
    return Status::OK();
  }
  Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext&) const override {
    const State& a = St<State>(src);
    State& b = St<State>(dst);
    if (!a.has) return Status::OK();
    b.value = b.has ? Apply(a.value, b.value) : a.value;
    b.has = 1;
    return Status::OK();
  }
  Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                  const EvalContext&) const override {
    for (size_t i = 0; i < n; ++i) {
      const State& s = St<State>(states[i]);
      if (!s.has) {
        out->AppendNull();
        continue;
      }
      switch (result_type_->id()) {
        case TypeId::kInt8:
          out->Append<int8_t>(static_cast<int8_t>(s.value));
          break;
        case TypeId::kInt16:
          out->Append<int16_t>(static_cast<int16_t>(s.value));
          break;
        case TypeId::kInt32:
          out->Append<int32_t>(static_cast<int32_t>(s.value));
          break;
        default:
          out->Append<int64_t>(s.value);
      }
    }
    return Status::OK();
  }

 private:
  Op op_;
};

// ---------------------------------------------------------------- collect_list

// collect_list(x) → array<x> without NULL elements; [] for no rows. The values live in a heap
// Vector per group (any type, nested too).
class CollectListFn final : public AggregateFunction {
 public:
  explicit CollectListFn(TypePtr elem) : elem_(std::move(elem)) {
    result_type_ = DataType::List(elem_, /*contains_null=*/false);
  }
  size_t state_size() const override { return sizeof(Vector*); }
  void Init(uint8_t* s) const override { St<Vector*>(s) = nullptr; }
  void Destroy(uint8_t* s) const override {
    delete St<Vector*>(s);
    St<Vector*>(s) = nullptr;
  }
  bool has_heap_state() const override { return true; }
  size_t HeapBytes(const uint8_t* s) const override {
    const Vector* v = St<Vector*>(s);
    return v ? sizeof(Vector) + v->MemoryUsage() : 0;
  }
  Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                const EvalContext&) const override {
    ArgView v(args[0]);
    for (size_t i = 0; i < rows; ++i) {
      if (v.null(i)) continue;
      Vector*& p = St<Vector*>(states[i]);
      if (!p) p = new Vector(elem_);
      p->AppendRange(*v.v, v.row(i), 1);
    }
    return Status::OK();
  }
  Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext&) const override {
    const Vector* a = St<Vector*>(src);
    if (!a || a->size() == 0) return Status::OK();
    Vector*& b = St<Vector*>(dst);
    if (!b) b = new Vector(elem_);
    b->AppendRange(*a, 0, a->size());
    return Status::OK();
  }
  Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                  const EvalContext&) const override {
    for (size_t i = 0; i < n; ++i) {
      const Vector* p = St<Vector*>(states[i]);
      if (p) out->child(0).AppendRange(*p, 0, p->size());
      out->FinishListRow();
    }
    return Status::OK();
  }

 private:
  TypePtr elem_;
};

// ---------------------------------------------------------------- binding

Status WrongArgs(std::string_view name, size_t got, const std::string& expected) {
  return Status::InvalidArgument("The `" + std::string(name) + "` requires " + expected +
                                     " parameters but the actual number is " + std::to_string(got) +
                                     ".",
                                 errc::kWrongNumArgs);
}

Status CheckArity(std::string_view name, size_t got, size_t lo, size_t hi) {
  if (got >= lo && got <= hi) return Status::OK();
  std::string exp =
      lo == hi ? std::to_string(lo) : "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return WrongArgs(name, got, exp);
}

// A bind-time constant argument (kConstant node).
Result<Value> ConstantArg(std::string_view fn, const ExprPtr& e, const std::string& what) {
  if (e->kind != ExprKind::kConstant) {
    return Mismatch(fn, "the " + what + " must be a constant");
  }
  return e->constant;
}

Result<bool> BoolConstant(std::string_view fn, const ExprPtr& e) {
  SILT_ASSIGN_OR_RETURN(Value v, ConstantArg(fn, e, "ignoreNulls argument"));
  if (v.is_null() || v.type()->id() != TypeId::kBoolean) {
    return Mismatch(fn, "the ignoreNulls argument must be a boolean constant");
  }
  return v.boolean();
}

Result<double> DoubleConstant(std::string_view fn, const ExprPtr& e, const std::string& what) {
  SILT_ASSIGN_OR_RETURN(Value v, ConstantArg(fn, e, what));
  if (v.is_null()) return Mismatch(fn, "the " + what + " must not be NULL");
  switch (v.type()->id()) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      return static_cast<double>(v.integer());
    case TypeId::kFloat:
    case TypeId::kDouble:
      return v.floating();
    case TypeId::kDecimal:
      return static_cast<double>(v.decimal()) / static_cast<double>(Pow10(v.type()->scale()));
    default:
      return Mismatch(fn, "the " + what + " must be numeric");
  }
}

// Casts numeric-like arguments Spark would implicitly cast to double (string, decimal, void).
Result<ExprPtr> ToDoubleArg(std::string_view fn, ExprPtr e, const BindContext& ctx) {
  TypeId id = e->type->id();
  if (id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 || id == TypeId::kInt64 ||
      id == TypeId::kFloat || id == TypeId::kDouble || id == TypeId::kNull) {
    return e;  // converted inside the kernel (exactly as a cast to double would)
  }
  if (id == TypeId::kDecimal || id == TypeId::kString)
    return CoerceTo(std::move(e), DataType::Double(), ctx);
  return Mismatch(fn, "requires a numeric argument, not \"" + e->type->ToString() + "\"");
}

// The result type of a percentile of TIME or interval values (Spark computes them on their
// units and answers in the input's kind: intervals as YEAR TO MONTH / DAY TO SECOND); nullptr
// for the other types (a DOUBLE percentile).
TypePtr PercentileOwnType(const DataType& t) {
  switch (t.id()) {
    case TypeId::kTime:
      return DataType::Time(t.precision());
    case TypeId::kYearMonthInterval:
      return DataType::YearMonthInterval();
    case TypeId::kDayTimeInterval:
      return DataType::DayTimeInterval();
    default:
      return nullptr;
  }
}

Result<FnPtr> MakeSum(std::string_view fn, const TypePtr& t, bool avg, bool try_mode) {
  switch (t->id()) {
    case TypeId::kInt8:
      if (avg) return FnPtr(std::make_shared<SumDoubleFn<int8_t>>(true));
      return FnPtr(std::make_shared<SumIntFn<int8_t>>(try_mode));
    case TypeId::kInt16:
      if (avg) return FnPtr(std::make_shared<SumDoubleFn<int16_t>>(true));
      return FnPtr(std::make_shared<SumIntFn<int16_t>>(try_mode));
    case TypeId::kInt32:
      if (avg) return FnPtr(std::make_shared<SumDoubleFn<int32_t>>(true));
      return FnPtr(std::make_shared<SumIntFn<int32_t>>(try_mode));
    case TypeId::kInt64:
      if (avg) return FnPtr(std::make_shared<SumDoubleFn<int64_t>>(true));
      return FnPtr(std::make_shared<SumIntFn<int64_t>>(try_mode));
    case TypeId::kFloat:
      return FnPtr(std::make_shared<SumDoubleFn<float>>(avg));
    case TypeId::kDouble:
      return FnPtr(std::make_shared<SumDoubleFn<double>>(avg));
    case TypeId::kNull:
      return FnPtr(std::make_shared<SumDoubleFn<void>>(avg));
    case TypeId::kDecimal:
      return FnPtr(std::make_shared<DecimalSumFn>(t->precision(), t->scale(), avg, try_mode));
    case TypeId::kYearMonthInterval:
      return FnPtr(std::make_shared<IntervalSumFn<int32_t>>(avg, try_mode));
    case TypeId::kDayTimeInterval:
      return FnPtr(std::make_shared<IntervalSumFn<int64_t>>(avg, try_mode));
    default:
      return Mismatch(fn, "requires a numeric argument, not \"" + t->ToString() + "\"");
  }
}

const std::unordered_map<std::string, int>& AggregateNames() {
  static const auto* names = new std::unordered_map<std::string, int>{
      {"count", 0},
      {"sum", 0},
      {"try_sum", 0},
      {"avg", 0},
      {"mean", 0},
      {"try_avg", 0},
      {"min", 0},
      {"max", 0},
      {"first", 0},
      {"first_value", 0},
      {"last", 0},
      {"last_value", 0},
      {"any_value", 0},
      {"count_if", 0},
      {"bit_and", 0},
      {"bit_or", 0},
      {"bit_xor", 0},
      {"bool_and", 0},
      {"every", 0},
      {"bool_or", 0},
      {"some", 0},
      {"any", 0},
      {"collect_list", 0},
      {"array_agg", 0},
      {"collect_set", 0},
      {"stddev", 0},
      {"std", 0},
      {"stddev_samp", 0},
      {"stddev_pop", 0},
      {"variance", 0},
      {"var_samp", 0},
      {"var_pop", 0},
      {"covar_pop", 0},
      {"covar_samp", 0},
      {"corr", 0},
      {"approx_count_distinct", 0},
      {"percentile", 0},
      {"percentile_cont", 0},
      {"histogram_numeric", 0},
      {"percentile_disc", 0},
      {"median", 0},
      {"percentile_approx", 0},
      {"approx_percentile", 0},
      {"max_by", 0},
      {"min_by", 0},
  };
  return *names;
}

Result<FnPtr> BindInner(const std::string& n, std::vector<ExprPtr>& args, bool* distinct,
                        const BindContext& ctx) {
  const size_t na = args.size();
  if (n == "count") {
    if (na == 0) {
      if (*distinct) return WrongArgs(n, 0, "at least 1");
      return FnPtr(std::make_shared<CountFn>(true));
    }
    return FnPtr(std::make_shared<CountFn>(false));
  }
  if (n == "sum" || n == "try_sum" || n == "avg" || n == "mean" || n == "try_avg") {
    SILT_RETURN_NOT_OK(CheckArity(n, na, 1, 1));
    bool avg = n == "avg" || n == "mean" || n == "try_avg";
    // Spark casts a string, and for avg a TIMESTAMP (its seconds), implicitly to DOUBLE.
    if (args[0]->type->id() == TypeId::kString ||
        (avg && args[0]->type->id() == TypeId::kTimestamp)) {
      SILT_ASSIGN_OR_RETURN(args[0], CoerceTo(args[0], DataType::Double(), ctx));
    }
    return MakeSum(n, args[0]->type, avg, n.starts_with("try_"));
  }
  if (n == "min" || n == "max") {
    SILT_RETURN_NOT_OK(CheckArity(n, na, 1, 1));
    *distinct = false;
    TypePtr t = args[0]->type;
    bool is_max = n == "max";
    if (t->id() == TypeId::kNull) {
      return FnPtr(std::make_shared<FirstLastFn<ValueSlot>>(t, false, true));  // always NULL
    }
    return DispatchSlot<false>(t, [&]<typename S>() -> Result<FnPtr> {
      if (is_max) return FnPtr(std::make_shared<MinMaxFn<S, true>>(t));
      return FnPtr(std::make_shared<MinMaxFn<S, false>>(t));
    });
  }
  if (n == "first" || n == "first_value" || n == "last" || n == "last_value" || n == "any_value") {
    SILT_RETURN_NOT_OK(CheckArity(n, na, 1, 2));
    *distinct = false;
    bool ignore_nulls = false;
    if (na == 2) {
      SILT_ASSIGN_OR_RETURN(ignore_nulls, BoolConstant(n, args[1]));
      args.pop_back();
    }
    bool last = n.starts_with("last");
    TypePtr t = args[0]->type;
    return DispatchSlot<true>(t, [&]<typename S>() -> Result<FnPtr> {
      return FnPtr(std::make_shared<FirstLastFn<S>>(t, last, ignore_nulls));
    });
  }
  if (n == "max_by" || n == "min_by") {
    SILT_RETURN_NOT_OK(CheckArity(n, na, 2, 2));
    *distinct = false;
    TypePtr t = args[0]->type;
    bool is_max = n == "max_by";
    if (args[1]->type->id() == TypeId::kNull) {
      return FnPtr(std::make_shared<FirstLastFn<ValueSlot>>(t, false, true));  // never a row
    }
    return DispatchSlot<false>(args[1]->type, [&]<typename S>() -> Result<FnPtr> {
      return FnPtr(std::make_shared<ByFn<S>>(t, is_max));
    });
  }
  if (n == "count_if") {
    SILT_RETURN_NOT_OK(CheckArity(n, na, 1, 1));
    TypeId id = args[0]->type->id();
    if (id != TypeId::kBoolean && id != TypeId::kNull) {
      return Mismatch(n, "requires a boolean argument, not \"" + args[0]->type->ToString() + "\"");
    }
    return FnPtr(std::make_shared<CountIfFn>());
  }
  if (n == "bool_and" || n == "every" || n == "bool_or" || n == "some" || n == "any") {
    SILT_RETURN_NOT_OK(CheckArity(n, na, 1, 1));
    *distinct = false;
    TypeId id = args[0]->type->id();
    if (id != TypeId::kBoolean && id != TypeId::kNull) {
      return Mismatch(n, "requires a boolean argument, not \"" + args[0]->type->ToString() + "\"");
    }
    return FnPtr(std::make_shared<BoolFn>(n == "bool_and" || n == "every"));
  }
  if (n == "bit_and" || n == "bit_or" || n == "bit_xor") {
    SILT_RETURN_NOT_OK(CheckArity(n, na, 1, 1));
    if (n != "bit_xor") *distinct = false;  // x & x = x, x | x = x; not so for xor
    TypeId id = args[0]->type->id();
    if (id == TypeId::kNull) {
      SILT_ASSIGN_OR_RETURN(args[0], CoerceTo(args[0], DataType::Int64(), ctx));
      id = TypeId::kInt64;
    }
    if (id != TypeId::kInt8 && id != TypeId::kInt16 && id != TypeId::kInt32 &&
        id != TypeId::kInt64) {
      return Mismatch(n,
                      "requires an integral argument, not \"" + args[0]->type->ToString() + "\"");
    }
    return FnPtr(std::make_shared<BitFn>(n == "bit_and"  ? BitFn::kAnd
                                         : n == "bit_or" ? BitFn::kOr
                                                         : BitFn::kXor,
                                         args[0]->type));
  }
  if (n == "collect_list" || n == "array_agg" || n == "collect_set") {
    SILT_RETURN_NOT_OK(CheckArity(n, na, 1, 1));
    auto list = std::make_shared<CollectListFn>(args[0]->type);
    if (n == "collect_set") {
      if (args[0]->type->id() == TypeId::kMap) {
        return Mismatch(n, "collect_set cannot be used on map values");
      }
      *distinct = false;
      return agg::MakeDistinct(list, std::vector<TypePtr>{args[0]->type});
    }
    return FnPtr(list);
  }
  if (n == "stddev" || n == "std" || n == "stddev_samp" || n == "stddev_pop" || n == "variance" ||
      n == "var_samp" || n == "var_pop") {
    SILT_RETURN_NOT_OK(CheckArity(n, na, 1, 1));
    SILT_ASSIGN_OR_RETURN(args[0], ToDoubleArg(n, args[0], ctx));
    agg::MomentKind k = n == "stddev_pop"                    ? agg::MomentKind::kStddevPop
                        : n == "var_pop"                     ? agg::MomentKind::kVarPop
                        : n == "variance" || n == "var_samp" ? agg::MomentKind::kVarSamp
                                                             : agg::MomentKind::kStddevSamp;
    return agg::MakeCentralMoment(k);
  }
  if (n == "covar_pop" || n == "covar_samp" || n == "corr") {
    SILT_RETURN_NOT_OK(CheckArity(n, na, 2, 2));
    SILT_ASSIGN_OR_RETURN(args[0], ToDoubleArg(n, args[0], ctx));
    SILT_ASSIGN_OR_RETURN(args[1], ToDoubleArg(n, args[1], ctx));
    agg::CovKind k = n == "corr"        ? agg::CovKind::kCorr
                     : n == "covar_pop" ? agg::CovKind::kCovarPop
                                        : agg::CovKind::kCovarSamp;
    return agg::MakeCovariance(k);
  }
  if (n == "approx_count_distinct") {
    SILT_RETURN_NOT_OK(CheckArity(n, na, 1, 2));
    *distinct = false;
    double rsd = 0.05;
    if (na == 2) {
      SILT_ASSIGN_OR_RETURN(rsd, DoubleConstant(n, args[1], "relativeSD"));
      args.pop_back();
    }
    // Spark: p = ceil(2 * log2(1.106 / rsd)), at least 4.
    int p = rsd > 0 ? static_cast<int>(std::ceil(2.0 * std::log(1.106 / rsd) / std::log(2.0))) : 99;
    if (p < 4) {
      return Status::InvalidArgument(
          "HLL++ requires at least 4 bits for addressing. Use a lower error, at most 39%.",
          errc::kDatatypeMismatch);
    }
    if (p > 18) {
      return Status::NotImplemented("approx_count_distinct with relativeSD below 0.0022");
    }
    return agg::MakeHll(p);
  }
  if (n == "percentile" || n == "median") {
    SILT_RETURN_NOT_OK(CheckArity(n, na, n == "median" ? 1 : 2, n == "median" ? 1 : 2));
    double p = 0.5;
    if (n == "percentile") {
      if (args[1]->type->id() == TypeId::kList) {
        return Status::NotImplemented("percentile with an array of percentages");
      }
      SILT_ASSIGN_OR_RETURN(p, DoubleConstant(n, args[1], "percentage"));
      args.pop_back();
    }
    if (p < 0.0 || p > 1.0) return Mismatch(n, "the percentage must be between 0.0 and 1.0");
    if (TypePtr t = PercentileOwnType(*args[0]->type))
      return agg::MakePercentile(p, false, false, t);
    SILT_ASSIGN_OR_RETURN(args[0], ToDoubleArg(n, args[0], ctx));
    return agg::MakePercentile(p);
  }
  if (n == "histogram_numeric") {
    SILT_RETURN_NOT_OK(CheckArity(n, na, 2, 2));
    *distinct = false;
    SILT_ASSIGN_OR_RETURN(double nb, DoubleConstant(n, args[1], "nb"));
    if (nb < 2 || nb != std::floor(nb)) {
      return Mismatch(n, "the number of histogram bins must be an integer of at least 2");
    }
    args.resize(1);
    TypePtr t = args[0]->type;
    if (t->id() == TypeId::kNull) {
      SILT_ASSIGN_OR_RETURN(args[0], CoerceTo(args[0], DataType::Double(), ctx));
      t = args[0]->type;
    }
    FnPtr f = agg::MakeHistogramNumeric(t, static_cast<size_t>(nb));
    if (!f) {
      return Mismatch(
          n, "requires a numeric, datetime or interval argument, not \"" + t->ToString() + "\"");
    }
    return f;
  }
  if (n == "percentile_cont" || n == "percentile_disc") {
    // (value, percentage, descending) from percentile_cont(p) WITHIN GROUP (ORDER BY value).
    if (na != 3) return WrongArgs(n, na, "1");
    SILT_ASSIGN_OR_RETURN(double p, DoubleConstant(n, args[1], "percentage"));
    SILT_ASSIGN_OR_RETURN(bool desc, BoolConstant(n, args[2]));
    if (p < 0.0 || p > 1.0) return Mismatch(n, "the percentage must be between 0.0 and 1.0");
    args.resize(1);
    if (TypePtr t = PercentileOwnType(*args[0]->type)) {
      return agg::MakePercentile(p, n == "percentile_disc", desc, t);
    }
    SILT_ASSIGN_OR_RETURN(args[0], ToDoubleArg(n, args[0], ctx));
    return agg::MakePercentile(p, n == "percentile_disc", desc);
  }
  if (n == "percentile_approx" || n == "approx_percentile") {
    SILT_RETURN_NOT_OK(CheckArity(n, na, 2, 3));
    *distinct = false;
    if (args[1]->type->id() == TypeId::kList) {
      return Status::NotImplemented(n + " with an array of percentages");
    }
    SILT_ASSIGN_OR_RETURN(double p, DoubleConstant(n, args[1], "percentage"));
    if (p < 0.0 || p > 1.0) return Mismatch(n, "the percentage must be between 0.0 and 1.0");
    int64_t accuracy = 10000;
    if (na == 3) {
      SILT_ASSIGN_OR_RETURN(double a, DoubleConstant(n, args[2], "accuracy"));
      if (a <= 0 || a > 2147483647.0) return Mismatch(n, "the accuracy must be a positive integer");
      accuracy = static_cast<int64_t>(a);
    }
    args.resize(1);
    TypePtr t = args[0]->type;
    FnPtr f = agg::MakePercentileApprox(t, p, accuracy);
    if (!f) {
      return Mismatch(
          n, "requires a numeric, date or timestamp argument, not \"" + t->ToString() + "\"");
    }
    return f;
  }
  return Status::NotFound("Cannot resolve routine `" + n + "`", errc::kUnresolvedRoutine);
}

}  // namespace

bool IsAggregateFunction(std::string_view name) {
  return AggregateNames().count(AsciiLower(name)) > 0;
}

Result<BoundAggregate> BindAggregateFunction(std::string_view name, std::vector<ExprPtr> args,
                                             bool distinct, const BindContext& ctx) {
  std::string n = AsciiLower(name);
  if (!AggregateNames().count(n)) {
    return Status::NotFound("Cannot resolve routine `" + std::string(name) + "`",
                            errc::kUnresolvedRoutine);
  }
  SILT_ASSIGN_OR_RETURN(FnPtr fn, BindInner(n, args, &distinct, ctx));
  BoundAggregate out;
  if (distinct) {
    std::vector<TypePtr> types;
    for (const ExprPtr& a : args) types.push_back(a->type);
    fn = agg::MakeDistinct(std::move(fn), std::move(types));
  }
  out.function = std::move(fn);
  out.args = std::move(args);
  return out;
}

}  // namespace silt::exec
