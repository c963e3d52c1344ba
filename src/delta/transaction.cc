#include "delta/transaction.h"

#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <unordered_set>

#include "common/error_classes.h"
#include "common/logging.h"
#include "delta/change_data_feed.h"
#include "delta/checkpoint_writer.h"
#include "delta/iceberg_compat.h"
#include "delta/iceberg_metadata.h"
#include "delta/log_cleanup.h"
#include "delta/log_listing.h"
#include "delta/scan.h"
#include "delta/schema_json.h"
#include "delta/table_features.h"
#include "delta/table_properties.h"
#include "delta/z85.h"
#include "io/path.h"

namespace silt::delta {
namespace {

Status Conflict(const char* cls, const std::string& msg) {
  return Status::CommitConflict(msg, cls);
}

std::string NormalizedPath(const std::string& p) {
  auto d = PercentDecode(p);
  return d.ok() ? *d : p;
}

constexpr char kRowTrackingDomain[] = "delta.rowTracking";

// rowIdHighWaterMark of a delta.rowTracking domain configuration; nullopt when absent/invalid.
std::optional<int64_t> HighWaterMark(const std::string& configuration) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  int64_t v;
  if (parser.parse(configuration).get(doc) || doc["rowIdHighWaterMark"].get_int64().get(v))
    return std::nullopt;
  return v;
}

// numRecords of a stats JSON text.
std::optional<int64_t> NumRecords(const std::optional<std::string>& stats) {
  if (!stats) return std::nullopt;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  int64_t v;
  if (parser.parse(*stats).get(doc) || doc["numRecords"].get_int64().get(v) || v < 0)
    return std::nullopt;
  return v;
}

bool SamePartition(const PartitionValues& a, const PartitionValues& b) {
  for (const auto& [k, v] : a.entries()) {
    const auto* o = b.Find(k);
    if (!o || *o != v) return false;
  }
  return true;
}

// The DV of `file` (empty when it has none).
Result<DeletionVector> DvOf(const Snapshot& snapshot, const std::string& path,
                            const std::optional<DeletionVectorDescriptor>& dv) {
  if (!dv) return DeletionVector();
  AddFile f;
  f.path = path;
  f.deletion_vector = dv;
  SILT_ASSIGN_OR_RETURN(std::optional<DeletionVector> loaded, LoadDeletionVector(snapshot, f));
  return loaded ? std::move(*loaded) : DeletionVector();
}

}  // namespace

bool RowLevelConcurrencyEnabled(const Snapshot& snapshot) {
  const auto& conf = snapshot.metadata().configuration;
  auto on = [&](const char* key, bool dflt) {
    return GetBoolProperty(conf, key, dflt).ValueOr(dflt);
  };
  return HasFeature(snapshot.protocol(), "deletionVectors") &&
         HasFeature(snapshot.protocol(), "rowTracking") &&
         on("delta.enableDeletionVectors", false) && on("delta.enableRowTracking", false) &&
         snapshot.partition_columns().empty() && on(kRowLevelConcurrencyProperty, true);
}

std::string TableIsolationLevel(const Metadata& metadata) {
  const std::string* v = metadata.configuration.Find("delta.isolationLevel");
  if (!v) return "Serializable";
  std::string lower;
  for (char c : *v) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "writeserializable" ? "WriteSerializable" : "Serializable";
}

RemoveFile MakeRemove(const AddFile& a, int64_t now_ms, bool data_change) {
  RemoveFile r;
  r.path = a.path;
  r.deletion_timestamp = now_ms;
  r.data_change = data_change;
  r.extended_file_metadata = true;
  r.partition_values = a.partition_values;
  r.size = a.size;
  r.tags = a.tags;
  r.deletion_vector = a.deletion_vector;
  r.base_row_id = a.base_row_id;
  r.default_row_commit_version = a.default_row_commit_version;
  return r;
}

