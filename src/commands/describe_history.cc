// DESCRIBE HISTORY t [LIMIT n]: one row per commit, newest first, with Spark's columns.
#include "commands/command.h"
#include "common/error_classes.h"
#include "delta/history.h"
#include "exec/expression.h"
#include "exec/functions.h"

namespace silt::commands {

namespace {

// Spark shows operationParameters values as plain strings: a JSON string loses its quotes,
// anything else (numbers, arrays, objects) stays JSON text.
std::string ParamText(const std::string& json) {
  if (json.size() >= 2 && json.front() == '"' && json.back() == '"') {
    std::string out;
    for (size_t i = 1; i + 1 < json.size(); ++i) {
      if (json[i] == '\\' && i + 2 < json.size()) {
        char n = json[++i];
        out += n == 'n' ? '\n' : n == 't' ? '\t' : n;
      } else {
        out += json[i];
      }
    }
    return out;
  }
  return json;
}

Status AppendMap(Vector* v, const std::optional<delta::StringMap>& m, bool params) {
  if (!m) {
    v->AppendNull();
    return Status::OK();
  }
  for (const auto& [k, val] : m->entries()) {
    v->child(0).AppendString(k);
    v->child(1).AppendString(params ? ParamText(val) : val);
  }
  v->FinishListRow();
  return Status::OK();
}

}  // namespace

Schema DescribeHistorySchema() {
  TypePtr smap = DataType::Map(DataType::String(), DataType::String());
  TypePtr job = DataType::Struct({{"jobId", DataType::String(), true, "{}"},
                                  {"jobName", DataType::String(), true, "{}"},
                                  {"jobRunId", DataType::String(), true, "{}"},
                                  {"runId", DataType::String(), true, "{}"},
                                  {"jobOwnerId", DataType::String(), true, "{}"},
                                  {"triggerType", DataType::String(), true, "{}"}});
  TypePtr notebook = DataType::Struct({{"notebookId", DataType::String(), true, "{}"}});
  return {{"version", DataType::Int64(), true, "{}"},
          {"timestamp", DataType::Timestamp(), true, "{}"},
          {"userId", DataType::String(), true, "{}"},
          {"userName", DataType::String(), true, "{}"},
          {"operation", DataType::String(), true, "{}"},
          {"operationParameters", smap, true, "{}"},
          {"job", job, true, "{}"},
          {"notebook", notebook, true, "{}"},
          {"clusterId", DataType::String(), true, "{}"},
          {"readVersion", DataType::Int64(), true, "{}"},
          {"isolationLevel", DataType::String(), true, "{}"},
          {"isBlindAppend", DataType::Boolean(), true, "{}"},
          {"operationMetrics", smap, true, "{}"},
          {"userMetadata", DataType::String(), true, "{}"},
          {"engineInfo", DataType::String(), true, "{}"}};
}

Result<CommandResult> DescribeHistory(const sql::DescribeStatement& stmt, CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t,
                        ctx.binder->ResolveTable(stmt.table, std::nullopt));
  SILT_RETURN_NOT_OK(planner::ExpectTable(t, "DESCRIBE HISTORY"));
  std::optional<int> limit;
  if (stmt.limit) {
    std::vector<planner::OutputColumn> none;
    SILT_ASSIGN_OR_RETURN(exec::ExprPtr e, ctx.binder->BindExpression(*stmt.limit, none));
    SILT_ASSIGN_OR_RETURN(Value v, exec::EvaluateConstant(*e, ctx.binder->context().eval));
    if (v.is_null() || v.integer() < 0) {
      return Status::InvalidArgument(
          "The LIMIT of DESCRIBE HISTORY must be a non-negative integer.",
          errc::kInvalidLimitLikeExpressionIsNegative);
    }
    limit = static_cast<int>(v.integer());
  }
  SILT_ASSIGN_OR_RETURN(std::vector<delta::CommitEntry> history,
                        delta::ReadHistory(*t.store, limit));
  CommandResult r;
  r.schema = DescribeHistorySchema();
  DataChunk c = DataChunk::FromSchema(r.schema);
  auto str = [](Vector& v, const std::optional<std::string>& s) {
    if (s)
      v.AppendString(*s);
    else
      v.AppendNull();
  };
  for (const auto& e : history) {
    const delta::CommitInfo ci = e.commit_info.value_or(delta::CommitInfo{});
    c.columns[0].Append<int64_t>(e.version);
    c.columns[1].Append<int64_t>(e.timestamp_ms * 1000);
    str(c.columns[2], ci.user_id);
    str(c.columns[3], ci.user_name);
    str(c.columns[4], ci.operation);
    SILT_RETURN_NOT_OK(AppendMap(&c.columns[5], ci.operation_parameters, true));
    c.columns[6].AppendNull();
    c.columns[7].AppendNull();
    str(c.columns[8], ci.cluster_id);
    if (ci.read_version)
      c.columns[9].Append<int64_t>(*ci.read_version);
    else
      c.columns[9].AppendNull();
    str(c.columns[10], ci.isolation_level);
    if (ci.is_blind_append)
      c.columns[11].Append<uint8_t>(*ci.is_blind_append ? 1 : 0);
    else
      c.columns[11].AppendNull();
    SILT_RETURN_NOT_OK(AppendMap(&c.columns[12], ci.operation_metrics, false));
    str(c.columns[13], ci.user_metadata);
    str(c.columns[14], ci.engine_info);
  }
  if (c.size()) r.chunks.push_back(std::move(c));
  return r;
}

}  // namespace silt::commands
