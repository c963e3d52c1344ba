// Thrift compact protocol, hand-written: a bounds-checked reader over untrusted bytes and a writer
// appending to a std::string. Only what parquet.thrift needs; no exceptions, no allocation beyond
// the values read (every length is checked against the remaining input and ThriftLimits first).
//
// Struct fields carry a 4-bit type and a field id delta from the previous field of the same struct;
// both classes keep a stack of "last field id" for nested structs. Booleans as struct fields live
// in the type nibble (1 = true, 2 = false); as list/map elements they are one byte each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "parquet/metadata.h"

namespace silt::parquet {

// The compact protocol's 4-bit type ids.
enum class ThriftType : uint8_t {
  kStop = 0,
  kBoolTrue = 1,
  kBoolFalse = 2,
  kI8 = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
  kUuid = 13,  // newer Thrift; unused by Parquet, skippable (16 raw bytes)
};

inline bool IsBool(ThriftType t) {
  return t == ThriftType::kBoolTrue || t == ThriftType::kBoolFalse;
}

class ThriftReader {
 public:
  ThriftReader(const uint8_t* data, size_t len, const ThriftLimits& limits = {})
      : data_(data), len_(len), limits_(limits) {}

  size_t position() const { return pos_; }
  size_t remaining() const { return len_ - pos_; }
  const ThriftLimits& limits() const { return limits_; }
  int depth() const { return static_cast<int>(stack_.size()); }

  // Struct nesting: Begin pushes the last field id (Corruption beyond limits.max_depth), End pops.
  Status ReadStructBegin();
  void ReadStructEnd();
  // Next field header; *type == kStop (and *id == 0) at the end of the struct. For bool fields the
  // value is in the header: call ReadBool (or Skip) to take it.
  Status ReadFieldBegin(ThriftType* type, int16_t* id);

  // A bool field's value (after ReadFieldBegin), else one element byte: 1 = true, other = false.
  Status ReadBool(bool* v);
  Status ReadI8(int8_t* v);
  Status ReadI16(int16_t* v);
  Status ReadI32(int32_t* v);
  Status ReadI64(int64_t* v);
  Status ReadDouble(double* v);
  Status ReadBinary(std::string* v);
  // Zero-copy: *v points into the input buffer.
  Status ReadBinary(std::string_view* v);

  // List or set header. *size is checked against limits.max_list_elements and the bytes left (every
  // element takes at least one byte). An empty list may carry any element type.
  Status ReadListBegin(ThriftType* elem, uint32_t* size);
  // Map header; for an empty map the key and value types are kStop.
  Status ReadMapBegin(ThriftType* key, ThriftType* value, uint32_t* size);

  // Skips one value of `type` (after its field header or as a container element), recursing into
  // structs, lists, sets and maps up to limits.max_depth.
  Status Skip(ThriftType type) { return SkipValue(type, depth()); }

  // Corruption (class SILT_PARQUET_CORRUPT) saying `what` went wrong at byte `offset`.
  Status Corrupt(std::string_view what, size_t offset) const;
  Status Corrupt(std::string_view what) const { return Corrupt(what, pos_); }

 private:
  Status ReadVarint(uint64_t* v) {
    if (pos_ < len_ && data_[pos_] < 0x80) {  // fast path: one byte
      *v = data_[pos_++];
      return Status::OK();
    }
    return ReadVarintSlow(v);
  }
  Status ReadVarintSlow(uint64_t* v);
  Status ReadSize(uint32_t* size, const char* what);
  Status SkipBytes(size_t n, const char* what);
  Status SkipValue(ThriftType type, int depth);

  const uint8_t* data_;
  size_t len_;
  size_t pos_ = 0;
  ThriftLimits limits_;
  int16_t last_id_ = 0;
  bool bool_pending_ = false;  // the last field header was a bool not yet taken
  bool bool_value_ = false;
  std::vector<int16_t> stack_;
};

class ThriftWriter {
 public:
  explicit ThriftWriter(std::string* out) : out_(out) {}

  void WriteStructBegin() {
    stack_.push_back(last_id_);
    last_id_ = 0;
  }
  // Writes the stop byte and pops.
  void WriteStructEnd();
  // Short form when 0 < id - last <= 15, long form otherwise. Not for bools: use WriteBoolField.
  void WriteFieldBegin(ThriftType type, int16_t id);
  void WriteBoolField(int16_t id, bool v) {
    WriteFieldBegin(v ? ThriftType::kBoolTrue : ThriftType::kBoolFalse, id);
  }

  // A bool list/map element: one byte, 1 = true, 2 = false (as Apache Thrift writes them).
  void WriteBool(bool v) { out_->push_back(v ? 1 : 2); }
  void WriteI8(int8_t v) { out_->push_back(static_cast<char>(v)); }
  void WriteI16(int16_t v) { WriteI32(v); }
  void WriteI32(int32_t v) {
    uint32_t u = static_cast<uint32_t>(v);
    WriteVarint((u << 1) ^ (v < 0 ? 0xFFFFFFFFu : 0u));
  }
  void WriteI64(int64_t v) {
    uint64_t u = static_cast<uint64_t>(v);
    WriteVarint((u << 1) ^ (v < 0 ? ~uint64_t{0} : uint64_t{0}));
  }
  void WriteDouble(double v);
  void WriteBinary(std::string_view v) {
    WriteVarint(v.size());
    out_->append(v);
  }
  // elem = kBoolTrue for list<bool>.
  void WriteListBegin(ThriftType elem, size_t size);
  void WriteMapBegin(ThriftType key, ThriftType value, size_t size);

  // Field header + value.
  void WriteI8Field(int16_t id, int8_t v) {
    WriteFieldBegin(ThriftType::kI8, id);
    WriteI8(v);
  }
  void WriteI16Field(int16_t id, int16_t v) {
    WriteFieldBegin(ThriftType::kI16, id);
    WriteI16(v);
  }
  void WriteI32Field(int16_t id, int32_t v) {
    WriteFieldBegin(ThriftType::kI32, id);
    WriteI32(v);
  }
  void WriteI64Field(int16_t id, int64_t v) {
    WriteFieldBegin(ThriftType::kI64, id);
    WriteI64(v);
  }
  void WriteBinaryField(int16_t id, std::string_view v) {
    WriteFieldBegin(ThriftType::kBinary, id);
    WriteBinary(v);
  }

  void WriteVarint(uint64_t v);
  std::string* out() const { return out_; }

 private:
  std::string* out_;
  int16_t last_id_ = 0;
  std::vector<int16_t> stack_;
};

}  // namespace silt::parquet
