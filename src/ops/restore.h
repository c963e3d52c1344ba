// RESTORE (Delta's RestoreTableCommand): one commit that re-adds the files of a target version
// missing from the current one (with the deletion vectors they had then) and removes the current
// files the target does not have, both with dataChange=true, and restores the target's metadata
// (keeping the table's id; the protocol is never downgraded). Before committing, every file to
// re-add must still exist: files removed by VACUUM make the version unrestorable, and the table
// is left untouched.
#pragma once

#include <cstdint>
#include <memory>

#include "common/clock.h"
#include "common/status.h"
#include "delta/snapshot.h"
#include "delta/transaction.h"
#include "io/object_store.h"

namespace silt::ops {

struct RestoreOptions {
  // Required (no system-clock default): commit timestamp and the removes' deletionTimestamp.
  std::shared_ptr<Clock> clock;
  // spark.sql.files.ignoreMissingFiles: restore even when files of the target are gone.
  bool ignore_missing_files = false;
  // operationParameters of the RESTORE commit: {"version": "<n>"} or {"timestamp": "\"<text>\""}.
  delta::StringMap parameters;
  delta::TransactionOptions txn;  // its clock is replaced by `clock`
};

// Spark's RESTORE metrics (operationMetrics and the statement's one output row).
struct RestoreResult {
  int64_t version = -1;  // the RESTORE commit
  int64_t table_size_after_restore = 0;
  int64_t num_of_files_after_restore = 0;
  int64_t num_removed_files = 0;
  int64_t num_restored_files = 0;
  int64_t removed_files_size = 0;
  int64_t restored_files_size = 0;
};

// Restores the table at `store` from `current` (its latest snapshot, files loaded) to `target`
// (an older snapshot of the same table, files loaded). Errors: DELTA_RESTORE_MISSED_DATA_FILES
// (up to 100 missing paths) unless ignore_missing_files; kErrorMissingClock; the commit's errors
// (write support, conflicts with concurrent writers: the whole table is the read set).
Result<RestoreResult> Restore(std::shared_ptr<ObjectStore> store,
                              std::shared_ptr<const delta::Snapshot> current,
                              std::shared_ptr<const delta::Snapshot> target,
                              const RestoreOptions& options);

}  // namespace silt::ops
