#include "exec/hash_aggregate.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <mutex>

#include "common/error_classes.h"
#include "common/logging.h"
#include "exec/aggregate_util.h"
#include "exec/sort.h"
#include "exec/spill.h"

namespace silt::exec {

// ------------------------------------------------------------------------- GroupHashTable

GroupHashTable::GroupHashTable(std::vector<TypePtr> key_types, size_t payload_bytes,
                               MemoryTracker* memory, std::string owner)
    : key_types_(std::move(key_types)),
      stride_((payload_bytes + 15) / 16 * 16),
      reservation_(memory, std::move(owner)) {
  for (const TypePtr& t : key_types_) keys_.emplace_back(t);
  if (key_types_.empty()) {
    path_ = Path::kNoKeys;
  } else if (key_types_.size() > 1) {
    path_ = Path::kGeneric;
  } else {
    switch (key_types_[0]->id()) {
      case TypeId::kBoolean:
      case TypeId::kInt8:
      case TypeId::kInt16:
        path_ = Path::kDirect;
        break;
      case TypeId::kInt32:
      case TypeId::kDate:
      case TypeId::kYearMonthInterval:
      case TypeId::kInt64:
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz:
      case TypeId::kTime:
      case TypeId::kTimestampNanos:
      case TypeId::kTimestampNtzNanos:
      case TypeId::kDayTimeInterval:
        path_ = Path::kSingleInt;
        break;
      default:
        path_ = Path::kGeneric;
    }
  }
  if (path_ == Path::kDirect) {
    size_t domain = key_types_[0]->id() == TypeId::kInt16  ? 65536
                    : key_types_[0]->id() == TypeId::kInt8 ? 256
                                                           : 2;
    direct_.assign(domain + 1, kNoGroup);  // last entry: the NULL key
  } else if (path_ == Path::kSingleInt) {
    islots_.assign(256, IntSlot{0, 0});
  } else if (path_ != Path::kNoKeys) {
    slots_.assign(256, 0);
  }
}

size_t GroupHashTable::MemoryUsage() const {
  size_t n = slots_.capacity() * sizeof(uint64_t) + islots_.capacity() * sizeof(IntSlot) +
             direct_.capacity() * sizeof(uint32_t) + group_hashes_.capacity() * sizeof(uint64_t) +
             blocks_.size() * kBlockGroups * stride_;
  for (const Vector& v : keys_) n += v.MemoryUsage();
  return n;
}

Status GroupHashTable::Account() {
  return reservation_.Resize(static_cast<int64_t>(MemoryUsage()));
}

uint32_t GroupHashTable::NewGroup(uint64_t hash) {
  uint32_t g = static_cast<uint32_t>(group_hashes_.size());
  group_hashes_.push_back(hash);
  // Blocks exist with a zero stride too (an aggregate with no aggregate calls, e.g. GROUP BY
  // alone): payload(g) must stay a valid pointer.
  if ((g >> kBlockShift) == blocks_.size()) {
    blocks_.emplace_back(new uint8_t[kBlockGroups * stride_]);
  }
  return g;
}

void GroupHashTable::Grow(size_t min_groups) {
  if (path_ == Path::kSingleInt) {
    if (min_groups * 2 <= islots_.size()) return;
    size_t cap = islots_.size();
    while (cap < min_groups * 2) cap *= 2;
    islots_.assign(cap, IntSlot{0, 0});
    size_t mask = cap - 1;
    bool narrow = key_types_[0]->fixed_width() == 4;
    for (size_t g = 0; g < group_hashes_.size(); ++g) {
      if (g == null_group_) continue;
      size_t s = group_hashes_[g] & mask;
      while (islots_[s].group_plus1) s = (s + 1) & mask;
      int64_t key = narrow ? keys_[0].data<int32_t>()[g] : keys_[0].data<int64_t>()[g];
      islots_[s] = IntSlot{key, static_cast<uint32_t>(g + 1)};
    }
    return;
  }
  if (min_groups * 2 <= slots_.size()) return;
  size_t cap = slots_.size();
  while (cap < min_groups * 2) cap *= 2;
  slots_.assign(cap, 0);
  size_t mask = cap - 1;
  for (size_t g = 0; g < group_hashes_.size(); ++g) {
    uint64_t h = group_hashes_[g];
    size_t s = h & mask;
    while (slots_[s]) s = (s + 1) & mask;
    slots_[s] = ((h >> 32) << 32) | (g + 1);
  }
}

template <typename T>
void GroupHashTable::ProbeDirect(const Vector& key, const uint32_t* sel, size_t n, bool create,
                                 uint32_t* groups) {
  using U = std::make_unsigned_t<T>;
  const T* d = key.data<T>();
  const uint8_t* valid = key.validity();
  const size_t null_idx = direct_.size() - 1;
  for (size_t k = 0; k < n; ++k) {
    size_t r = sel ? sel[k] : k;
    size_t idx = (valid && !valid[r]) ? null_idx : static_cast<size_t>(static_cast<U>(d[r]));
    uint32_t g = direct_[idx];
    if (g == kNoGroup && create) {
      g = NewGroup(HashValueAt(key, r));
      keys_[0].AppendRange(key, r, 1);
      direct_[idx] = g;
    }
    groups[k] = g;
  }
}

template <typename T>
void GroupHashTable::ProbeSingle(const Vector& key, const uint32_t* sel, size_t n,
                                 const uint64_t* hashes, bool create, uint32_t* groups) {
  const T* d = key.data<T>();
  const uint8_t* valid = key.validity();
  const size_t mask = islots_.size() - 1;
  IntSlot* slots = islots_.data();
  Vector& store = keys_[0];
  constexpr size_t kAhead = 16;  // prefetch distance: probes are latency-bound on large tables
  for (size_t k = 0; k < n; ++k) {
    if (k + kAhead < n) __builtin_prefetch(&slots[hashes[k + kAhead] & mask]);
    size_t r = sel ? sel[k] : k;
    if (valid && !valid[r]) {
      if (null_group_ == kNoGroup && create) {
        null_group_ = NewGroup(hashes[k]);
        store.AppendNull();
      }
      groups[k] = null_group_;
      continue;
    }
    // The key lives in the slot, so a probe touches one cache line.
    const int64_t v = d[r];
    size_t s = hashes[k] & mask;
    while (true) {
      IntSlot& e = slots[s];
      if (e.group_plus1 == 0) {
        if (create) {
          uint32_t g = NewGroup(hashes[k]);
          store.Append<T>(static_cast<T>(v));
          e = IntSlot{v, g + 1};
          groups[k] = g;
        } else {
          groups[k] = kNoGroup;
        }
        break;
      }
      if (e.key == v) {
        groups[k] = e.group_plus1 - 1;
        break;
      }
      s = (s + 1) & mask;
    }
  }
}

void GroupHashTable::ProbeGeneric(std::span<const Vector* const> keys, const uint32_t* sel,
                                  size_t n, const uint64_t* hashes, bool create, uint32_t* groups) {
  rows_.resize(n);
  cand_group_.resize(n);
  slot_.resize(n);
  remaining_.resize(n);
  next_.resize(n);
  cmp_.resize(n);
  miss_.resize(n);
  const size_t mask = slots_.size() - 1;
  for (size_t k = 0; k < n; ++k) {
    rows_[k] = sel ? sel[k] : static_cast<uint32_t>(k);
    slot_[k] = static_cast<uint32_t>(hashes[k] & mask);
    remaining_[k] = static_cast<uint32_t>(k);
  }
  size_t nrem = n;
  while (nrem) {
    // Pass 1: walk each row to an empty slot (claim it: new group) or a tag match (candidate).
    size_t ncmp = 0;
    new_rows_.clear();
    for (size_t i = 0; i < nrem; ++i) {
      if (i + 16 < nrem) __builtin_prefetch(&slots_[slot_[remaining_[i + 16]]]);
      uint32_t k = remaining_[i];
      uint32_t tag = static_cast<uint32_t>(hashes[k] >> 32);
      size_t s = slot_[k];
      while (true) {
        uint64_t e = slots_[s];
        if (e == 0) {
          if (create) {
            uint32_t g = NewGroup(hashes[k]);
            slots_[s] = (static_cast<uint64_t>(tag) << 32) | (g + 1);
            groups[k] = g;
            new_rows_.push_back(rows_[k]);
          } else {
            groups[k] = kNoGroup;
          }
          break;
        }
        if (static_cast<uint32_t>(e >> 32) == tag) {
          cand_group_[k] = static_cast<uint32_t>(e) - 1;
          cmp_[ncmp++] = k;
          break;
        }
        s = (s + 1) & mask;
      }
      slot_[k] = static_cast<uint32_t>(s);
    }
    // New keys are stored before comparing, so later rows of this chunk find them.
    if (!new_rows_.empty()) {
      for (size_t c = 0; c < keys_.size(); ++c) {
        keys_[c].AppendSelected(*keys[c], new_rows_.data(), new_rows_.size());
      }
    }
    // Pass 2: compare candidates column by column; mismatches probe on from the next slot.
    size_t nmiss = 0, m = ncmp;
    for (size_t c = 0; c < keys_.size() && m > 0; ++c) {
      m = MatchColumn(*keys[c], rows_.data(), keys_[c], cand_group_.data(), cmp_.data(), m,
                      NullEquality::kNullsEqual, miss_.data(), &nmiss);
    }
    for (size_t i = 0; i < m; ++i) groups[cmp_[i]] = cand_group_[cmp_[i]];
    for (size_t i = 0; i < nmiss; ++i) {
      uint32_t k = miss_[i];
      slot_[k] = static_cast<uint32_t>((slot_[k] + 1) & mask);
      next_[i] = k;
    }
    std::swap(remaining_, next_);
    nrem = nmiss;
  }
}

Status GroupHashTable::FindOrCreate(std::span<const Vector* const> keys, const uint32_t* sel,
                                    size_t n, const uint64_t* hashes, bool create,
                                    uint32_t* groups) {
  if (n == 0) return Status::OK();
  SILT_CHECK(keys.size() == keys_.size());
  if (path_ == Path::kNoKeys) {
    if (group_hashes_.empty()) {
      if (!create) {
        std::fill(groups, groups + n, kNoGroup);
        return Status::OK();
      }
      NewGroup(kNullHash);
    }
    std::fill(groups, groups + n, 0u);
    return Account();
  }
  if (path_ == Path::kDirect) {
    switch (key_types_[0]->id()) {
      case TypeId::kInt16:
        ProbeDirect<int16_t>(*keys[0], sel, n, create, groups);
        break;
      case TypeId::kInt8:
        ProbeDirect<int8_t>(*keys[0], sel, n, create, groups);
        break;
      default:
        ProbeDirect<uint8_t>(*keys[0], sel, n, create, groups);
        break;
    }
    return Account();
  }
  if (!hashes) {
    hbuf_.resize(n);
    for (size_t c = 0; c < keys.size(); ++c) {
      if (sel) {
        HashColumnSelected(*keys[c], sel, n, hbuf_.data(), c > 0);
      } else {
        HashColumn(*keys[c], n, hbuf_.data(), c > 0);
      }
    }
    hashes = hbuf_.data();
  }
  if (create) {
    // Reserve what growing for n more groups will hold at its peak before allocating it: a
    // rehash keeps the old slots until the new ones are filled, and a vector that doubles holds
    // both buffers while it copies.
    size_t want = size() + n;
    int64_t extra = 0;
    bool single = path_ == Path::kSingleInt;
    size_t have = single ? islots_.size() : slots_.size();
    if (want * 2 > have) {
      size_t cap = have;
      while (cap < want * 2) cap *= 2;
      extra += static_cast<int64_t>(cap * (single ? sizeof(IntSlot) : sizeof(uint64_t)));
    }
    if (want > group_hashes_.capacity()) {
      size_t cap = std::max(want, group_hashes_.capacity() * 2);
      extra += static_cast<int64_t>(cap * sizeof(uint64_t));
      for (const Vector& k : keys_)
        extra += static_cast<int64_t>(cap) * std::max(k.type()->fixed_width(), 8);
    }
    if (stride_) extra += static_cast<int64_t>(kBlockGroups * stride_);
    if (extra) SILT_RETURN_NOT_OK(reservation_.Resize(static_cast<int64_t>(MemoryUsage()) + extra));
    Grow(want);
  }
  if (path_ == Path::kSingleInt) {
    TypeId id = key_types_[0]->id();
    if (id == TypeId::kInt32 || id == TypeId::kDate || id == TypeId::kYearMonthInterval) {
      ProbeSingle<int32_t>(*keys[0], sel, n, hashes, create, groups);
    } else {
      ProbeSingle<int64_t>(*keys[0], sel, n, hashes, create, groups);
    }
  } else {
    ProbeGeneric(keys, sel, n, hashes, create, groups);
  }
  // Without creating, nothing grew: no accounting. (After a limit hit while creating, the groups
  // exist but their key bytes (strings) may not be reserved; a spilling aggregate then freezes
  // the table and must still find its groups here, over the limit by at most that chunk's keys.)
  if (!create) return Status::OK();
  return Account();
}

// ------------------------------------------------------------------------- AggTable

// One partial (or merged) aggregation table: the group table plus the aggregate states in its
// payload, evaluated inputs per chunk, and Combine-based merging.
class HashAggregateOperator::AggTable {
 public:
  AggTable(const HashAggregateOperator& op, MemoryTracker* memory)
      : op_(op),
        table_(op.table_key_types_, op.payload_bytes_, memory, op.name()),
        heap_(memory, op.name()) {
    for (size_t a = 0; a < op_.aggs_.size(); ++a) {
      if (op_.aggs_[a].agg.function->has_heap_state()) heap_aggs_.push_back(a);
    }
  }
  ~AggTable() {
    for (uint32_t g = 0; g < table_.size(); ++g) {
      uint8_t* p = table_.payload(g);
      for (size_t a = 0; a < op_.aggs_.size(); ++a)
        op_.aggs_[a].agg.function->Destroy(p + op_.offsets_[a]);
    }
  }
  size_t size() const { return table_.size(); }
  GroupHashTable& table() { return table_; }
  const HashAggregateOperator& op() const { return op_; }

