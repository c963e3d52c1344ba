#include "planner/physical_planner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>

#include "exec/basic_operators.h"
#include "exec/delta_scan.h"
#include "exec/generate.h"
#include "exec/hash_aggregate.h"
#include "exec/hash_join.h"
#include "exec/nested_loop_join.h"
#include "exec/set_operators.h"
#include "exec/sort.h"
#include "exec/window.h"
#include "planner/dynamic_file_pruning.h"
#include "planner/join_order.h"
#include "planner/optimizer.h"

namespace silt::planner {

namespace {

Schema SchemaOf(const LogicalNode& n) {
  Schema s;
  for (const auto& c : n.columns) s.push_back({c.name, c.type, c.nullable, "{}"});
  return s;
}

std::vector<exec::SortKey> SortKeys(const std::vector<SortSpec>& specs) {
  std::vector<exec::SortKey> keys;
  for (const auto& s : specs) keys.push_back({s.expr, s.ascending, s.nulls_first});
  return keys;
}

// EXPLAIN ANALYZE's instrumentation: forwards to `inner`, counting the rows it returns and the
// wall time of its calls (which includes the time of its children, in pull and push mode alike).
class ProfiledOperator final : public exec::Operator {
 public:
  explicit ProfiledOperator(exec::OperatorPtr inner) : inner_(std::move(inner)) { RefreshSchema(); }
  void RefreshSchema() { schema_ = inner_->output_schema(); }
  exec::Operator& inner() { return *inner_; }
  const exec::Operator& inner() const { return *inner_; }
  int64_t rows() const { return rows_.load(); }
  double time_ms() const { return static_cast<double>(nanos_) / 1e6; }

  Result<bool> Next(exec::ExecContext& ctx, DataChunk* out) override {
    const auto start = std::chrono::steady_clock::now();
    Result<bool> r = inner_->Next(ctx, out);
    nanos_ += std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now() - start)
                  .count();
    if (r.ok() && *r) rows_ += static_cast<int64_t>(out->size());
    return r;
  }
  Result<bool> PushAll(exec::ExecContext& ctx, size_t workers,
                       const exec::ChunkSink& sink) override {
    const auto start = std::chrono::steady_clock::now();
    Result<bool> r = inner_->PushAll(ctx, workers, [&](size_t w, DataChunk& c) {
      rows_.fetch_add(static_cast<int64_t>(c.size()), std::memory_order_relaxed);
      return sink(w, c);
    });
    nanos_ += std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now() - start)
                  .count();
    return r;
  }
  std::string name() const override { return inner_->name(); }
  std::string details() const override { return inner_->details(); }
  std::vector<const exec::Operator*> children() const override { return inner_->children(); }
  std::string RuntimeMetrics() const override { return inner_->RuntimeMetrics(); }

 private:
  exec::OperatorPtr inner_;
  std::atomic<int64_t> rows_{0};
  int64_t nanos_ = 0;
};

const exec::Operator& Unprofiled(const exec::Operator& op) {
  const auto* p = dynamic_cast<const ProfiledOperator*>(&op);
  return p ? p->inner() : op;
}

void NumberOperators(const exec::Operator& op, std::vector<const exec::Operator*>* order) {
  for (const exec::Operator* c : op.children()) NumberOperators(*c, order);
  order->push_back(&op);
}

// Spark's tree layout (see ExplainPlan).
void ExplainTree(const exec::Operator& op, const std::string& prefix, const std::string& marker,
                 bool formatted, const std::vector<const exec::Operator*>& order, std::string* out,
                 bool analyzed = false) {
  out->append(prefix + marker);
  out->append(op.name());
  if (formatted) {
    size_t id = std::find(order.begin(), order.end(), &op) - order.begin() + 1;
    out->append(" (" + std::to_string(id) + ")");
  } else {
    std::string d = op.details();
    if (!d.empty()) out->append(" " + d);
  }
  if (analyzed) {
    if (const auto* p = dynamic_cast<const ProfiledOperator*>(&op)) {
      char buf[96];
      std::snprintf(buf, sizeof(buf), " (rows=%lld, time=%.3f ms)",
                    static_cast<long long>(p->rows()), p->time_ms());
      out->append(buf);
    }
    if (const auto* scan = dynamic_cast<const exec::DeltaScanOperator*>(&Unprofiled(op))) {
      out->append(" {metrics: " + scan->AnalyzeDetails() + "}");
    }
    std::string runtime = op.RuntimeMetrics();
    if (!runtime.empty()) out->append(" {" + runtime + "}");
  }
  out->push_back('\n');
  std::string below = marker.empty() ? prefix : prefix + (marker == ":- " ? ":  " : "   ");
  std::vector<const exec::Operator*> children = op.children();
  for (size_t i = 0; i < children.size(); ++i) {
    ExplainTree(*children[i], below, i + 1 == children.size() ? "+- " : ":- ", formatted, order,
                out, analyzed);
  }
}

}  // namespace

