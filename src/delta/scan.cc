#include "delta/scan.h"

#include <strings.h>

#include <algorithm>
#include <cstring>

#include "common/error_classes.h"
#include "delta/deletion_vector.h"
#include "delta/partition_values.h"
#include "io/object_store_factory.h"
#include "io/path.h"
#include "io/read_confinement.h"
#include "parquet/reader.h"
#include "parquet/row_ranges.h"
#include "vector/gather.h"

namespace silt::delta {
namespace {

using parquet::ColumnNode;

// The file column (among `nodes`) that holds logical field `f`, or -1.
int MatchColumn(const std::vector<ColumnNode>& nodes, const Field& f, ColumnMappingMode mode) {
  if (mode == ColumnMappingMode::kId) {
    if (auto id = ColumnMappingId(f))
      for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].field_id && *nodes[i].field_id == *id) return static_cast<int>(i);
  }
  std::string name = PhysicalNameOrName(f, mode);
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].name == name) return static_cast<int>(i);
  for (size_t i = 0; i < nodes.size(); ++i)
    if (strcasecmp(nodes[i].name.c_str(), name.c_str()) == 0) return static_cast<int>(i);
  return -1;
}

Vector AllNull(const TypePtr& type, size_t rows) {
  Vector v(type);
  for (size_t i = 0; i < rows; ++i) v.AppendNull();
  return v;
}

Status Incompatible(const std::string& name, const TypePtr& from, const TypePtr& to) {
  return Status::Unsupported("column '" + name + "' is stored as " + from->ToString() +
                                 " but the table says " + to->ToString(),
                             errc::kDeltaUnsupportedTypeChange);
}

// Widens a primitive vector (type widening on read) or returns Incompatible.
Result<Vector> Widen(Vector v, const std::string& name, const TypePtr& to) {
  TypeId from = v.id();
  Vector out(to);
  size_t n = v.size();
  auto ints = [&](auto get) {
    for (size_t i = 0; i < n; ++i) {
      if (v.IsNull(i)) {
        out.AppendNull();
        continue;
      }
      int64_t x = get(i);
      switch (to->id()) {
        case TypeId::kInt16:
          out.Append<int16_t>(static_cast<int16_t>(x));
          break;
        case TypeId::kInt32:
          out.Append<int32_t>(static_cast<int32_t>(x));
          break;
        case TypeId::kInt64:
          out.Append<int64_t>(x);
          break;
        case TypeId::kDouble:
          out.Append<double>(static_cast<double>(x));
          break;
        case TypeId::kDecimal: {
          int128_t m = x;
          for (int k = 0; k < to->scale(); ++k) m *= 10;
          out.Append<int128_t>(m);
          break;
        }
        default:
          break;
      }
    }
  };
  bool int_src = from == TypeId::kInt8 || from == TypeId::kInt16 || from == TypeId::kInt32 ||
                 from == TypeId::kInt64;
  bool int_dst = to->id() == TypeId::kInt16 || to->id() == TypeId::kInt32 ||
                 to->id() == TypeId::kInt64 || to->id() == TypeId::kDouble ||
                 to->id() == TypeId::kDecimal;
  if (int_src && int_dst && v.type()->fixed_width() <= std::max(to->fixed_width(), 8)) {
    switch (from) {
      case TypeId::kInt8:
        ints([&](size_t i) { return static_cast<int64_t>(v.Get<int8_t>(i)); });
        break;
      case TypeId::kInt16:
        ints([&](size_t i) { return static_cast<int64_t>(v.Get<int16_t>(i)); });
        break;
      case TypeId::kInt32:
        ints([&](size_t i) { return static_cast<int64_t>(v.Get<int32_t>(i)); });
        break;
      default:
        ints([&](size_t i) { return v.Get<int64_t>(i); });
        break;
    }
    return out;
  }
  if (from == TypeId::kFloat && to->id() == TypeId::kDouble) {
    for (size_t i = 0; i < n; ++i)
      v.IsNull(i) ? out.AppendNull() : out.Append<double>(v.Get<float>(i));
    return out;
  }
  if (from == TypeId::kDate && to->id() == TypeId::kTimestampNtz) {
    for (size_t i = 0; i < n; ++i)
      v.IsNull(i) ? out.AppendNull()
                  : out.Append<int64_t>(static_cast<int64_t>(v.Get<int32_t>(i)) * 86400000000LL);
    return out;
  }
  if (from == TypeId::kDecimal && to->id() == TypeId::kDecimal &&
      to->scale() >= v.type()->scale()) {
    int up = to->scale() - v.type()->scale();
    for (size_t i = 0; i < n; ++i) {
      if (v.IsNull(i)) {
        out.AppendNull();
        continue;
      }
      int128_t m = v.Get<int128_t>(i);
      for (int k = 0; k < up; ++k) m *= 10;
      out.Append<int128_t>(m);
    }
    return out;
  }
  if ((from == TypeId::kTimestamp || from == TypeId::kTimestampNtz) &&
      (to->id() == TypeId::kTimestamp || to->id() == TypeId::kTimestampNtz)) {
    v.ResetType(to);  // same micros; the file's UTC flag is not authoritative (Delta's schema is)
    return v;
  }
  if (from == TypeId::kBinary && to->id() == TypeId::kString) {
    v.ResetType(to);
    return v;
  }
  return Incompatible(name, v.type(), to);
}

