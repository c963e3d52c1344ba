#include "parquet/encoding.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace silt::parquet {
namespace {

const size_t kSizes[] = {0, 1, 7, 8, 9, 127, 128, 129, 1000, 100000};
// Odd batch sizes for decoding across several Get calls.
const size_t kBatches[] = {1, 3, 5, 7, 13, 31, 33, 64, 100, 257};

const uint8_t* U8(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

std::string Bytes(std::initializer_list<int> b) {
  std::string s;
  for (int v : b) s.push_back(static_cast<char>(v));
  return s;
}

void AppendUleb(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

// ---------------------------------------------------------------- RLE / bit-packed hybrid

std::vector<uint32_t> RleValues(int w, size_t n, int pattern, std::mt19937_64& rng) {
  const uint64_t max = w == 0 ? 0 : (uint64_t{1} << w) - 1;
  std::vector<uint32_t> v(n);
  for (size_t i = 0; i < n;) {
    uint32_t x = static_cast<uint32_t>(rng() & max);
    size_t run = 1;
    if (pattern == 1) run = 1 + rng() % 20;                        // mixed runs and singles
    if (pattern == 2) run = n;                                     // constant
    if (pattern == 3) x = static_cast<uint32_t>(i % 2 ? max : 0);  // alternating extremes
    for (size_t k = 0; k < run && i < n; ++k) v[i++] = x;
  }
  return v;
}

std::string EncodeRle(int w, const std::vector<uint32_t>& v) {
  RleBitPackedEncoder enc(w);
  enc.PutMany(v.data(), v.size());
  return enc.Finish();
}

// PutMany (8-value groups) and PutRun (bulk counts in a run) write exactly what Put does value
// by value, whatever the mix of runs and noise and wherever the calls split the input.
TEST(RleTest, BulkPutsMatchPutOneByOne) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<uint32_t> v;
    while (v.size() < 3000) {
      uint32_t x = rng() % 4;
      size_t run = rng() % 3 == 0 ? rng() % 40 : 1 + rng() % 3;
      v.insert(v.end(), run, x);
    }
    RleBitPackedEncoder one(2), many(2), runs(2);
    for (uint32_t x : v) one.Put(x);
    for (size_t i = 0; i < v.size();) {
      size_t n = std::min<size_t>(v.size() - i, 1 + rng() % 50);
      many.PutMany(v.data() + i, n);
      for (size_t j = i; j < i + n;) {
        size_t k = j + 1;
        while (k < i + n && v[k] == v[j]) ++k;
        runs.PutRun(v[j], k - j);
        j = k;
      }
      i += n;
    }
    std::string want = one.Finish();
    ASSERT_EQ(many.Finish(), want) << trial;
    ASSERT_EQ(runs.Finish(), want) << trial;
  }
}

TEST(RleTest, SpecExampleBitPacked) {
  std::vector<uint32_t> levels = {3, 2, 3, 0, 1, 3};
  std::string enc = EncodeRle(2, levels);
  EXPECT_EQ(enc, Bytes({0x03, 0x3B, 0x0D}));
  RleBitPackedDecoder dec(U8(enc), enc.size(), 2);
  int16_t out[6];
  ASSERT_TRUE(dec.Get(out, 6).ok());
  EXPECT_EQ(std::vector<int16_t>(out, out + 6), (std::vector<int16_t>{3, 2, 3, 0, 1, 3}));
  EXPECT_EQ(dec.position(), 3u);
}

TEST(RleTest, SpecExampleRleRun) {
  std::vector<uint32_t> v(100, 1);
  std::string enc = EncodeRle(1, v);
  EXPECT_EQ(enc, Bytes({0xC8, 0x01, 0x01}));
  RleBitPackedDecoder dec(U8(enc), enc.size(), 1);
  std::vector<uint8_t> out(100);
  ASSERT_TRUE(dec.Get(out.data(), 100).ok());
  EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](uint8_t x) { return x == 1; }));
  // No more values.
  uint8_t extra;
  EXPECT_TRUE(dec.Get(&extra, 1).IsCorruption());
}

TEST(RleTest, BitWidth) {
  EXPECT_EQ(BitWidth(0), 0);
  EXPECT_EQ(BitWidth(1), 1);
  EXPECT_EQ(BitWidth(3), 2);
  EXPECT_EQ(BitWidth(4), 3);
  EXPECT_EQ(BitWidth(255), 8);
  EXPECT_EQ(BitWidth(256), 9);
  EXPECT_EQ(BitWidth(std::numeric_limits<uint64_t>::max()), 64);
}

template <typename T>
void CheckRleDecode(const std::string& enc, int w, const std::vector<uint32_t>& expected,
                    size_t batch) {
  RleBitPackedDecoder dec(U8(enc), enc.size(), w);
  std::vector<T> out(expected.size());
  for (size_t i = 0; i < expected.size();) {
    size_t k = std::min(batch, expected.size() - i);
    ASSERT_TRUE(dec.Get(out.data() + i, k).ok()) << "w=" << w << " at " << i;
    i += k;
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(static_cast<uint32_t>(out[i]), expected[i]) << "w=" << w << " i=" << i;
  }
  EXPECT_EQ(dec.position(), enc.size());
}

TEST(RleTest, RoundTripAllWidthsAndSizes) {
  std::mt19937_64 rng(42);
  for (int w = 0; w <= 32; ++w) {
    for (size_t n : kSizes) {
      for (int pattern = 0; pattern < 4; ++pattern) {
        if (n == 100000 && pattern == 3) continue;
        std::vector<uint32_t> v = RleValues(w, n, pattern, rng);
        std::string enc = EncodeRle(w, v);
        CheckRleDecode<uint32_t>(enc, w, v, std::max<size_t>(n, 1));
        if (n <= 1000) {
          for (size_t b : {size_t{1}, size_t{3}, size_t{13}, size_t{33}}) {
            CheckRleDecode<uint32_t>(enc, w, v, b);
          }
        }
        if (w <= 8) CheckRleDecode<uint8_t>(enc, w, v, 7);
        if (w <= 15) CheckRleDecode<int16_t>(enc, w, v, 31);
        if (w <= 16) CheckRleDecode<uint16_t>(enc, w, v, 100);
      }
    }
  }
}

