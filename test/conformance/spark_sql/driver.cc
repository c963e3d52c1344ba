// Spark SQL golden-file driver: runs every statement of Apache Spark's SQLQueryTestSuite result
// files (../shared/conformance/spark-sql/results/**/*.sql.out, see its README) the way Spark's
// suite runs them, and lists the statements that crash the process.
//
// Rules reproduced: one session per file, statements in order (temporary views and SETs carry
// over), session time zone America/Los_Angeles, ANSI on for results/ (the session default) and
// off for results/nonansi/, the `--SET k=v` header lines of the input file, and the three tables
// Spark creates before every file (testdata, arraydata, mapdata).
//
// Each file runs in a forked child process with a per-statement timeout (SIGALRM). The child
// reports, through a pipe, each statement before it starts and its outcome after it ends; when
// the child dies (SIGSEGV, SIGABRT from an uncaught exception or a sanitizer, the timeout), the
// statement it was running is recorded as a crash and the file is run again from the start
// without it, until the file runs to its end.
//
// It also computes the pass rate of the files, with the suite's rules as the conformance issue
// counts them: a statement passes when it gives the same rows (as spark-sql prints them; sorted
// unless the statement has a top-level ORDER BY), or fails with Spark's error class (the class
// before the first '.' must match). EXPLAIN, DESCRIBE FUNCTION and JVM UDFs are skipped in the
// pass rate (they still run for the crash check).
//
// Usage: silt_spark_golden [--timeout SECONDS] [--sample N] [--verbose] [FILE.sql.out|DIR]...
//   default: every *.sql.out under the shared spark-sql results folder.
//   --sample N: only every N-th file (sorted by path), for a bounded run in `make test`.
//   --mutate N: also run N mutants of every statement (see Mutate below); crashes only.
//   --seed S: another deterministic set of mutants (default 0).
//   --gate: print "<statements without crash> passed, <crashes> failed" last (scripts/run-tests.sh)
// Statements failing with INTERNAL_ERROR (an exception caught at the API boundary: a bug, not a
// crash) are listed as INTERNAL lines.
// Exit status: 1 when a statement crashed, else 0.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/render.h"
#include "silt/silt.h"

namespace fs = std::filesystem;

namespace {

uint64_t mutation_seed = 0;  // --seed: another set of mutants

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

struct Query {
  std::string sql;
  std::string schema;
  std::string output;  // expected output text (rows, or an exception)
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string TrimNewlines(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  size_t b = 0;
  while (b < s.size() && s[b] == '\n') ++b;
  return s.substr(b);
}

// SQLQueryTestSuite writes a result as answer.mkString("\n").replaceAll("\\s+$", ""): the
// whitespace ending the whole output (a last row of spaces included) is not in the file.
std::string TrimTrailingWhitespace(std::string s) {
  auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };  // Java's \s
  while (!s.empty() && space(s.back())) s.pop_back();
  return s;
}

// Splits a .sql.out file into its blocks: "-- !query", statement, "-- !query schema", schema,
// "-- !query output", output.
std::vector<Query> ParseResults(const std::string& text) {
  std::vector<Query> out;
  std::vector<std::string> lines;
  {
    std::stringstream ss(text);
    std::string l;
    while (std::getline(ss, l)) lines.push_back(l);
  }
  enum { kNone, kSql, kSchema, kOutput } state = kNone;
  Query cur;
  auto flush = [&] {
    if (state == kNone) return;
    cur.sql = TrimNewlines(cur.sql);
    cur.schema = TrimNewlines(cur.schema);
    cur.output = TrimNewlines(cur.output);
    out.push_back(cur);
    cur = Query{};
  };
  for (const auto& l : lines) {
    if (l == "-- !query") {
      flush();
      state = kSql;
      continue;
    }
    if (l == "-- !query schema" && state == kSql) {
      state = kSchema;
      continue;
    }
    if (l == "-- !query output" && (state == kSchema || state == kSql)) {
      state = kOutput;
      continue;
    }
    std::string* target = state == kSql      ? &cur.sql
                          : state == kSchema ? &cur.schema
                          : state == kOutput ? &cur.output
                                             : nullptr;
    if (target) *target += l + "\n";
  }
  flush();
  return out;
}

std::string Upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// True when the statement has ORDER BY outside parentheses and literals (Spark then compares
// rows in order).
bool HasTopLevelOrderBy(const std::string& sql) {
  std::string s;
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < sql.size(); ++i) {
    char c = sql[i];
    if (quote) {
      if (c == '\\') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '\'' || c == '"' || c == '`') {
      quote = c;
      continue;
    }
    if (c == '(') ++depth;
    if (c == ')') --depth;
    s += depth == 0 ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : ' ';
  }
  for (auto& c : s)
    if (std::isspace(static_cast<unsigned char>(c))) c = ' ';
  std::string collapsed;
  for (char c : s)
    if (!(c == ' ' && !collapsed.empty() && collapsed.back() == ' ')) collapsed += c;
  return collapsed.find("ORDER BY") != std::string::npos;
}

