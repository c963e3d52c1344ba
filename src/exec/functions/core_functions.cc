// Operators and null/conditional functions: arithmetic with Spark's result types (decimal
// precision rules, integer overflow wrapping or ARITHMETIC_OVERFLOW in ANSI mode, division by
// zero NULL or DIVIDE_BY_ZERO), comparisons (string vs number casts the string, NaN = NaN and NaN
// above everything), NOT, null-safe equality, coalesce/nvl/if/nullif/greatest/least.
#include <cmath>
#include <cstring>

#include "common/error_classes.h"
#include "exec/cast.h"
#include "exec/function_registry.h"
#include "exec/functions/function_util.h"
#include "exec/kernel_util.h"
#include "exec/sort.h"

namespace silt::exec {

namespace {

Status WrongArgs(const std::string& name, size_t got, const std::string& want) {
  return Status::InvalidArgument("The `" + name + "` requires " + want +
                                     " parameters but the actual number is " + std::to_string(got) +
                                     ".",
                                 errc::kWrongNumArgsWithoutSuggestion);
}

Status TypeError(const std::string& what) {
  return Status::InvalidArgument("Cannot resolve " + what + " due to data type mismatch.",
                                 errc::kDatatypeMismatchBinaryOpDiffTypes);
}

ExprPtr Call(std::string name, TypePtr type, std::vector<ExprPtr> args, ScalarKernel k,
             bool nullable = true) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCall;
  e->name = std::move(name);
  e->type = std::move(type);
  for (const auto& a : args) e->deterministic = e->deterministic && a->deterministic;
  e->children = std::move(args);
  e->kernel = std::move(k);
  e->nullable = nullable;
  return e;
}

// The type of a literal integral for decimal arithmetic: its own digits (Spark's
// DecimalType.fromLiteral), else the type's full range.
TypePtr DecimalFor(const ExprPtr& e) {
  if (e->type->id() == TypeId::kDecimal) return e->type;
  if (e->kind == ExprKind::kConstant && !e->constant.is_null() && IsIntegral(e->type->id())) {
    int64_t v = e->constant.integer();
    int digits = 1;
    for (uint64_t a = v < 0 ? static_cast<uint64_t>(-(v + 1)) + 1 : static_cast<uint64_t>(v);
         a >= 10; a /= 10)
      ++digits;
    return DataType::Decimal(digits, 0);
  }
  return DecimalForIntegral(e->type->id());
}

// ------------------------------------------------------------------ comparisons

template <typename T>
inline int Cmp(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}
template <>
inline int Cmp<double>(double a, double b) {
  bool na = a != a, nb = b != b;
  if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
  return a < b ? -1 : (b < a ? 1 : 0);
}
template <>
inline int Cmp<float>(float a, float b) {
  return Cmp<double>(a, b);
}

enum class CmpOp { kEq, kNe, kLt, kLe, kGt, kGe };

inline bool Apply(CmpOp op, int c) {
  switch (op) {
    case CmpOp::kEq:
      return c == 0;
    case CmpOp::kNe:
      return c != 0;
    case CmpOp::kLt:
      return c < 0;
    case CmpOp::kLe:
      return c <= 0;
    case CmpOp::kGt:
      return c > 0;
    case CmpOp::kGe:
      return c >= 0;
  }
  return false;
}

template <typename T>
void CompareFixed(const Arg& a, const Arg& b, size_t rows, CmpOp op, Vector* out) {
  out->ResizeUninitialized(rows);
  uint8_t* d = out->data<uint8_t>();
  const T* x = a.vector->data<T>();
  const T* y = b.vector->data<T>();
  if (b.constant && !a.constant) {
    T c = y[0];
    switch (op) {
      case CmpOp::kEq:
        for (size_t i = 0; i < rows; ++i) d[i] = Cmp<T>(x[i], c) == 0;
        break;
      case CmpOp::kNe:
        for (size_t i = 0; i < rows; ++i) d[i] = Cmp<T>(x[i], c) != 0;
        break;
      case CmpOp::kLt:
        for (size_t i = 0; i < rows; ++i) d[i] = Cmp<T>(x[i], c) < 0;
        break;
      case CmpOp::kLe:
        for (size_t i = 0; i < rows; ++i) d[i] = Cmp<T>(x[i], c) <= 0;
        break;
      case CmpOp::kGt:
        for (size_t i = 0; i < rows; ++i) d[i] = Cmp<T>(x[i], c) > 0;
        break;
      case CmpOp::kGe:
        for (size_t i = 0; i < rows; ++i) d[i] = Cmp<T>(x[i], c) >= 0;
        break;
    }
  } else {
    for (size_t i = 0; i < rows; ++i) d[i] = Apply(op, Cmp<T>(x[a.index(i)], y[b.index(i)]));
  }
  Arg args[2] = {a, b};
  PropagateNulls(args, rows, out);
}

void CompareStringRows(const Arg& a, const Arg& b, size_t rows, CmpOp op, uint8_t* d) {
  for (size_t i = 0; i < rows; ++i) {
    int c = a.vector->GetString(a.index(i)).compare(b.vector->GetString(b.index(i)));
    d[i] = Apply(op, c < 0 ? -1 : c > 0);
  }
}

void CompareStrings(const Arg& a, const Arg& b, size_t rows, CmpOp op, Vector* out) {
  out->ResizeUninitialized(rows);
  uint8_t* d = out->data<uint8_t>();
  if ((op == CmpOp::kEq || op == CmpOp::kNe) && a.constant != b.constant) {
    // column = 'literal', the common filter.
    const Vector& col = a.constant ? *b.vector : *a.vector;
    const std::string_view key = (a.constant ? a : b).vector->GetString(0);
    const uint32_t* off = col.offsets();
    const char* bytes = col.bytes().data();
    const size_t n = key.size();
    const uint8_t want = op == CmpOp::kEq;
    if (n == 1) {  // one-letter flags and codes: branch-free
      for (size_t i = 0; i < rows; ++i)
        d[i] = ((off[i + 1] - off[i] == 1) & (bytes[off[i]] == key[0])) == want;
    } else {
      for (size_t i = 0; i < rows; ++i) d[i] = StringEqualsAt(off, bytes, i, key) == want;
    }
  } else {
    CompareStringRows(a, b, rows, op, d);
  }
  Arg args[2] = {a, b};
  PropagateNulls(args, rows, out);
}

int CompareValuesGeneric(const Value& a, const Value& b) {
  // Nested values: lexicographic by children, then length (rare path).
  if (a.type()->is_nested()) {
    const auto& x = a.children();
    const auto& y = b.children();
    for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
      if (x[i].is_null() || y[i].is_null()) {
        if (x[i].is_null() != y[i].is_null()) return x[i].is_null() ? -1 : 1;
        continue;
      }
      int c = CompareValuesGeneric(x[i], y[i]);
      if (c) return c;
    }
    return Cmp(x.size(), y.size());
  }
  switch (a.type()->id()) {
    case TypeId::kFloat:
    case TypeId::kDouble:
      return Cmp<double>(a.floating(), b.floating());
    case TypeId::kDecimal:
      return Cmp(a.decimal(), b.decimal());
    case TypeId::kString:
    case TypeId::kBinary:
      return Cmp(a.str(), b.str());
    case TypeId::kBoolean:
      return Cmp(a.boolean(), b.boolean());
    default:
      return Cmp(a.integer(), b.integer());
  }
}