  void InitNew(size_t from) {
    for (size_t g = from; g < table_.size(); ++g) {
      uint8_t* p = table_.payload(static_cast<uint32_t>(g));
      for (size_t a = 0; a < op_.aggs_.size(); ++a)
        op_.aggs_[a].agg.function->Init(p + op_.offsets_[a]);
    }
  }

  Status EnsureGlobalGroup() {
    if (table_.size() > 0) return Status::OK();
    uint32_t g;
    Status st = table_.FindOrCreate({}, nullptr, 1, nullptr, true, &g);
    InitNew(0);  // the groups exist even when accounting failed: the destructor destroys them
    return st;
  }

  // Aggregates the rows of `in`. Frozen (after a memory limit hit with spilling): no new groups;
  // rows of groups the table lacks go to the spill partitions (AddFrozen).
  Status AddChunk(const DataChunk& in, const ExecContext& ctx) {
    return frozen_ ? AddFrozen(in, ctx) : AddChunkImpl(in, ctx);
  }

  // AddChunk, and on a memory limit hit with `spill` set: freezes the table and spills what of
  // the chunk is not in yet (nothing when the limit was hit only by the states' heap growth
  // after the update). A frozen table that hits the limit again fails: spilling cannot help.
  // A table past `budget` bytes (>= 0) freezes as well, leaving the rest of the limit to the
  // other operators.
  Status AddOrSpill(const DataChunk& in, const ExecContext& ctx, PartitionedSpill* spill,
                    int64_t budget) {
    Status s = AddChunk(in, ctx);
    if (s.ok()) {
      if (spill && !frozen_ && budget >= 0 &&
          static_cast<int64_t>(table_.MemoryUsage()) + heap_bytes_ > budget) {
        frozen_ = true;
        spill_ = spill;
      }
      return s;
    }
    if (frozen_ || !spill || s.code() != StatusCode::kOutOfMemory) return s;
    frozen_ = true;
    spill_ = spill;
    if (update_started_) return Status::OK();
    return AddFrozen(in, ctx);
  }
  bool frozen() const { return frozen_; }

