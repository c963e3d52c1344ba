// Shared helpers of the scalar function families (exec/functions/*.cc): binder-side checks and
// errors in Spark's classes, argument accessors and result writers for kernels. Internal to the
// function library; the binder uses exec/functions.h.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/datetime.h"
#include "common/error_classes.h"
#include "common/query_memory.h"
#include "common/status.h"
#include "common/utf8.h"
#include "exec/expression.h"
#include "exec/functions.h"
#include "exec/kernel_util.h"
#include "vector/types.h"
#include "vector/vector.h"

namespace silt::exec {
class FunctionRegistry;
}  // namespace silt::exec

namespace silt::exec::fn {

// ---------------------------------------------------------------------------------------------
// Binder helpers

// WRONG_NUM_ARGS unless min <= args.size() <= max (max = SIZE_MAX: variadic).
inline Status CheckArity(std::string_view name, const std::vector<ExprPtr>& args, size_t min,
                         size_t max) {
  size_t n = args.size();
  if (n >= min && n <= max) return Status::OK();
  std::string expected;
  if (max == SIZE_MAX) {
    expected = "at least " + std::to_string(min);
  } else if (min == max) {
    expected = std::to_string(min);
  } else {
    expected = "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
  }
  return Status::InvalidArgument("The `" + std::string(name) + "` requires " + expected +
                                     " parameters but the actual number is " + std::to_string(n) +
                                     ".",
                                 errc::kWrongNumArgs);
}

inline Status TypeMismatch(std::string_view name, const std::string& detail) {
  return Status::InvalidArgument(
      "Cannot resolve \"" + std::string(name) + "\" due to data type mismatch: " + detail,
      errc::kDatatypeMismatch);
}

// DATATYPE_MISMATCH for argument `index` (0-based) not being of the `expected` kind.
inline Status UnexpectedType(std::string_view name, size_t index, std::string_view expected,
                             const TypePtr& got) {
  return TypeMismatch(name, "Parameter " + std::to_string(index + 1) + " requires the " +
                                std::string(expected) + " type, however it has the type \"" +
                                got->ToString() + "\".");
}

inline bool IsIntegralId(TypeId id) {
  return id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 ||
         id == TypeId::kInt64;
}
inline bool IsNumericId(TypeId id) {
  return IsIntegralId(id) || id == TypeId::kFloat || id == TypeId::kDouble ||
         id == TypeId::kDecimal;
}
inline bool IsAtomicId(TypeId id) {
  return id != TypeId::kStruct && id != TypeId::kList && id != TypeId::kMap;
}
inline bool IsNullTyped(const ExprPtr& e) { return e->type->id() == TypeId::kNull; }

// The constant Value of a kConstant argument (bind-time folding of patterns, units, scales), or
// null when the argument is not a literal.
inline const Value* ConstantOf(const ExprPtr& e) {
  return e->kind == ExprKind::kConstant ? &e->constant : nullptr;
}

inline ExprPtr MakeCall(std::string name, TypePtr type, std::vector<ExprPtr> children,
                        ScalarKernel kernel, bool deterministic = true, bool nullable = true) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCall;
  e->type = std::move(type);
  e->nullable = nullable;
  e->children = std::move(children);
  e->name = std::move(name);
  e->kernel = std::move(kernel);
  e->deterministic = deterministic;
  for (const ExprPtr& c : e->children) e->deterministic = e->deterministic && c->deterministic;
  return e;
}

// Coerces argument `i` to `type`, rejecting nested arguments where Spark has no implicit cast
// (e.g. upper(array(1))).
inline Status CoerceArg(std::string_view name, std::vector<ExprPtr>& args, size_t i,
                        const TypePtr& type, const BindContext& ctx) {
  const TypePtr& have = args[i]->type;
  if (have->Equals(*type)) return Status::OK();
  if (!IsAtomicId(have->id()) && have->id() != type->id()) {
    return UnexpectedType(name, i, "\"" + type->ToString() + "\"", have);
  }
  SILT_ASSIGN_OR_RETURN(args[i], CoerceTo(args[i], type, ctx));
  return Status::OK();
}

// Coerces argument i to string unless it is already string or binary (functions that take both).
inline Status CoerceStringOrBinary(std::string_view name, std::vector<ExprPtr>& args, size_t i,
                                   const BindContext& ctx) {
  TypeId id = args[i]->type->id();
  if (id == TypeId::kString || id == TypeId::kBinary) return Status::OK();
  return CoerceArg(name, args, i, DataType::String(), ctx);
}

// ---------------------------------------------------------------------------------------------
// Intervals (interval_functions.cc)

