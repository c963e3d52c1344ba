#include "exec/spill.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <system_error>

namespace silt::exec {

namespace {

// Rows a partition buffers before they are written (a chunk's worth).
constexpr size_t kSpillChunkRows = 2048;

template <typename T>
void Put(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

template <typename T>
bool Get(const char* data, size_t size, size_t* pos, T* v) {
  if (size - *pos < sizeof(T)) return false;
  std::memcpy(v, data + *pos, sizeof(T));
  *pos += sizeof(T);
  return true;
}

Status Truncated() { return Status::Corruption("spill file truncated or corrupt"); }

std::string ErrnoText() { return std::strerror(errno); }

}  // namespace

// Layout: u64 rows, u8 has_validity [rows bytes], then by type: nothing (NULL), (rows+1) u32
// offsets + u64 byte count + bytes (string/binary), (rows+1) u32 offsets + each child (list/map),
// each child (struct), rows × fixed width (the rest).
void EncodeVector(const Vector& v, std::string* out) {
  const uint64_t n = v.size();
  Put<uint64_t>(out, n);
  const uint8_t* valid = v.validity();
  Put<uint8_t>(out, valid ? 1 : 0);
  if (valid) out->append(reinterpret_cast<const char*>(valid), n);
  switch (v.id()) {
    case TypeId::kNull:
      break;
    case TypeId::kString:
    case TypeId::kBinary: {
      const uint32_t base = v.offsets()[0];
      const uint32_t end = v.offsets()[n];
      for (uint64_t i = 0; i <= n; ++i) Put<uint32_t>(out, v.offsets()[i] - base);
      Put<uint64_t>(out, end - base);
      out->append(v.bytes().data() + base, end - base);
      break;
    }
    case TypeId::kList:
    case TypeId::kMap:
      out->append(reinterpret_cast<const char*>(v.offsets()), (n + 1) * sizeof(uint32_t));
      for (size_t c = 0; c < v.num_children(); ++c) EncodeVector(v.child(c), out);
      break;
    case TypeId::kStruct:
      for (size_t c = 0; c < v.num_children(); ++c) EncodeVector(v.child(c), out);
      break;
    default:
      out->append(reinterpret_cast<const char*>(v.data<uint8_t>()),
                  n * static_cast<size_t>(v.type()->fixed_width()));
      break;
  }
}

Status DecodeVector(const char* data, size_t size, size_t* pos, Vector* v) {
  uint64_t n = 0;
  uint8_t has_validity = 0;
  if (!Get(data, size, pos, &n) || !Get(data, size, pos, &has_validity)) return Truncated();
  const char* validity = nullptr;
  if (has_validity) {
    if (size - *pos < n) return Truncated();
    validity = data + *pos;
    *pos += n;
  }
  auto read_offsets = [&]() -> Status {
    const size_t bytes = (n + 1) * sizeof(uint32_t);
    if (size - *pos < bytes) return Truncated();
    std::vector<uint32_t>& off = v->offsets_buffer();
    off.resize(n + 1);
    std::memcpy(off.data(), data + *pos, bytes);
    *pos += bytes;
    for (uint64_t i = 0; i < n; ++i) {
      if (off[i] > off[i + 1]) return Truncated();
    }
    return Status::OK();
  };
  switch (v->id()) {
    case TypeId::kNull:
      break;
    case TypeId::kString:
    case TypeId::kBinary: {
      SILT_RETURN_NOT_OK(read_offsets());
      uint64_t len = 0;
      if (!Get(data, size, pos, &len) || size - *pos < len || v->offsets()[n] != len ||
          v->offsets()[0] != 0) {
        return Truncated();
      }
      v->bytes().assign(data + *pos, len);
      *pos += len;
      break;
    }
    case TypeId::kList:
    case TypeId::kMap:
      SILT_RETURN_NOT_OK(read_offsets());
      for (size_t c = 0; c < v->num_children(); ++c) {
        SILT_RETURN_NOT_OK(DecodeVector(data, size, pos, &v->child(c)));
        if (v->child(c).size() < v->offsets()[n]) return Truncated();
      }
      break;
    case TypeId::kStruct:
      for (size_t c = 0; c < v->num_children(); ++c) {
        SILT_RETURN_NOT_OK(DecodeVector(data, size, pos, &v->child(c)));
        if (v->child(c).size() != n) return Truncated();
      }
      break;
    default: {
      const size_t bytes = n * static_cast<size_t>(v->type()->fixed_width());
      if (size - *pos < bytes) return Truncated();
      v->ResizeUninitialized(n);
      if (bytes) std::memcpy(v->data<uint8_t>(), data + *pos, bytes);
      *pos += bytes;
      break;
    }
  }
  v->SetSizeUnchecked(n);
  if (validity) {
    std::vector<uint8_t>& vb = v->validity_buffer();
    vb.assign(reinterpret_cast<const uint8_t*>(validity),
              reinterpret_cast<const uint8_t*>(validity) + n);
  }
  return Status::OK();
}

// ---------------------------------------------------------------- SpillManager

int64_t SpillBudget(const MemoryTracker* memory, const SpillManager* spill) {
  bool limited = false;
  int64_t room = std::numeric_limits<int64_t>::max();
  for (const MemoryTracker* t : {memory, spill ? spill->shared_memory() : nullptr}) {
    if (!t || t->limit() < 0) continue;
    limited = true;
    room = std::min(room, t->limit() - t->used());
  }
  if (!limited) return -1;
  return std::max<int64_t>(room, 0) * 3 / 4;
}

SpillManager::SpillManager(std::string temp_root, bool enabled)
    : temp_root_(std::move(temp_root)), enabled_(enabled) {}

SpillManager::~SpillManager() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);  // best effort: nothing to report to at this point
  }
}

