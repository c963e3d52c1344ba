#include "ops/dml.h"

#include <algorithm>
#include <functional>
#include <mutex>
#include <unordered_set>

#include "common/error_classes.h"
#include "delta/change_data_feed.h"
#include "delta/scan.h"
#include "delta/stats_json.h"
#include "delta/table_features.h"
#include "delta/table_properties.h"
#include "io/object_store_factory.h"
#include "io/path.h"
#include "io/read_confinement.h"
#include "ops/ops.h"
#include "parquet/reader.h"

namespace silt::ops {
namespace {

// A write run once, by a pool thread or by whoever needs it first (the committer does not wait
// for a pool thread that is busy elsewhere: it runs the write itself). Thread-safe.
class PendingWrite {
 public:
  explicit PendingWrite(std::function<Status()> write) : write_(std::move(write)) {}
  // Runs the write unless it ran; waits while another thread runs it. Its status, every time.
  Status Run() {
    std::lock_guard<std::mutex> lock(mu_);
    if (write_) {
      status_ = write_();
      write_ = nullptr;
    }
    return status_;
  }

 private:
  std::mutex mu_;
  std::function<Status()> write_;  // guarded by mu_; null once run
  Status status_;                  // guarded by mu_
};

using delta::AddFile;
using delta::DeletionVector;
using delta::RemoveFile;
using delta::Snapshot;

constexpr char kChangeTypeColumn[] = "_change_type";
constexpr char kChangeDataDir[] = "_change_data";

std::string JsonStr(std::string_view v) {
  std::string out;
  AppendJsonString(&out, v);
  return out;
}

Result<bool> ResolveUseDvs(const Snapshot& snap, const DmlOptions& options) {
  if (!options.use_deletion_vectors) return DeletionVectorsWritable(snap);
  if (!*options.use_deletion_vectors) return false;
  if (!delta::HasFeature(snap.protocol(), "deletionVectors")) {
    return Status::InvalidArgument("table " + snap.store()->root() +
                                       " does not support deletion vectors (the deletionVectors "
                                       "table feature is not in its protocol)",
                                   kErrorDvFeatureMissing);
  }
  return true;
}

// numRecords from add.stats, if present.
std::optional<int64_t> StatsNumRecords(const AddFile& f) {
  if (!f.stats || f.stats->empty()) return std::nullopt;
  auto parsed = delta::ParseStats(*f.stats, Schema{});
  if (!parsed.ok()) return std::nullopt;
  return parsed->num_records;
}

// The physical row count of a data file: stats when they have it, else the Parquet footer.
Result<int64_t> PhysicalRowCount(const Snapshot& snap, const AddFile& f) {
  if (auto n = StatsNumRecords(f)) return *n;
  SILT_ASSIGN_OR_RETURN(DeltaPath p, ParseDeltaPath(f.path));
  std::shared_ptr<RandomAccessFile> raw;
  if (p.absolute) {
    if (const ReadConfinement* c = snap.read_confinement().get())
      SILT_RETURN_NOT_OK(CheckConfinedRead(*c, snap.store()->root(), p.path));
    SILT_ASSIGN_OR_RETURN(raw, OpenLocationForRead(p.path));
  } else {
    SILT_ASSIGN_OR_RETURN(raw, snap.store()->OpenRead(p.path));
  }
  SILT_ASSIGN_OR_RETURN(auto pf, parquet::ParquetFile::Open(raw));
  return pf->num_rows();
}

Status CheckMatches(const std::vector<uint32_t>& idx, size_t rows) {
  for (size_t i = 0; i < idx.size(); ++i) {
    if (idx[i] >= rows || (i > 0 && idx[i] <= idx[i - 1])) {
      return Status::InvalidArgument("the row matcher returned index " + std::to_string(idx[i]) +
                                         " for a chunk of " + std::to_string(rows) +
                                         " rows (indexes must be strictly ascending and in range)",
                                     kErrorBadMatcherResult);
    }
  }
  return Status::OK();
}

DmlOptions WithClock(const DmlOptions& o) {
  DmlOptions out = o;
  out.write.clock = o.clock;
  out.write.tight_bounds.reset();
  out.txn.clock = o.clock;
  return out;
}

// Writes the change rows as `_change_data/` files; returns their cdc actions.
Result<std::vector<delta::AddCDCFile>> WriteChangeFiles(ObjectStore& store, const Snapshot& snap,
                                                        const std::vector<ChangeRows>& changes,
                                                        const delta::DataWriteOptions& write) {
  Schema schema = snap.schema();
  schema.push_back(Field{kChangeTypeColumn, DataType::String(), true, "{}"});
  std::vector<DataChunk> chunks;
  for (const auto& c : changes) {
    for (const auto& rows : c.rows) {
      if (rows.size() == 0) continue;
      DataChunk out;
      out.columns = rows.columns;
      Vector type(DataType::String());
      for (size_t i = 0; i < rows.size(); ++i) type.AppendString(c.change_type);
      out.columns.push_back(std::move(type));
      chunks.push_back(std::move(out));
    }
  }
  std::vector<delta::AddCDCFile> out;
  if (chunks.empty()) return out;
  delta::DataWriteOptions o = write;
  o.key_prefix = kChangeDataDir;
  o.file_prefix = "cdc";
  SILT_ASSIGN_OR_RETURN(auto adds,
                        delta::WriteDataFiles(store, snap.metadata(), schema, chunks, o));
  for (auto& a : adds) {
    delta::AddCDCFile c;
    c.path = std::move(a.path);
    c.partition_values = std::move(a.partition_values);
    c.size = a.size;
    c.data_change = false;
    out.push_back(std::move(c));
  }
  return out;
}

void SetMetrics(delta::Transaction* txn, MetricNames names, const DmlMetrics& m) {
  const bool merge = names == MetricNames::kMerge;
  auto set = [&](const char* plain, const char* target, int64_t v) {
    txn->SetMetric(merge ? target : plain, v);
  };
  // Spark drops these for metadata-only deletes whose row count is unknown (spec §2.3).
  const bool drop_row_metrics = names == MetricNames::kDelete && m.num_removed_files != 0 &&
                                m.num_deleted_rows.value_or(0) == 0;
  if (!drop_row_metrics) set("numAddedFiles", "numTargetFilesAdded", m.num_added_files);
  set("numRemovedFiles", "numTargetFilesRemoved", m.num_removed_files);
  set("numAddedChangeFiles", "numTargetChangeFilesAdded", m.num_added_change_files);
  set("numDeletionVectorsAdded", "numTargetDeletionVectorsAdded", m.num_deletion_vectors_added);
  set("numDeletionVectorsRemoved", "numTargetDeletionVectorsRemoved",
      m.num_deletion_vectors_removed);
  set("numDeletionVectorsUpdated", "numTargetDeletionVectorsUpdated",
      m.num_deletion_vectors_updated);
  if (names == MetricNames::kDelete && !drop_row_metrics) {
    txn->SetMetric("numDeletedRows", *m.num_deleted_rows);
  }
  if (names == MetricNames::kUpdate) txn->SetMetric("numUpdatedRows", m.num_updated_rows);
  if (!drop_row_metrics) set("numCopiedRows", "numTargetRowsCopied", m.num_copied_rows);
  txn->SetMetric("executionTimeMs", m.execution_time_ms);
  txn->SetMetric("scanTimeMs", m.scan_time_ms);
  txn->SetMetric("rewriteTimeMs", m.rewrite_time_ms);
  set("numRemovedBytes", "numTargetBytesRemoved", m.num_removed_bytes);
  set("numAddedBytes", "numTargetBytesAdded", m.num_added_bytes);
}

// The DV-masked rows of `file` whose physical index is not in `drop` (all columns).
Status ReadSurvivingRows(const std::shared_ptr<const Snapshot>& snap, const AddFile& file,
                         const DeletionVector* drop, std::vector<DataChunk>* out, int64_t* rows) {
  delta::TableScanOptions so;
  so.with_row_index = drop != nullptr;
  SILT_ASSIGN_OR_RETURN(auto scan, delta::TableScan::Make(snap, so));
  const size_t n = snap->schema().size();
  return scan->ScanFile(file, [&](DataChunk& chunk) -> Status {
    if (drop == nullptr) {
      *rows += static_cast<int64_t>(chunk.size());
      out->push_back(std::move(chunk));
      return Status::OK();
    }
    if (chunk.size() == 0) return Status::OK();
    // The chunk's physical indexes ascend: mark the dropped ones of their span in one pass over
    // the DV (work per dropped row, not a bitmap lookup per row).
    const int64_t* idx = chunk.columns.back().data<int64_t>();
    const int64_t first = idx[0];
    std::vector<uint8_t> live(static_cast<size_t>(idx[chunk.size() - 1] - first + 1), 1);
    drop->FillSelection(first, live.size(), live.data());
    std::vector<uint32_t> keep;
    keep.reserve(chunk.size());
    for (size_t i = 0; i < chunk.size(); ++i) {
      if (live[static_cast<size_t>(idx[i] - first)]) keep.push_back(static_cast<uint32_t>(i));
    }
    *rows += static_cast<int64_t>(keep.size());
    if (!keep.empty()) out->push_back(Gather(chunk, n, keep));
    return Status::OK();
  });
}

// File classification shared by DELETE and UPDATE.
struct Candidates {
  std::vector<const AddFile*> all;    // every row matches
  std::vector<const AddFile*> maybe;  // scan
  int64_t skipped = 0;
};

Result<Candidates> Classify(const Snapshot& snap, const FileFilter& filter, bool have_matcher) {
  Candidates c;
  for (const AddFile& f : snap.files()) {
    FileVerdict v = FileVerdict::kMaybe;
    if (filter) {
      SILT_ASSIGN_OR_RETURN(v, filter(f));
    }
    if (v == FileVerdict::kSkip) {
      ++c.skipped;
    } else if (v == FileVerdict::kAll || !have_matcher) {
      c.all.push_back(&f);
    } else {
      c.maybe.push_back(&f);
    }
  }
  return c;
}

// The scan columns (logical names) and where the matcher's columns sit among them.
struct ScanLayout {
  std::vector<std::string> scan_columns;  // empty: all table columns
  std::vector<size_t> matcher_pos;        // index into the scan chunk per matcher column
  size_t num_scan_columns = 0;            // without the row index
};

Result<ScanLayout> MakeLayout(const Snapshot& snap, const std::vector<std::string>& matcher_columns,
                              bool need_all_columns) {
  ScanLayout l;
  const Schema& schema = snap.schema();
  std::vector<int> fields;
  if (matcher_columns.empty()) {
    for (size_t i = 0; i < schema.size(); ++i) fields.push_back(static_cast<int>(i));
  } else {
    for (const auto& c : matcher_columns) {
      int i = FindField(schema, c);
      if (i < 0) {
        return Status::NotFound("column '" + c + "' does not exist in the table",
                                errc::kUnresolvedColumn);
      }
      if (std::find(fields.begin(), fields.end(), i) != fields.end()) {
        return Status::InvalidArgument("column '" + c + "' is listed twice");
      }
      fields.push_back(i);
    }
  }
  if (need_all_columns) {
    l.num_scan_columns = schema.size();
    for (int f : fields) l.matcher_pos.push_back(static_cast<size_t>(f));
  } else {
    l.num_scan_columns = fields.size();
    for (size_t k = 0; k < fields.size(); ++k) {
      l.scan_columns.push_back(schema[static_cast<size_t>(fields[k])].name);
      l.matcher_pos.push_back(k);
    }
  }
  return l;
}

// Calls the matcher on the columns it asked for (moved out of `chunk` and back).
Result<std::vector<uint32_t>> RunMatcher(const RowMatcher& matcher, const ScanLayout& l,
                                         DataChunk& chunk) {
  DataChunk view;
  view.num_rows_without_columns = chunk.size();
  for (size_t p : l.matcher_pos) view.columns.push_back(std::move(chunk.columns[p]));
  auto r = matcher(view);
  for (size_t k = 0; k < l.matcher_pos.size(); ++k) {
    chunk.columns[l.matcher_pos[k]] = std::move(view.columns[k]);
  }
  if (!r.ok()) return r.status();
  SILT_RETURN_NOT_OK(CheckMatches(*r, chunk.size()));
  return r;
}

// DELETE asks the matcher about slices of this many rows of a row group, so its temporaries
// (e.g. `id % 1000` before `= 0`) stay small and in cache instead of row-group sized.
constexpr size_t kMatchRows = 16384;

// RunMatcher on rows [off, off + len) of `chunk` (the matcher's columns copied); indexes are
// relative to the slice.
Result<std::vector<uint32_t>> RunMatcherOnSlice(const RowMatcher& matcher, const ScanLayout& l,
                                                const DataChunk& chunk, size_t off, size_t len) {
  DataChunk view;
  view.num_rows_without_columns = len;
  for (size_t p : l.matcher_pos) {
    Vector v(chunk.columns[p].type());
    v.AppendRange(chunk.columns[p], off, len);
    view.columns.push_back(std::move(v));
  }
  SILT_ASSIGN_OR_RETURN(std::vector<uint32_t> idx, matcher(view));
  SILT_RETURN_NOT_OK(CheckMatches(idx, len));
  return idx;
}

std::vector<uint32_t> AllRows(size_t n) {
  std::vector<uint32_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint32_t>(i);
  return v;
}

}  // namespace

delta::ReadFilePredicate ReadPredicateOf(const FileFilter& filter) {
  if (!filter) return nullptr;
  // An error while judging a concurrent file is treated as "could match": conflict, never a
  // silently wrong result.
  return [filter](const AddFile& f) {
    auto v = filter(f);
    return !v.ok() || *v != FileVerdict::kSkip;
  };
}

DataChunk Gather(const DataChunk& chunk, size_t n, const std::vector<uint32_t>& sel) {
  DataChunk out;
  for (size_t k = 0; k < n; ++k) {
    Vector v(chunk.columns[k].type());
    v.AppendSelected(chunk.columns[k], sel.data(), sel.size());
    out.columns.push_back(std::move(v));
  }
  out.num_rows_without_columns = sel.size();
  return out;
}

bool DeletionVectorsWritable(const Snapshot& snapshot) {
  return delta::HasFeature(snapshot.protocol(), "deletionVectors") &&
         delta::GetBoolProperty(snapshot.metadata().configuration, "delta.enableDeletionVectors",
                                false)
             .ValueOr(false);
}

std::string PredicateParameter(const std::string& predicate_sql) {
  if (predicate_sql.empty()) return JsonStr("[]");
  std::string arr = "[";
  AppendJsonString(&arr, predicate_sql);
  arr += "]";
  return JsonStr(arr);
}

std::string StatsWithWideBounds(const std::optional<std::string>& stats, int64_t num_records) {
  if (!stats || stats->find('{') == std::string::npos) {
    return "{\"numRecords\":" + std::to_string(num_records) + ",\"tightBounds\":false}";
  }
  const std::string& s = *stats;
  // Find the top-level "tightBounds" key by walking the JSON text (strings and nesting tracked),
  // so every other byte — including decimals too wide for a double — is kept as written.
  int depth = 0;
  size_t last_close = std::string::npos;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"') {
      size_t start = i++;
      while (i < s.size() && s[i] != '"') i += s[i] == '\\' ? 2 : 1;
      if (depth == 1 && s.compare(start, i - start + 1, "\"tightBounds\"") == 0) {
        size_t v = s.find_first_not_of(" \t\r\n:", i + 1);
        if (v != std::string::npos && s.compare(v, 4, "true") == 0) {
          return s.substr(0, v) + "false" + s.substr(v + 4);
        }
        if (v != std::string::npos && s.compare(v, 5, "false") == 0) return s;
      }
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) last_close = i;
    }
  }
  if (last_close == std::string::npos) {
    return "{\"numRecords\":" + std::to_string(num_records) + ",\"tightBounds\":false}";
  }
  size_t prev = s.find_last_not_of(" \t\r\n", last_close - 1);
  bool empty = prev != std::string::npos && s[prev] == '{';
  return s.substr(0, last_close) + (empty ? "" : ",") + "\"tightBounds\":false" +
         s.substr(last_close);
}

