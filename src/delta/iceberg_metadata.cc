#include "delta/iceberg_metadata.h"

#include <avro.h>
#include <simdjson.h>
#include <zlib.h>

#include <cctype>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "common/error_classes.h"
#include "common/logging.h"
#include "delta/iceberg_compat.h"
#include "delta/json_util.h"
#include "delta/partition_values.h"
#include "delta/schema_json.h"
#include "delta/snapshot.h"
#include "delta/stats_json.h"
#include "delta/table_properties.h"
#include "delta/z85.h"
#include "io/object_store_factory.h"
#include "io/path.h"
#include "parquet/schema.h"

namespace silt::delta {
namespace {

constexpr const char* kMetadataDir = "metadata/";
constexpr const char* kVersionHint = "metadata/version-hint.text";
constexpr int kFirstPartitionFieldId = 1000;  // Iceberg's PARTITION_DATA_ID_START

// ---- Avro object container files (Avro spec "Object Container Files") ----
// libavro encodes the records; the container framing is written here so that the file can carry
// Iceberg's key-value metadata and go through the ObjectStore (libavro's writer needs a FILE*).

void PutLong(std::string* out, int64_t v) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (z & ~uint64_t{0x7F}) {
    out->push_back(static_cast<char>((z & 0x7F) | 0x80));
    z >>= 7;
  }
  out->push_back(static_cast<char>(z));
}

void PutBytes(std::string* out, std::string_view b) {
  PutLong(out, static_cast<int64_t>(b.size()));
  out->append(b);
}

Status AvroError(const std::string& what) {
  return Status::Internal(what + ": " + avro_strerror());
}

// Owns a libavro schema, its generic value class and one reusable record value.
class AvroRecordClass {
 public:
  ~AvroRecordClass() {
    if (value_ok_) avro_value_decref(&value_);
    if (iface_) avro_value_iface_decref(iface_);
    if (schema_) avro_schema_decref(schema_);
  }
  Status Init(std::string_view schema_json) {
    if (avro_schema_from_json_length(schema_json.data(), schema_json.size(), &schema_) != 0)
      return AvroError("Avro schema");
    iface_ = avro_generic_class_from_schema(schema_);
    if (!iface_ || avro_generic_value_new(iface_, &value_) != 0) return AvroError("Avro class");
    value_ok_ = true;
    return Status::OK();
  }
  avro_value_t* value() { return &value_; }

 private:
  avro_schema_t schema_ = nullptr;
  avro_value_iface_t* iface_ = nullptr;
  avro_value_t value_{};
  bool value_ok_ = false;
};

class AvroFileWriter {
 public:
  // `metadata`: the file's key-value metadata besides avro.schema and avro.codec.
  Status Init(std::string schema_json, const std::vector<std::pair<std::string, std::string>>& md) {
    SILT_RETURN_NOT_OK(record_.Init(schema_json));
    Uuid sync = Uuid::Random();
    sync_.assign(reinterpret_cast<const char*>(sync.bytes.data()), sync.bytes.size());
    header_ = std::string("Obj\x01", 4);
    PutLong(&header_, static_cast<int64_t>(md.size() + 2));
    PutBytes(&header_, "avro.schema");
    PutBytes(&header_, schema_json);
    PutBytes(&header_, "avro.codec");
    PutBytes(&header_, "null");
    for (const auto& [k, v] : md) {
      PutBytes(&header_, k);
      PutBytes(&header_, v);
    }
    PutLong(&header_, 0);
    header_ += sync_;
    return Status::OK();
  }
  // The record to fill; every field must be set before Append.
  avro_value_t* record() {
    avro_value_reset(record_.value());
    return record_.value();
  }
  Status Append() {
    size_t n = 0;
    if (avro_value_sizeof(record_.value(), &n) != 0) return AvroError("Avro record size");
    std::string buf(n, '\0');
    avro_writer_t w = avro_writer_memory(buf.data(), static_cast<int64_t>(n));
    int rc = avro_value_write(w, record_.value());
    avro_writer_free(w);
    if (rc != 0) return AvroError("Avro record");
    block_ += buf;
    ++count_;
    return Status::OK();
  }
  std::string Finish() const {
    std::string out = header_;
    if (count_ > 0) {
      PutLong(&out, count_);
      PutBytes(&out, block_);
      out += sync_;
    }
    return out;
  }

 private:
  AvroRecordClass record_;
  std::string header_, sync_, block_;
  int64_t count_ = 0;
};

// Reads a container file: the writer's schema, then each record (decompressed when deflate).
class AvroFileReader {
 public:
  explicit AvroFileReader(std::string_view data, std::string name)
      : data_(data), name_(std::move(name)) {}

  Status ForEach(const std::function<Status(avro_value_t*)>& visit) {
    if (data_.substr(0, 4) != std::string_view("Obj\x01", 4)) return Bad("not an Avro file");
    pos_ = 4;
    std::string schema, codec = "null";
    for (;;) {
      SILT_ASSIGN_OR_RETURN(int64_t n, Long());
      if (n == 0) break;
      if (n < 0) {
        n = -n;
        SILT_RETURN_NOT_OK(Long().status());
      }
      for (int64_t i = 0; i < n; ++i) {
        SILT_ASSIGN_OR_RETURN(std::string_view k, Bytes());
        SILT_ASSIGN_OR_RETURN(std::string_view v, Bytes());
        if (k == "avro.schema") schema = v;
        if (k == "avro.codec") codec = v;
      }
    }
    if (codec != "null" && codec != "deflate") return Bad("unsupported Avro codec " + codec);
    if (pos_ + 16 > data_.size()) return Bad("truncated header");
    std::string_view sync = data_.substr(pos_, 16);
    pos_ += 16;
    AvroRecordClass record;
    SILT_RETURN_NOT_OK(record.Init(schema));
    while (pos_ < data_.size()) {
      SILT_ASSIGN_OR_RETURN(int64_t count, Long());
      SILT_ASSIGN_OR_RETURN(std::string_view block, Bytes());
      if (pos_ + 16 > data_.size() || data_.substr(pos_, 16) != sync) return Bad("bad sync");
      pos_ += 16;
      std::string inflated;
      if (codec == "deflate") {
        SILT_ASSIGN_OR_RETURN(inflated, Inflate(block));
        block = inflated;
      }
      avro_reader_t r = avro_reader_memory(block.data(), static_cast<int64_t>(block.size()));
      Status st;
      for (int64_t i = 0; i < count && st.ok(); ++i) {
        avro_value_reset(record.value());
        if (avro_value_read(r, record.value()) != 0) {
          st = Bad(std::string("record: ") + avro_strerror());
        } else {
          st = visit(record.value());
        }
      }
      avro_reader_free(r);
      SILT_RETURN_NOT_OK(st);
    }
    return Status::OK();
  }

 private:
  Status Bad(const std::string& why) const {
    return Status::Corruption("Iceberg Avro file " + name_ + ": " + why, errc::kInternalError);
  }
  Result<int64_t> Long() {
    uint64_t z = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return Bad("truncated");
      uint8_t b = static_cast<uint8_t>(data_[pos_++]);
      z |= static_cast<uint64_t>(b & 0x7F) << shift;
      if (!(b & 0x80)) return static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1));
    }
    return Bad("bad varint");
  }
  Result<std::string_view> Bytes() {
    SILT_ASSIGN_OR_RETURN(int64_t n, Long());
    if (n < 0 || static_cast<uint64_t>(n) > data_.size() - pos_) return Bad("truncated");
    std::string_view out = data_.substr(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return out;
  }
  Result<std::string> Inflate(std::string_view in) const {
    z_stream zs{};
    if (inflateInit2(&zs, -15) != Z_OK) return Bad("inflate init");
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    zs.avail_in = static_cast<uInt>(in.size());
    std::string out;
    char buf[65536];
    int rc = Z_OK;
    while (rc == Z_OK) {
      zs.next_out = reinterpret_cast<Bytef*>(buf);
      zs.avail_out = sizeof(buf);
      rc = inflate(&zs, Z_NO_FLUSH);
      out.append(buf, sizeof(buf) - zs.avail_out);
      if (rc == Z_BUF_ERROR && zs.avail_in == 0) break;
    }
    inflateEnd(&zs);
    if (rc != Z_STREAM_END && rc != Z_BUF_ERROR) return Bad("inflate");
    return out;
  }

  std::string_view data_;
  std::string name_;
  size_t pos_ = 0;
};

Status Field(avro_value_t* rec, const char* name, avro_value_t* out) {
  if (avro_value_get_by_name(rec, name, out, nullptr) != 0) return AvroError(name);
  return Status::OK();
}

// An optional (["null", T]) field: its T branch, or null when `present` is false.
Status Optional(avro_value_t* rec, const char* name, bool present, avro_value_t* branch) {
  avro_value_t u;
  SILT_RETURN_NOT_OK(Field(rec, name, &u));
  if (avro_value_set_branch(&u, present ? 1 : 0, branch) != 0) return AvroError(name);
  if (!present) avro_value_set_null(branch);
  return Status::OK();
}

// ---- The table's schema in Iceberg terms ----

// A primitive leaf column: its field id, physical path (stats keys, partition values) and type.
struct Leaf {
  int64_t id;
  std::vector<std::string> physical_path;
  TypePtr type;
};

Result<std::string> IcebergType(const TypePtr& t) {
  switch (t->id()) {
    case TypeId::kBoolean:
      return std::string("\"boolean\"");
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
      return std::string("\"int\"");
    case TypeId::kInt64:
      return std::string("\"long\"");
    case TypeId::kFloat:
      return std::string("\"float\"");
    case TypeId::kDouble:
      return std::string("\"double\"");
    case TypeId::kDecimal:
      return "\"decimal(" + std::to_string(t->precision()) + ", " + std::to_string(t->scale()) +
             ")\"";
    case TypeId::kString:
      return std::string("\"string\"");
    case TypeId::kBinary:
      return std::string("\"binary\"");
    case TypeId::kDate:
      return std::string("\"date\"");
    case TypeId::kTimestamp:
      return std::string("\"timestamptz\"");
    case TypeId::kTimestampNtz:
      return std::string("\"timestamp\"");
    default:
      return Status::NotImplemented("type " + t->ToString() + " in Iceberg metadata",
                                    errc::kNotImplemented);
  }
}

