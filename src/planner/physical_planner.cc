#include "planner/physical_planner.h"

#include <algorithm>

#include "exec/basic_operators.h"
#include "exec/delta_scan.h"
#include "exec/generate.h"
#include "exec/hash_aggregate.h"
#include "exec/hash_join.h"
#include "exec/nested_loop_join.h"
#include "exec/set_operators.h"
#include "exec/sort.h"
#include "exec/window.h"
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

void NumberOperators(const exec::Operator& op, std::vector<const exec::Operator*>* order) {
  for (const exec::Operator* c : op.children()) NumberOperators(*c, order);
  order->push_back(&op);
}

// Spark's tree layout (see ExplainPlan).
void ExplainTree(const exec::Operator& op, const std::string& prefix, const std::string& marker, bool formatted,
                 const std::vector<const exec::Operator*>& order, std::string* out) {
  out->append(prefix + marker);
  out->append(op.name());
  if (formatted) {
    size_t id = std::find(order.begin(), order.end(), &op) - order.begin() + 1;
    out->append(" (" + std::to_string(id) + ")");
  } else {
    std::string d = op.details();
    if (!d.empty()) out->append(" " + d);
  }
  out->push_back('\n');
  std::string below = marker.empty() ? prefix : prefix + (marker == ":- " ? ":  " : "   ");
  std::vector<const exec::Operator*> children = op.children();
  for (size_t i = 0; i < children.size(); ++i) {
    ExplainTree(*children[i], below, i + 1 == children.size() ? "+- " : ":- ", formatted, order, out);
  }
}

}  // namespace

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

Result<exec::OperatorPtr> BuildPhysical(const PlanPtr& plan) {
  const LogicalNode& n = *plan;
  // ORDER BY … LIMIT n → top-N (the sort below is not built).
  if (n.kind == LogicalKind::kLimit && n.limit && n.children[0]->kind == LogicalKind::kSort) {
    SILT_ASSIGN_OR_RETURN(exec::OperatorPtr below, BuildPhysical(n.children[0]->children[0]));
    return exec::OperatorPtr(std::make_unique<exec::TopNOperator>(std::move(below), SortKeys(n.children[0]->sort_keys),
                                                                  *n.limit, n.offset));
  }
  std::vector<exec::OperatorPtr> children;
  for (const auto& c : n.children) {
    SILT_ASSIGN_OR_RETURN(exec::OperatorPtr op, BuildPhysical(c));
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
      SILT_ASSIGN_OR_RETURN(auto op, exec::DeltaScanOperator::Make(n.snapshot, n.scan_columns, std::move(files),
                                                                   n.pushed_filters, n.table_name));
      op->SetExplainDetails(ScanDetails(n));
      return exec::OperatorPtr(std::move(op));
    }
    case LogicalKind::kValues:
      return exec::OperatorPtr(std::make_unique<exec::ValuesOperator>(SchemaOf(n), n.rows.shared()));
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
          std::all_of(n.exprs.begin(), n.exprs.end(), [](const exec::ExprPtr& e) { return Deterministic(e); })) {
        Schema schema;
        for (size_t i = 0; i < n.exprs.size(); ++i) {
          schema.push_back({names[i], n.exprs[i]->type, n.exprs[i]->nullable, "{}"});
        }
        static_cast<exec::DeltaScanOperator&>(*children[0]).SetProjection(n.exprs, std::move(schema));
        return std::move(children[0]);
      }
      auto op = std::make_unique<exec::ProjectOperator>(std::move(children[0]), n.exprs, names);
      if (std::all_of(n.exprs.begin(), n.exprs.end(), [](const exec::ExprPtr& e) { return Deterministic(e); })) {
        op->EnablePush();
      }
      return exec::OperatorPtr(std::move(op));
    }
    case LogicalKind::kAggregate: {
      std::vector<exec::AggregateSpec> aggs;
      for (const auto& a : n.aggregates) aggs.push_back({a.bound, a.filter, a.name});
      return exec::OperatorPtr(std::make_unique<exec::HashAggregateOperator>(std::move(children[0]), n.group_keys,
                                                                             std::move(aggs), n.grouping_sets));
    }
    case LogicalKind::kJoin: {
      exec::JoinType jt = exec::JoinType::kInner;
      switch (n.join) {
        case JoinKind::kInner: case JoinKind::kCross: jt = exec::JoinType::kInner; break;
        case JoinKind::kLeft: jt = exec::JoinType::kLeftOuter; break;
        case JoinKind::kRight: jt = exec::JoinType::kRightOuter; break;
        case JoinKind::kFull: jt = exec::JoinType::kFullOuter; break;
        case JoinKind::kSemi: jt = exec::JoinType::kLeftSemi; break;
        case JoinKind::kAnti: jt = exec::JoinType::kLeftAnti; break;
      }
      if (n.left_keys.empty()) {
        return exec::OperatorPtr(std::make_unique<exec::NestedLoopJoinOperator>(std::move(children[0]), std::move(children[1]),
                                                                                jt, n.condition));
      }
      // An inner join builds its hash table on the smaller side (the right one as written, unless
      // the estimates say the left is smaller); a projection restores the column order.
      if (jt == exec::JoinType::kInner && EstimateRows(*n.children[1]) > 2 * EstimateRows(*n.children[0])) {
        const int lw = static_cast<int>(children[0]->output_schema().size());
        const int rw = static_cast<int>(children[1]->output_schema().size());
        Schema joined = children[0]->output_schema();
        for (const Field& f : children[1]->output_schema()) joined.push_back(f);
        auto op = std::make_unique<exec::HashJoinOperator>(std::move(children[1]), std::move(children[0]), jt,
                                                           n.right_keys, n.left_keys, n.null_safe,
                                                           SwapSides(n.condition, lw, rw));
        std::vector<exec::ExprPtr> order;
        std::vector<std::string> names;
        for (int i = 0; i < lw + rw; ++i) {
          const Field& f = joined[static_cast<size_t>(i)];
          order.push_back(exec::MakeColumn(i < lw ? i + rw : i - lw, f.type, f.name, f.nullable));
          names.push_back(f.name);
        }
        auto project = std::make_unique<exec::ProjectOperator>(std::move(op), std::move(order), std::move(names));
        project->EnablePush();
        return exec::OperatorPtr(std::move(project));
      }
      auto op = std::make_unique<exec::HashJoinOperator>(std::move(children[0]), std::move(children[1]), jt, n.left_keys,
                                                         n.right_keys, n.null_safe, n.condition, n.null_aware_anti);
      return exec::OperatorPtr(std::move(op));
    }
    case LogicalKind::kSort:
      return exec::OperatorPtr(std::make_unique<exec::SortOperator>(std::move(children[0]), SortKeys(n.sort_keys)));
    case LogicalKind::kLimit: {
      return exec::OperatorPtr(std::make_unique<exec::LimitOperator>(std::move(children[0]), n.limit.value_or(-1), n.offset));
    }
    case LogicalKind::kWindow: {
      // One WindowOperator per call (each appends its column), so the output order is the
      // calls' order; calls with the same PARTITION BY / ORDER BY could share one (later).
      exec::OperatorPtr op = std::move(children[0]);
      for (const WindowCall& w : n.windows) {
        op = std::make_unique<exec::WindowOperator>(std::move(op), w.partition_by, SortKeys(w.order_by),
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
      return exec::OperatorPtr(std::make_unique<exec::GenerateOperator>(std::move(children[0]), *gen, n.exprs[0], std::move(generated)));
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

}  // namespace silt::planner