TEST(RleTest, OddBatchesAcrossRuns) {
  std::mt19937_64 rng(7);
  for (int w : {1, 2, 3, 4, 8, 13, 16, 32}) {
    std::vector<uint32_t> v = RleValues(w, 5000, 1, rng);
    std::string enc = EncodeRle(w, v);
    for (size_t b : kBatches) CheckRleDecode<uint32_t>(enc, w, v, b);
  }
}

TEST(RleTest, ValueTooLargeForType) {
  std::vector<uint32_t> v = {1, 40000, 2, 3, 4, 5, 6, 7, 9};
  std::string enc = EncodeRle(16, v);
  {
    RleBitPackedDecoder dec(U8(enc), enc.size(), 16);
    std::vector<int16_t> out(v.size());
    EXPECT_TRUE(dec.Get(out.data(), out.size()).IsCorruption());
  }
  {
    RleBitPackedDecoder dec(U8(enc), enc.size(), 16);
    std::vector<uint16_t> out(v.size());
    ASSERT_TRUE(dec.Get(out.data(), out.size()).ok());
    EXPECT_EQ(out[1], 40000);
  }
  {
    // Also in a partial group and an RLE run.
    std::vector<uint32_t> big(40, 300);
    std::string e2 = EncodeRle(9, big);
    RleBitPackedDecoder dec(U8(e2), e2.size(), 9);
    uint8_t out[40];
    EXPECT_TRUE(dec.Get(out, 40).IsCorruption());
    std::vector<uint32_t> mixed = {1, 2, 300};
    std::string e3 = EncodeRle(9, mixed);
    RleBitPackedDecoder d3(U8(e3), e3.size(), 9);
    ASSERT_TRUE(d3.Get(out, 2).ok());
    EXPECT_TRUE(d3.Get(out, 1).IsCorruption());
  }
}

TEST(RleTest, BitWidthZero) {
  // RLE run of 10 with no value bytes, then a bit-packed run of 2 groups with no data bytes.
  std::string enc = Bytes({10 << 1, (2 << 1) | 1});
  RleBitPackedDecoder dec(U8(enc), enc.size(), 0);
  uint32_t out[26];
  std::fill_n(out, 26, 7u);
  ASSERT_TRUE(dec.Get(out, 26).ok());
  EXPECT_TRUE(std::all_of(out, out + 26, [](uint32_t x) { return x == 0; }));
  EXPECT_TRUE(dec.Get(out, 1).IsCorruption());
}

TEST(RleTest, TruncatedPaddingOfLastRun) {
  // 10 values of width 3: 2 groups = 6 data bytes, but 10 values need only 30 bits = 4 bytes.
  std::vector<uint32_t> v = {1, 2, 3, 4, 5, 6, 7, 0, 1, 2};
  std::string enc = EncodeRle(3, v);
  ASSERT_EQ(enc.size(), 7u);
  uint32_t out[10];
  RleBitPackedDecoder ok(U8(enc), 5, 3);
  ASSERT_TRUE(ok.Get(out, 10).ok());
  EXPECT_EQ(std::vector<uint32_t>(out, out + 10), v);
  RleBitPackedDecoder bad(U8(enc), 4, 3);
  EXPECT_TRUE(bad.Get(out, 10).IsCorruption());
  // Values that are present still decode.
  RleBitPackedDecoder some(U8(enc), 4, 3);
  ASSERT_TRUE(some.Get(out, 8).ok());
  EXPECT_TRUE(some.Get(out, 1).IsCorruption());
}

TEST(RleTest, EveryTruncationFailsCleanly) {
  std::mt19937_64 rng(3);
  for (int w : {0, 1, 2, 5, 8, 17, 32}) {
    std::vector<uint32_t> v = RleValues(w, 300, 1, rng);
    std::string enc = EncodeRle(w, v);
    for (size_t cut = 0; cut < enc.size(); ++cut) {
      // Exact-size copy so ASan sees any over-read.
      std::vector<uint8_t> buf(enc.begin(), enc.begin() + cut);
      RleBitPackedDecoder dec(buf.data(), buf.size(), w);
      std::vector<uint32_t> out(v.size());
      Status st = dec.Get(out.data(), out.size());
      if (st.ok()) {
        // Only possible when just the padding of the final group was cut.
        EXPECT_EQ(out, v) << "w=" << w << " cut=" << cut;
      } else {
        EXPECT_TRUE(st.IsCorruption()) << st.ToString();
      }
    }
    // Cutting more than the last group always fails.
    if (w > 0) {
      RleBitPackedDecoder dec(U8(enc), enc.size() - w, w);
      std::vector<uint32_t> out(v.size());
      EXPECT_TRUE(dec.Get(out.data(), out.size()).IsCorruption()) << "w=" << w;
    }
  }
}

