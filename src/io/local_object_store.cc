#include "io/local_object_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <thread>

#include "common/exception_status.h"
#include "common/thread_pool.h"
#include "io/object_store_internal.h"
#include "io/path.h"

namespace silt {

using store_internal::AlreadyExistsError;
using store_internal::DirPrefix;
using store_internal::DirSegments;
using store_internal::NotFoundError;
using store_internal::SplitKey;

namespace {

Status ErrnoError(const char* what, const std::string& path, int err) {
  std::string msg = std::string(what) + " " + path + ": " + strerror(err);
  if (err == ENOENT) return Status::NotFound(msg, kErrorFileNotFound);
  return Status::IoError(msg);
}

int64_t MillisOf(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) {
      Reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  ~UniqueFd() { Reset(); }
  int get() const { return fd_; }
  int Release() { return std::exchange(fd_, -1); }
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// Opens the directory `segments` below the open directory `from` (named `path` in errors), one
// component at a time with O_NOFOLLOW, so no symlink inside the store is ever traversed. With
// `create`, missing directories are made (and their parents fsync'd so the new entries survive a
// crash). A missing directory or a component that is a plain file: NotFound; a symlink
// component: InvalidArgument. `from` stays open and the caller's; no segments: an empty fd.
Result<UniqueFd> OpenSubdir(int from, std::string path, const std::vector<std::string>& segments,
                            bool create) {
  UniqueFd fd;
  for (const std::string& seg : segments) {
    const int at = fd.get() < 0 ? from : fd.get();
    path += "/" + seg;
    bool made = false;
    if (create) {
      if (::mkdirat(at, seg.c_str(), 0755) == 0) {
        made = true;
      } else if (errno != EEXIST) {
        return ErrnoError("cannot create directory", path, errno);
      }
    }
    int next = ::openat(at, seg.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) {
      int err = errno;
      if (err == ENOTDIR || err == ELOOP) {
        struct stat st;
        if (::fstatat(at, seg.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
          return Status::InvalidArgument(path + " is a symlink; the store does not follow symlinks",
                                         kErrorInvalidObjectKey);
        if (create) return Status::IoError(path + " is not a directory");
        return Status::NotFound(path + " is not a directory", kErrorFileNotFound);
      }
      return ErrnoError("cannot open directory", path, err);
    }
    if (made) ::fsync(at);
    fd = UniqueFd(next);
  }
  return fd;
}

Result<UniqueFd> OpenRootDir(const std::string& root, bool create) {
  UniqueFd fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0 && errno == ENOENT && create) {
    std::error_code ec;
    std::filesystem::create_directories(root, ec);
    if (ec) return Status::IoError("cannot create directory " + root + ": " + ec.message());
    fd = UniqueFd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  }
  if (fd.get() < 0) return ErrnoError("cannot open directory", root, errno);
  return fd;
}

// OpenSubdir below the store's root directory (the root itself when there are no segments).
Result<UniqueFd> OpenDir(const std::string& root, const std::vector<std::string>& segments,
                         bool create) {
  SILT_ASSIGN_OR_RETURN(UniqueFd fd, OpenRootDir(root, create));
  if (segments.empty()) return fd;
  return OpenSubdir(fd.get(), root, segments, create);
}

struct DirEntry {
  std::string name;
  bool is_dir;
  int64_t size;
  int64_t mtime_ms;
};

// The regular files and directories in `dirfd` (symlinks, sockets, … are skipped), unsorted.
// need_meta (may be empty: all): called with the entry's name for regular files readdir
// reported as such; false skips their stat (size and mtime 0).
Result<std::vector<DirEntry>> ReadDir(int dirfd, const std::string& path,
                                      const std::function<bool(const char* name)>& need_meta = {}) {
  int dup_fd = ::fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
  if (dup_fd < 0) return ErrnoError("cannot list", path, errno);
  DIR* d = ::fdopendir(dup_fd);
  if (!d) {
    int err = errno;
    ::close(dup_fd);
    return ErrnoError("cannot list", path, err);
  }
  // fdopendir shares the offset with dirfd's dup; start from the beginning.
  ::rewinddir(d);
  std::vector<DirEntry> out;
  while (true) {
    errno = 0;
    struct dirent* e = ::readdir(d);
    if (!e) {
      int err = errno;
      ::closedir(d);
      if (err != 0) return ErrnoError("cannot list", path, err);
      break;
    }
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    if (need_meta && e->d_type == DT_REG && !need_meta(e->d_name)) {
      out.push_back({e->d_name, false, 0, 0});
      continue;
    }
    struct stat st;
    if (::fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // raced delete
    if (S_ISREG(st.st_mode)) {
      out.push_back({e->d_name, false, static_cast<int64_t>(st.st_size), MillisOf(st)});
    } else if (S_ISDIR(st.st_mode)) {
      out.push_back({e->d_name, true, 0, MillisOf(st)});
    }
  }
  return out;
}

// Bytewise order of keys, where a directory sorts as name + "/".
void SortForKeyOrder(std::vector<DirEntry>* entries) {
  std::sort(entries->begin(), entries->end(), [](const DirEntry& a, const DirEntry& b) {
    std::string_view an = a.name, bn = b.name;
    size_t n = std::min(an.size(), bn.size());
    int c = an.substr(0, n).compare(bn.substr(0, n));
    if (c != 0) return c < 0;
    if (an.size() == bn.size()) return false;
    // One name is a prefix of the other: compare the next character, '/' for a directory's end.
    auto next = [](const DirEntry& e, std::string_view name, size_t i) -> unsigned char {
      return i < name.size() ? static_cast<unsigned char>(name[i]) : (e.is_dir ? '/' : 0);
    };
    return next(a, an, n) < next(b, bn, n);
  });
}

Status WriteAllFd(int fd, std::string_view data, const std::string& path) {
  const char* p = data.data();
  size_t n = data.size();
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("cannot write", path, errno);
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return Status::OK();
}

// Publishes dir/tmp as dir/base without replacing an existing object: renameat2 NOREPLACE, or
// link + unlink on file systems without it. On any outcome the temp name is gone.
Status PublishNoReplace(int dirfd, const std::string& tmp, const std::string& base,
                        const std::string& path, bool* exists) {
  *exists = false;
  if (::renameat2(dirfd, tmp.c_str(), dirfd, base.c_str(), RENAME_NOREPLACE) == 0)
    return Status::OK();
  int err = errno;
  if (err == EEXIST) {
    *exists = true;
    ::unlinkat(dirfd, tmp.c_str(), 0);
    return Status::OK();
  }
  if (err != EINVAL && err != ENOSYS && err != ENOTSUP) {
    ::unlinkat(dirfd, tmp.c_str(), 0);
    return ErrnoError("cannot publish", path, err);
  }
  int rc = ::linkat(dirfd, tmp.c_str(), dirfd, base.c_str(), 0);
  err = errno;
  ::unlinkat(dirfd, tmp.c_str(), 0);
  if (rc == 0) return Status::OK();
  if (err == EEXIST) {
    *exists = true;
    return Status::OK();
  }
  return ErrnoError("cannot publish", path, err);
}

// Streams into a hidden temp file; Close fsyncs it and renames it into place.
class LocalStagedWriter final : public WritableFile {
 public:
  LocalStagedWriter(UniqueFd dirfd, std::unique_ptr<WritableFile> inner, std::string tmp,
                    std::string base, std::string path)
      : dirfd_(std::move(dirfd)),
        inner_(std::move(inner)),
        tmp_(std::move(tmp)),
        base_(std::move(base)),
        path_(std::move(path)) {}
  ~LocalStagedWriter() override { Abandon(); }

  Status Append(std::string_view data) override {
    if (done_) return Status::IoError("write to closed object " + path_);
    return inner_->Append(data);
  }
  Status Close() override {
    if (done_) return closed_ok_ ? Status::OK() : Status::IoError("object " + path_ + " failed");
    Status st = inner_->Close();
    if (st.ok() && ::renameat(dirfd_.get(), tmp_.c_str(), dirfd_.get(), base_.c_str()) != 0)
      st = ErrnoError("cannot publish", path_, errno);
    if (!st.ok()) {
      Abandon();
      return st;
    }
    done_ = closed_ok_ = true;
    if (::fsync(dirfd_.get()) != 0) return ErrnoError("cannot sync directory of", path_, errno);
    return Status::OK();
  }
  int64_t bytes_written() const override { return inner_->bytes_written(); }

 private:
  void Abandon() {
    if (done_) return;
    done_ = true;
    inner_.reset();
    ::unlinkat(dirfd_.get(), tmp_.c_str(), 0);
  }
  UniqueFd dirfd_;
  std::unique_ptr<WritableFile> inner_;
  std::string tmp_, base_, path_;
  bool done_ = false;
  bool closed_ok_ = false;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// LocalObjectStore

LocalObjectStore::LocalObjectStore(std::string root_path) : root_path_(std::move(root_path)) {
  while (root_path_.size() > 1 && root_path_.back() == '/') root_path_.pop_back();
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(root_path_, ec);
  std::string abs_str = ec ? root_path_ : abs.lexically_normal().string();
  while (abs_str.size() > 1 && abs_str.back() == '/') abs_str.pop_back();
  root_uri_ = LocalPathToFileUri(abs_str);
  if (root_uri_.back() != '/') root_uri_.push_back('/');
  std::random_device rd;
  rng_.seed((static_cast<uint64_t>(rd()) << 32) ^ rd() ^ static_cast<uint64_t>(::getpid()) ^
            static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
}

std::string LocalObjectStore::TempName(std::string_view base) {
  uint64_t r;
  {
    std::lock_guard<std::mutex> lock(rng_mu_);
    r = rng_();
  }
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(r));
  // Keep the temp name within NAME_MAX (255) even for long object names.
  return "." + std::string(base.substr(0, 200)) + "." + hex + ".tmp";
}

Result<std::vector<ObjectMeta>> LocalObjectStore::ListFrom(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key, /*allow_dir=*/true));
  auto [dir, base] = SplitKey(key);
  auto dirfd = OpenDir(root_path_, DirSegments(dir), /*create=*/false);
  if (!dirfd.ok()) {
    if (dirfd.status().IsNotFound()) return std::vector<ObjectMeta>{};
    return dirfd.status();
  }
  SILT_ASSIGN_OR_RETURN(auto entries, ReadDir(dirfd->get(), root_path_ + "/" + dir));
  std::vector<ObjectMeta> out;
  for (auto& e : entries) {
    if (e.is_dir || e.name < base) continue;
    out.push_back({dir + e.name, e.size, e.mtime_ms, false});
  }
  std::sort(out.begin(), out.end(),
            [](const ObjectMeta& a, const ObjectMeta& b) { return a.key < b.key; });
  return out;
}

namespace {

// One directory's entries as the listing reports them, in key order, and its subdirectories.
Status ReadListing(int dirfd, const std::string& root, const std::string& prefix,
                   const std::function<bool(std::string_view key)>* need_meta,
                   std::vector<ObjectMeta>* batch, std::vector<std::string>* subdirs) {
  std::function<bool(const char*)> need;
  std::string scratch;
  if (need_meta != nullptr) {
    need = [&](const char* name) {
      scratch.assign(prefix).append(name);
      return (*need_meta)(scratch);
    };
  }
  SILT_ASSIGN_OR_RETURN(auto entries, ReadDir(dirfd, root + "/" + prefix, need));
  SortForKeyOrder(&entries);
  batch->clear();
  batch->reserve(entries.size());
  for (auto& e : entries) {
    batch->push_back(ObjectMeta{prefix + e.name, e.is_dir ? 0 : e.size, e.mtime_ms, e.is_dir});
    if (e.is_dir) subdirs->push_back(std::move(e.name));
  }
  return Status::OK();
}

// The sequential walk: a directory's entries in key order, each directory's contents right after
// its own entry.
Status WalkLocal(int dirfd, const std::string& root, const std::string& prefix,
                 const ObjectVisitor& visit,
                 const std::function<bool(std::string_view key)>* need_meta = nullptr) {
  std::vector<ObjectMeta> batch;
  std::vector<std::string> subdirs;
  SILT_RETURN_NOT_OK(ReadListing(dirfd, root, prefix, need_meta, &batch, &subdirs));
  size_t next_subdir = 0;  // subdirs are in the batch's order
  for (const ObjectMeta& m : batch) {
    SILT_RETURN_NOT_OK(visit(m));
    if (!m.is_dir) continue;
    const std::string& name = subdirs[next_subdir++];
    UniqueFd sub(::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (sub.get() < 0) {
      if (errno == ENOENT || errno == ENOTDIR) continue;  // removed or replaced meanwhile
      return ErrnoError("cannot open directory", root + "/" + m.key, errno);
    }
    SILT_RETURN_NOT_OK(WalkLocal(sub.get(), root, m.key + "/", visit, need_meta));
  }
  return Status::OK();
}

// ListRecursiveSomeMeta on a pool: directories are the work items. Readers (the pool's workers
// and the caller, which reads whenever it has nothing to deliver, so the walk progresses even
// when every pool thread is busy elsewhere) take a directory from a bounded queue, read it, hand
// its entries as one batch to a bounded queue for the caller, and queue its subdirectories; when
// the directory queue is full a reader walks the subdirectory itself, depth first. Only the
// caller calls `visit`, so the consumer needs no locking. Memory: kMaxPending directory names
// and kMaxBatches directories' entries besides the ones being read.
class ParallelLocalWalk : public std::enable_shared_from_this<ParallelLocalWalk> {
 public:
  static constexpr size_t kMaxPending = 256;
  static constexpr size_t kMaxBatches = 8;

  ParallelLocalWalk(std::string root, const std::function<bool(std::string_view key)>* need_meta)
      : root_(std::move(root)), need_meta_(need_meta) {}

  Status Run(UniqueFd start, const std::string& prefix, const ObjectVisitor& visit,
             ThreadPool* pool) {
    pending_.push_back(Pending{std::make_shared<UniqueFd>(std::move(start)), "", prefix});
    // Workers hold the walk by shared_ptr: a task the pool starts after Run returned finds
    // `finished_` and leaves without touching the caller's frame (need_meta, visit).
    for (size_t i = 0; i < pool->num_threads(); ++i) {
      pool->Submit([self = shared_from_this()] { self->WorkerLoop(); });
    }
    // An exception (from `visit`, an allocation) must not skip stopping the workers.
    Status st = CatchAsStatus([&] { return CallerLoop(visit); });
    std::unique_lock<std::mutex> lock(mu_);
    finished_ = true;
    stop_ = true;
    cv_.notify_all();
    cv_.wait(lock, [&] { return active_workers_ == 0; });
    if (st.ok()) st = first_error_;
    return st;
  }

 private:
  struct Pending {
    std::shared_ptr<UniqueFd> parent;  // the start directory itself when `name` is empty
    std::string name;
    std::string prefix;  // key prefix of the directory's entries ("a/b/")
  };

  Status CallerLoop(const ObjectVisitor& visit) {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      if (!batches_.empty()) {
        std::vector<ObjectMeta> batch = std::move(batches_.front());
        batches_.pop_front();
        cv_.notify_all();  // a reader may be waiting for room
        lock.unlock();
        Status st = VisitAll(batch, visit);
        lock.lock();
        if (!st.ok()) return st;
        continue;
      }
      if (!pending_.empty()) {
        Pending p = TakePending();
        lock.unlock();
        Status st = CatchAsStatus([&] { return ReadTree(p, &visit); });
        lock.lock();
        FinishRead(st);
        continue;
      }
      if (reading_ == 0) return Status::OK();  // nothing queued, read or delivered: done
      cv_.wait(lock);
    }
    return Status::OK();
  }

  void WorkerLoop() {
    std::unique_lock<std::mutex> lock(mu_);
    if (finished_) return;
    ++active_workers_;
    while (!stop_) {
      if (pending_.empty()) {
        if (reading_ == 0) break;  // no reader can queue more
        cv_.wait(lock);
        continue;
      }
      Pending p = TakePending();
      lock.unlock();
      // An exception must not leave the worker (it would skip the bookkeeping below and hang
      // the caller, or terminate the process).
      Status st = CatchAsStatus([&] { return ReadTree(p, nullptr); });
      lock.lock();
      FinishRead(st);
    }
    --active_workers_;
    cv_.notify_all();
  }

  Pending TakePending() {
    Pending p = std::move(pending_.front());
    pending_.pop_front();
    ++reading_;
    return p;
  }
  void FinishRead(const Status& st) {
    --reading_;
    if (!st.ok() && first_error_.ok()) {
      first_error_ = st;
      stop_ = true;
    }
    cv_.notify_all();
  }

  static Status VisitAll(const std::vector<ObjectMeta>& batch, const ObjectVisitor& visit) {
    for (const ObjectMeta& m : batch) SILT_RETURN_NOT_OK(visit(m));
    return Status::OK();
  }

  // Reads directory `p` and, depth first, the subdirectories that do not fit in the queue.
  // `visit` is set only in the caller's thread, which delivers its own batches directly.
  Status ReadTree(const Pending& p, const ObjectVisitor* visit) {
    auto dir = std::make_shared<UniqueFd>();
    if (p.name.empty()) {
      dir = p.parent;
    } else {
      *dir = UniqueFd(::openat(p.parent->get(), p.name.c_str(),
                               O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (dir->get() < 0) {
        if (errno == ENOENT || errno == ENOTDIR) return Status::OK();  // removed or replaced
        return ErrnoError("cannot open directory",
                          root_ + "/" + p.prefix.substr(0, p.prefix.size() - 1), errno);
      }
    }
    std::vector<ObjectMeta> batch;
    std::vector<std::string> subdirs;
    SILT_RETURN_NOT_OK(ReadListing(dir->get(), root_, p.prefix, need_meta_, &batch, &subdirs));
    if (visit != nullptr) {
      SILT_RETURN_NOT_OK(VisitAll(batch, *visit));
    } else if (!batch.empty()) {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || batches_.size() < kMaxBatches; });
      if (stop_) return Status::OK();
      batches_.push_back(std::move(batch));
      cv_.notify_all();
    }
    for (std::string& name : subdirs) {
      Pending sub{dir, std::move(name), ""};
      sub.prefix = p.prefix + sub.name + "/";
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (stop_) return Status::OK();
        if (pending_.size() < kMaxPending) {
          pending_.push_back(std::move(sub));
          cv_.notify_all();
          continue;
        }
      }
      SILT_RETURN_NOT_OK(ReadTree(sub, visit));
    }
    return Status::OK();
  }

  const std::string root_;
  const std::function<bool(std::string_view key)>* const need_meta_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Pending> pending_;
  std::deque<std::vector<ObjectMeta>> batches_;
  int reading_ = 0;         // directories taken from pending_ and not finished
  int active_workers_ = 0;  // pool tasks inside WorkerLoop
  bool stop_ = false;       // an error, or the caller is done
  bool finished_ = false;   // Run returned (late tasks must not start)
  Status first_error_;
};

Result<int64_t> RemoveEmptyDirsBelow(int dirfd, const std::string& path) {
  SILT_ASSIGN_OR_RETURN(auto entries, ReadDir(dirfd, path));
  int64_t removed = 0;
  for (auto& e : entries) {
    if (!e.is_dir) continue;
    std::string sub_path = path + "/" + e.name;
    UniqueFd sub(::openat(dirfd, e.name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (sub.get() < 0) {
      if (errno == ENOENT || errno == ENOTDIR) continue;
      return ErrnoError("cannot open directory", sub_path, errno);
    }
    SILT_ASSIGN_OR_RETURN(int64_t n, RemoveEmptyDirsBelow(sub.get(), sub_path));
    removed += n;
    sub.Reset();
    // rmdir itself decides emptiness, so a file created concurrently keeps its directory.
    if (::unlinkat(dirfd, e.name.c_str(), AT_REMOVEDIR) == 0) {
      ++removed;
    } else if (errno != ENOTEMPTY && errno != EEXIST && errno != ENOENT) {
      return ErrnoError("cannot remove directory", sub_path, errno);
    }
  }
  return removed;
}

}  // namespace

Status LocalObjectStore::ListRecursive(const std::string& dir, const ObjectVisitor& visit) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
  auto dirfd = OpenDir(root_path_, DirSegments(dir), /*create=*/false);
  if (!dirfd.ok()) return dirfd.status().IsNotFound() ? Status::OK() : dirfd.status();
  return WalkLocal(dirfd->get(), root_path_, DirPrefix(dir), visit);
}

Status LocalObjectStore::ListRecursiveSomeMeta(
    const std::string& dir, const ObjectVisitor& visit,
    const std::function<bool(std::string_view key)>& need_meta, ThreadPool* pool) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
  auto dirfd = OpenDir(root_path_, DirSegments(dir), /*create=*/false);
  if (!dirfd.ok()) return dirfd.status().IsNotFound() ? Status::OK() : dirfd.status();
  if (pool == nullptr || pool->num_threads() == 0) {
    return WalkLocal(dirfd->get(), root_path_, DirPrefix(dir), visit, &need_meta);
  }
  auto walk = std::make_shared<ParallelLocalWalk>(root_path_, &need_meta);
  return walk->Run(std::move(dirfd).value(), DirPrefix(dir), visit, pool);
}

Result<ObjectMeta> LocalObjectStore::Head(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  auto [dir, base] = SplitKey(key);
  auto dirfd = OpenDir(root_path_, DirSegments(dir), /*create=*/false);
  if (!dirfd.ok())
    return dirfd.status().IsNotFound() ? NotFoundError(root_uri_, key) : dirfd.status();
  struct stat st;
  if (::fstatat(dirfd->get(), base.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return NotFoundError(root_uri_, key);
    return ErrnoError("cannot stat", root_path_ + "/" + key, errno);
  }
  if (S_ISLNK(st.st_mode))
    return Status::InvalidArgument(root_path_ + "/" + key + " is a symlink; not followed",
                                   kErrorInvalidObjectKey);
  if (!S_ISREG(st.st_mode)) return NotFoundError(root_uri_, key);
  return ObjectMeta{key, static_cast<int64_t>(st.st_size), MillisOf(st), false};
}

Result<std::shared_ptr<RandomAccessFile>> LocalObjectStore::OpenRead(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  auto [dir, base] = SplitKey(key);
  auto dirfd = OpenDir(root_path_, DirSegments(dir), /*create=*/false);
  if (!dirfd.ok())
    return dirfd.status().IsNotFound() ? NotFoundError(root_uri_, key) : dirfd.status();
  std::string path = root_path_ + "/" + key;
  int fd = ::openat(dirfd->get(), base.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return NotFoundError(root_uri_, key);
    if (errno == ELOOP)
      return Status::InvalidArgument(path + " is a symlink; not followed", kErrorInvalidObjectKey);
    return ErrnoError("cannot open", path, errno);
  }
  struct stat st;
  if (::fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
    ::close(fd);
    return NotFoundError(root_uri_, key);
  }
  return AdoptLocalReadFd(fd, std::move(path));
}

Result<std::string> LocalObjectStore::Get(const std::string& key) {
  SILT_ASSIGN_OR_RETURN(auto file, OpenRead(key));
  std::string out(static_cast<size_t>(file->size()), '\0');
  SILT_RETURN_NOT_OK(file->ReadAt(0, file->size(), reinterpret_cast<uint8_t*>(out.data())));
  return out;
}

Status LocalObjectStore::WriteObject(const std::string& key, std::string_view data,
                                     PublishMode mode, bool durable,
                                     const std::function<Status()>* before_publish) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  auto [dir, base] = SplitKey(key);
  std::string path = root_path_ + "/" + key;
  // A concurrent DeleteEmptyDirs may remove the directory between OpenDir and creating the temp
  // file (ENOENT); walking again recreates it.
  for (int attempt = 0;; ++attempt) {
    SILT_ASSIGN_OR_RETURN(UniqueFd dirfd, OpenDir(root_path_, DirSegments(dir), /*create=*/true));
    if (mode == PublishMode::kIfAbsent) {
      // Fast path for losers of a commit race; the publish below is what guarantees exclusivity.
      struct stat st;
      if (::fstatat(dirfd.get(), base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
        return AlreadyExistsError(root_uri_, key);
    }
    std::string tmp = TempName(base);
    UniqueFd fd(::openat(dirfd.get(), tmp.c_str(),
                         O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644));
    if (fd.get() < 0) {
      if ((errno == ENOENT || errno == EEXIST) && attempt < 3) continue;
      return ErrnoError("cannot create temp file for", path, errno);
    }
    Status st = WriteAllFd(fd.get(), data, path);
    if (st.ok() && durable && ::fsync(fd.get()) != 0) st = ErrnoError("cannot sync", path, errno);
    if (st.ok() && ::close(fd.Release()) != 0) st = ErrnoError("cannot close", path, errno);
    if (st.ok() && before_publish) {
      st = (*before_publish)();
      before_publish = nullptr;  // once, even if the write is retried below
    }
    if (!st.ok()) {
      ::unlinkat(dirfd.get(), tmp.c_str(), 0);
      return st;
    }
    if (mode == PublishMode::kOverwrite) {
      if (::renameat(dirfd.get(), tmp.c_str(), dirfd.get(), base.c_str()) != 0) {
        int err = errno;
        ::unlinkat(dirfd.get(), tmp.c_str(), 0);
        return ErrnoError("cannot publish", path, err);
      }
    } else {
      bool exists = false;
      SILT_RETURN_NOT_OK(PublishNoReplace(dirfd.get(), tmp, base, path, &exists));
      if (exists) return AlreadyExistsError(root_uri_, key);
    }
    if (durable && ::fsync(dirfd.get()) != 0)
      return ErrnoError("cannot sync directory of", path, errno);
    return Status::OK();
  }
}

Status LocalObjectStore::Put(const std::string& key, std::string_view data) {
  return WriteObject(key, data, PublishMode::kOverwrite);
}

Status LocalObjectStore::PutHint(const std::string& key, std::string_view data) {
  return WriteObject(key, data, PublishMode::kOverwrite, /*durable=*/false);
}

Status LocalObjectStore::PutIfAbsent(const std::string& key, std::string_view data) {
  return WriteObject(key, data, PublishMode::kIfAbsent);
}

Status LocalObjectStore::PutIfAbsentAfter(const std::string& key, std::string_view data,
                                          const std::function<Status()>& before_publish) {
  return WriteObject(key, data, PublishMode::kIfAbsent, /*durable=*/true, &before_publish);
}

Result<std::unique_ptr<WritableFile>> LocalObjectStore::OpenWrite(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  auto [dir, base] = SplitKey(key);
  std::string path = root_path_ + "/" + key;
  for (int attempt = 0;; ++attempt) {
    SILT_ASSIGN_OR_RETURN(UniqueFd dirfd, OpenDir(root_path_, DirSegments(dir), /*create=*/true));
    std::string tmp = TempName(base);
    int fd = ::openat(dirfd.get(), tmp.c_str(),
                      O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
      if ((errno == ENOENT || errno == EEXIST) && attempt < 3) continue;
      return ErrnoError("cannot create temp file for", path, errno);
    }
    auto inner = AdoptLocalWriteFd(fd, path);
    return std::unique_ptr<WritableFile>(std::make_unique<LocalStagedWriter>(
        std::move(dirfd), std::move(inner), std::move(tmp), std::move(base), std::move(path)));
  }
}

namespace {
// Delete's outcome for object `key` named `base` in its open directory `dirfd`.
Status UnlinkObject(int dirfd, const std::string& base, const std::string& root,
                    std::string_view key) {
  if (::unlinkat(dirfd, base.c_str(), 0) == 0) return Status::OK();
  // A directory is not an object, so there is nothing to delete.
  if (errno == ENOENT || errno == EISDIR) return Status::OK();
  return ErrnoError("cannot delete", root + "/" + std::string(key), errno);
}
}  // namespace

Status LocalObjectStore::Delete(const std::string& key) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  auto [dir, base] = SplitKey(key);
  auto dirfd = OpenDir(root_path_, DirSegments(dir), /*create=*/false);
  if (!dirfd.ok()) return dirfd.status().IsNotFound() ? Status::OK() : dirfd.status();
  return UnlinkObject(dirfd->get(), base, root_path_, key);
}

void LocalObjectStore::DeleteKeys(std::span<const std::string_view> keys,
                                  std::span<Status> statuses) {
  // Consecutive keys of one directory share one open of it (the directory walk with O_NOFOLLOW
  // costs more syscalls than the unlink itself).
  // The root is opened once per call too: keys spread over many directories (one file each).
  std::string open_dir, base;
  std::optional<Result<UniqueFd>> root;
  Result<UniqueFd> dirfd = Status::NotFound("no directory open");
  bool have_dir = false;
  for (size_t i = 0; i < keys.size(); ++i) {
    std::string_view key = keys[i];
    statuses[i] = ValidateObjectKey(key);
    if (!statuses[i].ok()) continue;
    size_t slash = key.rfind('/');
    std::string_view dir =
        slash == std::string_view::npos ? std::string_view() : key.substr(0, slash + 1);
    if (!root) root = OpenRootDir(root_path_, /*create=*/false);
    if (!root->ok()) {
      statuses[i] = root->status().IsNotFound() ? Status::OK() : root->status();
      continue;
    }
    if (!have_dir || dir != open_dir) {
      open_dir.assign(dir);
      have_dir = true;
      dirfd = OpenSubdir((*root)->get(), root_path_, DirSegments(dir), /*create=*/false);
    }
    if (!dirfd.ok()) {
      statuses[i] = dirfd.status().IsNotFound() ? Status::OK() : dirfd.status();
      continue;
    }
    const int at = dir.empty() ? (*root)->get() : dirfd->get();
    base.assign(slash == std::string_view::npos ? key : key.substr(slash + 1));
    statuses[i] = UnlinkObject(at, base, root_path_, key);
  }
}

Result<int64_t> LocalObjectStore::DeleteEmptyDirs(const std::string& dir) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
  auto dirfd = OpenDir(root_path_, DirSegments(dir), /*create=*/false);
  if (!dirfd.ok()) {
    if (dirfd.status().IsNotFound()) return int64_t{0};
    return dirfd.status();
  }
  std::string path = root_path_;
  if (!dir.empty())
    path += "/" + std::string(dir.back() == '/' ? dir.substr(0, dir.size() - 1) : dir);
  return RemoveEmptyDirsBelow(dirfd->get(), path);
}

Status LocalObjectStore::DeleteDir(const std::string& dir) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
  std::string key = dir.ends_with('/') ? dir.substr(0, dir.size() - 1) : dir;
  if (key.empty())
    return Status::InvalidArgument("DeleteDir needs a directory below the root",
                                   kErrorInvalidObjectKey);
  auto [parent, base] = SplitKey(key);
  auto dirfd = OpenDir(root_path_, DirSegments(parent), /*create=*/false);
  if (!dirfd.ok()) return dirfd.status().IsNotFound() ? Status::OK() : dirfd.status();
  // rmdir decides emptiness atomically, so an entry created concurrently keeps the directory.
  if (::unlinkat(dirfd->get(), base.c_str(), AT_REMOVEDIR) == 0 || errno == ENOENT)
    return Status::OK();
  if (errno == ENOTEMPTY || errno == EEXIST)
    return Status::IoError("directory " + root_path_ + "/" + key + " is not empty",
                           kErrorDirectoryNotEmpty);
  return ErrnoError("cannot remove directory", root_path_ + "/" + key, errno);
}

Result<std::vector<std::string>> LocalObjectStore::ListDirs(const std::string& dir) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
  auto dirfd = OpenDir(root_path_, DirSegments(dir), /*create=*/false);
  if (!dirfd.ok()) {
    if (dirfd.status().IsNotFound()) return std::vector<std::string>{};
    return dirfd.status();
  }
  std::string path = root_path_ + "/" + DirPrefix(dir);
  SILT_ASSIGN_OR_RETURN(std::vector<DirEntry> entries,
                        ReadDir(dirfd->get(), path, [](const char*) { return false; }));
  std::vector<std::string> out;
  for (DirEntry& e : entries) {
    if (e.is_dir) out.push_back(std::move(e.name));
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<bool> LocalObjectStore::DirExists(const std::string& dir) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
  std::string key = dir.ends_with('/') ? dir.substr(0, dir.size() - 1) : dir;
  if (key.empty()) {
    struct stat st;
    if (::stat(root_path_.c_str(), &st) == 0) return S_ISDIR(st.st_mode);
    if (errno == ENOENT || errno == ENOTDIR) return false;
    return ErrnoError("cannot stat", root_path_, errno);
  }
  auto [parent, base] = SplitKey(key);
  auto dirfd = OpenDir(root_path_, DirSegments(parent), /*create=*/false);
  if (!dirfd.ok()) {
    if (dirfd.status().IsNotFound()) return false;
    return dirfd.status();
  }
  struct stat st;
  if (::fstatat(dirfd->get(), base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
    return S_ISDIR(st.st_mode);
  if (errno == ENOENT || errno == ENOTDIR) return false;
  return ErrnoError("cannot stat", root_path_ + "/" + key, errno);
}

Status LocalObjectStore::RenameDir(const std::string& from, const std::string& to) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(from, /*allow_dir=*/true));
  SILT_RETURN_NOT_OK(ValidateObjectKey(to, /*allow_dir=*/true));
  std::string from_key = from.ends_with('/') ? from.substr(0, from.size() - 1) : from;
  std::string to_key = to.ends_with('/') ? to.substr(0, to.size() - 1) : to;
  if (from_key.empty() || to_key.empty() || to_key.starts_with(from_key + "/") ||
      from_key.starts_with(to_key + "/") || from_key == to_key) {
    return Status::InvalidArgument(
        "cannot move directory '" + from + "' to '" + to + "' in " + root_uri_,
        kErrorInvalidObjectKey);
  }
  auto [from_parent, from_base] = SplitKey(from_key);
  auto [to_parent, to_base] = SplitKey(to_key);
  SILT_ASSIGN_OR_RETURN(UniqueFd from_fd,
                        OpenDir(root_path_, DirSegments(from_parent), /*create=*/false));
  SILT_ASSIGN_OR_RETURN(UniqueFd to_fd,
                        OpenDir(root_path_, DirSegments(to_parent), /*create=*/true));
  // rename(2) replaces an empty target directory and refuses a non-empty one.
  if (::renameat(from_fd.get(), from_base.c_str(), to_fd.get(), to_base.c_str()) != 0) {
    int err = errno;
    std::string what = root_path_ + "/" + from_key + " to " + root_path_ + "/" + to_key;
    if (err == ENOTEMPTY || err == EEXIST)
      return Status::IoError("cannot move " + what + ": the target already exists",
                             kErrorFileAlreadyExists);
    return ErrnoError("cannot move", what, err);
  }
  if (::fsync(to_fd.get()) != 0)
    return ErrnoError("cannot sync directory", root_path_ + "/" + to_parent, errno);
  return Status::OK();
}

}  // namespace silt
