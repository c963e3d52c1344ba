#include "vector/vector.h"

#include <algorithm>

#include "vector/gather.h"

namespace silt {

Vector::Vector(TypePtr type) : type_(std::move(type)) {
  switch (type_->id()) {
    case TypeId::kString:
    case TypeId::kBinary:
      offsets_.push_back(0);
      break;
    case TypeId::kList:
      offsets_.push_back(0);
      children_.emplace_back(type_->element_type());
      break;
    case TypeId::kMap:
      offsets_.push_back(0);
      children_.emplace_back(type_->key_type());
      children_.emplace_back(type_->value_type());
      break;
    case TypeId::kStruct:
      for (const Field& f : type_->fields()) children_.emplace_back(f.type);
      break;
    default:
      break;
  }
}

size_t Vector::CountNulls() const {
  if (validity_.empty()) return 0;
  size_t n = 0;
  for (uint8_t v : validity_) n += (v == 0);
  return n;
}

uint8_t* Vector::mutable_validity() {
  if (validity_.size() != size_) validity_.assign(size_, 1);
  return validity_.data();
}

void Vector::SetValid(size_t i, bool valid) {
  if (valid && validity_.empty()) return;
  mutable_validity()[i] = valid ? 1 : 0;
}

void Vector::CompactValidity() {
  if (!validity_.empty() &&
      std::all_of(validity_.begin(), validity_.end(), [](uint8_t v) { return v != 0; }))
    validity_.clear();
}

void Vector::Reserve(size_t n) {
  int w = type_->fixed_width();
  if (w) data_.reserve(n * w);
  if (!offsets_.empty()) offsets_.reserve(n + 1);
  if (type_->id() == TypeId::kStruct)
    for (auto& c : children_) c.Reserve(n);
}

void Vector::Resize(size_t n) {
  switch (type_->id()) {
    case TypeId::kNull:
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      offsets_.resize(n + 1, offsets_[std::min(n, size_)]);
      bytes_.resize(offsets_[n]);
      break;
    case TypeId::kList:
    case TypeId::kMap: {
      offsets_.resize(n + 1, offsets_[std::min(n, size_)]);
      for (auto& c : children_) c.Resize(offsets_[n]);
      break;
    }
    case TypeId::kStruct:
      for (auto& c : children_) c.Resize(n);
      break;
    default:
      data_.resize(n * type_->fixed_width(), 0);
      break;
  }
  if (!validity_.empty()) validity_.resize(n, 1);
  size_ = n;
}

void Vector::AppendDefaultRow() {
  switch (type_->id()) {
    case TypeId::kNull:
      break;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kList:
    case TypeId::kMap:
      offsets_.push_back(offsets_.back());
      break;
    case TypeId::kStruct:
      for (auto& c : children_) c.AppendNull();
      break;
    default:
      data_.resize(data_.size() + type_->fixed_width(), 0);
      break;
  }
  ++size_;
}

void Vector::AppendNull() {
  mutable_validity();
  AppendDefaultRow();
  validity_.push_back(0);
}

void Vector::AppendString(std::string_view s) {
  bytes_.append(s.data(), s.size());
  offsets_.push_back(static_cast<uint32_t>(bytes_.size()));
  if (!validity_.empty()) validity_.push_back(1);
  ++size_;
}

void Vector::FinishListRow() {
  offsets_.push_back(static_cast<uint32_t>(children_[0].size()));
  if (!validity_.empty()) validity_.push_back(1);
  ++size_;
}

Status Vector::AppendValue(const Value& v) {
  if (v.is_null()) {
    AppendNull();
    return Status::OK();
  }
  switch (type_->id()) {
    case TypeId::kNull:
      return Status::InvalidArgument("non-null value for a void column");
    case TypeId::kBoolean:
      Append<uint8_t>(v.boolean() ? 1 : 0);
      break;
    case TypeId::kInt8:
      Append<int8_t>(static_cast<int8_t>(v.integer()));
      break;
    case TypeId::kInt16:
      Append<int16_t>(static_cast<int16_t>(v.integer()));
      break;
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      Append<int32_t>(static_cast<int32_t>(v.integer()));
      break;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
    case TypeId::kTime:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
      Append<int64_t>(v.integer());
      break;
    case TypeId::kFloat:
      Append<float>(static_cast<float>(v.floating()));
      break;
    case TypeId::kDouble:
      Append<double>(v.floating());
      break;
    case TypeId::kDecimal:
    case TypeId::kCalendarInterval:
      Append<int128_t>(v.decimal());
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      AppendString(v.str());
      break;
    case TypeId::kStruct: {
      const auto& ch = v.children();
      if (ch.size() != children_.size()) return Status::InvalidArgument("struct arity mismatch");
      for (size_t i = 0; i < ch.size(); ++i) SILT_RETURN_NOT_OK(children_[i].AppendValue(ch[i]));
      if (!validity_.empty()) validity_.push_back(1);
      ++size_;
      break;
    }
    case TypeId::kList:
      for (const Value& e : v.children()) SILT_RETURN_NOT_OK(children_[0].AppendValue(e));
      FinishListRow();
      break;
    case TypeId::kMap: {
      const auto& ch = v.children();
      if (ch.size() % 2) return Status::InvalidArgument("map value needs key/value pairs");
      for (size_t i = 0; i < ch.size(); i += 2) {
        SILT_RETURN_NOT_OK(children_[0].AppendValue(ch[i]));
        SILT_RETURN_NOT_OK(children_[1].AppendValue(ch[i + 1]));
      }
      FinishListRow();
      break;
    }
  }
  return Status::OK();
}

void Vector::AppendRange(const Vector& src, size_t offset, size_t count) {
  if (count == 0) return;
  size_t old = size_;
  if (src.may_have_nulls() || may_have_nulls()) {
    mutable_validity();
    if (src.may_have_nulls())
      validity_.insert(validity_.end(), src.validity_.begin() + offset,
                       src.validity_.begin() + offset + count);
    else
      validity_.resize(old + count, 1);
  }
  switch (type_->id()) {
    case TypeId::kNull:
      break;
    case TypeId::kString:
    case TypeId::kBinary: {
      uint32_t b0 = src.offsets_[offset], b1 = src.offsets_[offset + count];
      uint32_t base = static_cast<uint32_t>(bytes_.size());
      bytes_.append(src.bytes_.data() + b0, b1 - b0);
      for (size_t i = 1; i <= count; ++i) offsets_.push_back(base + src.offsets_[offset + i] - b0);
      break;
    }
    case TypeId::kList:
    case TypeId::kMap: {
      uint32_t c0 = src.offsets_[offset], c1 = src.offsets_[offset + count];
      uint32_t base = offsets_.back();
      for (size_t k = 0; k < children_.size(); ++k)
        children_[k].AppendRange(src.children_[k], c0, c1 - c0);
      for (size_t i = 1; i <= count; ++i) offsets_.push_back(base + src.offsets_[offset + i] - c0);
      break;
    }
    case TypeId::kStruct:
      for (size_t k = 0; k < children_.size(); ++k)
        children_[k].AppendRange(src.children_[k], offset, count);
      break;
    default: {
      int w = type_->fixed_width();
      data_.append(src.data_.data() + offset * w, count * w);
      break;
    }
  }
  size_ = old + count;
}

void Vector::GatherValidity(const Vector& src, const uint32_t* sel, size_t n, size_t old) {
  if (!src.may_have_nulls() && !may_have_nulls()) return;
  mutable_validity();
  validity_.resize(old + n, 1);
  if (src.may_have_nulls())
    for (size_t i = 0; i < n; ++i) validity_[old + i] = src.validity_[sel[i]];
}

void Vector::AppendSelected(const Vector& src, const uint32_t* sel, size_t n) {
  int w = type_->fixed_width();
  if (w && !type_->is_nested()) {
    size_t old = size_;
    data_.resize((old + n) * w);
    GatherFixedWidth(data_.data() + old * w, src.data_.data(), static_cast<size_t>(w), sel, n);
    GatherValidity(src, sel, n, old);
    size_ = old + n;
    return;
  }
  if (type_->is_binary_like()) {
    size_t old = size_;
    size_t total = 0;
    for (size_t i = 0; i < n; ++i) total += src.offsets_[sel[i] + 1] - src.offsets_[sel[i]];
    size_t b = bytes_.size();
    // 16 bytes of slack let short strings be copied with one fixed-size move.
    bytes_.resize(b + total + 16);
    offsets_.resize(old + n + 1);
    char* dst = bytes_.data();
    const char* sb = src.bytes_.data();
    const size_t src_size = src.bytes_.size();
    for (size_t i = 0; i < n; ++i) {
      uint32_t o0 = src.offsets_[sel[i]], len = src.offsets_[sel[i] + 1] - o0;
      if (len <= 16 && o0 + 16 <= src_size) {
        std::memcpy(dst + b, sb + o0, 16);
      } else {
        std::memcpy(dst + b, sb + o0, len);
      }
      b += len;
      offsets_[old + i + 1] = static_cast<uint32_t>(b);
    }
    bytes_.resize(b);
    GatherValidity(src, sel, n, old);
    size_ = old + n;
    return;
  }
  for (size_t i = 0; i < n; ++i) AppendRange(src, sel[i], 1);
}

Value Vector::GetValue(size_t i) const {
  if (IsNull(i)) return Value::Null(type_);
  switch (type_->id()) {
    case TypeId::kNull:
      return Value::Null(type_);
    case TypeId::kBoolean:
      return Value::Boolean(Get<uint8_t>(i) != 0);
    case TypeId::kInt8:
      return Value::Integer(type_, Get<int8_t>(i));
    case TypeId::kInt16:
      return Value::Integer(type_, Get<int16_t>(i));
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return Value::Integer(type_, Get<int32_t>(i));
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
    case TypeId::kTime:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
      return Value::Integer(type_, Get<int64_t>(i));
    case TypeId::kFloat:
      return Value::Floating(type_, Get<float>(i));
    case TypeId::kDouble:
      return Value::Floating(type_, Get<double>(i));
    case TypeId::kDecimal:
      return Value::Decimal(type_->precision(), type_->scale(), Get<int128_t>(i));
    case TypeId::kCalendarInterval:
      return Value::CalendarInterval(UnpackCalendarInterval(Get<int128_t>(i)));
    case TypeId::kString:
      return Value::String(std::string(GetString(i)));
    case TypeId::kBinary:
      return Value::Binary(std::string(GetString(i)));
    case TypeId::kStruct: {
      std::vector<Value> ch;
      for (const auto& c : children_) ch.push_back(c.GetValue(i));
      return Value::Nested(type_, std::move(ch));
    }
    case TypeId::kList: {
      std::vector<Value> ch;
      for (uint32_t k = offsets_[i]; k < offsets_[i + 1]; ++k)
        ch.push_back(children_[0].GetValue(k));
      return Value::Nested(type_, std::move(ch));
    }
    case TypeId::kMap: {
      std::vector<Value> ch;
      for (uint32_t k = offsets_[i]; k < offsets_[i + 1]; ++k) {
        ch.push_back(children_[0].GetValue(k));
        ch.push_back(children_[1].GetValue(k));
      }
      return Value::Nested(type_, std::move(ch));
    }
  }
  return Value::Null(type_);
}

size_t Vector::MemoryUsage() const {
  size_t n = validity_.capacity() + data_.capacity() + offsets_.capacity() * 4 + bytes_.capacity();
  for (const auto& c : children_) n += c.MemoryUsage();
  return n;
}

DataChunk DataChunk::FromSchema(const Schema& schema) {
  DataChunk c;
  for (const Field& f : schema) c.columns.emplace_back(f.type);
  return c;
}

void DataChunk::Clear() {
  for (auto& c : columns) c.Clear();
  num_rows_without_columns = 0;
}

std::vector<Value> DataChunk::GetRow(size_t i) const {
  std::vector<Value> row;
  row.reserve(columns.size());
  for (const auto& c : columns) row.push_back(c.GetValue(i));
  return row;
}

}  // namespace silt
