// Sort, top-N and window functions run partly on the ExecContext's pool: at 1, 2 and 8 threads
// they must return exactly the rows (and, where the SQL or the operator's contract fixes it, the
// order) of the serial run, over inputs that span many chunks and have skewed keys and many ties;
// an error raised inside a worker task comes back as the operator's Status.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "exec/aggregate.h"
#include "exec/functions.h"
#include "exec/hash_join.h"
#include "exec/sort.h"
#include "exec/window.h"
#include "unit/exec/exec_test_util.h"

namespace silt::exec {
namespace {

using testing::Col;
using testing::Fields;
using testing::I64;
using testing::MakeSource;
using RowList = std::vector<std::vector<Value>>;

constexpr size_t kRows = 60000;  // ~30 chunks of 2048 rows, above the parallel-sort threshold

// key: skewed (half the rows in key 0, a few large groups, a long tail of small ones); val: few
// distinct values (many ties, some NULL); id: unique, the input order; s: a string key (so sorts
// on it take the comparator path, not the normalized-key radix sort).
Schema TestSchema() {
  return Fields({{"key", DataType::Int64()},
                 {"val", DataType::Int64()},
                 {"id", DataType::Int64()},
                 {"s", DataType::String()}});
}

RowList TestRows() {
  std::mt19937_64 rng(42);
  RowList rows;
  rows.reserve(kRows);
  for (size_t i = 0; i < kRows; ++i) {
    int64_t r = static_cast<int64_t>(rng() % 1000);
    int64_t key = r < 500 ? 0 : r < 700 ? 1 + r % 4 : static_cast<int64_t>(rng() % 3000);
    Value val = rng() % 50 == 0 ? testing::NullI64() : I64(static_cast<int64_t>(rng() % 97));
    rows.push_back({I64(key), val, I64(static_cast<int64_t>(i)),
                    Value::String("s" + std::to_string(rng() % 400))});
  }
  return rows;
}

// Runs make_op() on no pool, then on pools of 1 and 7 workers (2 and 8 threads), and checks that
// every run returns the serial run's rows in the same order.
template <typename MakeOp>
void ExpectSameAtAllThreadCounts(MakeOp make_op) {
  std::vector<std::string> serial;
  {
    ExecContext ctx;
    auto op = make_op();
    serial = testing::Rows(testing::Collect(*op, ctx));
  }
  ASSERT_FALSE(serial.empty());
  for (size_t workers : {1u, 7u}) {
    SCOPED_TRACE("threads=" + std::to_string(workers + 1));
    ThreadPool pool(workers);
    ExecContext ctx;
    ctx.pool = &pool;
    auto op = make_op();
    std::vector<std::string> rows = testing::Rows(testing::Collect(*op, ctx));
    ASSERT_EQ(rows.size(), serial.size());
    for (size_t i = 0; i < rows.size(); ++i) ASSERT_EQ(rows[i], serial[i]) << "row " << i;
  }
}

// An int64 expression that fails (with an error class) on the value -1, else passes x through.
ExprPtr FailOnMinusOne(ExprPtr x) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCall;
  e->type = DataType::Int64();
  e->name = "fail_on_minus_one";
  e->children = {std::move(x)};
  e->kernel = [](std::span<const Arg> args, size_t rows, const EvalContext&, Vector* out) {
    for (size_t i = 0; i < rows; ++i) {
      size_t r = args[0].index(i);
      if (args[0].vector->IsNull(r)) {
        out->AppendNull();
        continue;
      }
      int64_t v = args[0].vector->data<int64_t>()[r];
      if (v == -1) return Status::InvalidArgument("bad row", "INVALID_PARAMETER_VALUE");
      out->Append<int64_t>(v);
    }
    return Status::OK();
  };
  return e;
}

TEST(ParallelOperatorsTest, SortMatchesSerialOnNormalizedAndComparatorPaths) {
  const Schema schema = TestSchema();
  const RowList rows = TestRows();
  // One int key with ties (radix sort; ties keep input order), and a string key plus a
  // descending int (comparator sort: runs merged in parallel slices).
  ExpectSameAtAllThreadCounts([&] {
    return std::make_unique<SortOperator>(
        MakeSource(schema, rows),
        std::vector<SortKey>{MakeSortKey(Col(1, DataType::Int64()), true)});
  });
  ExpectSameAtAllThreadCounts([&] {
    return std::make_unique<SortOperator>(
        MakeSource(schema, rows),
        std::vector<SortKey>{MakeSortKey(Col(3, DataType::String()), true),
                             SortKey{Col(1, DataType::Int64()), false, false}});
  });
}

TEST(ParallelOperatorsTest, SortOutputIsOrderedAndStable) {
  // Independent of the serial run: the parallel result itself is sorted, ties in input order.
  ThreadPool pool(7);
  ExecContext ctx;
  ctx.pool = &pool;
  SortOperator op(MakeSource(TestSchema(), TestRows()),
                  {MakeSortKey(Col(3, DataType::String()), true)});
  EXPECT_EQ(testing::ExpectSortedAndStable(testing::Collect(op, ctx), 3, 2), kRows);
}

TEST(ParallelOperatorsTest, TopNMatchesSerialIncludingTies) {
  const Schema schema = TestSchema();
  const RowList rows = TestRows();
  for (int64_t limit : {1, 100, 5000}) {
    SCOPED_TRACE("limit=" + std::to_string(limit));
    // val has ~600 rows per value: the limit cuts through ties, which keep their input order.
    ExpectSameAtAllThreadCounts([&] {
      return std::make_unique<TopNOperator>(
          MakeSource(schema, rows),
          std::vector<SortKey>{SortKey{Col(1, DataType::Int64()), false, false}}, limit,
          /*offset=*/7);
    });
  }
  ExpectSameAtAllThreadCounts([&] {
    return std::make_unique<TopNOperator>(
        MakeSource(schema, rows),
        std::vector<SortKey>{
            MakeSortKey(Col(3, DataType::String()), true),
            MakeSortKey(testing::AddInt64(Col(1, DataType::Int64()), Col(0, DataType::Int64())),
                        false)},
        300);
  });
}

std::vector<WindowFunction> TestWindowFunctions() {
  BindContext bind;
  std::vector<WindowFunction> fns;
  for (const char* name : {"row_number", "rank", "dense_rank", "cume_dist"}) {
    auto f = BindWindowFunction(name, {});
    EXPECT_TRUE(f.ok()) << f.status().ToString();
    fns.push_back(*f);
  }
  auto lag = BindWindowFunction("lag", {Col(2, DataType::Int64())});
  EXPECT_TRUE(lag.ok()) << lag.status().ToString();
  fns.push_back(*lag);
  auto first = BindWindowFunction("first_value", {Col(2, DataType::Int64())});
  EXPECT_TRUE(first.ok()) << first.status().ToString();
  fns.push_back(*first);
  auto sum = BindAggregateFunction("sum", {Col(1, DataType::Int64())}, false, bind);
  EXPECT_TRUE(sum.ok()) << sum.status().ToString();
  // Running sum (default frame) and a sliding ROWS frame (segment tree).
  fns.push_back(MakeAggregateWindowFunction("sum", *sum));
  fns.push_back(MakeAggregateWindowFunction("sum", *sum,
                                            WindowFrame{WindowFrameType::kRows,
                                                        {WindowBoundKind::kPreceding, I64(3)},
                                                        {WindowBoundKind::kFollowing, I64(2)}}));
  return fns;
}

TEST(ParallelOperatorsTest, WindowMatchesSerialWithSkewedPartitions) {
  const Schema schema = TestSchema();
  const RowList rows = TestRows();
  ExpectSameAtAllThreadCounts([&] {
    return std::make_unique<WindowOperator>(
        MakeSource(schema, rows), std::vector<ExprPtr>{Col(0, DataType::Int64())},
        std::vector<SortKey>{MakeSortKey(Col(1, DataType::Int64()), true)}, TestWindowFunctions());
  });
  // No PARTITION BY: one partition (nothing to split), still the same rows.
  ExpectSameAtAllThreadCounts([&] {
    return std::make_unique<WindowOperator>(
        MakeSource(schema, rows), std::vector<ExprPtr>{},
        std::vector<SortKey>{MakeSortKey(Col(2, DataType::Int64()), false)}, TestWindowFunctions());
  });
}

// A parallel source that pushes every chunk from worker 0 (as a scan of one small work unit
// does), so a join above it has to spread its probe over the pool itself.
class OneWorkerPushSource final : public Operator {
 public:
  explicit OneWorkerPushSource(std::unique_ptr<Operator> inner) : inner_(std::move(inner)) {
    schema_ = inner_->output_schema();
  }
  Result<bool> Next(ExecContext& ctx, DataChunk* out) override { return inner_->Next(ctx, out); }
  Result<bool> PushAll(ExecContext& ctx, size_t, const ChunkSink& sink) override {
    DataChunk c;
    while (true) {
      SILT_ASSIGN_OR_RETURN(bool more, inner_->Next(ctx, &c));
      if (!more) return true;
      SILT_RETURN_NOT_OK(sink(0, c));
    }
  }
  std::string name() const override { return "OneWorkerPushSource"; }

