// CONVERT TO DELTA of a Parquet directory (Delta's ConvertToDeltaCommand with its ParquetTable
// source): one commit, version 0, that adds every data file found below the directory in place.
// The Parquet files are never rewritten, moved or deleted; only
// `_delta_log/00000000000000000000.json` is created.
//
//  - Listing: every file below the directory, recursively, except hidden names (starting with
//    '_' or '.'); hidden directories are skipped too unless their name holds '=' (a partition
//    directory such as `_p=1`).
//  - Partitions: each file's Hive-style `col=value` directories (walked up from the file, as
//    Spark's PartitionUtils.parsePartition does) must name the PARTITIONED BY columns in order;
//    values are unescaped, __HIVE_DEFAULT_PARTITION__ is null, and a value that does not cast to
//    the declared type fails.
//  - Schema: the footers' schemas merged (Spark's SchemaMergingUtils: union of the fields by
//    name, equal types or byte/short/int widening, nested structs merged), all nullable, then
//    the partition columns with their declared types.
//  - Stats (unless NO STATISTICS or spark.databricks.delta.stats.collect=false): numRecords
//    from the footer and per-leaf min/max/nullCount aggregated over the row groups' column
//    statistics (top-level and struct leaves; array/map columns get none).
// Already a Delta table (a log exists): success, nothing done (ConvertResult without version).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "delta/transaction.h"
#include "io/object_store.h"
#include "vector/types.h"

namespace silt::ops {

struct ConvertPartitionColumn {
  std::string name;
  TypePtr type;
};

struct ConvertOptions {
  // Required (no system-clock default): metadata createdTime and the commit timestamp.
  std::shared_ptr<Clock> clock;
  // PARTITIONED BY (name TYPE, ...), in directory order.
  std::vector<ConvertPartitionColumn> partition_columns;
  // false: NO STATISTICS or spark.databricks.delta.stats.collect=false.
  bool collect_stats = true;
  // spark.databricks.delta.convert.partitionValues.ignoreCastFailure.
  bool ignore_partition_cast_failure = false;
  // spark.databricks.delta.properties.defaults.enableDeletionVectors.
  bool enable_deletion_vectors = true;
  // The directory as the user named it, for error messages; empty: the store's root.
  std::string display_path;
  delta::TransactionOptions txn;  // its clock is replaced by `clock`
};

struct ConvertResult {
  std::optional<int64_t> version;   // 0; absent when the directory already was a Delta table
  int64_t num_converted_files = 0;  // numConvertedFiles
};

// The Parquet files below `store`'s root as a Delta table would describe them (the listing,
// partitions, schema and stats above): adds with paths relative to the root, dataChange true.
// `options.clock` and `options.txn` are not used. Errors: those of ConvertToDelta below but the
// commit's. CLONE parquet.`path` (commands/clone_table.cc) clones from it.
struct ParquetDirectory {
  Schema schema;                               // data columns, then the partition columns
  std::vector<std::string> partition_columns;  // PARTITIONED BY names
  std::vector<delta::AddFile> files;           // sorted by path
};
Result<ParquetDirectory> PlanParquetDirectory(ObjectStore& store, const ConvertOptions& options);

// Converts the Parquet files below `store`'s root in place. Errors (Spark's classes):
// DELTA_FILE_NOT_FOUND (no such directory), DELTA_EMPTY_DIRECTORY,
// DELTA_UNEXPECTED_NUM_PARTITION_COLUMNS_FROM_FILE_NAME,
// DELTA_UNEXPECTED_PARTITION_COLUMN_FROM_FILE_NAME, DELTA_FAILED_CAST_PARTITION_VALUE,
// DELTA_FAILED_MERGE_SCHEMA_FILE, DELTA_FAILED_INFER_SCHEMA, a footer's read error, the commit's
// errors; kErrorMissingClock.
Result<ConvertResult> ConvertToDelta(std::shared_ptr<ObjectStore> store,
                                     const ConvertOptions& options);

}  // namespace silt::ops
