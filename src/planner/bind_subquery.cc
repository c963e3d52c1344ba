// Binding subqueries: scalar (uncorrelated and decorrelated), EXISTS / IN as values and as
// semi/anti joins.
#include <unordered_map>

#include "common/error_classes.h"
#include "exec/cast.h"
#include "exec/join_keys.h"
#include "planner/binder_impl.h"

namespace silt::planner {

// Uncorrelated scalar subquery: run once, becomes a constant. Correlated (equality-correlated
// aggregate, as TPC-H Q17/Q2 use): decorrelated into a left join onto the input plan.
Result<ExprPtr> Binder::Impl::BindScalarSubquery(const ParsedExpr& e, ExprScope& s) {
  Result<PlanPtr> plan = self->BindQuery(*e.subquery);
  if (plan.ok()) {
    if ((*plan)->columns.size() != 1) {
      return Status::InvalidArgument(
          "Scalar subquery must return only one column, "
          "but got " +
              std::to_string((*plan)->columns.size()) + ".",
          errc::kScalarSubqueryTooManyColumns);
    }
    if (!ctx().execute) return Status::Internal("no executor for subqueries");
    SILT_ASSIGN_OR_RETURN(std::vector<DataChunk> chunks, ctx().execute(*plan));
    size_t rows = 0;
    Value v = Value::Null((*plan)->columns[0].type);
    for (const auto& c : chunks) {
      if (c.size() && rows == 0) v = c.columns[0].GetValue(0);
      rows += c.size();
    }
    if (rows > 1) {
      return Status::InvalidArgument(
          "More than one row returned by a subquery used as "
          "an expression.",
          errc::kScalarSubqueryTooManyRows);
    }
    auto c = exec::MakeConstant(v);
    return c;
  }
  if (plan.status().error_class().rfind(errc::kUnresolvedColumn, 0) != 0) return plan.status();
  if (s.plan && *s.plan && !s.agg) {
    // The decorrelation into an aggregate left-joined onto the input (TPC-H's Q2, Q17).
    Result<ExprPtr> joined = BindCorrelatedScalar(e, s);
    if (joined.ok()) return joined;
  }
  SILT_ASSIGN_OR_RETURN(std::optional<ExprPtr> by_values, SubqueryByOuterValues(e, s));
  if (by_values) return *by_values;
  return plan.status();
}

Result<ExprPtr> Binder::Impl::BindCorrelatedScalar(const ParsedExpr& e, ExprScope& s) {
  const sql::Query& q = *e.subquery;
  if (q.set_op != sql::SetOp::kNone || q.select.size() != 1 || !q.group_by.empty() ||
      q.from.empty() || q.having || q.limit || q.offset || !q.ctes.empty() ||
      !q.lateral_views.empty() || q.group_by_all || !q.grouping_sets.empty() || q.qualify) {
    return Status::NotImplemented(
        "correlated scalar subqueries are supported as a single aggregate over FROM … WHERE "
        "with equality correlation",
        errc::kSiltUnsupportedSubquery);
  }
  SILT_ASSIGN_OR_RETURN(auto corr, BindCorrelatedFrom(q, *s.columns));
  if (!corr.residual.empty()) {
    // A correlated conjunct other than outer = inner (t.a < u.b, t.s || u.s): it would be
    // dropped by the keyed join below, a wrong answer.
    return Status::NotImplemented(
        "correlated scalar subqueries are supported with equality correlation only (outer = inner "
        "conjuncts)",
        errc::kSiltUnsupportedSubquery);
  }
  // corr.plan: inner FROM filtered by inner-only conjuncts; corr.inner_keys/outer_keys.
  std::vector<OutputColumn> inner_cols = corr.plan->columns;
  AggState agg;
  agg.input = &inner_cols;
  agg.group_exprs = corr.inner_keys;
  for (auto& g : agg.group_exprs)
    agg.group_texts.push_back("\x01" + g->ToString());  // never matches user text
  ExprScope as;
  as.agg = &agg;
  as.columns = &inner_cols;
  if (!ContainsAggregate(*q.select[0].expr)) {
    return Status::NotImplemented(
        "correlated scalar subqueries must aggregate (e.g. SELECT max(x) …)",
        errc::kSiltUnsupportedSubquery);
  }
  SILT_ASSIGN_OR_RETURN(ExprPtr value, Bind(*q.select[0].expr, as));
  auto agg_node = std::make_shared<LogicalNode>();
  agg_node->kind = LogicalKind::kAggregate;
  agg_node->children = {corr.plan};
  agg_node->group_keys = agg.group_exprs;
  agg_node->aggregates = agg.calls;
  for (size_t i = 0; i < agg.group_exprs.size(); ++i)
    agg_node->columns.push_back({"k" + std::to_string(i), agg.group_exprs[i]->type, true, ""});
  for (const auto& c : agg.calls)
    agg_node->columns.push_back({c.name, c.bound.function->result_type(), true, ""});
  std::vector<ExprPtr> proj;
  std::vector<std::string> names;
  for (size_t i = 0; i < agg.group_exprs.size(); ++i) {
    proj.push_back(exec::MakeColumn(static_cast<int>(i), agg.group_exprs[i]->type, "k"));
    names.push_back("__k" + std::to_string(i));
  }
  proj.push_back(value);
  names.push_back("__scalar");
  PlanPtr inner = MakeProject(agg_node, proj, names);
  // An outer row without a matching group gets the value over no rows, which is not always
  // NULL (Spark's "count bug": count(*) is 0, count(*) IS NULL false, coalesce(sum(x), 0) 0): it
  // is computed once, from the aggregate over an empty input.
  auto none = std::make_shared<LogicalNode>();
  none->kind = LogicalKind::kValues;
  none->columns = inner_cols;
  auto empty_agg = std::make_shared<LogicalNode>();
  empty_agg->kind = LogicalKind::kAggregate;
  empty_agg->children = {none};
  empty_agg->aggregates = agg.calls;
  for (const auto& c : agg.calls)
    empty_agg->columns.push_back({c.name, c.bound.function->result_type(), true, ""});
  const int nk = static_cast<int>(agg.group_exprs.size());
  if (nk == 0 || !ReadsOnly(value, nk, 1 << 30)) {
    // No correlation key, or a value reading the key itself: left to SubqueryByOuterValues.
    return Status::NotImplemented("correlated scalar subquery of this shape",
                                  errc::kSiltUnsupportedSubquery);
  }
  ExprPtr on_empty = RemapColumns(value, [nk](int c) { return c - nk; });
  if (!ctx().execute) return Status::Internal("no executor for subqueries");
  SILT_ASSIGN_OR_RETURN(std::vector<DataChunk> empty_rows,
                        ctx().execute(MakeProject(empty_agg, {on_empty}, {"__empty"})));
  Value empty_value = Value::Null(value->type);
  for (const auto& c : empty_rows) {
    if (c.size()) empty_value = c.columns[0].GetValue(0);
  }
  PlanPtr left = *s.plan;
  int left_width = static_cast<int>(left->columns.size());
  auto join = std::make_shared<LogicalNode>();
  join->kind = LogicalKind::kJoin;
  join->join = JoinKind::kLeft;
  join->children = {left, inner};
  join->left_keys = corr.outer_keys;
  for (size_t i = 0; i < corr.inner_keys.size(); ++i) {
    join->right_keys.push_back(
        exec::MakeColumn(static_cast<int>(i), corr.inner_keys[i]->type, "k"));
    join->null_safe.push_back(false);
  }
  join->columns = left->columns;
  for (auto c : inner->columns) {
    c.nullable = true;
    join->columns.push_back(c);
  }
  *s.plan = join;
  *s.columns = join->columns;
  ExprPtr ref = exec::MakeColumn(left_width + static_cast<int>(corr.inner_keys.size()), value->type,
                                 "scalarsubquery()");
  if (empty_value.is_null()) return ref;
  ExprPtr matched =
      exec::MakeSpecial(ExprKind::kIsNotNull, DataType::Boolean(),
                        {exec::MakeColumn(left_width, agg.group_exprs[0]->type, "__k0", true)});
  SILT_ASSIGN_OR_RETURN(ExprPtr fallback,
                        exec::CoerceTo(exec::MakeConstant(empty_value), value->type, ctx().bind));
  return exec::MakeSpecial(ExprKind::kCase, value->type, {matched, ref, fallback}, true);
}

// EXISTS / IN (subquery) used as a value (not a top-level WHERE conjunct): uncorrelated only.
Result<ExprPtr> Binder::Impl::BindPredicateSubqueryAsValue(const ParsedExpr& e, ExprScope& s) {
  Result<PlanPtr> standalone = self->BindQuery(*e.subquery);
  if (!standalone.ok() && e.type == ExprType::kExists && s.columns) {
    // Correlated `[NOT] EXISTS (SELECT … FROM … WHERE inner.k = outer.col [AND inner-only …])`
    // outside a SELECT's WHERE (DML predicates): `outer.col IN (inner keys) AND outer.col IS NOT
    // NULL`, exactly EXISTS's TRUE/FALSE (NULL inner keys never match and are left out).
    SILT_ASSIGN_OR_RETURN(std::optional<ExprPtr> rewritten, CorrelatedExistsAsIn(e, s));
    if (rewritten) return *rewritten;
    SILT_ASSIGN_OR_RETURN(rewritten, CorrelatedExistsAsJoin(e, s));
    if (rewritten) return *rewritten;
  }
  if (!standalone.ok() && e.type == ExprType::kInSubquery && s.columns) {
    // Correlated `x [NOT] IN (SELECT y FROM … WHERE …)` as a value: the same existence join,
    // with IN's three-valued answer.
    SILT_ASSIGN_OR_RETURN(std::optional<ExprPtr> rewritten, CorrelatedExistsAsJoin(e, s));
    if (rewritten) return *rewritten;
  }
  if (!standalone.ok() &&
      standalone.status().error_class().rfind(errc::kUnresolvedColumn, 0) == 0) {
    SILT_ASSIGN_OR_RETURN(std::optional<ExprPtr> by_values, SubqueryByOuterValues(e, s));
    if (by_values) return *by_values;
  }
  if (!standalone.ok()) return standalone.status();
  PlanPtr plan = *standalone;
  if (!ctx().execute) return Status::Internal("no executor for subqueries");
  SILT_ASSIGN_OR_RETURN(std::vector<DataChunk> chunks, ctx().execute(plan));
  if (e.type == ExprType::kExists) {
    size_t rows = 0;
    for (const auto& c : chunks) rows += c.size();
    return exec::MakeConstant(Value::Boolean((rows > 0) != e.negated));
  }
  // value IN (v1, v2, ...) over the subquery's rows.
  SILT_ASSIGN_OR_RETURN(ExprPtr v, Bind(*e.children[0], s));
  if (plan->columns.size() != 1) {
    // (a, b) IN (SELECT c, d …)
    SILT_ASSIGN_OR_RETURN(std::optional<ExprPtr> by_values, SubqueryByOuterValues(e, s));
    if (by_values) return *by_values;
    return Status::InvalidArgument(
        "The number of columns in the "
        "left hand side of an IN subquery does not match the number of columns in the output of "
        "subquery.",
        errc::kDatatypeMismatchInSubqueryLengthMismatch);
  }
  SILT_ASSIGN_OR_RETURN(TypePtr common, exec::CommonType(v->type, plan->columns[0].type));
  std::vector<ExprPtr> items;
  SILT_ASSIGN_OR_RETURN(ExprPtr vv, exec::CoerceTo(v, common, ctx().bind));
  items.push_back(vv);
  for (const auto& c : chunks) {
    for (size_t i = 0; i < c.size(); ++i) {
      SILT_ASSIGN_OR_RETURN(ExprPtr it, exec::CoerceTo(exec::MakeConstant(c.columns[0].GetValue(i)),
                                                       common, ctx().bind));
      items.push_back(it);
    }
  }
  if (items.size() == 1) {
    // An empty subquery: IN is false and NOT IN true, even for a NULL value; Spark 3's
    // spark.sql.legacy.nullInEmptyListBehavior=true answers NULL for a NULL value.
    if (ctx().config && ctx().config->GetBool("spark.sql.legacy.nullInEmptyListBehavior", false)) {
      return exec::MakeSpecial(ExprKind::kCase, DataType::Boolean(),
                               {exec::MakeSpecial(ExprKind::kIsNull, DataType::Boolean(), {vv}),
                                exec::MakeConstant(Value::Null(DataType::Boolean())),
                                exec::MakeConstant(Value::Boolean(e.negated))},
                               true);
    }
    return exec::MakeConstant(Value::Boolean(e.negated));
  }
  auto marked = std::make_shared<exec::Expr>(
      *exec::MakeSpecial(ExprKind::kIn, DataType::Boolean(), std::move(items)));
  // Marks the list as an IN subquery's values (DML: a runtime filter, governed by
  // spark.databricks.optimizer.dynamicFilePruning; see commands/command.cc).
  marked->name = kInSubqueryValues;
  ExprPtr in = std::move(marked);
  if (!e.negated) return in;
  return exec::BindScalarFunction("not", {in}, ctx().bind);
}

namespace {

// The rows of a key chunk by the hash of their keys.
using KeyIndex = std::unordered_multimap<uint64_t, uint32_t>;
std::shared_ptr<const KeyIndex> IndexKeys(const DataChunk& keys) {
  auto index = std::make_shared<KeyIndex>();
  std::vector<const Vector*> kv;
  for (const Vector& v : keys.columns) kv.push_back(&v);
  std::vector<uint64_t> h(keys.size());
  if (!h.empty()) exec::HashKeyColumns(kv, 0, h.size(), h.data());
  for (size_t r = 0; r < h.size(); ++r) index->emplace(h[r], static_cast<uint32_t>(r));
  return index;
}

// A kernel's key arguments as columns of `rows` rows (a constant argument becomes a full column:
// the probe reads row r of each), with each row's hash.
struct ProbeKeys {
  ProbeKeys(std::span<const exec::Arg> args, size_t rows) : hashes(rows) {
    storage.reserve(args.size());
    for (const exec::Arg& a : args) {
      if (!a.constant) {
        columns.push_back(a.vector);
        continue;
      }
      storage.emplace_back(a.vector->type());
      for (size_t r = 0; r < rows; ++r) storage.back().AppendRange(*a.vector, 0, 1);
      columns.push_back(&storage.back());
    }
    if (rows) exec::HashKeyColumns(columns, 0, rows, hashes.data());
  }
  std::vector<Vector> storage;
  std::vector<const Vector*> columns;
  std::vector<uint64_t> hashes;
};

// `(k1, …, kn) IN (rows of `keys`)`, exactly, as a BOOLEAN that is never NULL: FALSE when a key
// is NULL (the rows of `keys` hold no NULL). The key columns' types are those of `keys`.
ExprPtr TupleInSet(std::vector<ExprPtr> columns, std::shared_ptr<const DataChunk> keys) {
  std::shared_ptr<const KeyIndex> index = IndexKeys(*keys);
  auto e = std::make_shared<exec::Expr>();
  e->kind = ExprKind::kCall;
  e->type = DataType::Boolean();
  e->nullable = false;
  e->name = "exists_tuple";
  e->children = std::move(columns);
  e->kernel = [keys = std::move(keys), index = std::move(index)](
                  std::span<const exec::Arg> args, size_t rows, const exec::EvalContext&,
                  Vector* out) -> Status {
    ProbeKeys probe(args, rows);
    const std::vector<const Vector*>& cols = probe.columns;
    const std::vector<uint64_t>& h = probe.hashes;
    std::vector<const Vector*> kv;
    for (const Vector& v : keys->columns) kv.push_back(&v);
    const std::vector<bool> null_safe(cols.size(), false);
    out->ResizeUninitialized(rows);
    uint8_t* dst = out->data<uint8_t>();
    for (size_t r = 0; r < rows; ++r) {
      bool found = false;
      auto [b, e] = index->equal_range(h[r]);
      for (auto it = b; it != e && !found; ++it)
        found = exec::KeysEqualAt(cols, r, kv, it->second, null_safe);
      dst[r] = found ? 1 : 0;
    }
    return Status::OK();
  };
  return e;
}

// `lookup(k1, …, kn)`: the value at the row of `keys` equal to (k1, …, kn) (NULLs equal), NULL
// when none is. `values` holds one row per row of `keys`.
ExprPtr LookupByKeys(std::vector<ExprPtr> columns, std::shared_ptr<const DataChunk> keys,
                     std::shared_ptr<const Vector> values) {
  std::shared_ptr<const KeyIndex> index = IndexKeys(*keys);
  // The values with one NULL row after them: the answer for a key with no row.
  auto padded = std::make_shared<Vector>(values->type());
  padded->AppendRange(*values, 0, values->size());
  padded->AppendNull();
  auto e = std::make_shared<exec::Expr>();
  e->kind = ExprKind::kCall;
  e->type = values->type();
  e->nullable = true;
  e->name = "outer_values_lookup";
  e->children = std::move(columns);
  e->kernel = [keys = std::move(keys), index = std::move(index), padded = std::move(padded)](
                  std::span<const exec::Arg> args, size_t rows, const exec::EvalContext&,
                  Vector* out) -> Status {
    ProbeKeys probe(args, rows);
    const std::vector<const Vector*>& cols = probe.columns;
    const std::vector<uint64_t>& h = probe.hashes;
    std::vector<const Vector*> kv;
    for (const Vector& v : keys->columns) kv.push_back(&v);
    const std::vector<bool> null_safe(cols.size(), true);
    const uint32_t miss = static_cast<uint32_t>(padded->size() - 1);
    std::vector<uint32_t> sel(rows, miss);
    for (size_t r = 0; r < rows; ++r) {
      auto [b, end] = index->equal_range(h[r]);
      for (auto it = b; it != end; ++it) {
        if (exec::KeysEqualAt(cols, r, kv, it->second, null_safe)) {
          sel[r] = it->second;
          break;
        }
      }
    }
    out->AppendSelected(*padded, sel.data(), rows);
    return Status::OK();
  };
  return e;
}

// The column references of e, outside nested subqueries.
void CollectColumnRefs(const ParsedExpr& e, std::vector<const ParsedExpr*>* out) {
  if (e.type == ExprType::kColumnRef) out->push_back(&e);
  if (e.subquery) return;
  for (const auto& c : e.children) {
    if (c) CollectColumnRefs(*c, out);
  }
}

}  // namespace

Status Binder::Impl::CheckJoinConditionSubquery(const ParsedExpr& e,
                                                const std::vector<OutputColumn>* scope,
                                                const std::set<int>& used) {
  if (scope != join_domain_columns || used.empty()) return Status::OK();
  const int lw = static_cast<int>(join_domain_left_width);
  if (*used.begin() >= lw || *used.rbegin() < lw) return Status::OK();
  return Status::InvalidArgument(
      "Unsupported subquery expression: Correlated column reference in a join condition "
      "predicate is not supported when the subquery reads both join inputs: " +
          e.ToString() + ".",
      errc::kUnsupportedSubqueryExpressionCategoryUnsupportedCorrelatedExpressionInJoinCondition);
}

Status Binder::Impl::CheckCorrelatedGroupBy(const sql::Query& q,
                                            const std::vector<OutputColumn>& outer) {
  if (q.set_op != sql::SetOp::kNone || q.group_by.empty()) return Status::OK();
  // Spark 4 checks at run time instead (a group per outer row or SCALAR_SUBQUERY_TOO_MANY_ROWS,
  // as SubqueryByOuterValues does) unless the single join is off; a legacy flag lifts it too.
  if (!ctx().config ||
      ctx().config->GetBool("spark.sql.optimizer.scalarSubqueryUseSingleJoin", true) ||
      ctx().config->GetBool(
          "spark.sql.legacy.scalarSubqueryAllowGroupByNonEqualityCorrelatedPredicate", false)) {
    return Status::OK();
  }
  Result<PlanPtr> from = BindFromList(q);
  if (!from.ok()) return Status::OK();  // (a FROM reading the outer query: not this check's)
  const std::vector<OutputColumn>& inner = (*from)->columns;
  size_t consumed = 0;
  // Which columns x reads: inner ones, outer ones.
  auto reads = [&](const ParsedExpr& x, bool* inner_cols, bool* outer_cols) {
    std::vector<const ParsedExpr*> refs;
    CollectColumnRefs(x, &refs);
    *inner_cols = *outer_cols = false;
    for (const ParsedExpr* r : refs) {
      if (ResolveColumn(r->names, inner, &consumed).ok()) {
        *inner_cols = true;
      } else if (ResolveColumn(r->names, outer, &consumed).ok()) {
        *outer_cols = true;
      }
    }
  };
  // The inner expressions equated to a value of the outer row (outer columns and constants):
  // one group per outer row, so they may group.
  std::set<std::string> equated;
  std::vector<const ParsedExpr*> conjuncts;
  if (q.where) SplitConjuncts(q.where.get(), &conjuncts);
  for (const ParsedExpr* c : conjuncts) {
    if (c->type != ExprType::kBinary || c->children.size() != 2 ||
        !(c->op == "=" || c->op == "==" || c->op == "<=>")) {
      continue;
    }
    for (int side = 0; side < 2; ++side) {
      bool in_a, out_a, in_b, out_b;
      reads(*c->children[side], &in_a, &out_a);
      reads(*c->children[1 - side], &in_b, &out_b);
      if (in_a && !out_a && !in_b) equated.insert(AsciiLower(c->children[side]->ToString()));
    }
  }
  for (const auto& g : q.group_by) {
    bool in_g, out_g;
    reads(*g, &in_g, &out_g);
    if (!in_g || equated.count(AsciiLower(g->ToString()))) continue;
    return Status::InvalidArgument(
        "Unsupported subquery expression: A GROUP BY clause in a scalar correlated subquery "
        "cannot contain non-correlated columns: " +
            g->ToString() + ".",
        errc::kUnsupportedSubqueryExpressionCategoryNonCorrelatedColumnsInGroupBy);
  }
  return Status::OK();
}

namespace {

// The column references of e outside subqueries; false when e holds something whose names are
// not plain columns (a lambda, a star).
bool AggregateArgumentRefs(const ParsedExpr& e, std::vector<const ParsedExpr*>* out) {
  if (e.type == ExprType::kLambda || e.type == ExprType::kStar || e.subquery) return false;
  if (e.type == ExprType::kColumnRef) out->push_back(&e);
  for (const auto& c : e.children) {
    if (c && !AggregateArgumentRefs(*c, out)) return false;
  }
  for (const auto& o : e.within_group) {
    if (!AggregateArgumentRefs(*o.expr, out)) return false;
  }
  return !e.filter || AggregateArgumentRefs(*e.filter, out);
}

bool IsAggregateCall(const ParsedExpr& e) {
  return e.type == ExprType::kFunction && !e.over && !e.names.empty() &&
         exec::IsAggregateFunction(e.names.back());
}

}  // namespace

const OuterFrame* Binder::Impl::OuterAggregateFrame(const ParsedExpr& call,
                                                    const std::vector<OutputColumn>& local) {
  std::vector<const ParsedExpr*> refs;
  if (outer_frames.empty() || call.star_arg || !AggregateArgumentRefs(call, &refs) || refs.empty())
    return nullptr;
  size_t consumed = 0;
  for (const ParsedExpr* r : refs) {
    if (ResolveColumn(r->names, local, &consumed).ok()) return nullptr;
  }
  for (auto f = outer_frames.rbegin(); f != outer_frames.rend(); ++f) {
    bool all = true;
    for (const ParsedExpr* r : refs)
      all = all && ResolveColumn(r->names, *f->columns, &consumed).ok();
    if (all) return f->aggs ? &*f : nullptr;
  }
  return nullptr;
}

bool Binder::Impl::ContainsLocalAggregate(const ParsedExpr& e,
                                          const std::vector<OutputColumn>& local) {
  if (IsAggregateCall(e)) {
    // A call naming a column of no scope is left to binding (UNRESOLVED_COLUMN, which sends a
    // subquery to SubqueryByOuterValues, whose frames may host it).
    std::vector<const ParsedExpr*> refs;
    size_t consumed = 0;
    bool unresolved = false;
    if (!e.star_arg && AggregateArgumentRefs(e, &refs)) {
      for (const ParsedExpr* r : refs) {
        bool found = ResolveColumn(r->names, local, &consumed).ok();
        for (const OuterFrame& f : outer_frames)
          found = found || ResolveColumn(r->names, *f.columns, &consumed).ok();
        unresolved = unresolved || !found;
      }
    }
    return !unresolved && !OuterAggregateFrame(e, local);
  }
  if (e.type == ExprType::kScalarSubquery || e.type == ExprType::kExists ||
      e.type == ExprType::kInSubquery) {
    return e.type == ExprType::kInSubquery && !e.children.empty() &&
           ContainsLocalAggregate(*e.children[0], local);
  }
  for (const auto& c : e.children) {
    if (c && ContainsLocalAggregate(*c, local)) return true;
  }
  return e.filter && ContainsLocalAggregate(*e.filter, local);
}

Result<ExprPtr> Binder::Impl::BindOuterAggregate(const ParsedExpr& call, const OuterFrame& frame) {
  const std::string text = call.ToString();
  if (frame.collected) {
    for (const auto& [t, bound] : *frame.aggs) {
      if (t == text) return exec::MakeConstant(Value::Null(bound->type));
    }
    // Bound in the enclosing query, with only the frames enclosing it visible.
    const size_t depth = static_cast<size_t>(&frame - outer_frames.data());
    std::vector<OuterFrame> saved = outer_frames;
    auto* const aggs = frame.aggs;
    ExprScope* const scope = frame.agg_scope;
    outer_frames.resize(depth);
    Result<ExprPtr> bound = Bind(call, *scope);
    outer_frames = std::move(saved);
    SILT_RETURN_NOT_OK(bound.status());
    aggs->emplace_back(text, *bound);
    return exec::MakeConstant(Value::Null((*bound)->type));
  }
  for (size_t i = 0; i < frame.aggs->size(); ++i) {
    if ((*frame.aggs)[i].first == text) {
      return exec::CoerceTo(exec::MakeConstant((*frame.agg_values)[i]),
                            (*frame.aggs)[i].second->type, ctx().bind);
    }
  }
  return Status::Internal("outer aggregate " + text + " was not collected");
}

Result<std::optional<ExprPtr>> Binder::Impl::SubqueryByOuterValues(const ParsedExpr& e,
                                                                   ExprScope& s) {
  if (!ctx().execute || !e.subquery) return std::optional<ExprPtr>();
  const std::vector<OutputColumn>* cols = s.agg ? s.agg->input : s.columns;
  PlanPtr domain = s.agg                              ? s.agg->input_plan
                   : s.plan && *s.plan                ? *s.plan
                   : join_domain_columns == s.columns ? join_domain
                                                      : nullptr;
  if (!cols || !domain || domain->columns.size() != cols->size()) {
    return std::optional<ExprPtr>();
  }
  // Which outer columns the subquery reads (at any depth), and its shape.
  std::set<int> used;
  std::vector<std::pair<std::string, ExprPtr>> outer_aggs;  // (an aggregating scope only)
  outer_frames.push_back(
      {cols, &used, nullptr, s.agg ? &s : nullptr, s.agg ? &outer_aggs : nullptr});
  Result<PlanPtr> probe = self->BindQuery(*e.subquery);
  outer_frames.pop_back();
  if (!probe.ok()) return probe.status();
  const bool in = e.type == ExprType::kInSubquery;
  // IN's compared values: (a, b) IN (SELECT c, d …) compares a row constructor column by column.
  std::vector<const ParsedExpr*> lhs;
  if (in && !e.children.empty()) {
    const ParsedExpr& x = *e.children[0];
    const size_t width = (*probe)->columns.size();
    if (width > 1 && x.type == ExprType::kFunction && x.names.size() == 1 &&
        NameEq(x.names[0], "struct") && x.children.size() == width) {
      for (const auto& c : x.children) lhs.push_back(c.get());
    } else {
      lhs.push_back(&x);
    }
  }
  if (used.empty() && outer_aggs.empty() && lhs.size() < 2) return std::optional<ExprPtr>();
  SILT_RETURN_NOT_OK(CheckJoinConditionSubquery(e, cols, used));
  if (e.type == ExprType::kScalarSubquery && !used.empty()) {
    SILT_RETURN_NOT_OK(CheckCorrelatedGroupBy(*e.subquery, *cols));
  }
  if (e.type == ExprType::kScalarSubquery && (*probe)->columns.size() != 1) {
    return Status::InvalidArgument("Scalar subquery must return only one column, but got " +
                                       std::to_string((*probe)->columns.size()) + ".",
                                   errc::kScalarSubqueryTooManyColumns);
  }
  if (in && ((*probe)->columns.size() != lhs.size() || e.children.empty())) {
    return Status::InvalidArgument(
        "The number of columns in the left hand side of an IN subquery does not match the number "
        "of columns in the output of subquery.",
        errc::kDatatypeMismatchInSubqueryLengthMismatch);
  }
  // The lookup keys: over the scope (an aggregate's group columns) and over the domain plan.
  std::vector<ExprPtr> keys, domain_keys;
  std::vector<std::string> names;
  for (int i : used) {
    const OutputColumn& c = (*cols)[static_cast<size_t>(i)];
    ExprPtr d = exec::MakeColumn(i, c.type, c.name, c.nullable);
    ExprPtr k = d;
    if (s.agg) {
      k = nullptr;
      for (size_t g = 0; g < s.agg->group_exprs.size() && !k; ++g) {
        const ExprPtr& ge = GroupKeySource(s.agg->group_exprs[g]);
        if (ge->kind == ExprKind::kColumn && ge->column == i) {
          k = exec::MakeColumn(static_cast<int>(g), c.type, c.name, true);
          d = s.agg->group_exprs[g];  // (the key's value: a map's entries sorted)
        }
      }
      if (!k) return std::optional<ExprPtr>();  // not a grouping column
    }
    keys.push_back(k);
    domain_keys.push_back(outer_aggs.empty() ? d : k);
    names.push_back("k" + std::to_string(names.size()));
  }
  // Outer aggregates: their values are keys too, so the domain is the enclosing aggregate itself
  // (its group columns and calls, the keys' own columns).
  for (const auto& [text, bound] : outer_aggs) {
    keys.push_back(bound);
    domain_keys.push_back(bound);
    names.push_back("k" + std::to_string(names.size()));
  }
  std::vector<TypePtr> common;
  for (size_t k = 0; k < lhs.size(); ++k) {
    // x IN (…): x is part of the key (bound over the domain's rows too, so not an aggregate,
    // unless the domain is the aggregate).
    ExprScope ds;
    ds.columns = const_cast<std::vector<OutputColumn>*>(cols);
    Result<ExprPtr> xd = outer_aggs.empty() ? Bind(*lhs[k], ds) : Bind(*lhs[k], s);
    if (!xd.ok()) return std::optional<ExprPtr>();
    ExprPtr x = *xd;
    if (s.agg && outer_aggs.empty()) {
      SILT_ASSIGN_OR_RETURN(x, Bind(*lhs[k], s));
    }
    SILT_ASSIGN_OR_RETURN(TypePtr t, exec::CommonType(x->type, (*probe)->columns[k].type));
    common.push_back(t);
    keys.push_back(x);
    domain_keys.push_back(*xd);
    names.push_back("x" + std::to_string(k));
  }
  if (!outer_aggs.empty()) domain = AggregateNode(*s.agg, s.agg->input_plan, s.agg->group_texts);
  auto distinct = std::make_shared<LogicalNode>();
  distinct->kind = LogicalKind::kDistinct;
  distinct->children = {MakeProject(domain, domain_keys, names)};
  distinct->columns = distinct->children[0]->columns;
  SILT_ASSIGN_OR_RETURN(std::vector<DataChunk> outer_rows, ctx().execute(distinct));
  size_t n = 0;
  for (const auto& c : outer_rows) n += c.size();
  if (n > kMaxOuterValues) {
    return Status::NotImplemented(
        "this correlated subquery is not decorrelated into a join, and its outer query has " +
            std::to_string(n) + " distinct values of the columns it reads (at most " +
            std::to_string(kMaxOuterValues) + " are run one by one)",
        errc::kSiltUnsupportedSubquery);
  }
  const TypePtr result_type =
      e.type == ExprType::kScalarSubquery ? (*probe)->columns[0].type : DataType::Boolean();
  auto key_rows = std::make_shared<DataChunk>();
  for (const ExprPtr& k : domain_keys) key_rows->columns.emplace_back(k->type);
  auto answers = std::make_shared<Vector>(result_type);
  std::vector<Value> values(cols->size(), Value());
  std::vector<Value> agg_values(outer_aggs.size());
  const size_t n_used = used.size() + outer_aggs.size();
  std::vector<DataChunk> result;
  bool uncorrelated_done = false;
  for (const DataChunk& chunk : outer_rows) {
    for (size_t r = 0; r < chunk.size(); ++r) {
      size_t k = 0;
      for (int i : used) values[static_cast<size_t>(i)] = chunk.columns[k++].GetValue(r);
      for (Value& v : agg_values) v = chunk.columns[k++].GetValue(r);
      if (!uncorrelated_done) {
        // (an uncorrelated (a, b) IN (SELECT …) runs its subquery once)
        outer_frames.push_back({cols, nullptr, &values, nullptr, &outer_aggs, &agg_values});
        Result<PlanPtr> bound = self->BindQuery(*e.subquery);
        outer_frames.pop_back();
        if (!bound.ok()) return bound.status();
        SILT_ASSIGN_OR_RETURN(result, ctx().execute(*bound));
        uncorrelated_done = used.empty() && outer_aggs.empty();
      }
      size_t rows = 0;
      for (const auto& c : result) rows += c.size();
      Value answer = Value::Null(result_type);
      if (e.type == ExprType::kScalarSubquery) {
        if (rows > 1) {
          return Status::InvalidArgument(
              "More than one row returned by a subquery used as an expression.",
              errc::kScalarSubqueryTooManyRows);
        }
        for (const auto& c : result) {
          if (c.size()) answer = c.columns[0].GetValue(0);
        }
      } else if (!in) {
        answer = Value::Boolean((rows > 0) != e.negated);
      } else if (rows == 0) {
        answer = Value::Boolean(e.negated);
      } else if (lhs.size() > 1) {
        // (x1, …) IN (rows): some row equal in every column (TRUE), else NULL when some row
        // compares NULL, else FALSE.
        ExprPtr test;
        for (const auto& c : result) {
          for (size_t i = 0; i < c.size(); ++i) {
            ExprPtr row;
            for (size_t k = 0; k < lhs.size(); ++k) {
              SILT_ASSIGN_OR_RETURN(
                  ExprPtr xv,
                  exec::CoerceTo(exec::MakeConstant(chunk.columns[n_used + k].GetValue(r)),
                                 common[k], ctx().bind));
              SILT_ASSIGN_OR_RETURN(ExprPtr yv,
                                    exec::CoerceTo(exec::MakeConstant(c.columns[k].GetValue(i)),
                                                   common[k], ctx().bind));
              SILT_ASSIGN_OR_RETURN(ExprPtr eq,
                                    exec::BindScalarFunction("=", {xv, yv}, ctx().bind));
              row = row ? exec::MakeSpecial(ExprKind::kAnd, DataType::Boolean(), {row, eq}) : eq;
            }
            test = test ? exec::MakeSpecial(ExprKind::kOr, DataType::Boolean(), {test, row}) : row;
          }
        }
        if (e.negated) {
          SILT_ASSIGN_OR_RETURN(test, exec::BindScalarFunction("not", {test}, ctx().bind));
        }
        SILT_ASSIGN_OR_RETURN(answer, exec::EvaluateConstant(*test, ctx().eval));
      } else {
        // x IN (rows): TRUE / NULL / FALSE as IN's three-valued answer.
        std::vector<ExprPtr> items;
        SILT_ASSIGN_OR_RETURN(ExprPtr xv,
                              exec::CoerceTo(exec::MakeConstant(chunk.columns[n_used].GetValue(r)),
                                             common[0], ctx().bind));
        items.push_back(xv);
        for (const auto& c : result) {
          for (size_t i = 0; i < c.size(); ++i) {
            SILT_ASSIGN_OR_RETURN(
                ExprPtr it, exec::CoerceTo(exec::MakeConstant(c.columns[0].GetValue(i)), common[0],
                                           ctx().bind));
            items.push_back(it);
          }
        }
        ExprPtr test = exec::MakeSpecial(ExprKind::kIn, DataType::Boolean(), std::move(items));
        if (e.negated) {
          SILT_ASSIGN_OR_RETURN(test, exec::BindScalarFunction("not", {test}, ctx().bind));
        }
        SILT_ASSIGN_OR_RETURN(answer, exec::EvaluateConstant(*test, ctx().eval));
      }
      for (size_t c = 0; c < key_rows->columns.size(); ++c)
        key_rows->columns[c].AppendRange(chunk.columns[c], r, 1);
      if (!answer.is_null() && !answer.type()->Equals(*result_type)) {
        SILT_ASSIGN_OR_RETURN(answer, exec::CastValue(answer, result_type, false));
      }
      SILT_RETURN_NOT_OK(answers->AppendValue(answer));
    }
  }
  return std::optional<ExprPtr>(LookupByKeys(std::move(keys), key_rows, answers));
}

namespace {}  // namespace

Result<std::optional<ExprPtr>> Binder::Impl::CorrelatedExistsAsIn(const ParsedExpr& e,
                                                                  ExprScope& s) {
  const sql::Query& q = *e.subquery;
  bool select_has_agg = false;  // (a global aggregate always has a row)
  for (const auto& it : q.select) select_has_agg |= it.expr && ContainsAggregate(*it.expr);
  const bool simple_block = q.set_op == sql::SetOp::kNone && q.group_by.empty() && !q.having &&
                            q.order_by.empty() && !q.limit && !q.distinct && !q.from.empty() &&
                            q.ctes.empty() && !select_has_agg;
  if (!simple_block || !ctx().execute) return std::optional<ExprPtr>();
  Result<Correlated> c = BindCorrelatedFrom(q, *s.columns);
  if (!c.ok() || !c->residual.empty() || c->outer_keys.empty()) return std::optional<ExprPtr>();
  std::set<int> used;
  for (const ExprPtr& o : c->outer_keys) {
    if (o->kind != ExprKind::kColumn) return std::optional<ExprPtr>();
    used.insert(o->column);
  }
  SILT_RETURN_NOT_OK(CheckJoinConditionSubquery(e, s.columns, used));
  const size_t n = c->outer_keys.size();
  std::vector<ExprPtr> outer_c, inner_c;
  std::vector<std::string> names;
  for (size_t k = 0; k < n; ++k) {
    SILT_ASSIGN_OR_RETURN(TypePtr common,
                          exec::CommonType(c->outer_keys[k]->type, c->inner_keys[k]->type));
    SILT_ASSIGN_OR_RETURN(ExprPtr ic, exec::CoerceTo(c->inner_keys[k], common, ctx().bind));
    SILT_ASSIGN_OR_RETURN(ExprPtr oc, exec::CoerceTo(c->outer_keys[k], common, ctx().bind));
    inner_c.push_back(ic);
    outer_c.push_back(oc);
    names.push_back("k" + std::to_string(k));
  }
  SILT_ASSIGN_OR_RETURN(std::vector<DataChunk> chunks,
                        ctx().execute(MakeProject(c->plan, inner_c, names)));
  // The inner rows without a NULL key (a NULL never equals): per key, the IN list that dynamic
  // file pruning takes as a runtime filter; with several keys, also their exact combinations.
  auto rows = std::make_shared<DataChunk>();
  for (size_t k = 0; k < n; ++k) rows->columns.emplace_back(inner_c[k]->type);
  std::vector<std::vector<ExprPtr>> items(n);
  for (size_t k = 0; k < n; ++k) items[k].push_back(outer_c[k]);
  for (const auto& chunk : chunks) {
    for (size_t i = 0; i < chunk.size(); ++i) {
      bool any_null = false;
      for (size_t k = 0; k < n && !any_null; ++k) any_null = chunk.columns[k].IsNull(i);
      if (any_null) continue;
      for (size_t k = 0; k < n; ++k) {
        Value v = chunk.columns[k].GetValue(i);
        items[k].push_back(exec::MakeConstant(v));
        if (n > 1) SILT_RETURN_NOT_OK(rows->columns[k].AppendValue(v));
      }
    }
  }
  ExprPtr result;
  if (items[0].size() == 1) {
    result = exec::MakeConstant(Value::Boolean(false));
  } else {
    for (size_t k = 0; k < n; ++k) {
      auto in = std::make_shared<exec::Expr>(
          *exec::MakeSpecial(ExprKind::kIn, DataType::Boolean(), std::move(items[k])));
      in->name = kInSubqueryValues;
      result = MakeAnd(result, ExprPtr(std::move(in)));
    }
    if (n == 1) {
      // NULL IN (…) is NULL: EXISTS is FALSE.
      result = MakeAnd(
          result, exec::MakeSpecial(ExprKind::kIsNotNull, DataType::Boolean(), {c->outer_keys[0]}));
    } else {
      // The per-key lists admit combinations the subquery does not hold: the exact test (FALSE
      // for a NULL key, which also makes the conjunction FALSE, never NULL).
      result = MakeAnd(result, TupleInSet(outer_c, std::move(rows)));
    }
  }
  if (!e.negated) return std::optional<ExprPtr>(result);
  SILT_ASSIGN_OR_RETURN(ExprPtr negated, exec::BindScalarFunction("not", {result}, ctx().bind));
  return std::optional<ExprPtr>(negated);
}

Result<std::optional<ExprPtr>> Binder::Impl::CorrelatedExistsAsJoin(const ParsedExpr& e,
                                                                    ExprScope& s) {
  const sql::Query& q = *e.subquery;
  bool select_has_agg = false;  // (a global aggregate always has a row)
  for (const auto& it : q.select) select_has_agg |= it.expr && ContainsAggregate(*it.expr);
  const bool simple_block = q.set_op == sql::SetOp::kNone && q.group_by.empty() && !q.having &&
                            q.order_by.empty() && !q.limit && !q.distinct && !q.from.empty() &&
                            q.ctes.empty() && !select_has_agg;
  if (!simple_block || !s.plan || !*s.plan || s.agg || !s.columns ||
      s.columns->size() != (*s.plan)->columns.size()) {
    return std::optional<ExprPtr>();
  }
  const bool in = e.type == ExprType::kInSubquery;
  if (in && (q.select.size() != 1 || !q.select[0].expr || e.children.empty())) {
    return std::optional<ExprPtr>();
  }
  Result<Correlated> c = BindCorrelatedFrom(q, *s.columns);
  if (!c.ok() || (c->outer_keys.empty() && c->residual.empty())) return std::optional<ExprPtr>();
  // IN: the compared values, outer (over the input) and inner (over the subquery's FROM).
  ExprPtr ov, iv;
  if (in) {
    std::vector<OutputColumn> inner_cols = c->plan->columns;
    ExprScope is;
    is.columns = &inner_cols;
    Result<ExprPtr> ib = Bind(*q.select[0].expr, is);
    if (!ib.ok()) return std::optional<ExprPtr>();
    ExprScope os;
    os.columns = s.columns;
    SILT_ASSIGN_OR_RETURN(ov, Bind(*e.children[0], os));
    SILT_ASSIGN_OR_RETURN(TypePtr common, exec::CommonType(ov->type, (*ib)->type));
    SILT_ASSIGN_OR_RETURN(ov, exec::CoerceTo(ov, common, ctx().bind));
    SILT_ASSIGN_OR_RETURN(iv, exec::CoerceTo(*ib, common, ctx().bind));
  }
  PlanPtr left = *s.plan;
  const int n_outer = static_cast<int>(left->columns.size());
  const int n_inner = static_cast<int>(c->plan->columns.size());
  // The input rows numbered (row_number() OVER ()): each counts its matches once.
  SILT_ASSIGN_OR_RETURN(exec::WindowFunction rn, exec::BindWindowFunction("row_number", {}));
  auto win = std::make_shared<LogicalNode>();
  win->kind = LogicalKind::kWindow;
  win->children = {left};
  WindowCall wc;
  wc.name = "row_number() OVER ()";
  wc.type = rn.result_type;
  wc.fn = std::move(rn);
  win->windows = {wc};
  win->columns = left->columns;
  win->columns.push_back({"__row", wc.type, false, ""});
  // The subquery's rows with a marker that is never NULL (NULL after the join: no match).
  std::vector<ExprPtr> ip;
  std::vector<std::string> names;
  for (int i = 0; i < n_inner; ++i) {
    const OutputColumn& oc = c->plan->columns[static_cast<size_t>(i)];
    ip.push_back(exec::MakeColumn(i, oc.type, oc.name, oc.nullable));
    names.push_back(oc.name);
  }
  ip.push_back(exec::MakeConstant(Value::Boolean(true)));
  names.push_back("__match");
  if (in) {
    ip.push_back(iv);
    names.push_back("__value");
  }
  PlanPtr inner = MakeProject(c->plan, ip, names);
  auto join = std::make_shared<LogicalNode>();
  join->kind = LogicalKind::kJoin;
  join->join = JoinKind::kLeft;
  join->children = {win, inner};
  join->left_keys = c->outer_keys;
  join->right_keys = c->inner_keys;
  join->null_safe.assign(c->outer_keys.size(), false);
  ExprPtr residual;
  for (const ExprPtr& r : c->residual) {
    // Over outer ++ inner: the row number sits between them now.
    residual = MakeAnd(
        residual, RemapColumns(r, [n_outer](int col) { return col >= n_outer ? col + 1 : col; }));
  }
  join->condition = residual;
  join->columns = win->columns;
  for (auto oc : inner->columns) {
    oc.nullable = true;
    join->columns.push_back(oc);
  }
  // Back to one row per input row: its columns (equal in the group) and the count of matches.
  auto agg = std::make_shared<LogicalNode>();
  agg->kind = LogicalKind::kAggregate;
  agg->children = {join};
  agg->group_keys = {exec::MakeColumn(n_outer, wc.type, "__row", false)};
  agg->columns.push_back({"__row", wc.type, false, ""});
  for (int i = 0; i < n_outer; ++i) {
    const OutputColumn& oc = left->columns[static_cast<size_t>(i)];
    SILT_ASSIGN_OR_RETURN(
        exec::BoundAggregate b,
        exec::BindAggregateFunction(
            "any_value", {exec::MakeColumn(i, oc.type, oc.name, oc.nullable)}, false, ctx().bind));
    agg->aggregates.push_back(
        {"any_value(" + oc.name + ")", "any_value", false, std::move(b), nullptr});
    agg->columns.push_back(oc);
  }
  const int match_col = n_outer + 1 + n_inner;
  SILT_ASSIGN_OR_RETURN(exec::BoundAggregate cnt,
                        exec::BindAggregateFunction(
                            "count", {exec::MakeColumn(match_col, DataType::Boolean(), "__match")},
                            false, ctx().bind));
  agg->aggregates.push_back({"count(__match)", "count", false, std::move(cnt), nullptr});
  agg->columns.push_back(
      {"count(__match)", agg->aggregates.back().bound.function->result_type(), false, ""});
  if (in) {
    // Per input row: how many subquery rows compare TRUE, and how many compare NULL.
    ExprPtr match = exec::MakeColumn(match_col, DataType::Boolean(), "__match");
    ExprPtr value = exec::MakeColumn(match_col + 1, iv->type, "__value");
    SILT_ASSIGN_OR_RETURN(ExprPtr cmp, exec::BindScalarFunction("=", {ov, value}, ctx().bind));
    ExprPtr unknown =
        exec::MakeSpecial(ExprKind::kAnd, DataType::Boolean(),
                          {exec::MakeSpecial(ExprKind::kIsNull, DataType::Boolean(), {cmp}),
                           exec::MakeSpecial(ExprKind::kIsNotNull, DataType::Boolean(), {match})});
    for (const auto& [name, arg] : {std::pair<std::string, ExprPtr>{"count_if(__true)", cmp},
                                    std::pair<std::string, ExprPtr>{"count_if(__null)", unknown}}) {
      SILT_ASSIGN_OR_RETURN(exec::BoundAggregate b,
                            exec::BindAggregateFunction("count_if", {arg}, false, ctx().bind));
      agg->aggregates.push_back({name, "count_if", false, std::move(b), nullptr});
      agg->columns.push_back(
          {name, agg->aggregates.back().bound.function->result_type(), false, ""});
    }
  }
  std::vector<ExprPtr> out;
  std::vector<std::string> out_names;
  for (int i = 0; i < n_outer; ++i) {
    const OutputColumn& oc = left->columns[static_cast<size_t>(i)];
    out.push_back(exec::MakeColumn(i + 1, oc.type, oc.name, oc.nullable));
    out_names.push_back(oc.name);
  }
  ExprPtr count = exec::MakeColumn(n_outer + 1, agg->columns.back().type, "count(__match)", false);
  SILT_ASSIGN_OR_RETURN(
      ExprPtr exists,
      exec::BindScalarFunction(e.negated ? "=" : ">", {count, exec::MakeConstant(Value::Int64(0))},
                               ctx().bind));
  if (in) {
    // TRUE when a row compares TRUE; else NULL when one compares NULL; else FALSE (NOT IN: its
    // NOT).
    const TypePtr ct = agg->columns[static_cast<size_t>(n_outer) + 2].type;
    ExprPtr trues = exec::MakeColumn(n_outer + 2, ct, "count_if(__true)", false);
    ExprPtr nulls = exec::MakeColumn(n_outer + 3, ct, "count_if(__null)", false);
    SILT_ASSIGN_OR_RETURN(
        ExprPtr any_true,
        exec::BindScalarFunction(">", {trues, exec::MakeConstant(Value::Int64(0))}, ctx().bind));
    SILT_ASSIGN_OR_RETURN(
        ExprPtr any_null,
        exec::BindScalarFunction(">", {nulls, exec::MakeConstant(Value::Int64(0))}, ctx().bind));
    ExprPtr value = exec::MakeSpecial(ExprKind::kCase, DataType::Boolean(),
                                      {any_true, exec::MakeConstant(Value::Boolean(true)), any_null,
                                       exec::MakeConstant(Value::Null(DataType::Boolean())),
                                       exec::MakeConstant(Value::Boolean(false))},
                                      true);
    if (e.negated) {
      SILT_ASSIGN_OR_RETURN(value, exec::BindScalarFunction("not", {value}, ctx().bind));
    }
    exists = value;
  }
  out.push_back(exists);
  out_names.push_back(in ? (e.negated ? "not in" : "in") : (e.negated ? "not exists" : "exists"));
  PlanPtr project = MakeProject(agg, out, out_names);
  for (int i = 0; i < n_outer; ++i)
    project->columns[static_cast<size_t>(i)].qualifier =
        left->columns[static_cast<size_t>(i)].qualifier;
  *s.plan = project;
  *s.columns = project->columns;
  return std::optional<ExprPtr>(
      exec::MakeColumn(n_outer, DataType::Boolean(), out_names.back(), in));
}

Result<Binder::Impl::Correlated> Binder::Impl::BindCorrelatedFrom(
    const sql::Query& q, const std::vector<OutputColumn>& outer) {
  Correlated out;
  SILT_ASSIGN_OR_RETURN(out.plan, BindFromList(q));
  std::vector<OutputColumn> inner_cols = out.plan->columns;
  int n_inner = static_cast<int>(inner_cols.size());
  std::vector<ExprPtr> inner_only;
  if (q.where) {
    std::vector<const ParsedExpr*> conj;
    SplitConjuncts(q.where.get(), &conj);
    for (const ParsedExpr* c : conj) {
      std::vector<std::pair<int, int>> refs;
      ExprScope s;
      s.columns = &inner_cols;
      s.outer = &outer;
      s.outer_refs = &refs;
      SILT_ASSIGN_OR_RETURN(ExprPtr b, Bind(*c, s));
      // A predicate, as in the outer WHERE (a string conjunct filtered as is crashed the join).
      SILT_ASSIGN_OR_RETURN(b, exec::CoerceTo(b, DataType::Boolean(), ctx().bind));
      if (refs.empty()) {
        inner_only.push_back(b);
        continue;
      }
      // Map placeholders (n_inner + k) to outer indices and inner indices past the outer width.
      std::map<int, int> ph_to_outer;
      for (auto [o, ph] : refs) ph_to_outer[ph] = o;
      int n_outer = static_cast<int>(outer.size());
      auto to_joined = [&](int col) { return col >= n_inner ? ph_to_outer[col] : col + n_outer; };
      // Equality between an outer-only side and an inner-only side → join keys.
      if (b->kind == ExprKind::kCall && (b->name == "=" || b->name == "==") &&
          b->children.size() == 2) {
        const ExprPtr& l = b->children[0];
        const ExprPtr& r = b->children[1];
        // The outer side reads outer columns only (at least one: a constant reads "only" any
        // range, and taken as the outer side it left the outer reference as the inner key, a
        // column past the inner input: SIGSEGV); the inner side reads no outer column.
        auto reads_any = [](const ExprPtr& x) {
          std::vector<int> cols;
          exec::CollectColumns(*x, &cols);
          return !cols.empty();
        };
        bool l_outer = reads_any(l) && ReadsOnly(l, n_inner, 1 << 30);
        bool r_outer = reads_any(r) && ReadsOnly(r, n_inner, 1 << 30);
        bool l_inner = ReadsOnly(l, 0, n_inner), r_inner = ReadsOnly(r, 0, n_inner);
        if ((l_outer && r_inner) || (r_outer && l_inner)) {
          const bool left_is_outer = l_outer && r_inner;
          const ExprPtr& o = left_is_outer ? l : r;
          const ExprPtr& i = left_is_outer ? r : l;
          out.outer_keys.push_back(RemapColumns(o, [&](int c) { return ph_to_outer[c]; }));
          out.inner_keys.push_back(i);
          continue;
        }
      }
      out.residual.push_back(RemapColumns(b, to_joined));
    }
  }
  ExprPtr f;
  for (auto& c : inner_only) f = MakeAnd(f, c);
  if (f) out.plan = MakeFilter(out.plan, f);
  return out;
}

// A top-level WHERE conjunct `[NOT] EXISTS (…)` or `x [NOT] IN (…)` → semi/anti join onto plan.
Status Binder::Impl::ApplyPredicateSubquery(const ParsedExpr& e, bool negated, PlanPtr* plan,
                                            std::vector<OutputColumn>* cols) {
  const sql::Query& q = *e.subquery;
  auto join = std::make_shared<LogicalNode>();
  join->kind = LogicalKind::kJoin;
  join->join = negated ? JoinKind::kAnti : JoinKind::kSemi;
  join->columns = *cols;
  bool simple_block = q.set_op == sql::SetOp::kNone && q.group_by.empty() && !q.having &&
                      q.order_by.empty() && !q.limit && !q.distinct && !q.from.empty() &&
                      q.ctes.empty();
  bool select_has_agg = false;
  for (const auto& it : q.select) select_has_agg |= it.expr && ContainsAggregate(*it.expr);
  Result<PlanPtr> standalone = self->BindQuery(q);
  // Correlated, of a shape the semi/anti join below does not cover (or NOT IN with a correlation,
  // a null-aware anti join on several keys): filtered by its value, run per outer value.
  auto by_values = [&]() -> Result<bool> {
    ExprScope vs;
    vs.columns = cols;
    vs.plan = plan;
    SILT_ASSIGN_OR_RETURN(std::optional<ExprPtr> value, SubqueryByOuterValues(e, vs));
    if (!value) return false;
    ExprPtr pred = *value;
    if (negated != e.negated) {
      SILT_ASSIGN_OR_RETURN(pred, exec::BindScalarFunction("not", {pred}, ctx().bind));
    }
    *plan = MakeFilter(*plan, pred);
    *cols = (*plan)->columns;
    return true;
  };
  const bool correlated =
      !standalone.ok() && standalone.status().error_class().rfind(errc::kUnresolvedColumn, 0) == 0;
  if (correlated &&
      (!simple_block || select_has_agg || (e.type == ExprType::kInSubquery && negated))) {
    SILT_ASSIGN_OR_RETURN(bool done, by_values());
    if (done) return Status::OK();
  }
  if (standalone.ok() || !simple_block || select_has_agg) {
    if (!standalone.ok()) return standalone.status();
    // Uncorrelated.
    PlanPtr sub = *standalone;
    if (e.type == ExprType::kExists) {
      SILT_ASSIGN_OR_RETURN(std::vector<DataChunk> chunks, ctx().execute(sub));
      size_t rows = 0;
      for (const auto& c : chunks) rows += c.size();
      if ((rows > 0) == !negated) return Status::OK();  // keeps every row
      auto empty = std::make_shared<LogicalNode>();
      empty->kind = LogicalKind::kLimit;
      empty->limit = 0;
      empty->children = {*plan};
      empty->columns = *cols;
      *plan = empty;
      return Status::OK();
    }
    if (sub->columns.size() != 1) {
      SILT_ASSIGN_OR_RETURN(bool done, by_values());  // (a, b) IN (SELECT c, d …)
      if (done) return Status::OK();
      return Status::InvalidArgument(
          "The number of columns in the "
          "left hand side of an IN subquery does not match the number of columns in the output of "
          "subquery.",
          errc::kDatatypeMismatchInSubqueryLengthMismatch);
    }
    ExprScope s;
    s.columns = cols;
    s.plan = plan;
    SILT_ASSIGN_OR_RETURN(ExprPtr v, Bind(*e.children[0], s));
    SILT_ASSIGN_OR_RETURN(TypePtr common, exec::CommonType(v->type, sub->columns[0].type));
    SILT_ASSIGN_OR_RETURN(v, exec::CoerceTo(v, common, ctx().bind));
    SILT_ASSIGN_OR_RETURN(
        ExprPtr rk, exec::CoerceTo(exec::MakeColumn(0, sub->columns[0].type, sub->columns[0].name),
                                   common, ctx().bind));
    join->children = {*plan, sub};
    join->left_keys = {v};
    join->right_keys = {rk};
    join->null_safe = {false};
    join->null_aware_anti = negated;
    join->columns = *cols;
    *plan = join;
    return Status::OK();
  }
  // Correlated: FROM … WHERE with outer references.
  Result<Correlated> corr_or = BindCorrelatedFrom(q, *cols);
  if (!corr_or.ok()) {
    SILT_ASSIGN_OR_RETURN(bool done, by_values());
    if (done) return Status::OK();
    return corr_or.status();
  }
  Correlated corr = std::move(*corr_or);
  join->children = {*plan, corr.plan};
  join->left_keys = corr.outer_keys;
  join->right_keys = corr.inner_keys;
  join->null_safe.assign(corr.outer_keys.size(), false);
  ExprPtr residual;
  for (auto& r : corr.residual) residual = MakeAnd(residual, r);
  if (e.type == ExprType::kInSubquery) {
    if (q.select.size() != 1) {
      SILT_ASSIGN_OR_RETURN(bool done, by_values());  // (a, b) IN (SELECT c, d … WHERE …)
      if (done) return Status::OK();
      return Status::InvalidArgument("IN subquery must return one column.",
                                     errc::kDatatypeMismatchInSubqueryLengthMismatch);
    }
    std::vector<OutputColumn> inner_cols = corr.plan->columns;
    ExprScope is;
    is.columns = &inner_cols;
    SILT_ASSIGN_OR_RETURN(ExprPtr iv, Bind(*q.select[0].expr, is));
    ExprScope os;
    os.columns = cols;
    SILT_ASSIGN_OR_RETURN(ExprPtr ov, Bind(*e.children[0], os));
    SILT_ASSIGN_OR_RETURN(TypePtr common, exec::CommonType(ov->type, iv->type));
    SILT_ASSIGN_OR_RETURN(ov, exec::CoerceTo(ov, common, ctx().bind));
    SILT_ASSIGN_OR_RETURN(iv, exec::CoerceTo(iv, common, ctx().bind));
    join->left_keys.push_back(ov);
    join->right_keys.push_back(iv);
    join->null_safe.push_back(false);
    join->null_aware_anti = negated;
  }
  join->condition = residual;
  *plan = join;
  return Status::OK();
}

}  // namespace silt::planner