Status CompareKernel(std::span<const Arg> args, size_t rows, CmpOp op, Vector* out) {
  const Arg& a = args[0];
  const Arg& b = args[1];
  switch (a.vector->id()) {
    case TypeId::kBoolean:
      CompareFixed<uint8_t>(a, b, rows, op, out);
      return Status::OK();
    case TypeId::kInt8:
      CompareFixed<int8_t>(a, b, rows, op, out);
      return Status::OK();
    case TypeId::kInt16:
      CompareFixed<int16_t>(a, b, rows, op, out);
      return Status::OK();
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      CompareFixed<int32_t>(a, b, rows, op, out);
      return Status::OK();
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kTime:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
    case TypeId::kDayTimeInterval:
      CompareFixed<int64_t>(a, b, rows, op, out);
      return Status::OK();
    case TypeId::kFloat:
      CompareFixed<float>(a, b, rows, op, out);
      return Status::OK();
    case TypeId::kDouble:
      CompareFixed<double>(a, b, rows, op, out);
      return Status::OK();
    case TypeId::kDecimal:
      CompareFixed<int128_t>(a, b, rows, op, out);
      return Status::OK();
    case TypeId::kString:
    case TypeId::kBinary:
      CompareStrings(a, b, rows, op, out);
      return Status::OK();
    case TypeId::kNull: {
      out->Resize(rows);
      uint8_t* v = out->mutable_validity();
      std::fill(v, v + rows, 0);
      return Status::OK();
    }
    default:
      for (size_t i = 0; i < rows; ++i) {
        if (a.vector->IsNull(a.index(i)) || b.vector->IsNull(b.index(i))) {
          out->AppendNull();
        } else {
          out->Append<uint8_t>(Apply(op, CompareValuesGeneric(a.vector->GetValue(a.index(i)),
                                                              b.vector->GetValue(b.index(i)))));
        }
      }
      return Status::OK();
  }
}

// Spark's comparison coercion: a string against another atomic type is cast to that type.
Result<std::vector<ExprPtr>> CoerceComparison(std::vector<ExprPtr> args, const BindContext& ctx,
                                              std::string_view name) {
  TypePtr a = args[0]->type, b = args[1]->type;
  if (a->Equals(*b)) return args;
  TypeId x = a->id(), y = b->id();
  TypePtr target;
  // Spark has no implicit cast between strings and intervals.
  if ((x == TypeId::kString && b->is_interval()) || (y == TypeId::kString && a->is_interval())) {
    return Status::InvalidArgument(
        "Cannot resolve \"(" + args[0]->ToString() + " " + std::string(name) + " " +
            args[1]->ToString() +
            ")\" due to data type mismatch: the left and right operands of the binary operator "
            "have incompatible types (\"" +
            a->ToString() + "\" and \"" + b->ToString() + "\").",
        errc::kDatatypeMismatchBinaryOpDiffTypes);
  }
  if (x == TypeId::kString && y != TypeId::kString && !b->is_nested() && y != TypeId::kNull &&
      y != TypeId::kBinary) {
    target = b;
  } else if (y == TypeId::kString && x != TypeId::kString && !a->is_nested() &&
             x != TypeId::kNull && x != TypeId::kBinary) {
    target = a;
  } else {
    SILT_ASSIGN_OR_RETURN(target, CommonType(a, b));
  }
  for (auto& e : args) {
    SILT_ASSIGN_OR_RETURN(e, CoerceTo(e, target, ctx));
  }
  return args;
}

void RegisterComparison(FunctionRegistry& r, const std::string& name, CmpOp op) {
  r.Add(name, [name, op](std::vector<ExprPtr> args, const BindContext& ctx) -> Result<ExprPtr> {
    if (args.size() != 2) return WrongArgs(name, args.size(), "2");
    SILT_ASSIGN_OR_RETURN(args, CoerceComparison(std::move(args), ctx, name));
    // Maps and the legacy calendar interval have no ordering in Spark, equality included.
    const TypeId t = args[0]->type->id();
    if (t == TypeId::kMap || t == TypeId::kCalendarInterval) {
      return Status::InvalidArgument("The `" + name + "` does not support ordering on type \"" +
                                         (t == TypeId::kMap ? "MAP" : "INTERVAL") + "\".",
                                     errc::kDatatypeMismatchInvalidOrderingType);
    }
    bool nullable = args[0]->nullable || args[1]->nullable;
    return Call(
        name, DataType::Boolean(), std::move(args),
        [op](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
          return CompareKernel(a, rows, op, out);
        },
        nullable);
  });
}

// ------------------------------------------------------------------ arithmetic

// Lambdas in the per-row loops of the decimal kernels must inline into each instantiation.
#define SILT_ALWAYS_INLINE __attribute__((always_inline))

enum class ArOp { kAdd, kSub, kMul, kDiv, kMod, kIntDiv };
// What an integer overflow or a zero divisor does: legacy Spark wraps integers and returns NULL
// for a zero divisor, ANSI fails, and the try_ functions (try_add …) return NULL for both.
enum class ArMode { kLegacy, kAnsi, kTry };

// hint: the try_ function that tolerates it, as Spark names it per operator.
Status Overflow(const char* what, const char* hint) {
  return Status::InvalidArgument(
      std::string() + what + " overflow. Use '" + hint +
          "' to tolerate overflow and return NULL instead. If necessary set "
          "\"spark.sql.ansi.enabled\" to \"false\" to bypass this error.",
      errc::kArithmeticOverflow);
}

Status DivideByZero() {
  return Status::InvalidArgument(
      "Division by zero. Use `try_divide` to tolerate divisor being 0 and return "
      "NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this "
      "error.",
      errc::kDivideByZero);
}

// `%` and pmod by zero (Spark's Remainder / Pmod): REMAINDER_BY_ZERO; `/` and div: DIVIDE_BY_ZERO.
Status ZeroDivisor(ArOp op) {
  if (op != ArOp::kMod) return DivideByZero();
  return Status::InvalidArgument(
      "Remainder by zero. Use `try_mod` to tolerate divisor being 0 and return NULL instead. If "
      "necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.",
      errc::kRemainderByZero);
}

