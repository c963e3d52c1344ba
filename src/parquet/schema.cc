#include "parquet/schema.h"

#include <simdjson.h>

#include <climits>
#include <cmath>
#include <functional>
#include <map>
#include <string>

#include "common/error_classes.h"

namespace silt::parquet {
namespace {

Status SchemaError(const std::string& msg) {
  return Status::Corruption("invalid Parquet schema: " + msg, errc::kSiltParquetCorrupt);
}

// The flat depth-first element list as a tree.
struct RawNode {
  const SchemaElement* e = nullptr;
  std::vector<RawNode> children;
  bool is_group() const { return !e->type.has_value() || e->num_children.value_or(0) > 0; }
  Repetition rep() const { return e->repetition_type.value_or(Repetition::REQUIRED); }
};

Status BuildRaw(const std::vector<SchemaElement>& els, size_t* pos, int depth, RawNode* out) {
  if (depth > 256) return SchemaError("nesting deeper than 256 levels");
  if (*pos >= els.size()) return SchemaError("num_children exceeds the element count");
  out->e = &els[*pos];
  ++*pos;
  int32_t n = out->e->num_children.value_or(0);
  if (n < 0) return SchemaError("negative num_children in '" + out->e->name + "'");
  if (n == 0 && !out->e->type && depth > 0) {
    // An empty group: legal in the format, but it has no leaves; keep it as an empty struct.
    return Status::OK();
  }
  if (static_cast<size_t>(n) > els.size() - *pos)
    return SchemaError("num_children exceeds the element count");
  out->children.resize(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i)
    SILT_RETURN_NOT_OK(BuildRaw(els, pos, depth + 1, &out->children[i]));
  return Status::OK();
}

bool IsList(const SchemaElement& e) {
  return (e.logical_type && e.logical_type->kind == LogicalType::LIST) ||
         e.converted_type == ConvertedType::LIST;
}
bool IsMap(const SchemaElement& e) {
  return (e.logical_type && e.logical_type->kind == LogicalType::MAP) ||
         e.converted_type == ConvertedType::MAP || e.converted_type == ConvertedType::MAP_KEY_VALUE;
}

// The logical type of a primitive leaf and how its values convert.
Status ResolveLeaf(const SchemaElement& e, ColumnNode* n) {
  if (!e.type) return SchemaError("leaf '" + e.name + "' has no type");
  n->physical_type = *e.type;
  n->type_length = e.type_length.value_or(0);
  const LogicalType* lt = e.logical_type ? &*e.logical_type : nullptr;
  LogicalType::Kind k = lt ? lt->kind : LogicalType::NONE;
  std::optional<ConvertedType> ct = e.converted_type;
  auto decimal = [&](LeafConversion conv) -> Status {
    int p = lt && k == LogicalType::DECIMAL ? lt->decimal_precision : e.precision.value_or(0);
    int s = lt && k == LogicalType::DECIMAL ? lt->decimal_scale : e.scale.value_or(0);
    if (p <= 0 || p > 38 || s < 0 || s > p)
      return Status::NotImplemented("column '" + e.name + "': decimal(" + std::to_string(p) + "," +
                                        std::to_string(s) + ") is outside decimal(1..38)",
                                    errc::kSiltParquetUnsupportedType);
    n->type = DataType::Decimal(p, s);
    n->conversion = conv;
    return Status::OK();
  };
  bool is_decimal =
      k == LogicalType::DECIMAL || (k == LogicalType::NONE && ct == ConvertedType::DECIMAL);
  if (k == LogicalType::UNKNOWN) {
    n->type = DataType::Null();
    return Status::OK();
  }
  n->conversion = LeafConversion::kNone;
  switch (*e.type) {
    case Type::BOOLEAN:
      n->type = DataType::Boolean();
      return Status::OK();
    case Type::INT32: {
      if (is_decimal) return decimal(LeafConversion::kInt32ToDecimal);
      if (k == LogicalType::DATE || ct == ConvertedType::DATE) {
        n->type = DataType::Date();
        return Status::OK();
      }
      if (k == LogicalType::TIME || ct == ConvertedType::TIME_MILLIS) {
        n->type = DataType::Int64();
        n->conversion = LeafConversion::kInt32MillisToMicros;
        return Status::OK();
      }
      int bw = 32;
      bool sign = true;
      if (k == LogicalType::INTEGER) {
        bw = lt->bit_width;
        sign = lt->is_signed;
      } else if (ct) {
        switch (*ct) {
          case ConvertedType::INT_8:
            bw = 8;
            break;
          case ConvertedType::INT_16:
            bw = 16;
            break;
          case ConvertedType::UINT_8:
            bw = 8;
            sign = false;
            break;
          case ConvertedType::UINT_16:
            bw = 16;
            sign = false;
            break;
          case ConvertedType::UINT_32:
            sign = false;
            break;
          default:
            break;
        }
      }
      if (sign && bw == 8) {
        n->type = DataType::Int8();
        n->conversion = LeafConversion::kInt32ToInt8;
      } else if ((sign && bw == 16) || (!sign && bw == 8)) {
        n->type = DataType::Int16();
        n->conversion = LeafConversion::kInt32ToInt16;
      } else if (!sign && bw == 32) {
        n->type = DataType::Int64();
        n->conversion = LeafConversion::kUInt32ToInt64;
      } else {
        n->type = DataType::Int32();
      }
      return Status::OK();
    }
    case Type::INT64: {
      if (is_decimal) return decimal(LeafConversion::kInt64ToDecimal);
      if (k == LogicalType::TIMESTAMP) {
        n->type = lt->is_adjusted_to_utc ? DataType::Timestamp() : DataType::TimestampNtz();
        n->conversion = lt->unit == TimeUnit::MILLIS  ? LeafConversion::kMillisToMicros
                        : lt->unit == TimeUnit::NANOS ? LeafConversion::kNanosToMicros
                                                      : LeafConversion::kNone;
        return Status::OK();
      }
      if (k == LogicalType::NONE &&
          (ct == ConvertedType::TIMESTAMP_MILLIS || ct == ConvertedType::TIMESTAMP_MICROS)) {
        n->type = DataType::Timestamp();
        n->conversion = ct == ConvertedType::TIMESTAMP_MILLIS ? LeafConversion::kMillisToMicros
                                                              : LeafConversion::kNone;
        return Status::OK();
      }
      if (k == LogicalType::TIME || ct == ConvertedType::TIME_MICROS) {
        n->type = DataType::Int64();
        n->conversion = lt && lt->unit == TimeUnit::NANOS ? LeafConversion::kNanosToMicros
                                                          : LeafConversion::kNone;
        return Status::OK();
      }
      bool unsigned64 = (k == LogicalType::INTEGER && !lt->is_signed) ||
                        (k == LogicalType::NONE && ct == ConvertedType::UINT_64);
      if (unsigned64) {
        n->type = DataType::Decimal(20, 0);
        n->conversion = LeafConversion::kUInt64ToDecimal;
      } else {
        n->type = DataType::Int64();
      }
      return Status::OK();
    }
    case Type::INT96:
      n->type = DataType::Timestamp();
      n->conversion = LeafConversion::kInt96ToMicros;
      return Status::OK();
    case Type::FLOAT:
      n->type = DataType::Float();
      return Status::OK();
    case Type::DOUBLE:
      n->type = DataType::Double();
      return Status::OK();
    case Type::BYTE_ARRAY:
      if (is_decimal) return decimal(LeafConversion::kBytesToDecimal);
      if (k == LogicalType::STRING || k == LogicalType::ENUM || k == LogicalType::JSON ||
          (k == LogicalType::NONE &&
           (ct == ConvertedType::UTF8 || ct == ConvertedType::ENUM || ct == ConvertedType::JSON)))
        n->type = DataType::String();
      else
        n->type = DataType::Binary();
      return Status::OK();
    case Type::FIXED_LEN_BYTE_ARRAY:
      if (n->type_length <= 0)
        return SchemaError("FIXED_LEN_BYTE_ARRAY '" + e.name + "' without a positive type_length");
      if (is_decimal) {
        if (n->type_length > 16)
          return Status::NotImplemented(
              "column '" + e.name + "': decimal stored in more than 16 bytes",
              errc::kSiltParquetUnsupportedType);
        return decimal(LeafConversion::kBytesToDecimal);
      }
      if (k == LogicalType::UUID && n->type_length == 16) {
        n->type = DataType::String();
        n->conversion = LeafConversion::kUuidToString;
      } else if (k == LogicalType::FLOAT16 && n->type_length == 2) {
        n->type = DataType::Float();
        n->conversion = LeafConversion::kFloat16ToFloat;
      } else if (ct == ConvertedType::INTERVAL) {
        return Status::NotImplemented("column '" + e.name + "': INTERVAL is not supported",
                                      errc::kSiltParquetUnsupportedType);
      } else {
        n->type = DataType::Binary();
      }
      return Status::OK();
  }
  return SchemaError("leaf '" + e.name + "' has unknown physical type " +
                     std::to_string(static_cast<int>(*e.type)));
}

class Builder {
 public:
  // Builds the node for `raw`; `force_required` treats a repeated node as the element itself.
  Status Build(const RawNode& raw, int16_t def_before, int16_t rep_before, bool force_required,
               std::vector<std::string> path, ColumnNode* out) {
    const SchemaElement& e = *raw.e;
    out->name = e.name;
    out->field_id = e.field_id;
    path.push_back(e.name);
    Repetition r = force_required ? Repetition::REQUIRED : raw.rep();
    if (r == Repetition::REPEATED) {
      // A bare repeated field: a required list of required elements.
      out->kind = ColumnNode::kList;
      out->nullable = false;
      SetListLevels(out, def_before, rep_before, false);
      ColumnNode elem;
      path.pop_back();  // the element is this same node; Build adds its name again
      SILT_RETURN_NOT_OK(Build(raw, out->elem_def, out->elem_rep, true, path, &elem));
      elem.name = "element";
      out->type = DataType::List(elem.type, false);
      out->children.push_back(std::move(elem));
      return Status::OK();
    }
    bool optional = r == Repetition::OPTIONAL;
    out->nullable = optional;
    if (raw.is_group() && IsMap(e) && raw.children.size() == 1 &&
        raw.children[0].rep() == Repetition::REPEATED && raw.children[0].is_group()) {
      const RawNode& kv = raw.children[0];
      if (kv.children.size() != 1 && kv.children.size() != 2)
        return SchemaError("map '" + e.name + "' must have a key and a value");
      out->kind = ColumnNode::kMap;
      SetListLevels(out, def_before, rep_before, optional);
      path.push_back(kv.e->name);
      ColumnNode key, value;
      SILT_RETURN_NOT_OK(Build(kv.children[0], out->elem_def, out->elem_rep, false, path, &key));
      if (kv.children.size() == 1) {
        // A map without values (seen in the wild) reads as the list of its keys.
        out->kind = ColumnNode::kList;
        key.name = "element";
        out->type = DataType::List(key.type, key.nullable);
        out->children.push_back(std::move(key));
        return Status::OK();
      }
      SILT_RETURN_NOT_OK(Build(kv.children[1], out->elem_def, out->elem_rep, false, path, &value));
      key.name = "key";
      value.name = "value";
      out->type = DataType::Map(key.type, value.type, value.nullable);
      out->children.push_back(std::move(key));
      out->children.push_back(std::move(value));
      return Status::OK();
    }
    if (raw.is_group() && IsList(e)) {
      if (raw.children.size() != 1 || raw.children[0].rep() != Repetition::REPEATED)
        return SchemaError("list '" + e.name + "' must have exactly one repeated child");
      const RawNode& rc = raw.children[0];
      out->kind = ColumnNode::kList;
      SetListLevels(out, def_before, rep_before, optional);
      // LogicalTypes.md backward-compatibility rules: is the repeated node the element itself?
      bool rc_is_element =
          !rc.is_group() || rc.children.size() > 1 ||
          (rc.children.size() == 1 && rc.children[0].rep() == Repetition::REPEATED) ||
          rc.e->name == "array" || rc.e->name == e.name + "_tuple" || rc.children.empty();
      ColumnNode elem;
      if (rc_is_element) {
        SILT_RETURN_NOT_OK(Build(rc, out->elem_def, out->elem_rep, true, path, &elem));
      } else {
        path.push_back(rc.e->name);
        SILT_RETURN_NOT_OK(Build(rc.children[0], out->elem_def, out->elem_rep, false, path, &elem));
      }
      elem.name = "element";
      out->type = DataType::List(elem.type, elem.nullable);
      out->children.push_back(std::move(elem));
      return Status::OK();
    }
    out->slot_def = def_before;
    out->def_level = static_cast<int16_t>(def_before + (optional ? 1 : 0));
    out->ctx_rep = rep_before;
    if (raw.is_group()) {
      out->kind = ColumnNode::kStruct;
      std::vector<Field> fields;
      for (const RawNode& c : raw.children) {
        ColumnNode child;
        SILT_RETURN_NOT_OK(Build(c, out->def_level, rep_before, false, path, &child));
        fields.push_back(Field{child.name, child.type, child.nullable, ""});
        out->children.push_back(std::move(child));
      }
      out->type = DataType::Struct(std::move(fields));
      return Status::OK();
    }
    out->kind = ColumnNode::kLeaf;
    out->max_def = out->def_level;
    out->max_rep = rep_before;
    out->path = std::move(path);
    out->leaf_index = next_leaf_++;
    return ResolveLeaf(e, out);
  }

