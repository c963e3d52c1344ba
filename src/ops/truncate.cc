#include "ops/truncate.h"

#include <utility>

namespace silt::ops {

Result<DmlResult> Truncate(std::shared_ptr<ObjectStore> store,
                           std::shared_ptr<const delta::Snapshot> snapshot,
                           const DmlOptions& options) {
  RowChanges changes;
  changes.operation = "TRUNCATE";
  changes.metric_names = MetricNames::kDelete;
  for (const delta::AddFile& f : snapshot->files()) {
    FileRowDeletion d;
    d.file = f;
    d.all_rows = true;
    changes.deletions.push_back(std::move(d));
  }
  return ApplyRowChanges(std::move(store), std::move(snapshot), std::move(changes), options);
}

}  // namespace silt::ops
