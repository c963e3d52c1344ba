#include "delta/log_segment.h"

#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "common/error_classes.h"
#include "delta/log_listing.h"

namespace silt::delta {
namespace {

bool AllDigits(std::string_view s, size_t n) {
  if (s.size() < n) return false;
  for (size_t i = 0; i < n; ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

int64_t ToInt(std::string_view s) {
  int64_t v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

bool IsUuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < 36; ++i) {
    char c = s[i];
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? c != '-'
             : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
      return false;
  }
  return true;
}

}  // namespace

std::optional<LogFile> ParseLogFileName(const ObjectMeta& meta) {
  std::string_view key = meta.key;
  size_t slash = key.rfind('/');
  std::string_view name = slash == std::string_view::npos ? key : key.substr(slash + 1);
  if (!AllDigits(name, 20)) return std::nullopt;
  LogFile f;
  f.meta = meta;
  f.version = ToInt(name.substr(0, 20));
  std::string_view rest = name.substr(20);
  if (rest == ".json") {
    f.kind = LogFileKind::kCommit;
    return f;
  }
  if (rest == ".crc") {
    f.kind = LogFileKind::kChecksum;
    return f;
  }
  if (rest == ".checkpoint.parquet") {
    f.kind = LogFileKind::kCheckpoint;
    return f;
  }
  if (rest.size() == 1 + 20 + 15 && rest[0] == '.' && AllDigits(rest.substr(1), 20) &&
      rest.substr(21) == ".compacted.json") {
    f.kind = LogFileKind::kCompaction;
    f.end_version = ToInt(rest.substr(1, 20));
    return f.end_version > f.version ? std::optional<LogFile>(f) : std::nullopt;
  }
  constexpr std::string_view kCp = ".checkpoint.";
  if (rest.substr(0, kCp.size()) != kCp) return std::nullopt;
  rest.remove_prefix(kCp.size());
  // multi-part: 0000000001.0000000003.parquet
  if (rest.size() == 10 + 1 + 10 + 8 && AllDigits(rest, 10) && rest[10] == '.' &&
      AllDigits(rest.substr(11), 10) && rest.substr(21) == ".parquet") {
    f.kind = LogFileKind::kMultiPartCheckpoint;
    f.part = static_cast<int>(ToInt(rest.substr(0, 10)));
    f.num_parts = static_cast<int>(ToInt(rest.substr(11, 10)));
    if (f.part < 1 || f.part > f.num_parts) return std::nullopt;
    return f;
  }
  if (rest.size() > 36 && IsUuid(rest.substr(0, 36))) {
    std::string_view ext = rest.substr(36);
    if (ext == ".json" || ext == ".parquet") {
      f.kind = LogFileKind::kUuidCheckpoint;
      f.json = ext == ".json";
      return f;
    }
  }
  return std::nullopt;
}

std::string CommitKey(int64_t version) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%020lld.json", kLogDir, static_cast<long long>(version));
  return buf;
}

std::optional<int64_t> ReadLastCheckpointHint(ObjectStore& store) {
  auto bytes = store.Get(std::string(kLogDir) + "_last_checkpoint");
  if (!bytes.ok()) return std::nullopt;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(bytes->data(), bytes->size()).get(doc)) return std::nullopt;
  int64_t v;
  if (doc["version"].get_int64().get(v) || v < 0) return std::nullopt;
  return v;
}

Result<std::optional<int64_t>> FillCommitGaps(ObjectStore& store,
                                              std::map<int64_t, LogFile>* commits, int64_t lo,
                                              int64_t hi) {
  // The versions of [lo, hi] not in `commits`, ascending, at most `limit` of them.
  auto missing = [&](size_t limit) {
    std::vector<int64_t> out;
    int64_t expect = lo;  // the smallest version not yet classified
    for (auto it = commits->lower_bound(lo); expect <= hi && out.size() < limit; ++it) {
      const bool present = it != commits->end() && it->first <= hi;
      const int64_t stop =
          present ? it->first : hi;  // missing: [expect, stop) or, at the end, [expect, hi]
      while (out.size() < limit && (present ? expect < stop : expect <= stop))
        out.push_back(expect++);
      if (!present || out.size() >= limit) break;
      expect = it->first + 1;
    }
    return out;
  };
  std::vector<int64_t> gaps = missing(1);
  if (gaps.empty()) return std::optional<int64_t>();
  // A second listing starts after the first ended, so it reports every commit the first one
  // missed because it was being written meanwhile.
  char from[48];
  std::snprintf(from, sizeof from, "%s%020lld", kLogDir, static_cast<long long>(gaps.front()));
  SILT_ASSIGN_OR_RETURN(auto listing, store.ListFrom(from));
  for (const ObjectMeta& m : listing) {
    auto f = ParseLogFileName(m);
    if (f && f->kind == LogFileKind::kCommit && f->version <= hi) commits->emplace(f->version, *f);
  }
  // Whatever is still missing (a hole, or a listing that raced another writer again): Head cannot
  // miss a file that exists. Bounded: a hole of more than kMaxProbes versions is no race.
  constexpr size_t kMaxProbes = 1000;
  gaps = missing(kMaxProbes + 1);
  std::optional<int64_t> hole;
  for (size_t i = 0; i < gaps.size(); ++i) {
    if (i == kMaxProbes) {
      if (!hole) hole = gaps[i];
      break;
    }
    std::string key = CommitKey(gaps[i]);
    Result<ObjectMeta> meta = store.Head(key);
    if (!meta.ok()) {
      if (!meta.status().IsNotFound()) return meta.status();
      if (!hole) hole = gaps[i];
      continue;
    }
    LogFile f;
    f.kind = LogFileKind::kCommit;
    f.version = gaps[i];
    f.meta = std::move(meta).value();
    f.meta.key = std::move(key);
    commits->emplace(f.version, std::move(f));
  }
  return hole;
}

