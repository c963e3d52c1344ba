// Export of query results through the Arrow C data and C stream interfaces (silt/arrow.h).
//
// Ownership follows the specification: every exported ArrowSchema / ArrowArray owns its
// children (its release callback releases them); an ArrowArray's private data holds a
// shared_ptr to the QueryResult whose buffers it points into, plus the buffers export had to
// build (validity and boolean bitmaps, a map's entries struct, offsets widened for empty
// vectors).
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/error_classes.h"
#include "silt/arrow.h"
#include "vector/value.h"

namespace silt {

namespace {

// --- schemas ------------------------------------------------------------------------------

struct SchemaPrivate {
  std::string format;
  std::string name;
  std::vector<ArrowSchema*> children;
};

void ReleaseSchema(ArrowSchema* schema) {
  if (!schema || !schema->release) return;
  auto* p = static_cast<SchemaPrivate*>(schema->private_data);
  for (ArrowSchema* child : p->children) {
    if (child->release) child->release(child);
    delete child;
  }
  delete p;
  schema->release = nullptr;
}

Result<std::string> FormatOf(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
      return std::string("n");
    case TypeId::kBoolean:
      return std::string("b");
    case TypeId::kInt8:
      return std::string("c");
    case TypeId::kInt16:
      return std::string("s");
    case TypeId::kInt32:
      return std::string("i");
    case TypeId::kInt64:
      return std::string("l");
    case TypeId::kFloat:
      return std::string("f");
    case TypeId::kDouble:
      return std::string("g");
    case TypeId::kDecimal:
      return "d:" + std::to_string(type.precision()) + "," + std::to_string(type.scale());
    case TypeId::kString:
      return std::string("u");
    case TypeId::kBinary:
      return std::string("z");
    case TypeId::kDate:
      return std::string("tdD");
    case TypeId::kTimestamp:
      return std::string("tsu:UTC");
    case TypeId::kTimestampNtz:
      return std::string("tsu:");
    case TypeId::kTimestampNanos:
      return std::string("tsn:UTC");
    case TypeId::kTimestampNtzNanos:
      return std::string("tsn:");
    case TypeId::kTime:  // time64 in nanoseconds since midnight
      return std::string("ttn");
    case TypeId::kYearMonthInterval:
      return std::string("tiM");
    case TypeId::kDayTimeInterval:
      return std::string("tDu");
    case TypeId::kCalendarInterval:  // month_day_nano: int32 months, int32 days, int64 nanos
      return std::string("tin");
    case TypeId::kStruct:
      return std::string("+s");
    case TypeId::kList:
      return std::string("+l");
    case TypeId::kMap:
      return std::string("+m");
  }
  return Status::NotImplemented("no Arrow format for the type " + type.ToString());
}

Status FillSchema(const std::string& name, const DataType& type, bool nullable, ArrowSchema* out) {
  auto p = std::make_unique<SchemaPrivate>();
  SILT_ASSIGN_OR_RETURN(p->format, FormatOf(type));
  p->name = name;
  // Children first, so that a failure leaves nothing half-built behind.
  auto add_child = [&](const std::string& child_name, const DataType& child_type,
                       bool child_nullable) -> Status {
    auto* child = new ArrowSchema();
    child->release = nullptr;
    Status st = FillSchema(child_name, child_type, child_nullable, child);
    if (!st.ok()) {
      delete child;
      return st;
    }
    p->children.push_back(child);
    return Status::OK();
  };
  Status st;
  if (type.id() == TypeId::kStruct) {
    for (const Field& f : type.fields()) {
      st = add_child(f.name, *f.type, f.nullable);
      if (!st.ok()) break;
    }
  } else if (type.id() == TypeId::kList) {
    st = add_child("element", *type.element_type(), type.contains_null());
  } else if (type.id() == TypeId::kMap) {
    // entries: struct<key (not null), value>, itself not null.
    std::vector<Field> entries = {{"key", type.key_type(), false, "{}"},
                                  {"value", type.value_type(), type.value_contains_null(), "{}"}};
    st = add_child("entries", *DataType::Struct(std::move(entries)), false);
  }
  if (!st.ok()) {
    for (ArrowSchema* child : p->children) {
      if (child->release) child->release(child);
      delete child;
    }
    return st;
  }
  out->format = p->format.c_str();
  out->name = p->name.c_str();
  out->metadata = nullptr;
  out->flags = nullable ? ARROW_FLAG_NULLABLE : 0;
  out->n_children = static_cast<int64_t>(p->children.size());
  out->children = p->children.empty() ? nullptr : p->children.data();
  out->dictionary = nullptr;
  out->release = ReleaseSchema;
  out->private_data = p.release();
  return Status::OK();
}

// --- arrays -------------------------------------------------------------------------------

struct ArrayPrivate {
  std::shared_ptr<const QueryResult> keep_alive;
  std::vector<std::vector<uint8_t>> owned;  // buffers built by the export
  std::vector<const void*> buffers;
  std::vector<ArrowArray*> children;
};

void ReleaseArray(ArrowArray* array) {
  if (!array || !array->release) return;
  auto* p = static_cast<ArrayPrivate*>(array->private_data);
  for (ArrowArray* child : p->children) {
    if (child->release) child->release(child);
    delete child;
  }
  delete p;
  array->release = nullptr;
}

// A zeroed block for buffers of empty arrays (the specification wants non-null pointers for
// offsets; zeroes are also a valid empty data buffer).
alignas(64) const uint8_t kZeroes[64] = {};

const void* Owned(ArrayPrivate* p, std::vector<uint8_t> bytes) {
  p->owned.push_back(std::move(bytes));
  return p->owned.back().empty() ? kZeroes : p->owned.back().data();
}

// The validity bitmap (LSB first) of v's rows, or null when it has no NULL; sets *null_count.
const void* ValidityBitmap(ArrayPrivate* p, const Vector& v, int64_t* null_count) {
  *null_count = 0;
  if (v.id() == TypeId::kNull) {
    *null_count = static_cast<int64_t>(v.size());
    return nullptr;
  }
  if (!v.may_have_nulls()) return nullptr;
  size_t n = v.size();
  std::vector<uint8_t> bits((n + 7) / 8, 0);
  const uint8_t* valid = v.validity();
  int64_t nulls = 0;
  for (size_t i = 0; i < n; ++i) {
    if (valid[i]) {
      bits[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
    } else {
      ++nulls;
    }
  }
  *null_count = nulls;
  if (nulls == 0) return nullptr;
  return Owned(p, std::move(bits));
}

const void* OffsetsOf(const Vector& v) {
  // size()+1 entries; uint32 offsets are int32 ones as long as they stay below 2^31 (checked by
  // the caller).
  return v.size() == 0 && v.offsets() == nullptr ? static_cast<const void*>(kZeroes)
                                                 : static_cast<const void*>(v.offsets());
}

Status CheckOffsets(const Vector& v) {
  if (v.size() && v.offsets()[v.size()] > static_cast<uint32_t>(INT32_MAX)) {
    return Status::NotImplemented(
        "Arrow export of a column over 2 GiB of values in one chunk (needs large offsets)");
  }
  return Status::OK();
}

Status FillArray(const std::shared_ptr<const QueryResult>& keep, const Vector& v, ArrowArray* out);

Status AddChild(ArrayPrivate* p, const std::shared_ptr<const QueryResult>& keep, const Vector& v) {
  auto* child = new ArrowArray();
  child->release = nullptr;
  Status st = FillArray(keep, v, child);
  if (!st.ok()) {
    delete child;
    return st;
  }
  p->children.push_back(child);
  return Status::OK();
}

void Finish(ArrayPrivate* p, int64_t length, int64_t null_count, ArrowArray* out) {
  out->length = length;
  out->null_count = null_count;
  out->offset = 0;
  out->n_buffers = static_cast<int64_t>(p->buffers.size());
  out->buffers = p->buffers.empty() ? nullptr : p->buffers.data();
  out->n_children = static_cast<int64_t>(p->children.size());
  out->children = p->children.empty() ? nullptr : p->children.data();
  out->dictionary = nullptr;
  out->release = ReleaseArray;
  out->private_data = p;
}

void FreePrivate(ArrayPrivate* p) {
  for (ArrowArray* child : p->children) {
    if (child->release) child->release(child);
    delete child;
  }
  delete p;
}

Status FillArray(const std::shared_ptr<const QueryResult>& keep, const Vector& v, ArrowArray* out) {
  auto* p = new ArrayPrivate();
  p->keep_alive = keep;
  int64_t null_count = 0;
  const void* validity = ValidityBitmap(p, v, &null_count);
  Status st;
  switch (v.id()) {
    case TypeId::kNull:
      break;  // no buffers
    case TypeId::kBoolean: {
      std::vector<uint8_t> bits((v.size() + 7) / 8, 0);
      const uint8_t* data = v.data<uint8_t>();
      for (size_t i = 0; i < v.size(); ++i) {
        if (data[i]) bits[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
      }
      p->buffers = {validity, Owned(p, std::move(bits))};
      break;
    }
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
    case TypeId::kTime:
    case TypeId::kYearMonthInterval:
    case TypeId::kDayTimeInterval: {
      const void* data = v.data<uint8_t>();
      p->buffers = {validity, data ? data : static_cast<const void*>(kZeroes)};
      if (v.size() && !data)
        st = Status::Internal("Arrow export: a fixed-width vector without data");
      break;
    }
    case TypeId::kCalendarInterval: {
      // Arrow's month_day_nano layout differs from silt's packing and counts nanoseconds.
      std::vector<uint8_t> bytes(v.size() * 16);
      for (size_t i = 0; i < v.size() && st.ok(); ++i) {
        const CalendarInterval c = UnpackCalendarInterval(v.Get<int128_t>(i));
        int64_t nanos;
        if (__builtin_mul_overflow(c.microseconds, int64_t{1000}, &nanos)) {
          st = Status::InvalidArgument(
              "Arrow export: the interval " + FormatCalendarInterval(c) +
                  " does not fit Arrow's month_day_nano (int64 nanoseconds)",
              errc::kArithmeticOverflow);
        }
        std::memcpy(&bytes[i * 16], &c.months, 4);
        std::memcpy(&bytes[i * 16 + 4], &c.days, 4);
        std::memcpy(&bytes[i * 16 + 8], &nanos, 8);
      }
      p->buffers = {validity, Owned(p, std::move(bytes))};
      break;
    }
    case TypeId::kString:
    case TypeId::kBinary:
      st = CheckOffsets(v);
      p->buffers = {validity, OffsetsOf(v),
                    v.bytes().empty() ? static_cast<const void*>(kZeroes) : v.bytes().data()};
      break;
    case TypeId::kList:
      st = CheckOffsets(v);
      p->buffers = {validity, OffsetsOf(v)};
      if (st.ok()) st = AddChild(p, keep, v.child(0));
      break;
    case TypeId::kStruct:
      p->buffers = {validity};
      for (size_t i = 0; i < v.num_children() && st.ok(); ++i) st = AddChild(p, keep, v.child(i));
      break;
    case TypeId::kMap: {
      st = CheckOffsets(v);
      p->buffers = {validity, OffsetsOf(v)};
      if (!st.ok()) break;
      // entries: a struct array (no nulls) over the key and value vectors.
      auto* entries = new ArrowArray();
      auto* ep = new ArrayPrivate();
      ep->keep_alive = keep;
      ep->buffers = {nullptr};
      for (size_t i = 0; i < 2 && st.ok(); ++i) st = AddChild(ep, keep, v.child(i));
      if (!st.ok()) {
        FreePrivate(ep);
        delete entries;
        break;
      }
      Finish(ep, static_cast<int64_t>(v.child(0).size()), 0, entries);
      p->children.push_back(entries);
      break;
    }
  }
  if (!st.ok()) {
    FreePrivate(p);
    return st;
  }
  Finish(p, static_cast<int64_t>(v.size()), null_count, out);
  return Status::OK();
}

// --- streams ------------------------------------------------------------------------------

struct StreamPrivate {
  std::shared_ptr<const QueryResult> result;
  size_t next = 0;
  std::string last_error;
};

int StreamError(StreamPrivate* p, const Status& st) {
  p->last_error = st.ToString();
  switch (st.code()) {
    case StatusCode::kOutOfMemory:
      return 12;  // ENOMEM
    case StatusCode::kNotImplemented:
    case StatusCode::kUnsupported:
      return 95;  // ENOTSUP
    case StatusCode::kInvalidArgument:
      return 22;  // EINVAL
    default:
      return 5;  // EIO
  }
}

int StreamGetSchema(ArrowArrayStream* stream, ArrowSchema* out) {
  auto* p = static_cast<StreamPrivate*>(stream->private_data);
  Status st = ExportArrowSchema(p->result->schema(), out);
  return st.ok() ? 0 : StreamError(p, st);
}

int StreamGetNext(ArrowArrayStream* stream, ArrowArray* out) {
  auto* p = static_cast<StreamPrivate*>(stream->private_data);
  if (p->next >= p->result->chunks().size()) {
    std::memset(out, 0, sizeof(*out));
    out->release = nullptr;  // end of stream
    return 0;
  }
  Status st = ExportArrowArray(p->result, p->next, out);
  if (!st.ok()) return StreamError(p, st);
  ++p->next;
  return 0;
}

const char* StreamGetLastError(ArrowArrayStream* stream) {
  auto* p = static_cast<StreamPrivate*>(stream->private_data);
  return p->last_error.empty() ? nullptr : p->last_error.c_str();
}

void StreamRelease(ArrowArrayStream* stream) {
  if (!stream || !stream->release) return;
  delete static_cast<StreamPrivate*>(stream->private_data);
  stream->release = nullptr;
}

}  // namespace

Status ExportArrowField(const Field& field, ArrowSchema* out) {
  return FillSchema(field.name, *field.type, field.nullable, out);
}

Status ExportArrowSchema(const Schema& schema, ArrowSchema* out) {
  return FillSchema("", *DataType::Struct(schema), false, out);
}

Status ExportArrowArray(std::shared_ptr<const QueryResult> result, size_t index, ArrowArray* out) {
  if (!result || index >= result->chunks().size()) {
    return Status::InvalidArgument("Arrow export: no chunk " + std::to_string(index));
  }
  const DataChunk& chunk = result->chunks()[index];
  auto* p = new ArrayPrivate();
  p->keep_alive = result;
  p->buffers = {nullptr};  // a struct's validity: no null rows
  for (const Vector& column : chunk.columns) {
    Status st = AddChild(p, result, column);
    if (!st.ok()) {
      FreePrivate(p);
      return st;
    }
  }
  Finish(p, static_cast<int64_t>(chunk.size()), 0, out);
  return Status::OK();
}

Status ExportArrowStream(std::shared_ptr<const QueryResult> result, ArrowArrayStream* out) {
  if (!result) return Status::InvalidArgument("Arrow export of a null result");
  auto* p = new StreamPrivate();
  p->result = std::move(result);
  out->get_schema = StreamGetSchema;
  out->get_next = StreamGetNext;
  out->get_last_error = StreamGetLastError;
  out->release = StreamRelease;
  out->private_data = p;
  return Status::OK();
}

}  // namespace silt
