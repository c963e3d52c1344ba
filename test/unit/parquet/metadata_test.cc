#include "parquet/metadata.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>

#include "parquet/thrift.h"
#include "unit/shared_dir.h"

namespace silt::parquet {
namespace {

using TT = ThriftType;

std::string Hex(const std::string& s) {
  static const char* kDigits = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (!out.empty()) out += ' ';
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

const uint8_t* U8(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

void ExpectCorrupt(const Status& s, std::string_view needle = "") {
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ(s.error_class(), "SILT_PARQUET_CORRUPT");
  EXPECT_NE(s.message().find(needle), std::string_view::npos) << s.ToString();
}

Status ParseFooter(const std::string& bytes, FileMetaData* md, const ThriftLimits& limits = {}) {
  return DeserializeFileMetaData(U8(bytes), bytes.size(), md, limits);
}

Statistics FullStats() {
  Statistics s;
  s.max = std::string("\x7f\x00", 2);
  s.min = std::string("\x80", 1);
  s.null_count = 3;
  s.distinct_count = 17;
  s.max_value = "zz";
  s.min_value = "";
  s.is_max_value_exact = true;
  s.is_min_value_exact = false;
  return s;
}

SchemaElement Leaf(std::string name, Type type, Repetition rep) {
  SchemaElement e;
  e.name = std::move(name);
  e.type = type;
  e.repetition_type = rep;
  return e;
}

LogicalType Logical(LogicalType::Kind kind) {
  LogicalType lt;
  lt.kind = kind;
  return lt;
}

// A footer using every modelled field of every struct.
FileMetaData FullFileMetaData() {
  FileMetaData md;
  md.version = 2;
  SchemaElement root;
  root.name = "spark_schema";
  root.num_children = 8;
  md.schema.push_back(root);

  SchemaElement s = Leaf("s", Type::BYTE_ARRAY, Repetition::OPTIONAL);
  s.converted_type = ConvertedType::UTF8;
  s.logical_type = Logical(LogicalType::STRING);
  s.field_id = 7;
  md.schema.push_back(s);

  SchemaElement dec = Leaf("dec", Type::FIXED_LEN_BYTE_ARRAY, Repetition::REQUIRED);
  dec.type_length = 16;
  dec.converted_type = ConvertedType::DECIMAL;
  dec.scale = 4;
  dec.precision = 38;
  dec.logical_type = Logical(LogicalType::DECIMAL);
  dec.logical_type->decimal_scale = 4;
  dec.logical_type->decimal_precision = 38;
  md.schema.push_back(dec);

  SchemaElement ts = Leaf("ts", Type::INT64, Repetition::OPTIONAL);
  ts.converted_type = ConvertedType::TIMESTAMP_MICROS;
  ts.logical_type = Logical(LogicalType::TIMESTAMP);
  ts.logical_type->is_adjusted_to_utc = true;
  ts.logical_type->unit = TimeUnit::MICROS;
  md.schema.push_back(ts);

  SchemaElement tm = Leaf("tm", Type::INT64, Repetition::OPTIONAL);
  tm.logical_type = Logical(LogicalType::TIME);
  tm.logical_type->unit = TimeUnit::NANOS;
  md.schema.push_back(tm);

  SchemaElement b = Leaf("b", Type::INT32, Repetition::REQUIRED);
  b.converted_type = ConvertedType::INT_8;
  b.logical_type = Logical(LogicalType::INTEGER);
  b.logical_type->bit_width = 8;
  b.logical_type->is_signed = false;
  md.schema.push_back(b);

  SchemaElement d = Leaf("d", Type::INT32, Repetition::OPTIONAL);
  d.logical_type = Logical(LogicalType::DATE);
  md.schema.push_back(d);

  SchemaElement u = Leaf("u", Type::FIXED_LEN_BYTE_ARRAY, Repetition::OPTIONAL);
  u.type_length = 16;
  u.logical_type = Logical(LogicalType::UUID);
  md.schema.push_back(u);

  SchemaElement flag = Leaf("flag", Type::BOOLEAN, Repetition::REPEATED);
  md.schema.push_back(flag);

  for (int g = 0; g < 2; ++g) {
    RowGroup rg;
    rg.num_rows = 100 + g;
    rg.total_byte_size = 5000;
    rg.file_offset = 4;
    rg.total_compressed_size = 4000;
    rg.ordinal = static_cast<int16_t>(g);
    rg.sorting_columns.push_back({1, true, false});
    rg.sorting_columns.push_back({0, false, true});
    for (size_t leaf = 1; leaf < md.schema.size(); ++leaf) {
      ColumnChunk cc;
      if (g == 1) cc.file_path = "x.parquet";
      cc.file_offset = 4 + 1000 * leaf;
      cc.offset_index_offset = 90000 + leaf;
      cc.offset_index_length = 20;
      cc.column_index_offset = 80000 + leaf;
      cc.column_index_length = 30;
      ColumnMetaData& m = cc.meta_data.emplace();
      m.type = *md.schema[leaf].type;
      m.encodings = {Encoding::PLAIN_DICTIONARY, Encoding::PLAIN, Encoding::RLE};
      m.path_in_schema = {md.schema[leaf].name};
      m.codec = CompressionCodec::ZSTD;
      m.num_values = rg.num_rows;
      m.total_uncompressed_size = 1234;
      m.total_compressed_size = 999;
      m.key_value_metadata.push_back({"k", "v"});
      m.key_value_metadata.push_back({"only_key", std::nullopt});
      m.data_page_offset = 4 + 1000 * leaf + 50;
      m.index_page_offset = 77;
      m.dictionary_page_offset = 4 + 1000 * leaf;
      m.statistics = FullStats();
      m.encoding_stats.push_back({PageType::DICTIONARY_PAGE, Encoding::PLAIN, 1});
      m.encoding_stats.push_back({PageType::DATA_PAGE, Encoding::RLE_DICTIONARY, 3});
      m.bloom_filter_offset = 70000;
      m.bloom_filter_length = 64;
      rg.columns.push_back(cc);
    }
    md.num_rows += rg.num_rows;
    md.row_groups.push_back(rg);
  }
  md.key_value_metadata.push_back({"org.apache.spark.version", "3.5.0"});
  md.key_value_metadata.push_back({"empty", std::nullopt});
  md.created_by = "silt version 0.1.0";
  md.column_orders.assign(md.schema.size() - 1, true);
  return md;
}

TEST(MetadataTest, SpecDataPageHeaderExample) {
  PageHeader h;
  h.type = PageType::DATA_PAGE;
  h.uncompressed_page_size = 100;
  h.compressed_page_size = 60;
  DataPageHeader& dp = h.data_page_header.emplace();
  dp.num_values = 10;
  dp.encoding = Encoding::PLAIN;
  dp.definition_level_encoding = Encoding::RLE;
  dp.repetition_level_encoding = Encoding::RLE;
  std::string bytes;
  SerializePageHeader(h, &bytes);
  EXPECT_EQ(Hex(bytes), "15 00 15 C8 01 15 78 2C 15 14 15 00 15 06 15 06 00 00");

  bytes += "page bytes follow";
  PageHeader parsed;
  size_t consumed = 0;
  ASSERT_TRUE(DeserializePageHeader(U8(bytes), bytes.size(), &parsed, &consumed).ok());
  EXPECT_EQ(consumed, 18u);
  EXPECT_EQ(parsed, h);
}

TEST(MetadataTest, SpecBoolExampleIsCompressedFalse) {
  PageHeader h;
  h.type = PageType::DATA_PAGE_V2;
  h.uncompressed_page_size = 10;
  h.compressed_page_size = 10;
  DataPageHeaderV2& v2 = h.data_page_header_v2.emplace();
  v2.num_values = 1;
  v2.num_rows = 1;
  v2.is_compressed = false;
  std::string bytes;
  SerializePageHeader(h, &bytes);
  // Field 8 follows field 3 (delta 5); v2 fields 1..6, then is_compressed=false as one byte.
  EXPECT_EQ(Hex(bytes), "15 06 15 14 15 14 5C 15 02 15 00 15 02 15 00 15 00 15 00 12 00 00");
  PageHeader parsed;
  size_t consumed;
  ASSERT_TRUE(DeserializePageHeader(U8(bytes), bytes.size(), &parsed, &consumed).ok());
  EXPECT_EQ(parsed, h);
  EXPECT_FALSE(parsed.data_page_header_v2->is_compressed);

  // Absent is_compressed means true (the thrift default).
  std::string no_flag = bytes;
  no_flag.erase(no_flag.size() - 3, 1);
  ASSERT_TRUE(DeserializePageHeader(U8(no_flag), no_flag.size(), &parsed, &consumed).ok());
  EXPECT_TRUE(parsed.data_page_header_v2->is_compressed);
  EXPECT_EQ(consumed, no_flag.size());
}

TEST(MetadataTest, SpecEncodingsListExample) {
  FileMetaData md;
  md.schema.push_back(Leaf("root", Type::BOOLEAN, Repetition::REQUIRED));
  RowGroup rg;
  ColumnChunk cc;
  ColumnMetaData& m = cc.meta_data.emplace();
  m.type = Type::BOOLEAN;
  m.encodings = {Encoding::PLAIN_DICTIONARY, Encoding::PLAIN, Encoding::RLE};
  rg.columns.push_back(cc);
  md.row_groups.push_back(rg);
  std::string bytes;
  SerializeFileMetaData(md, &bytes);
  // ColumnMetaData: field 1 type BOOLEAN (15 00), then field 2 list<i32> of 3.
  EXPECT_NE(bytes.find(std::string("\x15\x00\x19\x35\x04\x00\x06", 7)), std::string::npos)
      << Hex(bytes);
}

TEST(MetadataTest, FileMetaDataRoundTrip) {
  const FileMetaData md = FullFileMetaData();
  std::string bytes;
  SerializeFileMetaData(md, &bytes);
  FileMetaData parsed;
  Status s = ParseFooter(bytes, &parsed);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(parsed, md);
  std::string again;
  SerializeFileMetaData(parsed, &again);
  EXPECT_EQ(again, bytes);
}

TEST(MetadataTest, PageHeaderRoundTrips) {
  PageHeader dict;
  dict.type = PageType::DICTIONARY_PAGE;
  dict.uncompressed_page_size = 1 << 20;
  dict.compressed_page_size = 12345;
  dict.crc = -559038737;
  dict.dictionary_page_header = DictionaryPageHeader{300, Encoding::PLAIN_DICTIONARY, true};

  PageHeader v1;
  v1.type = PageType::DATA_PAGE;
  v1.uncompressed_page_size = 7;
  v1.compressed_page_size = 5;
  v1.data_page_header =
      DataPageHeader{9, Encoding::RLE_DICTIONARY, Encoding::RLE, Encoding::BIT_PACKED, FullStats()};

  PageHeader v2;
  v2.type = PageType::DATA_PAGE_V2;
  v2.uncompressed_page_size = 70;
  v2.compressed_page_size = 50;
  v2.crc = 42;
  v2.data_page_header_v2 =
      DataPageHeaderV2{20, 3, 4, Encoding::DELTA_BINARY_PACKED, 6, 2, true, FullStats()};

  for (const PageHeader& h : {dict, v1, v2}) {
    std::string bytes;
    SerializePageHeader(h, &bytes);
    PageHeader parsed;
    size_t consumed = 0;
    ASSERT_TRUE(DeserializePageHeader(U8(bytes), bytes.size(), &parsed, &consumed).ok());
    EXPECT_EQ(parsed, h);
    EXPECT_EQ(consumed, bytes.size());
    for (size_t n = 0; n < bytes.size(); ++n) {
      ExpectCorrupt(DeserializePageHeader(U8(bytes), n, &parsed, &consumed));
    }
  }
}

TEST(MetadataTest, PageIndexRoundTrips) {
  ColumnIndex ci;
  ci.null_pages = {false, true, false};
  ci.min_values = {"a", "", "m"};
  ci.max_values = {"f", "", "z"};
  ci.boundary_order = BoundaryOrder::ASCENDING;
  ci.null_counts = {0, 10, 2};
  std::string bytes;
  SerializeColumnIndex(ci, &bytes);
  ColumnIndex parsed_ci;
  ASSERT_TRUE(DeserializeColumnIndex(U8(bytes), bytes.size(), &parsed_ci).ok());
  EXPECT_EQ(parsed_ci, ci);

  ci.null_counts.clear();  // optional
  bytes.clear();
  SerializeColumnIndex(ci, &bytes);
  ASSERT_TRUE(DeserializeColumnIndex(U8(bytes), bytes.size(), &parsed_ci).ok());
  EXPECT_EQ(parsed_ci, ci);

  OffsetIndex oi;
  for (int i = 0; i < 20; ++i) oi.page_locations.push_back({4 + 100 * i, 100, 1000LL * i});
  bytes.clear();
  SerializeOffsetIndex(oi, &bytes);
  OffsetIndex parsed_oi;
  ASSERT_TRUE(DeserializeOffsetIndex(U8(bytes), bytes.size(), &parsed_oi).ok());
  EXPECT_EQ(parsed_oi, oi);
}

TEST(MetadataTest, ColumnIndexWithMismatchedListsIsCorruption) {
  ColumnIndex ci;
  ci.null_pages = {false, true};
  ci.min_values = {"a"};
  ci.max_values = {"f", ""};
  std::string bytes;
  SerializeColumnIndex(ci, &bytes);
  ColumnIndex parsed;
  ExpectCorrupt(DeserializeColumnIndex(U8(bytes), bytes.size(), &parsed), "different lengths");
}

TEST(MetadataTest, EveryLogicalTypeRoundTrips) {
  const LogicalType::Kind kinds[] = {
      LogicalType::STRING,   LogicalType::MAP,     LogicalType::LIST,    LogicalType::ENUM,
      LogicalType::DECIMAL,  LogicalType::DATE,    LogicalType::TIME,    LogicalType::TIMESTAMP,
      LogicalType::INTEGER,  LogicalType::UNKNOWN, LogicalType::JSON,    LogicalType::BSON,
      LogicalType::UUID,     LogicalType::FLOAT16, LogicalType::VARIANT, LogicalType::GEOMETRY,
      LogicalType::GEOGRAPHY};
  FileMetaData md;
  md.schema.push_back(Leaf("root", Type::INT32, Repetition::REQUIRED));
  for (LogicalType::Kind kind : kinds) {
    SchemaElement e = Leaf("c", Type::INT64, Repetition::OPTIONAL);
    e.logical_type = Logical(kind);
    if (kind == LogicalType::TIME || kind == LogicalType::TIMESTAMP) {
      for (TimeUnit unit : {TimeUnit::MILLIS, TimeUnit::MICROS, TimeUnit::NANOS}) {
        for (bool utc : {false, true}) {
          e.logical_type->unit = unit;
          e.logical_type->is_adjusted_to_utc = utc;
          md.schema.push_back(e);
        }
      }
      continue;
    }
    if (kind == LogicalType::INTEGER) {
      for (int8_t bits : {8, 16, 32, 64}) {
        e.logical_type->bit_width = bits;
        e.logical_type->is_signed = bits != 16;
        md.schema.push_back(e);
      }
      continue;
    }
    if (kind == LogicalType::DECIMAL) {
      e.logical_type->decimal_precision = 18;
      e.logical_type->decimal_scale = -2;
    }
    md.schema.push_back(e);
  }
  std::string bytes;
  SerializeFileMetaData(md, &bytes);
  FileMetaData parsed;
  ASSERT_TRUE(ParseFooter(bytes, &parsed).ok());
  EXPECT_EQ(parsed, md);
}

TEST(MetadataTest, UnknownEnumValuesArePreserved) {
  FileMetaData md;
  SchemaElement e = Leaf("x", static_cast<Type>(42), static_cast<Repetition>(9));
  e.converted_type = static_cast<ConvertedType>(100);
  md.schema.push_back(e);
  RowGroup rg;
  ColumnChunk cc;
  ColumnMetaData& m = cc.meta_data.emplace();
  m.type = static_cast<Type>(-7);
  m.codec = static_cast<CompressionCodec>(77);
  m.encodings = {static_cast<Encoding>(1), static_cast<Encoding>(99)};
  m.encoding_stats.push_back({static_cast<PageType>(12), static_cast<Encoding>(13), 1});
  rg.columns.push_back(cc);
  md.row_groups.push_back(rg);
  std::string bytes;
  SerializeFileMetaData(md, &bytes);
  FileMetaData parsed;
  ASSERT_TRUE(ParseFooter(bytes, &parsed).ok());
  EXPECT_EQ(parsed, md);

  PageHeader h;
  h.type = static_cast<PageType>(5);
  bytes.clear();
  SerializePageHeader(h, &bytes);
  PageHeader parsed_h;
  size_t consumed;
  ASSERT_TRUE(DeserializePageHeader(U8(bytes), bytes.size(), &parsed_h, &consumed).ok());
  EXPECT_EQ(static_cast<int>(parsed_h.type), 5);
}

// A minimal FileMetaData written by hand: `element` adds fields to the one schema element (after
// name = field 4), `top` adds fields after row_groups (field 4).
std::string HandFooter(const std::function<void(ThriftWriter&)>& element,
                       const std::function<void(ThriftWriter&)>& top) {
  std::string bytes;
  ThriftWriter w(&bytes);
  w.WriteStructBegin();
  w.WriteI32Field(1, 1);
  w.WriteFieldBegin(TT::kList, 2);
  w.WriteListBegin(TT::kStruct, 1);
  w.WriteStructBegin();
  w.WriteBinaryField(4, "root");
  if (element) element(w);
  w.WriteStructEnd();
  w.WriteI64Field(3, 0);
  w.WriteFieldBegin(TT::kList, 4);
  w.WriteListBegin(TT::kStruct, 0);
  if (top) top(w);
  w.WriteStructEnd();
  return bytes;
}

TEST(MetadataTest, UnknownUnionMembers) {
  std::string bytes = HandFooter(
      [](ThriftWriter& w) {
        w.WriteFieldBegin(TT::kStruct, 10);  // logicalType
        w.WriteStructBegin();
        w.WriteFieldBegin(TT::kStruct, 30);  // a member from the future, with payload
        w.WriteStructBegin();
        w.WriteI32Field(1, 5);
        w.WriteStructEnd();
        w.WriteStructEnd();
      },
      [](ThriftWriter& w) {
        w.WriteFieldBegin(TT::kList, 7);  // column_orders: TYPE_ORDER, unknown, TYPE_ORDER
        w.WriteListBegin(TT::kStruct, 3);
        for (int16_t member : {1, 5, 1}) {
          w.WriteStructBegin();
          w.WriteFieldBegin(TT::kStruct, member);
          w.WriteStructBegin();
          w.WriteStructEnd();
          w.WriteStructEnd();
        }
      });
  FileMetaData md;
  Status s = ParseFooter(bytes, &md);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(md.schema[0].logical_type.has_value());
  EXPECT_EQ(static_cast<int>(md.schema[0].logical_type->kind), 30);
  EXPECT_EQ(md.column_orders, std::vector<bool>({true, false, true}));

  // The unknown member is written back as an empty struct with the same id.
  std::string again;
  SerializeFileMetaData(md, &again);
  FileMetaData reparsed;
  ASSERT_TRUE(ParseFooter(again, &reparsed).ok());
  EXPECT_EQ(reparsed, md);
}

TEST(MetadataTest, UnknownFieldsOfEveryTypeAreSkipped) {
  std::string bytes;
  ThriftWriter w(&bytes);
  w.WriteStructBegin();
  w.WriteI32Field(1, 0);
  w.WriteI32Field(2, 100);
  w.WriteI32Field(3, 60);
  w.WriteFieldBegin(TT::kStruct, 5);
  w.WriteStructBegin();
  w.WriteI32Field(1, 10);
  w.WriteI32Field(2, 0);
  w.WriteI32Field(3, 3);
  w.WriteI32Field(4, 3);
  w.WriteFieldBegin(TT::kMap, 9);  // unknown inside a known nested struct
  w.WriteMapBegin(TT::kI32, TT::kStruct, 1);
  w.WriteI32(1);
  w.WriteStructBegin();
  w.WriteBoolField(1, true);
  w.WriteStructEnd();
  w.WriteStructEnd();
  w.WriteFieldBegin(TT::kI32, 6);  // unknown ids from here on
  w.WriteI32(-1);
  w.WriteBoolField(9, true);
  w.WriteBoolField(10, false);
  w.WriteI8Field(11, 3);
  w.WriteI16Field(12, 4);
  w.WriteI64Field(13, 5);
  w.WriteFieldBegin(TT::kDouble, 14);
  w.WriteDouble(1.5);
  w.WriteBinaryField(15, "blob");
  w.WriteFieldBegin(TT::kList, 16);
  w.WriteListBegin(TT::kList, 1);
  w.WriteListBegin(TT::kBoolTrue, 2);
  w.WriteBool(true);
  w.WriteBool(false);
  w.WriteFieldBegin(TT::kSet, 17);
  w.WriteListBegin(TT::kI64, 1);
  w.WriteI64(1);
  w.WriteFieldBegin(TT::kMap, 18);
  w.WriteMapBegin(TT::kBinary, TT::kBinary, 1);
  w.WriteBinary("a");
  w.WriteBinary("b");
  w.WriteFieldBegin(TT::kStruct, 200);
  w.WriteStructBegin();
  w.WriteFieldBegin(TT::kStruct, 1);
  w.WriteStructBegin();
  w.WriteStructEnd();
  w.WriteStructEnd();
  w.WriteFieldBegin(TT::kUuid, 201);
  bytes.append(16, '\x01');
  w.WriteStructEnd();

  PageHeader h;
  size_t consumed;
  Status s = DeserializePageHeader(U8(bytes), bytes.size(), &h, &consumed);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(consumed, bytes.size());
  EXPECT_EQ(h.uncompressed_page_size, 100);
  EXPECT_EQ(h.compressed_page_size, 60);
  ASSERT_TRUE(h.data_page_header.has_value());
  EXPECT_EQ(h.data_page_header->num_values, 10);
  EXPECT_EQ(h.data_page_header->repetition_level_encoding, Encoding::RLE);
  EXPECT_FALSE(h.crc.has_value());
}

TEST(MetadataTest, MissingRequiredFieldsAreCorruption) {
  FileMetaData md;
  // SchemaElement.name
  {
    std::string bytes;
    ThriftWriter w(&bytes);
    w.WriteStructBegin();
    w.WriteI32Field(1, 1);
    w.WriteFieldBegin(TT::kList, 2);
    w.WriteListBegin(TT::kStruct, 1);
    w.WriteStructBegin();
    w.WriteI32Field(5, 0);
    w.WriteStructEnd();
    w.WriteI64Field(3, 0);
    w.WriteFieldBegin(TT::kList, 4);
    w.WriteListBegin(TT::kStruct, 0);
    w.WriteStructEnd();
    ExpectCorrupt(ParseFooter(bytes, &md), "SchemaElement lacks required field 4");
  }
  // FileMetaData.num_rows and .version
  {
    std::string bytes;
    ThriftWriter w(&bytes);
    w.WriteStructBegin();
    w.WriteI32Field(1, 1);
    w.WriteFieldBegin(TT::kList, 2);
    w.WriteListBegin(TT::kStruct, 0);
    w.WriteFieldBegin(TT::kList, 4);
    w.WriteListBegin(TT::kStruct, 0);
    w.WriteStructEnd();
    ExpectCorrupt(ParseFooter(bytes, &md), "FileMetaData lacks required field 3");
    ExpectCorrupt(ParseFooter(std::string(1, '\0'), &md), "FileMetaData lacks required field 1");
  }
  // RowGroup.num_rows, ColumnChunk.meta_data, ColumnMetaData.codec, KeyValue.key
  auto footer_with_group = [](const std::function<void(ThriftWriter&)>& group) {
    std::string bytes;
    ThriftWriter w(&bytes);
    w.WriteStructBegin();
    w.WriteI32Field(1, 1);
    w.WriteFieldBegin(TT::kList, 2);
    w.WriteListBegin(TT::kStruct, 0);
    w.WriteI64Field(3, 0);
    w.WriteFieldBegin(TT::kList, 4);
    w.WriteListBegin(TT::kStruct, 1);
    w.WriteStructBegin();
    group(w);
    w.WriteStructEnd();
    w.WriteStructEnd();
    return bytes;
  };
  ExpectCorrupt(ParseFooter(footer_with_group([](ThriftWriter& w) {
                              w.WriteFieldBegin(TT::kList, 1);
                              w.WriteListBegin(TT::kStruct, 0);
                              w.WriteI64Field(2, 0);
                            }),
                            &md),
                "RowGroup lacks required field 3");
  ExpectCorrupt(ParseFooter(footer_with_group([](ThriftWriter& w) {
                              w.WriteFieldBegin(TT::kList, 1);
                              w.WriteListBegin(TT::kStruct, 1);
                              w.WriteStructBegin();
                              w.WriteI64Field(2, 0);
                              w.WriteStructEnd();
                              w.WriteI64Field(2, 0);
                              w.WriteI64Field(3, 0);
                            }),
                            &md),
                "ColumnChunk lacks required field 3");
  ExpectCorrupt(ParseFooter(footer_with_group([](ThriftWriter& w) {
                              w.WriteFieldBegin(TT::kList, 1);
                              w.WriteListBegin(TT::kStruct, 1);
                              w.WriteStructBegin();
                              w.WriteFieldBegin(TT::kStruct, 3);
                              w.WriteStructBegin();
                              w.WriteI32Field(1, 1);
                              w.WriteStructEnd();
                              w.WriteStructEnd();
                              w.WriteI64Field(2, 0);
                              w.WriteI64Field(3, 0);
                            }),
                            &md),
                "ColumnMetaData lacks required field 2");
  ExpectCorrupt(ParseFooter(HandFooter(nullptr,
                                       [](ThriftWriter& w) {
                                         w.WriteFieldBegin(TT::kList, 5);
                                         w.WriteListBegin(TT::kStruct, 1);
                                         w.WriteStructBegin();
                                         w.WriteBinaryField(2, "value only");
                                         w.WriteStructEnd();
                                       }),
                            &md),
                "KeyValue lacks required field 1");
  // PageHeader.compressed_page_size; DataPageHeader.encoding; TimestampType.unit
  {
    std::string bytes;
    ThriftWriter w(&bytes);
    w.WriteStructBegin();
    w.WriteI32Field(1, 0);
    w.WriteI32Field(2, 10);
    w.WriteStructEnd();
    PageHeader h;
    size_t consumed;
    ExpectCorrupt(DeserializePageHeader(U8(bytes), bytes.size(), &h, &consumed),
                  "PageHeader lacks required field 3");
  }
  {
    std::string bytes;
    ThriftWriter w(&bytes);
    w.WriteStructBegin();
    w.WriteI32Field(1, 0);
    w.WriteI32Field(2, 10);
    w.WriteI32Field(3, 10);
    w.WriteFieldBegin(TT::kStruct, 5);
    w.WriteStructBegin();
    w.WriteI32Field(1, 10);
    w.WriteStructEnd();
    w.WriteStructEnd();
    PageHeader h;
    size_t consumed;
    ExpectCorrupt(DeserializePageHeader(U8(bytes), bytes.size(), &h, &consumed),
                  "DataPageHeader lacks required field 2");
  }
  ExpectCorrupt(ParseFooter(HandFooter(
                                [](ThriftWriter& w) {
                                  w.WriteFieldBegin(TT::kStruct, 10);
                                  w.WriteStructBegin();
                                  w.WriteFieldBegin(TT::kStruct, 8);
                                  w.WriteStructBegin();
                                  w.WriteBoolField(1, true);
                                  w.WriteStructEnd();
                                  w.WriteStructEnd();
                                },
                                nullptr),
                            &md),
                "TimestampType lacks required field 2");
}

TEST(MetadataTest, ColumnChunkFileOffsetIsOptionalOnRead) {
  FileMetaData md = FullFileMetaData();
  std::string bytes;
  SerializeFileMetaData(md, &bytes);
  // Rewrite one ColumnChunk by hand without field 2.
  std::string footer;
  ThriftWriter w(&footer);
  w.WriteStructBegin();
  w.WriteI32Field(1, 1);
  w.WriteFieldBegin(TT::kList, 2);
  w.WriteListBegin(TT::kStruct, 0);
  w.WriteI64Field(3, 5);
  w.WriteFieldBegin(TT::kList, 4);
  w.WriteListBegin(TT::kStruct, 1);
  w.WriteStructBegin();
  w.WriteFieldBegin(TT::kList, 1);
  w.WriteListBegin(TT::kStruct, 1);
  w.WriteStructBegin();
  w.WriteFieldBegin(TT::kStruct, 3);
  w.WriteStructBegin();
  w.WriteI32Field(1, 1);
  w.WriteFieldBegin(TT::kList, 2);
  w.WriteListBegin(TT::kI32, 1);
  w.WriteI32(0);
  w.WriteFieldBegin(TT::kList, 3);
  w.WriteListBegin(TT::kBinary, 1);
  w.WriteBinary("a");
  w.WriteI32Field(4, 0);
  w.WriteI64Field(5, 5);
  w.WriteI64Field(6, 40);
  w.WriteI64Field(7, 40);
  w.WriteI64Field(9, 4);
  w.WriteStructEnd();
  w.WriteStructEnd();
  w.WriteI64Field(2, 40);
  w.WriteI64Field(3, 5);
  w.WriteStructEnd();
  w.WriteStructEnd();
  FileMetaData parsed;
  Status s = ParseFooter(footer, &parsed);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(parsed.row_groups[0].columns[0].file_offset, 0);
  EXPECT_EQ(parsed.row_groups[0].columns[0].meta_data->data_page_offset, 4);
  EXPECT_EQ(parsed.row_groups[0].columns[0].meta_data->path_in_schema,
            std::vector<std::string>({"a"}));
}

TEST(MetadataTest, NegativeSizesAreCorruption) {
  auto header = [](int32_t uncompressed, int32_t compressed, int32_t num_values) {
    PageHeader h;
    h.uncompressed_page_size = uncompressed;
    h.compressed_page_size = compressed;
    h.data_page_header.emplace().num_values = num_values;
    std::string bytes;
    SerializePageHeader(h, &bytes);
    return bytes;
  };
  PageHeader h;
  size_t consumed;
  for (const std::string& bytes : {header(-1, 1, 1), header(1, -1, 1), header(1, 1, -1)}) {
    ExpectCorrupt(DeserializePageHeader(U8(bytes), bytes.size(), &h, &consumed), "negative");
  }
  FileMetaData md = FullFileMetaData();
  md.num_rows = -1;
  std::string bytes;
  SerializeFileMetaData(md, &bytes);
  FileMetaData parsed;
  ExpectCorrupt(ParseFooter(bytes, &parsed), "FileMetaData field 3 is negative");
  md = FullFileMetaData();
  md.row_groups[1].columns[2].meta_data->num_values = -5;
  bytes.clear();
  SerializeFileMetaData(md, &bytes);
  ExpectCorrupt(ParseFooter(bytes, &parsed), "ColumnMetaData field 5 is negative");
  md = FullFileMetaData();
  md.schema[0].num_children = -2;
  bytes.clear();
  SerializeFileMetaData(md, &bytes);
  ExpectCorrupt(ParseFooter(bytes, &parsed), "SchemaElement field 5 is negative");
}

// A known id with another wire type is skipped like an unknown field (Thrift-generated readers do
// the same; dict-page-offset-zero.parquet has ColumnMetaData field 15 as a list).
TEST(MetadataTest, KnownFieldWithWrongWireTypeIsSkipped) {
  std::string bytes;
  ThriftWriter w(&bytes);
  w.WriteStructBegin();
  w.WriteI32Field(1, 0);
  w.WriteBinaryField(2, "100");
  w.WriteI32Field(3, 60);
  w.WriteStructEnd();
  PageHeader h;
  size_t consumed;
  // ... and then does not count as present.
  ExpectCorrupt(DeserializePageHeader(U8(bytes), bytes.size(), &h, &consumed),
                "PageHeader lacks required field 2");

  bytes.clear();
  w.WriteStructBegin();
  w.WriteI32Field(1, 0);
  w.WriteI32Field(2, 100);
  w.WriteI32Field(3, 60);
  w.WriteBinaryField(4, "not a crc");
  w.WriteI64Field(5, 1);  // data_page_header as i64
  w.WriteStructEnd();
  ASSERT_TRUE(DeserializePageHeader(U8(bytes), bytes.size(), &h, &consumed).ok());
  EXPECT_EQ(consumed, bytes.size());
  EXPECT_FALSE(h.crc.has_value());
  EXPECT_FALSE(h.data_page_header.has_value());
  EXPECT_EQ(h.compressed_page_size, 60);

  // Lists with the wrong element type, and union members that are not structs.
  std::string footer = HandFooter(
      [](ThriftWriter& w) {
        w.WriteFieldBegin(TT::kStruct, 10);
        w.WriteStructBegin();
        w.WriteI32Field(1, 3);  // STRING member as an i32
        w.WriteStructEnd();
      },
      [](ThriftWriter& w) {
        w.WriteFieldBegin(TT::kList, 5);
        w.WriteListBegin(TT::kI32, 2);
        w.WriteI32(1);
        w.WriteI32(2);
        w.WriteBinaryField(6, "me");
        w.WriteFieldBegin(TT::kList, 7);
        w.WriteListBegin(TT::kStruct, 1);
        w.WriteStructBegin();
        w.WriteI32Field(1, 0);  // TYPE_ORDER as an i32: not a known order
        w.WriteStructEnd();
      });
  FileMetaData md;
  Status s = ParseFooter(footer, &md);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(md.key_value_metadata.empty());
  EXPECT_EQ(md.created_by, "me");
  EXPECT_EQ(md.column_orders, std::vector<bool>({false}));
  ASSERT_TRUE(md.schema[0].logical_type.has_value());
  EXPECT_EQ(md.schema[0].logical_type->kind, LogicalType::NONE);
}

TEST(MetadataTest, TruncatedAtEveryOffsetIsCorruption) {
  std::string bytes;
  SerializeFileMetaData(FullFileMetaData(), &bytes);
  FileMetaData md;
  for (size_t n = 0; n < bytes.size(); ++n) {
    // A copy of exactly n bytes, so ASan catches any read past the end.
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + n);
    Status s = DeserializeFileMetaData(prefix.data(), prefix.size(), &md);
    ASSERT_FALSE(s.ok()) << "prefix of " << n << " bytes parsed";
    ExpectCorrupt(s);
  }
}

TEST(MetadataTest, MutatedFootersNeverCrash) {
  std::string bytes;
  SerializeFileMetaData(FullFileMetaData(), &bytes);
  std::mt19937 rng(7);
  FileMetaData md;
  std::vector<uint8_t> copy(bytes.begin(), bytes.end());
  for (size_t i = 0; i < bytes.size(); ++i) {
    const uint8_t values[] = {0xFF, 0x00, static_cast<uint8_t>(rng())};
    copy[i] = values[i % 3];
    Status s = DeserializeFileMetaData(copy.data(), copy.size(), &md);
    if (!s.ok()) {
      EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    }
    copy[i] = bytes[i];
  }
}

TEST(MetadataTest, HostileSizesInFooter) {
  FileMetaData md;
  // row_groups claims 2^31-1 elements.
  std::string bytes;
  ThriftWriter w(&bytes);
  w.WriteStructBegin();
  w.WriteI32Field(1, 1);
  w.WriteFieldBegin(TT::kList, 2);
  w.WriteListBegin(TT::kStruct, 0);
  w.WriteI64Field(3, 0);
  w.WriteFieldBegin(TT::kList, 4);
  bytes += '\xFC';
  w.WriteVarint(0x7FFFFFFF);
  ExpectCorrupt(ParseFooter(bytes, &md), "list");

  // A list of many 1-byte "structs" is bounded by the input, but each fails fast.
  std::string many = bytes.substr(0, bytes.size() - 5);
  ThriftWriter(&many).WriteVarint(100000);
  many.append(100000, '\0');
  ExpectCorrupt(ParseFooter(many, &md), "RowGroup lacks required field 1");

  // created_by claims a huge length.
  std::string str = HandFooter(nullptr, [](ThriftWriter& w) {
    w.WriteFieldBegin(TT::kBinary, 6);
    w.WriteVarint(uint64_t{1} << 40);
  });
  ExpectCorrupt(ParseFooter(str, &md), "binary length");

  // Limits apply to real fields too.
  std::string fine = HandFooter(nullptr, [](ThriftWriter& w) { w.WriteBinaryField(6, "abcdef"); });
  ThriftLimits limits;
  limits.max_string_bytes = 5;
  ExpectCorrupt(ParseFooter(fine, &md, limits), "max_string_bytes");
  EXPECT_TRUE(ParseFooter(fine, &md).ok());
}

TEST(MetadataTest, DeepNestingInUnknownFieldIsCorruption) {
  std::string footer = HandFooter(nullptr, [](ThriftWriter& w) {
    w.WriteFieldBegin(TT::kStruct, 50);
    for (int i = 0; i < 200; ++i) w.out()->push_back('\x1C');
    for (int i = 0; i < 201; ++i) w.out()->push_back('\0');
  });
  FileMetaData md;
  ExpectCorrupt(ParseFooter(footer, &md), "max_depth");
}

TEST(MetadataTest, Names) {
  EXPECT_STREQ(TypeName(Type::FIXED_LEN_BYTE_ARRAY), "FIXED_LEN_BYTE_ARRAY");
  EXPECT_STREQ(TypeName(static_cast<Type>(99)), "UNKNOWN");
  EXPECT_STREQ(EncodingName(Encoding::RLE_DICTIONARY), "RLE_DICTIONARY");
  EXPECT_STREQ(EncodingName(static_cast<Encoding>(1)), "UNKNOWN");
  EXPECT_STREQ(CodecName(CompressionCodec::LZ4_RAW), "LZ4_RAW");
  EXPECT_STREQ(CodecName(static_cast<CompressionCodec>(-1)), "UNKNOWN");
  EXPECT_STREQ(ConvertedTypeName(ConvertedType::UTF8), "UTF8");
  EXPECT_STREQ(ConvertedTypeName(ConvertedType::TIMESTAMP_MICROS), "TIMESTAMP_MICROS");
  EXPECT_STREQ(ConvertedTypeName(ConvertedType::INTERVAL), "INTERVAL");
  EXPECT_STREQ(ConvertedTypeName(static_cast<ConvertedType>(22)), "UNKNOWN");
  EXPECT_STREQ(ConvertedTypeName(static_cast<ConvertedType>(-1)), "UNKNOWN");
}

std::filesystem::path ParquetTestingDir() {
  namespace fs = std::filesystem;
  const fs::path rel = "conformance/parquet-testing/data";
  std::error_code ec;
  fs::path p = fs::path(silt::testing::SharedDir()) / rel;
  if (fs::is_directory(p, ec)) return p;
  return {};
}

TEST(MetadataTest, ParsesRealFooters) {
  namespace fs = std::filesystem;
  const fs::path dir = ParquetTestingDir();
  if (dir.empty()) GTEST_SKIP() << "parquet-testing data not present";
  int parsed_files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".parquet") continue;
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    std::ifstream in(entry.path(), std::ios::binary);
    std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GE(file.size(), 12u);
    const std::string magic = file.substr(file.size() - 4);
    if (magic == "PARE") continue;  // encrypted footer
    ASSERT_EQ(magic, "PAR1");
    const auto* tail = U8(file) + file.size() - 8;
    const uint32_t footer_len = tail[0] | tail[1] << 8 | tail[2] << 16 | uint32_t{tail[3]} << 24;
    ASSERT_LE(footer_len, file.size() - 12);
    const std::string footer = file.substr(file.size() - 8 - footer_len, footer_len);

    FileMetaData md;
    Status s = ParseFooter(footer, &md);
    ASSERT_TRUE(s.ok()) << s.ToString();
    int64_t rows = 0;
    for (const RowGroup& rg : md.row_groups) rows += rg.num_rows;
    // parquet-rs 0.3.0 wrote FileMetaData.num_rows = 0 (the bytes say so: 16 00).
    if (name != "repeated_no_annotation.parquet") {
      EXPECT_EQ(md.num_rows, rows);
    }
    ASSERT_FALSE(md.schema.empty());

    std::string again;
    SerializeFileMetaData(md, &again);
    FileMetaData reparsed;
    s = ParseFooter(again, &reparsed);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(reparsed.num_rows, md.num_rows);
    EXPECT_EQ(reparsed.row_groups.size(), md.row_groups.size());
    ASSERT_EQ(reparsed.schema.size(), md.schema.size());
    for (size_t i = 0; i < md.schema.size(); ++i) {
      EXPECT_EQ(reparsed.schema[i].name, md.schema[i].name);
    }
    EXPECT_EQ(reparsed, md);
    ++parsed_files;
  }
  EXPECT_GT(parsed_files, 40);
}

}  // namespace
}  // namespace silt::parquet
