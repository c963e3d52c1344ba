// ToString of AST nodes. ParsedExpr::ToString reproduces Spark's auto-generated column names
// (toPrettySQL / usePrettyExpression over the analysed expression): literals print bare
// (strings unquoted, numbers as Java prints them), columns by their last name part, operators
// parenthesised, functions lower-cased with their arguments, casts as CAST(x AS TYPE).
// What only analysis can know is approximated: a qualified reference prints its last part (Spark
// prints `s.f` for a struct field, which the binder must name itself), and a window without a
// frame prints the default frame Spark would fill in for an aggregate.
#include "sql/ast.h"

#include <cctype>
#include <string>

#include "common/ascii.h"
#include "common/number_format.h"
#include "vector/time_text.h"
#include "vector/type_sql.h"

namespace silt::sql {

namespace {

std::string QuoteIfNeeded(const std::string& part) { return QuoteIdentifierIfNeeded(part); }

std::string TimestampText(int64_t micros) {
  std::string s = FormatTimestampMicros(micros);  // "YYYY-MM-DD HH:MM:SS.ffffff"
  size_t dot = s.rfind('.');
  if (dot != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string LiteralPretty(const Value& v) {
  if (v.is_null()) return "NULL";
  switch (v.type()->id()) {
    case TypeId::kBoolean:
      return v.boolean() ? "true" : "false";
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      return std::to_string(v.integer());
    case TypeId::kFloat:
      return FormatJavaFloat(static_cast<float>(v.floating()));
    case TypeId::kDouble:
      return FormatJavaDouble(v.floating());
    case TypeId::kDecimal:
      return FormatJavaBigDecimal(v.decimal(), v.type()->scale());
    case TypeId::kString:
      return v.str();
    case TypeId::kBinary: {
      static const char* kHex = "0123456789ABCDEF";
      std::string s = "X'";
      for (unsigned char c : v.str()) {
        s.push_back(kHex[c >> 4]);
        s.push_back(kHex[c & 15]);
      }
      return s + "'";
    }
    case TypeId::kDate:
      return "DATE '" + FormatDate(static_cast<int32_t>(v.integer())) + "'";
    case TypeId::kTimestamp:
      return "TIMESTAMP '" + TimestampText(v.integer()) + "'";
    case TypeId::kTimestampNtz:
      return "TIMESTAMP_NTZ '" + TimestampText(v.integer()) + "'";
    case TypeId::kTimestampNanos:
      return "TIMESTAMP_LTZ '" + FormatTimestampNanosText(v.integer()) + "'";
    case TypeId::kTimestampNtzNanos:
      return "TIMESTAMP_NTZ '" + FormatTimestampNanosText(v.integer()) + "'";
    case TypeId::kTime:
      return "TIME '" + FormatTimeText(v.integer()) + "'";
    default:
      return v.ToString();
  }
}

std::string Pad2(uint64_t v) {
  std::string s = std::to_string(v);
  return s.size() < 2 ? "0" + s : s;
}

// BigDecimal.valueOf(micros, 6).stripTrailingZeros.toPlainString
std::string SecondsText(uint64_t micros) {
  std::string s = std::to_string(micros / 1000000);
  uint64_t frac = micros % 1000000;
  if (frac) {
    std::string f = std::to_string(frac);
    f = std::string(6 - f.size(), '0') + f;
    while (!f.empty() && f.back() == '0') f.pop_back();
    s += "." + f;
  }
  return s;
}

int FieldRank(const std::string& f) {
  if (f == "DAY") return 0;
  if (f == "HOUR") return 1;
  if (f == "MINUTE") return 2;
  return 3;
}

std::string IntervalPretty(const ParsedExpr& e) {
  const std::string& q = e.interval_qualifier;
  if (q.empty()) {
    // CalendarInterval.toString: "1 years 2 months 3 days 4 hours 5 minutes 6.5 seconds" style.
    std::string s;
    auto add = [&](const std::string& part) {
      if (!s.empty()) s += " ";
      s += part;
    };
    int64_t m = e.interval_months;
    if (m / 12) add(std::to_string(m / 12) + " years");
    if (m % 12) add(std::to_string(m % 12) + " months");
    int64_t us = e.interval_micros;
    bool neg = us < 0;
    uint64_t r = neg ? static_cast<uint64_t>(-(us + 1)) + 1 : static_cast<uint64_t>(us);
    std::string sg = neg ? "-" : "";
    uint64_t days = r / 86400000000ULL;
    r %= 86400000000ULL;
    if (days) add(sg + std::to_string(days) + " days");
    uint64_t h = r / 3600000000ULL;
    r %= 3600000000ULL;
    if (h) add(sg + std::to_string(h) + " hours");
    uint64_t mi = r / 60000000ULL;
    r %= 60000000ULL;
    if (mi) add(sg + std::to_string(mi) + " minutes");
    if (r) add(sg + SecondsText(r) + " seconds");
    if (s.empty()) s = "0 seconds";
    return "INTERVAL '" + s + "'";
  }
  size_t to = q.find(" TO ");
  std::string from = to == std::string::npos ? q : q.substr(0, to);
  std::string end = to == std::string::npos ? q : q.substr(to + 4);
  if (from == "YEAR" || from == "MONTH") {
    int64_t m = e.interval_months;
    std::string sg = m < 0 ? "-" : "";
    if (m < 0) m = -m;
    std::string body;
    if (from == "YEAR" && end == "MONTH") {
      body = sg + std::to_string(m / 12) + "-" + std::to_string(m % 12);
    } else if (from == "YEAR") {
      body = sg + std::to_string(m / 12);
    } else {
      body = sg + std::to_string(m);
    }
    return "INTERVAL '" + body + "' " + q;
  }
  int64_t us = e.interval_micros;
  std::string sg = us < 0 ? "-" : "";
  // The magnitude, unsigned: -INT64_MIN (the day-time interval's lower bound) fits no int64_t.
  uint64_t rest = us < 0 ? static_cast<uint64_t>(-(us + 1)) + 1 : static_cast<uint64_t>(us);
  std::string body;
  int start = FieldRank(from), stop = FieldRank(end);
  switch (start) {
    case 0:
      body = sg + std::to_string(rest / 86400000000LL);
      rest %= 86400000000LL;
      break;
    case 1:
      body = sg + Pad2(rest / 3600000000LL);
      rest %= 3600000000LL;
      break;
    case 2:
      body = sg + Pad2(rest / 60000000LL);
      rest %= 60000000LL;
      break;
    default:
      body = sg + (rest < 10000000 ? "0" : "") + SecondsText(rest);
      rest = 0;
      break;
  }
  if (start < 1 && 1 <= stop) {
    body += " " + Pad2(rest / 3600000000LL);
    rest %= 3600000000LL;
  }
  if (start < 2 && 2 <= stop) {
    body += ":" + Pad2(rest / 60000000LL);
    rest %= 60000000LL;
  }
  if (start < 3 && 3 <= stop) {
    body += std::string(":") + (rest < 10000000 ? "0" : "") + SecondsText(rest);
  }
  return "INTERVAL '" + body + "' " + q;
}

struct Printer {
  std::vector<const std::vector<std::string>*> lambda_scopes;

  bool IsLambdaVar(const ParsedExpr& e) const {
    if (e.names.size() != 1) return false;
    for (auto it = lambda_scopes.rbegin(); it != lambda_scopes.rend(); ++it) {
      for (const auto& p : **it) {
        if (AsciiLower(p) == AsciiLower(e.names[0])) return true;
      }
    }
    return false;
  }

  std::string Sort(const OrderItem& o) {
    bool nulls_first = o.nulls_first.value_or(o.ascending);
    return Print(*o.expr) + (o.ascending ? " ASC" : " DESC") +
           (nulls_first ? " NULLS FIRST" : " NULLS LAST");
  }

  std::string Bound(WindowFrame::BoundType b, const ExprNode& off) {
    switch (b) {
      case WindowFrame::BoundType::kUnboundedPreceding:
        return "UNBOUNDED PRECEDING";
      case WindowFrame::BoundType::kUnboundedFollowing:
        return "UNBOUNDED FOLLOWING";
      case WindowFrame::BoundType::kCurrentRow:
        return "CURRENT ROW";
      case WindowFrame::BoundType::kPreceding:
        return (off ? Print(*off) : "?") + " PRECEDING";
      case WindowFrame::BoundType::kFollowing:
        return (off ? Print(*off) : "?") + " FOLLOWING";
    }
    return "";
  }

  std::string Window(const ParsedExpr& f) {
    const WindowSpec& w = *f.over;
    if (!w.name.empty() && w.partition_by.empty() && w.order_by.empty() && !w.frame) {
      return " OVER " + w.name;
    }
    std::string s = " OVER (";
    if (!w.partition_by.empty()) {
      s += "PARTITION BY ";
      for (size_t i = 0; i < w.partition_by.size(); ++i) {
        s += (i ? ", " : "") + Print(*w.partition_by[i]);
      }
      s += " ";
    }
    if (!w.order_by.empty()) {
      s += "ORDER BY ";
      for (size_t i = 0; i < w.order_by.size(); ++i) s += (i ? ", " : "") + Sort(w.order_by[i]);
      s += " ";
    }
    if (w.frame) {
      s += w.frame->unit == WindowFrame::Unit::kRows ? "ROWS" : "RANGE";
      s += " BETWEEN " + Bound(w.frame->start, w.frame->start_offset) + " AND " +
           Bound(w.frame->end, w.frame->end_offset);
    } else {
      std::string fn = AsciiLower(f.names.empty() ? "" : f.names.back());
      if (fn == "row_number" || fn == "rank" || fn == "dense_rank" || fn == "percent_rank" ||
          fn == "cume_dist" || fn == "ntile") {
        s += "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW";
      } else if (fn == "lag" || fn == "lead") {
        std::string off = f.children.size() > 1 ? Print(*f.children[1]) : "1";
        if (fn == "lag") off = off[0] == '-' ? off.substr(1) : "-" + off;
        s += "ROWS BETWEEN " + off + " FOLLOWING AND " + off + " FOLLOWING";
      } else if (!w.order_by.empty()) {
        s += "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW";
      } else {
        s += "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING";
      }
    }
    return s + ")";
  }

  std::string Args(const ParsedExpr& e, size_t from = 0) {
    std::string s;
    for (size_t i = from; i < e.children.size(); ++i) {
      if (i > from) s += ", ";
      s += Print(*e.children[i]);
    }
    return s;
  }

  std::string Print(const ParsedExpr& e) {
    switch (e.type) {
      case ExprType::kLiteral:
        return LiteralPretty(e.literal);
      case ExprType::kInterval:
        return IntervalPretty(e);
      case ExprType::kColumnRef:
        if (IsLambdaVar(e)) return "namedlambdavariable()";
        return e.names.empty() ? "" : e.names.back();
      case ExprType::kStar: {
        std::string s;
        for (const auto& n : e.names) s += QuoteIfNeeded(n) + ".";
        return s + "*";
      }
      case ExprType::kFunction: {
        std::string name = AsciiLower(e.names.empty() ? "" : e.names.back());
        std::string s;
        if (e.star_arg) {
          s = name + "(" + (name == "count" ? "1" : "*") + ")";
        } else {
          s = name + "(" + (e.distinct ? "DISTINCT " : "") + Args(e) + ")";
        }
        if (e.ignore_nulls) s += " IGNORE NULLS";
        if (!e.within_group.empty()) {
          s += " WITHIN GROUP (ORDER BY ";
          for (size_t i = 0; i < e.within_group.size(); ++i) {
            s += (i ? ", " : "") + Sort(e.within_group[i]);
          }
          s += ")";
        }
        if (e.filter) s += " FILTER (WHERE " + Print(*e.filter) + ")";
        if (e.over) s += Window(e);
        return s;
      }
      case ExprType::kUnary: {
        const std::string& c = Print(*e.children[0]);
        if (e.op == "not") return "(NOT " + c + ")";
        if (e.op == "~") return "~" + c;
        return "(" + e.op + " " + c + ")";
      }
      case ExprType::kBinary: {
        std::string l = Print(*e.children[0]), r = Print(*e.children[1]);
        const std::string& op = e.op;
        if (op == "||") return "concat(" + l + ", " + r + ")";
        if (op == "<>" || op == "!=") return "(NOT (" + l + " = " + r + "))";
        if (op == "<<") return "shiftleft(" + l + ", " + r + ")";
        if (op == ">>") return "shiftright(" + l + ", " + r + ")";
        if (op == ">>>") return "shiftrightunsigned(" + l + ", " + r + ")";
        std::string shown = op == "==" ? "=" : op == "and" ? "AND" : op == "or" ? "OR" : op;
        return "(" + l + " " + shown + " " + r + ")";
      }
      case ExprType::kIsNull:
        return "(" + Print(*e.children[0]) + (e.negated ? " IS NOT NULL)" : " IS NULL)");
      case ExprType::kIsBool: {
        std::string s =
            "(" + Print(*e.children[0]) + " <=> " + (e.bool_value ? "true" : "false") + ")";
        return e.negated ? "(NOT " + s + ")" : s;
      }
      case ExprType::kIsDistinctFrom: {
        std::string s = "(" + Print(*e.children[0]) + " <=> " + Print(*e.children[1]) + ")";
        return e.negated ? s : "(NOT " + s + ")";
      }
      case ExprType::kBetween: {
        std::string s = "between(" + Args(e) + ")";
        return e.negated ? "(NOT " + s + ")" : s;
      }
      case ExprType::kInList: {
        std::string s = "(" + Print(*e.children[0]) + " IN (" + Args(e, 1) + "))";
        return e.negated ? "(NOT " + s + ")" : s;
      }
      case ExprType::kInSubquery: {
        std::string s = "(" + Print(*e.children[0]) + " IN (listquery()))";
        return e.negated ? "(NOT " + s + ")" : s;
      }
      case ExprType::kExists:
        return e.negated ? "(NOT exists())" : "exists()";
      case ExprType::kScalarSubquery:
        return "scalarsubquery()";
      case ExprType::kLike: {
        std::string s;
        if (!e.quantifier.empty()) {
          s = Print(*e.children[0]) + " " + AsciiUpper(e.op) + " " + AsciiUpper(e.quantifier) +
              " (" + Args(e, 1) + ")";
        } else if (e.op == "like") {
          s = Print(*e.children[0]) + " LIKE " + Print(*e.children[1]);
          if (e.children.size() > 2 && e.children[2]->literal.type()->id() == TypeId::kString &&
              !e.children[2]->literal.is_null() && e.children[2]->literal.str() != "\\") {
            s += " ESCAPE '" + e.children[2]->literal.str() + "'";
          }
        } else if (e.op == "ilike") {
          s = "ilike(" + Args(e) + ")";
        } else {
          s = "RLIKE(" + Print(*e.children[0]) + ", " + Print(*e.children[1]) + ")";
        }
        return e.negated ? "(NOT " + s + ")" : s;
      }
      case ExprType::kCase: {
        std::string s = "CASE";
        size_t i = 0;
        std::string operand;
        if (e.has_operand) operand = Print(*e.children[i++]);
        size_t pairs_end = e.children.size() - (e.has_else ? 1 : 0);
        for (; i + 1 < pairs_end + 1 && i < pairs_end; i += 2) {
          std::string w = Print(*e.children[i]);
          if (e.has_operand) w = "(" + operand + " = " + w + ")";
          s += " WHEN " + w + " THEN " + Print(*e.children[i + 1]);
        }
        if (e.has_else) s += " ELSE " + Print(*e.children.back());
        return s + " END";
      }
      case ExprType::kCast:
        return std::string(e.try_cast ? "TRY_CAST(" : "CAST(") + Print(*e.children[0]) + " AS " +
               TypeSql(e.cast_type) + ")";
      case ExprType::kSubscript:
        return Print(*e.children[0]) + "[" + Print(*e.children[1]) + "]";
      case ExprType::kFieldAccess:
        return Print(*e.children[0]) + "." + e.field;
      case ExprType::kLambda: {
        lambda_scopes.push_back(&e.lambda_params);
        std::string s = "lambdafunction(" + Print(*e.children[0]);
        for (size_t i = 0; i < e.lambda_params.size(); ++i) s += ", namedlambdavariable()";
        lambda_scopes.pop_back();
        return s + ")";
      }
      case ExprType::kNamedArgument:
        if (e.op == "as") return Print(*e.children[0]) + " AS " + e.field;  // struct(x AS f)
        return e.field + " => " + Print(*e.children[0]);
      case ExprType::kPositional:
        return "?";
    }
    return "";
  }
};

}  // namespace

std::string ParsedExpr::ToString() const {
  Printer p;
  return p.Print(*this);
}

std::string TableName::ToString() const {
  if (is_path()) {
    std::string s = path_format + ".`";
    for (char c : path) {
      if (c == '`')
        s += "``";
      else
        s.push_back(c);
    }
    return s + "`";
  }
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) s += ".";
    s += QuoteIfNeeded(parts[i]);
  }
  return s;
}

}  // namespace silt::sql
