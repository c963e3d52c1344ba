// ALTER TABLE t DROP FEATURE f [TRUNCATE HISTORY]: Delta 4's AlterTableDropFeatureDeltaCommand.
//
// 1. Pre-downgrade (PreDowngradeTableFeatureCommand): remove the feature's traces from the latest
//    version — deletionVectors: unset delta.enableDeletionVectors, then REORG … APPLY (PURGE);
//    inCommitTimestamp: unset its properties; checkConstraints: refused while constraints exist
//    (dropping a feature never changes the table's logical contents); vacuumProtocolCheck:
//    nothing.
// 2. Protocol downgrade. Writer features go at once. Reader-writer features leave traces in
//    history that old readers would replay:
//    - default (spark.databricks.delta.tableFeatures.fastDropFeature.enabled, Delta 4): three
//      barrier checkpoints on empty commits, then one commit that drops the feature, adds the
//      checkpointProtection writer feature and sets delta.requireCheckpointProtectionBeforeVersion
//      to its own version (history before it can only be truncated as a whole), then a checkpoint;
//    - TRUNCATE HISTORY (or fast drop off): one empty commit + checkpoint; when step 1 changed
//      anything, DELTA_FEATURE_DROP_WAIT_FOR_RETENTION_PERIOD. A later run cleans up the log with
//      delta.dropFeatureTruncateHistory.retentionDuration (TRUNCATE HISTORY) or
//      delta.logRetentionDuration and drops the feature only when no retained version uses it
//      (else DELTA_FEATURE_DROP_HISTORICAL_VERSIONS_EXIST).
// The protocol is normalized after the removal (delta::RemoveFeature), so a table left with
// only legacy features gets legacy versions back and older readers can read it.
#include <algorithm>

#include "commands/command.h"
#include "common/error_classes.h"
#include "delta/checkpoint_writer.h"
#include "delta/history.h"
#include "delta/json_util.h"
#include "delta/log_cleanup.h"
#include "delta/log_segment.h"
#include "delta/table_features.h"
#include "delta/table_properties.h"
#include "delta/transaction.h"
#include "ops/optimize.h"

