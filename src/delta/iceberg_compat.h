// IcebergCompatV2 and UniForm (Iceberg): the rules a Delta table must keep so that its Iceberg
// metadata (delta/iceberg_metadata.h) describes it, as Delta's IcebergCompat.scala and
// UniversalFormat.scala enforce them when a transaction commits.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "delta/actions.h"
#include "vector/types.h"

namespace silt::delta {

class Snapshot;

inline constexpr const char* kIcebergCompatV1Key = "delta.enableIcebergCompatV1";
inline constexpr const char* kIcebergCompatV2Key = "delta.enableIcebergCompatV2";
inline constexpr const char* kUniversalFormatKey = "delta.universalFormat.enabledFormats";
// commitInfo.operation of REORG TABLE … APPLY (UPGRADE UNIFORM(…)) (Delta's
// UpgradeUniformProperties): the one commit besides CREATE/REPLACE that may auto-set properties.
inline constexpr const char* kUpgradeUniformOperation = "REORG TABLE UPGRADE UNIFORM";

// The add.tags entry Delta writes on every file written under IcebergCompatV2 ("2"); REORG …
// UPGRADE UNIFORM rewrites the files without it.
inline constexpr const char* kIcebergCompatVersionTag = "ICEBERG_COMPAT_VERSION";

// delta.enableIcebergCompatV2 = true (lenient: bad text counts as off; validation rejects it).
bool IcebergCompatV2Enabled(const StringMap& configuration);
// The IcebergCompat version `configuration` turns on: 2, 1 (delta.enableIcebergCompatV1, whose
// rules are V2's without arrays and maps), or 0 for none. Both on is refused at commit.
int IcebergCompatVersion(const StringMap& configuration);
// The formats a delta.universalFormat.enabledFormats value lists: comma-separated, trimmed,
// lower case, empty entries dropped ("Iceberg, hudi" → {"iceberg", "hudi"}).
std::vector<std::string> UniversalFormats(std::string_view value);
// delta.universalFormat.enabledFormats lists "iceberg".
bool UniformIcebergEnabled(const StringMap& configuration);

// The properties of a new table (CREATE / REPLACE) that asks for IcebergCompat, completed as
// Delta completes them before any data is written: delta.columnMapping.mode = name when not given
// (Delta's RequireColumnMapping auto-set), and delta.enableDeletionVectors = false when not given
// (the session default that turns deletion vectors on would otherwise violate IcebergCompatV2).
void ApplyIcebergCompatDefaults(StringMap* properties);

// Delta's rewriteFieldIdsForIceberg for a schema about to be committed under `configuration`:
// when that turns IcebergCompatV2 and column mapping on, `schema` gets the nested column mapping
// ids (AssignNestedColumnIds) and delta.columnMapping.maxColumnId in `configuration` covers them.
// Returns whether either changed. Called before data files are written (their Parquet schema
// carries the element/key/value ids) and again when the metadata is committed.
bool AssignIcebergNestedIds(Schema* schema, StringMap* configuration);

// Checks of one commit whose resulting metadata enables IcebergCompat (V1 or V2) or UniForm
// (Iceberg).
// `previous` is the read snapshot (null when creating), `metadata_changed` whether the commit
// writes a metaData action, `operation` its commitInfo.operation, `adds` its add actions. On
// success returns the protocol with the features IcebergCompat requires (icebergCompatV1 or
// icebergCompatV2, columnMapping) when `protocol` lacks them, nullopt otherwise. Errors (nothing
// committed): DELTA_ICEBERG_COMPAT_VIOLATION.{VERSION_MUTUAL_EXCLUSIVE,
// WRONG_REQUIRED_TABLE_PROPERTY, DELETION_VECTORS_SHOULD_BE_DISABLED, DELETION_VECTORS_NOT_PURGED,
// UNSUPPORTED_DATA_TYPE, UNSUPPORTED_PARTITION_DATA_TYPE, REPLACE_TABLE_CHANGE_PARTITION_NAMES},
// the parent class for an add without numRecords, and
// DELTA_UNIVERSAL_FORMAT_VIOLATION.ICEBERG_COMPAT_REQUIRED.
Result<std::optional<Protocol>> EnforceIcebergCompat(
    const Snapshot* previous, const Protocol& protocol, const Metadata& metadata,
    bool metadata_changed, const std::string& operation, const std::vector<AddFile>& adds);

}  // namespace silt::delta
