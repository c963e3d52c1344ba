// Number formats as Spark's ToNumberParser: to_number(str, fmt) and try_to_number(str, fmt)
// parse a string by a format of 0 / 9 (digits), . or D (decimal point), , or G (thousands
// separator), $, S (optional sign), MI (optional trailing minus), PR (negative in angle
// brackets) into DECIMAL(digits of the format, digits after its point). The format must be a
// constant; a bad one is INVALID_FORMAT.<reason> at bind time; an input that does not match is
// INVALID_FORMAT.MISMATCH_INPUT (to_number) or NULL (try_to_number).
#include <cctype>

#include "common/error_classes.h"
#include "exec/function_registry.h"
#include "exec/functions/function_util.h"

namespace silt::exec {

namespace {

using fn::CheckArity;
using fn::CoerceArg;
using fn::MakeCall;
using fn::NullAt;
using fn::StrAt;
using Args = std::vector<ExprPtr>;

enum class Tok {
  kDigits,  // a group of digits and thousands separators (DigitGroups)
  kPoint,
  kDollar,
  kSign,        // S
  kMinus,       // MI
  kOpenAngle,   // PR (prepended)
  kCloseAngle,  // PR (appended)
  kInvalid,
};

struct Token {
  explicit Token(Tok k, char ch = 0) : kind(k), c(ch) {}
  Tok kind;
  // kDigits: the digit runs, last run first (exact: a run starting with 0 before the point);
  // kInvalid: the character.
  std::vector<std::pair<int, bool>> runs;  // (count, exact)
  std::vector<bool> seps;                  // kDigits: the group's items reversed (true = ',')
  char c;
};

std::string TokenName(const Token& t) {
  switch (t.kind) {
    case Tok::kDigits:
      return "digit sequence";
    case Tok::kPoint:
      return ". or D";
    case Tok::kDollar:
      return "$";
    case Tok::kSign:
      return "S";
    case Tok::kMinus:
      return "MI";
    case Tok::kOpenAngle:
    case Tok::kCloseAngle:
      return "PR";
    case Tok::kInvalid:
      return std::string("character '") + t.c + "''";
  }
  return "";
}

class NumberFormat {
 public:
  static Result<NumberFormat> Make(const std::string& format);
  TypePtr type() const { return DataType::Decimal(precision_, scale_); }
  // The value (unscaled), or false when the input does not match.
  bool Parse(std::string_view in, int128_t* out) const;

 private:
  Status Check() const;
  bool ParseDigits(const Token& t, std::string_view in, size_t* pos, bool after_point,
                   std::string* before, std::string* after) const;