namespace silt::commands {

namespace {

constexpr char kCheckpointProtection[] = "checkpointProtection";
constexpr char kRequireCheckpointProtectionKey[] = "delta.requireCheckpointProtectionBeforeVersion";
constexpr int kBarrierCheckpoints = 3;  // DropTableFeatureUtils.NUMBER_OF_BARRIER_CHECKPOINTS
constexpr int64_t kDayMs = 24LL * 3600 * 1000;

// Features Delta knows (TableFeature.allSupportedFeaturesMap): a name outside this list is
// DELTA_FEATURE_DROP_UNSUPPORTED_CLIENT_FEATURE.
const std::vector<std::string>& KnownFeatures() {
  static const std::vector<std::string> k = {"appendOnly",
                                             "invariants",
                                             "checkConstraints",
                                             "changeDataFeed",
                                             "generatedColumns",
                                             "columnMapping",
                                             "identityColumns",
                                             "timestampNtz",
                                             "deletionVectors",
                                             "rowTracking",
                                             "domainMetadata",
                                             "icebergCompatV1",
                                             "icebergCompatV2",
                                             "icebergCompatV3",
                                             "clustering",
                                             "allowColumnDefaults",
                                             "v2Checkpoint",
                                             "typeWidening",
                                             "typeWidening-preview",
                                             "inCommitTimestamp",
                                             "vacuumProtocolCheck",
                                             "checkpointProtection",
                                             "variantType",
                                             "variantType-preview",
                                             "variantShredding",
                                             "variantShredding-preview",
                                             "coordinatedCommits-preview",
                                             "catalogManaged",
                                             "catalogOwned-preview",
                                             "redirectReaderWriter-preview",
                                             "redirectWriterOnly-preview",
                                             "materializePartitionColumns",
                                             "geospatial"};
  return k;
}

// Delta's RemovableFeature objects; of these, silt implements the ones DropFeature handles below.
const std::vector<std::string>& RemovableFeatures() {
  static const std::vector<std::string> k = {"checkConstraints",
                                             "columnMapping",
                                             "identityColumns",
                                             "deletionVectors",
                                             "rowTracking",
                                             "domainMetadata",
                                             "v2Checkpoint",
                                             "typeWidening",
                                             "typeWidening-preview",
                                             "inCommitTimestamp",
                                             "vacuumProtocolCheck",
                                             "checkpointProtection",
                                             "coordinatedCommits-preview",
                                             "catalogOwned-preview",
                                             "redirectReaderWriter-preview",
                                             "redirectWriterOnly-preview",
                                             "materializePartitionColumns",
                                             "geospatial"};
  return k;
}

bool Contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string RetentionText(const delta::Snapshot& snap, const char* key, const char* fallback) {
  const std::string* v = snap.metadata().configuration.Find(key);
  return std::string(key) + "=" + (v ? *v : fallback);
}

// Whether `a` still uses a reader-writer feature being dropped (Delta's actionUsesFeature).
bool ActionUsesFeature(const delta::Action& a, const std::string& feature) {
  if (feature != "deletionVectors") return false;  // vacuumProtocolCheck leaves no trace
  if (const auto* m = a.get_if<delta::Metadata>()) {
    return delta::GetBoolProperty(m->configuration, "delta.enableDeletionVectors", false)
        .ValueOr(false);
  }
  if (const auto* f = a.get_if<delta::AddFile>()) return f->deletion_vector.has_value();
  if (const auto* r = a.get_if<delta::RemoveFile>()) return r->deletion_vector.has_value();
  return false;
}

// Delta's validateDropInvariants on the latest snapshot: no trace of the feature is left.
bool SnapshotClean(const delta::Snapshot& snap, const std::string& feature) {
  if (feature == "deletionVectors") {
    if (ActionUsesFeature(delta::Action(snap.metadata()), feature)) return false;
    for (const auto& f : snap.files())
      if (f.deletion_vector) return false;
    return true;
  }
  if (feature == "inCommitTimestamp") {
    const auto& c = snap.metadata().configuration;
    return !delta::GetBoolProperty(c, "delta.enableInCommitTimestamps", false).ValueOr(false) &&
           !c.Find("delta.inCommitTimestampEnablementVersion") &&
           !c.Find("delta.inCommitTimestampEnablementTimestamp");
  }
  if (feature == "checkConstraints") {
    for (const auto& [k, v] : snap.metadata().configuration)
      if (k.rfind("delta.constraints.", 0) == 0) return false;
  }
  return true;
}

// Whether any version the log can still reconstruct uses the feature (Delta's
// historyContainsFeature): the oldest reconstructable snapshot and every commit after it.
Result<bool> HistoryContainsFeature(const std::shared_ptr<ObjectStore>& store,
                                    const delta::Snapshot& latest, const std::string& feature) {
  SILT_ASSIGN_OR_RETURN(int64_t earliest, delta::EarliestRecreatableVersion(*store));
  SILT_ASSIGN_OR_RETURN(std::shared_ptr<const delta::Snapshot> first,
                        delta::Snapshot::Load(store, earliest, {.load_files = true}));
  if (!SnapshotClean(*first, feature)) return true;
  for (int64_t v = earliest + 1; v <= latest.version(); ++v) {
    SILT_ASSIGN_OR_RETURN(std::string bytes, store->Get(delta::CommitKey(v)));
    std::vector<delta::Action> actions;
    SILT_RETURN_NOT_OK(delta::ParseCommit(bytes, &actions, delta::CommitKey(v)));
    for (const auto& a : actions)
      if (ActionUsesFeature(a, feature)) return true;
  }
  return false;
}

class FeatureDropper {
 public:
  FeatureDropper(const planner::ResolvedTable& t, std::string feature, CommandContext& ctx)
      : t_(t), feature_(std::move(feature)), ctx_(ctx) {
    txn_opts_.clock = ctx.clock;
  }

