// Parquet reader: opens a file, exposes its metadata and schema, and decodes row groups straight
// into silt Vectors (projection, row ranges, row-group and page skipping by statistics).
//
// Memory: a scan holds at most one row group of the projected columns (decoded) plus one column
// chunk of compressed bytes at a time; the whole file is never read. Every offset and length in
// the file is checked: a corrupt or truncated file gives Corruption (class SILT_PARQUET_CORRUPT),
// never a crash. ParquetFile is immutable after Open and safe to read from several threads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "io/file.h"
#include "parquet/metadata.h"
#include "parquet/schema.h"
#include "vector/dictionary.h"
#include "vector/vector.h"

namespace silt::parquet {

struct ReaderOptions {
  ThriftLimits limits;
  // Bytes read speculatively from the end of the file to get the footer in one read.
  int64_t footer_read_size = 64 << 10;
  // A page claiming more than this (uncompressed) is refused (Unsupported,
  // SILT_PARQUET_PAGE_TOO_LARGE) instead of allocating it; real writers stay far below.
  int64_t max_page_bytes = 1LL << 30;
  // A page claiming more level entries than this is rejected as corrupt.
  int64_t max_page_values = 1LL << 27;
  // Page CRCs are optional in the format; checking them costs ~10% of a scan (DuckDB and Arrow
  // skip them by default too).
  bool verify_page_crc = false;
};

// Chunk statistics of one leaf column, decoded to logical values. min/max are absent when the
// file has none that silt can trust (e.g. INT96, NaN bounds, old binary stats).
struct ColumnStatistics {
  std::optional<Value> min;
  std::optional<Value> max;
  std::optional<int64_t> null_count;
  int64_t num_values = 0;
  bool min_exact = true;
  bool max_exact = true;
};

// A simple predicate on a top-level primitive column, used to skip row groups and pages whose
// statistics prove that no row matches. Never used to filter rows (callers evaluate filters).
struct ColumnPredicate {
  enum Op { kEq, kLt, kLe, kGt, kGe, kIsNull, kIsNotNull };
  std::string column;
  Op op = kEq;
  Value literal;  // same type as the column (ignored for the null checks)
};

// True unless the statistics prove that no value satisfies the predicate.
bool StatsMayMatch(const ColumnStatistics& stats, const ColumnPredicate& pred);

class ParquetFile {
 public:
  static Result<std::unique_ptr<ParquetFile>> Open(std::shared_ptr<RandomAccessFile> file,
                                                   ReaderOptions options = {});
  static Result<std::unique_ptr<ParquetFile>> OpenPath(const std::string& path,
                                                       ReaderOptions options = {});

  const FileMetaData& metadata() const { return metadata_; }
  const FileSchema& schema() const { return schema_; }
  int num_row_groups() const { return static_cast<int>(metadata_.row_groups.size()); }
  int64_t num_rows() const { return metadata_.num_rows; }
  const std::string& name() const { return file_->name(); }

  // Decodes rows [first_row, first_row + num_rows) of row group rg (num_rows < 0: to the end) for
  // the top-level columns `columns` (indices into schema().columns(), in output order; an empty
  // list means all). `out` is replaced. Uses the page index, when present, to skip pages outside
  // the range.
  Status ReadRowGroup(int rg, const std::vector<int>& columns, DataChunk* out,
                      int64_t first_row = 0, int64_t num_rows = -1) const;

  // As ReadRowGroup, but a flat string/binary column whose pages in the range are all
  // dictionary-encoded comes back as a DictionaryVector (its dictionary decoded once, an index
  // per row, no row's bytes copied). Other columns, and a string column whose writer fell back
  // to another encoding within the range, come back flat.
  Status ReadRowGroupEncoded(int rg, const std::vector<int>& columns, EncodedChunk* out,
                             int64_t first_row = 0, int64_t num_rows = -1) const;

  // Rows `sel` (ascending, relative to first_row) of rows [first_row, first_row + num_rows) of row
  // group rg for the top-level columns `columns` (as ReadRowGroup; out->size() == sel.size()).
  // Late materialization: with an offset index, a flat column decodes only the runs of pages
  // that hold a selected row (its dictionary once); the other pages are neither read nor
  // decoded. Without one (or nested) the range is decoded and the rows picked.
  // With `gathered`: when no page of the columns could be skipped (every page in the range holds
  // a selected row), decodes the whole range instead (*gathered = false, out has num_rows rows;
  // the caller picks the rows where it copies them anyway), else *gathered = true.
  Status ReadRowGroupSelected(int rg, const std::vector<int>& columns, int64_t first_row,
                              int64_t num_rows, const std::vector<uint32_t>& sel, DataChunk* out,
                              bool* gathered = nullptr) const;

