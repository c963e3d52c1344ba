// Import of Arrow C data / C stream interface data into silt chunks (silt/arrow.h), and the
// temporary views over in-memory rows (RegisterTemporaryView) that make such data readable by SQL.
//
// Every value is copied into silt's layout (Vector: a validity byte per row, booleans as bytes,
// uint32 offsets, 128-bit decimals, microsecond timestamps); the Arrow buffers are only read, at
// the offsets the specification gives (an array's `offset`, a struct's offset applying to its
// children, a list's offsets into its child). Null slots get silt's defined values (0, empty).
#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error_classes.h"
#include "engine/engine.h"
#include "planner/memory_relations.h"
#include "silt/arrow.h"

namespace silt {

namespace {

Status Unsupported(std::string_view format, std::string_view what = "") {
  return Status::NotImplemented("Arrow import of the format '" + std::string(format) + "'" +
                                    (what.empty() ? "" : " (" + std::string(what) + ")") +
                                    " is not supported",
                                errc::kNotImplemented);
}

Status Malformed(const std::string& what) {
  return Status::InvalidArgument("Arrow import: " + what, errc::kInvalidParameterValue);
}

// The time unit of a t?s / tD? format: divisor to microseconds (negative: a multiplier).
Result<int64_t> UnitToMicros(char unit, std::string_view format) {
  switch (unit) {
    case 's':
      return int64_t{-1000000};
    case 'm':
      return int64_t{-1000};
    case 'u':
      return int64_t{1};
    case 'n':
      return int64_t{1000};
    default:
      return Unsupported(format, "unknown time unit");
  }
}

Result<TypePtr> TypeOfSchema(const ArrowSchema* s);

Result<std::vector<Field>> ChildFields(const ArrowSchema* s) {
  std::vector<Field> fields;
  if (s->n_children < 0 || (s->n_children > 0 && !s->children)) {
    return Malformed("a schema with a bad child count");
  }
  for (int64_t i = 0; i < s->n_children; ++i) {
    const ArrowSchema* c = s->children[i];
    if (!c || !c->format) return Malformed("a null child schema");
    SILT_ASSIGN_OR_RETURN(TypePtr t, TypeOfSchema(c));
    fields.push_back(
        {c->name ? c->name : "", std::move(t), (c->flags & ARROW_FLAG_NULLABLE) != 0, "{}"});
  }
  return fields;
}

// The silt type of an Arrow schema (for a dictionary-encoded one: its values' type).
Result<TypePtr> TypeOfSchema(const ArrowSchema* s) {
  if (!s || !s->format) return Malformed("a schema without a format");
  if (s->dictionary) return TypeOfSchema(s->dictionary);
  const std::string_view f = s->format;
  if (f == "n") return DataType::Null();
  if (f == "b") return DataType::Boolean();
  if (f == "c") return DataType::Int8();
  if (f == "s" || f == "C") return DataType::Int16();
  if (f == "i" || f == "S") return DataType::Int32();
  if (f == "l" || f == "I") return DataType::Int64();
  if (f == "L") return DataType::Decimal(20, 0);
  if (f == "f") return DataType::Float();
  if (f == "g") return DataType::Double();
  if (f == "u" || f == "U") return DataType::String();
  if (f == "z" || f == "Z") return DataType::Binary();
  if (f == "tdD" || f == "tdm") return DataType::Date();
  if (f == "tiM") return DataType::YearMonthInterval();
  if (f.size() == 3 && f.substr(0, 2) == "tD") {
    SILT_RETURN_NOT_OK(UnitToMicros(f[2], f).status());
    return DataType::DayTimeInterval();
  }
  if (f.size() >= 4 && f.substr(0, 2) == "ts" && f[3] == ':') {
    SILT_RETURN_NOT_OK(UnitToMicros(f[2], f).status());
    // An instant with a zone (any zone: the values are UTC), a wall time without one.
    return f.size() > 4 ? DataType::Timestamp() : DataType::TimestampNtz();
  }
  if (f.substr(0, 2) == "d:") {
    int precision = 0, scale = 0, width = 128;
    std::string rest(f.substr(2));
    if (std::sscanf(rest.c_str(), "%d,%d,%d", &precision, &scale, &width) < 2) {
      return Malformed("a bad decimal format '" + std::string(f) + "'");
    }
    if (width != 128) return Unsupported(f, "only 128-bit decimals");
    if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
      return Unsupported(f, "precision 1..38 and 0 <= scale <= precision");
    }
    return DataType::Decimal(precision, scale);
  }
  if (f == "+s") {
    SILT_ASSIGN_OR_RETURN(std::vector<Field> fields, ChildFields(s));
    return DataType::Struct(std::move(fields));
  }
  if (f == "+l" || f == "+L") {
    if (s->n_children != 1) return Malformed("a list schema without one child");
    SILT_ASSIGN_OR_RETURN(std::vector<Field> fields, ChildFields(s));
    return DataType::List(fields[0].type, fields[0].nullable);
  }
  if (f == "+m") {
    if (s->n_children != 1 || std::string_view(s->children[0]->format) != "+s" ||
        s->children[0]->n_children != 2) {
      return Malformed("a map schema without an entries struct of two children");
    }
    SILT_ASSIGN_OR_RETURN(std::vector<Field> kv, ChildFields(s->children[0]));
    return DataType::Map(kv[0].type, kv[1].type, kv[1].nullable);
  }
  return Unsupported(f);
}

// Reads rows of one Arrow array into a silt vector.
class Importer {
 public:
  // Appends the array's logical rows [start, start + count) (after its own offset) to `out`,
  // whose type is TypeOfSchema(s).
  Status Append(const ArrowSchema* s, const ArrowArray* a, int64_t start, int64_t count,
                Vector* out) {
    if (!a) return Malformed("a null array");
    if (start < 0 || count < 0 || start + count > a->length) {
      return Malformed("rows [" + std::to_string(start) + ", " + std::to_string(start + count) +
                       ") outside an array of " + std::to_string(a->length));
    }
    if (s->dictionary) return AppendDictionary(s, a, start, count, out);
    const std::string_view f = s->format;
    const int64_t first = a->offset + start;  // physical index of the first row
    const size_t old = out->size();
    if (f == "n") {
      for (int64_t i = 0; i < count; ++i) out->AppendNull();
      return Status::OK();
    }
    SILT_RETURN_NOT_OK(NeedBuffers(a, f));
    const uint8_t* valid = a->null_count == 0 ? nullptr : Buffer<uint8_t>(a, 0);
    auto is_valid = [&](int64_t i) {  // i: row of this call
      return !valid || ((valid[(first + i) >> 3] >> ((first + i) & 7)) & 1);
    };
    if (f == "b") {
      const uint8_t* bits = Buffer<uint8_t>(a, 1);
      out->ResizeUninitialized(old + count);
      uint8_t* d = out->data<uint8_t>() + old;
      for (int64_t i = 0; i < count; ++i) {
        d[i] = is_valid(i) ? ((bits[(first + i) >> 3] >> ((first + i) & 7)) & 1) : 0;
      }
    } else if (f == "c") {
      Fixed<int8_t, int8_t>(a, first, count, out);
    } else if (f == "s") {
      Fixed<int16_t, int16_t>(a, first, count, out);
    } else if (f == "C") {
      Fixed<uint8_t, int16_t>(a, first, count, out);
    } else if (f == "i" || f == "tdD") {
      Fixed<int32_t, int32_t>(a, first, count, out);
    } else if (f == "S") {
      Fixed<uint16_t, int32_t>(a, first, count, out);
    } else if (f == "l") {
      Fixed<int64_t, int64_t>(a, first, count, out);
    } else if (f == "I") {
      Fixed<uint32_t, int64_t>(a, first, count, out);
    } else if (f == "L") {
      Fixed<uint64_t, int128_t>(a, first, count, out);
    } else if (f == "f") {
      Fixed<float, float>(a, first, count, out);
    } else if (f == "g") {
      Fixed<double, double>(a, first, count, out);
    } else if (f == "tiM") {
      Fixed<int32_t, int32_t>(a, first, count, out);
    } else if (f == "tdm") {
      // date64: milliseconds since the epoch, whole days (floored).
      Fixed<int64_t, int32_t>(a, first, count, out, [](int64_t ms) {
        int64_t d = ms / 86400000;
        if (ms % 86400000 < 0) --d;
        return static_cast<int32_t>(d);
      });
    } else if (f.substr(0, 2) == "ts" || f.substr(0, 2) == "tD") {
      SILT_ASSIGN_OR_RETURN(int64_t unit, UnitToMicros(f[2], f));
      bool overflow = false;
      Fixed<int64_t, int64_t>(a, first, count, out, [&](int64_t v) {
        if (unit == 1) return v;
        if (unit > 1) {  // nanoseconds: floored to microseconds
          int64_t q = v / unit;
          if (v % unit < 0) --q;
          return q;
        }
        int64_t r;
        if (__builtin_mul_overflow(v, -unit, &r)) overflow = true;
        return r;
      });
      if (overflow) {
        // Only valid rows count: null slots may hold anything.
        for (int64_t i = 0; i < count; ++i) {
          int64_t r;
          if (is_valid(i) && __builtin_mul_overflow(Buffer<int64_t>(a, 1)[first + i], -unit, &r)) {
            return Status::InvalidArgument(
                "Arrow import: a " + std::string(f) + " value beyond the microsecond range",
                errc::kDatetimeOverflow);
          }
        }
      }
    } else if (f.substr(0, 2) == "d:") {
      Fixed<int128_t, int128_t>(a, first, count, out);
    } else if (f == "u" || f == "z") {
      SILT_RETURN_NOT_OK(Strings<int32_t>(a, first, count, is_valid, out));
    } else if (f == "U" || f == "Z") {
      SILT_RETURN_NOT_OK(Strings<int64_t>(a, first, count, is_valid, out));
    } else if (f == "+s") {
      if (a->n_children != s->n_children || (a->n_children && !a->children)) {
        return Malformed("a struct array whose children do not match its schema");
      }
      for (int64_t c = 0; c < s->n_children; ++c) {
        // A struct's offset applies to its children (their own offsets come on top).
        SILT_RETURN_NOT_OK(Append(s->children[c], a->children[c], first, count, &out->child(c)));
      }
      out->SetSizeUnchecked(old + count);
    } else if (f == "+l" || f == "+L" || f == "+m") {
      if (a->n_children != 1 || !a->children) return Malformed("a list array without one child");
      SILT_RETURN_NOT_OK(f == "+L" ? Lists<int64_t>(s, a, first, count, is_valid, out)
                                   : Lists<int32_t>(s, a, first, count, is_valid, out));
    } else {
      return Unsupported(f);
    }
    if (valid) {
      uint8_t* v = nullptr;
      for (int64_t i = 0; i < count; ++i) {
        if (!is_valid(i)) {
          if (!v) v = out->mutable_validity();
          v[old + i] = 0;
        }
      }
    }
    return Status::OK();
  }

