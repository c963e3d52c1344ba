// The Delta streaming source (Delta-Spark's DeltaSource, spec part C): reads a Delta table
// incrementally as micro-batches of the files its commits add, with Spark's reader options (C.1),
// commit classification (C.2), offsets (C.3) and admission control (C.4).
//
// Positions. A stream without startingVersion/startingTimestamp first emits the table's snapshot
// at the version v0 current when it starts (files indexed 0..n-1 ordered by modification time,
// then path; offset flag isInitialSnapshot = true), then commits v0+1, v0+2, …. With a start
// option it emits the commits from that version on (isInitialSnapshot = false). Within a version
// the files are indexed 0..n-1; BASE (-100, written as -1) is the position before a version's
// first file, and a fully consumed version v is the offset (v+1, BASE, false).
//
// Batches are the files strictly after the start offset up to and including the end offset.
// With readChangeFeed the batch rows are the change feed (delta/change_data_feed.h): snapshot
// files as "insert" rows, then each commit's changes.
//
// Errors (Delta's classes): option validation DELTA_ILLEGAL_OPTION,
// DELTA_STARTING_VERSION_AND_TIMESTAMP_BOTH_SET, DELTA_VERSION_NOT_FOUND,
// DELTA_TIMESTAMP_GREATER_THAN_COMMIT; commits DELTA_SOURCE_IGNORE_DELETE,
// DELTA_SOURCE_TABLE_IGNORE_CHANGES; offsets DELTA_INVALID_SOURCE_VERSION,
// DELTA_INVALID_FORMAT_FROM_SOURCE_VERSION, DELTA_INVALID_SOURCE_OFFSET_FORMAT,
// DIFFERENT_DELTA_TABLE_READ_BY_STREAMING_SOURCE; a commit file gone from the log
// DELTA_LOG_FILE_NOT_FOUND_FOR_STREAMING_SOURCE (failOnDataLoss=true, the default).
//
// Thread safety: a DeltaSource is used by one stream at a time (not thread-safe).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/error_classes.h"
#include "common/status.h"
#include "delta/actions.h"
#include "delta/snapshot.h"
#include "io/object_store.h"
#include "vector/types.h"
#include "vector/vector.h"

namespace silt::ops {

inline constexpr auto& kErrorIllegalDeltaOption = errc::kDeltaIllegalOption;
inline constexpr auto& kErrorStartingVersionAndTimestamp =
    errc::kDeltaStartingVersionAndTimestampBothSet;
inline constexpr auto& kErrorSourceIgnoreDelete = errc::kDeltaSourceIgnoreDelete;
inline constexpr auto& kErrorSourceIgnoreChanges = errc::kDeltaSourceTableIgnoreChanges;
inline constexpr auto& kErrorInvalidSourceVersion = errc::kDeltaInvalidSourceVersion;
inline constexpr auto& kErrorInvalidFormatFromSourceVersion =
    errc::kDeltaInvalidFormatFromSourceVersion;
inline constexpr auto& kErrorInvalidSourceOffsetFormat = errc::kDeltaInvalidSourceOffsetFormat;
inline constexpr auto& kErrorDifferentTableReadByStream =
    errc::kDifferentDeltaTableReadByStreamingSource;
inline constexpr auto& kErrorLogFileNotFoundForStream =
    errc::kDeltaLogFileNotFoundForStreamingSource;

// The C.1 reader options, parsed.
struct DeltaSourceOptions {
  std::optional<int64_t> starting_version;  // set unless `latest`
  bool starting_version_latest = false;
  std::optional<int64_t> starting_timestamp_ms;
  std::optional<int64_t> max_files_per_trigger;  // unset: 1000 unless only max bytes is set
  std::optional<int64_t> max_bytes_per_trigger;
  bool ignore_deletes = false;
  bool ignore_changes = false;
  bool ignore_file_deletion = false;  // deprecated alias of ignoreChanges
  bool skip_change_commits = false;
  bool fail_on_data_loss = true;
  std::optional<std::string> exclude_regex;
  bool read_change_feed = false;
  // spark.databricks.delta.changeDataFeed.timestampOutOfRange.enabled: a startingTimestamp after
  // the latest commit starts at latest + 1 instead of failing.
  bool timestamp_out_of_range_enabled = false;
};

inline constexpr int64_t kDefaultMaxFilesPerTrigger = 1000;

// Parses Spark's option map (keys case-insensitive, as DataFrameReader options are). Unknown
// keys are ignored (Spark passes every option to every source). Errors: DELTA_ILLEGAL_OPTION
// ("Invalid value '<v>' for option '<name>', <explain>"),
// DELTA_STARTING_VERSION_AND_TIMESTAMP_BOTH_SET, DELTA_TIMESTAMP_INVALID for a malformed
// startingTimestamp.
Result<DeltaSourceOptions> ParseDeltaSourceOptions(
    const std::vector<std::pair<std::string, std::string>>& options);

// C.3: a position in the stream of a table's file changes.
struct DeltaSourceOffset {
  static constexpr int64_t kBaseIndex = -100;
  static constexpr int64_t kMetadataChangeIndex = -20;
  static constexpr int64_t kPostMetadataChangeIndex = -19;
  static constexpr int64_t kEndIndex = INT64_MAX - 100;

