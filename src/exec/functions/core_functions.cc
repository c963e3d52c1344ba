#include "exec/function_registry.h"

namespace silt::exec {

// Placeholder until this family lands: registers nothing.
void RegisterCoreFunctions(FunctionRegistry& /*r*/) {}

}  // namespace silt::exec
