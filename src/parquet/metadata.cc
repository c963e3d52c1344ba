#include "parquet/metadata.h"

#include <algorithm>
#include <bit>
#include <iterator>
#include <type_traits>

#include "parquet/thrift.h"

namespace silt::parquet {
namespace {

using TT = ThriftType;

// Up-front reservation for a list is bounded by kReserveBytesPerInputByte × the input left, so a
// lying size cannot allocate much more than the input (a list element takes >= 1 input byte, but
// e.g. a ColumnChunk is 512 bytes in memory); reserving avoids moving big structs while growing.
constexpr size_t kReserveBytesPerInputByte = 32;

template <typename... I>
constexpr uint32_t Bits(I... ids) {
  return ((1u << ids) | ... | 0u);
}

// The wire type of a C++ field type.
template <typename T>
constexpr TT WireType() {
  if constexpr (std::is_same_v<T, bool>)
    return TT::kBoolTrue;
  else if constexpr (std::is_same_v<T, int8_t>)
    return TT::kI8;
  else if constexpr (std::is_same_v<T, int16_t>)
    return TT::kI16;
  else if constexpr (std::is_same_v<T, int32_t> || std::is_enum_v<T>)
    return TT::kI32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return TT::kI64;
  else if constexpr (std::is_same_v<T, std::string>)
    return TT::kBinary;
  else
    return TT::kStruct;
}

// Value decoders (also list elements). Declared up front so StructReader's templates find them.
Status Decode(ThriftReader* r, bool* v) { return r->ReadBool(v); }
Status Decode(ThriftReader* r, int8_t* v) { return r->ReadI8(v); }
Status Decode(ThriftReader* r, int16_t* v) { return r->ReadI16(v); }
Status Decode(ThriftReader* r, int32_t* v) { return r->ReadI32(v); }
Status Decode(ThriftReader* r, int64_t* v) { return r->ReadI64(v); }
Status Decode(ThriftReader* r, std::string* v) { return r->ReadBinary(v); }
// Unknown enum values are kept as their integer (all enums have int32_t underlying type).
template <typename E>
requires std::is_enum_v<E> Status Decode(ThriftReader* r, E* v) {
  int32_t x = 0;
  SILT_RETURN_NOT_OK(r->ReadI32(&x));
  *v = static_cast<E>(x);
  return Status::OK();
}
Status Decode(ThriftReader* r, LogicalType* out);
Status Decode(ThriftReader* r, SchemaElement* out);
Status Decode(ThriftReader* r, Statistics* out);
Status Decode(ThriftReader* r, KeyValue* out);
Status Decode(ThriftReader* r, PageEncodingStats* out);
Status Decode(ThriftReader* r, ColumnMetaData* out);
Status Decode(ThriftReader* r, ColumnChunk* out);
Status Decode(ThriftReader* r, SortingColumn* out);
Status Decode(ThriftReader* r, RowGroup* out);
Status Decode(ThriftReader* r, DataPageHeader* out);
Status Decode(ThriftReader* r, DictionaryPageHeader* out);
Status Decode(ThriftReader* r, DataPageHeaderV2* out);
Status Decode(ThriftReader* r, PageLocation* out);

// Reads the fields of one struct. Unknown fields are skipped, and so are known fields with an
// unexpected wire type (as Thrift-generated readers do: some writers reuse ids with other types),
// which then do not count as present; the required ones must all be present.
class StructReader {
 public:
  StructReader(ThriftReader* r, const char* name) : r_(r), name_(name) {}

  // Calls on_field(id) per field; it consumes the value (via Read*/Skip*). `required` has bit i
  // set for each required field id i (< 32).
  template <typename F>
  Status Fields(uint32_t required, F&& on_field) {
    SILT_RETURN_NOT_OK(r_->ReadStructBegin());
    while (true) {
      SILT_RETURN_NOT_OK(r_->ReadFieldBegin(&type_, &id_));
      if (type_ == TT::kStop) break;
      seen_ |= Bit(id_);
      SILT_RETURN_NOT_OK(on_field(id_));
    }
    r_->ReadStructEnd();
    if ((seen_ & required) != required) {
      const int missing = std::countr_zero(required & ~seen_);
      return r_->Corrupt(std::string(name_) + " lacks required field " + std::to_string(missing));
    }
    return Status::OK();
  }

  bool Is(TT want) const { return type_ == want || (want == TT::kBoolTrue && IsBool(type_)); }
  Status Skip() { return r_->Skip(type_); }
  // Skips a known field whose wire type is not the declared one.
  Status SkipMismatched() {
    seen_ &= ~Bit(id_);
    return r_->Skip(type_);
  }

