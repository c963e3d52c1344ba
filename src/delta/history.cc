#include "delta/history.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "common/ascii.h"
#include "common/datetime.h"
#include "common/error_classes.h"
#include "delta/log_listing.h"
#include "delta/log_segment.h"
#include "delta/partition_values.h"
#include "delta/snapshot.h"

namespace silt::delta {
namespace {

std::string LogPath(const ObjectStore& store) { return store.root() + "_delta_log"; }

// One listing of _delta_log/: the commit files (ascending) and what is needed to know which
// versions can be reconstructed.
struct LogListing {
  std::vector<LogFile> commits;
  std::set<int64_t> complete_checkpoints;
};

Result<LogListing> ListLog(ObjectStore& store, int64_t from_version) {
  char prefix[48];
  std::snprintf(prefix, sizeof prefix, "%s%020lld", kLogDir,
                static_cast<long long>(std::max<int64_t>(from_version, 0)));
  SILT_ASSIGN_OR_RETURN(std::vector<ObjectMeta> listing, store.ListFrom(prefix));
  LogListing out;
  std::map<std::pair<int64_t, int>, std::set<int>> parts;  // (version, num_parts) → parts seen
  for (const ObjectMeta& m : listing) {
    std::optional<LogFile> f = ParseLogFileName(m);
    if (!f) continue;
    switch (f->kind) {
      case LogFileKind::kCommit:
        out.commits.push_back(std::move(*f));
        break;
      case LogFileKind::kCheckpoint:
      case LogFileKind::kUuidCheckpoint:
        // An empty checkpoint is a crashed write; BuildLogSegment ignores it too.
        if (f->meta.size > 0) out.complete_checkpoints.insert(f->version);
        break;
      case LogFileKind::kMultiPartCheckpoint: {
        if (f->meta.size <= 0) break;
        auto& seen = parts[{f->version, f->num_parts}];
        seen.insert(f->part);
        if (static_cast<int>(seen.size()) == f->num_parts) {
          out.complete_checkpoints.insert(f->version);
        }
        break;
      }
      default:
        break;
    }
  }
  // ListFrom is sorted bytewise and the names are fixed-width, so commits are ascending already.
  // The listing may have missed commits written while it ran (io/object_store.h): recover the
  // gaps between the listed ones. A hole that stays is log cleanup running beside us (it deletes
  // the oldest commits), not corruption; history shows what exists.
  if (out.commits.size() >= 2 && out.commits.back().version - out.commits.front().version + 1 !=
                                     static_cast<int64_t>(out.commits.size())) {
    std::map<int64_t, LogFile> commits;
    for (LogFile& f : out.commits) commits.emplace(f.version, std::move(f));
    auto filled = FillCommitGaps(store, &commits, commits.begin()->first, commits.rbegin()->first);
    SILT_RETURN_NOT_OK(filled.status());
    out.commits.clear();
    for (auto& entry : commits) out.commits.push_back(std::move(entry.second));
  }
  return out;
}

// Spark's getEarliestRecreatableCommit over a listing from version 0.
Result<int64_t> EarliestRecreatable(const ObjectStore& store, const LogListing& log) {
  if (log.commits.empty())
    return Status::NotFound("No commits found at " + LogPath(store), kErrorNoCommitsFound);
  int64_t oldest_commit = log.commits.front().version;
  if (oldest_commit == 0) return int64_t{0};
  // A checkpoint at c needs commits from c + 1 on; commits are assumed contiguous after that.
  auto it = log.complete_checkpoints.lower_bound(oldest_commit - 1);
  if (it != log.complete_checkpoints.end()) return *it;
  return Status::NotFound("No recreatable commits found at " + LogPath(store),
                          kErrorNoRecreatableHistory);
}

bool IsCommitInfoLine(std::string_view line) {
  size_t p = 0;
  auto skip_ws = [&] {
    while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
  };
  skip_ws();
  if (p >= line.size() || line[p] != '{') return false;
  ++p;
  skip_ws();
  return line.substr(p, 12) == "\"commitInfo\"";
}

// The commitInfo action of a commit file (nullopt when it has none). Only the commitInfo line is
// parsed: the other actions of a large commit are skipped unparsed.
Result<std::optional<CommitInfo>> ReadCommitInfo(ObjectStore& store, const LogFile& file) {
  SILT_ASSIGN_OR_RETURN(std::string bytes, store.Get(file.meta.key));
  std::string_view rest = bytes;
  ActionParser parser;
  int line_no = 0;
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!IsCommitInfoLine(line)) continue;
    Action action;
    SILT_RETURN_NOT_OK(parser.Parse(line, &action, file.meta.key + ":" + std::to_string(line_no)));
    if (CommitInfo* ci = action.get_if<CommitInfo>()) {
      ci->version = file.version;
      return std::optional<CommitInfo>(std::move(*ci));
    }
  }
  return std::optional<CommitInfo>();
}