  Result<std::shared_ptr<const delta::Snapshot>> Latest() {
    return delta::Snapshot::Load(t_.store, std::nullopt, {.load_files = true});
  }

  // Step 1; returns whether it changed the table.
  Result<bool> RemoveTraces() {
    SILT_ASSIGN_OR_RETURN(auto snap, Latest());
    if (feature_ == "checkConstraints") {
      std::string names;
      for (const auto& [k, v] : snap->metadata().configuration) {
        if (k.rfind("delta.constraints.", 0) == 0)
          names += (names.empty() ? "" : ", ") + k.substr(18);
      }
      if (names.empty()) return false;
      return Status::InvalidArgument(
          "Cannot drop the CHECK constraints table feature. The following constraints must be "
          "dropped first: " +
              names + ".",
          errc::kDeltaCannotDropCheckConstraintFeature);
    }
    if (SnapshotClean(*snap, feature_)) return false;
    if (feature_ == "inCommitTimestamp") {
      SILT_RETURN_NOT_OK(UnsetProperties(
          snap, {"delta.enableInCommitTimestamps", "delta.inCommitTimestampEnablementVersion",
                 "delta.inCommitTimestampEnablementTimestamp"}));
      return true;
    }
    // deletionVectors: stop new DVs first, then rewrite the files that have one.
    SILT_RETURN_NOT_OK(UnsetProperties(snap, {"delta.enableDeletionVectors"}));
    SILT_ASSIGN_OR_RETURN(snap, Latest());
    planner::ResolvedTable now = t_;
    now.snapshot = snap;
    SILT_ASSIGN_OR_RETURN(ops::OptimizeOptions o, OptimizeStatementOptions(now, nullptr, ctx_));
    o.mode = ops::OptimizeOptions::Mode::kReorgPurge;
    SILT_RETURN_NOT_OK(ops::Optimize(t_.store, o).status());
    return true;
  }

  // Delta's createEmptyCommitAndCheckpoint.
  Status EmptyCommitAndCheckpoint() {
    SILT_ASSIGN_OR_RETURN(auto snap, Latest());
    delta::Transaction txn(t_.store, snap, txn_opts_);
    txn.SetOperation("Empty Commit");
    SILT_RETURN_NOT_OK(txn.Commit().status());
    return CheckpointLatest();
  }

  // The downgrade commit; `protect`: add checkpointProtection up to this commit's version.
  Status Downgrade(bool protect, bool truncate_history) {
    SILT_ASSIGN_OR_RETURN(auto snap, Latest());
    if (!SnapshotClean(*snap, feature_)) {
      return Status::CommitConflict(
          "Cannot drop feature because a concurrent transaction modified the table. Please try "
          "the operation again.",
          errc::kDeltaFeatureDropConflictRevalidationFail);
    }
    delta::Protocol p = snap->protocol();
    delta::Metadata md = snap->metadata();
    if (protect) {
      p = delta::WithFeatures(p, {kCheckpointProtection});
      int64_t v = snap->version() + 1;
      if (const std::string* old = md.configuration.Find(kRequireCheckpointProtectionKey))
        v = std::max(v, static_cast<int64_t>(std::atoll(old->c_str())));
      md.configuration.Set(kRequireCheckpointProtectionKey, std::to_string(v));
    }
    delta::Transaction txn(t_.store, snap, txn_opts_);
    txn.UpdateProtocol(delta::RemoveFeature(p, feature_));
    if (md != snap->metadata()) txn.UpdateMetadata(md);
    delta::StringMap params;
    std::string name;
    delta::AppendJacksonString(&name, feature_);
    params.Set("featureName", name);
    params.Set("truncateHistory", truncate_history ? "true" : "false");
    txn.SetOperation("DROP FEATURE", params);
    SILT_RETURN_NOT_OK(txn.Commit().status());
    return protect ? CheckpointLatest() : Status::OK();
  }