  // Whole rows of row group rg for `nodes`: top-level columns of schema().columns() or pruned
  // copies of them (PruneStruct), in output order. Decodes only the leaves below each node.
  Status ReadRowGroupNodes(int rg, const std::vector<const ColumnNode*>& nodes,
                           DataChunk* out) const;

  // Calls fn with each non-null value of string leaf `leaf` (not repeated, e.g. a checkpoint's
  // add.path) in row group rg, in row order, straight from the pages: no Vector is built, so a
  // probe of 100k paths neither copies nor allocates them. The views are valid during the call.
  // A non-OK return of fn stops the walk and is returned. Other leaves: InvalidArgument.
  // [first_row, end_row) (end_row < 0: to the end) limits the walk to those rows, reading only
  // their pages; both ends must be page boundaries (PageRowStarts, or the row group's end), so
  // that disjoint ranges can be walked in parallel and each value is seen once.
  Status ForEachString(int rg, int leaf, const std::function<Status(std::string_view)>& fn,
                       int64_t first_row = 0, int64_t end_row = -1) const;
  // The first row of each data page of leaf `leaf` in row group rg, from its offset index ({0}
  // without one: the chunk is one range).
  std::vector<int64_t> PageRowStarts(int rg, int leaf) const;

  // Statistics of leaf `leaf` in row group rg.
  ColumnStatistics GetStatistics(int rg, int leaf) const;
  // Row ranges [begin, end) of row group rg that the page index says may match all the predicates
  // (one range covering the row group when there is no page index).
  std::vector<std::pair<int64_t, int64_t>> MatchingRowRanges(
      int rg, const std::vector<ColumnPredicate>& preds) const;
  // False when row group statistics prove that no row matches the predicates.
  bool RowGroupMayMatch(int rg, const std::vector<ColumnPredicate>& preds) const;

  Result<ColumnIndex> ReadColumnIndex(int rg, int leaf) const;
  Result<OffsetIndex> ReadOffsetIndex(int rg, int leaf) const;

 private:
  ParquetFile(std::shared_ptr<RandomAccessFile> file, ReaderOptions options)
      : file_(std::move(file)), options_(options) {}
  Status Init();
  Status ReadNodes(int rg, const std::vector<const ColumnNode*>& nodes, DataChunk* out,
                   int64_t first_row, int64_t num_rows) const;
  std::shared_ptr<RandomAccessFile> file_;
  ReaderOptions options_;
  FileMetaData metadata_;
  FileSchema schema_;
};

// A copy of struct column `col` with only the fields named in `fields` (whole subtrees, in the
// column's order), so ReadRowGroupNodes decodes just their leaves (a checkpoint's add.path without
// add.stats). nullopt when `col` is not a struct or has none of those fields.
std::optional<ColumnNode> PruneStruct(const ColumnNode& col,
                                      const std::vector<std::string>& fields);

// Streams a file as DataChunks (one per row group, or per matching row range), with projection,
// predicate-based skipping, and an optional row window over the whole file.
struct ScanOptions {
  std::vector<std::string> columns;  // top-level names; empty = all
  std::vector<ColumnPredicate> predicates;
  int64_t offset = 0;  // first row of the file to return
  int64_t limit = -1;  // rows to return (< 0: all)
};

class ParquetScanner {
 public:
  static Result<std::unique_ptr<ParquetScanner>> Make(std::shared_ptr<const ParquetFile> file,
                                                      ScanOptions options);
  // Fills *out with the next chunk; returns false at the end.
  Result<bool> Next(DataChunk* out);
  const Schema& output_schema() const { return output_schema_; }
  int row_groups_skipped() const { return row_groups_skipped_; }

 private:
  std::shared_ptr<const ParquetFile> file_;
  ScanOptions options_;
  std::vector<int> column_indices_;
  Schema output_schema_;
  int next_rg_ = 0;
  int64_t rg_first_row_ = 0;  // file row index of next_rg_'s first row
  int64_t returned_ = 0;
  int row_groups_skipped_ = 0;
  std::vector<std::pair<int64_t, int64_t>> pending_ranges_;
  int pending_rg_ = -1;
};

// Compares two non-null values of the same primitive type: <0, 0, >0 (strings/binary bytewise
// unsigned, floats numerically). nullopt when the types are not comparable.
std::optional<int> CompareValues(const Value& a, const Value& b);

}  // namespace silt::parquet