Result<int64_t> ParseIntProperty(const Metadata& md, const char* key, const std::string& root) {
  const std::string* v = md.configuration.Find(key);
  int64_t out = 0;
  const char* end = v->data() + v->size();
  auto [ptr, ec] = std::from_chars(v->data(), end, out);
  if (ec != std::errc() || ptr != end)
    return Status::Corruption(
        "table property " + std::string(key) + " of " + root + " is not an integer: '" + *v + "'",
        errc::kDeltaInvalidTableProperty);
  return out;
}

bool UsesIct(const IctConfig& cfg, int64_t version) {
  return cfg.enabled && version >= cfg.enablement_version;
}

// The ICT of an ICT version, from its commitInfo (Spark's CommitInfo.getRequiredInCommitTimestamp).
Result<int64_t> RequiredIct(const std::optional<CommitInfo>& ci, int64_t version) {
  if (!ci)
    return Status::Corruption("in-commit timestamps are enabled but commit " +
                                  std::to_string(version) + " has no commitInfo action",
                              kErrorMissingCommitInfo);
  if (!ci->in_commit_timestamp)
    return Status::Corruption(
        "Table feature inCommitTimestamp is enabled but the commit timestamp is missing in "
        "commitInfo for version " +
            std::to_string(version) + ".",
        kErrorMissingCommitTimestamp);
  return *ci->in_commit_timestamp;
}

// Entries for `files` (ascending), with monotonic adjustment over the non-ICT ones.
Result<std::vector<CommitEntry>> BuildEntries(ObjectStore& store, const std::vector<LogFile>& files,
                                              const IctConfig& cfg, bool read_commit_info) {
  std::vector<CommitEntry> out;
  out.reserve(files.size());
  std::optional<int64_t> prev;
  for (const LogFile& f : files) {
    CommitEntry e;
    e.version = f.version;
    e.file_modification_ms = f.meta.modification_time_ms;
    e.uses_in_commit_timestamp = UsesIct(cfg, f.version);
    if (read_commit_info || e.uses_in_commit_timestamp) {
      SILT_ASSIGN_OR_RETURN(e.commit_info, ReadCommitInfo(store, f));
    }
    if (e.uses_in_commit_timestamp) {
      // ICTs are monotonic by construction (the writer guarantees it): no adjustment.
      SILT_ASSIGN_OR_RETURN(e.timestamp_ms, RequiredIct(e.commit_info, f.version));
    } else {
      e.timestamp_ms = e.file_modification_ms;
      if (prev && e.timestamp_ms <= *prev) e.timestamp_ms = *prev + 1;
      prev = e.timestamp_ms;
    }
    if (read_commit_info && !e.commit_info) {
      e.commit_info.emplace();
      e.commit_info->version = f.version;
    }
    if (!read_commit_info) e.commit_info.reset();
    out.push_back(std::move(e));
  }
  return out;
}

// "2022-02-28 10:00:00.123" with the fraction trimmed; java_style keeps at least ".0"
// (java.sql.Timestamp.toString), otherwise a zero fraction is dropped (Spark's formatter).
std::string FormatUtc(int64_t millis, bool java_style) {
  std::string s = FormatIsoTimestampMillis(millis * 1000, /*with_zone=*/false);
  size_t t = s.find('T');
  if (t != std::string::npos) s[t] = ' ';
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') {
    if (java_style) {
      s += '0';
    } else {
      s.pop_back();
    }
  }
  return s;
}

Status EarlierThanRetention(int64_t t, const CommitEntry& commit) {
  return Status::InvalidArgument("The provided timestamp (" + FormatJavaTimestamp(t) +
                                     ") is before the earliest version available to this table (" +
                                     FormatJavaTimestamp(commit.timestamp_ms) +
                                     "). Please use a timestamp after " +
                                     FormatUtc(commit.timestamp_ms, false) + ".",
                                 kErrorTimestampEarlierThanRetention);
}

Status GreaterThanCommit(int64_t t, const CommitEntry& commit) {
  return Status::InvalidArgument("The provided timestamp (" + FormatJavaTimestamp(t) +
                                     ") is after the latest version available to this table (" +
                                     FormatJavaTimestamp(commit.timestamp_ms) +
                                     "). Please use a timestamp before or at " +
                                     FormatUtc(commit.timestamp_ms, false) + ".",
                                 kErrorTimestampGreaterThanCommit);
}