struct IcebergSchema {
  std::string fields_json;   // the "fields" array
  std::string name_mapping;  // schema.name-mapping.default
  std::vector<Leaf> leaves;
  int64_t max_id = 0;
};

// Delta's IcebergSchemaUtils.convertStruct and Iceberg's MappingUtil.create: the Iceberg type of
// `type` into *json and its name mapping's nested "fields" into *mapping. `holder` is the nearest
// struct field (its delta.columnMapping.nested.ids give the list element and map key/value ids),
// `path` the type's path from it. `in_collection`: below a list or map, where Delta keeps no
// column stats, so no leaf is recorded.
Status BuildType(const TypePtr& type, const silt::Field& holder, const std::string& path,
                 ColumnMappingMode mode, const std::vector<std::string>& parent, bool in_collection,
                 IcebergSchema* out, std::string* json, std::string* mapping);

Status BuildFields(const std::vector<silt::Field>& fields, ColumnMappingMode mode,
                   const std::vector<std::string>& parent, bool in_collection, IcebergSchema* out,
                   std::string* json, std::string* mapping) {
  *json += "[";
  *mapping += "[";
  for (size_t i = 0; i < fields.size(); ++i) {
    const silt::Field& f = fields[i];
    std::optional<int64_t> id = ColumnMappingId(f);
    if (!id) {
      return Status::Corruption("column " + f.name + " has no column mapping id",
                                errc::kDeltaColumnMappingMissingFieldId);
    }
    out->max_id = std::max(out->max_id, *id);
    std::vector<std::string> path = parent;
    path.push_back(PhysicalNameOrName(f, mode));
    if (i) *json += ",", *mapping += ",";
    *json += "{\"id\":" + std::to_string(*id) + ",\"name\":";
    AppendJacksonString(json, f.name);
    *json += std::string(",\"required\":") + (f.nullable ? "false" : "true") + ",\"type\":";
    *mapping += "{\"field-id\":" + std::to_string(*id) + ",\"names\":[";
    AppendJacksonString(mapping, f.name);
    if (path.back() != f.name) {
      *mapping += ",";
      AppendJacksonString(mapping, path.back());
    }
    *mapping += "]";
    SILT_RETURN_NOT_OK(
        BuildType(f.type, f, path.back(), mode, path, in_collection, out, json, mapping));
    if (!f.type->is_nested() && !in_collection) out->leaves.push_back({*id, path, f.type});
    *json += "}";
    *mapping += "}";
  }
  *json += "]";
  *mapping += "]";
  return Status::OK();
}

Status BuildType(const TypePtr& type, const silt::Field& holder, const std::string& path,
                 ColumnMappingMode mode, const std::vector<std::string>& parent, bool in_collection,
                 IcebergSchema* out, std::string* json, std::string* mapping) {
  // One nested id (Delta's getNestedFieldId), and its name mapping entry ("element", "key" …).
  auto nested = [&](const std::string& name, const std::string& key_path) -> Result<int64_t> {
    for (const auto& [k, v] : NestedColumnIds(holder)) {
      if (k != key_path) continue;
      out->max_id = std::max(out->max_id, v);
      *mapping += "{\"field-id\":" + std::to_string(v) + ",\"names\":[\"" + name + "\"]";
      return v;
    }
    return Status::Corruption("column " + holder.name + " has no nested column mapping id " +
                                  key_path + " (delta.columnMapping.nested.ids)",
                              errc::kDeltaColumnMappingMissingFieldId);
  };
  // A list element's or map key's/value's type, then the end of its name mapping entry.
  auto child = [&](const TypePtr& t, const std::string& child_path) -> Status {
    SILT_RETURN_NOT_OK(BuildType(t, holder, child_path, mode, parent, true, out, json, mapping));
    *mapping += "}";
    return Status::OK();
  };
  // A nested type adds ,"fields":[…] to its name mapping entry; a primitive adds nothing.
  switch (type->id()) {
    case TypeId::kStruct:
      *json += "{\"type\":\"struct\",\"fields\":";
      *mapping += ",\"fields\":";
      SILT_RETURN_NOT_OK(
          BuildFields(type->fields(), mode, parent, in_collection, out, json, mapping));
      *json += "}";
      return Status::OK();
    case TypeId::kList: {
      const std::string element = path + ".element";
      *mapping += ",\"fields\":[";
      SILT_ASSIGN_OR_RETURN(int64_t id, nested("element", element));
      *json += "{\"type\":\"list\",\"element-id\":" + std::to_string(id) + ",\"element\":";
      SILT_RETURN_NOT_OK(child(type->element_type(), element));
      *json +=
          std::string(",\"element-required\":") + (type->contains_null() ? "false" : "true") + "}";
      *mapping += "]";
      return Status::OK();
    }
    case TypeId::kMap: {
      const std::string key = path + ".key", value = path + ".value";
      *mapping += ",\"fields\":[";
      SILT_ASSIGN_OR_RETURN(int64_t key_id, nested("key", key));
      *json += "{\"type\":\"map\",\"key-id\":" + std::to_string(key_id) + ",\"key\":";
      SILT_RETURN_NOT_OK(child(type->key_type(), key));
      *mapping += ",";
      SILT_ASSIGN_OR_RETURN(int64_t value_id, nested("value", value));
      *json += ",\"value-id\":" + std::to_string(value_id) + ",\"value\":";
      SILT_RETURN_NOT_OK(child(type->value_type(), value));
      *json += std::string(",\"value-required\":") +
               (type->value_contains_null() ? "false" : "true") + "}";
      *mapping += "]";
      return Status::OK();
    }
    default: {
      SILT_ASSIGN_OR_RETURN(std::string t, IcebergType(type));
      *json += t;
      return Status::OK();
    }
  }
}

// Iceberg's AvroSchemaUtil.makeCompatibleName: Avro names are [A-Za-z_][A-Za-z0-9_]*.
std::string AvroName(const std::string& name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    const bool letter = std::isalpha(c) || c == '_';
    const bool digit = std::isdigit(c);
    if (letter || (digit && i > 0)) {
      out.push_back(static_cast<char>(c));
    } else if (digit) {
      out += "_" + std::string(1, static_cast<char>(c));
    } else {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "_x%X", c);
      out += hex;
    }
  }
  return out;
}

// `defined`: the Avro named types (decimal fixeds) already defined in the schema, which later
// uses must name instead of defining again.
Result<std::string> AvroPartitionType(const TypePtr& t, std::set<std::string>* defined) {
  switch (t->id()) {
    case TypeId::kDecimal: {
      // Iceberg's TypeToSchema: a fixed of TypeUtil.decimalRequiredBytes(precision) bytes.
      const std::string name =
          "decimal_" + std::to_string(t->precision()) + "_" + std::to_string(t->scale());
      if (!defined->insert(name).second) return "\"" + name + "\"";
      return "{\"type\":\"fixed\",\"name\":\"" + name +
             "\",\"size\":" + std::to_string(parquet::DecimalBytesForPrecision(t->precision())) +
             ",\"logicalType\":\"decimal\",\"precision\":" + std::to_string(t->precision()) +
             ",\"scale\":" + std::to_string(t->scale()) + "}";
    }
    case TypeId::kBoolean:
      return std::string("\"boolean\"");
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
      return std::string("\"int\"");
    case TypeId::kInt64:
      return std::string("\"long\"");
    case TypeId::kFloat:
      return std::string("\"float\"");
    case TypeId::kDouble:
      return std::string("\"double\"");
    case TypeId::kString:
      return std::string("\"string\"");
    case TypeId::kBinary:
      return std::string("\"bytes\"");
    case TypeId::kDate:
      return std::string("{\"type\":\"int\",\"logicalType\":\"date\"}");
    case TypeId::kTimestamp:
      return std::string(
          "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\",\"adjust-to-utc\":true}");
    case TypeId::kTimestampNtz:
      return std::string(
          "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\",\"adjust-to-utc\":false}");
    default:
      return Status::NotImplemented(
          "partition column of type " + t->ToString() + " in Iceberg metadata",
          errc::kNotImplemented);
  }
}

Status SetPartitionValue(avro_value_t* branch, const Value& v) {
  int rc = 0;
  switch (v.type()->id()) {
    case TypeId::kBoolean:
      rc = avro_value_set_boolean(branch, v.boolean());
      break;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kDate:
      rc = avro_value_set_int(branch, static_cast<int32_t>(v.integer()));
      break;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      rc = avro_value_set_long(branch, v.integer());
      break;
    case TypeId::kFloat:
      rc = avro_value_set_float(branch, static_cast<float>(v.floating()));
      break;
    case TypeId::kDouble:
      rc = avro_value_set_double(branch, v.floating());
      break;
    case TypeId::kString:
      rc = avro_value_set_string_len(branch, v.str().c_str(), v.str().size() + 1);
      break;
    case TypeId::kBinary:
      rc = avro_value_set_bytes(branch, const_cast<char*>(v.str().data()), v.str().size());
      break;
    case TypeId::kDecimal: {
      // The unscaled value, big-endian two's complement in the fixed's size (at most 16 bytes
      // for precision 38).
      const int size = parquet::DecimalBytesForPrecision(v.type()->precision());
      const auto u = static_cast<unsigned __int128>(v.decimal());
      std::string bytes(static_cast<size_t>(size), '\0');
      for (int i = 0; i < size; ++i)
        bytes[static_cast<size_t>(size - 1 - i)] = static_cast<char>((u >> (8 * i)) & 0xFF);
      rc = avro_value_set_fixed(branch, bytes.data(), bytes.size());
      break;
    }
    default:
      return Status::NotImplemented("partition value of type " + v.type()->ToString(),
                                    errc::kNotImplemented);
  }
  return rc == 0 ? Status::OK() : AvroError("partition value");
}

