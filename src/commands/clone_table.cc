// CREATE [OR REPLACE] TABLE [IF NOT EXISTS] t [SHALLOW | DEEP] CLONE src [VERSION | TIMESTAMP AS
// OF …] [TBLPROPERTIES (…)] [LOCATION path] (also REPLACE TABLE t … CLONE), and
// CREATE TABLE [IF NOT EXISTS] t LIKE src [USING DELTA] [TBLPROPERTIES (…)] [LOCATION path].
//
// A clone is one commit on the target (Delta's CloneTableBase): the source version's metadata
// with a new table id and TBLPROPERTIES merged over the source's, the source's protocol (raised
// for the overrides, never below a replaced table's), its domains, and one add per source file.
// Shallow: each add (and its deletion vector, as a 'p' descriptor) names the source's file by
// absolute URI, so the clone reads the source's files and every later write lands in its own
// root. Deep (Databricks; Delta OSS answers DELTA_UNSUPPORTED_DEEP_CLONE): the data and DV files
// are copied into the target's root first and referenced there; files the target already holds
// as copies of the same source files (an incremental CREATE OR REPLACE … CLONE) are not copied
// again. Source or target may be on any store (local, memory://, Azure, S3): shallow clones name
// the source's files by URIs Spark opens too (file://, abfss://, s3://).
//
// Databricks' clone for Parquet and Iceberg: `CLONE parquet.`/dir`` (unpartitioned directories,
// as Databricks allows by path) and `CLONE t` of a Parquet table in the catalog (its PARTITIONED
// BY columns) clone the Parquet files as a Delta table would describe them (CONVERT TO DELTA's
// listing, schema and stats); `CLONE iceberg.`/dir`` clones the Iceberg table's current snapshot
// (delta::ReadIcebergTable, column mapping in id mode). Re-running CREATE OR REPLACE adds the new
// files and removes the deleted ones.
#include <algorithm>
#include <map>
#include <set>

#include "commands/command.h"
#include "common/error_classes.h"
#include "delta/actions.h"
#include "delta/iceberg_metadata.h"
#include "delta/json_util.h"
#include "delta/schema_json.h"
#include "delta/table_features.h"
#include "delta/table_properties.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "delta/z85.h"
#include "io/azure_blob_store.h"
#include "io/object_store_factory.h"
#include "io/path.h"
#include "io/read_confinement.h"
#include "ops/convert_to_delta.h"
#include "planner/file_source.h"

