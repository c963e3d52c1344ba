#include "delta/deletion_vector.h"

#include <roaring/roaring.h>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <new>
#include <random>

namespace silt::delta {

namespace {

// RoaringFormatSpec constants.
constexpr uint32_t kCookieNoRun = 12346;
constexpr uint32_t kCookieRun = 12347;
constexpr uint32_t kMaxContainers = 1u << 16;
constexpr uint32_t kArrayMaxCardinality = 4096;
constexpr size_t kBitsetBytes = 8192;
constexpr uint32_t kNoOffsetThreshold = 4;  // run-format bitmaps below this omit offsets
constexpr uint32_t kMaxBucketKey = 0x7FFFFFFE;
constexpr size_t kEmptyBitmapBytes = 8;  // cookie + zero count
constexpr int64_t kVersionReadSlack = 64 << 10;

Status Corrupt(std::string msg) { return Status::Corruption(std::move(msg), kInvalidDvClass); }

uint32_t LoadLe32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}
uint16_t LoadLe16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
uint64_t LoadLe64(const uint8_t* p) { return LoadLe32(p) | uint64_t{LoadLe32(p + 4)} << 32; }
uint32_t LoadBe32(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | uint32_t{p[3]};
}
void PutLe32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
void PutLe64(std::string* out, uint64_t v) {
  PutLe32(out, static_cast<uint32_t>(v));
  PutLe32(out, static_cast<uint32_t>(v >> 32));
}
void PutBe32(std::string* out, uint32_t v) {
  for (int i = 3; i >= 0; --i) out->push_back(static_cast<char>(v >> (8 * i)));
}

void PutLe16(std::string* out, uint32_t v) {
  out->push_back(static_cast<char>(v));
  out->push_back(static_cast<char>(v >> 8));
}

// Calls fn(value) for every value of `b` in ascending order.
template <typename F>
void ForEachValue(const roaring_bitmap_t* b, F&& fn) {
  constexpr uint32_t kBatch = 256;
  uint32_t buf[kBatch];
  roaring_uint32_iterator_t it;
  roaring_init_iterator(b, &it);
  while (uint32_t got = roaring_read_uint32_iterator(&it, buf, kBatch)) {
    for (uint32_t i = 0; i < got; ++i) fn(buf[i]);
  }
}

enum class ContainerKind : uint8_t { kArray, kBitset, kRun };

struct ContainerPlan {
  uint16_t key;
  uint32_t cardinality = 0;
  uint32_t runs = 0;
  ContainerKind kind = ContainerKind::kArray;
  size_t Bytes() const {
    switch (kind) {
      case ContainerKind::kArray:
        return size_t{cardinality} * 2;
      case ContainerKind::kBitset:
        return kBitsetBytes;
      case ContainerKind::kRun:
        return 2 + size_t{runs} * 4;
    }
    return 0;
  }
};

// Writes `b` in the portable RoaringFormatSpec layout ourselves, from its values alone, because
// CRoaring 0.2.66 both picks run containers on ties (Java does not) and crashes converting runs
// that end at 65535 (roaring_bitmap_remove_run_compression). Container kinds follow Java's
// RoaringBitmap for an add-built bitmap after runOptimize(), which is what Spark serializes:
// array up to 4096 values else bitset, replaced by runs only when strictly smaller.
void AppendPortableBitmap32(const roaring_bitmap_t* b, std::string* out) {
  // Pass 1: per-container cardinality and run count.
  std::vector<ContainerPlan> plan;
  uint32_t prev_low = 0;
  ForEachValue(b, [&](uint32_t v) {
    uint16_t key = static_cast<uint16_t>(v >> 16);
    uint32_t low = v & 0xFFFF;
    if (plan.empty() || plan.back().key != key) {
      plan.push_back(ContainerPlan{key});
    } else if (low == prev_low + 1) {
      ++plan.back().cardinality;
      prev_low = low;
      return;
    }
    ++plan.back().cardinality;
    ++plan.back().runs;
    prev_low = low;
  });
  bool has_run = false;
  for (ContainerPlan& c : plan) {
    size_t plain = c.cardinality <= kArrayMaxCardinality ? size_t{c.cardinality} * 2 : kBitsetBytes;
    bool run = 2 + size_t{c.runs} * 4 < plain;
    c.kind = run ? ContainerKind::kRun
                 : (c.cardinality <= kArrayMaxCardinality ? ContainerKind::kArray
                                                          : ContainerKind::kBitset);
    has_run |= run;
  }
  const size_t start = out->size();
  const uint32_t n = static_cast<uint32_t>(plan.size());
  if (has_run) {
    PutLe32(out, kCookieRun | (n - 1) << 16);
    std::string flags((n + 7) / 8, '\0');
    for (uint32_t i = 0; i < n; ++i) {
      if (plan[i].kind == ContainerKind::kRun) flags[i / 8] |= static_cast<char>(1 << (i % 8));
    }
    *out += flags;
  } else {
    PutLe32(out, kCookieNoRun);
    PutLe32(out, n);
  }
  for (const ContainerPlan& c : plan) {
    PutLe16(out, c.key);
    PutLe16(out, c.cardinality - 1);
  }
  if (!has_run || n >= kNoOffsetThreshold) {
    size_t at = out->size() - start + size_t{n} * 4;
    for (const ContainerPlan& c : plan) {
      PutLe32(out, static_cast<uint32_t>(at));
      at += c.Bytes();
    }
  }
  // Pass 2: the container payloads.
  std::vector<uint64_t> words;
  size_t ci = 0;
  bool started = false, in_run = false;
  uint32_t run_start = 0, run_end = 0;
  auto finish = [&] {
    if (!started) return;
    if (plan[ci].kind == ContainerKind::kBitset) {
      for (uint64_t w : words) PutLe64(out, w);
    } else if (plan[ci].kind == ContainerKind::kRun && in_run) {
      PutLe16(out, run_start);
      PutLe16(out, run_end - run_start);
    }
  };
  ForEachValue(b, [&](uint32_t v) {
    uint32_t low = v & 0xFFFF;
    if (!started || plan[ci].key != static_cast<uint16_t>(v >> 16)) {
      finish();
      if (started) ++ci;
      started = true;
      in_run = false;
      if (plan[ci].kind == ContainerKind::kBitset) words.assign(kBitsetBytes / 8, 0);
      if (plan[ci].kind == ContainerKind::kRun) PutLe16(out, plan[ci].runs);
    }
    switch (plan[ci].kind) {
      case ContainerKind::kArray:
        PutLe16(out, low);
        break;
      case ContainerKind::kBitset:
        words[low >> 6] |= uint64_t{1} << (low & 63);
        break;
      case ContainerKind::kRun:
        if (in_run && low == run_end + 1) {
          run_end = low;
        } else {
          if (in_run) {
            PutLe16(out, run_start);
            PutLe16(out, run_end - run_start);
          }
          run_start = run_end = low;
          in_run = true;
        }
        break;
    }
  });
  finish();
}

roaring_bitmap_t* NewBitmap() {
  roaring_bitmap_t* b = roaring_bitmap_create();
  if (b == nullptr) throw std::bad_alloc();  // as any std container would
  return b;
}

// Checks one portable 32-bit RoaringBitmap at p[0..avail) against every invariant CRoaring's
// deserializer relies on but does not check (it trusts counts, order and cardinalities; a lie
// there becomes an out-of-bounds write later). Sets *size to its exact length.
Status ValidateBitmap32(const uint8_t* p, size_t avail, size_t* size, uint64_t* cardinality) {
  auto need = [&](size_t pos, size_t n, const char* what) -> Status {
    if (n > avail || pos > avail - n)
      return Corrupt(std::string("bitmap truncated in ") + what + " (" + std::to_string(avail) +
                     " bytes available, " + std::to_string(pos) + " + " + std::to_string(n) +
                     " needed)");
    return Status::OK();
  };
  SILT_RETURN_NOT_OK(need(0, 4, "cookie"));
  uint32_t cookie = LoadLe32(p);
  size_t pos = 4;
  uint32_t count;
  const uint8_t* run_flags = nullptr;
  if ((cookie & 0xFFFF) == kCookieRun) {
    count = (cookie >> 16) + 1;
    SILT_RETURN_NOT_OK(need(pos, (count + 7) / 8, "run flags"));
    run_flags = p + pos;
    pos += (count + 7) / 8;
  } else if (cookie == kCookieNoRun) {
    SILT_RETURN_NOT_OK(need(pos, 4, "container count"));
    count = LoadLe32(p + pos);
    pos += 4;
    if (count > kMaxContainers)
      return Corrupt("bitmap claims " + std::to_string(count) + " containers (max 65536)");
  } else {
    return Corrupt("bad RoaringBitmap cookie " + std::to_string(cookie));
  }
  SILT_RETURN_NOT_OK(need(pos, size_t{count} * 4, "container headers"));
  const uint8_t* headers = p + pos;
  pos += size_t{count} * 4;
  if (run_flags == nullptr || count >= kNoOffsetThreshold) {
    // Offsets are redundant with sequential layout; Java and CRoaring readers skip them too.
    SILT_RETURN_NOT_OK(need(pos, size_t{count} * 4, "container offsets"));
    pos += size_t{count} * 4;
  }
  uint64_t total = 0;
  for (uint32_t i = 0; i < count; ++i) {
    uint16_t key = LoadLe16(headers + 4 * i);
    uint32_t card = uint32_t{LoadLe16(headers + 4 * i + 2)} + 1;
    if (i > 0 && key <= LoadLe16(headers + 4 * (i - 1)))
      return Corrupt("bitmap container keys are not strictly ascending");
    bool is_run = run_flags != nullptr && ((run_flags[i / 8] >> (i % 8)) & 1);
    if (is_run) {
      SILT_RETURN_NOT_OK(need(pos, 2, "run count"));
      uint32_t runs = LoadLe16(p + pos);
      pos += 2;
      SILT_RETURN_NOT_OK(need(pos, size_t{runs} * 4, "runs"));
      uint64_t run_card = 0;
      int64_t prev_end = -1;
      for (uint32_t r = 0; r < runs; ++r) {
        uint32_t start = LoadLe16(p + pos + 4 * r);
        uint32_t end = start + LoadLe16(p + pos + 4 * r + 2);
        if (end > 0xFFFF) return Corrupt("run container run passes 65535");
        if (static_cast<int64_t>(start) <= prev_end)
          return Corrupt("run container runs overlap or are unsorted");
        prev_end = end;
        run_card += end - start + 1;
      }
      pos += size_t{runs} * 4;
      if (run_card != card) return Corrupt("run container cardinality disagrees with its header");
    } else if (card > kArrayMaxCardinality) {
      SILT_RETURN_NOT_OK(need(pos, kBitsetBytes, "bitset container"));
      uint64_t bits = 0;
      for (size_t w = 0; w < kBitsetBytes / 8; ++w) {
        uint64_t word;
        std::memcpy(&word, p + pos + 8 * w, 8);
        bits += static_cast<uint64_t>(__builtin_popcountll(word));
      }
      pos += kBitsetBytes;
      if (bits != card) return Corrupt("bitset container cardinality disagrees with its header");
    } else {
      SILT_RETURN_NOT_OK(need(pos, size_t{card} * 2, "array container"));
      for (uint32_t v = 1; v < card; ++v) {
        if (LoadLe16(p + pos + 2 * v) <= LoadLe16(p + pos + 2 * (v - 1)))
          return Corrupt("array container values are not strictly ascending");
      }
      pos += size_t{card} * 2;
    }
    total += card;
  }
  *size = pos;
  *cardinality = total;
  return Status::OK();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// DeletionVector

void DeletionVector::BitmapDeleter::operator()(roaring_bitmap_s* b) const {
  roaring_bitmap_free(b);
}

DeletionVector::DeletionVector() = default;
DeletionVector::~DeletionVector() = default;
DeletionVector::DeletionVector(DeletionVector&& other) noexcept = default;
DeletionVector& DeletionVector::operator=(DeletionVector&& other) noexcept = default;

DeletionVector::DeletionVector(const DeletionVector& other) {
  buckets_.reserve(other.buckets_.size());
  for (const Bucket& b : other.buckets_) {
    roaring_bitmap_t* copy = roaring_bitmap_copy(b.bitmap.get());
    if (copy == nullptr) throw std::bad_alloc();
    buckets_.push_back(Bucket{b.key, BitmapPtr(copy)});
  }
}

DeletionVector& DeletionVector::operator=(const DeletionVector& other) {
  if (this != &other) *this = DeletionVector(other);
  return *this;
}

roaring_bitmap_s* DeletionVector::MutableBucket(uint32_t key) {
  if (!buckets_.empty() && buckets_.back().key == key) return buckets_.back().bitmap.get();
  auto it = std::lower_bound(buckets_.begin(), buckets_.end(), key,
                             [](const Bucket& b, uint32_t k) { return b.key < k; });
  if (it != buckets_.end() && it->key == key) return it->bitmap.get();
  it = buckets_.insert(it, Bucket{key, BitmapPtr(NewBitmap())});
  return it->bitmap.get();
}

const roaring_bitmap_s* DeletionVector::FindBucket(uint32_t key) const {
  auto it = std::lower_bound(buckets_.begin(), buckets_.end(), key,
                             [](const Bucket& b, uint32_t k) { return b.key < k; });
  return it != buckets_.end() && it->key == key ? it->bitmap.get() : nullptr;
}

Status DeletionVector::Add(uint64_t row) {
  if (row > kMaxRowIndex)
    return Status::InvalidArgument("row index " + std::to_string(row) +
                                   " is beyond what a deletion vector can hold");
  roaring_bitmap_add(MutableBucket(static_cast<uint32_t>(row >> 32)), static_cast<uint32_t>(row));
  return Status::OK();
}

Status DeletionVector::AddMany(const uint64_t* rows, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (rows[i] > kMaxRowIndex)
      return Status::InvalidArgument("row index " + std::to_string(rows[i]) +
                                     " is beyond what a deletion vector can hold");
  }
  constexpr size_t kBatch = 1024;
  uint32_t low[kBatch];
  size_t i = 0;
  while (i < n) {
    uint32_t key = static_cast<uint32_t>(rows[i] >> 32);
    size_t k = 0;
    while (i < n && k < kBatch && static_cast<uint32_t>(rows[i] >> 32) == key)
      low[k++] = static_cast<uint32_t>(rows[i++]);
    roaring_bitmap_add_many(MutableBucket(key), k, low);
  }
  return Status::OK();
}

Status DeletionVector::AddRange(uint64_t begin, uint64_t end) {
  if (begin > end) return Status::InvalidArgument("row range begins after it ends");
  if (begin == end) return Status::OK();
  if (end - 1 > kMaxRowIndex)
    return Status::InvalidArgument("row range ends beyond what a deletion vector can hold");
  uint32_t first_key = static_cast<uint32_t>(begin >> 32);
  uint32_t last_key = static_cast<uint32_t>((end - 1) >> 32);
  for (uint32_t key = first_key; key <= last_key; ++key) {
    uint32_t lo = key == first_key ? static_cast<uint32_t>(begin) : 0;
    uint32_t hi = key == last_key ? static_cast<uint32_t>(end - 1) : 0xFFFFFFFFu;
    roaring_bitmap_add_range_closed(MutableBucket(key), lo, hi);
  }
  return Status::OK();
}

void DeletionVector::Union(const DeletionVector& other) {
  if (this == &other) return;
  for (const Bucket& b : other.buckets_)
    roaring_bitmap_or_inplace(MutableBucket(b.key), b.bitmap.get());
}

bool DeletionVector::Contains(uint64_t row) const {
  if (row > kMaxRowIndex) return false;
  const roaring_bitmap_t* b = FindBucket(static_cast<uint32_t>(row >> 32));
  return b != nullptr && roaring_bitmap_contains(b, static_cast<uint32_t>(row));
}

uint64_t DeletionVector::Cardinality() const {
  uint64_t total = 0;
  for (const Bucket& b : buckets_) total += roaring_bitmap_get_cardinality(b.bitmap.get());
  return total;
}

std::optional<uint64_t> DeletionVector::Max() const {
  if (buckets_.empty()) return std::nullopt;
  const Bucket& last = buckets_.back();
  return uint64_t{last.key} << 32 | roaring_bitmap_maximum(last.bitmap.get());
}

void DeletionVector::ForEach(const std::function<bool(uint64_t)>& fn) const {
  constexpr uint32_t kBatch = 256;
  uint32_t buf[kBatch];
  for (const Bucket& b : buckets_) {
    uint64_t base = uint64_t{b.key} << 32;
    roaring_uint32_iterator_t it;
    roaring_init_iterator(b.bitmap.get(), &it);
    while (uint32_t got = roaring_read_uint32_iterator(&it, buf, kBatch)) {
      for (uint32_t i = 0; i < got; ++i) {
        if (!fn(base | buf[i])) return;
      }
    }
  }
}

std::vector<uint64_t> DeletionVector::ToSortedVector() const {
  std::vector<uint64_t> rows;
  rows.reserve(Cardinality());
  ForEach([&](uint64_t r) {
    rows.push_back(r);
    return true;
  });
  return rows;
}

void DeletionVector::FillSelection(int64_t first_row, size_t n, uint8_t* keep) const {
  if (n == 0 || first_row < 0 || buckets_.empty()) return;
  uint64_t begin = static_cast<uint64_t>(first_row);
  uint64_t end = n > UINT64_MAX - begin ? UINT64_MAX : begin + n;  // exclusive
  uint32_t first_key = static_cast<uint32_t>(begin >> 32);
  uint64_t last_key = (end - 1) >> 32;
  auto it = std::lower_bound(buckets_.begin(), buckets_.end(), first_key,
                             [](const Bucket& b, uint32_t k) { return b.key < k; });
  constexpr uint32_t kBatch = 256;
  uint32_t buf[kBatch];
  for (; it != buckets_.end() && it->key <= last_key; ++it) {
    uint64_t base = uint64_t{it->key} << 32;
    roaring_uint32_iterator_t iter;
    roaring_init_iterator(it->bitmap.get(), &iter);
    uint32_t low = it->key == first_key ? static_cast<uint32_t>(begin) : 0;
    if (!roaring_move_uint32_iterator_equalorlarger(&iter, low)) continue;
    bool done = false;
    while (!done) {
      uint32_t got = roaring_read_uint32_iterator(&iter, buf, kBatch);
      if (got == 0) break;
      for (uint32_t i = 0; i < got; ++i) {
        uint64_t row = base | buf[i];
        if (row >= end) {
          done = true;
          break;
        }
        keep[row - begin] = 0;
      }
    }
  }
}

std::string DeletionVector::Serialize() const {
  std::string out;
  PutLe32(&out, kPortableDvMagic);
  if (buckets_.empty()) {
    PutLe64(&out, 0);
    return out;
  }
  uint32_t max_key = buckets_.back().key;
  bool dense = max_key < kDenseBucketLimit;
  PutLe64(&out, dense ? uint64_t{max_key} + 1 : buckets_.size());
  size_t next = 0;  // next bucket to write
  for (uint64_t key = dense ? 0 : buckets_.front().key; key <= max_key;) {
    PutLe32(&out, static_cast<uint32_t>(key));
    if (next < buckets_.size() && buckets_[next].key == key) {
      AppendPortableBitmap32(buckets_[next].bitmap.get(), &out);
      ++next;
    } else {
      PutLe32(&out, kCookieNoRun);
      PutLe32(&out, 0);
    }
    if (next == buckets_.size()) break;
    key = dense ? key + 1 : buckets_[next].key;
  }
  return out;
}

Result<DeletionVector> DeletionVector::Deserialize(std::string_view bytes) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(bytes.data());
  size_t size = bytes.size();
  if (size < 4)
    return Corrupt("deletion vector of " + std::to_string(size) + " bytes has no magic");
  uint32_t magic = LoadLe32(p);
  bool native = magic == kNativeDvMagic;
  if (!native && magic != kPortableDvMagic)
    return Corrupt("unexpected deletion vector magic number " + std::to_string(magic));
  size_t pos = 4;
  uint64_t count;
  if (native) {
    // Spark's legacy layout: i32 count, then per bucket (key = index) i32 size + bitmap.
    if (size - pos < 4) return Corrupt("deletion vector truncated in bucket count");
    int32_t n = static_cast<int32_t>(LoadLe32(p + pos));
    if (n < 0) return Corrupt("negative deletion vector bucket count");
    count = static_cast<uint64_t>(n);
    pos += 4;
  } else {
    if (size - pos < 8) return Corrupt("deletion vector truncated in bucket count");
    count = LoadLe64(p + pos);
    pos += 8;
  }
  // Each bucket takes at least a 4-byte key/size and an 8-byte empty bitmap.
  if (count > (size - pos) / (4 + kEmptyBitmapBytes))
    return Corrupt("deletion vector claims " + std::to_string(count) + " buckets in " +
                   std::to_string(size) + " bytes");
  DeletionVector dv;
  int64_t prev_key = -1;
  for (uint64_t i = 0; i < count; ++i) {
    if (size - pos < 4) return Corrupt("deletion vector truncated in bucket header");
    uint32_t word = LoadLe32(p + pos);
    pos += 4;
    uint32_t key;
    size_t limit = size - pos;
    if (native) {
      key = static_cast<uint32_t>(i);
      if (word > limit) return Corrupt("deletion vector bucket size passes the end");
      limit = word;
    } else {
      key = word;
      if (key > kMaxBucketKey)
        return Corrupt("deletion vector bucket key " + std::to_string(key) + " is out of range");
      if (static_cast<int64_t>(key) <= prev_key)
        return Corrupt("deletion vector bucket keys are not strictly ascending");
    }
    if (key > kMaxBucketKey) return Corrupt("deletion vector has too many buckets");
    prev_key = key;
    size_t bitmap_size;
    uint64_t cardinality;
    SILT_RETURN_NOT_OK(ValidateBitmap32(p + pos, limit, &bitmap_size, &cardinality));
    if (native && bitmap_size != limit)
      return Corrupt("deletion vector bucket size disagrees with its bitmap");
    if (cardinality > 0) {
      BitmapPtr bitmap(roaring_bitmap_portable_deserialize_safe(
          reinterpret_cast<const char*>(p + pos), bitmap_size));
      if (bitmap == nullptr) return Corrupt("CRoaring rejected a deletion vector bitmap");
      if (roaring_bitmap_get_cardinality(bitmap.get()) != cardinality)
        return Corrupt("deletion vector bitmap decoded to an unexpected cardinality");
      dv.buckets_.push_back(Bucket{key, std::move(bitmap)});
    }
    pos += bitmap_size;
  }
  if (pos != size)
    return Corrupt("deletion vector has " + std::to_string(size - pos) + " trailing bytes");
  return dv;
}

