#include "exec/hash_join.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <limits>

#include "common/error_classes.h"
#include "exec/grace_join.h"
#include "exec/join_keys.h"
#include "exec/sort.h"

namespace silt::exec {

namespace {

constexpr uint32_t kEmpty = std::numeric_limits<uint32_t>::max();
constexpr size_t kMorselRows = 1 << 16;
// How far ahead of the row being probed the hash table's memory is prefetched.
constexpr size_t kPrefetchAhead = 16;

bool PadsLeft(JoinType t) { return t == JoinType::kRightOuter || t == JoinType::kFullOuter; }
bool PadsRight(JoinType t) { return t == JoinType::kLeftOuter || t == JoinType::kFullOuter; }
bool IsSemiOrAnti(JoinType t) { return t == JoinType::kLeftSemi || t == JoinType::kLeftAnti; }
bool IsRightSemiOrAnti(JoinType t) {
  return t == JoinType::kRightSemi || t == JoinType::kRightAnti;
}
// Joins that emit build rows after the probe: the unmatched ones (right/full outer, right anti)
// or the matched ones (right semi).
bool EmitsBuildRows(JoinType t) { return PadsLeft(t) || IsRightSemiOrAnti(t); }

}  // namespace

void GatherJoinPairs(const DataChunk& left, const uint32_t* ls, const DataChunk& right,
                     const uint32_t* rs, size_t n, const Schema& schema, size_t nl,
                     DataChunk* out) {
  out->columns.clear();
  out->num_rows_without_columns = schema.empty() ? n : 0;
  out->columns.reserve(schema.size());
  for (size_t c = 0; c < schema.size(); ++c) {
    out->columns.emplace_back(schema[c].type);
    Vector& v = out->columns.back();
    if (c < nl) {
      if (ls) {
        v.AppendSelected(left.columns[c], ls, n);
      } else {
        AppendNulls(&v, n);
      }
    } else {
      if (rs) {
        v.AppendSelected(right.columns[c - nl], rs, n);
      } else {
        AppendNulls(&v, n);
      }
    }
  }
}

namespace {

Status RunMorsels(ThreadPool* pool, size_t n, const std::function<Status(size_t, size_t)>& fn) {
  size_t morsels = (n + kMorselRows - 1) / kMorselRows;
  if (!pool || morsels <= 1) return n ? fn(0, n) : Status::OK();
  return pool->ParallelFor(
      morsels, [&](size_t m) { return fn(m * kMorselRows, std::min(n, (m + 1) * kMorselRows)); });
}

}  // namespace

const char* JoinTypeName(JoinType type) {
  switch (type) {
    case JoinType::kInner:
      return "Inner";
    case JoinType::kLeftOuter:
      return "LeftOuter";
    case JoinType::kRightOuter:
      return "RightOuter";
    case JoinType::kFullOuter:
      return "FullOuter";
    case JoinType::kLeftSemi:
      return "LeftSemi";
    case JoinType::kLeftAnti:
      return "LeftAnti";
    case JoinType::kRightSemi:
      return "RightSemi";
    case JoinType::kRightAnti:
      return "RightAnti";
  }
  return "?";
}

Schema JoinOutputSchema(const Schema& left, const Schema& right, JoinType type) {
  if (IsRightSemiOrAnti(type)) return right;
  Schema out = left;
  if (PadsLeft(type)) {
    for (Field& f : out) f.nullable = true;
  }
  if (IsSemiOrAnti(type)) return out;
  for (Field f : right) {
    if (PadsRight(type)) f.nullable = true;
    out.push_back(std::move(f));
  }
  return out;
}

HashJoinOperator::HashJoinOperator(OperatorPtr probe, OperatorPtr build, JoinType type,
                                   std::vector<ExprPtr> left_keys, std::vector<ExprPtr> right_keys,
                                   std::vector<bool> null_safe, ExprPtr residual,
                                   bool null_aware_anti)
    : probe_(std::move(probe)),
      build_(std::move(build)),
      type_(type),
      left_keys_(std::move(left_keys)),
      right_keys_(std::move(right_keys)),
      null_safe_(std::move(null_safe)),
      residual_(std::move(residual)),
      null_aware_anti_(null_aware_anti) {
  null_safe_.resize(left_keys_.size(), false);
  schema_ = JoinOutputSchema(probe_->output_schema(), build_->output_schema(), type_);
  num_left_ = probe_->output_schema().size();
  pair_schema_ =
      JoinOutputSchema(probe_->output_schema(), build_->output_schema(), JoinType::kInner);
}

HashJoinOperator::~HashJoinOperator() = default;

std::string HashJoinOperator::details() const {
  std::string s = JoinTypeName(type_);
  if (null_aware_anti_) s += " (null-aware)";
  s += ", keys=[";
  for (size_t k = 0; k < left_keys_.size(); ++k) {
    if (k) s += ", ";
    s += left_keys_[k]->ToString() + (null_safe_[k] ? " <=> " : " = ") +
         (k < right_keys_.size() ? right_keys_[k]->ToString() : "?");
  }
  s += "]";
  if (residual_) s += ", condition=" + residual_->ToString();
  return s;
}

Status HashJoinOperator::ValidateKeys() const {
  if (left_keys_.empty() || left_keys_.size() != right_keys_.size()) {
    return Status::InvalidArgument(
        "hash join needs the same non-zero number of keys on both sides");
  }
  for (size_t k = 0; k < left_keys_.size(); ++k) {
    const DataType& l = *left_keys_[k]->type;
    const DataType& r = *right_keys_[k]->type;
    if (!l.Equals(r)) {
      return Status::InvalidArgument(
          "join key " + std::to_string(k) + " compares " + l.ToString() + " with " + r.ToString(),
          errc::kDatatypeMismatch);
    }
    SILT_RETURN_NOT_OK(CheckJoinKeyType(l));
  }
  if (null_aware_anti_ &&
      (type_ != JoinType::kLeftAnti || left_keys_.size() != 1 || residual_ != nullptr)) {
    return Status::NotImplemented(
        "null-aware anti join (NOT IN subquery) with more than one key or an extra condition");
  }
  return Status::OK();
}

Status HashJoinOperator::Build(ExecContext& ctx) {
  if (built_) return Status::OK();
  built_ = true;
  SILT_RETURN_NOT_OK(ValidateKeys());
  reservation_ = std::make_unique<MemoryReservation>(ctx.memory, name());
  build_data_ = DataChunk::FromSchema(build_->output_schema());
  if (ctx.spill && ctx.spill->CanSpill() && !null_aware_anti_) {
    SILT_ASSIGN_OR_RETURN(bool spilled, BufferBuildOrSpill(ctx));
    if (spilled) return Status::OK();  // grace join: Next() joins partition by partition
  } else {
    SILT_RETURN_NOT_OK(BufferAll(*build_, ctx, &build_data_, reservation_.get()));
  }
  const size_t n = build_data_.size();

  build_key_storage_.reserve(right_keys_.size());  // build_keys_ points into it
  for (const ExprPtr& e : right_keys_) {
    build_key_storage_.emplace_back(e->type);
    const Vector* v = nullptr;
    SILT_RETURN_NOT_OK(
        EvaluateOrReference(*e, build_data_, ctx.eval, &build_key_storage_.back(), &v));
    build_keys_.push_back(v);
  }
  int_fast_path_ =
      build_keys_.size() == 1 && IsIntegralKeyType(build_keys_[0]->id()) && !null_safe_[0];

  // Rows with a NULL in a non-null-safe key can never match: they stay out of the table.
  std::vector<uint8_t> skip;
  for (size_t k = 0; k < build_keys_.size(); ++k) {
    if (null_safe_[k] || !build_keys_[k]->may_have_nulls()) continue;
    if (skip.empty()) skip.assign(n, 0);
    const uint8_t* valid = build_keys_[k]->validity();
    for (size_t r = 0; r < n; ++r) skip[r] |= valid[r] ? 0 : 1;
  }
  inserted_rows_ = n;
  for (uint8_t s : skip) inserted_rows_ -= s;
  build_has_null_key_ = inserted_rows_ != n;

  uint64_t cap = std::bit_ceil(std::max<uint64_t>(16, uint64_t(inserted_rows_) * 2));
  int64_t table_bytes =
      int64_t(cap) * 4 + int64_t(n) * (4 + 8) + (EmitsBuildRows(type_) ? int64_t(n) : 0);
  int64_t key_bytes = 0;
  for (const Vector& v : build_key_storage_) key_bytes += static_cast<int64_t>(v.MemoryUsage());
  SILT_RETURN_NOT_OK(reservation_->Resize(reservation_->bytes() + table_bytes + key_bytes));

  if (int_fast_path_) {
    build_int_keys_.resize(n);
  } else {
    build_hashes_.resize(n);
  }
  SILT_RETURN_NOT_OK(RunMorsels(ctx.pool, n, [&](size_t b, size_t e) {
    if (int_fast_path_) {
      WidenToInt64(*build_keys_[0], b, e, build_int_keys_.data() + b);
    } else {
      HashKeyColumns(build_keys_, b, e, build_hashes_.data() + b);
    }
    return Status::OK();
  }));
  if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");

  mask_ = cap - 1;
  heads_.assign(cap, kEmpty);
  next_.assign(n, kEmpty);
  auto hash_of = [this](size_t r) {
    return int_fast_path_ ? HashMix(static_cast<uint64_t>(build_int_keys_[r])) : build_hashes_[r];
  };
  if (!ctx.pool || n <= kMorselRows) {
    // Inserting from the back leaves every chain in ascending row order (deterministic output).
    for (size_t r = n; r-- > 0;) {
      if (!skip.empty() && skip[r]) continue;
      uint64_t b = hash_of(r) & mask_;
      next_[r] = heads_[b];
      heads_[b] = static_cast<uint32_t>(r);
    }
  } else {
    SILT_RETURN_NOT_OK(RunMorsels(ctx.pool, n, [&](size_t begin, size_t end) {
      for (size_t r = begin; r < end; ++r) {
        if (!skip.empty() && skip[r]) continue;
        uint64_t b = hash_of(r) & mask_;
        next_[r] = std::atomic_ref<uint32_t>(heads_[b]).exchange(static_cast<uint32_t>(r),
                                                                 std::memory_order_relaxed);
      }
      return Status::OK();
    }));
  }
  if (EmitsBuildRows(type_)) build_matched_.assign(n, 0);
  if (after_build_) SILT_RETURN_NOT_OK(after_build_(ctx, *this));
  return Status::OK();
}

void HashJoinOperator::MarkBuildMatched(uint32_t row) const {
  std::atomic_ref<uint8_t>(build_matched_[row]).store(1, std::memory_order_relaxed);
}

Status HashJoinOperator::ProbeChunk(const DataChunk& in, const EvalContext& ctx,
                                    std::vector<DataChunk>* outputs) const {
  const size_t n = in.size();
  if (n == 0) return Status::OK();
  const size_t build_rows = build_data_.size();

  // Null-aware anti join (NOT IN): an empty subquery keeps everything; a NULL in it, nothing.
  if (null_aware_anti_) {
    if (build_rows == 0) {
      outputs->push_back(in);
      return Status::OK();
    }
    if (build_has_null_key_) return Status::OK();
  }

  std::vector<Vector> key_storage;
  key_storage.reserve(left_keys_.size());
  std::vector<const Vector*> keys;
  for (const ExprPtr& e : left_keys_) {
    key_storage.emplace_back(e->type);
    const Vector* v = nullptr;
    SILT_RETURN_NOT_OK(EvaluateOrReference(*e, in, ctx, &key_storage.back(), &v));
    keys.push_back(v);
  }
  // can_match[r] == 0: the probe row has a NULL in a non-null-safe key.
  std::vector<uint8_t> can_match;
  for (size_t k = 0; k < keys.size(); ++k) {
    if (null_safe_[k] || !keys[k]->may_have_nulls()) continue;
    if (can_match.empty()) can_match.assign(n, 1);
    const uint8_t* valid = keys[k]->validity();
    for (size_t r = 0; r < n; ++r) can_match[r] &= valid[r];
  }
  std::vector<int64_t> ints;
  std::vector<uint64_t> hashes(n);
  if (int_fast_path_) {
    ints.resize(n);
    WidenToInt64(*keys[0], 0, n, ints.data());
    for (size_t r = 0; r < n; ++r) hashes[r] = HashMix(static_cast<uint64_t>(ints[r]));
  } else {
    HashKeyColumns(keys, 0, n, hashes.data());
  }
  // Each probe row's chain head, looked up with the bucket of a row kPrefetchAhead rows on
  // prefetched, so the random reads of the table overlap instead of stalling one by one (the
  // table of a large build side does not fit in the caches: Q9's 1.5M orders).
  const uint32_t* next = next_.data();
  std::vector<uint32_t> first(n);
  {
    const uint32_t* heads = heads_.data();
    const uint64_t mask = mask_;
    for (size_t r = 0; r < n; ++r) {
      if (r + kPrefetchAhead < n) __builtin_prefetch(&heads[hashes[r + kPrefetchAhead] & mask]);
      first[r] = heads[hashes[r] & mask];
    }
  }
  // Prefetches the first entry of row r's chain (its key or hash, and its link).
  auto prefetch_entry = [&](size_t r) {
    if (r >= n) return;
    const uint32_t b = first[r];
    if (b == kEmpty) return;
    if (int_fast_path_) {
      __builtin_prefetch(&build_int_keys_[b]);
    } else {
      __builtin_prefetch(&build_hashes_[b]);
    }
    __builtin_prefetch(&next[b]);
  };

  // Semi/anti joins without a residual only need to know whether a match exists.
  if (IsSemiOrAnti(type_) && !residual_) {
    std::vector<uint32_t> sel;
    sel.reserve(n);
    bool want = type_ == JoinType::kLeftSemi;
    for (size_t r = 0; r < n; ++r) {
      prefetch_entry(r + kPrefetchAhead);
      bool found = false;
      if (can_match.empty() || can_match[r]) {
        for (uint32_t b = first[r]; b != kEmpty; b = next[b]) {
          if (int_fast_path_ ? build_int_keys_[b] == ints[r]
                             : (build_hashes_[b] == hashes[r] &&
                                KeysEqualAt(keys, r, build_keys_, b, null_safe_))) {
            found = true;
            break;
          }
        }
      } else if (null_aware_anti_) {
        continue;  // NULL NOT IN (non-empty set) is NULL: the row is dropped
      }
      if (found == want) sel.push_back(static_cast<uint32_t>(r));
    }
    if (!sel.empty()) {
      outputs->emplace_back();
      GatherChunk(in, sel.data(), sel.size(), &outputs->back());
    }
    return Status::OK();
  }

  const bool emit_pairs = !IsSemiOrAnti(type_) && !IsRightSemiOrAnti(type_);
  const bool track_probe =
      type_ != JoinType::kInner && type_ != JoinType::kRightOuter && !IsRightSemiOrAnti(type_);
  const bool track_build = EmitsBuildRows(type_);
  std::vector<uint8_t> probe_matched(track_probe ? n : 0, 0);
  std::vector<uint32_t> ps, bs, sel;
  ps.reserve(kChunkRows + 64);
  bs.reserve(kChunkRows + 64);

  auto flush = [&]() -> Status {
    size_t m = ps.size();
    if (!int_fast_path_)
      m = FilterEqualKeys(keys, build_keys_, null_safe_, ps.data(), bs.data(), m);
    ps.resize(m);
    bs.resize(m);
    if (m == 0) return Status::OK();
    if (residual_) {
      DataChunk cand;
      GatherJoinPairs(in, ps.data(), build_data_, bs.data(), m, pair_schema_, num_left_, &cand);
      SILT_RETURN_NOT_OK(EvaluateFilter(*residual_, cand, ctx, &sel));
      for (uint32_t s : sel) {
        if (track_probe) probe_matched[ps[s]] = 1;
        if (track_build) MarkBuildMatched(bs[s]);
      }
      if (emit_pairs && !sel.empty()) {
        if (sel.size() == m) {
          outputs->push_back(std::move(cand));
        } else {
          outputs->emplace_back();
          GatherChunk(cand, sel.data(), sel.size(), &outputs->back());
        }
      }
    } else {
      for (size_t k = 0; k < m; ++k) {
        if (track_probe) probe_matched[ps[k]] = 1;
        if (track_build) MarkBuildMatched(bs[k]);
      }
      if (emit_pairs) {
        outputs->emplace_back();
        GatherJoinPairs(in, ps.data(), build_data_, bs.data(), m, schema_, num_left_,
                        &outputs->back());
      }
    }
    ps.clear();
    bs.clear();
    return Status::OK();
  };

  for (size_t r = 0; r < n; ++r) {
    prefetch_entry(r + kPrefetchAhead);
    if (!can_match.empty() && !can_match[r]) continue;
    const uint64_t h = hashes[r];
    for (uint32_t b = first[r]; b != kEmpty; b = next[b]) {
      bool candidate = int_fast_path_ ? build_int_keys_[b] == ints[r] : build_hashes_[b] == h;
      if (!candidate) continue;
      ps.push_back(static_cast<uint32_t>(r));
      bs.push_back(b);
      if (ps.size() >= kChunkRows) {
        SILT_RETURN_NOT_OK(flush());
      }
    }
  }
  SILT_RETURN_NOT_OK(flush());

  if (track_probe) {
    sel.clear();
    bool want = type_ == JoinType::kLeftSemi;  // outer and anti joins want the unmatched rows
    for (size_t r = 0; r < n; ++r) {
      if ((probe_matched[r] != 0) == want) sel.push_back(static_cast<uint32_t>(r));
    }
    if (!sel.empty()) {
      outputs->emplace_back();
      if (IsSemiOrAnti(type_)) {
        GatherChunk(in, sel.data(), sel.size(), &outputs->back());
      } else {
        GatherJoinPairs(in, sel.data(), build_data_, nullptr, sel.size(), schema_, num_left_,
                        &outputs->back());
      }
    }
  }
  return Status::OK();
}

void HashJoinOperator::EmitUnmatchedBuild(std::vector<DataChunk>* outputs) {
  std::vector<uint32_t> sel;
  const size_t n = build_data_.size();
  DataChunk no_left;
  // Right semi joins emit the matched rows; the others the unmatched ones.
  const uint8_t want = type_ == JoinType::kRightSemi ? 1 : 0;
  for (size_t r = 0; r < n; ++r) {
    if ((build_matched_[r] != 0) == (want != 0)) sel.push_back(static_cast<uint32_t>(r));
    if (sel.size() == kChunkRows || (r + 1 == n && !sel.empty())) {
      outputs->emplace_back();
      if (IsRightSemiOrAnti(type_)) {
        GatherChunk(build_data_, sel.data(), sel.size(), &outputs->back());
      } else {
        GatherJoinPairs(no_left, nullptr, build_data_, sel.data(), sel.size(), schema_, num_left_,
                        &outputs->back());
      }
      sel.clear();
    }
  }
}

Result<bool> HashJoinOperator::Next(ExecContext& ctx, DataChunk* out) {
  SILT_RETURN_NOT_OK(Build(ctx));
  if (grace_) return GraceNext(ctx, out);
  while (true) {
    if (!pending_.empty()) {
      *out = std::move(pending_.front());
      pending_.pop_front();
      return true;
    }
    if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
    if (probe_done_) {
      if (EmitsBuildRows(type_) && !unmatched_emitted_) {
        unmatched_emitted_ = true;
        std::vector<DataChunk> outs;
        EmitUnmatchedBuild(&outs);
        for (DataChunk& c : outs) pending_.push_back(std::move(c));
        continue;
      }
      return false;
    }
    const bool empty_build = build_data_.size() == 0;
    if ((empty_build && (type_ == JoinType::kInner || type_ == JoinType::kRightOuter ||
                         type_ == JoinType::kLeftSemi || IsRightSemiOrAnti(type_))) ||
        (null_aware_anti_ && !empty_build && build_has_null_key_)) {
      probe_done_ = true;  // no probe row can produce output: do not read the probe side
      continue;
    }
    size_t batch = ctx.pool ? 2 * (ctx.pool->num_threads() + 1) : 1;
    std::vector<DataChunk> inputs;
    while (inputs.size() < batch) {
      DataChunk chunk;
      SILT_ASSIGN_OR_RETURN(bool more, probe_->Next(ctx, &chunk));
      if (!more) {
        probe_done_ = true;
        break;
      }
      if (chunk.size()) inputs.push_back(std::move(chunk));
    }
    std::vector<std::vector<DataChunk>> outs(inputs.size());
    if (inputs.size() == 1 || !ctx.pool) {
      for (size_t i = 0; i < inputs.size(); ++i) {
        SILT_RETURN_NOT_OK(ProbeChunk(inputs[i], ctx.eval, &outs[i]));
      }
    } else {
      SILT_RETURN_NOT_OK(ctx.pool->ParallelFor(
          inputs.size(), [&](size_t i) { return ProbeChunk(inputs[i], ctx.eval, &outs[i]); }));
    }
    for (auto& list : outs) {
      for (DataChunk& c : list) {
        if (c.size()) pending_.push_back(std::move(c));
      }
    }
  }
}

namespace {
// Pushed probe chunks smaller than this are never split (slicing would cost more than it saves).
constexpr size_t kMinSplitProbeRows = 512;
}  // namespace

Result<bool> HashJoinOperator::PushAll(ExecContext& ctx, size_t workers, const ChunkSink& sink) {
  if (probe_done_ || !pending_.empty()) return false;  // already pulled from
  SILT_RETURN_NOT_OK(Build(ctx));
  if (grace_) return false;  // the grace join reads its probe side in Next()
  const bool empty_build = build_data_.size() == 0;
  const bool no_output =
      (empty_build && (type_ == JoinType::kInner || type_ == JoinType::kRightOuter ||
                       type_ == JoinType::kLeftSemi || IsRightSemiOrAnti(type_))) ||
      (null_aware_anti_ && !empty_build && build_has_null_key_);
  if (!no_output) {
    // A probe side that feeds fewer workers than there are threads (a small table read as one
    // work unit: TPC-H Q13's customer against orders) would leave the probe, often the costliest
    // step since each row can match many, on those workers. Once a pushing worker sees that
    // fewer workers than threads have pushed so far, it probes its chunks in row slices on the
    // pool (the sink still runs on the worker, which owns its per-worker state downstream).
    const size_t threads = ctx.pool ? ctx.pool->num_threads() + 1 : 1;
    std::atomic<uint64_t> pushers{0};  // bit w: worker w has pushed a chunk (w < 64)
    std::atomic<int64_t> chunks_seen{0};
    SILT_ASSIGN_OR_RETURN(
        bool pushed, probe_->PushAll(ctx, workers, [&](size_t w, DataChunk& chunk) -> Status {
          if (w < 64) pushers.fetch_or(uint64_t(1) << w, std::memory_order_relaxed);
          const int64_t seen = chunks_seen.fetch_add(1, std::memory_order_relaxed);
          // Early chunks do not tell yet whether other workers will push (they may still decode).
          const bool split =
              threads > 1 && seen >= static_cast<int64_t>(4 * threads) &&
              chunk.size() >= kMinSplitProbeRows &&
              static_cast<size_t>(std::popcount(pushers.load(std::memory_order_relaxed))) <
                  std::min<size_t>(threads, 64);
          if (!split) {
            std::vector<DataChunk> outs;
            SILT_RETURN_NOT_OK(ProbeChunk(chunk, ctx.eval, &outs));
            for (DataChunk& c : outs) {
              if (c.size()) SILT_RETURN_NOT_OK(sink(w, c));
            }
            return Status::OK();
          }
          const size_t n = chunk.size(), pieces = threads;
          std::vector<std::vector<DataChunk>> outs(pieces);
          SILT_RETURN_NOT_OK(ctx.pool->ParallelFor(pieces, [&](size_t p) -> Status {
            const size_t b = n * p / pieces, e = n * (p + 1) / pieces;
            if (b == e) return Status::OK();
            DataChunk slice;
            slice.num_rows_without_columns = chunk.columns.empty() ? e - b : 0;
            for (const Vector& col : chunk.columns) {
              slice.columns.emplace_back(col.type());
              slice.columns.back().AppendRange(col, b, e - b);
            }
            return ProbeChunk(slice, ctx.eval, &outs[p]);
          }));
          for (auto& list : outs) {
            for (DataChunk& c : list) {
              if (c.size()) SILT_RETURN_NOT_OK(sink(w, c));
            }
          }
          return Status::OK();
        }));
    if (!pushed) return false;  // Next() takes over (the build is kept)
  }
  probe_done_ = true;
  if (EmitsBuildRows(type_)) {
    unmatched_emitted_ = true;
    std::vector<DataChunk> outs;
    EmitUnmatchedBuild(&outs);
    for (DataChunk& c : outs) {
      if (c.size()) SILT_RETURN_NOT_OK(sink(0, c));
    }
  }
  return true;
}

const JoinBuildSummary* HashJoinOperator::build_summary() {
  if (!built_ || grace_) return nullptr;  // a grace join has no build side in memory
  if (!summary_done_) {
    summary_done_ = true;
    ComputeSummary();
  }
  return &summary_;
}

JoinKeySummary SummarizeKeys(const Vector& key, size_t max_distinct) {
  const size_t n = key.size();
  const Vector* v = &key;
  JoinKeySummary ks;
  const uint8_t* valid = v->validity();
  size_t min_row = 0, max_row = 0;
  // Distinct keys: a small open-addressing set of row ids, abandoned past the limit.
  const size_t slots_n = std::bit_ceil(std::max<size_t>(16, 2 * max_distinct + 2));
  std::vector<uint32_t> slots(slots_n, kEmpty);
  std::vector<uint32_t> distinct_rows;
  bool distinct_ok = true;
  const Vector* one[1] = {v};
  std::vector<bool> not_null_safe(1, false);
  uint64_t hashes[kChunkRows];
  for (size_t b = 0; b < n; b += kChunkRows) {
    size_t e = std::min(n, b + kChunkRows);
    if (distinct_ok) HashKeyColumns(one, b, e, hashes);
    for (size_t r = b; r < e; ++r) {
      if (valid && !valid[r]) {
        ks.has_nulls = true;
        continue;
      }
      if (ks.non_null_count == 0) {
        min_row = max_row = r;
      } else {
        if (CompareValues(*v, r, *v, min_row) < 0) min_row = r;
        if (CompareValues(*v, r, *v, max_row) > 0) max_row = r;
      }
      ++ks.non_null_count;
      if (!distinct_ok) continue;
      size_t s = hashes[r - b] & (slots_n - 1);
      while (slots[s] != kEmpty && !KeysEqualAt(one, r, one, slots[s], not_null_safe)) {
        s = (s + 1) & (slots_n - 1);
      }
      if (slots[s] == kEmpty) {
        if (distinct_rows.size() >= max_distinct) {
          distinct_ok = false;
          continue;
        }
        slots[s] = static_cast<uint32_t>(r);
        distinct_rows.push_back(static_cast<uint32_t>(r));
      }
    }
  }
  if (ks.non_null_count > 0) {
    ks.has_min_max = true;
    ks.min = v->GetValue(min_row);
    ks.max = v->GetValue(max_row);
  }
  ks.distinct_complete = distinct_ok;
  if (distinct_ok) {
    for (uint32_t r : distinct_rows) ks.distinct_values.push_back(v->GetValue(r));
  }
  return ks;
}

void HashJoinOperator::ComputeSummary() {
  summary_.build_rows = static_cast<int64_t>(build_data_.size());
  summary_.keys.clear();
  for (const Vector* v : build_keys_)
    summary_.keys.push_back(SummarizeKeys(*v, summary_max_distinct_));
}

}  // namespace silt::exec