// Arithmetic where Spark gives or takes a year-month / day-time interval: interval ± interval,
// date/timestamp ± interval, interval * / numeric, timestamp - timestamp, date - date. op is one of
// '+', '-', '*', '/'. Returns nullptr when no operand makes it an interval operation.
Result<ExprPtr> BindIntervalArith(std::string_view name, char op, std::vector<ExprPtr>& args,
                                  const BindContext& ctx);
// abs / negative / positive of an interval (nullptr when the argument is not an interval).
Result<ExprPtr> BindIntervalUnary(std::string_view name, std::vector<ExprPtr>& args,
                                  const BindContext& ctx);
// make_interval-family and interval helpers; called by RegisterDateTimeFunctions.
void RegisterIntervalFunctions(FunctionRegistry& r);

// The Oracle-style decode(expr, search, result, …, [default]) (conditional_functions.cc).
Result<ExprPtr> BindDecodeCase(std::vector<ExprPtr>& args, const BindContext& ctx);

// UTF-8 well-formedness (string_check_functions.cc): the length of the well-formed sequence at
// s[i], or 0 with *bad the length of the ill-formed subpart to replace by one U+FFFD.
size_t Utf8SequenceAt(std::string_view s, size_t i, size_t* bad);
bool IsValidUtf8(std::string_view s);
void MakeValidUtf8(std::string_view s, std::string* out);

// Charsets of encode / decode (string_check_functions.cc): Spark's list (US-ASCII, ISO-8859-1,
// UTF-8, UTF-16BE, UTF-16LE, UTF-16, UTF-32), plus WINDOWS-1252 when
// spark.sql.legacy.javaCharsets is on. An unknown charset is INVALID_PARAMETER_VALUE.CHARSET;
// an unmappable character is MALFORMED_CHARACTER_CODING unless legacy_coding_error_action
// (then '?' / U+FFFD as Java's replacement).
Status EncodeCharset(std::string_view fn_name, std::string_view charset, std::string_view s,
                     bool legacy_charsets, bool legacy_errors, std::string* out);
Status DecodeCharset(std::string_view fn_name, std::string_view charset, std::string_view s,
                     bool legacy_charsets, bool legacy_errors, std::string* out);

// ---------------------------------------------------------------------------------------------
// Kernel helpers

inline bool NullAt(const Arg& a, size_t row) { return a.vector->IsNull(a.index(row)); }
inline std::string_view StrAt(const Arg& a, size_t row) {
  return a.vector->GetString(a.index(row));
}
template <typename T>
inline T ValAt(const Arg& a, size_t row) {
  return a.vector->data<T>()[a.index(row)];
}
// True when every argument is a constant (the kernel then computes one row and the caller
// broadcasts; `rows` may still be > 1 and the writers below handle that by computing each row).
inline bool AllConstant(std::span<const Arg> args) {
  for (const Arg& a : args) {
    if (!a.constant) return false;
  }
  return true;
}

// Writes a fixed-width result of exactly `rows` rows; rows are valid unless SetNull'ed.
template <typename T>
class FixedWriter {
 public:
  FixedWriter(Vector* out, size_t rows) : out_(out) {
    out->ResizeUninitialized(rows);
    data_ = out->data<T>();
  }
  void Set(size_t i, T v) { data_[i] = v; }
  void SetNull(size_t i) {
    data_[i] = T{};
    out_->mutable_validity()[i] = 0;
  }
  T* data() { return data_; }

 private:
  Vector* out_;
  T* data_;
};

// Appends string/binary rows straight into out's buffers: append the row's bytes to buf(), then
// Commit(); or CommitNull(). Finish() sets the row count.
// ---------------------------------------------------------------------------------------------
// Value size limits

// Spark's largest string/binary value or array (ByteArrayMethods.MAX_ROUNDED_ARRAY_LENGTH).
inline constexpr int64_t kMaxValueLength = 2147483632;

// Before `fn` builds a string or binary value of `bytes`: EXCEED_LIMIT_LENGTH past Spark's
// 2 GB cap, SILT_MEMORY_LIMIT_EXCEEDED past what silt.memory.limit leaves (nothing allocated).
inline Status CheckStringResult(std::string_view fn, int64_t bytes) {
  if (bytes > kMaxValueLength) {
    return Status::InvalidArgument(
        "Exceeds char/varchar type length limitation: " + std::to_string(kMaxValueLength) + ". (" +
            std::string(fn) + " would build a string of " + std::to_string(bytes) + " bytes)",
        errc::kExceedLimitLength);
  }
  return CheckQueryMemory(bytes, fn);
}

