// Parquet writer: buffers DataChunks of a fixed schema and writes row groups of Spark-compatible
// Parquet (PAR1, DataPage v1 by default, RLE_DICTIONARY with PLAIN fallback, chunk statistics,
// column and offset indexes, both LogicalType and ConvertedType annotations).
//
// Memory: one row group of buffered input plus its encoded pages (column chunks are built in
// parallel and written in order when the row group is flushed). Not thread-safe. A file is complete
// only after Close() returns OK; callers that publish files (Delta commits) must reference them
// only after that.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "io/file.h"
#include "parquet/metadata.h"
#include "parquet/reader.h"
#include "parquet/schema.h"
#include "vector/vector.h"

namespace silt {
class ThreadPool;
}

namespace silt::parquet {

struct WriterOptions {
  CompressionCodec codec = CompressionCodec::SNAPPY;
  int compression_level = -1;               // codec default
  int64_t row_group_bytes = 128LL << 20;    // target row group size (the buffered values' bytes)
  int64_t row_group_max_rows = -1;          // optional row cap per row group
  int64_t page_bytes = 1 << 20;             // target page size (values)
  int64_t page_rows = 20000;                // max rows per page (parquet-mr's default)
  int64_t dictionary_page_bytes = 1 << 20;  // dictionary larger than this falls back to PLAIN
  bool dictionary = true;
  int data_page_version = 1;  // 1 (Spark's default) or 2
  bool write_page_index = true;
  bool write_page_crc = true;
  int stats_truncate_bytes = 64;  // binary min/max longer than this are truncated
  std::string created_by;         // default "silt version X (build silt)"
  std::vector<KeyValue> key_value_metadata;
  // Rows the file will get, when the caller knows: the row group buffers are then sized once
  // (for at most a row group) instead of growing, copying and faulting in fresh pages as rows
  // come. Only memory is affected, never the file.
  int64_t expected_rows = -1;
  // Builds (encodes, compresses, checksums) batches of a column chunk's pages in parallel when
  // set; pages are still appended in order, so the file is the same as without.
  ThreadPool* pool = nullptr;
};

class ParquetWriter {
 public:
  // `sink` receives the bytes; the writer owns it and closes it in Close().
  static Result<std::unique_ptr<ParquetWriter>> Make(std::unique_ptr<WritableFile> sink,
                                                     const Schema& schema,
                                                     WriterOptions options = {});
  ~ParquetWriter();

  // Appends rows (columns in schema order, same types). A null in a non-nullable field fails
  // with InvalidArgument (DELTA_NOT_NULL_CONSTRAINT_VIOLATED) and nothing of the chunk is kept.
  Status Write(const DataChunk& chunk);
  // Writes the buffered rows as a row group (no-op when empty).
  Status FlushRowGroup();
  // Flushes, writes page indexes and the footer, and closes the sink.
  Status Close();

  const FileMetaData& metadata() const { return metadata_; }
  const FileSchema& file_schema() const { return file_schema_; }
  int64_t num_rows() const { return rows_written_ + buffered_rows_; }
  int64_t bytes_written() const;
  // Exact per-leaf statistics over the whole file (untruncated min/max), valid after Close().
  const std::vector<ColumnStatistics>& leaf_statistics() const { return leaf_stats_; }

 private:
  ParquetWriter() = default;
  // A column chunk's pages, built apart from the file so columns are encoded in parallel; its
  // offsets (chunk, pages) are relative to its start until FlushRowGroup places it.
  struct ColumnOut {
    std::vector<std::string> pages;
    int64_t size = 0;
    int64_t uncompressed = 0;
    std::vector<int> leaves;
  };
  Status WriteColumn(const Vector& column, const ColumnNode& node, RowGroup* rg, ColumnOut* out);
  struct PageIndexes {
    ColumnIndex column_index;
    OffsetIndex offset_index;
    bool valid = true;
  };

  std::unique_ptr<WritableFile> sink_;
  Schema schema_;
  WriterOptions options_;
  FileSchema file_schema_;
  FileMetaData metadata_;
  std::vector<Vector> buffered_;
  int64_t buffered_rows_ = 0;
  int64_t buffered_bytes_ = 0;
  int64_t rows_written_ = 0;
  int64_t offset_ = 0;  // bytes written to sink
  bool closed_ = false;
  std::vector<std::vector<PageIndexes>> page_indexes_;  // [row group][leaf]
  std::vector<ColumnStatistics> leaf_stats_;
};

}  // namespace silt::parquet
