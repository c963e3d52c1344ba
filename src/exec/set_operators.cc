#include "exec/set_operators.h"

#include <algorithm>
#include <cstring>

#include "common/logging.h"

namespace silt::exec {

namespace {

std::vector<TypePtr> TypesOf(const Schema& s) {
  std::vector<TypePtr> t;
  for (const Field& f : s) t.push_back(f.type);
  return t;
}

std::vector<const Vector*> ColumnsOf(const DataChunk& c) {
  std::vector<const Vector*> v;
  for (const Vector& col : c.columns) v.push_back(&col);
  return v;
}

// Schema of the first child with nullability widened over all children.
Schema MergedSchema(const std::vector<const Operator*>& children) {
  Schema s = children[0]->output_schema();
  for (size_t c = 1; c < children.size(); ++c) {
    const Schema& o = children[c]->output_schema();
    SILT_CHECK(o.size() == s.size());
    for (size_t i = 0; i < s.size(); ++i) s[i].nullable = s[i].nullable || o[i].nullable;
  }
  return s;
}

}  // namespace

// ------------------------------------------------------------------------- Distinct

DistinctOperator::DistinctOperator(OperatorPtr child) : child_(std::move(child)) {
  schema_ = child_->output_schema();
}

Result<bool> DistinctOperator::Next(ExecContext& ctx, DataChunk* out) {
  if (!table_) table_ = std::make_unique<GroupHashTable>(TypesOf(schema_), 0, ctx.memory, name());
  DataChunk in = DataChunk::FromSchema(child_->output_schema());
  while (true) {
    if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
    SILT_ASSIGN_OR_RETURN(bool more, child_->Next(ctx, &in));
    if (!more) return false;
    size_t old = table_->size();
    groups_.resize(in.size());
    std::vector<const Vector*> cols = ColumnsOf(in);
    SILT_RETURN_NOT_OK(
        table_->FindOrCreate(cols, nullptr, in.size(), nullptr, true, groups_.data()));
    size_t added = table_->size() - old;
    if (added == 0) continue;
    // The new groups' keys are exactly the rows to emit, in first-appearance order.
    *out = DataChunk::FromSchema(schema_);
    for (size_t c = 0; c < schema_.size(); ++c)
      out->columns[c].AppendRange(table_->keys()[c], old, added);
    if (schema_.empty()) out->num_rows_without_columns = added;
    return true;
  }
}

// ------------------------------------------------------------------------- UnionAll

UnionAllOperator::UnionAllOperator(std::vector<OperatorPtr> children)
    : children_(std::move(children)) {
  SILT_CHECK(!children_.empty());
  schema_ = MergedSchema(this->children());
}

std::vector<const Operator*> UnionAllOperator::children() const {
  std::vector<const Operator*> c;
  for (const auto& ch : children_) c.push_back(ch.get());
  return c;
}

Result<bool> UnionAllOperator::Next(ExecContext& ctx, DataChunk* out) {
  while (current_ < children_.size()) {
    SILT_ASSIGN_OR_RETURN(bool more, children_[current_]->Next(ctx, out));
    if (more) {
      // Children share column types; present the union's schema (names, nullability).
      for (size_t c = 0; c < out->columns.size() && c < schema_.size(); ++c) {
        out->columns[c].ResetType(schema_[c].type);
      }
      return true;
    }
    ++current_;
  }
  return false;
}

OperatorPtr MakeUnionDistinct(std::vector<OperatorPtr> children) {
  return std::make_unique<DistinctOperator>(
      std::make_unique<UnionAllOperator>(std::move(children)));
}

// ------------------------------------------------------------------------- INTERSECT / EXCEPT

SetOperator::SetOperator(SetOpKind kind, OperatorPtr left, OperatorPtr right)
    : kind_(kind), left_(std::move(left)), right_(std::move(right)) {
  schema_ = MergedSchema({left_.get(), right_.get()});
}

std::string SetOperator::name() const {
  switch (kind_) {
    case SetOpKind::kIntersect:
      return "Intersect";
    case SetOpKind::kIntersectAll:
      return "IntersectAll";
    case SetOpKind::kExcept:
      return "Except";
    case SetOpKind::kExceptAll:
      return "ExceptAll";
  }
  return "SetOp";
}

namespace {
struct Counts {
  int64_t left;
  int64_t right;
};
}  // namespace

Status SetOperator::Build(ExecContext& ctx) {
  table_ = std::make_unique<GroupHashTable>(TypesOf(schema_), sizeof(Counts), ctx.memory, name());
  std::vector<uint32_t> groups;
  DataChunk in = DataChunk::FromSchema(left_->output_schema());
  while (true) {
    if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
    SILT_ASSIGN_OR_RETURN(bool more, left_->Next(ctx, &in));
    if (!more) break;
    size_t old = table_->size();
    groups.resize(in.size());
    std::vector<const Vector*> cols = ColumnsOf(in);
    SILT_RETURN_NOT_OK(
        table_->FindOrCreate(cols, nullptr, in.size(), nullptr, true, groups.data()));
    for (size_t g = old; g < table_->size(); ++g) {
      std::memset(table_->payload(static_cast<uint32_t>(g)), 0, sizeof(Counts));
    }
    for (uint32_t g : groups) ++reinterpret_cast<Counts*>(table_->payload(g))->left;
  }
  if (table_->size() == 0) return Status::OK();  // nothing can come out: skip the right side
  DataChunk rin = DataChunk::FromSchema(right_->output_schema());
  while (true) {
    if (ctx.is_cancelled()) return Status::Cancelled("query cancelled");
    SILT_ASSIGN_OR_RETURN(bool more, right_->Next(ctx, &rin));
    if (!more) break;
    groups.resize(rin.size());
    std::vector<const Vector*> cols = ColumnsOf(rin);
    SILT_RETURN_NOT_OK(
        table_->FindOrCreate(cols, nullptr, rin.size(), nullptr, false, groups.data()));
    for (uint32_t g : groups) {
      if (g != kNoGroup) ++reinterpret_cast<Counts*>(table_->payload(g))->right;
    }
  }
  return Status::OK();
}

Result<bool> SetOperator::Next(ExecContext& ctx, DataChunk* out) {
  if (!built_) {
    built_ = true;
    SILT_RETURN_NOT_OK(Build(ctx));
  }
  std::vector<uint32_t> sel;
  while (sel.size() < kChunkRows && next_group_ < table_->size()) {
    uint32_t g = static_cast<uint32_t>(next_group_);
    if (pending_copies_ == 0) {
      const Counts& c = *reinterpret_cast<const Counts*>(table_->payload(g));
      int64_t copies = 0;
      switch (kind_) {
        case SetOpKind::kIntersect:
          copies = c.right > 0 ? 1 : 0;
          break;
        case SetOpKind::kIntersectAll:
          copies = std::min(c.left, c.right);
          break;
        case SetOpKind::kExcept:
          copies = c.right == 0 ? 1 : 0;
          break;
        case SetOpKind::kExceptAll:
          copies = std::max<int64_t>(0, c.left - c.right);
          break;
      }
      pending_copies_ = static_cast<size_t>(copies);
      if (pending_copies_ == 0) {
        ++next_group_;
        continue;
      }
    }
    size_t take = std::min(pending_copies_, kChunkRows - sel.size());
    sel.insert(sel.end(), take, g);
    pending_copies_ -= take;
    if (pending_copies_ == 0) ++next_group_;
  }
  if (sel.empty()) return false;
  *out = DataChunk::FromSchema(schema_);
  for (size_t c = 0; c < schema_.size(); ++c) {
    out->columns[c].AppendSelected(table_->keys()[c], sel.data(), sel.size());
  }
  if (schema_.empty()) out->num_rows_without_columns = sel.size();
  return true;
}

}  // namespace silt::exec