  Status AddChunkImpl(const DataChunk& in, const ExecContext& ctx) {
    const size_t n = in.size();
    update_started_ = false;
    if (n == 0) return Status::OK();
    const EvalContext& ev = ctx.eval;
    std::deque<Vector> owned;  // stable addresses
    auto eval = [&](const ExprPtr& e, bool allow_constant, Arg* arg) -> Status {
      if (e->kind == ExprKind::kColumn) {
        *arg = Arg{&in.columns[e->column], false};
        return Status::OK();
      }
      owned.emplace_back(e->type);
      if (allow_constant && e->kind == ExprKind::kConstant) {
        SILT_RETURN_NOT_OK(owned.back().AppendValue(e->constant));
        *arg = Arg{&owned.back(), true};
        return Status::OK();
      }
      SILT_RETURN_NOT_OK(Evaluate(*e, in, ev, &owned.back()));
      *arg = Arg{&owned.back(), false};
      return Status::OK();
    };
    const size_t nk = op_.keys_.size();
    std::vector<const Vector*> key_vecs(nk);
    for (size_t k = 0; k < nk; ++k) {
      Arg a;
      SILT_RETURN_NOT_OK(eval(op_.keys_[k], false, &a));
      key_vecs[k] = a.vector;
    }
    const size_t na = op_.aggs_.size();
    std::vector<std::vector<Arg>> args(na);
    std::vector<std::vector<uint32_t>> sels(na);
    for (size_t a = 0; a < na; ++a) {
      const AggregateSpec& spec = op_.aggs_[a];
      for (const ExprPtr& e : spec.agg.args) {
        Arg arg;
        SILT_RETURN_NOT_OK(eval(e, true, &arg));
        args[a].push_back(arg);
      }
      if (spec.filter) {
        SILT_RETURN_NOT_OK(EvaluateFilter(*spec.filter, in, ev, &sels[a]));
        if (sels[a].size() == n) continue;  // every row passes: no compaction
        for (Arg& arg : args[a]) {
          if (arg.constant) continue;
          owned.emplace_back(arg.vector->type());
          owned.back().AppendSelected(*arg.vector, sels[a].data(), sels[a].size());
          arg = Arg{&owned.back(), false};
        }
      }
    }
    const bool multi = op_.sets_.size() > 1;
    std::vector<const Vector*> set_keys;
    std::vector<Vector*> null_keys(nk, nullptr);
    groups_.resize(n);
    base_.resize(n);
    states_.resize(n);
    for (size_t s = 0; s < op_.sets_.size(); ++s) {
      set_keys.clear();
      for (size_t k = 0; k < nk; ++k) {
        bool present = std::find(op_.sets_[s].begin(), op_.sets_[s].end(), static_cast<int>(k)) !=
                       op_.sets_[s].end();
        if (present) {
          set_keys.push_back(key_vecs[k]);
          continue;
        }
        if (!null_keys[k]) {
          owned.emplace_back(key_vecs[k]->type());
          Vector& v = owned.back();
          v.Resize(n);
          std::memset(v.mutable_validity(), 0, n);
          null_keys[k] = &v;
        }
        set_keys.push_back(null_keys[k]);
      }
      if (multi) {
        owned.emplace_back(DataType::Int64());
        Vector& gid = owned.back();
        gid.ResizeUninitialized(n);
        std::fill(gid.data<int64_t>(), gid.data<int64_t>() + n, op_.set_ids_[s]);
        set_keys.push_back(&gid);
      }
      size_t old = table_.size();
      // Frozen: AddFrozen passes only rows whose groups exist.
      Status st = table_.FindOrCreate(set_keys, nullptr, n, nullptr, !frozen_, groups_.data());
      InitNew(old);  // also on a memory limit hit (the groups were created; see EnsureGlobalGroup)
      SILT_RETURN_NOT_OK(st);
      update_started_ = true;
      for (size_t i = 0; i < n; ++i) base_[i] = table_.payload(groups_[i]);
      int64_t heap_before = HeapBefore(groups_.data(), n);
      for (size_t a = 0; a < na; ++a) {
        const AggregateFunction& fn = *op_.aggs_[a].agg.function;
        const size_t off = op_.offsets_[a];
        size_t rows = n;
        if (op_.aggs_[a].filter && sels[a].size() != n) {
          rows = sels[a].size();
          for (size_t i = 0; i < rows; ++i) states_[i] = base_[sels[a][i]] + off;
        } else {
          for (size_t i = 0; i < n; ++i) states_[i] = base_[i] + off;
        }
        if (rows == 0) continue;
        SILT_RETURN_NOT_OK(fn.Update(args[a], rows, states_.data(), ev));
      }
      SILT_RETURN_NOT_OK(AccountHeap(heap_before));
    }
    return Status::OK();
  }

