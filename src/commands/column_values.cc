#include "commands/column_values.h"

#include "common/error_classes.h"
#include "delta/json_util.h"
#include "delta/schema_json.h"
#include "exec/functions.h"
#include "sql/parser.h"

namespace silt::commands {
namespace {

constexpr const char* kInconsistentIdentity = errc::kDeltaIdentityColumnInconsistentMetadata;
constexpr const char* kIllegalStep = errc::kDeltaIdentityColumnsIllegalStep;

std::vector<planner::OutputColumn> TableColumns(const Schema& logical) {
  std::vector<planner::OutputColumn> cols;
  for (const Field& f : logical) cols.push_back({f.name, f.type, f.nullable, ""});
  return cols;
}

}  // namespace

Result<ColumnValueRules> ReadColumnValueRules(const Schema& logical) {
  ColumnValueRules r;
  const size_t n = logical.size();
  r.generation.resize(n);
  r.identity.resize(n);
  r.defaults.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const Field& f = logical[i];
    if (f.metadata_json.size() <= 2) continue;
    r.generation[i] = delta::MetadataString(f, "delta.generationExpression");
    r.defaults[i] = delta::MetadataString(f, "CURRENT_DEFAULT");
    if (f.metadata_json.find("delta.identity.") == std::string::npos) {
      r.has_generated |= r.generation[i].has_value();
      r.has_defaults |= r.defaults[i].has_value();
      continue;
    }
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (parser.parse(f.metadata_json).get(doc))
      return Status::Corruption("column " + f.name + " has metadata that is not JSON",
                                kInconsistentIdentity);
    int64_t start = 0, step = 0, hwm = 0;
    bool insert = false;
    const bool has_start = !doc["delta.identity.start"].get_int64().get(start);
    const bool has_step = !doc["delta.identity.step"].get_int64().get(step);
    const bool has_insert = !doc["delta.identity.allowExplicitInsert"].get_bool().get(insert);
    const bool has_hwm = !doc["delta.identity.highWaterMark"].get_int64().get(hwm);
    if (!has_start || !has_step || !has_insert) {
      return Status::Corruption("Inconsistent IDENTITY metadata for column " + f.name +
                                    " detected: " + (has_start ? "true" : "false") + ", " +
                                    (has_step ? "true" : "false") + ", " +
                                    (has_insert ? "true" : "false"),
                                kInconsistentIdentity);
    }
    if (step == 0)
      return Status::InvalidArgument("IDENTITY column step cannot be 0.", kIllegalStep);
    IdentitySpec spec;
    spec.always = !insert;
    spec.start = start;
    spec.step = step;
    if (has_hwm) spec.high_water_mark = hwm;
    r.identity[i] = spec;
    r.has_identity = true;
    r.has_generated |= r.generation[i].has_value();
    r.has_defaults |= r.defaults[i].has_value();
  }
  return r;
}

Result<Value> ColumnDefault(const ColumnValueRules& rules, const Schema& logical, size_t i,
                            CommandContext& ctx) {
  const TypePtr& type = logical[i].type;
  if (!rules.defaults[i]) return Value::Null(type);
  SILT_ASSIGN_OR_RETURN(sql::ExprNode parsed, sql::ParseExpression(*rules.defaults[i]));
  std::vector<planner::OutputColumn> none;
  SILT_ASSIGN_OR_RETURN(exec::ExprPtr e, ctx.binder->BindExpression(*parsed, none));
  SILT_ASSIGN_OR_RETURN(e, exec::CoerceTo(e, type, ctx.binder->context().bind));
  return exec::EvaluateConstant(*e, ctx.binder->context().eval);
}

Result<std::vector<exec::ExprPtr>> BindGenerationExpressions(const ColumnValueRules& rules,
                                                             const Schema& logical,
                                                             CommandContext& ctx) {
  std::vector<exec::ExprPtr> out(logical.size());
  if (!rules.has_generated) return out;
  const std::vector<planner::OutputColumn> cols = TableColumns(logical);
  for (size_t i = 0; i < logical.size(); ++i) {
    if (!rules.generation[i]) continue;
    SILT_ASSIGN_OR_RETURN(sql::ExprNode parsed, sql::ParseExpression(*rules.generation[i]));
    SILT_ASSIGN_OR_RETURN(exec::ExprPtr e, ctx.binder->BindExpression(*parsed, cols));
    if (!e->type->Equals(*logical[i].type)) {
      SILT_ASSIGN_OR_RETURN(e, exec::CoerceTo(e, logical[i].type, ctx.binder->context().bind));
    }
    out[i] = e;
  }
  return out;
}

