#include "delta/table_writer.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "delta/partition_values.h"
#include "delta/schema_json.h"
#include "delta/stats_json.h"
#include "delta/table_properties.h"
#include "delta/z85.h"
#include "io/path.h"

namespace silt::delta {
namespace {

const char* CodecSuffix(parquet::CompressionCodec c) {
  switch (c) {
    case parquet::CompressionCodec::SNAPPY: return ".snappy";
    case parquet::CompressionCodec::GZIP: return ".gz";
    case parquet::CompressionCodec::ZSTD: return ".zstd";
    case parquet::CompressionCodec::LZ4_RAW: return ".lz4raw";
    case parquet::CompressionCodec::BROTLI: return ".br";
    default: return "";
  }
}

bool HasType(const TypePtr& t, TypeId id) {
  if (t->id() == id) return true;
  for (const auto& f : t->fields())
    if (HasType(f.type, id)) return true;
  return false;
}



// The physical path of a logical column path (unknown components are kept as given, so a
// stats column that names nothing still selects nothing).
std::vector<std::string> PhysicalPath(const Schema& logical, const std::vector<std::string>& path, ColumnMappingMode cm) {
  std::vector<std::string> out;
  const std::vector<Field>* fields = &logical;
  for (const auto& name : path) {
    int i = fields ? FindField(*fields, name) : -1;
    if (i < 0) {
      out.push_back(name);
      fields = nullptr;
      continue;
    }
    const Field& f = (*fields)[static_cast<size_t>(i)];
    out.push_back(PhysicalNameOrName(f, cm));
    fields = f.type->id() == TypeId::kStruct ? &f.type->fields() : nullptr;
  }
  return out;
}

// Rows of one input chunk that go to one file: the rows in `sel`, or when it is empty the
// range [begin, begin + count) (unpartitioned tables need no row selection).
struct ChunkRows {
  const DataChunk* chunk;
  std::vector<uint32_t> sel;
  size_t begin = 0, count = 0;
  size_t size() const { return sel.empty() ? count : sel.size(); }
};

// Writes one data file of the selected rows of `pieces` (their data columns), in order.
Result<AddFile> WriteOneFile(ObjectStore& store, const Schema& data_schema, const std::vector<int>& data_cols,
                             const std::vector<ChunkRows>& pieces, const std::string& dir,
                             const PartitionValues& partition_values, const StatsOptions& stats_options,
                             const DataWriteOptions& options, int file_index) {
  char index[16];
  std::snprintf(index, sizeof index, "%05d", file_index);
  std::string name = options.file_prefix + "-" + index + "-" + Uuid::Random().ToString() + "-c000" +
                     CodecSuffix(options.parquet.codec) + ".parquet";
  std::string key = dir.empty() ? name : dir + "/" + name;
  SILT_ASSIGN_OR_RETURN(auto sink, store.OpenWrite(key));
  SILT_ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Make(std::move(sink), data_schema, options.parquet));
  size_t num_rows = 0;
  // A whole chunk whose columns are the file's (no partition columns, the same types — column
  // mapping renames nested fields) goes to the writer as it is.
  auto passes_as_is = [&](const ChunkRows& piece) {
    if (!piece.sel.empty() || piece.begin != 0 || piece.count != piece.chunk->size() ||
        piece.chunk->columns.size() != data_cols.size())
      return false;
    for (size_t k = 0; k < data_cols.size(); ++k)
      if (data_cols[k] != static_cast<int>(k) || !piece.chunk->columns[k].type()->Equals(*data_schema[k].type)) return false;
    return true;
  };
  for (const ChunkRows& piece : pieces) {
    num_rows += piece.size();
    if (passes_as_is(piece)) {
      SILT_RETURN_NOT_OK(writer->Write(*piece.chunk));  // the writer copies what it buffers
      continue;
    }
    DataChunk out;
    for (size_t k = 0; k < data_cols.size(); ++k) {
      Vector v(data_schema[k].type);
      const Vector& src = piece.chunk->columns[static_cast<size_t>(data_cols[k])];
      if (piece.sel.empty()) {
        v.AppendRange(src, piece.begin, piece.count);
      } else {
        v.AppendSelected(src, piece.sel.data(), piece.sel.size());
      }
      out.columns.push_back(std::move(v));
    }
    out.num_rows_without_columns = piece.size();
    SILT_RETURN_NOT_OK(writer->Write(out));
  }
  SILT_RETURN_NOT_OK(writer->Close());
  std::vector<LeafStats> leaves;
  const auto& fs = writer->file_schema();
  for (int i = 0; i < fs.num_leaves(); ++i) {
    const auto& st = writer->leaf_statistics()[static_cast<size_t>(i)];
    LeafStats ls;
    ls.path = fs.leaf(i).path;
    if (st.min) ls.min = *st.min;
    if (st.max) ls.max = *st.max;
    ls.null_count = st.null_count;
    leaves.push_back(std::move(ls));
  }
  AddFile add;
  add.path = ToDeltaPath(key);
  add.partition_values = partition_values;
  add.size = writer->bytes_written();
  add.modification_time = options.clock->NowMillis();
  add.data_change = true;
  add.stats = SerializeStats(data_schema, static_cast<int64_t>(num_rows), leaves, stats_options);
  return add;
}

// A JSON string literal (operationParameters values are JSON texts; Spark writes strings).
std::string JsonStr(std::string_view v) {
  std::string out;
  AppendJsonString(&out, v);
  return out;
}

// Spark's partitionBy parameter: the JSON array of names, as a string.
std::string PartitionByParam(const std::vector<std::string>& cols) {
  std::string arr = "[";
  for (size_t i = 0; i < cols.size(); ++i) {
    if (i) arr += ",";
    AppendJsonString(&arr, cols[i]);
  }
  return JsonStr(arr + "]");
}

// Spark's WRITE metrics for the files a commit adds.
void SetWriteMetrics(Transaction* txn, const std::vector<DataChunk>& rows, const std::vector<AddFile>& adds) {
  int64_t n = 0, bytes = 0;
  for (const auto& c : rows) n += static_cast<int64_t>(c.size());
  for (const auto& a : adds) bytes += a.size;
  txn->SetMetric("numFiles", static_cast<int64_t>(adds.size()));
  txn->SetMetric("numOutputRows", n);
  txn->SetMetric("numOutputBytes", bytes);
}

}  // namespace

