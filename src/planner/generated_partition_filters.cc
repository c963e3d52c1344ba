#include "planner/generated_partition_filters.h"

#include <optional>

#include "common/ascii.h"
#include "delta/schema_json.h"
#include "exec/functions.h"
#include "planner/binder.h"
#include "planner/constant_folding.h"
#include "planner/optimizer.h"
#include "sql/parser.h"

namespace silt::planner {
namespace {

using exec::Expr;
using exec::ExprKind;
using exec::ExprPtr;

// Components of Delta's year/month/day/hour partition columns, in lexicographic order.
enum Component { kNone = -1, kYear = 0, kMonth = 1, kDay = 2, kHour = 3 };

// What a generated partition column's expression `gen` (bound over the table's columns) tells of
// its base column.
struct Rule {
  int part = -1;  // partition column (index into the table schema)
  int base = -1;  // the one column gen reads
  ExprPtr gen;
  bool monotone = false;  // non-decreasing in base: ranges apply, not only = / IN / IS NULL
  // date_format: a year outside 0000–9999 formats with a sign, which sorts below '0' as a string.
  bool signed_years = false;
  Component component = kNone;
};

bool IsDateTime(TypeId t) {
  return t == TypeId::kDate || t == TypeId::kTimestamp || t == TypeId::kTimestampNtz;
}

bool IsIntegral(TypeId t) {
  return t == TypeId::kInt8 || t == TypeId::kInt16 || t == TypeId::kInt32 || t == TypeId::kInt64;
}

int IntegralWidth(TypeId t) {
  return t == TypeId::kInt8 ? 1 : t == TypeId::kInt16 ? 2 : t == TypeId::kInt32 ? 4 : 8;
}

bool Positive(const Expr& e) {
  if (e.kind != ExprKind::kConstant || e.constant.is_null()) return false;
  TypeId t = e.type->id();
  if (IsIntegral(t)) return e.constant.integer() > 0;
  if (t == TypeId::kDouble || t == TypeId::kFloat) return e.constant.floating() > 0;
  if (t == TypeId::kDecimal) return e.constant.decimal() > 0;
  return false;
}

std::optional<std::string> StringConstant(const Expr& e) {
  if (e.kind != ExprKind::kConstant || e.constant.is_null() || e.type->id() != TypeId::kString)
    return std::nullopt;
  return e.constant.str();
}

std::optional<int64_t> IntConstant(const Expr& e) {
  if (e.kind != ExprKind::kConstant || e.constant.is_null() || !IsIntegral(e.type->id()))
    return std::nullopt;
  return e.constant.integer();
}

// A cast that keeps order: timestamp/date → date, date → timestamp, integer → wider integer
// (any other cast is still a function of its input: equality carries over).
bool OrderKeepingCast(const Expr& cast) {
  TypeId from = cast.children[0]->type->id(), to = cast.type->id();
  if (to == TypeId::kDate) return IsDateTime(from);
  if (to == TypeId::kTimestamp || to == TypeId::kTimestampNtz) return from == TypeId::kDate;
  if (IsIntegral(from) && IsIntegral(to)) return IntegralWidth(from) <= IntegralWidth(to);
  return false;
}

// The column under casts between date and timestamp types (year(ts) binds as year of a cast).
int DateTimeColumn(const ExprPtr& e) {
  if (e->kind == ExprKind::kColumn) return IsDateTime(e->type->id()) ? e->column : -1;
  if (e->kind == ExprKind::kCast && IsDateTime(e->type->id()))
    return DateTimeColumn(e->children[0]);
  return -1;
}

// Whether `e` is a function of one column (*base) through the functions the header lists
// (*monotone false when one of them is not order-keeping).
bool Analyze(const ExprPtr& e, int* base, bool* monotone, bool* signed_years) {
  switch (e->kind) {
    case ExprKind::kColumn:
      *base = e->column;
      return true;
    case ExprKind::kCast:
      if (!OrderKeepingCast(*e)) *monotone = false;
      return Analyze(e->children[0], base, monotone, signed_years);
    case ExprKind::kCall:
      break;
    default:
      return false;
  }
  const std::string& n = e->name;
  const auto& a = e->children;
  if ((n == "year" || n == "floor" || n == "ceil" || n == "ceiling") && a.size() == 1)
    return Analyze(a[0], base, monotone, signed_years);
  if ((n == "month" || n == "day" || n == "dayofmonth" || n == "hour") && a.size() == 1) {
    *monotone = false;
    return Analyze(a[0], base, monotone, signed_years);
  }
  if (n == "date_format" && a.size() == 2) {
    std::optional<std::string> f = StringConstant(*a[1]);
    if (!f) return false;
    if (*f == "yyyy-MM" || *f == "yyyy-MM-dd" || *f == "yyyy-MM-dd-HH") {
      *signed_years = true;
    } else {
      *monotone = false;
    }
    return Analyze(a[0], base, monotone, signed_years);
  }
  if ((n == "substring" || n == "substr") && (a.size() == 2 || a.size() == 3)) {
    std::optional<int64_t> pos = IntConstant(*a[1]);
    if (!pos || (a.size() == 3 && !IntConstant(*a[2]))) return false;
    // Both 0 and 1 start at the first character (Spark's substringSQL): a prefix keeps order.
    if (*pos != 0 && *pos != 1) *monotone = false;
    return Analyze(a[0], base, monotone, signed_years);
  }
  if (n == "trunc" && a.size() == 2 && StringConstant(*a[1]))
    return Analyze(a[0], base, monotone, signed_years);
  if (n == "date_trunc" && a.size() == 2 && StringConstant(*a[0]))
    return Analyze(a[1], base, monotone, signed_years);
  if ((n == "div" || n == "/") && a.size() == 2 && Positive(*a[1]))
    return Analyze(a[0], base, monotone, signed_years);
  return false;
}

Component ComponentOf(const Expr& e) {
  if (e.kind != ExprKind::kCall || e.children.size() != 1 || DateTimeColumn(e.children[0]) < 0)
    return kNone;
  if (e.name == "year") return kYear;
  if (e.name == "month") return kMonth;
  if (e.name == "day" || e.name == "dayofmonth") return kDay;
  if (e.name == "hour") return kHour;
  return kNone;
}

// `e` with every column replaced by `value` (the generation expression reads one column).
ExprPtr WithColumnValue(const ExprPtr& e, const Value& value) {
  if (e->kind == ExprKind::kColumn) return exec::MakeConstant(value);
  if (e->children.empty()) return e;
  auto copy = std::make_shared<Expr>(*e);
  for (auto& c : copy->children) c = WithColumnValue(c, value);
  return copy;
}

// f(c): NULL or an error (an overflow under ANSI) gives no filter.
std::optional<Value> Apply(const Rule& r, const Value& c, const exec::EvalContext& eval) {
  Result<Value> v = exec::EvaluateConstant(*WithColumnValue(r.gen, c), eval);
  if (!v.ok() || v->is_null()) return std::nullopt;
  return *v;
}

class Builder {
 public:
  Builder(const Schema& schema, const exec::EvalContext& eval, GeneratedPartitionFilters* out)
      : schema_(schema), eval_(eval), out_(out) {
    bind_.ansi = eval.ansi;
    bind_.time_zone = eval.time_zone;
  }

