// libFuzzer target: SQL statements through the whole engine (parser, binder, optimizer,
// executor) via the public API. Seeded with the statements of Spark's SQL golden files
// (scripts/run-fuzz.sh) and a keyword dictionary (test/fuzz/sql.dict). An input is a script; its
// queries, EXPLAINs, temporary views and spark.sql.* SETs run in a fresh session over a fixed
// in-memory warehouse (the golden files' testdata/arraydata/mapdata tables), so an input does
// not change the state the next one sees and every finding replays alone. Any input must give
// rows or an error: a crash, a sanitizer report or an exception escaping the API is a bug
// (Connection::Query turns escaping exceptions into INTERNAL_ERROR, which fails here too).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "silt/silt.h"
#include "sql/ast.h"
#include "sql/parser.h"

namespace {

const char* kSetup[] = {
    "CREATE TABLE testdata AS SELECT CAST(id AS INT) AS key, CAST(id AS STRING) AS value FROM "
    "range(1, 21)",
    "CREATE TABLE arraydata AS SELECT * FROM VALUES (array(1, 2, 3), array(array(1, 2, 3))), "
    "(array(2, 3, 4), array(array(2, 3, 4))) AS t(arraycol, nestedarraycol)",
    "CREATE TABLE mapdata AS SELECT * FROM VALUES (map(1, 'a1', 2, 'b1')), (map(1, 'a2')) AS "
    "t(mapcol)",
};

std::shared_ptr<silt::Database> OpenDatabase() {
  silt::DatabaseOptions options;
  options.warehouse = "memory://sql-engine-fuzzer";
  options.threads = 1;
  options.tune_allocator = false;
  options.memory_limit_bytes = 256ll << 20;
  auto db = silt::Database::Open(options);
  if (!db.ok()) {
    std::fprintf(stderr, "cannot open the database: %s\n",
                 std::string(db.status().message()).c_str());
    std::abort();
  }
  silt::Connection con(*db);
  for (const char* s : kSetup) {
    auto r = con.Query(s);
    if (!r.ok()) {
      std::fprintf(stderr, "setup failed: %s\n", std::string(r.status().message()).c_str());
      std::abort();
    }
  }
  return *db;
}

// Statements that only read the warehouse or change the session.
bool Allowed(const silt::sql::Statement& s) {
  using silt::sql::StatementKind;
  switch (s.kind) {
    case StatementKind::kQuery:
    case StatementKind::kExplain:
      return true;
    case StatementKind::kCreateView:
      return static_cast<const silt::sql::CreateViewStatement&>(s).temporary;
    case StatementKind::kSet: {
      const auto& set = static_cast<const silt::sql::SetStatement&>(s);
      return set.value.has_value() && std::string_view(set.key).starts_with("spark.sql.");
    }
    default:
      return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::shared_ptr<silt::Database> db = OpenDatabase();
  if (size > 4096) return 0;  // long inputs only slow the search down
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bool complete = false;
  auto statements = silt::sql::SplitStatements(text, &complete);
  if (statements.size() > 8) return 0;
  silt::Connection con(db);
  (void)con.SetConfig("spark.sql.session.timeZone", "America/Los_Angeles");
  for (const std::string& sql : statements) {
    auto parsed = silt::sql::ParseScript(sql);
    if (!parsed.ok() || parsed->size() != 1 || !Allowed(*(*parsed)[0])) continue;
    auto r = con.Query(sql);
    if (!r.ok() && r.status().error_class() == "INTERNAL_ERROR") {
      std::fprintf(stderr, "INTERNAL_ERROR for: %s\n%s\n", sql.c_str(),
                   std::string(r.status().message()).c_str());
      std::abort();
    }
  }
  return 0;
}
