#include "exec/hash_aggregate.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

#include "agg_test_util.h"
#include "common/thread_pool.h"
#include "exec/spill.h"

namespace silt::exec {
namespace {

using namespace silt::exec::aggtest;  // NOLINT

AggregateSpec Agg(const std::string& fn, std::vector<ExprPtr> args, bool distinct = false,
                  ExprPtr filter = nullptr) {
  auto b = BindAggregateFunction(fn, std::move(args), distinct, BindContext{});
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return AggregateSpec{std::move(b).value(), std::move(filter), fn};
}

ExprPtr C(int i, TypePtr t) { return MakeColumn(i, std::move(t), "c" + std::to_string(i)); }

OperatorPtr Source(DataChunk data, size_t chunk_rows = 2048) {
  Schema s = SchemaOf(data);
  return std::make_unique<ChunkSource>(s, Split(data, chunk_rows));
}

std::vector<std::string> RunAgg(std::unique_ptr<HashAggregateOperator> op, ExecContext& ctx,
                                Status* st = nullptr) {
  return SortedRows(*op, ctx, st);
}

TEST(HashAggregateTest, GroupByIntWithNullKeys) {
  auto i64 = DataType::Int64();
  DataChunk d = Chunk({Col(i64, {I64(1), I64(2), Null(i64), I64(1), Null(i64), I64(2)}),
                       Col(i64, {I64(10), I64(20), I64(30), Null(i64), I64(50), I64(60)})});
  ExecContext ctx;
  std::vector<AggregateSpec> aggs;
  aggs.push_back(Agg("count", {}));
  aggs.push_back(Agg("sum", {C(1, i64)}));
  aggs.push_back(Agg("max", {C(1, i64)}));
  auto op = std::make_unique<HashAggregateOperator>(
      Source(std::move(d), 4), std::vector<ExprPtr>{C(0, i64)}, std::move(aggs));
  ASSERT_EQ(op->output_schema().size(), 4u);
  EXPECT_EQ(op->output_schema()[0].name, "c0");
  EXPECT_EQ(op->output_schema()[1].type->ToString(), "bigint");
  EXPECT_EQ(RunAgg(std::move(op), ctx),
            (std::vector<std::string>{"1|2|10|10", "2|2|80|60", "null|2|80|50"}));
}

TEST(HashAggregateTest, GlobalAggregateOnEmptyInput) {
  auto i32 = DataType::Int32();
  ExecContext ctx;
  for (bool parallel : {false, true}) {
    ThreadPool pool(3);
    ctx.pool = parallel ? &pool : nullptr;
    std::vector<AggregateSpec> aggs;
    aggs.push_back(Agg("count", {}));
    aggs.push_back(Agg("sum", {C(0, i32)}));
    aggs.push_back(Agg("collect_list", {C(0, i32)}));
    auto op = std::make_unique<HashAggregateOperator>(
        std::make_unique<ChunkSource>(Schema{{"a", i32, true, ""}}, std::vector<DataChunk>{}),
        std::vector<ExprPtr>{}, std::move(aggs));
    EXPECT_EQ(RunAgg(std::move(op), ctx), (std::vector<std::string>{"0|null|[]"}));
    // With a group key, empty input gives no rows.
    std::vector<AggregateSpec> aggs2;
    aggs2.push_back(Agg("count", {}));
    auto op2 = std::make_unique<HashAggregateOperator>(
        std::make_unique<ChunkSource>(Schema{{"a", i32, true, ""}}, std::vector<DataChunk>{}),
        std::vector<ExprPtr>{C(0, i32)}, std::move(aggs2));
    EXPECT_TRUE(RunAgg(std::move(op2), ctx).empty());
  }
}

TEST(HashAggregateTest, GlobalAggregate) {
  auto i32 = DataType::Int32();
  DataChunk d = Chunk({Col(i32, {I32(1), I32(2), Null(i32), I32(4)})});
  ExecContext ctx;
  std::vector<AggregateSpec> aggs;
  aggs.push_back(Agg("count", {C(0, i32)}));
  aggs.push_back(Agg("avg", {C(0, i32)}));
  auto op = std::make_unique<HashAggregateOperator>(Source(std::move(d), 3), std::vector<ExprPtr>{},
                                                    std::move(aggs));
  EXPECT_EQ(RunAgg(std::move(op), ctx), (std::vector<std::string>{"3|2.3333333333333335"}));
}

TEST(HashAggregateTest, StringAndMultiColumnKeys) {
  auto s = DataType::String();
  auto i32 = DataType::Int32();
  DataChunk d = Chunk({Col(s, {Str("a"), Str("b"), Str("a"), Null(s), Str(""), Null(s), Str("a")}),
                       Col(i32, {I32(1), I32(1), I32(2), I32(1), I32(1), I32(1), I32(1)})});
  ExecContext ctx;
  {
    std::vector<AggregateSpec> aggs;
    aggs.push_back(Agg("count", {}));
    auto op = std::make_unique<HashAggregateOperator>(Source(d, 2), std::vector<ExprPtr>{C(0, s)},
                                                      std::move(aggs));
    EXPECT_EQ(RunAgg(std::move(op), ctx),
              (std::vector<std::string>{"\"\"|1", "\"a\"|3", "\"b\"|1", "null|2"}));
  }
  {
    std::vector<AggregateSpec> aggs;
    aggs.push_back(Agg("count", {}));
    auto op = std::make_unique<HashAggregateOperator>(
        Source(d, 3), std::vector<ExprPtr>{C(0, s), C(1, i32)}, std::move(aggs));
    EXPECT_EQ(
        RunAgg(std::move(op), ctx),
        (std::vector<std::string>{"\"\"|1|1", "\"a\"|1|2", "\"a\"|2|1", "\"b\"|1|1", "null|1|2"}));
  }
}

TEST(HashAggregateTest, FloatKeysNormalizeNaNAndNegativeZero) {
  auto dt = DataType::Double();
  DataChunk d = Chunk({Col(dt, {Dbl(0.0), Dbl(-0.0), Dbl(NAN), Dbl(-NAN), Dbl(1.5), Null(dt)})});
  ExecContext ctx;
  std::vector<AggregateSpec> aggs;
  aggs.push_back(Agg("count", {}));
  auto op = std::make_unique<HashAggregateOperator>(
      Source(std::move(d)), std::vector<ExprPtr>{C(0, dt)}, std::move(aggs));
  auto rows = RunAgg(std::move(op), ctx);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0], "\"NaN\"|2");
  EXPECT_TRUE(rows[1] == "-0|2" || rows[1] == "0|2") << rows[1];
  EXPECT_EQ(rows[2], "1.5|1");
  EXPECT_EQ(rows[3], "null|1");
}