namespace silt::commands {

namespace {

constexpr int64_t kCopyChunk = 8 << 20;
// Row ids are not carried over (Delta: CLONE does not preserve Row IDs), so neither is the
// row-tracking high-water mark.
constexpr char kRowTrackingDomain[] = "delta.rowTracking";

std::string Json(const std::string& s) {
  std::string out;
  delta::AppendJacksonString(&out, s);
  return out;
}

// A location as a shallow clone's add.path names it (Hadoop's qualified, URI-encoded form):
// file:///… for local paths, abfss://container@account.dfs.core.windows.net/… for Azure (az:// and
// https:// are silt's and the SDKs' forms, which Spark does not open), s3://… as written.
Result<std::string> QualifiedUri(std::string_view location) {
  SILT_ASSIGN_OR_RETURN(std::string canonical, CanonicalLocation(location));
  if (!canonical.empty() && canonical[0] == '/') return LocalPathToFileUri(canonical);
  const std::string scheme = UriScheme(canonical);
  if (IsAzureLocation(canonical) && (scheme == "az" || scheme == "azure" || scheme == "https")) {
    SILT_ASSIGN_OR_RETURN(AzureLocation loc, ParseAzureLocation(canonical));
    const std::string host = loc.onelake ? loc.host : loc.account + ".dfs.core.windows.net";
    canonical = "abfss://" + loc.container + "@" + host + (loc.path.empty() ? "" : "/" + loc.path);
  }
  return EncodePathUri(canonical);
}

std::string BaseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// What a CLONE reads: a Delta table at a version, or Parquet / Iceberg files described as a
// one-commit Delta snapshot (planner::SnapshotOfActions) whose relative paths are keys of `data`.
struct CloneSource {
  std::string display_name;
  std::string location;  // the source's root
  std::shared_ptr<ObjectStore> data;
  std::shared_ptr<const delta::Snapshot> snapshot;
  bool is_delta = true;
};

// Opens a file the source names: relative paths in its store, absolute ones where they are
// (under the source's read confinement, as the scan reads them).
Result<std::shared_ptr<RandomAccessFile>> OpenSourceFile(const CloneSource& src,
                                                         const DeltaPath& p) {
  if (!p.absolute) return src.data->OpenRead(p.path);
  if (const ReadConfinement* c = src.snapshot->read_confinement().get())
    SILT_RETURN_NOT_OK(CheckConfinedRead(*c, src.data->root(), p.path));
  return OpenLocationForRead(p.path);
}

// Streams `in` to `key` of `out` in bounded chunks (data files can be larger than memory).
Status CopyFile(const RandomAccessFile& in, ObjectStore& out, const std::string& key) {
  SILT_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> w, out.OpenWrite(key));
  std::string buf;
  for (int64_t off = 0; off < in.size(); off += kCopyChunk) {
    const int64_t n = std::min<int64_t>(kCopyChunk, in.size() - off);
    buf.resize(static_cast<size_t>(n));
    SILT_RETURN_NOT_OK(in.ReadAt(off, n, reinterpret_cast<uint8_t*>(buf.data())));
    SILT_RETURN_NOT_OK(w->Append(buf));
  }
  return w->Close();
}

// The add a shallow clone commits for a source file: paths made absolute (absolute ones
// re-qualified: a Parquet table's '/…' paths, az:// URIs), row ids dropped.
Result<delta::AddFile> ShallowAdd(const delta::AddFile& f, const std::string& src_base) {
  delta::AddFile a = f;
  SILT_ASSIGN_OR_RETURN(DeltaPath p, ParseDeltaPath(f.path));
  if (p.absolute) {
    SILT_ASSIGN_OR_RETURN(a.path, QualifiedUri(p.path));
  } else {
    a.path = JoinPath(src_base, f.path);
  }
  if (a.deletion_vector && a.deletion_vector->storage_type == 'u') {
    SILT_ASSIGN_OR_RETURN(std::string dv, a.deletion_vector->AbsolutePath(src_base));
    a.deletion_vector->storage_type = 'p';
    a.deletion_vector->path_or_inline_dv = std::move(dv);
  }
  return a;
}

// The target's files by object key (relative paths only: a deep clone's copies), so that an
// incremental deep clone does not copy a file again.
std::map<std::string, const delta::AddFile*> FilesByKey(const delta::Snapshot* target) {
  std::map<std::string, const delta::AddFile*> out;
  if (!target) return out;
  for (const auto& f : target->files()) {
    Result<DeltaPath> p = ParseDeltaPath(f.path);
    if (p.ok() && !p->absolute) out.emplace(p->path, &f);
  }
  return out;
}

// Deep clone: copies the file (and its DV file, once per DV file) into the target's store and
// returns the add that references the copies; *copied is false when the target already holds
// this copy (same key and size: a file an earlier clone copied; Delta, Spark and Iceberg writers
// never rewrite a data file in place, and an Iceberg file's time is not stable). A relative
// source path keeps its key, as does an absolute one below the source's root (a Parquet table's
// partition directories); any other (a clone of a shallow clone) lands at the root under its file
// name.
Result<delta::AddFile> DeepAdd(const delta::AddFile& f, const CloneSource& src,
                               const std::map<std::string, const delta::AddFile*>& existing,
                               ObjectStore& target, const std::string& target_base,
                               std::set<std::string>* copied_dvs, int64_t* dv_bytes, bool* copied) {
  delta::AddFile a = f;
  SILT_ASSIGN_OR_RETURN(DeltaPath p, ParseDeltaPath(f.path));
  std::string key = p.path;
  if (p.absolute) {
    SILT_ASSIGN_OR_RETURN(std::string root, CanonicalLocation(src.location));
    SILT_ASSIGN_OR_RETURN(std::string file, CanonicalLocation(p.path));
    key = RelativeLocation(root, file).value_or(BaseName(p.path));
  }
  auto same = existing.find(key);
  *copied = same == existing.end() || same->second->size != f.size;
  if (*copied) {
    SILT_ASSIGN_OR_RETURN(std::shared_ptr<RandomAccessFile> in, OpenSourceFile(src, p));
    SILT_RETURN_NOT_OK(CopyFile(*in, target, key));
  }
  a.path = ToDeltaPath(key);
  if (a.deletion_vector && !a.deletion_vector->IsInline()) {
    delta::DeletionVectorDescriptor& dv = *a.deletion_vector;
    DeltaPath dvp;
    std::string dv_key;
    if (dv.storage_type == 'u') {
      SILT_ASSIGN_OR_RETURN(std::string rel, dv.AbsolutePath(""));
      while (!rel.empty() && rel[0] == '/') rel.erase(0, 1);
      dvp.path = dv_key = rel;
    } else {
      SILT_ASSIGN_OR_RETURN(dvp, ParseDeltaPath(dv.path_or_inline_dv));
      dv_key = BaseName(dvp.path);
      dv.path_or_inline_dv = JoinPath(target_base, EncodePathUri(dv_key));
    }
    if (copied_dvs->insert(dv_key).second) {
      SILT_ASSIGN_OR_RETURN(std::shared_ptr<RandomAccessFile> in, OpenSourceFile(src, dvp));
      SILT_RETURN_NOT_OK(CopyFile(*in, target, dv_key));
      *dv_bytes += in->size();
    }
  }
  return a;
}

Status UnsupportedSource(const std::string& name, const std::string& format) {
  return Status::NotImplemented("Unsupported clone source '" + name + "', whose format is " +
                                    format +
                                    ". The supported formats are 'delta', 'iceberg' and 'parquet'.",
                                errc::kDeltaCloneUnsupportedSource);
}

// A format.`dir` source without a Delta log: its store; time travel refused as Spark does for
// relations that have no versions.
Result<CloneSource> PathSource(const sql::CreateTableStatement& stmt, CommandContext& ctx,
                               const std::string& format) {
  const std::string& path = stmt.source.path;
  CloneSource src{format + ".`" + path + "`", path, nullptr, nullptr, false};
  if (stmt.source_time_travel) {
    return Status::InvalidArgument(
        "Time travel on the relation: `" + src.display_name + "` is not supported.",
        errc::kUnsupportedFeatureTimeTravel);
  }
  SILT_ASSIGN_OR_RETURN(src.data, planner::OpenTableStore(path, ctx.clock));
  return src;
}

// The snapshot of a source without a Delta log: one commit of a new table's protocol, this
// metadata and the files.
Result<std::shared_ptr<const delta::Snapshot>> DescribedSnapshot(
    const Schema& schema, const std::vector<std::string>& partition_columns,
    const delta::StringMap& configuration, std::vector<delta::AddFile> files, CommandContext& ctx) {
  delta::Metadata md;
  md.id = delta::Uuid::Random().ToString();
  md.schema_string = delta::SerializeSchema(schema);
  md.partition_columns = partition_columns;
  md.configuration = configuration;
  md.created_time = ctx.clock->NowMillis();
  std::vector<delta::Action> actions;
  actions.emplace_back(delta::ProtocolForNewTable(schema, md.configuration));
  actions.emplace_back(std::move(md));
  for (delta::AddFile& f : files) actions.emplace_back(std::move(f));
  return planner::SnapshotOfActions(actions, ctx.clock);
}

// iceberg.`dir`: the Iceberg table's current snapshot (delta::ReadIcebergTable), with column
// mapping in id mode as Delta's Iceberg conversion sets it (the data files carry field ids).
Result<CloneSource> IcebergSource(const sql::CreateTableStatement& stmt, CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(CloneSource src, PathSource(stmt, ctx, "iceberg"));
  SILT_ASSIGN_OR_RETURN(delta::IcebergTable t, delta::ReadIcebergTable(*src.data));
  delta::StringMap config;
  config.Set("delta.columnMapping.mode", "id");
  config.Set("delta.columnMapping.maxColumnId", std::to_string(t.max_column_id));
  SILT_ASSIGN_OR_RETURN(src.snapshot, DescribedSnapshot(t.schema, t.partition_columns, config,
                                                        std::move(t.files), ctx));
  return src;
}

// parquet.`dir`: the Parquet files below dir as CONVERT TO DELTA would describe them, without
// partition columns (Databricks clones a partitioned Parquet table by its catalog name only).
Result<CloneSource> ParquetDirectorySource(const sql::CreateTableStatement& stmt,
                                           CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(CloneSource src, PathSource(stmt, ctx, "parquet"));
  const std::string& path = stmt.source.path;
  // A Delta table's directory also holds files its log no longer references.
  Result<std::shared_ptr<const delta::Snapshot>> delta_table =
      delta::Snapshot::Load(src.data, std::nullopt, {.load_files = false});
  if (delta_table.ok()) {
    return Status::InvalidArgument("The clone source parquet.`" + path +
                                       "` is a Delta table: clone it as delta.`" + path + "`.",
                                   errc::kDeltaCloneIncompatibleSource);
  }
  if (delta_table.status().code() != StatusCode::kNotFound) return delta_table.status();
  ops::ConvertOptions options;
  options.display_path = path;
  options.collect_stats = ctx.config->GetBool("spark.databricks.delta.stats.collect", true);
  Result<ops::ParquetDirectory> dir = ops::PlanParquetDirectory(*src.data, options);
  if (!dir.ok() &&
      dir.status().error_class() == errc::kDeltaUnexpectedNumPartitionColumnsFromFileName) {
    return Status(dir.status().code(), std::string(dir.status().error_class()),
                  std::string(dir.status().message()) +
                      ". A partitioned Parquet directory is cloned by the name of a table "
                      "registered with its partition columns (CREATE TABLE … USING parquet "
                      "PARTITIONED BY … LOCATION …), as on Databricks.");
  }
  if (!dir.ok()) return dir.status();
  SILT_ASSIGN_OR_RETURN(src.snapshot, DescribedSnapshot(dir->schema, dir->partition_columns, {},
                                                        std::move(dir->files), ctx));
  return src;
}

// The source of a CLONE or LIKE: a Delta table (at the requested version), a Parquet table in
// the catalog, parquet.`dir` or iceberg.`dir` (CLONE only). Views, system tables, JSON tables and
// other formats: DELTA_CLONE_UNSUPPORTED_SOURCE.
Result<CloneSource> ResolveSource(const sql::CreateTableStatement& stmt, CommandContext& ctx,
                                  bool allow_files) {
  const std::string format = planner::LowerName(stmt.source.path_format);
  if (stmt.source.is_path() && format != "delta" && !format.empty()) {
    if (format == "parquet" && allow_files) return ParquetDirectorySource(stmt, ctx);
    if (format == "iceberg" && allow_files) return IcebergSource(stmt, ctx);
    return UnsupportedSource(format + ".`" + stmt.source.path + "`", format);
  }
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable src,
                        ctx.binder->ResolveTable(stmt.source, stmt.source_time_travel));
  std::string unsupported;
  if (src.is_view || src.is_temp_view) unsupported = "View";
  if (src.is_system) unsupported = "System table";
  const bool parquet = src.entry && src.entry->format == "parquet";
  if (src.entry && planner::IsFileSourceTable(*src.entry) && !(parquet && allow_files))
    unsupported = src.entry->format;
  if (!unsupported.empty()) return UnsupportedSource(src.display_name, unsupported);
  if (!src.snapshot) {
    return Status::NotFound("The table " + src.display_name + " is not a Delta table.",
                            errc::kDeltaTableNotFound);
  }
  return CloneSource{src.display_name, src.location, src.store, src.snapshot, !parquet};
}

