// Values the writer supplies for a Delta table's columns (PROTOCOL.md "Generated Columns",
// "Identity Columns", "Default Columns"; Spark's GeneratedColumn.scala, IdentityColumn.scala,
// ColumnWithDefaultExprUtils.scala), read from the column metadata of the table's schema:
//   delta.generationExpression  the generated column's SQL expression; writers compute it for rows
//                               that do not supply the column, and TableConstraints checks
//                               `col <=> (expr)` on every written row (a supplied value that
//                               differs: DELTA_VIOLATE_CONSTRAINT_WITH_VALUES).
//   delta.identity.start/.step/.highWaterMark/.allowExplicitInsert
//                               identity columns: rows that do not supply the column get
//                               start + k * step beyond the high-water mark, and the commit carries
//                               the metadata with the new mark (a metadata action, so a concurrent
//                               allocating writer fails with DELTA_METADATA_CHANGED instead of
//                               handing out the same values).
//   CURRENT_DEFAULT             the column's default (INSERT with a column list, the DEFAULT
//                               keyword in UPDATE SET and MERGE).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "commands/command.h"
#include "delta/actions.h"
#include "exec/expression.h"

namespace silt::commands {

struct IdentitySpec {
  bool always = true;  // GENERATED ALWAYS (allowExplicitInsert = false)
  int64_t start = 1;
  int64_t step = 1;
  std::optional<int64_t> high_water_mark;
};

struct ColumnValueRules {
  // Per top-level column of the logical schema.
  std::vector<std::optional<std::string>> generation;  // delta.generationExpression
  std::vector<std::optional<IdentitySpec>> identity;
  std::vector<std::optional<std::string>> defaults;  // CURRENT_DEFAULT
  bool has_generated = false;
  bool has_identity = false;
  bool has_defaults = false;
  bool empty() const { return !has_generated && !has_identity && !has_defaults; }
  // A column the writer fills when the statement does not: generated or identity.
  bool computed(size_t i) const { return generation[i] || identity[i]; }
};

// Errors: DELTA_IDENTITY_COLUMN_INCONSISTENT_METADATA (start/step/allowExplicitInsert not all
// present or not of their types), DELTA_IDENTITY_COLUMNS_ILLEGAL_STEP (step 0).
Result<ColumnValueRules> ReadColumnValueRules(const Schema& logical);

// Column i's default: CURRENT_DEFAULT evaluated and cast to the column's type, NULL without one.
Result<Value> ColumnDefault(const ColumnValueRules& rules, const Schema& logical, size_t i,
                            CommandContext& ctx);

// The generation expressions bound over the table's columns (logical order), cast to their
// column's type; null for columns that are not generated.
Result<std::vector<exec::ExprPtr>> BindGenerationExpressions(const ColumnValueRules& rules,
                                                             const Schema& logical,
                                                             CommandContext& ctx);

// Replaces the generated columns whose `supplied` flag is false by their expression's value over
// the row (chunk: the table's columns in logical order).
Status ComputeGeneratedColumns(const std::vector<exec::ExprPtr>& generated,
                               const std::vector<bool>& supplied, const exec::EvalContext& eval,
                               DataChunk* chunk);

// Hands out identity values for one statement. Not thread-safe.
class IdentityAllocator {
 public:
  explicit IdentityAllocator(const ColumnValueRules& rules) : rules_(rules) {
    next_.resize(rules.identity.size());
  }
  // Fills column `i` of `chunk` with the next chunk->size() values. Errors: ARITHMETIC_OVERFLOW
  // when a value does not fit a BIGINT.
  Status Fill(size_t i, DataChunk* chunk);
  bool allocated() const { return allocated_; }
  // `metadata` with delta.identity.highWaterMark of the columns this allocator used set to the
  // last value it handed out (its schema rebuilt from `logical`).
  delta::Metadata UpdatedMetadata(const delta::Metadata& metadata, const Schema& logical) const;

 private:
  const ColumnValueRules& rules_;
  std::vector<std::optional<int64_t>> next_;  // last value handed out per column
  bool allocated_ = false;
};

// DDL: the field metadata for a column definition's DEFAULT, GENERATED ALWAYS AS and IDENTITY
// clauses (CREATE TABLE), added to the fields of `schema` (the definitions' columns, same order).
// `defaults_enabled`: the table has (or gets) the allowColumnDefaults feature; `command` names
// the statement in WRONG_COLUMN_DEFAULTS_FOR_DELTA_FEATURE_NOT_ENABLED. Errors: Delta's
// DELTA_IDENTITY_COLUMNS_* (unsupported type, step 0, partition column),
// DELTA_INVALID_GENERATED_COLUMN_REFERENCES, DELTA_GENERATED_COLUMNS_EXPR_TYPE_MISMATCH,
// INVALID_DEFAULT_VALUE.*.
Status AddColumnValueMetadata(const std::vector<sql::ColumnDef>& defs,
                              const std::vector<std::string>& partition_by, bool defaults_enabled,
                              const std::string& command, Schema* schema, CommandContext& ctx);

// A DEFAULT expression's text (as written) for column `field`, checked (constant, of a type that
// can be assigned to the column) and returned as the text to store in CURRENT_DEFAULT.
Result<std::string> CheckDefaultExpression(const std::string& text, const Field& field,
                                           const std::string& command, CommandContext& ctx);

// `metadata_json` (a field's metadata object) with `key` set to the JSON text `value` (removed
// when `value` is empty).
std::string SetFieldMetadata(const std::string& metadata_json, const std::string& key,
                             const std::string& value);

}  // namespace silt::commands
