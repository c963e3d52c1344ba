#include "exec/window.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <mutex>
#include <numeric>

#include "common/ascii.h"
#include "common/datetime.h"
#include "common/error_classes.h"
#include "exec/functions/datetime_calendar.h"
#include "exec/spill.h"
#include "exec/window_spill.h"

namespace silt::exec {

namespace {

Status ArgCount(std::string_view name, const std::vector<ExprPtr>& args, size_t lo, size_t hi) {
  if (args.size() < lo || args.size() > hi) {
    std::string expected =
        lo == hi ? std::to_string(lo) : "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    return Status::InvalidArgument("The `" + std::string(name) + "` requires " + expected +
                                       " parameters but the actual number is " +
                                       std::to_string(args.size()) + ".",
                                   errc::kWrongNumArgs);
  }
  return Status::OK();
}

// A foldable integer argument (offset, n).
Result<int64_t> ConstantInt(std::string_view fn, const ExprPtr& e, const EvalContext& ctx) {
  if (!IsConstantExpr(*e)) {
    return Status::InvalidArgument("the offset/bucket argument of " + std::string(fn) +
                                       " must be a constant, got " + e->ToString(),
                                   errc::kDatatypeMismatch);
  }
  switch (e->type->id()) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      break;
    default:
      return Status::InvalidArgument("the offset/bucket argument of " + std::string(fn) +
                                         " must be an integer, got " + e->type->ToString(),
                                     errc::kDatatypeMismatch);
  }
  SILT_ASSIGN_OR_RETURN(Value v, EvaluateConstant(*e, ctx));
  if (v.is_null()) {
    return Status::InvalidArgument(
        "the offset/bucket argument of " + std::string(fn) + " must not be NULL",
        errc::kInvalidParameterValue);
  }
  return v.integer();
}

Result<bool> ConstantBool(std::string_view fn, const ExprPtr& e, const EvalContext& ctx) {
  if (!IsConstantExpr(*e) || e->type->id() != TypeId::kBoolean) {
    return Status::InvalidArgument(
        "the ignoreNulls argument of " + std::string(fn) + " must be a boolean constant",
        errc::kDatatypeMismatch);
  }
  SILT_ASSIGN_OR_RETURN(Value v, EvaluateConstant(*e, ctx));
  return !v.is_null() && v.boolean();
}

}  // namespace

WindowFrame DefaultWindowFrame(bool has_order_by) {
  WindowFrame f;
  if (has_order_by) return f;  // RANGE UNBOUNDED PRECEDING .. CURRENT ROW
  f.type = WindowFrameType::kRows;
  f.end.kind = WindowBoundKind::kUnboundedFollowing;
  return f;
}

bool IsWindowFunction(std::string_view name) {
  static const char* kNames[] = {"row_number", "rank",  "dense_rank", "percent_rank", "cume_dist",
                                 "ntile",      "lag",   "lead",       "first_value",  "last_value",
                                 "nth_value",  "first", "last"};
  std::string n = AsciiLower(name);
  for (const char* k : kNames) {
    if (n == k) return true;
  }
  return false;
}

Result<WindowFunction> BindWindowFunction(std::string_view name, std::vector<ExprPtr> args,
                                          bool ignore_nulls) {
  WindowFunction f;
  f.name = AsciiLower(name);
  f.ignore_nulls = ignore_nulls;
  const std::string& n = f.name;
  EvalContext ectx;
  auto ranking = [&](WindowFunctionKind kind, TypePtr type) -> Result<WindowFunction> {
    SILT_RETURN_NOT_OK(ArgCount(n, args, 0, 0));
    f.kind = kind;
    f.result_type = std::move(type);
    return f;
  };
  if (n == "row_number") return ranking(WindowFunctionKind::kRowNumber, DataType::Int32());
  if (n == "rank") return ranking(WindowFunctionKind::kRank, DataType::Int32());
  if (n == "dense_rank") return ranking(WindowFunctionKind::kDenseRank, DataType::Int32());
  if (n == "percent_rank") return ranking(WindowFunctionKind::kPercentRank, DataType::Double());
  if (n == "cume_dist") return ranking(WindowFunctionKind::kCumeDist, DataType::Double());
  if (n == "ntile") {
    SILT_RETURN_NOT_OK(ArgCount(n, args, 1, 1));
    SILT_ASSIGN_OR_RETURN(f.offset, ConstantInt(n, args[0], ectx));
    if (f.offset <= 0 || f.offset > std::numeric_limits<int32_t>::max()) {
      return Status::InvalidArgument(
          "Buckets expression must be positive, but got: " + std::to_string(f.offset),
          errc::kInvalidParameterValue);
    }
    f.kind = WindowFunctionKind::kNtile;
    f.result_type = DataType::Int32();
    return f;
  }
  if (n == "lag" || n == "lead") {
    SILT_RETURN_NOT_OK(ArgCount(n, args, 1, 3));
    f.kind = n == "lag" ? WindowFunctionKind::kLag : WindowFunctionKind::kLead;
    f.result_type = args[0]->type;
    f.offset = 1;
    if (args.size() >= 2) {
      SILT_ASSIGN_OR_RETURN(f.offset, ConstantInt(n, args[1], ectx));
    }
    if (args.size() == 3 && args[2]->type->id() != TypeId::kNull) {
      if (!args[2]->type->Equals(*args[0]->type)) {
        return Status::InvalidArgument("the default of " + n + " has type " +
                                           args[2]->type->ToString() + ", expected " +
                                           args[0]->type->ToString(),
                                       errc::kDatatypeMismatch);
      }
      f.default_value = args[2];
    }
    f.args = {args[0]};
    return f;
  }
  if (n == "first_value" || n == "first" || n == "last_value" || n == "last") {
    SILT_RETURN_NOT_OK(ArgCount(n, args, 1, 2));
    f.kind = (n == "first_value" || n == "first") ? WindowFunctionKind::kFirstValue
                                                  : WindowFunctionKind::kLastValue;
    if (args.size() == 2) {
      SILT_ASSIGN_OR_RETURN(bool ig, ConstantBool(n, args[1], ectx));
      f.ignore_nulls = f.ignore_nulls || ig;
    }
    f.result_type = args[0]->type;
    f.args = {args[0]};
    return f;
  }
  if (n == "nth_value") {
    SILT_RETURN_NOT_OK(ArgCount(n, args, 2, 2));
    SILT_ASSIGN_OR_RETURN(f.offset, ConstantInt(n, args[1], ectx));
    if (f.offset <= 0) {
      return Status::InvalidArgument(
          "The offset of nth_value must be positive, but got: " + std::to_string(f.offset),
          errc::kInvalidParameterValue);
    }
    f.kind = WindowFunctionKind::kNthValue;
    f.result_type = args[0]->type;
    f.args = {args[0]};
    return f;
  }
  return Status::InvalidArgument("Cannot resolve function `" + std::string(name) + "`",
                                 errc::kUnresolvedRoutine);
}

