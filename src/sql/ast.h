// The abstract syntax tree of silt's Spark SQL dialect, produced by the parser (sql/parser.h) and
// consumed by the binder (planner/). It is syntax only: names are unresolved, types are what the
// user wrote. Every node carries the source position of its first token for error messages.
//
// Ownership: a tree of unique_ptrs; a parsed Statement owns everything below it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "vector/types.h"
#include "vector/value.h"

namespace silt::sql {

struct SourcePos {
  int line = 1;    // 1-based
  int column = 1;  // 1-based, in characters of the line
  int offset = 0;  // byte offset into the statement text
};

struct Query;
struct ParsedExpr;
using ExprNode = std::unique_ptr<ParsedExpr>;
using QueryNode = std::unique_ptr<Query>;

// ---------------------------------------------------------------------------------------------
// Expressions

enum class ExprType : uint8_t {
  kLiteral,  // literal (typed Value: 1 → int, 10000000000 → bigint, 1.5 → decimal(2,1),
             // 1.5e0/1.5D → double, 'x' → string, DATE '…', TIMESTAMP '…', X'0A' → binary,
             // NULL → null type, 1L/1S/1Y/1BD suffixes)
  kInterval,   // INTERVAL '1' DAY, INTERVAL 3 HOURS: interval_months / interval_micros
  kColumnRef,  // names: [qualifier..., column] e.g. {"t", "a"}; nested fields resolved later
  kStar,       // * or t.*  (names = qualifier); except_columns for * EXCEPT (a, b)
  kFunction,   // name(args) [FILTER (WHERE filter)] [OVER window]; distinct; star_arg for count(*)
  kUnary,      // op: "-", "+", "not", "~"
  kBinary,     // op: "+","-","*","/","%","div","||","=","==","<>","!=","<",">","<=",">=","<=>",
               //     "and","or","&","|","^","<<",">>",">>>" (!> and !< arrive as "<=" / ">=")
  kIsNull,     // children[0] IS [NOT] NULL (negated)
  kIsBool,     // children[0] IS [NOT] TRUE/FALSE (bool_value, negated)
  kIsDistinctFrom,  // a IS [NOT] DISTINCT FROM b (negated)
  kBetween,         // children = value, low, high; negated
  kInList,          // children = value, items...; negated
  kInSubquery,      // children[0] IN (subquery); negated
  kExists,          // EXISTS (subquery); negated for NOT EXISTS
  kScalarSubquery,  // (subquery)
  kLike,            // children = value, pattern[, escape]; op "like"|"ilike"|"rlike"; negated;
                    // quantifier ANY/ALL with children[1..] as the patterns (LIKE ANY ('a%','b%'))
  kCase,         // [operand] WHEN w THEN t ... [ELSE e]: children = [operand], w0, t0, ..., [else]
                 // has_operand / has_else tell which are present
  kCast,         // CAST(children[0] AS cast_type); try_cast; also expr::type syntax
  kSubscript,    // children[0][children[1]]  (array index / map key)
  kFieldAccess,  // children[0].field  (when the base is not a plain column path)
  kLambda,       // x -> expr  /  (x, y) -> expr : lambda_params, children[0] = body
  kNamedArgument,  // name => value (rare)
  kPositional,     // placeholder ? (not supported yet; parsed for a clear error)
};

struct WindowFrame {
  enum class Unit : uint8_t { kRows, kRange };
  enum class BoundType : uint8_t {
    kUnboundedPreceding,
    kPreceding,
    kCurrentRow,
    kFollowing,
    kUnboundedFollowing
  };
  Unit unit = Unit::kRange;
  BoundType start = BoundType::kUnboundedPreceding;
  BoundType end = BoundType::kCurrentRow;
  ExprNode start_offset;  // for kPreceding/kFollowing
  ExprNode end_offset;
};

struct OrderItem {
  ExprNode expr;
  bool ascending = true;
  std::optional<bool> nulls_first;  // unset: Spark's default (NULLS FIRST for ASC, LAST for DESC)
};

struct WindowSpec {
  std::string name;  // OVER w (a named window from the WINDOW clause); empty when inline
  std::vector<ExprNode> partition_by;
  std::vector<OrderItem> order_by;
  std::optional<WindowFrame> frame;
};

struct ParsedExpr {
  ExprType type = ExprType::kLiteral;
  SourcePos pos;
  std::vector<ExprNode> children;

