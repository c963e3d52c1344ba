// Spark's array and map functions beyond the basics of misc_functions.cc
// (collectionOperations.scala, complexTypeCreator.scala): flatten, sequence, array_join,
// array_union/intersect/except, array_position, array_remove, array_max/min, slice, array_repeat,
// arrays_zip, map_from_arrays, str_to_map, array_sort without a comparator, shuffle,
// array_distinct, arrays_overlap, array_compact, array_append/prepend, array_size, get, map_concat,
// map_entries, map_from_entries and map_contains_key. NULL array in → NULL out; elements compare
// with Spark's ordering (fn::CompareCells: NaN equals NaN, NULL equals NULL in the set operations).
#include <algorithm>
#include <mutex>
#include <numeric>

#include "common/error_classes.h"
#include "exec/function_registry.h"
#include "exec/functions/function_util.h"
#include "exec/functions/random_util.h"
#include "exec/functions/regex_util.h"
#include "vector/type_sql.h"

namespace silt::exec {

namespace {

using fn::CheckArity;
using fn::CoerceArg;
using fn::CompareCells;
using fn::MakeCall;
using fn::NullAt;
using fn::ValAt;

using Args = std::vector<ExprPtr>;

// Spark's ByteArrayMethods.MAX_ROUNDED_ARRAY_LENGTH.
constexpr int64_t kMaxArrayLength = 2147483632;

Status SizeLimitError(std::string_view func, int64_t n) {
  return Status::InvalidArgument("Can't create array with " + std::to_string(n) +
                                     " elements which exceeding the array size limit " +
                                     std::to_string(kMaxArrayLength) +
                                     ", the value of parameter(s) `count` in the function `" +
                                     std::string(func) + "` is invalid.",
                                 errc::kCollectionSizeLimitExceededParameter);
}

// Argument i must be an array; an untyped NULL becomes a NULL array<void> (NULL in, NULL out).
Status RequireArray(std::string_view name, Args& a, size_t i, const BindContext& ctx) {
  TypeId id = a[i]->type->id();
  if (id == TypeId::kList) return Status::OK();
  if (id == TypeId::kNull) return CoerceArg(name, a, i, DataType::List(DataType::Null()), ctx);
  return fn::UnexpectedType(name, i, "\"ARRAY\"", a[i]->type);
}

// Coerces arguments [from, to) (arrays) to their common array type (array_union(array(1),
// array(2L)) → array<bigint>); NULL-typed arguments become NULL arrays of that type.
Result<TypePtr> CoerceArrays(std::string_view name, Args& a, size_t from, size_t to,
                             const BindContext& ctx) {
  TypePtr t = DataType::Null();
  for (size_t i = from; i < to; ++i) {
    if (!fn::IsNullTyped(a[i])) SILT_RETURN_NOT_OK(RequireArray(name, a, i, ctx));
    auto common = CommonType(t, a[i]->type);
    if (!common.ok()) {
      return fn::TypeMismatch(
          name, "Input to function `" + std::string(name) +
                    "` should have been two \"ARRAY\" with same element type, but it's [\"" +
                    a[from]->type->ToString() + "\", \"" + a[i]->type->ToString() + "\"].");
    }
    t = *common;
  }
  if (t->id() == TypeId::kNull) t = DataType::List(DataType::Null());
  for (size_t i = from; i < to; ++i) SILT_RETURN_NOT_OK(CoerceArg(name, a, i, t, ctx));
  return t;
}

// Coerces (array, element) to a common element type like array_contains.
Status CoerceArrayAndElement(std::string_view name, Args& a, const BindContext& ctx) {
  SILT_RETURN_NOT_OK(RequireArray(name, a, 0, ctx));
  auto t = CommonType(a[0]->type->element_type(), a[1]->type);
  if (!t.ok()) {
    return fn::TypeMismatch(name, "Input to `" + std::string(name) +
                                      "` should have been \"ARRAY\" followed by a value "
                                      "with same element type, but it's [\"" +
                                      a[0]->type->ToString() + "\", \"" + a[1]->type->ToString() +
                                      "\"].");
  }
  if (!(*t)->Equals(*a[0]->type->element_type())) {
    SILT_ASSIGN_OR_RETURN(a[0],
                          CoerceTo(a[0], DataType::List(*t, a[0]->type->contains_null()), ctx));
  }
  return CoerceArg(name, a, 1, *t, ctx);
}

// Elements [begin, end) of list row `i` of argument a.
struct ListRow {
  const Vector* el;
  uint32_t begin, end;
  uint32_t size() const { return end - begin; }
};
ListRow RowOf(const Arg& a, size_t i) {
  size_t r = a.index(i);
  const uint32_t* off = a.vector->offsets();
  return ListRow{&a.vector->child(0), off[r], off[r + 1]};
}

// A kernel giving, per non-null array, a selection of its elements (array_distinct,
// array_sort): select(row, &sel) fills sel with indices into *row.el.
template <typename Select>
ScalarKernel SelectElementsKernel(Select select) {
  return [select](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
    std::vector<uint32_t> sel;
    for (size_t i = 0; i < rows; ++i) {
      if (NullAt(x[0], i)) {
        out->AppendNull();
        continue;
      }
      ListRow row = RowOf(x[0], i);
      sel.clear();
      select(row, &sel);
      out->child(0).AppendSelected(*row.el, sel.data(), sel.size());
      out->FinishListRow();
    }
    return Status::OK();
  };
}

// One cell of some vector (set operations mix the cells of two arrays).
struct Cell {
  const Vector* v;
  uint32_t i;
};

// Marks, among cells, the first occurrence of each distinct value (NULLs are one value).
std::vector<uint8_t> FirstOccurrences(const std::vector<Cell>& cells) {
  std::vector<uint8_t> keep(cells.size(), 0);
  std::vector<uint32_t> order;
  bool seen_null = false;
  for (uint32_t k = 0; k < cells.size(); ++k) {
    if (cells[k].v->IsNull(cells[k].i)) {
      if (!seen_null) keep[k] = 1;
      seen_null = true;
    } else {
      order.push_back(k);
    }
  }
  std::stable_sort(order.begin(), order.end(), [&](uint32_t p, uint32_t q) {
    return CompareCells(*cells[p].v, cells[p].i, *cells[q].v, cells[q].i) < 0;
  });
  for (size_t k = 0; k < order.size(); ++k) {
    if (k == 0 || CompareCells(*cells[order[k - 1]].v, cells[order[k - 1]].i, *cells[order[k]].v,
                               cells[order[k]].i) != 0) {
      keep[order[k]] = 1;
    }
  }
  return keep;
}

// A sorted view of one array's non-null elements for membership tests.
class SortedElements {
 public:
  explicit SortedElements(const ListRow& row) : el_(row.el) {
    for (uint32_t j = row.begin; j < row.end; ++j) {
      if (el_->IsNull(j)) {
        has_null_ = true;
      } else {
        idx_.push_back(j);
      }
    }
    std::sort(idx_.begin(), idx_.end(),
              [&](uint32_t p, uint32_t q) { return CompareCells(*el_, p, *el_, q) < 0; });
  }
  bool Contains(const Vector& v, uint32_t i) const {
    if (v.IsNull(i)) return has_null_;
    auto it = std::lower_bound(idx_.begin(), idx_.end(), i, [&](uint32_t p, uint32_t x) {
      return CompareCells(*el_, p, v, x) < 0;
    });
    return it != idx_.end() && CompareCells(*el_, *it, v, i) == 0;
  }

