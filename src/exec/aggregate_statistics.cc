// The statistical aggregates: variance family, covariance/correlation, approx_count_distinct
// (HyperLogLog), percentile/median and percentile_approx.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "exec/aggregate_util.h"
#include "exec/row_hash.h"

namespace silt::exec::agg {

namespace {

// ---------------------------------------------------------------- variance family

class CentralMomentFn final : public AggregateFunction {
 public:
  explicit CentralMomentFn(MomentKind kind) : kind_(kind) { result_type_ = DataType::Double(); }
  struct State {
    double n, avg, m2;
  };
  size_t state_size() const override { return sizeof(State); }
  void Init(uint8_t* s) const override { St<State>(s) = State{0, 0, 0}; }
  Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                const EvalContext&) const override {
    std::vector<double> x;
    std::vector<uint8_t> valid;
    ToDoubles(args[0], rows, &x, &valid);
    for (size_t i = 0; i < rows; ++i) {
      if (!valid[i]) continue;
      State& s = St<State>(states[i]);
      // Spark's CentralMomentAgg update, operation for operation.
      double n = s.n + 1.0;
      double delta = x[i] - s.avg;
      double delta_n = delta / n;
      s.avg += delta_n;
      s.m2 += delta * (delta - delta_n);
      s.n = n;
    }
    return Status::OK();
  }
  Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext&) const override {
    const State& a = St<State>(src);
    State& b = St<State>(dst);
    double n = b.n + a.n;
    double delta = a.avg - b.avg;
    double delta_n = n == 0.0 ? 0.0 : delta / n;
    double avg = b.avg + delta_n * a.n;
    double m2 = b.m2 + a.m2 + delta * delta_n * b.n * a.n;
    b = State{n, avg, m2};
    return Status::OK();
  }
  Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                  const EvalContext&) const override {
    for (size_t i = 0; i < n; ++i) {
      const State& s = St<State>(states[i]);
      bool samp = kind_ == MomentKind::kVarSamp || kind_ == MomentKind::kStddevSamp;
      if (s.n == 0.0 || (samp && s.n == 1.0)) {
        out->AppendNull();  // Spark 3.1+: NULL, not NaN, when dividing by zero
        continue;
      }
      double v = s.m2 / (samp ? s.n - 1.0 : s.n);
      if (kind_ == MomentKind::kStddevSamp || kind_ == MomentKind::kStddevPop) v = std::sqrt(v);
      out->Append<double>(v);
    }
    return Status::OK();
  }

 private:
  MomentKind kind_;
};

class CovarianceFn final : public AggregateFunction {
 public:
  explicit CovarianceFn(CovKind kind) : kind_(kind) { result_type_ = DataType::Double(); }
  struct State {
    double n, x_avg, y_avg, ck, x_mk, y_mk;
  };
  size_t state_size() const override { return sizeof(State); }
  void Init(uint8_t* s) const override { St<State>(s) = State{0, 0, 0, 0, 0, 0}; }
  Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                const EvalContext&) const override {
    std::vector<double> x, y;
    std::vector<uint8_t> vx, vy;
    ToDoubles(args[0], rows, &x, &vx);
    ToDoubles(args[1], rows, &y, &vy);
    for (size_t i = 0; i < rows; ++i) {
      if (!vx[i] || !vy[i]) continue;
      State& s = St<State>(states[i]);
      // Spark's Covariance / Corr update.
      double n = s.n + 1.0;
      double dx = x[i] - s.x_avg;
      double dx_n = dx / n;
      double dy = y[i] - s.y_avg;
      double dy_n = dy / n;
      s.x_avg += dx_n;
      s.y_avg += dy_n;
      s.ck += dx * (y[i] - s.y_avg);
      s.x_mk += dx * (x[i] - s.x_avg);
      s.y_mk += dy * (y[i] - s.y_avg);
      s.n = n;
    }
    return Status::OK();
  }
  Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext&) const override {
    const State& a = St<State>(src);
    State& b = St<State>(dst);
    double n = b.n + a.n;
    double dx = a.x_avg - b.x_avg;
    double dx_n = n == 0.0 ? 0.0 : dx / n;
    double dy = a.y_avg - b.y_avg;
    double dy_n = n == 0.0 ? 0.0 : dy / n;
    State r;
    r.n = n;
    r.x_avg = b.x_avg + dx_n * a.n;
    r.y_avg = b.y_avg + dy_n * a.n;
    r.ck = b.ck + a.ck + dx * dy_n * b.n * a.n;
    r.x_mk = b.x_mk + a.x_mk + dx * dx_n * b.n * a.n;
    r.y_mk = b.y_mk + a.y_mk + dy * dy_n * b.n * a.n;
    b = r;
    return Status::OK();
  }
  Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                  const EvalContext&) const override {
    for (size_t i = 0; i < n; ++i) {
      const State& s = St<State>(states[i]);
      if (s.n == 0.0 || (kind_ != CovKind::kCovarPop && s.n == 1.0)) {
        out->AppendNull();
        continue;
      }
      switch (kind_) {
        case CovKind::kCovarPop:
          out->Append<double>(s.ck / s.n);
          break;
        case CovKind::kCovarSamp:
          out->Append<double>(s.ck / (s.n - 1.0));
          break;
        case CovKind::kCorr:
          out->Append<double>(s.ck / std::sqrt(s.x_mk * s.y_mk));
          break;
      }
    }
    return Status::OK();
  }

 private:
  CovKind kind_;
};

