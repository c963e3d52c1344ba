#include "planner/optimizer.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "delta/partition_values.h"
#include "delta/stats_json.h"
#include "exec/functions.h"
#include "planner/binder.h"
#include "planner/catalog.h"
#include "planner/constant_folding.h"
#include "planner/dynamic_file_pruning.h"
#include "planner/generated_partition_filters.h"
#include "planner/join_order.h"
#include "planner/or_factoring.h"
#include "planner/semi_join_reduction.h"

namespace silt::planner {

using exec::Expr;
using exec::ExprKind;
using exec::ExprPtr;

bool Deterministic(const ExprPtr& e) {
  if (!e->deterministic) return false;
  for (const auto& c : e->children) {
    if (!Deterministic(c)) return false;
  }
  return true;
}

std::string SwappedComparison(const std::string& op) {
  if (op == "<") return ">";
  if (op == ">") return "<";
  if (op == "<=") return ">=";
  if (op == ">=") return "<=";
  return op;
}

void Conjuncts(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (e->kind == ExprKind::kAnd) {
    Conjuncts(e->children[0], out);
    Conjuncts(e->children[1], out);
    return;
  }
  out->push_back(e);
}

namespace {

// Replaces column references by the expressions they name (pushing through a projection).
// `memo` (one per projection) maps each node already rewritten to its result, so the filters
// pushed through one projection keep sharing what they shared: a column reference becomes the
// projection's own expression, shared by every filter naming it, and the next projection down
// rewrites that shared node once. Without it each projection copied every filter whole: a chain
// of n CTEs each filtering above a projection built O(n^3) nodes (200 levels: 2.5 GB).
using SubstMemo = std::unordered_map<const Expr*, ExprPtr>;

ExprPtr Substitute(const ExprPtr& e, const std::vector<ExprPtr>& exprs, SubstMemo* memo) {
  if (e->kind == ExprKind::kColumn) return exprs[e->column];
  if (e->children.empty()) return e;
  auto [it, inserted] = memo->try_emplace(e.get());
  if (!inserted) return it->second;
  auto c = std::make_shared<Expr>(*e);
  for (auto& ch : c->children) ch = Substitute(ch, exprs, memo);
  (*memo)[e.get()] = c;  // `it` may have moved (the recursion inserts)
  return c;
}

ExprPtr AndAll(const std::vector<ExprPtr>& v) {
  ExprPtr acc;
  for (const auto& e : v)
    acc = acc ? exec::MakeSpecial(ExprKind::kAnd, DataType::Boolean(), {acc, e}) : e;
  return acc;
}

std::vector<int> Cols(const ExprPtr& e) {
  std::vector<int> c;
  if (e) exec::CollectColumns(*e, &c);
  return c;
}

bool Within(const ExprPtr& e, int lo, int hi) {
  for (int c : Cols(e)) {
    if (c < lo || c >= hi) return false;
  }
  return true;
}

void ExtractKeys(const std::vector<ExprPtr>& conj, int lw, int total, LogicalNode* j,
                 std::vector<ExprPtr>* rest) {
  for (const ExprPtr& c : conj) {
    if (c->kind == ExprKind::kCall && (c->name == "=" || c->name == "==" || c->name == "<=>") &&
        c->children.size() == 2) {
      const ExprPtr& a = c->children[0];
      const ExprPtr& b = c->children[1];
      auto ca = Cols(a), cb = Cols(b);
      if (!ca.empty() && !cb.empty()) {
        bool al = Within(a, 0, lw), ar = Within(a, lw, total), bl = Within(b, 0, lw),
             br = Within(b, lw, total);
        if ((al && br) || (ar && bl)) {
          j->left_keys.push_back(al ? a : b);
          j->right_keys.push_back(RemapColumns(al ? b : a, [lw](int x) { return x - lw; }));
          j->null_safe.push_back(c->name == "<=>");
          continue;
        }
      }
    }
    rest->push_back(c);
  }
}

PlanPtr Copy(const PlanPtr& n) { return std::make_shared<LogicalNode>(*n); }

PlanPtr DeepCopy(const PlanPtr& n) {
  auto c = Copy(n);
  for (auto& ch : c->children) ch = DeepCopy(ch);
  return c;
}

// ------------------------------------------------------------------ predicate pushdown

PlanPtr PushFilters(PlanPtr node, std::vector<ExprPtr> filters);

PlanPtr WithFilters(PlanPtr node, const std::vector<ExprPtr>& filters) {
  if (filters.empty()) return node;
  return MakeFilter(node, AndAll(filters));
}

PlanPtr PushChildren(PlanPtr node) {
  auto n = Copy(node);
  for (auto& c : n->children) c = PushFilters(c, {});
  return n;
}

// A structural hash consistent with SameExpr: expressions it calls the same hash equal (= and
// <=> hash their operands in either order). The dedup below compares deeply only on a hash match:
// on CTE chains every level carries all the filters above it, and comparing each pair deeply at
// each level made planning O(n^4).
size_t ShapeHash(const ExprPtr& e) {
  if (!e) return 0;
  size_t h = (static_cast<size_t>(e->kind) + 1) * 0x9E3779B97F4A7C15ULL;
  if (e->kind == ExprKind::kColumn) h ^= static_cast<size_t>(e->column) * 0x632BE59BD9B4E019ULL;
  if (e->kind == ExprKind::kCall) h ^= std::hash<std::string>()(e->name);
  const bool symmetric = e->kind == ExprKind::kCall && e->children.size() == 2 &&
                         (e->name == "=" || e->name == "==" || e->name == "<=>");
  size_t acc = 0;
  for (const ExprPtr& c : e->children) {
    const size_t ch = ShapeHash(c);
    acc = symmetric ? acc + ch : acc * 31 + ch;
  }
  return h ^ (acc * 0xBF58476D1CE4E5B9ULL);
}

PlanPtr PushFilters(PlanPtr node, std::vector<ExprPtr> filters) {
  // A second pass (after join reordering) derives the same implied filters again: once each.
  if (filters.size() > 1) {
    std::vector<size_t> hashes;
    hashes.reserve(filters.size());
    for (const ExprPtr& f : filters) hashes.push_back(ShapeHash(f));
    for (size_t i = 0; i < filters.size(); ++i) {
      for (size_t j = i + 1; j < filters.size();) {
        if (hashes[i] == hashes[j] && SameExpr(filters[i], filters[j])) {
          filters.erase(filters.begin() + static_cast<std::ptrdiff_t>(j));
          hashes.erase(hashes.begin() + static_cast<std::ptrdiff_t>(j));
        } else {
          ++j;
        }
      }
    }
  }
  switch (node->kind) {
    case LogicalKind::kFilter: {
      FactoredConjuncts(node->predicate, &filters);
      return PushFilters(node->children[0], std::move(filters));
    }
    case LogicalKind::kScan: {
      auto n = Copy(node);
      std::vector<ExprPtr> keep;
      for (auto& f : filters) {
        if (Deterministic(f) && ContainsExpr(n->pushed_filters, f)) continue;
        if (Deterministic(f))
          n->pushed_filters.push_back(f);
        else
          keep.push_back(f);
      }
      return WithFilters(n, keep);
    }
    case LogicalKind::kProject: {
      std::vector<ExprPtr> down, keep;
      SubstMemo memo;
      for (auto& f : filters) {
        bool ok = Deterministic(f);
        for (int c : Cols(f)) ok = ok && Deterministic(node->exprs[c]);
        if (ok)
          down.push_back(Substitute(f, node->exprs, &memo));
        else
          keep.push_back(f);
      }
      memo.clear();
      filters = {};  // not held during the recursion below (keep and down share what they need)
      auto n = Copy(node);
      n->children[0] = PushFilters(node->children[0], std::move(down));
      return WithFilters(n, keep);
    }
    case LogicalKind::kJoin: {
      auto n = Copy(node);
      int lw = static_cast<int>(node->children[0]->columns.size());
      int total = lw + static_cast<int>(node->children[1]->columns.size());
      std::vector<ExprPtr> left, right, keep, both;
      bool inner = n->join == JoinKind::kInner || n->join == JoinKind::kCross;
      bool semi = n->join == JoinKind::kSemi || n->join == JoinKind::kAnti;
      for (auto& f : filters) {
        if (!Deterministic(f)) {
          keep.push_back(f);
        } else if (Within(f, 0, lw) && (inner || semi || n->join == JoinKind::kLeft)) {
          left.push_back(f);
        } else if (!semi && Within(f, lw, total) && (inner || n->join == JoinKind::kRight)) {
          right.push_back(RemapColumns(f, [lw](int x) { return x - lw; }));
        } else if (inner) {
          both.push_back(f);
        } else {
          keep.push_back(f);
        }
      }
      // The join's own condition: one-sided conjuncts of an inner join go down too.
      if (inner && n->condition) {
        std::vector<ExprPtr> cond;
        FactoredConjuncts(n->condition, &cond);
        n->condition = nullptr;
        for (auto& c : cond) {
          if (Deterministic(c) && Within(c, 0, lw))
            left.push_back(c);
          else if (Deterministic(c) && Within(c, lw, total))
            right.push_back(RemapColumns(c, [lw](int x) { return x - lw; }));
          else
            both.push_back(c);
        }
      } else if (n->join == JoinKind::kLeft && n->condition) {
        // ON conditions on the right side of a left join filter the right input (an OR's
        // right-side parts too, the OR staying in the condition).
        std::vector<ExprPtr> cond, rest;
        FactoredConjuncts(n->condition, &cond);
        for (auto& c : cond) {
          if (Deterministic(c) && Within(c, lw, total) && !Cols(c).empty()) {
            right.push_back(RemapColumns(c, [lw](int x) { return x - lw; }));
            continue;
          }
          if (ExprPtr r = SideDisjunction(c, lw, total))
            right.push_back(RemapColumns(r, [lw](int x) { return x - lw; }));
          rest.push_back(c);
        }
        n->condition = AndAll(rest);
      } else if (semi && n->condition) {
        std::vector<ExprPtr> cond, rest;
        FactoredConjuncts(n->condition, &cond);
        for (auto& c : cond) {
          if (Deterministic(c) && Within(c, lw, total) && !Cols(c).empty()) {
            right.push_back(RemapColumns(c, [lw](int x) { return x - lw; }));
            continue;
          }
          if (ExprPtr r = SideDisjunction(c, lw, total))
            right.push_back(RemapColumns(r, [lw](int x) { return x - lw; }));
          rest.push_back(c);
        }
        n->condition = AndAll(rest);
      }
      if (inner) {
        // An OR over both inputs: each input gets the OR of its parts, when every branch has one.
        for (const ExprPtr& c : both) {
          if (ExprPtr l = SideDisjunction(c, 0, lw)) left.push_back(l);
          if (ExprPtr r = SideDisjunction(c, lw, total))
            right.push_back(RemapColumns(r, [lw](int x) { return x - lw; }));
        }
      }
      if (!both.empty()) {
        std::vector<ExprPtr> rest;
        ExtractKeys(both, lw, total, n.get(), &rest);
        if (!rest.empty()) {
          std::vector<ExprPtr> all;
          if (n->condition) all.push_back(n->condition);
          all.insert(all.end(), rest.begin(), rest.end());
          n->condition = AndAll(all);
        }
        if (n->join == JoinKind::kCross && !n->left_keys.empty()) n->join = JoinKind::kInner;
        if (n->join == JoinKind::kCross && n->condition) n->join = JoinKind::kInner;
      }
      // Equalities of any join's own condition become hash keys (outer joins included: the keys
      // are part of their ON condition).
      if (n->condition && n->left_keys.empty()) {
        std::vector<ExprPtr> cond, rest;
        FactoredConjuncts(n->condition, &cond);
        ExtractKeys(cond, lw, total, n.get(), &rest);
        n->condition = AndAll(rest);
        if (n->join == JoinKind::kCross && !n->left_keys.empty()) n->join = JoinKind::kInner;
      }
      n->children[0] = PushFilters(node->children[0], std::move(left));
      n->children[1] = PushFilters(node->children[1], std::move(right));
      return WithFilters(n, keep);
    }
    case LogicalKind::kAggregate: {
      std::vector<ExprPtr> down, keep;
      SubstMemo memo;
      size_t nk = node->group_keys.size();
      for (auto& f : filters) {
        // Only filters over the group keys go below. A global aggregate (no keys) returns its
        // one row even for empty input, so a HAVING over it (even a constant) stays above.
        bool ok = Deterministic(f) && node->grouping_sets.size() <= 1 && nk > 0;
        for (int c : Cols(f)) ok = ok && c < static_cast<int>(nk);
        if (ok)
          down.push_back(Substitute(f, node->group_keys, &memo));
        else
          keep.push_back(f);
      }
      memo.clear();
      auto n = Copy(node);
      n->children[0] = PushFilters(node->children[0], std::move(down));
      return WithFilters(n, keep);
    }
    case LogicalKind::kSort:
    case LogicalKind::kDistinct: {
      auto n = Copy(node);
      n->children[0] = PushFilters(node->children[0], std::move(filters));
      return n;
    }
    case LogicalKind::kUnionAll: {
      auto n = Copy(node);
      for (auto& c : n->children) c = PushFilters(c, filters);
      return n;
    }
    default: {
      auto n = PushChildren(node);
      return WithFilters(n, filters);
    }
  }
}

// ------------------------------------------------------------------ projection pruning

// Returns a plan whose output is exactly `needed` (sorted unique indices of node's output).
PlanPtr Prune(const PlanPtr& node, const std::vector<int>& needed);

PlanPtr Narrow(PlanPtr plan, const std::vector<int>& have, const std::vector<int>& needed) {
  if (have == needed) return plan;
  std::vector<ExprPtr> exprs;
  std::vector<std::string> names;
  for (int want : needed) {
    int pos = static_cast<int>(std::lower_bound(have.begin(), have.end(), want) - have.begin());
    const auto& c = plan->columns[pos];
    exprs.push_back(exec::MakeColumn(pos, c.type, c.name, c.nullable));
    names.push_back(c.name);
  }
  return MakeProject(plan, exprs, names);
}

std::vector<int> Union(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  return a;
}

std::function<int(int)> RankMap(const std::vector<int>& kept) {
  return [kept](int old) {
    return static_cast<int>(std::lower_bound(kept.begin(), kept.end(), old) - kept.begin());
  };
}

std::vector<int> All(size_t n) {
  std::vector<int> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<int>(i);
  return v;
}

PlanPtr Prune(const PlanPtr& node, const std::vector<int>& needed) {
  switch (node->kind) {
    case LogicalKind::kScan: {
      std::vector<int> read = needed;
      for (const auto& f : node->pushed_filters) read = Union(read, Cols(f));
      auto n = Copy(node);
      n->columns.clear();
      n->scan_columns.clear();
      for (int i : read) {
        n->columns.push_back(node->columns[i]);
        n->scan_columns.push_back(node->scan_columns[i]);
      }
      auto map = RankMap(read);
      for (auto& f : n->pushed_filters) f = RemapColumns(f, map);
      return Narrow(n, read, needed);
    }
    case LogicalKind::kValues: {
      auto n = Copy(node);
      if (!node->children.empty()) {
        // EXPLAIN's placeholder of a materialized CTE: its plan keeps all its columns (the
        // physical plan runs it in the placeholder's place), a projection narrows them.
        const std::vector<int> all_cols = All(node->columns.size());
        n->children[0] = Prune(node->children[0], all_cols);
        return Narrow(n, all_cols, needed);
      }
      bool all = needed.size() == node->columns.size();
      for (size_t i = 0; i < needed.size() && all; ++i) all = needed[i] == static_cast<int>(i);
      if (all) return n;  // keeps sharing the rows
      n->columns.clear();
      for (int i : needed) n->columns.push_back(node->columns[i]);
      if (n->is_range) return n;  // streams its one column or none
      n->rows.clear();
      for (const auto& chunk : node->rows) {
        DataChunk c;
        c.num_rows_without_columns = chunk.size();
        for (int i : needed) c.columns.push_back(chunk.columns[i]);
        n->rows.push_back(std::move(c));
      }
      return n;
    }
    case LogicalKind::kFilter: {
      std::vector<int> want = Union(needed, Cols(node->predicate));
      auto n = Copy(node);
      n->children[0] = Prune(node->children[0], want);
      n->predicate = RemapColumns(node->predicate, RankMap(want));
      n->columns = n->children[0]->columns;
      return Narrow(n, want, needed);
    }
    case LogicalKind::kProject: {
      std::vector<int> want;
      for (int i : needed) want = Union(want, Cols(node->exprs[i]));
      auto n = Copy(node);
      n->children[0] = Prune(node->children[0], want);
      auto map = RankMap(want);
      n->exprs.clear();
      n->columns.clear();
      for (int i : needed) {
        n->exprs.push_back(RemapColumns(node->exprs[i], map));
        n->columns.push_back(node->columns[i]);
      }
      return n;
    }
    case LogicalKind::kAggregate: {
      std::vector<int> want;
      for (const auto& g : node->group_keys) want = Union(want, Cols(g));
      for (const auto& a : node->aggregates) {
        for (const auto& arg : a.bound.args) want = Union(want, Cols(arg));
        want = Union(want, Cols(a.filter));
      }
      auto n = Copy(node);
      n->children[0] = Prune(node->children[0], want);
      auto map = RankMap(want);
      for (auto& g : n->group_keys) g = RemapColumns(g, map);
      for (auto& a : n->aggregates) {
        for (auto& arg : a.bound.args) arg = RemapColumns(arg, map);
        a.filter = RemapColumns(a.filter, map);
      }
      return Narrow(n, All(node->columns.size()), needed);
    }
    case LogicalKind::kJoin: {
      int lw = static_cast<int>(node->children[0]->columns.size());
      int rw = static_cast<int>(node->children[1]->columns.size());
      std::vector<int> l, r;
      bool semi = node->join == JoinKind::kSemi || node->join == JoinKind::kAnti;
      for (int i : needed) {
        if (i < lw)
          l.push_back(i);
        else
          r.push_back(i - lw);
      }
      for (const auto& k : node->left_keys) l = Union(l, Cols(k));
      for (const auto& k : node->right_keys) r = Union(r, Cols(k));
      for (int c : Cols(node->condition)) {
        if (c < lw)
          l = Union(l, {c});
        else
          r = Union(r, {c - lw});
      }
      auto n = Copy(node);
      n->children[0] = Prune(node->children[0], l);
      n->children[1] = Prune(node->children[1], r);
      auto lm = RankMap(l), rm = RankMap(r);
      for (auto& k : n->left_keys) k = RemapColumns(k, lm);
      for (auto& k : n->right_keys) k = RemapColumns(k, rm);
      int nlw = static_cast<int>(l.size());
      n->condition =
          RemapColumns(node->condition, [&](int c) { return c < lw ? lm(c) : nlw + rm(c - lw); });
      n->columns.clear();
      std::vector<int> have;
      for (int i : l) {
        n->columns.push_back(node->columns[i]);
        have.push_back(i);
      }
      if (!semi) {
        for (int i : r) {
          n->columns.push_back(node->columns[lw + i]);
          have.push_back(lw + i);
        }
      }
      (void)rw;
      return Narrow(n, have, needed);
    }
    case LogicalKind::kSort: {
      std::vector<int> want = needed;
      for (const auto& k : node->sort_keys) want = Union(want, Cols(k.expr));
      auto n = Copy(node);
      n->children[0] = Prune(node->children[0], want);
      auto map = RankMap(want);
      for (auto& k : n->sort_keys) k.expr = RemapColumns(k.expr, map);
      n->columns = n->children[0]->columns;
      return Narrow(n, want, needed);
    }
    case LogicalKind::kLimit: {
      auto n = Copy(node);
      n->children[0] = Prune(node->children[0], needed);
      n->columns = n->children[0]->columns;
      return n;
    }
    case LogicalKind::kWindow: {
      int base = static_cast<int>(node->children[0]->columns.size());
      std::vector<int> want;
      for (int i : needed) {
        if (i < base) want.push_back(i);
      }
      for (const auto& w : node->windows) {
        for (const auto& a : w.fn.args) want = Union(want, Cols(a));
        want = Union(want, Cols(w.fn.default_value));
        for (const auto& p : w.partition_by) want = Union(want, Cols(p));
        for (const auto& o : w.order_by) want = Union(want, Cols(o.expr));
      }
      auto n = Copy(node);
      n->children[0] = Prune(node->children[0], want);
      auto map = RankMap(want);
      for (auto& w : n->windows) {
        for (auto& a : w.fn.args) a = RemapColumns(a, map);
        w.fn.default_value = RemapColumns(w.fn.default_value, map);
        for (auto& p : w.partition_by) p = RemapColumns(p, map);
        for (auto& o : w.order_by) o.expr = RemapColumns(o.expr, map);
      }
      n->columns = n->children[0]->columns;
      std::vector<int> have = want;
      for (size_t k = 0; k < node->windows.size(); ++k) {
        n->columns.push_back(node->columns[base + k]);
        have.push_back(base + static_cast<int>(k));
      }
      return Narrow(n, have, needed);
    }
    case LogicalKind::kGenerate: {
      // The child columns asked for and the argument's; every generated column stays.
      const int base = static_cast<int>(node->children[0]->columns.size());
      std::vector<int> want;
      for (int i : needed) {
        if (i < base) want.push_back(i);
      }
      want = Union(want, Cols(node->exprs[0]));
      auto n = Copy(node);
      n->children[0] = Prune(node->children[0], want);
      n->exprs[0] = RemapColumns(node->exprs[0], RankMap(want));
      n->columns = n->children[0]->columns;
      std::vector<int> have = want;
      for (size_t k = static_cast<size_t>(base); k < node->columns.size(); ++k) {
        n->columns.push_back(node->columns[k]);
        have.push_back(static_cast<int>(k));
      }
      return Narrow(n, have, needed);
    }
    case LogicalKind::kUnionAll: {
      auto n = Copy(node);
      for (auto& c : n->children) c = Prune(c, needed);
      n->columns.clear();
      for (int i : needed) n->columns.push_back(node->columns[i]);
      return n;
    }
    case LogicalKind::kDistinct:
    case LogicalKind::kSetOp: {
      auto n = Copy(node);
      for (auto& c : n->children) c = Prune(c, All(c->columns.size()));
      return Narrow(n, All(node->columns.size()), needed);
    }
  }
  return node;
}

void PruneAllScans(LogicalNode* n, const OptimizerOptions& o, Status* st) {
  if (!st->ok()) return;
  if (n->kind == LogicalKind::kScan) {
    n->late_materialization = o.late_materialization;
    *st = PruneFiles(n, o);
  }
  for (auto& c : n->children) PruneAllScans(c.get(), o, st);
}

// ------------------------------------------------------------------ file pruning

enum class Tri { kFalse, kTrue, kUnknown };

// Can a file with these stats contain a row where `e` is true? (conservative)
struct StatsView {
  const delta::FileStats* stats;
  const std::vector<std::string>* stat_keys;  // per scan column: stats key ("" = none)
  const std::vector<std::optional<Value>>*
      partition;  // per scan column: partition value if partition col
};

std::optional<Value> ConstOf(const ExprPtr& e) {
  if (e->kind == ExprKind::kConstant) return e->constant;
  return std::nullopt;
}

int CompareForPrune(const Value& a, const Value& b, bool* ok) {
  *ok = false;
  if (a.is_null() || b.is_null()) return 0;
  TypeId ta = a.type()->id(), tb = b.type()->id();
  auto integral = [](TypeId t) {
    return t == TypeId::kInt8 || t == TypeId::kInt16 || t == TypeId::kInt32 ||
           t == TypeId::kInt64 || t == TypeId::kDate || t == TypeId::kTimestamp ||
           t == TypeId::kTimestampNtz;
  };
  if (integral(ta) && integral(tb) &&
      (ta == tb ||
       (ta != TypeId::kDate && tb != TypeId::kDate && ta != TypeId::kTimestamp &&
        tb != TypeId::kTimestamp && ta != TypeId::kTimestampNtz && tb != TypeId::kTimestampNtz))) {
    *ok = true;
    return a.integer() < b.integer() ? -1 : a.integer() > b.integer();
  }
  if ((ta == TypeId::kDouble || ta == TypeId::kFloat) &&
      (tb == TypeId::kDouble || tb == TypeId::kFloat)) {
    double x = a.floating(), y = b.floating();
    if (x != x || y != y) return 0;
    *ok = true;
    return x < y ? -1 : x > y;
  }
  if (ta == TypeId::kDecimal && tb == TypeId::kDecimal) {
    // Different scales (a key widened to a common decimal type): compare exactly at the larger
    // scale; give up (unknown) when rescaling would overflow.
    int128_t x = a.decimal(), y = b.decimal();
    int d = a.type()->scale() - b.type()->scale();
    int128_t& up = d < 0 ? x : y;
    constexpr int128_t kLimit = ~(int128_t{1} << 127) / 10;
    for (int k = 0; k < (d < 0 ? -d : d); ++k) {
      if (up > kLimit || up < -kLimit) return 0;
      up *= 10;
    }
    *ok = true;
    return x < y ? -1 : x > y;
  }
  if (ta == TypeId::kString && tb == TypeId::kString) {
    *ok = true;
    int c = a.str().compare(b.str());
    return c < 0 ? -1 : c > 0;
  }
  if (ta == TypeId::kBoolean && tb == TypeId::kBoolean) {
    *ok = true;
    return static_cast<int>(a.boolean()) - static_cast<int>(b.boolean());
  }
  return 0;
}

// A column reference with min/max known?
struct ColRange {
  bool has_minmax = false;
  Value min, max;
  std::optional<int64_t> nulls;
  std::optional<int64_t> rows;
  bool exact_partition = false;
};

ColRange RangeOf(int col, const StatsView& v) {
  ColRange r;
  if ((*v.partition)[col]) {
    r.has_minmax = !(*v.partition)[col]->is_null();
    r.min = r.max = *(*v.partition)[col];
    r.exact_partition = true;
    r.nulls = (*v.partition)[col]->is_null() ? 1 : 0;
    return r;
  }
  if (!v.stats || (*v.stat_keys)[col].empty()) return r;
  const delta::ColumnStats* cs = v.stats->Find((*v.stat_keys)[col]);
  r.rows = v.stats->num_records;
  if (!cs) return r;
  r.nulls = cs->null_count;
  // More nulls than records: inconsistent, so neither count is trusted.
  if (r.nulls && r.rows && *r.nulls > *r.rows) r.nulls.reset();
  // Delta truncates string maxima (32 characters by default): a long max is not an upper bound.
  bool truncated_max = cs->max && !cs->max->is_null() && cs->max->type()->id() == TypeId::kString &&
                       cs->max->str().size() >= 32;
  // A minimum above the maximum is garbage, not a bound (stats are advisory: no skipping).
  bool ordered = true;
  if (cs->min && cs->max && !cs->min->is_null() && !cs->max->is_null()) {
    bool ok = false;
    ordered = !(CompareForPrune(*cs->min, *cs->max, &ok) > 0 && ok);
  }
  if (cs->min && cs->max && !cs->min->is_null() && !cs->max->is_null() && !truncated_max &&
      ordered) {
    r.has_minmax = true;
    r.min = *cs->min;
    r.max = *cs->max;
    // Delta writes timestamp statistics truncated to milliseconds: the true maximum can be up to
    // 999 µs above the stored one (Delta compares against max + 1 ms).
    TypeId t = r.max.type()->id();
    if ((t == TypeId::kTimestamp || t == TypeId::kTimestampNtz) &&
        r.max.integer() < INT64_MAX - 1000) {
      r.max = Value::Integer(r.max.type(), r.max.integer() + 999);
    }
  }
  return r;
}

// `lit op col` becomes `col op' lit` (the comparison mirrored), so the column comes first.
void ColumnFirst(ExprPtr* col, ExprPtr* lit, std::string* op) {
  if ((*col)->kind == ExprKind::kColumn || (*lit)->kind != ExprKind::kColumn) return;
  std::swap(*col, *lit);
  *op = SwappedComparison(*op);
}

Tri MayMatch(const ExprPtr& e, const StatsView& v) {
  switch (e->kind) {
    case ExprKind::kAnd: {
      Tri a = MayMatch(e->children[0], v), b = MayMatch(e->children[1], v);
      if (a == Tri::kFalse || b == Tri::kFalse) return Tri::kFalse;
      return Tri::kUnknown;
    }
    case ExprKind::kOr: {
      Tri a = MayMatch(e->children[0], v), b = MayMatch(e->children[1], v);
      if (a == Tri::kFalse && b == Tri::kFalse) return Tri::kFalse;
      return Tri::kUnknown;
    }
    case ExprKind::kIsNull:
    case ExprKind::kIsNotNull: {
      if (e->children[0]->kind != ExprKind::kColumn) return Tri::kUnknown;
      ColRange r = RangeOf(e->children[0]->column, v);
      if (!r.nulls) return Tri::kUnknown;
      if (e->kind == ExprKind::kIsNull) return *r.nulls == 0 ? Tri::kFalse : Tri::kUnknown;
      if (r.rows && *r.nulls == *r.rows) return Tri::kFalse;
      if (r.exact_partition && *r.nulls) return Tri::kFalse;
      return Tri::kUnknown;
    }
    case ExprKind::kIn: {
      if (e->children[0]->kind != ExprKind::kColumn) return Tri::kUnknown;
      ColRange r = RangeOf(e->children[0]->column, v);
      if (!r.has_minmax) {
        if (r.rows && r.nulls && *r.nulls == *r.rows) return Tri::kFalse;
        if (r.exact_partition) return Tri::kFalse;  // a NULL partition value is never IN (...)
        return Tri::kUnknown;
      }
      // NULL items never match (Delta drops them; nothing left → no row can match).
      for (size_t i = 1; i < e->children.size(); ++i) {
        auto c = ConstOf(e->children[i]);
        if (!c) return Tri::kUnknown;
        if (c->is_null()) continue;
        bool ok1, ok2;
        int lo = CompareForPrune(*c, r.min, &ok1), hi = CompareForPrune(*c, r.max, &ok2);
        if (!ok1 || !ok2) return Tri::kUnknown;
        if (lo >= 0 && hi <= 0) return Tri::kUnknown;
      }
      return Tri::kFalse;
    }
    case ExprKind::kCall: {
      if (e->children.size() != 2) return Tri::kUnknown;
      std::string op = e->name;
      ExprPtr col = e->children[0], lit = e->children[1];
      ColumnFirst(&col, &lit, &op);
      if (col->kind != ExprKind::kColumn) return Tri::kUnknown;
      auto c = ConstOf(lit);
      if (!c) return Tri::kUnknown;
      if (c->is_null()) return op == "<=>" ? Tri::kUnknown : Tri::kFalse;
      ColRange r = RangeOf(col->column, v);
      if (!r.has_minmax) {
        if (r.rows && r.nulls && *r.nulls == *r.rows && op != "<=>") return Tri::kFalse;
        if (r.exact_partition) return Tri::kFalse;  // partition value NULL never compares true
        return Tri::kUnknown;
      }
      bool ok1, ok2;
      int vs_min = CompareForPrune(*c, r.min, &ok1);
      int vs_max = CompareForPrune(*c, r.max, &ok2);
      if (!ok1 || !ok2) return Tri::kUnknown;
      if (op == "=" || op == "==" || op == "<=>")
        return (vs_min < 0 || vs_max > 0) ? Tri::kFalse : Tri::kUnknown;
      if (op == "<") return vs_min <= 0 ? Tri::kFalse : Tri::kUnknown;  // col < c needs min < c
      if (op == "<=") return vs_min < 0 ? Tri::kFalse : Tri::kUnknown;
      if (op == ">") return vs_max >= 0 ? Tri::kFalse : Tri::kUnknown;  // col > c needs max > c
      if (op == ">=") return vs_max > 0 ? Tri::kFalse : Tri::kUnknown;
      if ((op == "<>" || op == "!=") && r.exact_partition)
        return vs_min == 0 ? Tri::kFalse : Tri::kUnknown;
      return Tri::kUnknown;
    }
    case ExprKind::kConstant:
      if (e->type->id() == TypeId::kBoolean && (e->constant.is_null() || !e->constant.boolean()))
        return Tri::kFalse;
      return Tri::kUnknown;
    default:
      return Tri::kUnknown;
  }
}

// Is `e` TRUE for every row of a file with these stats? (conservative: false when unsure). A
// NULL result is not TRUE, so a comparison needs the column proven NULL-free (nullCount 0 or a
// non-NULL partition value). Floating-point columns prove nothing: NaN sorts above every number
// in Spark but Parquet statistics may leave it out of the maximum.
bool AllTrue(const ExprPtr& e, const StatsView& v) {
  switch (e->kind) {
    case ExprKind::kAnd:
      return AllTrue(e->children[0], v) && AllTrue(e->children[1], v);
    case ExprKind::kOr:
      return AllTrue(e->children[0], v) || AllTrue(e->children[1], v);
    case ExprKind::kIsNull:
    case ExprKind::kIsNotNull: {
      if (e->children[0]->kind != ExprKind::kColumn) return false;
      ColRange r = RangeOf(e->children[0]->column, v);
      if (r.exact_partition) return (*r.nulls != 0) == (e->kind == ExprKind::kIsNull);
      if (!r.nulls || !r.rows || *r.rows <= 0) return false;
      return e->kind == ExprKind::kIsNull ? *r.nulls == *r.rows : *r.nulls == 0;
    }
    case ExprKind::kIn:
    case ExprKind::kCall: {
      if (e->children.size() < 2 || (e->kind == ExprKind::kCall && e->children.size() != 2))
        return false;
      std::string op = e->kind == ExprKind::kIn ? "in" : e->name;
      ExprPtr col = e->children[0], lit = e->children[1];
      if (op != "in") ColumnFirst(&col, &lit, &op);
      if (col->kind != ExprKind::kColumn) return false;
      ColRange r = RangeOf(col->column, v);
      if (!r.has_minmax) return false;
      if (!r.exact_partition && (!r.nulls || *r.nulls != 0 || !r.rows || *r.rows <= 0))
        return false;
      const TypeId t = r.min.type()->id();
      if (t == TypeId::kFloat || t == TypeId::kDouble) return false;
      auto cmp = [](const Value& a, const Value& b, int* out) {
        bool ok = false;
        *out = CompareForPrune(a, b, &ok);
        return ok;
      };
      if (op == "in") {
        // Every row equal to one listed value: the file holds a single value (min = max).
        int same = 0;
        if (!cmp(r.min, r.max, &same) || same != 0) return false;
        for (size_t i = 1; i < e->children.size(); ++i) {
          auto c = ConstOf(e->children[i]);
          int eq = 0;
          if (c && !c->is_null() && cmp(*c, r.min, &eq) && eq == 0) return true;
        }
        return false;
      }
      auto c = ConstOf(lit);
      if (!c || c->is_null()) return false;
      int vs_min = 0, vs_max = 0;
      if (!cmp(*c, r.min, &vs_min) || !cmp(*c, r.max, &vs_max)) return false;
      if (op == "=" || op == "==" || op == "<=>") return vs_min == 0 && vs_max == 0;
      if (op == "<") return vs_max > 0;  // every value < c: max < c
      if (op == "<=") return vs_max >= 0;
      if (op == ">") return vs_min < 0;  // every value > c: min > c
      if (op == ">=") return vs_min <= 0;
      if (op == "<>" || op == "!=") return vs_min < 0 || vs_max > 0;
      return false;
    }
    default:
      return false;
  }
}

// Per scan column: the partition column's physical key or the statistics key of a top-level
// primitive column, its type, and the physical schema the statistics are parsed with.
struct ColumnKeys {
  std::vector<std::string> part_keys, stat_keys;
  std::vector<TypePtr> types;
  Schema physical;
  bool any_stats_col = false;