std::string SkipReason(const std::string& sql) {
  std::string u = Upper(sql);
  size_t b = u.find_first_not_of(" \t\n");
  u = b == std::string::npos ? "" : u.substr(b);
  if (u.starts_with("EXPLAIN")) return "EXPLAIN output is Spark-internal";
  if (u.starts_with("DESCRIBE FUNCTION") || u.starts_with("DESC FUNCTION"))
    return "DESCRIBE FUNCTION (JVM class names)";
  if (u.find("TEMPORARY FUNCTION") != std::string::npos ||
      u.find("CREATE FUNCTION") != std::string::npos)
    return "JVM UDF";
  return "";
}

std::vector<std::string> SplitLines(const std::string& s) {
  std::vector<std::string> v;
  if (s.empty()) return v;
  std::stringstream ss(s);
  std::string l;
  while (std::getline(ss, l)) v.push_back(l);
  return v;
}

// The expected error class of an exception output, "" when the output is rows.
bool ExpectedError(const std::string& output, std::string* error_class) {
  if (!(output.starts_with("org.apache.") || output.starts_with("java.") ||
        output.starts_with("scala.")))
    return false;
  size_t p = output.find("\"errorClass\" : \"");
  if (p != std::string::npos) {
    p += std::strlen("\"errorClass\" : \"");
    *error_class = output.substr(p, output.find('"', p) - p);
  } else {
    error_class->clear();
  }
  return true;
}

std::string MajorClass(std::string_view c) { return std::string(c.substr(0, c.find('.'))); }

// ---- the child: runs a file's statements, reporting on `fd` ----

void Report(int fd, const std::string& line) {
  std::string s = line + "\n";
  const char* p = s.data();
  size_t n = s.size();
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w <= 0) _exit(3);
    p += w;
    n -= static_cast<size_t>(w);
  }
}

std::string OneLine(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
  if (s.size() > 300) s = s.substr(0, 300) + "...";
  return s;
}

// Where two row lists first differ, for --verbose: ": got `…` expected `…`" (a missing row
// as "(none)").
std::string FirstDifference(const std::vector<std::string>& got,
                            const std::vector<std::string>& want) {
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  auto row = [&](const std::vector<std::string>& rows) {
    return i < rows.size() ? "`" + OneLine(rows[i]).substr(0, 200) + "`" : std::string("(none)");
  };
  return ": row " + std::to_string(i) + " got " + row(got) + " expected " + row(want);
}

const char* kSetup[] = {
    "CREATE TABLE testdata AS SELECT CAST(id AS INT) AS key, CAST(id AS STRING) AS value FROM "
    "range(1, 101)",
    "CREATE TABLE arraydata AS SELECT * FROM VALUES (array(1, 2, 3), array(array(1, 2, 3))), "
    "(array(2, 3, 4), array(array(2, 3, 4))) AS t(arraycol, nestedarraycol)",
    "CREATE TABLE mapdata AS SELECT * FROM VALUES (map(1, 'a1', 2, 'b1', 3, 'c1', 4, 'd1', 5, "
    "'e1')), "
    "(map(1, 'a2', 2, 'b2', 3, 'c2', 4, 'd2')), (map(1, 'a3', 2, 'b3', 3, 'c3')), (map(1, 'a4', 2, "
    "'b4')), "
    "(map(1, 'a5')) AS t(mapcol)",
};

// ---- mutants: statements derived from a golden query by a small token edit ----
//
// With --mutate N every statement (but SET, RESET, USE, DROP) also runs N deterministic mutants
// right after it, in the same session: a token deleted, duplicated or
// swapped, a literal replaced by an edge value, an identifier replaced by another of the
// statement, a clause or operator inserted or replaced, the query wrapped. Only crashes count.

