// Writer of the maintenance operations-history table (spec A.7; layout in
// delta/operations_history.h): one row per operation the service ran, appended as an ordinary
// Delta commit to `<warehouse>/.silt_system/storage/maintenance_operations_history`, created (with
// delta::OperationsHistorySchema()) on first use. Readers query it with SQL as
// system.storage.maintenance_operations_history.
//
// Values: start_time / end_time from the injected clock; operation_status "SUCCESSFUL" or
// "FAILED: INTERNAL_ERROR" (the error class goes to operation_metrics["error_class"]);
// usage_unit "CPU_SECONDS", usage_quantity the CPU seconds the operation's thread used, as
// decimal(38,18); account/workspace/metastore ids from the writer's options (empty by default).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "io/object_store.h"
#include "vector/vector.h"

namespace silt::maintenance {

inline constexpr char kStatusSuccessful[] = "SUCCESSFUL";
inline constexpr char kStatusFailed[] = "FAILED: INTERNAL_ERROR";
inline constexpr char kUsageUnitCpuSeconds[] = "CPU_SECONDS";

struct OperationRecord {
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  std::string catalog_name;
  std::string schema_name;
  std::string table_id;        // the Delta table's metaData.id
  std::string table_name;      // the catalog name, or the path of a path table
  std::string operation_type;  // DELETE, PURGE, VACUUM, COMPACTION, CHECKPOINT, LOG_CLEANUP
  std::string operation_id;    // uuid
  std::string operation_status = kStatusSuccessful;
  std::vector<std::pair<std::string, std::string>> metrics;  // operation_metrics, in this order
  double cpu_seconds = 0;
};

struct HistoryWriterOptions {
  std::string account_id;
  std::string workspace_id;
  std::string metastore_name;
  std::string metastore_id;
};

class HistoryWriter {
 public:
  // `history_store`: a store rooted at the history table's location.
  HistoryWriter(std::shared_ptr<ObjectStore> history_store, std::shared_ptr<Clock> clock,
                HistoryWriterOptions options = {})
      : store_(std::move(history_store)), clock_(std::move(clock)), options_(std::move(options)) {}

  // Appends the records in one commit (creating the table on first use; a concurrent creator is
  // handled by appending after it). No commit for an empty list.
  Status Append(const std::vector<OperationRecord>& records);

  // The rows as a chunk of the A.7 schema (exposed for tests).
  Result<DataChunk> ToChunk(const std::vector<OperationRecord>& records) const;

 private:
  std::shared_ptr<ObjectStore> store_;
  std::shared_ptr<Clock> clock_;
  HistoryWriterOptions options_;
};

// Opens the history table's store below `warehouse` (a location io/object_store_factory.h opens).
Result<std::shared_ptr<ObjectStore>> OpenHistoryStore(const std::string& warehouse,
                                                      std::shared_ptr<Clock> clock);

// CPU seconds used by this process so far, every thread (CLOCK_PROCESS_CPUTIME_ID): a duration
// measure, not a source of "now". An operation's usage_quantity is the difference across it, so
// it counts the pool threads that scanned, rewrote and deleted for it, not only the calling
// thread (the service runs one operation at a time; other work of the process during it — a
// second service in the same process — is counted too).
double ProcessCpuSeconds();

}  // namespace silt::maintenance
