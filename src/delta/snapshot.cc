#include "delta/snapshot.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "common/error_classes.h"
#include "common/key_filter.h"
#include "common/logging.h"
#include "common/thread_pool.h"
#include "delta/log_listing.h"
#include "delta/stats_json.h"
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
    case TypeId::kInt32:
      return v->Get<int32_t>(i);
    case TypeId::kInt64:
      return v->Get<int64_t>(i);
    case TypeId::kInt16:
      return v->Get<int16_t>(i);
    default:
      return std::nullopt;
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
  for (uint32_t k = off[i]; k < off[i + 1]; ++k)
    m.Append(std::string(v->child(0).GetString(k)), value(&v->child(1), k));
  return m;
}
std::optional<StringMap> Strings(const Vector* v, size_t i) {
  return MapOf<StringMap>(v, i, [](const Vector* c, size_t k) { return Str(c, k).value_or(""); });
}
PartitionValues Partitions(const Vector* v, size_t i) {
  return MapOf<PartitionValues>(v, i, [](const Vector* c, size_t k) { return Str(c, k); })
      .value_or(PartitionValues{});
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

// The columns of one action struct of a checkpoint chunk, resolved once per chunk (a by-name
// lookup per row and field costs more than decoding the row).
struct AddColumns {
  const Vector *st = nullptr, *path, *pv, *size, *mtime, *dc, *stats, *stats_parsed, *tags, *dv,
               *brid, *drcv, *cp;
  explicit AddColumns(const Vector* v) : st(v) {
    path = Child(v, "path"), pv = Child(v, "partitionValues"), size = Child(v, "size");
    mtime = Child(v, "modificationTime"), dc = Child(v, "dataChange"), stats = Child(v, "stats");
    stats_parsed = Child(v, "stats_parsed");
    tags = Child(v, "tags"), dv = Child(v, "deletionVector"), brid = Child(v, "baseRowId");
    drcv = Child(v, "defaultRowCommitVersion"), cp = Child(v, "clusteringProvider");
  }
  AddFile Read(size_t i) const {
    AddFile a;
    a.path = Str(path, i).value_or("");
    a.partition_values = Partitions(pv, i);
    a.size = Int(size, i).value_or(0);
    a.modification_time = Int(mtime, i).value_or(0);
    a.data_change = Bool(dc, i).value_or(false);
    a.stats = Str(stats, i);
    // delta.checkpoint.writeStatsAsStruct checkpoints may carry only stats_parsed. When both are
    // there they hold the same stats, and the JSON text is used as is (exact bytes, no work).
    if (!a.stats && stats_parsed) a.stats = StatsJsonFromParsed(*stats_parsed, i);
    a.tags = Strings(tags, i);
    a.deletion_vector = Dv(dv, i);
    a.base_row_id = Int(brid, i);
    a.default_row_commit_version = Int(drcv, i);
    a.clustering_provider = Str(cp, i);
    return a;
  }
};

struct RemoveColumns {
  const Vector *st = nullptr, *path, *ts, *dc, *efm, *pv, *size, *dv, *brid, *drcv;
  explicit RemoveColumns(const Vector* v) : st(v) {
    path = Child(v, "path"), ts = Child(v, "deletionTimestamp"), dc = Child(v, "dataChange");
    efm = Child(v, "extendedFileMetadata"), pv = Child(v, "partitionValues"),
    size = Child(v, "size");
    dv = Child(v, "deletionVector"), brid = Child(v, "baseRowId");
    drcv = Child(v, "defaultRowCommitVersion");
  }
  RemoveFile Read(size_t i) const {
    RemoveFile r;
    r.path = Str(path, i).value_or("");
    r.deletion_timestamp = Int(ts, i);
    r.data_change = Bool(dc, i).value_or(false);
    r.extended_file_metadata = Bool(efm, i);
    if (pv && pv->IsValid(i)) r.partition_values = Partitions(pv, i);
    r.size = Int(size, i);
    r.deletion_vector = Dv(dv, i);
    r.base_row_id = Int(brid, i);
    r.default_row_commit_version = Int(drcv, i);
    return r;
  }
};

// The non-file action in row i of a checkpoint chunk, if any.
std::optional<Action> SmallActionFromRow(const Vector* md, const Vector* pr, const Vector* txn,
                                         const Vector* dom, const Vector* cpm, const Vector* sc,
                                         size_t i) {
  if (md && md->IsValid(i)) {
    Metadata m;
    m.id = Str(Child(md, "id"), i).value_or("");
    m.name = Str(Child(md, "name"), i);
    m.description = Str(Child(md, "description"), i);
    if (const Vector* f = Child(md, "format")) {
      m.format.provider = Str(Child(f, "provider"), i).value_or("parquet");
      if (auto o = Strings(Child(f, "options"), i)) m.format.options = *o;
    }
    m.schema_string = Str(Child(md, "schemaString"), i);
    m.partition_columns =
        StrList(Child(md, "partitionColumns"), i).value_or(std::vector<std::string>{});
    if (auto c = Strings(Child(md, "configuration"), i)) m.configuration = *c;
    m.created_time = Int(Child(md, "createdTime"), i);
    return Action(std::move(m));
  }
  if (pr && pr->IsValid(i)) {
    Protocol p;
    p.min_reader_version = static_cast<int32_t>(Int(Child(pr, "minReaderVersion"), i).value_or(1));
    p.min_writer_version = static_cast<int32_t>(Int(Child(pr, "minWriterVersion"), i).value_or(2));
    p.reader_features = StrList(Child(pr, "readerFeatures"), i);
    p.writer_features = StrList(Child(pr, "writerFeatures"), i);
    return Action(std::move(p));
  }
  if (txn && txn->IsValid(i)) {
    SetTransaction t;
    t.app_id = Str(Child(txn, "appId"), i).value_or("");
    t.version = Int(Child(txn, "version"), i).value_or(0);
    t.last_updated = Int(Child(txn, "lastUpdated"), i);
    return Action(std::move(t));
  }
  if (dom && dom->IsValid(i)) {
    DomainMetadata d;
    d.domain = Str(Child(dom, "domain"), i).value_or("");
    d.configuration = Str(Child(dom, "configuration"), i).value_or("");
    d.removed = Bool(Child(dom, "removed"), i).value_or(false);
    return Action(std::move(d));
  }
  if (cpm && cpm->IsValid(i)) {
    CheckpointMetadata c;
    c.version = Int(Child(cpm, "version"), i).value_or(0);
    c.tags = Strings(Child(cpm, "tags"), i);
    return Action(std::move(c));
  }
  if (sc && sc->IsValid(i)) {
    Sidecar s;
    s.path = Str(Child(sc, "path"), i).value_or("");
    s.size_in_bytes = Int(Child(sc, "sizeInBytes"), i).value_or(0);
    s.modification_time = Int(Child(sc, "modificationTime"), i).value_or(0);
    s.tags = Strings(Child(sc, "tags"), i);
    return Action(std::move(s));
  }
  return std::nullopt;
}

// Whether row group rg holds no action of the kind of top-level column `node`: the field every
// such action must have (add.path, metaData.id, …) is null in all its rows, by the chunk
// statistics. Then the column's decode is skipped — most checkpoint rows are adds, so remove,
// metaData, protocol, … are all-null columns of as many rows. False when the writer left the null
// count out. (The whole struct's leaves cannot decide it: writers count nulls of map and list
// leaves differently.)
// Whether non-repeated leaf `field` of struct `node` is null in every row of row group rg.
bool FieldAllNull(const parquet::ParquetFile& pf, int rg, const parquet::ColumnNode& node,
                  std::string_view field) {
  if (node.kind != parquet::ColumnNode::kStruct) return false;
  for (const parquet::ColumnNode& c : node.children) {
    if (c.name != field) continue;
    if (c.kind != parquet::ColumnNode::kLeaf || c.max_rep != 0) return false;
    // A non-repeated leaf has one level entry per row: all of them null.
    parquet::ColumnStatistics s = pf.GetStatistics(rg, c.leaf_index);
    return s.null_count && *s.null_count == s.num_values &&
           s.num_values == pf.metadata().row_groups[static_cast<size_t>(rg)].num_rows;
  }
  return false;
}

bool NoActionsIn(const parquet::ParquetFile& pf, int rg, const parquet::ColumnNode& node) {
  static const std::pair<std::string_view, std::string_view> kRequired[] = {
      {"add", "path"},
      {"remove", "path"},
      {"metaData", "id"},
      {"protocol", "minReaderVersion"},
      {"txn", "appId"},
      {"domainMetadata", "domain"},
      {"checkpointMetadata", "version"},
      {"sidecar", "path"}};
  for (const auto& [action, field] : kRequired)
    if (node.name == action) return FieldAllNull(pf, rg, node, field);
  return false;
}

// Whether no file action of file-action column `node` (add or remove) in row group rg has a
// deletion vector (deletionVector.storageType, required in a descriptor, is all null).
bool NoDvsIn(const parquet::ParquetFile& pf, int rg, const parquet::ColumnNode& node) {
  for (const parquet::ColumnNode& c : node.children)
    if (c.name == "deletionVector") return FieldAllNull(pf, rg, c, "storageType");
  return true;
}

// The reconciliation key of a file action: the path decoded once (file: URIs canonicalised to
// plain absolute paths, so `file:/p`, `file:///p` and `/p` name one file) plus the DV's id.
std::string FileKey(std::string_view path, const std::optional<DeletionVectorDescriptor>& dv) {
  std::string key;
  if (UriScheme(path) == "file") {
    auto local = LocalPathFromUri(path);
    key = local.ok() ? *local : std::string(path);
  } else {
    auto decoded = PercentDecode(path);
    key = decoded.ok() ? *decoded : std::string(path);
  }
  if (dv) {
    key += '\x1f';
    key += dv->UniqueId();
  }
  return key;
}

}  // namespace

