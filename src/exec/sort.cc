#include "exec/sort.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "common/error_classes.h"
#include "exec/external_sort.h"
#include "exec/spill.h"

namespace silt::exec {

namespace {

// ---------------------------------------------------------------- value comparison

template <typename T>
int CmpInt(const Vector& a, size_t i, const Vector& b, size_t j) {
  T x = a.data<T>()[i], y = b.data<T>()[j];
  return (x > y) - (x < y);
}

// Spark's SQLOrderingUtil.compareDoubles: -0.0 == 0.0, NaN == NaN, NaN above everything.
template <typename T>
int CmpFloat(const Vector& a, size_t i, const Vector& b, size_t j) {
  T x = a.data<T>()[i], y = b.data<T>()[j];
  if (x < y) return -1;
  if (x > y) return 1;
  if (x == y) return 0;
  return static_cast<int>(std::isnan(x)) - static_cast<int>(std::isnan(y));
}

int CmpBytes(const Vector& a, size_t i, const Vector& b, size_t j) {
  std::string_view x = a.GetString(i), y = b.GetString(j);
  size_t n = std::min(x.size(), y.size());
  int c = n ? std::memcmp(x.data(), y.data(), n) : 0;  // memcmp compares unsigned bytes
  if (c) return c < 0 ? -1 : 1;
  return (x.size() > y.size()) - (x.size() < y.size());
}

int CmpNullsFirst(const Vector& a, size_t i, const Vector& b, size_t j) {
  bool na = a.IsNull(i), nb = b.IsNull(j);
  if (na || nb) return static_cast<int>(nb) - static_cast<int>(na);
  return CompareValues(a, i, b, j);
}

int CmpStruct(const Vector& a, size_t i, const Vector& b, size_t j) {
  for (size_t k = 0; k < a.num_children(); ++k) {
    int c = CmpNullsFirst(a.child(k), i, b.child(k), j);
    if (c) return c;
  }
  return 0;
}

int CmpList(const Vector& a, size_t i, const Vector& b, size_t j) {
  uint32_t a0 = a.offsets()[i], a1 = a.offsets()[i + 1];
  uint32_t b0 = b.offsets()[j], b1 = b.offsets()[j + 1];
  uint32_t n = std::min(a1 - a0, b1 - b0);
  for (uint32_t k = 0; k < n; ++k) {
    int c = CmpNullsFirst(a.child(0), a0 + k, b.child(0), b0 + k);
    if (c) return c;
  }
  return ((a1 - a0) > (b1 - b0)) - ((a1 - a0) < (b1 - b0));
}

int CmpNone(const Vector&, size_t, const Vector&, size_t) { return 0; }

RowComparator::CompareFn CompareFnFor(const DataType& t) {
  switch (t.id()) {
    case TypeId::kNull:
      return CmpNone;
    case TypeId::kBoolean:
      return CmpInt<uint8_t>;
    case TypeId::kInt8:
      return CmpInt<int8_t>;
    case TypeId::kInt16:
      return CmpInt<int16_t>;
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return CmpInt<int32_t>;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kTime:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
    case TypeId::kDayTimeInterval:
      return CmpInt<int64_t>;
    case TypeId::kFloat:
      return CmpFloat<float>;
    case TypeId::kDouble:
      return CmpFloat<double>;
    case TypeId::kDecimal:
    case TypeId::kCalendarInterval:
      return CmpInt<int128_t>;
    case TypeId::kString:
    case TypeId::kBinary:
      return CmpBytes;
    case TypeId::kStruct:
      return CmpStruct;
    case TypeId::kList:
      return CmpList;
    case TypeId::kMap:
      return CmpNone;  // rejected by CheckOrderable
  }
  return CmpNone;
}

// ---------------------------------------------------------------- normalized keys

using u128 = unsigned __int128;

// Bytes of the order-preserving unsigned encoding of a value of type t, or 0 when t has none.
int NormalizedWidth(const DataType& t) {
  switch (t.id()) {
    case TypeId::kBoolean:
    case TypeId::kInt8:
      return 1;
    case TypeId::kInt16:
      return 2;
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
    case TypeId::kFloat:
      return 4;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kTime:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
    case TypeId::kDayTimeInterval:
    case TypeId::kDouble:
      return 8;
    case TypeId::kDecimal:
      return t.precision() <= 18 ? 8 : 16;
    default:
      return 0;
  }
}

template <typename K>
struct Item {
  K key;
  uint32_t idx;
};

template <typename S, typename U>
inline U FlipSign(S v) {
  return static_cast<U>(v) ^ (U(1) << (sizeof(U) * 8 - 1));
}

inline uint32_t EncodeFloat(float f) {
  if (std::isnan(f)) f = std::numeric_limits<float>::quiet_NaN();
  if (f == 0) f = 0.0f;  // -0.0 sorts with 0.0
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

inline uint64_t EncodeDouble(double d) {
  if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
  if (d == 0) d = 0.0;
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return (u & 0x8000000000000000ull) ? ~u : (u | 0x8000000000000000ull);
}

template <typename K>
inline K ShiftBytes(K key, int bytes) {
  return bytes >= static_cast<int>(sizeof(K)) ? K(0) : K(key << (8 * bytes));
}

// Appends (as the low bytes of every key) a null byte when the column has NULLs, placing them
// first or last, then the encoded value (zero for NULLs so they tie and stay in input order).
// Encodes rows [begin, end) (ranges are independent, so parallel tasks may encode disjoint ones).
template <typename K>
void EncodeColumn(const Vector& v, SortOrder o, bool with_null_byte, std::vector<Item<K>>* items,
                  size_t begin, size_t end) {
  const int w = NormalizedWidth(*v.type());
  Item<K>* it = items->data();
  const K mask = w >= static_cast<int>(sizeof(K)) ? ~K(0) : K((K(1) << (8 * w)) - 1);
  const K flip = o.ascending ? K(0) : mask;
  const uint8_t* valid = with_null_byte ? v.validity() : nullptr;
  auto put = [&](auto encode) {
    if (!valid) {
      for (size_t r = begin; r < end; ++r) {
        it[r].key = ShiftBytes(it[r].key, w) | ((static_cast<K>(encode(r)) ^ flip) & mask);
      }
      return;
    }
    const K null_byte = o.nulls_first ? K(0) : K(1);
    const K valid_byte = o.nulls_first ? K(1) : K(0);
    for (size_t r = begin; r < end; ++r) {
      K key = ShiftBytes(it[r].key, 1);
      if (valid[r]) {
        key = ShiftBytes(K(key | valid_byte), w) | ((static_cast<K>(encode(r)) ^ flip) & mask);
      } else {
        key = ShiftBytes(K(key | null_byte), w);
      }
      it[r].key = key;
    }
  };
  switch (v.id()) {
    case TypeId::kBoolean: {
      const uint8_t* d = v.data<uint8_t>();
      put([&](size_t r) { return uint8_t(d[r] != 0); });
      break;
    }
    case TypeId::kInt8: {
      const int8_t* d = v.data<int8_t>();
      put([&](size_t r) { return FlipSign<int8_t, uint8_t>(d[r]); });
      break;
    }
    case TypeId::kInt16: {
      const int16_t* d = v.data<int16_t>();
      put([&](size_t r) { return FlipSign<int16_t, uint16_t>(d[r]); });
      break;
    }
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval: {
      const int32_t* d = v.data<int32_t>();
      put([&](size_t r) { return FlipSign<int32_t, uint32_t>(d[r]); });
      break;
    }
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kTime:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
    case TypeId::kDayTimeInterval: {
      const int64_t* d = v.data<int64_t>();
      put([&](size_t r) { return FlipSign<int64_t, uint64_t>(d[r]); });
      break;
    }
    case TypeId::kFloat: {
      const float* d = v.data<float>();
      put([&](size_t r) { return EncodeFloat(d[r]); });
      break;
    }
    case TypeId::kDouble: {
      const double* d = v.data<double>();
      put([&](size_t r) { return EncodeDouble(d[r]); });
      break;
    }
    case TypeId::kDecimal: {
      const int128_t* d = v.data<int128_t>();
      if (w == 8) {
        put([&](size_t r) { return FlipSign<int64_t, uint64_t>(static_cast<int64_t>(d[r])); });
      } else {
        put([&](size_t r) { return FlipSign<int128_t, u128>(d[r]); });
      }
      break;
    }
    default:
      break;
  }
}

template <typename K>
void RadixSort(Item<K>* a, Item<K>* tmp, size_t n, int nbytes) {
  if (n < 2) return;
  std::vector<size_t> counts(static_cast<size_t>(nbytes) * 256, 0);
  for (size_t r = 0; r < n; ++r) {
    K k = a[r].key;
    for (int b = 0; b < nbytes; ++b) ++counts[b * 256 + static_cast<uint8_t>(k >> (8 * b))];
  }
  Item<K>* src = a;
  Item<K>* dst = tmp;
  for (int b = 0; b < nbytes; ++b) {
    size_t* c = &counts[b * 256];
    bool trivial = false;
    for (int x = 0; x < 256; ++x) {
      if (c[x] == n) trivial = true;
    }
    if (trivial) continue;
    size_t sum = 0;
    for (int x = 0; x < 256; ++x) {
      size_t t = c[x];
      c[x] = sum;
      sum += t;
    }
    for (size_t r = 0; r < n; ++r) dst[c[static_cast<uint8_t>(src[r].key >> (8 * b))]++] = src[r];
    std::swap(src, dst);
  }
  if (src != a) std::memcpy(static_cast<void*>(a), src, n * sizeof(Item<K>));
}

// MSD on the highest byte that varies, then LSD inside each bucket once it fits in cache: one
// pass over memory for the big scatter instead of one per byte. Stable; result in a.
template <typename K>
void HybridRadixSort(Item<K>* a, Item<K>* tmp, size_t n, int nbytes, ThreadPool* pool = nullptr) {
  if (n < 2 || nbytes == 0) return;
  if (n <= 24) {
    for (size_t i = 1; i < n; ++i) {
      Item<K> x = a[i];
      size_t j = i;
      for (; j > 0 && a[j - 1].key > x.key; --j) a[j] = a[j - 1];
      a[j] = x;
    }
    return;
  }
  if (n <= (size_t(1) << 14)) {
    RadixSort(a, tmp, n, nbytes);
    return;
  }
  // With a pool the top-level passes (key range, histogram, scatter) run on `ranges` row ranges
  // in parallel; range q scatters after ranges 0..q-1 within each bucket, so it stays stable.
  const size_t ranges = pool ? 2 * (pool->num_threads() + 1) : 1;
  auto for_ranges = [&](const std::function<void(size_t, size_t, size_t)>& fn) {
    if (ranges == 1) return fn(0, 0, n);
    (void)pool->ParallelFor(ranges, [&](size_t q) {
      fn(q, n * q / ranges, n * (q + 1) / ranges);
      return Status::OK();
    });
  };
  std::vector<K> ors(ranges, K(0)), ands(ranges, ~K(0));
  for_ranges([&](size_t q, size_t begin, size_t end) {
    K o = 0, d = ~K(0);
    for (size_t r = begin; r < end; ++r) {
      o |= a[r].key;
      d &= a[r].key;
    }
    ors[q] = o;
    ands[q] = d;
  });
  K all_or = 0, all_and = ~K(0);
  for (size_t q = 0; q < ranges; ++q) {
    all_or |= ors[q];
    all_and &= ands[q];
  }
  K diff = all_or ^ all_and;
  int b = nbytes - 1;
  while (b >= 0 && static_cast<uint8_t>(diff >> (8 * b)) == 0) --b;
  if (b < 0) return;  // all keys equal
  std::vector<std::array<size_t, 256>> hist(ranges);
  for_ranges([&](size_t q, size_t begin, size_t end) {
    std::array<size_t, 256>& h = hist[q];
    h.fill(0);
    for (size_t r = begin; r < end; ++r) ++h[static_cast<uint8_t>(a[r].key >> (8 * b))];
  });
  size_t counts[257] = {0};
  for (size_t q = 0; q < ranges; ++q) {
    for (int x = 0; x < 256; ++x) counts[x + 1] += hist[q][x];
  }
  for (int x = 0; x < 256; ++x) counts[x + 1] += counts[x];
  // hist[q][x] becomes range q's first output position in bucket x.
  for (int x = 0; x < 256; ++x) {
    size_t at = counts[x];
    for (size_t q = 0; q < ranges; ++q) {
      size_t c = hist[q][x];
      hist[q][x] = at;
      at += c;
    }
  }
  for_ranges([&](size_t q, size_t begin, size_t end) {
    std::array<size_t, 256>& pos = hist[q];
    for (size_t r = begin; r < end; ++r)
      tmp[pos[static_cast<uint8_t>(a[r].key >> (8 * b))]++] = a[r];
  });
  auto bucket = [&](size_t x) {
    size_t lo = counts[x], cnt = counts[x + 1] - lo;
    if (cnt == 0) return;
    HybridRadixSort(tmp + lo, a + lo, cnt, b);
    std::memcpy(static_cast<void*>(a + lo), tmp + lo, cnt * sizeof(Item<K>));
  };
  if (pool) {
    // Buckets are independent: no merge step needed.
    Status s = pool->ParallelFor(256, [&](size_t x) {
      bucket(x);
      return Status::OK();
    });
    // Only an exception of a bucket (caught by the pool, the rest skipped) fails: rethrown, so the
    // statement fails instead of going on with unsorted buckets.
    if (!s.ok()) throw std::runtime_error(s.ToString());
  } else {
    for (size_t x = 0; x < 256; ++x) bucket(x);
  }
}

// How many elements of a (length na) come before output position k of the stable merge of a and
// b (length nb): the i with a[i-1] <= b[k-i] (in `less`) and b[k-i-1] < a[i].
template <typename T, typename Less>
size_t MergeSplit(const T* a, size_t na, const T* b, size_t nb, size_t k, Less less) {
  size_t lo = k > nb ? k - nb : 0, hi = std::min(k, na);
  while (lo < hi) {
    size_t i = lo + (hi - lo) / 2;  // i < hi <= na, and k - i - 1 < nb
    // Taking a[i] before b[k-i-1] is right exactly when !(b[k-i-1] < a[i]) is false.
    if (less(b[k - i - 1], a[i])) {
      hi = i;
    } else {
      lo = i + 1;
    }
  }
  return lo;
}

// Writes slice `piece` of `pieces` of the stable merge of a and b (ties from a first, as
// std::merge) to out[k0, k1): slices are independent, so tasks can write them in parallel.
template <typename T, typename Less>
void MergeSlice(const T* a, size_t na, const T* b, size_t nb, T* out, size_t piece, size_t pieces,
                Less less) {
  const size_t n = na + nb;
  const size_t k0 = n * piece / pieces, k1 = n * (piece + 1) / pieces;
  if (k0 == k1) return;
  const size_t i0 = MergeSplit(a, na, b, nb, k0, less), i1 = MergeSplit(a, na, b, nb, k1, less);
  std::merge(a + i0, a + i1, b + (k0 - i0), b + (k1 - i1), out + k0, less);
}

// Splits [0, n) into `parts` runs sorted by sort_run(begin, end), then merges them pairwise
// (std::merge takes from the earlier run on ties, so the result stays stable).
template <typename T, typename SortRun, typename Less>
Status ParallelSortRuns(std::vector<T>* data, size_t parts, ThreadPool* pool, SortRun sort_run,
                        Less less) {
  const size_t n = data->size();
  std::vector<size_t> bounds(parts + 1);
  for (size_t p = 0; p <= parts; ++p) bounds[p] = n * p / parts;
  SILT_RETURN_NOT_OK(pool->ParallelFor(parts, [&](size_t p) {
    sort_run(bounds[p], bounds[p + 1]);
    return Status::OK();
  }));
  std::vector<T> buf(n);
  std::vector<T>* src = data;
  std::vector<T>* dst = &buf;
  while (bounds.size() > 2) {
    size_t runs = bounds.size() - 1;
    std::vector<size_t> next;
    next.push_back(0);
    for (size_t r = 0; r + 1 < runs; r += 2) next.push_back(bounds[r + 2]);
    if (runs % 2) next.push_back(bounds[runs]);
    // Each pair's merge is cut into `pieces` independent slices of its output (merge path), so
    // the last passes, with fewer pairs than threads, still use every thread.
    const size_t pairs = (runs + 1) / 2;
    const size_t pieces = std::max<size_t>(1, (2 * (pool->num_threads() + 1) + pairs - 1) / pairs);
    SILT_RETURN_NOT_OK(pool->ParallelFor(pairs * pieces, [&](size_t task) {
      size_t r = 2 * (task / pieces), piece = task % pieces;
      T* s = src->data();
      T* d = dst->data();
      if (r + 1 < runs) {
        MergeSlice(s + bounds[r], bounds[r + 1] - bounds[r], s + bounds[r + 1],
                   bounds[r + 2] - bounds[r + 1], d + bounds[r], piece, pieces, less);
      } else if (piece == 0) {
        std::copy(s + bounds[r], s + bounds[r + 1], d + bounds[r]);
      }
      return Status::OK();
    }));
    std::swap(src, dst);
    bounds = std::move(next);
  }
  if (src != data) *data = std::move(*src);
  return Status::OK();
}

constexpr size_t kParallelSortMinRows = 1 << 16;

size_t SortParts(const ExecContext& ctx, size_t n) {
  if (!ctx.pool || n < kParallelSortMinRows) return 1;
  size_t threads = ctx.pool->num_threads() + 1;
  return std::max<size_t>(1, std::min(threads * 2, n / (kParallelSortMinRows / 2)));
}

template <typename K>
Status NormalizedSort(std::span<const Vector* const> keys, std::span<const SortOrder> orders,
                      size_t n, int total_bytes, const ExecContext& ctx,
                      std::vector<uint32_t>* perm) {
  std::vector<Item<K>> items(n);
  std::vector<Item<K>> tmp(n);
  perm->resize(n);
  // Encoding (and copying the permutation out) works on independent row ranges: one per part.
  const size_t parts = SortParts(ctx, n);
  ThreadPool* pool = parts > 1 ? ctx.pool : nullptr;
  auto ranges = [&](const std::function<void(size_t, size_t)>& fn) {
    return ParallelFor(pool, parts, [&](size_t p) {
      fn(n * p / parts, n * (p + 1) / parts);
      return Status::OK();
    });
  };
  SILT_RETURN_NOT_OK(ranges([&](size_t b, size_t e) {
    for (size_t r = b; r < e; ++r) items[r] = Item<K>{K(0), static_cast<uint32_t>(r)};
    for (size_t k = 0; k < keys.size(); ++k) {
      EncodeColumn<K>(*keys[k], orders[k], keys[k]->may_have_nulls(), &items, b, e);
    }
  }));
  if (ctx.is_cancelled()) return Status::Cancelled("sort cancelled");
  HybridRadixSort(items.data(), tmp.data(), n, total_bytes, pool);
  SILT_RETURN_NOT_OK(ranges([&](size_t b, size_t e) {
    for (size_t r = b; r < e; ++r) (*perm)[r] = items[r].idx;
  }));
  return Status::OK();
}

}  // namespace

// ---------------------------------------------------------------- public comparison

Status CheckOrderable(const DataType& type) {
  if (type.id() == TypeId::kMap || type.id() == TypeId::kCalendarInterval) {
    return Status::InvalidArgument("cannot sort or compare values of type " + type.ToString() +
                                       " (map and calendar interval types are not orderable)",
                                   errc::kDatatypeMismatch);
  }
  for (const Field& f : type.fields()) {
    SILT_RETURN_NOT_OK(CheckOrderable(*f.type));
  }
  return Status::OK();
}

int CompareValues(const Vector& a, size_t i, const Vector& b, size_t j) {
  if (a.IsNull(i) || b.IsNull(j)) return CmpNullsFirst(a, i, b, j);
  return CompareFnFor(*a.type())(a, i, b, j);
}

RowComparator::RowComparator(std::vector<const Vector*> keys_a, std::vector<const Vector*> keys_b,
                             std::vector<SortOrder> orders) {
  keys_.reserve(keys_a.size());
  for (size_t k = 0; k < keys_a.size(); ++k) {
    keys_.push_back(Key{keys_a[k], keys_b[k], keys_a[k]->validity(), keys_b[k]->validity(),
                        CompareFnFor(*keys_a[k]->type()), orders[k].ascending,
                        orders[k].nulls_first});
  }
}

int RowComparator::Compare(size_t i, size_t j) const {
  for (const Key& k : keys_) {
    bool na = k.valid_a && !k.valid_a[i];
    bool nb = k.valid_b && !k.valid_b[j];
    if (na || nb) {
      if (na && nb) continue;
      int c = na ? -1 : 1;
      return k.nulls_first ? c : -c;
    }
    int c = k.fn(*k.a, i, *k.b, j);
    if (c) return k.ascending ? c : -c;
  }
  return 0;
}

Status SortPermutation(std::span<const Vector* const> keys, std::span<const SortOrder> orders,
                       size_t num_rows, const ExecContext& ctx, std::vector<uint32_t>* perm) {
  if (num_rows > std::numeric_limits<uint32_t>::max()) {
    return Status::NotImplemented("sorting more than 4294967295 rows in one operator");
  }
  int total = 0;
  bool normalizable = true;
  for (const Vector* k : keys) {
    SILT_RETURN_NOT_OK(CheckOrderable(*k->type()));
    int w = NormalizedWidth(*k->type());
    if (w == 0) normalizable = false;
    total += w + (k->may_have_nulls() ? 1 : 0);
  }
  if (keys.empty() || num_rows < 2) {
    perm->resize(num_rows);
    std::iota(perm->begin(), perm->end(), 0u);
    return Status::OK();
  }
  if (normalizable && total <= 8)
    return NormalizedSort<uint64_t>(keys, orders, num_rows, total, ctx, perm);
  if (normalizable && total <= 16)
    return NormalizedSort<u128>(keys, orders, num_rows, total, ctx, perm);

  RowComparator cmp(std::vector<const Vector*>(keys.begin(), keys.end()),
                    std::vector<SortOrder>(orders.begin(), orders.end()));
  auto less = [&cmp](uint32_t x, uint32_t y) { return cmp.Compare(x, y) < 0; };
  perm->resize(num_rows);
  std::iota(perm->begin(), perm->end(), 0u);
  size_t parts = SortParts(ctx, num_rows);
  if (parts <= 1) {
    std::stable_sort(perm->begin(), perm->end(), less);
  } else {
    SILT_RETURN_NOT_OK(ParallelSortRuns(
        perm, parts, ctx.pool,
        [&](size_t b, size_t e) { std::stable_sort(perm->begin() + b, perm->begin() + e, less); },
        less));
  }
  if (ctx.is_cancelled()) return Status::Cancelled("sort cancelled");
  return Status::OK();
}

// ---------------------------------------------------------------- buffering helpers

Status EvaluateOrReference(const Expr& expr, const DataChunk& chunk, const EvalContext& ctx,
                           Vector* scratch, const Vector** result) {
  if (expr.kind == ExprKind::kColumn) {
    if (expr.column < 0 || static_cast<size_t>(expr.column) >= chunk.columns.size()) {
      return Status::Internal("column reference " + std::to_string(expr.column) +
                              " out of range for a chunk of " +
                              std::to_string(chunk.columns.size()) + " columns");
    }
    *result = &chunk.columns[expr.column];
    return Status::OK();
  }
  SILT_RETURN_NOT_OK(Evaluate(expr, chunk, ctx, scratch));
  *result = scratch;
  return Status::OK();
}

namespace {
// Offsets of strings/lists are uint32: refuse to grow past them rather than wrap.
bool WouldOverflowOffsets(const Vector& dst, const Vector& src) {
  constexpr uint64_t kMax = std::numeric_limits<uint32_t>::max();
  switch (dst.id()) {
    case TypeId::kString:
    case TypeId::kBinary:
      return uint64_t(dst.bytes().size()) + src.bytes().size() > kMax;
    case TypeId::kList:
    case TypeId::kMap:
      return uint64_t(dst.offsets()[dst.size()]) + src.offsets()[src.size()] > kMax ||
             WouldOverflowOffsets(dst.child(0), src.child(0));
    case TypeId::kStruct:
      for (size_t k = 0; k < dst.num_children(); ++k) {
        if (WouldOverflowOffsets(dst.child(k), src.child(k))) return true;
      }
      return false;
    default:
      return false;
  }
}

// Bytes a vector's buffers hold in use (MemoryUsage() is their capacity).
int64_t UsedBytes(const Vector& v) {
  int64_t n = static_cast<int64_t>(v.validity() ? v.size() : 0);
  int w = v.type()->fixed_width();
  if (w > 0) n += static_cast<int64_t>(v.size()) * w;
  if (v.type()->is_binary_like()) n += static_cast<int64_t>(v.bytes().size());
  if (v.offsets() != nullptr) n += static_cast<int64_t>(v.size() + 1) * 4;
  for (size_t k = 0; k < v.num_children(); ++k) n += UsedBytes(v.child(k));
  return n;
}
}  // namespace

Status AppendToBuffer(const DataChunk& chunk, DataChunk* all, MemoryReservation* reservation,
                      int64_t base, int64_t per_row_bytes, bool* appended) {
  if (appended) *appended = false;
  size_t n = chunk.size();
  if (n == 0) return Status::OK();
  if (all->columns.empty()) {
    if (uint64_t(all->num_rows_without_columns) + n > std::numeric_limits<uint32_t>::max()) {
      return Status::NotImplemented("buffering more than 4294967295 rows in one operator");
    }
    all->num_rows_without_columns += n;
    if (appended) *appended = true;
    return Status::OK();
  }
  if (uint64_t(all->size()) + n > std::numeric_limits<uint32_t>::max()) {
    return Status::NotImplemented("buffering more than 4294967295 rows in one operator");
  }
  // Reserved before appending: what the buffers hold, plus, for a column whose buffers must
  // grow, the larger buffers a reallocation allocates while the old ones still exist (so RSS
  // stays under the limit at the peak of a doubling, not only after it).
  const int64_t rows_bytes = static_cast<int64_t>(all->size() + n) * per_row_bytes;
  int64_t peak = base + rows_bytes;
  for (size_t c = 0; c < chunk.columns.size(); ++c) {
    if (WouldOverflowOffsets(all->columns[c], chunk.columns[c])) {
      return Status::NotImplemented("buffered column " + std::to_string(c) +
                                    " would exceed 4 GiB of variable-length data");
    }
    int64_t cap = static_cast<int64_t>(all->columns[c].MemoryUsage());
    int64_t need = UsedBytes(all->columns[c]) + UsedBytes(chunk.columns[c]);
    peak += cap + (need > cap ? std::max(2 * cap, need) : 0);
  }
  if (peak > reservation->bytes()) SILT_RETURN_NOT_OK(reservation->Resize(peak));
  int64_t bytes = base + rows_bytes;
  for (size_t c = 0; c < chunk.columns.size(); ++c) {
    all->columns[c].AppendRange(chunk.columns[c], 0, n);
    bytes += static_cast<int64_t>(all->columns[c].MemoryUsage());
  }
  if (appended) *appended = true;
  return reservation->Resize(bytes);
}

Status BufferAll(Operator& child, ExecContext& ctx, DataChunk* all,
                 MemoryReservation* reservation) {
  DataChunk chunk;
  const int64_t base = reservation->bytes();
  while (true) {
    if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
    SILT_ASSIGN_OR_RETURN(bool more, child.Next(ctx, &chunk));
    if (!more) break;
    SILT_RETURN_NOT_OK(AppendToBuffer(chunk, all, reservation, base, 0, nullptr));
  }
  return Status::OK();
}

void AppendNulls(Vector* v, size_t n) {
  if (n == 0) return;
  size_t old = v->size();
  v->Resize(old + n);
  uint8_t* valid = v->mutable_validity();
  std::memset(valid + old, 0, n);
}

void GatherChunk(const DataChunk& src, const uint32_t* sel, size_t n, DataChunk* out) {
  out->columns.clear();
  out->num_rows_without_columns = src.columns.empty() ? n : 0;
  out->columns.reserve(src.columns.size());
  for (const Vector& col : src.columns) {
    out->columns.emplace_back(col.type());
    out->columns.back().AppendSelected(col, sel, n);
  }
}

namespace {
std::string KeysToString(const std::vector<SortKey>& keys) {
  std::string s;
  for (size_t k = 0; k < keys.size(); ++k) {
    if (k) s += ", ";
    s += keys[k].expr->ToString();
    s += keys[k].ascending ? " ASC" : " DESC";
    s += keys[k].nulls_first ? " NULLS FIRST" : " NULLS LAST";
  }
  return s;
}

std::vector<SortOrder> OrdersOf(const std::vector<SortKey>& keys) {
  std::vector<SortOrder> o;
  for (const SortKey& k : keys) o.push_back(SortOrder{k.ascending, k.nulls_first});
  return o;
}

// Evaluates every key over chunk; *vectors holds the evaluated (or copied) key columns.
Status EvaluateKeys(const std::vector<SortKey>& keys, const DataChunk& chunk,
                    const EvalContext& ctx, std::vector<Vector>* vectors) {
  vectors->clear();
  for (const SortKey& k : keys) {
    Vector scratch(k.expr->type);
    const Vector* v = nullptr;
    SILT_RETURN_NOT_OK(EvaluateOrReference(*k.expr, chunk, ctx, &scratch, &v));
    if (v == &scratch) {
      vectors->push_back(std::move(scratch));
    } else {
      vectors->push_back(*v);
    }
  }
  return Status::OK();
}
}  // namespace

// ---------------------------------------------------------------- SortOperator

SortOperator::SortOperator(OperatorPtr child, std::vector<SortKey> keys)
    : child_(std::move(child)), keys_(std::move(keys)) {
  schema_ = child_->output_schema();
}

SortOperator::~SortOperator() = default;

std::string SortOperator::details() const { return KeysToString(keys_); }

namespace {
bool IsMemoryLimit(const Status& s) { return s.code() == StatusCode::kOutOfMemory; }
}  // namespace

int64_t EvaluatedKeyBytesPerRow(std::span<const SortKey> keys) {
  int64_t n = 0;
  for (const SortKey& k : keys) {
    if (k.expr->kind == ExprKind::kColumn) continue;
    int w = k.expr->type->fixed_width();
    n += (w > 0 ? w : 20) + 1;  // variable-length: offsets and an estimate of the bytes
  }
  return n;
}

Status SortOperator::Run(ExecContext& ctx) {
  reservation_ = std::make_unique<MemoryReservation>(ctx.memory, name());
  data_ = DataChunk::FromSchema(schema_);
  const bool can_spill = ctx.memory && ctx.spill && ctx.spill->CanSpill();
  if (!can_spill) {
    SILT_RETURN_NOT_OK(BufferAll(*child_, ctx, &data_, reservation_.get()));
  } else {
    // Buffer with room for the sort's permutation (24 bytes a row, as below) and evaluated keys;
    // when the limit is hit, the buffer is sorted and written as a run (external_sort.h) and
    // buffering restarts.
    const int64_t per_row = 24 + EvaluatedKeyBytesPerRow(keys_);
    const int64_t budget = SpillBudget(ctx.memory, ctx.spill);
    DataChunk chunk;
    while (true) {
      if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
      SILT_ASSIGN_OR_RETURN(bool more, child_->Next(ctx, &chunk));
      if (!more) break;
      bool appended = false;
      Status s = AppendToBuffer(chunk, &data_, reservation_.get(), 0, per_row, &appended);
      if (s.ok() && (budget < 0 || reservation_->bytes() <= budget)) continue;
      if (!s.ok() && (!IsMemoryLimit(s) || (!appended && data_.size() == 0))) return s;
      if (!external_) external_ = std::make_unique<ExternalSort>(schema_, keys_, name());
      SILT_RETURN_NOT_OK(
          external_->SpillRun(ctx, &data_, reservation_.get(), per_row * int64_t(data_.size())));
      SILT_RETURN_NOT_OK(reservation_->Resize(0));
      if (!appended) {
        // One chunk alone that does not fit is the error spilling cannot help with.
        SILT_RETURN_NOT_OK(AppendToBuffer(chunk, &data_, reservation_.get(), 0, per_row, nullptr));
      }
    }
    if (external_) {
      SILT_RETURN_NOT_OK(
          external_->SpillRun(ctx, &data_, reservation_.get(), per_row * int64_t(data_.size())));
      SILT_RETURN_NOT_OK(reservation_->Resize(0));
      return external_->StartMerge(ctx);
    }
    // Everything fit: the in-memory sort below reserves what it uses.
    SILT_RETURN_NOT_OK(
        reservation_->Resize(reservation_->bytes() - per_row * int64_t(data_.size())));
  }
  size_t n = data_.size();
  std::vector<Vector> scratch;
  std::vector<const Vector*> key_vectors;
  scratch.reserve(keys_.size());
  for (const SortKey& k : keys_) {
    scratch.emplace_back(k.expr->type);
    const Vector* v = nullptr;
    SILT_RETURN_NOT_OK(EvaluateOrReference(*k.expr, data_, ctx.eval, &scratch.back(), &v));
    key_vectors.push_back(v);
  }
  int64_t extra = 0;
  for (const Vector& s : scratch) extra += static_cast<int64_t>(s.MemoryUsage());
  SILT_RETURN_NOT_OK(reservation_->Resize(reservation_->bytes() + extra + int64_t(n) * 24));
  std::vector<SortOrder> orders = OrdersOf(keys_);
  return SortPermutation(key_vectors, orders, n, ctx, &perm_);
}

std::string SortOperator::RuntimeMetrics() const {
  if (!external_ || external_->runs_spilled() == 0) return "";
  return "spilled " + std::to_string(external_->runs_spilled()) + " sorted runs, " +
         std::to_string(external_->bytes_spilled()) + " bytes";
}

Result<bool> SortOperator::Next(ExecContext& ctx, DataChunk* out) {
  if (!done_input_) {
    done_input_ = true;
    SILT_RETURN_NOT_OK(Run(ctx));
  }
  if (external_) return external_->Next(ctx, out);
  if (ready_.empty()) {
    size_t n = data_.size();
    if (emitted_ >= n) {
      if (!data_.columns.empty() || n) {
        data_ = DataChunk();
        perm_ = {};
        SILT_RETURN_NOT_OK(reservation_->Resize(0));
      }
      return false;
    }
    // Gathering is random access over the whole buffer: with a pool, a batch of output chunks
    // (a bounded amount ahead of the consumer) is gathered in parallel.
    size_t chunks = (n - emitted_ + kChunkRows - 1) / kChunkRows;
    if (ctx.pool)
      chunks = std::min(chunks, 8 * (ctx.pool->num_threads() + 1));
    else
      chunks = 1;
    std::vector<DataChunk> batch(chunks);
    const size_t base = emitted_;
    SILT_RETURN_NOT_OK(ParallelFor(ctx.pool, chunks, [&](size_t c) {
      size_t begin = base + c * kChunkRows;
      size_t k = std::min(kChunkRows, n - begin);
      GatherChunk(data_, perm_.data() + begin, k, &batch[c]);
      return Status::OK();
    }));
    for (DataChunk& c : batch) {
      emitted_ += c.size();
      ready_.push_back(std::move(c));
    }
  }
  *out = std::move(ready_.front());
  ready_.pop_front();
  return true;
}

// ---------------------------------------------------------------- TopNOperator

TopNOperator::TopNOperator(OperatorPtr child, std::vector<SortKey> keys, int64_t limit,
                           int64_t offset)
    : child_(std::move(child)), keys_(std::move(keys)), limit_(limit), offset_(offset) {
  schema_ = child_->output_schema();
}

std::string TopNOperator::details() const {
  std::string s = KeysToString(keys_) + ", limit=" + std::to_string(limit_);
  if (offset_) s += ", offset=" + std::to_string(offset_);
  return s;
}

namespace {
size_t Keep(int64_t limit, int64_t offset) {
  int64_t off = std::max<int64_t>(offset, 0);
  if (limit < 0 || limit > std::numeric_limits<int64_t>::max() - off) return SIZE_MAX;
  return static_cast<size_t>(limit + off);
}
}  // namespace

Status TopNOperator::Compact(const ExecContext& ctx) {
  size_t keep = Keep(limit_, offset_);
  size_t n = buffer_.size();
  std::vector<const Vector*> kv;
  for (const Vector& v : buffer_keys_) kv.push_back(&v);
  std::vector<SortOrder> orders = OrdersOf(keys_);
  std::vector<uint32_t> perm;
  SILT_RETURN_NOT_OK(SortPermutation(kv, orders, n, ctx, &perm));
  size_t m = std::min(keep, n);
  DataChunk next;
  GatherChunk(buffer_, perm.data(), m, &next);
  std::vector<Vector> next_keys;
  for (const Vector& v : buffer_keys_) {
    next_keys.emplace_back(v.type());
    next_keys.back().AppendSelected(v, perm.data(), m);
  }
  buffer_ = std::move(next);
  buffer_keys_ = std::move(next_keys);
  have_boundary_ = m == keep && m > 0;
  return Status::OK();
}

Status TopNOperator::Consume(ExecContext& ctx) {
  reservation_ = std::make_unique<MemoryReservation>(ctx.memory, name());
  buffer_ = DataChunk::FromSchema(schema_);
  for (const SortKey& k : keys_) buffer_keys_.emplace_back(k.expr->type);
  const size_t keep = Keep(limit_, offset_);
  const std::vector<SortOrder> orders = OrdersOf(keys_);
  // Input is pulled in order, a batch of chunks at a time; the per-row work (sort keys, and the
  // comparison with the last row kept so far) runs on the batch's chunks in parallel, and the
  // candidates are appended in input order (so ties keep their input order as without a pool).
  const size_t batch_chunks = ctx.pool ? 4 * (ctx.pool->num_threads() + 1) : 1;
  struct Piece {
    DataChunk chunk;
    std::vector<Vector> keys;
    std::vector<uint32_t> sel;
  };
  std::vector<Piece> batch(batch_chunks);
  bool more = true;
  while (more) {
    size_t got = 0;
    while (got < batch_chunks) {
      if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
      SILT_ASSIGN_OR_RETURN(more, child_->Next(ctx, &batch[got].chunk));
      if (!more) break;
      if (batch[got].chunk.size() > 0) ++got;
    }
    if (got == 0) break;
    // The boundary as of the batch's start: it only tightens, so rows it admits that a later
    // boundary would not are dropped by the next compaction all the same.
    std::vector<const Vector*> bound_keys;
    for (const Vector& v : buffer_keys_) bound_keys.push_back(&v);
    const bool filter = have_boundary_;
    SILT_RETURN_NOT_OK(ParallelFor(got > 1 ? ctx.pool : nullptr, got, [&](size_t i) -> Status {
      Piece& piece = batch[i];
      const size_t n = piece.chunk.size();
      SILT_RETURN_NOT_OK(EvaluateKeys(keys_, piece.chunk, ctx.eval, &piece.keys));
      piece.sel.clear();
      if (filter) {
        // Only rows strictly before the last row kept by the previous compaction can enter: a
        // tie would sort after it (it arrived later) and fall off the end.
        std::vector<const Vector*> a;
        for (const Vector& v : piece.keys) a.push_back(&v);
        RowComparator cmp(a, bound_keys, orders);
        const size_t last = keep - 1;  // rows after it were appended since the compaction
        for (size_t r = 0; r < n; ++r) {
          if (cmp.Compare(r, last) < 0) piece.sel.push_back(static_cast<uint32_t>(r));
        }
      } else {
        piece.sel.resize(n);
        std::iota(piece.sel.begin(), piece.sel.end(), 0u);
      }
      return Status::OK();
    }));
    for (size_t i = 0; i < got; ++i) {
      const Piece& piece = batch[i];
      const std::vector<uint32_t>& sel = piece.sel;
      if (sel.empty()) continue;
      if (buffer_.columns.empty()) {
        buffer_.num_rows_without_columns += sel.size();
      }
      for (size_t c = 0; c < buffer_.columns.size(); ++c) {
        buffer_.columns[c].AppendSelected(piece.chunk.columns[c], sel.data(), sel.size());
      }
      for (size_t k = 0; k < buffer_keys_.size(); ++k) {
        buffer_keys_[k].AppendSelected(piece.keys[k], sel.data(), sel.size());
      }
      size_t size = buffer_.size();
      size_t threshold = keep == SIZE_MAX ? SIZE_MAX : std::max(2 * keep, keep + kChunkRows);
      if (size >= threshold) {
        SILT_RETURN_NOT_OK(Compact(ctx));
      }
      int64_t bytes = 0;
      for (const Vector& v : buffer_.columns) bytes += static_cast<int64_t>(v.MemoryUsage());
      for (const Vector& v : buffer_keys_) bytes += static_cast<int64_t>(v.MemoryUsage());
      SILT_RETURN_NOT_OK(reservation_->Resize(bytes));
    }
  }
  return Compact(ctx);
}

Result<bool> TopNOperator::Next(ExecContext& ctx, DataChunk* out) {
  if (!done_input_) {
    done_input_ = true;
    if (limit_ == 0) return false;
    SILT_RETURN_NOT_OK(Consume(ctx));
    emitted_ = static_cast<size_t>(std::max<int64_t>(offset_, 0));
  }
  size_t n = buffer_.size();
  if (emitted_ >= n) {
    buffer_ = DataChunk();
    buffer_keys_.clear();
    if (reservation_) {
      SILT_RETURN_NOT_OK(reservation_->Resize(0));
    }
    return false;
  }
  size_t k = std::min(kChunkRows, n - emitted_);
  std::vector<uint32_t> sel(k);
  std::iota(sel.begin(), sel.end(), static_cast<uint32_t>(emitted_));
  GatherChunk(buffer_, sel.data(), k, out);
  emitted_ += k;
  return true;
}

// ---------------------------------------------------------------- LimitOperator

LimitOperator::LimitOperator(OperatorPtr child, int64_t limit, int64_t offset)
    : child_(std::move(child)), limit_(limit), offset_(std::max<int64_t>(offset, 0)) {
  schema_ = child_->output_schema();
}

std::string LimitOperator::details() const {
  std::string s = "limit=" + std::to_string(limit_);
  if (offset_) s += ", offset=" + std::to_string(offset_);
  return s;
}

Result<bool> LimitOperator::Next(ExecContext& ctx, DataChunk* out) {
  while (!done_) {
    if (limit_ >= 0 && returned_ >= limit_) {
      done_ = true;
      break;
    }
    DataChunk chunk;
    SILT_ASSIGN_OR_RETURN(bool more, child_->Next(ctx, &chunk));
    if (!more) {
      done_ = true;
      break;
    }
    int64_t n = static_cast<int64_t>(chunk.size());
    int64_t start = 0;
    if (skipped_ < offset_) {
      int64_t skip = std::min(n, offset_ - skipped_);
      skipped_ += skip;
      start = skip;
    }
    int64_t count = n - start;
    if (limit_ >= 0) count = std::min(count, limit_ - returned_);
    if (count <= 0) continue;
    returned_ += count;
    if (start == 0 && count == n) {
      *out = std::move(chunk);
      return true;
    }
    out->columns.clear();
    out->num_rows_without_columns = chunk.columns.empty() ? static_cast<size_t>(count) : 0;
    for (const Vector& col : chunk.columns) {
      out->columns.emplace_back(col.type());
      out->columns.back().AppendRange(col, static_cast<size_t>(start), static_cast<size_t>(count));
    }
    return true;
  }
  return false;
}

}  // namespace silt::exec
