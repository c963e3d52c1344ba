#include "parquet/encoding.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>
#include <utility>

namespace silt::parquet {

static_assert(std::endian::native == std::endian::little,
              "the bit unpackers load little-endian words directly");

namespace {

// ---------------------------------------------------------------- helpers

template <size_t... I, typename F>
inline void UnrollImpl(F&& f, std::index_sequence<I...>) {
  (f(std::integral_constant<size_t, I>{}), ...);
}
// Calls f(integral_constant<size_t, i>) for i in [0, N): the bit offsets become constants.
template <size_t N, typename F>
inline void Unroll(F&& f) {
  UnrollImpl(std::forward<F>(f), std::make_index_sequence<N>{});
}

// Reads a ULEB128 of at most max_bytes (5 for 32-bit, 10 for 64-bit values). Returns false on
// truncation or overflow.
template <typename U>
inline bool ReadUleb(const uint8_t* data, size_t len, size_t* pos, U* out) {
  constexpr int kBits = std::numeric_limits<U>::digits;
  constexpr int kMaxBytes = (kBits + 6) / 7;
  U value = 0;
  size_t p = *pos;
  for (int i = 0; i < kMaxBytes; ++i) {
    if (p >= len) return false;
    uint8_t b = data[p++];
    int shift = 7 * i;
    if (i == kMaxBytes - 1 && (b >> (kBits - shift)) != 0) return false;  // overflows U
    value |= static_cast<U>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) {
      *out = value;
      *pos = p;
      return true;
    }
  }
  return false;
}

inline void WriteUleb(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

inline uint64_t ZigZagEncode(uint64_t v) {
  return (v << 1) ^ static_cast<uint64_t>(static_cast<int64_t>(v) >> 63);
}
inline uint64_t ZigZagDecode(uint64_t v) { return (v >> 1) ^ (~(v & 1) + 1); }

inline uint32_t LoadLe32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// Appends LSB-first bit-packed values (w <= 64 bits each) to a string.
class BitWriter {
 public:
  explicit BitWriter(std::string* out) : out_(out) {}
  void Put(uint64_t v, int w) {
    if (w == 0) return;
    if (w < 64) v &= (uint64_t{1} << w) - 1;
    acc_ |= static_cast<unsigned __int128>(v) << bits_;
    bits_ += w;
    while (bits_ >= 8) {
      out_->push_back(static_cast<char>(static_cast<uint8_t>(acc_)));
      acc_ >>= 8;
      bits_ -= 8;
    }
  }
  // Pads the last byte with zero bits.
  void Flush() {
    if (bits_ > 0) out_->push_back(static_cast<char>(static_cast<uint8_t>(acc_)));
    acc_ = 0;
    bits_ = 0;
  }

 private:
  std::string* out_;
  unsigned __int128 acc_ = 0;
  int bits_ = 0;
};

// ---------------------------------------------------------------- bit unpacking
// Unpack32<T, W>: 32 values of W <= 32 bits from exactly 4*W bytes (no over-read).
template <typename T, int W>
void Unpack32(const uint8_t* in, T* out) {
  if constexpr (W == 0) {
    std::fill_n(out, 32, T{0});
  } else {
    uint32_t w[W];
    std::memcpy(w, in, 4 * W);
    constexpr uint32_t kMask = W == 32 ? ~0u : (1u << W) - 1;
    Unroll<32>([&](auto ic) {
      constexpr int kBit = static_cast<int>(decltype(ic)::value) * W;
      constexpr int kIdx = kBit / 32;
      constexpr int kShift = kBit % 32;
      uint32_t v = w[kIdx] >> kShift;
      if constexpr (kShift + W > 32) v |= w[kIdx + 1] << (32 - kShift);
      out[decltype(ic)::value] = static_cast<T>(v & kMask);
    });
  }
}

// Unpack8<T, W>: 8 values of W <= 32 bits from exactly W bytes.
template <typename T, int W>
void Unpack8(const uint8_t* in, T* out) {
  if constexpr (W == 0) {
    std::fill_n(out, 8, T{0});
  } else {
    uint64_t w[(W + 7) / 8 + 1] = {};
    std::memcpy(w, in, W);
    constexpr uint64_t kMask = (uint64_t{1} << W) - 1;
    Unroll<8>([&](auto ic) {
      constexpr int kBit = static_cast<int>(decltype(ic)::value) * W;
      constexpr int kIdx = kBit / 64;
      constexpr int kShift = kBit % 64;
      uint64_t v = w[kIdx] >> kShift;
      if constexpr (kShift + W > 64) v |= w[kIdx + 1] << (64 - kShift);
      out[decltype(ic)::value] = static_cast<T>(v & kMask);
    });
  }
}

// Unpack32x64<W>: 32 values of W <= 64 bits from exactly 4*W bytes (DELTA_BINARY_PACKED).
template <int W>
void Unpack32x64(const uint8_t* in, uint64_t* out) {
  if constexpr (W == 0) {
    std::fill_n(out, 32, uint64_t{0});
  } else {
    uint64_t w[(4 * W + 7) / 8 + 1] = {};
    std::memcpy(w, in, 4 * W);
    constexpr uint64_t kMask = W == 64 ? ~uint64_t{0} : (uint64_t{1} << W) - 1;
    Unroll<32>([&](auto ic) {
      constexpr int kBit = static_cast<int>(decltype(ic)::value) * W;
      constexpr int kIdx = kBit / 64;
      constexpr int kShift = kBit % 64;
      uint64_t v = w[kIdx] >> kShift;
      if constexpr (kShift != 0 && kShift + W > 64) v |= w[kIdx + 1] << (64 - kShift);
      out[decltype(ic)::value] = v & kMask;
    });
  }
}

template <typename T>
using UnpackFn = void (*)(const uint8_t*, T*);

template <typename T, size_t... W>
constexpr std::array<UnpackFn<T>, sizeof...(W)> MakeUnpack32Table(std::index_sequence<W...>) {
  return {&Unpack32<T, static_cast<int>(W)>...};
}
template <typename T, size_t... W>
constexpr std::array<UnpackFn<T>, sizeof...(W)> MakeUnpack8Table(std::index_sequence<W...>) {
  return {&Unpack8<T, static_cast<int>(W)>...};
}
template <size_t... W>
constexpr std::array<UnpackFn<uint64_t>, sizeof...(W)> MakeUnpack64Table(
    std::index_sequence<W...>) {
  return {&Unpack32x64<static_cast<int>(W)>...};
}

template <typename T>
inline constexpr auto kUnpack32 = MakeUnpack32Table<T>(std::make_index_sequence<33>{});
template <typename T>
inline constexpr auto kUnpack8 = MakeUnpack8Table<T>(std::make_index_sequence<33>{});
inline constexpr auto kUnpack32x64 = MakeUnpack64Table(std::make_index_sequence<65>{});

template <typename T>
inline constexpr uint32_t kMaxOf = static_cast<uint32_t>(std::numeric_limits<T>::max());

// Narrows uint32 values to T; false if one does not fit (T's max is 2^k-1, so OR-ing suffices).
template <typename T>
inline bool NarrowChecked(const uint32_t* in, size_t n, T* out) {
  uint32_t acc = 0;
  for (size_t i = 0; i < n; ++i) {
    acc |= in[i];
    out[i] = static_cast<T>(in[i]);
  }
  return acc <= kMaxOf<T>;
}

Status LevelTooLarge(int bit_width) {
  return Status::Corruption("RLE/bit-packed value does not fit the output type (bit width " +
                            std::to_string(bit_width) + ")");
}

constexpr uint64_t kMaxStringBytes = std::numeric_limits<uint32_t>::max();

// Appends to a string/binary Vector through its buffers; rolls back on failure so the Vector stays
// consistent.
class StringAppender {
 public:
  explicit StringAppender(Vector* v) : v_(v), old_size_(v->size()), old_bytes_(v->bytes().size()) {}
  ~StringAppender() {
    if (!committed_) {
      v_->offsets_buffer().resize(old_size_ + 1);
      v_->bytes().resize(old_bytes_);
    }
  }
  std::string& bytes() { return v_->bytes(); }
  std::vector<uint32_t>& offsets() { return v_->offsets_buffer(); }
  void Commit() {
    committed_ = true;
    // offsets/bytes are already complete; Resize only sets the size (and extends validity).
    v_->Resize(offsets().size() - 1);
  }

 private:
  Vector* v_;
  size_t old_size_;
  size_t old_bytes_;
  bool committed_ = false;
};

Status TooManyBytes() { return Status::Corruption("string data of one vector exceeds 4 GiB"); }

}  // namespace

int BitWidth(uint64_t max_value) { return 64 - std::countl_zero(max_value); }

// ---------------------------------------------------------------- RLE / bit-packed hybrid

void RleBitPackedDecoder::Reset(const uint8_t* data, size_t len, int bit_width) {
  data_ = data;
  len_ = len;
  pos_ = 0;
  bit_width_ = bit_width;
  rle_ = true;
  run_left_ = 0;
  rle_value_ = 0;
  packed_ = nullptr;
  packed_index_ = 0;
}

Status RleBitPackedDecoder::NextRun() {
  if (bit_width_ < 0 || bit_width_ > 32) {
    return Status::Corruption("RLE/bit-packed bit width " + std::to_string(bit_width_) +
                              " out of range");
  }
  while (true) {
    if (pos_ >= len_) return Status::Corruption("RLE/bit-packed data ended before all values");
    uint32_t header;
    if (!ReadUleb(data_, len_, &pos_, &header)) {
      return Status::Corruption("RLE/bit-packed run header truncated or too long");
    }
    const uint64_t count = header >> 1;
    if (header & 1) {
      const uint64_t declared = count * static_cast<uint64_t>(bit_width_);
      const uint64_t avail = std::min<uint64_t>(declared, len_ - pos_);
      // The last run may lack (some of) its padding: only the values fully present count.
      uint64_t values = count * 8;
      if (bit_width_ > 0) values = std::min(values, avail * 8 / bit_width_);
      if (values == 0 && count > 0) return Status::Corruption("RLE/bit-packed run truncated");
      rle_ = false;
      packed_ = data_ + pos_;
      packed_index_ = 0;
      pos_ += avail;
      run_left_ = values;
    } else {
      const int nbytes = (bit_width_ + 7) / 8;
      if (len_ - pos_ < static_cast<size_t>(nbytes)) {
        return Status::Corruption("RLE/bit-packed run value truncated");
      }
      uint32_t v = 0;
      for (int i = 0; i < nbytes; ++i) v |= static_cast<uint32_t>(data_[pos_ + i]) << (8 * i);
      pos_ += nbytes;
      if (bit_width_ < 32 && (v >> bit_width_) != 0) {
        return Status::Corruption("RLE run value " + std::to_string(v) + " exceeds bit width " +
                                  std::to_string(bit_width_));
      }
      rle_ = true;
      rle_value_ = v;
      run_left_ = count;
    }
    if (run_left_ > 0) return Status::OK();
  }
}

template <typename T>
Status RleBitPackedDecoder::GetPacked(T* out, size_t n) {
  const int w = bit_width_;
  // Widths up to T's value bits cannot overflow T; wider ones are checked per batch.
  const bool direct = w <= std::numeric_limits<T>::digits;
  size_t i = 0;
  // 1. The rest of a group a previous call stopped inside of.
  if (size_t in_group = packed_index_ & 7; in_group != 0) {
    size_t k = std::min<size_t>(n, 8 - in_group);
    if (!NarrowChecked(group_ + in_group, k, out)) return LevelTooLarge(w);
    i = k;
    packed_index_ += k;
  }
  // 2. Whole groups straight into out (all their bytes are present: n <= values in the input).
  const uint8_t* p = packed_ + (packed_index_ / 8) * w;
  const size_t start = i;
  if (direct) {
    const UnpackFn<T> fn32 = kUnpack32<T>[w];
    const UnpackFn<T> fn8 = kUnpack8<T>[w];
    for (; n - i >= 32; i += 32, p += 4 * w) fn32(p, out + i);
    for (; n - i >= 8; i += 8, p += w) fn8(p, out + i);
  } else {
    uint32_t tmp[32];
    const UnpackFn<uint32_t> fn32 = kUnpack32<uint32_t>[w];
    const UnpackFn<uint32_t> fn8 = kUnpack8<uint32_t>[w];
    for (; n - i >= 32; i += 32, p += 4 * w) {
      fn32(p, tmp);
      if (!NarrowChecked(tmp, 32, out + i)) return LevelTooLarge(w);
    }
    for (; n - i >= 8; i += 8, p += w) {
      fn8(p, tmp);
      if (!NarrowChecked(tmp, 8, out + i)) return LevelTooLarge(w);
    }
  }
  packed_index_ += i - start;
  // 3. A partial group: unpack it into group_ (its padding may be missing at the input's end).
  if (i < n) {
    const size_t avail = static_cast<size_t>(data_ + len_ - p);
    if (avail >= static_cast<size_t>(w)) {
      kUnpack8<uint32_t>[w](p, group_);
    } else {
      uint8_t padded[32] = {};
      std::memcpy(padded, p, avail);
      kUnpack8<uint32_t>[w](padded, group_);
    }
    const size_t k = n - i;
    if (!NarrowChecked(group_, k, out + i)) return LevelTooLarge(w);
    packed_index_ += k;
  }
  return Status::OK();
}

template <typename T>
Status RleBitPackedDecoder::Get(T* out, size_t n) {
  while (n > 0) {
    if (run_left_ == 0) SILT_RETURN_NOT_OK(NextRun());
    const size_t take = static_cast<size_t>(std::min<uint64_t>(n, run_left_));
    if (rle_) {
      if (rle_value_ > kMaxOf<T>) return LevelTooLarge(bit_width_);
      std::fill_n(out, take, static_cast<T>(rle_value_));
    } else {
      SILT_RETURN_NOT_OK(GetPacked(out, take));
    }
    out += take;
    n -= take;
    run_left_ -= take;
  }
  return Status::OK();
}

template Status RleBitPackedDecoder::Get<uint8_t>(uint8_t*, size_t);
template Status RleBitPackedDecoder::Get<int16_t>(int16_t*, size_t);
template Status RleBitPackedDecoder::Get<uint16_t>(uint16_t*, size_t);
template Status RleBitPackedDecoder::Get<uint32_t>(uint32_t*, size_t);

// parquet-mr's RunLengthBitPackingHybridEncoder: repeats are counted from the start of a group of
// 8, so reaching 8 means the buffered values are all the repeated value and can be dropped.
void RleBitPackedEncoder::Put(uint32_t value) {
  if (value == previous_) {
    ++repeat_count_;
    if (repeat_count_ >= 8) {
      // Keeps the RLE header a ULEB32 (parquet-mr's counts are ints).
      if (repeat_count_ == kMaxRepeat) WriteRleRun();
      return;
    }
  } else {
    if (repeat_count_ >= 8) WriteRleRun();
    repeat_count_ = 1;
    previous_ = value;
  }
  buffered_[num_buffered_++] = value;
  if (num_buffered_ == 8) WriteOrAppendBitPackedRun();
}

void RleBitPackedEncoder::PutMany(const uint32_t* values, size_t n) {
  size_t i = 0;
  while (i < n) {
    // At a group boundary outside a run (repeat_count_ is 0 there unless a run is open), 8
    // values that are not all equal leave Put with them bit-packed and no repeat pending.
    if (num_buffered_ == 0 && repeat_count_ == 0 && n - i >= 8) {
      const uint32_t* g = values + i;
      bool all_equal = true;
      for (int k = 1; k < 8; ++k) all_equal &= g[k] == g[0];
      if (!all_equal) {
        std::memcpy(buffered_, g, sizeof(buffered_));
        previous_ = g[7];
        WriteOrAppendBitPackedRun();
        i += 8;
        continue;
      }
    }
    Put(values[i++]);
  }
}

void RleBitPackedEncoder::PutRun(uint32_t value, size_t count) {
  while (count > 0) {
    // Inside a run of `value`, Put only counts: count in bulk up to one short of the flush.
    if (repeat_count_ >= 8 && value == previous_ && repeat_count_ + 1 < kMaxRepeat) {
      const uint64_t take = std::min<uint64_t>(count, kMaxRepeat - 1 - repeat_count_);
      repeat_count_ += take;
      count -= take;
      continue;
    }
    Put(value);
    --count;
  }
}

void RleBitPackedEncoder::WriteRleRun() {
  EndBitPackedRun();
  WriteUleb(repeat_count_ << 1, &out_);
  for (int i = 0; i < (bit_width_ + 7) / 8; ++i) {
    out_.push_back(static_cast<char>((previous_ >> (8 * i)) & 0xFF));
  }
  repeat_count_ = 0;
  num_buffered_ = 0;
}

void RleBitPackedEncoder::WriteOrAppendBitPackedRun() {
  // At most 63 groups per run so the header is one byte (patched in place when the run ends).
  if (bit_packed_groups_ >= 63) EndBitPackedRun();
  if (bit_packed_header_pos_ == std::string::npos) {
    bit_packed_header_pos_ = out_.size();
    out_.push_back(0);
  }
  BitWriter bw(&out_);
  for (int i = 0; i < 8; ++i) bw.Put(buffered_[i], bit_width_);
  bw.Flush();  // 8 values are a whole number of bytes
  ++bit_packed_groups_;
  num_buffered_ = 0;
  repeat_count_ = 0;
}

void RleBitPackedEncoder::EndBitPackedRun() {
  if (bit_packed_header_pos_ == std::string::npos) return;
  out_[bit_packed_header_pos_] = static_cast<char>((bit_packed_groups_ << 1) | 1);
  bit_packed_header_pos_ = std::string::npos;
  bit_packed_groups_ = 0;
}

std::string RleBitPackedEncoder::Finish() {
  if (repeat_count_ >= 8) {
    WriteRleRun();
  } else if (num_buffered_ > 0) {
    for (int i = num_buffered_; i < 8; ++i) buffered_[i] = 0;
    WriteOrAppendBitPackedRun();
  }
  EndBitPackedRun();
  std::string result = std::move(out_);
  out_.clear();
  num_buffered_ = 0;
  previous_ = 0;
  repeat_count_ = 0;
  return result;
}

Status DecodeBitPackedLegacy(const uint8_t* data, size_t len, int bit_width, size_t n, int16_t* out,
                             size_t* consumed) {
  if (bit_width < 0 || bit_width > 32) {
    return Status::Corruption("BIT_PACKED bit width " + std::to_string(bit_width) +
                              " out of range");
  }
  if (bit_width > 0 && n > (std::numeric_limits<uint64_t>::max() - 7) / bit_width) {
    return Status::Corruption("BIT_PACKED value count too large");
  }
  const uint64_t bytes = (static_cast<uint64_t>(n) * bit_width + 7) / 8;
  if (bytes > len) return Status::Corruption("BIT_PACKED levels truncated");
  // MSB first: a 64-bit big-endian window refilled byte by byte.
  uint64_t acc = 0;
  int bits = 0;
  size_t p = 0;
  const uint64_t mask = bit_width == 0 ? 0 : (~uint64_t{0} >> (64 - bit_width));
  uint32_t too_big = 0;
  for (size_t i = 0; i < n; ++i) {
    while (bits < bit_width) {
      acc = (acc << 8) | data[p++];
      bits += 8;
    }
    bits -= bit_width;
    const uint32_t v = static_cast<uint32_t>((acc >> bits) & mask);
    too_big |= v;
    out[i] = static_cast<int16_t>(v);
  }
  if (too_big > static_cast<uint32_t>(std::numeric_limits<int16_t>::max())) {
    return LevelTooLarge(bit_width);
  }
  *consumed = static_cast<size_t>(bytes);
  return Status::OK();
}

// ---------------------------------------------------------------- PLAIN

Status DecodePlainFixed(const uint8_t* data, size_t len, size_t n, int width, uint8_t* out,
                        size_t* consumed) {
  if (width <= 0) return Status::Corruption("PLAIN value width must be positive");
  if (n > len / static_cast<size_t>(width)) {
    return Status::Corruption("PLAIN data truncated: " + std::to_string(n) + " values of " +
                              std::to_string(width) + " bytes, " + std::to_string(len) +
                              " bytes left");
  }
  const size_t bytes = n * static_cast<size_t>(width);
  if (bytes > 0) std::memcpy(out, data, bytes);
  *consumed = bytes;
  return Status::OK();
}

Status DecodePlainBoolean(const uint8_t* data, size_t len, size_t bit_offset, size_t n,
                          uint8_t* out) {
  const uint64_t total_bits = len > (uint64_t{1} << 60) ? uint64_t{1} << 63 : uint64_t{len} * 8;
  if (bit_offset > total_bits || n > total_bits - bit_offset) {
    return Status::Corruption("PLAIN boolean data truncated");
  }
  size_t i = 0;
  size_t bit = bit_offset;
  // Leading bits up to a byte boundary, then 8 at a time.
  for (; i < n && (bit & 7) != 0; ++i, ++bit) out[i] = (data[bit >> 3] >> (bit & 7)) & 1;
  const uint8_t* p = data + (bit >> 3);
  for (; n - i >= 8; i += 8, ++p) {
    const uint8_t b = *p;
    for (int k = 0; k < 8; ++k) out[i + k] = (b >> k) & 1;
  }
  for (int k = 0; i < n; ++i, ++k) out[i] = (*p >> k) & 1;
  return Status::OK();
}

Status DecodePlainByteArray(const uint8_t* data, size_t len, size_t n, Vector* out,
                            size_t* consumed) {
  // Each value takes >= 4 input bytes, so the input bounds the output (the count may lie).
  if (n > len / 4) {
    return Status::Corruption("PLAIN byte array data truncated: " + std::to_string(n) +
                              " values in " + std::to_string(len) + " bytes");
  }
  StringAppender app(out);
  std::string& bytes = app.bytes();
  std::vector<uint32_t>& offsets = app.offsets();
  const size_t base = bytes.size();
  const size_t cap = len - 4 * n;  // bound on the value bytes
  // Presized buffers and raw writes: no per-value capacity checks.
  bytes.resize(base + cap);
  char* dst = bytes.data() + base;
  const size_t first = offsets.size();
  offsets.resize(first + n);
  uint32_t* off = offsets.data() + first;
  size_t pos = 0, w = 0;
  for (size_t i = 0; i < n; ++i) {
    // pos = 4 * i + w and w <= cap, so the length is in bounds, and a value within cap - w
    // leaves room for the remaining lengths (this check subsumes the input bound).
    const uint32_t l = LoadLe32(data + pos);
    pos += 4;
    if (l > cap - w) {
      return Status::Corruption("PLAIN byte array value " + std::to_string(i) + " of " +
                                std::to_string(l) + " bytes overruns the page");
    }
    // Short values (the common case) with slack on both sides: one fixed-size copy.
    if (l <= 16 && len - pos >= 16 && cap - w >= 16) {
      std::memcpy(dst + w, data + pos, 16);
    } else {
      std::memcpy(dst + w, data + pos, l);
    }
    pos += l;
    w += l;
    off[i] = static_cast<uint32_t>(base + w);
  }
  if (base + w > kMaxStringBytes) return TooManyBytes();
  bytes.resize(base + w);
  app.Commit();
  *consumed = pos;
  return Status::OK();
}

void EncodePlainBoolean(const uint8_t* values, size_t n, std::string* out) {
  size_t start = out->size();
  out->resize(start + (n + 7) / 8, '\0');
  uint8_t* dst = reinterpret_cast<uint8_t*>(out->data() + start);
  for (size_t i = 0; i < n; ++i) dst[i >> 3] |= static_cast<uint8_t>((values[i] != 0) << (i & 7));
}

namespace {
inline std::string_view Row(const Vector& strings, const uint32_t* rows, size_t i) {
  return strings.GetString(rows ? rows[i] : i);
}
}  // namespace

void EncodePlainByteArray(const Vector& strings, const uint32_t* rows, size_t n, std::string* out) {
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) total += 4 + Row(strings, rows, i).size();
  out->reserve(out->size() + total);
  for (size_t i = 0; i < n; ++i) {
    std::string_view s = Row(strings, rows, i);
    const uint32_t l = static_cast<uint32_t>(s.size());
    char le[4];
    std::memcpy(le, &l, 4);
    out->append(le, 4);
    out->append(s);
  }
}