// Iceberg's single-value serialization (spec Appendix D) of a stats bound, for the types whose
// Delta bounds are exact (timestamps are truncated to milliseconds and floats may hide NaN).
std::optional<std::string> BoundBytes(const Value& v) {
  if (v.is_null()) return std::nullopt;
  auto le = [](uint64_t x, int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s.push_back(static_cast<char>((x >> (8 * i)) & 0xFF));
    return s;
  };
  switch (v.type()->id()) {
    case TypeId::kBoolean:
      return std::string(1, v.boolean() ? '\1' : '\0');
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kDate:
      return le(static_cast<uint32_t>(static_cast<int32_t>(v.integer())), 4);
    case TypeId::kInt64:
      return le(static_cast<uint64_t>(v.integer()), 8);
    case TypeId::kString:
      return v.str();
    default:
      return std::nullopt;
  }
}

std::string ManifestEntrySchema(const std::string& partition_fields) {
  const std::string kv_long =
      "{\"type\":\"array\",\"logicalType\":\"map\",\"items\":{\"type\":\"record\",\"name\":"
      "\"k121_v122\",\"fields\":[{\"name\":\"key\",\"type\":\"int\",\"field-id\":121},{\"name\":"
      "\"value\",\"type\":\"long\",\"field-id\":122}]}}";
  auto kv_bytes = [](const char* name, int k, int v) {
    return std::string("{\"type\":\"array\",\"logicalType\":\"map\",\"items\":{\"type\":") +
           "\"record\",\"name\":\"" + name + "\",\"fields\":[{\"name\":\"key\",\"type\":\"int\"," +
           "\"field-id\":" + std::to_string(k) + "},{\"name\":\"value\",\"type\":\"bytes\"," +
           "\"field-id\":" + std::to_string(v) + "}]}}";
  };
  return std::string(
             "{\"type\":\"record\",\"name\":\"manifest_entry\",\"fields\":["
             "{\"name\":\"status\",\"type\":\"int\",\"field-id\":0},"
             "{\"name\":\"snapshot_id\",\"type\":[\"null\",\"long\"],\"default\":null,"
             "\"field-id\":1},"
             "{\"name\":\"sequence_number\",\"type\":[\"null\",\"long\"],\"default\":null,"
             "\"field-id\":3},"
             "{\"name\":\"file_sequence_number\",\"type\":[\"null\",\"long\"],\"default\":null,"
             "\"field-id\":4},"
             "{\"name\":\"data_file\",\"type\":{\"type\":\"record\",\"name\":\"r2\",\"fields\":["
             "{\"name\":\"content\",\"type\":\"int\",\"field-id\":134},"
             "{\"name\":\"file_path\",\"type\":\"string\",\"field-id\":100},"
             "{\"name\":\"file_format\",\"type\":\"string\",\"field-id\":101},"
             "{\"name\":\"partition\",\"type\":{\"type\":\"record\",\"name\":\"r102\","
             "\"fields\":") +
         partition_fields +
         "},\"field-id\":102},"
         "{\"name\":\"record_count\",\"type\":\"long\",\"field-id\":103},"
         "{\"name\":\"file_size_in_bytes\",\"type\":\"long\",\"field-id\":104},"
         "{\"name\":\"null_value_counts\",\"type\":[\"null\"," +
         kv_long +
         "],\"default\":null,\"field-id\":110},"
         "{\"name\":\"lower_bounds\",\"type\":[\"null\"," +
         kv_bytes("k126_v127", 126, 127) +
         "],\"default\":null,\"field-id\":125},"
         "{\"name\":\"upper_bounds\",\"type\":[\"null\"," +
         kv_bytes("k129_v130", 129, 130) +
         "],\"default\":null,\"field-id\":128}"
         "]},\"field-id\":2}]}";
}

constexpr const char* kManifestListSchema =
    "{\"type\":\"record\",\"name\":\"manifest_file\",\"fields\":["
    "{\"name\":\"manifest_path\",\"type\":\"string\",\"field-id\":500},"
    "{\"name\":\"manifest_length\",\"type\":\"long\",\"field-id\":501},"
    "{\"name\":\"partition_spec_id\",\"type\":\"int\",\"field-id\":502},"
    "{\"name\":\"content\",\"type\":\"int\",\"field-id\":517},"
    "{\"name\":\"sequence_number\",\"type\":\"long\",\"field-id\":515},"
    "{\"name\":\"min_sequence_number\",\"type\":\"long\",\"field-id\":516},"
    "{\"name\":\"added_snapshot_id\",\"type\":\"long\",\"field-id\":503},"
    "{\"name\":\"added_files_count\",\"type\":\"int\",\"field-id\":504},"
    "{\"name\":\"existing_files_count\",\"type\":\"int\",\"field-id\":505},"
    "{\"name\":\"deleted_files_count\",\"type\":\"int\",\"field-id\":506},"
    "{\"name\":\"added_rows_count\",\"type\":\"long\",\"field-id\":512},"
    "{\"name\":\"existing_rows_count\",\"type\":\"long\",\"field-id\":513},"
    "{\"name\":\"deleted_rows_count\",\"type\":\"long\",\"field-id\":514},"
    "{\"name\":\"partitions\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":"
    "\"record\",\"name\":\"r508\",\"fields\":["
    "{\"name\":\"contains_null\",\"type\":\"boolean\",\"field-id\":509},"
    "{\"name\":\"contains_nan\",\"type\":[\"null\",\"boolean\"],\"default\":null,"
    "\"field-id\":518},"
    "{\"name\":\"lower_bound\",\"type\":[\"null\",\"bytes\"],\"default\":null,\"field-id\":510},"
    "{\"name\":\"upper_bound\",\"type\":[\"null\",\"bytes\"],\"default\":null,\"field-id\":511}"
    "]},\"element-id\":508}],\"default\":null,\"field-id\":507}]}";

// ---- Reading the current metadata back ----

// One entry of the metadata's snapshots list, kept as written for the next metadata file.
struct SnapshotEntry {
  int64_t id = 0;
  int64_t timestamp_ms = 0;
  std::string manifest_list;  // absolute URI
  std::string json;
};

struct CurrentMetadata {
  int64_t number = 0;  // N of vN.metadata.json; 0: none
  std::string key;
  int64_t delta_version = -1;
  int64_t snapshot_id = -1;
  int64_t last_updated_ms = 0;
  int64_t last_sequence_number = 0;
  std::string manifest_list;  // absolute URI
  std::string spec_fields;    // the default partition spec's fields, as JSON
  // The history the next metadata file carries on (Iceberg's snapshots, snapshot-log and
  // metadata-log), oldest first.
  std::vector<SnapshotEntry> snapshots;
  std::vector<std::pair<int64_t, int64_t>> snapshot_log;      // timestamp-ms, snapshot-id
  std::vector<std::pair<int64_t, std::string>> metadata_log;  // timestamp-ms, metadata-file
};

Result<CurrentMetadata> ReadCurrent(ObjectStore& store) {
  CurrentMetadata cur;
  Result<std::string> hint = store.Get(kVersionHint);
  if (!hint.ok()) {
    if (hint.status().IsNotFound()) return cur;
    return hint.status();
  }
  cur.number = std::atoll(hint->c_str());
  if (cur.number <= 0)
    return Status::Corruption("Iceberg version hint of " + store.root() + " is '" + *hint + "'",
                              errc::kInternalError);
  cur.key = std::string(kMetadataDir) + "v" + std::to_string(cur.number) + ".metadata.json";
  SILT_ASSIGN_OR_RETURN(std::string text, store.Get(cur.key));
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(text).get(doc) != simdjson::SUCCESS)
    return Status::Corruption("Iceberg metadata " + cur.key + " is not JSON", errc::kInternalError);
  int64_t id = -1;
  if (doc["current-snapshot-id"].get(id) == simdjson::SUCCESS) cur.snapshot_id = id;
  int64_t ts = 0;
  if (doc["last-updated-ms"].get(ts) == simdjson::SUCCESS) cur.last_updated_ms = ts;
  std::string_view dv;
  if (doc["properties"]["delta-version"].get(dv) == simdjson::SUCCESS)
    cur.delta_version = std::atoll(std::string(dv).c_str());
  int64_t seq = 0;
  if (doc["last-sequence-number"].get(seq) == simdjson::SUCCESS) cur.last_sequence_number = seq;
  int64_t spec_id = 0;
  simdjson::dom::array specs;
  if (doc["default-spec-id"].get(spec_id) == simdjson::SUCCESS &&
      doc["partition-specs"].get(specs) == simdjson::SUCCESS) {
    for (simdjson::dom::element spec : specs) {
      int64_t id = -1;
      simdjson::dom::element fields;
      if (spec["spec-id"].get(id) == simdjson::SUCCESS && id == spec_id &&
          spec["fields"].get(fields) == simdjson::SUCCESS)
        AppendJsonElement(&cur.spec_fields, fields);
    }
  }
  simdjson::dom::array entries;
  if (doc["snapshots"].get(entries) == simdjson::SUCCESS) {
    for (simdjson::dom::element e : entries) {
      SnapshotEntry snap;
      std::string_view list;
      if (e["snapshot-id"].get(snap.id) != simdjson::SUCCESS ||
          e["manifest-list"].get(list) != simdjson::SUCCESS)
        return Status::Corruption("Iceberg metadata " + cur.key +
                                      ": a snapshot without id or "
                                      "manifest-list",
                                  errc::kInternalError);
      if (e["timestamp-ms"].get(snap.timestamp_ms) != simdjson::SUCCESS) snap.timestamp_ms = 0;
      snap.manifest_list = list;
      AppendJsonElement(&snap.json, e);
      if (snap.id == cur.snapshot_id) cur.manifest_list = snap.manifest_list;
      cur.snapshots.push_back(std::move(snap));
    }
  }
  if (doc["snapshot-log"].get(entries) == simdjson::SUCCESS) {
    for (simdjson::dom::element e : entries) {
      int64_t t = 0, id = 0;
      if (e["timestamp-ms"].get(t) == simdjson::SUCCESS &&
          e["snapshot-id"].get(id) == simdjson::SUCCESS)
        cur.snapshot_log.emplace_back(t, id);
    }
  }
  if (doc["metadata-log"].get(entries) == simdjson::SUCCESS) {
    for (simdjson::dom::element e : entries) {
      int64_t t = 0;
      std::string_view file;
      if (e["timestamp-ms"].get(t) == simdjson::SUCCESS &&
          e["metadata-file"].get(file) == simdjson::SUCCESS)
        cur.metadata_log.emplace_back(t, std::string(file));
    }
  }
  return cur;
}

