#include "planner/semi_join_reduction.h"

#include <optional>
#include <vector>

#include "planner/join_order.h"
#include "planner/optimizer.h"

namespace silt::planner {

using exec::ExprKind;
using exec::ExprPtr;

namespace {

PlanPtr Copy(const PlanPtr& n) { return std::make_shared<LogicalNode>(*n); }

PlanPtr DeepCopy(const PlanPtr& n) {
  auto c = Copy(n);
  for (auto& ch : c->children) ch = DeepCopy(ch);
  return c;
}

// A subtree whose output column `column` holds every value (a superset) that a column of a larger
// plan can take: where a join key's values come from.
struct KeyOrigin {
  PlanPtr plan;
  int column = -1;
  bool filtered = false;  // the subtree filters its rows (else it holds the whole key domain)
};

std::optional<KeyOrigin> FindKeyOrigin(const PlanPtr& n, int col, int depth = 0) {
  if (depth > 64 || col < 0 || col >= static_cast<int>(n->columns.size())) return std::nullopt;
  switch (n->kind) {
    case LogicalKind::kScan:
      return KeyOrigin{n, col, !n->pushed_filters.empty()};
    case LogicalKind::kProject: {
      const ExprPtr& e = n->exprs[static_cast<size_t>(col)];
      if (e->kind != ExprKind::kColumn) return std::nullopt;
      return FindKeyOrigin(n->children[0], e->column, depth + 1);
    }
    case LogicalKind::kFilter: {
      std::optional<KeyOrigin> o = FindKeyOrigin(n->children[0], col, depth + 1);
      if (o && o->plan == n->children[0]) return KeyOrigin{n, col, true};  // the filtered leaf
      return o;
    }
    case LogicalKind::kAggregate: {
      // A group key's values are values of its input (NULL for rolled-up sets: never a match).
      if (col >= static_cast<int>(n->group_keys.size())) return std::nullopt;
      const ExprPtr& e = n->group_keys[static_cast<size_t>(col)];
      if (e->kind != ExprKind::kColumn) return std::nullopt;
      return FindKeyOrigin(n->children[0], e->column, depth + 1);
    }
    case LogicalKind::kJoin: {
      // A column of either side holds values of that side (or NULLs an outer join pads with). An
      // inner or semi join's key also holds only values of the other side's key: the smaller
      // (filtered) of the candidates is taken.
      const int lw = static_cast<int>(n->children[0]->columns.size());
      const bool left_col = col < lw;
      const bool inner = n->join == JoinKind::kInner || n->join == JoinKind::kCross;
      const bool semi = n->join == JoinKind::kSemi;
      std::vector<KeyOrigin> cands;
      auto add = [&](std::optional<KeyOrigin> o) {
        if (o) cands.push_back(std::move(*o));
      };
      if (left_col)
        add(FindKeyOrigin(n->children[0], col, depth + 1));
      else if (n->join != JoinKind::kSemi && n->join != JoinKind::kAnti)
        add(FindKeyOrigin(n->children[1], col - lw, depth + 1));
      if (inner || (semi && left_col)) {
        for (size_t k = 0; k < n->left_keys.size(); ++k) {
          if (n->null_safe[k]) continue;
          const ExprPtr& lk = n->left_keys[k];
          const ExprPtr& rk = n->right_keys[k];
          if (lk->kind != ExprKind::kColumn || rk->kind != ExprKind::kColumn) continue;
          if (left_col && lk->column == col)
            add(FindKeyOrigin(n->children[1], rk->column, depth + 1));
          if (!left_col && rk->column == col - lw)
            add(FindKeyOrigin(n->children[0], lk->column, depth + 1));
        }
      }
      std::optional<KeyOrigin> best;
      double best_rows = 0;
      for (auto& c : cands) {
        double rows = EstimateRows(*c.plan);
        if (!best || (c.filtered && !best->filtered) ||
            (c.filtered == best->filtered && rows < best_rows)) {
          best = c;
          best_rows = rows;
        }
      }
      return best;
    }
    default:
      return std::nullopt;
  }
}

// Estimated rows below which a semi-join reduction is not worth a second evaluation of the
// key's origin, and how much smaller than the reduced input that origin must be.
constexpr double kReduceMinRows = 100000;
constexpr double kReduceMinRatio = 10;

// `input` ⋉ origin on key = origin's column: the rows of `input` whose key has a value the
// origin holds (a copy of the origin subtree is evaluated once more; it is small and filtered).
PlanPtr SemiReduce(const PlanPtr& input, const ExprPtr& key, const KeyOrigin& o) {
  const TypePtr& t = o.plan->columns[static_cast<size_t>(o.column)].type;
  if (!key->type || !t || !key->type->Equals(*t)) return nullptr;
  const double in_rows = EstimateRows(*input);
  if (in_rows < kReduceMinRows || EstimateRows(*o.plan) * kReduceMinRatio > in_rows) return nullptr;
  auto j = std::make_shared<LogicalNode>();
  j->kind = LogicalKind::kJoin;
  j->join = JoinKind::kSemi;
  j->children = {input, DeepCopy(o.plan)};
  j->left_keys = {key};
  const OutputColumn& oc = o.plan->columns[static_cast<size_t>(o.column)];
  j->right_keys = {exec::MakeColumn(o.column, oc.type, oc.name, oc.nullable)};
  j->null_safe = {false};
  j->columns = input->columns;
  return j;
}

// The build side `r` of a join reduced to the rows whose key (`rkey`, over r's output) can match:
// through projections and filters down to a grouped aggregate on that key (a decorrelated scalar
// subquery of Q2/Q17/Q20: only the groups the outer rows probe are aggregated), or, when `plain`
// (the inner side of a semi/anti join: Q4's EXISTS, Q22's NOT EXISTS), `r` itself.
PlanPtr ReduceBuildSide(const PlanPtr& r, const ExprPtr& rkey, const KeyOrigin& o, bool plain) {
  if (rkey->kind == ExprKind::kColumn) {
    if (r->kind == LogicalKind::kProject &&
        r->exprs[static_cast<size_t>(rkey->column)]->kind == ExprKind::kColumn) {
      const ExprPtr& e = r->exprs[static_cast<size_t>(rkey->column)];
      if (PlanPtr c = ReduceBuildSide(r->children[0], e, o, plain)) {
        auto n = Copy(r);
        n->children[0] = c;
        return n;
      }
    }
    if (r->kind == LogicalKind::kFilter) {
      if (PlanPtr c = ReduceBuildSide(r->children[0], rkey, o, plain)) {
        auto n = Copy(r);
        n->children[0] = c;
        return n;
      }
    }
    if (r->kind == LogicalKind::kAggregate && r->grouping_sets.size() <= 1 &&
        rkey->column < static_cast<int>(r->group_keys.size())) {
      // Filtering rows by a group key before grouping keeps the other groups' values unchanged.
      if (PlanPtr c =
              SemiReduce(r->children[0], r->group_keys[static_cast<size_t>(rkey->column)], o)) {
        auto n = Copy(r);
        n->children[0] = c;
        return n;
      }
    }
  }
  return plain ? SemiReduce(r, rkey, o) : nullptr;
}

}  // namespace

// Semi-join reduction (DuckDB's delim join, Spark's injected semi joins): a join whose probe side
// takes its key from a small filtered subtree gets its large build side filtered by that
// subtree's keys first. Valid for inner, left outer, semi and anti joins (a build row whose key
// no probe row has never matches; NOT IN's null-aware anti join is left alone: its NULL keys
// count).

PlanPtr ReduceJoins(const PlanPtr& node) {
  auto n = Copy(node);
  for (auto& c : n->children) c = ReduceJoins(c);
  if (n->kind != LogicalKind::kJoin || n->left_keys.empty() || n->null_aware_anti) return n;
  const bool semi = n->join == JoinKind::kSemi || n->join == JoinKind::kAnti;
  if (!semi && n->join != JoinKind::kInner && n->join != JoinKind::kLeft) return n;
  std::optional<KeyOrigin> best;
  size_t best_key = 0;
  double best_rows = 0;
  for (size_t k = 0; k < n->left_keys.size(); ++k) {
    if (n->null_safe[k] || n->left_keys[k]->kind != ExprKind::kColumn) continue;
    std::optional<KeyOrigin> o = FindKeyOrigin(n->children[0], n->left_keys[k]->column);
    if (!o || !o->filtered || !Deterministic(n->right_keys[k])) continue;
    double rows = EstimateRows(*o->plan);
    if (!best || rows < best_rows) {
      best = o;
      best_key = k;
      best_rows = rows;
    }
  }
  if (!best) return n;
  // A semi/anti join built on its left side (SemiJoinBuildsOnLeft) probes with the whole right
  // side once anyway: reducing it by the left side's keys would only repeat that probe.
  const bool plain = semi && !SemiJoinBuildsOnLeft(*n);
  if (PlanPtr r = ReduceBuildSide(n->children[1], n->right_keys[best_key], *best, plain))
    n->children[1] = r;
  return n;
}

}  // namespace silt::planner