  std::string format_;
  std::vector<Token> tokens_;
  int precision_ = 0, scale_ = 0;
};

Status Invalid(const char* cls, const std::string& format, const std::string& why) {
  return Status::InvalidArgument("The format is invalid: '" + format + "'. " + why, cls);
}

Result<NumberFormat> NumberFormat::Make(const std::string& format) {
  NumberFormat f;
  f.format_ = format;
  // Raw tokens; digit runs and separators are grouped below.
  struct Raw {
    Tok kind;
    int count = 0;
    bool exact = false;
    bool sep = false;
    char c = 0;
  };
  std::vector<Raw> raw;
  bool point = false;
  size_t open_at = 0;  // PR prepends an opening bracket
  bool has_open = false;
  for (size_t i = 0; i < format.size();) {
    const char c = format[i];
    if (c == '0' || c == '9') {
      size_t j = i;
      while (j < format.size() && (format[j] == '0' || format[j] == '9')) ++j;
      raw.push_back({Tok::kDigits, static_cast<int>(j - i), c == '0' && !point});
      i = j;
    } else if (c == '.' || c == 'D') {
      raw.push_back({Tok::kPoint});
      point = true;
      ++i;
    } else if (c == ',' || c == 'G') {
      raw.push_back({Tok::kDigits, 0, false, true});
      ++i;
    } else if (c == '$') {
      raw.push_back({Tok::kDollar});
      ++i;
    } else if (c == 'S') {
      raw.push_back({Tok::kSign});
      ++i;
    } else if (c == 'M' && i + 1 < format.size() && format[i + 1] == 'I') {
      raw.push_back({Tok::kMinus});
      i += 2;
    } else if (c == 'P' && i + 1 < format.size() && format[i + 1] == 'R') {
      has_open = true;
      ++open_at;
      raw.push_back({Tok::kCloseAngle});
      i += 2;
    } else {
      raw.push_back({Tok::kInvalid, 0, false, false, c});
      ++i;
    }
  }
  for (size_t k = 0; has_open && k < open_at; ++k) f.tokens_.push_back(Token(Tok::kOpenAngle));
  // Group consecutive digit runs and separators into one kDigits token (items reversed).
  for (size_t k = 0; k < raw.size();) {
    if (raw[k].kind != Tok::kDigits) {
      f.tokens_.push_back(Token(raw[k].kind, raw[k].c));
      ++k;
      continue;
    }
    Token t(Tok::kDigits);
    size_t j = k;
    for (; j < raw.size() && raw[j].kind == Tok::kDigits; ++j) {
      t.seps.push_back(raw[j].sep);
      if (!raw[j].sep) t.runs.push_back({raw[j].count, raw[j].exact});
    }
    std::reverse(t.seps.begin(), t.seps.end());
    std::reverse(t.runs.begin(), t.runs.end());
    f.tokens_.push_back(t);
    k = j;
  }
  bool after = false;
  for (const Token& t : f.tokens_) {
    if (t.kind == Tok::kPoint) after = true;
    if (t.kind != Tok::kDigits) continue;
    for (const auto& [n, exact] : t.runs) {
      f.precision_ += n;
      if (after) f.scale_ += n;
    }
  }
  SILT_RETURN_NOT_OK(f.Check());
  return f;
}

Status NumberFormat::Check() const {
  const std::string& fmt = format_;
  auto index_of = [&](Tok k) -> int {
    for (size_t i = 0; i < tokens_.size(); ++i) {
      if (tokens_[i].kind == k) return static_cast<int>(i);
    }
    return -1;
  };
  if (fmt.empty()) {
    return Invalid(errc::kInvalidFormatEmpty, fmt, "The number format string cannot be empty.");
  }
  const int first_digit = index_of(Tok::kDigits);
  if (first_digit < 0) {
    return Invalid(errc::kInvalidFormatWrongNumDigit, fmt,
                   "The format string requires at least one number digit.");
  }
  const int dollar = index_of(Tok::kDollar), point = index_of(Tok::kPoint);
  if (first_digit < dollar) {
    return Invalid(errc::kInvalidFormatCurMustBeforeDigit, fmt,
                   "Currency characters must appear before digits in the number format.");
  }
  if (point != -1 && point < dollar) {
    return Invalid(errc::kInvalidFormatCurMustBeforeDec, fmt,
                   "Currency characters must appear before any decimal point in the number "
                   "format.");
  }
  for (size_t i = 0; i < tokens_.size(); ++i) {
    const Token& t = tokens_[i];
    if (t.kind != Tok::kDigits) continue;
    const bool before_point = point == -1 || static_cast<int>(i) < point;
    const std::vector<bool>& s = t.seps;
    if (before_point) {
      for (size_t j = 0; j < s.size(); ++j) {
        if (s[j] && (j == 0 || j + 1 == s.size() || s[j - 1] || s[j + 1])) {
          return Invalid(errc::kInvalidFormatContThousandsSeps, fmt,
                         "Thousands separators (, or G) must have digits in between them in the "
                         "number format.");
        }
      }
    } else if (s.size() > t.runs.size()) {
      return Invalid(errc::kInvalidFormatThousandsSepsMustBeforeDec, fmt,
                     "Thousands separators (, or G) may not appear after the decimal point in "
                     "the number format.");
    }
  }
  for (Tok k : {Tok::kPoint, Tok::kSign, Tok::kMinus, Tok::kDollar, Tok::kCloseAngle}) {
    int n = 0;
    Token name(k);
    for (const Token& t : tokens_) n += t.kind == k;
    if (n > 1) {
      return Invalid(errc::kInvalidFormatWrongNumToken, fmt,
                     "At most one " + TokenName(name) + " is allowed in the number format.");
    }
  }
  // [PR<] [MI | S] [$] [digits] [.] [digits] [$] [PR> | MI | S]
  static const std::vector<std::vector<Tok>> kOrder = {
      {Tok::kOpenAngle}, {Tok::kMinus, Tok::kSign},
      {Tok::kDollar},    {Tok::kDigits},
      {Tok::kPoint},     {Tok::kDigits},
      {Tok::kDollar},    {Tok::kMinus, Tok::kSign, Tok::kCloseAngle}};
  size_t at = 0;
  for (const auto& allowed : kOrder) {
    if (at < tokens_.size() &&
        std::find(allowed.begin(), allowed.end(), tokens_[at].kind) != allowed.end()) {
      ++at;
    }
  }
  if (at < tokens_.size()) {
    return Invalid(errc::kInvalidFormatUnexpectedToken, fmt,
                   "Found the unexpected " + TokenName(tokens_[at]) +
                       " in the format string; the structure of the format string must match: "
                       "`[MI|S]` `[$]` `[0|9|G|,]*` `[.|D]` `[0|9]*` `[$]` `[PR|MI|S]`.");
  }
  return Status::OK();
}

bool NumberFormat::ParseDigits(const Token& t, std::string_view in, size_t* pos, bool after_point,
                               std::string* before, std::string* after) const {
  std::vector<int> groups;  // digits per input group, last group first
  int current = 0;
  size_t i = *pos;
  for (; i < in.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(in[i]);
    if (std::isspace(c)) continue;
    if (c >= '0' && c <= '9') {
      ++current;
      (after_point ? after : before)->push_back(static_cast<char>(c));
      continue;
    }
    if (c == ',') {
      groups.insert(groups.begin(), current);
      current = 0;
      continue;
    }
    break;
  }
  groups.insert(groups.begin(), current);
  if (groups.size() > t.runs.size()) return false;
  for (size_t k = 0; k < t.runs.size(); ++k) {
    const int have = k < groups.size() ? groups[k] : 0;
    const auto& [n, exact] = t.runs[k];
    if (exact ? have != n : have > n) return false;
  }
  *pos = i;
  return true;
}

bool NumberFormat::Parse(std::string_view in, int128_t* out) const {
  std::string before, after;
  bool point = false, open = false, close = false, negate = false;
  size_t pos = 0;
  for (const Token& t : tokens_) {
    const bool more = pos < in.size();
    const char c = more ? in[pos] : 0;
    switch (t.kind) {
      case Tok::kDigits:
        if (!ParseDigits(t, in, &pos, point, &before, &after)) return false;
        break;
      case Tok::kPoint:
        if (more && c == '.') {
          point = true;
          ++pos;
        }
        break;
      case Tok::kDollar:
        if (more) {
          if (c != '$') return false;
          ++pos;
        }
        break;
      case Tok::kSign:
        if (more && (c == '+' || c == '-')) {
          negate ^= c == '-';
          ++pos;
        }
        break;
      case Tok::kMinus:
        if (more && c == '-') {
          negate = !negate;
          ++pos;
        }
        break;
      case Tok::kOpenAngle:
        if (more && c == '<') {
          if (open) return false;
          open = true;
          ++pos;
        }
        break;
      case Tok::kCloseAngle:
        if (more && c == '>') {
          if (!open) return false;
          close = true;
          negate = !negate;
          ++pos;
        }
        break;
      case Tok::kInvalid:
        return false;
    }
  }
  if (pos < in.size() || open != close || (before.empty() && after.empty())) return false;
  int128_t v = 0;
  for (char d : before) v = v * 10 + (d - '0');
  for (char d : after) v = v * 10 + (d - '0');
  for (int k = static_cast<int>(after.size()); k < scale_; ++k) v *= 10;
  *out = negate ? -v : v;
  return true;
}

}  // namespace

void RegisterNumberFormatFunctions(FunctionRegistry& r) {
  Reg(r, {"to_number", "try_to_number"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
        SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, DataType::String(), c));
        SILT_RETURN_NOT_OK(CoerceArg(n, a, 1, DataType::String(), c));
        const Value* fmt = fn::ConstantOf(a[1]);
        if (!fmt) {
          return Status::InvalidArgument(
              "Cannot resolve \"" + std::string(n) +
                  "\" due to data type mismatch: the input format should be a foldable "
                  "\"STRING\" expression; however, got a non-constant.",
              errc::kDatatypeMismatchNonFoldableInput);
        }
        const bool null_format = fmt->is_null();
        std::string format = null_format ? "" : fmt->ToString();
        NumberFormat parser;
        TypePtr t = DataType::Decimal(10, 0);
        if (!null_format) {
          SILT_ASSIGN_OR_RETURN(parser, NumberFormat::Make(format));
          t = parser.type();
        }
        const bool try_mode = n == "try_to_number";
        return MakeCall(
            std::string(n), t, std::move(a),
            [parser, format, try_mode, null_format](std::span<const Arg> x, size_t rows,
                                                    const EvalContext&, Vector* out) -> Status {
              fn::FixedWriter<int128_t> w(out, rows);
              for (size_t i = 0; i < rows; ++i) {
                int128_t v = 0;
                if (null_format || NullAt(x[0], i)) {
                  w.SetNull(i);
                } else if (parser.Parse(StrAt(x[0], i), &v)) {
                  w.Set(i, v);
                } else if (try_mode) {
                  w.SetNull(i);
                } else {
                  return Status::InvalidArgument("The input '" + std::string(StrAt(x[0], i)) +
                                                     "' does not match the given number format: '" +
                                                     format + "'.",
                                                 errc::kInvalidFormatMismatchInput);
                }
              }
              return Status::OK();
            });
      });
}

}  // namespace silt::exec