 private:
  const Vector* el_;
  std::vector<uint32_t> idx_;
  bool has_null_ = false;
};

enum class SetOp { kUnion, kIntersect, kExcept };

ScalarKernel SetOpKernel(SetOp op) {
  return [op](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
    Vector& dst = out->child(0);
    std::vector<Cell> cells;
    for (size_t i = 0; i < rows; ++i) {
      if (AnyNull(x, i)) {
        out->AppendNull();
        continue;
      }
      ListRow a = RowOf(x[0], i), b = RowOf(x[1], i);
      cells.clear();
      for (uint32_t j = a.begin; j < a.end; ++j) cells.push_back({a.el, j});
      if (op == SetOp::kUnion) {
        for (uint32_t j = b.begin; j < b.end; ++j) cells.push_back({b.el, j});
      }
      std::vector<uint8_t> keep = FirstOccurrences(cells);
      if (op != SetOp::kUnion) {
        SortedElements other(b);
        for (size_t k = 0; k < cells.size(); ++k) {
          if (keep[k] && other.Contains(*cells[k].v, cells[k].i) != (op == SetOp::kIntersect))
            keep[k] = 0;
        }
      }
      for (size_t k = 0; k < cells.size(); ++k) {
        if (keep[k]) dst.AppendRange(*cells[k].v, cells[k].i, 1);
      }
      out->FinishListRow();
    }
    return Status::OK();
  };
}

// Appends v (of a type with an int64 representation: integral or date) to an integral vector.
void AppendIntegral(Vector* v, int64_t x) {
  switch (v->id()) {
    case TypeId::kInt8:
      v->Append<int8_t>(static_cast<int8_t>(x));
      break;
    case TypeId::kInt16:
      v->Append<int16_t>(static_cast<int16_t>(x));
      break;
    case TypeId::kInt32:
    case TypeId::kDate:
      v->Append<int32_t>(static_cast<int32_t>(x));
      break;
    default:
      v->Append<int64_t>(x);
      break;
  }
}
int64_t IntegralAt(const Arg& a, size_t i) {
  size_t r = a.index(i);
  switch (a.vector->id()) {
    case TypeId::kInt8:
      return a.vector->data<int8_t>()[r];
    case TypeId::kInt16:
      return a.vector->data<int16_t>()[r];
    case TypeId::kInt32:
    case TypeId::kDate:
      return a.vector->data<int32_t>()[r];
    default:
      return a.vector->data<int64_t>()[r];
  }
}

Result<ExprPtr> BindSequence(std::string_view n, Args& a, const BindContext& c) {
  SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 3));
  TypePtr t = DataType::Null();
  for (size_t i = 0; i < 2; ++i) {
    TypeId id = a[i]->type->id();
    if (!fn::IsIntegralId(id) && id != TypeId::kDate && id != TypeId::kNull) {
      return fn::UnexpectedType(n, i, "(\"INTEGRAL\" or \"DATE\")", a[i]->type);
    }
    SILT_ASSIGN_OR_RETURN(t, CommonType(t, a[i]->type));
  }
  if (t->id() == TypeId::kNull) t = DataType::Int32();
  bool date = t->id() == TypeId::kDate;
  if (a.size() == 3) {
    // Date (and timestamp) sequences step by an interval; silt does not implement interval steps
    // yet: only the default step of one day is available for them.
    if (date || !fn::IsIntegralId(a[2]->type->id())) {
      if (!date && fn::IsNullTyped(a[2])) {
        // sequence(1, 5, NULL) → NULL
      } else if (date) {
        return Status::NotImplemented(
            "sequence over dates with an interval step is not implemented in silt; the default "
            "step is one day",
            errc::kSiltIntervalUnsupported);
      } else {
        return fn::UnexpectedType(n, 2, "\"INTEGRAL\"", a[2]->type);
      }
    } else {
      SILT_ASSIGN_OR_RETURN(t, CommonType(t, a[2]->type));
    }
  }
  for (size_t i = 0; i < a.size(); ++i) SILT_RETURN_NOT_OK(CoerceArg(n, a, i, t, c));
  return MakeCall(
      std::string(n), DataType::List(t, false), std::move(a),
      [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
        Vector& el = out->child(0);
        for (size_t i = 0; i < rows; ++i) {
          if (AnyNull(x, i)) {
            out->AppendNull();
            continue;
          }
          int64_t start = IntegralAt(x[0], i), stop = IntegralAt(x[1], i);
          int64_t step = x.size() == 3 ? IntegralAt(x[2], i) : (start <= stop ? 1 : -1);
          if (!((step == 0 && start == stop) || (step > 0 && start <= stop) ||
                (step < 0 && start >= stop))) {
            return Status::InvalidArgument(
                "requirement failed: Illegal sequence boundaries: " + std::to_string(start) +
                " to " + std::to_string(stop) + " by " +
                std::to_string(step));  // Spark: IllegalArgumentException, no class
          }
          int128_t len = step == 0 ? 1 : (static_cast<int128_t>(stop) - start) / step + 1;
          if (len > kMaxArrayLength) return SizeLimitError("sequence", static_cast<int64_t>(len));
          SILT_RETURN_NOT_OK(fn::CheckArrayResult("sequence", static_cast<int64_t>(len), 8));
          for (int128_t k = 0; k < len; ++k) {
            AppendIntegral(&el, static_cast<int64_t>(start + k * step));
          }
          out->FinishListRow();
        }
        return Status::OK();
      });
}

