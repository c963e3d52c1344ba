#include "planner/binder.h"

#include <pthread.h>

#include <cstdint>

#include "common/error_classes.h"
#include "delta/operations_history.h"
#include "io/object_store_factory.h"
#include "io/read_confinement.h"
#include "planner/binder_impl.h"
#include "planner/file_source.h"

namespace silt::planner {

bool NameEq(std::string_view a, std::string_view b) { return EqualsIgnoreCase(a, b); }

std::string Backquote(const std::string& s) { return "`" + s + "`"; }

Status Unresolved(const std::string& name, const std::vector<OutputColumn>& cols) {
  std::string suggestions;
  size_t n = 0;
  for (const OutputColumn& c : cols) {
    if (n++ == 5) break;
    if (!suggestions.empty()) suggestions += ", ";
    suggestions += Backquote(c.qualifier.empty() ? c.name : c.qualifier + "`.`" + c.name);
  }
  return Status::InvalidArgument(
      "A column, variable, or function parameter with name " + Backquote(name) +
          " cannot be resolved. Did you mean one of the following? [" + suggestions + "].",
      errc::kUnresolvedColumnWithSuggestion);
}

// Splits an AST predicate into its AND conjuncts (pointers into the tree).
void SplitConjuncts(const ParsedExpr* e, std::vector<const ParsedExpr*>* out) {
  if (e->type == ExprType::kBinary && NameEq(e->op, "and")) {
    SplitConjuncts(e->children[0].get(), out);
    SplitConjuncts(e->children[1].get(), out);
    return;
  }
  out->push_back(e);
}

// Splits a bound predicate into AND conjuncts.
void SplitBound(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (e->kind == ExprKind::kAnd) {
    SplitBound(e->children[0], out);
    SplitBound(e->children[1], out);
    return;
  }
  out->push_back(e);
}

ExprPtr RemapColumns(const ExprPtr& e, const std::function<int(int)>& map) {
  if (!e) return e;
  if (e->kind == ExprKind::kColumn) {
    auto copy = std::make_shared<exec::Expr>(*e);
    copy->column = map(e->column);
    return copy;
  }
  if (e->children.empty()) return e;
  auto copy = std::make_shared<exec::Expr>(*e);
  for (auto& c : copy->children) c = RemapColumns(c, map);
  return copy;
}

bool ReadsOnly(const ExprPtr& e, int lo, int hi) {
  std::vector<int> cols;
  exec::CollectColumns(*e, &cols);
  for (int c : cols) {
    if (c < lo || c >= hi) return false;
  }
  return true;
}

bool ContainsAggregate(const ParsedExpr& e) {
  if (e.type == ExprType::kFunction && !e.over && !e.names.empty() &&
      (exec::IsAggregateFunction(e.names.back()) || e.names.back() == "__pivot_agg")) {
    return true;
  }
  if (e.type == ExprType::kScalarSubquery || e.type == ExprType::kExists ||
      e.type == ExprType::kInSubquery) {
    // Aggregates inside a subquery belong to it; only the IN value counts.
    return e.type == ExprType::kInSubquery && !e.children.empty() &&
           ContainsAggregate(*e.children[0]);
  }
  for (const auto& c : e.children) {
    if (c && ContainsAggregate(*c)) return true;
  }
  if (e.filter && ContainsAggregate(*e.filter)) return true;
  return false;
}

const ExprPtr& GroupKeySource(const ExprPtr& key) {
  return key->kind == ExprKind::kCall && key->name == "__map_sort" ? key->children[0] : key;
}

ExprPtr MakeAnd(ExprPtr a, ExprPtr b) {
  if (!a) return b;
  if (!b) return a;
  return exec::MakeSpecial(ExprKind::kAnd, DataType::Boolean(), {std::move(a), std::move(b)});
}

std::vector<OutputColumn> Requalify(std::vector<OutputColumn> cols, const std::string& q) {
  for (auto& c : cols) c.qualifier = q;
  return cols;
}

std::string ColumnNameOf(const ParsedExpr& expr) {
  if (expr.type == ExprType::kColumnRef && !expr.names.empty()) return expr.names.back();
  if (expr.type == ExprType::kFieldAccess) return expr.field;
  return expr.ToString();
}

namespace {

// How much of this thread's stack is in use below `here` (0 when the bounds are unknown).
size_t StackInUse(uintptr_t here, size_t* size) {
  thread_local uintptr_t top = 0;
  thread_local size_t stack_size = 0;
  if (!top) {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return 0;
    void* addr = nullptr;
    size_t sz = 0;
    if (pthread_attr_getstack(&attr, &addr, &sz) == 0) {
      top = reinterpret_cast<uintptr_t>(addr) + sz;
      stack_size = sz;
    }
    pthread_attr_destroy(&attr);
    if (!top) return 0;
  }
  *size = stack_size;
  return here < top ? top - here : 0;
}

// Counts the references to the CTE names of `counts` (lower-case name → count) in a query: FROM
// items naming one of them, in CTE bodies, subqueries and expressions. Inner WITH clauses that
// shadow a name are not told apart (an upper bound is all MaterializedCte needs).
class CteReferenceCounter {
 public:
  explicit CteReferenceCounter(std::map<std::string, int>* counts) : counts_(counts) {}

