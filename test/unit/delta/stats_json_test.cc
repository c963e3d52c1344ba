#include "delta/stats_json.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <iostream>

#include "delta/schema_json.h"

namespace silt::delta {
namespace {

Schema TestSchema() {
  auto s = ParseSchemaString(
      R"({"type":"struct","fields":[)"
      R"({"name":"i","type":"integer","nullable":true,"metadata":{}},)"
      R"({"name":"l","type":"long","nullable":true,"metadata":{}},)"
      R"({"name":"b","type":"byte","nullable":true,"metadata":{}},)"
      R"({"name":"d","type":"double","nullable":true,"metadata":{}},)"
      R"({"name":"f","type":"float","nullable":true,"metadata":{}},)"
      R"j({"name":"dec","type":"decimal(38,18)","nullable":true,"metadata":{}},)j"
      R"({"name":"s","type":"string","nullable":true,"metadata":{}},)"
      R"({"name":"da","type":"date","nullable":true,"metadata":{}},)"
      R"({"name":"ts","type":"timestamp","nullable":true,"metadata":{}},)"
      R"({"name":"ntz","type":"timestamp_ntz","nullable":true,"metadata":{}},)"
      R"({"name":"bo","type":"boolean","nullable":true,"metadata":{}},)"
      R"({"name":"bin","type":"binary","nullable":true,"metadata":{}},)"
      R"({"name":"n","type":{"type":"struct","fields":[{"name":"x","type":"long","nullable":true,"metadata":{}},)"
      R"({"name":"a.b","type":"string","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}},)"
      R"({"name":"arr","type":{"type":"array","elementType":"integer","containsNull":true},"nullable":true,"metadata":{}}]})");
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : Schema{};
}

TEST(StatsJsonTest, PathKeys) {
  EXPECT_EQ(StatsPathKey({"a"}), "a");
  EXPECT_EQ(StatsPathKey({"a", "b"}), "a.b");
  EXPECT_EQ(StatsPathKey({"n", "a.b"}), "n.`a.b`");
  EXPECT_EQ(StatsPathKey({"x`y"}), "`x``y`");
}

TEST(StatsJsonTest, ParseAllTypes) {
  Schema schema = TestSchema();
  auto r = ParseStats(
      R"({"numRecords":7,"minValues":{"i":-5,"l":-9223372036854775808,"b":-128,"d":-1.5E300,)"
      R"("f":"NaN","dec":-0.000000000000000001,"s":"a\"b","da":"2024-01-01",)"
      R"("ts":"2000-01-01T00:00:00.000-08:00","ntz":"2021-11-18T02:30:00.123",)"
      R"("n":{"x":3,"a.b":"q"},"unknown":{"deep":[1,2,{"z":null}]}},)"
      R"("maxValues":{"i":2147483647,"dec":12345678901234567890.123456789012345678,)"
      R"("ts":"1970-01-01T00:00:00.001Z","d":"Infinity","f":1.5},)"
      R"("nullCount":{"i":0,"s":2,"n":{"x":1,"a.b":0},"arr":4,"bo":7,"bin":0},"tightBounds":false})",
      schema);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const FileStats& st = *r;
  EXPECT_EQ(st.num_records, 7);
  EXPECT_EQ(st.tight_bounds, false);
  EXPECT_FALSE(st.TightBounds());
  EXPECT_EQ(st.Find("i")->min, Value::Int32(-5));
  EXPECT_EQ(st.Find("i")->max, Value::Int32(INT32_MAX));
  EXPECT_EQ(st.Find("i")->null_count, 0);
  EXPECT_EQ(st.Find("l")->min, Value::Int64(INT64_MIN));
  EXPECT_EQ(st.Find("b")->min, Value::Integer(DataType::Int8(), -128));
  EXPECT_EQ(st.Find("d")->min, Value::Double(-1.5e300));
  EXPECT_EQ(st.Find("d")->max, Value::Double(INFINITY));
  EXPECT_TRUE(std::isnan(st.Find("f")->min->floating()));
  EXPECT_EQ(st.Find("f")->max, Value::Floating(DataType::Float(), 1.5));
  EXPECT_EQ(st.Find("dec")->min, Value::Decimal(38, 18, -1));
  EXPECT_EQ(FormatDecimal(st.Find("dec")->max->decimal(), 18),
            "12345678901234567890.123456789012345678");  // exact, not via double
  EXPECT_EQ(st.Find("s")->min, Value::String("a\"b"));
  EXPECT_EQ(st.Find("s")->null_count, 2);
  EXPECT_EQ(st.Find("da")->min, Value::Integer(DataType::Date(), 19723));
  EXPECT_EQ(st.Find("ts")->min, Value::Integer(DataType::Timestamp(), 946713600000000LL));
  EXPECT_EQ(st.Find("ts")->max, Value::Integer(DataType::Timestamp(), 1000));
  EXPECT_EQ(st.Find("ntz")->min, Value::Integer(DataType::TimestampNtz(), 1637202600123000LL));
  EXPECT_EQ(st.FindPath({"n", "x"})->min, Value::Int64(3));
  EXPECT_EQ(st.FindPath({"n", "x"})->null_count, 1);
  EXPECT_EQ(st.FindPath({"n", "a.b"})->min, Value::String("q"));
  EXPECT_EQ(st.Find("arr")->null_count, 4);
  EXPECT_EQ(st.Find("bo")->null_count, 7);
  EXPECT_EQ(st.Find("unknown"), nullptr);
}

