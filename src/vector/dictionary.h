// DictionaryVector: a string/binary column kept dictionary-encoded, as Parquet stores it. The
// distinct values are held once (`dictionary`, shared by every vector cut from the same column
// chunk) and each row is an int32 index into them, so a scan does not copy every row's bytes and
// a filter or a hash can work once per distinct value and then map the indices.
//
// Consumers that cannot take a dictionary get it flattened at their boundary with Flatten (the one
// place that turns it back into a plain Vector). EncodedChunk is a DataChunk whose columns may be
// either kind; Flatten(EncodedChunk) gives the plain DataChunk.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "vector/vector.h"

namespace silt {

struct DictionaryVector {
  // The distinct values (a string or binary Vector without nulls). Never null.
  std::shared_ptr<const Vector> dictionary;
  // One entry per row; a null row's index is 0 and must not be read (the dictionary may be empty).
  std::vector<int32_t> indices;
  // A byte per row (1 = valid); empty means "no nulls" (as Vector's validity).
  std::vector<uint8_t> validity;

  size_t size() const { return indices.size(); }
  const TypePtr& type() const { return dictionary->type(); }
  bool IsValid(size_t i) const { return validity.empty() || validity[i] != 0; }
  bool may_have_nulls() const { return !validity.empty(); }
  std::string_view GetString(size_t i) const {
    return dictionary->GetString(static_cast<size_t>(indices[i]));
  }
  // Checks the invariants (every valid row's index inside the dictionary, validity sized, a
  // string or binary dictionary without nulls); Invalid otherwise.
  Status Validate() const;
};

// The rows of `d` as a plain Vector of the dictionary's type (appended to *out, which must have
// that type).
void AppendFlattened(const DictionaryVector& d, Vector* out);
Vector Flatten(const DictionaryVector& d);
// Rows sel[0..n) of `d` as a plain Vector (appended to *out).
void AppendFlattenedSelected(const DictionaryVector& d, const uint32_t* sel, size_t n, Vector* out);

// A chunk whose columns are plain Vectors or DictionaryVectors: for column i, dict[i] holds the
// rows when it has a value (then flat[i] is an empty Vector of the column's type), else flat[i].
struct EncodedChunk {
  std::vector<Vector> flat;
  std::vector<std::optional<DictionaryVector>> dict;
  size_t num_rows = 0;

  size_t size() const { return num_rows; }
  size_t num_columns() const { return flat.size(); }
  bool is_dictionary(size_t i) const { return dict[i].has_value(); }
};

// Every column as a plain Vector (dictionary columns flattened; plain ones moved).
DataChunk Flatten(EncodedChunk&& chunk);

}  // namespace silt
