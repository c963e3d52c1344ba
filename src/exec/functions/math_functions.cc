#include "exec/function_registry.h"

namespace silt::exec {

// Placeholder until this family lands: registers nothing.
void RegisterMathFunctions(FunctionRegistry& /*r*/) {}

}  // namespace silt::exec
