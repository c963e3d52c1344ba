// ALTER TABLE t DROP FEATURE f [TRUNCATE HISTORY]: Delta 4's AlterTableDropFeatureDeltaCommand.
//
// 1. Pre-downgrade (PreDowngradeTableFeatureCommand): remove the feature's traces from the latest
//    version — deletionVectors: unset delta.enableDeletionVectors, then REORG … APPLY (PURGE);
//    inCommitTimestamp: set delta.enableInCommitTimestamps to false and unset its enablement
//    properties; checkConstraints: refused while constraints exist (dropping a feature never
//    changes the table's logical contents); v2Checkpoint: delta.checkpointPolicy = classic (the
//    checkpoints that follow are classic ones); domainMetadata: remove every domain;
//    rowTracking: delta.enableRowTracking = false and delta.rowTrackingSuspended = true, then
//    commit every file again without baseRowId / defaultRowCommitVersion (Delta's unbackfill);
//    columnMapping: one commit that rewrites every file with the logical column names and drops
//    the mode and the fields' column mapping metadata (refused for names only column mapping
//    allows); typeWidening: unset delta.enableTypeWidening, rewrite the files stored in other
//    types than the table's, then remove the fields' delta.typeChanges; vacuumProtocolCheck:
//    nothing. A feature that another supported feature requires is refused first
//    (DELTA_FEATURE_DROP_DEPENDENT_FEATURE).
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
// The downgrade commit also removes what Delta removes there (rowTracking: its properties and its
// domain). The protocol is normalized after the removal (delta::RemoveFeature), so a table left
// with only legacy features gets legacy versions back and older readers can read it.
#include <simdjson.h>
#include <strings.h>

#include <algorithm>

#include "commands/command.h"
#include "common/error_classes.h"
#include "delta/checkpoint_writer.h"
#include "delta/history.h"
#include "delta/json_util.h"
#include "delta/log_cleanup.h"
#include "delta/log_segment.h"
#include "delta/scan.h"
#include "delta/schema_json.h"
#include "delta/table_features.h"
#include "delta/table_properties.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "io/path.h"
#include "ops/optimize.h"
#include "parquet/reader.h"

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

// Delta's RemovableFeature objects (identityColumns and allowColumnDefaults are not among them);
// of these, silt implements the ones DropFeature handles below.
const std::vector<std::string>& RemovableFeatures() {
  static const std::vector<std::string> k = {"checkConstraints",
                                             "columnMapping",
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

// `type` with the metadata entries named `keys` removed from its nested fields' metadata.
TypePtr TypeWithoutMetadata(const TypePtr& type, const std::vector<std::string>& keys);

Field FieldWithoutMetadata(const Field& f, const std::vector<std::string>& keys) {
  Field out = f;
  thread_local simdjson::dom::parser parser;
  simdjson::dom::object obj;
  auto named = [&](std::string_view k) {
    return std::find(keys.begin(), keys.end(), k) != keys.end();
  };
  // Rewritten only when a key goes, so an untouched field keeps its text byte for byte.
  if (f.metadata_json.size() > 2 &&
      !parser.parse(f.metadata_json.data(), f.metadata_json.size()).get_object().get(obj) &&
      std::any_of(obj.begin(), obj.end(), [&](auto kv) { return named(kv.key); })) {
    out.metadata_json = "{";
    for (auto [k, v] : obj) {
      if (named(k)) continue;
      if (out.metadata_json.size() > 1) out.metadata_json += ',';
      delta::AppendJacksonString(&out.metadata_json, k);
      out.metadata_json += ':';
      delta::AppendJsonElement(&out.metadata_json, v);
    }
    out.metadata_json += '}';
  }
  out.type = TypeWithoutMetadata(f.type, keys);
  return out;
}

TypePtr TypeWithoutMetadata(const TypePtr& type, const std::vector<std::string>& keys) {
  switch (type->id()) {
    case TypeId::kStruct: {
      std::vector<Field> fields;
      for (const Field& f : type->fields()) fields.push_back(FieldWithoutMetadata(f, keys));
      return DataType::Struct(std::move(fields));
    }
    case TypeId::kList:
      return DataType::List(TypeWithoutMetadata(type->element_type(), keys), type->contains_null());
    case TypeId::kMap: {
      TypePtr k = TypeWithoutMetadata(type->key_type(), keys);
      return DataType::Map(std::move(k), TypeWithoutMetadata(type->value_type(), keys),
                           type->value_contains_null());
    }
    default:
      return type;
  }
}

// `schema` with the metadata entries named `keys` removed from every field, nested ones too
// (the column mapping keys, delta.typeChanges).
Schema WithoutFieldMetadata(const Schema& schema, const std::vector<std::string>& keys) {
  Schema out;
  for (const Field& f : schema) out.push_back(FieldWithoutMetadata(f, keys));
  return out;
}

// The file column among `nodes` that holds table field `f`, matched as the scan matches it (field
// id under id mode, else the physical name, exactly then case-insensitively); -1 when missing.
int MatchFileColumn(const std::vector<parquet::ColumnNode>& nodes, const Field& f,
                    delta::ColumnMappingMode mode) {
  if (mode == delta::ColumnMappingMode::kId) {
    if (auto id = delta::ColumnMappingId(f))
      for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].field_id && *nodes[i].field_id == *id) return static_cast<int>(i);
  }
  const std::string name = delta::PhysicalNameOrName(f, mode);
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].name == name) return static_cast<int>(i);
  for (size_t i = 0; i < nodes.size(); ++i)
    if (strcasecmp(nodes[i].name.c_str(), name.c_str()) == 0) return static_cast<int>(i);
  return -1;
}

