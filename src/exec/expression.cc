#include "exec/expression.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <unordered_set>

#include "common/error_classes.h"
#include "common/query_memory.h"
#include "exec/kernel_util.h"
#include "exec/operator.h"

namespace silt::exec {

// ---------------------------------------------------------------------------------------------
// IN lists of constants: a hash set built once, when the expression is made

namespace {

// Lists shorter than this compare item by item (no set to build).
constexpr size_t kInSetMinItems = 16;

struct InKeyHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// The bytes that identify value i of v for IN equality (EqualAt): the fixed-width value (floats
// with -0.0 as 0.0 and one NaN, since x == y or both NaN) or the string/binary bytes; false for
// nested types (compared item by item).
bool InKeyAt(const Vector& v, size_t i, char* buf, std::string_view* key) {
  switch (v.id()) {
    case TypeId::kFloat: {
      float x = v.data<float>()[i];
      if (x == 0) x = 0;
      if (x != x) x = std::numeric_limits<float>::quiet_NaN();
      std::memcpy(buf, &x, sizeof x);
      *key = std::string_view(buf, sizeof x);
      return true;
    }
    case TypeId::kDouble: {
      double x = v.data<double>()[i];
      if (x == 0) x = 0;
      if (x != x) x = std::numeric_limits<double>::quiet_NaN();
      std::memcpy(buf, &x, sizeof x);
      *key = std::string_view(buf, sizeof x);
      return true;
    }
    case TypeId::kString:
    case TypeId::kBinary:
      *key = v.GetString(i);
      return true;
    case TypeId::kBoolean:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kTime:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
    case TypeId::kDayTimeInterval:
    case TypeId::kDecimal: {
      size_t w = static_cast<size_t>(v.type()->fixed_width());
      if (w == 0 || w > 16) return false;
      std::memcpy(buf, v.data<uint8_t>() + i * w, w);
      *key = std::string_view(buf, w);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

namespace {

// The items of a long IN list of constants, as a set built on first use (once, however many
// chunks or threads evaluate the list; a rewritten copy of the expression that is never
// evaluated costs nothing): values up to 8 bytes as a sorted vector of integer keys, others
// (strings, decimals) in a hash set of their bytes.
class InSet {
 public:
  InSet(TypePtr type, std::vector<ExprPtr> items)
      : type_(std::move(type)), items_(std::move(items)) {}

  // Whether value `r` of v (of the list's type, not NULL) is in the list; false (with *st set)
  // when the set cannot be built.
  bool Contains(const Vector& v, size_t r, Status* st) {
    std::call_once(once_, [this] { build_ = Build(); });
    if (!build_.ok()) {
      *st = build_;
      return false;
    }
    char buf[16];
    std::string_view key;
    if (!InKeyAt(v, r, buf, &key)) {
      *st = Status::Internal("IN: value type changed after binding");
      return false;
    }
    if (ints_) return std::binary_search(ints_->begin(), ints_->end(), IntKey(key));
    return strs_.find(key) != strs_.end();
  }
  bool has_null() {
    std::call_once(once_, [this] { build_ = Build(); });
    return has_null_;
  }

 private:
  static uint64_t IntKey(std::string_view key) {
    uint64_t k = 0;
    std::memcpy(&k, key.data(), key.size());
    return k;
  }
  Status Build() {
    Vector items(type_);
    for (const ExprPtr& item : items_) {
      if (item->constant.is_null()) {
        has_null_ = true;
        continue;
      }
      SILT_RETURN_NOT_OK(items.AppendValue(item->constant));
    }
    items_.clear();
    items_.shrink_to_fit();
    char buf[16];
    std::string_view key;
    bool narrow = type_->fixed_width() > 0 && type_->fixed_width() <= 8;
    if (narrow) {
      ints_.emplace();
      ints_->reserve(items.size());
    } else {
      strs_.reserve(items.size());
    }
    for (size_t i = 0; i < items.size(); ++i) {
      if (!InKeyAt(items, i, buf, &key)) return Status::Internal("IN: items of an unhashable type");
      if (narrow) {
        ints_->push_back(IntKey(key));
      } else {
        strs_.emplace(key);
      }
    }
    if (narrow) std::sort(ints_->begin(), ints_->end());
    return Status::OK();
  }

  TypePtr type_;
  std::vector<ExprPtr> items_;  // until built
  std::once_flag once_;
  Status build_;
  bool has_null_ = false;
  std::optional<std::vector<uint64_t>> ints_;
  std::unordered_set<std::string, InKeyHash, std::equal_to<>> strs_;
};

bool InSetType(const DataType& t) {
  switch (t.id()) {
    case TypeId::kBoolean:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kTime:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
    case TypeId::kDayTimeInterval:
    case TypeId::kDecimal:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kString:
    case TypeId::kBinary:
      return true;
    default:
      return false;
  }
}

// For `v IN (c1, ..., cn)` with n >= kInSetMinItems constants of the value's (hashable) type: a
// kernel (args = {v}) that looks each row up in an InSet of the items, instead of comparing
// every row with every item; SQL NULL semantics (NULL where v is NULL, or where v is not found
// and an item is NULL). Null otherwise (EvalIn compares item by item).
ScalarKernel MakeInSetKernel(const Expr& e) {
  if (e.children.size() < kInSetMinItems + 1 || !InSetType(*e.children[0]->type)) return nullptr;
  const DataType& type = *e.children[0]->type;
  for (size_t c = 1; c < e.children.size(); ++c) {
    const Expr& item = *e.children[c];
    if (item.kind != ExprKind::kConstant) return nullptr;
    if (!item.constant.is_null() && item.constant.type().get() != &type &&
        !item.constant.type()->Equals(type)) {
      return nullptr;
    }
  }
  auto set = std::make_shared<InSet>(
      e.children[0]->type, std::vector<ExprPtr>(e.children.begin() + 1, e.children.end()));
  return [set](std::span<const Arg> args, size_t rows, const EvalContext&, Vector* out) -> Status {
    const Vector& value = *args[0].vector;
    *out = Vector(DataType::Boolean());
    out->ResizeUninitialized(rows);
    uint8_t* d = out->data<uint8_t>();
    bool has_null = set->has_null(), nulls = false;
    std::vector<uint8_t> valid(rows, 1);
    Status st;
    for (size_t i = 0; i < rows; ++i) {
      size_t r = args[0].index(i);
      if (value.IsNull(r)) {
        d[i] = 0;
        valid[i] = 0;
        nulls = true;
        continue;
      }
      bool hit = set->Contains(value, r, &st);
      if (!st.ok()) return st;
      d[i] = hit;
      if (!hit && has_null) {
        valid[i] = 0;
        nulls = true;
      }
    }
    if (nulls) std::memcpy(out->mutable_validity(), valid.data(), rows);
    return Status::OK();
  };
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Construction and display

ExprPtr MakeColumn(int index, TypePtr type, std::string display_name, bool nullable) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kColumn;
  e->type = std::move(type);
  e->column = index;
  e->name = std::move(display_name);
  e->nullable = nullable;
  return e;
}

ExprPtr MakeConstant(Value value) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kConstant;
  e->type = value.type();
  e->nullable = value.is_null();
  e->constant = std::move(value);
  return e;
}

ExprPtr MakeSpecial(ExprKind kind, TypePtr type, std::vector<ExprPtr> children, bool has_else) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->type = std::move(type);
  e->has_else = has_else;
  bool nullable = kind != ExprKind::kIsNull && kind != ExprKind::kIsNotNull;
  if (kind == ExprKind::kCoalesce) {
    nullable = true;
    for (const auto& c : children) nullable = nullable && c->nullable;
  }
  e->nullable = nullable;
  for (const auto& c : children) e->deterministic = e->deterministic && c->deterministic;
  e->children = std::move(children);
  if (kind == ExprKind::kIn) e->kernel = MakeInSetKernel(*e);
  return e;
}

namespace {
std::string Literal(const Value& v) {
  if (v.is_null()) return "NULL";
  switch (v.type()->id()) {
    case TypeId::kString:
      return "'" + v.str() + "'";
    case TypeId::kDate:
      return "DATE '" + v.ToString() + "'";
    case TypeId::kYearMonthInterval:
      return FormatYearMonthInterval(static_cast<int32_t>(v.integer()), v.type()->interval_start(),
                                     v.type()->interval_end(), true);
    case TypeId::kDayTimeInterval:
      return FormatDayTimeInterval(v.integer(), v.type()->interval_start(),
                                   v.type()->interval_end(), true);
    case TypeId::kTimestamp:
      return "TIMESTAMP '" + v.ToString() + "'";
    case TypeId::kInt64:
      return v.ToString() + "L";
    default:
      return v.ToString();
  }
}
}  // namespace

std::string Expr::ToString() const {
  auto child = [&](size_t i) { return children[i]->ToString(); };
  switch (kind) {
    case ExprKind::kColumn:
      return name.empty() ? "#" + std::to_string(column) : name;
    case ExprKind::kConstant:
      return Literal(constant);
    case ExprKind::kCall: {
      static const char* kInfix[] = {"+", "-",  "*", "/",  "%",   "div", "=", "==", "<>", "!=",
                                     "<", "<=", ">", ">=", "<=>", "||",  "&", "|",  "^"};
      if (children.size() == 2) {
        for (const char* op : kInfix) {
          if (name == op) return "(" + child(0) + " " + name + " " + child(1) + ")";
        }
      }
      if (name == "negative" && children.size() == 1) return "(- " + child(0) + ")";
      std::string s = name + "(";
      for (size_t i = 0; i < children.size(); ++i) s += (i ? ", " : "") + child(i);
      return s + ")";
    }
    case ExprKind::kCast:
      return "CAST(" + child(0) + " AS " + type->ToString() + ")";
    case ExprKind::kAnd:
      return "(" + child(0) + " AND " + child(1) + ")";
    case ExprKind::kOr:
      return "(" + child(0) + " OR " + child(1) + ")";
    case ExprKind::kNot:
      return "(NOT " + child(0) + ")";
    case ExprKind::kIsNull:
      return "(" + child(0) + " IS NULL)";
    case ExprKind::kIsNotNull:
      return "(" + child(0) + " IS NOT NULL)";
    case ExprKind::kCase: {
      std::string s = "CASE";
      size_t n = children.size() - (has_else ? 1 : 0);
      for (size_t i = 0; i + 1 < n + 1 && i < n; i += 2)
        s += " WHEN " + child(i) + " THEN " + child(i + 1);
      if (has_else) s += " ELSE " + children.back()->ToString();
      return s + " END";
    }
    case ExprKind::kCoalesce: {
      std::string s = "coalesce(";
      for (size_t i = 0; i < children.size(); ++i) s += (i ? ", " : "") + child(i);
      return s + ")";
    }
    case ExprKind::kIn: {
      std::string s = "(" + child(0) + " IN (";
      for (size_t i = 1; i < children.size(); ++i) s += (i > 1 ? ", " : "") + child(i);
      return s + "))";
    }
  }
  return "?";
}

bool IsConstantExpr(const Expr& e) {
  if (!e.deterministic) return false;
  if (e.kind == ExprKind::kColumn) return false;
  for (const auto& c : e.children) {
    if (!IsConstantExpr(*c)) return false;
  }
  return true;
}

void CollectColumns(const Expr& e, std::vector<int>* columns) {
  if (e.kind == ExprKind::kColumn) {
    if (std::find(columns->begin(), columns->end(), e.column) == columns->end())
      columns->push_back(e.column);
    return;
  }
  for (const auto& c : e.children) CollectColumns(*c, columns);
}

// ---------------------------------------------------------------------------------------------
// Evaluation

namespace {

// Rows `sel` of `in` as a new chunk.
DataChunk Subset(const DataChunk& in, const std::vector<uint32_t>& sel) {
  DataChunk out;
  out.num_rows_without_columns = sel.size();
  out.columns.reserve(in.columns.size());
  for (const Vector& v : in.columns) {
    Vector nv(v.type());
    nv.AppendSelected(v, sel.data(), sel.size());
    out.columns.push_back(std::move(nv));
  }
  return out;
}

}  // namespace

// Only the columns `e` reads are gathered, the others become row-count-only placeholders
// (NULL-typed, no data): a conjunct over 2 of 16 columns copies 2.
DataChunk SubsetFor(const Expr& e, const DataChunk& in, const std::vector<uint32_t>& sel) {
  std::vector<int> used;
  CollectColumns(e, &used);
  DataChunk out;
  out.num_rows_without_columns = sel.size();
  out.columns.reserve(in.columns.size());
  for (size_t c = 0; c < in.columns.size(); ++c) {
    if (std::find(used.begin(), used.end(), static_cast<int>(c)) == used.end()) {
      Vector placeholder(DataType::Null());
      placeholder.Resize(sel.size());
      out.columns.push_back(std::move(placeholder));
      continue;
    }
    Vector nv(in.columns[c].type());
    nv.AppendSelected(in.columns[c], sel.data(), sel.size());
    out.columns.push_back(std::move(nv));
  }
  return out;
}

namespace {

// A vector of `n` copies of `v`.
Status Broadcast(const Value& v, const TypePtr& type, size_t n, Vector* out) {
  *out = Vector(type);
  if (v.is_null()) {
    out->Resize(n);
    uint8_t* valid = out->mutable_validity();
    std::fill(valid, valid + n, 0);
    return Status::OK();
  }
  int w = type->fixed_width();
  if (w > 0) {
    out->ResizeUninitialized(1);
    Vector one(type);
    SILT_RETURN_NOT_OK(one.AppendValue(v));
    out->ResizeUninitialized(n);
    uint8_t* dst = out->data<uint8_t>();
    const uint8_t* src = one.data<uint8_t>();
    for (size_t i = 0; i < n; ++i)
      std::memcpy(dst + i * static_cast<size_t>(w), src, static_cast<size_t>(w));
    return Status::OK();
  }
  for (size_t i = 0; i < n; ++i) {
    SILT_RETURN_NOT_OK(out->AppendValue(v));
  }
  return Status::OK();
}

// Boolean vector row i: 1 true, 0 false, -1 NULL.
inline int BoolAt(const Vector& v, size_t i) {
  if (v.IsNull(i)) return -1;
  return v.data<uint8_t>()[i] ? 1 : 0;
}

// Builds `out` (n rows) from pieces: row i comes from pieces[src[i]] at index idx[i]; src -1 =
// NULL.
void Assemble(const TypePtr& type, size_t n, const std::vector<int>& src,
              const std::vector<uint32_t>& idx, const std::vector<Vector>& pieces, Vector* out) {
  *out = Vector(type);
  out->Reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (src[i] < 0) {
      out->AppendNull();
    } else {
      out->AppendRange(pieces[static_cast<size_t>(src[i])], idx[i], 1);
    }
  }
}

bool EqualAt(const Vector& a, size_t i, const Vector& b, size_t j) {
  switch (a.id()) {
    case TypeId::kBoolean:
    case TypeId::kInt8:
      return a.data<int8_t>()[i] == b.data<int8_t>()[j];
    case TypeId::kInt16:
      return a.data<int16_t>()[i] == b.data<int16_t>()[j];
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return a.data<int32_t>()[i] == b.data<int32_t>()[j];
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kTime:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
    case TypeId::kDayTimeInterval:
      return a.data<int64_t>()[i] == b.data<int64_t>()[j];
    case TypeId::kFloat: {
      float x = a.data<float>()[i], y = b.data<float>()[j];
      return x == y || (x != x && y != y);
    }
    case TypeId::kDouble: {
      double x = a.data<double>()[i], y = b.data<double>()[j];
      return x == y || (x != x && y != y);
    }
    case TypeId::kDecimal:
      return a.Get<int128_t>(i) == b.Get<int128_t>(j);
    case TypeId::kString:
    case TypeId::kBinary:
      return a.GetString(i) == b.GetString(j);
    default:
      return a.GetValue(i) == b.GetValue(j);
  }
}

Status EvalInto(const Expr& e, const DataChunk& in, const EvalContext& ctx, Vector* out);

Status EvalCall(const Expr& e, const DataChunk& in, const EvalContext& ctx, Vector* out) {
  size_t n = in.size();
  std::vector<Vector> storage(e.children.size(), Vector(DataType::Null()));
  std::vector<Arg> args(e.children.size());
  for (size_t i = 0; i < e.children.size(); ++i) {
    const Expr& c = *e.children[i];
    if (c.kind == ExprKind::kColumn) {
      args[i] = {&in.columns[c.column], false};
      continue;
    }
    if (c.kind == ExprKind::kConstant) {
      storage[i] = Vector(c.type);
      SILT_RETURN_NOT_OK(storage[i].AppendValue(c.constant));
      args[i] = {&storage[i], true};
      continue;
    }
    if (n > 0 && IsConstantExpr(c)) {
      // A constant subtree (`CAST(0.06 - 0.01 AS DECIMAL(15,2))`, `upper('x')`): computed once,
      // over one row, and passed as a constant, not once per row. With no rows it is not
      // evaluated at all, as before (an overflow in it is raised only when a row needs it).
      DataChunk one;
      one.num_rows_without_columns = 1;
      storage[i] = Vector(c.type);
      SILT_RETURN_NOT_OK(EvalInto(c, one, ctx, &storage[i]));
      args[i] = {&storage[i], true};
      continue;
    }
    SILT_RETURN_NOT_OK(EvalInto(c, in, ctx, &storage[i]));
    args[i] = {&storage[i], false};
  }
  *out = Vector(e.type);
  if (!e.kernel) return Status::Internal("expression without a kernel: " + e.ToString());
  SILT_RETURN_NOT_OK(e.kernel(std::span<const Arg>(args), n, ctx, out));
  if (out->size() != n) {
    return Status::Internal("kernel " + e.name + " produced " + std::to_string(out->size()) +
                            " rows for " + std::to_string(n));
  }
  // Kernels that cannot size their result up front (flatten, transform, array_union, explode's
  // input, map_from_arrays, nested array_repeat) check it here: the result and the arguments it
  // was built from against silt.memory.limit, so a chain of such functions stops at the first
  // value past the limit instead of compounding.
  if (CurrentQueryMemory()) {
    int64_t bytes = static_cast<int64_t>(out->MemoryUsage());
    for (const Vector& v : storage) bytes += static_cast<int64_t>(v.MemoryUsage());
    SILT_RETURN_NOT_OK(CheckQueryMemory(bytes, e.name));
  }
  return Status::OK();
}

// AND / OR with Spark's three-valued logic; the right side only for rows the left leaves open.
Status EvalLogic(const Expr& e, const DataChunk& in, const EvalContext& ctx, Vector* out) {
  bool is_and = e.kind == ExprKind::kAnd;
  size_t n = in.size();
  Vector left(DataType::Boolean());
  SILT_RETURN_NOT_OK(EvalInto(*e.children[0], in, ctx, &left));
  std::vector<uint32_t> open;
  for (size_t i = 0; i < n; ++i) {
    int l = BoolAt(left, i);
    if (is_and ? l != 0 : l != 1) open.push_back(static_cast<uint32_t>(i));
  }
  *out = Vector(DataType::Boolean());
  out->ResizeUninitialized(n);
  uint8_t* res = out->data<uint8_t>();
  std::vector<int8_t> r(n);
  for (size_t i = 0; i < n; ++i) r[i] = static_cast<int8_t>(BoolAt(left, i));
  if (!open.empty()) {
    Vector right(DataType::Boolean());
    if (open.size() == n) {
      SILT_RETURN_NOT_OK(EvalInto(*e.children[1], in, ctx, &right));
      for (size_t i = 0; i < n; ++i) {
        int l = r[i], rv = BoolAt(right, i);
        r[i] = static_cast<int8_t>(is_and ? (l == 0 || rv == 0 ? 0 : (l == 1 && rv == 1 ? 1 : -1))
                                          : (l == 1 || rv == 1 ? 1 : (l == 0 && rv == 0 ? 0 : -1)));
      }
    } else {
      DataChunk sub = SubsetFor(*e.children[1], in, open);
      SILT_RETURN_NOT_OK(EvalInto(*e.children[1], sub, ctx, &right));
      for (size_t k = 0; k < open.size(); ++k) {
        size_t i = open[k];
        int l = r[i], rv = BoolAt(right, k);
        r[i] = static_cast<int8_t>(is_and ? (l == 0 || rv == 0 ? 0 : (l == 1 && rv == 1 ? 1 : -1))
                                          : (l == 1 || rv == 1 ? 1 : (l == 0 && rv == 0 ? 0 : -1)));
      }
    }
  }
  bool nulls = false;
  for (size_t i = 0; i < n; ++i) {
    res[i] = r[i] == 1;
    nulls |= r[i] < 0;
  }
  if (nulls) {
    uint8_t* valid = out->mutable_validity();
    for (size_t i = 0; i < n; ++i) valid[i] = r[i] >= 0;
  }
  return Status::OK();
}

Status EvalCase(const Expr& e, const DataChunk& in, const EvalContext& ctx, Vector* out) {
  size_t n = in.size();
  size_t whens = (e.children.size() - (e.has_else ? 1 : 0)) / 2;
  std::vector<int> src(n, -1);
  std::vector<uint32_t> idx(n, 0);
  std::vector<Vector> pieces;
  std::vector<uint32_t> remaining(n);
  for (size_t i = 0; i < n; ++i) remaining[i] = static_cast<uint32_t>(i);
  for (size_t w = 0; w < whens && !remaining.empty(); ++w) {
    DataChunk sub = remaining.size() == n ? DataChunk() : Subset(in, remaining);
    const DataChunk& cur = remaining.size() == n ? in : sub;
    Vector cond(DataType::Boolean());
    SILT_RETURN_NOT_OK(EvalInto(*e.children[2 * w], cur, ctx, &cond));
    std::vector<uint32_t> hit_local, hit, rest;
    for (size_t k = 0; k < remaining.size(); ++k) {
      if (BoolAt(cond, k) == 1) {
        hit_local.push_back(static_cast<uint32_t>(k));
        hit.push_back(remaining[k]);
      } else {
        rest.push_back(remaining[k]);
      }
    }
    if (!hit.empty()) {
      DataChunk hs = Subset(cur, hit_local);
      Vector val(e.type);
      SILT_RETURN_NOT_OK(EvalInto(*e.children[2 * w + 1], hs, ctx, &val));
      for (size_t k = 0; k < hit.size(); ++k) {
        src[hit[k]] = static_cast<int>(pieces.size());
        idx[hit[k]] = static_cast<uint32_t>(k);
      }
      pieces.push_back(std::move(val));
    }
    remaining = std::move(rest);
  }
  if (e.has_else && !remaining.empty()) {
    DataChunk rs = Subset(in, remaining);
    Vector val(e.type);
    SILT_RETURN_NOT_OK(EvalInto(*e.children.back(), rs, ctx, &val));
    for (size_t k = 0; k < remaining.size(); ++k) {
      src[remaining[k]] = static_cast<int>(pieces.size());
      idx[remaining[k]] = static_cast<uint32_t>(k);
    }
    pieces.push_back(std::move(val));
  }
  Assemble(e.type, n, src, idx, pieces, out);
  return Status::OK();
}

Status EvalCoalesce(const Expr& e, const DataChunk& in, const EvalContext& ctx, Vector* out) {
  size_t n = in.size();
  std::vector<int> src(n, -1);
  std::vector<uint32_t> idx(n, 0);
  std::vector<Vector> pieces;
  std::vector<uint32_t> remaining(n);
  for (size_t i = 0; i < n; ++i) remaining[i] = static_cast<uint32_t>(i);
  for (const auto& c : e.children) {
    if (remaining.empty()) break;
    DataChunk sub = remaining.size() == n ? DataChunk() : Subset(in, remaining);
    const DataChunk& cur = remaining.size() == n ? in : sub;
    Vector val(e.type);
    SILT_RETURN_NOT_OK(EvalInto(*c, cur, ctx, &val));
    std::vector<uint32_t> rest;
    for (size_t k = 0; k < remaining.size(); ++k) {
      if (val.IsNull(k)) {
        rest.push_back(remaining[k]);
      } else {
        src[remaining[k]] = static_cast<int>(pieces.size());
        idx[remaining[k]] = static_cast<uint32_t>(k);
      }
    }
    pieces.push_back(std::move(val));
    remaining = std::move(rest);
  }
  Assemble(e.type, n, src, idx, pieces, out);
  return Status::OK();
}

Status EvalIn(const Expr& e, const DataChunk& in, const EvalContext& ctx, Vector* out) {
  size_t n = in.size();
  // A column is read in place (EvalInto would copy it).
  Vector owned(e.children[0]->type);
  const Vector* vp = &owned;
  if (e.children[0]->kind == ExprKind::kColumn) {
    vp = &in.columns[e.children[0]->column];
  } else {
    SILT_RETURN_NOT_OK(EvalInto(*e.children[0], in, ctx, &owned));
  }
  const Vector& value = *vp;
  // A long list of constants: the set built with the expression (MakeInSetKernel).
  if (e.kernel && value.type()->Equals(*e.children[0]->type)) {
    Arg arg{&value, false};
    return e.kernel(std::span<const Arg>(&arg, 1), n, ctx, out);
  }
  // Strings against non-NULL string constants (shipmode IN ('MAIL', 'SHIP')): no per-row type
  // dispatch; the result is NULL exactly where the value is.
  std::vector<std::string_view> items;
  for (size_t c = 1; c < e.children.size(); ++c) {
    const Expr& item = *e.children[c];
    if (item.kind != ExprKind::kConstant || item.constant.is_null() ||
        !item.constant.type()->is_binary_like())
      break;
    items.push_back(item.constant.str());
  }
  if (value.type()->is_binary_like() && items.size() + 1 == e.children.size()) {
    *out = Vector(DataType::Boolean());
    out->ResizeUninitialized(n);
    uint8_t* d = out->data<uint8_t>();
    const uint32_t* off = value.offsets();
    const char* bytes = value.bytes().data();
    for (size_t i = 0; i < n; ++i) {
      bool hit = false;
      for (std::string_view it : items) hit |= StringEqualsAt(off, bytes, i, it);
      d[i] = hit;
    }
    if (value.may_have_nulls()) {
      uint8_t* valid = out->mutable_validity();
      for (size_t i = 0; i < n; ++i) {
        valid[i] = value.IsValid(i);
        d[i] &= valid[i];  // NULL slots hold 0
      }
    }
    return Status::OK();
  }
  // A short list of non-NULL integer constants of the value's type (a DELETE's `date_key IN
  // (…)` after its subquery ran): compared in one pass over the raw values, without a
  // per-row type dispatch; NULL exactly where the value is.
  if (e.children.size() > 1) {
    const TypeId id = value.type()->id();
    const bool i32 = id == TypeId::kInt32 || id == TypeId::kDate;
    const bool i64 = id == TypeId::kInt64 || id == TypeId::kTimestamp ||
                     id == TypeId::kTimestampNtz || id == TypeId::kTime ||
                     id == TypeId::kTimestampNanos || id == TypeId::kTimestampNtzNanos;
    bool constants = i32 || i64;
    for (size_t c = 1; constants && c < e.children.size(); ++c) {
      const Expr& item = *e.children[c];
      constants = item.kind == ExprKind::kConstant && !item.constant.is_null() &&
                  item.constant.type()->Equals(*value.type());
    }
    if (constants) {
      Vector items(value.type());
      for (size_t c = 1; c < e.children.size(); ++c)
        SILT_RETURN_NOT_OK(items.AppendValue(e.children[c]->constant));
      *out = Vector(DataType::Boolean());
      out->ResizeUninitialized(n);
      uint8_t* d = out->data<uint8_t>();
      auto match = [&](const auto* v, const auto* c) {
        const size_t k = items.size();
        for (size_t i = 0; i < n; ++i) {
          bool hit = false;
          for (size_t j = 0; j < k; ++j) hit |= v[i] == c[j];
          d[i] = hit;
        }
      };
      if (i32) {
        match(value.data<int32_t>(), items.data<int32_t>());
      } else {
        match(value.data<int64_t>(), items.data<int64_t>());
      }
      if (value.may_have_nulls()) {
        uint8_t* valid = out->mutable_validity();
        for (size_t i = 0; i < n; ++i) {
          valid[i] = value.IsValid(i);
          d[i] &= valid[i];  // NULL slots hold 0
        }
      }
      return Status::OK();
    }
  }
  std::vector<int8_t> r(n, 0);  // 0 false so far, 1 true, -1 null seen
  for (size_t i = 0; i < n; ++i) {
    if (value.IsNull(i)) r[i] = -1;
  }
  for (size_t c = 1; c < e.children.size(); ++c) {
    const Expr& item = *e.children[c];
    Vector iv(item.type);
    bool constant = item.kind == ExprKind::kConstant;
    if (constant) {
      SILT_RETURN_NOT_OK(iv.AppendValue(item.constant));
    } else {
      SILT_RETURN_NOT_OK(EvalInto(item, in, ctx, &iv));
    }
    for (size_t i = 0; i < n; ++i) {
      if (r[i] == 1 || value.IsNull(i)) continue;
      size_t j = constant ? 0 : i;
      if (iv.IsNull(j)) {
        r[i] = -1;
      } else if (EqualAt(value, i, iv, j)) {
        r[i] = 1;
      }
    }
  }
  *out = Vector(DataType::Boolean());
  out->ResizeUninitialized(n);
  bool nulls = false;
  for (size_t i = 0; i < n; ++i) {
    out->data<uint8_t>()[i] = r[i] == 1;
    nulls |= r[i] < 0;
  }
  if (nulls) {
    uint8_t* valid = out->mutable_validity();
    for (size_t i = 0; i < n; ++i) valid[i] = r[i] >= 0;
  }
  return Status::OK();
}

Status EvalInto(const Expr& e, const DataChunk& in, const EvalContext& ctx, Vector* out) {
  size_t n = in.size();
  switch (e.kind) {
    case ExprKind::kColumn:
      *out = in.columns[e.column];
      return Status::OK();
    case ExprKind::kConstant:
      return Broadcast(e.constant, e.type, n, out);
    case ExprKind::kCall:
    case ExprKind::kCast:
      return EvalCall(e, in, ctx, out);
    case ExprKind::kAnd:
    case ExprKind::kOr:
      return EvalLogic(e, in, ctx, out);
    case ExprKind::kNot: {
      Vector c(DataType::Boolean());
      SILT_RETURN_NOT_OK(EvalInto(*e.children[0], in, ctx, &c));
      *out = std::move(c);
      uint8_t* d = out->data<uint8_t>();
      for (size_t i = 0; i < n; ++i) d[i] = !d[i];
      return Status::OK();
    }
    case ExprKind::kIsNull:
    case ExprKind::kIsNotNull: {
      Vector c(e.children[0]->type);
      SILT_RETURN_NOT_OK(EvalInto(*e.children[0], in, ctx, &c));
      *out = Vector(DataType::Boolean());
      out->ResizeUninitialized(n);
      bool want_null = e.kind == ExprKind::kIsNull;
      for (size_t i = 0; i < n; ++i) out->data<uint8_t>()[i] = c.IsNull(i) == want_null;
      return Status::OK();
    }
    case ExprKind::kCase:
      return EvalCase(e, in, ctx, out);
    case ExprKind::kCoalesce:
      return EvalCoalesce(e, in, ctx, out);
    case ExprKind::kIn:
      return EvalIn(e, in, ctx, out);
  }
  return Status::Internal("unknown expression kind");
}

}  // namespace

Status Evaluate(const Expr& expr, const DataChunk& input, const EvalContext& ctx, Vector* out) {
  return EvalInto(expr, input, ctx, out);
}

Status EvaluateFilter(const Expr& predicate, const DataChunk& input, const EvalContext& ctx,
                      std::vector<uint32_t>* sel) {
  sel->clear();
  size_t n = input.size();
  // AND of filters: refine the selection conjunct by conjunct (later conjuncts see fewer rows).
  if (predicate.kind == ExprKind::kAnd) {
    std::vector<uint32_t> first;
    SILT_RETURN_NOT_OK(EvaluateFilter(*predicate.children[0], input, ctx, &first));
    if (first.empty()) return Status::OK();
    if (first.size() == n) return EvaluateFilter(*predicate.children[1], input, ctx, sel);
    DataChunk sub = SubsetFor(*predicate.children[1], input, first);
    std::vector<uint32_t> second;
    SILT_RETURN_NOT_OK(EvaluateFilter(*predicate.children[1], sub, ctx, &second));
    sel->reserve(second.size());
    for (uint32_t k : second) sel->push_back(first[k]);
    return Status::OK();
  }
  if (predicate.type->id() != TypeId::kBoolean) {
    // The binder coerces predicates; one that is not a boolean must not be read as one.
    return Status::InvalidArgument("Filter expression " + predicate.ToString() + " of type " +
                                       predicate.type->ToString() + " is not a boolean.",
                                   errc::kDatatypeMismatchFilterNotBoolean);
  }
  Vector v(DataType::Boolean());
  SILT_RETURN_NOT_OK(EvalInto(predicate, input, ctx, &v));
  const uint8_t* d = v.data<uint8_t>();
  // Branch-free compaction: a filter keeping half the rows at random would mispredict every
  // other branch.
  sel->resize(n);
  uint32_t* out = sel->data();
  size_t k = 0;
  if (!v.may_have_nulls()) {
    for (size_t i = 0; i < n; ++i) {
      out[k] = static_cast<uint32_t>(i);
      k += d[i] != 0;
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      out[k] = static_cast<uint32_t>(i);
      k += (d[i] != 0) & v.IsValid(i);
    }
  }
  sel->resize(k);
  return Status::OK();
}

Result<Value> EvaluateConstant(const Expr& expr, const EvalContext& ctx) {
  if (expr.kind == ExprKind::kConstant) return expr.constant;
  DataChunk one;
  one.num_rows_without_columns = 1;
  Vector out(expr.type);
  SILT_RETURN_NOT_OK(EvalInto(expr, one, ctx, &out));
  return out.GetValue(0);
}

}  // namespace silt::exec
