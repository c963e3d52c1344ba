#include "ops/optimize.h"

#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <climits>
#include <deque>
#include <map>
#include <mutex>
#include <numeric>
#include <set>

#include "common/ascii.h"
#include "common/error_classes.h"
#include "delta/clustering.h"
#include "delta/iceberg_compat.h"
#include "delta/json_util.h"
#include "delta/scan.h"
#include "delta/stats_json.h"
#include "delta/table_features.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "delta/z85.h"
#include "ops/dml.h"
#include "ops/ops.h"

namespace silt::ops {

namespace {

std::string JsonStr(const std::string& s) {
  std::string out;
  delta::AppendJacksonString(&out, s);
  return out;
}

std::optional<int64_t> NumRecords(const delta::AddFile& f) {
  if (!f.stats) return std::nullopt;
  Result<delta::FileStats> st = delta::ParseStats(*f.stats, {});
  if (!st.ok()) return std::nullopt;
  return st->num_records;
}

FileSizeStats SizeStats(const std::vector<int64_t>& sizes) {
  FileSizeStats s;
  if (sizes.empty()) return s;
  s.min = *std::min_element(sizes.begin(), sizes.end());
  s.max = *std::max_element(sizes.begin(), sizes.end());
  s.total_files = static_cast<int64_t>(sizes.size());
  s.total_size = std::accumulate(sizes.begin(), sizes.end(), int64_t{0});
  s.avg = static_cast<double>(s.total_size) / static_cast<double>(sizes.size());
  return s;
}

// Concatenates chunks into one (the bin's rows, for sorting).
DataChunk Concat(std::vector<DataChunk>& chunks, const Schema& schema) {
  DataChunk out = DataChunk::FromSchema(schema);
  size_t n = 0;
  for (auto& c : chunks) {
    for (size_t i = 0; i < out.columns.size(); ++i)
      out.columns[i].AppendRange(c.columns[i], 0, c.size());
    n += c.size();
  }
  out.num_rows_without_columns = n;
  chunks.clear();
  return out;
}

// Three-way comparison of rows a and b of a primitive vector (NULLs first).
int CompareRows(const Vector& v, uint32_t a, uint32_t b) {
  bool na = v.IsNull(a), nb = v.IsNull(b);
  if (na || nb) return na == nb ? 0 : (na ? -1 : 1);
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  switch (v.id()) {
    case TypeId::kBoolean:
      return cmp(v.Get<uint8_t>(a), v.Get<uint8_t>(b));
    case TypeId::kInt8:
      return cmp(v.Get<int8_t>(a), v.Get<int8_t>(b));
    case TypeId::kInt16:
      return cmp(v.Get<int16_t>(a), v.Get<int16_t>(b));
    case TypeId::kInt32:
    case TypeId::kDate:
      return cmp(v.Get<int32_t>(a), v.Get<int32_t>(b));
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return cmp(v.Get<int64_t>(a), v.Get<int64_t>(b));
    case TypeId::kFloat:
      return cmp(v.Get<float>(a), v.Get<float>(b));
    case TypeId::kDouble:
      return cmp(v.Get<double>(a), v.Get<double>(b));
    case TypeId::kDecimal:
      return cmp(v.Get<int128_t>(a), v.Get<int128_t>(b));
    case TypeId::kString:
    case TypeId::kBinary:
      return v.GetString(a).compare(v.GetString(b)) < 0
                 ? -1
                 : (v.GetString(a) == v.GetString(b) ? 0 : 1);
    default:
      return 0;
  }
}

constexpr uint32_t kNumRanges = 1000;  // spark.databricks.io.skipping.mdc.rangeId.max
// Delta's hilbert_index bits: numberOfTrailingZeros(highestOneBit(kNumRanges)) + 1.
constexpr int kHilbertBits = 10;

// Range ids of a column: rows ranked by value, ranks scaled to [1, kNumRanges]; equal values
// share an id; NULL is range 0.
std::vector<uint32_t> RangeIds(const Vector& v) {
  size_t n = v.size();
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return CompareRows(v, a, b) < 0; });
  std::vector<uint32_t> ids(n, 0);
  size_t rank = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i == 0 || CompareRows(v, order[i - 1], order[i]) != 0) rank = i;
    uint32_t row = order[i];
    ids[row] = v.IsNull(row)
                   ? 0
                   : 1 + static_cast<uint32_t>(rank * (kNumRanges - 1) / std::max<size_t>(n, 1));
  }
  return ids;
}

// The rows of a bin when every file's statistics give its record count (stats minus the DV's
// cardinality); nullopt otherwise.
std::optional<int64_t> LiveRows(const std::vector<const delta::AddFile*>& files) {
  int64_t rows = 0;
  for (const delta::AddFile* f : files) {
    std::optional<int64_t> n = NumRecords(*f);
    if (!n) return std::nullopt;
    rows += *n - (f->deletion_vector ? f->deletion_vector->cardinality : 0);
  }
  return std::max<int64_t>(rows, 0);
}

