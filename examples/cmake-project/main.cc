// A program built against an installed silt (find_package(silt) or pkg-config): creates a Delta
// table in an in-memory warehouse, changes it and prints a query's rows.
#include <silt/silt.h>

#include <cstdio>
#include <string>

int main() {
  silt::DatabaseOptions options;
  options.warehouse = "memory://silt-app";
  auto db = silt::Database::Open(options);
  if (!db.ok()) {
    std::fprintf(stderr, "%s\n", db.status().ToString().c_str());
    return 1;
  }
  silt::Connection con(*db);
  auto result = con.Query(
      "CREATE TABLE t (id INT, name STRING) USING delta;"
      "INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three');"
      "UPDATE t SET name = upper(name) WHERE id = 2;"
      "SELECT id, name FROM t ORDER BY id");
  if (!result.ok()) {
    std::fprintf(stderr, "%s\n", result.status().ToString().c_str());
    return 1;
  }
  for (size_t i = 0; i < (*result)->num_rows(); ++i) {
    std::string line;
    for (const silt::Value& v : (*result)->Row(i))
      line += (line.empty() ? "" : "\t") + v.ToString();
    std::printf("%s\n", line.c_str());
  }
  return 0;
}
