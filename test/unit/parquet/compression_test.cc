#include "parquet/compression.h"

#include <gtest/gtest.h>
#include <lz4.h>
#include <lz4frame.h>
#include <zlib.h>
#include <zstd.h>

#include <random>
#include <string>
#include <vector>

namespace silt::parquet {
namespace {

using C = CompressionCodec;
const C kWritable[] = {C::UNCOMPRESSED, C::SNAPPY, C::GZIP, C::BROTLI, C::ZSTD, C::LZ4_RAW};
const C kCompressed[] = {C::SNAPPY, C::GZIP, C::BROTLI, C::ZSTD, C::LZ4_RAW, C::LZ4};

const uint8_t* U8(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

std::string RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

std::string Compressible(size_t n) {
  std::string s;
  std::mt19937_64 rng(1);
  while (s.size() < n) {
    s += "delta lake row " + std::to_string(rng() % 1000) + ", ";
  }
  s.resize(n);
  return s;
}

std::string MustCompress(C codec, const std::string& in, int level = -1) {
  std::string out = "prefix";
  Status st = Compress(codec, U8(in), in.size(), &out, level);
  EXPECT_TRUE(st.ok()) << static_cast<int>(codec) << " " << st.ToString();
  EXPECT_EQ(out.substr(0, 6), "prefix");
  return out.substr(6);
}

// Decompresses into an exact-size heap buffer so ASan catches writes past out_len.
Status DecompressTo(C codec, const std::string& in, size_t out_len, std::string* result) {
  std::vector<uint8_t> in_buf(in.begin(), in.end());
  std::unique_ptr<uint8_t[]> out(new uint8_t[out_len == 0 ? 1 : out_len]);
  Status st = Decompress(codec, in_buf.empty() ? nullptr : in_buf.data(), in_buf.size(),
                         out_len == 0 ? nullptr : out.get(), out_len);
  if (st.ok()) result->assign(reinterpret_cast<char*>(out.get()), out_len);
  return st;
}

TEST(CompressionTest, RoundTripEveryCodec) {
  const std::vector<std::string> inputs = {"", "x", RandomBytes(1 << 20, 2), Compressible(1 << 20),
                                           RandomBytes(1000, 3)};
  for (C codec : kWritable) {
    for (const std::string& in : inputs) {
      std::string comp = MustCompress(codec, in);
      if (codec != C::UNCOMPRESSED && in.size() == (1 << 20) && in[0] == 'd') {
        EXPECT_LT(comp.size(), in.size() / 4) << static_cast<int>(codec);
      }
      std::string out;
      Status st = DecompressTo(codec, comp, in.size(), &out);
      ASSERT_TRUE(st.ok()) << static_cast<int>(codec) << " " << in.size() << " " << st.ToString();
      EXPECT_EQ(out, in) << static_cast<int>(codec);
      // Wrong expected sizes.
      std::string ignored;
      Status bigger = DecompressTo(codec, comp, in.size() + 1, &ignored);
      EXPECT_TRUE(bigger.IsCorruption()) << static_cast<int>(codec) << " " << bigger.ToString();
      if (!in.empty()) {
        Status smaller = DecompressTo(codec, comp, in.size() - 1, &ignored);
        EXPECT_TRUE(smaller.IsCorruption()) << static_cast<int>(codec) << " " << smaller.ToString();
      }
    }
  }
}

TEST(CompressionTest, WrongSizeMessage) {
  std::string comp = MustCompress(C::ZSTD, "hello world");
  std::string out;
  Status st = DecompressTo(C::ZSTD, comp, 20, &out);
  ASSERT_TRUE(st.IsCorruption());
  EXPECT_NE(st.message().find("decompressed to 11 bytes, expected 20"), std::string::npos)
      << st.ToString();
}

TEST(CompressionTest, Levels) {
  const std::string in = Compressible(100000);
  for (int level : {0, 1, 9}) {
    std::string out;
    ASSERT_TRUE(DecompressTo(C::GZIP, MustCompress(C::GZIP, in, level), in.size(), &out).ok());
    EXPECT_EQ(out, in);
  }
  for (int level : {1, 11}) {
    std::string out;
    ASSERT_TRUE(DecompressTo(C::BROTLI, MustCompress(C::BROTLI, in, level), in.size(), &out).ok());
    EXPECT_EQ(out, in);
  }
  for (int level : {1, 19}) {
    std::string out;
    ASSERT_TRUE(DecompressTo(C::ZSTD, MustCompress(C::ZSTD, in, level), in.size(), &out).ok());
    EXPECT_EQ(out, in);
  }
  std::string out;
  EXPECT_EQ(Compress(C::GZIP, U8(in), in.size(), &out, 10).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Compress(C::BROTLI, U8(in), in.size(), &out, 12).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Compress(C::ZSTD, U8(in), in.size(), &out, 99).code(), StatusCode::kInvalidArgument);
}

TEST(CompressionTest, GarbageAndTruncationAreCorruption) {
  const std::string in = Compressible(50000);
  for (C codec : kCompressed) {
    for (uint64_t seed = 0; seed < 20; ++seed) {
      std::string garbage = RandomBytes(1 + seed * 37, seed);
      std::string out;
      Status st = DecompressTo(codec, garbage, in.size(), &out);
      EXPECT_TRUE(st.IsCorruption())
          << static_cast<int>(codec) << " seed " << seed << " " << st.ToString();
    }
    std::string zeros(100, '\0');
    std::string out;
    EXPECT_TRUE(DecompressTo(codec, zeros, 100, &out).IsCorruption()) << static_cast<int>(codec);
    // Every codec's data, truncated, is Corruption (LZ4 from a raw block).
    const C writer = codec == C::LZ4 ? C::LZ4_RAW : codec;
    std::string comp = MustCompress(writer, in);
    for (size_t cut : {size_t{0}, size_t{1}, comp.size() / 2, comp.size() - 1}) {
      Status st = DecompressTo(codec, comp.substr(0, cut), in.size(), &out);
      EXPECT_TRUE(st.IsCorruption())
          << static_cast<int>(codec) << " cut " << cut << " " << st.ToString();
    }
  }
  // Uncompressed: the sizes must agree.
  std::string out;
  EXPECT_TRUE(DecompressTo(C::UNCOMPRESSED, "abc", 4, &out).IsCorruption());
}

TEST(CompressionTest, EveryTruncationIsCorruption) {
  const std::string in = Compressible(3000) + RandomBytes(500, 4);
  for (C codec : kCompressed) {
    const C writer = codec == C::LZ4 ? C::LZ4_RAW : codec;
    std::string comp = MustCompress(writer, in);
    for (size_t cut = 0; cut < comp.size(); ++cut) {
      std::string out;
      Status st = DecompressTo(codec, comp.substr(0, cut), in.size(), &out);
      EXPECT_TRUE(st.IsCorruption()) << static_cast<int>(codec) << " cut " << cut;
    }
  }
}

TEST(CompressionTest, EmptySectionStoredAsZeroBytes) {
  for (C codec : kCompressed) {
    std::string out;
    EXPECT_TRUE(DecompressTo(codec, "", 0, &out).ok()) << static_cast<int>(codec);
    EXPECT_TRUE(DecompressTo(codec, "", 10, &out).IsCorruption()) << static_cast<int>(codec);
  }
}

TEST(CompressionTest, GzipConcatenatedMembersAndZlib) {
  std::string a = MustCompress(C::GZIP, "hello ");
  std::string b = MustCompress(C::GZIP, "world");
  std::string out;
  ASSERT_TRUE(DecompressTo(C::GZIP, a + b, 11, &out).ok());
  EXPECT_EQ(out, "hello world");
  EXPECT_TRUE(DecompressTo(C::GZIP, a + b, 6, &out).IsCorruption());
  EXPECT_TRUE(DecompressTo(C::GZIP, a + b + "junk", 11, &out).IsCorruption());
  // zlib-wrapped deflate (some old writers) is auto-detected.
  const std::string in = Compressible(10000);
  uLongf len = compressBound(in.size());
  std::string z(len, '\0');
  ASSERT_EQ(compress2(reinterpret_cast<Bytef*>(z.data()), &len, U8(in), in.size(), 6), Z_OK);
  z.resize(len);
  ASSERT_TRUE(DecompressTo(C::GZIP, z, in.size(), &out).ok());
  EXPECT_EQ(out, in);
}

std::string Lz4RawBlock(const std::string& in) {
  std::string out(LZ4_compressBound(static_cast<int>(in.size())), '\0');
  int n = LZ4_compress_default(in.data(), out.data(), static_cast<int>(in.size()),
                               static_cast<int>(out.size()));
  out.resize(n);
  return out;
}

void PutBe32(uint32_t v, std::string* out) {
  for (int s = 24; s >= 0; s -= 8) out->push_back(static_cast<char>((v >> s) & 0xFF));
}

TEST(CompressionTest, Lz4HadoopFramingRawBlockAndFrame) {
  const std::string in = Compressible(300000) + RandomBytes(5000, 9);
  // Hadoop framing: [BE uncompressed][BE compressed][block] per 128 KiB chunk.
  std::string hadoop;
  for (size_t off = 0; off < in.size(); off += 128 * 1024) {
    std::string chunk = in.substr(off, 128 * 1024);
    std::string block = Lz4RawBlock(chunk);
    PutBe32(static_cast<uint32_t>(chunk.size()), &hadoop);
    PutBe32(static_cast<uint32_t>(block.size()), &hadoop);
    hadoop += block;
  }
  std::string out;
  ASSERT_TRUE(DecompressTo(C::LZ4, hadoop, in.size(), &out).ok());
  EXPECT_EQ(out, in);
  EXPECT_TRUE(DecompressTo(C::LZ4, hadoop, in.size() + 1, &out).IsCorruption());
  EXPECT_TRUE(DecompressTo(C::LZ4, hadoop, in.size() - 1, &out).IsCorruption());
  EXPECT_TRUE(
      DecompressTo(C::LZ4, hadoop.substr(0, hadoop.size() - 1), in.size(), &out).IsCorruption());
  // Old parquet-cpp: a raw block under the LZ4 id.
  ASSERT_TRUE(DecompressTo(C::LZ4, Lz4RawBlock(in), in.size(), &out).ok());
  EXPECT_EQ(out, in);
  // ...or an LZ4 frame (two concatenated, one without content size).
  auto frame = [](const std::string& s, bool content_size) {
    LZ4F_preferences_t prefs{};
    prefs.frameInfo.contentSize = content_size ? s.size() : 0;
    std::string f(LZ4F_compressFrameBound(s.size(), &prefs), '\0');
    size_t n = LZ4F_compressFrame(f.data(), f.size(), s.data(), s.size(), &prefs);
    EXPECT_FALSE(LZ4F_isError(n));
    f.resize(n);
    return f;
  };
  std::string frames = frame(in.substr(0, 1000), true) + frame(in.substr(1000), false);
  ASSERT_TRUE(DecompressTo(C::LZ4, frames, in.size(), &out).ok());
  EXPECT_EQ(out, in);
  EXPECT_TRUE(DecompressTo(C::LZ4, frames, in.size() - 1, &out).IsCorruption());
  EXPECT_TRUE(DecompressTo(C::LZ4, frames, in.size() + 1, &out).IsCorruption());
  // LZ4_RAW does not accept the Hadoop framing.
  EXPECT_TRUE(DecompressTo(C::LZ4_RAW, hadoop, in.size(), &out).IsCorruption());
}

TEST(CompressionTest, ZstdWithoutContentSizeAndMultipleFrames) {
  const std::string in = Compressible(200000);
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
  std::string comp(ZSTD_compressBound(in.size()), '\0');
  ZSTD_outBuffer ob{comp.data(), comp.size(), 0};
  ZSTD_inBuffer ib{in.data(), in.size(), 0};
  size_t rem = ZSTD_compressStream2(cctx, &ob, &ib, ZSTD_e_end);
  ASSERT_EQ(rem, 0u);
  ZSTD_freeCCtx(cctx);
  comp.resize(ob.pos);
  ASSERT_EQ(ZSTD_getFrameContentSize(comp.data(), comp.size()), ZSTD_CONTENTSIZE_UNKNOWN);
  std::string out;
  ASSERT_TRUE(DecompressTo(C::ZSTD, comp, in.size(), &out).ok());
  EXPECT_EQ(out, in);
  EXPECT_TRUE(DecompressTo(C::ZSTD, comp, in.size() - 1, &out).IsCorruption());
  EXPECT_TRUE(DecompressTo(C::ZSTD, comp, in.size() + 1, &out).IsCorruption());
  EXPECT_TRUE(
      DecompressTo(C::ZSTD, comp.substr(0, comp.size() - 3), in.size(), &out).IsCorruption());
  // Two frames with sizes.
  std::string two = MustCompress(C::ZSTD, "abc") + MustCompress(C::ZSTD, "defg");
  ASSERT_TRUE(DecompressTo(C::ZSTD, two, 7, &out).ok());
  EXPECT_EQ(out, "abcdefg");
  EXPECT_TRUE(DecompressTo(C::ZSTD, two, 6, &out).IsCorruption());
  EXPECT_TRUE(DecompressTo(C::ZSTD, two, 3, &out).IsCorruption());
}

TEST(CompressionTest, SnappyClaimingMoreThanExpected) {
  std::string comp = MustCompress(C::SNAPPY, Compressible(5000));
  std::string out;
  Status st = DecompressTo(C::SNAPPY, comp, 4000, &out);
  ASSERT_TRUE(st.IsCorruption());
  EXPECT_NE(st.message().find("decompressed to 5000 bytes, expected 4000"), std::string::npos);
  // A varint length alone, claiming 2^32-1 bytes.
  std::string liar = "\xff\xff\xff\xff\x0f";
  EXPECT_TRUE(DecompressTo(C::SNAPPY, liar, 10, &out).IsCorruption());
}

TEST(CompressionTest, UnsupportedCodecs) {
  std::string out;
  const uint8_t b[1] = {0};
  EXPECT_EQ(Compress(C::LZ4, b, 1, &out).code(), StatusCode::kNotImplemented);
  EXPECT_EQ(Compress(C::LZO, b, 1, &out).code(), StatusCode::kNotImplemented);
  EXPECT_TRUE(out.empty());
  uint8_t o[1];
  EXPECT_EQ(Decompress(C::LZO, b, 1, o, 1).code(), StatusCode::kNotImplemented);
  EXPECT_EQ(Decompress(static_cast<C>(42), b, 1, o, 1).code(), StatusCode::kNotImplemented);
}

TEST(CompressionTest, ParseCodecName) {
  EXPECT_EQ(*ParseCodecName("none"), C::UNCOMPRESSED);
  EXPECT_EQ(*ParseCodecName("Uncompressed"), C::UNCOMPRESSED);
  EXPECT_EQ(*ParseCodecName("SNAPPY"), C::SNAPPY);
  EXPECT_EQ(*ParseCodecName("gzip"), C::GZIP);
  EXPECT_EQ(*ParseCodecName("zstd"), C::ZSTD);
  EXPECT_EQ(*ParseCodecName("lz4_raw"), C::LZ4_RAW);
  EXPECT_EQ(*ParseCodecName("LZ4RAW"), C::LZ4_RAW);
  EXPECT_EQ(*ParseCodecName("lz4"), C::LZ4);
  EXPECT_EQ(*ParseCodecName("brotli"), C::BROTLI);
  EXPECT_EQ(*ParseCodecName("lzo"), C::LZO);
  auto bad = ParseCodecName("zip");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace silt::parquet
