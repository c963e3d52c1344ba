// Page-aligned row ranges of a row group: the work units of a parallel scan (the Delta scan and
// `silt parquet scan`), so several threads share one big row group and each decodes few pages of
// its neighbours.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "parquet/reader.h"

namespace silt::parquet {

// Row ranges [begin, end) covering row group rg, of about `target_rows` to 2 * `target_rows` rows
// each, cut where the page index says pages of most of `columns` (indices into the file schema's
// columns, the ones the scan reads) start. One range when the group has at most `target_rows`
// rows, no columns are read, or a column read has no page index or is nested (it would be decoded
// whole for every range).
std::vector<std::pair<int64_t, int64_t>> PageAlignedRowRanges(const ParquetFile& file, int rg,
                                                              std::span<const int> columns,
                                                              int64_t target_rows);

}  // namespace silt::parquet
