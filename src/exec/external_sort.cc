#include "exec/external_sort.h"

#include <algorithm>
#include <deque>

namespace silt::exec {

struct ExternalSort::Cursor {
  std::unique_ptr<SpillFile> file;
  size_t index = 0;  // run order: ties go to the earlier run (stability)
  DataChunk chunk;
  std::deque<Vector> owned;         // evaluated (not column-reference) keys
  std::vector<const Vector*> keys;  // the sort keys of chunk (into chunk or owned)
  size_t row = 0;
  int64_t bytes = 0;  // reserved for chunk and keys
};

namespace {
int64_t ChunkBytes(const DataChunk& c) {
  int64_t n = 0;
  for (const Vector& v : c.columns) n += static_cast<int64_t>(v.MemoryUsage());
  return n;
}

// Rows per chunk of a spilled run: small, so a merge of many runs holds little per run.
constexpr size_t kRunChunkRows = 256;
}  // namespace

ExternalSort::ExternalSort(Schema schema, const std::vector<SortKey>& keys, std::string owner)
    : schema_(std::move(schema)), keys_(keys), owner_(std::move(owner)) {
  for (const SortKey& k : keys_) orders_.push_back(SortOrder{k.ascending, k.nulls_first});
}

ExternalSort::~ExternalSort() = default;

Status ExternalSort::SpillRun(ExecContext& ctx, DataChunk* data, MemoryReservation* reservation,
                              int64_t precharged) {
  const size_t n = data->size();
  if (n == 0) return Status::OK();
  if (!ctx.spill || !ctx.spill->CanSpill()) {
    return Status::Internal("ExternalSort::SpillRun without a spill manager");
  }
  std::vector<uint32_t> perm;
  {
    std::vector<Vector> scratch;
    std::vector<const Vector*> key_vectors;
    scratch.reserve(keys_.size());
    for (const SortKey& k : keys_) {
      scratch.emplace_back(k.expr->type);
      const Vector* v = nullptr;
      SILT_RETURN_NOT_OK(EvaluateOrReference(*k.expr, *data, ctx.eval, &scratch.back(), &v));
      key_vectors.push_back(v);
    }
    int64_t extra = 0;
    for (const Vector& s : scratch) extra += static_cast<int64_t>(s.MemoryUsage());
    const int64_t need = reservation->bytes() - precharged + extra + int64_t(n) * 24;
    if (need > reservation->bytes()) SILT_RETURN_NOT_OK(reservation->Resize(need));
    SILT_RETURN_NOT_OK(SortPermutation(key_vectors, orders_, n, ctx, &perm));
  }
  SILT_ASSIGN_OR_RETURN(std::unique_ptr<SpillFile> file, ctx.spill->CreateFile(schema_));
  DataChunk piece;
  for (size_t begin = 0; begin < n; begin += kRunChunkRows) {
    if (ctx.is_cancelled()) return Status::Cancelled("sort cancelled");
    size_t k = std::min(kRunChunkRows, n - begin);
    GatherChunk(*data, perm.data() + begin, k, &piece);
    SILT_RETURN_NOT_OK(file->Append(piece));
  }
  SILT_RETURN_NOT_OK(file->FinishWriting());
  bytes_spilled_ += file->bytes();
  ++runs_spilled_;
  runs_.push_back(std::move(file));
  *data = DataChunk::FromSchema(schema_);
  return Status::OK();
}

int ExternalSort::Compare(const Cursor& a, const Cursor& b) const {
  for (size_t k = 0; k < orders_.size(); ++k) {
    const Vector& va = *a.keys[k];
    const Vector& vb = *b.keys[k];
    bool na = va.IsNull(a.row), nb = vb.IsNull(b.row);
    if (na || nb) {
      if (na && nb) continue;
      int c = na ? -1 : 1;
      return orders_[k].nulls_first ? c : -c;
    }
    int c = CompareValues(va, a.row, vb, b.row);
    if (c) return orders_[k].ascending ? c : -c;
  }
  return a.index < b.index ? -1 : (a.index > b.index ? 1 : 0);
}

Result<bool> ExternalSort::Advance(ExecContext& ctx, Cursor* c) {
  c->row = 0;
  c->chunk = DataChunk();
  c->keys.clear();
  c->owned.clear();
  while (true) {
    SILT_ASSIGN_OR_RETURN(bool more, c->file->Read(&c->chunk));
    if (!more) {
      c->file.reset();  // deletes the run file
      merge_reservation_->Resize(merge_reservation_->bytes() - c->bytes).ok();  // a shrink
      c->bytes = 0;
      return false;
    }
    if (c->chunk.size() > 0) break;
  }
  for (const SortKey& k : keys_) {
    c->owned.emplace_back(k.expr->type);
    const Vector* v = nullptr;
    SILT_RETURN_NOT_OK(EvaluateOrReference(*k.expr, c->chunk, ctx.eval, &c->owned.back(), &v));
    c->keys.push_back(v);
  }
  int64_t bytes = ChunkBytes(c->chunk);
  for (const Vector& v : c->owned) bytes += static_cast<int64_t>(v.MemoryUsage());
  SILT_RETURN_NOT_OK(merge_reservation_->Resize(merge_reservation_->bytes() - c->bytes + bytes));
  c->bytes = bytes;
  return true;
}

Status ExternalSort::OpenCursors(ExecContext& ctx, std::vector<std::unique_ptr<SpillFile>> runs) {
  merge_reservation_.reset();
  cursors_.clear();
  heap_.clear();
  merge_reservation_ = std::make_unique<MemoryReservation>(ctx.memory, owner_);
  for (size_t i = 0; i < runs.size(); ++i) {
    auto c = std::make_unique<Cursor>();
    c->file = std::move(runs[i]);
    c->index = i;
    SILT_RETURN_NOT_OK(c->file->Rewind());
    SILT_ASSIGN_OR_RETURN(bool more, Advance(ctx, c.get()));
    if (more) heap_.push_back(c.get());
    cursors_.push_back(std::move(c));
  }
  auto greater = [this](const Cursor* a, const Cursor* b) { return Compare(*a, *b) > 0; };
  std::make_heap(heap_.begin(), heap_.end(), greater);
  return Status::OK();
}

Status ExternalSort::StartMerge(ExecContext& ctx) {
  // How many runs one merge can read at once: each holds a chunk (and its evaluated keys), about
  // twice its encoded size, within what the limit leaves (at least 2, at most kMaxMergeFanIn).
  size_t fan_in = kMaxMergeFanIn;
  if (ctx.memory && ctx.memory->limit() >= 0) {
    int64_t chunk = 1;
    for (const auto& r : runs_) chunk = std::max(chunk, r->max_chunk_bytes());
    int64_t avail = ctx.memory->limit() - ctx.memory->used();
    fan_in = static_cast<size_t>(std::clamp<int64_t>(avail / (3 * chunk), 2, kMaxMergeFanIn));
  }
  // Too many runs for one merge: merge consecutive groups into longer runs first (consecutive,
  // so run order, and with it stability, is kept).
  while (runs_.size() > fan_in) {
    std::vector<std::unique_ptr<SpillFile>> merged;
    for (size_t begin = 0; begin < runs_.size(); begin += fan_in) {
      size_t end = std::min(runs_.size(), begin + fan_in);
      std::vector<std::unique_ptr<SpillFile>> group;
      for (size_t i = begin; i < end; ++i) group.push_back(std::move(runs_[i]));
      if (group.size() == 1) {
        merged.push_back(std::move(group[0]));
        continue;
      }
      SILT_RETURN_NOT_OK(OpenCursors(ctx, std::move(group)));
      SILT_ASSIGN_OR_RETURN(std::unique_ptr<SpillFile> out, ctx.spill->CreateFile(schema_));
      DataChunk chunk;
      while (true) {
        SILT_ASSIGN_OR_RETURN(bool more, MergeNext(ctx, &chunk, kRunChunkRows));
        if (!more) break;
        SILT_RETURN_NOT_OK(out->Append(chunk));
      }
      SILT_RETURN_NOT_OK(out->FinishWriting());
      bytes_spilled_ += out->bytes();
      merged.push_back(std::move(out));
    }
    runs_ = std::move(merged);
  }
  std::vector<std::unique_ptr<SpillFile>> runs = std::move(runs_);
  runs_.clear();
  return OpenCursors(ctx, std::move(runs));
}

Result<bool> ExternalSort::MergeNext(ExecContext& ctx, DataChunk* out, size_t max_rows) {
  if (heap_.empty()) {
    cursors_.clear();
    merge_reservation_.reset();
    return false;
  }
  if (ctx.is_cancelled()) return Status::Cancelled("sort cancelled");
  *out = DataChunk::FromSchema(schema_);
  auto greater = [this](const Cursor* a, const Cursor* b) { return Compare(*a, *b) > 0; };
  size_t produced = 0;
  while (produced < max_rows && !heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), greater);
    Cursor* c = heap_.back();
    heap_.pop_back();
    // The smallest cursor gives rows as long as they stay before the next cursor's row.
    const size_t start = c->row;
    const size_t room = max_rows - produced;
    ++c->row;
    while (c->row < c->chunk.size() && c->row - start < room &&
           (heap_.empty() || Compare(*c, *heap_.front()) < 0)) {
      ++c->row;
    }
    const size_t count = c->row - start;
    for (size_t k = 0; k < out->columns.size(); ++k) {
      out->columns[k].AppendRange(c->chunk.columns[k], start, count);
    }
    if (out->columns.empty()) out->num_rows_without_columns += count;
    produced += count;
    bool live = true;
    if (c->row >= c->chunk.size()) {
      SILT_ASSIGN_OR_RETURN(live, Advance(ctx, c));
    }
    if (live) {
      heap_.push_back(c);
      std::push_heap(heap_.begin(), heap_.end(), greater);
    }
  }
  return true;
}

Result<bool> ExternalSort::Next(ExecContext& ctx, DataChunk* out) {
  return MergeNext(ctx, out, kChunkRows);
}

}  // namespace silt::exec