// Before `fn` appends a value of `row_bytes` to the string heap `heap` of a result vector: the
// value against Spark's cap, and the heap it grows into against silt.memory.limit, counting
// the old buffer a reallocation copies from (so RSS stays near the limit, not twice it).
inline Status CheckStringGrowth(std::string_view fn, const std::string& heap, int64_t row_bytes) {
  if (row_bytes > kMaxValueLength) return CheckStringResult(fn, row_bytes);
  int64_t total = static_cast<int64_t>(heap.size()) + row_bytes;
  int64_t cap = static_cast<int64_t>(heap.capacity());
  return CheckQueryMemory(total + (total > cap ? cap : 0), fn);
}

// Before `fn` builds an array of `elements` elements of `element_bytes` each:
// COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER past Spark's cap, SILT_MEMORY_LIMIT_EXCEEDED past
// what silt.memory.limit leaves.
inline Status CheckArrayResult(std::string_view fn, int64_t elements, int64_t element_bytes) {
  if (elements > kMaxValueLength) {
    return Status::InvalidArgument("Can't create array with " + std::to_string(elements) +
                                       " elements which exceeding the array size limit " +
                                       std::to_string(kMaxValueLength) +
                                       ", the value of parameter(s) `count` in the function `" +
                                       std::string(fn) + "` is invalid.",
                                   errc::kCollectionSizeLimitExceededParameter);
  }
  return CheckQueryMemory(elements * std::max<int64_t>(element_bytes, 1), fn);
}

class StringWriter {
 public:
  explicit StringWriter(Vector* out, size_t rows_hint = 0)
      : out_(out), bytes_(out->bytes()), offsets_(out->offsets_buffer()) {
    offsets_.reserve(offsets_.size() + rows_hint);
  }
  std::string& buf() { return bytes_; }
  void Commit() {
    offsets_.push_back(static_cast<uint32_t>(bytes_.size()));
    ++rows_;
  }
  void Append(std::string_view s) {
    bytes_.append(s.data(), s.size());
    Commit();
  }
  void CommitNull() {
    bytes_.resize(offsets_.back());
    if (validity_.size() < rows_) validity_.resize(rows_, 1);
    validity_.push_back(0);
    offsets_.push_back(static_cast<uint32_t>(bytes_.size()));
    ++rows_;
  }
  // Discards bytes appended for the current row since the last Commit.
  void Rollback() { bytes_.resize(offsets_.back()); }
  void Finish() {
    if (!validity_.empty()) {
      validity_.resize(rows_, 1);
      out_->validity_buffer() = std::move(validity_);
    }
    out_->SetSizeUnchecked(out_->size() + rows_);
  }

 private:
  Vector* out_;
  std::string& bytes_;
  std::vector<uint32_t>& offsets_;
  std::vector<uint8_t> validity_;
  size_t rows_ = 0;
};

// Spark's ordering of two non-null cells of the same type (a[i] vs b[j]): -1, 0, 1; NaN is the
// largest double and equal to itself. Nested values compare by their JSON text (equality exact).
// Defined in misc_functions.cc.
int CompareCells(const Vector& a, size_t i, const Vector& b, size_t j);

// Java's MIME base64 encoder (Spark's base64): lines of `line_length` characters separated by
// CRLF; SIZE_MAX for none (Jackson's binary values in JSON). Defined in string_functions.cc.
void Base64Encode(std::string_view in, std::string* out, size_t line_length = 76);
// Java's MIME decoder: characters outside the alphabet are skipped, '=' ends the data.
void Base64Decode(std::string_view in, std::string* out);
int B64Value(unsigned char c);

// ---------------------------------------------------------------------------------------------
// UTF-8

inline int Utf8CharLen(uint8_t lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;  // invalid lead byte: one byte, like Spark's numBytesForFirstByte fallback
}

inline int64_t Utf8Length(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

inline bool IsAscii(std::string_view s) {
  for (unsigned char c : s) {
    if (c >= 0x80) return false;
  }
  return true;
}

// Byte offset of character `chars` (clamped to the end).
inline size_t Utf8Advance(std::string_view s, size_t from, int64_t chars) {
  size_t i = from;
  while (chars > 0 && i < s.size()) {
    i += static_cast<size_t>(Utf8CharLen(static_cast<uint8_t>(s[i])));
    --chars;
  }
  return i < s.size() ? i : s.size();
}

// Decodes the code point at s[i] and advances i (invalid bytes decode as themselves).
inline uint32_t Utf8Decode(std::string_view s, size_t* i) {
  auto b = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  uint8_t c = b(*i);
  int len = Utf8CharLen(c);
  if (len == 1 || *i + static_cast<size_t>(len) > s.size()) {
    ++*i;
    return c;
  }
  uint32_t cp = len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
  for (int k = 1; k < len; ++k) cp = (cp << 6) | (b(*i + static_cast<size_t>(k)) & 0x3F);
  *i += static_cast<size_t>(len);
  return cp;
}

// Appends the UTF-8 bytes of `cp` (common/utf8.h, argument order of the kernels).
inline void Utf8Encode(uint32_t cp, std::string* out) { AppendUtf8(out, cp); }

// Floor division and modulo for the calendar and integer kernels (common/datetime.h).
using silt::FloorDiv;
using silt::FloorMod;

}  // namespace silt::exec::fn

