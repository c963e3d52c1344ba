#include "planner/file_source.h"

#include <algorithm>

#include "common/error_classes.h"
#include "delta/actions.h"
#include "delta/schema_json.h"
#include "delta/z85.h"
#include "io/memory_object_store.h"
#include "io/object_store_factory.h"
#include "io/path.h"

namespace silt::planner {

namespace {

constexpr char kHiveDefaultPartition[] = "__HIVE_DEFAULT_PARTITION__";

// Hadoop's hidden-path filter (Spark's InMemoryFileIndex): a component starting with '_' or '.'.
bool HiddenKey(std::string_view key) {
  size_t start = 0;
  while (start <= key.size()) {
    size_t end = key.find('/', start);
    if (end == std::string_view::npos) end = key.size();
    if (end > start && (key[start] == '_' || key[start] == '.')) return true;
    start = end + 1;
  }
  return false;
}

std::string FileExtension(const std::string& format) { return "." + format; }

}  // namespace

bool IsFileSourceFormat(std::string_view format) { return format == "parquet" || format == "json"; }

Result<std::shared_ptr<const delta::Snapshot>> FileSourceSnapshot(
    const TableEntry& entry, const std::shared_ptr<ObjectStore>& store,
    const std::shared_ptr<Clock>& clock) {
  std::vector<delta::Action> actions;
  delta::Protocol protocol;
  actions.emplace_back(protocol);
  delta::Metadata md;
  md.id = "file-source:" + entry.schema + "." + entry.name;
  md.format.provider = entry.format;
  md.schema_string = entry.view_text;
  md.partition_columns = entry.view_columns;
  md.created_time = 0;
  actions.emplace_back(md);
  std::vector<std::string> lower_parts;
  for (const auto& p : entry.view_columns) lower_parts.push_back(LowerName(p));
  std::string listing_error;
  SILT_RETURN_NOT_OK(store->ListRecursive("", [&](const ObjectMeta& m) -> Status {
    if (m.is_dir || HiddenKey(m.key)) return Status::OK();
    delta::AddFile add;
    // Partition values from the `col=value` directories (Spark's PartitioningUtils): every
    // partition column must appear, else the file is not part of the table.
    std::string_view key = m.key;
    size_t pos = 0;
    while (true) {
      size_t slash = key.find('/', pos);
      if (slash == std::string_view::npos) break;
      std::string_view dir = key.substr(pos, slash - pos);
      size_t eq = dir.find('=');
      if (eq != std::string_view::npos) {
        std::string name = UnescapePathName(dir.substr(0, eq));
        std::string value = UnescapePathName(dir.substr(eq + 1));
        for (const auto& p : entry.view_columns) {
          if (LowerName(p) != LowerName(name)) continue;
          add.partition_values.Set(
              p, value == kHiveDefaultPartition ? std::nullopt : std::optional<std::string>(value));
        }
      }
      pos = slash + 1;
    }
    for (const auto& p : entry.view_columns)
      if (!add.partition_values.Find(p)) return Status::OK();
    add.path = EncodePathUri(ChildLocation(entry.location, m.key));
    add.size = m.size;
    add.modification_time = m.modification_time_ms;
    actions.emplace_back(std::move(add));
    return Status::OK();
  }));
  return SnapshotOfActions(actions, clock);
}

Result<std::shared_ptr<const delta::Snapshot>> SnapshotOfActions(
    const std::vector<delta::Action>& actions, const std::shared_ptr<Clock>& clock) {
  auto log = std::make_shared<InMemoryObjectStore>(clock);
  SILT_RETURN_NOT_OK(
      log->Put("_delta_log/00000000000000000000.json", delta::SerializeCommit(actions)));
  return delta::Snapshot::Load(log, std::nullopt, {.load_files = true});
}

Result<std::vector<DataChunk>> ReadJsonRows(const delta::Snapshot& snapshot,
                                            const exec::BindContext& bind,
                                            const exec::EvalContext& eval) {
  const Schema& schema = snapshot.schema();
  if (!snapshot.partition_columns().empty()) {
    return Status::NotImplemented("partitioned JSON tables are not supported",
                                  errc::kSiltUnsupportedDataSource);
  }
  // from_json(value, <the table's schema as JSON>) over the lines of each file.
  exec::ExprPtr line = exec::MakeColumn(0, DataType::String(), "value");
  SILT_ASSIGN_OR_RETURN(
      exec::ExprPtr parse,
      exec::BindScalarFunction(
          "from_json", {line, exec::MakeConstant(Value::String(delta::SerializeSchema(schema)))},
          bind));
  std::vector<DataChunk> out;
  constexpr size_t kRowsPerChunk = 2048;
  Vector lines(DataType::String());
  auto flush = [&]() -> Status {
    if (lines.size() == 0) return Status::OK();
    DataChunk in;
    in.columns.push_back(std::move(lines));
    lines = Vector(DataType::String());
    Vector parsed(parse->type);
    SILT_RETURN_NOT_OK(exec::Evaluate(*parse, in, eval, &parsed));
    DataChunk c;
    for (size_t f = 0; f < schema.size(); ++f) {
      if (!parsed.may_have_nulls()) {
        c.columns.push_back(std::move(parsed.child(f)));
        continue;
      }
      // A line that is not a JSON object (e.g. `null`): every column NULL.
      Vector v(schema[f].type);
      for (size_t r = 0; r < parsed.size(); ++r) {
        if (parsed.IsNull(r)) {
          v.AppendNull();
        } else {
          SILT_RETURN_NOT_OK(v.AppendValue(parsed.child(f).GetValue(r)));
        }
      }
      c.columns.push_back(std::move(v));
    }
    c.num_rows_without_columns = in.size();
    out.push_back(std::move(c));
    return Status::OK();
  };
  for (const delta::AddFile& f : snapshot.files()) {
    SILT_ASSIGN_OR_RETURN(DeltaPath p, ParseDeltaPath(f.path));
    SILT_ASSIGN_OR_RETURN(std::shared_ptr<RandomAccessFile> file, OpenLocationForRead(p.path));
    std::string bytes(static_cast<size_t>(file->size()), '\0');
    SILT_RETURN_NOT_OK(file->ReadAt(0, file->size(), reinterpret_cast<uint8_t*>(bytes.data())));
    size_t pos = 0;
    while (pos < bytes.size()) {
      size_t end = bytes.find('\n', pos);
      if (end == std::string::npos) end = bytes.size();
      std::string_view l(bytes.data() + pos, end - pos);
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      pos = end + 1;
      // Spark's JSON source skips blank lines.
      if (l.find_first_not_of(" \t") == std::string_view::npos) continue;
      lines.AppendString(l);
      if (lines.size() >= kRowsPerChunk) SILT_RETURN_NOT_OK(flush());
    }
  }
  SILT_RETURN_NOT_OK(flush());
  return out;
}

Result<int64_t> WriteJsonFile(ObjectStore& store, const Schema& schema, const JsonRowSource& rows,
                              const exec::BindContext& bind, const exec::EvalContext& eval) {
  // to_json(named_struct('c1', c1, …)): Spark's JSON source writes rows with the same generator
  // (JacksonGenerator; NULL fields left out, ignoreNullFields=true).
  std::vector<exec::ExprPtr> args;
  for (size_t i = 0; i < schema.size(); ++i) {
    args.push_back(exec::MakeConstant(Value::String(schema[i].name)));
    args.push_back(exec::MakeColumn(static_cast<int>(i), schema[i].type, schema[i].name));
  }
  SILT_ASSIGN_OR_RETURN(exec::ExprPtr row,
                        exec::BindScalarFunction("named_struct", std::move(args), bind));
  SILT_ASSIGN_OR_RETURN(exec::ExprPtr json, exec::BindScalarFunction("to_json", {row}, bind));
  std::string text;
  int64_t n = 0;
  SILT_RETURN_NOT_OK(rows([&](const DataChunk& c) -> Status {
    Vector v(DataType::String());
    SILT_RETURN_NOT_OK(exec::Evaluate(*json, c, eval, &v));
    for (size_t r = 0; r < v.size(); ++r) {
      text += v.IsNull(r) ? std::string_view("{}") : v.GetString(r);
      text += '\n';
    }
    n += static_cast<int64_t>(c.size());
    return Status::OK();
  }));
  if (n == 0) return n;
  std::string key =
      "part-00000-" + delta::Uuid::Random().ToString() + "-c000" + FileExtension("json");
  SILT_RETURN_NOT_OK(store.Put(key, text));
  return n;
}

Status DeleteDataFiles(ObjectStore& store, const std::string& location,
                       const std::vector<const delta::AddFile*>& files) {
  for (const delta::AddFile* f : files) {
    SILT_ASSIGN_OR_RETURN(DeltaPath p, ParseDeltaPath(f->path));
    std::optional<std::string> key = RelativeLocation(location, p.path);
    if (!key) {
      return Status::Internal("data file " + p.path + " is not below the table at " + location);
    }
    SILT_RETURN_NOT_OK(store.Delete(*key));
  }
  return Status::OK();
}

}  // namespace silt::planner
