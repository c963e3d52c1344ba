// Binding a SELECT block: WHERE, GROUP BY / grouping sets, aggregates, HAVING, windows, QUALIFY,
// ORDER BY, LIMIT.
#include "common/error_classes.h"
#include "exec/cast.h"
#include "exec/sort.h"
#include "planner/binder_impl.h"

namespace silt::planner {

Result<int64_t> Binder::Impl::ConstantInt(const ParsedExpr& e, const char* what,
                                          const std::vector<OutputColumn>& columns) {
  // Bound over the input, so a column is "not a constant" rather than unresolved (Spark).
  SILT_ASSIGN_OR_RETURN(ExprPtr b, self->BindExpression(e, columns));
  if (!exec::IsConstantExpr(*b)) {
    return Status::InvalidArgument(
        std::string("The ") + what + " expression must evaluate to a constant value.",
        errc::kInvalidLimitLikeExpressionIsUnfoldable);
  }
  if (b->type->id() != TypeId::kNull && !exec::IsIntegral(b->type->id())) {
    return Status::InvalidArgument(std::string("The ") + what +
                                       " expression must be integer type, but got \"" +
                                       b->type->ToString() + "\".",
                                   errc::kInvalidLimitLikeExpressionDataType);
  }
  SILT_ASSIGN_OR_RETURN(b, exec::CoerceTo(b, DataType::Int64(), ctx().bind));
  SILT_ASSIGN_OR_RETURN(Value v, exec::EvaluateConstant(*b, ctx().eval));
  if (v.is_null()) {
    return Status::InvalidArgument(std::string("The ") + what + " expression must not be null.",
                                   errc::kInvalidLimitLikeExpressionIsNull);
  }
  if (v.integer() < 0) {
    return Status::InvalidArgument(std::string("The ") + what +
                                       " expression must be equal to or greater than 0, but got " +
                                       std::to_string(v.integer()) + ".",
                                   errc::kInvalidLimitLikeExpressionIsNegative);
  }
  return v.integer();
}

Result<PlanPtr> Binder::Impl::ApplyLimit(PlanPtr plan, const sql::Query& q) {
  if (!q.limit && !q.offset) return plan;
  auto node = std::make_shared<LogicalNode>();
  node->kind = LogicalKind::kLimit;
  node->columns = plan->columns;
  node->children = {plan};
  if (q.limit) {
    SILT_ASSIGN_OR_RETURN(int64_t n, ConstantInt(*q.limit, "limit", plan->columns));
    node->limit = n;
  }
  if (q.offset) {
    SILT_ASSIGN_OR_RETURN(node->offset, ConstantInt(*q.offset, "offset", plan->columns));
  }
  return PlanPtr(node);
}

PlanPtr Binder::Impl::MakeSort(PlanPtr child, std::vector<SortSpec> keys) {
  auto node = std::make_shared<LogicalNode>();
  node->kind = LogicalKind::kSort;
  node->columns = child->columns;
  node->children = {std::move(child)};
  node->sort_keys = std::move(keys);
  return node;
}

PlanPtr AggregateNode(const AggState& agg, PlanPtr input,
                      const std::vector<std::string>& key_names) {
  auto node = std::make_shared<LogicalNode>();
  node->kind = LogicalKind::kAggregate;
  node->children = {std::move(input)};
  node->group_keys = agg.group_exprs;
  node->aggregates = agg.calls;
  node->grouping_sets = agg.grouping_sets;
  for (size_t i = 0; i < agg.group_exprs.size(); ++i) {
    bool nullable = agg.group_exprs[i]->nullable || !agg.grouping_sets.empty();
    node->columns.push_back({key_names[i], agg.group_exprs[i]->type, nullable, ""});
  }
  if (agg.has_grouping_id())
    node->columns.push_back({"spark_grouping_id", DataType::Int64(), false, ""});
  for (const auto& c : agg.calls)
    node->columns.push_back({c.name, c.bound.function->result_type(), true, ""});
  return node;
}

namespace {

constexpr const char* kAggregateOuterRefMessage =
    "Expressions referencing the outer query are not supported outside of WHERE/HAVING clauses: ";

Status AggregateInWhere(const ParsedExpr& condition) {
  return Status::InvalidArgument(
      "The WHERE condition " + condition.ToString() +
          " contains invalid expressions: aggregate functions are not allowed in WHERE.",
      errc::kInvalidWhereCondition);
}

// A window call (f(…) OVER …) in e, outside subqueries.
bool ContainsWindowCall(const ParsedExpr& e) {
  if (e.type == ExprType::kFunction && e.over) return true;
  if (e.type == ExprType::kScalarSubquery || e.type == ExprType::kExists ||
      e.type == ExprType::kInSubquery) {
    return e.type == ExprType::kInSubquery && !e.children.empty() && e.children[0] &&
           ContainsWindowCall(*e.children[0]);
  }
  for (const auto& c : e.children) {
    if (c && ContainsWindowCall(*c)) return true;
  }
  return e.filter && ContainsWindowCall(*e.filter);
}

}  // namespace

Result<PlanPtr> Binder::Impl::BindSelect(const sql::Query& q) {
  SILT_ASSIGN_OR_RETURN(PlanPtr plan, BindFromList(q));
  for (const sql::LateralView& lv : q.lateral_views) {
    ExprScope ls;
    ls.columns = &plan->columns;
    ls.plan = &plan;
    SILT_ASSIGN_OR_RETURN(ExprPtr arg, BindGeneratorArg(*lv.generator, ls));
    SILT_ASSIGN_OR_RETURN(PlanPtr g, MakeGenerate(plan, *lv.generator, std::move(arg),
                                                  lv.column_aliases, lv.table_alias));
    if (lv.outer) {
      // LATERAL VIEW OUTER: the _outer form of the generator.
      std::string n = LowerName(lv.generator->names.back());
      if (!n.ends_with("_outer")) g->generator = n + "_outer";
      for (size_t k = plan->columns.size(); k < g->columns.size(); ++k)
        g->columns[k].nullable = true;
    }
    plan = std::move(g);
  }
  std::vector<OutputColumn> cols = plan->columns;
  const size_t star_width = cols.size();

  // WHERE: subquery predicates become semi/anti joins, the rest one filter.
  if (q.where) {
    if (ContainsLocalAggregate(*q.where, cols)) {
      return AggregateInWhere(*q.where);
    }
    std::vector<const ParsedExpr*> conj;
    SplitConjuncts(q.where.get(), &conj);
    ExprPtr filter;
    for (const ParsedExpr* c : conj) {
      const ParsedExpr* inner = c;
      bool negated = false;
      if (c->type == ExprType::kUnary && NameEq(c->op, "not") &&
          (c->children[0]->type == ExprType::kExists ||
           c->children[0]->type == ExprType::kInSubquery)) {
        inner = c->children[0].get();
        negated = true;
      }
      if (inner->type == ExprType::kExists || inner->type == ExprType::kInSubquery) {
        if (filter) {
          plan = MakeFilter(plan, filter);
          filter = nullptr;
        }
        SILT_RETURN_NOT_OK(ApplyPredicateSubquery(*inner, negated != inner->negated, &plan, &cols));
        cols = plan->columns;
        continue;
      }
      ExprScope s;
      s.columns = &cols;
      s.plan = &plan;
      SILT_ASSIGN_OR_RETURN(ExprPtr b, Bind(*c, s));
      SILT_ASSIGN_OR_RETURN(b, exec::CoerceTo(b, DataType::Boolean(), ctx().bind));
      filter = MakeAnd(filter, b);
    }
    if (filter) plan = MakeFilter(plan, filter);
    cols = plan->columns;
  }

  // spark.sql.legacy.parser.havingWithoutGroupByAsWhere: HAVING without GROUP BY (and without
  // aggregates) filters the rows like WHERE instead of making a global aggregate.
  const ParsedExpr* having_ast = q.having.get();
  if (having_ast && q.group_by.empty() && !q.group_by_all && q.grouping_sets.empty() &&
      ctx().config &&
      ctx().config->GetBool("spark.sql.legacy.parser.havingWithoutGroupByAsWhere", false)) {
    bool aggregates = false;
    for (const auto& si : q.select) aggregates |= si.expr && ContainsAggregate(*si.expr);
    for (const auto& o : q.order_by) aggregates |= ContainsAggregate(*o.expr);
    // Spark's parser made it a Filter over the projection: over an aggregating one it is a
    // HAVING again (ResolveAggregateFunctions), else an aggregate in it is one in WHERE.
    if (!aggregates && ContainsAggregate(*having_ast)) return AggregateInWhere(*having_ast);
    if (!aggregates) {
      ExprScope hs;
      hs.columns = &cols;
      hs.plan = &plan;
      SILT_ASSIGN_OR_RETURN(ExprPtr b, Bind(*having_ast, hs));
      SILT_ASSIGN_OR_RETURN(b, exec::CoerceTo(b, DataType::Boolean(), ctx().bind));
      plan = MakeFilter(plan, b);
      cols = plan->columns;
      having_ast = nullptr;
    }
  }

  // Expand the select list (stars) into items.
  struct Item {
    const ParsedExpr* expr = nullptr;
    int star_column = -1;
    std::string name;
  };
  std::vector<Item> items;
  for (const auto& si : q.select) {
    if (si.expr->type == ExprType::kStar) {
      bool any = false;
      for (size_t i = 0; i < star_width; ++i) {
        if (si.expr->names.empty() ? cols[i].hidden
                                   : !NameEq(cols[i].qualifier, si.expr->names.back())) {
          continue;
        }
        bool excluded = false;
        for (const auto& ex : si.expr->except_columns) excluded |= NameEq(ex, cols[i].name);
        if (excluded) continue;
        items.push_back({nullptr, static_cast<int>(i), cols[i].name});
        any = true;
      }
      if (!any && !si.expr->names.empty()) {
        return Status::InvalidArgument(
            "Cannot resolve " + Backquote(si.expr->names.back()) + ".* given input columns.",
            errc::kCannotResolveStarExpand);
      }
      continue;
    }
    items.push_back({si.expr.get(), -1, si.alias.empty() ? ColumnNameOf(*si.expr) : si.alias});
  }

  bool has_agg = !q.group_by.empty() || q.group_by_all || !q.grouping_sets.empty() || having_ast;
  for (const auto& it : items) has_agg |= it.expr && ContainsAggregate(*it.expr);
  for (const auto& o : q.order_by) has_agg |= ContainsAggregate(*o.expr);

  AggState agg;
  agg.input = &cols;
  agg.input_plan = plan;
  WindowState win;
  win.base_width = kWindowBase;
  win.named = &q.windows;
  for (size_t i = 0; i < q.windows.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (NameEq(q.windows[i].first, q.windows[j].first)) {
        return Status::InvalidArgument(
            "The definition of window " + Backquote(q.windows[i].first) + " is repetitive.",
            errc::kInvalidSqlSyntax);
      }
    }
  }
  ExprScope s;
  s.columns = &cols;
  s.window = &win;
  if (has_agg) {
    s.agg = &agg;
    s.plan = nullptr;
    // GROUP BY keys: ordinals and select aliases allowed, as in Spark.
    std::vector<const ParsedExpr*> group_asts;
    if (q.group_by_all) {
      for (const auto& it : items) {
        if (it.expr && !ContainsAggregate(*it.expr)) group_asts.push_back(it.expr);
        if (!it.expr) {
          // A column of a * item (PIVOT's SELECT * EXCEPT (…), …, GROUP BY ALL).
          const auto& c = cols[it.star_column];
          agg.group_exprs.push_back(exec::MakeColumn(it.star_column, c.type, c.name, c.nullable));
          agg.group_texts.push_back(c.name);
        }
      }
    }
    std::vector<const ParsedExpr*> listed;
    for (const auto& g : q.group_by) listed.push_back(g.get());
    for (const auto& set : q.grouping_sets) {
      for (const auto& g : set) {
        bool seen = false;
        for (const ParsedExpr* l : listed) seen |= l->ToString() == g->ToString();
        if (!seen) listed.push_back(g.get());
      }
    }
    for (const ParsedExpr* g : listed) {
      const ParsedExpr* use = g;
      if (g->type == ExprType::kLiteral && !g->literal.is_null() &&
          g->literal.type()->id() == TypeId::kInt32) {
        int64_t ord = g->literal.integer();
        if (ord < 1 || ord > static_cast<int64_t>(items.size())) {
          return Status::InvalidArgument("GROUP BY position " + std::to_string(ord) +
                                             " is not in select list (valid range is [1, " +
                                             std::to_string(items.size()) + "]).",
                                         errc::kGroupByPosOutOfRange);
        }
        const Item& it = items[ord - 1];
        if (!it.expr) {
          const auto& c = cols[it.star_column];
          agg.group_exprs.push_back(exec::MakeColumn(it.star_column, c.type, c.name, c.nullable));
          agg.group_texts.push_back(c.name);
          continue;
        }
        if (ContainsAggregate(*it.expr)) {
          return Status::InvalidArgument(
              "GROUP BY " + std::to_string(ord) +
                  " refers to an expression that contains an aggregate function.",
              errc::kGroupByPosAggregate);
        }
        use = it.expr;
      } else if (g->type == ExprType::kColumnRef && g->names.size() == 1) {
        size_t consumed;
        if (!ResolveColumn(g->names, cols, &consumed).ok()) {
          for (size_t k = 0; k < q.select.size(); ++k) {
            if (NameEq(q.select[k].alias, g->names[0])) use = q.select[k].expr.get();
          }
        }
      }
      group_asts.push_back(use);
    }
    // Spark's Aggregate cannot host a correlated reference (only Filter and Project can).
    auto refusal = RefuseOuterRefs(errc::kUnsupportedSubqueryExpressionCategoryCorrelatedReference,
                                   kAggregateOuterRefMessage);
    for (const ParsedExpr* g : group_asts) {
      ExprScope gs;
      gs.columns = &cols;
      SILT_ASSIGN_OR_RETURN(ExprPtr b, Bind(*g, gs));
      if (!exec::CheckOrderable(*b->type).ok()) {
        // A key holding maps groups by their entries in key order (Spark 4's MapSort).
        SILT_ASSIGN_OR_RETURN(b, exec::BindScalarFunction("__map_sort", {b}, ctx().bind));
      }
      agg.group_exprs.push_back(b);
      agg.group_texts.push_back(g->ToString());
    }
    // Grouping sets as indices into the keys.
    auto index_of = [&](const ParsedExpr& g) -> int {
      for (size_t k = 0; k < listed.size(); ++k) {
        if (listed[k]->ToString() == g.ToString()) return static_cast<int>(k);
      }
      return -1;
    };
    size_t nk = agg.group_exprs.size();
    if (q.grouping == sql::GroupingKind::kRollup) {
      for (size_t n = nk + 1; n-- > 0;) {
        std::vector<int> set;
        for (size_t k = 0; k < n; ++k) set.push_back(static_cast<int>(k));
        agg.grouping_sets.push_back(set);
      }
    } else if (q.grouping == sql::GroupingKind::kCube) {
      for (size_t mask = (1u << nk); mask-- > 0;) {
        std::vector<int> set;
        for (size_t k = 0; k < nk; ++k) {
          if (mask & (1u << (nk - 1 - k))) set.push_back(static_cast<int>(k));
        }
        agg.grouping_sets.push_back(set);
      }
    } else if (q.grouping == sql::GroupingKind::kGroupingSets) {
      for (const auto& set : q.grouping_sets) {
        std::vector<int> idx;
        for (const auto& g : set) idx.push_back(index_of(*g));
        agg.grouping_sets.push_back(idx);
      }
    }
  } else {
    s.plan = &plan;
  }

