#include "planner/logical_plan.h"

namespace silt::planner {

namespace {
std::string Join(const std::vector<exec::ExprPtr>& exprs) {
  std::string out;
  for (const auto& e : exprs) out += (out.empty() ? "" : ", ") + e->ToString();
  return out;
}
const char* JoinName(JoinKind k) {
  switch (k) {
    case JoinKind::kInner:
      return "Inner";
    case JoinKind::kLeft:
      return "LeftOuter";
    case JoinKind::kRight:
      return "RightOuter";
    case JoinKind::kFull:
      return "FullOuter";
    case JoinKind::kCross:
      return "Cross";
    case JoinKind::kSemi:
      return "LeftSemi";
    case JoinKind::kAnti:
      return "LeftAnti";
  }
  return "?";
}
}  // namespace

std::string ScanFilesSummary(const LogicalNode& scan) {
  if (!scan.pruned_files) return "";
  int64_t part_skipped = scan.files_total - scan.files_after_partition_pruning;
  int64_t stats_skipped = scan.files_after_partition_pruning - scan.files_after_stats_pruning;
  return "files: " + std::to_string(scan.files_after_stats_pruning) + " of " +
         std::to_string(scan.files_total) + " (partition pruning: " + std::to_string(part_skipped) +
         " skipped, stats: " +
         (scan.stats_skipping ? std::to_string(stats_skipped) + " skipped"
                              : std::string("disabled")) +
         ")";
}

std::string ScanDetails(const LogicalNode& scan) {
  std::string s = scan.table_name + " [";
  for (size_t i = 0; i < scan.scan_columns.size(); ++i) s += (i ? ", " : "") + scan.scan_columns[i];
  s += "]";
  if (!scan.pushed_filters.empty()) s += " filters=[" + Join(scan.pushed_filters) + "]";
  if (!scan.generated_partition_filters.empty())
    s += " generatedPartitionFilters=[" + Join(scan.generated_partition_filters) + "]";
  std::string files = ScanFilesSummary(scan);
  if (!files.empty()) s += " " + files;
  for (const RuntimeFilter& rf : scan.runtime_filters) {
    s += std::string(rf.rows_only ? " [RuntimeRowFilter#" : " [RuntimeFilter#") +
         std::to_string(rf.id) + ": " + scan.scan_columns[rf.scan_column] +
         (rf.rows_only ? " IN runtimefilter(" : " IN dynamicpruning(") + rf.build_key + ")]";
  }
  return s;
}

std::string LogicalNode::Describe() const {
  switch (kind) {
    case LogicalKind::kScan:
      return "DeltaScan " + ScanDetails(*this);
    case LogicalKind::kValues: {
      if (is_range) {
        return "Range (" + std::to_string(range_start) + ", " + std::to_string(range_end) +
               ", step=" + std::to_string(range_step) + ")";
      }
      if (!children.empty()) {
        return "LocalRelation (materialized CTE " + table_name +
               ", computed once when the query runs; EXPLAIN does not run it) [" +
               std::to_string(columns.size()) + " columns]";
      }
      size_t n = 0;
      for (const auto& c : rows) n += c.size();
      return "LocalRelation " +
             (table_name.empty() ? "" : "(materialized CTE " + table_name + ") ") + "[" +
             std::to_string(columns.size()) + " columns, " + std::to_string(n) + " rows]";
    }
    case LogicalKind::kFilter:
      return "Filter " + predicate->ToString();
    case LogicalKind::kProject:
      return "Project [" + Join(exprs) + "]";
    case LogicalKind::kAggregate: {
      std::string s = "Aggregate [" + Join(group_keys) + "] [";
      for (size_t i = 0; i < aggregates.size(); ++i) s += (i ? ", " : "") + aggregates[i].name;
      return s + "]";
    }
    case LogicalKind::kJoin: {
      std::string s = std::string("Join ") + JoinName(join);
      if (!left_keys.empty()) {
        s += " keys [";
        for (size_t i = 0; i < left_keys.size(); ++i) {
          s += (i ? ", " : "") + left_keys[i]->ToString() + (null_safe[i] ? " <=> " : " = ") +
               right_keys[i]->ToString();
        }
        s += "]";
      }
      if (condition) s += " condition " + condition->ToString();
      if (null_aware_anti) s += " null-aware";
      return s;
    }
    case LogicalKind::kSort: {
      std::string s = "Sort [";
      for (size_t i = 0; i < sort_keys.size(); ++i) {
        s += (i ? ", " : "") + sort_keys[i].expr->ToString() +
             (sort_keys[i].ascending ? " ASC" : " DESC") +
             (sort_keys[i].nulls_first ? " NULLS FIRST" : " NULLS LAST");
      }
      return s + "]";
    }
    case LogicalKind::kLimit:
      return "Limit " + (limit ? std::to_string(*limit) : std::string("ALL")) +
             (offset ? " OFFSET " + std::to_string(offset) : "");
    case LogicalKind::kWindow: {
      std::string s = "Window [";
      for (size_t i = 0; i < windows.size(); ++i) s += (i ? ", " : "") + windows[i].name;
      return s + "]";
    }
    case LogicalKind::kUnionAll:
      return "Union";
    case LogicalKind::kDistinct:
      return "Distinct";
    case LogicalKind::kSetOp:
      return std::string(intersect ? "Intersect" : "Except") + (set_all ? " All" : "");
    case LogicalKind::kGenerate:
      return "Generate " + generator + "(" + exprs[0]->ToString() + ")";
  }
  return "?";
}

namespace {
// Spark's tree layout: a child line is the parent's prefix plus "+- " (last child) or ":- "
// (others); the lines below a non-last child continue with ":  ".
void Explain(const LogicalNode& n, const std::string& prefix, const std::string& marker,
             std::string* out) {
  out->append(prefix + marker);
  out->append(n.Describe());
  out->push_back('\n');
  std::string below = marker.empty() ? prefix : prefix + (marker == ":- " ? ":  " : "   ");
  for (size_t i = 0; i < n.children.size(); ++i) {
    Explain(*n.children[i], below, i + 1 == n.children.size() ? "+- " : ":- ", out);
  }
}
}  // namespace

std::string ExplainPlan(const LogicalNode& root) {
  std::string out;
  Explain(root, "", "", &out);
  return out;
}

PlanPtr MakeProject(PlanPtr child, std::vector<exec::ExprPtr> exprs,
                    std::vector<std::string> names) {
  auto node = std::make_shared<LogicalNode>();
  node->kind = LogicalKind::kProject;
  for (size_t i = 0; i < exprs.size(); ++i) {
    OutputColumn c{i < names.size() ? names[i] : exprs[i]->ToString(), exprs[i]->type,
                   exprs[i]->nullable, ""};
    if (exprs[i]->kind == exec::ExprKind::kColumn &&
        exprs[i]->column < static_cast<int>(child->columns.size())) {
      c.qualifier = child->columns[exprs[i]->column].qualifier;
      c.nullable = child->columns[exprs[i]->column].nullable;
    }
    node->columns.push_back(std::move(c));
  }
  node->exprs = std::move(exprs);
  node->children = {std::move(child)};
  return node;
}

PlanPtr MakeFilter(PlanPtr child, exec::ExprPtr predicate) {
  auto node = std::make_shared<LogicalNode>();
  node->kind = LogicalKind::kFilter;
  node->columns = child->columns;
  node->predicate = std::move(predicate);
  node->children = {std::move(child)};
  return node;
}

}  // namespace silt::planner
