// OPTIMIZE (bin-packing compaction, ZORDER BY) and REORG TABLE … APPLY (PURGE) as a C++ API;
// the SQL wrappers (optimize_command.cc) resolve tables and partition predicates into these.
// ../shared/specs/dml-dv-optimize-reorg.md §3–4 is the specification.
//
// Compaction: candidate files are those of the selected partitions that are smaller than
// min_file_size or whose deletion vector marks more than max_deleted_rows_ratio of their rows
// (strict >). Per partition, files sorted by size are greedily packed into bins of at most
// max_file_size bytes. A bin with one file is dropped — unless that file is there for its
// deleted rows ([silt decision]: the seed promises OPTIMIZE purges files with > 5 % deleted
// rows; Delta OSS would skip a lone one), or in REORG/ZORDER mode. Each bin's rows (deleted rows
// dropped) are rewritten into new files (dataChange=false); the old files are removed
// (dataChange=false). One commit for everything; no commit when nothing was rewritten.
//
// ZORDER BY: one bin per partition with all its files; rows are ordered by the bit-interleaving
// of per-column range ids (quantiles of a sample, as Delta's range_partition_id), so files get
// narrow min/max ranges on every z-order column.
//
// Liquid clustering (delta/clustering.h): on a table with clustering columns, OPTIMIZE
// (kCompact) clusters instead of compacting, as Delta's ClusteringStrategy does. Candidates are
// the files not clustered by another provider or by other columns (ZCUBE_ZORDER_BY tag); those
// sorted by ZCUBE_ID (unclustered files first), z-cubes whose files total at least
// clustering_min_cube_size dropped, and nothing at all when what is left is one z-cube and no
// unclustered file. They are packed in that order into bins of max(clustering_target_cube_size,
// clustering_min_cube_size) bytes; each bin (one file too) becomes a new z-cube: its rows ordered
// by a Hilbert curve over the clustering columns' range ids (one column: its range ids, as
// Delta), cut into max(1, bytes / max_file_size) files tagged ZCUBE_ID / ZCUBE_ZORDER_BY with
// clusteringProvider "liquid". `full` (OPTIMIZE FULL) takes every file of the table instead
// ([silt decision]: Delta OSS still skips large z-cubes; Databricks documents FULL as reclustering
// all records). ZORDER BY on a clustered table is DELTA_CLUSTERING_WITH_ZORDER_BY; FULL on a
// table without clustering columns DELTA_OPTIMIZE_FULL_NOT_SUPPORTED.
//
// REORG PURGE: every selected file with a non-empty deletion vector is rewritten (single-file
// bins kept), so soft-deleted rows are physically gone from live files; files without DVs are
// never touched.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "delta/actions.h"
#include "delta/constraints.h"
#include "delta/snapshot.h"
#include "io/object_store.h"
#include "io/read_confinement.h"
#include "vector/vector.h"

