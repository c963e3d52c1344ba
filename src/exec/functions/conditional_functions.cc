// Conditional functions Spark defines by rewriting to others: zeroifnull(x) = nvl(x, 0),
// nullifzero(x) = if(x = 0, NULL, x), and the Oracle-style decode(expr, search, result, …,
// [default]) = CASE WHEN expr <=> search THEN result … ELSE default END (decode with two
// arguments is the charset decode, string_functions.cc).
#include "common/error_classes.h"
#include "exec/function_registry.h"
#include "exec/functions/function_util.h"

namespace silt::exec {

namespace {

using fn::CheckArity;
using Args = std::vector<ExprPtr>;

ExprPtr Zero() { return MakeConstant(Value::Int32(0)); }

}  // namespace

namespace fn {

Result<ExprPtr> BindDecodeCase(Args& a, const BindContext& c) {
  // Children of a kCase: cond1, val1, …, [else].
  std::vector<ExprPtr> results;
  for (size_t i = 2; i < a.size(); i += 2) results.push_back(a[i]);
  if (a.size() % 2 == 0) results.push_back(a.back());  // the default
  TypePtr t = results[0]->type;
  for (size_t k = 1; k < results.size(); ++k) {
    SILT_ASSIGN_OR_RETURN(t, CommonType(t, results[k]->type, c));
  }
  Args children;
  size_t i = 1;
  for (; i + 1 < a.size(); i += 2) {
    SILT_ASSIGN_OR_RETURN(ExprPtr eq, BindScalarFunction("<=>", {a[0], a[i]}, c));
    children.push_back(std::move(eq));
    SILT_ASSIGN_OR_RETURN(ExprPtr v, CoerceTo(a[i + 1], t, c));
    children.push_back(std::move(v));
  }
  const bool has_else = i < a.size();
  if (has_else) {
    SILT_ASSIGN_OR_RETURN(ExprPtr v, CoerceTo(a[i], t, c));
    children.push_back(std::move(v));
  }
  return MakeSpecial(ExprKind::kCase, t, std::move(children), has_else);
}

}  // namespace fn

void RegisterConditionalFunctions(FunctionRegistry& r) {
  Reg(r, {"zeroifnull"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
    SILT_ASSIGN_OR_RETURN(ExprPtr e, BindScalarFunction("nvl", {a[0], Zero()}, c));
    return e;
  });
  Reg(r, {"nullifzero"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
    SILT_ASSIGN_OR_RETURN(ExprPtr is_zero, BindScalarFunction("=", {a[0], Zero()}, c));
    ExprPtr null = MakeConstant(Value::Null(a[0]->type));
    return BindScalarFunction("if", {is_zero, null, a[0]}, c);
  });
}

}  // namespace silt::exec
