// The web console's per-table figures: size, files, small files, deletion-vector deleted rows,
// partitions, tombstones, the TTL policy — from the latest snapshot — and their history over the
// last versions (files, bytes, small files, DV deleted rows per version, walked back from the
// latest snapshot through the commits). A FiguresCache keeps them per table location and version,
// so a page of a 100k-file table is answered from memory while the table does not change (one
// `_delta_log/` listing per request to learn the latest version).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "io/object_store.h"

namespace silt::server {

struct VersionPoint {
  int64_t version = 0;
  int64_t timestamp_ms = 0;
  std::string operation;
  int64_t files = 0;
  int64_t bytes = 0;
  int64_t small_files = 0;
  int64_t dv_deleted_rows = 0;
  bool bytes_exact = true;  // false when a remove in a later commit had no size
};

struct PartitionFigure {
  std::string partition;  // "a=1/b=x"
  int64_t files = 0;
  int64_t bytes = 0;
};

struct TableFigures {
  std::string location;
  int64_t version = 0;
  int64_t timestamp_ms = 0;
  std::string name;  // metadata name (may be empty)
  std::vector<std::string> partition_columns;
  int64_t files = 0;
  int64_t bytes = 0;
  int64_t rows = 0;  // numRecords summed over files with statistics
  int64_t files_without_stats = 0;
  int64_t small_files = 0;  // size < min_file_size
  int64_t small_files_bytes = 0;
  int64_t min_file_size = 0;
  int64_t dv_files = 0;
  int64_t dv_deleted_rows = 0;
  int64_t tombstones = 0;
  int64_t tombstone_bytes = 0;
  int64_t num_partitions = 0;
  std::vector<PartitionFigure> partitions;  // the largest first, at most 100
  std::optional<std::string> ttl_days;      // autottl.expireInDays
  std::optional<std::string> ttl_column;    // autottl.timestampColumn
  std::map<std::string, std::string> properties;
  std::vector<VersionPoint> series;  // ascending versions, the last `max_versions`
  double DeletedRatio() const {
    return rows > 0 ? static_cast<double>(dv_deleted_rows) / static_cast<double>(rows) : 0;
  }
};

struct FiguresOptions {
  // Files smaller than this are "small" (spark.databricks.delta.optimize.minFileSize's default,
  // 1 GiB, unless the table or the caller says otherwise).
  int64_t min_file_size = 1LL << 30;
  int max_versions = 100;
};

// Builds the figures of the table stored at `store` (its root), from scratch.
Result<TableFigures> BuildFigures(const std::shared_ptr<ObjectStore>& store,
                                  const std::string& location, const FiguresOptions& options);

// Figures per table location, rebuilt when the table's latest version changes.
class FiguresCache {
 public:
  FiguresCache(std::shared_ptr<Clock> clock, FiguresOptions options)
      : clock_(std::move(clock)), options_(options) {}
  // The figures of the table at `location` (a canonical location) for its latest version;
  // *from_cache tells whether they were served from memory.
  Result<std::shared_ptr<const TableFigures>> Get(const std::string& location, bool* from_cache);
  void Invalidate(const std::string& location);

 private:
  struct Entry {
    std::shared_ptr<ObjectStore> store;
    std::shared_ptr<const TableFigures> figures;
  };
  std::shared_ptr<Clock> clock_;
  FiguresOptions options_;
  std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

}  // namespace silt::server