TEST(HashAggregateTest, SmallDomainKeys) {
  ExecContext ctx;
  for (TypePtr t : {DataType::Boolean(), DataType::Int8(), DataType::Int16()}) {
    Vector k(t);
    Vector v(DataType::Int64());
    for (int i = 0; i < 5000; ++i) {
      if (i % 7 == 0) {
        k.AppendNull();
      } else if (t->id() == TypeId::kBoolean) {
        k.Append<uint8_t>(i % 2);
      } else if (t->id() == TypeId::kInt8) {
        k.Append<int8_t>(static_cast<int8_t>(i % 256 - 128));
      } else {
        k.Append<int16_t>(static_cast<int16_t>(i * 13 - 30000));
      }
      v.Append<int64_t>(1);
    }
    DataChunk d = Chunk({std::move(k), std::move(v)});
    std::vector<AggregateSpec> aggs;
    aggs.push_back(Agg("sum", {C(1, DataType::Int64())}));
    auto op = std::make_unique<HashAggregateOperator>(
        Source(std::move(d), 1000), std::vector<ExprPtr>{C(0, t)}, std::move(aggs));
    auto rows = RunAgg(std::move(op), ctx);
    size_t expect = t->id() == TypeId::kBoolean ? 3 : t->id() == TypeId::kInt8 ? 257 : 0;
    if (expect) {
      EXPECT_EQ(rows.size(), expect) << t->ToString();
    }
    int64_t total = 0;
    for (const std::string& r : rows) total += std::stoll(r.substr(r.find('|') + 1));
    EXPECT_EQ(total, 5000) << t->ToString();
    // NULL is one group: 715 rows (i % 7 == 0).
    EXPECT_NE(std::find(rows.begin(), rows.end(), "null|715"), rows.end()) << t->ToString();
  }
}

