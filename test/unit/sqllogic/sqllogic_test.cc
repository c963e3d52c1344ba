#include "sqllogic/sqllogic.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "io/object_store_factory.h"
#include "support/wall_clock.h"

namespace silt::sqllogic {
namespace {

Variables Vars() { return {"/tmp/td", "/tmp/wh", "/shared"}; }

TestFile Parse(std::string_view text, Variables vars = Vars()) {
  auto f = ParseTestFile(text, "t.test", vars);
  EXPECT_TRUE(f.ok()) << f.status().ToString();
  return f.ok() ? *f : TestFile{};
}

std::string ParseError(std::string_view text) {
  auto f = ParseTestFile(text, "t.test", Vars());
  EXPECT_FALSE(f.ok());
  return f.ok() ? "" : std::string(f.status().message());
}

TEST(SqllogicParseTest, StatementsAndQueries) {
  TestFile f = Parse(
      "# name: t.test\n"
      "\n"
      "statement ok\n"
      "CREATE TABLE t (id BIGINT)\n"
      "USING DELTA\n"
      "\n"
      "statement error DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT\n"
      "VACUUM t RETAIN 1 HOURS\n"
      "\n"
      "statement error\n"
      "SELECT nope\n"
      "----\n"
      "UNRESOLVED_COLUMN\n"
      "\n"
      "query IT rowsort lbl\n"
      "SELECT 1, 'a'\n"
      "----\n"
      "1\ta\n"
      "2\t(empty)\n"
      "\n"
      "query I\n"
      "SELECT count(*) FROM t\n"
      "----\n"
      "0\n");
  ASSERT_EQ(f.records.size(), 5u);
  EXPECT_EQ(f.records[0].kind, Record::kStatementOk);
  EXPECT_EQ(f.records[0].line, 3);
  EXPECT_EQ(f.records[0].sql, "CREATE TABLE t (id BIGINT)\nUSING DELTA");
  EXPECT_EQ(f.records[1].kind, Record::kStatementError);
  EXPECT_EQ(f.records[1].error_class, "DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT");
  EXPECT_EQ(f.records[1].error_substring, "");
  EXPECT_EQ(f.records[2].error_class, "");
  EXPECT_EQ(f.records[2].error_substring, "UNRESOLVED_COLUMN");
  EXPECT_EQ(f.records[3].kind, Record::kQuery);
  EXPECT_EQ(f.records[3].types, "IT");
  EXPECT_EQ(f.records[3].sort, SortMode::kRowSort);
  EXPECT_EQ(f.records[3].label, "lbl");
  EXPECT_EQ(f.records[3].expected, (std::vector<std::string>{"1\ta", "2\t(empty)"}));
  EXPECT_TRUE(f.records[3].has_expected);
  EXPECT_EQ(f.records[4].line, 21);
  EXPECT_EQ(f.records[4].sort, SortMode::kNoSort);
  EXPECT_EQ(f.records[4].expected, (std::vector<std::string>{"0"}));
  EXPECT_TRUE(f.skip_reason.empty());
}

TEST(SqllogicParseTest, QueryWithoutResultSectionExpectsNoRows) {
  TestFile f = Parse("query I\r\nSELECT 1 WHERE false\r\n");
  ASSERT_EQ(f.records.size(), 1u);
  EXPECT_EQ(f.records[0].sql, "SELECT 1 WHERE false");
  EXPECT_TRUE(f.records[0].expected.empty());
  EXPECT_FALSE(f.records[0].has_expected);
}

TEST(SqllogicParseTest, Variables) {
  TestFile f = Parse(
      "statement ok\nCREATE TABLE t LOCATION '__TEST_DIR__/t'\n\n"
      "statement ok\nSELECT '__WAREHOUSE__', '${SHARED}/conformance'\n");
  ASSERT_EQ(f.records.size(), 2u);
  EXPECT_EQ(f.records[0].sql, "CREATE TABLE t LOCATION '/tmp/td/t'");
  EXPECT_EQ(f.records[1].sql, "SELECT '/tmp/wh', '/shared/conformance'");
  // Without the shared folder a file using ${SHARED} is skipped, not failed.
  Variables no_shared = Vars();
  no_shared.shared_dir = "";
  f = Parse("statement ok\nSELECT '${SHARED}'\n", no_shared);
  EXPECT_NE(f.skip_reason.find("shared"), std::string::npos);
  f = Parse("require shared\n\nstatement ok\nSELECT 1\n", no_shared);
  EXPECT_FALSE(f.skip_reason.empty());
  f = Parse("require shared\n\nstatement ok\nSELECT 1\n");
  EXPECT_TRUE(f.skip_reason.empty());
  EXPECT_EQ(f.records.size(), 1u);
}

TEST(SqllogicParseTest, SkipsHaltAndIgnoredDirectives) {
  TestFile f = Parse(
      "hash-threshold 100\n"
      "mode skip\n\n"
      "statement ok\nSELECT 1\n\n"
      "mode unskip\n\n"
      "statement ok\nSELECT 2\n\n"
      "skipif silt\nstatement ok\nSELECT 3\n\n"
      "onlyif duckdb\nstatement ok\nSELECT 4\n\n"
      "onlyif silt\nstatement ok\nSELECT 5\n\n"
      "mode output_result\n"
      "halt\n\n"
      "statement ok\nSELECT 6\n");
  ASSERT_EQ(f.records.size(), 7u);
  EXPECT_TRUE(f.records[0].skip);
  EXPECT_FALSE(f.records[1].skip);
  EXPECT_TRUE(f.records[2].skip);
  EXPECT_TRUE(f.records[3].skip);
  EXPECT_FALSE(f.records[4].skip);
  EXPECT_EQ(f.records[5].kind, Record::kHalt);
  EXPECT_FALSE(Parse("require parquet\n").skip_reason.empty());
  EXPECT_FALSE(Parse("load x.db\n").skip_reason.empty());
}

TEST(SqllogicParseTest, LoopsExpand) {
  TestFile f = Parse(
      "loop i 0 3\n"
      "statement ok\nINSERT INTO t VALUES (${i})\n\n"
      "endloop\n\n"
      "foreach t int bigint\n"
      "foreach n 1 2\n"
      "query I\nSELECT CAST(${n} AS ${t})\n----\n${n}\n\n"
      "endloop\n"
      "endloop\n");
  ASSERT_EQ(f.records.size(), 7u);
  EXPECT_EQ(f.records[0].sql, "INSERT INTO t VALUES (0)");
  EXPECT_EQ(f.records[2].sql, "INSERT INTO t VALUES (2)");
  EXPECT_EQ(f.records[2].line, 2);
  EXPECT_EQ(f.records[3].sql, "SELECT CAST(1 AS int)");
  EXPECT_EQ(f.records[4].sql, "SELECT CAST(2 AS int)");
  EXPECT_EQ(f.records[4].expected, (std::vector<std::string>{"2"}));
  EXPECT_EQ(f.records[6].sql, "SELECT CAST(2 AS bigint)");
}

TEST(SqllogicParseTest, MalformedFilesNameTheLine) {
  EXPECT_NE(ParseError("\nstatement okay\nSELECT 1\n").find("t.test:2:"), std::string::npos);
  EXPECT_NE(ParseError("statement ok\n\n").find("without SQL"), std::string::npos);
  EXPECT_NE(ParseError("statement ok\nSELECT 1\n----\n1\n").find("no ----"), std::string::npos);
  EXPECT_NE(ParseError("query\nSELECT 1\n").find("t.test:1:"), std::string::npos);
  EXPECT_NE(ParseError("query I2\nSELECT 1\n").find("letters"), std::string::npos);
  EXPECT_NE(ParseError("query I rowsort lbl extra\nSELECT 1\n").find("extra"), std::string::npos);
  EXPECT_NE(ParseError("loop i 0 2\nstatement ok\nSELECT 1\n").find("endloop"), std::string::npos);
  EXPECT_NE(ParseError("endloop\n").find("endloop"), std::string::npos);
  EXPECT_NE(ParseError("frobnicate\n").find("frobnicate"), std::string::npos);
  EXPECT_NE(ParseError("query I\nSELECT 1\n----\n3 values hashing to abc\n").find("hash"),
            std::string::npos);
  EXPECT_NE(ParseError("statement ok\nSELECT 1\n\nskipif silt\n").find("skipif"),
            std::string::npos);
}

Record Query(std::string types, std::vector<std::string> expected,
             SortMode sort = SortMode::kNoSort) {
  Record r;
  r.kind = Record::kQuery;
  r.types = std::move(types);
  r.expected = std::move(expected);
  r.has_expected = true;
  r.sort = sort;
  return r;
}

TEST(SqllogicCompareTest, RowWiseAndValueWise) {
  TextRows actual = {{"1", "a"}, {"2", "b"}};
  EXPECT_FALSE(CompareQuery(Query("IT", {"1\ta", "2\tb"}), 2, actual));
  EXPECT_FALSE(CompareQuery(Query("IT", {"1", "a", "2", "b"}), 2, actual));
  auto d = CompareQuery(Query("IT", {"1\ta", "2\tc"}), 2, actual);
  ASSERT_TRUE(d.has_value());
  EXPECT_NE(d->find("row 2, column 2: expected 'c', got 'b'"), std::string::npos) << *d;
  d = CompareQuery(Query("IT", {"1\ta"}), 2, actual);
  ASSERT_TRUE(d.has_value());
  EXPECT_NE(d->find("expected 1 row(s), got 2"), std::string::npos) << *d;
  d = CompareQuery(Query("I", {"1"}), 2, actual);
  ASSERT_TRUE(d.has_value());
  EXPECT_NE(d->find("declares 1 column"), std::string::npos) << *d;
  d = CompareQuery(Query("IT", {"1\ta\tx", "2\tb"}), 2, actual);
  ASSERT_TRUE(d.has_value());
  EXPECT_NE(d->find("expected line 1 has 3"), std::string::npos) << *d;
  // Order matters without a sort mode.
  EXPECT_TRUE(CompareQuery(Query("IT", {"2\tb", "1\ta"}), 2, actual));
  EXPECT_FALSE(CompareQuery(Query("IT", {"2\tb", "1\ta"}, SortMode::kRowSort), 2, actual));
  EXPECT_FALSE(CompareQuery(Query("IT", {"a", "b", "1", "2"}, SortMode::kValueSort), 2, actual));
  // No rows expected.
  EXPECT_FALSE(CompareQuery(Query("I", {}), 1, {}));
  EXPECT_TRUE(CompareQuery(Query("I", {}), 1, {{"1"}}));
}

TEST(SqllogicCompareTest, RealsWithTolerance) {
  EXPECT_TRUE(RealEquals("0.1", "0.1"));
  EXPECT_TRUE(RealEquals("0.30000000000000004", "0.3"));
  EXPECT_TRUE(RealEquals("1.0E10", "10000000000.000001"));
  EXPECT_FALSE(RealEquals("0.333333", "0.3333333333333333"));
  EXPECT_FALSE(RealEquals("1.0", "1.001"));
  EXPECT_TRUE(RealEquals("0.0", "1.0E-13"));
  EXPECT_TRUE(RealEquals("NaN", "NaN"));
  EXPECT_FALSE(RealEquals("NaN", "1.0"));
  EXPECT_TRUE(RealEquals("Infinity", "Infinity"));
  EXPECT_FALSE(RealEquals("Infinity", "-Infinity"));
  EXPECT_FALSE(RealEquals("NULL", "0.0"));
  EXPECT_TRUE(RealEquals("NULL", "NULL"));
  EXPECT_FALSE(RealEquals("", "0"));
  // Only R columns get the tolerance.
  TextRows actual = {{"1", "0.30000000000000004"}};
  EXPECT_FALSE(CompareQuery(Query("IR", {"1\t0.3"}), 2, actual));
  EXPECT_TRUE(CompareQuery(Query("IT", {"1\t0.3"}), 2, actual));
  EXPECT_TRUE(CompareQuery(Query("TR", {"1.0\t0.3"}), 2, actual));
  EXPECT_FALSE(CompareQuery(Query("RR", {"1.0\t0.3"}), 2, actual));
}

TEST(SqllogicCompareTest, ErrorClasses) {
  EXPECT_TRUE(ErrorClassMatches("TABLE_OR_VIEW_NOT_FOUND", "TABLE_OR_VIEW_NOT_FOUND"));
  EXPECT_TRUE(ErrorClassMatches("DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES", "DATATYPE_MISMATCH"));
  EXPECT_TRUE(ErrorClassMatches("DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES",
                                "DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES"));
  EXPECT_FALSE(ErrorClassMatches("DATATYPE_MISMATCH", "DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES"));
  EXPECT_FALSE(ErrorClassMatches("DATATYPE_MISMATCHES", "DATATYPE_MISMATCH"));
  EXPECT_FALSE(ErrorClassMatches("TABLE_OR_VIEW_NOT_FOUND", "TABLE"));
}

TEST(SqllogicCompareTest, ResultToTextUsesSparkSqlCells) {
  Schema s = {{"a", DataType::Int32(), true, "{}"},
              {"b", DataType::String(), true, "{}"},
              {"c", DataType::Double(), true, "{}"}};
  DataChunk chunk = DataChunk::FromSchema(s);
  chunk.columns[0].Append<int32_t>(1);
  chunk.columns[0].AppendNull();
  chunk.columns[1].AppendString("");
  chunk.columns[1].AppendNull();
  chunk.columns[2].Append<double>(2.0);
  chunk.columns[2].Append<double>(1e20);
  TextRows rows = ResultToText(s, {chunk});
  EXPECT_EQ(rows, (TextRows{{"1", "(empty)", "2.0"}, {"NULL", "NULL", "1.0E20"}}));
}

std::unique_ptr<QueryResult> IntResult(std::vector<int32_t> values) {
  Schema s = {{"x", DataType::Int32(), true, "{}"}};
  DataChunk chunk = DataChunk::FromSchema(s);
  for (int32_t v : values) chunk.columns[0].Append<int32_t>(v);
  std::vector<DataChunk> chunks;
  chunks.push_back(std::move(chunk));
  return std::make_unique<QueryResult>(s, std::move(chunks));
}

// A scripted executor: SQL text → result or error; records what it ran.
Executor Scripted(std::vector<std::string>* seen) {
  return [seen](const std::string& sql) -> Result<std::unique_ptr<QueryResult>> {
    seen->push_back(sql);
    if (sql == "ok") return std::make_unique<QueryResult>(Schema{}, std::vector<DataChunk>{});
    if (sql == "one") return IntResult({1});
    if (sql == "three") return IntResult({3, 1, 2});
    if (sql == "missing") {
      return Status::NotFound("The table `t` cannot be found.", "TABLE_OR_VIEW_NOT_FOUND");
    }
    return Status::InvalidArgument("Syntax error at or near '" + sql + "'.", "PARSE_SYNTAX_ERROR");
  };
}

TEST(SqllogicRunTest, CountsPassesFailuresAndSkips) {
  TestFile f = Parse(
      "statement ok\nok\n\n"                                           // pass
      "statement ok\nmissing\n\n"                                      // fail
      "statement error TABLE_OR_VIEW_NOT_FOUND\nmissing\n\n"           // pass
      "statement error PARSE_SYNTAX_ERROR\nmissing\n\n"                // fail: wrong class
      "statement error\nmissing\n----\ncannot be found\n\n"            // pass
      "statement error\nmissing\n----\n[TABLE_OR_VIEW_NOT_FOUND]\n\n"  // pass: class in the text
      "statement error\nmissing\n----\nno such words\n\n"              // fail
      "statement error\nok\n\n"                                        // fail: no error
      "query I\none\n----\n1\n\n"                                      // pass
      "query I\nthree\n----\n1\n2\n3\n\n"                              // fail: order
      "query I rowsort\nthree\n----\n1\n2\n3\n\n"                      // pass
      "query I\nmissing\n----\n1\n\n"                                  // fail
      "mode skip\n\nquery I\nnever\n\nmode unskip\n\n"                 // skip
      "halt\n\n"
      "statement ok\nnever\n\n"         // skip
      "statement ok\nnever either\n");  // skip
  std::vector<std::string> seen;
  FileOutcome o = RunTestFile(f, Scripted(&seen));
  EXPECT_EQ(o.passed, 6) << o.report;
  EXPECT_EQ(o.failed, 6) << o.report;
  EXPECT_EQ(o.skipped, 3) << o.report;
  for (const std::string& s : seen) EXPECT_NE(s.rfind("never", 0), 0u) << "ran " << s;
  EXPECT_NE(o.report.find("FAIL t.test:4\n    missing\n  statement failed: Error: "
                          "[TABLE_OR_VIEW_NOT_FOUND] The table `t` cannot be found."),
            std::string::npos)
      << o.report;
  EXPECT_NE(o.report.find("expected error class PARSE_SYNTAX_ERROR"), std::string::npos);
  EXPECT_NE(o.report.find("statement succeeded"), std::string::npos);
  EXPECT_NE(o.report.find("row 1, column 1: expected '1', got '3'"), std::string::npos);
  EXPECT_NE(o.report.find("query failed"), std::string::npos);
}

TEST(SqllogicRunTest, Labels) {
  TestFile f = Parse(
      "query I rowsort same\nthree\n----\n1\n2\n3\n\n"
      "query I rowsort same\nthree\n\n"  // compared with the first only: pass
      "query I nosort same\none\n\n");   // differs: fail
  std::vector<std::string> seen;
  FileOutcome o = RunTestFile(f, Scripted(&seen));
  EXPECT_EQ(o.passed, 2) << o.report;
  EXPECT_EQ(o.failed, 1) << o.report;
  EXPECT_NE(o.report.find("labelled 'same'"), std::string::npos) << o.report;
}

TEST(SqllogicRunTest, SkippedFileRunsNothing) {
  Variables v = Vars();
  v.shared_dir = "";
  TestFile f = Parse("statement ok\nSELECT '${SHARED}'\n", v);
  FileOutcome o = RunTestFile(f, nullptr);
  EXPECT_EQ(o.passed, 0);
  EXPECT_EQ(o.failed, 0);
  EXPECT_EQ(o.skipped, 1);
}

}  // namespace
}  // namespace silt::sqllogic

