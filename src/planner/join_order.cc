#include "planner/join_order.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "delta/schema_json.h"
#include "delta/stats_json.h"
#include "exec/functions.h"
#include "planner/binder.h"
#include "planner/catalog.h"
#include "planner/optimizer.h"

namespace silt::planner {

using exec::ExprKind;
using exec::ExprPtr;

namespace {

// Rows of a scan's files before its filters (the size of the key domain it holds).
double ScanRows(const LogicalNode& n) {
  double rows = 0;
  auto add = [&](const delta::AddFile& f) {
    auto st = f.stats ? delta::StatsNumRecords(*f.stats) : std::nullopt;
    rows += st ? static_cast<double>(*st) : static_cast<double>(f.size) / 16;  // ~16 bytes a row
  };
  if (n.pruned_files) {
    for (const delta::AddFile* f : *n.pruned_files) add(*f);
  } else {
    for (const auto& f : n.snapshot->files()) add(f);
  }
  return rows;
}

// At most max − min + 1 distinct values of an integer or date column of a scan, from the
// min/max statistics of all its files (nullopt when a file has none, or there are too many
// files to read their statistics while planning). Keys like nation keys (25 values) are told
// apart from unique keys this way.
std::optional<std::pair<int64_t, int64_t>> IntegerRange(const LogicalNode& scan, size_t col);

std::optional<double> IntegerDistinctBound(const LogicalNode& scan, size_t col) {
  auto r = IntegerRange(scan, col);
  if (!r) return std::nullopt;
  return static_cast<double>(r->second) - static_cast<double>(r->first) + 1;
}

// The smallest minimum and largest maximum of an integer or date column of a scan over all its
// files' statistics (nullopt as for IntegerDistinctBound).
std::optional<std::pair<int64_t, int64_t>> IntegerRange(const LogicalNode& scan, size_t col) {
  constexpr size_t kMaxFiles = 1000;
  const delta::Snapshot& snap = *scan.snapshot;
  const auto& files = snap.files();
  if (col >= scan.scan_columns.size() || files.empty() || files.size() > kMaxFiles)
    return std::nullopt;
  const Schema& schema = snap.schema();
  int fi = FindField(schema, scan.scan_columns[col]);
  if (fi < 0) return std::nullopt;
  const Field& f = schema[static_cast<size_t>(fi)];
  switch (f.type->id()) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDate:
      break;
    default:
      return std::nullopt;
  }
  for (const auto& p : snap.partition_columns())
    if (LowerName(p) == LowerName(f.name)) return std::nullopt;
  const delta::ColumnMappingMode mode = snap.column_mapping_mode();
  Result<Schema> physical = delta::ToPhysicalSchema(schema, mode);
  if (!physical.ok()) return std::nullopt;
  const std::string key = delta::StatsPathKey({delta::PhysicalNameOrName(f, mode)});
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  for (const auto& file : files) {
    if (!file.stats) return std::nullopt;
    Result<delta::FileStats> st = delta::ParseStats(*file.stats, *physical);
    if (!st.ok()) return std::nullopt;
    const delta::ColumnStats* cs = st->Find(key);
    if (!cs || !cs->min || !cs->max || cs->min->is_null() || cs->max->is_null())
      return std::nullopt;
    lo = std::min(lo, cs->min->integer());
    hi = std::max(hi, cs->max->integer());
  }
  if (hi < lo) return std::nullopt;
  return std::make_pair(lo, hi);
}

// The fraction of a scan's rows its pushed filters keep: range conditions (col op constant, the
// constant possibly an expression such as add_months(DATE …, 3)) on an integer or date column
// from the column's min/max statistics, combined per column (Q4's three months of seven years:
// 0.04); a LIKE with a literal prefix keeps a tenth; any other filter halves the estimate.
double ScanSelectivity(const LogicalNode& scan) {
  struct Bounds {
    double lo = -std::numeric_limits<double>::infinity();
    double hi = std::numeric_limits<double>::infinity();
  };
  std::map<int, Bounds> ranges;
  double sel = 1;
  for (const ExprPtr& f : scan.pushed_filters) {
    bool used = false;
    if (f->kind == ExprKind::kCall && f->children.size() == 2) {
      std::string op = f->name;
      ExprPtr col = f->children[0], lit = f->children[1];
      if (col->kind != ExprKind::kColumn) {
        std::swap(col, lit);
        op = SwappedComparison(op);
      }
      const bool range_op =
          op == "<" || op == "<=" || op == ">" || op == ">=" || op == "=" || op == "==";
      if (range_op && col->kind == ExprKind::kColumn && exec::IsConstantExpr(*lit) &&
          col->type->id() == lit->type->id() &&
          (col->type->id() == TypeId::kDate || col->type->id() == TypeId::kInt32 ||
           col->type->id() == TypeId::kInt64 || col->type->id() == TypeId::kInt16 ||
           col->type->id() == TypeId::kInt8)) {
        Result<Value> v = exec::EvaluateConstant(*lit, exec::EvalContext{});
        if (v.ok() && !v->is_null()) {
          const double x = static_cast<double>(v->integer());
          Bounds& b = ranges[col->column];
          if (op == "<") b.hi = std::min(b.hi, x - 1);
          if (op == "<=" || op == "=" || op == "==") b.hi = std::min(b.hi, x);
          if (op == ">") b.lo = std::max(b.lo, x + 1);
          if (op == ">=" || op == "=" || op == "==") b.lo = std::max(b.lo, x);
          used = true;
        }
      }
    }
    if (!used && f->kind == ExprKind::kCall && f->name == "like" && f->children.size() == 2 &&
        f->children[1]->kind == ExprKind::kConstant && !f->children[1]->constant.is_null() &&
        f->children[1]->type->id() == TypeId::kString) {
      // A pattern with a literal prefix ('forest%') keeps a narrow band of values.
      const std::string& pattern = f->children[1]->constant.str();
      if (!pattern.empty() && pattern[0] != '%' && pattern[0] != '_') {
        sel *= 0.1;
        used = true;
      } else {
        // A pattern holding a literal word ('%green%', '%BRASS') keeps a fifth.
        size_t run = 0, longest = 0;
        for (char ch : pattern) {
          run = ch == '%' || ch == '_' || ch == '\\' ? 0 : run + 1;
          longest = std::max(longest, run);
        }
        if (longest >= 3) {
          sel *= 0.2;
          used = true;
        }
      }
    }
    if (!used) sel *= 0.5;
  }
  for (const auto& [c, b] : ranges) {
    auto r = IntegerRange(scan, static_cast<size_t>(c));
    if (!r) {
      sel *= 0.5;
      continue;
    }
    const double lo = std::max(b.lo, static_cast<double>(r->first));
    const double hi = std::min(b.hi, static_cast<double>(r->second));
    const double width = static_cast<double>(r->second) - static_cast<double>(r->first) + 1;
    sel *= std::clamp((hi - lo + 1) / width, 1 / width, 1.0);
  }
  return sel;
}

// The values a column of a plan's output is drawn from, traced down to the scan column it reads
// (through filters, projections of a column, joins, group keys): the scan's distinct values
// (its rows before filters, or fewer when the min/max statistics bound an integer column's
// range) and the scan's rows (a column with as many values as rows is a key). Filters below do
// not shrink the domain: a filtered dimension holds fewer of its key's values, not other ones.
struct Domain {
  double values;
  double table_rows;
  bool key() const { return values >= table_rows; }
};

std::optional<Domain> ColumnDomain(const LogicalNode& n, size_t col) {
  switch (n.kind) {
    case LogicalKind::kScan: {
      if (col >= n.columns.size()) return std::nullopt;
      const double rows = ScanRows(n);
      auto bound = IntegerDistinctBound(n, col);
      return Domain{bound ? std::min(rows, *bound) : rows, rows};
    }
    case LogicalKind::kFilter:
    case LogicalKind::kSort:
    case LogicalKind::kLimit:
      return ColumnDomain(*n.children[0], col);
    case LogicalKind::kProject:
      if (col >= n.exprs.size() || n.exprs[col]->kind != ExprKind::kColumn) return std::nullopt;
      return ColumnDomain(*n.children[0], static_cast<size_t>(n.exprs[col]->column));
    case LogicalKind::kAggregate:
      if (col >= n.group_keys.size() || n.group_keys[col]->kind != ExprKind::kColumn)
        return std::nullopt;
      return ColumnDomain(*n.children[0], static_cast<size_t>(n.group_keys[col]->column));
    case LogicalKind::kJoin: {
      const size_t lw = n.children[0]->columns.size();
      if (col < lw) return ColumnDomain(*n.children[0], col);
      if (n.join == JoinKind::kSemi || n.join == JoinKind::kAnti) return std::nullopt;
      return ColumnDomain(*n.children[1], col - lw);
    }
    default:
      return std::nullopt;
  }
}

// The values both columns of a join equality are drawn from: the larger domain of the two,
// except that when one is a key the other (a foreign key: l_orderkey, whose range bound is no
// tighter than lineitem's rows) is taken to hold only its values, so the key's domain is used.
double JoinDomain(const Domain& x, const Domain& y) {
  const double d = x.key() || y.key() ? std::min(x.values, y.values) : std::max(x.values, y.values);
  return std::max(d, 1.0);
}

// The domain of an equi-join's keys (the smallest over its key pairs: the most selective one),
// from its hash keys or, before they are extracted, from its condition's column equalities;
// nullopt when no pair traces to scan columns.
std::optional<double> JoinKeyDomain(const LogicalNode& n) {
  std::optional<double> best;
  auto pair = [&](const LogicalNode& l, size_t lc, const LogicalNode& r, size_t rc) {
    auto x = ColumnDomain(l, lc), y = ColumnDomain(r, rc);
    if (!x || !y) return;
    const double d = JoinDomain(*x, *y);
    best = best ? std::min(*best, d) : d;
  };
  const LogicalNode &l = *n.children[0], &r = *n.children[1];
  for (size_t k = 0; k < n.left_keys.size() && k < n.right_keys.size(); ++k) {
    if (n.left_keys[k]->kind == ExprKind::kColumn && n.right_keys[k]->kind == ExprKind::kColumn)
      pair(l, static_cast<size_t>(n.left_keys[k]->column), r,
           static_cast<size_t>(n.right_keys[k]->column));
  }
  if (n.condition) {
    const int lw = static_cast<int>(l.columns.size());
    std::vector<ExprPtr> cs;
    Conjuncts(n.condition, &cs);
    for (const ExprPtr& c : cs) {
      if (c->kind != ExprKind::kCall || (c->name != "=" && c->name != "<=>") ||
          c->children.size() != 2 || c->children[0]->kind != ExprKind::kColumn ||
          c->children[1]->kind != ExprKind::kColumn)
        continue;
      int a = c->children[0]->column, b = c->children[1]->column;
      if (a > b) std::swap(a, b);
      if (a < lw && b >= lw) pair(l, static_cast<size_t>(a), r, static_cast<size_t>(b - lw));
    }
  }
  return best;
}

}  // namespace

