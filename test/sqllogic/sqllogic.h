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

#include "common/clock.h"
#include "common/status.h"
#include "silt/silt.h"

namespace silt::sqllogic {

enum class SortMode { kNoSort, kRowSort, kValueSort };

// A silt directive that acts on the test's clock or files instead of running SQL.
struct Directive {
  enum Op {
    kClockSet,      // clock set <ISO-8601 UTC>
    kClockAdvance,  // clock advance <N> <days|hours|minutes|seconds|ms>
    kFileWrite,     // file write <path> [mtime <ISO>|mtime clock]  (+ content lines)
    kFileTouch,     // file touch <path-or-glob> [mtime <ISO>|mtime clock]
    kFileMkdir,     // file mkdir <path>
    kFileRemove,    // file remove <path> (a file or an empty folder; must exist)
    kFileExists,    // file exists <path>
    kFileMissing,   // file missing <path>
    kFileCount,     // file count <dir> <glob> <N>
  };
  Op op = kClockSet;
  int64_t millis = 0;  // clock set: epoch ms; clock advance: the step (may be negative)
  std::string path;    // file *: as written (relative paths are resolved against __TEST_DIR__)
  std::string glob;    // file count: matched against paths relative to `path` ('*' stops at '/')
  int64_t count = 0;   // file count
  // file write / touch: the mtime to set, epoch ms; nullopt = the clock's now.
  std::optional<int64_t> mtime_ms;
  std::string content;  // file write: the lines after the header, joined with '\n'
};

// Parses "2030-01-02T03:04:05Z", "2030-01-02T03:04:05.250Z", "2030-01-02 03:04:05" or
// "2030-01-02" (UTC) into epoch milliseconds.
Result<int64_t> ParseUtcTimestamp(std::string_view text);

// "N unit" of `clock advance` in milliseconds (unit: day(s), hour(s), minute(s), second(s), ms).
Result<int64_t> ParseDuration(std::string_view number, std::string_view unit);

struct Record {
  enum Kind { kStatementOk, kStatementError, kQuery, kHalt, kDirective };
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
  Directive directive;  // kDirective
};

struct TestFile {
  std::string path;
  std::vector<Record> records;
  // Non-empty: the whole file is skipped (require, load, a missing ${SHARED} folder).
  std::string skip_reason;
  // A `clock` directive occurs: the runner gives the file's Database a ManualClock.
  bool uses_clock = false;
};

// Variables substituted in the file text before parsing: __TEST_DIR__, __WAREHOUSE__ and
// ${SHARED} (when shared_dir is set). shared_dir empty and a file using ${SHARED} → skipped.
struct Variables {
  std::string test_dir;
  std::string warehouse;
  std::string shared_dir;
  // The run on the in-memory store (silt_sql_tests --store memory): the warehouse is a
  // memory://<name> location and files marked `require local-warehouse` are skipped.
  bool memory_warehouse = false;
};

// Parses a .test file. Errors (InvalidArgument "path:line: ...") are malformed files.
Result<TestFile> ParseTestFile(std::string_view text, const std::string& path,
                               const Variables& vars);

// A result as the runner compares it: one string per cell in spark-sql's format
// (cli::CellStyle::kHive, TIMESTAMP values in the session time zone `time_zone`), NULL as "NULL"
// and the empty string as "(empty)".
using TextRows = std::vector<std::vector<std::string>>;
TextRows ResultToText(const Schema& schema, const std::vector<DataChunk>& chunks,
                      const std::string& time_zone = "UTC");

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

// What directives act on. clock null: `clock` records fail (the file's Database has the system
// clock); file mtimes default to the real time then.
struct Environment {
  ManualClock* clock = nullptr;
  std::string test_dir;  // the base of relative `file` paths
};

// Runs one directive; an error message when its check (or action) failed.
std::optional<std::string> RunDirective(const Directive& d, const Environment& env);

// Runs the records of one file in order on `execute` (continuing after failures).
FileOutcome RunTestFile(const TestFile& file, const Executor& execute, const Environment& env = {});

}  // namespace silt::sqllogic
