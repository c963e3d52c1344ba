// Physical operators: a pull-based, vectorized pipeline over DataChunks (~2048 rows).
//
// Contract
// - Next() fills *out with the next non-empty chunk of output_schema() and returns true, or
//   returns false at the end (and from then on). *out is overwritten (callers may reuse it).
// - An operator owns its children and pulls from them; it is used by one thread at a time.
//   Parallelism comes from operators that run work on the ExecContext's thread pool internally
//   (parallel scans over files/row groups, partitioned hash aggregation/join build) — the
//   interface stays single-consumer.
// - Memory that grows with the input (hash tables, sort buffers) is reserved on ctx.memory; a
//   limit hit fails with OutOfMemory and error class SILT_MEMORY_LIMIT_EXCEEDED.
// - Cancellation: long loops check ctx.cancelled and return Status::Cancelled.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/memory.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "exec/expression.h"
#include "vector/types.h"
#include "vector/vector.h"

namespace silt::exec {

inline constexpr size_t kChunkRows = 2048;

class SpillManager;  // exec/spill.h

struct ExecContext {
  EvalContext eval;
  ThreadPool* pool = nullptr;       // null: run everything on the calling thread
  MemoryTracker* memory = nullptr;  // null: unlimited, unaccounted
  const std::atomic<bool>* cancelled = nullptr;
  // Where sort, aggregation, join and window put what does not fit under the memory limit
  // (exec/spill.h); null or disabled: a limit hit is an error.
  SpillManager* spill = nullptr;
  bool is_cancelled() const { return cancelled && cancelled->load(std::memory_order_relaxed); }
};

// Receives the chunks a parallel source pushes; `worker` (< the workers asked for) identifies the
// task, so a consumer can keep per-worker state without locks.
using ChunkSink = std::function<Status(size_t worker, DataChunk& chunk)>;

class Operator {
 public:
  virtual ~Operator() = default;
  const Schema& output_schema() const { return schema_; }
  virtual Result<bool> Next(ExecContext& ctx, DataChunk* out) = 0;
  // Push mode for parallel sources: produces the whole output on `workers` tasks of ctx.pool and
  // hands each chunk to `sink` on the task that made it (no buffering between the source and a
  // consumer such as hash aggregation). Returns false, having done nothing, when the operator
  // only supports Next(); an operator is driven by one mode or the other, never both.
  virtual Result<bool> PushAll(ExecContext& /*ctx*/, size_t /*workers*/,
                               const ChunkSink& /*sink*/) {
    return false;
  }
  // Short name and details for EXPLAIN ("HashJoin", "Inner, keys=[a#0 = b#3]").
  virtual std::string name() const = 0;
  virtual std::string details() const { return ""; }
  virtual std::vector<const Operator*> children() const { return {}; }
  // What the last run did that EXPLAIN ANALYZE shows after the row counts ("spilled 3 runs,
  // 12.5 MiB"); empty when there is nothing to say.
  virtual std::string RuntimeMetrics() const { return ""; }

 protected:
  Schema schema_;
};

using OperatorPtr = std::unique_ptr<Operator>;

}  // namespace silt::exec