Transaction::Transaction(std::shared_ptr<ObjectStore> store,
                         std::shared_ptr<const Snapshot> read_snapshot, TransactionOptions options)
    : store_(std::move(store)),
      read_snapshot_(std::move(read_snapshot)),
      options_(std::move(options)),
      txn_id_(Uuid::Random().ToString()) {
  if (read_snapshot_) {
    read_version_ = read_snapshot_->version();
    last_commit_timestamp_ = read_snapshot_->timestamp_ms();
    auto it = read_snapshot_->domains().find(kRowTrackingDomain);
    if (it != read_snapshot_->domains().end())
      row_id_high_water_mark_ = HighWaterMark(it->second.configuration).value_or(-1);
  }
}

bool Transaction::row_tracking_supported() const {
  const Protocol& p = new_protocol_ ? *new_protocol_ : read_snapshot_->protocol();
  if (!HasFeature(p, "rowTracking")) return false;
  // Supported but suspended (delta.rowTrackingSuspended = true): writers assign no row ids.
  const Metadata& md = new_metadata_ ? *new_metadata_ : read_snapshot_->metadata();
  return !GetBoolProperty(md.configuration, "delta.rowTrackingSuspended", false).ValueOr(false);
}

void Transaction::SetOperation(std::string operation, StringMap parameters) {
  operation_ = std::move(operation);
  operation_parameters_ = std::move(parameters);
}

void Transaction::SetMetric(const std::string& key, int64_t value) {
  operation_metrics_.Set(key, std::to_string(value));
}

std::string Transaction::isolation_level() const {
  if (options_.isolation_level != "Serializable") return options_.isolation_level;
  return TableIsolationLevel(new_metadata_ ? *new_metadata_ : read_snapshot_->metadata());
}

bool Transaction::is_blind_append() const {
  ReadScope scope =
      read_scope_.value_or(removes_.empty() ? ReadScope::kNothing : ReadScope::kWholeTable);
  return scope == ReadScope::kNothing && removes_.empty() && !new_metadata_ && !new_protocol_;
}

std::vector<Action> Transaction::BuildActions(int64_t version) const {
  std::vector<Action> out;
  CommitInfo ci;
  ci.timestamp = options_.clock->NowMillis();
  ci.operation = operation_;
  ci.operation_parameters = operation_parameters_;
  if (read_snapshot_) ci.read_version = read_version();
  ci.isolation_level = isolation_level();
  ci.is_blind_append = is_blind_append();
  if (!operation_metrics_.entries().empty()) ci.operation_metrics = operation_metrics_;
  ci.user_name = options_.user_name;
  ci.user_metadata = user_metadata_ ? user_metadata_ : options_.user_metadata;
  ci.engine_info = options_.engine_info;
  ci.txn_id = txn_id_;
  if (!tags_.entries().empty()) ci.tags = tags_;
  const bool row_tracking = row_tracking_supported();
  // In-commit timestamps: strictly after the previous commit's, whatever the local clock says.
  const Metadata& md = new_metadata_ ? *new_metadata_ : read_snapshot_->metadata();
  if (GetBoolProperty(md.configuration, "delta.enableInCommitTimestamps", false).ValueOr(false))
    ci.in_commit_timestamp = std::max(*ci.timestamp, last_commit_timestamp_ + 1);
  if (row_tracking &&
      GetBoolProperty(md.configuration, "delta.enableRowTracking", false).ValueOr(false)) {
    if (!ci.tags) ci.tags = StringMap{};
    // A rewrite (dataChange=false adds, e.g. OPTIMIZE or PURGE) moves existing rows into files
    // with fresh row ids: without materialized row id columns that does not preserve them.
    const bool rewrites = std::any_of(adds_.begin(), adds_.end(), [](const AddFile& a) {
      return !a.data_change && !a.base_row_id;
    });
    if (!ci.tags->Contains("delta.rowTracking.preserved"))
      ci.tags->Set("delta.rowTracking.preserved", rewrites ? "false" : "true");
  }
  out.push_back(std::move(ci));
  if (new_protocol_) out.push_back(*new_protocol_);
  if (new_metadata_) out.push_back(*new_metadata_);
  for (const auto& t : txns_) out.push_back(t);
  // Row tracking (PROTOCOL.md "Row Tracking"): fresh row ids start after the high-water mark;
  // the new mark goes into the same commit. Recomputed per attempt, so a retry after a
  // concurrent commit never reuses the winner's ids.
  std::vector<AddFile> adds = adds_;
  std::vector<bool> dropped(adds.size(), false);
  for (const auto& [path, u] : dv_updates_) dropped[u.add_index] = u.dropped;
  int64_t hwm = row_id_high_water_mark_;
  bool assigned = false;
  if (row_tracking) {
    for (size_t i = 0; i < adds.size(); ++i) {
      AddFile& a = adds[i];
      if (dropped[i]) continue;
      if (!a.base_row_id) {
        a.base_row_id = hwm + 1;
        hwm += add_num_records_[i];
        assigned = true;
      }
      if (!a.default_row_commit_version) a.default_row_commit_version = version;
    }
  }
  for (const auto& d : domains_) {
    if (assigned && d.domain == kRowTrackingDomain) continue;
    out.push_back(d);
  }
  if (assigned)
    out.push_back(DomainMetadata{kRowTrackingDomain,
                                 "{\"rowIdHighWaterMark\":" + std::to_string(hwm) + "}", false});
  for (const auto& r : removes_) out.push_back(r);
  for (size_t i = 0; i < adds.size(); ++i)
    if (!dropped[i]) out.push_back(std::move(adds[i]));
  for (const auto& c : cdcs_) out.push_back(c);
  return out;
}

