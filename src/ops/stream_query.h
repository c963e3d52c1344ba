// A streaming query from a Delta table (ops/delta_source.h) into a Delta table, exactly once, as
// Spark Structured Streaming runs one with a Delta sink.
//
// Checkpoint directory (Spark's layout, through an ObjectStore rooted at it):
//   metadata      {"id":"<query id>"}, written once
//   offsets/N     "v1", {"batchWatermarkMs":0,"batchTimestampMs":T,"conf":{}}, the source offset
//                 JSON (delta_source.h): written before batch N runs (write-ahead)
//   commits/N     "v1", {"nextBatchWatermarkMs":0}: written after the sink committed batch N
//   sources/0/0   the stream's initial start offset (as Spark's Kafka source keeps its initial
//                 offsets), so that a restart before batch 0 completed resolves the same start
// Every file is created with put-if-absent: a second process on the same checkpoint fails
// instead of interleaving batches.
//
// Exactly once: the sink commits each batch with a `txn` action (appId = query id, version =
// batch id) in the same commit as its data (Spark's DeltaSink). On restart, a batch whose offsets
// file exists but whose commits file does not is run again over the same offsets; the sink skips
// it when its table already records that batch id for the query.
//
// Thread safety: one RunStream per checkpoint at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "delta/actions.h"
#include "delta/streaming_write.h"
#include "io/object_store.h"
#include "ops/delta_source.h"

namespace silt::ops {

// The checkpoint directory of one streaming query.
class StreamCheckpoint {
 public:
  // Reads `metadata` (creating it with a new query id when absent).
  static Result<StreamCheckpoint> Open(std::shared_ptr<ObjectStore> dir);
  const std::string& query_id() const { return query_id_; }

  // The highest N of offsets/N (commits/N), nullopt when there is none.
  Result<std::optional<int64_t>> LatestOffsetBatch() const;
  Result<std::optional<int64_t>> LatestCommitBatch() const;
  Result<DeltaSourceOffset> ReadOffset(int64_t batch) const;
  // AlreadyExists when offsets/N exists (another query runs on this checkpoint).
  Status WriteOffset(int64_t batch, const DeltaSourceOffset& offset, int64_t batch_ts_ms) const;
  Status WriteCommit(int64_t batch) const;
  Result<std::optional<DeltaSourceOffset>> ReadInitialOffset() const;
  Status WriteInitialOffset(const DeltaSourceOffset& offset) const;

 private:
  Result<std::optional<int64_t>> LatestIn(const std::string& dir) const;
  std::shared_ptr<ObjectStore> dir_;
  std::string query_id_;
};

enum class SinkMode : uint8_t {
  kAppend,  // Spark's DeltaSink in Append output mode
  kUpsert,  // foreachBatch + MERGE on key_columns: matched rows replaced, others inserted
};

struct DeltaSinkOptions {
  std::shared_ptr<ObjectStore> table;
  SinkMode mode = SinkMode::kAppend;
  std::vector<std::string> key_columns;  // kUpsert
  // Table properties and partition columns when the sink creates the table on the first batch.
  delta::StringMap properties;
  std::vector<std::string> partition_columns;
  std::shared_ptr<Clock> clock;
};

// Commits one micro-batch to the sink table, exactly once per (query id, batch id): returns
// false without writing when the table's txn for `query_id` is already >= batch_id. Creates the
// table with the batch's schema when it does not exist. The batch's columns must match the
// table's (names and types): DELTA_METADATA_MISMATCH.SCHEMA_MISMATCH otherwise.
// Upsert: rows of the table whose key equals a batch row's key are deleted (deletion vectors when
// the table writes them) and the batch rows inserted, in one MERGE commit; among batch rows with
// the same key the last one wins. Append commits operation STREAMING UPDATE (outputMode Append,
// queryId, epochId).
Result<bool> AddBatchToSink(const DeltaSinkOptions& sink, const std::string& query_id,
                            int64_t batch_id, const SourceBatch& batch);

// AddBatchToSink in append mode for rows handed over a chunk at a time (`rows` is not called
// when the batch is already committed): the data files are written as the rows arrive, so a
// batch needs memory for the writer's row groups, not for its rows. *num_rows receives the
// rows written.
Result<bool> AppendRowsToSink(const DeltaSinkOptions& sink, const std::string& query_id,
                              int64_t batch_id, const Schema& schema, const delta::RowSource& rows,
                              int64_t* num_rows);

enum class Trigger : uint8_t {
  kAvailableNow,    // every batch available at start (limits split it), then stop
  kOnce,            // one batch with everything available, limits ignored, then stop
  kProcessingTime,  // run, then wait_for_trigger(), until it returns false
};

struct StreamQueryOptions {
  std::shared_ptr<ObjectStore> source;
  DeltaSourceOptions source_options;
  DeltaSinkOptions sink;
  std::shared_ptr<ObjectStore> checkpoint;
  Trigger trigger = Trigger::kAvailableNow;
  // kProcessingTime: called after each trigger; returns false to stop the query.
  std::function<bool()> wait_for_trigger;
  std::optional<int64_t> max_batches;  // stop after this many batches (any trigger)
  std::shared_ptr<Clock> clock;
  // Called after each step of a batch ("offsets", "sink"); a failure stops the query with it
  // (tests simulate crashes with it).
  std::function<Status(int64_t batch, std::string_view step)> step_hook;
  // Called with each warning (e.g. an Auto-TTL source read without skipChangeCommits).
  std::function<void(const std::string&)> warn;
  // A streaming table's defining query (commands/streaming_table.cc): when set, each batch's
  // source rows pass through it and the sink (append mode) receives what it returns (also for a
  // batch re-run after a crash, which the sink then skips as already committed).
  std::function<Result<SourceBatch>(SourceBatch)> transform;
};

struct StreamQueryResult {
  std::string query_id;
  int64_t batches = 0;  // batches run by this call (a re-run uncommitted batch included)
  int64_t rows = 0;     // rows read from the source
  int64_t files = 0;
  int64_t batches_skipped_by_sink = 0;  // already committed by an earlier run
  std::optional<int64_t> last_batch_id;
};

// Runs the query until its trigger says stop. Errors: those of the source, the sink and the
// checkpoint (an error leaves the checkpoint where the next run resumes exactly once).
Result<StreamQueryResult> RunStream(const StreamQueryOptions& options);

}  // namespace silt::ops
