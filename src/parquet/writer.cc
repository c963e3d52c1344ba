#include "parquet/writer.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <string_view>

#include "common/error_classes.h"
#include "common/hash.h"
#include "common/thread_pool.h"
#include "parquet/compression.h"
#include "parquet/encoding.h"

namespace silt::parquet {
namespace {

// ------------------------------------------------------------------ shredding (Dremel)

// Levels and the dense values of one leaf.
struct LeafShred {
  std::vector<int16_t> def, rep;
  const Vector* values = nullptr;
  std::vector<uint32_t> sel;  // rows of *values that are present (non-null), in order
  size_t entries = 0;
};

// Slots of a node: a row of its vector (idx >= 0) or an absent slot (ancestor null/empty) whose
// definition level is def_absent.
struct Slots {
  std::vector<int64_t> idx;
  std::vector<int16_t> def_absent;
  std::vector<int16_t> rep;
};

Status NotNull(const ColumnNode& n) {
  return Status::InvalidArgument("NULL value in non-nullable column '" + n.name + "'",
                                 errc::kDeltaNotNullConstraintViolated);
}

Status Shred(const Vector& v, const ColumnNode& n, const Slots& in,
             std::vector<LeafShred>* leaves) {
  size_t k_n = in.idx.size();
  if (n.kind == ColumnNode::kLeaf) {
    LeafShred& out = (*leaves)[n.leaf_index];
    out.values = &v;
    out.entries = k_n;
    if (n.max_def > 0) out.def.resize(k_n);
    if (n.max_rep > 0) out.rep.assign(in.rep.begin(), in.rep.end());
    for (size_t k = 0; k < k_n; ++k) {
      int64_t i = in.idx[k];
      int16_t d;
      if (i < 0) {
        d = in.def_absent[k];
      } else if (v.IsNull(static_cast<size_t>(i))) {
        if (!n.nullable) return NotNull(n);
        d = n.slot_def;
      } else {
        d = n.max_def;
        out.sel.push_back(static_cast<uint32_t>(i));
      }
      if (n.max_def > 0) out.def[k] = d;
    }
    return Status::OK();
  }
  if (n.kind == ColumnNode::kStruct) {
    Slots child;
    child.idx.resize(k_n);
    child.def_absent.resize(k_n);
    child.rep = in.rep;
    for (size_t k = 0; k < k_n; ++k) {
      int64_t i = in.idx[k];
      if (i >= 0 && v.IsNull(static_cast<size_t>(i))) {
        if (!n.nullable) return NotNull(n);
        child.idx[k] = -1;
        child.def_absent[k] = n.slot_def;
      } else {
        child.idx[k] = i;
        child.def_absent[k] = in.def_absent[k];
      }
    }
    for (size_t c = 0; c < n.children.size(); ++c)
      SILT_RETURN_NOT_OK(Shred(v.child(c), n.children[c], child, leaves));
    return Status::OK();
  }
  // list / map
  Slots child;
  const uint32_t* off = v.offsets();
  for (size_t k = 0; k < k_n; ++k) {
    int64_t i = in.idx[k];
    int16_t absent = -1;
    if (i < 0) {
      absent = in.def_absent[k];
    } else if (v.IsNull(static_cast<size_t>(i))) {
      if (!n.nullable) return NotNull(n);
      absent = n.slot_def;
    } else if (off[i] == off[i + 1]) {
      absent = n.def_level;  // present but empty
    }
    if (absent >= 0) {
      child.idx.push_back(-1);
      child.def_absent.push_back(absent);
      child.rep.push_back(in.rep[k]);
      continue;
    }
    for (uint32_t j = off[i]; j < off[i + 1]; ++j) {
      child.idx.push_back(j);
      child.def_absent.push_back(0);
      child.rep.push_back(j == off[i] ? in.rep[k] : n.elem_rep);
    }
  }
  for (size_t c = 0; c < n.children.size(); ++c)
    SILT_RETURN_NOT_OK(Shred(v.child(c), n.children[c], child, leaves));
  return Status::OK();
}

// ------------------------------------------------------------------ physical values

void Int128ToBigEndian(int128_t v, int bytes, uint8_t* out) {
  unsigned __int128 u = static_cast<unsigned __int128>(v);
  for (int i = bytes - 1; i >= 0; --i) {
    out[i] = static_cast<uint8_t>(u & 0xFF);
    u >>= 8;
  }
}

// Dense values of a leaf in their physical PLAIN layout (fixed width), or references to the
// logical byte-array vector.
struct Physical {
  int width = 0;               // 0: byte array
  std::vector<uint8_t> owned;  // the converted values, unless `fixed` points into the vector
  const uint8_t* fixed = nullptr;
  const Vector* bytes = nullptr;
  const uint32_t* sel = nullptr;
  size_t n = 0;
  std::string_view Bytes(size_t i) const { return bytes->GetString(sel[i]); }
  size_t ValueBytes(size_t i) const {
    return width ? static_cast<size_t>(width) : Bytes(i).size() + 4;
  }
};

void MakePhysical(const ColumnNode& leaf, const LeafShred& sh, Physical* p) {
  const Vector& v = *sh.values;
  p->n = sh.sel.size();
  p->sel = sh.sel.data();
  p->width = PhysicalByteWidth(leaf);
  if (leaf.physical_type == Type::BYTE_ARRAY) {
    p->bytes = &v;
    return;
  }
  size_t n = p->n;
  const uint32_t* sel = sh.sel.data();
  // Without nulls the dense values are the vector's own when its layout is the physical one.
  if (n == v.size() && v.type()->fixed_width() == p->width && v.id() != TypeId::kBoolean &&
      v.id() != TypeId::kDecimal) {
    p->fixed = v.data<uint8_t>();
    return;
  }
  p->owned.resize(n * static_cast<size_t>(p->width));
  uint8_t* d = p->owned.data();
  p->fixed = d;
  switch (v.id()) {
    case TypeId::kBoolean:
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kFloat:
    case TypeId::kDouble: {
      int w = p->width;
      const uint8_t* s = v.data<uint8_t>();
      for (size_t i = 0; i < n; ++i) std::memcpy(d + i * w, s + size_t(sel[i]) * w, w);
      break;
    }
    case TypeId::kInt8:
      for (size_t i = 0; i < n; ++i) {
        int32_t x = v.data<int8_t>()[sel[i]];
        std::memcpy(d + 4 * i, &x, 4);
      }
      break;
    case TypeId::kInt16:
      for (size_t i = 0; i < n; ++i) {
        int32_t x = v.data<int16_t>()[sel[i]];
        std::memcpy(d + 4 * i, &x, 4);
      }
      break;
    case TypeId::kDecimal:
      for (size_t i = 0; i < n; ++i) {
        int128_t x = v.Get<int128_t>(sel[i]);
        if (leaf.physical_type == Type::INT32) {
          int32_t y = static_cast<int32_t>(x);
          std::memcpy(d + 4 * i, &y, 4);
        } else if (leaf.physical_type == Type::INT64) {
          int64_t y = static_cast<int64_t>(x);
          std::memcpy(d + 8 * i, &y, 8);
        } else {
          Int128ToBigEndian(x, p->width, d + i * p->width);
        }
      }
      break;
    default:
      break;
  }
}

// ------------------------------------------------------------------ statistics

// Dense positions of the minimum and maximum value in [b, e) (-1 when none, e.g. all NaN).
void MinMax(const Vector& v, const uint32_t* sel, size_t b, size_t e, int64_t* mn, int64_t* mx) {
  *mn = *mx = -1;
  auto scan = [&](auto get, auto less) {
    for (size_t i = b; i < e; ++i) {
      auto x = get(sel[i]);
      if constexpr (std::is_floating_point_v<decltype(x)>) {
        if (std::isnan(x)) continue;
      }
      if (*mn < 0 || less(x, get(sel[*mn]))) *mn = static_cast<int64_t>(i);
      if (*mx < 0 || less(get(sel[*mx]), x)) *mx = static_cast<int64_t>(i);
    }
  };
  auto lt = [](auto a, auto c) { return a < c; };
  switch (v.id()) {
    case TypeId::kBoolean:
      scan([&](uint32_t r) { return v.data<uint8_t>()[r]; }, lt);
      break;
    case TypeId::kInt8:
      scan([&](uint32_t r) { return v.data<int8_t>()[r]; }, lt);
      break;
    case TypeId::kInt16:
      scan([&](uint32_t r) { return v.data<int16_t>()[r]; }, lt);
      break;
    case TypeId::kInt32:
    case TypeId::kDate:
      scan([&](uint32_t r) { return v.data<int32_t>()[r]; }, lt);
      break;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      scan([&](uint32_t r) { return v.data<int64_t>()[r]; }, lt);
      break;
    case TypeId::kFloat:
      scan([&](uint32_t r) { return v.data<float>()[r]; }, lt);
      break;
    case TypeId::kDouble:
      scan([&](uint32_t r) { return v.data<double>()[r]; }, lt);
      break;
    case TypeId::kDecimal:
      scan([&](uint32_t r) { return v.Get<int128_t>(r); }, lt);
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      scan([&](uint32_t r) { return v.GetString(r); }, lt);
      break;
    default:
      break;
  }
}

std::string EncodeStat(const ColumnNode& leaf, const Vector& v, uint32_t row) {
  std::string out;
  switch (v.id()) {
    case TypeId::kString:
    case TypeId::kBinary:
      out = std::string(v.GetString(row));
      break;
    case TypeId::kBoolean:
      out.push_back(static_cast<char>(v.data<uint8_t>()[row]));
      break;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kDate: {
      int32_t x = v.id() == TypeId::kInt8    ? v.data<int8_t>()[row]
                  : v.id() == TypeId::kInt16 ? v.data<int16_t>()[row]
                                             : v.data<int32_t>()[row];
      out.assign(reinterpret_cast<const char*>(&x), 4);
      break;
    }
    case TypeId::kFloat: {
      float f = v.data<float>()[row];
      out.assign(reinterpret_cast<const char*>(&f), 4);
      break;
    }
    case TypeId::kDecimal: {
      int128_t x = v.Get<int128_t>(row);
      if (leaf.physical_type == Type::INT32) {
        int32_t y = static_cast<int32_t>(x);
        out.assign(reinterpret_cast<const char*>(&y), 4);
      } else if (leaf.physical_type == Type::INT64) {
        int64_t y = static_cast<int64_t>(x);
        out.assign(reinterpret_cast<const char*>(&y), 8);
      } else {
        out.resize(static_cast<size_t>(leaf.type_length));
        Int128ToBigEndian(x, leaf.type_length, reinterpret_cast<uint8_t*>(out.data()));
      }
      break;
    }
    default:  // int64, timestamps, double: the 8 bytes as stored
      out.assign(reinterpret_cast<const char*>(v.data<uint8_t>() + size_t(row) * 8), 8);
      break;
  }
  return out;
}

// Truncates a binary min bound to at most n bytes (a prefix is still <= every value).
bool TruncateMin(std::string* s, size_t n, bool utf8) {
  if (s->size() <= n) return true;
  size_t cut = n;
  if (utf8)
    while (cut > 0 && (static_cast<unsigned char>((*s)[cut]) & 0xC0) == 0x80) --cut;
  s->resize(cut);
  return false;
}

// Truncates a max bound and increments it so it stays >= every value. Returns whether the bound
// is exact; *ok is false when no such bound exists (e.g. all bytes 0xFF).
bool TruncateMax(std::string* s, size_t n, bool utf8, bool* ok) {
  *ok = true;
  if (s->size() <= n) return true;
  size_t cut = n;
  if (utf8)
    while (cut > 0 && (static_cast<unsigned char>((*s)[cut]) & 0xC0) == 0x80) --cut;
  s->resize(cut);
  while (!s->empty()) {
    unsigned char c = static_cast<unsigned char>(s->back());
    if (utf8 ? c < 0x7F : c < 0xFF) {
      s->back() = static_cast<char>(c + 1);
      return false;
    }
    // Drop the last character (for UTF-8: its continuation bytes and lead byte).
    if (utf8)
      while (!s->empty() && (static_cast<unsigned char>(s->back()) & 0xC0) == 0x80) s->pop_back();
    if (!s->empty()) s->pop_back();
  }
  *ok = false;
  return false;
}

// Encoded (and for binary, truncated) bounds of the values at rows min_row and max_row of v
// (min_row < 0: no bounds).
void FillStats(const ColumnNode& leaf, const Vector& v, int64_t min_row, int64_t max_row, int trunc,
               std::optional<std::string>* min_out, std::optional<std::string>* max_out,
               bool* min_exact, bool* max_exact) {
  *min_exact = *max_exact = true;
  if (min_row < 0) return;
  std::string smin = EncodeStat(leaf, v, static_cast<uint32_t>(min_row)),
              smax = EncodeStat(leaf, v, static_cast<uint32_t>(max_row));
  if (v.id() == TypeId::kFloat || v.id() == TypeId::kDouble) {
    // Zero bounds carry both signs: min -0.0, max +0.0 (PARQUET-1222).
    if (v.id() == TypeId::kFloat) {
      float f;
      std::memcpy(&f, smin.data(), 4);
      if (f == 0.0f) f = -0.0f, std::memcpy(smin.data(), &f, 4);
      std::memcpy(&f, smax.data(), 4);
      if (f == 0.0f) f = 0.0f, std::memcpy(smax.data(), &f, 4);
    } else {
      double d;
      std::memcpy(&d, smin.data(), 8);
      if (d == 0.0) d = -0.0, std::memcpy(smin.data(), &d, 8);
      std::memcpy(&d, smax.data(), 8);
      if (d == 0.0) d = 0.0, std::memcpy(smax.data(), &d, 8);
    }
  }
  if (v.type()->is_binary_like() && trunc > 0) {
    bool utf8 = v.id() == TypeId::kString;
    *min_exact = TruncateMin(&smin, static_cast<size_t>(trunc), utf8);
    bool ok;
    *max_exact = TruncateMax(&smax, static_cast<size_t>(trunc), utf8, &ok);
    if (!ok) {
      *min_out = smin;
      return;
    }
  }
  *min_out = std::move(smin);
  *max_out = std::move(smax);
}

// ------------------------------------------------------------------ dictionary

// Open-addressing map from a value to its dictionary index: slots hold index + 1 (0: empty) and
// the value's hash, so probing compares values only on a hash match and growing never rehashes.
class DictTable {
 public:
  DictTable() { Resize(1024); }
  // The slot of the value with `hash` for which same(index) holds, or the empty slot to put it.
  template <typename Same>
  size_t Find(uint64_t hash, Same same) const {
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.index1 == 0 || (s.hash == hash && same(s.index1 - 1))) return i;
    }
  }
  bool Empty(size_t slot) const { return slots_[slot].index1 == 0; }
  uint32_t Index(size_t slot) const { return slots_[slot].index1 - 1; }
  // Fills an empty slot from Find; the table stays at most half full.
  void Put(size_t slot, uint64_t hash, uint32_t index) {
    slots_[slot] = Slot{hash, index + 1};
    if (++size_ * 2 > slots_.size()) Resize(slots_.size() * 2);
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t index1 = 0;
  };
  void Resize(size_t n) {
    std::vector<Slot> old(n);
    old.swap(slots_);
    mask_ = n - 1;
    for (const Slot& s : old) {
      if (s.index1 == 0) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].index1 != 0) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0, size_ = 0;
};

