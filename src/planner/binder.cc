#include "planner/binder.h"

#include <algorithm>
#include <unordered_map>

#include "common/ascii.h"
#include "delta/change_data_feed.h"
#include "delta/history.h"
#include "exec/aggregate.h"
#include "exec/functions.h"
#include "exec/generate.h"
#include "exec/lambda.h"
#include "exec/functions/datetime_calendar.h"
#include "io/path.h"
#include "sql/parser.h"

namespace silt::planner {

using exec::ExprKind;
using exec::ExprPtr;
using sql::ExprType;
using sql::ParsedExpr;

namespace {

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
  return Status::InvalidArgument("[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function parameter with name " +
                                     Backquote(name) + " cannot be resolved. Did you mean one of the following? [" +
                                     suggestions + "].",
                                 "UNRESOLVED_COLUMN.WITH_SUGGESTION");
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

}  // namespace

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

namespace {

bool ReadsOnly(const ExprPtr& e, int lo, int hi) {
  std::vector<int> cols;
  exec::CollectColumns(*e, &cols);
  for (int c : cols) {
    if (c < lo || c >= hi) return false;
  }
  return true;
}

bool ContainsAggregate(const ParsedExpr& e) {
  if (e.type == ExprType::kFunction && !e.over && !e.names.empty() && exec::IsAggregateFunction(e.names.back())) {
    return true;
  }
  if (e.type == ExprType::kScalarSubquery || e.type == ExprType::kExists || e.type == ExprType::kInSubquery) {
    // Aggregates inside a subquery belong to it; only the IN value counts.
    return e.type == ExprType::kInSubquery && !e.children.empty() && ContainsAggregate(*e.children[0]);
  }
  for (const auto& c : e.children) {
    if (c && ContainsAggregate(*c)) return true;
  }
  if (e.filter && ContainsAggregate(*e.filter)) return true;
  return false;
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

}  // namespace

std::string ColumnNameOf(const ParsedExpr& expr) {
  if (expr.type == ExprType::kColumnRef && !expr.names.empty()) return expr.names.back();
  if (expr.type == ExprType::kFieldAccess) return expr.field;
  return expr.ToString();
}

// ---------------------------------------------------------------------------------------------

// State of the aggregation a SELECT block performs, used while binding its post-aggregation
// expressions (SELECT list, HAVING, ORDER BY).
struct AggState {
  const std::vector<OutputColumn>* input = nullptr;  // pre-aggregation columns
  std::vector<std::string> group_texts;
  std::vector<ExprPtr> group_exprs;
  std::vector<AggregateCall> calls;
  std::vector<std::string> call_texts;
  std::vector<std::vector<int>> grouping_sets;
  // The aggregate's output (HashAggregateOperator's order): the keys, spark_grouping_id when
  // there are several grouping sets, then the aggregate calls.
  bool has_grouping_id() const { return grouping_sets.size() > 1; }
  int call_column(size_t i) const { return static_cast<int>(group_exprs.size() + (has_grouping_id() ? 1 : 0) + i); }
  size_t width() const { return group_exprs.size() + calls.size() + (has_grouping_id() ? 1 : 0); }
};

struct WindowState {
  size_t base_width = 0;
  std::vector<WindowCall> calls;
  std::vector<std::string> texts;
};

// Where an expression is being bound.
struct ExprScope {
  std::vector<OutputColumn>* columns = nullptr;  // what kColumn indices refer to
  AggState* agg = nullptr;                       // binding over an aggregate's output
  WindowState* window = nullptr;                 // window calls allowed
  PlanPtr* plan = nullptr;                       // mutable input plan: correlated subqueries join onto it
  const std::vector<OutputColumn>* outer = nullptr;  // outer query columns (correlation)
  std::vector<std::pair<int, int>>* outer_refs = nullptr;  // (outer index, placeholder index) collected
  // Parameters of the lambdas being bound (innermost last): name → placeholder column.
  std::vector<std::pair<std::string, exec::ExprPtr>> lambda_vars;
};

struct Binder::Impl {
  Binder* self;
  std::vector<std::map<std::string, const sql::CommonTableExpr*>> cte_stack;
  std::set<std::string> expanded_views;  // see Binder::expanded_views()
  bool temp_view_ref = false;
  int view_depth = 0;

  explicit Impl(Binder* b) : self(b) {}
  const BinderContext& ctx() const { return self->ctx_; }

  // ------------------------------------------------------------------ column resolution
  Result<int> ResolveColumn(const std::vector<std::string>& names, const std::vector<OutputColumn>& cols,
                            size_t* consumed) {
    // Try qualifier.column first for multi-part names, then column[.field...].
    if (names.size() >= 2) {
      int found = -1;
      for (size_t i = 0; i < cols.size(); ++i) {
        if (NameEq(cols[i].qualifier, names[names.size() >= 3 ? 1 : 0]) && NameEq(cols[i].name, names[names.size() >= 3 ? 2 : 1])) {
          if (found >= 0) break;
          found = static_cast<int>(i);
        }
      }
      if (names.size() >= 3 && found >= 0) {
        *consumed = 3;
        return found;
      }
      found = -1;
      int matches = 0;
      for (size_t i = 0; i < cols.size(); ++i) {
        if (NameEq(cols[i].qualifier, names[0]) && NameEq(cols[i].name, names[1])) {
          if (found < 0) found = static_cast<int>(i);
          ++matches;
        }
      }
      if (matches > 1) {
        return Status::InvalidArgument("[AMBIGUOUS_REFERENCE] Reference " + Backquote(names[0] + "." + names[1]) +
                                           " is ambiguous.",
                                       "AMBIGUOUS_REFERENCE");
      }
      if (found >= 0) {
        *consumed = 2;
        return found;
      }
    }
    int found = -1, matches = 0;
    for (size_t i = 0; i < cols.size(); ++i) {
      if (NameEq(cols[i].name, names[0])) {
        if (found < 0) found = static_cast<int>(i);
        ++matches;
      }
    }
    if (matches > 1) {
      return Status::InvalidArgument("[AMBIGUOUS_REFERENCE] Reference " + Backquote(names[0]) +
                                         " is ambiguous, could be: " + std::to_string(matches) + " columns.",
                                     "AMBIGUOUS_REFERENCE");
    }
    if (found >= 0) {
      *consumed = 1;
      return found;
    }
    std::string full;
    for (const auto& n : names) full += (full.empty() ? "" : ".") + n;
    return Unresolved(full, cols);
  }

  Result<ExprPtr> FieldAccess(ExprPtr base, const std::string& field) {
    if (base->type->id() != TypeId::kStruct) {
      return Status::InvalidArgument("[INVALID_EXTRACT_BASE_FIELD_TYPE] Can't extract a value from " + base->ToString() +
                                         ". Need a complex type [STRUCT, ARRAY, MAP] but got " + base->type->ToString() + ".",
                                     "INVALID_EXTRACT_BASE_FIELD_TYPE");
    }
    int idx = FindField(base->type->fields(), field);
    if (idx < 0) {
      return Status::InvalidArgument("[FIELD_NOT_FOUND] No such struct field " + Backquote(field) + " in " +
                                         base->type->ToString() + ".",
                                     "FIELD_NOT_FOUND");
    }
    auto e = std::make_shared<exec::Expr>();
    e->kind = ExprKind::kCall;
    e->name = "get_field";
    e->type = base->type->fields()[idx].type;
    e->children = {base};
    e->constant = Value::Int32(idx);
    size_t fi = static_cast<size_t>(idx);
    e->kernel = [fi](std::span<const exec::Arg> args, size_t rows, const exec::EvalContext&, Vector* out) {
      const Vector& s = *args[0].vector;
      if (args[0].constant) {
        for (size_t i = 0; i < rows; ++i) {
          if (s.IsNull(0)) out->AppendNull();
          else out->AppendRange(s.child(fi), 0, 1);
        }
        return Status::OK();
      }
      out->AppendRange(s.child(fi), 0, rows);
      if (s.may_have_nulls()) {
        for (size_t i = 0; i < rows; ++i) {
          if (s.IsNull(i)) out->SetValid(i, false);
        }
      }
      return Status::OK();
    };
    return ExprPtr(e);
  }

