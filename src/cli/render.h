// Rendering of query results (a Schema + columnar chunks) for `silt sql`, `silt shell` and the
// sqllogictest runner. Pure functions: no engine, no I/O besides the ostream they are given.
//
// Output modes:
//   box   a Unicode box like DuckDB's default (column names and Spark type names in the header,
//         numbers right-aligned, wide cells cut with "…", long results cut to the first and last
//         rows with a "N rows (M shown)" footer). The shell's default on a terminal.
//   tabs  spark-sql's output: one line per row, cells separated by a tab, no header, values as
//         spark-sql prints them (HiveResult.toHiveString). The default when stdout is no terminal.
//   csv   RFC 4180: a header line, cells quoted when they hold , " CR or LF (or would be read
//         back as NULL); NULL is an empty unquoted field, the empty string is "". CRLF-free
//         (lines end in \n). Cells use the tabs mode's text.
//   json  JSON lines: one object per row, {"column": value, ...} in column order, values in the
//         canonical JSON of Value::ToJson (numbers, decimals as strings, dates/timestamps as
//         strings, binary as "0x…", maps as [[k, v], ...]).
//
// Cell text styles (how one value is spelled):
//   kHive    spark-sql / Spark's golden result files: NULL at top level, null nested; strings
//            raw at top level and "quoted" nested; arrays [1,2]; maps {"a":1} sorted by their
//            text; structs {"f":1,"g":"x"}; doubles as Java's Double.toString (1.0, 1.0E10,
//            NaN, Infinity); timestamps yyyy-MM-dd HH:mm:ss[.fraction without trailing zeros]
//            (TIMESTAMP in the given zone, UTC when none; TIMESTAMP_NTZ as stored); binary as its
//            bytes read as UTF-8, each ill-formed subpart as U+FFFD (Java's new String).
//   kPretty  Dataset.show (Spark's ToPrettyString): NULL everywhere; arrays [1, 2]; maps
//            {a -> 1}; structs {1, x}; binary as [0A FF]; other values as kHive.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/number_format.h"
#include "common/time_zones.h"
#include "vector/types.h"
#include "vector/vector.h"

namespace silt::cli {

enum class OutputMode { kBox, kTabs, kCsv, kJson };
// "box", "tabs", "csv", "json" (also "tab", "jsonl"); nullopt for anything else.
std::optional<OutputMode> ParseOutputMode(std::string_view name);
const char* OutputModeName(OutputMode mode);

enum class CellStyle { kHive, kPretty };

// Appends the text of row `row` of `v` (NULL included) in the given style; TIMESTAMP values
// (nested ones too) are shown in `zone` (the session time zone), in UTC when it is null.
void AppendCell(const Vector& v, size_t row, CellStyle style, std::string* out,
                const TimeZone* zone = nullptr);
std::string FormatCell(const Vector& v, size_t row, CellStyle style,
                       const TimeZone* zone = nullptr);
// Appends row `row` of `v` as canonical JSON (Value::ToJson's format).
void AppendJsonCell(const Vector& v, size_t row, std::string* out);

// Java's Double.toString / Float.toString (common/number_format.h).
using silt::FormatJavaDouble;
using silt::FormatJavaFloat;
// Spark's fraction timestamp format: "2024-01-02 03:04:05", "2024-01-02 03:04:05.12".
std::string FormatSparkTimestamp(int64_t micros);

// The zone TIMESTAMP values render in for a session time zone name (QueryResult::time_zone):
// null (= UTC) for "UTC" or a name that does not resolve.
std::shared_ptr<const TimeZone> RenderZone(const std::string& time_zone);

struct RenderOptions {
  OutputMode mode = OutputMode::kBox;
  // box: at most this many rows are shown (half from the start, half from the end); 0 = all.
  size_t max_rows = 40;
  // box: cells are cut to this many characters (with "…"); 0 = no limit.
  size_t max_cell_width = 40;
  // box: total line width to fit (columns are narrowed down to a few characters); 0 = no limit.
  size_t max_width = 0;
  // csv: print the header line.
  bool header = true;
  // box, tabs, csv: TIMESTAMP values are shown in this zone (the session's
  // spark.sql.session.timeZone); null = UTC. json keeps the canonical UTC text.
  std::shared_ptr<const TimeZone> time_zone;
};

// Writes one result. A result with no columns prints nothing (DDL, SET, ...). Streams chunk by
// chunk in the tabs/csv/json modes; box mode keeps only the rows it shows.
void RenderResult(const Schema& schema, const std::vector<DataChunk>& chunks,
                  const RenderOptions& options, std::ostream& out);
std::string RenderToString(const Schema& schema, const std::vector<DataChunk>& chunks,
                           const RenderOptions& options);

// Display width of UTF-8 text in terminal columns (code points; East Asian wide and fullwidth
// characters count 2, combining marks 0).
size_t DisplayWidth(std::string_view s);

}  // namespace silt::cli