  Value literal;  // kLiteral
  // kLiteral TIMESTAMP '…' written without a zone: a wall time in the session time zone (the
  // literal holds it as if it were UTC; the binder converts it).
  bool local_timestamp = false;
  int64_t interval_months = 0;     // kInterval
  int64_t interval_micros = 0;     // kInterval (days folded in as 24h)
  std::vector<std::string> names;  // kColumnRef / kStar qualifier / kFunction (qualified name)
  std::vector<std::string> except_columns;  // kStar EXCEPT
  std::string op;                           // kUnary/kBinary/kLike
  std::string field;                        // kFieldAccess / kNamedArgument name
  bool negated = false;
  bool bool_value = false;              // kIsBool
  bool distinct = false;                // kFunction
  bool star_arg = false;                // kFunction: count(*)
  bool ignore_nulls = false;            // first_value(x) IGNORE NULLS
  bool has_operand = false;             // kCase
  bool has_else = false;                // kCase
  bool try_cast = false;                // kCast
  std::string quantifier;               // kLike: "" | "any" | "all"
  TypePtr cast_type;                    // kCast
  ExprNode filter;                      // kFunction FILTER (WHERE …)
  std::unique_ptr<WindowSpec> over;     // kFunction OVER (…)
  std::vector<OrderItem> within_group;  // percentile_cont(…) WITHIN GROUP (ORDER BY …)
  QueryNode subquery;                   // kInSubquery / kExists / kScalarSubquery
  std::vector<std::string> lambda_params;
  // kInterval: Spark's interval type of the literal: "YEAR", "MONTH", "YEAR TO MONTH" (year-month),
  // "DAY", "HOUR", "DAY TO SECOND", "HOUR TO MINUTE", ... (day-time); "" for a calendar interval
  // (INTERVAL '…' string form or units mixing months with days/time).
  std::string interval_qualifier;
  // kFunction written without parentheses (current_date, current_timestamp, current_user, user,
  // session_user): Spark resolves a column of that name first (non-ANSI mode).
  bool no_parens = false;
  // Height of this subtree (1 for a leaf), maintained by the parser, which rejects trees higher
  // than kMaxExprHeight so consumers may recurse without overflowing the stack.
  int height = 1;

