#include "delta/transaction.h"

#include <simdjson.h>

#include <algorithm>
#include <map>
#include <unordered_set>

#include "common/error_classes.h"
#include "common/logging.h"
#include "delta/change_data_feed.h"
#include "delta/checkpoint_writer.h"
#include "delta/log_cleanup.h"
#include "delta/log_listing.h"
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

}  // namespace

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
  return HasFeature(p, "rowTracking");
}

void Transaction::SetOperation(std::string operation, StringMap parameters) {
  operation_ = std::move(operation);
  operation_parameters_ = std::move(parameters);
}

void Transaction::SetMetric(const std::string& key, int64_t value) {
  operation_metrics_.Set(key, std::to_string(value));
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
  ci.isolation_level = options_.isolation_level;
  ci.is_blind_append = is_blind_append();
  if (!operation_metrics_.entries().empty()) ci.operation_metrics = operation_metrics_;
  ci.user_name = options_.user_name;
  ci.user_metadata = user_metadata_ ? user_metadata_ : options_.user_metadata;
  ci.engine_info = options_.engine_info;
  ci.txn_id = txn_id_;
  const bool row_tracking = row_tracking_supported();
  // In-commit timestamps: strictly after the previous commit's, whatever the local clock says.
  const Metadata& md = new_metadata_ ? *new_metadata_ : read_snapshot_->metadata();
  if (GetBoolProperty(md.configuration, "delta.enableInCommitTimestamps", false).ValueOr(false))
    ci.in_commit_timestamp = std::max(*ci.timestamp, last_commit_timestamp_ + 1);
  if (row_tracking &&
      GetBoolProperty(md.configuration, "delta.enableRowTracking", false).ValueOr(false)) {
    if (!ci.tags) ci.tags = StringMap{};
    if (!ci.tags->Contains("delta.rowTracking.preserved"))
      ci.tags->Set("delta.rowTracking.preserved", "true");
  }
  out.push_back(std::move(ci));
  if (new_protocol_) out.push_back(*new_protocol_);
  if (new_metadata_) out.push_back(*new_metadata_);
  for (const auto& t : txns_) out.push_back(t);
  // Row tracking (PROTOCOL.md "Row Tracking"): fresh row ids start after the high-water mark;
  // the new mark goes into the same commit. Recomputed per attempt, so a retry after a
  // concurrent commit never reuses the winner's ids.
  std::vector<AddFile> adds = adds_;
  int64_t hwm = row_id_high_water_mark_;
  bool assigned = false;
  if (row_tracking) {
    for (size_t i = 0; i < adds.size(); ++i) {
      AddFile& a = adds[i];
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
  for (auto& a : adds) out.push_back(std::move(a));
  for (const auto& c : cdcs_) out.push_back(c);
  return out;
}

Status Transaction::CheckConflicts(const std::vector<Action>& winner, int64_t v) const {
  const std::string where =
      "concurrent commit at version " + std::to_string(v) + " of " + store_->root();
  ReadScope scope =
      read_scope_.value_or(removes_.empty() ? ReadScope::kNothing : ReadScope::kWholeTable);
  std::unordered_set<std::string> our_removes, our_reads;
  for (const auto& r : removes_) our_removes.insert(NormalizedPath(r.path));
  for (const auto& p : read_files_) our_reads.insert(NormalizedPath(p));
  for (const auto& r : removes_) our_reads.insert(NormalizedPath(r.path));
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
  return Status::OK();
}

void Transaction::RunPostCommitHooks(CommitResult* result) const {
  const Metadata& md = new_metadata_ ? *new_metadata_ : read_snapshot_->metadata();
  auto interval = GetCheckpointInterval(md.configuration);
  if (!interval.ok() || result->version == 0 || result->version % *interval != 0) return;
  auto snap = Snapshot::Load(store_, result->version);
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
