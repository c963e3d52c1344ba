// Binding joins: join kinds, USING / NATURAL, and the split of a condition into equi-keys and a
// residual.
#include "common/error_classes.h"
#include "planner/binder_impl.h"

namespace silt::planner {

Result<PlanPtr> Binder::Impl::BindJoin(const sql::TableRef& ref) {
  // Inside a correlated subquery, Spark refuses references to the enclosing queries under the
  // side of an outer, semi or anti join that is not preserved (CheckAnalysis'
  // failOnOuterReferenceInSubTree).
  static constexpr const char* kClass =
      errc::kUnsupportedSubqueryExpressionCategoryAccessingOuterQueryColumnIsNotAllowed;
  static constexpr const char* kMessage =
      "Accessing outer query column is not allowed in this location: ";
  // Scoped blocks, not lambdas returning Results: this frame is on the recursion path of nested
  // queries (RunawaySqlTest's CTE chain), so it keeps no extra temporaries.
  const sql::JoinType jt = ref.join_type;
  PlanPtr l;
  PlanPtr r;
  {
    auto refusal = RefuseOuterRefs(kClass, kMessage,
                                   jt == sql::JoinType::kRight || jt == sql::JoinType::kFull);
    SILT_ASSIGN_OR_RETURN(l, BindTableRef(*ref.left));
  }
  {
    auto refusal =
        RefuseOuterRefs(kClass, kMessage,
                        jt == sql::JoinType::kLeft || jt == sql::JoinType::kFull ||
                            jt == sql::JoinType::kLeftSemi || jt == sql::JoinType::kLeftAnti);
    SILT_ASSIGN_OR_RETURN(r, BindTableRef(*ref.right));
  }
  auto j = std::make_shared<LogicalNode>();
  j->kind = LogicalKind::kJoin;
  switch (ref.join_type) {
    case sql::JoinType::kInner:
      j->join = JoinKind::kInner;
      break;
    case sql::JoinType::kLeft:
      j->join = JoinKind::kLeft;
      break;
    case sql::JoinType::kRight:
      j->join = JoinKind::kRight;
      break;
    case sql::JoinType::kFull:
      j->join = JoinKind::kFull;
      break;
    case sql::JoinType::kCross:
      j->join = JoinKind::kCross;
      break;
    case sql::JoinType::kLeftSemi:
      j->join = JoinKind::kSemi;
      break;
    case sql::JoinType::kLeftAnti:
      j->join = JoinKind::kAnti;
      break;
  }
  std::vector<OutputColumn> both = l->columns;
  both.insert(both.end(), r->columns.begin(), r->columns.end());
  int lw = static_cast<int>(l->columns.size());
  j->children = {l, r};
  auto nullable_side = [&](std::vector<OutputColumn>& cols, size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) cols[i].nullable = true;
  };
  std::vector<std::string> using_cols = ref.using_columns;
  if (ref.natural) {
    for (const auto& c : l->columns) {
      for (const auto& d : r->columns) {
        if (!c.hidden && !d.hidden && NameEq(c.name, d.name)) using_cols.push_back(c.name);
      }
    }
  }
  if (!using_cols.empty()) {
    // USING: equality keys; output = join columns (coalesced for FULL), then the rest.
    std::vector<int> lk, rk;
    for (const auto& name : using_cols) {
      size_t consumed;
      Result<int> li = ResolveColumn({name}, l->columns, &consumed);
      Result<int> ri = ResolveColumn({name}, r->columns, &consumed);
      if (!li.ok() || !ri.ok()) {
        return Status::InvalidArgument("USING column " + Backquote(name) +
                                           " cannot be resolved on the " +
                                           (li.ok() ? "right" : "left") + " side of the join.",
                                       errc::kUnresolvedUsingColumnForJoin);
      }
      SILT_ASSIGN_OR_RETURN(TypePtr t,
                            exec::CommonType(l->columns[*li].type, r->columns[*ri].type));
      SILT_ASSIGN_OR_RETURN(
          ExprPtr a,
          exec::CoerceTo(exec::MakeColumn(*li, l->columns[*li].type, name), t, ctx().bind));
      SILT_ASSIGN_OR_RETURN(
          ExprPtr b,
          exec::CoerceTo(exec::MakeColumn(*ri, r->columns[*ri].type, name), t, ctx().bind));
      j->left_keys.push_back(a);
      j->right_keys.push_back(b);
      j->null_safe.push_back(false);
      lk.push_back(*li);
      rk.push_back(*ri);
    }
    if (j->join == JoinKind::kCross) j->join = JoinKind::kInner;
    j->columns = both;
    if (j->join == JoinKind::kLeft || j->join == JoinKind::kFull)
      nullable_side(j->columns, lw, both.size());
    if (j->join == JoinKind::kRight || j->join == JoinKind::kFull) nullable_side(j->columns, 0, lw);
    if (j->join == JoinKind::kSemi || j->join == JoinKind::kAnti) {
      j->columns = l->columns;
      return PlanPtr(j);
    }
    std::vector<ExprPtr> exprs;
    std::vector<std::string> names;
    std::vector<std::string> quals;
    std::vector<bool> hidden;
    for (size_t k = 0; k < lk.size(); ++k) {
      ExprPtr lref = exec::MakeColumn(lk[k], j->columns[lk[k]].type, using_cols[k]);
      ExprPtr rref = exec::MakeColumn(lw + rk[k], j->columns[lw + rk[k]].type, using_cols[k]);
      ExprPtr e = lref;
      if (j->join == JoinKind::kRight) e = rref;
      if (j->join == JoinKind::kFull) {
        SILT_ASSIGN_OR_RETURN(e, exec::BindScalarFunction("coalesce", {lref, rref}, ctx().bind));
      }
      exprs.push_back(e);
      names.push_back(l->columns[lk[k]].name);
      quals.push_back("");
      hidden.push_back(false);
    }
    // Then every column of each side in its order; a side's join columns are hidden: reachable
    // as t1.k / t2.k and through t1.* (Spark), but not by * or an unqualified k.
    for (int i = 0; i < static_cast<int>(both.size()); ++i) {
      const bool key = i < lw ? std::find(lk.begin(), lk.end(), i) != lk.end()
                              : std::find(rk.begin(), rk.end(), i - lw) != rk.end();
      exprs.push_back(
          exec::MakeColumn(i, j->columns[i].type, j->columns[i].name, j->columns[i].nullable));
      names.push_back(j->columns[i].name);
      quals.push_back(j->columns[i].qualifier);
      hidden.push_back(key || j->columns[i].hidden);
    }
    PlanPtr p = MakeProject(j, exprs, names);
    for (size_t i = 0; i < quals.size(); ++i) {
      p->columns[i].qualifier = quals[i];
      p->columns[i].hidden = hidden[i];
    }
    return p;
  }
  if (ref.join_condition) {
    SILT_ASSIGN_OR_RETURN(ExprPtr cond, BindJoinCondition(*ref.join_condition, &both, l, r));
    SILT_ASSIGN_OR_RETURN(cond, exec::CoerceTo(cond, DataType::Boolean(), ctx().bind));
    if (j->join == JoinKind::kCross) j->join = JoinKind::kInner;
    ExtractJoinKeys(cond, lw, static_cast<int>(both.size()), j.get());
  } else if (j->join == JoinKind::kLeft || j->join == JoinKind::kRight ||
             j->join == JoinKind::kFull || j->join == JoinKind::kSemi ||
             j->join == JoinKind::kAnti) {
    // An outer, semi or anti join without ON / USING (Spark allows it, and a NATURAL join of no
    // common column is one): every pair matches.
    j->condition = exec::MakeConstant(Value::Boolean(true));
  }
  j->columns = both;
  if (j->join == JoinKind::kLeft || j->join == JoinKind::kFull)
    nullable_side(j->columns, lw, both.size());
  if (j->join == JoinKind::kRight || j->join == JoinKind::kFull) nullable_side(j->columns, 0, lw);
  if (j->join == JoinKind::kSemi || j->join == JoinKind::kAnti) j->columns = l->columns;
  return PlanPtr(j);
}

