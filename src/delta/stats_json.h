// Per-file statistics (add.stats): parsing Spark's stats JSON against the physical schema, and
// writing it the way Delta-Spark does.
//
//   {"numRecords":3,"minValues":{"a":1,"s":{"x":"abc"}},"maxValues":{...},
//    "nullCount":{"a":0,"s":{"x":1}},"tightBounds":true}
//
// Leaves are addressed by their physical path (names under column mapping); StatsPathKey turns a
// path into the lookup key of FileStats::columns.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/error_classes.h"
#include "common/status.h"
#include "vector/types.h"
#include "vector/value.h"
#include "vector/vector.h"

namespace silt::delta {

inline constexpr const char* kInvalidStatsClass = errc::kDeltaInvalidStats;

// The key of a column path: components joined with '.', a component containing '.' or '`'
// wrapped in backticks (inner backticks doubled) as Spark quotes names: {"a","b.c"} → "a.`b.c`".
std::string StatsPathKey(const std::vector<std::string>& path);

struct ColumnStats {
  std::optional<Value> min;  // typed as the schema's leaf type
  std::optional<Value> max;
  std::optional<int64_t> null_count;
};

struct FileStats {
  std::optional<int64_t> num_records;
  std::optional<bool> tight_bounds;  // absent means true
  // Transparent hashing: Find(string_view) looks up without building a std::string.
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  // By StatsPathKey of the leaf. Array/map columns only carry null_count.
  std::unordered_map<std::string, ColumnStats, KeyHash, std::equal_to<>> columns;

  const ColumnStats* Find(std::string_view key) const;
  const ColumnStats* FindPath(const std::vector<std::string>& path) const {
    return Find(StatsPathKey(path));
  }
  bool TightBounds() const { return tight_bounds.value_or(true); }
};

// Parses `json` against the physical schema. Malformed JSON (or a non-object, or numRecords /
// tightBounds of the wrong type) is Corruption with kInvalidStatsClass. Individual column stats
// that don't match their type are dropped; unknown columns are ignored. Value encodings:
// integers and decimals from the exact JSON number text (decimals rounded HALF_UP to the scale),
// float/double numbers or "NaN"/"Infinity"/"-Infinity" strings, dates "yyyy-MM-dd",
// timestamps "yyyy-MM-ddTHH:mm:ss.SSS" + 'Z' or an offset (no zone = UTC), timestamp_ntz
// without zone, strings, booleans.
Result<FileStats> ParseStats(std::string_view json, const Schema& physical_schema);
// numRecords alone, found without parsing the whole object (planning estimates); nullopt when
// absent or not a plain integer.
std::optional<int64_t> StatsNumRecords(std::string_view json);

// Serialization input: the statistics of one physical leaf column (struct leaves; an array or map
// column is one leaf). Mirrors the Parquet writer's ColumnStatistics without depending on it.
struct LeafStats {
  std::vector<std::string> path;  // physical names
  Value min;                      // null Value: unknown, or all values null
  Value max;
  std::optional<int64_t> null_count;
};

struct StatsOptions {
  // delta.dataSkippingNumIndexedCols: stats for the first N leaves in schema order; -1 = all.
  int num_indexed_cols = 32;
  // delta.dataSkippingStatsColumns (parsed, physical paths); takes precedence when set. A path
  // naming a struct selects all its leaves.
  std::optional<std::vector<std::vector<std::string>>> stats_columns;
  // delta.dataSkippingStringPrefixLength.
  int string_prefix_length = 32;
  std::optional<bool> tight_bounds;  // written when set
};

// Builds the stats JSON for a file with `num_records` rows. `physical_schema` is the data
// schema (partition columns excluded) with physical names. Leaves not in `leaves` get no stats.
// min/max are written only for skipping-eligible types (numbers, decimal, string, date,
// timestamp, timestamp_ntz), strings truncated (min to a prefix; max to a prefix plus a
// tie-breaker, omitted when that is impossible within 2× the prefix), timestamps truncated to
// milliseconds ('Z' for timestamp, no zone for timestamp_ntz), NaN/Infinity min/max omitted.
// nullCount is written for every selected leaf. Empty objects are omitted.
std::string SerializeStats(const Schema& physical_schema, int64_t num_records,
                           const std::vector<LeafStats>& leaves, const StatsOptions& options = {});

// The stats JSON (as SerializeStats writes it, without truncating again) of row `row` of a
// checkpoint's add.stats_parsed struct column (numRecords, minValues, maxValues, nullCount,
// tightBounds; nested structs by physical name). nullopt when the row's struct is null.
std::optional<std::string> StatsJsonFromParsed(const Vector& stats_parsed, size_t row);

// Types whose values get min/max statistics (Delta's SkippingEligibleDataType: numbers, decimal,
// string, date, timestamp(_ntz)); clustering columns must be one of them.
bool MinMaxEligible(TypeId id);

// Parses delta.dataSkippingStatsColumns: comma-separated column names, nested with '.', parts
// optionally backtick-quoted (`a.b` is one name; `` escapes a backtick). InvalidArgument when
// malformed.
Result<std::vector<std::vector<std::string>>> ParseStatsColumnList(std::string_view text);

// Spark's string stats truncation (prefix length in UTF-16 code units, like Java strings).
std::string TruncateMinString(std::string_view s, int prefix_length);
// nullopt when no max within 2 × prefix_length can be formed.
std::optional<std::string> TruncateMaxString(std::string_view s, int prefix_length);

}  // namespace silt::delta