  // Frozen: rows of existing groups are aggregated, the others spilled by their key hash.
  Status AddFrozen(const DataChunk& in, const ExecContext& ctx) {
    const size_t n = in.size();
    if (n == 0) return Status::OK();
    std::deque<Vector> owned;
    std::vector<const Vector*> key_vecs;
    for (const ExprPtr& e : op_.keys_) {
      owned.emplace_back(e->type);
      const Vector* v = nullptr;
      SILT_RETURN_NOT_OK(EvaluateOrReference(*e, in, ctx.eval, &owned.back(), &v));
      key_vecs.push_back(v);
    }
    hashes_.resize(n);
    HashRows(key_vecs, n, hashes_.data());
    groups_.resize(n);
    SILT_RETURN_NOT_OK(
        table_.FindOrCreate(key_vecs, nullptr, n, hashes_.data(), false, groups_.data()));
    std::vector<uint32_t> found, missing;
    std::vector<uint64_t> missing_hashes;
    for (size_t i = 0; i < n; ++i) {
      if (groups_[i] == kNoGroup) {
        missing.push_back(static_cast<uint32_t>(i));
        missing_hashes.push_back(hashes_[i]);
      } else {
        found.push_back(static_cast<uint32_t>(i));
      }
    }
    SILT_RETURN_NOT_OK(spill_->Append(in, missing.data(), missing.size(), missing_hashes.data()));
    if (found.empty()) return Status::OK();
    if (found.size() == n) return AddChunkImpl(in, ctx);
    DataChunk sub;
    GatherChunk(in, found.data(), found.size(), &sub);
    return AddChunkImpl(sub, ctx);
  }

  // Combines the groups ids[0..n) of src into this table.
  Status MergeFrom(AggTable& src, const uint32_t* ids, size_t n, const EvalContext& ev) {
    std::vector<const Vector*> keys;
    for (const Vector& v : src.table_.keys()) keys.push_back(&v);
    hashes_.resize(n);
    groups_.resize(n);
    const std::vector<uint64_t>& sh = src.table_.hashes();
    for (size_t k = 0; k < n; ++k) hashes_[k] = sh[ids[k]];
    size_t old = table_.size();
    Status st = table_.FindOrCreate(keys, ids, n, hashes_.data(), true, groups_.data());
    InitNew(old);
    SILT_RETURN_NOT_OK(st);
    int64_t heap_before = HeapBefore(groups_.data(), n);
    for (size_t a = 0; a < op_.aggs_.size(); ++a) {
      const AggregateFunction& fn = *op_.aggs_[a].agg.function;
      const size_t off = op_.offsets_[a];
      for (size_t k = 0; k < n; ++k) {
        SILT_RETURN_NOT_OK(
            fn.Combine(src.table_.payload(ids[k]) + off, table_.payload(groups_[k]) + off, ev));
      }
    }
    return AccountHeap(heap_before);
  }

