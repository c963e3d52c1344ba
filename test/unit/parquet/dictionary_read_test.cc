// ReadRowGroupEncoded: dictionary-encoded string columns come back as DictionaryVectors whose
// rows equal the flat decode (ranges starting mid-page, nulls, v1/v2 pages, codecs, an all-null
// column), other columns come back flat, and a chunk whose writer fell back to PLAIN is flat for
// the ranges that reach a PLAIN page.
#include <gtest/gtest.h>

#include "parquet/reader.h"
#include "parquet/writer.h"

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

std::unique_ptr<ParquetFile> WriteAndOpen(const Schema& schema, const DataChunk& c,
                                          const WriterOptions& wo) {
  std::string bytes;
  auto w = ParquetWriter::Make(std::make_unique<StringSink>(&bytes), schema, wo);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  if (!w.ok()) return nullptr;
  EXPECT_TRUE((*w)->Write(c).ok());
  EXPECT_TRUE((*w)->Close().ok());
  auto pf = ParquetFile::Open(std::make_shared<BufferFile>(bytes));
  EXPECT_TRUE(pf.ok()) << pf.status().ToString();
  return pf.ok() ? std::move(pf).value() : nullptr;
}

void ExpectSame(const Vector& want, const Vector& got, const std::string& label) {
  ASSERT_EQ(want.size(), got.size()) << label;
  for (size_t r = 0; r < want.size(); ++r)
    ASSERT_EQ(want.GetValue(r), got.GetValue(r)) << label << " row " << r;
}

// Columns: s (low-cardinality string, every 7th row null), n (bigint), t (string, never null),
// u (all null string).
DataChunk MakeData(size_t rows) {
  Schema schema = {{"s", DataType::String(), true, ""},
                   {"n", DataType::Int64(), true, ""},
                   {"t", DataType::String(), false, ""},
                   {"u", DataType::String(), true, ""}};
  DataChunk c = DataChunk::FromSchema(schema);
  for (size_t i = 0; i < rows; ++i) {
    if (i % 7 == 3) {
      c.columns[0].AppendNull();
    } else {
      // One long value (beyond 16 bytes) among short ones, and the empty string.
      const size_t k = (i * 31) % 23;
      c.columns[0].AppendString(k == 0   ? std::string()
                                : k == 1 ? std::string("a value longer than sixteen bytes")
                                         : "v" + std::to_string(k));
    }
    c.columns[1].Append<int64_t>(static_cast<int64_t>(i));
    c.columns[2].AppendString("t" + std::to_string(i % 5));
    c.columns[3].AppendNull();
  }
  return c;
}

Schema SchemaOf(const DataChunk& c) {
  return {{"s", c.columns[0].type(), true, ""},
          {"n", c.columns[1].type(), true, ""},
          {"t", c.columns[2].type(), false, ""},
          {"u", c.columns[3].type(), true, ""}};
}

TEST(DictionaryReadTest, DictionaryColumnsMatchTheFlatDecodeInEveryRange) {
  DataChunk data = MakeData(5000);
  for (int version : {1, 2}) {
    for (CompressionCodec codec : {CompressionCodec::SNAPPY, CompressionCodec::UNCOMPRESSED}) {
      WriterOptions wo;
      wo.data_page_version = version;
      wo.codec = codec;
      wo.page_rows = 700;
      wo.row_group_max_rows = 3000;
      auto pf = WriteAndOpen(SchemaOf(data), data, wo);
      ASSERT_TRUE(pf);
      ASSERT_EQ(pf->num_row_groups(), 2);
      const std::string label =
          "v" + std::to_string(version) + " codec " + std::to_string(static_cast<int>(codec));
      for (int rg = 0; rg < 2; ++rg) {
        const int64_t rows = pf->metadata().row_groups[static_cast<size_t>(rg)].num_rows;
        // Whole row group, ranges starting mid-page and on a page boundary, an empty range.
        const std::vector<std::pair<int64_t, int64_t>> ranges = {
            {0, -1}, {0, 1}, {5, 1400}, {700, 700}, {1399, 2}, {rows - 1, 1}, {rows, 0}};
        for (const auto& [first, count] : ranges) {
          const std::string where = label + " rg " + std::to_string(rg) + " [" +
                                    std::to_string(first) + ", +" + std::to_string(count) + ")";
          DataChunk flat;
          ASSERT_TRUE(pf->ReadRowGroup(rg, {}, &flat, first, count).ok()) << where;
          EncodedChunk enc;
          Status s = pf->ReadRowGroupEncoded(rg, {}, &enc, first, count);
          ASSERT_TRUE(s.ok()) << where << ": " << s.ToString();
          ASSERT_EQ(enc.num_columns(), 4u);
          ASSERT_EQ(enc.size(), flat.size()) << where;
          EXPECT_TRUE(enc.is_dictionary(0)) << where;
          EXPECT_FALSE(enc.is_dictionary(1)) << where;  // not a string
          EXPECT_TRUE(enc.is_dictionary(2)) << where;
          for (size_t c = 0; c < 4; ++c) {
            if (enc.is_dictionary(c)) {
              const DictionaryVector& d = *enc.dict[c];
              ASSERT_TRUE(d.Validate().ok()) << where << " column " << c;
              ASSERT_EQ(d.size(), flat.size()) << where;
              EXPECT_EQ(enc.flat[c].size(), 0u);
              if (c == 0) {
                EXPECT_LE(d.dictionary->size(), 23u) << where;
              }
              if (c == 2) {
                EXPECT_FALSE(d.may_have_nulls()) << where;
              }
            }
          }
          DataChunk back = Flatten(std::move(enc));
          for (size_t c = 0; c < 4; ++c)
            ExpectSame(flat.columns[c], back.columns[c], where + " column " + std::to_string(c));
        }
      }
    }
  }
}