TEST(RleTest, MalformedHeaders) {
  uint32_t out[4];
  // 6-byte ULEB header.
  std::string six = Bytes({0x80, 0x80, 0x80, 0x80, 0x80, 0x01});
  RleBitPackedDecoder d1(U8(six), six.size(), 1);
  EXPECT_TRUE(d1.Get(out, 1).IsCorruption());
  // 5-byte header overflowing 32 bits.
  std::string ovf = Bytes({0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x01});
  RleBitPackedDecoder d2(U8(ovf), ovf.size(), 1);
  EXPECT_TRUE(d2.Get(out, 1).IsCorruption());
  // Header cut inside the varint.
  std::string cut = Bytes({0x80});
  RleBitPackedDecoder d3(U8(cut), cut.size(), 1);
  EXPECT_TRUE(d3.Get(out, 1).IsCorruption());
  // RLE value bytes missing.
  std::string noval = Bytes({0x10, 0x01});
  RleBitPackedDecoder d4(U8(noval), noval.size(), 9);
  EXPECT_TRUE(d4.Get(out, 1).IsCorruption());
  // RLE value wider than the bit width.
  std::string wide = Bytes({0x10, 0x05});
  RleBitPackedDecoder d5(U8(wide), wide.size(), 2);
  EXPECT_TRUE(d5.Get(out, 1).IsCorruption());
  // Bit width out of range.
  std::string ok = Bytes({0x10, 0x01});
  RleBitPackedDecoder d6(U8(ok), ok.size(), 33);
  EXPECT_TRUE(d6.Get(out, 1).IsCorruption());
  // Empty input.
  RleBitPackedDecoder d7(nullptr, 0, 1);
  EXPECT_TRUE(d7.Get(out, 1).IsCorruption());
  EXPECT_TRUE(d7.Get(out, 0).ok());
}

TEST(RleTest, HugeClaimedCounts) {
  // RLE run claiming 2^31-1 values: callers ask for what they need.
  std::string rle;
  AppendUleb(((uint64_t{1} << 31) - 1) << 1, &rle);
  rle.push_back(1);
  RleBitPackedDecoder d1(U8(rle), rle.size(), 1);
  std::vector<uint32_t> out(1000);
  ASSERT_TRUE(d1.Get(out.data(), out.size()).ok());
  EXPECT_EQ(out[999], 1u);
  // Bit-packed run claiming 2^31-1 groups over 3 bytes (24 values of width 1).
  std::string bp;
  AppendUleb((((uint64_t{1} << 31) - 1) << 1) | 1, &bp);
  bp += Bytes({0xFF, 0x00, 0xFF});
  RleBitPackedDecoder d2(U8(bp), bp.size(), 1);
  ASSERT_TRUE(d2.Get(out.data(), 24).ok());
  EXPECT_EQ(out[0], 1u);
  EXPECT_EQ(out[8], 0u);
  EXPECT_EQ(out[23], 1u);
  EXPECT_TRUE(d2.Get(out.data(), 1).IsCorruption());
}

TEST(RleTest, EncoderRunLayout) {
  // 64 groups of alternating bits: one 63-group run (header 0x7F) then a 1-group run (0x03).
  std::vector<uint32_t> v(64 * 8);
  for (size_t i = 0; i < v.size(); ++i) v[i] = i % 2;
  std::string enc = EncodeRle(1, v);
  ASSERT_EQ(enc.size(), 1u + 63 + 1 + 1);
  EXPECT_EQ(static_cast<uint8_t>(enc[0]), 0x7F);
  EXPECT_EQ(static_cast<uint8_t>(enc[64]), 0x03);
  // 8 repeats become an RLE run after a bit-packed group.
  std::vector<uint32_t> w = {1, 2, 3, 4, 5, 6, 7, 0, 5, 5, 5, 5, 5, 5, 5, 5};
  std::string e2 = EncodeRle(3, w);
  EXPECT_EQ(e2, Bytes({0x03, 0xD1, 0x58, 0x1F, 0x10, 0x05}));
  CheckRleDecode<uint32_t>(e2, 3, w, 16);
  // Encoder resets on Finish.
  RleBitPackedEncoder enc2(2);
  enc2.Put(3);
  std::string a = enc2.Finish();
  enc2.Put(3);
  EXPECT_EQ(enc2.Finish(), a);
}

// ---------------------------------------------------------------- BIT_PACKED (legacy)

std::string PackMsbFirst(const std::vector<uint32_t>& v, int w) {
  std::string out((v.size() * w + 7) / 8, '\0');
  size_t bit = 0;
  for (uint32_t x : v) {
    for (int b = w - 1; b >= 0; --b, ++bit) {
      if ((x >> b) & 1) out[bit / 8] = static_cast<char>(out[bit / 8] | (0x80 >> (bit % 8)));
    }
  }
  return out;
}

TEST(BitPackedLegacyEncodingTest, SpecExample) {
  std::string enc = Bytes({0x05, 0x39, 0x77});
  EXPECT_EQ(PackMsbFirst({0, 1, 2, 3, 4, 5, 6, 7}, 3), enc);
  int16_t out[8];
  size_t consumed = 0;
  ASSERT_TRUE(DecodeBitPackedLegacy(U8(enc), enc.size(), 3, 8, out, &consumed).ok());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], i);
  EXPECT_EQ(consumed, 3u);
}

TEST(BitPackedLegacyEncodingTest, RoundTripAndErrors) {
  std::mt19937_64 rng(5);
  for (int w = 0; w <= 15; ++w) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{9}, size_t{1000}}) {
      std::vector<uint32_t> v = RleValues(w, n, 0, rng);
      std::string enc = PackMsbFirst(v, w);
      std::vector<int16_t> out(n);
      size_t consumed = 0;
      ASSERT_TRUE(DecodeBitPackedLegacy(U8(enc), enc.size(), w, n, out.data(), &consumed).ok());
      EXPECT_EQ(consumed, enc.size());
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(static_cast<uint32_t>(out[i]), v[i]);
      if (!enc.empty()) {
        std::vector<uint8_t> cut(enc.begin(), enc.end() - 1);
        EXPECT_TRUE(DecodeBitPackedLegacy(cut.data(), cut.size(), w, n, out.data(), &consumed)
                        .IsCorruption());
      }
    }
  }
  std::string big = PackMsbFirst({0xFFFF}, 16);
  int16_t o;
  size_t c;
  EXPECT_TRUE(DecodeBitPackedLegacy(U8(big), big.size(), 16, 1, &o, &c).IsCorruption());
  EXPECT_TRUE(DecodeBitPackedLegacy(U8(big), big.size(), 33, 1, &o, &c).IsCorruption());
  EXPECT_TRUE(DecodeBitPackedLegacy(U8(big), big.size(), 1, SIZE_MAX, &o, &c).IsCorruption());
}

