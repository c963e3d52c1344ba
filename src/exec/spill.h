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

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "common/status.h"
#include "vector/types.h"
#include "vector/vector.h"

namespace silt::exec {

class SpillFile;

class SpillManager {
 public:
  // temp_root: the directory under which this statement's spill directory is made (empty: the
  // system temp directory, $TMPDIR or /tmp). enabled = false: CanSpill() is false and
  // operators fail with SILT_MEMORY_LIMIT_EXCEEDED as without spilling.
  explicit SpillManager(std::string temp_root, bool enabled = true);
  ~SpillManager();  // removes the spill directory and every file left in it
  SpillManager(const SpillManager&) = delete;
  SpillManager& operator=(const SpillManager&) = delete;

  bool CanSpill() const { return enabled_; }
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
  std::string buffer_;
};

// The compact binary form of one vector (all rows), appended to *out; DecodeVector reads it
// back into *v (a fresh vector of the same type) from data[*pos..size), advancing *pos.
void EncodeVector(const Vector& v, std::string* out);
Status DecodeVector(const char* data, size_t size, size_t* pos, Vector* v);

}  // namespace silt::exec