// The object key of an absolute URI written by ConvertToIceberg for this store; nullopt for a
// file outside the table (a shallow clone's source file).
std::optional<std::string> KeyOf(const ObjectStore& store, const std::string& uri) {
  std::string root = store.root();
  if (!root.empty() && root.back() != '/') root += '/';
  if (uri.rfind(root, 0) == 0) return uri.substr(root.size());
  return std::nullopt;
}

struct DataFileEntry {
  std::string path;
  int64_t record_count = 0;
  // The snapshot that added the file and its sequence numbers, which EXISTING entries keep
  // (an ADDED entry's nulls inherited from its manifest, as the spec says).
  int64_t snapshot_id = 0;
  int64_t sequence_number = 0;
  int64_t file_sequence_number = 0;
};

// A manifest_file record of a manifest list: its path and what its ADDED entries inherit.
struct ManifestRef {
  std::string path;  // absolute URI
  int64_t sequence_number = 0;
  int64_t added_snapshot_id = 0;
};

// The object key of a metadata file the conversion reads or deletes (Corruption outside the table).
Result<std::string> MetadataKey(const ObjectStore& store, const std::string& uri,
                                const char* what) {
  std::optional<std::string> key = KeyOf(store, uri);
  if (!key)
    return Status::Corruption(std::string(what) + " " + uri + " is outside the table",
                              errc::kInternalError);
  return *key;
}

Result<std::vector<ManifestRef>> ReadManifestList(ObjectStore& store, const std::string& uri) {
  SILT_ASSIGN_OR_RETURN(std::string key, MetadataKey(store, uri, "manifest list"));
  SILT_ASSIGN_OR_RETURN(std::string list, store.Get(key));
  std::vector<ManifestRef> out;
  SILT_RETURN_NOT_OK(AvroFileReader(list, key).ForEach([&](avro_value_t* rec) {
    avro_value_t f;
    const char* s = nullptr;
    size_t n = 0;
    ManifestRef m;
    SILT_RETURN_NOT_OK(Field(rec, "manifest_path", &f));
    if (avro_value_get_string(&f, &s, &n) != 0) return AvroError("manifest_path");
    m.path.assign(s, n ? n - 1 : 0);
    // Written by format-version 1 writers without sequence numbers: 0, as the spec reads them.
    if (avro_value_get_by_name(rec, "sequence_number", &f, nullptr) == 0)
      avro_value_get_long(&f, &m.sequence_number);
    SILT_RETURN_NOT_OK(Field(rec, "added_snapshot_id", &f));
    if (avro_value_get_long(&f, &m.added_snapshot_id) != 0) return AvroError("added_snapshot_id");
    out.push_back(std::move(m));
    return Status::OK();
  }));
  return out;
}

// An optional long field of `rec` (a [null, long] union or a plain long); nullopt when absent.
std::optional<int64_t> OptionalLong(avro_value_t* rec, const char* name) {
  avro_value_t v, branch;
  int64_t out = 0;
  if (avro_value_get_by_name(rec, name, &v, nullptr) != 0) return std::nullopt;
  if (avro_value_get_type(&v) == AVRO_UNION) {
    if (avro_value_get_current_branch(&v, &branch) != 0) return std::nullopt;
    v = branch;
  }
  if (avro_value_get_type(&v) == AVRO_INT64 && avro_value_get_long(&v, &out) == 0) return out;
  return std::nullopt;
}

// The data files of the current snapshot (status ADDED or EXISTING) and the manifests read.
Status ReadDataFiles(ObjectStore& store, const CurrentMetadata& cur,
                     std::vector<std::string>* manifests, std::vector<DataFileEntry>* files) {
  if (cur.manifest_list.empty()) return Status::OK();
  SILT_ASSIGN_OR_RETURN(std::vector<ManifestRef> refs, ReadManifestList(store, cur.manifest_list));
  for (const ManifestRef& m : refs) {
    manifests->push_back(m.path);
    SILT_ASSIGN_OR_RETURN(std::string key, MetadataKey(store, m.path, "manifest"));
    SILT_ASSIGN_OR_RETURN(std::string bytes, store.Get(key));
    SILT_RETURN_NOT_OK(AvroFileReader(bytes, key).ForEach([&](avro_value_t* rec) {
      avro_value_t status, df, path, count;
      int32_t st = 0;
      SILT_RETURN_NOT_OK(Field(rec, "status", &status));
      if (avro_value_get_int(&status, &st) != 0) return AvroError("status");
      if (st == 2) return Status::OK();  // DELETED
      SILT_RETURN_NOT_OK(Field(rec, "data_file", &df));
      SILT_RETURN_NOT_OK(Field(&df, "file_path", &path));
      SILT_RETURN_NOT_OK(Field(&df, "record_count", &count));
      const char* s = nullptr;
      size_t n = 0;
      int64_t rc = 0;
      if (avro_value_get_string(&path, &s, &n) != 0 || avro_value_get_long(&count, &rc) != 0)
        return AvroError("data_file");
      DataFileEntry e{std::string(s, n ? n - 1 : 0), rc};
      e.snapshot_id = OptionalLong(rec, "snapshot_id").value_or(m.added_snapshot_id);
      e.sequence_number = OptionalLong(rec, "sequence_number").value_or(m.sequence_number);
      e.file_sequence_number =
          OptionalLong(rec, "file_sequence_number").value_or(e.sequence_number);
      files->push_back(std::move(e));
      return Status::OK();
    }));
  }
  return Status::OK();
}

int64_t RandomSnapshotId() {
  Uuid u = Uuid::Random();
  int64_t id = 0;
  std::memcpy(&id, u.bytes.data(), sizeof(id));
  id &= INT64_MAX;
  return id == 0 ? 1 : id;
}

// Iceberg's defaults of history.expire.max-snapshot-age-ms (5 days) and
// write.metadata.previous-versions-max.
constexpr int64_t kDefaultMaxSnapshotAgeMs = 5 * kMillisPerDay;
constexpr int64_t kDefaultPreviousVersionsMax = 100;
constexpr std::string_view kIcebergConfigPrefix = "delta.universalFormat.config.";

// The history the next metadata file carries on, after expiry.
struct History {
  std::vector<SnapshotEntry> kept;                            // previous snapshots kept
  std::vector<std::pair<int64_t, int64_t>> snapshot_log;      // their snapshot-log entries
  std::vector<std::pair<int64_t, std::string>> metadata_log;  // the current file included
  std::vector<std::string> expired_lists;                     // manifest lists of the others
};

// history.expire.max-snapshot-age-ms as Delta's RetentionPeriodComputer sets it: the smaller of
// delta.logRetentionDuration and delta.deletedFileRetentionDuration when either is set and below
// Iceberg's default; an explicit delta.universalFormat.config.history.expire.max-snapshot-age-ms
// must not exceed Delta's retention (their defaults when unset).
Result<int64_t> MaxSnapshotAgeMs(const StringMap& conf) {
  SILT_ASSIGN_OR_RETURN(int64_t log, GetLogRetentionMillis(conf));
  SILT_ASSIGN_OR_RETURN(int64_t tombstones, GetDeletedFileRetentionMillis(conf));
  const std::string key = std::string(kIcebergConfigPrefix) + "history.expire.max-snapshot-age-ms";
  if (const std::string* given = conf.Find(key)) {
    char* end = nullptr;
    const long long v = std::strtoll(given->c_str(), &end, 10);
    if (given->empty() || *end != '\0' || v < 0 || v > std::min(log, tombstones)) {
      return Status::InvalidArgument(
          "Uniform iceberg's history.expire.max-snapshot-age-ms should be no larger than the min "
          "of delta's delta.logRetentionDuration and delta.deletedFileRetentionDuration. Current "
          "delta retention min in MS: " +
              std::to_string(std::min(log, tombstones)) +
              ". Proposed iceberg retention in Ms: " + *given,
          errc::kDeltaUniversalFormatConversionFailed);
    }
    return static_cast<int64_t>(v);
  }
  int64_t age = kDefaultMaxSnapshotAgeMs;
  if (conf.Find(kLogRetentionDurationKey)) age = std::min(age, log);
  if (conf.Find(kDeletedFileRetentionDurationKey)) age = std::min(age, tombstones);
  return age;
}