// ---------------------------------------------------------------- approx_count_distinct

// HyperLogLog with 2^p one-byte registers (p from rsd as Spark computes it) and Ertl's improved
// raw estimator ("New cardinality estimation algorithms for HyperLogLog sketches", 2017), which
// is unbiased over the whole range without empirical correction tables.
class HllFn final : public AggregateFunction {
 public:
  explicit HllFn(int p) : p_(p), m_(size_t{1} << p) { result_type_ = DataType::Int64(); }
  size_t state_size() const override { return m_; }
  void Init(uint8_t* s) const override { std::memset(s, 0, m_); }
  Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                const EvalContext&) const override {
    ArgView v(args[0]);
    if (v.null_type) return Status::OK();
    std::vector<uint64_t> h(rows);
    if (args[0].constant) {
      std::fill(h.begin(), h.end(), HashValueAt(*v.v, 0));
    } else {
      HashColumn(*v.v, rows, h.data(), false);
    }
    const bool nulls = v.may_null();
    for (size_t i = 0; i < rows; ++i) {
      if (nulls && v.null(i)) continue;
      uint64_t x = HashMix(h[i] + 0x5851f42d4c957f2dULL);  // decorrelate from table slot bits
      size_t idx = x >> (64 - p_);
      uint64_t w = (x << p_) | (uint64_t{1} << (p_ - 1));
      uint8_t rho = static_cast<uint8_t>(__builtin_clzll(w) + 1);
      uint8_t& reg = states[i][idx];
      if (rho > reg) reg = rho;
    }
    return Status::OK();
  }
  Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext&) const override {
    for (size_t i = 0; i < m_; ++i) dst[i] = std::max(dst[i], src[i]);
    return Status::OK();
  }
  static double Sigma(double x) {
    if (x == 1.0) return std::numeric_limits<double>::infinity();
    double y = 1.0, z = x, prev;
    do {
      x *= x;
      prev = z;
      z += x * y;
      y += y;
    } while (z != prev);
    return z;
  }
  static double Tau(double x) {
    if (x == 0.0 || x == 1.0) return 0.0;
    double y = 1.0, z = 1.0 - x, prev;
    do {
      x = std::sqrt(x);
      prev = z;
      y *= 0.5;
      z -= (1.0 - x) * (1.0 - x) * y;
    } while (z != prev);
    return z / 3.0;
  }
  Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                  const EvalContext&) const override {
    const int q = 64 - p_;
    std::vector<int64_t> c(q + 2);
    const double m = static_cast<double>(m_);
    for (size_t i = 0; i < n; ++i) {
      std::fill(c.begin(), c.end(), 0);
      for (size_t r = 0; r < m_; ++r) ++c[std::min<int>(states[i][r], q + 1)];
      if (c[0] == static_cast<int64_t>(m_)) {
        out->Append<int64_t>(0);
        continue;
      }
      double z = m * Tau(1.0 - static_cast<double>(c[q + 1]) / m);
      for (int k = q; k >= 1; --k) z = 0.5 * (z + static_cast<double>(c[k]));
      z += m * Sigma(static_cast<double>(c[0]) / m);
      double e = (0.5 / std::log(2.0)) * m * m / z;
      out->Append<int64_t>(std::llround(e));
    }
    return Status::OK();
  }

 private:
  int p_;
  size_t m_;
};

