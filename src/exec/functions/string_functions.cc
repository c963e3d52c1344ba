// Spark's string functions (stringExpressions.scala, regexpExpressions.scala): concatenation,
// case, length, substring/left/right, trim, padding, search, replace/translate, split,
// regular expressions (RE2 with Java-dialect translation), LIKE/ILIKE, encodings (base64, hex).
// In their own files: the Java regex translator (java_regex.cc), the LIKE matcher
// (like_matcher.cc), format_string/format_number (format_functions.cc) and the digests md5, sha1,
// sha2, crc32 (digest_functions.cc).
//
// Strings are UTF-8; character positions and lengths count code points as Spark's UTF8String
// does. Binary arguments keep byte semantics where Spark accepts them (length, substring,
// concat, lpad/rpad, reverse is string-only).
//
// TRIM(BOTH|LEADING|TRAILING x FROM s): the parser emits trim/ltrim/rtrim(x, s) — trim string
// first, source second, exactly as Spark's two-argument StringTrim/StringTrimLeft/Right
// constructors. btrim(s, x) takes them the other way round, as Spark's btrim does.
#include <locale.h>
#include <wctype.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <random>
#include <unordered_map>

#include "common/ascii.h"
#include "common/error_classes.h"
#include "exec/function_registry.h"
#include "exec/functions/function_util.h"
#include "exec/functions/regex_util.h"
#include "exec/functions/string_util.h"

namespace silt::exec {

namespace fn {

// ---------------------------------------------------------------------------------------------
// Base64 (declared in function_util.h)

constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void Base64Encode(std::string_view in, std::string* out, size_t line_length) {
  size_t line = 0;
  auto put = [&](char c) {
    if (line == line_length) {
      *out += "\r\n";
      line = 0;
    }
    out->push_back(c);
    ++line;
  };
  size_t i = 0;
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  for (; i + 3 <= in.size(); i += 3) {
    uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8) | p[i + 2];
    put(kB64[v >> 18]);
    put(kB64[(v >> 12) & 63]);
    put(kB64[(v >> 6) & 63]);
    put(kB64[v & 63]);
  }
  if (i + 1 == in.size()) {
    uint32_t v = uint32_t{p[i]} << 16;
    put(kB64[v >> 18]);
    put(kB64[(v >> 12) & 63]);
    put('=');
    put('=');
  } else if (i + 2 == in.size()) {
    uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8);
    put(kB64[v >> 18]);
    put(kB64[(v >> 12) & 63]);
    put(kB64[(v >> 6) & 63]);
    put('=');
  }
}

int B64Value(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

void Base64Decode(std::string_view in, std::string* out) {
  uint32_t acc = 0;
  int bits = 0;
  for (unsigned char c : in) {
    if (c == '=') break;
    int v = B64Value(c);
    if (v < 0) continue;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
}

}  // namespace fn

namespace {

using fn::AllConstant;
using fn::AppendCaseMapped;
using fn::B64Value;
using fn::Base64Decode;
using fn::Base64Encode;
using fn::CharRange;
using fn::CheckArity;
using fn::CoerceArg;
using fn::CoerceStringOrBinary;
using fn::ConstantOf;
using fn::FixedRows;
using fn::FixedWriter;
using fn::HexEncode;
using fn::MakeCall;
using fn::NullAt;
using fn::StrAt;
using fn::StringWriter;
using fn::StrRows;
using fn::TypeMismatch;
using fn::Utf8CharLen;
using fn::Utf8Decode;
using fn::Utf8Encode;
using fn::Utf8Length;
using fn::ValAt;

using Args = std::vector<ExprPtr>;

TypePtr Str() { return DataType::String(); }
TypePtr Int() { return DataType::Int32(); }

// Coerces all of args[from..] to string.
Status AllToString(std::string_view name, Args& args, const BindContext& ctx, size_t from = 0,
                   size_t to = SIZE_MAX) {
  for (size_t i = from; i < args.size() && i < to; ++i) {
    SILT_RETURN_NOT_OK(CoerceArg(name, args, i, Str(), ctx));
  }
  return Status::OK();
}

// A string constant argument's text; nullopt when not a constant; null constant → *is_null.
std::optional<std::string> ConstString(const ExprPtr& e, bool* is_null) {
  const Value* v = ConstantOf(e);
  if (!v) return std::nullopt;
  *is_null = v->is_null();
  if (v->is_null()) return std::string();
  return v->str();
}

// ---------------------------------------------------------------------------------------------
// Case mapping

locale_t Utf8Locale() {
  static locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  return loc;
}

}  // namespace

void fn::AppendCaseMapped(std::string_view s, bool upper, std::string* out) {
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (upper) {
        out->push_back(AsciiToUpper(static_cast<char>(c)));
      } else {
        out->push_back(AsciiToLower(static_cast<char>(c)));
      }
      ++i;
      continue;
    }
    uint32_t cp = Utf8Decode(s, &i);
    if (upper && cp == 0xDF) {  // ß → SS, as Java's String.toUpperCase
      *out += "SS";
      continue;
    }
    locale_t loc = Utf8Locale();
    uint32_t m = cp;
    if (loc) {
      m = static_cast<uint32_t>(upper ? towupper_l(static_cast<wint_t>(cp), loc)
                                      : towlower_l(static_cast<wint_t>(cp), loc));
    }
    Utf8Encode(m, out);
  }
}

namespace {

uint32_t TitleCase(uint32_t cp) {
  if (cp < 0x80) return cp >= 'a' && cp <= 'z' ? cp - 32 : cp;
  locale_t loc = Utf8Locale();
  return loc ? static_cast<uint32_t>(towupper_l(static_cast<wint_t>(cp), loc)) : cp;
}

ScalarKernel CaseKernel(bool upper) {
  return
      [upper](std::span<const Arg> args, size_t rows, const EvalContext&, Vector* out) -> Status {
        out->bytes().reserve(args[0].vector->bytes().size());
        return StrRows(args, rows, out, [&](size_t i, std::string& b, Status*) {
          AppendCaseMapped(StrAt(args[0], i), upper, &b);
          return true;
        });
      };
}

// ---------------------------------------------------------------------------------------------
// Substring helpers (Spark's UTF8String.substringSQL / ByteArray.subStringSQL)

}  // namespace

// Character [start, end) of s (end clamped); bytes when `binary`.
std::string_view fn::CharRange(std::string_view s, int64_t start, int64_t end, bool binary) {
  if (binary) {
    size_t b = static_cast<size_t>(std::min<int64_t>(start, static_cast<int64_t>(s.size())));
    size_t e = static_cast<size_t>(std::min<int64_t>(end, static_cast<int64_t>(s.size())));
    return s.substr(b, e > b ? e - b : 0);
  }
  size_t b = fn::Utf8Advance(s, 0, start);
  size_t e = fn::Utf8Advance(s, b, end - start);
  return s.substr(b, e - b);
}

namespace {

std::string_view SubstringSQL(std::string_view s, int64_t pos, int64_t len, bool binary) {
  int64_t start;
  if (pos > 0) {
    start = pos - 1;
  } else if (pos < 0) {
    int64_t n = binary ? static_cast<int64_t>(s.size()) : Utf8Length(s);
    start = n + pos;
  } else {
    start = 0;
  }
  int64_t end = start + len;
  start = std::max<int64_t>(start, 0);
  if (start >= end) return {};
  return CharRange(s, start, end, binary);
}

// ---------------------------------------------------------------------------------------------
// Trim

// Code points of a trim string (ASCII in a bitmap for the common case).
struct TrimSet {
  std::array<bool, 128> ascii{};
  std::vector<uint32_t> other;
  explicit TrimSet(std::string_view t) {
    size_t i = 0;
    while (i < t.size()) {
      uint32_t cp = Utf8Decode(t, &i);
      if (cp < 128) {
        ascii[cp] = true;
      } else {
        other.push_back(cp);
      }
    }
  }
  bool Has(uint32_t cp) const {
    if (cp < 128) return ascii[cp];
    return std::find(other.begin(), other.end(), cp) != other.end();
  }
};

std::string_view TrimWith(std::string_view s, const TrimSet& set, bool left, bool right) {
  size_t b = 0, e = s.size();
  if (left) {
    while (b < e) {
      size_t j = b;
      uint32_t cp = Utf8Decode(s, &j);
      if (!set.Has(cp)) break;
      b = j;
    }
  }
  if (right) {
    while (e > b) {
      size_t start = e - 1;
      while (start > b && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
      size_t j = start;
      uint32_t cp = Utf8Decode(s, &j);
      if (!set.Has(cp)) break;
      e = start;
    }
  }
  return s.substr(b, e - b);
}

std::string_view TrimSpaces(std::string_view s, bool left, bool right) {
  size_t b = 0, e = s.size();
  if (left) {
    while (b < e && s[b] == ' ') ++b;
  }
  if (right) {
    while (e > b && s[e - 1] == ' ') --e;
  }
  return s.substr(b, e - b);
}

// trim(str) / trim(trimStr, str) (and ltrim, rtrim); btrim(str[, trimStr]).
Result<ExprPtr> BindTrim(std::string_view name, Args& args, const BindContext& ctx, bool left,
                         bool right, bool btrim) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 1, 2));
  SILT_RETURN_NOT_OK(AllToString(name, args, ctx));
  if (args.size() == 1) {
    return MakeCall(
        std::string(name), Str(), std::move(args),
        [left, right](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
          return StrRows(a, rows, out, [&](size_t i, std::string& b, Status*) {
            b.append(TrimSpaces(StrAt(a[0], i), left, right));
            return true;
          });
        });
  }
  size_t src = btrim ? 0 : 1, trim = 1 - src;
  std::shared_ptr<const TrimSet> fixed;
  bool is_null = false;
  if (auto t = ConstString(args[trim], &is_null)) fixed = std::make_shared<TrimSet>(*t);
  return MakeCall(std::string(name), Str(), std::move(args),
                  [=](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                    return StrRows(a, rows, out, [&](size_t i, std::string& b, Status*) {
                      std::string_view s = StrAt(a[src], i);
                      if (fixed) {
                        b.append(TrimWith(s, *fixed, left, right));
                      } else {
                        b.append(TrimWith(s, TrimSet(StrAt(a[trim], i)), left, right));
                      }
                      return true;
                    });
                  });
}

