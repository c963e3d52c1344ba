// Vector: one column of values, columnar (Arrow-like) so Parquet pages decode straight into it and
// operators loop over plain arrays. DataChunk: a set of equal-length Vectors.
//
// Layout per type (see types.h for the value types):
//   fixed-width: data() holds size() values of the physical type.
//   string/binary: offsets() has size()+1 entries into bytes(); value i = bytes[off[i], off[i+1]).
//   list: offsets() into child(0).       map: offsets() into child(0) (keys) and child(1) (values).
//   struct: child(i) per field, each of size(); a null struct row still has (null) child entries.
// Validity: a byte per row (1 = valid); an empty validity buffer means "no nulls". Null slots keep
// a defined value (0 / empty) so kernels may compute on them blindly.
// Not thread-safe for mutation; const access from several threads is fine.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "silt/status.h"
#include "silt/types.h"
#include "silt/value.h"

namespace silt {

// A growable byte buffer whose resize() leaves new bytes uninitialized, so decoders size it and
// fill it without a wasted zeroing pass (resize(n, byte) fills).
class ByteBuffer {
 public:
  ByteBuffer() = default;
  ByteBuffer(const ByteBuffer& o) { append(o.data_, o.size_); }
  ByteBuffer& operator=(const ByteBuffer& o) {
    if (this != &o) {
      size_ = 0;
      append(o.data_, o.size_);
    }
    return *this;
  }
  ByteBuffer(ByteBuffer&& o) noexcept : data_(o.data_), size_(o.size_), capacity_(o.capacity_) {
    o.data_ = nullptr;
    o.size_ = o.capacity_ = 0;
  }
  ByteBuffer& operator=(ByteBuffer&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(capacity_, o.capacity_);
    return *this;
  }
  ~ByteBuffer() { std::free(data_); }

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  void reserve(size_t n) {
    if (n <= capacity_) return;
    size_t cap = std::max(n, capacity_ * 2);
    void* p = std::realloc(data_, cap);
    if (!p) std::abort();  // out of memory: nothing sensible to return from a resize
    data_ = static_cast<uint8_t*>(p);
    capacity_ = cap;
  }
  void resize(size_t n) {
    reserve(n);
    size_ = n;
  }
  void resize(size_t n, uint8_t fill) {
    size_t old = size_;
    resize(n);
    if (n > old) std::memset(data_ + old, fill, n - old);
  }
  void append(const uint8_t* p, size_t n) {
    if (!n) return;
    reserve(size_ + n);
    std::memcpy(data_ + size_, p, n);
    size_ += n;
  }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

class Vector {
 public:
  explicit Vector(TypePtr type);
  Vector(const Vector&) = default;
  Vector& operator=(const Vector&) = default;
  Vector(Vector&&) noexcept = default;
  Vector& operator=(Vector&&) noexcept = default;

  const TypePtr& type() const { return type_; }
  TypeId id() const { return type_->id(); }
  size_t size() const { return size_; }

  // --- validity
  bool IsValid(size_t i) const { return validity_.empty() || validity_[i]; }
  bool IsNull(size_t i) const { return !IsValid(i); }
  bool may_have_nulls() const { return !validity_.empty(); }
  size_t CountNulls() const;
  // Materializes the validity buffer (all valid) and returns it; size() bytes.
  uint8_t* mutable_validity();
  const uint8_t* validity() const { return validity_.empty() ? nullptr : validity_.data(); }
  void SetValid(size_t i, bool valid);
  // Drops the validity buffer if it has no nulls.
  void CompactValidity();

  // --- fixed-width data
  template <typename T>
  T* data() {
    return reinterpret_cast<T*>(data_.data());
  }
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(data_.data());
  }
  template <typename T>
  T Get(size_t i) const {
    T v;
    std::memcpy(&v, data_.data() + i * sizeof(T), sizeof(T));
    return v;
  }

