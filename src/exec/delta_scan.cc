#include "exec/delta_scan.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>

#include "common/thread_pool.h"
#include "exec/basic_operators.h"
#include "exec/dictionary_filter.h"
#include "exec/input_file.h"
#include "io/http_object_store.h"

namespace silt::exec {

namespace {

// Files a scan on an object store opens ahead of the workers: opening one is a GET round trip
// (the whole object when small, else its first range), so with only the query's threads opening
// files a scan of many small files waits on one round trip per file and thread. Hadoop's ABFS
// and S3A read ahead on a queue of similar depth.
constexpr size_t kRemoteOpenAhead = 16;

// Opens files[i] on `depth` threads of its own, at most `depth` files ahead of the lowest index
// not yet taken; Take(i) waits for file i. Files are taken in increasing order (each once). The
// destructor stops the threads (a scan that ends early leaves files unopened).
class FileOpenAhead {
 public:
  using Opened = Result<std::unique_ptr<delta::TableScanFile>>;
  FileOpenAhead(const delta::TableScan& scan, const std::vector<const delta::AddFile*>& files,
                size_t depth)
      : scan_(scan), files_(files), depth_(depth), slots_(files.size()) {
    for (size_t t = 0; t < std::min(depth, files.size()); ++t)
      threads_.emplace_back([this] { Run(); });
  }
  ~FileOpenAhead() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  FileOpenAhead(const FileOpenAhead&) = delete;
  FileOpenAhead& operator=(const FileOpenAhead&) = delete;

  Opened Take(size_t i) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return slots_[i].has_value(); });
    Opened out = std::move(*slots_[i]);
    slots_[i].reset();
    ++taken_;
    lock.unlock();
    cv_.notify_all();
    return out;
  }

 private:
  void Run() {
    while (true) {
      size_t i;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || next_ >= files_.size() || next_ < taken_ + depth_; });
        if (stop_ || next_ >= files_.size()) return;
        i = next_++;
      }
      Opened opened = scan_.OpenFile(*files_[i]);
      {
        std::lock_guard<std::mutex> lock(mu_);
        slots_[i].emplace(std::move(opened));
      }
      cv_.notify_all();
    }
  }

  const delta::TableScan& scan_;
  const std::vector<const delta::AddFile*>& files_;
  const size_t depth_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::optional<Opened>> slots_;  // guarded by mu_
  size_t next_ = 0;                           // next file to open; guarded by mu_
  size_t taken_ = 0;                          // files taken; guarded by mu_
  bool stop_ = false;                         // guarded by mu_
  std::vector<std::thread> threads_;
};

enum class CmpKind { kEq, kNe, kLt, kLe, kGt, kGe };

template <typename T>
inline int CompareValues(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool na = a != a, nb = b != b;  // NaN: equal to NaN, above every number
    if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
  }
  return a < b ? -1 : (b < a ? 1 : 0);
}

// y is a column (kColumnY: row r's value) or a constant (y[0]); a NULL on either side drops the
// row.
template <typename T, CmpKind K, bool kColumnY>
size_t RefineLoop(const T* x, const uint8_t* xv, const T* y, const uint8_t* yv, uint32_t* rows,
                  size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t r = rows[i];
    const int cmp = CompareValues<T>(x[r], y[kColumnY ? r : 0]);
    bool keep;
    if constexpr (K == CmpKind::kEq) keep = cmp == 0;
    if constexpr (K == CmpKind::kNe) keep = cmp != 0;
    if constexpr (K == CmpKind::kLt) keep = cmp < 0;
    if constexpr (K == CmpKind::kLe) keep = cmp <= 0;
    if constexpr (K == CmpKind::kGt) keep = cmp > 0;
    if constexpr (K == CmpKind::kGe) keep = cmp >= 0;
    if (xv) keep = keep && xv[r];
    if (kColumnY && yv) keep = keep && yv[r];
    rows[k] = r;  // branch-free compaction, as EvaluateFilter's
    k += keep;
  }
  return k;
}