// Reads `files` in parallel on `pool` and hands their non-empty chunks to `consume` in file
// order, each as soon as the chunks before it were consumed, so reading the next files overlaps
// writing the earlier ones and a chunk is dropped once written. Nobody waits for the consumer:
// the thread that queues a chunk consumes whatever is ready in order if the consumer is free,
// and otherwise goes on reading (the thread consuming checks again before it lets go).
Status ScanInOrder(const delta::TableScan& scan, const std::vector<const delta::AddFile*>& files,
                   ThreadPool* pool, const std::function<Status(DataChunk&)>& consume) {
  struct Slot {
    std::deque<DataChunk> chunks;
    bool done = false;
  };
  std::vector<Slot> slots(files.size());
  std::mutex mu;  // guards slots and next
  size_t next = 0;
  std::atomic<bool> consuming{
      false};  // a flag, not a mutex: the consumer's own nested pool work may try it
  std::atomic<bool> failed{false};
  Status consume_error;  // written by the consumer only, read after every task finished
  Status read_error;     // the first file that failed (guarded by mu): others just stop
  // The next chunk in order, if it was read (mu held).
  auto ready = [&]() -> DataChunk* {
    while (next < slots.size() && slots[next].done && slots[next].chunks.empty()) ++next;
    return next < slots.size() && !slots[next].chunks.empty() ? &slots[next].chunks.front()
                                                              : nullptr;
  };
  auto drain = [&]() {
    for (;;) {
      bool expected = false;
      if (!consuming.compare_exchange_strong(expected, true)) return;
      for (;;) {
        DataChunk chunk;
        {
          std::lock_guard<std::mutex> lock(mu);
          DataChunk* c = ready();
          if (!c) break;
          chunk = std::move(*c);
          slots[next].chunks.pop_front();
        }
        if (failed.load()) continue;  // dropped: the statement fails anyway
        Status st = consume(chunk);
        if (!st.ok()) {
          consume_error = std::move(st);
          failed.store(true);
        }
      }
      consuming.store(false);
      // A chunk queued after the check above found the consumer busy: take it over.
      std::lock_guard<std::mutex> lock(mu);
      if (!ready()) return;
    }
  };
  Status st = ParallelFor(pool, files.size(), [&](size_t i) -> Status {
    Status read = scan.ScanFile(*files[i], [&](DataChunk& c) -> Status {
      if (failed.load()) return Status::Cancelled("another file of the bin failed");
      if (c.size() == 0) return Status::OK();
      {
        std::lock_guard<std::mutex> lock(mu);
        slots[i].chunks.push_back(std::move(c));
      }
      drain();
      return Status::OK();
    });
    {
      std::lock_guard<std::mutex> lock(mu);
      slots[i].done = true;
      if (!read.ok() && read.code() != StatusCode::kCancelled && read_error.ok()) read_error = read;
    }
    if (!read.ok()) {
      failed.store(true);
      return read;
    }
    drain();
    return Status::OK();
  });
  drain();
  if (!consume_error.ok()) return consume_error;
  if (!read_error.ok()) return read_error;  // not a file that stopped because of it
  return st;
}

}  // namespace

std::string PartitionKey(const delta::AddFile& f) {
  std::string k;
  for (const auto& [name, v] : f.partition_values) {
    k += name;
    k += v ? "=" + *v : "\x01";
    k += '\0';
  }
  return k;
}

std::string InterleaveBits(const std::vector<uint32_t>& ids) {
  std::string out(ids.size() * 4, '\0');
  size_t bit = 0;
  for (int b = 31; b >= 0; --b) {
    for (uint32_t id : ids) {
      if ((id >> b) & 1u) out[bit / 8] = static_cast<char>(out[bit / 8] | (0x80 >> (bit % 8)));
      ++bit;
    }
  }
  return out;
}

uint64_t HilbertIndex(std::vector<uint32_t> x, int bits) {
  const size_t n = x.size();
  if (n == 0 || bits <= 0) return 0;
  const uint32_t m = 1u << (bits - 1);
  // Inverse undo excess work (Skilling, "Programming the Hilbert curve", AxesToTranspose).
  for (uint32_t q = m; q > 1; q >>= 1) {
    const uint32_t p = q - 1;
    for (size_t i = 0; i < n; ++i) {
      if (x[i] & q) {
        x[0] ^= p;
      } else {
        uint32_t t = (x[0] ^ x[i]) & p;
        x[0] ^= t;
        x[i] ^= t;
      }
    }
  }
  // Gray encode.
  for (size_t i = 1; i < n; ++i) x[i] ^= x[i - 1];
  uint32_t t = 0;
  for (uint32_t q = m; q > 1; q >>= 1)
    if (x[n - 1] & q) t ^= q - 1;
  for (size_t i = 0; i < n; ++i) x[i] ^= t;
  // The transposed index, most significant bits first.
  uint64_t h = 0;
  for (int b = bits - 1; b >= 0; --b)
    for (size_t i = 0; i < n; ++i) h = (h << 1) | ((x[i] >> b) & 1u);
  return h;
}

