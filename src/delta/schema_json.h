// Delta's schemaString (the JSON of a Spark StructType) ↔ silt Schema, and column mapping.
//
// Field metadata is carried verbatim (re-serialized compactly in Jackson style) in
// Field::metadata_json: column mapping ids and physical names, parquet.field.id, comments,
// invariants, generation/identity/default expressions, type changes, char/varchar, collations.
// Array elements and map keys/values have no metadata in Spark (metadata_json stays "").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error_classes.h"
#include "common/status.h"
#include "vector/types.h"

namespace silt::delta {

inline constexpr const char* kUnsupportedDataTypeClass = errc::kUnsupportedDatatype;
inline constexpr const char* kInvalidSchemaClass = errc::kDeltaInvalidSchemaString;

// Metadata keys used by column mapping.
inline constexpr const char* kColumnMappingIdKey = "delta.columnMapping.id";
inline constexpr const char* kColumnMappingPhysicalNameKey = "delta.columnMapping.physicalName";
inline constexpr const char* kParquetFieldIdKey = "parquet.field.id";
// IcebergCompatV2's ids of array elements and map keys/values (Delta's rewriteFieldIdsForIceberg)
// and their copy in the physical schema, which the Parquet writer puts on those nodes.
inline constexpr const char* kColumnMappingNestedIdsKey = "delta.columnMapping.nested.ids";
inline constexpr const char* kParquetFieldNestedIdsKey = "parquet.field.nested.ids";

// Parses a schemaString. Malformed JSON or layout → Corruption (kInvalidSchemaClass); an unknown
// type name, "variant", geometry/geography → Unsupported (kUnsupportedDataTypeClass).
// Accepted primitive names: string, long, integer, short, byte, float, double, boolean, binary,
// date, timestamp, timestamp_ntz, void, decimal, decimal(p,s) (spaces allowed, p <= 38).
Result<Schema> ParseSchemaString(std::string_view json);
// One type: a JSON type name string ("integer") or a struct/array/map object.
Result<TypePtr> ParseDataTypeJson(std::string_view json);

// Compact JSON exactly as Spark writes it:
// {"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,"metadata":{}}]}.
std::string SerializeSchema(const Schema& schema);
// The Delta name of a primitive type ("integer", "long", "decimal(10,2)"); "" for nested.
std::string PrimitiveTypeName(const DataType& type);

enum class ColumnMappingMode : uint8_t { kNone, kName, kId };

// Reads delta.columnMapping.mode ("none" when absent; case-insensitive). Unknown →
// Unsupported "DELTA_MODE_NOT_SUPPORTED".
Result<ColumnMappingMode> ParseColumnMappingMode(const std::optional<std::string>& value);

// Field metadata lookups; nullopt when the key is absent, of the wrong type, or the metadata is
// not valid JSON.
std::optional<std::string> MetadataString(const Field& field, std::string_view key);
std::optional<int64_t> MetadataInt(const Field& field, std::string_view key);
// delta.columnMapping.physicalName / delta.columnMapping.id.
std::optional<std::string> PhysicalName(const Field& field);
std::optional<int64_t> ColumnMappingId(const Field& field);

// `metadata_json` (a field's metadata object) with `key` set to the JSON text `value_json`
// (replaced when present, removed when `value_json` is empty).
std::string WithMetadataEntry(std::string_view metadata_json, std::string_view key,
                              std::string_view value_json);

// A field's delta.columnMapping.nested.ids, in their order: the ids of the array elements and map
// keys/values below it (down to the next struct field), keyed by their path from the field's
// physical name ("col-1.element", "col-1.value.key"). Empty when absent or malformed.
std::vector<std::pair<std::string, int64_t>> NestedColumnIds(const Field& field);

// Delta's rewriteFieldIdsForIceberg (IcebergCompatV2): every struct field, nested ones too, gets
// delta.columnMapping.nested.ids ({} when it holds no array or map), and each array element and
// map key/value without an id gets the next one after *max_column_id, in pre-order (a map's key
// and its nested types before its value). Existing ids are kept; the paths use the physical
// names, so column mapping is assigned first.
Schema AssignNestedColumnIds(const Schema& schema, int64_t* max_column_id);

// The name of `field` in data files: its physical name under name/id mode (the logical name
// when it has none, as Spark does), the logical name under none.
std::string PhysicalNameOrName(const Field& field, ColumnMappingMode mode);

// The physical schema: under name/id mode every struct field (nested in structs, array elements
// and map keys/values too) is renamed to its physical name and, when it has a column mapping id,
// gets "parquet.field.id" in its metadata (and "parquet.field.nested.ids" when it has nested ids).
// Under id mode a field without an id is Corruption
// ("DELTA_COLUMN_MAPPING_MISSING_FIELD_ID"). Under none the schema is returned unchanged.
Result<Schema> ToPhysicalSchema(const Schema& logical, ColumnMappingMode mode);

// Column mapping for a new table (Spark's DeltaColumnMapping.assignColumnIdAndPhysicalName):
// every struct field (nested in structs, array elements and map keys/values too) without a
// delta.columnMapping.id gets the next id after *max_column_id in pre-order (a parent before its
// children), and one without a physical name gets "col-<random uuid>". Existing ids and names are
// kept; *max_column_id ends as the largest id in the schema, nested ids included
// (delta.columnMapping.maxColumnId).
// kLogical names the physical column after the logical one instead: for a table that turns on
// column mapping (mode none → name), whose data files already use the logical names.
enum class PhysicalNames : uint8_t { kRandom, kLogical };
Schema AssignColumnMapping(const Schema& logical, int64_t* max_column_id,
                           PhysicalNames names = PhysicalNames::kRandom);

// Field-by-field equality including names, nullability and metadata text.
bool SchemaEquals(const Schema& a, const Schema& b);

}  // namespace silt::delta
