#include "commands/command.h"

#include "exec/expression.h"
#include "exec/functions.h"

namespace silt::commands {

CommandResult StringRows(const std::vector<std::string>& column_names, const std::vector<std::vector<std::string>>& rows) {
  CommandResult r;
  DataChunk chunk;
  for (const auto& n : column_names) {
    r.schema.push_back({n, DataType::String(), true, "{}"});
    chunk.columns.emplace_back(DataType::String());
  }
  for (const auto& row : rows) {
    for (size_t i = 0; i < column_names.size(); ++i) chunk.columns[i].AppendString(i < row.size() ? row[i] : "");
  }
  chunk.num_rows_without_columns = rows.size();
  if (!rows.empty()) r.chunks.push_back(std::move(chunk));
  return r;
}

Result<std::vector<DataChunk>> CastChunks(const std::vector<DataChunk>& chunks, const Schema& from, const Schema& to,
                                          const std::string& table_name) {
  if (from.size() != to.size()) {
    return Status::InvalidArgument("[INSERT_COLUMN_ARITY_MISMATCH.NOT_ENOUGH_DATA_COLUMNS] Cannot write to " + table_name +
                                       ", the reason is not enough data columns: Table columns: " + std::to_string(to.size()) +
                                       ", Data columns: " + std::to_string(from.size()) + ".",
                                   from.size() < to.size() ? "INSERT_COLUMN_ARITY_MISMATCH.NOT_ENOUGH_DATA_COLUMNS"
                                                           : "INSERT_COLUMN_ARITY_MISMATCH.TOO_MANY_DATA_COLUMNS");
  }
  exec::BindContext bind;
  bind.ansi = true;  // spark.sql.storeAssignmentPolicy=ANSI
  std::vector<exec::ExprPtr> casts;
  bool any = false;
  for (size_t i = 0; i < to.size(); ++i) {
    exec::ExprPtr col = exec::MakeColumn(static_cast<int>(i), from[i].type, from[i].name);
    if (from[i].type->Equals(*to[i].type)) {
      casts.push_back(col);
      continue;
    }
    any = true;
    Result<exec::ExprPtr> c = exec::BindCast(col, to[i].type, false, bind);
    if (!c.ok()) {
      return Status::InvalidArgument("[INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_SAFELY_CAST] Cannot write incompatible data for the table " +
                                         table_name + ": Cannot safely cast " + "`" + to[i].name + "` " +
                                         from[i].type->ToString() + " to " + to[i].type->ToString() + ".",
                                     "INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_SAFELY_CAST");
    }
    casts.push_back(*c);
  }
  std::vector<DataChunk> out;
  exec::EvalContext ectx;
  ectx.ansi = true;
  for (const DataChunk& c : chunks) {
    if (!any) {
      out.push_back(c);
      continue;
    }
    DataChunk o;
    o.num_rows_without_columns = c.size();
    for (size_t i = 0; i < to.size(); ++i) {
      Vector v(to[i].type);
      SILT_RETURN_NOT_OK(exec::Evaluate(*casts[i], c, ectx, &v));
      o.columns.push_back(std::move(v));
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace silt::commands