 private:
  // A checkpoint of the latest version; its failure fails the drop with Delta's class.
  Status CheckpointLatest() {
    SILT_ASSIGN_OR_RETURN(auto snap, Latest());
    delta::CheckpointOptions o;
    o.clock = ctx_.clock.get();
    Status st = delta::WriteCheckpoint(*t_.store, *snap, o);
    if (st.ok()) return st;
    return Status::IoError(
        "Dropping " + feature_ +
            " failed due to a failure in checkpoint creation: " + std::string(st.message()),
        errc::kDeltaFeatureDropCheckpointFailed);
  }

  Status UnsetProperties(const std::shared_ptr<const delta::Snapshot>& snap,
                         const std::vector<std::string>& keys) {
    delta::Metadata md = snap->metadata();
    std::string list;
    for (const auto& k : keys) {
      if (!md.configuration.Find(k)) continue;
      md.configuration.Erase(k);
      std::string q;
      delta::AppendJacksonString(&q, k);
      list += (list.empty() ? "" : ",") + q;
    }
    if (list.empty()) return Status::OK();
    delta::Transaction txn(t_.store, snap, txn_opts_);
    txn.UpdateMetadata(md);
    delta::StringMap params;
    std::string json;
    delta::AppendJacksonString(&json, "[" + list + "]");
    params.Set("properties", json);
    params.Set("ifExists", "true");
    txn.SetOperation("UNSET TBLPROPERTIES", params);
    return txn.Commit().status();
  }

