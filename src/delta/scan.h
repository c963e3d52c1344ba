// TableScan: reads the rows of a Snapshot — every live data file, in the table's logical schema:
// partition columns filled from the log's partition values, column mapping (name/id) resolved,
// columns missing from a file read as NULL, narrower file types widened, and rows marked in the
// file's deletion vector dropped.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "delta/deletion_vector.h"
#include "delta/snapshot.h"
#include "vector/vector.h"

namespace silt::delta {

// Name of the optional trailing row-index column (Spark's `_metadata.row_index`).
inline constexpr char kRowIndexColumn[] = "_metadata.row_index";

struct TableScanOptions {
  std::vector<std::string> columns;  // logical top-level names; empty = all, in schema order
  // Appends a non-null BIGINT column kRowIndexColumn: each surviving row's 0-based physical
  // position in its data file (counting the rows the file's deletion vector hides), which is
  // what a deletion vector stores. DML uses it to turn matched rows back into DV entries.
  bool with_row_index = false;
};

// The deletion vector of a live file of `snapshot` (nullopt when the file has none), read through
// the snapshot's store ('u' and in-root paths) or the local file system (absolute 'p' paths).
// Errors as ReadDv, with the data file named.
Result<std::optional<DeletionVector>> LoadDeletionVector(const Snapshot& snapshot,
                                                         const AddFile& file);

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
  bool with_row_index_ = false;
  size_t next_file_ = 0;
  std::vector<DataChunk> pending_;
};

}  // namespace silt::delta