// ---------------------------------------------------------------------------------------------
// Search

// Spark's UTF8String.indexOf(v, start): character index of v at or after character `start`,
// -1 when absent; 0 for an empty v.
int64_t IndexOfChars(std::string_view s, std::string_view v, int64_t start) {
  if (v.empty()) return 0;
  size_t b = fn::Utf8Advance(s, 0, start);
  if (fn::Utf8Length(s.substr(0, b)) < start) return -1;
  size_t at = s.find(v, b);
  if (at == std::string_view::npos) return -1;
  return start + Utf8Length(s.substr(b, at - b));
}

// ---------------------------------------------------------------------------------------------
// Regex evaluation helpers

// The compiled pattern of a regex argument: compiled at bind time when it is a literal, else
// per row with a one-entry cache (kernels build one per call, so no shared mutable state).
struct RegexSource {
  std::shared_ptr<const RE2> fixed;
  std::string func;
};

class RegexCache {
 public:
  explicit RegexCache(const RegexSource& src) : src_(src) {}
  Result<const RE2*> Get(std::string_view pattern) {
    if (src_.fixed) return src_.fixed.get();
    if (last_ && pattern == last_pattern_) return last_.get();
    SILT_ASSIGN_OR_RETURN(last_, fn::CompileJavaRegex(pattern, src_.func));
    last_pattern_ = std::string(pattern);
    return last_.get();
  }

 private:
  const RegexSource& src_;
  std::string last_pattern_;
  std::shared_ptr<const RE2> last_;
};

Result<RegexSource> PrepareRegex(std::string_view func, const ExprPtr& pattern) {
  RegexSource src;
  src.func = std::string(func);
  bool is_null = false;
  if (auto p = ConstString(pattern, &is_null); p && !is_null) {
    SILT_ASSIGN_OR_RETURN(src.fixed, fn::CompileJavaRegex(*p, func));
  }
  return src;
}

// Java Matcher.find() iteration from byte `from`: calls f(groups) for each match (groups[0] is
// the whole match); after an empty match the search resumes one character later.
template <typename F>
void ForEachMatch(const RE2& re, std::string_view text, size_t from, F&& f) {
  int ngroups = re.NumberOfCapturingGroups() + 1;
  std::vector<re2::StringPiece> pieces(static_cast<size_t>(ngroups));
  std::vector<std::string_view> groups(static_cast<size_t>(ngroups));
  size_t pos = from;
  while (pos <= text.size()) {
    if (!re.Match(text, pos, text.size(), RE2::UNANCHORED, pieces.data(), ngroups)) break;
    for (size_t g = 0; g < groups.size(); ++g)
      groups[g] = std::string_view(pieces[g].data(), pieces[g].size());
    size_t ms = static_cast<size_t>(groups[0].data() - text.data());
    size_t me = ms + groups[0].size();
    if (!f(groups, ms, me)) break;
    if (me == ms) {
      if (me >= text.size()) break;
      pos = me + static_cast<size_t>(Utf8CharLen(static_cast<uint8_t>(text[me])));
    } else {
      pos = me;
    }
  }
}

// Java's Matcher.appendReplacement syntax: $n / ${name} group references, \x escapes.
struct Replacement {
  struct Part {
    std::string literal;
    int group = -1;  // appended after literal when >= 0
  };
  std::vector<Part> parts;
};

Result<Replacement> ParseReplacement(std::string_view rep, const RE2& re) {
  Replacement r;
  r.parts.emplace_back();
  int group_count = re.NumberOfCapturingGroups();
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("Invalid replacement '" + std::string(rep) + "': " + why,
                                   errc::kInvalidParameterValue);
  };
  for (size_t i = 0; i < rep.size(); ++i) {
    char c = rep[i];
    if (c == '\\') {
      if (++i >= rep.size()) return bad("character to be escaped is missing");
      r.parts.back().literal += rep[i];
    } else if (c == '$') {
      if (++i >= rep.size()) return bad("Illegal group reference: group index is missing");
      int ref;
      if (rep[i] == '{') {
        size_t close = rep.find('}', i);
        if (close == std::string_view::npos) return bad("named capturing group is missing '}'");
        std::string name(rep.substr(i + 1, close - i - 1));
        auto it = re.NamedCapturingGroups().find(name);
        if (it == re.NamedCapturingGroups().end()) return bad("No group with name {" + name + "}");
        ref = it->second;
        i = close;
      } else {
        if (rep[i] < '0' || rep[i] > '9') return bad("Illegal group reference");
        ref = rep[i] - '0';
        while (i + 1 < rep.size() && rep[i + 1] >= '0' && rep[i + 1] <= '9') {
          int next = ref * 10 + (rep[i + 1] - '0');
          if (next > group_count) break;
          ref = next;
          ++i;
        }
        if (ref > group_count) return bad("No group " + std::to_string(ref));
      }
      r.parts.back().group = ref;
      r.parts.emplace_back();
    } else {
      r.parts.back().literal += c;
    }
  }
  return r;
}

void AppendReplacement(const Replacement& r, const std::vector<std::string_view>& groups,
                       std::string* out) {
  for (const auto& p : r.parts) {
    out->append(p.literal);
    if (p.group >= 0 && static_cast<size_t>(p.group) < groups.size() &&
        groups[static_cast<size_t>(p.group)].data() != nullptr) {
      out->append(groups[static_cast<size_t>(p.group)]);
    }
  }
}

Status GroupIndexError(std::string_view func, int count, int64_t index) {
  return Status::InvalidArgument("The value of parameter(s) `idx` in `" + std::string(func) +
                                     "` is invalid: Expects group index between 0 and " +
                                     std::to_string(count) + ", but got " + std::to_string(index) +
                                     ".",
                                 errc::kInvalidParameterValueRegexGroupIndex);
}

// Java's String.split(regex, limit) with Spark's tweaks (limit 0 → -1; empty regex splits into
// characters).
void SplitRegex(std::string_view s, const RE2& re, int32_t limit, Vector* elems) {
  if (limit == 0) limit = -1;
  if (!s.empty() && re.pattern().empty()) {
    int64_t n = Utf8Length(s);
    int64_t parts = (limit > n || limit <= 0) ? n : limit;
    size_t b = 0;
    for (int64_t k = 0; k + 1 < parts; ++k) {
      size_t len = static_cast<size_t>(Utf8CharLen(static_cast<uint8_t>(s[b])));
      elems->AppendString(s.substr(b, len));
      b += len;
    }
    elems->AppendString(s.substr(b));
    return;
  }
  std::vector<std::string_view> pieces;
  size_t index = 0;
  bool matched = false;
  ForEachMatch(re, s, 0, [&](const std::vector<std::string_view>&, size_t ms, size_t me) {
    if (limit > 0 && static_cast<int64_t>(pieces.size()) >= limit - 1) return false;
    if (index == 0 && ms == 0 && me == 0) return true;  // no leading empty piece
    pieces.push_back(s.substr(index, ms - index));
    index = me;
    matched = true;
    return true;
  });
  if (!matched) {
    elems->AppendString(s);
    return;
  }
  pieces.push_back(s.substr(index));
  if (limit < 0) {
    // Java keeps trailing empty strings for a negative limit.
  }
  for (std::string_view p : pieces) elems->AppendString(p);
}

// ---------------------------------------------------------------------------------------------
// Encodings