// Index of the last entry with timestamp <= t, or 0 (the earliest, which the caller rejects or
// accepts per canReturnEarliestCommit) when there is none.
size_t LastAtOrBefore(const std::vector<CommitEntry>& entries, int64_t t) {
  size_t i = entries.size();
  while (i > 0 && entries[i - 1].timestamp_ms > t) --i;
  return i == 0 ? 0 : i - 1;
}

}  // namespace

Result<IctConfig> ReadIctConfig(ObjectStore& store) {
  // Non-owning: the snapshot does not outlive this call.
  std::shared_ptr<ObjectStore> alias(std::shared_ptr<ObjectStore>(), &store);
  SILT_ASSIGN_OR_RETURN(auto snapshot, Snapshot::Load(alias, std::nullopt, {.load_files = false}));
  return IctConfigOf(snapshot->metadata(), store);
}

Result<IctConfig> IctConfigOf(const Metadata& md, const ObjectStore& store) {
  IctConfig cfg;
  const std::string* enabled = md.configuration.Find(kPropEnableInCommitTimestamps);
  cfg.enabled = enabled && EqualsIgnoreCase(*enabled, "true");
  if (!cfg.enabled) return cfg;
  bool has_version = md.configuration.Contains(kPropIctEnablementVersion);
  bool has_timestamp = md.configuration.Contains(kPropIctEnablementTimestamp);
  if (has_version != has_timestamp)
    return Status::Corruption(
        "table " + store.root() + " sets only one of " + kPropIctEnablementVersion + " and " +
            kPropIctEnablementTimestamp + "; both should be present or absent together",
        errc::kDeltaInvalidTableProperty);
  if (has_version) {
    SILT_ASSIGN_OR_RETURN(cfg.enablement_version,
                          ParseIntProperty(md, kPropIctEnablementVersion, store.root()));
    SILT_ASSIGN_OR_RETURN(int64_t ts,
                          ParseIntProperty(md, kPropIctEnablementTimestamp, store.root()));
    cfg.enablement_timestamp_ms = ts;
  }
  return cfg;
}

Result<std::vector<CommitEntry>> ListCommits(ObjectStore& store, int64_t from_version,
                                             bool read_commit_info, const IctConfig* ict) {
  SILT_ASSIGN_OR_RETURN(LogListing log, ListLog(store, from_version));
  if (log.commits.empty()) return std::vector<CommitEntry>();
  if (ict) return BuildEntries(store, log.commits, *ict, read_commit_info);
  SILT_ASSIGN_OR_RETURN(IctConfig cfg, ReadIctConfig(store));
  return BuildEntries(store, log.commits, cfg, read_commit_info);
}

Result<int64_t> EarliestRecreatableVersion(ObjectStore& store) {
  SILT_ASSIGN_OR_RETURN(LogListing log, ListLog(store, 0));
  return EarliestRecreatable(store, log);
}

Status CheckVersionExists(ObjectStore& store, int64_t version, bool must_be_recreatable) {
  SILT_ASSIGN_OR_RETURN(LogListing log, ListLog(store, 0));
  int64_t earliest = 0;
  if (must_be_recreatable) {
    SILT_ASSIGN_OR_RETURN(earliest, EarliestRecreatable(store, log));
  } else if (log.commits.empty()) {
    return Status::NotFound("No commits found at " + LogPath(store), kErrorNoCommitsFound);
  } else {
    earliest = log.commits.front().version;
  }
  int64_t latest = log.commits.back().version;
  if (!log.complete_checkpoints.empty())
    latest = std::max(latest, *log.complete_checkpoints.rbegin());
  if (version < earliest || version > latest)
    return Status::NotFound("Cannot time travel Delta table to version " + std::to_string(version) +
                                ". Available versions: [" + std::to_string(earliest) + ", " +
                                std::to_string(latest) + "].",
                            kErrorVersionNotFound);
  return Status::OK();
}

