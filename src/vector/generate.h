// Deterministic generated data for any schema: used by `silt parquet gen`, the demo, tests and
// benchmarks. The same (schema, rows, seed) always gives the same values.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "vector/vector.h"

namespace silt {

struct GenerateOptions {
  uint64_t seed = 42;
  double null_fraction = 0.1;  // for nullable fields
  int string_cardinality = 0;  // > 0: strings drawn from this many distinct values
  int max_list_length = 4;
};

// Returns `rows` rows of `schema`.
DataChunk GenerateData(const Schema& schema, size_t rows, const GenerateOptions& options = {});

// Named schemas for tools: "all" (every type, flat and nested), "flat", "nested", "int64",
// "double", "dict_string", "plain_string". NotFound for other names.
Result<Schema> NamedTestSchema(const std::string& name);

}  // namespace silt