// The target's metadata made from the source's: new id (an existing target's id when it is
// replaced), no name/description of the source, TBLPROPERTIES over the source's configuration.
Result<delta::Metadata> TargetMetadata(const sql::CreateTableStatement& stmt,
                                       const delta::Snapshot& src, const delta::Snapshot* existing,
                                       CommandContext& ctx) {
  delta::Metadata md = src.metadata();
  md.id = existing ? existing->metadata().id : delta::Uuid::Random().ToString();
  md.name = existing ? existing->metadata().name : std::nullopt;
  md.description = existing ? existing->metadata().description : std::nullopt;
  delta::StringMap given;
  for (const auto& [k, v] : stmt.properties) given.Set(k, v);
  SILT_ASSIGN_OR_RETURN(
      delta::StringMap overrides,
      delta::ValidateTableProperties(
          given,
          ctx.config->GetBool("spark.databricks.delta.allowArbitraryProperties.enabled", false)));
  for (const auto& [k, v] : overrides) md.configuration.Set(k, v);
  return md;
}

// The source's protocol plus what the (overridden) metadata needs and, when replacing, every
// feature the replaced table's protocol has (Delta never downgrades a protocol on CLONE).
delta::Protocol TargetProtocol(const delta::Snapshot& src, const delta::Metadata& md,
                               const delta::Snapshot* existing) {
  delta::Protocol p = delta::WithFeatures(
      src.protocol(), delta::FeaturesForMetadata(src.schema(), md.configuration));
  if (existing) p = delta::WithFeatures(p, delta::ProtocolFeatures(existing->protocol()));
  return p;
}

}  // namespace