template <typename T>
Status IntegralArith(const Arg& a, const Arg& b, size_t rows, ArOp op, ArMode mode, Vector* out) {
  const bool ansi = mode == ArMode::kAnsi;
  using U = std::make_unsigned_t<T>;
  out->ResizeUninitialized(rows);
  T* d = out->data<T>();
  const T* x = a.vector->data<T>();
  const T* y = b.vector->data<T>();
  Arg args[2] = {a, b};
  PropagateNulls(args, rows, out);
  const uint8_t* valid = out->validity();
  bool any_null_result = false;
  std::vector<uint8_t> extra_null;
  auto set_null = [&](size_t i) {
    d[i] = 0;
    if (extra_null.empty()) extra_null.assign(rows, 0);
    extra_null[i] = 1;
    any_null_result = true;
  };
  // Checked only outside legacy mode: legacy wraps (two's complement, as the JVM).
  auto overflowed = [&](size_t i, bool overflow) -> Status {
    if (!overflow || mode == ArMode::kLegacy || (valid && !valid[i])) return Status::OK();
    if (ansi)
      return Overflow("integer", op == ArOp::kAdd   ? "try_add"
                                 : op == ArOp::kSub ? "try_subtract"
                                                    : "try_multiply");
    set_null(i);
    return Status::OK();
  };
  if (op == ArOp::kAdd || op == ArOp::kSub || op == ArOp::kMul) {
    // Wrapped results and an overflow flag in one branch-free pass (the operator and the constant
    // operands hoisted out of the loop); only when some row overflowed are the rows walked again
    // for the mode's answer (an error for a valid row under ANSI, NULL for try_, the wrapped
    // value in legacy mode).
    bool any_overflow = false;
    auto pass = [&](auto xi, auto yi, auto f) SILT_ALWAYS_INLINE {
      uint8_t ovf = 0;
      for (size_t i = 0; i < rows; ++i) ovf |= f(x[xi(i)], y[yi(i)], &d[i]);
      any_overflow = ovf != 0;
    };
    auto same = [](size_t i) SILT_ALWAYS_INLINE { return i; };
    auto first = [](size_t) SILT_ALWAYS_INLINE { return size_t{0}; };
    auto run = [&](auto f) SILT_ALWAYS_INLINE {
      if (a.constant && !b.constant) {
        pass(first, same, f);
      } else if (b.constant && !a.constant) {
        pass(same, first, f);
      } else if (!a.constant) {
        pass(same, same, f);
      } else {
        pass(first, first, f);
      }
    };
    if (op == ArOp::kAdd) {
      run([](T l, T r, T* o)
              SILT_ALWAYS_INLINE -> uint8_t { return __builtin_add_overflow(l, r, o); });
    } else if (op == ArOp::kSub) {
      run([](T l, T r, T* o)
              SILT_ALWAYS_INLINE -> uint8_t { return __builtin_sub_overflow(l, r, o); });
    } else {
      run([](T l, T r, T* o)
              SILT_ALWAYS_INLINE -> uint8_t { return __builtin_mul_overflow(l, r, o); });
    }
    if (any_overflow && mode != ArMode::kLegacy) {
      for (size_t i = 0; i < rows; ++i) {
        T l = x[a.index(i)], r = y[b.index(i)], tmp;
        const bool o = op == ArOp::kAdd   ? __builtin_add_overflow(l, r, &tmp)
                       : op == ArOp::kSub ? __builtin_sub_overflow(l, r, &tmp)
                                          : __builtin_mul_overflow(l, r, &tmp);
        SILT_RETURN_NOT_OK(overflowed(i, o));
      }
    }
  }
  // The per-row loop: the dividing operators (the others were done above).
  const size_t loop_rows = op == ArOp::kAdd || op == ArOp::kSub || op == ArOp::kMul ? 0 : rows;
  for (size_t i = 0; i < loop_rows; ++i) {
    T l = x[a.index(i)], r = y[b.index(i)];
    bool row_valid = !valid || valid[i];
    T tmp;
    switch (op) {
      case ArOp::kAdd:
        d[i] = static_cast<T>(static_cast<U>(l) + static_cast<U>(r));
        SILT_RETURN_NOT_OK(overflowed(i, __builtin_add_overflow(l, r, &tmp)));
        break;
      case ArOp::kSub:
        d[i] = static_cast<T>(static_cast<U>(l) - static_cast<U>(r));
        SILT_RETURN_NOT_OK(overflowed(i, __builtin_sub_overflow(l, r, &tmp)));
        break;
      case ArOp::kMul:
        d[i] = static_cast<T>(static_cast<U>(l) * static_cast<U>(r));
        SILT_RETURN_NOT_OK(overflowed(i, __builtin_mul_overflow(l, r, &tmp)));
        break;
      case ArOp::kMod:
      case ArOp::kIntDiv:
        if (r == 0) {
          if (ansi && row_valid) return ZeroDivisor(op);
          set_null(i);
          break;
        }
        if (r == -1) {
          d[i] = op == ArOp::kMod ? 0 : static_cast<T>(-static_cast<U>(l));
        } else {
          d[i] = op == ArOp::kMod ? static_cast<T>(l % r) : static_cast<T>(l / r);
        }
        break;
      case ArOp::kDiv:
        break;
    }
  }
  if (any_null_result) {
    uint8_t* v = out->mutable_validity();
    for (size_t i = 0; i < rows; ++i) {
      if (extra_null[i]) v[i] = 0;
    }
  }
  return Status::OK();
}

template <typename T>
Status FloatArith(const Arg& a, const Arg& b, size_t rows, ArOp op, bool ansi, Vector* out) {
  out->ResizeUninitialized(rows);
  T* d = out->data<T>();
  const T* x = a.vector->data<T>();
  const T* y = b.vector->data<T>();
  Arg args[2] = {a, b};
  PropagateNulls(args, rows, out);
  switch (op) {
    case ArOp::kAdd:
      for (size_t i = 0; i < rows; ++i) d[i] = x[a.index(i)] + y[b.index(i)];
      return Status::OK();
    case ArOp::kSub:
      for (size_t i = 0; i < rows; ++i) d[i] = x[a.index(i)] - y[b.index(i)];
      return Status::OK();
    case ArOp::kMul:
      for (size_t i = 0; i < rows; ++i) d[i] = x[a.index(i)] * y[b.index(i)];
      return Status::OK();
    default:
      break;
  }
  // Division and modulo: zero divisor → NULL (or DIVIDE_BY_ZERO in ANSI), as Spark.
  std::vector<uint32_t> zero;
  for (size_t i = 0; i < rows; ++i) {
    T r = y[b.index(i)];
    if (r == 0) {
      if (ansi && (!out->validity() || out->validity()[i])) return ZeroDivisor(op);
      zero.push_back(static_cast<uint32_t>(i));
      d[i] = 0;
      continue;
    }
    d[i] = op == ArOp::kDiv ? x[a.index(i)] / r : static_cast<T>(std::fmod(x[a.index(i)], r));
  }
  if (!zero.empty()) {
    uint8_t* v = out->mutable_validity();
    for (uint32_t i : zero) v[i] = 0;
  }
  return Status::OK();
}

// One decimal operation over rows: f(l, r, &v) returns false when the row's result is out of
// range (NULL, or an error under ANSI). Constant arguments and the validity check are hoisted
// into template parameters: this loop is the hot path of decimal-heavy queries (TPC-H Q1).
template <bool kConstA, bool kConstB, bool kNulls, typename F>
void DecimalRows(const int128_t* x, const int128_t* y, int128_t* d, const uint8_t* valid,
                 size_t rows, const F& f, std::vector<uint32_t>* bad) {
  for (size_t i = 0; i < rows; ++i) {
    if (kNulls && !valid[i]) {
      d[i] = 0;
      continue;
    }
    int128_t v;
    if (!f(x[kConstA ? 0 : i], y[kConstB ? 0 : i], &v)) [[unlikely]] {
      bad->push_back(static_cast<uint32_t>(i));
      v = 0;
    }
    d[i] = v;
  }
}

template <typename F>
void DecimalDispatch(const Arg& a, const Arg& b, const int128_t* x, const int128_t* y, int128_t* d,
                     const uint8_t* valid, size_t rows, const F& f, std::vector<uint32_t>* bad) {
  const int k = (a.constant ? 4 : 0) | (b.constant ? 2 : 0) | (valid ? 1 : 0);
  switch (k) {
    case 0:
      return DecimalRows<false, false, false>(x, y, d, valid, rows, f, bad);
    case 1:
      return DecimalRows<false, false, true>(x, y, d, valid, rows, f, bad);
    case 2:
      return DecimalRows<false, true, false>(x, y, d, valid, rows, f, bad);
    case 3:
      return DecimalRows<false, true, true>(x, y, d, valid, rows, f, bad);
    case 4:
      return DecimalRows<true, false, false>(x, y, d, valid, rows, f, bad);
    case 5:
      return DecimalRows<true, false, true>(x, y, d, valid, rows, f, bad);
    case 6:
      return DecimalRows<true, true, false>(x, y, d, valid, rows, f, bad);
    default:
      return DecimalRows<true, true, true>(x, y, d, valid, rows, f, bad);
  }
}