Status Snapshot::CheckWriteSupported(bool removes_data, const std::string& table) const {
  const uint8_t bit = removes_data ? 2 : 1;
  if (write_check_.ok.load(std::memory_order_acquire) & bit) return Status::OK();
  SILT_RETURN_NOT_OK(delta::CheckWriteSupported(protocol_, metadata_, removes_data, table));
  write_check_.ok.fetch_or(bit, std::memory_order_acq_rel);
  return Status::OK();
}

std::optional<std::string> Snapshot::property(const std::string& key) const {
  const std::string* v = metadata_.configuration.Find(key);
  return v ? std::optional<std::string>(*v) : std::nullopt;
}

// Replay state shared by the commit pass and the checkpoint pass.
struct Snapshot::ReplayState {
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  bool have_protocol = false, have_metadata = false;
  // Reconciliation keys of the file actions of commits newer than the checkpoint. Checkpoint
  // rows are only checked against it, never added: a checkpoint holds reconciled state (one
  // action per key), so a 300k-file checkpoint needs no 300k-entry set.
  std::unordered_set<std::string, KeyHash, std::equal_to<>> seen;
  KeyQuickFilter seen_filter;  // of the keys in `seen`: most checkpoint rows skip the hash lookup
  std::unordered_set<std::string> seen_txn, seen_domain;
  std::vector<std::string> sidecars;