// Iceberg's ExpireSnapshots (expireOlderThan = now - max age) run at every conversion, and the
// metadata-log capped at write.metadata.previous-versions-max: the new snapshot is always kept.
Result<History> KeptHistory(const CurrentMetadata& cur, const StringMap& conf, int64_t now,
                            const std::string& root, bool same_spec) {
  SILT_ASSIGN_OR_RETURN(int64_t max_age, MaxSnapshotAgeMs(conf));
  History h;
  std::set<int64_t> kept_ids;
  for (const SnapshotEntry& e : cur.snapshots) {
    if (same_spec && e.timestamp_ms >= now - max_age) {
      kept_ids.insert(e.id);
      h.kept.push_back(e);
    } else {
      h.expired_lists.push_back(e.manifest_list);
    }
  }
  for (const auto& entry : cur.snapshot_log)
    if (kept_ids.count(entry.second)) h.snapshot_log.push_back(entry);
  h.metadata_log = cur.metadata_log;
  if (cur.number > 0) h.metadata_log.emplace_back(cur.last_updated_ms, root + cur.key);
  int64_t max_versions = kDefaultPreviousVersionsMax;
  const std::string key =
      std::string(kIcebergConfigPrefix) + "write.metadata.previous-versions-max";
  if (const std::string* given = conf.Find(key))
    max_versions = std::max(1LL, std::atoll(given->c_str()));
  if (static_cast<int64_t>(h.metadata_log.size()) > max_versions)
    h.metadata_log.erase(h.metadata_log.begin(), h.metadata_log.end() - max_versions);
  return h;
}

// Deletes the manifest lists of expired snapshots and their manifests that no kept snapshot
// (nor the new one, `new_list`) references, inside the table only (Delta's deleteWith keeps to
// the metadata location). Failures are logged: the new metadata is already published and the
// leftovers are harmless.
void DeleteExpiredFiles(ObjectStore& store, const History& h, const std::string& new_list) {
  if (h.expired_lists.empty()) return;
  std::set<std::string> in_use;
  std::vector<std::string> lists{new_list};
  for (const SnapshotEntry& e : h.kept) lists.push_back(e.manifest_list);
  for (const std::string& l : lists) {
    Result<std::vector<ManifestRef>> refs = ReadManifestList(store, l);
    if (!refs.ok()) {
      SILT_LOG(kWarn) << "Iceberg snapshot expiry of " << store.root()
                      << " skipped: " << refs.status().ToString();
      return;
    }
    for (const ManifestRef& m : *refs) in_use.insert(m.path);
  }
  auto remove = [&](const std::string& uri) {
    std::optional<std::string> key = KeyOf(store, uri);
    if (!key) return;
    Status st = store.Delete(*key);
    if (!st.ok() && !st.IsNotFound()) {
      SILT_LOG(kWarn) << "Iceberg snapshot expiry: " << st.ToString();
    }
  };
  for (const std::string& l : h.expired_lists) {
    if (Result<std::vector<ManifestRef>> refs = ReadManifestList(store, l); refs.ok()) {
      for (const ManifestRef& m : *refs) {
        if (in_use.insert(m.path).second) remove(m.path);
      }
    }
    remove(l);
  }
}

}  // namespace

Result<int64_t> IcebergConvertedVersion(ObjectStore& store) {
  SILT_ASSIGN_OR_RETURN(CurrentMetadata cur, ReadCurrent(store));
  return cur.delta_version;
}

Result<std::vector<std::string>> IcebergReferencedFiles(ObjectStore& store) {
  SILT_ASSIGN_OR_RETURN(CurrentMetadata cur, ReadCurrent(store));
  std::vector<std::string> out;
  if (cur.number == 0) return out;
  out.push_back(cur.key);
  std::vector<std::string> manifests;
  std::vector<DataFileEntry> files;
  SILT_RETURN_NOT_OK(ReadDataFiles(store, cur, &manifests, &files));
  std::vector<std::string> uris{cur.manifest_list};
  uris.insert(uris.end(), manifests.begin(), manifests.end());
  for (auto& f : files) uris.push_back(std::move(f.path));
  for (std::string& uri : uris) {
    if (uri.empty()) continue;
    std::optional<std::string> key = KeyOf(store, uri);
    out.push_back(key ? std::move(*key) : std::move(uri));
  }
  return out;
}