// Spark's strict base64 check (to_binary(s, 'base64')).
bool IsValidBase64(std::string_view s) {
  int64_t position = 0, pad = 0;
  for (unsigned char c : s) {
    if (B64Value(c) >= 0) {
      if (pad != 0) return false;
      ++position;
    } else if (c == '=') {
      ++pad;
      if (pad > 2 || position % 4 < 2) return false;
    } else if (c == ' ' || (c >= 9 && c <= 13) || (c >= 28 && c <= 31)) {
      if (pad != 0) return false;
    } else {
      return false;
    }
  }
  return pad > 0 ? (position + pad) % 4 == 0 : position % 4 != 1;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Spark's Hex.unhex: an odd length gets a leading 0; any non-hex digit → NULL.
bool HexDecode(std::string_view in, std::string* out) {
  size_t i = 0;
  if (in.size() % 2 == 1) {
    int v = HexValue(in[0]);
    if (v < 0) return false;
    out->push_back(static_cast<char>(v));
    i = 1;
  }
  for (; i < in.size(); i += 2) {
    int a = HexValue(in[i]), b = HexValue(in[i + 1]);
    if (a < 0 || b < 0) return false;
    out->push_back(static_cast<char>(a * 16 + b));
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Misc string algorithms

std::string Soundex(std::string_view s) {
  if (s.empty()) return std::string();
  unsigned char f = static_cast<unsigned char>(s[0]);
  if (f >= 'a' && f <= 'z') f = static_cast<unsigned char>(f - 32);
  if (f < 'A' || f > 'Z') return std::string(s);
  //                       ABCDEFGHIJKLMNOPQRSTUVWXYZ
  static const char* kCode = "01230120022455012623010202";
  std::string out(1, static_cast<char>(f));
  char last = kCode[f - 'A'];
  for (size_t i = 1; i < s.size() && out.size() < 4; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    c = static_cast<unsigned char>(AsciiToUpper(static_cast<char>(c)));
    if (c < 'A' || c > 'Z') {
      last = '0';
      continue;
    }
    char code = kCode[c - 'A'];
    if (c == 'H' || c == 'W') continue;  // do not separate equal codes
    if (code != '0' && code != last) out += code;
    last = code;
  }
  out.append(4 - out.size(), '0');
  return out;
}

std::vector<uint32_t> CodePoints(std::string_view s) {
  std::vector<uint32_t> cps;
  size_t i = 0;
  while (i < s.size()) cps.push_back(Utf8Decode(s, &i));
  return cps;
}

int64_t Levenshtein(std::string_view a, std::string_view b) {
  std::vector<uint32_t> x = CodePoints(a), y = CodePoints(b);
  if (x.empty()) return static_cast<int64_t>(y.size());
  if (y.empty()) return static_cast<int64_t>(x.size());
  std::vector<int64_t> prev(y.size() + 1), cur(y.size() + 1);
  for (size_t j = 0; j <= y.size(); ++j) prev[j] = static_cast<int64_t>(j);
  for (size_t i = 1; i <= x.size(); ++i) {
    cur[0] = static_cast<int64_t>(i);
    for (size_t j = 1; j <= y.size(); ++j) {
      int64_t cost = x[i - 1] == y[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
    }
    std::swap(prev, cur);
  }
  return prev[y.size()];
}

// Spark's substring_index: before the count-th delimiter (count > 0) or after the count-th
// from the end (count < 0).
std::string_view SubstringIndex(std::string_view s, std::string_view delim, int32_t count) {
  if (delim.empty() || count == 0) return {};
  if (count > 0) {
    size_t pos = 0;
    for (int32_t k = 0; k < count; ++k) {
      size_t at = s.find(delim, pos);
      if (at == std::string_view::npos) return s;
      if (k == count - 1) return s.substr(0, at);
      pos = at + delim.size();
    }
    return s;
  }
  size_t end = s.size();
  for (int32_t k = 0; k < -static_cast<int64_t>(count); ++k) {
    if (end == 0) return s;
    size_t at = s.rfind(delim, end - 1 >= delim.size() ? end - delim.size() : 0);
    if (at == std::string_view::npos || at + delim.size() > end) return s;
    if (k == -count - 1) return s.substr(at + delim.size());
    if (at == 0) return s;
    end = at;
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// Binders

Result<ExprPtr> BindConcat(std::string_view name, Args& args, const BindContext& ctx) {
  bool all_binary = !args.empty();
  bool any_array = false;
  for (const ExprPtr& e : args) {
    all_binary = all_binary && e->type->id() == TypeId::kBinary;
    any_array = any_array || e->type->id() == TypeId::kList;
  }
  if (any_array) {
    TypePtr common = args[0]->type;
    for (size_t i = 1; i < args.size(); ++i) {
      SILT_ASSIGN_OR_RETURN(common, CommonType(common, args[i]->type));
    }
    if (common->id() != TypeId::kList) {
      return TypeMismatch(name,
                          "input to function concat should have been string, binary or "
                          "array, but it's [" +
                              common->ToString() + "]");
    }
    for (size_t i = 0; i < args.size(); ++i) {
      SILT_ASSIGN_OR_RETURN(args[i], CoerceTo(args[i], common, ctx));
    }
    return MakeCall(std::string(name), common, std::move(args),
                    [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                      Vector& elems = out->child(0);
                      for (size_t i = 0; i < rows; ++i) {
                        if (AnyNull(a, i)) {
                          out->AppendNull();
                          continue;
                        }
                        for (const Arg& x : a) {
                          size_t r = x.index(i);
                          const uint32_t* off = x.vector->offsets();
                          elems.AppendRange(x.vector->child(0), off[r], off[r + 1] - off[r]);
                        }
                        out->FinishListRow();
                      }
                      return Status::OK();
                    });
  }
  TypePtr t = all_binary ? DataType::Binary() : Str();
  for (size_t i = 0; i < args.size(); ++i) {
    SILT_RETURN_NOT_OK(CoerceArg(name, args, i, t, ctx));
  }
  return MakeCall(std::string(name), t, std::move(args),
                  [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                    return StrRows(a, rows, out, [&](size_t i, std::string& b, Status*) {
                      for (const Arg& x : a) b.append(StrAt(x, i));
                      return true;
                    });
                  });
}

Result<ExprPtr> BindConcatWs(std::string_view name, Args& args, const BindContext& ctx) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 1, SIZE_MAX));
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0 && args[i]->type->id() == TypeId::kList) {
      SILT_ASSIGN_OR_RETURN(args[i], CoerceTo(args[i], DataType::List(Str()), ctx));
    } else {
      SILT_RETURN_NOT_OK(CoerceArg(name, args, i, Str(), ctx));
    }
  }
  return MakeCall(std::string(name), Str(), std::move(args),
                  [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                    StringWriter w(out, rows);
                    for (size_t i = 0; i < rows; ++i) {
                      if (NullAt(a[0], i)) {
                        w.CommitNull();
                        continue;
                      }
                      std::string_view sep = StrAt(a[0], i);
                      bool first = true;
                      auto add = [&](std::string_view s) {
                        if (!first) w.buf().append(sep);
                        w.buf().append(s);
                        first = false;
                      };
                      for (size_t k = 1; k < a.size(); ++k) {
                        if (NullAt(a[k], i)) continue;
                        size_t r = a[k].index(i);
                        if (a[k].vector->id() == TypeId::kList) {
                          const Vector& el = a[k].vector->child(0);
                          const uint32_t* off = a[k].vector->offsets();
                          for (uint32_t j = off[r]; j < off[r + 1]; ++j) {
                            if (!el.IsNull(j)) add(el.GetString(j));
                          }
                        } else {
                          add(a[k].vector->GetString(r));
                        }
                      }
                      w.Commit();
                    }
                    w.Finish();
                    return Status::OK();
                  });
}

Result<ExprPtr> BindLength(std::string_view name, Args& args, const BindContext& ctx, int kind) {
  // kind 0: characters (bytes for binary), 1: octets, 2: bits
  SILT_RETURN_NOT_OK(CheckArity(name, args, 1, 1));
  SILT_RETURN_NOT_OK(CoerceStringOrBinary(name, args, 0, ctx));
  bool binary = args[0]->type->id() == TypeId::kBinary;
  return MakeCall(
      std::string(name), Int(), std::move(args),
      [kind, binary](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
        FixedWriter<int32_t> w(out, rows);
        const Vector& v = *a[0].vector;
        const uint32_t* off = v.offsets();
        const char* bytes = v.bytes().data();
        for (size_t i = 0; i < rows; ++i) {
          size_t r = a[0].index(i);
          if (v.IsNull(r)) {
            w.SetNull(i);
            continue;
          }
          int64_t n = off[r + 1] - off[r];
          if (kind == 0 && !binary) {
            n = Utf8Length(std::string_view(bytes + off[r], static_cast<size_t>(n)));
          } else if (kind == 2) {
            n *= 8;
          }
          w.Set(i, static_cast<int32_t>(n));
        }
        return Status::OK();
      });
}

Result<ExprPtr> BindSubstring(std::string_view name, Args& args, const BindContext& ctx) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 3));
  SILT_RETURN_NOT_OK(CoerceStringOrBinary(name, args, 0, ctx));
  for (size_t i = 1; i < args.size(); ++i) {
    SILT_RETURN_NOT_OK(CoerceArg(name, args, i, Int(), ctx));
  }
  TypePtr t = args[0]->type;
  bool binary = t->id() == TypeId::kBinary;
  return MakeCall(std::string(name), t, std::move(args),
                  [binary](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                    bool has_len = a.size() == 3;
                    return StrRows(a, rows, out, [&](size_t i, std::string& b, Status*) {
                      int64_t len = has_len ? ValAt<int32_t>(a[2], i) : INT32_MAX;
                      b.append(SubstringSQL(StrAt(a[0], i), ValAt<int32_t>(a[1], i), len, binary));
                      return true;
                    });
                  });
}

