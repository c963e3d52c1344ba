#include "exec/nested_loop_join.h"

#include <gtest/gtest.h>

#include <optional>
#include <random>

#include "unit/exec/exec_test_util.h"

namespace silt::exec {
namespace {

using testing::Col;
using testing::CompareInt;
using testing::Fields;
using testing::I64;
using testing::MakeSource;
using testing::NullI64;
using testing::SortedRows;
using RowList = std::vector<std::vector<Value>>;

const JoinType kAllTypes[] = {JoinType::kInner,     JoinType::kLeftOuter, JoinType::kRightOuter,
                              JoinType::kFullOuter, JoinType::kLeftSemi,  JoinType::kLeftAnti};

Schema TwoInts(const std::string& a, const std::string& b) {
  return Fields({{a, DataType::Int64()}, {b, DataType::Int64()}});
}

RowList RandomRows(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  RowList rows;
  for (size_t i = 0; i < n; ++i) {
    rows.push_back({rng() % 8 == 0 ? NullI64() : I64(rng() % 20),
                    rng() % 8 == 0 ? NullI64() : I64(rng() % 20)});
  }
  return rows;
}

// Three-valued predicate over a (left row, right row) pair.
using Pred =
    std::function<std::optional<bool>(const std::vector<Value>&, const std::vector<Value>&)>;

std::string Json(const std::vector<const Value*>& vals) {
  std::string s = "[";
  for (size_t i = 0; i < vals.size(); ++i)
    s += (i ? "," : "") + (vals[i] ? vals[i]->ToJson() : "null");
  return s + "]";
}

std::vector<std::string> RefJoin(const RowList& left, const RowList& right, JoinType type,
                                 const Pred& pred) {
  std::vector<std::string> out;
  std::vector<bool> rm(right.size(), false);
  for (const auto& l : left) {
    bool any = false;
    for (size_t j = 0; j < right.size(); ++j) {
      std::optional<bool> p = pred ? pred(l, right[j]) : std::optional<bool>(true);
      if (!p || !*p) continue;
      any = true;
      rm[j] = true;
      if (type != JoinType::kLeftSemi && type != JoinType::kLeftAnti) {
        out.push_back(Json({&l[0], &l[1], &right[j][0], &right[j][1]}));
      }
    }
    if ((type == JoinType::kLeftSemi && any) || (type == JoinType::kLeftAnti && !any)) {
      out.push_back(Json({&l[0], &l[1]}));
    }
    if ((type == JoinType::kLeftOuter || type == JoinType::kFullOuter) && !any) {
      out.push_back(Json({&l[0], &l[1], nullptr, nullptr}));
    }
  }
  if (type == JoinType::kRightOuter || type == JoinType::kFullOuter) {
    for (size_t j = 0; j < right.size(); ++j) {
      if (!rm[j]) out.push_back(Json({nullptr, nullptr, &right[j][0], &right[j][1]}));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> RunNlj(const RowList& left, const RowList& right, JoinType type,
                                ExprPtr cond, size_t chunk_rows = 2048) {
  NestedLoopJoinOperator op(MakeSource(TwoInts("a", "b"), left, chunk_rows),
                            MakeSource(TwoInts("c", "d"), right, chunk_rows), type, cond);
  ExecContext ctx;
  return SortedRows(testing::Collect(op, ctx));
}

std::optional<bool> Less(const Value& a, const Value& b) {
  if (a.is_null() || b.is_null()) return std::nullopt;
  return a.integer() < b.integer();
}

TEST(NestedLoopJoinTest, NonEquiConditionAllTypes) {
  // a < c AND b >= d
  ExprPtr cond =
      MakeSpecial(ExprKind::kAnd, DataType::Boolean(),
                  {CompareInt("<", Col(0, DataType::Int64()), Col(2, DataType::Int64())),
                   CompareInt(">=", Col(1, DataType::Int64()), Col(3, DataType::Int64()))});
  Pred pred = [](const std::vector<Value>& l, const std::vector<Value>& r) -> std::optional<bool> {
    auto x = Less(l[0], r[0]);
    auto y = Less(l[1], r[1]);
    std::optional<bool> ge = y ? std::optional<bool>(!*y) : std::nullopt;
    if ((x && !*x) || (ge && !*ge)) return false;
    if (!x || !ge) return std::nullopt;
    return true;
  };
  for (uint32_t seed = 0; seed < 3; ++seed) {
    RowList left = RandomRows(150, seed + 10), right = RandomRows(120, seed + 20);
    for (JoinType type : kAllTypes) {
      EXPECT_EQ(RunNlj(left, right, type, cond, 50), RefJoin(left, right, type, pred))
          << JoinTypeName(type);
    }
  }
}

TEST(NestedLoopJoinTest, CrossJoinAndEmptySides) {
  RowList left = RandomRows(30, 1), right = RandomRows(70, 2);
  for (JoinType type : kAllTypes) {
    EXPECT_EQ(RunNlj(left, right, type, nullptr), RefJoin(left, right, type, nullptr));
    EXPECT_EQ(RunNlj(left, {}, type, nullptr), RefJoin(left, {}, type, nullptr));
    EXPECT_EQ(RunNlj({}, right, type, nullptr), RefJoin({}, right, type, nullptr));
  }
  EXPECT_EQ(RunNlj(left, right, JoinType::kInner, nullptr).size(), 2100u);
}

TEST(NestedLoopJoinTest, MultiColumnNotInSemantics) {
  // (a, b) NOT IN (SELECT c, d): anti join on (a = c AND b = d) OR isnull(a = c AND b = d).
  ExprPtr eq = MakeSpecial(ExprKind::kAnd, DataType::Boolean(),
                           {CompareInt("=", Col(0, DataType::Int64()), Col(2, DataType::Int64())),
                            CompareInt("=", Col(1, DataType::Int64()), Col(3, DataType::Int64()))});
  ExprPtr cond = MakeSpecial(ExprKind::kOr, DataType::Boolean(),
                             {eq, MakeSpecial(ExprKind::kIsNull, DataType::Boolean(), {eq})});
  RowList left = {{I64(1), I64(1)}, {I64(1), I64(2)}, {I64(2), NullI64()}, {I64(3), NullI64()}};
  RowList right = {{I64(1), I64(1)}, {I64(2), I64(5)}};
  // (1,2): 1=1 AND 2=1 false, 1=2 false → kept. (2,NULL): vs (2,5): true AND NULL = NULL → dropped.
  // (3,NULL): vs (1,1): false; vs (2,5): false → kept.
  EXPECT_EQ(RunNlj(left, right, JoinType::kLeftAnti, cond),
            (std::vector<std::string>{"[1,2]", "[3,null]"}));
}

TEST(NestedLoopJoinTest, ManyPairs) {
  // 2000 x 100 = 200k pairs; a < c keeps a known count.
  std::vector<int64_t> a(2000), b(2000, 0), c(100), d(100, 0);
  for (int i = 0; i < 2000; ++i) a[i] = i;
  for (int i = 0; i < 100; ++i) c[i] = i * 20;
  ExprPtr cond = CompareInt("<", Col(0, DataType::Int64()), Col(2, DataType::Int64()));
  int64_t expected = 0;
  for (int i = 0; i < 2000; ++i) {
    for (int j = 0; j < 100; ++j) expected += a[i] < c[j];
  }
  for (JoinType type : {JoinType::kInner, JoinType::kLeftSemi, JoinType::kFullOuter}) {
    NestedLoopJoinOperator op(testing::MakeInt64Source({a, b}), testing::MakeInt64Source({c, d}),
                              type, cond);
    ExecContext ctx;
    size_t rows = 0;
    for (const DataChunk& ch : testing::Collect(op, ctx)) rows += ch.size();
    if (type == JoinType::kInner) {
      EXPECT_EQ(rows, static_cast<size_t>(expected));
    }
    if (type == JoinType::kLeftSemi) {
      EXPECT_EQ(rows, 1980u);  // a < 1980
    }
    if (type == JoinType::kFullOuter) {
      EXPECT_EQ(rows, static_cast<size_t>(expected) + 20u + 1u);  // a >= 1980 unmatched; c = 0
    }
  }
}

}  // namespace
}  // namespace silt::exec
