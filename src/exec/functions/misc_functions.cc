// Spark's miscellaneous functions (misc.scala, hash.scala, collectionOperations.scala,
// complexTypeCreator.scala): hash (Murmur3 x86_32, seed 42, Spark's byte-tail variant) and
// xxhash64 (seed 42) bit-compatible with Spark over every type, typeof, assert_true,
// raise_error, array/map/struct construction, size, array_contains, element_at, map_keys,
// map_values, sort_array, and the session-ish constants spark_partition_id() (0: silt runs a
// statement as one logical partition), input_file_name() (the URI of the Delta data file the row
// was read from, as the scan below sets it: exec/input_file.h; "" without one) and version().
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "common/error_classes.h"
#include "exec/function_registry.h"
#include "exec/functions/function_util.h"
#include "exec/input_file.h"
#include "exec/sort.h"

namespace silt::exec {

// ---------------------------------------------------------------------------------------------
// Cell comparison (declared in function_util.h)

namespace fn {
int CompareCells(const Vector& a, size_t i, const Vector& b, size_t j) {
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  switch (a.id()) {
    case TypeId::kBoolean:
      return cmp(a.data<uint8_t>()[i], b.data<uint8_t>()[j]);
    case TypeId::kInt8:
      return cmp(a.data<int8_t>()[i], b.data<int8_t>()[j]);
    case TypeId::kInt16:
      return cmp(a.data<int16_t>()[i], b.data<int16_t>()[j]);
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return cmp(a.data<int32_t>()[i], b.data<int32_t>()[j]);
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kTime:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
    case TypeId::kDayTimeInterval:
      return cmp(a.data<int64_t>()[i], b.data<int64_t>()[j]);
    case TypeId::kDecimal:
      return cmp(a.data<int128_t>()[i], b.data<int128_t>()[j]);
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double x = a.id() == TypeId::kFloat ? a.data<float>()[i] : a.data<double>()[i];
      double y = b.id() == TypeId::kFloat ? b.data<float>()[j] : b.data<double>()[j];
      // Spark's SQL ordering: NaN is larger than any other value and equal to itself.
      bool nx = std::isnan(x), ny = std::isnan(y);
      if (nx || ny) return nx && ny ? 0 : (nx ? 1 : -1);
      return cmp(x, y);
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      std::string_view x = a.GetString(i), y = b.GetString(j);
      int c = x.compare(y);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    default: {
      Value x = a.GetValue(i), y = b.GetValue(j);
      return x == y ? 0 : (x.ToJson() < y.ToJson() ? -1 : 1);
    }
  }
}

}  // namespace fn

namespace {

using fn::CheckArity;
using fn::CoerceArg;
using fn::CompareCells;
using fn::ConstantOf;
using fn::FixedWriter;
using fn::MakeCall;
using fn::NullAt;
using fn::TypeMismatch;
using fn::ValAt;

using Args = std::vector<ExprPtr>;

// ---------------------------------------------------------------------------------------------
// Murmur3 x86_32 as Spark's Murmur3_x86_32 (tail bytes mixed one by one, sign-extended).

struct Murmur3 {
  using H = uint32_t;
  static uint32_t Rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
  static uint32_t MixK1(uint32_t k) { return Rotl(k * 0xcc9e2d51u, 15) * 0x1b873593u; }
  static uint32_t MixH1(uint32_t h, uint32_t k) { return Rotl(h ^ k, 13) * 5 + 0xe6546b64u; }
  static uint32_t Fmix(uint32_t h, uint32_t len) {
    h ^= len;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
  }
  static H Int(int32_t v, H seed) { return Fmix(MixH1(seed, MixK1(static_cast<uint32_t>(v))), 4); }
  static H Long(int64_t v, H seed) {
    uint64_t u = static_cast<uint64_t>(v);
    H h = MixH1(seed, MixK1(static_cast<uint32_t>(u)));
    h = MixH1(h, MixK1(static_cast<uint32_t>(u >> 32)));
    return Fmix(h, 8);
  }
  static H Bytes(std::string_view s, H seed) {
    size_t n = s.size(), aligned = n - n % 4;
    H h = seed;
    for (size_t i = 0; i < aligned; i += 4) {
      uint32_t w;
      std::memcpy(&w, s.data() + i, 4);
      h = MixH1(h, MixK1(w));
    }
    for (size_t i = aligned; i < n; ++i) {
      int32_t b = static_cast<int8_t>(s[i]);
      h = MixH1(h, MixK1(static_cast<uint32_t>(b)));
    }
    return Fmix(h, static_cast<uint32_t>(n));
  }
};

// XXH64 as Spark's XXH64 (the standard algorithm over little-endian words).
struct XxHash64 {
  using H = uint64_t;
  static constexpr uint64_t P1 = 0x9E3779B185EBCA87ULL, P2 = 0xC2B2AE3D27D4EB4FULL,
                            P3 = 0x165667B19E3779F9ULL, P4 = 0x85EBCA77C2B2AE63ULL,
                            P5 = 0x27D4EB2F165667C5ULL;
  static uint64_t Rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
  static uint64_t Fmix(uint64_t h) {
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
  }
  static H Int(int32_t v, H seed) {
    uint64_t h = seed + P5 + 4;
    h ^= (static_cast<uint64_t>(static_cast<uint32_t>(v))) * P1;
    h = Rotl(h, 23) * P2 + P3;
    return Fmix(h);
  }
  static H Long(int64_t v, H seed) {
    uint64_t h = seed + P5 + 8;
    h ^= Rotl(static_cast<uint64_t>(v) * P2, 31) * P1;
    h = Rotl(h, 27) * P1 + P4;
    return Fmix(h);
  }
  static uint64_t Load64(const char* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  static H Bytes(std::string_view s, H seed) {
    const char* p = s.data();
    const char* end = p + s.size();
    uint64_t h;
    if (s.size() >= 32) {
      const char* limit = end - 32;
      uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
      do {
        v1 = Rotl(v1 + Load64(p) * P2, 31) * P1;
        v2 = Rotl(v2 + Load64(p + 8) * P2, 31) * P1;
        v3 = Rotl(v3 + Load64(p + 16) * P2, 31) * P1;
        v4 = Rotl(v4 + Load64(p + 24) * P2, 31) * P1;
        p += 32;
      } while (p <= limit);
      h = Rotl(v1, 1) + Rotl(v2, 7) + Rotl(v3, 12) + Rotl(v4, 18);
      for (uint64_t v : {v1, v2, v3, v4}) {
        h ^= Rotl(v * P2, 31) * P1;
        h = h * P1 + P4;
      }
    } else {
      h = seed + P5;
    }
    h += s.size();
    while (p + 8 <= end) {
      h ^= Rotl(Load64(p) * P2, 31) * P1;
      h = Rotl(h, 27) * P1 + P4;
      p += 8;
    }
    if (p + 4 <= end) {
      uint32_t w;
      std::memcpy(&w, p, 4);
      h ^= static_cast<uint64_t>(w) * P1;
      h = Rotl(h, 23) * P2 + P3;
      p += 4;
    }
    while (p < end) {
      h ^= static_cast<uint64_t>(static_cast<uint8_t>(*p)) * P5;
      h = Rotl(h, 11) * P1;
      ++p;
    }
    return Fmix(h);
  }
};

// BigInteger.toByteArray of a two's complement value: minimal big-endian bytes.
std::string BigEndianMinimal(int128_t v) {
  std::string out;
  unsigned __int128 u = static_cast<unsigned __int128>(v);
  for (int i = 15; i >= 0; --i) out.push_back(static_cast<char>((u >> (8 * i)) & 0xFF));
  size_t k = 0;
  while (k + 1 < out.size()) {
    uint8_t b = static_cast<uint8_t>(out[k]), next = static_cast<uint8_t>(out[k + 1]);
    if ((b == 0x00 && !(next & 0x80)) || (b == 0xFF && (next & 0x80))) {
      ++k;
    } else {
      break;
    }
  }
  return out.substr(k);
}

template <typename Hs>
typename Hs::H HashCell(const Vector& v, size_t r, typename Hs::H seed) {
  if (v.id() == TypeId::kNull || v.IsNull(r)) return seed;
  switch (v.id()) {
    case TypeId::kBoolean:
      return Hs::Int(v.data<uint8_t>()[r] ? 1 : 0, seed);
    case TypeId::kInt8:
      return Hs::Int(v.data<int8_t>()[r], seed);
    case TypeId::kInt16:
      return Hs::Int(v.data<int16_t>()[r], seed);
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return Hs::Int(v.data<int32_t>()[r], seed);
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kTime:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
    case TypeId::kDayTimeInterval:
      return Hs::Long(v.data<int64_t>()[r], seed);
    case TypeId::kFloat: {
      float f = v.data<float>()[r];
      if (f == 0.0f) return Hs::Int(0, seed);
      int32_t bits;
      if (std::isnan(f)) {
        bits = 0x7fc00000;
      } else {
        std::memcpy(&bits, &f, 4);
      }
      return Hs::Int(bits, seed);
    }
    case TypeId::kDouble: {
      double d = v.data<double>()[r];
      if (d == 0.0) return Hs::Long(0, seed);
      int64_t bits;
      if (std::isnan(d)) {
        bits = 0x7ff8000000000000LL;
      } else {
        std::memcpy(&bits, &d, 8);
      }
      return Hs::Long(bits, seed);
    }
    case TypeId::kDecimal: {
      int128_t u = v.data<int128_t>()[r];
      if (v.type()->precision() <= 18) return Hs::Long(static_cast<int64_t>(u), seed);
      return Hs::Bytes(BigEndianMinimal(u), seed);
    }
    case TypeId::kString:
    case TypeId::kBinary:
      return Hs::Bytes(v.GetString(r), seed);
    case TypeId::kList: {
      const uint32_t* off = v.offsets();
      for (uint32_t j = off[r]; j < off[r + 1]; ++j) seed = HashCell<Hs>(v.child(0), j, seed);
      return seed;
    }
    case TypeId::kMap: {
      const uint32_t* off = v.offsets();
      for (uint32_t j = off[r]; j < off[r + 1]; ++j) {
        seed = HashCell<Hs>(v.child(0), j, seed);
        seed = HashCell<Hs>(v.child(1), j, seed);
      }
      return seed;
    }
    case TypeId::kStruct:
      for (size_t k = 0; k < v.num_children(); ++k) seed = HashCell<Hs>(v.child(k), r, seed);
      return seed;
    case TypeId::kCalendarInterval: {  // InterpretedHashFunction: microseconds, days, months
      const CalendarInterval c = UnpackCalendarInterval(v.data<int128_t>()[r]);
      return Hs::Int(c.months, Hs::Int(c.days, Hs::Long(c.microseconds, seed)));
    }
    default:
      return seed;
  }
}

template <typename Hs, typename Out>
ScalarKernel HashKernel(typename Hs::H seed) {
  return [seed](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
    std::vector<typename Hs::H> h(rows, seed);
    for (const Arg& x : a) {
      const Vector& v = *x.vector;
      // Fast paths for the common fixed-width columns without nulls.
      if (!x.constant && !v.may_have_nulls() && v.id() == TypeId::kInt32) {
        const int32_t* d = v.data<int32_t>();
        for (size_t i = 0; i < rows; ++i) h[i] = Hs::Int(d[i], h[i]);
      } else if (!x.constant && !v.may_have_nulls() && v.id() == TypeId::kInt64) {
        const int64_t* d = v.data<int64_t>();
        for (size_t i = 0; i < rows; ++i) h[i] = Hs::Long(d[i], h[i]);
      } else {
        for (size_t i = 0; i < rows; ++i) h[i] = HashCell<Hs>(v, x.index(i), h[i]);
      }
    }
    FixedWriter<Out> w(out, rows);
    for (size_t i = 0; i < rows; ++i) w.Set(i, static_cast<Out>(h[i]));
    return Status::OK();
  };
}

Status AppendCell(Vector* dst, const Arg& a, size_t row) {
  dst->AppendRange(*a.vector, a.index(row), 1);
  return Status::OK();
}

Status ElementType(std::string_view name, Args& args, size_t from, size_t step,
                   const BindContext& ctx, TypePtr* out) {
  TypePtr t = DataType::Null();
  for (size_t i = from; i < args.size(); i += step) {
    SILT_ASSIGN_OR_RETURN(t, CommonType(t, args[i]->type));
  }
  for (size_t i = from; i < args.size(); i += step) {
    SILT_RETURN_NOT_OK(CoerceArg(name, args, i, t, ctx));
  }
  *out = t;
  return Status::OK();
}

// A kernel that writes the same value on every row (typeof, version, ...).
ScalarKernel ConstantStringKernel(std::string s) {
  return [s](std::span<const Arg>, size_t rows, const EvalContext&, Vector* out) {
    for (size_t i = 0; i < rows; ++i) out->AppendString(s);
    return Status::OK();
  };
}

Status UserError(std::string msg) {
  return Status::InvalidArgument(std::move(msg), errc::kUserRaisedException);
}

// Element `position(k, n)` of each row's array (k: the index argument, n: the array's length).
// A position outside the array is NULL, or `out_of_bounds(k, n)` under ANSI. element_at and the
// subscript differ only in those two.
template <typename Position, typename OutOfBounds>
Status GatherArrayItems(std::span<const Arg> a, size_t rows, bool ansi, Position position,
                        OutOfBounds out_of_bounds, Vector* out) {
  const Vector& arr = *a[0].vector;
  for (size_t i = 0; i < rows; ++i) {
    if (AnyNull(a, i)) {
      out->AppendNull();
      continue;
    }
    size_t r = a[0].index(i);
    int64_t n = arr.offsets()[r + 1] - arr.offsets()[r];
    int32_t k = ValAt<int32_t>(a[1], i);
    int64_t pos;
    SILT_RETURN_NOT_OK(position(k, n, &pos));
    if (pos < 0 || pos >= n) {
      if (ansi) return out_of_bounds(k, n);
      out->AppendNull();
      continue;
    }
    out->AppendRange(arr.child(0), arr.offsets()[r] + static_cast<size_t>(pos), 1);
  }
  return Status::OK();
}

Result<ExprPtr> BindElementAt(std::string_view name, Args& args, const BindContext& ctx,
                              bool try_mode) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 2));
  TypeId id = args[0]->type->id();
  bool ansi = ctx.ansi && !try_mode;
  if (id == TypeId::kMap) {
    SILT_RETURN_NOT_OK(CoerceArg(name, args, 1, args[0]->type->key_type(), ctx));
    TypePtr vt = args[0]->type->value_type();
    return MakeCall(std::string(name), vt, std::move(args),
                    [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                      const Vector& m = *a[0].vector;
                      for (size_t i = 0; i < rows; ++i) {
                        if (AnyNull(a, i)) {
                          out->AppendNull();
                          continue;
                        }
                        size_t r = a[0].index(i);
                        const uint32_t* off = m.offsets();
                        bool found = false;
                        for (uint32_t j = off[r]; j < off[r + 1] && !found; ++j) {
                          if (!m.child(0).IsNull(j) &&
                              CompareCells(m.child(0), j, *a[1].vector, a[1].index(i)) == 0) {
                            out->AppendRange(m.child(1), j, 1);
                            found = true;
                          }
                        }
                        if (!found) out->AppendNull();
                      }
                      return Status::OK();
                    });
  }
  if (id != TypeId::kList)
    return fn::UnexpectedType(name, 0, "(\"ARRAY\" or \"MAP\")", args[0]->type);
  SILT_RETURN_NOT_OK(CoerceArg(name, args, 1, DataType::Int32(), ctx));
  TypePtr et = args[0]->type->element_type();
  return MakeCall(
      std::string(name), et, std::move(args),
      [ansi](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) -> Status {
        return GatherArrayItems(
            a, rows, ansi,
            [](int32_t k, int64_t n, int64_t* pos) {
              if (k == 0) {
                return Status::InvalidArgument(
                    "The index 0 is invalid. An index shall be either < 0 or > 0 (the first "
                    "element has index 1).",
                    errc::kInvalidIndexOfZero);
              }
              *pos = k > 0 ? k - 1 : n + k;
              return Status::OK();
            },
            [](int32_t k, int64_t n) {
              return Status::InvalidArgument(
                  "The index " + std::to_string(k) + " is out of bounds. The array has " +
                      std::to_string(n) +
                      " elements. Use `try_element_at` to tolerate "
                      "accessing element at invalid index and return NULL instead.",
                  errc::kInvalidArrayIndexInElementAt);
            },
            out);
      });
}

