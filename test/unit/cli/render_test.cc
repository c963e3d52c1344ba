#include "cli/render.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace silt::cli {
namespace {

// One chunk from rows of Values (nullopt = NULL).
DataChunk MakeChunk(const Schema& schema, const std::vector<std::vector<Value>>& rows) {
  DataChunk chunk = DataChunk::FromSchema(schema);
  for (const auto& row : rows) {
    for (size_t c = 0; c < schema.size(); ++c) {
      if (row[c].is_null()) {
        chunk.columns[c].AppendNull();
      } else {
        EXPECT_TRUE(chunk.columns[c].AppendValue(row[c]).ok());
      }
    }
  }
  return chunk;
}

std::string Cell(const Value& v, CellStyle style) {
  Vector vec(v.type());
  if (v.is_null()) {
    vec.AppendNull();
  } else {
    EXPECT_TRUE(vec.AppendValue(v).ok());
  }
  return FormatCell(vec, 0, style);
}
std::string Hive(const Value& v) { return Cell(v, CellStyle::kHive); }
std::string Pretty(const Value& v) { return Cell(v, CellStyle::kPretty); }

TEST(RenderTest, JavaDoubleToString) {
  EXPECT_EQ(FormatJavaDouble(1.0), "1.0");
  EXPECT_EQ(FormatJavaDouble(-1.5), "-1.5");
  EXPECT_EQ(FormatJavaDouble(0.1), "0.1");
  EXPECT_EQ(FormatJavaDouble(100.0), "100.0");
  EXPECT_EQ(FormatJavaDouble(1234567.0), "1234567.0");
  EXPECT_EQ(FormatJavaDouble(9999999.0), "9999999.0");
  EXPECT_EQ(FormatJavaDouble(1.0e7), "1.0E7");
  EXPECT_EQ(FormatJavaDouble(1.0e10), "1.0E10");
  EXPECT_EQ(FormatJavaDouble(1.25e10), "1.25E10");
  EXPECT_EQ(FormatJavaDouble(0.001), "0.001");
  EXPECT_EQ(FormatJavaDouble(0.0001), "1.0E-4");
  EXPECT_EQ(FormatJavaDouble(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(FormatJavaDouble(0.0), "0.0");
  EXPECT_EQ(FormatJavaDouble(-0.0), "-0.0");
  EXPECT_EQ(FormatJavaDouble(std::nan("")), "NaN");
  EXPECT_EQ(FormatJavaDouble(std::numeric_limits<double>::infinity()), "Infinity");
  EXPECT_EQ(FormatJavaDouble(-std::numeric_limits<double>::infinity()), "-Infinity");
  EXPECT_EQ(FormatJavaDouble(std::numeric_limits<double>::max()), "1.7976931348623157E308");
  EXPECT_EQ(FormatJavaDouble(std::numeric_limits<double>::denorm_min()), "4.9E-324");
  EXPECT_EQ(FormatJavaFloat(0.1f), "0.1");
  EXPECT_EQ(FormatJavaFloat(3.4028235e38f), "3.4028235E38");
  EXPECT_EQ(FormatJavaFloat(1.0f), "1.0");
}

TEST(RenderTest, SparkTimestamps) {
  EXPECT_EQ(FormatSparkTimestamp(0), "1970-01-01 00:00:00");
  EXPECT_EQ(FormatSparkTimestamp(1500000), "1970-01-01 00:00:01.5");
  EXPECT_EQ(FormatSparkTimestamp(123), "1970-01-01 00:00:00.000123");
  EXPECT_EQ(FormatSparkTimestamp(-1), "1969-12-31 23:59:59.999999");
  EXPECT_EQ(FormatSparkTimestamp(1704164645120000), "2024-01-02 03:04:05.12");
}

TEST(RenderTest, HiveCellsOfPrimitives) {
  EXPECT_EQ(Hive(Value::Null(DataType::Int32())), "NULL");
  EXPECT_EQ(Hive(Value::Boolean(true)), "true");
  EXPECT_EQ(Hive(Value::Boolean(false)), "false");
  EXPECT_EQ(Hive(Value::Integer(DataType::Int8(), -128)), "-128");
  EXPECT_EQ(Hive(Value::Int64(std::numeric_limits<int64_t>::min())), "-9223372036854775808");
  EXPECT_EQ(Hive(Value::Double(2.0)), "2.0");
  EXPECT_EQ(Hive(Value::Floating(DataType::Float(), 0.1f)), "0.1");
  EXPECT_EQ(Hive(Value::Decimal(10, 2, 1230)), "12.30");
  EXPECT_EQ(Hive(Value::Decimal(10, 3, -5)), "-0.005");
  EXPECT_EQ(Hive(Value::String("")), "");
  EXPECT_EQ(Hive(Value::String("a b")), "a b");
  EXPECT_EQ(Hive(Value::Binary("ab")), "ab");
  // Java's new String(bytes, UTF_8): one U+FFFD per ill-formed subpart, valid sequences kept.
  EXPECT_EQ(Hive(Value::Binary(std::string("i\xb7\x1d", 3))), "i\xEF\xBF\xBD\x1d");
  EXPECT_EQ(Hive(Value::Binary(std::string("\xff\xc3\xa9\xe2\x82", 5))),
            "\xEF\xBF\xBD\xC3\xA9\xEF\xBF\xBD");
  EXPECT_EQ(Hive(Value::Integer(DataType::Date(), 19000)), "2022-01-08");
  EXPECT_EQ(Hive(Value::Integer(DataType::Timestamp(), 1000000)), "1970-01-01 00:00:01");
  EXPECT_EQ(Hive(Value::Integer(DataType::TimestampNtz(), 10)), "1970-01-01 00:00:00.00001");
}

TEST(RenderTest, HiveCellsOfNestedValuesMatchSparkSql) {
  auto arr = DataType::List(DataType::Int32());
  EXPECT_EQ(Hive(Value::Nested(arr, {Value::Int32(1), Value::Null(DataType::Int32())})),
            "[1,null]");
  EXPECT_EQ(Hive(Value::Nested(arr, {})), "[]");
  auto sarr = DataType::List(DataType::String());
  EXPECT_EQ(Hive(Value::Nested(sarr, {Value::String("a"), Value::String("b")})), "[\"a\",\"b\"]");
  // Maps: entries sorted by their text, as HiveResult does.
  auto map = DataType::Map(DataType::String(), DataType::Int32());
  EXPECT_EQ(Hive(Value::Nested(map, {Value::String("b"), Value::Int32(2), Value::String("a"),
                                     Value::Null(DataType::Int32())})),
            "{\"a\":null,\"b\":2}");
  auto st = DataType::Struct({{"x", DataType::Int32(), true, ""},
                              {"y", DataType::String(), true, ""},
                              {"d", DataType::Date(), true, ""}});
  EXPECT_EQ(Hive(Value::Nested(
                st, {Value::Int32(1), Value::String("s"), Value::Integer(DataType::Date(), 0)})),
            "{\"x\":1,\"y\":\"s\",\"d\":1970-01-01}");
  EXPECT_EQ(Hive(Value::Nested(st, {Value::Null(DataType::Int32()), Value::Null(DataType::String()),
                                    Value::Null(DataType::Date())})),
            "{\"x\":null,\"y\":null,\"d\":null}");
  EXPECT_EQ(Hive(Value::Null(st)), "NULL");
}

TEST(RenderTest, PrettyCellsMatchDatasetShow) {
  auto arr = DataType::List(DataType::String());
  EXPECT_EQ(Pretty(Value::Nested(arr, {Value::String("a"), Value::Null(DataType::String())})),
            "[a, NULL]");
  auto map = DataType::Map(DataType::String(), DataType::Int32());
  EXPECT_EQ(Pretty(Value::Nested(
                map, {Value::String("b"), Value::Int32(2), Value::String("a"), Value::Int32(1)})),
            "{b -> 2, a -> 1}");
  auto st =
      DataType::Struct({{"x", DataType::Int32(), true, ""}, {"y", DataType::String(), true, ""}});
  EXPECT_EQ(Pretty(Value::Nested(st, {Value::Int32(1), Value::String("x")})), "{1, x}");
  EXPECT_EQ(Pretty(Value::Binary(std::string("\x0a\xff", 2))), "[0A FF]");
  EXPECT_EQ(Pretty(Value::Null(DataType::String())), "NULL");
  EXPECT_EQ(Pretty(Value::Double(1e10)), "1.0E10");
}

Schema TwoColumns() {
  return {{"id", DataType::Int64(), true, "{}"}, {"name", DataType::String(), true, "{}"}};
}

TEST(RenderTest, TabsModeIsSparkSqlOutput) {
  Schema s = TwoColumns();
  std::vector<DataChunk> chunks;
  chunks.push_back(MakeChunk(s, {{Value::Int64(1), Value::String("a")},
                                 {Value::Null(DataType::Int64()), Value::String("")}}));
  chunks.push_back(MakeChunk(s, {{Value::Int64(3), Value::Null(DataType::String())}}));
  RenderOptions o;
  o.mode = OutputMode::kTabs;
  EXPECT_EQ(RenderToString(s, chunks, o), "1\ta\nNULL\t\n3\tNULL\n");
  // No columns (DDL): nothing at all.
  EXPECT_EQ(RenderToString({}, {}, o), "");
  // Columns but no rows: nothing either (spark-sql prints no header).
  EXPECT_EQ(RenderToString(s, {}, o), "");
}

TEST(RenderTest, CsvQuotesAndNulls) {
  Schema s = {{"a,b", DataType::String(), true, "{}"}, {"n", DataType::Int32(), true, "{}"}};
  std::vector<DataChunk> chunks;
  chunks.push_back(MakeChunk(s, {{Value::String("x"), Value::Int32(1)},
                                 {Value::String("say \"hi\""), Value::Null(DataType::Int32())},
                                 {Value::String(""), Value::Int32(2)},
                                 {Value::String("two\nlines"), Value::Int32(3)},
                                 {Value::Null(DataType::String()), Value::Int32(4)}}));
  RenderOptions o;
  o.mode = OutputMode::kCsv;
  EXPECT_EQ(RenderToString(s, chunks, o),
            "\"a,b\",n\n"
            "x,1\n"
            "\"say \"\"hi\"\"\",\n"
            "\"\",2\n"
            "\"two\nlines\",3\n"
            ",4\n");
  o.header = false;
  EXPECT_EQ(RenderToString(s, {}, o), "");
}

TEST(RenderTest, JsonLinesFollowValueToJson) {
  auto arr = DataType::List(DataType::Int32());
  Schema s = {{"i", DataType::Int32(), true, "{}"},       {"d", DataType::Double(), true, "{}"},
              {"m", DataType::Decimal(5, 2), true, "{}"}, {"s", DataType::String(), true, "{}"},
              {"t", DataType::Timestamp(), true, "{}"},   {"a", arr, true, "{}"},
              {"f", DataType::Float(), true, "{}"}};
  std::vector<DataChunk> chunks;
  chunks.push_back(MakeChunk(
      s, {{Value::Int32(1), Value::Double(0.5), Value::Decimal(5, 2, 123), Value::String("q\""),
           Value::Integer(DataType::Timestamp(), 0), Value::Nested(arr, {Value::Int32(1)}),
           Value::Floating(DataType::Float(), 0.5f)},
          {Value::Null(DataType::Int32()), Value::Double(std::nan("")),
           Value::Null(DataType::Decimal(5, 2)), Value::Null(DataType::String()),
           Value::Null(DataType::Timestamp()), Value::Null(arr), Value::Null(DataType::Float())}}));
  RenderOptions o;
  o.mode = OutputMode::kJson;
  std::string out = RenderToString(s, chunks, o);
  EXPECT_EQ(
      out,
      "{\"i\":1,\"d\":0.5,\"m\":\"1.23\",\"s\":\"q\\\"\",\"t\":\"1970-01-01 00:00:00.000000\","
      "\"a\":[1],\"f\":0.5}\n"
      "{\"i\":null,\"d\":\"NaN\",\"m\":null,\"s\":null,\"t\":null,\"a\":null,\"f\":null}\n");
  // Same as the Value slow path for every cell.
  for (size_t c = 0; c < s.size(); ++c) {
    for (size_t r = 0; r < 2; ++r) {
      std::string fast;
      AppendJsonCell(chunks[0].columns[c], r, &fast);
      EXPECT_EQ(fast, chunks[0].columns[c].GetValue(r).ToJson()) << "column " << c << " row " << r;
    }
  }
}

TEST(RenderTest, BoxShowsNamesTypesAndAlignment) {
  Schema s = TwoColumns();
  std::vector<DataChunk> chunks;
  chunks.push_back(MakeChunk(s, {{Value::Int64(1), Value::String("a")},
                                 {Value::Int64(100), Value::Null(DataType::String())}}));
  RenderOptions o;
  std::string out = RenderToString(s, chunks, o);
  EXPECT_EQ(out,
            "┌────────┬────────┐\n"
            "│   id   │  name  │\n"
            "│ bigint │ string │\n"
            "├────────┼────────┤\n"
            "│      1 │ a      │\n"
            "│    100 │ NULL   │\n"
            "└────────┴────────┘\n");
}

TEST(RenderTest, BoxWithNoRowsSaysSo) {
  Schema s = {{"x", DataType::Int32(), true, "{}"}};
  std::string out = RenderToString(s, {}, RenderOptions{});
  EXPECT_EQ(out,
            "┌────────┐\n"
            "│   x    │\n"
            "│  int   │\n"
            "├────────┤\n"
            "│ 0 rows │\n"
            "└────────┘\n");
}

TEST(RenderTest, BoxCutsLongResultsAndWideCells) {
  Schema s = {{"n", DataType::Int32(), true, "{}"}, {"text", DataType::String(), true, "{}"}};
  std::vector<std::vector<Value>> rows;
  for (int i = 0; i < 100; ++i) {
    rows.push_back({Value::Int32(i), Value::String(std::string(static_cast<size_t>(i), 'x'))});
  }
  std::vector<DataChunk> chunks;
  chunks.push_back(MakeChunk(s, {rows.begin(), rows.begin() + 50}));
  chunks.push_back(MakeChunk(s, {rows.begin() + 50, rows.end()}));
  RenderOptions o;
  o.max_rows = 4;
  o.max_cell_width = 10;
  std::string out = RenderToString(s, chunks, o);
  // The footer "100 rows (4 shown)" widens the last column to 12; cells are still cut at 10.
  EXPECT_NE(out.find("│   0 │              │"), std::string::npos) << out;
  EXPECT_NE(out.find("│   1 │ x            │"), std::string::npos) << out;
  EXPECT_NE(out.find("│  98 │ xxxxxxxxx…   │"), std::string::npos) << out;
  EXPECT_NE(out.find("│  99 │ xxxxxxxxx…   │"), std::string::npos) << out;
  EXPECT_EQ(out.find("│   2 │"), std::string::npos) << out;
  EXPECT_NE(out.find("·"), std::string::npos) << out;
  EXPECT_NE(out.find("100 rows (4 shown)"), std::string::npos) << out;
  // Every line has the same display width.
  size_t width = 0;
  size_t b = 0;
  while (b < out.size()) {
    size_t e = out.find('\n', b);
    size_t w = DisplayWidth(std::string_view(out).substr(b, e - b));
    if (width == 0) width = w;
    EXPECT_EQ(w, width) << out.substr(b, e - b);
    b = e + 1;
  }
  // max_rows 0 shows everything.
  o.max_rows = 0;
  out = RenderToString(s, chunks, o);
  EXPECT_NE(out.find("│  50 │"), std::string::npos);
  EXPECT_EQ(out.find("rows"), std::string::npos);
}

TEST(RenderTest, BoxFitsTheTerminalWidthAndEscapesControls) {
  Schema s = {{"a", DataType::String(), true, "{}"}, {"b", DataType::String(), true, "{}"}};
  std::vector<DataChunk> chunks;
  chunks.push_back(
      MakeChunk(s, {{Value::String(std::string(30, 'a')), Value::String("l1\nl2\t")}}));
  RenderOptions o;
  o.max_width = 30;
  std::string out = RenderToString(s, chunks, o);
  size_t nl = out.find('\n');
  EXPECT_LE(DisplayWidth(std::string_view(out).substr(0, nl)), 30u) << out;
  EXPECT_NE(out.find("l1\\nl2\\t"), std::string::npos) << out;
  EXPECT_EQ(out.find("l1\n"), std::string::npos);
}

TEST(RenderTest, DisplayWidthOfUtf8) {
  EXPECT_EQ(DisplayWidth("abc"), 3u);
  EXPECT_EQ(DisplayWidth("é"), 1u);
  EXPECT_EQ(DisplayWidth("e\xcc\x81"), 1u);  // e + combining acute
  EXPECT_EQ(DisplayWidth("日本"), 4u);
  EXPECT_EQ(DisplayWidth("…"), 1u);
  EXPECT_EQ(DisplayWidth("\xff"), 1u);  // invalid byte: one column
}

TEST(RenderTest, BoxAlignsWideCharacters) {
  Schema s = {{"s", DataType::String(), true, "{}"}};
  std::vector<DataChunk> chunks;
  chunks.push_back(MakeChunk(s, {{Value::String("日本語")}, {Value::String("ab")}}));
  std::string out = RenderToString(s, chunks, RenderOptions{});
  EXPECT_NE(out.find("│ 日本語 │"), std::string::npos) << out;
  EXPECT_NE(out.find("│ ab     │"), std::string::npos) << out;
}

TEST(RenderTest, ParseOutputMode) {
  EXPECT_EQ(ParseOutputMode("box"), OutputMode::kBox);
  EXPECT_EQ(ParseOutputMode("csv"), OutputMode::kCsv);
  EXPECT_EQ(ParseOutputMode("json"), OutputMode::kJson);
  EXPECT_EQ(ParseOutputMode("tabs"), OutputMode::kTabs);
  EXPECT_FALSE(ParseOutputMode("table").has_value());
  EXPECT_STREQ(OutputModeName(OutputMode::kCsv), "csv");
}

}  // namespace
}  // namespace silt::cli
