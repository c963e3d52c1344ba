// Binding generators in the SELECT list and LATERAL VIEW:
// explode/posexplode/inline/stack/json_tuple.
#include "common/error_classes.h"
#include "planner/binder_impl.h"

namespace silt::planner {

// A Generate node over `child` calling generator `call` on `arg` (bound over child's output).
// Its columns are named by `aliases` when given (as many as it makes), else Spark's names.
Result<PlanPtr> Binder::Impl::MakeGenerate(PlanPtr child, const ParsedExpr& call, ExprPtr arg,
                                           const std::vector<std::string>& aliases,
                                           const std::string& qualifier) {
  const std::string name = LowerName(call.names.back());
  std::optional<exec::Generator> gen = exec::FindGenerator(name);
  if (!gen) {
    return Status::InvalidArgument(
        "The generator is not supported: `" + name +
            "` is expected to be a generator. However, its class is not a generator.",
        errc::kUnsupportedGeneratorNotGenerator);
  }
  SILT_ASSIGN_OR_RETURN(std::vector<Field> fields,
                        exec::GeneratorOutput(*gen, arg->type, call.ToString()));
  SILT_RETURN_NOT_OK(CheckGeneratorAliases(fields, aliases));
  auto node = std::make_shared<LogicalNode>();
  node->kind = LogicalKind::kGenerate;
  node->generator = name;
  node->exprs = {std::move(arg)};
  node->columns = child->columns;
  for (size_t k = 0; k < fields.size(); ++k) {
    node->columns.push_back({aliases.empty() ? fields[k].name : aliases[k], fields[k].type,
                             fields[k].nullable, qualifier});
  }
  node->children = {std::move(child)};
  return node;
}

Status Binder::Impl::CheckGeneratorAliases(const std::vector<Field>& fields,
                                           const std::vector<std::string>& aliases) {
  if (aliases.empty() || aliases.size() == fields.size()) return Status::OK();
  std::string list;
  for (const auto& a : aliases) list += (list.empty() ? "" : ", ") + a;
  return Status::InvalidArgument(
      "The number of aliases supplied in the AS clause does not match "
      "the number of columns output by the UDTF. Expected " +
          std::to_string(fields.size()) + " aliases, but got " + list + ".",
      errc::kUdtfAliasNumberMismatch);
}

// The one argument of a generator call, bound in scope s. json_tuple(json, k1, …) is inline
// over array(__json_tuple(json, k1, …)): one row of fields c0, c1, … per input row.
Result<ExprPtr> Binder::Impl::BindGeneratorArg(const ParsedExpr& call, ExprScope& s) {
  if (LowerName(call.names.back()) == "json_tuple") {
    std::vector<ExprPtr> args;
    for (const auto& c : call.children) {
      SILT_ASSIGN_OR_RETURN(ExprPtr b, Bind(*c, s));
      args.push_back(std::move(b));
    }
    SILT_ASSIGN_OR_RETURN(ExprPtr row,
                          exec::BindScalarFunction("__json_tuple", std::move(args), ctx().bind));
    return exec::BindScalarFunction("array", {std::move(row)}, ctx().bind);
  }
  if (call.children.size() != 1) {
    return Status::InvalidArgument("The `" + LowerName(call.names.back()) +
                                       "` requires 1 parameters but the actual number is " +
                                       std::to_string(call.children.size()) + ".",
                                   errc::kWrongNumArgsWithoutSuggestion);
  }
  return Bind(*call.children[0], s);
}

bool Binder::Impl::IsGeneratorCall(const ParsedExpr& e) {
  return e.type == ExprType::kFunction && !e.names.empty() && !e.over &&
         exec::FindGenerator(e.names.back());
}

}  // namespace silt::planner
