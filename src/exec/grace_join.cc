#include "exec/grace_join.h"

#include <deque>

#include "common/error_classes.h"
#include "exec/row_hash.h"
#include "exec/sort.h"

namespace silt::exec {

namespace {

constexpr int kGraceBits = 4;  // 16 partitions per split
// Bytes a buffered build row will need for the hash table (heads, chains, hashes, matched
// flags), reserved while buffering so the table fits when the buffer does.
constexpr int64_t kBuildRowOverhead = 32;

bool EmitsUnmatchedBuild(JoinType t) {
  return t == JoinType::kRightOuter || t == JoinType::kFullOuter || t == JoinType::kRightAnti;
}
bool NeedsBuildRows(JoinType t) {
  return t == JoinType::kInner || t == JoinType::kRightOuter || t == JoinType::kLeftSemi ||
         t == JoinType::kRightSemi || t == JoinType::kRightAnti;
}

// Reads the chunks of one spill partition (none when file is null).
class SpillSource final : public Operator {
 public:
  SpillSource(Schema schema, std::unique_ptr<SpillFile> file) : file_(std::move(file)) {
    schema_ = std::move(schema);
  }
  Result<bool> Next(ExecContext& ctx, DataChunk* out) override {
    while (file_) {
      if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
      SILT_ASSIGN_OR_RETURN(bool more, file_->Read(out));
      if (!more) {
        file_.reset();
        break;
      }
      if (out->size() > 0) return true;
    }
    return false;
  }
  std::string name() const override { return "SpillRead"; }

