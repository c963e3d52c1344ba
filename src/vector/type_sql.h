// Spark's SQL text of a data type (DataType.sql) and identifier quoting, shared by the SQL
// printer, the functions that print types (schema_of_json) and the commands.
#pragma once

#include <string>

#include "vector/types.h"

namespace silt {

// Spark's DataType.sql form of a type: "BIGINT", "ARRAY<STRING>",
// "STRUCT<a: BIGINT, `b c`: STRING>". "?" for a null pointer.
std::string TypeSql(const TypePtr& t);

// `name` as is when it is a plain identifier (letters, digits, '_', not all digits), else in
// backquotes with embedded backquotes doubled.
std::string QuoteIdentifierIfNeeded(const std::string& name);

}  // namespace silt