template <typename T, bool kColumnY>
size_t RefineOp(CmpKind op, const T* x, const uint8_t* xv, const T* y, const uint8_t* yv,
                std::vector<uint32_t>* sel) {
  uint32_t* rows = sel->data();
  const size_t n = sel->size();
  switch (op) {
    case CmpKind::kEq:
      return RefineLoop<T, CmpKind::kEq, kColumnY>(x, xv, y, yv, rows, n);
    case CmpKind::kNe:
      return RefineLoop<T, CmpKind::kNe, kColumnY>(x, xv, y, yv, rows, n);
    case CmpKind::kLt:
      return RefineLoop<T, CmpKind::kLt, kColumnY>(x, xv, y, yv, rows, n);
    case CmpKind::kLe:
      return RefineLoop<T, CmpKind::kLe, kColumnY>(x, xv, y, yv, rows, n);
    case CmpKind::kGt:
      return RefineLoop<T, CmpKind::kGt, kColumnY>(x, xv, y, yv, rows, n);
    case CmpKind::kGe:
      return RefineLoop<T, CmpKind::kGe, kColumnY>(x, xv, y, yv, rows, n);
  }
  return n;
}

// `col <op> c` (other == nullptr) or `col <op> other` (a column of the same type).
template <typename T>
size_t Refine(CmpKind op, const Vector& col, T c, const Vector* other, std::vector<uint32_t>* sel) {
  if (other)
    return RefineOp<T, true>(op, col.data<T>(), col.validity(), other->data<T>(), other->validity(),
                             sel);
  return RefineOp<T, false>(op, col.data<T>(), col.validity(), &c, nullptr, sel);
}

std::optional<CmpKind> ComparisonOf(const std::string& name) {
  if (name == "=" || name == "==") return CmpKind::kEq;
  if (name == "<>" || name == "!=") return CmpKind::kNe;
  if (name == "<") return CmpKind::kLt;
  if (name == "<=") return CmpKind::kLe;
  if (name == ">") return CmpKind::kGt;
  if (name == ">=") return CmpKind::kGe;
  return std::nullopt;
}

// `constant <op> column` as `column <mirrored op> constant`.
CmpKind Mirror(CmpKind op) {
  switch (op) {
    case CmpKind::kLt:
      return CmpKind::kGt;
    case CmpKind::kLe:
      return CmpKind::kGe;
    case CmpKind::kGt:
      return CmpKind::kLt;
    case CmpKind::kGe:
      return CmpKind::kLe;
    default:
      return op;
  }
}

}  // namespace

bool RefineByComparison(const Expr& filter, const DataChunk& chunk, std::vector<uint32_t>* sel) {
  if (filter.kind != ExprKind::kCall || filter.children.size() != 2 ||
      filter.type->id() != TypeId::kBoolean)
    return false;
  std::optional<CmpKind> op = ComparisonOf(filter.name);
  if (!op) return false;
  const Expr* column = filter.children[0].get();
  const Expr* operand = filter.children[1].get();
  if (column->kind == ExprKind::kConstant && operand->kind == ExprKind::kColumn) {
    std::swap(column, operand);
    op = Mirror(*op);
  }
  // A column as the binder typed it (not a placeholder) with all the chunk's rows.
  auto column_of = [&](const Expr* e) -> const Vector* {
    if (e->kind != ExprKind::kColumn || e->column < 0 ||
        static_cast<size_t>(e->column) >= chunk.columns.size())
      return nullptr;
    const Vector& v = chunk.columns[static_cast<size_t>(e->column)];
    if (!v.type()->Equals(*e->type) || v.size() != chunk.size()) return nullptr;
    return &v;
  };
  const Vector* colp = column_of(column);
  if (!colp) return false;
  const Vector& col = *colp;
  const Vector* other = nullptr;
  Value c;
  if (operand->kind == ExprKind::kConstant) {
    if (operand->constant.is_null() || !col.type()->Equals(*operand->constant.type())) return false;
    c = operand->constant;
  } else {
    other = column_of(operand);
    if (!other || !other->type()->Equals(*col.type())) return false;
  }
  size_t kept;
  switch (col.id()) {
    case TypeId::kInt8:
      kept = Refine<int8_t>(*op, col, other ? 0 : static_cast<int8_t>(c.integer()), other, sel);
      break;
    case TypeId::kInt16:
      kept = Refine<int16_t>(*op, col, other ? 0 : static_cast<int16_t>(c.integer()), other, sel);
      break;
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      kept = Refine<int32_t>(*op, col, other ? 0 : static_cast<int32_t>(c.integer()), other, sel);
      break;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
      kept = Refine<int64_t>(*op, col, other ? 0 : c.integer(), other, sel);
      break;
    case TypeId::kFloat:
      kept = Refine<float>(*op, col, other ? 0 : static_cast<float>(c.floating()), other, sel);
      break;
    case TypeId::kDouble:
      kept = Refine<double>(*op, col, other ? 0 : c.floating(), other, sel);
      break;
    case TypeId::kDecimal:
      kept = Refine<int128_t>(*op, col, other ? 0 : c.decimal(), other, sel);
      break;
    default:
      return false;
  }
  sel->resize(kept);
  return true;
}

