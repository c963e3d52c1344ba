// Helpers for the parser tests: parse or fail the test with the error text.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "sql/parser.h"

namespace silt::sql::testing {

inline ExprNode Expr(std::string_view text) {
  auto r = ParseExpression(text);
  EXPECT_TRUE(r.ok()) << text << " → " << r.status().ToString();
  if (!r.ok()) return nullptr;
  return std::move(r).MoveValue();
}

// Spark's column name of an expression ("" when it does not parse).
inline std::string Name(std::string_view text) {
  auto e = Expr(text);
  return e ? e->ToString() : std::string("<parse error>");
}

template <typename T>
std::unique_ptr<T> Parse(std::string_view text) {
  auto r = ParseStatement(text);
  EXPECT_TRUE(r.ok()) << text << " → " << r.status().ToString();
  if (!r.ok()) return nullptr;
  StatementNode s = std::move(r).MoveValue();
  T* t = dynamic_cast<T*>(s.get());
  EXPECT_NE(t, nullptr) << text << ": unexpected statement kind " << static_cast<int>(s->kind);
  if (!t) return nullptr;
  s.release();
  return std::unique_ptr<T>(t);
}

inline std::unique_ptr<Query> ParseQuery(std::string_view text) {
  auto s = Parse<QueryStatement>(text);
  if (!s) return nullptr;
  return std::move(s->query);
}

// The error of a statement that must fail.
inline Status ParseError(std::string_view text) {
  auto r = ParseStatement(text);
  EXPECT_FALSE(r.ok()) << text << " parsed";
  return r.ok() ? Status::OK() : r.status();
}

}  // namespace silt::sql::testing