// Set equality: empty buckets (Spark writes every key below the largest) do not count.
bool DeletionVector::operator==(const DeletionVector& other) const {
  auto next = [](const std::vector<Bucket>& b, size_t i) {
    while (i < b.size() && roaring_bitmap_is_empty(b[i].bitmap.get())) ++i;
    return i;
  };
  size_t i = next(buckets_, 0), j = next(other.buckets_, 0);
  while (i < buckets_.size() && j < other.buckets_.size()) {
    // CRoaring 0.2.66's roaring_bitmap_equals tells run and array containers of the same
    // values apart; compare the sets through cardinalities instead.
    const roaring_bitmap_t* a = buckets_[i].bitmap.get();
    const roaring_bitmap_t* b = other.buckets_[j].bitmap.get();
    uint64_t n = roaring_bitmap_get_cardinality(a);
    if (buckets_[i].key != other.buckets_[j].key || n != roaring_bitmap_get_cardinality(b) ||
        roaring_bitmap_and_cardinality(a, b) != n)
      return false;
    i = next(buckets_, i + 1);
    j = next(other.buckets_, j + 1);
  }
  return i == buckets_.size() && j == other.buckets_.size();
}

// ---------------------------------------------------------------------------------------------
// Descriptor

Status DeletionVectorDescriptor::Validate() const {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("invalid deletion vector descriptor (" + why + ")",
                                   kInvalidDvClass);
  };
  if (storage_type != 'u' && storage_type != 'i' && storage_type != 'p')
    return bad(std::string("unsupported storageType '") + storage_type + "'");
  if (size_in_bytes < 0) return bad("negative sizeInBytes");
  if (cardinality < 0) return bad("negative cardinality");
  if (offset && *offset < 0) return bad("negative offset");
  switch (storage_type) {
    case 'i':
      if (offset) return bad("inline deletion vector with an offset");
      break;
    case 'u': {
      if (path_or_inline_dv.size() < 20)
        return bad("pathOrInlineDv '" + path_or_inline_dv + "' is shorter than a Z85 UUID");
      auto uuid =
          Z85DecodeUuid(std::string_view(path_or_inline_dv).substr(path_or_inline_dv.size() - 20));
      if (!uuid.ok()) return bad(std::string(uuid.status().message()));
      break;
    }
    case 'p':
      if (path_or_inline_dv.empty()) return bad("empty absolute path");
      break;
  }
  return Status::OK();
}

