// DESCRIBE DETAIL t: one row describing the table (Spark/Databricks columns).
#include <set>

#include "commands/command.h"
#include "delta/clustering.h"
#include "planner/file_source.h"

namespace silt::commands {

Result<CommandResult> DescribeDetail(const sql::DescribeStatement& stmt, CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t,
                        ctx.binder->ResolveTable(stmt.table, std::nullopt));
  SILT_RETURN_NOT_OK(planner::ExpectTable(t, "DESCRIBE DETAIL"));
  const delta::Snapshot& s = *t.snapshot;
  TypePtr sarr = DataType::List(DataType::String());
  TypePtr smap = DataType::Map(DataType::String(), DataType::String());
  TypePtr lmap = DataType::Map(DataType::String(), DataType::Int64());
  CommandResult r;
  r.schema = {{"format", DataType::String(), true, "{}"},
              {"id", DataType::String(), true, "{}"},
              {"name", DataType::String(), true, "{}"},
              {"description", DataType::String(), true, "{}"},
              {"location", DataType::String(), true, "{}"},
              {"createdAt", DataType::Timestamp(), true, "{}"},
              {"lastModified", DataType::Timestamp(), true, "{}"},
              {"partitionColumns", sarr, true, "{}"},
              {"clusteringColumns", sarr, true, "{}"},
              {"numFiles", DataType::Int64(), true, "{}"},
              {"sizeInBytes", DataType::Int64(), true, "{}"},
              {"properties", smap, true, "{}"},
              {"minReaderVersion", DataType::Int32(), true, "{}"},
              {"minWriterVersion", DataType::Int32(), true, "{}"},
              {"tableFeatures", sarr, true, "{}"},
              {"statistics", lmap, true, "{}"}};
  std::vector<Value> row;
  auto strv = [](const std::optional<std::string>& v) {
    return v ? Value::String(*v) : Value::Null(DataType::String());
  };
  auto list = [&](const std::vector<std::string>& items) {
    std::vector<Value> vs;
    for (const auto& i : items) vs.push_back(Value::String(i));
    return Value::Nested(sarr, std::move(vs));
  };
  const delta::Metadata& md = s.metadata();
  // File-source tables (planner/file_source.h) show their provider.
  row.push_back(
      Value::String(t.entry && planner::IsFileSourceTable(*t.entry) ? t.entry->format : "delta"));
  row.push_back(Value::String(md.id));
  row.push_back(t.entry ? Value::String("spark_catalog." + t.entry->schema + "." + t.entry->name)
                        : strv(md.name));
  row.push_back(strv(md.description));
  row.push_back(Value::String(t.location));
  row.push_back(md.created_time ? Value::Integer(DataType::Timestamp(), *md.created_time * 1000)
                                : Value::Null(DataType::Timestamp()));
  row.push_back(Value::Integer(DataType::Timestamp(), s.timestamp_ms() * 1000));
  row.push_back(list(md.partition_columns));
  SILT_ASSIGN_OR_RETURN(std::vector<std::string> clustering, delta::ClusteringColumns(s));
  row.push_back(list(clustering));
  int64_t bytes = 0, dvs = 0, dv_rows = 0;
  for (const auto& f : s.files()) {
    bytes += f.size;
    if (f.deletion_vector) {
      ++dvs;
      dv_rows += f.deletion_vector->cardinality;
    }
  }
  row.push_back(Value::Int64(static_cast<int64_t>(s.files().size())));
  row.push_back(Value::Int64(bytes));
  std::vector<Value> props;
  for (const auto& [k, v] : md.configuration.entries()) {
    props.push_back(Value::String(k));
    props.push_back(Value::String(v));
  }
  row.push_back(Value::Nested(smap, std::move(props)));
  row.push_back(Value::Int32(s.protocol().min_reader_version));
  row.push_back(Value::Int32(s.protocol().min_writer_version));
  std::set<std::string> features;
  if (s.protocol().reader_features)
    features.insert(s.protocol().reader_features->begin(), s.protocol().reader_features->end());
  if (s.protocol().writer_features)
    features.insert(s.protocol().writer_features->begin(), s.protocol().writer_features->end());
  row.push_back(list(std::vector<std::string>(features.begin(), features.end())));
  row.push_back(
      Value::Nested(lmap, {Value::String("numRowsDeletedByDeletionVectors"), Value::Int64(dv_rows),
                           Value::String("numDeletionVectors"), Value::Int64(dvs)}));
  DataChunk c = DataChunk::FromSchema(r.schema);
  for (size_t i = 0; i < row.size(); ++i) {
    SILT_RETURN_NOT_OK(c.columns[i].AppendValue(row[i]));
  }
  r.chunks.push_back(std::move(c));
  return r;
}

}  // namespace silt::commands