// Turns a vector read from the file (shape of `node`) into the logical type of `target`:
// nested fields matched by physical name/id, missing ones NULL, primitives widened.
Result<Vector> Conform(Vector v, const ColumnNode& node, const TypePtr& target,
                       const std::string& name, ColumnMappingMode mode) {
  if (target->id() == TypeId::kStruct) {
    if (v.id() != TypeId::kStruct) return Incompatible(name, v.type(), target);
    Vector out(target);
    size_t rows = v.size();
    for (size_t k = 0; k < target->fields().size(); ++k) {
      const Field& f = target->fields()[k];
      int c = MatchColumn(node.children, f, mode);
      if (c < 0) {
        out.child(k) = AllNull(f.type, rows);
      } else {
        SILT_ASSIGN_OR_RETURN(out.child(k),
                              Conform(std::move(v.child(static_cast<size_t>(c))), node.children[c],
                                      f.type, name + "." + f.name, mode));
      }
    }
    out.validity_buffer() = std::move(v.validity_buffer());
    out.SetSizeUnchecked(rows);
    return out;
  }
  if (target->id() == TypeId::kList || target->id() == TypeId::kMap) {
    if (v.id() != target->id()) return Incompatible(name, v.type(), target);
    Vector out(target);
    size_t rows = v.size();
    for (size_t k = 0; k < target->fields().size(); ++k) {
      SILT_ASSIGN_OR_RETURN(
          out.child(k), Conform(std::move(v.child(k)), node.children[k], target->fields()[k].type,
                                name + "." + target->fields()[k].name, mode));
    }
    out.offsets_buffer() = std::move(v.offsets_buffer());
    out.validity_buffer() = std::move(v.validity_buffer());
    out.SetSizeUnchecked(rows);
    return out;
  }
  if (v.type()->Equals(*target)) {
    v.ResetType(target);
    return v;
  }
  if (v.id() == TypeId::kNull) return AllNull(target, v.size());
  return Widen(std::move(v), name, target);
}

// A vector of `rows` copies of one partition value.
Result<Vector> PartitionColumn(const Field& f, const std::optional<std::string>& text,
                               size_t rows) {
  SILT_ASSIGN_OR_RETURN(Value value, ParsePartitionValue(text, f.type));
  Vector v(f.type);
  v.Reserve(rows);
  if (value.is_null()) return AllNull(f.type, rows);
  for (size_t i = 0; i < rows; ++i) SILT_RETURN_NOT_OK(v.AppendValue(value));
  return v;
}