// Many groups over each key path: groups come out once with the right count and sum.
TEST(HashAggregateTest, ManyGroups) {
  ExecContext ctx;
  const int64_t n = 300000, groups = 120000;
  for (int kind = 0; kind < 3; ++kind) {
    Vector k(kind == 0   ? DataType::Int64()
             : kind == 1 ? DataType::String()
                         : DataType::Decimal(18, 2));
    Vector v(DataType::Int64());
    for (int64_t i = 0; i < n; ++i) {
      int64_t g = (i * 7919) % groups;
      if (kind == 0) {
        k.Append<int64_t>(g * 1000003);
      } else if (kind == 1) {
        k.AppendString("key-" + std::to_string(g));
      } else {
        k.Append<int128_t>(g);
      }
      v.Append<int64_t>(g);
    }
    TypePtr kt = k.type();
    DataChunk d = Chunk({std::move(k), std::move(v)});
    for (bool parallel : {false, true}) {
      ThreadPool pool(4);
      ctx.pool = parallel ? &pool : nullptr;
      std::vector<AggregateSpec> aggs;
      aggs.push_back(Agg("count", {}));
      aggs.push_back(Agg("min", {C(1, DataType::Int64())}));
      aggs.push_back(Agg("max", {C(1, DataType::Int64())}));
      auto op = std::make_unique<HashAggregateOperator>(Source(d), std::vector<ExprPtr>{C(0, kt)},
                                                        std::move(aggs));
      auto chunks = CollectAll(*op, ctx);
      ASSERT_TRUE(chunks.ok()) << chunks.status().ToString();
      std::vector<int> seen(groups, 0);
      int64_t rows = 0, total = 0;
      for (const DataChunk& c : *chunks) {
        for (size_t i = 0; i < c.size(); ++i) {
          int64_t g = c.columns[2].data<int64_t>()[i];
          ASSERT_EQ(c.columns[3].data<int64_t>()[i], g);
          ASSERT_TRUE(g >= 0 && g < groups);
          ASSERT_EQ(seen[g]++, 0) << "group twice: " << g;
          int64_t cnt = c.columns[1].data<int64_t>()[i];
          ASSERT_TRUE(cnt == n / groups || cnt == n / groups + 1)
              << cnt;  // 7919 is coprime to groups
          total += cnt;
          ++rows;
        }
      }
      EXPECT_EQ(rows, groups) << kind << " parallel=" << parallel;
      EXPECT_EQ(total, n);
    }
  }
}

// GROUP BY without aggregate calls (zero payload bytes): groups over several payload blocks
// (1024 groups each), serial and parallel.
TEST(HashAggregateTest, KeysWithoutAggregateCalls) {
  ExecContext ctx;
  Vector k(DataType::Int64());
  for (int64_t i = 0; i < 10000; ++i) k.Append<int64_t>(i % 3000);
  DataChunk d = Chunk({std::move(k)});
  for (bool parallel : {false, true}) {
    ThreadPool pool(3);
    ctx.pool = parallel ? &pool : nullptr;
    auto op = std::make_unique<HashAggregateOperator>(Source(d, 1000),
                                                      std::vector<ExprPtr>{C(0, DataType::Int64())},
                                                      std::vector<AggregateSpec>{});
    auto chunks = CollectAll(*op, ctx);
    ASSERT_TRUE(chunks.ok()) << chunks.status().ToString();
    std::vector<int> seen(3000, 0);
    for (const DataChunk& c : *chunks) {
      for (size_t i = 0; i < c.size(); ++i) seen[c.columns[0].data<int64_t>()[i]]++;
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 3000) << "parallel=" << parallel;
  }
}

