// Round trips through silt's writer and reader for every type, codec, page version and
// dictionary mode, plus edge cases (empty, all-null, huge strings, deep nesting, fallback).
#include <gtest/gtest.h>

#include <atomic>

#include "common/thread_pool.h"
#include "parquet/compression.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "vector/generate.h"

namespace silt::parquet {
namespace {

class StringSink : public WritableFile {
 public:
  explicit StringSink(std::string* out) : out_(out) {}
  Status Append(std::string_view d) override {
    out_->append(d);
    return Status::OK();
  }
  Status Close() override { return Status::OK(); }
  int64_t bytes_written() const override { return static_cast<int64_t>(out_->size()); }

 private:
  std::string* out_;
};

std::string WriteToString(const Schema& schema, const std::vector<DataChunk>& chunks,
                          WriterOptions wo) {
  std::string bytes;
  auto w = ParquetWriter::Make(std::make_unique<StringSink>(&bytes), schema, wo);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  for (const auto& c : chunks) {
    Status s = (*w)->Write(c);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  Status s = (*w)->Close();
  EXPECT_TRUE(s.ok()) << s.ToString();
  return bytes;
}

std::unique_ptr<ParquetFile> Open(const std::string& bytes) {
  auto pf = ParquetFile::Open(std::make_shared<BufferFile>(bytes));
  EXPECT_TRUE(pf.ok()) << pf.status().ToString();
  return pf.ok() ? std::move(pf).value() : nullptr;
}

// Reads every row group and concatenates the columns.
DataChunk ReadAll(const ParquetFile& pf) {
  DataChunk all = DataChunk::FromSchema(pf.schema().schema());
  for (int rg = 0; rg < pf.num_row_groups(); ++rg) {
    DataChunk c;
    Status s = pf.ReadRowGroup(rg, {}, &c);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (!s.ok()) break;
    for (size_t i = 0; i < c.columns.size(); ++i)
      all.columns[i].AppendRange(c.columns[i], 0, c.columns[i].size());
  }
  return all;
}

void ExpectSameRows(const DataChunk& expected, const DataChunk& actual, const std::string& label) {
  ASSERT_EQ(expected.columns.size(), actual.columns.size()) << label;
  ASSERT_EQ(expected.size(), actual.size()) << label;
  for (size_t c = 0; c < expected.columns.size(); ++c) {
    ASSERT_TRUE(expected.columns[c].type()->Equals(*actual.columns[c].type()))
        << label << " column " << c << ": " << expected.columns[c].type()->ToString() << " vs "
        << actual.columns[c].type()->ToString();
    for (size_t r = 0; r < expected.size(); ++r) {
      Value a = expected.columns[c].GetValue(r), b = actual.columns[c].GetValue(r);
      ASSERT_EQ(a, b) << label << " column " << c << " row " << r << ": " << a.ToJson() << " vs "
                      << b.ToJson();
    }
  }
}

struct Combo {
  const char* codec;
  int page_version;
  bool dictionary;
};

class RoundTripTest : public ::testing::TestWithParam<Combo> {};

TEST_P(RoundTripTest, EveryTypeSurvives) {
  Combo combo = GetParam();
  Schema schema = NamedTestSchema("all").value();
  WriterOptions wo;
  wo.codec = ParseCodecName(combo.codec).value();
  wo.data_page_version = combo.page_version;
  wo.dictionary = combo.dictionary;
  wo.page_rows = 300;
  wo.row_group_max_rows = 1000;
  GenerateOptions go;
  go.string_cardinality = combo.dictionary ? 50 : 0;
  std::vector<DataChunk> chunks = {GenerateData(schema, 1500, go), GenerateData(schema, 1234, {7})};
  std::string bytes = WriteToString(schema, chunks, wo);
  auto pf = Open(bytes);
  ASSERT_TRUE(pf);
  EXPECT_EQ(pf->num_rows(), 2734);
  EXPECT_EQ(pf->num_row_groups(), 3);
  ASSERT_EQ(pf->schema().schema().size(), schema.size());
  for (size_t i = 0; i < schema.size(); ++i) {
    EXPECT_EQ(pf->schema().schema()[i].name, schema[i].name);
    EXPECT_TRUE(pf->schema().schema()[i].type->Equals(*schema[i].type)) << schema[i].name;
    EXPECT_EQ(pf->schema().schema()[i].nullable, schema[i].nullable) << schema[i].name;
  }
  DataChunk expected = DataChunk::FromSchema(schema);
  for (const auto& c : chunks)
    for (size_t i = 0; i < c.columns.size(); ++i)
      expected.columns[i].AppendRange(c.columns[i], 0, c.size());
  ExpectSameRows(expected, ReadAll(*pf),
                 std::string(combo.codec) + " v" + std::to_string(combo.page_version));
}

INSTANTIATE_TEST_SUITE_P(Codecs, RoundTripTest,
                         ::testing::Values(Combo{"none", 1, true}, Combo{"snappy", 1, true},
                                           Combo{"snappy", 1, false}, Combo{"gzip", 1, true},
                                           Combo{"zstd", 1, true}, Combo{"zstd", 2, true},
                                           Combo{"zstd", 2, false}, Combo{"lz4_raw", 1, false},
                                           Combo{"brotli", 2, true}, Combo{"none", 2, false}),
                         [](const auto& info) {
                           return std::string(info.param.codec) + "_v" +
                                  std::to_string(info.param.page_version) +
                                  (info.param.dictionary ? "_dict" : "_plain");
                         });

TEST(RoundTripEdgeTest, EmptyFileHasSchemaAndNoRowGroups) {
  Schema schema = NamedTestSchema("nested").value();
  std::string bytes = WriteToString(schema, {}, {});
  auto pf = Open(bytes);
  ASSERT_TRUE(pf);
  EXPECT_EQ(pf->num_rows(), 0);
  EXPECT_EQ(pf->num_row_groups(), 0);
  EXPECT_EQ(pf->schema().schema().size(), schema.size());
}

TEST(RoundTripEdgeTest, AllNullColumnsAndHugeStrings) {
  Schema schema = {{"n", DataType::Int64(), true, ""},
                   {"s", DataType::String(), true, ""},
                   {"l", DataType::List(DataType::Int32()), true, ""}};
  DataChunk c = DataChunk::FromSchema(schema);
  for (int i = 0; i < 100; ++i) {
    c.columns[0].AppendNull();
    if (i % 10 == 0)
      c.columns[1].AppendString(std::string(300000 + i, static_cast<char>('a' + i % 26)));
    else
      c.columns[1].AppendNull();
    c.columns[2].AppendNull();
  }
  std::string bytes = WriteToString(schema, {c}, {});
  auto pf = Open(bytes);
  ASSERT_TRUE(pf);
  ExpectSameRows(c, ReadAll(*pf), "nulls");
  auto st = pf->GetStatistics(0, 0);
  EXPECT_EQ(st.null_count.value_or(-1), 100);
  EXPECT_FALSE(st.min.has_value());
  // Long string bounds are truncated, min stays a lower bound and max an upper bound.
  auto ss = pf->GetStatistics(0, 1);
  ASSERT_TRUE(ss.min && ss.max);
  EXPECT_LE(ss.min->str().size(), 64u);
  EXPECT_LE(ss.max->str().size(), 64u);
  EXPECT_FALSE(ss.max_exact);
  EXPECT_LE(ss.min->str(), std::string(300000, 'a'));
  EXPECT_GT(ss.max->str(), std::string(300090, 'j'));
}

// Flat nullable columns decode their definition levels into validity bytes and put the values
// in their rows in one pass (PLAIN fixed width and dictionaries) or through the dense values
// (other encodings and conversions): every null pattern a page can have — none, all, leading,
// trailing (the last value of the page is not the last row), alternating, sparse — for each
// physical layout, page version and dictionary mode, with several pages per row group.
TEST(RoundTripEdgeTest, NullPatternsOfFlatColumnsInEveryPage) {
  Schema schema = {{"i32", DataType::Int32(), true, ""},
                   {"i64", DataType::Int64(), true, ""},
                   {"f64", DataType::Double(), true, ""},
                   {"f32", DataType::Float(), true, ""},
                   {"dec", DataType::Decimal(10, 2), true, ""},
                   {"dec38", DataType::Decimal(38, 3), true, ""},
                   {"s", DataType::String(), true, ""},
                   {"b", DataType::Boolean(), true, ""},
                   {"d", DataType::Date(), true, ""}};
  constexpr int kPage = 64, kPages = 14;
  DataChunk c = DataChunk::FromSchema(schema);
  for (int r = 0; r < kPage * kPages; ++r) {
    const int page = r / kPage, k = r % kPage;
    bool null = false;
    switch (page % 7) {
      case 0:
        null = false;
        break;  // no nulls
      case 1:
        null = true;
        break;  // all null
      case 2:
        null = k >= kPage - 5;
        break;  // trailing nulls
      case 3:
        null = k < 9;
        break;  // leading nulls
      case 4:
        null = k % 2 == 1;
        break;  // alternating
      case 5:
        null = (k * 7919 + page) % 10 == 0;
        break;  // sparse
      case 6:
        null = k != 17;
        break;  // a single value
    }
    for (size_t col = 0; col < schema.size(); ++col) {
      Vector& v = c.columns[col];
      if (null) {
        v.AppendNull();
        continue;
      }
      const int64_t x = (r % 37) * 1000003 - 17;  // repeats: dictionaries pay
      switch (col) {
        case 0:
          v.Append<int32_t>(static_cast<int32_t>(x));
          break;
        case 1:
          v.Append<int64_t>(x * 1000003);
          break;
        case 2:
          v.Append<double>(static_cast<double>(x) / 8);
          break;
        case 3:
          v.Append<float>(static_cast<float>(x) / 4);
          break;
        case 4:
          v.Append<int128_t>(static_cast<int128_t>(x));
          break;
        case 5:
          v.Append<int128_t>(static_cast<int128_t>(x) * 1000000007);
          break;
        case 6:
          v.AppendString(r % 3 ? "s" + std::to_string(x) : std::string(40, 'a' + r % 26));
          break;
        case 7:
          v.Append<uint8_t>(r % 3 == 0);
          break;
        case 8:
          v.Append<int32_t>(static_cast<int32_t>(x % 50000));
          break;
      }
    }
  }
  for (int pv : {1, 2}) {
    for (bool dict : {true, false}) {
      for (const char* codec : {"none", "snappy"}) {
        WriterOptions wo;
        wo.page_rows = kPage;
        wo.row_group_max_rows = kPage * 10;  // a second row group starting mid-pattern
        wo.data_page_version = pv;
        wo.dictionary = dict;
        wo.codec = ParseCodecName(codec).value();
        auto pf = Open(WriteToString(schema, {c}, wo));
        ASSERT_TRUE(pf);
        const std::string label =
            std::string(codec) + " v" + std::to_string(pv) + (dict ? " dict" : " plain");
        ExpectSameRows(c, ReadAll(*pf), label);
        // A row range starting and ending inside pages.
        DataChunk part;
        ASSERT_TRUE(pf->ReadRowGroup(0, {}, &part, 100, 333).ok()) << label;
        DataChunk expected = DataChunk::FromSchema(schema);
        for (size_t i = 0; i < schema.size(); ++i)
          expected.columns[i].AppendRange(c.columns[i], 100, 333);
        ExpectSameRows(expected, part, label + " range");
      }
    }
  }
}

TEST(RoundTripEdgeTest, DeeplyNestedListsAndMaps) {
  auto t = DataType::List(DataType::List(
      DataType::List(DataType::Map(DataType::String(), DataType::List(DataType::Int32())))));
  Schema schema = {{"deep", t, true, ""}};
  GenerateOptions go;
  go.max_list_length = 3;
  DataChunk c = GenerateData(schema, 400, go);
  WriterOptions wo;
  wo.page_rows = 37;
  for (int v : {1, 2}) {
    wo.data_page_version = v;
    auto pf = Open(WriteToString(schema, {c}, wo));
    ASSERT_TRUE(pf);
    EXPECT_EQ(pf->schema().leaf(0).max_rep, 4);  // map key
    EXPECT_EQ(pf->schema().leaf(1).max_rep, 5);  // element of the map value's list
    ExpectSameRows(c, ReadAll(*pf), "deep v" + std::to_string(v));
  }
}

TEST(RoundTripEdgeTest, DictionaryFallsBackToPlainMidChunk) {
  Schema schema = NamedTestSchema("plain_string").value();
  DataChunk c = GenerateData(schema, 20000, {});
  WriterOptions wo;
  wo.dictionary_page_bytes = 16 << 10;  // overflow after a few hundred values
  wo.page_rows = 1000;
  auto pf = Open(WriteToString(schema, {c}, wo));
  ASSERT_TRUE(pf);
  const auto& md = *pf->metadata().row_groups[0].columns[0].meta_data;
  bool has_dict = false, has_plain = false;
  for (const auto& es : md.encoding_stats) {
    if (es.page_type == PageType::DATA_PAGE && es.encoding == Encoding::PLAIN_DICTIONARY)
      has_dict = true;
    if (es.page_type == PageType::DATA_PAGE && es.encoding == Encoding::PLAIN) has_plain = true;
  }
  EXPECT_TRUE(has_dict);
  EXPECT_TRUE(has_plain);
  ExpectSameRows(c, ReadAll(*pf), "fallback");
}

TEST(RoundTripEdgeTest, PagesBuiltInParallelGiveTheSameBytes) {
  // Every type, nested columns, nulls, dictionaries that fall back and several row groups: the
  // pool only changes which thread builds a page or a column chunk, never the file.
  ThreadPool pool(3);
  for (int version : {1, 2}) {
    for (const char* name : {"all", "nested"}) {
      Schema schema = NamedTestSchema(name).value();
      GenerateOptions go;
      go.string_cardinality = 40;
      std::vector<DataChunk> chunks = {GenerateData(schema, 2500, go),
                                       GenerateData(schema, 1700, {9})};
      WriterOptions wo;
      wo.data_page_version = version;
      wo.page_rows = 400;
      wo.row_group_max_rows = 1500;
      wo.dictionary_page_bytes = 4 << 10;
      std::string sequential = WriteToString(schema, chunks, wo);
      wo.pool = &pool;
      std::string parallel = WriteToString(schema, chunks, wo);
      EXPECT_EQ(sequential.size(), parallel.size()) << name << " v" << version;
      EXPECT_TRUE(sequential == parallel) << name << " v" << version;
      auto pf = Open(parallel);
      ASSERT_TRUE(pf);
      EXPECT_EQ(pf->num_row_groups(), 3);
      DataChunk expected = DataChunk::FromSchema(schema);
      for (const auto& c : chunks)
        for (size_t i = 0; i < c.columns.size(); ++i)
          expected.columns[i].AppendRange(c.columns[i], 0, c.size());
      ExpectSameRows(expected, ReadAll(*pf),
                     std::string(name) + " parallel v" + std::to_string(version));
    }
  }
}

TEST(RoundTripEdgeTest, BuffersSizedForTheExpectedRowsGiveTheSameFile) {
  // expected_rows only sizes the row group buffers (kept across row groups): the file is the
  // same whether the hint is absent, exact, too small or too large, with row groups cut by bytes.
  for (const char* name : {"all", "nested"}) {
    Schema schema = NamedTestSchema(name).value();
    GenerateOptions go;
    go.string_cardinality = 40;
    std::vector<DataChunk> chunks = {GenerateData(schema, 2500, go),
                                     GenerateData(schema, 1700, {9}),
                                     GenerateData(schema, 900, {4})};
    WriterOptions wo;
    wo.row_group_bytes = 96 << 10;
    wo.page_rows = 500;
    std::string plain = WriteToString(schema, chunks, wo);
    auto pf = Open(plain);
    ASSERT_TRUE(pf);
    EXPECT_GT(pf->num_row_groups(), 2) << name;
    for (int64_t expected : {5100, 100, 1000000}) {
      wo.expected_rows = expected;
      EXPECT_TRUE(WriteToString(schema, chunks, wo) == plain) << name << " expecting " << expected;
    }
    DataChunk all = DataChunk::FromSchema(schema);
    for (const auto& c : chunks)
      for (size_t i = 0; i < c.columns.size(); ++i)
        all.columns[i].AppendRange(c.columns[i], 0, c.size());
    ExpectSameRows(all, ReadAll(*pf), name);
  }
}

TEST(RoundTripEdgeTest, DictionaryIsDroppedWhenTheFirstPageShowsItDoesNotPay) {
  // Distinct ids overflow the dictionary after 2048 values, so without the probe the first
  // pages would be dictionary-encoded; after the first page's worth of values the dictionary is
  // already as big as the values, so the chunk is PLAIN from the start (no dictionary page). A
  // low-cardinality column next to it keeps its dictionary.
  Schema schema = {{"id", DataType::Int64(), true, "{}"}, {"s", DataType::String(), true, "{}"}};
  DataChunk c = DataChunk::FromSchema(schema);
  for (int64_t i = 0; i < 5000; ++i) {
    c.columns[0].Append<int64_t>(i * 7919);
    c.columns[1].AppendString("v" + std::to_string(i % 7));
  }
  WriterOptions wo;
  wo.page_rows = 1000;
  wo.dictionary_page_bytes = 16 << 10;
  auto pf = Open(WriteToString(schema, {c}, wo));
  ASSERT_TRUE(pf);
  const auto& id = *pf->metadata().row_groups[0].columns[0].meta_data;
  const auto& s = *pf->metadata().row_groups[0].columns[1].meta_data;
  EXPECT_FALSE(id.dictionary_page_offset.has_value());
  for (const auto& es : id.encoding_stats) EXPECT_EQ(es.encoding, Encoding::PLAIN);
  EXPECT_TRUE(s.dictionary_page_offset.has_value());
  for (const auto& es : s.encoding_stats) {
    if (es.page_type == PageType::DATA_PAGE) {
      EXPECT_EQ(es.encoding, Encoding::PLAIN_DICTIONARY);
    }
  }
  ExpectSameRows(c, ReadAll(*pf), "probe");
}

TEST(RoundTripEdgeTest, NullInRequiredColumnIsRejected) {
  Schema schema = {{"id", DataType::Int64(), false, ""}};
  DataChunk c = DataChunk::FromSchema(schema);
  c.columns[0].AppendNull();
  std::string bytes;
  auto w = ParquetWriter::Make(std::make_unique<StringSink>(&bytes), schema, {});
  ASSERT_TRUE(w.ok());
  Status s = (*w)->Write(c);
  EXPECT_EQ(s.error_class(), "DELTA_NOT_NULL_CONSTRAINT_VIOLATED");
  // Nested required field under a nullable parent.
  Schema nested = {{"st", DataType::Struct({{"x", DataType::Int32(), false, ""}}), true, ""}};
  DataChunk n = DataChunk::FromSchema(nested);
  n.columns[0].child(0).AppendNull();
  n.columns[0].Resize(1);
  std::string b2;
  auto w2 = ParquetWriter::Make(std::make_unique<StringSink>(&b2), nested, {});
  ASSERT_TRUE(w2.ok());
  ASSERT_TRUE((*w2)->Write(n).ok());
  EXPECT_EQ((*w2)->Close().error_class(), "DELTA_NOT_NULL_CONSTRAINT_VIOLATED");
}

TEST(ReaderTest, RowRangesUseThePageIndex) {
  Schema schema = NamedTestSchema("flat").value();
  DataChunk c = GenerateData(schema, 5000, {});
  WriterOptions wo;
  wo.page_rows = 256;
  auto pf = Open(WriteToString(schema, {c}, wo));
  ASSERT_TRUE(pf);
  ASSERT_TRUE(pf->ReadOffsetIndex(0, 0).ok());
  DataChunk part;
  ASSERT_TRUE(pf->ReadRowGroup(0, {0, 11, 13}, &part, 1000, 777).ok());
  ASSERT_EQ(part.size(), 777u);
  DataChunk expected;
  for (int col : {0, 11, 13}) {
    Vector v(schema[col].type);
    v.AppendRange(c.columns[col], 1000, 777);
    expected.columns.push_back(std::move(v));
  }
  ExpectSameRows(expected, part, "range");
}

// A file that counts the bytes read from it.
class CountingFile final : public RandomAccessFile {
 public:
  explicit CountingFile(std::string data) : inner_(std::move(data)) {}
  int64_t size() const override { return inner_.size(); }
  Status ReadAt(int64_t offset, int64_t n, uint8_t* out) const override {
    read_ += n;
    return inner_.ReadAt(offset, n, out);
  }
  const std::string& name() const override { return inner_.name(); }
  int64_t read() const { return read_; }

 private:
  BufferFile inner_;
  mutable std::atomic<int64_t> read_{0};
};

// ReadRowGroupSelected (late materialization) returns exactly the selected rows of ReadRowGroup,
// for every column type (flat columns through the page runs, nested ones through the whole
// range), with dictionaries (one falling back to PLAIN), nulls and both page versions; pages
// holding no selected row are not read.
TEST(ReaderTest, SelectedRowsMatchAGatherOfTheRange) {
  for (const char* name : {"flat", "nested"}) {
    for (int version : {1, 2}) {
      SCOPED_TRACE(std::string(name) + " v" + std::to_string(version));
      Schema schema = NamedTestSchema(name).value();
      DataChunk c = GenerateData(schema, 6000, {});
      WriterOptions wo;
      wo.page_rows = 256;
      wo.data_page_version = version;
      wo.row_group_max_rows = 4000;
      wo.dictionary_page_bytes = 2 << 10;
      auto pf = Open(WriteToString(schema, {c}, wo));
      ASSERT_TRUE(pf);
      std::vector<int> cols;
      for (size_t i = 0; i < schema.size(); ++i) cols.push_back(static_cast<int>(i));
      struct Case {
        const char* label;
        int64_t first, rows;
        std::vector<uint32_t> sel;
      };
      std::vector<Case> cases = {
          {"empty", 0, 4000, {}}, {"one", 100, 3000, {2999}}, {"all", 300, 700, {}}};
      for (uint32_t i = 0; i < 700; ++i) cases[2].sel.push_back(i);
      Case sparse{"sparse", 0, 4000, {}};
      for (uint32_t i = 5; i < 4000; i += 97) sparse.sel.push_back(i);
      cases.push_back(sparse);
      // Clusters: a run spanning three pages, one page's first and last rows, a lone row.
      Case clusters{"clusters", 200, 3800, {}};
      for (uint32_t i = 300; i < 1100; i += 3) clusters.sel.push_back(i);
      for (uint32_t i : {1736u, 1991u, 3799u}) clusters.sel.push_back(i);
      cases.push_back(clusters);
      for (const Case& k : cases) {
        SCOPED_TRACE(k.label);
        DataChunk range, selected;
        ASSERT_TRUE(pf->ReadRowGroup(0, cols, &range, k.first, k.rows).ok());
        Status s = pf->ReadRowGroupSelected(0, cols, k.first, k.rows, k.sel, &selected);
        ASSERT_TRUE(s.ok()) << s.ToString();
        DataChunk expected;
        for (const Vector& v : range.columns) {
          Vector e(v.type());
          e.AppendSelected(v, k.sel.data(), k.sel.size());
          expected.columns.push_back(std::move(e));
        }
        ExpectSameRows(expected, selected, k.label);
      }
      // The second row group (2000 rows) too.
      DataChunk range, selected;
      ASSERT_TRUE(pf->ReadRowGroup(1, cols, &range, 0, 2000).ok());
      ASSERT_TRUE(pf->ReadRowGroupSelected(1, cols, 0, 2000, {0, 1999}, &selected).ok());
      DataChunk expected;
      for (const Vector& v : range.columns) {
        Vector e(v.type());
        const uint32_t sel[] = {0, 1999};
        e.AppendSelected(v, sel, 2);
        expected.columns.push_back(std::move(e));
      }
      ExpectSameRows(expected, selected, "second group");
    }
  }
  // Unsorted or out-of-range selections are refused.
  Schema schema = {{"id", DataType::Int64(), false, ""}};
  auto pf = Open(WriteToString(schema, {GenerateData(schema, 100, {})}, WriterOptions{}));
  DataChunk out;
  EXPECT_FALSE(pf->ReadRowGroupSelected(0, {0}, 0, 100, {5, 5}, &out).ok());
  EXPECT_FALSE(pf->ReadRowGroupSelected(0, {0}, 0, 10, {10}, &out).ok());
  EXPECT_FALSE(pf->ReadRowGroupSelected(0, {0}, 50, 60, {}, &out).ok());
}

TEST(ReaderTest, SelectedRowsReadOnlyTheirPages) {
  Schema schema = {{"id", DataType::Int64(), false, ""}, {"s", DataType::String(), true, ""}};
  DataChunk c = GenerateData(schema, 100000, {});
  WriterOptions wo;
  wo.page_rows = 1000;
  wo.codec = CompressionCodec::UNCOMPRESSED;
  std::string bytes = WriteToString(schema, {c}, wo);
  auto open = [&](std::shared_ptr<CountingFile>* f) {
    *f = std::make_shared<CountingFile>(bytes);
    auto pf = ParquetFile::Open(*f);
    EXPECT_TRUE(pf.ok());
    return std::move(pf).value();
  };
  std::shared_ptr<CountingFile> whole_f, sel_f;
  auto whole = open(&whole_f);
  auto part = open(&sel_f);
  const int64_t base_whole = whole_f->read(), base_sel = sel_f->read();
  DataChunk a, b;
  ASSERT_TRUE(whole->ReadRowGroup(0, {0, 1}, &a, 0, 100000).ok());
  // Rows in 3 of the 100 pages.
  std::vector<uint32_t> sel = {10, 20, 50500, 99999};
  ASSERT_TRUE(part->ReadRowGroupSelected(0, {0, 1}, 0, 100000, sel, &b).ok());
  ASSERT_EQ(b.size(), 4u);
  for (size_t i = 0; i < sel.size(); ++i) {
    EXPECT_EQ(b.columns[0].GetValue(i), a.columns[0].GetValue(sel[i]));
    EXPECT_EQ(b.columns[1].GetValue(i), a.columns[1].GetValue(sel[i]));
  }
  const int64_t read_whole = whole_f->read() - base_whole, read_sel = sel_f->read() - base_sel;
  EXPECT_GT(read_whole, 0);
  EXPECT_LT(read_sel * 10, read_whole) << read_sel << " of " << read_whole;
  // Asked whether to gather: the sparse selection skips pages, so it is gathered; one row in
  // every page skips none, so the range comes back whole for the caller to pick from.
  bool gathered = false;
  DataChunk g;
  ASSERT_TRUE(part->ReadRowGroupSelected(0, {0, 1}, 0, 100000, sel, &g, &gathered).ok());
  EXPECT_TRUE(gathered);
  EXPECT_EQ(g.size(), sel.size());
  std::vector<uint32_t> every_page;
  for (uint32_t r = 500; r < 100000; r += 1000) every_page.push_back(r);
  ASSERT_TRUE(part->ReadRowGroupSelected(0, {0, 1}, 0, 100000, every_page, &g, &gathered).ok());
  EXPECT_FALSE(gathered);
  ASSERT_EQ(g.size(), 100000u);
  for (size_t i = 0; i < 100000; i += 997)
    EXPECT_EQ(g.columns[1].GetValue(i), a.columns[1].GetValue(i));
}

TEST(ReaderTest, StatisticsSkipRowGroupsAndPages) {
  Schema schema = {{"id", DataType::Int64(), false, ""}, {"s", DataType::String(), true, ""}};
  DataChunk c = GenerateData(schema, 10000, {});  // id = 0..9999 ascending
  WriterOptions wo;
  wo.row_group_max_rows = 2500;
  wo.page_rows = 500;
  auto pfu = Open(WriteToString(schema, {c}, wo));
  ASSERT_TRUE(pfu);
  std::shared_ptr<const ParquetFile> pf(std::move(pfu));
  ScanOptions so;
  so.predicates = {{"id", ColumnPredicate::kGe, Value::Int64(6100)},
                   {"id", ColumnPredicate::kLt, Value::Int64(6300)}};
  auto scanner = ParquetScanner::Make(pf, so).value();
  DataChunk out;
  int64_t rows = 0, min_id = INT64_MAX, max_id = -1;
  while (*scanner->Next(&out)) {
    rows += static_cast<int64_t>(out.size());
    for (size_t i = 0; i < out.size(); ++i) {
      min_id = std::min(min_id, out.columns[0].data<int64_t>()[i]);
      max_id = std::max(max_id, out.columns[0].data<int64_t>()[i]);
    }
  }
  EXPECT_EQ(scanner->row_groups_skipped(), 3);
  EXPECT_EQ(rows, 500);  // only the page holding 6000..6499 is read
  EXPECT_EQ(min_id, 6000);
  EXPECT_EQ(max_id, 6499);
  EXPECT_FALSE(pf->RowGroupMayMatch(0, {{"id", ColumnPredicate::kEq, Value::Int64(9000)}}));
  EXPECT_TRUE(pf->RowGroupMayMatch(3, {{"id", ColumnPredicate::kEq, Value::Int64(9000)}}));
  EXPECT_FALSE(pf->RowGroupMayMatch(0, {{"id", ColumnPredicate::kIsNull, Value()}}));
}

TEST(ReaderTest, ScanWindowOffsetAndLimit) {
  Schema schema = {{"id", DataType::Int64(), false, ""}};
  DataChunk c = GenerateData(schema, 3000, {});
  WriterOptions wo;
  wo.row_group_max_rows = 1000;
  std::shared_ptr<const ParquetFile> pf(Open(WriteToString(schema, {c}, wo)));
  ScanOptions so;
  so.offset = 950;
  so.limit = 1100;
  auto scanner = ParquetScanner::Make(pf, so).value();
  DataChunk out;
  std::vector<int64_t> ids;
  while (*scanner->Next(&out))
    for (size_t i = 0; i < out.size(); ++i) ids.push_back(out.columns[0].data<int64_t>()[i]);
  ASSERT_EQ(ids.size(), 1100u);
  EXPECT_EQ(ids.front(), 950);
  EXPECT_EQ(ids.back(), 2049);
  EXPECT_FALSE(ParquetScanner::Make(pf, ScanOptions{{"nope"}, {}, 0, -1}).ok());
}

TEST(ReaderTest, CorruptInputsGiveCorruptionNotCrashes) {
  Schema schema = NamedTestSchema("all").value();
  std::string good = WriteToString(schema, {GenerateData(schema, 200, {})}, {});
  // Wrong magic, truncated footers, lying lengths.
  std::vector<std::string> bad = {"",
                                  "PAR1",
                                  "PAR1PAR1",
                                  good.substr(0, good.size() - 1),
                                  "XXXX" + good.substr(4),
                                  good.substr(0, good.size() - 4) + "PAR2"};
  std::string lying = good;
  uint32_t huge = 0x7FFFFFF0;
  std::memcpy(lying.data() + lying.size() - 8, &huge, 4);
  bad.push_back(lying);
  for (const auto& b : bad) {
    auto pf = ParquetFile::Open(std::make_shared<BufferFile>(b));
    EXPECT_FALSE(pf.ok());
    if (!pf.ok()) {
      EXPECT_TRUE(pf.status().IsCorruption()) << pf.status().ToString();
    }
  }
  // Flip bytes inside the data pages: opening works (footer intact), decoding must fail cleanly
  // or produce values, never crash.
  for (size_t pos = 4; pos < good.size() / 2; pos += 97) {
    std::string b = good;
    b[pos] = static_cast<char>(b[pos] ^ 0x5A);
    auto pf = ParquetFile::Open(std::make_shared<BufferFile>(b));
    if (!pf.ok()) continue;
    DataChunk out;
    Status s = (*pf)->ReadRowGroup(0, {}, &out);
    if (!s.ok()) {
      EXPECT_TRUE(s.IsCorruption() || s.code() == StatusCode::kNotImplemented) << s.ToString();
    }
  }
}

TEST(SchemaTest, LegacyListLayoutsResolve) {
  // Spark legacy 2-level list: optional group a (LIST) { repeated int32 array; }
  auto el = [](std::string name, std::optional<Type> t, Repetition r, int children = 0,
               std::optional<ConvertedType> ct = std::nullopt) {
    SchemaElement e;
    e.name = std::move(name);
    e.type = t;
    e.repetition_type = r;
    if (children) e.num_children = children;
    e.converted_type = ct;
    return e;
  };
  SchemaElement root;
  root.name = "schema";
  root.num_children = 3;
  std::vector<SchemaElement> els = {
      root,
      el("a", std::nullopt, Repetition::OPTIONAL, 1, ConvertedType::LIST),
      el("array", Type::INT32, Repetition::REPEATED),
      el("b", std::nullopt, Repetition::OPTIONAL, 1, ConvertedType::LIST),
      el("bag", std::nullopt, Repetition::REPEATED, 1),
      el("array", Type::BYTE_ARRAY, Repetition::OPTIONAL, 0, ConvertedType::UTF8),
      el("c", Type::INT64, Repetition::REPEATED),
  };
  auto fs = FileSchema::Make(els);
  ASSERT_TRUE(fs.ok()) << fs.status().ToString();
  EXPECT_EQ(fs->schema()[0].type->ToString(), "array<int>");
  EXPECT_EQ(fs->schema()[1].type->ToString(), "array<string>");
  EXPECT_EQ(fs->schema()[2].type->ToString(), "array<bigint>");
  EXPECT_FALSE(fs->schema()[2].nullable);
  EXPECT_EQ(fs->leaf(0).max_def, 2);
  EXPECT_EQ(fs->leaf(1).max_def, 3);
  EXPECT_EQ(fs->leaf(2).max_def, 1);
  EXPECT_EQ(fs->leaf(2).max_rep, 1);
}

TEST(SchemaTest, DecimalBytes) {
  EXPECT_EQ(DecimalBytesForPrecision(1), 1);
  EXPECT_EQ(DecimalBytesForPrecision(2), 1);
  EXPECT_EQ(DecimalBytesForPrecision(3), 2);
  EXPECT_EQ(DecimalBytesForPrecision(9), 4);
  EXPECT_EQ(DecimalBytesForPrecision(10), 5);
  EXPECT_EQ(DecimalBytesForPrecision(18), 8);
  EXPECT_EQ(DecimalBytesForPrecision(19), 9);
  EXPECT_EQ(DecimalBytesForPrecision(38), 16);
}

}  // namespace
}  // namespace silt::parquet

namespace silt::parquet {
namespace {

// ForEachString hands over exactly the non-null values a full decode gives, in row order: PLAIN
// and dictionary pages (with the fallback mid-chunk), v1 and v2 pages, compressed or not, leaves
// inside a struct whose rows are null too. Other leaves are refused.
TEST(ReaderTest, ForEachStringMatchesTheDecodedColumn) {
  TypePtr st = DataType::Struct(
      {{"path", DataType::String(), true, ""}, {"n", DataType::Int64(), true, ""}});
  Schema schema = {{"s", DataType::String(), true, ""},
                   {"add", st, true, ""},
                   {"tags", DataType::List(DataType::String()), true, ""}};
  DataChunk c = DataChunk::FromSchema(schema);
  for (int i = 0; i < 5000; ++i) {
    // Each name 4 times: a dictionary pays off, so one that is not capped covers every page.
    const int k = i / 4;
    std::string v =
        "p=" + std::to_string(k % 37) + "/part-" + std::to_string(k * 7919 % 10007) + ".parquet";
    ASSERT_TRUE(c.columns[0]
                    .AppendValue(i % 5 == 0 ? Value::Null(DataType::String()) : Value::String(v))
                    .ok());
    Value add = i % 3 == 0 ? Value::Null(st)
                : i % 7 == 0
                    ? Value::Nested(st, {Value::Null(DataType::String()), Value::Int64(i)})
                    : Value::Nested(st, {Value::String(v + (i % 2 ? "" : "x")), Value::Int64(i)});
    ASSERT_TRUE(c.columns[1].AppendValue(add).ok());
    ASSERT_TRUE(c.columns[2].AppendValue(Value::Null(schema[2].type)).ok());
  }
  // 8 KiB: the dictionary falls back to PLAIN after a few hundred values, so later ranges need no
  // dictionary; 1 MiB: every page is dictionary-encoded, so each range reads the dictionary late.
  for (int64_t dict_bytes : {int64_t{8} << 10, int64_t{1} << 20}) {
    for (int version : {1, 2}) {
      for (CompressionCodec codec : {CompressionCodec::SNAPPY, CompressionCodec::UNCOMPRESSED}) {
        WriterOptions wo;
        wo.data_page_version = version;
        wo.codec = codec;
        wo.dictionary_page_bytes = dict_bytes;
        wo.page_rows = 700;
        wo.row_group_max_rows = 3000;
        auto pf = Open(WriteToString(schema, {c}, wo));
        ASSERT_TRUE(pf);
        ASSERT_EQ(pf->num_row_groups(), 2);
        const std::string label = "dict " + std::to_string(dict_bytes) + " v" +
                                  std::to_string(version) + " codec " +
                                  std::to_string(static_cast<int>(codec));
        for (int leaf : {0, 1}) {
          std::vector<std::string> want, got, ranged;
          for (int rg = 0; rg < pf->num_row_groups(); ++rg) {
            DataChunk d;
            ASSERT_TRUE(pf->ReadRowGroup(rg, {}, &d).ok());
            const Vector& v = leaf == 0 ? d.columns[0] : d.columns[1].child(0);
            for (size_t r = 0; r < d.size(); ++r) {
              bool present = leaf == 0 ? v.IsValid(r) : d.columns[1].IsValid(r) && v.IsValid(r);
              if (present) want.emplace_back(v.GetString(r));
            }
            ASSERT_TRUE(pf->ForEachString(rg, leaf, [&](std::string_view s) {
                            got.emplace_back(s);
                            return Status::OK();
                          }).ok());
            // Page by page, as a parallel walk splits a row group: each value once, in order.
            std::vector<int64_t> starts = pf->PageRowStarts(rg, leaf);
            EXPECT_GE(starts.size(), 3u) << label;
            for (size_t p = 0; p < starts.size(); ++p) {
              const int64_t end = p + 1 < starts.size() ? starts[p + 1] : -1;
              ASSERT_TRUE(pf->ForEachString(
                                rg, leaf,
                                [&](std::string_view s) {
                                  ranged.emplace_back(s);
                                  return Status::OK();
                                },
                                starts[p], end)
                              .ok())
                  << label << " page " << p;
            }
            EXPECT_EQ(
                pf->ForEachString(
                      rg, leaf, [](std::string_view) { return Status::OK(); }, starts[1] + 1, -1)
                    .code(),
                StatusCode::kInvalidArgument);  // not a page boundary
          }
          EXPECT_GT(want.size(), 2000u) << label;
          EXPECT_EQ(got, want) << label << " leaf " << leaf;
          EXPECT_EQ(ranged, want) << label << " leaf " << leaf;
        }
        int calls = 0;
        Status stop = pf->ForEachString(0, 0, [&](std::string_view) {
          return ++calls == 10 ? Status::Cancelled("stop") : Status::OK();
        });
        EXPECT_EQ(stop.code(), StatusCode::kCancelled);
        EXPECT_EQ(calls, 10);
        auto ignore = [](std::string_view) { return Status::OK(); };
        EXPECT_EQ(pf->ForEachString(0, 2, ignore).code(), StatusCode::kInvalidArgument);  // add.n
        EXPECT_EQ(pf->ForEachString(0, 3, ignore).code(),
                  StatusCode::kInvalidArgument);  // repeated
        EXPECT_EQ(pf->ForEachString(2, 0, ignore).code(), StatusCode::kInvalidArgument);
      }
    }
  }
}

}  // namespace
}  // namespace silt::parquet