Result<DmlResult> ApplyRowChanges(std::shared_ptr<ObjectStore> store,
                                  std::shared_ptr<const Snapshot> snapshot, RowChanges changes,
                                  const DmlOptions& raw_options) {
  SILT_RETURN_NOT_OK(RequireClock(raw_options.clock, "DmlOptions"));
  DmlOptions options = WithClock(raw_options);
  const Snapshot& snap = *snapshot;
  Clock& clock = *options.clock;
  if (delta::HasFeature(snap.protocol(), "deletionVectors")) options.write.tight_bounds = true;
  const int64_t start_ms = changes.start_time_ms >= 0 ? changes.start_time_ms : clock.NowMillis();
  // Computed once per snapshot: DELETE/UPDATE checked it before their scan, the commit reuses it.
  SILT_RETURN_NOT_OK(snap.CheckWriteSupported(!changes.deletions.empty(), store->root()));
  SILT_ASSIGN_OR_RETURN(bool use_dvs, ResolveUseDvs(snap, options));
  const bool cdf = delta::ChangeDataFeedEnabled(snap.metadata());
  DmlMetrics m = changes.metrics;
  DmlResult result;
  result.used_deletion_vectors = use_dvs;

  const int64_t rewrite_start = clock.NowMillis();
  const int64_t now = rewrite_start;
  std::vector<RemoveFile> removes;
  std::vector<AddFile> adds;
  std::vector<DataChunk> rows_to_write = std::move(changes.new_rows);
  // Files that get a new DV: the file, its combined DV and its physical row count.
  struct DvFile {
    const AddFile* file;
    DeletionVector dv;
    int64_t physical;
  };
  std::vector<DvFile> dv_files;
  {
    std::unordered_set<std::string> seen;
    for (const FileRowDeletion& d : changes.deletions) {
      if (!seen.insert(d.file.path).second) {
        return Status::InvalidArgument("file " + d.file.path + " is listed twice in the deletions");
      }
    }
  }
  std::vector<const AddFile*> removed_unread;
  // Copy-on-write files: read after the loop (in parallel on the pool), rows kept in this order.
  struct CowFile {
    const AddFile* file;
    DeletionVector drop;
  };
  std::vector<CowFile> cow_files;
  int64_t deleted_rows = 0;
  bool deleted_known = true;

  for (const FileRowDeletion& d : changes.deletions) {
    const AddFile& f = d.file;
    const int64_t old_card = f.deletion_vector ? f.deletion_vector->cardinality : 0;
    if (d.all_rows) {
      removes.push_back(delta::MakeRemove(f, now));
      ++m.num_removed_files;
      m.num_removed_bytes += f.size;
      if (f.deletion_vector) ++m.num_deletion_vectors_removed;
      if (auto n = StatsNumRecords(f)) {
        deleted_rows += *n - old_card;
      } else {
        deleted_known = false;
      }
      ++m.files_removed_unread;
      removed_unread.push_back(&f);
      continue;
    }
    SILT_ASSIGN_OR_RETURN(std::optional<DeletionVector> old_dv, delta::LoadDeletionVector(snap, f));
    DeletionVector combined = d.rows;
    if (old_dv) combined.Union(*old_dv);
    const int64_t newly = static_cast<int64_t>(combined.Cardinality()) - old_card;
    if (newly <= 0) continue;  // nothing new: the file stays as it is
    deleted_rows += newly;
    SILT_ASSIGN_OR_RETURN(int64_t physical, PhysicalRowCount(snap, f));
    const bool emptied = static_cast<int64_t>(combined.Cardinality()) >= physical;
    if (use_dvs && !emptied) {
      ++(f.deletion_vector ? m.num_deletion_vectors_updated : m.num_deletion_vectors_added);
      dv_files.push_back({&f, std::move(combined), physical});
      continue;
    }
    removes.push_back(delta::MakeRemove(f, now));
    ++m.num_removed_files;
    m.num_removed_bytes += f.size;
    if (f.deletion_vector) ++m.num_deletion_vectors_removed;
    if (!emptied) cow_files.push_back({&f, std::move(combined)});  // copy-on-write
  }
  {
    std::vector<std::vector<DataChunk>> kept(cow_files.size());
    std::vector<int64_t> copied(cow_files.size(), 0);
    auto read = [&](size_t i) -> Status {
      return ReadSurvivingRows(snapshot, *cow_files[i].file, &cow_files[i].drop, &kept[i],
                               &copied[i]);
    };
    SILT_RETURN_NOT_OK(ParallelFor(options.pool, cow_files.size(), read));
    for (size_t i = 0; i < cow_files.size(); ++i) {
      for (DataChunk& c : kept[i]) rows_to_write.push_back(std::move(c));
      m.num_copied_rows += copied[i];
      ++m.files_read;
    }
  }

  // One DV file for the whole commit, holding every new DV (Spark packs DVs per task).
  std::shared_ptr<PendingWrite> dv_write;
  if (!dv_files.empty()) {
    std::vector<const DeletionVector*> dvs;
    for (const DvFile& d : dv_files) dvs.push_back(&d.dv);
    SILT_ASSIGN_OR_RETURN(
        delta::NewDvFile dvf,
        delta::EncodeNewDvFile(dvs, delta::RandomPrefixLength(snap.metadata().configuration)));
    // The DV file must be durable before the commit that references it is published, not before
    // the commit's own bytes are written: with a pool it is written there while the commit is
    // staged and synced (Transaction::WaitBeforePublish), so their syncs overlap.
    if (options.pool) {
      dv_write = std::make_shared<PendingWrite>(
          [store, key = dvf.relative_path, bytes = std::move(dvf.bytes)] {
            return store->PutIfAbsent(key, bytes);
          });
      options.pool->Submit([w = dv_write] { (void)w->Run(); });
    } else {
      SILT_RETURN_NOT_OK(store->PutIfAbsent(dvf.relative_path, dvf.bytes));
    }
    for (size_t i = 0; i < dv_files.size(); ++i) {
      const AddFile& f = *dv_files[i].file;
      removes.push_back(delta::MakeRemove(f, now));
      AddFile a = f;
      a.data_change = true;
      a.deletion_vector = dvf.descriptors[i];
      const int64_t physical = dv_files[i].physical;
      // numRecords is mandatory beside a DV; stats without it are replaced.
      a.stats = StatsWithWideBounds(StatsNumRecords(f) ? f.stats : std::nullopt, physical);
      adds.push_back(std::move(a));
    }
  }

  // The writer groups rows across chunks (files per partition, not per chunk), so they are
  // passed as they are rather than copied into one chunk first.
  rows_to_write.erase(std::remove_if(rows_to_write.begin(), rows_to_write.end(),
                                     [](const DataChunk& c) { return c.size() == 0; }),
                      rows_to_write.end());
  if (!rows_to_write.empty()) {
    SILT_ASSIGN_OR_RETURN(
        auto written, delta::WriteDataFiles(*store, snap.metadata(), snap.schema(), rows_to_write,
                                            options.write));
    rows_to_write.clear();
    for (auto& a : written) {
      ++m.num_added_files;
      m.num_added_bytes += a.size;
      adds.push_back(std::move(a));
    }
  }

  // Change data feed: a commit with cdc files is read through them alone, so once there are any,
  // the rows of files dropped unread must be written too.
  std::vector<delta::AddCDCFile> cdc;
  if (cdf) {
    bool any = false;
    for (const auto& c : changes.change_rows) {
      for (const auto& r : c.rows) any |= r.size() > 0;
    }
    if (any && !removed_unread.empty()) {
      ChangeRows dropped{"delete", {}};
      for (const AddFile* f : removed_unread) {
        int64_t n = 0;
        SILT_RETURN_NOT_OK(ReadSurvivingRows(snapshot, *f, nullptr, &dropped.rows, &n));
      }
      changes.change_rows.push_back(std::move(dropped));
    }
    if (any) {
      SILT_ASSIGN_OR_RETURN(cdc,
                            WriteChangeFiles(*store, snap, changes.change_rows, options.write));
    }
    m.num_added_change_files = static_cast<int64_t>(cdc.size());
  }
  m.rewrite_time_ms += clock.NowMillis() - rewrite_start;
  // History counts an updated DV as one added and one removed too (spec §2.7).
  m.num_deletion_vectors_added += m.num_deletion_vectors_updated;
  m.num_deletion_vectors_removed += m.num_deletion_vectors_updated;

  if (deleted_known) m.num_deleted_rows = deleted_rows;
  result.num_affected_rows = deleted_known ? deleted_rows : -1;
  if (removes.empty() && adds.empty()) {
    m.execution_time_ms = clock.NowMillis() - start_ms;
    result.metrics = m;
    return result;  // nothing changed: no commit
  }

  delta::Transaction txn(store, snapshot, options.txn);
  if (dv_write) txn.WaitBeforePublish([dv_write] { return dv_write->Run(); });
  txn.SetOperation(changes.operation, changes.parameters);
  for (const auto& t : changes.app_transactions) txn.SetAppTransaction(t);
  if (changes.new_metadata) txn.UpdateMetadata(*changes.new_metadata);
  for (auto& r : removes) txn.Remove(std::move(r));
  for (auto& a : adds) txn.Add(std::move(a));
  for (auto& c : cdc) txn.AddCdc(std::move(c));
  for (const auto& p : changes.read_files) txn.AddReadFile(p);
  if (changes.read_predicate) {
    txn.SetReadPredicate(changes.read_predicate);
  } else {
    txn.SetReadScope(delta::ReadScope::kWholeTable);
  }
  m.execution_time_ms = clock.NowMillis() - start_ms;
  SetMetrics(&txn, changes.metric_names, m);
  for (const auto& [k, v] : changes.extra_metrics) txn.SetMetric(k, v);
  // Row tracking: rows copied or updated into new files get fresh row ids there (silt writes no
  // materialized row id column yet), so this commit does not preserve stable row ids.
  {
    bool moved = m.num_copied_rows > 0 || m.num_updated_rows > 0;
    for (const auto& [k, v] : changes.extra_metrics)
      moved |= (k == "numTargetRowsUpdated" || k == "numTargetRowsCopied") && v > 0;
    if (moved && delta::HasFeature(snap.protocol(), "rowTracking") &&
        delta::GetBoolProperty(snap.metadata().configuration, "delta.enableRowTracking", false)
            .ValueOr(false))
      txn.SetTag("delta.rowTracking.preserved", "false");
  }
  SILT_ASSIGN_OR_RETURN(delta::CommitResult cr, txn.Commit());
  result.version = cr.version;
  result.metrics = m;
  return result;
}