Result<CommandResult> CloneTable(const sql::CreateTableStatement& stmt, CommandContext& ctx) {
  using C = sql::CreateTableStatement::CopyFrom;
  const bool shallow = stmt.copy_from == C::kShallowClone;
  if (stmt.name.is_path() && !stmt.location.empty()) {
    return Status::InvalidArgument(
        "Two paths were provided as the CLONE target so it is ambiguous which to use. An external "
        "location for CLONE was provided at " +
            stmt.location + " at the same time as the path " + stmt.name.ToString() + ".",
        errc::kDeltaCloneAmbiguousTarget);
  }
  SILT_ASSIGN_OR_RETURN(CreateTarget target, ResolveTableTarget(stmt, ctx));
  if (target.skip) return CommandResult{};
  const bool exists = target.exists;
  SILT_ASSIGN_OR_RETURN(CloneSource src, ResolveSource(stmt, ctx, /*allow_files=*/true));
  const delta::Snapshot& s = *src.snapshot;

  SILT_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> store,
                        planner::OpenTableStore(target.location, ctx.clock));
  Result<std::shared_ptr<const delta::Snapshot>> loaded =
      delta::Snapshot::Load(store, std::nullopt, {.load_files = true});
  if (!loaded.ok() && loaded.status().code() != StatusCode::kNotFound) return loaded.status();
  std::shared_ptr<const delta::Snapshot> existing = loaded.ok() ? *loaded : nullptr;
  if (existing && !stmt.or_replace && !existing->files().empty()) {
    return Status::InvalidArgument(
        "The clone destination table " + target.display +
            " is non-empty. Please TRUNCATE or DELETE FROM the table before running CLONE.",
        errc::kDeltaUnsupportedNonEmptyClone);
  }

  SILT_ASSIGN_OR_RETURN(delta::Metadata md, TargetMetadata(stmt, s, existing.get(), ctx));
  delta::TransactionOptions txn_opts;
  txn_opts.clock = ctx.clock;
  delta::Transaction txn(store, existing, txn_opts);
  txn.UpdateMetadata(md);
  const delta::Protocol proto = TargetProtocol(s, md, existing.get());
  if (!existing || proto != existing->protocol()) txn.UpdateProtocol(proto);
  txn.SetReadScope(delta::ReadScope::kWholeTable);
  for (const auto& [name, d] : s.domains()) {
    if (!d.removed && name != kRowTrackingDomain) txn.SetDomain(d);
  }

  SILT_ASSIGN_OR_RETURN(std::string src_base, QualifiedUri(src.location));
  SILT_ASSIGN_OR_RETURN(std::string target_base, QualifiedUri(target.location));
  const std::map<std::string, const delta::AddFile*> target_files = FilesByKey(existing.get());
  int64_t source_bytes = 0, copied = 0, copied_bytes = 0;
  std::set<std::string> copied_dvs, added;
  auto logical_id = [](const delta::AddFile& a) {
    return a.path + (a.deletion_vector ? "#" + a.deletion_vector->UniqueId() : "");
  };
  for (const auto& f : s.files()) {
    source_bytes += f.size;
    delta::AddFile a;
    if (shallow) {
      SILT_ASSIGN_OR_RETURN(a, ShallowAdd(f, src_base));
    } else {
      if (ctx.cancelled && ctx.cancelled->load()) return Status::Cancelled("CLONE cancelled");
      bool is_copy = false;
      SILT_ASSIGN_OR_RETURN(a, DeepAdd(f, src, target_files, *store, target_base, &copied_dvs,
                                       &copied_bytes, &is_copy));
      if (is_copy) {
        ++copied;
        copied_bytes += f.size;
      }
    }
    a.data_change = true;
    a.base_row_id.reset();
    a.default_row_commit_version.reset();
    added.insert(logical_id(a));
    txn.Add(std::move(a));
  }
  // OR REPLACE: the replaced table's files go, except those re-added as they are (a shallow clone
  // replaced by a newer clone of the same source shares files with it; a commit may not both add
  // and remove one path with the same DV).
  const int64_t now = ctx.clock->NowMillis();
  int64_t removed = 0, removed_bytes = 0;
  if (existing) {
    for (const auto& f : existing->files()) {
      if (added.count(logical_id(f))) continue;
      txn.Remove(delta::MakeRemove(f, now));
      ++removed;
      removed_bytes += f.size;
    }
  }
  delta::StringMap params;
  params.Set("source", Json(src.display_name));
  if (src.is_delta) params.Set("sourceVersion", std::to_string(s.version()));
  params.Set("isShallow", shallow ? "true" : "false");
  txn.SetOperation("CLONE", params);
  const std::vector<std::pair<std::string, int64_t>> metrics = {
      {"sourceTableSize", source_bytes},
      {"sourceNumOfFiles", static_cast<int64_t>(s.files().size())},
      {"numRemovedFiles", removed},
      {"numCopiedFiles", copied},
      {"removedFilesSize", removed_bytes},
      {"copiedFilesSize", copied_bytes}};
  for (const auto& [k, v] : metrics) txn.SetMetric(k, v);
  SILT_RETURN_NOT_OK(txn.Commit().status());
  if (target.catalog && !exists) {
    planner::TableEntry e{
        target.schema, target.name, target.location, target.managed, "delta", "", "", {}, ""};
    SILT_RETURN_NOT_OK(ctx.catalog->RegisterTable(e));
  }
  // Delta's output row: source_table_size, source_num_of_files, num_removed_files,
  // num_copied_files, removed_files_size, copied_files_size.
  return CountRows({{"source_table_size", source_bytes},
                    {"source_num_of_files", static_cast<int64_t>(s.files().size())},
                    {"num_removed_files", removed},
                    {"num_copied_files", copied},
                    {"removed_files_size", removed_bytes},
                    {"copied_files_size", copied_bytes}});
}

