#include "exec/function_registry.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "common/ascii.h"
#include "common/logging.h"

namespace silt::exec {

void FunctionRegistry::Add(std::string name, ScalarBinder binder) {
  std::string key = AsciiLower(name);
  bool inserted = binders_.emplace(key, std::move(binder)).second;
  if (!inserted) std::fprintf(stderr, "silt: function %s registered twice\n", key.c_str());
  SILT_CHECK(inserted);
}

const ScalarBinder* FunctionRegistry::Find(std::string_view name) const {
  auto it = binders_.find(AsciiLower(name));
  return it == binders_.end() ? nullptr : &it->second;
}

std::vector<std::string> FunctionRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, binder] : binders_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

const FunctionRegistry& FunctionRegistry::Get() {
  static const FunctionRegistry registry = [] {
    FunctionRegistry r;
    RegisterCoreFunctions(r);
    RegisterMathFunctions(r);
    RegisterStringFunctions(r);
    RegisterDateTimeFunctions(r);
    RegisterMiscFunctions(r);
    RegisterArrayFunctions(r);
    RegisterJsonFunctions(r);
    RegisterBitwiseFunctions(r);
    RegisterStringCheckFunctions(r);
    RegisterConditionalFunctions(r);
    RegisterNumberFormatFunctions(r);
    return r;
  }();
  return registry;
}

void Reg(FunctionRegistry& r, std::initializer_list<const char*> names, NamedBinder f) {
  for (const char* n : names) {
    std::string name(n);
    r.Add(name, [name, f](std::vector<ExprPtr> args, const BindContext& ctx) {
      return f(name, args, ctx);
    });
  }
}

}  // namespace silt::exec