  // ------------------------------------------------------------------ expressions
  Result<ExprPtr> Bind(const ParsedExpr& e, ExprScope& s) {
    // Post-aggregation: whole expressions equal to a GROUP BY key become references to it.
    if (s.agg && !s.agg->group_texts.empty()) {
      std::string text = e.ToString();
      for (size_t i = 0; i < s.agg->group_texts.size(); ++i) {
        if (NameEq(s.agg->group_texts[i], text)) {
          const ExprPtr& g = s.agg->group_exprs[i];
          return exec::MakeColumn(static_cast<int>(i), g->type, ColumnNameOf(e), g->nullable);
        }
      }
    }
    switch (e.type) {
      case ExprType::kLiteral:
        if (e.local_timestamp && !e.literal.is_null()) {
          SILT_ASSIGN_OR_RETURN(auto zone, exec::cal::TimeZone::Find(ctx().bind.time_zone));
          return exec::MakeConstant(Value::Integer(DataType::Timestamp(), zone->LocalMicrosToUtc(e.literal.integer())));
        }
        return exec::MakeConstant(e.literal);
      case ExprType::kInterval: {
        return Status::NotImplemented("interval values are supported only in date/timestamp arithmetic (x ± INTERVAL …)",
                                      "SILT_INTERVAL_UNSUPPORTED");
      }
      case ExprType::kColumnRef:
        return BindColumnRef(e, s);
      case ExprType::kStar:
        return Status::InvalidArgument("[INVALID_USAGE_OF_STAR_OR_REGEX] Invalid usage of '*' in expression.",
                                       "INVALID_USAGE_OF_STAR_OR_REGEX");
      case ExprType::kFunction:
        return BindFunction(e, s);
      case ExprType::kUnary: {
        SILT_ASSIGN_OR_RETURN(ExprPtr c, Bind(*e.children[0], s));
        std::string op = e.op;
        if (NameEq(op, "not")) return exec::BindScalarFunction("not", {c}, ctx().bind);
        if (op == "-") return exec::BindScalarFunction("negative", {c}, ctx().bind);
        if (op == "+") return c;
        return exec::BindScalarFunction(op, {c}, ctx().bind);
      }
      case ExprType::kBinary: {
        if ((e.op == "+" || e.op == "-") && e.children[1]->type == ExprType::kInterval) {
          return BindIntervalArithmetic(*e.children[0], *e.children[1], e.op == "-", s);
        }
        if (e.op == "+" && e.children[0]->type == ExprType::kInterval) {
          return BindIntervalArithmetic(*e.children[1], *e.children[0], false, s);
        }
        SILT_ASSIGN_OR_RETURN(ExprPtr a, Bind(*e.children[0], s));
        SILT_ASSIGN_OR_RETURN(ExprPtr b, Bind(*e.children[1], s));
        return exec::BindScalarFunction(LowerName(e.op), {a, b}, ctx().bind);
      }
      case ExprType::kIsNull: {
        SILT_ASSIGN_OR_RETURN(ExprPtr c, Bind(*e.children[0], s));
        return exec::MakeSpecial(e.negated ? ExprKind::kIsNotNull : ExprKind::kIsNull, DataType::Boolean(), {c});
      }
      case ExprType::kIsBool: {
        // x IS TRUE  ==  coalesce(x = true, false); IS NOT TRUE is its negation.
        SILT_ASSIGN_OR_RETURN(ExprPtr c, Bind(*e.children[0], s));
        SILT_ASSIGN_OR_RETURN(ExprPtr eq, exec::BindScalarFunction("<=>", {c, exec::MakeConstant(Value::Boolean(e.bool_value))}, ctx().bind));
        if (!e.negated) return eq;
        return exec::BindScalarFunction("not", {eq}, ctx().bind);
      }
      case ExprType::kIsDistinctFrom: {
        SILT_ASSIGN_OR_RETURN(ExprPtr a, Bind(*e.children[0], s));
        SILT_ASSIGN_OR_RETURN(ExprPtr b, Bind(*e.children[1], s));
        SILT_ASSIGN_OR_RETURN(ExprPtr eq, exec::BindScalarFunction("<=>", {a, b}, ctx().bind));
        if (e.negated) return eq;  // IS NOT DISTINCT FROM
        return exec::BindScalarFunction("not", {eq}, ctx().bind);
      }
      case ExprType::kBetween: {
        SILT_ASSIGN_OR_RETURN(ExprPtr v, Bind(*e.children[0], s));
        SILT_ASSIGN_OR_RETURN(ExprPtr lo, Bind(*e.children[1], s));
        SILT_ASSIGN_OR_RETURN(ExprPtr hi, Bind(*e.children[2], s));
        SILT_ASSIGN_OR_RETURN(ExprPtr ge, exec::BindScalarFunction(">=", {v, lo}, ctx().bind));
        SILT_ASSIGN_OR_RETURN(ExprPtr le, exec::BindScalarFunction("<=", {v, hi}, ctx().bind));
        ExprPtr both = MakeAnd(ge, le);
        if (!e.negated) return both;
        return exec::BindScalarFunction("not", {both}, ctx().bind);
      }
      case ExprType::kInList: {
        std::vector<ExprPtr> items;
        SILT_ASSIGN_OR_RETURN(ExprPtr v, Bind(*e.children[0], s));
        TypePtr common = v->type;
        items.push_back(v);
        for (size_t i = 1; i < e.children.size(); ++i) {
          SILT_ASSIGN_OR_RETURN(ExprPtr it, Bind(*e.children[i], s));
          SILT_ASSIGN_OR_RETURN(common, exec::CommonType(common, it->type));
          items.push_back(it);
        }
        for (auto& it : items) {
          SILT_ASSIGN_OR_RETURN(it, exec::CoerceTo(it, common, ctx().bind));
        }
        ExprPtr in = exec::MakeSpecial(ExprKind::kIn, DataType::Boolean(), std::move(items));
        if (!e.negated) return in;
        return exec::BindScalarFunction("not", {in}, ctx().bind);
      }
      case ExprType::kLike: {
        SILT_ASSIGN_OR_RETURN(ExprPtr v, Bind(*e.children[0], s));
        std::string fn = LowerName(e.op);
        if (!e.quantifier.empty()) {
          ExprPtr acc;
          bool any = NameEq(e.quantifier, "any") || NameEq(e.quantifier, "some");
          for (size_t i = 1; i < e.children.size(); ++i) {
            SILT_ASSIGN_OR_RETURN(ExprPtr p, Bind(*e.children[i], s));
            SILT_ASSIGN_OR_RETURN(ExprPtr m, exec::BindScalarFunction(fn, {v, p}, ctx().bind));
            if (!acc) {
              acc = m;
            } else if (any) {
              acc = exec::MakeSpecial(ExprKind::kOr, DataType::Boolean(), {acc, m});
            } else {
              acc = MakeAnd(acc, m);
            }
          }
          if (!e.negated) return acc;
          return exec::BindScalarFunction("not", {acc}, ctx().bind);
        }
        std::vector<ExprPtr> args = {v};
        for (size_t i = 1; i < e.children.size(); ++i) {
          SILT_ASSIGN_OR_RETURN(ExprPtr p, Bind(*e.children[i], s));
          args.push_back(p);
        }
        SILT_ASSIGN_OR_RETURN(ExprPtr m, exec::BindScalarFunction(fn, std::move(args), ctx().bind));
        if (!e.negated) return m;
        return exec::BindScalarFunction("not", {m}, ctx().bind);
      }
      case ExprType::kCase:
        return BindCase(e, s);
      case ExprType::kCast: {
        SILT_ASSIGN_OR_RETURN(ExprPtr c, Bind(*e.children[0], s));
        return exec::BindCast(c, e.cast_type, e.try_cast, ctx().bind);
      }
      case ExprType::kSubscript: {
        SILT_ASSIGN_OR_RETURN(ExprPtr base, Bind(*e.children[0], s));
        SILT_ASSIGN_OR_RETURN(ExprPtr idx, Bind(*e.children[1], s));
        if (base->type->id() == TypeId::kStruct && idx->kind == ExprKind::kConstant && !idx->constant.is_null() &&
            idx->constant.type()->id() == TypeId::kString) {
          return FieldAccess(base, idx->constant.str());
        }
        // Spark's a[i] is 0-based for arrays (element_at is 1-based).
        if (base->type->id() == TypeId::kList) {
          SILT_ASSIGN_OR_RETURN(ExprPtr one, exec::BindScalarFunction("+", {idx, exec::MakeConstant(Value::Int32(1))}, ctx().bind));
          return exec::BindScalarFunction("try_element_at", {base, one}, ctx().bind);
        }
        return exec::BindScalarFunction("try_element_at", {base, idx}, ctx().bind);
      }
      case ExprType::kFieldAccess: {
        SILT_ASSIGN_OR_RETURN(ExprPtr base, Bind(*e.children[0], s));
        return FieldAccess(base, e.field);
      }
      case ExprType::kScalarSubquery:
        return BindScalarSubquery(e, s);
      case ExprType::kExists:
      case ExprType::kInSubquery: {
        // Only reached when the predicate is not a top-level WHERE conjunct (those become joins).
        if (e.type == ExprType::kExists || true) {
          return BindPredicateSubqueryAsValue(e, s);
        }
      }
      case ExprType::kLambda:
      case ExprType::kNamedArgument:
      case ExprType::kPositional:
        break;
    }
    return Status::NotImplemented("expression not supported yet: " + e.ToString(), "SILT_UNSUPPORTED_EXPRESSION");
  }

  Result<ExprPtr> BindColumnRef(const ParsedExpr& e, ExprScope& s) {
    // A lambda parameter shadows columns of the same name (innermost lambda first).
    for (auto it = s.lambda_vars.rbegin(); it != s.lambda_vars.rend(); ++it) {
      if (!NameEq(it->first, e.names[0])) continue;
      ExprPtr ref = it->second;
      for (size_t i = 1; i < e.names.size(); ++i) {
        SILT_ASSIGN_OR_RETURN(ref, FieldAccess(ref, e.names[i]));
      }
      return ref;
    }
    const std::vector<OutputColumn>& cols = s.agg ? *s.agg->input : *s.columns;
    size_t consumed = 0;
    Result<int> idx = ResolveColumn(e.names, cols, &consumed);
    if (!idx.ok()) {
      if (s.outer && s.outer_refs) {
        size_t oc = 0;
        Result<int> o = ResolveColumn(e.names, *s.outer, &oc);
        if (o.ok()) {
          // A correlated reference: a placeholder column past the inner columns; the caller
          // rewrites it into a join condition.
          const OutputColumn& c = (*s.outer)[*o];
          int placeholder = static_cast<int>(cols.size() + s.outer_refs->size());
          for (const auto& [outer_idx, ph] : *s.outer_refs) {
            if (outer_idx == *o) placeholder = ph;
          }
          if (placeholder == static_cast<int>(cols.size() + s.outer_refs->size())) s.outer_refs->push_back({*o, placeholder});
          ExprPtr ref = exec::MakeColumn(placeholder, c.type, c.name, c.nullable);
          for (size_t i = oc; i < e.names.size(); ++i) {
            SILT_ASSIGN_OR_RETURN(ref, FieldAccess(ref, e.names[i]));
          }
          return ref;
        }
      }
      return idx.status();
    }
    const OutputColumn& c = cols[*idx];
    ExprPtr ref = exec::MakeColumn(*idx, c.type, c.name, c.nullable);
    if (s.agg) {
      // Outside an aggregate call a column must be a grouping column.
      int group = -1;
      for (size_t i = 0; i < s.agg->group_exprs.size(); ++i) {
        const ExprPtr& g = s.agg->group_exprs[i];
        if (g->kind == ExprKind::kColumn && g->column == *idx) group = static_cast<int>(i);
      }
      if (group < 0) {
        return Status::InvalidArgument("[MISSING_AGGREGATION] The non-aggregating expression " + Backquote(c.name) +
                                           " is based on columns which are not participating in the GROUP BY clause. "
                                           "Add the columns or the expression to the GROUP BY, aggregate the expression, "
                                           "or use `any_value(" + c.name + ")` if you do not care which of the values within a group is returned.",
                                       "MISSING_AGGREGATION");
      }
      ref = exec::MakeColumn(group, c.type, c.name, true);
    }
    for (size_t i = consumed; i < e.names.size(); ++i) {
      SILT_ASSIGN_OR_RETURN(ref, FieldAccess(ref, e.names[i]));
    }
    return ref;
  }

  // x ± INTERVAL …, as Spark resolves it: DATE ± year-month → add_months (DATE); DATE ± whole days
  // → date_add (DATE); otherwise the date becomes a TIMESTAMP and the interval is added to it in
  // the session time zone (__timestamp_add_interval). Strings are read as timestamps.
  Result<ExprPtr> BindIntervalArithmetic(const ParsedExpr& x, const ParsedExpr& interval, bool subtract, ExprScope& s) {
    SILT_ASSIGN_OR_RETURN(ExprPtr v, Bind(x, s));
    int64_t months = subtract ? -interval.interval_months : interval.interval_months;
    int64_t micros = subtract ? -interval.interval_micros : interval.interval_micros;
    const auto lit64 = [](int64_t n) { return exec::MakeConstant(Value::Int64(n)); };
    TypeId id = v->type->id();
    if (id == TypeId::kDate) {
      const auto lit32 = [](int64_t n) { return exec::MakeConstant(Value::Int32(static_cast<int32_t>(n))); };
      if (micros == 0) return exec::BindScalarFunction("add_months", {v, lit32(months)}, ctx().bind);
      if (months == 0 && micros % exec::cal::kMicrosPerDay == 0) {
        return exec::BindScalarFunction("date_add", {v, lit32(micros / exec::cal::kMicrosPerDay)}, ctx().bind);
      }
    }
    if (id == TypeId::kDate || id == TypeId::kString) {
      SILT_ASSIGN_OR_RETURN(v, exec::CoerceTo(v, DataType::Timestamp(), ctx().bind));
    } else if (id != TypeId::kTimestamp && id != TypeId::kTimestampNtz) {
      return Status::InvalidArgument("[DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES] Cannot resolve \"" + x.ToString() + " " +
                                         (subtract ? "-" : "+") + " " + interval.ToString() + "\" due to data type mismatch: " +
                                         "an interval can only be added to a DATE or TIMESTAMP, not " + v->type->ToString() + ".",
                                     "DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES");
    }
    return exec::BindScalarFunction("__timestamp_add_interval", {v, lit64(months), lit64(micros)}, ctx().bind);
  }

