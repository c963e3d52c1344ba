// Binding table-valued functions in FROM: range() and table_changes / table_changes_by_path.
#include "common/error_classes.h"
#include "planner/binder_impl.h"
#include "planner/memory_relations.h"

namespace silt::planner {

// table_changes('table', start [, end]) and table_changes_by_path('/path', start [, end]): the
// change data feed (delta/change_data_feed.h); bounds are versions (integers) or timestamps
// (TIMESTAMP values or timestamp strings).
Result<PlanPtr> Binder::Impl::BindTableChanges(const sql::TableRef& ref,
                                               const std::vector<Value>& args, bool by_path) {
  const char* fn = by_path ? "table_changes_by_path" : "table_changes";
  if (args.size() < 2 || args.size() > 3) {
    return Status::InvalidArgument(std::string() + fn + "() takes 2 or 3 arguments",
                                   errc::kWrongNumArgs);
  }
  if (args[0].is_null() || args[0].type()->id() != TypeId::kString) {
    return Status::InvalidArgument(std::string(fn) + ": the first argument must be a table " +
                                       (by_path ? "path" : "name") + " string",
                                   errc::kInvalidParameterValue);
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
    return Status::InvalidArgument("table_changes: " + text + " is not a Delta table",
                                   errc::kDeltaTableNotFound);
  }
  auto bound = [&](const Value& v, bool is_start) -> Result<std::optional<int64_t>> {
    if (v.is_null()) {
      return Status::InvalidArgument(
          "CDC read start/end parameters cannot be null. "
          "Please provide a valid version or timestamp.",
          errc::kDeltaCdcReadNullRangeBoundary);
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
        return Status::InvalidArgument(
            "table_changes: a range bound must be a version or a timestamp",
            errc::kInvalidParameterValue);
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

Result<PlanPtr> Binder::Impl::BindTableFunction(const sql::TableRef& ref) {
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
      return Status::InvalidArgument("range() takes 1 to 3 arguments", errc::kWrongNumArgs);
    }
    for (size_t i = 0; i < args.size(); ++i) {
      const Value& a = args[i];
      bool integral =
          !a.is_null() && (a.type()->id() == TypeId::kInt8 || a.type()->id() == TypeId::kInt16 ||
                           a.type()->id() == TypeId::kInt32 || a.type()->id() == TypeId::kInt64);
      if (!integral) {
        return Status::InvalidArgument(
            "The value of parameter(s) `" +
                std::string(args.size() == 1 ? "end"
                                             : (i == 0   ? "start"
                                                : i == 1 ? "end"
                                                         : "step")) +
                "` in `range` is invalid: expects a long literal, but got " +
                (a.is_null() ? "NULL" : a.ToString()) + ".",
            errc::kInvalidParameterValueLong);
      }
    }
    int64_t start = 0, end, step = 1;
    if (args.size() == 1) {
      end = args[0].integer();
    } else {
      start = args[0].integer();
      end = args[1].integer();
      if (args.size() == 3) step = args[2].integer();
    }
    // Spark's Range: require(step != 0) (an IllegalArgumentException, no error class).
    if (step == 0) {
      return Status::InvalidArgument("requirement failed: step (0) cannot be 0",
                                     errc::kInvalidParameterValue);
    }
    // Spark's Range.numElements, in 128 bits so no bound overflows: ceil((end - start) / step)
    // when the step goes from start towards end, else 0.
    __int128 span = static_cast<__int128>(end) - start;
    uint64_t count = 0;
    if ((step > 0 && span > 0) || (step < 0 && span < 0)) {
      __int128 q = span / step, r = span % step;
      count = static_cast<uint64_t>(q + (r != 0 ? 1 : 0));
    }
    auto node = std::make_shared<LogicalNode>();
    node->kind = LogicalKind::kValues;
    node->columns.push_back({"id", DataType::Int64(), false, ref.alias});
    node->is_range = true;
    node->range_start = start;
    node->range_end = end;
    node->range_step = step;
    node->range_count = count;
    sql::TableRef tmp;
    tmp.column_aliases = ref.column_aliases;
    return ApplyAlias(node, tmp);
  }
  if (fn == kMemoryRelationFunction) {
    // An embedder's in-memory rows (planner/memory_relations.h): a Values node sharing them.
    std::shared_ptr<const MemoryRelation> rel;
    if (args.size() == 1 && !args[0].is_null() && args[0].type()->id() == TypeId::kString) {
      rel = FindMemoryRelation(args[0].str());
    }
    if (!rel) {
      return Status::NotFound("the in-memory relation of this view is no longer available",
                              errc::kTableOrViewNotFound);
    }
    auto node = std::make_shared<LogicalNode>();
    node->kind = LogicalKind::kValues;
    for (const Field& f : rel->schema)
      node->columns.push_back({f.name, f.type, f.nullable, ref.alias});
    node->rows = rel->rows;
    sql::TableRef tmp;
    tmp.column_aliases = ref.column_aliases;
    return ApplyAlias(node, tmp);
  }
  if (fn == "table_changes" || fn == "table_changes_by_path") {
    return BindTableChanges(ref, args, fn == "table_changes_by_path");
  }
  return Status::InvalidArgument(
      "Could not resolve " + Backquote(fn) + " to a table-valued function.",
      errc::kUnresolvableTableValuedFunction);
}

}  // namespace silt::planner
