// The Arrow C stream export (silt/arrow.h) read back by an independent consumer: the reader
// below is written against the Arrow C data interface specification alone (format strings,
// validity bitmaps LSB first, int32 offsets, struct/list/map layouts) and uses no silt code to
// decode, so a layout mistake in the export shows up as a wrong rendering here.
#include "silt/arrow.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "silt/silt.h"

namespace {

// --- an independent Arrow C data reader ----------------------------------------------------

bool BitSet(const void* bitmap, int64_t i) {
  const auto* bytes = static_cast<const uint8_t*>(bitmap);
  return (bytes[i / 8] >> (i % 8)) & 1;
}

template <typename T>
T Load(const void* buffer, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const uint8_t*>(buffer) + i * sizeof(T), sizeof(T));
  return v;
}

std::string DecimalText(const void* buffer, int64_t i, int scale) {
  // 16 bytes, little-endian two's complement.
  uint64_t lo = Load<uint64_t>(buffer, 2 * i);
  int64_t hi = Load<int64_t>(buffer, 2 * i + 1);
  bool neg = hi < 0;
  unsigned __int128 mag = (static_cast<unsigned __int128>(static_cast<uint64_t>(hi)) << 64) | lo;
  if (neg) mag = ~mag + 1;
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(mag % 10)));
    mag /= 10;
  } while (mag);
  while (static_cast<int>(digits.size()) <= scale) digits.insert(digits.begin(), '0');
  if (scale > 0) digits.insert(digits.end() - scale, '.');
  return (neg ? "-" : "") + digits;
}

// Renders element i of (schema, array) as text: null, numbers, "quoted" strings, 0x hex bytes,
// [list], {name: value} structs, {key -> value} maps; temporal values as their integers with a
// unit suffix (d, us, mo).
std::string Render(const ArrowSchema& s, const ArrowArray& a, int64_t i) {
  int64_t j = a.offset + i;
  std::string f = s.format;
  if (f == "n") return "null";
  if (a.n_buffers > 0 && a.buffers[0] && !BitSet(a.buffers[0], j)) return "null";
  if (f == "b") return BitSet(a.buffers[1], j) ? "true" : "false";
  if (f == "c") return std::to_string(Load<int8_t>(a.buffers[1], j));
  if (f == "s") return std::to_string(Load<int16_t>(a.buffers[1], j));
  if (f == "i") return std::to_string(Load<int32_t>(a.buffers[1], j));
  if (f == "l") return std::to_string(Load<int64_t>(a.buffers[1], j));
  if (f == "f") return std::to_string(Load<float>(a.buffers[1], j));
  if (f == "g") return std::to_string(Load<double>(a.buffers[1], j));
  if (f == "tdD") return std::to_string(Load<int32_t>(a.buffers[1], j)) + "d";
  if (f.rfind("tsu:", 0) == 0) return std::to_string(Load<int64_t>(a.buffers[1], j)) + "us";
  if (f == "tiM") return std::to_string(Load<int32_t>(a.buffers[1], j)) + "mo";
  if (f == "tDu") return std::to_string(Load<int64_t>(a.buffers[1], j)) + "us";
  if (f.rfind("d:", 0) == 0) {
    int scale = std::stoi(f.substr(f.find(',') + 1));
    return DecimalText(a.buffers[1], j, scale);
  }
  if (f == "u" || f == "z") {
    int32_t begin = Load<int32_t>(a.buffers[1], j);
    int32_t end = Load<int32_t>(a.buffers[1], j + 1);
    std::string bytes(static_cast<const char*>(a.buffers[2]) + begin, end - begin);
    if (f == "u") return "\"" + bytes + "\"";
    std::string hex = "0x";
    for (unsigned char c : bytes) {
      static const char* digits = "0123456789abcdef";
      hex += digits[c >> 4];
      hex += digits[c & 15];
    }
    return hex;
  }
  if (f == "+s") {
    std::string out = "{";
    for (int64_t c = 0; c < s.n_children; ++c) {
      if (c) out += ", ";
      out += std::string(s.children[c]->name) + ": " + Render(*s.children[c], *a.children[c], j);
    }
    return out + "}";
  }
  if (f == "+l" || f == "+m") {
    int32_t begin = Load<int32_t>(a.buffers[1], j);
    int32_t end = Load<int32_t>(a.buffers[1], j + 1);
    std::string out = f == "+l" ? "[" : "{";
    for (int32_t k = begin; k < end; ++k) {
      if (k > begin) out += ", ";
      if (f == "+l") {
        out += Render(*s.children[0], *a.children[0], k);
      } else {
        const ArrowSchema& entries = *s.children[0];
        const ArrowArray& ea = *a.children[0];
        out += Render(*entries.children[0], *ea.children[0], ea.offset + k) + " -> " +
               Render(*entries.children[1], *ea.children[1], ea.offset + k);
      }
    }
    return out + (f == "+l" ? "]" : "}");
  }
  return "?format " + f;
}