  Result<ExprPtr> BindCase(const ParsedExpr& e, ExprScope& s) {
    size_t i = 0;
    ExprPtr operand;
    if (e.has_operand) {
      SILT_ASSIGN_OR_RETURN(operand, Bind(*e.children[0], s));
      i = 1;
    }
    size_t end = e.children.size() - (e.has_else ? 1 : 0);
    std::vector<ExprPtr> conds, values;
    for (; i + 1 < end + 1 && i < end; i += 2) {
      SILT_ASSIGN_OR_RETURN(ExprPtr w, Bind(*e.children[i], s));
      if (operand) {
        SILT_ASSIGN_OR_RETURN(w, exec::BindScalarFunction("=", {operand, w}, ctx().bind));
      } else {
        SILT_ASSIGN_OR_RETURN(w, exec::CoerceTo(w, DataType::Boolean(), ctx().bind));
      }
      SILT_ASSIGN_OR_RETURN(ExprPtr t, Bind(*e.children[i + 1], s));
      conds.push_back(w);
      values.push_back(t);
    }
    ExprPtr otherwise;
    if (e.has_else) {
      SILT_ASSIGN_OR_RETURN(otherwise, Bind(*e.children.back(), s));
    }
    TypePtr type = values.empty() ? DataType::Null() : values[0]->type;
    for (const auto& v : values) {
      SILT_ASSIGN_OR_RETURN(type, exec::CommonType(type, v->type));
    }
    if (otherwise) {
      SILT_ASSIGN_OR_RETURN(type, exec::CommonType(type, otherwise->type));
    }
    std::vector<ExprPtr> children;
    for (size_t k = 0; k < conds.size(); ++k) {
      children.push_back(conds[k]);
      SILT_ASSIGN_OR_RETURN(ExprPtr v, exec::CoerceTo(values[k], type, ctx().bind));
      children.push_back(v);
    }
    if (otherwise) {
      SILT_ASSIGN_OR_RETURN(otherwise, exec::CoerceTo(otherwise, type, ctx().bind));
      children.push_back(otherwise);
    }
    return exec::MakeSpecial(ExprKind::kCase, type, std::move(children), otherwise != nullptr);
  }

  // transform(arr, x -> …) & co. (exec/lambda.h). Each lambda's parameters are placeholder
  // columns at a base per nesting level; the body's other columns are captured: they become extra
  // arguments of the call and are renumbered after the parameters.
  Result<ExprPtr> BindHigherOrder(const ParsedExpr& e, ExprScope& s, const std::string& name) {
    std::vector<ExprPtr> args;
    std::vector<const ParsedExpr*> lambdas;
    for (const auto& c : e.children) {
      if (c->type == ExprType::kLambda) {
        lambdas.push_back(c.get());
        continue;
      }
      if (!lambdas.empty()) {
        return Status::InvalidArgument("[INVALID_LAMBDA_FUNCTION_CALL] Invalid lambda function call: the lambda function must "
                                           "be the last argument of " + Backquote(name) + ".",
                                       "INVALID_LAMBDA_FUNCTION_CALL");
      }
      SILT_ASSIGN_OR_RETURN(ExprPtr b, Bind(*c, s));
      args.push_back(std::move(b));
    }
    const int base = kLambdaBase + static_cast<int>(s.lambda_vars.size()) * 64;
    std::vector<exec::BoundLambda> bound;
    std::vector<int> captured;  // column indices (of the enclosing scope) the bodies read
    std::vector<ExprPtr> captured_refs;
    std::vector<ExprPtr> bodies;
    for (size_t k = 0; k < lambdas.size(); ++k) {
      const ParsedExpr& lam = *lambdas[k];
      SILT_ASSIGN_OR_RETURN(std::vector<TypePtr> types,
                            exec::LambdaParamTypes(name, args, k, lam.lambda_params.size(), bound));
      ExprScope ls = s;
      for (size_t p = 0; p < types.size(); ++p) {
        ls.lambda_vars.push_back({lam.lambda_params[p], exec::MakeColumn(base + static_cast<int>(p), types[p], lam.lambda_params[p])});
      }
      SILT_ASSIGN_OR_RETURN(ExprPtr body, Bind(*lam.children[0], ls));
      std::function<void(const ExprPtr&)> collect = [&](const ExprPtr& x) {
        if (x->kind == ExprKind::kColumn && x->column < base &&
            std::find(captured.begin(), captured.end(), x->column) == captured.end()) {
          captured.push_back(x->column);
          captured_refs.push_back(x);
        }
        for (const auto& c : x->children) collect(c);
      };
      collect(body);
      bodies.push_back(body);
      bound.push_back({body, types.size()});  // renumbered below, once every capture is known
    }
    for (size_t k = 0; k < bound.size(); ++k) {
      const int params = static_cast<int>(bound[k].params);
      bound[k].body = RemapColumns(bodies[k], [&](int c) {
        if (c >= base) return c - base;
        return params + static_cast<int>(std::find(captured.begin(), captured.end(), c) - captured.begin());
      });
    }
    return exec::BindHigherOrderFunction(name, std::move(args), std::move(bound), std::move(captured_refs), ctx().bind);
  }

  Result<ExprPtr> BindFunction(const ParsedExpr& e, ExprScope& s) {
    std::string name = LowerName(e.names.empty() ? "" : e.names.back());
    if (exec::IsHigherOrderFunction(name) &&
        std::any_of(e.children.begin(), e.children.end(), [](const auto& c) { return c->type == ExprType::kLambda; })) {
      return BindHigherOrder(e, s, name);
    }
    if (exec::FindGenerator(name)) {
      // Top-level SELECT items and LATERAL VIEW bind generators themselves (BindSelect).
      return Status::InvalidArgument("[UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS] The generator is not supported: nested in "
                                         "expressions \"" + e.ToString() + "\".",
                                     "UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS");
    }
    if (e.over) return BindWindowCall(e, s, name);
    if (name == "grouping" || name == "grouping_id") return BindGrouping(e, s, name);
    if (exec::IsAggregateFunction(name)) {
      if (!s.agg) {
        return Status::InvalidArgument("[UNSUPPORTED_EXPR_FOR_OPERATOR] Aggregate function " + e.ToString() +
                                           " is not allowed here.",
                                       "UNSUPPORTED_EXPR_FOR_OPERATOR");
      }
      std::string text = e.ToString();
      for (size_t i = 0; i < s.agg->call_texts.size(); ++i) {
        if (s.agg->call_texts[i] == text) {
          const AggregateCall& c = s.agg->calls[i];
          return exec::MakeColumn(s.agg->call_column(i), c.bound.function->result_type(), text);
        }
      }
      // Arguments bind over the aggregate's input.
      ExprScope in;
      in.columns = const_cast<std::vector<OutputColumn>*>(s.agg->input);
      std::vector<ExprPtr> args;
      if (!e.star_arg) {
        for (const auto& a : e.children) {
          if (ContainsAggregate(*a)) {
            return Status::InvalidArgument("[NESTED_AGGREGATE_FUNCTION] It is not allowed to use an aggregate function "
                                               "in the argument of another aggregate function.",
                                           "NESTED_AGGREGATE_FUNCTION");
          }
          SILT_ASSIGN_OR_RETURN(ExprPtr b, Bind(*a, in));
          args.push_back(b);
        }
      }
      AggregateCall call;
      call.name = text;
      call.function = name;
      call.distinct = e.distinct;
      SILT_ASSIGN_OR_RETURN(call.bound, exec::BindAggregateFunction(name, std::move(args), e.distinct, ctx().bind));
      if (e.filter) {
        SILT_ASSIGN_OR_RETURN(ExprPtr f, Bind(*e.filter, in));
        SILT_ASSIGN_OR_RETURN(call.filter, exec::CoerceTo(f, DataType::Boolean(), ctx().bind));
      }
      TypePtr type = call.bound.function->result_type();
      s.agg->calls.push_back(std::move(call));
      s.agg->call_texts.push_back(text);
      return exec::MakeColumn(s.agg->call_column(s.agg->calls.size() - 1), type, text);
    }
    std::vector<ExprPtr> args;
    for (const auto& a : e.children) {
      SILT_ASSIGN_OR_RETURN(ExprPtr b, Bind(*a, s));
      args.push_back(b);
    }
    if (e.star_arg) {
      return Status::InvalidArgument("[INVALID_USAGE_OF_STAR_OR_REGEX] Invalid usage of '*' in " + name + ".",
                                     "INVALID_USAGE_OF_STAR_OR_REGEX");
    }
    return exec::BindScalarFunction(name, std::move(args), ctx().bind);
  }

  // grouping(col): 1 when col is aggregated away in the row's grouping set (TINYINT);
  // grouping_id([cols]): those bits of the listed keys (all keys by default), the first one
  // highest (BIGINT) — both read from the aggregate's spark_grouping_id column.
  Result<ExprPtr> BindGrouping(const ParsedExpr& e, ExprScope& s, const std::string& name) {
    if (!s.agg || !s.agg->has_grouping_id()) {
      return Status::InvalidArgument("[UNSUPPORTED_GROUPING_EXPRESSION] grouping()/grouping_id() can only be used with "
                                     "GroupingSets/Cube/Rollup.",
                                     "UNSUPPORTED_GROUPING_EXPRESSION");
    }
    if (name == "grouping" && e.children.size() != 1) {
      return Status::InvalidArgument("[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `grouping` requires 1 parameters but the "
                                     "actual number is " + std::to_string(e.children.size()) + ".",
                                     "WRONG_NUM_ARGS.WITHOUT_SUGGESTION");
    }
    const size_t nk = s.agg->group_exprs.size();
    ExprPtr gid = exec::MakeColumn(static_cast<int>(nk), DataType::Int64(), "spark_grouping_id", false);
    std::vector<size_t> keys;  // indices of the listed keys
    for (const auto& a : e.children) {
      size_t k = 0;
      while (k < nk && s.agg->group_texts[k] != a->ToString()) ++k;
      if (k == nk) {
        return Status::InvalidArgument("[GROUPING_COLUMN_MISMATCH] Column of grouping (" + a->ToString() +
                                           ") can't be found in the grouping columns.",
                                       "GROUPING_COLUMN_MISMATCH");
      }
      keys.push_back(k);
    }
    if (name == "grouping_id" && keys.empty()) return gid;
    auto bit = [&](size_t k) -> Result<ExprPtr> {
      ExprPtr shift = exec::MakeConstant(Value::Int32(static_cast<int32_t>(nk - 1 - k)));
      SILT_ASSIGN_OR_RETURN(ExprPtr shifted, exec::BindScalarFunction("shiftright", {gid, shift}, ctx().bind));
      return exec::BindScalarFunction("&", {shifted, exec::MakeConstant(Value::Int64(1))}, ctx().bind);
    };
    if (name == "grouping") {
      SILT_ASSIGN_OR_RETURN(ExprPtr b, bit(keys[0]));
      return exec::CoerceTo(b, DataType::Int8(), ctx().bind);
    }
    ExprPtr out;
    for (size_t i = 0; i < keys.size(); ++i) {
      SILT_ASSIGN_OR_RETURN(ExprPtr b, bit(keys[i]));
      if (size_t up = keys.size() - 1 - i) {
        ExprPtr by = exec::MakeConstant(Value::Int32(static_cast<int32_t>(up)));
        SILT_ASSIGN_OR_RETURN(b, exec::BindScalarFunction("shiftleft", {b, by}, ctx().bind));
      }
      if (!out) {
        out = b;
      } else {
        SILT_ASSIGN_OR_RETURN(out, exec::BindScalarFunction("|", {out, b}, ctx().bind));
      }
    }
    return out;
  }