Status ConvertToIceberg(const Snapshot& snapshot) {
  ObjectStore& store = *snapshot.store();
  const Metadata& md = snapshot.metadata();
  SILT_ASSIGN_OR_RETURN(CurrentMetadata cur, ReadCurrent(store));
  if (cur.delta_version >= snapshot.version()) return Status::OK();
  std::vector<std::string> old_manifests;
  std::vector<DataFileEntry> old_files;
  SILT_RETURN_NOT_OK(ReadDataFiles(store, cur, &old_manifests, &old_files));
  std::map<std::string, DataFileEntry> previous;
  for (auto& f : old_files) previous.emplace(f.path, std::move(f));

  // Schema and partition spec.
  const ColumnMappingMode mode = snapshot.column_mapping_mode();
  IcebergSchema schema;
  SILT_RETURN_NOT_OK(BuildFields(snapshot.schema(), mode, {}, false, &schema, &schema.fields_json,
                                 &schema.name_mapping));
  if (const std::string* m = md.configuration.Find("delta.columnMapping.maxColumnId"))
    schema.max_id = std::max(schema.max_id, static_cast<int64_t>(std::atoll(m->c_str())));
  struct PartitionField {
    std::string name;           // logical
    std::string physical_name;  // key of partitionValues
    int64_t source_id;
    TypePtr type;
  };
  std::vector<PartitionField> parts;
  for (const std::string& p : md.partition_columns) {
    const silt::Field* f = nullptr;
    for (const auto& x : snapshot.schema())
      if (x.name == p) f = &x;
    if (!f) return Status::Corruption("partition column " + p + " is not in the schema");
    parts.push_back({f->name, PhysicalNameOrName(*f, mode), *ColumnMappingId(*f), f->type});
  }
  std::string spec_fields = "[", partition_avro = "[";
  std::set<std::string> named;
  for (size_t i = 0; i < parts.size(); ++i) {
    const int field_id = kFirstPartitionFieldId + static_cast<int>(i);
    SILT_ASSIGN_OR_RETURN(std::string avro_type, AvroPartitionType(parts[i].type, &named));
    if (i) spec_fields += ",", partition_avro += ",";
    spec_fields += "{\"name\":";
    AppendJacksonString(&spec_fields, parts[i].name);
    spec_fields +=
        ",\"transform\":\"identity\",\"source-id\":" + std::to_string(parts[i].source_id) +
        ",\"field-id\":" + std::to_string(field_id) + "}";
    partition_avro += "{\"name\":";
    AppendJacksonString(&partition_avro, AvroName(parts[i].name));
    partition_avro += ",\"type\":[\"null\"," + avro_type +
                      "],\"default\":null,\"field-id\":" + std::to_string(field_id) + "}";
  }
  spec_fields += "]";
  partition_avro += "]";
  const std::string schema_json =
      "{\"type\":\"struct\",\"schema-id\":0,\"fields\":" + schema.fields_json + "}";

  std::string root = store.root();
  if (!root.empty() && root.back() != '/') root += '/';
  const int64_t now = std::max(snapshot.timestamp_ms(), cur.last_updated_ms);
  // Earlier snapshots stay only under the same partition spec (their manifests' spec id 0).
  SILT_ASSIGN_OR_RETURN(History history, KeptHistory(cur, md.configuration, now, root,
                                                     cur.spec_fields == spec_fields));
  const int64_t number = cur.number + 1;
  const int64_t sequence = cur.last_sequence_number + 1;
  int64_t min_sequence = sequence;
  const int64_t snapshot_id = RandomSnapshotId();
  const std::string uuid = Uuid::Random().ToString();

  // The manifest: every live data file.
  AvroFileWriter manifest;
  SILT_RETURN_NOT_OK(
      manifest.Init(ManifestEntrySchema(partition_avro), {{"schema", schema_json},
                                                          {"schema-id", "0"},
                                                          {"partition-spec", spec_fields},
                                                          {"partition-spec-id", "0"},
                                                          {"format-version", "2"},
                                                          {"content", "data"}}));
  SILT_ASSIGN_OR_RETURN(Schema physical, ToPhysicalSchema(snapshot.schema(), mode));
  int64_t added_files = 0, existing_files = 0, added_rows = 0, existing_rows = 0, total_size = 0;
  std::vector<bool> part_has_null(parts.size(), false);
  std::set<std::string> live;
  for (const AddFile& a : snapshot.files()) {
    SILT_ASSIGN_OR_RETURN(DeltaPath dp, ParseDeltaPath(a.path));
    const std::string path = dp.absolute ? dp.path : root + dp.path;
    live.insert(path);
    if (a.deletion_vector) {
      // Iceberg v2 would need position delete files; IcebergCompatV2 tables have none.
      return Status::InvalidArgument("data file " + a.path + " has a deletion vector",
                                     errc::kDeltaIcebergCompatViolationDeletionVectorsNotPurged);
    }
    std::optional<int64_t> records = a.stats ? StatsNumRecords(*a.stats) : std::nullopt;
    if (!records) {
      return Status::InvalidArgument("data file " + a.path + " has no numRecords statistic",
                                     errc::kDeltaIcebergCompatViolation);
    }
    const auto old = previous.find(path);
    const bool added = old == previous.end();
    (added ? added_files : existing_files) += 1;
    (added ? added_rows : existing_rows) += *records;
    total_size += a.size;
    // An EXISTING entry keeps the snapshot that added the file and its sequence numbers.
    const int64_t file_seq = added ? sequence : old->second.sequence_number;
    min_sequence = std::min(min_sequence, file_seq);
    avro_value_t* e = manifest.record();
    avro_value_t v, b, df;
    SILT_RETURN_NOT_OK(Field(e, "status", &v));
    avro_value_set_int(&v, added ? 1 : 0);
    SILT_RETURN_NOT_OK(Optional(e, "snapshot_id", true, &b));
    avro_value_set_long(&b, added ? snapshot_id : old->second.snapshot_id);
    SILT_RETURN_NOT_OK(Optional(e, "sequence_number", true, &b));
    avro_value_set_long(&b, file_seq);
    SILT_RETURN_NOT_OK(Optional(e, "file_sequence_number", true, &b));
    avro_value_set_long(&b, added ? sequence : old->second.file_sequence_number);
    SILT_RETURN_NOT_OK(Field(e, "data_file", &df));
    SILT_RETURN_NOT_OK(Field(&df, "content", &v));
    avro_value_set_int(&v, 0);
    SILT_RETURN_NOT_OK(Field(&df, "file_path", &v));
    avro_value_set_string_len(&v, path.c_str(), path.size() + 1);
    SILT_RETURN_NOT_OK(Field(&df, "file_format", &v));
    avro_value_set_string(&v, "PARQUET");
    avro_value_t part;
    SILT_RETURN_NOT_OK(Field(&df, "partition", &part));
    for (size_t i = 0; i < parts.size(); ++i) {
      const std::optional<std::string>* text = a.partition_values.Find(parts[i].physical_name);
      if (!text) text = a.partition_values.Find(parts[i].name);
      SILT_ASSIGN_OR_RETURN(Value pv,
                            ParsePartitionValue(text ? *text : std::nullopt, parts[i].type));
      part_has_null[i] = part_has_null[i] || pv.is_null();
      avro_value_t u;
      if (avro_value_get_by_index(&part, i, &u, nullptr) != 0) return AvroError("partition");
      if (avro_value_set_branch(&u, pv.is_null() ? 0 : 1, &b) != 0) return AvroError("partition");
      if (pv.is_null()) {
        avro_value_set_null(&b);
      } else {
        SILT_RETURN_NOT_OK(SetPartitionValue(&b, pv));
      }
    }
    SILT_RETURN_NOT_OK(Field(&df, "record_count", &v));
    avro_value_set_long(&v, *records);
    SILT_RETURN_NOT_OK(Field(&df, "file_size_in_bytes", &v));
    avro_value_set_long(&v, a.size);
    // Column metrics from the Delta stats (Delta's IcebergStatsConverter): null counts, and
    // bounds where they are exact.
    Result<FileStats> stats = ParseStats(*a.stats, physical);
    avro_value_t nulls, lowers, uppers;
    SILT_RETURN_NOT_OK(Optional(&df, "null_value_counts", stats.ok(), &nulls));
    SILT_RETURN_NOT_OK(Optional(&df, "lower_bounds", stats.ok(), &lowers));
    SILT_RETURN_NOT_OK(Optional(&df, "upper_bounds", stats.ok(), &uppers));
    if (stats.ok()) {
      for (const Leaf& leaf : schema.leaves) {
        const ColumnStats* cs = stats->FindPath(leaf.physical_path);
        if (!cs) continue;
        avro_value_t kv, k, val;
        if (cs->null_count) {
          avro_value_append(&nulls, &kv, nullptr);
          avro_value_get_by_index(&kv, 0, &k, nullptr);
          avro_value_set_int(&k, static_cast<int32_t>(leaf.id));
          avro_value_get_by_index(&kv, 1, &val, nullptr);
          avro_value_set_long(&val, *cs->null_count);
        }
        if (!stats->TightBounds()) continue;
        for (auto [bound, target] : {std::pair{&cs->min, &lowers}, std::pair{&cs->max, &uppers}}) {
          std::optional<std::string> bytes = *bound ? BoundBytes(**bound) : std::nullopt;
          if (!bytes) continue;
          avro_value_append(target, &kv, nullptr);
          avro_value_get_by_index(&kv, 0, &k, nullptr);
          avro_value_set_int(&k, static_cast<int32_t>(leaf.id));
          avro_value_get_by_index(&kv, 1, &val, nullptr);
          avro_value_set_bytes(&val, bytes->data(), bytes->size());
        }
      }
    }
    SILT_RETURN_NOT_OK(manifest.Append());
  }
  int64_t deleted_files = 0, deleted_rows = 0;
  for (const auto& [path, f] : previous) {
    if (!live.count(path)) ++deleted_files, deleted_rows += f.record_count;
  }

  // Objects first, the version hint that publishes them last.
  const std::string manifest_key = std::string(kMetadataDir) + uuid + "-m0.avro";
  const std::string list_key = std::string(kMetadataDir) + "snap-" + std::to_string(snapshot_id) +
                               "-" + std::to_string(number) + "-" + uuid + ".avro";
  const bool any_file = !snapshot.files().empty();
  AvroFileWriter list;
  SILT_RETURN_NOT_OK(
      list.Init(kManifestListSchema,
                {{"snapshot-id", std::to_string(snapshot_id)},
                 {"parent-snapshot-id",
                  cur.snapshot_id >= 0 ? std::to_string(cur.snapshot_id) : std::string("null")},
                 {"sequence-number", std::to_string(sequence)},
                 {"format-version", "2"}}));
  if (any_file) {
    const std::string bytes = manifest.Finish();
    SILT_RETURN_NOT_OK(store.Put(manifest_key, bytes));
    avro_value_t* m = list.record();
    avro_value_t v, b;
    auto set_long = [&](const char* name, int64_t x) -> Status {
      SILT_RETURN_NOT_OK(Field(m, name, &v));
      avro_value_set_long(&v, x);
      return Status::OK();
    };
    auto set_int = [&](const char* name, int64_t x) -> Status {
      SILT_RETURN_NOT_OK(Field(m, name, &v));
      avro_value_set_int(&v, static_cast<int32_t>(x));
      return Status::OK();
    };
    SILT_RETURN_NOT_OK(Field(m, "manifest_path", &v));
    const std::string manifest_uri = root + manifest_key;
    avro_value_set_string_len(&v, manifest_uri.c_str(), manifest_uri.size() + 1);
    SILT_RETURN_NOT_OK(set_long("manifest_length", static_cast<int64_t>(bytes.size())));
    SILT_RETURN_NOT_OK(set_int("partition_spec_id", 0));
    SILT_RETURN_NOT_OK(set_int("content", 0));
    SILT_RETURN_NOT_OK(set_long("sequence_number", sequence));
    SILT_RETURN_NOT_OK(set_long("min_sequence_number", min_sequence));
    SILT_RETURN_NOT_OK(set_long("added_snapshot_id", snapshot_id));
    SILT_RETURN_NOT_OK(set_int("added_files_count", added_files));
    SILT_RETURN_NOT_OK(set_int("existing_files_count", existing_files));
    SILT_RETURN_NOT_OK(set_int("deleted_files_count", 0));
    SILT_RETURN_NOT_OK(set_long("added_rows_count", added_rows));
    SILT_RETURN_NOT_OK(set_long("existing_rows_count", existing_rows));
    SILT_RETURN_NOT_OK(set_long("deleted_rows_count", 0));
    avro_value_t arr, summary, x;
    SILT_RETURN_NOT_OK(Optional(m, "partitions", true, &arr));
    for (size_t i = 0; i < parts.size(); ++i) {
      avro_value_append(&arr, &summary, nullptr);
      SILT_RETURN_NOT_OK(Field(&summary, "contains_null", &x));
      avro_value_set_boolean(&x, part_has_null[i]);
      for (const char* name : {"contains_nan", "lower_bound", "upper_bound"})
        SILT_RETURN_NOT_OK(Optional(&summary, name, false, &b));
    }
    SILT_RETURN_NOT_OK(list.Append());
  }
  SILT_RETURN_NOT_OK(store.Put(list_key, list.Finish()));

  // metadata.json (Iceberg table spec, format version 2).
  int64_t total_rows = added_rows + existing_rows;
  const char* operation = deleted_files == 0 ? "append" : added_files == 0 ? "delete" : "overwrite";
  std::string properties = "{\"delta-version\":\"" + std::to_string(snapshot.version()) +
                           "\",\"delta-timestamp\":\"" + std::to_string(snapshot.timestamp_ms()) +
                           "\",\"schema.name-mapping.default\":";
  AppendJacksonString(&properties, schema.name_mapping);
  // delta.universalFormat.config.<key> = v becomes the Iceberg property <key> = v (Delta's
  // DeltaToIcebergConverter.properties).
  for (const auto& [k, v] : md.configuration) {
    if (k.rfind(kIcebergConfigPrefix, 0) != 0) continue;
    properties += ",";
    AppendJacksonString(&properties, k.substr(kIcebergConfigPrefix.size()));
    properties += ":";
    AppendJacksonString(&properties, v);
  }
  properties += "}";
  std::string j = "{\"format-version\":2,\"table-uuid\":";
  AppendJacksonString(&j, md.id);
  j += ",\"location\":";
  AppendJacksonString(&j, root.substr(0, root.size() - 1));
  j += ",\"last-sequence-number\":" + std::to_string(sequence) +
       ",\"last-updated-ms\":" + std::to_string(now) +
       ",\"last-column-id\":" + std::to_string(schema.max_id) +
       ",\"current-schema-id\":0,\"schemas\":[" + schema_json +
       "],\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":" + spec_fields +
       "}],\"last-partition-id\":" +
       std::to_string(kFirstPartitionFieldId - 1 + static_cast<int>(parts.size())) +
       ",\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,\"fields\":[]}]" +
       ",\"properties\":" + properties + ",\"current-snapshot-id\":" + std::to_string(snapshot_id) +
       ",\"refs\":{\"main\":{\"snapshot-id\":" + std::to_string(snapshot_id) +
       ",\"type\":\"branch\"}},\"snapshots\":[";
  for (const SnapshotEntry& kept : history.kept) j += kept.json + ",";
  j += "{\"sequence-number\":" + std::to_string(sequence) +
       ",\"snapshot-id\":" + std::to_string(snapshot_id);
  if (cur.snapshot_id >= 0) j += ",\"parent-snapshot-id\":" + std::to_string(cur.snapshot_id);
  j += ",\"timestamp-ms\":" + std::to_string(now) + ",\"summary\":{\"operation\":\"" + operation +
       "\",\"added-data-files\":\"" + std::to_string(added_files) + "\",\"deleted-data-files\":\"" +
       std::to_string(deleted_files) + "\",\"added-records\":\"" + std::to_string(added_rows) +
       "\",\"deleted-records\":\"" + std::to_string(deleted_rows) + "\",\"total-data-files\":\"" +
       std::to_string(added_files + existing_files) + "\",\"total-records\":\"" +
       std::to_string(total_rows) + "\",\"total-files-size\":\"" + std::to_string(total_size) +
       "\",\"total-delete-files\":\"0\",\"total-position-deletes\":\"0\"," +
       "\"total-equality-deletes\":\"0\",\"delta-version\":\"" +
       std::to_string(snapshot.version()) + "\"},\"manifest-list\":";
  AppendJacksonString(&j, root + list_key);
  j += ",\"schema-id\":0}],\"statistics\":[],\"snapshot-log\":[";
  for (const auto& [t, id] : history.snapshot_log)
    j += "{\"timestamp-ms\":" + std::to_string(t) + ",\"snapshot-id\":" + std::to_string(id) + "},";
  j += "{\"timestamp-ms\":" + std::to_string(now) +
       ",\"snapshot-id\":" + std::to_string(snapshot_id) + "}],\"metadata-log\":[";
  for (size_t i = 0; i < history.metadata_log.size(); ++i) {
    if (i) j += ",";
    j += "{\"timestamp-ms\":" + std::to_string(history.metadata_log[i].first) +
         ",\"metadata-file\":";
    AppendJacksonString(&j, history.metadata_log[i].second);
    j += "}";
  }
  j += "]}";
  const std::string metadata_key =
      std::string(kMetadataDir) + "v" + std::to_string(number) + ".metadata.json";
  // A concurrent converter that took this number first wins; its metadata is as good as ours.
  SILT_RETURN_NOT_OK(store.PutIfAbsent(metadata_key, j));
  SILT_RETURN_NOT_OK(store.Put(kVersionHint, std::to_string(number)));
  // Only now, with the new metadata published, the expired snapshots' files go.
  DeleteExpiredFiles(store, history, root + list_key);
  return Status::OK();
}

