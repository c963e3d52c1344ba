#include "cli/shell_input.h"

#include <gtest/gtest.h>

namespace silt::cli {
namespace {

// A stand-in for sql::SplitStatements: ';' outside '…' quotes. with_tail decides whether the
// unterminated tail is returned (the contract allows both).
Splitter TestSplitter(bool with_tail) {
  return [with_tail](std::string_view text, bool* complete) {
    std::vector<std::string> out;
    std::string cur;
    bool quoted = false;
    for (char c : text) {
      if (c == '\'') quoted = !quoted;
      if (c == ';' && !quoted) {
        out.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    *complete = !quoted && IsBlank(cur);
    if (!*complete && with_tail) out.push_back(cur);
    return out;
  };
}

class SplitBothWays : public ::testing::TestWithParam<bool> {};

TEST_P(SplitBothWays, SplitScriptTakesAMissingFinalSemicolon) {
  Splitter split = TestSplitter(GetParam());
  EXPECT_EQ(SplitScript("SELECT 1; SELECT 2", split),
            (std::vector<std::string>{"SELECT 1", " SELECT 2\n"}));
  EXPECT_EQ(SplitScript("SELECT 1;\n;  ;SELECT 2;\n", split),
            (std::vector<std::string>{"SELECT 1", "SELECT 2"}));
  EXPECT_TRUE(SplitScript("", split).empty());
  EXPECT_TRUE(SplitScript("  \n", split).empty());
  // An open quote: the whole text goes to the parser, which reports where.
  EXPECT_EQ(SplitScript("SELECT 1; SELECT 'x", split),
            (std::vector<std::string>{"SELECT 1; SELECT 'x"}));
}

TEST_P(SplitBothWays, StatementBufferWaitsForTheSemicolon) {
  StatementBuffer buf(TestSplitter(GetParam()));
  EXPECT_TRUE(buf.empty());
  EXPECT_TRUE(buf.AddLine("").empty());
  EXPECT_TRUE(buf.empty());  // blank lines do not start a statement
  EXPECT_TRUE(buf.AddLine("SELECT").empty());
  EXPECT_FALSE(buf.empty());
  EXPECT_TRUE(buf.AddLine("  1").empty());
  EXPECT_EQ(buf.AddLine("  ;"), (std::vector<std::string>{"SELECT\n  1\n  "}));
  EXPECT_TRUE(buf.empty());
  // Several statements on one line, and a ';' inside a string does not end one.
  EXPECT_EQ(buf.AddLine("SELECT 'a;b'; SELECT 2;"),
            (std::vector<std::string>{"SELECT 'a;b'", " SELECT 2"}));
  // A terminated statement followed by an unterminated one waits for the second.
  EXPECT_TRUE(buf.AddLine("SELECT 3; SELECT").empty());
  EXPECT_EQ(buf.AddLine("4;"), (std::vector<std::string>{"SELECT 3", " SELECT\n4"}));
  EXPECT_TRUE(buf.AddLine("SELECT 5").empty());
  EXPECT_EQ(buf.TakePending(), "SELECT 5");
  EXPECT_TRUE(buf.empty());
}

INSTANTIATE_TEST_SUITE_P(TailOrNot, SplitBothWays, ::testing::Bool());

TEST(ShellInputTest, ParseDotCommand) {
  EXPECT_FALSE(ParseDotCommand("SELECT 1").has_value());
  EXPECT_FALSE(ParseDotCommand("").has_value());
  auto c = ParseDotCommand("  .mode   csv ");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->name, "mode");
  EXPECT_EQ(c->args, (std::vector<std::string>{"csv"}));
  c = ParseDotCommand(".read \"my file.sql\"");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->args, (std::vector<std::string>{"my file.sql"}));
  c = ParseDotCommand(".");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->name, "");
}

TEST(ShellInputTest, ApplyDotCommand) {
  ShellSettings s;
  auto run = [&](const char* line) { return ApplyDotCommand(*ParseDotCommand(line), &s); };
  ASSERT_TRUE(run(".mode json").ok());
  EXPECT_EQ(s.render.mode, OutputMode::kJson);
  EXPECT_FALSE(run(".mode table").ok());
  EXPECT_EQ(s.render.mode, OutputMode::kJson);
  EXPECT_FALSE(run(".mode").ok());
  ASSERT_TRUE(run(".timing on").ok());
  EXPECT_TRUE(s.timing);
  ASSERT_TRUE(run(".timing off").ok());
  EXPECT_FALSE(s.timing);
  EXPECT_FALSE(run(".timing yes").ok());
  ASSERT_TRUE(run(".maxrows 0").ok());
  EXPECT_EQ(s.render.max_rows, 0u);
  EXPECT_FALSE(run(".maxrows -3").ok());
  ASSERT_TRUE(run(".maxwidth 12").ok());
  EXPECT_EQ(s.render.max_cell_width, 12u);
  auto a = run(".quit");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->kind, DotAction::kQuit);
  a = run(".exit");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->kind, DotAction::kQuit);
  a = run(".read x.sql");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->kind, DotAction::kRead);
  EXPECT_EQ(a->path, "x.sql");
  a = run(".help");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->kind, DotAction::kHelp);
  auto bad = run(".frobnicate");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(".frobnicate"), std::string_view::npos);
}

