// The files of a Delta log that make up one table version (a LogSegment): the newest complete
// checkpoint at or below the version plus the contiguous commits after it (Delta protocol
// "Snapshot construction"; delta-kernel-rs log_segment.rs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "io/object_store.h"

namespace silt::delta {

inline constexpr char kLogDir[] = "_delta_log/";

enum class LogFileKind : uint8_t {
  kCommit,               // 00000000000000000010.json
  kCheckpoint,           // 00000000000000000010.checkpoint.parquet
  kMultiPartCheckpoint,  // 00000000000000000010.checkpoint.0000000001.0000000003.parquet
  kUuidCheckpoint,       // 00000000000000000010.checkpoint.<uuid>.json|parquet (v2)
  kCompaction,           // 00000000000000000004.00000000000000000006.compacted.json
  kChecksum,             // 00000000000000000010.crc
};

struct LogFile {
  LogFileKind kind = LogFileKind::kCommit;
  int64_t version = 0;
  int64_t end_version = 0;      // compaction: last version covered
  int part = 0, num_parts = 0;  // multi-part checkpoints
  bool json = false;            // UUID checkpoints in JSON
  ObjectMeta meta;              // key is relative to the table root ("_delta_log/…")
};

// Classifies a log listing entry; nullopt for names that are not log files (temp files, hidden
// Hadoop .crc files, _last_checkpoint, …).
std::optional<LogFile> ParseLogFileName(const ObjectMeta& meta);

// "_delta_log/00000000000000000007.json".
std::string CommitKey(int64_t version);

struct LogSegment {
  int64_t version = -1;                   // the snapshot's version
  int64_t checkpoint_version = -1;        // -1: none
  std::vector<LogFile> checkpoint_parts;  // one file, or all parts of a multi-part checkpoint
  std::vector<LogFile> commits;           // ascending, checkpoint_version < v <= version
  int64_t latest_version = -1;            // newest commit seen in the listing
  int64_t earliest_version = -1;          // oldest commit seen in the listing
};

// Lists `_delta_log/` of the table in `store` and builds the segment for `version` (latest when
// absent). Errors: DELTA_TABLE_NOT_FOUND (no log), DELTA_VERSION_NOT_FOUND (version out of range),
// DELTA_VERSIONS_NOT_CONTIGUOUS (a commit is really missing: commits the listing missed because
// they were written while it ran — io/object_store.h — are recovered with FillCommitGaps,
// delta/log_listing.h), DELTA_CANNOT_RECONSTRUCT_VERSION (neither a checkpoint nor commit 0
// covers the start: the log was cleaned up).
Result<LogSegment> BuildLogSegment(ObjectStore& store, std::optional<int64_t> version);

// Reads _delta_log/_last_checkpoint's version when present and well-formed (a hint only).
std::optional<int64_t> ReadLastCheckpointHint(ObjectStore& store);

}  // namespace silt::delta