  template <typename T>
  Status Read(T* v) {
    if (!Is(WireType<T>())) return SkipMismatched();
    return Decode(r_, v);
  }
  template <typename T>
  Status Read(std::optional<T>* v) {
    if (!Is(WireType<T>())) return SkipMismatched();
    return Decode(r_, &v->emplace());
  }
  // A size or count: negative is Corruption.
  template <typename T>
  Status ReadCount(T* v) {
    if (!Is(WireType<T>())) return SkipMismatched();
    SILT_RETURN_NOT_OK(Decode(r_, v));
    if (*v < 0) {
      return r_->Corrupt(std::string(name_) + " field " + std::to_string(id_) + " is negative (" +
                         std::to_string(*v) + ")");
    }
    return Status::OK();
  }
  template <typename T>
  Status ReadCount(std::optional<T>* v) {
    if (!Is(WireType<T>())) return SkipMismatched();
    return ReadCount(&v->emplace());
  }

  // Reads the header of a list of `elem` (any element type when empty; bool lists: either bool
  // nibble). *matched is false when the field was something else and has been skipped.
  Status ListBegin(TT elem, uint32_t* n, bool* matched) {
    *matched = false;
    if (!Is(TT::kList)) return SkipMismatched();
    TT t = TT::kStop;
    SILT_RETURN_NOT_OK(r_->ReadListBegin(&t, n));
    if (*n == 0 || t == elem || (elem == TT::kBoolTrue && IsBool(t))) {
      *matched = true;
      return Status::OK();
    }
    seen_ &= ~Bit(id_);
    for (uint32_t i = 0; i < *n; ++i) SILT_RETURN_NOT_OK(r_->Skip(t));
    return Status::OK();
  }
  template <typename T>
  Status ReadList(std::vector<T>* out) {
    uint32_t n = 0;
    bool matched = false;
    SILT_RETURN_NOT_OK(ListBegin(WireType<T>(), &n, &matched));
    if (!matched) return Status::OK();
    out->clear();
    out->reserve(std::min<size_t>(
        n, std::max<size_t>(1024, r_->remaining() * kReserveBytesPerInputByte / sizeof(T))));
    for (uint32_t i = 0; i < n; ++i) SILT_RETURN_NOT_OK(Decode(r_, &out->emplace_back()));
    return Status::OK();
  }
  Status ReadList(std::vector<bool>* out) {
    uint32_t n = 0;
    bool matched = false;
    SILT_RETURN_NOT_OK(ListBegin(TT::kBoolTrue, &n, &matched));
    if (!matched) return Status::OK();
    out->assign(n, false);
    for (uint32_t i = 0; i < n; ++i) {
      bool b = false;
      SILT_RETURN_NOT_OK(r_->ReadBool(&b));
      (*out)[i] = b;
    }
    return Status::OK();
  }

 private:
  static uint32_t Bit(int16_t id) { return id > 0 && id < 32 ? 1u << id : 0u; }