Status ComputeGeneratedColumns(const std::vector<exec::ExprPtr>& generated,
                               const std::vector<bool>& supplied, const exec::EvalContext& eval,
                               DataChunk* chunk) {
  for (size_t i = 0; i < generated.size(); ++i) {
    if (!generated[i] || supplied[i]) continue;
    Vector v(generated[i]->type);
    SILT_RETURN_NOT_OK(exec::Evaluate(*generated[i], *chunk, eval, &v));
    chunk->columns[i] = std::move(v);
  }
  return Status::OK();
}

Status IdentityAllocator::Fill(size_t i, DataChunk* chunk) {
  const IdentitySpec& spec = *rules_.identity[i];
  const Vector& old = chunk->columns[i];
  Vector v(old.type());
  const __int128 step = spec.step;
  __int128 value;
  if (next_[i]) {
    value = static_cast<__int128>(*next_[i]) + step;
  } else if (!spec.high_water_mark) {
    value = spec.start;
  } else {
    // The first start + k * step (k >= 0) beyond the high-water mark.
    const __int128 start = spec.start;
    const __int128 hwm = *spec.high_water_mark;
    __int128 k = 0;
    if ((step > 0 && hwm >= start) || (step < 0 && hwm <= start)) k = (hwm - start) / step + 1;
    value = start + k * step;
  }
  for (size_t r = 0; r < chunk->size(); ++r, value += step) {
    if (value > INT64_MAX || value < INT64_MIN)
      return Status::InvalidArgument("The next value of an IDENTITY column overflows BIGINT.",
                                     errc::kArithmeticOverflow);
    SILT_RETURN_NOT_OK(v.AppendValue(Value::Integer(old.type(), static_cast<int64_t>(value))));
    next_[i] = static_cast<int64_t>(value);
    allocated_ = true;
  }
  chunk->columns[i] = std::move(v);
  return Status::OK();
}

delta::Metadata IdentityAllocator::UpdatedMetadata(const delta::Metadata& metadata,
                                                   const Schema& logical) const {
  Schema s = logical;
  for (size_t i = 0; i < s.size() && i < next_.size(); ++i) {
    if (!next_[i]) continue;
    std::string v;
    delta::AppendInt(&v, *next_[i]);
    s[i].metadata_json = SetFieldMetadata(s[i].metadata_json, "delta.identity.highWaterMark", v);
  }
  delta::Metadata m = metadata;
  m.schema_string = delta::SerializeSchema(s);
  return m;
}

Result<std::string> CheckDefaultExpression(const std::string& text, const Field& field,
                                           const std::string& command, CommandContext& ctx) {
  const std::string where = "Failed to execute " + command +
                            " command because the destination column or variable `" + field.name +
                            "` has a DEFAULT value " + text;
  Result<sql::ExprNode> reparsed = sql::ParseExpression(text);
  if (!reparsed.ok())
    return Status::InvalidArgument(where + ", which fails to resolve as a valid expression.",
                                   errc::kInvalidDefaultValueUnresolvedExpression);
  std::vector<planner::OutputColumn> none;
  Result<exec::ExprPtr> bound = ctx.binder->BindExpression(**reparsed, none);
  if (!bound.ok()) {
    const std::string_view cls = bound.status().error_class();
    if (cls.rfind(errc::kUnresolvedColumn, 0) == 0)
      return Status::InvalidArgument(where + ", which is not a constant expression.",
                                     errc::kInvalidDefaultValueNotConstant);
    return Status::InvalidArgument(where + ", which fails to resolve as a valid expression.",
                                   errc::kInvalidDefaultValueUnresolvedExpression);
  }
  exec::ExprPtr e = *bound;
  if (!e->type->Equals(*field.type)) {
    Result<exec::ExprPtr> cast = exec::CoerceTo(e, field.type, ctx.binder->context().bind);
    if (!cast.ok())
      return Status::InvalidArgument(where + ", which requires " + field.type->ToString() +
                                         " type, but the statement provided a value of "
                                         "incompatible " +
                                         e->type->ToString() + " type.",
                                     errc::kInvalidDefaultValueDataType);
    e = *cast;
  }
  Result<Value> v = exec::EvaluateConstant(*e, ctx.binder->context().eval);
  if (!v.ok()) return v.status();
  return text;
}

