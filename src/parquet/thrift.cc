#include "parquet/thrift.h"

#include <bit>
#include <cstring>

#include "common/error_classes.h"

namespace silt::parquet {

static_assert(std::endian::native == std::endian::little, "doubles are read as little-endian");

namespace {

constexpr uint8_t kMaxType = static_cast<uint8_t>(ThriftType::kUuid);

// Fewest bytes one element of each type takes on the wire (bounds list sizes by the input left).
constexpr uint8_t kMinElementBytes[kMaxType + 1] = {1, 1, 1, 1, 1, 1, 1, 8, 1, 1, 1, 1, 1, 16};

}  // namespace

Status ThriftReader::Corrupt(std::string_view what, size_t offset) const {
  std::string msg = "thrift: ";
  msg.append(what);
  msg += " at byte offset ";
  msg += std::to_string(offset);
  return Status::Corruption(std::move(msg), errc::kSiltParquetCorrupt);
}

Status ThriftReader::ReadVarintSlow(uint64_t* v) {
  const size_t start = pos_;
  uint64_t result = 0;
  for (int shift = 0; shift <= 63; shift += 7) {
    if (pos_ >= len_) return Corrupt("truncated varint", start);
    const uint8_t b = data_[pos_++];
    if (shift == 63 && b > 1) return Corrupt("varint overflows 64 bits", start);
    result |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *v = result;
      return Status::OK();
    }
  }
  return Corrupt("varint longer than 10 bytes", start);
}

Status ThriftReader::ReadStructBegin() {
  if (static_cast<int>(stack_.size()) >= limits_.max_depth) {
    return Corrupt("struct nesting deeper than max_depth " + std::to_string(limits_.max_depth));
  }
  stack_.push_back(last_id_);
  last_id_ = 0;
  return Status::OK();
}

void ThriftReader::ReadStructEnd() {
  if (stack_.empty()) return;
  last_id_ = stack_.back();
  stack_.pop_back();
}

Status ThriftReader::ReadFieldBegin(ThriftType* type, int16_t* id) {
  if (pos_ >= len_) return Corrupt("truncated struct (expected a field header or stop)");
  const uint8_t b = data_[pos_];
  if (b == 0) {
    ++pos_;
    *type = ThriftType::kStop;
    *id = 0;
    bool_pending_ = false;
    return Status::OK();
  }
  const uint8_t t = b & 0x0f;
  if (t == 0 || t > kMaxType) return Corrupt("invalid field type " + std::to_string(t));
  ++pos_;
  const uint8_t delta = b >> 4;
  if (delta != 0) {
    last_id_ = static_cast<int16_t>(last_id_ + delta);
  } else {
    SILT_RETURN_NOT_OK(ReadI16(&last_id_));
  }
  *id = last_id_;
  *type = static_cast<ThriftType>(t);
  bool_pending_ = IsBool(*type);
  bool_value_ = *type == ThriftType::kBoolTrue;
  return Status::OK();
}

Status ThriftReader::ReadBool(bool* v) {
  if (bool_pending_) {
    bool_pending_ = false;
    *v = bool_value_;
    return Status::OK();
  }
  if (pos_ >= len_) return Corrupt("truncated bool");
  *v = data_[pos_++] == 1;
  return Status::OK();
}

Status ThriftReader::ReadI8(int8_t* v) {
  if (pos_ >= len_) return Corrupt("truncated i8");
  *v = static_cast<int8_t>(data_[pos_++]);
  return Status::OK();
}

Status ThriftReader::ReadI16(int16_t* v) {
  const size_t start = pos_;
  uint64_t u = 0;
  SILT_RETURN_NOT_OK(ReadVarint(&u));
  if (u > 0xFFFF) return Corrupt("i16 varint out of range", start);
  const uint16_t z = static_cast<uint16_t>(u);
  *v = static_cast<int16_t>((z >> 1) ^ static_cast<uint16_t>(-(z & 1)));
  return Status::OK();
}

Status ThriftReader::ReadI32(int32_t* v) {
  const size_t start = pos_;
  uint64_t u = 0;
  SILT_RETURN_NOT_OK(ReadVarint(&u));
  if (u > 0xFFFFFFFFu) return Corrupt("i32 varint out of range", start);
  const uint32_t z = static_cast<uint32_t>(u);
  *v = static_cast<int32_t>((z >> 1) ^ (0u - (z & 1)));
  return Status::OK();
}