Status SelectRows(const std::vector<ExprPtr>& filters, const EvalContext& ctx,
                  const DataChunk& chunk, std::vector<uint32_t>* sel, bool* all) {
  *all = true;
  sel->clear();
  std::vector<uint32_t> next;
  for (const ExprPtr& f : filters) {
    if (*all) {
      SILT_RETURN_NOT_OK(EvaluateFilter(*f, chunk, ctx, sel));
      *all = sel->size() == chunk.size();
      continue;
    }
    if (sel->empty()) break;
    if (RefineByComparison(*f, chunk, sel)) continue;
    // Later conjuncts see only the surviving rows, and only the columns they read.
    SILT_RETURN_NOT_OK(EvaluateFilter(*f, SubsetFor(*f, chunk, *sel), ctx, &next));
    for (size_t k = 0; k < next.size(); ++k) next[k] = (*sel)[next[k]];
    sel->swap(next);
  }
  return Status::OK();
}

Status ApplyFilters(const std::vector<ExprPtr>& filters, const EvalContext& ctx, DataChunk* chunk) {
  if (filters.empty() || chunk->size() == 0) return Status::OK();
  std::vector<uint32_t> sel;
  bool all;
  SILT_RETURN_NOT_OK(SelectRows(filters, ctx, *chunk, &sel, &all));
  if (all) return Status::OK();
  DataChunk out;
  out.num_rows_without_columns = sel.size();
  for (const Vector& v : chunk->columns) {
    Vector nv(v.type());
    nv.AppendSelected(v, sel.data(), sel.size());
    out.columns.push_back(std::move(nv));
  }
  *chunk = std::move(out);
  return Status::OK();
}

Result<std::unique_ptr<DeltaScanOperator>> DeltaScanOperator::Make(
    std::shared_ptr<const delta::Snapshot> snapshot, std::vector<std::string> columns,
    std::vector<const delta::AddFile*> files, std::vector<ExprPtr> filters,
    std::string table_name) {
  std::unique_ptr<DeltaScanOperator> op(new DeltaScanOperator());
  delta::TableScanOptions opts;
  opts.columns = columns;
  if (columns.empty() && !snapshot->schema().empty()) {
    // No columns needed (count(*)): read one column to learn the row counts — a partition column
    // when there is one (it comes from the log), else the first column.
    opts.columns = {snapshot->partition_columns().empty() ? snapshot->schema()[0].name
                                                          : snapshot->partition_columns()[0]};
  }
  SILT_ASSIGN_OR_RETURN(op->scan_, delta::TableScan::Make(snapshot, opts));
  op->snapshot_ = std::move(snapshot);
  op->files_ = std::move(files);
  op->filters_ = std::move(filters);
  op->table_name_ = std::move(table_name);
  if (columns.empty()) {
    op->schema_ = {};
  } else {
    op->schema_ = op->scan_->output_schema();
  }
  return op;
}

void DeltaScanOperator::SetProjection(std::vector<ExprPtr> exprs, Schema schema) {
  projection_ = std::move(exprs);
  schema_ = std::move(schema);
}

std::string DeltaScanOperator::details() const {
  std::string s = explain_details_.empty()
                      ? table_name_ + ", " + std::to_string(files_.size()) + " files"
                      : explain_details_;
  bool identity = projection_.size() == scan_->output_schema().size();
  for (size_t i = 0; identity && i < projection_.size(); ++i) {
    identity = projection_[i]->kind == ExprKind::kColumn &&
               projection_[i]->column == static_cast<int>(i) &&
               schema_[i].name == scan_->output_schema()[i].name;
  }
  if (!projection_.empty() && !identity) {
    s += " project=[";
    for (size_t i = 0; i < projection_.size(); ++i)
      s += (i ? ", " : "") + projection_[i]->ToString();
    s += "]";
  }
  return s;
}