Result<DmlResult> DeleteRows(std::shared_ptr<ObjectStore> store,
                             std::shared_ptr<const Snapshot> snapshot, DeleteSpec spec) {
  SILT_ASSIGN_OR_RETURN(RowChanges changes, MatchDeletedRows(store, snapshot, spec));
  return ApplyRowChanges(std::move(store), std::move(snapshot), std::move(changes),
                         WithClock(spec.options));
}

Result<RowChanges> MatchDeletedRows(const std::shared_ptr<ObjectStore>& store,
                                    const std::shared_ptr<const Snapshot>& snapshot,
                                    const DeleteSpec& spec) {
  SILT_RETURN_NOT_OK(RequireClock(spec.options.clock, "DmlOptions"));
  const DmlOptions options = WithClock(spec.options);
  Clock& clock = *options.clock;
  const int64_t start = clock.NowMillis();
  const Snapshot& snap = *snapshot;
  SILT_RETURN_NOT_OK(snap.CheckWriteSupported(true, store->root()));
  const bool cdf = delta::ChangeDataFeedEnabled(snap.metadata());
  SILT_ASSIGN_OR_RETURN(Candidates cand, Classify(snap, spec.file_filter, spec.matcher != nullptr));
  SILT_ASSIGN_OR_RETURN(ScanLayout layout, MakeLayout(snap, spec.columns, cdf));

  RowChanges changes;
  changes.operation = "DELETE";
  changes.parameters.Set("predicate", PredicateParameter(spec.predicate_sql));
  changes.extra_metrics = spec.extra_metrics;
  changes.metric_names = MetricNames::kDelete;
  changes.start_time_ms = start;
  changes.metrics.files_skipped = cand.skipped;
  changes.read_predicate = ReadPredicateOf(spec.file_filter);
  for (const AddFile* f : cand.all) changes.deletions.push_back({*f, DeletionVector(), true});

  const int64_t scan_start = clock.NowMillis();
  // Per candidate file: its matched rows (and, with CDF, their images), merged in file order so
  // the DV file and the commit are the same whether the files were scanned serially or not.
  struct FileMatches {
    DeletionVector rows;
    std::vector<DataChunk> images;
  };
  std::vector<FileMatches> found(cand.maybe.size());
  if (!cand.maybe.empty()) {
    delta::TableScanOptions so;
    so.columns = layout.scan_columns;
    SILT_ASSIGN_OR_RETURN(auto plain_scan, delta::TableScan::Make(snapshot, so));
    so.with_row_index = true;
    SILT_ASSIGN_OR_RETURN(auto indexed_scan, delta::TableScan::Make(snapshot, so));
    auto scan_file = [&](size_t i) -> Status {
      const AddFile& f = *cand.maybe[i];
      FileMatches& out = found[i];
      // Without a DV the scan hands over each row group whole and in order, so a row's physical
      // index is the rows before its chunk plus its position: no row-index column is built.
      const bool indexed = f.deletion_vector.has_value();
      int64_t chunk_start = 0;
      std::vector<uint32_t> abs;
      std::vector<uint64_t> phys;
      auto sink = [&](DataChunk& chunk) -> Status {
        const int64_t* row_index = indexed ? chunk.columns.back().data<int64_t>() : nullptr;
        const size_t n = chunk.size();
        for (size_t off = 0; off < n; off += kMatchRows) {
          const size_t len = std::min(kMatchRows, n - off);
          std::vector<uint32_t> idx;
          if (len == n) {
            SILT_ASSIGN_OR_RETURN(idx, RunMatcher(spec.matcher, layout, chunk));
          } else {
            SILT_ASSIGN_OR_RETURN(idx, RunMatcherOnSlice(spec.matcher, layout, chunk, off, len));
          }
          if (idx.empty()) continue;
          abs.resize(idx.size());
          phys.resize(idx.size());
          for (size_t k = 0; k < idx.size(); ++k) {
            abs[k] = static_cast<uint32_t>(off) + idx[k];
            phys[k] = static_cast<uint64_t>(row_index ? row_index[abs[k]] : chunk_start + abs[k]);
          }
          SILT_RETURN_NOT_OK(out.rows.AddMany(phys.data(), phys.size()));
          if (cdf) out.images.push_back(Gather(chunk, layout.num_scan_columns, abs));
        }
        chunk_start += static_cast<int64_t>(n);
        return Status::OK();
      };
      return (indexed ? indexed_scan : plain_scan)->ScanFile(f, sink);
    };
    SILT_RETURN_NOT_OK(ParallelFor(options.pool, cand.maybe.size(), scan_file));
  }
  ChangeRows deleted{"delete", {}};
  for (size_t i = 0; i < cand.maybe.size(); ++i) {
    const AddFile* f = cand.maybe[i];
    ++changes.metrics.files_read;
    changes.read_files.push_back(f->path);
    if (!found[i].rows.IsEmpty()) {
      changes.deletions.push_back({*f, std::move(found[i].rows), false});
    }
    for (DataChunk& c : found[i].images) deleted.rows.push_back(std::move(c));
  }
  changes.metrics.scan_time_ms = clock.NowMillis() - scan_start;
  if (cdf) changes.change_rows.push_back(std::move(deleted));
  return changes;
}

