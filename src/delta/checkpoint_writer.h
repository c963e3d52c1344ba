// Checkpoint writer: writes the state of a Snapshot as a classic single-file Delta checkpoint
// `_delta_log/<version:020>.checkpoint.parquet` in the schema Delta-Spark writes (PROTOCOL.md
// "Checkpoints"; Spark's Checkpoints.scala and InMemoryLogReplay), then points
// `_delta_log/_last_checkpoint` at it.
//
// Content (one row per action, exactly one non-null top-level struct per row, in this order):
// protocol, metaData, one txn per app, one domainMetadata per live domain, the live add files,
// then the unexpired tombstones. As Spark does, adds and removes carry dataChange = false; a
// tombstone is kept iff deletionTimestamp > now - delta.deletedFileRetentionDuration (a remove
// without deletionTimestamp counts as 0, so it is dropped); a txn is dropped only when
// delta.setTransactionRetentionDuration is set and its lastUpdated is older than that.
//
// Schema (all fields nullable, as Spark's `schema.asNullable`; maps have string keys and
// nullable string values; arrays hold nullable strings):
//   txn            struct<appId:string, version:long, lastUpdated:long>
//   add            struct<path:string, partitionValues:map<string,string>, size:long,
//                         modificationTime:long, dataChange:boolean, tags:map<string,string>,
//                         deletionVector:struct<storageType:string, pathOrInlineDv:string,
//                                               offset:int, sizeInBytes:int, cardinality:long>,
//                         baseRowId:long, defaultRowCommitVersion:long,
//                         clusteringProvider:string, stats:string>
//                  (stats is left out when delta.checkpoint.writeStatsAsJson = false)
//   remove         struct<path:string, deletionTimestamp:long, dataChange:boolean,
//                         extendedFileMetadata:boolean, partitionValues:map<string,string>,
//                         size:long, deletionVector:struct<...as above...>, baseRowId:long,
//                         defaultRowCommitVersion:long>      (no stats, no tags, as Spark)
//   metaData       struct<id:string, name:string, description:string,
//                         format:struct<provider:string, options:map<string,string>>,
//                         schemaString:string, partitionColumns:array<string>,
//                         configuration:map<string,string>, createdTime:long>
//   protocol       struct<minReaderVersion:int, minWriterVersion:int,
//                         readerFeatures:array<string>, writerFeatures:array<string>>
//   domainMetadata struct<domain:string, configuration:string, removed:boolean>
// The domainMetadata column is always written (Spark 3.x does too; it is all-null when the
// table has no domains). Not written: stats_parsed / partitionValues_parsed
// (delta.checkpoint.writeStatsAsStruct), so readers use the JSON stats.
//
// Multi-part (CheckpointOptions::part_size): `<v>.checkpoint.<part>.<parts>.parquet`, the small
// actions in part 1 and each file action in the part its key hashes to; readers use a set only
// once every part exists, so parts are published one by one and `_last_checkpoint` (with
// "parts") last. A part already present is kept (all writers put the same rows in it).
//
// Publishing: the Parquet file is streamed through ObjectStore::OpenWrite, so it appears
// atomically and complete or not at all. A non-empty checkpoint file already present for the
// version is kept as is (every writer writes the same state for a version; Spark does the same
// when its rename loses). Then `_last_checkpoint` is Put (overwritten) with
// {"version":v,"size":<rows>,"sizeInBytes":<file bytes>,"numOfAddFiles":<adds>} — unless it
// already names a newer version, which it is never moved back from. No checksum field is written
// (it is optional). A failure after the checkpoint is published leaves a valid checkpoint and a
// stale hint; both are harmless for readers (the hint is only a hint).
//
// Tables with delta.checkpointPolicy = v2 (and the v2Checkpoint feature it needs) get a V2-spec
// checkpoint instead (the feature with the classic policy gives classic ones, as in Delta):
// `<v>.checkpoint.<uuid>.parquet` with one more column, checkpointMetadata
// struct<version:long, tags:map<string,string>>, whose row (version = v) comes first, and every
// action inline (no sidecars); part_size is ignored. A non-empty UUID checkpoint already present
// for the version is kept.
//
// Refused: tables with writer features this writer does not know (Unsupported,
// DELTA_UNSUPPORTED_FEATURES_FOR_WRITE), whose actions may carry fields it would drop.
//
// Contract: `snapshot` must have been loaded with SnapshotOptions::load_files = true (a snapshot
// without files would produce a checkpoint of an empty table; the Snapshot cannot tell).
// `store` is the table's store (usually snapshot.store(); tests pass a fault-injecting wrapper).
// Thread-compatible; concurrent writers of the same checkpoint are safe (last publish wins, all
// publish the same state).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "delta/snapshot.h"
#include "io/object_store.h"
#include "parquet/writer.h"

