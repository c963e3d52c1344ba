// File-source tables: CREATE TABLE … USING parquet | json, as Spark's session catalog keeps them
// (HadoopFsRelation over an InMemoryFileIndex). The catalog entry records the provider, the
// declared schema and the partition columns (TableEntry::view_text / view_columns); the
// table directory holds only plain data files of that format, partitioned tables in Hive-style
// `col=value/` directories. Files and directories whose name starts with '_' or '.' are not data
// (Hadoop's hidden-path filter), as in Spark.
//
// Reading and writing reuse the Delta machinery without a Delta log:
// - FileSourceSnapshot lists the data files and describes them as a Delta snapshot (a one-commit
//   log in a private in-memory store: the declared schema, the partition columns, one add action
//   per file by absolute location), so a parquet table is scanned by the Delta scan (projection,
//   partition and row-group pruning included) and written by delta::WriteDataFilesFrom without a
//   commit;
// - JSON tables hold JSON-lines files (Spark's defaults: one object per line, UTF-8, NULL fields
//   left out when writing); ReadJsonRows parses them with from_json's conversions (PERMISSIVE: a
//   value that does not fit its column is NULL), WriteJsonFile writes them with to_json's.
// CSV, ORC, text and other providers are refused (SILT_UNSUPPORTED_DATA_SOURCE).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "delta/actions.h"
#include "delta/snapshot.h"
#include "exec/expression.h"
#include "exec/functions.h"
#include "io/object_store.h"
#include "planner/catalog.h"

namespace silt::planner {

// "parquet" and "json" (lower case): the providers CREATE TABLE … USING accepts besides delta.
bool IsFileSourceFormat(std::string_view format);
// A catalog entry of a file-source table.
inline bool IsFileSourceTable(const TableEntry& e) { return IsFileSourceFormat(e.format); }

// The data files of the table at `store` (its root) described as a Delta snapshot (see above).
Result<std::shared_ptr<const delta::Snapshot>> FileSourceSnapshot(
    const TableEntry& entry, const std::shared_ptr<ObjectStore>& store,
    const std::shared_ptr<Clock>& clock);

// A snapshot (files loaded) of a one-commit log of `actions` (a protocol, a metadata, adds) in a
// private in-memory store: how tables without a Delta log are described to the Delta machinery.
Result<std::shared_ptr<const delta::Snapshot>> SnapshotOfActions(
    const std::vector<delta::Action>& actions, const std::shared_ptr<Clock>& clock);

// The rows of a JSON table's files (the snapshot FileSourceSnapshot made), in its schema's
// column order: the data columns parsed from each line, the partition columns from the paths.
Result<std::vector<DataChunk>> ReadJsonRows(const delta::Snapshot& snapshot,
                                            const exec::BindContext& bind,
                                            const exec::EvalContext& eval);

// Feeds the rows to write; calls `out` per chunk (the table's columns, in order).
using JsonRowSource = std::function<Status(const std::function<Status(const DataChunk&)>& out)>;
// Writes the rows as one JSON-lines file `part-00000-<uuid>-c000.json` below the table root
// (nothing when there are no rows). Returns the number of rows written. Partitioned JSON tables
// are refused at CREATE TABLE.
Result<int64_t> WriteJsonFile(ObjectStore& store, const Schema& schema, const JsonRowSource& rows,
                              const exec::BindContext& bind, const exec::EvalContext& eval);

// Deletes data files of the table at `location` (its store `store`) that FileSourceSnapshot listed
// (INSERT OVERWRITE, TRUNCATE TABLE).
Status DeleteDataFiles(ObjectStore& store, const std::string& location,
                       const std::vector<const delta::AddFile*>& files);

}  // namespace silt::planner
