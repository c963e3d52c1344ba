#include "ops/convert_to_delta.h"

#include <algorithm>

#include "common/ascii.h"
#include "common/error_classes.h"
#include "delta/partition_values.h"
#include "delta/schema_json.h"
#include "delta/stats_json.h"
#include "delta/table_properties.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "delta/z85.h"
#include "exec/cast.h"
#include "io/path.h"
#include "ops/ops.h"
#include "parquet/reader.h"

namespace silt::ops {

namespace {

bool IsHiddenName(std::string_view name) {
  return !name.empty() && (name[0] == '_' || name[0] == '.');
}

std::vector<std::string> SplitKey(const std::string& key) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= key.size()) {
    size_t slash = key.find('/', start);
    if (slash == std::string::npos) slash = key.size();
    out.push_back(key.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

std::string JsonStr(std::string_view v) {
  std::string out;
  AppendJsonString(&out, v);
  return out;
}

std::string FormatColumnList(const std::vector<std::string>& cols) {
  std::string out = "[";
  for (size_t i = 0; i < cols.size(); ++i) out += (i ? ", `" : "`") + cols[i] + "`";
  return out + "]";
}

// Spark's DataType.toString, for DELTA_FAILED_CAST_PARTITION_VALUE.
std::string SparkTypeName(const DataType& t) {
  switch (t.id()) {
    case TypeId::kBoolean:
      return "BooleanType";
    case TypeId::kInt8:
      return "ByteType";
    case TypeId::kInt16:
      return "ShortType";
    case TypeId::kInt32:
      return "IntegerType";
    case TypeId::kInt64:
      return "LongType";
    case TypeId::kFloat:
      return "FloatType";
    case TypeId::kDouble:
      return "DoubleType";
    case TypeId::kDecimal:
      return "DecimalType(" + std::to_string(t.precision()) + "," + std::to_string(t.scale()) + ")";
    case TypeId::kString:
      return "StringType";
    case TypeId::kBinary:
      return "BinaryType";
    case TypeId::kDate:
      return "DateType";
    case TypeId::kTimestamp:
      return "TimestampType";
    case TypeId::kTimestampNtz:
      return "TimestampNTZType";
    default:
      return t.ToString();
  }
}

bool NameEq(std::string_view a, std::string_view b) { return EqualsIgnoreCase(a, b); }

// `t` with every field, element and value nullable (Spark's asNullable).
TypePtr AsNullable(const TypePtr& t) {
  switch (t->id()) {
    case TypeId::kStruct: {
      std::vector<Field> fields;
      for (const Field& f : t->fields()) fields.push_back({f.name, AsNullable(f.type), true, "{}"});
      return DataType::Struct(std::move(fields));
    }
    case TypeId::kList:
      return DataType::List(AsNullable(t->element_type()), true);
    case TypeId::kMap:
      return DataType::Map(AsNullable(t->key_type()), AsNullable(t->value_type()), true);
    default:
      return t;
  }
}

bool IsIntFamily(TypeId id) {
  return id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32;
}
int IntRank(TypeId id) { return id == TypeId::kInt8 ? 0 : id == TypeId::kInt16 ? 1 : 2; }

Result<Schema> MergeFields(const Schema& current, const Schema& update);

// SchemaMergingUtils.mergeSchemas for one pair of types.
Result<TypePtr> MergeTypes(const TypePtr& current, const TypePtr& update) {
  if (current->id() == TypeId::kNull) return update;
  if (update->id() == TypeId::kNull) return current;
  if (current->id() == TypeId::kStruct && update->id() == TypeId::kStruct) {
    SILT_ASSIGN_OR_RETURN(Schema merged, MergeFields(current->fields(), update->fields()));
    return DataType::Struct(std::move(merged));
  }
  if (current->id() == TypeId::kList && update->id() == TypeId::kList) {
    SILT_ASSIGN_OR_RETURN(TypePtr e, MergeTypes(current->element_type(), update->element_type()));
    return DataType::List(e, true);
  }
  if (current->id() == TypeId::kMap && update->id() == TypeId::kMap) {
    SILT_ASSIGN_OR_RETURN(TypePtr k, MergeTypes(current->key_type(), update->key_type()));
    SILT_ASSIGN_OR_RETURN(TypePtr v, MergeTypes(current->value_type(), update->value_type()));
    return DataType::Map(k, v, true);
  }
  if (current->Equals(*update)) return current;
  // Parquet stores byte, short and int all as INT32, so Spark lets them widen into each other.
  if (IsIntFamily(current->id()) && IsIntFamily(update->id())) {
    return IntRank(current->id()) >= IntRank(update->id()) ? current : update;
  }
  return Status::InvalidArgument("Failed to merge incompatible data types " + current->ToString() +
                                     " and " + update->ToString(),
                                 errc::kDeltaMergeIncompatibleDatatype);
}

Result<Schema> MergeFields(const Schema& current, const Schema& update) {
  Schema out = current;
  for (const Field& f : update) {
    int i = -1;
    for (size_t k = 0; k < out.size(); ++k) {
      if (NameEq(out[k].name, f.name)) i = static_cast<int>(k);
    }
    if (i < 0) {
      out.push_back({f.name, f.type, true, "{}"});
      continue;
    }
    Result<TypePtr> merged = MergeTypes(out[static_cast<size_t>(i)].type, f.type);
    if (!merged.ok()) {
      return Status::InvalidArgument("Failed to merge fields '" + out[static_cast<size_t>(i)].name +
                                         "' and '" + f.name + "'. " +
                                         std::string(merged.status().message()),
                                     errc::kDeltaFailedToMergeFields);
    }
    out[static_cast<size_t>(i)].type = *merged;
  }
  return out;
}

std::string SchemaTreeString(const Schema& schema) {
  std::string out = "root\n";
  for (const Field& f : schema)
    out += " |-- " + f.name + ": " + f.type->ToString() + " (nullable = true)\n";
  return out;
}

// The leaves of `node` reachable through structs only (array/map columns get no min/max).
void StructLeaves(const parquet::ColumnNode& node, std::vector<const parquet::ColumnNode*>* out) {
  if (node.kind == parquet::ColumnNode::kLeaf) {
    out->push_back(&node);
  } else if (node.kind == parquet::ColumnNode::kStruct) {
    for (const auto& c : node.children) StructLeaves(c, out);
  }
}

// One data file to convert.
struct SourceFile {
  ObjectMeta meta;
  delta::PartitionValues partition_values;
  std::unique_ptr<parquet::ParquetFile> footer;
};

// Spark's PartitionUtils.parsePartition (typeInference off) over the directories of `key`:
// the `col=value` directories walked up from the file's, stopping at the first other directory
// once some were found. Returns (column, value) pairs outermost first.
Result<std::vector<std::pair<std::string, std::optional<std::string>>>> ParsePartitionDirs(
    const std::string& key, const std::string& uri) {
  std::vector<std::string> parts = SplitKey(key);
  parts.pop_back();  // the file name
  std::vector<std::pair<std::string, std::optional<std::string>>> cols;
  for (size_t i = parts.size(); i-- > 0;) {
    const std::string& dir = parts[i];
    size_t eq = dir.find('=');
    if (eq == std::string::npos) {
      if (!cols.empty()) break;
      continue;
    }
    std::string name = UnescapePathName(dir.substr(0, eq));
    if (name.empty()) {
      return Status::InvalidArgument("Empty partition column name in '" + uri + "'",
                                     errc::kDeltaInvalidPartitionColumn);
    }
    cols.emplace_back(std::move(name),
                      UnescapePartitionValue(std::string_view(dir).substr(eq + 1)));
  }
  std::reverse(cols.begin(), cols.end());
  return cols;
}

}  // namespace

Result<ParquetDirectory> PlanParquetDirectory(ObjectStore& store, const ConvertOptions& options) {
  const std::string& path = options.display_path.empty() ? store.root() : options.display_path;
  std::string root = store.root();
  if (!root.empty() && root.back() != '/') root += "/";
  bool root_exists = false;
  std::vector<SourceFile> files;
  SILT_RETURN_NOT_OK(store.ListRecursive("", [&](const ObjectMeta& m) -> Status {
    root_exists = true;
    std::vector<std::string> parts = SplitKey(m.key);
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      if (IsHiddenName(parts[i]) && parts[i].find('=') == std::string::npos) return Status::OK();
    }
    if (m.is_dir) return Status::OK();
    if (IsHiddenName(parts.back())) return Status::OK();
    SourceFile f;
    f.meta = m;
    files.push_back(std::move(f));
    return Status::OK();
  }));
  if (!root_exists) {
    // A missing directory lists as empty; tell it apart from an empty one.
    Result<bool> dir_exists = store.DirExists("");
    if (!dir_exists.ok() || !*dir_exists) {
      return Status::NotFound(root + " doesn't exist", kErrorFileNotFound);
    }
  }
  if (files.empty()) {
    return Status::NotFound("No file found in the directory: " + path + ".",
                            errc::kDeltaEmptyDirectory);
  }
  std::sort(files.begin(), files.end(),
            [](const SourceFile& a, const SourceFile& b) { return a.meta.key < b.meta.key; });

  // Partition values of every file against the declared partition schema.
  std::vector<std::string> expected;
  for (const auto& c : options.partition_columns) expected.push_back(c.name);
  for (SourceFile& f : files) {
    const std::string uri = root + f.meta.key;
    SILT_ASSIGN_OR_RETURN(auto parsed, ParsePartitionDirs(f.meta.key, uri));
    if (parsed.size() != expected.size()) {
      std::vector<std::string> names;
      for (const auto& [n, v] : parsed) names.push_back(n);
      return Status::InvalidArgument("Expecting " + std::to_string(expected.size()) +
                                         " partition column(s): " + FormatColumnList(expected) +
                                         ", but found " + std::to_string(names.size()) +
                                         " partition column(s): " + FormatColumnList(names) +
                                         " from parsing the file name: " + uri,
                                     errc::kDeltaUnexpectedNumPartitionColumnsFromFileName);
    }
    if (!options.ignore_partition_cast_failure) {
      for (size_t i = 0; i < parsed.size(); ++i) {
        if (!parsed[i].second) continue;
        const TypePtr& type = options.partition_columns[i].type;
        Result<Value> v = exec::CastValue(Value::String(*parsed[i].second), type, false);
        if (!v.ok() || v->is_null()) {
          return Status::InvalidArgument("Failed to cast partition value `" + *parsed[i].second +
                                             "` to " + SparkTypeName(*type),
                                         errc::kDeltaFailedCastPartitionValue);
        }
      }
    }
    for (size_t i = 0; i < parsed.size(); ++i) {
      if (!NameEq(expected[i], parsed[i].first)) {
        return Status::InvalidArgument("Expecting partition column `" + expected[i] +
                                           "`, but found partition column `" + parsed[i].first +
                                           "` from parsing the file name: " + uri,
                                       errc::kDeltaUnexpectedPartitionColumnFromFileName);
      }
      f.partition_values.Set(expected[i], parsed[i].second);
    }
  }

  // Footers and the merged schema.
  Schema data_schema;
  for (SourceFile& f : files) {
    SILT_ASSIGN_OR_RETURN(std::shared_ptr<RandomAccessFile> handle, store.OpenRead(f.meta.key));
    Result<std::unique_ptr<parquet::ParquetFile>> pf = parquet::ParquetFile::Open(handle);
    if (!pf.ok()) {
      return Status(pf.status().code(), std::string(pf.status().error_class()),
                    "Failed to read the Parquet footer of " + root + f.meta.key + ": " +
                        std::string(pf.status().message()));
    }
    f.footer = std::move(*pf);
    Schema file_schema;
    for (const Field& fld : f.footer->schema().schema())
      file_schema.push_back({fld.name, AsNullable(fld.type), true, "{}"});
    Result<Schema> merged = MergeFields(data_schema, file_schema);
    if (!merged.ok()) {
      return Status::InvalidArgument("Failed to merge schema of file " + root + f.meta.key + ":\n" +
                                         SchemaTreeString(file_schema) + "\n" +
                                         std::string(merged.status().message()),
                                     errc::kDeltaFailedMergeSchemaFile);
    }
    data_schema = std::move(*merged);
  }
  // PartitioningUtils.mergeDataAndPartitionSchema: partition columns replace same-named data
  // columns and come last.
  Schema schema;
  for (const Field& fld : data_schema) {
    bool is_partition = false;
    for (const auto& p : expected) is_partition = is_partition || NameEq(p, fld.name);
    if (!is_partition) schema.push_back(fld);
  }
  for (const auto& c : options.partition_columns) schema.push_back({c.name, c.type, true, "{}"});
  if (schema.empty()) {
    return Status::InvalidArgument("Failed to infer schema from the given list of files.",
                                   errc::kDeltaFailedInferSchema);
  }

  ParquetDirectory out;
  out.schema = std::move(schema);
  out.partition_columns = std::move(expected);
  const bool collect_stats = options.collect_stats;
  for (SourceFile& f : files) {
    delta::AddFile add;
    add.path = ToDeltaPath(f.meta.key);
    add.partition_values = f.partition_values;
    add.size = f.meta.size;
    add.modification_time = f.meta.modification_time_ms;
    add.data_change = true;
    if (collect_stats) {
      const parquet::FileSchema& fs = f.footer->schema();
      std::vector<const parquet::ColumnNode*> leaves;
      for (const auto& c : fs.columns()) StructLeaves(c, &leaves);
      std::vector<delta::LeafStats> stats;
      for (const parquet::ColumnNode* leaf : leaves) {
        delta::LeafStats ls;
        ls.path = leaf->path;
        bool have_min = true, have_max = true, have_nulls = true;
        std::optional<Value> mn, mx;
        int64_t nulls = 0;
        for (int rg = 0; rg < f.footer->num_row_groups(); ++rg) {
          parquet::ColumnStatistics st = f.footer->GetStatistics(rg, leaf->leaf_index);
          if (st.null_count) {
            nulls += *st.null_count;
          } else {
            have_nulls = false;
          }
          const int64_t rg_rows = f.footer->metadata().row_groups[static_cast<size_t>(rg)].num_rows;
          const bool all_null = st.null_count && *st.null_count == rg_rows;
          if (all_null) continue;  // a row group of nulls bounds nothing
          if (!st.min || !st.min_exact) have_min = false;
          if (!st.max || !st.max_exact) have_max = false;
          if (have_min && (!mn || parquet::CompareValues(*st.min, *mn).value_or(0) < 0))
            mn = st.min;
          if (have_max && (!mx || parquet::CompareValues(*st.max, *mx).value_or(0) > 0))
            mx = st.max;
        }
        if (have_min && mn) ls.min = *mn;
        if (have_max && mx) ls.max = *mx;
        if (have_nulls) ls.null_count = nulls;
        stats.push_back(std::move(ls));
      }
      Schema file_schema;
      for (const Field& fld : fs.schema()) file_schema.push_back({fld.name, fld.type, true, "{}"});
      add.stats = delta::SerializeStats(file_schema, f.footer->num_rows(), stats);
    }
    out.files.push_back(std::move(add));
  }
  return out;
}

Result<ConvertResult> ConvertToDelta(std::shared_ptr<ObjectStore> store,
                                     const ConvertOptions& options) {
  SILT_RETURN_NOT_OK(RequireClock(options.clock, "ConvertOptions"));
  // Idempotent: a directory that already has a Delta log is left alone.
  Result<std::shared_ptr<const delta::Snapshot>> existing =
      delta::Snapshot::Load(store, std::nullopt, {.load_files = false});
  if (existing.ok()) return ConvertResult{};
  if (existing.status().code() != StatusCode::kNotFound) return existing.status();
  SILT_ASSIGN_OR_RETURN(ParquetDirectory dir, PlanParquetDirectory(*store, options));
  const std::vector<std::string>& expected = dir.partition_columns;
  const size_t num_files = dir.files.size();

  delta::StringMap props;
  if (options.enable_deletion_vectors) {
    props.Set("delta.enableDeletionVectors", "true");
  }
  delta::Metadata md;
  md.id = delta::Uuid::Random().ToString();
  md.schema_string = delta::SerializeSchema(dir.schema);
  md.partition_columns = expected;
  md.configuration = props;
  md.created_time = options.clock->NowMillis();

  delta::TransactionOptions topts = options.txn;
  topts.clock = options.clock;
  delta::Transaction txn(store, nullptr, topts);
  txn.UpdateProtocol(delta::ProtocolForNewTable(dir.schema, props));
  txn.UpdateMetadata(md);
  for (delta::AddFile& add : dir.files) txn.Add(std::move(add));
  delta::StringMap params;
  params.Set("numFiles", std::to_string(num_files));
  std::string cols = "[";
  for (size_t i = 0; i < expected.size(); ++i) {
    if (i) cols += ",";
    AppendJsonString(&cols, expected[i]);
  }
  params.Set("partitionedBy", JsonStr(cols + "]"));
  params.Set("collectStats", options.collect_stats ? "true" : "false");
  params.Set("sourceFormat", JsonStr("parquet"));
  txn.SetOperation("CONVERT", params);
  txn.SetMetric("numConvertedFiles", static_cast<int64_t>(num_files));
  SILT_ASSIGN_OR_RETURN(delta::CommitResult committed, txn.Commit());
  ConvertResult result;
  result.version = committed.version;
  result.num_converted_files = static_cast<int64_t>(num_files);
  return result;
}

}  // namespace silt::ops