// Conflict rules (Delta's ConflictChecker, plus Databricks' row-level concurrency). A commit that
// lost version v checks every winning commit since its read version, in order:
//   1. protocol change → DELTA_PROTOCOL_CHANGED; metadata change → DELTA_METADATA_CHANGED.
//   2. a winner's `txn` for one of our app ids → DELTA_CONCURRENT_TRANSACTION; a winner's domain
//      that we also set → DELTA_CONCURRENT_TRANSACTION (delta.rowTracking excepted: row ids are
//      reassigned after the winner's high-water mark on retry).
//   3. added files (dataChange=true) that our read could have seen → DELTA_CONCURRENT_APPEND:
//      kWholeTable: any; kPartitions: one of our partitions; kPredicate: the read predicate
//      holds for the file (DML: its file-level pruning does not skip it); kNothing (blind
//      append): never. Isolation: under WriteSerializable (delta.isolationLevel) files of a
//      winner that is itself a blind append are ignored (Delta's WriteSerializable); under
//      Serializable (the default, as Delta) they count.
//   4. removed files: one we also remove → DELTA_CONCURRENT_DELETE_DELETE; one we read (or any
//      dataChange remove when we read the whole table) → DELTA_CONCURRENT_DELETE_READ.
// Row-level concurrency (RowLevelConcurrencyEnabled: DVs and row tracking on, unpartitioned,
// silt.rowLevelConcurrency.enabled not false; for our DELETE, UPDATE and MERGE commits only, any
// winner) changes 3 and 4 for one kind of winner action, the
// DV update: a winner's remove of file F together with its add of the same path F (the same data
// file, with a larger deletion vector; DELETE/UPDATE/MERGE with DVs write exactly that):
//   a. the add is not an append (its rows are a subset of F's, which we read): rule 3 skips it;
//   b. if we only read F: no conflict (our statement is row-wise, the rows the winner hid are
//      rows we did not change, so "winner, then us" gives our result);
//   c. if we also updated F's DV (our remove of F + our add of F with a new DV): when the rows we
//      deleted from F (our DV minus our read snapshot's) and the winner's DV are disjoint, our
//      commit is rewritten to remove the winner's add and add F with the union of both DVs (a
//      new DV file), and retried; a row in both → DELTA_CONCURRENT_DELETE_DELETE (the same row
//      deleted or updated twice). When the union covers every row of F, F is removed instead.
//      UPDATE/MERGE's rewritten rows stay in their own new files; those of the winner go through
//      rule 3 (a winner's update that makes a row match our predicate still conflicts).
//   d. if we removed F entirely (all its rows deleted, copy-on-write): rule 4, as before.
// Not DV updates, so conflicts as before: files the winner removed without re-adding the same
// path (OPTIMIZE, PURGE/REORG, copy-on-write DML, a whole-file DELETE), and metadata changes.
// Known limit (as Databricks' "can conflict when modifying the same row"): a MERGE's decision
// that depends on a target row it matched but did not change (e.g. a source row not inserted
// because it matched) is not re-checked when a concurrent DV update deleted that row.
Status Transaction::CheckConflicts(const std::vector<Action>& winner, int64_t v) {
  const std::string where =
      "concurrent commit at version " + std::to_string(v) + " of " + store_->root();
  ReadScope scope =
      read_scope_.value_or(removes_.empty() ? ReadScope::kNothing : ReadScope::kWholeTable);
  std::unordered_set<std::string> our_removes, our_reads;
  for (const auto& r : removes_) our_removes.insert(NormalizedPath(r.path));
  for (const auto& p : read_files_) our_reads.insert(NormalizedPath(p));
  for (const auto& r : removes_) our_reads.insert(NormalizedPath(r.path));
  // The winner's DV updates (row-level concurrency only): path → its add.
  std::map<std::string, const AddFile*> winner_dv_updates;
  if (row_level_) {
    std::unordered_set<std::string> removed;
    for (const auto& a : winner)
      if (const RemoveFile* r = a.get_if<RemoveFile>(); r && r->data_change)
        removed.insert(NormalizedPath(r->path));
    for (const auto& a : winner)
      if (const AddFile* f = a.get_if<AddFile>();
          f && f->data_change && f->deletion_vector && removed.count(NormalizedPath(f->path)))
        winner_dv_updates.emplace(NormalizedPath(f->path), f);
  }
  bool winner_blind_append = false;
  for (const auto& a : winner)
    if (const CommitInfo* ci = a.get_if<CommitInfo>())
      winner_blind_append = ci->is_blind_append.value_or(false);
  const bool write_serializable = isolation_level() == "WriteSerializable";
  std::vector<std::pair<std::string, const AddFile*>> to_merge;
  for (const auto& a : winner) {
    switch (a.kind()) {
      case ActionKind::kProtocol:
        return Conflict(errc::kDeltaProtocolChanged,
                        "the protocol version of the table was changed by a " + where);
      case ActionKind::kMetadata:
        return Conflict(errc::kDeltaMetadataChanged,
                        "the metadata of the table was changed by a " + where);
      case ActionKind::kAdd: {
        const AddFile& f = *a.get_if<AddFile>();
        if (!f.data_change) break;  // compaction/stat rewrites add no new data
        if (write_serializable && winner_blind_append) break;
        if (auto it = winner_dv_updates.find(NormalizedPath(f.path));
            it != winner_dv_updates.end() && it->second == &f)
          break;  // rule a
        bool conflict = scope == ReadScope::kWholeTable;
        if (scope == ReadScope::kPartitions)
          for (const auto& p : read_partitions_)
            if (SamePartition(p, f.partition_values)) conflict = true;
        if (scope == ReadScope::kPredicate) conflict = !read_predicate_ || read_predicate_(f);
        if (conflict)
          return Conflict(errc::kDeltaConcurrentAppend,
                          "files were added to data this transaction read by a " + where +
                              " (e.g. " + f.path + ")");
        break;
      }
      case ActionKind::kRemove: {
        const RemoveFile& r = *a.get_if<RemoveFile>();
        std::string p = NormalizedPath(r.path);
        if (auto it = winner_dv_updates.find(p); it != winner_dv_updates.end()) {
          if (!our_removes.count(p)) break;  // rule b
          if (dv_updates_.count(p)) {        // rule c
            to_merge.emplace_back(p, it->second);
            break;
          }
        }
        if (our_removes.count(p))
          return Conflict(errc::kDeltaConcurrentDeleteDelete,
                          "file " + r.path + " was already removed by a " + where);
        if (our_reads.count(p) || (scope == ReadScope::kWholeTable && r.data_change))
          return Conflict(
              errc::kDeltaConcurrentDeleteRead,
              "file " + r.path + " that this transaction read was removed by a " + where);
        break;
      }
      case ActionKind::kTxn: {
        const SetTransaction& t = *a.get_if<SetTransaction>();
        for (const auto& ours : txns_)
          if (ours.app_id == t.app_id)
            return Conflict(errc::kDeltaConcurrentTransaction,
                            "application " + t.app_id + " committed in a " + where);
        break;
      }
      case ActionKind::kDomainMetadata: {
        const DomainMetadata& d = *a.get_if<DomainMetadata>();
        // Row ids are reassigned after the winner's mark on retry: not a conflict.
        if (d.domain == kRowTrackingDomain && row_tracking_supported()) break;
        for (const auto& ours : domains_)
          if (ours.domain == d.domain)
            return Conflict(errc::kDeltaConcurrentTransaction,
                            "domain " + d.domain + " was changed by a " + where);
        break;
      }
      default:
        break;
    }
  }
  if (to_merge.empty()) return Status::OK();
  return MergeDeletionVectors(to_merge, v);
}

