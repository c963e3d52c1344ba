// UniForm (Iceberg): the Iceberg table metadata of a Delta table, written beside its log under
// <table>/metadata/ so that Iceberg readers see the same data files (Delta's IcebergConverter).
//
// Layout (Iceberg's file-system tables, format version 2):
//   metadata/v<N>.metadata.json          schema (field ids = column mapping ids, list element and
//                                        map key/value ids = delta.columnMapping.nested.ids),
//                                        partition spec, the snapshots kept (current last) with
//                                        snapshot-log and metadata-log, properties delta-version,
//                                        delta-timestamp and schema.name-mapping.default
//   metadata/version-hint.text           "<N>": the current metadata file
//   metadata/snap-<id>-<N>-<uuid>.avro   a snapshot's manifest list (Iceberg's manifest_file)
//   metadata/<uuid>-m0.avro              its manifest: every live data file (absolute path, record
//                                        count, size, partition tuple, null counts and bounds);
//                                        files kept from the previous snapshot are EXISTING with
//                                        their original snapshot id and sequence numbers
// Each conversion describes the whole Delta snapshot in a manifest of its own, so the current
// snapshot never depends on older manifests; N counts conversions. Earlier snapshots are kept
// up to history.expire.max-snapshot-age-ms (from Delta's retention, as Delta sets it) and then
// expired with their manifest lists and manifests. Objects are written before the version hint
// that points at them; expired files are deleted after it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "delta/actions.h"
#include "io/object_store.h"
#include "vector/types.h"

namespace silt::delta {

class Snapshot;

// Writes the Iceberg metadata of `snapshot` (which must have its files loaded) into its store.
// Skipped (OK) when the current Iceberg metadata already records this Delta version or a newer
// one. Errors: InvalidArgument (DELTA_UNIVERSAL_FORMAT_CONVERSION_FAILED) for an Iceberg snapshot
// age above Delta's retention, Corruption for unreadable earlier metadata, storage errors as
// IoError. Callers after a commit log the error and never fail the commit.
Status ConvertToIceberg(const Snapshot& snapshot);

// The Delta version the current Iceberg metadata of the table in `store` was converted from
// (its delta-version property); -1 when there is none.
Result<int64_t> IcebergConvertedVersion(ObjectStore& store);

// The files the current Iceberg metadata references: the metadata file, its manifest list, the
// manifests and their data files, as object keys of `store` (files outside the table, e.g. a
// shallow clone's, as their absolute URIs). Empty when the table has no Iceberg metadata. Reads
// Avro written with the null or deflate codec. Corruption for a malformed file.
Result<std::vector<std::string>> IcebergReferencedFiles(ObjectStore& store);

// An Iceberg table's current snapshot as a Delta table describes it (Databricks' CLONE
// iceberg.`path`, Delta's Iceberg conversion): the current schema with column mapping in id mode
// (each field's delta.columnMapping.id is its Iceberg field id, as the data files' field ids
// are; physicalName its name), the default spec's identity partitions as partition columns, and
// one add per live data file: its path as the manifest names it (absolute), size, record count,
// partition values and, as modification time, the time of the snapshot that added it.
struct IcebergTable {
  Schema schema;
  std::vector<std::string> partition_columns;
  int64_t max_column_id = 0;  // delta.columnMapping.maxColumnId
  int64_t snapshot_id = -1;   // -1: no snapshot (an empty table)
  std::vector<AddFile> files;
};
// Reads the metadata file of `store`'s root (metadata/version-hint.text's, else the highest
// numbered metadata/*.metadata.json), its manifest list and manifests (Avro, null or deflate
// codec; format v1 and v2). Refused with DELTA_CLONE_INCOMPATIBLE_SOURCE: delete files (position
// or equality deletes), data files of another partition spec (partition evolution), non-identity
// partition transforms, list/map/uuid/time/fixed columns, non-Parquet data files. No metadata:
// DELTA_CLONE_UNSUPPORTED_SOURCE (NotFound).
Result<IcebergTable> ReadIcebergTable(ObjectStore& store);

}  // namespace silt::delta
