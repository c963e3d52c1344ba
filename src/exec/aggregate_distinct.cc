// COUNT(DISTINCT …) and other DISTINCT aggregates: a set of distinct argument tuples per group.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "exec/aggregate_util.h"
#include "exec/row_hash.h"

namespace silt::exec::agg {

namespace {

// ---------------------------------------------------------------- DISTINCT

// A set of distinct argument tuples (columns of the argument types) with an open-addressing index.
struct DistinctSet {
  std::vector<Vector> cols;
  std::vector<uint64_t> hashes;
  std::vector<uint32_t> slots;  // 0 = empty, else index + 1
  // Byte width of the one column when its values are equal exactly when their bytes are
  // (integers, dates, timestamps, decimals; not floats: -0.0 = 0.0), else 0.
  int raw_width = 0;
  // Widths up to 8 probe this table instead of `slots`: the value sits in its slot, so a probe
  // touches one cache line instead of three (slot, hash, value).
  struct WordSlot {
    uint64_t value;
    uint64_t index;  // 0 = empty, else index + 1
  };
  std::vector<WordSlot> word_slots;
  size_t size() const { return hashes.size(); }

  explicit DistinctSet(const std::vector<TypePtr>& types) {
    for (const TypePtr& t : types) cols.emplace_back(t);
    if (types.size() != 1) return;
    switch (types[0]->id()) {
      case TypeId::kBoolean:
      case TypeId::kInt8:
      case TypeId::kInt16:
      case TypeId::kInt32:
      case TypeId::kInt64:
      case TypeId::kDecimal:
      case TypeId::kCalendarInterval:
      case TypeId::kDate:
      case TypeId::kYearMonthInterval:
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz:
      case TypeId::kTime:
      case TypeId::kTimestampNanos:
      case TypeId::kTimestampNtzNanos:
      case TypeId::kDayTimeInterval:
        raw_width = types[0]->fixed_width();
        break;
      default:
        break;
    }
  }