namespace {

// A file's z-cube (Delta's ZCubeInfo tags): its id and the columns it was clustered by.
struct ZCube {
  std::string id;
  std::vector<std::string> columns;
};

std::optional<ZCube> ZCubeOf(const delta::AddFile& f) {
  if (!f.tags) return std::nullopt;
  const std::string* id = f.tags->Find(delta::kZCubeIdTag);
  const std::string* by = f.tags->Find(delta::kZCubeZOrderByTag);
  if (!id || !by) return std::nullopt;
  ZCube z{*id, {}};
  simdjson::dom::parser parser;
  simdjson::dom::array cols;
  if (parser.parse(*by).get(cols)) return z;  // unreadable columns: clustered by "other" ones
  for (simdjson::dom::element c : cols) {
    std::string_view name;
    if (c.get(name)) return ZCube{*id, {"\x01"}};
    z.columns.emplace_back(name);
  }
  return z;
}

// Liquid clustering's candidate files in bin order (Delta's ClusteringStrategy.applyMinZCube;
// see optimize.h).
std::vector<const delta::AddFile*> ClusteringCandidates(
    const std::vector<const delta::AddFile*>& files, const std::vector<std::string>& columns,
    const OptimizeOptions& o) {
  struct Entry {
    const delta::AddFile* file;
    std::optional<ZCube> zcube;
  };
  std::vector<Entry> entries;
  for (const delta::AddFile* f : files) {
    Entry e{f, ZCubeOf(*f)};
    if (!o.full) {
      bool provider_ok =
          !f->clustering_provider || *f->clustering_provider == delta::kLiquidClusteringProvider;
      bool other_columns = e.zcube && e.zcube->columns != columns;
      if (!provider_ok || other_columns) continue;
    }
    entries.push_back(std::move(e));
  }
  // Unclustered files first, then by z-cube id (the path orders files within one).
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    if (a.zcube.has_value() != b.zcube.has_value()) return !a.zcube.has_value();
    if (a.zcube && a.zcube->id != b.zcube->id) return a.zcube->id < b.zcube->id;
    return a.file->path < b.file->path;
  });
  std::vector<const delta::AddFile*> out;
  if (o.full) {
    for (const auto& e : entries) out.push_back(e.file);
    return out;
  }
  // Drop the z-cubes that reached the minimum size.
  std::vector<const delta::AddFile*> kept;
  size_t unclustered = 0;
  std::set<std::string> cubes;
  for (size_t i = 0; i < entries.size();) {
    if (!entries[i].zcube) {
      kept.push_back(entries[i].file);
      ++unclustered;
      ++i;
      continue;
    }
    size_t j = i;
    int64_t bytes = 0;
    while (j < entries.size() && entries[j].zcube && entries[j].zcube->id == entries[i].zcube->id)
      bytes += entries[j++].file->size;
    if (bytes < o.clustering_min_cube_size) {
      for (size_t k = i; k < j; ++k) kept.push_back(entries[k].file);
      cubes.insert(entries[i].zcube->id);
    }
    i = j;
  }
  // One z-cube alone is already clustered: nothing to do.
  if (unclustered == 0 && cubes.size() <= 1) return out;
  return kept;
}

}  // namespace

namespace {

// A bin's new files: dataChange=false and, on a clustered table, one new z-cube for the bin.
std::vector<delta::AddFile> FinishBin(std::vector<delta::AddFile> added,
                                      const std::vector<std::string>& clustering) {
  const std::string zcube = clustering.empty() ? "" : delta::Uuid::Random().ToString();
  for (auto& a : added) {
    a.data_change = false;
    if (clustering.empty()) continue;
    if (!a.tags) a.tags = delta::StringMap{};
    a.tags->Set(delta::kZCubeIdTag, zcube);
    a.tags->Set(delta::kZCubeZOrderByTag, delta::ClusteringColumnsJson(clustering));
    a.clustering_provider = delta::kLiquidClusteringProvider;
  }
  return added;
}

// Liquid clustering: OPTIMIZE (kCompact) on a table with clustering columns clusters by them.
// Empty: the table is not clustered or the mode is not kCompact.
Result<std::vector<std::string>> ClusterColumns(const delta::Snapshot& snap,
                                                const OptimizeOptions& o) {
  if (o.mode != OptimizeOptions::Mode::kCompact) return std::vector<std::string>{};
  return delta::ClusteringColumns(snap);
}

}  // namespace

Result<OptimizeResult> Optimize(std::shared_ptr<ObjectStore> store, const OptimizeOptions& o) {
  SILT_RETURN_NOT_OK(RequireClock(o.clock, "OptimizeOptions"));
  SILT_ASSIGN_OR_RETURN(
      std::shared_ptr<const delta::Snapshot> snap,
      delta::Snapshot::Load(store, std::nullopt,
                            delta::SnapshotOptions{.read_confinement = o.read_confinement}));
  SILT_ASSIGN_OR_RETURN(OptimizePlan plan, PlanOptimize(store, snap, o));
  if (plan.bins.empty()) return plan.result;
  std::vector<std::vector<delta::AddFile>> added(plan.bins.size());
  SILT_RETURN_NOT_OK(ParallelFor(o.pool, plan.bins.size(), [&](size_t b) -> Status {
    SILT_ASSIGN_OR_RETURN(added[b], RewriteOptimizeBin(store, snap, plan.bins[b], o));
    return Status::OK();
  }));
  return CommitOptimize(store, plan, std::move(added), o);
}