Result<ExprPtr> BindLeftRight(std::string_view name, Args& args, const BindContext& ctx,
                              bool left) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 2));
  SILT_RETURN_NOT_OK(CoerceStringOrBinary(name, args, 0, ctx));
  SILT_RETURN_NOT_OK(CoerceArg(name, args, 1, Int(), ctx));
  TypePtr t = args[0]->type;
  bool binary = t->id() == TypeId::kBinary;
  return MakeCall(
      std::string(name), t, std::move(args),
      [binary, left](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
        return StrRows(a, rows, out, [&](size_t i, std::string& b, Status*) {
          int64_t n = ValAt<int32_t>(a[1], i);
          if (n <= 0) return true;
          b.append(SubstringSQL(StrAt(a[0], i), left ? 1 : -n, n, binary));
          return true;
        });
      });
}

void PadString(std::string_view s, int64_t len, std::string_view pad, bool left, bool binary,
               std::string* out) {
  int64_t n = binary ? static_cast<int64_t>(s.size()) : Utf8Length(s);
  int64_t spaces = len - n;
  if (spaces <= 0 || pad.empty()) {
    if (len > 0) out->append(CharRange(s, 0, len, binary));
    return;
  }
  int64_t pad_chars = binary ? static_cast<int64_t>(pad.size()) : Utf8Length(pad);
  int64_t count = spaces / pad_chars;
  std::string_view remain = CharRange(pad, 0, spaces - pad_chars * count, binary);
  if (!left) out->append(s);
  for (int64_t k = 0; k < count; ++k) out->append(pad);
  out->append(remain);
  if (left) out->append(s);
}

Result<ExprPtr> BindPad(std::string_view name, Args& args, const BindContext& ctx, bool left) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 3));
  bool binary = args[0]->type->id() == TypeId::kBinary &&
                (args.size() == 2 || args[2]->type->id() == TypeId::kBinary);
  TypePtr t = binary ? DataType::Binary() : Str();
  SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, t, ctx));
  SILT_RETURN_NOT_OK(CoerceArg(name, args, 1, Int(), ctx));
  if (args.size() == 3) {
    SILT_RETURN_NOT_OK(CoerceArg(name, args, 2, t, ctx));
  }
  return MakeCall(
      std::string(name), t, std::move(args),
      [binary, left](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
        std::string_view def = binary ? std::string_view("\0", 1) : " ";
        // At most `len` characters of the input or the pad, up to 4 bytes each.
        SILT_RETURN_NOT_OK(
            fn::ReserveStringRows(left ? "lpad" : "rpad", a, rows, out, [&](size_t i) {
              int64_t len = ValAt<int32_t>(a[1], i);
              std::string_view s = StrAt(a[0], i);
              if (len <= static_cast<int64_t>(s.size())) return len;
              std::string_view pad = a.size() == 3 ? StrAt(a[2], i) : def;
              if (pad.empty()) return static_cast<int64_t>(s.size());
              int64_t chars = binary ? len : len - Utf8Length(s);
              int64_t per = binary ? 1
                                   : (static_cast<int64_t>(pad.size()) + Utf8Length(pad) - 1) /
                                         Utf8Length(pad);
              return static_cast<int64_t>(s.size()) + chars * per;
            }));
        return StrRows(a, rows, out, [&](size_t i, std::string& b, Status* st) {
          std::string_view pad = a.size() == 3 ? StrAt(a[2], i) : def;
          // The result has `len` characters, up to 4 bytes each (pad characters).
          int64_t len = ValAt<int32_t>(a[1], i);
          int64_t width = binary ? 1
                                 : std::max<int64_t>(1, static_cast<int64_t>(pad.size()) /
                                                            std::max<int64_t>(1, Utf8Length(pad)));
          if (len > 0 && !pad.empty()) {
            *st = fn::CheckStringGrowth(left ? "lpad" : "rpad", b, len * width);
            if (!st->ok()) return false;
          }
          PadString(StrAt(a[0], i), ValAt<int32_t>(a[1], i), pad, left, binary, &b);
          return true;
        });
      });
}

// locate(substr, str[, pos]) / position: a NULL pos gives 0, not NULL (Hive compatibility).
Result<ExprPtr> BindLocate(std::string_view name, Args& args, const BindContext& ctx) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 3));
  SILT_RETURN_NOT_OK(AllToString(name, args, ctx, 0, 2));
  if (args.size() == 3) {
    SILT_RETURN_NOT_OK(CoerceArg(name, args, 2, Int(), ctx));
  }
  return MakeCall(std::string(name), Int(), std::move(args),
                  [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                    FixedWriter<int32_t> w(out, rows);
                    for (size_t i = 0; i < rows; ++i) {
                      int64_t start = 1;
                      if (a.size() == 3) {
                        if (NullAt(a[2], i)) {
                          w.Set(i, 0);
                          continue;
                        }
                        start = ValAt<int32_t>(a[2], i);
                      }
                      if (NullAt(a[0], i) || NullAt(a[1], i)) {
                        w.SetNull(i);
                        continue;
                      }
                      if (start < 1) {
                        w.Set(i, 0);
                        continue;
                      }
                      w.Set(i, static_cast<int32_t>(
                                   IndexOfChars(StrAt(a[1], i), StrAt(a[0], i), start - 1) + 1));
                    }
                    return Status::OK();
                  });
}

// instr(str, substr[, start[, occurrence]]) as Spark 4.1 has it (Oracle's INSTR): the 1-based
// character position of the occurrence-th match of substr, searching forward from character
// `start`, or backward from character len + start + 1 when start is negative (a match counts when
// it begins at or before that character); matches may overlap. 0 when there is none, when start
// is 0 or out of range; 1 for an empty substr.
Result<int32_t> InstrAt(std::string_view s, std::string_view sub, int64_t start,
                        int64_t occurrence) {
  if (occurrence < 1) {
    return Status::InvalidArgument(
        "The value of parameter(s) `occurrence` in `instr` is invalid: expects a positive "
        "value, but got " +
            std::to_string(occurrence) + ".",
        errc::kInvalidParameterValue);
  }
  if (sub.empty()) return 1;
  if (start == 0) return 0;
  // Byte offsets of the matches, in order, with their character positions.
  std::vector<std::pair<size_t, int64_t>> matches;
  size_t at = 0;
  int64_t chars = 0;  // characters before `at`
  size_t pos = 0;
  while ((pos = s.find(sub, pos)) != std::string_view::npos) {
    chars += static_cast<int64_t>(fn::Utf8Length(s.substr(at, pos - at)));
    at = pos;
    matches.emplace_back(pos, chars + 1);
    pos = fn::Utf8Advance(s, pos, 1);  // overlapping: next search one character on
  }
  if (start > 0) {
    for (const auto& m : matches) {
      if (m.second >= start && --occurrence == 0) return static_cast<int32_t>(m.second);
    }
    return 0;
  }
  const int64_t last = static_cast<int64_t>(fn::Utf8Length(s)) + start + 1;
  for (auto it = matches.rbegin(); it != matches.rend(); ++it) {
    if (it->second <= last && --occurrence == 0) return static_cast<int32_t>(it->second);
  }
  return 0;
}

Result<ExprPtr> BindInstr(std::string_view name, Args& args, const BindContext& ctx) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 4));
  SILT_RETURN_NOT_OK(AllToString(name, args, ctx, 0, 2));
  // Spark shows the defaults in the column name: instr(s, sub, 1, 1).
  while (args.size() < 4) args.push_back(MakeConstant(Value::Int32(1)));
  SILT_RETURN_NOT_OK(CoerceArg(name, args, 2, Int(), ctx));
  SILT_RETURN_NOT_OK(CoerceArg(name, args, 3, Int(), ctx));
  return MakeCall(std::string(name), Int(), std::move(args),
                  [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                    return FixedRows<int32_t>(a, rows, out, [&](size_t i, int32_t* v, Status* st) {
                      auto r = InstrAt(StrAt(a[0], i), StrAt(a[1], i), ValAt<int32_t>(a[2], i),
                                       ValAt<int32_t>(a[3], i));
                      if (!r.ok()) {
                        *st = r.status();
                        return false;
                      }
                      *v = *r;
                      return true;
                    });
                  });
}

Result<ExprPtr> BindTranslate(std::string_view name, Args& args, const BindContext& ctx) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 3, 3));
  SILT_RETURN_NOT_OK(AllToString(name, args, ctx));
  return MakeCall(std::string(name), Str(), std::move(args),
                  [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                    std::string last_from, last_to;
                    std::unordered_map<uint32_t, int64_t> dict;  // cp → replacement or -1
                    bool built = false;
                    return StrRows(a, rows, out, [&](size_t i, std::string& b, Status*) {
                      std::string_view from = StrAt(a[1], i), to = StrAt(a[2], i);
                      if (!built || from != last_from || to != last_to) {
                        dict.clear();
                        std::vector<uint32_t> f = CodePoints(from), t = CodePoints(to);
                        for (size_t k = 0; k < f.size(); ++k) {
                          dict.emplace(f[k], k < t.size() ? static_cast<int64_t>(t[k]) : -1);
                        }
                        last_from = std::string(from);
                        last_to = std::string(to);
                        built = true;
                      }
                      std::string_view s = StrAt(a[0], i);
                      size_t p = 0;
                      while (p < s.size()) {
                        size_t q = p;
                        uint32_t cp = Utf8Decode(s, &q);
                        auto it = dict.find(cp);
                        if (it == dict.end()) {
                          b.append(s.substr(p, q - p));
                        } else if (it->second >= 0) {
                          Utf8Encode(static_cast<uint32_t>(it->second), &b);
                        }
                        p = q;
                      }
                      return true;
                    });
                  });
}