struct Token {
  enum Kind { kIdent, kNumber, kString, kOp } kind;
  std::string text;
};

std::vector<Token> Tokenize(const std::string& sql) {
  std::vector<Token> out;
  size_t i = 0, n = sql.size();
  while (i < n) {
    char c = sql[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '-' && i + 1 < n && sql[i + 1] == '-') {
      while (i < n && sql[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && sql[i + 1] == '*') {
      size_t e = sql.find("*/", i + 2);
      i = e == std::string::npos ? n : e + 2;
    } else if (c == '\'' || c == '"' || c == '`') {
      size_t j = i + 1;
      while (j < n && sql[j] != c) j += sql[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, n);
      out.push_back({c == '`' ? Token::kIdent : Token::kString, sql.substr(i, j - i)});
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < n && (std::isalnum(static_cast<unsigned char>(sql[j])) || sql[j] == '.')) ++j;
      out.push_back({Token::kNumber, sql.substr(i, j - i)});
      i = j;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < n && (std::isalnum(static_cast<unsigned char>(sql[j])) || sql[j] == '_')) ++j;
      out.push_back({Token::kIdent, sql.substr(i, j - i)});
      i = j;
    } else {
      static const char* kMulti[] = {"<=>", "<=", ">=", "<>", "!=", "||",
                                     "::",  "==", "->", "=>", "<<", ">>"};
      size_t len = 1;
      for (const char* m : kMulti) {
        if (sql.compare(i, std::strlen(m), m) == 0) {
          len = std::strlen(m);
          break;
        }
      }
      out.push_back({Token::kOp, sql.substr(i, len)});
      i += len;
    }
  }
  return out;
}

// Statements that get mutants: all but those that change the session (SET, RESET, USE) or drop
// what later statements need (DROP), so the file's own statements still run as written.
bool IsMutationTarget(const std::string& sql) {
  std::string u = Upper(sql.substr(0, 64));
  size_t b = u.find_first_not_of(" \t\n(");
  if (b == std::string::npos) return false;
  u = u.substr(b);
  for (const char* k : {"SET", "RESET", "USE", "DROP"})
    if (u.starts_with(k)) return false;
  return true;
}