// ---------------------------------------------------------------- DELTA_BINARY_PACKED

Status DeltaBinaryPackedDecoder::Init(const uint8_t* data, size_t len) {
  *this = DeltaBinaryPackedDecoder();
  data_ = data;
  len_ = len;
  uint64_t total, first;
  if (!ReadUleb(data, len, &pos_, &block_size_) ||
      !ReadUleb(data, len, &pos_, &miniblocks_per_block_) || !ReadUleb(data, len, &pos_, &total) ||
      !ReadUleb(data, len, &pos_, &first)) {
    return Status::Corruption("DELTA_BINARY_PACKED header truncated or malformed");
  }
  // Sizes beyond 2^31 are no writer's and would overflow the miniblock byte arithmetic.
  if (block_size_ == 0 || block_size_ % 128 != 0 || block_size_ > (uint64_t{1} << 31)) {
    return Status::Corruption("DELTA_BINARY_PACKED block size " + std::to_string(block_size_) +
                              " is not a multiple of 128");
  }
  if (miniblocks_per_block_ == 0 || block_size_ % miniblocks_per_block_ != 0 ||
      (block_size_ / miniblocks_per_block_) % 32 != 0) {
    return Status::Corruption("DELTA_BINARY_PACKED miniblock count " +
                              std::to_string(miniblocks_per_block_) + " invalid for block size " +
                              std::to_string(block_size_));
  }
  if (total > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return Status::Corruption("DELTA_BINARY_PACKED value count too large");
  }
  values_per_miniblock_ = block_size_ / miniblocks_per_block_;
  total_values_ = static_cast<int64_t>(total);
  last_value_ = ZigZagDecode(first);
  first_pending_ = total_values_ > 0;
  miniblock_index_ = miniblocks_per_block_;  // no block loaded yet
  return Status::OK();
}

