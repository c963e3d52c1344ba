// Spark's format_string / printf (java.util.Formatter over Spark's values) and format_number
// (java.text.DecimalFormat patterns).
#include <limits>

#include "common/ascii.h"
#include "common/error_classes.h"
#include "exec/functions/string_util.h"

namespace silt::exec {

namespace {

using fn::AppendCaseMapped;
using fn::CharRange;
using fn::CheckArity;
using fn::CoerceArg;
using fn::FixedRows;
using fn::HexEncode;
using fn::MakeCall;
using fn::NullAt;
using fn::StrAt;
using fn::StringWriter;
using fn::StrRows;
using fn::Utf8Encode;
using fn::Utf8Length;
using fn::ValAt;

using Args = std::vector<ExprPtr>;

TypePtr Str() { return DataType::String(); }
TypePtr Int() { return DataType::Int32(); }

// ---------------------------------------------------------------------------------------------
// format_string (java.util.Formatter subset over Spark's internal values)

Status FormatError(const std::string& msg) {
  return Status::InvalidArgument("format_string: " + msg, errc::kInvalidParameterValue);
}

std::string GroupThousands(const std::string& digits) {
  std::string out;
  size_t n = digits.size();
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

struct FormatSpec {
  bool left = false, plus = false, space = false, zero = false, comma = false, paren = false,
       alt = false;
  int width = -1, precision = -1;
};

void Pad(const FormatSpec& f, std::string s, std::string* out) {
  int len = static_cast<int>(Utf8Length(s));
  if (f.width > len) {
    if (f.left) {
      s.append(static_cast<size_t>(f.width - len), ' ');
    } else {
      s.insert(0, static_cast<size_t>(f.width - len), ' ');
    }
  }
  *out += s;
}

// Sign, grouping, zero padding and parentheses around a magnitude text.
void PadNumber(const FormatSpec& f, bool negative, std::string mag, std::string* out) {
  std::string prefix, suffix;
  if (negative) {
    if (f.paren) {
      prefix = "(";
      suffix = ")";
    } else {
      prefix = "-";
    }
  } else if (f.plus) {
    prefix = "+";
  } else if (f.space) {
    prefix = " ";
  }
  if (f.zero && f.width > 0) {
    int total = static_cast<int>(prefix.size() + mag.size() + suffix.size());
    if (f.width > total) mag.insert(0, static_cast<size_t>(f.width - total), '0');
  }
  FormatSpec plain = f;
  plain.zero = false;
  Pad(plain, prefix + mag + suffix, out);
}

std::string ValueText(const Vector& v, size_t r) {
  switch (v.id()) {
    case TypeId::kString:
      return std::string(v.GetString(r));
    case TypeId::kBoolean:
      return v.data<uint8_t>()[r] ? "true" : "false";
    case TypeId::kInt8:
      return std::to_string(v.data<int8_t>()[r]);
    case TypeId::kInt16:
      return std::to_string(v.data<int16_t>()[r]);
    case TypeId::kInt32:
    case TypeId::kDate:
      return std::to_string(v.data<int32_t>()[r]);
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return std::to_string(v.data<int64_t>()[r]);
    case TypeId::kFloat:
      return fn::JavaFloatingToString(v.data<float>()[r]);
    case TypeId::kDouble:
      return fn::JavaFloatingToString(v.data<double>()[r]);
    case TypeId::kDecimal:
      return FormatDecimal(v.data<int128_t>()[r], v.type()->scale());
    default:
      return v.GetValue(r).ToString();
  }
}

bool IntegralValue(const Vector& v, size_t r, int128_t* out, int* bits) {
  switch (v.id()) {
    case TypeId::kInt8:
      *out = v.data<int8_t>()[r];
      *bits = 8;
      return true;
    case TypeId::kInt16:
      *out = v.data<int16_t>()[r];
      *bits = 16;
      return true;
    case TypeId::kInt32:
    case TypeId::kDate:
      *out = v.data<int32_t>()[r];
      *bits = 32;
      return true;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      *out = v.data<int64_t>()[r];
      *bits = 64;
      return true;
    default:
      return false;
  }
}

std::string ExpE(int e) {
  std::string s = e < 0 ? "-" : "+";
  std::string d = std::to_string(e < 0 ? -e : e);
  if (d.size() < 2) d.insert(0, "0");
  return s + d;
}

// %e of a double in Java: d.ddddde±xx with half-up rounding of the shortest digits.
std::string JavaSci(double v, int precision, bool upper) {
  fn::DecimalDigits d = fn::ShortestDigits(v);
  if (d.digits.empty()) {
    return "0" + (precision > 0 ? "." + std::string(static_cast<size_t>(precision), '0') : "") +
           (upper ? "E+00" : "e+00");
  }
  std::string digits = d.digits;
  int exp = d.exp10 - 1;
  size_t keep = static_cast<size_t>(precision + 1);
  bool up = digits.size() > keep && digits[keep] >= '5';
  if (digits.size() > keep) digits.resize(keep);
  digits.append(keep - digits.size(), '0');
  if (up) {
    int i = static_cast<int>(digits.size()) - 1;
    while (i >= 0 && digits[i] == '9') digits[i--] = '0';
    if (i >= 0) {
      ++digits[i];
    } else {
      digits.insert(digits.begin(), '1');
      digits.pop_back();
      ++exp;
    }
  }
  std::string s(1, digits[0]);
  if (precision > 0) s += "." + digits.substr(1);
  return s + (upper ? "E" : "e") + ExpE(exp);
}

Status FormatOne(char conv, const FormatSpec& f, const Vector* v, size_t r, std::string* out) {
  bool is_null = v == nullptr || v->id() == TypeId::kNull || v->IsNull(r);
  switch (conv) {
    case 'b':
    case 'B': {
      std::string s = is_null                       ? "false"
                      : v->id() == TypeId::kBoolean ? (v->data<uint8_t>()[r] ? "true" : "false")
                                                    : "true";
      if (conv == 'B') s = AsciiUpper(s);
      Pad(f, s, out);
      return Status::OK();
    }
    case 's':
    case 'S': {
      if (!is_null && (v->id() == TypeId::kBinary || !fn::IsAtomicId(v->id()))) {
        return FormatError("%s of a " + v->type()->ToString() + " value is not supported");
      }
      std::string s = is_null ? "null" : ValueText(*v, r);
      if (f.precision >= 0) s = std::string(CharRange(s, 0, f.precision, false));
      if (conv == 'S') {
        std::string up;
        AppendCaseMapped(s, true, &up);
        s = up;
      }
      Pad(f, s, out);
      return Status::OK();
    }
    case 'c': {
      if (is_null) {
        Pad(f, "null", out);
        return Status::OK();
      }
      int128_t x;
      int bits;
      if (!IntegralValue(*v, r, &x, &bits)) {
        return FormatError("%c != " + v->type()->ToString());
      }
      std::string s;
      Utf8Encode(static_cast<uint32_t>(x), &s);
      Pad(f, s, out);
      return Status::OK();
    }
    case 'd':
    case 'x':
    case 'X':
    case 'o': {
      if (is_null) {
        Pad(f, "null", out);
        return Status::OK();
      }
      int128_t x;
      int bits;
      if (!IntegralValue(*v, r, &x, &bits)) {
        return FormatError(std::string("%") + conv + " != " + v->type()->ToString());
      }
      if (conv == 'd') {
        bool neg = x < 0;
        std::string mag = Int128ToString(neg ? -x : x);
        if (f.comma) mag = GroupThousands(mag);
        PadNumber(f, neg, mag, out);
        return Status::OK();
      }
      // Hex/octal of the two's complement at the value's width (Java's Formatter).
      unsigned __int128 u = static_cast<unsigned __int128>(x);
      if (bits < 128) u &= (static_cast<unsigned __int128>(1) << bits) - 1;
      std::string s;
      unsigned base = conv == 'o' ? 8 : 16;
      const char* digits = conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
      do {
        s.insert(s.begin(), digits[static_cast<unsigned>(u % base)]);
        u /= base;
      } while (u);
      if (f.alt) s.insert(0, conv == 'o' ? "0" : (conv == 'X' ? "0X" : "0x"));
      if (f.zero && f.width > static_cast<int>(s.size())) {
        s.insert(0, static_cast<size_t>(f.width) - s.size(), '0');
      }
      Pad(f, s, out);
      return Status::OK();
    }
    case 'f':
    case 'e':
    case 'E':
    case 'g':
    case 'G': {
      if (is_null) {
        Pad(f, "null", out);
        return Status::OK();
      }
      double d;
      if (v->id() == TypeId::kDouble) {
        d = v->data<double>()[r];
      } else if (v->id() == TypeId::kFloat) {
        d = v->data<float>()[r];
      } else {
        return FormatError(std::string("%") + conv + " != " + v->type()->ToString());
      }
      if (std::isnan(d) || std::isinf(d)) {
        std::string s = std::isnan(d) ? "NaN"
                                      : (d > 0 ? (f.plus ? "+Infinity" : "Infinity")
                                               : (f.paren ? "(Infinity)" : "-Infinity"));
        Pad(f, s, out);
        return Status::OK();
      }
      int prec = f.precision < 0 ? 6 : f.precision;
      bool neg = std::signbit(d);
      std::string mag;
      if (conv == 'f') {
        fn::DecimalDigits dd = v->id() == TypeId::kFloat ? fn::ShortestDigits(static_cast<float>(d))
                                                         : fn::ShortestDigits(d);
        mag = fn::FixedHalfUp(dd, prec);
        if (f.comma) {
          size_t dot = mag.find('.');
          mag = GroupThousands(mag.substr(0, dot)) +
                (dot == std::string::npos ? "" : mag.substr(dot));
        }
      } else if (conv == 'e' || conv == 'E') {
        mag = JavaSci(std::fabs(d), prec, conv == 'E');
      } else {
        // %g: scientific when the rounded value is < 10^-4 or >= 10^precision.
        if (prec == 0) prec = 1;
        double a = std::fabs(d);
        if (a != 0 && (a < 1e-4 || a >= std::pow(10.0, prec))) {
          mag = JavaSci(a, prec - 1, conv == 'G');
        } else {
          int int_digits =
              a == 0 ? 1 : std::max(1, static_cast<int>(std::floor(std::log10(a))) + 1);
          mag = fn::FixedHalfUp(fn::ShortestDigits(a), std::max(0, prec - int_digits));
        }
      }
      PadNumber(f, neg, mag, out);
      return Status::OK();
    }
    default:
      return FormatError(std::string("unsupported conversion '") + conv + "'");
  }
}

Status FormatString(std::string_view fmt, std::span<const Arg> args, size_t row, std::string* out) {
  size_t next_arg = 0;  // ordinary index over args[1..]
  int last_index = -1;
  for (size_t i = 0; i < fmt.size(); ++i) {
    char c = fmt[i];
    if (c != '%') {
      out->push_back(c);
      continue;
    }
    if (++i >= fmt.size()) return FormatError("format specifier ends the string");
    FormatSpec f;
    int explicit_index = -1;
    bool relative = false;
    // argument index "n$" or "<"
    size_t j = i;
    while (j < fmt.size() && fmt[j] >= '0' && fmt[j] <= '9') ++j;
    if (j < fmt.size() && fmt[j] == '$' && j > i) {
      // Digits beyond an int (Java's Formatter: no such argument) must not reach std::stoi.
      if (j - i > 9)
        return FormatError("argument index " + std::string(fmt.substr(i, j - i)) +
                           "$ out of range");
      explicit_index = std::stoi(std::string(fmt.substr(i, j - i)));
      if (explicit_index == 0) {
        return Status::InvalidArgument(
            "The value of parameter(s) `strfmt` in `format_string` is "
            "invalid: expects %1$, %2$ and so on, but got %0$.",
            errc::kInvalidParameterValueZeroIndex);
      }
      i = j + 1;
    } else if (fmt[i] == '<') {
      relative = true;
      ++i;
    }
    for (; i < fmt.size(); ++i) {
      char g = fmt[i];
      if (g == '-') {
        f.left = true;
      } else if (g == '+') {
        f.plus = true;
      } else if (g == ' ') {
        f.space = true;
      } else if (g == '0') {
        f.zero = true;
      } else if (g == ',') {
        f.comma = true;
      } else if (g == '(') {
        f.paren = true;
      } else if (g == '#') {
        f.alt = true;
      } else {
        break;
      }
    }
    // A width or precision is the size of what gets built: checked against Spark's 2 GB value
    // cap and silt.memory.limit before anything is padded (saturating, no int overflow).
    auto number = [&](int* v) -> Status {
      int64_t n = 0;
      while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') {
        n = std::min<int64_t>(n * 10 + (fmt[i++] - '0'), int64_t{1} << 31);
      }
      // Beyond an int: Java's IllegalFormatWidthException / IllegalFormatPrecisionException.
      if (n > std::numeric_limits<int>::max())
        return FormatError("format width or precision out of range");
      if (n > 4096) SILT_RETURN_NOT_OK(fn::CheckStringResult("format_string", n));
      *v = static_cast<int>(n);
      return Status::OK();
    };
    if (i < fmt.size() && fmt[i] >= '1' && fmt[i] <= '9') {
      SILT_RETURN_NOT_OK(number(&f.width));
    }
    if (i < fmt.size() && fmt[i] == '.') {
      ++i;
      SILT_RETURN_NOT_OK(number(&f.precision));
    }
    if (i >= fmt.size()) return FormatError("format specifier ends the string");
    char conv = fmt[i];
    if (conv == '%') {
      Pad(f, "%", out);
      continue;
    }
    if (conv == 'n') {
      out->push_back('\n');
      continue;
    }
    int index;
    if (explicit_index > 0) {
      index = explicit_index - 1;
    } else if (relative) {
      if (last_index < 0) return FormatError("missing argument for '%<'");
      index = last_index;
    } else {
      index = static_cast<int>(next_arg++);
    }
    last_index = index;
    size_t a = static_cast<size_t>(index) + 1;
    if (a >= args.size())
      return FormatError("missing format argument for '%" + std::string(1, conv) + "'");
    SILT_RETURN_NOT_OK(FormatOne(conv, f, args[a].vector, args[a].index(row), out));
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// format_number (java.text.DecimalFormat, HALF_EVEN, Locale.US)

struct NumberPattern {
  int grouping = 3;  // 0: none
  int min_int = 1;
  int min_frac = 0, max_frac = 0;
};

NumberPattern DefaultPattern(int d) {
  NumberPattern p;
  p.min_frac = p.max_frac = d;
  return p;
}

NumberPattern ParseNumberPattern(std::string_view s) {
  NumberPattern p;
  size_t dot = s.find('.');
  std::string_view ip = s.substr(0, dot),
                   fp = dot == std::string_view::npos ? "" : s.substr(dot + 1);
  size_t comma = ip.rfind(',');
  p.grouping = comma == std::string_view::npos ? 0 : static_cast<int>(ip.size() - comma - 1);
  p.min_int = static_cast<int>(std::count(ip.begin(), ip.end(), '0'));
  p.min_frac = static_cast<int>(std::count(fp.begin(), fp.end(), '0'));
  p.max_frac = p.min_frac + static_cast<int>(std::count(fp.begin(), fp.end(), '#'));
  return p;
}

// Lays out integer/fraction digit strings (already rounded to max_frac) per the pattern.
std::string LayoutNumber(const NumberPattern& p, bool negative, std::string ip, std::string fp) {
  size_t nz = ip.find_first_not_of('0');
  ip = nz == std::string::npos ? "" : ip.substr(nz);
  if (static_cast<int>(ip.size()) < p.min_int)
    ip.insert(0, static_cast<size_t>(p.min_int) - ip.size(), '0');
  while (static_cast<int>(fp.size()) > p.min_frac && !fp.empty() && fp.back() == '0') fp.pop_back();
  std::string g;
  if (p.grouping > 0) {
    size_t n = ip.size();
    for (size_t i = 0; i < n; ++i) {
      if (i > 0 && (n - i) % static_cast<size_t>(p.grouping) == 0) g += ',';
      g += ip[i];
    }
  } else {
    g = ip;
  }
  std::string out = negative ? "-" : "";
  out += g;
  if (!fp.empty()) out += "." + fp;
  if (out.empty() || out == "-") out += "0";
  return out;
}

std::string FormatNumberDouble(double x, const NumberPattern& p) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "\xE2\x88\x9E" : "-\xE2\x88\x9E";
  // glibc's %.*f rounds the exact binary value half-even: DecimalFormat's HALF_EVEN.
  std::vector<char> buf(static_cast<size_t>(std::max(0, p.max_frac)) + 330);
  snprintf(buf.data(), buf.size(), "%.*f", p.max_frac, std::fabs(x));
  std::string s(buf.data());
  size_t dot = s.find('.');
  return LayoutNumber(p, std::signbit(x), s.substr(0, dot),
                      dot == std::string::npos ? "" : s.substr(dot + 1));
}

std::string FormatNumberDecimal(int128_t u, int scale, const NumberPattern& p) {
  bool neg = u < 0;
  unsigned __int128 m =
      neg ? static_cast<unsigned __int128>(-u) : static_cast<unsigned __int128>(u);
  int frac = p.max_frac;
  if (scale > frac) {
    unsigned __int128 div = 1;
    for (int i = 0; i < scale - frac; ++i) div *= 10;
    unsigned __int128 q = m / div, rem = m % div;
    unsigned __int128 half = div / 2;
    if (rem > half || (rem == half && (q & 1))) ++q;
    m = q;
    scale = frac;
  }
  std::string digits = Int128ToString(static_cast<int128_t>(m));
  if (static_cast<int>(digits.size()) <= scale) {
    digits.insert(0, static_cast<size_t>(scale) - digits.size() + 1, '0');
  }
  std::string ip = digits.substr(0, digits.size() - static_cast<size_t>(scale));
  std::string fp = digits.substr(digits.size() - static_cast<size_t>(scale));
  fp.append(static_cast<size_t>(frac - scale), '0');
  return LayoutNumber(p, neg, ip, fp);
}

Result<ExprPtr> BindFormatString(std::string_view name, Args& args, const BindContext& ctx) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 1, SIZE_MAX));
  SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, Str(), ctx));
  for (size_t i = 1; i < args.size(); ++i) {
    if (!fn::IsAtomicId(args[i]->type->id())) {
      return fn::UnexpectedType(name, i, "atomic", args[i]->type);
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
                      Status st = FormatString(StrAt(a[0], i), a, i, &w.buf());
                      if (!st.ok()) return st;
                      w.Commit();
                    }
                    w.Finish();
                    return Status::OK();
                  });
}