// Whether file column `node` stores another type than `target` anywhere (Delta's
// ReorgTableHelper.fileHasDifferentTypes); fields missing from the file do not count.
bool TypesDiffer(const parquet::ColumnNode& node, const TypePtr& target,
                 delta::ColumnMappingMode mode) {
  using parquet::ColumnNode;
  if (target->id() == TypeId::kStruct) {
    if (node.kind != ColumnNode::kStruct) return true;
    for (const Field& f : target->fields()) {
      int c = MatchFileColumn(node.children, f, mode);
      if (c >= 0 && TypesDiffer(node.children[static_cast<size_t>(c)], f.type, mode)) return true;
    }
    return false;
  }
  if (target->id() == TypeId::kList || target->id() == TypeId::kMap) {
    if (node.kind != (target->id() == TypeId::kList ? ColumnNode::kList : ColumnNode::kMap) ||
        node.children.size() < target->fields().size())
      return true;
    for (size_t k = 0; k < target->fields().size(); ++k)
      if (TypesDiffer(node.children[k], target->fields()[k].type, mode)) return true;
    return false;
  }
  return !node.type || !node.type->Equals(*target);
}

// The features that require `feature` (Delta's TableFeature.getDependentFeatures: the inverse of
// requiredFeatures).
std::vector<std::string> DependentFeatures(const std::string& feature) {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> kRequires = {
      {"rowTracking", {"domainMetadata"}},
      {"clustering", {"domainMetadata"}},
      {"icebergCompatV1", {"columnMapping"}},
      {"icebergCompatV2", {"columnMapping"}},
      {"icebergCompatV3", {"columnMapping", "rowTracking"}},
      {"coordinatedCommits-preview", {"inCommitTimestamp", "vacuumProtocolCheck"}},
      {"variantShredding", {"variantType"}}};
  std::vector<std::string> out;
  for (const auto& [dependent, required] : kRequires)
    if (Contains(required, feature)) out.push_back(dependent);
  return out;
}

std::string RetentionText(const delta::Snapshot& snap, const char* key, const char* fallback) {
  const std::string* v = snap.metadata().configuration.Find(key);
  return std::string(key) + "=" + (v ? *v : fallback);
}

bool BoolProperty(const delta::StringMap& c, const char* key) {
  return delta::GetBoolProperty(c, key, false).ValueOr(false);
}