  Result<ExprPtr> BindWindowCall(const ParsedExpr& e, ExprScope& s, const std::string& name) {
    if (!s.window) {
      return Status::InvalidArgument("[UNSUPPORTED_EXPR_FOR_OPERATOR] Window function " + e.ToString() +
                                         " is only allowed in the SELECT list and ORDER BY.",
                                     "UNSUPPORTED_EXPR_FOR_OPERATOR");
    }
    std::string text = e.ToString();
    for (size_t i = 0; i < s.window->texts.size(); ++i) {
      if (s.window->texts[i] == text) {
        return exec::MakeColumn(static_cast<int>(s.window->base_width + i), s.window->calls[i].type, text);
      }
    }
    ExprScope inner = s;
    inner.window = nullptr;
    WindowCall call;
    call.name = text;
    std::vector<ExprPtr> args;
    for (const auto& a : e.children) {
      SILT_ASSIGN_OR_RETURN(ExprPtr b, Bind(*a, inner));
      args.push_back(b);
    }
    const sql::WindowSpec& w = *e.over;
    for (const auto& p : w.partition_by) {
      SILT_ASSIGN_OR_RETURN(ExprPtr b, Bind(*p, inner));
      call.partition_by.push_back(b);
    }
    for (const auto& o : w.order_by) {
      SortSpec k;
      SILT_ASSIGN_OR_RETURN(k.expr, Bind(*o.expr, inner));
      k.ascending = o.ascending;
      k.nulls_first = o.nulls_first.value_or(o.ascending);
      call.order_by.push_back(k);
    }
    std::optional<exec::WindowFrame> frame;
    if (w.frame) {
      exec::WindowFrame f;
      f.type = w.frame->unit == sql::WindowFrame::Unit::kRows ? exec::WindowFrameType::kRows : exec::WindowFrameType::kRange;
      auto bound = [&](sql::WindowFrame::BoundType t, const sql::ExprNode& off) -> Result<exec::WindowBound> {
        using BT = sql::WindowFrame::BoundType;
        exec::WindowBound b;
        switch (t) {
          case BT::kUnboundedPreceding: b.kind = exec::WindowBoundKind::kUnboundedPreceding; return b;
          case BT::kUnboundedFollowing: b.kind = exec::WindowBoundKind::kUnboundedFollowing; return b;
          case BT::kCurrentRow: b.kind = exec::WindowBoundKind::kCurrentRow; return b;
          case BT::kPreceding: b.kind = exec::WindowBoundKind::kPreceding; break;
          case BT::kFollowing: b.kind = exec::WindowBoundKind::kFollowing; break;
        }
        std::vector<OutputColumn> none;
        SILT_ASSIGN_OR_RETURN(ExprPtr oe, self->BindExpression(*off, none));
        SILT_ASSIGN_OR_RETURN(b.offset, exec::EvaluateConstant(*oe, ctx().eval));
        return b;
      };
      SILT_ASSIGN_OR_RETURN(f.start, bound(w.frame->start, w.frame->start_offset));
      SILT_ASSIGN_OR_RETURN(f.end, bound(w.frame->end, w.frame->end_offset));
      frame = f;
    }
    if (exec::IsAggregateFunction(name)) {
      SILT_ASSIGN_OR_RETURN(exec::BoundAggregate agg, exec::BindAggregateFunction(name, args, e.distinct, ctx().bind));
      call.fn = exec::MakeAggregateWindowFunction(name, std::move(agg), frame);
    } else {
      SILT_ASSIGN_OR_RETURN(call.fn, exec::BindWindowFunction(name, args, e.ignore_nulls));
      if (frame) call.fn.frame = frame;
    }
    call.type = call.fn.result_type;
    TypePtr type = call.type;
    s.window->calls.push_back(std::move(call));
    s.window->texts.push_back(text);
    return exec::MakeColumn(static_cast<int>(s.window->base_width + s.window->calls.size() - 1), type, text);
  }

  // Uncorrelated scalar subquery: run once, becomes a constant. Correlated (equality-correlated
  // aggregate, as TPC-H Q17/Q2 use): decorrelated into a left join onto the input plan.
  Result<ExprPtr> BindScalarSubquery(const ParsedExpr& e, ExprScope& s) {
    Result<PlanPtr> plan = self->BindQuery(*e.subquery);
    if (plan.ok()) {
      if ((*plan)->columns.size() != 1) {
        return Status::InvalidArgument("[SCALAR_SUBQUERY_TOO_MANY_COLUMNS] Scalar subquery must return only one column, "
                                           "but got " + std::to_string((*plan)->columns.size()) + ".",
                                       "SCALAR_SUBQUERY_TOO_MANY_COLUMNS");
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
        return Status::InvalidArgument("[SCALAR_SUBQUERY_TOO_MANY_ROWS] More than one row returned by a subquery used as "
                                           "an expression.",
                                       "SCALAR_SUBQUERY_TOO_MANY_ROWS");
      }
      auto c = exec::MakeConstant(v);
      return c;
    }
    if (plan.status().error_class().rfind("UNRESOLVED_COLUMN", 0) != 0 || !s.plan || s.agg) return plan.status();
    return BindCorrelatedScalar(e, s);
  }

  Result<ExprPtr> BindCorrelatedScalar(const ParsedExpr& e, ExprScope& s) {
    const sql::Query& q = *e.subquery;
    if (q.set_op != sql::SetOp::kNone || q.select.size() != 1 || !q.group_by.empty() || q.from.empty()) {
      return Status::NotImplemented("correlated scalar subqueries are supported as a single aggregate over FROM … WHERE "
                                    "with equality correlation",
                                    "SILT_UNSUPPORTED_SUBQUERY");
    }
    SILT_ASSIGN_OR_RETURN(auto corr, BindCorrelatedFrom(q, *s.columns));
    // corr.plan: inner FROM filtered by inner-only conjuncts; corr.inner_keys/outer_keys.
    std::vector<OutputColumn> inner_cols = corr.plan->columns;
    AggState agg;
    agg.input = &inner_cols;
    agg.group_exprs = corr.inner_keys;
    for (auto& g : agg.group_exprs) agg.group_texts.push_back("\x01" + g->ToString());  // never matches user text
    ExprScope as;
    as.agg = &agg;
    as.columns = &inner_cols;
    if (!ContainsAggregate(*q.select[0].expr)) {
      return Status::NotImplemented("correlated scalar subqueries must aggregate (e.g. SELECT max(x) …)",
                                    "SILT_UNSUPPORTED_SUBQUERY");
    }
    SILT_ASSIGN_OR_RETURN(ExprPtr value, Bind(*q.select[0].expr, as));
    auto agg_node = std::make_shared<LogicalNode>();
    agg_node->kind = LogicalKind::kAggregate;
    agg_node->children = {corr.plan};
    agg_node->group_keys = agg.group_exprs;
    agg_node->aggregates = agg.calls;
    for (size_t i = 0; i < agg.group_exprs.size(); ++i) agg_node->columns.push_back({"k" + std::to_string(i), agg.group_exprs[i]->type, true, ""});
    for (const auto& c : agg.calls) agg_node->columns.push_back({c.name, c.bound.function->result_type(), true, ""});
    std::vector<ExprPtr> proj;
    std::vector<std::string> names;
    for (size_t i = 0; i < agg.group_exprs.size(); ++i) {
      proj.push_back(exec::MakeColumn(static_cast<int>(i), agg.group_exprs[i]->type, "k"));
      names.push_back("__k" + std::to_string(i));
    }
    proj.push_back(value);
    names.push_back("__scalar");
    PlanPtr inner = MakeProject(agg_node, proj, names);
    PlanPtr left = *s.plan;
    int left_width = static_cast<int>(left->columns.size());
    auto join = std::make_shared<LogicalNode>();
    join->kind = LogicalKind::kJoin;
    join->join = JoinKind::kLeft;
    join->children = {left, inner};
    join->left_keys = corr.outer_keys;
    for (size_t i = 0; i < corr.inner_keys.size(); ++i) {
      join->right_keys.push_back(exec::MakeColumn(static_cast<int>(i), corr.inner_keys[i]->type, "k"));
      join->null_safe.push_back(false);
    }
    join->columns = left->columns;
    for (auto c : inner->columns) {
      c.nullable = true;
      join->columns.push_back(c);
    }
    *s.plan = join;
    *s.columns = join->columns;
    ExprPtr ref = exec::MakeColumn(left_width + static_cast<int>(corr.inner_keys.size()), value->type, "scalarsubquery()");
    // count() over no matching rows is 0, not NULL (Spark's "count bug" handling).
    if (value->kind == ExprKind::kColumn && agg.calls.size() == 1 && (agg.calls[0].function == "count" || agg.calls[0].function == "count_if")) {
      return exec::BindScalarFunction("coalesce", {ref, exec::MakeConstant(Value::Int64(0))}, ctx().bind);
    }
    return ref;
  }

  // EXISTS / IN (subquery) used as a value (not a top-level WHERE conjunct): uncorrelated only.
  Result<ExprPtr> BindPredicateSubqueryAsValue(const ParsedExpr& e, ExprScope& s) {
    SILT_ASSIGN_OR_RETURN(PlanPtr plan, self->BindQuery(*e.subquery));
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
      return Status::InvalidArgument("[DATATYPE_MISMATCH.IN_SUBQUERY_LENGTH_MISMATCH] The number of columns in the "
                                         "left hand side of an IN subquery does not match the number of columns in the output of subquery.",
                                     "DATATYPE_MISMATCH.IN_SUBQUERY_LENGTH_MISMATCH");
    }
    SILT_ASSIGN_OR_RETURN(TypePtr common, exec::CommonType(v->type, plan->columns[0].type));
    std::vector<ExprPtr> items;
    SILT_ASSIGN_OR_RETURN(ExprPtr vv, exec::CoerceTo(v, common, ctx().bind));
    items.push_back(vv);
    for (const auto& c : chunks) {
      for (size_t i = 0; i < c.size(); ++i) {
        SILT_ASSIGN_OR_RETURN(ExprPtr it, exec::CoerceTo(exec::MakeConstant(c.columns[0].GetValue(i)), common, ctx().bind));
        items.push_back(it);
      }
    }
    if (items.size() == 1) return exec::MakeConstant(Value::Boolean(e.negated));
    ExprPtr in = exec::MakeSpecial(ExprKind::kIn, DataType::Boolean(), std::move(items));
    if (!e.negated) return in;
    return exec::BindScalarFunction("not", {in}, ctx().bind);
  }

  // The FROM … WHERE of a correlated subquery: inner plan filtered by its inner-only conjuncts
  // and the equality correlations split into (outer key, inner key) pairs.
  struct Correlated {
    PlanPtr plan;
    std::vector<ExprPtr> outer_keys, inner_keys;
    std::vector<ExprPtr> residual;  // over outer ++ inner (non-equality correlated conjuncts)
  };

