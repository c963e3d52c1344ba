#include "parquet/reader.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <type_traits>

#include "common/error_classes.h"
#include "parquet/compression.h"
#include "parquet/encoding.h"

namespace silt::parquet {
namespace {

constexpr const char* kCorrupt = errc::kSiltParquetCorrupt;

Status Corrupt(const std::string& where, const std::string& msg) {
  return Status::Corruption(where + ": " + msg, kCorrupt);
}

uint32_t LoadLE32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// ------------------------------------------------------------------ value conversion

int128_t BigEndianToInt128(const uint8_t* p, size_t n, bool* overflow) {
  *overflow = false;
  if (n == 0) return 0;
  // Bytes beyond 16 must be pure sign extension.
  size_t skip = n > 16 ? n - 16 : 0;
  uint8_t sign = (p[0] & 0x80) ? 0xFF : 0x00;
  for (size_t i = 0; i < skip; ++i)
    if (p[i] != sign) *overflow = true;
  unsigned __int128 v = (p[skip] & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
  for (size_t i = skip; i < n; ++i) v = (v << 8) | p[i];
  return static_cast<int128_t>(v);
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  float v;
  if (exp == 0)
    v = std::ldexp(static_cast<float>(mant), -24);
  else if (exp == 31)
    v = mant ? std::nanf("") : INFINITY;
  else
    v = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

int64_t Int96ToMicros(const uint8_t* p) {
  int64_t nanos;
  int32_t jdn;
  std::memcpy(&nanos, p, 8);
  std::memcpy(&jdn, p + 8, 4);
  return (static_cast<int64_t>(jdn) - 2440588LL) * 86400000000LL + FloorDiv(nanos, 1000);
}

std::string UuidText(const uint8_t* p) {
  static const char* hex = "0123456789abcdef";
  std::string s;
  s.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s.push_back('-');
    s.push_back(hex[p[i] >> 4]);
    s.push_back(hex[p[i] & 15]);
  }
  return s;
}

// Physical values before conversion: fixed-width bytes or a byte-array vector.
struct Staging {
  std::vector<uint8_t> fixed;
  Vector bytes{DataType::Binary()};
  void Clear() {
    fixed.clear();
    bytes.Clear();
  }
};

// Appends n converted values from staging to out.
Status ConvertAppend(const ColumnNode& leaf, const Staging& st, size_t n, Vector* out) {
  size_t s0 = out->size();
  const uint8_t* f = st.fixed.data();
  int w = PhysicalByteWidth(leaf);
  auto resize = [&] { out->ResizeUninitialized(s0 + n); };
  switch (leaf.conversion) {
    case LeafConversion::kNone:
      if (leaf.physical_type == Type::BYTE_ARRAY ||
          leaf.physical_type == Type::FIXED_LEN_BYTE_ARRAY) {
        if (leaf.physical_type == Type::BYTE_ARRAY) {
          out->AppendRange(st.bytes, 0, n);
        } else {
          for (size_t i = 0; i < n; ++i)
            out->AppendString(std::string_view(reinterpret_cast<const char*>(f) + i * w, w));
        }
        return Status::OK();
      }
      resize();
      std::memcpy(out->data<uint8_t>() + s0 * out->type()->fixed_width(), f, n * w);
      return Status::OK();
    case LeafConversion::kInt32ToInt8: {
      resize();
      int8_t* d = out->data<int8_t>() + s0;
      for (size_t i = 0; i < n; ++i)
        d[i] = static_cast<int8_t>(static_cast<int32_t>(LoadLE32(f + 4 * i)));
      return Status::OK();
    }
    case LeafConversion::kInt32ToInt16: {
      resize();
      int16_t* d = out->data<int16_t>() + s0;
      for (size_t i = 0; i < n; ++i)
        d[i] = static_cast<int16_t>(static_cast<int32_t>(LoadLE32(f + 4 * i)));
      return Status::OK();
    }
    case LeafConversion::kUInt32ToInt64:
    case LeafConversion::kInt32ToInt64: {
      resize();
      int64_t* d = out->data<int64_t>() + s0;
      bool u = leaf.conversion == LeafConversion::kUInt32ToInt64;
      for (size_t i = 0; i < n; ++i) {
        uint32_t v = LoadLE32(f + 4 * i);
        d[i] = u ? static_cast<int64_t>(v) : static_cast<int64_t>(static_cast<int32_t>(v));
      }
      return Status::OK();
    }
    case LeafConversion::kInt32MillisToMicros: {
      resize();
      int64_t* d = out->data<int64_t>() + s0;
      for (size_t i = 0; i < n; ++i)
        d[i] = static_cast<int64_t>(static_cast<int32_t>(LoadLE32(f + 4 * i))) * 1000;
      return Status::OK();
    }
    case LeafConversion::kInt32ToDecimal:
    case LeafConversion::kInt64ToDecimal:
    case LeafConversion::kUInt64ToDecimal: {
      resize();
      int128_t* d = out->data<int128_t>() + s0;
      for (size_t i = 0; i < n; ++i) {
        if (leaf.conversion == LeafConversion::kInt32ToDecimal) {
          d[i] = static_cast<int32_t>(LoadLE32(f + 4 * i));
        } else {
          uint64_t v;
          std::memcpy(&v, f + 8 * i, 8);
          d[i] = leaf.conversion == LeafConversion::kUInt64ToDecimal
                     ? static_cast<int128_t>(v)
                     : static_cast<int128_t>(static_cast<int64_t>(v));
        }
      }
      return Status::OK();
    }
    case LeafConversion::kBytesToDecimal: {
      resize();
      int128_t* d = out->data<int128_t>() + s0;
      bool overflow = false, any = false;
      for (size_t i = 0; i < n; ++i) {
        if (leaf.physical_type == Type::BYTE_ARRAY) {
          std::string_view s = st.bytes.GetString(i);
          d[i] = BigEndianToInt128(reinterpret_cast<const uint8_t*>(s.data()), s.size(), &overflow);
        } else {
          d[i] = BigEndianToInt128(f + i * w, w, &overflow);
        }
        any |= overflow;
      }
      if (any) return Corrupt(leaf.path.back(), "decimal value does not fit in 128 bits");
      return Status::OK();
    }
    case LeafConversion::kInt96ToMicros: {
      resize();
      int64_t* d = out->data<int64_t>() + s0;
      for (size_t i = 0; i < n; ++i) d[i] = Int96ToMicros(f + 12 * i);
      return Status::OK();
    }
    case LeafConversion::kMillisToMicros:
    case LeafConversion::kNanosToMicros: {
      resize();
      int64_t* d = out->data<int64_t>() + s0;
      for (size_t i = 0; i < n; ++i) {
        int64_t v;
        std::memcpy(&v, f + 8 * i, 8);
        d[i] = leaf.conversion == LeafConversion::kMillisToMicros ? v * 1000 : FloorDiv(v, 1000);
      }
      return Status::OK();
    }
    case LeafConversion::kFloat16ToFloat: {
      resize();
      float* d = out->data<float>() + s0;
      for (size_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, f + 2 * i, 2);
        d[i] = HalfToFloat(h);
      }
      return Status::OK();
    }
    case LeafConversion::kUuidToString:
      for (size_t i = 0; i < n; ++i) out->AppendString(UuidText(f + 16 * i));
      return Status::OK();
  }
  return Status::Internal("unhandled conversion");
}

// ------------------------------------------------------------------ page decoding

// Decoded content of one leaf column for a row group.
struct LeafData {
  std::vector<int16_t> def, rep;  // per entry, when the max level > 0
  Vector values;                  // max_rep == 0: one row per entry (spaced); else dense
  int64_t entries = 0;
  int64_t first_row = 0;  // row index (in the row group) of the first decoded record
  // Dictionary mode (ChunkDecoder::set_keep_dictionary): while every page read is
  // dictionary-encoded, rows are kept as indices into the decoder's dictionary (values stays
  // empty); a page in another encoding flattens them into values and ends the mode.
  bool dict_mode = false;
  std::vector<int32_t> dict_indices;  // one per row (0 for a null row)
  std::vector<uint8_t> dict_valid;    // one per row when the leaf is nullable
  explicit LeafData(TypePtr t) : values(std::move(t)) {}
};

// Fills rows [s0, s0+entries) of v from its n_dense values at [s0, s0+n_dense), in place, putting
// nulls where def < max_def.
template <typename L>
void SpreadNulls(Vector* v, size_t s0, const L* def, size_t entries, L max_def) {
  size_t n_dense = v->size() - s0;
  if (n_dense == entries) return;
  if (v->id() == TypeId::kNull) {
    v->Resize(s0 + entries);
    return;
  }
  if (v->type()->is_binary_like()) {
    auto& off = v->offsets_buffer();
    off.resize(s0 + entries + 1);
    size_t j = s0 + n_dense;  // offsets index of the end of the last dense value
    for (size_t i = entries; i-- > 0;) {
      off[s0 + i + 1] = off[j];
      if (def[i] == max_def) --j;
    }
    // off[s0] is unchanged (== start of the first dense value).
    v->SetSizeUnchecked(s0 + entries);
  } else {
    int w = v->type()->fixed_width();
    v->ResizeUninitialized(s0 + entries);  // every slot is written below
    uint8_t* d = v->data<uint8_t>() + s0 * w;
    auto spread = [&](auto tag) {
      using T = decltype(tag);
      T* t = reinterpret_cast<T*>(d);
      size_t j = n_dense;
      for (size_t i = entries; i-- > 0;) {
        bool present = def[i] == max_def;
        j -= present;
        T x{};
        if (present) std::memcpy(&x, &t[j], sizeof(T));
        std::memcpy(&t[i], &x, sizeof(T));
      }
    };
    switch (w) {
      case 1:
        spread(uint8_t{});
        break;
      case 2:
        spread(uint16_t{});
        break;
      case 4:
        spread(uint32_t{});
        break;
      case 8:
        spread(uint64_t{});
        break;
      case 16:
        spread(int128_t{});
        break;
      default: {
        size_t j = n_dense;
        for (size_t i = entries; i-- > 0;) {
          if (def[i] == max_def) {
            --j;
            if (j != i) std::memmove(d + i * w, d + j * w, w);
          } else {
            std::memset(d + i * w, 0, w);
          }
        }
      }
    }
  }
  uint8_t* valid = v->mutable_validity() + s0;
  for (size_t i = 0; i < entries; ++i) valid[i] = def[i] == max_def;
}

// The number of 1s among n validity bytes (each 0 or 1), 8 bytes per step: the byte loop does not
// vectorize (the bytes may alias the bound) and took a tenth of a flat nullable column's scan.
size_t CountValid(const uint8_t* valid, size_t n) {
  size_t count = 0, i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, valid + i, 8);
    count += static_cast<size_t>((w * 0x0101010101010101ULL) >> 56);  // sum of the 8 bytes
  }
  for (; i < n; ++i) count += valid[i];
  return count;
}

// Flat nullable columns (T: an unsigned integer type of the value's width): `valid` (0/1 per row of
// a page, `last_end` = one past its last 1) puts the page's dense values in their rows in one
// forward pass. Rows [0, last_end) always have a dense value at or after them, so the load of value
// j never reads past the dense values; null rows get zero bytes, as SpreadNulls gives them.
template <typename T>
void ScatterDense(const uint8_t* src, const uint8_t* valid, size_t n, size_t last_end,
                  uint8_t* dst) {
  size_t j = 0;
  for (size_t i = 0; i < last_end; ++i) {
    T x;
    std::memcpy(&x, src + j * sizeof(T), sizeof(T));
    x &= T{0} - static_cast<T>(valid[i]);  // a mask, not a branch: nulls are unpredictable
    std::memcpy(dst + i * sizeof(T), &x, sizeof(T));
    j += valid[i];
  }
  if (n > last_end) std::memset(dst + last_end * sizeof(T), 0, (n - last_end) * sizeof(T));
}