TEST(StatsJsonTest, MismatchedColumnStatsAreDropped) {
  Schema schema = TestSchema();
  auto r = ParseStats(
      R"({"numRecords":1,"minValues":{"i":"x","b":300,"l":1.5,"s":5,"da":"2024-02-30",)"
      R"("ts":12,"ntz":"2021-11-18T02:30:00.123Z","n":7,"bo":true,"dec":"1.5","arr":[1]},)"
      R"("maxValues":{"i":null,"n":{"x":"big"}},"nullCount":{"i":-1,"s":"2","n":{"x":1.5}}})",
      schema);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (const char* col : {"i", "b", "l", "s", "da", "ts", "ntz", "n", "arr"}) {
    const ColumnStats* c = r->Find(col);
    EXPECT_TRUE(c == nullptr || (!c->min && !c->max && !c->null_count)) << col;
  }
  EXPECT_FALSE(r->FindPath({"n", "x"}));
  EXPECT_EQ(r->Find("bo")->min, Value::Boolean(true));  // tolerated although Spark omits it
  EXPECT_EQ(r->Find("dec")->min, Value::Decimal(38, 18, 1500000000000000000LL));
}

TEST(StatsJsonTest, MalformedIsCorruption) {
  Schema schema = TestSchema();
  for (const char* bad :
       {"", "[]", "5", "{", R"({"numRecords":"1"})", R"({"numRecords":1.5})",
        R"({"tightBounds":1})", R"({"numRecords":1,"minValues":{"i":1})", R"({"numRecords":1} x)",
        R"({"minValues":{"i":1,}})", "{\"minValues\":{\"s\":\"\xff\"}}"}) {
    auto r = ParseStats(bad, schema);
    EXPECT_TRUE(r.status().IsCorruption()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().error_class(), kInvalidStatsClass);
    }
  }
  std::string deep = R"({"numRecords":1,"minValues":{"zz":)" + std::string(5000, '[') +
                     std::string(5000, ']') + "}}";
  auto r = ParseStats(deep, schema);
  if (r.ok()) {  // skipped unknown value; must not crash either way
    EXPECT_EQ(r->num_records, 1);
  }
  // Empty and partial stats.
  auto empty = ParseStats("{}", schema);
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->num_records);
  EXPECT_TRUE(empty->TightBounds());
}

TEST(StatsJsonTest, Truncation) {
  std::string s40(40, 'a');
  EXPECT_EQ(TruncateMinString(s40, 32), std::string(32, 'a'));
  EXPECT_EQ(TruncateMaxString(s40, 32), std::string(32, 'a') + "\x7F");
  EXPECT_EQ(TruncateMinString("short", 32), "short");
  EXPECT_EQ(TruncateMaxString("short", 32), "short");
  // The cut character is non-ASCII: U+10FFFF as tie-breaker.
  std::string e = std::string(32, 'a') + "é" + "zz";
  EXPECT_EQ(TruncateMaxString(e, 32), std::string(32, 'a') + "\xF4\x8F\xBF\xBF");
  // A supplementary character straddling the cut stays whole (2 UTF-16 units).
  std::string emoji = std::string(31, 'a') + "\xF0\x9F\x98\x80" + "bbb";
  EXPECT_EQ(TruncateMinString(emoji, 32), std::string(31, 'a') + "\xF0\x9F\x98\x80");
  EXPECT_EQ(TruncateMaxString(emoji, 32), std::string(31, 'a') + "\xF0\x9F\x98\x80" + "\x7F");
  // Max characters after the prefix are skipped; beyond 2× the prefix there is no max.
  std::string maxes = std::string(4, 'a');
  for (int i = 0; i < 10; ++i) maxes += "\xF4\x8F\xBF\xBF";
  EXPECT_EQ(TruncateMaxString(maxes, 4), std::nullopt);
  std::string some_max =
      "aaaa\xF4\x8F\xBF\xBF"
      "bc";
  EXPECT_EQ(TruncateMaxString(some_max, 4), "aaaa\xF4\x8F\xBF\xBF\x7F");
  EXPECT_EQ(TruncateMaxString("abcdef", 0), std::nullopt);
}