  // Partition column `field` as a column of out_->columns (appended when the scan lacks it).
  ExprPtr Part(int field) {
    const Field& f = schema_[field];
    int index = -1;
    for (size_t i = 0; i < out_->columns.size(); ++i) {
      if (AsciiLower(out_->columns[i]) == AsciiLower(f.name)) index = static_cast<int>(i);
    }
    if (index < 0) {
      index = static_cast<int>(out_->columns.size());
      out_->columns.push_back(f.name);
    }
    return exec::MakeColumn(index, f.type, f.name);
  }

  Result<ExprPtr> Call(const char* op, ExprPtr a, ExprPtr b) {
    return exec::BindScalarFunction(op, {std::move(a), std::move(b)}, bind_);
  }
  ExprPtr IsNull(ExprPtr a) {
    return exec::MakeSpecial(ExprKind::kIsNull, DataType::Boolean(), {std::move(a)});
  }
  ExprPtr Or(ExprPtr a, ExprPtr b) {
    return exec::MakeSpecial(ExprKind::kOr, DataType::Boolean(), {std::move(a), std::move(b)});
  }
  ExprPtr And(ExprPtr a, ExprPtr b) {
    return exec::MakeSpecial(ExprKind::kAnd, DataType::Boolean(), {std::move(a), std::move(b)});
  }
  ExprPtr OrNull(ExprPtr e, int part) { return Or(std::move(e), IsNull(Part(part))); }

