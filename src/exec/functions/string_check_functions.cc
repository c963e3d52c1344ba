// Checks and repairs of text as Spark: luhn_check (Luhn checksum of a digit string), quote, the
// charsets of encode / decode, and the UTF-8 validation family is_valid_utf8 / make_valid_utf8 /
// validate_utf8 / try_validate_utf8. Their inputs are strings (binary arguments are taken as the
// string of the same bytes, Spark's implicit cast), so a STRING value may hold bytes that are not
// UTF-8.
#include <cctype>
#include <cstdio>

#include "common/error_classes.h"
#include "exec/function_registry.h"
#include "exec/functions/function_util.h"

namespace silt::exec {

namespace fn {

// Length of the well-formed UTF-8 sequence at s[i] (Unicode's table 3-7: no overlong forms, no
// surrogates, nothing above U+10FFFF), or 0 when it is not one; *bad is then the length of the
// maximal ill-formed subpart to replace by one U+FFFD (at least 1).
size_t Utf8SequenceAt(std::string_view s, size_t i, size_t* bad) {
  auto b = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t c = b(i);
  *bad = 1;
  if (c < 0x80) return 1;
  size_t len;
  uint8_t lo = 0x80, hi = 0xBF;  // range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  for (size_t k = 1; k < len; ++k) {
    if (i + k >= s.size()) return 0;
    const uint8_t x = b(i + k);
    const bool ok = k == 1 ? x >= lo && x <= hi : x >= 0x80 && x <= 0xBF;
    if (!ok) return 0;
    *bad = k + 1;
  }
  return len;
}

bool IsValidUtf8(std::string_view s) {
  size_t bad;
  for (size_t i = 0; i < s.size();) {
    const size_t n = Utf8SequenceAt(s, i, &bad);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

void MakeValidUtf8(std::string_view s, std::string* out) {
  size_t bad;
  for (size_t i = 0; i < s.size();) {
    const size_t n = Utf8SequenceAt(s, i, &bad);
    if (n > 0) {
      out->append(s.substr(i, n));
      i += n;
    } else {
      out->append("\xEF\xBF\xBD");
      i += bad;
    }
  }
}

namespace {

// WINDOWS-1252's 0x80..0x9F (0 where the byte is undefined; Java's decoder maps those to U+FFFD).
constexpr uint16_t kCp1252High[32] = {
    0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0,      0x017D, 0,      0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178};

enum class Charset { kUsAscii, kLatin1, kUtf8, kUtf16Be, kUtf16Le, kUtf16, kUtf32, kCp1252 };

Result<Charset> FindCharset(std::string_view fn_name, std::string_view name, bool legacy) {
  std::string n;
  for (char c : name) n.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  if (n == "US-ASCII") return Charset::kUsAscii;
  if (n == "ISO-8859-1") return Charset::kLatin1;
  if (n == "UTF-8") return Charset::kUtf8;
  if (n == "UTF-16BE") return Charset::kUtf16Be;
  if (n == "UTF-16LE") return Charset::kUtf16Le;
  if (n == "UTF-16") return Charset::kUtf16;
  if (n == "UTF-32") return Charset::kUtf32;
  if (legacy) {  // Java's charset names and aliases, for the charsets silt has
    if (n == "UTF8") return Charset::kUtf8;
    if (n == "ASCII") return Charset::kUsAscii;
    if (n == "LATIN1" || n == "ISO8859_1") return Charset::kLatin1;
    if (n == "WINDOWS-1252" || n == "CP1252") return Charset::kCp1252;
  }
  return Status::InvalidArgument(
      "The value of parameter(s) `charset` in `" + std::string(fn_name) +
          "` is invalid: expects one of the iso-8859-1, us-ascii, utf-16, utf-16be, utf-16le, "
          "utf-32, utf-8, but got " +
          std::string(name) + ".",
      errc::kInvalidParameterValueCharset);
}

Status Malformed(std::string_view fn_name, std::string_view charset) {
  return Status::InvalidArgument("Invalid value found when performing `" + std::string(fn_name) +
                                     "` with `" + std::string(charset) + "`",
                                 errc::kMalformedCharacterCoding);
}

void PutUnit(uint32_t u, int bytes, bool big, std::string* out) {
  for (int k = 0; k < bytes; ++k) {
    const int shift = big ? 8 * (bytes - 1 - k) : 8 * k;
    out->push_back(static_cast<char>((u >> shift) & 0xFF));
  }
}

}  // namespace

Status EncodeCharset(std::string_view fn_name, std::string_view charset, std::string_view s,
                     bool legacy_charsets, bool legacy_errors, std::string* out) {
  SILT_ASSIGN_OR_RETURN(Charset cs, FindCharset(fn_name, charset, legacy_charsets));
  if (cs == Charset::kUtf8) {
    out->append(s);
    return Status::OK();
  }
  if (cs == Charset::kUtf16) out->append("\xFE\xFF");  // Java's UTF-16 encoder writes a BOM
  for (size_t p = 0; p < s.size();) {
    const uint32_t cp = Utf8Decode(s, &p);
    switch (cs) {
      case Charset::kUsAscii:
      case Charset::kLatin1:
      case Charset::kCp1252: {
        int byte = -1;
        if (cp < (cs == Charset::kUsAscii ? 0x80u : 0x100u)) byte = static_cast<int>(cp);
        if (cs == Charset::kCp1252 && cp >= 0x80 && cp < 0xA0) byte = -1;
        if (cs == Charset::kCp1252 && byte < 0) {
          for (int k = 0; k < 32; ++k) {
            if (kCp1252High[k] != 0 && kCp1252High[k] == cp) byte = 0x80 + k;
          }
        }
        if (byte < 0) {
          if (!legacy_errors) return Malformed(fn_name, charset);
          byte = '?';
        }
        out->push_back(static_cast<char>(byte));
        break;
      }
      case Charset::kUtf16Be:
      case Charset::kUtf16Le:
      case Charset::kUtf16: {
        const bool big = cs != Charset::kUtf16Le;
        if (cp >= 0x10000) {
          PutUnit(0xD800 + ((cp - 0x10000) >> 10), 2, big, out);
          PutUnit(0xDC00 + ((cp - 0x10000) & 0x3FF), 2, big, out);
        } else {
          PutUnit(cp, 2, big, out);
        }
        break;
      }
      case Charset::kUtf32:
        PutUnit(cp, 4, true, out);
        break;
      case Charset::kUtf8:
        break;
    }
  }
  return Status::OK();
}

Status DecodeCharset(std::string_view fn_name, std::string_view charset, std::string_view s,
                     bool legacy_charsets, bool legacy_errors, std::string* out) {
  SILT_ASSIGN_OR_RETURN(Charset cs, FindCharset(fn_name, charset, legacy_charsets));
  auto bad = [&]() -> Status {
    if (!legacy_errors) return Malformed(fn_name, charset);
    out->append("\xEF\xBF\xBD");
    return Status::OK();
  };
  auto byte = [&](size_t i) { return static_cast<uint8_t>(s[i]); };
  switch (cs) {
    case Charset::kUtf8:
      if (IsValidUtf8(s)) {
        out->append(s);
      } else {
        if (!legacy_errors) return Malformed(fn_name, charset);
        MakeValidUtf8(s, out);
      }
      return Status::OK();
    case Charset::kUsAscii:
    case Charset::kLatin1:
    case Charset::kCp1252:
      for (size_t i = 0; i < s.size(); ++i) {
        uint32_t cp = byte(i);
        if (cs == Charset::kUsAscii && cp >= 0x80) {
          SILT_RETURN_NOT_OK(bad());
          continue;
        }
        if (cs == Charset::kCp1252 && cp >= 0x80 && cp < 0xA0) {
          cp = kCp1252High[cp - 0x80];
          if (cp == 0) {
            SILT_RETURN_NOT_OK(bad());
            continue;
          }
        }
        Utf8Encode(cp, out);
      }
      return Status::OK();
    case Charset::kUtf16Be:
    case Charset::kUtf16Le:
    case Charset::kUtf16: {
      bool big = cs != Charset::kUtf16Le;
      size_t i = 0;
      if (cs == Charset::kUtf16 && s.size() >= 2) {  // a byte-order mark decides, else BE
        if (byte(0) == 0xFE && byte(1) == 0xFF) i = 2;
        if (byte(0) == 0xFF && byte(1) == 0xFE) i = 2, big = false;
      }
      auto unit = [&](size_t k) -> uint32_t {
        return big ? (byte(k) << 8) | byte(k + 1) : (byte(k + 1) << 8) | byte(k);
      };
      while (i < s.size()) {
        if (i + 1 >= s.size()) {
          SILT_RETURN_NOT_OK(bad());
          break;
        }
        uint32_t u = unit(i);
        i += 2;
        if (u >= 0xD800 && u < 0xDC00 && i + 1 < s.size() && unit(i) >= 0xDC00 &&
            unit(i) < 0xE000) {
          u = 0x10000 + ((u - 0xD800) << 10) + (unit(i) - 0xDC00);
          i += 2;
        } else if (u >= 0xD800 && u < 0xE000) {
          SILT_RETURN_NOT_OK(bad());
          continue;
        }
        Utf8Encode(u, out);
      }
      return Status::OK();
    }
    case Charset::kUtf32: {
      size_t i = 0;
      bool big = true;
      if (s.size() >= 4 && byte(0) == 0 && byte(1) == 0 && byte(2) == 0xFE && byte(3) == 0xFF)
        i = 4;
      if (s.size() >= 4 && byte(0) == 0xFF && byte(1) == 0xFE && byte(2) == 0 && byte(3) == 0)
        i = 4, big = false;
      for (; i < s.size(); i += 4) {
        if (i + 3 >= s.size()) {
          SILT_RETURN_NOT_OK(bad());
          break;
        }
        const uint32_t u =
            big ? (uint32_t{byte(i)} << 24) | (byte(i + 1) << 16) | (byte(i + 2) << 8) | byte(i + 3)
                : (uint32_t{byte(i + 3)} << 24) | (byte(i + 2) << 16) | (byte(i + 1) << 8) |
                      byte(i);
        if (u > 0x10FFFF || (u >= 0xD800 && u < 0xE000)) {
          SILT_RETURN_NOT_OK(bad());
          continue;
        }
        Utf8Encode(u, out);
      }
      return Status::OK();
    }
  }
  return Status::OK();
}

}  // namespace fn

namespace {

using fn::CheckArity;
using fn::CoerceArg;
using fn::MakeCall;
using fn::NullAt;
using fn::StrAt;
using Args = std::vector<ExprPtr>;

// Spark's ExpressionImplUtils.isLuhnNumber: digits only, not empty.
bool IsLuhnNumber(std::string_view s) {
  if (s.empty()) return false;
  int sum = 0;
  bool second = false;
  for (size_t i = s.size(); i-- > 0;) {
    const char c = s[i];
    if (c < '0' || c > '9') return false;
    int d = c - '0';
    if (second) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    second = !second;
  }
  return sum % 10 == 0;
}

// The string argument of a UTF-8 check: a STRING, or BINARY taken as the same bytes.
Status StringArg(std::string_view n, Args& a, const BindContext& c) {
  SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
  if (a[0]->type->id() == TypeId::kBinary) return Status::OK();
  return CoerceArg(n, a, 0, DataType::String(), c);
}

// "\x80"-style rendering of a string's invalid bytes, as Spark's INVALID_UTF8_STRING message.
std::string RenderInvalid(std::string_view s) {
  std::string out;
  size_t bad;
  for (size_t i = 0; i < s.size();) {
    const size_t n = fn::Utf8SequenceAt(s, i, &bad);
    if (n > 0) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    for (size_t k = 0; k < bad; ++k) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<uint8_t>(s[i + k]));
      out += buf;
    }
    i += bad;
  }
  return out;
}

}  // namespace