  void Query(const sql::Query* q) {
    if (!q) return;
    for (const auto& c : q->ctes) Query(c.query.get());
    Query(q->left.get());
    Query(q->right.get());
    for (const auto& item : q->select) Expr(item.expr.get());
    for (const auto& ref : q->from) TableRef(ref.get());
    for (const auto& lv : q->lateral_views) Expr(lv.generator.get());
    Expr(q->where.get());
    for (const auto& g : q->group_by) Expr(g.get());
    for (const auto& set : q->grouping_sets) {
      for (const auto& g : set) Expr(g.get());
    }
    Expr(q->having.get());
    Expr(q->qualify.get());
    for (const auto& w : q->windows) Window(w.second);
    for (const auto& o : q->order_by) Expr(o.expr.get());
    Expr(q->limit.get());
    Expr(q->offset.get());
  }

 private:
  void TableRef(const sql::TableRef* ref) {
    if (!ref) return;
    switch (ref->kind) {
      case sql::TableRef::Kind::kTable:
        if (!ref->name.is_path() && ref->name.parts.size() == 1) {
          auto f = counts_->find(LowerName(ref->name.parts[0]));
          if (f != counts_->end()) ++f->second;
        }
        break;
      case sql::TableRef::Kind::kSubquery:
        Query(ref->subquery.get());
        break;
      case sql::TableRef::Kind::kJoin:
        TableRef(ref->left.get());
        TableRef(ref->right.get());
        Expr(ref->join_condition.get());
        break;
      case sql::TableRef::Kind::kValues:
        for (const auto& row : ref->values) {
          for (const auto& e : row) Expr(e.get());
        }
        break;
      case sql::TableRef::Kind::kFunction:
        for (const auto& e : ref->function_args) Expr(e.get());
        break;
    }
  }
  void Window(const sql::WindowSpec& w) {
    for (const auto& e : w.partition_by) Expr(e.get());
    for (const auto& o : w.order_by) Expr(o.expr.get());
  }
  void Expr(const sql::ParsedExpr* e) {
    if (!e) return;
    for (const auto& c : e->children) Expr(c.get());
    Expr(e->filter.get());
    if (e->over) Window(*e->over);
    for (const auto& o : e->within_group) Expr(o.expr.get());
    Query(e->subquery.get());
  }

