// The Parquet schema of a file as a tree, its mapping to silt's logical types, and back.
//
// Reading: FileSchema::Make turns the flat, depth-first SchemaElement list of a footer into a tree
// of nodes, computes definition/repetition levels, and resolves the LIST/MAP annotations
// (including the legacy 2-level and Hive/Avro/Thrift layouts of LogicalTypes.md) into a
// ColumnNode tree whose shape is the silt type: struct / list / map / primitive leaf.
// Writing: MakeParquetSchema turns a silt Schema into Spark-style SchemaElements (root
// "spark_schema", 3-level LIST list/element, MAP key_value/key/value, LogicalType + ConvertedType).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "parquet/metadata.h"
#include "vector/types.h"

namespace silt::parquet {

// How a leaf's physical values become the logical type's values.
enum class LeafConversion : uint8_t {
  kNone,  // physical layout equals the Vector layout (int32, int64, float, double, bool, bytes)
  kInt32ToInt8,  // INT32 annotated INT(8) / INT(16) / UINT(8)
  kInt32ToInt16,
  kUInt32ToInt64,        // UINT(32)
  kUInt64ToDecimal,      // UINT(64) → decimal(20,0)
  kInt32ToDecimal,       // decimal on INT32
  kInt64ToDecimal,       // decimal on INT64
  kBytesToDecimal,       // decimal on FLBA / BYTE_ARRAY (big-endian two's complement)
  kInt96ToMicros,        // INT96 timestamp → micros since epoch
  kMillisToMicros,       // TIMESTAMP/TIME(MILLIS)
  kNanosToMicros,        // TIMESTAMP/TIME(NANOS)
  kInt32MillisToMicros,  // TIME(MILLIS) on INT32 → bigint micros
  kFloat16ToFloat,
  kUuidToString,  // FLBA(16) UUID → canonical 8-4-4-4-12 text
  kInt32ToInt64,  // widening on read (type evolution)
};

// A node of the logical column tree (a field of the file's struct).
struct ColumnNode {
  enum Kind : uint8_t { kLeaf, kStruct, kList, kMap };
  Kind kind = kLeaf;
  std::string name;
  TypePtr type;  // the silt type of this node
  bool nullable = true;
  std::optional<int32_t> field_id;

  // Levels (see Dremel): def_level = definition level at which this node's value is non-null;
  // slot_def = level at which its parent is defined (its slot exists); for lists/maps,
  // elem_def = level at which an element exists, elem_rep = the repetition level of the repeated
  // node. ctx_rep = repetition level of the innermost repeated ancestor (0 at top level).
  int16_t def_level = 0;
  int16_t slot_def = 0;
  int16_t elem_def = 0;
  int16_t elem_rep = 0;
  int16_t ctx_rep = 0;

  // kStruct: fields; kList: one child (element); kMap: key, value.
  std::vector<ColumnNode> children;

  // kLeaf only.
  int leaf_index = -1;  // index of the column chunk in every row group
  Type physical_type = Type::INT32;
  int32_t type_length = 0;
  int16_t max_def = 0;
  int16_t max_rep = 0;
  LeafConversion conversion = LeafConversion::kNone;
  std::vector<std::string> path;  // path_in_schema

  // First leaf under this node (levels of any leaf describe the ancestors' structure).
  const ColumnNode& FirstLeaf() const { return kind == kLeaf ? *this : children[0].FirstLeaf(); }
};

class FileSchema {
 public:
  // Builds the tree; Corruption for malformed lists (num_children lying, leaf without type, ...),
  // NotImplemented for annotations silt cannot represent (e.g. INTERVAL, decimal precision > 38).
  static Result<FileSchema> Make(const std::vector<SchemaElement>& elements);

  // Top-level columns in file order.
  const std::vector<ColumnNode>& columns() const { return columns_; }
  // The silt schema (one field per top-level column).
  const Schema& schema() const { return schema_; }
  int num_leaves() const { return static_cast<int>(leaves_.size()); }
  const ColumnNode& leaf(int i) const { return *leaves_[i]; }
  // Index of a top-level column by name (exact, then case-insensitive), or -1.
  int FindColumn(const std::string& name) const { return FindField(schema_, name); }
  // A human-readable tree ("message spark_schema { optional int64 id; ... }").
  std::string ToString() const;
  const std::vector<SchemaElement>& elements() const { return elements_; }

 private:
  void IndexLeaves(const ColumnNode& n);
  std::vector<SchemaElement> elements_;
  std::vector<ColumnNode> columns_;
  Schema schema_;
  std::vector<const ColumnNode*> leaves_;
};

// silt schema → Parquet schema elements (writer side). A struct field (top-level or nested)
// whose metadata JSON has "parquet.field.id" gets that field_id, as Spark writes them for Delta
// column mapping; names may be physical names.
Result<std::vector<SchemaElement>> MakeParquetSchema(const Schema& schema);

// Bytes per PLAIN value of a leaf's physical type (BOOLEAN counts 1, as decoded); 0 for BYTE_ARRAY.
int PhysicalByteWidth(const ColumnNode& leaf);

// Bytes of the minimal FLBA for a decimal precision (1..38).
int DecimalBytesForPrecision(int precision);

}  // namespace silt::parquet