// Keeps the rows sel[0..n) (increasing) of v, in place: dropping a deletion vector's rows from a
// freshly decoded row group then touches no new memory (REORG PURGE rewrites whole files of
// them). Nested vectors are copied.
void KeepRows(Vector* v, const uint32_t* sel, size_t n) {
  const DataType& t = *v->type();
  if (!t.is_nested() && t.fixed_width() > 0) {
    uint8_t* d = v->data<uint8_t>();
    GatherFixedWidth(d, d, static_cast<size_t>(t.fixed_width()), sel, n);
  } else if (t.is_binary_like()) {
    // Row i's start offset is written only after every read of offsets below sel[i] >= i.
    std::vector<uint32_t>& off = v->offsets_buffer();
    char* bytes = v->bytes().data();
    uint32_t pos = 0;
    for (size_t i = 0; i < n; ++i) {
      uint32_t b = off[sel[i]], e = off[sel[i] + 1];
      if (b != pos) std::memmove(bytes + pos, bytes + b, e - b);
      off[i] = pos;
      pos += e - b;
    }
    off[n] = pos;
    off.resize(n + 1);
    v->bytes().resize(pos);
  } else {
    Vector kept(v->type());
    kept.AppendSelected(*v, sel, n);
    *v = std::move(kept);
    return;
  }
  if (v->may_have_nulls()) {
    uint8_t* valid = v->validity_buffer().data();
    for (size_t i = 0; i < n; ++i) valid[i] = valid[sel[i]];
  }
  if (t.is_binary_like()) {
    v->SetSizeUnchecked(n);
  } else {
    v->ResizeUninitialized(n);
  }
}

// A sentinel table root for DV paths: the opener maps it back to keys of the table's store.
constexpr char kTableRoot[] = "silt-table:";

Result<std::shared_ptr<RandomAccessFile>> OpenTableFile(const Snapshot& snapshot,
                                                        const DeltaPath& p) {
  ObjectStore& store = *snapshot.store();
  if (!p.absolute) return store.OpenRead(p.path);
  if (const ReadConfinement* c = snapshot.read_confinement().get())
    SILT_RETURN_NOT_OK(CheckConfinedRead(*c, store.root(), p.path));
  return OpenLocationForRead(p.path);
}

}  // namespace

Result<std::optional<DeletionVector>> LoadDeletionVector(const Snapshot& snapshot,
                                                         const AddFile& file) {
  if (!file.deletion_vector) return std::optional<DeletionVector>();
  ObjectStore& store = *snapshot.store();
  DvFileOpener opener = [&](const std::string& path) -> Result<std::shared_ptr<RandomAccessFile>> {
    std::string_view p = path;
    if (p.substr(0, sizeof(kTableRoot) - 1) == kTableRoot) {
      p.remove_prefix(sizeof(kTableRoot) - 1);
      while (!p.empty() && p[0] == '/') p.remove_prefix(1);
      return store.OpenRead(std::string(p));
    }
    SILT_ASSIGN_OR_RETURN(DeltaPath dvp, ParseDeltaPath(path));
    return OpenTableFile(snapshot, dvp);
  };
  auto r = ReadDv(*file.deletion_vector, kTableRoot, opener);
  if (!r.ok()) return r.status().WithContext("deletion vector of " + file.path);
  return std::optional<DeletionVector>(std::move(r).value());
}

Result<std::unique_ptr<TableScan>> TableScan::Make(std::shared_ptr<const Snapshot> snapshot,
                                                   TableScanOptions options) {
  auto scan = std::unique_ptr<TableScan>(new TableScan());
  const Schema& schema = snapshot->schema();
  if (options.columns.empty()) {
    for (size_t i = 0; i < schema.size(); ++i) scan->output_fields_.push_back(static_cast<int>(i));
  } else {
    for (const auto& c : options.columns) {
      int i = FindField(schema, c);
      if (i < 0)
        return Status::NotFound("column '" + c + "' does not exist in the table",
                                errc::kUnresolvedColumn);
      scan->output_fields_.push_back(i);
    }
  }
  for (int i : scan->output_fields_) scan->output_schema_.push_back(schema[static_cast<size_t>(i)]);
  if (options.with_row_index) {
    scan->with_row_index_ = true;
    scan->output_schema_.push_back(Field{kRowIndexColumn, DataType::Int64(), false, "{}"});
  }
  scan->snapshot_ = std::move(snapshot);
  return scan;
}

