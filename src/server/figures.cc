#include "server/figures.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "delta/actions.h"
#include "delta/log_segment.h"
#include "delta/snapshot.h"
#include "delta/stats_json.h"
#include "io/object_store_factory.h"

namespace silt::server {
namespace {

std::string PartitionText(const std::vector<std::string>& columns,
                          const delta::PartitionValues& values) {
  std::string out;
  for (const std::string& c : columns) {
    if (!out.empty()) out += '/';
    out += c;
    out += '=';
    const std::optional<std::string>* v = values.Find(c);
    if (!v || !*v) {
      out += "__HIVE_DEFAULT_PARTITION__";
    } else {
      out += **v;
    }
  }
  return out;
}

int64_t DvRows(const std::optional<delta::DeletionVectorDescriptor>& dv) {
  return dv ? dv->cardinality : 0;
}

}  // namespace

Result<TableFigures> BuildFigures(const std::shared_ptr<ObjectStore>& store,
                                  const std::string& location, const FiguresOptions& options) {
  SILT_ASSIGN_OR_RETURN(std::shared_ptr<const delta::Snapshot> snap, delta::Snapshot::Load(store));
  TableFigures f;
  f.location = location;
  f.version = snap->version();
  f.timestamp_ms = snap->timestamp_ms();
  f.name = snap->metadata().name.value_or("");
  f.partition_columns = snap->partition_columns();
  f.min_file_size = options.min_file_size;
  for (const auto& [k, v] : snap->metadata().configuration) f.properties[k] = v;
  if (auto d = snap->property("autottl.expireInDays")) f.ttl_days = *d;
  if (auto c = snap->property("autottl.timestampColumn")) f.ttl_column = *c;

  std::unordered_map<std::string, PartitionFigure> parts;
  for (const delta::AddFile& a : snap->files()) {
    ++f.files;
    f.bytes += a.size;
    if (a.size < options.min_file_size) {
      ++f.small_files;
      f.small_files_bytes += a.size;
    }
    std::optional<int64_t> n = a.stats ? delta::StatsNumRecords(*a.stats) : std::nullopt;
    if (n) {
      f.rows += *n;
    } else {
      ++f.files_without_stats;
    }
    if (a.deletion_vector) {
      ++f.dv_files;
      f.dv_deleted_rows += a.deletion_vector->cardinality;
    }
    if (!f.partition_columns.empty()) {
      std::string key = PartitionText(f.partition_columns, a.partition_values);
      PartitionFigure& p = parts[key];
      p.partition = key;
      ++p.files;
      p.bytes += a.size;
    }
  }
  for (const delta::RemoveFile& r : snap->tombstones()) {
    ++f.tombstones;
    f.tombstone_bytes += r.size.value_or(0);
  }
  f.num_partitions = static_cast<int64_t>(parts.size());
  for (auto& [k, p] : parts) f.partitions.push_back(std::move(p));
  std::sort(f.partitions.begin(), f.partitions.end(),
            [](const PartitionFigure& a, const PartitionFigure& b) {
              return a.bytes != b.bytes ? a.bytes > b.bytes : a.partition < b.partition;
            });
  if (f.partitions.size() > 100) f.partitions.resize(100);

  // History over versions: walk back from the latest snapshot, undoing each commit (its adds
  // leave, its removes come back), while the commit files are there.
  VersionPoint cur;
  cur.version = f.version;
  cur.files = f.files;
  cur.bytes = f.bytes;
  cur.small_files = f.small_files;
  cur.dv_deleted_rows = f.dv_deleted_rows;
  std::vector<VersionPoint> back;
  std::vector<delta::Action> actions;
  for (int64_t v = f.version; v >= 0 && static_cast<int>(back.size()) < options.max_versions; --v) {
    Result<std::string> bytes = store->Get(delta::CommitKey(v));
    if (!bytes.ok()) {
      if (bytes.status().code() == StatusCode::kNotFound) break;  // cleaned up: history ends
      return bytes.status();
    }
    actions.clear();
    SILT_RETURN_NOT_OK(delta::ParseCommit(*bytes, &actions, delta::CommitKey(v)));
    VersionPoint here = cur;
    here.version = v;
    VersionPoint before = cur;
    for (const delta::Action& a : actions) {
      if (const auto* ci = a.get_if<delta::CommitInfo>()) {
        here.timestamp_ms = ci->in_commit_timestamp.value_or(ci->timestamp.value_or(0));
        here.operation = ci->operation.value_or("");
      } else if (const auto* add = a.get_if<delta::AddFile>()) {
        --before.files;
        before.bytes -= add->size;
        before.small_files -= add->size < options.min_file_size;
        before.dv_deleted_rows -= DvRows(add->deletion_vector);
      } else if (const auto* rm = a.get_if<delta::RemoveFile>()) {
        ++before.files;
        if (rm->size) {
          before.bytes += *rm->size;
          before.small_files += *rm->size < options.min_file_size;
        } else {
          before.bytes_exact = false;
        }
        before.dv_deleted_rows += DvRows(rm->deletion_vector);
      }
    }
    if (v == f.version && here.timestamp_ms == 0) here.timestamp_ms = f.timestamp_ms;
    back.push_back(here);
    cur = before;
  }
  f.series.assign(back.rbegin(), back.rend());
  return f;
}

Result<std::shared_ptr<const TableFigures>> FiguresCache::Get(const std::string& location,
                                                              bool* from_cache) {
  std::shared_ptr<ObjectStore> store;
  std::shared_ptr<const TableFigures> cached;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(location);
    if (it != entries_.end()) {
      store = it->second.store;
      cached = it->second.figures;
    }
  }
  if (!store) {
    SILT_ASSIGN_OR_RETURN(store, OpenObjectStore(location, clock_));
  }
  SILT_ASSIGN_OR_RETURN(delta::LogSegment segment, delta::BuildLogSegment(*store, std::nullopt));
  if (cached && cached->version == segment.version) {
    *from_cache = true;
    return cached;
  }
  *from_cache = false;
  SILT_ASSIGN_OR_RETURN(TableFigures built, BuildFigures(store, location, options_));
  auto figures = std::make_shared<const TableFigures>(std::move(built));
  std::lock_guard<std::mutex> lock(mu_);
  entries_[location] = Entry{store, figures};
  return figures;
}

void FiguresCache::Invalidate(const std::string& location) {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.erase(location);
}

}  // namespace silt::server