 private:
  template <typename T>
  static const T* Buffer(const ArrowArray* a, int i) {
    return static_cast<const T*>(a->buffers[i]);
  }

  static Status NeedBuffers(const ArrowArray* a, std::string_view f) {
    int64_t want = f == "+s"                                        ? 1
                   : (f == "+l" || f == "+L" || f == "+m")          ? 2
                   : (f == "u" || f == "z" || f == "U" || f == "Z") ? 3
                                                                    : 2;
    if (a->n_buffers != want || !a->buffers) {
      return Malformed("an array of format '" + std::string(f) + "' with " +
                       std::to_string(a->n_buffers) + " buffers, not " + std::to_string(want));
    }
    for (int64_t i = 1; i < want; ++i) {
      if (!a->buffers[i] && a->length > 0) {
        return Malformed("an array of format '" + std::string(f) + "' without buffer " +
                         std::to_string(i));
      }
    }
    return Status::OK();
  }

  // Fixed-width values: buffer 1 holds From values, silt stores To (converted by `conv`).
  template <typename From, typename To, typename Conv>
  static void Fixed(const ArrowArray* a, int64_t first, int64_t count, Vector* out, Conv conv) {
    const From* src = Buffer<From>(a, 1) + first;
    const size_t old = out->size();
    out->ResizeUninitialized(old + count);
    To* dst = out->data<To>() + old;
    for (int64_t i = 0; i < count; ++i) dst[i] = conv(src[i]);
  }
  template <typename From, typename To>
  static void Fixed(const ArrowArray* a, int64_t first, int64_t count, Vector* out) {
    if constexpr (std::is_same_v<From, To>) {
      const size_t old = out->size();
      out->ResizeUninitialized(old + count);
      if (count) std::memcpy(out->data<To>() + old, Buffer<From>(a, 1) + first, count * sizeof(To));
    } else {
      Fixed<From, To>(a, first, count, out, [](From v) { return static_cast<To>(v); });
    }
  }