std::string Mutate(const std::string& sql, uint64_t seed) {
  std::vector<Token> t = Tokenize(sql);
  if (t.size() < 2) return sql;
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  auto rnd = [&](size_t n) {
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return static_cast<size_t>(x % n);
  };
  auto join = [](const std::vector<Token>& v) {
    std::string s;
    for (const auto& k : v) s += (s.empty() ? "" : " ") + k.text;
    return s;
  };
  auto pick = [&](Token::Kind kind) -> long {
    std::vector<size_t> idx;
    for (size_t i = 1; i < t.size(); ++i)
      if (t[i].kind == kind) idx.push_back(i);
    return idx.empty() ? -1 : static_cast<long>(idx[rnd(idx.size())]);
  };
  static const char* kValues[] = {"NULL",
                                  "0",
                                  "-1",
                                  "2147483647",
                                  "-2147483648",
                                  "9223372036854775807",
                                  "1e308",
                                  "-0.0",
                                  "''",
                                  "'a'",
                                  "CAST(NULL AS INT)",
                                  "array()",
                                  "map()",
                                  "struct(1)",
                                  "1.5",
                                  "99999999999999999999999.9",
                                  "DATE'2020-01-01'",
                                  "TIMESTAMP'1970-01-01 00:00:00'",
                                  "X'00'",
                                  "(SELECT 1)",
                                  "(SELECT NULL)",
                                  "(SELECT max(id) FROM range(3))",
                                  "sum(1) OVER ()",
                                  "transform(array(1), x -> x)",
                                  "map(1, 2)[3]",
                                  "array(1)[5]",
                                  "named_struct('a', 1).a",
                                  "EXISTS (SELECT 1)",
                                  "1 IN (SELECT 1)",
                                  "count(*)",
                                  "grouping_id()",
                                  "CAST(NULL AS STRING)",
                                  "INTERVAL 1 DAY"};
  static const char* kInserts[] = {"NULL",
                                   ",",
                                   "(",
                                   ")",
                                   "DISTINCT",
                                   "ALL",
                                   "GROUP BY 1",
                                   "ORDER BY 1",
                                   "LIMIT 0",
                                   "*",
                                   "HAVING true",
                                   "()",
                                   "(SELECT 1)",
                                   "WHERE false",
                                   "GROUP BY ()",
                                   "AS",
                                   "NOT",
                                   "OVER ()",
                                   "FILTER (WHERE true)",
                                   "IN ()",
                                   "LATERAL VIEW explode(array()) e",
                                   ".",
                                   "ROLLUP",
                                   "CUBE",
                                   "GROUPING SETS (())"};
  static const char* kOps[] = {"+",  "-",  "*",  "/",    "%",  "=",   "<",   ">", "AND", "OR",
                               "||", "IN", "IS", "LIKE", "::", "<=>", "DIV", "&", "|",   "^"};
  switch (rnd(8)) {
    case 0:
      t.erase(t.begin() + 1 + static_cast<long>(rnd(t.size() - 1)));
      break;
    case 1: {
      size_t i = 1 + rnd(t.size() - 1);
      t.insert(t.begin() + static_cast<long>(i), t[i]);
      break;
    }
    case 2: {
      long i = pick(rnd(2) ? Token::kNumber : Token::kString);
      if (i < 0) i = pick(Token::kNumber);
      if (i < 0) i = static_cast<long>(1 + rnd(t.size() - 1));
      t[i] = {Token::kOp, kValues[rnd(std::size(kValues))]};
      break;
    }
    case 3: {
      size_t i = 1 + rnd(t.size() - 1);
      if (i + 1 < t.size()) std::swap(t[i], t[i + 1]);
      break;
    }
    case 4: {
      long i = pick(Token::kIdent), j = pick(Token::kIdent);
      if (i >= 0 && j >= 0) t[i] = t[j];
      break;
    }
    case 5:
      t.insert(t.begin() + 1 + static_cast<long>(rnd(t.size())),
               {Token::kOp, kInserts[rnd(std::size(kInserts))]});
      break;
    case 6: {
      long i = pick(Token::kOp);
      if (i < 0) i = static_cast<long>(1 + rnd(t.size() - 1));
      t[i] = {Token::kOp, kOps[rnd(std::size(kOps))]};
      break;
    }
    default: {
      std::string q = join(t);
      switch (rnd(4)) {
        case 0:
          return "SELECT * FROM (" + q + ")";
        case 1:
          return "SELECT count(*) FROM (" + q + ") GROUP BY ()";
        case 2:
          return q + " UNION ALL " + q;
        default:
          return "WITH x AS (" + q + ") SELECT * FROM x x1, x x2";
      }
    }
  }
  return join(t);
}

std::string Escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '\\')
      o += "\\\\";
    else if (c == '\n')
      o += "\\n";
    else
      o += c;
  }
  return o;
}

std::string Unescape(const std::string& s) {
  std::string o;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      o += s[i + 1] == 'n' ? '\n' : s[i + 1];
      ++i;
    } else {
      o += s[i];
    }
  }
  return o;
}

