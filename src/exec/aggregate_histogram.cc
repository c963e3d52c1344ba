// histogram_numeric(x, nb) as Spark's HistogramNumeric (Hive's NumericHistogram, the streaming
// histogram of Ben-Haim and Tom-Tov): up to nb bins (x = centre, y = height) in x order; a value
// equal to a bin's centre adds to it, another one becomes a new bin, and past nb bins the two
// closest bins merge into their weighted mean. Ties between equally close pairs are broken by
// java.util.Random(31183) as Hive's, so the bins are Spark's for the same input order.
#include <cmath>
#include <memory>
#include <vector>

#include "exec/aggregate_util.h"

namespace silt::exec::agg {

namespace {

// java.util.Random: the 48-bit linear congruential generator, nextDouble(). Java's long
// arithmetic wraps, so the state is unsigned here (signed overflow is undefined in C++).
class JavaRandom {
 public:
  explicit JavaRandom(int64_t seed) : seed_((static_cast<uint64_t>(seed) ^ kMultiplier) & kMask) {}
  double NextDouble() {
    const int64_t hi = Next(26), lo = Next(27);
    return static_cast<double>((hi << 27) + lo) * 0x1.0p-53;
  }

 private:
  static constexpr uint64_t kMultiplier = 0x5DEECE66DULL;
  static constexpr uint64_t kMask = (uint64_t{1} << 48) - 1;
  int64_t Next(int bits) {
    seed_ = (seed_ * kMultiplier + 0xBULL) & kMask;
    return static_cast<int64_t>(seed_ >> (48 - bits));
  }
  uint64_t seed_;
};

struct Histogram {
  std::vector<std::pair<double, double>> bins;  // (x, y) sorted by x
  JavaRandom prng{31183};

  void Add(double v, double count, size_t nb) {
    size_t bin = 0;
    for (size_t l = 0, r = bins.size(); l < r;) {
      bin = (l + r) / 2;
      if (bins[bin].first > v) {
        r = bin;
      } else if (bins[bin].first < v) {
        l = ++bin;
      } else {
        break;
      }
    }
    if (bin < bins.size() && bins[bin].first == v) {
      bins[bin].second += count;
    } else {
      bins.insert(bins.begin() + static_cast<std::ptrdiff_t>(bin), {v, count});
      if (bins.size() > nb) Trim(nb);
    }
  }
  void Trim(size_t nb) {
    while (bins.size() > nb) {
      double smallest = bins[1].first - bins[0].first;
      size_t loc = 0;
      int ties = 1;
      for (size_t i = 1; i + 1 < bins.size(); ++i) {
        const double diff = bins[i + 1].first - bins[i].first;
        if (diff < smallest) {
          smallest = diff;
          loc = i;
          ties = 1;
        } else if (diff == smallest && prng.NextDouble() <= 1.0 / ++ties) {
          loc = i;
        }
      }
      auto& a = bins[loc];
      const auto& b = bins[loc + 1];
      const double d = a.second + b.second;
      a.first *= a.second / d;
      a.first += b.first / d * b.second;
      a.second = d;
      bins.erase(bins.begin() + static_cast<std::ptrdiff_t>(loc) + 1);
    }
  }
};

class HistogramNumericFn final : public AggregateFunction {
 public:
  HistogramNumericFn(TypePtr type, size_t nb) : type_(std::move(type)), nb_(nb) {
    result_type_ = DataType::List(DataType::Struct({Field{"x", type_, true, "{}"},
                                                    Field{"y", DataType::Double(), true, "{}"}}),
                                  true);
  }
  size_t state_size() const override { return sizeof(Histogram*); }
  void Init(uint8_t* s) const override { St<Histogram*>(s) = nullptr; }
  void Destroy(uint8_t* s) const override {
    delete St<Histogram*>(s);
    St<Histogram*>(s) = nullptr;
  }
  bool has_heap_state() const override { return true; }
  size_t HeapBytes(const uint8_t* s) const override {
    const Histogram* h = St<Histogram*>(s);
    return h ? sizeof(Histogram) + h->bins.capacity() * sizeof(h->bins[0]) : 0;
  }
  Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                const EvalContext&) const override {
    ArgView v(args[0]);
    if (v.null_type) return Status::OK();
    for (size_t i = 0; i < rows; ++i) {
      if (v.null(i)) continue;
      Histogram*& h = St<Histogram*>(states[i]);
      if (!h) h = new Histogram();
      h->Add(ValueAt(v, v.row(i)), 1.0, nb_);
    }
    return Status::OK();
  }
  Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext&) const override {
    const Histogram* a = St<Histogram*>(src);
    if (!a || a->bins.empty()) return Status::OK();
    Histogram*& b = St<Histogram*>(dst);
    if (!b) b = new Histogram();
    if (b->bins.empty()) {
      b->bins = a->bins;
      return Status::OK();
    }
    // Hive's merge: all bins together in x order, then trimmed.
    b->bins.insert(b->bins.end(), a->bins.begin(), a->bins.end());
    std::stable_sort(b->bins.begin(), b->bins.end(),
                     [](const auto& p, const auto& q) { return p.first < q.first; });
    b->Trim(nb_);
    return Status::OK();
  }
  Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                  const EvalContext&) const override {
    const TypePtr& st = result_type_->element_type();
    for (size_t i = 0; i < n; ++i) {
      const Histogram* h = St<Histogram*>(states[i]);
      if (!h || h->bins.empty()) {
        out->AppendNull();
        continue;
      }
      std::vector<Value> elems;
      for (const auto& [x, y] : h->bins) {
        elems.push_back(Value::Nested(st, {XValue(x), Value::Double(y)}));
      }
      SILT_RETURN_NOT_OK(out->AppendValue(Value::Nested(result_type_, std::move(elems))));
    }
    return Status::OK();
  }

 private:
  double ValueAt(const ArgView& v, size_t r) const {
    switch (type_->id()) {
      case TypeId::kInt8:
        return v.data<int8_t>()[r];
      case TypeId::kInt16:
        return v.data<int16_t>()[r];
      case TypeId::kInt32:
      case TypeId::kDate:
      case TypeId::kYearMonthInterval:
        return v.data<int32_t>()[r];
      case TypeId::kFloat:
        return v.data<float>()[r];
      case TypeId::kDouble:
        return v.data<double>()[r];
      case TypeId::kDecimal:
        return static_cast<double>(v.data<int128_t>()[r]) / std::pow(10.0, type_->scale());
      default:  // int64, timestamps, day-time intervals
        return static_cast<double>(v.data<int64_t>()[r]);
    }
  }
  // The bin centre in the input's type (Spark truncates toward zero).
  Value XValue(double x) const {
    switch (type_->id()) {
      case TypeId::kFloat:
      case TypeId::kDouble:
        return Value::Floating(type_, x);
      case TypeId::kDecimal:
        return Value::Decimal(
            type_->precision(), type_->scale(),
            static_cast<int128_t>(std::llround(x * std::pow(10.0, type_->scale()))));
      default:
        return Value::Integer(type_, static_cast<int64_t>(x));
    }
  }
  TypePtr type_;
  size_t nb_;
};

}  // namespace

FnPtr MakeHistogramNumeric(const TypePtr& type, size_t nb) {
  switch (type->id()) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kTime:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
    case TypeId::kYearMonthInterval:
    case TypeId::kDayTimeInterval:
      return std::make_shared<HistogramNumericFn>(type, nb);
    default:
      return nullptr;
  }
}

}  // namespace silt::exec::agg