// No keys and no aggregate calls (SELECT 1 FROM t HAVING true): one row without columns, also on
// empty input.
TEST(HashAggregateTest, GlobalAggregateWithoutCallsIsOneRow) {
  ExecContext ctx;
  for (int64_t rows : {0, 5}) {
    Vector k(DataType::Int64());
    for (int64_t i = 0; i < rows; ++i) k.Append<int64_t>(i);
    DataChunk d = Chunk({std::move(k)});
    auto op = std::make_unique<HashAggregateOperator>(Source(d), std::vector<ExprPtr>{},
                                                      std::vector<AggregateSpec>{});
    ASSERT_EQ(op->output_schema().size(), 0u);
    auto chunks = CollectAll(*op, ctx);
    ASSERT_TRUE(chunks.ok()) << chunks.status().ToString();
    size_t total = 0;
    for (const DataChunk& c : *chunks) total += c.size();
    EXPECT_EQ(total, 1u) << rows;
  }
}

TEST(HashAggregateTest, ParallelMatchesSerial) {
  std::mt19937_64 rng(42);
  const size_t n = 200000;
  Vector k1(DataType::Int32()), k2(DataType::String()), v(DataType::Int64()), d(DataType::Double());
  for (size_t i = 0; i < n; ++i) {
    if (rng() % 50 == 0) {
      k1.AppendNull();
    } else {
      k1.Append<int32_t>(static_cast<int32_t>(rng() % 3000));
    }
    k2.AppendString(std::string(1, static_cast<char>('a' + rng() % 3)));
    if (rng() % 10 == 0) {
      v.AppendNull();
    } else {
      v.Append<int64_t>(static_cast<int64_t>(rng() % 1000) - 500);
    }
    d.Append<double>(static_cast<double>(rng() % 64));  // small integers: sums are exact
  }
  DataChunk data = Chunk({std::move(k1), std::move(k2), std::move(v), std::move(d)});
  auto make = [&]() {
    std::vector<AggregateSpec> aggs;
    aggs.push_back(Agg("count", {}));
    aggs.push_back(Agg("count", {C(2, DataType::Int64())}));
    aggs.push_back(Agg("sum", {C(2, DataType::Int64())}));
    aggs.push_back(Agg("min", {C(2, DataType::Int64())}));
    aggs.push_back(Agg("max", {C(1, DataType::String())}));
    aggs.push_back(Agg("sum", {C(3, DataType::Double())}));
    aggs.push_back(Agg("count", {C(2, DataType::Int64())}, true));
    aggs.push_back(Agg("approx_count_distinct", {C(2, DataType::Int64())}));
    aggs.push_back(Agg("bool_or", {MakeConstant(Value::Boolean(true))}));
    return std::make_unique<HashAggregateOperator>(
        Source(data, 1000), std::vector<ExprPtr>{C(0, DataType::Int32()), C(1, DataType::String())},
        std::move(aggs));
  };
  ExecContext serial;
  auto expect = RunAgg(make(), serial);
  EXPECT_GT(expect.size(), 8000u);
  for (size_t threads : {2, 4}) {
    ThreadPool pool(threads);
    ExecContext par;
    par.pool = &pool;
    EXPECT_EQ(RunAgg(make(), par), expect) << threads;
  }
  // Global aggregate too.
  auto global = [&]() {
    std::vector<AggregateSpec> aggs;
    aggs.push_back(Agg("count", {}));
    aggs.push_back(Agg("sum", {C(2, DataType::Int64())}));
    aggs.push_back(Agg("var_pop", {C(3, DataType::Double())}));
    return std::make_unique<HashAggregateOperator>(Source(data, 1000), std::vector<ExprPtr>{},
                                                   std::move(aggs));
  };
  auto g1 = RunAgg(global(), serial);
  ThreadPool pool(4);
  ExecContext par;
  par.pool = &pool;
  auto g2 = RunAgg(global(), par);
  ASSERT_EQ(g1.size(), 1u);
  ASSERT_EQ(g2.size(), 1u);
  // count and sum exact; the variance agrees to rounding.
  EXPECT_EQ(g1[0].substr(0, g1[0].rfind('|')), g2[0].substr(0, g2[0].rfind('|')));
  double v1 = std::stod(g1[0].substr(g1[0].rfind('|') + 1)),
         v2 = std::stod(g2[0].substr(g2[0].rfind('|') + 1));
  EXPECT_NEAR(v1, v2, 1e-9 * std::abs(v1));
}