uint64_t HashText(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

[[noreturn]] void RunChild(int fd, const std::string& warehouse, bool ansi,
                           const std::vector<std::pair<std::string, std::string>>& sets,
                           const std::vector<Query>& queries, const std::set<std::string>& skip,
                           unsigned timeout, int mutants, uint64_t file_seed) {
  silt::DatabaseOptions options;
  options.warehouse = warehouse;
  options.threads = 1;
  options.tune_allocator = false;
  auto db = silt::Database::Open(options);
  if (!db.ok()) {
    Report(fd, "E cannot open the database: " + OneLine(std::string(db.status().message())));
    _exit(2);
  }
  silt::Connection con(*db);
  (void)con.SetConfig("spark.sql.session.timeZone", "America/Los_Angeles");
  // ANSI mode is the session default (as in Spark 4): only the nonansi/ results set it off.
  if (!ansi) (void)con.SetConfig("spark.sql.ansi.enabled", "false");
  for (const auto& [k, v] : sets) (void)con.SetConfig(k, v);
  for (const char* s : kSetup) {
    auto r = con.Query(s);
    if (!r.ok())
      Report(fd, "W setup failed: " + OneLine(std::string(r.status().error_class())) + " " +
                     OneLine(std::string(r.status().message())));
  }
  silt::cli::RenderOptions render;
  render.mode = silt::cli::OutputMode::kTabs;
  for (size_t i = 0; i < queries.size(); ++i) {
    const Query& q = queries[i];
    if (!skip.count(std::to_string(i))) {
      Report(fd, "S " + std::to_string(i));
      alarm(timeout);
      std::string outcome;
      try {
        auto r = con.Query(q.sql);
        alarm(0);
        std::string expected_class;
        bool expect_error = ExpectedError(q.output, &expected_class);
        std::string why = SkipReason(q.sql);
        if (!why.empty()) {
          outcome = "skip " + why;
        } else if (!r.ok()) {
          std::string got = std::string(r.status().error_class());
          if (got == "INTERNAL_ERROR")
            Report(fd, "I " + std::to_string(i) + " " + Escape(q.sql) + "\t" +
                           OneLine(std::string(r.status().message())));
          if (expect_error && !expected_class.empty() &&
              MajorClass(got) == MajorClass(expected_class))
            outcome = "pass";
          else
            outcome = "fail error " + got +
                      (expect_error ? " (expected " + expected_class + ")" : " (expected rows)") +
                      ": " + OneLine(std::string(r.status().message()));
        } else if (expect_error) {
          outcome = "fail rows (expected " +
                    (expected_class.empty() ? std::string("an error") : expected_class) + ")";
        } else {
          render.time_zone = silt::cli::RenderZone((*r)->time_zone);
          std::string text = silt::cli::RenderToString((*r)->schema(), (*r)->chunks(), render);
          auto got = SplitLines(TrimNewlines(TrimTrailingWhitespace(text)));
          auto want = SplitLines(q.output);
          if (!HasTopLevelOrderBy(q.sql)) {
            std::sort(got.begin(), got.end());
            std::sort(want.begin(), want.end());
          }
          outcome = got == want ? "pass" : "fail rows differ" + FirstDifference(got, want);
        }
      } catch (const std::exception& e) {
        // An exception escaping the API would terminate an embedding host: a crash.
        Report(fd, "X " + std::to_string(i) + " uncaught exception: " + OneLine(e.what()));
        _exit(4);
      } catch (...) {
        Report(fd, "X " + std::to_string(i) + " uncaught exception");
        _exit(4);
      }
      Report(fd, "R " + std::to_string(i) + " " + outcome);
    }
    if (mutants <= 0 || !IsMutationTarget(q.sql) || !SkipReason(q.sql).empty()) continue;
    for (int m = 0; m < mutants; ++m) {
      std::string id = std::to_string(i) + "." + std::to_string(m);
      if (skip.count(id)) continue;
      std::string sql = Mutate(
          q.sql, file_seed + i * 1000 + static_cast<uint64_t>(m) + mutation_seed * 0x100000000ull);
      Report(fd, "S " + id + " " + Escape(sql));
      alarm(timeout);
      try {
        auto r = con.Query(sql);
        if (!r.ok() && r.status().error_class() == "INTERNAL_ERROR") {
          alarm(0);
          Report(fd,
                 "I " + id + " " + Escape(sql) + "\t" + OneLine(std::string(r.status().message())));
        }
      } catch (const std::exception& e) {
        Report(fd, "X " + id + " uncaught exception: " + OneLine(e.what()));
        _exit(4);
      } catch (...) {
        Report(fd, "X " + id + " uncaught exception");
        _exit(4);
      }
      alarm(0);
      Report(fd, "R " + id + " mutant");
    }
  }
  Report(fd, "D");
  _exit(0);
}

// ---- the parent ----

struct Crash {
  std::string file;
  std::string id;  // "i" (the file's i-th statement) or "i.m" (its m-th mutant)
  std::string kind;
  std::string sql;
};

struct FileResult {
  size_t queries = 0, pass = 0, fail = 0, skipped = 0;
  std::vector<Crash> crashes;
  std::vector<Crash> internal;        // statements failing with INTERNAL_ERROR (bugs, not crashes)
  std::vector<std::string> failures;  // "#i outcome"
};

std::string SignalName(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGABRT:
      return "SIGABRT";
    case SIGALRM:
      return "timeout";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGKILL:
      return "SIGKILL";
    default:
      return "signal " + std::to_string(sig);
  }
}