Status Transaction::MergeDeletionVectors(
    const std::vector<std::pair<std::string, const AddFile*>>& files, int64_t v) {
  // Our DV file may still be being written on another thread: it must exist before we read it.
  if (wait_before_publish_) SILT_RETURN_NOT_OK(wait_before_publish_());
  const Snapshot& snap = *read_snapshot_;
  std::vector<DeletionVector> merged;
  merged.reserve(files.size());
  for (const auto& file : files) {
    const std::string& path = file.first;  // not a structured binding: the lambda below uses it
    const AddFile* winner_add = file.second;
    DvUpdate& u = dv_updates_.at(path);
    if (!u.ours) {
      // The rows this transaction deleted: its DV minus the DV of the file it read.
      const AddFile& ours = adds_[u.add_index];
      const auto it = std::find_if(snap.files().begin(), snap.files().end(), [&](const AddFile& f) {
        return NormalizedPath(f.path) == path;
      });
      SILT_ASSIGN_OR_RETURN(DeletionVector mine, DvOf(snap, ours.path, ours.deletion_vector));
      DeletionVector base;
      if (it != snap.files().end()) {
        SILT_ASSIGN_OR_RETURN(base, DvOf(snap, it->path, it->deletion_vector));
      }
      DeletionVector fresh;
      Status st;
      mine.ForEach([&](uint64_t row) {
        if (!base.Contains(row)) st = fresh.Add(row);
        return st.ok();
      });
      SILT_RETURN_NOT_OK(st);
      u.ours = std::move(fresh);
    }
    SILT_ASSIGN_OR_RETURN(DeletionVector theirs,
                          DvOf(snap, winner_add->path, winner_add->deletion_vector));
    std::optional<uint64_t> both;
    u.ours->ForEach([&](uint64_t row) {
      if (theirs.Contains(row)) both = row;
      return !both;
    });
    if (both)
      return Conflict(errc::kDeltaConcurrentDeleteDelete,
                      "row " + std::to_string(*both) + " of file " + winner_add->path +
                          " was deleted or updated both by this transaction and by a concurrent "
                          "commit at version " +
                          std::to_string(v) + " of " + store_->root());
    theirs.Union(*u.ours);
    merged.push_back(std::move(theirs));
  }
  // One new DV file for the merged DVs (those that do not delete the whole file).
  std::vector<const DeletionVector*> to_write;
  std::vector<size_t> written_index(files.size(), SIZE_MAX);
  for (size_t i = 0; i < files.size(); ++i) {
    const AddFile& a = adds_[dv_updates_.at(files[i].first).add_index];
    std::optional<int64_t> n = NumRecords(a.stats);
    if (n && static_cast<int64_t>(merged[i].Cardinality()) >= *n) continue;
    written_index[i] = to_write.size();
    to_write.push_back(&merged[i]);
  }
  NewDvFile dvf;
  if (!to_write.empty()) {
    SILT_ASSIGN_OR_RETURN(
        dvf, EncodeNewDvFile(to_write, RandomPrefixLength(snap.metadata().configuration)));
    SILT_RETURN_NOT_OK(store_->PutIfAbsent(dvf.relative_path, dvf.bytes));
  }
  for (size_t i = 0; i < files.size(); ++i) {
    DvUpdate& u = dv_updates_.at(files[i].first);
    const AddFile& w = *files[i].second;
    // Remove the winner's add instead (Spark's AddFile.removeWithTimestamp), at our timestamp.
    RemoveFile& r = removes_[u.remove_index];
    const std::optional<int64_t> ours = r.deletion_timestamp;
    r = MakeRemove(w, 0);
    r.deletion_timestamp = ours;
    AddFile& a = adds_[u.add_index];
    u.dropped = written_index[i] == SIZE_MAX;
    if (!u.dropped) a.deletion_vector = dvf.descriptors[written_index[i]];
    ++dv_merges_;
  }
  return Status::OK();
}

