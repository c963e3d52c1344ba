// Byte-level file access used by the Parquet codec: random-access reads and append-only writes.
// The Delta kernel's ObjectStore hands out these same interfaces for its objects.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"

namespace silt {

// A readable, immutable byte range. ReadAt is thread-safe (positional reads).
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  virtual int64_t size() const = 0;
  // Reads exactly n bytes at offset into out. Reading past the end is an IoError (a caller that
  // trusts lengths from file content must bounds-check against size() first and report Corruption).
  virtual Status ReadAt(int64_t offset, int64_t n, uint8_t* out) const = 0;
  // Name for error messages (path or "<memory>").
  virtual const std::string& name() const = 0;
};

// An append-only output. Not thread-safe.
class WritableFile {
 public:
  virtual ~WritableFile() = default;
  virtual Status Append(std::string_view data) = 0;
  // Flushes and closes; after Close the bytes are durable (local: fsync'd) and complete.
  virtual Status Close() = 0;
  virtual int64_t bytes_written() const = 0;
};

// In-memory file over a byte string (tests, fuzzing, small objects).
class BufferFile final : public RandomAccessFile {
 public:
  explicit BufferFile(std::string data, std::string name = "<memory>")
      : data_(std::move(data)), name_(std::move(name)) {}
  int64_t size() const override { return static_cast<int64_t>(data_.size()); }
  Status ReadAt(int64_t offset, int64_t n, uint8_t* out) const override;
  const std::string& name() const override { return name_; }
  const std::string& data() const { return data_; }

 private:
  std::string data_;
  std::string name_;
};

// Writable file that appends to a string it owns.
class BufferSink final : public WritableFile {
 public:
  Status Append(std::string_view data) override {
    data_.append(data);
    return Status::OK();
  }
  Status Close() override { return Status::OK(); }
  int64_t bytes_written() const override { return static_cast<int64_t>(data_.size()); }
  std::string& data() { return data_; }

 private:
  std::string data_;
};

// Local files. Open fails with NotFound when the file does not exist.
Result<std::shared_ptr<RandomAccessFile>> OpenLocalFile(const std::string& path);
// Creates (truncating) a local file; parent directories must exist.
Result<std::unique_ptr<WritableFile>> CreateLocalFile(const std::string& path);
// Reads a whole local file.
Result<std::string> ReadLocalFile(const std::string& path);
// Wrap an open file descriptor, taking ownership of it (closed on destruction, also on error).
// `path` names the file in error messages. Used by LocalObjectStore, which opens files relative to
// directory descriptors so that no symlink inside the store is followed.
Result<std::shared_ptr<RandomAccessFile>> AdoptLocalReadFd(int fd, std::string path);
std::unique_ptr<WritableFile> AdoptLocalWriteFd(int fd, std::string path);

}  // namespace silt