WindowFunction MakeAggregateWindowFunction(std::string name, BoundAggregate aggregate,
                                           std::optional<WindowFrame> frame) {
  WindowFunction f;
  f.name = std::move(name);
  f.kind = WindowFunctionKind::kAggregate;
  f.result_type = aggregate.function->result_type();
  f.args = std::move(aggregate.args);
  f.aggregate = std::move(aggregate.function);
  f.frame = std::move(frame);
  return f;
}

// ---------------------------------------------------------------- operator

struct WindowOperator::Layout {
  size_t n = 0;
  std::vector<uint32_t> part_start;  // partition start positions, then n
  std::vector<uint32_t> part_of;     // position → partition index
  std::vector<uint32_t> peer_start;  // per position: first position of its peer group
  std::vector<uint32_t> peer_end;    // per position: one past its peer group
  std::vector<Vector> order_sorted;  // ORDER BY key columns in sorted order
};

WindowOperator::WindowOperator(OperatorPtr child, std::vector<ExprPtr> partition_by,
                               std::vector<SortKey> order_by, std::vector<WindowFunction> functions)
    : child_(std::move(child)),
      partition_by_(std::move(partition_by)),
      order_by_(std::move(order_by)),
      functions_(std::move(functions)) {
  schema_ = child_->output_schema();
  for (const WindowFunction& f : functions_) {
    bool nullable =
        f.kind != WindowFunctionKind::kRowNumber && f.kind != WindowFunctionKind::kRank &&
        f.kind != WindowFunctionKind::kDenseRank && f.kind != WindowFunctionKind::kPercentRank &&
        f.kind != WindowFunctionKind::kCumeDist && f.kind != WindowFunctionKind::kNtile;
    schema_.push_back(Field{f.name, f.result_type, nullable, "{}"});
  }
}

std::string WindowOperator::details() const {
  std::string s;
  for (size_t i = 0; i < functions_.size(); ++i) {
    if (i) s += ", ";
    s += functions_[i].name + "(";
    for (size_t a = 0; a < functions_[i].args.size(); ++a) {
      s += (a ? ", " : "") + functions_[i].args[a]->ToString();
    }
    s += ")";
  }
  if (!partition_by_.empty()) {
    s += " PARTITION BY ";
    for (size_t i = 0; i < partition_by_.size(); ++i) {
      s += (i ? ", " : "") + partition_by_[i]->ToString();
    }
  }
  if (!order_by_.empty()) {
    s += " ORDER BY ";
    for (size_t i = 0; i < order_by_.size(); ++i) {
      s += (i ? ", " : "") + order_by_[i].expr->ToString() +
           (order_by_[i].ascending ? " ASC" : " DESC");
    }
  }
  return s;
}

namespace {

Status EvaluateSorted(const Expr& e, const DataChunk& data, const std::vector<uint32_t>& perm,
                      const EvalContext& ctx, Vector* out) {
  Vector scratch(e.type);
  const Vector* v = nullptr;
  SILT_RETURN_NOT_OK(EvaluateOrReference(e, data, ctx, &scratch, &v));
  *out = Vector(e.type);
  out->AppendSelected(*v, perm.data(), perm.size());
  return Status::OK();
}

// out = rows sel[] of src, where sel[i] == kNoRow means NULL.
constexpr uint32_t kNoRow = std::numeric_limits<uint32_t>::max();

void GatherOrNull(const Vector& src, const std::vector<uint32_t>& sel, Vector* out) {
  Vector both(src.type());
  both.AppendRange(src, 0, src.size());
  AppendNulls(&both, 1);
  uint32_t null_row = static_cast<uint32_t>(src.size());
  std::vector<uint32_t> s(sel);
  for (uint32_t& x : s) {
    if (x == kNoRow) x = null_row;
  }
  out->AppendSelected(both, s.data(), s.size());
}

// Row-offset of a ROWS bound, clamped later.
Result<int64_t> RowsOffset(const WindowBound& b) {
  if (b.offset.is_null()) {
    return Status::InvalidArgument("ROWS frame bound needs a non-NULL integer offset",
                                   errc::kDatatypeMismatch);
  }
  int64_t v;
  switch (b.offset.type()->id()) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      v = b.offset.integer();
      break;
    default:
      return Status::InvalidArgument(
          "ROWS frame offset must be an integer, got " + b.offset.type()->ToString(),
          errc::kDatatypeMismatch);
  }
  if (v < 0) {
    return Status::InvalidArgument("frame offset must be non-negative: " + std::to_string(v),
                                   errc::kDatatypeMismatch);
  }
  return v;
}