 private:
  static void SetListLevels(ColumnNode* n, int16_t def_before, int16_t rep_before, bool optional) {
    n->slot_def = def_before;
    n->ctx_rep = rep_before;
    n->def_level = static_cast<int16_t>(def_before + (optional ? 1 : 0));
    n->elem_def = static_cast<int16_t>(n->def_level + 1);
    n->elem_rep = static_cast<int16_t>(rep_before + 1);
  }
  int next_leaf_ = 0;
};

void AppendTree(const ColumnNode& n, int indent, std::string* out) {
  std::string pad(static_cast<size_t>(indent) * 2, ' ');
  *out += pad + n.name + ": " + n.type->ToString();
  if (!n.nullable) *out += " not null";
  if (n.kind == ColumnNode::kLeaf) {
    *out += "  (" + std::string(TypeName(n.physical_type));
    if (n.physical_type == Type::FIXED_LEN_BYTE_ARRAY)
      *out += "(" + std::to_string(n.type_length) + ")";
    *out += ", def " + std::to_string(n.max_def) + ", rep " + std::to_string(n.max_rep) + ")";
  }
  if (n.field_id) *out += "  field_id=" + std::to_string(*n.field_id);
  *out += "\n";
  for (const auto& c : n.children) AppendTree(c, indent + 1, out);
}

}  // namespace

void FileSchema::IndexLeaves(const ColumnNode& n) {
  if (n.kind == ColumnNode::kLeaf) {
    if (leaves_.size() <= static_cast<size_t>(n.leaf_index)) leaves_.resize(n.leaf_index + 1);
    leaves_[n.leaf_index] = &n;
    return;
  }
  for (const auto& c : n.children) IndexLeaves(c);
}

Result<FileSchema> FileSchema::Make(const std::vector<SchemaElement>& elements) {
  if (elements.empty()) return SchemaError("no schema elements");
  FileSchema fs;
  fs.elements_ = elements;
  RawNode root;
  size_t pos = 0;
  SILT_RETURN_NOT_OK(BuildRaw(fs.elements_, &pos, 0, &root));
  if (pos != fs.elements_.size()) return SchemaError("elements after the root's children");
  Builder b;
  for (const RawNode& c : root.children) {
    ColumnNode n;
    SILT_RETURN_NOT_OK(b.Build(c, 0, 0, false, {}, &n));
    fs.schema_.push_back(Field{n.name, n.type, n.nullable, ""});
    fs.columns_.push_back(std::move(n));
  }
  for (const auto& c : fs.columns_) fs.IndexLeaves(c);
  for (const ColumnNode* l : fs.leaves_)
    if (!l) return SchemaError("leaf numbering has gaps");
  return fs;
}

std::string FileSchema::ToString() const {
  std::string out;
  for (const auto& c : columns_) AppendTree(c, 0, &out);
  return out;
}

int PhysicalByteWidth(const ColumnNode& leaf) {
  switch (leaf.physical_type) {
    case Type::BOOLEAN:
      return 1;
    case Type::INT32:
    case Type::FLOAT:
      return 4;
    case Type::INT64:
    case Type::DOUBLE:
      return 8;
    case Type::INT96:
      return 12;
    case Type::FIXED_LEN_BYTE_ARRAY:
      return leaf.type_length;
    case Type::BYTE_ARRAY:
      return 0;
  }
  return 0;
}

int DecimalBytesForPrecision(int precision) {
  // Smallest n with 2^(8n-1) > 10^p - 1.
  int bytes = 1;
  long double limit = 1;
  for (int i = 0; i < precision; ++i) limit *= 10;
  while (std::ldexp(1.0L, 8 * bytes - 1) < limit) ++bytes;
  return bytes;
}

namespace {

// Spark's convention (ParquetUtils.FIELD_ID_METADATA_KEY): a struct field whose metadata holds
// "parquet.field.id" is written with that Parquet field_id (Delta column mapping sets it), and
// Delta's "parquet.field.nested.ids" (IcebergCompatV2) gives the ids of the list elements and map
// keys/values below it, keyed by their path from the field ("col-1.element", "col-1.value.key").
struct FieldIds {
  std::optional<int32_t> id;
  std::map<std::string, int32_t, std::less<>> nested;
};

FieldIds FieldIdsFromMetadata(const std::string& metadata_json) {
  FieldIds out;
  if (metadata_json.find("parquet.field.") == std::string::npos) return out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(metadata_json).get(doc)) return out;
  auto int32 = [](simdjson::dom::element e) -> std::optional<int32_t> {
    int64_t id;
    if (e.get_int64().get(id) || id < INT32_MIN || id > INT32_MAX) return std::nullopt;
    return static_cast<int32_t>(id);
  };
  simdjson::dom::element id;
  if (!doc["parquet.field.id"].get(id)) out.id = int32(id);
  simdjson::dom::object nested;
  if (!doc["parquet.field.nested.ids"].get(nested)) {
    for (auto [k, v] : nested)
      if (auto i = int32(v)) out.nested.emplace(std::string(k), *i);
  }
  return out;
}

// `ids`: the enclosing struct field's ids; `path`: this node's path from that field.
Status AppendElements(const std::string& name, const TypePtr& type, bool nullable,
                      std::vector<SchemaElement>* out, const FieldIds& ids, const std::string& path,
                      std::optional<int32_t> field_id) {
  auto nested_id = [&](const std::string& p) -> std::optional<int32_t> {
    auto it = ids.nested.find(p);
    if (it == ids.nested.end()) return std::nullopt;
    return it->second;
  };
  SchemaElement e;
  e.name = name;
  e.field_id = field_id;
  e.repetition_type = nullable ? Repetition::OPTIONAL : Repetition::REQUIRED;
  auto logical = [](LogicalType::Kind k) {
    LogicalType lt;
    lt.kind = k;
    return lt;
  };
  switch (type->id()) {
    case TypeId::kNull:
      e.type = Type::INT32;
      e.logical_type = logical(LogicalType::UNKNOWN);
      e.repetition_type = Repetition::OPTIONAL;
      break;
    case TypeId::kBoolean:
      e.type = Type::BOOLEAN;
      break;
    case TypeId::kInt8:
    case TypeId::kInt16: {
      e.type = Type::INT32;
      LogicalType lt = logical(LogicalType::INTEGER);
      lt.bit_width = type->id() == TypeId::kInt8 ? 8 : 16;
      lt.is_signed = true;
      e.logical_type = lt;
      e.converted_type = type->id() == TypeId::kInt8 ? ConvertedType::INT_8 : ConvertedType::INT_16;
      break;
    }
    case TypeId::kInt32:
      e.type = Type::INT32;
      break;
    case TypeId::kInt64:
      e.type = Type::INT64;
      break;
    case TypeId::kFloat:
      e.type = Type::FLOAT;
      break;
    case TypeId::kDouble:
      e.type = Type::DOUBLE;
      break;
    case TypeId::kDecimal: {
      int p = type->precision();
      if (p <= 9) {
        e.type = Type::INT32;
      } else if (p <= 18) {
        e.type = Type::INT64;
      } else {
        e.type = Type::FIXED_LEN_BYTE_ARRAY;
        e.type_length = DecimalBytesForPrecision(p);
      }
      LogicalType lt = logical(LogicalType::DECIMAL);
      lt.decimal_precision = p;
      lt.decimal_scale = type->scale();
      e.logical_type = lt;
      e.converted_type = ConvertedType::DECIMAL;
      e.precision = p;
      e.scale = type->scale();
      break;
    }
    case TypeId::kString:
      e.type = Type::BYTE_ARRAY;
      e.logical_type = logical(LogicalType::STRING);
      e.converted_type = ConvertedType::UTF8;
      break;
    case TypeId::kBinary:
      e.type = Type::BYTE_ARRAY;
      break;
    case TypeId::kDate:
      e.type = Type::INT32;
      e.logical_type = logical(LogicalType::DATE);
      e.converted_type = ConvertedType::DATE;
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: {
      e.type = Type::INT64;
      LogicalType lt = logical(LogicalType::TIMESTAMP);
      lt.unit = TimeUnit::MICROS;
      lt.is_adjusted_to_utc = type->id() == TypeId::kTimestamp;
      e.logical_type = lt;
      // TIMESTAMP_MICROS means "adjusted to UTC"; a local timestamp carries only the LogicalType.
      if (lt.is_adjusted_to_utc) e.converted_type = ConvertedType::TIMESTAMP_MICROS;
      break;
    }
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos: {
      e.type = Type::INT64;
      LogicalType lt = logical(LogicalType::TIMESTAMP);
      lt.unit = TimeUnit::NANOS;
      lt.is_adjusted_to_utc = type->id() == TypeId::kTimestampNanos;
      e.logical_type = lt;
      break;
    }
    case TypeId::kTime: {
      e.type = Type::INT64;
      LogicalType lt = logical(LogicalType::TIME);
      lt.unit = TimeUnit::NANOS;
      lt.is_adjusted_to_utc = false;
      e.logical_type = lt;
      break;
    }
    case TypeId::kStruct: {
      if (type->fields().empty())
        return Status::InvalidArgument("cannot write empty struct '" + name + "' to Parquet",
                                       errc::kDeltaEmptyData);
      e.num_children = static_cast<int32_t>(type->fields().size());
      out->push_back(e);
      for (const Field& f : type->fields()) {
        const FieldIds child = FieldIdsFromMetadata(f.metadata_json);
        SILT_RETURN_NOT_OK(
            AppendElements(f.name, f.type, f.nullable, out, child, f.name, child.id));
      }
      return Status::OK();
    }
    case TypeId::kList: {
      e.num_children = 1;
      e.logical_type = logical(LogicalType::LIST);
      e.converted_type = ConvertedType::LIST;
      out->push_back(e);
      SchemaElement rep;
      rep.name = "list";
      rep.repetition_type = Repetition::REPEATED;
      rep.num_children = 1;
      out->push_back(rep);
      const std::string element = path + ".element";
      return AppendElements("element", type->element_type(), type->contains_null(), out, ids,
                            element, nested_id(element));
    }
    case TypeId::kMap: {
      e.num_children = 1;
      e.logical_type = logical(LogicalType::MAP);
      e.converted_type = ConvertedType::MAP;
      out->push_back(e);
      SchemaElement kv;
      kv.name = "key_value";
      kv.repetition_type = Repetition::REPEATED;
      kv.num_children = 2;
      out->push_back(kv);
      const std::string key = path + ".key", value = path + ".value";
      SILT_RETURN_NOT_OK(
          AppendElements("key", type->key_type(), false, out, ids, key, nested_id(key)));
      return AppendElements("value", type->value_type(), type->value_contains_null(), out, ids,
                            value, nested_id(value));
    }
    case TypeId::kYearMonthInterval:
    case TypeId::kDayTimeInterval:
    case TypeId::kCalendarInterval:
      // Spark's Parquet data source does not support interval types either.
      return Status::InvalidArgument("The Parquet datasource doesn't support the column `" + name +
                                         "` of the type \"" + type->ToString() + "\".",
                                     errc::kUnsupportedDataTypeForDatasource);
  }
  out->push_back(e);
  return Status::OK();
}

}  // namespace

Result<std::vector<SchemaElement>> MakeParquetSchema(const Schema& schema) {
  std::vector<SchemaElement> out;
  SchemaElement root;
  root.name = "spark_schema";
  root.num_children = static_cast<int32_t>(schema.size());
  out.push_back(root);
  for (const Field& f : schema) {
    const FieldIds ids = FieldIdsFromMetadata(f.metadata_json);
    SILT_RETURN_NOT_OK(AppendElements(f.name, f.type, f.nullable, &out, ids, f.name, ids.id));
  }
  return out;
}

}  // namespace silt::parquet
