// Write-time constraints of a Delta table (PROTOCOL.md "Column Invariants", "CHECK Constraints";
// Spark's Invariants.scala / Constraints.scala / CheckDeltaInvariant.scala):
//   - NOT NULL: every non-nullable field, nested ones included; a nested field is only checked
//     where all its nullable ancestors are non-null; array elements (containsNull = false) and
//     map values (valueContainsNull = false) too.
//   - legacy invariants: field metadata delta.invariants = {"expression":{"expression":"<sql>"}}.
//   - CHECK constraints: table properties delta.constraints.<name> = <sql>.
// A row violates a SQL constraint when the expression is false or NULL (as Spark).
//
// The kernel knows no SQL. It evaluates invariants written in a small subset itself — column
// references (nested with '.', `quoted`), numeric/string/boolean literals, = == != <> < <= > >=,
// IS [NOT] NULL, AND, OR, NOT and parentheses, over numeric, string and boolean columns — and
// leaves CHECK constraints and other invariants to a RowValidator supplied by the SQL layer.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/error_classes.h"
#include "common/status.h"
#include "delta/actions.h"
#include "vector/vector.h"

namespace silt::delta {

inline constexpr auto& kNotNullViolatedClass = errc::kDeltaNotNullConstraintViolated;
inline constexpr auto& kConstraintViolatedClass = errc::kDeltaViolateConstraintWithValues;
// A table has constraints only a RowValidator can check, and the write has none.
inline constexpr auto& kValidatorRequiredClass = errc::kSiltConstraintValidatorRequired;
inline constexpr auto& kUnrecognizedInvariantClass = errc::kDeltaUnrecognizedInvariant;

// Checks rows (columns in the table's logical schema order) against the SQL constraints the
// kernel cannot evaluate: all delta.constraints.* and the invariants outside the kernel's subset
// (it may re-check the others). Returns OK or the violation, by convention with class
// kConstraintViolatedClass and Spark's message. Called once per input chunk, before any data file
// of the write is published.
using RowValidator = std::function<Status(const DataChunk&)>;

// A SQL constraint the kernel leaves to the RowValidator: a CHECK constraint (its name as
// stored, after delta.constraints.) or an invariant outside the kernel's subset (named
// EXPRESSION(<sql>), as Spark reports it).
struct SqlCheck {
  std::string name;
  std::string sql;
};

// The constraints of a table, parsed once per write.
class TableConstraints {
 public:
  // Errors: kUnrecognizedInvariantClass for delta.invariants metadata that is not
  // {"expression":{"expression":"..."}}.
  static Result<TableConstraints> Make(const Schema& logical_schema, const Metadata& metadata);
  TableConstraints();
  ~TableConstraints();
  TableConstraints(TableConstraints&&) noexcept;
  TableConstraints& operator=(TableConstraints&&) noexcept;

  // delta.constraints.* and the invariants the kernel cannot evaluate.
  const std::vector<SqlCheck>& needs_validator() const { return needs_validator_; }
  bool empty() const;

  // Checks NOT NULL and the kernel-evaluable invariants over `chunk`; then, when the table has
  // constraints in needs_validator(), calls `validator`, or fails with kValidatorRequiredClass
  // when there is none.
  Status Check(const DataChunk& chunk, const RowValidator& validator) const;

 private:
  struct Invariant;
  Schema schema_;
  bool has_not_null_ = false;
  std::vector<std::unique_ptr<Invariant>> invariants_;
  std::vector<SqlCheck> needs_validator_;
};

}  // namespace silt::delta