FileResult RunFile(const std::string& path, const std::string& shared, unsigned timeout, int serial,
                   bool verbose, int mutants) {
  FileResult fr;
  std::vector<Query> queries = ParseResults(ReadFile(path));
  fr.queries = queries.size();
  bool ansi = path.find("/nonansi/") == std::string::npos;
  // --SET lines of the matching input file.
  std::vector<std::pair<std::string, std::string>> sets;
  {
    std::string rel = fs::path(path).lexically_relative(shared + "/results").string();
    if (rel.starts_with("nonansi/")) rel = rel.substr(8);
    if (rel.ends_with(".out")) rel.resize(rel.size() - 4);
    std::stringstream in(ReadFile(shared + "/inputs/" + rel));
    std::string l;
    while (std::getline(in, l)) {
      if (!l.starts_with("--SET ")) continue;
      std::string kv = l.substr(6);
      std::stringstream items(kv);
      std::string item;
      while (std::getline(items, item, ',')) {
        size_t eq = item.find('=');
        if (eq != std::string::npos) sets.emplace_back(item.substr(0, eq), item.substr(eq + 1));
      }
    }
  }
  std::set<std::string> skip;
  const uint64_t file_seed = HashText(fs::path(path).filename().string());
  const int max_attempts = static_cast<int>(queries.size()) * (1 + std::max(mutants, 0)) + 1;
  for (int attempt = 0; attempt < max_attempts; ++attempt) {
    int fds[2];
    if (pipe(fds) != 0) {
      perror("pipe");
      std::exit(2);
    }
    std::string warehouse = "memory://spark-golden-" + std::to_string(getpid()) + "-" +
                            std::to_string(serial) + "-" + std::to_string(attempt);
    std::cout.flush();
    pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      if (!kSanitized) {
        // Keep a runaway statement from taking the shared machine's memory (not under ASan: its
        // shadow memory needs a huge address space).
        struct rlimit lim {};
        lim.rlim_cur = lim.rlim_max = 8ull << 30;
        setrlimit(RLIMIT_AS, &lim);
      }
      RunChild(fds[1], warehouse, ansi, sets, queries, skip, timeout, mutants, file_seed);
    }
    close(fds[1]);
    std::string data;
    char buf[4096];
    for (;;) {
      ssize_t n = read(fds[0], buf, sizeof buf);
      if (n <= 0) break;
      data.append(buf, static_cast<size_t>(n));
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    // Outcomes of this run.
    std::map<size_t, std::string> outcomes;
    std::vector<Crash> internal;
    std::string running, running_sql;
    bool done = false;
    std::string exception;
    for (const auto& l : SplitLines(data)) {
      if (l.starts_with("S ")) {
        size_t sp = l.find(' ', 2);
        running = l.substr(2, sp == std::string::npos ? std::string::npos : sp - 2);
        running_sql =
            sp == std::string::npos ? queries[std::stoul(running)].sql : Unescape(l.substr(sp + 1));
      }
      if (l.starts_with("R ")) {
        size_t sp = l.find(' ', 2);
        std::string id = l.substr(2, sp - 2);
        if (id.find('.') == std::string::npos) outcomes[std::stoul(id)] = l.substr(sp + 1);
        running.clear();
      }
      if (l.starts_with("X ")) exception = l.substr(l.find(' ', 2) + 1);
      if (l.starts_with("I ")) {
        size_t sp = l.find(' ', 2), tab = l.rfind('\t');
        internal.push_back({path, l.substr(2, sp - 2), l.substr(tab + 1),
                            Unescape(l.substr(sp + 1, tab - sp - 1))});
      }
      if (l == "D") done = true;
      if ((l.starts_with("W ") || l.starts_with("E ")) && attempt == 0)
        std::cerr << path << ": " << l.substr(2) << "\n";
    }
    if (done && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      fr.internal = std::move(internal);
      for (const auto& [i, o] : outcomes) {
        if (o == "pass") {
          ++fr.pass;
        } else if (o.starts_with("skip")) {
          ++fr.skipped;
        } else {
          ++fr.fail;
          fr.failures.push_back("#" + std::to_string(i) + " " + o);
        }
      }
      return fr;
    }
    if (running.empty()) {
      std::cerr << path << ": the child died outside a statement (status " << status << ")\n";
      fr.fail += queries.size();
      return fr;
    }
    std::string kind = !exception.empty()    ? exception
                       : WIFSIGNALED(status) ? SignalName(WTERMSIG(status))
                                             : "exit status " + std::to_string(WEXITSTATUS(status));
    fr.crashes.push_back({path, running, kind, running_sql});
    if (verbose) std::cerr << "crash " << path << " #" << running << " (" << kind << ")\n";
    skip.insert(running);
  }
  return fr;
}

}  // namespace

