// Binding function calls: scalar and aggregate calls, higher-order lambdas, grouping(), window
// calls.
#include "common/error_classes.h"
#include "exec/cast.h"
#include "planner/binder_impl.h"
#include "vector/type_sql.h"

namespace silt::planner {

// transform(arr, x -> …) & co. (exec/lambda.h). Each lambda's parameters are placeholder
// columns at a base per nesting level; the body's other columns are captured: they become extra
// arguments of the call and are renumbered after the parameters.
Result<ExprPtr> Binder::Impl::BindHigherOrder(const ParsedExpr& e, ExprScope& s,
                                              const std::string& name) {
  std::vector<ExprPtr> args;
  std::vector<const ParsedExpr*> lambdas;  // a lambda, or an expression in a lambda's place
  const size_t own = exec::HigherOrderArgs(name);
  for (const auto& c : e.children) {
    if (c->type == ExprType::kLambda || args.size() >= own) {
      lambdas.push_back(c.get());
      continue;
    }
    if (!lambdas.empty()) {
      return Status::InvalidArgument(
          "Invalid lambda function call: the lambda function must "
          "be the last argument of " +
              Backquote(name) + ".",
          errc::kInvalidLambdaFunctionCall);
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
    const bool implicit = lam.type != ExprType::kLambda;
    SILT_ASSIGN_OR_RETURN(
        std::vector<TypePtr> types,
        exec::LambdaParamTypes(name, args, k,
                               implicit ? exec::kImplicitLambda : lam.lambda_params.size(), bound));
    ExprScope ls = s;
    for (size_t p = 0; p < types.size(); ++p) {
      ls.lambda_vars.push_back(
          {lam.lambda_params[p],
           exec::MakeColumn(base + static_cast<int>(p), types[p], lam.lambda_params[p])});
    }
    SILT_ASSIGN_OR_RETURN(ExprPtr body, Bind(implicit ? lam : *lam.children[0], ls));
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
      return params +
             static_cast<int>(std::find(captured.begin(), captured.end(), c) - captured.begin());
    });
  }
  return exec::BindHigherOrderFunction(name, std::move(args), std::move(bound),
                                       std::move(captured_refs), ctx().bind);
}

// percentile_cont / percentile_disc (p) WITHIN GROUP (ORDER BY v [DESC]): the aggregate's
// arguments (v, p, descending); Spark's INVALID_WITHIN_GROUP_EXPRESSION errors for other forms.
static bool IsOrderedSetAggregate(const std::string& name) {
  return name == "percentile_cont" || name == "percentile_disc";
}
static Result<std::vector<ExprPtr>> WithinGroupArgs(
    const ParsedExpr& e, const std::string& name,
    const std::function<Result<ExprPtr>(const ParsedExpr&)>& bind) {
  const std::string fn = Backquote(name);
  if (e.within_group.empty()) {
    return Status::InvalidArgument("Invalid function " + fn +
                                       " with WITHIN GROUP. The function is invoked with DISTINCT "
                                       "and WITHIN GROUP but expressions ... WITHIN GROUP is "
                                       "required for the inverse distribution function " +
                                       fn + ".",
                                   errc::kInvalidWithinGroupExpressionWithinGroupMissing);
  }
  if (e.distinct) {
    return Status::InvalidArgument("Invalid function " + fn +
                                       " with WITHIN GROUP. The function does not support DISTINCT "
                                       "with WITHIN GROUP.",
                                   errc::kInvalidWithinGroupExpressionDistinctUnsupported);
  }
  if (e.within_group.size() != 1) {
    return Status::InvalidArgument("Invalid function " + fn +
                                       " with WITHIN GROUP. The function requires 1 orderings in "
                                       "WITHIN GROUP but got " +
                                       std::to_string(e.within_group.size()) + ".",
                                   errc::kInvalidWithinGroupExpressionWrongNumOrderings);
  }
  if (e.children.size() != 1) {
    return Status::InvalidArgument("The " + fn +
                                       " requires 1 parameters but the actual number is " +
                                       std::to_string(e.children.size()) + ".",
                                   errc::kWrongNumArgsWithoutSuggestion);
  }
  std::vector<ExprPtr> args;
  SILT_ASSIGN_OR_RETURN(ExprPtr v, bind(*e.within_group[0].expr));
  SILT_ASSIGN_OR_RETURN(ExprPtr p, bind(*e.children[0]));
  args.push_back(v);
  args.push_back(p);
  args.push_back(exec::MakeConstant(Value::Boolean(!e.within_group[0].ascending)));
  return args;
}