TEST(DictionaryReadTest, AllNullColumnKeepsItsRowsNull) {
  DataChunk data = MakeData(1000);
  auto pf = WriteAndOpen(SchemaOf(data), data, WriterOptions{});
  ASSERT_TRUE(pf);
  EncodedChunk enc;
  ASSERT_TRUE(pf->ReadRowGroupEncoded(0, {3}, &enc).ok());
  ASSERT_EQ(enc.num_columns(), 1u);
  ASSERT_EQ(enc.size(), 1000u);
  if (enc.is_dictionary(0)) {
    // An all-null chunk may come with an empty dictionary; no row reads it.
    EXPECT_TRUE(enc.dict[0]->Validate().ok());
    EXPECT_EQ(enc.dict[0]->dictionary->size(), 0u);
  }
  DataChunk back = Flatten(std::move(enc));
  EXPECT_EQ(back.columns[0].CountNulls(), 1000u);
}

TEST(DictionaryReadTest, FallbackToPlainGivesFlatRowsWherePlainPagesAreRead) {
  // The first 2000 rows repeat 10 values, then every value is new: the dictionary overflows and
  // the writer continues with PLAIN pages in the same chunk.
  Schema schema = {{"s", DataType::String(), true, ""}};
  DataChunk c = DataChunk::FromSchema(schema);
  for (int i = 0; i < 20000; ++i) {
    if (i % 11 == 5)
      c.columns[0].AppendNull();
    else
      c.columns[0].AppendString(i < 2000 ? "k" + std::to_string(i % 10)
                                         : "unique-value-" + std::to_string(i * 7919));
  }
  WriterOptions wo;
  wo.dictionary_page_bytes = 16 << 10;
  wo.page_rows = 1000;
  auto pf = WriteAndOpen(schema, c, wo);
  ASSERT_TRUE(pf);
  const auto& md = *pf->metadata().row_groups[0].columns[0].meta_data;
  bool has_dict = false, has_plain = false;
  for (const auto& es : md.encoding_stats) {
    if (es.page_type == PageType::DATA_PAGE && es.encoding == Encoding::PLAIN_DICTIONARY)
      has_dict = true;
    if (es.page_type == PageType::DATA_PAGE && es.encoding == Encoding::PLAIN) has_plain = true;
  }
  ASSERT_TRUE(has_dict);
  ASSERT_TRUE(has_plain);
  // Whole chunk: a dictionary page, then PLAIN pages: flat.
  EncodedChunk all;
  ASSERT_TRUE(pf->ReadRowGroupEncoded(0, {}, &all).ok());
  EXPECT_FALSE(all.is_dictionary(0));
  DataChunk back = Flatten(std::move(all));
  ExpectSame(c.columns[0], back.columns[0], "whole chunk");
  // The first page only: dictionary-encoded.
  EncodedChunk first;
  ASSERT_TRUE(pf->ReadRowGroupEncoded(0, {}, &first, 0, 1000).ok());
  EXPECT_TRUE(first.is_dictionary(0));
  Vector want(DataType::String());
  want.AppendRange(c.columns[0], 0, 1000);
  ExpectSame(want, Flatten(std::move(first)).columns[0], "first page");
  // A range past the fallback: flat, the dictionary never needed.
  EncodedChunk late;
  ASSERT_TRUE(pf->ReadRowGroupEncoded(0, {}, &late, 15000, 3000).ok());
  EXPECT_FALSE(late.is_dictionary(0));
  Vector want_late(DataType::String());
  want_late.AppendRange(c.columns[0], 15000, 3000);
  ExpectSame(want_late, Flatten(std::move(late)).columns[0], "late range");
}

TEST(DictionaryReadTest, WithoutDictionaryEncodingColumnsAreFlat) {
  DataChunk data = MakeData(2000);
  WriterOptions wo;
  wo.dictionary = false;
  auto pf = WriteAndOpen(SchemaOf(data), data, wo);
  ASSERT_TRUE(pf);
  EncodedChunk enc;
  ASSERT_TRUE(pf->ReadRowGroupEncoded(0, {}, &enc, 10, 500).ok());
  for (size_t c = 0; c < enc.num_columns(); ++c) EXPECT_FALSE(enc.is_dictionary(c)) << c;
  DataChunk flat;
  ASSERT_TRUE(pf->ReadRowGroup(0, {}, &flat, 10, 500).ok());
  DataChunk back = Flatten(std::move(enc));
  for (size_t c = 0; c < 4; ++c) ExpectSame(flat.columns[c], back.columns[c], "plain");
}

}  // namespace
}  // namespace silt::parquet
