// Grace hash join: the state of a HashJoinOperator whose build side did not fit under the memory
// limit (with spilling on). Both sides are written to spill partitions by the hash of their join
// keys (the same hash for the left and the right keys, which have the same types), then each
// partition pair is joined by a HashJoinOperator of its own (a partition whose build side still
// does not fit is split again by the next hash bits). Every join type partitions correctly: a
// row can only match rows of its own partition, and unmatched rows (outer, anti) are emitted by
// their partition's join. The null-aware anti join (NOT IN) is global and does not spill.
#pragma once

#include <memory>

#include "exec/hash_join.h"
#include "exec/spill.h"

namespace silt::exec {

struct HashJoinOperator::Grace {
  std::unique_ptr<PartitionedSpill> build_parts;
  std::unique_ptr<PartitionedSpill> probe_parts;
  bool probe_partitioned = false;
  size_t next_partition = 0;
  std::unique_ptr<HashJoinOperator> current;  // the join of the partition being emitted
  int64_t partitions = 0;                     // partition pairs joined (this level and below)
};

}  // namespace silt::exec