Status DeltaScanOperator::SetFiles(std::vector<const delta::AddFile*> files) {
  if (started_) return Status::Internal("DeltaScan: files replaced after the scan started");
  files_ = std::move(files);
  return Status::OK();
}

std::string DeltaScanOperator::AnalyzeDetails() const {
  int64_t bytes = 0;
  for (const delta::AddFile* f : files_) bytes += f->size;
  std::string s = "numFilesRead=" + std::to_string(files_.size()) +
                  ", bytesRead=" + std::to_string(bytes) +
                  ", rowsOutput=" + std::to_string(rows_read_);
  if (!dfp_.considered) return s;
  char ms[32];
  std::snprintf(ms, sizeof(ms), "%.3f", dfp_.time_ms);
  s += std::string(", dfp.applied=") + (dfp_.applied ? "true" : "false") +
       ", dfp.reasonNotApplied=" +
       (dfp_.reason_not_applied.empty() ? "none" : dfp_.reason_not_applied);
  if (dfp_.files_before >= 0) {
    s += ", numFilesBeforeDfp=" + std::to_string(dfp_.files_before) +
         ", numFilesPrunedByDfp=" + std::to_string(dfp_.files_before - dfp_.files_after) +
         ", numFilesAfterDfp=" + std::to_string(dfp_.files_after) +
         ", bytesPrunedByDfp=" + std::to_string(dfp_.bytes_pruned) +
         ", dfpBuildDistinctValues=" + std::to_string(dfp_.build_distinct_values) +
         ", dfpFilterKind=" + dfp_.filter_kind + ", dfpTimeMs=" + ms +
         ", numRowGroupsPrunedByDfp=" + std::to_string(row_groups_pruned_.load());
    if (dfp_.bloom_refused) s += ", dfpBloomFilterRefused=memory_limit";
  }
  return s;
}

void DeltaScanOperator::BuildAllFilters() {
  all_filters_ = filters_;
  all_filters_.insert(all_filters_.end(), adaptive_filters_.begin(), adaptive_filters_.end());
  // Late materialization pays when the filters read some of the scan's columns only.
  auto late_columns = [&](const std::vector<ExprPtr>& filters) {
    std::vector<int> cols;
    for (const ExprPtr& f : filters) CollectColumns(*f, &cols);
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    const size_t width = scan_->output_schema().size();
    // Filters over every column still pay when one is a string: the file may hold it
    // dictionary-encoded, so its filters run once per dictionary value and only the chosen
    // rows' strings are built (ReadRowsSelecting).
    bool strings = false;
    for (int c : cols)
      strings = strings || (c >= 0 && static_cast<size_t>(c) < width &&
                            scan_->output_schema()[static_cast<size_t>(c)].type->is_binary_like());
    if (!late_materialization_ || cols.empty() || (cols.size() >= width && !strings) ||
        cols.front() < 0 || static_cast<size_t>(cols.back()) >= width)
      cols.clear();
    return cols;
  };
  late_static_ = late_columns(filters_);
  late_all_ = late_columns(all_filters_);
  // The columns the projection reads: Emit copies only these (a filter-only column such as Q6's
  // l_shipdate is dropped, not copied row by row and then projected away).
  projected_columns_.clear();
  if (!projection_.empty()) {
    std::vector<int> cols;
    for (const ExprPtr& e : projection_) CollectColumns(*e, &cols);
    const size_t width = scan_->output_schema().size();
    projected_columns_.assign(width, 0);
    for (int c : cols) {
      if (c < 0 || static_cast<size_t>(c) >= width) {
        projected_columns_.clear();  // not a scan column: copy everything, as before
        break;
      }
      projected_columns_[static_cast<size_t>(c)] = 1;
    }
  }
}

std::string DeltaScanOperator::adaptive_filter_state() const {
  if (adaptive_filters_.empty()) return "none";
  switch (adaptive_state_.load()) {
    case kKeep:
      return "kept";
    case kDrop:
      return "dropped";
    default:
      return "sampling";
  }
}

Status DeltaScanOperator::Select(ExecContext& ctx, const DataChunk& group,
                                 std::vector<uint32_t>* sel, bool* all) {
  return SelectAdaptive(
      [&](const std::vector<ExprPtr>& filters) {
        return SelectRows(filters, ctx.eval, group, sel, all);
      },
      group.size(), sel, all);
}

