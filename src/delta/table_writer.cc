#include "delta/table_writer.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "common/error_classes.h"
#include "delta/clustering.h"
#include "delta/iceberg_compat.h"
#include "delta/partition_values.h"
#include "delta/schema_json.h"
#include "delta/stats_json.h"
#include "delta/streaming_write.h"
#include "delta/table_features.h"
#include "delta/table_properties.h"
#include "delta/z85.h"
#include "io/path.h"

namespace silt::delta {
namespace {

const char* CodecSuffix(parquet::CompressionCodec c) {
  switch (c) {
    case parquet::CompressionCodec::SNAPPY:
      return ".snappy";
    case parquet::CompressionCodec::GZIP:
      return ".gz";
    case parquet::CompressionCodec::ZSTD:
      return ".zstd";
    case parquet::CompressionCodec::LZ4_RAW:
      return ".lz4raw";
    case parquet::CompressionCodec::BROTLI:
      return ".br";
    default:
      return "";
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
std::vector<std::string> PhysicalPath(const Schema& logical, const std::vector<std::string>& path,
                                      ColumnMappingMode cm) {
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

using PartitionKey = std::vector<std::optional<std::string>>;

// What a write derives from the table's metadata once: the files' (physical) columns, the
// partition columns, stats options and constraints.
struct WritePlan {
  Schema schema;        // logical, as the rows come
  Schema data_schema;   // the files' columns
  Schema stats_schema;  // the columns with stats: data_schema without partition columns
  std::vector<int> data_cols, part_cols;
  std::vector<std::string> part_names;
  StatsOptions stats_options;
  TableConstraints constraints;
};

Result<WritePlan> MakeWritePlan(const Metadata& metadata, const Schema& schema,
                                const DataWriteOptions& options) {
  if (!options.clock) return Status::Internal("DataWriteOptions.clock is not set");
  WritePlan plan;
  plan.schema = schema;
  const std::string* mode = metadata.configuration.Find("delta.columnMapping.mode");
  SILT_ASSIGN_OR_RETURN(
      ColumnMappingMode cm,
      ParseColumnMappingMode(mode ? std::optional<std::string>(*mode) : std::nullopt));
  // Data files, stats and partition values use physical names (and Parquet field ids) under
  // column mapping, as Spark's DeltaParquetFileFormat writes them.
  SILT_ASSIGN_OR_RETURN(Schema physical, ToPhysicalSchema(schema, cm));
  for (const auto& p : metadata.partition_columns) {
    int i = FindField(schema, p);
    if (i < 0)
      return Status::InvalidArgument("partition column " + p + " is not in the schema",
                                     errc::kDeltaPartitionColumnNotFound);
    plan.part_cols.push_back(i);
    plan.part_names.push_back(physical[static_cast<size_t>(i)].name);
  }
  // Under IcebergCompat Delta writes the partition columns into the data files as well ("Iceberg
  // spec requires partition columns in data files", TransactionalWrite); stats stay on the
  // other columns.
  const bool materialize = IcebergCompatVersion(metadata.configuration) > 0;
  for (size_t i = 0; i < schema.size(); ++i) {
    const bool part = std::find(plan.part_cols.begin(), plan.part_cols.end(),
                                static_cast<int>(i)) != plan.part_cols.end();
    if (!part || materialize) {
      plan.data_cols.push_back(static_cast<int>(i));
      plan.data_schema.push_back(physical[i]);
    }
    if (!part) plan.stats_schema.push_back(physical[i]);
  }
  if (const std::string* n = metadata.configuration.Find("delta.dataSkippingNumIndexedCols")) {
    char* end = nullptr;
    long v = std::strtol(n->c_str(), &end, 10);
    if (*end || n->empty() || v < -1)
      return Status::InvalidArgument(
          "delta.dataSkippingNumIndexedCols must be an integer >= -1, got " + *n,
          errc::kDeltaInvalidTableProperty);
    plan.stats_options.num_indexed_cols = static_cast<int>(v);
  }
  if (const std::string* cols = metadata.configuration.Find("delta.dataSkippingStatsColumns")) {
    SILT_ASSIGN_OR_RETURN(auto parsed, ParseStatsColumnList(*cols));
    // The property names logical columns; stats are keyed by physical paths.
    for (auto& path : parsed) path = PhysicalPath(schema, path, cm);
    plan.stats_options.stats_columns = std::move(parsed);
  }
  plan.stats_options.tight_bounds = options.tight_bounds;
  SILT_ASSIGN_OR_RETURN(plan.constraints, TableConstraints::Make(schema, metadata));
  return plan;
}

Status CheckRows(const WritePlan& plan, const DataChunk& chunk, const DataWriteOptions& options) {
  if (chunk.columns.size() != plan.schema.size())
    return Status::InvalidArgument("rows have " + std::to_string(chunk.columns.size()) +
                                       " columns, the table " + std::to_string(plan.schema.size()),
                                   errc::kDeltaInsertColumnArityMismatch);
  return plan.constraints.Check(chunk, options.row_validator);
}

// The rows of `chunk` by partition values (formatted as Delta stores them), in key order.
std::map<PartitionKey, ChunkRows> SplitByPartition(const WritePlan& plan, const DataChunk& chunk) {
  std::map<PartitionKey, ChunkRows> out;
  if (chunk.size() == 0) return out;
  if (plan.part_cols.empty()) {
    out.emplace(PartitionKey{}, ChunkRows{&chunk, {}, 0, chunk.size()});
    return out;
  }
  for (size_t r = 0; r < chunk.size(); ++r) {
    PartitionKey key;
    for (int p : plan.part_cols)
      key.push_back(FormatPartitionValue(chunk.columns[static_cast<size_t>(p)].GetValue(r)));
    auto [it, inserted] = out.try_emplace(std::move(key), ChunkRows{&chunk, {}});
    it->second.sel.push_back(static_cast<uint32_t>(r));
  }
  return out;
}

// Cuts the rows of each partition into data files of up to max_rows_per_file rows, encoding them
// as they are appended: one open file per partition.
class FileCutter {
 public:
  FileCutter(ObjectStore& store, const WritePlan& plan, const DataWriteOptions& options)
      : store_(store),
        plan_(plan),
        options_(options),
        max_rows_(static_cast<size_t>(std::max<int64_t>(1, options.max_rows_per_file))) {}

  // Appends rows of the partition `key`, closing its file whenever it reaches the row limit.
  Status Append(const PartitionKey& key, const ChunkRows& piece) {
    for (size_t b = 0; b < piece.size();) {
      OpenFile& f = open_[key];
      if (!f.writer) SILT_RETURN_NOT_OK(Open(key, &f));
      size_t take = std::min(piece.size() - b, max_rows_ - f.rows);
      ChunkRows part{piece.chunk, {}};
      if (piece.sel.empty()) {
        part.begin = piece.begin + b;
        part.count = take;
      } else {
        part.sel.assign(piece.sel.begin() + static_cast<long>(b),
                        piece.sel.begin() + static_cast<long>(b + take));
      }
      SILT_RETURN_NOT_OK(WritePiece(f, part));
      f.rows += take;
      b += take;
      if (f.rows == max_rows_) SILT_RETURN_NOT_OK(Close(key));
    }
    return Status::OK();
  }

  // How many rows the partition will get in all (its files' buffers are sized for them);
  // without it a file is expected to fill up to max_rows_per_file.
  void ExpectRows(const PartitionKey& key, int64_t rows) { remaining_[key] = rows; }

  // Closes the partition's open file, if any.
  Status Close(const PartitionKey& key) {
    auto it = open_.find(key);
    if (it == open_.end()) return Status::OK();
    OpenFile f = std::move(it->second);
    open_.erase(it);
    if (!f.writer) return Status::OK();
    if (auto r = remaining_.find(key); r != remaining_.end())
      r->second -= static_cast<int64_t>(f.rows);
    SILT_ASSIGN_OR_RETURN(AddFile add, Finish(f));
    adds_.push_back(std::move(add));
    return Status::OK();
  }

  Status CloseAll() {
    while (!open_.empty()) SILT_RETURN_NOT_OK(Close(open_.begin()->first));
    return Status::OK();
  }

  std::vector<AddFile> TakeAdds() { return std::move(adds_); }

  // Deletes every file started (best effort: they were never committed).
  void DeleteStarted() {
    open_.clear();  // drops the writers without finishing their files
    for (const auto& key : started_) (void)store_.Delete(key);
    started_.clear();
    adds_.clear();
  }

 private:
  struct OpenFile {
    std::unique_ptr<parquet::ParquetWriter> writer;
    std::string key;
    PartitionValues partition_values;
    size_t rows = 0;
  };

  Status Open(const PartitionKey& key, OpenFile* f) {
    silt::PartitionValues dirs;
    for (size_t k = 0; k < plan_.part_cols.size(); ++k) {
      f->partition_values.Append(plan_.part_names[k], key[k]);
      dirs.emplace_back(plan_.part_names[k], key[k]);
    }
    std::string dir = JoinPath(options_.key_prefix, PartitionPath(dirs));
    char index[16];
    std::snprintf(index, sizeof index, "%05d", file_index_++);
    std::string name = options_.file_prefix + "-" + index + "-" + Uuid::Random().ToString() +
                       "-c000" + CodecSuffix(options_.parquet.codec) + ".parquet";
    f->key = dir.empty() ? name : dir + "/" + name;
    SILT_ASSIGN_OR_RETURN(auto sink, store_.OpenWrite(f->key));
    started_.push_back(f->key);
    parquet::WriterOptions po = options_.parquet;
    // Buffers sized for a full file (or the partition's known rows); parquet.expected_rows = 0
    // (WriteDataFilesFrom: rows of a source of unknown size) sizes nothing ahead, so a small
    // streamed INSERT does not reserve a row group's worth per column.
    po.expected_rows = options_.parquet.expected_rows == 0 ? 0 : static_cast<int64_t>(max_rows_);
    if (auto r = remaining_.find(key); r != remaining_.end())
      po.expected_rows = std::min(po.expected_rows, r->second);
    SILT_ASSIGN_OR_RETURN(
        f->writer, parquet::ParquetWriter::Make(std::move(sink), plan_.data_schema, std::move(po)));
    return Status::OK();
  }

  // Writes the selected rows of a chunk (its data columns).
  Status WritePiece(OpenFile& f, const ChunkRows& piece) {
    const std::vector<int>& data_cols = plan_.data_cols;
    // A whole chunk whose columns are the file's (no partition columns, the same types — column
    // mapping renames nested fields) goes to the writer as it is.
    auto passes_as_is = [&] {
      if (!piece.sel.empty() || piece.begin != 0 || piece.count != piece.chunk->size() ||
          piece.chunk->columns.size() != data_cols.size())
        return false;
      for (size_t k = 0; k < data_cols.size(); ++k)
        if (data_cols[k] != static_cast<int>(k) ||
            !piece.chunk->columns[k].type()->Equals(*plan_.data_schema[k].type))
          return false;
      return true;
    };
    if (passes_as_is()) return f.writer->Write(*piece.chunk);  // the writer copies what it buffers
    DataChunk out;
    for (size_t k = 0; k < data_cols.size(); ++k) {
      Vector v(plan_.data_schema[k].type);
      const Vector& src = piece.chunk->columns[static_cast<size_t>(data_cols[k])];
      if (piece.sel.empty()) {
        v.AppendRange(src, piece.begin, piece.count);
      } else {
        v.AppendSelected(src, piece.sel.data(), piece.sel.size());
      }
      out.columns.push_back(std::move(v));
    }
    out.num_rows_without_columns = piece.size();
    return f.writer->Write(out);
  }

  Result<AddFile> Finish(OpenFile& f) {
    SILT_RETURN_NOT_OK(f.writer->Close());
    std::vector<LeafStats> leaves;
    const auto& fs = f.writer->file_schema();
    for (int i = 0; i < fs.num_leaves(); ++i) {
      const auto& st = f.writer->leaf_statistics()[static_cast<size_t>(i)];
      LeafStats ls;
      ls.path = fs.leaf(i).path;
      if (st.min) ls.min = *st.min;
      if (st.max) ls.max = *st.max;
      ls.null_count = st.null_count;
      if (std::find(plan_.part_names.begin(), plan_.part_names.end(), ls.path[0]) !=
          plan_.part_names.end())
        continue;  // a materialized partition column
      leaves.push_back(std::move(ls));
    }
    AddFile add;
    add.path = ToDeltaPath(f.key);
    add.partition_values = f.partition_values;
    add.size = f.writer->bytes_written();
    add.modification_time = options_.clock->NowMillis();
    add.data_change = true;
    add.stats = SerializeStats(plan_.stats_schema, static_cast<int64_t>(f.rows), leaves,
                               plan_.stats_options);
    return add;
  }

  ObjectStore& store_;
  const WritePlan& plan_;
  const DataWriteOptions& options_;
  const size_t max_rows_;
  std::map<PartitionKey, OpenFile> open_;
  std::map<PartitionKey, int64_t> remaining_;
  std::vector<std::string> started_;
  std::vector<AddFile> adds_;
  int file_index_ = 0;
};

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
void SetWriteMetrics(Transaction* txn, const std::vector<DataChunk>& rows,
                     const std::vector<AddFile>& adds) {
  int64_t n = 0, bytes = 0;
  for (const auto& c : rows) n += static_cast<int64_t>(c.size());
  for (const auto& a : adds) bytes += a.size;
  txn->SetMetric("numFiles", static_cast<int64_t>(adds.size()));
  txn->SetMetric("numOutputRows", n);
  txn->SetMetric("numOutputBytes", bytes);
}

}  // namespace

Result<std::vector<AddFile>> WriteDataFiles(ObjectStore& store, const Metadata& metadata,
                                            const Schema& schema,
                                            const std::vector<DataChunk>& chunks,
                                            const DataWriteOptions& options) {
  SILT_ASSIGN_OR_RETURN(WritePlan plan, MakeWritePlan(metadata, schema, options));
  // All rows are checked before the first file is written, so a violation leaves no orphans.
  for (const DataChunk& chunk : chunks) SILT_RETURN_NOT_OK(CheckRows(plan, chunk, options));
  // Rows are grouped by partition values across all chunks, and each partition is written in
  // turn, so a file holds up to max_rows_per_file rows however the input was chunked.
  std::map<PartitionKey, std::vector<ChunkRows>> groups;
  for (const DataChunk& chunk : chunks)
    for (auto& [key, rows] : SplitByPartition(plan, chunk)) groups[key].push_back(std::move(rows));
  FileCutter files(store, plan, options);
  for (const auto& [key, pieces] : groups) {
    int64_t rows = 0;
    for (const ChunkRows& piece : pieces) rows += static_cast<int64_t>(piece.size());
    files.ExpectRows(key, rows);
    for (const ChunkRows& piece : pieces) SILT_RETURN_NOT_OK(files.Append(key, piece));
    SILT_RETURN_NOT_OK(files.Close(key));
  }
  return files.TakeAdds();
}

struct DataFileWriter::Impl {
  Impl(ObjectStore& store, WritePlan p, DataWriteOptions o)
      : plan(std::move(p)), options(std::move(o)), files(store, plan, options) {}
  WritePlan plan;
  DataWriteOptions options;
  FileCutter files;
  bool failed = false;
};

Result<std::unique_ptr<DataFileWriter>> DataFileWriter::Make(ObjectStore& store,
                                                             const Metadata& metadata,
                                                             const Schema& schema,
                                                             DataWriteOptions options) {
  SILT_ASSIGN_OR_RETURN(WritePlan plan, MakeWritePlan(metadata, schema, options));
  std::unique_ptr<DataFileWriter> w(new DataFileWriter());
  w->impl_ = std::make_unique<Impl>(store, std::move(plan), std::move(options));
  return w;
}

DataFileWriter::~DataFileWriter() = default;

Status DataFileWriter::Write(const DataChunk& chunk) {
  if (impl_->failed) return Status::InvalidArgument("write after a failed write");
  Status st = CheckRows(impl_->plan, chunk, impl_->options);
  if (st.ok()) {
    for (const auto& [key, rows] : SplitByPartition(impl_->plan, chunk)) {
      st = impl_->files.Append(key, rows);
      if (!st.ok()) break;
    }
  }
  if (!st.ok()) Abort();
  return st;
}

Result<std::vector<AddFile>> DataFileWriter::Finish() {
  if (impl_->failed) return Status::InvalidArgument("finish after a failed write");
  Status st = impl_->files.CloseAll();
  if (!st.ok()) {
    Abort();
    return st;
  }
  return impl_->files.TakeAdds();
}

void DataFileWriter::Abort() {
  impl_->failed = true;
  impl_->files.DeleteStarted();
}

Protocol ProtocolForNewTable(const Schema& schema, const StringMap& properties) {
  std::vector<std::string> reader, writer;
  bool ntz = false;
  for (const auto& f : schema) ntz |= HasType(f.type, TypeId::kTimestampNtz);
  if (ntz) reader.push_back("timestampNtz"), writer.push_back("timestampNtz");
  if (GetBoolProperty(properties, "delta.enableDeletionVectors", false).ValueOr(false))
    reader.push_back("deletionVectors"), writer.push_back("deletionVectors");
  if (GetBoolProperty(properties, "delta.enableChangeDataFeed", false).ValueOr(false))
    writer.push_back("changeDataFeed");
  if (GetBoolProperty(properties, "delta.enableInCommitTimestamps", false).ValueOr(false))
    writer.push_back("inCommitTimestamp");
  for (const auto& [k, v] : properties.entries())
    if (k.rfind("delta.constraints.", 0) == 0 &&
        std::find(writer.begin(), writer.end(), "checkConstraints") == writer.end())
      writer.push_back("checkConstraints");
  // V2 checkpoints (Delta's CheckpointPolicy.V2 needs the v2Checkpoint reader-writer feature).
  if (const std::string* policy = properties.Find("delta.checkpointPolicy");
      policy && *policy == "v2")
    reader.push_back("v2Checkpoint"), writer.push_back("v2Checkpoint");
  // Row tracking keeps its high-water mark in a domain, so it needs domainMetadata too.
  if (GetBoolProperty(properties, "delta.enableRowTracking", false).ValueOr(false))
    writer.insert(writer.end(), {"domainMetadata", "rowTracking"});
  // Generated, identity and default columns (column metadata).
  bool generated = false, identity = false, defaults = false;
  for (const auto& f : schema) {
    generated |= f.metadata_json.find("\"delta.generationExpression\"") != std::string::npos;
    identity |= f.metadata_json.find("\"delta.identity.start\"") != std::string::npos;
    defaults |= f.metadata_json.find("\"CURRENT_DEFAULT\"") != std::string::npos;
  }
  if (generated) writer.push_back("generatedColumns");
  if (identity) writer.push_back("identityColumns");
  if (defaults) writer.push_back("allowColumnDefaults");
  // Features asked for by name (delta.feature.<name> = supported, checked and spelled as Delta
  // does by ValidateTableProperties), e.g. allowColumnDefaults for a later SET DEFAULT.
  for (const auto& [k, v] : properties.entries()) {
    if (k.rfind("delta.feature.", 0) != 0) continue;
    std::string feature = k.substr(std::string_view("delta.feature.").size());
    writer.push_back(feature);
    if (IsReaderWriterFeature(feature)) reader.push_back(feature);
  }
  const std::string* cm_mode = properties.Find("delta.columnMapping.mode");
  bool column_mapping = cm_mode && ParseColumnMappingMode(*cm_mode).ValueOr(
                                       ColumnMappingMode::kNone) != ColumnMappingMode::kNone;
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
  // A feature implied by a property and also asked for by name is listed once.
  auto unique = [](const std::vector<std::string>& v) {
    std::vector<std::string> out;
    for (const std::string& f : v)
      if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
    return out;
  };
  p.min_reader_version = reader.empty() ? 1 : 3;
  p.min_writer_version = 7;
  if (!reader.empty()) p.reader_features = unique(reader);
  p.writer_features = unique(writer);
  return p;
}

namespace {

// CreateTable's and CreateTableFrom's commit: `write_rows` writes the rows (if any) with the new
// table's metadata and schema (physical names under column mapping), adds their files to the
// transaction and sets its metrics; `ctas` names the operation.
Result<CommitResult> CreateNewTable(
    std::shared_ptr<ObjectStore> store, const Schema& schema, CreateTableOptions options, bool ctas,
    const std::function<Status(const Metadata&, const Schema&, Transaction*)>& write_rows) {
  if (schema.empty())
    return Status::InvalidArgument("a table needs at least one column", errc::kDeltaEmptyData);
  for (const auto& p : options.partition_columns)
    if (FindField(schema, p) < 0)
      return Status::InvalidArgument("partition column " + p + " is not in the schema",
                                     errc::kDeltaPartitionColumnNotFound);
  const std::string* cm_mode = options.properties.Find("delta.columnMapping.mode");
  SILT_ASSIGN_OR_RETURN(
      ColumnMappingMode cm,
      ParseColumnMappingMode(cm_mode ? std::optional<std::string>(*cm_mode) : std::nullopt));
  Schema table_schema = schema;
  if (cm != ColumnMappingMode::kNone) {
    int64_t max_id = 0;
    if (const std::string* m = options.properties.Find("delta.columnMapping.maxColumnId"))
      max_id = std::atoll(m->c_str());
    table_schema = AssignColumnMapping(schema, &max_id);
    options.properties.Set("delta.columnMapping.maxColumnId", std::to_string(max_id));
  }
  // IcebergCompatV2: the array/map nested ids, before the rows are written with them.
  AssignIcebergNestedIds(&table_schema, &options.properties);
  Metadata md;
  md.id = Uuid::Random().ToString();
  md.name = options.name;
  md.description = options.description;
  md.schema_string = SerializeSchema(table_schema);
  md.partition_columns = options.partition_columns;
  md.configuration = options.properties;
  // Row tracking (PROTOCOL.md "Writer Requirements for Row Tracking"): enabling it needs the
  // materialized Row ID / Row Commit Version column names in the configuration, unique in the
  // schema (Spark's MaterializedRowId / MaterializedRowCommitVersion prefixes plus a UUID).
  if (GetBoolProperty(md.configuration, "delta.enableRowTracking", false).ValueOr(false)) {
    for (const auto& [key, prefix] :
         {std::pair<const char*, const char*>{"delta.rowTracking.materializedRowIdColumnName",
                                              "_row-id-col-"},
          {"delta.rowTracking.materializedRowCommitVersionColumnName",
           "_row-commit-version-col-"}}) {
      if (!md.configuration.Find(key))
        md.configuration.Set(key, prefix + Uuid::Random().ToString());
    }
  }
  if (!options.txn.clock) return Status::Internal("TransactionOptions.clock is not set");
  md.created_time = options.txn.clock->NowMillis();
  Transaction txn(store, nullptr, options.txn);
  Protocol protocol = ProtocolForNewTable(table_schema, options.properties);
  std::vector<std::string> clustering;
  if (options.clustering_columns) {
    if (!options.partition_columns.empty()) {
      return Status::InvalidArgument(
          "Clustering and partitioning cannot both be specified. Please remove partitionedBy if "
          "you want to create a Delta table with clustering.",
          errc::kDeltaClusterByWithPartitionedBy);
    }
    SILT_ASSIGN_OR_RETURN(clustering, ResolveClusteringColumns(table_schema, options.properties,
                                                               *options.clustering_columns));
    protocol = WithFeatures(protocol, {"domainMetadata", kClusteringFeature});
    txn.SetDomain(ClusteringDomainFor(table_schema, cm, clustering));
  }
  txn.UpdateProtocol(protocol);
  txn.UpdateMetadata(md);
  StringMap params;
  params.Set("partitionBy", PartitionByParam(options.partition_columns));
  if (options.clustering_columns)
    params.Set("clusterBy", JsonStr(ClusteringColumnsJson(clustering)));
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
  txn.SetOperation(ctas ? "CREATE TABLE AS SELECT" : "CREATE TABLE", params);
  SILT_RETURN_NOT_OK(write_rows(md, table_schema, &txn));
  if (options.final_metadata) {
    SILT_ASSIGN_OR_RETURN(Metadata final_md, options.final_metadata(md));
    txn.UpdateMetadata(std::move(final_md));
  }
  return txn.Commit();
}

}  // namespace

Result<CommitResult> CreateTable(std::shared_ptr<ObjectStore> store, const Schema& schema,
                                 const std::vector<DataChunk>& rows, CreateTableOptions options) {
  const DataWriteOptions write = options.write;
  ObjectStore& out = *store;
  return CreateNewTable(
      std::move(store), schema, std::move(options), !rows.empty(),
      [&](const Metadata& md, const Schema& table_schema, Transaction* txn) -> Status {
        if (rows.empty()) return Status::OK();
        SILT_ASSIGN_OR_RETURN(auto adds, WriteDataFiles(out, md, table_schema, rows, write));
        SetWriteMetrics(txn, rows, adds);
        for (auto& a : adds) txn->Add(std::move(a));
        return Status::OK();
      });
}

Result<WrittenFiles> WriteDataFilesFrom(ObjectStore& store, const Metadata& metadata,
                                        const Schema& schema, const RowSource& rows,
                                        const DataWriteOptions& options) {
  DataWriteOptions unsized = options;
  unsized.parquet.expected_rows = 0;  // how many rows come is not known: buffers grow as they come
  SILT_ASSIGN_OR_RETURN(std::unique_ptr<DataFileWriter> writer,
                        DataFileWriter::Make(store, metadata, schema, std::move(unsized)));
  WrittenFiles out;
  Status st = rows([&](const DataChunk& c) -> Status {
    out.rows += static_cast<int64_t>(c.size());
    return writer->Write(c);
  });
  if (!st.ok()) {
    writer->Abort();
    return st;
  }
  SILT_ASSIGN_OR_RETURN(out.adds, writer->Finish());
  return out;
}

Result<CommitResult> CreateTableFrom(std::shared_ptr<ObjectStore> store, const Schema& schema,
                                     const RowSource& rows, CreateTableOptions options,
                                     const WriteFiles& write_files) {
  const DataWriteOptions write = options.write;
  ObjectStore& out = *store;
  return CreateNewTable(
      std::move(store), schema, std::move(options), /*ctas=*/true,
      [&](const Metadata& md, const Schema& table_schema, Transaction* txn) -> Status {
        SILT_ASSIGN_OR_RETURN(WrittenFiles files,
                              write_files ? write_files(out, md, table_schema, rows, write)
                                          : WriteDataFilesFrom(out, md, table_schema, rows, write));
        int64_t bytes = 0;
        for (const auto& a : files.adds) bytes += a.size;
        txn->SetMetric("numFiles", static_cast<int64_t>(files.adds.size()));
        txn->SetMetric("numOutputRows", files.rows);
        txn->SetMetric("numOutputBytes", bytes);
        for (auto& a : files.adds) txn->Add(std::move(a));
        return Status::OK();
      });
}

Result<CommitResult> AppendRows(std::shared_ptr<ObjectStore> store,
                                const std::vector<DataChunk>& rows, DataWriteOptions write,
                                TransactionOptions txn_options) {
  SILT_ASSIGN_OR_RETURN(auto snap, Snapshot::Load(store, std::nullopt, {.load_files = false}));
  // Identity values are handed out (and their high-water mark kept) by the SQL layer's INSERT
  // and MERGE (commands/column_values.h); rows appended here would bypass that.
  for (const Field& f : snap->schema()) {
    if (f.metadata_json.find("\"delta.identity.start\"") != std::string::npos) {
      return Status::Unsupported("table " + store->root() + " has the IDENTITY column " + f.name +
                                     ": append rows to it with SQL INSERT",
                                 errc::kDeltaUnsupportedFeaturesForWrite);
    }
  }
  SILT_ASSIGN_OR_RETURN(auto adds,
                        WriteDataFiles(*store, snap->metadata(), snap->schema(), rows, write));
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
