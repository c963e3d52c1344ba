// Table history and time travel: the commits of a Delta log with their commit timestamps
// (DESCRIBE HISTORY), and the resolution of `TIMESTAMP AS OF` / `VERSION AS OF` to a version,
// with Delta-Spark's semantics (DeltaHistoryManager, InCommitTimestampUtils; Delta protocol
// "In-Commit Timestamps").
//
// Commit timestamps. A version's timestamp is its commitInfo.inCommitTimestamp when in-commit
// timestamps (ICT) apply to it, else the modification time of its commit file, made monotonic as
// Spark does: listed in ascending version order, a non-ICT commit whose mtime is <= the previous
// commit's (adjusted) timestamp gets previous + 1 ms. The adjustment is computed over the listed
// range only, so (as in Spark) a listing that starts later may anchor differently.
//
// Which versions use ICT is decided by the table's *latest* metadata, as in Spark: when
// delta.enableInCommitTimestamps=true, versions >= delta.inCommitTimestampEnablementVersion use
// ICT (every version when the enablement properties are absent: ICT was on from version 0);
// otherwise no version does. The latest metadata comes from Snapshot::Load(latest, no files), so
// a table silt cannot read (unsupported reader features) has no history either.
//
// Errors carry Spark's error classes (constants below). Timestamps in messages are rendered in
// UTC (session time zones come later).
//
// Thread safety: free functions; safe to call concurrently on a thread-safe ObjectStore.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error_classes.h"
#include "common/status.h"
#include "delta/actions.h"
#include "io/object_store.h"