  Result<Correlated> BindCorrelatedFrom(const sql::Query& q, const std::vector<OutputColumn>& outer) {
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
        if (b->kind == ExprKind::kCall && (b->name == "=" || b->name == "==") && b->children.size() == 2) {
          const ExprPtr& l = b->children[0];
          const ExprPtr& r = b->children[1];
          bool l_outer = ReadsOnly(l, n_inner, 1 << 30), r_outer = ReadsOnly(r, n_inner, 1 << 30);
          bool l_inner = ReadsOnly(l, 0, n_inner), r_inner = ReadsOnly(r, 0, n_inner);
          if ((l_outer && r_inner) || (r_outer && l_inner)) {
            const ExprPtr& o = l_outer ? l : r;
            const ExprPtr& i = l_outer ? r : l;
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
  Status ApplyPredicateSubquery(const ParsedExpr& e, bool negated, PlanPtr* plan, std::vector<OutputColumn>* cols) {
    const sql::Query& q = *e.subquery;
    auto join = std::make_shared<LogicalNode>();
    join->kind = LogicalKind::kJoin;
    join->join = negated ? JoinKind::kAnti : JoinKind::kSemi;
    join->columns = *cols;
    bool simple_block = q.set_op == sql::SetOp::kNone && q.group_by.empty() && !q.having && q.order_by.empty() &&
                        !q.limit && !q.distinct && !q.from.empty() && q.ctes.empty();
    bool select_has_agg = false;
    for (const auto& it : q.select) select_has_agg |= it.expr && ContainsAggregate(*it.expr);
    Result<PlanPtr> standalone = self->BindQuery(q);
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
        return Status::InvalidArgument("[DATATYPE_MISMATCH.IN_SUBQUERY_LENGTH_MISMATCH] The number of columns in the "
                                           "left hand side of an IN subquery does not match the number of columns in the output of subquery.",
                                       "DATATYPE_MISMATCH.IN_SUBQUERY_LENGTH_MISMATCH");
      }
      ExprScope s;
      s.columns = cols;
      s.plan = plan;
      SILT_ASSIGN_OR_RETURN(ExprPtr v, Bind(*e.children[0], s));
      SILT_ASSIGN_OR_RETURN(TypePtr common, exec::CommonType(v->type, sub->columns[0].type));
      SILT_ASSIGN_OR_RETURN(v, exec::CoerceTo(v, common, ctx().bind));
      SILT_ASSIGN_OR_RETURN(ExprPtr rk, exec::CoerceTo(exec::MakeColumn(0, sub->columns[0].type, sub->columns[0].name), common, ctx().bind));
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
    SILT_ASSIGN_OR_RETURN(Correlated corr, BindCorrelatedFrom(q, *cols));
    join->children = {*plan, corr.plan};
    join->left_keys = corr.outer_keys;
    join->right_keys = corr.inner_keys;
    join->null_safe.assign(corr.outer_keys.size(), false);
    ExprPtr residual;
    for (auto& r : corr.residual) residual = MakeAnd(residual, r);
    if (e.type == ExprType::kInSubquery) {
      if (q.select.size() != 1) {
        return Status::InvalidArgument("[DATATYPE_MISMATCH.IN_SUBQUERY_LENGTH_MISMATCH] IN subquery must return one column.",
                                       "DATATYPE_MISMATCH.IN_SUBQUERY_LENGTH_MISMATCH");
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

  // ------------------------------------------------------------------ FROM
  Result<PlanPtr> BindFromList(const sql::Query& q) {
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

  PlanPtr CrossJoin(PlanPtr l, PlanPtr r) {
    auto j = std::make_shared<LogicalNode>();
    j->kind = LogicalKind::kJoin;
    j->join = JoinKind::kCross;
    j->columns = l->columns;
    j->columns.insert(j->columns.end(), r->columns.begin(), r->columns.end());
    j->children = {std::move(l), std::move(r)};
    return j;
  }

  Result<PlanPtr> ApplyAlias(PlanPtr p, const sql::TableRef& ref) {
    if (!ref.column_aliases.empty()) {
      if (ref.column_aliases.size() != p->columns.size()) {
        return Status::InvalidArgument("[ASSIGNMENT_ARITY_MISMATCH] Number of column aliases (" +
                                           std::to_string(ref.column_aliases.size()) + ") does not match number of columns (" +
                                           std::to_string(p->columns.size()) + ").",
                                       "ASSIGNMENT_ARITY_MISMATCH");
      }
      std::vector<ExprPtr> exprs;
      for (size_t i = 0; i < p->columns.size(); ++i) {
        exprs.push_back(exec::MakeColumn(static_cast<int>(i), p->columns[i].type, p->columns[i].name, p->columns[i].nullable));
      }
      p = MakeProject(p, exprs, ref.column_aliases);
    }
    if (!ref.alias.empty()) {
      // Aliasing re-qualifies the columns; wrap in a projection so shared nodes keep theirs.
      std::vector<ExprPtr> exprs;
      std::vector<std::string> names;
      for (size_t i = 0; i < p->columns.size(); ++i) {
        exprs.push_back(exec::MakeColumn(static_cast<int>(i), p->columns[i].type, p->columns[i].name, p->columns[i].nullable));
        names.push_back(p->columns[i].name);
      }
      p = MakeProject(p, exprs, names);
      p->columns = Requalify(p->columns, ref.alias);
    }
    return p;
  }

  // A named query (CTE or view) used in FROM: its columns renamed to `columns` (when given),
  // qualified by the reference's alias or `name`, then renamed by the reference's own aliases.
  Result<PlanPtr> NamedRelation(PlanPtr plan, const std::vector<std::string>& columns, const std::string& name,
                                const sql::TableRef& ref) {
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
  Result<PlanPtr> BindView(const ResolvedTable& t, const sql::TableRef& ref) {
    const TableEntry& e = *t.entry;
    if (ref.time_travel) {
      return Status::Unsupported("[UNSUPPORTED_FEATURE.TIME_TRAVEL] The feature is not supported: Time travel on the relation: " +
                                     Backquote(t.display_name) + ".",
                                 "UNSUPPORTED_FEATURE.TIME_TRAVEL");
    }
    constexpr int kMaxViewDepth = 100;  // Spark's spark.sql.view.maxNestedViewDepth
    if (view_depth >= kMaxViewDepth) {
      return Status::InvalidArgument("[VIEW_EXCEED_MAX_NESTED_DEPTH] The depth of view " + Backquote(t.display_name) +
                                         " exceeds the maximum view resolution depth (" + std::to_string(kMaxViewDepth) +
                                         "). Analysis is aborted to avoid errors.",
                                     "VIEW_EXCEED_MAX_NESTED_DEPTH");
    }
    Result<sql::StatementNode> parsed = sql::ParseStatement(e.view_text);
    if (!parsed.ok() || (*parsed)->kind != sql::StatementKind::kQuery) {
      return Status::Corruption("the stored query of view " + Backquote(t.display_name) + " cannot be parsed: " +
                                    (parsed.ok() ? std::string("not a query") : std::string(parsed.status().message())),
                                "SILT_CATALOG_CORRUPT");
    }
    const auto& q = static_cast<const sql::QueryStatement&>(**parsed);
    expanded_views.insert(t.is_temp_view ? e.name : e.schema + "." + e.name);
    temp_view_ref = temp_view_ref || t.is_temp_view;
    std::vector<std::map<std::string, const sql::CommonTableExpr*>> saved_ctes = std::move(cte_stack);
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

  Result<PlanPtr> BindTableRef(const sql::TableRef& ref) {
    switch (ref.kind) {
      case sql::TableRef::Kind::kTable: {
        // CTE?
        if (!ref.name.is_path() && ref.name.parts.size() == 1) {
          for (auto it = cte_stack.rbegin(); it != cte_stack.rend(); ++it) {
            auto f = it->find(LowerName(ref.name.parts[0]));
            if (f == it->end()) continue;
            const sql::CommonTableExpr* cte = f->second;
            // Bind the CTE body with only the CTEs defined before it visible.
            std::vector<std::map<std::string, const sql::CommonTableExpr*>> saved = cte_stack;
            cte_stack.erase(cte_stack.begin() + (it.base() - cte_stack.begin()), cte_stack.end());
            auto& scope = cte_stack.emplace_back(*it);
            scope.erase(LowerName(cte->name));
            Result<PlanPtr> p = self->BindQuery(*cte->query);
            cte_stack = saved;
            SILT_RETURN_NOT_OK(p.status());
            return NamedRelation(*p, cte->column_aliases, cte->name, ref);
          }
        }
        SILT_ASSIGN_OR_RETURN(ResolvedTable t, self->ResolveTable(ref.name, ref.time_travel));
        if (t.is_view) return BindView(t, ref);
        std::string q = ref.alias.empty() ? (ref.name.is_path() ? "" : ref.name.parts.back()) : ref.alias;
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

  static std::vector<ExprPtr> IdentityExprs(const PlanPtr& p) {
    std::vector<ExprPtr> out;
    for (size_t i = 0; i < p->columns.size(); ++i) {
      out.push_back(exec::MakeColumn(static_cast<int>(i), p->columns[i].type, p->columns[i].name, p->columns[i].nullable));
    }
    return out;
  }
  static std::vector<std::string> Names(const PlanPtr& p) {
    std::vector<std::string> out;
    for (const auto& c : p->columns) out.push_back(c.name);
    return out;
  }

  Result<PlanPtr> BindValues(const sql::TableRef& ref) {
    std::vector<OutputColumn> none;
    size_t width = ref.values.empty() ? 0 : ref.values[0].size();
    std::vector<std::vector<Value>> rows;
    std::vector<TypePtr> types(width, DataType::Null());
    for (const auto& row : ref.values) {
      if (row.size() != width) {
        return Status::InvalidArgument("[INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH] Invalid inline table. Inline table "
                                           "expected " + std::to_string(width) + " columns but found " +
                                           std::to_string(row.size()) + " columns in a row.",
                                       "INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH");
      }
      std::vector<Value> vals;
      for (size_t i = 0; i < width; ++i) {
        SILT_ASSIGN_OR_RETURN(ExprPtr b, self->BindExpression(*row[i], none));
        if (!exec::IsConstantExpr(*b)) {
          return Status::InvalidArgument("[INVALID_INLINE_TABLE.CANNOT_EVALUATE_EXPRESSION_IN_INLINE_TABLE] Invalid inline "
                                             "table. Cannot evaluate the expression " + b->ToString() + " in inline table definition.",
                                         "INVALID_INLINE_TABLE.CANNOT_EVALUATE_EXPRESSION_IN_INLINE_TABLE");
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
      std::string name = i < ref.column_aliases.size() ? ref.column_aliases[i] : "col" + std::to_string(i + 1);
      TypePtr t = types[i]->id() == TypeId::kNull ? DataType::Null() : types[i];
      node->columns.push_back({name, t, true, ref.alias});
    }
    if (!ref.column_aliases.empty() && ref.column_aliases.size() != width) {
      return Status::InvalidArgument("[ASSIGNMENT_ARITY_MISMATCH] Number of column aliases does not match number of columns.",
                                     "ASSIGNMENT_ARITY_MISMATCH");
    }
    DataChunk chunk;
    for (size_t i = 0; i < width; ++i) chunk.columns.emplace_back(node->columns[i].type);
    chunk.num_rows_without_columns = rows.size();
    for (const auto& row : rows) {
      for (size_t i = 0; i < width; ++i) {
        SILT_ASSIGN_OR_RETURN(ExprPtr c, exec::CoerceTo(exec::MakeConstant(row[i]), node->columns[i].type, ctx().bind));
        SILT_ASSIGN_OR_RETURN(Value v, exec::EvaluateConstant(*c, ctx().eval));
        SILT_RETURN_NOT_OK(chunk.columns[i].AppendValue(v));
      }
    }
    node->rows.push_back(std::move(chunk));
    return PlanPtr(node);
  }

  // table_changes('table', start [, end]) and table_changes_by_path('/path', start [, end]): the
  // change data feed (delta/change_data_feed.h); bounds are versions (integers) or timestamps
  // (TIMESTAMP values or timestamp strings).
  Result<PlanPtr> BindTableChanges(const sql::TableRef& ref, const std::vector<Value>& args, bool by_path) {
    const char* fn = by_path ? "table_changes_by_path" : "table_changes";
    if (args.size() < 2 || args.size() > 3) {
      return Status::InvalidArgument(std::string("[WRONG_NUM_ARGS] ") + fn + "() takes 2 or 3 arguments",
                                     "WRONG_NUM_ARGS");
    }
    if (args[0].is_null() || args[0].type()->id() != TypeId::kString) {
      return Status::InvalidArgument(std::string(fn) + ": the first argument must be a table " +
                                         (by_path ? "path" : "name") + " string",
                                     "INVALID_PARAMETER_VALUE");
    }
    // The name: db.t, `t`, delta.`/path`; or the path itself.
    sql::TableName name;
    const std::string& text = args[0].str();
    if (by_path) {
      name.path_format = "delta";
      name.path = text;
    } else if (text.size() > 8 && LowerName(text.substr(0, 7)) == "delta.`" && text.back() == '`') {
      name.path_format = "delta";
      name.path = text.substr(7, text.size() - 8);
    } else {
      std::string part;
      bool quoted = false;
      for (char c : text) {
        if (c == '`') {
          quoted = !quoted;
        } else if (c == '.' && !quoted) {
          name.parts.push_back(part);
          part.clear();
        } else {
          part += c;
        }
      }
      name.parts.push_back(part);
    }
    SILT_ASSIGN_OR_RETURN(ResolvedTable t, self->ResolveTable(name, std::nullopt));
    if (t.is_view || !t.snapshot) {
      return Status::InvalidArgument("table_changes: " + text + " is not a Delta table", "DELTA_TABLE_NOT_FOUND");
    }
    auto bound = [&](const Value& v, bool is_start) -> Result<std::optional<int64_t>> {
      if (v.is_null()) {
        return Status::InvalidArgument("[DELTA_CDC_READ_NULL_RANGE_BOUNDARY] CDC read start/end parameters cannot be null. "
                                       "Please provide a valid version or timestamp.",
                                       "DELTA_CDC_READ_NULL_RANGE_BOUNDARY");
      }
      std::optional<int64_t> ts_ms;
      switch (v.type()->id()) {
        case TypeId::kInt8:
        case TypeId::kInt16:
        case TypeId::kInt32:
        case TypeId::kInt64:
          return std::optional<int64_t>(v.integer());
        case TypeId::kString: {
          SILT_ASSIGN_OR_RETURN(int64_t ms, delta::ParseTimestampLiteralMillis(v.str()));
          ts_ms = ms;
          break;
        }
        case TypeId::kTimestamp:
        case TypeId::kTimestampNtz:
          ts_ms = v.integer() / 1000;
          break;
        default:
          return Status::InvalidArgument("table_changes: a range bound must be a version or a timestamp",
                                         "INVALID_PARAMETER_VALUE");
      }
      if (is_start) {
        SILT_ASSIGN_OR_RETURN(int64_t ver, delta::ChangeFeedStartVersionAt(*t.store, *ts_ms));
        return std::optional<int64_t>(ver);
      }
      SILT_ASSIGN_OR_RETURN(int64_t ver, delta::ChangeFeedEndVersionAt(*t.store, *ts_ms));
      return std::optional<int64_t>(ver);
    };
    SILT_ASSIGN_OR_RETURN(std::optional<int64_t> start, bound(args[1], true));
    std::optional<int64_t> end;
    if (args.size() == 3) {
      SILT_ASSIGN_OR_RETURN(end, bound(args[2], false));
    }
    SILT_ASSIGN_OR_RETURN(delta::ChangeFeed feed, delta::ReadChangeFeed(t.store, *start, end));
    auto node = std::make_shared<LogicalNode>();
    node->kind = LogicalKind::kValues;
    for (const Field& f : feed.schema) node->columns.push_back({f.name, f.type, true, ref.alias});
    node->rows = std::move(feed.chunks);
    sql::TableRef tmp;
    tmp.column_aliases = ref.column_aliases;
    return ApplyAlias(node, tmp);
  }

  Result<PlanPtr> BindTableFunction(const sql::TableRef& ref) {
    std::string fn = LowerName(ref.function_name);
    std::vector<OutputColumn> none;
    std::vector<Value> args;
    for (const auto& a : ref.function_args) {
      SILT_ASSIGN_OR_RETURN(ExprPtr b, self->BindExpression(*a, none));
      SILT_ASSIGN_OR_RETURN(Value v, exec::EvaluateConstant(*b, ctx().eval));
      args.push_back(std::move(v));
    }
    if (fn == "range") {
      if (args.empty() || args.size() > 3) {
        return Status::InvalidArgument("[WRONG_NUM_ARGS] range() takes 1 to 3 arguments", "WRONG_NUM_ARGS");
      }
      int64_t start = 0, end, step = 1;
      if (args.size() == 1) {
        end = args[0].integer();
      } else {
        start = args[0].integer();
        end = args[1].integer();
        if (args.size() == 3) step = args[2].integer();
      }
      if (step == 0) return Status::InvalidArgument("range step must not be 0", "INVALID_PARAMETER_VALUE");
      auto node = std::make_shared<LogicalNode>();
      node->kind = LogicalKind::kValues;
      node->columns.push_back({"id", DataType::Int64(), false, ref.alias});
      DataChunk chunk;
      chunk.columns.emplace_back(DataType::Int64());
      for (int64_t v = start; step > 0 ? v < end : v > end; v += step) {
        chunk.columns[0].Append<int64_t>(v);
        if (chunk.size() == 65536) {
          node->rows.push_back(std::move(chunk));
          chunk = DataChunk();
          chunk.columns.emplace_back(DataType::Int64());
        }
      }
      if (chunk.size()) node->rows.push_back(std::move(chunk));
      sql::TableRef tmp;
      tmp.column_aliases = ref.column_aliases;
      return ApplyAlias(node, tmp);
    }
    if (fn == "table_changes" || fn == "table_changes_by_path") {
      return BindTableChanges(ref, args, fn == "table_changes_by_path");
    }
    return Status::InvalidArgument("[UNRESOLVABLE_TABLE_VALUED_FUNCTION] Could not resolve " + Backquote(fn) +
                                       " to a table-valued function.",
                                   "UNRESOLVABLE_TABLE_VALUED_FUNCTION");
  }

  Result<PlanPtr> BindJoin(const sql::TableRef& ref) {
    SILT_ASSIGN_OR_RETURN(PlanPtr l, BindTableRef(*ref.left));
    SILT_ASSIGN_OR_RETURN(PlanPtr r, BindTableRef(*ref.right));
    auto j = std::make_shared<LogicalNode>();
    j->kind = LogicalKind::kJoin;
    switch (ref.join_type) {
      case sql::JoinType::kInner: j->join = JoinKind::kInner; break;
      case sql::JoinType::kLeft: j->join = JoinKind::kLeft; break;
      case sql::JoinType::kRight: j->join = JoinKind::kRight; break;
      case sql::JoinType::kFull: j->join = JoinKind::kFull; break;
      case sql::JoinType::kCross: j->join = JoinKind::kCross; break;
      case sql::JoinType::kLeftSemi: j->join = JoinKind::kSemi; break;
      case sql::JoinType::kLeftAnti: j->join = JoinKind::kAnti; break;
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
          if (NameEq(c.name, d.name)) using_cols.push_back(c.name);
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
          return Status::InvalidArgument("[UNRESOLVED_USING_COLUMN_FOR_JOIN] USING column " + Backquote(name) +
                                             " cannot be resolved on the " + (li.ok() ? "right" : "left") + " side of the join.",
                                         "UNRESOLVED_USING_COLUMN_FOR_JOIN");
        }
        SILT_ASSIGN_OR_RETURN(TypePtr t, exec::CommonType(l->columns[*li].type, r->columns[*ri].type));
        SILT_ASSIGN_OR_RETURN(ExprPtr a, exec::CoerceTo(exec::MakeColumn(*li, l->columns[*li].type, name), t, ctx().bind));
        SILT_ASSIGN_OR_RETURN(ExprPtr b, exec::CoerceTo(exec::MakeColumn(*ri, r->columns[*ri].type, name), t, ctx().bind));
        j->left_keys.push_back(a);
        j->right_keys.push_back(b);
        j->null_safe.push_back(false);
        lk.push_back(*li);
        rk.push_back(*ri);
      }
      if (j->join == JoinKind::kCross) j->join = JoinKind::kInner;
      j->columns = both;
      if (j->join == JoinKind::kLeft || j->join == JoinKind::kFull) nullable_side(j->columns, lw, both.size());
      if (j->join == JoinKind::kRight || j->join == JoinKind::kFull) nullable_side(j->columns, 0, lw);
      if (j->join == JoinKind::kSemi || j->join == JoinKind::kAnti) {
        j->columns = l->columns;
        return PlanPtr(j);
      }
      std::vector<ExprPtr> exprs;
      std::vector<std::string> names;
      std::vector<std::string> quals;
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
      }
      for (int i = 0; i < lw; ++i) {
        if (std::find(lk.begin(), lk.end(), i) != lk.end()) continue;
        exprs.push_back(exec::MakeColumn(i, j->columns[i].type, j->columns[i].name, j->columns[i].nullable));
        names.push_back(j->columns[i].name);
        quals.push_back(j->columns[i].qualifier);
      }
      for (int i = 0; i < static_cast<int>(r->columns.size()); ++i) {
        if (std::find(rk.begin(), rk.end(), i) != rk.end()) continue;
        exprs.push_back(exec::MakeColumn(lw + i, j->columns[lw + i].type, j->columns[lw + i].name, j->columns[lw + i].nullable));
        names.push_back(j->columns[lw + i].name);
        quals.push_back(j->columns[lw + i].qualifier);
      }
      PlanPtr p = MakeProject(j, exprs, names);
      for (size_t i = 0; i < quals.size(); ++i) p->columns[i].qualifier = quals[i];
      // The join columns stay reachable through either side's qualifier (t1.k and t2.k).
      return p;
    }
    if (ref.join_condition) {
      ExprScope s;
      s.columns = &both;
      SILT_ASSIGN_OR_RETURN(ExprPtr cond, Bind(*ref.join_condition, s));
      SILT_ASSIGN_OR_RETURN(cond, exec::CoerceTo(cond, DataType::Boolean(), ctx().bind));
      if (j->join == JoinKind::kCross) j->join = JoinKind::kInner;
      ExtractJoinKeys(cond, lw, static_cast<int>(both.size()), j.get());
    } else if (j->join != JoinKind::kCross && j->join != JoinKind::kInner) {
      return Status::InvalidArgument("[INVALID_SQL_SYNTAX] " + std::string("join requires a condition"), "INVALID_SQL_SYNTAX");
    }
    j->columns = both;
    if (j->join == JoinKind::kLeft || j->join == JoinKind::kFull) nullable_side(j->columns, lw, both.size());
    if (j->join == JoinKind::kRight || j->join == JoinKind::kFull) nullable_side(j->columns, 0, lw);
    if (j->join == JoinKind::kSemi || j->join == JoinKind::kAnti) j->columns = l->columns;
    return PlanPtr(j);
  }

  // ------------------------------------------------------------------ queries
  static constexpr int kWindowBase = 1 << 20;
  // Placeholder columns of a SELECT-list generator's output, until its Generate node exists.
  static constexpr int kGenerateBase = 1 << 21;
  // Lambda parameters' placeholder columns (exec/lambda.h), 64 per nesting level.
  static constexpr int kLambdaBase = 1 << 22;

  Result<int64_t> ConstantInt(const ParsedExpr& e, const char* what) {
    std::vector<OutputColumn> none;
    SILT_ASSIGN_OR_RETURN(ExprPtr b, self->BindExpression(e, none));
    if (!exec::IsConstantExpr(*b)) {
      return Status::InvalidArgument(std::string("[INVALID_LIMIT_LIKE_EXPRESSION.IS_UNFOLDABLE] The ") + what +
                                         " expression must evaluate to a constant value.",
                                     "INVALID_LIMIT_LIKE_EXPRESSION.IS_UNFOLDABLE");
    }
    SILT_ASSIGN_OR_RETURN(b, exec::CoerceTo(b, DataType::Int64(), ctx().bind));
    SILT_ASSIGN_OR_RETURN(Value v, exec::EvaluateConstant(*b, ctx().eval));
    if (v.is_null()) {
      return Status::InvalidArgument(std::string("[INVALID_LIMIT_LIKE_EXPRESSION.IS_NULL] The ") + what +
                                         " expression must not be null.",
                                     "INVALID_LIMIT_LIKE_EXPRESSION.IS_NULL");
    }
    if (v.integer() < 0) {
      return Status::InvalidArgument(std::string("[INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE] The ") + what +
                                         " expression must be equal to or greater than 0, but got " +
                                         std::to_string(v.integer()) + ".",
                                     "INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE");
    }
    return v.integer();
  }

  Result<PlanPtr> ApplyLimit(PlanPtr plan, const sql::Query& q) {
    if (!q.limit && !q.offset) return plan;
    auto node = std::make_shared<LogicalNode>();
    node->kind = LogicalKind::kLimit;
    node->columns = plan->columns;
    node->children = {plan};
    if (q.limit) {
      SILT_ASSIGN_OR_RETURN(int64_t n, ConstantInt(*q.limit, "limit"));
      node->limit = n;
    }
    if (q.offset) {
      SILT_ASSIGN_OR_RETURN(node->offset, ConstantInt(*q.offset, "offset"));
    }
    return PlanPtr(node);
  }

  PlanPtr MakeSort(PlanPtr child, std::vector<SortSpec> keys) {
    auto node = std::make_shared<LogicalNode>();
    node->kind = LogicalKind::kSort;
    node->columns = child->columns;
    node->children = {std::move(child)};
    node->sort_keys = std::move(keys);
    return node;
  }

  Result<PlanPtr> BindSetOp(const sql::Query& q) {
    SILT_ASSIGN_OR_RETURN(PlanPtr l, self->BindQuery(*q.left));
    SILT_ASSIGN_OR_RETURN(PlanPtr r, self->BindQuery(*q.right));
    if (q.by_name) {
      std::vector<ExprPtr> exprs;
      for (const auto& c : l->columns) {
        size_t consumed;
        SILT_ASSIGN_OR_RETURN(int i, ResolveColumn({c.name}, r->columns, &consumed));
        exprs.push_back(exec::MakeColumn(i, r->columns[i].type, r->columns[i].name));
      }
      r = MakeProject(r, exprs, Names(l));
    }
    if (l->columns.size() != r->columns.size()) {
      return Status::InvalidArgument("[NUM_COLUMNS_MISMATCH] " +
                                         std::string(q.set_op == sql::SetOp::kUnion ? "UNION" : q.set_op == sql::SetOp::kIntersect ? "INTERSECT" : "EXCEPT") +
                                         " can only be performed on inputs with the same number of columns, but the first input has " +
                                         std::to_string(l->columns.size()) + " columns and the second input has " +
                                         std::to_string(r->columns.size()) + " columns.",
                                     "NUM_COLUMNS_MISMATCH");
    }
    std::vector<ExprPtr> le, re;
    bool lcast = false, rcast = false;
    std::vector<OutputColumn> out = l->columns;
    for (size_t i = 0; i < out.size(); ++i) {
      SILT_ASSIGN_OR_RETURN(TypePtr t, exec::CommonType(l->columns[i].type, r->columns[i].type));
      ExprPtr a = exec::MakeColumn(static_cast<int>(i), l->columns[i].type, l->columns[i].name);
      ExprPtr b = exec::MakeColumn(static_cast<int>(i), r->columns[i].type, r->columns[i].name);
      lcast |= !t->Equals(*l->columns[i].type);
      rcast |= !t->Equals(*r->columns[i].type);
      SILT_ASSIGN_OR_RETURN(a, exec::CoerceTo(a, t, ctx().bind));
      SILT_ASSIGN_OR_RETURN(b, exec::CoerceTo(b, t, ctx().bind));
      le.push_back(a);
      re.push_back(b);
      out[i].type = t;
      out[i].nullable = l->columns[i].nullable || r->columns[i].nullable;
      out[i].qualifier = "";
    }
    if (lcast) l = MakeProject(l, le, Names(l));
    if (rcast) r = MakeProject(r, re, Names(l));
    auto node = std::make_shared<LogicalNode>();
    node->columns = out;
    node->children = {l, r};
    node->set_all = q.set_all;
    if (q.set_op == sql::SetOp::kUnion) {
      node->kind = LogicalKind::kUnionAll;
      if (q.set_all) return PlanPtr(node);
      auto d = std::make_shared<LogicalNode>();
      d->kind = LogicalKind::kDistinct;
      d->columns = out;
      d->children = {node};
      return PlanPtr(d);
    }
    node->kind = LogicalKind::kSetOp;
    node->intersect = q.set_op == sql::SetOp::kIntersect;
    return PlanPtr(node);
  }

  // ORDER BY over a plan's output by name/ordinal (set operations, VALUES queries).
  Result<PlanPtr> OrderByOutput(PlanPtr plan, const sql::Query& q) {
    if (q.order_by.empty()) return plan;
    std::vector<SortSpec> keys;
    for (const auto& o : q.order_by) {
      SortSpec k;
      k.ascending = o.ascending;
      k.nulls_first = o.nulls_first.value_or(o.ascending);
      if (o.expr->type == ExprType::kLiteral && !o.expr->literal.is_null() && o.expr->literal.type()->id() == TypeId::kInt32) {
        int64_t ord = o.expr->literal.integer();
        if (ord < 1 || ord > static_cast<int64_t>(plan->columns.size())) {
          return Status::InvalidArgument("[ORDER_BY_POS_OUT_OF_RANGE] ORDER BY position " + std::to_string(ord) +
                                             " is not in select list (valid range is [1, " +
                                             std::to_string(plan->columns.size()) + "]).",
                                         "ORDER_BY_POS_OUT_OF_RANGE");
        }
        const auto& c = plan->columns[ord - 1];
        k.expr = exec::MakeColumn(static_cast<int>(ord - 1), c.type, c.name, c.nullable);
      } else {
        std::vector<OutputColumn> cols = plan->columns;
        ExprScope s;
        s.columns = &cols;
        SILT_ASSIGN_OR_RETURN(k.expr, Bind(*o.expr, s));
      }
      keys.push_back(k);
    }
    return MakeSort(plan, std::move(keys));
  }

  // A Generate node over `child` calling generator `call` on `arg` (bound over child's output).
  // Its columns are named by `aliases` when given (as many as it makes), else Spark's names.
  Result<PlanPtr> MakeGenerate(PlanPtr child, const ParsedExpr& call, ExprPtr arg, const std::vector<std::string>& aliases,
                               const std::string& qualifier) {
    const std::string name = LowerName(call.names.back());
    std::optional<exec::Generator> gen = exec::FindGenerator(name);
    if (!gen) {
      return Status::InvalidArgument("[UNSUPPORTED_GENERATOR.NOT_GENERATOR] The generator is not supported: `" + name +
                                         "` is expected to be a generator. However, its class is not a generator.",
                                     "UNSUPPORTED_GENERATOR.NOT_GENERATOR");
    }
    SILT_ASSIGN_OR_RETURN(std::vector<Field> fields, exec::GeneratorOutput(*gen, arg->type, call.ToString()));
    SILT_RETURN_NOT_OK(CheckGeneratorAliases(fields, aliases));
    auto node = std::make_shared<LogicalNode>();
    node->kind = LogicalKind::kGenerate;
    node->generator = name;
    node->exprs = {std::move(arg)};
    node->columns = child->columns;
    for (size_t k = 0; k < fields.size(); ++k) {
      node->columns.push_back({aliases.empty() ? fields[k].name : aliases[k], fields[k].type, fields[k].nullable, qualifier});
    }
    node->children = {std::move(child)};
    return node;
  }

  static Status CheckGeneratorAliases(const std::vector<Field>& fields, const std::vector<std::string>& aliases) {
    if (aliases.empty() || aliases.size() == fields.size()) return Status::OK();
    std::string list;
    for (const auto& a : aliases) list += (list.empty() ? "" : ", ") + a;
    return Status::InvalidArgument("[UDTF_ALIAS_NUMBER_MISMATCH] The number of aliases supplied in the AS clause does not match "
                                       "the number of columns output by the UDTF. Expected " + std::to_string(fields.size()) +
                                       " aliases, but got " + list + ".",
                                   "UDTF_ALIAS_NUMBER_MISMATCH");
  }

  // The one argument of a generator call, bound in scope s. json_tuple(json, k1, …) is inline
  // over array(__json_tuple(json, k1, …)): one row of fields c0, c1, … per input row.
  Result<ExprPtr> BindGeneratorArg(const ParsedExpr& call, ExprScope& s) {
    if (LowerName(call.names.back()) == "json_tuple") {
      std::vector<ExprPtr> args;
      for (const auto& c : call.children) {
        SILT_ASSIGN_OR_RETURN(ExprPtr b, Bind(*c, s));
        args.push_back(std::move(b));
      }
      SILT_ASSIGN_OR_RETURN(ExprPtr row, exec::BindScalarFunction("__json_tuple", std::move(args), ctx().bind));
      return exec::BindScalarFunction("array", {std::move(row)}, ctx().bind);
    }
    if (call.children.size() != 1) {
      return Status::InvalidArgument("[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `" + LowerName(call.names.back()) +
                                         "` requires 1 parameters but the actual number is " + std::to_string(call.children.size()) + ".",
                                     "WRONG_NUM_ARGS.WITHOUT_SUGGESTION");
    }
    return Bind(*call.children[0], s);
  }

  static bool IsGeneratorCall(const ParsedExpr& e) {
    return e.type == ExprType::kFunction && !e.names.empty() && !e.over && exec::FindGenerator(e.names.back());
  }

  Result<PlanPtr> BindSelect(const sql::Query& q) {
    SILT_ASSIGN_OR_RETURN(PlanPtr plan, BindFromList(q));
    for (const sql::LateralView& lv : q.lateral_views) {
      ExprScope ls;
      ls.columns = &plan->columns;
      ls.plan = &plan;
      SILT_ASSIGN_OR_RETURN(ExprPtr arg, BindGeneratorArg(*lv.generator, ls));
      SILT_ASSIGN_OR_RETURN(PlanPtr g, MakeGenerate(plan, *lv.generator, std::move(arg), lv.column_aliases, lv.table_alias));
      if (lv.outer) {
        // LATERAL VIEW OUTER: the _outer form of the generator.
        std::string n = LowerName(lv.generator->names.back());
        if (!n.ends_with("_outer")) g->generator = n + "_outer";
        for (size_t k = plan->columns.size(); k < g->columns.size(); ++k) g->columns[k].nullable = true;
      }
      plan = std::move(g);
    }
    std::vector<OutputColumn> cols = plan->columns;
    const size_t star_width = cols.size();

    // WHERE: subquery predicates become semi/anti joins, the rest one filter.
    if (q.where) {
      if (ContainsAggregate(*q.where)) {
        return Status::InvalidArgument("[INVALID_WHERE_CONDITION] The WHERE condition " + q.where->ToString() +
                                           " contains invalid expressions: aggregate functions are not allowed in WHERE.",
                                       "INVALID_WHERE_CONDITION");
      }
      std::vector<const ParsedExpr*> conj;
      SplitConjuncts(q.where.get(), &conj);
      ExprPtr filter;
      for (const ParsedExpr* c : conj) {
        const ParsedExpr* inner = c;
        bool negated = false;
        if (c->type == ExprType::kUnary && NameEq(c->op, "not") &&
            (c->children[0]->type == ExprType::kExists || c->children[0]->type == ExprType::kInSubquery)) {
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
          if (!si.expr->names.empty() && !NameEq(cols[i].qualifier, si.expr->names.back())) continue;
          bool excluded = false;
          for (const auto& ex : si.expr->except_columns) excluded |= NameEq(ex, cols[i].name);
          if (excluded) continue;
          items.push_back({nullptr, static_cast<int>(i), cols[i].name});
          any = true;
        }
        if (!any && !si.expr->names.empty()) {
          return Status::InvalidArgument("[CANNOT_RESOLVE_STAR_EXPAND] Cannot resolve " + Backquote(si.expr->names.back()) +
                                             ".* given input columns.",
                                         "CANNOT_RESOLVE_STAR_EXPAND");
        }
        continue;
      }
      items.push_back({si.expr.get(), -1, si.alias.empty() ? ColumnNameOf(*si.expr) : si.alias});
    }

    bool has_agg = !q.group_by.empty() || q.group_by_all || !q.grouping_sets.empty() || q.having;
    for (const auto& it : items) has_agg |= it.expr && ContainsAggregate(*it.expr);
    for (const auto& o : q.order_by) has_agg |= ContainsAggregate(*o.expr);

    AggState agg;
    agg.input = &cols;
    WindowState win;
    win.base_width = kWindowBase;
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
            return Status::NotImplemented("GROUP BY ALL with * is not supported", "SILT_UNSUPPORTED_EXPRESSION");
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
        if (g->type == ExprType::kLiteral && !g->literal.is_null() && g->literal.type()->id() == TypeId::kInt32) {
          int64_t ord = g->literal.integer();
          if (ord < 1 || ord > static_cast<int64_t>(items.size())) {
            return Status::InvalidArgument("[GROUP_BY_POS_OUT_OF_RANGE] GROUP BY position " + std::to_string(ord) +
                                               " is not in select list (valid range is [1, " + std::to_string(items.size()) + "]).",
                                           "GROUP_BY_POS_OUT_OF_RANGE");
          }
          const Item& it = items[ord - 1];
          if (!it.expr) {
            const auto& c = cols[it.star_column];
            agg.group_exprs.push_back(exec::MakeColumn(it.star_column, c.type, c.name, c.nullable));
            agg.group_texts.push_back(c.name);
            continue;
          }
          if (ContainsAggregate(*it.expr)) {
            return Status::InvalidArgument("[GROUP_BY_POS_AGGREGATE] GROUP BY " + std::to_string(ord) +
                                               " refers to an expression that contains an aggregate function.",
                                           "GROUP_BY_POS_AGGREGATE");
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
      for (const ParsedExpr* g : group_asts) {
        ExprScope gs;
        gs.columns = &cols;
        SILT_ASSIGN_OR_RETURN(ExprPtr b, Bind(*g, gs));
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
        return Status::InvalidArgument("[UNSUPPORTED_GENERATOR.MULTI_GENERATOR] The generator is not supported: only one generator "
                                           "allowed per SELECT clause but found 2: \"" + gen_call->ToString() + "\", \"" +
                                           items[i].expr->ToString() + "\".",
                                       "UNSUPPORTED_GENERATOR.MULTI_GENERATOR");
      }
      gen_call = items[i].expr;
    }
    std::vector<ExprPtr> exprs;
    std::vector<std::string> names;
    std::vector<Item> bound_items;  // items, with a generator's expanded to one per column
    for (const Item& it : items) {
      if (it.expr && it.expr == gen_call) {
        for (const auto& si : q.select) {
          if (si.expr.get() == gen_call) gen_aliases = !si.aliases.empty() ? si.aliases : si.alias.empty() ? std::vector<std::string>{} : std::vector<std::string>{si.alias};
        }
        SILT_ASSIGN_OR_RETURN(gen_arg, BindGeneratorArg(*gen_call, s));
        std::optional<exec::Generator> g = exec::FindGenerator(gen_call->names.back());
        SILT_ASSIGN_OR_RETURN(std::vector<Field> fields, exec::GeneratorOutput(*g, gen_arg->type, gen_call->ToString()));
        SILT_RETURN_NOT_OK(CheckGeneratorAliases(fields, gen_aliases));
        for (size_t k = 0; k < fields.size(); ++k) {
          std::string n = gen_aliases.empty() ? fields[k].name : gen_aliases[k];
          exprs.push_back(exec::MakeColumn(kGenerateBase + static_cast<int>(k), fields[k].type, n, fields[k].nullable));
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
    }
    items = std::move(bound_items);
    const size_t visible = exprs.size();

    ExprPtr having;
    if (q.having) {
      SILT_ASSIGN_OR_RETURN(having, Bind(*q.having, s));
      SILT_ASSIGN_OR_RETURN(having, exec::CoerceTo(having, DataType::Boolean(), ctx().bind));
    }
    ExprPtr qualify;
    if (q.qualify) {
      SILT_ASSIGN_OR_RETURN(qualify, Bind(*q.qualify, s));
    }

    // ORDER BY: select aliases and ordinals, else expressions over the input (hidden columns).
    std::vector<SortSpec> order;
    for (const auto& o : q.order_by) {
      SortSpec k;
      k.ascending = o.ascending;
      k.nulls_first = o.nulls_first.value_or(o.ascending);
      int target = -1;
      if (o.expr->type == ExprType::kLiteral && !o.expr->literal.is_null() && o.expr->literal.type()->id() == TypeId::kInt32) {
        int64_t ord = o.expr->literal.integer();
        if (ord < 1 || ord > static_cast<int64_t>(visible)) {
          return Status::InvalidArgument("[ORDER_BY_POS_OUT_OF_RANGE] ORDER BY position " + std::to_string(ord) +
                                             " is not in select list (valid range is [1, " + std::to_string(visible) + "]).",
                                         "ORDER_BY_POS_OUT_OF_RANGE");
        }
        target = static_cast<int>(ord - 1);
      } else if (o.expr->type == ExprType::kColumnRef && o.expr->names.size() == 1) {
        for (size_t i = 0; i < visible && target < 0; ++i) {
          bool aliased = i < items.size() && items[i].expr;
          if (NameEq(names[i], o.expr->names[0]) && (aliased || items[i].star_column >= 0)) target = static_cast<int>(i);
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
      return Status::InvalidArgument("[MISSING_ATTRIBUTES] ORDER BY expressions must appear in the select list when "
                                         "SELECT DISTINCT is used.",
                                     "MISSING_ATTRIBUTES.RESOLVED_ATTRIBUTE_APPEAR_IN_OPERATION");
    }

    // Build: aggregate → having → window → project → distinct → sort → drop hidden → limit.
    if (has_agg) {
      auto node = std::make_shared<LogicalNode>();
      node->kind = LogicalKind::kAggregate;
      node->children = {plan};
      node->group_keys = agg.group_exprs;
      node->aggregates = agg.calls;
      node->grouping_sets = agg.grouping_sets;
      for (size_t i = 0; i < agg.group_exprs.size(); ++i) {
        bool nullable = agg.group_exprs[i]->nullable || agg.grouping_sets.size() > 1;
        node->columns.push_back({ColumnNameOf(*group_ast_or_null(q, i)), agg.group_exprs[i]->type, nullable, ""});
      }
      if (agg.has_grouping_id()) node->columns.push_back({"spark_grouping_id", DataType::Int64(), false, ""});
      for (const auto& c : agg.calls) node->columns.push_back({c.name, c.bound.function->result_type(), true, ""});
      plan = node;
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
        e = RemapColumns(e, [&](int c) { return c >= kGenerateBase ? gen_base + (c - kGenerateBase) : c; });
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
      for (size_t i = 0; i < visible; ++i) keep[i] = exec::MakeColumn(static_cast<int>(i), exprs[i]->type, names[i], exprs[i]->nullable);
      plan = MakeProject(plan, keep, std::vector<std::string>(names.begin(), names.begin() + visible));
    }
    return plan;
  }

  // The AST of group key i (for its output name); a placeholder when the key came from an ordinal.
  const ParsedExpr* group_ast_or_null(const sql::Query& q, size_t i) {
    static const ParsedExpr kEmpty = [] {
      ParsedExpr e;
      e.type = ExprType::kColumnRef;
      e.names = {"group"};
      return e;
    }();
    if (i < q.group_by.size()) return q.group_by[i].get();
    return &kEmpty;
  }
 public:
  // Splits a join condition over left ++ right into equi-keys and a residual.
  static void ExtractJoinKeys(const ExprPtr& cond, int lw, int total, LogicalNode* j) {
    std::vector<ExprPtr> conj;
    SplitBound(cond, &conj);
    ExprPtr residual;
    for (const ExprPtr& c : conj) {
      if (c->kind == ExprKind::kCall && (c->name == "=" || c->name == "==" || c->name == "<=>") && c->children.size() == 2) {
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
};

Result<PlanPtr> Binder::BindQuery(const sql::Query& q) {
  if (!q.ctes.empty()) {
    std::map<std::string, const sql::CommonTableExpr*> scope;
    for (const auto& c : q.ctes) scope[LowerName(c.name)] = &c;
    impl_->cte_stack.push_back(std::move(scope));
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

Status ExpectTable(const ResolvedTable& table, std::string_view command) {
  if (!table.is_view) return Status::OK();
  return Status::InvalidArgument("[EXPECT_TABLE_NOT_VIEW.NO_ALTERNATIVE] '" + std::string(command) +
                                     "' expects a table but " + Backquote(table.display_name) + " is a view.",
                                 "EXPECT_TABLE_NOT_VIEW.NO_ALTERNATIVE");
}

Result<exec::ExprPtr> Binder::BindExpression(const sql::ParsedExpr& expr, const std::vector<OutputColumn>& columns,
                                             const std::string& qualifier) {
  std::vector<OutputColumn> cols = columns;
  if (!qualifier.empty()) cols = Requalify(cols, qualifier);
  ExprScope s;
  s.columns = &cols;
  return impl_->Bind(expr, s);
}

Result<ResolvedTable> Binder::ResolveTable(const sql::TableName& name, const sql::TimeTravel* tt,
                                           bool must_exist, bool load_files) {
  ResolvedTable t;
  if (!name.is_path() && name.parts.empty()) return Status::InvalidArgument("a table name is required", "PARSE_SYNTAX_ERROR");
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
  if (name.is_path()) {
    std::string fmt = LowerName(name.path_format);
    if (fmt != "delta" && !fmt.empty()) {
      return Status::NotImplemented("reading " + fmt + " paths directly is not supported; use delta.`path`",
                                    "SILT_UNSUPPORTED_DATA_SOURCE");
    }
    t.location = name.path;
    t.display_name = "delta.`" + name.path + "`";
  } else {
    std::string schema = name.parts.size() >= 2 ? name.parts[name.parts.size() - 2] : ctx_.current_schema;
    const std::string& table = name.parts.back();
    if (name.parts.size() > 3 || (name.parts.size() == 3 && !NameEq(name.parts[0], "spark_catalog"))) {
      return Status::NotFound("[TABLE_OR_VIEW_NOT_FOUND] The table or view " + Backquote(name.ToString()) +
                                  " cannot be found.",
                              "TABLE_OR_VIEW_NOT_FOUND");
    }
    Result<TableEntry> e = ctx_.catalog->GetTable(schema, table);
    if (!e.ok()) {
      if (e.status().code() == StatusCode::kNotFound) {
        return Status::NotFound("[TABLE_OR_VIEW_NOT_FOUND] The table or view " + Backquote(name.ToString()) +
                                    " cannot be found. Verify the spelling and correctness of the schema and catalog.",
                                "TABLE_OR_VIEW_NOT_FOUND");
      }
      return e.status();
    }
    t.entry = *e;
    t.location = e->location;
    t.display_name = e->schema + "." + e->name;
    t.is_view = e->format == "view";
    if (t.is_view) return t;
  }
  SILT_ASSIGN_OR_RETURN(t.store, OpenTableStore(t.location));
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
          return Status::InvalidArgument("[DELTA_TIMESTAMP_INVALID] The provided timestamp is not a valid timestamp.",
                                         "DELTA_TIMESTAMP_INVALID");
        }
        ts_ms = v.integer() / 1000;
      } else {
        SILT_ASSIGN_OR_RETURN(ts_ms, delta::ParseTimestampLiteralMillis(tt->timestamp_text));
      }
      SILT_ASSIGN_OR_RETURN(version, delta::VersionAtTimestamp(*t.store, ts_ms));
    }
  }
  Result<std::shared_ptr<const delta::Snapshot>> snap =
      delta::Snapshot::Load(t.store, version, delta::SnapshotOptions{.load_files = load_files});
  if (!snap.ok()) {
    if (snap.status().code() == StatusCode::kNotFound && !version) {
      if (!must_exist) return t;
      if (name.is_path()) {
        return Status::NotFound("[DELTA_TABLE_NOT_FOUND] Delta table " + Backquote(name.path) + " doesn't exist.",
                                "DELTA_TABLE_NOT_FOUND");
      }
    }
    return snap.status();
  }
  t.snapshot = *snap;
  return t;
}

Result<PlanPtr> Binder::ScanPlan(const ResolvedTable& table, const std::string& qualifier) {
  if (!table.snapshot) {
    return Status::NotFound("[DELTA_TABLE_NOT_FOUND] Delta table " + table.display_name + " doesn't exist.",
                            "DELTA_TABLE_NOT_FOUND");
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
