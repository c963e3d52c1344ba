// Private to the binder files (src/planner/bind_*.cc): Binder::Impl, the binding scopes and shared
// helpers.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/ascii.h"
#include "delta/change_data_feed.h"
#include "delta/history.h"
#include "exec/aggregate.h"
#include "exec/functions.h"
#include "exec/functions/datetime_calendar.h"
#include "exec/generate.h"
#include "exec/lambda.h"
#include "io/path.h"
#include "planner/binder.h"
#include "sql/parser.h"

namespace silt::planner {

using exec::ExprKind;
using exec::ExprPtr;
using sql::ExprType;
using sql::ParsedExpr;

// Helpers shared by the binder files (defined in binder.cc).
bool NameEq(std::string_view a, std::string_view b);
std::string Backquote(const std::string& s);
Status Unresolved(const std::string& name, const std::vector<OutputColumn>& cols);
void SplitConjuncts(const ParsedExpr* e, std::vector<const ParsedExpr*>* out);
void SplitBound(const ExprPtr& e, std::vector<ExprPtr>* out);
bool ReadsOnly(const ExprPtr& e, int lo, int hi);
bool ContainsAggregate(const ParsedExpr& e);
// The expression a GROUP BY key was bound from (a key holding maps is wrapped in __map_sort).
const ExprPtr& GroupKeySource(const ExprPtr& key);
ExprPtr MakeAnd(ExprPtr a, ExprPtr b);
std::vector<OutputColumn> Requalify(std::vector<OutputColumn> cols, const std::string& q);

// State of the aggregation a SELECT block performs, used while binding its post-aggregation
// expressions (SELECT list, HAVING, ORDER BY).
struct AggState {
  const std::vector<OutputColumn>* input = nullptr;  // pre-aggregation columns
  PlanPtr input_plan;  // the plan producing *input (correlated subqueries read its key values)
  std::vector<std::string> group_texts;
  std::vector<ExprPtr> group_exprs;
  std::vector<AggregateCall> calls;
  std::vector<std::string> call_texts;
  std::vector<std::vector<int>> grouping_sets;
  // The aggregate's output (HashAggregateOperator's order): the keys, spark_grouping_id when
  // there are several grouping sets, then the aggregate calls.
  bool has_grouping_id() const { return grouping_sets.size() > 1; }
  int call_column(size_t i) const {
    return static_cast<int>(group_exprs.size() + (has_grouping_id() ? 1 : 0) + i);
  }
  size_t width() const { return group_exprs.size() + calls.size() + (has_grouping_id() ? 1 : 0); }
};

// The Aggregate node of `agg` over `input` (its output columns in AggState's order).
PlanPtr AggregateNode(const AggState& agg, PlanPtr input,
                      const std::vector<std::string>& key_names);

struct WindowState {
  size_t base_width = 0;
  // The SELECT block's WINDOW clause: `OVER w` / `OVER (w)` name one of these.
  const std::vector<std::pair<std::string, sql::WindowSpec>>* named = nullptr;
  std::vector<WindowCall> calls;
  std::vector<std::string> texts;
};

// Where an expression is being bound.
struct ExprScope {
  std::vector<OutputColumn>* columns = nullptr;  // what kColumn indices refer to
  AggState* agg = nullptr;                       // binding over an aggregate's output
  WindowState* window = nullptr;                 // window calls allowed
  PlanPtr* plan = nullptr;  // mutable input plan: correlated subqueries join onto it
  const std::vector<OutputColumn>* outer = nullptr;  // outer query columns (correlation)
  std::vector<std::pair<int, int>>* outer_refs =
      nullptr;  // (outer index, placeholder index) collected
  // Parameters of the lambdas being bound (innermost last): name → placeholder column.
  std::vector<std::pair<std::string, exec::ExprPtr>> lambda_vars;
};

// The SELECT items bound so far that have an alias, over the block's `columns`: a later item may
// name one (Spark's lateral column alias, `SELECT a + 1 AS b, b * 2`) when no column has that
// name. Kept by Binder::Impl (not in ExprScope, whose size every binding frame pays).
struct LateralAliases {
  const std::vector<OutputColumn>* columns = nullptr;
  std::vector<std::pair<std::string, const ParsedExpr*>> aliases;
  // When set, *restore = enclosing at destruction (the SELECT block's, on every return).
  LateralAliases** restore = nullptr;
  LateralAliases* enclosing = nullptr;
  ~LateralAliases() {
    if (restore) *restore = enclosing;
  }
};

// An enclosing query's columns seen by a subquery being bound (SubqueryByOuterValues): a column
// reference that resolves in none of the subquery's own scopes resolves here, innermost frame
// first. Collecting, it records the column and binds as a typed NULL; substituting, it binds as
// the constant `values[column]`.
//
// An aggregating enclosing query also hosts the subquery's outer aggregates (Spark's
// `HAVING EXISTS (SELECT … WHERE b < min(outer.x))`): an aggregate call in the subquery whose
// columns are all the frame's. Collecting, it is bound in `agg_scope` (added to the enclosing
// aggregate) and recorded in `aggs`; substituting, it binds as `agg_values[i]` of `aggs[i]`.
struct OuterFrame {
  const std::vector<OutputColumn>* columns = nullptr;
  std::set<int>* collected = nullptr;          // collecting mode
  const std::vector<Value>* values = nullptr;  // substituting mode
  ExprScope* agg_scope = nullptr;              // collecting mode, aggregating enclosing query
  std::vector<std::pair<std::string, ExprPtr>>* aggs = nullptr;  // text → bound in agg_scope
  const std::vector<Value>* agg_values = nullptr;                // substituting mode
};

// The CTEs of one WITH clause: name → its definitions' index. A CTE body sees only the CTEs defined
// before it (Spark), so binding CTE k pushes a scope with visible = k; a scope is cheap to copy
// (the map is shared), so a chain of n CTEs binds in O(n).
struct CteScope {
  std::shared_ptr<const std::map<std::string, size_t>> names;
  const std::vector<sql::CommonTableExpr>* ctes = nullptr;
  size_t visible = 0;
  // Per CTE: how many times the statement names it (an upper bound: shadowing names count too)
  // and, once run, its materialized result (a CTE read more than once whose body aggregates is
  // computed once, as DuckDB does; see Binder::Impl::MaterializedCte).
  std::shared_ptr<const std::vector<int>> references;
  std::shared_ptr<std::vector<PlanPtr>> materialized;
  const sql::CommonTableExpr* Find(const std::string& lower_name) const {
    auto f = names->find(lower_name);
    return f == names->end() || f->second >= visible ? nullptr : &(*ctes)[f->second];
  }
};

// Nested CTE references (a CTE whose body reads a CTE whose body reads ...) are bound
// recursively; past this depth binding stops with a clear error instead of exhausting the stack.
inline constexpr int kMaxCteDepth = 1000;

struct Binder::Impl {
  Binder* self;
  std::vector<CteScope> cte_stack;
  int cte_depth = 0;
  std::set<std::string> expanded_views;  // see Binder::expanded_views()
  bool temp_view_ref = false;
  int view_depth = 0;

