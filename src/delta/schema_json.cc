#include "delta/schema_json.h"

#include <simdjson.h>

#include <algorithm>

#include "common/ascii.h"
#include "common/error_classes.h"
#include "delta/json_util.h"
#include "delta/z85.h"

namespace silt::delta {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

namespace {

// Deeper schemas than this are hostile input, not tables (keeps recursion bounded).
constexpr int kMaxTypeDepth = 200;

Status Invalid(std::string msg) { return Status::Corruption(std::move(msg), kInvalidSchemaClass); }

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

// "decimal", "decimal(p,s)", "decimal( p , s )".
bool ParseDecimalName(std::string_view s, int* precision, int* scale) {
  if (s.substr(0, 7) != "decimal") return false;
  s.remove_prefix(7);
  if (s.empty()) {
    *precision = 10;
    *scale = 0;
    return true;
  }
  size_t i = 0;
  auto skip = [&] {
    while (i < s.size() && IsSpace(s[i])) ++i;
  };
  auto number = [&](int* out) {
    skip();
    size_t start = i;
    int v = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 4) v = v * 10 + (s[i++] - '0');
    *out = v;
    skip();
    return i > start;
  };
  skip();
  if (i >= s.size() || s[i++] != '(') return false;
  if (!number(precision) || i >= s.size() || s[i++] != ',') return false;
  if (!number(scale) || i >= s.size() || s[i++] != ')') return false;
  return i == s.size();
}

Result<TypePtr> PrimitiveFromName(std::string_view name) {
  struct Entry {
    std::string_view name;
    TypePtr (*make)();
  };
  static const Entry kTypes[] = {
      {"string", DataType::String},       {"long", DataType::Int64},
      {"integer", DataType::Int32},       {"short", DataType::Int16},
      {"byte", DataType::Int8},           {"float", DataType::Float},
      {"double", DataType::Double},       {"boolean", DataType::Boolean},
      {"binary", DataType::Binary},       {"date", DataType::Date},
      {"timestamp", DataType::Timestamp}, {"timestamp_ntz", DataType::TimestampNtz},
      {"void", DataType::Null},
  };
  for (const Entry& e : kTypes) {
    if (e.name == name) return e.make();
  }
  int p, s;
  if (name.substr(0, 7) == "decimal") {
    if (!ParseDecimalName(name, &p, &s))
      return Invalid("malformed decimal type '" + std::string(name) + "'");
    if (p < 1 || p > 38 || s < 0 || s > p) {
      return Status::Unsupported("decimal precision/scale out of range: " + std::string(name),
                                 kUnsupportedDataTypeClass);
    }
    return DataType::Decimal(p, s);
  }
  return Status::Unsupported("unsupported data type '" + std::string(name) + "'",
                             kUnsupportedDataTypeClass);
}

Result<TypePtr> ParseType(element e, int depth);

Result<bool> GetBoolField(object obj, std::string_view key, std::string_view what) {
  element v;
  bool b;
  if (obj.at_key(key).get(v))
    return Invalid(std::string(what) + ": missing '" + std::string(key) + "'");
  if (v.get_bool().get(b))
    return Invalid(std::string(what) + ": '" + std::string(key) + "' is not a boolean");
  return b;
}

Result<Field> ParseField(element e, int depth) {
  object obj;
  if (e.get_object().get(obj)) return Invalid("struct field is not an object");
  Field f;
  std::string_view name;
  element v;
  if (obj.at_key("name").get(v) || v.get_string().get(name)) {
    return Invalid("struct field without a string 'name'");
  }
  f.name = std::string(name);
  if (obj.at_key("type").get(v)) return Invalid("field '" + f.name + "': missing 'type'");
  auto type = ParseType(v, depth + 1);
  if (!type.ok()) return type.status().WithContext("field '" + f.name + "'");
  f.type = type.MoveValue();
  SILT_ASSIGN_OR_RETURN(f.nullable, GetBoolField(obj, "nullable", "field '" + f.name + "'"));
  if (!obj.at_key("metadata").get(v) && !v.is_null()) {
    if (v.type() != element_type::OBJECT) {
      return Invalid("field '" + f.name + "': 'metadata' is not an object");
    }
    AppendJsonElement(&f.metadata_json, v);
  } else {
    f.metadata_json = "{}";
  }
  return f;
}

Result<TypePtr> ParseType(element e, int depth) {
  if (depth > kMaxTypeDepth) return Invalid("schema nested too deeply");
  std::string_view name;
  if (!e.get_string().get(name)) {
    if (name == "variant") {
      return Status::Unsupported("the variant type is not supported", kUnsupportedDataTypeClass);
    }
    return PrimitiveFromName(name);
  }
  object obj;
  if (e.get_object().get(obj)) return Invalid(std::string("a type is a ") + JsonTypeName(e.type()));
  element v;
  if (obj.at_key("type").get(v) || v.get_string().get(name)) {
    return Invalid("type object without a string 'type'");
  }
  if (name == "struct") {
    simdjson::dom::array fields;
    if (obj.at_key("fields").get(v) || v.get_array().get(fields)) {
      return Invalid("struct type without a 'fields' array");
    }
    std::vector<Field> out;
    out.reserve(fields.size());
    for (element fe : fields) {
      SILT_ASSIGN_OR_RETURN(Field f, ParseField(fe, depth));
      out.push_back(std::move(f));
    }
    return DataType::Struct(std::move(out));
  }
  if (name == "array") {
    if (obj.at_key("elementType").get(v)) return Invalid("array type without 'elementType'");
    SILT_ASSIGN_OR_RETURN(TypePtr element_type, ParseType(v, depth + 1));
    SILT_ASSIGN_OR_RETURN(bool contains_null, GetBoolField(obj, "containsNull", "array type"));
    return DataType::List(std::move(element_type), contains_null);
  }
  if (name == "map") {
    if (obj.at_key("keyType").get(v)) return Invalid("map type without 'keyType'");
    SILT_ASSIGN_OR_RETURN(TypePtr key, ParseType(v, depth + 1));
    if (obj.at_key("valueType").get(v)) return Invalid("map type without 'valueType'");
    SILT_ASSIGN_OR_RETURN(TypePtr value, ParseType(v, depth + 1));
    SILT_ASSIGN_OR_RETURN(bool value_contains_null,
                          GetBoolField(obj, "valueContainsNull", "map type"));
    return DataType::Map(std::move(key), std::move(value), value_contains_null);
  }
  return Status::Unsupported("unsupported data type '" + std::string(name) + "'",
                             kUnsupportedDataTypeClass);
}

Result<element> ParseJson(simdjson::dom::parser& parser, std::string_view json) {
  element doc;
  auto err = parser.parse(json.data(), json.size()).get(doc);
  if (err) return Invalid(std::string("invalid JSON: ") + simdjson::error_message(err));
  return doc;
}

void AppendType(std::string* out, const DataType& t);

void AppendField(std::string* out, const Field& f) {
  *out += "{\"name\":";
  AppendJacksonString(out, f.name);
  *out += ",\"type\":";
  AppendType(out, *f.type);
  *out += f.nullable ? ",\"nullable\":true" : ",\"nullable\":false";
  *out += ",\"metadata\":";
  *out += f.metadata_json.empty() ? "{}" : f.metadata_json;
  *out += '}';
}

void AppendStruct(std::string* out, const std::vector<Field>& fields) {
  *out += "{\"type\":\"struct\",\"fields\":[";
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) *out += ',';
    AppendField(out, fields[i]);
  }
  *out += "]}";
}

