// Literals: numeric literals with Spark suffixes, INTERVAL literals, typed strings (DATE '...',
// X'..').
#include "common/error_classes.h"
#include "sql/parser_internal.h"
#include "vector/time_text.h"

namespace silt::sql::internal {

Result<ExprNode> Parser::NumberLiteral(const Token& t, bool negative) {
  std::string text = t.text;
  auto e = NewExpr(ExprType::kLiteral, t.pos);
  std::string u = AsciiUpper(text);
  auto range_error = [&](const std::string& type, const std::string& lo, const std::string& hi) {
    return ClassError(errc::kInvalidNumericLiteralRange,
                      "Numeric literal " + std::string(negative ? "-" : "") +
                          text.substr(0, text.size() - (type == "decimal" ? 2 : 1)) +
                          " is outside the valid range for " + type + " with minimum value of " +
                          lo + " and maximum value of " + hi +
                          ". Please adjust the value accordingly",
                      t.pos);
  };
  auto parse_int = [&](std::string_view digits, __int128* out) {
    __int128 v = 0;
    for (char c : digits) {
      v = v * 10 + (c - '0');
      if (v > (static_cast<__int128>(1) << 100)) return false;
    }
    *out = negative ? -v : v;
    return true;
  };
  char last = u.back();
  bool is_decimal_text = u.find('.') != std::string::npos;
  bool has_exp = u.find('E') != std::string::npos;
  bool bd = u.size() >= 2 && u.substr(u.size() - 2) == "BD";
  if (bd) {
    int128_t unscaled;
    int p, s;
    std::string body = (negative ? "-" : "") + text.substr(0, text.size() - 2);
    if (!ParseDecimalLiteral(body, &unscaled, &p, &s)) {
      return ClassError(errc::kDecimalPrecisionExceedsMaxPrecision,
                        "Decimal precision exceeds max precision 38 in literal " + body, t.pos);
    }
    e->literal = Value::Decimal(p, s, unscaled);
    return e;
  }
  if (!is_decimal_text && !has_exp && (last == 'L' || last == 'S' || last == 'Y')) {
    __int128 v;
    std::string digits = text.substr(0, text.size() - 1);
    bool ok = parse_int(digits, &v);
    if (last == 'L') {
      if (!ok || v < INT64_MIN || v > INT64_MAX) {
        return range_error("bigint", "-9223372036854775808", "9223372036854775807");
      }
      e->literal = Value::Int64(static_cast<int64_t>(v));
    } else if (last == 'S') {
      if (!ok || v < INT16_MIN || v > INT16_MAX) return range_error("smallint", "-32768", "32767");
      e->literal = Value::Integer(DataType::Int16(), static_cast<int64_t>(v));
    } else {
      if (!ok || v < INT8_MIN || v > INT8_MAX) return range_error("tinyint", "-128", "127");
      e->literal = Value::Integer(DataType::Int8(), static_cast<int64_t>(v));
    }
    return e;
  }
  if (last == 'D' || last == 'F' || has_exp) {
    bool is_float = last == 'F';
    std::string body = text;
    if (last == 'D' || last == 'F') body.pop_back();
    double d = 0;
    auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), d);
    if (ptr != body.data() + body.size() ||
        (ec != std::errc() && ec != std::errc::result_out_of_range)) {
      return ErrorAt(t);
    }
    if (ec == std::errc::result_out_of_range || std::isinf(d) ||
        (is_float && std::fabs(d) > std::numeric_limits<float>::max())) {
      if (is_float) {
        return range_error("float", "-3.4028234663852886E+38", "3.4028234663852886E+38");
      }
      // Keep the whole text in the message for doubles (no suffix to strip when exponent only).
      return ClassError(
          errc::kInvalidNumericLiteralRange,
          "Numeric literal " + std::string(negative ? "-" : "") + body +
              " is outside the valid range for double with minimum value of "
              "-1.7976931348623157E+308 and maximum value of 1.7976931348623157E+308. "
              "Please adjust the value accordingly",
          t.pos);
    }
    if (negative) d = -d;
    e->literal =
        is_float ? Value::Floating(DataType::Float(), static_cast<float>(d)) : Value::Double(d);
    return e;
  }
  if (is_decimal_text) {
    int128_t unscaled;
    int p, s;
    std::string body = (negative ? "-" : "") + text;
    if (!ParseDecimalLiteral(body, &unscaled, &p, &s)) {
      return ClassError(errc::kDecimalPrecisionExceedsMaxPrecision,
                        "Decimal precision exceeds max precision 38 in literal " + body, t.pos);
    }
    e->literal = Value::Decimal(p, s, unscaled);
    return e;
  }
  // INTEGER_VALUE: int when it fits, else bigint, else decimal(digits, 0).
  __int128 v;
  if (parse_int(text, &v) && v >= INT32_MIN && v <= INT32_MAX) {
    e->literal = Value::Int32(static_cast<int32_t>(v));
  } else if (parse_int(text, &v) && v >= INT64_MIN && v <= INT64_MAX) {
    e->literal = Value::Int64(static_cast<int64_t>(v));
  } else {
    int128_t unscaled;
    int p, s;
    std::string body = (negative ? "-" : "") + text;
    if (!ParseDecimalLiteral(body, &unscaled, &p, &s)) {
      return ClassError(
          errc::kDecimalPrecisionExceedsMaxPrecision,
          "Decimal precision " + std::to_string(text.size()) + " exceeds max precision 38", t.pos);
    }
    e->literal = Value::Decimal(p, s, unscaled);
  }
  return e;
}