namespace silt::ops {

struct OptimizeOptions {
  // kUpgradeUniform: REORG … APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION = 2)) rewrites every
  // file without the ICEBERG_COMPAT_VERSION = 2 tag (files written before IcebergCompatV2).
  enum class Mode : uint8_t { kCompact, kZOrder, kReorgPurge, kUpgradeUniform };
  Mode mode = Mode::kCompact;
  // Partition filter: true when a file's partition is selected (WHERE); null = all files.
  std::function<Result<bool>(const delta::AddFile&)> partition_filter;
  std::string predicate_text;            // for operationParameters, e.g. "[\"(p = 1)\"]" content
  std::vector<std::string> zorder_by;    // logical column names (mode kZOrder)
  int64_t max_file_size = 1LL << 30;     // spark.databricks.delta.optimize.maxFileSize
  int64_t min_file_size = 1LL << 30;     // spark.databricks.delta.optimize.minFileSize
  double max_deleted_rows_ratio = 0.05;  // spark.databricks.delta.optimize.maxDeletedRowsRatio
  bool full = false;                     // OPTIMIZE FULL (clustered tables)
  // spark.databricks.delta.optimize.clustering.mergeStrategy.minCubeSize.threshold /
  // .targetCubeSize (defaults: 100 × maxFileSize's default, and 1.5 × that).
  int64_t clustering_min_cube_size = 100LL << 30;
  int64_t clustering_target_cube_size = 150LL << 30;
  ThreadPool* pool = nullptr;  // bins are rewritten in parallel when set
  // Checked before each bin's rewrite: set, the run fails with Status::Cancelled and commits
  // nothing (files already written are left for VACUUM). Null: never cancelled.
  const std::atomic<bool>* cancelled = nullptr;
  // Confines reads of absolute file paths (io/read_confinement.h); null: unconfined.
  std::shared_ptr<const ReadConfinement> read_confinement = nullptr;
  // Re-checks the table's SQL constraints on rewritten rows (WriteDataFiles needs one when the
  // table has CHECK constraints; the SQL statements bind one with commands::MakeRowValidator).
  delta::RowValidator row_validator;
  // Required (no system-clock default): null fails with kErrorMissingClock (ops/ops.h).
  std::shared_ptr<Clock> clock;
  // commitInfo.userName / userMetadata of the commit (TransactionOptions'), e.g. the maintenance
  // service's tag.
  std::optional<std::string> commit_user_name;
  std::optional<std::string> commit_user_metadata;
};

struct FileSizeStats {
  int64_t min = 0, max = 0, total_files = 0, total_size = 0;
  double avg = 0;
};

struct OptimizeResult {
  std::string table_path;
  std::optional<int64_t> committed_version;  // absent: nothing to do, no commit
  int64_t num_files_added = 0;
  int64_t num_files_removed = 0;
  FileSizeStats files_added, files_removed;
  int64_t partitions_optimized = 0;
  int64_t num_bins = 0;
  int64_t num_batches = 0;
  int64_t total_considered_files = 0;
  int64_t total_files_skipped = 0;
  int64_t num_deletion_vectors_removed = 0;
  int64_t num_deletion_vector_rows_removed = 0;
  int64_t start_time_ms = 0, end_time_ms = 0;
};

// Runs OPTIMIZE / ZORDER / REORG PURGE against the latest snapshot of the table at `store`.
// Errors: DELTA_ZORDERING_ON_PARTITION_COLUMN, DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST, kernel
// write-support errors, commit conflicts (DELTA_CONCURRENT_DELETE_READ when a compacted file
// was removed concurrently).
Result<OptimizeResult> Optimize(std::shared_ptr<ObjectStore> store, const OptimizeOptions& options);

// The three steps of Optimize, so the rewrites can run elsewhere (a Dask cluster:
// docs/scale-out.md) and one process commits: Optimize(store, o) is PlanOptimize, then
// RewriteOptimizeBin for each bin, then CommitOptimize.
struct OptimizePlan {
  std::shared_ptr<const delta::Snapshot> snapshot;  // the version planned on and committed on
  // The bins, each rewritten into new files; pointers into snapshot->files().
  std::vector<std::vector<const delta::AddFile*>> bins;
  // Planning's figures (considered, skipped, bins, partitions, start time); CommitOptimize
  // completes them.
  OptimizeResult result;
};

// Checks the options against `snapshot` (the errors listed for Optimize) and packs the bins.
// No bins: nothing to do.
Result<OptimizePlan> PlanOptimize(const std::shared_ptr<ObjectStore>& store,
                                  std::shared_ptr<const delta::Snapshot> snapshot,
                                  const OptimizeOptions& options);

// Writes the rows of `bin` (files of `snapshot`, deleted rows dropped) into new data files of the
// table and returns their add actions (dataChange=false, z-cube tags when the table is
// clustered), uncommitted. Uses options' mode, zorder_by, max_file_size, pool, row_validator,
// clock, cancelled. Thread-safe: bins of one plan may be rewritten concurrently, in any process
// that loads the same snapshot version. Files of a failed call are left for VACUUM.
Result<std::vector<delta::AddFile>> RewriteOptimizeBin(
    const std::shared_ptr<ObjectStore>& store,
    const std::shared_ptr<const delta::Snapshot>& snapshot,
    const std::vector<const delta::AddFile*>& bin, const OptimizeOptions& options);

// Commits the plan once: removes every file of its bins, adds `added` (added[i]: bin i's files),
// with the operation, parameters and metrics of the local command. Errors: Optimize's commit
// conflicts (the same for the same concurrent commit), and
// SILT_OPTIMIZE_BIN_MISMATCH when `added` does not have one entry per bin.
Result<OptimizeResult> CommitOptimize(const std::shared_ptr<ObjectStore>& store,
                                      const OptimizePlan& plan,
                                      std::vector<std::vector<delta::AddFile>> added,
                                      const OptimizeOptions& options);

// A bin as a self-contained task for another process (JSON, no credentials: the worker opens
// the table by its URI with its own storage settings): the table URI, the snapshot version, the
// options a rewrite uses and the bin's add actions.
struct OptimizeTask {
  std::string job;  // the job's id, echoed by the output: outputs of another job are refused
  std::string table_uri;
  int64_t version = 0;
  int64_t bin = 0;  // index in the plan
  OptimizeOptions::Mode mode = OptimizeOptions::Mode::kCompact;
  std::vector<std::string> zorder_by;
  int64_t max_file_size = 0;
  std::vector<delta::AddFile> files;
};
std::string SerializeOptimizeTask(const OptimizeTask& task);
// Errors: SILT_INVALID_DISTRIBUTED_TASK for text that is not a serialized task.
Result<OptimizeTask> ParseOptimizeTask(std::string_view json);
// A task's outcome: its job, its bin index and the added files (JSON with the add actions as the
// log writes them).
struct OptimizeOutput {
  std::string job;
  int64_t bin = 0;
  std::vector<delta::AddFile> added;
};
std::string SerializeOptimizeOutput(const OptimizeOutput& output);
Result<OptimizeOutput> ParseOptimizeOutput(std::string_view json);

// The plan's bins as tasks of job `job` on the table at `table_uri`, one per bin in bin order
// (what DistributedJob and the maintenance service's remote executor send to workers).
std::vector<std::string> OptimizeTasks(const OptimizePlan& plan, const OptimizeOptions& options,
                                       const std::string& job, const std::string& table_uri);
// The added files per bin (CommitOptimize's `added`) from the outputs of job `job`'s tasks, one
// per bin in any order. Errors: SILT_INVALID_DISTRIBUTED_TASK for a missing, duplicate or
// foreign output.
Result<std::vector<std::vector<delta::AddFile>>> CollectOptimizeOutputs(
    const std::string& job, size_t num_bins, const std::vector<std::string>& outputs);

// Spark's OPTIMIZE/REORG result row: (path STRING, metrics STRUCT<…>).
Schema OptimizeResultSchema();
Result<DataChunk> OptimizeResultChunk(const OptimizeResult& result);

// Groups files by partition (OPTIMIZE bins never span two): equal for files with the same
// partition values, a null value differs from every string. The maintenance advisor groups its
// candidates the same way.
std::string PartitionKey(const delta::AddFile& f);

// The z-value of row i: bit-interleaving (MSB first) of each column's 32-bit range id.
// Exposed for tests.
std::string InterleaveBits(const std::vector<uint32_t>& range_ids);

// The Hilbert index of a point whose coordinates (at most 64 / bits of them) have `bits` bits
// each (Skilling's transpose algorithm, as Delta's hilbert_index): consecutive indexes are
// neighbouring points. Exposed for tests.
uint64_t HilbertIndex(std::vector<uint32_t> point, int bits);

}  // namespace silt::ops