struct Consumed {
  std::vector<std::string> fields;  // "name:format[?]" per column ("?" = nullable)
  std::vector<std::string> rows;    // one rendering per row (a top-level struct)
  int batches = 0;
};

// Consumes a whole stream the way an Arrow consumer does, releasing everything it gets.
Consumed Consume(ArrowArrayStream* stream) {
  Consumed out;
  ArrowSchema schema;
  EXPECT_EQ(stream->get_schema(stream, &schema), 0);
  EXPECT_STREQ(schema.format, "+s");
  for (int64_t c = 0; c < schema.n_children; ++c) {
    const ArrowSchema& child = *schema.children[c];
    out.fields.push_back(std::string(child.name) + ":" + child.format +
                         ((child.flags & ARROW_FLAG_NULLABLE) ? "?" : ""));
  }
  while (true) {
    ArrowArray array;
    EXPECT_EQ(stream->get_next(stream, &array), 0);
    if (array.release == nullptr) break;
    ++out.batches;
    EXPECT_EQ(array.n_children, schema.n_children);
    for (int64_t r = 0; r < array.length; ++r) out.rows.push_back(Render(schema, array, r));
    array.release(&array);
    EXPECT_EQ(array.release, nullptr);
  }
  schema.release(&schema);
  EXPECT_EQ(schema.release, nullptr);
  stream->release(stream);
  EXPECT_EQ(stream->release, nullptr);
  return out;
}

class ArrowExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    silt::DatabaseOptions opts;
    opts.warehouse = "memory://arrow-export-test";
    opts.threads = 2;
    auto db = silt::Database::Open(opts);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    con_ = std::make_unique<silt::Connection>(*db);
  }
  std::shared_ptr<const silt::QueryResult> Query(const std::string& sql) {
    auto r = con_->Query(sql);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::shared_ptr<const silt::QueryResult>(std::move(*r)) : nullptr;
  }
  std::unique_ptr<silt::Connection> con_;
};

TEST_F(ArrowExportTest, PrimitivesNullsAndTemporalTypes) {
  auto result = Query(
      "SELECT * FROM VALUES "
      "(true, CAST(1 AS TINYINT), CAST(-2 AS SMALLINT), 3, CAST(4 AS BIGINT), CAST(1.5 AS FLOAT), "
      " 2.25D, CAST('-12.30' AS DECIMAL(5,2)), 'héllo', X'00FF', DATE'2024-01-02', "
      " TIMESTAMP'2024-01-02 03:04:05', TIMESTAMP_NTZ'2024-01-02 03:04:05', "
      " INTERVAL '1-2' YEAR TO MONTH, INTERVAL '1 02:03:04' DAY TO SECOND),"
      "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),"
      "(false, CAST(-128 AS TINYINT), CAST(32767 AS SMALLINT), -2147483648, "
      " 9223372036854775807, CAST(-0.5 AS FLOAT), -1e300D, CAST('999.99' AS DECIMAL(5,2)), '', "
      " X'', DATE'1969-12-31', TIMESTAMP'1970-01-01 00:00:00', TIMESTAMP_NTZ'1969-12-31 23:59:59', "
      " INTERVAL '-0-1' YEAR TO MONTH, INTERVAL '0 00:00:00.000001' DAY TO SECOND)"
      " AS t(bo, i1, i2, i4, i8, f4, f8, de, st, bi, da, ts, tn, ym, dt)");
  ASSERT_NE(result, nullptr);
  ArrowArrayStream stream;
  ASSERT_TRUE(silt::ExportArrowStream(result, &stream).ok());
  Consumed got = Consume(&stream);
  EXPECT_EQ(got.fields,
            (std::vector<std::string>{"bo:b?", "i1:c?", "i2:s?", "i4:i?", "i8:l?", "f4:f?", "f8:g?",
                                      "de:d:5,2?", "st:u?", "bi:z?", "da:tdD?", "ts:tsu:UTC?",
                                      "tn:tsu:?", "ym:tiM?", "dt:tDu?"}));
  ASSERT_EQ(got.rows.size(), 3u);
  EXPECT_EQ(got.rows[0],
            "{bo: true, i1: 1, i2: -2, i4: 3, i8: 4, f4: 1.500000, f8: 2.250000, de: -12.30, "
            "st: \"héllo\", bi: 0x00ff, da: 19724d, ts: 1704164645000000us, "
            "tn: 1704164645000000us, ym: 14mo, dt: 93784000000us}");
  EXPECT_EQ(got.rows[1],
            "{bo: null, i1: null, i2: null, i4: null, i8: null, f4: null, f8: null, de: null, "
            "st: null, bi: null, da: null, ts: null, tn: null, ym: null, dt: null}");
  EXPECT_EQ(got.rows[2],
            "{bo: false, i1: -128, i2: 32767, i4: -2147483648, i8: 9223372036854775807, "
            "f4: -0.500000, f8: -" +
                std::to_string(1e300).substr(0) +
                ", de: 999.99, st: \"\", bi: 0x, da: -1d, ts: 0us, tn: -1000000us, ym: -1mo, "
                "dt: 1us}");
}