namespace silt::delta {

// Parquet settings for checkpoints: the writer's defaults (snappy, DataPage v1, as Spark) with
// 32 MiB row groups, which bound the writer's buffer (a 300k-file checkpoint peaks ~100 MB lower
// than with 128 MiB) and let readers decode one row group at a time.
inline parquet::WriterOptions DefaultCheckpointParquetOptions() {
  parquet::WriterOptions o;
  o.row_group_bytes = 32LL << 20;
  return o;
}

struct CheckpointOptions {
  // "Now" for tombstone and txn expiry. Required: a null clock fails the checkpoint with
  // INTERNAL_ERROR (the engine never reads the system clock by itself).
  const Clock* clock = nullptr;
  parquet::WriterOptions parquet = DefaultCheckpointParquetOptions();
  // Rows handed to the Parquet writer per chunk (bounds the builder's memory).
  int64_t rows_per_chunk = 16384;
  // > 0: write a multi-part checkpoint of ceil(actions / part_size) parts when that is more than
  // one (Spark's spark.databricks.delta.checkpoint.partSize). 0: one file.
  int64_t part_size = 0;
};

// What WriteCheckpoint did.
struct CheckpointInfo {
  int64_t version = -1;
  std::string key;  // "_delta_log/<v>.checkpoint.parquet" (multi-part: the first part; V2:
                    // <v>.checkpoint.<uuid>.parquet)
  std::vector<std::string> part_keys;  // every file of the checkpoint (one unless multi-part)
  int64_t num_actions = 0;             // rows ("size" in _last_checkpoint)
  int64_t num_add_files = 0;
  int64_t num_tombstones = 0;    // unexpired removes written
  int64_t size_in_bytes = 0;     // of the checkpoint file (all parts)
  bool already_existed = false;  // every file of the checkpoint was there and was kept
  bool last_checkpoint_updated = false;
};

// The Arrow-like schema of a checkpoint file as this writer writes it (see above).
Schema CheckpointSchema(bool write_stats_as_json = true, bool v2 = false);

// Writes the checkpoint of `snapshot` (at snapshot.version()) and updates _last_checkpoint.
// `info`, when given, receives the details.
Status WriteCheckpoint(ObjectStore& store, const Snapshot& snapshot,
                       const CheckpointOptions& options = {}, CheckpointInfo* info = nullptr);

// Whether a checkpoint is due after committing `version`: version > 0 and
// version % delta.checkpointInterval == 0 (Spark's rule), the interval read from `snapshot`'s
// metadata (the default 10 when the property is invalid).
bool ShouldCheckpoint(int64_t version, const Snapshot& snapshot);

// "_delta_log/00000000000000000010.checkpoint.parquet".
std::string CheckpointKey(int64_t version);
// "_delta_log/00000000000000000010.checkpoint.0000000001.0000000003.parquet" (part is 1-based).
std::string MultiPartCheckpointKey(int64_t version, int64_t part, int64_t num_parts);

}  // namespace silt::delta
