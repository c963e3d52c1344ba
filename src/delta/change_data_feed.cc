#include "delta/change_data_feed.h"

#include <map>
#include <string>

#include "common/error_classes.h"
#include "delta/actions.h"
#include "delta/history.h"
#include "delta/log_segment.h"
#include "delta/scan.h"
#include "delta/schema_json.h"
#include "delta/snapshot.h"
#include "delta/table_properties.h"
#include "io/path.h"
#include "parquet/reader.h"

namespace silt::delta {
namespace {

Status MissingChangeData(int64_t version, int64_t start, int64_t end) {
  return Status::InvalidArgument("Error getting change data for range [" + std::to_string(start) +
                                     " , " + std::to_string(end) +
                                     "] as change data was not recorded for version [" +
                                     std::to_string(version) +
                                     "]. If you've enabled change data feed on this table, use "
                                     "`DESCRIBE HISTORY` to see when it was "
                                     "first enabled. Otherwise, to start recording change data, "
                                     "use `ALTER TABLE table_name SET "
                                     "TBLPROPERTIES (delta.enableChangeDataFeed=true)`.",
                                 kErrorMissingChangeData);
}

// A missing file of the range: Spark's DELTA_CHANGE_DATA_FILE_NOT_FOUND (other errors unchanged).
Status MissingFile(Status s, const std::string& path) {
  if (s.ok() || !s.IsNotFound() || s.error_class() == kErrorVersionNotFound) return s;
  return Status::NotFound(
      "File " + path +
          " referenced in the transaction log cannot be found. This can occur when the change "
          "data file is out of the retention period and has been deleted by the VACUUM "
          "statement. (" +
          std::string(s.message()) + ")",
      kErrorChangeDataFileNotFound);
}

AddFile AsAdd(const RemoveFile& r) {
  AddFile a;
  a.path = r.path;
  if (r.partition_values) a.partition_values = *r.partition_values;
  a.size = r.size.value_or(0);
  a.deletion_vector = r.deletion_vector;
  a.stats = r.stats;
  return a;
}

// Appends the three CDF columns to `rows` (table columns only) and moves it to the feed.
void Emit(DataChunk rows, const Vector* change_types, const std::string& change_type,
          int64_t version, int64_t timestamp_us, ChangeFeed* feed) {
  const size_t n = rows.size();
  if (n == 0) return;
  if (change_types != nullptr) {
    rows.columns.push_back(*change_types);
  } else {
    Vector t(DataType::String());
    for (size_t i = 0; i < n; ++i) t.AppendString(change_type);
    rows.columns.push_back(std::move(t));
  }
  Vector v(DataType::Int64()), ts(DataType::Timestamp());
  for (size_t i = 0; i < n; ++i) {
    v.Append<int64_t>(version);
    ts.Append<int64_t>(timestamp_us);
  }
  rows.columns.push_back(std::move(v));
  rows.columns.push_back(std::move(ts));
  feed->chunks.push_back(std::move(rows));
}

// Every row `file` shows (its DV applied); with `only`, just those whose physical index it holds.
Status ReadRows(const TableScan& scan, size_t ncols, const AddFile& file,
                const DeletionVector* only, std::vector<DataChunk>* out) {
  return scan.ScanFile(file, [&](DataChunk& chunk) -> Status {
    std::vector<uint32_t> keep;
    const int64_t* idx = chunk.columns.back().data<int64_t>();
    for (size_t i = 0; i < chunk.size(); ++i) {
      if (only == nullptr || only->Contains(static_cast<uint64_t>(idx[i])))
        keep.push_back(static_cast<uint32_t>(i));
    }
    if (keep.empty()) return Status::OK();
    DataChunk rows;
    rows.num_rows_without_columns = keep.size();
    for (size_t k = 0; k < ncols; ++k) {
      Vector v(chunk.columns[k].type());
      v.AppendSelected(chunk.columns[k], keep.data(), keep.size());
      rows.columns.push_back(std::move(v));
    }
    out->push_back(std::move(rows));
    return Status::OK();
  });
}

// A change data file: the table columns through the scan (partition values, column mapping),
// `_change_type` straight from the Parquet file.
Status ReadCdcFile(const Snapshot& snap, const TableScan& scan, size_t ncols, const AddCDCFile& cdc,
                   int64_t version, int64_t timestamp_us, ChangeFeed* feed) {
  AddFile as_add;
  as_add.path = cdc.path;
  as_add.partition_values = cdc.partition_values;
  as_add.size = cdc.size;
  std::vector<DataChunk> rows;
  SILT_RETURN_NOT_OK(ReadRows(scan, ncols, as_add, nullptr, &rows));
  DataChunk all;
  for (size_t k = 0; k < ncols; ++k) all.columns.emplace_back(snap.schema()[k].type);
  for (const auto& c : rows) {
    for (size_t k = 0; k < ncols; ++k) all.columns[k].AppendRange(c.columns[k], 0, c.size());
  }
  all.num_rows_without_columns = 0;
  for (const auto& c : rows) all.num_rows_without_columns += c.size();

  SILT_ASSIGN_OR_RETURN(DeltaPath dp, ParseDeltaPath(cdc.path));
  if (dp.absolute) {
    return Status::NotImplemented("change data file with an absolute path: " + cdc.path,
                                  errc::kNotImplemented);
  }
  SILT_ASSIGN_OR_RETURN(auto raw, snap.store()->OpenRead(dp.path));
  SILT_ASSIGN_OR_RETURN(std::unique_ptr<parquet::ParquetFile> pf, parquet::ParquetFile::Open(raw));
  std::shared_ptr<const parquet::ParquetFile> shared = std::move(pf);
  parquet::ScanOptions so;
  so.columns = {kChangeTypeColumn};
  SILT_ASSIGN_OR_RETURN(auto scanner, parquet::ParquetScanner::Make(shared, so));
  Vector types(DataType::String());
  DataChunk chunk;
  while (true) {
    SILT_ASSIGN_OR_RETURN(bool more, scanner->Next(&chunk));
    if (!more) break;
    if (chunk.columns.size() != 1 || chunk.columns[0].id() != TypeId::kString) {
      return Status::Corruption(
          "change data file " + cdc.path + " has no string column _change_type",
          kInvalidCommitFileClass);
    }
    types.AppendRange(chunk.columns[0], 0, chunk.size());
  }
  if (types.size() != all.size()) {
    return Status::Corruption("change data file " + cdc.path + ": " + std::to_string(types.size()) +
                              " _change_type values for " + std::to_string(all.size()) + " rows");
  }
  Emit(std::move(all), &types, "", version, timestamp_us, feed);
  return Status::OK();
}

}  // namespace

bool ChangeDataFeedEnabled(const Metadata& metadata) {
  return GetBoolProperty(metadata.configuration, "delta.enableChangeDataFeed", false)
      .ValueOr(false);
}

Status CheckCdcColumns(const Metadata* old_metadata, const Metadata& new_metadata) {
  if (!ChangeDataFeedEnabled(new_metadata) || !new_metadata.schema_string) return Status::OK();
  auto schema = ParseSchemaString(*new_metadata.schema_string);
  if (!schema.ok()) return Status::OK();
  std::string used;
  for (const char* reserved : {kChangeTypeColumn, kCommitVersionColumn, kCommitTimestampColumn}) {
    for (const Field& f : *schema) {
      if (f.name == reserved) used += (used.empty() ? "" : ",") + f.name;
    }
  }
  if (used.empty()) return Status::OK();
  if (old_metadata == nullptr || !ChangeDataFeedEnabled(*old_metadata)) {
    return Status::InvalidArgument(
        "Unable to enable Change Data Capture on the "
        "table. The table already contains reserved columns [" +
            used +
            "] that will be used internally as metadata for the table's Change Data Feed. To "
            "enable Change Data Feed on the table rename/drop these columns.",
        kErrorTableContainsCdcColumns);
  }
  return Status::InvalidArgument(
      "The write contains reserved columns [" + used +
          "] that are used internally as metadata for Change Data Feed. To write to the table "
          "either rename/drop these columns or disable Change Data Feed on the table by setting "
          "delta.enableChangeDataFeed to false.",
      kErrorReservedCdcColumnsOnWrite);
}

Result<ChangeFeed> ReadChangeFeed(std::shared_ptr<ObjectStore> store, int64_t start,
                                  std::optional<int64_t> end_opt) {
  if (start < 0) {
    return Status::InvalidArgument(
        "CDC range from start " + std::to_string(start) + " to end " +
            (end_opt ? std::to_string(*end_opt) : std::string("latest")) +
            " was invalid. Start version must not be negative.",
        kErrorInvalidCdcRange);
  }
  if (end_opt && *end_opt < start) {
    return Status::InvalidArgument("CDC range from start " + std::to_string(start) + " to end " +
                                       std::to_string(*end_opt) +
                                       " was invalid. End cannot be before start.",
                                   kErrorInvalidCdcRange);
  }
  SnapshotOptions no_files;
  no_files.load_files = false;
  SILT_ASSIGN_OR_RETURN(std::shared_ptr<const Snapshot> latest,
                        Snapshot::Load(store, std::nullopt, no_files));
  if (start > latest->version()) {
    return Status::InvalidArgument(
        "Provided Start version(" + std::to_string(start) +
        ") for reading change data is invalid. Start version cannot be greater than the "
        "latest version of the table(" +
        std::to_string(latest->version()) + ").");
  }
  const int64_t end = std::min(end_opt.value_or(latest->version()), latest->version());
  SILT_ASSIGN_OR_RETURN(std::shared_ptr<const Snapshot> start_snap,
                        Snapshot::Load(store, start, no_files));
  if (!ChangeDataFeedEnabled(start_snap->metadata())) return MissingChangeData(start, start, end);
  std::shared_ptr<const Snapshot> end_snap = latest;
  if (end != latest->version()) {
    SILT_ASSIGN_OR_RETURN(end_snap, Snapshot::Load(store, end, no_files));
  }

  ChangeFeed feed;
  feed.schema = end_snap->schema();
  const size_t ncols = feed.schema.size();
  feed.schema.push_back(Field{kChangeTypeColumn, DataType::String(), true, "{}"});
  feed.schema.push_back(Field{kCommitVersionColumn, DataType::Int64(), true, "{}"});
  feed.schema.push_back(Field{kCommitTimestampColumn, DataType::Timestamp(), true, "{}"});
  TableScanOptions so;
  so.with_row_index = true;
  SILT_ASSIGN_OR_RETURN(auto scan, TableScan::Make(end_snap, so));

  SILT_ASSIGN_OR_RETURN(std::vector<CommitEntry> commits, ListCommits(*store, start));
  std::map<int64_t, int64_t> timestamps;
  for (const auto& c : commits) timestamps[c.version] = c.timestamp_ms;
  for (int64_t v = start; v <= end; ++v) {
    auto ts = timestamps.find(v);
    if (ts == timestamps.end()) {
      return Status::NotFound(
          "commit " + std::to_string(v) + " of " + store->root() + " is missing",
          kErrorVersionNotFound);
    }
    const int64_t ts_us = ts->second * 1000;
    SILT_ASSIGN_OR_RETURN(std::string bytes, store->Get(CommitKey(v)));
    std::vector<Action> actions;
    SILT_RETURN_NOT_OK(ParseCommit(bytes, &actions, CommitKey(v)));
    std::vector<const AddCDCFile*> cdcs;
    std::vector<const AddFile*> adds;
    std::vector<const RemoveFile*> removes;
    for (const Action& a : actions) {
      if (const Metadata* m = a.get_if<Metadata>()) {
        if (!ChangeDataFeedEnabled(*m)) return MissingChangeData(v, start, end);
      } else if (const AddCDCFile* c = a.get_if<AddCDCFile>()) {
        cdcs.push_back(c);
      } else if (const AddFile* f = a.get_if<AddFile>()) {
        if (f->data_change) adds.push_back(f);
      } else if (const RemoveFile* r = a.get_if<RemoveFile>()) {
        if (r->data_change) removes.push_back(r);
      }
    }
    if (!cdcs.empty()) {
      for (const AddCDCFile* c : cdcs) {
        SILT_RETURN_NOT_OK(
            MissingFile(ReadCdcFile(*end_snap, *scan, ncols, *c, v, ts_us, &feed), c->path));
      }
      continue;
    }
    // No change data files: whole added files are inserts, whole removed files deletes; a file
    // both removed and re-added (a deletion vector change) yields only the rows that differ.
    std::map<std::string, const RemoveFile*> removed_by_path;
    for (const RemoveFile* r : removes) removed_by_path[r->path] = r;
    std::map<std::string, const AddFile*> added_by_path;
    for (const AddFile* a : adds) added_by_path[a->path] = a;
    for (const AddFile* a : adds) {
      std::vector<DataChunk> rows;
      auto r = removed_by_path.find(a->path);
      if (r == removed_by_path.end()) {
        SILT_RETURN_NOT_OK(MissingFile(ReadRows(*scan, ncols, *a, nullptr, &rows), a->path));
      } else {
        // Rows the new DV shows that the old one hid.
        auto old_dv = LoadDeletionVector(*end_snap, AsAdd(*r->second));
        SILT_RETURN_NOT_OK(MissingFile(old_dv.status(), a->path));
        if (*old_dv) {
          SILT_RETURN_NOT_OK(MissingFile(ReadRows(*scan, ncols, *a, &**old_dv, &rows), a->path));
        }
      }
      for (auto& c : rows) Emit(std::move(c), nullptr, "insert", v, ts_us, &feed);
    }
    for (const RemoveFile* r : removes) {
      std::vector<DataChunk> rows;
      AddFile old = AsAdd(*r);
      auto a = added_by_path.find(r->path);
      if (a == added_by_path.end()) {
        SILT_RETURN_NOT_OK(MissingFile(ReadRows(*scan, ncols, old, nullptr, &rows), r->path));
      } else {
        // Rows the old DV showed that the new one hides.
        auto new_dv = LoadDeletionVector(*end_snap, *a->second);
        SILT_RETURN_NOT_OK(MissingFile(new_dv.status(), r->path));
        if (*new_dv) {
          SILT_RETURN_NOT_OK(MissingFile(ReadRows(*scan, ncols, old, &**new_dv, &rows), r->path));
        }
      }
      for (auto& c : rows) Emit(std::move(c), nullptr, "delete", v, ts_us, &feed);
    }
  }
  return feed;
}

Result<int64_t> ChangeFeedStartVersionAt(ObjectStore& store, int64_t timestamp_ms) {
  SILT_ASSIGN_OR_RETURN(std::vector<CommitEntry> commits, ListCommits(store, 0));
  for (const auto& c : commits) {
    if (c.timestamp_ms >= timestamp_ms) return c.version;
  }
  if (commits.empty())
    return Status::NotFound("No commits found at " + store.root(), kErrorNoCommitsFound);
  return Status::InvalidArgument("The provided timestamp (" + FormatJavaTimestamp(timestamp_ms) +
                                     ") is after the latest version available to this table (" +
                                     FormatJavaTimestamp(commits.back().timestamp_ms) +
                                     "). Please use a timestamp before or at " +
                                     FormatJavaTimestamp(commits.back().timestamp_ms) + ".",
                                 kErrorTimestampGreaterThanCommit);
}

Result<int64_t> ChangeFeedEndVersionAt(ObjectStore& store, int64_t timestamp_ms) {
  TimeTravelOptions o;
  o.can_return_last_commit = true;
  o.must_be_recreatable = false;
  return VersionAtTimestamp(store, timestamp_ms, o);
}

}  // namespace silt::delta