  // Records a commit's file action; false when a newer commit had its key already.
  bool SeeInCommit(std::string key) {
    seen_filter.Add(key);
    return seen.insert(std::move(key)).second;
  }
  bool SeenInCommits(std::string_view path,
                     const std::optional<DeletionVectorDescriptor>& dv) const {
    if (seen.empty()) return false;
    if (!dv && Unescaped(path)) return SeenUnescaped(path);
    return seen.count(FileKey(path, dv)) != 0;
  }
  // A path without escapes or scheme and without a DV is its own key: no allocation.
  bool SeenUnescaped(std::string_view path) const {
    return !seen.empty() && seen_filter.MayContain(path) && seen.find(path) != seen.end();
  }
  static bool Unescaped(std::string_view path) {
    return std::memchr(path.data(), '%', path.size()) == nullptr &&
           std::memchr(path.data(), ':', path.size()) == nullptr;
  }
};

void Snapshot::Apply(Action& a, bool from_checkpoint, ReplayState* st) {
  switch (a.kind()) {
    case ActionKind::kProtocol:
      if (!st->have_protocol)
        protocol_ = std::move(*a.get_if<Protocol>()), st->have_protocol = true;
      break;
    case ActionKind::kMetadata:
      if (!st->have_metadata)
        metadata_ = std::move(*a.get_if<Metadata>()), st->have_metadata = true;
      break;
    case ActionKind::kAdd: {
      AddFile& f = *a.get_if<AddFile>();
      if (from_checkpoint) {
        if (!st->SeenInCommits(f.path, f.deletion_vector)) files_.push_back(std::move(f));
      } else if (st->SeeInCommit(FileKey(f.path, f.deletion_vector))) {
        files_.push_back(std::move(f));
      }
      break;
    }
    case ActionKind::kRemove: {
      RemoveFile& r = *a.get_if<RemoveFile>();
      if (from_checkpoint) {
        if (!st->SeenInCommits(r.path, r.deletion_vector)) tombstones_.push_back(std::move(r));
      } else if (st->SeeInCommit(FileKey(r.path, r.deletion_vector))) {
        tombstones_.push_back(std::move(r));
      }
      break;
    }
    case ActionKind::kTxn: {
      SetTransaction& t = *a.get_if<SetTransaction>();
      if (st->seen_txn.insert(t.app_id).second) txns_[t.app_id] = std::move(t);
      break;
    }
    case ActionKind::kDomainMetadata: {
      DomainMetadata& d = *a.get_if<DomainMetadata>();
      if (st->seen_domain.insert(d.domain).second && !d.removed) domains_[d.domain] = std::move(d);
      break;
    }
    case ActionKind::kSidecar:
      if (from_checkpoint) st->sidecars.push_back(a.get_if<Sidecar>()->path);
      break;
    default:
      break;
  }
}