Status DeltaScanOperator::SelectWithDictionaries(
    ExecContext& ctx, DataChunk& group, std::vector<std::optional<DictionaryVector>>* dicts,
    std::vector<uint32_t>* sel, bool* all) {
  return SelectAdaptive(
      [&](const std::vector<ExprPtr>& filters) {
        return SelectRowsWithDictionaries(filters, ctx.eval, group, dicts, sel, all);
      },
      group.size(), sel, all);
}

Status DeltaScanOperator::SelectAdaptive(
    const std::function<Status(const std::vector<ExprPtr>&)>& select_rows, size_t rows,
    std::vector<uint32_t>* sel, bool* all) {
  *all = true;
  const int adaptive = adaptive_filters_.empty() ? kDrop : adaptive_state_.load();
  if (adaptive == kKeep) {
    SILT_RETURN_NOT_OK(select_rows(all_filters_));
  } else if (adaptive == kSampling) {
    // Rows after the other filters, then after the adaptive ones too: the adaptive filters'
    // own pass ratio.
    SILT_RETURN_NOT_OK(select_rows(filters_));
    const int64_t before = static_cast<int64_t>(*all ? rows : sel->size());
    SILT_RETURN_NOT_OK(select_rows(all_filters_));
    const int64_t after = static_cast<int64_t>(*all ? rows : sel->size());
    const int64_t seen = adaptive_seen_.fetch_add(before) + before;
    const int64_t passed = adaptive_passed_.fetch_add(after) + after;
    if (seen >= adaptive_sample_rows_) {
      int expected = kSampling;
      adaptive_state_.compare_exchange_strong(
          expected, static_cast<double>(passed) > kAdaptiveKeepRatio * static_cast<double>(seen)
                        ? kDrop
                        : kKeep);
    }
  } else {
    SILT_RETURN_NOT_OK(select_rows(filters_));
  }
  return Status::OK();
}

Status DeltaScanOperator::Emit(ExecContext& ctx, DataChunk& group, const std::vector<uint32_t>* sel,
                               bool all, const std::function<Status(DataChunk&)>& emit) {
  auto emit_projected = [&](DataChunk& chunk) -> Status {
    if (projection_.empty()) return emit(chunk);
    DataChunk projected;
    SILT_RETURN_NOT_OK(ProjectChunk(projection_, ctx.eval, &chunk, &projected));
    return emit(projected);
  };
  // The surviving rows go on in kChunkRows pieces, so later operators work on small vectors and
  // each column is copied once.
  const size_t rows = all ? group.size() : sel->size();
  if (all && rows <= kChunkRows) return emit_projected(group);
  for (size_t off = 0; off < rows; off += kChunkRows) {
    size_t n = std::min(kChunkRows, rows - off);
    DataChunk piece;
    piece.num_rows_without_columns = n;
    piece.columns.reserve(group.columns.size());
    for (size_t k = 0; k < group.columns.size(); ++k) {
      const Vector& c = group.columns[k];
      if (k < projected_columns_.size() && !projected_columns_[k]) {
        // Not read by the projection: a NULL-typed placeholder of the piece's length (free), so
        // the piece keeps its row count for expressions that read no column.
        Vector placeholder(DataType::Null());
        placeholder.Resize(n);
        piece.columns.push_back(std::move(placeholder));
        continue;
      }
      Vector v(c.type());
      if (all) {
        v.AppendRange(c, off, n);
      } else {
        v.AppendSelected(c, sel->data() + off, n);
      }
      piece.columns.push_back(std::move(v));
    }
    SILT_RETURN_NOT_OK(emit_projected(piece));
  }
  return Status::OK();
}

Status DeltaScanOperator::ScanGroup(ExecContext& ctx, DataChunk& group, std::vector<uint32_t>* sel,
                                    const std::function<Status(DataChunk&)>& emit) {
  if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
  if (schema_.empty()) {
    DataChunk c;
    c.num_rows_without_columns = group.size();
    return emit(c);
  }
  // A row group can hold millions of rows: its filters run over it once (conjunct by
  // conjunct on the survivors).
  bool all = true;
  SILT_RETURN_NOT_OK(Select(ctx, group, sel, &all));
  return Emit(ctx, group, sel, all, emit);
}