// Java's String.split(regex, -1) of s: every piece, trailing empty ones included.
void SplitJava(std::string_view s, const std::string& delim, const RE2* re,
               std::vector<std::string_view>* out) {
  out->clear();
  if (!re) {
    size_t from = 0;
    for (size_t p; (p = s.find(delim, from)) != std::string_view::npos; from = p + delim.size()) {
      out->push_back(s.substr(from, p - from));
    }
    out->push_back(s.substr(from));
    return;
  }
  re2::StringPiece input(s.data(), s.size()), m;
  size_t from = 0, pos = 0;
  while (pos <= s.size() && re->Match(input, pos, s.size(), RE2::UNANCHORED, &m, 1)) {
    size_t mb = static_cast<size_t>(m.data() - s.data()), me = mb + m.size();
    if (me == mb && mb == 0) {  // an empty match splits between characters, never at the start
      pos = 1;
      continue;
    }
    out->push_back(s.substr(from, mb - from));
    from = me;
    pos = me > mb ? me : mb + 1;
  }
  out->push_back(s.substr(from));
}

// A delimiter of str_to_map: plain text when it has no regex metacharacter, else compiled.
Result<std::shared_ptr<const RE2>> DelimiterRegex(std::string_view d) {
  if (!d.empty() && d.find_first_of("\\^$.|?*+()[]{}") == std::string_view::npos) {
    return std::shared_ptr<const RE2>();
  }
  return fn::CompileJavaRegex(d, "str_to_map");
}

Status DuplicateKey(const Value& key) {
  return Status::InvalidArgument(
      "Duplicate map key " + key.ToString() +
          " was found, please check the input data. If you want to remove the duplicated "
          "keys, you can set spark.sql.mapKeyDedupPolicy to LAST_WIN so that the key "
          "inserted at last takes precedence.",
      errc::kDuplicatedMapKey);
}

// Appends src[j] to the keys of the map row that starts at keys[first]: NULL keys and keys
// already in the row fail like Spark (spark.sql.mapKeyDedupPolicy = EXCEPTION).
Status AppendMapKey(Vector* keys, size_t first, const Vector& src, size_t j) {
  if (src.IsNull(j))
    return Status::InvalidArgument("Cannot use null as map key.", errc::kNullMapKey);
  for (size_t q = first; q < keys->size(); ++q) {
    if (CompareCells(*keys, q, src, j) == 0) return DuplicateKey(src.GetValue(j));
  }
  keys->AppendRange(src, j, 1);
  return Status::OK();
}

Status RequireMap(std::string_view name, const Args& a, size_t i) {
  if (a[i]->type->id() == TypeId::kMap) return Status::OK();
  return fn::UnexpectedType(name, i, "\"MAP\"", a[i]->type);
}

// Index of the minimum (max = false) or maximum non-null element of a row; -1 when none.
int64_t ExtremeOf(const ListRow& row, bool max) {
  int64_t best = -1;
  for (uint32_t j = row.begin; j < row.end; ++j) {
    if (row.el->IsNull(j)) continue;
    if (best < 0) {
      best = j;
      continue;
    }
    int c = CompareCells(*row.el, j, *row.el, static_cast<size_t>(best));
    if (max ? c > 0 : c < 0) best = j;
  }
  return best;
}

}  // namespace