// Builds dictionary indices for dense values until the dictionary exceeds max_bytes. Returns the
// number of values covered (== p.n when everything fits), or 0 when the first `probe` values
// (about a page) already show that the dictionary does not pay — parquet-mr makes the same
// check when its first page is written and then writes the whole chunk PLAIN; hashing on
// through a column of distinct values (ids, hashes) until the dictionary is full costs time.
size_t BuildDictionary(const Physical& p, int64_t max_bytes, size_t probe,
                       std::vector<uint32_t>* indices, std::vector<uint32_t>* dict_positions,
                       int64_t* dict_bytes) {
  indices->resize(p.n);
  *dict_bytes = 0;
  int64_t probe_plain = 0;
  auto pays = [&](size_t i) {  // after values [0, i)
    int64_t index_bytes = static_cast<int64_t>(i) * BitWidth(dict_positions->size() - 1) / 8;
    return *dict_bytes + index_bytes < probe_plain;
  };
  DictTable table;
  uint32_t* idx = indices->data();
  // Adds value i (hash h, equal to dictionary entry j when same(j)); false when the dictionary
  // is full.
  auto add = [&](size_t i, uint64_t h, auto same) -> bool {
    if (i < probe) probe_plain += static_cast<int64_t>(p.ValueBytes(i));
    size_t slot = table.Find(h, same);
    if (table.Empty(slot)) {
      const int64_t bytes = static_cast<int64_t>(p.ValueBytes(i));
      if (*dict_bytes + bytes > max_bytes) return false;
      *dict_bytes += bytes;
      table.Put(slot, h, static_cast<uint32_t>(dict_positions->size()));
      idx[i] = static_cast<uint32_t>(dict_positions->size());
      dict_positions->push_back(static_cast<uint32_t>(i));
    } else {
      idx[i] = table.Index(slot);
    }
    return true;
  };
  const uint32_t* pos = nullptr;  // dict_positions->data(), refreshed as it grows
  for (size_t i = 0; i < p.n; ++i) {
    pos = dict_positions->data();
    bool ok;
    if (p.width > 0 && p.width <= 8) {
      uint64_t key = 0;
      std::memcpy(&key, p.fixed + i * p.width, p.width);
      ok = add(i, HashMix(key), [&](uint32_t j) {
        uint64_t other = 0;
        std::memcpy(&other, p.fixed + size_t(pos[j]) * p.width, p.width);
        return other == key;
      });
    } else if (p.width > 0) {
      const char* key = reinterpret_cast<const char*>(p.fixed) + i * p.width;
      ok = add(i, HashBytes(key, p.width), [&](uint32_t j) {
        return std::memcmp(reinterpret_cast<const char*>(p.fixed) + size_t(pos[j]) * p.width, key,
                           p.width) == 0;
      });
    } else {
      std::string_view key = p.Bytes(i);
      ok = add(i, HashBytes(key.data(), key.size()),
               [&](uint32_t j) { return p.Bytes(pos[j]) == key; });
    }
    if (!ok) return i;
    if (i + 1 == probe && probe < p.n && !pays(probe)) return 0;
  }
  return p.n;
}