Status DeltaScanOperator::ReadUnit(ExecContext& ctx, const delta::TableScanFile& file,
                                   const ScanUnit& unit, std::vector<uint32_t>* sel,
                                   const std::function<Status(DataChunk&)>& emit) {
  const int adaptive = adaptive_filters_.empty() ? kDrop : adaptive_state_.load();
  const std::vector<int>& first = adaptive == kDrop ? late_static_ : late_all_;
  if (first.empty() || schema_.empty() || !late_on_.load(std::memory_order_relaxed))
    return file.ReadRows(unit.row_group, unit.begin, unit.end,
                         [&](DataChunk& group) { return ScanGroup(ctx, group, sel, emit); });
  if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
  // Late materialization: the filters' columns first; the other columns of the rows they keep.
  int64_t live = 0, kept = 0;
  SILT_RETURN_NOT_OK(file.ReadRowsSelecting(
      unit.row_group, unit.begin, unit.end, first,
      [&](DataChunk& partial, std::vector<std::optional<DictionaryVector>>* dicts,
          std::vector<uint32_t>* s, bool* all) -> Status {
        SILT_RETURN_NOT_OK(SelectWithDictionaries(ctx, partial, dicts, s, all));
        live = static_cast<int64_t>(partial.size());
        kept = *all ? live : static_cast<int64_t>(s->size());
        return Status::OK();
      },
      [&](DataChunk& chunk, const std::vector<uint32_t>* chosen) {
        return Emit(ctx, chunk, chosen, chosen == nullptr, emit);
      }));
  // When the filters keep nearly every row there is nothing to skip, and the chosen rows cost one
  // more copy: read whole units again.
  const int64_t seen = late_seen_.fetch_add(live, std::memory_order_relaxed) + live;
  const int64_t passed = late_kept_.fetch_add(kept, std::memory_order_relaxed) + kept;
  if (seen >= kAdaptiveSampleRows &&
      static_cast<double>(passed) > kLateKeepRatio * static_cast<double>(seen))
    late_on_.store(false, std::memory_order_relaxed);
  return Status::OK();
}