  template <typename Off, typename Valid>
  static Status Strings(const ArrowArray* a, int64_t first, int64_t count, const Valid& is_valid,
                        Vector* out) {
    const Off* off = Buffer<Off>(a, 1) + first;
    const char* bytes = Buffer<char>(a, 2);
    std::vector<uint32_t>& offsets = out->offsets_buffer();
    std::string& data = out->bytes();
    if (offsets.empty()) offsets.push_back(0);
    const size_t old = out->size();
    int64_t total = 0;
    for (int64_t i = 0; i < count; ++i) {
      if (off[i + 1] < off[i]) return Malformed("decreasing string offsets");
      if (is_valid(i)) total += off[i + 1] - off[i];
    }
    if (static_cast<uint64_t>(data.size()) + total > std::numeric_limits<uint32_t>::max()) {
      return Status::NotImplemented("Arrow import: over 4 GiB of string bytes in one chunk of rows",
                                    errc::kNotImplemented);
    }
    data.reserve(data.size() + total);
    offsets.reserve(old + count + 1);
    for (int64_t i = 0; i < count; ++i) {
      if (is_valid(i)) data.append(bytes + off[i], static_cast<size_t>(off[i + 1] - off[i]));
      offsets.push_back(static_cast<uint32_t>(data.size()));
    }
    out->SetSizeUnchecked(old + count);
    return Status::OK();
  }