void Transaction::RunPostCommitHooks(CommitResult* result) const {
  const Metadata& md = new_metadata_ ? *new_metadata_ : read_snapshot_->metadata();
  auto interval = GetCheckpointInterval(md.configuration);
  const bool checkpoint_due =
      interval.ok() && result->version != 0 && result->version % *interval == 0;
  // UniForm (Iceberg): Delta converts after the commit; a failure is logged, never the commit's.
  const bool uniform = UniformIcebergEnabled(md.configuration);
  if (!checkpoint_due && !uniform) return;
  auto snap = Snapshot::Load(store_, result->version);
  if (uniform) {
    Status converted = snap.ok() ? ConvertToIceberg(**snap) : snap.status();
    if (!converted.ok()) {
      SILT_LOG(kWarn) << "UniForm: converting version " << result->version
                      << " to Iceberg failed (DELTA_UNIVERSAL_FORMAT_CONVERSION_FAILED): "
                      << converted.ToString();
    }
  }
  if (!checkpoint_due) return;
  Status s = snap.ok() ? Status::OK() : snap.status();
  if (s.ok() && ShouldCheckpoint(result->version, **snap)) {
    CheckpointOptions co;
    co.clock = options_.clock.get();
    co.part_size = options_.checkpoint_part_size;
    s = WriteCheckpoint(*store_, **snap, co);
    result->checkpointed = s.ok();
    if (s.ok() && GetEnableExpiredLogCleanup(md.configuration).ValueOr(true)) {
      auto cleaned = CleanupExpiredLogs(*store_, **snap, *options_.clock);
      if (!cleaned.ok()) s = cleaned.status();
    }
  }
  if (!s.ok()) {
    SILT_LOG(kWarn) << "post-commit checkpoint of version " << result->version
                    << " failed: " << s.ToString();
  }
}

