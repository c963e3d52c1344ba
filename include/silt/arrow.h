// Arrow interchange without an Arrow dependency: the Arrow C data interface and C stream
// interface (https://arrow.apache.org/docs/format/CDataInterface.html, CStreamInterface.html),
// their structs declared exactly as the specification does, and the export of query results.
//
//   silt::Connection con(db);
//   auto result = con.Query("SELECT * FROM t");
//   ArrowArrayStream stream;
//   silt::Status st = silt::ExportArrowStream(std::move(*result), &stream);
//   // hand &stream to any Arrow consumer (pyarrow, polars, DuckDB, nanoarrow...); the consumer
//   // calls stream.release when done.
//
// Types: boolean b, byte c, short s, int i, long l, float f, double g, decimal(p,s) d:p,s (128
// bits), string u, binary z, date tdD, timestamp tsu:UTC, timestamp_ntz tsu:, interval year to
// month tiM, interval day to second tDu (a duration in microseconds), struct +s, array +l, map
// +m (entries<key, value>), void n. A result streams as struct arrays ("+s"), one per chunk,
// whose children are the columns. Fixed-width values, string bytes and offsets are shared with
// the result (zero copy; the stream and its arrays keep the result alive); validity bitmaps and
// booleans are packed into bits.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "silt/silt.h"

extern "C" {

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  // Array type description
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;

  // Release callback
  void (*release)(struct ArrowSchema*);
  // Opaque producer-specific data
  void* private_data;
};

struct ArrowArray {
  // Array data description
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;

  // Release callback
  void (*release)(struct ArrowArray*);
  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_DATA_INTERFACE

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
  // Callbacks providing stream functionality
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);

  // Release callback
  void (*release)(struct ArrowArrayStream*);

  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_STREAM_INTERFACE
}

namespace silt {

// Exports `schema` as an Arrow struct schema ("+s", no name) whose children are the fields.
// On success *out is owned by the caller (call out->release).
Status ExportArrowSchema(const Schema& schema, ArrowSchema* out);

// Exports one type as an Arrow schema named `name`.
Status ExportArrowField(const Field& field, ArrowSchema* out);

// Exports chunk `index` of `result` as an Arrow struct array (one child per column); the array
// keeps `result` alive until released.
Status ExportArrowArray(std::shared_ptr<const QueryResult> result, size_t index, ArrowArray* out);

// Exports `result` as an Arrow C stream: get_schema gives ExportArrowSchema of its schema,
// get_next each chunk in order (then an array with release == NULL). The stream owns the result.
Status ExportArrowStream(std::shared_ptr<const QueryResult> result, ArrowArrayStream* out);

// --- import -------------------------------------------------------------------------------
//
// The other direction: Arrow data (a pyarrow Table's or RecordBatchReader's __arrow_c_stream__,
// polars, DuckDB, nanoarrow, or ExportArrowStream's own streams) into silt chunks. Values are
// copied into silt's layout; the Arrow buffers are only read. Types: every format above, plus
// unsigned integers C S I L as smallint / int / bigint / decimal(20,0), large strings and binaries
// U Z, large lists +L, date64 tdm (floored to days), timestamps and durations in any unit
// (ts{s,m,u,n}:zone: with a zone TIMESTAMP, without TIMESTAMP_NTZ; tD{s,m,u,n}: interval day to
// second; nanoseconds floored to microseconds, seconds/milliseconds beyond the microsecond range
// DATETIME_OVERFLOW), and dictionary-encoded arrays (decoded to their values' type). Other formats
// (half floats, string/binary views, fixed-size binaries and lists, unions, times of day, run-end
// encoding, 256-bit decimals) fail with NOT_IMPLEMENTED naming the format; a malformed array
// (missing buffers, offsets or dictionary indices out of range) with INVALID_PARAMETER_VALUE.

// Rows per chunk the import builds (a longer Arrow array is split).
inline constexpr int64_t kArrowImportChunkRows = 65536;

// The columns of a struct schema ("+s": the rows of a stream): names, types and nullability
// (ARROW_FLAG_NULLABLE) of its children.
Result<Schema> ImportArrowSchema(const ArrowSchema* schema);

// Appends the rows of `array` (a struct array of `schema`; a NULL struct row is an error) to
// *chunks. The array stays owned by the caller (not released).
Status ImportArrowArray(const ArrowSchema* schema, const ArrowArray* array,
                        std::vector<DataChunk>* chunks);

// Reads a whole C stream: *schema from get_schema, every array of get_next appended to *chunks.
// The stream is released before returning, on success and on error (a producer's error comes back
// as an IoError with its get_last_error text).
Status ImportArrowStream(ArrowArrayStream* stream, Schema* schema, std::vector<DataChunk>* chunks);

// Makes in-memory rows (e.g. ImportArrowStream's) readable by the SQL statements of `con` as the
// temporary view `view_name`, replacing a temporary view of that name:
//   INSERT INTO t BY NAME SELECT * FROM view_name;   CREATE TABLE t AS SELECT … FROM view_name
// The rows are not copied: plans read them in place. The connection keeps them until
// DropTemporaryView, another registration under the name or its end; a SQL DROP VIEW (or a
// CREATE OR REPLACE of the name) removes the view, and the rows go at the next registration.
// Every chunk must have schema's columns (InvalidArgument otherwise).
Status RegisterTemporaryView(Connection& con, std::string_view view_name, Schema schema,
                             std::vector<DataChunk> rows);
// Removes the temporary view `view_name` and its rows (nothing when there is none).
Status DropTemporaryView(Connection& con, std::string_view view_name);

}  // namespace silt