// The same for dictionary indices: row i gets dict[idx[j]] (idx checked against the dictionary).
template <typename T>
void ScatterDictionary(const uint8_t* dict, const uint32_t* idx, const uint8_t* valid, size_t n,
                       size_t last_end, uint8_t* dst) {
  size_t j = 0;
  for (size_t i = 0; i < last_end; ++i) {
    T x;
    std::memcpy(&x, dict + static_cast<size_t>(idx[j]) * sizeof(T), sizeof(T));
    x &= T{0} - static_cast<T>(valid[i]);
    std::memcpy(dst + i * sizeof(T), &x, sizeof(T));
    j += valid[i];
  }
  if (n > last_end) std::memset(dst + last_end * sizeof(T), 0, (n - last_end) * sizeof(T));
}

// Width-dispatched ScatterDense (idx == nullptr) or ScatterDictionary.
void ScatterFixed(int w, const uint8_t* src, const uint32_t* idx, const uint8_t* valid, size_t n,
                  size_t last_end, uint8_t* dst) {
  auto run = [&](auto tag) {
    using T = decltype(tag);
    if (idx)
      ScatterDictionary<T>(src, idx, valid, n, last_end, dst);
    else
      ScatterDense<T>(src, valid, n, last_end, dst);
  };
  switch (w) {
    case 1:
      return run(uint8_t{});
    case 2:
      return run(uint16_t{});
    case 4:
      return run(uint32_t{});
    case 8:
      return run(uint64_t{});
    case 16:
      return run(int128_t{});
    default: {
      const size_t width = static_cast<size_t>(w);
      size_t j = 0;
      for (size_t i = 0; i < n; ++i) {
        if (valid[i]) {
          const size_t from = idx ? idx[j] : j;
          std::memcpy(dst + i * width, src + from * width, width);
          ++j;
        } else {
          std::memset(dst + i * width, 0, width);
        }
      }
    }
  }
}

class ChunkDecoder {
 public:
  ChunkDecoder(const ParquetFile& file, const ReaderOptions& opts, const ColumnNode& leaf,
               std::string where)
      : file_(file), opts_(opts), leaf_(leaf), where_(std::move(where)), dict_(leaf.type) {}

  // Decodes the data pages of `cc` that cover rows [first_row, end_row) (all pages without an
  // offset index) into out.
  Status Decode(const ColumnChunk& cc, const std::shared_ptr<RandomAccessFile>& f,
                int64_t first_row, int64_t end_row, const OffsetIndex* oi, bool keep_def,
                LeafData* out);
  // Byte-array leaves without repetition: Decode hands each non-null value to `sink` (views into
  // the page or dictionary) instead of building out->values.
  void set_sink(const std::function<Status(std::string_view)>* sink) { sink_ = sink; }
  // Flat string/binary leaves: Decode keeps dictionary-encoded pages as indices (LeafData's
  // dictionary mode) instead of copying each row's bytes; TakeDictionary then hands over the
  // dictionary they index.
  void set_keep_dictionary(bool keep) { keep_dictionary_ = keep; }
  std::shared_ptr<const Vector> TakeDictionary() {
    auto d = std::make_shared<Vector>(std::move(dict_));
    dict_ = Vector(leaf_.type);
    has_dict_ = dict_loaded_ = false;
    return d;
  }

 private:
  // Dictionary mode ends: the rows kept as indices become values.
  void FlattenDictRows(LeafData* out);
  Status DecodeDataPage(const PageHeader& h, const uint8_t* data, size_t len, bool keep_def,
                        LeafData* out);
  Status DecodeValues(Encoding enc, const uint8_t* data, size_t len, size_t n, Vector* out);
  // Reads a dictionary-encoded page's n indices into indices_, each checked against the dictionary.
  Status DecodeDictIndices(const uint8_t* data, size_t len, size_t n);
  Status SinkValues(Encoding enc, const uint8_t* data, size_t len, size_t n);
  Status DecodeDictionary(const PageHeader& h, const uint8_t* data, size_t len);
  Status Decompressed(const PageHeader& h, const uint8_t* data, size_t len, size_t skip,
                      const uint8_t** out, size_t* out_len);
  template <typename L>
  Status DecodeLevels(Encoding enc, int16_t max, const uint8_t* data, size_t len, size_t n, L* out,
                      size_t* consumed, bool prefixed);
  // A flat nullable leaf's page with some nulls: its n_dense values put in their rows of out
  // (valid[0..n) = 0/1 per row) in one pass where the encoding allows, and the validity set.
  Status DecodeNullable(Encoding enc, const uint8_t* data, size_t len, size_t n, size_t n_dense,
                        const uint8_t* valid, Vector* out);
  // Decoder errors carry no file/column: name them, as Corruption with silt's Parquet class.
  Status Rewhere(const Status& s) const {
    if (s.message().find(where_) != std::string_view::npos) return s;
    if (s.IsCorruption()) return Corrupt(where_, std::string(s.message()));
    return s.WithContext(where_);
  }

  const ParquetFile& file_;
  const ReaderOptions& opts_;
  const ColumnNode& leaf_;
  std::string where_;
  CompressionCodec codec_ = CompressionCodec::UNCOMPRESSED;
  Vector dict_;
  bool has_dict_ = false;
  // dict_ holds the chunk's decoded dictionary: a later Decode of the same chunk by this decoder
  // (ReadRowGroupSelected's row runs) uses it instead of reading and decoding it again.
  bool dict_loaded_ = false;
  // The dictionary page, decoded when the first dictionary-encoded data page needs it: a row
  // range past the writer's fallback to PLAIN never pays for it.
  std::optional<PageHeader> pending_dict_;
  const uint8_t* pending_dict_data_ = nullptr;
  size_t pending_dict_len_ = 0;
  // Decompressed page bytes, reused across pages; grown without zeroing (every byte handed out is
  // written by the memcpy and the codec first).
  std::unique_ptr<uint8_t[]> scratch_;
  size_t scratch_size_ = 0;
  std::vector<uint32_t> indices_;
  std::vector<int16_t> page_def_;
  // Flat leaves with max_def 1: the page's definition levels are its rows' validity bytes.
  std::vector<uint8_t> page_valid_;
  // Rows the current Decode call is expected to produce (flat leaves): string bytes grow to
  // the size their first pages extrapolate to, instead of doubling (and copying) page by page.
  int64_t expect_rows_ = 0;
  Staging staging_;
  const std::function<Status(std::string_view)>* sink_ = nullptr;
  bool keep_dictionary_ = false;
};

void ChunkDecoder::FlattenDictRows(LeafData* out) {
  out->dict_mode = false;
  if (!out->dict_indices.empty()) {
    DictionaryVector d;
    d.dictionary = std::shared_ptr<const Vector>(std::shared_ptr<const Vector>(), &dict_);
    d.indices = std::move(out->dict_indices);
    d.validity = std::move(out->dict_valid);
    AppendFlattened(d, &out->values);
  }
  out->dict_indices.clear();
  out->dict_valid.clear();
}

Status ChunkDecoder::DecodeDictIndices(const uint8_t* data, size_t len, size_t n) {
  if (!has_dict_) return Corrupt(where_, "dictionary-encoded page without a dictionary page");
  if (len < 1) return Corrupt(where_, "truncated dictionary indices");
  int bw = data[0];
  if (bw > 32) return Corrupt(where_, "dictionary index bit width " + std::to_string(bw));
  indices_.resize(n);
  RleBitPackedDecoder dec(data + 1, len - 1, bw);
  SILT_RETURN_NOT_OK(dec.Get(indices_.data(), n));
  const uint32_t dsize = static_cast<uint32_t>(dict_.size());
  uint32_t bad = 0;
  for (size_t i = 0; i < n; ++i) bad |= indices_[i] >= dsize;
  if (bad) return Corrupt(where_, "dictionary index out of range");
  return Status::OK();
}

Status ChunkDecoder::SinkValues(Encoding enc, const uint8_t* data, size_t len, size_t n) {
  const std::function<Status(std::string_view)>& sink = *sink_;
  if (enc == Encoding::PLAIN) {
    // The page's bytes in place: no string vector, no copy.
    size_t pos = 0;
    for (size_t i = 0; i < n; ++i) {
      if (len - pos < 4) return Corrupt(where_, "PLAIN byte array data truncated");
      const uint32_t l = LoadLE32(data + pos);
      pos += 4;
      if (l > len - pos) return Corrupt(where_, "PLAIN byte array value overruns the page");
      SILT_RETURN_NOT_OK(sink(std::string_view(reinterpret_cast<const char*>(data + pos), l)));
      pos += l;
    }
    return Status::OK();
  }
  if (enc == Encoding::PLAIN_DICTIONARY || enc == Encoding::RLE_DICTIONARY) {
    SILT_RETURN_NOT_OK(DecodeDictIndices(data, len, n));
    for (size_t i = 0; i < n; ++i) SILT_RETURN_NOT_OK(sink(dict_.GetString(indices_[i])));
    return Status::OK();
  }
  // Other encodings (DELTA_*): decoded as usual, then handed over.
  Vector values(leaf_.type);
  SILT_RETURN_NOT_OK(DecodeValues(enc, data, len, n, &values));
  for (size_t i = 0; i < values.size(); ++i) SILT_RETURN_NOT_OK(sink(values.GetString(i)));
  return Status::OK();
}

Status ChunkDecoder::Decompressed(const PageHeader& h, const uint8_t* data, size_t len, size_t skip,
                                  const uint8_t** out, size_t* out_len) {
  // `skip` leading bytes (v2 levels) are never compressed.
  size_t total = static_cast<size_t>(h.uncompressed_page_size);
  if (skip > total || skip > len) return Corrupt(where_, "level bytes exceed the page size");
  bool compressed = codec_ != CompressionCodec::UNCOMPRESSED &&
                    !(h.data_page_header_v2 && !h.data_page_header_v2->is_compressed);
  if (!compressed) {
    if (len != total) {
      // Some writers leave uncompressed_page_size == compressed size; trust the shorter.
      if (len < total) return Corrupt(where_, "uncompressed page shorter than its header says");
    }
    *out = data;
    *out_len = std::min(len, total);
    return Status::OK();
  }
  // The claimed size sizes the buffer below: check it against the compressed bytes first.
  if (Status c = CheckDecompressedSize(codec_, data + skip, len - skip, total - skip); !c.ok())
    return Rewhere(c);
  if (total > scratch_size_) {
    scratch_ = std::make_unique_for_overwrite<uint8_t[]>(total);
    scratch_size_ = total;
  }
  std::memcpy(scratch_.get(), data, skip);
  Status s = Decompress(codec_, data + skip, len - skip, scratch_.get() + skip, total - skip);
  if (!s.ok()) return Rewhere(s);
  *out = scratch_.get();
  *out_len = total;
  return Status::OK();
}

template <typename L>
Status ChunkDecoder::DecodeLevels(Encoding enc, int16_t max, const uint8_t* data, size_t len,
                                  size_t n, L* out, size_t* consumed, bool prefixed) {
  int bw = BitWidth(static_cast<uint64_t>(max));
  if (enc == Encoding::BIT_PACKED) {
    if constexpr (std::is_same_v<L, int16_t>) {
      return DecodeBitPackedLegacy(data, len, bw, n, out, consumed);
    } else {
      return Status::Internal("BIT_PACKED levels decode to int16 levels only");
    }
  }
  if (enc != Encoding::RLE)
    return Corrupt(where_, std::string("unsupported level encoding ") + EncodingName(enc));
  const uint8_t* p = data;
  size_t plen = len;
  if (prefixed) {
    if (len < 4) return Corrupt(where_, "truncated level length");
    uint32_t l = LoadLE32(data);
    if (l > len - 4) return Corrupt(where_, "level length exceeds the page");
    p = data + 4;
    plen = l;
    *consumed = 4 + l;
  } else {
    *consumed = len;
  }
  RleBitPackedDecoder dec(p, plen, bw);
  SILT_RETURN_NOT_OK(dec.Get(out, n));
  // The decoder yields values of at most bw bits: only a maximum below 2^bw - 1 needs a check
  // (one branch-free pass; the offending level is looked up only on failure).
  if (max == (1 << bw) - 1) return Status::OK();
  bool bad = false;
  for (size_t i = 0; i < n; ++i) bad |= out[i] > max;
  if (bad)
    for (size_t i = 0; i < n; ++i)
      if (out[i] > max)
        return Corrupt(where_, "level " + std::to_string(out[i]) + " exceeds the maximum " +
                                   std::to_string(max));
  return Status::OK();
}

