#include "exec/lambda.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "common/error_classes.h"
#include "exec/kernel_util.h"

namespace silt::exec {

namespace {

enum class Hof {
  kTransform,
  kFilter,
  kExists,
  kForall,
  kAggregate,
  kZipWith,
  kMapFilter,
  kTransformKeys,
  kTransformValues,
  kMapZipWith,
  kArraySort
};

std::optional<Hof> FindHof(std::string_view name) {
  if (name == "transform") return Hof::kTransform;
  if (name == "filter") return Hof::kFilter;
  if (name == "exists") return Hof::kExists;
  if (name == "forall") return Hof::kForall;
  if (name == "aggregate" || name == "reduce") return Hof::kAggregate;
  if (name == "zip_with") return Hof::kZipWith;
  if (name == "map_filter") return Hof::kMapFilter;
  if (name == "transform_keys") return Hof::kTransformKeys;
  if (name == "transform_values") return Hof::kTransformValues;
  if (name == "map_zip_with") return Hof::kMapZipWith;
  if (name == "array_sort") return Hof::kArraySort;
  return std::nullopt;
}

Status TypeMismatch(std::string_view name, size_t arg, const std::string& want,
                    const TypePtr& have) {
  return Status::InvalidArgument("Cannot resolve \"" + std::string(name) +
                                     "\" due to data type mismatch: Parameter " +
                                     std::to_string(arg + 1) + " requires the " + want +
                                     " type, however it has the type \"" + have->ToString() + "\".",
                                 errc::kDatatypeMismatchUnexpectedInputType);
}

// Where each element of a batch's arrays (or maps) comes from.
struct Elements {
  std::vector<uint32_t> row;    // the input row
  std::vector<uint32_t> index;  // its index in the array's child vector(s)
  std::vector<int32_t> pos;     // its position in its array
};

Elements Enumerate(const Arg& a, size_t rows) {
  Elements e;
  const Vector& v = *a.vector;
  const uint32_t* off = v.offsets();
  for (size_t r = 0; r < rows; ++r) {
    const size_t li = a.index(r);
    if (v.IsNull(li)) continue;
    for (uint32_t k = off[li]; k < off[li + 1]; ++k) {
      e.row.push_back(static_cast<uint32_t>(r));
      e.index.push_back(k);
      e.pos.push_back(static_cast<int32_t>(k - off[li]));
    }
  }
  return e;
}

Vector Gather(const Vector& src, const std::vector<uint32_t>& idx) {
  Vector v(src.type());
  v.AppendSelected(src, idx.data(), idx.size());
  return v;
}

// The lambda chunk of elements whose input rows are `rows`: the parameters, then the captured
// arguments repeated for each element.
DataChunk LambdaChunk(std::vector<Vector> params, std::span<const Arg> captured,
                      const std::vector<uint32_t>& rows) {
  DataChunk c;
  c.num_rows_without_columns = rows.size();
  for (Vector& p : params) c.columns.push_back(std::move(p));
  std::vector<uint32_t> idx(rows.size());
  for (const Arg& cap : captured) {
    for (size_t k = 0; k < rows.size(); ++k) idx[k] = static_cast<uint32_t>(cap.index(rows[k]));
    c.columns.push_back(Gather(*cap.vector, idx));
  }
  return c;
}

Vector Positions(const std::vector<int32_t>& pos) {
  Vector v(DataType::Int32());
  for (int32_t p : pos) v.Append<int32_t>(p);
  return v;
}

Result<Vector> Apply(const BoundLambda& f, std::vector<Vector> params,
                     std::span<const Arg> captured, const std::vector<uint32_t>& rows,
                     const EvalContext& ctx) {
  // Only the parameters the lambda declares (a non-lambda argument in a lambda's place is a
  // lambda of none).
  if (params.size() > f.params) params.erase(params.begin() + f.params, params.end());
  DataChunk chunk = LambdaChunk(std::move(params), captured, rows);
  Vector out(f.body->type);
  SILT_RETURN_NOT_OK(Evaluate(*f.body, chunk, ctx, &out));
  return out;
}

bool IsTrue(const Vector& b, size_t i) { return b.IsValid(i) && b.data<uint8_t>()[i] != 0; }

// transform / filter / exists / forall over arrays; map_filter / transform_keys /
// transform_values over maps.
Status ElementwiseKernel(Hof hof, const BoundLambda& f, std::span<const Arg> args, size_t rows,
                         const EvalContext& ctx, Vector* out) {
  const Arg& a = args[0];
  std::span<const Arg> captured = args.subspan(1);
  const Vector& src = *a.vector;
  const bool is_map = src.type()->id() == TypeId::kMap;
  Elements e = Enumerate(a, rows);
  std::vector<Vector> params;
  params.push_back(Gather(src.child(0), e.index));
  // The second parameter only when the lambda declares it (transform's index is optional).
  if (f.params == 2) params.push_back(is_map ? Gather(src.child(1), e.index) : Positions(e.pos));
  SILT_ASSIGN_OR_RETURN(Vector res, Apply(f, std::move(params), captured, e.row, ctx));
  const uint32_t* off = src.offsets();
  size_t k = 0;  // first element of the current row in e / res
  std::vector<uint32_t> sel;
  for (size_t r = 0; r < rows; ++r) {
    const size_t li = a.index(r);
    if (src.IsNull(li)) {
      out->AppendNull();
      continue;
    }
    const size_t n = off[li + 1] - off[li];
    switch (hof) {
      case Hof::kTransform:
        out->child(0).AppendRange(res, k, n);
        out->FinishListRow();
        break;
      case Hof::kTransformValues:
        out->child(0).AppendRange(src.child(0), off[li], n);
        out->child(1).AppendRange(res, k, n);
        out->FinishListRow();
        break;
      case Hof::kTransformKeys: {
        std::set<std::string> seen;
        for (size_t j = k; j < k + n; ++j) {
          if (res.IsNull(j))
            return Status::InvalidArgument("Cannot use null as map key.", errc::kNullMapKey);
          std::string key = res.GetValue(j).ToString();
          if (!seen.insert(key).second) {
            return Status::InvalidArgument("Duplicate map key " + key +
                                               " was found, please check the input data. If you "
                                               "want to remove the duplicated keys, "
                                               "you can set \"spark.sql.mapKeyDedupPolicy\" to "
                                               "\"LAST_WIN\" so that the key inserted "
                                               "at last takes precedence.",
                                           errc::kDuplicatedMapKey);
          }
        }
        out->child(0).AppendRange(res, k, n);
        out->child(1).AppendRange(src.child(1), off[li], n);
        out->FinishListRow();
        break;
      }
      case Hof::kFilter:
      case Hof::kMapFilter:
        sel.clear();
        for (size_t j = 0; j < n; ++j) {
          if (IsTrue(res, k + j)) sel.push_back(off[li] + static_cast<uint32_t>(j));
        }
        for (size_t c = 0; c < out->num_children(); ++c)
          out->child(c).AppendSelected(src.child(c), sel.data(), sel.size());
        out->FinishListRow();
        break;
      case Hof::kExists:
      case Hof::kForall: {
        // Three-valued: exists is true on a true element, else NULL on a NULL one, else false.
        const bool decisive = hof == Hof::kExists;
        bool hit = false, null = false;
        for (size_t j = k; j < k + n && !hit; ++j) {
          if (res.IsNull(j))
            null = true;
          else
            hit = (res.data<uint8_t>()[j] != 0) == decisive;
        }
        if (!hit && null)
          out->AppendNull();
        else
          out->Append<uint8_t>(hit == decisive ? 1 : 0);
        break;
      }
      default:
        return Status::Internal("not an elementwise higher-order function");
    }
    k += n;
  }
  return Status::OK();
}

// aggregate(array, zero, merge [, finish]): the accumulator of every row advances one element
// position at a time, each step one evaluation of merge over the rows that still have elements.
Status AggregateKernel(const BoundLambda& merge, const BoundLambda* finish,
                       std::span<const Arg> args, size_t rows, const EvalContext& ctx,
                       Vector* out) {
  const Arg& a = args[0];
  const Arg& zero = args[1];
  std::span<const Arg> captured = args.subspan(2);
  const Vector& src = *a.vector;
  const uint32_t* off = src.offsets();
  std::vector<uint32_t> all(rows), zero_rows(rows);
  size_t longest = 0;
  for (size_t r = 0; r < rows; ++r) {
    all[r] = static_cast<uint32_t>(r);
    zero_rows[r] = static_cast<uint32_t>(zero.index(r));
    const size_t li = a.index(r);
    if (!src.IsNull(li)) longest = std::max<size_t>(longest, off[li + 1] - off[li]);
  }
  Vector acc = Gather(*zero.vector, zero_rows);
  for (size_t j = 0; j < longest; ++j) {
    std::vector<uint32_t> active, elems;
    for (size_t r = 0; r < rows; ++r) {
      const size_t li = a.index(r);
      if (!src.IsNull(li) && off[li + 1] - off[li] > j) {
        active.push_back(static_cast<uint32_t>(r));
        elems.push_back(off[li] + static_cast<uint32_t>(j));
      }
    }
    std::vector<Vector> params;
    params.push_back(Gather(acc, active));
    params.push_back(Gather(src.child(0), elems));
    SILT_ASSIGN_OR_RETURN(Vector next, Apply(merge, std::move(params), captured, active, ctx));
    // New accumulator: active rows from `next`, the others unchanged.
    Vector both = std::move(acc);
    both.AppendRange(next, 0, next.size());
    std::vector<uint32_t> pick(all);
    for (size_t k = 0; k < active.size(); ++k) pick[active[k]] = static_cast<uint32_t>(rows + k);
    acc = Gather(both, pick);
  }
  Vector result = std::move(acc);
  if (finish) {
    SILT_ASSIGN_OR_RETURN(result, Apply(*finish, {std::move(result)}, captured, all, ctx));
  }
  for (size_t r = 0; r < rows; ++r) {
    if (src.IsNull(a.index(r)))
      out->AppendNull();
    else
      out->AppendRange(result, r, 1);
  }
  return Status::OK();
}

// zip_with(left, right, f): element k of both arrays (NULL past the shorter one's end).
Status ZipWithKernel(const BoundLambda& f, std::span<const Arg> args, size_t rows,
                     const EvalContext& ctx, Vector* out) {
  const Arg& a = args[0];
  const Arg& b = args[1];
  std::span<const Arg> captured = args.subspan(2);
  const Vector& va = *a.vector;
  const Vector& vb = *b.vector;
  std::vector<uint32_t> elem_rows;
  std::vector<int64_t> ia, ib;
  std::vector<size_t> lens(rows, 0);
  for (size_t r = 0; r < rows; ++r) {
    const size_t la = a.index(r), lb = b.index(r);
    if (va.IsNull(la) || vb.IsNull(lb)) continue;
    const uint32_t na = va.offsets()[la + 1] - va.offsets()[la],
                   nb = vb.offsets()[lb + 1] - vb.offsets()[lb];
    lens[r] = std::max(na, nb);
    for (uint32_t k = 0; k < lens[r]; ++k) {
      elem_rows.push_back(static_cast<uint32_t>(r));
      ia.push_back(k < na ? static_cast<int64_t>(va.offsets()[la] + k) : -1);
      ib.push_back(k < nb ? static_cast<int64_t>(vb.offsets()[lb] + k) : -1);
    }
  }
  std::vector<Vector> params;
  params.push_back(GatherOrNull(va.child(0), ia));
  params.push_back(GatherOrNull(vb.child(0), ib));
  SILT_ASSIGN_OR_RETURN(Vector res, Apply(f, std::move(params), captured, elem_rows, ctx));
  size_t k = 0;
  for (size_t r = 0; r < rows; ++r) {
    if (va.IsNull(a.index(r)) || vb.IsNull(b.index(r))) {
      out->AppendNull();
      continue;
    }
    out->child(0).AppendRange(res, k, lens[r]);
    out->FinishListRow();
    k += lens[r];
  }
  return Status::OK();
}

// map_zip_with(m1, m2, (k, v1, v2) -> …): the keys of m1 in their order, then the keys of m2
// not in m1; v1 / v2 are NULL where a map lacks the key.
Status MapZipWithKernel(const BoundLambda& f, std::span<const Arg> args, size_t rows,
                        const EvalContext& ctx, Vector* out) {
  const Arg& a = args[0];
  const Arg& b = args[1];
  std::span<const Arg> captured = args.subspan(2);
  const Vector& ma = *a.vector;
  const Vector& mb = *b.vector;
  std::vector<uint32_t> elem_rows;
  std::vector<int64_t> ia, ib;
  std::vector<size_t> lens(rows, 0);
  Vector keys(ma.child(0).type());
  std::map<std::string, size_t> where;  // key text -> element of the current row
  for (size_t r = 0; r < rows; ++r) {
    const size_t la = a.index(r), lb = b.index(r);
    if (ma.IsNull(la) || mb.IsNull(lb)) continue;
    where.clear();
    const size_t first = ia.size();
    for (uint32_t k = ma.offsets()[la]; k < ma.offsets()[la + 1]; ++k) {
      where.emplace(ma.child(0).GetValue(k).ToString(), ia.size());
      keys.AppendRange(ma.child(0), k, 1);
      ia.push_back(k);
      ib.push_back(-1);
    }
    for (uint32_t k = mb.offsets()[lb]; k < mb.offsets()[lb + 1]; ++k) {
      auto [it, fresh] = where.emplace(mb.child(0).GetValue(k).ToString(), ia.size());
      if (!fresh) {
        ib[it->second] = k;
        continue;
      }
      keys.AppendRange(mb.child(0), k, 1);
      ia.push_back(-1);
      ib.push_back(k);
    }
    lens[r] = ia.size() - first;
    elem_rows.insert(elem_rows.end(), lens[r], static_cast<uint32_t>(r));
  }
  std::vector<Vector> params;
  params.push_back(keys);
  params.push_back(GatherOrNull(ma.child(1), ia));
  params.push_back(GatherOrNull(mb.child(1), ib));
  SILT_ASSIGN_OR_RETURN(Vector res, Apply(f, std::move(params), captured, elem_rows, ctx));
  size_t k = 0;
  for (size_t r = 0; r < rows; ++r) {
    if (ma.IsNull(a.index(r)) || mb.IsNull(b.index(r))) {
      out->AppendNull();
      continue;
    }
    out->child(0).AppendRange(keys, k, lens[r]);
    out->child(1).AppendRange(res, k, lens[r]);
    out->FinishListRow();
    k += lens[r];
  }
  return Status::OK();
}

// array_sort(array, (left, right) -> int): a stable merge sort of each array by the comparator.
// The comparisons a merge sort of the original order makes are all of a later element (left)
// against an earlier one (right), so for arrays of up to kPairwiseLimit elements every such pair
// is evaluated at once over the batch (vectorized); longer arrays evaluate one comparison at a
// time. A later element moves before an earlier one only when the comparator says it is less (as
// Java's TimSort, which Spark uses: a comparator constant 0 or positive keeps the order).
constexpr size_t kPairwiseLimit = 256;
constexpr size_t kPairsPerBatch = size_t{1} << 16;

Status ComparatorNull(const Vector& el, size_t later, size_t earlier) {
  return Status::InvalidArgument(
      "The comparator has returned a NULL for a comparison between " +
          el.GetValue(later).ToString() + " and " + el.GetValue(earlier).ToString() +
          ". It should return a positive integer for \"greater than\", 0 for \"equal\" and a "
          "negative integer for \"less than\". To revert to deprecated behavior where NULL is "
          "treated as 0 (equal), you must set "
          "\"spark.sql.legacy.allowNullComparisonResultInArraySort\" to \"true\".",
      errc::kComparatorReturnsNull);
}

// Stable bottom-up merge sort of positions 0..n-1; less(later, earlier) decides.
template <typename Less>
Status MergeSort(std::vector<uint32_t>* order, Less&& less) {
  std::vector<uint32_t>& v = *order;
  std::vector<uint32_t> tmp(v.size());
  for (size_t width = 1; width < v.size(); width *= 2) {
    for (size_t lo = 0; lo < v.size(); lo += 2 * width) {
      const size_t mid = std::min(lo + width, v.size()), hi = std::min(lo + 2 * width, v.size());
      size_t i = lo, j = mid, o = lo;
      while (i < mid && j < hi) {
        SILT_ASSIGN_OR_RETURN(bool take_right, less(v[j], v[i]));
        tmp[o++] = take_right ? v[j++] : v[i++];
      }
      while (i < mid) tmp[o++] = v[i++];
      while (j < hi) tmp[o++] = v[j++];
    }
    std::copy(tmp.begin(), tmp.end(), v.begin());
  }
  return Status::OK();
}

Status ArraySortKernel(const BoundLambda& f, std::span<const Arg> args, size_t rows,
                       const EvalContext& ctx, Vector* out) {
  const Arg& a = args[0];
  std::span<const Arg> captured = args.subspan(1);
  const Vector& src = *a.vector;
  const Vector& el = src.child(0);
  const uint32_t* off = src.offsets();
  // Pairwise results of the rows of the current group: row -> (first pair, n).
  std::vector<size_t> pair_base(rows, 0);
  std::vector<int32_t> cmp;
  std::vector<uint8_t> cmp_null;
  auto tri = [](size_t later, size_t earlier) { return later * (later - 1) / 2 + earlier; };
  std::vector<uint32_t> order;
  size_t r = 0;
  while (r < rows) {
    // A group of rows whose pairs fit one evaluation.
    std::vector<uint32_t> pair_rows, left, right;
    size_t end = r;
    for (; end < rows; ++end) {
      const size_t li = a.index(end);
      if (src.IsNull(li)) continue;
      const size_t n = off[li + 1] - off[li];
      if (n > kPairwiseLimit) continue;
      const size_t pairs = n * (n - 1) / 2;
      if (!pair_rows.empty() && pair_rows.size() + pairs > kPairsPerBatch) break;
      pair_base[end] = pair_rows.size();
      for (size_t p = 1; p < n; ++p) {
        for (size_t q = 0; q < p; ++q) {
          pair_rows.push_back(static_cast<uint32_t>(end));
          left.push_back(off[li] + static_cast<uint32_t>(p));
          right.push_back(off[li] + static_cast<uint32_t>(q));
        }
      }
    }
    if (end == r) end = r + 1;  // a single row (null, or evaluated one pair at a time)
    cmp.clear();
    cmp_null.clear();
    if (!pair_rows.empty()) {
      std::vector<Vector> params;
      params.push_back(Gather(el, left));
      params.push_back(Gather(el, right));
      SILT_ASSIGN_OR_RETURN(Vector res, Apply(f, std::move(params), captured, pair_rows, ctx));
      for (size_t k = 0; k < res.size(); ++k) {
        cmp_null.push_back(res.IsNull(k) ? 1 : 0);
        cmp.push_back(res.IsNull(k) ? 0 : res.data<int32_t>()[k]);
      }
    }
    for (; r < end; ++r) {
      const size_t li = a.index(r);
      if (src.IsNull(li)) {
        out->AppendNull();
        continue;
      }
      const uint32_t begin = off[li];
      const size_t n = off[li + 1] - begin;
      order.resize(n);
      for (size_t k = 0; k < n; ++k) order[k] = static_cast<uint32_t>(k);
      Status st;
      if (n <= kPairwiseLimit) {
        const size_t base = pair_base[r];
        st = MergeSort(&order, [&](uint32_t later, uint32_t earlier) -> Result<bool> {
          const size_t k = base + tri(later, earlier);
          if (cmp_null[k]) return ComparatorNull(el, begin + later, begin + earlier);
          return cmp[k] < 0;
        });
      } else {
        st = MergeSort(&order, [&](uint32_t later, uint32_t earlier) -> Result<bool> {
          std::vector<Vector> params;
          params.push_back(Gather(el, {begin + later}));
          params.push_back(Gather(el, {begin + earlier}));
          SILT_ASSIGN_OR_RETURN(
              Vector res, Apply(f, std::move(params), captured, {static_cast<uint32_t>(r)}, ctx));
          if (res.IsNull(0)) return ComparatorNull(el, begin + later, begin + earlier);
          return res.data<int32_t>()[0] < 0;
        });
      }
      SILT_RETURN_NOT_OK(st);
      for (uint32_t& k : order) k += begin;
      out->child(0).AppendSelected(el, order.data(), order.size());
      out->FinishListRow();
    }
  }
  return Status::OK();
}

// The same type but for struct field names (Spark's DataType.equalsStructurally).
bool SameStructure(const DataType& a, const DataType& b) {
  if (a.id() != b.id()) return false;
  if (a.id() != TypeId::kStruct && a.id() != TypeId::kList && a.id() != TypeId::kMap)
    return a.Equals(b);
  if (a.fields().size() != b.fields().size()) return false;
  for (size_t i = 0; i < a.fields().size(); ++i) {
    if (!SameStructure(*a.fields()[i].type, *b.fields()[i].type)) return false;
  }
  return true;
}

}  // namespace

bool IsHigherOrderFunction(std::string_view name) { return FindHof(name).has_value(); }

size_t HigherOrderArgs(std::string_view name) {
  const Hof hof = *FindHof(name);
  return hof == Hof::kAggregate || hof == Hof::kZipWith || hof == Hof::kMapZipWith ? 2 : 1;
}

Result<std::vector<TypePtr>> LambdaParamTypes(std::string_view name,
                                              const std::vector<ExprPtr>& args, size_t index,
                                              size_t params,
                                              const std::vector<BoundLambda>& /*lambdas*/) {
  const Hof hof = *FindHof(name);
  std::vector<TypePtr> types;
  size_t min = 1, max = 1;
  auto need = [&](size_t i, TypeId id, const char* want) -> Status {
    if (i >= args.size()) {
      return Status::InvalidArgument("The `" + std::string(name) +
                                         "` requires more parameters than the " +
                                         std::to_string(args.size()) + " given.",
                                     errc::kWrongNumArgsWithoutSuggestion);
    }
    if (args[i]->type->id() != id) return TypeMismatch(name, i, want, args[i]->type);
    return Status::OK();
  };
  switch (hof) {
    case Hof::kTransform:
    case Hof::kFilter:
    case Hof::kExists:
    case Hof::kForall:
      SILT_RETURN_NOT_OK(need(0, TypeId::kList, "\"ARRAY\""));
      types = {args[0]->type->element_type(), DataType::Int32()};
      max = hof == Hof::kTransform || hof == Hof::kFilter ? 2 : 1;
      break;
    case Hof::kAggregate:
      SILT_RETURN_NOT_OK(need(0, TypeId::kList, "\"ARRAY\""));
      if (args.size() < 2) return need(1, TypeId::kNull, "");
      if (index == 0) {
        types = {args[1]->type, args[0]->type->element_type()};
        min = max = 2;
      } else {
        types = {args[1]->type};  // finish reads the accumulator, of zero's type (Spark)
      }
      break;
    case Hof::kZipWith:
      SILT_RETURN_NOT_OK(need(0, TypeId::kList, "\"ARRAY\""));
      SILT_RETURN_NOT_OK(need(1, TypeId::kList, "\"ARRAY\""));
      types = {args[0]->type->element_type(), args[1]->type->element_type()};
      min = max = 2;
      break;
    case Hof::kMapFilter:
    case Hof::kTransformKeys:
    case Hof::kTransformValues:
      SILT_RETURN_NOT_OK(need(0, TypeId::kMap, "\"MAP\""));
      types = {args[0]->type->key_type(), args[0]->type->value_type()};
      min = max = 2;
      break;
    case Hof::kMapZipWith:
      SILT_RETURN_NOT_OK(need(0, TypeId::kMap, "\"MAP\""));
      SILT_RETURN_NOT_OK(need(1, TypeId::kMap, "\"MAP\""));
      if (!args[0]->type->key_type()->Equals(*args[1]->type->key_type())) {
        return Status::InvalidArgument(
            "Cannot resolve \"map_zip_with\" due to data type mismatch: Input to the function "
            "`map_zip_with` should have been two maps with compatible key types, but the key "
            "types are [\"" +
                args[0]->type->key_type()->ToString() + "\", \"" +
                args[1]->type->key_type()->ToString() + "\"].",
            errc::kDatatypeMismatchMapFunctionDiffTypes);
      }
      types = {args[0]->type->key_type(), args[0]->type->value_type(), args[1]->type->value_type()};
      min = max = 3;
      break;
    case Hof::kArraySort:
      SILT_RETURN_NOT_OK(need(0, TypeId::kList, "\"ARRAY\""));
      types = {args[0]->type->element_type(), args[0]->type->element_type()};
      min = max = 2;
      break;
  }
  if (params == kImplicitLambda) return std::vector<TypePtr>{};
  if (params < min || params > max) {
    return Status::InvalidArgument(
        "Invalid lambda function call. A higher "
        "order "
        "function expects " +
            std::to_string(max) + " arguments, but got " + std::to_string(params) + ".",
        errc::kInvalidLambdaFunctionCallNumArgsMismatch);
  }
  types.resize(params);
  return types;
}

Result<ExprPtr> BindHigherOrderFunction(std::string_view name, std::vector<ExprPtr> args,
                                        std::vector<BoundLambda> lambdas,
                                        std::vector<ExprPtr> captured, const BindContext&) {
  const Hof hof = *FindHof(name);
  const size_t own = HigherOrderArgs(name);
  const size_t want_lambdas = hof == Hof::kAggregate ? (lambdas.size() == 2 ? 2 : 1) : 1;
  if (args.size() != own || lambdas.size() != want_lambdas) {
    return Status::InvalidArgument("The `" + std::string(name) + "` requires " +
                                       std::to_string(own + want_lambdas) +
                                       " parameters but the actual number is " +
                                       std::to_string(args.size() + lambdas.size()) + ".",
                                   errc::kWrongNumArgsWithoutSuggestion);
  }
  const TypePtr& body = lambdas[0].body->type;
  TypePtr rt;
  switch (hof) {
    case Hof::kTransform:
      rt = DataType::List(body);
      break;
    case Hof::kZipWith:
      rt = DataType::List(body);
      break;
    case Hof::kFilter:
    case Hof::kMapFilter:
    case Hof::kExists:
    case Hof::kForall:
      if (body->id() != TypeId::kBoolean)
        return TypeMismatch(name, 1, "\"BOOLEAN\" (lambda result)", body);
      rt = hof == Hof::kFilter || hof == Hof::kMapFilter ? args[0]->type : DataType::Boolean();
      break;
    case Hof::kTransformKeys:
      if (body->id() == TypeId::kMap) {
        return Status::InvalidArgument(
            "Cannot resolve \"transform_keys\" due to data type mismatch: The key of map cannot "
            "be/contain \"" +
                body->ToString() + "\".",
            errc::kDatatypeMismatchInvalidMapKeyType);
      }
      rt = DataType::Map(body, args[0]->type->value_type());
      break;
    case Hof::kMapZipWith:
      rt = DataType::Map(args[0]->type->key_type(), body);
      break;
    case Hof::kArraySort:
      if (body->id() != TypeId::kInt32) {
        return Status::InvalidArgument(
            "Cannot resolve \"array_sort\" due to data type mismatch: The `lambdafunction` "
            "requires the return type \"INT\", but the actual type is \"" +
                body->ToString() + "\".",
            errc::kDatatypeMismatchUnexpectedReturnType);
      }
      rt = args[0]->type;
      break;
    case Hof::kTransformValues:
      rt = DataType::Map(args[0]->type->key_type(), body);
      break;
    case Hof::kAggregate:
      // Spark requires merge to return the accumulator's (zero's) type, field names aside
      // (DataType.equalsStructurally): (acc.sum + x, acc.n + 1) for a zero (0 AS sum, 0 AS n).
      if (!SameStructure(*body, *args[1]->type))
        return TypeMismatch(name, 2, "\"" + args[1]->type->ToString() + "\" (merge result)", body);
      rt = lambdas.size() == 2 ? lambdas[1].body->type : args[1]->type;
      break;
  }
  bool deterministic = true;
  std::function<void(const Expr&)> walk = [&](const Expr& e) {
    deterministic &= e.deterministic;
    for (const auto& c : e.children) walk(*c);
  };
  for (const BoundLambda& l : lambdas) walk(*l.body);
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCall;
  e->type = rt;
  e->nullable = true;
  e->name = std::string(name);
  e->children = std::move(args);
  e->children.insert(e->children.end(), captured.begin(), captured.end());
  for (const ExprPtr& c : e->children) deterministic &= c->deterministic;
  e->deterministic = deterministic;
  e->kernel = [hof, lambdas = std::move(lambdas)](std::span<const Arg> a, size_t rows,
                                                  const EvalContext& ctx, Vector* out) -> Status {
    switch (hof) {
      case Hof::kAggregate:
        return AggregateKernel(lambdas[0], lambdas.size() == 2 ? &lambdas[1] : nullptr, a, rows,
                               ctx, out);
      case Hof::kZipWith:
        return ZipWithKernel(lambdas[0], a, rows, ctx, out);
      case Hof::kMapZipWith:
        return MapZipWithKernel(lambdas[0], a, rows, ctx, out);
      case Hof::kArraySort:
        return ArraySortKernel(lambdas[0], a, rows, ctx, out);
      default:
        return ElementwiseKernel(hof, lambdas[0], a, rows, ctx, out);
    }
  };
  return ExprPtr(e);
}

}  // namespace silt::exec