std::string ExplainAnalyzed(const exec::Operator& root) {
  std::vector<const exec::Operator*> order;
  NumberOperators(root, &order);
  std::string out;
  ExplainTree(root, "", "", false, order, &out, true);
  return out;
}

std::string ExplainPhysical(const exec::Operator& root, bool formatted) {
  std::vector<const exec::Operator*> order;
  NumberOperators(root, &order);
  std::string out;
  ExplainTree(root, "", "", formatted, order, &out);
  if (!formatted) return out;
  for (size_t i = 0; i < order.size(); ++i) {
    const exec::Operator& op = *order[i];
    out += "\n(" + std::to_string(i + 1) + ") " + op.name() + "\n";
    std::string d = op.details();
    if (!d.empty()) out += "Arguments: " + d + "\n";
    const Schema& schema = op.output_schema();
    out += "Output [" + std::to_string(schema.size()) + "]: [";
    for (size_t c = 0; c < schema.size(); ++c) out += (c ? ", " : "") + schema[c].name;
    out += "]\n";
  }
  return out;
}

// `e` over (left ++ right) columns rewritten over (right ++ left).
exec::ExprPtr SwapSides(const exec::ExprPtr& e, int left_width, int right_width) {
  if (!e) return e;
  if (e->kind == exec::ExprKind::kColumn) {
    auto c = std::make_shared<exec::Expr>(*e);
    c->column = e->column < left_width ? e->column + right_width : e->column - left_width;
    return c;
  }
  if (e->children.empty()) return e;
  auto c = std::make_shared<exec::Expr>(*e);
  for (auto& ch : c->children) ch = SwapSides(ch, left_width, right_width);
  return c;
}

namespace {

// The Delta scans built so far that runtime filters prune, by filter id.
struct PhysicalContext {
  struct ScanInfo {
    exec::DeltaScanOperator* op;
    const LogicalNode* node;
  };
  std::map<int, ScanInfo> scans;
  bool profile = false;
};

Result<exec::OperatorPtr> BuildNode(const PlanPtr& plan, PhysicalContext& pctx);
Result<exec::OperatorPtr> BuildOperator(const PlanPtr& plan, PhysicalContext& pctx);

Result<exec::OperatorPtr> BuildNode(const PlanPtr& plan, PhysicalContext& pctx) {
  SILT_ASSIGN_OR_RETURN(exec::OperatorPtr op, BuildOperator(plan, pctx));
  if (!pctx.profile) return op;
  return exec::OperatorPtr(std::make_unique<ProfiledOperator>(std::move(op)));
}

// Wires the runtime filters of join `n` (dynamic file pruning) into its hash join.
Status WireRuntimeFilters(const LogicalNode& n, const PhysicalContext& pctx,
                          exec::HashJoinOperator* op) {
  if (n.dfp_pruned_side < 0 || n.dfp_filters.empty()) return Status::OK();
  std::vector<DfpTarget> targets;
  for (const auto& [id, key] : n.dfp_filters) {
    auto it = pctx.scans.find(id);
    if (it == pctx.scans.end())
      return Status::Internal("runtime filter #" + std::to_string(id) + " has no scan");
    const LogicalNode& scan = *it->second.node;
    for (const RuntimeFilter& rf : scan.runtime_filters) {
      if (rf.id != id) continue;
      DfpTarget t;
      t.id = id;
      t.key = static_cast<size_t>(key);
      t.scan = it->second.op;
      t.scan_column = rf.scan_column;
      t.scan_columns = scan.scan_columns;
      t.column_type = scan.columns[static_cast<size_t>(rf.scan_column)].type;
      t.rows_only = rf.rows_only;
      targets.push_back(std::move(t));
    }
  }
  op->SetSummaryMaxDistinct(static_cast<size_t>(std::max<int64_t>(0, n.dfp.max_in_list_values)));
  DfpExecOptions options = n.dfp;
  op->SetAfterBuild([targets = std::move(targets), options](exec::ExecContext& ctx,
                                                            exec::HashJoinOperator& join) {
    return ApplyRuntimeFilters(join, targets, options, ctx.memory);
  });
  return Status::OK();
}

}  // namespace

