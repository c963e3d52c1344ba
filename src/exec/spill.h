// Spill files: where operators put data that does not fit under the memory limit.
//
// A SpillManager belongs to one statement. Its directory (silt-spill-<pid>-<n> under the
// temp directory: silt.tempDirectory, DatabaseOptions::temp_directory, else the system's) is
// created on the first file and removed with everything in it when the manager is destroyed — at
// the end of the statement, whether it succeeded or failed. A spill file holds DataChunks in a
// compact binary form (each Vector's buffers as they are: validity bytes, fixed-width values,
// offsets and bytes, children), written sequentially and read back in order; the manager counts
// the bytes and files written, which EXPLAIN ANALYZE prints.
//
// Operators spill when a reservation fails with SILT_MEMORY_LIMIT_EXCEEDED and they hold data
// they can write out; the error surfaces only when even the data of one unit (a chunk, one
// partition that cannot be split further) does not fit.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/memory.h"
#include "common/status.h"
#include "vector/types.h"
#include "vector/vector.h"

namespace silt::exec {

class SpillFile;
class SpillManager;

// What a spilling operator may fill before it spills: 3/4 of what the limits leave when the
// operator starts, so the operators above and beside it keep room for their chunks. The limits:
// the statement's own (`memory`, silt.memory.limit) and the database's (spill->shared_memory(),
// DatabaseOptions::memory_limit_bytes, shared by the statements running), the tighter room of
// the two. -1 when neither has a limit (the operator spills when a reservation fails).
int64_t SpillBudget(const MemoryTracker* memory, const SpillManager* spill);

class SpillManager {
 public:
  // temp_root: the directory under which this statement's spill directory is made (empty: the
  // system temp directory, $TMPDIR or /tmp). enabled = false (silt.spill.enabled off, or no
  // memory limit at all): CanSpill() is false and operators keep their in-memory paths, failing
  // with SILT_MEMORY_LIMIT_EXCEEDED at a limit.
  explicit SpillManager(std::string temp_root, bool enabled = true);
  ~SpillManager();  // removes the spill directory and every file left in it
  SpillManager(const SpillManager&) = delete;
  SpillManager& operator=(const SpillManager&) = delete;

  bool CanSpill() const { return enabled_; }
  // The database's tracker, whose limit (when set) bounds SpillBudget beside the statement's
  // own; it must outlive the manager. Null: only the statement's limit applies.
  void set_shared_memory(const MemoryTracker* memory) { shared_memory_ = memory; }
  const MemoryTracker* shared_memory() const { return shared_memory_; }
  // A new, empty spill file for chunks of `schema` (creates the directory on first use).
  // Errors: IOError when the directory or file cannot be created.
  Result<std::unique_ptr<SpillFile>> CreateFile(const Schema& schema);

  int64_t bytes_written() const { return bytes_written_.load(std::memory_order_relaxed); }
  int64_t files_created() const { return files_created_.load(std::memory_order_relaxed); }
  // The spill directory ("" until the first file).
  std::string directory() const;

 private:
  friend class SpillFile;
  Status EnsureDirectory();
  std::string temp_root_;
  bool enabled_;
  const MemoryTracker* shared_memory_ = nullptr;
  mutable std::mutex mu_;
  std::string dir_;
  int64_t next_file_ = 0;
  std::atomic<int64_t> bytes_written_{0};
  std::atomic<int64_t> files_created_{0};
};

// One spill file: Append chunks, then FinishWriting and read them back in order with Read (as
// many passes as wanted after Rewind). The file is deleted on destruction.
class SpillFile {
 public:
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  Status Append(const DataChunk& chunk);
  // Flushes; from now on only reading.
  Status FinishWriting();
  // Next chunk into *out (false at the end).
  Result<bool> Read(DataChunk* out);
  // Back to the first chunk.
  Status Rewind();

  int64_t rows() const { return rows_; }
  int64_t bytes() const { return bytes_; }
  int64_t max_chunk_bytes() const { return max_chunk_bytes_; }  // the largest chunk written
  const std::string& path() const { return path_; }

 private:
  friend class SpillManager;
  SpillFile(SpillManager* manager, std::string path, std::FILE* f, Schema schema)
      : manager_(manager), path_(std::move(path)), file_(f), schema_(std::move(schema)) {}
  SpillManager* manager_;
  std::string path_;
  std::FILE* file_;
  Schema schema_;
  bool writing_ = true;
  int64_t rows_ = 0;
  int64_t bytes_ = 0;
  int64_t max_chunk_bytes_ = 0;
  std::string buffer_;
};

// Rows spilled by hash into 2^bits partition files (aggregation groups or join keys that do not
// fit): the partition of a row is (hash >> shift) & (2^bits - 1), so a partition that still does
// not fit can be split again with a larger shift. Rows are buffered per partition up to a chunk
// before they are written. Thread-safe (one lock; spilling is the slow path).
class PartitionedSpill {
 public:
  PartitionedSpill(SpillManager* manager, Schema schema, int bits, int shift);
  ~PartitionedSpill();
  // Appends rows sel[0..n) of chunk (all rows when sel is null), row sel[k] to the partition of
  // hashes[k].
  Status Append(const DataChunk& chunk, const uint32_t* sel, size_t n, const uint64_t* hashes);
  // Writes what is buffered; then Take hands out the partitions.
  Status Finish();
  size_t num_partitions() const { return files_.size(); }
  // Partition p's file (null when no row went there), in the order rows were appended.
  std::unique_ptr<SpillFile> Take(size_t p);
  int shift() const { return shift_; }
  int bits() const { return bits_; }
  int64_t rows() const { return rows_; }
  int64_t bytes() const { return bytes_; }

 private:
  Status Flush(size_t p);
  SpillManager* manager_;
  Schema schema_;
  int bits_;
  int shift_;
  std::mutex mu_;
  std::vector<std::unique_ptr<SpillFile>> files_;
  std::vector<DataChunk> pending_;
  std::vector<std::vector<uint32_t>> scratch_;
  int64_t rows_ = 0;
  int64_t bytes_ = 0;
};

// The compact binary form of one vector (all rows), appended to *out; DecodeVector reads it
// back into *v (a fresh vector of the same type) from data[*pos..size), advancing *pos.
void EncodeVector(const Vector& v, std::string* out);
Status DecodeVector(const char* data, size_t size, size_t* pos, Vector* v);

}  // namespace silt::exec