Result<std::unique_ptr<TableScanFile>> TableScan::OpenFile(const AddFile& file) const {
  ObjectStore& store = *snapshot_->store();
  const ColumnMappingMode mode = snapshot_->column_mapping_mode();
  SILT_ASSIGN_OR_RETURN(DeltaPath dp, ParseDeltaPath(file.path));
  auto opened = OpenTableFile(*snapshot_, dp);
  if (!opened.ok()) {
    if (opened.status().IsNotFound())
      return Status::NotFound("data file " + file.path + " of version " +
                                  std::to_string(snapshot_->version()) + " of " + store.root() +
                                  " is missing (vacuumed or deleted?)",
                              errc::kDeltaFileNotFound);
    return opened.status();
  }
  std::unique_ptr<TableScanFile> tf(new TableScanFile());
  tf->scan_ = this;
  tf->file_ = &file;
  SILT_ASSIGN_OR_RETURN(tf->pf_, parquet::ParquetFile::Open(std::move(opened).value()));
  // Deleted rows of this file.
  SILT_ASSIGN_OR_RETURN(tf->dv_, LoadDeletionVector(*snapshot_, file));
  if (tf->dv_ && tf->dv_->Cardinality() > static_cast<uint64_t>(tf->pf_->num_rows()))
    return Status::Corruption("deletion vector of " + file.path + " deletes " +
                                  std::to_string(tf->dv_->Cardinality()) + " rows of a file of " +
                                  std::to_string(tf->pf_->num_rows()),
                              kDvCardinalityClass);
  const auto& file_columns = tf->pf_->schema().columns();
  const auto& parts = snapshot_->partition_columns();
  // Which file column feeds each output column (-1: missing, -2: partition column).
  const size_t num_fields = output_fields_.size();  // output columns without the row index
  tf->source_.assign(num_fields, -1);
  for (size_t k = 0; k < num_fields; ++k) {
    const Field& f = output_schema_[k];
    if (std::find(parts.begin(), parts.end(), f.name) != parts.end()) {
      tf->source_[k] = -2;
      continue;
    }
    int c = MatchColumn(file_columns, f, mode);
    tf->source_[k] = c;
    if (c >= 0 &&
        std::find(tf->read_cols_.begin(), tf->read_cols_.end(), c) == tf->read_cols_.end())
      tf->read_cols_.push_back(c);
  }
  int64_t row_base = 0;
  for (const auto& g : tf->pf_->metadata().row_groups) {
    tf->row_base_.push_back(row_base);
    row_base += g.num_rows;
  }
  return tf;
}

TableScanFile::~TableScanFile() = default;

int64_t TableScanFile::row_group_rows(int rg) const {
  return pf_->metadata().row_groups[rg].num_rows;
}

bool TableScanFile::RowGroupMayMatch(
    int rg, int column,
    const std::vector<std::vector<parquet::ColumnPredicate>>& alternatives) const {
  if (column < 0 || static_cast<size_t>(column) >= source_.size() ||
      source_[static_cast<size_t>(column)] < 0)
    return true;
  const std::string& name =
      pf_->schema().columns()[static_cast<size_t>(source_[static_cast<size_t>(column)])].name;
  for (std::vector<parquet::ColumnPredicate> preds : alternatives) {
    for (parquet::ColumnPredicate& p : preds) p.column = name;
    if (pf_->RowGroupMayMatch(rg, preds)) return true;
  }
  return false;
}

std::vector<std::pair<int64_t, int64_t>> TableScanFile::SplitRowGroup(int rg,
                                                                      int64_t target_rows) const {
  return parquet::PageAlignedRowRanges(*pf_, rg, read_cols_, target_rows);
}