TEST_F(ArrowExportTest, NestedTypes) {
  auto result = Query(
      "SELECT * FROM VALUES "
      "(array(1, NULL, 3), map('a', 1, 'b', NULL), named_struct('x', 1, 'y', array('p'))),"
      "(NULL, NULL, NULL),"
      "(array(), map(), named_struct('x', NULL, 'y', CAST(NULL AS ARRAY<STRING>)))"
      " AS t(l, m, s)");
  ASSERT_NE(result, nullptr);
  ArrowArrayStream stream;
  ASSERT_TRUE(silt::ExportArrowStream(result, &stream).ok());
  Consumed got = Consume(&stream);
  EXPECT_EQ(got.fields, (std::vector<std::string>{"l:+l?", "m:+m?", "s:+s?"}));
  ASSERT_EQ(got.rows.size(), 3u);
  EXPECT_EQ(got.rows[0],
            "{l: [1, null, 3], m: {\"a\" -> 1, \"b\" -> null}, s: {x: 1, y: [\"p\"]}}");
  EXPECT_EQ(got.rows[1], "{l: null, m: null, s: null}");
  EXPECT_EQ(got.rows[2], "{l: [], m: {}, s: {x: null, y: null}}");
}

TEST_F(ArrowExportTest, MapEntriesFollowTheSpecification) {
  auto result = Query("SELECT map(1, 'one') AS m");
  ASSERT_NE(result, nullptr);
  ArrowSchema schema;
  ASSERT_TRUE(silt::ExportArrowSchema(result->schema(), &schema).ok());
  const ArrowSchema& m = *schema.children[0];
  ASSERT_EQ(m.n_children, 1);
  const ArrowSchema& entries = *m.children[0];
  EXPECT_STREQ(entries.format, "+s");
  EXPECT_EQ(entries.flags & ARROW_FLAG_NULLABLE, 0);  // entries are never null
  ASSERT_EQ(entries.n_children, 2);
  EXPECT_STREQ(entries.children[0]->name, "key");
  EXPECT_EQ(entries.children[0]->flags & ARROW_FLAG_NULLABLE, 0);  // keys are never null
  EXPECT_STREQ(entries.children[1]->name, "value");
  schema.release(&schema);
}

TEST_F(ArrowExportTest, ManyBatchesAndArraysOutliveTheStreamAndResult) {
  auto result = Query("SELECT id, CAST(id AS STRING) AS s FROM range(0, 10000)");
  ASSERT_NE(result, nullptr);
  size_t chunks = result->chunks().size();
  EXPECT_GT(chunks, 1u);  // several batches
  ArrowArrayStream stream;
  ASSERT_TRUE(silt::ExportArrowStream(std::move(result), &stream).ok());
  ASSERT_EQ(result, nullptr);  // the stream owns it now
  ArrowSchema schema;
  ASSERT_EQ(stream.get_schema(&stream, &schema), 0);
  std::vector<ArrowArray> arrays;
  while (true) {
    ArrowArray a;
    ASSERT_EQ(stream.get_next(&stream, &a), 0);
    if (!a.release) break;
    arrays.push_back(a);
  }
  EXPECT_EQ(arrays.size(), chunks);
  EXPECT_EQ(stream.get_last_error(&stream), nullptr);
  stream.release(&stream);  // the arrays keep the result's buffers alive
  int64_t rows = 0;
  int64_t sum = 0;
  for (ArrowArray& a : arrays) {
    for (int64_t r = 0; r < a.length; ++r) {
      sum += Load<int64_t>(a.children[0]->buffers[1], a.children[0]->offset + r);
      std::string text = Render(*schema.children[1], *a.children[1], r);
      EXPECT_EQ(text, "\"" + std::to_string(rows) + "\"");
      ++rows;
    }
    a.release(&a);
  }
  EXPECT_EQ(rows, 10000);
  EXPECT_EQ(sum, 10000LL * 9999 / 2);
  schema.release(&schema);
}

TEST_F(ArrowExportTest, EmptyResultAndNoChunks) {
  auto result = Query("SELECT 1 AS x WHERE false");
  ASSERT_NE(result, nullptr);
  ArrowArrayStream stream;
  ASSERT_TRUE(silt::ExportArrowStream(result, &stream).ok());
  Consumed got = Consume(&stream);
  EXPECT_EQ(got.fields, (std::vector<std::string>{"x:i"}));
  EXPECT_TRUE(got.rows.empty());
  EXPECT_FALSE(silt::ExportArrowStream(nullptr, &stream).ok());
}

}  // namespace
