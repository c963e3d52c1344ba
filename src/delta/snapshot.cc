#include "delta/snapshot.h"

#include <algorithm>
#include <unordered_set>

#include "delta/table_features.h"
#include "io/path.h"
#include "parquet/reader.h"

namespace silt::delta {

namespace {

// --- reading actions out of checkpoint Parquet rows

const Vector* Child(const Vector* st, const char* name) {
  if (!st || st->id() != TypeId::kStruct) return nullptr;
  int i = FindField(st->type()->fields(), name);
  return i < 0 ? nullptr : &st->child(static_cast<size_t>(i));
}
std::optional<std::string> Str(const Vector* v, size_t i) {
  if (!v || v->IsNull(i) || !v->type()->is_binary_like()) return std::nullopt;
  return std::string(v->GetString(i));
}
std::optional<int64_t> Int(const Vector* v, size_t i) {
  if (!v || v->IsNull(i)) return std::nullopt;
  switch (v->id()) {
    case TypeId::kInt32: return v->Get<int32_t>(i);
    case TypeId::kInt64: return v->Get<int64_t>(i);
    case TypeId::kInt16: return v->Get<int16_t>(i);
    default: return std::nullopt;
  }
}
std::optional<bool> Bool(const Vector* v, size_t i) {
  if (!v || v->IsNull(i) || v->id() != TypeId::kBoolean) return std::nullopt;
  return v->Get<uint8_t>(i) != 0;
}
template <typename M, typename F>
std::optional<M> MapOf(const Vector* v, size_t i, F value) {
  if (!v || v->IsNull(i) || v->id() != TypeId::kMap) return std::nullopt;
  M m;
  const uint32_t* off = v->offsets();
  for (uint32_t k = off[i]; k < off[i + 1]; ++k) m.Append(std::string(v->child(0).GetString(k)), value(&v->child(1), k));
  return m;
}
std::optional<StringMap> Strings(const Vector* v, size_t i) {
  return MapOf<StringMap>(v, i, [](const Vector* c, size_t k) { return Str(c, k).value_or(""); });
}
PartitionValues Partitions(const Vector* v, size_t i) {
  return MapOf<PartitionValues>(v, i, [](const Vector* c, size_t k) { return Str(c, k); }).value_or(PartitionValues{});
}
std::optional<std::vector<std::string>> StrList(const Vector* v, size_t i) {
  if (!v || v->IsNull(i) || v->id() != TypeId::kList) return std::nullopt;
  std::vector<std::string> out;
  const uint32_t* off = v->offsets();
  for (uint32_t k = off[i]; k < off[i + 1]; ++k) out.push_back(Str(&v->child(0), k).value_or(""));
  return out;
}
std::optional<DeletionVectorDescriptor> Dv(const Vector* v, size_t i) {
  if (!v || v->IsNull(i)) return std::nullopt;
  DeletionVectorDescriptor d;
  std::string st = Str(Child(v, "storageType"), i).value_or("");
  d.storage_type = st.empty() ? 'u' : st[0];
  d.path_or_inline_dv = Str(Child(v, "pathOrInlineDv"), i).value_or("");
  if (auto o = Int(Child(v, "offset"), i)) d.offset = static_cast<int32_t>(*o);
  d.size_in_bytes = static_cast<int32_t>(Int(Child(v, "sizeInBytes"), i).value_or(0));
  d.cardinality = Int(Child(v, "cardinality"), i).value_or(0);
  return d;
}

// Appends the actions in rows of a checkpoint chunk (columns by name).
void ActionsFromCheckpointChunk(const DataChunk& chunk, const Schema& schema, std::vector<Action>* out) {
  auto col = [&](const char* name) -> const Vector* {
    int i = FindField(schema, name);
    return i < 0 ? nullptr : &chunk.columns[static_cast<size_t>(i)];
  };
  const Vector *add = col("add"), *rem = col("remove"), *md = col("metaData"), *pr = col("protocol"),
               *txn = col("txn"), *dom = col("domainMetadata"), *cpm = col("checkpointMetadata"), *sc = col("sidecar");
  for (size_t i = 0; i < chunk.size(); ++i) {
    if (add && add->IsValid(i)) {
      AddFile a;
      a.path = Str(Child(add, "path"), i).value_or("");
      a.partition_values = Partitions(Child(add, "partitionValues"), i);
      a.size = Int(Child(add, "size"), i).value_or(0);
      a.modification_time = Int(Child(add, "modificationTime"), i).value_or(0);
      a.data_change = Bool(Child(add, "dataChange"), i).value_or(false);
      a.stats = Str(Child(add, "stats"), i);
      a.tags = Strings(Child(add, "tags"), i);
      a.deletion_vector = Dv(Child(add, "deletionVector"), i);
      a.base_row_id = Int(Child(add, "baseRowId"), i);
      a.default_row_commit_version = Int(Child(add, "defaultRowCommitVersion"), i);
      a.clustering_provider = Str(Child(add, "clusteringProvider"), i);
      out->push_back(std::move(a));
    } else if (rem && rem->IsValid(i)) {
      RemoveFile r;
      r.path = Str(Child(rem, "path"), i).value_or("");
      r.deletion_timestamp = Int(Child(rem, "deletionTimestamp"), i);
      r.data_change = Bool(Child(rem, "dataChange"), i).value_or(false);
      r.extended_file_metadata = Bool(Child(rem, "extendedFileMetadata"), i);
      if (Child(rem, "partitionValues") && Child(rem, "partitionValues")->IsValid(i))
        r.partition_values = Partitions(Child(rem, "partitionValues"), i);
      r.size = Int(Child(rem, "size"), i);
      r.deletion_vector = Dv(Child(rem, "deletionVector"), i);
      r.base_row_id = Int(Child(rem, "baseRowId"), i);
      r.default_row_commit_version = Int(Child(rem, "defaultRowCommitVersion"), i);
      out->push_back(std::move(r));
    } else if (md && md->IsValid(i)) {
      Metadata m;
      m.id = Str(Child(md, "id"), i).value_or("");
      m.name = Str(Child(md, "name"), i);
      m.description = Str(Child(md, "description"), i);
      if (const Vector* f = Child(md, "format")) {
        m.format.provider = Str(Child(f, "provider"), i).value_or("parquet");
        if (auto o = Strings(Child(f, "options"), i)) m.format.options = *o;
      }
      m.schema_string = Str(Child(md, "schemaString"), i);
      m.partition_columns = StrList(Child(md, "partitionColumns"), i).value_or(std::vector<std::string>{});
      if (auto c = Strings(Child(md, "configuration"), i)) m.configuration = *c;
      m.created_time = Int(Child(md, "createdTime"), i);
      out->push_back(std::move(m));
    } else if (pr && pr->IsValid(i)) {
      Protocol p;
      p.min_reader_version = static_cast<int32_t>(Int(Child(pr, "minReaderVersion"), i).value_or(1));
      p.min_writer_version = static_cast<int32_t>(Int(Child(pr, "minWriterVersion"), i).value_or(2));
      p.reader_features = StrList(Child(pr, "readerFeatures"), i);
      p.writer_features = StrList(Child(pr, "writerFeatures"), i);
      out->push_back(std::move(p));
    } else if (txn && txn->IsValid(i)) {
      SetTransaction t;
      t.app_id = Str(Child(txn, "appId"), i).value_or("");
      t.version = Int(Child(txn, "version"), i).value_or(0);
      t.last_updated = Int(Child(txn, "lastUpdated"), i);
      out->push_back(std::move(t));
    } else if (dom && dom->IsValid(i)) {
      DomainMetadata d;
      d.domain = Str(Child(dom, "domain"), i).value_or("");
      d.configuration = Str(Child(dom, "configuration"), i).value_or("");
      d.removed = Bool(Child(dom, "removed"), i).value_or(false);
      out->push_back(std::move(d));
    } else if (cpm && cpm->IsValid(i)) {
      CheckpointMetadata c;
      c.version = Int(Child(cpm, "version"), i).value_or(0);
      c.tags = Strings(Child(cpm, "tags"), i);
      out->push_back(std::move(c));
    } else if (sc && sc->IsValid(i)) {
      Sidecar s;
      s.path = Str(Child(sc, "path"), i).value_or("");
      s.size_in_bytes = Int(Child(sc, "sizeInBytes"), i).value_or(0);
      s.modification_time = Int(Child(sc, "modificationTime"), i).value_or(0);
      s.tags = Strings(Child(sc, "tags"), i);
      out->push_back(std::move(s));
    }
  }
}

Status ReadParquetActions(ObjectStore& store, const std::string& key, bool load_files, std::vector<Action>* out) {
  SILT_ASSIGN_OR_RETURN(auto file, store.OpenRead(key));
  SILT_ASSIGN_OR_RETURN(auto pf, parquet::ParquetFile::Open(file));
  const Schema& schema = pf->schema().schema();
  std::vector<int> cols;
  for (const char* name : {"add", "remove", "metaData", "protocol", "txn", "domainMetadata", "checkpointMetadata", "sidecar"}) {
    if (!load_files && (std::string(name) == "add" || std::string(name) == "remove")) continue;
    int i = FindField(schema, name);
    if (i >= 0) cols.push_back(i);
  }
  Schema projected;
  for (int c : cols) projected.push_back(schema[static_cast<size_t>(c)]);
  for (int rg = 0; rg < pf->num_row_groups(); ++rg) {
    DataChunk chunk;
    Status s = pf->ReadRowGroup(rg, cols, &chunk);
    if (!s.ok()) return s.WithContext("checkpoint " + key);
    ActionsFromCheckpointChunk(chunk, projected, out);
  }
  return Status::OK();
}

// The reconciliation key of a file action: the path decoded once (file: URIs canonicalised to
// plain absolute paths, so `file:/p`, `file:///p` and `/p` name one file) plus the DV's id.
std::string FileKey(const std::string& path, const std::optional<DeletionVectorDescriptor>& dv) {
  std::string key;
  if (UriScheme(path) == "file") {
    auto local = LocalPathFromUri(path);
    key = local.ok() ? *local : path;
  } else {
    auto decoded = PercentDecode(path);
    key = decoded.ok() ? *decoded : path;
  }
  if (dv) {
    key += '\x1f';
    key += dv->UniqueId();
  }
  return key;
}

}  // namespace

std::optional<std::string> Snapshot::property(const std::string& key) const {
  const std::string* v = metadata_.configuration.Find(key);
  return v ? std::optional<std::string>(*v) : std::nullopt;
}

Status Snapshot::ReadCheckpoint(const SnapshotOptions& options, std::vector<Action>* out) {
  for (const LogFile& part : segment_.checkpoint_parts) {
    if (part.json) {
      SILT_ASSIGN_OR_RETURN(std::string bytes, store_->Get(part.meta.key));
      std::vector<Action> actions;
      SILT_RETURN_NOT_OK(ParseCommit(bytes, &actions, part.meta.key));
      for (auto& a : actions)
        if (options.load_files || (a.kind() != ActionKind::kAdd && a.kind() != ActionKind::kRemove))
          out->push_back(std::move(a));
    } else {
      SILT_RETURN_NOT_OK(ReadParquetActions(*store_, part.meta.key, options.load_files, out));
    }
  }
  if (!options.load_files) return Status::OK();
  // V2 checkpoints keep their file actions in sidecars.
  std::vector<std::string> sidecars;
  for (const auto& a : *out)
    if (const Sidecar* s = a.get_if<Sidecar>()) sidecars.push_back(s->path);
  for (const auto& p : sidecars) {
    SILT_ASSIGN_OR_RETURN(DeltaPath dp, ParseDeltaPath(p));
    if (dp.absolute) return Status::NotImplemented("absolute sidecar paths are not supported: " + p);
    SILT_RETURN_NOT_OK(ReadParquetActions(*store_, std::string(kLogDir) + "_sidecars/" + dp.path, true, out));
  }
  return Status::OK();
}

Status Snapshot::Replay(const SnapshotOptions& options) {
  bool have_protocol = false, have_metadata = false;
  std::unordered_set<std::string> seen;
  std::unordered_set<std::string> seen_txn, seen_domain;
  auto apply = [&](Action& a) {
    switch (a.kind()) {
      case ActionKind::kProtocol:
        if (!have_protocol) protocol_ = std::move(*a.get_if<Protocol>()), have_protocol = true;
        break;
      case ActionKind::kMetadata:
        if (!have_metadata) metadata_ = std::move(*a.get_if<Metadata>()), have_metadata = true;
        break;
      case ActionKind::kAdd: {
        AddFile& f = *a.get_if<AddFile>();
        if (seen.insert(FileKey(f.path, f.deletion_vector)).second) files_.push_back(std::move(f));
        break;
      }
      case ActionKind::kRemove: {
        RemoveFile& r = *a.get_if<RemoveFile>();
        if (seen.insert(FileKey(r.path, r.deletion_vector)).second) tombstones_.push_back(std::move(r));
        break;
      }
      case ActionKind::kTxn: {
        SetTransaction& t = *a.get_if<SetTransaction>();
        if (seen_txn.insert(t.app_id).second) txns_[t.app_id] = std::move(t);
        break;
      }
      case ActionKind::kDomainMetadata: {
        DomainMetadata& d = *a.get_if<DomainMetadata>();
        if (seen_domain.insert(d.domain).second && !d.removed) domains_[d.domain] = std::move(d);
        break;
      }
      default:
        break;
    }
  };
  // Newest commit first; within a commit the order of distinct keys does not matter.
  for (auto it = segment_.commits.rbegin(); it != segment_.commits.rend(); ++it) {
    SILT_ASSIGN_OR_RETURN(std::string bytes, store_->Get(it->meta.key));
    std::vector<Action> actions;
    SILT_RETURN_NOT_OK(ParseCommit(bytes, &actions, it->meta.key));
    if (it == segment_.commits.rbegin()) {
      timestamp_ms_ = it->meta.modification_time_ms;
      for (const auto& a : actions)
        if (const CommitInfo* ci = a.get_if<CommitInfo>())
          if (ci->in_commit_timestamp) timestamp_ms_ = *ci->in_commit_timestamp;
    }
    for (auto& a : actions) {
      if (!options.load_files && (a.kind() == ActionKind::kAdd || a.kind() == ActionKind::kRemove)) continue;
      apply(a);
    }
  }
  if (segment_.checkpoint_version >= 0) {
    std::vector<Action> actions;
    SILT_RETURN_NOT_OK(ReadCheckpoint(options, &actions));
    if (segment_.commits.empty() && !segment_.checkpoint_parts.empty())
      timestamp_ms_ = segment_.checkpoint_parts[0].meta.modification_time_ms;
    for (auto& a : actions) apply(a);
  }
  const std::string& root = store_->root();
  if (!have_protocol)
    return Status::Corruption("version " + std::to_string(version()) + " of " + root + " has no protocol action",
                              "DELTA_STATE_RECOVER_ERROR");
  if (!have_metadata)
    return Status::Corruption("version " + std::to_string(version()) + " of " + root + " has no metaData action",
                              "DELTA_STATE_RECOVER_ERROR");
  SILT_RETURN_NOT_OK(CheckReadSupported(protocol_, root));
  if (metadata_.schema_string) {
    auto schema = ParseSchemaString(*metadata_.schema_string);
    if (!schema.ok()) return schema.status().WithContext(root);
    schema_ = std::move(schema).value();
  }
  const std::string* mode = metadata_.configuration.Find("delta.columnMapping.mode");
  SILT_ASSIGN_OR_RETURN(column_mapping_, ParseColumnMappingMode(mode ? std::optional<std::string>(*mode) : std::nullopt));
  return Status::OK();
}

Result<std::shared_ptr<const Snapshot>> Snapshot::Load(std::shared_ptr<ObjectStore> store, std::optional<int64_t> version,
                                                       SnapshotOptions options) {
  std::shared_ptr<Snapshot> snap(new Snapshot());
  snap->store_ = std::move(store);
  SILT_ASSIGN_OR_RETURN(snap->segment_, BuildLogSegment(*snap->store_, version));
  SILT_RETURN_NOT_OK(snap->Replay(options));
  return std::shared_ptr<const Snapshot>(std::move(snap));
}

}  // namespace silt::delta