Status ThriftReader::ReadI64(int64_t* v) {
  uint64_t z = 0;
  SILT_RETURN_NOT_OK(ReadVarint(&z));
  *v = static_cast<int64_t>((z >> 1) ^ (uint64_t{0} - (z & 1)));
  return Status::OK();
}

Status ThriftReader::ReadDouble(double* v) {
  if (remaining() < 8) return Corrupt("truncated double");
  std::memcpy(v, data_ + pos_, 8);
  pos_ += 8;
  return Status::OK();
}

Status ThriftReader::ReadBinary(std::string_view* v) {
  const size_t start = pos_;
  uint64_t n = 0;
  SILT_RETURN_NOT_OK(ReadVarint(&n));
  if (n > remaining()) {
    return Corrupt("binary length " + std::to_string(n) + " exceeds the " +
                       std::to_string(remaining()) + " bytes left",
                   start);
  }
  if (n > static_cast<uint64_t>(limits_.max_string_bytes)) {
    return Corrupt("binary length " + std::to_string(n) + " exceeds max_string_bytes", start);
  }
  *v = std::string_view(reinterpret_cast<const char*>(data_ + pos_), n);
  pos_ += n;
  return Status::OK();
}

Status ThriftReader::ReadBinary(std::string* v) {
  std::string_view view;
  SILT_RETURN_NOT_OK(ReadBinary(&view));
  v->assign(view);
  return Status::OK();
}

// Container sizes are i32 on the wire; negative or beyond the limit is Corruption.
Status ThriftReader::ReadSize(uint32_t* size, const char* what) {
  const size_t start = pos_;
  uint64_t n = 0;
  SILT_RETURN_NOT_OK(ReadVarint(&n));
  if (n > 0x7FFFFFFF) return Corrupt(std::string(what) + " size out of range", start);
  if (n > static_cast<uint64_t>(limits_.max_list_elements)) {
    return Corrupt(std::string(what) + " size " + std::to_string(n) + " exceeds max_list_elements",
                   start);
  }
  *size = static_cast<uint32_t>(n);
  return Status::OK();
}

Status ThriftReader::ReadListBegin(ThriftType* elem, uint32_t* size) {
  const size_t start = pos_;
  if (pos_ >= len_) return Corrupt("truncated list header");
  const uint8_t b = data_[pos_++];
  const uint8_t t = b & 0x0f;
  uint32_t n = b >> 4;
  if (n == 15) {
    SILT_RETURN_NOT_OK(ReadSize(&n, "list"));
  } else if (n > static_cast<uint64_t>(limits_.max_list_elements)) {
    return Corrupt("list size " + std::to_string(n) + " exceeds max_list_elements", start);
  }
  if (n == 0) {
    *elem = static_cast<ThriftType>(t);
    *size = 0;
    return Status::OK();
  }
  if (t == 0 || t > kMaxType)
    return Corrupt("invalid list element type " + std::to_string(t), start);
  if (static_cast<uint64_t>(n) * kMinElementBytes[t] > remaining()) {
    return Corrupt("list size " + std::to_string(n) + " exceeds the " +
                       std::to_string(remaining()) + " bytes left",
                   start);
  }
  *elem = static_cast<ThriftType>(t);
  *size = n;
  return Status::OK();
}

Status ThriftReader::ReadMapBegin(ThriftType* key, ThriftType* value, uint32_t* size) {
  const size_t start = pos_;
  uint32_t n = 0;
  SILT_RETURN_NOT_OK(ReadSize(&n, "map"));
  if (n == 0) {
    *key = *value = ThriftType::kStop;
    *size = 0;
    return Status::OK();
  }
  if (pos_ >= len_) return Corrupt("truncated map header");
  const uint8_t b = data_[pos_++];
  const uint8_t kt = b >> 4, vt = b & 0x0f;
  if (kt == 0 || kt > kMaxType || vt == 0 || vt > kMaxType) {
    return Corrupt("invalid map key/value types", start);
  }
  if (static_cast<uint64_t>(n) * (kMinElementBytes[kt] + kMinElementBytes[vt]) > remaining()) {
    return Corrupt("map size " + std::to_string(n) + " exceeds the " + std::to_string(remaining()) +
                       " bytes left",
                   start);
  }
  *key = static_cast<ThriftType>(kt);
  *value = static_cast<ThriftType>(vt);
  *size = n;
  return Status::OK();
}

Status ThriftReader::SkipBytes(size_t n, const char* what) {
  if (remaining() < n) return Corrupt(std::string("truncated ") + what);
  pos_ += n;
  return Status::OK();
}

