// Parquet value and level encodings (Encodings.md of apache/parquet-format), as free functions and
// small classes over raw bytes. Decoders never read past [data, data+len): truncated or malformed
// input returns Corruption; output sizes are bounded by the caller-supplied counts, so a lying
// header cannot make them allocate without bound (callers check counts against page sizes).
//
// Decoders produce *dense* values (nulls are not represented here; the column reader spreads
// values using definition levels).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "vector/vector.h"

namespace silt::parquet {

// Bits needed to represent max_value (0 for 0).
int BitWidth(uint64_t max_value);

// ---------------------------------------------------------------- RLE / bit-packed hybrid
// Reads the hybrid format (no length prefix: callers strip the v1 4-byte prefix).
class RleBitPackedDecoder {
 public:
  RleBitPackedDecoder() = default;
  RleBitPackedDecoder(const uint8_t* data, size_t len, int bit_width) {
    Reset(data, len, bit_width);
  }
  void Reset(const uint8_t* data, size_t len, int bit_width);
  // Decodes exactly n values (T = uint8_t, int16_t, uint16_t or uint32_t). Corruption when the
  // input ends first or a value does not fit T. Runs may continue across calls.
  template <typename T>
  Status Get(T* out, size_t n);
  // Bytes consumed so far (meaningful once the runs needed have been read).
  size_t position() const { return pos_; }

 private:
  Status NextRun();
  template <typename T>
  Status GetPacked(T* out, size_t n);
  const uint8_t* data_ = nullptr;
  size_t len_ = 0;
  size_t pos_ = 0;
  int bit_width_ = 0;
  // current run
  bool rle_ = true;
  uint64_t run_left_ = 0;  // values left in the run (for bit-packed: those present in the input)
  uint32_t rle_value_ = 0;
  const uint8_t* packed_ = nullptr;  // start of the bit-packed run
  uint64_t packed_index_ = 0;        // next value index within the packed run
  uint32_t group_[8] = {};  // the group of 8 that packed_index_ is inside of (if unaligned)
};

// Writes the hybrid format (no length prefix). Emits RLE runs for >= 8 repeats, bit-packed groups
// of 8 otherwise (as parquet-mr does).
class RleBitPackedEncoder {
 public:
  explicit RleBitPackedEncoder(int bit_width) : bit_width_(bit_width) {}
  void Put(uint32_t value);
  // The same as Put for each value, a group of 8 at a time where it can.
  void PutMany(const uint32_t* values, size_t n);
  // The same as Put(value) `count` times.
  void PutRun(uint32_t value, size_t count);
  // Flushes pending values and returns the bytes; the encoder is reset for reuse.
  std::string Finish();
  int bit_width() const { return bit_width_; }

 private:
  // Put flushes an RLE run when its count reaches this (parquet-mr's counts are ints).
  static constexpr uint64_t kMaxRepeat = (uint64_t{1} << 31) - 1;
  void WriteRleRun();
  void WriteOrAppendBitPackedRun();
  void EndBitPackedRun();
  int bit_width_;
  std::string out_;
  uint32_t buffered_[8];
  int num_buffered_ = 0;
  uint32_t previous_ = 0;
  uint64_t repeat_count_ = 0;
  size_t bit_packed_header_pos_ = std::string::npos;  // open bit-packed run header
  uint64_t bit_packed_groups_ = 0;
};

// Old BIT_PACKED level encoding (MSB-first, no header): decodes exactly n values of bit_width.
Status DecodeBitPackedLegacy(const uint8_t* data, size_t len, int bit_width, size_t n, int16_t* out,
                             size_t* consumed);

// ---------------------------------------------------------------- PLAIN
// Fixed-width values (INT32/INT64/INT96/FLOAT/DOUBLE/FLBA): copies n*width bytes.
Status DecodePlainFixed(const uint8_t* data, size_t len, size_t n, int width, uint8_t* out,
                        size_t* consumed);
// BOOLEAN: bit-packed LSB first; bit_offset is the index of the first bit to read (pages may be
// decoded in several calls). out gets 0/1 bytes.
Status DecodePlainBoolean(const uint8_t* data, size_t len, size_t bit_offset, size_t n,
                          uint8_t* out);
// BYTE_ARRAY: 4-byte LE length + bytes each; appends n values to *out (string/binary Vector).
Status DecodePlainByteArray(const uint8_t* data, size_t len, size_t n, Vector* out,
                            size_t* consumed);
void EncodePlainBoolean(const uint8_t* values, size_t n, std::string* out);
// Byte-array encoders take the rows rows[0..n) of a string/binary Vector (rows == nullptr: rows
// 0..n-1) and append to *out.
void EncodePlainByteArray(const Vector& strings, const uint32_t* rows, size_t n, std::string* out);

// ---------------------------------------------------------------- DELTA_BINARY_PACKED
class DeltaBinaryPackedDecoder {
 public:
  // Reads the header. Corruption on malformed header (block size not a multiple of 128, miniblock
  // count not dividing it, ...).
  Status Init(const uint8_t* data, size_t len);
  int64_t total_values() const { return total_values_; }
  // Decodes exactly n more values (T = int32_t or int64_t; arithmetic wraps like the writer's).
  template <typename T>
  Status Get(T* out, size_t n);
  // Decodes (and drops) all remaining values and returns the offset just past the encoded data
  // (where DELTA_LENGTH_BYTE_ARRAY's bytes start).
  Result<size_t> SkipToEnd();

