// Hash aggregation (GROUP BY, global aggregates, grouping sets) and the vectorized group table
// it is built on (also used by DISTINCT and the set operators).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/memory.h"
#include "common/status.h"
#include "exec/aggregate.h"
#include "exec/operator.h"
#include "exec/row_hash.h"

namespace silt::exec {

class PartitionedSpill;  // exec/spill.h
class SpillFile;

inline constexpr uint32_t kNoGroup = 0xffffffffu;

// GroupHashTable maps key rows to dense group ids 0..size()-1 in order of first appearance, and
// keeps per group a copy of its key (columnar, keys()), its row hash (hashes()) and
// `payload_bytes` of caller-owned payload (16-byte aligned, uninitialised until the caller
// initialises it: new groups are exactly the ids [size() before, size() after) of a call).
//
// Keys compare with NULLs equal (grouping semantics) and floating-point keys normalized (NaN
// groups with NaN, -0.0 with 0.0). Open addressing with linear probing over 64-bit entries
// (32-bit hash tag + group id); probing is vectorized per chunk (tags first, then column-wise key
// comparison of the candidates); a single integral key has a scalar fast path and a 1- or 2-byte
// key (boolean, tinyint, smallint) a direct-indexed table.
//
// Memory (slots, key copies, hashes, payload arena) is reserved on `memory` (may be null); a
// limit hit fails with OutOfMemory / SILT_MEMORY_LIMIT_EXCEEDED (message prefixed by `owner`,
// the operator's name). Not thread-safe.
class GroupHashTable {
 public:
  GroupHashTable(std::vector<TypePtr> key_types, size_t payload_bytes, MemoryTracker* memory,
                 std::string owner = {});
  GroupHashTable(const GroupHashTable&) = delete;
  GroupHashTable& operator=(const GroupHashTable&) = delete;

  // For the rows sel[0..n) of `keys` (rows 0..n-1 when sel is null) writes each row's group id to
  // groups[k]. Unseen keys get new groups when `create`, else kNoGroup. `hashes` (aligned with k,
  // as HashRows computes them) may be given when known, else they are computed.
  Status FindOrCreate(std::span<const Vector* const> keys, const uint32_t* sel, size_t n,
                      const uint64_t* hashes, bool create, uint32_t* groups);

  size_t size() const { return group_hashes_.size(); }
  const std::vector<Vector>& keys() const { return keys_; }
  const std::vector<uint64_t>& hashes() const { return group_hashes_; }
  size_t payload_stride() const { return stride_; }
  uint8_t* payload(uint32_t g) {
    return blocks_[g >> kBlockShift].get() + static_cast<size_t>(g & (kBlockGroups - 1)) * stride_;
  }
  const uint8_t* payload(uint32_t g) const {
    return blocks_[g >> kBlockShift].get() + static_cast<size_t>(g & (kBlockGroups - 1)) * stride_;
  }
  size_t MemoryUsage() const;

 private:
  static constexpr uint32_t kBlockShift = 10;
  static constexpr uint32_t kBlockGroups = 1u << kBlockShift;
  enum class Path : uint8_t { kNoKeys, kDirect, kSingleInt, kGeneric };

  uint32_t NewGroup(uint64_t hash);
  void Grow(size_t min_groups);
  Status Account();
  template <typename T>
  void ProbeSingle(const Vector& key, const uint32_t* sel, size_t n, const uint64_t* hashes,
                   bool create, uint32_t* groups);
  template <typename T>
  void ProbeDirect(const Vector& key, const uint32_t* sel, size_t n, bool create, uint32_t* groups);
  void ProbeGeneric(std::span<const Vector* const> keys, const uint32_t* sel, size_t n,
                    const uint64_t* hashes, bool create, uint32_t* groups);