void AppendType(std::string* out, const DataType& t) {
  switch (t.id()) {
    case TypeId::kStruct:
      AppendStruct(out, t.fields());
      break;
    case TypeId::kList:
      *out += "{\"type\":\"array\",\"elementType\":";
      AppendType(out, *t.element_type());
      *out += t.contains_null() ? ",\"containsNull\":true}" : ",\"containsNull\":false}";
      break;
    case TypeId::kMap:
      *out += "{\"type\":\"map\",\"keyType\":";
      AppendType(out, *t.key_type());
      *out += ",\"valueType\":";
      AppendType(out, *t.value_type());
      *out += t.value_contains_null() ? ",\"valueContainsNull\":true}"
                                      : ",\"valueContainsNull\":false}";
      break;
    default:
      *out += '"';
      *out += PrimitiveTypeName(t);
      *out += '"';
  }
}

// Looks `key` up in a field's metadata object.
bool MetadataElement(simdjson::dom::parser& parser, const Field& field, std::string_view key,
                     element* out) {
  if (field.metadata_json.size() <= 2) return false;  // "", "{}"
  element doc;
  if (parser.parse(field.metadata_json.data(), field.metadata_json.size()).get(doc)) return false;
  return !doc.at_key(key).get(*out);
}

simdjson::dom::parser& MetadataParser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