  explicit Impl(Binder* b) : self(b) {}
  const BinderContext& ctx() const { return self->ctx_; }

  // ------------------------------------------------------------------ column resolution
  Result<int> ResolveColumn(const std::vector<std::string>& names,
                            const std::vector<OutputColumn>& cols, size_t* consumed);
  Result<ExprPtr> FieldAccess(ExprPtr base, const std::string& field);

  // ------------------------------------------------------------------ expressions
  Result<ExprPtr> Bind(const ParsedExpr& e, ExprScope& s);
  Result<ExprPtr> BindColumnRef(const ParsedExpr& e, ExprScope& s);
  Result<ExprPtr> BindIntervalArithmetic(const ParsedExpr& x, const ParsedExpr& interval,
                                         bool subtract, ExprScope& s);
  // A constant call evaluated into a literal (an evaluation error leaves it to the rows).
  ExprPtr FoldConstant(ExprPtr e);
  Result<ExprPtr> BindIntervalCall(const ParsedExpr& x, const ParsedExpr& interval, bool subtract,
                                   ExprScope& s);
  Result<ExprPtr> BindCase(const ParsedExpr& e, ExprScope& s);
  Result<ExprPtr> BindHigherOrder(const ParsedExpr& e, ExprScope& s, const std::string& name);
  Result<ExprPtr> BindFunction(const ParsedExpr& e, ExprScope& s);
  Result<ExprPtr> BindGrouping(const ParsedExpr& e, ExprScope& s, const std::string& name);
  Result<ExprPtr> BindWindowCall(const ParsedExpr& e, ExprScope& s, const std::string& name);
  Result<ExprPtr> BindScalarSubquery(const ParsedExpr& e, ExprScope& s);
  Result<ExprPtr> BindCorrelatedScalar(const ParsedExpr& e, ExprScope& s);
  Result<ExprPtr> BindPredicateSubqueryAsValue(const ParsedExpr& e, ExprScope& s);
  // The FROM … WHERE of a correlated subquery: inner plan filtered by its inner-only conjuncts
  // and the equality correlations split into (outer key, inner key) pairs.
  struct Correlated {
    PlanPtr plan;
    std::vector<ExprPtr> outer_keys, inner_keys;
    std::vector<ExprPtr> residual;  // over outer ++ inner (non-equality correlated conjuncts)
  };

