#include "exec/row_hash.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "common/hash_rounds.h"

namespace silt::exec {

namespace {

// Integers hash by their 64-bit value so equal values of different widths hash alike.
template <typename T>
inline uint64_t HashOne(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    double d = static_cast<double>(v);
    if (d == 0.0) d = 0.0;  // -0.0 → 0.0
    if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof(bits));
    return HashMix(bits ^ 0x2545f4914f6cdd1dULL);
  } else if constexpr (std::is_same_v<T, int128_t>) {
    uint64_t lo = static_cast<uint64_t>(v);
    uint64_t hi = static_cast<uint64_t>(static_cast<unsigned __int128>(v) >> 64);
    return HashMix(lo ^ HashMix(hi + 0x9e3779b97f4a7c15ULL));
  } else {
    return HashMix(static_cast<uint64_t>(static_cast<int64_t>(v)));
  }
}

template <typename T>
inline bool EqOne(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return a == b || (std::isnan(a) && std::isnan(b));
  } else {
    return a == b;
  }
}

// rows(k) gives the source row of output position k (identity or a selection). NULL rows hash
// to kNullHash whatever their slot holds.
template <typename T, typename RowOf>
void HashFixed(const Vector& col, size_t n, RowOf rows, uint64_t* hashes, bool combine) {
  const T* d = col.data<T>();
  const uint8_t* valid = col.validity();
  if (!valid) {
    if (combine) {
      for (size_t k = 0; k < n; ++k) hashes[k] = HashCombine(hashes[k], HashOne<T>(d[rows(k)]));
    } else {
      for (size_t k = 0; k < n; ++k) hashes[k] = HashOne<T>(d[rows(k)]);
    }
    return;
  }
  for (size_t k = 0; k < n; ++k) {
    size_t r = rows(k);
    uint64_t h = valid[r] ? HashOne<T>(d[r]) : kNullHash;
    hashes[k] = combine ? HashCombine(hashes[k], h) : h;
  }
}

// HashBytes (common/hash.cc) of a string, with strings of 1 to 7 bytes (one-letter flags,
// country codes: TPC-H's GROUP BY keys) hashed inline instead of by a call, through HashBytes'
// own rounds: row hashes meet hashes computed elsewhere (joins, spill partitions).
inline uint64_t HashString(const char* p, size_t n) {
  if (n == 0 || n >= 8) return HashBytes(p, n);
  return HashMix(hash_rounds::Fold(hash_rounds::Start(n),
                                   hash_rounds::TailWord(reinterpret_cast<const uint8_t*>(p), n)));
}

template <typename RowOf>
void HashStrings(const Vector& col, size_t n, RowOf rows, uint64_t* hashes, bool combine) {
  const uint32_t* off = col.offsets();
  const char* bytes = col.bytes().data();
  const uint8_t* valid = col.validity();
  for (size_t k = 0; k < n; ++k) {
    size_t r = rows(k);
    uint64_t h = (valid && !valid[r]) ? kNullHash : HashString(bytes + off[r], off[r + 1] - off[r]);
    hashes[k] = combine ? HashCombine(hashes[k], h) : h;
  }
}

template <typename RowOf>
void HashAny(const Vector& col, size_t n, RowOf rows, uint64_t* hashes, bool combine) {
  switch (col.id()) {
    case TypeId::kNull:
      for (size_t k = 0; k < n; ++k)
        hashes[k] = combine ? HashCombine(hashes[k], kNullHash) : kNullHash;
      return;  // every row is NULL
    case TypeId::kBoolean:
      HashFixed<uint8_t>(col, n, rows, hashes, combine);
      break;
    case TypeId::kInt8:
      HashFixed<int8_t>(col, n, rows, hashes, combine);
      break;
    case TypeId::kInt16:
      HashFixed<int16_t>(col, n, rows, hashes, combine);
      break;
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      HashFixed<int32_t>(col, n, rows, hashes, combine);
      break;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kTime:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
    case TypeId::kDayTimeInterval:
      HashFixed<int64_t>(col, n, rows, hashes, combine);
      break;
    case TypeId::kFloat:
      HashFixed<float>(col, n, rows, hashes, combine);
      break;
    case TypeId::kDouble:
      HashFixed<double>(col, n, rows, hashes, combine);
      break;
    case TypeId::kDecimal:
    case TypeId::kCalendarInterval:
      HashFixed<int128_t>(col, n, rows, hashes, combine);
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      HashStrings(col, n, rows, hashes, combine);
      break;
    default:
      for (size_t k = 0; k < n; ++k) {
        uint64_t h = HashValueAt(col, rows(k));
        hashes[k] = combine ? HashCombine(hashes[k], h) : h;
      }
      return;  // HashValueAt handles NULL itself
  }
}

}  // namespace