int main(int argc, char** argv) {
  std::string shared = std::string(SILT_SHARED_DIR) + "/conformance/spark-sql";
  unsigned timeout = 20;
  size_t sample = 1;
  bool verbose = false, gate = false;
  int mutants = 0;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--timeout" && i + 1 < argc) {
      timeout = static_cast<unsigned>(std::stoul(argv[++i]));
    } else if (a == "--sample" && i + 1 < argc) {
      sample = std::max<size_t>(1, std::stoul(argv[++i]));
    } else if (a == "--seed" && i + 1 < argc) {
      mutation_seed = std::stoull(argv[++i]);
    } else if (a == "--mutate" && i + 1 < argc) {
      mutants = std::stoi(argv[++i]);
    } else if (a == "--verbose") {
      verbose = true;
    } else if (a == "--gate") {
      gate = true;
    } else if (a == "--help" || a == "-h") {
      std::cout << "usage: silt_spark_golden [--timeout S] [--sample N] [--mutate N] [--seed S] "
                   "[--verbose] "
                   "[--gate] [FILE.sql.out|DIR]...\n";
      return 0;
    } else {
      args.push_back(a);
    }
  }
  if (fs::is_directory(shared)) shared = fs::weakly_canonical(shared).string();
  if (!fs::is_directory(shared)) {
    std::cout << "SKIP: no " << shared << "\n0 passed, 0 failed, 1 skipped\n";
    return 0;
  }
  if (args.empty()) args.push_back(shared + "/results");
  std::vector<std::string> files;
  for (const auto& a : args) {
    if (fs::is_directory(a)) {
      for (const auto& e : fs::recursive_directory_iterator(a))
        if (e.is_regular_file() && e.path().string().ends_with(".sql.out"))
          files.push_back(fs::weakly_canonical(e.path()).string());
    } else {
      files.push_back(fs::weakly_canonical(a).string());
    }
  }
  std::sort(files.begin(), files.end());
  if (sample > 1) {
    std::vector<std::string> picked;
    for (size_t i = 0; i < files.size(); i += sample) picked.push_back(files[i]);
    files = picked;
  }
  size_t total = 0, pass = 0, fail = 0, skipped = 0;
  std::vector<Crash> crashes, internal;
  int serial = 0;
  for (const auto& f : files) {
    FileResult fr = RunFile(f, shared, timeout, serial++, verbose, mutants);
    total += fr.queries;
    pass += fr.pass;
    fail += fr.fail;
    skipped += fr.skipped;
    std::string name = fs::path(f).lexically_relative(shared + "/results").string();
    std::printf("%-60s %4zu queries %4zu pass %4zu fail %3zu skipped %3zu crash\n", name.c_str(),
                fr.queries, fr.pass, fr.fail, fr.skipped, fr.crashes.size());
    if (verbose)
      for (const auto& l : fr.failures) std::printf("  %s\n", l.c_str());
    crashes.insert(crashes.end(), fr.crashes.begin(), fr.crashes.end());
    internal.insert(internal.end(), fr.internal.begin(), fr.internal.end());
  }
  for (const auto& c : crashes) {
    std::string name = fs::path(c.file).lexically_relative(shared + "/results").string();
    std::printf("CRASH %s #%s (%s): %s\n", name.c_str(), c.id.c_str(), c.kind.c_str(),
                OneLine(c.sql).c_str());
  }
  for (const auto& c : internal) {
    std::string name = fs::path(c.file).lexically_relative(shared + "/results").string();
    std::printf("INTERNAL %s #%s: %s -- %s\n", name.c_str(), c.id.c_str(), OneLine(c.sql).c_str(),
                c.kind.c_str());
  }
  size_t crashed_statements = 0;  // of the files' own statements (not mutants)
  for (const auto& c : crashes) crashed_statements += c.id.find('.') == std::string::npos;
  size_t counted = pass + fail + crashed_statements;
  std::printf(
      "total: %zu files, %zu queries, %zu pass (%.1f%% of %zu counted), %zu fail, %zu skipped, %zu "
      "crash, %zu internal error\n",
      files.size(), total, pass,
      counted ? 100.0 * static_cast<double>(pass) / static_cast<double>(counted) : 0.0, counted,
      fail, skipped, crashes.size(), internal.size());
  if (gate) std::printf("%zu passed, %zu failed\n", total - crashes.size(), crashes.size());
  return crashes.empty() ? 0 : 1;
}
