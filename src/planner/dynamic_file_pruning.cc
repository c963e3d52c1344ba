#include "planner/dynamic_file_pruning.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>

#include "common/error_classes.h"
#include "exec/functions.h"
#include "exec/runtime_bloom.h"
#include "parquet/reader.h"
#include "planner/catalog.h"
#include "planner/join_order.h"

namespace silt::planner {

using exec::Expr;
using exec::ExprKind;
using exec::ExprPtr;

namespace {

struct Traced {
  LogicalNode* scan = nullptr;
  int column = -1;
};

// The Delta scan column that column `col` of `node` is, row for row, when every row of the scan
// that reaches the output keeps its value (filters, projections of the column, inner joins, the
// preserved side of outer joins, the left side of semi/anti joins). nullopt otherwise.
std::optional<Traced> TraceColumn(LogicalNode* node, int col) {
  switch (node->kind) {
    case LogicalKind::kScan:
      return Traced{node, col};
    case LogicalKind::kFilter:
      return TraceColumn(node->children[0].get(), col);
    case LogicalKind::kProject: {
      const ExprPtr& e = node->exprs[static_cast<size_t>(col)];
      if (e->kind != ExprKind::kColumn) return std::nullopt;
      return TraceColumn(node->children[0].get(), e->column);
    }
    case LogicalKind::kJoin: {
      const int lw = static_cast<int>(node->children[0]->columns.size());
      const JoinKind j = node->join;
      const bool left_ok = j == JoinKind::kInner || j == JoinKind::kCross || j == JoinKind::kSemi ||
                           j == JoinKind::kAnti || j == JoinKind::kLeft;
      const bool right_ok = j == JoinKind::kInner || j == JoinKind::kCross || j == JoinKind::kRight;
      if (col < lw) return left_ok ? TraceColumn(node->children[0].get(), col) : std::nullopt;
      return right_ok ? TraceColumn(node->children[1].get(), col - lw) : std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

bool Integral(TypeId t) {
  return t == TypeId::kInt8 || t == TypeId::kInt16 || t == TypeId::kInt32 || t == TypeId::kInt64;
}

int IntegralWidth(TypeId t) {
  switch (t) {
    case TypeId::kInt8:
      return 1;
    case TypeId::kInt16:
      return 2;
    case TypeId::kInt32:
      return 4;
    default:
      return 8;
  }
}

// The column a join key reads: a column, or a widening numeric cast of one (the binder coerces
// INT = BIGINT to CAST(int AS BIGINT) = BIGINT). -1 for anything else.
int KeyColumn(const ExprPtr& key) {
  if (key->kind == ExprKind::kColumn) return key->column;
  if (key->kind != ExprKind::kCast || key->children.size() != 1 ||
      key->children[0]->kind != ExprKind::kColumn)
    return -1;
  TypeId from = key->children[0]->type->id(), to = key->type->id();
  bool widening = (Integral(from) && Integral(to) && IntegralWidth(from) <= IntegralWidth(to)) ||
                  (from == TypeId::kFloat && to == TypeId::kDouble) ||
                  (from == TypeId::kDecimal && to == TypeId::kDecimal);
  return widening ? key->children[0]->column : -1;
}

// Types whose Delta statistics can prune (spec B.3).
bool StatsEligible(const LogicalNode& scan, int col) {
  const std::string& name = scan.scan_columns[static_cast<size_t>(col)];
  for (const std::string& p : scan.snapshot->partition_columns()) {
    if (LowerName(p) == LowerName(name)) return true;
  }
  switch (scan.columns[static_cast<size_t>(col)].type->id()) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kString:
      return true;
    default:
      return false;
  }
}

void CandidateSize(const LogicalNode& scan, int64_t* files, int64_t* bytes) {
  *files = 0;
  *bytes = 0;
  if (scan.pruned_files) {
    for (const delta::AddFile* f : *scan.pruned_files) {
      ++*files;
      *bytes += f->size;
    }
  } else {
    for (const delta::AddFile& f : scan.snapshot->files()) {
      ++*files;
      *bytes += f.size;
    }
  }
}

void NoteReason(LogicalNode* scan, const std::string& reason) {
  const bool planned = std::any_of(scan->runtime_filters.begin(), scan->runtime_filters.end(),
                                   [](const RuntimeFilter& rf) { return !rf.rows_only; });
  if (!planned && scan->dfp_reason.empty()) scan->dfp_reason = reason;
}

struct SideKey {
  size_t key;
  Traced traced;
};

// The keys of side `side` of `join` that are columns of Delta scans below it.
std::vector<SideKey> TraceSide(LogicalNode* join, int side) {
  std::vector<SideKey> out;
  const auto& keys = side == 0 ? join->left_keys : join->right_keys;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i < join->null_safe.size() && join->null_safe[i]) continue;  // NULL <=> NULL matches
    int col = KeyColumn(keys[i]);
    if (col < 0) continue;
    std::optional<Traced> t = TraceColumn(join->children[static_cast<size_t>(side)].get(), col);
    if (t) out.push_back({i, *t});
  }
  return out;
}

// Below the DFP thresholds (a table smaller than deltaTableSizeThreshold, TPC-H's partsupp at
// SF 1), an inner or semi join's probe-side scan of at least silt.runtimeFilter.rowFilterMinBytes
// still gets the row-level filters of the build keys: the bloom (or min/max) filter drops the rows
// no build key matches before the other columns are decoded (late materialization) and before the
// join probes them (TPC-H Q11: 4% of partsupp joins Germany's suppliers; Q2's subquery: the
// parts of the outer query, by a semi join above the suppliers' join). No file is pruned and
// the scan's DFP metrics are those of a scan DFP did not apply to. The probe side is the one the
// physical planner probes anyway (planner/physical_planner.cc: the right side is built unless
// the estimates say it is more than twice the left), so the build side does not change. Returns
// that side, with the filters planned appended to *filters (none: -1).
int PlanRowFiltersOnly(LogicalNode* join, const std::vector<SideKey> (&sides)[2],
                       const DfpOptions& options, int* next_id,
                       std::vector<std::pair<int, int>>* filters) {
  if (options.row_filter_min_bytes < 0 || !options.enabled) return -1;
  const double left_rows = EstimateRows(*join->children[0]);
  const double right_rows = EstimateRows(*join->children[1]);
  int probe = right_rows > 2 * left_rows ? 1 : 0;
  if (join->join == JoinKind::kSemi) {
    // IN / EXISTS: the left side probes unless it is the smaller one (then it is built on).
    if (join->null_aware_anti || SemiJoinBuildsOnLeft(*join)) return -1;
    probe = 0;
  } else if (join->join != JoinKind::kInner) {
    return -1;
  }
  const double build_rows = probe == 0 ? right_rows : left_rows;
  if (build_rows > static_cast<double>(options.exec.max_build_rows)) return -1;
  const auto& build_keys = probe == 0 ? join->right_keys : join->left_keys;
  for (const SideKey& k : sides[probe]) {
    LogicalNode* scan = k.traced.scan;
    int64_t files, bytes;
    CandidateSize(*scan, &files, &bytes);
    if (bytes < options.row_filter_min_bytes) continue;
    RuntimeFilter rf;
    rf.id = (*next_id)++;
    rf.scan_column = k.traced.column;
    rf.build_key = build_keys[k.key]->ToString();
    rf.rows_only = true;
    scan->runtime_filters.push_back(rf);
    filters->emplace_back(rf.id, static_cast<int>(k.key));
  }
  return filters->empty() ? -1 : probe;
}

void PlanJoin(LogicalNode* join, const DfpOptions& options, int* next_id) {
  if (join->left_keys.empty()) return;
  bool side_ok[2] = {false, false};
  switch (join->join) {
    case JoinKind::kInner:
    case JoinKind::kCross:
      side_ok[0] = side_ok[1] = true;
      break;
    case JoinKind::kSemi:
      side_ok[0] = !join->null_aware_anti;
      break;
    case JoinKind::kLeft:
      side_ok[1] = true;
      break;
    case JoinKind::kRight:
      side_ok[0] = true;
      break;
    case JoinKind::kFull:
    case JoinKind::kAnti:
      break;
  }
  std::vector<SideKey> sides[2] = {TraceSide(join, 0), TraceSide(join, 1)};
  int64_t side_bytes[2] = {-1, -1};
  for (int s = 0; s < 2; ++s) {
    if (!side_ok[s]) {
      for (SideKey& k : sides[s]) NoteReason(k.traced.scan, "ineligible_join_type");
      sides[s].clear();
      continue;
    }
    std::vector<SideKey> eligible;
    for (SideKey& k : sides[s]) {
      if (StatsEligible(*k.traced.scan, k.traced.column)) {
        eligible.push_back(k);
      } else {
        NoteReason(k.traced.scan, "ineligible_key_type");
      }
    }
    sides[s] = std::move(eligible);
    for (const SideKey& k : sides[s]) {
      int64_t files, bytes;
      CandidateSize(*k.traced.scan, &files, &bytes);
      side_bytes[s] = std::max(side_bytes[s], bytes);
    }
  }
  // The bigger Delta scan is pruned; the other side is built first.
  int side = -1;
  if (!sides[0].empty() || !sides[1].empty()) side = side_bytes[0] >= side_bytes[1] ? 0 : 1;
  if (side < 0) return;
  std::vector<std::pair<int, int>> filters;
  bool below_threshold = false;
  for (const SideKey& k : sides[side]) {
    LogicalNode* scan = k.traced.scan;
    int64_t files, bytes;
    CandidateSize(*scan, &files, &bytes);
    if (!options.enabled) {
      NoteReason(scan, "disabled");
      continue;
    }
    if (bytes < options.size_threshold) {
      NoteReason(scan, "below_size_threshold");
      below_threshold = true;
      continue;
    }
    if (files < options.files_threshold) {
      NoteReason(scan, "below_files_threshold");
      below_threshold = true;
      continue;
    }
    // Building first on a side estimated bigger than both the limit and the pruned side would
    // cost more memory than the pruning saves (the join would otherwise build on the smaller one).
    const double build_rows = EstimateRows(*join->children[static_cast<size_t>(1 - side)]);
    if (build_rows > static_cast<double>(options.exec.max_build_rows) &&
        build_rows > EstimateRows(*join->children[static_cast<size_t>(side)])) {
      NoteReason(scan, "build_too_large");
      continue;
    }
    const auto& build_keys = side == 0 ? join->right_keys : join->left_keys;
    RuntimeFilter rf;
    rf.id = (*next_id)++;
    rf.scan_column = k.traced.column;
    rf.build_key = build_keys[k.key]->ToString();
    scan->runtime_filters.push_back(rf);
    scan->dfp_reason.clear();
    filters.emplace_back(rf.id, static_cast<int>(k.key));
  }
  if (filters.empty() && below_threshold) {
    side = PlanRowFiltersOnly(join, sides, options, next_id, &filters);
  }
  if (filters.empty()) return;
  join->dfp_pruned_side = side;
  join->dfp_filters = std::move(filters);
  join->dfp = options.exec;
}

void Visit(LogicalNode* node, const DfpOptions& options, int* next_id) {
  if (node->kind == LogicalKind::kJoin) PlanJoin(node, options, next_id);
  for (auto& c : node->children) Visit(c.get(), options, next_id);
}

ExprPtr Comparison(const char* op, ExprPtr a, ExprPtr b) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCall;
  e->type = DataType::Boolean();
  e->name = op;
  e->children = {std::move(a), std::move(b)};
  return e;
}

enum class OrderClass { kNone, kInteger, kFloating, kDecimal, kString };

OrderClass OrderClassOf(TypeId t) {
  switch (t) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return OrderClass::kInteger;
    case TypeId::kFloat:
    case TypeId::kDouble:
      return OrderClass::kFloating;
    case TypeId::kDecimal:
      return OrderClass::kDecimal;
    case TypeId::kString:
      return OrderClass::kString;
    default:
      return OrderClass::kNone;
  }
}

