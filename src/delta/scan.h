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
#include "vector/dictionary.h"
#include "vector/vector.h"

namespace silt::parquet {
class ParquetFile;
struct ColumnPredicate;
}  // namespace silt::parquet

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

class TableScan;

// One data file of a TableScan, opened: footer read, deletion vector loaded, columns matched.
// Its row groups are then read independently, so several threads can share one big file.
class TableScanFile {
 public:
  ~TableScanFile();
  int num_row_groups() const { return static_cast<int>(row_base_.size()); }
  int64_t row_group_rows(int rg) const;
  // Row ranges [begin, end) covering row group rg, of about `target_rows` rows each, cut where
  // the page index says pages of (most of) the columns read start, so a range decodes few pages
  // of its neighbours; one range when a column read has no page index or the group is small.
  std::vector<std::pair<int64_t, int64_t>> SplitRowGroup(int rg, int64_t target_rows) const;
  // Whether row group rg may hold a row whose output column `column` satisfies all predicates of
  // one of `alternatives` (their `column` fields are ignored: this column's file column is
  // used), judged by the row group's statistics. True when the column does not come from the
  // file (a partition or missing column) or its statistics cannot tell.
  bool RowGroupMayMatch(
      int rg, int column,
      const std::vector<std::vector<parquet::ColumnPredicate>>& alternatives) const;
  // Reads rows [begin, end) of row group rg (deleted rows removed) as one chunk to `sink`.
  // Thread-safe.
  Status ReadRows(int rg, int64_t begin, int64_t end,
                  const std::function<Status(DataChunk&)>& sink) const;
  // Late materialization. Chooses rows of a chunk holding only the output columns `first` (the
  // others NULL-typed placeholders of the same length): *all = true keeps every row, else *sel
  // holds the kept rows' indices, ascending. A string column of `first` that the file holds
  // dictionary-encoded comes as a placeholder too, its rows in (*dicts)[k] (k = output column):
  // select may flatten it into the chunk (and reset (*dicts)[k]); the ones it leaves are
  // flattened afterwards, for the chosen rows only.
  using SelectFn =
      std::function<Status(DataChunk&, std::vector<std::optional<DictionaryVector>>* dicts,
                           std::vector<uint32_t>* sel, bool* all)>;
  // Receives a chunk with every column filled and the chosen rows of it: `sel` null = all.
  using SelectedSink = std::function<Status(DataChunk&, const std::vector<uint32_t>* sel)>;
  // As ReadRows, but decodes the output columns `first` first, lets `select` choose among the
  // live rows, and then decodes the other columns only for the chosen rows: pages holding none
  // are not read (ParquetFile::ReadRowGroupSelected), and `sink` gets just the chosen rows. When
  // every page holds a chosen row, the columns are decoded whole and `sink` gets the live rows
  // with the choice. Nothing reaches `sink` when no row is chosen. Thread-safe.
  Status ReadRowsSelecting(int rg, int64_t begin, int64_t end, const std::vector<int>& first,
                           const SelectFn& select, const SelectedSink& sink) const;

 private:
  friend class TableScan;
  TableScanFile() = default;
  // Output column k (not the row index) of `rows` rows: from `raw` (its file column's decoded
  // values, copied or moved) or the partition value / NULLs.
  Status OutputColumn(size_t k, size_t rows, Vector* raw, bool copy, Vector* out) const;
  const TableScan* scan_ = nullptr;
  const AddFile* file_ = nullptr;
  std::unique_ptr<parquet::ParquetFile> pf_;
  std::optional<DeletionVector> dv_;
  std::vector<int> source_;     // per output column: file column, -1 missing, -2 partition column
  std::vector<int> read_cols_;  // file columns read
  std::vector<int64_t> row_base_;  // file row index of each row group's first row
};

class TableScan {
 public:
  static Result<std::unique_ptr<TableScan>> Make(std::shared_ptr<const Snapshot> snapshot,
                                                 TableScanOptions options = {});
  const Schema& output_schema() const { return output_schema_; }

  // Next chunk (one row group of one file, deleted rows removed); false at the end.
  Result<bool> Next(DataChunk* out);
  // Reads one data file of the snapshot, passing its rows to `sink` in file order, in pieces of
  // row groups of about kScanFileRows rows (page-aligned, see SplitRowGroup: smaller buffers than
  // whole row groups, so fewer page faults and cache-resident copies). Thread-safe.
  static constexpr int64_t kScanFileRows = 200'000;
  Status ScanFile(const AddFile& file, const std::function<Status(DataChunk&)>& sink) const;
  // Opens one data file of the snapshot for reading its row groups one at a time. Thread-safe;
  // `file` must outlive the result.
  Result<std::unique_ptr<TableScanFile>> OpenFile(const AddFile& file) const;

 private:
  friend class TableScanFile;
  std::shared_ptr<const Snapshot> snapshot_;
  Schema output_schema_;
  std::vector<int> output_fields_;  // index into snapshot schema
  bool with_row_index_ = false;
  size_t next_file_ = 0;
  std::vector<DataChunk> pending_;
};

}  // namespace silt::delta