Result<std::vector<AddFile>> WriteDataFiles(ObjectStore& store, const Metadata& metadata, const Schema& schema,
                                            const std::vector<DataChunk>& chunks, const DataWriteOptions& options) {
  const std::string* mode = metadata.configuration.Find("delta.columnMapping.mode");
  SILT_ASSIGN_OR_RETURN(ColumnMappingMode cm, ParseColumnMappingMode(mode ? std::optional<std::string>(*mode) : std::nullopt));
  // Data files, stats and partition values use physical names (and Parquet field ids) under
  // column mapping, as Spark's DeltaParquetFileFormat writes them.
  SILT_ASSIGN_OR_RETURN(Schema physical, ToPhysicalSchema(schema, cm));
  std::vector<int> part_cols, data_cols;
  std::vector<std::string> part_names;
  for (const auto& p : metadata.partition_columns) {
    int i = FindField(schema, p);
    if (i < 0) return Status::InvalidArgument("partition column " + p + " is not in the schema", "DELTA_PARTITION_COLUMN_NOT_FOUND");
    part_cols.push_back(i);
    part_names.push_back(physical[static_cast<size_t>(i)].name);
  }
  Schema data_schema;
  for (size_t i = 0; i < schema.size(); ++i)
    if (std::find(part_cols.begin(), part_cols.end(), static_cast<int>(i)) == part_cols.end()) {
      data_cols.push_back(static_cast<int>(i));
      data_schema.push_back(physical[i]);
    }
  StatsOptions stats_options;
  if (const std::string* n = metadata.configuration.Find("delta.dataSkippingNumIndexedCols")) {
    char* end = nullptr;
    long v = std::strtol(n->c_str(), &end, 10);
    if (*end || n->empty() || v < -1)
      return Status::InvalidArgument("delta.dataSkippingNumIndexedCols must be an integer >= -1, got " + *n,
                                     "DELTA_INVALID_TABLE_PROPERTY");
    stats_options.num_indexed_cols = static_cast<int>(v);
  }
  if (const std::string* cols = metadata.configuration.Find("delta.dataSkippingStatsColumns")) {
    SILT_ASSIGN_OR_RETURN(auto parsed, ParseStatsColumnList(*cols));
    // The property names logical columns; stats are keyed by physical paths.
    for (auto& path : parsed) path = PhysicalPath(schema, path, cm);
    stats_options.stats_columns = std::move(parsed);
  }
  stats_options.tight_bounds = options.tight_bounds;
  // All rows are checked before the first file is written, so a violation leaves no orphans.
  SILT_ASSIGN_OR_RETURN(TableConstraints constraints, TableConstraints::Make(schema, metadata));
  for (const DataChunk& chunk : chunks) {
    if (chunk.columns.size() != schema.size())
      return Status::InvalidArgument("rows have " + std::to_string(chunk.columns.size()) + " columns, the table " +
                                         std::to_string(schema.size()),
                                     "DELTA_INSERT_COLUMN_ARITY_MISMATCH");
    SILT_RETURN_NOT_OK(constraints.Check(chunk, options.row_validator));
  }
  // Rows are grouped by partition values (formatted as Delta stores them) across all chunks, so
  // a file holds up to max_rows_per_file rows however the input was chunked.
  std::map<std::vector<std::optional<std::string>>, std::vector<ChunkRows>> groups;
  for (const DataChunk& chunk : chunks) {
    if (part_cols.empty()) {
      if (chunk.size() > 0) groups[{}].push_back({&chunk, {}, 0, chunk.size()});
      continue;
    }
    std::map<std::vector<std::optional<std::string>>, std::vector<uint32_t>> in_chunk;
    for (size_t r = 0; r < chunk.size(); ++r) {
      std::vector<std::optional<std::string>> key;
      for (int p : part_cols) key.push_back(FormatPartitionValue(chunk.columns[static_cast<size_t>(p)].GetValue(r)));
      in_chunk[key].push_back(static_cast<uint32_t>(r));
    }
    for (auto& [key, rows] : in_chunk) groups[key].push_back({&chunk, std::move(rows)});
  }
  const size_t max_rows = static_cast<size_t>(std::max<int64_t>(1, options.max_rows_per_file));
  std::vector<AddFile> adds;
  int file_index = 0;
  for (auto& [key, pieces] : groups) {
    PartitionValues pv;
    silt::PartitionValues dirs;
    for (size_t k = 0; k < part_cols.size(); ++k) {
      pv.Append(part_names[k], key[k]);
      dirs.emplace_back(part_names[k], key[k]);
    }
    std::string dir = JoinPath(options.key_prefix, PartitionPath(dirs));
    std::vector<ChunkRows> file;
    size_t in_file = 0;
    for (ChunkRows& piece : pieces) {
      for (size_t b = 0; b < piece.size();) {
        size_t take = std::min(piece.size() - b, max_rows - in_file);
        if (piece.sel.empty()) {
          file.push_back({piece.chunk, {}, piece.begin + b, take});
        } else {
          file.push_back({piece.chunk, std::vector<uint32_t>(piece.sel.begin() + static_cast<long>(b),
                                                             piece.sel.begin() + static_cast<long>(b + take))});
        }
        b += take;
        in_file += take;
        if (in_file == max_rows) {
          SILT_ASSIGN_OR_RETURN(AddFile add, WriteOneFile(store, data_schema, data_cols, file, dir, pv, stats_options,
                                                          options, file_index++));
          adds.push_back(std::move(add));
          file.clear();
          in_file = 0;
        }
      }
    }
    if (in_file > 0) {
      SILT_ASSIGN_OR_RETURN(AddFile add, WriteOneFile(store, data_schema, data_cols, file, dir, pv, stats_options,
                                                      options, file_index++));
      adds.push_back(std::move(add));
    }
  }
  return adds;
}

