#include "vector/type_sql.h"

#include <cctype>

namespace silt {

namespace {

bool NeedsQuote(const std::string& part) {
  if (part.empty()) return true;
  bool all_digits = true;
  for (char c : part) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return true;
    if (!std::isdigit(static_cast<unsigned char>(c))) all_digits = false;
  }
  return all_digits;
}

}  // namespace

std::string QuoteIdentifierIfNeeded(const std::string& part) {
  if (!NeedsQuote(part)) return part;
  std::string out = "`";
  for (char c : part) {
    if (c == '`')
      out += "``";
    else
      out.push_back(c);
  }
  return out + "`";
}

// Spark's DataType.sql.
std::string TypeSql(const TypePtr& t) {
  if (!t) return "?";
  switch (t->id()) {
    case TypeId::kNull:
      return "VOID";
    case TypeId::kBoolean:
      return "BOOLEAN";
    case TypeId::kInt8:
      return "TINYINT";
    case TypeId::kInt16:
      return "SMALLINT";
    case TypeId::kInt32:
      return "INT";
    case TypeId::kInt64:
      return "BIGINT";
    case TypeId::kFloat:
      return "FLOAT";
    case TypeId::kDouble:
      return "DOUBLE";
    case TypeId::kDecimal:
      return "DECIMAL(" + std::to_string(t->precision()) + "," + std::to_string(t->scale()) + ")";
    case TypeId::kString:
      return "STRING";
    case TypeId::kBinary:
      return "BINARY";
    case TypeId::kDate:
      return "DATE";
    case TypeId::kTimestamp:
      return "TIMESTAMP";
    case TypeId::kTimestampNtz:
      return "TIMESTAMP_NTZ";
    case TypeId::kTime:
      return "TIME(" + std::to_string(t->precision()) + ")";
    case TypeId::kTimestampNanos:
      return "TIMESTAMP_LTZ(" + std::to_string(t->precision()) + ")";
    case TypeId::kTimestampNtzNanos:
      return "TIMESTAMP_NTZ(" + std::to_string(t->precision()) + ")";
    case TypeId::kCalendarInterval:
      return "INTERVAL";
    case TypeId::kYearMonthInterval:
    case TypeId::kDayTimeInterval: {
      std::string s = t->ToString();
      for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      return s;
    }
    case TypeId::kList:
      return "ARRAY<" + TypeSql(t->element_type()) + ">";
    case TypeId::kMap:
      return "MAP<" + TypeSql(t->key_type()) + ", " + TypeSql(t->value_type()) + ">";
    case TypeId::kStruct: {
      std::string s = "STRUCT<";
      for (size_t i = 0; i < t->fields().size(); ++i) {
        if (i) s += ", ";
        s += QuoteIdentifierIfNeeded(t->fields()[i].name) + ": " + TypeSql(t->fields()[i].type);
      }
      return s + ">";
    }
  }
  return "?";
}

}  // namespace silt
