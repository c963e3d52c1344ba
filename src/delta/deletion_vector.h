// Deletion vectors (DVs): the set of deleted row indexes of one data file, its serialized form
// (Delta's 64-bit "RoaringBitmapArray", portable layout), the DV file framing and the
// descriptor that add/remove actions carry.
//
// Formats (all from delta-io/delta PROTOCOL.md and Spark's RoaringBitmapArray.scala /
// DeletionVectorStore.scala; see ../shared/specs/dml-dv-optimize-reorg.md section 1):
//   bitmap   = u32 LE magic 1681511377, u64 LE numBuckets, then per bucket in ascending key order
//              u32 LE key (row >> 32, MSB 0) + a 32-bit RoaringBitmap in the portable format.
//   DV file  = u8 version 1, then per DV: u32 BE dataSize, dataSize bitmap bytes, u32 BE CRC-32
//              (zlib) of those bytes. A descriptor's offset points at its dataSize field.
// Row indexes are 0-based positions in the data file (across all row groups).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error_classes.h"
#include "common/status.h"
#include "delta/dv_descriptor.h"
#include "delta/z85.h"
#include "io/file.h"

struct roaring_bitmap_s;  // CRoaring's roaring_bitmap_t; only the .cc includes roaring.h

namespace silt::delta {

// Error classes. Spark's names where Spark has the check; the decode failure is silt's own.
inline constexpr auto& kInvalidDvClass = errc::kDeltaInvalidDeletionVector;
inline constexpr auto& kDvChecksumClass = errc::kDeltaDeletionVectorChecksumMismatch;
inline constexpr auto& kDvSizeClass = errc::kDeltaDeletionVectorSizeMismatch;
inline constexpr auto& kDvCardinalityClass = errc::kDeltaDeletionVectorCardinalityMismatch;

inline constexpr uint32_t kPortableDvMagic = 1681511377;  // written by silt and Spark
inline constexpr uint32_t kNativeDvMagic = 1681511376;    // Spark's legacy layout; read only
inline constexpr uint8_t kDvFileVersion = 1;

// A set of 64-bit row indexes, stored as one CRoaring 32-bit bitmap per high-32-bit bucket.
// Copyable (deep copy) and movable. Thread-compatible: const methods may run concurrently.
class DeletionVector {
 public:
  // Largest row index the format can hold (Spark: bucket key 0x7FFFFFFE, low 0xFFFFFFFF).
  static constexpr uint64_t kMaxRowIndex = (uint64_t{0x7FFFFFFE} << 32) | 0xFFFFFFFFu;

  DeletionVector();
  ~DeletionVector();
  DeletionVector(const DeletionVector& other);
  DeletionVector& operator=(const DeletionVector& other);
  DeletionVector(DeletionVector&& other) noexcept;
  DeletionVector& operator=(DeletionVector&& other) noexcept;

  // Adds one row. InvalidArgument when row > kMaxRowIndex (the set is unchanged).
  Status Add(uint64_t row);
  // Adds rows[0..n); faster than Add in a loop for ascending input. All-or-nothing on error.
  Status AddMany(const uint64_t* rows, size_t n);
  // Adds [begin, end). InvalidArgument when end - 1 > kMaxRowIndex or begin > end.
  Status AddRange(uint64_t begin, uint64_t end);
  // Adds every row of `other`.
  void Union(const DeletionVector& other);

  bool Contains(uint64_t row) const;
  uint64_t Cardinality() const;
  bool IsEmpty() const { return buckets_.empty(); }
  // Largest row; nullopt when empty.
  std::optional<uint64_t> Max() const;

  // Calls fn(row) for each row in ascending order until fn returns false.
  void ForEach(const std::function<bool(uint64_t)>& fn) const;
  std::vector<uint64_t> ToSortedVector() const;

  // Scan mask: for every deleted row r in [first_row, first_row + n) sets keep[r - first_row]
  // to 0; other entries are left as they are (callers initialise keep to 1). Work is
  // proportional to the number of deleted rows in the range (plus a seek per bucket).
  // first_row must be >= 0.
  void FillSelection(int64_t first_row, size_t n, uint8_t* keep) const;