  // Inserts row `row` of `src` (one vector per column, already known to hold no NULL at `row`)
  // when absent.
  void Insert(std::span<const Vector* const> src, size_t row, uint64_t h) {
    switch (raw_width) {
      case 1:
        return InsertWord<uint8_t>(*src[0], row, h);
      case 2:
        return InsertWord<uint16_t>(*src[0], row, h);
      case 4:
        return InsertWord<uint32_t>(*src[0], row, h);
      case 8:
        return InsertWord<uint64_t>(*src[0], row, h);
      case 16:
        return InsertRaw<unsigned __int128>(*src[0], row, h);
      default:
        break;
    }
    if ((size() + 1) * 2 > slots.size()) Grow();
    size_t mask = slots.size() - 1;
    for (size_t s = h & mask;; s = (s + 1) & mask) {
      uint32_t e = slots[s];
      if (e == 0) {
        for (size_t c = 0; c < cols.size(); ++c) cols[c].AppendRange(*src[c], row, 1);
        hashes.push_back(h);
        slots[s] = static_cast<uint32_t>(hashes.size());
        return;
      }
      if (hashes[e - 1] == h) {
        bool eq = true;
        for (size_t c = 0; c < cols.size() && eq; ++c) {
          eq = ValuesEqualAt(cols[c], e - 1, *src[c], row, NullEquality::kNullsEqual);
        }
        if (eq) return;
      }
    }
  }
  // Hint that a row with hash h will be inserted soon: its probe starts in a cache miss on big
  // sets.
  void Prefetch(uint64_t h) const {
    if (!word_slots.empty()) __builtin_prefetch(&word_slots[h & (word_slots.size() - 1)]);
  }
  template <typename T>
  void InsertWord(const Vector& src, size_t row, uint64_t h) {
    if ((size() + 1) * 2 > word_slots.size()) GrowWords<T>();
    const T v = src.Get<T>(row);
    size_t mask = word_slots.size() - 1;
    for (size_t s = h & mask;; s = (s + 1) & mask) {
      WordSlot& slot = word_slots[s];
      if (slot.index == 0) {
        cols[0].Append<T>(v);
        hashes.push_back(h);
        slot = {static_cast<uint64_t>(v), hashes.size()};
        return;
      }
      if (slot.value == static_cast<uint64_t>(v)) return;
    }
  }
  template <typename T>
  void GrowWords() {
    size_t cap = std::max<size_t>(8, word_slots.size() * 2);
    word_slots.assign(cap, WordSlot{0, 0});
    const T* have = cols[0].data<T>();
    for (size_t i = 0; i < hashes.size(); ++i) {
      for (size_t s = hashes[i] & (cap - 1);; s = (s + 1) & (cap - 1)) {
        if (word_slots[s].index == 0) {
          word_slots[s] = {static_cast<uint64_t>(have[i]), i + 1};
          break;
        }
      }
    }
  }
  // Insert for a 16-byte raw_width column: values compared and appended as T.
  template <typename T>
  void InsertRaw(const Vector& src, size_t row, uint64_t h) {
    if ((size() + 1) * 2 > slots.size()) Grow();
    const T v = src.Get<T>(row);
    const T* have = cols[0].data<T>();
    size_t mask = slots.size() - 1;
    for (size_t s = h & mask;; s = (s + 1) & mask) {
      uint32_t e = slots[s];
      if (e == 0) {
        cols[0].Append<T>(v);
        hashes.push_back(h);
        slots[s] = static_cast<uint32_t>(hashes.size());
        return;
      }
      if (hashes[e - 1] == h && have[e - 1] == v) return;
    }
  }
  void Grow() {
    size_t cap = std::max<size_t>(8, slots.size() * 2);
    slots.assign(cap, 0);
    for (size_t i = 0; i < hashes.size(); ++i) {
      for (size_t s = hashes[i] & (cap - 1);; s = (s + 1) & (cap - 1)) {
        if (slots[s] == 0) {
          slots[s] = static_cast<uint32_t>(i + 1);
          break;
        }
      }
    }
  }
};

// f(DISTINCT args): collects the distinct non-NULL argument tuples per group and feeds them to
// the inner aggregate at Finalize.
class DistinctFn final : public AggregateFunction {
 public:
  DistinctFn(FnPtr inner, std::vector<TypePtr> arg_types)
      : inner_(std::move(inner)), types_(std::move(arg_types)) {
    result_type_ = inner_->result_type();
  }
  size_t state_size() const override { return sizeof(DistinctSet*); }
  void Init(uint8_t* s) const override { St<DistinctSet*>(s) = nullptr; }
  void Destroy(uint8_t* s) const override {
    delete St<DistinctSet*>(s);
    St<DistinctSet*>(s) = nullptr;
  }
  bool has_heap_state() const override { return true; }
  size_t HeapBytes(const uint8_t* s) const override {
    const DistinctSet* d = St<DistinctSet*>(s);
    if (!d) return 0;
    size_t n = sizeof(DistinctSet) + d->hashes.capacity() * sizeof(uint64_t) +
               d->slots.capacity() * sizeof(uint32_t) +
               d->word_slots.capacity() * sizeof(DistinctSet::WordSlot);
    for (const Vector& v : d->cols) n += v.MemoryUsage();
    return n;
  }
  DistinctSet* Get(uint8_t* s) const {
    DistinctSet*& p = St<DistinctSet*>(s);
    if (!p) p = new DistinctSet(types_);
    return p;
  }
  Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                const EvalContext&) const override {
    std::vector<const Vector*> cols;
    bool any_constant = false, any_null = false;
    for (const Arg& a : args) {
      cols.push_back(a.vector);
      any_constant |= a.constant;
      any_null |= ArgView(a).may_null();
    }
    std::vector<uint64_t> h(rows);
    if (!any_constant) {
      HashRows(cols, rows, h.data());
    }
    constexpr size_t kPrefetchDistance = 16;
    for (size_t i = 0; i < rows; ++i) {
      if (!any_constant && i + kPrefetchDistance < rows)
        Get(states[i + kPrefetchDistance])->Prefetch(h[i + kPrefetchDistance]);
      if (any_null) {
        bool skip = false;
        for (const Arg& a : args) skip |= ArgView(a).null(i);
        if (skip) continue;
      }
      if (!any_constant) {
        Get(states[i])->Insert(cols, i, h[i]);
        continue;
      }
      // Some argument is a 1-row constant: hash and insert row by row.
      uint64_t rh = kNullHash;
      for (size_t c = 0; c < args.size(); ++c) {
        size_t r = args[c].index(i);
        rh = c == 0 ? HashValueAt(*cols[c], r) : HashCombine(rh, HashValueAt(*cols[c], r));
      }
      // Insert reads row `row` of every column; build per-row 1-row views for constants.
      std::vector<Vector> tmp;
      std::vector<const Vector*> src;
      tmp.reserve(args.size());
      for (size_t c = 0; c < args.size(); ++c) {
        tmp.emplace_back(types_[c]);
        tmp.back().AppendRange(*cols[c], args[c].index(i), 1);
      }
      for (auto& t : tmp) src.push_back(&t);
      Get(states[i])->Insert(src, 0, rh);
    }
    return Status::OK();
  }
  Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext&) const override {
    const DistinctSet* a = St<DistinctSet*>(src);
    if (!a || a->size() == 0) return Status::OK();
    DistinctSet* b = Get(dst);
    std::vector<const Vector*> cols;
    for (const Vector& v : a->cols) cols.push_back(&v);
    for (size_t i = 0; i < a->size(); ++i) b->Insert(cols, i, a->hashes[i]);
    return Status::OK();
  }
  const FnPtr& inner() const { return inner_; }
  Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                  const EvalContext& ctx) const override {
    size_t sz = (inner_->state_size() + 15) / 16 * 16;
    std::vector<uint8_t> raw(sz + 16);
    uint8_t* st =
        reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(raw.data()) + 15) & ~uintptr_t{15});
    std::vector<uint8_t*> ptrs;
    for (size_t i = 0; i < n; ++i) {
      const DistinctSet* set = St<DistinctSet*>(states[i]);
      inner_->Init(st);
      Status status;
      if (set && set->size() > 0) {
        std::vector<Arg> args;
        for (const Vector& v : set->cols) args.push_back(Arg{&v, false});
        ptrs.assign(set->size(), st);
        status = inner_->Update(args, set->size(), ptrs.data(), ctx);
      }
      const uint8_t* cst = st;
      if (status.ok()) status = inner_->Finalize(&cst, 1, out, ctx);
      inner_->Destroy(st);
      SILT_RETURN_NOT_OK(status);
    }
    return Status::OK();
  }

 private:
  FnPtr inner_;
  std::vector<TypePtr> types_;
};

}  // namespace

FnPtr DistinctInner(const AggregateFunction& fn) {
  const auto* d = dynamic_cast<const DistinctFn*>(&fn);
  return d ? d->inner() : nullptr;
}

FnPtr MakeDistinct(FnPtr inner, std::vector<TypePtr> arg_types) {
  return std::make_shared<DistinctFn>(std::move(inner), std::move(arg_types));
}

}  // namespace silt::exec::agg
