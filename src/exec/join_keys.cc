#include "exec/join_keys.h"

#include <cmath>
#include <cstring>
#include <functional>

#include "common/error_classes.h"
#include "exec/row_hash.h"

namespace silt::exec {

namespace {

inline uint64_t HashDouble(double d) {
  if (d == 0) d = 0.0;  // -0.0
  if (std::isnan(d)) return 0x7ff8000000000000ULL * 31 + 7;
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return HashMix(u);
}

inline uint64_t HashInt128(int128_t v) {
  uint64_t lo = static_cast<uint64_t>(v),
           hi = static_cast<uint64_t>(static_cast<unsigned __int128>(v) >> 64);
  return HashMix(lo ^ HashMix(hi + 0x51ed27));
}

inline uint64_t Combine(uint64_t h, uint64_t v) {
  return HashMix(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6)));
}

template <typename F>
void HashLoop(const Vector& v, size_t begin, size_t end, uint64_t* hashes, bool first,
              F&& hash_at) {
  const uint8_t* valid = v.validity();
  uint64_t* h = hashes - begin;
  if (first) {
    if (!valid) {
      for (size_t r = begin; r < end; ++r) h[r] = hash_at(r);
    } else {
      for (size_t r = begin; r < end; ++r) h[r] = valid[r] ? hash_at(r) : kNullKeyHash;
    }
  } else {
    if (!valid) {
      for (size_t r = begin; r < end; ++r) h[r] = Combine(h[r], hash_at(r));
    } else {
      for (size_t r = begin; r < end; ++r)
        h[r] = Combine(h[r], valid[r] ? hash_at(r) : kNullKeyHash);
    }
  }
}

void HashColumn(const Vector& v, size_t begin, size_t end, uint64_t* hashes, bool first) {
  switch (v.id()) {
    case TypeId::kBoolean:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kTime:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
    case TypeId::kDayTimeInterval: {
      if (v.type()->fixed_width() == 8 && v.id() != TypeId::kDouble) {
        const int64_t* d = v.data<int64_t>();
        HashLoop(v, begin, end, hashes, first,
                 [d](size_t r) { return HashMix(static_cast<uint64_t>(d[r])); });
      } else if (v.id() == TypeId::kInt32 || v.id() == TypeId::kDate ||
                 v.id() == TypeId::kYearMonthInterval) {
        const int32_t* d = v.data<int32_t>();
        HashLoop(v, begin, end, hashes, first,
                 [d](size_t r) { return HashMix(static_cast<uint64_t>(int64_t(d[r]))); });
      } else {
        HashLoop(v, begin, end, hashes, first, [&v](size_t r) { return HashValueAt(v, r); });
      }
      break;
    }
    case TypeId::kFloat: {
      const float* d = v.data<float>();
      HashLoop(v, begin, end, hashes, first, [d](size_t r) { return HashDouble(d[r]); });
      break;
    }
    case TypeId::kDouble: {
      const double* d = v.data<double>();
      HashLoop(v, begin, end, hashes, first, [d](size_t r) { return HashDouble(d[r]); });
      break;
    }
    case TypeId::kDecimal:
    case TypeId::kCalendarInterval: {
      const int128_t* d = v.data<int128_t>();
      HashLoop(v, begin, end, hashes, first, [d](size_t r) { return HashInt128(d[r]); });
      break;
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      const uint32_t* off = v.offsets();
      const char* bytes = v.bytes().data();
      HashLoop(v, begin, end, hashes, first,
               [off, bytes](size_t r) { return HashBytes(bytes + off[r], off[r + 1] - off[r]); });
      break;
    }
    default:
      HashLoop(v, begin, end, hashes, first, [&v](size_t r) { return HashValueAt(v, r); });
      break;
  }
}

// Non-NULL values of one key type; NULLs are handled by the callers (each join kind has its rule).
inline bool ValueEqualAt(const Vector& a, size_t i, const Vector& b, size_t j) {
  return ValuesEqualAt(a, i, b, j, NullEquality::kNullsEqual);
}

// keep[k] &= (a[ar[k]] == b[br[k]]) for one key column, with its NULL rule.
template <typename F>
void EqLoop(const Vector& a, const Vector& b, bool null_safe, const uint32_t* ar,
            const uint32_t* br, size_t n, uint8_t* keep, F&& eq) {
  const uint8_t* va = a.validity();
  const uint8_t* vb = b.validity();
  if (!va && !vb) {
    for (size_t k = 0; k < n; ++k) keep[k] &= eq(ar[k], br[k]) ? 1 : 0;
    return;
  }
  for (size_t k = 0; k < n; ++k) {
    bool na = va && !va[ar[k]], nb = vb && !vb[br[k]];
    bool e = (na || nb) ? (null_safe && na && nb) : eq(ar[k], br[k]);
    keep[k] &= e ? 1 : 0;
  }
}

