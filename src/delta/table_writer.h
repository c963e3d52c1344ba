// Writing Delta tables: new data files (Parquet, partitioned Hive-style, with per-file stats),
// table creation and appends, each committed through one Transaction.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "delta/actions.h"
#include "delta/constraints.h"
#include "delta/snapshot.h"
#include "delta/transaction.h"
#include "io/object_store.h"
#include "parquet/writer.h"
#include "vector/vector.h"

namespace silt::delta {

struct DataWriteOptions {
  parquet::WriterOptions parquet;
  // Modification time of the written files. Required: the engine never reads the system clock by
  // itself; a null clock fails the write with INTERNAL_ERROR.
  std::shared_ptr<Clock> clock;
  // Rows per data file before a new file is started (per partition).
  int64_t max_rows_per_file = 10'000'000;
  // Where files go: <key_prefix>/<partition dirs>/<file_prefix>-NNNNN-<uuid>-c000….parquet.
  // Change data files use "_change_data" and "cdc" (Spark's CDC writer layout).
  std::string key_prefix;
  std::string file_prefix = "part";
  // stats.tightBounds, written when set (Spark writes true on tables with deletion vectors).
  std::optional<bool> tight_bounds;
  // Checks the SQL constraints the kernel cannot evaluate (CHECK constraints, complex
  // invariants; see constraints.h). Writes to tables that have such constraints fail with
  // SILT_CONSTRAINT_VALIDATOR_REQUIRED without one.
  RowValidator row_validator;
};

// Writes `chunks` (columns in `schema` order — the table's logical schema) as data files of a
// table with `metadata`, one or more per partition, and returns their add actions (not yet
// committed: a commit must reference only files that are completely written, which these are).
// Every chunk is checked against the table's constraints before any file is written: NOT NULL
// (DELTA_NOT_NULL_CONSTRAINT_VIOLATED), invariants (DELTA_VIOLATE_CONSTRAINT_WITH_VALUES) and,
// through options.row_validator, CHECK constraints. This is the one place constraints are
// enforced: commands must write data through it.
// Under column mapping (name or id) the files, their stats and the partition values and
// directories use physical names, and Parquet fields carry the column mapping ids as field_id.
Result<std::vector<AddFile>> WriteDataFiles(ObjectStore& store, const Metadata& metadata,
                                            const Schema& schema,
                                            const std::vector<DataChunk>& chunks,
                                            const DataWriteOptions& options = {});

// Writes data files from rows handed over a chunk at a time, as WriteDataFiles would write them
// all at once (same columns, stats, constraints, file cuts at max_rows_per_file per partition):
// rows are encoded into row groups as they arrive, so a caller that streams them (OPTIMIZE and
// REORG read files while the earlier ones are written) holds a row group per open file instead
// of every row. One file per partition is open at a time, started in the order rows arrive; its
// row group buffers are sized for max_rows_per_file rows (at most a row group), so a caller
// that knows how many rows come sets it to that.
// Constraints are checked per chunk, so a violation can come after files were written: on any
// failure the writer deletes the files it started (none was committed). Not thread-safe.
class DataFileWriter {
 public:
  static Result<std::unique_ptr<DataFileWriter>> Make(ObjectStore& store, const Metadata& metadata,
                                                      const Schema& schema,
                                                      DataWriteOptions options = {});
  ~DataFileWriter();
  // Appends rows (columns in `schema` order); the chunk is not kept.
  Status Write(const DataChunk& chunk);
  // Completes the open files and returns the add actions of all files (not yet committed).
  Result<std::vector<AddFile>> Finish();
  // Deletes the files started so far (a caller that fails elsewhere calls it instead of Finish).
  void Abort();

 private:
  DataFileWriter() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The protocol a new table needs for its schema and properties (table features only when a
// feature requires them, as Spark does).
Protocol ProtocolForNewTable(const Schema& schema, const StringMap& properties);

struct CreateTableOptions {
  std::vector<std::string> partition_columns;
  StringMap properties;
  std::optional<std::string> name;
  std::optional<std::string> description;
  // CLUSTER BY (logical top-level columns, checked with ResolveClusteringColumns): the table
  // gets the clustering + domainMetadata features and a delta.clustering domain.
  std::optional<std::vector<std::string>> clustering_columns;
  DataWriteOptions write;
  TransactionOptions txn;
  // The metadata committed, given the one the rows were written with (CTAS: identity columns'
  // high-water marks, known once the rows are written). Unset: that one.
  std::function<Result<Metadata>(const Metadata&)> final_metadata;
};

// Creates a table at the store's root (version 0), optionally with rows (CTAS). With
// delta.columnMapping.mode = name or id in the properties, fields get column mapping ids and
// physical names (AssignColumnMapping) and delta.columnMapping.maxColumnId is set. Errors:
// DELTA_TABLE_ALREADY_EXISTS when a log exists; DELTA_INVALID_PARTITION_COLUMN-style errors for
// partition columns missing from the schema.
Result<CommitResult> CreateTable(std::shared_ptr<ObjectStore> store, const Schema& schema,
                                 const std::vector<DataChunk>& rows,
                                 CreateTableOptions options = {});

// Appends rows (a blind append, Spark's WRITE with mode Append) to the latest version.
Result<CommitResult> AppendRows(std::shared_ptr<ObjectStore> store,
                                const std::vector<DataChunk>& rows, DataWriteOptions write = {},
                                TransactionOptions txn = {});

}  // namespace silt::delta