  std::map<std::string, int>* counts_;
};

}  // namespace

Result<PlanPtr> Binder::BindQuery(const sql::Query& q) {
  // Nested queries (subqueries, CTE and view bodies) bind recursively: past half of the
  // thread's stack binding stops with a clear error instead of overflowing it (the other half
  // is left to the optimizer and the operators, which recurse over the same plan depth).
  char probe = 0;
  size_t stack_size = 0;
  size_t used = StackInUse(reinterpret_cast<uintptr_t>(&probe), &stack_size);
  if (stack_size && used > stack_size / 2) {
    return Status::InvalidArgument(
        "The query nests subqueries, CTEs or views too deeply to bind (" +
            std::to_string(used >> 10) + " KiB of a " + std::to_string(stack_size >> 10) +
            " KiB stack); split the query.",
        errc::kSiltQueryTooDeep);
  }
  if (!q.ctes.empty()) {
    auto names = std::make_shared<std::map<std::string, size_t>>();
    for (size_t i = 0; i < q.ctes.size(); ++i) (*names)[LowerName(q.ctes[i].name)] = i;
    std::map<std::string, int> counts;
    for (const auto& [name, index] : *names) counts[name] = 0;
    CteReferenceCounter(&counts).Query(&q);
    auto references = std::make_shared<std::vector<int>>(q.ctes.size(), 0);
    for (const auto& [name, index] : *names) (*references)[index] = counts[name];
    impl_->cte_stack.push_back({std::move(names), &q.ctes, q.ctes.size(), std::move(references),
                                std::make_shared<std::vector<PlanPtr>>(q.ctes.size())});
  }
  struct Pop {
    Binder::Impl* impl;
    bool active;
    ~Pop() {
      if (active) impl->cte_stack.pop_back();
    }
  } pop{impl_.get(), !q.ctes.empty()};
  if (q.set_op != sql::SetOp::kNone) {
    SILT_ASSIGN_OR_RETURN(PlanPtr p, impl_->BindSetOp(q));
    SILT_ASSIGN_OR_RETURN(p, impl_->OrderByOutput(p, q));
    return impl_->ApplyLimit(p, q);
  }
  return impl_->BindSelect(q);
}

// ---------------------------------------------------------------------------------------------

Binder::Binder(BinderContext ctx) : ctx_(std::move(ctx)), impl_(std::make_unique<Impl>(this)) {
  // Functions that take a type string (from_json) parse it with the SQL type grammar.
  if (!ctx_.bind.parse_data_type) ctx_.bind.parse_data_type = sql::ParseDataType;
}
Binder::~Binder() = default;

Result<PlanPtr> Binder::BindTableRef(const sql::TableRef& ref) { return impl_->BindTableRef(ref); }
const std::set<std::string>& Binder::expanded_views() const { return impl_->expanded_views; }
bool Binder::referenced_temp_view() const { return impl_->temp_view_ref; }

namespace {

Status SystemTableReadOnly(const ResolvedTable& table, std::string_view command) {
  return Status::InvalidArgument(
      "The feature is not supported: Table " + Backquote(table.display_name) +
          " does not support " + std::string(command) +
          ". It is a read-only system table written by the maintenance service.",
      errc::kUnsupportedFeatureTableOperation);
}

}  // namespace

Status ExpectTable(const ResolvedTable& table, std::string_view command) {
  if (table.is_system && command.rfind("DESCRIBE", 0) != 0)
    return SystemTableReadOnly(table, command);
  if (table.entry && IsFileSourceTable(*table.entry) && command != "INSERT" &&
      command.rfind("DESCRIBE", 0) != 0) {
    // Spark's file-source tables (V1 tables) support neither the Delta commands nor row-level
    // changes.
    return Status::InvalidArgument("Table " + Backquote(table.display_name) + " does not support " +
                                       std::string(command) + ".",
                                   errc::kUnsupportedFeatureTableOperation);
  }
  if (!table.is_view) return Status::OK();
  return Status::InvalidArgument("'" + std::string(command) + "' expects a table but " +
                                     Backquote(table.display_name) + " is a view.",
                                 errc::kExpectTableNotViewNoAlternative);
}

Result<exec::ExprPtr> Binder::BindExpression(const sql::ParsedExpr& expr,
                                             const std::vector<OutputColumn>& columns,
                                             const std::string& qualifier) {
  std::vector<OutputColumn> cols = columns;
  if (!qualifier.empty()) cols = Requalify(cols, qualifier);
  ExprScope s;
  s.columns = &cols;
  return impl_->Bind(expr, s);
}

bool IsSystemTableName(const sql::TableName& name) {
  if (name.is_path() || name.parts.size() != 3) return false;
  return NameEq(name.parts[0], delta::kSystemCatalog) &&
         NameEq(name.parts[1], delta::kSystemStorageSchema) &&
         (NameEq(name.parts[2], delta::kOperationsHistoryTable) ||
          NameEq(name.parts[2], delta::kDatabricksOperationsHistoryTable));
}

Result<ResolvedTable> Binder::ResolveTable(const sql::TableName& name, const sql::TimeTravel* tt,
                                           bool must_exist, bool load_files) {
  ResolvedTable t;
  if (!name.is_path() && name.parts.empty())
    return Status::InvalidArgument("a table name is required", errc::kParseSyntaxError);
  if (!name.is_path() && name.parts.size() == 1 && ctx_.temp_views) {
    auto it = ctx_.temp_views->find(LowerName(name.parts[0]));
    if (it != ctx_.temp_views->end()) {
      const TempView& v = it->second;
      t.is_view = t.is_temp_view = true;
      t.display_name = v.name;
      TableEntry& e = t.entry.emplace();
      e.name = LowerName(v.name);
      e.managed = false;
      e.format = "view";
      e.view_text = v.sql;
      e.view_columns = v.columns;
      e.view_current_schema = v.current_schema;
      return t;
    }
  }
  if (IsSystemTableName(name)) {
    // The operations-history table (spec A.7): a Delta table inside the warehouse, both names.
    t.is_system = true;
    t.location = ChildLocation(ctx_.catalog->warehouse(), delta::kOperationsHistoryKey);
    t.display_name = std::string(delta::kSystemCatalog) + "." + delta::kSystemStorageSchema + "." +
                     LowerName(name.parts[2]);
  } else if (name.is_path()) {
    std::string fmt = LowerName(name.path_format);
    if (fmt != "delta" && !fmt.empty()) {
      return Status::NotImplemented(
          "reading " + fmt + " paths directly is not supported; use delta.`path`",
          errc::kSiltUnsupportedDataSource);
    }
    t.location = name.path;
    t.display_name = "delta.`" + name.path + "`";
  } else {
    std::string schema =
        name.parts.size() >= 2 ? name.parts[name.parts.size() - 2] : ctx_.current_schema;
    const std::string& table = name.parts.back();
    if (name.parts.size() > 3 ||
        (name.parts.size() == 3 && !NameEq(name.parts[0], "spark_catalog"))) {
      return Status::NotFound(
          "The table or view " + Backquote(name.ToString()) + " cannot be found.",
          errc::kTableOrViewNotFound);
    }
    Result<TableEntry> e = ctx_.catalog->GetTable(schema, table);
    if (!e.ok()) {
      if (e.status().code() == StatusCode::kNotFound) {
        return Status::NotFound(
            "The table or view " + Backquote(name.ToString()) +
                " cannot be found. Verify the spelling and correctness of the schema and catalog.",
            errc::kTableOrViewNotFound);
      }
      return e.status();
    }
    t.entry = *e;
    t.location = e->location;
    t.display_name = e->schema + "." + e->name;
    t.is_view = e->format == "view";
    if (t.is_view) return t;
    if (IsFileSourceTable(*e)) {
      if (tt) {
        return Status::InvalidArgument(
            "Time travel on the relation: " + Backquote(t.display_name) + " is not supported.",
            errc::kUnsupportedFeatureTimeTravel);
      }
      SILT_ASSIGN_OR_RETURN(t.store, OpenTableStore(t.location, ctx_.catalog->clock()));
      SILT_ASSIGN_OR_RETURN(t.snapshot, FileSourceSnapshot(*e, t.store, ctx_.catalog->clock()));
      return t;
    }
  }
  SILT_ASSIGN_OR_RETURN(t.store, OpenTableStore(t.location, ctx_.catalog->clock()));
  std::optional<int64_t> version;
  if (tt) {
    if (tt->version) {
      version = *tt->version;
    } else {
      int64_t ts_ms;
      if (tt->timestamp) {
        std::vector<OutputColumn> none;
        SILT_ASSIGN_OR_RETURN(ExprPtr b, BindExpression(*tt->timestamp, none));
        SILT_ASSIGN_OR_RETURN(b, exec::CoerceTo(b, DataType::Timestamp(), ctx_.bind));
        SILT_ASSIGN_OR_RETURN(Value v, exec::EvaluateConstant(*b, ctx_.eval));
        if (v.is_null()) {
          return Status::InvalidArgument("The provided timestamp is not a valid timestamp.",
                                         errc::kDeltaTimestampInvalid);
        }
        ts_ms = v.integer() / 1000;
      } else {
        SILT_ASSIGN_OR_RETURN(ts_ms, delta::ParseTimestampLiteralMillis(tt->timestamp_text));
      }
      SILT_ASSIGN_OR_RETURN(version, delta::VersionAtTimestamp(*t.store, ts_ms));
    }
  }
  delta::SnapshotOptions snapshot_options{.load_files = load_files};
  if (ctx_.config && ctx_.config->GetBool(kConfineReadsKey, false)) {
    SILT_ASSIGN_OR_RETURN(
        snapshot_options.read_confinement,
        ReadConfinement::Make(ctx_.config->Get(kAllowedReadPrefixesKey).value_or("")));
  }
  Result<std::shared_ptr<const delta::Snapshot>> snap =
      delta::Snapshot::Load(t.store, version, snapshot_options);
  if (!snap.ok()) {
    if (snap.status().code() == StatusCode::kNotFound && !version) {
      if (!must_exist) return t;
      if (t.is_system) {
        return Status::NotFound(
            "The system table " + t.display_name +
                " has no rows yet (the maintenance service has not written it).",
            errc::kDeltaTableNotFound);
      }
      if (name.is_path()) {
        return Status::NotFound("Delta table " + Backquote(name.path) + " doesn't exist.",
                                errc::kDeltaTableNotFound);
      }
    }
    return snap.status();
  }
  t.snapshot = *snap;
  return t;
}

Result<PlanPtr> Binder::ScanPlan(const ResolvedTable& table, const std::string& qualifier) {
  if (!table.snapshot && table.is_system) {
    // Not written yet: no rows, the table's columns.
    auto node = std::make_shared<LogicalNode>();
    node->kind = LogicalKind::kValues;
    for (const Field& f : delta::OperationsHistorySchema())
      node->columns.push_back({f.name, f.type, f.nullable, qualifier});
    return PlanPtr(node);
  }
  if (!table.snapshot) {
    return Status::NotFound("Delta table " + table.display_name + " doesn't exist.",
                            errc::kDeltaTableNotFound);
  }
  if (table.entry && table.entry->format == "json") {
    // A JSON table: its rows, parsed now (file_source.h).
    auto node = std::make_shared<LogicalNode>();
    node->kind = LogicalKind::kValues;
    for (const Field& f : table.snapshot->schema())
      node->columns.push_back({f.name, f.type, f.nullable, qualifier});
    SILT_ASSIGN_OR_RETURN(std::vector<DataChunk> rows,
                          ReadJsonRows(*table.snapshot, ctx_.bind, ctx_.eval));
    node->rows = std::move(rows);
    return PlanPtr(node);
  }
  auto node = std::make_shared<LogicalNode>();
  node->kind = LogicalKind::kScan;
  node->snapshot = table.snapshot;
  node->table_name = table.display_name;
  for (const Field& f : table.snapshot->schema()) {
    node->columns.push_back({f.name, f.type, f.nullable, qualifier});
    node->scan_columns.push_back(f.name);
  }
  return PlanPtr(node);
}

}  // namespace silt::planner