Result<OptimizePlan> PlanOptimize(const std::shared_ptr<ObjectStore>& store,
                                  std::shared_ptr<const delta::Snapshot> snap,
                                  const OptimizeOptions& o) {
  SILT_RETURN_NOT_OK(RequireClock(o.clock, "OptimizeOptions"));
  OptimizePlan plan;
  OptimizeResult& result = plan.result;
  result.table_path = store->root();
  result.start_time_ms = o.clock->NowMillis();
  SILT_RETURN_NOT_OK(snap->CheckWriteSupported(false, store->root()));
  const Schema& schema = snap->schema();
  const auto& parts = snap->partition_columns();
  SILT_ASSIGN_OR_RETURN(const std::vector<std::string> clustering, delta::ClusteringColumns(*snap));
  if (delta::IsClusteredTable(*snap) && o.mode == OptimizeOptions::Mode::kZOrder) {
    std::string z;
    for (const auto& c : o.zorder_by) z += (z.empty() ? "" : ", ") + c;
    return Status::InvalidArgument(
        "OPTIMIZE command for Delta table with clustering cannot specify ZORDER BY. Please "
        "remove ZORDER BY (" +
            z + ").",
        errc::kDeltaClusteringWithZorderBy);
  }
  if (o.full && clustering.empty()) {
    return Status::Unsupported(
        "OPTIMIZE FULL is only supported for clustered tables with "
        "non-empty clustering columns.",
        errc::kDeltaOptimizeFullNotSupported);
  }
  const bool cluster = o.mode == OptimizeOptions::Mode::kCompact && !clustering.empty();
  for (const auto& z : o.zorder_by) {
    int fi = FindField(schema, z);
    if (fi < 0) {
      return Status::InvalidArgument("Z-Ordering column " + z + " does not exist in data schema.",
                                     errc::kDeltaZorderingColumnDoesNotExist);
    }
    for (const auto& p : parts) {
      if (EqualsIgnoreCase(p, z)) {
        return Status::InvalidArgument(
            z + " is a partition column. Z-Ordering can only be performed on data columns",
            errc::kDeltaZorderingOnPartitionColumn);
      }
    }
  }

  // 1. Candidates.
  struct Candidate {
    const delta::AddFile* file;
    bool for_deleted_rows;
  };
  std::map<std::string, std::vector<Candidate>> by_partition;
  std::vector<const delta::AddFile*> considered;
  for (const auto& f : snap->files()) {
    if (o.partition_filter) {
      SILT_ASSIGN_OR_RETURN(bool keep, o.partition_filter(f));
      if (!keep) continue;
    }
    ++result.total_considered_files;
    if (cluster) {
      considered.push_back(&f);
      continue;
    }
    bool has_dv = f.deletion_vector && f.deletion_vector->cardinality > 0;
    std::optional<int64_t> records = NumRecords(f);
    bool excess = false;
    if (f.deletion_vector) {
      if (!records)
        excess = true;
      else if (*records > 0)
        excess =
            static_cast<double>(f.deletion_vector->cardinality) / static_cast<double>(*records) >
            o.max_deleted_rows_ratio;
    }
    bool selected = false;
    switch (o.mode) {
      case OptimizeOptions::Mode::kCompact:
        selected = f.size < o.min_file_size || excess;
        break;
      case OptimizeOptions::Mode::kZOrder:
        selected = true;
        break;
      case OptimizeOptions::Mode::kReorgPurge:
        selected = has_dv || (f.deletion_vector && !records);
        break;
      case OptimizeOptions::Mode::kUpgradeUniform: {
        const std::string* tag = f.tags ? f.tags->Find(delta::kIcebergCompatVersionTag) : nullptr;
        selected = !tag || *tag != "2";
        break;
      }
    }
    if (!selected) continue;
    by_partition[PartitionKey(f)].push_back({&f, excess});
  }

  // 2. Bins.
  std::vector<std::vector<const delta::AddFile*>>& bins = plan.bins;
  std::set<std::string> partitions;
  if (cluster) {
    // Each bin becomes one z-cube (clustered tables are unpartitioned).
    const int64_t limit = std::max(o.clustering_target_cube_size, o.clustering_min_cube_size);
    int64_t size = 0;
    for (const delta::AddFile* f : ClusteringCandidates(considered, clustering, o)) {
      if (bins.empty() || (!bins.back().empty() && size + f->size > limit)) {
        bins.emplace_back();
        size = 0;
      }
      bins.back().push_back(f);
      size += f->size;
      partitions.insert(PartitionKey(*f));
    }
  }
  for (auto& [key, files] : by_partition) {
    std::sort(files.begin(), files.end(),
              [](const Candidate& a, const Candidate& b) { return a.file->size < b.file->size; });
    int64_t limit = o.mode == OptimizeOptions::Mode::kZOrder ? INT64_MAX : o.max_file_size;
    std::vector<std::vector<Candidate>> pbins(1);
    int64_t size = 0;
    for (const auto& c : files) {
      if (!pbins.back().empty() && size + c.file->size > limit) {
        pbins.emplace_back();
        size = 0;
      }
      pbins.back().push_back(c);
      size += c.file->size;
    }
    for (auto& b : pbins) {
      if (b.empty()) continue;
      bool keep_single = o.mode != OptimizeOptions::Mode::kCompact || b[0].for_deleted_rows;
      if (b.size() == 1 && !keep_single) continue;
      std::vector<const delta::AddFile*> bin;
      for (const auto& c : b) bin.push_back(c.file);
      bins.push_back(std::move(bin));
      partitions.insert(key);
    }
  }
  result.num_bins = static_cast<int64_t>(bins.size());
  result.partitions_optimized = static_cast<int64_t>(partitions.size());
  int64_t selected_files = 0;
  for (const auto& b : bins) selected_files += static_cast<int64_t>(b.size());
  result.total_files_skipped = result.total_considered_files - selected_files;
  if (bins.empty()) result.end_time_ms = o.clock->NowMillis();
  plan.snapshot = std::move(snap);
  return plan;
}

