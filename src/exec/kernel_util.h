// Helpers for writing scalar kernels (exec/expression.h ScalarKernel): broadcasting of constant
// arguments, NULL propagation, fixed-width and string result building. Kernels in
// exec/functions/ use these so each function body is only its arithmetic.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "exec/expression.h"
#include "vector/vector.h"

namespace silt::exec {

// Row i of a string vector (offsets, bytes()) equals `key`. Length and first byte are tested
// together without a branch (a mix of lengths would mispredict): `col = 'literal'` and
// `col IN (…)` filters mostly fail there. bytes must be a Vector's bytes().data(): reading the
// first byte of an empty last value reads the std::string's terminating NUL.
inline bool StringEqualsAt(const uint32_t* offsets, const char* bytes, size_t i,
                           std::string_view key) {
  const size_t n = key.size();
  const uint32_t begin = offsets[i], len = offsets[i + 1] - begin;
  if (n == 0) return len == 0;
  const char* v = bytes + begin;
  if (!((len == n) & (v[0] == key[0]))) return false;
  return n == 1 || std::memcmp(v + 1, key.data() + 1, n - 1) == 0;
}

// Rows idx[k] of src, or a NULL row where idx[k] < 0 (outer generators, zip_with's padding).
// Runs of present rows are copied at once.
inline Vector GatherOrNull(const Vector& src, const std::vector<int64_t>& idx) {
  Vector v(src.type());
  std::vector<uint32_t> run;
  auto flush = [&] {
    if (!run.empty()) v.AppendSelected(src, run.data(), run.size());
    run.clear();
  };
  for (int64_t i : idx) {
    if (i >= 0) {
      run.push_back(static_cast<uint32_t>(i));
    } else {
      flush();
      v.AppendNull();
    }
  }
  flush();
  return v;
}

// True when any argument is NULL at `row`.
inline bool AnyNull(std::span<const Arg> args, size_t row) {
  for (const Arg& a : args) {
    if (a.vector->IsNull(a.index(row))) return true;
  }
  return false;
}

// Whether every value of decimal argument `x` (its one value when constant; NULL rows' slots
// included, which only costs a fast path) fits in 64 bits. One pass the compiler vectorizes: the
// high word must be the sign extension of the low one.
inline bool AllFitInt64(const int128_t* x, bool constant, size_t rows) {
  const size_t n = constant ? std::min<size_t>(rows, 1) : rows;
  uint64_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto u = static_cast<unsigned __int128>(x[i]);
    const auto lo = static_cast<uint64_t>(u), hi = static_cast<uint64_t>(u >> 64);
    bad |= hi ^ static_cast<uint64_t>(static_cast<int64_t>(lo) >> 63);
  }
  return bad == 0;
}

// Sets out's validity (out already holds `rows` rows) to "all arguments valid".
inline void PropagateNulls(std::span<const Arg> args, size_t rows, Vector* out) {
  bool any = false;
  for (const Arg& a : args) any |= a.vector->may_have_nulls();
  if (!any) return;
  uint8_t* valid = out->mutable_validity();
  for (size_t i = 0; i < rows; ++i) valid[i] = AnyNull(args, i) ? 0 : 1;
  out->CompactValidity();
}

// out[i] = fn(a[i]) for fixed-width types; NULL in → NULL out (fn still runs on the slot's
// defined value, so it must not fault on it).
template <typename R, typename A, typename F>
void MapUnary(const Arg& a, size_t rows, Vector* out, F&& fn) {
  out->ResizeUninitialized(rows);
  R* dst = out->data<R>();
  const A* src = a.vector->data<A>();
  if (a.constant) {
    R v = fn(src[0]);
    for (size_t i = 0; i < rows; ++i) dst[i] = v;
  } else {
    for (size_t i = 0; i < rows; ++i) dst[i] = fn(src[i]);
  }
  Arg args[1] = {a};
  PropagateNulls(args, rows, out);
}

// out[i] = fn(a[i], b[i]) for fixed-width types, with broadcasting and NULL propagation.
template <typename R, typename A, typename B, typename F>
void MapBinary(const Arg& a, const Arg& b, size_t rows, Vector* out, F&& fn) {
  out->ResizeUninitialized(rows);
  R* dst = out->data<R>();
  const A* x = a.vector->data<A>();
  const B* y = b.vector->data<B>();
  if (a.constant && !b.constant) {
    A c = x[0];
    for (size_t i = 0; i < rows; ++i) dst[i] = fn(c, y[i]);
  } else if (!a.constant && b.constant) {
    B c = y[0];
    for (size_t i = 0; i < rows; ++i) dst[i] = fn(x[i], c);
  } else {
    for (size_t i = 0; i < rows; ++i) dst[i] = fn(x[a.index(i)], y[b.index(i)]);
  }
  Arg args[2] = {a, b};
  PropagateNulls(args, rows, out);
}

// Row-at-a-time loop for kernels that may produce NULL or fail per row (ANSI errors, parsing):
// fn(row) returns Status; rows with a NULL argument get a NULL result without calling fn when
// null_in_null_out. fn appends exactly one value (or AppendNull) to out per call.
template <typename F>
Status ForEachRow(std::span<const Arg> args, size_t rows, Vector* out, bool null_in_null_out,
                  F&& fn) {
  for (size_t i = 0; i < rows; ++i) {
    if (null_in_null_out && AnyNull(args, i)) {
      out->AppendNull();
      continue;
    }
    Status st = fn(i);
    if (!st.ok()) return st;
  }
  return Status::OK();
}

}  // namespace silt::exec