// Decodes a Parquet checkpoint (part or sidecar) one row group at a time and reconciles each
// row as it goes, so only one decoded row group is alive besides the snapshot's own state.
Status Snapshot::ReadParquetCheckpoint(const std::string& key, bool load_files, ReplayState* st) {
  SILT_ASSIGN_OR_RETURN(auto file, store_->OpenRead(key));
  SILT_ASSIGN_OR_RETURN(auto pf, parquet::ParquetFile::Open(file));
  const Schema& schema = pf->schema().schema();
  std::vector<int> cols;
  for (const char* name : {"add", "remove", "metaData", "protocol", "txn", "domainMetadata",
                           "checkpointMetadata", "sidecar"}) {
    if (!load_files && (std::string_view(name) == "add" || std::string_view(name) == "remove"))
      continue;
    int i = FindField(schema, name);
    if (i < 0) continue;
    cols.push_back(i);
  }
  // Reserve the live-file vector once: the add rows of each row group are its rows minus the
  // nulls of add.path (chunk statistics), so growth never copies 300k AddFiles twice.
  if (load_files && FindField(schema, "add") >= 0) {
    int path_leaf = -1;
    for (int l = 0; l < pf->schema().num_leaves(); ++l) {
      const auto& p = pf->schema().leaf(l).path;
      if (p.size() == 2 && p[0] == "add" && p[1] == "path") path_leaf = l;
    }
    int64_t adds = 0;
    bool known = path_leaf >= 0;
    for (int rg = 0; known && rg < pf->num_row_groups(); ++rg) {
      auto stats = pf->GetStatistics(rg, path_leaf);
      if (!stats.null_count) {
        known = false;
      } else {
        adds += pf->metadata().row_groups[static_cast<size_t>(rg)].num_rows - *stats.null_count;
      }
    }
    if (known && adds > 0) files_.reserve(files_.size() + static_cast<size_t>(adds));
  }
  DataChunk chunk;
  std::vector<const parquet::ColumnNode*> nodes;
  std::vector<std::string_view> names;  // of `nodes`, in order
  for (int rg = 0; rg < pf->num_row_groups(); ++rg) {
    nodes.clear();
    names.clear();
    for (int ci : cols) {
      const parquet::ColumnNode& n = pf->schema().columns()[static_cast<size_t>(ci)];
      if (NoActionsIn(*pf, rg, n)) continue;
      nodes.push_back(&n);
      names.push_back(n.name);
    }
    if (nodes.empty()) continue;
    Status s = pf->ReadRowGroupNodes(rg, nodes, &chunk);
    if (!s.ok()) return s.WithContext("checkpoint " + key);
    auto column = [&](const char* name) -> const Vector* {
      auto it = std::find(names.begin(), names.end(), std::string_view(name));
      return it == names.end() ? nullptr : &chunk.columns[static_cast<size_t>(it - names.begin())];
    };
    const Vector* add_v = column("add");
    const Vector* rem_v = column("remove");
    std::optional<AddColumns> add;
    std::optional<RemoveColumns> rem;
    if (add_v) add.emplace(add_v);
    if (rem_v) rem.emplace(rem_v);
    const Vector *md = column("metaData"), *pr = column("protocol"), *txn = column("txn"),
                 *dom = column("domainMetadata"), *cpm = column("checkpointMetadata"),
                 *sc = column("sidecar");
    for (size_t i = 0; i < chunk.size(); ++i) {
      if (add_v && add_v->IsValid(i)) {
        AddFile f = add->Read(i);
        if (!st->SeenInCommits(f.path, f.deletion_vector)) files_.push_back(std::move(f));
      } else if (rem_v && rem_v->IsValid(i)) {
        RemoveFile r = rem->Read(i);
        if (!st->SeenInCommits(r.path, r.deletion_vector)) tombstones_.push_back(std::move(r));
      } else if (auto a = SmallActionFromRow(md, pr, txn, dom, cpm, sc, i)) {
        Apply(*a, true, st);
      }
    }
  }
  return Status::OK();
}