Status DeltaBinaryPackedDecoder::LoadBlock() {
  uint64_t zz;
  if (!ReadUleb(data_, len_, &pos_, &zz)) {
    return Status::Corruption("DELTA_BINARY_PACKED block header truncated or malformed");
  }
  min_delta_ = ZigZagDecode(zz);
  if (len_ - pos_ < miniblocks_per_block_) {
    return Status::Corruption("DELTA_BINARY_PACKED miniblock bit widths truncated");
  }
  bit_widths_ = data_ + pos_;
  pos_ += miniblocks_per_block_;
  miniblock_index_ = 0;
  return Status::OK();
}

Status DeltaBinaryPackedDecoder::LoadMiniblock() {
  if (miniblock_index_ >= miniblocks_per_block_) SILT_RETURN_NOT_OK(LoadBlock());
  const int w = bit_widths_[miniblock_index_++];
  if (w > 64) {
    return Status::Corruption("DELTA_BINARY_PACKED bit width " + std::to_string(w) + " exceeds 64");
  }
  const uint64_t remaining = static_cast<uint64_t>(total_values_ - values_read_);
  const uint64_t values = std::min(values_per_miniblock_, remaining);
  const uint64_t full_bytes = values_per_miniblock_ / 8 * w;
  const uint64_t needed_bytes = (values * w + 7) / 8;
  const uint64_t avail = len_ - pos_;
  if (needed_bytes > avail) return Status::Corruption("DELTA_BINARY_PACKED miniblock truncated");
  // The last miniblock is padded to full size; tolerate writers that cut the padding at the end.
  const uint64_t take = std::min(full_bytes, avail);
  mb_next_ = data_ + pos_;
  mb_end_ = mb_next_ + take;
  pos_ += take;
  mb_width_ = w;
  values_left_in_miniblock_ = values;
  return Status::OK();
}

