// TRUNCATE: every live file of a snapshot removed unread in one commit, operation "TRUNCATE"
// (Delta's DeltaOperations.Truncate). It runs through the DML primitive (ops::ApplyRowChanges), so
// append-only tables, table features and the change data feed are handled as a DELETE without
// WHERE handles them. The data stays readable by time travel until VACUUM.
#pragma once

#include <memory>

#include "common/status.h"
#include "delta/snapshot.h"
#include "io/object_store.h"
#include "ops/dml.h"

namespace silt::ops {

// Truncates the table at `store` as of `snapshot` (its files loaded; normally the latest
// version). `options.clock` is required. Result: DELETE's metrics; no commit (version nullopt)
// when the snapshot has no files. Errors: as ApplyRowChanges (DELTA_CANNOT_MODIFY_APPEND_ONLY,
// DELTA_UNSUPPORTED_FEATURES_FOR_WRITE, conflicts, storage errors), kErrorMissingClock.
Result<DmlResult> Truncate(std::shared_ptr<ObjectStore> store,
                           std::shared_ptr<const delta::Snapshot> snapshot,
                           const DmlOptions& options);

}  // namespace silt::ops