inline bool FitsInt64(int128_t v) { return v == static_cast<int128_t>(static_cast<int64_t>(v)); }

// Exact 256-bit magnitudes for decimal products and quotients past 128 bits (Spark computes them
// with java.math.BigDecimal, then rounds HALF_UP to the result scale).
struct U256 {
  uint64_t w[4] = {0, 0, 0, 0};  // little-endian 64-bit limbs
};
using u128 = unsigned __int128;

U256 MulU128(u128 a, u128 b) {
  const uint64_t a0 = static_cast<uint64_t>(a), a1 = static_cast<uint64_t>(a >> 64);
  const uint64_t b0 = static_cast<uint64_t>(b), b1 = static_cast<uint64_t>(b >> 64);
  const u128 p00 = static_cast<u128>(a0) * b0, p01 = static_cast<u128>(a0) * b1;
  const u128 p10 = static_cast<u128>(a1) * b0, p11 = static_cast<u128>(a1) * b1;
  U256 x;
  x.w[0] = static_cast<uint64_t>(p00);
  const u128 mid = (p00 >> 64) + static_cast<uint64_t>(p01) + static_cast<uint64_t>(p10);
  x.w[1] = static_cast<uint64_t>(mid);
  const u128 hi = (mid >> 64) + (p01 >> 64) + (p10 >> 64) + static_cast<uint64_t>(p11);
  x.w[2] = static_cast<uint64_t>(hi);
  x.w[3] = static_cast<uint64_t>((hi >> 64) + (p11 >> 64));
  return x;
}

// *x *= m; false on overflow past 256 bits.
bool MulSmall(U256* x, uint64_t m) {
  u128 carry = 0;
  for (uint64_t& w : x->w) {
    const u128 cur = static_cast<u128>(w) * m + carry;
    w = static_cast<uint64_t>(cur);
    carry = cur >> 64;
  }
  return carry == 0;
}

// *x /= d; returns the remainder.
uint64_t DivSmall(U256* x, uint64_t d) {
  u128 rem = 0;
  for (int i = 3; i >= 0; --i) {
    const u128 cur = (rem << 64) | x->w[i];
    x->w[i] = static_cast<uint64_t>(cur / d);
    rem = cur % d;
  }
  return static_cast<uint64_t>(rem);
}

void AddOne(U256* x) {
  for (uint64_t& w : x->w)
    if (++w != 0) break;
}

uint64_t Pow10U64(int k) {
  uint64_t p = 1;
  for (int i = 0; i < k; ++i) p *= 10;
  return p;
}

// x / 10^k rounded HALF_UP (on the magnitude).
void DivPow10HalfUp(U256* x, int k) {
  if (k <= 0) return;
  for (int left = k - 1; left > 0;) {
    const int step = std::min(left, 19);
    DivSmall(x, Pow10U64(step));
    left -= step;
  }
  if (DivSmall(x, 10) >= 5) AddOne(x);
}

// The signed value of a magnitude when it fits below `lim`.
bool FromMagnitude(const U256& x, bool neg, int128_t lim, int128_t* v) {
  if (x.w[3] != 0 || x.w[2] != 0 || (x.w[1] >> 63) != 0) return false;
  const int128_t m = static_cast<int128_t>((static_cast<u128>(x.w[1]) << 64) | x.w[0]);
  if (m >= lim) return false;
  *v = neg ? -m : m;
  return true;
}

u128 Magnitude(int128_t v) { return v < 0 ? -static_cast<u128>(v) : static_cast<u128>(v); }

// l * r (scale `from`) at scale rs for operands beyond 64 bits; false when out of range (|v| must
// stay below lim). Kept out of line so that the common 64-bit product inlines into its loop.
[[gnu::noinline]] bool MultiplyWideDecimal(int128_t l, int128_t r, int from, int rs, int128_t lim,
                                           int128_t* v) {
  int128_t p;
  if (__builtin_mul_overflow(l, r, &p)) {
    if (rs > from) return false;
    U256 x = MulU128(Magnitude(l), Magnitude(r));
    DivPow10HalfUp(&x, from - rs);
    return FromMagnitude(x, (l < 0) != (r < 0), lim, v);
  } else {
    *v = from == rs ? p : Rescale(p, from, rs);
  }
  return *v<lim&& * v> - lim;
}

// The 64-bit fast path of decimal + - * (DuckDB keeps decimals of up to 18 digits in 64 bits):
// when every operand of the chunk fits in 64 bits and the result type guarantees the result is in
// range, the rows are computed without a per-row range check or branch. Returns false (nothing
// written) when the chunk does not qualify; DecimalArith's checked loops then run.
//   + -: operands at the result's scale; |l ± r| < 2^64 <= 10^rp for rp >= 20, and for any rp
//        when both operand types fit: 10^(pa-sa+rs) + 10^(pb-sb+rs) <= 10^rp.
//   *:   no rescale (scale sa + sb = rs); |l * r| < 2^126 < 10^38, and < 10^(pa+pb) <= 10^rp.
bool DecimalArith64(const int128_t* x, bool ca, const int128_t* y, bool cb, size_t rows, ArOp op,
                    int pa, int sa, int pb, int sb, int rp, int rs, int128_t* d,
                    const uint8_t* valid) {
  if (rows == 0) return false;
  if (op == ArOp::kMul) {
    if (sa + sb != rs || !(rp == 38 || pa + pb <= rp)) return false;
  } else if (op == ArOp::kAdd || op == ArOp::kSub) {
    if (sa != rs || sb != rs) return false;
    if (rp < 20 && std::max(pa - sa, pb - sb) + rs + 1 > rp) return false;
  } else {
    return false;
  }
  if (!AllFitInt64(x, ca, rows) || !AllFitInt64(y, cb, rows)) return false;
  auto run = [&](auto f) SILT_ALWAYS_INLINE {
    if (ca) {
      const int64_t l = static_cast<int64_t>(x[0]);
      for (size_t i = 0; i < rows; ++i) d[i] = f(l, static_cast<int64_t>(y[i]));
    } else if (cb) {
      const int64_t r = static_cast<int64_t>(y[0]);
      for (size_t i = 0; i < rows; ++i) d[i] = f(static_cast<int64_t>(x[i]), r);
    } else {
      for (size_t i = 0; i < rows; ++i)
        d[i] = f(static_cast<int64_t>(x[i]), static_cast<int64_t>(y[i]));
    }
  };
  switch (op) {
    case ArOp::kAdd:
      run([](int64_t l, int64_t r)
              SILT_ALWAYS_INLINE { return static_cast<int128_t>(l) + static_cast<int128_t>(r); });
      break;
    case ArOp::kSub:
      run([](int64_t l, int64_t r)
              SILT_ALWAYS_INLINE { return static_cast<int128_t>(l) - static_cast<int128_t>(r); });
      break;
    default:
      run([](int64_t l, int64_t r)
              SILT_ALWAYS_INLINE { return static_cast<int128_t>(l) * static_cast<int128_t>(r); });
      break;
  }
  // NULL rows hold 0, as in the checked loops.
  if (valid) {
    for (size_t i = 0; i < rows; ++i) d[i] = valid[i] ? d[i] : 0;
  }
  return true;
}