template <typename T>
Status DeltaBinaryPackedDecoder::Get(T* out, size_t n) {
  if (n > static_cast<uint64_t>(total_values_ - values_read_)) {
    return Status::Corruption("DELTA_BINARY_PACKED has " +
                              std::to_string(total_values_ - values_read_) +
                              " values left, asked for " + std::to_string(n));
  }
  if (n == 0) return Status::OK();
  if (first_pending_) {
    *out++ = static_cast<T>(last_value_);
    first_pending_ = false;
    ++values_read_;
    --n;
  }
  uint64_t last = last_value_;
  uint64_t min_delta = min_delta_;  // refreshed when a block is loaded
  size_t produced = 0;
  while (produced < n) {
    if (group_pos_ == group_end_) {
      if (values_left_in_miniblock_ == 0) {
        last_value_ = last;
        values_read_ += produced;
        out += produced;
        n -= produced;
        produced = 0;
        SILT_RETURN_NOT_OK(LoadMiniblock());
        min_delta = min_delta_;
      }
      const UnpackFn<uint64_t> fn = kUnpack32x64[mb_width_];
      const size_t group_bytes = 4 * static_cast<size_t>(mb_width_);
      if (mb_width_ == 0) {
        // Constant deltas (e.g. a fixed step, or a constant column): no unpacking, vectorizes.
        const size_t k =
            static_cast<size_t>(std::min<uint64_t>(n - produced, values_left_in_miniblock_));
        T* o = out + produced;
        for (size_t i = 0; i < k; ++i) o[i] = static_cast<T>(last + (i + 1) * min_delta);
        last += k * min_delta;
        values_left_in_miniblock_ -= k;
        produced += k;
        continue;
      }
      // Whole groups straight into out.
      while (n - produced >= 32 && values_left_in_miniblock_ >= 32 &&
             static_cast<size_t>(mb_end_ - mb_next_) >= group_bytes) {
        uint64_t tmp[32];
        fn(mb_next_, tmp);
        mb_next_ += group_bytes;
        values_left_in_miniblock_ -= 32;
        T* o = out + produced;
        for (int i = 0; i < 32; ++i) {
          last += min_delta + tmp[i];
          o[i] = static_cast<T>(last);
        }
        produced += 32;
      }
      if (produced == n || values_left_in_miniblock_ == 0) continue;
      // A group only partly needed now, or cut at the end of the input: buffer it.
      const size_t avail = static_cast<size_t>(mb_end_ - mb_next_);
      if (avail >= group_bytes) {
        fn(mb_next_, group_);
        mb_next_ += group_bytes;
      } else {
        uint8_t padded[4 * 64] = {};
        std::memcpy(padded, mb_next_, avail);
        fn(padded, group_);
        mb_next_ = mb_end_;
      }
      group_pos_ = 0;
      group_end_ = static_cast<uint32_t>(std::min<uint64_t>(32, values_left_in_miniblock_));
      values_left_in_miniblock_ -= group_end_;
    }
    const size_t take = std::min<size_t>(n - produced, group_end_ - group_pos_);
    T* o = out + produced;
    const uint64_t* g = group_ + group_pos_;
    for (size_t i = 0; i < take; ++i) {
      last += min_delta + g[i];
      o[i] = static_cast<T>(last);
    }
    group_pos_ += static_cast<uint32_t>(take);
    produced += take;
  }
  last_value_ = last;
  values_read_ += produced;
  return Status::OK();
}