 private:
  std::unique_ptr<Operator> inner_;
};

TEST(ParallelOperatorsTest, HashJoinProbeOfAOneWorkerSourceMatchesSerial) {
  // Probe: 20k rows in 40 chunks (past the first 4 x threads, which never split), keys 0..1999
  // (10 each); build: 20k rows, key 0 matching 5000 of them
  // (skew), the others ~7 each: a probe row yields many output rows.
  const Schema probe_schema = Fields({{"pk", DataType::Int64()}, {"pid", DataType::Int64()}});
  const Schema build_schema = Fields({{"bk", DataType::Int64()}, {"bid", DataType::Int64()}});
  RowList probe_rows, build_rows;
  for (int64_t i = 0; i < 20000; ++i) probe_rows.push_back({I64(i % 2000), I64(i)});
  for (int64_t i = 0; i < 20000; ++i)
    build_rows.push_back({I64(i < 5000 ? 0 : i % 2500 + 1000), I64(i)});
  for (JoinType type :
       {JoinType::kInner, JoinType::kLeftOuter, JoinType::kFullOuter, JoinType::kLeftSemi}) {
    SCOPED_TRACE(JoinTypeName(type));
    auto make = [&] {
      return std::make_unique<HashJoinOperator>(
          std::make_unique<OneWorkerPushSource>(MakeSource(probe_schema, probe_rows, 512)),
          MakeSource(build_schema, build_rows), type,
          std::vector<ExprPtr>{Col(0, DataType::Int64())},
          std::vector<ExprPtr>{Col(0, DataType::Int64())}, std::vector<bool>{}, nullptr);
    };
    std::vector<std::string> serial;
    {
      ExecContext ctx;
      auto op = make();
      serial = testing::SortedRows(testing::Collect(*op, ctx));
    }
    ASSERT_GT(serial.size(), 10000u);
    for (size_t workers : {1u, 7u}) {
      SCOPED_TRACE("threads=" + std::to_string(workers + 1));
      ThreadPool pool(workers);
      ExecContext ctx;
      ctx.pool = &pool;
      auto op = make();
      std::mutex mu;
      std::vector<DataChunk> got;
      std::map<size_t, size_t> by_worker;
      Result<bool> pushed = op->PushAll(ctx, workers + 1, [&](size_t w, DataChunk& c) {
        std::lock_guard<std::mutex> lock(mu);
        ++by_worker[w];
        got.push_back(c);
        return Status::OK();
      });
      ASSERT_TRUE(pushed.ok()) << pushed.status().ToString();
      ASSERT_TRUE(*pushed);
      EXPECT_EQ(testing::SortedRows(got), serial);
      // Every chunk reaches the sink on the worker that pushed its input.
      EXPECT_EQ(by_worker.size(), 1u);
    }
  }
}

TEST(ParallelOperatorsTest, ErrorsInWorkerTasksBecomeTheOperatorsStatus) {
  RowList rows = TestRows();
  rows[kRows - 5][1] = I64(-1);  // late in the input: seen by a worker of a parallel batch
  for (size_t workers : {0u, 1u, 7u}) {
    SCOPED_TRACE("threads=" + std::to_string(workers + 1));
    std::unique_ptr<ThreadPool> pool = workers ? std::make_unique<ThreadPool>(workers) : nullptr;
    ExecContext ctx;
    ctx.pool = pool.get();
    TopNOperator topn(MakeSource(TestSchema(), rows),
                      {MakeSortKey(FailOnMinusOne(Col(1, DataType::Int64())), true)}, 10);
    Status st = testing::CollectStatus(topn, ctx);
    EXPECT_FALSE(st.ok());
    EXPECT_EQ(st.error_class(), "INVALID_PARAMETER_VALUE") << st.ToString();
    // A window aggregate whose argument fails is evaluated before the partitions are split.
    WindowOperator window(
        MakeSource(TestSchema(), rows), {Col(0, DataType::Int64())},
        {MakeSortKey(Col(2, DataType::Int64()), true)},
        {*BindWindowFunction("lag", {FailOnMinusOne(Col(1, DataType::Int64()))})});
    st = testing::CollectStatus(window, ctx);
    EXPECT_FALSE(st.ok());
    EXPECT_EQ(st.error_class(), "INVALID_PARAMETER_VALUE") << st.ToString();
  }
}

TEST(ParallelOperatorsTest, CancellationStopsParallelOperators) {
  ThreadPool pool(3);
  std::atomic<bool> cancelled{true};
  ExecContext ctx;
  ctx.pool = &pool;
  ctx.cancelled = &cancelled;
  TopNOperator topn(MakeSource(TestSchema(), TestRows()),
                    {MakeSortKey(Col(1, DataType::Int64()), true)}, 10);
  Status st = testing::CollectStatus(topn, ctx);
  EXPECT_EQ(st.code(), StatusCode::kCancelled) << st.ToString();
  SortOperator sort(MakeSource(TestSchema(), TestRows()),
                    {MakeSortKey(Col(1, DataType::Int64()), true)});
  st = testing::CollectStatus(sort, ctx);
  EXPECT_EQ(st.code(), StatusCode::kCancelled) << st.ToString();
}

}  // namespace
}  // namespace silt::exec
