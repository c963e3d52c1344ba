// Delta metadata cleanup: deletes expired commit files, checksums, compacted logs and
// checkpoints from `_delta_log/` while keeping every version inside the retention window
// reconstructable (Delta PROTOCOL.md "Metadata Cleanup"; Spark's MetadataCleanup.scala and
// DeltaHistoryManager.BufferingLogDeletionIterator).
//
// Rules, in order:
//  1. Skipped (nothing listed or deleted beyond the table's own state) when
//     delta.enableExpiredLogCleanup is false, or when the table has the checkpointProtection
//     writer feature with delta.requireCheckpointProtectionBeforeVersion > 0 (silt does not
//     implement the protected truncation procedure, so it truncates nothing).
//  2. cutoff = clock.NowMillis() - delta.logRetentionDuration (default 30 days), optionally
//     truncated down to the UTC hour or day as Spark does (LogCleanupOptions::truncation; the
//     default is none, i.e. the exact cutoff). A file is expired iff its modification time
//     <= cutoff (Spark's inclusive comparison).
//  3. Commit timestamps are made monotonic as time travel sees them: a commit whose mtime is
//     not later than its predecessor's (adjusted) time counts as predecessor + 1 ms.
//  4. The oldest retained version R is the oldest commit <= snapshot.version() whose adjusted
//     time is > cutoff, or snapshot.version() when every commit is expired (the snapshot's own
//     version is always kept reconstructable).
//  5. The retained checkpoint C is the newest complete checkpoint (classic, complete multi-part
//     set, or UUID-named v2) with version <= R. None: nothing is deleted. C and everything at
//     or after it are never deleted, so every version >= R keeps a checkpoint <= it plus all
//     commits after that checkpoint.
//  6. Cut point: if commit C's time was adjusted in rule 3, the cut moves back to the start of
//     its adjusted run (the newest version <= C whose commit was not adjusted) so that deleting
//     files never changes the timestamp time travel computes for a retained commit — Spark's
//     BufferingLogDeletionIterator. Versions between the cut and C stay, unreachable.
//  7. Deleted: every file ParseLogFileName recognises (commit, checksum, checkpoint of any kind,
//     compacted log — a compacted log when its whole range is below the cut) whose version is
//     below the cut and whose own modification time is expired. Files whose name starts with
//     '.', `_last_checkpoint`, `_sidecars/`, `_staged_commits/` and anything outside
//     `_delta_log/` are never touched. Deletion runs in ascending version order, so an
//     interrupted cleanup leaves a prefix removed: every version >= R stays loadable and a rerun
//     finishes the job.
// Versions below R may become unreadable: Snapshot::Load fails with
// DELTA_CANNOT_RECONSTRUCT_VERSION for them once no checkpoint at or below them is left.
// Not done (silt has no v2 checkpoint writer yet): deleting
// unreferenced v2 sidecar files and writing Spark's compatibility classic checkpoint.
//
// Thread-compatible; safe to run concurrently with readers and committers (it deletes only
// files no snapshot at version >= R needs). The store must be the snapshot's table store.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "delta/snapshot.h"
#include "io/object_store.h"

namespace silt::delta {

enum class CutoffTruncation : uint8_t {
  kNone,  // cutoff = now - retention, to the millisecond
  kHour,  // truncated down to the UTC hour
  kDay,   // truncated down to UTC midnight (Spark's default: keeps logs up to a day longer)
};

struct LogCleanupOptions {
  CutoffTruncation truncation = CutoffTruncation::kNone;
  // Overrides delta.logRetentionDuration when >= 0 (tests, maintenance commands).
  int64_t retention_millis_override = -1;
};

struct LogCleanupResult {
  bool skipped = false;  // rule 1 applied
  std::string skip_reason;
  int64_t cutoff_ms = 0;
  int64_t oldest_retained_version = -1;      // R (-1 when nothing was evaluated)
  int64_t retained_checkpoint_version = -1;  // C (-1: none, nothing deleted)
  int64_t cut_version = -1;                  // files with version < this were candidates
  int64_t commits_deleted = 0;
  int64_t checkpoints_deleted = 0;  // files (each part of a multi-part checkpoint counts)
  int64_t checksums_deleted = 0;
  int64_t compactions_deleted = 0;
  std::vector<std::string> deleted_keys;  // in deletion order
};

// Runs the cleanup described above for the table of `snapshot` (normally its latest version).
// Returns the first failure of a listing or delete (then some prefix of the candidates may
// already be gone; see rule 7). Properties with invalid values: InvalidArgument
// (DELTA_INVALID_TABLE_PROPERTY), nothing deleted.
Result<LogCleanupResult> CleanupExpiredLogs(ObjectStore& store, const Snapshot& snapshot,
                                            const Clock& clock,
                                            const LogCleanupOptions& options = {});

// Writes interrupted by a crash leave hidden temp objects beside their target
// (".<name>.<random>.tmp", io/object_store.h) that nothing would ever remove. Deletes those in
// `_delta_log/` whose target is a log file (commit, checkpoint, checksum, ...) and whose
// modification time is at least `min_age_ms` before `clock`'s now — a writer that is still
// writing one keeps touching it, so an old one is abandoned. Returns the keys deleted.
// WriteCheckpoint calls it after each checkpoint (best effort).
inline constexpr int64_t kStaleLogTempFileAgeMs = 3600LL * 1000;
Result<std::vector<std::string>> DeleteStaleLogTempFiles(
    ObjectStore& store, const Clock& clock, int64_t min_age_ms = kStaleLogTempFileAgeMs);

}  // namespace silt::delta