// (l * 10^shift) / r rounded HALF_UP when l * 10^shift is past 128 bits (r != 0).
[[gnu::noinline]] bool DivideWideDecimal(int128_t l, int128_t r, int shift, int128_t lim,
                                         int128_t* v) {
  const bool neg = (l < 0) != (r < 0);
  U256 x = MulU128(Magnitude(l), 1);
  u128 d = Magnitude(r);
  if (shift < 0) {
    // A result scale below the dividend's: the divisor takes the power of ten.
    int128_t scaled;
    if (-shift > 38 || __builtin_mul_overflow(static_cast<int128_t>(d), Pow10(-shift), &scaled) ||
        scaled >= (int128_t{1} << 126)) {
      long double q =
          static_cast<long double>(l) / static_cast<long double>(r) * std::pow(10.0L, shift);
      if (!(std::fabs(q) < 1e38L)) return false;
      *v = std::fabs(q) >= 9e18L ? static_cast<int128_t>(q)
                                 : static_cast<int128_t>(std::llroundl(q));
      return *v<lim&& * v> - lim;
    }
    d = static_cast<u128>(scaled);
    shift = 0;
  }
  for (int left = shift; left > 0;) {
    const int step = std::min(left, 19);
    if (!MulSmall(&x, Pow10U64(step))) return false;
    left -= step;
  }
  // Binary long division by d (< 2^127, so the running remainder stays within 128 bits).
  U256 q;
  u128 rem = 0;
  for (int bit = 255; bit >= 0; --bit) {
    rem = (rem << 1) | ((x.w[bit / 64] >> (bit % 64)) & 1);
    if (rem >= d) {
      rem -= d;
      q.w[bit / 64] |= uint64_t{1} << (bit % 64);
    }
  }
  if (rem >= d - rem) AddOne(&q);  // 2 * rem >= d
  return FromMagnitude(q, neg, lim, v);
}

// Decimal arithmetic on unscaled int128 values; the result type was fixed at bind time. Division
// by zero is an error under ANSI, else NULL (as out-of-range results are).
Status DecimalArith(const Arg& a, const Arg& b, size_t rows, ArOp op, bool ansi, const TypePtr& rt,
                    Vector* out) {
  const int sa = a.vector->type()->scale(), sb = b.vector->type()->scale();
  const int rs = rt->scale(), rp = rt->precision();
  out->ResizeUninitialized(rows);
  int128_t* d = out->data<int128_t>();
  const int128_t* x = a.vector->data<int128_t>();
  const int128_t* y = b.vector->data<int128_t>();
  Arg args[2] = {a, b};
  PropagateNulls(args, rows, out);
  const uint8_t* valid = out->validity();
  const int pa = a.vector->type()->precision(), pb = b.vector->type()->precision();
  if (op == ArOp::kMul &&
      DecimalArith64(x, a.constant, y, b.constant, rows, op, pa, sa, pb, sb, rp, rs, d, valid)) {
    return Status::OK();
  }
  std::vector<uint32_t> bad;
  bool div_by_zero = false;
  const int common = std::max(sa, sb);
  int128_t ma = Pow10(common - sa), mb = Pow10(common - sb);
  const int128_t lim = Pow10(rp);
  auto fits = [lim](int128_t v) { return v < lim && v > -lim; };
  switch (op) {
    case ArOp::kAdd:
    case ArOp::kSub: {
      // A constant operand (`1 - l_discount`) is brought to the common scale once, not per row.
      int128_t scaled_a, scaled_b;
      if (a.constant && ma != 1 && !__builtin_mul_overflow(x[0], ma, &scaled_a)) {
        x = &scaled_a;
        ma = 1;
      }
      if (b.constant && mb != 1 && !__builtin_mul_overflow(y[0], mb, &scaled_b)) {
        y = &scaled_b;
        mb = 1;
      }
      const int128_t sign = op == ArOp::kAdd ? 1 : -1;
      // (a scaled constant keeps its integer digits: precision p - s + rs at scale rs)
      if (ma == 1 && mb == 1 && common == rs &&
          DecimalArith64(x, a.constant, y, b.constant, rows, op, pa - sa + rs, rs, pb - sb + rs, rs,
                         rp, rs, d, valid)) {
        break;
      }
      if (ma == 1 && mb == 1 && common == rs) {
        DecimalDispatch(
            a, b, x, y, d, valid, rows,
            [&](int128_t l, int128_t r, int128_t* v) SILT_ALWAYS_INLINE {
              *v = op == ArOp::kAdd ? l + r : l - r;
              return fits(*v);
            },
            &bad);
      } else {
        DecimalDispatch(
            a, b, x, y, d, valid, rows,
            [&](int128_t l, int128_t r, int128_t* v) {
              *v = Rescale(l * ma + sign * r * mb, common, rs);
              return fits(*v);
            },
            &bad);
      }
      break;
    }
    case ArOp::kMul: {
      const int from = sa + sb;
      DecimalDispatch(
          a, b, x, y, d, valid, rows,
          [&](int128_t l, int128_t r, int128_t* v) SILT_ALWAYS_INLINE {
            if (FitsInt64(l) && FitsInt64(r)) [[likely]] {
              int128_t p = static_cast<int128_t>(static_cast<int64_t>(l)) * static_cast<int64_t>(r);
              *v = from == rs ? p : Rescale(p, from, rs);
              return fits(*v);
            }
            return MultiplyWideDecimal(l, r, from, rs, lim, v);
          },
          &bad);
      break;
    }
    case ArOp::kDiv:
    case ArOp::kMod:
    case ArOp::kIntDiv: {
      const int shift = rs - sa + sb;
      DecimalDispatch(
          a, b, x, y, d, valid, rows,
          [&](int128_t l, int128_t r, int128_t* v) {
            if (r == 0) {
              div_by_zero = true;
              return false;
            }
            if (op == ArOp::kMod) {
              *v = Rescale((l * ma) % (r * mb), common, rs);
              return fits(*v);
            }
            // l/r at scale rs: (l * 10^(rs - sa + sb)) / r, HALF_UP.
            int128_t num;
            if (shift >= 0 && !__builtin_mul_overflow(l, Pow10(shift), &num)) {
              int128_t q = num / r, rem = num % r;
              if (rem < 0) rem = -rem;
              int128_t ar = r < 0 ? -r : r;
              if (2 * rem >= ar) q += ((num < 0) != (r < 0)) ? -1 : 1;
              *v = q;
            } else {
              return DivideWideDecimal(l, r, shift, lim, v);
            }
            return fits(*v);
          },
          &bad);
      break;
    }
  }
  if (!bad.empty()) {
    if (ansi && div_by_zero) return ZeroDivisor(op);
    if (ansi) {
      return Status::InvalidArgument(
          "The result of the decimal operation cannot be represented as Decimal(" +
              std::to_string(rp) + ", " + std::to_string(rs) +
              "). If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this "
              "error, and return NULL instead.",
          errc::kNumericValueOutOfRange);
    }
    uint8_t* vv = out->mutable_validity();
    for (uint32_t i : bad) vv[i] = 0;
  }
  return Status::OK();
}

