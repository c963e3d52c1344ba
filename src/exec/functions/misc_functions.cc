#include "exec/function_registry.h"

namespace silt::exec {

// Placeholder until this family lands: registers nothing.
void RegisterMiscFunctions(FunctionRegistry& /*r*/) {}

}  // namespace silt::exec
