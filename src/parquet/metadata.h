// Parquet file metadata as plain C++ structs mirroring parquet.thrift (apache/parquet-format),
// with Serialize/Deserialize in the Thrift compact protocol (thrift.h).
//
// Only the fields silt reads or writes are modelled; unknown fields (and known ids with an
// unexpected wire type, as Thrift-generated readers do) are skipped on read. Optional
// thrift fields are std::optional. Deserialization is fuzz-safe: every length is checked against
// the remaining input and against the limits in ThriftLimits; malformed input yields Corruption.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace silt::parquet {

enum class Type : int32_t {
  BOOLEAN = 0,
  INT32 = 1,
  INT64 = 2,
  INT96 = 3,
  FLOAT = 4,
  DOUBLE = 5,
  BYTE_ARRAY = 6,
  FIXED_LEN_BYTE_ARRAY = 7,
};

enum class ConvertedType : int32_t {
  UTF8 = 0,
  MAP = 1,
  MAP_KEY_VALUE = 2,
  LIST = 3,
  ENUM = 4,
  DECIMAL = 5,
  DATE = 6,
  TIME_MILLIS = 7,
  TIME_MICROS = 8,
  TIMESTAMP_MILLIS = 9,
  TIMESTAMP_MICROS = 10,
  UINT_8 = 11,
  UINT_16 = 12,
  UINT_32 = 13,
  UINT_64 = 14,
  INT_8 = 15,
  INT_16 = 16,
  INT_32 = 17,
  INT_64 = 18,
  JSON = 19,
  BSON = 20,
  INTERVAL = 21,
};

enum class Repetition : int32_t { REQUIRED = 0, OPTIONAL = 1, REPEATED = 2 };

enum class Encoding : int32_t {
  PLAIN = 0,
  PLAIN_DICTIONARY = 2,
  RLE = 3,
  BIT_PACKED = 4,
  DELTA_BINARY_PACKED = 5,
  DELTA_LENGTH_BYTE_ARRAY = 6,
  DELTA_BYTE_ARRAY = 7,
  RLE_DICTIONARY = 8,
  BYTE_STREAM_SPLIT = 9,
};

enum class CompressionCodec : int32_t {
  UNCOMPRESSED = 0,
  SNAPPY = 1,
  GZIP = 2,
  LZO = 3,
  BROTLI = 4,
  LZ4 = 5,
  ZSTD = 6,
  LZ4_RAW = 7,
};

enum class PageType : int32_t {
  DATA_PAGE = 0,
  INDEX_PAGE = 1,
  DICTIONARY_PAGE = 2,
  DATA_PAGE_V2 = 3
};

enum class TimeUnit : int32_t { MILLIS = 1, MICROS = 2, NANOS = 3 };

// LogicalType union: `kind` says which member is set (field id in the thrift union).
struct LogicalType {
  enum Kind : int32_t {
    NONE = 0,
    STRING = 1,
    MAP = 2,
    LIST = 3,
    ENUM = 4,
    DECIMAL = 5,
    DATE = 6,
    TIME = 7,
    TIMESTAMP = 8,
    INTEGER = 10,
    UNKNOWN = 11,
    JSON = 12,
    BSON = 13,
    UUID = 14,
    FLOAT16 = 15,
    VARIANT = 16,
    GEOMETRY = 17,
    GEOGRAPHY = 18,
  };
  Kind kind = NONE;
  int32_t decimal_scale = 0;         // DECIMAL
  int32_t decimal_precision = 0;     // DECIMAL
  bool is_adjusted_to_utc = false;   // TIME, TIMESTAMP
  TimeUnit unit = TimeUnit::MICROS;  // TIME, TIMESTAMP
  int8_t bit_width = 0;              // INTEGER
  bool is_signed = true;             // INTEGER

  friend bool operator==(const LogicalType&, const LogicalType&) = default;
};

struct SchemaElement {
  std::optional<Type> type;  // absent for groups
  std::optional<int32_t> type_length;
  std::optional<Repetition> repetition_type;  // absent for the root
  std::string name;
  std::optional<int32_t> num_children;
  std::optional<ConvertedType> converted_type;
  std::optional<int32_t> scale;
  std::optional<int32_t> precision;
  std::optional<int32_t> field_id;
  std::optional<LogicalType> logical_type;

  friend bool operator==(const SchemaElement&, const SchemaElement&) = default;
};

struct Statistics {
  std::optional<std::string> max;  // deprecated (signed order)
  std::optional<std::string> min;  // deprecated
  std::optional<int64_t> null_count;
  std::optional<int64_t> distinct_count;
  std::optional<std::string> max_value;
  std::optional<std::string> min_value;
  std::optional<bool> is_max_value_exact;
  std::optional<bool> is_min_value_exact;

  friend bool operator==(const Statistics&, const Statistics&) = default;
};

struct KeyValue {
  std::string key;
  std::optional<std::string> value;

  friend bool operator==(const KeyValue&, const KeyValue&) = default;
};

struct PageEncodingStats {
  PageType page_type = PageType::DATA_PAGE;
  Encoding encoding = Encoding::PLAIN;
  int32_t count = 0;

  friend bool operator==(const PageEncodingStats&, const PageEncodingStats&) = default;
};

struct ColumnMetaData {
  Type type = Type::INT32;
  std::vector<Encoding> encodings;
  std::vector<std::string> path_in_schema;
  CompressionCodec codec = CompressionCodec::UNCOMPRESSED;
  int64_t num_values = 0;
  int64_t total_uncompressed_size = 0;
  int64_t total_compressed_size = 0;
  std::vector<KeyValue> key_value_metadata;
  int64_t data_page_offset = 0;
  std::optional<int64_t> index_page_offset;
  std::optional<int64_t> dictionary_page_offset;
  std::optional<Statistics> statistics;
  std::vector<PageEncodingStats> encoding_stats;
  std::optional<int64_t> bloom_filter_offset;
  std::optional<int32_t> bloom_filter_length;

