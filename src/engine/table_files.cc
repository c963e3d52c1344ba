// silt::ListTableFiles (include/silt/table_files.h): a snapshot's live files as rows.
#include "silt/table_files.h"

#include <string>
#include <utility>
#include <vector>

#include "common/error_classes.h"
#include "delta/snapshot.h"
#include "delta/stats_json.h"
#include "engine/engine.h"
#include "io/path.h"
#include "planner/binder.h"

namespace silt {

Result<std::unique_ptr<QueryResult>> ListTableFiles(Connection& con, std::string_view table_uri,
                                                    std::optional<int64_t> version) {
  engine::SessionState& session = con.session();
  planner::BinderContext bctx;
  bctx.catalog = session.db->catalog.get();
  bctx.config = &session.config;
  bctx.current_schema = session.current_schema;
  bctx.clock = session.db->clock;
  bctx.temp_views = &session.temp_views;
  planner::Binder binder(bctx);
  sql::TableName name;
  name.path_format = "delta";
  name.path = std::string(table_uri);
  if (name.path.empty()) {
    return Status::InvalidArgument("ListTableFiles: an empty table path",
                                   errc::kInvalidParameterValue);
  }
  sql::TimeTravel travel;
  travel.version = version;
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable table,
                        binder.ResolveTable(name, version ? &travel : nullptr));
  if (!table.snapshot) {
    return Status::NotFound("`" + name.path + "` is not a Delta table", errc::kDeltaTableNotFound);
  }
  const delta::Snapshot& snapshot = *table.snapshot;
  const TypePtr map_type = DataType::Map(DataType::String(), DataType::String());
  Schema schema = {{"path", DataType::String(), false, "{}"},
                   {"uri", DataType::String(), false, "{}"},
                   {"size_bytes", DataType::Int64(), false, "{}"},
                   {"modification_time", DataType::Timestamp(), false, "{}"},
                   {"data_change", DataType::Boolean(), false, "{}"},
                   {"partition_values", map_type, false, "{}"},
                   {"num_records", DataType::Int64(), true, "{}"},
                   {"stats", DataType::String(), true, "{}"},
                   {"deletion_vector_cardinality", DataType::Int64(), true, "{}"}};
  std::string root = snapshot.store()->root();
  if (!root.empty() && root.back() != '/') root += '/';
  constexpr size_t kChunkRows = 2048;
  std::vector<DataChunk> chunks;
  const std::vector<delta::AddFile>& files = snapshot.files();
  for (size_t start = 0; start < files.size(); start += kChunkRows) {
    DataChunk chunk = DataChunk::FromSchema(schema);
    for (size_t i = start; i < files.size() && i < start + kChunkRows; ++i) {
      const delta::AddFile& f = files[i];
      SILT_ASSIGN_OR_RETURN(DeltaPath dp, ParseDeltaPath(f.path));
      std::vector<Value> parts;
      for (const auto& [key, value] : f.partition_values.entries()) {
        parts.push_back(Value::String(key));
        parts.push_back(value ? Value::String(*value) : Value::Null(DataType::String()));
      }
      std::optional<int64_t> records;
      if (f.stats) records = delta::StatsNumRecords(*f.stats);
      Value row[] = {
          Value::String(dp.absolute ? f.path : dp.path),
          Value::String(dp.absolute ? f.path : root + f.path),
          Value::Int64(f.size),
          Value::Integer(DataType::Timestamp(), f.modification_time * 1000),
          Value::Boolean(f.data_change),
          Value::Nested(map_type, std::move(parts)),
          records ? Value::Int64(*records) : Value::Null(DataType::Int64()),
          f.stats ? Value::String(*f.stats) : Value::Null(DataType::String()),
          f.deletion_vector ? Value::Int64(f.deletion_vector->cardinality)
                            : Value::Null(DataType::Int64()),
      };
      for (size_t c = 0; c < schema.size(); ++c) {
        SILT_RETURN_NOT_OK(chunk.columns[c].AppendValue(row[c]));
      }
    }
    chunks.push_back(std::move(chunk));
  }
  auto result = std::make_unique<QueryResult>(std::move(schema), std::move(chunks));
  result->statement = "query";
  return result;
}

}  // namespace silt