  // SQL-like text of the expression as the user wrote it (normalised spacing), used for
  // Spark's default output column names, e.g. "(a + 1)", "count(1)", "sum(x)".
  std::string ToString() const;
};

// Spark's DataType.sql form of a type (TypeSql) is in vector/type_sql.h.

// The parser's bound on ParsedExpr::height and on the nesting of subqueries/parentheses.
inline constexpr int kMaxExprHeight = 1000;

// ---------------------------------------------------------------------------------------------
// Table references and queries

// A table name as written: parts {"db", "t"}, or a path table. delta.`/p/t` → path_format
// "delta", path "/p/t"; parquet.`/p/f.parquet` → "parquet"; 'path' string → "delta" (as Spark
// does for maintenance commands).
struct TableName {
  std::vector<std::string> parts;
  std::string path_format;  // "" for catalog names
  std::string path;
  SourcePos pos;
  bool is_path() const { return !path.empty(); }
  std::string ToString() const;  // as written, e.g. "db.t" or "delta.`/p/t`"
};

struct TimeTravel {
  std::optional<int64_t> version;  // VERSION AS OF n, t@v123
  ExprNode timestamp;              // TIMESTAMP AS OF expr (a string literal or an expression)
  std::string timestamp_text;      // t@yyyyMMddHHmmssSSS form, as written
};

struct TableRef;
using TableRefNode = std::unique_ptr<TableRef>;

enum class JoinType : uint8_t { kInner, kLeft, kRight, kFull, kCross, kLeftSemi, kLeftAnti };

struct TableRef {
  enum class Kind : uint8_t { kTable, kSubquery, kJoin, kValues, kFunction };
  Kind kind = Kind::kTable;
  SourcePos pos;
  // kTable
  TableName name;
  std::optional<TimeTravel> time_travel;
  // kSubquery (also LATERAL (subquery) when lateral)
  QueryNode subquery;
  bool lateral = false;
  // kValues: VALUES (…), (…)  — rows of expressions
  std::vector<std::vector<ExprNode>> values;
  // kFunction: table-valued function, e.g. table_changes('t', 1, 3), range(10)
  std::string function_name;
  std::vector<ExprNode> function_args;
  // kJoin
  JoinType join_type = JoinType::kInner;
  bool natural = false;
  TableRefNode left, right;
  ExprNode join_condition;                 // ON …
  std::vector<std::string> using_columns;  // USING (…)
  // Alias for any kind: AS a (c1, c2)
  std::string alias;
  std::vector<std::string> column_aliases;
};

struct SelectItem {
  ExprNode expr;                     // may be kStar
  std::string alias;                 // AS alias (empty: derived from the expression)
  std::vector<std::string> aliases;  // AS (a, b): the columns of a generator (posexplode …)
};

// LATERAL VIEW [OUTER] generator(args) table_alias [AS] col, …
struct LateralView {
  SourcePos pos;
  bool outer = false;
  ExprNode generator;  // a kFunction call
  std::string table_alias;
  std::vector<std::string> column_aliases;
};

struct CommonTableExpr {
  std::string name;
  std::vector<std::string> column_aliases;
  QueryNode query;
};

enum class SetOp : uint8_t { kNone, kUnion, kIntersect, kExcept };

enum class GroupingKind : uint8_t { kPlain, kRollup, kCube, kGroupingSets };

// A query: either a SELECT block (set_op == kNone) or left <set_op> right; ORDER BY/LIMIT/OFFSET
// and WITH apply to the whole query.
struct Query {
  SourcePos pos;
  std::vector<CommonTableExpr> ctes;  // WITH …
  bool recursive_cte = false;

  SetOp set_op = SetOp::kNone;
  bool set_all = false;  // UNION ALL / INTERSECT ALL / EXCEPT ALL (UNION: distinct by default)
  bool by_name = false;  // UNION BY NAME
  QueryNode left, right;

  // SELECT block (set_op == kNone)
  bool distinct = false;
  std::vector<SelectItem> select;
  std::vector<TableRefNode> from;          // comma-separated FROM items (implicit cross joins)
  std::vector<LateralView> lateral_views;  // applied in order to the FROM result
  ExprNode where;
  GroupingKind grouping = GroupingKind::kPlain;
  bool group_by_all = false;                         // GROUP BY ALL
  std::vector<ExprNode> group_by;                    // plain / ROLLUP / CUBE items
  std::vector<std::vector<ExprNode>> grouping_sets;  // GROUPING SETS ((a, b), (a), ())
  ExprNode having;
  ExprNode qualify;
  std::vector<std::pair<std::string, WindowSpec>> windows;  // WINDOW w AS (…)
  // A bare VALUES query (VALUES (1, 2), (3, 4)) is a SELECT * FROM <values table ref>.

