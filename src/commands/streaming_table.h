// Databricks SQL's streaming tables (sql/streaming_table.h):
//   CREATE [OR REFRESH] STREAMING TABLE t [(columns)] [clauses] AS query-over-STREAM(src)
//   REFRESH STREAMING TABLE t [FULL]
//
// A streaming table is a Delta table whose rows a streaming query (ops/stream_query.h) appends:
// each refresh reads what the source table committed since the previous refresh (Trigger
// AvailableNow: everything there when it starts, in batches cut by the source's rate limits),
// runs the defining query over those rows and appends its result exactly once (the sink's `txn`
// action). What the table keeps:
//   silt.streamingTable.query       the defining query as written (REFRESH needs no text; SHOW
//                                   CREATE TABLE prints it back as CREATE STREAMING TABLE … AS)
//   silt.streamingTable.checkpoint  the stream's checkpoint directory, relative to the table root:
//                                   _streaming/<uuid> (a hidden name VACUUM never deletes); a FULL
//                                   refresh empties the table and switches to a new directory in
//                                   one commit
// CREATE makes the table (columns from the query, or the given ones) and refreshes it; CREATE OR
// REFRESH over an existing streaming table refreshes it, after storing the query when it
// changed (a pipeline update: the new query applies to the rows read from then on; its columns
// must still fit the table's). DROP TABLE drops it as any table (a managed table's directory,
// checkpoint included, is deleted).
//
// Errors: TABLE_OR_VIEW_ALREADY_EXISTS (CREATE over an existing table);
// WRONG_COMMAND_FOR_OBJECT_TYPE (REFRESH STREAMING TABLE / CREATE OR REFRESH over a table that is
// not a streaming table); NOT_IMPLEMENTED for a query without exactly one STREAM source, for
// stateful queries over the stream (aggregation, ORDER BY, LIMIT, window, DISTINCT), for new
// columns or table clauses in CREATE OR REFRESH of an existing streaming table, and for
// STREAM read_files(…); DELTA_METADATA_MISMATCH.SCHEMA_MISMATCH for a new query whose columns do
// not fit the table; the source's errors
// (option validation, DELTA_SOURCE_TABLE_IGNORE_CHANGES, DELTA_SCHEMA_CHANGED_WITH_VERSION, …).
#pragma once

#include "commands/command.h"
#include "sql/streaming_table.h"

namespace silt::commands {

inline constexpr const char* kStreamingTableQueryProperty = "silt.streamingTable.query";
inline constexpr const char* kStreamingTableCheckpointProperty = "silt.streamingTable.checkpoint";

Result<CommandResult> StreamingTable(const sql::StreamingTableStatement& stmt, CommandContext& ctx);

}  // namespace silt::commands
