#include "ops/restore.h"

#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common/error_classes.h"
#include "delta/scan.h"
#include "io/object_store_factory.h"
#include "io/path.h"
#include "io/read_confinement.h"
#include "ops/dml.h"
#include "ops/ops.h"

namespace silt::ops {

namespace {

// Delta's file identity under reconciliation: the path plus the deletion vector's id.
std::string FileId(const delta::AddFile& f) {
  return f.path + "\n" + (f.deletion_vector ? f.deletion_vector->UniqueId() : std::string());
}

// Whether the data file (and its on-disk deletion vector) can still be read.
Result<bool> FileAvailable(const delta::Snapshot& snapshot, const delta::AddFile& f) {
  SILT_ASSIGN_OR_RETURN(DeltaPath p, ParseDeltaPath(f.path));
  if (p.absolute) {
    if (const ReadConfinement* c = snapshot.read_confinement().get())
      SILT_RETURN_NOT_OK(CheckConfinedRead(*c, snapshot.store()->root(), p.path));
    Result<std::shared_ptr<RandomAccessFile>> file = OpenLocationForRead(p.path);
    if (!file.ok()) {
      if (file.status().code() == StatusCode::kNotFound) return false;
      return file.status();
    }
  } else {
    Result<ObjectMeta> head = snapshot.store()->Head(p.path);
    if (!head.ok()) {
      if (head.status().code() == StatusCode::kNotFound) return false;
      return head.status();
    }
  }
  if (f.deletion_vector) {
    auto dv = delta::LoadDeletionVector(snapshot, f);
    if (!dv.ok()) return false;
  }
  return true;
}

}  // namespace

Result<RestoreResult> Restore(std::shared_ptr<ObjectStore> store,
                              std::shared_ptr<const delta::Snapshot> current,
                              std::shared_ptr<const delta::Snapshot> target,
                              const RestoreOptions& options) {
  SILT_RETURN_NOT_OK(RequireClock(options.clock, "RestoreOptions"));
  const delta::Snapshot& from = *current;
  const delta::Snapshot& to = *target;

  std::unordered_set<std::string> current_ids, wanted_ids;
  for (const auto& f : from.files()) current_ids.insert(FileId(f));
  for (const auto& f : to.files()) wanted_ids.insert(FileId(f));

  std::vector<const delta::AddFile*> to_add, to_remove;
  for (const auto& f : to.files()) {
    if (!current_ids.count(FileId(f))) to_add.push_back(&f);
  }
  for (const auto& f : from.files()) {
    if (!wanted_ids.count(FileId(f))) to_remove.push_back(&f);
  }

  if (!options.ignore_missing_files) {
    std::vector<std::string> missing;
    for (const delta::AddFile* f : to_add) {
      SILT_ASSIGN_OR_RETURN(bool ok, FileAvailable(to, *f));
      if (!ok && missing.size() < 100) missing.push_back(f->path);
    }
    if (!missing.empty()) {
      std::string list;
      for (const auto& m : missing) list += (list.empty() ? "" : ",") + m;
      // Spark raises an IllegalArgumentException with this text (no error class of its own).
      return Status::InvalidArgument(
          "Not all files from version " + std::to_string(to.version()) +
              " are available in file system. Missed files (top 100 files): " + list +
              ". Please use more recent version or timestamp for restoring. To disable "
              "check update option spark.sql.files.ignoreMissingFiles",
          errc::kDeltaRestoreMissedDataFiles);
    }
  }

  delta::TransactionOptions topts = options.txn;
  topts.clock = options.clock;
  delta::Transaction txn(store, current, topts);
  txn.SetReadScope(delta::ReadScope::kWholeTable);  // the whole table state is replaced
  const int64_t now = options.clock->NowMillis();
  int64_t removed_size = 0, restored_size = 0;
  for (const delta::AddFile* f : to_remove) {
    txn.Remove(delta::MakeRemove(*f, now));
    removed_size += f->size;
  }
  for (const delta::AddFile* f : to_add) {
    delta::AddFile a = *f;
    a.data_change = true;
    txn.Add(std::move(a));
    restored_size += f->size;
  }
  if (!(to.metadata() == from.metadata())) {
    delta::Metadata m = to.metadata();
    m.id = from.metadata().id;  // the table keeps its identity
    txn.UpdateMetadata(std::move(m));
  }

  int64_t table_size = 0;
  for (const auto& f : to.files()) table_size += f.size;
  txn.SetOperation("RESTORE", options.parameters);
  const std::vector<std::pair<std::string, int64_t>> metrics = {
      {"tableSizeAfterRestore", table_size},
      {"numOfFilesAfterRestore", static_cast<int64_t>(to.files().size())},
      {"numRemovedFiles", static_cast<int64_t>(to_remove.size())},
      {"numRestoredFiles", static_cast<int64_t>(to_add.size())},
      {"removedFilesSize", removed_size},
      {"restoredFilesSize", restored_size},
  };
  for (const auto& [k, v] : metrics) txn.SetMetric(k, v);
  SILT_ASSIGN_OR_RETURN(delta::CommitResult committed, txn.Commit());
  RestoreResult r;
  r.version = committed.version;
  r.table_size_after_restore = metrics[0].second;
  r.num_of_files_after_restore = metrics[1].second;
  r.num_removed_files = metrics[2].second;
  r.num_restored_files = metrics[3].second;
  r.removed_files_size = metrics[4].second;
  r.restored_files_size = metrics[5].second;
  return r;
}

}  // namespace silt::ops