namespace {
struct UnitInfo {
  const char* name;  // canonical upper-case singular
  bool year_month;
  int64_t micros;  // per unit (day-time)
  int64_t months;  // per unit (year-month)
  int rank;        // for qualifier ordering: YEAR 0, MONTH 1, DAY 2, HOUR 3, MINUTE 4, SECOND 5
};
std::optional<UnitInfo> LookupUnit(std::string_view word, bool allow_plural) {
  std::string u = AsciiUpper(word);
  if (allow_plural && u.size() > 1 && u.back() == 'S' && u != "S") u.pop_back();
  static const UnitInfo kUnits[] = {
      {"YEAR", true, 0, 12, 0},
      {"MONTH", true, 0, 1, 1},
      {"WEEK", false, 7LL * 86400000000LL, 0, 2},
      {"DAY", false, 86400000000LL, 0, 2},
      {"HOUR", false, 3600000000LL, 0, 3},
      {"MINUTE", false, 60000000LL, 0, 4},
      {"SECOND", false, 1000000LL, 0, 5},
      {"MILLISECOND", false, 1000LL, 0, 5},
      {"MICROSECOND", false, 1LL, 0, 5},
  };
  for (const auto& k : kUnits) {
    if (u == k.name) return k;
  }
  return std::nullopt;
}
}  // namespace

namespace {
// Spark 4's error for an interval literal mixing year-month and day-time units (ParseException).
Status MixedIntervalUnitsError(const std::string& sql, const std::string& literal,
                               const SourcePos& pos) {
  return Status::InvalidArgument(
      FormatParseError(sql,
                       "Cannot mix year-month and day-time fields: " + literal +
                           ". (INTERVAL literals of Spark's legacy CalendarInterval type are "
                           "only available with spark.sql.legacy.interval.enabled.)",
                       pos),
      errc::kLegacyErrorTemp0029);
}
}  // namespace