  friend bool operator==(const ColumnMetaData&, const ColumnMetaData&) = default;
};

struct ColumnChunk {
  std::optional<std::string> file_path;
  int64_t file_offset = 0;
  std::optional<ColumnMetaData> meta_data;  // required in practice; Corruption when absent
  std::optional<int64_t> offset_index_offset;
  std::optional<int32_t> offset_index_length;
  std::optional<int64_t> column_index_offset;
  std::optional<int32_t> column_index_length;

  friend bool operator==(const ColumnChunk&, const ColumnChunk&) = default;
};

struct SortingColumn {
  int32_t column_idx = 0;
  bool descending = false;
  bool nulls_first = false;

  friend bool operator==(const SortingColumn&, const SortingColumn&) = default;
};

struct RowGroup {
  std::vector<ColumnChunk> columns;
  int64_t total_byte_size = 0;
  int64_t num_rows = 0;
  std::vector<SortingColumn> sorting_columns;
  std::optional<int64_t> file_offset;
  std::optional<int64_t> total_compressed_size;
  std::optional<int16_t> ordinal;

  friend bool operator==(const RowGroup&, const RowGroup&) = default;
};

struct FileMetaData {
  int32_t version = 1;
  std::vector<SchemaElement> schema;
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::vector<KeyValue> key_value_metadata;
  std::optional<std::string> created_by;
  // ColumnOrder union per leaf; true = TYPE_ORDER (the only defined order). Empty = absent.
  std::vector<bool> column_orders;

  friend bool operator==(const FileMetaData&, const FileMetaData&) = default;
};

struct DataPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::PLAIN;
  Encoding definition_level_encoding = Encoding::RLE;
  Encoding repetition_level_encoding = Encoding::RLE;
  std::optional<Statistics> statistics;

  friend bool operator==(const DataPageHeader&, const DataPageHeader&) = default;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::PLAIN;
  std::optional<bool> is_sorted;

  friend bool operator==(const DictionaryPageHeader&, const DictionaryPageHeader&) = default;
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;
  int32_t num_nulls = 0;
  int32_t num_rows = 0;
  Encoding encoding = Encoding::PLAIN;
  int32_t definition_levels_byte_length = 0;
  int32_t repetition_levels_byte_length = 0;
  bool is_compressed = true;  // thrift default true
  std::optional<Statistics> statistics;

  friend bool operator==(const DataPageHeaderV2&, const DataPageHeaderV2&) = default;
};

struct PageHeader {
  PageType type = PageType::DATA_PAGE;  // unknown values are kept as their integer
  int32_t uncompressed_page_size = 0;
  int32_t compressed_page_size = 0;
  std::optional<int32_t> crc;
  std::optional<DataPageHeader> data_page_header;
  std::optional<DictionaryPageHeader> dictionary_page_header;
  std::optional<DataPageHeaderV2> data_page_header_v2;

  friend bool operator==(const PageHeader&, const PageHeader&) = default;
};

enum class BoundaryOrder : int32_t { UNORDERED = 0, ASCENDING = 1, DESCENDING = 2 };

struct ColumnIndex {
  std::vector<bool> null_pages;
  std::vector<std::string> min_values;
  std::vector<std::string> max_values;
  BoundaryOrder boundary_order = BoundaryOrder::UNORDERED;
  std::vector<int64_t> null_counts;  // empty = absent

  friend bool operator==(const ColumnIndex&, const ColumnIndex&) = default;
};

struct PageLocation {
  int64_t offset = 0;
  int32_t compressed_page_size = 0;  // including the page header
  int64_t first_row_index = 0;

  friend bool operator==(const PageLocation&, const PageLocation&) = default;
};

struct OffsetIndex {
  std::vector<PageLocation> page_locations;

  friend bool operator==(const OffsetIndex&, const OffsetIndex&) = default;
};

// Bounds applied while decoding untrusted bytes.
struct ThriftLimits {
  int64_t max_string_bytes = 256LL << 20;  // a single binary/string field
  int64_t max_list_elements = 10'000'000;  // a single list/map
  int max_depth = 64;                      // struct/list nesting
};

// Each Deserialize decodes one struct from [data, data+len); *consumed (if not null) receives the
// number of bytes used (page headers are followed by page data). Returns Corruption on malformed
// or truncated input, missing required fields, or limit violations.
Status DeserializeFileMetaData(const uint8_t* data, size_t len, FileMetaData* out,
                               const ThriftLimits& limits = {});
Status DeserializePageHeader(const uint8_t* data, size_t len, PageHeader* out, size_t* consumed,
                             const ThriftLimits& limits = {});
Status DeserializeColumnIndex(const uint8_t* data, size_t len, ColumnIndex* out,
                              const ThriftLimits& limits = {});
Status DeserializeOffsetIndex(const uint8_t* data, size_t len, OffsetIndex* out,
                              const ThriftLimits& limits = {});

// Each Serialize appends the compact-protocol encoding to *out (fields in ascending id order,
// required fields always written).
void SerializeFileMetaData(const FileMetaData& md, std::string* out);
void SerializePageHeader(const PageHeader& h, std::string* out);
void SerializeColumnIndex(const ColumnIndex& ci, std::string* out);
void SerializeOffsetIndex(const OffsetIndex& oi, std::string* out);

const char* TypeName(Type t);
const char* EncodingName(Encoding e);
const char* CodecName(CompressionCodec c);
const char* ConvertedTypeName(ConvertedType c);

}  // namespace silt::parquet