namespace {
// The store key of a V2 checkpoint's sidecar (paths are relative to _delta_log/_sidecars/).
Result<std::string> SidecarKey(const std::string& path) {
  SILT_ASSIGN_OR_RETURN(DeltaPath dp, ParseDeltaPath(path));
  if (dp.absolute)
    return Status::NotImplemented("absolute sidecar paths are not supported: " + path);
  return std::string(kLogDir) + "_sidecars/" + dp.path;
}
}  // namespace

Status Snapshot::ReadCheckpoint(const SnapshotOptions& options, ReplayState* st) {
  for (const LogFile& part : segment_.checkpoint_parts) {
    if (part.json) {
      SILT_ASSIGN_OR_RETURN(std::string bytes, store_->Get(part.meta.key));
      std::vector<Action> actions;
      SILT_RETURN_NOT_OK(ParseCommit(bytes, &actions, part.meta.key));
      for (auto& a : actions) {
        if (!options.load_files &&
            (a.kind() == ActionKind::kAdd || a.kind() == ActionKind::kRemove))
          continue;
        Apply(a, true, st);
      }
    } else {
      SILT_RETURN_NOT_OK(ReadParquetCheckpoint(part.meta.key, options.load_files, st));
    }
  }
  if (!options.load_files) return Status::OK();
  // V2 checkpoints keep their file actions in sidecars.
  std::vector<std::string> sidecars = std::move(st->sidecars);
  for (const auto& p : sidecars) {
    SILT_ASSIGN_OR_RETURN(std::string key, SidecarKey(p));
    SILT_RETURN_NOT_OK(ReadParquetCheckpoint(key, true, st));
  }
  return Status::OK();
}

// Reconciles one file action for ForEachFileAction exactly as Apply does for the file list.
Status Snapshot::VisitFileAction(Action& a, bool from_checkpoint, ReplayState* st,
                                 const FileActionVisitor& visit) {
  auto live = [&](const std::string& path, const std::optional<DeletionVectorDescriptor>& dv) {
    return from_checkpoint ? !st->SeenInCommits(path, dv) : st->SeeInCommit(FileKey(path, dv));
  };
  if (const AddFile* f = a.get_if<AddFile>()) {
    if (live(f->path, f->deletion_vector))
      return visit(FileActionRef{true, f->path, f->deletion_vector ? &*f->deletion_vector : nullptr,
                                 std::nullopt});
  } else if (const RemoveFile* r = a.get_if<RemoveFile>()) {
    if (live(r->path, r->deletion_vector))
      return visit(FileActionRef{false, r->path,
                                 r->deletion_vector ? &*r->deletion_vector : nullptr,
                                 r->deletion_timestamp});
  } else if (const Sidecar* sc = a.get_if<Sidecar>(); sc && from_checkpoint) {
    st->sidecars.push_back(sc->path);
  }
  return Status::OK();
}

