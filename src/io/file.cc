#include "io/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error_classes.h"

namespace silt {

Status BufferFile::ReadAt(int64_t offset, int64_t n, uint8_t* out) const {
  if (offset < 0 || n < 0 || offset > size() || n > size() - offset)
    return Status::IoError("read of " + std::to_string(n) + " bytes at " + std::to_string(offset) +
                           " past the end of " + name_ + " (" + std::to_string(size()) + " bytes)");
  if (n) std::memcpy(out, data_.data() + offset, static_cast<size_t>(n));
  return Status::OK();
}

namespace {

Status ErrnoStatus(const std::string& what, const std::string& path, int err) {
  std::string msg = what + " " + path + ": " + strerror(err);
  if (err == ENOENT) return Status::NotFound(msg, errc::kPathNotFound);
  return Status::IoError(msg);
}

class LocalReadFile final : public RandomAccessFile {
 public:
  LocalReadFile(int fd, int64_t size, std::string path)
      : fd_(fd), size_(size), path_(std::move(path)) {}
  ~LocalReadFile() override { ::close(fd_); }
  int64_t size() const override { return size_; }
  const std::string& name() const override { return path_; }
  Status ReadAt(int64_t offset, int64_t n, uint8_t* out) const override {
    if (offset < 0 || n < 0 || offset > size_ || n > size_ - offset)
      return Status::IoError("read of " + std::to_string(n) + " bytes at " +
                             std::to_string(offset) + " past the end of " + path_ + " (" +
                             std::to_string(size_) + " bytes)");
    while (n > 0) {
      ssize_t r = ::pread(fd_, out, static_cast<size_t>(n), offset);
      if (r < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus("cannot read", path_, errno);
      }
      if (r == 0) return Status::IoError("unexpected end of file in " + path_);
      out += r;
      n -= r;
      offset += r;
    }
    return Status::OK();
  }

 private:
  int fd_;
  int64_t size_;
  std::string path_;
};

class LocalWriteFile final : public WritableFile {
 public:
  LocalWriteFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~LocalWriteFile() override {
    if (fd_ >= 0) ::close(fd_);
  }
  Status Append(std::string_view data) override {
    if (fd_ < 0) return Status::IoError("write to closed file " + path_);
    // Buffer small appends; the Parquet writer emits many small pieces.
    if (buf_.size() + data.size() > kBufSize) SILT_RETURN_NOT_OK(Flush());
    if (data.size() >= kBufSize) {
      SILT_RETURN_NOT_OK(WriteAll(data));
      StartWriteback();
      return Status::OK();
    }
    buf_.append(data);
    written_ += static_cast<int64_t>(data.size());
    return Status::OK();
  }
  Status Close() override {
    if (fd_ < 0) return Status::OK();
    SILT_RETURN_NOT_OK(Flush());
    if (::fsync(fd_) != 0) return ErrnoStatus("cannot sync", path_, errno);
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) return ErrnoStatus("cannot close", path_, errno);
    return Status::OK();
  }
  int64_t bytes_written() const override { return written_; }

 private:
  static constexpr size_t kBufSize = 1 << 20;
  // Writeback of what was written is started every this many bytes, so Close's fsync waits for
  // the tail only instead of the whole file.
  static constexpr int64_t kWritebackBytes = 8 << 20;
  Status Flush() {
    written_ -= static_cast<int64_t>(buf_.size());
    Status st = WriteAll(buf_);
    buf_.clear();  // keeps its capacity: no fresh pages to fault in for the next megabyte
    if (st.ok()) StartWriteback();
    return st;
  }
  void StartWriteback() {
    if (written_ - writeback_from_ < kWritebackBytes) return;
    // A hint: an error here shows up again at fsync.
    (void)::sync_file_range(fd_, writeback_from_, written_ - writeback_from_,
                            SYNC_FILE_RANGE_WRITE);
    writeback_from_ = written_;
  }
  Status WriteAll(std::string_view data) {
    const char* p = data.data();
    size_t n = data.size();
    while (n > 0) {
      ssize_t w = ::write(fd_, p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus("cannot write", path_, errno);
      }
      p += w;
      n -= static_cast<size_t>(w);
      written_ += w;
    }
    return Status::OK();
  }
  int fd_;
  std::string path_;
  std::string buf_;
  int64_t written_ = 0;
  int64_t writeback_from_ = 0;  // bytes before this have had their writeback started
};

}  // namespace

Result<std::shared_ptr<RandomAccessFile>> AdoptLocalReadFd(int fd, std::string path) {
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return ErrnoStatus("cannot stat", path, e);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Status::InvalidArgument(path + " is a directory");
  }
  return std::shared_ptr<RandomAccessFile>(
      std::make_shared<LocalReadFile>(fd, st.st_size, std::move(path)));
}

std::unique_ptr<WritableFile> AdoptLocalWriteFd(int fd, std::string path) {
  return std::make_unique<LocalWriteFile>(fd, std::move(path));
}

Result<std::shared_ptr<RandomAccessFile>> OpenLocalFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("cannot open", path, errno);
  return AdoptLocalReadFd(fd, path);
}

Result<std::unique_ptr<WritableFile>> CreateLocalFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("cannot create", path, errno);
  return std::unique_ptr<WritableFile>(std::make_unique<LocalWriteFile>(fd, path));
}

Result<std::string> ReadLocalFile(const std::string& path) {
  SILT_ASSIGN_OR_RETURN(auto f, OpenLocalFile(path));
  std::string out(static_cast<size_t>(f->size()), '\0');
  SILT_RETURN_NOT_OK(f->ReadAt(0, f->size(), reinterpret_cast<uint8_t*>(out.data())));
  return out;
}

}  // namespace silt