  // Distinct mode: folds the groups ids[0..n) of a phase-one table (keys: this table's nk keys,
  // then the distinct arguments; states of the non-distinct aggregates) into this table. Per
  // aggregate a, src_agg[a] is its index among phase one's aggregates (Combine), or -1 for a
  // distinct one, whose inner function is updated with the group's distinct arguments when none
  // of them is NULL (each (keys, arguments) tuple is one phase-one group, so it comes once).
  Status MergeDistinct(AggTable& src, const std::vector<int>& src_agg, size_t nk,
                       const uint32_t* ids, size_t n, const EvalContext& ev) {
    const std::vector<Vector>& sk = src.table_.keys();
    std::vector<const Vector*> keys;
    for (size_t k = 0; k < nk; ++k) keys.push_back(&sk[k]);
    groups_.resize(n);
    // Existing groups first, then only the misses create: the table reserves room for as many
    // new groups as rows it is asked to create, and many tuples share a group here (a global
    // aggregate: all of them).
    SILT_RETURN_NOT_OK(table_.FindOrCreate(keys, ids, n, nullptr, false, groups_.data()));
    std::vector<uint32_t> miss_pos, miss_ids;
    for (size_t k = 0; k < n; ++k) {
      if (groups_[k] != kNoGroup) continue;
      miss_pos.push_back(static_cast<uint32_t>(k));
      miss_ids.push_back(ids[k]);
    }
    if (!miss_pos.empty()) {
      std::vector<uint32_t> created(miss_pos.size());
      size_t old = table_.size();
      Status st = table_.FindOrCreate(keys, miss_ids.data(), miss_ids.size(), nullptr, true,
                                      created.data());
      InitNew(old);
      SILT_RETURN_NOT_OK(st);
      for (size_t i = 0; i < miss_pos.size(); ++i) groups_[miss_pos[i]] = created[i];
    }
    int64_t heap_before = HeapBefore(groups_.data(), n);
    std::vector<uint32_t> rows;  // ids of the groups whose distinct arguments are all non-NULL
    std::vector<uint32_t> pos;   // their positions k
    std::vector<Vector> xs;
    std::vector<Arg> xargs;
    bool built = false;
    for (size_t a = 0; a < op_.aggs_.size(); ++a) {
      const AggregateFunction& fn = *op_.aggs_[a].agg.function;
      const size_t off = op_.offsets_[a];
      if (src_agg[a] >= 0) {
        const size_t soff = src.op_.offsets_[src_agg[a]];
        for (size_t k = 0; k < n; ++k) {
          SILT_RETURN_NOT_OK(
              fn.Combine(src.table_.payload(ids[k]) + soff, table_.payload(groups_[k]) + off, ev));
        }
        continue;
      }
      if (!built) {
        built = true;
        for (size_t k = 0; k < n; ++k) {
          bool null = false;
          for (size_t c = nk; c < sk.size() && !null; ++c) null = sk[c].IsNull(ids[k]);
          if (null) continue;
          rows.push_back(ids[k]);
          pos.push_back(static_cast<uint32_t>(k));
        }
        xs.reserve(sk.size() - nk);
        for (size_t c = nk; c < sk.size(); ++c) {
          xs.emplace_back(sk[c].type());
          xs.back().AppendSelected(sk[c], rows.data(), rows.size());
        }
        for (const Vector& v : xs) xargs.push_back(Arg{&v, false});
      }
      if (rows.empty()) continue;
      states_.resize(rows.size());
      for (size_t i = 0; i < rows.size(); ++i) states_[i] = table_.payload(groups_[pos[i]]) + off;
      SILT_RETURN_NOT_OK(fn.Update(xargs, rows.size(), states_.data(), ev));
    }
    return AccountHeap(heap_before);
  }

 private:
  // Heap bytes of the states outside the table (collect_list, DISTINCT, percentile): measured
  // on the groups a chunk touches, before and after its update, so the cost is per chunk row.
  int64_t HeapOfTouched() const {
    int64_t n = 0;
    for (uint32_t g : touched_) {
      const uint8_t* p = table_.payload(g);
      for (size_t a : heap_aggs_)
        n += static_cast<int64_t>(op_.aggs_[a].agg.function->HeapBytes(p + op_.offsets_[a]));
    }
    return n;
  }
  int64_t HeapBefore(const uint32_t* groups, size_t n) {
    if (heap_aggs_.empty()) return 0;
    // Runs of one group (a global aggregate: every row) collapse before the sort.
    touched_.clear();
    for (size_t i = 0; i < n; ++i)
      if (touched_.empty() || touched_.back() != groups[i]) touched_.push_back(groups[i]);
    std::sort(touched_.begin(), touched_.end());
    touched_.erase(std::unique(touched_.begin(), touched_.end()), touched_.end());
    return HeapOfTouched();
  }
  Status AccountHeap(int64_t before) {
    if (heap_aggs_.empty()) return Status::OK();
    heap_bytes_ += HeapOfTouched() - before;
    return heap_.Resize(heap_bytes_);
  }