// The file actions of a Parquet checkpoint (part or sidecar), decoding only add.path,
// add.deletionVector, remove.path, remove.deletionTimestamp, remove.deletionVector and the sidecar
// column: no stats, partition values or tags, and no AddFile per row. The work is a list of tasks
// (a page range of add.path, or a row group's other columns), run in order without a pool.
Status Snapshot::VisitParquetCheckpoint(const std::string& key, ReplayState* st,
                                        const FileActionVisitorFactory& make_visitor,
                                        ThreadPool* pool) const {
  SILT_ASSIGN_OR_RETURN(auto file, store_->OpenRead(key));
  SILT_ASSIGN_OR_RETURN(auto pf, parquet::ParquetFile::Open(file));
  const Schema& schema = pf->schema().schema();
  auto top = [&](const char* name) -> const parquet::ColumnNode* {
    int i = FindField(schema, name);
    return i < 0 ? nullptr : &pf->schema().columns()[static_cast<size_t>(i)];
  };
  // Each file-action column pruned with and without its deletionVector (row groups without DVs
  // skip decoding those five all-null leaves).
  std::optional<parquet::ColumnNode> add_node, rem_node, add_no_dv, rem_no_dv;
  if (const auto* n = top("add")) {
    add_node = parquet::PruneStruct(*n, {"path", "deletionVector"});
    add_no_dv = parquet::PruneStruct(*n, {"path"});
  }
  if (const auto* n = top("remove")) {
    rem_node = parquet::PruneStruct(*n, {"path", "deletionTimestamp", "deletionVector"});
    rem_no_dv = parquet::PruneStruct(*n, {"path", "deletionTimestamp"});
  }
  const parquet::ColumnNode* sc_node = top("sidecar");
  int add_path_leaf = -1;
  if (add_node) {
    for (const parquet::ColumnNode& c : add_node->children)
      if (c.name == "path" && c.kind == parquet::ColumnNode::kLeaf) add_path_leaf = c.leaf_index;
  }
  struct Task {
    int rg = 0;
    int64_t first_row = 0, end_row = -1;  // add.path rows (paths_only)
    bool paths_only = false;
    std::vector<const parquet::ColumnNode*> nodes;
    int add_i = -1, rem_i = -1, sc_i = -1;  // positions in nodes
  };
  std::vector<Task> tasks;
  // Page ranges per row group: a few per thread, so that uneven row groups still spread and the
  // range that decodes the dictionary (the first, before a PLAIN fallback) is not the long pole.
  const size_t parts = pool ? 4 * (pool->num_threads() + 1) : 1;
  for (int rg = 0; rg < pf->num_row_groups(); ++rg) {
    Task t;
    t.rg = rg;
    auto want = [&](const std::optional<parquet::ColumnNode>& full,
                    const std::optional<parquet::ColumnNode>& no_dv, int* index) {
      if (!full || NoActionsIn(*pf, rg, *full)) return;
      *index = static_cast<int>(t.nodes.size());
      t.nodes.push_back(no_dv && NoDvsIn(*pf, rg, *full) ? &*no_dv : &*full);
    };
    if (add_node && add_path_leaf >= 0 && !NoActionsIn(*pf, rg, *add_node) &&
        NoDvsIn(*pf, rg, *add_node)) {
      // Adds without DVs need only their paths (a row is an add iff add.path is set): straight
      // from the pages, without a string vector of 100k paths.
      const int64_t rows = pf->metadata().row_groups[static_cast<size_t>(rg)].num_rows;
      std::vector<int64_t> starts =
          parts > 1 ? pf->PageRowStarts(rg, add_path_leaf) : std::vector<int64_t>{0};
      starts.push_back(rows);
      const int64_t target = rows / static_cast<int64_t>(parts) + 1;
      int64_t begin = 0;
      for (size_t i = 1; i < starts.size(); ++i) {
        if (starts[i] - begin < target && i + 1 < starts.size()) continue;
        Task r;
        r.rg = rg;
        r.first_row = begin;
        r.end_row = starts[i];
        r.paths_only = true;
        tasks.push_back(std::move(r));
        begin = starts[i];
      }
    } else {
      want(add_node, add_no_dv, &t.add_i);
    }
    want(rem_node, rem_no_dv, &t.rem_i);
    if (sc_node && !NoActionsIn(*pf, rg, *sc_node)) {
      t.sc_i = static_cast<int>(t.nodes.size());
      t.nodes.push_back(sc_node);
    }
    if (!t.nodes.empty()) tasks.push_back(std::move(t));
  }
  std::mutex sidecars_mu;
  return ParallelFor(pool, tasks.size(), [&](size_t ti) -> Status {
    const Task& t = tasks[ti];
    const FileActionVisitor visit = make_visitor();
    if (t.paths_only) {
      Status s = pf->ForEachString(
          t.rg, add_path_leaf,
          [&](std::string_view path) -> Status {
            // Checked once here for both the reconciliation and the visitor (e.g. VACUUM's keys).
            const bool unescaped = ReplayState::Unescaped(path);
            if (unescaped ? st->SeenUnescaped(path) : st->SeenInCommits(path, std::nullopt))
              return Status::OK();
            return visit(FileActionRef{true, path, nullptr, std::nullopt, unescaped});
          },
          t.first_row, t.end_row);
      return s.ok() || !s.IsCorruption() ? s : s.WithContext("checkpoint " + key);
    }
    DataChunk chunk;
    Status s = pf->ReadRowGroupNodes(t.rg, t.nodes, &chunk);
    if (!s.ok()) return s.WithContext("checkpoint " + key);
    auto column = [&](int i) -> const Vector* {
      return i < 0 ? nullptr : &chunk.columns[static_cast<size_t>(i)];
    };
    const Vector *add_v = column(t.add_i), *rem_v = column(t.rem_i), *sc_v = column(t.sc_i);
    const Vector *add_path = Child(add_v, "path"), *add_dv = Child(add_v, "deletionVector");
    const Vector *rem_path = Child(rem_v, "path"), *rem_ts = Child(rem_v, "deletionTimestamp"),
                 *rem_dv = Child(rem_v, "deletionVector");
    const Vector* sc_path = Child(sc_v, "path");
    for (size_t i = 0; i < chunk.size(); ++i) {
      if (add_v && add_v->IsValid(i)) {
        std::string_view path =
            add_path && add_path->IsValid(i) ? add_path->GetString(i) : std::string_view();
        std::optional<DeletionVectorDescriptor> dv = Dv(add_dv, i);
        if (!st->SeenInCommits(path, dv))
          SILT_RETURN_NOT_OK(visit(FileActionRef{true, path, dv ? &*dv : nullptr, std::nullopt}));
      } else if (rem_v && rem_v->IsValid(i)) {
        std::string_view path =
            rem_path && rem_path->IsValid(i) ? rem_path->GetString(i) : std::string_view();
        std::optional<DeletionVectorDescriptor> dv = Dv(rem_dv, i);
        if (!st->SeenInCommits(path, dv))
          SILT_RETURN_NOT_OK(
              visit(FileActionRef{false, path, dv ? &*dv : nullptr, Int(rem_ts, i)}));
      } else if (sc_v && sc_v->IsValid(i)) {
        std::lock_guard<std::mutex> lock(sidecars_mu);
        st->sidecars.push_back(Str(sc_path, i).value_or(""));
      }
    }
    return Status::OK();
  });
}