Status ChunkDecoder::DecodeValues(Encoding enc, const uint8_t* data, size_t len, size_t n,
                                  Vector* out) {
  if (n == 0) return Status::OK();
  if (leaf_.type->id() == TypeId::kNull) {
    out->Resize(out->size() + n);
    return Status::OK();
  }
  if (enc == Encoding::PLAIN_DICTIONARY || enc == Encoding::RLE_DICTIONARY) {
    SILT_RETURN_NOT_OK(DecodeDictIndices(data, len, n));
    out->AppendSelected(dict_, indices_.data(), n);
    return Status::OK();
  }
  const Type pt = leaf_.physical_type;
  const int w = PhysicalByteWidth(leaf_);
  size_t consumed = 0;
  if (pt == Type::BOOLEAN) {
    size_t s0 = out->size();
    out->ResizeUninitialized(s0 + n);
    uint8_t* d = out->data<uint8_t>() + s0;
    if (enc == Encoding::PLAIN) return DecodePlainBoolean(data, len, 0, n, d);
    if (enc == Encoding::RLE) {
      if (len < 4) return Corrupt(where_, "truncated boolean RLE length");
      uint32_t l = LoadLE32(data);
      if (l > len - 4) return Corrupt(where_, "boolean RLE length exceeds the page");
      RleBitPackedDecoder dec(data + 4, l, 1);
      return dec.Get(d, n);
    }
    return Corrupt(where_, std::string("encoding ") + EncodingName(enc) + " for BOOLEAN");
  }
  const bool direct = leaf_.conversion == LeafConversion::kNone;
  if (pt == Type::BYTE_ARRAY) {
    Vector* target = direct ? out : &staging_.bytes;
    if (!direct) staging_.Clear();
    Status s;
    switch (enc) {
      case Encoding::PLAIN:
        s = DecodePlainByteArray(data, len, n, target, &consumed);
        break;
      case Encoding::DELTA_LENGTH_BYTE_ARRAY:
        s = DecodeDeltaLengthByteArray(data, len, n, target, &consumed);
        break;
      case Encoding::DELTA_BYTE_ARRAY:
        s = DecodeDeltaByteArray(data, len, n, target, &consumed);
        break;
      default:
        return Corrupt(where_, std::string("encoding ") + EncodingName(enc) + " for BYTE_ARRAY");
    }
    SILT_RETURN_NOT_OK(s);
    return direct ? Status::OK() : ConvertAppend(leaf_, staging_, n, out);
  }
  // Fixed width: decode straight into the output when no conversion is needed.
  uint8_t* dst;
  size_t s0 = out->size();
  const bool in_place = direct && pt != Type::FIXED_LEN_BYTE_ARRAY;
  if (in_place) {
    out->ResizeUninitialized(s0 + n);
    dst = out->data<uint8_t>() + s0 * w;
  } else {
    staging_.Clear();
    staging_.fixed.resize(n * static_cast<size_t>(w));
    dst = staging_.fixed.data();
  }
  switch (enc) {
    case Encoding::PLAIN:
      SILT_RETURN_NOT_OK(DecodePlainFixed(data, len, n, w, dst, &consumed));
      break;
    case Encoding::BYTE_STREAM_SPLIT:
      if (pt == Type::INT96) return Corrupt(where_, "BYTE_STREAM_SPLIT for INT96");
      SILT_RETURN_NOT_OK(DecodeByteStreamSplit(data, len, n, w, dst));
      break;
    case Encoding::DELTA_BINARY_PACKED: {
      DeltaBinaryPackedDecoder dec;
      SILT_RETURN_NOT_OK(dec.Init(data, len));
      if (pt == Type::INT32) {
        SILT_RETURN_NOT_OK(dec.Get(reinterpret_cast<int32_t*>(dst), n));
      } else if (pt == Type::INT64) {
        SILT_RETURN_NOT_OK(dec.Get(reinterpret_cast<int64_t*>(dst), n));
      } else {
        return Corrupt(where_, "DELTA_BINARY_PACKED for a non-integer column");
      }
      break;
    }
    case Encoding::DELTA_BYTE_ARRAY: {
      if (pt != Type::FIXED_LEN_BYTE_ARRAY)
        return Corrupt(where_, "DELTA_BYTE_ARRAY for a fixed-width column");
      Vector tmp(DataType::Binary());
      SILT_RETURN_NOT_OK(DecodeDeltaByteArray(data, len, n, &tmp, &consumed, w));
      std::memcpy(dst, tmp.bytes().data(), n * static_cast<size_t>(w));
      break;
    }
    default:
      return Corrupt(where_, std::string("encoding ") + EncodingName(enc) + " for " + TypeName(pt));
  }
  return in_place ? Status::OK() : ConvertAppend(leaf_, staging_, n, out);
}

Status ChunkDecoder::DecodeNullable(Encoding enc, const uint8_t* data, size_t len, size_t n,
                                    size_t n_dense, const uint8_t* valid, Vector* out) {
  const size_t s0 = out->size();
  size_t last_end = n;
  while (last_end > 0 && !valid[last_end - 1]) --last_end;
  const Type pt = leaf_.physical_type;
  const int w = out->type()->fixed_width();
  const bool dict = enc == Encoding::PLAIN_DICTIONARY || enc == Encoding::RLE_DICTIONARY;
  const bool binary = out->type()->is_binary_like();
  const bool plain_direct =
      enc == Encoding::PLAIN && leaf_.conversion == LeafConversion::kNone &&
      (pt == Type::INT32 || pt == Type::INT64 || pt == Type::FLOAT || pt == Type::DOUBLE) &&
      w == PhysicalByteWidth(leaf_);
  if (plain_direct || (dict && w > 0 && !binary && !out->type()->is_nested())) {
    const uint32_t* idx = nullptr;
    const uint8_t* src = data;
    if (dict) {
      SILT_RETURN_NOT_OK(DecodeDictIndices(data, len, n_dense));
      idx = indices_.data();
      src = dict_.data<uint8_t>();
    } else if (n_dense > len / static_cast<size_t>(w)) {
      return Corrupt(where_, "PLAIN data truncated: " + std::to_string(n_dense) + " values of " +
                                 std::to_string(w) + " bytes, " + std::to_string(len) +
                                 " bytes left");
    }
    out->ResizeUninitialized(s0 + n);
    ScatterFixed(w, src, idx, valid, n, last_end, out->data<uint8_t>() + s0 * w);
  } else if (dict && binary) {
    SILT_RETURN_NOT_OK(DecodeDictIndices(data, len, n_dense));
    const uint32_t* idx = indices_.data();
    const uint32_t* doff = dict_.offsets();
    const char* dbytes = dict_.bytes().data();
    const size_t dsize = dict_.bytes().size();
    size_t total = 0;
    for (size_t j = 0; j < n_dense; ++j) total += doff[idx[j] + 1] - doff[idx[j]];
    std::string& bytes = out->bytes();
    size_t b = bytes.size();
    if (b + total > UINT32_MAX) return Status::Unsupported(where_ + ": string column over 4 GB");
    if (b + total + 16 > bytes.capacity() && expect_rows_ > static_cast<int64_t>(s0 + n)) {
      // Sized once from the bytes per row so far (+1/8); beyond 1 GB it grows as it goes.
      const double per_row = static_cast<double>(b + total) / static_cast<double>(s0 + n);
      const double want = per_row * static_cast<double>(expect_rows_) * 1.125 + 16;
      bytes.reserve(std::max(b + total + 16, static_cast<size_t>(std::min<double>(want, 1 << 30))));
    }
    // 16 bytes of slack: short strings are copied with one fixed-size move (the dictionary has
    // 16 bytes of slack too, DecodeDictionary).
    bytes.resize(b + total + 16);
    auto& off = out->offsets_buffer();
    off.resize(s0 + n + 1);
    uint32_t* o = off.data() + s0 + 1;
    char* dst = bytes.data();
    size_t j = 0;
    for (size_t i = 0; i < last_end; ++i) {
      const uint32_t k = idx[j], o0 = doff[k];
      const uint32_t l = (doff[k + 1] - o0) & (0u - valid[i]);
      if (l <= 16 && o0 + 16 <= dsize) {
        std::memcpy(dst + b, dbytes + o0, 16);
      } else {
        std::memcpy(dst + b, dbytes + o0, l);
      }
      b += l;
      o[i] = static_cast<uint32_t>(b);
      j += valid[i];
    }
    for (size_t i = last_end; i < n; ++i) o[i] = static_cast<uint32_t>(b);
    bytes.resize(b);
    out->SetSizeUnchecked(s0 + n);
  } else {
    SILT_RETURN_NOT_OK(DecodeValues(enc, data, len, n_dense, out));
    SpreadNulls(out, s0, valid, n, uint8_t{1});
    return Status::OK();
  }
  std::memcpy(out->mutable_validity() + s0, valid, n);
  return Status::OK();
}

Status ChunkDecoder::DecodeDictionary(const PageHeader& h, const uint8_t* data, size_t len) {
  if (!h.dictionary_page_header) return Corrupt(where_, "dictionary page without its header");
  const auto& dh = *h.dictionary_page_header;
  if (dh.num_values < 0 || dh.num_values > opts_.max_page_values)
    return Corrupt(where_, "dictionary size " + std::to_string(dh.num_values));
  if (dh.encoding != Encoding::PLAIN && dh.encoding != Encoding::PLAIN_DICTIONARY)
    return Corrupt(where_, std::string("dictionary encoding ") + EncodingName(dh.encoding));
  const uint8_t* p;
  size_t plen;
  SILT_RETURN_NOT_OK(Decompressed(h, data, len, 0, &p, &plen));
  // Each value takes at least one bit (booleans) or byte: a count beyond that is a lie.
  if (leaf_.physical_type != Type::BOOLEAN && static_cast<size_t>(dh.num_values) > plen * 1 &&
      PhysicalByteWidth(leaf_) != 0)
    return Corrupt(where_, "dictionary claims more values than its bytes hold");
  dict_.Clear();
  SILT_RETURN_NOT_OK(
      DecodeValues(Encoding::PLAIN, p, plen, static_cast<size_t>(dh.num_values), &dict_));
  // Slack after the last string (not part of any value): Vector::AppendSelected copies a short
  // string with one 16-byte move only when 16 bytes are readable, which a dictionary of 1-byte
  // flags would otherwise never offer.
  if (dict_.type()->is_binary_like()) dict_.bytes().append(16, '\0');
  has_dict_ = true;
  dict_loaded_ = true;
  return Status::OK();
}