// ---------------------------------------------------------------- PLAIN

TEST(PlainEncodingTest, Fixed) {
  std::vector<int64_t> v = {1, -2, std::numeric_limits<int64_t>::min(), 42};
  std::string enc(reinterpret_cast<const char*>(v.data()), v.size() * 8);
  std::vector<int64_t> out(4);
  size_t consumed = 0;
  ASSERT_TRUE(
      DecodePlainFixed(U8(enc), enc.size(), 4, 8, reinterpret_cast<uint8_t*>(out.data()), &consumed)
          .ok());
  EXPECT_EQ(out, v);
  EXPECT_EQ(consumed, 32u);
  EXPECT_TRUE(DecodePlainFixed(U8(enc), enc.size() - 1, 4, 8,
                               reinterpret_cast<uint8_t*>(out.data()), &consumed)
                  .IsCorruption());
  EXPECT_TRUE(DecodePlainFixed(U8(enc), enc.size(), SIZE_MAX / 4, 8,
                               reinterpret_cast<uint8_t*>(out.data()), &consumed)
                  .IsCorruption());
  // INT96 / FLBA widths.
  uint8_t o12[24];
  EXPECT_TRUE(DecodePlainFixed(U8(enc), enc.size(), 2, 12, o12, &consumed).ok());
  EXPECT_EQ(consumed, 24u);
  EXPECT_EQ(std::memcmp(o12, enc.data(), 24), 0);
}

TEST(PlainEncodingTest, BooleanRoundTripWithOffsets) {
  std::mt19937_64 rng(9);
  for (size_t n : kSizes) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = rng() & 1;
    std::string enc;
    EncodePlainBoolean(v.data(), n, &enc);
    EXPECT_EQ(enc.size(), (n + 7) / 8);
    std::vector<uint8_t> out(n);
    ASSERT_TRUE(DecodePlainBoolean(U8(enc), enc.size(), 0, n, out.data()).ok());
    EXPECT_EQ(out, v);
    // In odd pieces.
    size_t off = 0;
    for (size_t i = 0; off < n; ++i) {
      size_t k = std::min(kBatches[i % 10], n - off);
      ASSERT_TRUE(DecodePlainBoolean(U8(enc), enc.size(), off, k, out.data() + off).ok());
      off += k;
    }
    EXPECT_EQ(out, v);
    EXPECT_TRUE(
        DecodePlainBoolean(U8(enc), enc.size(), 0, enc.size() * 8 + 1, out.data()).IsCorruption());
    EXPECT_TRUE(
        DecodePlainBoolean(U8(enc), enc.size(), enc.size() * 8 + 1, 0, out.data()).IsCorruption());
  }
  std::string one = Bytes({0x05});
  uint8_t o[8];
  EXPECT_TRUE(DecodePlainBoolean(U8(one), 1, 1, SIZE_MAX, o).IsCorruption());
}

Vector RandomStrings(size_t n, std::mt19937_64& rng, bool sorted = false) {
  std::vector<std::string> s(n);
  for (auto& x : s) {
    size_t len = rng() % 4 == 0 ? 0 : rng() % 24;
    for (size_t i = 0; i < len; ++i) x.push_back(static_cast<char>('a' + rng() % 4));
  }
  if (sorted) std::sort(s.begin(), s.end());
  Vector v(DataType::String());
  for (auto& x : s) v.AppendString(x);
  return v;
}

