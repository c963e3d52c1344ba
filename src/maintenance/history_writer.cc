#include "maintenance/history_writer.h"

#include <time.h>

#include <cmath>

#include "common/error_classes.h"
#include "delta/operations_history.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "io/object_store_factory.h"
#include "vector/value.h"

namespace silt::maintenance {

Result<DataChunk> HistoryWriter::ToChunk(const std::vector<OperationRecord>& records) const {
  const Schema& schema = delta::OperationsHistorySchema();
  DataChunk c = DataChunk::FromSchema(schema);
  const TypePtr map_type = schema[13].type;
  for (const OperationRecord& r : records) {
    c.columns[0].AppendString(options_.account_id);
    c.columns[1].AppendString(options_.workspace_id);
    c.columns[2].Append<int64_t>(r.start_ms * 1000);
    c.columns[3].Append<int64_t>(r.end_ms * 1000);
    c.columns[4].AppendString(options_.metastore_name);
    c.columns[5].AppendString(options_.metastore_id);
    c.columns[6].AppendString(r.catalog_name);
    c.columns[7].AppendString(r.schema_name);
    c.columns[8].AppendString(r.table_id);
    c.columns[9].AppendString(r.table_name);
    c.columns[10].AppendString(r.operation_type);
    c.columns[11].AppendString(r.operation_id);
    c.columns[12].AppendString(r.operation_status);
    std::vector<Value> kv;
    for (const auto& [k, v] : r.metrics) {
      kv.push_back(Value::String(k));
      kv.push_back(Value::String(v));
    }
    SILT_RETURN_NOT_OK(c.columns[13].AppendValue(Value::Nested(map_type, std::move(kv))));
    c.columns[14].AppendString(kUsageUnitCpuSeconds);
    // decimal(38,18): unscaled = seconds * 10^18, from whole nanoseconds (the clock's resolution).
    const int128_t nanos = static_cast<int128_t>(std::llround(std::max(0.0, r.cpu_seconds) * 1e9));
    SILT_RETURN_NOT_OK(c.columns[15].AppendValue(Value::Decimal(38, 18, nanos * 1000000000)));
  }
  return c;
}

Status HistoryWriter::Append(const std::vector<OperationRecord>& records) {
  if (records.empty()) return Status::OK();
  SILT_ASSIGN_OR_RETURN(DataChunk chunk, ToChunk(records));
  delta::TransactionOptions txn;
  txn.clock = clock_;
  delta::DataWriteOptions write;
  write.clock = clock_;
  Result<bool> exists = store_->DirExists("_delta_log");
  SILT_RETURN_NOT_OK(exists.status());
  if (!*exists) {
    delta::CreateTableOptions create;
    create.txn = txn;
    create.write = write;
    create.name = delta::kOperationsHistoryTable;
    Result<delta::CommitResult> made =
        delta::CreateTable(store_, delta::OperationsHistorySchema(), {chunk}, create);
    if (made.ok()) return Status::OK();
    // Another process created it first: append below.
    if (made.status().error_class() != errc::kDeltaTableAlreadyExists) return made.status();
  }
  return delta::AppendRows(store_, {chunk}, write, txn).status();
}

Result<std::shared_ptr<ObjectStore>> OpenHistoryStore(const std::string& warehouse,
                                                      std::shared_ptr<Clock> clock) {
  return OpenObjectStore(ChildLocation(warehouse, delta::kOperationsHistoryKey), std::move(clock));
}

double ProcessCpuSeconds() {
  timespec ts{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

}  // namespace silt::maintenance
