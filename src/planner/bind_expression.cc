// Binding expressions: column resolution, field access, operators, CASE, interval arithmetic.
#include "common/datetime.h"
#include "common/error_classes.h"
#include "planner/binder_impl.h"

namespace silt::planner {

Result<int> Binder::Impl::ResolveColumn(const std::vector<std::string>& names,
                                        const std::vector<OutputColumn>& cols, size_t* consumed) {
  // Try qualifier.column first for multi-part names, then column[.field...].
  if (names.size() >= 2) {
    int found = -1;
    for (size_t i = 0; i < cols.size(); ++i) {
      if (NameEq(cols[i].qualifier, names[names.size() >= 3 ? 1 : 0]) &&
          NameEq(cols[i].name, names[names.size() >= 3 ? 2 : 1])) {
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
      return Status::InvalidArgument(
          "Reference " + Backquote(names[0] + "." + names[1]) + " is ambiguous.",
          errc::kAmbiguousReference);
    }
    if (found >= 0) {
      *consumed = 2;
      return found;
    }
  }
  int found = -1, matches = 0;
  for (size_t i = 0; i < cols.size(); ++i) {
    if (!cols[i].hidden && NameEq(cols[i].name, names[0])) {
      if (found < 0) found = static_cast<int>(i);
      ++matches;
    }
  }
  if (matches > 1) {
    return Status::InvalidArgument("Reference " + Backquote(names[0]) +
                                       " is ambiguous, could be: " + std::to_string(matches) +
                                       " columns.",
                                   errc::kAmbiguousReference);
  }
  if (found >= 0) {
    *consumed = 1;
    return found;
  }
  std::string full;
  for (const auto& n : names) full += (full.empty() ? "" : ".") + n;
  return Unresolved(full, cols);
}

Result<ExprPtr> Binder::Impl::FieldAccess(ExprPtr base, const std::string& field) {
  if (base->type->id() != TypeId::kStruct) {
    return Status::InvalidArgument("Can't extract a value from " + base->ToString() +
                                       ". Need a complex type [STRUCT, ARRAY, MAP] but got " +
                                       base->type->ToString() + ".",
                                   errc::kInvalidExtractBaseFieldType);
  }
  int idx = FindField(base->type->fields(), field);
  if (idx < 0) {
    return Status::InvalidArgument(
        "No such struct field " + Backquote(field) + " in " + base->type->ToString() + ".",
        errc::kFieldNotFound);
  }
  auto e = std::make_shared<exec::Expr>();
  e->kind = ExprKind::kCall;
  e->name = "get_field";
  e->type = base->type->fields()[idx].type;
  e->children = {base};
  e->constant = Value::Int32(idx);
  size_t fi = static_cast<size_t>(idx);
  e->kernel = [fi](std::span<const exec::Arg> args, size_t rows, const exec::EvalContext&,
                   Vector* out) {
    const Vector& s = *args[0].vector;
    if (args[0].constant) {
      for (size_t i = 0; i < rows; ++i) {
        if (s.IsNull(0))
          out->AppendNull();
        else
          out->AppendRange(s.child(fi), 0, 1);
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

Result<ExprPtr> Binder::Impl::Bind(const ParsedExpr& e, ExprScope& s) {
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
        if (e.literal.type()->id() == TypeId::kTimestampNanos) {
          // Nanoseconds: the zone shifts the microseconds; the sub-microsecond digits stay.
          const int64_t n = e.literal.integer(), us = FloorDiv(n, 1000);
          return exec::MakeConstant(Value::Integer(
              e.literal.type(), zone->LocalMicrosToUtc(us) * 1000 + (n - us * 1000)));
        }
        return exec::MakeConstant(
            Value::Integer(DataType::Timestamp(), zone->LocalMicrosToUtc(e.literal.integer())));
      }
      return exec::MakeConstant(e.literal);
    case ExprType::kInterval: {
      // A year-month or day-time interval constant, typed by the literal's fields.
      const std::string& q = e.interval_qualifier;
      if (q.empty()) {
        return Status::NotImplemented(
            "calendar interval values (months with days or time) are supported only in "
            "date/timestamp arithmetic (x ± INTERVAL …)",
            errc::kSiltIntervalUnsupported);
      }
      static const char* const kFields[] = {"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"};
      auto field = [&](std::string_view name) {
        for (int k = 0; k < 6; ++k)
          if (name == kFields[k]) return k;
        return -1;
      };
      size_t to = q.find(" TO ");
      int from = field(std::string_view(q).substr(0, to));
      int end = to == std::string::npos ? from : field(std::string_view(q).substr(to + 4));
      if (from < 0 || end < 0) {
        return Status::Internal("bad interval qualifier " + q);
      }
      if (from < 2) {
        if (e.interval_months > INT32_MAX || e.interval_months < INT32_MIN) {
          return Status::InvalidArgument("Error parsing interval: the interval overflows",
                                         errc::kInvalidIntervalFormat);
        }
        return exec::MakeConstant(
            Value::Integer(DataType::YearMonthInterval(from, end), e.interval_months));
      }
      return exec::MakeConstant(
          Value::Integer(DataType::DayTimeInterval(from - 2, end - 2), e.interval_micros));
    }
    case ExprType::kColumnRef:
      return BindColumnRef(e, s);
    case ExprType::kStar:
      return Status::InvalidArgument("Invalid usage of '*' in expression.",
                                     errc::kInvalidUsageOfStarOrRegex);
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
      if ((e.op == "+" || e.op == "-") && e.children[1]->type == ExprType::kInterval &&
          e.children[1]->interval_qualifier.empty()) {
        return BindIntervalArithmetic(*e.children[0], *e.children[1], e.op == "-", s);
      }
      if (e.op == "+" && e.children[0]->type == ExprType::kInterval &&
          e.children[0]->interval_qualifier.empty()) {
        return BindIntervalArithmetic(*e.children[1], *e.children[0], false, s);
      }
      SILT_ASSIGN_OR_RETURN(ExprPtr a, Bind(*e.children[0], s));
      SILT_ASSIGN_OR_RETURN(ExprPtr b, Bind(*e.children[1], s));
      SILT_ASSIGN_OR_RETURN(ExprPtr call,
                            exec::BindScalarFunction(LowerName(e.op), {a, b}, ctx().bind));
      // Date/timestamp arithmetic on constants (TPC-H's DATE '1994-01-01' + INTERVAL '1' YEAR)
      // is folded like BindIntervalArithmetic's.
      if (a->type->is_interval() || b->type->is_interval()) return FoldConstant(std::move(call));
      return call;
    }
    case ExprType::kIsNull: {
      SILT_ASSIGN_OR_RETURN(ExprPtr c, Bind(*e.children[0], s));
      return exec::MakeSpecial(e.negated ? ExprKind::kIsNotNull : ExprKind::kIsNull,
                               DataType::Boolean(), {c});
    }
    case ExprType::kIsBool: {
      // x IS TRUE  ==  coalesce(x = true, false); IS NOT TRUE is its negation.
      SILT_ASSIGN_OR_RETURN(ExprPtr c, Bind(*e.children[0], s));
      SILT_ASSIGN_OR_RETURN(
          ExprPtr eq,
          exec::BindScalarFunction("<=>", {c, exec::MakeConstant(Value::Boolean(e.bool_value))},
                                   ctx().bind));
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
        SILT_ASSIGN_OR_RETURN(common, exec::CommonType(common, it->type, ctx().bind));
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
        // Spark's NotLikeAll / NotLikeAny negate each match: `x NOT LIKE ALL (p, q)` is
        // `x NOT LIKE p AND x NOT LIKE q`, not `NOT (x LIKE ALL (p, q))`.
        ExprPtr acc;
        bool any = NameEq(e.quantifier, "any") || NameEq(e.quantifier, "some");
        for (size_t i = 1; i < e.children.size(); ++i) {
          SILT_ASSIGN_OR_RETURN(ExprPtr p, Bind(*e.children[i], s));
          SILT_ASSIGN_OR_RETURN(ExprPtr m, exec::BindScalarFunction(fn, {v, p}, ctx().bind));
          if (e.negated) {
            SILT_ASSIGN_OR_RETURN(m, exec::BindScalarFunction("not", {m}, ctx().bind));
          }
          if (!acc) {
            acc = m;
          } else if (any) {
            acc = exec::MakeSpecial(ExprKind::kOr, DataType::Boolean(), {acc, m});
          } else {
            acc = MakeAnd(acc, m);
          }
        }
        if (!acc) {
          // The parser refuses an empty pattern list; an AST built otherwise gets the same error.
          return Status::InvalidArgument(
              "Invalid SQL syntax: Expected "
              "something between '(' and ')'.",
              errc::kInvalidSqlSyntaxEmptyQuantifiedPattern);
        }
        return acc;
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
      if (base->type->id() == TypeId::kStruct && idx->kind == ExprKind::kConstant &&
          !idx->constant.is_null() && idx->constant.type()->id() == TypeId::kString) {
        return FieldAccess(base, idx->constant.str());
      }
      // Spark's a[i] is 0-based for arrays (element_at is 1-based).
      if (base->type->id() == TypeId::kList)
        return exec::BindScalarFunction("__array_item", {base, idx}, ctx().bind);
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
      return Status::InvalidArgument(
          "Invalid lambda function call. A lambda function should only be used in a higher order "
          "function. However, its class is not a higher order function.",
          errc::kInvalidLambdaFunctionCallNonHigherOrderFunction);
    case ExprType::kNamedArgument:
    case ExprType::kPositional:
      break;
  }
  return Status::NotImplemented("expression not supported yet: " + e.ToString(),
                                errc::kSiltUnsupportedExpression);
}

Result<ExprPtr> Binder::Impl::BindColumnRef(const ParsedExpr& e, ExprScope& s) {
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
        if (placeholder == static_cast<int>(cols.size() + s.outer_refs->size()))
          s.outer_refs->push_back({*o, placeholder});
        ExprPtr ref = exec::MakeColumn(placeholder, c.type, c.name, c.nullable);
        for (size_t i = oc; i < e.names.size(); ++i) {
          SILT_ASSIGN_OR_RETURN(ref, FieldAccess(ref, e.names[i]));
        }
        return ref;
      }
    }
    if (s.agg && e.names.size() == 1 && NameEq(e.names[0], "grouping__id") &&
        !s.agg->grouping_sets.empty()) {
      return BindGrouping(e, s, "grouping_id");  // Spark's virtual column: grouping_id()
    }
    if (idx.status().error_class().rfind(errc::kUnresolvedColumn, 0) == 0) {
      // A reference to an enclosing query (SubqueryByOuterValues), innermost first.
      for (auto f = outer_frames.rbegin(); f != outer_frames.rend(); ++f) {
        size_t oc = 0;
        Result<int> o = ResolveColumn(e.names, *f->columns, &oc);
        if (!o.ok()) continue;
        const OutputColumn& c = (*f->columns)[static_cast<size_t>(*o)];
        if (static_cast<size_t>(outer_frames.rend() - f) <= outer_ref_refusal.frames) {
          return Status::InvalidArgument(std::string("Unsupported subquery expression: ") +
                                             outer_ref_refusal.message + Backquote(c.name) + ".",
                                         outer_ref_refusal.error_class);
        }
        ExprPtr ref;
        if (f->collected) {
          f->collected->insert(*o);
          ref = exec::MakeConstant(Value::Null(c.type));
        } else {
          SILT_ASSIGN_OR_RETURN(
              ref, exec::CoerceTo(exec::MakeConstant((*f->values)[*o]), c.type, ctx().bind));
        }
        for (size_t i = oc; i < e.names.size(); ++i) {
          SILT_ASSIGN_OR_RETURN(ref, FieldAccess(ref, e.names[i]));
        }
        return ref;
      }
    }
    if (lateral && lateral->columns == &cols && e.names.size() == 1 &&
        idx.status().error_class().rfind(errc::kUnresolvedColumn, 0) == 0) {
      const auto& aliases = lateral->aliases;
      for (size_t k = aliases.size(); k-- > 0;) {
        if (!NameEq(aliases[k].first, e.names[0])) continue;
        // (an alias's item may itself name the aliases before it)
        LateralAliases before{lateral->columns, {aliases.begin(), aliases.begin() + k}};
        LateralAliases* const saved = std::exchange(lateral, &before);
        Result<ExprPtr> bound = Bind(*aliases[k].second, s);
        lateral = saved;
        return bound;
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
      const ExprPtr& g = GroupKeySource(s.agg->group_exprs[i]);
      if (g->kind == ExprKind::kColumn && g->column == *idx) group = static_cast<int>(i);
    }
    if (group < 0 && s.agg->group_exprs.empty() && s.agg->grouping_sets.size() <= 1) {
      // A global aggregate (no GROUP BY columns).
      return Status::InvalidArgument(
          "The query does not include a GROUP BY clause. Add GROUP BY or turn it into the window "
          "functions using OVER clauses.",
          errc::kMissingGroupBy);
    }
    if (group < 0) {
      return Status::InvalidArgument(
          "The non-aggregating expression " + Backquote(c.name) +
              " is based on columns which are not participating in the GROUP BY clause. "
              "Add the columns or the expression to the GROUP BY, aggregate the expression, "
              "or use `any_value(" +
              c.name + ")` if you do not care which of the values within a group is returned.",
          errc::kMissingAggregation);
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
// A constant operand (TPC-H's DATE '1994-01-01' + INTERVAL '1' YEAR) is folded into a literal:
// the filter then compares with a constant instead of calling add_months on every row, and
// pruning and estimates see the value. An evaluation error (an overflow) is left to the rows.
Result<ExprPtr> Binder::Impl::BindIntervalArithmetic(const ParsedExpr& x,
                                                     const ParsedExpr& interval, bool subtract,
                                                     ExprScope& s) {
  SILT_ASSIGN_OR_RETURN(ExprPtr e, BindIntervalCall(x, interval, subtract, s));
  return FoldConstant(std::move(e));
}

ExprPtr Binder::Impl::FoldConstant(ExprPtr e) {
  if (e->kind != exec::ExprKind::kCall || !exec::IsConstantExpr(*e)) return e;
  Result<Value> v = exec::EvaluateConstant(*e, ctx().eval);
  if (!v.ok() || !v->type()->Equals(*e->type)) return e;
  return exec::MakeConstant(std::move(*v));
}

Result<ExprPtr> Binder::Impl::BindIntervalCall(const ParsedExpr& x, const ParsedExpr& interval,
                                               bool subtract, ExprScope& s) {
  SILT_ASSIGN_OR_RETURN(ExprPtr v, Bind(x, s));
  int64_t months = subtract ? -interval.interval_months : interval.interval_months;
  int64_t micros = subtract ? -interval.interval_micros : interval.interval_micros;
  const auto lit64 = [](int64_t n) { return exec::MakeConstant(Value::Int64(n)); };
  TypeId id = v->type->id();
  if (id == TypeId::kDate) {
    const auto lit32 = [](int64_t n) {
      return exec::MakeConstant(Value::Int32(static_cast<int32_t>(n)));
    };
    if (micros == 0) return exec::BindScalarFunction("add_months", {v, lit32(months)}, ctx().bind);
    if (months == 0 && micros % exec::cal::kMicrosPerDay == 0) {
      return exec::BindScalarFunction("date_add", {v, lit32(micros / exec::cal::kMicrosPerDay)},
                                      ctx().bind);
    }
  }
  if (id == TypeId::kDate || id == TypeId::kString) {
    SILT_ASSIGN_OR_RETURN(v, exec::CoerceTo(v, DataType::Timestamp(), ctx().bind));
  } else if (id != TypeId::kTimestamp && id != TypeId::kTimestampNtz) {
    return Status::InvalidArgument(
        "Cannot resolve \"" + x.ToString() + " " + (subtract ? "-" : "+") + " " +
            interval.ToString() + "\" due to data type mismatch: " +
            "an interval can only be added to a DATE or TIMESTAMP, not " + v->type->ToString() +
            ".",
        errc::kDatatypeMismatchBinaryOpDiffTypes);
  }
  return exec::BindScalarFunction("__timestamp_add_interval", {v, lit64(months), lit64(micros)},
                                  ctx().bind);
}

Result<ExprPtr> Binder::Impl::BindCase(const ParsedExpr& e, ExprScope& s) {
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
    SILT_ASSIGN_OR_RETURN(type, exec::CommonType(type, v->type, ctx().bind));
  }
  if (otherwise) {
    SILT_ASSIGN_OR_RETURN(type, exec::CommonType(type, otherwise->type, ctx().bind));
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

}  // namespace silt::planner