double EstimateRows(const LogicalNode& n) {
  switch (n.kind) {
    case LogicalKind::kScan:
      return ScanRows(n) * ScanSelectivity(n);
    case LogicalKind::kValues: {
      if (n.is_range) return static_cast<double>(n.range_count);
      // EXPLAIN's placeholder of a materialized CTE: as its plan.
      if (!n.children.empty()) return EstimateRows(*n.children[0]);
      double rows = 0;
      for (const DataChunk& c : n.rows) rows += static_cast<double>(c.size());
      return rows;
    }
    case LogicalKind::kFilter:
      return 0.5 * EstimateRows(*n.children[0]);
    case LogicalKind::kAggregate:
      return n.group_keys.empty() ? 1 : 0.5 * EstimateRows(*n.children[0]);
    case LogicalKind::kLimit: {
      double below = EstimateRows(*n.children[0]);
      return n.limit ? std::min(below, static_cast<double>(*n.limit)) : below;
    }
    case LogicalKind::kJoin: {
      const double l = EstimateRows(*n.children[0]);
      if (n.join == JoinKind::kAnti) return l;
      const double r = EstimateRows(*n.children[1]);
      const std::optional<double> domain =
          n.join == JoinKind::kCross ? std::nullopt : JoinKeyDomain(n);
      if (n.join == JoinKind::kSemi) return domain ? l * std::min(1.0, r / *domain) : l;
      if (n.join == JoinKind::kCross) return l * r;
      // Uniform keys over their domain: each left row meets r / domain right rows (a fact table
      // joined to a filtered dimension keeps the dimension's fraction of its keys). Without a
      // traceable key: as a key–foreign-key join (the larger side).
      double rows = domain ? l * r / *domain : std::max(l, r);
      if (n.join == JoinKind::kLeft || n.join == JoinKind::kFull) rows = std::max(rows, l);
      if (n.join == JoinKind::kRight || n.join == JoinKind::kFull) rows = std::max(rows, r);
      return std::max(rows, 1.0);
    }
    default:
      return n.children.empty() ? 1 : EstimateRows(*n.children[0]);
  }
}