  static Result<ColumnKeys> Make(const delta::Snapshot& snap,
                                 const std::vector<std::string>& scan_columns) {
    ColumnKeys k;
    k.part_keys.resize(scan_columns.size());
    k.stat_keys.resize(scan_columns.size());
    k.types.resize(scan_columns.size());
    const Schema& schema = snap.schema();
    delta::ColumnMappingMode mode = snap.column_mapping_mode();
    for (size_t i = 0; i < scan_columns.size(); ++i) {
      int fi = FindField(schema, scan_columns[i]);
      if (fi < 0) continue;
      const Field& f = schema[fi];
      k.types[i] = f.type;
      std::string phys = delta::PhysicalNameOrName(f, mode);
      bool is_part = false;
      for (const auto& p : snap.partition_columns()) is_part |= LowerName(p) == LowerName(f.name);
      if (is_part)
        k.part_keys[i] = phys;
      else if (!f.type->is_nested())
        k.stat_keys[i] = delta::StatsPathKey({phys});
    }
    SILT_ASSIGN_OR_RETURN(k.physical, delta::ToPhysicalSchema(schema, mode));
    k.any_stats_col = std::any_of(k.stat_keys.begin(), k.stat_keys.end(),
                                  [](const std::string& s) { return !s.empty(); });
    return k;
  }