void RegisterArrayFunctions(FunctionRegistry& r) {
  Reg(r, {"flatten"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
    if (fn::IsNullTyped(a[0]))
      SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, DataType::List(DataType::List(DataType::Null())), c));
    const TypePtr& t = a[0]->type;
    if (t->id() != TypeId::kList || t->element_type()->id() != TypeId::kList) {
      return fn::UnexpectedType(n, 0, "\"ARRAY\" of \"ARRAY\"", t);
    }
    TypePtr inner = t->element_type();
    return MakeCall(std::string(n), inner, std::move(a),
                    [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                      for (size_t i = 0; i < rows; ++i) {
                        if (NullAt(x[0], i)) {
                          out->AppendNull();
                          continue;
                        }
                        ListRow row = RowOf(x[0], i);
                        const Vector& arrays = *row.el;
                        bool any_null = false;
                        for (uint32_t j = row.begin; j < row.end && !any_null; ++j)
                          any_null = arrays.IsNull(j);
                        if (any_null) {  // Spark: a NULL inner array makes the result NULL
                          out->AppendNull();
                          continue;
                        }
                        const uint32_t* off = arrays.offsets();
                        out->child(0).AppendRange(arrays.child(0), off[row.begin],
                                                  off[row.end] - off[row.begin]);
                        out->FinishListRow();
                      }
                      return Status::OK();
                    });
  });
  Reg(r, {"sequence"}, BindSequence);
  Reg(r, {"array_join"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 3));
    if (!fn::IsNullTyped(a[0])) {
      SILT_RETURN_NOT_OK(RequireArray(n, a, 0, c));
      // Atomic elements cast to string implicitly; nested ones do not (Spark's implicitCast).
      if (!fn::IsAtomicId(a[0]->type->element_type()->id())) {
        return fn::UnexpectedType(n, 0, "\"ARRAY<STRING>\"", a[0]->type);
      }
    }
    SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, DataType::List(DataType::String()), c));
    for (size_t i = 1; i < a.size(); ++i)
      SILT_RETURN_NOT_OK(CoerceArg(n, a, i, DataType::String(), c));
    return MakeCall(std::string(n), DataType::String(), std::move(a),
                    [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                      fn::StringWriter w(out, rows);
                      for (size_t i = 0; i < rows; ++i) {
                        if (AnyNull(x, i)) {  // a NULL null replacement too makes the result NULL
                          w.CommitNull();
                          continue;
                        }
                        ListRow row = RowOf(x[0], i);
                        std::string_view delim = fn::StrAt(x[1], i);
                        bool first = true;
                        for (uint32_t j = row.begin; j < row.end; ++j) {
                          std::string_view s;
                          if (row.el->IsNull(j)) {
                            if (x.size() < 3) continue;
                            s = fn::StrAt(x[2], i);
                          } else {
                            s = row.el->GetString(j);
                          }
                          if (!first) w.buf().append(delim);
                          w.buf().append(s);
                          first = false;
                        }
                        w.Commit();
                      }
                      w.Finish();
                      return Status::OK();
                    });
  });
  const std::pair<const char*, SetOp> set_ops[] = {{"array_union", SetOp::kUnion},
                                                   {"array_intersect", SetOp::kIntersect},
                                                   {"array_except", SetOp::kExcept}};
  for (const auto& [fname, op] : set_ops) {
    SetOp o = op;
    Reg(r, {fname}, [o](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
      SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
      SILT_ASSIGN_OR_RETURN(TypePtr t, CoerceArrays(n, a, 0, 2, c));
      bool null_a = a[0]->type->contains_null(), null_b = a[1]->type->contains_null();
      bool contains_null = o == SetOp::kUnion       ? (null_a || null_b)
                           : o == SetOp::kIntersect ? (null_a && null_b)
                                                    : null_a;
      return MakeCall(std::string(n), DataType::List(t->element_type(), contains_null),
                      std::move(a), SetOpKernel(o));
    });
  }
  Reg(r, {"array_position"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
        SILT_RETURN_NOT_OK(CoerceArrayAndElement(n, a, c));
        return MakeCall(std::string(n), DataType::Int64(), std::move(a),
                        [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                          fn::FixedWriter<int64_t> w(out, rows);
                          for (size_t i = 0; i < rows; ++i) {
                            if (AnyNull(x, i)) {
                              w.SetNull(i);
                              continue;
                            }
                            ListRow row = RowOf(x[0], i);
                            int64_t pos = 0;
                            for (uint32_t j = row.begin; j < row.end && pos == 0; ++j) {
                              if (!row.el->IsNull(j) &&
                                  CompareCells(*row.el, j, *x[1].vector, x[1].index(i)) == 0) {
                                pos = j - row.begin + 1;
                              }
                            }
                            w.Set(i, pos);
                          }
                          return Status::OK();
                        });
      });
  Reg(r, {"array_remove"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
        SILT_RETURN_NOT_OK(CoerceArrayAndElement(n, a, c));
        TypePtr t = a[0]->type;
        return MakeCall(std::string(n), t, std::move(a),
                        [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                          std::vector<uint32_t> sel;
                          for (size_t i = 0; i < rows; ++i) {
                            if (AnyNull(x, i)) {
                              out->AppendNull();
                              continue;
                            }
                            ListRow row = RowOf(x[0], i);
                            sel.clear();
                            for (uint32_t j = row.begin; j < row.end; ++j) {
                              // NULL elements stay: they never equal the (non-null) value
                              if (row.el->IsNull(j) ||
                                  CompareCells(*row.el, j, *x[1].vector, x[1].index(i)) != 0) {
                                sel.push_back(j);
                              }
                            }
                            out->child(0).AppendSelected(*row.el, sel.data(), sel.size());
                            out->FinishListRow();
                          }
                          return Status::OK();
                        });
      });
  for (int max = 0; max < 2; ++max) {
    Reg(r, {max ? "array_max" : "array_min"},
        [max](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
          SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
          SILT_RETURN_NOT_OK(RequireArray(n, a, 0, c));
          TypePtr t = a[0]->type->element_type();
          return MakeCall(
              std::string(n), t, std::move(a),
              [max](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                for (size_t i = 0; i < rows; ++i) {
                  int64_t best = NullAt(x[0], i) ? -1 : ExtremeOf(RowOf(x[0], i), max != 0);
                  if (best < 0) {
                    out->AppendNull();
                  } else {
                    out->AppendRange(x[0].vector->child(0), static_cast<size_t>(best), 1);
                  }
                }
                return Status::OK();
              });
        });
  }
  Reg(r, {"slice"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 3, 3));
    SILT_RETURN_NOT_OK(RequireArray(n, a, 0, c));
    for (size_t i = 1; i < 3; ++i) {
      if (!fn::IsIntegralId(a[i]->type->id()) && !fn::IsNullTyped(a[i])) {
        return fn::UnexpectedType(n, i, "\"INT\"", a[i]->type);
      }
      SILT_RETURN_NOT_OK(CoerceArg(n, a, i, DataType::Int32(), c));
    }
    TypePtr t = a[0]->type;
    return MakeCall(
        std::string(n), t, std::move(a),
        [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
          for (size_t i = 0; i < rows; ++i) {
            if (AnyNull(x, i)) {
              out->AppendNull();
              continue;
            }
            ListRow row = RowOf(x[0], i);
            int64_t start = ValAt<int32_t>(x[1], i), length = ValAt<int32_t>(x[2], i);
            int64_t total = row.size();
            if (start == 0) {
              return Status::InvalidArgument(
                  "The value of parameter(s) `start` in `slice` is invalid: Expects a positive or "
                  "a "
                  "negative value for `start`, but got 0.",
                  errc::kInvalidParameterValueStart);
            }
            if (length < 0) {
              return Status::InvalidArgument(
                  "The value of parameter(s) `length` in `slice` is invalid: Expects `length` "
                  "greater "
                  "than or equal to 0, but got " +
                      std::to_string(length) + ".",
                  errc::kInvalidParameterValueLength);
            }
            int64_t from = start < 0 ? start + total : start - 1;
            if (from >= 0 && from < total) {
              out->child(0).AppendRange(*row.el, row.begin + static_cast<size_t>(from),
                                        static_cast<size_t>(std::min(length, total - from)));
            }
            out->FinishListRow();
          }
          return Status::OK();
        });
  });
  Reg(r, {"array_repeat"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
        if (!fn::IsIntegralId(a[1]->type->id()) && !fn::IsNullTyped(a[1])) {
          return fn::UnexpectedType(n, 1, "\"INT\"", a[1]->type);
        }
        SILT_RETURN_NOT_OK(CoerceArg(n, a, 1, DataType::Int32(), c));
        TypePtr t = DataType::List(a[0]->type, a[0]->nullable);
        return MakeCall(
            std::string(n), t, std::move(a),
            [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
              for (size_t i = 0; i < rows; ++i) {
                if (NullAt(x[1], i)) {  // a NULL element repeats; a NULL count gives NULL
                  out->AppendNull();
                  continue;
                }
                int64_t count = ValAt<int32_t>(x[1], i);
                if (count > kMaxArrayLength) return SizeLimitError("array_repeat", count);
                size_t r = x[0].index(i);
                if (count > 0) {
                  const Vector& el = *x[0].vector;
                  int64_t w = el.type()->fixed_width() > 0 ? el.type()->fixed_width() : 16;
                  if (el.type()->is_binary_like() && el.IsValid(r)) {
                    w = static_cast<int64_t>(el.GetString(r).size()) + 4;
                  } else if (el.type()->id() == TypeId::kList && el.IsValid(r)) {
                    // An array of arrays: each copy holds the inner array's elements.
                    const Vector& inner = el.child(0);
                    int64_t iw = inner.type()->fixed_width() > 0 ? inner.type()->fixed_width() : 16;
                    w = 16 + static_cast<int64_t>(el.offsets()[r + 1] - el.offsets()[r]) * iw;
                  }
                  SILT_RETURN_NOT_OK(fn::CheckArrayResult("array_repeat", count, w));
                }
                for (int64_t k = 0; k < count; ++k) out->child(0).AppendRange(*x[0].vector, r, 1);
                out->FinishListRow();
              }
              return Status::OK();
            });
      });
  Reg(r, {"arrays_zip"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    std::vector<Field> fields;
    for (size_t i = 0; i < a.size(); ++i) {
      SILT_RETURN_NOT_OK(RequireArray(n, a, i, c));
      // Spark names a field after its argument when that is a column, else by its position.
      std::string name =
          a[i]->kind == ExprKind::kColumn && !a[i]->name.empty() ? a[i]->name : std::to_string(i);
      fields.push_back(Field{name, a[i]->type->element_type(), true, "{}"});
    }
    return MakeCall(std::string(n), DataType::List(DataType::Struct(std::move(fields)), false),
                    std::move(a),
                    [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                      Vector& st = out->child(0);
                      for (size_t i = 0; i < rows; ++i) {
                        if (AnyNull(x, i)) {
                          out->AppendNull();
                          continue;
                        }
                        uint32_t len = 0;
                        for (const Arg& e : x) len = std::max(len, RowOf(e, i).size());
                        for (size_t k = 0; k < x.size(); ++k) {
                          ListRow row = RowOf(x[k], i);
                          Vector& f = st.child(k);
                          f.AppendRange(*row.el, row.begin, row.size());
                          for (uint32_t j = row.size(); j < len; ++j) f.AppendNull();
                        }
                        st.SetSizeUnchecked(st.size() + len);
                        out->FinishListRow();
                      }
                      return Status::OK();
                    });
  });
  Reg(r, {"map_from_arrays"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
        SILT_RETURN_NOT_OK(RequireArray(n, a, 0, c));
        SILT_RETURN_NOT_OK(RequireArray(n, a, 1, c));
        const TypePtr& kt = a[0]->type->element_type();
        if (!fn::IsAtomicId(kt->id()))
          return Status::NotImplemented("map_from_arrays: nested key types are not supported yet");
        TypePtr t = DataType::Map(kt, a[1]->type->element_type(), a[1]->type->contains_null());
        return MakeCall(
            std::string(n), t, std::move(a),
            [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
              for (size_t i = 0; i < rows; ++i) {
                if (AnyNull(x, i)) {
                  out->AppendNull();
                  continue;
                }
                ListRow keys = RowOf(x[0], i), vals = RowOf(x[1], i);
                if (keys.size() != vals.size()) {
                  return Status::InvalidArgument(
                      "The key array and value array of MapData must have the same length.");
                }
                size_t first = out->child(0).size();
                for (uint32_t j = keys.begin; j < keys.end; ++j) {
                  SILT_RETURN_NOT_OK(AppendMapKey(&out->child(0), first, *keys.el, j));
                }
                out->child(1).AppendRange(*vals.el, vals.begin, vals.size());
                out->FinishListRow();
              }
              return Status::OK();
            });
      });
  Reg(r, {"str_to_map"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 3));
    if (a.size() < 2) a.push_back(MakeConstant(Value::String(",")));
    if (a.size() < 3) a.push_back(MakeConstant(Value::String(":")));
    for (size_t i = 0; i < 3; ++i) SILT_RETURN_NOT_OK(CoerceArg(n, a, i, DataType::String(), c));
    return MakeCall(
        std::string(n), DataType::Map(DataType::String(), DataType::String()), std::move(a),
        [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
          std::string delims[2];
          std::shared_ptr<const RE2> res[2];
          bool compiled[2] = {false, false};
          std::vector<std::string_view> pairs, kv;
          Vector& keys = out->child(0);
          Vector& vals = out->child(1);
          for (size_t i = 0; i < rows; ++i) {
            if (AnyNull(x, i)) {
              out->AppendNull();
              continue;
            }
            for (int d = 0; d < 2; ++d) {
              std::string_view s = fn::StrAt(x[d + 1], i);
              if (!compiled[d] || s != delims[d]) {
                delims[d] = std::string(s);
                SILT_ASSIGN_OR_RETURN(res[d], DelimiterRegex(s));
                compiled[d] = true;
              }
            }
            SplitJava(fn::StrAt(x[0], i), delims[0], res[0].get(), &pairs);
            size_t first = keys.size();
            for (std::string_view p : pairs) {
              SplitJava(p, delims[1], res[1].get(), &kv);
              // Spark splits each pair in at most two: the value keeps later delimiters.
              std::string_view key = kv[0];
              for (size_t j = first; j < keys.size(); ++j) {
                if (keys.GetString(j) == key) return DuplicateKey(Value::String(std::string(key)));
              }
              keys.AppendString(key);
              if (kv.size() < 2) {
                vals.AppendNull();
              } else {
                size_t vstart = static_cast<size_t>(kv[1].data() - p.data());
                vals.AppendString(p.substr(vstart));
              }
            }
            out->FinishListRow();
          }
          return Status::OK();
        });
  });
  Reg(r, {"array_distinct"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
        SILT_RETURN_NOT_OK(RequireArray(n, a, 0, c));
        TypePtr t = a[0]->type;
        return MakeCall(std::string(n), t, std::move(a),
                        SelectElementsKernel([](const ListRow& row, std::vector<uint32_t>* sel) {
                          std::vector<Cell> cells;
                          for (uint32_t j = row.begin; j < row.end; ++j)
                            cells.push_back({row.el, j});
                          std::vector<uint8_t> keep = FirstOccurrences(cells);
                          for (size_t k = 0; k < cells.size(); ++k) {
                            if (keep[k]) sel->push_back(cells[k].i);
                          }
                        }));
      });
  Reg(r, {"arrays_overlap"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
        Result<TypePtr> common =
            CoerceArrays(n, a, 0, 2, c);  // a named Result: status() must outlive the check
        SILT_RETURN_NOT_OK(common.status());
        return MakeCall(std::string(n), DataType::Boolean(), std::move(a),
                        [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                          fn::FixedWriter<uint8_t> w(out, rows);
                          for (size_t i = 0; i < rows; ++i) {
                            if (AnyNull(x, i)) {
                              w.SetNull(i);
                              continue;
                            }
                            ListRow a = RowOf(x[0], i), b = RowOf(x[1], i);
                            SortedElements sorted(b);
                            bool found = false, saw_null = false;
                            for (uint32_t j = a.begin; j < a.end && !found; ++j) {
                              if (a.el->IsNull(j)) {
                                saw_null = true;
                              } else {
                                found = sorted.Contains(*a.el, j);
                              }
                            }
                            for (uint32_t j = b.begin; j < b.end && !saw_null; ++j)
                              saw_null = b.el->IsNull(j);
                            // No common element: NULL when both are non-empty and one holds a NULL.
                            if (!found && saw_null && a.size() > 0 && b.size() > 0) {
                              w.SetNull(i);
                            } else {
                              w.Set(i, found ? 1 : 0);
                            }
                          }
                          return Status::OK();
                        });
      });
  Reg(r, {"array_compact"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
        SILT_RETURN_NOT_OK(RequireArray(n, a, 0, c));
        TypePtr t = DataType::List(a[0]->type->element_type(), false);
        return MakeCall(std::string(n), t, std::move(a),
                        [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                          std::vector<uint32_t> sel;
                          for (size_t i = 0; i < rows; ++i) {
                            if (NullAt(x[0], i)) {
                              out->AppendNull();
                              continue;
                            }
                            ListRow row = RowOf(x[0], i);
                            sel.clear();
                            for (uint32_t j = row.begin; j < row.end; ++j) {
                              if (!row.el->IsNull(j)) sel.push_back(j);
                            }
                            out->child(0).AppendSelected(*row.el, sel.data(), sel.size());
                            out->FinishListRow();
                          }
                          return Status::OK();
                        });
      });
  for (int prepend = 0; prepend < 2; ++prepend) {
    Reg(r, {prepend ? "array_prepend" : "array_append"},
        [prepend](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
          SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
          SILT_RETURN_NOT_OK(RequireArray(n, a, 0, c));
          SILT_RETURN_NOT_OK(CoerceArrayAndElement(n, a, c));
          TypePtr t = DataType::List(a[0]->type->element_type(),
                                     a[0]->type->contains_null() || a[1]->nullable);
          return MakeCall(
              std::string(n), t, std::move(a),
              [prepend](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                Vector& el = out->child(0);
                for (size_t i = 0; i < rows; ++i) {
                  if (NullAt(x[0], i)) {  // a NULL element is added; a NULL array gives NULL
                    out->AppendNull();
                    continue;
                  }
                  ListRow row = RowOf(x[0], i);
                  if (prepend) el.AppendRange(*x[1].vector, x[1].index(i), 1);
                  el.AppendRange(*row.el, row.begin, row.size());
                  if (!prepend) el.AppendRange(*x[1].vector, x[1].index(i), 1);
                  out->FinishListRow();
                }
                return Status::OK();
              });
        });
  }
  // array_insert(array, pos, item): pos 1-based; past the end pads with NULLs; negative counts
  // from the end (-1 appends; spark.sql.legacy.negativeIndexInArrayInsert: -1 inserts before the
  // last); further left than the start, the item comes first and NULLs pad up to the array.
  Reg(r, {"array_insert"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 3, 3));
        SILT_RETURN_NOT_OK(RequireArray(n, a, 0, c));
        const TypePtr& et = a[0]->type->element_type();
        const TypePtr& it = a[2]->type;
        const bool et_str = et->id() == TypeId::kString, it_str = it->id() == TypeId::kString;
        if (et_str != it_str && et->id() != TypeId::kNull && it->id() != TypeId::kNull) {
          return Status::InvalidArgument(
              "Cannot resolve \"array_insert\" due to data type mismatch: Input to `array_insert` "
              "should have been \"ARRAY\" followed by a value with same element type, but it's "
              "[\"" +
                  a[0]->type->ToString() + "\", \"" + it->ToString() + "\"].",
              errc::kDatatypeMismatchArrayFunctionDiffTypes);
        }
        if (!fn::IsIntegralId(a[1]->type->id()) && a[1]->type->id() != TypeId::kNull) {
          return fn::UnexpectedType(n, 1, "\"INT\"", a[1]->type);
        }
        SILT_RETURN_NOT_OK(CoerceArg(n, a, 1, DataType::Int32(), c));
        Args pair = {a[0], a[2]};
        SILT_RETURN_NOT_OK(CoerceArrayAndElement(n, pair, c));
        a[0] = pair[0];
        a[2] = pair[1];
        const int base_offset = c.legacy_negative_index_in_array_insert ? 1 : 0;
        TypePtr t = DataType::List(a[0]->type->element_type(), true);
        return MakeCall(
            std::string(n), t, std::move(a),
            [base_offset](std::span<const Arg> x, size_t rows, const EvalContext&,
                          Vector* out) -> Status {
              Vector& el = out->child(0);
              for (size_t i = 0; i < rows; ++i) {
                if (NullAt(x[0], i) || NullAt(x[1], i)) {
                  out->AppendNull();
                  continue;
                }
                ListRow row = RowOf(x[0], i);
                const int64_t len = row.size();
                const int64_t pos = fn::ValAt<int32_t>(x[1], i);
                if (pos == 0) {
                  return Status::InvalidArgument(
                      "The index 0 is invalid. An index shall be either < 0 or > 0 (the first "
                      "element has index 1).",
                      errc::kInvalidIndexOfZero);
                }
                auto item = [&] { el.AppendRange(*x[2].vector, x[2].index(i), 1); };
                auto nulls = [&](int64_t k) {
                  for (int64_t j = 0; j < k; ++j) el.AppendNull();
                };
                if (pos < 0 && -pos > len) {
                  const int64_t new_len = -pos + base_offset;
                  SILT_RETURN_NOT_OK(fn::CheckArrayResult("array_insert", new_len, 8));
                  item();
                  nulls(new_len - len - 1);
                  el.AppendRange(*row.el, row.begin, row.size());
                } else {
                  const int64_t at = pos > 0 ? pos - 1 : pos + len + (1 - base_offset);
                  if (at >= len) {
                    SILT_RETURN_NOT_OK(fn::CheckArrayResult("array_insert", at + 1, 8));
                    el.AppendRange(*row.el, row.begin, row.size());
                    nulls(at - len);
                    item();
                  } else {
                    el.AppendRange(*row.el, row.begin, static_cast<size_t>(at));
                    item();
                    el.AppendRange(*row.el, row.begin + static_cast<uint32_t>(at),
                                   static_cast<size_t>(len - at));
                  }
                }
                out->FinishListRow();
              }
              return Status::OK();
            });
      });
  Reg(r, {"array_size"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
    SILT_RETURN_NOT_OK(RequireArray(n, a, 0, c));
    return MakeCall(std::string(n), DataType::Int32(), std::move(a),
                    [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                      fn::FixedWriter<int32_t> w(out, rows);
                      for (size_t i = 0; i < rows; ++i) {
                        if (NullAt(x[0], i)) {
                          w.SetNull(i);
                        } else {
                          w.Set(i, static_cast<int32_t>(RowOf(x[0], i).size()));
                        }
                      }
                      return Status::OK();
                    });
  });
  Reg(r, {"get"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
    // (Spark's get takes no untyped NULL array, unlike element_at)
    if (fn::IsNullTyped(a[0])) return fn::UnexpectedType(n, 0, "\"ARRAY\"", a[0]->type);
    SILT_RETURN_NOT_OK(RequireArray(n, a, 0, c));
    if (!fn::IsIntegralId(a[1]->type->id()) && !fn::IsNullTyped(a[1])) {
      return fn::UnexpectedType(n, 1, "\"INT\"", a[1]->type);
    }
    SILT_RETURN_NOT_OK(CoerceArg(n, a, 1, DataType::Int32(), c));
    TypePtr t = a[0]->type->element_type();
    return MakeCall(
        std::string(n), t, std::move(a),
        [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
          for (size_t i = 0; i < rows; ++i) {
            int64_t k = AnyNull(x, i) ? -1 : ValAt<int32_t>(x[1], i);
            ListRow row = k >= 0 ? RowOf(x[0], i) : ListRow{nullptr, 0, 0};
            if (k < 0 || k >= row.size()) {  // 0-based; out of bounds is NULL, never an error
              out->AppendNull();
            } else {
              out->AppendRange(*row.el, row.begin + static_cast<size_t>(k), 1);
            }
          }
          return Status::OK();
        });
  });
  Reg(r, {"map_concat"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    if (a.empty()) {
      return MakeCall(std::string(n), DataType::Map(DataType::String(), DataType::String()), {},
                      [](std::span<const Arg>, size_t rows, const EvalContext&, Vector* out) {
                        for (size_t i = 0; i < rows; ++i) out->FinishListRow();
                        return Status::OK();
                      });
    }
    TypePtr t = DataType::Null();
    for (size_t i = 0; i < a.size(); ++i) {
      if (fn::IsNullTyped(a[i])) continue;
      SILT_RETURN_NOT_OK(RequireMap(n, a, i));
      auto common = CommonType(t, a[i]->type);
      if (!common.ok()) {
        return fn::TypeMismatch(
            n,
            "The input to function `map_concat` should all be of the same map type, but it's "
            "[\"" +
                a[0]->type->ToString() + "\", \"" + a[i]->type->ToString() + "\"].");
      }
      t = *common;
    }
    if (t->id() == TypeId::kNull) t = DataType::Map(DataType::String(), DataType::String());
    for (size_t i = 0; i < a.size(); ++i) SILT_RETURN_NOT_OK(CoerceArg(n, a, i, t, c));
    return MakeCall(
        std::string(n), t, std::move(a),
        [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
          for (size_t i = 0; i < rows; ++i) {
            if (AnyNull(x, i)) {
              out->AppendNull();
              continue;
            }
            size_t first = out->child(0).size();
            for (const Arg& m : x) {
              size_t r = m.index(i);
              const uint32_t* off = m.vector->offsets();
              for (uint32_t j = off[r]; j < off[r + 1]; ++j) {
                SILT_RETURN_NOT_OK(AppendMapKey(&out->child(0), first, m.vector->child(0), j));
              }
              out->child(1).AppendRange(m.vector->child(1), off[r], off[r + 1] - off[r]);
            }
            out->FinishListRow();
          }
          return Status::OK();
        });
  });
  Reg(r, {"map_entries"}, [](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
    SILT_RETURN_NOT_OK(RequireMap(n, a, 0));
    const TypePtr& mt = a[0]->type;
    TypePtr entry =
        DataType::Struct({Field{"key", mt->key_type(), false, "{}"},
                          Field{"value", mt->value_type(), mt->value_contains_null(), "{}"}});
    return MakeCall(std::string(n), DataType::List(entry, false), std::move(a),
                    [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                      Vector& st = out->child(0);
                      for (size_t i = 0; i < rows; ++i) {
                        if (NullAt(x[0], i)) {
                          out->AppendNull();
                          continue;
                        }
                        size_t r = x[0].index(i);
                        const uint32_t* off = x[0].vector->offsets();
                        uint32_t b = off[r], e = off[r + 1];
                        st.child(0).AppendRange(x[0].vector->child(0), b, e - b);
                        st.child(1).AppendRange(x[0].vector->child(1), b, e - b);
                        st.SetSizeUnchecked(st.size() + (e - b));
                        out->FinishListRow();
                      }
                      return Status::OK();
                    });
  });
  Reg(r, {"map_from_entries"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
        SILT_RETURN_NOT_OK(RequireArray(n, a, 0, c));
        const TypePtr& et = a[0]->type->element_type();
        if (et->id() != TypeId::kStruct || et->fields().size() != 2) {
          return fn::UnexpectedType(n, 0, "\"ARRAY\" of pair \"STRUCT\"", a[0]->type);
        }
        if (!fn::IsAtomicId(et->fields()[0].type->id())) {
          return Status::NotImplemented("map_from_entries: nested key types are not supported yet");
        }
        TypePtr t =
            DataType::Map(et->fields()[0].type, et->fields()[1].type, et->fields()[1].nullable);
        return MakeCall(
            std::string(n), t, std::move(a),
            [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) -> Status {
              for (size_t i = 0; i < rows; ++i) {
                if (NullAt(x[0], i)) {
                  out->AppendNull();
                  continue;
                }
                ListRow row = RowOf(x[0], i);
                bool null_entry = false;
                for (uint32_t j = row.begin; j < row.end && !null_entry; ++j)
                  null_entry = row.el->IsNull(j);
                if (null_entry) {  // Spark: a NULL entry makes the map NULL
                  out->AppendNull();
                  continue;
                }
                size_t first = out->child(0).size();
                for (uint32_t j = row.begin; j < row.end; ++j) {
                  SILT_RETURN_NOT_OK(AppendMapKey(&out->child(0), first, row.el->child(0), j));
                }
                out->child(1).AppendRange(row.el->child(1), row.begin, row.size());
                out->FinishListRow();
              }
              return Status::OK();
            });
      });
  Reg(r, {"map_contains_key"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
        SILT_RETURN_NOT_OK(RequireMap(n, a, 0));
        // Spark widens the key without string promotion: a string against a non-string key
        // has no common type.
        const TypeId kt = a[0]->type->key_type()->id(), at = a[1]->type->id();
        if (at != TypeId::kNull && (kt == TypeId::kString) != (at == TypeId::kString)) {
          return Status::InvalidArgument(
              "Cannot resolve \"" + std::string(n) + "\" due to data type mismatch: Input to `" +
                  std::string(n) +
                  "` should have been \"MAP\" followed by a value with same key type, but it's "
                  "[\"" +
                  TypeSql(a[0]->type) + "\", \"" + TypeSql(a[1]->type) + "\"].",
              errc::kDatatypeMismatchMapFunctionDiffTypes);
        }
        SILT_RETURN_NOT_OK(CoerceArg(n, a, 1, a[0]->type->key_type(), c));
        return MakeCall(std::string(n), DataType::Boolean(), std::move(a),
                        [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                          fn::FixedWriter<uint8_t> w(out, rows);
                          for (size_t i = 0; i < rows; ++i) {
                            if (AnyNull(x, i)) {
                              w.SetNull(i);
                              continue;
                            }
                            size_t r = x[0].index(i);
                            const Vector& keys = x[0].vector->child(0);
                            const uint32_t* off = x[0].vector->offsets();
                            bool found = false;
                            for (uint32_t j = off[r]; j < off[r + 1] && !found; ++j) {
                              found = CompareCells(keys, j, *x[1].vector, x[1].index(i)) == 0;
                            }
                            w.Set(i, found ? 1 : 0);
                          }
                          return Status::OK();
                        });
      });
  Reg(r, {"shuffle"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 2));
    SILT_RETURN_NOT_OK(RequireArray(n, a, 0, c));
    // Like rand(): the seed is fixed when the call is bound (random unless given) and the
    // generator runs over the rows in order, as Spark's single partition 0 does.
    SILT_ASSIGN_OR_RETURN(int64_t seed, fn::RandomSeedArg(n, a, 1));
    if (a.size() == 2) a.pop_back();
    struct State {
      std::mutex mu;
      fn::XorShiftRandom rng;
      explicit State(int64_t s) : rng(s) {}
    };
    auto state = std::make_shared<State>(seed);
    TypePtr t = a[0]->type;
    return MakeCall(
        std::string(n), t, std::move(a),
        [state](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
          std::vector<uint32_t> idx;
          std::lock_guard<std::mutex> lock(state->mu);
          for (size_t i = 0; i < rows; ++i) {
            if (NullAt(x[0], i)) {
              out->AppendNull();
              continue;
            }
            ListRow row = RowOf(x[0], i);
            // Spark's RandomIndicesGenerator: inside-out Fisher-Yates.
            idx.resize(row.size());
            for (uint32_t k = 0; k < row.size(); ++k) {
              uint32_t j = static_cast<uint32_t>(state->rng.NextInt(static_cast<int32_t>(k + 1)));
              idx[k] = row.begin + k;
              if (j != k) {
                idx[k] = idx[j];
                idx[j] = row.begin + k;
              }
            }
            out->child(0).AppendSelected(*row.el, idx.data(), idx.size());
            out->FinishListRow();
          }
          return Status::OK();
        },
        /*deterministic=*/false);
  });
  // array_sort(array, comparator) is a higher-order function (exec/lambda.cc).
  Reg(r, {"array_sort"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
    SILT_RETURN_NOT_OK(RequireArray(n, a, 0, c));
    TypePtr t = a[0]->type;
    return MakeCall(std::string(n), t, std::move(a),
                    SelectElementsKernel([](const ListRow& row, std::vector<uint32_t>* idx) {
                      const Vector& el = *row.el;
                      idx->resize(row.size());
                      std::iota(idx->begin(), idx->end(), row.begin);
                      // Ascending with NULLs last (unlike sort_array's NULLs first).
                      std::stable_sort(idx->begin(), idx->end(), [&](uint32_t p, uint32_t q) {
                        bool np = el.IsNull(p), nq = el.IsNull(q);
                        if (np || nq) return !np && nq;
                        return CompareCells(el, p, el, q) < 0;
                      });
                    }));
  });
}

}  // namespace silt::exec