  // Magic + portable RoaringBitmapArray bytes, byte-identical to Spark for the same set built
  // by adds: silt writes the 32-bit bitmaps itself with Java's container choice after
  // runOptimize() (array up to 4096 values, else bitset; runs only where strictly smaller), and,
  // like Spark, writes every bucket below the largest (empty ones as an empty bitmap) while the
  // largest key is < kDenseBucketLimit; above that only non-empty buckets (still valid: Spark
  // reads gaps as empty).
  std::string Serialize() const;
  static constexpr uint32_t kDenseBucketLimit = 1u << 16;

  // Parses bytes from Serialize (or Spark, or the legacy native layout). The input is untrusted:
  // every length, count, key order, container invariant and cardinality is checked before
  // CRoaring sees the bytes; trailing bytes are rejected. Errors are Corruption
  // (kInvalidDvClass).
  static Result<DeletionVector> Deserialize(std::string_view bytes);

  bool operator==(const DeletionVector& other) const;

 private:
  struct BitmapDeleter {
    void operator()(roaring_bitmap_s* b) const;
  };
  using BitmapPtr = std::unique_ptr<roaring_bitmap_s, BitmapDeleter>;
  struct Bucket {
    uint32_t key;
    BitmapPtr bitmap;  // never empty once an operation completes
  };

  // The bucket for `key`, created (in key order) when absent.
  roaring_bitmap_s* MutableBucket(uint32_t key);
  const roaring_bitmap_s* FindBucket(uint32_t key) const;

  std::vector<Bucket> buckets_;  // ascending key
};

// DeletionVectorDescriptor (add/remove.deletionVector) is in delta/dv_descriptor.h.

// Where one DV sits inside an encoded DV file.
struct DvFileEntry {
  int32_t offset = 0;         // of the dataSize field; the first DV is at 1
  int32_t size_in_bytes = 0;  // dataSize
  int64_t cardinality = 0;
};

// Builds a DV file holding `dvs` in order; `entries` (if non-null) receives one entry per DV.
// InvalidArgument when a DV is empty (Delta never stores one) or the file would pass 2^31 bytes.
Result<std::string> EncodeDvFile(const std::vector<const DeletionVector*>& dvs,
                                 std::vector<DvFileEntry>* entries);

// A new DV file with a random UUID: write `bytes` at table_root + "/" + relative_path, then put
// descriptors[i] into the add action of the i-th input DV.
struct NewDvFile {
  Uuid uuid;
  std::string prefix;         // random [A-Za-z0-9]{n}, or empty
  std::string relative_path;  // "<prefix>/deletion_vector_<uuid>.bin" or without "<prefix>/"
  std::string bytes;
  std::vector<DeletionVectorDescriptor> descriptors;  // storage type 'u'
};
// random_prefix_length: Spark's delta.randomPrefixLength when delta.randomizeFilePrefixes is
// set, else 0.
Result<NewDvFile> EncodeNewDvFile(const std::vector<const DeletionVector*>& dvs,
                                  int random_prefix_length = 0);
// As EncodeNewDvFile with a caller-chosen UUID and prefix (tests, deterministic writers).
Result<NewDvFile> EncodeDvFileAs(const std::vector<const DeletionVector*>& dvs, const Uuid& uuid,
                                 std::string prefix);

// An inline ('i') descriptor: Z85 of the serialized bitmap (zero-padded), sizeInBytes = raw
// length. Spark never writes these; meant for small DVs in tests and tools.
DeletionVectorDescriptor MakeInlineDescriptor(const DeletionVector& dv);

// Opens a file by absolute path/URI (the object store's job; injected so this layer has no
// storage dependency).
using DvFileOpener =
    std::function<Result<std::shared_ptr<RandomAccessFile>>(const std::string& path)>;

// Loads the DV a descriptor names: decodes 'i' inline; for 'u'/'p' opens the file via `open`
// and reads [offset, offset + 4 + size + 4) only, checking the version byte, dataSize ==
// sizeInBytes (kDvSizeClass), the CRC (kDvChecksumClass) and the bitmap. For every storage type
// the decoded cardinality must equal the descriptor's (kDvCardinalityClass). Errors name the file.
Result<DeletionVector> ReadDv(const DeletionVectorDescriptor& descriptor,
                              std::string_view table_root, const DvFileOpener& open);

// The CRC-32 Delta stores (zlib / java.util.zip.CRC32).
uint32_t DvCrc32(std::string_view bytes);

}  // namespace silt::delta
