// External sort: sorted runs on spill files and their k-way merge, for ORDER BY (and window
// functions) whose input does not fit under the memory limit.
//
// The buffering operator appends chunks to an in-memory buffer; when a reservation fails with
// SILT_MEMORY_LIMIT_EXCEEDED it hands the buffer to SpillRun, which sorts it (stably) and writes
// it as one run. At the end the rest is spilled as a last run and Next merges the runs: a heap of
// one cursor per run (one chunk of each in memory), ties broken by run order, so the result is the
// stable order of the whole input, as the in-memory sort gives. More runs than one merge can
// hold (kMaxMergeFanIn, fewer when the memory limit leaves room for fewer run chunks) are first
// merged in groups into longer runs.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/memory.h"
#include "exec/operator.h"
#include "exec/sort.h"
#include "exec/spill.h"

namespace silt::exec {

class ExternalSort {
 public:
  static constexpr size_t kMaxMergeFanIn = 64;

  // keys: expressions over rows of `schema` (the buffered rows).
  ExternalSort(Schema schema, const std::vector<SortKey>& keys, std::string owner);
  ~ExternalSort();

  // Sorts rows of *data and writes them as a new run; *data is left empty (its schema kept).
  // The sort's permutation and evaluated keys need reservation to hold them: `precharged` bytes
  // of it were reserved for that while buffering (a limit hit past them fails).
  Status SpillRun(ExecContext& ctx, DataChunk* data, MemoryReservation* reservation,
                  int64_t precharged);
  size_t num_runs() const { return runs_.size(); }
  // After the last SpillRun: merges down to at most kMaxMergeFanIn runs and opens the cursors
  // (their chunks reserved on ctx.memory).
  Status StartMerge(ExecContext& ctx);
  // The next chunk of the merged output (false at the end).
  Result<bool> Next(ExecContext& ctx, DataChunk* out);

  int64_t bytes_spilled() const { return bytes_spilled_; }
  int64_t runs_spilled() const { return runs_spilled_; }

 private:
  struct Cursor;
  Status OpenCursors(ExecContext& ctx, std::vector<std::unique_ptr<SpillFile>> runs);
  Result<bool> Advance(ExecContext& ctx, Cursor* c);
  int Compare(const Cursor& a, const Cursor& b) const;
  Result<bool> MergeNext(ExecContext& ctx, DataChunk* out, size_t max_rows);

  Schema schema_;
  std::vector<SortKey> keys_;
  std::vector<SortOrder> orders_;
  std::string owner_;
  std::vector<std::unique_ptr<SpillFile>> runs_;
  std::vector<std::unique_ptr<Cursor>> cursors_;
  std::vector<Cursor*> heap_;
  std::unique_ptr<MemoryReservation> merge_reservation_;
  int64_t bytes_spilled_ = 0;
  int64_t runs_spilled_ = 0;
};

}  // namespace silt::exec