Result<ExprPtr> BindFormatNumber(std::string_view name, Args& args, const BindContext& ctx) {
  SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 2));
  if (!fn::IsNumericId(args[0]->type->id())) {
    if (args[0]->type->id() != TypeId::kNull)
      return fn::UnexpectedType(name, 0, "numeric", args[0]->type);
    SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, DataType::Double(), ctx));
  }
  bool pattern = args[1]->type->id() == TypeId::kString;
  if (!pattern) {
    SILT_RETURN_NOT_OK(CoerceArg(name, args, 1, Int(), ctx));
  }
  return MakeCall(std::string(name), Str(), std::move(args),
                  [pattern](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
                    return StrRows(a, rows, out, [&](size_t i, std::string& b, Status*) {
                      NumberPattern p;
                      if (pattern) {
                        std::string_view s = StrAt(a[1], i);
                        p = s.empty() ? DefaultPattern(0) : ParseNumberPattern(s);
                      } else {
                        int32_t d = ValAt<int32_t>(a[1], i);
                        if (d < 0) return false;
                        p = DefaultPattern(d);
                      }
                      const Vector& v = *a[0].vector;
                      size_t r = a[0].index(i);
                      switch (v.id()) {
                        case TypeId::kDouble:
                          b += FormatNumberDouble(v.data<double>()[r], p);
                          break;
                        case TypeId::kFloat:
                          b += FormatNumberDouble(v.data<float>()[r], p);
                          break;
                        case TypeId::kDecimal:
                          b += FormatNumberDecimal(v.data<int128_t>()[r], v.type()->scale(), p);
                          break;
                        case TypeId::kInt8:
                          b += FormatNumberDecimal(v.data<int8_t>()[r], 0, p);
                          break;
                        case TypeId::kInt16:
                          b += FormatNumberDecimal(v.data<int16_t>()[r], 0, p);
                          break;
                        case TypeId::kInt32:
                          b += FormatNumberDecimal(v.data<int32_t>()[r], 0, p);
                          break;
                        default:
                          b += FormatNumberDecimal(v.data<int64_t>()[r], 0, p);
                          break;
                      }
                      return true;
                    });
                  });
}

}  // namespace

void RegisterFormatFunctions(FunctionRegistry& r) {
  Reg(r, {"format_string", "printf"}, BindFormatString);
  Reg(r, {"format_number"}, BindFormatNumber);
}

}  // namespace silt::exec