// Spark order of floating values: NaN above everything, -0.0 == 0.0.
int CompareFloating(double a, double b) {
  const bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn) return an == bn ? 0 : (an ? 1 : -1);
  return a < b ? -1 : (a > b ? 1 : 0);
}

int CompareOrdered(OrderClass c, const Value& a, const Value& b) {
  switch (c) {
    case OrderClass::kInteger:
      return a.integer() < b.integer() ? -1 : (a.integer() > b.integer() ? 1 : 0);
    case OrderClass::kFloating:
      return CompareFloating(a.floating(), b.floating());
    case OrderClass::kDecimal:
      return a.decimal() < b.decimal() ? -1 : (a.decimal() > b.decimal() ? 1 : 0);
    case OrderClass::kString:
      return a.str().compare(b.str()) < 0 ? -1 : (a.str() == b.str() ? 0 : 1);
    case OrderClass::kNone:
      break;
  }
  return 0;
}

// The first 8 bytes of a string as a big-endian number: ordered like the strings' prefixes.
double StringPrefix(const std::string& s) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v = (v << 8) | (i < s.size() ? static_cast<uint8_t>(s[i]) : 0u);
  return static_cast<double>(v);
}

// The distance between sorted values a <= b (only its order among gaps matters).
double Gap(OrderClass c, const Value& a, const Value& b) {
  switch (c) {
    case OrderClass::kInteger:
      return static_cast<double>(b.integer()) - static_cast<double>(a.integer());
    case OrderClass::kFloating: {
      const double d = b.floating() - a.floating();
      return std::isnan(d) ? HUGE_VAL : d;
    }
    case OrderClass::kDecimal:
      return static_cast<double>(b.decimal()) - static_cast<double>(a.decimal());
    case OrderClass::kString:
      return StringPrefix(b.str()) - StringPrefix(a.str());
    case OrderClass::kNone:
      break;
  }
  return 0;
}

