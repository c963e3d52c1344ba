#include "parquet/row_ranges.h"

#include <map>

namespace silt::parquet {

std::vector<std::pair<int64_t, int64_t>> PageAlignedRowRanges(const ParquetFile& file, int rg,
                                                              std::span<const int> columns,
                                                              int64_t target_rows) {
  const int64_t rows = file.metadata().row_groups[static_cast<size_t>(rg)].num_rows;
  // Rows where pages start, with how many of the columns read start one there.
  std::map<int64_t, int> starts;
  bool splittable = rows > target_rows && !columns.empty();
  for (size_t k = 0; splittable && k < columns.size(); ++k) {
    const ColumnNode& col = file.schema().columns()[static_cast<size_t>(columns[k])];
    auto oi = col.kind == ColumnNode::kLeaf ? file.ReadOffsetIndex(rg, col.leaf_index)
                                            : Result<OffsetIndex>(Status::NotFound("nested"));
    splittable = oi.ok();
    if (!splittable) break;
    for (const auto& loc : oi->page_locations)
      if (loc.first_row_index > 0 && loc.first_row_index < rows) ++starts[loc.first_row_index];
  }
  std::vector<std::pair<int64_t, int64_t>> out;
  int64_t begin = 0;
  if (splittable) {
    // Each cut: the page start shared by most columns among [begin + target, begin + 2 * target),
    // so that few columns decode a page twice and slice it (a dictionary falling back to PLAIN
    // shifts one column's pages).
    for (auto it = starts.lower_bound(begin + target_rows); it != starts.end();
         it = starts.lower_bound(begin + target_rows)) {
      auto best = it;
      for (auto j = it; j != starts.end() && j->first < begin + 2 * target_rows; ++j)
        if (j->second > best->second) best = j;
      out.emplace_back(begin, best->first);
      begin = best->first;
    }
  }
  out.emplace_back(begin, rows);
  return out;
}

}  // namespace silt::parquet
