#include "delta/log_cleanup.h"

#include <algorithm>
#include <map>
#include <set>

#include "delta/log_segment.h"
#include "delta/table_properties.h"

namespace silt::delta {
namespace {

constexpr char kRequireCheckpointProtectionKey[] = "delta.requireCheckpointProtectionBeforeVersion";

int64_t FloorTo(int64_t t, int64_t unit) {
  int64_t q = t / unit;
  if (t % unit != 0 && t < 0) --q;
  return q * unit;
}

bool IsCheckpoint(LogFileKind k) {
  return k == LogFileKind::kCheckpoint || k == LogFileKind::kMultiPartCheckpoint ||
         k == LogFileKind::kUuidCheckpoint;
}

// Versions <= max_version that have a complete checkpoint (BuildLogSegment's rules: non-empty
// single-file checkpoints, or every part 1..n of some n-part set).
std::set<int64_t> CompleteCheckpoints(const std::vector<LogFile>& files, int64_t max_version) {
  std::set<int64_t> out;
  std::map<int64_t, std::map<int, std::set<int>>> parts;  // version → num_parts → parts seen
  for (const LogFile& f : files) {
    if (!IsCheckpoint(f.kind) || f.version > max_version || f.meta.size <= 0) continue;
    if (f.kind == LogFileKind::kMultiPartCheckpoint) {
      auto& seen = parts[f.version][f.num_parts];
      seen.insert(f.part);
      if (static_cast<int>(seen.size()) == f.num_parts) out.insert(f.version);
    } else {
      out.insert(f.version);
    }
  }
  return out;
}

Result<int64_t> ProtectedVersion(const Snapshot& snapshot) {
  const auto& wf = snapshot.protocol().writer_features;
  if (!wf || std::find(wf->begin(), wf->end(), "checkpointProtection") == wf->end()) return 0;
  const std::string* v = snapshot.metadata().configuration.Find(kRequireCheckpointProtectionKey);
  if (!v) return 0;
  int64_t n = 0;
  if (v->empty() || v->size() > 18) n = -1;
  for (char c : *v) {
    if (c < '0' || c > '9') {
      n = -1;
      break;
    }
    n = n * 10 + (c - '0');
  }
  if (n < 0)
    return Status::InvalidArgument(std::string(kRequireCheckpointProtectionKey) + " = '" + *v +
                                       "': needs to be a version >= 0",
                                   kInvalidTablePropertyClass);
  return n;
}

}  // namespace

Result<LogCleanupResult> CleanupExpiredLogs(ObjectStore& store, const Snapshot& snapshot,
                                            const Clock& clock, const LogCleanupOptions& options) {
  LogCleanupResult res;
  const StringMap& config = snapshot.metadata().configuration;
  SILT_ASSIGN_OR_RETURN(bool enabled, GetEnableExpiredLogCleanup(config));
  SILT_ASSIGN_OR_RETURN(int64_t retention, GetLogRetentionMillis(config));
  SILT_ASSIGN_OR_RETURN(int64_t protected_before, ProtectedVersion(snapshot));
  if (options.retention_millis_override >= 0) retention = options.retention_millis_override;
  if (!enabled) {
    res.skipped = true;
    res.skip_reason = std::string(kEnableExpiredLogCleanupKey) + " is false";
    return res;
  }
  if (protected_before > 0) {
    res.skipped = true;
    res.skip_reason = "checkpointProtection requires keeping history before version " +
                      std::to_string(protected_before);
    return res;
  }
  int64_t cutoff = clock.NowMillis() - retention;
  if (options.truncation == CutoffTruncation::kHour) cutoff = FloorTo(cutoff, 3600LL * 1000);
  if (options.truncation == CutoffTruncation::kDay) cutoff = FloorTo(cutoff, kMillisPerDay);
  res.cutoff_ms = cutoff;

  SILT_ASSIGN_OR_RETURN(auto listing, store.ListFrom(kLogDir));
  std::vector<LogFile> files;
  for (const ObjectMeta& m : listing) {
    std::string_view name = m.key;
    name.remove_prefix(std::min(name.size(), name.rfind('/') + 1));
    if (name.empty() || name[0] == '.') continue;
    if (auto f = ParseLogFileName(m)) files.push_back(std::move(*f));
  }
  const int64_t max_version = snapshot.version();

  // Rule 3: monotonic commit times, remembering which commits were adjusted.
  struct CommitTime {
    int64_t adjusted;
    bool was_adjusted;
  };
  std::map<int64_t, CommitTime> commits;
  for (const LogFile& f : files)
    if (f.kind == LogFileKind::kCommit && f.version <= max_version)
      commits[f.version] = {f.meta.modification_time_ms, false};
  std::optional<int64_t> prev;
  for (auto& [v, t] : commits) {
    if (prev && *prev >= t.adjusted) t = {*prev + 1, true};
    prev = t.adjusted;
  }
  // Rule 4.
  res.oldest_retained_version = max_version;
  for (const auto& [v, t] : commits)
    if (t.adjusted > cutoff) {
      res.oldest_retained_version = v;
      break;
    }
  // Rule 5.
  std::set<int64_t> complete = CompleteCheckpoints(files, res.oldest_retained_version);
  if (complete.empty()) return res;
  const int64_t c = *complete.rbegin();
  res.retained_checkpoint_version = c;
  // Rule 6.
  int64_t cut = c;
  for (auto it = commits.find(c); it != commits.end() && it->second.was_adjusted;) {
    if (it == commits.begin()) break;  // cannot happen: the first commit is never adjusted
    --it;
    cut = it->first;
  }
  res.cut_version = cut;
  // Rule 7. The listing is sorted by name, i.e. by version.
  for (const LogFile& f : files) {
    int64_t last = f.kind == LogFileKind::kCompaction ? f.end_version : f.version;
    if (last >= cut || f.meta.modification_time_ms > cutoff) continue;
    SILT_RETURN_NOT_OK(store.Delete(f.meta.key));
    res.deleted_keys.push_back(f.meta.key);
    switch (f.kind) {
      case LogFileKind::kCommit:
        ++res.commits_deleted;
        break;
      case LogFileKind::kChecksum:
        ++res.checksums_deleted;
        break;
      case LogFileKind::kCompaction:
        ++res.compactions_deleted;
        break;
      default:
        ++res.checkpoints_deleted;
        break;
    }
  }
  return res;
}

Result<std::vector<std::string>> DeleteStaleLogTempFiles(ObjectStore& store, const Clock& clock,
                                                         int64_t min_age_ms) {
  std::vector<std::string> deleted;
  SILT_ASSIGN_OR_RETURN(auto listing, store.ListFrom(kLogDir));
  const int64_t now = clock.NowMillis();
  for (const ObjectMeta& m : listing) {
    std::string_view name = m.key;
    name.remove_prefix(std::min(name.size(), name.rfind('/') + 1));
    constexpr std::string_view kTmp = ".tmp";
    if (name.size() < 1 + 20 + kTmp.size() || name[0] != '.' ||
        name.substr(name.size() - kTmp.size()) != kTmp)
      continue;
    // The target's name follows the dot: a log file's starts with its 20-digit version.
    bool log_file = true;
    for (size_t i = 1; i <= 20; ++i) log_file = log_file && name[i] >= '0' && name[i] <= '9';
    if (!log_file || name[21] != '.') continue;
    if (now - m.modification_time_ms < min_age_ms) continue;
    SILT_RETURN_NOT_OK(store.Delete(m.key));
    deleted.push_back(m.key);
  }
  return deleted;
}

}  // namespace silt::delta