// `col >= lo AND col <= hi`, or `col = lo` for a single value.
ExprPtr RangeExpr(const ExprPtr& col, const KeyRange& r, OrderClass c) {
  if (CompareOrdered(c, r.lo, r.hi) == 0) return Comparison("=", col, exec::MakeConstant(r.lo));
  return exec::MakeSpecial(ExprKind::kAnd, DataType::Boolean(),
                           {Comparison(">=", col, exec::MakeConstant(r.lo)),
                            Comparison("<=", col, exec::MakeConstant(r.hi))});
}

// A balanced OR of the ranges [b, e) (not empty).
ExprPtr AnyRange(const ExprPtr& col, const std::vector<KeyRange>& ranges, size_t b, size_t e,
                 OrderClass c) {
  if (e - b == 1) return RangeExpr(col, ranges[b], c);
  const size_t m = b + (e - b) / 2;
  return exec::MakeSpecial(ExprKind::kOr, DataType::Boolean(),
                           {AnyRange(col, ranges, b, m, c), AnyRange(col, ranges, m, e, c)});
}

// Whether [min, max] overlaps one of `ranges` (sorted, disjoint): binary search.
bool Overlaps(OrderClass c, const std::vector<KeyRange>& ranges, const Value& min,
              const Value& max) {
  auto it = std::lower_bound(
      ranges.begin(), ranges.end(), min,
      [c](const KeyRange& r, const Value& v) { return CompareOrdered(c, r.hi, v) < 0; });
  return it != ranges.end() && CompareOrdered(c, it->lo, max) <= 0;
}

