// TableScan: reads the rows of a Snapshot — every live data file, in the table's logical schema:
// partition columns filled from the log's partition values, column mapping (name/id) resolved,
// columns missing from a file read as NULL, narrower file types widened, and rows marked in the
// file's deletion vector dropped.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "delta/snapshot.h"
#include "vector/vector.h"

namespace silt::delta {

struct TableScanOptions {
  std::vector<std::string> columns;  // logical top-level names; empty = all, in schema order
};

class TableScan {
 public:
  static Result<std::unique_ptr<TableScan>> Make(std::shared_ptr<const Snapshot> snapshot, TableScanOptions options = {});
  const Schema& output_schema() const { return output_schema_; }

  // Next chunk (one row group of one file, deleted rows removed); false at the end.
  Result<bool> Next(DataChunk* out);
  // Reads one data file of the snapshot, passing each row group's chunk to `sink`. Thread-safe.
  Status ScanFile(const AddFile& file, const std::function<Status(DataChunk&)>& sink) const;

 private:
  std::shared_ptr<const Snapshot> snapshot_;
  Schema output_schema_;
  std::vector<int> output_fields_;  // index into snapshot schema
  size_t next_file_ = 0;
  std::vector<DataChunk> pending_;
};

}  // namespace silt::delta