  // list / large list / map: child rows [off[i], off[i+1]) per row (none for a null row).
  template <typename Off, typename Valid>
  Status Lists(const ArrowSchema* s, const ArrowArray* a, int64_t first, int64_t count,
               const Valid& is_valid, Vector* out) {
    const Off* off = Buffer<Off>(a, 1) + first;
    const bool map = std::string_view(s->format) == "+m";
    const ArrowSchema* cs = s->children[0];
    const ArrowArray* ca = a->children[0];
    std::vector<uint32_t>& offsets = out->offsets_buffer();
    if (offsets.empty()) offsets.push_back(0);
    const size_t old = out->size();
    offsets.reserve(old + count + 1);
    // Runs of consecutive child rows are appended at once.
    int64_t run_start = 0, run_end = 0;
    auto flush = [&]() -> Status {
      if (run_end == run_start) return Status::OK();
      if (map) {
        if (ca->n_children != 2 || !ca->children) return Malformed("a map without key and value");
        const int64_t base = ca->offset;  // the entries struct's offset applies to its children
        for (int c = 0; c < 2; ++c) {
          SILT_RETURN_NOT_OK(Append(cs->children[c], ca->children[c], base + run_start,
                                    run_end - run_start, &out->child(c)));
        }
      } else {
        SILT_RETURN_NOT_OK(Append(cs, ca, run_start, run_end - run_start, &out->child(0)));
      }
      return Status::OK();
    };
    uint64_t child_rows = out->child(0).size();
    for (int64_t i = 0; i < count; ++i) {
      if (!is_valid(i) || off[i + 1] == off[i]) {
        offsets.push_back(static_cast<uint32_t>(child_rows));
        continue;
      }
      if (off[i + 1] < off[i] || off[i] < 0) return Malformed("bad list offsets");
      if (off[i] != run_end) {
        SILT_RETURN_NOT_OK(flush());
        run_start = run_end = off[i];
      }
      run_end = off[i + 1];
      child_rows += static_cast<uint64_t>(off[i + 1] - off[i]);
      if (child_rows > std::numeric_limits<uint32_t>::max()) {
        return Status::NotImplemented("Arrow import: over 2^32 list elements in one chunk",
                                      errc::kNotImplemented);
      }
      offsets.push_back(static_cast<uint32_t>(child_rows));
    }
    SILT_RETURN_NOT_OK(flush());
    out->SetSizeUnchecked(old + count);
    return Status::OK();
  }