namespace silt::delta {

inline constexpr auto& kErrorTimestampGreaterThanCommit = errc::kDeltaTimestampGreaterThanCommit;
inline constexpr auto& kErrorTimestampEarlierThanRetention =
    errc::kDeltaTimestampEarlierThanCommitRetention;
inline constexpr auto& kErrorTimestampInvalid = errc::kDeltaTimestampInvalid;
inline constexpr auto& kErrorVersionNotFound = errc::kDeltaVersionNotFound;
inline constexpr auto& kErrorNoCommitsFound = errc::kDeltaNoCommitsFound;
inline constexpr auto& kErrorNoRecreatableHistory = errc::kDeltaNoRecreatableHistoryFound;
inline constexpr auto& kErrorMissingCommitInfo = errc::kDeltaMissingCommitInfo;
inline constexpr auto& kErrorMissingCommitTimestamp = errc::kDeltaMissingCommitTimestamp;

inline constexpr char kPropEnableInCommitTimestamps[] = "delta.enableInCommitTimestamps";
inline constexpr char kPropIctEnablementVersion[] = "delta.inCommitTimestampEnablementVersion";
inline constexpr char kPropIctEnablementTimestamp[] = "delta.inCommitTimestampEnablementTimestamp";

struct CommitEntry {
  int64_t version = 0;
  // The effective commit timestamp (ms since epoch): the ICT when ICT applies to this version,
  // else the monotonically adjusted file modification time.
  int64_t timestamp_ms = 0;
  int64_t file_modification_ms = 0;  // the commit file's raw mtime
  bool uses_in_commit_timestamp = false;
  // The commit's commitInfo when it was read (see each function); commit_info->version is set to
  // `version` as Spark does. commit_info->timestamp stays as written (informational).
  std::optional<CommitInfo> commit_info;
};

// The ICT configuration of a table's latest metadata.
struct IctConfig {
  bool enabled = false;
  // First version whose timestamp is its ICT (0 when ICT was on from table creation). Only
  // meaningful when enabled.
  int64_t enablement_version = 0;
  // delta.inCommitTimestampEnablementTimestamp; nullopt when ICT was on from version 0.
  std::optional<int64_t> enablement_timestamp_ms;
};

// Reads the ICT configuration from the table's latest metadata. A table without commits is
// DELTA_TABLE_NOT_FOUND (from BuildLogSegment); exactly one of the two enablement properties, or a
// non-integer value, is Corruption.
Result<IctConfig> ReadIctConfig(ObjectStore& store);
// The same from a snapshot's metadata the caller already has (`store` names the table in errors).
Result<IctConfig> IctConfigOf(const Metadata& metadata, const ObjectStore& store);

// The commits present in _delta_log with version >= from_version, ascending, with effective
// timestamps (see the file comment). With read_commit_info every entry gets commit_info (an empty
// CommitInfo with only `version` when the commit has none, like Spark's CommitInfo.empty); ICT
// versions are read either way. Missing versions are simply absent (no contiguity check). An empty
// log gives an empty vector.
// Errors: an ICT version without commitInfo (DELTA_MISSING_COMMIT_INFO) or without
// inCommitTimestamp (DELTA_MISSING_COMMIT_TIMESTAMP); read/parse errors of commit files.
// `ict`: the table's ICT configuration when the caller has it (IctConfigOf its snapshot), which
// saves loading the latest snapshot again; null: ReadIctConfig.
Result<std::vector<CommitEntry>> ListCommits(ObjectStore& store, int64_t from_version = 0,
                                             bool read_commit_info = false,
                                             const IctConfig* ict = nullptr);

// Spark's getEarliestRecreatableCommit: 0 when commit 0 exists, else the oldest complete
// checkpoint c (classic, complete multi-part, or UUID/v2; empty files ignored) with
// c >= (oldest commit) - 1, i.e. the oldest version BuildLogSegment can reconstruct, assuming
// contiguous commits. DELTA_NO_RECREATABLE_HISTORY_FOUND when commits exist but none is
// reconstructable; DELTA_NO_COMMITS_FOUND when there are no commits.
Result<int64_t> EarliestRecreatableVersion(ObjectStore& store);

// Spark's checkVersionExists for `VERSION AS OF v`: OK when earliest <= v <= latest, where
// earliest is EarliestRecreatableVersion (must_be_recreatable) or the oldest commit file.
// Otherwise DELTA_VERSION_NOT_FOUND: "Cannot time travel Delta table to version v. Available
// versions: [earliest, latest]."
Status CheckVersionExists(ObjectStore& store, int64_t version, bool must_be_recreatable = true);

struct TimeTravelOptions {
  // Spark's canReturnLastCommit: a timestamp after the latest commit resolves to the latest
  // version instead of failing.
  bool can_return_last_commit = false;
  // Spark's canReturnEarliestCommit: a timestamp before the earliest commit resolves to the
  // earliest available version instead of failing.
  bool can_return_earliest_commit = false;
  // Search only versions that can be reconstructed (EarliestRecreatableVersion), else every
  // commit file still present.
  bool must_be_recreatable = true;
};

// Spark's getActiveCommitAtTime: the commit with the greatest version whose timestamp <= t.
// The entry has no commit_info.
// Errors: t before the earliest searchable commit → DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION
// ("The provided timestamp (...) is before the earliest version available to this table (...).
// Please use a timestamp after ..."); t after the latest commit →
// DELTA_TIMESTAMP_GREATER_THAN_COMMIT ("... is after the latest version available to this table
// (...). Please use a timestamp before or at ..."), unless the matching option allows it. Also
// those of ListCommits and EarliestRecreatableVersion. (Spark's SQL path raises its
// TemporallyUnstableInputException, which has no error class, for the latter case.)
// With ICT the search is split like Spark's: t >= enablement timestamp searches only the ICT
// versions (binary search, reading O(log n) commit files), otherwise only the earlier non-ICT
// versions (linear over one listing).
Result<CommitEntry> ActiveCommitAtTimestamp(ObjectStore& store, int64_t timestamp_ms,
                                            const TimeTravelOptions& options = {});
// ActiveCommitAtTimestamp(...).version.
Result<int64_t> VersionAtTimestamp(ObjectStore& store, int64_t timestamp_ms,
                                   const TimeTravelOptions& options = {});

// DESCRIBE HISTORY [LIMIT n]: newest first, every entry with commit_info (see ListCommits). With
// a limit, the versions (latest - n, latest] are read (Spark's getHistory: the timestamp
// adjustment then starts at the oldest of them); without, every commit present. limit 0 gives
// nothing; a negative limit is InvalidArgument.
Result<std::vector<CommitEntry>> ReadHistory(ObjectStore& store, std::optional<int> limit);

// A `TIMESTAMP AS OF '...'` literal → ms since epoch. Accepts (after trimming blanks)
// 'yyyy-MM-dd', 'yyyy-MM-dd HH:mm[:ss[.f{1,9}]]' and the same with 'T', optionally followed by
// 'Z', 'UTC' or an offset ±HH[:mm]. Without a zone the time is UTC (session time zones later).
// Sub-millisecond digits are truncated toward the past (java.sql.Timestamp.getTime).
// Malformed: InvalidArgument, class DELTA_TIMESTAMP_INVALID.
Result<int64_t> ParseTimestampLiteralMillis(std::string_view text);

// java.sql.Timestamp.toString of a UTC instant: "2022-02-28 10:00:00.0", fraction trimmed of
// trailing zeros but at least one digit (the form Spark's messages use).
std::string FormatJavaTimestamp(int64_t millis);

}  // namespace silt::delta
