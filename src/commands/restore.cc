// RESTORE TABLE t TO VERSION AS OF n | TIMESTAMP AS OF '…' (Delta's RestoreTableCommand): one
// commit that re-adds the files of the target version missing from the current one (with the
// deletion vectors they had then) and removes the current files the target does not have, both
// with dataChange=true, and restores the target's metadata (the protocol is never downgraded).
// Before committing, every file to re-add must still exist: files removed by VACUUM make the
// version unrestorable, and the table is left untouched.
#include <unordered_set>

#include "commands/command.h"
#include "delta/scan.h"
#include "delta/transaction.h"
#include "io/object_store_factory.h"
#include "io/path.h"

namespace silt::commands {

namespace {

// Delta's file identity under reconciliation: the path plus the deletion vector's id.
std::string FileId(const delta::AddFile& f) {
  return f.path + "\n" + (f.deletion_vector ? f.deletion_vector->UniqueId() : std::string());
}

// Whether the data file (and its on-disk deletion vector) can still be read.
Result<bool> FileAvailable(const delta::Snapshot& snapshot, const delta::AddFile& f) {
  SILT_ASSIGN_OR_RETURN(DeltaPath p, ParseDeltaPath(f.path));
  if (p.absolute) {
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

// Time travel's timestamp-range errors, restated as RESTORE's own classes (RestoreTableCommand);
// both name the provided and the bounding commit timestamp, in that order.
Status RestoreTimestampError(const Status& st) {
  const std::string cls(st.error_class());
  const bool after = cls == "DELTA_TIMESTAMP_GREATER_THAN_COMMIT";
  if (!after && cls != "DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION") return st;
  std::vector<std::string> ts;  // the parenthesised timestamps of time travel's message
  for (size_t open = st.message().find('('); open != std::string::npos && ts.size() < 2;
       open = st.message().find('(', open + 1)) {
    size_t close = st.message().find(')', open);
    if (close == std::string::npos) break;
    ts.emplace_back(st.message().substr(open + 1, close - open - 1));
  }
  if (ts.size() < 2) return st;
  const std::string out_class = after ? "DELTA_CANNOT_RESTORE_TIMESTAMP_GREATER" : "DELTA_CANNOT_RESTORE_TIMESTAMP_EARLIER";
  return Status::InvalidArgument("[" + out_class + "] Cannot restore table to timestamp (" + ts[0] + ") as it is " +
                                     (after ? "after the latest" : "before the earliest") +
                                     " version available. Please use a timestamp " + (after ? "before" : "after") +
                                     " (" + ts[1] + ")",
                                 out_class);
}

}  // namespace

Result<CommandResult> RestoreTable(const sql::RestoreStatement& stmt, CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable cur, ctx.binder->ResolveTable(stmt.table, std::nullopt));
  SILT_RETURN_NOT_OK(planner::ExpectTable(cur, "RESTORE"));
  const int64_t latest = cur.snapshot->version();
  if (stmt.target.version && (*stmt.target.version < 0 || *stmt.target.version > latest)) {
    return Status::InvalidArgument("[DELTA_CANNOT_RESTORE_TABLE_VERSION] Cannot restore table to version " +
                                       std::to_string(*stmt.target.version) + ". Available versions: [0, " +
                                       std::to_string(latest) + "].",
                                   "DELTA_CANNOT_RESTORE_TABLE_VERSION");
  }
  Result<planner::ResolvedTable> resolved = ctx.binder->ResolveTable(stmt.table, &stmt.target);
  if (!resolved.ok()) return RestoreTimestampError(resolved.status());
  planner::ResolvedTable target = std::move(*resolved);
  const delta::Snapshot& from = *cur.snapshot;
  const delta::Snapshot& to = *target.snapshot;

  std::unordered_set<std::string> current, wanted;
  for (const auto& f : from.files()) current.insert(FileId(f));
  for (const auto& f : to.files()) wanted.insert(FileId(f));

  std::vector<const delta::AddFile*> to_add, to_remove;
  for (const auto& f : to.files()) {
    if (!current.count(FileId(f))) to_add.push_back(&f);
  }
  for (const auto& f : from.files()) {
    if (!wanted.count(FileId(f))) to_remove.push_back(&f);
  }

  if (!ctx.config->GetBool("spark.sql.files.ignoreMissingFiles", false)) {
    std::vector<std::string> missing;
    for (const delta::AddFile* f : to_add) {
      SILT_ASSIGN_OR_RETURN(bool ok, FileAvailable(to, *f));
      if (!ok && missing.size() < 100) missing.push_back(f->path);
    }
    if (!missing.empty()) {
      std::string list;
      for (const auto& m : missing) list += (list.empty() ? "" : ",") + m;
      // Spark raises an IllegalArgumentException with this text (no error class of its own).
      return Status::InvalidArgument("[DELTA_RESTORE_MISSED_DATA_FILES] Not all files from version " +
                                         std::to_string(to.version()) +
                                         " are available in file system. Missed files (top 100 files): " + list +
                                         ". Please use more recent version or timestamp for restoring. To disable "
                                         "check update option spark.sql.files.ignoreMissingFiles",
                                     "DELTA_RESTORE_MISSED_DATA_FILES");
    }
  }

  delta::TransactionOptions topts;
  topts.clock = ctx.clock;
  delta::Transaction txn(cur.store, cur.snapshot, topts);
  txn.SetReadScope(delta::ReadScope::kWholeTable);  // the whole table state is replaced
  const int64_t now = ctx.clock->NowMillis();
  int64_t removed_size = 0, restored_size = 0;
  for (const delta::AddFile* f : to_remove) {
    txn.Remove(MakeRemove(*f, now));
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
  delta::StringMap params;
  if (stmt.target.version) {
    params.Set("version", std::to_string(to.version()));
  } else {
    std::string ts = stmt.target.timestamp_text;
    if (ts.empty() && stmt.target.timestamp) ts = stmt.target.timestamp->ToString();
    if (ts.size() >= 2 && ts.front() == '\'' && ts.back() == '\'') ts = ts.substr(1, ts.size() - 2);
    params.Set("timestamp", "\"" + ts + "\"");
  }
  txn.SetOperation("RESTORE", params);
  const std::vector<std::pair<std::string, int64_t>> metrics = {
      {"tableSizeAfterRestore", table_size},
      {"numOfFilesAfterRestore", static_cast<int64_t>(to.files().size())},
      {"numRemovedFiles", static_cast<int64_t>(to_remove.size())},
      {"numRestoredFiles", static_cast<int64_t>(to_add.size())},
      {"removedFilesSize", removed_size},
      {"restoredFilesSize", restored_size},
  };
  for (const auto& [k, v] : metrics) txn.SetMetric(k, v);
  Result<delta::CommitResult> committed = txn.Commit();
  SILT_RETURN_NOT_OK(committed.status());

  return CountRows({{"table_size_after_restore", metrics[0].second},
                    {"num_of_files_after_restore", metrics[1].second},
                    {"num_removed_files", metrics[2].second},
                    {"num_restored_files", metrics[3].second},
                    {"removed_files_size", metrics[4].second},
                    {"restored_files_size", metrics[5].second}});
}

}  // namespace silt::commands
