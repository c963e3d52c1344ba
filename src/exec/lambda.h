// Higher-order functions over arrays and maps with lambda arguments, as Spark: transform, filter,
// exists, forall, aggregate (reduce), zip_with, map_filter, transform_keys, transform_values,
// map_zip_with, array_sort with a comparator.
//
// The binder binds a lambda's body over a "lambda chunk": its first columns are the lambda's
// parameters (one row per element), the next ones the columns the body reads from the enclosing
// row (captured), which the call takes as extra arguments after its own. A kernel evaluates a
// body once over all elements of a batch (vectorized), not once per element.
#pragma once

#include <string_view>
#include <vector>

#include "exec/functions.h"

namespace silt::exec {

struct BoundLambda {
  ExprPtr body;   // over [parameters..., captured...]
  size_t params;  // number of parameters
};

bool IsHigherOrderFunction(std::string_view name);

// The number of non-lambda arguments of higher-order function `name` (transform: 1, aggregate:
// 2); the arguments after them are lambdas. A non-lambda argument in a lambda's place is, as in
// Spark, a lambda of no parameters whose body is that expression (transform(a, 0)).
size_t HigherOrderArgs(std::string_view name);

// `params` value of LambdaParamTypes for such an implicit lambda: the arguments are checked, the
// parameter count is not, and no parameter types are returned.
inline constexpr size_t kImplicitLambda = static_cast<size_t>(-1);

// Types of the parameters of lambda `index` of `name` called with the (bound, non-lambda)
// arguments `args`, for a lambda of `params` parameters; `lambdas` are the lambdas bound so far
// (unused: aggregate's finish takes the accumulator, of zero's type, as in Spark, whatever
// struct field names merge gives). INVALID_LAMBDA_FUNCTION_CALL.NUM_ARGS_MISMATCH
// for a wrong parameter count, DATATYPE_MISMATCH for arguments of the wrong type.
Result<std::vector<TypePtr>> LambdaParamTypes(std::string_view name,
                                              const std::vector<ExprPtr>& args, size_t index,
                                              size_t params,
                                              const std::vector<BoundLambda>& lambdas);

// The call: args, then `captured` (columns of the enclosing row, in the order the lambdas'
// bodies number them after their parameters).
Result<ExprPtr> BindHigherOrderFunction(std::string_view name, std::vector<ExprPtr> args,
                                        std::vector<BoundLambda> lambdas,
                                        std::vector<ExprPtr> captured, const BindContext& ctx);

}  // namespace silt::exec