template Status DeltaBinaryPackedDecoder::Get<int32_t>(int32_t*, size_t);
template Status DeltaBinaryPackedDecoder::Get<int64_t>(int64_t*, size_t);

Result<size_t> DeltaBinaryPackedDecoder::SkipToEnd() {
  if (first_pending_) {
    first_pending_ = false;
    ++values_read_;
  }
  // Drop what is unpacked or loaded; the loaded miniblock's bytes are already behind pos_.
  values_read_ += (group_end_ - group_pos_) + values_left_in_miniblock_;
  group_pos_ = group_end_ = 0;
  values_left_in_miniblock_ = 0;
  mb_next_ = mb_end_;
  // Each miniblock either consumes data bytes or belongs to a block whose bit widths did, so this
  // loop is bounded by the input size whatever total_values claims.
  while (values_read_ < total_values_) {
    SILT_RETURN_NOT_OK(LoadMiniblock());
    values_read_ += values_left_in_miniblock_;
    values_left_in_miniblock_ = 0;
    mb_next_ = mb_end_;
  }
  return pos_;
}

namespace {

// DELTA_BINARY_PACKED writer over wrapping unsigned arithmetic of U (uint32 for INT32 columns so
// bit widths stay <= 32, as parquet-mr writes them).
template <typename U>
void EncodeDelta(const U* values, size_t n, std::string* out) {
  using S = std::make_signed_t<U>;
  constexpr size_t kBlock = 128, kMiniblocks = 4, kPerMiniblock = kBlock / kMiniblocks;
  WriteUleb(kBlock, out);
  WriteUleb(kMiniblocks, out);
  WriteUleb(n, out);
  WriteUleb(ZigZagEncode(static_cast<uint64_t>(
                static_cast<int64_t>(n > 0 ? static_cast<S>(values[0]) : S{0}))),
            out);
  U deltas[kBlock];
  for (size_t start = 1; start < n; start += kBlock) {
    const size_t count = std::min(kBlock, n - start);
    S min_delta = std::numeric_limits<S>::max();
    for (size_t i = 0; i < count; ++i) {
      deltas[i] = static_cast<U>(values[start + i] - values[start + i - 1]);
      min_delta = std::min(min_delta, static_cast<S>(deltas[i]));
    }
    for (size_t i = 0; i < count; ++i)
      deltas[i] = static_cast<U>(deltas[i] - static_cast<U>(min_delta));
    for (size_t i = count; i < kBlock; ++i) deltas[i] = 0;  // padding of the last miniblock
    WriteUleb(ZigZagEncode(static_cast<uint64_t>(static_cast<int64_t>(min_delta))), out);
    const size_t used = (count + kPerMiniblock - 1) / kPerMiniblock;
    int widths[kMiniblocks] = {};
    for (size_t m = 0; m < used; ++m) {
      U acc = 0;
      for (size_t i = 0; i < kPerMiniblock; ++i) acc |= deltas[m * kPerMiniblock + i];
      widths[m] = BitWidth(acc);
    }
    for (size_t m = 0; m < kMiniblocks; ++m) out->push_back(static_cast<char>(widths[m]));
    BitWriter bw(out);
    for (size_t m = 0; m < used; ++m) {
      for (size_t i = 0; i < kPerMiniblock; ++i) bw.Put(deltas[m * kPerMiniblock + i], widths[m]);
    }
    bw.Flush();  // 32 values are a whole number of bytes
  }
}

}  // namespace