Status TableScanFile::OutputColumn(size_t k, size_t rows, Vector* raw, bool copy,
                                   Vector* out) const {
  const ColumnMappingMode mode = scan_->snapshot_->column_mapping_mode();
  const Field& f = scan_->output_schema_[k];
  if (source_[k] == -2) {
    std::string key = PhysicalNameOrName(f, mode);
    const std::optional<std::string>* text = file_->partition_values.Find(key);
    if (!text) text = file_->partition_values.Find(f.name);
    SILT_ASSIGN_OR_RETURN(*out, PartitionColumn(f, text ? *text : std::nullopt, rows));
  } else if (source_[k] < 0) {
    *out = AllNull(f.type, rows);
  } else {
    Vector v = copy ? *raw : std::move(*raw);
    SILT_ASSIGN_OR_RETURN(
        *out, Conform(std::move(v), pf_->schema().columns()[static_cast<size_t>(source_[k])],
                      f.type, f.name, mode));
  }
  return Status::OK();
}

Status TableScanFile::ReadRows(int rg, int64_t begin, int64_t end,
                               const std::function<Status(DataChunk&)>& sink) const {
  const size_t num_fields = source_.size();
  const int64_t row_base = row_base_[static_cast<size_t>(rg)] + begin;
  size_t rows = static_cast<size_t>(end - begin);
  DataChunk raw_chunk;
  if (!read_cols_.empty())
    SILT_RETURN_NOT_OK(pf_->ReadRowGroup(rg, read_cols_, &raw_chunk, begin, end - begin));
  DataChunk out;
  out.num_rows_without_columns = rows;
  for (size_t k = 0; k < num_fields; ++k) {
    Vector* raw = nullptr;
    bool used_again = false;
    if (source_[k] >= 0) {
      size_t pos = static_cast<size_t>(std::find(read_cols_.begin(), read_cols_.end(), source_[k]) -
                                       read_cols_.begin());
      raw = &raw_chunk.columns[pos];
      // A column read for two outputs (never in practice) is copied, else moved.
      for (size_t j = k + 1; j < num_fields; ++j) used_again |= source_[j] == source_[k];
    }
    Vector c(DataType::Null());
    SILT_RETURN_NOT_OK(OutputColumn(k, rows, raw, used_again, &c));
    out.columns.push_back(std::move(c));
  }
  if (scan_->with_row_index_) {
    Vector idx(DataType::Int64());
    idx.ResizeUninitialized(rows);
    int64_t* p = idx.data<int64_t>();
    for (size_t i = 0; i < rows; ++i) p[i] = row_base + static_cast<int64_t>(i);
    out.columns.push_back(std::move(idx));
  }
  if (dv_ && !dv_->IsEmpty()) {
    std::vector<uint8_t> keep(rows, 1);
    dv_->FillSelection(row_base, rows, keep.data());
    std::vector<uint32_t> sel;
    sel.reserve(rows);
    for (size_t i = 0; i < rows; ++i)
      if (keep[i]) sel.push_back(static_cast<uint32_t>(i));
    if (sel.size() != rows) {
      for (auto& c : out.columns) KeepRows(&c, sel.data(), sel.size());
      out.num_rows_without_columns = sel.size();
    }
  }
  return sink(out);
}