  // One rule, one conjunct `base op c` (op one of "<=", ">=", "=" after normalization).
  Status Comparison(const Rule& r, const std::string& op, const Value& c) {
    if (op != "=" && !r.monotone) return Status::OK();
    std::optional<Value> v = Apply(r, c, eval_);
    if (!v) return Status::OK();
    SILT_ASSIGN_OR_RETURN(ExprPtr e, Call(op.c_str(), Part(r.part), exec::MakeConstant(*v)));
    if (op == ">=" && r.signed_years) {
      // A partition value with a signed year (below '0') may hold any later timestamp.
      SILT_ASSIGN_OR_RETURN(ExprPtr below,
                            Call("<", Part(r.part), exec::MakeConstant(Value::String("0"))));
      e = Or(e, below);
    }
    out_->filters.push_back(OrNull(e, r.part));
    return Status::OK();
  }

  Status In(const Rule& r, const std::vector<Value>& items) {
    std::vector<ExprPtr> children{Part(r.part)};
    for (const Value& c : items) {
      std::optional<Value> v = Apply(r, c, eval_);
      if (!v) return Status::OK();  // an item with no partition value: no filter
      children.push_back(exec::MakeConstant(*v));
    }
    if (children.size() == 1) return Status::OK();
    out_->filters.push_back(
        OrNull(exec::MakeSpecial(ExprKind::kIn, DataType::Boolean(), std::move(children)), r.part));
    return Status::OK();
  }

  void Null(const Rule& r) { out_->filters.push_back(IsNull(Part(r.part))); }

  // year/month[/day[/hour]] of one column (`parts` in that order, no gaps): Delta's
  // YearMonth[Day[Hour]]PartitionExpr ranges, lexicographic over the components.
  Status Lexicographic(const std::vector<const Rule*>& parts, const std::string& op,
                       const Value& c) {
    std::vector<Value> v;
    for (const Rule* r : parts) {
      std::optional<Value> x = Apply(*r, c, eval_);
      if (!x) return Status::OK();
      v.push_back(*x);
    }
    const char* strict = op == "<=" ? "<" : ">";
    ExprPtr any;        // the OR of the alternatives
    ExprPtr equal_pre;  // components before k equal to c's
    for (size_t k = 0; k < parts.size(); ++k) {
      const bool last = k + 1 == parts.size();
      SILT_ASSIGN_OR_RETURN(ExprPtr cmp, Call(last ? op.c_str() : strict, Part(parts[k]->part),
                                              exec::MakeConstant(v[k])));
      ExprPtr alt = equal_pre ? And(equal_pre, cmp) : cmp;
      any = any ? Or(any, alt) : alt;
      if (!last) {
        SILT_ASSIGN_OR_RETURN(ExprPtr eq,
                              Call("=", Part(parts[k]->part), exec::MakeConstant(v[k])));
        equal_pre = equal_pre ? And(equal_pre, eq) : eq;
      }
    }
    out_->filters.push_back(OrNull(any, parts[0]->part));
    return Status::OK();
  }