void HashColumn(const Vector& col, size_t rows, uint64_t* hashes, bool combine) {
  HashAny(
      col, rows, [](size_t k) { return k; }, hashes, combine);
}

void HashColumnSelected(const Vector& col, const uint32_t* sel, size_t n, uint64_t* hashes,
                        bool combine) {
  HashAny(
      col, n, [sel](size_t k) { return static_cast<size_t>(sel[k]); }, hashes, combine);
}

void HashRows(std::span<const Vector* const> cols, size_t rows, uint64_t* hashes) {
  if (cols.empty()) {
    for (size_t i = 0; i < rows; ++i) hashes[i] = kNullHash;
    return;
  }
  for (size_t c = 0; c < cols.size(); ++c) HashColumn(*cols[c], rows, hashes, c > 0);
}

uint64_t HashValueAt(const Vector& col, size_t row) {
  uint64_t h;
  switch (col.id()) {
    case TypeId::kStruct: {
      if (col.IsNull(row)) return HashMix(kNullHash);
      h = 0x3c6ef372fe94f82bULL;
      for (size_t c = 0; c < col.num_children(); ++c)
        h = HashCombine(h, HashValueAt(col.child(c), row));
      return h;
    }
    case TypeId::kList:
    case TypeId::kMap: {
      if (col.IsNull(row)) return HashMix(kNullHash);
      uint32_t b = col.offsets()[row], e = col.offsets()[row + 1];
      h = HashMix(0xa54ff53a5f1d36f1ULL + (e - b));
      for (uint32_t i = b; i < e; ++i) {
        for (size_t c = 0; c < col.num_children(); ++c)
          h = HashCombine(h, HashValueAt(col.child(c), i));
      }
      return h;
    }
    default: {
      uint32_t r = static_cast<uint32_t>(row);
      HashColumnSelected(col, &r, 1, &h, false);
      return h;
    }
  }
}

bool ValuesEqualAt(const Vector& a, size_t i, const Vector& b, size_t j, NullEquality nulls) {
  bool na = a.IsNull(i), nb = b.IsNull(j);
  if (na || nb) return nulls == NullEquality::kNullsEqual && na && nb;
  switch (a.id()) {
    case TypeId::kNull:
      return nulls == NullEquality::kNullsEqual;
    case TypeId::kBoolean:
      return a.data<uint8_t>()[i] == b.data<uint8_t>()[j];
    case TypeId::kInt8:
      return a.data<int8_t>()[i] == b.data<int8_t>()[j];
    case TypeId::kInt16:
      return a.data<int16_t>()[i] == b.data<int16_t>()[j];
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return a.data<int32_t>()[i] == b.data<int32_t>()[j];
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kTime:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
    case TypeId::kDayTimeInterval:
      return a.data<int64_t>()[i] == b.data<int64_t>()[j];
    case TypeId::kFloat:
      return EqOne(a.data<float>()[i], b.data<float>()[j]);
    case TypeId::kDouble:
      return EqOne(a.data<double>()[i], b.data<double>()[j]);
    case TypeId::kDecimal:
    case TypeId::kCalendarInterval:
      return a.data<int128_t>()[i] == b.data<int128_t>()[j];
    case TypeId::kString:
    case TypeId::kBinary:
      return a.GetString(i) == b.GetString(j);
    case TypeId::kStruct:
      for (size_t c = 0; c < a.num_children(); ++c) {
        // Inside a nested value NULL fields compare equal (Spark compares the binary rows).
        if (!ValuesEqualAt(a.child(c), i, b.child(c), j, NullEquality::kNullsEqual)) return false;
      }
      return true;
    case TypeId::kList:
    case TypeId::kMap: {
      uint32_t ab = a.offsets()[i], ae = a.offsets()[i + 1];
      uint32_t bb = b.offsets()[j], be = b.offsets()[j + 1];
      if (ae - ab != be - bb) return false;
      for (uint32_t k = 0; k < ae - ab; ++k) {
        for (size_t c = 0; c < a.num_children(); ++c) {
          if (!ValuesEqualAt(a.child(c), ab + k, b.child(c), bb + k, NullEquality::kNullsEqual)) {
            return false;
          }
        }
      }
      return true;
    }
  }
  return false;
}

bool RowsEqual(std::span<const Vector* const> a, size_t i, std::span<const Vector* const> b,
               size_t j, NullEquality nulls) {
  for (size_t c = 0; c < a.size(); ++c) {
    if (!ValuesEqualAt(*a[c], i, *b[c], j, nulls)) return false;
  }
  return true;
}