constexpr char kCheckpointPolicyKey[] = "delta.checkpointPolicy";
constexpr char kRowTrackingDomain[] = "delta.rowTracking";
// RowTrackingFeature.tablePropertiesToRemoveAtDowngradeCommit.
const std::vector<std::string> kRowTrackingProperties = {
    "delta.enableRowTracking", "delta.rowTrackingSuspended",
    "delta.rowTracking.materializedRowIdColumnName",
    "delta.rowTracking.materializedRowCommitVersionColumnName"};

// DeltaColumnMapping.COLUMN_MAPPING_METADATA_KEYS.
const std::vector<std::string> kColumnMappingKeys = {
    delta::kColumnMappingIdKey, delta::kColumnMappingPhysicalNameKey,
    "delta.columnMapping.nested.ids", delta::kParquetFieldIdKey, "parquet.field.nested.ids"};

bool ColumnMappingOn(const delta::Metadata& m) {
  const std::string* mode = m.configuration.Find("delta.columnMapping.mode");
  return mode && delta::ParseColumnMappingMode(*mode).ValueOr(delta::ColumnMappingMode::kNone) !=
                     delta::ColumnMappingMode::kNone;
}

// Names (dotted paths, as Delta's explodeNestedFieldNames) holding one of ' ,;{}()\n\t=',
// which a table without column mapping cannot have (SchemaUtils.findInvalidColumnNamesInSchema).
void InvalidColumnNames(const std::vector<Field>& fields, const std::string& prefix,
                        std::vector<std::string>* out);
void InvalidColumnNames(const TypePtr& type, const std::string& path,
                        std::vector<std::string>* out) {
  if (type->id() == TypeId::kStruct) {
    InvalidColumnNames(type->fields(), path + ".", out);
  } else if (type->id() == TypeId::kList) {
    InvalidColumnNames(type->element_type(), path + ".element", out);
  } else if (type->id() == TypeId::kMap) {
    InvalidColumnNames(type->key_type(), path + ".key", out);
    InvalidColumnNames(type->value_type(), path + ".value", out);
  }
}
void InvalidColumnNames(const std::vector<Field>& fields, const std::string& prefix,
                        std::vector<std::string>* out) {
  for (const Field& f : fields) {
    const bool quote = f.name.find('.') != std::string::npos;
    const std::string path = prefix + (quote ? "`" + f.name + "`" : f.name);
    if (f.name.find_first_of(" ,;{}()\n\t=") != std::string::npos) out->push_back(path);
    InvalidColumnNames(f.type, path, out);
  }
}

constexpr char kTypeChangesKey[] = "delta.typeChanges";

// TypeWideningMetadata.containsTypeWideningMetadata.
bool HasTypeChanges(const Schema& schema) {
  return !delta::SchemaEquals(WithoutFieldMetadata(schema, {kTypeChangesKey}), schema);
}

bool V2CheckpointPolicy(const delta::Metadata& m) {
  const std::string* v = m.configuration.Find(kCheckpointPolicyKey);
  return v && planner::LowerName(*v) == "v2";
}

// Whether `a` still uses a reader-writer feature being dropped (Delta's actionUsesFeature).
// vacuumProtocolCheck leaves no trace.
bool ActionUsesFeature(const delta::Action& a, const std::string& feature) {
  const auto* m = a.get_if<delta::Metadata>();
  if (feature == "deletionVectors") {
    if (m) return BoolProperty(m->configuration, "delta.enableDeletionVectors");
    if (const auto* f = a.get_if<delta::AddFile>()) return f->deletion_vector.has_value();
    if (const auto* r = a.get_if<delta::RemoveFile>()) return r->deletion_vector.has_value();
  }
  if (feature == "columnMapping") return m && ColumnMappingOn(*m);
  if (feature == "typeWidening" || feature == "typeWidening-preview") {
    if (!m || !m->schema_string) return false;
    auto schema = delta::ParseSchemaString(*m->schema_string);
    return !schema.ok() || HasTypeChanges(*schema);  // an unreadable schema counts as a trace
  }
  if (feature == "v2Checkpoint") {
    return (m && V2CheckpointPolicy(*m)) || a.get_if<delta::CheckpointMetadata>() ||
           a.get_if<delta::Sidecar>();
  }
  return false;
}