Result<CommitEntry> ActiveCommitAtTimestamp(ObjectStore& store, int64_t t,
                                            const TimeTravelOptions& options) {
  SILT_ASSIGN_OR_RETURN(LogListing log, ListLog(store, 0));
  if (log.commits.empty())
    return Status::NotFound("No commits found at " + LogPath(store), kErrorNoCommitsFound);
  int64_t earliest = log.commits.front().version;
  if (options.must_be_recreatable) {
    SILT_ASSIGN_OR_RETURN(earliest, EarliestRecreatable(store, log));
  }
  const int64_t latest = log.commits.back().version;
  std::vector<LogFile> files;
  for (const LogFile& f : log.commits)
    if (f.version >= earliest) files.push_back(f);
  if (files.empty())
    return Status::NotFound("No commits found at " + LogPath(store), kErrorNoCommitsFound);
  SILT_ASSIGN_OR_RETURN(IctConfig cfg, ReadIctConfig(store));

  // Split like Spark: versions before the ICT enablement use (adjusted) mtimes, later ones ICTs.
  auto first_ict = files.begin();
  if (cfg.enabled) {
    first_ict = std::find_if(files.begin(), files.end(),
                             [&](const LogFile& f) { return f.version >= cfg.enablement_version; });
  } else {
    first_ict = files.end();
  }
  std::vector<LogFile> non_ict(files.begin(), first_ict);
  std::vector<LogFile> ict(first_ict, files.end());

  CommitEntry commit;
  bool search_ict =
      cfg.enabled && (!cfg.enablement_timestamp_ms || t >= *cfg.enablement_timestamp_ms);
  if (search_ict && !ict.empty()) {
    // Binary search for the last ICT <= t (ICTs strictly increase with the version), reading
    // O(log n) commit files.
    std::map<size_t, CommitEntry> memo;
    auto at = [&](size_t i) -> Result<CommitEntry> {
      auto it = memo.find(i);
      if (it != memo.end()) return it->second;
      SILT_ASSIGN_OR_RETURN(auto entries, BuildEntries(store, {ict[i]}, cfg, false));
      memo.emplace(i, entries.front());
      return entries.front();
    };
    size_t lo = 0, hi = ict.size();  // the first index with ICT > t lies in [lo, hi]
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      SILT_ASSIGN_OR_RETURN(CommitEntry e, at(mid));
      if (e.timestamp_ms <= t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    SILT_ASSIGN_OR_RETURN(commit, at(lo == 0 ? 0 : lo - 1));
  } else if (!non_ict.empty()) {
    SILT_ASSIGN_OR_RETURN(auto entries, BuildEntries(store, non_ict, cfg, false));
    commit = entries[LastAtOrBefore(entries, t)];
  } else {
    // A pre-ICT time, but every pre-ICT commit is gone: the earliest (ICT) version, which fails
    // below unless can_return_earliest_commit.
    SILT_ASSIGN_OR_RETURN(auto entries, BuildEntries(store, {ict.front()}, cfg, false));
    commit = entries.front();
  }

  if (commit.timestamp_ms > t && !options.can_return_earliest_commit)
    return EarlierThanRetention(t, commit);
  if (commit.version == latest && commit.timestamp_ms < t && !options.can_return_last_commit)
    return GreaterThanCommit(t, commit);
  return commit;
}

Result<int64_t> VersionAtTimestamp(ObjectStore& store, int64_t timestamp_ms,
                                   const TimeTravelOptions& options) {
  SILT_ASSIGN_OR_RETURN(CommitEntry commit, ActiveCommitAtTimestamp(store, timestamp_ms, options));
  return commit.version;
}

Result<std::vector<CommitEntry>> ReadHistory(ObjectStore& store, std::optional<int> limit) {
  if (limit && *limit < 0)
    return Status::InvalidArgument("DESCRIBE HISTORY limit must not be negative: " +
                                   std::to_string(*limit));
  if (limit && *limit == 0) return std::vector<CommitEntry>();
  SILT_ASSIGN_OR_RETURN(LogListing log, ListLog(store, 0));
  if (log.commits.empty()) return std::vector<CommitEntry>();
  int64_t latest = log.commits.back().version;
  int64_t start = limit ? std::max<int64_t>(latest - *limit + 1, 0) : 0;
  std::vector<LogFile> files;
  for (const LogFile& f : log.commits)
    if (f.version >= start) files.push_back(f);
  SILT_ASSIGN_OR_RETURN(IctConfig cfg, ReadIctConfig(store));
  SILT_ASSIGN_OR_RETURN(auto entries, BuildEntries(store, files, cfg, /*read_commit_info=*/true));
  std::reverse(entries.begin(), entries.end());
  return entries;
}

Result<int64_t> ParseTimestampLiteralMillis(std::string_view text) {
  std::string_view s = text;
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  int64_t micros = 0;
  bool has_zone = false;
  if (s.empty() || !ParseIsoTimestamp(s, &micros, &has_zone))
    return Status::InvalidArgument("The provided timestamp ('" + std::string(text) +
                                       "') cannot be converted to a valid timestamp.",
                                   kErrorTimestampInvalid);
  return FloorDiv(micros, 1000);
}

std::string FormatJavaTimestamp(int64_t millis) { return FormatUtc(millis, true); }

}  // namespace silt::delta