// Spark's array subscript `array[index]` (GetArrayItem), bound by the planner as __array_item:
// 0-based; an index out of bounds (or negative) is NULL, or INVALID_ARRAY_INDEX under ANSI.
Result<ExprPtr> BindArrayItem(std::string_view name, Args& args, const BindContext& ctx) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 2));
  if (args[0]->type->id() != TypeId::kList)
    return fn::UnexpectedType(name, 0, "\"ARRAY\"", args[0]->type);
  if (!fn::IsIntegralId(args[1]->type->id()) && !fn::IsNullTyped(args[1]))
    return fn::UnexpectedType(name, 1, "\"INT\"", args[1]->type);
  SILT_RETURN_NOT_OK(CoerceArg(name, args, 1, DataType::Int32(), ctx));
  TypePtr et = args[0]->type->element_type();
  const bool ansi = ctx.ansi;
  return MakeCall(
      std::string(name), et, std::move(args),
      [ansi](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) -> Status {
        return GatherArrayItems(
            a, rows, ansi,
            [](int32_t k, int64_t, int64_t* pos) {
              *pos = k;
              return Status::OK();
            },
            [](int32_t k, int64_t n) {
              return Status::InvalidArgument(
                  "The index " + std::to_string(k) + " is out of bounds. The array has " +
                      std::to_string(n) +
                      " elements. Use the SQL function `get()` to tolerate accessing element at "
                      "invalid index and return NULL instead.",
                  errc::kInvalidArrayIndex);
            },
            out);
      });
}