  const planner::ResolvedTable& t_;
  std::string feature_;
  CommandContext& ctx_;
  delta::TransactionOptions txn_opts_;
};

}  // namespace

Result<CommandResult> DropFeature(const sql::AlterTableStatement& stmt,
                                  const planner::ResolvedTable& t, CommandContext& ctx) {
  const delta::Snapshot& snap = *t.snapshot;
  const std::string& feature = stmt.feature;
  const bool present = Contains(delta::ProtocolFeatures(snap.protocol()), feature);
  std::string lower = planner::LowerName(feature);
  if (!present && lower.rfind("delta.", 0) == 0) {
    return Status::InvalidArgument("Cannot drop `" + feature +
                                       "` from this table because this is a delta table property "
                                       "and not a table feature.",
                                   errc::kDeltaFeatureDropFeatureIsDeltaProperty);
  }
  // Delta looks names up case-insensitively (featureNameToFeature) but checks the protocol for the
  // name as written.
  const bool known =
      std::any_of(KnownFeatures().begin(), KnownFeatures().end(),
                  [&](const std::string& f) { return planner::LowerName(f) == lower; });
  if (!known) {
    return Status::NotImplemented("Cannot drop " + feature +
                                      " because it is not supported by this Delta version. "
                                      "Consider using Delta with a higher version.",
                                  errc::kDeltaFeatureDropUnsupportedClientFeature);
  }
  if (!present) {
    return Status::InvalidArgument("Cannot drop " + feature +
                                       " from this table because it is not currently present in "
                                       "the table's protocol.",
                                   errc::kDeltaFeatureDropFeatureNotPresent);
  }
  if (!Contains(RemovableFeatures(), feature)) {
    return Status::NotImplemented(
        "Cannot drop " + feature + " because dropping this feature is not supported.",
        errc::kDeltaFeatureDropNonremovableFeature);
  }
  static const std::vector<std::string> kImplemented = {"deletionVectors", "checkConstraints",
                                                        "inCommitTimestamp", "vacuumProtocolCheck"};
  if (!Contains(kImplemented, feature)) {
    return Status::NotImplemented("ALTER TABLE … DROP FEATURE " + feature +
                                      " is not implemented yet; silt drops " +
                                      "deletionVectors, checkConstraints, inCommitTimestamp and "
                                      "vacuumProtocolCheck",
                                  errc::kNotImplemented);
  }
  const bool history_protection = delta::IsReaderWriterFeature(feature);
  if (stmt.truncate_history && !history_protection) {
    return Status::InvalidArgument("The particular feature does not require history truncation.",
                                   errc::kDeltaFeatureDropHistoryTruncationNotAllowed);
  }
  FeatureDropper dropper(t, feature, ctx);
  SILT_ASSIGN_OR_RETURN(bool changed, dropper.RemoveTraces());
  const bool fast =
      !stmt.truncate_history &&
      ctx.config->GetBool("spark.databricks.delta.tableFeatures.fastDropFeature.enabled", true);
  if (!history_protection) {
    SILT_RETURN_NOT_OK(dropper.Downgrade(false, false));
    return CommandResult{};
  }
  if (fast) {
    for (int i = 0; i < kBarrierCheckpoints; ++i)
      SILT_RETURN_NOT_OK(dropper.EmptyCommitAndCheckpoint());
    SILT_RETURN_NOT_OK(dropper.Downgrade(true, false));
    return CommandResult{};
  }
  SILT_RETURN_NOT_OK(dropper.EmptyCommitAndCheckpoint());
  SILT_ASSIGN_OR_RETURN(auto latest, dropper.Latest());
  const std::string log_retention =
      RetentionText(*latest, "delta.logRetentionDuration", "interval 30 days");
  const std::string truncate_retention = RetentionText(
      *latest, "delta.dropFeatureTruncateHistory.retentionDuration", "interval 24 hours");
  if (changed) {
    return Status::InvalidArgument(
        "Dropping " + feature +
            " was partially successful.\n\nThe feature is now no longer used in the current "
            "version of the table. However, the feature is still present in historical versions "
            "of the table. The table feature cannot be dropped from the table protocol until "
            "these historical versions have expired.\n\nTo drop the table feature from the "
            "protocol, please wait for the historical versions to expire, and then repeat this "
            "command. The retention period for historical versions is currently configured as " +
            log_retention +
            ".\n\nAlternatively, please wait for the TRUNCATE HISTORY retention period to expire "
            "(" +
            truncate_retention +
            ") and then run:\n    ALTER TABLE table_name DROP FEATURE feature_name TRUNCATE "
            "HISTORY",
        errc::kDeltaFeatureDropWaitForRetentionPeriod);
  }
  delta::LogCleanupOptions cleanup;
  if (stmt.truncate_history) {
    cleanup.retention_millis_override = kDayMs;
    if (const std::string* v = latest->metadata().configuration.Find(
            "delta.dropFeatureTruncateHistory.retentionDuration")) {
      SILT_ASSIGN_OR_RETURN(cleanup.retention_millis_override, delta::ParseIntervalMillis(*v));
    }
  } else {
    cleanup.truncation = delta::CutoffTruncation::kDay;
  }
  SILT_RETURN_NOT_OK(delta::CleanupExpiredLogs(*t.store, *latest, *ctx.clock, cleanup).status());
  SILT_ASSIGN_OR_RETURN(bool in_history, HistoryContainsFeature(t.store, *latest, feature));
  if (in_history) {
    return Status::InvalidArgument(
        "Cannot drop " + feature +
            " because the Delta log contains historical versions that use the feature.\nPlease "
            "wait until the history retention period (" +
            log_retention +
            ") has passed since the feature was last active.\n\nAlternatively, please wait for "
            "the TRUNCATE HISTORY retention period to expire (" +
            truncate_retention +
            ")\nand then run:\n    ALTER TABLE table_name DROP FEATURE feature_name TRUNCATE "
            "HISTORY",
        errc::kDeltaFeatureDropHistoricalVersionsExist);
  }
  SILT_RETURN_NOT_OK(dropper.Downgrade(false, stmt.truncate_history));
  return CommandResult{};
}

}  // namespace silt::commands