  const HashAggregateOperator& op_;
  bool frozen_ = false;          // a memory limit was hit: no new groups (spilling)
  bool update_started_ = false;  // the last AddChunkImpl got to updating states
  PartitionedSpill* spill_ = nullptr;
  GroupHashTable table_;
  MemoryReservation heap_;
  std::vector<size_t> heap_aggs_;  // aggregates with heap states
  std::vector<uint32_t> touched_;
  int64_t heap_bytes_ = 0;
  std::vector<uint32_t> groups_;
  std::vector<uint64_t> hashes_;
  std::vector<uint8_t*> base_, states_;
};

// ------------------------------------------------------------------------- operator

HashAggregateOperator::HashAggregateOperator(OperatorPtr child, std::vector<ExprPtr> group_keys,
                                             std::vector<AggregateSpec> aggregates,
                                             std::vector<std::vector<int>> grouping_sets)
    : child_(std::move(child)),
      keys_(std::move(group_keys)),
      aggs_(std::move(aggregates)),
      sets_(std::move(grouping_sets)) {
  const int nk = static_cast<int>(keys_.size());
  if (sets_.empty()) {
    sets_.emplace_back();
    for (int k = 0; k < nk; ++k) sets_[0].push_back(k);
  }
  std::vector<bool> always(nk, true);
  for (const auto& set : sets_) {
    int64_t id = 0;
    for (int k = 0; k < nk; ++k) {
      bool present = std::find(set.begin(), set.end(), k) != set.end();
      if (!present) {
        id |= int64_t{1} << (nk - 1 - k);
        always[k] = false;
      }
    }
    for (int k : set) SILT_CHECK(k >= 0 && k < nk);
    // A grouping set listed again (GROUP BY a, GROUPING SETS ((a), ())) makes its own groups, as
    // Spark's _gen_grouping_pos does: its repeats are told apart by the bits above the keys'.
    const int64_t repeats = std::count(set_ids_.begin(), set_ids_.end(), id) +
                            std::count_if(set_ids_.begin(), set_ids_.end(), [&](int64_t o) {
                              return nk < 48 && o != id && (o & ((int64_t{1} << nk) - 1)) == id;
                            });
    if (repeats > 0 && nk < 48) id |= repeats << nk;
    set_ids_.push_back(id);
  }
  for (int k = 0; k < nk; ++k) {
    const ExprPtr& e = keys_[k];
    std::string nm = e->kind == ExprKind::kColumn ? e->name : e->ToString();
    schema_.push_back(Field{nm, e->type, e->nullable || !always[k], ""});
    table_key_types_.push_back(e->type);
  }
  if (sets_.size() > 1) {
    schema_.push_back(Field{"spark_grouping_id", DataType::Int64(), false, ""});
    table_key_types_.push_back(DataType::Int64());
  }
  for (const AggregateSpec& a : aggs_) {
    offsets_.push_back(payload_bytes_);
    payload_bytes_ += (a.agg.function->state_size() + 15) / 16 * 16;
    schema_.push_back(Field{a.name, a.agg.function->result_type(), true, ""});
  }
}

HashAggregateOperator::~HashAggregateOperator() = default;

std::string HashAggregateOperator::details() const {
  std::string s = "keys=[";
  for (size_t k = 0; k < keys_.size(); ++k) s += (k ? ", " : "") + keys_[k]->ToString();
  s += "], functions=[";
  for (size_t a = 0; a < aggs_.size(); ++a) s += (a ? ", " : "") + aggs_[a].name;
  s += "]";
  if (sets_.size() > 1) s += ", grouping sets=" + std::to_string(sets_.size());
  return s;
}

Status HashAggregateOperator::Consume(ExecContext& ctx) {
  if (ctx.spill && ctx.spill->CanSpill() && CanSpillDistinct()) return ConsumeDistinct(ctx);
  if (ctx.spill && ctx.spill->CanSpill() && sets_.size() == 1 && !keys_.empty()) {
    return ConsumeSpilling(ctx);
  }
  size_t workers = ctx.pool ? std::max<size_t>(1, ctx.pool->num_threads()) : 1;
  // A parallel source pushes straight into per-worker tables (the caller's thread is a worker).
  const size_t push_workers = ctx.pool ? ctx.pool->num_threads() + 1 : 1;
  for (size_t w = 0; w < push_workers; ++w)
    partials_.push_back(std::make_unique<AggTable>(*this, ctx.memory));
  const Schema& in_schema = child_->output_schema();
  SILT_ASSIGN_OR_RETURN(bool pushed,
                        child_->PushAll(ctx, push_workers, [&](size_t w, DataChunk& chunk) {
                          return partials_[w]->AddChunk(chunk, ctx);
                        }));
  if (pushed) {
    // merged below
  } else if (workers == 1) {
    DataChunk chunk = DataChunk::FromSchema(in_schema);
    while (true) {
      if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
      SILT_ASSIGN_OR_RETURN(bool more, child_->Next(ctx, &chunk));
      if (!more) break;
      SILT_RETURN_NOT_OK(partials_[0]->AddChunk(chunk, ctx));
    }
  } else {
    // Batches of chunks; worker w aggregates chunks w, w+W, ... into its own partial table.
    std::vector<DataChunk> batch;
    bool more = true;
    while (more) {
      batch.clear();
      // Large batches: each ParallelFor round trip costs a wake-up of the workers.
      while (batch.size() < 16 * workers) {
        if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
        DataChunk chunk = DataChunk::FromSchema(in_schema);
        SILT_ASSIGN_OR_RETURN(more, child_->Next(ctx, &chunk));
        if (!more) break;
        batch.push_back(std::move(chunk));
      }
      if (batch.empty()) break;
      SILT_RETURN_NOT_OK(ctx.pool->ParallelFor(workers, [&](size_t w) -> Status {
        for (size_t j = w; j < batch.size(); j += workers) {
          SILT_RETURN_NOT_OK(partials_[w]->AddChunk(batch[j], ctx));
        }
        return Status::OK();
      }));
    }
  }
  SILT_RETURN_NOT_OK(Merge(ctx));
  if (keys_.empty() && sets_.size() == 1) {
    size_t groups = 0;
    for (const auto& r : results_) groups += r->size();
    if (groups == 0) {
      results_.clear();
      results_.push_back(std::make_unique<AggTable>(*this, ctx.memory));
      SILT_RETURN_NOT_OK(results_[0]->EnsureGlobalGroup());
    }
  }
  return Status::OK();
}

Status HashAggregateOperator::Merge(ExecContext& ctx) {
  size_t nonempty = 0;
  for (const auto& p : partials_) nonempty += p->size() > 0;
  if (nonempty <= 1) {
    for (auto& p : partials_) {
      if (p->size() > 0) results_.push_back(std::move(p));
    }
    partials_.clear();
    return Status::OK();
  }
  // Radix-partition every partial's groups by hash; each partition merges on its own task.
  size_t parts = 8;
  while (parts < 2 * partials_.size()) parts *= 2;
  std::vector<std::vector<std::vector<uint32_t>>> lists(partials_.size(),
                                                        std::vector<std::vector<uint32_t>>(parts));
  for (size_t t = 0; t < partials_.size(); ++t) {
    const std::vector<uint64_t>& h = partials_[t]->table().hashes();
    for (size_t g = 0; g < h.size(); ++g)
      lists[t][(h[g] >> 40) & (parts - 1)].push_back(static_cast<uint32_t>(g));
  }
  results_.clear();
  for (size_t p = 0; p < parts; ++p)
    results_.push_back(std::make_unique<AggTable>(*this, ctx.memory));
  SILT_RETURN_NOT_OK(ctx.pool->ParallelFor(parts, [&](size_t p) -> Status {
    for (size_t t = 0; t < partials_.size(); ++t) {
      const std::vector<uint32_t>& ids = lists[t][p];
      for (size_t i = 0; i < ids.size(); i += kChunkRows) {
        if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
        size_t cnt = std::min(kChunkRows, ids.size() - i);
        SILT_RETURN_NOT_OK(results_[p]->MergeFrom(*partials_[t], ids.data() + i, cnt, ctx.eval));
      }
    }
    return Status::OK();
  }));
  partials_.clear();
  return Status::OK();
}

// ------------------------------------------------------------------------- spilling
//
// Under a memory limit with spilling on (ctx.spill), groups are radix-partitioned by key hash
// into one table per partition (each key lives in exactly one table; workers lock the table of
// each partition of their chunk). A table that hits the limit freezes: rows of its groups are
// still aggregated, rows of new groups are written to spill partitions by another slice of
// their hash. After the in-memory groups are emitted (and freed), each spill partition is
// aggregated on its own the same way (a partition that does not fit is split again by the next
// bits). The error remains when even one partition of the last split does not fit.

namespace {
constexpr int kTablePartitionShift = 40;  // bits 40..43 pick the in-memory table
constexpr int kFirstSpillShift = 44;      // spill partitions: 4 bits from here, then the next 4…
constexpr int kSpillBits = 4;
}  // namespace

Status HashAggregateOperator::ConsumeSpilling(ExecContext& ctx) {
  const Schema& in_schema = child_->output_schema();
  spill_ = std::make_unique<PartitionedSpill>(ctx.spill, in_schema, kSpillBits, kFirstSpillShift);
  const size_t workers = ctx.pool ? ctx.pool->num_threads() + 1 : 1;
  size_t parts = 1;
  while (workers > 1 && parts < 2 * workers && parts < 16) parts *= 2;
  for (size_t p = 0; p < parts; ++p) {
    partials_.push_back(std::make_unique<AggTable>(*this, ctx.memory));
  }
  std::unique_ptr<std::mutex[]> locks(new std::mutex[parts]);
  const int64_t all = SpillBudget(ctx.memory, ctx.spill);
  const int64_t budget = all < 0 ? -1 : all / static_cast<int64_t>(parts);
  auto add = [&](DataChunk& chunk) -> Status {
    if (parts == 1) return partials_[0]->AddOrSpill(chunk, ctx, spill_.get(), budget);
    const size_t n = chunk.size();
    if (n == 0) return Status::OK();
    std::deque<Vector> owned;
    std::vector<const Vector*> key_vecs;
    for (const ExprPtr& e : keys_) {
      owned.emplace_back(e->type);
      const Vector* v = nullptr;
      SILT_RETURN_NOT_OK(EvaluateOrReference(*e, chunk, ctx.eval, &owned.back(), &v));
      key_vecs.push_back(v);
    }
    std::vector<uint64_t> hashes(n);
    HashRows(key_vecs, n, hashes.data());
    std::vector<std::vector<uint32_t>> sels(parts);
    for (size_t i = 0; i < n; ++i) {
      sels[(hashes[i] >> kTablePartitionShift) & (parts - 1)].push_back(static_cast<uint32_t>(i));
    }
    DataChunk sub;
    for (size_t p = 0; p < parts; ++p) {
      if (sels[p].empty()) continue;
      GatherChunk(chunk, sels[p].data(), sels[p].size(), &sub);
      std::lock_guard<std::mutex> lock(locks[p]);
      SILT_RETURN_NOT_OK(partials_[p]->AddOrSpill(sub, ctx, spill_.get(), budget));
    }
    return Status::OK();
  };
  SILT_ASSIGN_OR_RETURN(bool pushed, child_->PushAll(ctx, workers, [&](size_t, DataChunk& chunk) {
    return add(chunk);
  }));
  if (!pushed) {
    DataChunk chunk = DataChunk::FromSchema(in_schema);
    while (true) {
      if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
      SILT_ASSIGN_OR_RETURN(bool more, child_->Next(ctx, &chunk));
      if (!more) break;
      SILT_RETURN_NOT_OK(add(chunk));
    }
  }
  for (auto& p : partials_) {
    if (p->size() > 0) results_.push_back(std::move(p));
  }
  partials_.clear();
  SILT_RETURN_NOT_OK(spill_->Finish());
  spilled_rows_ += spill_->rows();
  spilled_bytes_ += spill_->bytes();
  for (size_t p = 0; p < spill_->num_partitions(); ++p) {
    std::unique_ptr<SpillFile> f = spill_->Take(p);
    if (f) {
      ++spilled_partitions_;
      pending_.push_back(SpilledPartition{std::move(f), kFirstSpillShift + kSpillBits});
    }
  }
  spill_.reset();
  return Status::OK();
}

Result<bool> HashAggregateOperator::AggregateSpilledPartition(ExecContext& ctx) {
  while (!pending_.empty()) {
    SpilledPartition part = std::move(pending_.front());
    pending_.pop_front();
    if (part.next_shift + kSpillBits > 64) {
      return Status::OutOfMemory(
          "HashAggregate: the groups of one hash partition do not fit under the memory limit "
          "even after splitting it " +
              std::to_string((part.next_shift - kFirstSpillShift) / kSpillBits) +
              " times (raise it with SET silt.memory.limit = <size>)",
          errc::kSiltMemoryLimitExceeded);
    }
    PartitionedSpill sub(ctx.spill, child_->output_schema(), kSpillBits, part.next_shift);
    auto table = std::make_unique<AggTable>(*this, ctx.memory);
    const int64_t budget = SpillBudget(ctx.memory, ctx.spill);
    DataChunk chunk;
    while (true) {
      if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
      SILT_ASSIGN_OR_RETURN(bool more, part.file->Read(&chunk));
      if (!more) break;
      SILT_RETURN_NOT_OK(table->AddOrSpill(chunk, ctx, &sub, budget));
    }
    part.file.reset();  // deletes it
    SILT_RETURN_NOT_OK(sub.Finish());
    spilled_rows_ += sub.rows();
    spilled_bytes_ += sub.bytes();
    for (size_t p = 0; p < sub.num_partitions(); ++p) {
      std::unique_ptr<SpillFile> f = sub.Take(p);
      if (f) {
        ++spilled_partitions_;
        pending_.push_front(SpilledPartition{std::move(f), part.next_shift + kSpillBits});
      }
    }
    if (table->size() > 0) {
      results_.push_back(std::move(table));
      return true;
    }
  }
  return false;
}

// ------------------------------------------------------------------------- distinct aggregates
//
// With spilling on, aggregates over DISTINCT arguments (count(DISTINCT x), sum(DISTINCT x),
// collect_set(x), ...; grouped or global) run in two phases instead of keeping a set of values
// per group, as DuckDB does: phase one groups the input by (keys, distinct arguments) with the
// spilling hash aggregation above, computing the non-distinct aggregates' states per such group;
// phase two folds its groups, one table or spilled partition at a time, into the final table by
// the keys alone: non-distinct states Combine, and each distinct (keys, arguments) tuple updates
// the distinct aggregates' inner functions once. What has to fit is then one phase-one partition
// and the final table (the keys' groups with fixed-size states for count/sum/avg). It applies
// when the distinct aggregates share one argument list and have no FILTER, with one grouping set.

namespace {
// The aggregate's child seen by the phase-one aggregation (owned by the operator).
class BorrowedInput final : public Operator {
 public:
  explicit BorrowedInput(Operator* op) : op_(op) { schema_ = op->output_schema(); }
  Result<bool> Next(ExecContext& ctx, DataChunk* out) override { return op_->Next(ctx, out); }
  Result<bool> PushAll(ExecContext& ctx, size_t workers, const ChunkSink& sink) override {
    return op_->PushAll(ctx, workers, sink);
  }
  std::string name() const override { return op_->name(); }