Result<CommandResult> CreateTableLike(const sql::CreateTableStatement& stmt, CommandContext& ctx) {
  if (!stmt.using_format.empty() && stmt.using_format != "delta") {
    return Status::NotImplemented("CREATE TABLE … LIKE … USING " + stmt.using_format +
                                      " is not supported; silt creates Delta tables",
                                  errc::kSiltUnsupportedDataSource);
  }
  SILT_ASSIGN_OR_RETURN(CreateTarget target, ResolveCreateTarget(stmt.name, stmt.location, ctx));
  if (target.catalog && ctx.catalog->TableExists(target.schema, target.name)) {
    if (stmt.if_not_exists) return CommandResult{};
    return Status::AlreadyExists("Cannot create table or view `" + target.schema + "`.`" +
                                     target.name + "` because it already exists.",
                                 errc::kTableOrViewAlreadyExists);
  }
  SILT_ASSIGN_OR_RETURN(CloneSource src, ResolveSource(stmt, ctx, /*allow_files=*/false));
  const delta::Snapshot& s = *src.snapshot;
  SILT_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> store,
                        planner::OpenTableStore(target.location, ctx.clock));
  Result<std::shared_ptr<const delta::Snapshot>> loaded =
      delta::Snapshot::Load(store, std::nullopt, {.load_files = false});
  if (loaded.ok()) {
    if (stmt.if_not_exists) return CommandResult{};
    return Status::AlreadyExists("Table " + target.display + " already exists.",
                                 errc::kDeltaTableAlreadyExists);
  }
  if (loaded.status().code() != StatusCode::kNotFound) return loaded.status();

  // Schema (with its column metadata: comments, generated/identity/default columns, column
  // mapping ids), partitioning, description and properties (CHECK constraints among them) come
  // from the source, as Delta's CREATE TABLE LIKE copies them; no data, no history.
  SILT_ASSIGN_OR_RETURN(delta::Metadata md, TargetMetadata(stmt, s, nullptr, ctx));
  md.description = s.metadata().description;
  md.created_time = ctx.clock->NowMillis();
  delta::TransactionOptions txn_opts;
  txn_opts.clock = ctx.clock;
  delta::Transaction txn(store, nullptr, txn_opts);
  txn.UpdateMetadata(md);
  txn.UpdateProtocol(TargetProtocol(s, md, nullptr));
  for (const auto& [name, d] : s.domains()) {
    if (!d.removed && name != kRowTrackingDomain) txn.SetDomain(d);
  }
  delta::StringMap params;
  params.Set("isManaged", target.managed ? "\"true\"" : "\"false\"");
  params.Set("description", md.description ? Json(*md.description) : "null");
  std::string parts = "[";
  for (size_t i = 0; i < md.partition_columns.size(); ++i)
    parts += (i ? "," : "") + Json(md.partition_columns[i]);
  params.Set("partitionBy", Json(parts + "]"));
  txn.SetOperation("CREATE TABLE", params);
  SILT_RETURN_NOT_OK(txn.Commit().status());
  if (target.catalog) {
    planner::TableEntry e{target.schema,
                          target.name,
                          target.location,
                          target.managed,
                          "delta",
                          "",
                          md.description.value_or(""),
                          {},
                          ""};
    SILT_RETURN_NOT_OK(ctx.catalog->RegisterTable(e));
  }
  return CommandResult{};
}

}  // namespace silt::commands