Status Snapshot::ForEachFileAction(const FileActionVisitor& visit) const {
  return ForEachFileActionOn(nullptr, [&visit]() -> FileActionVisitor { return std::cref(visit); });
}

Status Snapshot::ForEachFileActionOn(ThreadPool* pool,
                                     const FileActionVisitorFactory& make_visitor) const {
  const FileActionVisitor visit = make_visitor();  // the commits' (and a loaded file list's)
  if (files_loaded_) {
    for (const AddFile& f : files_)
      SILT_RETURN_NOT_OK(visit(FileActionRef{
          true, f.path, f.deletion_vector ? &*f.deletion_vector : nullptr, std::nullopt}));
    for (const RemoveFile& r : tombstones_)
      SILT_RETURN_NOT_OK(visit(FileActionRef{
          false, r.path, r.deletion_vector ? &*r.deletion_vector : nullptr, r.deletion_timestamp}));
    return Status::OK();
  }
  // A visitor's own error is the caller's, never a reason to fall back.
  std::atomic<bool> visitor_failed{false};
  const FileActionVisitorFactory make_marked = [&]() -> FileActionVisitor {
    return [&visitor_failed, inner = make_visitor()](const FileActionRef& fa) -> Status {
      Status s = inner(fa);
      if (!s.ok()) visitor_failed.store(true);
      return s;
    };
  };
  const FileActionVisitor marked = [&](const FileActionRef& fa) -> Status {
    Status s = visit(fa);
    if (!s.ok()) visitor_failed.store(true);
    return s;
  };
  // *in_checkpoint: the walk had reached the checkpoint (its parts or sidecars) when it failed.
  auto walk = [&](const LogSegment& seg, bool* in_checkpoint) -> Status {
    ReplayState st;
    for (auto it = seg.commits.rbegin(); it != seg.commits.rend(); ++it) {
      SILT_ASSIGN_OR_RETURN(std::string bytes, store_->Get(it->meta.key));
      std::vector<Action> actions;
      SILT_RETURN_NOT_OK(ParseCommit(bytes, &actions, it->meta.key));
      for (auto& a : actions) SILT_RETURN_NOT_OK(VisitFileAction(a, false, &st, marked));
    }
    if (seg.checkpoint_version < 0) return Status::OK();
    *in_checkpoint = true;
    for (const LogFile& part : seg.checkpoint_parts) {
      if (part.json) {
        SILT_ASSIGN_OR_RETURN(std::string bytes, store_->Get(part.meta.key));
        std::vector<Action> actions;
        SILT_RETURN_NOT_OK(ParseCommit(bytes, &actions, part.meta.key));
        for (auto& a : actions) SILT_RETURN_NOT_OK(VisitFileAction(a, true, &st, marked));
      } else {
        SILT_RETURN_NOT_OK(VisitParquetCheckpoint(part.meta.key, &st, make_marked, pool));
      }
    }
    std::vector<std::string> sidecars = std::move(st.sidecars);
    for (const auto& p : sidecars) {
      SILT_ASSIGN_OR_RETURN(std::string key, SidecarKey(p));
      SILT_RETURN_NOT_OK(VisitParquetCheckpoint(key, &st, make_marked, pool));
    }
    return Status::OK();
  };
  // A checkpoint that loaded but turns out damaged now (a part, a row group or a sidecar that
  // cannot be read, or was replaced since the load) falls back like Load: the walk runs again
  // over an older checkpoint or the commits alone. The visitor may then see actions again (and
  // the damaged checkpoint's readable ones): a superset, which is what VACUUM's valid set needs
  // (a file a damaged checkpoint lists is never taken for unreferenced). When no fallback is
  // left, the checkpoint's error is returned and the caller acts on nothing.
  LogSegment seg = segment_;
  Status first_failure;
  for (;;) {
    bool in_checkpoint = false;
    Status s = walk(seg, &in_checkpoint);
    if (s.ok()) return s;
    if (!in_checkpoint || visitor_failed.load() ||
        s.error_class() == errc::kSiltMemoryLimitExceeded)
      return s;
    if (first_failure.ok()) first_failure = s;
    SILT_LOG(kWarn) << "checkpoint " << seg.checkpoint_version << " of " << store_->root()
                    << " cannot be read while walking its file actions, using an older checkpoint"
                    << " or the commits instead: " << s.ToString();
    Result<LogSegment> older = BuildLogSegment(*store_, segment_.version, seg.checkpoint_version);
    if (!older.ok()) return first_failure;
    seg = std::move(older).value();
  }
}