// Appends "key":value_json to a field's metadata object that lacks `key`.
void AddMetadataEntry(std::string* metadata_json, std::string_view key,
                      const std::string& value_json) {
  std::string entry;
  AppendJacksonString(&entry, key);
  entry += ":" + value_json;
  if (metadata_json->size() <= 2) {
    *metadata_json = "{" + entry + "}";
  } else {
    metadata_json->insert(metadata_json->size() - 1, "," + entry);
  }
}

Result<TypePtr> PhysicalType(const TypePtr& type, ColumnMappingMode mode);

Result<Field> PhysicalField(const Field& f, ColumnMappingMode mode) {
  Field out;
  out.name = PhysicalNameOrName(f, mode);
  out.nullable = f.nullable;
  out.metadata_json = f.metadata_json;
  std::optional<int64_t> id = ColumnMappingId(f);
  if (!id && mode == ColumnMappingMode::kId) {
    return Status::Corruption(
        "column mapping mode id: field '" + f.name + "' has no " + kColumnMappingIdKey,
        errc::kDeltaColumnMappingMissingFieldId);
  }
  if (id && !MetadataInt(f, kParquetFieldIdKey))
    AddMetadataEntry(&out.metadata_json, kParquetFieldIdKey, std::to_string(*id));
  // Delta's getColumnMappingMetadata: the nested ids go to the Parquet writer as well.
  element nested;
  if (MetadataElement(MetadataParser(), f, kColumnMappingNestedIdsKey, &nested) &&
      nested.is_object()) {
    std::string json;
    AppendJsonElement(&json, nested);
    out.metadata_json = WithMetadataEntry(out.metadata_json, kParquetFieldNestedIdsKey, json);
  }
  SILT_ASSIGN_OR_RETURN(out.type, PhysicalType(f.type, mode));
  return out;
}

Result<TypePtr> PhysicalType(const TypePtr& type, ColumnMappingMode mode) {
  switch (type->id()) {
    case TypeId::kStruct: {
      std::vector<Field> fields;
      fields.reserve(type->fields().size());
      for (const Field& f : type->fields()) {
        SILT_ASSIGN_OR_RETURN(Field pf, PhysicalField(f, mode));
        fields.push_back(std::move(pf));
      }
      return DataType::Struct(std::move(fields));
    }
    case TypeId::kList: {
      SILT_ASSIGN_OR_RETURN(TypePtr e, PhysicalType(type->element_type(), mode));
      return DataType::List(std::move(e), type->contains_null());
    }
    case TypeId::kMap: {
      SILT_ASSIGN_OR_RETURN(TypePtr k, PhysicalType(type->key_type(), mode));
      SILT_ASSIGN_OR_RETURN(TypePtr v, PhysicalType(type->value_type(), mode));
      return DataType::Map(std::move(k), std::move(v), type->value_contains_null());
    }
    default:
      return type;
  }
}

bool TypeEquals(const DataType& a, const DataType& b);

bool FieldsEqual(const std::vector<Field>& a, const std::vector<Field>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    auto meta = [](const std::string& m) -> std::string_view {
      if (m.empty()) return "{}";
      return m;
    };
    if (a[i].name != b[i].name || a[i].nullable != b[i].nullable ||
        meta(a[i].metadata_json) != meta(b[i].metadata_json) ||
        !TypeEquals(*a[i].type, *b[i].type)) {
      return false;
    }
  }
  return true;
}

bool TypeEquals(const DataType& a, const DataType& b) {
  if (a.id() != b.id()) return false;
  if (a.id() == TypeId::kDecimal) return a.precision() == b.precision() && a.scale() == b.scale();
  return FieldsEqual(a.fields(), b.fields());
}

}  // namespace

std::string PrimitiveTypeName(const DataType& t) {
  switch (t.id()) {
    case TypeId::kNull:
      return "void";
    case TypeId::kBoolean:
      return "boolean";
    case TypeId::kInt8:
      return "byte";
    case TypeId::kInt16:
      return "short";
    case TypeId::kInt32:
      return "integer";
    case TypeId::kInt64:
      return "long";
    case TypeId::kFloat:
      return "float";
    case TypeId::kDouble:
      return "double";
    case TypeId::kDecimal:
      return "decimal(" + std::to_string(t.precision()) + "," + std::to_string(t.scale()) + ")";
    case TypeId::kString:
      return "string";
    case TypeId::kBinary:
      return "binary";
    case TypeId::kDate:
      return "date";
    case TypeId::kTimestamp:
      return "timestamp";
    case TypeId::kTimestampNtz:
      return "timestamp_ntz";
    default:
      return "";
  }
}