void EncodeDeltaBinaryPacked(const int64_t* values, size_t n, std::string* out) {
  EncodeDelta(reinterpret_cast<const uint64_t*>(values), n, out);
}

void EncodeDeltaBinaryPacked32(const int32_t* values, size_t n, std::string* out) {
  EncodeDelta(reinterpret_cast<const uint32_t*>(values), n, out);
}

// ---------------------------------------------------------------- DELTA_LENGTH_BYTE_ARRAY

namespace {

constexpr size_t kBatch = 1024;

// Opens a DELTA_BINARY_PACKED stream of >= n values at data; *end = offset after it.
Status OpenDeltaStream(const uint8_t* data, size_t len, size_t n, const char* what,
                       DeltaBinaryPackedDecoder* dec, size_t* end) {
  SILT_RETURN_NOT_OK(dec->Init(data, len));
  if (static_cast<uint64_t>(dec->total_values()) < n) {
    return Status::Corruption(std::string(what) + " has " + std::to_string(dec->total_values()) +
                              " values, expected " + std::to_string(n));
  }
  DeltaBinaryPackedDecoder skipper = *dec;
  SILT_ASSIGN_OR_RETURN(*end, skipper.SkipToEnd());
  return Status::OK();
}

}  // namespace

Status DecodeDeltaLengthByteArray(const uint8_t* data, size_t len, size_t n, Vector* out,
                                  size_t* consumed) {
  DeltaBinaryPackedDecoder lengths;
  size_t lengths_end;
  SILT_RETURN_NOT_OK(
      OpenDeltaStream(data, len, n, "DELTA_LENGTH_BYTE_ARRAY lengths", &lengths, &lengths_end));
  const uint8_t* src = data + lengths_end;
  const size_t avail = len - lengths_end;
  StringAppender app(out);
  std::string& bytes = app.bytes();
  std::vector<uint32_t>& offsets = app.offsets();
  bytes.reserve(bytes.size() + avail);
  size_t used = 0;
  int32_t buf[kBatch];
  for (size_t done = 0; done < n;) {
    const size_t k = std::min(kBatch, n - done);
    SILT_RETURN_NOT_OK(lengths.Get(buf, k));
    uint64_t sum = 0;
    int32_t sign = 0;
    for (size_t i = 0; i < k; ++i) {
      sign |= buf[i];
      sum += static_cast<uint32_t>(buf[i]);
    }
    if (sign < 0) return Status::Corruption("DELTA_LENGTH_BYTE_ARRAY negative length");
    if (sum > avail - used) return Status::Corruption("DELTA_LENGTH_BYTE_ARRAY data truncated");
    if (bytes.size() + sum > kMaxStringBytes) return TooManyBytes();
    uint32_t off = static_cast<uint32_t>(bytes.size());
    const size_t o = offsets.size();
    offsets.resize(o + k);
    for (size_t i = 0; i < k; ++i) {
      off += static_cast<uint32_t>(buf[i]);
      offsets[o + i] = off;
    }
    bytes.append(reinterpret_cast<const char*>(src + used), sum);
    used += sum;
    done += k;
  }
  app.Commit();
  *consumed = lengths_end + used;
  return Status::OK();
}