// Levels [b, e) in runs of equal values (mostly one run: a column without nulls).
void PutLevels(const int16_t* levels, size_t b, size_t e, RleBitPackedEncoder* rle) {
  while (b < e) {
    size_t j = b + 1;
    while (j < e && levels[j] == levels[b]) ++j;
    rle->PutRun(static_cast<uint32_t>(levels[b]), j - b);
    b = j;
  }
}

void AppendLE32(std::string* out, uint32_t v) { out->append(reinterpret_cast<const char*>(&v), 4); }

// Bytes of the values held by v (validity, fixed-width values, offsets, string bytes, children):
// what a row group buffers, independent of the buffers' capacity.
int64_t UsedBytes(const Vector& v) {
  const int64_t n = static_cast<int64_t>(v.size());
  int64_t b = (v.may_have_nulls() ? n : 0) + n * v.type()->fixed_width();
  if (v.id() == TypeId::kString || v.id() == TypeId::kBinary)
    b += 4 * (n + 1) + static_cast<int64_t>(v.bytes().size());
  if (v.id() == TypeId::kList || v.id() == TypeId::kMap) b += 4 * (n + 1);
  for (size_t c = 0; c < v.num_children(); ++c) b += UsedBytes(v.child(c));
  return b;
}

}  // namespace