// Delta's validateDropInvariants on the latest snapshot: no trace of the feature is left.
bool SnapshotClean(const delta::Snapshot& snap, const std::string& feature) {
  const auto& c = snap.metadata().configuration;
  if (feature == "deletionVectors") {
    if (ActionUsesFeature(delta::Action(snap.metadata()), feature)) return false;
    for (const auto& f : snap.files())
      if (f.deletion_vector) return false;
    return true;
  }
  if (feature == "inCommitTimestamp") {
    return !BoolProperty(c, "delta.enableInCommitTimestamps") &&
           !c.Find("delta.inCommitTimestampEnablementVersion") &&
           !c.Find("delta.inCommitTimestampEnablementTimestamp");
  }
  if (feature == "checkConstraints") {
    for (const auto& [k, v] : c)
      if (k.rfind("delta.constraints.", 0) == 0) return false;
  }
  if (feature == "v2Checkpoint") {
    // Neither the policy nor the checkpoint the snapshot was read from may be v2 (a UUID-named
    // checkpoint is a v2 one).
    const auto& parts = snap.segment().checkpoint_parts;
    return !V2CheckpointPolicy(snap.metadata()) &&
           (parts.empty() || parts[0].kind != delta::LogFileKind::kUuidCheckpoint);
  }
  if (feature == "domainMetadata") return snap.domains().empty();
  if (feature == "typeWidening" || feature == "typeWidening-preview")
    return !BoolProperty(c, "delta.enableTypeWidening") && !HasTypeChanges(snap.schema());
  if (feature == "columnMapping") {
    return !ColumnMappingOn(snap.metadata()) &&
           delta::SchemaEquals(WithoutFieldMetadata(snap.schema(), kColumnMappingKeys),
                               snap.schema());
  }
  if (feature == "rowTracking") {
    // The properties and domain that only the downgrade commit removes do not count.
    if (BoolProperty(c, "delta.enableRowTracking") ||
        !BoolProperty(c, "delta.rowTrackingSuspended"))
      return false;
    for (const auto& f : snap.files())
      if (f.base_row_id || f.default_row_commit_version) return false;
  }
  return true;
}