int128_t Pow10(int n) {
  int128_t p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

// A RANGE offset in the key's units: exact integers (int128) for integral/date/timestamp/decimal
// keys, doubles for floating keys.
struct RangeOffset {
  bool floating = false;
  bool months = false;  // `i` counts months (a year-month interval over a date/timestamp key)
  int128_t i = 0;
  double d = 0;
};

Result<RangeOffset> RangeOffsetFor(const WindowBound& b, const DataType& key) {
  RangeOffset o;
  const Value& v = b.offset;
  if (v.is_null()) {
    return Status::InvalidArgument("RANGE frame bound needs a non-NULL offset",
                                   errc::kDatatypeMismatch);
  }
  TypeId vt = v.type()->id();
  bool v_int =
      vt == TypeId::kInt8 || vt == TypeId::kInt16 || vt == TypeId::kInt32 || vt == TypeId::kInt64;
  bool v_float = vt == TypeId::kFloat || vt == TypeId::kDouble;
  bool v_dec = vt == TypeId::kDecimal;
  if (v.type()->is_interval()) {
    // An interval offset (Spark: a DATE key takes a DAY interval, a TIMESTAMP key a day-time
    // interval, an interval key an interval of its kind).
    const DataType& it = *v.type();
    const bool dt = vt == TypeId::kDayTimeInterval;
    const TypeId k = key.id();
    bool ok = true;
    if (k == TypeId::kDate && dt && it.interval_start() == kIntervalDay &&
        it.interval_end() == kIntervalDay) {
      o.i = v.integer() / kMicrosPerDay;
    } else if ((k == TypeId::kTimestamp || k == TypeId::kTimestampNtz) && dt) {
      o.i = v.integer();
    } else if ((k == TypeId::kDate || k == TypeId::kTimestamp || k == TypeId::kTimestampNtz) &&
               !dt) {
      // Spark's DateAddYMInterval / TimestampAddYMInterval on the key.
      o.i = v.integer();
      o.months = true;
    } else if (k == vt) {
      o.i = v.integer();
    } else {
      ok = false;
    }
    if (ok && o.i >= 0) return o;
    return Status::InvalidArgument("The data type \"" + key.ToString() +
                                       "\" used in the order specification does not support "
                                       "the data type \"" +
                                       it.ToString() + "\" which is used in the range frame.",
                                   errc::kDatatypeMismatch);
  }
  switch (key.id()) {
    case TypeId::kFloat:
    case TypeId::kDouble:
      o.floating = true;
      if (v_int) {
        o.d = static_cast<double>(v.integer());
      } else if (v_float) {
        o.d = v.floating();
      } else if (v_dec) {
        o.d = static_cast<double>(v.decimal()) / static_cast<double>(Pow10(v.type()->scale()));
      } else {
        break;
      }
      if (!(o.d >= 0)) break;
      return o;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
      if (v_int) {
        o.i = v.integer();
      } else if (v_dec && v.type()->scale() == 0) {
        o.i = v.decimal();
      } else {
        break;
      }
      if (o.i < 0) break;
      return o;
    case TypeId::kDecimal: {
      int ks = key.scale();
      if (v_int) {
        o.i = static_cast<int128_t>(v.integer()) * Pow10(ks);
      } else if (v_dec && v.type()->scale() <= ks) {
        o.i = v.decimal() * Pow10(ks - v.type()->scale());
      } else {
        break;
      }
      if (o.i < 0) break;
      return o;
    }
    default:
      return Status::InvalidArgument(
          "A RANGE frame with a value boundary cannot be used with an ORDER BY key of type " +
              key.ToString(),
          errc::kDatatypeMismatch);
  }
  return Status::InvalidArgument(
      "invalid RANGE frame offset " + v.ToString() + " for key type " + key.ToString(),
      errc::kDatatypeMismatch);
}

// State storage for aggregates: 16-byte aligned slots.
class StateArray {
 public:
  StateArray(const AggregateFunction& f, size_t count)
      : f_(f), stride_((f.state_size() + 15) / 16 * 16), count_(count) {
    storage_.resize(std::max<size_t>(1, stride_ * count / 16));
    for (size_t i = 0; i < count_; ++i) f_.Init(at(i));
  }
  ~StateArray() {
    for (size_t i = 0; i < count_; ++i) f_.Destroy(at(i));
  }
  StateArray(const StateArray&) = delete;
  StateArray& operator=(const StateArray&) = delete;
  uint8_t* at(size_t i) { return reinterpret_cast<uint8_t*>(storage_.data()) + i * stride_; }
  size_t size() const { return count_; }
  int64_t bytes() const { return static_cast<int64_t>(storage_.size() * 16); }

 private:
  const AggregateFunction& f_;
  size_t stride_;
  size_t count_;
  std::vector<int128_t> storage_;
};

// Update rows [from, to) of the sorted argument columns into states[i - from].
Status UpdateRows(const AggregateFunction& f, const std::vector<Vector>& args, size_t from,
                  size_t to, uint8_t* const* states, const EvalContext& ctx) {
  size_t m = to - from;
  if (m == 0) return Status::OK();
  std::vector<Vector> slices;
  std::vector<Arg> a;
  slices.reserve(args.size());
  for (const Vector& v : args) {
    if (from == 0 && to == v.size()) {
      a.push_back(Arg{&v, false});
    } else {
      slices.emplace_back(v.type());
      slices.back().AppendRange(v, from, m);
      a.push_back(Arg{&slices.back(), false});
    }
  }
  return f.Update(a, m, states, ctx);
}

}  // namespace