  // A generator item (SELECT explode(a) AS x, …): its argument is bound like any item, a
  // Generate node goes above the aggregate/window, and the item stands for its columns.
  const ParsedExpr* gen_call = nullptr;
  std::vector<std::string> gen_aliases;
  ExprPtr gen_arg;
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i].expr || !IsGeneratorCall(*items[i].expr)) continue;
    if (gen_call) {
      return Status::InvalidArgument(
          "The generator is not supported: only one generator "
          "allowed per SELECT clause but found 2: \"" +
              gen_call->ToString() + "\", \"" + items[i].expr->ToString() + "\".",
          errc::kUnsupportedGeneratorMultiGenerator);
    }
    gen_call = items[i].expr;
  }
  std::vector<ExprPtr> exprs;
  std::vector<std::string> names;
  std::vector<Item> bound_items;  // items, with a generator's expanded to one per column
  // (on the heap: this frame is on the path of every nested FROM)
  auto lateral_aliases = std::make_unique<LateralAliases>();
  lateral_aliases->columns = &cols;
  lateral_aliases->restore = &lateral;
  lateral_aliases->enclosing = std::exchange(lateral, lateral_aliases.get());
  {
    auto refusal = RefuseOuterRefs(errc::kUnsupportedSubqueryExpressionCategoryCorrelatedReference,
                                   kAggregateOuterRefMessage, has_agg);
    for (const Item& it : items) {
      if (it.expr && it.expr == gen_call) {
        for (const auto& si : q.select) {
          if (si.expr.get() == gen_call)
            gen_aliases = !si.aliases.empty() ? si.aliases
                          : si.alias.empty()  ? std::vector<std::string>{}
                                              : std::vector<std::string>{si.alias};
        }
        SILT_ASSIGN_OR_RETURN(gen_arg, BindGeneratorArg(*gen_call, s));
        std::optional<exec::Generator> g = exec::FindGenerator(gen_call->names.back());
        SILT_ASSIGN_OR_RETURN(std::vector<Field> fields,
                              exec::GeneratorOutput(*g, gen_arg->type, gen_call->ToString()));
        SILT_RETURN_NOT_OK(CheckGeneratorAliases(fields, gen_aliases));
        for (size_t k = 0; k < fields.size(); ++k) {
          std::string n = gen_aliases.empty() ? fields[k].name : gen_aliases[k];
          exprs.push_back(exec::MakeColumn(kGenerateBase + static_cast<int>(k), fields[k].type, n,
                                           fields[k].nullable));
          names.push_back(n);
          bound_items.push_back({it.expr, -1, n});
        }
        continue;
      }
      bound_items.push_back(it);
      if (!it.expr) {
        const auto& c = cols[it.star_column];
        ExprPtr ref = exec::MakeColumn(it.star_column, c.type, c.name, c.nullable);
        if (has_agg) {
          ExprScope tmp = s;
          ParsedExpr fake;
          fake.type = ExprType::kColumnRef;
          fake.names = {c.qualifier.empty() ? c.name : c.qualifier, c.name};
          if (c.qualifier.empty()) fake.names = {c.name};
          SILT_ASSIGN_OR_RETURN(ref, Bind(fake, tmp));
        }
        exprs.push_back(ref);
        names.push_back(it.name);
        continue;
      }
      SILT_ASSIGN_OR_RETURN(ExprPtr b, Bind(*it.expr, s));
      exprs.push_back(b);
      names.push_back(it.name);
      // Later items may name this one by its alias (Spark's lateral column alias).
      for (const auto& si : q.select) {
        if (si.expr.get() == it.expr && !si.alias.empty())
          lateral_aliases->aliases.emplace_back(si.alias, it.expr);
      }
    }
  }
  lateral = lateral_aliases->enclosing;
  lateral_aliases->restore = nullptr;
  items = std::move(bound_items);
  const size_t visible = exprs.size();

  ExprPtr having;
  if (having_ast) {
    // The HAVING filter sits below the window node (a window call there read a column past the
    // aggregate's output: SIGSEGV).
    if (ContainsWindowCall(*having_ast)) {
      return Status::InvalidArgument(
          "It is not allowed to use window functions inside "
          "HAVING clause.",
          errc::kWindowFunctionNotAllowedInClause);
    }
    SILT_ASSIGN_OR_RETURN(having, Bind(*having_ast, s));
    SILT_ASSIGN_OR_RETURN(having, exec::CoerceTo(having, DataType::Boolean(), ctx().bind));
  }
  ExprPtr qualify;
  if (q.qualify) {
    SILT_ASSIGN_OR_RETURN(qualify, Bind(*q.qualify, s));
    SILT_ASSIGN_OR_RETURN(qualify, exec::CoerceTo(qualify, DataType::Boolean(), ctx().bind));
  }

  // ORDER BY: select aliases and ordinals, else expressions over the input (hidden columns).
  std::vector<SortSpec> order;
  for (const auto& o : q.order_by) {
    SortSpec k;
    k.ascending = o.ascending;
    k.nulls_first = o.nulls_first.value_or(o.ascending);
    int target = -1;
    if (o.expr->type == ExprType::kLiteral && !o.expr->literal.is_null() &&
        o.expr->literal.type()->id() == TypeId::kInt32) {
      int64_t ord = o.expr->literal.integer();
      if (ord < 1 || ord > static_cast<int64_t>(visible)) {
        return Status::InvalidArgument("ORDER BY position " + std::to_string(ord) +
                                           " is not in select list (valid range is [1, " +
                                           std::to_string(visible) + "]).",
                                       errc::kOrderByPosOutOfRange);
      }
      target = static_cast<int>(ord - 1);
    } else if (o.expr->type == ExprType::kColumnRef && o.expr->names.size() == 1) {
      for (size_t i = 0; i < visible && target < 0; ++i) {
        bool aliased = i < items.size() && items[i].expr;
        if (NameEq(names[i], o.expr->names[0]) && (aliased || items[i].star_column >= 0))
          target = static_cast<int>(i);
      }
    }
    if (target < 0) {
      std::string text = o.expr->ToString();
      for (size_t i = 0; i < items.size() && target < 0; ++i) {
        if (items[i].expr && items[i].expr->ToString() == text) target = static_cast<int>(i);
      }
    }
    if (target < 0) {
      SILT_ASSIGN_OR_RETURN(ExprPtr b, Bind(*o.expr, s));
      exprs.push_back(b);
      names.push_back("__order" + std::to_string(exprs.size()));
      target = static_cast<int>(exprs.size() - 1);
    }
    k.expr = exprs[target];  // resolved to a column of the projection below
    k.expr = exec::MakeColumn(target, exprs[target]->type, names[target], exprs[target]->nullable);
    order.push_back(k);
  }
  if (q.distinct && exprs.size() > visible) {
    return Status::InvalidArgument(
        "ORDER BY expressions must appear in the select list when "
        "SELECT DISTINCT is used.",
        errc::kMissingAttributesResolvedAttributeAppearInOperation);
  }

  // Build: aggregate → having → window → project → distinct → sort → drop hidden → limit.
  if (has_agg) {
    std::vector<std::string> key_names;
    for (size_t i = 0; i < agg.group_exprs.size(); ++i)
      key_names.push_back(ColumnNameOf(*group_ast_or_null(q, i)));
    plan = AggregateNode(agg, plan, key_names);
    if (having) plan = MakeFilter(plan, having);
  }
  size_t base = plan->columns.size();
  auto fix_window = [&](const ExprPtr& e) {
    return RemapColumns(e, [&](int c) {
      return c >= kWindowBase && c < kGenerateBase ? static_cast<int>(base) + (c - kWindowBase) : c;
    });
  };
  if (!win.calls.empty()) {
    auto node = std::make_shared<LogicalNode>();
    node->kind = LogicalKind::kWindow;
    node->children = {plan};
    node->columns = plan->columns;
    for (auto& wc : win.calls) node->columns.push_back({wc.name, wc.type, true, ""});
    node->windows = win.calls;
    plan = node;
    for (auto& e : exprs) e = fix_window(e);
    if (qualify) qualify = fix_window(qualify);
  }
  if (qualify) plan = MakeFilter(plan, qualify);
  if (gen_call) {
    const int gen_base = static_cast<int>(plan->columns.size());
    if (!win.calls.empty()) gen_arg = fix_window(gen_arg);
    SILT_ASSIGN_OR_RETURN(plan, MakeGenerate(plan, *gen_call, gen_arg, gen_aliases, ""));
    for (auto& e : exprs) {
      e = RemapColumns(
          e, [&](int c) { return c >= kGenerateBase ? gen_base + (c - kGenerateBase) : c; });
    }
  }
  plan = MakeProject(plan, exprs, names);
  if (q.distinct) {
    auto d = std::make_shared<LogicalNode>();
    d->kind = LogicalKind::kDistinct;
    d->columns = plan->columns;
    d->children = {plan};
    plan = d;
  }
  if (!order.empty()) plan = MakeSort(plan, order);
  SILT_ASSIGN_OR_RETURN(plan, ApplyLimit(plan, q));
  if (exprs.size() > visible) {
    std::vector<ExprPtr> keep(exprs.begin(), exprs.begin() + visible);
    for (size_t i = 0; i < visible; ++i)
      keep[i] = exec::MakeColumn(static_cast<int>(i), exprs[i]->type, names[i], exprs[i]->nullable);
    plan =
        MakeProject(plan, keep, std::vector<std::string>(names.begin(), names.begin() + visible));
  }
  return plan;
}

// The AST of group key i (for its output name); a placeholder when the key came from an ordinal.
const ParsedExpr* Binder::Impl::group_ast_or_null(const sql::Query& q, size_t i) {
  static const ParsedExpr kEmpty = [] {
    ParsedExpr e;
    e.type = ExprType::kColumnRef;
    e.names = {"group"};
    return e;
  }();
  if (i < q.group_by.size()) return q.group_by[i].get();
  return &kEmpty;
}

}  // namespace silt::planner