 private:
  Status LoadBlock();
  Status LoadMiniblock();
  const uint8_t* data_ = nullptr;
  size_t len_ = 0;
  size_t pos_ = 0;
  uint64_t block_size_ = 0;
  uint64_t miniblocks_per_block_ = 0;
  uint64_t values_per_miniblock_ = 0;
  int64_t total_values_ = 0;
  int64_t values_read_ = 0;  // values returned (or dropped) so far
  uint64_t last_value_ = 0;
  bool first_pending_ = true;
  uint64_t min_delta_ = 0;
  const uint8_t* bit_widths_ = nullptr;  // of the current block, in the input
  uint64_t miniblock_index_ = 0;         // next miniblock of the current block to load
  // Current miniblock: [mb_next_, mb_end_) holds its not yet unpacked groups of 32 values.
  const uint8_t* mb_next_ = nullptr;
  const uint8_t* mb_end_ = nullptr;
  int mb_width_ = 0;
  uint64_t values_left_in_miniblock_ = 0;  // needed values not yet unpacked
  // Unpacked values (relative deltas) of the current group of 32 not yet returned.
  uint64_t group_[32] = {};
  uint32_t group_pos_ = 0;
  uint32_t group_end_ = 0;
};

// Encodes n values: block size 128, 4 miniblocks (parquet-mr's layout).
void EncodeDeltaBinaryPacked(const int64_t* values, size_t n, std::string* out);
void EncodeDeltaBinaryPacked32(const int32_t* values, size_t n, std::string* out);

// ---------------------------------------------------------------- DELTA_LENGTH_BYTE_ARRAY
// Appends n values to *out (string/binary Vector); *consumed = bytes used.
Status DecodeDeltaLengthByteArray(const uint8_t* data, size_t len, size_t n, Vector* out,
                                  size_t* consumed);
void EncodeDeltaLengthByteArray(const Vector& strings, const uint32_t* rows, size_t n,
                                std::string* out);

// ---------------------------------------------------------------- DELTA_BYTE_ARRAY
// Prefix lengths (DELTA_BINARY_PACKED) + suffixes (DELTA_LENGTH_BYTE_ARRAY). For FLBA columns the
// values are fixed_len bytes each; pass fixed_len > 0 to validate that.
Status DecodeDeltaByteArray(const uint8_t* data, size_t len, size_t n, Vector* out,
                            size_t* consumed, int fixed_len = 0);
void EncodeDeltaByteArray(const Vector& strings, const uint32_t* rows, size_t n, std::string* out);

// ---------------------------------------------------------------- BYTE_STREAM_SPLIT
// width-byte values split into `width` streams. The streams fill the whole page, so their length is
// len / width (len must be a multiple of width); decodes the first n <= len / width values.
Status DecodeByteStreamSplit(const uint8_t* data, size_t len, size_t n, int width, uint8_t* out);
void EncodeByteStreamSplit(const uint8_t* values, size_t n, int width, std::string* out);

}  // namespace silt::parquet
