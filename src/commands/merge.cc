// MERGE INTO target [AS t] USING source [AS s] ON cond
//   WHEN MATCHED [AND c] THEN UPDATE SET … | UPDATE SET * | DELETE
//   WHEN NOT MATCHED [BY TARGET] [AND c] THEN INSERT (…) VALUES (…) | INSERT *
//   WHEN NOT MATCHED BY SOURCE [AND c] THEN UPDATE SET … | DELETE
// with Spark's semantics: clauses of a kind are tried in order, the first whose condition holds
// acts; a target row matched by several source rows is an error when a clause would modify it
// (DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE). Target rows are joined with the
// source by the ON condition (hash join on its equalities); modified rows are deleted through
// deletion vectors (or copy-on-write) and their new versions plus the inserts are written in one
// commit by the DML core.
#include <algorithm>
#include <map>
#include <unordered_set>

#include "commands/column_values.h"
#include "commands/command.h"
#include "common/error_classes.h"
#include "delta/change_data_feed.h"
#include "delta/scan.h"
#include "exec/functions.h"
#include "exec/hash_join.h"
#include "exec/sort.h"
#include "ops/dml.h"
#include "planner/binder.h"
#include "planner/dynamic_file_pruning.h"
#include "planner/optimizer.h"
#include "planner/physical_planner.h"

namespace silt::commands {

namespace {

using sql::MergeClause;

std::string QuoteList(const std::vector<std::string>& items) {
  std::string s = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) s += ",";
    s += "\"";
    for (char c : items[i]) {
      if (c == '"' || c == '\\') s += '\\';
      s += c;
    }
    s += "\"";
  }
  return s + "]";
}

std::string JsonText(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

struct BoundClause {
  MergeClause::Match match;
  MergeClause::Action action;
  exec::ExprPtr condition;            // over joined columns; null = always
  std::vector<exec::ExprPtr> values;  // UPDATE/INSERT: one per target column, over joined columns
  std::string condition_sql;
  // UPDATE/INSERT: the columns the clause gives a value; generated columns it does not are
  // computed over the new row, identity columns an INSERT does not are allocated.
  std::vector<bool> supplied;
};

// Dynamic file pruning of the MERGE target (planner/dynamic_file_pruning.h): for each equality
// of the ON condition between a target column and a source column, the source's keys as a runtime
// filter over the target column — an IN list up to silt.dfp.maxInListValues distinct keys (past
// silt.dfp.perValueProbeLimit, coalesced into ranges), else
// their min/max range, FALSE when the source has no non-NULL key (nothing can match); `file` is
// the conjunction, null when the condition has no such equality.
struct SourceKeyFilter {
  exec::ExprPtr file;
  std::string kind;  // in_list | in_ranges | range ('+'-joined for several equalities)
  int64_t distinct = 0;
};

SourceKeyFilter SourceKeyFilterOf(const exec::ExprPtr& on,
                                  const std::vector<DataChunk>& source_rows, const Schema& target,
                                  int src_base, const planner::DfpExecOptions& options) {
  std::vector<exec::ExprPtr> conjuncts;
  planner::Conjuncts(on, &conjuncts);
  SourceKeyFilter out;
  for (const exec::ExprPtr& c : conjuncts) {
    if (c->kind != exec::ExprKind::kCall || (c->name != "=" && c->name != "==") ||
        c->children.size() != 2)
      continue;
    const exec::Expr* a = c->children[0].get();
    const exec::Expr* b = c->children[1].get();
    if (a->kind != exec::ExprKind::kColumn || b->kind != exec::ExprKind::kColumn) continue;
    if (a->column >= src_base) std::swap(a, b);
    int tc = a->column, sc = b->column - src_base;
    if (tc < 0 || tc >= static_cast<int>(target.size()) || sc < 0 || !a->type->Equals(*b->type))
      continue;
    Vector keys(b->type);
    for (const DataChunk& chunk : source_rows)
      keys.AppendRange(chunk.columns[static_cast<size_t>(sc)], 0, chunk.size());
    const exec::JoinKeySummary ks = exec::SummarizeKeys(
        keys, static_cast<size_t>(std::max<int64_t>(0, options.max_in_list_values)));
    const planner::RuntimePredicate rp = planner::MakeRuntimePredicate(
        ks, exec::MakeColumn(tc, a->type, target[static_cast<size_t>(tc)].name), options);
    out.file =
        out.file ? exec::MakeSpecial(exec::ExprKind::kAnd, DataType::Boolean(), {out.file, rp.file})
                 : rp.file;
    out.kind = out.kind.empty() ? rp.kind : out.kind + "+" + rp.kind;
    out.distinct = std::max(out.distinct, rp.distinct);
  }
  return out;
}

}  // namespace

