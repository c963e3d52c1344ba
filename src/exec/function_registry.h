// The scalar function registry behind BindScalarFunction (exec/functions.h). Each function family
// registers binders for its names; a binder checks arity and argument types, coerces arguments
// (CoerceTo) and returns the bound Expr.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "exec/expression.h"
#include "exec/functions.h"

namespace silt::exec {

using ScalarBinder =
    std::function<Result<ExprPtr>(std::vector<ExprPtr> args, const BindContext& ctx)>;

class FunctionRegistry {
 public:
  // Registers `name` (lower case). Registering a name twice is a bug (SILT_CHECK).
  void Add(std::string name, ScalarBinder binder);
  // Case-insensitive lookup; null when unknown.
  const ScalarBinder* Find(std::string_view name) const;
  std::vector<std::string> Names() const;
  // The process-wide registry with every family registered (built once, thread-safe).
  static const FunctionRegistry& Get();

 private:
  std::unordered_map<std::string, ScalarBinder> binders_;
};

// A family's binder, told the name it was called by (aliases share one binder).
using NamedBinder = std::function<Result<ExprPtr>(std::string_view name, std::vector<ExprPtr>& args,
                                                  const BindContext& ctx)>;
// Registers `f` under each of `names`.
void Reg(FunctionRegistry& r, std::initializer_list<const char*> names, NamedBinder f);

// Function families, one file each under exec/functions/.
void RegisterCoreFunctions(FunctionRegistry& r);      // operators, comparison, conditional, null
void RegisterMathFunctions(FunctionRegistry& r);      // abs, round, floor, pow, ln, mod, ...
void RegisterStringFunctions(FunctionRegistry& r);    // upper, substring, regexp_*, lpad, ...
void RegisterDateTimeFunctions(FunctionRegistry& r);  // date_add, datediff, date_format, ...
void RegisterMiscFunctions(FunctionRegistry& r);      // hash, uuid, array/map/struct basics, ...
void RegisterArrayFunctions(FunctionRegistry& r);     // flatten, sequence, array_union, slice, ...
void RegisterJsonFunctions(FunctionRegistry& r);      // from_json, to_json, get_json_object, ...
void RegisterBitwiseFunctions(FunctionRegistry& r);   // bit_count, getbit
void RegisterStringCheckFunctions(FunctionRegistry& r);   // luhn_check, validate_utf8, ...
void RegisterConditionalFunctions(FunctionRegistry& r);   // zeroifnull, nullifzero
void RegisterNumberFormatFunctions(FunctionRegistry& r);  // to_number, try_to_number

}  // namespace silt::exec
