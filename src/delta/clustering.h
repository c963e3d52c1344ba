// Liquid clustering (Delta protocol "Clustered Table"): a table whose protocol has the
// `clustering` writer feature (with `domainMetadata`) keeps its clustering columns in the
// `delta.clustering` domain, {"clusteringColumns":[["col"],["s","x"]]}, each column a path of
// physical names (column mapping). OPTIMIZE clusters the files by these columns (a Hilbert
// curve, ops/optimize.h) and tags the files it writes: clusteringProvider "liquid", and the
// ZCUBE_ID / ZCUBE_ZORDER_BY tags that group them into z-cubes (Delta's ZCubeInfo).
//
// silt clusters by top-level columns only; a nested clustering column (CLUSTER BY (s.x)) is
// NOT_IMPLEMENTED. Tables written by Spark/Databricks with top-level clustering columns are read,
// maintained and re-clustered like silt's own.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "delta/actions.h"
#include "delta/schema_json.h"
#include "vector/types.h"

namespace silt::delta {

class Snapshot;

inline constexpr const char* kClusteringDomain = "delta.clustering";
inline constexpr const char* kClusteringFeature = "clustering";
inline constexpr const char* kLiquidClusteringProvider = "liquid";
// AddFile tags of Delta's ZCubeInfo: the z-cube (one OPTIMIZE bin) a file belongs to, and the
// JSON list of the (logical) columns it was clustered by.
inline constexpr const char* kZCubeIdTag = "ZCUBE_ID";
inline constexpr const char* kZCubeZOrderByTag = "ZCUBE_ZORDER_BY";
// spark.databricks.delta.clusteredTable.numClusteringColumnsLimit's default.
inline constexpr int kMaxClusteringColumns = 4;

// The physical column paths of a delta.clustering domain configuration. Corruption when the
// JSON is not {"clusteringColumns": [[string, ...], ...]}.
Result<std::vector<std::vector<std::string>>> ParseClusteringDomain(std::string_view json);
// The delta.clustering domain action for `logical` top-level columns of `schema` (the table's
// logical schema, with column mapping metadata): physical names under column mapping.
DomainMetadata ClusteringDomainFor(const Schema& schema, ColumnMappingMode mode,
                                   const std::vector<std::string>& logical);

// Whether the table's protocol supports clustering (Delta's ClusteredTableUtils.isSupported).
bool IsClusteredTable(const Snapshot& snapshot);
// The logical names of the table's clustering columns (in order), empty when the table is not
// clustered, has no delta.clustering domain, or was set to CLUSTER BY NONE. A domain column that
// is not in the schema is Corruption; a nested one NotImplemented.
Result<std::vector<std::string>> ClusteringColumns(const Snapshot& snapshot);

// Resolves and checks CLUSTER BY columns against a table's logical schema and configuration, as
// Delta does: each exists (DELTA_COLUMN_NOT_FOUND_IN_SCHEMA), no duplicates
// (COLUMN_ALREADY_EXISTS), at most `limit` (DELTA_CLUSTER_BY_INVALID_NUM_COLUMNS), of a
// data-skipping type (DELTA_CLUSTERING_COLUMNS_DATATYPE_NOT_SUPPORTED) and among the columns
// with statistics (delta.dataSkippingNumIndexedCols / delta.dataSkippingStatsColumns;
// DELTA_CLUSTERING_COLUMN_MISSING_STATS). Returns the columns' names as the schema spells them.
Result<std::vector<std::string>> ResolveClusteringColumns(const Schema& schema,
                                                          const StringMap& configuration,
                                                          const std::vector<std::string>& columns,
                                                          int limit = kMaxClusteringColumns);

// The JSON list of names, e.g. ["a","b"] (ZCUBE_ZORDER_BY, operation parameters).
std::string ClusteringColumnsJson(const std::vector<std::string>& names);

}  // namespace silt::delta
