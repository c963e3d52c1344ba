#include "delta/log_segment.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include <simdjson.h>

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
    if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
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
  if (rest.size() == 1 + 20 + 15 && rest[0] == '.' && AllDigits(rest.substr(1), 20) && rest.substr(21) == ".compacted.json") {
    f.kind = LogFileKind::kCompaction;
    f.end_version = ToInt(rest.substr(1, 20));
    return f.end_version > f.version ? std::optional<LogFile>(f) : std::nullopt;
  }
  constexpr std::string_view kCp = ".checkpoint.";
  if (rest.substr(0, kCp.size()) != kCp) return std::nullopt;
  rest.remove_prefix(kCp.size());
  // multi-part: 0000000001.0000000003.parquet
  if (rest.size() == 10 + 1 + 10 + 8 && AllDigits(rest, 10) && rest[10] == '.' && AllDigits(rest.substr(11), 10) &&
      rest.substr(21) == ".parquet") {
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

Result<LogSegment> BuildLogSegment(ObjectStore& store, std::optional<int64_t> version) {
  // The _last_checkpoint hint lets a listing start near the end of a long log; it is only a hint,
  // so a listing that finds no usable checkpoint there starts over from the beginning.
  std::optional<int64_t> hint = ReadLastCheckpointHint(store);
  if (hint && version && *hint > *version) hint.reset();
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
      } else if (f->kind == LogFileKind::kCheckpoint || f->kind == LogFileKind::kMultiPartCheckpoint ||
                 f->kind == LogFileKind::kUuidCheckpoint) {
        if (f->meta.size > 0) checkpoints[f->version].push_back(*f);
      }
    }
    if (commits.empty() && checkpoints.empty()) {
      if (hint && attempt == 0) continue;
      return Status::NotFound(store.root() + " is not a Delta table: no commits in _delta_log",
                              "DELTA_TABLE_NOT_FOUND");
    }
    LogSegment seg;
    seg.latest_version = commits.empty() ? checkpoints.rbegin()->first : commits.rbegin()->first;
    if (!checkpoints.empty()) seg.latest_version = std::max(seg.latest_version, checkpoints.rbegin()->first);
    seg.earliest_version = commits.empty() ? -1 : commits.begin()->first;
    int64_t target = version.value_or(seg.latest_version);
    if (target < 0 || target > seg.latest_version)
      return Status::NotFound("cannot time travel " + store.root() + " to version " + std::to_string(target) +
                                  ": the latest version is " + std::to_string(seg.latest_version),
                              "DELTA_VERSION_NOT_FOUND");
    // Newest complete checkpoint <= target.
    for (auto it = checkpoints.rbegin(); it != checkpoints.rend(); ++it) {
      if (it->first > target) continue;
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
    if (seg.checkpoint_version < 0 && hint && attempt == 0) continue;  // hint pointed nowhere useful
    int64_t first = seg.checkpoint_version + 1;
    if (seg.checkpoint_version < 0 && (commits.empty() || commits.begin()->first != 0)) {
      if (hint && attempt == 0) continue;
      return Status::NotFound("cannot reconstruct version " + std::to_string(target) + " of " + store.root() +
                                  ": no checkpoint at or below it and commit 0 is gone (log cleaned up)",
                              "DELTA_CANNOT_RECONSTRUCT_VERSION");
    }
    for (int64_t v = first; v <= target; ++v) {
      auto it = commits.find(v);
      if (it == commits.end())
        return Status::Corruption("the Delta log of " + store.root() + " is missing commit " + std::to_string(v) +
                                      " (versions must be contiguous)",
                                  "DELTA_VERSIONS_NOT_CONTIGUOUS");
      seg.commits.push_back(it->second);
    }
    seg.version = target;
    return seg;
  }
  return Status::Internal("unreachable");
}

}  // namespace silt::delta
