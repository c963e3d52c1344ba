// The maintenance operations-history table (spec A.7 of ../shared/specs/ttl-dfp-streaming.md):
// one row per maintenance operation (DELETE, PURGE, VACUUM, COMPACTION, ...) that the maintenance
// service ran, kept as an ordinary Delta table inside the warehouse so that SQL reads it and
// Spark can too. This header is the contract between the writer (src/maintenance/) and the
// catalog, which resolves the system names below to it; neither may hard-code the layout.
#pragma once

#include <string>

#include "vector/types.h"

namespace silt::delta {

// SQL names that resolve to the table: silt's own and the Databricks one (a view of the same rows).
inline constexpr char kSystemCatalog[] = "system";
inline constexpr char kSystemStorageSchema[] = "storage";
inline constexpr char kOperationsHistoryTable[] = "maintenance_operations_history";
inline constexpr char kDatabricksOperationsHistoryTable[] =
    "predictive_optimization_operations_history";

// Where the table lives, relative to the warehouse root. The leading dot keeps it out of the
// catalog's listing of unregistered tables in the default schema.
inline constexpr char kOperationsHistoryKey[] =
    ".silt_system/storage/maintenance_operations_history";

// The A.7 columns, in order, with their types (Databricks' system-table reference):
// account_id, workspace_id string; start_time, end_time timestamp (UTC); metastore_name,
// metastore_id, catalog_name, schema_name, table_id, table_name, operation_type, operation_id,
// operation_status string; operation_metrics map<string,string>; usage_unit string;
// usage_quantity decimal(38,18).
const Schema& OperationsHistorySchema();

}  // namespace silt::delta