namespace {

template <typename Eq>
size_t MatchLoop(const Vector& a, const uint32_t* a_rows, const Vector& b, const uint32_t* b_rows,
                 uint32_t* cand, size_t n, NullEquality nulls, uint32_t* miss, size_t* n_miss,
                 Eq eq) {
  size_t keep = 0, m = *n_miss;
  if (!a.may_have_nulls() && !b.may_have_nulls()) {
    for (size_t k = 0; k < n; ++k) {
      uint32_t c = cand[k];
      if (eq(a_rows[c], b_rows[c])) {
        cand[keep++] = c;
      } else {
        miss[m++] = c;
      }
    }
  } else {
    const bool nulls_equal = nulls == NullEquality::kNullsEqual;
    for (size_t k = 0; k < n; ++k) {
      uint32_t c = cand[k];
      uint32_t ia = a_rows[c], ib = b_rows[c];
      bool na = a.IsNull(ia), nb = b.IsNull(ib);
      bool match = (na || nb) ? (nulls_equal && na && nb) : eq(ia, ib);
      if (match) {
        cand[keep++] = c;
      } else {
        miss[m++] = c;
      }
    }
  }
  *n_miss = m;
  return keep;
}

template <typename T>
size_t MatchFixed(const Vector& a, const uint32_t* a_rows, const Vector& b, const uint32_t* b_rows,
                  uint32_t* cand, size_t n, NullEquality nulls, uint32_t* miss, size_t* n_miss) {
  const T* ad = a.data<T>();
  const T* bd = b.data<T>();
  return MatchLoop(a, a_rows, b, b_rows, cand, n, nulls, miss, n_miss,
                   [ad, bd](uint32_t i, uint32_t j) { return EqOne<T>(ad[i], bd[j]); });
}

}  // namespace

size_t MatchColumn(const Vector& a, const uint32_t* a_rows, const Vector& b, const uint32_t* b_rows,
                   uint32_t* cand, size_t n, NullEquality nulls, uint32_t* miss, size_t* n_miss) {
  switch (a.id()) {
    case TypeId::kBoolean:
      return MatchFixed<uint8_t>(a, a_rows, b, b_rows, cand, n, nulls, miss, n_miss);
    case TypeId::kInt8:
      return MatchFixed<int8_t>(a, a_rows, b, b_rows, cand, n, nulls, miss, n_miss);
    case TypeId::kInt16:
      return MatchFixed<int16_t>(a, a_rows, b, b_rows, cand, n, nulls, miss, n_miss);
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return MatchFixed<int32_t>(a, a_rows, b, b_rows, cand, n, nulls, miss, n_miss);
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kTime:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
    case TypeId::kDayTimeInterval:
      return MatchFixed<int64_t>(a, a_rows, b, b_rows, cand, n, nulls, miss, n_miss);
    case TypeId::kFloat:
      return MatchFixed<float>(a, a_rows, b, b_rows, cand, n, nulls, miss, n_miss);
    case TypeId::kDouble:
      return MatchFixed<double>(a, a_rows, b, b_rows, cand, n, nulls, miss, n_miss);
    case TypeId::kDecimal:
    case TypeId::kCalendarInterval:
      return MatchFixed<int128_t>(a, a_rows, b, b_rows, cand, n, nulls, miss, n_miss);
    case TypeId::kString:
    case TypeId::kBinary: {
      const uint32_t* ao = a.offsets();
      const uint32_t* bo = b.offsets();
      const char* ab = a.bytes().data();
      const char* bb = b.bytes().data();
      return MatchLoop(a, a_rows, b, b_rows, cand, n, nulls, miss, n_miss,
                       [=](uint32_t i, uint32_t j) {
                         uint32_t la = ao[i + 1] - ao[i];
                         if (la != bo[j + 1] - bo[j]) return false;
                         const char* pa = ab + ao[i];
                         const char* pb = bb + bo[j];
                         if (la > 8) return std::memcmp(pa, pb, la) == 0;
                         // short keys: a few byte compares instead of a libc call
                         for (uint32_t t = 0; t < la; ++t) {
                           if (pa[t] != pb[t]) return false;
                         }
                         return true;
                       });
    }
    default:
      return MatchLoop(a, a_rows, b, b_rows, cand, n, nulls, miss, n_miss,
                       [&](uint32_t i, uint32_t j) {
                         return ValuesEqualAt(a, i, b, j, NullEquality::kNullsEqual);
                       });
  }
}

}  // namespace silt::exec