Protocol ProtocolForNewTable(const Schema& schema, const StringMap& properties) {
  std::vector<std::string> reader, writer;
  bool ntz = false;
  for (const auto& f : schema) ntz |= HasType(f.type, TypeId::kTimestampNtz);
  if (ntz) reader.push_back("timestampNtz"), writer.push_back("timestampNtz");
  if (GetBoolProperty(properties, "delta.enableDeletionVectors", false).ValueOr(false)) reader.push_back("deletionVectors"), writer.push_back("deletionVectors");
  if (GetBoolProperty(properties, "delta.enableChangeDataFeed", false).ValueOr(false)) writer.push_back("changeDataFeed");
  if (GetBoolProperty(properties, "delta.enableInCommitTimestamps", false).ValueOr(false)) writer.push_back("inCommitTimestamp");
  for (const auto& [k, v] : properties.entries())
    if (k.rfind("delta.constraints.", 0) == 0 && std::find(writer.begin(), writer.end(), "checkConstraints") == writer.end())
      writer.push_back("checkConstraints");
  // Row tracking keeps its high-water mark in a domain, so it needs domainMetadata too.
  if (GetBoolProperty(properties, "delta.enableRowTracking", false).ValueOr(false))
    writer.insert(writer.end(), {"domainMetadata", "rowTracking"});
  const std::string* cm_mode = properties.Find("delta.columnMapping.mode");
  bool column_mapping = cm_mode && ParseColumnMappingMode(*cm_mode).ValueOr(ColumnMappingMode::kNone) != ColumnMappingMode::kNone;
  Protocol p;
  if (reader.empty() && writer.empty()) {
    // Column mapping alone is the legacy (2, 5) protocol, as Spark creates it.
    p.min_reader_version = column_mapping ? 2 : 1;
    p.min_writer_version = column_mapping ? 5 : 2;
    return p;
  }
  if (column_mapping) reader.push_back("columnMapping"), writer.push_back("columnMapping");
  // Table features: list the legacy writer features version 2 implies, as Spark does.
  writer.insert(writer.begin(), {"appendOnly", "invariants"});
  p.min_reader_version = reader.empty() ? 1 : 3;
  p.min_writer_version = 7;
  if (!reader.empty()) p.reader_features = reader;
  p.writer_features = writer;
  return p;
}