 private:
  std::unique_ptr<SpillFile> file_;
};

// Appends every row of chunk to the partition of its key hash.
Status SpillByKeys(const ExecContext& ctx, const DataChunk& chunk, const std::vector<ExprPtr>& keys,
                   PartitionedSpill* parts) {
  const size_t n = chunk.size();
  if (n == 0) return Status::OK();
  std::deque<Vector> owned;
  std::vector<const Vector*> key_vecs;
  for (const ExprPtr& e : keys) {
    owned.emplace_back(e->type);
    const Vector* v = nullptr;
    SILT_RETURN_NOT_OK(EvaluateOrReference(*e, chunk, ctx.eval, &owned.back(), &v));
    key_vecs.push_back(v);
  }
  std::vector<uint64_t> hashes(n);
  HashRows(key_vecs, n, hashes.data());
  return parts->Append(chunk, nullptr, n, hashes.data());
}

}  // namespace

Result<bool> HashJoinOperator::BufferBuildOrSpill(ExecContext& ctx) {
  const Schema& build_schema = build_->output_schema();
  const int64_t budget = SpillBudget(ctx.memory, ctx.spill);
  DataChunk chunk;
  bool more = true;
  while (true) {
    if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
    SILT_ASSIGN_OR_RETURN(more, build_->Next(ctx, &chunk));
    if (!more) {
      // Everything fit: Build() reserves the table it makes.
      SILT_RETURN_NOT_OK(reservation_->Resize(reservation_->bytes() -
                                              kBuildRowOverhead * int64_t(build_data_.size())));
      return false;
    }
    bool appended = false;
    Status s =
        AppendToBuffer(chunk, &build_data_, reservation_.get(), 0, kBuildRowOverhead, &appended);
    if (s.ok() && (budget < 0 || reservation_->bytes() <= budget)) continue;
    if (!s.ok() && s.code() != StatusCode::kOutOfMemory) return s;
    // Over the limit: partition what is buffered and the rest of the build side to disk.
    grace_ = std::make_unique<Grace>();
    grace_->build_parts =
        std::make_unique<PartitionedSpill>(ctx.spill, build_schema, kGraceBits, grace_shift_);
    PartitionedSpill* parts = grace_->build_parts.get();
    for (size_t begin = 0; begin < build_data_.size(); begin += kChunkRows) {
      // In chunk-sized slices, so the evaluated keys stay small.
      size_t cnt = std::min(kChunkRows, build_data_.size() - begin);
      std::vector<uint32_t> sel(cnt);
      for (size_t i = 0; i < cnt; ++i) sel[i] = static_cast<uint32_t>(begin + i);
      DataChunk slice;
      GatherChunk(build_data_, sel.data(), cnt, &slice);
      SILT_RETURN_NOT_OK(SpillByKeys(ctx, slice, right_keys_, parts));
    }
    build_data_ = DataChunk::FromSchema(build_schema);
    SILT_RETURN_NOT_OK(reservation_->Resize(0));
    if (!appended) SILT_RETURN_NOT_OK(SpillByKeys(ctx, chunk, right_keys_, parts));
    while (true) {
      if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
      SILT_ASSIGN_OR_RETURN(more, build_->Next(ctx, &chunk));
      if (!more) break;
      SILT_RETURN_NOT_OK(SpillByKeys(ctx, chunk, right_keys_, parts));
    }
    SILT_RETURN_NOT_OK(parts->Finish());
    spilled_rows_ += parts->rows();
    spilled_bytes_ += parts->bytes();
    return true;
  }
}

Result<bool> HashJoinOperator::GraceNext(ExecContext& ctx, DataChunk* out) {
  Grace& g = *grace_;
  const Schema& probe_schema = probe_->output_schema();
  const Schema& build_schema = build_->output_schema();
  if (!g.probe_partitioned) {
    g.probe_partitioned = true;
    g.probe_parts =
        std::make_unique<PartitionedSpill>(ctx.spill, probe_schema, kGraceBits, grace_shift_);
    DataChunk chunk;
    while (true) {
      if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
      SILT_ASSIGN_OR_RETURN(bool more, probe_->Next(ctx, &chunk));
      if (!more) break;
      SILT_RETURN_NOT_OK(SpillByKeys(ctx, chunk, left_keys_, g.probe_parts.get()));
    }
    SILT_RETURN_NOT_OK(g.probe_parts->Finish());
    spilled_rows_ += g.probe_parts->rows();
    spilled_bytes_ += g.probe_parts->bytes();
  }
  while (true) {
    if (g.current) {
      SILT_ASSIGN_OR_RETURN(bool more, g.current->Next(ctx, out));
      if (more) return true;
      spilled_rows_ += g.current->spilled_rows_;
      spilled_bytes_ += g.current->spilled_bytes_;
      if (g.current->grace_) g.partitions += g.current->grace_->partitions;
      g.current.reset();
    }
    if (g.next_partition >= g.build_parts->num_partitions()) return false;
    const size_t p = g.next_partition++;
    std::unique_ptr<SpillFile> build = g.build_parts->Take(p);
    std::unique_ptr<SpillFile> probe = g.probe_parts->Take(p);
    if (!probe && !EmitsUnmatchedBuild(type_)) continue;
    if (!build && NeedsBuildRows(type_)) continue;
    if (grace_shift_ + 2 * kGraceBits > 64) {
      return Status::OutOfMemory(
          "HashJoin: the build rows of one hash partition do not fit under the memory limit even "
          "after splitting it " +
              std::to_string((grace_shift_ - kFirstGraceShift) / kGraceBits + 1) +
              " times (raise it with SET silt.memory.limit = <size>)",
          errc::kSiltMemoryLimitExceeded);
    }
    ++g.partitions;
    auto join = std::make_unique<HashJoinOperator>(
        std::make_unique<SpillSource>(probe_schema, std::move(probe)),
        std::make_unique<SpillSource>(build_schema, std::move(build)), type_, left_keys_,
        right_keys_, null_safe_, residual_, /*null_aware_anti=*/false);
    join->grace_shift_ = grace_shift_ + kGraceBits;
    g.current = std::move(join);
  }
}

std::string HashJoinOperator::RuntimeMetrics() const {
  if (!grace_) return "";
  return "grace join: spilled " + std::to_string(spilled_rows_) + " rows, " +
         std::to_string(spilled_bytes_) + " bytes, " + std::to_string(grace_->partitions) +
         " partitions joined";
}

}  // namespace silt::exec