Result<std::vector<delta::AddFile>> RewriteOptimizeBin(
    const std::shared_ptr<ObjectStore>& store, const std::shared_ptr<const delta::Snapshot>& snap,
    const std::vector<const delta::AddFile*>& in, const OptimizeOptions& o) {
  SILT_RETURN_NOT_OK(RequireClock(o.clock, "OptimizeOptions"));
  // The bin's files are read in parallel too (a table of small files is often one bin); the
  // pool's ParallelFor runs nested calls on the calling worker as well.
  if (o.cancelled && o.cancelled->load()) return Status::Cancelled("OPTIMIZE cancelled");
  const Schema& schema = snap->schema();
  SILT_ASSIGN_OR_RETURN(const std::vector<std::string> clustering, ClusterColumns(*snap, o));
  const bool cluster = !clustering.empty();
  // The columns of the space-filling curve: the clustering columns or ZORDER BY's.
  const std::vector<std::string>& curve_columns = cluster ? clustering : o.zorder_by;
  SILT_ASSIGN_OR_RETURN(std::unique_ptr<delta::TableScan> scan, delta::TableScan::Make(snap));
  std::vector<delta::AddFile> added;
  delta::DataWriteOptions write;
  write.clock = o.clock;
  write.row_validator = o.row_validator;
  // Columns are encoded in parallel too: a table of small files is often a single bin.
  write.parquet.pool = o.pool;
  const bool sort = !curve_columns.empty() && o.mode != OptimizeOptions::Mode::kReorgPurge &&
                    o.mode != OptimizeOptions::Mode::kUpgradeUniform;
  // Without sorting, and with the row count known from the files' statistics (to cut files
  // evenly), rows are written while the next ones are read.
  std::optional<int64_t> live = sort ? std::nullopt : LiveRows(in);
  if (live) {
    int64_t bytes = 0;
    for (const delta::AddFile* f : in) bytes += f->size;
    delta::DataWriteOptions w = write;
    int64_t files = std::max<int64_t>(1, bytes / std::max<int64_t>(o.max_file_size, 1));
    w.max_rows_per_file = std::max<int64_t>(1, (*live + files - 1) / files);
    SILT_ASSIGN_OR_RETURN(auto writer,
                          delta::DataFileWriter::Make(*store, snap->metadata(), schema, w));
    Status st = ScanInOrder(*scan, in, o.pool, [&](DataChunk& c) { return writer->Write(c); });
    if (!st.ok()) {
      writer->Abort();
      return st;
    }
    SILT_ASSIGN_OR_RETURN(added, writer->Finish());
    return FinishBin(std::move(added), clustering);
  }
  std::vector<std::vector<DataChunk>> per_file(in.size());
  auto read = [&](size_t i) -> Status {
    return scan->ScanFile(*in[i], [&](DataChunk& c) -> Status {
      if (c.size()) per_file[i].push_back(std::move(c));
      return Status::OK();
    });
  };
  SILT_RETURN_NOT_OK(ParallelFor(o.pool, in.size(), read));
  std::vector<DataChunk> chunks;
  int64_t bytes = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    bytes += in[i]->size;
    for (auto& c : per_file[i]) chunks.push_back(std::move(c));
  }
  per_file.clear();
  size_t rows = 0;
  for (const auto& c : chunks) rows += c.size();
  if (rows == 0) return added;  // every row was deleted: the files just go away
  // The writer cuts files by max_rows_per_file across chunks, so the rows are only
  // concatenated when they are to be sorted.
  if (sort) {
    DataChunk all = Concat(chunks, schema);
    std::vector<std::vector<uint32_t>> ids;
    for (const auto& z : curve_columns) ids.push_back(RangeIds(all.columns[FindField(schema, z)]));
    std::vector<uint32_t> order(rows);
    std::iota(order.begin(), order.end(), 0);
    std::vector<uint32_t> row_ids(ids.size());
    if (cluster && ids.size() > 1) {
      // Liquid clustering: a Hilbert curve over the range ids (10 bits hold 0..kNumRanges).
      std::vector<uint64_t> hvals(rows);
      for (size_t r = 0; r < rows; ++r) {
        for (size_t k = 0; k < ids.size(); ++k) row_ids[k] = ids[k][r];
        hvals[r] = HilbertIndex(row_ids, kHilbertBits);
      }
      std::stable_sort(order.begin(), order.end(),
                       [&](uint32_t a, uint32_t c) { return hvals[a] < hvals[c]; });
    } else {
      std::vector<std::string> zvals(rows);
      for (size_t r = 0; r < rows; ++r) {
        for (size_t k = 0; k < ids.size(); ++k) row_ids[k] = ids[k][r];
        zvals[r] = InterleaveBits(row_ids);
      }
      std::stable_sort(order.begin(), order.end(),
                       [&](uint32_t a, uint32_t c) { return zvals[a] < zvals[c]; });
    }
    DataChunk sorted = DataChunk::FromSchema(schema);
    for (size_t i = 0; i < sorted.columns.size(); ++i)
      sorted.columns[i].AppendSelected(all.columns[i], order.data(), rows);
    sorted.num_rows_without_columns = rows;
    chunks.clear();
    chunks.push_back(std::move(sorted));
  }
  delta::DataWriteOptions w = write;
  int64_t files = std::max<int64_t>(1, bytes / std::max<int64_t>(o.max_file_size, 1));
  w.max_rows_per_file = std::max<int64_t>(1, (static_cast<int64_t>(rows) + files - 1) / files);
  SILT_ASSIGN_OR_RETURN(added, delta::WriteDataFiles(*store, snap->metadata(), schema, chunks, w));
  return FinishBin(std::move(added), clustering);
}

