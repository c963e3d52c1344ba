// Page compression codecs (CompressionCodec in parquet.thrift), one place for all of them.
// Each page is compressed on its own; decompression knows the exact output size from the page
// header, and fails with Corruption when the compressed bytes do not produce exactly that many.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/status.h"
#include "parquet/metadata.h"

namespace silt::parquet {

// UNCOMPRESSED, SNAPPY (raw block), GZIP (gzip/zlib members, concatenated members too), BROTLI,
// LZ4 (deprecated id: Hadoop framing, falling back to a raw block then an LZ4 frame), ZSTD
// (frames, with or without content size), LZ4_RAW (one raw block). LZO → NotImplemented.
// Empty input with out_len 0 is accepted for every codec (writers may store an empty section so).
Status Decompress(CompressionCodec codec, const uint8_t* in, size_t in_len, uint8_t* out,
                  size_t out_len);

// Whether `in_len` bytes of `codec` can decompress to `out_len` bytes, judged before anything is
// allocated for them: the size a snappy block or zstd frame states must match, and GZIP, LZ4 and
// ZSTD without a stated size cannot exceed their codec's maximum expansion (BROTLI: no bound).
// A page header claiming more is Corruption (SILT_PARQUET_CORRUPT).
Status CheckDecompressedSize(CompressionCodec codec, const uint8_t* in, size_t in_len,
                             size_t out_len);

// Appends the compressed form of [in, in+in_len) to *out. level < 0 = the codec's default
// (ZSTD 3, GZIP 6, BROTLI 5). Writing LZ4 (deprecated) or LZO is refused (NotImplemented).
Status Compress(CompressionCodec codec, const uint8_t* in, size_t in_len, std::string* out,
                int level = -1);

// Parses a codec name as Spark spells it (none/uncompressed, snappy, gzip, zstd, lz4_raw, lz4,
// brotli), case-insensitively.
Result<CompressionCodec> ParseCodecName(const std::string& name);

}  // namespace silt::parquet