Result<std::unique_ptr<ParquetWriter>> ParquetWriter::Make(std::unique_ptr<WritableFile> sink,
                                                           const Schema& schema,
                                                           WriterOptions options) {
  if (options.data_page_version != 1 && options.data_page_version != 2)
    return Status::InvalidArgument("data page version must be 1 or 2");
  if (options.codec == CompressionCodec::LZ4 || options.codec == CompressionCodec::LZO)
    return Status::NotImplemented(std::string("writing ") + CodecName(options.codec) +
                                  " is not supported");
  if (options.page_rows <= 0) options.page_rows = 20000;
  std::unique_ptr<ParquetWriter> w(new ParquetWriter());
  w->sink_ = std::move(sink);
  w->schema_ = schema;
  w->options_ = std::move(options);
  if (w->options_.created_by.empty())
    w->options_.created_by = std::string("silt version ") + SILT_VERSION + " (build silt)";
  SILT_ASSIGN_OR_RETURN(auto elements, MakeParquetSchema(schema));
  SILT_ASSIGN_OR_RETURN(w->file_schema_, FileSchema::Make(elements));
  w->metadata_.version = 1;
  w->metadata_.schema = std::move(elements);
  w->metadata_.created_by = w->options_.created_by;
  w->metadata_.key_value_metadata = w->options_.key_value_metadata;
  for (const Field& f : schema) w->buffered_.emplace_back(f.type);
  w->leaf_stats_.resize(static_cast<size_t>(w->file_schema_.num_leaves()));
  for (auto& s : w->leaf_stats_) s.null_count = 0;
  SILT_RETURN_NOT_OK(w->sink_->Append("PAR1"));
  w->offset_ = 4;
  return w;
}

ParquetWriter::~ParquetWriter() = default;

int64_t ParquetWriter::bytes_written() const { return offset_; }

Status ParquetWriter::Write(const DataChunk& chunk) {
  if (closed_) return Status::InvalidArgument("write after Close");
  if (chunk.columns.size() != schema_.size())
    return Status::InvalidArgument("chunk has " + std::to_string(chunk.columns.size()) +
                                   " columns, the schema " + std::to_string(schema_.size()));
  for (size_t i = 0; i < schema_.size(); ++i) {
    if (!chunk.columns[i].type()->Equals(*schema_[i].type))
      return Status::InvalidArgument("column '" + schema_[i].name + "' has type " +
                                         chunk.columns[i].type()->ToString() + ", expected " +
                                         schema_[i].type->ToString(),
                                     errc::kDatatypeMismatch);
    if (!schema_[i].nullable && chunk.columns[i].CountNulls() > 0)
      return NotNull(file_schema_.columns()[i]);
  }
  size_t n = chunk.size();
  if (n == 0) return Status::OK();
  int64_t chunk_bytes = 0;
  for (const Vector& c : chunk.columns) chunk_bytes += UsedBytes(c);
  const double row_bytes = static_cast<double>(chunk_bytes) / static_cast<double>(n);
  size_t done = 0;
  while (done < n) {
    size_t take = n - done;
    if (options_.row_group_max_rows > 0)
      take =
          std::min<size_t>(take, static_cast<size_t>(options_.row_group_max_rows - buffered_rows_));
    if (buffered_rows_ == 0 && options_.expected_rows > 0) {
      // Size the buffers for the row group: the file's remaining rows, at most a row group's
      // worth at this chunk's bytes per row (+1: the flush comes at or past the target).
      double fit = static_cast<double>(options_.row_group_bytes) / std::max(row_bytes, 1.0) + 1;
      int64_t rows =
          std::min<int64_t>(options_.expected_rows - rows_written_, static_cast<int64_t>(fit));
      if (options_.row_group_max_rows > 0) rows = std::min(rows, options_.row_group_max_rows);
      if (rows > static_cast<int64_t>(take)) {
        for (size_t i = 0; i < schema_.size(); ++i) {
          const Vector& src = chunk.columns[i];
          buffered_[i].Reserve(static_cast<size_t>(rows));
          if (src.id() == TypeId::kString || src.id() == TypeId::kBinary)
            buffered_[i].bytes().reserve(src.bytes().size() * static_cast<size_t>(rows) / n * 9 /
                                         8);
        }
      }
    }
    for (size_t i = 0; i < schema_.size(); ++i)
      buffered_[i].AppendRange(chunk.columns[i], done, take);
    buffered_bytes_ += static_cast<int64_t>(row_bytes * static_cast<double>(take));
    buffered_rows_ += static_cast<int64_t>(take);
    done += take;
    if ((options_.row_group_max_rows > 0 && buffered_rows_ >= options_.row_group_max_rows) ||
        buffered_bytes_ >= options_.row_group_bytes)
      SILT_RETURN_NOT_OK(FlushRowGroup());
  }
  return Status::OK();
}