// Appends src[row] to *out with every map's entries (at any depth) ordered by key.
void AppendMapsSorted(const Vector& src, size_t row, Vector* out) {
  if (src.IsNull(row)) {
    out->AppendNull();
    return;
  }
  switch (src.id()) {
    case TypeId::kMap: {
      const uint32_t b = src.offsets()[row], e = src.offsets()[row + 1];
      std::vector<uint32_t> order(e - b);
      std::iota(order.begin(), order.end(), b);
      std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
        return CompareValues(src.child(0), x, src.child(0), y) < 0;
      });
      for (uint32_t k : order) {
        AppendMapsSorted(src.child(0), k, &out->child(0));
        AppendMapsSorted(src.child(1), k, &out->child(1));
      }
      out->FinishListRow();
      return;
    }
    case TypeId::kList: {
      for (uint32_t k = src.offsets()[row]; k < src.offsets()[row + 1]; ++k)
        AppendMapsSorted(src.child(0), k, &out->child(0));
      out->FinishListRow();
      return;
    }
    case TypeId::kStruct:
      for (size_t c = 0; c < src.num_children(); ++c)
        AppendMapsSorted(src.child(c), row, &out->child(c));
      out->SetSizeUnchecked(out->size() + 1);
      return;
    default:
      out->AppendRange(src, row, 1);
  }
}

}  // namespace

