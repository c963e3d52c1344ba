// Listing `_delta_log/` under the listing contract of io/object_store.h: a listing may miss a
// commit written while it ran yet report a later one, and a commit file once written never
// disappears (log cleanup removes only versions below a retained checkpoint). Readers and
// committers that need contiguous commits fill the gaps of a listing here instead of taking them
// for holes (issue 31: no false DELTA_VERSIONS_NOT_CONTIGUOUS under concurrent commits).
#pragma once

#include <cstdint>
#include <map>
#include <optional>

#include "common/status.h"
#include "delta/log_segment.h"
#include "io/object_store.h"

namespace silt::delta {

// Fills the gaps in [lo, hi] of `commits` (version → file, parsed from a listing): lists again
// once, from the first gap (a listing that starts after the first one ended reports every commit
// written meanwhile), then probes each version still missing with Head (at most 1000: a longer
// hole is no race); what is found is added to `commits`. Returns the first version of [lo, hi]
// still missing (a real hole: the caller decides whether it matters), nullopt when [lo, hi] is
// complete. Storage errors other than NotFound are returned.
Result<std::optional<int64_t>> FillCommitGaps(ObjectStore& store,
                                              std::map<int64_t, LogFile>* commits, int64_t lo,
                                              int64_t hi);

// BuildLogSegment using only checkpoints of versions < `checkpoint_below` (Delta's
// getLogSegmentWithMaxExclusiveCheckpointVersion: Snapshot::Load's fallback past a damaged
// checkpoint); nullopt: any checkpoint, i.e. BuildLogSegment itself.
Result<LogSegment> BuildLogSegment(ObjectStore& store, std::optional<int64_t> version,
                                   std::optional<int64_t> checkpoint_below);

}  // namespace silt::delta