  // A dictionary-encoded array: its indices pick rows of the dictionary (decoded once per array).
  Status AppendDictionary(const ArrowSchema* s, const ArrowArray* a, int64_t start, int64_t count,
                          Vector* out) {
    if (!a->dictionary) return Malformed("a dictionary-encoded array without its dictionary");
    const std::string_view f = s->format;
    int width = f == "c" || f == "C"   ? 1
                : f == "s" || f == "S" ? 2
                : f == "i" || f == "I" ? 4
                : f == "l" || f == "L" ? 8
                                       : 0;
    if (!width) return Unsupported(f, "dictionary indices");
    if (a->n_buffers != 2 || !a->buffers || (!a->buffers[1] && a->length)) {
      return Malformed("dictionary indices without their buffers");
    }
    if (dict_array_ != a->dictionary) {
      // The dictionary's values, plus one NULL row that null indices pick.
      dict_ = Vector(out->type());
      SILT_RETURN_NOT_OK(Append(s->dictionary, a->dictionary, 0, a->dictionary->length, &dict_));
      dict_.AppendNull();
      dict_array_ = a->dictionary;
    }
    const int64_t entries = static_cast<int64_t>(dict_.size()) - 1;
    const int64_t first = a->offset + start;
    const uint8_t* valid = a->null_count == 0 ? nullptr : Buffer<uint8_t>(a, 0);
    const bool is_signed = f == "c" || f == "s" || f == "i" || f == "l";
    std::vector<uint32_t> sel(static_cast<size_t>(count));
    const auto* raw = static_cast<const uint8_t*>(a->buffers[1]);
    for (int64_t i = 0; i < count; ++i) {
      const int64_t p = first + i;
      if (valid && !((valid[p >> 3] >> (p & 7)) & 1)) {
        sel[i] = static_cast<uint32_t>(entries);
        continue;
      }
      int64_t k = 0;
      switch (width) {
        case 1:
          k = is_signed ? int64_t{reinterpret_cast<const int8_t*>(raw)[p]} : raw[p];
          break;
        case 2:
          k = is_signed ? int64_t{reinterpret_cast<const int16_t*>(raw)[p]}
                        : int64_t{reinterpret_cast<const uint16_t*>(raw)[p]};
          break;
        case 4:
          k = is_signed ? int64_t{reinterpret_cast<const int32_t*>(raw)[p]}
                        : int64_t{reinterpret_cast<const uint32_t*>(raw)[p]};
          break;
        default:
          k = reinterpret_cast<const int64_t*>(raw)[p];
          break;
      }
      if (k < 0 || k >= entries) {
        return Malformed("a dictionary index " + std::to_string(k) + " outside a dictionary of " +
                         std::to_string(entries));
      }
      sel[i] = static_cast<uint32_t>(k);
    }
    out->AppendSelected(dict_, sel.data(), sel.size());
    return Status::OK();
  }

