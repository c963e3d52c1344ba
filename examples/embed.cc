// Embedding silt: the program an application writes against the public API. It compiles with
// include/ as its only include directory (CMake target silt_embed_example), so a header of
// include/silt/ that reaches into src/ breaks the build, and `make test` runs it.
//
//   silt_embed_example [WAREHOUSE]    (default: an in-memory warehouse)
#include <cstdio>
#include <string>

#include "silt/silt.h"

namespace {

// Prints a result as tab-separated rows under a header line of column names.
void Print(const silt::QueryResult& result) {
  std::string line;
  for (const silt::Field& field : result.schema()) {
    line += (line.empty() ? "" : "\t") + field.name;
  }
  std::printf("%s\n", line.c_str());
  for (size_t i = 0; i < result.num_rows(); ++i) {
    line.clear();
    for (const silt::Value& value : result.Row(i)) {
      line += (line.empty() ? "" : "\t") + value.ToString();
    }
    std::printf("%s\n", line.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  silt::DatabaseOptions options;
  options.warehouse = argc > 1 ? argv[1] : "memory://embed-example";
  auto db = silt::Database::Open(options);
  if (!db.ok()) {
    std::fprintf(stderr, "%s\n", db.status().ToString().c_str());
    return 1;
  }
  silt::Connection con(*db);
  auto result = con.Query(
      "CREATE TABLE events (id BIGINT, kind STRING) USING delta;"
      "INSERT INTO events VALUES (1, 'click'), (2, 'view'), (3, 'click'), (4, 'buy');"
      "DELETE FROM events WHERE kind = 'view';"
      "SELECT kind, count(*) AS n FROM events GROUP BY kind ORDER BY kind");
  if (!result.ok()) {
    std::fprintf(stderr, "%s\n", result.status().ToString().c_str());
    return 1;
  }
  Print(**result);
  // Errors carry Spark/Delta error classes.
  auto missing = con.Query("SELECT * FROM no_such_table");
  std::printf("error class: %s\n",
              missing.ok() ? "(none)" : std::string(missing.status().error_class()).c_str());
  return 0;
}