  // The file's partition value per scan column (nullopt: not a partition column or unparsable).
  std::vector<std::optional<Value>> PartitionValues(const delta::AddFile& f) const {
    std::vector<std::optional<Value>> pv(part_keys.size());
    for (size_t i = 0; i < part_keys.size(); ++i) {
      if (part_keys[i].empty()) continue;
      std::optional<std::string> text;
      for (const auto& [key, val] : f.partition_values) {
        if (key == part_keys[i]) text = val;
      }
      Result<Value> v = delta::ParsePartitionValue(text, types[i]);
      if (v.ok()) pv[i] = *v;
    }
    return pv;
  }
};

}  // namespace

Status PruneFiles(LogicalNode* scan, const OptimizerOptions& options) {
  const delta::Snapshot& snap = *scan->snapshot;
  const auto& files = snap.files();
  scan->files_total = static_cast<int64_t>(files.size());
  scan->stats_skipping = options.stats_skipping;
  std::vector<const delta::AddFile*> all;
  all.reserve(files.size());
  for (const auto& f : files) all.push_back(&f);
  if (scan->pushed_filters.empty()) {
    scan->files_after_partition_pruning = scan->files_after_stats_pruning = scan->files_total;
    scan->pruned_files = std::move(all);
    return Status::OK();
  }
  GeneratedPartitionFilters generated;
  generated.columns = scan->scan_columns;
  if (options.generated_partition_filters) {
    SILT_ASSIGN_OR_RETURN(
        generated, DeriveGeneratedPartitionFilters(snap, scan->scan_columns, scan->pushed_filters,
                                                   options.eval));
  }
  scan->generated_partition_filters = generated.filters;
  std::vector<ExprPtr> filters = scan->pushed_filters;
  filters.insert(filters.end(), generated.filters.begin(), generated.filters.end());
  int64_t after_part = 0;
  SILT_ASSIGN_OR_RETURN(
      std::vector<const delta::AddFile*> kept,
      PruneFileList(snap, generated.columns, filters, all, options.stats_skipping, &after_part));
  scan->files_after_partition_pruning = after_part;
  scan->files_after_stats_pruning = static_cast<int64_t>(kept.size());
  scan->pruned_files = std::move(kept);
  return Status::OK();
}

Result<std::vector<const delta::AddFile*>> PruneFileList(
    const delta::Snapshot& snap, const std::vector<std::string>& scan_columns,
    const std::vector<ExprPtr>& filters, const std::vector<const delta::AddFile*>& files,
    bool stats_skipping, int64_t* after_partition) {
  std::vector<const delta::AddFile*> kept;
  kept.reserve(files.size());
  SILT_ASSIGN_OR_RETURN(ColumnKeys keys, ColumnKeys::Make(snap, scan_columns));
  std::vector<const delta::AddFile*> after_part;
  for (const delta::AddFile* f : files) {
    std::vector<std::optional<Value>> pv = keys.PartitionValues(*f);
    StatsView view{nullptr, &keys.stat_keys, &pv};
    bool drop = false;
    for (const auto& c : filters) drop |= MayMatch(c, view) == Tri::kFalse;
    if (!drop) after_part.push_back(f);
  }
  if (after_partition) *after_partition = static_cast<int64_t>(after_part.size());
  for (const delta::AddFile* f : after_part) {
    if (!stats_skipping || !keys.any_stats_col || !f->stats) {
      kept.push_back(f);
      continue;
    }
    Result<delta::FileStats> st = delta::ParseStats(*f->stats, keys.physical);
    if (!st.ok()) {
      kept.push_back(f);
      continue;
    }
    std::vector<std::optional<Value>> pv = keys.PartitionValues(*f);
    StatsView view{&*st, &keys.stat_keys, &pv};
    bool drop = false;
    for (const auto& c : filters) drop |= MayMatch(c, view) == Tri::kFalse;
    if (!drop) kept.push_back(f);
  }
  return kept;
}

struct AllRowsProver::Keys : ColumnKeys {};

Result<AllRowsProver> AllRowsProver::Make(const delta::Snapshot& snapshot,
                                          const std::vector<std::string>& scan_columns,
                                          std::vector<ExprPtr> filters) {
  AllRowsProver p;
  SILT_ASSIGN_OR_RETURN(ColumnKeys keys, ColumnKeys::Make(snapshot, scan_columns));
  p.keys_ = std::make_shared<const Keys>(Keys{std::move(keys)});
  p.filters_ = std::move(filters);
  return p;
}

bool AllRowsProver::AllRowsMatch(const delta::AddFile& file) const {
  if (filters_.empty()) return false;
  std::optional<delta::FileStats> stats;
  if (keys_->any_stats_col && file.stats) {
    Result<delta::FileStats> st = delta::ParseStats(*file.stats, keys_->physical);
    if (st.ok()) stats = std::move(*st);
  }
  std::vector<std::optional<Value>> pv = keys_->PartitionValues(file);
  StatsView view{stats ? &*stats : nullptr, &keys_->stat_keys, &pv};
  for (const auto& c : filters_) {
    if (!AllTrue(c, view)) return false;
  }
  return true;
}

Result<std::vector<FileColumnRange>> FileColumnRanges(
    const delta::Snapshot& snap, const std::vector<std::string>& scan_columns, int column,
    const std::vector<const delta::AddFile*>& files, bool stats_skipping) {
  std::vector<FileColumnRange> out(files.size());
  if (column < 0 || static_cast<size_t>(column) >= scan_columns.size()) return out;
  const Schema& schema = snap.schema();
  const int fi = FindField(schema, scan_columns[static_cast<size_t>(column)]);
  if (fi < 0) return out;
  const Field& field = schema[static_cast<size_t>(fi)];
  const delta::ColumnMappingMode mode = snap.column_mapping_mode();
  const std::string phys = delta::PhysicalNameOrName(field, mode);
  bool is_part = false;
  for (const auto& p : snap.partition_columns()) is_part |= LowerName(p) == LowerName(field.name);
  using State = FileColumnRange::State;
  if (is_part) {
    for (size_t i = 0; i < files.size(); ++i) {
      std::optional<std::string> text;
      for (const auto& [k, val] : files[i]->partition_values) {
        if (k == phys) text = val;
      }
      Result<Value> v = delta::ParsePartitionValue(text, field.type);
      if (!v.ok()) continue;
      if (v->is_null()) {
        out[i].state = State::kNoValue;
      } else {
        out[i].state = State::kRange;
        out[i].min = out[i].max = *v;
      }
    }
    return out;
  }
  if (!stats_skipping || field.type->is_nested()) return out;
  // Only this column's statistics are parsed (the others are skipped unread).
  SILT_ASSIGN_OR_RETURN(Schema physical, delta::ToPhysicalSchema(Schema{field}, mode));
  std::vector<std::optional<Value>> no_partition(scan_columns.size());
  std::vector<std::string> keys(scan_columns.size());
  keys[static_cast<size_t>(column)] = delta::StatsPathKey({phys});
  for (size_t i = 0; i < files.size(); ++i) {
    if (!files[i]->stats) continue;
    Result<delta::FileStats> st = delta::ParseStats(*files[i]->stats, physical);
    if (!st.ok()) continue;
    ColRange r = RangeOf(column, StatsView{&*st, &keys, &no_partition});
    if (r.has_minmax) {
      out[i].state = State::kRange;
      out[i].min = std::move(r.min);
      out[i].max = std::move(r.max);
    } else if (r.rows && r.nulls && *r.nulls == *r.rows) {
      out[i].state = State::kNoValue;
    }
  }
  return out;
}

namespace {

// ORDER BY … LIMIT n with projections between the limit and the sort (the one dropping columns
// only the ORDER BY needed, or one projection pruning added): the limit moves below them, so the
// physical planner builds a top-N instead of sorting every row, and the projections run on the n
// rows kept (Spark's TakeOrderedAndProject). A projection computes each row from that row alone,
// so projecting then keeping the first n rows equals keeping them then projecting. `memo` keeps
// subtrees the binder shared (a CTE used twice) shared.
PlanPtr TopNBelowProjects(const PlanPtr& node,
                          std::unordered_map<const LogicalNode*, PlanPtr>* memo) {
  auto found = memo->find(node.get());
  if (found != memo->end()) return found->second;
  PlanPtr out = node;
  for (size_t i = 0; i < node->children.size(); ++i) {
    PlanPtr c = TopNBelowProjects(node->children[i], memo);
    if (c == node->children[i]) continue;
    if (out == node) out = Copy(node);
    out->children[i] = std::move(c);
  }
  if (out->kind == LogicalKind::kLimit && out->limit && out->children.size() == 1) {
    std::vector<PlanPtr> projects;  // top down
    PlanPtr below = out->children[0];
    while (below->kind == LogicalKind::kProject && below->children.size() == 1) {
      projects.push_back(below);
      below = below->children[0];
    }
    if (!projects.empty() && below->kind == LogicalKind::kSort) {
      PlanPtr top = Copy(out);
      top->children = {below};
      top->columns = below->columns;
      for (size_t i = projects.size(); i-- > 0;) {
        PlanPtr p = Copy(projects[i]);
        p->children = {std::move(top)};
        top = std::move(p);
      }
      out = std::move(top);
    }
  }
  memo->emplace(node.get(), out);
  return out;
}

// ------------------------------------------------------------------ semi joins into join inputs

// The columns of `semi`'s left side its keys and condition read (sorted, unique).
std::vector<int> SemiLeftColumns(const LogicalNode& semi) {
  const int nl = static_cast<int>(semi.children[0]->columns.size());
  std::vector<int> cols;
  for (const ExprPtr& k : semi.left_keys) exec::CollectColumns(*k, &cols);
  if (semi.condition) {
    std::vector<int> c;
    exec::CollectColumns(*semi.condition, &c);
    for (int i : c) {
      if (i < nl) cols.push_back(i);
    }
  }
  std::sort(cols.begin(), cols.end());
  cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
  return cols;
}

// A copy of `semi` over the left side `left`: `map` takes each old left column the semi join reads
// to its index in `left` (the right side's columns follow the new left side's).
PlanPtr SemiOver(const LogicalNode& semi, PlanPtr left, const std::function<int(int)>& map) {
  const int old_nl = static_cast<int>(semi.children[0]->columns.size());
  const int new_nl = static_cast<int>(left->columns.size());
  PlanPtr out = std::make_shared<LogicalNode>(semi);
  for (ExprPtr& k : out->left_keys) k = RemapColumns(k, map);
  if (out->condition) {
    out->condition = RemapColumns(out->condition,
                                  [&](int c) { return c < old_nl ? map(c) : c - old_nl + new_nl; });
  }
  out->columns = left->columns;
  out->children = {std::move(left), semi.children[1]};
  return out;
}

// A scan without filters, under projections only.
bool WholeTable(const LogicalNode& n) {
  if (n.kind == LogicalKind::kProject && n.children.size() == 1) return WholeTable(*n.children[0]);
  return n.kind == LogicalKind::kScan && n.pushed_filters.empty();
}

// A LEFT SEMI join (IN / EXISTS) whose keys and condition read only one input of an inner join
// below it (through projections of plain columns) moves onto that input when the input is
// estimated smaller than the join's output, or is joined to a whole table: TPC-H Q18's `o_orderkey
// IN (orders with more than 300 items)` then filters orders (1.5M rows) before they meet lineitem,
// instead of the 6M rows of the join (and the join builds on the few orders kept). A semi join only
// drops rows of its left side, so applying it to the input whose columns decide it gives the same
// rows. Returns null when the semi join stays where it is.
PlanPtr SinkSemi(const LogicalNode& semi) {
  const PlanPtr& left = semi.children[0];
  std::vector<int> used = SemiLeftColumns(semi);
  if (left->kind == LogicalKind::kProject && left->children.size() == 1) {
    for (int c : used) {
      if (left->exprs[c]->kind != ExprKind::kColumn) return nullptr;
    }
    const PlanPtr& below = left->children[0];
    PlanPtr moved = SemiOver(semi, below, [&](int c) { return left->exprs[c]->column; });
    PlanPtr sunk = SinkSemi(*moved);
    if (!sunk) return nullptr;  // only worth it when it reaches a join input
    PlanPtr p = Copy(left);
    p->children = {std::move(sunk)};
    return p;
  }
  if (left->kind != LogicalKind::kJoin ||
      (left->join != JoinKind::kInner && left->join != JoinKind::kCross) || used.empty()) {
    return nullptr;
  }
  const int na = static_cast<int>(left->children[0]->columns.size());
  int side;
  if (used.back() < na) {
    side = 0;
  } else if (used.front() >= na) {
    side = 1;
  } else {
    return nullptr;
  }
  const PlanPtr& input = left->children[static_cast<size_t>(side)];
  const LogicalNode& other = *left->children[static_cast<size_t>(1 - side)];
  const double input_rows = EstimateRows(*input);
  // The estimates take key–foreign-key joins as big as their larger input; joined to a whole
  // table (no filter), that input keeps all its rows in the join, so filtering it first costs no
  // more (Q18's orders ⋈ customer). Joined to a filtered input, the join may be far smaller than
  // the estimate (Q21's lineitem ⋈ one nation's suppliers): the semi join stays above.
  const bool smaller = input_rows < EstimateRows(*left);
  const bool joined_to_whole_table = input_rows >= EstimateRows(other) && WholeTable(other);
  if (!smaller && !joined_to_whole_table) return nullptr;
  const int shift = side == 0 ? 0 : na;
  PlanPtr moved = SemiOver(semi, input, [shift](int c) { return c - shift; });
  PlanPtr sunk = SinkSemi(*moved);
  PlanPtr j = Copy(left);
  j->children[static_cast<size_t>(side)] = sunk ? std::move(sunk) : std::move(moved);
  return j;
}

PlanPtr SinkSemiJoins(const PlanPtr& node, std::unordered_map<const LogicalNode*, PlanPtr>* memo) {
  auto found = memo->find(node.get());
  if (found != memo->end()) return found->second;
  PlanPtr out = node;
  for (size_t i = 0; i < node->children.size(); ++i) {
    PlanPtr c = SinkSemiJoins(node->children[i], memo);
    if (c == node->children[i]) continue;
    if (out == node) out = Copy(node);
    out->children[i] = std::move(c);
  }
  if (out->kind == LogicalKind::kJoin && out->join == JoinKind::kSemi && !out->null_aware_anti &&
      out->children.size() == 2 && !out->left_keys.empty() &&
      (!out->condition || Deterministic(out->condition))) {
    PlanPtr sunk = SinkSemi(*out);
    if (sunk) out = std::move(sunk);
  }
  memo->emplace(node.get(), out);
  return out;
}

}  // namespace

Result<PlanPtr> Optimize(PlanPtr plan, const OptimizerOptions& options) {
  // Constants first (planner/constant_folding.h): pushdown, pruning and estimates see literals,
  // and a constant's error is the statement's before any row is read.
  SILT_ASSIGN_OR_RETURN(plan, FoldConstants(plan, options.eval));
  // Pushdown factors ORs first (planner/or_factoring.h: Q19's common key becomes a hash key, each
  // join input gets its part of the OR as a filter).
  plan = PushFilters(plan, {});
  // Join order needs the scans' filters for its estimates; the reordered joins' conditions then
  // become hash keys in a second pushdown pass.
  SILT_ASSIGN_OR_RETURN(PlanPtr reordered, ReorderJoins(plan));
  if (reordered != plan) plan = PushFilters(reordered, {});
  {
    std::unordered_map<const LogicalNode*, PlanPtr> memo;
    plan = SinkSemiJoins(plan, &memo);
  }
  // Semi-join reduction (planner/semi_join_reduction.h) sees the pushed filters and final joins.
  plan = ReduceJoins(plan);
  plan = Prune(plan, All(plan->columns.size()));
  {
    std::unordered_map<const LogicalNode*, PlanPtr> memo;
    plan = TopNBelowProjects(plan, &memo);
  }
  Status st;
  PruneAllScans(plan.get(), options, &st);
  SILT_RETURN_NOT_OK(st);
  // Runtime filters mark joins and scans in place: a subtree the binder shared (a CTE used
  // twice) gets its own copy first.
  plan = DeepCopy(plan);
  SILT_RETURN_NOT_OK(PlanDynamicFilePruning(plan.get(), options.dfp));
  return plan;
}

}  // namespace silt::planner
