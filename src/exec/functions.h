// The function library: Spark's scalar functions, operators, casts and type coercion, resolved at
// bind time into Expr nodes (exec/expression.h). The binder calls these; nothing else looks
// functions up.
//
// Resolution follows Spark (non-ANSI and ANSI per BindContext::ansi): implicit coercion of
// arguments (e.g. int + bigint → bigint, int + decimal, string compared to int → cast, date vs
// timestamp), decimal result precision/scale rules (DecimalPrecision), and Spark's errors:
//   UNRESOLVED_ROUTINE (unknown function), WRONG_NUM_ARGS, DATATYPE_MISMATCH (bad argument types),
//   CAST_INVALID_INPUT / CAST_OVERFLOW (ANSI casts at run time), DIVIDE_BY_ZERO (ANSI).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "exec/expression.h"
#include "vector/types.h"

namespace silt::exec {

struct BindContext {
  bool ansi = false;                        // spark.sql.ansi.enabled
  std::string time_zone = "UTC";            // spark.sql.session.timeZone
  bool legacy_java_charsets = false;        // spark.sql.legacy.javaCharsets (encode/decode)
  bool legacy_coding_error_action = false;  // spark.sql.legacy.codingErrorAction
  bool legacy_negative_index_in_array_insert = false;  // spark.sql.legacy.negativeIndexIn…
  // The SQL type grammar ("array<int>", "struct<a:int>") for functions that take a type string
  // (from_json's schema). It lives in sql/, above exec, so the binder injects it; when unset,
  // such a schema fails with NOT_IMPLEMENTED.
  std::function<Result<TypePtr>(std::string_view)> parse_data_type;
};

// Scalar function by name (case-insensitive), e.g. "upper", "date_add", "regexp_replace",
// "coalesce", "if", "nvl". Also the operators, by their SQL spelling:
//   arithmetic  "+", "-", "*", "/", "%", "div", unary "negative"
//   comparison  "=", "==", "<>", "!=", "<", "<=", ">", ">=", "<=>"
//   logical     "and", "or", "not"
//   string      "||" (concat), "like", "ilike", "rlike" / "regexp"
//   bitwise     "&", "|", "^", "~"
// Returns the bound expression (a kCall, or a special form for and/or/not/coalesce/if/nvl/...).
Result<ExprPtr> BindScalarFunction(std::string_view name, std::vector<ExprPtr> args,
                                   const BindContext& ctx);

// CAST(child AS target) with Spark semantics: non-ANSI returns NULL on bad input; ANSI raises
// CAST_INVALID_INPUT/CAST_OVERFLOW; try_cast always returns NULL. Unsupported pairs fail with
// DATATYPE_MISMATCH at bind time. A cast to the same type returns child unchanged.
Result<ExprPtr> BindCast(ExprPtr child, TypePtr target, bool try_cast, const BindContext& ctx);

// Spark's wider common type of two types for UNION, CASE, COALESCE, IN, comparisons
// (findWiderTypeForTwo, incl. decimal widening and string promotion where Spark does it);
// DATATYPE_MISMATCH error when there is none.
Result<TypePtr> CommonType(const TypePtr& a, const TypePtr& b);
// The same in the session's mode: under ANSI (Spark 4's AnsiTypeCoercion.findWiderTypeForString)
// a string with an integral type gives BIGINT, with a floating type DOUBLE, with another atomic
// type that type (a string that does not convert then fails with CAST_INVALID_INPUT), with an
// interval none; without ANSI, STRING (CommonType above).
Result<TypePtr> CommonType(const TypePtr& a, const TypePtr& b, const BindContext& ctx);
// Casts e to `type` when it is not already (implicit coercion: never fails at run time in
// non-ANSI mode).
Result<ExprPtr> CoerceTo(ExprPtr e, const TypePtr& type, const BindContext& ctx);

}  // namespace silt::exec