Status ParquetWriter::WriteColumn(const Vector& column, const ColumnNode& node, RowGroup* rg,
                                  ColumnOut* out) {
  // Shred the column into its leaves.
  std::vector<LeafShred> shreds(static_cast<size_t>(file_schema_.num_leaves()));
  size_t rows = column.size();
  if (node.kind == ColumnNode::kLeaf) {
    // A top-level primitive: its definition levels are its validity, no slots to thread through.
    LeafShred& sh = shreds[node.leaf_index];
    sh.values = &column;
    sh.entries = rows;
    if (!column.may_have_nulls()) {
      if (node.max_def > 0) sh.def.assign(rows, node.max_def);
      sh.sel.resize(rows);
      for (size_t i = 0; i < rows; ++i) sh.sel[i] = static_cast<uint32_t>(i);
    } else {
      if (node.max_def > 0) sh.def.resize(rows);
      sh.sel.reserve(rows);
      for (size_t i = 0; i < rows; ++i) {
        bool null = column.IsNull(i);
        if (null && !node.nullable) return NotNull(node);
        if (node.max_def > 0) sh.def[i] = null ? node.slot_def : node.max_def;
        if (!null) sh.sel.push_back(static_cast<uint32_t>(i));
      }
    }
  } else {
    Slots top;
    top.idx.resize(rows);
    for (size_t i = 0; i < rows; ++i) top.idx[i] = static_cast<int64_t>(i);
    top.def_absent.assign(rows, 0);
    top.rep.assign(rows, 0);
    SILT_RETURN_NOT_OK(Shred(column, node, top, &shreds));
  }
  std::vector<const ColumnNode*> leaves;
  std::function<void(const ColumnNode&)> collect = [&](const ColumnNode& n) {
    if (n.kind == ColumnNode::kLeaf) leaves.push_back(&n);
    for (const auto& c : n.children) collect(c);
  };
  collect(node);
  for (const ColumnNode* leaf : leaves) out->leaves.push_back(leaf->leaf_index);
  const bool v2 = options_.data_page_version == 2;
  const bool compress = options_.codec != CompressionCodec::UNCOMPRESSED;
  // Compresses a page body (v2: all but the level_bytes of levels), fills the header's sizes and
  // CRC and appends header + payload to *out. Thread-safe (pages are built concurrently).
  auto build_page = [&](PageHeader& h, const std::string& body, size_t level_bytes,
                        std::string* bytes) -> Status {
    std::string compressed;
    if (compress) {
      compressed.reserve(body.size() + body.size() / 6 + 64);
      compressed.append(body.data(), level_bytes);
      SILT_RETURN_NOT_OK(
          Compress(options_.codec, reinterpret_cast<const uint8_t*>(body.data()) + level_bytes,
                   body.size() - level_bytes, &compressed, options_.compression_level));
    }
    const std::string& payload = compress ? compressed : body;
    h.uncompressed_page_size = static_cast<int32_t>(body.size());
    h.compressed_page_size = static_cast<int32_t>(payload.size());
    if (options_.write_page_crc)
      h.crc = static_cast<int32_t>(crc32(0L, reinterpret_cast<const Bytef*>(payload.data()),
                                         static_cast<uInt>(payload.size())));
    bytes->clear();
    SerializePageHeader(h, bytes);
    bytes->append(payload);
    return Status::OK();
  };
  for (const ColumnNode* leaf : leaves) {
    LeafShred& sh = shreds[leaf->leaf_index];
    Physical phys;
    MakePhysical(*leaf, sh, &phys);
    const Vector& vals = *sh.values;
    ColumnChunk cc;
    ColumnMetaData md;
    md.type = leaf->physical_type;
    md.path_in_schema = leaf->path;
    md.codec = options_.codec;
    md.num_values = static_cast<int64_t>(sh.entries);
    int64_t chunk_start = out->size;
    std::vector<Encoding> encodings;
    auto note_encoding = [&](Encoding e) {
      if (std::find(encodings.begin(), encodings.end(), e) == encodings.end())
        encodings.push_back(e);
    };
    std::vector<PageEncodingStats> enc_stats;
    auto count_page = [&](PageType t, Encoding e) {
      for (auto& s : enc_stats)
        if (s.page_type == t && s.encoding == e) return void(++s.count);
      enc_stats.push_back({t, e, 1});
    };
    int64_t total_uncompressed = 0, total_compressed = 0;
    // Appends a built page (header + payload) to the column's output.
    auto append_page = [&](std::string&& bytes, size_t uncompressed_body) -> Status {
      out->size += static_cast<int64_t>(bytes.size());
      total_compressed += static_cast<int64_t>(bytes.size());
      total_uncompressed += static_cast<int64_t>(uncompressed_body);
      out->pages.push_back(std::move(bytes));
      return Status::OK();
    };

    // Dictionary: used for the values before `dict_covered`; PLAIN after (fallback).
    std::vector<uint32_t> indices, dict_pos;
    size_t dict_covered = 0;
    if (options_.dictionary && leaf->physical_type != Type::BOOLEAN && phys.n > 0 &&
        vals.id() != TypeId::kNull) {
      int64_t dict_bytes;
      dict_covered = BuildDictionary(phys, options_.dictionary_page_bytes,
                                     static_cast<size_t>(options_.page_rows), &indices, &dict_pos,
                                     &dict_bytes);
      // Not worth it when the dictionary is about as big as the values themselves.
      if (dict_covered == phys.n) {
        int64_t plain_bytes = static_cast<int64_t>(phys.n) * phys.width;
        if (phys.width == 0)
          for (size_t i = 0; i < phys.n; ++i)
            plain_bytes += static_cast<int64_t>(phys.ValueBytes(i));
        int bw = BitWidth(dict_pos.empty() ? 0 : dict_pos.size() - 1);
        if (dict_bytes + static_cast<int64_t>(phys.n) * bw / 8 >= plain_bytes) dict_covered = 0;
      }
      if (dict_covered < 64 && dict_covered < phys.n) dict_covered = 0;
    }
    // Byte arrays in dictionary pages: a page's min and max are found among integer ranks of the
    // dictionary entries (sorted once) instead of comparing every value's bytes.
    std::vector<uint32_t> dict_rank;
    if (dict_covered > 0 && (vals.id() == TypeId::kString || vals.id() == TypeId::kBinary)) {
      std::vector<uint32_t> order(dict_pos.size());
      for (uint32_t j = 0; j < order.size(); ++j) order[j] = j;
      std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return phys.Bytes(dict_pos[a]) < phys.Bytes(dict_pos[b]);
      });
      dict_rank.resize(order.size());
      for (uint32_t r = 0; r < order.size(); ++r) dict_rank[order[r]] = r;  // entries are distinct
    }
    if (dict_covered > 0) {
      std::string body;
      if (phys.width) {
        for (uint32_t p : dict_pos)
          body.append(reinterpret_cast<const char*>(phys.fixed) + size_t(p) * phys.width,
                      phys.width);
      } else {
        std::vector<uint32_t> rows_sel(dict_pos.size());
        for (size_t i = 0; i < dict_pos.size(); ++i) rows_sel[i] = phys.sel[dict_pos[i]];
        EncodePlainByteArray(vals, rows_sel.data(), rows_sel.size(), &body);
      }
      PageHeader h;
      h.type = PageType::DICTIONARY_PAGE;
      DictionaryPageHeader dh;
      dh.num_values = static_cast<int32_t>(dict_pos.size());
      dh.encoding = v2 ? Encoding::PLAIN : Encoding::PLAIN_DICTIONARY;
      h.dictionary_page_header = dh;
      md.dictionary_page_offset = out->size;
      std::string bytes;
      SILT_RETURN_NOT_OK(build_page(h, body, 0, &bytes));
      size_t uncompressed =
          bytes.size() - static_cast<size_t>(h.compressed_page_size) + body.size();
      SILT_RETURN_NOT_OK(append_page(std::move(bytes), uncompressed));
      note_encoding(dh.encoding);
      count_page(PageType::DICTIONARY_PAGE, dh.encoding);
    }
    const int dict_bw = BitWidth(dict_pos.empty() ? 0 : dict_pos.size() - 1);

    // Data pages, cut at record boundaries: planned in order, built (encoded, compressed,
    // min/max) in batches — in parallel with a pool — and appended in order.
    const int16_t* def = leaf->max_def > 0 ? sh.def.data() : nullptr;
    const int16_t* rep = leaf->max_rep > 0 ? sh.rep.data() : nullptr;
    struct Page {
      size_t e0 = 0, e = 0, d0 = 0, d = 0;
      int64_t rows = 0;
      std::string bytes;        // header + payload
      size_t uncompressed = 0;  // header + uncompressed body
      PageType type = PageType::DATA_PAGE;
      Encoding enc = Encoding::PLAIN;
      int64_t nulls = 0;
      int64_t min_row = -1, max_row = -1;  // rows of vals
      std::optional<std::string> pmin, pmax;
    };
    auto build = [&](Page& pg) -> Status {
      size_t n_entries = pg.e - pg.e0, n_dense = pg.d - pg.d0;
      const size_t d0 = pg.d0, e0 = pg.e0;
      bool use_dict = dict_covered > 0 && pg.d <= dict_covered;
      Encoding enc = Encoding::PLAIN;
      std::string values;
      if (use_dict) {
        enc = v2 ? Encoding::RLE_DICTIONARY : Encoding::PLAIN_DICTIONARY;
        values.push_back(static_cast<char>(dict_bw));
        RleBitPackedEncoder rle(dict_bw);
        rle.PutMany(indices.data() + d0, n_dense);
        values += rle.Finish();
      } else if (leaf->physical_type == Type::BYTE_ARRAY) {
        if (v2) {
          enc = Encoding::DELTA_LENGTH_BYTE_ARRAY;
          EncodeDeltaLengthByteArray(vals, phys.sel + d0, n_dense, &values);
        } else {
          EncodePlainByteArray(vals, phys.sel + d0, n_dense, &values);
        }
      } else if (leaf->physical_type == Type::BOOLEAN) {
        if (v2) {
          enc = Encoding::RLE;
          RleBitPackedEncoder rle(1);
          for (size_t i = d0; i < pg.d; ++i) rle.Put(phys.fixed[i]);
          std::string r = rle.Finish();
          AppendLE32(&values, static_cast<uint32_t>(r.size()));
          values += r;
        } else {
          EncodePlainBoolean(phys.fixed + d0, n_dense, &values);
        }
      } else if (v2 && leaf->physical_type == Type::INT32) {
        enc = Encoding::DELTA_BINARY_PACKED;
        EncodeDeltaBinaryPacked32(reinterpret_cast<const int32_t*>(phys.fixed) + d0, n_dense,
                                  &values);
      } else if (v2 && leaf->physical_type == Type::INT64) {
        enc = Encoding::DELTA_BINARY_PACKED;
        EncodeDeltaBinaryPacked(reinterpret_cast<const int64_t*>(phys.fixed) + d0, n_dense,
                                &values);
      } else {
        values.append(reinterpret_cast<const char*>(phys.fixed) + d0 * phys.width,
                      n_dense * phys.width);
      }
      // Levels.
      std::string rep_bytes, def_bytes;
      if (rep) {
        RleBitPackedEncoder rle(BitWidth(static_cast<uint64_t>(leaf->max_rep)));
        PutLevels(rep, e0, pg.e, &rle);
        rep_bytes = rle.Finish();
      }
      if (def) {
        RleBitPackedEncoder rle(BitWidth(static_cast<uint64_t>(leaf->max_def)));
        PutLevels(def, e0, pg.e, &rle);
        def_bytes = rle.Finish();
      }
      std::string body;
      size_t level_bytes = 0;
      if (v2) {
        body = rep_bytes + def_bytes;
        level_bytes = body.size();
      } else {
        if (rep) AppendLE32(&body, static_cast<uint32_t>(rep_bytes.size())), body += rep_bytes;
        if (def) AppendLE32(&body, static_cast<uint32_t>(def_bytes.size())), body += def_bytes;
      }
      if (body.empty()) {
        body = std::move(values);
      } else {
        body += values;
      }
      pg.nulls = static_cast<int64_t>(n_entries - n_dense);
      if (leaf->max_rep > 0) {
        pg.nulls = 0;  // null_count counts null leaf values only, not empty/absent lists
        for (size_t i = e0; i < pg.e; ++i) pg.nulls += leaf->nullable && def[i] == leaf->slot_def;
      }
      PageHeader h;
      if (v2) {
        h.type = PageType::DATA_PAGE_V2;
        DataPageHeaderV2 dh;
        dh.num_values = static_cast<int32_t>(n_entries);
        dh.num_nulls = static_cast<int32_t>(n_entries - n_dense);
        dh.num_rows = static_cast<int32_t>(pg.rows);
        dh.encoding = enc;
        dh.definition_levels_byte_length = static_cast<int32_t>(def_bytes.size());
        dh.repetition_levels_byte_length = static_cast<int32_t>(rep_bytes.size());
        dh.is_compressed = compress;
        h.data_page_header_v2 = dh;
      } else {
        h.type = PageType::DATA_PAGE;
        DataPageHeader dh;
        dh.num_values = static_cast<int32_t>(n_entries);
        dh.encoding = enc;
        h.data_page_header = dh;
      }
      SILT_RETURN_NOT_OK(build_page(h, body, level_bytes, &pg.bytes));
      pg.uncompressed = pg.bytes.size() - static_cast<size_t>(h.compressed_page_size) + body.size();
      pg.type = h.type;
      pg.enc = enc;
      int64_t pmn = -1, pmx = -1;
      if (use_dict && !dict_rank.empty()) {
        // The first minimum and maximum in row order, as MinMax finds them.
        uint32_t rmin = UINT32_MAX, rmax = 0;
        for (size_t i = d0; i < pg.d; ++i) {
          const uint32_t r = dict_rank[indices[i]];
          if (r < rmin) rmin = r, pmn = static_cast<int64_t>(i);
          if (pmx < 0 || r > rmax) rmax = r, pmx = static_cast<int64_t>(i);
        }
      } else {
        MinMax(vals, phys.sel, d0, pg.d, &pmn, &pmx);
      }
      if (pmn >= 0) pg.min_row = phys.sel[pmn], pg.max_row = phys.sel[pmx];
      if (options_.write_page_index) {
        bool mine, maxe;
        FillStats(*leaf, vals, pg.min_row, pg.max_row, options_.stats_truncate_bytes, &pg.pmin,
                  &pg.pmax, &mine, &maxe);
      }
      return Status::OK();
    };

    PageIndexes pix;
    std::vector<uint32_t> extremes;  // rows of each page's min and max: the chunk's are among them
    size_t e = 0, d = 0;
    int64_t row_index = 0;
    bool first_data_page = true;
    const size_t batch = options_.pool ? 2 * std::max<size_t>(options_.pool->num_threads(), 1) : 1;
    std::vector<Page> pages;
    while (e < sh.entries || (first_data_page && sh.entries == 0)) {
      pages.clear();
      while (pages.size() < batch &&
             (e < sh.entries || (first_data_page && sh.entries == 0 && pages.empty()))) {
        Page pg;
        pg.e0 = e;
        pg.d0 = d;
        int64_t page_bytes = 0;
        if (!rep && phys.width > 0 && phys.n == sh.entries && e < sh.entries) {
          // Flat, fixed width, no nulls: the loop below in arithmetic (entries are rows and
          // values; the page ends at its row or byte limit or where the dictionary ends).
          const int64_t w = phys.width;
          size_t k =
              static_cast<size_t>(std::min(options_.page_rows, (options_.page_bytes + w - 1) / w));
          if (pg.d0 < dict_covered) k = std::min(k, dict_covered - pg.d0);
          k = std::min(std::max<size_t>(k, 1), sh.entries - e);
          pg.rows = static_cast<int64_t>(k);
          page_bytes = static_cast<int64_t>(k) * w;
          e += k;
          d += k;
        }
        while (e < sh.entries) {
          bool new_row = !rep || rep[e] == 0;
          if (new_row && e > pg.e0 &&
              (pg.rows >= options_.page_rows || page_bytes >= options_.page_bytes ||
               (pg.d0 < dict_covered &&
                d >= dict_covered)))  // the dictionary is full: PLAIN from here
            break;
          if (new_row) ++pg.rows;
          if (!def || def[e] == leaf->max_def) {
            page_bytes += static_cast<int64_t>(phys.ValueBytes(d));
            ++d;
          }
          ++e;
        }
        pg.e = e;
        pg.d = d;
        pages.push_back(std::move(pg));
        if (sh.entries == 0) break;
      }
      SILT_RETURN_NOT_OK(
          ParallelFor(options_.pool, pages.size(), [&](size_t i) { return build(pages[i]); }));
      for (Page& pg : pages) {
        int64_t page_offset = out->size;
        if (first_data_page) md.data_page_offset = page_offset;
        SILT_RETURN_NOT_OK(append_page(std::move(pg.bytes), pg.uncompressed));
        note_encoding(pg.enc);
        count_page(pg.type, pg.enc);
        if (pg.min_row >= 0)
          extremes.insert(extremes.end(),
                          {static_cast<uint32_t>(pg.min_row), static_cast<uint32_t>(pg.max_row)});
        // Page index entries.
        if (options_.write_page_index) {
          bool null_page = pg.d == pg.d0;
          pix.column_index.null_pages.push_back(null_page);
          pix.column_index.min_values.push_back(pg.pmin.value_or(""));
          pix.column_index.max_values.push_back(pg.pmax.value_or(""));
          pix.column_index.null_counts.push_back(pg.nulls);
          if (!null_page && (!pg.pmin || !pg.pmax)) pix.valid = false;  // e.g. an all-NaN page
          pix.offset_index.page_locations.push_back(
              PageLocation{page_offset, static_cast<int32_t>(out->size - page_offset), row_index});
        }
        row_index += pg.rows;
        first_data_page = false;
      }
      if (sh.entries == 0) break;
    }
    if (def || rep) note_encoding(Encoding::RLE);
    // Chunk statistics.
    Statistics st;
    int64_t leaf_nulls = 0;
    for (int64_t x : pix.column_index.null_counts) leaf_nulls += x;
    if (!options_.write_page_index) {
      leaf_nulls = 0;
      if (def)
        for (size_t i = 0; i < sh.entries; ++i) leaf_nulls += def[i] < leaf->max_def;
    }
    st.null_count = leaf_nulls;
    // The first minimum and maximum of the chunk in row order (ties resolve as a full scan would).
    int64_t cmn, cmx;
    MinMax(vals, extremes.data(), 0, extremes.size(), &cmn, &cmx);
    int64_t min_row = cmn < 0 ? -1 : int64_t{extremes[cmn]},
            max_row = cmn < 0 ? -1 : int64_t{extremes[cmx]};
    bool mine, maxe;
    FillStats(*leaf, vals, min_row, max_row, options_.stats_truncate_bytes, &st.min_value,
              &st.max_value, &mine, &maxe);
    if (st.min_value && !mine) st.is_min_value_exact = false;
    if (st.max_value && !maxe) st.is_max_value_exact = false;
    if (leaf->type->id() == TypeId::kNull) st.min_value.reset(), st.max_value.reset();
    md.statistics = st;
    md.encodings = encodings;
    md.encoding_stats = enc_stats;
    md.total_compressed_size = total_compressed;
    md.total_uncompressed_size = total_uncompressed;
    cc.file_offset = chunk_start;
    cc.meta_data = std::move(md);
    rg->columns[leaf->leaf_index] = std::move(cc);
    out->uncompressed += total_uncompressed;
    // File-level exact statistics.
    ColumnStatistics& fs = leaf_stats_[leaf->leaf_index];
    fs.num_values += static_cast<int64_t>(sh.entries);
    *fs.null_count += leaf_nulls;
    if (min_row >= 0) {
      Value vmin = vals.GetValue(static_cast<size_t>(min_row)),
            vmax = vals.GetValue(static_cast<size_t>(max_row));
      if (!fs.min || CompareValues(vmin, *fs.min).value_or(0) < 0) fs.min = vmin;
      if (!fs.max || CompareValues(vmax, *fs.max).value_or(0) > 0) fs.max = vmax;
    }
    if (options_.write_page_index)
      page_indexes_[metadata_.row_groups.size()][leaf->leaf_index] = std::move(pix);
  }
  return Status::OK();
}

