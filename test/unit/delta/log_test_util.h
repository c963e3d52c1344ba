// Building small Delta logs for checkpoint and log cleanup tests: commit files written directly
// with SerializeCommit into an InMemoryObjectStore whose modification times come from a
// ManualClock (the data files they name do not exist; Snapshot::Load never opens them).
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "delta/actions.h"
#include "delta/log_segment.h"
#include "delta/snapshot.h"
#include "io/memory_object_store.h"
#include "io/object_store.h"

namespace silt::delta::testing {

// 2023-11-14T22:13:20Z: a fixed "epoch" for the tests' clocks.
inline constexpr int64_t kT0 = 1700000000000;
inline constexpr int64_t kDay = 24LL * 3600 * 1000;
inline constexpr int64_t kHour = 3600LL * 1000;

inline const char* kTestSchema =
    R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},)"
    R"({"name":"part","type":"string","nullable":true,"metadata":{}}]})";

inline Protocol TestProtocol(bool features = true) {
  Protocol p;
  if (features) {
    p.min_reader_version = 3;
    p.min_writer_version = 7;
    p.reader_features = std::vector<std::string>{"deletionVectors"};
    p.writer_features =
        std::vector<std::string>{"deletionVectors", "domainMetadata", "rowTracking"};
  } else {
    p.min_reader_version = 1;
    p.min_writer_version = 2;
  }
  return p;
}

inline Metadata TestMetadata(StringMap configuration = {}) {
  Metadata m;
  m.id = "b6c1a3f0-0000-4000-8000-000000000001";
  m.name = "test_table";
  m.format.provider = "parquet";
  m.schema_string = kTestSchema;
  m.partition_columns = {"part"};
  m.configuration = std::move(configuration);
  m.created_time = kT0;
  return m;
}

inline std::string StatsJson(int64_t n, int64_t min, int64_t max) {
  return "{\"numRecords\":" + std::to_string(n) + ",\"minValues\":{\"id\":" + std::to_string(min) +
         "},\"maxValues\":{\"id\":" + std::to_string(max) + "},\"nullCount\":{\"id\":0}}";
}

inline AddFile TestAdd(const std::string& path, std::optional<std::string> part, int64_t mtime) {
  AddFile a;
  a.path = (part ? "part=" + *part : std::string("part=__HIVE_DEFAULT_PARTITION__")) + "/" + path;
  a.partition_values.Append("part", part);
  a.size = 1000 + static_cast<int64_t>(path.size());
  a.modification_time = mtime;
  a.data_change = true;
  a.stats = StatsJson(10, 0, 9);
  return a;
}

inline RemoveFile RemoveOf(const AddFile& a, int64_t deletion_ts) {
  RemoveFile r;
  r.path = a.path;
  r.deletion_timestamp = deletion_ts;
  r.data_change = true;
  r.extended_file_metadata = true;
  r.partition_values = a.partition_values;
  r.size = a.size;
  r.deletion_vector = a.deletion_vector;
  r.base_row_id = a.base_row_id;
  r.default_row_commit_version = a.default_row_commit_version;
  r.stats = a.stats;
  r.tags = a.tags;
  return r;
}

inline CommitInfo TestCommitInfo(int64_t ts, const std::string& op = "WRITE") {
  CommitInfo ci;
  ci.timestamp = ts;
  ci.operation = op;
  return ci;
}

// A table in memory whose files get the clock's time as modification time.
struct TestTable {
  std::shared_ptr<ManualClock> clock = std::make_shared<ManualClock>(kT0);
  std::shared_ptr<InMemoryObjectStore> store = std::make_shared<InMemoryObjectStore>(clock);

  Status Commit(int64_t version, const std::vector<Action>& actions) {
    return store->PutIfAbsent(CommitKey(version), SerializeCommit(actions));
  }
  Result<std::shared_ptr<const Snapshot>> Load(std::optional<int64_t> version = std::nullopt) {
    return Snapshot::Load(store, version);
  }
};

// Order-independent views of a snapshot's state (replay order differs between JSON and
// checkpoint sources; adds read from a checkpoint carry dataChange = false).
inline std::vector<AddFile> SortedFiles(const Snapshot& s) {
  std::vector<AddFile> out = s.files();
  for (auto& f : out) f.data_change = false;
  std::sort(out.begin(), out.end(), [](const AddFile& a, const AddFile& b) {
    std::string ka = a.path + '\x1f' + (a.deletion_vector ? a.deletion_vector->UniqueId() : "");
    std::string kb = b.path + '\x1f' + (b.deletion_vector ? b.deletion_vector->UniqueId() : "");
    return ka < kb;
  });
  return out;
}

// Tombstones as the checkpoint keeps them: dataChange false, no stats and tags.
inline std::vector<RemoveFile> SortedTombstones(const Snapshot& s, int64_t min_deletion_ts = -1) {
  std::vector<RemoveFile> out;
  for (RemoveFile r : s.tombstones()) {
    if (r.deletion_timestamp.value_or(0) <= min_deletion_ts) continue;
    r.data_change = false;
    r.stats.reset();
    r.tags.reset();
    out.push_back(std::move(r));
  }
  std::sort(out.begin(), out.end(), [](const RemoveFile& a, const RemoveFile& b) {
    std::string ka = a.path + (a.deletion_vector ? a.deletion_vector->UniqueId() : "");
    std::string kb = b.path + (b.deletion_vector ? b.deletion_vector->UniqueId() : "");
    return ka < kb;
  });
  return out;
}

}  // namespace silt::delta::testing