// Spark's cast aliases (FunctionRegistry.castAlias): float(x) is CAST(x AS FLOAT), and so on for
// the type names below; nullptr for any other name.
static TypePtr CastAliasType(const std::string& name) {
  static const std::map<std::string, TypePtr (*)()> kAliases = {
      {"boolean", &DataType::Boolean},    {"tinyint", &DataType::Int8},
      {"smallint", &DataType::Int16},     {"int", &DataType::Int32},
      {"bigint", &DataType::Int64},       {"float", &DataType::Float},
      {"double", &DataType::Double},      {"string", &DataType::String},
      {"binary", &DataType::Binary},      {"date", &DataType::Date},
      {"timestamp", &DataType::Timestamp}};
  if (name == "decimal") return DataType::Decimal(10, 0);  // Spark's DecimalType.USER_DEFAULT
  auto f = kAliases.find(name);
  return f == kAliases.end() ? nullptr : f->second();
}

Result<ExprPtr> Binder::Impl::BindFunction(const ParsedExpr& e, ExprScope& s) {
  std::string name = LowerName(e.names.empty() ? "" : e.names.back());
  if (e.names.size() == 1 && !e.over && !e.distinct && !e.star_arg) {
    if (TypePtr to = CastAliasType(name)) {
      if (e.children.size() != 1) {
        return Status::InvalidArgument("Function " + name + " accepts only one argument",
                                       errc::kWrongNumArgsWithoutSuggestion);
      }
      SILT_ASSIGN_OR_RETURN(ExprPtr arg, Bind(*e.children[0], s));
      return exec::BindCast(arg, to, /*try_cast=*/false, ctx().bind);
    }
  }
  if (name == "struct" && e.names.size() == 1 && !e.over &&
      std::any_of(e.children.begin(), e.children.end(), [](const auto& c) {
        return c->type == ExprType::kNamedArgument && c->op == "as";
      })) {
    // struct(a AS x, b): named_struct with the aliases, the other fields named as struct names
    // them (a column's name, else colN).
    std::vector<ExprPtr> args;
    for (size_t i = 0; i < e.children.size(); ++i) {
      const ParsedExpr& c = *e.children[i];
      const bool aliased = c.type == ExprType::kNamedArgument && c.op == "as";
      SILT_ASSIGN_OR_RETURN(ExprPtr v, Bind(aliased ? *c.children[0] : c, s));
      std::string field = aliased ? c.field
                          : v->kind == ExprKind::kColumn && !v->name.empty()
                              ? v->name
                              : "col" + std::to_string(i + 1);
      args.push_back(exec::MakeConstant(Value::String(field)));
      args.push_back(std::move(v));
    }
    return exec::BindScalarFunction("named_struct", std::move(args), ctx().bind);
  }
  if (!e.within_group.empty() && !IsOrderedSetAggregate(name)) {
    return Status::InvalidArgument(
        "Invalid SQL syntax: The function " + Backquote(name) + " does not support WITHIN GROUP.",
        errc::kInvalidSqlSyntaxFunctionWithUnsupportedSyntax);
  }
  if (exec::IsHigherOrderFunction(name) &&
      (e.children.size() > exec::HigherOrderArgs(name) ||
       std::any_of(e.children.begin(), e.children.end(),
                   [](const auto& c) { return c->type == ExprType::kLambda; }))) {
    return BindHigherOrder(e, s, name);
  }
  if (exec::FindGenerator(name)) {
    // Top-level SELECT items and LATERAL VIEW bind generators themselves (BindSelect).
    return Status::InvalidArgument(
        "The generator is not supported: nested in "
        "expressions \"" +
            e.ToString() + "\".",
        errc::kUnsupportedGeneratorNestedInExpressions);
  }
  if (e.over) return BindWindowCall(e, s, name);
  if (name == "__pivot_agg" && e.children.size() == 2) {
    if (!ContainsAggregate(*e.children[0])) {
      return Status::InvalidArgument("Aggregate expression required for pivot, but '" +
                                         e.children[0]->ToString() +
                                         "' did not appear in any aggregate function.",
                                     errc::kLegacyErrorTemp1006);
    }
    const ParsedExpr* saved = std::exchange(pivot_filter, e.children[1].get());
    Result<ExprPtr> bound = Bind(*e.children[0], s);
    pivot_filter = saved;
    return bound;
  }
  if (name == "grouping" || name == "grouping_id") return BindGrouping(e, s, name);
  if (exec::IsAggregateFunction(name)) {
    if (!s.agg) {
      if (const OuterFrame* f = s.columns ? OuterAggregateFrame(e, *s.columns) : nullptr)
        return BindOuterAggregate(e, *f);
      // (a column of no scope: UNRESOLVED_COLUMN, which lets a subquery try its outer frames)
      for (const auto& a : e.children) {
        if (a->type != ExprType::kStar && a->type != ExprType::kLambda)
          SILT_RETURN_NOT_OK(Bind(*a, s).status());
      }
      return Status::InvalidArgument("Aggregate function " + e.ToString() + " is not allowed here.",
                                     errc::kUnsupportedExprForOperator);
    }
    std::string text = e.ToString();
    if (pivot_filter) text += " PIVOT FILTER " + pivot_filter->ToString();
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
    if (IsOrderedSetAggregate(name)) {
      for (const auto& o : e.within_group) {
        if (ContainsAggregate(*o.expr)) {
          return Status::InvalidArgument(
              "It is not allowed to use an aggregate function "
              "in the argument of another aggregate function.",
              errc::kNestedAggregateFunction);
        }
      }
      SILT_ASSIGN_OR_RETURN(
          args, WithinGroupArgs(e, name, [&](const ParsedExpr& x) { return Bind(x, in); }));
    } else if (name == "count" && !e.star_arg && e.children.empty() &&
               !(ctx().config &&
                 ctx().config->GetBool("spark.sql.legacy.allowParameterlessCount", false))) {
      return Status::InvalidArgument(
          "The `count` requires >= 1 parameters but the actual number is 0. Please, if you need "
          "to call this function with 0 parameters, set the legacy configuration "
          "\"spark.sql.legacy.allowParameterlessCount\" to \"true\".",
          errc::kWrongNumArgsWithSuggestion);
    } else if (e.star_arg && e.distinct && name == "count") {
      // count(DISTINCT *): every column of the input (Spark expands the star).
      for (size_t i = 0; i < in.columns->size(); ++i) {
        const OutputColumn& c = (*in.columns)[i];
        if (c.hidden) continue;
        args.push_back(exec::MakeColumn(static_cast<int>(i), c.type, c.name, c.nullable));
      }
    } else if (!e.star_arg) {
      for (const auto& a : e.children) {
        if (a->type == ExprType::kStar && a->except_columns.empty()) {
          // t.* / * as arguments (count(t.*)): the columns it stands for, as Spark expands them.
          bool any = false;
          for (size_t i = 0; i < in.columns->size(); ++i) {
            const OutputColumn& c = (*in.columns)[i];
            if (a->names.empty() ? c.hidden : !NameEq(c.qualifier, a->names.back())) continue;
            args.push_back(exec::MakeColumn(static_cast<int>(i), c.type, c.name, c.nullable));
            any = true;
          }
          if (!any && !a->names.empty()) {
            return Status::InvalidArgument(
                "Cannot resolve " + Backquote(a->names.back()) + ".* given input columns.",
                errc::kCannotResolveStarExpand);
          }
          // Spark refuses count(t.*) alone: it counts rows with a non-null column, unlike
          // count(*) (count(t1.*, t2.*) is allowed).
          if (name == "count" && e.children.size() == 1 && !a->names.empty() &&
              !(ctx().config &&
                ctx().config->GetBool("spark.sql.legacy.allowStarWithSingleTableIdentifierInCount",
                                      false))) {
            return Status::InvalidArgument(
                "count(" + Backquote(a->names.back()) +
                    ".*) is not allowed. Please use count(*) or expand the columns manually, e.g. "
                    "count(col1, col2).",
                errc::kInvalidUsageOfStarWithTableIdentifierInCount);
          }
          continue;
        }
        if (ContainsAggregate(*a)) {
          return Status::InvalidArgument(
              "It is not allowed to use an aggregate function "
              "in the argument of another aggregate function.",
              errc::kNestedAggregateFunction);
        }
        SILT_ASSIGN_OR_RETURN(ExprPtr b, Bind(*a, in));
        args.push_back(b);
      }
    }
    if (e.ignore_nulls && args.size() == 1 &&
        (name == "first" || name == "first_value" || name == "last" || name == "last_value" ||
         name == "any_value")) {
      args.push_back(exec::MakeConstant(Value::Boolean(true)));  // first(x) IGNORE NULLS
    }
    AggregateCall call;
    call.name = text;
    call.function = name;
    call.distinct = e.distinct;
    SILT_ASSIGN_OR_RETURN(
        call.bound, exec::BindAggregateFunction(name, std::move(args), e.distinct, ctx().bind));
    for (const ParsedExpr* filter :
         {static_cast<const ParsedExpr*>(e.filter.get()), pivot_filter}) {
      if (!filter) continue;
      SILT_ASSIGN_OR_RETURN(ExprPtr f, Bind(*filter, in));
      SILT_ASSIGN_OR_RETURN(f, exec::CoerceTo(f, DataType::Boolean(), ctx().bind));
      call.filter = MakeAnd(call.filter, f);
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
    return Status::InvalidArgument("Invalid usage of '*' in " + name + ".",
                                   errc::kInvalidUsageOfStarOrRegex);
  }
  if ((name == "to_char" || name == "to_varchar") && args.size() == 2) {
    // Spark's ToCharacter: a datetime with a datetime pattern is date_format (in the session
    // time zone); numbers and binaries take number / encoding formats silt does not have.
    TypeId t = args[0]->type->id();
    if (t == TypeId::kDate || t == TypeId::kTimestamp || t == TypeId::kTimestampNtz ||
        t == TypeId::kTime || t == TypeId::kTimestampNanos || t == TypeId::kTimestampNtzNanos) {
      return exec::BindScalarFunction("date_format", std::move(args), ctx().bind);
    }
    return Status::NotImplemented(name + " of a " + args[0]->type->ToString() +
                                      " value (number and binary formats) is not implemented",
                                  errc::kNotImplemented);
  }
  return exec::BindScalarFunction(name, std::move(args), ctx().bind);
}

// grouping(col): 1 when col is aggregated away in the row's grouping set (TINYINT);
// grouping_id([cols]): those bits of the listed keys (all keys by default), the first one
// highest (BIGINT) — both read from the aggregate's spark_grouping_id column.
Result<ExprPtr> Binder::Impl::BindGrouping(const ParsedExpr& e, ExprScope& s,
                                           const std::string& name) {
  if (!s.agg || s.agg->grouping_sets.empty()) {
    return Status::InvalidArgument(
        "grouping()/grouping_id() can only be used with "
        "GroupingSets/Cube/Rollup.",
        errc::kUnsupportedGroupingExpression);
  }
  if (name == "grouping" && e.children.size() != 1) {
    return Status::InvalidArgument(
        "The `grouping` requires 1 parameters but the "
        "actual number is " +
            std::to_string(e.children.size()) + ".",
        errc::kWrongNumArgsWithoutSuggestion);
  }
  const size_t nk = s.agg->group_exprs.size();
  ExprPtr gid =
      exec::MakeColumn(static_cast<int>(nk), DataType::Int64(), "spark_grouping_id", false);
  if (s.agg->has_grouping_id() && nk < 48) {
    // A repeated grouping set has bits above the keys' (HashAggregateOperator): not part of the
    // id.
    SILT_ASSIGN_OR_RETURN(
        gid, exec::BindScalarFunction(
                 "&", {gid, exec::MakeConstant(Value::Int64((int64_t{1} << nk) - 1))}, ctx().bind));
  } else if (!s.agg->has_grouping_id()) {
    // One grouping set (GROUP BY GROUPING SETS ((a))): the aggregate has no id column; the id
    // is the set's, a 1 bit for each key outside it.
    int64_t id = 0;
    const std::vector<int>& set = s.agg->grouping_sets[0];
    for (size_t k = 0; k < nk; ++k) {
      if (std::find(set.begin(), set.end(), static_cast<int>(k)) == set.end())
        id |= int64_t{1} << (nk - 1 - k);
    }
    gid = exec::MakeConstant(Value::Int64(id));
  }
  std::vector<size_t> keys;  // indices of the listed keys
  for (const auto& a : e.children) {
    size_t k = 0;
    while (k < nk && s.agg->group_texts[k] != a->ToString()) ++k;
    if (k == nk) {
      if (name == "grouping_id") break;  // GROUPING_ID_COLUMN_MISMATCH below
      return Status::InvalidArgument(
          "Column of grouping (" + a->ToString() + ") can't be found in the grouping columns.",
          errc::kGroupingColumnMismatch);
    }
    keys.push_back(k);
  }
  // Spark: grouping_id(cols) must list exactly the GROUP BY columns, in order.
  if (name == "grouping_id" && !e.children.empty()) {
    bool same = keys.size() == nk && e.children.size() == nk;
    for (size_t k = 0; same && k < nk; ++k) same = keys[k] == k;
    if (!same) {
      std::string group_by, listed;
      for (size_t k = 0; k < nk; ++k) group_by += (k ? "," : "") + s.agg->group_texts[k];
      for (size_t k = 0; k < e.children.size(); ++k)
        listed += (k ? "," : "") + e.children[k]->ToString();
      return Status::InvalidArgument("Columns of grouping_id (" + listed +
                                         ") does not match grouping columns (" + group_by + ").",
                                     errc::kGroupingIdColumnMismatch);
    }
  }
  if (name == "grouping_id" && keys.empty()) return gid;
  auto bit = [&](size_t k) -> Result<ExprPtr> {
    ExprPtr shift = exec::MakeConstant(Value::Int32(static_cast<int32_t>(nk - 1 - k)));
    SILT_ASSIGN_OR_RETURN(ExprPtr shifted,
                          exec::BindScalarFunction("shiftright", {gid, shift}, ctx().bind));
    return exec::BindScalarFunction("&", {shifted, exec::MakeConstant(Value::Int64(1))},
                                    ctx().bind);
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

namespace {

// A frame bound Spark's parser accepts: literals (intervals too) and arithmetic over them.
bool IsFrameBoundLiteral(const ParsedExpr& e) {
  switch (e.type) {
    case ExprType::kLiteral:
    case ExprType::kInterval:
      return true;
    case ExprType::kUnary:
    case ExprType::kBinary:
      for (const auto& c : e.children) {
        if (!c || !IsFrameBoundLiteral(*c)) return false;
      }
      return true;
    default:
      return false;
  }
}

// Spark's checks of a specified frame (SpecifiedWindowFrame and WindowSpecDefinition's
// checkInputDataTypes, in that order) over the window's ORDER BY key types.
Status CheckWindowFrame(const exec::WindowFrame& f, const std::vector<TypePtr>& order) {
  using K = exec::WindowBoundKind;
  auto mismatch = [](const std::string& sub, const std::string& msg) {
    return Status::InvalidArgument(
        "Cannot resolve the window frame due to data type mismatch: " + msg,
        "DATATYPE_MISMATCH." + sub);
  };
  const bool rows = f.type == exec::WindowFrameType::kRows;
  if (f.start.kind == K::kUnboundedFollowing || f.end.kind == K::kUnboundedPreceding) {
    return mismatch("SPECIFIED_WINDOW_FRAME_INVALID_BOUND",
                    "Window frame upper bound does not follow the lower bound.");
  }
  auto valued = [](const exec::WindowBound& b) {
    return b.kind == K::kPreceding || b.kind == K::kFollowing;
  };
  if (valued(f.start) && valued(f.end)) {
    const TypePtr& lt = f.start.offset.type();
    const TypePtr& ut = f.end.offset.type();
    if (lt->id() == ut->id() && exec::IsIntegral(lt->id()) && !f.start.offset.is_null() &&
        !f.end.offset.is_null()) {
      // PRECEDING is a negative offset in Spark's frame.
      const int64_t lo = f.start.offset.integer() * (f.start.kind == K::kPreceding ? -1 : 1);
      const int64_t hi = f.end.offset.integer() * (f.end.kind == K::kPreceding ? -1 : 1);
      if (lo > hi) {
        return mismatch("SPECIFIED_WINDOW_FRAME_WRONG_COMPARISON",
                        "The lower bound of a window frame must be less than or equal to the "
                        "upper bound.");
      }
    }
  }
  for (const exec::WindowBound* b : {&f.start, &f.end}) {
    if (!valued(*b)) continue;
    const TypePtr& t = b->offset.type();
    const bool accepted =
        rows ? t->id() == TypeId::kInt32 : exec::IsNumeric(t->id()) || t->is_interval();
    if (!accepted) {
      return mismatch("SPECIFIED_WINDOW_FRAME_UNACCEPTED_TYPE",
                      "The data type of the " + std::string(b == &f.start ? "lower" : "upper") +
                          " bound \"" + TypeSql(t) + "\" does not match the expected data type \"" +
                          (rows ? "INT" : "(NUMERIC or INTERVAL)") + "\".");
    }
  }
  if (rows) return Status::OK();
  const bool unbounded =
      f.start.kind == K::kUnboundedPreceding && f.end.kind == K::kUnboundedFollowing;
  if (!unbounded && order.empty()) {
    return mismatch("RANGE_FRAME_WITHOUT_ORDER",
                    "A range window frame cannot be used in an unordered window specification.");
  }
  const exec::WindowBound* value = valued(f.start) ? &f.start : valued(f.end) ? &f.end : nullptr;
  if (!value) return Status::OK();
  if (order.size() > 1) {
    return mismatch("RANGE_FRAME_MULTI_ORDER",
                    "A range window frame with value boundaries cannot be used in a window "
                    "specification with multiple order by expressions.");
  }
  // Spark casts a numeric bound to a numeric key's type; dates take days (an INT or an
  // INTERVAL DAY) or year-month intervals, timestamps any interval; anything else must be the
  // key's own type.
  const DataType& bt = *value->offset.type();
  const TypeId key = order[0]->id(), bound = bt.id();
  const bool timestamp = key == TypeId::kTimestamp || key == TypeId::kTimestampNtz;
  const bool days = bound == TypeId::kInt32 ||
                    (bound == TypeId::kDayTimeInterval && bt.interval_start() == kIntervalDay &&
                     bt.interval_end() == kIntervalDay);
  const bool valid = (exec::IsNumeric(key) && exec::IsNumeric(bound)) ||
                     (key == TypeId::kDate && (days || bound == TypeId::kYearMonthInterval)) ||
                     (timestamp && bt.is_interval()) || key == bound;
  if (!valid) {
    return mismatch("RANGE_FRAME_INVALID_TYPE",
                    "The data type \"" + TypeSql(order[0]) +
                        "\" used in the order specification does not support the data type \"" +
                        TypeSql(value->offset.type()) + "\" which is used in the range frame.");
  }
  return Status::OK();
}

}  // namespace

Result<ExprPtr> Binder::Impl::BindWindowCall(const ParsedExpr& e, ExprScope& s,
                                             const std::string& name) {
  if (!s.window) {
    return Status::InvalidArgument(
        "Window function " + e.ToString() + " is only allowed in the SELECT list and ORDER BY.",
        errc::kUnsupportedExprForOperator);
  }
  std::string text = e.ToString();
  for (size_t i = 0; i < s.window->texts.size(); ++i) {
    if (s.window->texts[i] == text) {
      return exec::MakeColumn(static_cast<int>(s.window->base_width + i), s.window->calls[i].type,
                              text);
    }
  }
  ExprScope inner = s;
  inner.window = nullptr;
  WindowCall call;
  call.name = text;
  std::vector<ExprPtr> args;
  if (IsOrderedSetAggregate(name)) {
    SILT_ASSIGN_OR_RETURN(
        args, WithinGroupArgs(e, name, [&](const ParsedExpr& x) { return Bind(x, inner); }));
  } else {
    for (const auto& a : e.children) {
      SILT_ASSIGN_OR_RETURN(ExprPtr b, Bind(*a, inner));
      args.push_back(b);
    }
  }
  if (e.filter) {
    // agg(x) FILTER (WHERE f) OVER …: agg(CASE WHEN f THEN x END), exact for an aggregate that
    // skips NULLs (first/last/any_value only with IGNORE NULLS); count(*) counts the rows kept.
    static const std::set<std::string> kKeepsNulls = {"first",      "first_value", "last",
                                                      "last_value", "any_value",   "nth_value"};
    if (!exec::IsAggregateFunction(name) || (kKeepsNulls.count(name) && !e.ignore_nulls)) {
      return Status::NotImplemented("FILTER on the window function " + name +
                                        " is not supported (only on aggregates that "
                                        "skip NULLs, or with IGNORE NULLS)",
                                    errc::kSiltUnsupportedExpression);
    }
    SILT_ASSIGN_OR_RETURN(ExprPtr f, Bind(*e.filter, inner));
    SILT_ASSIGN_OR_RETURN(f, exec::CoerceTo(f, DataType::Boolean(), ctx().bind));
    if (args.empty()) args.push_back(exec::MakeConstant(Value::Int32(1)));  // count(*)
    for (ExprPtr& a : args) {
      a = exec::MakeSpecial(ExprKind::kCase, a->type,
                            {f, a, exec::MakeConstant(Value::Null(a->type))}, true);
    }
  }
  // OVER w / OVER (w): the SELECT block's WINDOW w AS (…), the reference's own parts first.
  const sql::WindowSpec* spec = e.over.get();
  const sql::WindowSpec* def = spec;
  if (!spec->name.empty()) {
    def = nullptr;
    if (s.window->named) {
      for (const auto& [n, d] : *s.window->named) {
        if (NameEq(n, spec->name)) def = &d;
      }
    }
    if (!def) {
      return Status::InvalidArgument(
          "Window specification " + spec->name + " is not defined in the WINDOW clause.",
          errc::kMissingWindowSpecification);
    }
  }
  struct {
    const std::vector<sql::ExprNode>& partition_by;
    const std::vector<sql::OrderItem>& order_by;
    const std::optional<sql::WindowFrame>& frame;
  } w{spec->partition_by.empty() ? def->partition_by : spec->partition_by,
      spec->order_by.empty() ? def->order_by : spec->order_by,
      spec->frame ? spec->frame : def->frame};
  if (IsOrderedSetAggregate(name) || name == "median") {
    if (!w.order_by.empty() || w.frame) {
      return Status::InvalidArgument(
          "Cannot specify ORDER BY or a window frame for " + Backquote(name) + ".",
          errc::kInvalidWindowSpecForAggregationFunc);
    }
  }
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
  // Spark: the ranking and offset window functions need an ordered window.
  if (w.order_by.empty() &&
      (name == "row_number" || name == "rank" || name == "dense_rank" || name == "percent_rank" ||
       name == "cume_dist" || name == "ntile" || name == "lag" || name == "lead")) {
    return Status::InvalidArgument("Window function " + Backquote(name) +
                                       " requires window to be ordered, please add ORDER BY "
                                       "clause. For example SELECT " +
                                       name +
                                       "(value_expr) OVER (PARTITION BY window_partition "
                                       "ORDER BY window_ordering) from table.",
                                   errc::kWindowFunctionFrameNotOrdered);
  }
  std::optional<exec::WindowFrame> frame;
  if (w.frame) {
    exec::WindowFrame f;
    f.type = w.frame->unit == sql::WindowFrame::Unit::kRows ? exec::WindowFrameType::kRows
                                                            : exec::WindowFrameType::kRange;
    auto bound = [&](sql::WindowFrame::BoundType t,
                     const sql::ExprNode& off) -> Result<exec::WindowBound> {
      using BT = sql::WindowFrame::BoundType;
      exec::WindowBound b;
      switch (t) {
        case BT::kUnboundedPreceding:
          b.kind = exec::WindowBoundKind::kUnboundedPreceding;
          return b;
        case BT::kUnboundedFollowing:
          b.kind = exec::WindowBoundKind::kUnboundedFollowing;
          return b;
        case BT::kCurrentRow:
          b.kind = exec::WindowBoundKind::kCurrentRow;
          return b;
        case BT::kPreceding:
          b.kind = exec::WindowBoundKind::kPreceding;
          break;
        case BT::kFollowing:
          b.kind = exec::WindowBoundKind::kFollowing;
          break;
      }
      if (!IsFrameBoundLiteral(*off)) {
        // Spark's parser: a frame bound is a literal (current_date or a column is refused).
        return Status::InvalidArgument("Frame bound value must be a literal.",
                                       errc::kInvalidSqlSyntaxInvalidWindowFrameBound);
      }
      std::vector<OutputColumn> none;
      SILT_ASSIGN_OR_RETURN(ExprPtr oe, self->BindExpression(*off, none));
      SILT_ASSIGN_OR_RETURN(b.offset, exec::EvaluateConstant(*oe, ctx().eval));
      return b;
    };
    SILT_ASSIGN_OR_RETURN(f.start, bound(w.frame->start, w.frame->start_offset));
    SILT_ASSIGN_OR_RETURN(f.end, bound(w.frame->end, w.frame->end_offset));
    std::vector<TypePtr> order_types;
    for (const SortSpec& k : call.order_by) order_types.push_back(k.expr->type);
    SILT_RETURN_NOT_OK(CheckWindowFrame(f, order_types));
    frame = f;
  }
  // first/last (and any_value, Spark's First) read the frame in its order: the window functions,
  // not the aggregates (whose sliding frames do not keep the order).
  const bool first_last = name == "first" || name == "first_value" || name == "last" ||
                          name == "last_value" || name == "any_value";
  if (exec::IsAggregateFunction(name) && !first_last) {
    if (e.ignore_nulls && args.size() == 1 &&
        (name == "first" || name == "first_value" || name == "last" || name == "last_value" ||
         name == "any_value")) {
      args.push_back(exec::MakeConstant(Value::Boolean(true)));  // first(x, ignoreNulls)
    }
    SILT_ASSIGN_OR_RETURN(exec::BoundAggregate agg,
                          exec::BindAggregateFunction(name, args, e.distinct, ctx().bind));
    call.fn = exec::MakeAggregateWindowFunction(name, std::move(agg), frame);
  } else {
    SILT_ASSIGN_OR_RETURN(
        call.fn,
        exec::BindWindowFunction(name == "any_value" ? "first_value" : name, args, e.ignore_nulls));
    if (frame) call.fn.frame = frame;
  }
  call.type = call.fn.result_type;
  TypePtr type = call.type;
  s.window->calls.push_back(std::move(call));
  s.window->texts.push_back(text);
  return exec::MakeColumn(static_cast<int>(s.window->base_width + s.window->calls.size() - 1), type,
                          text);
}

}  // namespace silt::planner