std::vector<DeltaScanOperator::ScanUnit> DeltaScanOperator::SplitFile(
    const delta::TableScanFile& file) {
  std::vector<ScanUnit> units;
  for (int rg = 0; rg < file.num_row_groups(); ++rg) {
    bool keep = true;
    for (const RowGroupFilter& f : row_group_filters_)
      keep = keep && file.RowGroupMayMatch(rg, f.column, f.alternatives);
    if (!keep) {
      row_groups_pruned_.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    for (const auto& [begin, end] : file.SplitRowGroup(rg, kScanUnitRows))
      units.push_back({rg, begin, end});
  }
  return units;
}

std::shared_ptr<const std::string> DeltaScanOperator::FileUri(size_t file) {
  // Called once per file index (by the worker or batch that opens it).
  if (file_uris_.size() != files_.size()) file_uris_.resize(files_.size());
  if (!file_uris_[file]) {
    // Spark's input_file_name(): the file's URI, encoded as the log's add.path is.
    const std::string& path = files_[file]->path;
    std::string uri;
    if (path.find("://") != std::string::npos || path.rfind("file:", 0) == 0) {
      uri = path;
    } else if (!path.empty() && path[0] == '/') {
      uri = "file://" + path;
    } else {
      uri = snapshot_->store()->root();
      if (!uri.empty() && uri.back() != '/') uri += '/';
      uri += path;
    }
    file_uris_[file] = std::make_shared<const std::string>(std::move(uri));
  }
  return file_uris_[file];
}

Status DeltaScanOperator::FillBatch(ExecContext& ctx) {
  size_t threads = ctx.pool ? ctx.pool->num_threads() + 1 : 1;
  size_t n = std::min(files_.size() - next_file_, std::max<size_t>(threads * 2, 1));
  std::vector<std::unique_ptr<delta::TableScanFile>> opened(n);
  SILT_RETURN_NOT_OK(ParallelFor(ctx.pool, n, [&](size_t i) -> Status {
    SILT_ASSIGN_OR_RETURN(opened[i], scan_->OpenFile(*files_[next_file_ + i]));
    return Status::OK();
  }));
  // One task per row range, so a batch of one big file still uses every thread.
  std::vector<std::pair<size_t, ScanUnit>> units;
  for (size_t i = 0; i < n; ++i)
    for (const ScanUnit& u : SplitFile(*opened[i])) units.emplace_back(i, u);
  std::vector<std::vector<DataChunk>> out(units.size());
  for (size_t i = 0; i < n; ++i) FileUri(next_file_ + i);
  SILT_RETURN_NOT_OK(ParallelFor(ctx.pool, units.size(), [&](size_t u) -> Status {
    std::vector<uint32_t> sel;
    const ScanUnit& unit = units[u].second;
    ScopedInputFile input_file(file_uris_[next_file_ + units[u].first]);
    return ReadUnit(ctx, *opened[units[u].first], unit, &sel, [&](DataChunk& c) {
      out[u].push_back(std::move(c));
      return Status::OK();
    });
  }));
  for (size_t u = 0; u < out.size(); ++u) {
    for (auto& c : out[u]) {
      rows_read_ += static_cast<int64_t>(c.size());
      ready_.push_back(std::move(c));
      ready_files_.push_back(next_file_ + units[u].first);
    }
  }
  next_file_ += n;
  return Status::OK();
}

Result<bool> DeltaScanOperator::PushAll(ExecContext& ctx, size_t workers, const ChunkSink& sink) {
  if (next_file_ != 0 || !ready_.empty()) return false;  // already pulled from
  if (!started_) BuildAllFilters();
  started_ = true;
  struct OpenFile {
    std::unique_ptr<delta::TableScanFile> file;
    std::vector<ScanUnit> units;
    std::atomic<size_t> next_unit{0};
    std::shared_ptr<const std::string> uri;
  };
  std::mutex mu;
  size_t next_file = 0;  // guarded by mu
  std::deque<std::shared_ptr<OpenFile>>
      shared;  // guarded by mu: files that may have unread row groups
  std::atomic<int64_t> rows{0};
  file_uris_.resize(files_.size());
  // On an object store the files are opened ahead (their GETs overlap); locally, where opening
  // is cheap, by the worker that reads them.
  std::optional<FileOpenAhead> ahead;
  if (files_.size() > 1 && IsObjectStorage(*snapshot_->store()))
    ahead.emplace(*scan_, files_, kRemoteOpenAhead);
  auto work = [&](size_t w) -> Status {
    std::vector<uint32_t> sel;
    auto emit = [&](DataChunk& c) {
      rows.fetch_add(static_cast<int64_t>(c.size()), std::memory_order_relaxed);
      return sink(w, c);
    };
    while (true) {
      std::shared_ptr<OpenFile> of;
      size_t file = files_.size();
      {
        std::lock_guard<std::mutex> lock(mu);
        if (next_file < files_.size()) {
          file = next_file++;
        } else {
          while (!shared.empty() &&
                 shared.front()->next_unit.load() >= shared.front()->units.size())
            shared.pop_front();
          if (shared.empty()) return Status::OK();
          of = shared.front();
        }
      }
      if (!of) {
        of = std::make_shared<OpenFile>();
        of->uri = FileUri(file);  // this worker alone opens `file`
        SILT_ASSIGN_OR_RETURN(of->file, ahead ? ahead->Take(file) : scan_->OpenFile(*files_[file]));
        of->units = SplitFile(*of->file);
        if (of->units.size() > 1) {
          std::lock_guard<std::mutex> lock(mu);
          shared.push_back(of);
        }
      }
      for (size_t u; (u = of->next_unit.fetch_add(1)) < of->units.size();) {
        const ScanUnit& unit = of->units[u];
        ScopedInputFile input_file(of->uri);
        SILT_RETURN_NOT_OK(ReadUnit(ctx, *of->file, unit, &sel, emit));
      }
    }
  };
  if (ctx.pool && workers > 1) {
    SILT_RETURN_NOT_OK(ctx.pool->ParallelFor(workers, work));
  } else {
    SILT_RETURN_NOT_OK(work(0));
  }
  next_file_ = files_.size();
  rows_read_ += rows.load();
  return true;
}

Result<bool> DeltaScanOperator::Next(ExecContext& ctx, DataChunk* out) {
  if (!started_) BuildAllFilters();
  started_ = true;
  while (ready_.empty()) {
    if (next_file_ >= files_.size()) {
      SetInputFile({});
      return false;
    }
    SILT_RETURN_NOT_OK(FillBatch(ctx));
  }
  *out = std::move(ready_.front());
  ready_.pop_front();
  // The rows returned are this file's for the operators above on this thread (input_file_name).
  SetInputFile(file_uris_[ready_files_.front()]);
  ready_files_.pop_front();
  return true;
}

}  // namespace silt::exec
