#include "parquet/compression.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <lz4.h>
#include <lz4frame.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstring>
#include <memory>

#include "common/ascii.h"
#include "common/error_classes.h"

namespace silt::parquet {

namespace {

const char* Name(CompressionCodec c) {
  switch (c) {
    case CompressionCodec::UNCOMPRESSED:
      return "UNCOMPRESSED";
    case CompressionCodec::SNAPPY:
      return "SNAPPY";
    case CompressionCodec::GZIP:
      return "GZIP";
    case CompressionCodec::LZO:
      return "LZO";
    case CompressionCodec::BROTLI:
      return "BROTLI";
    case CompressionCodec::LZ4:
      return "LZ4";
    case CompressionCodec::ZSTD:
      return "ZSTD";
    case CompressionCodec::LZ4_RAW:
      return "LZ4_RAW";
  }
  return "UNKNOWN";
}

Status Failed(CompressionCodec c, const std::string& what) {
  return Status::Corruption(std::string(Name(c)) + " page: " + what, errc::kSiltParquetCorrupt);
}

Status WrongSize(CompressionCodec c, size_t got, size_t expected) {
  return Failed(
      c, "decompressed to " + std::to_string(got) + " bytes, expected " + std::to_string(expected));
}

Status TooLarge(CompressionCodec c, size_t expected) {
  return Failed(c, "decompressed to more than the expected " + std::to_string(expected) + " bytes");
}

// zlib and others refuse null buffers even when empty.
uint8_t g_dummy;
inline uint8_t* NonNull(uint8_t* p) { return p ? p : &g_dummy; }
inline const uint8_t* NonNull(const uint8_t* p) { return p ? p : &g_dummy; }

Status DecompressSnappy(const uint8_t* in, size_t in_len, uint8_t* out, size_t out_len) {
  const auto c = CompressionCodec::SNAPPY;
  size_t claimed;
  const char* src = reinterpret_cast<const char*>(NonNull(in));
  if (snappy_uncompressed_length(src, in_len, &claimed) != SNAPPY_OK) {
    return Failed(c, "invalid snappy block");
  }
  if (claimed != out_len) return WrongSize(c, claimed, out_len);
  size_t got = out_len;
  if (snappy_uncompress(src, in_len, reinterpret_cast<char*>(NonNull(out)), &got) != SNAPPY_OK) {
    return Failed(c, "invalid snappy block");
  }
  if (got != out_len) return WrongSize(c, got, out_len);
  return Status::OK();
}

Status DecompressGzip(const uint8_t* in, size_t in_len, uint8_t* out, size_t out_len) {
  const auto c = CompressionCodec::GZIP;
  z_stream zs{};
  // 15 + 32: auto-detect gzip or zlib headers.
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return Status::OutOfMemory("inflateInit2 failed");
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, inflateEnd);
  zs.next_in = const_cast<Bytef*>(NonNull(in));
  zs.next_out = NonNull(out);
  // Feed at most UINT_MAX at a time (avail_* are uInt).
  size_t in_left = in_len, out_left = out_len;
  auto refill = [&] {
    const uInt ai = static_cast<uInt>(std::min<size_t>(in_left, UINT_MAX));
    const uInt ao = static_cast<uInt>(std::min<size_t>(out_left, UINT_MAX));
    in_left -= ai;
    out_left -= ao;
    zs.avail_in += ai;
    zs.avail_out += ao;
  };
  refill();
  while (true) {
    const int rc = inflate(&zs, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      refill();
      if (zs.avail_in == 0) break;
      // Another gzip member follows (concatenated members are one logical stream).
      if (inflateReset(&zs) != Z_OK) return Failed(c, "inflateReset failed");
      continue;
    }
    if (rc == Z_OK) {
      refill();
      continue;
    }
    if (rc == Z_BUF_ERROR) {
      // No progress possible: refill whichever side ran dry, or give up.
      if ((zs.avail_out == 0 && out_left > 0) || (zs.avail_in == 0 && in_left > 0)) {
        refill();
        continue;
      }
      if (zs.avail_out == 0) return TooLarge(c, out_len);
      return Failed(c, "truncated deflate stream");
    }
    return Failed(c,
                  std::string("invalid deflate data") + (zs.msg ? std::string(": ") + zs.msg : ""));
  }
  const size_t got = out_len - out_left - zs.avail_out;
  if (got != out_len) return WrongSize(c, got, out_len);
  return Status::OK();
}

Status DecompressBrotli(const uint8_t* in, size_t in_len, uint8_t* out, size_t out_len) {
  const auto c = CompressionCodec::BROTLI;
  std::unique_ptr<BrotliDecoderState, void (*)(BrotliDecoderState*)> dec(
      BrotliDecoderCreateInstance(nullptr, nullptr, nullptr), BrotliDecoderDestroyInstance);
  if (!dec) return Status::OutOfMemory("BrotliDecoderCreateInstance failed");
  size_t avail_in = in_len, avail_out = out_len;
  const uint8_t* next_in = NonNull(in);
  uint8_t* next_out = NonNull(out);
  const BrotliDecoderResult r =
      BrotliDecoderDecompressStream(dec.get(), &avail_in, &next_in, &avail_out, &next_out, nullptr);
  if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) return TooLarge(c, out_len);
  if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) return Failed(c, "truncated brotli stream");
  if (r != BROTLI_DECODER_RESULT_SUCCESS) {
    return Failed(c, BrotliDecoderErrorString(BrotliDecoderGetErrorCode(dec.get())));
  }
  if (avail_in != 0) return Failed(c, "trailing bytes after the brotli stream");
  if (avail_out != 0) return WrongSize(c, out_len - avail_out, out_len);
  return Status::OK();
}