Result<ExprPtr> BindReverse(std::string_view name, Args& args, const BindContext& ctx) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 1, 1));
  if (args[0]->type->id() == TypeId::kList) {
    TypePtr t = args[0]->type;
    return MakeCall(std::string(name), t, std::move(args),
                    [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                      Vector& elems = out->child(0);
                      const Vector& in = *a[0].vector;
                      for (size_t i = 0; i < rows; ++i) {
                        size_t r = a[0].index(i);
                        if (in.IsNull(r)) {
                          out->AppendNull();
                          continue;
                        }
                        const uint32_t* off = in.offsets();
                        std::vector<uint32_t> sel;
                        for (uint32_t j = off[r + 1]; j > off[r]; --j) sel.push_back(j - 1);
                        elems.AppendSelected(in.child(0), sel.data(), sel.size());
                        out->FinishListRow();
                      }
                      return Status::OK();
                    });
  }
  SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, Str(), ctx));
  return MakeCall(std::string(name), Str(), std::move(args),
                  [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                    return StrRows(a, rows, out, [&](size_t i, std::string& b, Status*) {
                      std::string_view s = StrAt(a[0], i);
                      size_t e = s.size();
                      while (e > 0) {
                        size_t start = e - 1;
                        while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) {
                          --start;
                        }
                        b.append(s.substr(start, e - start));
                        e = start;
                      }
                      return true;
                    });
                  });
}

Result<ExprPtr> BindRegexBool(std::string_view name, Args& args, const BindContext& ctx) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 2));
  SILT_RETURN_NOT_OK(AllToString(name, args, ctx));
  SILT_ASSIGN_OR_RETURN(RegexSource src, PrepareRegex(name, args[1]));
  return MakeCall(std::string(name), DataType::Boolean(), std::move(args),
                  [src](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                    RegexCache cache(src);
                    return FixedRows<uint8_t>(a, rows, out, [&](size_t i, uint8_t* v, Status* st) {
                      auto re = cache.Get(StrAt(a[1], i));
                      if (!re.ok()) {
                        *st = re.status();
                        return false;
                      }
                      *v = RE2::PartialMatch(StrAt(a[0], i), **re) ? 1 : 0;
                      return true;
                    });
                  });
}

Result<ExprPtr> BindRegexpReplace(std::string_view name, Args& args, const BindContext& ctx) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 3, 4));
  SILT_RETURN_NOT_OK(AllToString(name, args, ctx, 0, 3));
  if (args.size() == 4) {
    SILT_RETURN_NOT_OK(CoerceArg(name, args, 3, Int(), ctx));
    const Value* pos = ConstantOf(args[3]);
    if (!pos) {
      return TypeMismatch(name, "the position argument must be a constant");
    }
    if (!pos->is_null() && pos->integer() <= 0) {
      return TypeMismatch(
          name, "The `position` must be positive, but got " + std::to_string(pos->integer()) + ".");
    }
  }
  SILT_ASSIGN_OR_RETURN(RegexSource src, PrepareRegex(name, args[1]));
  std::shared_ptr<const Replacement> fixed_rep;
  bool is_null = false;
  if (auto rep = ConstString(args[2], &is_null); rep && !is_null && src.fixed) {
    SILT_ASSIGN_OR_RETURN(Replacement r, ParseReplacement(*rep, *src.fixed));
    fixed_rep = std::make_shared<Replacement>(std::move(r));
  }
  return MakeCall(
      std::string(name), Str(), std::move(args),
      [src, fixed_rep](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
        RegexCache cache(src);
        return StrRows(a, rows, out, [&](size_t i, std::string& b, Status* st) {
          auto re = cache.Get(StrAt(a[1], i));
          if (!re.ok()) {
            *st = re.status();
            return false;
          }
          Replacement local;
          const Replacement* rep = fixed_rep.get();
          if (!rep) {
            auto parsed = ParseReplacement(StrAt(a[2], i), **re);
            if (!parsed.ok()) {
              *st = parsed.status();
              return false;
            }
            local = std::move(*parsed);
            rep = &local;
          }
          std::string_view s = StrAt(a[0], i);
          int64_t pos = a.size() == 4 ? ValAt<int32_t>(a[3], i) - 1 : 0;
          size_t from = fn::Utf8Advance(s, 0, pos);
          if (pos != 0 && from >= s.size()) {
            b.append(s);
            return true;
          }
          size_t last = 0;
          ForEachMatch(**re, s, from,
                       [&](const std::vector<std::string_view>& g, size_t ms, size_t me) {
                         b.append(s.substr(last, ms - last));
                         AppendReplacement(*rep, g, &b);
                         last = me;
                         return true;
                       });
          b.append(s.substr(last));
          return true;
        });
      });
}

Result<ExprPtr> BindRegexpExtract(std::string_view name, Args& args, const BindContext& ctx,
                                  bool all) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 3));
  SILT_RETURN_NOT_OK(AllToString(name, args, ctx, 0, 2));
  if (args.size() == 3) {
    SILT_RETURN_NOT_OK(CoerceArg(name, args, 2, Int(), ctx));
  }
  SILT_ASSIGN_OR_RETURN(RegexSource src, PrepareRegex(name, args[1]));
  std::string func(name);
  auto group_of = [func](const std::vector<std::string_view>& g, int64_t idx, Status* st) {
    int count = static_cast<int>(g.size()) - 1;
    if (idx < 0 || idx > count) {
      *st = GroupIndexError(func, count, idx);
      return std::string_view();
    }
    std::string_view v = g[static_cast<size_t>(idx)];
    return v.data() ? v : std::string_view();
  };
  if (!all) {
    return MakeCall(
        func, Str(), std::move(args),
        [src, group_of](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
          RegexCache cache(src);
          return StrRows(a, rows, out, [&](size_t i, std::string& b, Status* st) {
            auto re = cache.Get(StrAt(a[1], i));
            if (!re.ok()) {
              *st = re.status();
              return false;
            }
            int64_t idx = a.size() == 3 ? ValAt<int32_t>(a[2], i) : 1;
            ForEachMatch(**re, StrAt(a[0], i), 0,
                         [&](const std::vector<std::string_view>& g, size_t, size_t) {
                           b.append(group_of(g, idx, st));
                           return false;
                         });
            return true;
          });
        });
  }
  return MakeCall(
      func, DataType::List(Str()), std::move(args),
      [src, group_of](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
        RegexCache cache(src);
        Vector& elems = out->child(0);
        for (size_t i = 0; i < rows; ++i) {
          if (AnyNull(a, i)) {
            out->AppendNull();
            continue;
          }
          SILT_ASSIGN_OR_RETURN(const RE2* re, cache.Get(StrAt(a[1], i)));
          int64_t idx = a.size() == 3 ? ValAt<int32_t>(a[2], i) : 1;
          Status st;
          ForEachMatch(*re, StrAt(a[0], i), 0,
                       [&](const std::vector<std::string_view>& g, size_t, size_t) {
                         std::string_view v = group_of(g, idx, &st);
                         if (!st.ok()) return false;
                         elems.AppendString(v);
                         return true;
                       });
          SILT_RETURN_NOT_OK(st);
          out->FinishListRow();
        }
        return Status::OK();
      });
}

// regexp_count / regexp_substr / regexp_instr (Spark 3.4+).
Result<ExprPtr> BindRegexpOther(std::string_view name, Args& args, const BindContext& ctx,
                                int kind) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 2, kind == 2 ? 3 : 2));
  SILT_RETURN_NOT_OK(AllToString(name, args, ctx, 0, 2));
  if (args.size() == 3) {
    SILT_RETURN_NOT_OK(CoerceArg(name, args, 2, Int(), ctx));
  }
  SILT_ASSIGN_OR_RETURN(RegexSource src, PrepareRegex(name, args[1]));
  if (kind == 1) {
    return MakeCall(std::string(name), Str(), std::move(args),
                    [src](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                      RegexCache cache(src);
                      return StrRows(a, rows, out, [&](size_t i, std::string& b, Status* st) {
                        auto re = cache.Get(StrAt(a[1], i));
                        if (!re.ok()) {
                          *st = re.status();
                          return false;
                        }
                        bool found = false;
                        ForEachMatch(**re, StrAt(a[0], i), 0,
                                     [&](const std::vector<std::string_view>& g, size_t, size_t) {
                                       b.append(g[0]);
                                       found = true;
                                       return false;
                                     });
                        return found;
                      });
                    });
  }
  return MakeCall(
      std::string(name), Int(), std::move(args),
      [src, kind](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
        RegexCache cache(src);
        return FixedRows<int32_t>(a, rows, out, [&](size_t i, int32_t* v, Status* st) {
          auto re = cache.Get(StrAt(a[1], i));
          if (!re.ok()) {
            *st = re.status();
            return false;
          }
          std::string_view s = StrAt(a[0], i);
          int32_t n = 0;
          ForEachMatch(**re, s, 0, [&](const std::vector<std::string_view>&, size_t ms, size_t) {
            if (kind == 0) {
              ++n;
              return true;
            }
            n = static_cast<int32_t>(Utf8Length(s.substr(0, ms))) + 1;
            return false;
          });
          *v = n;
          return true;
        });
      });
}