// Whether a runtime predicate can prune by FileColumnRanges and Overlaps instead of
// PruneFileList: keys and column of one exactly comparable order (not floating point, whose NaN
// statistics PruneFileList treats as unknown; decimals of one scale).
bool FastPrunable(const exec::JoinKeySummary& ks, const RuntimePredicate& rp,
                  const TypePtr& column_type) {
  if (ks.non_null_count == 0 || !ks.has_min_max) return false;
  // An IN list's ranges are its single values (sorted): the binary search tests them exactly as
  // the per-value test does. A `range` predicate is the one range [ks.min, ks.max].
  if (rp.kind != "range" && rp.ranges.empty()) return false;
  const OrderClass c = OrderClassOf(ks.min.type()->id());
  if (c == OrderClass::kNone || c == OrderClass::kFloating) return false;
  if (OrderClassOf(column_type->id()) != c) return false;
  if (c == OrderClass::kDecimal && ks.min.type()->scale() != column_type->scale()) return false;
  // Date and timestamp keys compare only with their own type.
  const TypeId k = ks.min.type()->id(), t = column_type->id();
  const bool k_time = k == TypeId::kDate || k == TypeId::kTimestamp || k == TypeId::kTimestampNtz;
  const bool t_time = t == TypeId::kDate || t == TypeId::kTimestamp || t == TypeId::kTimestampNtz;
  if ((k_time || t_time) && k != t) return false;
  return true;
}