// One raw LZ4 block into exactly out_len bytes.
bool Lz4Block(const uint8_t* in, size_t in_len, uint8_t* out, size_t out_len) {
  if (in_len > INT_MAX || out_len > INT_MAX) return false;
  const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(NonNull(in)),
                                      reinterpret_cast<char*>(NonNull(out)),
                                      static_cast<int>(in_len), static_cast<int>(out_len));
  return got >= 0 && static_cast<size_t>(got) == out_len;
}

inline uint32_t LoadBe32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// Hadoop's BlockCompressorStream framing: [BE uncompressed len][BE compressed len][block]...
bool Lz4Hadoop(const uint8_t* in, size_t in_len, uint8_t* out, size_t out_len) {
  if (in_len < 8) return false;
  size_t ip = 0, op = 0;
  while (ip < in_len) {
    if (in_len - ip < 8) return false;
    const uint32_t ulen = LoadBe32(in + ip);
    const uint32_t clen = LoadBe32(in + ip + 4);
    ip += 8;
    if (clen > in_len - ip || ulen > out_len - op) return false;
    if (!Lz4Block(in + ip, clen, out + op, ulen)) return false;
    ip += clen;
    op += ulen;
  }
  return op == out_len;
}

Status Lz4Frame(const uint8_t* in, size_t in_len, uint8_t* out, size_t out_len) {
  const auto c = CompressionCodec::LZ4;
  LZ4F_dctx* raw = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&raw, LZ4F_VERSION))) {
    return Status::OutOfMemory("LZ4F_createDecompressionContext failed");
  }
  std::unique_ptr<LZ4F_dctx, LZ4F_errorCode_t (*)(LZ4F_dctx*)> dctx(raw,
                                                                    LZ4F_freeDecompressionContext);
  size_t ip = 0, op = 0;
  size_t hint = 1;
  while (ip < in_len) {
    size_t src = in_len - ip, dst = out_len - op;
    hint = LZ4F_decompress(dctx.get(), NonNull(out) + op, &dst, in + ip, &src, nullptr);
    if (LZ4F_isError(hint)) return Failed(c, "not Hadoop-framed, a raw block or an LZ4 frame");
    ip += src;
    op += dst;
    if (src == 0 && dst == 0) {
      return op == out_len ? TooLarge(c, out_len) : Failed(c, "LZ4 frame makes no progress");
    }
    // hint == 0 with input left: another frame follows; the context is ready for it.
  }
  if (hint != 0) return op == out_len ? TooLarge(c, out_len) : Failed(c, "truncated LZ4 frame");
  if (op != out_len) return WrongSize(c, op, out_len);
  return Status::OK();
}

