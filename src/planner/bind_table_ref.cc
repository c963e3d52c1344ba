// Binding FROM: the relation list, aliases, CTEs and views, tables and inline VALUES.
#include <functional>

#include "common/error_classes.h"
#include "planner/binder_impl.h"

namespace silt::planner {

Result<PlanPtr> Binder::Impl::BindFromList(const sql::Query& q) {
  if (q.from.empty()) {
    // SELECT without FROM: one row, no columns.
    auto v = std::make_shared<LogicalNode>();
    v->kind = LogicalKind::kValues;
    DataChunk one;
    one.num_rows_without_columns = 1;
    v->rows.push_back(std::move(one));
    return PlanPtr(v);
  }
  PlanPtr plan;
  for (const auto& ref : q.from) {
    SILT_ASSIGN_OR_RETURN(PlanPtr p, BindTableRef(*ref));
    if (!plan) {
      plan = p;
      continue;
    }
    plan = CrossJoin(plan, p);
  }
  return plan;
}

PlanPtr Binder::Impl::CrossJoin(PlanPtr l, PlanPtr r) {
  auto j = std::make_shared<LogicalNode>();
  j->kind = LogicalKind::kJoin;
  j->join = JoinKind::kCross;
  j->columns = l->columns;
  j->columns.insert(j->columns.end(), r->columns.begin(), r->columns.end());
  j->children = {std::move(l), std::move(r)};
  return j;
}

Result<PlanPtr> Binder::Impl::ApplyAlias(PlanPtr p, const sql::TableRef& ref) {
  if (!ref.column_aliases.empty()) {
    if (ref.column_aliases.size() != p->columns.size()) {
      return Status::InvalidArgument(
          "Number of column aliases (" + std::to_string(ref.column_aliases.size()) +
              ") does not match number of columns (" + std::to_string(p->columns.size()) + ").",
          errc::kAssignmentArityMismatch);
    }
    std::vector<ExprPtr> exprs;
    for (size_t i = 0; i < p->columns.size(); ++i) {
      exprs.push_back(exec::MakeColumn(static_cast<int>(i), p->columns[i].type, p->columns[i].name,
                                       p->columns[i].nullable));
    }
    p = MakeProject(p, exprs, ref.column_aliases);
  }
  if (!ref.alias.empty()) {
    // Aliasing re-qualifies the columns; wrap in a projection so shared nodes keep theirs.
    std::vector<ExprPtr> exprs;
    std::vector<std::string> names;
    for (size_t i = 0; i < p->columns.size(); ++i) {
      exprs.push_back(exec::MakeColumn(static_cast<int>(i), p->columns[i].type, p->columns[i].name,
                                       p->columns[i].nullable));
      names.push_back(p->columns[i].name);
    }
    p = MakeProject(p, exprs, names);
    p->columns = Requalify(p->columns, ref.alias);
  }
  return p;
}

// A named query (CTE or view) used in FROM: its columns renamed to `columns` (when given),
// qualified by the reference's alias or `name`, then renamed by the reference's own aliases.
Result<PlanPtr> Binder::Impl::NamedRelation(PlanPtr plan, const std::vector<std::string>& columns,
                                            const std::string& name, const sql::TableRef& ref) {
  if (!columns.empty()) {
    sql::TableRef tmp;
    tmp.column_aliases = columns;
    SILT_ASSIGN_OR_RETURN(plan, ApplyAlias(plan, tmp));
  }
  plan = MakeProject(plan, IdentityExprs(plan), Names(plan));
  plan->columns = Requalify(plan->columns, ref.alias.empty() ? name : ref.alias);
  sql::TableRef tmp;
  tmp.column_aliases = ref.column_aliases;
  return ApplyAlias(plan, tmp);
}

// A view's query, bound again at each use as Spark does: in the schema that was current when
// the view was created and without the caller's CTEs.
Result<PlanPtr> Binder::Impl::BindView(const ResolvedTable& t, const sql::TableRef& ref) {
  const TableEntry& e = *t.entry;
  if (ref.time_travel) {
    return Status::Unsupported("The feature is not supported: Time travel on the relation: " +
                                   Backquote(t.display_name) + ".",
                               errc::kUnsupportedFeatureTimeTravel);
  }
  constexpr int kMaxViewDepth = 100;  // Spark's spark.sql.view.maxNestedViewDepth
  if (view_depth >= kMaxViewDepth) {
    return Status::InvalidArgument("The depth of view " + Backquote(t.display_name) +
                                       " exceeds the maximum view resolution depth (" +
                                       std::to_string(kMaxViewDepth) +
                                       "). Analysis is aborted to avoid errors.",
                                   errc::kViewExceedMaxNestedDepth);
  }
  Result<sql::StatementNode> parsed = sql::ParseStatement(e.view_text);
  if (!parsed.ok() || (*parsed)->kind != sql::StatementKind::kQuery) {
    return Status::Corruption(
        "the stored query of view " + Backquote(t.display_name) + " cannot be parsed: " +
            (parsed.ok() ? std::string("not a query") : std::string(parsed.status().message())),
        errc::kSiltCatalogCorrupt);
  }
  const auto& q = static_cast<const sql::QueryStatement&>(**parsed);
  expanded_views.insert(t.is_temp_view ? e.name : e.schema + "." + e.name);
  temp_view_ref = temp_view_ref || t.is_temp_view;
  std::vector<CteScope> saved_ctes = std::move(cte_stack);
  cte_stack.clear();
  std::string saved_schema = self->ctx_.current_schema;
  if (!e.view_current_schema.empty()) self->ctx_.current_schema = e.view_current_schema;
  ++view_depth;
  Result<PlanPtr> p = self->BindQuery(*q.query);
  --view_depth;
  self->ctx_.current_schema = std::move(saved_schema);
  cte_stack = std::move(saved_ctes);
  SILT_RETURN_NOT_OK(p.status());
  return NamedRelation(*p, e.view_columns, ref.name.parts.back(), ref);
}

namespace {

// Whether a CTE body is worth computing once for several references: it aggregates, removes
// duplicates or computes window functions (below projections, filters, sorts and limits), so
// its result is small next to its input and recomputing it repeats the whole input's work. A
// plain select-project-join body stays inlined, where each reference gets its own pushdown.
bool WorthMaterializing(const LogicalNode* n) {
  while (n->kind == LogicalKind::kProject || n->kind == LogicalKind::kFilter ||
         n->kind == LogicalKind::kSort || n->kind == LogicalKind::kLimit) {
    if (n->children.empty()) return false;
    n = n->children[0].get();
  }
  return n->kind == LogicalKind::kAggregate || n->kind == LogicalKind::kDistinct ||
         n->kind == LogicalKind::kWindow;
}

}  // namespace

Result<PlanPtr> Binder::Impl::MaterializedCte(const CteScope& scope, size_t index, PlanPtr body) {
  if (!scope.references || !scope.materialized || index >= scope.references->size() ||
      (*scope.references)[index] < 2 || !ctx().execute || !WorthMaterializing(body.get())) {
    return body;
  }
  PlanPtr& cached = (*scope.materialized)[index];
  if (!cached && ctx().explain_only) {
    // EXPLAIN shows the materialization without running it: a LocalRelation with no rows whose
    // child is the CTE's plan (shown in the logical plans, estimated from; never executed).
    auto v = std::make_shared<LogicalNode>();
    v->kind = LogicalKind::kValues;
    v->columns = body->columns;
    v->children = {body};
    v->table_name = (*scope.ctes)[index].name;
    cached = std::move(v);
  }
  if (!cached) {
    // When running it fails, the body stays inlined, shared by the references (their execution
    // reports the same error, or runs where this could not, as in the planner's unit tests).
    Result<std::vector<DataChunk>> chunks = ctx().execute(body);
    if (!chunks.ok()) {
      cached = body;
      return body;
    }
    auto v = std::make_shared<LogicalNode>();
    v->kind = LogicalKind::kValues;
    v->columns = body->columns;
    v->rows = std::move(*chunks);
    v->table_name = (*scope.ctes)[index].name;  // EXPLAIN: the CTE it materializes
    cached = std::move(v);
  }
  // Each reference gets its own node; the rows are shared (copy-on-write).
  return std::make_shared<LogicalNode>(*cached);
}

Result<PlanPtr> Binder::Impl::BindTableRef(const sql::TableRef& ref) {
  switch (ref.kind) {
    case sql::TableRef::Kind::kTable: {
      if (ref.function_name == "STREAM" && ctx().bind_stream) {
        SILT_ASSIGN_OR_RETURN(PlanPtr p, ctx().bind_stream(ref));
        sql::TableRef tmp;
        tmp.column_aliases = ref.column_aliases;
        return ApplyAlias(p, tmp);
      }
      if (ref.function_name == "STREAM") {
        // sql/streaming_table.h: only a streaming table's refresh reads a table as a stream.
        return Status::NotImplemented(
            "STREAM " + ref.name.ToString() +
                " reads a table as a stream; only CREATE [OR REFRESH] STREAMING TABLE … AS a "
                "query over it does that (a batch query reads the table without STREAM)",
            errc::kNotImplemented);
      }
      // CTE?
      if (!ref.name.is_path() && ref.name.parts.size() == 1) {
        std::string lower = LowerName(ref.name.parts[0]);
        for (size_t level = cte_stack.size(); level-- > 0;) {
          const sql::CommonTableExpr* cte = cte_stack[level].Find(lower);
          if (!cte) continue;
          if (cte_depth >= kMaxCteDepth) {
            return Status::InvalidArgument("The common table expression " + Backquote(cte->name) +
                                               " is nested more than " +
                                               std::to_string(kMaxCteDepth) +
                                               " levels deep (CTEs reading CTEs); split the query.",
                                           errc::kSiltQueryTooDeep);
          }
          // Bind the CTE body with only the enclosing scopes and the CTEs defined before it
          // visible; the scopes above are set aside (cheap: a scope shares its name map).
          std::vector<CteScope> above(cte_stack.begin() + static_cast<std::ptrdiff_t>(level),
                                      cte_stack.end());
          cte_stack.resize(level);
          CteScope scope = above.front();
          scope.visible = static_cast<size_t>(cte - scope.ctes->data());
          cte_stack.push_back(std::move(scope));
          ++cte_depth;
          Result<PlanPtr> p = self->BindQuery(*cte->query);
          --cte_depth;
          cte_stack.resize(level);
          cte_stack.insert(cte_stack.end(), above.begin(), above.end());
          SILT_RETURN_NOT_OK(p.status());
          SILT_ASSIGN_OR_RETURN(
              PlanPtr body,
              MaterializedCte(above.front(), static_cast<size_t>(cte - above.front().ctes->data()),
                              std::move(*p)));
          return NamedRelation(std::move(body), cte->column_aliases, cte->name, ref);
        }
      }
      // A system table not written yet reads as empty (must_exist=false gives it without snapshot).
      SILT_ASSIGN_OR_RETURN(ResolvedTable t, self->ResolveTable(ref.name, ref.time_travel,
                                                                !IsSystemTableName(ref.name)));
      if (t.is_view) return BindView(t, ref);
      std::string q =
          ref.alias.empty() ? (ref.name.is_path() ? "" : ref.name.parts.back()) : ref.alias;
      SILT_ASSIGN_OR_RETURN(PlanPtr p, self->ScanPlan(t, q));
      sql::TableRef tmp;
      tmp.column_aliases = ref.column_aliases;
      return ApplyAlias(p, tmp);
    }
    case sql::TableRef::Kind::kSubquery: {
      SILT_ASSIGN_OR_RETURN(PlanPtr p, self->BindQuery(*ref.subquery));
      p = MakeProject(p, IdentityExprs(p), Names(p));
      p->columns = Requalify(p->columns, ref.alias);
      sql::TableRef tmp;
      tmp.column_aliases = ref.column_aliases;
      return ApplyAlias(p, tmp);
    }
    case sql::TableRef::Kind::kValues:
      return BindValues(ref);
    case sql::TableRef::Kind::kFunction:
      return BindTableFunction(ref);
    case sql::TableRef::Kind::kJoin:
      return BindJoin(ref);
  }
  return Status::Internal("unknown table reference");
}

std::vector<ExprPtr> Binder::Impl::IdentityExprs(const PlanPtr& p) {
  std::vector<ExprPtr> out;
  for (size_t i = 0; i < p->columns.size(); ++i) {
    out.push_back(exec::MakeColumn(static_cast<int>(i), p->columns[i].type, p->columns[i].name,
                                   p->columns[i].nullable));
  }
  return out;
}

std::vector<std::string> Binder::Impl::Names(const PlanPtr& p) {
  std::vector<std::string> out;
  for (const auto& c : p->columns) out.push_back(c.name);
  return out;
}

Result<PlanPtr> Binder::Impl::BindValues(const sql::TableRef& ref) {
  std::vector<OutputColumn> none;
  size_t width = ref.values.empty() ? 0 : ref.values[0].size();
  std::vector<std::vector<Value>> rows;
  std::vector<TypePtr> types(width, DataType::Null());
  for (const auto& row : ref.values) {
    if (row.size() != width) {
      return Status::InvalidArgument(
          "Invalid inline table. Inline table "
          "expected " +
              std::to_string(width) + " columns but found " + std::to_string(row.size()) +
              " columns in a row.",
          errc::kInvalidInlineTableNumColumnsMismatch);
    }
    std::vector<Value> vals;
    for (size_t i = 0; i < width; ++i) {
      SILT_ASSIGN_OR_RETURN(ExprPtr b, self->BindExpression(*row[i], none));
      if (!exec::IsConstantExpr(*b)) {
        return Status::InvalidArgument(
            "Invalid inline "
            "table. Cannot evaluate the expression " +
                b->ToString() + " in inline table definition.",
            errc::kInvalidInlineTableCannotEvaluateExpressionInInlineTable);
      }
      SILT_ASSIGN_OR_RETURN(Value v, exec::EvaluateConstant(*b, ctx().eval));
      SILT_ASSIGN_OR_RETURN(types[i], exec::CommonType(types[i], v.type()));
      vals.push_back(std::move(v));
    }
    rows.push_back(std::move(vals));
  }
  auto node = std::make_shared<LogicalNode>();
  node->kind = LogicalKind::kValues;
  for (size_t i = 0; i < width; ++i) {
    std::string name =
        i < ref.column_aliases.size() ? ref.column_aliases[i] : "col" + std::to_string(i + 1);
    TypePtr t = types[i]->id() == TypeId::kNull ? DataType::Null() : types[i];
    node->columns.push_back({name, t, true, ref.alias});
  }
  if (!ref.column_aliases.empty() && ref.column_aliases.size() != width) {
    return Status::InvalidArgument("Number of column aliases does not match number of columns.",
                                   errc::kAssignmentArityMismatch);
  }
  DataChunk chunk;
  for (size_t i = 0; i < width; ++i) chunk.columns.emplace_back(node->columns[i].type);
  chunk.num_rows_without_columns = rows.size();
  for (const auto& row : rows) {
    for (size_t i = 0; i < width; ++i) {
      SILT_ASSIGN_OR_RETURN(
          ExprPtr c, exec::CoerceTo(exec::MakeConstant(row[i]), node->columns[i].type, ctx().bind));
      SILT_ASSIGN_OR_RETURN(Value v, exec::EvaluateConstant(*c, ctx().eval));
      SILT_RETURN_NOT_OK(chunk.columns[i].AppendValue(v));
    }
  }
  node->rows.push_back(std::move(chunk));
  return PlanPtr(node);
}

}  // namespace silt::planner