Result<exec::OperatorPtr> BuildPhysical(const PlanPtr& plan, bool profile) {
  PhysicalContext pctx;
  pctx.profile = profile;
  return BuildNode(plan, pctx);
}

namespace {

Result<exec::OperatorPtr> BuildOperator(const PlanPtr& plan, PhysicalContext& pctx) {
  const LogicalNode& n = *plan;
  // ORDER BY … LIMIT n → top-N (the sort below is not built).
  if (n.kind == LogicalKind::kLimit && n.limit && n.children[0]->kind == LogicalKind::kSort) {
    SILT_ASSIGN_OR_RETURN(exec::OperatorPtr below, BuildNode(n.children[0]->children[0], pctx));
    return exec::OperatorPtr(std::make_unique<exec::TopNOperator>(
        std::move(below), SortKeys(n.children[0]->sort_keys), *n.limit, n.offset));
  }
  std::vector<exec::OperatorPtr> children;
  for (const auto& c : n.children) {
    SILT_ASSIGN_OR_RETURN(exec::OperatorPtr op, BuildNode(c, pctx));
    children.push_back(std::move(op));
  }
  switch (n.kind) {
    case LogicalKind::kScan: {
      std::vector<const delta::AddFile*> files;
      if (n.pruned_files) {
        files = *n.pruned_files;
      } else {
        for (const auto& f : n.snapshot->files()) files.push_back(&f);
      }
      SILT_ASSIGN_OR_RETURN(
          auto op, exec::DeltaScanOperator::Make(n.snapshot, n.scan_columns, std::move(files),
                                                 n.pushed_filters, n.table_name));
      op->SetExplainDetails(ScanDetails(n));
      op->SetLateMaterialization(n.late_materialization);
      for (const RuntimeFilter& rf : n.runtime_filters) pctx.scans[rf.id] = {op.get(), &n};
      const bool dfp_planned = std::any_of(n.runtime_filters.begin(), n.runtime_filters.end(),
                                           [](const RuntimeFilter& rf) { return !rf.rows_only; });
      if (dfp_planned || !n.dfp_reason.empty()) {
        op->dfp_metrics().considered = true;
        op->dfp_metrics().reason_not_applied = n.dfp_reason;
      }
      return exec::OperatorPtr(std::move(op));
    }
    case LogicalKind::kValues:
      // EXPLAIN's placeholder of a materialized CTE (not run while binding): its plan, so the
      // physical plan shows what the CTE computes and a scalar subquery over it, which EXPLAIN
      // still runs, gets the CTE's rows.
      if (!n.children.empty()) return std::move(children[0]);
      if (n.is_range) {
        return exec::OperatorPtr(std::make_unique<exec::RangeOperator>(
            SchemaOf(n), n.range_start, n.range_step, n.range_count));
      }
      return exec::OperatorPtr(
          std::make_unique<exec::ValuesOperator>(SchemaOf(n), n.rows.shared()));
    case LogicalKind::kFilter: {
      auto op = std::make_unique<exec::FilterOperator>(std::move(children[0]), n.predicate);
      if (Deterministic(n.predicate)) op->EnablePush();
      return exec::OperatorPtr(std::move(op));
    }
    case LogicalKind::kProject: {
      std::vector<std::string> names;
      for (const auto& c : n.columns) names.push_back(c.name);
      // A deterministic projection right above a Delta scan runs in the scan's parallel workers.
      const LogicalNode& child = *n.children[0];
      if (child.kind == LogicalKind::kScan && !child.scan_columns.empty() && !n.exprs.empty() &&
          std::all_of(n.exprs.begin(), n.exprs.end(),
                      [](const exec::ExprPtr& e) { return Deterministic(e); })) {
        Schema schema;
        for (size_t i = 0; i < n.exprs.size(); ++i) {
          schema.push_back({names[i], n.exprs[i]->type, n.exprs[i]->nullable, "{}"});
        }
        auto* profiled = dynamic_cast<ProfiledOperator*>(children[0].get());
        exec::Operator& scan = profiled ? profiled->inner() : *children[0];
        static_cast<exec::DeltaScanOperator&>(scan).SetProjection(n.exprs, std::move(schema));
        if (profiled) profiled->RefreshSchema();
        return std::move(children[0]);
      }
      auto op = std::make_unique<exec::ProjectOperator>(std::move(children[0]), n.exprs, names);
      if (std::all_of(n.exprs.begin(), n.exprs.end(),
                      [](const exec::ExprPtr& e) { return Deterministic(e); })) {
        op->EnablePush();
      }
      return exec::OperatorPtr(std::move(op));
    }
    case LogicalKind::kAggregate: {
      std::vector<exec::AggregateSpec> aggs;
      for (const auto& a : n.aggregates) aggs.push_back({a.bound, a.filter, a.name});
      return exec::OperatorPtr(std::make_unique<exec::HashAggregateOperator>(
          std::move(children[0]), n.group_keys, std::move(aggs), n.grouping_sets));
    }
    case LogicalKind::kJoin: {
      exec::JoinType jt = exec::JoinType::kInner;
      switch (n.join) {
        case JoinKind::kInner:
        case JoinKind::kCross:
          jt = exec::JoinType::kInner;
          break;
        case JoinKind::kLeft:
          jt = exec::JoinType::kLeftOuter;
          break;
        case JoinKind::kRight:
          jt = exec::JoinType::kRightOuter;
          break;
        case JoinKind::kFull:
          jt = exec::JoinType::kFullOuter;
          break;
        case JoinKind::kSemi:
          jt = exec::JoinType::kLeftSemi;
          break;
        case JoinKind::kAnti:
          jt = exec::JoinType::kLeftAnti;
          break;
      }
      if (n.left_keys.empty()) {
        return exec::OperatorPtr(std::make_unique<exec::NestedLoopJoinOperator>(
            std::move(children[0]), std::move(children[1]), jt, n.condition));
      }
      // An inner or left outer join builds its hash table on the smaller side (the right one as
      // written, unless the estimates say the left is smaller: a left outer join then runs as a
      // right outer join with the sides swapped, Q13's customers build and orders probe); a
      // projection restores the column order. With
      // dynamic file pruning the pruned side is the probe side (a left outer join pruning its
      // right side becomes a right outer join with the sides swapped).
      bool swap = n.dfp_pruned_side >= 0
                      ? n.dfp_pruned_side == 1 &&
                            (jt == exec::JoinType::kInner || jt == exec::JoinType::kLeftOuter)
                      : (jt == exec::JoinType::kInner || jt == exec::JoinType::kLeftOuter) &&
                            EstimateRows(*n.children[1]) > 2 * EstimateRows(*n.children[0]);
      // A semi or anti join whose preserved (left) side is the smaller one builds on it and
      // probes with the other side, marking the build rows that match: a right semi/anti join
      // (TPC-H Q4: three months of orders against all of lineitem), same output columns.
      if (!swap && n.dfp_pruned_side < 0 && !n.null_aware_anti &&
          (jt == exec::JoinType::kLeftSemi || jt == exec::JoinType::kLeftAnti) &&
          SemiJoinBuildsOnLeft(n)) {
        const int lw = static_cast<int>(children[0]->output_schema().size());
        const int rw = static_cast<int>(children[1]->output_schema().size());
        return exec::OperatorPtr(std::make_unique<exec::HashJoinOperator>(
            std::move(children[1]), std::move(children[0]),
            jt == exec::JoinType::kLeftSemi ? exec::JoinType::kRightSemi
                                            : exec::JoinType::kRightAnti,
            n.right_keys, n.left_keys, n.null_safe, SwapSides(n.condition, lw, rw)));
      }
      if (swap) {
        const int lw = static_cast<int>(children[0]->output_schema().size());
        const int rw = static_cast<int>(children[1]->output_schema().size());
        Schema joined = children[0]->output_schema();
        for (const Field& f : children[1]->output_schema()) joined.push_back(f);
        auto op = std::make_unique<exec::HashJoinOperator>(
            std::move(children[1]), std::move(children[0]),
            jt == exec::JoinType::kLeftOuter ? exec::JoinType::kRightOuter : jt, n.right_keys,
            n.left_keys, n.null_safe, SwapSides(n.condition, lw, rw));
        SILT_RETURN_NOT_OK(WireRuntimeFilters(n, pctx, op.get()));
        std::vector<exec::ExprPtr> order;
        std::vector<std::string> names;
        const Schema& swapped = op->output_schema();  // nullability after outer-join padding
        for (int i = 0; i < lw + rw; ++i) {
          const Field& f = joined[static_cast<size_t>(i)];
          const int from = i < lw ? i + rw : i - lw;
          order.push_back(
              exec::MakeColumn(from, f.type, f.name, swapped[static_cast<size_t>(from)].nullable));
          names.push_back(f.name);
        }
        auto project = std::make_unique<exec::ProjectOperator>(std::move(op), std::move(order),
                                                               std::move(names));
        project->EnablePush();
        return exec::OperatorPtr(std::move(project));
      }
      auto op = std::make_unique<exec::HashJoinOperator>(
          std::move(children[0]), std::move(children[1]), jt, n.left_keys, n.right_keys,
          n.null_safe, n.condition, n.null_aware_anti);
      if (n.dfp_pruned_side == 0) SILT_RETURN_NOT_OK(WireRuntimeFilters(n, pctx, op.get()));
      return exec::OperatorPtr(std::move(op));
    }
    case LogicalKind::kSort:
      return exec::OperatorPtr(
          std::make_unique<exec::SortOperator>(std::move(children[0]), SortKeys(n.sort_keys)));
    case LogicalKind::kLimit: {
      return exec::OperatorPtr(std::make_unique<exec::LimitOperator>(
          std::move(children[0]), n.limit.value_or(-1), n.offset));
    }
    case LogicalKind::kWindow: {
      // One WindowOperator per call (each appends its column), so the output order is the
      // calls' order; calls with the same PARTITION BY / ORDER BY could share one (later).
      exec::OperatorPtr op = std::move(children[0]);
      for (const WindowCall& w : n.windows) {
        op = std::make_unique<exec::WindowOperator>(std::move(op), w.partition_by,
                                                    SortKeys(w.order_by),
                                                    std::vector<exec::WindowFunction>{w.fn});
      }
      return op;
    }
    case LogicalKind::kGenerate: {
      std::optional<exec::Generator> gen = exec::FindGenerator(n.generator);
      if (!gen) return Status::Internal("not a generator: " + n.generator);
      std::vector<Field> generated;
      for (size_t k = n.children[0]->columns.size(); k < n.columns.size(); ++k) {
        generated.push_back({n.columns[k].name, n.columns[k].type, n.columns[k].nullable, "{}"});
      }
      return exec::OperatorPtr(std::make_unique<exec::GenerateOperator>(
          std::move(children[0]), *gen, n.exprs[0], std::move(generated)));
    }
    case LogicalKind::kUnionAll:
      return exec::OperatorPtr(std::make_unique<exec::UnionAllOperator>(std::move(children)));
    case LogicalKind::kDistinct:
      return exec::OperatorPtr(std::make_unique<exec::DistinctOperator>(std::move(children[0])));
    case LogicalKind::kSetOp:
      return exec::OperatorPtr(std::make_unique<exec::SetOperator>(
          n.intersect ? (n.set_all ? exec::SetOpKind::kIntersectAll : exec::SetOpKind::kIntersect)
                      : (n.set_all ? exec::SetOpKind::kExceptAll : exec::SetOpKind::kExcept),
          std::move(children[0]), std::move(children[1])));
  }
  return Status::Internal("unknown logical node");
}

}  // namespace

}  // namespace silt::planner