Status DecompressZstd(const uint8_t* in, size_t in_len, uint8_t* out, size_t out_len) {
  const auto c = CompressionCodec::ZSTD;
  const unsigned long long size = ZSTD_getFrameContentSize(NonNull(in), in_len);
  if (size == ZSTD_CONTENTSIZE_ERROR) return Failed(c, "invalid zstd frame");
  const size_t frame_len = ZSTD_findFrameCompressedSize(NonNull(in), in_len);
  if (ZSTD_isError(frame_len)) return Failed(c, ZSTD_getErrorName(frame_len));
  if (size != ZSTD_CONTENTSIZE_UNKNOWN && frame_len == in_len) {
    // One frame that states its size (the usual case).
    if (size != out_len) return WrongSize(c, static_cast<size_t>(size), out_len);
    const size_t got = ZSTD_decompress(NonNull(out), out_len, NonNull(in), in_len);
    if (ZSTD_isError(got)) return Failed(c, ZSTD_getErrorName(got));
    if (got != out_len) return WrongSize(c, got, out_len);
    return Status::OK();
  }
  // A frame without content size (streaming writers) or several frames: stream into out, never
  // beyond it.
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!dctx) return Status::OutOfMemory("ZSTD_createDCtx failed");
  ZSTD_inBuffer ib{NonNull(in), in_len, 0};
  ZSTD_outBuffer ob{NonNull(out), out_len, 0};
  size_t ret = 1;
  while (ib.pos < ib.size || ret != 0) {
    const size_t in_before = ib.pos, out_before = ob.pos;
    ret = ZSTD_decompressStream(dctx.get(), &ob, &ib);
    if (ZSTD_isError(ret)) return Failed(c, ZSTD_getErrorName(ret));
    if (ib.pos == in_before && ob.pos == out_before) {
      if (ob.pos == ob.size) return TooLarge(c, out_len);
      return Failed(c, "truncated zstd frame");
    }
  }
  if (ob.pos != out_len) return WrongSize(c, ob.pos, out_len);
  return Status::OK();
}

Status CheckLevel(CompressionCodec c, int level, int min, int max) {
  if (level < min || level > max) {
    return Status::InvalidArgument(std::string(Name(c)) + " compression level " +
                                   std::to_string(level) + " out of range [" + std::to_string(min) +
                                   ", " + std::to_string(max) + "]");
  }
  return Status::OK();
}

}  // namespace

Status CheckDecompressedSize(CompressionCodec codec, const uint8_t* in, size_t in_len,
                             size_t out_len) {
  if (in_len == 0 && out_len == 0) return Status::OK();
  // Largest expansion per input byte (plus a constant for headers): deflate 1032:1, LZ4 255:1, a
  // zstd RLE block 3 bytes + 1 for 128 KiB.
  auto at_most = [&](size_t ratio) -> Status {
    if (in_len > (SIZE_MAX - (1 << 20)) / ratio || out_len <= in_len * ratio + (1 << 20))
      return Status::OK();
    return Failed(codec, std::to_string(in_len) + " compressed bytes cannot hold the " +
                             std::to_string(out_len) + " bytes the page header claims");
  };
  switch (codec) {
    case CompressionCodec::UNCOMPRESSED:
      if (in_len != out_len) return WrongSize(codec, in_len, out_len);
      return Status::OK();
    case CompressionCodec::SNAPPY: {
      size_t claimed;
      if (snappy_uncompressed_length(reinterpret_cast<const char*>(NonNull(in)), in_len,
                                     &claimed) != SNAPPY_OK)
        return Failed(codec, "invalid snappy block");
      if (claimed != out_len) return WrongSize(codec, claimed, out_len);
      return Status::OK();
    }
    case CompressionCodec::GZIP:
      return at_most(1032);
    case CompressionCodec::LZ4:
    case CompressionCodec::LZ4_RAW:
      return at_most(255);
    case CompressionCodec::ZSTD: {
      const unsigned long long size = ZSTD_getFrameContentSize(NonNull(in), in_len);
      if (size == ZSTD_CONTENTSIZE_ERROR) return Failed(codec, "invalid zstd frame");
      const size_t frame_len = ZSTD_findFrameCompressedSize(NonNull(in), in_len);
      if (!ZSTD_isError(frame_len) && frame_len == in_len && size != ZSTD_CONTENTSIZE_UNKNOWN &&
          size != out_len)
        return WrongSize(codec, static_cast<size_t>(size), out_len);
      return at_most(1 << 15);
    }
    default:
      return Status::OK();
  }
}