// Out of line: BindJoin's frame is on the path of every nested FROM (deep CTE chains).
__attribute__((noinline)) Result<ExprPtr> Binder::Impl::BindJoinCondition(
    const ParsedExpr& cond, std::vector<OutputColumn>* both, const PlanPtr& l, const PlanPtr& r) {
  ExprScope s;
  s.columns = both;
  // The outer values of a correlated subquery in the condition: left × right.
  const std::vector<OutputColumn>* saved_columns = join_domain_columns;
  PlanPtr saved = std::move(join_domain);
  const size_t saved_width = join_domain_left_width;
  join_domain_columns = both;
  join_domain = CrossJoin(l, r);
  join_domain_left_width = l->columns.size();
  Result<ExprPtr> bound = Bind(cond, s);
  join_domain_columns = saved_columns;
  join_domain = std::move(saved);
  join_domain_left_width = saved_width;
  return bound;
}

// Splits a join condition over left ++ right into equi-keys and a residual.
void Binder::Impl::ExtractJoinKeys(const ExprPtr& cond, int lw, int total, LogicalNode* j) {
  std::vector<ExprPtr> conj;
  SplitBound(cond, &conj);
  ExprPtr residual;
  for (const ExprPtr& c : conj) {
    if (c->kind == ExprKind::kCall && (c->name == "=" || c->name == "==" || c->name == "<=>") &&
        c->children.size() == 2) {
      const ExprPtr& a = c->children[0];
      const ExprPtr& b = c->children[1];
      bool a_left = ReadsOnly(a, 0, lw), a_right = ReadsOnly(a, lw, total);
      bool b_left = ReadsOnly(b, 0, lw), b_right = ReadsOnly(b, lw, total);
      std::vector<int> ca, cb;
      exec::CollectColumns(*a, &ca);
      exec::CollectColumns(*b, &cb);
      if (!ca.empty() && !cb.empty() && ((a_left && b_right) || (a_right && b_left))) {
        const ExprPtr& l = a_left ? a : b;
        const ExprPtr& r = a_left ? b : a;
        j->left_keys.push_back(l);
        j->right_keys.push_back(RemapColumns(r, [lw](int col) { return col - lw; }));
        j->null_safe.push_back(c->name == "<=>");
        continue;
      }
    }
    residual = MakeAnd(residual, c);
  }
  j->condition = residual;
}

}  // namespace silt::planner
