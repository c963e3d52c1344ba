// Databricks SQL's streaming tables: CREATE [OR REFRESH] STREAMING TABLE t … AS SELECT … FROM
// STREAM(src) and REFRESH STREAMING TABLE t. The streaming engine exists (ops/stream_query.h,
// `silt stream`), the SQL statements do not yet: they are recognised here and fail with
// NOT_IMPLEMENTED instead of a syntax error.
#include "common/error_classes.h"
#include "sql/parser_internal.h"

namespace silt::sql::internal {

bool Parser::AtStreamingTable() const {
  if (AtKw("CREATE")) {
    return (AtKw("STREAMING", 1) && AtKw("TABLE", 2)) ||
           (AtKw("OR", 1) && AtKw("REFRESH", 2) && AtKw("STREAMING", 3));
  }
  return AtKw("REFRESH") && AtKw("STREAMING", 1) && AtKw("TABLE", 2);
}

Result<StatementNode> Parser::StreamingTable() {
  const bool refresh = AtKw("REFRESH");
  return Status::NotImplemented(
      std::string(refresh ? "REFRESH STREAMING TABLE" : "CREATE STREAMING TABLE") +
      " is not implemented in SQL yet; run the stream with `silt stream SOURCE SINK "
      "--checkpoint DIR` (docs/streaming.md)");
}

}  // namespace silt::sql::internal