Status Decompress(CompressionCodec codec, const uint8_t* in, size_t in_len, uint8_t* out,
                  size_t out_len) {
  // An empty page section (e.g. the values of an all-null v2 page) may be stored as 0 bytes.
  if (in_len == 0 && out_len == 0 && codec != CompressionCodec::LZO) return Status::OK();
  switch (codec) {
    case CompressionCodec::UNCOMPRESSED:
      if (in_len != out_len) return WrongSize(codec, in_len, out_len);
      if (in_len > 0) std::memcpy(out, in, in_len);
      return Status::OK();
    case CompressionCodec::SNAPPY:
      return DecompressSnappy(in, in_len, out, out_len);
    case CompressionCodec::GZIP:
      return DecompressGzip(in, in_len, out, out_len);
    case CompressionCodec::BROTLI:
      return DecompressBrotli(in, in_len, out, out_len);
    case CompressionCodec::ZSTD:
      return DecompressZstd(in, in_len, out, out_len);
    case CompressionCodec::LZ4_RAW:
      if (!Lz4Block(in, in_len, out, out_len)) {
        return Failed(codec,
                      "invalid LZ4 block or not exactly " + std::to_string(out_len) + " bytes");
      }
      return Status::OK();
    case CompressionCodec::LZ4:
      // Old parquet-cpp wrote a raw block or an LZ4 frame under this id; parquet-mr writes Hadoop.
      if (Lz4Hadoop(in, in_len, out, out_len)) return Status::OK();
      if (Lz4Block(in, in_len, out, out_len)) return Status::OK();
      return Lz4Frame(in, in_len, out, out_len);
    case CompressionCodec::LZO:
      return Status::NotImplemented("LZO-compressed Parquet pages are not supported");
  }
  return Status::NotImplemented("unknown Parquet compression codec " +
                                std::to_string(static_cast<int>(codec)));
}