std::string SpillManager::directory() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dir_;
}

Status SpillManager::EnsureDirectory() {
  if (!dir_.empty()) return Status::OK();
  std::error_code ec;
  std::filesystem::path root = temp_root_;
  if (root.empty()) {
    root = std::filesystem::temp_directory_path(ec);
    if (ec) return Status::IoError("no temp directory for spill files: " + ec.message());
  }
  std::filesystem::create_directories(root, ec);
  if (ec) {
    return Status::IoError("cannot create the temp directory " + root.string() +
                           " for spill files: " + ec.message());
  }
  static std::atomic<uint64_t> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::filesystem::path p =
        root / ("silt-spill-" + std::to_string(::getpid()) + "-" +
                std::to_string(counter.fetch_add(1, std::memory_order_relaxed)));
    if (std::filesystem::create_directory(p, ec)) {
      dir_ = p.string();
      return Status::OK();
    }
    if (ec) {
      return Status::IoError("cannot create the spill directory " + p.string() + ": " +
                             ec.message());
    }
    // It existed already (another process with the same pid in a container): try the next one.
  }
  return Status::IoError("cannot find a free spill directory name under " + root.string());
}

Result<std::unique_ptr<SpillFile>> SpillManager::CreateFile(const Schema& schema) {
  std::string path;
  {
    std::lock_guard<std::mutex> lock(mu_);
    SILT_RETURN_NOT_OK(EnsureDirectory());
    path = dir_ + "/" + std::to_string(next_file_++) + ".spill";
  }
  std::FILE* f = std::fopen(path.c_str(), "w+b");
  if (!f) return Status::IoError("cannot create the spill file " + path + ": " + ErrnoText());
  files_created_.fetch_add(1, std::memory_order_relaxed);
  return std::unique_ptr<SpillFile>(new SpillFile(this, std::move(path), f, schema));
}

// ---------------------------------------------------------------- SpillFile

SpillFile::~SpillFile() {
  if (file_) std::fclose(file_);
  std::remove(path_.c_str());
}

Status SpillFile::Append(const DataChunk& chunk) {
  if (!writing_) return Status::Internal("spill file appended to after FinishWriting");
  buffer_.clear();
  Put<uint64_t>(&buffer_, 0);  // payload length, filled below
  Put<uint64_t>(&buffer_, chunk.size());
  Put<uint32_t>(&buffer_, static_cast<uint32_t>(chunk.columns.size()));
  for (const Vector& v : chunk.columns) EncodeVector(v, &buffer_);
  const uint64_t payload = buffer_.size() - sizeof(uint64_t);
  std::memcpy(buffer_.data(), &payload, sizeof(payload));
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
    return Status::IoError("cannot write the spill file " + path_ + ": " + ErrnoText());
  }
  rows_ += static_cast<int64_t>(chunk.size());
  bytes_ += static_cast<int64_t>(buffer_.size());
  max_chunk_bytes_ = std::max(max_chunk_bytes_, static_cast<int64_t>(buffer_.size()));
  manager_->bytes_written_.fetch_add(static_cast<int64_t>(buffer_.size()),
                                     std::memory_order_relaxed);
  if (buffer_.capacity() > (size_t(1) << 20)) std::string().swap(buffer_);
  return Status::OK();
}

Status SpillFile::FinishWriting() {
  if (!writing_) return Status::OK();
  writing_ = false;
  std::string().swap(buffer_);
  if (std::fflush(file_) != 0) {
    return Status::IoError("cannot write the spill file " + path_ + ": " + ErrnoText());
  }
  return Rewind();
}