  ThriftReader* r_;
  const char* name_;
  TT type_ = TT::kStop;
  int16_t id_ = 0;
  uint32_t seen_ = 0;
};

// ---------------------------------------------------------------- decoders

// TimeUnit union: the member's field id is the unit (MILLIS 1, MICROS 2, NANOS 3; others kept).
Status DecodeTimeUnit(ThriftReader* r, TimeUnit* out) {
  StructReader s(r, "TimeUnit");
  bool any = false;
  SILT_RETURN_NOT_OK(s.Fields(0, [&](int16_t id) -> Status {
    if (!s.Is(TT::kStruct)) return s.SkipMismatched();
    any = true;
    *out = static_cast<TimeUnit>(id);
    return s.Skip();
  }));
  if (!any) return r->Corrupt("TimeUnit union has no member");
  return Status::OK();
}

Status Decode(ThriftReader* r, LogicalType* out) {
  StructReader s(r, "LogicalType");
  return s.Fields(0, [&](int16_t id) -> Status {
    if (!s.Is(TT::kStruct)) return s.SkipMismatched();  // every member is a struct
    out->kind = static_cast<LogicalType::Kind>(id);
    switch (id) {
      case LogicalType::DECIMAL: {
        StructReader d(r, "DecimalType");
        return d.Fields(Bits(1, 2), [&](int16_t f) -> Status {
          if (f == 1) return d.Read(&out->decimal_scale);
          if (f == 2) return d.Read(&out->decimal_precision);
          return d.Skip();
        });
      }
      case LogicalType::TIME:
      case LogicalType::TIMESTAMP: {
        StructReader t(r, id == LogicalType::TIME ? "TimeType" : "TimestampType");
        return t.Fields(Bits(1, 2), [&](int16_t f) -> Status {
          if (f == 1) return t.Read(&out->is_adjusted_to_utc);
          if (f == 2) {
            if (!t.Is(TT::kStruct)) return t.SkipMismatched();
            return DecodeTimeUnit(r, &out->unit);
          }
          return t.Skip();
        });
      }
      case LogicalType::INTEGER: {
        StructReader n(r, "IntType");
        return n.Fields(Bits(1, 2), [&](int16_t f) -> Status {
          if (f == 1) return n.Read(&out->bit_width);
          if (f == 2) return n.Read(&out->is_signed);
          return n.Skip();
        });
      }
      default:  // empty structs, and members silt does not model (kind keeps the id)
        return s.Skip();
    }
  });
}

Status Decode(ThriftReader* r, SchemaElement* out) {
  StructReader s(r, "SchemaElement");
  return s.Fields(Bits(4), [&](int16_t id) -> Status {
    switch (id) {
      case 1:
        return s.Read(&out->type);
      case 2:
        return s.Read(&out->type_length);
      case 3:
        return s.Read(&out->repetition_type);
      case 4:
        return s.Read(&out->name);
      case 5:
        return s.ReadCount(&out->num_children);
      case 6:
        return s.Read(&out->converted_type);
      case 7:
        return s.Read(&out->scale);
      case 8:
        return s.Read(&out->precision);
      case 9:
        return s.Read(&out->field_id);
      case 10:
        return s.Read(&out->logical_type);
      default:
        return s.Skip();
    }
  });
}

Status Decode(ThriftReader* r, Statistics* out) {
  StructReader s(r, "Statistics");
  return s.Fields(0, [&](int16_t id) -> Status {
    switch (id) {
      case 1:
        return s.Read(&out->max);
      case 2:
        return s.Read(&out->min);
      case 3:
        return s.Read(&out->null_count);
      case 4:
        return s.Read(&out->distinct_count);
      case 5:
        return s.Read(&out->max_value);
      case 6:
        return s.Read(&out->min_value);
      case 7:
        return s.Read(&out->is_max_value_exact);
      case 8:
        return s.Read(&out->is_min_value_exact);
      default:
        return s.Skip();
    }
  });
}

Status Decode(ThriftReader* r, KeyValue* out) {
  StructReader s(r, "KeyValue");
  return s.Fields(Bits(1), [&](int16_t id) -> Status {
    if (id == 1) return s.Read(&out->key);
    if (id == 2) return s.Read(&out->value);
    return s.Skip();
  });
}

Status Decode(ThriftReader* r, PageEncodingStats* out) {
  StructReader s(r, "PageEncodingStats");
  return s.Fields(Bits(1, 2, 3), [&](int16_t id) -> Status {
    switch (id) {
      case 1:
        return s.Read(&out->page_type);
      case 2:
        return s.Read(&out->encoding);
      case 3:
        return s.ReadCount(&out->count);
      default:
        return s.Skip();
    }
  });
}

Status Decode(ThriftReader* r, ColumnMetaData* out) {
  StructReader s(r, "ColumnMetaData");
  return s.Fields(Bits(1, 2, 3, 4, 5, 6, 7, 9), [&](int16_t id) -> Status {
    switch (id) {
      case 1:
        return s.Read(&out->type);
      case 2:
        return s.ReadList(&out->encodings);
      case 3:
        return s.ReadList(&out->path_in_schema);
      case 4:
        return s.Read(&out->codec);
      case 5:
        return s.ReadCount(&out->num_values);
      case 6:
        return s.ReadCount(&out->total_uncompressed_size);
      case 7:
        return s.ReadCount(&out->total_compressed_size);
      case 8:
        return s.ReadList(&out->key_value_metadata);
      case 9:
        return s.Read(&out->data_page_offset);
      case 10:
        return s.Read(&out->index_page_offset);
      case 11:
        return s.Read(&out->dictionary_page_offset);
      case 12:
        return s.Read(&out->statistics);
      case 13:
        return s.ReadList(&out->encoding_stats);
      case 14:
        return s.Read(&out->bloom_filter_offset);
      case 15:
        return s.Read(&out->bloom_filter_length);
      default:
        return s.Skip();
    }
  });
}

// file_offset (2) is required by the spec, but deprecated and omitted by some writers: optional.
Status Decode(ThriftReader* r, ColumnChunk* out) {
  StructReader s(r, "ColumnChunk");
  return s.Fields(Bits(3), [&](int16_t id) -> Status {
    switch (id) {
      case 1:
        return s.Read(&out->file_path);
      case 2:
        return s.Read(&out->file_offset);
      case 3:
        return s.Read(&out->meta_data);
      case 4:
        return s.Read(&out->offset_index_offset);
      case 5:
        return s.Read(&out->offset_index_length);
      case 6:
        return s.Read(&out->column_index_offset);
      case 7:
        return s.Read(&out->column_index_length);
      default:
        return s.Skip();
    }
  });
}

Status Decode(ThriftReader* r, SortingColumn* out) {
  StructReader s(r, "SortingColumn");
  return s.Fields(Bits(1, 2, 3), [&](int16_t id) -> Status {
    switch (id) {
      case 1:
        return s.Read(&out->column_idx);
      case 2:
        return s.Read(&out->descending);
      case 3:
        return s.Read(&out->nulls_first);
      default:
        return s.Skip();
    }
  });
}

Status Decode(ThriftReader* r, RowGroup* out) {
  StructReader s(r, "RowGroup");
  return s.Fields(Bits(1, 2, 3), [&](int16_t id) -> Status {
    switch (id) {
      case 1:
        return s.ReadList(&out->columns);
      case 2:
        return s.Read(&out->total_byte_size);
      case 3:
        return s.ReadCount(&out->num_rows);
      case 4:
        return s.ReadList(&out->sorting_columns);
      case 5:
        return s.Read(&out->file_offset);
      case 6:
        return s.Read(&out->total_compressed_size);
      case 7:
        return s.Read(&out->ordinal);
      default:
        return s.Skip();
    }
  });
}

// ColumnOrder union: true for TYPE_ORDER (1), false for members silt does not know.
Status DecodeColumnOrder(ThriftReader* r, bool* type_order) {
  StructReader s(r, "ColumnOrder");
  *type_order = false;
  return s.Fields(0, [&](int16_t id) -> Status {
    if (id == 1 && s.Is(TT::kStruct)) *type_order = true;
    return s.Skip();
  });
}

Status Decode(ThriftReader* r, FileMetaData* out) {
  StructReader s(r, "FileMetaData");
  return s.Fields(Bits(1, 2, 3, 4), [&](int16_t id) -> Status {
    switch (id) {
      case 1:
        return s.Read(&out->version);
      case 2:
        return s.ReadList(&out->schema);
      case 3:
        return s.ReadCount(&out->num_rows);
      case 4:
        return s.ReadList(&out->row_groups);
      case 5:
        return s.ReadList(&out->key_value_metadata);
      case 6:
        return s.Read(&out->created_by);
      case 7: {
        uint32_t n = 0;
        bool matched = false;
        SILT_RETURN_NOT_OK(s.ListBegin(TT::kStruct, &n, &matched));
        if (!matched) return Status::OK();
        out->column_orders.assign(n, false);
        for (uint32_t i = 0; i < n; ++i) {
          bool b = false;
          SILT_RETURN_NOT_OK(DecodeColumnOrder(r, &b));
          out->column_orders[i] = b;
        }
        return Status::OK();
      }
      default:
        return s.Skip();
    }
  });
}

Status Decode(ThriftReader* r, DataPageHeader* out) {
  StructReader s(r, "DataPageHeader");
  return s.Fields(Bits(1, 2, 3, 4), [&](int16_t id) -> Status {
    switch (id) {
      case 1:
        return s.ReadCount(&out->num_values);
      case 2:
        return s.Read(&out->encoding);
      case 3:
        return s.Read(&out->definition_level_encoding);
      case 4:
        return s.Read(&out->repetition_level_encoding);
      case 5:
        return s.Read(&out->statistics);
      default:
        return s.Skip();
    }
  });
}

Status Decode(ThriftReader* r, DictionaryPageHeader* out) {
  StructReader s(r, "DictionaryPageHeader");
  return s.Fields(Bits(1, 2), [&](int16_t id) -> Status {
    switch (id) {
      case 1:
        return s.ReadCount(&out->num_values);
      case 2:
        return s.Read(&out->encoding);
      case 3:
        return s.Read(&out->is_sorted);
      default:
        return s.Skip();
    }
  });
}

Status Decode(ThriftReader* r, DataPageHeaderV2* out) {
  StructReader s(r, "DataPageHeaderV2");
  return s.Fields(Bits(1, 2, 3, 4, 5, 6), [&](int16_t id) -> Status {
    switch (id) {
      case 1:
        return s.ReadCount(&out->num_values);
      case 2:
        return s.ReadCount(&out->num_nulls);
      case 3:
        return s.ReadCount(&out->num_rows);
      case 4:
        return s.Read(&out->encoding);
      case 5:
        return s.ReadCount(&out->definition_levels_byte_length);
      case 6:
        return s.ReadCount(&out->repetition_levels_byte_length);
      case 7:
        return s.Read(&out->is_compressed);
      case 8:
        return s.Read(&out->statistics);
      default:
        return s.Skip();
    }
  });
}

Status Decode(ThriftReader* r, PageHeader* out) {
  StructReader s(r, "PageHeader");
  return s.Fields(Bits(1, 2, 3), [&](int16_t id) -> Status {
    switch (id) {
      case 1:
        return s.Read(&out->type);
      case 2:
        return s.ReadCount(&out->uncompressed_page_size);
      case 3:
        return s.ReadCount(&out->compressed_page_size);
      case 4:
        return s.Read(&out->crc);
      case 5:
        return s.Read(&out->data_page_header);
      case 7:
        return s.Read(&out->dictionary_page_header);
      case 8:
        return s.Read(&out->data_page_header_v2);
      default:
        return s.Skip();
    }
  });
}

Status Decode(ThriftReader* r, ColumnIndex* out) {
  StructReader s(r, "ColumnIndex");
  SILT_RETURN_NOT_OK(s.Fields(Bits(1, 2, 3, 4), [&](int16_t id) -> Status {
    switch (id) {
      case 1:
        return s.ReadList(&out->null_pages);
      case 2:
        return s.ReadList(&out->min_values);
      case 3:
        return s.ReadList(&out->max_values);
      case 4:
        return s.Read(&out->boundary_order);
      case 5:
        return s.ReadList(&out->null_counts);
      default:
        return s.Skip();
    }
  }));
  // The lists are parallel (one entry per page); mismatched lengths make the index unusable.
  const size_t pages = out->null_pages.size();
  if (out->min_values.size() != pages || out->max_values.size() != pages ||
      (!out->null_counts.empty() && out->null_counts.size() != pages)) {
    return r->Corrupt("ColumnIndex lists have different lengths");
  }
  return Status::OK();
}

Status Decode(ThriftReader* r, PageLocation* out) {
  StructReader s(r, "PageLocation");
  return s.Fields(Bits(1, 2, 3), [&](int16_t id) -> Status {
    switch (id) {
      case 1:
        return s.ReadCount(&out->offset);
      case 2:
        return s.ReadCount(&out->compressed_page_size);
      case 3:
        return s.ReadCount(&out->first_row_index);
      default:
        return s.Skip();
    }
  });
}

Status Decode(ThriftReader* r, OffsetIndex* out) {
  StructReader s(r, "OffsetIndex");
  return s.Fields(Bits(1), [&](int16_t id) -> Status {
    if (id == 1) return s.ReadList(&out->page_locations);
    return s.Skip();
  });
}

template <typename T>
Status DecodeTop(const uint8_t* data, size_t len, T* out, size_t* consumed,
                 const ThriftLimits& limits) {
  ThriftReader r(data, len, limits);
  *out = T{};
  SILT_RETURN_NOT_OK(Decode(&r, out));
  if (consumed != nullptr) *consumed = r.position();
  return Status::OK();
}

// ---------------------------------------------------------------- encoders

template <typename E>
requires std::is_enum_v<E>
void EncodeField(ThriftWriter* w, int16_t id, E v) {
  w->WriteI32Field(id, static_cast<int32_t>(v));
}

void Encode(ThriftWriter* w, const std::string& v) { w->WriteBinary(v); }
void Encode(ThriftWriter* w, int64_t v) { w->WriteI64(v); }
template <typename E>
requires std::is_enum_v<E>
void Encode(ThriftWriter* w, E v) { w->WriteI32(static_cast<int32_t>(v)); }
void Encode(ThriftWriter* w, const LogicalType& lt);
void Encode(ThriftWriter* w, const Statistics& s);
void Encode(ThriftWriter* w, const KeyValue& kv);
void Encode(ThriftWriter* w, const ColumnMetaData& m);
void Encode(ThriftWriter* w, const DataPageHeader& h);
void Encode(ThriftWriter* w, const DictionaryPageHeader& h);
void Encode(ThriftWriter* w, const DataPageHeaderV2& h);
void Encode(ThriftWriter* w, const PageEncodingStats& p);
void Encode(ThriftWriter* w, const SchemaElement& e);
void Encode(ThriftWriter* w, const ColumnChunk& c);
void Encode(ThriftWriter* w, const SortingColumn& c);
void Encode(ThriftWriter* w, const RowGroup& g);
void Encode(ThriftWriter* w, const PageLocation& p);

template <typename T>
void EncodeList(ThriftWriter* w, int16_t id, const std::vector<T>& v) {
  w->WriteFieldBegin(TT::kList, id);
  w->WriteListBegin(WireType<T>(), v.size());
  for (const T& e : v) Encode(w, e);
}

void EncodeList(ThriftWriter* w, int16_t id, const std::vector<bool>& v) {
  w->WriteFieldBegin(TT::kList, id);
  w->WriteListBegin(TT::kBoolTrue, v.size());
  for (bool b : v) w->WriteBool(b);
}

template <typename T>
void EncodeStructField(ThriftWriter* w, int16_t id, const T& v) {
  w->WriteFieldBegin(TT::kStruct, id);
  Encode(w, v);
}

// An empty struct as field `id` (union members without payload).
void EncodeEmptyStructField(ThriftWriter* w, int16_t id) {
  w->WriteFieldBegin(TT::kStruct, id);
  w->WriteStructBegin();
  w->WriteStructEnd();
}

void Encode(ThriftWriter* w, const LogicalType& lt) {
  w->WriteStructBegin();
  w->WriteFieldBegin(TT::kStruct, static_cast<int16_t>(lt.kind));
  w->WriteStructBegin();
  switch (lt.kind) {
    case LogicalType::DECIMAL:
      w->WriteI32Field(1, lt.decimal_scale);
      w->WriteI32Field(2, lt.decimal_precision);
      break;
    case LogicalType::TIME:
    case LogicalType::TIMESTAMP:
      w->WriteBoolField(1, lt.is_adjusted_to_utc);
      w->WriteFieldBegin(TT::kStruct, 2);
      w->WriteStructBegin();
      EncodeEmptyStructField(w, static_cast<int16_t>(lt.unit));
      w->WriteStructEnd();
      break;
    case LogicalType::INTEGER:
      w->WriteI8Field(1, lt.bit_width);
      w->WriteBoolField(2, lt.is_signed);
      break;
    default:
      break;
  }
  w->WriteStructEnd();
  w->WriteStructEnd();
}

void Encode(ThriftWriter* w, const SchemaElement& e) {
  w->WriteStructBegin();
  if (e.type) EncodeField(w, 1, *e.type);
  if (e.type_length) w->WriteI32Field(2, *e.type_length);
  if (e.repetition_type) EncodeField(w, 3, *e.repetition_type);
  w->WriteBinaryField(4, e.name);
  if (e.num_children) w->WriteI32Field(5, *e.num_children);
  if (e.converted_type) EncodeField(w, 6, *e.converted_type);
  if (e.scale) w->WriteI32Field(7, *e.scale);
  if (e.precision) w->WriteI32Field(8, *e.precision);
  if (e.field_id) w->WriteI32Field(9, *e.field_id);
  // A union needs exactly one member: NONE means "no logical type".
  if (e.logical_type && e.logical_type->kind != LogicalType::NONE) {
    EncodeStructField(w, 10, *e.logical_type);
  }
  w->WriteStructEnd();
}

void Encode(ThriftWriter* w, const Statistics& s) {
  w->WriteStructBegin();
  if (s.max) w->WriteBinaryField(1, *s.max);
  if (s.min) w->WriteBinaryField(2, *s.min);
  if (s.null_count) w->WriteI64Field(3, *s.null_count);
  if (s.distinct_count) w->WriteI64Field(4, *s.distinct_count);
  if (s.max_value) w->WriteBinaryField(5, *s.max_value);
  if (s.min_value) w->WriteBinaryField(6, *s.min_value);
  if (s.is_max_value_exact) w->WriteBoolField(7, *s.is_max_value_exact);
  if (s.is_min_value_exact) w->WriteBoolField(8, *s.is_min_value_exact);
  w->WriteStructEnd();
}

void Encode(ThriftWriter* w, const KeyValue& kv) {
  w->WriteStructBegin();
  w->WriteBinaryField(1, kv.key);
  if (kv.value) w->WriteBinaryField(2, *kv.value);
  w->WriteStructEnd();
}

void Encode(ThriftWriter* w, const PageEncodingStats& p) {
  w->WriteStructBegin();
  EncodeField(w, 1, p.page_type);
  EncodeField(w, 2, p.encoding);
  w->WriteI32Field(3, p.count);
  w->WriteStructEnd();
}

void Encode(ThriftWriter* w, const ColumnMetaData& m) {
  w->WriteStructBegin();
  EncodeField(w, 1, m.type);
  EncodeList(w, 2, m.encodings);
  EncodeList(w, 3, m.path_in_schema);
  EncodeField(w, 4, m.codec);
  w->WriteI64Field(5, m.num_values);
  w->WriteI64Field(6, m.total_uncompressed_size);
  w->WriteI64Field(7, m.total_compressed_size);
  if (!m.key_value_metadata.empty()) EncodeList(w, 8, m.key_value_metadata);
  w->WriteI64Field(9, m.data_page_offset);
  if (m.index_page_offset) w->WriteI64Field(10, *m.index_page_offset);
  if (m.dictionary_page_offset) w->WriteI64Field(11, *m.dictionary_page_offset);
  if (m.statistics) EncodeStructField(w, 12, *m.statistics);
  if (!m.encoding_stats.empty()) EncodeList(w, 13, m.encoding_stats);
  if (m.bloom_filter_offset) w->WriteI64Field(14, *m.bloom_filter_offset);
  if (m.bloom_filter_length) w->WriteI32Field(15, *m.bloom_filter_length);
  w->WriteStructEnd();
}

void Encode(ThriftWriter* w, const ColumnChunk& c) {
  w->WriteStructBegin();
  if (c.file_path) w->WriteBinaryField(1, *c.file_path);
  w->WriteI64Field(2, c.file_offset);  // required: parquet-mr rejects its absence
  if (c.meta_data) EncodeStructField(w, 3, *c.meta_data);
  if (c.offset_index_offset) w->WriteI64Field(4, *c.offset_index_offset);
  if (c.offset_index_length) w->WriteI32Field(5, *c.offset_index_length);
  if (c.column_index_offset) w->WriteI64Field(6, *c.column_index_offset);
  if (c.column_index_length) w->WriteI32Field(7, *c.column_index_length);
  w->WriteStructEnd();
}

void Encode(ThriftWriter* w, const SortingColumn& c) {
  w->WriteStructBegin();
  w->WriteI32Field(1, c.column_idx);
  w->WriteBoolField(2, c.descending);
  w->WriteBoolField(3, c.nulls_first);
  w->WriteStructEnd();
}

void Encode(ThriftWriter* w, const RowGroup& g) {
  w->WriteStructBegin();
  EncodeList(w, 1, g.columns);
  w->WriteI64Field(2, g.total_byte_size);
  w->WriteI64Field(3, g.num_rows);
  if (!g.sorting_columns.empty()) EncodeList(w, 4, g.sorting_columns);
  if (g.file_offset) w->WriteI64Field(5, *g.file_offset);
  if (g.total_compressed_size) w->WriteI64Field(6, *g.total_compressed_size);
  if (g.ordinal) w->WriteI16Field(7, *g.ordinal);
  w->WriteStructEnd();
}

void Encode(ThriftWriter* w, const FileMetaData& md) {
  w->WriteStructBegin();
  w->WriteI32Field(1, md.version);
  EncodeList(w, 2, md.schema);
  w->WriteI64Field(3, md.num_rows);
  EncodeList(w, 4, md.row_groups);
  if (!md.key_value_metadata.empty()) EncodeList(w, 5, md.key_value_metadata);
  if (md.created_by) w->WriteBinaryField(6, *md.created_by);
  if (!md.column_orders.empty()) {
    w->WriteFieldBegin(TT::kList, 7);
    w->WriteListBegin(TT::kStruct, md.column_orders.size());
    for (bool type_order : md.column_orders) {
      w->WriteStructBegin();
      if (type_order) EncodeEmptyStructField(w, 1);  // else: an unknown order, kept as empty
      w->WriteStructEnd();
    }
  }
  w->WriteStructEnd();
}

void Encode(ThriftWriter* w, const DataPageHeader& h) {
  w->WriteStructBegin();
  w->WriteI32Field(1, h.num_values);
  EncodeField(w, 2, h.encoding);
  EncodeField(w, 3, h.definition_level_encoding);
  EncodeField(w, 4, h.repetition_level_encoding);
  if (h.statistics) EncodeStructField(w, 5, *h.statistics);
  w->WriteStructEnd();
}

void Encode(ThriftWriter* w, const DictionaryPageHeader& h) {
  w->WriteStructBegin();
  w->WriteI32Field(1, h.num_values);
  EncodeField(w, 2, h.encoding);
  if (h.is_sorted) w->WriteBoolField(3, *h.is_sorted);
  w->WriteStructEnd();
}

void Encode(ThriftWriter* w, const DataPageHeaderV2& h) {
  w->WriteStructBegin();
  w->WriteI32Field(1, h.num_values);
  w->WriteI32Field(2, h.num_nulls);
  w->WriteI32Field(3, h.num_rows);
  EncodeField(w, 4, h.encoding);
  w->WriteI32Field(5, h.definition_levels_byte_length);
  w->WriteI32Field(6, h.repetition_levels_byte_length);
  w->WriteBoolField(7, h.is_compressed);
  if (h.statistics) EncodeStructField(w, 8, *h.statistics);
  w->WriteStructEnd();
}

void Encode(ThriftWriter* w, const PageHeader& h) {
  w->WriteStructBegin();
  EncodeField(w, 1, h.type);
  w->WriteI32Field(2, h.uncompressed_page_size);
  w->WriteI32Field(3, h.compressed_page_size);
  if (h.crc) w->WriteI32Field(4, *h.crc);
  if (h.data_page_header) EncodeStructField(w, 5, *h.data_page_header);
  if (h.dictionary_page_header) EncodeStructField(w, 7, *h.dictionary_page_header);
  if (h.data_page_header_v2) EncodeStructField(w, 8, *h.data_page_header_v2);
  w->WriteStructEnd();
}

void Encode(ThriftWriter* w, const ColumnIndex& ci) {
  w->WriteStructBegin();
  EncodeList(w, 1, ci.null_pages);
  EncodeList(w, 2, ci.min_values);
  EncodeList(w, 3, ci.max_values);
  EncodeField(w, 4, ci.boundary_order);
  if (!ci.null_counts.empty()) EncodeList(w, 5, ci.null_counts);
  w->WriteStructEnd();
}

void Encode(ThriftWriter* w, const PageLocation& p) {
  w->WriteStructBegin();
  w->WriteI64Field(1, p.offset);
  w->WriteI32Field(2, p.compressed_page_size);
  w->WriteI64Field(3, p.first_row_index);
  w->WriteStructEnd();
}

void Encode(ThriftWriter* w, const OffsetIndex& oi) {
  w->WriteStructBegin();
  EncodeList(w, 1, oi.page_locations);
  w->WriteStructEnd();
}

}  // namespace

Status DeserializeFileMetaData(const uint8_t* data, size_t len, FileMetaData* out,
                               const ThriftLimits& limits) {
  return DecodeTop(data, len, out, nullptr, limits);
}

Status DeserializePageHeader(const uint8_t* data, size_t len, PageHeader* out, size_t* consumed,
                             const ThriftLimits& limits) {
  return DecodeTop(data, len, out, consumed, limits);
}

Status DeserializeColumnIndex(const uint8_t* data, size_t len, ColumnIndex* out,
                              const ThriftLimits& limits) {
  return DecodeTop(data, len, out, nullptr, limits);
}

Status DeserializeOffsetIndex(const uint8_t* data, size_t len, OffsetIndex* out,
                              const ThriftLimits& limits) {
  return DecodeTop(data, len, out, nullptr, limits);
}

void SerializeFileMetaData(const FileMetaData& md, std::string* out) {
  ThriftWriter w(out);
  Encode(&w, md);
}

void SerializePageHeader(const PageHeader& h, std::string* out) {
  ThriftWriter w(out);
  Encode(&w, h);
}

void SerializeColumnIndex(const ColumnIndex& ci, std::string* out) {
  ThriftWriter w(out);
  Encode(&w, ci);
}

void SerializeOffsetIndex(const OffsetIndex& oi, std::string* out) {
  ThriftWriter w(out);
  Encode(&w, oi);
}

const char* TypeName(Type t) {
  switch (t) {
    case Type::BOOLEAN:
      return "BOOLEAN";
    case Type::INT32:
      return "INT32";
    case Type::INT64:
      return "INT64";
    case Type::INT96:
      return "INT96";
    case Type::FLOAT:
      return "FLOAT";
    case Type::DOUBLE:
      return "DOUBLE";
    case Type::BYTE_ARRAY:
      return "BYTE_ARRAY";
    case Type::FIXED_LEN_BYTE_ARRAY:
      return "FIXED_LEN_BYTE_ARRAY";
  }
  return "UNKNOWN";
}

const char* EncodingName(Encoding e) {
  switch (e) {
    case Encoding::PLAIN:
      return "PLAIN";
    case Encoding::PLAIN_DICTIONARY:
      return "PLAIN_DICTIONARY";
    case Encoding::RLE:
      return "RLE";
    case Encoding::BIT_PACKED:
      return "BIT_PACKED";
    case Encoding::DELTA_BINARY_PACKED:
      return "DELTA_BINARY_PACKED";
    case Encoding::DELTA_LENGTH_BYTE_ARRAY:
      return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::DELTA_BYTE_ARRAY:
      return "DELTA_BYTE_ARRAY";
    case Encoding::RLE_DICTIONARY:
      return "RLE_DICTIONARY";
    case Encoding::BYTE_STREAM_SPLIT:
      return "BYTE_STREAM_SPLIT";
  }
  return "UNKNOWN";
}

const char* CodecName(CompressionCodec c) {
  switch (c) {
    case CompressionCodec::UNCOMPRESSED:
      return "UNCOMPRESSED";
    case CompressionCodec::SNAPPY:
      return "SNAPPY";
    case CompressionCodec::GZIP:
      return "GZIP";
    case CompressionCodec::LZO:
      return "LZO";
    case CompressionCodec::BROTLI:
      return "BROTLI";
    case CompressionCodec::LZ4:
      return "LZ4";
    case CompressionCodec::ZSTD:
      return "ZSTD";
    case CompressionCodec::LZ4_RAW:
      return "LZ4_RAW";
  }
  return "UNKNOWN";
}

const char* ConvertedTypeName(ConvertedType c) {
  static const char* const kNames[] = {"UTF8",
                                       "MAP",
                                       "MAP_KEY_VALUE",
                                       "LIST",
                                       "ENUM",
                                       "DECIMAL",
                                       "DATE",
                                       "TIME_MILLIS",
                                       "TIME_MICROS",
                                       "TIMESTAMP_MILLIS",
                                       "TIMESTAMP_MICROS",
                                       "UINT_8",
                                       "UINT_16",
                                       "UINT_32",
                                       "UINT_64",
                                       "INT_8",
                                       "INT_16",
                                       "INT_32",
                                       "INT_64",
                                       "JSON",
                                       "BSON",
                                       "INTERVAL"};
  const auto i = static_cast<uint32_t>(c);
  return i < std::size(kNames) ? kNames[i] : "UNKNOWN";
}

}  // namespace silt::parquet