Status ArithKernel(std::span<const Arg> args, size_t rows, ArOp op, ArMode mode, const TypePtr& rt,
                   Vector* out) {
  const Arg& a = args[0];
  const Arg& b = args[1];
  // Floats and decimals have no wrapping: outside ANSI an out-of-range result is NULL.
  const bool ansi = mode == ArMode::kAnsi;
  switch (rt->id()) {
    case TypeId::kInt8:
      return IntegralArith<int8_t>(a, b, rows, op, mode, out);
    case TypeId::kInt16:
      return IntegralArith<int16_t>(a, b, rows, op, mode, out);
    case TypeId::kInt32:
      return IntegralArith<int32_t>(a, b, rows, op, mode, out);
    case TypeId::kInt64:
      return IntegralArith<int64_t>(a, b, rows, op, mode, out);
    case TypeId::kFloat:
      return FloatArith<float>(a, b, rows, op, ansi, out);
    case TypeId::kDouble:
      return FloatArith<double>(a, b, rows, op, ansi, out);
    case TypeId::kDecimal:
      return DecimalArith(a, b, rows, op, ansi, rt, out);
    default:
      return Status::Internal("arithmetic on " + rt->ToString());
  }
}

const char* OpName(ArOp op) {
  switch (op) {
    case ArOp::kAdd:
      return "+";
    case ArOp::kSub:
      return "-";
    case ArOp::kMul:
      return "*";
    case ArOp::kDiv:
      return "/";
    case ArOp::kMod:
      return "%";
    case ArOp::kIntDiv:
      return "div";
  }
  return "?";
}

// An interval's months (year-month) or microseconds (day-time) as a BIGINT.
ExprPtr IntervalValue(ExprPtr e) {
  std::string name = e->ToString();
  bool nullable = e->nullable;
  return Call(
      name, DataType::Int64(), {std::move(e)},
      [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
        const Vector& v = *a[0].vector;
        const bool ym = v.id() == TypeId::kYearMonthInterval;
        fn::FixedWriter<int64_t> w(out, rows);
        for (size_t i = 0; i < rows; ++i) {
          size_t r = a[0].index(i);
          if (v.IsNull(r)) {
            w.SetNull(i);
          } else {
            w.Set(i, ym ? v.Get<int32_t>(r) : v.Get<int64_t>(r));
          }
        }
        return Status::OK();
      },
      nullable);
}

// try_ = true binds try_add/try_subtract/try_multiply/try_divide/try_mod: NULL instead of an
// overflow or a zero divisor, whatever spark.sql.ansi.enabled says.
Result<ExprPtr> BindArith(ArOp op, std::vector<ExprPtr> args, const BindContext& ctx,
                          const char* try_name = nullptr) {
  const char* name = try_name ? try_name : OpName(op);
  if (args.size() != 2) return WrongArgs(name, args.size(), "2");
  // date + NULL: Spark reads the NULL as a calendar interval (DateAddInterval), a NULL TIMESTAMP.
  if (op == ArOp::kAdd && !try_name) {
    TypeId x = args[0]->type->id(), y = args[1]->type->id();
    if ((x == TypeId::kDate && y == TypeId::kNull) || (x == TypeId::kNull && y == TypeId::kDate)) {
      return MakeConstant(Value::Null(DataType::Timestamp()));
    }
  }
  // Intervals, and the datetime differences that give one.
  if (op == ArOp::kAdd || op == ArOp::kSub || op == ArOp::kMul || op == ArOp::kDiv) {
    SILT_ASSIGN_OR_RETURN(ExprPtr iv, fn::BindIntervalArith(name, OpName(op)[0], args, ctx));
    if (iv) return iv;
  } else if (op == ArOp::kIntDiv && args[0]->type->is_interval() &&
             args[0]->type->id() == args[1]->type->id()) {
    // Spark: `div` of two year-month or two day-time intervals is the BIGINT quotient of their
    // months or microseconds (zero divisor and overflow as for BIGINT).
    for (auto& e : args) e = IntervalValue(e);
    return BindArith(op, std::move(args), ctx, try_name);
  } else if (args[0]->type->is_interval() || args[1]->type->is_interval()) {
    return TypeError("\"(" + args[0]->ToString() + " " + name + " " + args[1]->ToString() +
                     ")\": the operator requires numeric operands, not \"" +
                     args[0]->type->ToString() + "\" and \"" + args[1]->type->ToString() + "\"");
  }
  TypeId x = args[0]->type->id(), y = args[1]->type->id();
  // date ± days
  if ((op == ArOp::kAdd || op == ArOp::kSub) && x == TypeId::kDate && IsIntegral(y)) {
    return BindScalarFunction(op == ArOp::kAdd ? "date_add" : "date_sub", std::move(args), ctx);
  }
  if (op == ArOp::kAdd && IsIntegral(x) && y == TypeId::kDate) {
    std::swap(args[0], args[1]);
    return BindScalarFunction("date_add", std::move(args), ctx);
  }
  if (x == TypeId::kNull) {
    SILT_ASSIGN_OR_RETURN(
        args[0], CoerceTo(args[0], y == TypeId::kNull ? DataType::Int32() : args[1]->type, ctx));
  }
  if (y == TypeId::kNull) {
    SILT_ASSIGN_OR_RETURN(args[1], CoerceTo(args[1], args[0]->type, ctx));
  }
  x = args[0]->type->id();
  y = args[1]->type->id();
  // Strings in arithmetic are read as doubles (non-ANSI Spark).
  for (auto& e : args) {
    if (e->type->id() == TypeId::kString) {
      SILT_ASSIGN_OR_RETURN(e, CoerceTo(e, DataType::Double(), ctx));
    }
  }
  x = args[0]->type->id();
  y = args[1]->type->id();
  if (!IsNumeric(x) || !IsNumeric(y)) {
    return TypeError("\"(" + args[0]->ToString() + " " + name + " " + args[1]->ToString() +
                     ")\": the operator requires numeric operands, not \"" +
                     args[0]->type->ToString() + "\" and \"" + args[1]->type->ToString() + "\"");
  }
  TypePtr rt;
  if (op == ArOp::kIntDiv) {
    for (auto& e : args) {
      SILT_ASSIGN_OR_RETURN(e, CoerceTo(e, DataType::Int64(), ctx));
    }
    rt = DataType::Int64();
  } else if (x == TypeId::kDouble || y == TypeId::kDouble || x == TypeId::kFloat ||
             y == TypeId::kFloat ||
             (op == ArOp::kDiv && x != TypeId::kDecimal && y != TypeId::kDecimal)) {
    rt = (x == TypeId::kFloat && y == TypeId::kFloat && op != ArOp::kDiv) ? DataType::Float()
                                                                          : DataType::Double();
    for (auto& e : args) {
      SILT_ASSIGN_OR_RETURN(e, CoerceTo(e, rt, ctx));
    }
  } else if (x == TypeId::kDecimal || y == TypeId::kDecimal) {
    TypePtr da = DecimalFor(args[0]), db = DecimalFor(args[1]);
    int p1 = da->precision(), s1 = da->scale(), p2 = db->precision(), s2 = db->scale();
    switch (op) {
      case ArOp::kAdd:
      case ArOp::kSub: {
        int s = std::max(s1, s2);
        rt = AdjustedDecimal(std::max(p1 - s1, p2 - s2) + s + 1, s);
        break;
      }
      case ArOp::kMul:
        rt = AdjustedDecimal(p1 + p2 + 1, s1 + s2);
        break;
      case ArOp::kDiv: {
        int s = std::max(6, s1 + p2 + 1);
        rt = AdjustedDecimal(p1 - s1 + s2 + s, s);
        break;
      }
      default: {
        int s = std::max(s1, s2);
        rt = AdjustedDecimal(std::min(p1 - s1, p2 - s2) + s, s);
      }
    }
    SILT_ASSIGN_OR_RETURN(args[0], CoerceTo(args[0], da, ctx));
    SILT_ASSIGN_OR_RETURN(args[1], CoerceTo(args[1], db, ctx));
  } else {
    // Integral: the wider of the two.
    rt = IsIntegral(x) && (x == TypeId::kInt64 || y == TypeId::kInt64) ? DataType::Int64()
         : (x == TypeId::kInt32 || y == TypeId::kInt32)                ? DataType::Int32()
         : (x == TypeId::kInt16 || y == TypeId::kInt16)                ? DataType::Int16()
                                                                       : DataType::Int8();
    for (auto& e : args) {
      SILT_ASSIGN_OR_RETURN(e, CoerceTo(e, rt, ctx));
    }
  }
  const ArMode mode = try_name ? ArMode::kTry : ctx.ansi ? ArMode::kAnsi : ArMode::kLegacy;
  bool nullable = true;
  return Call(
      name, rt, std::move(args),
      [op, mode, rt](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
        return ArithKernel(a, rows, op, mode, rt, out);
      },
      nullable);
}

