// DML: INSERT, DELETE, UPDATE and MERGE INTO.
#include "sql/parser_internal.h"

namespace silt::sql::internal {

Result<StatementNode> Parser::Insert() {
  Next();  // INSERT
  auto s = std::make_unique<InsertStatement>();
  if (AcceptKw("OVERWRITE")) {
    s->overwrite = true;
  } else {
    SILT_RETURN_NOT_OK(ExpectKw("INTO"));
  }
  AcceptKw("TABLE");
  SILT_ASSIGN_OR_RETURN(s->table, ParseTableName(false));
  if (AtKw("PARTITION") && AtOp("(", 1)) {
    Next();
    Next();
    do {
      SILT_ASSIGN_OR_RETURN(auto col, Identifier());
      ExprNode val;
      if (AcceptOp("=")) {
        SILT_ASSIGN_OR_RETURN(val, Expression());
      }
      s->partition_spec.emplace_back(std::move(col), std::move(val));
    } while (AcceptOp(","));
    SILT_RETURN_NOT_OK(ExpectOp(")"));
  }
  if (AtKw("IF") && AtKw("NOT", 1) && AtKw("EXISTS", 2)) {
    Next();
    Next();
    Next();
    s->if_not_exists = true;
  }
  if (AtKw("BY") && AtKw("NAME", 1)) {
    Next();
    Next();
    s->by_name = true;
  } else if (AtOp("(") && !AtQueryStart()) {
    SILT_ASSIGN_OR_RETURN(s->columns, IdentifierList());
  }
  if (AtKw("REPLACE") && AtKw("WHERE", 1)) {
    Next();
    Next();
    SILT_ASSIGN_OR_RETURN(s->replace_where, Expression());
  }
  if (!AtQueryStart()) return ErrorHere();
  SILT_ASSIGN_OR_RETURN(s->query, Query());
  return StatementNode(std::move(s));
}

Result<StatementNode> Parser::Delete() {
  Next();
  SILT_RETURN_NOT_OK(ExpectKw("FROM"));
  auto s = std::make_unique<DeleteStatement>();
  SILT_ASSIGN_OR_RETURN(s->table, ParseTableName(false));
  if (AcceptKw("AS")) {
    SILT_ASSIGN_OR_RETURN(s->alias, Identifier());
  } else if (AtBareAlias()) {
    s->alias = Next().text;
  }
  if (AcceptKw("WHERE")) {
    SILT_ASSIGN_OR_RETURN(s->where, Expression());
  }
  return StatementNode(std::move(s));
}

Result<std::vector<Assignment>> Parser::Assignments() {
  std::vector<Assignment> out;
  do {
    Assignment a;
    SILT_ASSIGN_OR_RETURN(a.column, QualifiedName());
    SILT_RETURN_NOT_OK(ExpectOp("="));
    if (AtKw("DEFAULT") && (AtOp(",", 1) || AtEndAfter(1) || AtKw("WHERE", 1) || AtKw("WHEN", 1))) {
      Next();
    } else {
      SILT_ASSIGN_OR_RETURN(a.value, Expression());
    }
    out.push_back(std::move(a));
  } while (AcceptOp(","));
  return out;
}

Result<StatementNode> Parser::Update() {
  Next();
  auto s = std::make_unique<UpdateStatement>();
  SILT_ASSIGN_OR_RETURN(s->table, ParseTableName(false));
  if (AcceptKw("AS")) {
    SILT_ASSIGN_OR_RETURN(s->alias, Identifier());
  } else if (AtBareAlias()) {
    s->alias = Next().text;
  }
  SILT_RETURN_NOT_OK(ExpectKw("SET"));
  SILT_ASSIGN_OR_RETURN(s->set, Assignments());
  if (AcceptKw("WHERE")) {
    SILT_ASSIGN_OR_RETURN(s->where, Expression());
  }
  return StatementNode(std::move(s));
}

Result<StatementNode> Parser::Merge() {
  Next();  // MERGE
  auto s = std::make_unique<MergeStatement>();
  if (AtKw("WITH") && AtKw("SCHEMA", 1) && AtKw("EVOLUTION", 2)) {
    Next();
    Next();
    Next();
    s->with_schema_evolution = true;
  }
  SILT_RETURN_NOT_OK(ExpectKw("INTO"));
  SILT_ASSIGN_OR_RETURN(s->target, ParseTableName(false));
  if (AcceptKw("AS")) {
    SILT_ASSIGN_OR_RETURN(s->target_alias, Identifier());
  } else if (AtBareAlias()) {
    s->target_alias = Next().text;
  }
  SILT_RETURN_NOT_OK(ExpectKw("USING"));
  SILT_ASSIGN_OR_RETURN(s->source, RelationPrimary());
  SILT_RETURN_NOT_OK(ExpectKw("ON"));
  SILT_ASSIGN_OR_RETURN(s->on, Expression());
  if (!AtKw("WHEN")) return ErrorHere();
  while (AtKw("WHEN")) {
    MergeClause c;
    c.pos = Next().pos;
    if (AcceptKw("MATCHED")) {
      c.match = MergeClause::Match::kMatched;
    } else {
      SILT_RETURN_NOT_OK(ExpectKw("NOT"));
      SILT_RETURN_NOT_OK(ExpectKw("MATCHED"));
      c.match = MergeClause::Match::kNotMatched;
      if (AcceptKw("BY")) {
        if (AcceptKw("SOURCE")) {
          c.match = MergeClause::Match::kNotMatchedBySource;
        } else {
          SILT_RETURN_NOT_OK(ExpectKw("TARGET"));
        }
      }
    }
    if (AcceptKw("AND")) {
      SILT_ASSIGN_OR_RETURN(c.condition, Expression());
    }
    SILT_RETURN_NOT_OK(ExpectKw("THEN"));
    if (c.match == MergeClause::Match::kNotMatched) {
      SILT_RETURN_NOT_OK(ExpectKw("INSERT"));
      if (AcceptOp("*")) {
        c.action = MergeClause::Action::kInsertStar;
      } else {
        c.action = MergeClause::Action::kInsert;
        if (AtOp("(")) {
          Next();
          do {
            SILT_ASSIGN_OR_RETURN(auto parts, QualifiedName());
            std::string joined;
            for (size_t i = 0; i < parts.size(); ++i) joined += (i ? "." : "") + parts[i];
            c.insert_columns.push_back(std::move(joined));
          } while (AcceptOp(","));
          SILT_RETURN_NOT_OK(ExpectOp(")"));
        }
        SILT_RETURN_NOT_OK(ExpectKw("VALUES"));
        SILT_RETURN_NOT_OK(ExpectOp("("));
        SILT_ASSIGN_OR_RETURN(c.insert_values, ExpressionList());
        SILT_RETURN_NOT_OK(ExpectOp(")"));
      }
    } else {
      if (AcceptKw("DELETE")) {
        c.action = MergeClause::Action::kDelete;
      } else {
        SILT_RETURN_NOT_OK(ExpectKw("UPDATE"));
        SILT_RETURN_NOT_OK(ExpectKw("SET"));
        if (AcceptOp("*")) {
          if (c.match == MergeClause::Match::kNotMatchedBySource) {
            return ErrorAt(t_[p_ - 1]);
          }
          c.action = MergeClause::Action::kUpdateStar;
        } else {
          c.action = MergeClause::Action::kUpdate;
          SILT_ASSIGN_OR_RETURN(c.set, Assignments());
        }
      }
    }
    s->clauses.push_back(std::move(c));
  }
  return StatementNode(std::move(s));
}

}  // namespace silt::sql::internal
