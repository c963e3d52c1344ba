#include "exec/hash_join.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>

#include "common/memory.h"
#include "common/thread_pool.h"
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
using Rows = std::vector<std::vector<Value>>;

const JoinType kAllTypes[] = {JoinType::kInner,     JoinType::kLeftOuter, JoinType::kRightOuter,
                              JoinType::kFullOuter, JoinType::kLeftSemi,  JoinType::kLeftAnti,
                              JoinType::kRightSemi, JoinType::kRightAnti};

// Reference: Spark semantics by brute force over Values. Keys are columns lk[k] / rk[k]; the
// residual (optional) is `left[lres] < right[rres]`.
struct RefSpec {
  std::vector<int> lk, rk;
  std::vector<bool> null_safe;
  std::optional<std::pair<int, int>> residual;
};

bool RefKeysMatch(const std::vector<Value>& l, const std::vector<Value>& r, const RefSpec& s) {
  for (size_t k = 0; k < s.lk.size(); ++k) {
    const Value& a = l[s.lk[k]];
    const Value& b = r[s.rk[k]];
    bool ns = k < s.null_safe.size() && s.null_safe[k];
    if (a.is_null() || b.is_null()) {
      if (!(ns && a.is_null() && b.is_null())) return false;
      continue;
    }
    if (a.type()->id() == TypeId::kDouble) {
      double x = a.floating(), y = b.floating();
      if (!(x == y || (std::isnan(x) && std::isnan(y)))) return false;
      continue;
    }
    if (!(a == b)) return false;
  }
  if (s.residual) {
    const Value& a = l[s.residual->first];
    const Value& b = r[s.residual->second];
    if (a.is_null() || b.is_null()) return false;
    return a.integer() < b.integer();
  }
  return true;
}

std::string RowJson(const std::vector<Value>& l, const std::vector<Value>* r, size_t rw,
                    const std::vector<Value>* lp = nullptr) {
  std::string s = "[";
  bool first = true;
  auto add = [&](const Value& v) {
    if (!first) s += ",";
    first = false;
    s += v.ToJson();
  };
  if (lp) {
    for (const Value& v : *lp) add(v);
  } else {
    for (const Value& v : l) add(v);
  }
  if (rw) {
    if (r) {
      for (const Value& v : *r) add(v);
    } else {
      for (size_t k = 0; k < rw; ++k) add(Value());
    }
  }
  return s + "]";
}