// Whether the build keys cover at least `fraction` of the integer values in the files' combined
// [min, max] (every file with statistics; kept unpruned otherwise): silt.dfp.maxBuildFraction.
// At 1.0 (the default) only when every value there is a key, so no file or row could be dropped.
bool BuildCoversDomain(OrderClass c, const exec::JoinKeySummary& ks,
                       const std::vector<FileColumnRange>& bounds, double fraction) {
  if (c != OrderClass::kInteger || !ks.distinct_complete || ks.distinct_values.empty() ||
      fraction > 1.0)
    return false;
  bool any = false;
  int64_t lo = 0, hi = 0;
  for (const FileColumnRange& b : bounds) {
    if (b.state == FileColumnRange::State::kUnknown) return false;
    if (b.state != FileColumnRange::State::kRange) continue;
    if (!any || b.min.integer() < lo) lo = b.min.integer();
    if (!any || b.max.integer() > hi) hi = b.max.integer();
    any = true;
  }
  if (!any) return false;
  int64_t in_domain = 0;
  for (const Value& v : ks.distinct_values) in_domain += v.integer() >= lo && v.integer() <= hi;
  const double domain = static_cast<double>(hi) - static_cast<double>(lo) + 1;
  return static_cast<double>(in_domain) >= std::max(fraction, 0.0) * domain;
}

}  // namespace

int64_t FileBytes(const std::vector<const delta::AddFile*>& files) {
  int64_t b = 0;
  for (const delta::AddFile* f : files) b += f->size;
  return b;
}

DfpOptions DfpOptionsFrom(const SessionConfig& config) {
  DfpOptions o;
  o.enabled = config.GetBool("spark.databricks.optimizer.dynamicFilePruning", o.enabled);
  o.size_threshold =
      config.GetBytes("spark.databricks.optimizer.deltaTableSizeThreshold", o.size_threshold);
  o.files_threshold =
      config.GetInt("spark.databricks.optimizer.deltaTableFilesThreshold", o.files_threshold);
  o.row_filter_min_bytes =
      config.GetBytes("silt.runtimeFilter.rowFilterMinBytes", o.row_filter_min_bytes);
  o.exec.max_build_rows = config.GetInt("silt.dfp.maxBuildRows", o.exec.max_build_rows);
  o.exec.max_in_list_values = config.GetInt("silt.dfp.maxInListValues", o.exec.max_in_list_values);
  o.exec.per_value_probe_limit =
      config.GetInt("silt.dfp.perValueProbeLimit", o.exec.per_value_probe_limit);
  o.exec.max_build_fraction =
      config.GetDouble("silt.dfp.maxBuildFraction", o.exec.max_build_fraction);
  o.exec.row_bloom_filter =
      config.GetBool("spark.sql.optimizer.runtime.bloomFilter.enabled", o.exec.row_bloom_filter);
  return o;
}

Status PlanDynamicFilePruning(LogicalNode* plan, const DfpOptions& options) {
  int next_id = 1;
  Visit(plan, options, &next_id);
  return Status::OK();
}

std::vector<KeyRange> CoalesceKeyRanges(const std::vector<Value>& values, int64_t max_ranges) {
  std::vector<KeyRange> out;
  if (values.empty() || max_ranges < 1) return out;
  const OrderClass c = OrderClassOf(values[0].type()->id());
  if (c == OrderClass::kNone) return out;
  for (const Value& v : values) {
    if (v.is_null() || OrderClassOf(v.type()->id()) != c) return out;
  }
  std::vector<Value> sorted = values;
  std::sort(sorted.begin(), sorted.end(),
            [c](const Value& a, const Value& b) { return CompareOrdered(c, a, b) < 0; });
  sorted.erase(
      std::unique(sorted.begin(), sorted.end(),
                  [c](const Value& a, const Value& b) { return CompareOrdered(c, a, b) == 0; }),
      sorted.end());
  const size_t n = sorted.size();
  const size_t k = static_cast<size_t>(std::min<int64_t>(max_ranges, static_cast<int64_t>(n)));
  // Split after value i for the k - 1 largest gaps (ties: the earlier gap, for determinism).
  std::vector<size_t> gaps(n - 1);
  for (size_t i = 0; i + 1 < n; ++i) gaps[i] = i;
  std::vector<double> size(n - 1);
  for (size_t i = 0; i + 1 < n; ++i) size[i] = Gap(c, sorted[i], sorted[i + 1]);
  std::partial_sort(
      gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(k - 1), gaps.end(),
      [&size](size_t a, size_t b) { return size[a] > size[b] || (size[a] == size[b] && a < b); });
  std::vector<size_t> cuts(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(k - 1));
  std::sort(cuts.begin(), cuts.end());
  size_t start = 0;
  for (size_t cut : cuts) {
    out.push_back({sorted[start], sorted[cut]});
    start = cut + 1;
  }
  out.push_back({sorted[start], sorted[n - 1]});
  return out;
}