  Result<Correlated> BindCorrelatedFrom(const sql::Query& q,
                                        const std::vector<OutputColumn>& outer);
  // A correlated [NOT] EXISTS with one equality key as `outer IN (keys) AND outer IS NOT NULL`
  // (negated: its NOT); nullopt when the subquery is not of that form.
  Result<std::optional<ExprPtr>> CorrelatedExistsAsIn(const ParsedExpr& e, ExprScope& s);
  // A correlated [NOT] EXISTS of any correlation (equalities and other conjuncts, Q21's
  // l3.l_suppkey <> l1.l_suppkey) as a value over *s.plan: an existence join (the input rows
  // numbered, left-joined to the subquery, counted back per row); nullopt when not of that form.
  Result<std::optional<ExprPtr>> CorrelatedExistsAsJoin(const ParsedExpr& e, ExprScope& s);
  Status ApplyPredicateSubquery(const ParsedExpr& e, bool negated, PlanPtr* plan,
                                std::vector<OutputColumn>* cols);
  // Any correlated subquery expression (scalar, [NOT] EXISTS, x [NOT] IN) of any shape (set
  // operations, aggregates, LIMIT, nesting, …) where the planner's decorrelation into joins does
  // not apply: the subquery runs once per distinct value of the outer columns it reads (read from
  // s.plan, the join being bound or the aggregate's input), each time bound with those values as
  // constants; the expression becomes a lookup of its answer by those columns. nullopt when the
  // scope offers no plan to read the outer values from. At most kMaxOuterValues distinct values.
  Result<std::optional<ExprPtr>> SubqueryByOuterValues(const ParsedExpr& e, ExprScope& s);
  // The aggregating enclosing frame whose columns an aggregate call reads, all of them and none of
  // `local` (an outer aggregate, see OuterFrame); nullptr when there is none.
  const OuterFrame* OuterAggregateFrame(const ParsedExpr& call,
                                        const std::vector<OutputColumn>& local);
  // An aggregate call in e (outside subqueries) that is not an outer aggregate.
  bool ContainsLocalAggregate(const ParsedExpr& e, const std::vector<OutputColumn>& local);
  Result<ExprPtr> BindOuterAggregate(const ParsedExpr& call, const OuterFrame& frame);
  static constexpr size_t kMaxOuterValues = 10000;
  std::vector<OuterFrame> outer_frames;
  // Where Spark's CheckAnalysis refuses a correlated reference (an aggregate's grouping keys or
  // list, the null-supplying side of an outer join inside the subquery): a reference resolving to
  // outer_frames[i] with i < frames fails with that class. Set for a scope by RefuseOuterRefs.
  struct OuterRefRefusal {
    size_t frames = 0;
    const char* error_class = nullptr;
    const char* message = nullptr;  // Spark's, followed by the column
  };
  OuterRefRefusal outer_ref_refusal;
  // Refuses references to every enclosing frame (the current outer_frames) with `error_class`
  // until the returned guard is destroyed (when `refuse`; else changes nothing).
  auto RefuseOuterRefs(const char* error_class, const char* message, bool refuse = true) {
    struct Guard {
      OuterRefRefusal* slot;
      OuterRefRefusal saved;
      ~Guard() { *slot = saved; }
    };
    const OuterRefRefusal saved = outer_ref_refusal;
    if (refuse && !outer_frames.empty())
      outer_ref_refusal = {outer_frames.size(), error_class, message};
    return Guard{&outer_ref_refusal, saved};  // a prvalue: no copy restores early
  }
  // Spark's NON_CORRELATED_COLUMNS_IN_GROUP_BY (only with its single join off): a correlated
  // scalar subquery's GROUP BY expressions must be equated in its WHERE to outer values/constants.
  Status CheckCorrelatedGroupBy(const sql::Query& q, const std::vector<OutputColumn>& outer);
  // Spark's UNSUPPORTED_CORRELATED_EXPRESSION_IN_JOIN_CONDITION: a subquery in a join condition
  // (`scope` is join_domain_columns) reading columns (`used`, of scope) of both join inputs.
  Status CheckJoinConditionSubquery(const ParsedExpr& e, const std::vector<OutputColumn>* scope,
                                    const std::set<int>& used);
  // PIVOT's condition for the value being bound (__pivot_agg): added to every aggregate call's
  // FILTER.
  const ParsedExpr* pivot_filter = nullptr;
  // The SELECT list being bound (innermost), see LateralAliases.
  LateralAliases* lateral = nullptr;
  // The join whose condition is being bound: a plan producing `join_domain_columns` (left ×
  // right), where a correlated subquery in the condition reads its outer values.
  const std::vector<OutputColumn>* join_domain_columns = nullptr;
  PlanPtr join_domain;
  size_t join_domain_left_width = 0;  // the left side's columns come first in join_domain
  Result<ExprPtr> BindJoinCondition(const ParsedExpr& cond, std::vector<OutputColumn>* both,
                                    const PlanPtr& l, const PlanPtr& r);

