// sqllogictest for silt: the parser of test/sql/**/*.test files (DuckDB's dialect subset, see
// test/sql/README.md), the comparison of query results with the expected text, and the loop that
// runs one file against a statement executor. No engine here: the executor is a function, so the
// unit tests drive it with scripted results and runner.cc with a silt::Connection.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "silt/silt.h"

namespace silt::sqllogic {

enum class SortMode { kNoSort, kRowSort, kValueSort };

struct Record {
  enum Kind { kStatementOk, kStatementError, kQuery, kHalt };
  Kind kind = kStatementOk;
  int line = 0;     // of the header line, 1-based
  std::string sql;  // lines joined with '\n'
  // statement error: the error class on the header line ("" = any) and the text after ----
  // (a substring of "Error: [CLASS] message"; "" = any).
  std::string error_class;
  std::string error_substring;
  // query: one letter per column (I integer, T text, R real, B boolean, D decimal, any other
  // letter is compared as text); R columns compare with a relative tolerance.
  std::string types;
  SortMode sort = SortMode::kNoSort;
  std::string label;
  std::vector<std::string> expected;  // lines after ----
  // query: whether a ---- section was given. A labelled query without one is only compared with
  // the earlier queries of the same label.
  bool has_expected = false;
  // Set by `mode skip` or a skipif/onlyif prefix: counted as skipped, not run.
  bool skip = false;
};

struct TestFile {
  std::string path;
  std::vector<Record> records;
  // Non-empty: the whole file is skipped (require, load, a missing ${SHARED} folder).
  std::string skip_reason;
};

// Variables substituted in the file text before parsing: __TEST_DIR__, __WAREHOUSE__ and
// ${SHARED} (when shared_dir is set). shared_dir empty and a file using ${SHARED} → skipped.
struct Variables {
  std::string test_dir;
  std::string warehouse;
  std::string shared_dir;
};

// Parses a .test file. Errors (InvalidArgument "path:line: ...") are malformed files.
Result<TestFile> ParseTestFile(std::string_view text, const std::string& path,
                               const Variables& vars);

// A result as the runner compares it: one string per cell in spark-sql's format
// (cli::CellStyle::kHive), NULL as "NULL" and the empty string as "(empty)".
using TextRows = std::vector<std::vector<std::string>>;
TextRows ResultToText(const Schema& schema, const std::vector<DataChunk>& chunks);

// Compares a query's actual rows with the record's expectation (sort mode applied to both).
// nullopt when they match, else a description of the difference. Expected lines are rows of
// TAB-separated values, or one value per line (DuckDB's value-wise form) when every line holds a
// single value and the count is a multiple of the column count.
std::optional<std::string> CompareQuery(const Record& record, size_t num_columns,
                                        const TextRows& actual);

// The error class on a `statement error CLASS` line matches the actual class when equal, or
// when it is the main class of the actual "CLASS.SUBCLASS" (DATATYPE_MISMATCH matches
// DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES).
bool ErrorClassMatches(std::string_view actual, std::string_view expected);

// Two values of an R column: equal text, both NaN, or |a - b| <= 1e-9 · max(|a|, |b|) (and
// 1e-12 absolute, for values near zero).
bool RealEquals(std::string_view expected, std::string_view actual);

// Applies a sort mode (rowsort: rows in lexicographic order of their cells; valuesort: all cells
// sorted, one per row).
TextRows SortRows(TextRows rows, SortMode mode);

using Executor = std::function<Result<std::unique_ptr<QueryResult>>(const std::string& sql)>;

struct FileOutcome {
  int passed = 0;
  int failed = 0;
  int skipped = 0;
  std::string report;  // the failures, ready to print
};

// Runs the records of one file in order on `execute` (continuing after failures).
FileOutcome RunTestFile(const TestFile& file, const Executor& execute);

}  // namespace silt::sqllogic