TEST(ShellInputTest, ParseByteSize) {
  EXPECT_EQ(*ParseByteSize("1024"), 1024);
  EXPECT_EQ(*ParseByteSize("4GB"), 4LL << 30);
  EXPECT_EQ(*ParseByteSize("4g"), 4LL << 30);
  EXPECT_EQ(*ParseByteSize("512MiB"), 512LL << 20);
  EXPECT_EQ(*ParseByteSize("1.5k"), 1536);
  EXPECT_EQ(*ParseByteSize("2 TB"), 2LL << 40);
  EXPECT_EQ(*ParseByteSize("-1"), -1);
  EXPECT_EQ(*ParseByteSize("unlimited"), -1);
  EXPECT_FALSE(ParseByteSize("").ok());
  EXPECT_FALSE(ParseByteSize("GB").ok());
  EXPECT_FALSE(ParseByteSize("4 parsecs").ok());
  EXPECT_FALSE(ParseByteSize("1.2.3").ok());
  EXPECT_FALSE(ParseByteSize("99999999999T").ok());
}

TEST(ShellInputTest, ParseSqlArgs) {
  auto a = ParseSqlArgs(
      {"--warehouse", "/w", "-e", "SELECT 1", "-f", "x.sql", "--mode=csv", "--timing", "--conf",
       "spark.sql.ansi.enabled=true", "--threads", "3", "--memory-limit", "2GB", "-e", "SELECT 2"},
      true);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->warehouse, "/w");
  ASSERT_EQ(a->scripts.size(), 3u);
  EXPECT_EQ(a->scripts[0], (std::pair<char, std::string>{'e', "SELECT 1"}));
  EXPECT_EQ(a->scripts[1], (std::pair<char, std::string>{'f', "x.sql"}));
  EXPECT_EQ(a->scripts[2], (std::pair<char, std::string>{'e', "SELECT 2"}));
  EXPECT_EQ(a->mode, OutputMode::kCsv);
  EXPECT_TRUE(a->timing);
  ASSERT_EQ(a->conf.size(), 1u);
  EXPECT_EQ(a->conf[0].first, "spark.sql.ansi.enabled");
  EXPECT_EQ(a->conf[0].second, "true");
  EXPECT_EQ(a->threads, 3);
  EXPECT_EQ(a->memory_limit_bytes, 2LL << 30);

  auto d = ParseSqlArgs({}, true);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->warehouse, "./silt-warehouse");
  EXPECT_FALSE(d->mode.has_value());
  EXPECT_EQ(d->memory_limit_bytes, -1);

  EXPECT_FALSE(ParseSqlArgs({"-e"}, true).ok());
  EXPECT_FALSE(ParseSqlArgs({"--mode", "html"}, true).ok());
  EXPECT_FALSE(ParseSqlArgs({"--conf", "novalue"}, true).ok());
  EXPECT_FALSE(ParseSqlArgs({"--threads", "x"}, true).ok());
  EXPECT_FALSE(ParseSqlArgs({"--memory-limit", "lots"}, true).ok());
  EXPECT_FALSE(ParseSqlArgs({"--bogus"}, true).ok());
  EXPECT_FALSE(ParseSqlArgs({"SELECT 1"}, true).ok());
  // The shell takes no scripts.
  EXPECT_FALSE(ParseSqlArgs({"-e", "SELECT 1"}, false).ok());
  EXPECT_TRUE(ParseSqlArgs({"--warehouse=/x"}, false).ok());
}

TEST(ShellInputTest, FormatError) {
  // Spark's form: the class once, then the message and the class's SQLSTATE.
  EXPECT_EQ(
      FormatError(Status::NotFound("The table `t` cannot be found.", "TABLE_OR_VIEW_NOT_FOUND")),
      "Error: [TABLE_OR_VIEW_NOT_FOUND] The table `t` cannot be found. SQLSTATE: 42P01");
  // A message is printed as is: the CLI strips nothing.
  EXPECT_EQ(
      FormatError(Status::InvalidArgument("Syntax error at or near 'x'.", "PARSE_SYNTAX_ERROR")),
      "Error: [PARSE_SYNTAX_ERROR] Syntax error at or near 'x'. SQLSTATE: 42601");
  // No class given: the code's name stands in, without a SQLSTATE.
  EXPECT_EQ(FormatError(Status::IoError("disk on fire")), "Error: [IO_ERROR] disk on fire");
}

}  // namespace
}  // namespace silt::cli
