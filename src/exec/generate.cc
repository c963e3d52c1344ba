#include "exec/generate.h"

#include <cctype>

#include "common/ascii.h"
#include "common/error_classes.h"
#include "exec/kernel_util.h"

namespace silt::exec {

std::optional<Generator> FindGenerator(std::string_view name) {
  std::string n = AsciiLower(name);
  Generator g;
  if (n.ends_with("_outer")) {
    g.outer = true;
    n.resize(n.size() - 6);
  }
  if (n == "json_tuple") {
    g.kind = GeneratorKind::kInline;  // over array(__json_tuple(…)), see the binder
    return g;
  }
  if (n == "explode")
    g.kind = GeneratorKind::kExplode;
  else if (n == "posexplode")
    g.kind = GeneratorKind::kPosExplode;
  else if (n == "inline")
    g.kind = GeneratorKind::kInline;
  else
    return std::nullopt;
  return g;
}

Result<std::vector<Field>> GeneratorOutput(const Generator& gen, const TypePtr& arg,
                                           std::string_view name) {
  const TypeId id = arg->id();
  const bool fits = gen.kind == GeneratorKind::kInline
                        ? id == TypeId::kList && arg->element_type()->id() == TypeId::kStruct
                        : id == TypeId::kList || id == TypeId::kMap;
  if (!fits) {
    std::string want =
        gen.kind == GeneratorKind::kInline ? "\"ARRAY<STRUCT>\"" : "(\"ARRAY\" or \"MAP\")";
    return Status::InvalidArgument(
        "Cannot resolve \"" + std::string(name) +
            "\" due to data type mismatch: The first parameter requires the " + want +
            " type, however it has the type \"" + arg->ToString() + "\".",
        errc::kDatatypeMismatchUnexpectedInputType);
  }
  std::vector<Field> out;
  if (gen.kind == GeneratorKind::kPosExplode)
    out.push_back({"pos", DataType::Int32(), gen.outer, "{}"});
  if (gen.kind == GeneratorKind::kInline) {
    for (const Field& f : arg->element_type()->fields())
      out.push_back({f.name, f.type, true, "{}"});
  } else if (id == TypeId::kList) {
    out.push_back({"col", arg->element_type(), true, "{}"});
  } else {
    out.push_back({"key", arg->key_type(), gen.outer, "{}"});
    out.push_back({"value", arg->value_type(), true, "{}"});
  }
  return out;
}

GenerateOperator::GenerateOperator(OperatorPtr child, Generator gen, ExprPtr arg,
                                   std::vector<Field> generated)
    : child_(std::move(child)), gen_(gen), arg_(std::move(arg)), generated_(std::move(generated)) {
  schema_ = child_->output_schema();
  schema_.insert(schema_.end(), generated_.begin(), generated_.end());
}

std::string GenerateOperator::details() const {
  static const char* kNames[] = {"explode", "posexplode", "inline"};
  std::string s = std::string(kNames[static_cast<int>(gen_.kind)]) + (gen_.outer ? "_outer" : "") +
                  "(" + arg_->ToString() + ") [";
  for (size_t i = 0; i < generated_.size(); ++i) s += (i ? ", " : "") + generated_[i].name;
  return s + "]";
}

Result<bool> GenerateOperator::Next(ExecContext& ctx, DataChunk* out) {
  DataChunk in;
  while (true) {
    SILT_ASSIGN_OR_RETURN(bool more, child_->Next(ctx, &in));
    if (!more) return false;
    Vector arr(arg_->type);
    SILT_RETURN_NOT_OK(Evaluate(*arg_, in, ctx.eval, &arr));
    // One output row per element: rows[k] is its input row, elems[k] its element (or -1: the
    // NULL row of an outer generator).
    const uint32_t* off = arr.offsets();
    std::vector<uint32_t> rows;
    std::vector<int64_t> elems;
    for (size_t r = 0; r < in.size(); ++r) {
      const uint32_t n = arr.IsNull(r) ? 0 : off[r + 1] - off[r];
      for (uint32_t k = 0; k < n; ++k) {
        rows.push_back(static_cast<uint32_t>(r));
        elems.push_back(static_cast<int64_t>(off[r]) + k);
      }
      if (n == 0 && gen_.outer) {
        rows.push_back(static_cast<uint32_t>(r));
        elems.push_back(-1);
      }
    }
    if (rows.empty()) continue;
    DataChunk res;
    res.num_rows_without_columns = rows.size();
    for (const Vector& c : in.columns) {
      Vector v(c.type());
      v.AppendSelected(c, rows.data(), rows.size());
      res.columns.push_back(std::move(v));
    }
    // The generated columns gather from the array's children: its elements (explode), a map's
    // keys and values, or an element struct's fields (inline).
    std::vector<const Vector*> sources;
    if (gen_.kind == GeneratorKind::kInline) {
      for (size_t f = 0; f < arr.child(0).num_children(); ++f)
        sources.push_back(&arr.child(0).child(f));
    } else {
      for (size_t f = 0; f < arr.num_children(); ++f) sources.push_back(&arr.child(f));
    }
    if (gen_.kind == GeneratorKind::kPosExplode) {
      Vector pos(DataType::Int32());
      for (size_t k = 0; k < rows.size(); ++k) {
        if (elems[k] < 0)
          pos.AppendNull();
        else
          pos.Append<int32_t>(static_cast<int32_t>(elems[k] - off[rows[k]]));
      }
      res.columns.push_back(std::move(pos));
    }
    for (const Vector* src : sources) {
      Vector v = GatherOrNull(*src, elems);
      // An element struct that is itself NULL makes its fields NULL (inline).
      if (gen_.kind == GeneratorKind::kInline && arr.child(0).may_have_nulls()) {
        for (size_t k = 0; k < elems.size(); ++k) {
          if (elems[k] >= 0 && arr.child(0).IsNull(static_cast<size_t>(elems[k])))
            v.SetValid(k, false);
        }
      }
      res.columns.push_back(std::move(v));
    }
    *out = std::move(res);
    return true;
  }
}

}  // namespace silt::exec