  const ArrowArray* dict_array_ = nullptr;
  Vector dict_{DataType::Null()};
};

// Releases a stream / schema / array on every path out of the import.
struct StreamGuard {
  ArrowArrayStream* s;
  ~StreamGuard() {
    if (s && s->release) s->release(s);
  }
};
struct SchemaGuard {
  ArrowSchema s{};
  ~SchemaGuard() {
    if (s.release) s.release(&s);
  }
};
struct ArrayGuard {
  ArrowArray a{};
  ~ArrayGuard() {
    if (a.release) a.release(&a);
  }
};

std::string StreamMessage(ArrowArrayStream* stream, int code, const char* what) {
  const char* err = stream->get_last_error ? stream->get_last_error(stream) : nullptr;
  return std::string("Arrow import: the stream's ") + what + " failed (" + std::to_string(code) +
         (err ? std::string("): ") + err : std::string(")"));
}

std::string LowerName(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

Result<Schema> ImportArrowSchema(const ArrowSchema* schema) {
  if (!schema || !schema->format) return Malformed("a null schema");
  if (std::string_view(schema->format) != "+s") {
    return Status::InvalidArgument("Arrow import: the rows must be a struct (format '+s'), not '" +
                                       std::string(schema->format) + "'",
                                   errc::kInvalidParameterValue);
  }
  SILT_ASSIGN_OR_RETURN(std::vector<Field> fields, ChildFields(schema));
  return fields;
}

Status ImportArrowArray(const ArrowSchema* schema, const ArrowArray* array,
                        std::vector<DataChunk>* chunks) {
  SILT_ASSIGN_OR_RETURN(Schema columns, ImportArrowSchema(schema));
  if (!array || array->n_children != schema->n_children ||
      (array->n_children && !array->children)) {
    return Malformed("an array whose children do not match the schema");
  }
  if (array->null_count != 0 && array->n_buffers > 0 && array->buffers && array->buffers[0]) {
    const auto* bits = static_cast<const uint8_t*>(array->buffers[0]);
    for (int64_t i = 0; i < array->length; ++i) {
      int64_t p = array->offset + i;
      if (!((bits[p >> 3] >> (p & 7)) & 1)) {
        return Status::InvalidArgument("Arrow import: a NULL row (a null in the struct of rows)",
                                       errc::kInvalidParameterValue);
      }
    }
  }
  std::vector<Importer> importers(columns.size());
  for (int64_t start = 0; start < array->length; start += kArrowImportChunkRows) {
    const int64_t count = std::min<int64_t>(kArrowImportChunkRows, array->length - start);
    DataChunk chunk = DataChunk::FromSchema(columns);
    for (size_t c = 0; c < columns.size(); ++c) {
      // The struct's offset applies to its children.
      SILT_RETURN_NOT_OK(importers[c].Append(schema->children[c], array->children[c],
                                             array->offset + start, count, &chunk.columns[c]));
    }
    if (columns.empty()) chunk.num_rows_without_columns = static_cast<size_t>(count);
    chunks->push_back(std::move(chunk));
  }
  return Status::OK();
}

Status ImportArrowStream(ArrowArrayStream* stream, Schema* schema, std::vector<DataChunk>* chunks) {
  if (!stream || !stream->release) return Malformed("a released or null stream");
  StreamGuard guard{stream};
  SchemaGuard s;
  int rc = stream->get_schema(stream, &s.s);
  if (rc != 0) return Status::IoError(StreamMessage(stream, rc, "get_schema"));
  SILT_ASSIGN_OR_RETURN(*schema, ImportArrowSchema(&s.s));
  for (;;) {
    ArrayGuard a;
    rc = stream->get_next(stream, &a.a);
    if (rc != 0) return Status::IoError(StreamMessage(stream, rc, "get_next"));
    if (!a.a.release) break;  // the end
    SILT_RETURN_NOT_OK(ImportArrowArray(&s.s, &a.a, chunks));
  }
  return Status::OK();
}

Status RegisterTemporaryView(Connection& con, std::string_view view_name, Schema schema,
                             std::vector<DataChunk> rows) {
  if (view_name.empty()) {
    return Status::InvalidArgument("a temporary view needs a name", errc::kInvalidParameterValue);
  }
  for (const DataChunk& c : rows) {
    if (c.columns.size() != schema.size()) {
      return Status::InvalidArgument("RegisterTemporaryView: a chunk does not match the schema",
                                     errc::kInvalidParameterValue);
    }
    for (size_t i = 0; i < schema.size(); ++i) {
      if (c.columns[i].id() != schema[i].type->id()) {
        return Status::InvalidArgument("RegisterTemporaryView: column " + schema[i].name +
                                           " of a chunk is not " + schema[i].type->ToString(),
                                       errc::kInvalidParameterValue);
      }
    }
  }
  engine::SessionState& session = con.session();
  auto relation = std::make_shared<planner::MemoryRelation>();
  relation->schema = std::move(schema);
  relation->rows = std::move(rows);
  const std::string token = planner::RegisterMemoryRelation(relation);
  relation->token = token;
  const std::string key = LowerName(view_name);
  planner::TempView view;
  view.name = std::string(view_name);
  view.sql = std::string("SELECT * FROM ") + planner::kMemoryRelationFunction + "('" + token + "')";
  view.current_schema = session.current_schema;
  session.temp_views[key] = std::move(view);
  session.memory_views[key] = std::move(relation);
  // Rows of views SQL dropped or replaced since (DROP VIEW, CREATE OR REPLACE TEMPORARY VIEW).
  for (auto it = session.memory_views.begin(); it != session.memory_views.end();) {
    auto v = session.temp_views.find(it->first);
    const bool live = v != session.temp_views.end() &&
                      v->second.sql.find("('" + it->second->token + "')") != std::string::npos;
    it = live ? std::next(it) : session.memory_views.erase(it);
  }
  return Status::OK();
}

Status DropTemporaryView(Connection& con, std::string_view view_name) {
  engine::SessionState& session = con.session();
  const std::string key = LowerName(view_name);
  session.memory_views.erase(key);
  session.temp_views.erase(key);
  return Status::OK();
}

}  // namespace silt