Status ChunkDecoder::DecodeDataPage(const PageHeader& h, const uint8_t* data, size_t len,
                                    bool keep_def, LeafData* out) {
  int32_t num_values;
  Encoding enc;
  const uint8_t* values;
  size_t values_len;
  const bool has_rep = leaf_.max_rep > 0, has_def = leaf_.max_def > 0;
  size_t e0 = static_cast<size_t>(out->entries);
  int16_t* def = nullptr;
  int16_t* rep = nullptr;
  // Flat leaf with max_def 1 (the common nullable column): levels decode straight into validity
  // bytes and the values land in their rows in one pass (DecodeNullable). v1 pages need RLE
  // levels (the legacy BIT_PACKED ones take the int16 path).
  const bool byte_valid =
      has_def && !has_rep && !keep_def && leaf_.max_def == 1 && sink_ == nullptr &&
      leaf_.type->id() != TypeId::kNull &&
      (h.type != PageType::DATA_PAGE ||
       (h.data_page_header && h.data_page_header->definition_level_encoding == Encoding::RLE));
  uint8_t* valid = nullptr;
  auto alloc_levels = [&](size_t n) {
    if (byte_valid) {
      page_valid_.resize(n);
      valid = page_valid_.data();
      return;
    }
    if (has_rep) {
      out->rep.resize(e0 + n);
      rep = out->rep.data() + e0;
    }
    if (has_def) {
      if (keep_def || has_rep) {
        out->def.resize(e0 + n);
        def = out->def.data() + e0;
      } else {
        page_def_.resize(n);
        def = page_def_.data();
      }
    }
  };
  // Before the page is decompressed: the dictionary shares scratch_.
  auto load_dictionary = [&]() -> Status {
    if (!pending_dict_ || (enc != Encoding::PLAIN_DICTIONARY && enc != Encoding::RLE_DICTIONARY))
      return Status::OK();
    PageHeader dict_header = std::move(*pending_dict_);
    pending_dict_.reset();
    return DecodeDictionary(dict_header, pending_dict_data_, pending_dict_len_);
  };
  if (h.type == PageType::DATA_PAGE) {
    if (!h.data_page_header) return Corrupt(where_, "data page without its header");
    const auto& dh = *h.data_page_header;
    num_values = dh.num_values;
    enc = dh.encoding;
    SILT_RETURN_NOT_OK(load_dictionary());
    if (num_values < 0 || num_values > opts_.max_page_values)
      return Corrupt(where_, "page value count " + std::to_string(num_values));
    const uint8_t* p;
    size_t plen;
    SILT_RETURN_NOT_OK(Decompressed(h, data, len, 0, &p, &plen));
    alloc_levels(static_cast<size_t>(num_values));
    size_t used = 0;
    if (has_rep) {
      SILT_RETURN_NOT_OK(DecodeLevels(dh.repetition_level_encoding, leaf_.max_rep, p, plen,
                                      static_cast<size_t>(num_values), rep, &used, true));
      p += used;
      plen -= used;
    }
    if (byte_valid) {
      SILT_RETURN_NOT_OK(DecodeLevels(dh.definition_level_encoding, leaf_.max_def, p, plen,
                                      static_cast<size_t>(num_values), valid, &used, true));
      p += used;
      plen -= used;
    } else if (has_def) {
      SILT_RETURN_NOT_OK(DecodeLevels(dh.definition_level_encoding, leaf_.max_def, p, plen,
                                      static_cast<size_t>(num_values), def, &used, true));
      p += used;
      plen -= used;
    }
    values = p;
    values_len = plen;
  } else {
    if (!h.data_page_header_v2) return Corrupt(where_, "data page v2 without its header");
    const auto& dh = *h.data_page_header_v2;
    num_values = dh.num_values;
    enc = dh.encoding;
    SILT_RETURN_NOT_OK(load_dictionary());
    if (num_values < 0 || num_values > opts_.max_page_values)
      return Corrupt(where_, "page value count " + std::to_string(num_values));
    if (dh.repetition_levels_byte_length < 0 || dh.definition_levels_byte_length < 0)
      return Corrupt(where_, "negative level length");
    size_t rl = static_cast<size_t>(dh.repetition_levels_byte_length);
    size_t dl = static_cast<size_t>(dh.definition_levels_byte_length);
    if (rl > len || dl > len - rl) return Corrupt(where_, "level lengths exceed the page");
    alloc_levels(static_cast<size_t>(num_values));
    size_t used;
    if (has_rep)
      SILT_RETURN_NOT_OK(DecodeLevels(Encoding::RLE, leaf_.max_rep, data, rl,
                                      static_cast<size_t>(num_values), rep, &used, false));
    if (byte_valid)
      SILT_RETURN_NOT_OK(DecodeLevels(Encoding::RLE, leaf_.max_def, data + rl, dl,
                                      static_cast<size_t>(num_values), valid, &used, false));
    else if (has_def)
      SILT_RETURN_NOT_OK(DecodeLevels(Encoding::RLE, leaf_.max_def, data + rl, dl,
                                      static_cast<size_t>(num_values), def, &used, false));
    const uint8_t* p;
    size_t plen;
    SILT_RETURN_NOT_OK(Decompressed(h, data, len, rl + dl, &p, &plen));
    values = p + rl + dl;
    values_len = plen - rl - dl;
  }
  size_t n = static_cast<size_t>(num_values);
  if (has_rep && n > 0 && rep[0] != 0 && (e0 == 0 || h.type == PageType::DATA_PAGE_V2))
    return Corrupt(
        where_,
        "repetition levels of a column chunk (or v2 page) must start a new record (level 0), got " +
            std::to_string(rep[0]));
  if (out->dict_mode) {
    if (enc == Encoding::PLAIN_DICTIONARY || enc == Encoding::RLE_DICTIONARY) {
      size_t dense = n;
      if (byte_valid) {
        dense = CountValid(valid, n);
      } else if (has_def) {
        dense = 0;
        for (size_t i = 0; i < n; ++i) dense += def[i] == leaf_.max_def;
      }
      SILT_RETURN_NOT_OK(DecodeDictIndices(values, values_len, dense));
      const size_t r0 = out->dict_indices.size();
      out->dict_indices.resize(r0 + n);
      int32_t* idx = out->dict_indices.data() + r0;
      if (has_def) {
        out->dict_valid.resize(r0 + n);
        uint8_t* v = out->dict_valid.data() + r0;
        if (byte_valid) {
          std::memcpy(v, valid, n);
        } else {
          for (size_t i = 0; i < n; ++i) v[i] = def[i] == leaf_.max_def;
        }
        // Row i takes the next dense index, masked to 0 on a null row: no branch on the nulls
        // (unpredictable). The slot past the dense indices is read by trailing null rows.
        indices_.push_back(0);
        const uint32_t* in = indices_.data();
        size_t j = 0;
        for (size_t i = 0; i < n; ++i) {
          idx[i] = static_cast<int32_t>(in[j] & (0u - v[i]));
          j += v[i];
        }
      } else {
        for (size_t i = 0; i < n; ++i) idx[i] = static_cast<int32_t>(indices_[i]);
      }
      out->entries += num_values;
      return Status::OK();
    }
    FlattenDictRows(out);
  }
  size_t n_dense = n;
  if (byte_valid) {
    n_dense = CountValid(valid, n);  // levels are checked to be 0 or 1
    if (n_dense != n)
      SILT_RETURN_NOT_OK(DecodeNullable(enc, values, values_len, n, n_dense, valid, &out->values));
    else
      SILT_RETURN_NOT_OK(DecodeValues(enc, values, values_len, n, &out->values));
    out->entries += num_values;
    return Status::OK();
  }
  if (has_def) {
    n_dense = 0;
    for (size_t i = 0; i < n; ++i) n_dense += def[i] == leaf_.max_def;
  }
  if (sink_ != nullptr) {
    out->entries += num_values;
    return SinkValues(enc, values, values_len, n_dense);
  }
  size_t s0 = out->values.size();
  SILT_RETURN_NOT_OK(DecodeValues(enc, values, values_len, n_dense, &out->values));
  if (!has_rep && n_dense != n) SpreadNulls(&out->values, s0, def, n, leaf_.max_def);
  out->entries += num_values;
  return Status::OK();
}

Status ChunkDecoder::Decode(const ColumnChunk& cc, const std::shared_ptr<RandomAccessFile>& f,
                            int64_t first_row, int64_t end_row, const OffsetIndex* oi,
                            bool keep_def, LeafData* out) {
  (void)file_;
  if (!cc.meta_data) return Corrupt(where_, "column chunk without metadata");
  const ColumnMetaData& md = *cc.meta_data;
  codec_ = md.codec;
  // A dictionary page seen by an earlier Decode but never decoded points into that call's bytes.
  pending_dict_.reset();
  if (md.num_values < 0) return Corrupt(where_, "negative value count");
  out->dict_mode = keep_dictionary_ && sink_ == nullptr && leaf_.max_rep == 0 &&
                   leaf_.max_def <= 1 && leaf_.physical_type == Type::BYTE_ARRAY &&
                   leaf_.conversion == LeafConversion::kNone && leaf_.type->is_binary_like();
  if (md.num_values == 0) return Status::OK();  // empty chunk: writers may leave offsets unset
  int64_t start = md.data_page_offset;
  if (md.dictionary_page_offset && *md.dictionary_page_offset > 0 &&
      *md.dictionary_page_offset < start)
    start = *md.dictionary_page_offset;
  int64_t size = md.total_compressed_size;
  if (start < 4 || size < 0 || start > f->size() || size > f->size() - start)
    return Corrupt(where_, "column chunk [" + std::to_string(start) + ", +" + std::to_string(size) +
                               ") lies outside the file of " + std::to_string(f->size()) +
                               " bytes");
  // With an offset index, jump over data pages that end before first_row and stop at end_row.
  size_t first_page = 0;
  if (oi && !oi->page_locations.empty()) {
    const auto& locs = oi->page_locations;
    while (first_page + 1 < locs.size() && locs[first_page + 1].first_row_index <= first_row)
      ++first_page;
    out->first_row = locs[first_page].first_row_index;
  }
  // The chunk's bytes held: a row range reads only the bytes before the first data page (the
  // dictionary, if any) and its own pages, so the ranges of one chunk read (and allocate) it
  // about once in all. [0, head_len) is in head, [tail_begin, tail_end) in tail.
  const size_t buf_size = static_cast<size_t>(size);
  std::unique_ptr<uint8_t[]> head, tail;
  size_t head_len = 0, tail_begin = 0, tail_end = 0;
  auto read_all = [&]() -> Status {
    tail.reset();
    tail_begin = tail_end = 0;
    head.reset(new uint8_t[buf_size]);  // uninitialized: every byte is read next
    head_len = buf_size;
    return f->ReadAt(start, size, head.get());
  };
  bool partial = false;
  // A range starting past the dictionary region reads that region only once one of its pages is
  // dictionary-encoded: after a writer's PLAIN fallback, later ranges never need the dictionary.
  bool dict_deferred = false;
  int64_t head_end = 0;
  if (oi && !oi->page_locations.empty()) {
    const auto& locs = oi->page_locations;
    size_t last = first_page;
    while (last + 1 < locs.size() && locs[last + 1].first_row_index < end_row) ++last;
    auto end_of = [&](size_t i) {
      return locs[i].offset + static_cast<int64_t>(locs[i].compressed_page_size) - start;
    };
    head_end = locs[0].offset - start;
    const int64_t range_begin = locs[first_page].offset - start, range_end = end_of(last);
    bool valid =
        head_end >= 0 && range_begin >= head_end && range_end <= size && range_begin <= range_end;
    for (size_t i = 0; valid && i <= last; ++i) valid = locs[i].compressed_page_size >= 0;
    if (valid && (range_begin > head_end || range_end < size)) {
      partial = true;
      dict_deferred = range_begin > head_end && head_end > 0;
      head_len = range_begin > head_end
                     ? 0
                     : static_cast<size_t>(std::min(std::max(head_end, range_end), size));
      if (head_len > 0) {
        head.reset(new uint8_t[head_len]);
        SILT_RETURN_NOT_OK(f->ReadAt(start, static_cast<int64_t>(head_len), head.get()));
      }
      if (range_begin > head_end) {
        tail_begin = static_cast<size_t>(range_begin);
        tail_end = static_cast<size_t>(range_end);
        tail.reset(new uint8_t[tail_end - tail_begin]);
        SILT_RETURN_NOT_OK(f->ReadAt(start + range_begin, range_end - range_begin, tail.get()));
      }
    }
  }
  if (!partial) SILT_RETURN_NOT_OK(read_all());
  size_t dict_pos = 0;  // chunk offset of the pending dictionary page's bytes
  // The bytes held from chunk offset p on (nullptr when p was not read).
  auto held = [&](size_t p, size_t* avail) -> const uint8_t* {
    if (p < head_len) {
      *avail = head_len - p;
      return head.get() + p;
    }
    if (p >= tail_begin && p < tail_end) {
      *avail = tail_end - p;
      return tail.get() + (p - tail_begin);
    }
    return nullptr;
  };
  // Flat columns: one value slot per row, so size the output once instead of growing it by pages.
  // The reservation is capped by the bytes held: a row count the pages do not back never sizes an
  // allocation (the pages' own counts are checked as they are decoded).
  if (leaf_.max_rep == 0 && sink_ == nullptr) {
    const int64_t cap = std::max<int64_t>(int64_t{1} << 16, size * 8);
    const size_t rows = static_cast<size_t>(std::min(end_row - first_row, cap));
    if (out->dict_mode) {
      out->dict_indices.reserve(out->dict_indices.size() + rows);
      if (leaf_.max_def > 0) out->dict_valid.reserve(out->dict_valid.size() + rows);
    } else {
      out->values.Reserve(out->values.size() + rows);
      expect_rows_ = static_cast<int64_t>(out->values.size() + rows);
    }
  }
  size_t page_no = 0;
  int64_t values_seen = 0;
  bool jumped = first_page == 0;
  // Where the data pages start: a range past the first page jumps there to its own pages.
  const size_t data_begin =
      oi && !oi->page_locations.empty() && oi->page_locations[0].offset >= start
          ? static_cast<size_t>(oi->page_locations[0].offset - start)
          : buf_size;
  size_t pos = dict_deferred ? data_begin : 0;  // deferred: straight to the range's first page
  // Once the deferred dictionary region is held: parse its page, then jump back to the range.
  auto start_over_from_dictionary = [&] {
    dict_deferred = false;
    pos = 0;
    page_no = 0;
    jumped = false;
  };
  while (pos < buf_size && values_seen < md.num_values) {
    if (!jumped && pos >= data_begin) {
      const int64_t target = oi->page_locations[first_page].offset - start;
      if (target < 0 || target > static_cast<int64_t>(buf_size))
        return Corrupt(where_, "offset index points outside the chunk");
      pos = static_cast<size_t>(target);
      page_no = first_page;
      jumped = true;
      continue;
    }
    // Past the range: stop before reading the next page's header (its bytes may not be read).
    if (oi && !oi->page_locations.empty() && jumped &&
        (page_no >= oi->page_locations.size() ||
         oi->page_locations[page_no].first_row_index >= end_row))
      break;
    size_t avail = 0;
    const uint8_t* at = held(pos, &avail);
    PageHeader h;
    size_t consumed = 0;
    Status s = at ? DeserializePageHeader(at, avail, &h, &consumed, opts_.limits) : Status::OK();
    if (head_len < buf_size && (!at || !s.ok() || h.compressed_page_size < 0 ||
                                static_cast<size_t>(h.compressed_page_size) > avail - consumed)) {
      // The pages disagree with the offset index: read the whole chunk and parse this page again.
      SILT_RETURN_NOT_OK(read_all());
      if (pending_dict_) pending_dict_data_ = head.get() + dict_pos;
      if (dict_deferred) start_over_from_dictionary();
      continue;
    }
    if (!s.ok()) return s.WithContext(where_);
    pos += consumed;
    if (h.compressed_page_size < 0 ||
        static_cast<size_t>(h.compressed_page_size) > avail - consumed)
      return Corrupt(where_, "page of " + std::to_string(h.compressed_page_size) +
                                 " bytes overruns the column chunk");
    if (h.uncompressed_page_size < 0) return Corrupt(where_, "negative page size");
    if (h.uncompressed_page_size > opts_.max_page_bytes)
      return Status::Unsupported(where_ + ": page of " + std::to_string(h.uncompressed_page_size) +
                                     " bytes exceeds the reader's limit of " +
                                     std::to_string(opts_.max_page_bytes),
                                 errc::kSiltParquetPageTooLarge);
    const uint8_t* data = at + consumed;
    size_t len = static_cast<size_t>(h.compressed_page_size);
    pos += len;
    if (h.crc && opts_.verify_page_crc) {
      uint32_t crc = static_cast<uint32_t>(crc32(0L, data, static_cast<uInt>(len)));
      if (crc != static_cast<uint32_t>(*h.crc)) return Corrupt(where_, "page CRC mismatch");
    }
    if (h.type == PageType::DICTIONARY_PAGE) {
      pending_dict_ = std::move(h);
      pending_dict_data_ = data;
      dict_pos = pos - len;
      pending_dict_len_ = len;
      dict_.Clear();
      has_dict_ = true;
      dict_loaded_ = false;
    } else if (h.type == PageType::DATA_PAGE || h.type == PageType::DATA_PAGE_V2) {
      if (!jumped) {
        // First data page reached: skip to the first page holding first_row.
        const auto& loc = oi->page_locations[first_page];
        int64_t target = loc.offset - start;
        jumped = true;
        if (target < 0 || target > static_cast<int64_t>(buf_size))
          return Corrupt(where_, "offset index points outside the chunk");
        if (static_cast<size_t>(target) != pos - len - consumed) {
          pos = static_cast<size_t>(target);
          page_no = first_page;
          continue;
        }
      }
      if (dict_deferred) {
        const Encoding enc =
            h.type == PageType::DATA_PAGE
                ? (h.data_page_header ? h.data_page_header->encoding : Encoding::PLAIN)
                : (h.data_page_header_v2 ? h.data_page_header_v2->encoding : Encoding::PLAIN);
        if ((enc == Encoding::PLAIN_DICTIONARY || enc == Encoding::RLE_DICTIONARY) &&
            !dict_loaded_) {
          // Nothing of this page was decoded yet: the jump comes back to it.
          head_len = static_cast<size_t>(head_end);
          head.reset(new uint8_t[head_len]);
          SILT_RETURN_NOT_OK(f->ReadAt(start, head_end, head.get()));
          start_over_from_dictionary();
          continue;
        }
      }
      int32_t nv = h.type == PageType::DATA_PAGE
                       ? (h.data_page_header ? h.data_page_header->num_values : 0)
                       : (h.data_page_header_v2 ? h.data_page_header_v2->num_values : 0);
      Status ps = DecodeDataPage(h, data, len, keep_def, out);
      if (!ps.ok()) return Rewhere(ps);
      values_seen += nv;
      ++page_no;
    }
    // INDEX_PAGE and unknown page types are skipped.
  }
  if (!oi && values_seen < md.num_values)
    return Corrupt(where_, "column chunk ended after " + std::to_string(values_seen) + " of " +
                               std::to_string(md.num_values) + " values");
  return Status::OK();
}