Result<CommandResult> MergeInto(const sql::MergeStatement& stmt, CommandContext& ctx) {
  if (stmt.with_schema_evolution) {
    return Status::NotImplemented("MERGE WITH SCHEMA EVOLUTION is not implemented yet",
                                  errc::kNotImplemented);
  }
  SILT_ASSIGN_OR_RETURN(planner::ResolvedTable t,
                        ctx.binder->ResolveTable(stmt.target, std::nullopt));
  SILT_RETURN_NOT_OK(planner::ExpectTable(t, "MERGE INTO"));
  const Schema& schema = t.snapshot->schema();
  std::string talias = !stmt.target_alias.empty()
                           ? stmt.target_alias
                           : (stmt.target.is_path() ? "" : stmt.target.parts.back());

  // Source rows, materialized (the source of a MERGE is usually the small side).
  SILT_ASSIGN_OR_RETURN(planner::PlanPtr source_plan, ctx.binder->BindTableRef(*stmt.source));
  SILT_ASSIGN_OR_RETURN(std::vector<DataChunk> source_rows, ctx.run_plan(source_plan));
  int64_t num_source_rows = 0;
  for (const auto& c : source_rows) num_source_rows += static_cast<int64_t>(c.size());

  // Joined columns: target columns, __file, __row, then source columns, then __src (TRUE).
  const int nt = static_cast<int>(schema.size());
  std::vector<planner::OutputColumn> tcols, scols = source_plan->columns, joined;
  for (const Field& f : schema) tcols.push_back({f.name, f.type, true, talias});
  joined = tcols;
  joined.push_back({"__file", DataType::Int64(), true, "__merge"});
  joined.push_back({"__row", DataType::Int64(), true, "__merge"});
  const int ns = static_cast<int>(scols.size());
  const int src_base = nt + 2;
  for (const auto& c : scols) joined.push_back(c);
  joined.push_back({"__src", DataType::Boolean(), true, "__merge"});
  const int src_marker = src_base + ns;

  SILT_ASSIGN_OR_RETURN(exec::ExprPtr on, ctx.binder->BindExpression(*stmt.on, joined));
  SILT_ASSIGN_OR_RETURN(on, exec::CoerceTo(on, DataType::Boolean(), ctx.binder->context().bind));

  // Generated, identity and default columns (commands/column_values.h).
  SILT_ASSIGN_OR_RETURN(ColumnValueRules rules, ReadColumnValueRules(schema));
  SILT_ASSIGN_OR_RETURN(std::vector<exec::ExprPtr> generated,
                        BindGenerationExpressions(rules, schema, ctx));
  IdentityAllocator identity(rules);

  // Clauses.
  exec::BindContext store_assign = ctx.binder->context().bind;
  store_assign.ansi = true;
  std::vector<BoundClause> clauses;
  bool any_not_matched = false, any_by_source = false;
  std::vector<std::string> matched_preds, not_matched_preds, by_source_preds;
  for (const MergeClause& c : stmt.clauses) {
    BoundClause b;
    b.match = c.match;
    b.action = c.action;
    if (c.condition) {
      SILT_ASSIGN_OR_RETURN(b.condition, ctx.binder->BindExpression(*c.condition, joined));
      SILT_ASSIGN_OR_RETURN(b.condition, exec::CoerceTo(b.condition, DataType::Boolean(),
                                                        ctx.binder->context().bind));
      b.condition_sql = b.condition->ToString();
    }
    auto target_value = [&](int i, exec::ExprPtr v) -> Result<exec::ExprPtr> {
      if (!v->type->Equals(*schema[i].type))
        return exec::BindCast(v, schema[i].type, false, store_assign);
      return v;
    };
    if (c.action == MergeClause::Action::kUpdate || c.action == MergeClause::Action::kUpdateStar ||
        c.action == MergeClause::Action::kInsert || c.action == MergeClause::Action::kInsertStar) {
      bool insert =
          c.action == MergeClause::Action::kInsert || c.action == MergeClause::Action::kInsertStar;
      b.values.assign(schema.size(), nullptr);
      b.supplied.assign(schema.size(), false);
      if (c.action == MergeClause::Action::kUpdateStar ||
          c.action == MergeClause::Action::kInsertStar) {
        for (int i = 0; i < nt; ++i) {
          int si = -1;
          // Computed columns the source lacks are left to the writer.
          bool in_source = false;
          for (int k = 0; k < ns; ++k)
            in_source |= planner::LowerName(scols[k].name) == planner::LowerName(schema[i].name);
          if (!in_source && rules.computed(static_cast<size_t>(i))) {
            b.values[i] = insert ? exec::MakeConstant(Value::Null(schema[i].type))
                                 : exec::MakeColumn(i, schema[i].type, schema[i].name);
            continue;
          }
          if (rules.identity[i] && !insert) {
            return Status::InvalidArgument(
                "UPDATE on IDENTITY column " + schema[i].name + " is not supported.",
                errc::kDeltaIdentityColumnsUpdateNotSupported);
          }
          if (rules.identity[i] && rules.identity[i]->always) {
            return Status::InvalidArgument(
                "Providing values for GENERATED ALWAYS AS IDENTITY column " + schema[i].name +
                    " is not supported.",
                errc::kDeltaIdentityColumnsExplicitInsertNotSupported);
          }
          b.supplied[i] = true;
          for (int k = 0; k < ns; ++k) {
            if (planner::LowerName(scols[k].name) == planner::LowerName(schema[i].name)) si = k;
          }
          if (si < 0) {
            return Status::InvalidArgument("Cannot resolve " + schema[i].name + " in " +
                                               std::string(insert ? "INSERT" : "UPDATE") +
                                               " clause given the source columns.",
                                           errc::kDeltaMergeUnresolvedExpression);
          }
          SILT_ASSIGN_OR_RETURN(
              b.values[i],
              target_value(i, exec::MakeColumn(src_base + si, scols[si].type, scols[si].name)));
        }
      } else if (insert) {
        if (c.insert_columns.size() != c.insert_values.size()) {
          return Status::InvalidArgument("The number of INSERT columns and values differ.",
                                         errc::kInsertColumnArityMismatch);
        }
        for (size_t k = 0; k < c.insert_columns.size(); ++k) {
          int i = FindField(schema, c.insert_columns[k]);
          if (i < 0) {
            return Status::InvalidArgument(
                "A column with name `" + c.insert_columns[k] + "` cannot be resolved.",
                errc::kUnresolvedColumnWithSuggestion);
          }
          if (!c.insert_values[k]) continue;  // DEFAULT: as an omitted column
          if (rules.identity[i] && rules.identity[i]->always) {
            return Status::InvalidArgument(
                "Providing values for GENERATED ALWAYS AS IDENTITY column " + schema[i].name +
                    " is not supported.",
                errc::kDeltaIdentityColumnsExplicitInsertNotSupported);
          }
          SILT_ASSIGN_OR_RETURN(exec::ExprPtr v,
                                ctx.binder->BindExpression(*c.insert_values[k], joined));
          SILT_ASSIGN_OR_RETURN(b.values[i], target_value(i, v));
          b.supplied[i] = true;
        }
        for (int i = 0; i < nt; ++i) {
          if (b.values[i]) continue;
          SILT_ASSIGN_OR_RETURN(Value d,
                                rules.computed(static_cast<size_t>(i))
                                    ? Result<Value>(Value::Null(schema[i].type))
                                    : ColumnDefault(rules, schema, static_cast<size_t>(i), ctx));
          b.values[i] = exec::MakeConstant(d);
        }
      } else {
        for (const auto& a : c.set) {
          std::vector<std::string> path = a.column;
          if (path.size() == 2 && planner::LowerName(path[0]) == planner::LowerName(talias))
            path.erase(path.begin());
          if (path.size() != 1)
            return Status::NotImplemented("MERGE UPDATE of nested fields", errc::kNotImplemented);
          int i = FindField(schema, path[0]);
          if (i < 0) {
            return Status::InvalidArgument(
                "A column with name `" + path[0] + "` cannot be resolved.",
                errc::kUnresolvedColumnWithSuggestion);
          }
          if (rules.identity[i]) {
            return Status::InvalidArgument(
                "UPDATE on IDENTITY column " + schema[i].name + " is not supported.",
                errc::kDeltaIdentityColumnsUpdateNotSupported);
          }
          if (!a.value && rules.generation[i]) continue;  // recomputed over the new row
          b.supplied[i] = true;
          if (!a.value) {
            SILT_ASSIGN_OR_RETURN(Value d,
                                  ColumnDefault(rules, schema, static_cast<size_t>(i), ctx));
            b.values[i] = exec::MakeConstant(d);
            continue;
          }
          SILT_ASSIGN_OR_RETURN(exec::ExprPtr v, ctx.binder->BindExpression(*a.value, joined));
          SILT_ASSIGN_OR_RETURN(b.values[i], target_value(i, v));
        }
        for (int i = 0; i < nt; ++i) {
          if (!b.values[i]) b.values[i] = exec::MakeColumn(i, schema[i].type, schema[i].name);
        }
      }
    }
    std::string pred = b.condition_sql.empty() ? "" : b.condition_sql;
    if (c.match == MergeClause::Match::kMatched) matched_preds.push_back(pred);
    if (c.match == MergeClause::Match::kNotMatched) {
      any_not_matched = true;
      not_matched_preds.push_back(pred);
    }
    if (c.match == MergeClause::Match::kNotMatchedBySource) {
      any_by_source = true;
      by_source_preds.push_back(pred);
    }
    clauses.push_back(std::move(b));
  }

  // Target file pruning (dynamic file pruning for MERGE): without NOT MATCHED BY SOURCE clauses
  // only target rows that match a source row matter, so files whose statistics or partition
  // values exclude every source key of an ON equality `target.col = source.col` are not read.
  // The size and files thresholds apply as for SELECT joins (spark.databricks.optimizer.
  // deltaTableSizeThreshold / deltaTableFilesThreshold, to the target's files).
  std::unordered_set<const delta::AddFile*> candidates;
  bool prune = false;
  const planner::DfpOptions dfp = planner::DfpOptionsFrom(*ctx.config);
  SourceKeyFilter key_filter;
  std::vector<std::string> target_columns;
  for (const auto& f : schema) target_columns.push_back(f.name);
  std::vector<const delta::AddFile*> all_files;
  for (const delta::AddFile& f : t.snapshot->files()) all_files.push_back(&f);
  const int64_t bytes_before = planner::FileBytes(all_files);
  if (!any_by_source && dfp.enabled && num_source_rows <= dfp.exec.max_build_rows &&
      bytes_before >= dfp.size_threshold &&
      static_cast<int64_t>(all_files.size()) >= dfp.files_threshold) {
    key_filter = SourceKeyFilterOf(on, source_rows, schema, src_base, dfp.exec);
    if (key_filter.file) {
      TablePredicate range;
      range.expr = key_filter.file;
      range.columns = target_columns;
      SILT_ASSIGN_OR_RETURN(candidates, CandidateFiles(range, t.snapshot, ctx));
      prune = true;
    }
  }

  // Only the target columns the statement reads are scanned and joined: those of ON and of the
  // clauses' conditions and values (every one when the change data feed records pre-images).
  // The expressions are rebased onto that narrower layout: read target columns, __file, __row,
  // source columns, __src.
  const bool cdf = delta::ChangeDataFeedEnabled(t.snapshot->metadata());
  const std::string on_sql = on->ToString();
  std::vector<int> read_cols;
  if (cdf) {
    for (int i = 0; i < nt; ++i) read_cols.push_back(i);
  } else {
    std::vector<int> refs;
    exec::CollectColumns(*on, &refs);
    for (const BoundClause& b : clauses) {
      if (b.condition) exec::CollectColumns(*b.condition, &refs);
      for (const exec::ExprPtr& v : b.values) exec::CollectColumns(*v, &refs);
    }
    for (int c : refs) {
      if (c < nt) read_cols.push_back(c);
    }
    std::sort(read_cols.begin(), read_cols.end());
    read_cols.erase(std::unique(read_cols.begin(), read_cols.end()), read_cols.end());
    if (read_cols.empty() && nt > 0) read_cols.push_back(0);  // no columns would mean all
  }
  const int nr = static_cast<int>(read_cols.size());
  auto rebase = [&](int c) {
    return c < nt ? static_cast<int>(std::lower_bound(read_cols.begin(), read_cols.end(), c) -
                                     read_cols.begin())
                  : c - nt + nr;
  };
  on = planner::RemapColumns(on, rebase);
  for (BoundClause& b : clauses) {
    if (b.condition) b.condition = planner::RemapColumns(b.condition, rebase);
    for (exec::ExprPtr& v : b.values) v = planner::RemapColumns(v, rebase);
  }
  std::vector<planner::OutputColumn> narrow;
  for (int c : read_cols) narrow.push_back(joined[static_cast<size_t>(c)]);
  narrow.insert(narrow.end(), joined.begin() + nt, joined.end());
  const int file_pos = nr, row_pos = nr + 1, marker_pos = src_marker - nt + nr;

  // Target rows with their file and physical row index.
  delta::TableScanOptions so;
  for (int c : read_cols) so.columns.push_back(schema[static_cast<size_t>(c)].name);
  so.with_row_index = true;
  SILT_ASSIGN_OR_RETURN(std::unique_ptr<delta::TableScan> scan,
                        delta::TableScan::Make(t.snapshot, so));
  const auto& files = t.snapshot->files();
  std::vector<size_t> scanned;  // indexes into files
  for (size_t fi = 0; fi < files.size(); ++fi) {
    if (!prune || candidates.count(&files[fi])) scanned.push_back(fi);
  }
  // Files are read in parallel on the pool; their chunks are joined in file order afterwards.
  std::vector<std::vector<DataChunk>> per_file(scanned.size());
  auto scan_file = [&](size_t k) -> Status {
    const size_t fi = scanned[k];
    return scan->ScanFile(files[fi], [&](DataChunk& c) -> Status {
      if (!c.size()) return Status::OK();
      DataChunk r;
      r.num_rows_without_columns = c.size();
      for (int i = 0; i < nr; ++i) r.columns.push_back(std::move(c.columns[i]));
      Vector file_col(DataType::Int64());
      file_col.ResizeUninitialized(c.size());
      std::fill_n(file_col.data<int64_t>(), c.size(), static_cast<int64_t>(fi));
      r.columns.push_back(std::move(file_col));
      r.columns.push_back(std::move(c.columns[nr]));  // the row index
      per_file[k].push_back(std::move(r));
      return Status::OK();
    });
  };
  SILT_RETURN_NOT_OK(ParallelFor(ctx.pool, scanned.size(), scan_file));
  std::vector<DataChunk> target_rows;
  for (auto& chunks : per_file) {
    for (auto& c : chunks) target_rows.push_back(std::move(c));
  }
  per_file.clear();
  for (auto& c : source_rows) {
    Vector marker(DataType::Boolean());
    marker.ResizeUninitialized(c.size());
    std::fill(marker.data<uint8_t>(), marker.data<uint8_t>() + c.size(), 1);
    c.columns.push_back(std::move(marker));
  }

  // target ⋈ source on the ON condition; outer sides as the clauses need them.
  auto values_node = [](std::vector<planner::OutputColumn> cols, std::vector<DataChunk> rows) {
    auto n = std::make_shared<planner::LogicalNode>();
    n->kind = planner::LogicalKind::kValues;
    n->columns = std::move(cols);
    n->rows = std::move(rows);
    return n;
  };
  std::vector<planner::OutputColumn> tside(narrow.begin(), narrow.begin() + nr + 2);
  std::vector<planner::OutputColumn> sside(narrow.begin() + nr + 2, narrow.end());
  auto join = std::make_shared<planner::LogicalNode>();
  join->kind = planner::LogicalKind::kJoin;
  join->join = any_not_matched && any_by_source ? planner::JoinKind::kFull
               : any_not_matched                ? planner::JoinKind::kRight
               : any_by_source                  ? planner::JoinKind::kLeft
                                                : planner::JoinKind::kInner;
  join->children = {values_node(tside, std::move(target_rows)),
                    values_node(sside, std::move(source_rows))};
  join->columns = narrow;
  join->condition = on;  // the optimizer turns its equalities into hash keys
  SILT_ASSIGN_OR_RETURN(std::vector<DataChunk> pairs, ctx.run_plan(join));

  // Decide each joined row's action.
  exec::EvalContext eval = ctx.binder->context().eval;
  std::map<size_t, std::map<int64_t, int>>
      touched;  // file → row → times matched with a modifying clause
  std::map<size_t, delta::DeletionVector> deletions;
  std::vector<DataChunk> new_rows;
  int64_t updated = 0, deleted = 0, inserted = 0;
  // Change data feed (delta.enableChangeDataFeed=true): Spark's MERGE writes every change,
  // inserts included, to _change_data/ files (every target column was read, in schema order).
  ops::ChangeRows cdf_pre{"update_preimage", {}}, cdf_post{"update_postimage", {}},
      cdf_del{"delete", {}}, cdf_ins{"insert", {}};
  for (const DataChunk& j : pairs) {
    size_t n = j.size();
    const Vector& file_col = j.columns[file_pos];
    const Vector& row_col = j.columns[row_pos];
    const Vector& marker = j.columns[marker_pos];
    std::vector<int> action(n, -1);
    for (MergeClause::Match kind : {MergeClause::Match::kMatched, MergeClause::Match::kNotMatched,
                                    MergeClause::Match::kNotMatchedBySource}) {
      std::vector<uint32_t> open;
      for (size_t i = 0; i < n; ++i) {
        bool has_t = file_col.IsValid(i), has_s = marker.IsValid(i);
        bool mine = kind == MergeClause::Match::kMatched      ? (has_t && has_s)
                    : kind == MergeClause::Match::kNotMatched ? (!has_t && has_s)
                                                              : (has_t && !has_s);
        if (mine) open.push_back(static_cast<uint32_t>(i));
      }
      for (size_t ci = 0; ci < clauses.size() && !open.empty(); ++ci) {
        const BoundClause& c = clauses[ci];
        if (c.match != kind) continue;
        std::vector<uint32_t> hit = open, rest;
        if (c.condition) {
          DataChunk sub;
          sub.num_rows_without_columns = open.size();
          for (const Vector& v : j.columns) {
            Vector nv(v.type());
            nv.AppendSelected(v, open.data(), open.size());
            sub.columns.push_back(std::move(nv));
          }
          std::vector<uint32_t> sel;
          SILT_RETURN_NOT_OK(exec::EvaluateFilter(*c.condition, sub, eval, &sel));
          hit.clear();
          size_t k = 0;
          for (size_t idx = 0; idx < open.size(); ++idx) {
            if (k < sel.size() && sel[k] == idx) {
              hit.push_back(open[idx]);
              ++k;
            } else {
              rest.push_back(open[idx]);
            }
          }
        }
        for (uint32_t r : hit) action[r] = static_cast<int>(ci);
        open = std::move(rest);
      }
    }
    // Rows per clause, evaluated in bulk.
    std::map<int, std::vector<uint32_t>> by_clause;
    for (size_t i = 0; i < n; ++i) {
      if (action[i] >= 0) by_clause[action[i]].push_back(static_cast<uint32_t>(i));
    }
    for (auto& [ci, rows] : by_clause) {
      const BoundClause& c = clauses[ci];
      bool modifies_target = c.match != MergeClause::Match::kNotMatched;
      if (modifies_target) {
        for (uint32_t r : rows) {
          size_t f = static_cast<size_t>(file_col.data<int64_t>()[r]);
          int64_t row = row_col.data<int64_t>()[r];
          if (++touched[f][row] > 1) {
            return Status::InvalidArgument(
                "Cannot perform Merge as "
                "multiple source rows matched and attempted to modify the same target row in the "
                "Delta table in possibly conflicting ways.",
                errc::kDeltaMultipleSourceRowMatchingTargetRowInMerge);
          }
          SILT_RETURN_NOT_OK(deletions[f].Add(static_cast<uint64_t>(row)));
        }
      }
      if (cdf && modifies_target) {
        (c.action == MergeClause::Action::kDelete ? cdf_del : cdf_pre)
            .rows.push_back(ops::Gather(j, static_cast<size_t>(nt), rows));
      }
      if (c.action == MergeClause::Action::kDelete) {
        deleted += static_cast<int64_t>(rows.size());
        continue;
      }
      DataChunk sub;
      sub.num_rows_without_columns = rows.size();
      for (const Vector& v : j.columns) {
        Vector nv(v.type());
        nv.AppendSelected(v, rows.data(), rows.size());
        sub.columns.push_back(std::move(nv));
      }
      DataChunk out;
      out.num_rows_without_columns = rows.size();
      for (const auto& v : c.values) {
        Vector col(v->type);
        SILT_RETURN_NOT_OK(exec::Evaluate(*v, sub, eval, &col));
        out.columns.push_back(std::move(col));
      }
      if (!rules.empty()) {
        if (c.match == MergeClause::Match::kNotMatched) {
          for (size_t i = 0; i < schema.size(); ++i) {
            if (rules.identity[i] && !c.supplied[i]) SILT_RETURN_NOT_OK(identity.Fill(i, &out));
          }
        }
        SILT_RETURN_NOT_OK(ComputeGeneratedColumns(generated, c.supplied, eval, &out));
      }
      if (cdf) (modifies_target ? cdf_post : cdf_ins).rows.push_back(out);
      new_rows.push_back(std::move(out));
      if (c.match == MergeClause::Match::kNotMatched)
        inserted += static_cast<int64_t>(rows.size());
      else
        updated += static_cast<int64_t>(rows.size());
    }
  }
  // Target rows matched more than once must not be modified at all (checked above); rows
  // matched several times by clauses that don't act are fine, as in Spark.

  ops::RowChanges changes;
  changes.operation = "MERGE";
  changes.metric_names = ops::MetricNames::kMerge;
  changes.parameters.Set("predicate", JsonText(QuoteList({on_sql})));
  changes.parameters.Set("matchedPredicates", JsonText(QuoteList(matched_preds)));
  changes.parameters.Set("notMatchedPredicates", JsonText(QuoteList(not_matched_preds)));
  changes.parameters.Set("notMatchedBySourcePredicates", JsonText(QuoteList(by_source_preds)));
  for (auto& [f, dv] : deletions) {
    ops::FileRowDeletion d;
    d.file = files[f];
    d.rows = std::move(dv);
    changes.deletions.push_back(std::move(d));
  }
  // The read set: with pruning only the files read, and a concurrently added file conflicts
  // only when it could hold one of the source's keys (spec B.4 step 9).
  std::vector<const delta::AddFile*> scanned_files;
  for (size_t fi : scanned) scanned_files.push_back(&files[fi]);
  const int64_t bytes_after = planner::FileBytes(scanned_files);
  if (prune) {
    for (size_t fi : scanned) changes.read_files.push_back(files[fi].path);
    changes.read_predicate = planner::DfpReadPredicate(t.snapshot, target_columns, key_filter.file);
  } else {
    for (const auto& f : files) changes.read_files.push_back(f.path);
  }
  changes.new_rows = std::move(new_rows);
  // The identity high-water marks go into the same commit.
  if (identity.allocated())
    changes.new_metadata = identity.UpdatedMetadata(t.snapshot->metadata(), schema);
  if (cdf)
    changes.change_rows = {std::move(cdf_pre), std::move(cdf_post), std::move(cdf_del),
                           std::move(cdf_ins)};
  changes.extra_metrics = {{"numSourceRows", num_source_rows},
                           {"numTargetRowsInserted", inserted},
                           {"numTargetRowsUpdated", updated},
                           {"numTargetRowsDeleted", deleted},
                           {"numOutputRows", inserted + updated},
                           {"numTargetFilesBeforeSkipping", static_cast<int64_t>(files.size())},
                           {"numTargetBytesBeforeSkipping", bytes_before},
                           {"numTargetFilesAfterSkipping", static_cast<int64_t>(scanned.size())},
                           {"numTargetBytesAfterSkipping", bytes_after}};
  ops::DmlOptions opts;
  opts.clock = ctx.clock;
  opts.pool = ctx.pool;  // copy-on-write reads the rewritten files on it
  SILT_ASSIGN_OR_RETURN(opts.write.row_validator,
                        MakeRowValidator(t.snapshot->metadata(), t.snapshot->schema(), ctx));
  if (!changes.deletions.empty() || !changes.new_rows.empty()) {
    SILT_ASSIGN_OR_RETURN(ops::DmlResult r,
                          ops::ApplyRowChanges(t.store, t.snapshot, std::move(changes), opts));
    (void)r;
  }
  return CountRows({{"num_affected_rows", inserted + updated + deleted},
                    {"num_updated_rows", updated},
                    {"num_deleted_rows", deleted},
                    {"num_inserted_rows", inserted}});
}

}  // namespace silt::commands