Result<OptimizeResult> CommitOptimize(const std::shared_ptr<ObjectStore>& store,
                                      const OptimizePlan& plan,
                                      std::vector<std::vector<delta::AddFile>> added,
                                      const OptimizeOptions& o) {
  SILT_RETURN_NOT_OK(RequireClock(o.clock, "OptimizeOptions"));
  if (added.size() != plan.bins.size()) {
    return Status::InvalidArgument("OPTIMIZE commit: " + std::to_string(added.size()) +
                                       " rewritten bins for a plan of " +
                                       std::to_string(plan.bins.size()),
                                   errc::kSiltOptimizeBinMismatch);
  }
  OptimizeResult result = plan.result;
  if (plan.bins.empty()) return result;
  const std::shared_ptr<const delta::Snapshot>& snap = plan.snapshot;
  SILT_ASSIGN_OR_RETURN(const std::vector<std::string> clustering, ClusterColumns(*snap, o));
  const bool cluster = !clustering.empty();
  // One commit: removes and adds, dataChange=false.
  delta::TransactionOptions topts;
  topts.clock = o.clock;
  topts.isolation_level = "SnapshotIsolation";
  topts.user_name = o.commit_user_name;
  topts.user_metadata = o.commit_user_metadata;
  delta::Transaction txn(store, snap, topts);
  int64_t now = o.clock->NowMillis();
  std::vector<int64_t> removed_sizes, added_sizes;
  for (const auto& bin : plan.bins) {
    for (const delta::AddFile* f : bin) {
      txn.Remove(delta::MakeRemove(*f, now, /*data_change=*/false));
      txn.AddReadFile(f->path);
      removed_sizes.push_back(f->size);
      if (f->deletion_vector) {
        ++result.num_deletion_vectors_removed;
        result.num_deletion_vector_rows_removed += f->deletion_vector->cardinality;
      }
    }
  }
  for (auto& v : added) {
    for (auto& a : v) {
      added_sizes.push_back(a.size);
      txn.Add(std::move(a));
    }
  }
  txn.SetReadScope(delta::ReadScope::kPartitions);
  result.num_files_removed = static_cast<int64_t>(removed_sizes.size());
  result.num_files_added = static_cast<int64_t>(added_sizes.size());
  result.files_added = SizeStats(added_sizes);
  result.files_removed = SizeStats(removed_sizes);
  result.num_batches = 1;

  delta::StringMap params;
  params.Set("predicate", JsonStr("[" + o.predicate_text + "]"));
  if (o.mode == OptimizeOptions::Mode::kReorgPurge ||
      o.mode == OptimizeOptions::Mode::kUpgradeUniform) {
    params.Set("applyPurge", o.mode == OptimizeOptions::Mode::kReorgPurge ? "true" : "false");
    txn.SetOperation("REORG", params);
  } else {
    std::string z = "[";
    for (size_t i = 0; i < o.zorder_by.size(); ++i) z += (i ? "," : "") + JsonStr(o.zorder_by[i]);
    params.Set("zOrderBy", JsonStr(z + "]"));
    params.Set(
        "clusterBy",
        JsonStr(delta::ClusteringColumnsJson(cluster ? clustering : std::vector<std::string>{})));
    params.Set("auto", "false");
    txn.SetOperation("OPTIMIZE", params);
  }
  std::vector<int64_t> sorted = added_sizes;
  std::sort(sorted.begin(), sorted.end());
  auto pct = [&](double p) {
    return sorted.empty() ? 0
                          : sorted[static_cast<size_t>(p * static_cast<double>(sorted.size() - 1))];
  };
  txn.SetMetric("numRemovedFiles", result.num_files_removed);
  txn.SetMetric("numAddedFiles", result.num_files_added);
  txn.SetMetric("numRemovedBytes", result.files_removed.total_size);
  txn.SetMetric("numAddedBytes", result.files_added.total_size);
  txn.SetMetric("minFileSize", result.files_added.min);
  txn.SetMetric("p25FileSize", pct(0.25));
  txn.SetMetric("p50FileSize", pct(0.5));
  txn.SetMetric("p75FileSize", pct(0.75));
  txn.SetMetric("maxFileSize", result.files_added.max);
  txn.SetMetric("numDeletionVectorsRemoved", result.num_deletion_vectors_removed);
  Result<delta::CommitResult> committed = txn.Commit();
  SILT_RETURN_NOT_OK(committed.status());
  result.committed_version = committed->version;
  result.end_time_ms = o.clock->NowMillis();
  return result;
}