TEST(HashAggregateTest, FilterClause) {
  auto i64 = DataType::Int64();
  auto b = DataType::Boolean();
  DataChunk d = Chunk({Col(i64, {I64(1), I64(1), I64(2), I64(2), I64(3)}),
                       Col(i64, {I64(10), I64(20), I64(30), I64(40), I64(50)}),
                       Col(b, {Bool(true), Bool(false), Null(b), Bool(true), Bool(false)})});
  ExecContext ctx;
  std::vector<AggregateSpec> aggs;
  aggs.push_back(Agg("count", {}, false, C(2, b)));
  aggs.push_back(Agg("sum", {C(1, i64)}, false, C(2, b)));
  aggs.push_back(Agg("sum", {C(1, i64)}));
  aggs.push_back(Agg("count", {C(1, i64)}, true, C(2, b)));
  auto op = std::make_unique<HashAggregateOperator>(
      Source(std::move(d), 2), std::vector<ExprPtr>{C(0, i64)}, std::move(aggs));
  EXPECT_EQ(RunAgg(std::move(op), ctx),
            (std::vector<std::string>{"1|1|10|30|1", "2|1|40|70|1", "3|0|null|50|0"}));
}

TEST(HashAggregateTest, DistinctAggregatesPerGroup) {
  auto i64 = DataType::Int64();
  DataChunk d = Chunk({Col(i64, {I64(1), I64(1), I64(1), I64(2), I64(2)}),
                       Col(i64, {I64(5), I64(5), I64(6), Null(i64), I64(7)})});
  ExecContext ctx;
  std::vector<AggregateSpec> aggs;
  aggs.push_back(Agg("count", {C(1, i64)}, true));
  aggs.push_back(Agg("sum", {C(1, i64)}, true));
  aggs.push_back(Agg("collect_set", {C(1, i64)}));
  auto op = std::make_unique<HashAggregateOperator>(
      Source(std::move(d), 2), std::vector<ExprPtr>{C(0, i64)}, std::move(aggs));
  EXPECT_EQ(RunAgg(std::move(op), ctx), (std::vector<std::string>{"1|2|11|[5,6]", "2|1|7|[7]"}));
}

// ROLLUP(a, b) = GROUPING SETS ((a, b), (a), ()).
TEST(HashAggregateTest, GroupingSetsRollup) {
  auto i64 = DataType::Int64();
  auto s = DataType::String();
  DataChunk d = Chunk({Col(s, {Str("x"), Str("x"), Str("y"), Null(s)}),
                       Col(i64, {I64(1), I64(2), I64(1), I64(1)}),
                       Col(i64, {I64(10), I64(20), I64(30), I64(40)})});
  ExecContext ctx;
  std::vector<AggregateSpec> aggs;
  aggs.push_back(Agg("sum", {C(2, i64)}));
  auto op = std::make_unique<HashAggregateOperator>(
      Source(std::move(d), 3), std::vector<ExprPtr>{C(0, s), C(1, i64)}, std::move(aggs),
      std::vector<std::vector<int>>{{0, 1}, {0}, {}});
  ASSERT_EQ(op->output_schema().size(), 4u);
  EXPECT_EQ(op->output_schema()[2].name, "spark_grouping_id");
  EXPECT_TRUE(op->output_schema()[1].nullable);
  EXPECT_EQ(RunAgg(std::move(op), ctx),
            (std::vector<std::string>{"\"x\"|1|0|10", "\"x\"|2|0|20", "\"x\"|null|1|30",
                                      "\"y\"|1|0|30", "\"y\"|null|1|30", "null|1|0|40",
                                      "null|null|1|40",  // the NULL a group, not the total
                                      "null|null|3|100"}));
}