  std::vector<OrderItem> order_by;  // also SORT BY / CLUSTER BY / DISTRIBUTE BY (ordering only)
  ExprNode limit;                   // LIMIT n (an expression; ALL → null)
  ExprNode offset;
};

// ---------------------------------------------------------------------------------------------
// Statements

enum class StatementKind : uint8_t {
  kQuery,
  kExplain,
  kCreateSchema,
  kDropSchema,
  kUse,
  kShowSchemas,
  kShowTables,
  kShowTblProperties,
  kShowCreateTable,
  kShowColumns,
  kCreateTable,
  kDropTable,
  kAlterTable,
  kInsert,
  kDelete,
  kUpdate,
  kMerge,
  kVacuum,
  kOptimize,
  kReorg,
  kRestore,
  kDescribeHistory,
  kDescribeDetail,
  kDescribeTable,
  kConvertToDelta,
  kSet,
  kReset,
  kCreateView,
  kDropView,
  kTruncate,
  kShowMaintenance,  // SHOW MAINTENANCE t (ShowStatement::table)
};

struct Statement {
  explicit Statement(StatementKind k) : kind(k) {}
  virtual ~Statement() = default;
  StatementKind kind;
  SourcePos pos;
  std::string text;  // the statement's source text (without the trailing ';')
};
using StatementNode = std::unique_ptr<Statement>;

struct QueryStatement : Statement {
  QueryStatement() : Statement(StatementKind::kQuery) {}
  QueryNode query;
};

struct ExplainStatement : Statement {
  ExplainStatement() : Statement(StatementKind::kExplain) {}
  std::string mode;  // "" | "extended" | "formatted" | "analyze" | "cost" | "codegen"
  StatementNode inner;
};

struct CreateSchemaStatement : Statement {
  CreateSchemaStatement() : Statement(StatementKind::kCreateSchema) {}
  std::vector<std::string> name;
  bool if_not_exists = false;
  std::string comment;
  std::string location;
  std::vector<std::pair<std::string, std::string>> properties;  // WITH DBPROPERTIES (…)
};

struct DropSchemaStatement : Statement {
  DropSchemaStatement() : Statement(StatementKind::kDropSchema) {}
  std::vector<std::string> name;
  bool if_exists = false;
  bool cascade = false;
};

struct UseStatement : Statement {
  UseStatement() : Statement(StatementKind::kUse) {}
  std::vector<std::string> name;  // USE [SCHEMA|DATABASE|CATALOG] name
};

struct ShowStatement : Statement {
  explicit ShowStatement(StatementKind k) : Statement(k) {}
  std::vector<std::string> schema;  // SHOW TABLES [IN|FROM schema]
  std::string pattern;              // [LIKE 'pattern']
  TableName table;                  // SHOW TBLPROPERTIES / CREATE TABLE / COLUMNS / MAINTENANCE
  std::string property_key;         // SHOW TBLPROPERTIES t ('key')
};

struct ColumnDef {
  std::string name;
  TypePtr type;
  bool nullable = true;  // NOT NULL → false
  std::string comment;
  ExprNode default_value;  // DEFAULT expr
  ExprNode generated_as;   // GENERATED ALWAYS AS (expr)
  // The DEFAULT / GENERATED ALWAYS AS expressions as written (Delta stores the text).
  std::string default_text, generated_text;
  bool identity = false;  // GENERATED ALWAYS|BY DEFAULT AS IDENTITY
  bool identity_always = false;
  int64_t identity_start = 1, identity_step = 1;
  // ALTER TABLE … ADD COLUMNS / ALTER COLUMN position: FIRST or AFTER <column>.
  bool position_first = false;
  std::string position_after;
  bool drop_default = false;  // ALTER COLUMN c DROP DEFAULT (SET DEFAULT uses default_value)
  SourcePos pos;
};

using PropertyList = std::vector<std::pair<std::string, std::string>>;  // keys as written

// Auto-TTL clause (`DELETE ROWS n DAYS AFTER col`), see ../shared/specs/ttl-dfp-streaming.md.
struct TtlClause {
  int64_t amount = 0;
  std::string unit;  // "days", "hours", ...
  std::string column;
};

struct CreateTableStatement : Statement {
  CreateTableStatement() : Statement(StatementKind::kCreateTable) {}
  TableName name;
  bool or_replace = false;    // CREATE OR REPLACE TABLE / REPLACE TABLE
  bool replace_only = false;  // REPLACE TABLE (must exist)
  bool if_not_exists = false;
  bool external = false;
  std::vector<ColumnDef> columns;
  std::vector<std::pair<std::string, ExprNode>> constraints;  // CONSTRAINT name CHECK (expr)
  std::vector<std::string> constraint_texts;  // each expr as written (Spark stores it)
  std::string using_format;                  // USING DELTA / PARQUET … (lower case; "" = default)
  std::vector<std::string> partition_by;     // PARTITIONED BY (a, b) (names, also of typed columns)
  std::vector<ColumnDef> partition_columns;  // PARTITIONED BY (a INT, b STRING): typed ones
  std::vector<std::string> cluster_by;       // CLUSTER BY (a, b)
  std::string location;
  std::string comment;
  PropertyList properties;  // TBLPROPERTIES
  PropertyList options;     // OPTIONS
  std::optional<TtlClause> ttl;
  QueryNode as_query;  // CTAS
  // CREATE TABLE t [SHALLOW | DEEP] CLONE source [VERSION | TIMESTAMP AS OF …] (Delta) and
  // CREATE TABLE t LIKE source (Spark): the table is made from `source` (clone_table.cc).
  enum class CopyFrom : uint8_t { kNone, kShallowClone, kDeepClone, kLike };
  CopyFrom copy_from = CopyFrom::kNone;
  TableName source;
  std::optional<TimeTravel> source_time_travel;  // CLONE only
};

struct DropTableStatement : Statement {
  DropTableStatement() : Statement(StatementKind::kDropTable) {}
  TableName name;
  bool if_exists = false;
  bool purge = false;
};

// TRUNCATE TABLE t [PARTITION (…)]
struct TruncateStatement : Statement {
  TruncateStatement() : Statement(StatementKind::kTruncate) {}
  TableName table;
  bool partition = false;  // a PARTITION clause was given (Delta refuses it)
};

struct AlterTableStatement : Statement {
  AlterTableStatement() : Statement(StatementKind::kAlterTable) {}
  enum class Action : uint8_t {
    kAddColumns,       // ADD COLUMN(S) (defs) — nested names in ColumnDef.name as "a.b"
    kDropColumns,      // DROP COLUMN(S) [IF EXISTS] names
    kRenameColumn,     // RENAME COLUMN old TO new
    kAlterColumn,      // ALTER|CHANGE COLUMN c TYPE t / SET|DROP NOT NULL / COMMENT '…'
    kSetProperties,    // SET TBLPROPERTIES (…)
    kUnsetProperties,  // UNSET TBLPROPERTIES [IF EXISTS] (keys)
    kRenameTable,      // RENAME TO new
    kAddConstraint,    // ADD CONSTRAINT name CHECK (expr)
    kDropConstraint,   // DROP CONSTRAINT [IF EXISTS] name
    kSetTtl,           // SET DELETE ROWS … / DROP TTL (ttl unset)
    kClusterBy,        // CLUSTER BY (cols) | CLUSTER BY NONE
    kDropFeature,      // DROP FEATURE name [TRUNCATE HISTORY]
  };
  TableName name;
  Action action = Action::kSetProperties;
  std::vector<ColumnDef> columns;         // kAddColumns; kAlterColumn (one, with what changed)
  std::vector<std::string> column_names;  // kDropColumns, kRenameColumn (old), kClusterBy
  std::string new_name;                   // kRenameColumn / kRenameTable
  bool if_exists = false;
  PropertyList properties;        // kSetProperties
  std::vector<std::string> keys;  // kUnsetProperties
  std::string constraint_name;    // kAddConstraint / kDropConstraint
  ExprNode constraint_expr;
  std::string constraint_text;  // the CHECK expression as written
  // kAlterColumn details
  TypePtr new_type;
  std::optional<bool> set_not_null;  // true: SET NOT NULL, false: DROP NOT NULL
  std::optional<std::string> new_comment;
  std::optional<TtlClause> ttl;   // kSetTtl (nullopt: drop)
  std::string feature;            // kDropFeature: the table feature's name as written
  bool truncate_history = false;  // kDropFeature … TRUNCATE HISTORY
};

struct InsertStatement : Statement {
  InsertStatement() : Statement(StatementKind::kInsert) {}
  TableName table;
  bool overwrite = false;
  bool if_not_exists = false;
  std::vector<std::string> columns;  // INSERT INTO t (a, b)
  bool by_name = false;              // INSERT INTO t BY NAME
  std::vector<std::pair<std::string, ExprNode>>
      partition_spec;      // PARTITION (p = 1, q) (null value = dynamic)
  ExprNode replace_where;  // INSERT INTO t REPLACE WHERE pred
  QueryNode query;         // VALUES … or SELECT …
};

struct DeleteStatement : Statement {
  DeleteStatement() : Statement(StatementKind::kDelete) {}
  TableName table;
  std::string alias;
  ExprNode where;
};

struct Assignment {
  std::vector<std::string> column;  // a or a.b (nested field)
  ExprNode value;                   // null for DEFAULT
};

struct UpdateStatement : Statement {
  UpdateStatement() : Statement(StatementKind::kUpdate) {}
  TableName table;
  std::string alias;
  std::vector<Assignment> set;
  ExprNode where;
};

struct MergeClause {
  enum class Match : uint8_t { kMatched, kNotMatched, kNotMatchedBySource };
  enum class Action : uint8_t { kUpdate, kUpdateStar, kDelete, kInsert, kInsertStar };
  Match match = Match::kMatched;
  Action action = Action::kUpdate;
  ExprNode condition;                       // AND cond
  std::vector<Assignment> set;              // UPDATE SET …
  std::vector<std::string> insert_columns;  // INSERT (cols)
  std::vector<ExprNode> insert_values;      // VALUES (…)
  SourcePos pos;
};

struct MergeStatement : Statement {
  MergeStatement() : Statement(StatementKind::kMerge) {}
  TableName target;
  std::string target_alias;
  TableRefNode source;  // a table (with alias) or (subquery) alias
  ExprNode on;
  std::vector<MergeClause> clauses;  // in written order
  bool with_schema_evolution = false;
};

struct VacuumStatement : Statement {
  VacuumStatement() : Statement(StatementKind::kVacuum) {}
  TableName table;
  std::string type;                    // "" | "full" | "lite"
  std::optional<double> retain_hours;  // RETAIN n HOURS (may be negative: rejected later)
  bool dry_run = false;
  std::optional<TableName> inventory_table;  // USING INVENTORY t
  QueryNode inventory_query;                 // USING INVENTORY (query)
};

struct OptimizeStatement : Statement {
  OptimizeStatement() : Statement(StatementKind::kOptimize) {}
  TableName table;
  ExprNode where;
  std::vector<std::vector<std::string>> zorder_by;  // ZORDER BY (a, b.c)
  bool full = false;                                // OPTIMIZE t FULL (liquid)
};

struct ReorgStatement : Statement {
  ReorgStatement() : Statement(StatementKind::kReorg) {}
  TableName table;
  ExprNode where;
  std::string apply;  // "purge" | "upgrade uniform(...)" (only purge is supported)
  std::string apply_args;
};

struct RestoreStatement : Statement {
  RestoreStatement() : Statement(StatementKind::kRestore) {}
  TableName table;
  TimeTravel target;
};

struct DescribeStatement : Statement {
  explicit DescribeStatement(StatementKind k) : Statement(k) {}
  TableName table;
  std::optional<TimeTravel> time_travel;  // DESCRIBE t VERSION AS OF n (for DESCRIBE TABLE)
  bool extended = false;                  // DESCRIBE TABLE EXTENDED / FORMATTED
  std::vector<std::string> column;        // DESCRIBE t col
  ExprNode limit;                         // DESCRIBE HISTORY t LIMIT n
  QueryNode query;                        // DESCRIBE QUERY SELECT …
};

struct ConvertToDeltaStatement : Statement {
  ConvertToDeltaStatement() : Statement(StatementKind::kConvertToDelta) {}
  TableName table;                          // parquet.`/path` or a catalog table
  std::vector<ColumnDef> partition_schema;  // PARTITIONED BY (a INT, b STRING)
  bool no_statistics = false;
};

struct SetStatement : Statement {
  SetStatement() : Statement(StatementKind::kSet) {}
  // SET key = value; SET key (show one); SET (show all); SET -v (list with docs)
  std::string key;
  std::optional<std::string> value;
  bool verbose = false;
};

struct ResetStatement : Statement {
  ResetStatement() : Statement(StatementKind::kReset) {}
  std::string key;  // empty: reset all
};

struct CreateViewStatement : Statement {
  CreateViewStatement() : Statement(StatementKind::kCreateView) {}
  TableName name;
  bool or_replace = false;
  bool temporary = false;
  bool if_not_exists = false;
  std::vector<std::string> column_aliases;
  QueryNode query;
  std::string query_text;  // the query as written (what a persistent view stores)
  std::string comment;
};

struct DropViewStatement : Statement {
  DropViewStatement() : Statement(StatementKind::kDropView) {}
  TableName name;
  bool if_exists = false;
};

}  // namespace silt::sql