Result<ExprNode> Parser::IntervalLiteral(SourcePos pos) {
  auto MixedIntervalUnits = [&](const std::string& literal, const SourcePos& p) {
    return MixedIntervalUnitsError(std::string(sql_), literal, p);
  };
  auto e = NewExpr(ExprType::kInterval, pos);
  auto invalid = [&](const std::string& what) {
    return ClassError(errc::kInvalidIntervalFormat, "Error parsing interval: " + what, pos);
  };
  // Spark's errorCapturingUnitToUnitInterval: `'…' unit TO unit` followed by more value-unit
  // pairs or another `… TO …`.
  auto SingleFromToError = [&]() {
    return ClassError(errc::kLegacyErrorTemp0024,
                      "Can only have a single from-to unit in the interval literal syntax.", pos);
  };
  auto MoreIntervalUnits = [&]() {
    return (Peek().kind == TokenKind::kNumber || Peek().kind == TokenKind::kString) &&
           Peek(1).kind == TokenKind::kWord && LookupUnit(Peek(1).text, true);
  };
  // INTERVAL 'string' alone: a calendar interval from the text.
  if (Peek().kind == TokenKind::kString &&
      !(LookupUnit(Peek(1).text, true) && Peek(1).kind == TokenKind::kWord)) {
    SILT_ASSIGN_OR_RETURN(auto text, StringLit());
    auto r = ParseIntervalString(text);
    if (!r.ok()) {
      return ClassError(errc::kInvalidTypedLiteral,
                        "The value of the typed literal \"INTERVAL\" is invalid: '" + text + "'",
                        pos);
    }
    e->interval_months = r->first;
    e->interval_micros = r->second;
    // Spark types the literal by the units written in it, as the multi-unit form.
    std::vector<std::string> words;
    {
      std::string cur;
      for (char ch : text) {
        if (std::isspace(static_cast<unsigned char>(ch))) {
          if (!cur.empty()) words.push_back(std::move(cur));
          cur.clear();
        } else {
          cur.push_back(ch);
        }
      }
      if (!cur.empty()) words.push_back(std::move(cur));
    }
    size_t k0 = !words.empty() && AsciiUpper(words[0]) == "INTERVAL" ? 1 : 0;
    int lo = 99, hi = -1;
    bool ym = false, dt = false;
    for (size_t k = k0 + 1; k < words.size(); k += 2) {
      auto u = LookupUnit(words[k], true);
      if (!u) return invalid("'" + text + "'");
      (u->year_month ? ym : dt) = true;
      lo = std::min(lo, u->rank);
      hi = std::max(hi, u->rank);
    }
    if (ym && dt) return MixedIntervalUnits("interval '" + text + "'", pos);
    static const char* const kRankNames[] = {"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"};
    if (hi >= 0) {
      e->interval_qualifier = lo == hi ? std::string(kRankNames[lo])
                                       : std::string(kRankNames[lo]) + " TO " + kRankNames[hi];
    }
    return e;
  }
  size_t start_tok = p_;
  __int128 months = 0, micros = 0;
  int min_rank = 99, max_rank = -1;
  bool any_ym = false, any_dt = false;
  std::string first_unit, last_unit;
  int count = 0;
  while (true) {
    // intervalValue: [+-] (INTEGER | DECIMAL | string)
    bool neg = false;
    size_t save = p_;
    if (AtOp("-") || AtOp("+")) neg = Next().IsOp("-");
    std::string value_text;
    bool is_string = false;
    if (Peek().kind == TokenKind::kNumber) {
      value_text = Next().text;
    } else if (Peek().kind == TokenKind::kString) {
      value_text = Next().text;
      is_string = true;
    } else {
      p_ = save;
      break;
    }
    if (Peek().kind != TokenKind::kWord) return ErrorHere();
    auto unit = LookupUnit(Peek().text, true);
    if (!unit &&
        (AsciiUpper(Peek().text) == "NANOSECOND" || AsciiUpper(Peek().text) == "NANOSECONDS")) {
      // Spark's grammar has the unit; its interval parser refuses it.
      return ClassError(errc::kInvalidIntervalFormatInvalidUnit,
                        "Error parsing ' " + value_text + " " + Peek().text +
                            "' to interval, invalid unit '" + Peek().text + "'.",
                        pos);
    }
    if (!unit) return ErrorHere();
    Next();
    ++count;
    // Spark's errorCapturingMultiUnitsInterval: value-unit pairs followed by `… TO …`.
    if (count > 1 && AtKw("TO")) return SingleFromToError();
    // Unit TO unit (only as the single element).
    if (count == 1 && AtKw("TO")) {
      // Spark's visitUnitToUnitInterval: the value must be a string.
      if (!is_string) {
        return ClassError(errc::kLegacyErrorTemp0027, "The value of from-to unit must be a string.",
                          pos);
      }
      Next();
      if (Peek().kind != TokenKind::kWord) return ErrorHere();
      auto to = LookupUnit(Peek().text, false);
      if (!to) return ErrorHere();
      Next();
      std::string from_name = unit->name, to_name = to->name;
      std::string s = value_text;
      // Spark trims the text first (String.trim: every character up to ' ').
      while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.pop_back();
      size_t lead = 0;
      while (lead < s.size() && static_cast<unsigned char>(s[lead]) <= ' ') ++lead;
      s.erase(0, lead);
      bool sneg = neg;
      if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        sneg = sneg != (s[0] == '-');
        s = s.substr(1);
      }
      auto num = [&](std::string_view d, int64_t* v) {
        if (d.empty() || d.size() > 18) return false;
        *v = 0;
        for (char c : d) {
          if (!std::isdigit(static_cast<unsigned char>(c))) return false;
          *v = *v * 10 + (c - '0');
        }
        return true;
      };
      if (from_name == "YEAR" && to_name == "MONTH") {
        size_t dash = s.find('-');
        int64_t y, m;
        if (dash == std::string::npos || !num(s.substr(0, dash), &y) ||
            !num(s.substr(dash + 1), &m) || m > 11) {
          return invalid("'" + value_text + "' for YEAR TO MONTH");
        }
        months = y * 12 + m;
        if (sneg) months = -months;
        e->interval_months = static_cast<int64_t>(months);
        e->interval_qualifier = "YEAR TO MONTH";
        if (MoreIntervalUnits()) return SingleFromToError();
        return e;
      }
      if (unit->year_month || to->year_month || unit->rank >= to->rank || unit->micros < 1000000 ||
          to->micros < 1000000 || std::string(unit->name) == "WEEK") {
        return invalid(from_name + " TO " + to_name + " is not supported");
      }
      // Day-time: fields separated by ' ' (after days) and ':'; seconds may have a fraction.
      std::vector<std::string> parts;
      {
        std::string cur;
        for (char c : s) {
          if (c == ' ' || c == ':') {
            parts.push_back(cur);
            cur.clear();
          } else {
            cur.push_back(c);
          }
        }
        parts.push_back(cur);
      }
      int nfields = to->rank - unit->rank + 1;
      if (static_cast<int>(parts.size()) != nfields) {
        return invalid("'" + value_text + "' for " + from_name + " TO " + to_name);
      }
      __int128 total = 0;
      for (int k = 0; k < nfields; ++k) {
        int rank = unit->rank + k;
        const std::string& part = parts[k];
        if (k == 0 && rank < 5) {
          // Spark's range of the leading field (Long.MaxValue microseconds in that unit).
          static const char* const kFieldNames[] = {"day", "hour", "minute"};
          static const int64_t kFieldMax[] = {106751991LL, 2562047788LL, 153722867280LL};
          int64_t v;
          if (num(part, &v) && v > kFieldMax[rank - 2]) {
            return ClassError(errc::kLegacyErrorTemp0063,
                              "requirement failed: " + std::string(kFieldNames[rank - 2]) + " " +
                                  part + " outside range [0, " +
                                  std::to_string(kFieldMax[rank - 2]) + "]",
                              pos);
          }
        }
        int64_t per = rank == 2   ? 86400000000LL
                      : rank == 3 ? 3600000000LL
                      : rank == 4 ? 60000000LL
                                  : 1000000LL;
        if (rank == 5) {
          int128_t unscaled;
          int p, sc;
          if (!ParseDecimalLiteral(part, &unscaled, &p, &sc) || p > 20 || sc > 9) {
            return invalid("'" + value_text + "'");
          }
          __int128 pw = 1;
          for (int j = 0; j < sc; ++j) pw *= 10;
          total += unscaled * per / pw;
        } else {
          int64_t v;
          if (!num(part, &v)) return invalid("'" + value_text + "'");
          if (k > 0 && ((rank == 3 && v > 23) || (rank == 4 && v > 59))) {
            return invalid("'" + value_text + "'");
          }
          total += static_cast<__int128>(v) * per;
        }
      }
      // The negative range reaches Long.MinValue microseconds.
      if (total > (sneg ? -static_cast<__int128>(INT64_MIN) : static_cast<__int128>(INT64_MAX))) {
        return ClassError(errc::kLegacyErrorTemp0063, "long overflow", pos);
      }
      e->interval_micros = static_cast<int64_t>(sneg ? -total : total);
      e->interval_qualifier = from_name + " TO " + to_name;
      if (MoreIntervalUnits()) return SingleFromToError();
      return e;
    }
    // Single unit value.
    std::string v = value_text;
    if (is_string) {
      // Trim and accept a sign inside the string.
      while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.erase(0, 1);
      while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
      // As Spark's interval-string parser: blanks may follow the sign ('-\t 1' day is -1 day).
      if (!v.empty() && (v[0] == '-' || v[0] == '+')) {
        size_t k = 1;
        while (k < v.size() && std::isspace(static_cast<unsigned char>(v[k]))) ++k;
        v.erase(1, k - 1);
      }
      // Spark's visitMultiUnitsInterval: a string value with letters ('1 day 2' day).
      for (char c : value_text) {
        if (std::isalpha(static_cast<unsigned char>(c))) {
          return ClassError(errc::kLegacyErrorTemp0026,
                            "Can only use numbers in the interval value part for multiple unit "
                            "value pairs interval form, but got invalid value: " +
                                value_text + ".",
                            pos);
        }
      }
    }
    int128_t unscaled;
    int p, sc;
    if (!ParseDecimalLiteral(v, &unscaled, &p, &sc) || p > 24) {
      return invalid("'" + value_text + "'");
    }
    if (neg) unscaled = -unscaled;
    __int128 pw = 1;
    for (int j = 0; j < sc; ++j) pw *= 10;
    if (unit->year_month) {
      if (sc != 0) return invalid("fractional " + std::string(unit->name));
      months += unscaled * unit->months;
      any_ym = true;
    } else {
      micros += unscaled * unit->micros / pw;
      any_dt = true;
    }
    if (micros > INT64_MAX || micros < INT64_MIN || months > INT32_MAX || months < INT32_MIN) {
      return ClassError(errc::kIntervalArithmeticOverflow,
                        "Interval value overflows: the interval literal is out of range", pos);
    }
    int rank = unit->rank;
    std::string qname = std::string(unit->name);
    if (qname == "WEEK") qname = "DAY";
    if (qname == "MILLISECOND" || qname == "MICROSECOND") qname = "SECOND";
    if (rank < min_rank) {
      min_rank = rank;
      first_unit = qname;
    }
    if (rank > max_rank) {
      max_rank = rank;
      last_unit = qname;
    }
    // Another element only when a unit follows its value: in `interval '2' year + '3-3'` the
    // `+` is an operator (Spark's grammar backtracks there).
    const size_t k = AtOp("-") || AtOp("+") ? 1 : 0;
    if (!((Peek(k).kind == TokenKind::kNumber || Peek(k).kind == TokenKind::kString) &&
          Peek(k + 1).kind == TokenKind::kWord && LookupUnit(Peek(k + 1).text, true))) {
      break;
    }
  }
  if (count == 0) return ErrorHere();
  e->interval_months = static_cast<int64_t>(months);
  e->interval_micros = static_cast<int64_t>(micros);
  if (any_ym && any_dt) {
    // Spark 4 (spark.sql.legacy.interval.enabled=false) has no literal mixing the two kinds.
    return MixedIntervalUnits("interval " + SourceText(t_[start_tok].pos.offset, t_[p_].pos.offset),
                              pos);
  } else {
    e->interval_qualifier = first_unit == last_unit ? first_unit : first_unit + " TO " + last_unit;
  }
  return e;
}

