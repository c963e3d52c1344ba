#include "delta/z85.h"

#include <gtest/gtest.h>

#include <random>

namespace silt::delta {
namespace {

std::string Bytes(std::initializer_list<int> v) {
  std::string s;
  for (int b : v) s.push_back(static_cast<char>(b));
  return s;
}

TEST(Z85Test, ZeroMqSpecVector) {
  // RFC 32 (ZeroMQ Z85) example.
  std::string raw = Bytes({0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B});
  EXPECT_EQ(Z85Encode(raw), "HelloWorld");
  auto back = Z85Decode("HelloWorld");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, raw);
}

TEST(Z85Test, ExtremeGroups) {
  EXPECT_EQ(Z85Encode(Bytes({0, 0, 0, 0})), "00000");
  EXPECT_EQ(Z85Encode(Bytes({0xFF, 0xFF, 0xFF, 0xFF})), "%nSc0");
  EXPECT_EQ(*Z85Decode("%nSc0"), Bytes({0xFF, 0xFF, 0xFF, 0xFF}));
  EXPECT_EQ(Z85Encode(""), "");
  EXPECT_EQ(*Z85Decode(""), "");
}

TEST(Z85Test, UnalignedInputIsZeroPadded) {
  // Delta's Base85Codec.encodeBytes pads to a multiple of 4 with zero bytes.
  EXPECT_EQ(Z85Encode(Bytes({0x86, 0x4F})), Z85Encode(Bytes({0x86, 0x4F, 0, 0})));
  EXPECT_EQ(Z85Encode(Bytes({1, 2, 3, 4, 5})).size(), 10u);
  auto back = Z85DecodeBytes(Z85Encode(Bytes({1, 2, 3, 4, 5})), 5);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, Bytes({1, 2, 3, 4, 5}));
}

TEST(Z85Test, RandomRoundTrips) {
  std::mt19937 rng(7);
  for (size_t n = 0; n < 64; ++n) {
    std::string raw(n, '\0');
    for (char& c : raw) c = static_cast<char>(rng());
    std::string text = Z85Encode(raw);
    EXPECT_EQ(text.size(), (n + 3) / 4 * 5);
    auto back = Z85DecodeBytes(text, n);
    ASSERT_TRUE(back.ok()) << n;
    EXPECT_EQ(*back, raw);
    if (n % 4 == 0) {
      EXPECT_EQ(*Z85Decode(text), raw);
    }
  }
}

TEST(Z85Test, DecodeErrorsAreCorruption) {
  for (const char* bad : {"Hello", "HelloWorl", "Hell~", "Hell ", "Hell\x80", "#####", "%nSc1"}) {
    auto r = Z85Decode(bad);
    if (std::string_view(bad) == "Hello") {
      EXPECT_TRUE(r.ok());
      continue;
    }
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(r.status().IsCorruption()) << bad;
  }
  // Asking for more bytes than the text holds.
  auto shortr = Z85DecodeBytes("HelloWorld", 9);
  ASSERT_FALSE(shortr.ok());
  EXPECT_TRUE(shortr.status().IsCorruption());
  EXPECT_FALSE(Z85DecodeBytes("####0", 0).ok());  // all padding
  EXPECT_FALSE(Z85DecodeBytes("###zz", 1).ok());  // 1-byte tail above 255
}

TEST(Z85Test, RustZ85CratePaddedTail) {
  // delta-kernel-rs test table cdf-table-with-dv, 00000000000000000005.json: inline DV of row 3,
  // sizeInBytes 34, whose last group "##093" is the z85 crate's 2-byte tail (0x0300 BE).
  auto raw = Z85DecodeBytes("^Bg9^0rr910000000000iXQKl0rr91000005c8Xg##093", 34);
  ASSERT_TRUE(raw.ok()) << raw.status().ToString();
  ASSERT_EQ(raw->size(), 34u);
  EXPECT_EQ(raw->substr(0, 4), Bytes({0xD1, 0xD3, 0x39, 0x64}));
  EXPECT_EQ(raw->substr(32), Bytes({0x03, 0x00}));
  // Strict decode refuses it (the group exceeds 32 bits).
  EXPECT_FALSE(Z85Decode("^Bg9^0rr910000000000iXQKl0rr91000005c8Xg##093").ok());
  // One-byte and three-byte tails.
  EXPECT_EQ(*Z85DecodeBytes("###0a", 1), Bytes({10}));
  EXPECT_EQ(*Z85DecodeBytes("#0000", 3), Bytes({0, 0, 0}));
}

struct UuidVector {
  const char* uuid;
  const char* z85;
};

TEST(Z85Test, DeltaUuidVectors) {
  // dml-dv-optimize-reorg.md 1.3 (match kernel-rs tests and PROTOCOL.md's 'u' example).
  const UuidVector vectors[] = {
      {"d2c639aa-8816-431a-aaf6-d3fe2512ff61", "^-aqEH.-t@S}K{vb[*k^"},
      {"61d16c75-6994-46b7-a15b-8b538852e50e", "vBn[lx{q8@P<9BNH/isA"},
      {"550e8400-e29b-41d4-a716-446655440000", "rsTVZ&*Sl-RXRWjryu/!"},
      {"123e4567-e89b-12d3-a456-426614174000", "5<w-%>:JjlQ/G/]6C<1m"},
  };
  for (const UuidVector& v : vectors) {
    auto uuid = Uuid::Parse(v.uuid);
    ASSERT_TRUE(uuid.ok()) << v.uuid;
    EXPECT_EQ(uuid->ToString(), v.uuid);
    EXPECT_EQ(Z85EncodeUuid(*uuid), v.z85);
    auto back = Z85DecodeUuid(v.z85);
    ASSERT_TRUE(back.ok()) << v.z85;
    EXPECT_EQ(*back, *uuid);
  }
}

TEST(Z85Test, UuidParsingAndRandom) {
  EXPECT_EQ(Uuid::Parse("D2C639AA-8816-431A-AAF6-D3FE2512FF61")->ToString(),
            "d2c639aa-8816-431a-aaf6-d3fe2512ff61");
  for (const char* bad :
       {"", "d2c639aa8816431aaaf6d3fe2512ff61", "d2c639aa-8816-431a-aaf6-d3fe2512ff6g",
        "d2c639aa-8816-431a-aaf6_d3fe2512ff61"})
    EXPECT_FALSE(Uuid::Parse(bad).ok()) << bad;
  Uuid a = Uuid::Random(), b = Uuid::Random();
  EXPECT_NE(a, b);
  EXPECT_EQ(a.bytes[6] >> 4, 4);
  EXPECT_EQ(a.bytes[8] >> 6, 2);
  EXPECT_EQ(*Z85DecodeUuid(Z85EncodeUuid(a)), a);
  EXPECT_FALSE(Z85DecodeUuid("vBn[lx{q8@P<9BNH/is").ok());   // 19 chars
  EXPECT_FALSE(Z85DecodeUuid("vBn[lx{q8@P<9BNH/is~").ok());  // bad char
}

}  // namespace
}  // namespace silt::delta