Result<ExprPtr> BindSplit(std::string_view name, Args& args, const BindContext& ctx) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 3));
  SILT_RETURN_NOT_OK(AllToString(name, args, ctx, 0, 2));
  if (args.size() == 3) {
    SILT_RETURN_NOT_OK(CoerceArg(name, args, 2, Int(), ctx));
  }
  SILT_ASSIGN_OR_RETURN(RegexSource src, PrepareRegex(name, args[1]));
  return MakeCall(std::string(name), DataType::List(Str(), false), std::move(args),
                  [src](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                    RegexCache cache(src);
                    for (size_t i = 0; i < rows; ++i) {
                      if (AnyNull(a, i)) {
                        out->AppendNull();
                        continue;
                      }
                      SILT_ASSIGN_OR_RETURN(const RE2* re, cache.Get(StrAt(a[1], i)));
                      int32_t limit = a.size() == 3 ? ValAt<int32_t>(a[2], i) : -1;
                      SplitRegex(StrAt(a[0], i), *re, limit, &out->child(0));
                      out->FinishListRow();
                    }
                    return Status::OK();
                  });
}

Result<ExprPtr> BindSplitPart(std::string_view name, Args& args, const BindContext& ctx) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 3, 3));
  SILT_RETURN_NOT_OK(AllToString(name, args, ctx, 0, 2));
  SILT_RETURN_NOT_OK(CoerceArg(name, args, 2, Int(), ctx));
  return MakeCall(std::string(name), Str(), std::move(args),
                  [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                    return StrRows(a, rows, out, [&](size_t i, std::string& b, Status* st) {
                      int32_t part = ValAt<int32_t>(a[2], i);
                      if (part == 0) {
                        *st = Status::InvalidArgument(
                            "The index 0 is invalid. An index shall be either < 0 or > 0 (the "
                            "first element has index 1).",
                            errc::kInvalidIndexOfZero);
                        return false;
                      }
                      std::string_view s = StrAt(a[0], i), d = StrAt(a[1], i);
                      std::vector<std::string_view> parts;
                      if (d.empty()) {
                        parts.push_back(s);
                      } else {
                        size_t pos = 0;
                        while (true) {
                          size_t at = s.find(d, pos);
                          if (at == std::string_view::npos) break;
                          parts.push_back(s.substr(pos, at - pos));
                          pos = at + d.size();
                        }
                        parts.push_back(s.substr(pos));
                      }
                      int64_t n = static_cast<int64_t>(parts.size());
                      int64_t k = part > 0 ? part - 1 : n + part;
                      if (k >= 0 && k < n) b.append(parts[static_cast<size_t>(k)]);
                      return true;
                    });
                  });
}

Result<ExprPtr> BindLike(std::string_view name, Args& args, const BindContext& ctx, bool ilike) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 3));
  uint32_t escape = '\\';
  if (args.size() == 3) {
    const Value* e = ConstantOf(args[2]);
    if (!e || e->is_null() || e->type()->id() != TypeId::kString) {
      return TypeMismatch(name, "the escape argument must be a string literal");
    }
    std::string_view esc = e->str();
    size_t p = 0;
    if (esc.empty() || (escape = Utf8Decode(esc, &p), p != esc.size())) {
      return Status::InvalidArgument(
          "The escape character must be a single character, got '" + std::string(esc) + "'.",
          errc::kInvalidEscapeChar);
    }
    args.pop_back();
  }
  SILT_RETURN_NOT_OK(AllToString(name, args, ctx));
  std::shared_ptr<const fn::LikeMatcher> fixed;
  bool is_null = false;
  if (auto p = ConstString(args[1], &is_null); p && !is_null) {
    std::string pat = *p;
    if (ilike) {
      pat.clear();
      AppendCaseMapped(*p, false, &pat);
    }
    SILT_ASSIGN_OR_RETURN(fn::LikeMatcher m, fn::LikeMatcher::Compile(pat, escape));
    fixed = std::make_shared<fn::LikeMatcher>(std::move(m));
  }
  return MakeCall(std::string(name), DataType::Boolean(), std::move(args),
                  [fixed, escape, ilike](std::span<const Arg> a, size_t rows, const EvalContext&,
                                         Vector* out) -> Status {
                    std::string lowered, last_pattern;
                    std::optional<fn::LikeMatcher> local;
                    if (fixed && !ilike && !a[0].constant) {
                      // Hot path: a literal pattern over a column.
                      FixedWriter<uint8_t> w(out, rows);
                      const Vector& v = *a[0].vector;
                      for (size_t i = 0; i < rows; ++i) {
                        if (v.IsNull(i)) {
                          w.SetNull(i);
                        } else {
                          w.Set(i, fixed->Match(v.GetString(i)) ? 1 : 0);
                        }
                      }
                      return Status::OK();
                    }
                    return FixedRows<uint8_t>(a, rows, out, [&](size_t i, uint8_t* r, Status* st) {
                      const fn::LikeMatcher* m = fixed.get();
                      if (!m) {
                        std::string_view pat = StrAt(a[1], i);
                        if (!local || pat != last_pattern) {
                          std::string p(pat);
                          if (ilike) {
                            p.clear();
                            AppendCaseMapped(pat, false, &p);
                          }
                          auto c = fn::LikeMatcher::Compile(p, escape);
                          if (!c.ok()) {
                            *st = c.status();
                            return false;
                          }
                          local = std::move(*c);
                          last_pattern = std::string(pat);
                        }
                        m = &*local;
                      }
                      std::string_view s = StrAt(a[0], i);
                      if (ilike) {
                        lowered.clear();
                        AppendCaseMapped(s, false, &lowered);
                        s = lowered;
                      }
                      *r = m->Match(s) ? 1 : 0;
                      return true;
                    });
                  });
}

Result<ExprPtr> BindStartsEnds(std::string_view name, Args& args, const BindContext& ctx,
                               int kind) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 2));
  bool binary = args[0]->type->id() == TypeId::kBinary && args[1]->type->id() == TypeId::kBinary;
  TypePtr t = binary ? DataType::Binary() : Str();
  SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, t, ctx));
  SILT_RETURN_NOT_OK(CoerceArg(name, args, 1, t, ctx));
  return MakeCall(std::string(name), DataType::Boolean(), std::move(args),
                  [kind](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                    return FixedRows<uint8_t>(a, rows, out, [&](size_t i, uint8_t* r, Status*) {
                      std::string_view s = StrAt(a[0], i), p = StrAt(a[1], i);
                      bool m = kind == 0 ? s.substr(0, p.size()) == p
                               : kind == 1
                                   ? (s.size() >= p.size() && s.substr(s.size() - p.size()) == p)
                                   : s.find(p) != std::string_view::npos;
                      *r = m ? 1 : 0;
                      return true;
                    });
                  });
}

// Unary string → string function with a per-row body.
template <typename F>
Result<ExprPtr> BindUnaryString(std::string_view name, Args& args, const BindContext& ctx,
                                TypePtr in, TypePtr result, F body) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 1, 1));
  SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, in, ctx));
  return MakeCall(std::string(name), std::move(result), std::move(args),
                  [body](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                    return StrRows(a, rows, out, [&](size_t i, std::string& b, Status* st) {
                      return body(StrAt(a[0], i), &b, st);
                    });
                  });
}

}  // namespace