TEST(HashAggregateTest, GroupingSetsCubeBits) {
  auto i64 = DataType::Int64();
  DataChunk d = Chunk({Col(i64, {I64(1), I64(2)}), Col(i64, {I64(3), I64(3)})});
  ExecContext ctx;
  std::vector<AggregateSpec> aggs;
  aggs.push_back(Agg("count", {}));
  // CUBE(a, b): (a,b)=0, (a)=1, (b)=2, ()=3 — the first key is the high bit.
  auto op = std::make_unique<HashAggregateOperator>(
      Source(std::move(d)), std::vector<ExprPtr>{C(0, i64), C(1, i64)}, std::move(aggs),
      std::vector<std::vector<int>>{{0, 1}, {0}, {1}, {}});
  EXPECT_EQ(RunAgg(std::move(op), ctx),
            (std::vector<std::string>{"1|3|0|1", "1|null|1|1", "2|3|0|1", "2|null|1|1",
                                      "null|3|2|2", "null|null|3|2"}));
}

TEST(HashAggregateTest, MemoryLimit) {
  const size_t n = 200000;
  Vector k(DataType::Int64());
  for (size_t i = 0; i < n; ++i) k.Append<int64_t>(static_cast<int64_t>(i));
  DataChunk d = Chunk({std::move(k)});
  for (bool parallel : {false, true}) {
    MemoryTracker tracker("query", 1 << 20);
    ThreadPool pool(2);
    ExecContext ctx;
    ctx.memory = &tracker;
    ctx.pool = parallel ? &pool : nullptr;
    std::vector<AggregateSpec> aggs;
    aggs.push_back(Agg("count", {}));
    auto op = std::make_unique<HashAggregateOperator>(
        Source(d), std::vector<ExprPtr>{C(0, DataType::Int64())}, std::move(aggs));
    Status st;
    RunAgg(std::move(op), ctx, &st);
    EXPECT_EQ(st.code(), StatusCode::kOutOfMemory);
    EXPECT_EQ(st.error_class(), "SILT_MEMORY_LIMIT_EXCEEDED");
    EXPECT_EQ(tracker.used(), 0);  // released when the operator is gone
  }
  // Under the limit it works and accounts memory while running.
  MemoryTracker tracker("query", 64 << 20);
  ExecContext ctx;
  ctx.memory = &tracker;
  std::vector<AggregateSpec> aggs;
  aggs.push_back(Agg("count", {}));
  auto op = std::make_unique<HashAggregateOperator>(
      Source(d), std::vector<ExprPtr>{C(0, DataType::Int64())}, std::move(aggs));
  DataChunk out;
  auto more = op->Next(ctx, &out);
  ASSERT_TRUE(more.ok() && *more);
  EXPECT_GT(tracker.used(), static_cast<int64_t>(n * 8));
}

