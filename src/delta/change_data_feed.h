// Change data feed reads (Delta PROTOCOL.md "Change Data Files"; Delta-Spark's CDCReader): the
// row-level changes of a version range of a table with delta.enableChangeDataFeed=true.
//
// Per commit, as CDCReader: a commit with `cdc` actions is read through its change data files
// alone (their `_change_type` column says what each row is); a commit without them contributes
// its add files with dataChange=true as "insert" rows and its remove files with dataChange=true as
// "delete" rows (whole files, each as its deletion vector left it; an add and a remove of the same
// path — a deletion vector change — contribute only the rows that differ). Commits whose file
// actions all have dataChange=false (OPTIMIZE, REORG, ...) contribute nothing.
//
// Output: the table's columns (schema of the end version) then `_change_type` STRING,
// `_commit_version` BIGINT and `_commit_timestamp` TIMESTAMP (the commit's effective timestamp,
// see history.h). Row order is unspecified (by version, then file).
//
// Errors (Spark's): end < start → DELTA_INVALID_CDC_RANGE; start after the latest version →
// InvalidArgument "Provided Start version(...) for reading change data is invalid..." (Spark's
// IllegalArgumentException, no error class); change data not recorded at some version of the
// range (CDF disabled at the start version or by a metaData action inside the range) →
// DELTA_MISSING_CHANGE_DATA. An end past the latest version is clamped to it. A file the range
// needs (change data or data file) that is gone (e.g. vacuumed): DELTA_CHANGE_DATA_FILE_NOT_FOUND.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "common/error_classes.h"
#include "common/status.h"
#include "delta/actions.h"
#include "io/object_store.h"
#include "vector/types.h"
#include "vector/vector.h"

namespace silt::delta {

inline constexpr auto& kErrorInvalidCdcRange = errc::kDeltaInvalidCdcRange;
inline constexpr auto& kErrorMissingChangeData = errc::kDeltaMissingChangeData;
inline constexpr auto& kErrorChangeDataFileNotFound = errc::kDeltaChangeDataFileNotFound;
inline constexpr auto& kErrorTableContainsCdcColumns = errc::kDeltaTableAlreadyContainsCdcColumns;
inline constexpr auto& kErrorReservedCdcColumnsOnWrite = errc::kReservedCdcColumnsOnWrite;
inline constexpr char kChangeTypeColumn[] = "_change_type";
inline constexpr char kCommitVersionColumn[] = "_commit_version";
inline constexpr char kCommitTimestampColumn[] = "_commit_timestamp";

// Whether commits on a table with this metadata record change data: delta.enableChangeDataFeed
// is true (an unparsable value counts as false, as the property's default).
bool ChangeDataFeedEnabled(const Metadata& metadata);

// Spark's performCdcMetadataCheck, for a commit that sets `new_metadata`: when it enables the
// change data feed, its schema must not have a top-level column named _change_type,
// _commit_version or _commit_timestamp (exact names) — DELTA_TABLE_ALREADY_CONTAINS_CDC_COLUMNS
// when the feed was off before (`old_metadata` null for a new table), else
// RESERVED_CDC_COLUMNS_ON_WRITE. An unparsable schema is left to other checks.
Status CheckCdcColumns(const Metadata* old_metadata, const Metadata& new_metadata);

struct ChangeFeed {
  Schema schema;                  // table columns + the three CDF columns
  std::vector<DataChunk> chunks;  // rows in `schema`
};

// The changes of versions [start_version, end_version] (end: latest when absent).
Result<ChangeFeed> ReadChangeFeed(std::shared_ptr<ObjectStore> store, int64_t start_version,
                                  std::optional<int64_t> end_version);

// The version range of timestamp bounds, as Spark's CDC options resolve them: a start timestamp
// means the first commit at or after it, an end timestamp the last commit at or before it.
Result<int64_t> ChangeFeedStartVersionAt(ObjectStore& store, int64_t timestamp_ms);
Result<int64_t> ChangeFeedEndVersionAt(ObjectStore& store, int64_t timestamp_ms);

}  // namespace silt::delta
