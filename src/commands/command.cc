#include "commands/command.h"

#include <algorithm>

#include "common/error_classes.h"
#include "delta/constraints.h"
#include "delta/partition_values.h"
#include "delta/schema_json.h"
#include "exec/expression.h"
#include "exec/functions.h"
#include "planner/binder.h"
#include "planner/dynamic_file_pruning.h"
#include "planner/optimizer.h"
#include "sql/parser.h"

namespace silt::commands {

Status StreamPlan(CommandContext& ctx, const planner::PlanPtr& plan,
                  const std::function<Status(DataChunk&)>& sink) {
  auto each = [&](DataChunk& c) { return c.size() == 0 ? Status::OK() : sink(c); };
  if (ctx.stream_plan) return ctx.stream_plan(plan, each);
  SILT_ASSIGN_OR_RETURN(std::vector<DataChunk> rows, ctx.run_plan(plan));
  for (DataChunk& c : rows) SILT_RETURN_NOT_OK(each(c));
  return Status::OK();
}

CommandResult StringRows(const std::vector<std::string>& column_names,
                         const std::vector<std::vector<std::string>>& rows) {
  CommandResult r;
  DataChunk chunk;
  for (const auto& n : column_names) {
    r.schema.push_back({n, DataType::String(), true, "{}"});
    chunk.columns.emplace_back(DataType::String());
  }
  for (const auto& row : rows) {
    for (size_t i = 0; i < column_names.size(); ++i)
      chunk.columns[i].AppendString(i < row.size() ? row[i] : "");
  }
  chunk.num_rows_without_columns = rows.size();
  if (!rows.empty()) r.chunks.push_back(std::move(chunk));
  return r;
}

Result<std::vector<DataChunk>> CastChunks(const std::vector<DataChunk>& chunks, const Schema& from,
                                          const Schema& to, const std::string& table_name,
                                          const std::string& time_zone) {
  if (from.size() != to.size()) {
    return Status::InvalidArgument(
        "Cannot write to " + table_name +
            ", the reason is not enough data columns: Table columns: " + std::to_string(to.size()) +
            ", Data columns: " + std::to_string(from.size()) + ".",
        from.size() < to.size() ? errc::kInsertColumnArityMismatchNotEnoughDataColumns
                                : errc::kInsertColumnArityMismatchTooManyDataColumns);
  }
  exec::BindContext bind;
  bind.ansi = true;  // spark.sql.storeAssignmentPolicy=ANSI
  bind.time_zone = time_zone;
  std::vector<exec::ExprPtr> casts;
  bool any = false;
  for (size_t i = 0; i < to.size(); ++i) {
    exec::ExprPtr col = exec::MakeColumn(static_cast<int>(i), from[i].type, from[i].name);
    if (from[i].type->Equals(*to[i].type)) {
      casts.push_back(col);
      continue;
    }
    any = true;
    Result<exec::ExprPtr> c = exec::BindCast(col, to[i].type, false, bind);
    if (!c.ok()) {
      return Status::InvalidArgument("Cannot write incompatible data for the table " + table_name +
                                         ": Cannot safely cast " + "`" + to[i].name + "` " +
                                         from[i].type->ToString() + " to " +
                                         to[i].type->ToString() + ".",
                                     errc::kIncompatibleDataForTableCannotSafelyCast);
    }
    casts.push_back(*c);
  }
  std::vector<DataChunk> out;
  exec::EvalContext ectx;
  ectx.ansi = true;
  for (const DataChunk& c : chunks) {
    if (!any) {
      out.push_back(c);
      continue;
    }
    DataChunk o;
    o.num_rows_without_columns = c.size();
    for (size_t i = 0; i < to.size(); ++i) {
      Vector v(to[i].type);
      Status st = exec::Evaluate(*casts[i], c, ectx, &v);
      if (st.error_class() == errc::kCastOverflow) {
        // Spark names the column it was writing.
        return Status::InvalidArgument("Fail to assign a value of \"" + from[i].type->ToString() +
                                           "\" type to the \"" + to[i].type->ToString() +
                                           "\" type column or variable `" + to[i].name +
                                           "` due to an overflow. Use `try_cast` on the input "
                                           "value to tolerate overflow and return "
                                           "NULL instead.",
                                       errc::kCastOverflowInTableInsert);
      }
      SILT_RETURN_NOT_OK(st);
      o.columns.push_back(std::move(v));
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace silt::commands

namespace silt::commands {

Result<TablePredicate> BindTablePredicate(const sql::ParsedExpr* where,
                                          const delta::Snapshot& snapshot, const std::string& alias,
                                          CommandContext& ctx) {
  TablePredicate p;
  if (!where) return p;
  std::vector<planner::OutputColumn> cols;
  for (const Field& f : snapshot.schema()) cols.push_back({f.name, f.type, f.nullable, alias});
  SILT_ASSIGN_OR_RETURN(exec::ExprPtr e, ctx.binder->BindExpression(*where, cols));
  SILT_ASSIGN_OR_RETURN(e, exec::CoerceTo(e, DataType::Boolean(), ctx.binder->context().bind));
  // Read only the referenced columns: remap indices to their order of first reference.
  std::vector<int> used;
  exec::CollectColumns(*e, &used);
  std::sort(used.begin(), used.end());
  std::function<exec::ExprPtr(const exec::ExprPtr&)> remap =
      [&](const exec::ExprPtr& x) -> exec::ExprPtr {
    if (x->kind == exec::ExprKind::kColumn) {
      auto c = std::make_shared<exec::Expr>(*x);
      c->column =
          static_cast<int>(std::lower_bound(used.begin(), used.end(), x->column) - used.begin());
      return c;
    }
    if (x->children.empty()) return x;
    auto c = std::make_shared<exec::Expr>(*x);
    for (auto& ch : c->children) ch = remap(ch);
    return c;
  };
  p.expr = remap(e);
  p.partition_only = true;
  for (int c : used) {
    const std::string& name = snapshot.schema()[c].name;
    p.columns.push_back(name);
    bool part = false;
    for (const auto& pc : snapshot.partition_columns())
      part |= planner::LowerName(pc) == planner::LowerName(name);
    p.partition_only = p.partition_only && part;
  }
  p.sql = e->ToString();  // SQL text (quoted literals), as Spark records expr.sql
  return p;
}

Result<bool> PartitionMatches(const TablePredicate& pred, const delta::Snapshot& snapshot,
                              const delta::AddFile& file, const exec::EvalContext& eval) {
  if (!pred.expr) return true;
  DataChunk row;
  row.num_rows_without_columns = 1;
  for (const auto& name : pred.columns) {
    int fi = FindField(snapshot.schema(), name);
    const Field& f = snapshot.schema()[fi];
    std::string key = delta::PhysicalNameOrName(f, snapshot.column_mapping_mode());
    const std::optional<std::string>* text = file.partition_values.Find(key);
    SILT_ASSIGN_OR_RETURN(Value v, delta::ParsePartitionValue(text ? *text : std::nullopt, f.type));
    Vector vec(f.type);
    SILT_RETURN_NOT_OK(vec.AppendValue(v));
    row.columns.push_back(std::move(vec));
  }
  std::vector<uint32_t> sel;
  SILT_RETURN_NOT_OK(exec::EvaluateFilter(*pred.expr, row, eval, &sel));
  return !sel.empty();
}

Result<planner::LogicalNode> PrunedScan(const TablePredicate& pred,
                                        std::shared_ptr<const delta::Snapshot> snapshot,
                                        CommandContext& ctx) {
  planner::LogicalNode scan;
  scan.kind = planner::LogicalKind::kScan;
  scan.snapshot = snapshot;
  scan.scan_columns = pred.columns;
  if (pred.expr) scan.pushed_filters = {pred.expr};
  planner::OptimizerOptions opt;
  opt.stats_skipping = ctx.config->GetBool("spark.databricks.delta.stats.skipping", true);
  opt.generated_partition_filters = ctx.config->GetBool(
      "spark.databricks.delta.generatedColumn.partitionFilterOptimization.enabled", true);
  opt.eval = ctx.binder->context().eval;
  SILT_RETURN_NOT_OK(planner::PruneFiles(&scan, opt));
  return scan;
}

Result<std::unordered_set<const delta::AddFile*>> CandidateFiles(
    const TablePredicate& pred, std::shared_ptr<const delta::Snapshot> snapshot,
    CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(planner::LogicalNode scan, PrunedScan(pred, std::move(snapshot), ctx));
  std::unordered_set<const delta::AddFile*> out(scan.pruned_files->begin(),
                                                scan.pruned_files->end());
  return out;
}

CommandResult CountRows(const std::vector<std::pair<std::string, int64_t>>& counters) {
  CommandResult r;
  DataChunk c;
  for (const auto& [name, v] : counters) {
    r.schema.push_back({name, DataType::Int64(), false, "{}"});
    Vector vec(DataType::Int64());
    vec.Append<int64_t>(v);
    c.columns.push_back(std::move(vec));
  }
  r.chunks.push_back(std::move(c));
  return r;
}

namespace {

// The core's file filter and row matcher from `scan` (PrunedScan of `pred`). With statistics
// skipping on, a file whose statistics prove every row matches is kAll (DELETE drops it unread,
// numDeletedRows from numRecords), as Delta does for files a partition-only predicate matches.
Status RowFilterFromScan(const TablePredicate& pred,
                         const std::shared_ptr<const delta::Snapshot>& snapshot,
                         const planner::LogicalNode& scan, const exec::EvalContext& eval,
                         bool stats_skipping, ops::FileFilter* file_filter,
                         ops::RowMatcher* matcher) {
  std::optional<planner::AllRowsProver> prover;
  if (stats_skipping && !pred.partition_only) {
    SILT_ASSIGN_OR_RETURN(prover,
                          planner::AllRowsProver::Make(*snapshot, pred.columns, {pred.expr}));
  }
  std::unordered_set<const delta::AddFile*> candidates(scan.pruned_files->begin(),
                                                       scan.pruned_files->end());
  *file_filter = [pred, candidates, snapshot, eval, stats_skipping,
                  prover](const delta::AddFile& f) -> Result<ops::FileVerdict> {
    if (!candidates.count(&f)) {
      // A file of the snapshot that pruning skipped; or one a concurrent commit added (the
      // commit's conflict check asks, ops::DeleteSpec::file_filter): pruned by the same rules.
      const auto& live = snapshot->files();
      if (!live.empty() && &f >= live.data() && &f < live.data() + live.size())
        return ops::FileVerdict::kSkip;
      SILT_ASSIGN_OR_RETURN(auto kept, planner::PruneFileList(*snapshot, pred.columns, {pred.expr},
                                                              {&f}, stats_skipping));
      if (kept.empty()) return ops::FileVerdict::kSkip;
    }
    if (pred.partition_only) {
      SILT_ASSIGN_OR_RETURN(bool all, PartitionMatches(pred, *snapshot, f, eval));
      return all ? ops::FileVerdict::kAll : ops::FileVerdict::kSkip;
    }
    if (prover && prover->AllRowsMatch(f)) return ops::FileVerdict::kAll;
    return ops::FileVerdict::kMaybe;
  };
  exec::ExprPtr e = pred.expr;
  *matcher = [e, eval](const DataChunk& rows) -> Result<std::vector<uint32_t>> {
    std::vector<uint32_t> sel;
    SILT_RETURN_NOT_OK(exec::EvaluateFilter(*e, rows, eval, &sel));
    return sel;
  };
  return Status::OK();
}

}  // namespace

Status BindRowFilter(const TablePredicate& pred, std::shared_ptr<const delta::Snapshot> snapshot,
                     const exec::EvalContext& eval, CommandContext& ctx,
                     ops::FileFilter* file_filter, ops::RowMatcher* matcher) {
  if (!pred.expr) return Status::OK();
  SILT_ASSIGN_OR_RETURN(planner::LogicalNode scan, PrunedScan(pred, snapshot, ctx));
  return RowFilterFromScan(pred, snapshot, scan, eval,
                           ctx.config->GetBool("spark.databricks.delta.stats.skipping", true),
                           file_filter, matcher);
}

Result<planner::ResolvedTable> ResolveDmlTable(const sql::TableName& table,
                                               const std::string& operation, CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t, ctx.binder->ResolveTable(table, std::nullopt));
  SILT_RETURN_NOT_OK(planner::ExpectTable(t, operation));
  if (!t.snapshot)
    return Status::NotFound("table " + t.display_name + " has no Delta log",
                            errc::kDeltaTableNotFound);
  return t;
}

namespace {

// Dynamic file pruning of a DML target by its `col IN (subquery)` conjuncts (`keys`, bound over
// `columns`): each list's values are the build keys of a runtime filter (MakeRuntimePredicate,
// as a join's or MERGE's) that prunes scan->pruned_files, unless
// spark.databricks.optimizer.dynamicFilePruning is off, the files left by static pruning are
// fewer or smaller than the thresholds (deltaTableFilesThreshold / deltaTableSizeThreshold, as
// for a SELECT join) or a list has more than silt.dfp.maxBuildRows values. Appends the skipping
// and DFP metrics.
Status PruneBySubqueryKeys(const std::vector<exec::ExprPtr>& keys,
                           const std::vector<std::string>& columns, const delta::Snapshot& snapshot,
                           CommandContext& ctx, planner::LogicalNode* scan,
                           std::vector<std::pair<std::string, int64_t>>* metrics) {
  std::vector<const delta::AddFile*> all;
  for (const delta::AddFile& f : snapshot.files()) all.push_back(&f);
  std::vector<const delta::AddFile*> kept = *scan->pruned_files;
  const int64_t before_dfp = static_cast<int64_t>(kept.size());
  const int64_t bytes_before_dfp = planner::FileBytes(kept);
  const planner::DfpOptions dfp = planner::DfpOptionsFrom(*ctx.config);
  bool applied = false;
  if (dfp.enabled && bytes_before_dfp >= dfp.size_threshold && before_dfp >= dfp.files_threshold) {
    for (const exec::ExprPtr& in : keys) {
      if (static_cast<int64_t>(in->children.size()) - 1 > dfp.exec.max_build_rows) continue;
      const TypePtr& type = in->children[1]->type;
      Vector values(type);
      bool constants = true;
      for (size_t i = 1; i < in->children.size(); ++i) {
        const exec::Expr& item = *in->children[i];
        if (item.kind != exec::ExprKind::kConstant || !item.constant.type()->Equals(*type)) {
          constants = false;
          break;
        }
        SILT_RETURN_NOT_OK(values.AppendValue(item.constant));
      }
      if (!constants) continue;
      const exec::JoinKeySummary ks = exec::SummarizeKeys(
          values, static_cast<size_t>(std::max<int64_t>(0, dfp.exec.max_in_list_values)));
      const planner::RuntimePredicate rp =
          planner::MakeRuntimePredicate(ks, in->children[0], dfp.exec);
      SILT_ASSIGN_OR_RETURN(
          kept, planner::PruneFileList(snapshot, columns, {rp.file}, kept, scan->stats_skipping));
      applied = true;
      planner::RuntimeFilter rf;
      rf.id = static_cast<int>(scan->runtime_filters.size()) + 1;
      rf.scan_column = in->children[0]->column;
      rf.build_key = "subquery";
      scan->runtime_filters.push_back(rf);
    }
  }
  metrics->push_back({"numFilesBeforeSkipping", static_cast<int64_t>(all.size())});
  metrics->push_back({"numBytesBeforeSkipping", planner::FileBytes(all)});
  metrics->push_back({"numFilesAfterSkipping", static_cast<int64_t>(kept.size())});
  metrics->push_back({"numBytesAfterSkipping", planner::FileBytes(kept)});
  if (applied) {
    metrics->push_back({"numFilesBeforeDfp", before_dfp});
    metrics->push_back({"numFilesPrunedByDfp", before_dfp - static_cast<int64_t>(kept.size())});
    metrics->push_back({"numFilesAfterDfp", static_cast<int64_t>(kept.size())});
    metrics->push_back({"bytesPrunedByDfp", bytes_before_dfp - planner::FileBytes(kept)});
  }
  scan->pruned_files = std::move(kept);
  return Status::OK();
}

}  // namespace

Result<BoundDmlTarget> BindDmlTarget(planner::ResolvedTable resolved, const sql::TableName& table,
                                     const std::string& alias, const sql::ParsedExpr* where,
                                     const BindDmlOptions& options, CommandContext& ctx) {
  BoundDmlTarget b;
  b.table = std::move(resolved);
  b.alias = !alias.empty() ? alias : (table.is_path() ? "" : table.parts.back());
  SILT_ASSIGN_OR_RETURN(b.predicate, BindTablePredicate(where, *b.table.snapshot, b.alias, ctx));
  // The constraints bind before the pruning pass, as the statements always did.
  if (options.row_validator) {
    SILT_ASSIGN_OR_RETURN(b.row_validator, MakeRowValidator(b.table.snapshot->metadata(),
                                                            b.table.snapshot->schema(), ctx));
  }
  b.eval = ctx.binder->context().eval;
  if (options.ansi_eval) b.eval.ansi = true;
  // One pruning pass: the core's file filter and EXPLAIN's scan line come from the same files.
  // The values of IN subqueries are run-time keys: static skipping uses the other conjuncts,
  // then each `col IN (subquery)` prunes as a runtime filter (dynamic file pruning, with its
  // switch and metrics), never as literals.
  if (b.predicate.expr || options.scan) {
    std::vector<exec::ExprPtr> conjuncts, static_part, subquery_in;
    if (b.predicate.expr) planner::Conjuncts(b.predicate.expr, &conjuncts);
    for (const exec::ExprPtr& c : conjuncts) {
      const bool keys = c->kind == exec::ExprKind::kIn && c->name == planner::kInSubqueryValues &&
                        c->children[0]->kind == exec::ExprKind::kColumn;
      (keys ? subquery_in : static_part).push_back(c);
    }
    TablePredicate static_pred = b.predicate;
    static_pred.expr = nullptr;
    for (const exec::ExprPtr& c : static_part) {
      static_pred.expr =
          static_pred.expr
              ? exec::MakeSpecial(exec::ExprKind::kAnd, DataType::Boolean(), {static_pred.expr, c})
              : c;
    }
    SILT_ASSIGN_OR_RETURN(b.scan, PrunedScan(static_pred, b.table.snapshot, ctx));
    if (b.predicate.expr) {
      SILT_RETURN_NOT_OK(PruneBySubqueryKeys(subquery_in, b.predicate.columns, *b.table.snapshot,
                                             ctx, &b.scan, &b.skipping_metrics));
    }
  }
  if (b.predicate.expr) {
    SILT_RETURN_NOT_OK(
        RowFilterFromScan(b.predicate, b.table.snapshot, b.scan, b.eval,
                          ctx.config->GetBool("spark.databricks.delta.stats.skipping", true),
                          &b.file_filter, &b.matcher));
  }
  return b;
}

Result<BoundCheck> BindCheck(const std::string& name, const std::string& sql, const Schema& logical,
                             CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(sql::ExprNode parsed, sql::ParseExpression(sql));
  std::vector<planner::OutputColumn> cols;
  for (const Field& f : logical) cols.push_back({f.name, f.type, f.nullable, ""});
  SILT_ASSIGN_OR_RETURN(exec::ExprPtr e, ctx.binder->BindExpression(*parsed, cols));
  if (e->type->id() != TypeId::kBoolean && e->type->id() != TypeId::kNull) {
    return Status::InvalidArgument(
        "CHECK constraint '" + name + "' (" + sql + ") should be a boolean expression.",
        errc::kDeltaNonBooleanCheckConstraint);
  }
  BoundCheck c{name, sql, e, {}};
  exec::CollectColumns(*e, &c.columns);
  std::sort(c.columns.begin(), c.columns.end());
  c.columns.erase(std::unique(c.columns.begin(), c.columns.end()), c.columns.end());
  return c;
}

Result<std::vector<uint32_t>> CheckViolations(const BoundCheck& check, const DataChunk& chunk,
                                              const exec::EvalContext& eval) {
  std::vector<uint32_t> pass;
  SILT_RETURN_NOT_OK(exec::EvaluateFilter(*check.expr, chunk, eval, &pass));
  std::vector<uint32_t> out;
  size_t k = 0;
  for (uint32_t r = 0; r < chunk.size(); ++r) {
    if (k < pass.size() && pass[k] == r) {
      ++k;
    } else {
      out.push_back(r);
    }
  }
  return out;
}

Result<delta::RowValidator> MakeRowValidator(const delta::Metadata& metadata, const Schema& logical,
                                             CommandContext& ctx) {
  SILT_ASSIGN_OR_RETURN(delta::TableConstraints constraints,
                        delta::TableConstraints::Make(logical, metadata));
  if (constraints.needs_validator().empty()) return delta::RowValidator();
  std::vector<BoundCheck> checks;
  for (const delta::SqlCheck& c : constraints.needs_validator()) {
    SILT_ASSIGN_OR_RETURN(BoundCheck b, BindCheck(c.name, c.sql, logical, ctx));
    checks.push_back(std::move(b));
  }
  exec::EvalContext eval = ctx.binder->context().eval;
  return delta::RowValidator([checks, eval, logical](const DataChunk& chunk) -> Status {
    for (const BoundCheck& c : checks) {
      SILT_ASSIGN_OR_RETURN(std::vector<uint32_t> bad, CheckViolations(c, chunk, eval));
      if (bad.empty()) continue;
      // Spark's DeltaInvariantViolationException for a CHECK constraint.
      std::string msg =
          "CHECK constraint " + c.name + " " + c.expr->ToString() + " violated by row with values:";
      for (int col : c.columns) {
        Value v = chunk.columns[static_cast<size_t>(col)].GetValue(bad[0]);
        msg += "\n - " + logical[static_cast<size_t>(col)].name + " : " +
               (v.is_null() ? std::string("null") : v.ToString());
      }
      return Status::InvalidArgument(msg, delta::kConstraintViolatedClass);
    }
    return Status::OK();
  });
}

Status RefuseCalendarInterval(const TypePtr& type) {
  if (type->id() == TypeId::kCalendarInterval) {
    return Status::InvalidArgument("Cannot use \"INTERVAL\" type in the table schema.",
                                   errc::kLegacyErrorTemp1183);
  }
  for (const Field& f : type->fields()) SILT_RETURN_NOT_OK(RefuseCalendarInterval(f.type));
  return Status::OK();
}

}  // namespace silt::commands
