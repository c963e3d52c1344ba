// REORG TABLE t [WHERE partition_pred] APPLY (PURGE): OPTIMIZE's options (optimize.cc) in the
// kReorgPurge mode, which rewrites every selected file with a deletion vector.
// REORG TABLE t APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION = 2)): Delta's
// ReorgTableForUpgradeUniformHelper — (1) one commit turns IcebergCompatV2 on (deletion vectors
// off, column mapping name mode keeping today's column names as physical names), (2) the
// kUpgradeUniform rewrite of every file not written under IcebergCompatV2 (which also purges
// deletion vectors), (3) one commit turns UniForm (Iceberg) on, whose post-commit conversion writes
// the Iceberg metadata. Each step is skipped when already done, so a rerun finishes an interrupted
// upgrade.
#include <cctype>

#include "commands/command.h"
#include "common/error_classes.h"
#include "delta/iceberg_compat.h"
#include "delta/iceberg_metadata.h"
#include "delta/schema_json.h"
#include "delta/snapshot.h"
#include "delta/table_features.h"
#include "delta/table_properties.h"
#include "delta/transaction.h"
#include "ops/optimize.h"

namespace silt::commands {
namespace {

// "ICEBERG_COMPAT_VERSION = 2" (the parser keeps the text between the parentheses).
Result<int64_t> CompatVersion(const std::string& args) {
  std::string s;
  for (char c : args) {
    if (!std::isspace(static_cast<unsigned char>(c)))
      s.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  const std::string prefix = "ICEBERG_COMPAT_VERSION=";
  bool digits = s.size() > prefix.size() && s.size() - prefix.size() <= 9;
  for (size_t i = prefix.size(); digits && i < s.size(); ++i)
    digits = std::isdigit(static_cast<unsigned char>(s[i]));
  if (s.rfind(prefix, 0) != 0 || !digits) {
    return Status::InvalidArgument(
        "Syntax error in UPGRADE UNIFORM(" + args +
            "): expected UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION = <version>)",
        errc::kParseSyntaxError);
  }
  return std::stoll(s.substr(prefix.size()));
}

Status CommitProperties(const std::shared_ptr<ObjectStore>& store,
                        const std::shared_ptr<const delta::Snapshot>& snap, delta::Metadata md,
                        const std::string& operation, const std::string& properties_json,
                        CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(Schema schema, delta::ParseSchemaString(md.schema_string.value_or("{}")));
  delta::Protocol proto =
      delta::WithFeatures(snap->protocol(), delta::FeaturesForMetadata(schema, md.configuration));
  delta::TransactionOptions topts;
  topts.clock = ctx.clock;
  delta::Transaction txn(store, snap, topts);
  txn.SetReadScope(delta::ReadScope::kWholeTable);
  if (proto != snap->protocol()) txn.UpdateProtocol(proto);
  txn.UpdateMetadata(std::move(md));
  delta::StringMap params;
  params.Set("properties", properties_json);
  txn.SetOperation(operation, params);
  return txn.Commit().status();
}

Result<CommandResult> UpgradeUniform(const sql::ReorgStatement& stmt, CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(int64_t version, CompatVersion(stmt.apply_args));
  if (version == 1 || version == 3) {
    return Status::NotImplemented(
        "REORG … UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION = " + std::to_string(version) +
            ") is not implemented; only version 2 is",
        errc::kNotImplemented);
  }
  if (version != 2) {
    return Status::InvalidArgument(
        "The validation of IcebergCompatV" + std::to_string(version) +
            " has failed. IcebergCompatVersion = " + std::to_string(version) +
            " is not supported. Supported versions are between 1 and 3",
        errc::kDeltaIcebergCompatViolationCompatVersionNotSupported);
  }
  if (stmt.where) {
    return Status::NotImplemented(
        "REORG TABLE … WHERE … APPLY (UPGRADE UNIFORM(…)) is not implemented; the upgrade "
        "rewrites the whole table",
        errc::kNotImplemented);
  }
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t,
                        ctx.binder->ResolveTable(stmt.table, std::nullopt));
  SILT_RETURN_NOT_OK(planner::ExpectTable(t, "REORG TABLE"));
  std::shared_ptr<const delta::Snapshot> snap = t.snapshot;

  // (1) IcebergCompatV2 on.
  const delta::StringMap& conf = snap->metadata().configuration;
  const bool dv_on =
      delta::GetBoolProperty(conf, "delta.enableDeletionVectors", false).ValueOr(false);
  if (!delta::IcebergCompatV2Enabled(conf) || dv_on ||
      snap->column_mapping_mode() == delta::ColumnMappingMode::kNone) {
    delta::Metadata md = snap->metadata();
    std::string props = "{\"delta.enableIcebergCompatV2\":\"true\"";
    md.configuration.Set(delta::kIcebergCompatV2Key, "true");
    // Delta's enableIcebergCompat disables the version the table had (V1 → V2).
    if (delta::IcebergCompatVersion(conf) == 1) {
      md.configuration.Set(delta::kIcebergCompatV1Key, "false");
      props += ",\"delta.enableIcebergCompatV1\":\"false\"";
    }
    if (delta::HasFeature(snap->protocol(), "deletionVectors") || dv_on) {
      md.configuration.Set("delta.enableDeletionVectors", "false");
      props += ",\"delta.enableDeletionVectors\":\"false\"";
    }
    if (snap->column_mapping_mode() == delta::ColumnMappingMode::kNone) {
      // Existing files name their columns by the logical names: they become the physical ones.
      int64_t max_id = 0;
      md.schema_string = delta::SerializeSchema(
          delta::AssignColumnMapping(snap->schema(), &max_id, delta::PhysicalNames::kLogical));
      md.configuration.Set("delta.columnMapping.mode", "name");
      md.configuration.Set("delta.columnMapping.maxColumnId", std::to_string(max_id));
      props += ",\"delta.columnMapping.mode\":\"name\"";
    }
    SILT_RETURN_NOT_OK(CommitProperties(t.store, snap, std::move(md),
                                        delta::kUpgradeUniformOperation, props + "}", ctx));
    SILT_ASSIGN_OR_RETURN(snap, delta::Snapshot::Load(t.store));
  }

  // (2) Rewrite the files not written under IcebergCompatV2.
  planner::ResolvedTable current = t;
  current.snapshot = snap;
  SILT_ASSIGN_OR_RETURN(ops::OptimizeOptions o, OptimizeStatementOptions(current, nullptr, ctx));
  o.mode = ops::OptimizeOptions::Mode::kUpgradeUniform;
  Result<CommandResult> rewritten = RunOptimize(current, o, ctx);
  if (!rewritten.ok()) {
    // A concurrent writer's conflict stays retryable; anything else is the rewrite's failure.
    const std::string msg =
        "The validation of IcebergCompatV2 has failed. Rewriting data to IcebergCompatV2 failed. "
        "Please run the REORG TABLE table APPLY (UPGRADE UNIFORM (ICEBERG_COMPAT_VERSION=2) "
        "command again. Cause: " +
        rewritten.status().ToString();
    if (rewritten.status().code() == StatusCode::kCommitConflict)
      return Status::CommitConflict(msg, errc::kDeltaIcebergCompatViolationRewriteDataFailed);
    return Status::IoError(msg, errc::kDeltaIcebergCompatViolationRewriteDataFailed);
  }
  SILT_ASSIGN_OR_RETURN(snap, delta::Snapshot::Load(t.store));

  // (3) UniForm (Iceberg) on; its commit converts. A table that had it already is converted here
  // when its Iceberg metadata lags (an earlier conversion failed): REORG asked for it.
  if (!delta::UniformIcebergEnabled(snap->metadata().configuration)) {
    delta::Metadata md = snap->metadata();
    md.configuration.Set(delta::kUniversalFormatKey, "iceberg");
    SILT_RETURN_NOT_OK(CommitProperties(t.store, snap, std::move(md), "SET TBLPROPERTIES",
                                        "{\"delta.universalFormat.enabledFormats\":\"iceberg\"}",
                                        ctx));
    SILT_ASSIGN_OR_RETURN(snap, delta::Snapshot::Load(t.store));
  }
  SILT_ASSIGN_OR_RETURN(int64_t converted, delta::IcebergConvertedVersion(*t.store));
  if (converted < snap->version()) {
    Status st = delta::ConvertToIceberg(*snap);
    if (!st.ok()) {
      return Status::IoError("Failed to convert the table version " +
                                 std::to_string(snap->version()) +
                                 " to the universal format iceberg. " + st.ToString(),
                             errc::kDeltaUniversalFormatConversionFailed);
    }
  }
  return rewritten;
}

}  // namespace

Result<CommandResult> ReorgTable(const sql::ReorgStatement& stmt, CommandContext& ctx) {
  if (planner::LowerName(stmt.apply) == "upgrade uniform") return UpgradeUniform(stmt, ctx);
  if (planner::LowerName(stmt.apply) != "purge") {
    return Status::NotImplemented("REORG TABLE … APPLY (" + stmt.apply + ") is not implemented",
                                  errc::kNotImplemented);
  }
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t,
                        ctx.binder->ResolveTable(stmt.table, std::nullopt));
  SILT_RETURN_NOT_OK(planner::ExpectTable(t, "REORG TABLE"));
  SILT_ASSIGN_OR_RETURN(ops::OptimizeOptions o, OptimizeStatementOptions(t, stmt.where.get(), ctx));
  o.mode = ops::OptimizeOptions::Mode::kReorgPurge;
  return RunOptimize(t, o, ctx);
}

}  // namespace silt::commands