Status AddColumnValueMetadata(const std::vector<sql::ColumnDef>& defs,
                              const std::vector<std::string>& partition_by, bool defaults_enabled,
                              const std::string& command, Schema* schema, CommandContext& ctx) {
  // The columns a generation expression may read: every column that is not generated.
  std::vector<planner::OutputColumn> plain;
  std::vector<int> plain_index;
  for (size_t i = 0; i < defs.size(); ++i) {
    if (defs[i].generated_as) continue;
    plain.push_back({(*schema)[i].name, (*schema)[i].type, (*schema)[i].nullable, ""});
    plain_index.push_back(static_cast<int>(i));
  }
  for (size_t i = 0; i < defs.size() && i < schema->size(); ++i) {
    const sql::ColumnDef& d = defs[i];
    Field& f = (*schema)[i];
    std::string md = f.metadata_json.empty() ? "{}" : f.metadata_json;
    if (d.default_value) {
      if (!defaults_enabled) {
        return Status::InvalidArgument(
            "Failed to execute " + command +
                " command because it assigned a column DEFAULT value, but the corresponding table "
                "feature was not enabled. Please retry the command again after executing ALTER "
                "TABLE tableName SET TBLPROPERTIES('delta.feature.allowColumnDefaults' = "
                "'supported').",
            errc::kWrongColumnDefaultsForDeltaFeatureNotEnabled);
      }
      if (d.identity || d.generated_as) {
        return Status::InvalidArgument("Column " + f.name +
                                           " cannot have both a DEFAULT value and a generation "
                                           "expression or IDENTITY.",
                                       d.identity
                                           ? errc::kDeltaIdentityColumnsWithGeneratedExpression
                                           : errc::kInvalidDefaultValueUnresolvedExpression);
      }
      SILT_ASSIGN_OR_RETURN(std::string text,
                            CheckDefaultExpression(d.default_text, f, command, ctx));
      std::string v;
      delta::AppendJacksonString(&v, text);
      md = SetFieldMetadata(md, "CURRENT_DEFAULT", v);
    }
    if (d.identity) {
      if (f.type->id() != TypeId::kInt64) {
        return Status::InvalidArgument(
            "DataType " + f.type->ToString() + " is not supported for IDENTITY columns.",
            errc::kDeltaIdentityColumnsUnsupportedDataType);
      }
      if (d.identity_step == 0)
        return Status::InvalidArgument("IDENTITY column step cannot be 0.", kIllegalStep);
      for (const std::string& p : partition_by) {
        if (planner::LowerName(p) == planner::LowerName(f.name)) {
          return Status::InvalidArgument(
              "PARTITIONED BY IDENTITY column " + f.name + " is not supported.",
              errc::kDeltaIdentityColumnsPartitionNotSupported);
        }
      }
      std::string start, step;
      delta::AppendInt(&start, d.identity_start);
      delta::AppendInt(&step, d.identity_step);
      md = SetFieldMetadata(md, "delta.identity.start", start);
      md = SetFieldMetadata(md, "delta.identity.step", step);
      md = SetFieldMetadata(md, "delta.identity.allowExplicitInsert",
                            d.identity_always ? "false" : "true");
    }
    if (d.generated_as) {
      const std::string& text = d.generated_text;
      const std::string bad_refs =
          "A generated column cannot use a non-existent column or another generated column";
      Result<sql::ExprNode> reparsed = sql::ParseExpression(text);
      if (!reparsed.ok()) return reparsed.status();
      Result<exec::ExprPtr> bound = ctx.binder->BindExpression(**reparsed, plain);
      if (!bound.ok()) {
        if (bound.status().error_class().rfind(errc::kUnresolvedColumn, 0) == 0)
          return Status::InvalidArgument(bad_refs, errc::kDeltaInvalidGeneratedColumnReferences);
        return bound.status();
      }
      const exec::ExprPtr& e = *bound;
      std::vector<int> used;
      exec::CollectColumns(*e, &used);
      for (int c : used) {
        if (defs[static_cast<size_t>(plain_index[static_cast<size_t>(c)])].identity)
          return Status::InvalidArgument(bad_refs, errc::kDeltaInvalidGeneratedColumnReferences);
      }
      if (!e->type->Equals(*f.type)) {
        return Status::InvalidArgument("The expression type of the generated column " + f.name +
                                           " is " + e->type->ToString() +
                                           ", but the column type is " + f.type->ToString(),
                                       errc::kDeltaGeneratedColumnsExprTypeMismatch);
      }
      std::string v;
      delta::AppendJacksonString(&v, text);
      md = SetFieldMetadata(md, "delta.generationExpression", v);
    }
    f.metadata_json = md;
  }
  return Status::OK();
}

std::string SetFieldMetadata(const std::string& metadata_json, const std::string& key,
                             const std::string& value) {
  return delta::WithMetadataEntry(metadata_json, key, value);
}

}  // namespace silt::commands