// ------------------------------------------------------------------ record assembly

class Assembler {
 public:
  Assembler(std::vector<LeafData>& leaves, const std::string& where)
      : leaves_(leaves), where_(where) {}

  // Builds node n; rows are the entries of its first leaf with rep <= row_rep && def >= row_def.
  Status Build(const ColumnNode& n, int16_t row_def, int16_t row_rep, Vector* out) {
    const LeafData& ld = leaves_[n.FirstLeaf().leaf_index];
    const ColumnNode& fl = n.FirstLeaf();
    if (n.kind == ColumnNode::kLeaf && n.max_rep == 0) {
      *out = std::move(leaves_[n.leaf_index].values);
      return Status::OK();
    }
    const int16_t* def = fl.max_def > 0 ? ld.def.data() : nullptr;
    const int16_t* rep = fl.max_rep > 0 ? ld.rep.data() : nullptr;
    size_t entries = static_cast<size_t>(ld.entries);
    auto is_row = [&](size_t i) {
      return (!rep || rep[i] <= row_rep) && (!def || def[i] >= row_def);
    };
    switch (n.kind) {
      case ColumnNode::kLeaf: {
        const Vector& dense = leaves_[n.leaf_index].values;  // moved into *out below
        std::vector<uint8_t> valid;
        valid.reserve(entries);
        size_t present = 0;
        for (size_t i = 0; i < entries; ++i) {
          if (!is_row(i)) continue;
          bool v = !def || def[i] == n.max_def;
          valid.push_back(v);
          present += v;
        }
        if (present != dense.size())
          return Corrupt(where_, "value count disagrees with the definition levels");
        // Take the dense values and spread them in place, as for flat columns.
        *out = std::move(leaves_[n.leaf_index].values);
        if (present != valid.size()) {
          SpreadNulls(out, 0, valid.data(), valid.size(), uint8_t{1});
        }
        return Status::OK();
      }
      case ColumnNode::kStruct: {
        *out = Vector(n.type);
        size_t rows = 0;
        std::vector<uint8_t> valid;
        for (size_t i = 0; i < entries; ++i) {
          if (!is_row(i)) continue;
          valid.push_back(!def || def[i] >= n.def_level);
          ++rows;
        }
        for (size_t c = 0; c < n.children.size(); ++c) {
          SILT_RETURN_NOT_OK(Build(n.children[c], row_def, row_rep, &out->child(c)));
          if (out->child(c).size() != rows)
            return Corrupt(where_, "struct fields have different row counts");
        }
        FinishStruct(out, rows, valid);
        return Status::OK();
      }
      case ColumnNode::kList:
      case ColumnNode::kMap: {
        *out = Vector(n.type);
        std::vector<uint8_t> valid;
        auto& off = out->offsets_buffer();
        uint32_t elems = 0;
        bool any_null = false;
        for (size_t i = 0; i < entries; ++i) {
          bool row = is_row(i);
          if (row) {
            if (valid.size()) off.push_back(elems);
            valid.push_back(!def || def[i] >= n.def_level);
            any_null |= !valid.back();
          }
          if ((!rep || rep[i] <= n.elem_rep) && (!def || def[i] >= n.elem_def)) ++elems;
        }
        if (valid.size()) off.push_back(elems);
        for (size_t c = 0; c < n.children.size(); ++c) {
          SILT_RETURN_NOT_OK(Build(n.children[c], n.elem_def, n.elem_rep, &out->child(c)));
          if (out->child(c).size() != elems)
            return Corrupt(where_, "list elements disagree with the levels");
        }
        out->Resize(valid.size());  // offsets already in place; sets the row count
        if (any_null) std::memcpy(out->mutable_validity(), valid.data(), valid.size());
        return Status::OK();
      }
    }
    return Status::Internal("unknown node kind");
  }

 private:
  // Children are built with `rows` entries each; set the struct's row count and validity.
  static void FinishStruct(Vector* out, size_t rows, const std::vector<uint8_t>& valid) {
    out->Resize(rows);
    bool any_null = std::find(valid.begin(), valid.end(), 0) != valid.end();
    if (any_null) std::memcpy(out->mutable_validity(), valid.data(), rows);
  }
  std::vector<LeafData>& leaves_;
  const std::string& where_;
};

void CollectLeaves(const ColumnNode& n, std::vector<const ColumnNode*>* out) {
  if (n.kind == ColumnNode::kLeaf) {
    out->push_back(&n);
    return;
  }
  for (const auto& c : n.children) CollectLeaves(c, out);
}

// ------------------------------------------------------------------ statistics

std::optional<Value> DecodeStat(const ColumnNode& leaf, const std::string& b) {
  const TypePtr& t = leaf.type;
  auto need = [&](size_t n) { return b.size() >= n; };
  auto i32 = [&] {
    int32_t v;
    std::memcpy(&v, b.data(), 4);
    return v;
  };
  auto i64 = [&] {
    int64_t v;
    std::memcpy(&v, b.data(), 8);
    return v;
  };
  switch (leaf.conversion) {
    case LeafConversion::kNone:
      switch (leaf.physical_type) {
        case Type::BOOLEAN:
          if (!need(1)) return std::nullopt;
          return Value::Boolean(b[0] != 0);
        case Type::INT32:
          if (!need(4)) return std::nullopt;
          return Value::Integer(t, i32());
        case Type::INT64:
          if (!need(8)) return std::nullopt;
          return Value::Integer(t, i64());
        case Type::FLOAT: {
          if (!need(4)) return std::nullopt;
          float f;
          std::memcpy(&f, b.data(), 4);
          if (std::isnan(f)) return std::nullopt;
          return Value::Floating(t, f);
        }
        case Type::DOUBLE: {
          if (!need(8)) return std::nullopt;
          double d;
          std::memcpy(&d, b.data(), 8);
          if (std::isnan(d)) return std::nullopt;
          return Value::Floating(t, d);
        }
        case Type::BYTE_ARRAY:
        case Type::FIXED_LEN_BYTE_ARRAY:
          return t->id() == TypeId::kString ? Value::String(b) : Value::Binary(b);
        default:
          return std::nullopt;
      }
    case LeafConversion::kInt32ToInt8:
    case LeafConversion::kInt32ToInt16:
      if (!need(4)) return std::nullopt;
      return Value::Integer(t, i32());
    case LeafConversion::kUInt32ToInt64:
      if (!need(4)) return std::nullopt;
      return Value::Integer(t, static_cast<uint32_t>(i32()));
    case LeafConversion::kInt32ToDecimal:
      if (!need(4)) return std::nullopt;
      return Value::Decimal(t->precision(), t->scale(), i32());
    case LeafConversion::kInt64ToDecimal:
      if (!need(8)) return std::nullopt;
      return Value::Decimal(t->precision(), t->scale(), i64());
    case LeafConversion::kUInt64ToDecimal:
      if (!need(8)) return std::nullopt;
      return Value::Decimal(t->precision(), t->scale(), static_cast<uint64_t>(i64()));
    case LeafConversion::kBytesToDecimal: {
      if (b.empty()) return std::nullopt;
      bool overflow;
      int128_t v =
          BigEndianToInt128(reinterpret_cast<const uint8_t*>(b.data()), b.size(), &overflow);
      if (overflow) return std::nullopt;
      return Value::Decimal(t->precision(), t->scale(), v);
    }
    case LeafConversion::kMillisToMicros:
      if (!need(8)) return std::nullopt;
      return Value::Integer(t, i64() * 1000);
    case LeafConversion::kNanosToMicros:
      if (!need(8)) return std::nullopt;
      return Value::Integer(t, FloorDiv(i64(), 1000));
    case LeafConversion::kInt32MillisToMicros:
      if (!need(4)) return std::nullopt;
      return Value::Integer(t, static_cast<int64_t>(i32()) * 1000);
    default:
      return std::nullopt;  // INT96, FLOAT16, UUID: no trusted order here
  }
}