RuntimePredicate MakeRuntimePredicate(const exec::JoinKeySummary& ks, const ExprPtr& col,
                                      const DfpExecOptions& options) {
  RuntimePredicate rp;
  const bool in_list = ks.distinct_complete && static_cast<int64_t>(ks.distinct_values.size()) <=
                                                   options.max_in_list_values;
  if (ks.non_null_count == 0) {
    // No key can match: no file is kept (NULL keys never match an equality).
    rp.kind = "in_list";
    rp.distinct = 0;
    rp.file = exec::MakeConstant(Value::Boolean(false));
    return rp;
  }
  rp.kind = in_list ? "in_list" : "range";
  if (in_list) rp.distinct = static_cast<int64_t>(ks.distinct_values.size());
  // The row filter compares in the key's type (the build side's): the column, cast when narrower.
  const TypePtr& key_type = ks.min.type();
  ExprPtr key_col = col;
  if (!key_type->Equals(*col->type)) {
    Result<ExprPtr> cast = exec::CoerceTo(col, key_type, exec::BindContext{});
    key_col = cast.ok() ? *cast : nullptr;
  }
  // The row filter is the keys' min/max range: two vectorized comparisons per row. An IN list
  // evaluated per row costs more than the hash join's own probe when the values are spread over
  // every file (measured 3x slower with 64 values), so exact membership is left to the join.
  // Past silt.dfp.perValueProbeLimit values, the file predicate is that many ranges split at the
  // largest gaps between the sorted values (not one min/max range, which keeps most files as soon
  // as the keys are spread).
  if (in_list && rp.distinct > options.per_value_probe_limit)
    rp.ranges = CoalesceKeyRanges(ks.distinct_values, options.per_value_probe_limit);
  if (in_list && rp.distinct <= options.per_value_probe_limit) {
    std::vector<ExprPtr> children = {col};
    for (const Value& v : ks.distinct_values) children.push_back(exec::MakeConstant(v));
    rp.file = exec::MakeSpecial(ExprKind::kIn, DataType::Boolean(), std::move(children));
    rp.ranges = CoalesceKeyRanges(ks.distinct_values, options.per_value_probe_limit);
  } else if (!rp.ranges.empty()) {
    rp.kind = "in_ranges";
    rp.file = AnyRange(col, rp.ranges, 0, rp.ranges.size(), OrderClassOf(ks.min.type()->id()));
  } else {
    rp.file = exec::MakeSpecial(ExprKind::kAnd, DataType::Boolean(),
                                {Comparison(">=", col, exec::MakeConstant(ks.min)),
                                 Comparison("<=", col, exec::MakeConstant(ks.max))});
  }
  if (key_col) {
    Result<ExprPtr> ge =
        exec::BindScalarFunction(">=", {key_col, exec::MakeConstant(ks.min)}, exec::BindContext{});
    Result<ExprPtr> le =
        exec::BindScalarFunction("<=", {key_col, exec::MakeConstant(ks.max)}, exec::BindContext{});
    if (ge.ok() && le.ok())
      rp.row = exec::MakeSpecial(ExprKind::kAnd, DataType::Boolean(), {*ge, *le});
  }
  return rp;
}

delta::ReadFilePredicate DfpReadPredicate(std::shared_ptr<const delta::Snapshot> snapshot,
                                          std::vector<std::string> columns,
                                          ExprPtr file_predicate) {
  return [snapshot = std::move(snapshot), columns = std::move(columns),
          pred = std::move(file_predicate)](const delta::AddFile& f) {
    // An error judging the file counts as "could match": a conflict, never a wrong result.
    Result<std::vector<const delta::AddFile*>> kept =
        PruneFileList(*snapshot, columns, {pred}, {&f}, true);
    return !kept.ok() || !kept->empty();
  };
}