  std::string reservoir_id;
  int64_t reservoir_version = 0;
  int64_t index = kBaseIndex;
  bool is_initial_snapshot = false;  // serialized as isStartingVersion

  // Lexicographic on (version, index).
  bool Before(const DeltaSourceOffset& o) const {
    return reservoir_version != o.reservoir_version ? reservoir_version < o.reservoir_version
                                                    : index < o.index;
  }
  bool operator==(const DeltaSourceOffset&) const = default;
};

// {"sourceVersion":1,"reservoirId":…,"reservoirVersion":…,"index":…,"isStartingVersion":…}:
// BASE written as -1; sourceVersion 3 for the metadata-change sentinels. An END index is a bug
// (mapped to the next version's BASE before this is called).
std::string SerializeDeltaSourceOffset(const DeltaSourceOffset& offset);
// The reverse: -1 with sourceVersion 1 reads as BASE. sourceVersion 2 or < 1:
// DELTA_INVALID_SOURCE_VERSION; > 3: DELTA_INVALID_FORMAT_FROM_SOURCE_VERSION; not the JSON
// object above: DELTA_INVALID_SOURCE_OFFSET_FORMAT.
Result<DeltaSourceOffset> ParseDeltaSourceOffset(std::string_view json);

// One file the source emits (or a version's BASE/END placeholder when `add` is empty).
struct IndexedFile {
  int64_t version = 0;
  int64_t index = 0;
  bool is_snapshot = false;
  std::optional<delta::AddFile> add;
  int64_t commit_timestamp_ms = 0;
};

// The rows of one micro-batch.
struct SourceBatch {
  Schema schema;
  std::vector<DataChunk> chunks;
  int64_t num_files = 0;
  int64_t num_rows = 0;
};

class DeltaSource {
 public:
  // `table` is the store rooted at the source table; `clock` is required (for
  // startingTimestamp out-of-range handling and messages).
  static Result<std::unique_ptr<DeltaSource>> Open(std::shared_ptr<ObjectStore> table,
                                                   DeltaSourceOptions options,
                                                   std::shared_ptr<Clock> clock);

  const std::string& table_id() const { return table_id_; }
  // The schema of the batches (the table's, plus the CDF columns with readChangeFeed).
  const Schema& schema() const { return schema_; }
  const DeltaSourceOptions& options() const { return options_; }

  // Where a brand-new stream starts (the options resolved against the table now): the snapshot
  // version's BASE with isInitialSnapshot, or the starting version's BASE.
  Result<DeltaSourceOffset> InitialOffset();