Status TableScanFile::ReadRowsSelecting(int rg, int64_t begin, int64_t end,
                                        const std::vector<int>& first, const SelectFn& select,
                                        const SelectedSink& sink) const {
  const size_t num_fields = source_.size();
  const size_t num_out = scan_->output_schema_.size();
  const int64_t row_base = row_base_[static_cast<size_t>(rg)] + begin;
  const size_t rows = static_cast<size_t>(end - begin);
  std::vector<bool> is_first(num_out, false);
  for (int k : first)
    if (k >= 0 && static_cast<size_t>(k) < num_out) is_first[static_cast<size_t>(k)] = true;
  // File columns of the first and of the other output columns.
  std::vector<int> first_cols, rest_cols;
  for (size_t k = 0; k < num_fields; ++k) {
    if (source_[k] < 0) continue;
    std::vector<int>& to = is_first[k] ? first_cols : rest_cols;
    if (std::find(to.begin(), to.end(), source_[k]) == to.end()) to.push_back(source_[k]);
  }
  auto pos_of = [](const std::vector<int>& cols, int c) {
    return static_cast<size_t>(std::find(cols.begin(), cols.end(), c) - cols.begin());
  };
  // Rows the deletion vector keeps (positions in the range), when it deletes some.
  std::vector<uint32_t> live;
  bool has_deleted = false;
  if (dv_ && !dv_->IsEmpty()) {
    std::vector<uint8_t> keep(rows, 1);
    dv_->FillSelection(row_base, rows, keep.data());
    live.reserve(rows);
    for (size_t i = 0; i < rows; ++i)
      if (keep[i]) live.push_back(static_cast<uint32_t>(i));
    has_deleted = live.size() != rows;
  }
  const size_t live_rows = has_deleted ? live.size() : rows;
  // 1. The first columns, of the live rows; the others NULL-typed placeholders. A string column
  // the file holds dictionary-encoded stays a dictionary (a placeholder in the chunk, its rows
  // in dicts[k]) when it feeds one output column of its own type.
  EncodedChunk enc_first;
  if (!first_cols.empty())
    SILT_RETURN_NOT_OK(pf_->ReadRowGroupEncoded(rg, first_cols, &enc_first, begin, end - begin));
  std::vector<std::optional<DictionaryVector>> dicts(num_out);
  for (size_t pos = 0; pos < first_cols.size(); ++pos) {
    if (!enc_first.is_dictionary(pos)) continue;
    size_t outputs = 0, out_k = 0;
    for (size_t k = 0; k < num_fields; ++k)
      if (is_first[k] && source_[k] == first_cols[pos]) ++outputs, out_k = k;
    DictionaryVector& d = *enc_first.dict[pos];
    if (outputs == 1 && d.type()->Equals(*scan_->output_schema_[out_k].type)) {
      if (has_deleted) {
        std::vector<int32_t> idx(live.size());
        for (size_t i = 0; i < live.size(); ++i) idx[i] = d.indices[live[i]];
        d.indices = std::move(idx);
        if (d.may_have_nulls()) {
          std::vector<uint8_t> valid(live.size());
          for (size_t i = 0; i < live.size(); ++i) valid[i] = d.validity[live[i]];
          d.validity = std::move(valid);
        }
      }
      dicts[out_k] = std::move(d);
    } else {
      enc_first.flat[pos] = Flatten(d);
    }
    enc_first.dict[pos].reset();
  }
  std::vector<Vector>& raw_first = enc_first.flat;
  DataChunk chunk;
  chunk.num_rows_without_columns = live_rows;
  chunk.columns.reserve(num_out);
  for (size_t k = 0; k < num_out; ++k) {
    chunk.columns.emplace_back(DataType::Null());
    if (!is_first[k] || dicts[k]) {
      chunk.columns[k].Resize(live_rows);
      continue;
    }
    if (k >= num_fields) {  // the row index
      Vector idx(DataType::Int64());
      idx.ResizeUninitialized(rows);
      int64_t* p = idx.data<int64_t>();
      for (size_t i = 0; i < rows; ++i) p[i] = row_base + static_cast<int64_t>(i);
      chunk.columns[k] = std::move(idx);
    } else {
      Vector* raw = source_[k] >= 0 ? &raw_first[pos_of(first_cols, source_[k])] : nullptr;
      bool used_again = false;
      for (size_t j = k + 1; raw && j < num_fields; ++j)
        used_again |= is_first[j] && source_[j] == source_[k];
      SILT_RETURN_NOT_OK(OutputColumn(k, rows, raw, used_again, &chunk.columns[k]));
    }
    if (has_deleted) KeepRows(&chunk.columns[k], live.data(), live.size());
  }
  // 2. The rows chosen among the live ones.
  std::vector<uint32_t> sel;
  bool all = false;
  SILT_RETURN_NOT_OK(select(chunk, &dicts, &sel, &all));
  if (!all && sel.empty()) return Status::OK();
  // Their positions in the range: what the other columns decode.
  std::vector<uint32_t> phys;
  const bool whole = all && !has_deleted;
  if (!whole) {
    if (all) {
      phys = live;
    } else if (has_deleted) {
      phys.resize(sel.size());
      for (size_t i = 0; i < sel.size(); ++i) phys[i] = live[sel[i]];
    } else {
      phys = sel;
    }
  }
  // 3. The other columns, of those rows only (gathered), or of the whole range when every page
  // holds a chosen row (the rows are then picked by the sink, where it copies them anyway).
  DataChunk raw_rest;
  bool gathered = true;
  if (!rest_cols.empty()) {
    if (whole) {
      SILT_RETURN_NOT_OK(pf_->ReadRowGroup(rg, rest_cols, &raw_rest, begin, end - begin));
    } else {
      SILT_RETURN_NOT_OK(
          pf_->ReadRowGroupSelected(rg, rest_cols, begin, end - begin, phys, &raw_rest, &gathered));
    }
  }
  const size_t out_rows = !gathered ? rows : all ? live_rows : sel.size();
  for (size_t k = 0; k < num_out; ++k) {
    if (!is_first[k]) continue;
    if (dicts[k]) {
      // Still a dictionary: the chosen rows' values only (all live rows when not gathered).
      Vector flat(dicts[k]->type());
      if (gathered && !all)
        AppendFlattenedSelected(*dicts[k], sel.data(), sel.size(), &flat);
      else
        AppendFlattened(*dicts[k], &flat);
      SILT_RETURN_NOT_OK(OutputColumn(k, flat.size(), &flat, false, &chunk.columns[k]));
    } else if (gathered && !all) {
      KeepRows(&chunk.columns[k], sel.data(), sel.size());
    }
  }
  for (size_t k = 0; k < num_out; ++k) {
    if (is_first[k]) continue;
    if (k >= num_fields) {
      Vector idx(DataType::Int64());
      idx.ResizeUninitialized(out_rows);
      int64_t* p = idx.data<int64_t>();
      for (size_t i = 0; i < out_rows; ++i)
        p[i] = row_base + static_cast<int64_t>(whole || !gathered ? i : phys[i]);
      chunk.columns[k] = std::move(idx);
    } else {
      Vector* raw = nullptr;
      bool used_again = false;
      if (source_[k] >= 0) {
        raw = &raw_rest.columns[pos_of(rest_cols, source_[k])];
        for (size_t j = k + 1; j < num_fields; ++j)
          used_again |= !is_first[j] && source_[j] == source_[k];
      }
      SILT_RETURN_NOT_OK(OutputColumn(k, out_rows, raw, used_again, &chunk.columns[k]));
    }
    if (!gathered && has_deleted) KeepRows(&chunk.columns[k], live.data(), live.size());
  }
  chunk.num_rows_without_columns = gathered ? out_rows : live_rows;
  return sink(chunk, gathered || all ? nullptr : &sel);
}

Status TableScan::ScanFile(const AddFile& file,
                           const std::function<Status(DataChunk&)>& sink) const {
  SILT_ASSIGN_OR_RETURN(std::unique_ptr<TableScanFile> tf, OpenFile(file));
  for (int rg = 0; rg < tf->num_row_groups(); ++rg) {
    for (const auto& [begin, end] : tf->SplitRowGroup(rg, kScanFileRows))
      SILT_RETURN_NOT_OK(tf->ReadRows(rg, begin, end, sink));
  }
  return Status::OK();
}

Result<bool> TableScan::Next(DataChunk* out) {
  while (pending_.empty()) {
    if (next_file_ >= snapshot_->files().size()) return false;
    const AddFile& f = snapshot_->files()[next_file_++];
    SILT_RETURN_NOT_OK(ScanFile(f, [&](DataChunk& c) {
      pending_.push_back(std::move(c));
      return Status::OK();
    }));
  }
  *out = std::move(pending_.front());
  pending_.erase(pending_.begin());
  return true;
}

}  // namespace silt::delta