std::string DeletionVectorDescriptor::UniqueId() const {
  std::string id(1, storage_type);
  id += path_or_inline_dv;
  if (offset) id += "@" + std::to_string(*offset);
  return id;
}

Result<std::string> DeletionVectorDescriptor::AbsolutePath(std::string_view table_root) const {
  SILT_RETURN_NOT_OK(Validate());
  if (storage_type == 'i')
    return Status::InvalidArgument("an inline deletion vector has no path", kInvalidDvClass);
  if (storage_type == 'p') return path_or_inline_dv;
  size_t prefix_len = path_or_inline_dv.size() - 20;
  SILT_ASSIGN_OR_RETURN(Uuid uuid,
                        Z85DecodeUuid(std::string_view(path_or_inline_dv).substr(prefix_len)));
  while (!table_root.empty() && table_root.back() == '/') table_root.remove_suffix(1);
  std::string path(table_root);
  if (!path.empty()) path += '/';
  if (prefix_len > 0) path += path_or_inline_dv.substr(0, prefix_len) + "/";
  path += "deletion_vector_" + uuid.ToString() + ".bin";
  return path;
}

// ---------------------------------------------------------------------------------------------
// Files

uint32_t DvCrc32(std::string_view bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  const Bytef* p = reinterpret_cast<const Bytef*>(bytes.data());
  size_t n = bytes.size();
  while (n > 0) {  // zlib takes uInt lengths
    uInt chunk = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    crc = crc32(crc, p, chunk);
    p += chunk;
    n -= chunk;
  }
  return static_cast<uint32_t>(crc);
}

