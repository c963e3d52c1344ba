// Databricks SQL's streaming tables (parse_streaming.cc, commands/streaming_table.cc):
//   CREATE [OR REFRESH] STREAMING TABLE t [(columns)] [table clauses] AS query
//   REFRESH STREAMING TABLE t [FULL]
// where the query reads one Delta table as a stream: FROM STREAM(src), STREAM src, optionally
// with source options STREAM(src) WITH ('skipChangeCommits' = 'true', …).
//
// The statement is a CreateTableStatement (kind kCreateTable: the columns and clauses of CREATE
// TABLE, as_query the defining query) that the CREATE TABLE command hands to the streaming table
// command; REFRESH fills only `name` and `refresh_only`.
//
// In the query, a STREAM reference is a TableRef of kind kTable whose function_name is "STREAM"
// and whose function_args are the options as string literals, key then value. The binder binds
// it through BinderContext::bind_stream (a streaming table's refresh: the micro-batch's rows);
// without that hook, as in a batch query, it fails with NOT_IMPLEMENTED.
#pragma once

#include <string>

#include "sql/ast.h"

namespace silt::sql {

inline constexpr const char* kStreamRefMarker = "STREAM";

struct StreamingTableStatement : CreateTableStatement {
  bool or_refresh = false;    // CREATE OR REFRESH STREAMING TABLE
  bool refresh_only = false;  // REFRESH STREAMING TABLE t
  bool full = false;          // REFRESH STREAMING TABLE t FULL
  std::string query_text;     // the defining query as written (CREATE)
};

}  // namespace silt::sql
