#include "exec/nested_loop_join.h"

#include <algorithm>

#include "exec/sort.h"

namespace silt::exec {

namespace {
bool PadsLeft(JoinType t) { return t == JoinType::kRightOuter || t == JoinType::kFullOuter; }
bool IsSemiOrAnti(JoinType t) { return t == JoinType::kLeftSemi || t == JoinType::kLeftAnti; }
}  // namespace

NestedLoopJoinOperator::NestedLoopJoinOperator(OperatorPtr left, OperatorPtr right, JoinType type,
                                               ExprPtr condition)
    : left_(std::move(left)),
      right_(std::move(right)),
      type_(type),
      condition_(std::move(condition)) {
  schema_ = JoinOutputSchema(left_->output_schema(), right_->output_schema(), type_);
  pair_schema_ =
      JoinOutputSchema(left_->output_schema(), right_->output_schema(), JoinType::kInner);
  num_left_ = left_->output_schema().size();
}

std::string NestedLoopJoinOperator::details() const {
  std::string s = condition_ ? std::string(JoinTypeName(type_)) : std::string("Cross");
  if (condition_) s += ", condition=" + condition_->ToString();
  return s;
}

Status NestedLoopJoinOperator::ProbeChunk(const DataChunk& in, ExecContext& ctx) {
  const size_t n = in.size();
  const size_t m = right_data_.size();
  const bool emit_pairs = !IsSemiOrAnti(type_);
  const bool track_left = type_ != JoinType::kInner && type_ != JoinType::kRightOuter;
  const bool track_right = PadsLeft(type_);
  std::vector<uint8_t> left_matched(n, 0);
  std::vector<uint32_t> ls, rs, sel;
  ls.reserve(kChunkRows);
  rs.reserve(kChunkRows);
  size_t l = 0, r = 0;
  while (m > 0 && l < n) {
    if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
    // Next batch of pairs in left-major order; semi/anti skip left rows already decided.
    ls.clear();
    rs.clear();
    while (l < n && ls.size() < kChunkRows) {
      if (IsSemiOrAnti(type_) && left_matched[l]) {
        ++l;
        r = 0;
        continue;
      }
      size_t take = std::min(m - r, kChunkRows - ls.size());
      for (size_t k = 0; k < take; ++k) {
        ls.push_back(static_cast<uint32_t>(l));
        rs.push_back(static_cast<uint32_t>(r + k));
      }
      r += take;
      if (r == m) {
        ++l;
        r = 0;
      }
    }
    if (ls.empty()) break;
    DataChunk cand;
    GatherJoinPairs(in, ls.data(), right_data_, rs.data(), ls.size(), pair_schema_, num_left_,
                    &cand);
    if (condition_) {
      SILT_RETURN_NOT_OK(EvaluateFilter(*condition_, cand, ctx.eval, &sel));
    } else {
      sel.resize(ls.size());
      for (size_t k = 0; k < sel.size(); ++k) sel[k] = static_cast<uint32_t>(k);
    }
    for (uint32_t s : sel) {
      if (track_left) left_matched[ls[s]] = 1;
      if (track_right) right_matched_[rs[s]] = 1;
    }
    if (emit_pairs && !sel.empty()) {
      if (sel.size() == ls.size()) {
        pending_.push_back(std::move(cand));
      } else {
        pending_.emplace_back();
        GatherChunk(cand, sel.data(), sel.size(), &pending_.back());
      }
    }
  }
  if (track_left) {
    sel.clear();
    bool want = type_ == JoinType::kLeftSemi;
    for (size_t i = 0; i < n; ++i) {
      if ((left_matched[i] != 0) == want) sel.push_back(static_cast<uint32_t>(i));
    }
    if (!sel.empty()) {
      pending_.emplace_back();
      if (IsSemiOrAnti(type_)) {
        GatherChunk(in, sel.data(), sel.size(), &pending_.back());
      } else {
        GatherJoinPairs(in, sel.data(), right_data_, nullptr, sel.size(), schema_, num_left_,
                        &pending_.back());
      }
    }
  }
  return Status::OK();
}

Result<bool> NestedLoopJoinOperator::Next(ExecContext& ctx, DataChunk* out) {
  if (!built_) {
    built_ = true;
    reservation_ = std::make_unique<MemoryReservation>(ctx.memory, name());
    right_data_ = DataChunk::FromSchema(right_->output_schema());
    SILT_RETURN_NOT_OK(BufferAll(*right_, ctx, &right_data_, reservation_.get()));
    if (PadsLeft(type_)) right_matched_.assign(right_data_.size(), 0);
  }
  while (true) {
    if (pending_pos_ < pending_.size()) {
      *out = std::move(pending_[pending_pos_++]);
      return true;
    }
    pending_.clear();
    pending_pos_ = 0;
    if (left_done_) {
      if (PadsLeft(type_) && !unmatched_emitted_) {
        unmatched_emitted_ = true;
        std::vector<uint32_t> sel;
        DataChunk none;
        const size_t m = right_data_.size();
        for (size_t r = 0; r < m; ++r) {
          if (!right_matched_[r]) sel.push_back(static_cast<uint32_t>(r));
          if (sel.size() == kChunkRows || (r + 1 == m && !sel.empty())) {
            pending_.emplace_back();
            GatherJoinPairs(none, nullptr, right_data_, sel.data(), sel.size(), schema_, num_left_,
                            &pending_.back());
            sel.clear();
          }
        }
        continue;
      }
      return false;
    }
    if (right_data_.size() == 0 && (type_ == JoinType::kInner || type_ == JoinType::kRightOuter ||
                                    type_ == JoinType::kLeftSemi)) {
      left_done_ = true;
      continue;
    }
    DataChunk chunk;
    SILT_ASSIGN_OR_RETURN(bool more, left_->Next(ctx, &chunk));
    if (!more) {
      left_done_ = true;
      continue;
    }
    SILT_RETURN_NOT_OK(ProbeChunk(chunk, ctx));
  }
}

}  // namespace silt::exec