Status Compress(CompressionCodec codec, const uint8_t* in, size_t in_len, std::string* out,
                int level) {
  const size_t start = out->size();
  switch (codec) {
    case CompressionCodec::UNCOMPRESSED:
      out->append(reinterpret_cast<const char*>(in), in_len);
      return Status::OK();
    case CompressionCodec::SNAPPY: {
      size_t cap = snappy_max_compressed_length(in_len);
      out->resize(start + cap);
      if (snappy_compress(reinterpret_cast<const char*>(NonNull(in)), in_len, out->data() + start,
                          &cap) != SNAPPY_OK) {
        out->resize(start);
        return Status::Internal("snappy_compress failed");
      }
      out->resize(start + cap);
      return Status::OK();
    }
    case CompressionCodec::GZIP: {
      if (level < 0) level = 6;
      SILT_RETURN_NOT_OK(CheckLevel(codec, level, 0, 9));
      z_stream zs{};
      // 15 + 16: a gzip header and trailer (what parquet-mr's GzipCodec writes).
      if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        return Status::OutOfMemory("deflateInit2 failed");
      }
      std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, deflateEnd);
      zs.next_in = const_cast<Bytef*>(NonNull(in));
      size_t in_left = in_len;
      int rc = Z_OK;
      while (rc != Z_STREAM_END) {
        const uInt ai = static_cast<uInt>(std::min<size_t>(in_left, UINT_MAX));
        zs.avail_in += ai;
        in_left -= ai;
        const size_t chunk = std::max<size_t>(deflateBound(&zs, zs.avail_in), 64);
        const size_t pos = out->size();
        out->resize(pos + chunk);
        zs.next_out = reinterpret_cast<Bytef*>(out->data() + pos);
        zs.avail_out = static_cast<uInt>(std::min<size_t>(chunk, UINT_MAX));
        rc = deflate(&zs, in_left == 0 ? Z_FINISH : Z_NO_FLUSH);
        out->resize(out->size() - zs.avail_out);
        if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
          out->resize(start);
          return Status::Internal("deflate failed");
        }
      }
      return Status::OK();
    }
    case CompressionCodec::BROTLI: {
      if (level < 0) level = 5;
      SILT_RETURN_NOT_OK(CheckLevel(codec, level, BROTLI_MIN_QUALITY, BROTLI_MAX_QUALITY));
      size_t cap = BrotliEncoderMaxCompressedSize(in_len);
      if (cap == 0) cap = in_len + (in_len >> 2) + 1024;  // 0 = "too large to bound"
      out->resize(start + cap);
      if (!BrotliEncoderCompress(level, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, in_len,
                                 NonNull(in), &cap,
                                 reinterpret_cast<uint8_t*>(out->data() + start))) {
        out->resize(start);
        return Status::Internal("BrotliEncoderCompress failed");
      }
      out->resize(start + cap);
      return Status::OK();
    }
    case CompressionCodec::ZSTD: {
      if (level < 0) level = 3;
      SILT_RETURN_NOT_OK(CheckLevel(codec, level, 0, ZSTD_maxCLevel()));
      const size_t cap = ZSTD_compressBound(in_len);
      out->resize(start + cap);
      const size_t got = ZSTD_compress(out->data() + start, cap, NonNull(in), in_len, level);
      if (ZSTD_isError(got)) {
        out->resize(start);
        return Status::Internal(std::string("ZSTD_compress failed: ") + ZSTD_getErrorName(got));
      }
      out->resize(start + got);
      return Status::OK();
    }
    case CompressionCodec::LZ4_RAW: {
      if (in_len > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
        return Status::InvalidArgument("page too large for LZ4");
      }
      const int cap = LZ4_compressBound(static_cast<int>(in_len));
      out->resize(start + static_cast<size_t>(cap));
      const int got = LZ4_compress_default(reinterpret_cast<const char*>(NonNull(in)),
                                           out->data() + start, static_cast<int>(in_len), cap);
      if (got <= 0) {
        out->resize(start);
        return Status::Internal("LZ4_compress_default failed");
      }
      out->resize(start + static_cast<size_t>(got));
      return Status::OK();
    }
    case CompressionCodec::LZ4:
      return Status::NotImplemented(
          "writing the deprecated LZ4 codec is not supported (its framing is ambiguous); use "
          "LZ4_RAW");
    case CompressionCodec::LZO:
      return Status::NotImplemented("writing LZO-compressed Parquet is not supported");
  }
  return Status::NotImplemented("unknown Parquet compression codec " +
                                std::to_string(static_cast<int>(codec)));
}

Result<CompressionCodec> ParseCodecName(const std::string& name) {
  std::string s = AsciiLower(name);
  if (s == "none" || s == "uncompressed") return CompressionCodec::UNCOMPRESSED;
  if (s == "snappy") return CompressionCodec::SNAPPY;
  if (s == "gzip") return CompressionCodec::GZIP;
  if (s == "lzo") return CompressionCodec::LZO;
  if (s == "brotli") return CompressionCodec::BROTLI;
  if (s == "lz4") return CompressionCodec::LZ4;
  if (s == "zstd") return CompressionCodec::ZSTD;
  // Spark 3.4 spelled it "lz4raw"; 3.5 renamed it "lz4_raw".
  if (s == "lz4_raw" || s == "lz4raw") return CompressionCodec::LZ4_RAW;
  return Status::InvalidArgument("unknown compression codec '" + name +
                                 "' (expected none, uncompressed, snappy, gzip, lzo, brotli, lz4, "
                                 "lz4_raw or zstd)");
}

}  // namespace silt::parquet