void EncodeDeltaLengthByteArray(const Vector& strings, const uint32_t* rows, size_t n,
                                std::string* out) {
  std::vector<int32_t> lengths(n);
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    lengths[i] = static_cast<int32_t>(Row(strings, rows, i).size());
    total += lengths[i];
  }
  EncodeDeltaBinaryPacked32(lengths.data(), n, out);
  out->reserve(out->size() + total);
  for (size_t i = 0; i < n; ++i) out->append(Row(strings, rows, i));
}

// ---------------------------------------------------------------- DELTA_BYTE_ARRAY

Status DecodeDeltaByteArray(const uint8_t* data, size_t len, size_t n, Vector* out,
                            size_t* consumed, int fixed_len) {
  DeltaBinaryPackedDecoder prefixes, suffixes;
  size_t prefixes_end, suffixes_end;
  SILT_RETURN_NOT_OK(
      OpenDeltaStream(data, len, n, "DELTA_BYTE_ARRAY prefix lengths", &prefixes, &prefixes_end));
  SILT_RETURN_NOT_OK(OpenDeltaStream(data + prefixes_end, len - prefixes_end, n,
                                     "DELTA_BYTE_ARRAY suffix lengths", &suffixes, &suffixes_end));
  const size_t data_start = prefixes_end + suffixes_end;
  const uint8_t* src = data + data_start;
  const size_t avail = len - data_start;
  StringAppender app(out);
  std::string& bytes = app.bytes();
  std::vector<uint32_t>& offsets = app.offsets();
  size_t used = 0;
  // The previous value (empty for the first value of a page), as an offset into bytes.
  uint64_t prev_start = bytes.size();
  uint64_t prev_len = 0;
  int32_t pre[kBatch], suf[kBatch];
  for (size_t done = 0; done < n;) {
    const size_t k = std::min(kBatch, n - done);
    SILT_RETURN_NOT_OK(prefixes.Get(pre, k));
    SILT_RETURN_NOT_OK(suffixes.Get(suf, k));
    // Validate the batch and size it before copying anything.
    uint64_t suffix_sum = 0, total = 0, l = prev_len;
    for (size_t i = 0; i < k; ++i) {
      if (pre[i] < 0 || suf[i] < 0) return Status::Corruption("DELTA_BYTE_ARRAY negative length");
      if (static_cast<uint64_t>(pre[i]) > l) {
        return Status::Corruption("DELTA_BYTE_ARRAY prefix length " + std::to_string(pre[i]) +
                                  " exceeds the previous value's " + std::to_string(l));
      }
      l = static_cast<uint64_t>(pre[i]) + static_cast<uint64_t>(suf[i]);
      if (fixed_len > 0 && l != static_cast<uint64_t>(fixed_len)) {
        return Status::Corruption("DELTA_BYTE_ARRAY value of " + std::to_string(l) +
                                  " bytes in a FIXED_LEN_BYTE_ARRAY(" + std::to_string(fixed_len) +
                                  ") column");
      }
      suffix_sum += static_cast<uint64_t>(suf[i]);
      total += l;
    }
    if (suffix_sum > avail - used) return Status::Corruption("DELTA_BYTE_ARRAY data truncated");
    const size_t base = bytes.size();
    if (base + total > kMaxStringBytes) return TooManyBytes();
    bytes.resize(base + total);
    char* b = bytes.data();
    const uint64_t end = base + total;
    size_t o = offsets.size();
    offsets.resize(o + k);
    uint64_t pos = base;
    for (size_t i = 0; i < k; ++i) {
      const size_t p = static_cast<size_t>(pre[i]), s = static_cast<size_t>(suf[i]);
      // Short copies as one 16-byte load/store where both sides have room (the overshoot is
      // overwritten later). The prefix goes through a temporary: a short previous value
      // overlaps the 16 bytes written at pos.
      if (p <= 16 && pos + 16 <= end) {
        char tmp[16];
        std::memcpy(tmp, b + prev_start, 16);
        std::memcpy(b + pos, tmp, 16);
      } else {
        std::memcpy(b + pos, b + prev_start, p);
      }
      if (s <= 16 && pos + p + 16 <= end && avail - used >= 16) {
        std::memcpy(b + pos + p, src + used, 16);
      } else if (s) {
        std::memcpy(b + pos + p, src + used, s);
      }
      used += s;
      prev_start = pos;
      prev_len = p + s;
      pos += p + s;
      offsets[o + i] = static_cast<uint32_t>(pos);
    }
    done += k;
  }
  app.Commit();
  *consumed = data_start + used;
  return Status::OK();
}

