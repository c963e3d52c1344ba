#include "delta/operations_history.h"

namespace silt::delta {

const Schema& OperationsHistorySchema() {
  static const Schema schema = [] {
    auto str = [](const char* name) { return Field{name, DataType::String(), true, "{}"}; };
    auto ts = [](const char* name) { return Field{name, DataType::Timestamp(), true, "{}"}; };
    return Schema{str("account_id"),
                  str("workspace_id"),
                  ts("start_time"),
                  ts("end_time"),
                  str("metastore_name"),
                  str("metastore_id"),
                  str("catalog_name"),
                  str("schema_name"),
                  str("table_id"),
                  str("table_name"),
                  str("operation_type"),
                  str("operation_id"),
                  str("operation_status"),
                  Field{"operation_metrics", DataType::Map(DataType::String(), DataType::String()),
                        true, "{}"},
                  str("usage_unit"),
                  Field{"usage_quantity", DataType::Decimal(38, 18), true, "{}"}};
  }();
  return schema;
}

}  // namespace silt::delta
