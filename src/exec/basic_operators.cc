#include "exec/basic_operators.h"

#include "exec/delta_scan.h"

namespace silt::exec {

FilterOperator::FilterOperator(OperatorPtr child, ExprPtr predicate)
    : child_(std::move(child)), predicate_(std::move(predicate)) {
  schema_ = child_->output_schema();
}

Result<bool> FilterOperator::Next(ExecContext& ctx, DataChunk* out) {
  while (true) {
    SILT_ASSIGN_OR_RETURN(bool more, child_->Next(ctx, out));
    if (!more) return false;
    SILT_RETURN_NOT_OK(ApplyFilters({predicate_}, ctx.eval, out));
    if (out->size()) return true;
  }
}

Result<bool> FilterOperator::PushAll(ExecContext& ctx, size_t workers, const ChunkSink& sink) {
  if (!push_) return false;
  return child_->PushAll(ctx, workers, [&](size_t w, DataChunk& chunk) -> Status {
    SILT_RETURN_NOT_OK(ApplyFilters({predicate_}, ctx.eval, &chunk));
    return chunk.size() ? sink(w, chunk) : Status::OK();
  });
}

ProjectOperator::ProjectOperator(OperatorPtr child, std::vector<ExprPtr> exprs,
                                 std::vector<std::string> names)
    : child_(std::move(child)), exprs_(std::move(exprs)) {
  for (size_t i = 0; i < exprs_.size(); ++i) {
    schema_.push_back({i < names.size() ? names[i] : exprs_[i]->ToString(), exprs_[i]->type,
                       exprs_[i]->nullable, "{}"});
  }
}

Status ProjectChunk(const std::vector<ExprPtr>& exprs, const EvalContext& eval, DataChunk* in,
                    DataChunk* out) {
  DataChunk res;
  res.num_rows_without_columns = in->size();
  res.columns.assign(exprs.size(), Vector(DataType::Null()));
  // Computed expressions first (they read the input), then plain column references, moved out
  // of the input on their last use instead of copied.
  std::vector<int> last_use(in->columns.size(), -1);
  for (size_t i = 0; i < exprs.size(); ++i) {
    const ExprPtr& e = exprs[i];
    if (e->kind == ExprKind::kColumn) {
      last_use[e->column] = static_cast<int>(i);
      continue;
    }
    Vector v(e->type);
    SILT_RETURN_NOT_OK(Evaluate(*e, *in, eval, &v));
    res.columns[i] = std::move(v);
  }
  for (size_t i = 0; i < exprs.size(); ++i) {
    const ExprPtr& e = exprs[i];
    if (e->kind != ExprKind::kColumn) continue;
    if (last_use[e->column] == static_cast<int>(i))
      res.columns[i] = std::move(in->columns[e->column]);
    else
      res.columns[i] = in->columns[e->column];
  }
  *out = std::move(res);
  return Status::OK();
}

std::string ProjectOperator::details() const {
  std::string s;
  for (size_t i = 0; i < exprs_.size(); ++i) s += (i ? ", " : "") + exprs_[i]->ToString();
  return "[" + s + "]";
}

Result<bool> ProjectOperator::Next(ExecContext& ctx, DataChunk* out) {
  DataChunk in;
  while (true) {
    SILT_ASSIGN_OR_RETURN(bool more, child_->Next(ctx, &in));
    if (!more) return false;
    if (in.size()) break;
  }
  SILT_RETURN_NOT_OK(ProjectChunk(exprs_, ctx.eval, &in, out));
  return true;
}

Result<bool> ProjectOperator::PushAll(ExecContext& ctx, size_t workers, const ChunkSink& sink) {
  if (!push_) return false;
  return child_->PushAll(ctx, workers, [&](size_t w, DataChunk& chunk) -> Status {
    if (!chunk.size()) return Status::OK();
    DataChunk out;
    SILT_RETURN_NOT_OK(ProjectChunk(exprs_, ctx.eval, &chunk, &out));
    return sink(w, out);
  });
}

ValuesOperator::ValuesOperator(Schema schema, std::vector<DataChunk> chunks)
    : chunks_(std::make_shared<const std::vector<DataChunk>>(std::move(chunks))) {
  schema_ = std::move(schema);
}

ValuesOperator::ValuesOperator(Schema schema, std::shared_ptr<const std::vector<DataChunk>> chunks)
    : chunks_(std::move(chunks)) {
  schema_ = std::move(schema);
}

Result<bool> ValuesOperator::Next(ExecContext&, DataChunk* out) {
  const std::vector<DataChunk>& chunks = *chunks_;
  while (chunk_ < chunks.size() && offset_ >= chunks[chunk_].size()) {
    ++chunk_;
    offset_ = 0;
  }
  if (chunk_ >= chunks.size()) return false;
  const DataChunk& c = chunks[chunk_];
  size_t n = std::min(kChunkRows, c.size() - offset_);
  DataChunk r;
  r.num_rows_without_columns = n;
  for (const Vector& v : c.columns) {
    Vector nv(v.type());
    nv.AppendRange(v, offset_, n);
    r.columns.push_back(std::move(nv));
  }
  offset_ += n;
  *out = std::move(r);
  return true;
}

RangeOperator::RangeOperator(Schema schema, int64_t start, int64_t step, uint64_t count)
    : start_(start), step_(step), count_(count) {
  schema_ = std::move(schema);
}

std::string RangeOperator::details() const {
  return "start=" + std::to_string(start_) + ", step=" + std::to_string(step_) +
         ", rows=" + std::to_string(count_);
}

Result<bool> RangeOperator::Next(ExecContext& ctx, DataChunk* out) {
  if (done_ >= count_) return false;
  if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
  size_t n = static_cast<size_t>(std::min<uint64_t>(kChunkRows, count_ - done_));
  DataChunk r;
  r.num_rows_without_columns = n;
  if (!schema_.empty()) {
    Vector v(DataType::Int64());
    v.ResizeUninitialized(n);
    int64_t* d = v.data<int64_t>();
    // start + k*step in unsigned arithmetic: every value lies in [start, end) so none overflows,
    // but the intermediate product may wrap.
    uint64_t base = static_cast<uint64_t>(start_) + static_cast<uint64_t>(step_) * done_;
    for (size_t i = 0; i < n; ++i)
      d[i] = static_cast<int64_t>(base + static_cast<uint64_t>(step_) * i);
    r.columns.push_back(std::move(v));
  }
  done_ += n;
  *out = std::move(r);
  return true;
}

}  // namespace silt::exec