Result<std::string> EncodeDvFile(const std::vector<const DeletionVector*>& dvs,
                                 std::vector<DvFileEntry>* entries) {
  std::string out(1, static_cast<char>(kDvFileVersion));
  std::vector<DvFileEntry> result;
  result.reserve(dvs.size());
  for (const DeletionVector* dv : dvs) {
    if (dv == nullptr || dv->IsEmpty())
      return Status::InvalidArgument("an empty deletion vector is never written to a file");
    std::string data = dv->Serialize();
    if (data.size() + 8 > static_cast<size_t>(INT32_MAX) - out.size())
      return Status::InvalidArgument("deletion vector file would exceed 2^31 bytes");
    result.push_back(DvFileEntry{static_cast<int32_t>(out.size()),
                                 static_cast<int32_t>(data.size()),
                                 static_cast<int64_t>(dv->Cardinality())});
    PutBe32(&out, static_cast<uint32_t>(data.size()));
    out += data;
    PutBe32(&out, DvCrc32(data));
  }
  if (entries != nullptr) *entries = std::move(result);
  return out;
}

Result<NewDvFile> EncodeDvFileAs(const std::vector<const DeletionVector*>& dvs, const Uuid& uuid,
                                 std::string prefix) {
  NewDvFile file;
  std::vector<DvFileEntry> entries;
  SILT_ASSIGN_OR_RETURN(file.bytes, EncodeDvFile(dvs, &entries));
  file.uuid = uuid;
  file.prefix = std::move(prefix);
  file.relative_path = (file.prefix.empty() ? "" : file.prefix + "/") + "deletion_vector_" +
                       uuid.ToString() + ".bin";
  std::string encoded = file.prefix + Z85EncodeUuid(uuid);
  for (const DvFileEntry& e : entries)
    file.descriptors.push_back(
        DeletionVectorDescriptor{'u', encoded, e.offset, e.size_in_bytes, e.cardinality});
  return file;
}

