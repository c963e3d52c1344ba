// The Spark SQL parser: a hand-written lexer and recursive-descent parser for silt's dialect
// (Spark SQL + Delta's extensions: VACUUM, OPTIMIZE, REORG, RESTORE, DESCRIBE HISTORY/DETAIL,
// CONVERT TO DELTA, time travel, Auto-TTL clauses). Produces the AST in sql/ast.h.
//
// Identifiers are case-insensitive and kept as written (the binder compares case-insensitively);
// `back-quoted` identifiers may contain anything (`` doubles a back-quote). Strings use '…' or
// "…" with Spark's backslash escapes. Comments: -- line, /* block */ (nested), and /*+ hints */
// (ignored).
//
// Errors: Status InvalidArgument with error class PARSE_SYNTAX_ERROR and a message in Spark's
// form plus position (Status::ToString() prefixes "[PARSE_SYNTAX_ERROR] "), e.g.
//   Syntax error at or near 'FORM'. (line 1, column 10)
//   == SQL ==
//   SELECT a FORM t
//   ---------^^^
// Other parse-time classes Spark raises are used where Spark does (e.g. INVALID_SQL_SYNTAX,
// DELTA_... for bad maintenance-command modifiers).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "sql/ast.h"

namespace silt::sql {

// Parses one or more ';'-separated statements (empty statements are skipped).
Result<std::vector<StatementNode>> ParseScript(std::string_view text);
// Parses exactly one statement (a trailing ';' is allowed).
Result<StatementNode> ParseStatement(std::string_view text);
// Parses a standalone expression (CHECK constraints, generated columns, partition predicates).
Result<ExprNode> ParseExpression(std::string_view text);
// Parses a Spark type string: "int", "decimal(10,2)", "array<struct<a:int,b:string>>",
// "map<string,int>", "timestamp_ntz", "varchar(10)" (→ string).
Result<TypePtr> ParseDataType(std::string_view text);

// Splits a script at top-level ';' (outside quotes and comments). *complete is false when the
// text ends inside a statement that is not terminated yet (the shell keeps reading lines).
std::vector<std::string> SplitStatements(std::string_view text, bool* complete);

}  // namespace silt::sql