void ExpectSameStrings(const Vector& a, size_t a_off, const Vector& b, size_t n) {
  ASSERT_GE(a.size(), a_off + n);
  ASSERT_GE(b.size(), n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(a.GetString(a_off + i), b.GetString(i)) << i;
}

using ByteArrayDecodeFn = Status (*)(const uint8_t*, size_t, size_t, Vector*, size_t*);
using ByteArrayEncodeFn = void (*)(const Vector&, const uint32_t*, size_t, std::string*);

Status DecodeDba(const uint8_t* d, size_t l, size_t n, Vector* o, size_t* c) {
  return DecodeDeltaByteArray(d, l, n, o, c);
}

struct ByteArrayCodec {
  const char* name;
  ByteArrayEncodeFn encode;
  ByteArrayDecodeFn decode;
};
const ByteArrayCodec kByteArrayCodecs[] = {
    {"PLAIN", EncodePlainByteArray, DecodePlainByteArray},
    {"DELTA_LENGTH_BYTE_ARRAY", EncodeDeltaLengthByteArray, DecodeDeltaLengthByteArray},
    {"DELTA_BYTE_ARRAY", EncodeDeltaByteArray, DecodeDba},
};

TEST(ByteArrayEncodingTest, RoundTripsAllSizes) {
  std::mt19937_64 rng(11);
  for (const auto& codec : kByteArrayCodecs) {
    for (size_t n : kSizes) {
      for (bool sorted : {false, true}) {
        Vector in = RandomStrings(n, rng, sorted);
        std::string enc = "xyz";  // encoders append
        codec.encode(in, nullptr, n, &enc);
        enc += "trailing";
        Vector out(DataType::String());
        out.AppendString("previous page value");
        size_t consumed = 0;
        Status st = codec.decode(U8(enc) + 3, enc.size() - 3, n, &out, &consumed);
        ASSERT_TRUE(st.ok()) << codec.name << " n=" << n << " " << st.ToString();
        EXPECT_EQ(consumed, enc.size() - 3 - 8) << codec.name;
        ASSERT_EQ(out.size(), n + 1);
        EXPECT_EQ(out.GetString(0), "previous page value");
        ExpectSameStrings(out, 1, in, n);
      }
    }
  }
}

TEST(ByteArrayEncodingTest, SelectedRows) {
  Vector in(DataType::Binary());
  for (std::string s : {std::string("alpha"), std::string(), std::string("alphabet"),
                        std::string("beta"), std::string("\0\xff", 2)}) {
    in.AppendString(s);
  }
  const uint32_t rows[] = {4, 2, 0, 0, 1, 3};
  for (const auto& codec : kByteArrayCodecs) {
    std::string enc;
    codec.encode(in, rows, 6, &enc);
    Vector out(DataType::Binary());
    size_t consumed;
    ASSERT_TRUE(codec.decode(U8(enc), enc.size(), 6, &out, &consumed).ok()) << codec.name;
    ASSERT_EQ(out.size(), 6u);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(out.GetString(i), in.GetString(rows[i])) << codec.name;
  }
}

TEST(ByteArrayEncodingTest, EveryTruncationFailsAndRollsBack) {
  std::mt19937_64 rng(13);
  for (const auto& codec : kByteArrayCodecs) {
    Vector in = RandomStrings(200, rng, true);
    std::string enc;
    codec.encode(in, nullptr, in.size(), &enc);
    for (size_t cut = 0; cut < enc.size(); ++cut) {
      std::vector<uint8_t> buf(enc.begin(), enc.begin() + cut);
      Vector out(DataType::String());
      out.AppendString("keep");
      size_t consumed = 0;
      Status st = codec.decode(buf.data(), buf.size(), in.size(), &out, &consumed);
      if (st.ok()) {
        // Only the padding of a final miniblock of lengths may be missing, and only if no bytes
        // follow it: never for these encodings, whose data follows the lengths.
        ADD_FAILURE() << codec.name << " decoded a truncated buffer, cut=" << cut;
      } else {
        EXPECT_TRUE(st.IsCorruption()) << st.ToString();
      }
      ASSERT_EQ(out.size(), 1u);
      EXPECT_EQ(out.GetString(0), "keep");
      EXPECT_EQ(out.bytes().size(), 4u);
    }
  }
}

TEST(ByteArrayEncodingTest, HugeClaims) {
  Vector out(DataType::String());
  size_t consumed;
  // PLAIN length 0xFFFFFFFF with 3 bytes behind it.
  std::string plain = Bytes({0xFF, 0xFF, 0xFF, 0xFF, 'a', 'b', 'c'});
  EXPECT_TRUE(DecodePlainByteArray(U8(plain), plain.size(), 1, &out, &consumed).IsCorruption());
  // A huge count over a tiny input fails without allocating for the count.
  std::string one = Bytes({1, 0, 0, 0, 'a'});
  EXPECT_TRUE(
      DecodePlainByteArray(U8(one), one.size(), SIZE_MAX / 2, &out, &consumed).IsCorruption());
  EXPECT_EQ(out.size(), 0u);
  // DELTA_LENGTH_BYTE_ARRAY: lengths say 1 GB, data is 2 bytes.
  std::string dlba;
  int32_t len[1] = {1 << 30};
  EncodeDeltaBinaryPacked32(len, 1, &dlba);
  dlba += "ab";
  EXPECT_TRUE(DecodeDeltaLengthByteArray(U8(dlba), dlba.size(), 1, &out, &consumed).IsCorruption());
  // Fewer lengths than values.
  EXPECT_TRUE(DecodeDeltaLengthByteArray(U8(dlba), dlba.size(), 2, &out, &consumed).IsCorruption());
  // Negative length.
  std::string neg;
  int32_t nl[2] = {1, -1};
  EncodeDeltaBinaryPacked32(nl, 2, &neg);
  neg += "abc";
  EXPECT_TRUE(DecodeDeltaLengthByteArray(U8(neg), neg.size(), 2, &out, &consumed).IsCorruption());
  EXPECT_EQ(out.size(), 0u);
  EXPECT_TRUE(out.bytes().empty());
}

TEST(DeltaByteArrayTest, SpecExample) {
  Vector in(DataType::String());
  for (const char* s : {"axis", "axle", "babble", "babyhood"}) in.AppendString(s);
  std::string enc;
  EncodeDeltaByteArray(in, nullptr, 4, &enc);
  std::string expected;
  int32_t prefixes[] = {0, 2, 0, 3}, suffixes[] = {4, 2, 6, 5};
  EncodeDeltaBinaryPacked32(prefixes, 4, &expected);
  EncodeDeltaBinaryPacked32(suffixes, 4, &expected);
  expected += "axislebabbleyhood";
  EXPECT_EQ(enc, expected);
  Vector out(DataType::String());
  size_t consumed;
  ASSERT_TRUE(DecodeDeltaByteArray(U8(enc), enc.size(), 4, &out, &consumed).ok());
  EXPECT_EQ(consumed, enc.size());
  ExpectSameStrings(out, 0, in, 4);
  // Across batch boundaries (prefix chains longer than a batch).
  Vector many(DataType::String());
  std::string s = "prefix";
  for (int i = 0; i < 5000; ++i) {
    s[s.size() - 1] = static_cast<char>('a' + i % 26);
    if (i % 100 == 0) s += "x";
    many.AppendString(s);
  }
  std::string e2;
  EncodeDeltaByteArray(many, nullptr, many.size(), &e2);
  Vector o2(DataType::String());
  ASSERT_TRUE(DecodeDeltaByteArray(U8(e2), e2.size(), many.size(), &o2, &consumed).ok());
  ExpectSameStrings(o2, 0, many, many.size());
}

TEST(DeltaByteArrayTest, InvalidPrefixAndFixedLen) {
  std::string enc;
  int32_t prefixes[] = {0, 5}, suffixes[] = {2, 1};
  EncodeDeltaBinaryPacked32(prefixes, 2, &enc);
  EncodeDeltaBinaryPacked32(suffixes, 2, &enc);
  enc += "abc";
  Vector out(DataType::String());
  size_t consumed;
  EXPECT_TRUE(DecodeDeltaByteArray(U8(enc), enc.size(), 2, &out, &consumed).IsCorruption());
  EXPECT_EQ(out.size(), 0u);
  // The first value cannot have a prefix.
  std::string first;
  int32_t p1[] = {1}, s1[] = {1};
  EncodeDeltaBinaryPacked32(p1, 1, &first);
  EncodeDeltaBinaryPacked32(s1, 1, &first);
  first += "a";
  EXPECT_TRUE(DecodeDeltaByteArray(U8(first), first.size(), 1, &out, &consumed).IsCorruption());
  // FIXED_LEN_BYTE_ARRAY(4).
  Vector fl(DataType::Binary());
  for (const char* s : {"abcd", "abce", "xyzw"}) fl.AppendString(s);
  std::string e2;
  EncodeDeltaByteArray(fl, nullptr, 3, &e2);
  ASSERT_TRUE(DecodeDeltaByteArray(U8(e2), e2.size(), 3, &out, &consumed, 4).ok());
  ExpectSameStrings(out, 0, fl, 3);
  Vector out2(DataType::Binary());
  EXPECT_TRUE(DecodeDeltaByteArray(U8(e2), e2.size(), 3, &out2, &consumed, 5).IsCorruption());
  EXPECT_EQ(out2.size(), 0u);
}

// ---------------------------------------------------------------- DELTA_BINARY_PACKED

template <typename T>
std::string EncodeDeltaT(const std::vector<T>& v) {
  std::string out;
  if constexpr (sizeof(T) == 8) {
    EncodeDeltaBinaryPacked(v.data(), v.size(), &out);
  } else {
    EncodeDeltaBinaryPacked32(v.data(), v.size(), &out);
  }
  return out;
}

template <typename T>
std::vector<T> DeltaValues(size_t n, int pattern, std::mt19937_64& rng) {
  std::vector<T> v(n);
  const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  T cur = 0;
  for (size_t i = 0; i < n; ++i) {
    switch (pattern) {
      case 0:
        v[i] = static_cast<T>(rng());
        break;  // full range, wraps
      case 1:
        v[i] = static_cast<T>(static_cast<int64_t>(rng() % 2001) - 1000);
        break;
      case 2:
        cur = static_cast<T>(cur + static_cast<T>(rng() % 5));
        v[i] = cur;
        break;
      case 3:
        v[i] = i % 2 ? hi : lo;
        break;  // min/max deltas
      case 4:
        v[i] = 12345;
        break;  // constant
      case 5:
        v[i] = static_cast<T>(rng() >> (rng() % 64)) * (i % 3 ? 1 : -1);
        break;
    }
  }
  return v;
}

template <typename T>
void CheckDeltaDecode(const std::string& enc, const std::vector<T>& expected, size_t batch) {
  DeltaBinaryPackedDecoder dec;
  ASSERT_TRUE(dec.Init(U8(enc), enc.size()).ok());
  ASSERT_EQ(dec.total_values(), static_cast<int64_t>(expected.size()));
  std::vector<T> out(expected.size());
  for (size_t i = 0; i < expected.size();) {
    size_t k = std::min(batch, expected.size() - i);
    Status st = dec.Get(out.data() + i, k);
    ASSERT_TRUE(st.ok()) << st.ToString();
    i += k;
  }
  ASSERT_EQ(out, expected);
  T extra;
  EXPECT_TRUE(dec.Get(&extra, 1).IsCorruption());
  auto end = dec.SkipToEnd();
  ASSERT_TRUE(end.ok());
  EXPECT_EQ(*end, enc.size());
}

template <typename T>
void DeltaRoundTrips() {
  std::mt19937_64 rng(sizeof(T));
  for (size_t n : kSizes) {
    for (int pattern = 0; pattern < 6; ++pattern) {
      std::vector<T> v = DeltaValues<T>(n, pattern, rng);
      std::string enc = EncodeDeltaT(v);
      CheckDeltaDecode(enc, v, std::max<size_t>(n, 1));
      if (n <= 1000) {
        for (size_t b : kBatches) CheckDeltaDecode(enc, v, b);
      }
      // SkipToEnd from the start and after a partial read, with bytes following.
      std::string padded = enc + "tail";
      DeltaBinaryPackedDecoder d;
      ASSERT_TRUE(d.Init(U8(padded), padded.size()).ok());
      auto e = d.SkipToEnd();
      ASSERT_TRUE(e.ok());
      EXPECT_EQ(*e, enc.size());
      if (n > 3) {
        ASSERT_TRUE(d.Init(U8(padded), padded.size()).ok());
        std::vector<T> part(3);
        ASSERT_TRUE(d.Get(part.data(), 3).ok());
        EXPECT_EQ(part[2], v[2]);
        e = d.SkipToEnd();
        ASSERT_TRUE(e.ok());
        EXPECT_EQ(*e, enc.size());
      }
    }
  }
}

TEST(DeltaBinaryPackedTest, RoundTripInt64) { DeltaRoundTrips<int64_t>(); }
TEST(DeltaBinaryPackedTest, RoundTripInt32) { DeltaRoundTrips<int32_t>(); }

TEST(DeltaBinaryPackedTest, EveryMiniblockBitWidth) {
  std::mt19937_64 rng(23);
  for (int b = 0; b <= 64; ++b) {
    // Deltas of b random bits: the miniblocks get bit width b (the first delta sets the minimum).
    std::vector<int64_t> v(1 + 4 * 128 + 50);
    uint64_t cur = rng();
    for (auto& x : v) {
      x = static_cast<int64_t>(cur);
      cur += b == 0 ? 0 : (b == 64 ? rng() : rng() & ((uint64_t{1} << b) - 1));
    }
    std::string enc = EncodeDeltaT(v);
    for (size_t batch : {size_t{1}, size_t{31}, size_t{33}, v.size()})
      CheckDeltaDecode(enc, v, batch);
    if (b <= 32) {
      std::vector<int32_t> v32(v.size());
      for (size_t i = 0; i < v.size(); ++i) v32[i] = static_cast<int32_t>(v[i]);
      std::string e32 = EncodeDeltaT(v32);
      for (size_t batch : {size_t{7}, v.size()}) CheckDeltaDecode(e32, v32, batch);
    }
  }
}

TEST(DeltaBinaryPackedTest, SpecExample) {
  std::vector<int64_t> v = {7, 5, 3, 1, 2, 3, 4, 5};
  std::string enc = EncodeDeltaT(v);
  // Header 128, 4 miniblocks, 8 values, first 7 (zigzag 14); block: min delta -2 (zigzag 3),
  // widths 2 0 0 0, one 32-value miniblock of 2 bits: 0 0 0 3 | 3 3 3 (0...).
  std::string expected = Bytes(
      {0x80, 0x01, 0x04, 0x08, 0x0E, 0x03, 0x02, 0x00, 0x00, 0x00, 0xC0, 0x3F, 0, 0, 0, 0, 0, 0});
  EXPECT_EQ(enc, expected);
  CheckDeltaDecode(enc, v, 3);
  std::vector<int32_t> v32(v.begin(), v.end());
  EXPECT_EQ(EncodeDeltaT(v32), expected);
  // Example 1 with one miniblock of 128: 1 2 3 4 5 -> min delta 1, width 0, no data.
  std::string ex1 = Bytes({0x80, 0x01, 0x01, 0x05, 0x02, 0x02, 0x00});
  CheckDeltaDecode(ex1, std::vector<int64_t>{1, 2, 3, 4, 5}, 2);
}

TEST(DeltaBinaryPackedTest, HeaderValidation) {
  auto header = [](uint64_t block, uint64_t mini, uint64_t total) {
    std::string h;
    AppendUleb(block, &h);
    AppendUleb(mini, &h);
    AppendUleb(total, &h);
    AppendUleb(0, &h);
    return h;
  };
  DeltaBinaryPackedDecoder d;
  std::string h;
  h = header(8, 1, 5);
  EXPECT_TRUE(d.Init(U8(h), h.size()).IsCorruption());
  h = header(0, 1, 5);
  EXPECT_TRUE(d.Init(U8(h), h.size()).IsCorruption());
  h = header(128, 3, 5);
  EXPECT_TRUE(d.Init(U8(h), h.size()).IsCorruption());
  h = header(128, 8, 5);  // 16 values per miniblock
  EXPECT_TRUE(d.Init(U8(h), h.size()).IsCorruption());
  h = header(128, 0, 5);
  EXPECT_TRUE(d.Init(U8(h), h.size()).IsCorruption());
  h = header(256, 2, 5);
  EXPECT_TRUE(d.Init(U8(h), h.size()).ok());
  h = header(128, 1, 5);
  for (size_t cut = 0; cut < h.size(); ++cut) {
    std::vector<uint8_t> buf(h.begin(), h.begin() + cut);
    EXPECT_TRUE(d.Init(buf.data(), buf.size()).IsCorruption());
  }
  // 11-byte varint.
  std::string ovf = Bytes({0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01});
  EXPECT_TRUE(d.Init(U8(ovf), ovf.size()).IsCorruption());
  // Bit width 65.
  h = header(128, 4, 5);
  h += Bytes({0x00, 65, 0, 0, 0});
  h += std::string(600, '\0');
  ASSERT_TRUE(d.Init(U8(h), h.size()).ok());
  int64_t out[5];
  EXPECT_TRUE(d.Get(out, 5).IsCorruption());
  // Width 64 is fine even for int32 (arithmetic wraps).
  h = header(128, 4, 3);
  h += Bytes({0x00, 64, 0xFF, 0xFF, 0xFF});
  h += std::string(8, '\xff') + std::string("\x01\0\0\0\0\0\0\0", 8) + std::string(240, '\0');
  ASSERT_TRUE(d.Init(U8(h), h.size()).ok());
  int32_t o32[3];
  ASSERT_TRUE(d.Get(o32, 3).ok());
  EXPECT_EQ(o32[0], 0);
  EXPECT_EQ(o32[1], -1);
  EXPECT_EQ(o32[2], 0);
}

TEST(DeltaBinaryPackedTest, EveryTruncationFails) {
  std::mt19937_64 rng(17);
  // 321 values: 320 deltas fill the last miniblock exactly, so there is no padding to cut.
  std::vector<int64_t> v = DeltaValues<int64_t>(321, 5, rng);
  std::string enc = EncodeDeltaT(v);
  for (size_t cut = 0; cut < enc.size(); ++cut) {
    std::vector<uint8_t> buf(enc.begin(), enc.begin() + cut);
    DeltaBinaryPackedDecoder d;
    Status st = d.Init(buf.data(), buf.size());
    if (st.ok()) {
      std::vector<int64_t> out(v.size());
      st = d.Get(out.data(), out.size());
    }
    EXPECT_TRUE(st.IsCorruption()) << "cut=" << cut << " " << st.ToString();
    DeltaBinaryPackedDecoder s;
    if (s.Init(buf.data(), buf.size()).ok()) {
      EXPECT_FALSE(s.SkipToEnd().ok()) << cut;
    }
  }
  // A last miniblock whose padding is cut at the end of the input still decodes.
  std::vector<int64_t> w = DeltaValues<int64_t>(10, 0, rng);
  std::string e2 = EncodeDeltaT(w);
  // 9 deltas need 9*64 bits = 72 of the miniblock's 256 bytes.
  std::string cut = e2.substr(0, e2.size() - 256 + 72);
  CheckDeltaDecode(cut, w, 4);
  std::string cut2 = e2.substr(0, e2.size() - 256 + 71);
  DeltaBinaryPackedDecoder d;
  ASSERT_TRUE(d.Init(U8(cut2), cut2.size()).ok());
  std::vector<int64_t> out(10);
  EXPECT_TRUE(d.Get(out.data(), 10).IsCorruption());
}

TEST(DeltaBinaryPackedTest, HugeClaimedCounts) {
  // 2^62 values claimed, one block of 128 (width 0) present.
  std::string h;
  AppendUleb(128, &h);
  AppendUleb(4, &h);
  AppendUleb(uint64_t{1} << 62, &h);
  AppendUleb(ZigZag(-5), &h);
  AppendUleb(ZigZag(2), &h);
  h += Bytes({0, 0, 0, 0});
  DeltaBinaryPackedDecoder d;
  ASSERT_TRUE(d.Init(U8(h), h.size()).ok());
  std::vector<int64_t> out(200);
  ASSERT_TRUE(d.Get(out.data(), 129).ok());
  EXPECT_EQ(out[0], -5);
  EXPECT_EQ(out[128], -5 + 2 * 128);
  EXPECT_TRUE(d.Get(out.data(), 1).IsCorruption());
  ASSERT_TRUE(d.Init(U8(h), h.size()).ok());
  EXPECT_FALSE(d.SkipToEnd().ok());
  // Blocks of 2^31 values with width 0: skipping is arithmetic, not per value.
  std::string big;
  AppendUleb(uint64_t{1} << 31, &big);
  AppendUleb(1, &big);
  AppendUleb((uint64_t{1} << 33) + 1, &big);
  AppendUleb(0, &big);
  for (int b = 0; b < 4; ++b) big += Bytes({0x02, 0x00});  // min delta 1, width 0
  ASSERT_TRUE(d.Init(U8(big), big.size()).ok());
  auto end = d.SkipToEnd();
  ASSERT_TRUE(end.ok()) << end.status().ToString();
  EXPECT_EQ(*end, big.size());
  ASSERT_TRUE(d.Init(U8(big), big.size() - 2).ok());
  EXPECT_FALSE(d.SkipToEnd().ok());
  // Block size beyond 2^31 is refused.
  std::string huge;
  AppendUleb(uint64_t{1} << 40, &huge);
  AppendUleb(1, &huge);
  AppendUleb(1, &huge);
  AppendUleb(0, &huge);
  EXPECT_TRUE(d.Init(U8(huge), huge.size()).IsCorruption());
  // total_values beyond int64.
  std::string neg;
  AppendUleb(128, &neg);
  AppendUleb(4, &neg);
  AppendUleb(~uint64_t{0}, &neg);
  AppendUleb(0, &neg);
  EXPECT_TRUE(d.Init(U8(neg), neg.size()).IsCorruption());
}

TEST(DeltaBinaryPackedTest, UnneededMiniblockWidthsAreIgnored) {
  // 3 values: one miniblock needed; the other widths are garbage (200) and have no data.
  std::string h;
  AppendUleb(128, &h);
  AppendUleb(4, &h);
  AppendUleb(3, &h);
  AppendUleb(ZigZag(10), &h);
  AppendUleb(ZigZag(-1), &h);
  h += Bytes({1, 200, 200, 200});
  h += Bytes({0x02});         // relative deltas 0, 1
  h += std::string(3, '\0');  // rest of the 4-byte miniblock
  DeltaBinaryPackedDecoder d;
  ASSERT_TRUE(d.Init(U8(h), h.size()).ok());
  int64_t out[3];
  ASSERT_TRUE(d.Get(out, 3).ok());
  EXPECT_EQ(out[0], 10);
  EXPECT_EQ(out[1], 9);
  EXPECT_EQ(out[2], 9);
  ASSERT_TRUE(d.Init(U8(h), h.size()).ok());
  auto end = d.SkipToEnd();
  ASSERT_TRUE(end.ok());
  EXPECT_EQ(*end, h.size());
}

// ---------------------------------------------------------------- BYTE_STREAM_SPLIT

TEST(ByteStreamSplitEncodingTest, RoundTripsAndSpecExample) {
  std::string vals =
      Bytes({0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11, 0x22, 0x33, 0xA3, 0xB4, 0xC5, 0xD6});
  std::string enc;
  EncodeByteStreamSplit(U8(vals), 3, 4, &enc);
  EXPECT_EQ(enc, Bytes({0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4, 0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6}));
  std::mt19937_64 rng(19);
  for (int width : {1, 2, 3, 4, 8, 12, 16}) {
    for (size_t n : kSizes) {
      std::string in(n * width, '\0');
      for (auto& c : in) c = static_cast<char>(rng());
      std::string e;
      EncodeByteStreamSplit(U8(in), n, width, &e);
      ASSERT_EQ(e.size(), in.size());
      std::string out(in.size(), '\0');
      ASSERT_TRUE(
          DecodeByteStreamSplit(U8(e), e.size(), n, width, reinterpret_cast<uint8_t*>(out.data()))
              .ok());
      EXPECT_EQ(out, in) << width << " " << n;
      if (n > 1) {
        // First n-1 values only.
        std::string part((n - 1) * width, '\0');
        ASSERT_TRUE(DecodeByteStreamSplit(U8(e), e.size(), n - 1, width,
                                          reinterpret_cast<uint8_t*>(part.data()))
                        .ok());
        EXPECT_EQ(part, in.substr(0, part.size()));
      }
      if (width > 1 && n > 0) {
        EXPECT_TRUE(DecodeByteStreamSplit(U8(e), e.size() - 1, n, width,
                                          reinterpret_cast<uint8_t*>(out.data()))
                        .IsCorruption());
      }
      EXPECT_TRUE(DecodeByteStreamSplit(U8(e), e.size(), n + 1, width,
                                        reinterpret_cast<uint8_t*>(out.data()))
                      .IsCorruption());
    }
  }
}

}  // namespace
}  // namespace silt::parquet