void RegisterStringFunctions(FunctionRegistry& r) {
  Reg(r, {"concat", "||"}, BindConcat);
  Reg(r, {"concat_ws"}, BindConcatWs);
  Reg(r, {"upper", "ucase"},
      [](std::string_view name, Args& args, const BindContext& ctx) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(name, args, 1, 1));
        SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, Str(), ctx));
        return MakeCall(std::string(name), Str(), std::move(args), CaseKernel(true));
      });
  Reg(r, {"lower", "lcase"},
      [](std::string_view name, Args& args, const BindContext& ctx) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(name, args, 1, 1));
        SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, Str(), ctx));
        return MakeCall(std::string(name), Str(), std::move(args), CaseKernel(false));
      });
  Reg(r, {"length", "char_length", "character_length", "len"},
      [](std::string_view name, Args& args, const BindContext& ctx) {
        return BindLength(name, args, ctx, 0);
      });
  Reg(r, {"octet_length"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindLength(name, args, ctx, 1);
  });
  Reg(r, {"bit_length"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindLength(name, args, ctx, 2);
  });
  Reg(r, {"substring", "substr"}, BindSubstring);
  Reg(r, {"left"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindLeftRight(name, args, ctx, true);
  });
  Reg(r, {"right"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindLeftRight(name, args, ctx, false);
  });
  Reg(r, {"trim"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindTrim(name, args, ctx, true, true, false);
  });
  Reg(r, {"ltrim"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindTrim(name, args, ctx, true, false, false);
  });
  Reg(r, {"rtrim"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindTrim(name, args, ctx, false, true, false);
  });
  Reg(r, {"btrim"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindTrim(name, args, ctx, true, true, true);
  });
  Reg(r, {"lpad"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindPad(name, args, ctx, true);
  });
  Reg(r, {"rpad"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindPad(name, args, ctx, false);
  });
  Reg(r, {"instr"}, BindInstr);
  Reg(r, {"locate", "position"}, BindLocate);
  Reg(r, {"replace"},
      [](std::string_view name, Args& args, const BindContext& ctx) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 3));
        SILT_RETURN_NOT_OK(AllToString(name, args, ctx));
        return MakeCall(std::string(name), Str(), std::move(args),
                        [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                          return StrRows(a, rows, out, [&](size_t i, std::string& b, Status*) {
                            std::string_view s = StrAt(a[0], i), from = StrAt(a[1], i);
                            std::string_view to =
                                a.size() == 3 ? StrAt(a[2], i) : std::string_view();
                            if (from.empty()) {
                              b.append(s);
                              return true;
                            }
                            size_t pos = 0;
                            while (true) {
                              size_t at = s.find(from, pos);
                              if (at == std::string_view::npos) break;
                              b.append(s.substr(pos, at - pos));
                              b.append(to);
                              pos = at + from.size();
                            }
                            b.append(s.substr(pos));
                            return true;
                          });
                        });
      });
  Reg(r, {"translate"}, BindTranslate);
  Reg(r, {"reverse"}, BindReverse);
  Reg(r, {"repeat"},
      [](std::string_view name, Args& args, const BindContext& ctx) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 2));
        SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, Str(), ctx));
        SILT_RETURN_NOT_OK(CoerceArg(name, args, 1, Int(), ctx));
        return MakeCall(
            std::string(name), Str(), std::move(args),
            [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
              SILT_RETURN_NOT_OK(fn::ReserveStringRows("repeat", a, rows, out, [&](size_t i) {
                return static_cast<int64_t>(StrAt(a[0], i).size()) * ValAt<int32_t>(a[1], i);
              }));
              return StrRows(a, rows, out, [&](size_t i, std::string& b, Status* st) {
                std::string_view s = StrAt(a[0], i);
                int32_t times = ValAt<int32_t>(a[1], i);
                if (times > 0 && !s.empty()) {
                  *st = fn::CheckStringGrowth("repeat", b, static_cast<int64_t>(s.size()) * times);
                  if (!st->ok()) return false;
                  b.reserve(b.size() + s.size() * static_cast<size_t>(times));
                }
                for (int32_t k = times; k > 0; --k) b.append(s);
                return true;
              });
            });
      });
  Reg(r, {"space"},
      [](std::string_view name, Args& args, const BindContext& ctx) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(name, args, 1, 1));
        SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, Int(), ctx));
        return MakeCall(
            std::string(name), Str(), std::move(args),
            [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
              SILT_RETURN_NOT_OK(fn::ReserveStringRows("space", a, rows, out, [&](size_t i) {
                return static_cast<int64_t>(ValAt<int32_t>(a[0], i));
              }));
              return StrRows(a, rows, out, [&](size_t i, std::string& b, Status* st) {
                int32_t n = ValAt<int32_t>(a[0], i);
                if (n > 0) {
                  *st = fn::CheckStringGrowth("space", b, n);
                  if (!st->ok()) return false;
                }
                if (n > 0) b.append(static_cast<size_t>(n), ' ');
                return true;
              });
            });
      });
  Reg(r, {"initcap"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindUnaryString(name, args, ctx, Str(), Str(),
                           [](std::string_view s, std::string* b, Status*) {
                             std::string lower;
                             AppendCaseMapped(s, false, &lower);
                             size_t i = 0;
                             bool start = true;
                             while (i < lower.size()) {
                               uint32_t cp = Utf8Decode(lower, &i);
                               Utf8Encode(start ? TitleCase(cp) : cp, b);
                               start = cp == ' ';
                             }
                             return true;
                           });
  });
  Reg(r, {"split"}, BindSplit);
  Reg(r, {"split_part"}, BindSplitPart);
  Reg(r, {"regexp_replace"}, BindRegexpReplace);
  Reg(r, {"regexp_extract"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindRegexpExtract(name, args, ctx, false);
  });
  Reg(r, {"regexp_extract_all"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindRegexpExtract(name, args, ctx, true);
  });
  Reg(r, {"regexp_count"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindRegexpOther(name, args, ctx, 0);
  });
  Reg(r, {"regexp_substr"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindRegexpOther(name, args, ctx, 1);
  });
  Reg(r, {"regexp_instr"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindRegexpOther(name, args, ctx, 2);
  });
  Reg(r, {"rlike", "regexp", "regexp_like"}, BindRegexBool);
  Reg(r, {"like"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindLike(name, args, ctx, false);
  });
  Reg(r, {"ilike"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindLike(name, args, ctx, true);
  });
  Reg(r, {"startswith"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindStartsEnds(name, args, ctx, 0);
  });
  Reg(r, {"endswith"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindStartsEnds(name, args, ctx, 1);
  });
  Reg(r, {"contains"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindStartsEnds(name, args, ctx, 2);
  });
  Reg(r, {"ascii"},
      [](std::string_view name, Args& args, const BindContext& ctx) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(name, args, 1, 1));
        SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, Str(), ctx));
        return MakeCall(std::string(name), Int(), std::move(args),
                        [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                          return FixedRows<int32_t>(
                              a, rows, out, [&](size_t i, int32_t* v, Status*) {
                                std::string_view s = StrAt(a[0], i);
                                size_t p = 0;
                                *v = s.empty() ? 0 : static_cast<int32_t>(Utf8Decode(s, &p));
                                return true;
                              });
                        });
      });
  Reg(r, {"chr", "char"},
      [](std::string_view name, Args& args, const BindContext& ctx) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(name, args, 1, 1));
        SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, DataType::Int64(), ctx));
        return MakeCall(std::string(name), Str(), std::move(args),
                        [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                          return StrRows(a, rows, out, [&](size_t i, std::string& b, Status*) {
                            int64_t n = ValAt<int64_t>(a[0], i);
                            if (n >= 0) Utf8Encode(static_cast<uint32_t>(n & 0xFF), &b);
                            return true;
                          });
                        });
      });
  Reg(r, {"base64"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindUnaryString(name, args, ctx, DataType::Binary(), Str(),
                           [](std::string_view s, std::string* b, Status*) {
                             Base64Encode(s, b);
                             return true;
                           });
  });
  Reg(r, {"unbase64"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindUnaryString(name, args, ctx, Str(), DataType::Binary(),
                           [](std::string_view s, std::string* b, Status*) {
                             Base64Decode(s, b);
                             return true;
                           });
  });
  Reg(r, {"hex"}, [](std::string_view name, Args& args, const BindContext& ctx) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(name, args, 1, 1));
    TypeId id = args[0]->type->id();
    if (id != TypeId::kString && id != TypeId::kBinary) {
      SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, DataType::Int64(), ctx));
      return MakeCall(std::string(name), Str(), std::move(args),
                      [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                        return StrRows(a, rows, out, [&](size_t i, std::string& b, Status*) {
                          uint64_t v = static_cast<uint64_t>(ValAt<int64_t>(a[0], i));
                          char buf[17];
                          int n =
                              snprintf(buf, sizeof buf, "%llX", static_cast<unsigned long long>(v));
                          b.append(buf, static_cast<size_t>(n));
                          return true;
                        });
                      });
    }
    return MakeCall(std::string(name), Str(), std::move(args),
                    [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                      return StrRows(a, rows, out, [&](size_t i, std::string& b, Status*) {
                        HexEncode(StrAt(a[0], i), &b);
                        return true;
                      });
                    });
  });
  Reg(r, {"unhex"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindUnaryString(
        name, args, ctx, Str(), DataType::Binary(),
        [](std::string_view s, std::string* b, Status*) { return HexDecode(s, b); });
  });
  Reg(r, {"to_binary", "try_to_binary"},
      [](std::string_view name, Args& args, const BindContext& ctx) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(name, args, 1, 2));
        SILT_RETURN_NOT_OK(AllToString(name, args, ctx));
        std::string fmt = "hex";
        if (args.size() == 2) {
          if (!ConstantOf(args[1]) && IsConstantExpr(*args[1])) {
            // A foldable format (substr('base64…', 0, 6)) is its value, as in Spark.
            SILT_ASSIGN_OR_RETURN(Value v, EvaluateConstant(*args[1], EvalContext{}));
            args[1] = MakeConstant(v);
          }
          bool is_null = false;
          auto f = ConstString(args[1], &is_null);
          if (!f) return TypeMismatch(name, "the `fmt` argument must be a constant string");
          fmt = is_null ? "" : *f;
          fmt = AsciiLower(fmt);
          if (!is_null && fmt != "hex" && fmt != "utf-8" && fmt != "utf8" && fmt != "base64") {
            return TypeMismatch(name,
                                "Input to `to_binary` should have been one of 'hex', 'utf-8', "
                                "'utf8', or 'base64', but got '" +
                                    *f + "'.");
          }
          args.pop_back();
        }
        bool strict = name == "to_binary";
        return MakeCall(
            std::string(name), DataType::Binary(), std::move(args),
            [fmt, strict](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
              return StrRows(a, rows, out, [&](size_t i, std::string& b, Status* st) {
                std::string_view s = StrAt(a[0], i);
                bool ok = true;
                if (fmt.empty()) return false;
                if (fmt == "hex") {
                  ok = HexDecode(s, &b);
                } else if (fmt == "base64") {
                  ok = IsValidBase64(s);
                  if (ok) Base64Decode(s, &b);
                } else {
                  b.append(s);
                }
                if (!ok && strict) {
                  *st = Status::InvalidArgument("The value '" + std::string(s) +
                                                    "' does not represent a correct " + fmt +
                                                    " binary. Use `try_to_binary` to tolerate it.",
                                                errc::kConversionInvalidInput);
                }
                return ok;
              });
            });
      });
  RegisterDigestFunctions(r);
  RegisterFormatFunctions(r);
  Reg(r, {"soundex"}, [](std::string_view name, Args& args, const BindContext& ctx) {
    return BindUnaryString(name, args, ctx, Str(), Str(),
                           [](std::string_view s, std::string* b, Status*) {
                             *b += Soundex(s);
                             return true;
                           });
  });
  Reg(r, {"levenshtein"},
      [](std::string_view name, Args& args, const BindContext& ctx) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 3));
        SILT_RETURN_NOT_OK(AllToString(name, args, ctx, 0, 2));
        if (args.size() == 3) {
          SILT_RETURN_NOT_OK(CoerceArg(name, args, 2, Int(), ctx));
        }
        return MakeCall(std::string(name), Int(), std::move(args),
                        [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                          return FixedRows<int32_t>(
                              a, rows, out, [&](size_t i, int32_t* v, Status*) {
                                int64_t d = Levenshtein(StrAt(a[0], i), StrAt(a[1], i));
                                if (a.size() == 3 && d > ValAt<int32_t>(a[2], i)) d = -1;
                                *v = static_cast<int32_t>(d);
                                return true;
                              });
                        });
      });
  Reg(r, {"uuid"}, [](std::string_view name, Args& args, const BindContext&) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(name, args, 0, 0));
    return MakeCall(
        std::string(name), Str(), std::move(args),
        [](std::span<const Arg>, size_t rows, const EvalContext&, Vector* out) {
          thread_local std::mt19937_64 rng{std::random_device{}()};
          StringWriter w(out, rows);
          for (size_t i = 0; i < rows; ++i) {
            uint64_t hi = rng(), lo = rng();
            hi = (hi & ~0xF000ULL) | 0x4000ULL;                         // version 4
            lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // IETF variant
            char buf[40];
            snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx",
                     static_cast<unsigned>(hi >> 32), static_cast<unsigned>((hi >> 16) & 0xFFFF),
                     static_cast<unsigned>(hi & 0xFFFF), static_cast<unsigned>(lo >> 48),
                     static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
            w.Append(buf);
          }
          w.Finish();
          return Status::OK();
        },
        /*deterministic=*/false);
  });
  Reg(r, {"substring_index"},
      [](std::string_view name, Args& args, const BindContext& ctx) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(name, args, 3, 3));
        SILT_RETURN_NOT_OK(AllToString(name, args, ctx, 0, 2));
        SILT_RETURN_NOT_OK(CoerceArg(name, args, 2, Int(), ctx));
        return MakeCall(
            std::string(name), Str(), std::move(args),
            [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
              return StrRows(a, rows, out, [&](size_t i, std::string& b, Status*) {
                b.append(SubstringIndex(StrAt(a[0], i), StrAt(a[1], i), ValAt<int32_t>(a[2], i)));
                return true;
              });
            });
      });
  Reg(r, {"find_in_set"},
      [](std::string_view name, Args& args, const BindContext& ctx) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 2));
        SILT_RETURN_NOT_OK(AllToString(name, args, ctx));
        return MakeCall(
            std::string(name), Int(), std::move(args),
            [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
              return FixedRows<int32_t>(a, rows, out, [&](size_t i, int32_t* v, Status*) {
                std::string_view word = StrAt(a[0], i), list = StrAt(a[1], i);
                *v = 0;
                if (word.find(',') != std::string_view::npos) return true;
                int32_t k = 1;
                size_t pos = 0;
                while (true) {
                  size_t at = list.find(',', pos);
                  std::string_view item = list.substr(
                      pos, at == std::string_view::npos ? std::string_view::npos : at - pos);
                  if (item == word) {
                    *v = k;
                    return true;
                  }
                  if (at == std::string_view::npos) return true;
                  pos = at + 1;
                  ++k;
                }
              });
            });
      });
  Reg(r, {"elt"}, [](std::string_view name, Args& args, const BindContext& ctx) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(name, args, 2, SIZE_MAX));
    SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, Int(), ctx));
    bool binary = true;
    for (size_t i = 1; i < args.size(); ++i)
      binary = binary && args[i]->type->id() == TypeId::kBinary;
    TypePtr t = binary ? DataType::Binary() : Str();
    for (size_t i = 1; i < args.size(); ++i) {
      SILT_RETURN_NOT_OK(CoerceArg(name, args, i, t, ctx));
    }
    bool ansi = ctx.ansi;
    return MakeCall(std::string(name), t, std::move(args),
                    [ansi](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                      StringWriter w(out, rows);
                      for (size_t i = 0; i < rows; ++i) {
                        if (NullAt(a[0], i)) {
                          w.CommitNull();
                          continue;
                        }
                        int32_t k = ValAt<int32_t>(a[0], i);
                        if (k < 1 || static_cast<size_t>(k) >= a.size()) {
                          if (ansi) {
                            return Status::InvalidArgument("The index " + std::to_string(k) +
                                                               " is out of bounds. The array has " +
                                                               std::to_string(a.size() - 1) +
                                                               " elements.",
                                                           errc::kInvalidArrayIndex);
                          }
                          w.CommitNull();
                          continue;
                        }
                        const Arg& x = a[static_cast<size_t>(k)];
                        if (NullAt(x, i)) {
                          w.CommitNull();
                        } else {
                          w.Append(StrAt(x, i));
                        }
                      }
                      w.Finish();
                      return Status::OK();
                    });
  });
  Reg(r, {"overlay"},
      [](std::string_view name, Args& args, const BindContext& ctx) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(name, args, 3, 4));
        bool binary =
            args[0]->type->id() == TypeId::kBinary && args[1]->type->id() == TypeId::kBinary;
        TypePtr t = binary ? DataType::Binary() : Str();
        SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, t, ctx));
        SILT_RETURN_NOT_OK(CoerceArg(name, args, 1, t, ctx));
        for (size_t i = 2; i < args.size(); ++i) {
          SILT_RETURN_NOT_OK(CoerceArg(name, args, i, Int(), ctx));
        }
        return MakeCall(
            std::string(name), t, std::move(args),
            [binary](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
              return StrRows(a, rows, out, [&](size_t i, std::string& b, Status*) {
                // Spark: input.substring(1, pos - 1) + replace + input.substring(pos + len)
                std::string_view s = StrAt(a[0], i), rep = StrAt(a[1], i);
                int64_t pos = ValAt<int32_t>(a[2], i);
                int64_t len = a.size() == 4 ? ValAt<int32_t>(a[3], i) : -1;
                if (len < 0) len = binary ? static_cast<int64_t>(rep.size()) : Utf8Length(rep);
                b.append(SubstringSQL(s, 1, pos - 1, binary));
                b.append(rep);
                b.append(SubstringSQL(s, pos + len, INT32_MAX, binary));
                return true;
              });
            });
      });
  // encode / decode with a charset (string_check_functions.cc); decode of more than two
  // arguments is the Oracle-style CASE (conditional_functions.cc).
  Reg(r, {"encode"},
      [](std::string_view name, Args& args, const BindContext& ctx) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 2));
        SILT_RETURN_NOT_OK(AllToString(name, args, ctx));
        const bool legacy_charsets = ctx.legacy_java_charsets;
        const bool legacy_errors = ctx.legacy_coding_error_action;
        return MakeCall(std::string(name), DataType::Binary(), std::move(args),
                        [=](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                          return StrRows(a, rows, out, [&](size_t i, std::string& b, Status* st) {
                            *st = fn::EncodeCharset("encode", StrAt(a[1], i), StrAt(a[0], i),
                                                    legacy_charsets, legacy_errors, &b);
                            return st->ok();
                          });
                        });
      });
  Reg(r, {"decode"},
      [](std::string_view name, Args& args, const BindContext& ctx) -> Result<ExprPtr> {
        if (args.size() > 2) return fn::BindDecodeCase(args, ctx);
        SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 2));
        SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, DataType::Binary(), ctx));
        SILT_RETURN_NOT_OK(CoerceArg(name, args, 1, Str(), ctx));
        const bool legacy_charsets = ctx.legacy_java_charsets;
        const bool legacy_errors = ctx.legacy_coding_error_action;
        return MakeCall(std::string(name), Str(), std::move(args),
                        [=](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                          return StrRows(a, rows, out, [&](size_t i, std::string& b, Status* st) {
                            *st = fn::DecodeCharset("decode", StrAt(a[1], i), StrAt(a[0], i),
                                                    legacy_charsets, legacy_errors, &b);
                            return st->ok();
                          });
                        });
      });
}

}  // namespace silt::exec