Status SpillFile::Rewind() {
  if (writing_) SILT_RETURN_NOT_OK(FinishWriting());
  if (std::fseek(file_, 0, SEEK_SET) != 0) {
    return Status::IoError("cannot read the spill file " + path_ + ": " + ErrnoText());
  }
  return Status::OK();
}

Result<bool> SpillFile::Read(DataChunk* out) {
  if (writing_) SILT_RETURN_NOT_OK(FinishWriting());
  uint64_t payload = 0;
  size_t got = std::fread(&payload, 1, sizeof(payload), file_);
  if (got == 0 && std::feof(file_)) return false;
  if (got != sizeof(payload) || payload > (uint64_t(1) << 40)) return Truncated();
  buffer_.resize(payload);
  if (std::fread(buffer_.data(), 1, payload, file_) != payload) return Truncated();
  size_t pos = 0;
  uint64_t rows = 0;
  uint32_t ncols = 0;
  if (!Get(buffer_.data(), buffer_.size(), &pos, &rows) ||
      !Get(buffer_.data(), buffer_.size(), &pos, &ncols) || ncols != schema_.size()) {
    return Truncated();
  }
  out->columns.clear();
  out->columns.reserve(ncols);
  out->num_rows_without_columns = ncols == 0 ? rows : 0;
  for (uint32_t c = 0; c < ncols; ++c) {
    out->columns.emplace_back(schema_[c].type);
    SILT_RETURN_NOT_OK(DecodeVector(buffer_.data(), buffer_.size(), &pos, &out->columns.back()));
    if (out->columns.back().size() != rows) return Truncated();
  }
  if (pos != buffer_.size()) return Truncated();
  if (buffer_.capacity() > (size_t(1) << 20)) std::string().swap(buffer_);
  return true;
}

// ---------------------------------------------------------------- PartitionedSpill

PartitionedSpill::PartitionedSpill(SpillManager* manager, Schema schema, int bits, int shift)
    : manager_(manager), schema_(std::move(schema)), bits_(bits), shift_(shift) {
  files_.resize(size_t(1) << bits);
  pending_.resize(files_.size());
  scratch_.resize(files_.size());
}

PartitionedSpill::~PartitionedSpill() = default;

Status PartitionedSpill::Flush(size_t p) {
  DataChunk& c = pending_[p];
  if (c.size() == 0) return Status::OK();
  if (!files_[p]) {
    SILT_ASSIGN_OR_RETURN(files_[p], manager_->CreateFile(schema_));
  }
  SILT_RETURN_NOT_OK(files_[p]->Append(c));
  bytes_ = 0;
  for (const auto& f : files_) bytes_ += f ? f->bytes() : 0;
  c = DataChunk();
  return Status::OK();
}

Status PartitionedSpill::Append(const DataChunk& chunk, const uint32_t* sel, size_t n,
                                const uint64_t* hashes) {
  if (n == 0) return Status::OK();
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t mask = (uint64_t(1) << bits_) - 1;
  for (auto& v : scratch_) v.clear();
  for (size_t k = 0; k < n; ++k) {
    scratch_[(hashes[k] >> shift_) & mask].push_back(sel ? sel[k] : static_cast<uint32_t>(k));
  }
  for (size_t p = 0; p < scratch_.size(); ++p) {
    const std::vector<uint32_t>& rows = scratch_[p];
    if (rows.empty()) continue;
    DataChunk& dst = pending_[p];
    if (dst.columns.empty() && dst.num_rows_without_columns == 0) {
      dst = DataChunk::FromSchema(schema_);
    }
    for (size_t c = 0; c < chunk.columns.size(); ++c) {
      dst.columns[c].AppendSelected(chunk.columns[c], rows.data(), rows.size());
    }
    if (chunk.columns.empty()) dst.num_rows_without_columns += rows.size();
    rows_ += static_cast<int64_t>(rows.size());
    if (dst.size() >= kSpillChunkRows) SILT_RETURN_NOT_OK(Flush(p));
  }
  return Status::OK();
}

Status PartitionedSpill::Finish() {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t p = 0; p < pending_.size(); ++p) {
    SILT_RETURN_NOT_OK(Flush(p));
    if (files_[p]) SILT_RETURN_NOT_OK(files_[p]->FinishWriting());
  }
  return Status::OK();
}

std::unique_ptr<SpillFile> PartitionedSpill::Take(size_t p) {
  std::lock_guard<std::mutex> lock(mu_);
  return std::move(files_[p]);
}

}  // namespace silt::exec
