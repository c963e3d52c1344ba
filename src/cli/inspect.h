// `silt inspect TABLE`: a health report of a Delta table's live files (latest snapshot) — per
// file and per partition sizes, rows and deletion-vector (deleted-row) counts, totals, and hints
// (small files → OPTIMIZE, deletion-vector bloat → OPTIMIZE / REORG TABLE … APPLY (PURGE),
// removed files awaiting VACUUM).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "delta/snapshot.h"

namespace silt::cli {

struct InspectOptions {
  // Files smaller than this are "small" (spark.databricks.delta.optimize.minFileSize's role,
  // default 1 GiB as in Delta; OPTIMIZE compacts them).
  int64_t min_file_size = 1LL << 30;
  // Files whose deleted-row ratio exceeds this are rewritten by OPTIMIZE
  // (spark.databricks.delta.optimize.maxDeletedRowsRatio, default 0.05).
  double max_deleted_rows_ratio = 0.05;
  // "Now" in epoch millis for VACUUM eligibility of tombstones (deletion timestamp older than
  // delta.deletedFileRetentionDuration).
  int64_t now_millis = 0;
};

struct InspectCounts {
  int64_t files = 0;
  int64_t bytes = 0;
  int64_t rows = 0;          // numRecords summed over files that have it
  int64_t deleted_rows = 0;  // DV cardinalities
  int64_t files_without_stats = 0;
  double deleted_ratio() const {
    return rows > 0 ? static_cast<double>(deleted_rows) / static_cast<double>(rows) : 0;
  }
};

struct InspectFile {
  std::string path;
  std::string partition;  // "a=1/b=x" ("" for unpartitioned tables)
  int64_t size = 0;
  std::optional<int64_t> num_records;
  int64_t deleted_rows = 0;
  bool has_dv = false;
  double deleted_ratio() const {
    return num_records && *num_records > 0
               ? static_cast<double>(deleted_rows) / static_cast<double>(*num_records)
               : 0;
  }
};

struct InspectPartition {
  std::string partition;
  InspectCounts counts;
};

struct InspectReport {
  std::string location;
  int64_t version = 0;
  std::vector<std::string> partition_columns;
  InspectOptions options;
  std::vector<InspectFile> files;            // sorted by partition, then path
  std::vector<InspectPartition> partitions;  // sorted; one entry "" when unpartitioned
  InspectCounts totals;
  int64_t small_files = 0;
  int64_t small_files_bytes = 0;
  int64_t dv_files = 0;          // files with a deletion vector
  int64_t dv_bloated_files = 0;  // deleted ratio above max_deleted_rows_ratio
  int64_t tombstones = 0;        // removed files still recorded in the log
  int64_t tombstone_bytes = 0;
  int64_t vacuumable = 0;  // tombstones past delta.deletedFileRetentionDuration
  int64_t retention_millis = 0;
  std::vector<std::string> hints;
};

Result<InspectReport> BuildInspectReport(const delta::Snapshot& snapshot,
                                         const std::string& location,
                                         const InspectOptions& options);
std::string RenderInspectText(const InspectReport& report);
std::string RenderInspectJson(const InspectReport& report);

}  // namespace silt::cli