  std::vector<TypePtr> key_types_;
  Path path_;
  size_t stride_;
  std::vector<Vector> keys_;
  std::vector<uint64_t> group_hashes_;
  std::vector<uint64_t> slots_;  // 0 = empty, else tag << 32 | (group + 1)
  struct IntSlot {
    int64_t key;
    uint32_t group_plus1;  // 0 = empty
  };
  std::vector<IntSlot> islots_;     // kSingleInt: the key inline, one cache line per probe
  std::vector<uint32_t> direct_;    // kDirect: group per key value (+ one for NULL)
  uint32_t null_group_ = kNoGroup;  // kSingleInt: NULL keys live outside the slots
  std::vector<std::unique_ptr<uint8_t[]>> blocks_;
  MemoryReservation reservation_;
  // scratch for ProbeGeneric
  std::vector<uint64_t> hbuf_;
  std::vector<uint32_t> rows_, cand_group_, slot_, remaining_, next_, cmp_, miss_, new_rows_;
};

struct AggregateSpec {
  BoundAggregate agg;
  ExprPtr filter;  // FILTER (WHERE ...) — null when none
  std::string name;
};

// HashAggregateOperator: GROUP BY group_keys computing `aggregates`.
//
// Output schema: the group key columns (named after the key expressions), then — only when more
// than one grouping set is given — a bigint `spark_grouping_id` column, then one column per
// aggregate (named spec.name). Without group keys it emits exactly one row, even for empty input
// (count → 0, sum → NULL); with keys, one row per group (no rows for empty input).
//
// grouping_sets lists, per set, the indices into group_keys that the set groups by (empty list
// = one set of all keys). Each input row is aggregated once per set with the absent keys NULL;
// spark_grouping_id has a 1 bit for each absent key, the first key in the highest bit (Spark's
// bit order; a set listed again also has bits above the keys', so that its groups stay apart),
// so the binder implements ROLLUP/CUBE/GROUPING SETS, grouping() and grouping_id()
// on top of it. The output order of groups is unspecified.
//
// Execution: the first Next() consumes the child. With ctx.pool, input chunks are aggregated on
// the pool into one partial table per worker; the partials are then merged by hash partition in
// parallel (AggregateFunction::Combine). Memory is reserved on ctx.memory
// (SILT_MEMORY_LIMIT_EXCEEDED when the limit is hit). With spilling on (ctx.spill: a memory limit
// and silt.spill.enabled) and group keys, groups that do not fit are spilled by hash partition
// and aggregated partition by partition after the others (see "spilling" in the .cc); DISTINCT
// aggregates over one argument list (grouped or global) then run in two phases, grouping by the
// keys and the distinct arguments first (see "distinct aggregates" in the .cc).
class HashAggregateOperator : public Operator {
 public:
  HashAggregateOperator(OperatorPtr child, std::vector<ExprPtr> group_keys,
                        std::vector<AggregateSpec> aggregates,
                        std::vector<std::vector<int>> grouping_sets = {});
  ~HashAggregateOperator() override;

  Result<bool> Next(ExecContext& ctx, DataChunk* out) override;
  std::string name() const override { return "HashAggregate"; }
  std::string details() const override;
  std::vector<const Operator*> children() const override { return {child_.get()}; }
  std::string RuntimeMetrics() const override;

  class AggTable;  // implementation detail (hash_aggregate.cc)

 private:
  Status Consume(ExecContext& ctx);
  Status Merge(ExecContext& ctx);
  Status ConsumeSpilling(ExecContext& ctx);
  // DISTINCT aggregates under spilling (see "distinct aggregates" in the .cc).
  bool CanSpillDistinct() const;
  Status ConsumeDistinct(ExecContext& ctx);
  // Aggregates the next spilled partition into a new results_ table (false: none left).
  Result<bool> AggregateSpilledPartition(ExecContext& ctx);

  OperatorPtr child_;
  std::vector<ExprPtr> keys_;
  std::vector<AggregateSpec> aggs_;
  std::vector<std::vector<int>> sets_;
  std::vector<int64_t> set_ids_;  // spark_grouping_id per set
  std::vector<TypePtr> table_key_types_;
  std::vector<size_t> offsets_;
  size_t payload_bytes_ = 0;
  bool consumed_ = false;
  // Distinct mode: the configuration of the final table (keys, the non-distinct aggregates and
  // the inner functions of the distinct ones); outlives the tables in results_ that use it.
  std::unique_ptr<HashAggregateOperator> final_op_;
  std::vector<std::unique_ptr<AggTable>> partials_;
  std::vector<std::unique_ptr<AggTable>> results_;
  size_t out_table_ = 0;
  size_t out_group_ = 0;
  // spilling
  struct SpilledPartition {
    std::unique_ptr<SpillFile> file;
    int next_shift;  // where a further split takes its bits
  };
  std::unique_ptr<PartitionedSpill> spill_;
  std::deque<SpilledPartition> pending_;
  int64_t spilled_rows_ = 0;
  int64_t spilled_bytes_ = 0;
  int64_t spilled_partitions_ = 0;
};

}  // namespace silt::exec