std::vector<std::string> RefJoin(const Rows& left, size_t lw, const Rows& right, size_t rw,
                                 JoinType type, const RefSpec& s) {
  std::vector<std::string> out;
  std::vector<bool> rmatched(right.size(), false);
  for (const auto& l : left) {
    bool any = false;
    for (size_t j = 0; j < right.size(); ++j) {
      if (!RefKeysMatch(l, right[j], s)) continue;
      any = true;
      rmatched[j] = true;
      if (type != JoinType::kLeftSemi && type != JoinType::kLeftAnti &&
          type != JoinType::kRightSemi && type != JoinType::kRightAnti) {
        out.push_back(RowJson(l, &right[j], rw));
      }
    }
    if (type == JoinType::kLeftSemi && any) out.push_back(RowJson(l, nullptr, 0));
    if (type == JoinType::kLeftAnti && !any) out.push_back(RowJson(l, nullptr, 0));
    if ((type == JoinType::kLeftOuter || type == JoinType::kFullOuter) && !any) {
      out.push_back(RowJson(l, nullptr, rw));
    }
  }
  // Right semi/anti: each right row once, with a match (semi) or without one (anti).
  if (type == JoinType::kRightSemi || type == JoinType::kRightAnti) {
    for (size_t j = 0; j < right.size(); ++j) {
      if (rmatched[j] == (type == JoinType::kRightSemi))
        out.push_back(RowJson(right[j], nullptr, 0));
    }
  }
  if (type == JoinType::kRightOuter || type == JoinType::kFullOuter) {
    std::vector<Value> nulls(lw);
    for (size_t j = 0; j < right.size(); ++j) {
      if (!rmatched[j]) out.push_back(RowJson(nulls, &right[j], rw));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Schema TwoInts(const std::string& a, const std::string& b) {
  return Fields({{a, DataType::Int64()}, {b, DataType::Int64()}});
}

Rows RandomRows(size_t n, int key_range, double null_frac, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> key(0, key_range - 1);
  std::uniform_int_distribution<int> val(0, 100);
  std::uniform_real_distribution<double> u(0, 1);
  Rows rows;
  for (size_t i = 0; i < n; ++i) {
    Value k = u(rng) < null_frac ? NullI64() : I64(key(rng));
    Value v = u(rng) < null_frac ? NullI64() : I64(val(rng));
    rows.push_back({k, v});
  }
  return rows;
}

std::vector<std::string> RunJoin(const Rows& left, const Rows& right, JoinType type, bool residual,
                                 bool null_safe, ExecContext& ctx, size_t chunk_rows = 2048) {
  auto l = MakeSource(TwoInts("lk", "lv"), left, chunk_rows);
  auto r = MakeSource(TwoInts("rk", "rv"), right, chunk_rows);
  ExprPtr res =
      residual ? CompareInt("<", Col(1, DataType::Int64()), Col(3, DataType::Int64())) : nullptr;
  HashJoinOperator join(std::move(l), std::move(r), type, {Col(0, DataType::Int64())},
                        {Col(0, DataType::Int64())}, {null_safe}, res);
  return SortedRows(testing::Collect(join, ctx));
}

void CheckAllTypes(const Rows& left, const Rows& right, ExecContext& ctx,
                   size_t chunk_rows = 2048) {
  for (JoinType type : kAllTypes) {
    for (bool residual : {false, true}) {
      for (bool null_safe : {false, true}) {
        RefSpec spec{{0}, {0}, {null_safe}, std::nullopt};
        if (residual) spec.residual = std::make_pair(1, 1);
        auto expected = RefJoin(left, 2, right, 2, type, spec);
        auto got = RunJoin(left, right, type, residual, null_safe, ctx, chunk_rows);
        ASSERT_EQ(got, expected) << JoinTypeName(type) << " residual=" << residual
                                 << " null_safe=" << null_safe;
      }
    }
  }
}

TEST(HashJoinTest, OutputSchema) {
  Schema l = TwoInts("a", "b"), r = TwoInts("c", "d");
  l[0].nullable = false;
  r[0].nullable = false;
  EXPECT_EQ(JoinOutputSchema(l, r, JoinType::kInner).size(), 4u);
  EXPECT_FALSE(JoinOutputSchema(l, r, JoinType::kInner)[0].nullable);
  EXPECT_TRUE(JoinOutputSchema(l, r, JoinType::kLeftOuter)[2].nullable);
  EXPECT_FALSE(JoinOutputSchema(l, r, JoinType::kLeftOuter)[0].nullable);
  EXPECT_TRUE(JoinOutputSchema(l, r, JoinType::kRightOuter)[0].nullable);
  EXPECT_FALSE(JoinOutputSchema(l, r, JoinType::kRightOuter)[2].nullable);
  EXPECT_EQ(JoinOutputSchema(l, r, JoinType::kLeftSemi).size(), 2u);
  EXPECT_EQ(JoinOutputSchema(l, r, JoinType::kLeftAnti).size(), 2u);
}

TEST(HashJoinTest, SmallHandWrittenInner) {
  Rows left = {{I64(1), I64(10)}, {I64(2), I64(20)}, {NullI64(), I64(30)}, {I64(2), I64(21)}};
  Rows right = {{I64(2), I64(200)}, {I64(3), I64(300)}, {NullI64(), I64(0)}, {I64(2), I64(201)}};
  ExecContext ctx;
  auto got = RunJoin(left, right, JoinType::kInner, false, false, ctx);
  std::vector<std::string> expected = {"[2,20,2,200]", "[2,20,2,201]", "[2,21,2,200]",
                                       "[2,21,2,201]"};
  EXPECT_EQ(got, expected);
  // Null-safe: NULL <=> NULL matches.
  got = RunJoin(left, right, JoinType::kInner, false, true, ctx);
  EXPECT_EQ(got.size(), 5u);
  EXPECT_NE(std::find(got.begin(), got.end(), "[null,30,null,0]"), got.end());
}

TEST(HashJoinTest, OuterPaddingAndAntiKeepsNullKeys) {
  Rows left = {{I64(1), I64(10)}, {NullI64(), I64(30)}};
  Rows right = {{I64(1), I64(100)}, {I64(5), I64(500)}};
  ExecContext ctx;
  EXPECT_EQ(RunJoin(left, right, JoinType::kLeftOuter, false, false, ctx),
            (std::vector<std::string>{"[1,10,1,100]", "[null,30,null,null]"}));
  EXPECT_EQ(RunJoin(left, right, JoinType::kRightOuter, false, false, ctx),
            (std::vector<std::string>{"[1,10,1,100]", "[null,null,5,500]"}));
  EXPECT_EQ(RunJoin(left, right, JoinType::kFullOuter, false, false, ctx),
            (std::vector<std::string>{"[1,10,1,100]", "[null,30,null,null]", "[null,null,5,500]"}));
  EXPECT_EQ(RunJoin(left, right, JoinType::kLeftSemi, false, false, ctx),
            (std::vector<std::string>{"[1,10]"}));
  EXPECT_EQ(RunJoin(left, right, JoinType::kLeftAnti, false, false, ctx),
            (std::vector<std::string>{"[null,30]"}));
}

TEST(HashJoinTest, ResidualDecidesOuterMatches) {
  // 1 matches by key but the residual lv < rv fails: left outer pads, semi drops, anti keeps.
  Rows left = {{I64(1), I64(50)}, {I64(2), I64(5)}};
  Rows right = {{I64(1), I64(10)}, {I64(2), I64(6)}, {I64(2), NullI64()}};
  ExecContext ctx;
  EXPECT_EQ(RunJoin(left, right, JoinType::kLeftOuter, true, false, ctx),
            (std::vector<std::string>{"[1,50,null,null]", "[2,5,2,6]"}));
  EXPECT_EQ(RunJoin(left, right, JoinType::kFullOuter, true, false, ctx),
            (std::vector<std::string>{"[1,50,null,null]", "[2,5,2,6]", "[null,null,1,10]",
                                      "[null,null,2,null]"}));
  EXPECT_EQ(RunJoin(left, right, JoinType::kLeftSemi, true, false, ctx),
            (std::vector<std::string>{"[2,5]"}));
  EXPECT_EQ(RunJoin(left, right, JoinType::kLeftAnti, true, false, ctx),
            (std::vector<std::string>{"[1,50]"}));
}

TEST(HashJoinTest, EmptySides) {
  Rows some = RandomRows(50, 10, 0.1, 1);
  ExecContext ctx;
  CheckAllTypes(some, {}, ctx);
  CheckAllTypes({}, some, ctx);
  CheckAllTypes({}, {}, ctx);
}

TEST(HashJoinTest, EmptyBuildSkipsProbeForInner) {
  auto l = MakeSource(TwoInts("a", "b"), RandomRows(10, 3, 0, 1));
  testing::ChunkSource* lp = l.get();
  auto r = MakeSource(TwoInts("c", "d"), {});
  HashJoinOperator join(std::move(l), std::move(r), JoinType::kInner, {Col(0, DataType::Int64())},
                        {Col(0, DataType::Int64())}, {}, nullptr);
  ExecContext ctx;
  EXPECT_TRUE(testing::Collect(join, ctx).empty());
  EXPECT_EQ(lp->pulls(), 0);
}

TEST(HashJoinTest, RandomAgainstReferenceWithNullsAndDuplicates) {
  ExecContext ctx;
  for (uint32_t seed = 0; seed < 4; ++seed) {
    Rows left = RandomRows(300, 20, 0.15, seed * 2 + 1);
    Rows right = RandomRows(200, 25, 0.15, seed * 2 + 2);
    CheckAllTypes(left, right, ctx, /*chunk_rows=*/64);
  }
}

TEST(HashJoinTest, HeavyDuplicatesSpanSeveralOutputChunks) {
  // 100 x 100 rows on one key: 10000 pairs, more than one output chunk per probe chunk.
  Rows left, right;
  for (int i = 0; i < 100; ++i) left.push_back({I64(7), I64(i)});
  for (int i = 0; i < 100; ++i) right.push_back({I64(7), I64(i)});
  ExecContext ctx;
  auto got = RunJoin(left, right, JoinType::kInner, false, false, ctx);
  EXPECT_EQ(got.size(), 10000u);
  got = RunJoin(left, right, JoinType::kInner, true, false, ctx);
  EXPECT_EQ(got.size(), 4950u);  // lv < rv
  CheckAllTypes(left, right, ctx);
}

TEST(HashJoinTest, MultiKeyStringAndDoubleKeys) {
  Schema ls =
      Fields({{"s", DataType::String()}, {"d", DataType::Double()}, {"v", DataType::Int64()}});
  Schema rs =
      Fields({{"s", DataType::String()}, {"d", DataType::Double()}, {"w", DataType::Int64()}});
  double nan = std::nan("");
  Rows left = {{Value::String("a"), Value::Double(1.0), I64(1)},
               {Value::String("a"), Value::Double(-0.0), I64(2)},
               {Value::String("b"), Value::Double(nan), I64(3)},
               {Value::String(""), Value::Double(2.0), I64(4)},
               {Value::Null(DataType::String()), Value::Double(2.0), I64(5)}};
  Rows right = {{Value::String("a"), Value::Double(1.0), I64(10)},
                {Value::String("a"), Value::Double(0.0), I64(20)},
                {Value::String("b"), Value::Double(-nan), I64(30)},
                {Value::String(""), Value::Double(2.0), I64(40)},
                {Value::String("a "), Value::Double(1.0), I64(50)},
                {Value::Null(DataType::String()), Value::Double(2.0), I64(60)}};
  for (bool ns : {false, true}) {
    for (JoinType type : kAllTypes) {
      HashJoinOperator join(MakeSource(ls, left), MakeSource(rs, right), type,
                            {Col(0, DataType::String()), Col(1, DataType::Double())},
                            {Col(0, DataType::String()), Col(1, DataType::Double())}, {ns, false},
                            nullptr);
      ExecContext ctx;
      auto got = SortedRows(testing::Collect(join, ctx));
      RefSpec spec{{0, 1}, {0, 1}, {ns, false}, std::nullopt};
      EXPECT_EQ(got, RefJoin(left, 3, right, 3, type, spec)) << JoinTypeName(type) << ns;
    }
  }
  // -0.0 = 0.0 and NaN = NaN as join keys (Spark normalizes floating keys).
  HashJoinOperator join(MakeSource(ls, left), MakeSource(rs, right), JoinType::kInner,
                        {Col(0, DataType::String()), Col(1, DataType::Double())},
                        {Col(0, DataType::String()), Col(1, DataType::Double())}, {}, nullptr);
  ExecContext ctx;
  EXPECT_EQ(SortedRows(testing::Collect(join, ctx)).size(), 4u);
}

TEST(HashJoinTest, NullAwareAnti) {
  Rows left = {{I64(1), I64(0)}, {I64(2), I64(0)}, {NullI64(), I64(0)}};
  auto run = [&](const Rows& right) {
    HashJoinOperator join(MakeSource(TwoInts("a", "b"), left), MakeSource(TwoInts("c", "d"), right),
                          JoinType::kLeftAnti, {Col(0, DataType::Int64())},
                          {Col(0, DataType::Int64())}, {}, nullptr, /*null_aware_anti=*/true);
    ExecContext ctx;
    return SortedRows(testing::Collect(join, ctx));
  };
  // Empty subquery: every row, even the NULL key, is NOT IN it.
  EXPECT_EQ(run({}), (std::vector<std::string>{"[1,0]", "[2,0]", "[null,0]"}));
  // No NULLs: NULL NOT IN (2) is NULL → dropped.
  EXPECT_EQ(run({{I64(2), I64(0)}}), (std::vector<std::string>{"[1,0]"}));
  // A NULL in the subquery: x NOT IN (2, NULL) is never TRUE.
  EXPECT_TRUE(run({{I64(2), I64(0)}, {NullI64(), I64(0)}}).empty());
  EXPECT_TRUE(run({{NullI64(), I64(0)}}).empty());

  // Two keys: not supported (the binder uses a nested-loop join there).
  HashJoinOperator bad(MakeSource(TwoInts("a", "b"), left), MakeSource(TwoInts("c", "d"), left),
                       JoinType::kLeftAnti, {Col(0, DataType::Int64()), Col(1, DataType::Int64())},
                       {Col(0, DataType::Int64()), Col(1, DataType::Int64())}, {}, nullptr, true);
  ExecContext ctx;
  EXPECT_EQ(testing::CollectStatus(bad, ctx).code(), StatusCode::kNotImplemented);
}

TEST(HashJoinTest, KeyTypeMismatchIsAnError) {
  Schema ls = Fields({{"a", DataType::Int32()}});
  Schema rs = Fields({{"b", DataType::Int64()}});
  HashJoinOperator join(MakeSource(ls, {{Value::Int32(1)}}), MakeSource(rs, {{I64(1)}}),
                        JoinType::kInner, {Col(0, DataType::Int32())}, {Col(0, DataType::Int64())},
                        {}, nullptr);
  ExecContext ctx;
  Status st = testing::CollectStatus(join, ctx);
  EXPECT_EQ(st.error_class(), "DATATYPE_MISMATCH");
}

TEST(HashJoinTest, Int32KeysAndDateKeys) {
  for (TypePtr t : {DataType::Int32(), DataType::Date(), DataType::Int16()}) {
    Schema s = Fields({{"k", t}});
    Rows left, right;
    for (int i = 0; i < 100; ++i) left.push_back({Value::Integer(t, i % 17 - 8)});
    for (int i = 0; i < 30; ++i) right.push_back({Value::Integer(t, i - 15)});
    right.push_back({Value::Null(t)});
    for (JoinType type : kAllTypes) {
      HashJoinOperator join(MakeSource(s, left), MakeSource(s, right), type, {Col(0, t)},
                            {Col(0, t)}, {}, nullptr);
      ExecContext ctx;
      RefSpec spec{{0}, {0}, {false}, std::nullopt};
      EXPECT_EQ(SortedRows(testing::Collect(join, ctx)), RefJoin(left, 1, right, 1, type, spec))
          << t->ToString() << " " << JoinTypeName(type);
    }
  }
}

// Large inputs: counts checked against closed forms rather than a brute-force reference.
TEST(HashJoinTest, ManyRowsSerialAndParallel) {
  const int64_t n = 200000;
  std::vector<int64_t> lk(n), lv(n), rk(n / 2), rv(n / 2);
  for (int64_t i = 0; i < n; ++i) {
    lk[i] = i;
    lv[i] = i * 3;
  }
  for (int64_t i = 0; i < n / 2; ++i) {
    rk[i] = i * 2 + 1;  // odd keys 1..n-1, one per key → n/2 matches
    rv[i] = -i;
  }
  ThreadPool pool(2);
  for (bool parallel : {false, true}) {
    for (JoinType type : kAllTypes) {
      HashJoinOperator join(testing::MakeInt64Source({lk, lv}), testing::MakeInt64Source({rk, rv}),
                            type, {Col(0, DataType::Int64())}, {Col(0, DataType::Int64())}, {},
                            nullptr);
      ExecContext ctx;
      if (parallel) ctx.pool = &pool;
      size_t rows = 0;
      int64_t key_sum = 0;
      for (const DataChunk& c : testing::Collect(join, ctx)) {
        rows += c.size();
        for (size_t r = 0; r < c.size(); ++r) {
          if (c.columns[0].IsValid(r)) key_sum += c.columns[0].data<int64_t>()[r];
        }
        if (type == JoinType::kInner) {
          for (size_t r = 0; r < c.size(); ++r) {
            ASSERT_EQ(c.columns[0].data<int64_t>()[r], c.columns[2].data<int64_t>()[r]);
            ASSERT_EQ(c.columns[1].data<int64_t>()[r], c.columns[0].data<int64_t>()[r] * 3);
          }
        }
      }
      // Every right row (the odd keys) has a match: right semi keeps them all, right anti none.
      size_t expected = type == JoinType::kRightAnti ? 0
                        : type == JoinType::kInner || type == JoinType::kLeftSemi ||
                                type == JoinType::kRightOuter || type == JoinType::kLeftAnti ||
                                type == JoinType::kRightSemi
                            ? n / 2
                            : n;
      EXPECT_EQ(rows, expected) << JoinTypeName(type) << " parallel=" << parallel;
      int64_t odd_sum = (n / 2) * (n / 2);  // 1 + 3 + ... + (n-1)
      int64_t all_sum = n * (n - 1) / 2;
      if (type == JoinType::kInner || type == JoinType::kLeftSemi || type == JoinType::kRightSemi) {
        EXPECT_EQ(key_sum, odd_sum);
      }
      if (type == JoinType::kLeftAnti) {
        EXPECT_EQ(key_sum, all_sum - odd_sum);
      }
      if (type == JoinType::kLeftOuter) {
        EXPECT_EQ(key_sum, all_sum);
      }
    }
  }
}

TEST(HashJoinTest, ManyRowsGenericPathParallelWithDuplicates) {
  // Two keys (generic path), 120k build rows with 4 duplicates per key, parallel build + probe.
  const int64_t n = 120000;
  std::vector<int64_t> lk(n), lk2(n), rk(n), rk2(n);
  for (int64_t i = 0; i < n; ++i) {
    lk[i] = i % 40000;
    lk2[i] = 1;
    rk[i] = i % 30000;
    rk2[i] = 1;
  }
  ThreadPool pool(3);
  for (bool parallel : {false, true}) {
    HashJoinOperator join(testing::MakeInt64Source({lk, lk2}), testing::MakeInt64Source({rk, rk2}),
                          JoinType::kFullOuter,
                          {Col(0, DataType::Int64()), Col(1, DataType::Int64())},
                          {Col(0, DataType::Int64()), Col(1, DataType::Int64())}, {}, nullptr);
    ExecContext ctx;
    if (parallel) ctx.pool = &pool;
    size_t rows = 0, matched = 0;
    for (const DataChunk& c : testing::Collect(join, ctx)) {
      rows += c.size();
      for (size_t r = 0; r < c.size(); ++r)
        matched += c.columns[0].IsValid(r) && c.columns[2].IsValid(r);
    }
    // Left keys 0..29999 appear 3 times, right keys 4 times: 30000 * 12 pairs; left keys
    // 30000..39999 (3 rows each) unmatched; every right key matched.
    EXPECT_EQ(matched, 360000u);
    EXPECT_EQ(rows, 360000u + 30000u);
  }
}

TEST(HashJoinTest, MemoryLimit) {
  std::vector<int64_t> k(100000, 1);
  auto tracker = std::make_shared<MemoryTracker>("q", 100000);
  HashJoinOperator join(testing::MakeInt64Source({k}), testing::MakeInt64Source({k}),
                        JoinType::kInner, {Col(0, DataType::Int64())}, {Col(0, DataType::Int64())},
                        {}, nullptr);
  ExecContext ctx;
  ctx.memory = tracker.get();
  Status st = testing::CollectStatus(join, ctx);
  EXPECT_EQ(st.error_class(), "SILT_MEMORY_LIMIT_EXCEEDED");
}

TEST(HashJoinTest, Cancellation) {
  std::vector<int64_t> k(5000, 1);
  std::atomic<bool> cancelled{true};
  HashJoinOperator join(testing::MakeInt64Source({k}), testing::MakeInt64Source({k}),
                        JoinType::kInner, {Col(0, DataType::Int64())}, {Col(0, DataType::Int64())},
                        {}, nullptr);
  ExecContext ctx;
  ctx.cancelled = &cancelled;
  EXPECT_EQ(testing::CollectStatus(join, ctx).code(), StatusCode::kCancelled);
}

TEST(HashJoinTest, BuildSummary) {
  Rows right;
  for (int i = 0; i < 5000; ++i) right.push_back({I64(i % 10 - 3), I64(i)});
  right.push_back({NullI64(), I64(0)});
  HashJoinOperator join(MakeSource(TwoInts("a", "b"), {}), MakeSource(TwoInts("c", "d"), right),
                        JoinType::kInner, {Col(0, DataType::Int64()), Col(1, DataType::Int64())},
                        {Col(0, DataType::Int64()), Col(1, DataType::Int64())}, {}, nullptr);
  EXPECT_EQ(join.build_summary(), nullptr);
  ExecContext ctx;
  ASSERT_TRUE(join.Build(ctx).ok());
  const JoinBuildSummary* s = join.build_summary();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->build_rows, 5001);
  ASSERT_EQ(s->keys.size(), 2u);
  const JoinKeySummary& k0 = s->keys[0];
  EXPECT_TRUE(k0.has_nulls);
  EXPECT_EQ(k0.non_null_count, 5000);
  ASSERT_TRUE(k0.has_min_max);
  EXPECT_EQ(k0.min.integer(), -3);
  EXPECT_EQ(k0.max.integer(), 6);
  ASSERT_TRUE(k0.distinct_complete);
  EXPECT_EQ(k0.distinct_values.size(), 10u);
  EXPECT_EQ(k0.distinct_values[0].integer(), -3);
  const JoinKeySummary& k1 = s->keys[1];
  EXPECT_FALSE(k1.distinct_complete);  // 5000 distinct values
  EXPECT_TRUE(k1.distinct_values.empty());
  EXPECT_EQ(k1.min.integer(), 0);
  EXPECT_EQ(k1.max.integer(), 4999);
}

}  // namespace
}  // namespace silt::exec
