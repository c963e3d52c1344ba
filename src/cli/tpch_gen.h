// The TPC-H data generator: the eight TPC-H tables with the specification's schemas, row counts
// per scale factor, keys and their cardinalities (sparse order keys, a third of customers without
// orders, partsupp's four suppliers per part and lineitem's supplier among them) and dbgen's value
// domains (4.2.2-4.2.3): the p_type/p_container syllables, p_brand, p_name of five of the 92
// colours, c_phone country codes from the nation, segments, priorities, ship modes/instructions,
// nations and regions, the date ranges and the flags derived from them, the p_retailprice formula,
// ps_supplycost/acctbal ranges, comments cut from a text of dbgen's grammar (Q13's
// '%special%requests%'), and "Customer … Complaints" in s_comment (Q16). So the specification's
// validation parameters select rows as in dbgen. Written as Delta tables (`silt delta gen-tpch`,
// bench/tpch_bench); their data files are plain Parquet that DuckDB reads. Not dbgen-exact: same
// domains and selectivities, different random values. Deterministic for a seed.
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