void Transaction::ReadAfter(const CommitResult& own) {
  if (!read_snapshot_ || own.version != read_version_ + 1) return;
  read_version_ = own.version;
  last_commit_timestamp_ = std::max(last_commit_timestamp_, own.timestamp_ms);
}

Result<CommitResult> Transaction::Commit() {
  if (wait_before_publish_) {
    // Whatever Commit returns, the writes it was to wait for are finished by then (a published
    // commit has waited already: the call returns the same status at once).
    Result<CommitResult> r = CommitAfterWait();
    (void)wait_before_publish_();
    return r;
  }
  return CommitAfterWait();
}

Result<CommitResult> Transaction::CommitAfterWait() {
  if (!options_.clock) return Status::Internal("TransactionOptions.clock is not set");
  if (committed_) return Status::InvalidArgument("transaction already committed");
  if (!read_snapshot_ && (!new_metadata_ || !new_protocol_))
    return Status::InvalidArgument("creating a table needs protocol and metadata",
                                   errc::kDeltaMetadataAbsent);
  // delta.feature.* asks for a protocol change; like Delta (Protocol's
  // filterProtocolPropsFromTableProps) the keys are not kept in the table's configuration.
  if (new_metadata_) {
    std::vector<std::string> feature_keys;
    for (const auto& [k, v] : new_metadata_->configuration) {
      if (k.rfind("delta.feature.", 0) == 0) feature_keys.push_back(k);
    }
    for (const std::string& k : feature_keys) new_metadata_->configuration.Erase(k);
  }
  // IcebergCompatV2 / UniForm: Delta's checks at commit, and the features they need.
  {
    // Nested ids of array/map columns new in this metadata (ALTER … ADD COLUMNS, enabling it).
    if (new_metadata_ && new_metadata_->schema_string &&
        IcebergCompatV2Enabled(new_metadata_->configuration)) {
      SILT_ASSIGN_OR_RETURN(Schema schema, ParseSchemaString(*new_metadata_->schema_string));
      if (AssignIcebergNestedIds(&schema, &new_metadata_->configuration))
        new_metadata_->schema_string = SerializeSchema(schema);
    }
    const Metadata& m = new_metadata_ ? *new_metadata_ : read_snapshot_->metadata();
    const int compat = IcebergCompatVersion(m.configuration);
    if (compat > 0 || UniformIcebergEnabled(m.configuration)) {
      const Protocol& p = new_protocol_ ? *new_protocol_ : read_snapshot_->protocol();
      SILT_ASSIGN_OR_RETURN(std::optional<Protocol> needed,
                            EnforceIcebergCompat(read_snapshot_.get(), p, m,
                                                 new_metadata_.has_value(), operation_, adds_));
      if (needed) new_protocol_ = std::move(*needed);
    }
    // Delta tags every file written under IcebergCompat with its version (REORG … UPGRADE
    // UNIFORM rewrites the files without the version it upgrades to).
    if (compat > 0) {
      for (AddFile& a : adds_) {
        if (!a.tags) a.tags = StringMap{};
        a.tags->Set(kIcebergCompatVersionTag, std::to_string(compat));
      }
    }
  }
  // The protocol and metadata this commit leaves in force must be ones silt can write.
  {
    const Protocol& p = new_protocol_ ? *new_protocol_ : read_snapshot_->protocol();
    const Metadata& m = new_metadata_ ? *new_metadata_ : read_snapshot_->metadata();
    bool removes_data = std::any_of(removes_.begin(), removes_.end(),
                                    [](const RemoveFile& r) { return r.data_change; });
    // Unchanged protocol and metadata: the read snapshot's verdict, which the statement's own
    // early check (e.g. the DML core's) has usually computed already.
    if (read_snapshot_ && !new_protocol_ && !new_metadata_) {
      SILT_RETURN_NOT_OK(read_snapshot_->CheckWriteSupported(removes_data, store_->root()));
    } else {
      SILT_RETURN_NOT_OK(CheckWriteSupported(p, m, removes_data, store_->root()));
    }
    if (new_metadata_) {
      SILT_RETURN_NOT_OK(
          CheckCdcColumns(read_snapshot_ ? &read_snapshot_->metadata() : nullptr, *new_metadata_));
    }
  }
  // Row-level concurrency: our DV updates (a remove and an add of the same path with a DV).
  // Only row-wise statements (DELETE, UPDATE, MERGE): an INSERT … SELECT from the table itself,
  // say, must not miss rows a concurrent DV update hid from it.
  row_level_ = read_snapshot_ && !new_metadata_ && !new_protocol_ &&
               (operation_ == "DELETE" || operation_ == "UPDATE" || operation_ == "MERGE") &&
               RowLevelConcurrencyEnabled(*read_snapshot_);
  dv_updates_.clear();
  if (row_level_) {
    std::map<std::string, size_t> removed;
    for (size_t i = 0; i < removes_.size(); ++i)
      if (removes_[i].data_change) removed.emplace(NormalizedPath(removes_[i].path), i);
    for (size_t i = 0; i < adds_.size(); ++i) {
      std::string p = NormalizedPath(adds_[i].path);
      auto it = removed.find(p);
      if (it != removed.end() && adds_[i].deletion_vector && adds_[i].data_change)
        dv_updates_.emplace(p, DvUpdate{it->second, i, std::nullopt, false});
    }
  }
  if (row_tracking_supported()) {
    add_num_records_.clear();
    for (const auto& a : adds_) {
      std::optional<int64_t> n = NumRecords(a.stats);
      if (!n && !a.base_row_id)
        return Status::InvalidArgument("cannot assign row ids to " + a.path + " of " +
                                           store_->root() + ": its stats have no numRecords",
                                       errc::kDeltaRowIdAssignmentWithoutStats);
      add_num_records_.push_back(n.value_or(0));
    }
  }
  int64_t version = read_version() + 1;
  for (int attempt = 1; attempt <= options_.max_attempts; ++attempt) {
    const std::vector<Action> actions = BuildActions(version);
    Status s = wait_before_publish_
                   ? store_->PutIfAbsentAfter(CommitKey(version), SerializeCommit(actions),
                                              wait_before_publish_)
                   : store_->PutIfAbsent(CommitKey(version), SerializeCommit(actions));
    if (s.ok()) {
      committed_ = true;
      CommitResult result{version, attempt};
      result.dv_merges = dv_merges_;
      const CommitInfo& ci = *actions.front().get_if<CommitInfo>();
      result.timestamp_ms = ci.in_commit_timestamp.value_or(ci.timestamp.value_or(-1));
      if (options_.post_commit_hooks) RunPostCommitHooks(&result);
      return result;
    }
    if (!s.IsAlreadyExists()) return s;
    if (!read_snapshot_)
      return Status::AlreadyExists("table " + store_->root() + " already exists",
                                   errc::kDeltaTableAlreadyExists);
    // Someone else won `version`: check every commit since our read version's successor that we
    // have not checked yet, then try after the newest.
    // The listing may miss a winner written while it ran yet report a later one
    // (io/object_store.h), and `version` itself exists: fill the gaps so that no winner goes
    // unchecked.
    SILT_ASSIGN_OR_RETURN(auto listing, store_->ListFrom(CommitKey(version)));
    std::map<int64_t, LogFile> winners;
    for (const ObjectMeta& m : listing) {
      auto f = ParseLogFileName(m);
      if (f && f->kind == LogFileKind::kCommit && f->version >= version)
        winners.emplace(f->version, std::move(*f));
    }
    const int64_t newest = winners.empty() ? version : std::max(version, winners.rbegin()->first);
    SILT_ASSIGN_OR_RETURN(std::optional<int64_t> hole,
                          FillCommitGaps(*store_, &winners, version, newest));
    if (hole)
      return Status::Corruption("the Delta log of " + store_->root() + " is missing commit " +
                                    std::to_string(*hole) + " (versions must be contiguous)",
                                errc::kDeltaVersionsNotContiguous);
    int64_t latest = version;
    for (const auto& entry : winners) {
      const LogFile* f = &entry.second;
      const ObjectMeta& m = f->meta;
      SILT_ASSIGN_OR_RETURN(std::string winner_bytes, store_->Get(m.key));
      std::vector<Action> winner;
      SILT_RETURN_NOT_OK(ParseCommit(winner_bytes, &winner, m.key));
      SILT_RETURN_NOT_OK(CheckConflicts(winner, f->version));
      for (const auto& a : winner) {
        if (const CommitInfo* ci = a.get_if<CommitInfo>())
          last_commit_timestamp_ = std::max(
              last_commit_timestamp_, ci->in_commit_timestamp.value_or(ci->timestamp.value_or(-1)));
        if (const DomainMetadata* d = a.get_if<DomainMetadata>();
            d && d->domain == kRowTrackingDomain && !d->removed)
          row_id_high_water_mark_ =
              std::max(row_id_high_water_mark_, HighWaterMark(d->configuration).value_or(-1));
      }
      latest = std::max(latest, f->version);
    }
    version = latest + 1;
  }
  return Status::CommitConflict(
      "gave up after " + std::to_string(options_.max_attempts) + " concurrent commits",
      errc::kDeltaMaxCommitRetriesExceeded);
}

}  // namespace silt::delta