// ---------------------------------------------------------------- percentiles

// percentile(x, p) / median(x): exact, linear interpolation between the closest ranks (Spark's
// Percentile), over the values as doubles.
class PercentileFn final : public AggregateFunction {
 public:
  PercentileFn(double p, bool discrete, bool descending, TypePtr result_type)
      : p_(p), discrete_(discrete), descending_(descending) {
    result_type_ = result_type ? std::move(result_type) : DataType::Double();
  }
  size_t state_size() const override { return sizeof(std::vector<double>*); }
  void Init(uint8_t* s) const override { St<std::vector<double>*>(s) = nullptr; }
  void Destroy(uint8_t* s) const override {
    delete St<std::vector<double>*>(s);
    St<std::vector<double>*>(s) = nullptr;
  }
  bool has_heap_state() const override { return true; }
  size_t HeapBytes(const uint8_t* s) const override {
    const auto* v = St<std::vector<double>*>(s);
    return v ? sizeof(*v) + v->capacity() * sizeof(double) : 0;
  }
  Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                const EvalContext&) const override {
    std::vector<double> x;
    std::vector<uint8_t> valid;
    ToDoubles(args[0], rows, &x, &valid);
    for (size_t i = 0; i < rows; ++i) {
      if (!valid[i]) continue;
      auto*& v = St<std::vector<double>*>(states[i]);
      if (!v) v = new std::vector<double>();
      v->push_back(x[i]);
    }
    return Status::OK();
  }
  Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext&) const override {
    const auto* a = St<std::vector<double>*>(src);
    if (!a) return Status::OK();
    auto*& b = St<std::vector<double>*>(dst);
    if (!b) b = new std::vector<double>();
    b->insert(b->end(), a->begin(), a->end());
    return Status::OK();
  }
  Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                  const EvalContext&) const override {
    for (size_t i = 0; i < n; ++i) {
      const auto* v = St<std::vector<double>*>(states[i]);
      if (!v || v->empty()) {
        out->AppendNull();
        continue;
      }
      std::vector<double> s(*v);
      std::sort(s.begin(), s.end(), [](double a, double b) { return Cmp(a, b) < 0; });
      if (descending_) std::reverse(s.begin(), s.end());
      if (discrete_) {
        // The first value whose cumulative distribution reaches p.
        const double rank = std::ceil(p_ * static_cast<double>(s.size()));
        Put(out, s[rank <= 1 ? 0 : static_cast<size_t>(rank) - 1]);
        continue;
      }
      double pos = static_cast<double>(s.size() - 1) * p_;
      double lo = std::floor(pos), hi = std::ceil(pos);
      size_t l = static_cast<size_t>(lo), h = static_cast<size_t>(hi);
      Put(out, l == h ? s[l] : (hi - pos) * s[l] + (pos - lo) * s[h]);
    }
    return Status::OK();
  }

 private:
  // TIME and intervals: the value truncated to the type's unit (Spark's toLong / toInt).
  void Put(Vector* out, double v) const {
    switch (result_type_->id()) {
      case TypeId::kTime:
      case TypeId::kDayTimeInterval:
        out->Append<int64_t>(static_cast<int64_t>(v));
        break;
      case TypeId::kYearMonthInterval:
        out->Append<int32_t>(static_cast<int32_t>(v));
        break;
      default:
        out->Append<double>(v);
    }
  }

  double p_;
  bool discrete_, descending_;
};