Result<ExprNode> Parser::TypedStringLiteral(std::string_view kw, SourcePos pos) {
  SILT_ASSIGN_OR_RETURN(auto text, StringLit());
  auto e = NewExpr(ExprType::kLiteral, pos);
  auto invalid = [&]() {
    return ClassError(
        errc::kInvalidTypedLiteral,
        "The value of the typed literal \"" + std::string(kw) + "\" is invalid: '" + text + "'",
        pos);
  };
  if (kw == "DATE") {
    auto d = ParseSparkDate(text);
    if (!d) return invalid();
    e->literal = Value::Integer(DataType::Date(), *d);
    return e;
  }
  if (kw == "TIMESTAMP" || kw == "TIMESTAMP_LTZ" || kw == "TIMESTAMP_NTZ") {
    bool has_zone = false;
    auto ts = ParseSparkTimestamp(text, &has_zone);
    if (!ts) return invalid();
    // More than six fraction digits: the literal keeps them (a nanosecond timestamp), so that
    // `timestamp_ntz'… .123456789'::timestamp_ntz(9)` loses nothing, as in Spark.
    const bool nanos = FractionDigits(text) > 6;
    int64_t value = *ts;
    if (nanos && (!MicrosToNanos(*ts, &value) ||
                  __builtin_add_overflow(value, SubMicroNanos(text), &value))) {
      return invalid();
    }
    if (kw == "TIMESTAMP_NTZ") {
      // Spark ignores nothing here: a zone makes a TIMESTAMP_NTZ literal invalid.
      if (has_zone) return invalid();
      e->literal =
          Value::Integer(nanos ? DataType::TimestampNtzNanos(9) : DataType::TimestampNtz(), value);
    } else {
      e->literal =
          Value::Integer(nanos ? DataType::TimestampNanos(9) : DataType::Timestamp(), value);
      e->local_timestamp = !has_zone;
    }
    return e;
  }
  if (kw == "TIME") {
    // Spark's TIME literal: TIME(6) (the type's default), holding every digit of the text.
    int64_t ns;
    if (!ParseTimeText(text, &ns)) return invalid();
    e->literal = Value::Integer(DataType::Time(FractionDigits(text) > 6 ? 9 : 6), ns);
    return e;
  }
  if (kw == "X") {
    std::string hex = text;
    if (hex.size() % 2) hex = "0" + hex;
    std::string bytes;
    for (size_t i = 0; i < hex.size(); i += 2) {
      auto hv = [](char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
      };
      int a = hv(hex[i]), b = hv(hex[i + 1]);
      if (a < 0 || b < 0) return invalid();
      bytes.push_back(static_cast<char>(a * 16 + b));
    }
    e->literal = Value::Binary(std::move(bytes));
    return e;
  }
  return invalid();
}

}  // namespace silt::sql::internal