Status WindowOperator::Run(ExecContext& ctx) {
  reservation_ = std::make_unique<MemoryReservation>(ctx.memory, name());
  data_ = DataChunk::FromSchema(child_->output_schema());
  if (ctx.spill && ctx.spill->CanSpill() && !no_spill_ && !partition_by_.empty()) {
    SILT_ASSIGN_OR_RETURN(bool spilled, BufferOrSpill(ctx));
    if (spilled) return Status::OK();  // SpilledNext evaluates batches of whole partitions
  } else {
    SILT_RETURN_NOT_OK(BufferAll(*child_, ctx, &data_, reservation_.get()));
  }
  const size_t n = data_.size();

  // Sort by partition keys (ASC NULLS FIRST), then the ORDER BY keys.
  std::vector<Vector> key_storage;
  key_storage.reserve(partition_by_.size() + order_by_.size());
  std::vector<const Vector*> keys;
  std::vector<SortOrder> orders;
  for (const ExprPtr& e : partition_by_) {
    key_storage.emplace_back(e->type);
    const Vector* v = nullptr;
    SILT_RETURN_NOT_OK(EvaluateOrReference(*e, data_, ctx.eval, &key_storage.back(), &v));
    keys.push_back(v);
    orders.push_back(SortOrder{true, true});
  }
  for (const SortKey& k : order_by_) {
    key_storage.emplace_back(k.expr->type);
    const Vector* v = nullptr;
    SILT_RETURN_NOT_OK(EvaluateOrReference(*k.expr, data_, ctx.eval, &key_storage.back(), &v));
    keys.push_back(v);
    orders.push_back(SortOrder{k.ascending, k.nulls_first});
  }
  SILT_RETURN_NOT_OK(SortPermutation(keys, orders, n, ctx, &perm_));

  Layout layout;
  layout.n = n;
  const size_t np = partition_by_.size();
  {
    std::vector<const Vector*> pk(keys.begin(), keys.begin() + np);
    std::vector<SortOrder> po(orders.begin(), orders.begin() + np);
    std::vector<const Vector*> ok(keys.begin() + np, keys.end());
    std::vector<SortOrder> oo(orders.begin() + np, orders.end());
    RowComparator pcmp(pk, po), ocmp(ok, oo);
    layout.part_of.resize(n);
    layout.peer_start.resize(n);
    layout.peer_end.resize(n);
    // The key comparisons of neighbours (the costly part) run on row ranges in parallel; bit 0:
    // a new partition starts at p, bit 1: a new peer group.
    std::vector<uint8_t> starts(n);
    const size_t ranges = ctx.pool && n >= 2 * kChunkRows ? 4 * (ctx.pool->num_threads() + 1) : 1;
    SILT_RETURN_NOT_OK(ParallelFor(ctx.pool, ranges, [&](size_t r) {
      for (size_t p = n * r / ranges, e = n * (r + 1) / ranges; p < e; ++p) {
        bool new_part = p == 0 || (np && pcmp.Compare(perm_[p - 1], perm_[p]) != 0);
        bool new_peer = new_part || ocmp.Compare(perm_[p - 1], perm_[p]) != 0;
        starts[p] = static_cast<uint8_t>((new_part ? 1 : 0) | (new_peer ? 2 : 0));
      }
      return Status::OK();
    }));
    uint32_t part = 0;
    for (size_t p = 0; p < n; ++p) {
      bool new_part = starts[p] & 1;
      if (new_part) {
        if (p) ++part;
        layout.part_start.push_back(static_cast<uint32_t>(p));
      }
      layout.part_of[p] = part;
      bool new_peer = starts[p] & 2;
      layout.peer_start[p] = new_peer ? static_cast<uint32_t>(p) : layout.peer_start[p - 1];
    }
    layout.part_start.push_back(static_cast<uint32_t>(n));
    for (size_t p = n; p-- > 0;) {
      bool last = p + 1 == n || layout.peer_start[p + 1] != layout.peer_start[p];
      layout.peer_end[p] = last ? static_cast<uint32_t>(p + 1) : layout.peer_end[p + 1];
    }
  }
  for (size_t k = np; k < keys.size(); ++k) {
    layout.order_sorted.emplace_back(keys[k]->type());
    layout.order_sorted.back().AppendSelected(*keys[k], perm_.data(), n);
  }
  key_storage.clear();
  SILT_RETURN_NOT_OK(reservation_->Resize(reservation_->bytes() + int64_t(n) * 20));

  results_.clear();
  for (const WindowFunction& f : functions_) {
    if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
    results_.emplace_back(f.result_type);
    SILT_RETURN_NOT_OK(Compute(f, layout, ctx, &results_.back()));
    if (results_.back().size() != n) {
      return Status::Internal("window function " + f.name + " produced " +
                              std::to_string(results_.back().size()) + " rows for " +
                              std::to_string(n));
    }
    SILT_RETURN_NOT_OK(reservation_->Resize(reservation_->bytes() +
                                            static_cast<int64_t>(results_.back().MemoryUsage())));
  }
  return Status::OK();
}