bool IsUnsignedLeaf(const ColumnNode& leaf) {
  return leaf.conversion == LeafConversion::kUInt32ToInt64 ||
         leaf.conversion == LeafConversion::kUInt64ToDecimal;
}

}  // namespace

std::optional<int> CompareValues(const Value& a, const Value& b) {
  if (a.is_null() || b.is_null()) return std::nullopt;
  TypeId ta = a.type()->id(), tb = b.type()->id();
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  switch (ta) {
    case TypeId::kBoolean:
      if (tb != ta) return std::nullopt;
      return cmp(a.boolean(), b.boolean());
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      if (tb == TypeId::kFloat || tb == TypeId::kDouble)
        return cmp(static_cast<double>(a.integer()), b.floating());
      if (b.type()->fixed_width() == 0 || tb == TypeId::kDecimal || tb == TypeId::kBoolean)
        return std::nullopt;
      return cmp(a.integer(), b.integer());
    case TypeId::kFloat:
    case TypeId::kDouble:
      if (tb == TypeId::kFloat || tb == TypeId::kDouble) return cmp(a.floating(), b.floating());
      if (tb == TypeId::kInt32 || tb == TypeId::kInt64 || tb == TypeId::kInt16 ||
          tb == TypeId::kInt8)
        return cmp(a.floating(), static_cast<double>(b.integer()));
      return std::nullopt;
    case TypeId::kDecimal:
      if (tb != TypeId::kDecimal || a.type()->scale() != b.type()->scale()) return std::nullopt;
      return cmp(a.decimal(), b.decimal());
    case TypeId::kString:
    case TypeId::kBinary: {
      if (tb != TypeId::kString && tb != TypeId::kBinary) return std::nullopt;
      int c = a.str().compare(b.str());  // std::string compares as unsigned char
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    default:
      return std::nullopt;
  }
}

bool StatsMayMatch(const ColumnStatistics& st, const ColumnPredicate& p) {
  switch (p.op) {
    case ColumnPredicate::kIsNull:
      return !st.null_count || *st.null_count > 0;
    case ColumnPredicate::kIsNotNull:
      return !st.null_count || *st.null_count < st.num_values;
    default:
      break;
  }
  if (st.null_count && *st.null_count == st.num_values && st.num_values > 0)
    return false;                         // all null
  if (p.literal.is_null()) return false;  // comparisons with NULL match nothing
  // kUnknown when a bound is missing or not comparable: it never excludes anything.
  constexpr int kUnknown = 2;
  int lo = st.min ? CompareValues(*st.min, p.literal).value_or(kUnknown) : kUnknown;  // min vs lit
  int hi = st.max ? CompareValues(*st.max, p.literal).value_or(kUnknown) : kUnknown;  // max vs lit
  bool lo_known = lo != kUnknown, hi_known = hi != kUnknown;
  switch (p.op) {
    case ColumnPredicate::kEq:
      return !(lo_known && lo > 0) && !(hi_known && hi < 0);
    case ColumnPredicate::kLt:
      return !(lo_known && lo >= 0);
    case ColumnPredicate::kLe:
      return !(lo_known && lo > 0);
    case ColumnPredicate::kGt:
      return !(hi_known && hi <= 0);
    case ColumnPredicate::kGe:
      return !(hi_known && hi < 0);
    default:
      return true;
  }
}

Result<std::unique_ptr<ParquetFile>> ParquetFile::Open(std::shared_ptr<RandomAccessFile> file,
                                                       ReaderOptions options) {
  std::unique_ptr<ParquetFile> pf(new ParquetFile(std::move(file), options));
  SILT_RETURN_NOT_OK(pf->Init());
  return pf;
}

Result<std::unique_ptr<ParquetFile>> ParquetFile::OpenPath(const std::string& path,
                                                           ReaderOptions options) {
  SILT_ASSIGN_OR_RETURN(auto f, OpenLocalFile(path));
  return Open(std::move(f), options);
}

Status ParquetFile::Init() {
  const std::string& where = file_->name();
  int64_t size = file_->size();
  if (size < 12)
    return Corrupt(where, "file of " + std::to_string(size) + " bytes is too small to be Parquet");
  int64_t tail = std::min<int64_t>(size, std::max<int64_t>(8, options_.footer_read_size));
  std::string buf(static_cast<size_t>(tail), '\0');
  SILT_RETURN_NOT_OK(file_->ReadAt(size - tail, tail, reinterpret_cast<uint8_t*>(buf.data())));
  const char* end = buf.data() + tail;
  if (std::memcmp(end - 4, "PARE", 4) == 0)
    return Status::NotImplemented(where + ": encrypted Parquet files are not supported",
                                  errc::kSiltParquetUnsupported);
  if (std::memcmp(end - 4, "PAR1", 4) != 0)
    return Corrupt(where, "not a Parquet file (no PAR1 magic at the end)");
  char head[4];
  SILT_RETURN_NOT_OK(file_->ReadAt(0, 4, reinterpret_cast<uint8_t*>(head)));
  if (std::memcmp(head, "PAR1", 4) != 0)
    return Corrupt(where, "not a Parquet file (no PAR1 magic at the start)");
  uint32_t footer_len = LoadLE32(reinterpret_cast<const uint8_t*>(end - 8));
  if (static_cast<int64_t>(footer_len) > size - 12)
    return Corrupt(where, "footer length " + std::to_string(footer_len) + " exceeds the file");
  const uint8_t* footer;
  std::string big;
  if (static_cast<int64_t>(footer_len) + 8 <= tail) {
    footer = reinterpret_cast<const uint8_t*>(end - 8 - footer_len);
  } else {
    big.resize(footer_len);
    SILT_RETURN_NOT_OK(
        file_->ReadAt(size - 8 - footer_len, footer_len, reinterpret_cast<uint8_t*>(big.data())));
    footer = reinterpret_cast<const uint8_t*>(big.data());
  }
  Status s = DeserializeFileMetaData(footer, footer_len, &metadata_, options_.limits);
  if (!s.ok()) return s.WithContext(where);
  auto schema = FileSchema::Make(metadata_.schema);
  if (!schema.ok()) return schema.status().WithContext(where);
  schema_ = std::move(schema).value();
  int64_t total = 0;
  for (size_t i = 0; i < metadata_.row_groups.size(); ++i) {
    const RowGroup& rg = metadata_.row_groups[i];
    if (rg.num_rows < 0) return Corrupt(where, "row group with a negative row count");
    if (rg.columns.size() != static_cast<size_t>(schema_.num_leaves()))
      return Corrupt(where, "row group " + std::to_string(i) + " has " +
                                std::to_string(rg.columns.size()) + " columns, the schema " +
                                std::to_string(schema_.num_leaves()));
    // Every leaf holds at least one entry per row, and a page at most max_page_values entries in at
    // least kMinPageBytes bytes (header included): a count beyond what the chunk's bytes can hold
    // is a lie, refused here before anything is sized by it.
    constexpr int64_t kMinPageBytes = 8;
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      const ColumnChunk& cc = rg.columns[c];
      if (!cc.meta_data) continue;  // refused when read
      const ColumnMetaData& md = *cc.meta_data;
      if (md.num_values < 0 || md.total_compressed_size < 0 || md.total_compressed_size > size)
        return Corrupt(where, "row group " + std::to_string(i) + ", column " + std::to_string(c) +
                                  ": " + std::to_string(md.num_values) + " values in " +
                                  std::to_string(md.total_compressed_size) + " bytes");
      const int64_t pages = std::max<int64_t>(1, md.total_compressed_size / kMinPageBytes);
      if (md.num_values / pages > options_.max_page_values)
        return Corrupt(where, "row group " + std::to_string(i) + ", column " + std::to_string(c) +
                                  " claims " + std::to_string(md.num_values) + " values in " +
                                  std::to_string(md.total_compressed_size) + " bytes");
      if (md.num_values < rg.num_rows)
        return Corrupt(where, "row group " + std::to_string(i) + " claims " +
                                  std::to_string(rg.num_rows) + " rows, column " +
                                  std::to_string(c) + " holds " + std::to_string(md.num_values) +
                                  " values");
    }
    if (rg.num_rows > INT64_MAX - total) return Corrupt(where, "row counts overflow");
    total += rg.num_rows;
  }
  if (total != metadata_.num_rows) {
    // Some writers leave num_rows unset; the row groups are the truth.
    metadata_.num_rows = total;
  }
  return Status::OK();
}

Result<ColumnIndex> ParquetFile::ReadColumnIndex(int rg, int leaf) const {
  const ColumnChunk& cc = metadata_.row_groups[rg].columns[leaf];
  if (!cc.column_index_offset || !cc.column_index_length)
    return Status::NotFound("no column index");
  int64_t off = *cc.column_index_offset, len = *cc.column_index_length;
  if (off < 0 || len <= 0 || off > file_->size() || len > file_->size() - off)
    return Corrupt(name(), "column index outside the file");
  std::string b(static_cast<size_t>(len), '\0');
  SILT_RETURN_NOT_OK(file_->ReadAt(off, len, reinterpret_cast<uint8_t*>(b.data())));
  ColumnIndex ci;
  SILT_RETURN_NOT_OK(DeserializeColumnIndex(reinterpret_cast<const uint8_t*>(b.data()), b.size(),
                                            &ci, options_.limits));
  return ci;
}

Result<OffsetIndex> ParquetFile::ReadOffsetIndex(int rg, int leaf) const {
  const ColumnChunk& cc = metadata_.row_groups[rg].columns[leaf];
  if (!cc.offset_index_offset || !cc.offset_index_length)
    return Status::NotFound("no offset index");
  int64_t off = *cc.offset_index_offset, len = *cc.offset_index_length;
  if (off < 0 || len <= 0 || off > file_->size() || len > file_->size() - off)
    return Corrupt(name(), "offset index outside the file");
  std::string b(static_cast<size_t>(len), '\0');
  SILT_RETURN_NOT_OK(file_->ReadAt(off, len, reinterpret_cast<uint8_t*>(b.data())));
  OffsetIndex oi;
  SILT_RETURN_NOT_OK(DeserializeOffsetIndex(reinterpret_cast<const uint8_t*>(b.data()), b.size(),
                                            &oi, options_.limits));
  // Page locations must be ordered by row; otherwise ignore the index.
  for (size_t i = 1; i < oi.page_locations.size(); ++i)
    if (oi.page_locations[i].first_row_index < oi.page_locations[i - 1].first_row_index)
      return Corrupt(name(), "offset index rows are not ascending");
  return oi;
}

Status ParquetFile::ReadRowGroup(int rg, const std::vector<int>& columns, DataChunk* out,
                                 int64_t first_row, int64_t num_rows) const {
  std::vector<const ColumnNode*> nodes;
  for (int ci : columns) {
    if (ci < 0 || ci >= static_cast<int>(schema_.columns().size()))
      return Status::InvalidArgument("column index out of range");
    nodes.push_back(&schema_.columns()[ci]);
  }
  if (columns.empty())
    for (const ColumnNode& c : schema_.columns()) nodes.push_back(&c);
  return ReadNodes(rg, nodes, out, first_row, num_rows);
}