Result<Schema> ParseSchemaString(std::string_view json) {
  thread_local simdjson::dom::parser parser;
  SILT_ASSIGN_OR_RETURN(element doc, ParseJson(parser, json));
  SILT_ASSIGN_OR_RETURN(TypePtr type, ParseType(doc, 0));
  if (type->id() != TypeId::kStruct) {
    return Invalid("schemaString is not a struct type but " + type->ToString());
  }
  return type->fields();
}

Result<TypePtr> ParseDataTypeJson(std::string_view json) {
  thread_local simdjson::dom::parser parser;
  SILT_ASSIGN_OR_RETURN(element doc, ParseJson(parser, json));
  return ParseType(doc, 0);
}

std::string SerializeSchema(const Schema& schema) {
  std::string out;
  out.reserve(64 + schema.size() * 64);
  AppendStruct(&out, schema);
  return out;
}

Result<ColumnMappingMode> ParseColumnMappingMode(const std::optional<std::string>& value) {
  if (!value) return ColumnMappingMode::kNone;
  std::string v = AsciiLower(*value);
  if (v == "none") return ColumnMappingMode::kNone;
  if (v == "name") return ColumnMappingMode::kName;
  if (v == "id") return ColumnMappingMode::kId;
  return Status::Unsupported("unsupported column mapping mode '" + *value + "'",
                             errc::kDeltaModeNotSupported);
}

std::optional<std::string> MetadataString(const Field& field, std::string_view key) {
  element v;
  std::string_view s;
  if (!MetadataElement(MetadataParser(), field, key, &v) || v.get_string().get(s)) {
    return std::nullopt;
  }
  return std::string(s);
}

std::optional<int64_t> MetadataInt(const Field& field, std::string_view key) {
  element v;
  int64_t i;
  if (!MetadataElement(MetadataParser(), field, key, &v) || v.get_int64().get(i)) {
    return std::nullopt;
  }
  return i;
}

std::optional<std::string> PhysicalName(const Field& field) {
  return MetadataString(field, kColumnMappingPhysicalNameKey);
}

std::optional<int64_t> ColumnMappingId(const Field& field) {
  return MetadataInt(field, kColumnMappingIdKey);
}

std::string PhysicalNameOrName(const Field& field, ColumnMappingMode mode) {
  if (mode == ColumnMappingMode::kNone) return field.name;
  std::optional<std::string> p = PhysicalName(field);
  return p ? *p : field.name;
}

Result<Schema> ToPhysicalSchema(const Schema& logical, ColumnMappingMode mode) {
  if (mode == ColumnMappingMode::kNone) return logical;
  Schema out;
  out.reserve(logical.size());
  for (const Field& f : logical) {
    SILT_ASSIGN_OR_RETURN(Field pf, PhysicalField(f, mode));
    out.push_back(std::move(pf));
  }
  return out;
}