Result<DmlResult> UpdateRows(std::shared_ptr<ObjectStore> store,
                             std::shared_ptr<const Snapshot> snapshot, UpdateSpec spec) {
  if (!spec.updater) return Status::InvalidArgument("UPDATE needs an updater");
  SILT_RETURN_NOT_OK(RequireClock(spec.options.clock, "DmlOptions"));
  const DmlOptions options = WithClock(spec.options);
  Clock& clock = *options.clock;
  const int64_t start = clock.NowMillis();
  const Snapshot& snap = *snapshot;
  SILT_RETURN_NOT_OK(snap.CheckWriteSupported(true, store->root()));
  const bool cdf = delta::ChangeDataFeedEnabled(snap.metadata());
  const Schema& schema = snap.schema();
  SILT_ASSIGN_OR_RETURN(Candidates cand, Classify(snap, spec.file_filter, spec.matcher != nullptr));
  SILT_ASSIGN_OR_RETURN(ScanLayout layout, MakeLayout(snap, spec.columns, true));

  RowChanges changes;
  changes.operation = "UPDATE";
  changes.extra_metrics = spec.extra_metrics;
  changes.parameters.Set("predicate", PredicateParameter(spec.predicate_sql));
  changes.metric_names = MetricNames::kUpdate;
  changes.start_time_ms = start;
  changes.metrics.files_skipped = cand.skipped;
  changes.read_predicate = ReadPredicateOf(spec.file_filter);
  ChangeRows pre{"update_preimage", {}}, post{"update_postimage", {}};

  std::vector<std::pair<const AddFile*, bool>> files;  // (file, every row matches)
  for (const AddFile* f : cand.all) files.emplace_back(f, true);
  for (const AddFile* f : cand.maybe) files.emplace_back(f, false);
  const int64_t scan_start = clock.NowMillis();
  delta::TableScanOptions so;
  so.with_row_index = true;
  SILT_ASSIGN_OR_RETURN(auto scan, delta::TableScan::Make(snapshot, so));
  for (const auto& [f, all] : files) {
    FileRowDeletion d{*f, DeletionVector(), false};
    const bool every_row = all;
    Status s = scan->ScanFile(*f, [&](DataChunk& chunk) -> Status {
      std::vector<uint32_t> idx;
      if (every_row) {
        idx = AllRows(chunk.size());
      } else {
        SILT_ASSIGN_OR_RETURN(idx, RunMatcher(spec.matcher, layout, chunk));
      }
      if (idx.empty()) return Status::OK();
      const int64_t* row = chunk.columns.back().data<int64_t>();
      std::vector<uint64_t> phys(idx.size());
      for (size_t i = 0; i < idx.size(); ++i) phys[i] = static_cast<uint64_t>(row[idx[i]]);
      SILT_RETURN_NOT_OK(d.rows.AddMany(phys.data(), phys.size()));
      DataChunk matched = Gather(chunk, schema.size(), idx);
      SILT_ASSIGN_OR_RETURN(DataChunk updated, spec.updater(matched));
      bool ok = updated.columns.size() == schema.size() && updated.size() == matched.size();
      for (size_t k = 0; ok && k < schema.size(); ++k) {
        ok = updated.columns[k].type()->Equals(*schema[k].type) &&
             updated.columns[k].size() == matched.size();
      }
      if (!ok) {
        return Status::InvalidArgument("the updater must return " + std::to_string(matched.size()) +
                                           " rows in the table's schema",
                                       kErrorUpdateRowCount);
      }
      changes.metrics.num_updated_rows += static_cast<int64_t>(idx.size());
      if (cdf) {
        pre.rows.push_back(std::move(matched));
        post.rows.push_back(updated);
      }
      changes.new_rows.push_back(std::move(updated));
      return Status::OK();
    });
    SILT_RETURN_NOT_OK(s);
    ++changes.metrics.files_read;
    changes.read_files.push_back(f->path);
    if (!d.rows.IsEmpty()) changes.deletions.push_back(std::move(d));
  }
  changes.metrics.scan_time_ms = clock.NowMillis() - scan_start;
  if (cdf) {
    changes.change_rows.push_back(std::move(pre));
    changes.change_rows.push_back(std::move(post));
  }
  const int64_t updated_rows = changes.metrics.num_updated_rows;
  SILT_ASSIGN_OR_RETURN(DmlResult r, ApplyRowChanges(std::move(store), std::move(snapshot),
                                                     std::move(changes), options));
  r.num_affected_rows = updated_rows;
  return r;
}

}  // namespace silt::ops