namespace {

Status BadTask(const std::string& what) {
  return Status::InvalidArgument("not a distributed OPTIMIZE task or result: " + what,
                                 errc::kSiltInvalidDistributedTask);
}

const char* ModeName(OptimizeOptions::Mode m) {
  switch (m) {
    case OptimizeOptions::Mode::kZOrder:
      return "zorder";
    case OptimizeOptions::Mode::kReorgPurge:
      return "purge";
    case OptimizeOptions::Mode::kUpgradeUniform:
      return "upgradeUniform";
    case OptimizeOptions::Mode::kCompact:
      break;
  }
  return "compact";
}

void AppendAdds(std::string* out, const std::vector<delta::AddFile>& files) {
  *out += '[';
  for (size_t i = 0; i < files.size(); ++i) {
    if (i) *out += ',';
    *out += delta::SerializeAction(delta::Action(files[i]));
  }
  *out += ']';
}

Result<std::vector<delta::AddFile>> ParseAdds(simdjson::dom::element e) {
  simdjson::dom::array arr;
  if (e.get(arr)) return BadTask("the files are not an array");
  std::vector<delta::AddFile> out;
  for (simdjson::dom::element a : arr) {
    std::string line;
    delta::AppendJsonElement(&line, a);
    delta::Action action;
    SILT_RETURN_NOT_OK(delta::ParseActionLine(line, &action));
    delta::AddFile* add = action.get_if<delta::AddFile>();
    if (!add) return BadTask("a file that is not an add action");
    out.push_back(std::move(*add));
  }
  return out;
}

}  // namespace

std::string SerializeOptimizeTask(const OptimizeTask& t) {
  std::string out = "{\"job\":";
  delta::AppendJacksonString(&out, t.job);
  out += ",\"table\":";
  delta::AppendJacksonString(&out, t.table_uri);
  out += ",\"version\":";
  delta::AppendInt(&out, t.version);
  out += ",\"bin\":";
  delta::AppendInt(&out, t.bin);
  out += ",\"mode\":\"";
  out += ModeName(t.mode);
  out += "\",\"zorderBy\":[";
  for (size_t i = 0; i < t.zorder_by.size(); ++i) {
    if (i) out += ',';
    delta::AppendJacksonString(&out, t.zorder_by[i]);
  }
  out += "],\"maxFileSize\":";
  delta::AppendInt(&out, t.max_file_size);
  out += ",\"files\":";
  AppendAdds(&out, t.files);
  out += '}';
  return out;
}

Result<OptimizeTask> ParseOptimizeTask(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (parser.parse(json.data(), json.size()).get(obj)) return BadTask("not a JSON object");
  OptimizeTask t;
  std::string_view job, table, mode;
  simdjson::dom::array zorder;
  simdjson::dom::element files;
  if (obj["job"].get(job) || obj["table"].get(table) || obj["version"].get(t.version) ||
      obj["bin"].get(t.bin) || obj["mode"].get(mode) || obj["zorderBy"].get(zorder) ||
      obj["maxFileSize"].get(t.max_file_size) || obj["files"].get(files)) {
    return BadTask("a field is missing or mistyped");
  }
  t.job = std::string(job);
  t.table_uri = std::string(table);
  if (mode == "zorder") {
    t.mode = OptimizeOptions::Mode::kZOrder;
  } else if (mode == "purge") {
    t.mode = OptimizeOptions::Mode::kReorgPurge;
  } else if (mode == "upgradeUniform") {
    t.mode = OptimizeOptions::Mode::kUpgradeUniform;
  } else if (mode != "compact") {
    return BadTask("unknown mode " + std::string(mode));
  }
  for (simdjson::dom::element z : zorder) {
    std::string_view name;
    if (z.get(name)) return BadTask("a ZORDER BY column is not a string");
    t.zorder_by.emplace_back(name);
  }
  SILT_ASSIGN_OR_RETURN(t.files, ParseAdds(files));
  return t;
}

std::string SerializeOptimizeOutput(const OptimizeOutput& output) {
  std::string out = "{\"job\":";
  delta::AppendJacksonString(&out, output.job);
  out += ",\"bin\":";
  delta::AppendInt(&out, output.bin);
  out += ",\"added\":";
  AppendAdds(&out, output.added);
  out += '}';
  return out;
}