namespace {

TypePtr AssignType(const TypePtr& type, int64_t* next_id, PhysicalNames names);

Field AssignField(const Field& f, int64_t* max_id, PhysicalNames names) {
  Field out = f;
  if (!ColumnMappingId(f))
    AddMetadataEntry(&out.metadata_json, kColumnMappingIdKey, std::to_string(++*max_id));
  if (!PhysicalName(f)) {
    std::string name;
    AppendJacksonString(
        &name, names == PhysicalNames::kLogical ? f.name : "col-" + Uuid::Random().ToString());
    AddMetadataEntry(&out.metadata_json, kColumnMappingPhysicalNameKey, name);
  }
  out.type = AssignType(f.type, max_id, names);
  return out;
}

TypePtr AssignType(const TypePtr& type, int64_t* max_id, PhysicalNames names) {
  switch (type->id()) {
    case TypeId::kStruct: {
      std::vector<Field> fields;
      for (const Field& f : type->fields()) fields.push_back(AssignField(f, max_id, names));
      return DataType::Struct(std::move(fields));
    }
    case TypeId::kList:
      return DataType::List(AssignType(type->element_type(), max_id, names), type->contains_null());
    case TypeId::kMap: {
      TypePtr k = AssignType(type->key_type(), max_id, names);
      return DataType::Map(std::move(k), AssignType(type->value_type(), max_id, names),
                           type->value_contains_null());
    }
    default:
      return type;
  }
}

// Delta's findMaxColumnId: the fields' ids and their nested ids.
void MaxId(const Field& f, int64_t* max_id) {
  if (auto id = ColumnMappingId(f)) *max_id = std::max(*max_id, *id);
  for (const auto& [path, id] : NestedColumnIds(f)) *max_id = std::max(*max_id, id);
  // A list's element and a map's key and value are fields of their type too.
  for (const Field& c : f.type->fields()) MaxId(c, max_id);
}

using NestedIds = std::vector<std::pair<std::string, int64_t>>;

Field NestField(const Field& f, int64_t* max_id);

// rewriteFieldIdsForIceberg's transform: `path` is the type's path from its field.
TypePtr NestType(const TypePtr& type, const std::string& path, NestedIds* ids, int64_t* max_id) {
  auto id_for = [&](const std::string& key) {
    for (const auto& [k, v] : *ids)
      if (k == key) return;
    ids->emplace_back(key, ++*max_id);
  };
  switch (type->id()) {
    case TypeId::kStruct: {
      std::vector<Field> fields;
      for (const Field& f : type->fields()) fields.push_back(NestField(f, max_id));
      return DataType::Struct(std::move(fields));
    }
    case TypeId::kList: {
      const std::string element = path + ".element";
      id_for(element);
      return DataType::List(NestType(type->element_type(), element, ids, max_id),
                            type->contains_null());
    }
    case TypeId::kMap: {
      const std::string key = path + ".key", value = path + ".value";
      id_for(key);
      TypePtr k = NestType(type->key_type(), key, ids, max_id);
      id_for(value);
      return DataType::Map(std::move(k), NestType(type->value_type(), value, ids, max_id),
                           type->value_contains_null());
    }
    default:
      return type;
  }
}

Field NestField(const Field& f, int64_t* max_id) {
  NestedIds ids = NestedColumnIds(f);
  const size_t before = ids.size();
  Field out = f;
  out.type = NestType(f.type, PhysicalNameOrName(f, ColumnMappingMode::kName), &ids, max_id);
  element present;
  if (ids.size() == before &&
      MetadataElement(MetadataParser(), f, kColumnMappingNestedIdsKey, &present) &&
      present.is_object()) {
    return out;  // nothing new: the metadata text stays as it is
  }
  std::string json = "{";
  for (const auto& [k, v] : ids) {
    if (json.size() > 1) json += ",";
    AppendJacksonString(&json, k);
    json += ":" + std::to_string(v);
  }
  out.metadata_json = WithMetadataEntry(f.metadata_json, kColumnMappingNestedIdsKey, json + "}");
  return out;
}

}  // namespace

Schema AssignColumnMapping(const Schema& logical, int64_t* max_column_id, PhysicalNames names) {
  // Existing ids first, so new ones never collide with them.
  for (const Field& f : logical) MaxId(f, max_column_id);
  Schema out;
  for (const Field& f : logical) out.push_back(AssignField(f, max_column_id, names));
  return out;
}

Schema AssignNestedColumnIds(const Schema& schema, int64_t* max_column_id) {
  for (const Field& f : schema) MaxId(f, max_column_id);
  Schema out;
  for (const Field& f : schema) out.push_back(NestField(f, max_column_id));
  return out;
}

std::string WithMetadataEntry(std::string_view metadata_json, std::string_view key,
                              std::string_view value_json) {
  std::string out = "{";
  auto put = [&](std::string_view k) {
    if (out.size() > 1) out += ",";
    AppendJacksonString(&out, k);
    out += ":";
  };
  simdjson::dom::parser parser;
  object obj;
  if (!parser.parse(metadata_json.data(), metadata_json.size()).get(obj)) {
    for (auto [k, v] : obj) {
      if (k == key) continue;
      put(k);
      AppendJsonElement(&out, v);
    }
  }
  if (!value_json.empty()) {
    put(key);
    out += value_json;
  }
  return out + "}";
}

std::vector<std::pair<std::string, int64_t>> NestedColumnIds(const Field& field) {
  std::vector<std::pair<std::string, int64_t>> out;
  element e;
  object obj;
  if (!MetadataElement(MetadataParser(), field, kColumnMappingNestedIdsKey, &e) || e.get(obj))
    return out;
  for (auto [k, v] : obj) {
    int64_t id;
    if (!v.get_int64().get(id)) out.emplace_back(std::string(k), id);
  }
  return out;
}

bool SchemaEquals(const Schema& a, const Schema& b) { return FieldsEqual(a, b); }

}  // namespace silt::delta