// ---- Reading an Iceberg table (CLONE iceberg.`path`) ----

namespace {

// Reads an optional metadata field into *out (left as it was when absent or of another type).
template <typename T>
void Opt(simdjson::simdjson_result<simdjson::dom::element> field, T* out) {
  T v;
  if (field.get(v) == simdjson::SUCCESS) *out = v;
}

Status IncompatibleIceberg(const std::string& root, const std::string& why) {
  return Status::NotImplemented(
      "The clone source has valid format, but has unsupported feature with Delta: the Iceberg "
      "table at " +
          root + " " + why + ".",
      errc::kDeltaCloneIncompatibleSource);
}

// N of "vN.metadata.json" (Hadoop tables) or "NNNNN-<uuid>.metadata.json" (catalog tables); -1
// for other names.
int64_t MetadataFileNumber(std::string_view name) {
  if (!name.ends_with(".metadata.json")) return -1;
  size_t i = name.starts_with("v") ? 1 : 0;
  int64_t n = 0;
  size_t digits = 0;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9' && digits < 18; ++i, ++digits)
    n = n * 10 + (name[i] - '0');
  if (digits == 0 || (name[i] != '.' && name[i] != '-')) return -1;
  return n;
}

// The key of the current metadata file: the version hint's, else the highest-numbered one.
Result<std::string> CurrentMetadataKey(ObjectStore& store) {
  Result<std::string> hint = store.Get(kVersionHint);
  if (hint.ok()) {
    std::string key = std::string(kMetadataDir) + "v" + std::to_string(std::atoll(hint->c_str())) +
                      ".metadata.json";
    if (store.Head(key).ok()) return key;
  } else if (!hint.status().IsNotFound()) {
    return hint.status();
  }
  std::string best;
  int64_t best_n = -1;
  SILT_RETURN_NOT_OK(store.ListRecursive("metadata", [&](const ObjectMeta& m) -> Status {
    const size_t slash = m.key.find_last_of('/');
    const int64_t n =
        MetadataFileNumber(slash == std::string::npos ? std::string_view(m.key)
                                                      : std::string_view(m.key).substr(slash + 1));
    if (!m.is_dir && n > best_n) best_n = n, best = m.key;
    return Status::OK();
  }));
  if (best.empty()) {
    return Status::NotFound(
        "No Iceberg table metadata (metadata/*.metadata.json) at " + store.root() + ".",
        errc::kDeltaCloneUnsupportedSource);
  }
  return best;
}

// Reads a whole manifest list or manifest that an Iceberg metadata file names (an absolute URI or
// path). Manifests are small (Iceberg targets 8 MB); a larger file than kMaxManifestBytes is
// refused rather than held in memory.
constexpr int64_t kMaxManifestBytes = 256 << 20;
Result<std::string> ReadIcebergFile(const std::string& uri) {
  SILT_ASSIGN_OR_RETURN(std::shared_ptr<RandomAccessFile> f, OpenLocationForRead(uri));
  if (f->size() > kMaxManifestBytes) {
    return Status::NotImplemented("Iceberg manifest " + uri + " is larger than 256 MiB",
                                  errc::kDeltaCloneIncompatibleSource);
  }
  std::string out(static_cast<size_t>(f->size()), '\0');
  SILT_RETURN_NOT_OK(f->ReadAt(0, f->size(), reinterpret_cast<uint8_t*>(out.data())));
  return out;
}

// An Iceberg field's type as a Delta type; nested struct fields get their ids too. Lists and maps
// (whose element ids Delta keeps in delta.columnMapping.nested.ids) are not converted.
Result<TypePtr> FromIcebergType(simdjson::dom::element type, const std::string& root,
                                int64_t* max_id);

Result<silt::Field> FromIcebergField(simdjson::dom::element f, const std::string& root,
                                     int64_t* max_id) {
  int64_t id = 0;
  std::string_view name;
  bool required = false;
  simdjson::dom::element type;
  if (f["id"].get(id) != simdjson::SUCCESS || f["name"].get(name) != simdjson::SUCCESS ||
      f["type"].get(type) != simdjson::SUCCESS) {
    return Status::Corruption("Iceberg schema field without id, name or type at " + root,
                              errc::kInternalError);
  }
  Opt(f["required"], &required);
  *max_id = std::max(*max_id, id);
  SILT_ASSIGN_OR_RETURN(TypePtr t, FromIcebergType(type, root, max_id));
  std::string md = "{\"delta.columnMapping.id\":" + std::to_string(id) +
                   ",\"delta.columnMapping.physicalName\":";
  AppendJacksonString(&md, name);
  md += "}";
  return silt::Field{std::string(name), std::move(t), !required, std::move(md)};
}

Result<TypePtr> FromIcebergType(simdjson::dom::element type, const std::string& root,
                                int64_t* max_id) {
  std::string_view s;
  if (type.get(s) == simdjson::SUCCESS) {
    static const std::map<std::string_view, TypePtr (*)()> kPrimitive = {
        {"boolean", &DataType::Boolean},
        {"int", &DataType::Int32},
        {"long", &DataType::Int64},
        {"float", &DataType::Float},
        {"double", &DataType::Double},
        {"date", &DataType::Date},
        {"timestamp", &DataType::TimestampNtz},
        {"timestamptz", &DataType::Timestamp},
        {"string", &DataType::String},
        {"binary", &DataType::Binary}};
    if (auto it = kPrimitive.find(s); it != kPrimitive.end()) return it->second();
    int p = 0, sc = 0;
    if (std::sscanf(std::string(s).c_str(), "decimal(%d, %d)", &p, &sc) == 2 ||
        std::sscanf(std::string(s).c_str(), "decimal(%d,%d)", &p, &sc) == 2)
      return DataType::Decimal(p, sc);
    return IncompatibleIceberg(root, "has a column of type " + std::string(s));
  }
  std::string_view kind;
  if (type["type"].get(kind) != simdjson::SUCCESS || kind != "struct") {
    return IncompatibleIceberg(root, "has a " + std::string(kind) + " column (not converted)");
  }
  simdjson::dom::array fields;
  if (type["fields"].get(fields) != simdjson::SUCCESS)
    return Status::Corruption("Iceberg struct without fields at " + root, errc::kInternalError);
  std::vector<silt::Field> out;
  for (simdjson::dom::element f : fields) {
    SILT_ASSIGN_OR_RETURN(silt::Field x, FromIcebergField(f, root, max_id));
    out.push_back(std::move(x));
  }
  return DataType::Struct(std::move(out));
}

// A partition tuple value (the [null, T] union's branch) as Delta's partition value text.
Result<std::optional<std::string>> PartitionText(avro_value_t* field, const TypePtr& type) {
  avro_value_t branch;
  if (avro_value_get_current_branch(field, &branch) != 0) return AvroError("partition");
  int32_t i = 0;
  int64_t l = 0;
  const char* s = nullptr;
  size_t n = 0;
  int b = 0;
  float f = 0;
  double d = 0;
  switch (avro_value_get_type(&branch)) {
    case AVRO_NULL:
      return std::optional<std::string>();
    case AVRO_INT32:
      if (avro_value_get_int(&branch, &i) != 0) return AvroError("partition int");
      return FormatPartitionValue(Value::Integer(type, i));
    case AVRO_INT64:
      if (avro_value_get_long(&branch, &l) != 0) return AvroError("partition long");
      return FormatPartitionValue(Value::Integer(type, l));
    case AVRO_STRING:
      if (avro_value_get_string(&branch, &s, &n) != 0) return AvroError("partition string");
      return std::optional<std::string>(std::string(s, n ? n - 1 : 0));
    case AVRO_BOOLEAN:
      if (avro_value_get_boolean(&branch, &b) != 0) return AvroError("partition boolean");
      return std::optional<std::string>(b ? "true" : "false");
    case AVRO_FLOAT:
      if (avro_value_get_float(&branch, &f) != 0) return AvroError("partition float");
      return FormatPartitionValue(Value::Floating(type, f));
    case AVRO_DOUBLE:
      if (avro_value_get_double(&branch, &d) != 0) return AvroError("partition double");
      return FormatPartitionValue(Value::Floating(type, d));
    default:
      return Status::NotImplemented(
          "Iceberg partition values of type " + type->ToString() + " are not converted",
          errc::kDeltaCloneIncompatibleSource);
  }
}

std::string AvroString(avro_value_t* v) {
  const char* s = nullptr;
  size_t n = 0;
  if (avro_value_get_string(v, &s, &n) != 0) return "";
  return std::string(s, n ? n - 1 : 0);
}

int32_t IntOr(avro_value_t* rec, const char* name, int32_t fallback) {
  avro_value_t v;
  int32_t out = fallback;
  if (avro_value_get_by_name(rec, name, &v, nullptr) == 0) (void)avro_value_get_int(&v, &out);
  return out;
}

}  // namespace