// Aggregate states that live outside the group table (collect_list values, DISTINCT sets,
// percentile buffers) are reserved too: one global group can hold every input value.
TEST(HashAggregateTest, HeapStatesCountAgainstTheLimit) {
  const size_t n = 200000;
  Vector k(DataType::Int64());
  Vector v(DataType::String());
  for (size_t i = 0; i < n; ++i) {
    k.Append<int64_t>(static_cast<int64_t>(i % 1000));
    ASSERT_TRUE(v.AppendValue(Value::String("value-" + std::to_string(i))).ok());
  }
  DataChunk d = Chunk({std::move(k), std::move(v)});
  auto str = DataType::String();
  for (const char* fn : {"collect_list", "count", "percentile"}) {
    for (bool grouped : {false, true}) {
      for (bool parallel : {false, true}) {
        SCOPED_TRACE(std::string(fn) + (grouped ? " grouped" : " global") +
                     (parallel ? " parallel" : ""));
        MemoryTracker tracker("query", 1 << 20);
        ThreadPool pool(2);
        ExecContext ctx;
        ctx.memory = &tracker;
        ctx.pool = parallel ? &pool : nullptr;
        std::vector<AggregateSpec> aggs;
        if (std::string(fn) == "percentile") {
          aggs.push_back(
              Agg("percentile", {C(0, DataType::Int64()), MakeConstant(Value::Double(0.5))}));
        } else {
          aggs.push_back(Agg(fn, {C(1, str)}, /*distinct=*/std::string(fn) == "count"));
        }
        std::vector<ExprPtr> keys;
        if (grouped) keys.push_back(C(0, DataType::Int64()));
        auto op = std::make_unique<HashAggregateOperator>(Source(d), keys, std::move(aggs));
        Status st;
        RunAgg(std::move(op), ctx, &st);
        EXPECT_EQ(st.code(), StatusCode::kOutOfMemory) << st.ToString();
        EXPECT_EQ(st.error_class(), "SILT_MEMORY_LIMIT_EXCEEDED");
        EXPECT_EQ(st.message().substr(0, 38), "HashAggregate: memory limit of 1.0 MiB")
            << st.ToString();
        EXPECT_EQ(tracker.used(), 0);
      }
    }
  }
  // Enough memory: the result is right and the states were accounted while running.
  MemoryTracker tracker("query", 256 << 20);
  ExecContext ctx;
  ctx.memory = &tracker;
  std::vector<AggregateSpec> aggs;
  aggs.push_back(Agg("count", {C(1, str)}, true));
  auto op =
      std::make_unique<HashAggregateOperator>(Source(d), std::vector<ExprPtr>{}, std::move(aggs));
  EXPECT_EQ(RunAgg(std::move(op), ctx), (std::vector<std::string>{"200000"}));
  EXPECT_GT(tracker.peak(), 4 << 20);  // 200000 distinct strings of ~12 bytes plus the index
  EXPECT_EQ(tracker.used(), 0);
}

// With spilling, DISTINCT aggregates (and collect_set) run in two phases (group by keys and
// arguments, spilling; then fold into the keys' groups): under a limit far below their distinct
// values they give the unlimited results, mixed with plain aggregates (one with a FILTER), NULL
// arguments skipped, grouped and global, serial and parallel.
TEST(HashAggregateTest, DistinctAggregatesSpillUnderTheLimit) {
  const size_t n = 200000;
  auto i64 = DataType::Int64();
  auto b = DataType::Boolean();
  Vector k(i64), v(i64), f(b);
  for (size_t i = 0; i < n; ++i) {
    k.Append<int64_t>(static_cast<int64_t>(i % 3));
    f.Append<bool>(i % 5 == 0);
    if (i % 7 == 0) {
      v.AppendNull();
    } else {
      v.Append<int64_t>(static_cast<int64_t>((i * 7919) % 150000));
    }
  }
  DataChunk d = Chunk({std::move(k), std::move(v), std::move(f)});
  auto make = [&](bool grouped) {
    std::vector<AggregateSpec> aggs;
    aggs.push_back(Agg("count", {C(1, i64)}, true));
    aggs.push_back(Agg("count", {}));
    aggs.push_back(Agg("sum", {C(1, i64)}, true));
    aggs.push_back(Agg("sum", {C(1, i64)}, false, C(2, b)));
    aggs.push_back(Agg("max", {C(1, i64)}));
    std::vector<ExprPtr> keys;
    if (grouped) keys.push_back(C(0, i64));
    return std::make_unique<HashAggregateOperator>(Source(d), keys, std::move(aggs));
  };
  for (bool grouped : {false, true}) {
    ExecContext plain;
    std::vector<std::string> want = RunAgg(make(grouped), plain);
    ASSERT_EQ(want.size(), grouped ? 3u : 1u);
    for (bool parallel : {false, true}) {
      SCOPED_TRACE(std::string(grouped ? "grouped" : "global") + (parallel ? " parallel" : ""));
      auto root = std::filesystem::temp_directory_path() /
                  ("silt-agg-distinct-" + std::to_string(::getpid()));
      MemoryTracker tracker("query", 1 << 20);
      ThreadPool pool(2);
      SpillManager spill(root.string());
      ExecContext ctx;
      ctx.memory = &tracker;
      ctx.spill = &spill;
      ctx.pool = parallel ? &pool : nullptr;
      Status st;
      EXPECT_EQ(RunAgg(make(grouped), ctx, &st), want);
      EXPECT_TRUE(st.ok()) << st.ToString();
      EXPECT_GT(spill.files_created(), 0);
      EXPECT_EQ(tracker.used(), 0);
      // The sets of 150000 values would not have fit: without spilling the limit is an error.
      SpillManager off(root.string(), /*enabled=*/false);
      ctx.spill = &off;
      RunAgg(make(grouped), ctx, &st);
      EXPECT_EQ(st.error_class(), "SILT_MEMORY_LIMIT_EXCEEDED") << st.ToString();
    }
  }
}

