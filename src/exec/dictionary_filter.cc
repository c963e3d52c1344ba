#include "exec/dictionary_filter.h"

#include <algorithm>

#include "exec/delta_scan.h"

namespace silt::exec {
namespace {

bool Deterministic(const Expr& e) {
  if (!e.deterministic) return false;
  for (const ExprPtr& c : e.children)
    if (!c || !Deterministic(*c)) return false;
  return true;
}

}  // namespace

std::optional<int> SingleColumnOf(const Expr& predicate) {
  if (!Deterministic(predicate)) return std::nullopt;
  std::vector<int> cols;
  CollectColumns(predicate, &cols);
  std::sort(cols.begin(), cols.end());
  cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
  if (cols.size() != 1) return std::nullopt;
  return cols[0];
}

Status EvaluateFilterOnDictionary(const Expr& predicate, int column, size_t num_columns,
                                  const DictionaryVector& dict, const std::vector<uint32_t>* rows,
                                  const EvalContext& ctx, std::vector<uint32_t>* out) {
  out->clear();
  const size_t n = rows ? rows->size() : dict.size();
  auto row_at = [&](size_t k) { return rows ? static_cast<size_t>((*rows)[k]) : k; };
  // The dictionary values the rows use, each once (slot = its position in `used`), in first-use
  // order; the NULL row last when some row is null.
  const size_t dsize = dict.dictionary->size();
  std::vector<int32_t> slot(dsize, -1);
  std::vector<uint32_t> used;
  bool any_null = false;
  for (size_t k = 0; k < n; ++k) {
    const size_t r = row_at(k);
    if (!dict.IsValid(r)) {
      any_null = true;
      continue;
    }
    const int32_t idx = dict.indices[r];
    if (slot[static_cast<size_t>(idx)] < 0) {
      slot[static_cast<size_t>(idx)] = static_cast<int32_t>(used.size());
      used.push_back(static_cast<uint32_t>(idx));
    }
  }
  const size_t m = used.size() + (any_null ? 1 : 0);
  if (m == 0) return Status::OK();
  Vector values(dict.type());
  values.AppendSelected(*dict.dictionary, used.data(), used.size());
  if (any_null) values.AppendNull();
  DataChunk entries;
  entries.num_rows_without_columns = m;
  entries.columns.reserve(num_columns);
  for (size_t c = 0; c < num_columns; ++c) {
    if (static_cast<int>(c) == column) {
      entries.columns.push_back(std::move(values));
      values = Vector(dict.type());
      continue;
    }
    Vector placeholder(DataType::Null());
    placeholder.Resize(m);
    entries.columns.push_back(std::move(placeholder));
  }
  std::vector<uint32_t> true_entries;
  SILT_RETURN_NOT_OK(EvaluateFilter(predicate, entries, ctx, &true_entries));
  std::vector<uint8_t> pass(m, 0);
  for (uint32_t e : true_entries) pass[e] = 1;
  const uint8_t null_pass = any_null ? pass[m - 1] : 0;
  // Per dictionary index: whether its value passes (unused indices never looked up).
  std::vector<uint8_t> index_pass(dsize, 0);
  for (size_t s = 0; s < used.size(); ++s) index_pass[used[s]] = pass[s];
  out->reserve(true_entries.empty() ? 0 : n);
  const int32_t* idx = dict.indices.data();
  if (!dict.may_have_nulls()) {
    for (size_t k = 0; k < n; ++k) {
      const size_t r = row_at(k);
      if (index_pass[static_cast<size_t>(idx[r])]) out->push_back(static_cast<uint32_t>(r));
    }
  } else {
    for (size_t k = 0; k < n; ++k) {
      const size_t r = row_at(k);
      const uint8_t ok = dict.validity[r] ? index_pass[static_cast<size_t>(idx[r])] : null_pass;
      if (ok) out->push_back(static_cast<uint32_t>(r));
    }
  }
  return Status::OK();
}

Status SelectRowsWithDictionaries(const std::vector<ExprPtr>& filters, const EvalContext& ctx,
                                  DataChunk& chunk,
                                  std::vector<std::optional<DictionaryVector>>* dicts,
                                  std::vector<uint32_t>* sel, bool* all) {
  *all = true;
  sel->clear();
  std::vector<uint32_t> next;
  const size_t rows = chunk.size();
  for (const ExprPtr& f : filters) {
    if (!*all && sel->empty()) break;
    const std::optional<int> col = dicts ? SingleColumnOf(*f) : std::nullopt;
    if (col && static_cast<size_t>(*col) < dicts->size() && (*dicts)[static_cast<size_t>(*col)]) {
      const DictionaryVector& d = *(*dicts)[static_cast<size_t>(*col)];
      SILT_RETURN_NOT_OK(EvaluateFilterOnDictionary(*f, *col, chunk.columns.size(), d,
                                                    *all ? nullptr : sel, ctx, &next));
      sel->swap(next);
      *all = *all && sel->size() == rows;
      continue;
    }
    if (dicts) {
      // This conjunct reads columns as vectors: the dictionaries among them are flattened.
      std::vector<int> cols;
      CollectColumns(*f, &cols);
      for (int c : cols) {
        if (c < 0 || static_cast<size_t>(c) >= dicts->size()) continue;
        std::optional<DictionaryVector>& d = (*dicts)[static_cast<size_t>(c)];
        if (!d) continue;
        chunk.columns[static_cast<size_t>(c)] = Flatten(*d);
        d.reset();
      }
    }
    if (*all) {
      SILT_RETURN_NOT_OK(EvaluateFilter(*f, chunk, ctx, sel));
      *all = sel->size() == rows;
      continue;
    }
    if (RefineByComparison(*f, chunk, sel)) continue;
    // Later conjuncts see only the surviving rows, and only the columns they read.
    SILT_RETURN_NOT_OK(EvaluateFilter(*f, SubsetFor(*f, chunk, *sel), ctx, &next));
    for (size_t k = 0; k < next.size(); ++k) next[k] = (*sel)[next[k]];
    sel->swap(next);
  }
  return Status::OK();
}

}  // namespace silt::exec
