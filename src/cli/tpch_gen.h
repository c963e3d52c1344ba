// A TPC-H-like data generator: the eight TPC-H tables with their schemas, row counts per scale
// factor, key relationships and value distributions close to dbgen's (uniform keys, the
// documented date ranges, flags derived from dates as the spec says), written as Delta tables.
// Not dbgen-exact: same shapes and selectivities, different random values. Deterministic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace silt::cli {

struct TpchOptions {
  double scale = 1.0;
  int64_t rows_per_file = 2'000'000;
  uint64_t seed = 19920101;
};

// Writes <dir>/<table> for each table (a Delta table each). Returns the table names.
Result<std::vector<std::string>> GenerateTpch(const std::string& dir, const TpchOptions& options);

}  // namespace silt::cli