Status ParquetWriter::FlushRowGroup() {
  if (buffered_rows_ == 0) return Status::OK();
  RowGroup rg;
  rg.num_rows = buffered_rows_;
  rg.columns.resize(static_cast<size_t>(file_schema_.num_leaves()));
  rg.file_offset = offset_;
  int64_t start = offset_;
  if (options_.write_page_index) {
    page_indexes_.resize(metadata_.row_groups.size() + 1);
    page_indexes_.back().resize(static_cast<size_t>(file_schema_.num_leaves()));
  }
  // Columns are built in parallel (each into its own pages; a column's pages are built in
  // parallel as well), then written in order with their offsets made absolute.
  std::vector<ColumnOut> outs(buffered_.size());
  SILT_RETURN_NOT_OK(ParallelFor(options_.pool, buffered_.size(), [&](size_t i) {
    return WriteColumn(buffered_[i], file_schema_.columns()[i], &rg, &outs[i]);
  }));
  for (ColumnOut& out : outs) {
    const int64_t base = offset_;
    for (int l : out.leaves) {
      ColumnChunk& cc = rg.columns[static_cast<size_t>(l)];
      cc.file_offset += base;
      cc.meta_data->data_page_offset += base;
      if (cc.meta_data->dictionary_page_offset) *cc.meta_data->dictionary_page_offset += base;
      if (options_.write_page_index)
        for (PageLocation& loc :
             page_indexes_.back()[static_cast<size_t>(l)].offset_index.page_locations)
          loc.offset += base;
    }
    for (const std::string& page : out.pages) SILT_RETURN_NOT_OK(sink_->Append(page));
    offset_ += out.size;
    rg.total_byte_size += out.uncompressed;
  }
  rg.total_compressed_size = offset_ - start;
  rg.ordinal = static_cast<int16_t>(metadata_.row_groups.size());
  metadata_.row_groups.push_back(std::move(rg));
  metadata_.num_rows += buffered_rows_;
  rows_written_ += buffered_rows_;
  buffered_rows_ = 0;
  buffered_bytes_ = 0;
  // The buffers keep their capacity for the next row group (no fresh pages to fault in).
  for (Vector& b : buffered_) b.Resize(0);
  return Status::OK();
}