// Whether any version the log still holds uses the feature (Delta's historyContainsFeature): the
// oldest reconstructable snapshot, and every commit file up to the latest version (those before
// that snapshot's checkpoint too: a reader may still read them).
Result<bool> HistoryContainsFeature(const std::shared_ptr<ObjectStore>& store,
                                    const delta::Snapshot& latest, const std::string& feature) {
  SILT_ASSIGN_OR_RETURN(int64_t earliest, delta::EarliestRecreatableVersion(*store));
  SILT_ASSIGN_OR_RETURN(std::shared_ptr<const delta::Snapshot> first,
                        delta::Snapshot::Load(store, earliest, {.load_files = true}));
  if (!SnapshotClean(*first, feature)) return true;
  SILT_ASSIGN_OR_RETURN(std::vector<ObjectMeta> listing, store->ListFrom(delta::kLogDir));
  for (const ObjectMeta& m : listing) {
    if (m.key.rfind(delta::kLogDir, 0) != 0) break;
    auto f = delta::ParseLogFileName(m);
    if (!f || f->kind != delta::LogFileKind::kCommit || f->version > latest.version()) continue;
    SILT_ASSIGN_OR_RETURN(std::string bytes, store->Get(m.key));
    std::vector<delta::Action> actions;
    SILT_RETURN_NOT_OK(delta::ParseCommit(bytes, &actions, m.key));
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
      // As Delta: the enablement turned off, its provenance properties removed.
      delta::Metadata md = snap->metadata();
      std::vector<std::string> keys;
      for (const char* k : {"delta.inCommitTimestampEnablementTimestamp",
                            "delta.inCommitTimestampEnablementVersion"}) {
        if (md.configuration.Erase(k)) keys.push_back(k);
      }
      if (BoolProperty(md.configuration, "delta.enableInCommitTimestamps")) {
        md.configuration.Set("delta.enableInCommitTimestamps", "false");
        keys.push_back("delta.enableInCommitTimestamps");
      }
      SILT_RETURN_NOT_OK(CommitUnset(snap, md, keys));
      return true;
    }
    if (feature_ == "v2Checkpoint") {
      SILT_RETURN_NOT_OK(SetProperties(snap, {{kCheckpointPolicyKey, "classic"}}));
      return true;
    }
    if (feature_ == "domainMetadata") {
      delta::Transaction txn(t_.store, snap, txn_opts_);
      for (const auto& [name, d] : snap->domains()) {
        delta::DomainMetadata removed = d;
        removed.removed = true;
        txn.SetDomain(std::move(removed));
      }
      delta::StringMap params;
      params.Set("domainMetadataRemovedCount", std::to_string(snap->domains().size()));
      txn.SetOperation("DOMAIN METADATA CLEANUP", params);
      SILT_RETURN_NOT_OK(txn.Commit().status());
      return true;
    }
    if (feature_ == "rowTracking") return UnbackfillRowTracking(snap);
    if (feature_ == "columnMapping") {
      SILT_RETURN_NOT_OK(RemoveColumnMapping(snap));
      return true;
    }
    if (feature_ == "typeWidening" || feature_ == "typeWidening-preview") {
      // TypeWideningPreDowngradeCommand: no new type changes, files rewritten in the table's
      // types, then the delta.typeChanges metadata removed.
      SILT_RETURN_NOT_OK(UnsetProperties(snap, {"delta.enableTypeWidening"}));
      // As Delta, the property alone is no trace that history must lose.
      SILT_ASSIGN_OR_RETURN(snap, Latest());
      if (!HasTypeChanges(snap->schema())) return false;
      SILT_RETURN_NOT_OK(RewriteWidenedFiles(snap));
      SILT_ASSIGN_OR_RETURN(snap, Latest());
      SILT_RETURN_NOT_OK(RemoveTypeChanges(snap));
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
    delta::Transaction txn(t_.store, snap, txn_opts_);
    if (feature_ == "rowTracking") {  // what concurrent writers could still use until now
      for (const auto& k : kRowTrackingProperties) md.configuration.Erase(k);
      auto it = snap->domains().find(kRowTrackingDomain);
      if (it != snap->domains().end()) {
        delta::DomainMetadata removed = it->second;
        removed.removed = true;
        txn.SetDomain(std::move(removed));
      }
    }
    if (protect) {
      p = delta::WithFeatures(p, {kCheckpointProtection});
      int64_t v = snap->version() + 1;
      if (const std::string* old = md.configuration.Find(kRequireCheckpointProtectionKey))
        v = std::max(v, static_cast<int64_t>(std::atoll(old->c_str())));
      md.configuration.Set(kRequireCheckpointProtectionKey, std::to_string(v));
    }
    txn.UpdateProtocol(delta::RemoveFeature(p, feature_));
    if (md != snap->metadata()) txn.UpdateMetadata(md);
    delta::StringMap params;
    params.Set("featureName", JsonString(feature_));
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
    std::vector<std::string> removed;
    for (const auto& k : keys)
      if (md.configuration.Erase(k)) removed.push_back(k);
    return CommitUnset(snap, md, removed);
  }

  // Commits `md` as an UNSET TBLPROPERTIES of `keys` (nothing when `keys` is empty).
  Status CommitUnset(const std::shared_ptr<const delta::Snapshot>& snap, delta::Metadata md,
                     const std::vector<std::string>& keys) {
    if (keys.empty()) return Status::OK();
    std::string list;
    for (const auto& k : keys) {
      list += list.empty() ? "" : ",";
      delta::AppendJacksonString(&list, k);
    }
    delta::StringMap params;
    params.Set("properties", JsonString("[" + list + "]"));
    params.Set("ifExists", "true");
    return CommitMetadata(snap, std::move(md), "UNSET TBLPROPERTIES", std::move(params));
  }

  // Commits `md` alone as `operation` with `params` (JSON texts, as Delta's commitInfo holds
  // them).
  Status CommitMetadata(const std::shared_ptr<const delta::Snapshot>& snap, delta::Metadata md,
                        const std::string& operation, delta::StringMap params) {
    delta::Transaction txn(t_.store, snap, txn_opts_);
    txn.UpdateMetadata(std::move(md));
    txn.SetOperation(operation, std::move(params));
    return txn.Commit().status();
  }

  // `text` as a JSON string: how Delta writes a parameter it encoded as JSON itself.
  static std::string JsonString(const std::string& text) {
    std::string out;
    delta::AppendJacksonString(&out, text);
    return out;
  }

  // Delta's AlterTableSetPropertiesDeltaCommand for `props` (in order).
  Status SetProperties(const std::shared_ptr<const delta::Snapshot>& snap,
                       const std::vector<std::pair<std::string, std::string>>& props) {
    delta::Metadata md = snap->metadata();
    std::string map;
    for (const auto& [k, v] : props) {
      md.configuration.Set(k, v);
      map += map.empty() ? "{" : ",";
      delta::AppendJacksonString(&map, k);
      map += ":";
      delta::AppendJacksonString(&map, v);
    }
    delta::StringMap params;
    params.Set("properties", JsonString(map + "}"));
    return CommitMetadata(snap, std::move(md), "SET TBLPROPERTIES", std::move(params));
  }

  // Delta's RemoveColumnMappingCommand, in one commit: the schema without column mapping
  // metadata and without delta.columnMapping.mode / maxColumnId, and every live file rewritten
  // (deleted rows dropped) into files whose columns carry the logical names.
  Status RemoveColumnMapping(const std::shared_ptr<const delta::Snapshot>& snap) {
    Schema logical = WithoutFieldMetadata(snap->schema(), kColumnMappingKeys);
    std::vector<std::string> invalid;
    InvalidColumnNames(logical, "", &invalid);
    if (!invalid.empty()) {
      std::string names;
      for (const auto& n : invalid) names += (names.empty() ? "" : ", ") + n;
      return Status::InvalidArgument(
          "Found invalid character(s) among ' ,;{}()\\n\\t=' in the column names of your "
          "schema.\nInvalid column names: " +
              names +
              ".\nColumn mapping cannot be removed when there are invalid characters in the "
              "column names.\nPlease rename the columns to remove the invalid characters and "
              "execute this command again.",
          errc::kDeltaInvalidColumnNamesWhenRemovingColumnMapping);
    }
    delta::Metadata md = snap->metadata();
    md.configuration.Erase("delta.columnMapping.mode");
    md.configuration.Erase("delta.columnMapping.maxColumnId");
    md.schema_string = delta::SerializeSchema(logical);
    delta::Transaction txn(t_.store, snap, txn_opts_);
    txn.UpdateMetadata(md);
    SILT_RETURN_NOT_OK(RewriteFiles(snap, snap->files(), md, logical, &txn));
    txn.SetOperation("REMOVE COLUMN MAPPING");
    return txn.Commit().status();
  }

  // Adds to `txn` the removes of `files` (of `snap`) and the adds of their live rows rewritten
  // (dataChange = false) as files of a table with `md` and `schema`, one file per input file as
  // Delta's rewrites keep a file per input task.
  Status RewriteFiles(const std::shared_ptr<const delta::Snapshot>& snap,
                      const std::vector<delta::AddFile>& files, const delta::Metadata& md,
                      const Schema& schema, delta::Transaction* txn) {
    planner::ResolvedTable now = t_;
    now.snapshot = snap;
    SILT_ASSIGN_OR_RETURN(ops::OptimizeOptions o, OptimizeStatementOptions(now, nullptr, ctx_));
    delta::DataWriteOptions w;
    w.clock = ctx_.clock;
    w.row_validator = o.row_validator;
    w.parquet.pool = o.pool;
    SILT_ASSIGN_OR_RETURN(std::unique_ptr<delta::TableScan> scan, delta::TableScan::Make(snap));
    txn->SetReadScope(delta::ReadScope::kWholeTable);
    const int64_t now_ms = ctx_.clock->NowMillis();
    for (const auto& f : files) {
      SILT_ASSIGN_OR_RETURN(auto writer, delta::DataFileWriter::Make(*t_.store, md, schema, w));
      Status st = scan->ScanFile(f, [&](DataChunk& c) { return writer->Write(c); });
      if (!st.ok()) {
        writer->Abort();
        return st;
      }
      SILT_ASSIGN_OR_RETURN(std::vector<delta::AddFile> added, writer->Finish());
      for (auto& a : added) {
        a.data_change = false;
        txn->Add(std::move(a));
      }
      txn->Remove(delta::MakeRemove(f, now_ms, /*data_change=*/false));
    }
    return Status::OK();
  }

  // Delta's REORG … (REWRITE_TYPE_WIDENING): the files with a column stored in another type than
  // the table's are rewritten in the table's types.
  Status RewriteWidenedFiles(const std::shared_ptr<const delta::Snapshot>& snap) {
    std::vector<delta::AddFile> widened;
    for (const auto& f : snap->files()) {
      SILT_ASSIGN_OR_RETURN(bool differs, FileHasOtherTypes(*snap, f));
      if (differs) widened.push_back(f);
    }
    if (widened.empty()) return Status::OK();
    delta::Transaction txn(t_.store, snap, txn_opts_);
    SILT_RETURN_NOT_OK(RewriteFiles(snap, widened, snap->metadata(), snap->schema(), &txn));
    delta::StringMap params;
    params.Set("predicate", "\"[]\"");
    params.Set("applyPurge", "false");
    txn.SetOperation("REORG", params);
    return txn.Commit().status();
  }

  // Whether a column of `f` is stored in another type than the table's, read from its footer.
  // Files outside the table root (shallow clones) count as differing: rewriting them is safe,
  // only slower.
  static Result<bool> FileHasOtherTypes(const delta::Snapshot& snap, const delta::AddFile& f) {
    SILT_ASSIGN_OR_RETURN(DeltaPath p, ParseDeltaPath(f.path));
    if (p.absolute) return true;
    SILT_ASSIGN_OR_RETURN(auto file, snap.store()->OpenRead(p.path));
    SILT_ASSIGN_OR_RETURN(auto pf, parquet::ParquetFile::Open(std::move(file)));
    const auto& columns = pf->schema().columns();
    for (const Field& field : snap.schema()) {
      int c = MatchFileColumn(columns, field, snap.column_mapping_mode());
      if (c >= 0 &&
          TypesDiffer(columns[static_cast<size_t>(c)], field.type, snap.column_mapping_mode()))
        return true;
    }
    return false;
  }

  // TypeWideningPreDowngradeCommand.removeMetadataIfNeeded: the schema without delta.typeChanges,
  // committed as Delta's UpdateColumnMetadata("DROP FEATURE", changed columns).
  Status RemoveTypeChanges(const std::shared_ptr<const delta::Snapshot>& snap) {
    const Schema& schema = snap->schema();
    Schema clean = WithoutFieldMetadata(schema, {kTypeChangesKey});
    delta::Metadata md = snap->metadata();
    md.schema_string = delta::SerializeSchema(clean);
    std::string columns;
    for (size_t i = 0; i < clean.size(); ++i) {
      if (delta::SchemaEquals({clean[i]}, {schema[i]})) continue;
      columns += columns.empty() ? "[" : ",";
      columns += "{\"name\":";
      delta::AppendJacksonString(&columns, clean[i].name);
      columns += ",\"type\":";
      delta::AppendJacksonString(&columns, clean[i].type->is_nested()
                                               ? clean[i].type->ToString()
                                               : delta::PrimitiveTypeName(*clean[i].type));
      columns += std::string(",\"nullable\":") + (clean[i].nullable ? "true" : "false");
      columns += ",\"metadata\":" + clean[i].metadata_json + "}";
    }
    delta::StringMap params;
    params.Set("columns", JsonString(columns + "]"));
    return CommitMetadata(snap, std::move(md), "DROP FEATURE", std::move(params));
  }

  // RowTrackingPreDowngradeCommand: stop row id generation, then commit every file that carries
  // a row id again without it (RowTrackingUnBackfillCommand; data files are not rewritten).
  Result<bool> UnbackfillRowTracking(std::shared_ptr<const delta::Snapshot> snap) {
    SILT_RETURN_NOT_OK(SetProperties(
        snap, {{"delta.enableRowTracking", "false"}, {"delta.rowTrackingSuspended", "true"}}));
    SILT_ASSIGN_OR_RETURN(snap, Latest());
    delta::Transaction txn(t_.store, snap, txn_opts_);
    bool any = false;
    for (const auto& f : snap->files()) {
      if (!f.base_row_id && !f.default_row_commit_version) continue;
      delta::AddFile a = f;
      a.base_row_id.reset();
      a.default_row_commit_version.reset();
      a.data_change = false;
      txn.AddReadFile(a.path);  // a concurrent remove of the file must not be undone
      txn.Add(std::move(a));
      any = true;
    }
    if (any) {
      delta::StringMap params;
      params.Set("batchId", JsonString("0"));  // Delta's JsonUtils.toJson(batchId)
      txn.SetOperation("ROW TRACKING UNBACKFILL", params);
      SILT_RETURN_NOT_OK(txn.Commit().status());
    }
    return true;
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
  const bool history_protection = delta::IsReaderWriterFeature(feature);
  if (stmt.truncate_history && !history_protection && feature != kCheckpointProtection) {
    return Status::InvalidArgument("The particular feature does not require history truncation.",
                                   errc::kDeltaFeatureDropHistoryTruncationNotAllowed);
  }
  if (feature == kCheckpointProtection && !stmt.truncate_history) {
    return Status::InvalidArgument(
        "Could not drop the Checkpoint Protection feature.\nThis feature can only be dropped by "
        "truncating history.\nPlease try again with the TRUNCATE HISTORY option:\n\n    ALTER "
        "TABLE table_name DROP FEATURE checkpointProtection TRUNCATE HISTORY",
        errc::kDeltaFeatureCanOnlyDropCheckpointProtectionWithHistoryTruncation);
  }
  std::string dependents;
  for (const auto& d : DependentFeatures(feature)) {
    if (delta::HasFeature(snap.protocol(), d)) dependents += (dependents.empty() ? "" : ", ") + d;
  }
  if (!dependents.empty()) {
    return Status::InvalidArgument("Cannot drop table feature `" + feature +
                                       "` because some other features (" + dependents +
                                       ") in this table depends on `" + feature +
                                       "`.\nConsider dropping them first before dropping this "
                                       "feature.",
                                   errc::kDeltaFeatureDropDependentFeature);
  }
  static const std::vector<std::string> kImplemented = {
      "deletionVectors", "checkConstraints",    "inCommitTimestamp", "vacuumProtocolCheck",
      "v2Checkpoint",    "domainMetadata",      "rowTracking",       "columnMapping",
      "typeWidening",    "typeWidening-preview"};
  if (!Contains(kImplemented, feature)) {
    return Status::NotImplemented("ALTER TABLE … DROP FEATURE " + feature +
                                      " is not implemented yet; silt drops deletionVectors, "
                                      "checkConstraints, inCommitTimestamp, vacuumProtocolCheck, "
                                      "v2Checkpoint, domainMetadata, rowTracking, "
                                      "columnMapping and typeWidening",
                                  errc::kNotImplemented);
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