// percentile_approx(x, p, accuracy): computed exactly — the value at rank ceil(p * n), or the
// minimum/maximum for p within 1/accuracy of 0/1 as Spark's QuantileSummaries answers — which is
// within Spark's error bound. Result type = x's type.
template <typename T>
class PercentileApproxFn final : public AggregateFunction {
 public:
  PercentileApproxFn(TypePtr type, double p, int64_t accuracy) : p_(p), accuracy_(accuracy) {
    result_type_ = std::move(type);
  }
  size_t state_size() const override { return sizeof(std::vector<T>*); }
  void Init(uint8_t* s) const override { St<std::vector<T>*>(s) = nullptr; }
  void Destroy(uint8_t* s) const override {
    delete St<std::vector<T>*>(s);
    St<std::vector<T>*>(s) = nullptr;
  }
  bool has_heap_state() const override { return true; }
  size_t HeapBytes(const uint8_t* s) const override {
    const auto* v = St<std::vector<T>*>(s);
    return v ? sizeof(*v) + v->capacity() * sizeof(T) : 0;
  }
  Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                const EvalContext&) const override {
    ArgView v(args[0]);
    if (v.null_type) return Status::OK();
    const T* d = v.data<T>();
    for (size_t i = 0; i < rows; ++i) {
      if (v.null(i)) continue;
      auto*& s = St<std::vector<T>*>(states[i]);
      if (!s) s = new std::vector<T>();
      s->push_back(d[v.row(i)]);
    }
    return Status::OK();
  }
  Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext&) const override {
    const auto* a = St<std::vector<T>*>(src);
    if (!a) return Status::OK();
    auto*& b = St<std::vector<T>*>(dst);
    if (!b) b = new std::vector<T>();
    b->insert(b->end(), a->begin(), a->end());
    return Status::OK();
  }
  Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                  const EvalContext&) const override {
    double rel = 1.0 / static_cast<double>(accuracy_);
    for (size_t i = 0; i < n; ++i) {
      const auto* v = St<std::vector<T>*>(states[i]);
      if (!v || v->empty()) {
        out->AppendNull();
        continue;
      }
      std::vector<T> s(*v);
      std::sort(s.begin(), s.end(), [](T a, T b) { return Cmp<T>(a, b) < 0; });
      size_t idx;
      if (p_ <= rel) {
        idx = 0;
      } else if (p_ >= 1.0 - rel) {
        idx = s.size() - 1;
      } else {
        double rank = std::ceil(p_ * static_cast<double>(s.size()));
        idx = rank < 1.0 ? 0 : std::min(s.size() - 1, static_cast<size_t>(rank) - 1);
      }
      out->Append<T>(s[idx]);
    }
    return Status::OK();
  }

 private:
  double p_;
  int64_t accuracy_;
};

}  // namespace

FnPtr MakeCentralMoment(MomentKind kind) { return std::make_shared<CentralMomentFn>(kind); }
FnPtr MakeCovariance(CovKind kind) { return std::make_shared<CovarianceFn>(kind); }
FnPtr MakeHll(int p) { return std::make_shared<HllFn>(p); }
FnPtr MakePercentile(double p, bool discrete, bool descending, TypePtr result_type) {
  return std::make_shared<PercentileFn>(p, discrete, descending, std::move(result_type));
}

FnPtr MakePercentileApprox(const TypePtr& t, double p, int64_t accuracy) {
  switch (t->id()) {
    case TypeId::kInt8:
      return std::make_shared<PercentileApproxFn<int8_t>>(t, p, accuracy);
    case TypeId::kInt16:
      return std::make_shared<PercentileApproxFn<int16_t>>(t, p, accuracy);
    case TypeId::kInt32:
    case TypeId::kDate:
      return std::make_shared<PercentileApproxFn<int32_t>>(t, p, accuracy);
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kTime:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
      return std::make_shared<PercentileApproxFn<int64_t>>(t, p, accuracy);
    case TypeId::kFloat:
      return std::make_shared<PercentileApproxFn<float>>(t, p, accuracy);
    case TypeId::kDouble:
      return std::make_shared<PercentileApproxFn<double>>(t, p, accuracy);
    case TypeId::kDecimal:
      return std::make_shared<PercentileApproxFn<int128_t>>(t, p, accuracy);
    default:
      return nullptr;
  }
  return nullptr;
}

}  // namespace silt::exec::agg