void EqColumn(const Vector& a, const Vector& b, bool null_safe, const uint32_t* ar,
              const uint32_t* br, size_t n, uint8_t* keep) {
  switch (a.id()) {
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval: {
      const int32_t* x = a.data<int32_t>();
      const int32_t* y = b.data<int32_t>();
      EqLoop(a, b, null_safe, ar, br, n, keep,
             [x, y](uint32_t i, uint32_t j) { return x[i] == y[j]; });
      break;
    }
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kTime:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
    case TypeId::kDayTimeInterval: {
      const int64_t* x = a.data<int64_t>();
      const int64_t* y = b.data<int64_t>();
      EqLoop(a, b, null_safe, ar, br, n, keep,
             [x, y](uint32_t i, uint32_t j) { return x[i] == y[j]; });
      break;
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      const uint32_t* xo = a.offsets();
      const uint32_t* yo = b.offsets();
      const char* xb = a.bytes().data();
      const char* yb = b.bytes().data();
      EqLoop(a, b, null_safe, ar, br, n, keep, [=](uint32_t i, uint32_t j) {
        uint32_t len = xo[i + 1] - xo[i];
        return len == yo[j + 1] - yo[j] && std::memcmp(xb + xo[i], yb + yo[j], len) == 0;
      });
      break;
    }
    default:
      EqLoop(a, b, null_safe, ar, br, n, keep,
             [&a, &b](uint32_t i, uint32_t j) { return ValueEqualAt(a, i, b, j); });
      break;
  }
}

}  // namespace

Status CheckJoinKeyType(const DataType& type) {
  if (type.id() == TypeId::kMap) {
    return Status::InvalidArgument("join keys of type " + type.ToString() + " are not supported",
                                   errc::kDatatypeMismatch);
  }
  for (const Field& f : type.fields()) {
    SILT_RETURN_NOT_OK(CheckJoinKeyType(*f.type));
  }
  return Status::OK();
}

bool IsIntegralKeyType(TypeId id) {
  switch (id) {
    case TypeId::kBoolean:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kTime:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
    case TypeId::kDayTimeInterval:
      return true;
    default:
      return false;
  }
}

void WidenToInt64(const Vector& v, size_t begin, size_t end, int64_t* out) {
  out -= begin;
  switch (v.id()) {
    case TypeId::kBoolean: {
      const uint8_t* d = v.data<uint8_t>();
      for (size_t r = begin; r < end; ++r) out[r] = d[r] != 0;
      break;
    }
    case TypeId::kInt8: {
      const int8_t* d = v.data<int8_t>();
      for (size_t r = begin; r < end; ++r) out[r] = d[r];
      break;
    }
    case TypeId::kInt16: {
      const int16_t* d = v.data<int16_t>();
      for (size_t r = begin; r < end; ++r) out[r] = d[r];
      break;
    }
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval: {
      const int32_t* d = v.data<int32_t>();
      for (size_t r = begin; r < end; ++r) out[r] = d[r];
      break;
    }
    default: {
      if (end > begin) {
        std::memcpy(out + begin, v.data<int64_t>() + begin, (end - begin) * sizeof(int64_t));
      }
      break;
    }
  }
}

void HashKeyColumns(std::span<const Vector* const> keys, size_t begin, size_t end,
                    uint64_t* hashes) {
  for (size_t k = 0; k < keys.size(); ++k) HashColumn(*keys[k], begin, end, hashes, k == 0);
}

size_t FilterEqualKeys(std::span<const Vector* const> a, std::span<const Vector* const> b,
                       const std::vector<bool>& null_safe, uint32_t* a_rows, uint32_t* b_rows,
                       size_t n) {
  if (n == 0) return 0;
  std::vector<uint8_t> keep(n, 1);
  for (size_t k = 0; k < a.size(); ++k) {
    EqColumn(*a[k], *b[k], k < null_safe.size() && null_safe[k], a_rows, b_rows, n, keep.data());
  }
  size_t m = 0;
  for (size_t k = 0; k < n; ++k) {
    a_rows[m] = a_rows[k];
    b_rows[m] = b_rows[k];
    m += keep[k];
  }
  return m;
}

bool KeysEqualAt(std::span<const Vector* const> a, size_t i, std::span<const Vector* const> b,
                 size_t j, const std::vector<bool>& null_safe) {
  for (size_t k = 0; k < a.size(); ++k) {
    bool na = a[k]->IsNull(i), nb = b[k]->IsNull(j);
    if (na || nb) {
      if (!(na && nb && k < null_safe.size() && null_safe[k])) return false;
      continue;
    }
    if (!ValueEqualAt(*a[k], i, *b[k], j)) return false;
  }
  return true;
}

}  // namespace silt::exec