// ---------------------------------------------------------------------------------------------
// Decimal digits of doubles (Java's Double.toString, %f, round on doubles all work on the
// shortest round-trip decimal representation of the value).
namespace silt::exec::fn {

// value = ±0.digits × 10^exp10 with digits[0] != '0' (empty digits for zero).
struct DecimalDigits {
  bool negative = false;
  std::string digits;
  int exp10 = 0;
};

template <typename F>
inline DecimalDigits ShortestDigits(F v) {
  DecimalDigits r;
  r.negative = std::signbit(v);
  if (v == 0) return r;
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, std::fabs(v), std::chars_format::scientific);
  std::string_view s(buf, static_cast<size_t>(res.ptr - buf));
  size_t e = s.find('e');
  for (size_t i = 0; i < e; ++i) {
    if (s[i] != '.') r.digits.push_back(s[i]);
  }
  while (r.digits.size() > 1 && r.digits.back() == '0') r.digits.pop_back();
  int exp = 0;
  std::from_chars(s.data() + e + 1 + (s[e + 1] == '+'), s.data() + s.size(), exp);
  r.exp10 = exp + 1;
  return r;
}

// Java's Double.toString / Float.toString.
template <typename F>
inline std::string JavaFloatingToString(F v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  DecimalDigits d = ShortestDigits(v);
  std::string out = d.negative ? "-" : "";
  if (d.digits.empty()) return out + "0.0";
  double a = std::fabs(static_cast<double>(v));
  int nd = static_cast<int>(d.digits.size());
  if (a >= 1e-3 && a < 1e7) {
    if (d.exp10 <= 0) {
      out += "0.";
      out.append(static_cast<size_t>(-d.exp10), '0');
      out += d.digits;
    } else if (d.exp10 >= nd) {
      out += d.digits;
      out.append(static_cast<size_t>(d.exp10 - nd), '0');
      out += ".0";
    } else {
      out.append(d.digits, 0, static_cast<size_t>(d.exp10));
      out += '.';
      out.append(d.digits, static_cast<size_t>(d.exp10));
    }
    return out;
  }
  out += d.digits[0];
  out += '.';
  out += nd > 1 ? d.digits.substr(1) : "0";
  out += 'E';
  out += std::to_string(d.exp10 - 1);
  return out;
}

// Rounds d to `frac` digits after the decimal point, half-up on the decimal digits (Java's
// Formatter %f and BigDecimal(double).setScale on the shortest representation). Returns the
// fixed-point text without sign.
inline std::string FixedHalfUp(const DecimalDigits& d, int frac) {
  // Integer digits and fraction digits as one string with an implied point.
  std::string all;
  int int_digits = d.exp10 > 0 ? d.exp10 : 0;
  if (d.exp10 <= 0) {
    all.assign(static_cast<size_t>(-d.exp10), '0');
    all += d.digits;
  } else {
    all = d.digits;
    if (static_cast<int>(all.size()) < int_digits) all.append(int_digits - all.size(), '0');
  }
  size_t keep = static_cast<size_t>(int_digits + frac);
  bool up = all.size() > keep && all[keep] >= '5';
  if (all.size() > keep) all.resize(keep);
  if (all.size() < keep) all.append(keep - all.size(), '0');
  if (up) {
    int i = static_cast<int>(all.size()) - 1;
    while (i >= 0 && all[i] == '9') all[i--] = '0';
    if (i >= 0) {
      ++all[i];
    } else {
      all.insert(all.begin(), '1');
      ++int_digits;
    }
  }
  std::string ip = int_digits > 0 ? all.substr(0, static_cast<size_t>(int_digits)) : "0";
  size_t nz = ip.find_first_not_of('0');
  ip = nz == std::string::npos ? "0" : ip.substr(nz);
  if (frac <= 0) return ip;
  return ip + "." + all.substr(static_cast<size_t>(int_digits));
}

}  // namespace silt::exec::fn