namespace {
// Set by Replay when reading the checkpoint failed, for Load's fallback (per thread: Load and
// Replay run in the caller's thread).
thread_local bool t_checkpoint_read_failed = false;
}  // namespace

Status Snapshot::Replay(const SnapshotOptions& options) {
  ReplayState st;
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
      if (!options.load_files && (a.kind() == ActionKind::kAdd || a.kind() == ActionKind::kRemove))
        continue;
      Apply(a, false, &st);
    }
  }
  if (segment_.checkpoint_version >= 0) {
    Status cs = ReadCheckpoint(options, &st);
    if (!cs.ok()) {
      t_checkpoint_read_failed = true;
      return cs;
    }
    if (segment_.commits.empty() && !segment_.checkpoint_parts.empty())
      timestamp_ms_ = segment_.checkpoint_parts[0].meta.modification_time_ms;
  }
  const std::string& root = store_->root();
  if (!st.have_protocol)
    return Status::Corruption(
        "version " + std::to_string(version()) + " of " + root + " has no protocol action",
        errc::kDeltaStateRecoverError);
  if (!st.have_metadata)
    return Status::Corruption(
        "version " + std::to_string(version()) + " of " + root + " has no metaData action",
        errc::kDeltaStateRecoverError);
  SILT_RETURN_NOT_OK(CheckReadSupported(protocol_, root));
  if (metadata_.schema_string) {
    auto schema = ParseSchemaString(*metadata_.schema_string);
    if (!schema.ok()) return schema.status().WithContext(root);
    schema_ = std::move(schema).value();
  }
  const std::string* mode = metadata_.configuration.Find("delta.columnMapping.mode");
  SILT_ASSIGN_OR_RETURN(
      column_mapping_,
      ParseColumnMappingMode(mode ? std::optional<std::string>(*mode) : std::nullopt));
  return Status::OK();
}

Result<std::shared_ptr<const Snapshot>> Snapshot::Load(std::shared_ptr<ObjectStore> store,
                                                       std::optional<int64_t> version,
                                                       SnapshotOptions options) {
  std::optional<int64_t> checkpoint_below;
  Status first_failure;
  for (;;) {
    std::shared_ptr<Snapshot> snap(new Snapshot());
    snap->store_ = store;
    snap->files_loaded_ = options.load_files;
    snap->read_confinement_ = options.read_confinement;
    Result<LogSegment> segment = BuildLogSegment(*snap->store_, version, checkpoint_below);
    // A fallback that finds no older checkpoint and no commit 0 reports the damage itself.
    if (!segment.ok()) return first_failure.ok() ? segment.status() : first_failure;
    snap->segment_ = std::move(segment).value();
    t_checkpoint_read_failed = false;
    Status s = snap->Replay(options);
    if (s.ok()) return std::shared_ptr<const Snapshot>(std::move(snap));
    const bool checkpoint_failed = std::exchange(t_checkpoint_read_failed, false);
    // A damaged checkpoint (truncated or garbled Parquet, a part or sidecar gone) does not make the
    // table unreadable while the commits exist: like Delta, fall back to an older checkpoint or
    // to the commits alone. A memory limit is no damage.
    if (!checkpoint_failed || s.error_class() == errc::kSiltMemoryLimitExceeded) return s;
    const int64_t damaged = snap->segment_.checkpoint_version;
    SILT_LOG(kWarn) << "checkpoint " << damaged << " of " << store->root()
                    << " cannot be read, using an older checkpoint or the commits instead: "
                    << s.ToString();
    if (first_failure.ok()) first_failure = s;
    checkpoint_below = damaged;
  }
}

}  // namespace silt::delta