// ------------------------------------------------------------------ null / conditional

Result<ExprPtr> BindNot(std::vector<ExprPtr> args, const BindContext& ctx) {
  if (args.size() != 1) return WrongArgs("not", args.size(), "1");
  SILT_ASSIGN_OR_RETURN(ExprPtr c, CoerceTo(args[0], DataType::Boolean(), ctx));
  return MakeSpecial(ExprKind::kNot, DataType::Boolean(), {c});
}

Result<ExprPtr> BindLogic(ExprKind kind, std::vector<ExprPtr> args, const BindContext& ctx) {
  if (args.size() != 2) return WrongArgs(kind == ExprKind::kAnd ? "and" : "or", args.size(), "2");
  for (auto& a : args) {
    SILT_ASSIGN_OR_RETURN(a, CoerceTo(a, DataType::Boolean(), ctx));
  }
  return MakeSpecial(kind, DataType::Boolean(), std::move(args));
}

Result<TypePtr> CommonOf(const std::vector<ExprPtr>& args, const BindContext& ctx,
                         size_t from = 0) {
  TypePtr t = DataType::Null();
  for (size_t i = from; i < args.size(); ++i) {
    SILT_ASSIGN_OR_RETURN(t, CommonType(t, args[i]->type, ctx));
  }
  return t;
}

Result<ExprPtr> BindCoalesce(std::vector<ExprPtr> args, const BindContext& ctx) {
  if (args.empty()) return WrongArgs("coalesce", 0, "> 0");
  SILT_ASSIGN_OR_RETURN(TypePtr t, CommonOf(args, ctx));
  for (auto& a : args) {
    SILT_ASSIGN_OR_RETURN(a, CoerceTo(a, t, ctx));
  }
  return MakeSpecial(ExprKind::kCoalesce, t, std::move(args));
}

Result<ExprPtr> BindIf(std::vector<ExprPtr> args, const BindContext& ctx) {
  if (args.size() != 3) return WrongArgs("if", args.size(), "3");
  SILT_ASSIGN_OR_RETURN(ExprPtr c, CoerceTo(args[0], DataType::Boolean(), ctx));
  SILT_ASSIGN_OR_RETURN(TypePtr t, CommonType(args[1]->type, args[2]->type, ctx));
  SILT_ASSIGN_OR_RETURN(ExprPtr a, CoerceTo(args[1], t, ctx));
  SILT_ASSIGN_OR_RETURN(ExprPtr b, CoerceTo(args[2], t, ctx));
  return MakeSpecial(ExprKind::kCase, t, {c, a, b}, true);
}

Result<ExprPtr> BindNullIf(std::vector<ExprPtr> args, const BindContext& ctx) {
  if (args.size() != 2) return WrongArgs("nullif", args.size(), "2");
  SILT_ASSIGN_OR_RETURN(ExprPtr eq, BindScalarFunction("=", {args[0], args[1]}, ctx));
  return MakeSpecial(ExprKind::kCase, args[0]->type,
                     {eq, MakeConstant(Value::Null(args[0]->type)), args[0]}, true);
}

Result<ExprPtr> BindNvl2(std::vector<ExprPtr> args, const BindContext& ctx) {
  if (args.size() != 3) return WrongArgs("nvl2", args.size(), "3");
  ExprPtr test = MakeSpecial(ExprKind::kIsNotNull, DataType::Boolean(), {args[0]});
  return BindIf({test, args[1], args[2]}, ctx);
}

Result<ExprPtr> BindGreatestLeast(bool greatest, std::vector<ExprPtr> args,
                                  const BindContext& ctx) {
  const char* name = greatest ? "greatest" : "least";
  if (args.size() < 2) return WrongArgs(name, args.size(), "> 1");
  // The mode-independent common type (ANSI's string promotion is not applied here).
  BindContext plain = ctx;
  plain.ansi = false;
  SILT_ASSIGN_OR_RETURN(TypePtr t, CommonOf(args, plain));
  for (auto& a : args) {
    SILT_ASSIGN_OR_RETURN(a, CoerceTo(a, t, ctx));
  }
  return Call(
      name, t, std::move(args),
      [greatest](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) -> Status {
        for (size_t i = 0; i < rows; ++i) {
          std::optional<Value> best;
          for (const Arg& x : a) {
            if (x.vector->IsNull(x.index(i))) continue;  // NULLs are skipped, as Spark
            Value v = x.vector->GetValue(x.index(i));
            if (!best || (greatest ? CompareValuesGeneric(v, *best) > 0
                                   : CompareValuesGeneric(v, *best) < 0))
              best = v;
          }
          if (best) {
            SILT_RETURN_NOT_OK(out->AppendValue(*best));
          } else
            out->AppendNull();
        }
        return Status::OK();
      });
}

Result<ExprPtr> BindNullSafeEq(std::vector<ExprPtr> args, const BindContext& ctx) {
  if (args.size() != 2) return WrongArgs("<=>", args.size(), "2");
  SILT_ASSIGN_OR_RETURN(args, CoerceComparison(std::move(args), ctx, "<=>"));
  return Call(
      "<=>", DataType::Boolean(), std::move(args),
      [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) -> Status {
        Vector eq(DataType::Boolean());
        SILT_RETURN_NOT_OK(CompareKernel(a, rows, CmpOp::kEq, &eq));
        out->ResizeUninitialized(rows);
        uint8_t* d = out->data<uint8_t>();
        for (size_t i = 0; i < rows; ++i) {
          bool na = a[0].vector->IsNull(a[0].index(i)), nb = a[1].vector->IsNull(a[1].index(i));
          d[i] = (na || nb) ? (na && nb) : eq.data<uint8_t>()[i];
        }
        return Status::OK();
      },
      false);
}

// The DOUBLE or FLOAT argument of isnan / nanvl (Spark's TypeCollection(DoubleType, FloatType):
// other numbers and strings cast implicitly to DOUBLE).
Result<ExprPtr> FloatingArg(const char* name, ExprPtr a, bool to_double, const BindContext& ctx) {
  TypeId id = a->type->id();
  if (id == TypeId::kDouble || (id == TypeId::kFloat && !to_double)) return a;
  bool ok = id == TypeId::kNull || id == TypeId::kString || id == TypeId::kFloat ||
            id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 ||
            id == TypeId::kInt64 || id == TypeId::kDecimal;
  if (!ok) {
    return Status::InvalidArgument(
        std::string("Cannot resolve \"") + name + "\" due to data type mismatch: the input " +
            "requires the (\"DOUBLE\" or \"FLOAT\") type, however it has the type \"" +
            a->type->ToString() + "\".",
        errc::kDatatypeMismatchUnexpectedInputType);
  }
  return CoerceTo(a, DataType::Double(), ctx);
}