Status ParquetWriter::Close() {
  if (closed_) return Status::OK();
  SILT_RETURN_NOT_OK(FlushRowGroup());
  closed_ = true;
  std::string buf;
  if (options_.write_page_index) {
    // Column indexes for every chunk, then offset indexes (parquet-mr's order).
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t r = 0; r < page_indexes_.size() && r < metadata_.row_groups.size(); ++r) {
        for (size_t l = 0; l < page_indexes_[r].size(); ++l) {
          PageIndexes& p = page_indexes_[r][l];
          ColumnChunk& cc = metadata_.row_groups[r].columns[l];
          buf.clear();
          if (pass == 0) {
            if (!p.valid) continue;
            SerializeColumnIndex(p.column_index, &buf);
            cc.column_index_offset = offset_;
            cc.column_index_length = static_cast<int32_t>(buf.size());
          } else {
            SerializeOffsetIndex(p.offset_index, &buf);
            cc.offset_index_offset = offset_;
            cc.offset_index_length = static_cast<int32_t>(buf.size());
          }
          SILT_RETURN_NOT_OK(sink_->Append(buf));
          offset_ += static_cast<int64_t>(buf.size());
        }
      }
    }
  }
  metadata_.column_orders.assign(static_cast<size_t>(file_schema_.num_leaves()), true);
  buf.clear();
  SerializeFileMetaData(metadata_, &buf);
  uint32_t len = static_cast<uint32_t>(buf.size());
  buf.append(reinterpret_cast<const char*>(&len), 4);
  buf += "PAR1";
  SILT_RETURN_NOT_OK(sink_->Append(buf));
  offset_ += static_cast<int64_t>(buf.size());
  return sink_->Close();
}

}  // namespace silt::parquet