  // ------------------------------------------------------------------ FROM
  Result<PlanPtr> BindFromList(const sql::Query& q);
  PlanPtr CrossJoin(PlanPtr l, PlanPtr r);
  Result<PlanPtr> ApplyAlias(PlanPtr p, const sql::TableRef& ref);
  // The plan of CTE `index` of `scope` (its body bound as `body`) to use at a reference: a
  // LocalRelation of its rows when the CTE is read more than once and its body aggregates (run
  // once, shared by all references), else `body` itself.
  Result<PlanPtr> MaterializedCte(const CteScope& scope, size_t index, PlanPtr body);
  Result<PlanPtr> NamedRelation(PlanPtr plan, const std::vector<std::string>& columns,
                                const std::string& name, const sql::TableRef& ref);
  Result<PlanPtr> BindView(const ResolvedTable& t, const sql::TableRef& ref);
  Result<PlanPtr> BindTableRef(const sql::TableRef& ref);
  static std::vector<ExprPtr> IdentityExprs(const PlanPtr& p);
  static std::vector<std::string> Names(const PlanPtr& p);
  Result<PlanPtr> BindValues(const sql::TableRef& ref);
  Result<PlanPtr> BindTableChanges(const sql::TableRef& ref, const std::vector<Value>& args,
                                   bool by_path);
  Result<PlanPtr> BindTableFunction(const sql::TableRef& ref);
  Result<PlanPtr> BindJoin(const sql::TableRef& ref);

  // ------------------------------------------------------------------ queries
  static constexpr int kWindowBase = 1 << 20;
  // Placeholder columns of a SELECT-list generator's output, until its Generate node exists.
  static constexpr int kGenerateBase = 1 << 21;
  // Lambda parameters' placeholder columns (exec/lambda.h), 64 per nesting level.
  static constexpr int kLambdaBase = 1 << 22;
  Result<int64_t> ConstantInt(const ParsedExpr& e, const char* what,
                              const std::vector<OutputColumn>& columns);
  Result<PlanPtr> ApplyLimit(PlanPtr plan, const sql::Query& q);
  PlanPtr MakeSort(PlanPtr child, std::vector<SortSpec> keys);
  Result<PlanPtr> BindSetOp(const sql::Query& q);
  Result<PlanPtr> OrderByOutput(PlanPtr plan, const sql::Query& q);
  Result<PlanPtr> MakeGenerate(PlanPtr child, const ParsedExpr& call, ExprPtr arg,
                               const std::vector<std::string>& aliases,
                               const std::string& qualifier);
  static Status CheckGeneratorAliases(const std::vector<Field>& fields,
                                      const std::vector<std::string>& aliases);
  Result<ExprPtr> BindGeneratorArg(const ParsedExpr& call, ExprScope& s);
  static bool IsGeneratorCall(const ParsedExpr& e);
  Result<PlanPtr> BindSelect(const sql::Query& q);
  const ParsedExpr* group_ast_or_null(const sql::Query& q, size_t i);

 public:
  static void ExtractJoinKeys(const ExprPtr& cond, int lw, int total, LogicalNode* j);
};

}  // namespace silt::planner