TEST(HashAggregateTest, CancelledQuery) {
  std::atomic<bool> cancelled{true};
  ExecContext ctx;
  ctx.cancelled = &cancelled;
  DataChunk d = Chunk({Col(DataType::Int64(), {I64(1)})});
  std::vector<AggregateSpec> aggs;
  aggs.push_back(Agg("count", {}));
  auto op = std::make_unique<HashAggregateOperator>(Source(std::move(d)), std::vector<ExprPtr>{},
                                                    std::move(aggs));
  DataChunk out;
  auto r = op->Next(ctx, &out);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
}

TEST(HashAggregateTest, AnsiErrorPropagates) {
  auto i64 = DataType::Int64();
  DataChunk d = Chunk({Col(i64, {I64(INT64_MAX), I64(1)})});
  ExecContext ctx;
  ctx.eval.ansi = true;
  std::vector<AggregateSpec> aggs;
  aggs.push_back(Agg("sum", {C(0, i64)}));
  auto op = std::make_unique<HashAggregateOperator>(Source(std::move(d)), std::vector<ExprPtr>{},
                                                    std::move(aggs));
  Status st;
  RunAgg(std::move(op), ctx, &st);
  EXPECT_EQ(st.error_class(), "ARITHMETIC_OVERFLOW");
}

TEST(GroupHashTableTest, FindWithoutCreate) {
  GroupHashTable t({DataType::String(), DataType::Int32()}, 0, nullptr);
  Vector a = Col(DataType::String(), {Str("a"), Str("b"), Null(DataType::String())});
  Vector b = Col(DataType::Int32(), {I32(1), I32(2), I32(3)});
  std::vector<const Vector*> keys = {&a, &b};
  uint32_t g[3];
  ASSERT_TRUE(t.FindOrCreate(keys, nullptr, 3, nullptr, true, g).ok());
  EXPECT_EQ(g[0], 0u);
  EXPECT_EQ(g[1], 1u);
  EXPECT_EQ(g[2], 2u);
  Vector c = Col(DataType::String(), {Str("b"), Str("a"), Null(DataType::String())});
  Vector e = Col(DataType::Int32(), {I32(2), I32(2), I32(3)});
  std::vector<const Vector*> probe = {&c, &e};
  uint32_t sel[2] = {0, 2};
  ASSERT_TRUE(t.FindOrCreate(probe, sel, 2, nullptr, false, g).ok());
  EXPECT_EQ(g[0], 1u);
  EXPECT_EQ(g[1], 2u);
  ASSERT_TRUE(t.FindOrCreate(probe, nullptr, 3, nullptr, false, g).ok());
  EXPECT_EQ(g[1], kNoGroup);
  EXPECT_EQ(t.size(), 3u);
}

}  // namespace
}  // namespace silt::exec