void EncodeDeltaByteArray(const Vector& strings, const uint32_t* rows, size_t n, std::string* out) {
  std::vector<int32_t> prefix(n), suffix(n);
  std::string_view prev;
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    std::string_view s = Row(strings, rows, i);
    const size_t max = std::min(prev.size(), s.size());
    size_t p = 0;
    while (p < max && prev[p] == s[p]) ++p;
    prefix[i] = static_cast<int32_t>(p);
    suffix[i] = static_cast<int32_t>(s.size() - p);
    total += s.size() - p;
    prev = s;
  }
  EncodeDeltaBinaryPacked32(prefix.data(), n, out);
  EncodeDeltaBinaryPacked32(suffix.data(), n, out);
  out->reserve(out->size() + total);
  for (size_t i = 0; i < n; ++i) out->append(Row(strings, rows, i).substr(prefix[i]));
}

// ---------------------------------------------------------------- BYTE_STREAM_SPLIT

namespace {

template <int K>
void ByteStreamSplitDecodeK(const uint8_t* data, size_t stride, size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    for (int j = 0; j < K; ++j) out[i * K + j] = data[j * stride + i];
  }
}

template <int K>
void ByteStreamSplitEncodeK(const uint8_t* values, size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    for (int j = 0; j < K; ++j) out[j * n + i] = values[i * K + j];
  }
}

}  // namespace

Status DecodeByteStreamSplit(const uint8_t* data, size_t len, size_t n, int width, uint8_t* out) {
  if (width <= 0) return Status::Corruption("BYTE_STREAM_SPLIT width must be positive");
  const size_t k = static_cast<size_t>(width);
  if (len % k != 0) {
    return Status::Corruption("BYTE_STREAM_SPLIT data of " + std::to_string(len) +
                              " bytes is not a multiple of the width " + std::to_string(width));
  }
  const size_t stride = len / k;
  if (n > stride) {
    return Status::Corruption("BYTE_STREAM_SPLIT has " + std::to_string(stride) +
                              " values, expected " + std::to_string(n));
  }
  switch (width) {
    case 2:
      ByteStreamSplitDecodeK<2>(data, stride, n, out);
      break;
    case 4:
      ByteStreamSplitDecodeK<4>(data, stride, n, out);
      break;
    case 8:
      ByteStreamSplitDecodeK<8>(data, stride, n, out);
      break;
    case 16:
      ByteStreamSplitDecodeK<16>(data, stride, n, out);
      break;
    default:
      for (size_t j = 0; j < k; ++j) {
        const uint8_t* s = data + j * stride;
        for (size_t i = 0; i < n; ++i) out[i * k + j] = s[i];
      }
  }
  return Status::OK();
}

void EncodeByteStreamSplit(const uint8_t* values, size_t n, int width, std::string* out) {
  const size_t k = static_cast<size_t>(width);
  const size_t start = out->size();
  out->resize(start + n * k);
  uint8_t* dst = reinterpret_cast<uint8_t*>(out->data() + start);
  switch (width) {
    case 2:
      ByteStreamSplitEncodeK<2>(values, n, dst);
      break;
    case 4:
      ByteStreamSplitEncodeK<4>(values, n, dst);
      break;
    case 8:
      ByteStreamSplitEncodeK<8>(values, n, dst);
      break;
    case 16:
      ByteStreamSplitEncodeK<16>(values, n, dst);
      break;
    default:
      for (size_t j = 0; j < k; ++j) {
        uint8_t* d = dst + j * n;
        for (size_t i = 0; i < n; ++i) d[i] = values[i * k + j];
      }
  }
}

}  // namespace silt::parquet