Status ApplyRuntimeFilters(exec::HashJoinOperator& join, const std::vector<DfpTarget>& targets,
                           const DfpExecOptions& options, MemoryTracker* memory) {
  const auto start = std::chrono::steady_clock::now();
  const exec::JoinBuildSummary* summary = join.build_summary();
  if (!summary) return Status::OK();
  for (const DfpTarget& t : targets) {
    // A rows-only filter (RuntimeFilter::rows_only) leaves the scan's DFP metrics alone.
    exec::DfpScanMetrics rows_only_metrics;
    exec::DfpScanMetrics& m = t.rows_only ? rows_only_metrics : t.scan->dfp_metrics();
    m.considered = true;
    if (summary->build_rows > options.max_build_rows) {
      if (!m.applied) m.reason_not_applied = "build_too_large";
      continue;
    }
    if (t.key >= summary->keys.size())
      return Status::Internal("dynamic file pruning: join key out of range");
    const exec::JoinKeySummary& ks = summary->keys[t.key];
    ExprPtr col = exec::MakeColumn(t.scan_column, t.column_type,
                                   t.scan_columns[static_cast<size_t>(t.scan_column)]);
    RuntimePredicate rp = MakeRuntimePredicate(ks, col, options);
    ExprPtr file_pred = rp.file, row_pred = rp.row;
    const std::string& kind = rp.kind;
    const int64_t distinct = rp.distinct;
    const std::vector<const delta::AddFile*>& before = t.scan->files();
    if (m.files_before < 0) m.files_before = static_cast<int64_t>(before.size());
    std::vector<const delta::AddFile*> kept;
    size_t straddle = 0;  // kept files that may hold keys outside [ks.min, ks.max]
    // The estimated fraction of the kept files' rows whose key is a build key (integer keys,
    // all of them known, every kept file with statistics; -1 when unknown): per file, the keys
    // in its [min, max] over the values there, as if its values were spread evenly.
    double est_pass = -1;
    if (FastPrunable(ks, rp, t.column_type)) {
      // One pass over the files, parsing only the key column's statistics: each file's
      // [min, max] against the sorted ranges by binary search.
      const OrderClass c = OrderClassOf(ks.min.type()->id());
      std::vector<KeyRange> single;
      if (rp.ranges.empty()) single.push_back({ks.min, ks.max});
      const std::vector<KeyRange>& ranges = rp.ranges.empty() ? single : rp.ranges;
      SILT_ASSIGN_OR_RETURN(
          std::vector<FileColumnRange> bounds,
          FileColumnRanges(*t.scan->snapshot(), t.scan_columns, t.scan_column, before, true));
      if (BuildCoversDomain(c, ks, bounds, options.max_build_fraction)) {
        // silt.dfp.maxBuildFraction: the build keys cover that much of the column's values
        // (by the files' statistics): the filter would keep (nearly) every file and row.
        if (!m.applied) {
          m.reason_not_applied = "build_too_large";
          m.files_before = -1;  // no file counts: the filter did not run
        }
        continue;
      }
      std::vector<int64_t> sorted_keys;
      bool estimable = c == OrderClass::kInteger && distinct > 0;
      if (estimable) {
        for (const Value& v : ks.distinct_values) sorted_keys.push_back(v.integer());
        std::sort(sorted_keys.begin(), sorted_keys.end());
      }
      double pass_sum = 0;
      for (size_t i = 0; i < before.size(); ++i) {
        const FileColumnRange& b = bounds[i];
        if (b.state == FileColumnRange::State::kNoValue) continue;
        if (b.state == FileColumnRange::State::kRange) {
          if (!Overlaps(c, ranges, b.min, b.max)) continue;
          if (estimable) {
            const auto lo =
                std::lower_bound(sorted_keys.begin(), sorted_keys.end(), b.min.integer());
            const auto hi = std::upper_bound(lo, sorted_keys.end(), b.max.integer());
            const double span =
                static_cast<double>(b.max.integer()) - static_cast<double>(b.min.integer()) + 1;
            pass_sum += std::min(1.0, static_cast<double>(hi - lo) / span);
          }
          if (CompareOrdered(c, b.min, ks.min) < 0 || CompareOrdered(c, b.max, ks.max) > 0)
            ++straddle;
        } else {
          ++straddle;
          estimable = false;
        }
        kept.push_back(before[i]);
      }
      if (estimable && !kept.empty()) est_pass = pass_sum / static_cast<double>(kept.size());
    } else {
      SILT_ASSIGN_OR_RETURN(
          kept, PruneFileList(*t.scan->snapshot(), t.scan_columns, {file_pred}, before, true));
      if (row_pred) {
        ExprPtr outside = exec::MakeSpecial(ExprKind::kOr, DataType::Boolean(),
                                            {Comparison("<", col, exec::MakeConstant(ks.min)),
                                             Comparison(">", col, exec::MakeConstant(ks.max))});
        SILT_ASSIGN_OR_RETURN(
            std::vector<const delta::AddFile*> out,
            PruneFileList(*t.scan->snapshot(), t.scan_columns, {outside}, kept, true));
        straddle = out.size();
      }
    }
    m.bytes_pruned += FileBytes(before) - FileBytes(kept);
    m.files_after = static_cast<int64_t>(kept.size());
    m.applied = true;
    m.reason_not_applied.clear();
    m.build_distinct_values =
        m.filter_kind == "none" ? distinct : std::max(m.build_distinct_values, distinct);
    m.filter_kind = m.filter_kind == "none" ? kind : m.filter_kind + "+" + kind;
    // Row filters, adaptive: dropped after a first sample of rows when they keep nearly all of
    // them, so they cannot cost a non-selective query much. The build keys' bloom filter drops
    // the rows between the keys too (keys scattered over the column's range, where a min/max
    // filter keeps everything) and replaces the min/max filter (it drops every row that one
    // would, up to its false positives). Without one (a key type it does not support, or keys
    // whose min/max range holds only keys: consecutive integers), the min/max filter — worth its
    // cost per row only when many kept files hold keys outside the range (by their statistics);
    // on files inside it every row would pass. The bloom filter costs about what the join's probe
    // of a row does, and saves the probe and the gather of the rows it drops: it is left out when
    // the files' statistics say it would keep more than a quarter of the rows (measured: keeping
    // half of them, it cost 14% more CPU than the join alone).
    const Vector* build_keys = join.build_key(t.key);
    const bool dense =
        distinct > 0 && OrderClassOf(ks.min.type()->id()) == OrderClass::kInteger &&
        static_cast<double>(ks.max.integer()) - static_cast<double>(ks.min.integer()) + 1 <=
            static_cast<double>(distinct);
    // Its memory is charged to the query: a filter the limit cannot hold is left out (the
    // min/max filter below may still run; the join tests membership anyway).
    std::shared_ptr<exec::KeyBloomFilter> bloom;
    if (options.row_bloom_filter && build_keys && ks.non_null_count > 0 && !dense &&
        !kept.empty() && est_pass <= 0.25 &&
        exec::KeyBloomFilter::Supports(*build_keys->type(), *t.column_type)) {
      auto built =
          exec::KeyBloomFilter::Build(*build_keys, static_cast<size_t>(ks.non_null_count), memory);
      if (built.ok()) {
        bloom = std::move(built).value();
      } else if (built.status().error_class() == errc::kSiltMemoryLimitExceeded) {
        m.bloom_refused = true;
      } else {
        return built.status();
      }
    }
    if (bloom) {
      t.scan->AddAdaptiveRowFilter(exec::MakeBloomFilterExpr(std::move(bloom), col));
    } else if (row_pred && 2 * straddle > kept.size()) {
      t.scan->AddAdaptiveRowFilter(row_pred);
    }
    if (!t.rows_only) SILT_RETURN_NOT_OK(t.scan->SetFiles(std::move(kept)));
    // Row groups of the kept files, by their Parquet statistics (values in the column's type only;
    // not strings, whose statistics a writer may truncate).
    if (ks.non_null_count > 0 && ks.min.type()->Equals(*t.column_type) &&
        t.column_type->id() != TypeId::kString) {
      std::vector<std::vector<parquet::ColumnPredicate>> alternatives;
      auto pred = [](parquet::ColumnPredicate::Op op, const Value& v) {
        parquet::ColumnPredicate p;
        p.op = op;
        p.literal = v;
        return p;
      };
      if (distinct >= 0 && distinct <= options.per_value_probe_limit) {
        for (const Value& v : ks.distinct_values)
          alternatives.push_back({pred(parquet::ColumnPredicate::kEq, v)});
      } else if (!rp.ranges.empty()) {
        for (const KeyRange& r : rp.ranges)
          alternatives.push_back({pred(parquet::ColumnPredicate::kGe, r.lo),
                                  pred(parquet::ColumnPredicate::kLe, r.hi)});
      } else {
        alternatives.push_back({pred(parquet::ColumnPredicate::kGe, ks.min),
                                pred(parquet::ColumnPredicate::kLe, ks.max)});
      }
      t.scan->AddRowGroupFilter(t.scan_column, std::move(alternatives));
    }
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  for (const DfpTarget& t : targets) {
    if (!t.rows_only) t.scan->dfp_metrics().time_ms += ms / static_cast<double>(targets.size());
  }
  return Status::OK();
}

}  // namespace silt::planner