namespace silt::sqllogic {
namespace {

TEST(SqllogicDirectiveTest, ParsesTimestampsAndDurations) {
  EXPECT_EQ(*ParseUtcTimestamp("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(*ParseUtcTimestamp("1970-01-02"), 86400000);
  EXPECT_EQ(*ParseUtcTimestamp("2030-01-01T00:00:00Z"), 1893456000000);
  EXPECT_EQ(*ParseUtcTimestamp("2030-01-01 00:00:01.5"), 1893456001500);
  EXPECT_EQ(*ParseUtcTimestamp("1969-12-31T23:59:59.999Z"), -1);
  EXPECT_FALSE(ParseUtcTimestamp("2030-13-01").ok());
  EXPECT_EQ(*ParseUtcTimestamp("2030-01-01T00:01"), 1893456060000);
  EXPECT_FALSE(ParseUtcTimestamp("yesterday").ok());
  EXPECT_FALSE(ParseUtcTimestamp("2030-01-01T25:00:00Z").ok());
  EXPECT_EQ(*ParseDuration("7", "days"), 7 * 86400000LL);
  EXPECT_EQ(*ParseDuration("1", "hour"), 3600000);
  EXPECT_EQ(*ParseDuration("-2", "minutes"), -120000);
  EXPECT_EQ(*ParseDuration("3", "seconds"), 3000);
  EXPECT_EQ(*ParseDuration("5", "ms"), 5);
  EXPECT_FALSE(ParseDuration("1.5", "hours").ok());
  EXPECT_FALSE(ParseDuration("1", "weeks").ok());
}

TEST(SqllogicDirectiveTest, ParsesClockAndFileDirectives) {
  TestFile f = Parse(
      "clock set 2030-01-01T00:00:00Z\n"
      "\n"
      "clock advance 7 days\n"
      "\n"
      "file write t/a.txt\n"
      "hello\n"
      "world\n"
      "\n"
      "file write __TEST_DIR__/b.txt mtime 2029-12-31T00:00:00Z\n"
      "\n"
      "file write c.txt mtime clock\n"
      "\n"
      "file touch t/*.parquet mtime 2020-01-01\n"
      "\n"
      "file mkdir t/ghi\n"
      "\n"
      "file remove t/ghi\n"
      "\n"
      "file exists t/a.txt\n"
      "\n"
      "file missing t/z.txt\n"
      "\n"
      "file count t *.parquet 3\n");
  EXPECT_TRUE(f.uses_clock);
  ASSERT_EQ(f.records.size(), 11u);
  for (const Record& r : f.records) EXPECT_EQ(r.kind, Record::kDirective);
  EXPECT_EQ(f.records[0].directive.op, Directive::kClockSet);
  EXPECT_EQ(f.records[0].directive.millis, 1893456000000);
  EXPECT_EQ(f.records[1].directive.op, Directive::kClockAdvance);
  EXPECT_EQ(f.records[1].directive.millis, 7 * 86400000LL);
  EXPECT_EQ(f.records[2].directive.op, Directive::kFileWrite);
  EXPECT_EQ(f.records[2].directive.path, "t/a.txt");
  EXPECT_EQ(f.records[2].directive.content, "hello\nworld");
  EXPECT_FALSE(f.records[2].directive.mtime_ms.has_value());
  EXPECT_EQ(f.records[3].directive.path, "/tmp/td/b.txt");
  EXPECT_EQ(f.records[3].directive.mtime_ms, 1893369600000);
  EXPECT_FALSE(f.records[4].directive.mtime_ms.has_value());
  EXPECT_EQ(f.records[5].directive.op, Directive::kFileTouch);
  EXPECT_EQ(f.records[5].directive.path, "t/*.parquet");
  EXPECT_EQ(f.records[5].directive.mtime_ms, 1577836800000);
  EXPECT_EQ(f.records[6].directive.op, Directive::kFileMkdir);
  EXPECT_EQ(f.records[7].directive.op, Directive::kFileRemove);
  EXPECT_EQ(f.records[7].directive.path, "t/ghi");
  EXPECT_EQ(f.records[8].directive.op, Directive::kFileExists);
  EXPECT_EQ(f.records[9].directive.op, Directive::kFileMissing);
  EXPECT_EQ(f.records[10].directive.op, Directive::kFileCount);
  EXPECT_EQ(f.records[10].directive.path, "t");
  EXPECT_EQ(f.records[10].directive.glob, "*.parquet");
  EXPECT_EQ(f.records[10].directive.count, 3);
  EXPECT_FALSE(Parse("file exists a\n").uses_clock);
}

TEST(SqllogicDirectiveTest, RejectsMalformedDirectives) {
  EXPECT_NE(ParseError("clock set tomorrow\n").find("t.test:1: bad UTC timestamp"),
            std::string::npos);
  EXPECT_NE(ParseError("clock advance 1 fortnight\n").find("bad duration unit"), std::string::npos);
  EXPECT_NE(ParseError("clock advance 1\n").find("expected `clock set"), std::string::npos);
  EXPECT_NE(ParseError("clock stop\n").find("expected `clock set"), std::string::npos);
  EXPECT_NE(ParseError("file write a mtime\n").find("expected `mtime"), std::string::npos);
  EXPECT_NE(ParseError("file write a atime clock\n").find("expected `mtime"), std::string::npos);
  EXPECT_NE(ParseError("file count d *.x many\n").find("N must be a count"), std::string::npos);
  EXPECT_NE(ParseError("file exists\n").find("expected `file write"), std::string::npos);
  EXPECT_NE(ParseError("file delete a\n").find("expected `file write"), std::string::npos);
  EXPECT_NE(ParseError("file exists a\n----\nx\n").find("takes no ---- section"),
            std::string::npos);
}

TEST(SqllogicDirectiveTest, RunsDirectivesOnFilesAndTheClock) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("sqllogic-dir-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  ManualClock clock(1000);
  Environment env{&clock, dir.string()};
  TestFile f = Parse(
      "clock set 2030-01-01T00:00:00Z\n\n"
      "file write t/a.txt\nabc\n\n"
      "clock advance 1 hours\n\n"
      "file write t/b.parquet mtime clock\n\n"
      "file write t/c.parquet mtime 2000-01-01T00:00:00Z\n\n"
      "file mkdir t/ghi\n\n"
      "file exists t/ghi\n\n"
      "file exists t/a.txt\n\n"
      "file missing t/nope\n\n"
      "file count t *.parquet 2\n\n"
      "file count t * 3\n\n"
      "file count . t/* 3\n\n"
      "file touch t/*.parquet mtime 2001-01-01\n\n"
      "file write t/gone.txt\n\n"
      "file remove t/gone.txt\n\n"
      "file missing t/gone.txt\n\n"
      // failing checks:
      "file exists t/nope\n\n"
      "file missing t/a.txt\n\n"
      "file count t *.parquet 1\n\n"
      "file touch t/*.none\n\n"
      "file remove t/gone.txt\n");
  FileOutcome out = RunTestFile(f, nullptr, env);
  EXPECT_EQ(out.passed, 7);
  EXPECT_EQ(out.failed, 5) << out.report;
  EXPECT_NE(out.report.find("cannot remove"), std::string::npos) << out.report;
  EXPECT_NE(out.report.find("t/nope does not exist"), std::string::npos) << out.report;
  EXPECT_NE(out.report.find("t/a.txt exists"), std::string::npos) << out.report;
  EXPECT_NE(out.report.find("expected 1 file(s) matching *.parquet"), std::string::npos);
  EXPECT_NE(out.report.find("no file matches"), std::string::npos);
  EXPECT_EQ(clock.NowMillis(), 1893456000000 + 3600000);
  auto mtime_ms = [&](const char* name) {
    struct stat st;
    EXPECT_EQ(::stat((dir / name).c_str(), &st), 0);
    return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
  };
  EXPECT_EQ(mtime_ms("t/a.txt"), 1893456000000);
  EXPECT_EQ(mtime_ms("t/b.parquet"), 978307200000);
  EXPECT_EQ(mtime_ms("t/c.parquet"), 978307200000);
  std::ifstream in(dir / "t/a.txt");
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "abc");
  // Without a manual clock, clock records fail.
  FileOutcome no_clock = RunTestFile(Parse("clock advance 1 ms\n"), nullptr, Environment{});
  EXPECT_EQ(no_clock.failed, 1);
  fs::remove_all(dir);
}

// The in-memory store run: `file` directives on memory:// paths act on the named store.
TEST(SqllogicDirectiveTest, RunsFileDirectivesOnAMemoryWarehouse) {
  const std::string name = "sqllogic-directive-test";
  Variables vars = Vars();
  vars.warehouse = "memory://" + name;
  vars.memory_warehouse = true;
  ManualClock clock(1000);
  Environment env{&clock, "/tmp/unused"};
  TestFile f = Parse(
      "clock set 2030-01-01T00:00:00Z\n\n"
      "file write __WAREHOUSE__/t/a.txt\nabc\n\n"
      "file write __WAREHOUSE__/t/p=1/b.parquet mtime 2000-01-01\n\n"
      "file write __WAREHOUSE__/t/c.parquet\n\n"
      "file mkdir __WAREHOUSE__/empty\n\n"
      "file exists __WAREHOUSE__/t\n\n"
      "file exists __WAREHOUSE__/t/a.txt\n\n"
      "file missing __WAREHOUSE__/empty\n\n"
      "file count __WAREHOUSE__/t */*.parquet 1\n\n"
      "file count __WAREHOUSE__/t * 2\n\n"
      "file touch __WAREHOUSE__/t/*.parquet mtime 2001-01-01\n\n"
      "file remove __WAREHOUSE__/t/a.txt\n\n"
      "file missing __WAREHOUSE__/t/a.txt\n\n"
      // failing:
      "file remove __WAREHOUSE__/t/a.txt\n\n"
      "file count __WAREHOUSE__/nope * 0\n",
      vars);
  FileOutcome out = RunTestFile(f, nullptr, env);
  EXPECT_EQ(out.passed, 6) << out.report;
  EXPECT_EQ(out.failed, 2) << out.report;
  EXPECT_NE(out.report.find("it does not exist"), std::string::npos) << out.report;
  EXPECT_NE(out.report.find("is not a directory"), std::string::npos) << out.report;
  auto store = MemoryStore(name, WallClock());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->Head("t/p=1/b.parquet")->modification_time_ms, 946684800000);
  EXPECT_EQ((*store)->Head("t/c.parquet")->modification_time_ms, 978307200000);
  EXPECT_FALSE((*store)->Head("t/a.txt").ok());
  DropMemoryStore(name);
}

TEST(SqllogicParseTest, RequireLocalWarehouseSkipsOnlyTheInMemoryRun) {
  const char* text =
      "require local-warehouse it reads the warehouse with DuckDB\n\nstatement ok\nSELECT 1\n";
  EXPECT_TRUE(Parse(text).skip_reason.empty());
  Variables memory = Vars();
  memory.memory_warehouse = true;
  TestFile f = Parse(text, memory);
  EXPECT_NE(f.skip_reason.find("it reads the warehouse with DuckDB"), std::string::npos)
      << f.skip_reason;
  auto bad = ParseTestFile("require local-warehouse\n", "t.test", Vars());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("needs a reason"), std::string_view::npos);
  // __WAREHOUSE_URI__: a file: URI locally, the memory location on the in-memory run.
  memory.warehouse = "memory://m";
  EXPECT_EQ(Parse("statement ok\nSELECT '__WAREHOUSE_URI__'\n").records[0].sql,
            "SELECT 'file:///tmp/wh'");
  EXPECT_EQ(Parse("statement ok\nSELECT '__WAREHOUSE_URI__'\n", memory).records[0].sql,
            "SELECT 'memory://m'");
}

}  // namespace
}  // namespace silt::sqllogic

namespace silt::sqllogic {
namespace {

TEST(SqllogicRegexTest, RegexCellsMatchTheWholeValue) {
  TestFile f = Parse("query T\nSELECT 1\n----\n<REGEX>:file://.*/part-[0-9]+\\.parquet\n");
  ASSERT_EQ(f.records.size(), 1u);
  EXPECT_FALSE(CompareQuery(f.records[0], 1, {{"file:///t/part-01.parquet"}}).has_value());
  EXPECT_TRUE(CompareQuery(f.records[0], 1, {{"file:///t/part-01.parquet.crc"}}).has_value());
  EXPECT_TRUE(CompareQuery(f.records[0], 1, {{"/t/part-01.parquet"}}).has_value());
}

}  // namespace
}  // namespace silt::sqllogic
