// Filters over dictionary-encoded columns: a predicate that reads one column only is evaluated
// once per distinct value the rows use (and once for NULL), then each row takes its value's
// result through its index. =, <>, <, >, IN, LIKE, IS [NOT] NULL and any other deterministic
// predicate of that one column work this way, with the same results (and the same errors for the
// values the rows hold) as evaluating it row by row.
#pragma once

#include <optional>
#include <vector>

#include "exec/expression.h"
#include "vector/dictionary.h"

namespace silt::exec {

// The column `predicate` reads when it reads exactly one and is deterministic throughout (so one
// evaluation per distinct value gives every row's result); nullopt otherwise.
std::optional<int> SingleColumnOf(const Expr& predicate);

// Rows of a chunk of `num_columns` columns whose column `column` is `dict`: evaluates `predicate`
// (which reads only that column) over the dictionary values used by rows `rows` (all rows when
// null; ascending positions) and sets *out to those rows where it is TRUE, ascending.
Status EvaluateFilterOnDictionary(const Expr& predicate, int column, size_t num_columns,
                                  const DictionaryVector& dict, const std::vector<uint32_t>* rows,
                                  const EvalContext& ctx, std::vector<uint32_t>* out);

// SelectRows (delta_scan.h) over a chunk some of whose columns are still dictionaries: column k
// of `chunk` is a placeholder while (*dicts)[k] holds its rows. Conjuncts of one such column are
// evaluated per dictionary value; before any other conjunct reads a dictionary column, that
// column is flattened into the chunk (and (*dicts)[k] reset). dicts may be null.
Status SelectRowsWithDictionaries(const std::vector<ExprPtr>& filters, const EvalContext& ctx,
                                  DataChunk& chunk,
                                  std::vector<std::optional<DictionaryVector>>* dicts,
                                  std::vector<uint32_t>* sel, bool* all);

}  // namespace silt::exec