Status ThriftReader::SkipValue(ThriftType type, int depth) {
  switch (type) {
    case ThriftType::kBoolTrue:
    case ThriftType::kBoolFalse: {
      bool b = false;
      return ReadBool(&b);
    }
    case ThriftType::kI8:
      return SkipBytes(1, "i8");
    case ThriftType::kI16:
    case ThriftType::kI32:
    case ThriftType::kI64: {
      uint64_t v = 0;
      return ReadVarint(&v);
    }
    case ThriftType::kDouble:
      return SkipBytes(8, "double");
    case ThriftType::kUuid:
      return SkipBytes(16, "uuid");
    case ThriftType::kBinary: {
      const size_t start = pos_;
      uint64_t n = 0;
      SILT_RETURN_NOT_OK(ReadVarint(&n));
      if (n > remaining()) return Corrupt("binary length exceeds the bytes left", start);
      pos_ += n;
      return Status::OK();
    }
    case ThriftType::kStruct: {
      if (depth >= limits_.max_depth) return Corrupt("struct nesting deeper than max_depth");
      SILT_RETURN_NOT_OK(ReadStructBegin());
      while (true) {
        ThriftType t = ThriftType::kStop;
        int16_t id = 0;
        SILT_RETURN_NOT_OK(ReadFieldBegin(&t, &id));
        if (t == ThriftType::kStop) break;
        SILT_RETURN_NOT_OK(SkipValue(t, depth + 1));
      }
      ReadStructEnd();
      return Status::OK();
    }
    case ThriftType::kList:
    case ThriftType::kSet: {
      if (depth >= limits_.max_depth) return Corrupt("list nesting deeper than max_depth");
      ThriftType elem = ThriftType::kStop;
      uint32_t n = 0;
      SILT_RETURN_NOT_OK(ReadListBegin(&elem, &n));
      for (uint32_t i = 0; i < n; ++i) SILT_RETURN_NOT_OK(SkipValue(elem, depth + 1));
      return Status::OK();
    }
    case ThriftType::kMap: {
      if (depth >= limits_.max_depth) return Corrupt("map nesting deeper than max_depth");
      ThriftType kt = ThriftType::kStop, vt = ThriftType::kStop;
      uint32_t n = 0;
      SILT_RETURN_NOT_OK(ReadMapBegin(&kt, &vt, &n));
      for (uint32_t i = 0; i < n; ++i) {
        SILT_RETURN_NOT_OK(SkipValue(kt, depth + 1));
        SILT_RETURN_NOT_OK(SkipValue(vt, depth + 1));
      }
      return Status::OK();
    }
    case ThriftType::kStop:
      break;
  }
  return Corrupt("cannot skip value of type " + std::to_string(static_cast<int>(type)));
}

// ---------------------------------------------------------------- writer

void ThriftWriter::WriteStructEnd() {
  out_->push_back(0);
  if (stack_.empty()) return;
  last_id_ = stack_.back();
  stack_.pop_back();
}

void ThriftWriter::WriteFieldBegin(ThriftType type, int16_t id) {
  const int delta = id - last_id_;
  const uint8_t t = static_cast<uint8_t>(type);
  if (delta > 0 && delta <= 15) {
    out_->push_back(static_cast<char>((delta << 4) | t));
  } else {
    out_->push_back(static_cast<char>(t));
    WriteI16(id);
  }
  last_id_ = id;
}

void ThriftWriter::WriteVarint(uint64_t v) {
  char buf[10];
  int n = 0;
  while (v >= 0x80) {
    buf[n++] = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  buf[n++] = static_cast<char>(v);
  out_->append(buf, n);
}

void ThriftWriter::WriteDouble(double v) {
  char buf[8];
  std::memcpy(buf, &v, 8);
  out_->append(buf, 8);
}

void ThriftWriter::WriteListBegin(ThriftType elem, size_t size) {
  const uint8_t t = static_cast<uint8_t>(elem);
  if (size < 15) {
    out_->push_back(static_cast<char>((size << 4) | t));
  } else {
    out_->push_back(static_cast<char>(0xF0 | t));
    WriteVarint(size);
  }
}

void ThriftWriter::WriteMapBegin(ThriftType key, ThriftType value, size_t size) {
  WriteVarint(size);
  if (size > 0) {
    out_->push_back(
        static_cast<char>((static_cast<uint8_t>(key) << 4) | static_cast<uint8_t>(value)));
  }
}

}  // namespace silt::parquet