Status WindowOperator::Compute(const WindowFunction& fn, const Layout& L, ExecContext& ctx,
                               Vector* out) {
  const size_t n = L.n;
  const size_t parts = L.part_start.size() - 1;
  // Partitions are independent: with a pool they are cut into `groups` runs of whole partitions
  // of about equal rows, computed in parallel (group g covers partitions [gb[g], gb[g+1])).
  std::vector<size_t> gb{0};
  if (ctx.pool && parts > 1 && n >= 2 * kChunkRows) {
    const size_t groups = 4 * (ctx.pool->num_threads() + 1);
    for (size_t g = 1; g < groups; ++g) {
      size_t target = n * g / groups;
      size_t q = std::upper_bound(L.part_start.begin(), L.part_start.end() - 1, target) -
                 L.part_start.begin();  // first partition starting after target
      if (q > gb.back() && q < parts) gb.push_back(q);
    }
  }
  gb.push_back(parts);
  const size_t groups = gb.size() - 1;
  auto for_groups = [&](const std::function<Status(size_t g)>& fn) {
    return ParallelFor(groups > 1 ? ctx.pool : nullptr, groups, fn);
  };
  // body(ps, pe) must only write rows [ps, pe) of shared outputs.
  auto for_partitions = [&](auto&& body) {
    (void)for_groups([&](size_t g) {
      for (size_t q = gb[g]; q < gb[g + 1]; ++q) body(L.part_start[q], L.part_start[q + 1]);
      return Status::OK();
    });
  };

  switch (fn.kind) {
    case WindowFunctionKind::kRowNumber:
    case WindowFunctionKind::kRank:
    case WindowFunctionKind::kDenseRank:
    case WindowFunctionKind::kNtile: {
      out->ResizeUninitialized(n);
      int32_t* d = out->data<int32_t>();
      for_partitions([&](uint32_t ps, uint32_t pe) {
        int32_t dense = 0;
        const int64_t m = pe - ps;
        const int64_t buckets = fn.offset;
        const int64_t size = m / std::max<int64_t>(buckets, 1),
                      rem = m % std::max<int64_t>(buckets, 1);
        for (uint32_t p = ps; p < pe; ++p) {
          switch (fn.kind) {
            case WindowFunctionKind::kRowNumber:
              d[p] = static_cast<int32_t>(p - ps + 1);
              break;
            case WindowFunctionKind::kRank:
              d[p] = static_cast<int32_t>(L.peer_start[p] - ps + 1);
              break;
            case WindowFunctionKind::kDenseRank:
              if (L.peer_start[p] == p) ++dense;
              d[p] = dense;
              break;
            default: {
              // Spark's NTile: the first `rem` buckets hold size+1 rows.
              int64_t i = p - ps;
              int64_t big = rem * (size + 1);
              d[p] =
                  static_cast<int32_t>(i < big ? i / (size + 1) + 1 : rem + (i - big) / size + 1);
              break;
            }
          }
        }
      });
      return Status::OK();
    }
    case WindowFunctionKind::kPercentRank:
    case WindowFunctionKind::kCumeDist: {
      out->ResizeUninitialized(n);
      double* d = out->data<double>();
      for_partitions([&](uint32_t ps, uint32_t pe) {
        double m = pe - ps;
        for (uint32_t p = ps; p < pe; ++p) {
          if (fn.kind == WindowFunctionKind::kPercentRank) {
            d[p] = m <= 1 ? 0.0 : (L.peer_start[p] - ps) / (m - 1);
          } else {
            d[p] = (L.peer_end[p] - ps) / m;
          }
        }
      });
      return Status::OK();
    }
    case WindowFunctionKind::kLag:
    case WindowFunctionKind::kLead: {
      Vector input(fn.result_type);
      SILT_RETURN_NOT_OK(EvaluateSorted(*fn.args[0], data_, perm_, ctx.eval, &input));
      Vector deflt(fn.result_type);
      if (fn.default_value) {
        SILT_RETURN_NOT_OK(EvaluateSorted(*fn.default_value, data_, perm_, ctx.eval, &deflt));
      }
      // Row p reads input row sel[p], or its default (n + p), or NULL (2n).
      const int64_t off = fn.kind == WindowFunctionKind::kLag ? -fn.offset : fn.offset;
      std::vector<uint32_t> sel(n);
      for_partitions([&](uint32_t ps, uint32_t pe) {
        std::vector<uint32_t> nn;  // non-null positions of the partition
        if (!fn.ignore_nulls || off == 0) {
          for (uint32_t p = ps; p < pe; ++p) {
            int64_t t = int64_t(p) + off;
            sel[p] = (t >= ps && t < pe) ? static_cast<uint32_t>(t) : kNoRow;
          }
          return;
        }
        nn.clear();
        for (uint32_t p = ps; p < pe; ++p) {
          if (input.IsValid(p)) nn.push_back(p);
        }
        // before = non-null values strictly before p.
        size_t before = 0;
        for (uint32_t p = ps; p < pe; ++p) {
          int64_t t;
          if (off < 0) {
            t = int64_t(before) + off;  // the |off|-th non-null before p
          } else {
            size_t upto = before + (input.IsValid(p) ? 1 : 0);
            t = int64_t(upto) + off - 1;  // the off-th non-null after p
          }
          sel[p] = (t >= 0 && t < int64_t(nn.size())) ? nn[t] : kNoRow;
          if (input.IsValid(p)) ++before;
        }
      });
      Vector all(fn.result_type);
      all.AppendRange(input, 0, n);
      if (fn.default_value) {
        all.AppendRange(deflt, 0, n);
      } else {
        AppendNulls(&all, n);
      }
      for (size_t p = 0; p < n; ++p) {
        if (sel[p] == kNoRow) sel[p] = static_cast<uint32_t>(n + p);
      }
      out->AppendSelected(all, sel.data(), n);
      return Status::OK();
    }
    default:
      break;
  }

  // Frame-based functions: bounds [fs[p], fe[p]) per position.
  const WindowFrame frame = fn.frame ? *fn.frame : DefaultWindowFrame(!order_by_.empty());
  std::vector<uint32_t> fs(n), fe(n);
  {
    const bool range = frame.type == WindowFrameType::kRange;
    const bool value_bounds = range && (frame.start.kind == WindowBoundKind::kPreceding ||
                                        frame.start.kind == WindowBoundKind::kFollowing ||
                                        frame.end.kind == WindowBoundKind::kPreceding ||
                                        frame.end.kind == WindowBoundKind::kFollowing);
    if (value_bounds && order_by_.size() != 1) {
      return Status::InvalidArgument(
          "A RANGE window frame with value boundaries requires exactly one ORDER BY expression",
          errc::kDatatypeMismatch);
    }
    int64_t rows_start = 0, rows_end = 0;
    if (!range) {
      if (frame.start.kind == WindowBoundKind::kPreceding ||
          frame.start.kind == WindowBoundKind::kFollowing) {
        SILT_ASSIGN_OR_RETURN(rows_start, RowsOffset(frame.start));
      }
      if (frame.end.kind == WindowBoundKind::kPreceding ||
          frame.end.kind == WindowBoundKind::kFollowing) {
        SILT_ASSIGN_OR_RETURN(rows_end, RowsOffset(frame.end));
      }
    }
    if (frame.start.kind == WindowBoundKind::kUnboundedFollowing ||
        frame.end.kind == WindowBoundKind::kUnboundedPreceding) {
      return Status::InvalidArgument("invalid window frame bounds", errc::kDatatypeMismatch);
    }

    // RANGE value bounds work on the (single) order key, as exact integers or doubles.
    std::vector<int128_t> ikey;
    std::vector<double> dkey;
    RangeOffset ro_start, ro_end;
    TimeZonePtr zone;  // a year-month offset over a TIMESTAMP key moves its local date
    bool asc = true, nulls_first = true, floating = false;
    const Vector* okey = nullptr;
    if (value_bounds) {
      okey = &L.order_sorted[0];
      asc = order_by_[0].ascending;
      nulls_first = order_by_[0].nulls_first;
      const DataType& kt = *okey->type();
      if (frame.start.kind == WindowBoundKind::kPreceding ||
          frame.start.kind == WindowBoundKind::kFollowing) {
        SILT_ASSIGN_OR_RETURN(ro_start, RangeOffsetFor(frame.start, kt));
      }
      if (frame.end.kind == WindowBoundKind::kPreceding ||
          frame.end.kind == WindowBoundKind::kFollowing) {
        SILT_ASSIGN_OR_RETURN(ro_end, RangeOffsetFor(frame.end, kt));
      }
      SILT_ASSIGN_OR_RETURN(
          RangeOffset probe,
          RangeOffsetFor(WindowBound{WindowBoundKind::kPreceding, Value::Int64(0)}, kt));
      if ((ro_start.months || ro_end.months) && kt.id() == TypeId::kTimestamp) {
        SILT_ASSIGN_OR_RETURN(
            zone, TimeZone::Find(ctx.eval.time_zone.empty() ? "UTC" : ctx.eval.time_zone));
      }
      floating = probe.floating;
      if (floating) {
        dkey.resize(n);
        for (size_t p = 0; p < n; ++p) {
          dkey[p] = kt.id() == TypeId::kFloat ? okey->data<float>()[p] : okey->data<double>()[p];
        }
      } else {
        ikey.resize(n);
        for (size_t p = 0; p < n; ++p) {
          switch (kt.id()) {
            case TypeId::kInt8:
              ikey[p] = okey->data<int8_t>()[p];
              break;
            case TypeId::kInt16:
              ikey[p] = okey->data<int16_t>()[p];
              break;
            case TypeId::kInt32:
            case TypeId::kDate:
            case TypeId::kYearMonthInterval:
              ikey[p] = okey->data<int32_t>()[p];
              break;
            case TypeId::kDecimal:
              ikey[p] = okey->data<int128_t>()[p];
              break;
            default:
              ikey[p] = okey->data<int64_t>()[p];
              break;
          }
        }
      }
    }

    for_partitions([&](uint32_t ps, uint32_t pe) {
      // Non-NULL order keys occupy [lo, hi) of the partition (NULLs sort together at one end).
      uint32_t lo = ps, hi = pe;
      if (okey && okey->may_have_nulls()) {
        if (nulls_first) {
          while (lo < pe && okey->IsNull(lo)) ++lo;
        } else {
          while (hi > ps && okey->IsNull(hi - 1)) --hi;
        }
      }
      // First position in [lo, hi) not before bound value (start), or past it (end).
      auto search = [&](uint32_t p, const RangeOffset& ro, bool preceding,
                        bool for_end) -> uint32_t {
        // In key order, "preceding" moves toward smaller keys when ascending.
        bool minus = preceding == asc;
        auto before = [&](uint32_t q) -> bool {
          if (floating) {
            double b = minus ? dkey[p] - ro.d : dkey[p] + ro.d;
            double x = dkey[q];
            return asc ? (for_end ? x <= b : x < b) : (for_end ? x >= b : x > b);
          }
          int128_t b;
          if (ro.months) {
            const int64_t m = static_cast<int64_t>(minus ? -ro.i : ro.i);
            const int64_t k = static_cast<int64_t>(ikey[p]);
            b = okey->id() == TypeId::kDate ? cal::AddMonthsToDays(k, m)
                                            : cal::AddMonthsToMicros(k, m, zone.get());
          } else {
            b = minus ? ikey[p] - ro.i : ikey[p] + ro.i;
          }
          int128_t x = ikey[q];
          return asc ? (for_end ? x <= b : x < b) : (for_end ? x >= b : x > b);
        };
        uint32_t a = lo, z = hi;
        while (a < z) {
          uint32_t mid = a + (z - a) / 2;
          if (before(mid)) {
            a = mid + 1;
          } else {
            z = mid;
          }
        }
        return a;
      };
      for (uint32_t p = ps; p < pe; ++p) {
        int64_t s = ps, e = pe;
        bool null_key = okey && okey->IsNull(p);
        switch (frame.start.kind) {
          case WindowBoundKind::kUnboundedPreceding:
            s = ps;
            break;
          case WindowBoundKind::kCurrentRow:
            s = range ? L.peer_start[p] : p;
            break;
          case WindowBoundKind::kPreceding:
          case WindowBoundKind::kFollowing: {
            bool prec = frame.start.kind == WindowBoundKind::kPreceding;
            if (!range) {
              s = prec ? int64_t(p) - rows_start : int64_t(p) + rows_start;
            } else if (null_key) {
              s = L.peer_start[p];
            } else {
              s = search(p, ro_start, prec, false);
            }
            break;
          }
          default:
            break;
        }
        switch (frame.end.kind) {
          case WindowBoundKind::kUnboundedFollowing:
            e = pe;
            break;
          case WindowBoundKind::kCurrentRow:
            e = range ? L.peer_end[p] : p + 1;
            break;
          case WindowBoundKind::kPreceding:
          case WindowBoundKind::kFollowing: {
            bool prec = frame.end.kind == WindowBoundKind::kPreceding;
            if (!range) {
              e = (prec ? int64_t(p) - rows_end : int64_t(p) + rows_end) + 1;
            } else if (null_key) {
              e = L.peer_end[p];
            } else {
              e = search(p, ro_end, prec, true);
            }
            break;
          }
          default:
            break;
        }
        s = std::clamp<int64_t>(s, ps, pe);
        e = std::clamp<int64_t>(e, ps, pe);
        if (e < s) e = s;
        fs[p] = static_cast<uint32_t>(s);
        fe[p] = static_cast<uint32_t>(e);
      }
    });
  }

  if (fn.kind == WindowFunctionKind::kFirstValue || fn.kind == WindowFunctionKind::kLastValue ||
      fn.kind == WindowFunctionKind::kNthValue) {
    Vector input(fn.result_type);
    SILT_RETURN_NOT_OK(EvaluateSorted(*fn.args[0], data_, perm_, ctx.eval, &input));
    std::vector<uint32_t> sel(n, kNoRow);
    if (!fn.ignore_nulls) {
      for (size_t p = 0; p < n; ++p) {
        if (fs[p] >= fe[p]) continue;
        if (fn.kind == WindowFunctionKind::kFirstValue) {
          sel[p] = fs[p];
        } else if (fn.kind == WindowFunctionKind::kLastValue) {
          sel[p] = fe[p] - 1;
        } else if (int64_t(fs[p]) + fn.offset - 1 < int64_t(fe[p])) {
          sel[p] = static_cast<uint32_t>(fs[p] + fn.offset - 1);
        }
      }
    } else {
      // prefix[p] = non-NULL values before p; nn = their positions.
      std::vector<uint32_t> prefix(n + 1, 0), nn;
      for (size_t p = 0; p < n; ++p) {
        bool valid = input.IsValid(p);
        prefix[p + 1] = prefix[p] + (valid ? 1 : 0);
        if (valid) nn.push_back(static_cast<uint32_t>(p));
      }
      for (size_t p = 0; p < n; ++p) {
        int64_t lo = prefix[fs[p]], hi = prefix[fe[p]];
        int64_t j = -1;
        if (fn.kind == WindowFunctionKind::kFirstValue) {
          j = lo;
        } else if (fn.kind == WindowFunctionKind::kLastValue) {
          j = hi - 1;
        } else {
          j = lo + fn.offset - 1;
        }
        if (j >= lo && j < hi) sel[p] = nn[j];
      }
    }
    GatherOrNull(input, sel, out);
    return Status::OK();
  }

  // Aggregates.
  if (fn.kind != WindowFunctionKind::kAggregate || !fn.aggregate) {
    return Status::Internal("window function " + fn.name + " has no implementation");
  }
  const AggregateFunction& agg = *fn.aggregate;
  std::vector<Vector> args;
  for (const ExprPtr& a : fn.args) {
    args.emplace_back(a->type);
    SILT_RETURN_NOT_OK(EvaluateSorted(*a, data_, perm_, ctx.eval, &args.back()));
  }
  const bool running = frame.start.kind == WindowBoundKind::kUnboundedPreceding;
  // Each group of partitions appends its rows to its own vector; they are concatenated in order.
  std::vector<Vector> group_out;
  for (size_t g = 0; g < groups; ++g) group_out.emplace_back(fn.result_type);
  std::mutex reservation_mu;  // segment trees are reserved from several tasks
  auto reserve = [&](int64_t delta) {
    std::lock_guard<std::mutex> lock(reservation_mu);
    return reservation_->Resize(reservation_->bytes() + delta);
  };
  SILT_RETURN_NOT_OK(for_groups([&](size_t g) -> Status {
    Vector* out = &group_out[g];
    for (size_t q = gb[g]; q < gb[g + 1]; ++q) {
      const uint32_t ps = L.part_start[q], pe = L.part_start[q + 1];
      const size_t m = pe - ps;
      if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
      if (running) {
        // Frame ends only move forward: fold rows into one accumulator as the end advances, in
        // blocks of leaf states (one Update call per block).
        StateArray acc(agg, 1);
        constexpr size_t kBlock = 1024;
        std::unique_ptr<StateArray> leaves;
        size_t block_begin = ps, block_end = ps;
        uint32_t cur = ps;
        std::vector<uint8_t*> ptrs;
        Vector last(fn.result_type);
        int64_t last_end = -1;
        for (uint32_t p = ps; p < pe; ++p) {
          while (cur < fe[p]) {
            if (cur >= block_end) {
              block_begin = cur;
              block_end = std::min<size_t>(pe, cur + kBlock);
              leaves = std::make_unique<StateArray>(agg, block_end - block_begin);
              ptrs.resize(block_end - block_begin);
              for (size_t i = 0; i < ptrs.size(); ++i) ptrs[i] = leaves->at(i);
              SILT_RETURN_NOT_OK(
                  UpdateRows(agg, args, block_begin, block_end, ptrs.data(), ctx.eval));
            }
            SILT_RETURN_NOT_OK(agg.Combine(leaves->at(cur - block_begin), acc.at(0), ctx.eval));
            ++cur;
          }
          if (int64_t(fe[p]) != last_end) {
            last = Vector(fn.result_type);
            uint8_t* s = acc.at(0);
            SILT_RETURN_NOT_OK(agg.Finalize(&s, 1, &last, ctx.eval));
            last_end = fe[p];
          }
          out->AppendRange(last, 0, 1);
        }
        continue;
      }
      // General frames: a segment tree over the partition's leaf states (node i combines nodes 2i
      // and 2i+1; leaves at m..2m-1), each frame answered by O(log m) Combines.
      StateArray tree(agg, 2 * m);
      SILT_RETURN_NOT_OK(reserve(static_cast<int64_t>(tree.bytes())));
      {
        std::vector<uint8_t*> ptrs(m);
        for (size_t i = 0; i < m; ++i) ptrs[i] = tree.at(m + i);
        SILT_RETURN_NOT_OK(UpdateRows(agg, args, ps, pe, ptrs.data(), ctx.eval));
      }
      for (size_t i = m; i-- > 1;) {
        SILT_RETURN_NOT_OK(agg.Combine(tree.at(2 * i), tree.at(i), ctx.eval));
        SILT_RETURN_NOT_OK(agg.Combine(tree.at(2 * i + 1), tree.at(i), ctx.eval));
      }
      constexpr size_t kBatch = 256;
      for (uint32_t b = ps; b < pe; b += kBatch) {
        uint32_t be = std::min<uint32_t>(pe, b + kBatch);
        StateArray accs(agg, be - b);
        std::vector<uint8_t*> ptrs(be - b);
        for (uint32_t p = b; p < be; ++p) {
          uint8_t* acc = accs.at(p - b);
          ptrs[p - b] = acc;
          size_t l = fs[p] - ps + m, r = fe[p] - ps + m;
          while (l < r) {
            if (l & 1) {
              SILT_RETURN_NOT_OK(agg.Combine(tree.at(l), acc, ctx.eval));
              ++l;
            }
            if (r & 1) {
              --r;
              SILT_RETURN_NOT_OK(agg.Combine(tree.at(r), acc, ctx.eval));
            }
            l >>= 1;
            r >>= 1;
          }
        }
        Vector part(fn.result_type);
        SILT_RETURN_NOT_OK(agg.Finalize(ptrs.data(), ptrs.size(), &part, ctx.eval));
        out->AppendRange(part, 0, part.size());
      }
      SILT_RETURN_NOT_OK(reserve(-static_cast<int64_t>(tree.bytes())));
    }
    return Status::OK();
  }));
  for (const Vector& part : group_out) out->AppendRange(part, 0, part.size());
  return Status::OK();
}