Result<LogSegment> BuildLogSegment(ObjectStore& store, std::optional<int64_t> version) {
  return BuildLogSegment(store, version, std::nullopt);
}

Result<LogSegment> BuildLogSegment(ObjectStore& store, std::optional<int64_t> version,
                                   std::optional<int64_t> checkpoint_below) {
  // The _last_checkpoint hint lets a listing start near the end of a long log; it is only a hint,
  // so a listing that finds no usable checkpoint there starts over from the beginning.
  std::optional<int64_t> hint = ReadLastCheckpointHint(store);
  if (hint && version && *hint > *version) hint.reset();
  if (hint && checkpoint_below && *hint >= *checkpoint_below) hint.reset();
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::string from = kLogDir;
    if (hint && attempt == 0) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%020lld", static_cast<long long>(*hint));
      from += buf;
    }
    SILT_ASSIGN_OR_RETURN(auto listing, store.ListFrom(from));
    std::map<int64_t, LogFile> commits;
    std::map<int64_t, std::vector<LogFile>> checkpoints;  // version → candidate files
    for (const ObjectMeta& m : listing) {
      auto f = ParseLogFileName(m);
      if (!f) continue;
      if (f->kind == LogFileKind::kCommit) {
        commits[f->version] = *f;
      } else if (f->kind == LogFileKind::kCheckpoint ||
                 f->kind == LogFileKind::kMultiPartCheckpoint ||
                 f->kind == LogFileKind::kUuidCheckpoint) {
        if (f->meta.size > 0) checkpoints[f->version].push_back(*f);
      }
    }
    if (commits.empty() && checkpoints.empty()) {
      if (hint && attempt == 0) continue;
      return Status::NotFound(store.root() + " is not a Delta table: no commits in _delta_log",
                              errc::kDeltaTableNotFound);
    }
    LogSegment seg;
    seg.latest_version = commits.empty() ? checkpoints.rbegin()->first : commits.rbegin()->first;
    if (!checkpoints.empty())
      seg.latest_version = std::max(seg.latest_version, checkpoints.rbegin()->first);
    seg.earliest_version = commits.empty() ? -1 : commits.begin()->first;
    int64_t target = version.value_or(seg.latest_version);
    if (target < 0 || target > seg.latest_version)
      return Status::NotFound("cannot time travel " + store.root() + " to version " +
                                  std::to_string(target) + ": the latest version is " +
                                  std::to_string(seg.latest_version),
                              errc::kDeltaVersionNotFound);
    // Newest complete checkpoint <= target.
    for (auto it = checkpoints.rbegin(); it != checkpoints.rend(); ++it) {
      if (it->first > target || (checkpoint_below && it->first >= *checkpoint_below)) continue;
      const auto& files = it->second;
      std::vector<LogFile> chosen;
      // Prefer a single-file checkpoint (classic or UUID), else a complete multi-part set.
      for (const auto& f : files)
        if (f.kind != LogFileKind::kMultiPartCheckpoint) {
          chosen = {f};
          break;
        }
      if (chosen.empty()) {
        std::map<int, std::map<int, LogFile>> by_count;
        for (const auto& f : files) by_count[f.num_parts][f.part] = f;
        for (auto& [n, parts] : by_count)
          if (static_cast<int>(parts.size()) == n) {
            for (auto& [p, f] : parts) chosen.push_back(f);
            break;
          }
      }
      if (chosen.empty()) continue;  // incomplete multi-part: ignore it
      seg.checkpoint_version = it->first;
      seg.checkpoint_parts = std::move(chosen);
      break;
    }
    if (seg.checkpoint_version < 0 && hint && attempt == 0)
      continue;  // hint pointed nowhere useful
    int64_t first = seg.checkpoint_version + 1;
    if (seg.checkpoint_version < 0 && (commits.empty() || commits.begin()->first != 0)) {
      if (hint && attempt == 0) continue;
      return Status::NotFound(
          "cannot reconstruct version " + std::to_string(target) + " of " + store.root() +
              ": no checkpoint at or below it and commit 0 is gone (log cleaned up)",
          errc::kDeltaCannotReconstructVersion);
    }
    SILT_ASSIGN_OR_RETURN(std::optional<int64_t> missing,
                          FillCommitGaps(store, &commits, first, target));
    if (missing)
      return Status::Corruption("the Delta log of " + store.root() + " is missing commit " +
                                    std::to_string(*missing) + " (versions must be contiguous)",
                                errc::kDeltaVersionsNotContiguous);
    for (int64_t v = first; v <= target; ++v) seg.commits.push_back(commits.at(v));
    seg.version = target;
    return seg;
  }
  return Status::Internal("unreachable");
}

}  // namespace silt::delta
