// Generators: explode, posexplode and inline (and their _outer forms) turn each input row into
// one output row per element of an array (entry of a map, struct of an array of structs), the
// input's columns repeated. Used by LATERAL VIEW and by a generator in a SELECT list.
#pragma once

#include <optional>
#include <string_view>

#include "exec/operator.h"

namespace silt::exec {

enum class GeneratorKind : uint8_t { kExplode, kPosExplode, kInline };

struct Generator {
  GeneratorKind kind = GeneratorKind::kExplode;
  // An input row whose array is NULL or empty still gives one row, with NULL generated columns
  // (without outer it gives none).
  bool outer = false;
};

// The generator a function name calls ("explode_outer" → explode, outer), or nullopt.
// json_tuple is inline over the array the binder builds for it (one row per input row).
std::optional<Generator> FindGenerator(std::string_view name);

// The columns `gen` produces from an argument of type `arg`, with Spark's names: explode →
// col (array) or key, value (map); posexplode → pos then those; inline → the struct's fields.
// DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE when `arg` does not fit `name`.
Result<std::vector<Field>> GeneratorOutput(const Generator& gen, const TypePtr& arg,
                                           std::string_view name);

// Output: the child's columns, then the generated columns (`generated`, from GeneratorOutput).
class GenerateOperator final : public Operator {
 public:
  GenerateOperator(OperatorPtr child, Generator gen, ExprPtr arg, std::vector<Field> generated);
  Result<bool> Next(ExecContext& ctx, DataChunk* out) override;
  std::string name() const override { return "Generate"; }
  std::string details() const override;
  std::vector<const Operator*> children() const override { return {child_.get()}; }

 private:
  OperatorPtr child_;
  Generator gen_;
  ExprPtr arg_;
  std::vector<Field> generated_;
};

}  // namespace silt::exec