Result<IcebergTable> ReadIcebergTable(ObjectStore& store) {
  const std::string root = store.root();
  SILT_ASSIGN_OR_RETURN(std::string key, CurrentMetadataKey(store));
  SILT_ASSIGN_OR_RETURN(std::string text, store.Get(key));
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(text).get(doc) != simdjson::SUCCESS)
    return Status::Corruption("Iceberg metadata " + key + " is not JSON", errc::kInternalError);

  // The current schema (format v2: schemas + current-schema-id; v1: schema).
  IcebergTable out;
  int64_t schema_id = 0;
  simdjson::dom::element schema;
  bool found = false;
  simdjson::dom::array schemas;
  if (doc["current-schema-id"].get(schema_id) == simdjson::SUCCESS &&
      doc["schemas"].get(schemas) == simdjson::SUCCESS) {
    for (simdjson::dom::element s : schemas) {
      int64_t id = -1;
      if (s["schema-id"].get(id) == simdjson::SUCCESS && id == schema_id) schema = s, found = true;
    }
  } else {
    found = doc["schema"].get(schema) == simdjson::SUCCESS;
  }
  if (!found) return Status::Corruption("Iceberg metadata " + key + " has no current schema");
  SILT_ASSIGN_OR_RETURN(TypePtr row, FromIcebergType(schema, root, &out.max_column_id));
  out.schema = row->fields();
  std::map<int64_t, const silt::Field*> by_id;
  for (const silt::Field& f : out.schema) {
    simdjson::dom::parser p;
    simdjson::dom::element m;
    int64_t id = 0;
    if (p.parse(f.metadata_json).get(m) == simdjson::SUCCESS &&
        m["delta.columnMapping.id"].get(id) == simdjson::SUCCESS)
      by_id[id] = &f;
  }

  // The default partition spec: identity transforms of top-level columns only.
  int64_t spec_id = 0;
  Opt(doc["default-spec-id"], &spec_id);
  // (A default-constructed dom::array is not iterable: only found arrays are kept.)
  std::optional<simdjson::dom::array> spec_fields;
  simdjson::dom::array specs, fields;
  if (doc["partition-specs"].get(specs) == simdjson::SUCCESS) {
    for (simdjson::dom::element s : specs) {
      int64_t id = -1;
      if (s["spec-id"].get(id) == simdjson::SUCCESS && id == spec_id &&
          s["fields"].get(fields) == simdjson::SUCCESS)
        spec_fields = fields;
    }
  } else if (doc["partition-spec"].get(fields) == simdjson::SUCCESS) {
    spec_fields = fields;
  }
  if (!spec_fields) {
    return IncompatibleIceberg(
        root, "has no partition spec " + std::to_string(spec_id) + " (its default-spec-id)");
  }
  struct PartField {
    std::string name;  // in the partition tuple
    const silt::Field* column;
  };
  std::vector<PartField> parts;
  for (simdjson::dom::element pf : *spec_fields) {
    std::string_view name, transform;
    int64_t source = -1;
    Opt(pf["name"], &name);
    Opt(pf["transform"], &transform);
    Opt(pf["source-id"], &source);
    if (transform != "identity") {
      return IncompatibleIceberg(root, "is partitioned by " + std::string(transform) + "(" +
                                           std::string(name) +
                                           "); only identity partitions are converted");
    }
    auto col = by_id.find(source);
    if (col == by_id.end()) {
      return IncompatibleIceberg(
          root, "is partitioned by the nested or missing field id " + std::to_string(source));
    }
    parts.push_back({std::string(name), col->second});
    out.partition_columns.push_back(col->second->name);
  }

  // The current snapshot's manifests, and the snapshots' times (a file's modification time is
  // the time of the snapshot that added it, stable across re-clones).
  int64_t current = -1;
  Opt(doc["current-snapshot-id"], &current);
  out.snapshot_id = current;
  std::map<int64_t, int64_t> snapshot_ms;
  std::string manifest_list;
  simdjson::dom::array snaps;
  std::vector<std::string> v1_manifests;
  if (doc["snapshots"].get(snaps) == simdjson::SUCCESS) {
    for (simdjson::dom::element s : snaps) {
      int64_t id = -1, ts = 0;
      Opt(s["snapshot-id"], &id);
      Opt(s["timestamp-ms"], &ts);
      snapshot_ms[id] = ts;
      if (id != current) continue;
      std::string_view list;
      simdjson::dom::array manifests;
      if (s["manifest-list"].get(list) == simdjson::SUCCESS) {
        manifest_list = list;
      } else if (s["manifests"].get(manifests) == simdjson::SUCCESS) {
        for (simdjson::dom::element m : manifests) {
          std::string_view path;
          if (m.get(path) == simdjson::SUCCESS) v1_manifests.emplace_back(path);
        }
      }
    }
  }
  struct Manifest {
    std::string path;
    int32_t content = 0;  // 0 data, 1 deletes
    int32_t spec_id = 0;
    int64_t added_snapshot = -1;
  };
  std::vector<Manifest> manifests;
  for (const std::string& m : v1_manifests)
    manifests.push_back({m, 0, static_cast<int32_t>(spec_id), current});
  if (!manifest_list.empty()) {
    SILT_ASSIGN_OR_RETURN(std::string list, ReadIcebergFile(manifest_list));
    SILT_RETURN_NOT_OK(AvroFileReader(list, manifest_list).ForEach([&](avro_value_t* rec) {
      avro_value_t f;
      SILT_RETURN_NOT_OK(Field(rec, "manifest_path", &f));
      Manifest m{AvroString(&f), IntOr(rec, "content", 0), IntOr(rec, "partition_spec_id", 0),
                 OptionalLong(rec, "added_snapshot_id").value_or(current)};
      manifests.push_back(std::move(m));
      return Status::OK();
    }));
  }
  for (const Manifest& m : manifests) {
    if (m.spec_id != spec_id) {
      return IncompatibleIceberg(root,
                                 "has data files of an older partition spec (partition "
                                 "evolution)");
    }
    SILT_ASSIGN_OR_RETURN(std::string bytes, ReadIcebergFile(m.path));
    SILT_RETURN_NOT_OK(AvroFileReader(bytes, m.path).ForEach([&](avro_value_t* rec) {
      avro_value_t status, df, v;
      int32_t st = 0;
      SILT_RETURN_NOT_OK(Field(rec, "status", &status));
      if (avro_value_get_int(&status, &st) != 0) return AvroError("status");
      if (st == 2) return Status::OK();  // DELETED
      SILT_RETURN_NOT_OK(Field(rec, "data_file", &df));
      if (m.content != 0 || IntOr(&df, "content", 0) != 0) {
        return IncompatibleIceberg(root,
                                   "has delete files (merge-on-read deletes, updates or "
                                   "merges); Databricks does not clone such tables either");
      }
      SILT_RETURN_NOT_OK(Field(&df, "file_format", &v));
      std::string format = AvroString(&v);
      for (char& c : format) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (format != "PARQUET") return IncompatibleIceberg(root, "has " + format + " data files");
      AddFile add;
      SILT_RETURN_NOT_OK(Field(&df, "file_path", &v));
      add.path = EncodePathUri(AvroString(&v));
      int64_t records = 0;
      SILT_RETURN_NOT_OK(Field(&df, "record_count", &v));
      if (avro_value_get_long(&v, &records) != 0) return AvroError("record_count");
      SILT_RETURN_NOT_OK(Field(&df, "file_size_in_bytes", &v));
      if (avro_value_get_long(&v, &add.size) != 0) return AvroError("file_size_in_bytes");
      const int64_t added_by = OptionalLong(rec, "snapshot_id").value_or(m.added_snapshot);
      auto ts = snapshot_ms.find(added_by);
      add.modification_time = ts == snapshot_ms.end() ? 0 : ts->second;
      add.data_change = true;
      add.stats = "{\"numRecords\":" + std::to_string(records) + "}";
      if (!parts.empty()) {
        avro_value_t tuple, pv;
        SILT_RETURN_NOT_OK(Field(&df, "partition", &tuple));
        for (const PartField& p : parts) {
          if (avro_value_get_by_name(&tuple, p.name.c_str(), &pv, nullptr) != 0)
            return AvroError("partition " + p.name);
          SILT_ASSIGN_OR_RETURN(std::optional<std::string> text,
                                PartitionText(&pv, p.column->type));
          add.partition_values.Set(p.column->name, std::move(text));
        }
      }
      out.files.push_back(std::move(add));
      return Status::OK();
    }));
  }
  return out;
}

}  // namespace silt::delta