// isnan(x): true for NaN, false otherwise (NULL included).
Result<ExprPtr> BindIsNan(std::vector<ExprPtr> args, const BindContext& ctx) {
  if (args.size() != 1) return WrongArgs("isnan", args.size(), "1");
  SILT_ASSIGN_OR_RETURN(ExprPtr a, FloatingArg("isnan", args[0], false, ctx));
  const bool is_float = a->type->id() == TypeId::kFloat;
  return Call(
      "isnan", DataType::Boolean(), {a},
      [is_float](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) -> Status {
        out->ResizeUninitialized(rows);
        uint8_t* d = out->data<uint8_t>();
        for (size_t i = 0; i < rows; ++i) {
          size_t j = a[0].index(i);
          d[i] = !a[0].vector->IsNull(j) && (is_float ? std::isnan(a[0].vector->Get<float>(j))
                                                      : std::isnan(a[0].vector->Get<double>(j)));
        }
        return Status::OK();
      },
      false);
}

// nanvl(a, b): b when a is NaN, else a; b is evaluated only for NaN rows (Spark's NaNvl), so
// `nanvl(c, 1/0)` fails only where c is NaN.
Result<ExprPtr> BindNanvl(std::vector<ExprPtr> args, const BindContext& ctx) {
  if (args.size() != 2) return WrongArgs("nanvl", args.size(), "2");
  const bool both_float =
      args[0]->type->id() == TypeId::kFloat && args[1]->type->id() == TypeId::kFloat;
  SILT_ASSIGN_OR_RETURN(ExprPtr a, FloatingArg("nanvl", args[0], !both_float, ctx));
  SILT_ASSIGN_OR_RETURN(ExprPtr b, FloatingArg("nanvl", args[1], !both_float, ctx));
  SILT_ASSIGN_OR_RETURN(ExprPtr test, BindIsNan({a}, ctx));
  return MakeSpecial(ExprKind::kCase, a->type, {test, b, a}, true);
}

}  // namespace

void RegisterCoreFunctions(FunctionRegistry& r) {
  r.Add("isnan", BindIsNan);
  r.Add("nanvl", BindNanvl);
  RegisterComparison(r, "=", CmpOp::kEq);
  RegisterComparison(r, "==", CmpOp::kEq);
  RegisterComparison(r, "<>", CmpOp::kNe);
  RegisterComparison(r, "!=", CmpOp::kNe);
  RegisterComparison(r, "<", CmpOp::kLt);
  RegisterComparison(r, "<=", CmpOp::kLe);
  RegisterComparison(r, ">", CmpOp::kGt);
  RegisterComparison(r, ">=", CmpOp::kGe);
  r.Add("<=>", BindNullSafeEq);
  r.Add("equal_null", BindNullSafeEq);
  // PIVOT's `column <=> value` (the parser's rewrite of each pivot value), with Spark's checks:
  // a pivot column that cannot be ordered (maps) and a value that is not a constant.
  r.Add("__pivot_match", [](std::vector<ExprPtr> a, const BindContext& c) -> Result<ExprPtr> {
    if (a.size() == 2 && !CheckOrderable(*a[0]->type).ok()) {
      return Status::InvalidArgument(
          "Invalid pivot column `" + a[0]->name + "`. Pivot columns must be comparable.",
          errc::kIncomparablePivotColumn);
    }
    if (a.size() == 2 && !IsConstantExpr(*a[1])) {
      return Status::InvalidArgument(
          "Literal expressions required for pivot values, found \"" + a[1]->name + "\".",
          errc::kNonLiteralPivotValues);
    }
    return BindNullSafeEq(std::move(a), c);
  });
  r.Add("+", [](std::vector<ExprPtr> a, const BindContext& c) {
    return BindArith(ArOp::kAdd, std::move(a), c);
  });
  r.Add("-", [](std::vector<ExprPtr> a, const BindContext& c) {
    return BindArith(ArOp::kSub, std::move(a), c);
  });
  r.Add("*", [](std::vector<ExprPtr> a, const BindContext& c) {
    return BindArith(ArOp::kMul, std::move(a), c);
  });
  r.Add("/", [](std::vector<ExprPtr> a, const BindContext& c) {
    return BindArith(ArOp::kDiv, std::move(a), c);
  });
  r.Add("%", [](std::vector<ExprPtr> a, const BindContext& c) {
    return BindArith(ArOp::kMod, std::move(a), c);
  });
  r.Add("div", [](std::vector<ExprPtr> a, const BindContext& c) {
    return BindArith(ArOp::kIntDiv, std::move(a), c);
  });
  for (auto [name, op] : {std::pair{"try_add", ArOp::kAdd}, std::pair{"try_subtract", ArOp::kSub},
                          std::pair{"try_multiply", ArOp::kMul},
                          std::pair{"try_divide", ArOp::kDiv}, std::pair{"try_mod", ArOp::kMod}}) {
    r.Add(name, [name, op](std::vector<ExprPtr> a, const BindContext& c) {
      return BindArith(op, std::move(a), c, name);
    });
  }
  r.Add("not", BindNot);
  r.Add("!", BindNot);
  r.Add("and", [](std::vector<ExprPtr> a, const BindContext& c) {
    return BindLogic(ExprKind::kAnd, std::move(a), c);
  });
  r.Add("or", [](std::vector<ExprPtr> a, const BindContext& c) {
    return BindLogic(ExprKind::kOr, std::move(a), c);
  });
  r.Add("coalesce", BindCoalesce);
  r.Add("nvl", [](std::vector<ExprPtr> a, const BindContext& c) -> Result<ExprPtr> {
    if (a.size() != 2) return WrongArgs("nvl", a.size(), "2");
    return BindCoalesce(std::move(a), c);
  });
  r.Add("ifnull", [](std::vector<ExprPtr> a, const BindContext& c) -> Result<ExprPtr> {
    if (a.size() != 2) return WrongArgs("ifnull", a.size(), "2");
    return BindCoalesce(std::move(a), c);
  });
  r.Add("if", BindIf);
  r.Add("iff", BindIf);
  r.Add("nullif", BindNullIf);
  r.Add("nvl2", BindNvl2);
  r.Add("isnull", [](std::vector<ExprPtr> a, const BindContext&) -> Result<ExprPtr> {
    if (a.size() != 1) return WrongArgs("isnull", a.size(), "1");
    return MakeSpecial(ExprKind::kIsNull, DataType::Boolean(), {a[0]});
  });
  r.Add("isnotnull", [](std::vector<ExprPtr> a, const BindContext&) -> Result<ExprPtr> {
    if (a.size() != 1) return WrongArgs("isnotnull", a.size(), "1");
    return MakeSpecial(ExprKind::kIsNotNull, DataType::Boolean(), {a[0]});
  });
  r.Add("greatest", [](std::vector<ExprPtr> a, const BindContext& c) {
    return BindGreatestLeast(true, std::move(a), c);
  });
  r.Add("least", [](std::vector<ExprPtr> a, const BindContext& c) {
    return BindGreatestLeast(false, std::move(a), c);
  });
  r.Add("cast", [](std::vector<ExprPtr>, const BindContext&) -> Result<ExprPtr> {
    return Status::InvalidArgument("CAST needs a target type: CAST(x AS type)",
                                   errc::kParseSyntaxError);
  });
}

}  // namespace silt::exec
