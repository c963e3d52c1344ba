// DDL: CREATE TABLE/VIEW/SCHEMA, column definitions, Auto-TTL clause, DROP, ALTER TABLE.
#include "common/error_classes.h"
#include "sql/parser_internal.h"

namespace silt::sql::internal {

Result<StatementNode> Parser::Create() {
  SourcePos pos = Next().pos;  // CREATE
  bool or_replace = false;
  if (AtKw("OR") && AtKw("REPLACE", 1)) {
    Next();
    Next();
    or_replace = true;
  }
  if (AtKw("SCHEMA") || AtKw("DATABASE") || AtKw("NAMESPACE")) {
    Next();
    if (or_replace) return ErrorAt(t_[p_ - 1]);
    auto s = std::make_unique<CreateSchemaStatement>();
    if (AtKw("IF")) {
      Next();
      SILT_RETURN_NOT_OK(ExpectKw("NOT"));
      SILT_RETURN_NOT_OK(ExpectKw("EXISTS"));
      s->if_not_exists = true;
    }
    SILT_ASSIGN_OR_RETURN(s->name, QualifiedName());
    while (true) {
      if (AcceptKw("COMMENT")) {
        SILT_ASSIGN_OR_RETURN(s->comment, StringLit());
      } else if (AcceptKw("LOCATION")) {
        SILT_ASSIGN_OR_RETURN(s->location, StringLit());
      } else if (AtKw("WITH") && (AtKw("DBPROPERTIES", 1) || AtKw("PROPERTIES", 1))) {
        Next();
        Next();
        SILT_ASSIGN_OR_RETURN(s->properties, PropertyListClause());
      } else {
        break;
      }
    }
    return StatementNode(std::move(s));
  }
  bool temporary = false;
  if (AcceptKw("GLOBAL")) {
    if (!AtKw("TEMP") && !AtKw("TEMPORARY")) return ErrorHere();
  }
  if (AtKw("TEMP") || AtKw("TEMPORARY")) {
    Next();
    temporary = true;
  }
  if (AtKw("VIEW")) return CreateView(or_replace, temporary, pos);
  if (temporary) return ErrorHere();
  bool external = AcceptKw("EXTERNAL");
  if (!AtKw("TABLE")) return ErrorHere();
  SILT_ASSIGN_OR_RETURN(auto st, CreateTable(or_replace, false, pos));
  static_cast<CreateTableStatement*>(st.get())->external = external;
  return st;
}

Result<int64_t> Parser::SignedInteger() {
  bool neg = false;
  if (AtOp("-") || AtOp("+")) neg = Next().IsOp("-");
  const Token& t = Peek();
  if (t.kind != TokenKind::kNumber) return ErrorHere();
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
  if (ec != std::errc() || ptr != t.text.data() + t.text.size()) return ErrorHere();
  Next();
  return neg ? -v : v;
}

Result<ColumnDef> Parser::ColumnDefinition(bool require_type, bool qualified_name) {
  ColumnDef c;
  c.pos = Peek().pos;
  if (qualified_name) {
    SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
    for (size_t i = 0; i < parts.size(); ++i) c.name += (i ? "." : "") + parts[i];
  } else {
    SILT_ASSIGN_OR_RETURN(c.name, Identifier());
  }
  if (!require_type && (AtOp(",") || AtOp(")"))) return c;
  SILT_ASSIGN_OR_RETURN(c.type, DataTypeRule());
  std::set<std::string> seen;
  auto once = [&](const std::string& clause, const SourcePos& p) -> Status {
    if (!seen.insert(clause).second) {
      return ClassError(errc::kDuplicateClauses,
                        "Found duplicate clauses: " + clause + ". Please, remove one of them", p);
    }
    return Status::OK();
  };
  while (true) {
    SourcePos p = Peek().pos;
    if (AtKw("NOT") && AtKw("NULL", 1)) {
      Next();
      Next();
      SILT_RETURN_NOT_OK(once("NOT NULL", p));
      c.nullable = false;
    } else if (AtKw("NULL")) {
      Next();
    } else if (AcceptKw("COMMENT")) {
      SILT_RETURN_NOT_OK(once("COMMENT", p));
      SILT_ASSIGN_OR_RETURN(c.comment, StringLit());
    } else if (AcceptKw("DEFAULT")) {
      SILT_RETURN_NOT_OK(once("DEFAULT", p));
      const int start = Peek().pos.offset;
      SILT_ASSIGN_OR_RETURN(c.default_value, Expression());
      c.default_text = SourceText(start, Peek().pos.offset);
    } else if (AtKw("GENERATED") && !qualified_name) {
      // ALTER TABLE ADD COLUMNS (qualified names; Spark's qualifiedColTypeWithPosition) has no
      // GENERATED clause: it stays a syntax error there, as in Spark and Delta.
      Next();
      SILT_RETURN_NOT_OK(once("GENERATED", p));
      bool always = true;
      if (AcceptKw("ALWAYS")) {
        always = true;
      } else if (AtKw("BY") && AtKw("DEFAULT", 1)) {
        Next();
        Next();
        always = false;
      } else {
        return ErrorHere();
      }
      SILT_RETURN_NOT_OK(ExpectKw("AS"));
      if (AcceptKw("IDENTITY")) {
        c.identity = true;
        c.identity_always = always;
        if (AcceptOp("(")) {
          while (!AtOp(")")) {
            if (AtKw("START")) {
              Next();
              SILT_RETURN_NOT_OK(ExpectKw("WITH"));
              SILT_ASSIGN_OR_RETURN(c.identity_start, SignedInteger());
            } else if (AtKw("INCREMENT")) {
              Next();
              SILT_RETURN_NOT_OK(ExpectKw("BY"));
              SILT_ASSIGN_OR_RETURN(c.identity_step, SignedInteger());
            } else {
              return ErrorHere();
            }
          }
          SILT_RETURN_NOT_OK(ExpectOp(")"));
        }
      } else {
        if (!always) return ErrorHere();
        SILT_RETURN_NOT_OK(ExpectOp("("));
        const int start = Peek().pos.offset;
        SILT_ASSIGN_OR_RETURN(c.generated_as, Expression());
        c.generated_text = SourceText(start, Peek().pos.offset);
        SILT_RETURN_NOT_OK(ExpectOp(")"));
      }
    } else {
      break;
    }
  }
  return c;
}

Result<std::vector<ColumnDef>> Parser::ColumnDefList() {
  SILT_RETURN_NOT_OK(ExpectOp("("));
  std::vector<ColumnDef> cols;
  do {
    SILT_ASSIGN_OR_RETURN(auto c, ColumnDefinition(true, false));
    cols.push_back(std::move(c));
  } while (AcceptOp(","));
  SILT_RETURN_NOT_OK(ExpectOp(")"));
  return cols;
}

Result<TtlClause> Parser::TtlClauseBody() {
  // After DELETE: ROWS <n> DAYS AFTER <column>
  SILT_RETURN_NOT_OK(ExpectKw("ROWS"));
  TtlClause ttl;
  SourcePos npos = Peek().pos;
  bool neg = false;
  if (AtOp("-")) {
    Next();
    neg = true;
  }
  const Token& n = Peek();
  if (n.kind != TokenKind::kNumber) return ErrorHere();
  bool digits = std::all_of(n.text.begin(), n.text.end(),
                            [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(n.text.data(), n.text.data() + n.text.size(), v);
  (void)ptr;
  if (neg || !digits || ec != std::errc() || v > INT32_MAX) {
    return ClassError(errc::kAutoTtlInvalidExpirationDays,
                      "The expiration period must be a non-negative integer number of days that "
                      "fits in INT, got " +
                          std::string(neg ? "-" : "") + n.text,
                      npos);
  }
  Next();
  ttl.amount = v;
  if (!AtKw("DAYS")) return ErrorHere();
  Next();
  ttl.unit = "days";
  SILT_RETURN_NOT_OK(ExpectKw("AFTER"));
  SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
  for (size_t i = 0; i < parts.size(); ++i) ttl.column += (i ? "." : "") + parts[i];
  return ttl;
}

Result<StatementNode> Parser::CreateTable(bool or_replace, bool replace_only, SourcePos pos) {
  (void)pos;
  SILT_RETURN_NOT_OK(ExpectKw("TABLE"));
  auto s = std::make_unique<CreateTableStatement>();
  s->or_replace = or_replace;
  s->replace_only = replace_only;
  if (AtKw("IF") && AtKw("NOT", 1) && AtKw("EXISTS", 2)) {
    Next();
    Next();
    Next();
    s->if_not_exists = true;
    if (or_replace) {
      return ClassError(errc::kInvalidSqlSyntax,
                        "Invalid SQL syntax: CREATE OR REPLACE TABLE IF NOT EXISTS is not allowed",
                        pos);
    }
  }
  SILT_ASSIGN_OR_RETURN(s->name, ParseTableName(false));
  if (AtKw("SHALLOW") || AtKw("DEEP") || AtKw("CLONE") || AtKw("LIKE")) {
    return CloneOrLikeTail(std::move(s));
  }
  if (AtOp("(") && !AtQueryStart()) {
    Next();
    do {
      if (AtKw("CONSTRAINT")) {
        Next();
        SILT_ASSIGN_OR_RETURN(auto cname, Identifier());
        SILT_RETURN_NOT_OK(ExpectKw("CHECK"));
        SILT_RETURN_NOT_OK(ExpectOp("("));
        const int start = Peek().pos.offset;
        SILT_ASSIGN_OR_RETURN(auto cexpr, Expression());
        s->constraint_texts.push_back(SourceText(start, Peek().pos.offset));
        SILT_RETURN_NOT_OK(ExpectOp(")"));
        s->constraints.emplace_back(std::move(cname), std::move(cexpr));
        continue;
      }
      if (AtKw("PRIMARY") || AtKw("FOREIGN") || AtKw("UNIQUE")) {
        return Status::NotImplemented("PRIMARY KEY / FOREIGN KEY / UNIQUE constraints");
      }
      SILT_ASSIGN_OR_RETURN(auto c, ColumnDefinition(false, false));
      s->columns.push_back(std::move(c));
    } while (AcceptOp(","));
    SILT_RETURN_NOT_OK(ExpectOp(")"));
  }
  bool untyped = false;
  for (const auto& c : s->columns) untyped = untyped || !c.type;
  std::set<std::string> seen;
  auto once = [&](const std::string& clause, const SourcePos& p) -> Status {
    if (!seen.insert(clause).second) {
      return ClassError(errc::kDuplicateClauses,
                        "Found duplicate clauses: " + clause + ". Please, remove one of them", p);
    }
    return Status::OK();
  };
  while (true) {
    SourcePos p = Peek().pos;
    if (AcceptKw("USING")) {
      SILT_RETURN_NOT_OK(once("USING", p));
      SILT_ASSIGN_OR_RETURN(auto fmt, Identifier());
      s->using_format = AsciiLower(fmt);
    } else if (AcceptKw("OPTIONS")) {
      SILT_RETURN_NOT_OK(once("OPTIONS", p));
      SILT_ASSIGN_OR_RETURN(s->options, PropertyListClause());
    } else if (AtKw("PARTITIONED") && AtKw("BY", 1)) {
      Next();
      Next();
      SILT_RETURN_NOT_OK(once("PARTITIONED BY", p));
      SILT_RETURN_NOT_OK(ExpectOp("("));
      do {
        SILT_ASSIGN_OR_RETURN(auto c, ColumnDefinition(false, false));
        s->partition_by.push_back(c.name);
        if (c.type) s->partition_columns.push_back(std::move(c));
      } while (AcceptOp(","));
      SILT_RETURN_NOT_OK(ExpectOp(")"));
    } else if (AtKw("CLUSTER") && AtKw("BY", 1)) {
      Next();
      Next();
      SILT_RETURN_NOT_OK(once("CLUSTER BY", p));
      SILT_RETURN_NOT_OK(ExpectOp("("));
      do {
        SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
        std::string joined;
        for (size_t i = 0; i < parts.size(); ++i) joined += (i ? "." : "") + parts[i];
        s->cluster_by.push_back(std::move(joined));
      } while (AcceptOp(","));
      SILT_RETURN_NOT_OK(ExpectOp(")"));
    } else if (AcceptKw("LOCATION")) {
      SILT_RETURN_NOT_OK(once("LOCATION", p));
      SILT_ASSIGN_OR_RETURN(s->location, StringLit());
    } else if (AcceptKw("COMMENT")) {
      SILT_RETURN_NOT_OK(once("COMMENT", p));
      SILT_ASSIGN_OR_RETURN(s->comment, StringLit());
    } else if (AcceptKw("TBLPROPERTIES")) {
      SILT_RETURN_NOT_OK(once("TBLPROPERTIES", p));
      SILT_ASSIGN_OR_RETURN(s->properties, PropertyListClause());
    } else if (AtKw("DELETE") && AtKw("ROWS", 1)) {
      Next();
      SILT_RETURN_NOT_OK(once("DELETE ROWS", p));
      SILT_ASSIGN_OR_RETURN(s->ttl, TtlClauseBody());
    } else {
      break;
    }
  }
  if (AcceptKw("AS") || AtQueryStart()) {
    SILT_ASSIGN_OR_RETURN(s->as_query, Query());
  } else if (untyped) {
    return ErrorHere("column types are required unless the table is created AS a query");
  }
  return StatementNode(std::move(s));
}

// … [SHALLOW | DEEP] CLONE source [VERSION AS OF n | TIMESTAMP AS OF ts] [TBLPROPERTIES (…)]
// [LOCATION path] (Delta's cloneTableHeader rule; clauses in either order, each once), or
// … LIKE source [USING format] [TBLPROPERTIES (…)] [LOCATION path] (Spark's createTableLike).
Result<StatementNode> Parser::CloneOrLikeTail(std::unique_ptr<CreateTableStatement> s) {
  using C = CreateTableStatement::CopyFrom;
  const bool like = AcceptKw("LIKE");
  if (like) {
    if (s->or_replace) return ErrorAt(t_[p_ - 1]);
    s->copy_from = C::kLike;
  } else {
    // Databricks: CLONE without SHALLOW is a deep clone.
    s->copy_from = AcceptKw("SHALLOW") ? C::kShallowClone : C::kDeepClone;
    AcceptKw("DEEP");
    SILT_RETURN_NOT_OK(ExpectKw("CLONE"));
  }
  SILT_ASSIGN_OR_RETURN(s->source, ParseTableName(false));
  if (!like) {
    SILT_ASSIGN_OR_RETURN(s->source_time_travel, TemporalClause());
  }
  std::set<std::string> seen;
  while (true) {
    SourcePos p = Peek().pos;
    std::string clause;
    if (like && AcceptKw("USING")) {
      clause = "USING";
      SILT_ASSIGN_OR_RETURN(auto fmt, Identifier());
      s->using_format = AsciiLower(fmt);
    } else if (AcceptKw("TBLPROPERTIES")) {
      clause = "TBLPROPERTIES";
      SILT_ASSIGN_OR_RETURN(s->properties, PropertyListClause());
    } else if (AcceptKw("LOCATION")) {
      clause = "LOCATION";
      SILT_ASSIGN_OR_RETURN(s->location, StringLit());
    } else {
      break;
    }
    if (!seen.insert(clause).second) {
      return ClassError(errc::kDuplicateClauses,
                        "Found duplicate clauses: " + clause + ". Please, remove one of them", p);
    }
  }
  return StatementNode(std::move(s));
}

Result<StatementNode> Parser::CreateView(bool or_replace, bool temporary, SourcePos pos) {
  (void)pos;
  Next();  // VIEW
  auto v = std::make_unique<CreateViewStatement>();
  v->or_replace = or_replace;
  v->temporary = temporary;
  if (AtKw("IF") && AtKw("NOT", 1) && AtKw("EXISTS", 2)) {
    Next();
    Next();
    Next();
    v->if_not_exists = true;
  }
  SILT_ASSIGN_OR_RETURN(v->name, ParseTableName(false));
  if (AtOp("(")) {
    Next();
    do {
      SILT_ASSIGN_OR_RETURN(auto id, Identifier());
      if (AcceptKw("COMMENT")) {
        SILT_ASSIGN_OR_RETURN(auto ignored, StringLit());
        (void)ignored;
      }
      v->column_aliases.push_back(std::move(id));
    } while (AcceptOp(","));
    SILT_RETURN_NOT_OK(ExpectOp(")"));
  }
  while (true) {
    if (AcceptKw("COMMENT")) {
      SILT_ASSIGN_OR_RETURN(v->comment, StringLit());
    } else if (AcceptKw("TBLPROPERTIES")) {
      SILT_ASSIGN_OR_RETURN(auto ignored, PropertyListClause());
      (void)ignored;
    } else if (AtKw("DELETE") && AtKw("ROWS", 1)) {
      // Auto-TTL (spec A.4 rule 9): only Delta tables carry a row-deletion policy.
      return ClassError(
          errc::kAutoTtlUnsupportedTableType,
          "Auto-TTL (DELETE ROWS … AFTER) is not supported on views; it needs a Delta table",
          Peek().pos);
    } else {
      break;
    }
  }
  SILT_RETURN_NOT_OK(ExpectKw("AS"));
  size_t begin = static_cast<size_t>(Peek().pos.offset);
  SILT_ASSIGN_OR_RETURN(v->query, Query());
  size_t end = p_ > 0 ? static_cast<size_t>(t_[p_ - 1].end_offset) : begin;
  v->query_text = std::string(sql_.substr(begin, end > begin ? end - begin : 0));
  return StatementNode(std::move(v));
}

Result<StatementNode> Parser::Drop() {
  Next();  // DROP
  auto if_exists = [&]() {
    if (AtKw("IF") && AtKw("EXISTS", 1)) {
      Next();
      Next();
      return true;
    }
    return false;
  };
  if (AtKw("SCHEMA") || AtKw("DATABASE") || AtKw("NAMESPACE")) {
    Next();
    auto s = std::make_unique<DropSchemaStatement>();
    s->if_exists = if_exists();
    SILT_ASSIGN_OR_RETURN(s->name, QualifiedName());
    if (AcceptKw("CASCADE")) {
      s->cascade = true;
    } else {
      AcceptKw("RESTRICT");
    }
    return StatementNode(std::move(s));
  }
  if (AcceptKw("TABLE")) {
    auto s = std::make_unique<DropTableStatement>();
    s->if_exists = if_exists();
    SILT_ASSIGN_OR_RETURN(s->name, ParseTableName(false));
    s->purge = AcceptKw("PURGE");
    return StatementNode(std::move(s));
  }
  if (AcceptKw("VIEW")) {
    auto s = std::make_unique<DropViewStatement>();
    s->if_exists = if_exists();
    SILT_ASSIGN_OR_RETURN(s->name, ParseTableName(false));
    return StatementNode(std::move(s));
  }
  return ErrorHere();
}

Result<StatementNode> Parser::Alter() {
  Next();  // ALTER
  if (!AcceptKw("TABLE")) return ErrorHere();
  auto s = std::make_unique<AlterTableStatement>();
  SILT_ASSIGN_OR_RETURN(s->name, ParseTableName(false));
  using A = AlterTableStatement::Action;
  auto if_exists = [&]() {
    if (AtKw("IF") && AtKw("EXISTS", 1)) {
      Next();
      Next();
      return true;
    }
    return false;
  };
  auto position = [&](ColumnDef* c) -> Status {
    if (AcceptKw("FIRST")) {
      c->position_first = true;
    } else if (AcceptKw("AFTER")) {
      SILT_ASSIGN_OR_RETURN(c->position_after, Identifier());
    }
    return Status::OK();
  };
  if (AcceptKw("ADD")) {
    if (AtKw("CONSTRAINT")) {
      Next();
      s->action = A::kAddConstraint;
      SILT_ASSIGN_OR_RETURN(s->constraint_name, Identifier());
      SILT_RETURN_NOT_OK(ExpectKw("CHECK"));
      SILT_RETURN_NOT_OK(ExpectOp("("));
      const int start = Peek().pos.offset;
      SILT_ASSIGN_OR_RETURN(s->constraint_expr, Expression());
      s->constraint_text = SourceText(start, Peek().pos.offset);
      SILT_RETURN_NOT_OK(ExpectOp(")"));
      return StatementNode(std::move(s));
    }
    if (AtKw("PARTITION")) return Status::NotImplemented("ALTER TABLE ADD PARTITION");
    if (!AcceptKw("COLUMNS")) {
      if (!AcceptKw("COLUMN")) return ErrorHere();
    }
    s->action = A::kAddColumns;
    bool paren = AcceptOp("(");
    do {
      SILT_ASSIGN_OR_RETURN(auto c, ColumnDefinition(true, true));
      SILT_RETURN_NOT_OK(position(&c));
      s->columns.push_back(std::move(c));
    } while (AcceptOp(","));
    if (paren) SILT_RETURN_NOT_OK(ExpectOp(")"));
    return StatementNode(std::move(s));
  }
  if (AtKw("DROP")) {
    Next();
    if (AcceptKw("CONSTRAINT")) {
      s->action = A::kDropConstraint;
      s->if_exists = if_exists();
      SILT_ASSIGN_OR_RETURN(s->constraint_name, Identifier());
      return StatementNode(std::move(s));
    }
    if (AcceptKw("TTL") || (AtKw("ROW") && AtKw("DELETION", 1))) {
      if (AtKw("ROW")) {
        Next();
        Next();
      }
      s->action = A::kSetTtl;
      s->ttl.reset();
      return StatementNode(std::move(s));
    }
    if (AcceptKw("FEATURE")) {
      // Delta's grammar: the name is an identifier or a string literal.
      s->action = A::kDropFeature;
      if (Peek().kind == TokenKind::kString) {
        SILT_ASSIGN_OR_RETURN(s->feature, StringLit());
      } else {
        SILT_ASSIGN_OR_RETURN(s->feature, Identifier());
      }
      if (AcceptKw("TRUNCATE")) {
        SILT_RETURN_NOT_OK(ExpectKw("HISTORY"));
        s->truncate_history = true;
      }
      return StatementNode(std::move(s));
    }
    if (AtKw("PARTITION")) return Status::NotImplemented("ALTER TABLE DROP PARTITION");
    if (!AcceptKw("COLUMNS") && !AcceptKw("COLUMN")) return ErrorHere();
    s->action = A::kDropColumns;
    s->if_exists = if_exists();
    bool paren = AcceptOp("(");
    do {
      SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
      std::string joined;
      for (size_t i = 0; i < parts.size(); ++i) joined += (i ? "." : "") + parts[i];
      s->column_names.push_back(std::move(joined));
    } while (AcceptOp(","));
    if (paren) SILT_RETURN_NOT_OK(ExpectOp(")"));
    return StatementNode(std::move(s));
  }
  if (AcceptKw("RENAME")) {
    if (AcceptKw("COLUMN")) {
      s->action = A::kRenameColumn;
      SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
      std::string joined;
      for (size_t i = 0; i < parts.size(); ++i) joined += (i ? "." : "") + parts[i];
      s->column_names.push_back(std::move(joined));
      SILT_RETURN_NOT_OK(ExpectKw("TO"));
      SILT_ASSIGN_OR_RETURN(s->new_name, Identifier());
      return StatementNode(std::move(s));
    }
    SILT_RETURN_NOT_OK(ExpectKw("TO"));
    s->action = A::kRenameTable;
    SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
    for (size_t i = 0; i < parts.size(); ++i) s->new_name += (i ? "." : "") + parts[i];
    return StatementNode(std::move(s));
  }
  if (AtKw("ALTER") || AtKw("CHANGE")) {
    Next();
    AcceptKw("COLUMN");
    s->action = A::kAlterColumn;
    ColumnDef c;
    c.pos = Peek().pos;
    SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
    for (size_t i = 0; i < parts.size(); ++i) c.name += (i ? "." : "") + parts[i];
    if (AcceptKw("TYPE")) {
      SILT_ASSIGN_OR_RETURN(s->new_type, DataTypeRule());
    } else if (AtKw("SET") && AtKw("NOT", 1)) {
      Next();
      Next();
      SILT_RETURN_NOT_OK(ExpectKw("NULL"));
      s->set_not_null = true;
    } else if (AtKw("DROP") && AtKw("NOT", 1)) {
      Next();
      Next();
      SILT_RETURN_NOT_OK(ExpectKw("NULL"));
      s->set_not_null = false;
    } else if (AtKw("SET") && AtKw("DEFAULT", 1)) {
      Next();
      Next();
      const int start = Peek().pos.offset;
      SILT_ASSIGN_OR_RETURN(c.default_value, Expression());
      c.default_text = SourceText(start, Peek().pos.offset);
    } else if (AtKw("DROP") && AtKw("DEFAULT", 1)) {
      Next();
      Next();
      c.drop_default = true;
    } else if (AtKw("SYNC") && AtKw("IDENTITY", 1)) {
      // ALTER COLUMN c SYNC IDENTITY: ColumnDef::identity marks it in an ALTER COLUMN.
      Next();
      Next();
      c.identity = true;
    } else if (AcceptKw("COMMENT")) {
      SILT_ASSIGN_OR_RETURN(auto cm, StringLit());
      s->new_comment = cm;
    } else if (AtKw("FIRST") || AtKw("AFTER")) {
      SILT_RETURN_NOT_OK(position(&c));
    } else if (IsIdentToken(Peek())) {
      // Hive-style CHANGE COLUMN old new type [COMMENT …]: only the same name is supported.
      SILT_ASSIGN_OR_RETURN(auto new_name, Identifier());
      if (AsciiLower(new_name) != AsciiLower(parts.back())) {
        return Status::NotImplemented("CHANGE COLUMN with a new name (use RENAME COLUMN)");
      }
      SILT_ASSIGN_OR_RETURN(s->new_type, DataTypeRule());
      if (AcceptKw("COMMENT")) {
        SILT_ASSIGN_OR_RETURN(auto cm, StringLit());
        s->new_comment = cm;
      }
    } else {
      return ErrorHere();
    }
    if (AtKw("FIRST") || AtKw("AFTER")) SILT_RETURN_NOT_OK(position(&c));
    s->columns.push_back(std::move(c));
    return StatementNode(std::move(s));
  }
  if (AtKw("SET")) {
    Next();
    if (AcceptKw("TBLPROPERTIES")) {
      s->action = A::kSetProperties;
      SILT_ASSIGN_OR_RETURN(s->properties, PropertyListClause());
      return StatementNode(std::move(s));
    }
    if (AcceptKw("DELETE")) {
      s->action = A::kSetTtl;
      SILT_ASSIGN_OR_RETURN(auto ttl, TtlClauseBody());
      s->ttl = std::move(ttl);
      return StatementNode(std::move(s));
    }
    if (AtKw("LOCATION")) return Status::NotImplemented("ALTER TABLE SET LOCATION");
    return ErrorHere();
  }
  if (AtKw("DELETE") && AtKw("ROWS", 1)) {
    Next();
    s->action = A::kSetTtl;
    SILT_ASSIGN_OR_RETURN(auto ttl, TtlClauseBody());
    s->ttl = std::move(ttl);
    return StatementNode(std::move(s));
  }
  if (AcceptKw("UNSET")) {
    SILT_RETURN_NOT_OK(ExpectKw("TBLPROPERTIES"));
    s->action = A::kUnsetProperties;
    s->if_exists = if_exists();
    SILT_ASSIGN_OR_RETURN(auto props, PropertyListClause());
    for (auto& kv : props) s->keys.push_back(kv.first);
    return StatementNode(std::move(s));
  }
  if (AtKw("CLUSTER") && AtKw("BY", 1)) {
    Next();
    Next();
    s->action = A::kClusterBy;
    if (AcceptKw("NONE")) return StatementNode(std::move(s));
    SILT_RETURN_NOT_OK(ExpectOp("("));
    do {
      SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
      std::string joined;
      for (size_t i = 0; i < parts.size(); ++i) joined += (i ? "." : "") + parts[i];
      s->column_names.push_back(std::move(joined));
    } while (AcceptOp(","));
    SILT_RETURN_NOT_OK(ExpectOp(")"));
    return StatementNode(std::move(s));
  }
  return ErrorHere();
}

}  // namespace silt::sql::internal
