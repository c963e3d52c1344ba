#include "parquet/thrift.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>
#include <string>

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

void ExpectCorrupt(const Status& s) {
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ(s.error_class(), "SILT_PARQUET_CORRUPT");
  EXPECT_NE(s.message().find("byte offset"), std::string_view::npos) << s.ToString();
}

TEST(ThriftTest, ZigzagVarintRoundTrip) {
  std::string buf;
  ThriftWriter w(&buf);
  const int16_t i16s[] = {0,
                          1,
                          -1,
                          63,
                          -64,
                          64,
                          std::numeric_limits<int16_t>::min(),
                          std::numeric_limits<int16_t>::max()};
  const int32_t i32s[] = {0,
                          1,
                          -1,
                          100,
                          -100,
                          1 << 20,
                          std::numeric_limits<int32_t>::min(),
                          std::numeric_limits<int32_t>::max()};
  const int64_t i64s[] = {0,
                          1,
                          -1,
                          int64_t{1} << 40,
                          -(int64_t{1} << 40),
                          std::numeric_limits<int64_t>::min(),
                          std::numeric_limits<int64_t>::max()};
  for (int16_t v : i16s) w.WriteI16(v);
  for (int32_t v : i32s) w.WriteI32(v);
  for (int64_t v : i64s) w.WriteI64(v);
  w.WriteI8(-5);
  w.WriteDouble(-2.5);
  w.WriteBinary("hello");
  w.WriteBinary("");

  ThriftReader r(U8(buf), buf.size());
  for (int16_t v : i16s) {
    int16_t got;
    ASSERT_TRUE(r.ReadI16(&got).ok());
    EXPECT_EQ(got, v);
  }
  for (int32_t v : i32s) {
    int32_t got;
    ASSERT_TRUE(r.ReadI32(&got).ok());
    EXPECT_EQ(got, v);
  }
  for (int64_t v : i64s) {
    int64_t got;
    ASSERT_TRUE(r.ReadI64(&got).ok());
    EXPECT_EQ(got, v);
  }
  int8_t i8;
  ASSERT_TRUE(r.ReadI8(&i8).ok());
  EXPECT_EQ(i8, -5);
  double d;
  ASSERT_TRUE(r.ReadDouble(&d).ok());
  EXPECT_EQ(d, -2.5);
  std::string s;
  ASSERT_TRUE(r.ReadBinary(&s).ok());
  EXPECT_EQ(s, "hello");
  std::string_view view;
  ASSERT_TRUE(r.ReadBinary(&view).ok());
  EXPECT_EQ(view, "");
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(ThriftTest, VarintBytes) {
  std::string buf;
  ThriftWriter w(&buf);
  w.WriteI32(100);  // zz = 200
  w.WriteI32(-1);   // zz = 1
  w.WriteI32(60);   // zz = 120
  EXPECT_EQ(Hex(buf), "C8 01 01 78");
  buf.clear();
  w.WriteI64(std::numeric_limits<int64_t>::min());  // zz = 2^64 - 1: ten bytes
  EXPECT_EQ(Hex(buf), "FF FF FF FF FF FF FF FF FF 01");
}

TEST(ThriftTest, SpecBoolExampleIsOneByte) {
  std::string buf;
  ThriftWriter w(&buf);
  w.WriteStructBegin();
  w.WriteI32Field(6, 0);
  w.WriteBoolField(7, false);
  w.WriteBoolField(8, true);
  w.WriteStructEnd();
  EXPECT_EQ(Hex(buf), "65 00 12 11 00");

  ThriftReader r(U8(buf), buf.size());
  ASSERT_TRUE(r.ReadStructBegin().ok());
  TT t;
  int16_t id;
  int32_t i;
  bool b;
  ASSERT_TRUE(r.ReadFieldBegin(&t, &id).ok());
  EXPECT_EQ(id, 6);
  ASSERT_TRUE(r.ReadI32(&i).ok());
  ASSERT_TRUE(r.ReadFieldBegin(&t, &id).ok());
  EXPECT_EQ(t, TT::kBoolFalse);
  EXPECT_EQ(id, 7);
  ASSERT_TRUE(r.ReadBool(&b).ok());
  EXPECT_FALSE(b);
  ASSERT_TRUE(r.ReadFieldBegin(&t, &id).ok());
  EXPECT_EQ(id, 8);
  ASSERT_TRUE(r.ReadBool(&b).ok());
  EXPECT_TRUE(b);
  ASSERT_TRUE(r.ReadFieldBegin(&t, &id).ok());
  EXPECT_EQ(t, TT::kStop);
  r.ReadStructEnd();
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(ThriftTest, SpecListExample) {
  std::string buf;
  ThriftWriter w(&buf);
  w.WriteStructBegin();
  w.WriteI32Field(1, 0);
  w.WriteFieldBegin(TT::kList, 2);
  w.WriteListBegin(TT::kI32, 3);
  w.WriteI32(2);
  w.WriteI32(0);
  w.WriteI32(3);
  w.WriteStructEnd();
  EXPECT_EQ(Hex(buf), "15 00 19 35 04 00 06 00");

  ThriftReader r(U8(buf), buf.size());
  TT t;
  int16_t id;
  int32_t first;
  ASSERT_TRUE(r.ReadStructBegin().ok());
  ASSERT_TRUE(r.ReadFieldBegin(&t, &id).ok());
  ASSERT_TRUE(r.ReadI32(&first).ok());
  ASSERT_TRUE(r.ReadFieldBegin(&t, &id).ok());
  EXPECT_EQ(id, 2);
  EXPECT_EQ(t, TT::kList);
  uint32_t n;
  ASSERT_TRUE(r.ReadListBegin(&t, &n).ok());
  EXPECT_EQ(t, TT::kI32);
  ASSERT_EQ(n, 3u);
  int32_t v[3];
  for (int32_t& x : v) ASSERT_TRUE(r.ReadI32(&x).ok());
  EXPECT_EQ(v[0], 2);
  EXPECT_EQ(v[1], 0);
  EXPECT_EQ(v[2], 3);
}

TEST(ThriftTest, LongFormFieldIds) {
  std::string buf;
  ThriftWriter w(&buf);
  w.WriteStructBegin();
  w.WriteI32Field(1, 7);     // short
  w.WriteI32Field(20, 8);    // delta 19: long form, zz(20) = 40
  w.WriteI32Field(5, 9);     // backwards: long form
  w.WriteI32Field(300, 10);  // long form, two-byte id
  w.WriteI32Field(301, 11);  // short again after a long one
  w.WriteI32Field(-3, 12);   // negative ids are legal thrift
  w.WriteStructEnd();
  EXPECT_EQ(Hex(buf.substr(0, 5)), "15 0E 05 28 10");

  ThriftReader r(U8(buf), buf.size());
  ASSERT_TRUE(r.ReadStructBegin().ok());
  const int16_t ids[] = {1, 20, 5, 300, 301, -3};
  int32_t expect = 7;
  for (int16_t want : ids) {
    TT t;
    int16_t id;
    int32_t v;
    ASSERT_TRUE(r.ReadFieldBegin(&t, &id).ok());
    EXPECT_EQ(t, TT::kI32);
    EXPECT_EQ(id, want);
    ASSERT_TRUE(r.ReadI32(&v).ok());
    EXPECT_EQ(v, expect++);
  }
  TT t;
  int16_t id;
  ASSERT_TRUE(r.ReadFieldBegin(&t, &id).ok());
  EXPECT_EQ(t, TT::kStop);
}

TEST(ThriftTest, ListHeaders) {
  std::string buf;
  ThriftWriter w(&buf);
  w.WriteListBegin(TT::kI64, 14);
  EXPECT_EQ(Hex(buf), "E6");
  buf.clear();
  w.WriteListBegin(TT::kBinary, 15);
  EXPECT_EQ(Hex(buf), "F8 0F");
  buf.clear();
  w.WriteListBegin(TT::kStruct, 300);
  EXPECT_EQ(Hex(buf), "FC AC 02");
  buf.clear();
  w.WriteMapBegin(TT::kBinary, TT::kI32, 0);
  EXPECT_EQ(Hex(buf), "00");
  buf.clear();
  w.WriteMapBegin(TT::kBinary, TT::kI32, 2);
  EXPECT_EQ(Hex(buf), "02 85");

  std::string list;
  ThriftWriter lw(&list);
  lw.WriteListBegin(TT::kI32, 20);
  for (int i = 0; i < 20; ++i) lw.WriteI32(i * 1000);
  ThriftReader r(U8(list), list.size());
  TT t;
  uint32_t n;
  ASSERT_TRUE(r.ReadListBegin(&t, &n).ok());
  EXPECT_EQ(t, TT::kI32);
  ASSERT_EQ(n, 20u);
  for (int i = 0; i < 20; ++i) {
    int32_t v;
    ASSERT_TRUE(r.ReadI32(&v).ok());
    EXPECT_EQ(v, i * 1000);
  }
}

TEST(ThriftTest, BoolListElements) {
  // Element type 1 (Apache Thrift) or 2 (the spec); byte 1 is true, anything else false.
  for (const char* bytes : {"\x41\x01\x00\x02\x01", "\x42\x01\x00\x02\x01"}) {
    std::string s(bytes, 5);
    ThriftReader r(U8(s), s.size());
    TT t;
    uint32_t n;
    ASSERT_TRUE(r.ReadListBegin(&t, &n).ok());
    EXPECT_TRUE(IsBool(t));
    ASSERT_EQ(n, 4u);
    bool v[4];
    for (bool& b : v) ASSERT_TRUE(r.ReadBool(&b).ok());
    EXPECT_TRUE(v[0]);
    EXPECT_FALSE(v[1]);
    EXPECT_FALSE(v[2]);
    EXPECT_TRUE(v[3]);
  }
  std::string buf;
  ThriftWriter w(&buf);
  w.WriteListBegin(TT::kBoolTrue, 2);
  w.WriteBool(true);
  w.WriteBool(false);
  EXPECT_EQ(Hex(buf), "21 01 02");
}

// A struct holding every kind of value under unknown ids between two known fields.
std::string StructWithEveryType() {
  std::string buf;
  ThriftWriter w(&buf);
  w.WriteStructBegin();
  w.WriteI32Field(1, 7);
  w.WriteBoolField(2, true);
  w.WriteBoolField(3, false);
  w.WriteI8Field(4, -1);
  w.WriteI16Field(5, -300);
  w.WriteI32Field(6, 1 << 30);
  w.WriteI64Field(7, -(int64_t{1} << 50));
  w.WriteFieldBegin(TT::kDouble, 8);
  w.WriteDouble(3.25);
  w.WriteBinaryField(9, std::string(300, 'x'));
  w.WriteFieldBegin(TT::kList, 10);
  w.WriteListBegin(TT::kBoolTrue, 3);
  for (bool b : {true, false, true}) w.WriteBool(b);
  w.WriteFieldBegin(TT::kSet, 11);
  w.WriteListBegin(TT::kBinary, 16);
  for (int i = 0; i < 16; ++i) w.WriteBinary(std::to_string(i));
  w.WriteFieldBegin(TT::kMap, 12);  // map<binary, list<i64>>
  w.WriteMapBegin(TT::kBinary, TT::kList, 2);
  for (int i = 0; i < 2; ++i) {
    w.WriteBinary("k");
    w.WriteListBegin(TT::kI64, 2);
    w.WriteI64(i);
    w.WriteI64(-i);
  }
  w.WriteFieldBegin(TT::kMap, 13);  // empty map
  w.WriteMapBegin(TT::kI32, TT::kI32, 0);
  w.WriteFieldBegin(TT::kMap, 14);  // map<bool, double>
  w.WriteMapBegin(TT::kBoolTrue, TT::kDouble, 1);
  w.WriteBool(false);
  w.WriteDouble(1.0);
  w.WriteFieldBegin(TT::kStruct, 15);  // nested structs with bools and a list of structs
  w.WriteStructBegin();
  w.WriteBoolField(1, true);
  w.WriteFieldBegin(TT::kStruct, 40);
  w.WriteStructBegin();
  w.WriteI64Field(3, 5);
  w.WriteStructEnd();
  w.WriteFieldBegin(TT::kList, 41);
  w.WriteListBegin(TT::kStruct, 2);
  for (int i = 0; i < 2; ++i) {
    w.WriteStructBegin();
    w.WriteBoolField(1, false);
    w.WriteStructEnd();
  }
  w.WriteStructEnd();
  w.WriteFieldBegin(TT::kList, 16);  // empty list
  w.WriteListBegin(TT::kStruct, 0);
  w.WriteFieldBegin(TT::kUuid, 17);
  buf.append(16, '\x5a');
  w.WriteI32Field(100, 9);
  w.WriteStructEnd();
  return buf;
}

TEST(ThriftTest, SkipsUnknownFieldsOfEveryType) {
  const std::string buf = StructWithEveryType();
  ThriftReader r(U8(buf), buf.size());
  ASSERT_TRUE(r.ReadStructBegin().ok());
  int32_t first = 0, last = 0;
  int fields = 0;
  while (true) {
    TT t;
    int16_t id;
    ASSERT_TRUE(r.ReadFieldBegin(&t, &id).ok());
    if (t == TT::kStop) break;
    ++fields;
    if (id == 1) {
      ASSERT_TRUE(r.ReadI32(&first).ok());
    } else if (id == 100) {
      ASSERT_TRUE(r.ReadI32(&last).ok());
    } else {
      Status s = r.Skip(t);
      ASSERT_TRUE(s.ok()) << "field " << id << ": " << s.ToString();
    }
  }
  r.ReadStructEnd();
  EXPECT_EQ(fields, 18);
  EXPECT_EQ(first, 7);
  EXPECT_EQ(last, 9);
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_EQ(r.depth(), 0);

  // Skipping the whole thing as one struct consumes exactly all of it.
  ThriftReader whole(U8(buf), buf.size());
  ASSERT_TRUE(whole.Skip(TT::kStruct).ok());
  EXPECT_EQ(whole.remaining(), 0u);
}

TEST(ThriftTest, EveryTruncationOfASkippedStructIsCorruption) {
  const std::string buf = StructWithEveryType();
  for (size_t n = 0; n < buf.size(); ++n) {
    ThriftReader r(U8(buf), n);
    Status s = r.Skip(TT::kStruct);
    ASSERT_FALSE(s.ok()) << "prefix " << n;
    ExpectCorrupt(s);
  }
}

TEST(ThriftTest, VarintOverflow) {
  const std::string eleven(11, '\xFF');
  ThriftReader r(U8(eleven), eleven.size());
  int64_t v;
  ExpectCorrupt(r.ReadI64(&v));

  std::string ten(9, '\x80');
  ten += '\x02';  // the 10th byte may only carry bit 63
  ThriftReader r2(U8(ten), ten.size());
  ExpectCorrupt(r2.ReadI64(&v));

  const std::string truncated("\x80\x80", 2);
  ThriftReader r3(U8(truncated), truncated.size());
  ExpectCorrupt(r3.ReadI64(&v));

  std::string big;
  ThriftWriter w(&big);
  w.WriteVarint(uint64_t{1} << 32);
  ThriftReader r4(U8(big), big.size());
  int32_t i32;
  ExpectCorrupt(r4.ReadI32(&i32));
  ThriftReader r5(U8(big), big.size());
  int16_t i16;
  ExpectCorrupt(r5.ReadI16(&i16));
}

TEST(ThriftTest, HugeStringLengths) {
  std::string buf;
  ThriftWriter w(&buf);
  w.WriteVarint(uint64_t{1} << 40);
  buf += "abc";
  ThriftReader r(U8(buf), buf.size());
  std::string s;
  ExpectCorrupt(r.ReadBinary(&s));
  ThriftReader skip(U8(buf), buf.size());
  ExpectCorrupt(skip.Skip(TT::kBinary));

  // Within the input but beyond the configured limit.
  std::string ok;
  ThriftWriter w2(&ok);
  w2.WriteBinary(std::string(100, 'y'));
  ThriftLimits limits;
  limits.max_string_bytes = 99;
  ThriftReader r2(U8(ok), ok.size(), limits);
  ExpectCorrupt(r2.ReadBinary(&s));
  limits.max_string_bytes = 100;
  ThriftReader r3(U8(ok), ok.size(), limits);
  EXPECT_TRUE(r3.ReadBinary(&s).ok());
}

TEST(ThriftTest, HugeListAndMapSizes) {
  TT t, k, v;
  uint32_t n;
  {
    std::string buf("\xF5", 1);
    ThriftWriter(&buf).WriteVarint(0x7FFFFFFF);
    ThriftReader r(U8(buf), buf.size());
    ExpectCorrupt(r.ReadListBegin(&t, &n));
  }
  {
    std::string buf("\xF5", 1);
    ThriftWriter(&buf).WriteVarint(uint64_t{1} << 35);  // beyond i32
    ThriftReader r(U8(buf), buf.size());
    ExpectCorrupt(r.ReadListBegin(&t, &n));
  }
  {
    std::string buf("\xF5", 1);
    ThriftWriter(&buf).WriteVarint(1000);
    buf.append(999, '\0');  // one byte short
    ThriftReader r(U8(buf), buf.size());
    ExpectCorrupt(r.ReadListBegin(&t, &n));
    buf.push_back('\0');
    ThriftReader r2(U8(buf), buf.size());
    EXPECT_TRUE(r2.ReadListBegin(&t, &n).ok());
    ThriftLimits limits;
    limits.max_list_elements = 999;
    ThriftReader r3(U8(buf), buf.size(), limits);
    ExpectCorrupt(r3.ReadListBegin(&t, &n));
  }
  {
    std::string buf("\x27", 1);  // two doubles need 16 bytes
    buf.append(15, '\0');
    ThriftReader r(U8(buf), buf.size());
    ExpectCorrupt(r.ReadListBegin(&t, &n));
  }
  {
    std::string buf;
    ThriftWriter(&buf).WriteVarint(50);
    buf += '\x55';
    buf.append(99, '\0');  // 50 i32 pairs need 100 bytes
    ThriftReader r(U8(buf), buf.size());
    ExpectCorrupt(r.ReadMapBegin(&k, &v, &n));
    buf.push_back('\0');
    ThriftReader r2(U8(buf), buf.size());
    ASSERT_TRUE(r2.ReadMapBegin(&k, &v, &n).ok());
    EXPECT_EQ(n, 50u);
    EXPECT_EQ(k, TT::kI32);
  }
  {
    const std::string bad_types("\x01\xE5", 2);
    ThriftReader r(U8(bad_types), bad_types.size());
    ExpectCorrupt(r.ReadMapBegin(&k, &v, &n));
  }
}

TEST(ThriftTest, NestingBeyondMaxDepth) {
  ThriftLimits limits;
  limits.max_depth = 10;
  // field 1: struct { field 1: struct { ... } } with stops closing all levels.
  auto nested_structs = [](int levels) {
    std::string buf(levels, '\x1C');
    buf.append(levels + 1, '\0');
    return buf;
  };
  std::string ok = nested_structs(9);  // outer struct + 9 levels = 10
  ThriftReader r(U8(ok), ok.size(), limits);
  EXPECT_TRUE(r.Skip(TT::kStruct).ok());
  EXPECT_EQ(r.remaining(), 0u);
  std::string deep = nested_structs(10);
  ThriftReader r2(U8(deep), deep.size(), limits);
  ExpectCorrupt(r2.Skip(TT::kStruct));
  std::string very_deep = nested_structs(100000);  // must not overflow the stack
  ThriftReader r3(U8(very_deep), very_deep.size());
  ExpectCorrupt(r3.Skip(TT::kStruct));

  // list<list<list<...>>>: each header says "one element of type list".
  std::string lists(100000, '\x19');
  ThriftReader r4(U8(lists), lists.size());
  ExpectCorrupt(r4.Skip(TT::kList));

  // Explicit ReadStructBegin enforces the limit too.
  ThriftReader r5(U8(ok), ok.size(), limits);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(r5.ReadStructBegin().ok());
  ExpectCorrupt(r5.ReadStructBegin());
}

TEST(ThriftTest, InvalidTypesAreCorruption) {
  TT t;
  int16_t id;
  for (char b : {'\x1E', '\x1F', '\x10'}) {
    std::string buf(1, b);
    ThriftReader r(U8(buf), buf.size());
    ExpectCorrupt(r.ReadFieldBegin(&t, &id));
  }
  std::string list("\x1E\x00", 2);
  ThriftReader r(U8(list), list.size());
  uint32_t n;
  ExpectCorrupt(r.ReadListBegin(&t, &n));
  // An empty list may name any element type.
  std::string empty("\x00", 1);
  ThriftReader r2(U8(empty), empty.size());
  EXPECT_TRUE(r2.ReadListBegin(&t, &n).ok());
  EXPECT_EQ(n, 0u);
  ThriftReader r3(U8(empty), empty.size());
  ExpectCorrupt(r3.Skip(TT::kStop));
}

TEST(ThriftTest, ErrorsNameTheOffset) {
  const std::string buf(
      "\x15\x00\x18\x05"
      "ab",
      6);  // field 2 binary of length 5, 2 bytes left
  ThriftReader r(U8(buf), buf.size());
  Status s = r.Skip(TT::kStruct);
  ExpectCorrupt(s);
  EXPECT_NE(s.message().find("byte offset 3"), std::string_view::npos) << s.ToString();
}

TEST(ThriftTest, RandomBytesNeverCrash) {
  std::mt19937 rng(42);
  const std::string valid = StructWithEveryType();
  for (int iter = 0; iter < 20000; ++iter) {
    std::string buf;
    if (iter % 2 == 0) {
      buf.resize(rng() % 64);
      for (char& c : buf) c = static_cast<char>(rng());
    } else {
      buf = valid;
      for (int k = 0; k < 3; ++k) buf[rng() % buf.size()] = static_cast<char>(rng());
    }
    ThriftReader r(U8(buf), buf.size());
    Status s = r.Skip(TT::kStruct);
    if (!s.ok()) {
      EXPECT_TRUE(s.IsCorruption());
    }
    EXPECT_LE(r.position(), buf.size());
  }
}

}  // namespace
}  // namespace silt::parquet