Status ParquetFile::ReadRowGroupNodes(int rg, const std::vector<const ColumnNode*>& nodes,
                                      DataChunk* out) const {
  for (const ColumnNode* n : nodes) {
    if (!n) return Status::InvalidArgument("null column node");
    std::vector<const ColumnNode*> col_leaves;
    CollectLeaves(*n, &col_leaves);
    for (const ColumnNode* leaf : col_leaves)
      if (leaf->leaf_index < 0 || leaf->leaf_index >= schema_.num_leaves())
        return Status::InvalidArgument("column node of another file");
  }
  return ReadNodes(rg, nodes, out, 0, -1);
}

namespace {

// Decodes rows [first_row, end_row) of top-level column `col` of row group rg into *out.
// `leaves` is scratch space (one entry per leaf of the file). A flat column uses `flat_oi` and
// `flat_dec` when given (the offset index read once and a decoder that keeps the dictionary
// across calls), else reads its offset index and uses a decoder of its own.
Status DecodeNode(const ParquetFile& pf, const std::shared_ptr<RandomAccessFile>& file,
                  const ReaderOptions& options, int rg, const ColumnNode& col, int64_t first_row,
                  int64_t end_row, const OffsetIndex* flat_oi, ChunkDecoder* flat_dec,
                  std::vector<LeafData>* leaves_p, Vector* out,
                  std::optional<DictionaryVector>* dict_out = nullptr) {
  const RowGroup& group = pf.metadata().row_groups[rg];
  std::vector<LeafData>& leaves = *leaves_p;
  std::vector<const ColumnNode*> col_leaves;
  CollectLeaves(col, &col_leaves);
  int64_t col_first = -1;
  for (const ColumnNode* leaf : col_leaves) {
    std::string where = pf.name() + ": column '" + col.name + "'" +
                        (leaf != &col ? " (leaf " + std::to_string(leaf->leaf_index) + ")" : "") +
                        ", row group " + std::to_string(rg);
    std::optional<OffsetIndex> oi;
    if (flat_oi == nullptr && (first_row > 0 || end_row < group.num_rows)) {
      auto r = pf.ReadOffsetIndex(rg, leaf->leaf_index);
      if (r.ok()) oi = std::move(r).value();
    }
    // Nested columns need identical first rows in every leaf; use the page index only when flat.
    if (col.kind != ColumnNode::kLeaf) oi.reset();
    const OffsetIndex* use_oi =
        flat_oi != nullptr && col.kind == ColumnNode::kLeaf ? flat_oi : (oi ? &*oi : nullptr);
    std::optional<ChunkDecoder> own;
    ChunkDecoder* dec = flat_dec;
    if (dec == nullptr || col.kind != ColumnNode::kLeaf)
      dec = &own.emplace(pf, options, *leaf, where);
    LeafData& ld = leaves[leaf->leaf_index];
    ld = LeafData(leaf->type);
    dec->set_keep_dictionary(dict_out != nullptr && col.kind == ColumnNode::kLeaf);
    SILT_RETURN_NOT_OK(dec->Decode(group.columns[leaf->leaf_index], file, first_row, end_row,
                                   use_oi, leaf != &col, &ld));
    col_first = ld.first_row;
    if (ld.dict_mode) {
      // Still dictionary-encoded: the indices of rows [first_row, end_row).
      std::string where = pf.name() + ": column '" + col.name + "'";
      const int64_t have = static_cast<int64_t>(ld.dict_indices.size());
      const int64_t skip = first_row - col_first;
      if (col_first + have < end_row || skip < 0)
        return Corrupt(where, "decoded " + std::to_string(have) + " rows, row group has " +
                                  std::to_string(group.num_rows));
      DictionaryVector d;
      d.dictionary = dec->TakeDictionary();
      const bool exact = skip == 0 && have == end_row - first_row;  // pages = the range
      if (!ld.dict_valid.empty()) {
        auto begin = ld.dict_valid.begin() + skip;
        auto end = ld.dict_valid.begin() + (end_row - col_first);
        if (std::find(begin, end, 0) == end) {
          // No null row: validity stays empty.
        } else if (exact) {
          d.validity = std::move(ld.dict_valid);
        } else {
          d.validity.assign(begin, end);
        }
      }
      if (exact)
        d.indices = std::move(ld.dict_indices);
      else
        d.indices.assign(ld.dict_indices.begin() + skip,
                         ld.dict_indices.begin() + (end_row - col_first));
      *out = Vector(col.type);
      *dict_out = std::move(d);
      ld = LeafData(leaf->type);
      return Status::OK();
    }
  }
  Vector v(col.type);
  std::string where = pf.name() + ": column '" + col.name + "'";
  Assembler as(leaves, where);
  SILT_RETURN_NOT_OK(as.Build(col, 0, 0, &v));
  int64_t have = static_cast<int64_t>(v.size());
  int64_t skip = first_row - col_first;
  if (col_first + have < end_row || skip < 0)
    return Corrupt(where, "decoded " + std::to_string(have) + " rows, row group has " +
                              std::to_string(group.num_rows));
  if (skip > 0 || have != end_row - first_row) {
    Vector sliced(col.type);
    sliced.AppendRange(v, static_cast<size_t>(skip), static_cast<size_t>(end_row - first_row));
    v = std::move(sliced);
  }
  *out = std::move(v);
  for (const ColumnNode* leaf : col_leaves) leaves[leaf->leaf_index] = LeafData(leaf->type);
  return Status::OK();
}

}  // namespace

Status ParquetFile::ReadNodes(int rg, const std::vector<const ColumnNode*>& nodes, DataChunk* out,
                              int64_t first_row, int64_t num_rows) const {
  if (rg < 0 || rg >= num_row_groups())
    return Status::InvalidArgument("row group " + std::to_string(rg) + " out of range");
  const RowGroup& group = metadata_.row_groups[rg];
  if (first_row < 0) first_row = 0;
  if (first_row > group.num_rows) first_row = group.num_rows;
  int64_t end_row = num_rows < 0 ? group.num_rows : std::min(group.num_rows, first_row + num_rows);
  out->columns.clear();
  out->num_rows_without_columns = static_cast<size_t>(end_row - first_row);
  std::vector<LeafData> leaves;
  leaves.reserve(schema_.num_leaves());
  for (int i = 0; i < schema_.num_leaves(); ++i) leaves.emplace_back(schema_.leaf(i).type);
  for (const ColumnNode* node : nodes) {
    Vector v(node->type);
    SILT_RETURN_NOT_OK(DecodeNode(*this, file_, options_, rg, *node, first_row, end_row, nullptr,
                                  nullptr, &leaves, &v));
    out->columns.push_back(std::move(v));
  }
  return Status::OK();
}

Status ParquetFile::ReadRowGroupEncoded(int rg, const std::vector<int>& columns, EncodedChunk* out,
                                        int64_t first_row, int64_t num_rows) const {
  if (rg < 0 || rg >= num_row_groups())
    return Status::InvalidArgument("row group " + std::to_string(rg) + " out of range");
  std::vector<const ColumnNode*> nodes;
  for (int ci : columns) {
    if (ci < 0 || ci >= static_cast<int>(schema_.columns().size()))
      return Status::InvalidArgument("column index out of range");
    nodes.push_back(&schema_.columns()[ci]);
  }
  if (columns.empty())
    for (const ColumnNode& c : schema_.columns()) nodes.push_back(&c);
  const RowGroup& group = metadata_.row_groups[rg];
  if (first_row < 0) first_row = 0;
  if (first_row > group.num_rows) first_row = group.num_rows;
  int64_t end_row = num_rows < 0 ? group.num_rows : std::min(group.num_rows, first_row + num_rows);
  out->flat.clear();
  out->dict.clear();
  out->num_rows = static_cast<size_t>(end_row - first_row);
  std::vector<LeafData> leaves;
  leaves.reserve(schema_.num_leaves());
  for (int i = 0; i < schema_.num_leaves(); ++i) leaves.emplace_back(schema_.leaf(i).type);
  for (const ColumnNode* node : nodes) {
    Vector v(node->type);
    std::optional<DictionaryVector> d;
    SILT_RETURN_NOT_OK(DecodeNode(*this, file_, options_, rg, *node, first_row, end_row, nullptr,
                                  nullptr, &leaves, &v, &d));
    out->flat.push_back(std::move(v));
    out->dict.push_back(std::move(d));
  }
  return Status::OK();
}

Status ParquetFile::ReadRowGroupSelected(int rg, const std::vector<int>& columns, int64_t first_row,
                                         int64_t num_rows, const std::vector<uint32_t>& sel,
                                         DataChunk* out, bool* gathered) const {
  if (rg < 0 || rg >= num_row_groups())
    return Status::InvalidArgument("row group " + std::to_string(rg) + " out of range");
  const RowGroup& group = metadata_.row_groups[rg];
  if (first_row < 0 || num_rows < 0 || first_row + num_rows > group.num_rows)
    return Status::InvalidArgument("rows [" + std::to_string(first_row) + ", +" +
                                   std::to_string(num_rows) + ") outside row group " +
                                   std::to_string(rg));
  for (size_t i = 0; i < sel.size(); ++i)
    if (sel[i] >= num_rows || (i > 0 && sel[i] <= sel[i - 1]))
      return Status::InvalidArgument("row selection not ascending within the range");
  const int64_t end_row = first_row + num_rows;
  out->columns.clear();
  out->num_rows_without_columns = sel.size();
  std::vector<LeafData> leaves;
  leaves.reserve(schema_.num_leaves());
  for (int i = 0; i < schema_.num_leaves(); ++i) leaves.emplace_back(schema_.leaf(i).type);
  std::vector<uint32_t> local;
  // The flat columns' offset indexes; whether some page in the range holds no selected row.
  std::vector<std::optional<OffsetIndex>> indexes(columns.size());
  bool skips = false;
  for (size_t c = 0; c < columns.size(); ++c) {
    const int ci = columns[c];
    if (ci < 0 || ci >= static_cast<int>(schema_.columns().size()))
      return Status::InvalidArgument("column index out of range");
    const ColumnNode& col = schema_.columns()[static_cast<size_t>(ci)];
    if (col.kind != ColumnNode::kLeaf || sel.empty()) continue;
    auto r = ReadOffsetIndex(rg, col.leaf_index);
    if (!r.ok() || r->page_locations.empty() || r->page_locations[0].first_row_index != 0) continue;
    indexes[c] = std::move(r).value();
    const auto& locs = indexes[c]->page_locations;
    size_t page = 0, in_range = 0, hit = 0, last_hit = locs.size();
    for (size_t p = 0; p < locs.size(); ++p) {
      const int64_t page_end = p + 1 < locs.size() ? locs[p + 1].first_row_index : group.num_rows;
      in_range += locs[p].first_row_index < end_row && page_end > first_row;
    }
    for (uint32_t r : sel) {
      while (page + 1 < locs.size() && locs[page + 1].first_row_index <= first_row + r) ++page;
      if (page != last_hit) ++hit, last_hit = page;
    }
    skips = skips || hit < in_range;
  }
  if (gathered != nullptr) {
    *gathered = skips || sel.empty();
    // Every page holds a selected row: the range, whole (the caller picks the rows).
    if (!*gathered) return ReadRowGroup(rg, columns, out, first_row, num_rows);
  }
  for (size_t c = 0; c < columns.size(); ++c) {
    const ColumnNode& col = schema_.columns()[static_cast<size_t>(columns[c])];
    Vector result(col.type);
    std::optional<OffsetIndex>& oi = indexes[c];
    if (!oi) {
      // No page index (or nested): decode the range, keep the selected rows.
      Vector v(col.type);
      if (!sel.empty())
        SILT_RETURN_NOT_OK(DecodeNode(*this, file_, options_, rg, col, first_row, end_row, nullptr,
                                      nullptr, &leaves, &v));
      result.AppendSelected(v, sel.data(), sel.size());
      out->columns.push_back(std::move(result));
      continue;
    }
    // Runs of consecutive pages that hold a selected row: each is decoded (by one decoder, so the
    // dictionary is decoded once) and its selected rows kept; pages without one are not read.
    const auto& locs = oi->page_locations;
    std::string where = name() + ": column '" + col.name + "', row group " + std::to_string(rg);
    ChunkDecoder dec(*this, options_, col, where);
    size_t page = 0;
    size_t i = 0;
    Vector v(col.type);
    while (i < sel.size()) {
      const int64_t row = first_row + sel[i];
      while (page + 1 < locs.size() && locs[page + 1].first_row_index <= row) ++page;
      // Extend the run while the next page holds a selected row.
      size_t last = page;
      size_t j = i;
      for (;;) {
        const int64_t page_end =
            last + 1 < locs.size() ? locs[last + 1].first_row_index : group.num_rows;
        while (j < sel.size() && first_row + sel[j] < page_end) ++j;
        if (j >= sel.size() || last + 1 >= locs.size()) break;
        const int64_t next_end =
            last + 2 < locs.size() ? locs[last + 2].first_row_index : group.num_rows;
        if (first_row + sel[j] >= next_end) break;
        ++last;
      }
      const int64_t run_begin = std::max(first_row, locs[page].first_row_index);
      const int64_t run_end = std::min(
          end_row, last + 1 < locs.size() ? locs[last + 1].first_row_index : group.num_rows);
      SILT_RETURN_NOT_OK(
          DecodeNode(*this, file_, options_, rg, col, run_begin, run_end, &*oi, &dec, &leaves, &v));
      local.clear();
      for (size_t k = i; k < j; ++k)
        local.push_back(static_cast<uint32_t>(first_row + sel[k] - run_begin));
      result.AppendSelected(v, local.data(), local.size());
      i = j;
      page = last;
    }
    out->columns.push_back(std::move(result));
  }
  return Status::OK();
}