  // --- string/binary, list, map
  const uint32_t* offsets() const { return offsets_.data(); }
  uint32_t* mutable_offsets() { return offsets_.data(); }
  std::vector<uint32_t>& offsets_buffer() { return offsets_; }
  std::string& bytes() { return bytes_; }
  const std::string& bytes() const { return bytes_; }
  std::string_view GetString(size_t i) const {
    return std::string_view(bytes_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]);
  }

  // --- nested
  size_t num_children() const { return children_.size(); }
  Vector& child(size_t i) { return children_[i]; }
  const Vector& child(size_t i) const { return children_[i]; }
  std::vector<Vector>& children() { return children_; }

  // Replaces this vector's type with one of the same physical layout (same TypeId; for decimals
  // the same precision class) — e.g. the same struct under other field names. Children keep
  // their own types; callers retype them first.
  void ResetType(TypePtr type) { type_ = std::move(type); }
  std::vector<uint8_t>& validity_buffer() { return validity_; }

  // --- building
  // Sets the size to n. New rows are zero / empty / valid (for struct: children grow too; for
  // list/map/string: new rows are empty). Shrinking truncates (children of list/map too).
  void Resize(size_t n);
  void Reserve(size_t n);
  void Clear() { Resize(0); }
  // Fixed-width types only: sets the size to n leaving new values uninitialized (the caller
  // writes them next). New rows are valid.
  void ResizeUninitialized(size_t n) {
    data_.resize(n * static_cast<size_t>(type_->fixed_width()));
    if (!validity_.empty()) validity_.resize(n, 1);
    size_ = n;
  }
  // Sets the row count after a decoder filled the buffers directly (offsets, children, data);
  // the caller guarantees they hold n rows. Validity, if present, is resized (new rows valid).
  void SetSizeUnchecked(size_t n) {
    if (!validity_.empty()) validity_.resize(n, 1);
    size_ = n;
  }
  void AppendNull();
  template <typename T>
  void Append(T v) {
    size_t old = data_.size();
    data_.resize(old + sizeof(T));
    std::memcpy(data_.data() + old, &v, sizeof(T));
    if (!validity_.empty()) validity_.push_back(1);
    ++size_;
  }
  void AppendString(std::string_view s);
  // list/map: after appending this row's elements to the child(ren), closes the row.
  void FinishListRow();
  // Appends any value of this vector's type (slow path: tests, literals, small inserts).
  Status AppendValue(const Value& v);
  // Deep-copies rows [offset, offset+count) of src (same type) to the end of this vector.
  void AppendRange(const Vector& src, size_t offset, size_t count);
  // Deep-copies the rows sel[0..n) of src to the end of this vector.
  void AppendSelected(const Vector& src, const uint32_t* sel, size_t n);

  // Reads row i as a Value (slow path).
  Value GetValue(size_t i) const;
  // Approximate bytes held.
  size_t MemoryUsage() const;

 private:
  void AppendDefaultRow();  // one empty/zero valid row (no validity change)
  // Validity of rows [old, old+n) from src's rows sel[0..n) (rows `old`.. are being appended).
  void GatherValidity(const Vector& src, const uint32_t* sel, size_t n, size_t old);
  TypePtr type_;
  size_t size_ = 0;
  std::vector<uint8_t> validity_;
  ByteBuffer data_;
  std::vector<uint32_t> offsets_;  // size_+1 entries for string/binary/list/map
  std::string bytes_;
  std::vector<Vector> children_;
};

// DataChunk: columns of equal length; the unit that flows between readers and operators.
struct DataChunk {
  std::vector<Vector> columns;
  size_t size() const { return columns.empty() ? num_rows_without_columns : columns[0].size(); }
  // Row count for a chunk with no columns (e.g. count(*) over a projection of nothing).
  size_t num_rows_without_columns = 0;

  static DataChunk FromSchema(const Schema& schema);
  void Clear();
  // Row i as a struct-like list of Values (slow path).
  std::vector<Value> GetRow(size_t i) const;
};

}  // namespace silt