Result<NewDvFile> EncodeNewDvFile(const std::vector<const DeletionVector*>& dvs,
                                  int random_prefix_length) {
  static constexpr char kAlnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::string prefix;
  if (random_prefix_length > 0) {
    std::random_device rd;
    std::uniform_int_distribution<int> pick(0, static_cast<int>(sizeof(kAlnum)) - 2);
    for (int i = 0; i < random_prefix_length; ++i) prefix.push_back(kAlnum[pick(rd)]);
  }
  return EncodeDvFileAs(dvs, Uuid::Random(), std::move(prefix));
}

DeletionVectorDescriptor MakeInlineDescriptor(const DeletionVector& dv) {
  std::string data = dv.Serialize();
  return DeletionVectorDescriptor{'i', Z85Encode(data), std::nullopt,
                                  static_cast<int32_t>(data.size()),
                                  static_cast<int64_t>(dv.Cardinality())};
}

namespace {

Result<DeletionVector> CheckCardinality(DeletionVector dv, const DeletionVectorDescriptor& d,
                                        const std::string& where) {
  uint64_t actual = dv.Cardinality();
  if (actual != static_cast<uint64_t>(d.cardinality))
    return Status::Corruption("deletion vector in " + where + " holds " + std::to_string(actual) +
                                  " rows but its descriptor says " + std::to_string(d.cardinality),
                              kDvCardinalityClass);
  return dv;
}

}  // namespace

