// The live data files of a Delta table's snapshot (what delta-rs's DeltaTable.files(),
// file_uris() and get_add_actions() give), through the public API.
//
//   silt::Connection con(db);
//   auto files = silt::ListTableFiles(con, "/data/events");        // the latest version
//   auto old = silt::ListTableFiles(con, "/data/events", 3);       // version 3
//   for (size_t i = 0; i < (*files)->num_rows(); ++i) { auto row = (*files)->Row(i); ... }
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "silt/silt.h"

namespace silt {

// One row per live add action of version `version` (nullopt: the latest) of the Delta table at
// `table_uri` (a path or storage URI, resolved as in delta.`table_uri`), in the snapshot's order:
//   path STRING NOT NULL: add.path percent-decoded (relative to the table root unless the
//     file lives elsewhere: then the absolute URI as the log has it)
//   uri STRING NOT NULL: the file's absolute URI (the table root's URI + the encoded add.path),
//     what Spark's input_file_name() gives for its rows
//   size_bytes BIGINT NOT NULL, modification_time TIMESTAMP NOT NULL, data_change BOOLEAN NOT NULL
//   partition_values MAP<STRING, STRING> NOT NULL (the log's strings; NULL values stay NULL)
//   num_records BIGINT (stats.numRecords; NULL without statistics)
//   stats STRING (the statistics JSON as in the log; NULL without)
//   deletion_vector_cardinality BIGINT (rows the file's deletion vector hides; NULL without one)
// Errors as a SELECT from the table would give (DELTA_MISSING_DELTA_TABLE,
// DELTA_VERSION_NOT_FOUND / time-travel errors, storage errors).
Result<std::unique_ptr<QueryResult>> ListTableFiles(Connection& con, std::string_view table_uri,
                                                    std::optional<int64_t> version = std::nullopt);

}  // namespace silt