std::vector<int64_t> ParquetFile::PageRowStarts(int rg, int leaf) const {
  std::vector<int64_t> starts;
  if (rg >= 0 && rg < num_row_groups() && leaf >= 0 && leaf < schema_.num_leaves()) {
    if (auto oi = ReadOffsetIndex(rg, leaf); oi.ok()) {
      for (const PageLocation& loc : oi->page_locations) starts.push_back(loc.first_row_index);
    }
  }
  if (starts.empty() || starts.front() != 0) starts = {0};
  return starts;
}

Status ParquetFile::ForEachString(int rg, int leaf_index,
                                  const std::function<Status(std::string_view)>& fn,
                                  int64_t first_row, int64_t end_row) const {
  if (rg < 0 || rg >= num_row_groups())
    return Status::InvalidArgument("row group " + std::to_string(rg) + " out of range");
  if (leaf_index < 0 || leaf_index >= schema_.num_leaves())
    return Status::InvalidArgument("leaf " + std::to_string(leaf_index) + " out of range");
  const ColumnNode& leaf = schema_.leaf(leaf_index);
  if (leaf.physical_type != Type::BYTE_ARRAY || leaf.max_rep != 0 ||
      leaf.conversion != LeafConversion::kNone || !leaf.type->is_binary_like())
    return Status::InvalidArgument(name() +
                                   ": ForEachString needs a non-repeated string leaf, leaf " +
                                   std::to_string(leaf_index) + " is not one");
  const RowGroup& group = metadata_.row_groups[rg];
  if (end_row < 0 || end_row > group.num_rows) end_row = group.num_rows;
  std::optional<OffsetIndex> oi;
  if (first_row != 0 || end_row != group.num_rows) {
    auto r = ReadOffsetIndex(rg, leaf_index);
    auto boundary = [&](int64_t row) {
      if (row == 0 || row == group.num_rows) return true;
      if (!r.ok()) return false;
      for (const PageLocation& loc : r->page_locations)
        if (loc.first_row_index == row) return true;
      return false;
    };
    if (first_row < 0 || first_row > end_row || !boundary(first_row) || !boundary(end_row))
      return Status::InvalidArgument(name() + ": ForEachString rows [" + std::to_string(first_row) +
                                     ", " + std::to_string(end_row) +
                                     ") do not start and end at page boundaries");
    if (first_row == end_row) return Status::OK();
    if (r.ok()) oi = std::move(*r);
  }
  ChunkDecoder dec(
      *this, options_, leaf,
      name() + ": leaf " + std::to_string(leaf_index) + ", row group " + std::to_string(rg));
  dec.set_sink(&fn);
  LeafData ld(leaf.type);
  return dec.Decode(group.columns[leaf_index], file_, first_row, end_row, oi ? &*oi : nullptr,
                    false, &ld);
}

std::optional<ColumnNode> PruneStruct(const ColumnNode& col,
                                      const std::vector<std::string>& fields) {
  if (col.kind != ColumnNode::kStruct) return std::nullopt;
  ColumnNode out = col;
  out.children.clear();
  std::vector<Field> type_fields;
  const std::vector<Field>& all = col.type->fields();
  for (size_t i = 0; i < col.children.size(); ++i) {
    if (std::find(fields.begin(), fields.end(), col.children[i].name) == fields.end()) continue;
    out.children.push_back(col.children[i]);
    type_fields.push_back(all[i]);
  }
  if (out.children.empty()) return std::nullopt;
  out.type = DataType::Struct(std::move(type_fields));
  return out;
}

ColumnStatistics ParquetFile::GetStatistics(int rg, int leaf_index) const {
  ColumnStatistics out;
  const ColumnNode& leaf = schema_.leaf(leaf_index);
  const ColumnChunk& cc = metadata_.row_groups[rg].columns[leaf_index];
  if (!cc.meta_data) return out;
  out.num_values = cc.meta_data->num_values;
  if (!cc.meta_data->statistics) return out;
  const Statistics& s = *cc.meta_data->statistics;
  out.null_count = s.null_count;
  const std::string* mn = s.min_value ? &*s.min_value : nullptr;
  const std::string* mx = s.max_value ? &*s.max_value : nullptr;
  // Deprecated min/max use signed order: trust them only for signed numeric types.
  bool signed_numeric = leaf.physical_type != Type::BYTE_ARRAY &&
                        leaf.physical_type != Type::FIXED_LEN_BYTE_ARRAY &&
                        leaf.physical_type != Type::INT96 && !IsUnsignedLeaf(leaf);
  if (!mn && s.min && signed_numeric) mn = &*s.min;
  if (!mx && s.max && signed_numeric) mx = &*s.max;
  if (mn) out.min = DecodeStat(leaf, *mn);
  if (mx) out.max = DecodeStat(leaf, *mx);
  if (leaf.type->id() == TypeId::kFloat || leaf.type->id() == TypeId::kDouble) {
    // ±0.0: the data may hold either sign.
    if (out.min && out.min->floating() == 0.0) out.min = Value::Floating(leaf.type, -0.0);
    if (out.max && out.max->floating() == 0.0) out.max = Value::Floating(leaf.type, 0.0);
  }
  out.min_exact = s.is_min_value_exact.value_or(true);
  out.max_exact = s.is_max_value_exact.value_or(true);
  return out;
}

namespace {
// Leaf index of a top-level primitive column named `name`, or -1.
int PrimitiveLeaf(const FileSchema& schema, const std::string& name) {
  int c = schema.FindColumn(name);
  if (c < 0 || schema.columns()[c].kind != ColumnNode::kLeaf) return -1;
  return schema.columns()[c].leaf_index;
}
}  // namespace

bool ParquetFile::RowGroupMayMatch(int rg, const std::vector<ColumnPredicate>& preds) const {
  for (const auto& p : preds) {
    int leaf = PrimitiveLeaf(schema_, p.column);
    if (leaf < 0) continue;
    if (!StatsMayMatch(GetStatistics(rg, leaf), p)) return false;
  }
  return true;
}

std::vector<std::pair<int64_t, int64_t>> ParquetFile::MatchingRowRanges(
    int rg, const std::vector<ColumnPredicate>& preds) const {
  int64_t rows = metadata_.row_groups[rg].num_rows;
  int64_t lo = 0, hi = rows;  // hull of the rows that may match
  for (const auto& p : preds) {
    int leaf = PrimitiveLeaf(schema_, p.column);
    if (leaf < 0) continue;
    auto ci = ReadColumnIndex(rg, leaf);
    auto oi = ReadOffsetIndex(rg, leaf);
    if (!ci.ok() || !oi.ok()) continue;
    const auto& locs = oi->page_locations;
    size_t pages = locs.size();
    if (ci->min_values.size() != pages || ci->max_values.size() != pages ||
        ci->null_pages.size() != pages)
      continue;
    const ColumnNode& node = schema_.leaf(leaf);
    int64_t first = -1, last = -1;
    for (size_t i = 0; i < pages; ++i) {
      ColumnStatistics st;
      int64_t page_end = i + 1 < pages ? locs[i + 1].first_row_index : rows;
      st.num_values = page_end - locs[i].first_row_index;
      if (i < ci->null_counts.size()) st.null_count = ci->null_counts[i];
      if (ci->null_pages[i]) {
        st.null_count = st.num_values;
      } else {
        st.min = DecodeStat(node, ci->min_values[i]);
        st.max = DecodeStat(node, ci->max_values[i]);
      }
      if (StatsMayMatch(st, p)) {
        if (first < 0) first = locs[i].first_row_index;
        last = page_end;
      }
    }
    if (first < 0) return {};
    lo = std::max(lo, first);
    hi = std::min(hi, last);
  }
  if (lo >= hi) return {};
  return {{lo, hi}};
}

Result<std::unique_ptr<ParquetScanner>> ParquetScanner::Make(
    std::shared_ptr<const ParquetFile> file, ScanOptions options) {
  auto s = std::make_unique<ParquetScanner>();
  const FileSchema& schema = file->schema();
  if (options.columns.empty()) {
    for (size_t i = 0; i < schema.columns().size(); ++i)
      s->column_indices_.push_back(static_cast<int>(i));
  } else {
    for (const auto& c : options.columns) {
      int i = schema.FindColumn(c);
      if (i < 0)
        return Status::NotFound("column '" + c + "' not found in " + file->name(),
                                errc::kUnresolvedColumn);
      s->column_indices_.push_back(i);
    }
  }
  for (int i : s->column_indices_) s->output_schema_.push_back(schema.schema()[i]);
  s->file_ = std::move(file);
  s->options_ = std::move(options);
  return s;
}

Result<bool> ParquetScanner::Next(DataChunk* out) {
  const auto& groups = file_->metadata().row_groups;
  for (;;) {
    if (options_.limit >= 0 && returned_ >= options_.limit) return false;
    if (pending_rg_ >= 0 && !pending_ranges_.empty()) {
      auto [b, e] = pending_ranges_.front();
      pending_ranges_.erase(pending_ranges_.begin());
      int64_t file_b = rg_first_row_ + b, file_e = rg_first_row_ + e;
      // Apply the file-level window [offset, offset + limit).
      int64_t win_b = options_.offset + returned_;
      int64_t win_e = options_.limit < 0 ? INT64_MAX : options_.offset + options_.limit;
      int64_t rb = std::max(file_b, win_b), re = std::min(file_e, win_e);
      if (rb >= re) continue;
      SILT_RETURN_NOT_OK(
          file_->ReadRowGroup(pending_rg_, column_indices_, out, rb - rg_first_row_, re - rb));
      returned_ += re - rb;
      return true;
    }
    if (pending_rg_ >= 0) {
      rg_first_row_ += groups[pending_rg_].num_rows;
      pending_rg_ = -1;
    }
    if (next_rg_ >= static_cast<int>(groups.size())) return false;
    int rg = next_rg_++;
    pending_rg_ = rg;
    int64_t rows = groups[rg].num_rows;
    if (rg_first_row_ + rows <= options_.offset + returned_ || rows == 0 ||
        !file_->RowGroupMayMatch(rg, options_.predicates)) {
      if (rows > 0 && rg_first_row_ + rows > options_.offset + returned_) ++row_groups_skipped_;
      pending_ranges_.clear();
      continue;
    }
    pending_ranges_ = options_.predicates.empty()
                          ? std::vector<std::pair<int64_t, int64_t>>{{0, rows}}
                          : file_->MatchingRowRanges(rg, options_.predicates);
  }
}

}  // namespace silt::parquet