Result<CommitResult> CreateTable(std::shared_ptr<ObjectStore> store, const Schema& schema,
                                 const std::vector<DataChunk>& rows, CreateTableOptions options) {
  if (schema.empty()) return Status::InvalidArgument("a table needs at least one column", "DELTA_EMPTY_DATA");
  for (const auto& p : options.partition_columns)
    if (FindField(schema, p) < 0)
      return Status::InvalidArgument("partition column " + p + " is not in the schema", "DELTA_PARTITION_COLUMN_NOT_FOUND");
  const std::string* cm_mode = options.properties.Find("delta.columnMapping.mode");
  SILT_ASSIGN_OR_RETURN(ColumnMappingMode cm,
                        ParseColumnMappingMode(cm_mode ? std::optional<std::string>(*cm_mode) : std::nullopt));
  Schema table_schema = schema;
  if (cm != ColumnMappingMode::kNone) {
    int64_t max_id = 0;
    if (const std::string* m = options.properties.Find("delta.columnMapping.maxColumnId")) max_id = std::atoll(m->c_str());
    table_schema = AssignColumnMapping(schema, &max_id);
    options.properties.Set("delta.columnMapping.maxColumnId", std::to_string(max_id));
  }
  Metadata md;
  md.id = Uuid::Random().ToString();
  md.name = options.name;
  md.description = options.description;
  md.schema_string = SerializeSchema(table_schema);
  md.partition_columns = options.partition_columns;
  md.configuration = options.properties;
  md.created_time = options.txn.clock->NowMillis();
  Transaction txn(store, nullptr, options.txn);
  txn.UpdateProtocol(ProtocolForNewTable(table_schema, options.properties));
  txn.UpdateMetadata(md);
  StringMap params;
  params.Set("partitionBy", PartitionByParam(options.partition_columns));
  params.Set("description", options.description ? JsonStr(*options.description) : "null");
  params.Set("isManaged", JsonStr("false"));
  std::string props = "{";
  for (const auto& [k, v] : options.properties.entries()) {
    if (props.size() > 1) props += ",";
    AppendJsonString(&props, k);
    props += ":";
    AppendJsonString(&props, v);
  }
  params.Set("properties", JsonStr(props + "}"));
  txn.SetOperation(rows.empty() ? "CREATE TABLE" : "CREATE TABLE AS SELECT", params);
  if (!rows.empty()) {
    SILT_ASSIGN_OR_RETURN(auto adds, WriteDataFiles(*store, md, table_schema, rows, options.write));
    SetWriteMetrics(&txn, rows, adds);
    for (auto& a : adds) txn.Add(std::move(a));
  }
  return txn.Commit();
}

Result<CommitResult> AppendRows(std::shared_ptr<ObjectStore> store, const std::vector<DataChunk>& rows,
                                DataWriteOptions write, TransactionOptions txn_options) {
  SILT_ASSIGN_OR_RETURN(auto snap, Snapshot::Load(store, std::nullopt, {.load_files = false}));
  SILT_ASSIGN_OR_RETURN(auto adds, WriteDataFiles(*store, snap->metadata(), snap->schema(), rows, write));
  Transaction txn(store, snap, txn_options);
  StringMap params;
  params.Set("mode", JsonStr("Append"));
  params.Set("partitionBy", PartitionByParam(snap->partition_columns()));
  txn.SetOperation("WRITE", params);
  SetWriteMetrics(&txn, rows, adds);
  for (auto& a : adds) txn.Add(std::move(a));
  txn.SetReadScope(ReadScope::kNothing);
  return txn.Commit();
}

}  // namespace silt::delta
