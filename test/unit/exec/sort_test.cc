#include "exec/sort.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <random>

#include "common/memory.h"
#include "common/thread_pool.h"
#include "unit/exec/exec_test_util.h"

namespace silt::exec {
namespace {

using testing::Col;
using testing::Fields;
using testing::I64;
using testing::MakeSource;
using testing::NullI64;
using testing::Rows;
using RowList = std::vector<std::vector<Value>>;

std::vector<std::string> SortRows(const Schema& schema, const RowList& rows,
                                  std::vector<SortKey> keys, ExecContext& ctx,
                                  size_t chunk_rows = 2048) {
  SortOperator op(MakeSource(schema, rows, chunk_rows), std::move(keys));
  return Rows(testing::Collect(op, ctx));
}

TEST(SortTest, NullOrderingDefaultsAndExplicit) {
  Schema s = Fields({{"a", DataType::Int64()}});
  RowList rows = {{I64(3)}, {NullI64()}, {I64(1)}, {I64(2)}, {NullI64()}};
  ExecContext ctx;
  auto asc = SortRows(s, rows, {MakeSortKey(Col(0, DataType::Int64()), true)}, ctx);
  EXPECT_EQ(asc, (std::vector<std::string>{"[null]", "[null]", "[1]", "[2]", "[3]"}));
  auto desc = SortRows(s, rows, {MakeSortKey(Col(0, DataType::Int64()), false)}, ctx);
  EXPECT_EQ(desc, (std::vector<std::string>{"[3]", "[2]", "[1]", "[null]", "[null]"}));
  auto asc_last = SortRows(s, rows, {SortKey{Col(0, DataType::Int64()), true, false}}, ctx);
  EXPECT_EQ(asc_last, (std::vector<std::string>{"[1]", "[2]", "[3]", "[null]", "[null]"}));
  auto desc_first = SortRows(s, rows, {SortKey{Col(0, DataType::Int64()), false, true}}, ctx);
  EXPECT_EQ(desc_first, (std::vector<std::string>{"[null]", "[null]", "[3]", "[2]", "[1]"}));
}

TEST(SortTest, DoublesNaNAboveInfinityAndNegativeZeroTies) {
  Schema s = Fields({{"d", DataType::Double()}, {"i", DataType::Int64()}});
  double nan = std::numeric_limits<double>::quiet_NaN();
  double inf = std::numeric_limits<double>::infinity();
  RowList rows = {{Value::Double(nan), I64(0)},
                  {Value::Double(1.5), I64(1)},
                  {Value::Double(-inf), I64(2)},
                  {Value::Double(0.0), I64(3)},
                  {Value::Double(-0.0), I64(4)},
                  {Value::Double(inf), I64(5)},
                  {Value::Null(DataType::Double()), I64(6)},
                  {Value::Double(-nan), I64(7)}};
  ExecContext ctx;
  auto asc = SortRows(s, rows, {MakeSortKey(Col(0, DataType::Double()), true)}, ctx);
  // -0.0 and 0.0 tie (input order kept); every NaN ties, above +inf.
  std::vector<std::string> idx;
  for (const auto& r : asc) idx.push_back(r.substr(r.find(',') + 1));
  EXPECT_EQ(idx, (std::vector<std::string>{"6]", "2]", "3]", "4]", "1]", "5]", "0]", "7]"}));
  auto desc = SortRows(s, rows, {MakeSortKey(Col(0, DataType::Double()), false)}, ctx);
  idx.clear();
  for (const auto& r : desc) idx.push_back(r.substr(r.find(',') + 1));
  EXPECT_EQ(idx, (std::vector<std::string>{"0]", "7]", "5]", "1]", "3]", "4]", "2]", "6]"}));
  // Same with float and through the comparator path (two keys: float + string).
  Schema fs = Fields({{"f", DataType::Float()}, {"s", DataType::String()}});
  RowList frows = {{Value::Floating(DataType::Float(), nan), Value::String("a")},
                   {Value::Floating(DataType::Float(), -1), Value::String("b")},
                   {Value::Floating(DataType::Float(), inf), Value::String("c")}};
  auto f = SortRows(
      fs, frows,
      {MakeSortKey(Col(0, DataType::Float()), true), MakeSortKey(Col(1, DataType::String()), true)},
      ctx);
  EXPECT_EQ(f, (std::vector<std::string>{"[-1,\"b\"]", "[\"Infinity\",\"c\"]", "[\"NaN\",\"a\"]"}));
}

TEST(SortTest, StringsBinaryOrderAndStability) {
  Schema s = Fields({{"s", DataType::String()}, {"i", DataType::Int64()}});
  RowList rows = {{Value::String("b"), I64(0)},        {Value::String("a"), I64(1)},
                  {Value::String("\xc3\xa9"), I64(2)}, {Value::String("B"), I64(3)},
                  {Value::String(""), I64(4)},         {Value::String("a"), I64(5)},
                  {Value::String("ab"), I64(6)},       {Value::String("a"), I64(7)}};
  ExecContext ctx;
  auto got = SortRows(s, rows, {MakeSortKey(Col(0, DataType::String()), true)}, ctx);
  std::vector<std::string> idx;
  for (const auto& r : got) idx.push_back(r.substr(r.rfind(',') + 1));
  // Unsigned bytes: "" < "B" < "a"(1,5,7 in input order) < "ab" < "b" < "é".
  EXPECT_EQ(idx, (std::vector<std::string>{"4]", "3]", "1]", "5]", "7]", "6]", "0]", "2]"}));
}

TEST(SortTest, MultipleKeysMixedDirectionsAgainstStdStableSort) {
  std::mt19937 rng(42);
  Schema s = Fields({{"a", DataType::Int32()},
                     {"b", DataType::String()},
                     {"c", DataType::Decimal(20, 2)},
                     {"d", DataType::Boolean()},
                     {"e", DataType::Date()},
                     {"id", DataType::Int64()}});
  RowList rows;
  for (int i = 0; i < 3000; ++i) {
    auto maybe_null = [&](Value v) { return rng() % 10 == 0 ? Value::Null(v.type()) : v; };
    rows.push_back(
        {maybe_null(Value::Int32(static_cast<int32_t>(rng() % 7) - 3)),
         maybe_null(Value::String(std::string(rng() % 3, static_cast<char>('a' + rng() % 3)))),
         maybe_null(Value::Decimal(20, 2, static_cast<int128_t>(rng() % 5) - 2)),
         maybe_null(Value::Boolean(rng() % 2)),
         maybe_null(Value::Integer(DataType::Date(), rng() % 4)), I64(i)});
  }
  // Reference: std::stable_sort with per-key Spark comparison on Values.
  auto cmp_value = [](const Value& x, const Value& y) -> int {
    switch (x.type()->id()) {
      case TypeId::kString:
        return x.str() < y.str() ? -1 : (x.str() > y.str() ? 1 : 0);
      case TypeId::kDecimal:
        return x.decimal() < y.decimal() ? -1 : (x.decimal() > y.decimal());
      case TypeId::kBoolean:
        return int(x.boolean()) - int(y.boolean());
      default:
        return x.integer() < y.integer() ? -1 : (x.integer() > y.integer());
    }
  };
  struct K {
    int col;
    bool asc, nf;
  };
  std::vector<std::vector<K>> specs = {
      {{0, true, true}, {1, false, false}},
      {{2, false, true}, {3, true, false}, {4, false, false}},
      {{1, true, true}, {2, true, true}, {0, false, true}},
      {{3, true, true}, {4, true, true}},  // normalized fast path with null bytes
      {{0, false, false}},
  };
  ExecContext ctx;
  for (const auto& spec : specs) {
    std::vector<size_t> idx(rows.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) {
      for (const K& k : spec) {
        const Value& a = rows[x][k.col];
        const Value& b = rows[y][k.col];
        if (a.is_null() || b.is_null()) {
          if (a.is_null() && b.is_null()) continue;
          return a.is_null() == k.nf;
        }
        int c = cmp_value(a, b);
        if (c) return k.asc ? c < 0 : c > 0;
      }
      return false;
    });
    std::vector<std::string> expected;
    for (size_t i : idx) expected.push_back(std::to_string(i));
    std::vector<SortKey> keys;
    for (const K& k : spec) keys.push_back(SortKey{Col(k.col, s[k.col].type), k.asc, k.nf});
    SortOperator op(MakeSource(s, rows, 500), keys);
    std::vector<std::string> got;
    for (const DataChunk& c : testing::Collect(op, ctx)) {
      for (size_t r = 0; r < c.size(); ++r)
        got.push_back(std::to_string(c.columns[5].data<int64_t>()[r]));
    }
    EXPECT_EQ(got, expected);
  }
}

TEST(SortTest, NestedStructAndArrayLexicographic) {
  TypePtr st = DataType::Struct(
      {{"x", DataType::Int32(), true, "{}"}, {"y", DataType::String(), true, "{}"}});
  TypePtr at = DataType::List(DataType::Int32());
  Schema s = Fields({{"s", st}, {"a", at}, {"i", DataType::Int64()}});
  auto S = [&](std::optional<int> x, std::string y) {
    return Value::Nested(st,
                         {x ? Value::Int32(*x) : Value::Null(DataType::Int32()), Value::String(y)});
  };
  auto A = [&](std::vector<std::optional<int>> v) {
    std::vector<Value> e;
    for (auto x : v) e.push_back(x ? Value::Int32(*x) : Value::Null(DataType::Int32()));
    return Value::Nested(at, e);
  };
  RowList rows = {{S(2, "a"), A({1, 2}), I64(0)},
                  {S(1, "b"), A({1}), I64(1)},
                  {S(std::nullopt, "z"), A({}), I64(2)},
                  {S(1, "a"), A({1, std::nullopt}), I64(3)},
                  {Value::Null(st), A({0, 5}), I64(4)}};
  ExecContext ctx;
  auto by_struct = SortRows(s, rows, {MakeSortKey(Col(0, st), true)}, ctx);
  std::vector<std::string> idx;
  for (const auto& r : by_struct) idx.push_back(r.substr(r.rfind(',') + 1));
  EXPECT_EQ(idx, (std::vector<std::string>{"4]", "2]", "3]", "1]", "0]"}));
  auto by_array = SortRows(s, rows, {MakeSortKey(Col(1, at), true)}, ctx);
  idx.clear();
  for (const auto& r : by_array) idx.push_back(r.substr(r.rfind(',') + 1));
  // [] < [0,5] < [1] < [1,null] < [1,2]
  EXPECT_EQ(idx, (std::vector<std::string>{"2]", "4]", "1]", "3]", "0]"}));
  auto by_array_desc = SortRows(s, rows, {MakeSortKey(Col(1, at), false)}, ctx);
  idx.clear();
  for (const auto& r : by_array_desc) idx.push_back(r.substr(r.rfind(',') + 1));
  EXPECT_EQ(idx, (std::vector<std::string>{"0]", "3]", "1]", "4]", "2]"}));
}

TEST(SortTest, MapKeysAreRejected) {
  TypePtr mt = DataType::Map(DataType::String(), DataType::Int32());
  Schema s = Fields({{"m", mt}});
  SortOperator op(MakeSource(s, {{Value::Nested(mt, {})}}), {MakeSortKey(Col(0, mt), true)});
  ExecContext ctx;
  EXPECT_EQ(testing::CollectStatus(op, ctx).error_class(), "DATATYPE_MISMATCH");
}

TEST(SortTest, EmptyInputAndNoKeys) {
  Schema s = Fields({{"a", DataType::Int64()}});
  ExecContext ctx;
  EXPECT_TRUE(SortRows(s, {}, {MakeSortKey(Col(0, DataType::Int64()), true)}, ctx).empty());
  EXPECT_EQ(SortRows(s, {{I64(2)}, {I64(1)}}, {}, ctx), (std::vector<std::string>{"[2]", "[1]"}));
}

TEST(SortTest, ExtremeIntegersAndDecimals) {
  Schema s = Fields({{"a", DataType::Int64()}, {"d", DataType::Decimal(38, 0)}});
  int64_t mn = std::numeric_limits<int64_t>::min(), mx = std::numeric_limits<int64_t>::max();
  int128_t big = static_cast<int128_t>(1) << 100;
  RowList rows = {{I64(mx), Value::Decimal(38, 0, -big)},
                  {I64(0), Value::Decimal(38, 0, big)},
                  {I64(mn), Value::Decimal(38, 0, 0)},
                  {I64(-1), Value::Decimal(38, 0, -1)}};
  ExecContext ctx;
  auto a = SortRows(s, rows, {MakeSortKey(Col(0, DataType::Int64()), true)}, ctx);
  EXPECT_EQ(a[0].substr(0, 21), "[-9223372036854775808");
  EXPECT_EQ(a[3].substr(0, 20), "[9223372036854775807");
  auto d = SortRows(s, rows, {MakeSortKey(Col(1, DataType::Decimal(38, 0)), false)}, ctx);
  EXPECT_EQ(d[0].substr(0, 2), "[0");
  EXPECT_EQ(d[1].substr(0, 3), "[-9");
  EXPECT_EQ(d[2].substr(0, 4), "[-1,");
  EXPECT_EQ(d[3].substr(0, 3), "[92");
}

TEST(SortTest, ManyRowsParallelMatchesSerialAndIsStable) {
  const size_t n = 300000;
  std::mt19937_64 rng(7);
  std::vector<int64_t> key(n), id(n);
  for (size_t i = 0; i < n; ++i) {
    key[i] = static_cast<int64_t>(rng() % 1000) - 500;
    id[i] = static_cast<int64_t>(i);
  }
  ThreadPool pool(2);
  for (bool parallel : {false, true}) {
    for (bool two_keys : {false, true}) {
      ExecContext ctx;
      if (parallel) ctx.pool = &pool;
      std::vector<SortKey> keys = {MakeSortKey(Col(0, DataType::Int64()), false)};
      // A string-free second key still normalizes; a third (strings) would not — covered above.
      if (two_keys) keys.push_back(MakeSortKey(Col(1, DataType::Int64()), false));
      SortOperator op(testing::MakeInt64Source({key, id}), keys);
      int64_t prev_key = std::numeric_limits<int64_t>::max(), prev_id = -1;
      size_t rows = 0;
      for (const DataChunk& c : testing::Collect(op, ctx)) {
        for (size_t r = 0; r < c.size(); ++r, ++rows) {
          int64_t k = c.columns[0].data<int64_t>()[r], i = c.columns[1].data<int64_t>()[r];
          ASSERT_LE(k, prev_key);
          if (k == prev_key) {
            if (two_keys) {
              ASSERT_LT(i, prev_id);
            } else {
              ASSERT_GT(i, prev_id);  // stable
            }
          }
          prev_key = k;
          prev_id = i;
        }
      }
      EXPECT_EQ(rows, n);
    }
  }
}

TEST(SortTest, ComparatorPathParallelIsStable) {
  const size_t n = 150000;
  std::vector<std::vector<Value>> rows;
  Schema s = Fields({{"s", DataType::String()}, {"id", DataType::Int64()}});
  for (size_t i = 0; i < n; ++i) {
    rows.push_back({Value::String(std::to_string((i * 7919) % 100)), I64(static_cast<int64_t>(i))});
  }
  ThreadPool pool(2);
  ExecContext ctx;
  ctx.pool = &pool;
  SortOperator op(MakeSource(s, rows), {MakeSortKey(Col(0, DataType::String()), true)});
  EXPECT_EQ(testing::ExpectSortedAndStable(testing::Collect(op, ctx), 0, 1), n);
}

TEST(SortTest, TenMillionInt64KeysTiming) {
  const size_t n = 10000000;
  std::mt19937_64 rng(1);
  std::vector<int64_t> key(n);
  for (auto& k : key) k = static_cast<int64_t>(rng());
  Vector v(DataType::Int64());
  v.ResizeUninitialized(n);
  std::memcpy(v.data<int64_t>(), key.data(), n * 8);
  const Vector* keys[1] = {&v};
  SortOrder orders[1] = {SortOrder{true, true}};
  std::vector<uint32_t> perm;
  ExecContext ctx;
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(SortPermutation(keys, orders, n, ctx, &perm).ok());
  auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  for (size_t i = 1; i < n; ++i) ASSERT_LE(key[perm[i - 1]], key[perm[i]]);
  std::printf("SortPermutation of 10M random int64: %lld ms\n", static_cast<long long>(ms));
}

TEST(SortTest, MemoryLimit) {
  std::vector<int64_t> k(100000, 1);
  auto tracker = std::make_shared<MemoryTracker>("q", 50000);
  SortOperator op(testing::MakeInt64Source({k}), {MakeSortKey(Col(0, DataType::Int64()), true)});
  ExecContext ctx;
  ctx.memory = tracker.get();
  EXPECT_EQ(testing::CollectStatus(op, ctx).error_class(), "SILT_MEMORY_LIMIT_EXCEEDED");
}

// ---------------------------------------------------------------- TopN and Limit

TEST(TopNTest, EqualsSortThenLimitIncludingTies) {
  std::mt19937 rng(3);
  Schema s = Fields({{"k", DataType::Int64()}, {"id", DataType::Int64()}});
  RowList rows;
  for (int i = 0; i < 20000; ++i) {
    rows.push_back({rng() % 13 == 0 ? NullI64() : I64(rng() % 50), I64(i)});
  }
  ExecContext ctx;
  for (int64_t limit : {0, 1, 5, 100, 2047, 2049, 5000, 30000}) {
    for (int64_t offset : {0, 3, 2500}) {
      for (bool asc : {true, false}) {
        std::vector<SortKey> keys = {MakeSortKey(Col(0, DataType::Int64()), asc)};
        auto full = SortRows(s, rows, keys, ctx, 1000);
        std::vector<std::string> expected;
        for (int64_t i = offset; i < std::min<int64_t>(offset + limit, full.size()); ++i) {
          expected.push_back(full[i]);
        }
        TopNOperator op(MakeSource(s, rows, 1000), keys, limit, offset);
        EXPECT_EQ(Rows(testing::Collect(op, ctx)), expected)
            << "limit=" << limit << " offset=" << offset << " asc=" << asc;
      }
    }
  }
}

TEST(TopNTest, EmptyInput) {
  Schema s = Fields({{"k", DataType::Int64()}});
  TopNOperator op(MakeSource(s, {}), {MakeSortKey(Col(0, DataType::Int64()), true)}, 10, 0);
  ExecContext ctx;
  EXPECT_TRUE(testing::Collect(op, ctx).empty());
}

TEST(LimitTest, LimitOffsetAcrossChunks) {
  std::vector<int64_t> k(10000);
  for (size_t i = 0; i < k.size(); ++i) k[i] = static_cast<int64_t>(i);
  ExecContext ctx;
  struct Case {
    int64_t limit, offset, first, count;
  };
  for (Case c : std::vector<Case>{{10, 0, 0, 10},
                                  {3000, 0, 0, 3000},
                                  {3000, 2047, 2047, 3000},
                                  {-1, 9990, 9990, 10},
                                  {5, 20000, 0, 0},
                                  {0, 0, 0, 0},
                                  {-1, 0, 0, 10000}}) {
    LimitOperator op(testing::MakeInt64Source({k}, 1000), c.limit, c.offset);
    std::vector<int64_t> got;
    for (const DataChunk& ch : testing::Collect(op, ctx)) {
      for (size_t r = 0; r < ch.size(); ++r) got.push_back(ch.columns[0].data<int64_t>()[r]);
    }
    ASSERT_EQ(got.size(), static_cast<size_t>(c.count)) << c.limit << " " << c.offset;
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], c.first + static_cast<int64_t>(i));
  }
}

TEST(LimitTest, StopsPullingOnceDone) {
  std::vector<int64_t> k(10000, 1);
  auto src = testing::MakeInt64Source({k}, 100);
  testing::ChunkSource* p = src.get();
  LimitOperator op(std::move(src), 150, 0);
  ExecContext ctx;
  testing::Collect(op, ctx);
  EXPECT_EQ(p->pulls(), 2);
}

}  // namespace
}  // namespace silt::exec
