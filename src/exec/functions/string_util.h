// Row loops and helpers shared by the string function families (string_functions.cc,
// format_functions.cc, digest_functions.cc), and the families RegisterStringFunctions registers.
#pragma once

#include <algorithm>
#include <limits>
#include <span>
#include <string>
#include <string_view>

#include "common/error_classes.h"
#include "exec/function_registry.h"
#include "exec/functions/function_util.h"

namespace silt::exec::fn {

// Row loops: rows with a NULL argument produce NULL; f returns false for a NULL result and may
// set *st to fail the whole evaluation.
// The bytes of one vector's strings are checked against silt.memory.limit each time they grow
// by this much (and can never pass the 4 GiB its 32-bit offsets address).
inline constexpr size_t kStrRowsCheckBytes = size_t{16} << 20;

template <typename F>
Status StrRows(std::span<const Arg> args, size_t rows, Vector* out, F&& f) {
  StringWriter w(out, rows);
  Status st;
  size_t checked = w.buf().size();
  for (size_t i = 0; i < rows; ++i) {
    if (AnyNull(args, i)) {
      w.CommitNull();
      continue;
    }
    size_t before = w.buf().size();
    bool ok = f(i, w.buf(), &st);
    if (!st.ok()) return st;
    if (w.buf().size() - before > static_cast<size_t>(kMaxValueLength)) {
      return CheckStringResult("a string function", static_cast<int64_t>(w.buf().size() - before));
    }
    if (w.buf().size() > checked + kStrRowsCheckBytes) {
      if (w.buf().size() > std::numeric_limits<uint32_t>::max()) {
        return Status::OutOfMemory("the strings of " + std::to_string(i + 1) +
                                       " rows exceed the 4 GiB one vector can hold",
                                   errc::kSiltMemoryLimitExceeded);
      }
      SILT_RETURN_NOT_OK(
          CheckQueryMemory(static_cast<int64_t>(w.buf().capacity()), "string results"));
      checked = w.buf().size();
    }
    if (ok) {
      w.Commit();
    } else {
      w.CommitNull();
    }
  }
  w.Finish();
  return Status::OK();
}

// For kernels whose result sizes are known up front (repeat, space, lpad/rpad): each row's size
// (bytes(i), rows with a NULL argument skipped) against Spark's 2 GB cap, the chunk's total
// against silt.memory.limit, then the whole heap reserved at once (no reallocation that holds
// two copies, nothing allocated when the limit would be passed).
template <typename F>
Status ReserveStringRows(std::string_view fn, std::span<const Arg> args, size_t rows, Vector* out,
                         F&& bytes) {
  int64_t total = static_cast<int64_t>(out->bytes().size());
  for (size_t i = 0; i < rows; ++i) {
    if (AnyNull(args, i)) continue;
    int64_t b = std::max<int64_t>(bytes(i), 0);
    if (b > kMaxValueLength) return CheckStringResult(fn, b);
    total = std::min<int64_t>(total + b, int64_t{1} << 62);
  }
  SILT_RETURN_NOT_OK(CheckQueryMemory(total, fn));
  if (total > static_cast<int64_t>(std::numeric_limits<uint32_t>::max())) {
    return Status::OutOfMemory(std::string(fn) + ": the results of " + std::to_string(rows) +
                                   " rows exceed the 4 GiB one vector can hold (" +
                                   std::to_string(total) + " bytes)",
                               errc::kSiltMemoryLimitExceeded);
  }
  out->bytes().reserve(static_cast<size_t>(total));
  return Status::OK();
}

template <typename T, typename F>
Status FixedRows(std::span<const Arg> args, size_t rows, Vector* out, F&& f) {
  FixedWriter<T> w(out, rows);
  Status st;
  for (size_t i = 0; i < rows; ++i) {
    if (AnyNull(args, i)) {
      w.SetNull(i);
      continue;
    }
    T v{};
    bool ok = f(i, &v, &st);
    if (!st.ok()) return st;
    if (ok) {
      w.Set(i, v);
    } else {
      w.SetNull(i);
    }
  }
  return Status::OK();
}

// Appends `s` upper- or lower-cased as Java's String.toUpperCase/toLowerCase (ASCII fast path,
// ß → SS when upper, other code points through the C.UTF-8 locale).
void AppendCaseMapped(std::string_view s, bool upper, std::string* out);

// Character [start, end) of s (end clamped); bytes when `binary`.
std::string_view CharRange(std::string_view s, int64_t start, int64_t end, bool binary);

// Hex digits of `in` (two per byte) appended to *out.
inline void HexEncode(std::string_view in, std::string* out, bool upper = true) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  for (unsigned char c : in) {
    out->push_back(digits[c >> 4]);
    out->push_back(digits[c & 15]);
  }
}

}  // namespace silt::exec::fn

namespace silt::exec {

// Parts of the string library in their own files, registered by RegisterStringFunctions.
void RegisterFormatFunctions(FunctionRegistry& r);  // format_string / printf, format_number
void RegisterDigestFunctions(FunctionRegistry& r);  // md5, sha1, sha2, crc32

}  // namespace silt::exec