 private:
  const Schema& schema_;
  const exec::EvalContext& eval_;
  exec::BindContext bind_;
  GeneratedPartitionFilters* out_;
};

// A conjunct as `column op literal` over a scan column: op "<", "<=", "=", ">", ">=", "IS NULL"
// or "IN" (items in *items, NULLs dropped). False for anything else.
bool Normalize(const ExprPtr& e, int* column, std::string* op, std::vector<Value>* items) {
  items->clear();
  if (e->kind == ExprKind::kIsNull && e->children[0]->kind == ExprKind::kColumn) {
    *column = e->children[0]->column;
    *op = "IS NULL";
    return true;
  }
  if (e->kind == ExprKind::kIn && e->children[0]->kind == ExprKind::kColumn) {
    *column = e->children[0]->column;
    *op = "IN";
    for (size_t i = 1; i < e->children.size(); ++i) {
      const Expr& item = *e->children[i];
      if (item.kind != ExprKind::kConstant) return false;
      if (!item.constant.is_null()) items->push_back(item.constant);
    }
    return true;
  }
  if (e->kind != ExprKind::kCall || e->children.size() != 2) return false;
  std::string name = e->name == "==" || e->name == "<=>" ? "=" : e->name;
  ExprPtr col = e->children[0], lit = e->children[1];
  if (col->kind == ExprKind::kConstant && lit->kind == ExprKind::kColumn) {
    std::swap(col, lit);
    name = SwappedComparison(name);
  }
  if (col->kind != ExprKind::kColumn || lit->kind != ExprKind::kConstant) return false;
  if (lit->constant.is_null()) return false;
  if (name != "<" && name != "<=" && name != "=" && name != ">" && name != ">=") return false;
  *column = col->column;
  *op = name;
  items->push_back(lit->constant);
  return true;
}

}  // namespace

Result<GeneratedPartitionFilters> DeriveGeneratedPartitionFilters(
    const delta::Snapshot& snapshot, const std::vector<std::string>& scan_columns,
    const std::vector<exec::ExprPtr>& filters, const exec::EvalContext& eval) {
  GeneratedPartitionFilters out;
  out.columns = scan_columns;
  const Schema& schema = snapshot.schema();
  std::vector<std::pair<int, std::string>> generated;  // partition field, expression text
  for (const std::string& p : snapshot.partition_columns()) {
    int fi = FindField(schema, p);
    if (fi < 0) continue;
    std::optional<std::string> text =
        delta::MetadataString(schema[fi], "delta.generationExpression");
    if (text) generated.emplace_back(fi, *text);
  }
  if (generated.empty() || filters.empty()) return out;

  BinderContext bctx;
  bctx.bind.ansi = eval.ansi;
  bctx.bind.time_zone = eval.time_zone;
  bctx.eval = eval;
  Binder binder(bctx);
  std::vector<OutputColumn> table_columns;
  for (const Field& f : schema) table_columns.push_back({f.name, f.type, f.nullable, ""});
  std::vector<Rule> rules;
  for (const auto& [part, text] : generated) {
    Result<sql::ExprNode> parsed = sql::ParseExpression(text);
    if (!parsed.ok()) continue;
    Result<ExprPtr> bound = binder.BindExpression(**parsed, table_columns);
    if (!bound.ok() || !Deterministic(*bound)) continue;
    // `ts / 10` binds with a cast of the 10: fold it so that the divisor is a literal.
    bound = FoldConstantExpr(*bound, eval);
    if (!bound.ok()) continue;
    // Written values are the expression cast to the column's type: the cast is part of the
    // function (an order-changing one, e.g. to STRING, leaves only equality).
    if (!(*bound)->type->Equals(*schema[part].type)) {
      bound = exec::BindCast(*bound, schema[part].type, false, bctx.bind);
      if (!bound.ok()) continue;
    }
    Rule r;
    r.part = part;
    r.gen = *bound;
    r.monotone = true;
    if (!Analyze(r.gen, &r.base, &r.monotone, &r.signed_years)) continue;
    // Equality alone carries over only where `=` means the same value: not for floating point
    // (0.0 = -0.0, yet they format differently).
    const TypeId base_type = schema[r.base].type->id();
    if (!r.monotone && (base_type == TypeId::kFloat || base_type == TypeId::kDouble)) continue;
    r.component = ComponentOf(*r.gen);
    rules.push_back(std::move(r));
  }

  // DML predicates come as one AND tree.
  std::vector<ExprPtr> conjuncts;
  for (const ExprPtr& f : filters) Conjuncts(f, &conjuncts);
  Builder build(schema, eval, &out);
  for (const ExprPtr& f : conjuncts) {
    int column = -1;
    std::string op;
    std::vector<Value> items;
    if (!Normalize(f, &column, &op, &items) || column < 0 ||
        static_cast<size_t>(column) >= scan_columns.size())
      continue;
    const int base = FindField(schema, scan_columns[column]);
    if (base < 0) continue;
    bool typed = true;  // Delta derives from literals of the column's own type only
    for (const Value& v : items) typed &= v.type()->Equals(*schema[base].type);
    if (!typed) continue;
    // The year/month[/day[/hour]] components of this column, for ranges.
    std::vector<const Rule*> parts(4, nullptr);
    for (const Rule& r : rules) {
      if (r.base != base) continue;
      if (r.component != kNone && !parts[r.component]) parts[r.component] = &r;
    }
    std::vector<const Rule*> chain;
    for (const Rule* p : parts) {
      if (!p) break;
      chain.push_back(p);
    }
    const bool ranged = op == "<" || op == "<=" || op == ">" || op == ">=";
    const std::string range_op = op == "<" || op == "<=" ? "<=" : ">=";
    for (const Rule& r : rules) {
      if (r.base != base) continue;
      if (op == "IS NULL") {
        build.Null(r);
      } else if (op == "IN") {
        SILT_RETURN_NOT_OK(build.In(r, items));
      } else if (op == "=") {
        SILT_RETURN_NOT_OK(build.Comparison(r, "=", items[0]));
      } else if (ranged && !(chain.size() >= 2 && &r == chain[0])) {
        SILT_RETURN_NOT_OK(build.Comparison(r, range_op, items[0]));
      }
    }
    if (ranged && chain.size() >= 2)
      SILT_RETURN_NOT_OK(build.Lexicographic(chain, range_op, items[0]));
  }
  return out;
}

}  // namespace silt::planner