TEST(StatsJsonTest, SerializeLikeSpark) {
  Schema schema = TestSchema();
  std::vector<LeafStats> leaves = {
      {{"i"}, Value::Int32(-5), Value::Int32(7), 0},
      {{"l"}, Value::Null(DataType::Int64()), Value::Null(DataType::Int64()), 7},  // all null
      {{"d"}, Value::Double(1e10), Value::Double(NAN), 1},
      {{"f"}, Value::Floating(DataType::Float(), 0.1f), Value::Floating(DataType::Float(), 2), 0},
      {{"dec"}, Value::Decimal(38, 18, -31661), Value::Decimal(38, 18, 0), 0},
      {{"s"}, Value::String(std::string(40, 'x')), Value::String(std::string(40, 'y')), 0},
      {{"da"}, Value::Integer(DataType::Date(), 19723), Value::Integer(DataType::Date(), 19724), 0},
      {{"ts"},
       Value::Integer(DataType::Timestamp(), 1999),
       Value::Integer(DataType::Timestamp(), -1),
       0},
      {{"ntz"},
       Value::Integer(DataType::TimestampNtz(), 1637202600123456LL),
       Value::Integer(DataType::TimestampNtz(), 1637202600123456LL),
       0},
      {{"bo"}, Value::Boolean(false), Value::Boolean(true), 0},
      {{"bin"}, Value::Binary("a"), Value::Binary("b"), 3},
      {{"n", "x"}, Value::Int64(1), Value::Int64(2), 0},
      {{"arr"}, Value(), Value(), 2},
  };
  StatsOptions opts;
  opts.num_indexed_cols = -1;
  std::string json = SerializeStats(schema, 7, leaves, opts);
  EXPECT_EQ(
      json,
      R"({"numRecords":7,)"
      R"("minValues":{"i":-5,"d":1.0E10,"f":0.1,"dec":-3.1661E-14,"s":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",)"
      R"("da":"2024-01-01","ts":"1970-01-01T00:00:00.001Z","ntz":"2021-11-18T02:30:00.123","n":{"x":1}},)"
      R"("maxValues":{"i":7,"f":2.0,"dec":0E-18,"s":"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy)"
      "\x7F"
      R"(","da":"2024-01-02","ts":"1969-12-31T23:59:59.999Z","ntz":"2021-11-18T02:30:00.123","n":{"x":2}},)"
      R"("nullCount":{"i":0,"l":7,"d":1,"f":0,"dec":0,"s":0,"da":0,"ts":0,"ntz":0,"bo":0,"bin":3,)"
      R"("n":{"x":0},"arr":2}})");
  auto back = ParseStats(json, schema);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->Find("dec")->min, Value::Decimal(38, 18, -31661));
  EXPECT_EQ(back->Find("ts")->max, Value::Integer(DataType::Timestamp(), -1000));  // floored to ms

  // First-N columns: leaves counted in schema order, struct leaves individually.
  opts.num_indexed_cols = 2;
  opts.tight_bounds = true;
  EXPECT_EQ(
      SerializeStats(schema, 7, leaves, opts),
      R"({"numRecords":7,"minValues":{"i":-5},"maxValues":{"i":7},"nullCount":{"i":0,"l":7},"tightBounds":true})");
  opts.num_indexed_cols = 0;
  opts.tight_bounds.reset();
  EXPECT_EQ(SerializeStats(schema, 7, leaves, opts), R"({"numRecords":7})");

  // Explicit stats columns win; a struct selects its leaves.
  auto cols = ParseStatsColumnList("n , `bo`");
  ASSERT_TRUE(cols.ok());
  opts.stats_columns = *cols;
  opts.num_indexed_cols = 0;
  EXPECT_EQ(
      SerializeStats(schema, 7, leaves, opts),
      R"({"numRecords":7,"minValues":{"n":{"x":1}},"maxValues":{"n":{"x":2}},"nullCount":{"bo":0,"n":{"x":0}}})");
}

TEST(StatsJsonTest, StatsColumnList) {
  auto r = ParseStatsColumnList("a, b.c ,`d.e`.f,`g``h`");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::vector<std::string>> expected = {{"a"}, {"b", "c"}, {"d.e", "f"}, {"g`h"}};
  EXPECT_EQ(*r, expected);
  EXPECT_TRUE(ParseStatsColumnList("")->empty());
  for (const char* bad : {"a,,b", "a.", "`a", "a`b`", "`a`b"}) {
    EXPECT_FALSE(ParseStatsColumnList(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace silt::delta

namespace silt::delta {
namespace {

TEST(StatsJsonPerfTest, ManyStats) {
  Schema schema = TestSchema();
  const std::string json =
      R"({"numRecords":3,"minValues":{"i":26,"s":"foo1","ts":"2024-01-01T00:00:00.000Z","n":{"x":1}},)"
      R"("maxValues":{"i":46,"s":"foo9","ts":"2024-01-02T00:00:00.000Z","n":{"x":2}},)"
      R"("nullCount":{"i":0,"s":0,"ts":0,"n":{"x":0}},"tightBounds":true})";
  const int n = 5000;
  int64_t total = 0;
  auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < n; ++k) {
    auto r = ParseStats(json, schema);
    ASSERT_TRUE(r.ok());
    total += *r->num_records;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(total, 3 * n);
  std::cout << "[perf] " << n << " stats parsed in " << secs * 1e3 << " ms: " << n / secs / 1e3
            << "k/s\n";
}

}  // namespace
}  // namespace silt::delta