Result<OptimizeOutput> ParseOptimizeOutput(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (parser.parse(json.data(), json.size()).get(obj)) return BadTask("not a JSON object");
  OptimizeOutput out;
  std::string_view job;
  simdjson::dom::element added;
  if (obj["job"].get(job) || obj["bin"].get(out.bin) || obj["added"].get(added)) {
    return BadTask("a field is missing or mistyped");
  }
  out.job = std::string(job);
  SILT_ASSIGN_OR_RETURN(out.added, ParseAdds(added));
  return out;
}

std::vector<std::string> OptimizeTasks(const OptimizePlan& plan, const OptimizeOptions& options,
                                       const std::string& job, const std::string& table_uri) {
  std::vector<std::string> tasks;
  for (size_t b = 0; b < plan.bins.size(); ++b) {
    OptimizeTask task;
    task.job = job;
    task.table_uri = table_uri;
    task.version = plan.snapshot->version();
    task.bin = static_cast<int64_t>(b);
    task.mode = options.mode;
    task.zorder_by = options.zorder_by;
    task.max_file_size = options.max_file_size;
    for (const delta::AddFile* f : plan.bins[b]) task.files.push_back(*f);
    tasks.push_back(SerializeOptimizeTask(task));
  }
  return tasks;
}

Result<std::vector<std::vector<delta::AddFile>>> CollectOptimizeOutputs(
    const std::string& job, size_t num_bins, const std::vector<std::string>& outputs) {
  if (outputs.size() != num_bins) {
    return Status::InvalidArgument(
        std::to_string(outputs.size()) + " outputs for " + std::to_string(num_bins) + " tasks",
        errc::kSiltInvalidDistributedTask);
  }
  std::vector<std::vector<delta::AddFile>> added(num_bins);
  std::vector<bool> seen(num_bins, false);
  for (const std::string& text : outputs) {
    SILT_ASSIGN_OR_RETURN(OptimizeOutput out, ParseOptimizeOutput(text));
    if (out.job != job || out.bin < 0 || out.bin >= static_cast<int64_t>(num_bins) ||
        seen[static_cast<size_t>(out.bin)]) {
      return Status::InvalidArgument(
          "an output of another job, or a task's output given twice (bin " +
              std::to_string(out.bin) + ")",
          errc::kSiltInvalidDistributedTask);
    }
    seen[static_cast<size_t>(out.bin)] = true;
    added[static_cast<size_t>(out.bin)] = std::move(out.added);
  }
  return added;
}

Schema OptimizeResultSchema() {
  auto i64 = [](const char* n) { return Field{n, DataType::Int64(), true, "{}"}; };
  TypePtr sizes = DataType::Struct({i64("min"),
                                    i64("max"),
                                    {"avg", DataType::Double(), true, "{}"},
                                    i64("totalFiles"),
                                    i64("totalSize")});
  TypePtr dv =
      DataType::Struct({i64("numDeletionVectorsRemoved"), i64("numDeletionVectorRowsRemoved")});
  TypePtr metrics = DataType::Struct({i64("numFilesAdded"),
                                      i64("numFilesRemoved"),
                                      {"filesAdded", sizes, true, "{}"},
                                      {"filesRemoved", sizes, true, "{}"},
                                      i64("partitionsOptimized"),
                                      {"zOrderStats", DataType::String(), true, "{}"},
                                      i64("numBins"),
                                      i64("numBatches"),
                                      i64("totalConsideredFiles"),
                                      i64("totalFilesSkipped"),
                                      {"preserveInsertionOrder", DataType::Boolean(), true, "{}"},
                                      i64("startTimeMs"),
                                      i64("endTimeMs"),
                                      {"deletionVectorStats", dv, true, "{}"}});
  return {{"path", DataType::String(), true, "{}"}, {"metrics", metrics, true, "{}"}};
}

Result<DataChunk> OptimizeResultChunk(const OptimizeResult& r) {
  Schema schema = OptimizeResultSchema();
  const TypePtr& mt = schema[1].type;
  TypePtr sizes = mt->fields()[2].type;
  auto size_value = [&](const FileSizeStats& s) {
    return Value::Nested(sizes, {Value::Int64(s.min), Value::Int64(s.max), Value::Double(s.avg),
                                 Value::Int64(s.total_files), Value::Int64(s.total_size)});
  };
  Value metrics = Value::Nested(
      mt,
      {Value::Int64(r.num_files_added), Value::Int64(r.num_files_removed),
       size_value(r.files_added), size_value(r.files_removed), Value::Int64(r.partitions_optimized),
       Value::Null(DataType::String()), Value::Int64(r.num_bins), Value::Int64(r.num_batches),
       Value::Int64(r.total_considered_files), Value::Int64(r.total_files_skipped),
       Value::Boolean(false), Value::Int64(r.start_time_ms), Value::Int64(r.end_time_ms),
       Value::Nested(mt->fields()[13].type, {Value::Int64(r.num_deletion_vectors_removed),
                                             Value::Int64(r.num_deletion_vector_rows_removed)})});
  DataChunk c = DataChunk::FromSchema(schema);
  SILT_RETURN_NOT_OK(c.columns[0].AppendValue(Value::String(r.table_path)));
  SILT_RETURN_NOT_OK(c.columns[1].AppendValue(metrics));
  return c;
}

}  // namespace silt::ops