  // Spark's latestOffset with admission control: the end offset of the next batch after `start`
  // (nullopt when nothing new). `version_limit` (Trigger.AvailableNow) bounds the versions read.
  Result<std::optional<DeltaSourceOffset>> NextOffset(const DeltaSourceOffset& start,
                                                      std::optional<int64_t> version_limit);

  // The files of (start, end] (placeholders left out), in stream order.
  Result<std::vector<IndexedFile>> FilesBetween(const DeltaSourceOffset& start,
                                                const DeltaSourceOffset& end);
  // The rows of (start, end]: every file's rows with its deletion vector applied (or the change
  // feed with readChangeFeed).
  Result<SourceBatch> GetBatch(const DeltaSourceOffset& start, const DeltaSourceOffset& end);
  // The same rows passed to `sink` a chunk at a time as the files are read (memory bounded by a
  // chunk, not the batch; with readChangeFeed the change feed of the batch is read first).
  // Returns the number of files read.
  Result<int64_t> ScanBatch(const DeltaSourceOffset& start, const DeltaSourceOffset& end,
                            const std::function<Status(const DataChunk&)>& sink);

  // The latest version of the table (reloaded).
  Result<int64_t> LatestVersion();

  // Checks that an offset from a checkpoint is about this table
  // (DIFFERENT_DELTA_TABLE_READ_BY_STREAMING_SOURCE otherwise).
  Status CheckOffsetTable(const DeltaSourceOffset& offset) const;

  // Delta's checkReadIncompatibleSchemaChanges: the table's schema as of a metaData action at
  // `version` against the stream's read schema (the table's when the source opened). On a
  // column-mapping table a column of the older of the two schemas that the newer one drops or
  // renames (same physical name, other logical name) fails with
  // DELTA_STREAMING_INCOMPATIBLE_SCHEMA_CHANGE_USE_SCHEMA_LOG; otherwise the data
  // schema must be read-compatible (SchemaUtils.isReadCompatible: every column of it is a read
  // column, same name and type) or DELTA_SCHEMA_CHANGED_WITH_VERSION
  // (DELTA_SCHEMA_CHANGED_WITH_STARTING_OPTIONS when startingVersion/startingTimestamp is set).
  // An added column therefore stops a running stream; restarted, the stream reads with the new
  // schema (older files give NULL for it). Nullability is not compared.
  Status CheckSchemaChange(const delta::Metadata& metadata, int64_t version) const;
  // The same against the table's metadata as of `version` (a restarted stream's first version),
  // as Delta checks once at stream start; a version no longer in the log is not checked.
  Status CheckSchemaAtStart(int64_t version);

 private:
  DeltaSource() = default;
  // The entries of one version: BASE, the files, END (snapshot or commit).
  Result<const std::vector<IndexedFile>*> SnapshotEntries(int64_t version);
  Result<const std::vector<IndexedFile>*> CommitEntries(int64_t version);
  // Walks the entries after `start`, up to version `last_version`, calling `visit` per version
  // unit; `visit` returns false to stop.
  template <typename Visit>
  Status Walk(const DeltaSourceOffset& start, int64_t last_version, Visit&& visit);
  bool Excluded(const delta::AddFile& add) const;

  std::shared_ptr<ObjectStore> store_;
  std::shared_ptr<Clock> clock_;
  DeltaSourceOptions options_;
  std::optional<std::regex> exclude_;
  std::string table_id_;
  int64_t init_version_ = 0;  // the table's version when the source opened (its read schema's)
  Schema schema_;
  Schema table_schema_;
  std::shared_ptr<const delta::Snapshot> latest_;
  std::map<int64_t, std::vector<IndexedFile>> snapshot_cache_;
  std::map<int64_t, std::vector<IndexedFile>> commit_cache_;
};

// Spark's byte size strings (JavaUtils.byteStringAs in bytes): "1024", "10b", "4k", "10kb",
// "10m", "10g", "1t", "1p" (binary units, case-insensitive); nullopt when not such a string.
std::optional<int64_t> ParseSparkByteSize(std::string_view text);

}  // namespace silt::ops