void RegisterStringCheckFunctions(FunctionRegistry& r) {
  Reg(r, {"luhn_check"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
    SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, DataType::String(), c));
    return MakeCall(std::string(n), DataType::Boolean(), std::move(a),
                    [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                      fn::FixedWriter<uint8_t> w(out, rows);
                      for (size_t i = 0; i < rows; ++i) {
                        if (NullAt(x[0], i)) {
                          w.SetNull(i);
                          continue;
                        }
                        w.Set(i, IsLuhnNumber(StrAt(x[0], i)) ? 1 : 0);
                      }
                      return Status::OK();
                    });
  });
  // quote(str): str in single quotes, each single quote in it preceded by a backslash.
  Reg(r, {"quote"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
    SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, DataType::String(), c));
    return MakeCall(std::string(n), DataType::String(), std::move(a),
                    [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                      fn::StringWriter w(out, rows);
                      for (size_t i = 0; i < rows; ++i) {
                        if (NullAt(x[0], i)) {
                          w.CommitNull();
                          continue;
                        }
                        std::string& b = w.buf();
                        b.push_back('\'');
                        for (char ch : StrAt(x[0], i)) {
                          if (ch == '\'') b.push_back('\\');
                          b.push_back(ch);
                        }
                        b.push_back('\'');
                        w.Commit();
                      }
                      w.Finish();
                      return Status::OK();
                    });
  });
  Reg(r, {"is_valid_utf8"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(StringArg(n, a, c));
        return MakeCall(std::string(n), DataType::Boolean(), std::move(a),
                        [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                          fn::FixedWriter<uint8_t> w(out, rows);
                          for (size_t i = 0; i < rows; ++i) {
                            if (NullAt(x[0], i)) {
                              w.SetNull(i);
                              continue;
                            }
                            w.Set(i, fn::IsValidUtf8(StrAt(x[0], i)) ? 1 : 0);
                          }
                          return Status::OK();
                        });
      });
  // make_valid_utf8: each maximal ill-formed subsequence becomes U+FFFD. validate_utf8: the
  // string, or INVALID_UTF8_STRING; try_validate_utf8: the string, or NULL.
  for (int kind = 0; kind < 3; ++kind) {
    static const char* kNames[] = {"make_valid_utf8", "validate_utf8", "try_validate_utf8"};
    Reg(r, {kNames[kind]},
        [kind](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
          SILT_RETURN_NOT_OK(StringArg(n, a, c));
          return MakeCall(
              std::string(n), DataType::String(), std::move(a),
              [kind](std::span<const Arg> x, size_t rows, const EvalContext&,
                     Vector* out) -> Status {
                fn::StringWriter w(out, rows);
                for (size_t i = 0; i < rows; ++i) {
                  if (NullAt(x[0], i)) {
                    w.CommitNull();
                    continue;
                  }
                  std::string_view s = StrAt(x[0], i);
                  if (kind == 0) {
                    fn::MakeValidUtf8(s, &w.buf());
                    w.Commit();
                  } else if (fn::IsValidUtf8(s)) {
                    w.Append(s);
                  } else if (kind == 2) {
                    w.CommitNull();
                  } else {
                    w.Finish();
                    return Status::InvalidArgument(
                        "Invalid UTF8 byte sequence found in string: " + RenderInvalid(s) + ".",
                        errc::kInvalidUtf8String);
                  }
                }
                w.Finish();
                return Status::OK();
              });
        });
  }
}

}  // namespace silt::exec