void RegisterMiscFunctions(FunctionRegistry& r) {
  Reg(r, {"hash"}, [](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, SIZE_MAX));
    return MakeCall(std::string(n), DataType::Int32(), std::move(a),
                    HashKernel<Murmur3, int32_t>(42), true, false);
  });
  Reg(r, {"xxhash64"}, [](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, SIZE_MAX));
    return MakeCall(std::string(n), DataType::Int64(), std::move(a),
                    HashKernel<XxHash64, int64_t>(42), true, false);
  });
  Reg(r, {"typeof"}, [](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
    std::string t = a[0]->type->id() == TypeId::kNull ? "void" : a[0]->type->ToString();
    // The argument is not evaluated (Spark folds typeof to a literal).
    return MakeCall(std::string(n), DataType::String(), {}, ConstantStringKernel(t), true, false);
  });
  Reg(r, {"version"}, [](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 0, 0));
    return MakeCall(std::string(n), DataType::String(), {},
                    ConstantStringKernel(std::string("3.5.0 silt-") + SILT_VERSION), true, false);
  });
  Reg(r, {"input_file_name"},
      [](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 0, 0));
        // The URI of the file the rows come from (exec/input_file.h); "" when unknown.
        return MakeCall(
            std::string(n), DataType::String(), {},
            [](std::span<const Arg>, size_t rows, const EvalContext&, Vector* out) {
              const std::string file = CurrentInputFile();
              for (size_t i = 0; i < rows; ++i) out->AppendString(file);
              return Status::OK();
            },
            false, false);
      });
  Reg(r, {"spark_partition_id"},
      [](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 0, 0));
        return MakeCall(
            std::string(n), DataType::Int32(), {},
            [](std::span<const Arg>, size_t rows, const EvalContext&, Vector* out) {
              FixedWriter<int32_t> w(out, rows);
              for (size_t i = 0; i < rows; ++i) w.Set(i, 0);
              return Status::OK();
            },
            false, false);
      });
  Reg(r, {"raise_error"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
    SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, DataType::String(), c));
    return MakeCall(
        std::string(n), DataType::Null(), std::move(a),
        [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
          if (rows > 0) {
            return UserError(NullAt(x[0], 0) ? "null" : std::string(fn::StrAt(x[0], 0)));
          }
          out->Resize(0);
          return Status::OK();
        },
        false);
  });
  Reg(r, {"assert_true"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 2));
    SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, DataType::Boolean(), c));
    std::string what = a[0]->kind == ExprKind::kColumn ? a[0]->name : "condition";
    if (a.size() == 2) {
      SILT_RETURN_NOT_OK(CoerceArg(n, a, 1, DataType::String(), c));
    }
    return MakeCall(
        std::string(n), DataType::Null(), std::move(a),
        [what](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
          for (size_t i = 0; i < rows; ++i) {
            if (NullAt(x[0], i) || !ValAt<uint8_t>(x[0], i)) {
              if (x.size() == 2) {
                return UserError(NullAt(x[1], i) ? "null" : std::string(fn::StrAt(x[1], i)));
              }
              return UserError("'" + what + "' is not true!");
            }
          }
          out->Resize(rows);
          return Status::OK();
        },
        false);
  });
  Reg(r, {"array"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    TypePtr et;
    SILT_RETURN_NOT_OK(ElementType(n, a, 0, 1, c, &et));
    bool contains_null =
        std::any_of(a.begin(), a.end(), [](const ExprPtr& e) { return e->nullable; });
    return MakeCall(
        std::string(n), DataType::List(et, contains_null), std::move(a),
        [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
          Vector& el = out->child(0);
          for (size_t i = 0; i < rows; ++i) {
            for (const Arg& e : x) {
              SILT_RETURN_NOT_OK(AppendCell(&el, e, i));
            }
            out->FinishListRow();
          }
          return Status::OK();
        },
        true, false);
  });
  Reg(r, {"size", "cardinality"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
        TypeId id = a[0]->type->id();
        if (id != TypeId::kList && id != TypeId::kMap && id != TypeId::kNull) {
          return fn::UnexpectedType(n, 0, "(\"ARRAY\" or \"MAP\")", a[0]->type);
        }
        bool null_is_minus_one = !c.ansi;  // spark.sql.legacy.sizeOfNull && !ansi
        return MakeCall(std::string(n), DataType::Int32(), std::move(a),
                        [null_is_minus_one](std::span<const Arg> x, size_t rows, const EvalContext&,
                                            Vector* out) {
                          FixedWriter<int32_t> w(out, rows);
                          const Vector& v = *x[0].vector;
                          for (size_t i = 0; i < rows; ++i) {
                            size_t r = x[0].index(i);
                            if (v.id() == TypeId::kNull || v.IsNull(r)) {
                              if (null_is_minus_one) {
                                w.Set(i, -1);
                              } else {
                                w.SetNull(i);
                              }
                              continue;
                            }
                            w.Set(i, static_cast<int32_t>(v.offsets()[r + 1] - v.offsets()[r]));
                          }
                          return Status::OK();
                        });
      });
  Reg(r, {"array_contains"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
        if (a[0]->type->id() != TypeId::kList)
          return fn::UnexpectedType(n, 0, "\"ARRAY\"", a[0]->type);
        SILT_ASSIGN_OR_RETURN(TypePtr t, CommonType(a[0]->type->element_type(), a[1]->type));
        if (!t->Equals(*a[0]->type->element_type())) {
          SILT_ASSIGN_OR_RETURN(a[0],
                                CoerceTo(a[0], DataType::List(t, a[0]->type->contains_null()), c));
        }
        SILT_RETURN_NOT_OK(CoerceArg(n, a, 1, t, c));
        return MakeCall(
            std::string(n), DataType::Boolean(), std::move(a),
            [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
              FixedWriter<uint8_t> w(out, rows);
              const Vector& arr = *x[0].vector;
              for (size_t i = 0; i < rows; ++i) {
                if (AnyNull(x, i)) {
                  w.SetNull(i);
                  continue;
                }
                size_t r = x[0].index(i);
                bool found = false, saw_null = false;
                for (uint32_t j = arr.offsets()[r]; j < arr.offsets()[r + 1] && !found; ++j) {
                  if (arr.child(0).IsNull(j)) {
                    saw_null = true;
                  } else if (CompareCells(arr.child(0), j, *x[1].vector, x[1].index(i)) == 0) {
                    found = true;
                  }
                }
                if (found) {
                  w.Set(i, 1);
                } else if (saw_null) {
                  w.SetNull(i);
                } else {
                  w.Set(i, 0);
                }
              }
              return Status::OK();
            });
      });
  Reg(r, {"element_at"}, [](std::string_view n, Args& a, const BindContext& c) {
    return BindElementAt(n, a, c, false);
  });
  Reg(r, {"try_element_at"}, [](std::string_view n, Args& a, const BindContext& c) {
    return BindElementAt(n, a, c, true);
  });
  Reg(r, {"__array_item"},
      [](std::string_view n, Args& a, const BindContext& c) { return BindArrayItem(n, a, c); });
  // Spark's MapSort (InsertMapSortInGroupingExpressions): a grouping key holding maps groups
  // by its entries in key order, so MAP(1, 2, 2, 3) and MAP(2, 3, 1, 2) are one group.
  Reg(r, {"__map_sort"}, [](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
    if (a.size() != 1) return Status::InvalidArgument("__map_sort takes one argument");
    TypePtr type = a[0]->type;
    return MakeCall(std::string(n), type, std::move(a),
                    [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                      for (size_t i = 0; i < rows; ++i)
                        AppendMapsSorted(*x[0].vector, x[0].index(i), out);
                      return Status::OK();
                    });
  });
  Reg(r, {"named_struct", "struct"},
      [](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
        bool named = n == "named_struct";
        std::vector<Field> fields;
        Args values;
        if (named) {
          if (a.empty() || a.size() % 2 != 0) {
            return Status::InvalidArgument(
                "named_struct expects an even number of arguments (name, value, ...), got " +
                    std::to_string(a.size()) + ".",
                errc::kWrongNumArgs);
          }
          for (size_t i = 0; i < a.size(); i += 2) {
            const Value* name = ConstantOf(a[i]);
            if (!name || name->is_null() || name->type()->id() != TypeId::kString) {
              return TypeMismatch(
                  n,
                  "Only foldable non-null STRING inputs are allowed as field names, got argument " +
                      std::to_string(i + 1) + ".");
            }
            fields.push_back(Field{name->str(), a[i + 1]->type, a[i + 1]->nullable, "{}"});
            values.push_back(a[i + 1]);
          }
        } else {
          for (size_t i = 0; i < a.size(); ++i) {
            std::string fname = a[i]->kind == ExprKind::kColumn && !a[i]->name.empty()
                                    ? a[i]->name
                                    : "col" + std::to_string(i + 1);
            fields.push_back(Field{fname, a[i]->type, a[i]->nullable, "{}"});
            values.push_back(a[i]);
          }
        }
        return MakeCall(
            std::string(n), DataType::Struct(std::move(fields)), std::move(values),
            [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
              for (size_t k = 0; k < x.size(); ++k) {
                Vector& child = out->child(k);
                if (x[k].constant) {
                  for (size_t i = 0; i < rows; ++i) child.AppendRange(*x[k].vector, 0, 1);
                } else {
                  child.AppendRange(*x[k].vector, 0, rows);
                }
              }
              out->SetSizeUnchecked(rows);
              return Status::OK();
            },
            true, false);
      });
  Reg(r, {"map"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    if (a.size() % 2 != 0) {
      return Status::InvalidArgument(
          "The `map` requires an even number of parameters but the actual number is " +
              std::to_string(a.size()) + ".",
          errc::kWrongNumArgs);
    }
    TypePtr kt, vt;
    SILT_RETURN_NOT_OK(ElementType(n, a, 0, 2, c, &kt));
    SILT_RETURN_NOT_OK(ElementType(n, a, 1, 2, c, &vt));
    if (!fn::IsAtomicId(kt->id())) {
      return Status::NotImplemented("map: nested key types are not supported yet");
    }
    return MakeCall(
        std::string(n), DataType::Map(kt, vt), std::move(a),
        [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
          Vector& keys = out->child(0);
          Vector& vals = out->child(1);
          for (size_t i = 0; i < rows; ++i) {
            size_t start = keys.size();
            for (size_t k = 0; k + 1 < x.size(); k += 2) {
              if (NullAt(x[k], i))
                return Status::InvalidArgument("Cannot use null as map key.", errc::kNullMapKey);
              for (size_t j = start; j < keys.size(); ++j) {
                if (CompareCells(keys, j, *x[k].vector, x[k].index(i)) == 0) {
                  return Status::InvalidArgument(
                      "Duplicate map key " + x[k].vector->GetValue(x[k].index(i)).ToString() +
                          " was found, please check the input data. If you want to remove the "
                          "duplicated "
                          "keys, you can set spark.sql.mapKeyDedupPolicy to LAST_WIN so that the "
                          "key "
                          "inserted at last takes precedence.",
                      errc::kDuplicatedMapKey);
                }
              }
              SILT_RETURN_NOT_OK(AppendCell(&keys, x[k], i));
              SILT_RETURN_NOT_OK(AppendCell(&vals, x[k + 1], i));
            }
            out->FinishListRow();
          }
          return Status::OK();
        },
        true, false);
  });
  for (int values = 0; values < 2; ++values) {
    Reg(r, {values ? "map_values" : "map_keys"},
        [values](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
          SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
          if (a[0]->type->id() != TypeId::kMap)
            return fn::UnexpectedType(n, 0, "\"MAP\"", a[0]->type);
          const TypePtr& mt = a[0]->type;
          TypePtr t = values ? DataType::List(mt->value_type(), mt->value_contains_null())
                             : DataType::List(mt->key_type(), false);
          return MakeCall(
              std::string(n), t, std::move(a),
              [values](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                const Vector& m = *x[0].vector;
                for (size_t i = 0; i < rows; ++i) {
                  size_t r = x[0].index(i);
                  if (m.IsNull(r)) {
                    out->AppendNull();
                    continue;
                  }
                  uint32_t b = m.offsets()[r], e = m.offsets()[r + 1];
                  out->child(0).AppendRange(m.child(values ? 1 : 0), b, e - b);
                  out->FinishListRow();
                }
                return Status::OK();
              });
        });
  }
  Reg(r, {"sort_array"}, [](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 2));
    if (a[0]->type->id() != TypeId::kList) return fn::UnexpectedType(n, 0, "\"ARRAY\"", a[0]->type);
    bool asc = true;
    if (a.size() == 2) {
      const Value* v = ConstantOf(a[1]);
      if (!v || v->is_null() || v->type()->id() != TypeId::kBoolean) {
        return TypeMismatch(n, "Sort order in second argument requires a boolean literal.");
      }
      asc = v->boolean();
      a.pop_back();
    }
    TypePtr t = a[0]->type;
    return MakeCall(std::string(n), t, std::move(a),
                    [asc](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                      const Vector& arr = *x[0].vector;
                      const Vector& el = arr.child(0);
                      std::vector<uint32_t> idx;
                      for (size_t i = 0; i < rows; ++i) {
                        size_t r = x[0].index(i);
                        if (arr.IsNull(r)) {
                          out->AppendNull();
                          continue;
                        }
                        idx.resize(arr.offsets()[r + 1] - arr.offsets()[r]);
                        std::iota(idx.begin(), idx.end(), arr.offsets()[r]);
                        // NULLs first ascending, last descending (Spark's sort_array).
                        std::stable_sort(idx.begin(), idx.end(), [&](uint32_t p, uint32_t q) {
                          bool np = el.IsNull(p), nq = el.IsNull(q);
                          if (np || nq) return asc ? (np && !nq) : (!np && nq);
                          int c = CompareCells(el, p, el, q);
                          return asc ? c < 0 : c > 0;
                        });
                        out->child(0).AppendSelected(el, idx.data(), idx.size());
                        out->FinishListRow();
                      }
                      return Status::OK();
                    });
  });
}

}  // namespace silt::exec