 private:
  Operator* op_;
};

std::string ArgsKey(const std::vector<ExprPtr>& args) {
  std::string s;
  for (const ExprPtr& e : args) s += e->ToString() + "\x1f" + e->type->ToString() + "\x1e";
  return s;
}
}  // namespace

bool HashAggregateOperator::CanSpillDistinct() const {
  if (sets_.size() != 1 || !child_) return false;
  bool any = false;
  std::string args;
  for (const AggregateSpec& a : aggs_) {
    if (!agg::DistinctInner(*a.agg.function)) continue;
    if (a.filter || a.agg.args.empty()) return false;
    std::string k = ArgsKey(a.agg.args);
    if (any && k != args) return false;
    any = true;
    args = std::move(k);
  }
  return any;
}

Status HashAggregateOperator::ConsumeDistinct(ExecContext& ctx) {
  const size_t nk = keys_.size();
  std::vector<ExprPtr> p1_keys = keys_;
  bool have_args = false;
  std::vector<AggregateSpec> p1_aggs, fin_aggs;
  std::vector<int> src_agg;
  for (const AggregateSpec& a : aggs_) {
    agg::FnPtr inner = agg::DistinctInner(*a.agg.function);
    if (!inner) {
      src_agg.push_back(static_cast<int>(p1_aggs.size()));
      p1_aggs.push_back(a);
      fin_aggs.push_back(a);
      continue;
    }
    if (!have_args) {
      have_args = true;
      for (const ExprPtr& e : a.agg.args) p1_keys.push_back(e);
    }
    src_agg.push_back(-1);
    fin_aggs.push_back(AggregateSpec{BoundAggregate{inner, a.agg.args}, nullptr, a.name});
  }
  HashAggregateOperator p1(std::make_unique<BorrowedInput>(child_.get()), std::move(p1_keys),
                           std::move(p1_aggs));
  final_op_ = std::make_unique<HashAggregateOperator>(nullptr, keys_, std::move(fin_aggs));
  // The final table's first block of groups (1024 payloads with their keys and slots) is held
  // back from phase one: its tables are still full when the folding starts.
  MemoryReservation headroom(ctx.memory, name());
  SILT_RETURN_NOT_OK(headroom.Resize(static_cast<int64_t>(
      1024 * ((final_op_->payload_bytes_ + 15) / 16 * 16 + 8 * (nk + 2)) + 4096)));
  SILT_RETURN_NOT_OK(p1.ConsumeSpilling(ctx));
  SILT_RETURN_NOT_OK(headroom.Resize(0));
  auto fin = std::make_unique<AggTable>(*final_op_, ctx.memory);
  std::vector<uint32_t> ids;
  auto fold = [&](std::unique_ptr<AggTable> t) -> Status {
    for (size_t i = 0; i < t->size(); i += kChunkRows) {
      if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
      size_t cnt = std::min(kChunkRows, t->size() - i);
      ids.resize(cnt);
      for (size_t k = 0; k < cnt; ++k) ids[k] = static_cast<uint32_t>(i + k);
      SILT_RETURN_NOT_OK(fin->MergeDistinct(*t, src_agg, nk, ids.data(), cnt, ctx.eval));
    }
    return Status::OK();  // t (its states and memory) goes here
  };
  std::vector<std::unique_ptr<AggTable>> first = std::move(p1.results_);
  p1.results_.clear();
  for (auto& t : first) SILT_RETURN_NOT_OK(fold(std::move(t)));
  first.clear();
  while (true) {
    SILT_ASSIGN_OR_RETURN(bool more, p1.AggregateSpilledPartition(ctx));
    if (!more) break;
    std::unique_ptr<AggTable> t = std::move(p1.results_.back());
    p1.results_.clear();
    SILT_RETURN_NOT_OK(fold(std::move(t)));
  }
  spilled_rows_ += p1.spilled_rows_;
  spilled_bytes_ += p1.spilled_bytes_;
  spilled_partitions_ += p1.spilled_partitions_;
  if (nk == 0 && fin->size() == 0) SILT_RETURN_NOT_OK(fin->EnsureGlobalGroup());
  if (fin->size() > 0) results_.push_back(std::move(fin));
  return Status::OK();
}

std::string HashAggregateOperator::RuntimeMetrics() const {
  if (spilled_partitions_ == 0) return "";
  return "spilled " + std::to_string(spilled_rows_) + " rows in " +
         std::to_string(spilled_partitions_) + " partitions, " + std::to_string(spilled_bytes_) +
         " bytes";
}

Result<bool> HashAggregateOperator::Next(ExecContext& ctx, DataChunk* out) {
  if (!consumed_) {
    consumed_ = true;
    SILT_RETURN_NOT_OK(Consume(ctx));
  }
  while (true) {
    while (out_table_ < results_.size() && out_group_ >= results_[out_table_]->size()) {
      results_[out_table_].reset();  // release states and memory as soon as emitted
      ++out_table_;
      out_group_ = 0;
    }
    if (out_table_ < results_.size() || pending_.empty()) break;
    // The in-memory groups are out (and freed): the next spilled partition.
    SILT_ASSIGN_OR_RETURN(bool more, AggregateSpilledPartition(ctx));
    if (!more) break;
  }
  if (out_table_ >= results_.size()) return false;
  AggTable& t = *results_[out_table_];
  *out = DataChunk::FromSchema(schema_);
  size_t cnt = std::min(kChunkRows, t.size() - out_group_);
  // No keys and no aggregate calls (SELECT 1 FROM t HAVING true): rows without columns.
  if (out->columns.empty()) out->num_rows_without_columns = cnt;
  const std::vector<Vector>& keys = t.table().keys();
  for (size_t c = 0; c < keys.size(); ++c) out->columns[c].AppendRange(keys[c], out_group_, cnt);
  std::vector<const uint8_t*> states(cnt);
  // The table's own configuration: in distinct mode, the final table's (other state layout).
  const HashAggregateOperator& top = t.op();
  for (size_t a = 0; a < top.aggs_.size(); ++a) {
    for (size_t i = 0; i < cnt; ++i) {
      states[i] = t.table().payload(static_cast<uint32_t>(out_group_ + i)) + top.offsets_[a];
    }
    SILT_RETURN_NOT_OK(top.aggs_[a].agg.function->Finalize(
        states.data(), cnt, &out->columns[keys.size() + a], ctx.eval));
  }
  out_group_ += cnt;
  return true;
}

}  // namespace silt::exec