Result<DeletionVector> ReadDv(const DeletionVectorDescriptor& descriptor,
                              std::string_view table_root, const DvFileOpener& open) {
  SILT_RETURN_NOT_OK(descriptor.Validate());
  if (descriptor.IsInline()) {
    const std::string where = "inline descriptor";
    auto raw =
        Z85DecodeBytes(descriptor.path_or_inline_dv, static_cast<size_t>(descriptor.size_in_bytes));
    if (!raw.ok())
      return Status::Corruption("inline deletion vector: " + std::string(raw.status().message()),
                                kInvalidDvClass);
    auto dv = DeletionVector::Deserialize(*raw);
    if (!dv.ok()) return dv.status().WithContext("inline deletion vector");
    return CheckCardinality(dv.MoveValue(), descriptor, where);
  }

  SILT_ASSIGN_OR_RETURN(std::string path, descriptor.AbsolutePath(table_root));
  auto opened = open(path);
  if (!opened.ok()) return opened.status().WithContext("deletion vector file " + path);
  std::shared_ptr<RandomAccessFile> file = opened.MoveValue();
  if (file == nullptr) return Status::Internal("DvFileOpener returned no file for " + path);

  const int64_t offset = descriptor.OffsetOrDefault();
  const int64_t size = descriptor.size_in_bytes;
  const int64_t file_size = file->size();
  auto corrupt = [&](const std::string& msg, const char* cls = kInvalidDvClass) {
    return Status::Corruption("deletion vector file " + path + ": " + msg, cls);
  };
  if (offset < 1) return corrupt("offset " + std::to_string(offset) + " points at the header");
  // Checked without forming offset + size (both come from the log and may be near INT64_MAX).
  if (offset > file_size || size > file_size - offset || file_size - offset - size < 8)
    return corrupt("DV at offset " + std::to_string(offset) + " with " + std::to_string(size) +
                   " bytes passes the end of the " + std::to_string(file_size) + "-byte file");
  const int64_t end = offset + 4 + size + 4;
  if (end > file_size)
    return corrupt("DV at offset " + std::to_string(offset) + " with " + std::to_string(size) +
                   " bytes passes the end of the " + std::to_string(file_size) + "-byte file");
  // Reading from 0 for nearby DVs checks the version byte without a second request.
  const int64_t start = offset <= kVersionReadSlack ? 0 : offset;
  std::string buf(static_cast<size_t>(end - start), '\0');
  SILT_RETURN_NOT_OK(file->ReadAt(start, end - start, reinterpret_cast<uint8_t*>(buf.data())));
  const uint8_t* p = reinterpret_cast<const uint8_t*>(buf.data());
  if (start == 0 && p[0] != kDvFileVersion)
    return corrupt("unsupported format version " + std::to_string(p[0]));
  const uint8_t* at = p + (offset - start);
  uint32_t data_size = LoadBe32(at);
  if (data_size != static_cast<uint32_t>(size))
    return corrupt("dataSize " + std::to_string(data_size) + " at offset " +
                       std::to_string(offset) + " but the descriptor says " + std::to_string(size),
                   kDvSizeClass);
  std::string_view data(reinterpret_cast<const char*>(at + 4), static_cast<size_t>(size));
  uint32_t stored_crc = LoadBe32(at + 4 + size);
  if (DvCrc32(data) != stored_crc)
    return corrupt("CRC-32 mismatch at offset " + std::to_string(offset), kDvChecksumClass);
  auto dv = DeletionVector::Deserialize(data);
  if (!dv.ok()) return dv.status().WithContext("deletion vector file " + path);
  return CheckCardinality(dv.MoveValue(), descriptor, path);
}

}  // namespace silt::delta