Result<bool> WindowOperator::Next(ExecContext& ctx, DataChunk* out) {
  if (!done_input_) {
    done_input_ = true;
    SILT_RETURN_NOT_OK(Run(ctx));
  }
  if (spill_) return SpilledNext(ctx, out);
  const size_t n = data_.size();
  if (emitted_ >= n && ready_.empty()) {
    data_ = DataChunk();
    results_.clear();
    perm_ = {};
    if (reservation_) {
      SILT_RETURN_NOT_OK(reservation_->Resize(0));
    }
    return false;
  }
  if (ready_.empty()) {
    // A batch of output chunks (bounded, ahead of the consumer) is gathered in parallel.
    size_t chunks = (n - emitted_ + kChunkRows - 1) / kChunkRows;
    chunks = ctx.pool ? std::min(chunks, 8 * (ctx.pool->num_threads() + 1)) : 1;
    std::vector<DataChunk> batch(chunks);
    const size_t base = emitted_;
    SILT_RETURN_NOT_OK(ParallelFor(ctx.pool, chunks, [&](size_t c) {
      const size_t begin = base + c * kChunkRows, k = std::min(kChunkRows, n - begin);
      DataChunk& o = batch[c];
      GatherChunk(data_, perm_.data() + begin, k, &o);
      for (const Vector& r : results_) {
        o.columns.emplace_back(r.type());
        o.columns.back().AppendRange(r, begin, k);
      }
      o.num_rows_without_columns = 0;
      return Status::OK();
    }));
    for (DataChunk& c : batch) {
      emitted_ += c.size();
      ready_.push_back(std::move(c));
    }
  }
  *out = std::move(ready_.front());
  ready_.pop_front();
  return true;
}

}  // namespace silt::exec