bool SemiJoinBuildsOnLeft(const LogicalNode& n) {
  if (n.kind != LogicalKind::kJoin || (n.join != JoinKind::kSemi && n.join != JoinKind::kAnti) ||
      n.left_keys.empty() || n.null_aware_anti || n.children.size() != 2)
    return false;
  return EstimateRows(*n.children[1]) > 2 * EstimateRows(*n.children[0]);
}

namespace {

bool IsChainJoin(const LogicalNode& n) {
  return n.kind == LogicalKind::kJoin &&
         (n.join == JoinKind::kInner || n.join == JoinKind::kCross) && !n.null_aware_anti;
}

std::vector<int> Cols(const ExprPtr& e) {
  std::vector<int> c;
  if (e) exec::CollectColumns(*e, &c);
  return c;
}

ExprPtr Shift(const ExprPtr& e, int by) {
  return by == 0 ? e : RemapColumns(e, [by](int c) { return c + by; });
}

// A chain of inner/cross joins flattened: its inputs (leaves), each at a column offset of the
// chain's output, and every condition as a conjunct over that output.
struct Chain {
  std::vector<PlanPtr> leaves;
  std::vector<int> offsets;
  std::vector<ExprPtr> conjuncts;
  bool deterministic = true;
};

Status Flatten(const PlanPtr& n, int offset, Chain* chain) {
  if (!IsChainJoin(*n)) {
    chain->leaves.push_back(n);
    chain->offsets.push_back(offset);
    return Status::OK();
  }
  const int lw = static_cast<int>(n->children[0]->columns.size());
  SILT_RETURN_NOT_OK(Flatten(n->children[0], offset, chain));
  SILT_RETURN_NOT_OK(Flatten(n->children[1], offset + lw, chain));
  for (size_t k = 0; k < n->left_keys.size(); ++k) {
    const bool null_safe = k < n->null_safe.size() && n->null_safe[k];
    SILT_ASSIGN_OR_RETURN(
        ExprPtr eq, exec::BindScalarFunction(
                        null_safe ? "<=>" : "=",
                        {Shift(n->left_keys[k], offset), Shift(n->right_keys[k], offset + lw)},
                        exec::BindContext{}));
    chain->conjuncts.push_back(std::move(eq));
  }
  if (n->condition) {
    std::vector<ExprPtr> cs;
    Conjuncts(n->condition, &cs);
    for (const ExprPtr& c : cs) {
      chain->deterministic &= Deterministic(c);
      chain->conjuncts.push_back(Shift(c, offset));
    }
  }
  return Status::OK();
}

// One input of the greedy order: a plan and, per output column, its column in the chain.
struct Component {
  PlanPtr plan;
  std::vector<int> globals;
  double rows;
};

// Adds the equalities between columns of different leaves that the chain's column equalities
// imply (c_nationkey = s_nationkey and s_nationkey = n_nationkey give c_nationkey =
// n_nationkey), so inputs linked only through a third one can meet first (TPC-H Q5's customers
// with the region's nations). Redundant for the result: every original conjunct still applies.
Status AddImpliedEqualities(const PlanPtr& root, const std::vector<int>& leaf_of, Chain* chain) {
  const size_t total = root->columns.size();
  std::vector<int> parent(total);
  for (size_t g = 0; g < total; ++g) parent[g] = static_cast<int>(g);
  std::function<int(int)> find = [&](int g) {
    while (parent[static_cast<size_t>(g)] != g) g = parent[static_cast<size_t>(g)];
    return g;
  };
  std::set<std::pair<int, int>> direct;
  for (const ExprPtr& c : chain->conjuncts) {
    if (c->kind != ExprKind::kCall || c->name != "=" || c->children.size() != 2) continue;
    const ExprPtr &x = c->children[0], &y = c->children[1];
    if (x->kind != ExprKind::kColumn || y->kind != ExprKind::kColumn || !x->type || !y->type ||
        !x->type->Equals(*y->type))
      continue;
    direct.insert({std::min(x->column, y->column), std::max(x->column, y->column)});
    parent[static_cast<size_t>(find(x->column))] = find(y->column);
  }
  std::map<int, std::vector<int>> classes;
  for (const auto& [a, b] : direct) {
    for (int g : {a, b}) {
      auto& members = classes[find(g)];
      if (std::find(members.begin(), members.end(), g) == members.end()) members.push_back(g);
    }
  }
  for (auto& [rep, members] : classes) {
    if (members.size() < 3) continue;
    std::sort(members.begin(), members.end());
    for (size_t i = 0; i < members.size(); ++i) {
      for (size_t j = i + 1; j < members.size(); ++j) {
        const int a = members[i], b = members[j];
        if (direct.count({a, b}) ||
            leaf_of[static_cast<size_t>(a)] == leaf_of[static_cast<size_t>(b)])
          continue;
        const OutputColumn& ca = root->columns[static_cast<size_t>(a)];
        const OutputColumn& cb = root->columns[static_cast<size_t>(b)];
        SILT_ASSIGN_OR_RETURN(ExprPtr eq, exec::BindScalarFunction(
                                              "=",
                                              {exec::MakeColumn(a, ca.type, ca.name, ca.nullable),
                                               exec::MakeColumn(b, cb.type, cb.name, cb.nullable)},
                                              exec::BindContext{}));
        chain->conjuncts.push_back(std::move(eq));
      }
    }
  }
  return Status::OK();
}

Result<PlanPtr> ReorderChain(const PlanPtr& root, Chain chain) {
  const size_t total = root->columns.size();
  std::vector<int> leaf_of(total, 0);
  std::vector<double> leaf_rows(chain.leaves.size());  // estimated: a column not traced to a scan
  for (size_t i = 0; i < chain.leaves.size(); ++i) {
    for (size_t k = 0; k < chain.leaves[i]->columns.size(); ++k)
      leaf_of[static_cast<size_t>(chain.offsets[i]) + k] = static_cast<int>(i);
  }
  SILT_RETURN_NOT_OK(AddImpliedEqualities(root, leaf_of, &chain));
  std::vector<Component> comps;
  for (size_t i = 0; i < chain.leaves.size(); ++i) {
    const LogicalNode& leaf = *chain.leaves[i];
    Component c{chain.leaves[i], {}, EstimateRows(leaf)};
    for (size_t k = 0; k < leaf.columns.size(); ++k) {
      const int g = chain.offsets[i] + static_cast<int>(k);
      c.globals.push_back(g);
      leaf_of[static_cast<size_t>(g)] = static_cast<int>(i);
    }
    leaf_rows[i] = c.rows;
    comps.push_back(std::move(c));
  }
  // The domain of a chain column (computed on first use): traced to its scan column, else the
  // leaf's estimated rows, taken as a key.
  std::vector<std::optional<Domain>> domains(total);
  auto domain = [&](int g) {
    std::optional<Domain>& d = domains[static_cast<size_t>(g)];
    if (d) return *d;
    const size_t leaf = static_cast<size_t>(leaf_of[static_cast<size_t>(g)]);
    d = ColumnDomain(*chain.leaves[leaf], static_cast<size_t>(g - chain.offsets[leaf]));
    if (!d) d = Domain{leaf_rows[leaf], leaf_rows[leaf]};
    return *d;
  };
  std::vector<std::vector<int>> conj_cols;
  for (const ExprPtr& c : chain.conjuncts) conj_cols.push_back(Cols(c));
  std::vector<bool> applied(chain.conjuncts.size(), false);

  auto contains = [](const Component& c, int g) {
    return std::find(c.globals.begin(), c.globals.end(), g) != c.globals.end();
  };
  // The conjuncts that joining a and b applies: all their columns in a ∪ b.
  auto applicable = [&](const Component& a, const Component& b) {
    std::vector<size_t> out;
    for (size_t k = 0; k < conj_cols.size(); ++k) {
      if (applied[k]) continue;
      bool all = true;
      for (int g : conj_cols[k]) all &= contains(a, g) || contains(b, g);
      if (all) out.push_back(k);
    }
    return out;
  };
  // Selectivity of an equality between a column of a and one of b (−1 when there is none):
  // 1 / the number of distinct values meeting in the join (1 for a key of one value: a
  // one-row dimension).
  auto selectivity = [&](const Component& a, const Component& b, const std::vector<size_t>& conj) {
    double best = -1;
    for (size_t k : conj) {
      const ExprPtr& c = chain.conjuncts[k];
      if (c->kind != ExprKind::kCall || (c->name != "=" && c->name != "<=>") ||
          c->children.size() != 2)
        continue;
      auto x = Cols(c->children[0]), y = Cols(c->children[1]);
      if (x.empty() || y.empty()) continue;
      const bool crosses =
          (contains(a, x[0]) && contains(b, y[0])) || (contains(b, x[0]) && contains(a, y[0]));
      if (!crosses) continue;
      const double sel = 1 / JoinDomain(domain(x[0]), domain(y[0]));
      best = best < 0 ? sel : std::min(best, sel);
    }
    return best;
  };

  // Columns the joined rows hold equal so far (union–find over the chain's columns).
  std::vector<int> equal_parent(total);
  for (size_t g = 0; g < total; ++g) equal_parent[g] = static_cast<int>(g);
  auto equal_find = [&](int g) {
    while (equal_parent[static_cast<size_t>(g)] != g) g = equal_parent[static_cast<size_t>(g)];
    return g;
  };

  while (comps.size() > 1) {
    size_t bi = 0, bj = 1;
    double best = std::numeric_limits<double>::infinity();
    bool connected = false;
    for (size_t i = 0; i < comps.size(); ++i) {
      for (size_t j = i + 1; j < comps.size(); ++j) {
        double sel = selectivity(comps[i], comps[j], applicable(comps[i], comps[j]));
        if (sel < 0) continue;
        double est = comps[i].rows * comps[j].rows * sel;
        if (est < best) {
          best = est;
          bi = i;
          bj = j;
          connected = true;
        }
      }
    }
    if (!connected) {
      // No equality joins what is left: cross (or theta) joins, smallest inputs first.
      std::vector<size_t> order(comps.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::sort(order.begin(), order.end(),
                [&](size_t x, size_t y) { return comps[x].rows < comps[y].rows; });
      bi = std::min(order[0], order[1]);
      bj = std::max(order[0], order[1]);
      best = comps[bi].rows * comps[bj].rows;
    }
    // The larger input probes, the smaller one is built (the physical planner may still swap).
    Component& a = comps[bi].rows >= comps[bj].rows ? comps[bi] : comps[bj];
    Component& b = &a == &comps[bi] ? comps[bj] : comps[bi];
    std::vector<size_t> conj = applicable(a, b);
    Component merged;
    merged.globals = a.globals;
    merged.globals.insert(merged.globals.end(), b.globals.begin(), b.globals.end());
    std::vector<int> local(total, -1);
    for (size_t p = 0; p < merged.globals.size(); ++p)
      local[static_cast<size_t>(merged.globals[p])] = static_cast<int>(p);
    auto join = std::make_shared<LogicalNode>();
    join->kind = LogicalKind::kJoin;
    join->children = {a.plan, b.plan};
    join->columns = a.plan->columns;
    join->columns.insert(join->columns.end(), b.plan->columns.begin(), b.plan->columns.end());
    ExprPtr cond;
    for (size_t k : conj) {
      applied[k] = true;
      // A column equality whose two columns the rows below already hold equal (through the
      // equalities applied so far, the implied ones included) is left out: Q9's lineitem meets
      // partsupp, part and supplier on two keys, not four.
      const ExprPtr& e = chain.conjuncts[k];
      if (e->kind == ExprKind::kCall && e->name == "=" && e->children.size() == 2 &&
          e->children[0]->kind == ExprKind::kColumn && e->children[1]->kind == ExprKind::kColumn) {
        const int x = equal_find(e->children[0]->column), y = equal_find(e->children[1]->column);
        if (x == y) continue;
        equal_parent[static_cast<size_t>(x)] = y;
      }
      ExprPtr c = RemapColumns(e, [&](int g) { return local[static_cast<size_t>(g)]; });
      cond = cond ? exec::MakeSpecial(ExprKind::kAnd, DataType::Boolean(), {cond, c}) : c;
    }
    join->join = cond ? JoinKind::kInner : JoinKind::kCross;
    join->condition = cond;
    merged.plan = join;
    merged.rows = std::max(best, 1.0);
    comps.erase(comps.begin() + static_cast<std::ptrdiff_t>(bj));
    comps[bi] = std::move(merged);
  }
  // The chain's columns in their original order.
  const Component& all = comps[0];
  std::vector<int> local(total, -1);
  for (size_t p = 0; p < all.globals.size(); ++p)
    local[static_cast<size_t>(all.globals[p])] = static_cast<int>(p);
  std::vector<ExprPtr> exprs;
  std::vector<std::string> names;
  for (size_t g = 0; g < total; ++g) {
    const OutputColumn& col = root->columns[g];
    exprs.push_back(exec::MakeColumn(local[g], col.type, col.name, col.nullable));
    names.push_back(col.name);
  }
  PlanPtr out = MakeProject(all.plan, std::move(exprs), std::move(names));
  out->columns = root->columns;
  return out;
}

}  // namespace

Result<PlanPtr> ReorderJoins(const PlanPtr& plan) {
  if (IsChainJoin(*plan)) {
    Chain chain;
    SILT_RETURN_NOT_OK(Flatten(plan, 0, &chain));
    if (chain.leaves.size() >= 3 && chain.deterministic) {
      for (PlanPtr& leaf : chain.leaves) {
        SILT_ASSIGN_OR_RETURN(leaf, ReorderJoins(leaf));
      }
      return ReorderChain(plan, std::move(chain));
    }
  }
  PlanPtr out = plan;
  for (size_t i = 0; i < plan->children.size(); ++i) {
    SILT_ASSIGN_OR_RETURN(PlanPtr c, ReorderJoins(plan->children[i]));
    if (c == plan->children[i]) continue;
    if (out == plan) out = std::make_shared<LogicalNode>(*plan);
    out->children[i] = std::move(c);
  }
  return out;
}

}  // namespace silt::planner
