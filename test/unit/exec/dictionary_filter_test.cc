// Filters over dictionary columns give the rows the row-by-row filter gives: =, <>, <, >, IN,
// LIKE, IS [NOT] NULL, <=> NULL, over all rows and over a selection, with NULL rows and an empty
// dictionary; conjuncts over several columns flatten the dictionary first.
#include "exec/dictionary_filter.h"

#include <gtest/gtest.h>

#include <random>

#include "exec/delta_scan.h"
#include "function_test_util.h"

namespace silt::exec {
namespace {

using fntest::Bind;
using fntest::Col;
using fntest::Lit;
using fntest::S;

ExprPtr Call(const std::string& name, const std::vector<fntest::TestArg>& args) {
  auto r = Bind(name, args);
  EXPECT_TRUE(r.ok()) << name << ": " << r.status().ToString();
  return r.ok() ? *r : nullptr;
}

// The column as an expression over input column `index` (Bind numbers columns from 0).
ExprPtr Reindex(const ExprPtr& e, int index) {
  auto copy = std::make_shared<Expr>(*e);
  if (copy->kind == ExprKind::kColumn) copy->column = index;
  for (ExprPtr& c : copy->children) c = Reindex(c, index);
  return copy;
}

DictionaryVector MakeDict(size_t rows, bool nulls, uint32_t seed) {
  auto dict = std::make_shared<Vector>(DataType::String());
  for (const char* s :
       {"apple", "banana", "", "cherry", "a value longer than sixteen bytes", "b", "apricot"})
    dict->AppendString(s);
  DictionaryVector d;
  d.dictionary = dict;
  std::mt19937 rng(seed);
  for (size_t i = 0; i < rows; ++i) {
    const bool valid = !nulls || rng() % 5 != 0;
    // Index 6 ("apricot") is never used: a filter sees only the values rows hold.
    d.indices.push_back(valid ? static_cast<int32_t>(rng() % 6) : 0);
    if (nulls) d.validity.push_back(valid ? 1 : 0);
  }
  return d;
}

std::vector<ExprPtr> Predicates(int column) {
  const TypePtr s = DataType::String();
  std::vector<ExprPtr> preds = {
      Call("=", {Col(s, {}), Lit(S("banana"))}),      Call("<>", {Col(s, {}), Lit(S("banana"))}),
      Call("<", {Col(s, {}), Lit(S("b"))}),           Call(">", {Col(s, {}), Lit(S("b"))}),
      Call("like", {Col(s, {}), Lit(S("a%"))}),       Call("like", {Col(s, {}), Lit(S("%an%"))}),
      Call("<=>", {Col(s, {}), Lit(Value::Null(s))}),
  };
  ExprPtr c = MakeColumn(0, s, "c0");
  preds.push_back(MakeSpecial(ExprKind::kIsNull, DataType::Boolean(), {c}));
  preds.push_back(MakeSpecial(ExprKind::kIsNotNull, DataType::Boolean(), {c}));
  preds.push_back(MakeSpecial(
      ExprKind::kIn, DataType::Boolean(),
      {c, MakeConstant(S("cherry")), MakeConstant(S("")), MakeConstant(Value::Null(s))}));
  preds.push_back(MakeSpecial(ExprKind::kNot, DataType::Boolean(),
                              {MakeSpecial(ExprKind::kIn, DataType::Boolean(),
                                           {c, MakeConstant(S("cherry")), MakeConstant(S("b"))})}));
  for (ExprPtr& p : preds) p = Reindex(p, column);
  return preds;
}

// A chunk of 3 columns whose column 1 is the flattened dictionary (the others NULL-typed).
DataChunk FlatChunk(const DictionaryVector& d) {
  DataChunk c;
  for (int k = 0; k < 3; ++k) {
    Vector v(DataType::Null());
    v.Resize(d.size());
    c.columns.push_back(std::move(v));
  }
  c.columns[1] = Flatten(d);
  return c;
}

TEST(DictionaryFilterTest, EachPredicateSelectsTheRowsOfTheFlatFilter) {
  for (bool nulls : {false, true}) {
    DictionaryVector d = MakeDict(3000, nulls, nulls ? 7 : 8);
    DataChunk flat = FlatChunk(d);
    std::vector<uint32_t> subset;
    for (uint32_t i = 0; i < d.size(); i += 3) subset.push_back(i);
    for (const ExprPtr& p : Predicates(1)) {
      ASSERT_TRUE(p);
      ASSERT_EQ(SingleColumnOf(*p), std::optional<int>(1)) << p->ToString();
      std::vector<uint32_t> want, got;
      ASSERT_TRUE(EvaluateFilter(*p, flat, EvalContext{}, &want).ok());
      ASSERT_TRUE(EvaluateFilterOnDictionary(*p, 1, 3, d, nullptr, EvalContext{}, &got).ok());
      EXPECT_EQ(want, got) << p->ToString() << (nulls ? " with nulls" : "");
      // Over a selection: the rows of it where the predicate holds, as input positions.
      std::vector<uint32_t> sub_want, sub_got;
      ASSERT_TRUE(EvaluateFilter(*p, SubsetFor(*p, flat, subset), EvalContext{}, &sub_want).ok());
      for (uint32_t& r : sub_want) r = subset[r];
      ASSERT_TRUE(EvaluateFilterOnDictionary(*p, 1, 3, d, &subset, EvalContext{}, &sub_got).ok());
      EXPECT_EQ(sub_want, sub_got) << p->ToString() << " over a selection";
    }
  }
}

TEST(DictionaryFilterTest, AnEmptyDictionaryOfNullRows) {
  DictionaryVector d;
  d.dictionary = std::make_shared<Vector>(DataType::String());
  d.indices.assign(10, 0);
  d.validity.assign(10, 0);
  for (const ExprPtr& p : Predicates(1)) {
    std::vector<uint32_t> want, got;
    ASSERT_TRUE(EvaluateFilter(*p, FlatChunk(d), EvalContext{}, &want).ok());
    ASSERT_TRUE(EvaluateFilterOnDictionary(*p, 1, 3, d, nullptr, EvalContext{}, &got).ok());
    EXPECT_EQ(want, got) << p->ToString();
  }
  std::vector<uint32_t> none;
  std::vector<uint32_t> got = {99};
  ASSERT_TRUE(
      EvaluateFilterOnDictionary(*Predicates(1)[0], 1, 3, d, &none, EvalContext{}, &got).ok());
  EXPECT_TRUE(got.empty());
}

TEST(DictionaryFilterTest, OnlyDeterministicPredicatesOfOneColumnQualify) {
  const TypePtr s = DataType::String();
  ExprPtr two =
      MakeSpecial(ExprKind::kAnd, DataType::Boolean(),
                  {MakeSpecial(ExprKind::kIsNull, DataType::Boolean(), {MakeColumn(0, s, "a")}),
                   MakeSpecial(ExprKind::kIsNull, DataType::Boolean(), {MakeColumn(1, s, "b")})});
  EXPECT_FALSE(SingleColumnOf(*two));
  auto random = std::make_shared<Expr>(*Call("=", {Col(s, {}), Lit(S("x"))}));
  random->deterministic = false;
  EXPECT_FALSE(SingleColumnOf(*random));
  ExprPtr wrapped = MakeSpecial(ExprKind::kNot, DataType::Boolean(), {random});
  EXPECT_FALSE(SingleColumnOf(*wrapped));                             // a non-deterministic child
  EXPECT_FALSE(SingleColumnOf(*MakeConstant(Value::Boolean(true))));  // no column
}

TEST(DictionaryFilterTest, SelectRowsWithDictionariesMatchesSelectRows) {
  // Columns: 0 = int64 k, 1 = dictionary string, 2 = dictionary string.
  const TypePtr s = DataType::String();
  DictionaryVector d1 = MakeDict(5000, true, 3), d2 = MakeDict(5000, false, 4);
  DataChunk flat;
  Vector k(DataType::Int64());
  for (size_t i = 0; i < d1.size(); ++i) k.Append<int64_t>(static_cast<int64_t>(i % 10));
  flat.columns.push_back(k);
  flat.columns.push_back(Flatten(d1));
  flat.columns.push_back(Flatten(d2));
  ExprPtr c1 = MakeColumn(1, s, "c1"), c2 = MakeColumn(2, s, "c2");
  std::vector<ExprPtr> p1 = Predicates(1), p2 = Predicates(2);
  // Conjunct lists: dictionary-only ones, one reading both dictionaries (flattens them), one
  // of the int column between them.
  const std::vector<std::vector<ExprPtr>> cases = {
      {p1[4]},
      {p1[1], p2[5]},
      {p1[8], Call("=", {Col(s, {}), Col(s, {})})},
      {Call("<", {Col(DataType::Int64(), {}), Lit(Value::Int64(4))}), p1[9], p2[2]},
      {p1[0], p1[6]},  // nothing survives the pair
  };
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    std::vector<ExprPtr> filters = cases[ci];
    // Bind numbered the columns of the two-column comparison 0 and 1: make them 1 and 2; the
    // int comparison reads column 0.
    if (ci == 2) {
      auto eq = std::make_shared<Expr>(*filters[1]);
      eq->children = {c1, c2};
      filters[1] = eq;
    }
    std::vector<uint32_t> want, got;
    bool want_all = false, got_all = false;
    ASSERT_TRUE(SelectRows(filters, EvalContext{}, flat, &want, &want_all).ok());
    DataChunk chunk;
    chunk.columns.push_back(k);
    for (int c = 0; c < 2; ++c) {
      Vector v(DataType::Null());
      v.Resize(d1.size());
      chunk.columns.push_back(std::move(v));
    }
    std::vector<std::optional<DictionaryVector>> dicts(3);
    dicts[1] = d1;
    dicts[2] = d2;
    ASSERT_TRUE(
        SelectRowsWithDictionaries(filters, EvalContext{}, chunk, &dicts, &got, &got_all).ok());
    EXPECT_EQ(want_all, got_all) << "case " << ci;
    if (!want_all) {
      EXPECT_EQ(want, got) << "case " << ci;
    }
    if (ci == 2) {
      // The two-column conjunct flattened both dictionaries into the chunk.
      EXPECT_FALSE(dicts[1]);
      EXPECT_FALSE(dicts[2]);
      EXPECT_EQ(chunk.columns[2].GetValue(17), flat.columns[2].GetValue(17));
    } else {
      EXPECT_TRUE(dicts[1]);
    }
  }
}

}  // namespace
}  // namespace silt::exec
