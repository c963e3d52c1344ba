// WindowOperator past the memory limit (with spilling on and PARTITION BY): the input is sorted
// by the external sort (partition keys ASC NULLS FIRST, then the ORDER BY keys; stable), and the
// merged rows are cut at partition boundaries into batches of whole partitions, each evaluated by
// an in-memory WindowOperator of its own. Output order is the same as in memory (partitions in
// key order, rows in ORDER BY order, ties in input order). One partition that does not fit alone
// keeps SILT_MEMORY_LIMIT_EXCEEDED; so does a window without PARTITION BY (a single partition).
#include "exec/window_spill.h"

#include <deque>

namespace silt::exec {

namespace {

// Hands out a list of chunks (moved out one by one).
class ChunkListSource final : public Operator {
 public:
  ChunkListSource(Schema schema, std::deque<DataChunk> chunks) : chunks_(std::move(chunks)) {
    schema_ = std::move(schema);
  }
  Result<bool> Next(ExecContext& /*ctx*/, DataChunk* out) override {
    while (!chunks_.empty()) {
      *out = std::move(chunks_.front());
      chunks_.pop_front();
      if (out->size() > 0) return true;
    }
    return false;
  }
  std::string name() const override { return "WindowBatch"; }

 private:
  std::deque<DataChunk> chunks_;
};

int64_t ChunkBytes(const DataChunk& c) {
  int64_t n = 0;
  for (const Vector& v : c.columns) n += static_cast<int64_t>(v.MemoryUsage());
  return n;
}

// Rows a batch of whole partitions aims at, as a share of what was buffered when the limit was
// hit (the batch is held while its window copies and sorts it).
constexpr int64_t kBatchShare = 4;

}  // namespace

WindowOperator::~WindowOperator() = default;

Result<bool> WindowOperator::BufferOrSpill(ExecContext& ctx) {
  const Schema& in_schema = child_->output_schema();
  std::vector<SortKey> keys;
  for (const ExprPtr& e : partition_by_) keys.push_back(SortKey{e, true, true});
  for (const SortKey& k : order_by_) keys.push_back(k);
  // Room for the permutation and layout the in-memory path reserves (24 + 20 bytes a row) and
  // the evaluated keys.
  const int64_t per_row = 44 + EvaluatedKeyBytesPerRow(keys);
  const int64_t budget = SpillBudget(ctx.memory, ctx.spill);
  DataChunk chunk;
  while (true) {
    if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
    SILT_ASSIGN_OR_RETURN(bool more, child_->Next(ctx, &chunk));
    if (!more) break;
    bool appended = false;
    Status s = AppendToBuffer(chunk, &data_, reservation_.get(), 0, per_row, &appended);
    if (s.ok() && (budget < 0 || reservation_->bytes() <= budget)) continue;
    if (!s.ok() && (s.code() != StatusCode::kOutOfMemory || (!appended && data_.size() == 0))) {
      return s;
    }
    if (!spill_) {
      spill_ = std::make_unique<Spill>();
      spill_->sort = std::make_unique<ExternalSort>(in_schema, keys, name());
      spill_->batch_target = std::max<int64_t>(reservation_->bytes() / kBatchShare, 1);
    }
    SILT_RETURN_NOT_OK(
        spill_->sort->SpillRun(ctx, &data_, reservation_.get(), per_row * int64_t(data_.size())));
    SILT_RETURN_NOT_OK(reservation_->Resize(0));
    if (!appended) {
      SILT_RETURN_NOT_OK(AppendToBuffer(chunk, &data_, reservation_.get(), 0, per_row, nullptr));
    }
  }
  if (!spill_) {
    // Everything fit: the in-memory path reserves what it uses.
    SILT_RETURN_NOT_OK(
        reservation_->Resize(reservation_->bytes() - per_row * int64_t(data_.size())));
    return false;
  }
  SILT_RETURN_NOT_OK(
      spill_->sort->SpillRun(ctx, &data_, reservation_.get(), per_row * int64_t(data_.size())));
  SILT_RETURN_NOT_OK(reservation_->Resize(0));
  SILT_RETURN_NOT_OK(spill_->sort->StartMerge(ctx));
  return true;
}

Result<bool> WindowOperator::SpilledNext(ExecContext& ctx, DataChunk* out) {
  Spill& sp = *spill_;
  const Schema& in_schema = child_->output_schema();
  const size_t np = partition_by_.size();
  while (true) {
    if (sp.inner) {
      SILT_ASSIGN_OR_RETURN(bool more, sp.inner->Next(ctx, out));
      if (more) return true;
      sp.inner.reset();
    }
    if (sp.merge_done && sp.batch.empty() && sp.carry.size() == 0) return false;
    // Fill a batch of whole partitions: chunks of merged rows until the target is reached, then
    // up to the next partition boundary.
    bool flush = false;
    while (!flush) {
      DataChunk c;
      if (sp.carry.size() > 0) {
        c = std::move(sp.carry);
        sp.carry = DataChunk();
      } else if (!sp.merge_done) {
        SILT_ASSIGN_OR_RETURN(bool more, sp.sort->Next(ctx, &c));
        if (!more) {
          sp.merge_done = true;
          flush = true;
          break;
        }
      } else {
        flush = true;
        break;
      }
      const size_t n = c.size();
      std::vector<Vector> keys;
      std::deque<Vector> scratch;
      for (const ExprPtr& e : partition_by_) {
        scratch.emplace_back(e->type);
        const Vector* v = nullptr;
        SILT_RETURN_NOT_OK(EvaluateOrReference(*e, c, ctx.eval, &scratch.back(), &v));
        keys.push_back(*v);
      }
      size_t cut = n;  // rows [0, cut) join the batch
      if (sp.batch_bytes >= sp.batch_target && !sp.batch.empty()) {
        // The first row of another partition than the batch's last row ends the batch.
        auto differs = [&](size_t i) {
          for (size_t k = 0; k < np; ++k) {
            const Vector& prev = i == 0 ? sp.prev_keys[k] : keys[k];
            size_t pi = i == 0 ? 0 : i - 1;
            if (CompareValues(prev, pi, keys[k], i) != 0) return true;
          }
          return false;
        };
        for (size_t i = 0; i < n; ++i) {
          if (differs(i)) {
            cut = i;
            break;
          }
        }
      }
      if (cut < n) {
        std::vector<uint32_t> rest(n - cut);
        for (size_t i = cut; i < n; ++i) rest[i - cut] = static_cast<uint32_t>(i);
        GatherChunk(c, rest.data(), rest.size(), &sp.carry);
        flush = true;
      }
      if (cut > 0) {
        sp.prev_keys.clear();
        for (size_t k = 0; k < np; ++k) {
          sp.prev_keys.emplace_back(keys[k].type());
          sp.prev_keys.back().AppendRange(keys[k], cut - 1, 1);
        }
        if (cut < n) {
          std::vector<uint32_t> head(cut);
          for (size_t i = 0; i < cut; ++i) head[i] = static_cast<uint32_t>(i);
          DataChunk h;
          GatherChunk(c, head.data(), cut, &h);
          c = std::move(h);
        }
        sp.batch_bytes += ChunkBytes(c);
        sp.batch.push_back(std::move(c));
      }
    }
    if (sp.batch.empty()) continue;
    // The batch's window: in memory only (a batch is whole partitions; one that does not fit
    // cannot be split).
    auto inner = std::make_unique<WindowOperator>(
        std::make_unique<ChunkListSource>(in_schema, std::move(sp.batch)), partition_by_, order_by_,
        functions_);
    inner->no_spill_ = true;
    sp.batch = {};
    sp.batch_bytes = 0;
    sp.inner = std::move(inner);
    ++spilled_batches_;
  }
}

std::string WindowOperator::RuntimeMetrics() const {
  if (!spill_) return "";
  return "spilled " + std::to_string(spill_->sort->runs_spilled()) + " sorted runs, " +
         std::to_string(spill_->sort->bytes_spilled()) + " bytes; " +
         std::to_string(spilled_batches_) + " batches of partitions";
}

}  // namespace silt::exec
