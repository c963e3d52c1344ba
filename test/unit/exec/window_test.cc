#include "exec/window.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>

#include "unit/exec/exec_test_util.h"

namespace silt::exec {
namespace {

using testing::Col;
using testing::Fields;
using testing::I64;
using testing::MakeSource;
using testing::NullI64;
using RowList = std::vector<std::vector<Value>>;

// Test-only aggregates over the AggregateFunction interface: sum(int64) (NULL when no non-NULL
// input) and count(x) / count(*) (no args).
class TestSum final : public AggregateFunction {
 public:
  TestSum() { result_type_ = DataType::Int64(); }
  struct State {
    int64_t sum;
    bool any;
  };
  size_t state_size() const override { return sizeof(State); }
  void Init(uint8_t* s) const override { *reinterpret_cast<State*>(s) = State{0, false}; }
  Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                const EvalContext&) const override {
    const Vector& v = *args[0].vector;
    for (size_t i = 0; i < rows; ++i) {
      size_t r = args[0].index(i);
      if (v.IsNull(r)) continue;
      auto* st = reinterpret_cast<State*>(states[i]);
      st->sum += v.data<int64_t>()[r];
      st->any = true;
    }
    return Status::OK();
  }
  Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext&) const override {
    auto* d = reinterpret_cast<State*>(dst);
    const auto* s = reinterpret_cast<const State*>(src);
    d->sum += s->sum;
    d->any |= s->any;
    return Status::OK();
  }
  Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                  const EvalContext&) const override {
    for (size_t i = 0; i < n; ++i) {
      const auto* s = reinterpret_cast<const State*>(states[i]);
      if (s->any) {
        out->Append<int64_t>(s->sum);
      } else {
        out->AppendNull();
      }
    }
    return Status::OK();
  }
};

class TestCount final : public AggregateFunction {
 public:
  TestCount() { result_type_ = DataType::Int64(); }
  size_t state_size() const override { return 8; }
  void Init(uint8_t* s) const override { *reinterpret_cast<int64_t*>(s) = 0; }
  Status Update(std::span<const Arg> args, size_t rows, uint8_t* const* states,
                const EvalContext&) const override {
    for (size_t i = 0; i < rows; ++i) {
      if (!args.empty() && args[0].vector->IsNull(args[0].index(i))) continue;
      ++*reinterpret_cast<int64_t*>(states[i]);
    }
    return Status::OK();
  }
  Status Combine(const uint8_t* src, uint8_t* dst, const EvalContext&) const override {
    *reinterpret_cast<int64_t*>(dst) += *reinterpret_cast<const int64_t*>(src);
    return Status::OK();
  }
  Status Finalize(const uint8_t* const* states, size_t n, Vector* out,
                  const EvalContext&) const override {
    for (size_t i = 0; i < n; ++i)
      out->Append<int64_t>(*reinterpret_cast<const int64_t*>(states[i]));
    return Status::OK();
  }
};

WindowFunction Sum(ExprPtr x, std::optional<WindowFrame> frame) {
  return MakeAggregateWindowFunction("sum", BoundAggregate{std::make_shared<TestSum>(), {x}},
                                     frame);
}
WindowFunction CountStar(std::optional<WindowFrame> frame) {
  return MakeAggregateWindowFunction("count", BoundAggregate{std::make_shared<TestCount>(), {}},
                                     frame);
}

WindowFunction Bind(std::string name, std::vector<ExprPtr> args, bool ignore_nulls = false,
                    std::optional<WindowFrame> frame = std::nullopt) {
  Result<WindowFunction> f = BindWindowFunction(name, std::move(args), ignore_nulls);
  EXPECT_TRUE(f.ok()) << f.status().ToString();
  WindowFunction w = *f;
  w.frame = frame;
  return w;
}

WindowBound B(WindowBoundKind k, int64_t off = 0) { return WindowBound{k, Value::Int64(off)}; }
WindowFrame Frame(WindowFrameType t, WindowBound s, WindowBound e) { return WindowFrame{t, s, e}; }

constexpr auto UP = WindowBoundKind::kUnboundedPreceding;
constexpr auto PR = WindowBoundKind::kPreceding;
constexpr auto CR = WindowBoundKind::kCurrentRow;
constexpr auto FO = WindowBoundKind::kFollowing;
constexpr auto UF = WindowBoundKind::kUnboundedFollowing;

// Columns: id, p (partition), o (order), v (value).
Schema TestSchema() {
  return Fields({{"id", DataType::Int64()},
                 {"p", DataType::Int64()},
                 {"o", DataType::Int64()},
                 {"v", DataType::Int64()}});
}

RowList RandomData(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  RowList rows;
  for (size_t i = 0; i < n; ++i) {
    Value p = rng() % 9 == 0 ? NullI64() : I64(rng() % 4);
    Value o = rng() % 7 == 0 ? NullI64() : I64(rng() % 12);
    Value v = rng() % 4 == 0 ? NullI64() : I64(static_cast<int64_t>(rng() % 100) - 20);
    rows.push_back({I64(static_cast<int64_t>(i)), p, o, v});
  }
  return rows;
}

// ---------------------------------------------------------------- reference

struct Ref {
  const RowList& rows;
  bool asc, nulls_first;
  std::vector<std::vector<size_t>> parts;  // sorted row indices per partition

  Ref(const RowList& r, bool a, bool nf) : rows(r), asc(a), nulls_first(nf) {
    std::vector<size_t> idx(rows.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    auto pcmp = [&](const Value& x, const Value& y) {
      if (x.is_null() || y.is_null()) return int(y.is_null()) - int(x.is_null());
      return int(x.integer() > y.integer()) - int(x.integer() < y.integer());
    };
    std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) {
      int c = pcmp(rows[x][1], rows[y][1]);
      if (c) return c < 0;
      return OrderCmp(rows[x][2], rows[y][2]) < 0;
    });
    for (size_t i = 0; i < idx.size(); ++i) {
      if (i == 0 || pcmp(rows[idx[i - 1]][1], rows[idx[i]][1]) != 0) parts.emplace_back();
      parts.back().push_back(idx[i]);
    }
  }
  // Spark ordering of order keys under (asc, nulls_first).
  int OrderCmp(const Value& x, const Value& y) const {
    if (x.is_null() || y.is_null()) {
      if (x.is_null() && y.is_null()) return 0;
      return (x.is_null() ? -1 : 1) * (nulls_first ? 1 : -1);
    }
    int c = int(x.integer() > y.integer()) - int(x.integer() < y.integer());
    return asc ? c : -c;
  }
  std::vector<size_t> SortedIds() const {
    std::vector<size_t> out;
    for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
  }
  // Frame of position i in partition `part` as a list of positions, by definition.
  std::vector<size_t> FrameOf(const std::vector<size_t>& part, size_t i,
                              const WindowFrame& f) const {
    std::vector<size_t> out;
    const Value& cur = rows[part[i]][2];
    auto bound_value = [&](WindowBoundKind k, const Value& off) -> Value {
      if (cur.is_null()) return cur;
      int64_t d = off.integer();
      bool plus = (k == FO) == asc;
      return I64(cur.integer() + (plus ? d : -d));
    };
    for (size_t q = 0; q < part.size(); ++q) {
      bool ok = true;
      if (f.type == WindowFrameType::kRows) {
        int64_t s = f.start.kind == UP   ? INT64_MIN
                    : f.start.kind == CR ? int64_t(i)
                    : f.start.kind == PR ? int64_t(i) - f.start.offset.integer()
                                         : int64_t(i) + f.start.offset.integer();
        int64_t e = f.end.kind == UF   ? INT64_MAX
                    : f.end.kind == CR ? int64_t(i)
                    : f.end.kind == PR ? int64_t(i) - f.end.offset.integer()
                                       : int64_t(i) + f.end.offset.integer();
        ok = int64_t(q) >= s && int64_t(q) <= e;
      } else {
        const Value& x = rows[part[q]][2];
        if (f.start.kind != UP) {
          Value b = f.start.kind == CR ? cur : bound_value(f.start.kind, f.start.offset);
          ok = ok && OrderCmp(x, b) >= 0;
        }
        if (f.end.kind != UF) {
          Value b = f.end.kind == CR ? cur : bound_value(f.end.kind, f.end.offset);
          ok = ok && OrderCmp(x, b) <= 0;
        }
      }
      if (ok) out.push_back(q);
    }
    return out;
  }
};

std::string Json(const Value& v) { return v.ToJson(); }

// Expected value (JSON) of a frame function for the row at position i.
std::string RefFrameFn(const Ref& ref, const std::vector<size_t>& part, size_t i,
                       const WindowFrame& f, const std::string& fn, bool ignore_nulls, int64_t n) {
  std::vector<size_t> fr = ref.FrameOf(part, i, f);
  std::vector<Value> vals;
  for (size_t q : fr) {
    const Value& v = ref.rows[part[q]][3];
    if (ignore_nulls && v.is_null()) continue;
    vals.push_back(v);
  }
  if (fn == "sum") {
    bool any = false;
    int64_t s = 0;
    for (const Value& v : vals) {
      if (!v.is_null()) {
        any = true;
        s += v.integer();
      }
    }
    return any ? std::to_string(s) : "null";
  }
  if (fn == "count") return std::to_string(fr.size());
  if (fn == "first") return vals.empty() ? "null" : Json(vals.front());
  if (fn == "last") return vals.empty() ? "null" : Json(vals.back());
  if (fn == "nth") return int64_t(vals.size()) >= n ? Json(vals[n - 1]) : "null";
  return "?";
}

struct FnCase {
  std::string fn;  // sum, count, first, last, nth
  bool ignore_nulls;
  int64_t n;
};

void CheckFrame(const RowList& rows, bool asc, bool nf, const WindowFrame& frame) {
  std::vector<FnCase> cases = {{"sum", false, 0},  {"count", false, 0}, {"first", false, 0},
                               {"last", false, 0}, {"first", true, 0},  {"last", true, 0},
                               {"nth", false, 2},  {"nth", true, 2}};
  std::vector<WindowFunction> fns;
  ExprPtr v = Col(3, DataType::Int64());
  for (const FnCase& c : cases) {
    if (c.fn == "sum") {
      fns.push_back(Sum(v, frame));
    } else if (c.fn == "count") {
      fns.push_back(CountStar(frame));
    } else if (c.fn == "first") {
      fns.push_back(Bind("first_value", {v}, c.ignore_nulls, frame));
    } else if (c.fn == "last") {
      fns.push_back(Bind("last_value", {v}, c.ignore_nulls, frame));
    } else {
      fns.push_back(Bind("nth_value", {v, MakeConstant(I64(c.n))}, c.ignore_nulls, frame));
    }
  }
  WindowOperator op(MakeSource(TestSchema(), rows, 97), {Col(1, DataType::Int64())},
                    {SortKey{Col(2, DataType::Int64()), asc, nf}}, fns);
  ExecContext ctx;
  auto chunks = testing::Collect(op, ctx);
  Ref ref(rows, asc, nf);
  std::vector<size_t> ids = ref.SortedIds();
  // Position of each id inside its partition.
  std::vector<std::pair<size_t, size_t>> where(rows.size());
  for (size_t p = 0; p < ref.parts.size(); ++p) {
    for (size_t i = 0; i < ref.parts[p].size(); ++i) where[ref.parts[p][i]] = {p, i};
  }
  size_t k = 0;
  for (const DataChunk& c : chunks) {
    for (size_t r = 0; r < c.size(); ++r, ++k) {
      size_t id = static_cast<size_t>(c.columns[0].data<int64_t>()[r]);
      ASSERT_EQ(id, ids[k]) << "output order";
      auto [p, i] = where[id];
      for (size_t f = 0; f < cases.size(); ++f) {
        std::string expected =
            RefFrameFn(ref, ref.parts[p], i, frame, cases[f].fn, cases[f].ignore_nulls, cases[f].n);
        ASSERT_EQ(c.columns[4 + f].GetValue(r).ToJson(), expected)
            << cases[f].fn << (cases[f].ignore_nulls ? " ignore nulls" : "") << " id=" << id
            << " asc=" << asc << " nulls_first=" << nf << " frame type " << int(frame.type) << " "
            << int(frame.start.kind) << " " << int(frame.end.kind);
      }
    }
  }
  EXPECT_EQ(k, rows.size());
}

TEST(WindowTest, FramesAgainstReference) {
  RowList rows = RandomData(400, 11);
  std::vector<WindowFrame> frames = {
      Frame(WindowFrameType::kRows, B(UP), B(CR)),
      Frame(WindowFrameType::kRows, B(PR, 2), B(FO, 1)),
      Frame(WindowFrameType::kRows, B(FO, 1), B(FO, 3)),
      Frame(WindowFrameType::kRows, B(PR, 3), B(PR, 1)),
      Frame(WindowFrameType::kRows, B(CR), B(UF)),
      Frame(WindowFrameType::kRows, B(UP), B(UF)),
      Frame(WindowFrameType::kRows, B(CR), B(CR)),
      Frame(WindowFrameType::kRows, B(UP), B(PR, 2)),
      Frame(WindowFrameType::kRange, B(UP), B(CR)),
      Frame(WindowFrameType::kRange, B(PR, 2), B(CR)),
      Frame(WindowFrameType::kRange, B(PR, 1), B(FO, 1)),
      Frame(WindowFrameType::kRange, B(CR), B(UF)),
      Frame(WindowFrameType::kRange, B(CR), B(CR)),
      Frame(WindowFrameType::kRange, B(FO, 2), B(FO, 5)),
      Frame(WindowFrameType::kRange, B(UP), B(PR, 1)),
      Frame(WindowFrameType::kRange, B(UP), B(FO, 3)),
  };
  for (const WindowFrame& f : frames) {
    for (bool asc : {true, false}) {
      for (bool nf : {true, false}) {
        CheckFrame(rows, asc, nf, f);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

TEST(WindowTest, DefaultFrames) {
  // With ORDER BY: RANGE UNBOUNDED PRECEDING..CURRENT ROW (peers included); without: the whole
  // partition.
  Schema s = TestSchema();
  RowList rows = {{I64(0), I64(1), I64(1), I64(10)},
                  {I64(1), I64(1), I64(2), I64(20)},
                  {I64(2), I64(1), I64(2), I64(30)},
                  {I64(3), I64(2), I64(5), I64(1)}};
  ExecContext ctx;
  {
    WindowOperator op(MakeSource(s, rows), {Col(1, DataType::Int64())},
                      {MakeSortKey(Col(2, DataType::Int64()), true)},
                      {Sum(Col(3, DataType::Int64()), std::nullopt)});
    auto got = testing::Rows(testing::Collect(op, ctx));
    EXPECT_EQ(got, (std::vector<std::string>{"[0,1,1,10,10]", "[1,1,2,20,60]", "[2,1,2,30,60]",
                                             "[3,2,5,1,1]"}));
  }
  {
    WindowOperator op(MakeSource(s, rows), {Col(1, DataType::Int64())}, {},
                      {Sum(Col(3, DataType::Int64()), std::nullopt), CountStar(std::nullopt)});
    auto got = testing::Rows(testing::Collect(op, ctx));
    EXPECT_EQ(got, (std::vector<std::string>{"[0,1,1,10,60,3]", "[1,1,2,20,60,3]",
                                             "[2,1,2,30,60,3]", "[3,2,5,1,1,1]"}));
  }
  {
    // No PARTITION BY, no ORDER BY: one partition, input order kept.
    WindowOperator op(MakeSource(s, rows), {}, {}, {CountStar(std::nullopt)});
    auto got = testing::Rows(testing::Collect(op, ctx));
    EXPECT_EQ(got.size(), 4u);
    EXPECT_EQ(got[0], "[0,1,1,10,4]");
  }
}

TEST(WindowTest, RankingFunctions) {
  Schema s = TestSchema();
  // Partition 1: order keys 5,5,7,NULL,9 ; partition NULL: one row.
  RowList rows = {{I64(0), I64(1), I64(5), I64(0)}, {I64(1), I64(1), I64(7), I64(0)},
                  {I64(2), I64(1), I64(5), I64(0)}, {I64(3), I64(1), NullI64(), I64(0)},
                  {I64(4), I64(1), I64(9), I64(0)}, {I64(5), NullI64(), I64(1), I64(0)}};
  std::vector<WindowFunction> fns = {Bind("row_number", {}), Bind("rank", {}),
                                     Bind("dense_rank", {}), Bind("percent_rank", {}),
                                     Bind("cume_dist", {}),  Bind("ntile", {MakeConstant(I64(2))})};
  EXPECT_EQ(fns[0].result_type->id(), TypeId::kInt32);
  EXPECT_EQ(fns[3].result_type->id(), TypeId::kDouble);
  WindowOperator op(MakeSource(s, rows), {Col(1, DataType::Int64())},
                    {MakeSortKey(Col(2, DataType::Int64()), true)}, fns);
  ExecContext ctx;
  auto got = testing::Rows(testing::Collect(op, ctx));
  std::vector<std::string> expected = {
      "[5,null,1,0,1,1,1,0,1,1]",    // NULL partition first
      "[3,1,null,0,1,1,1,0,0.2,1]",  // NULL order key first (ASC NULLS FIRST)
      "[0,1,5,0,2,2,2,0.25,0.6,1]",  //
      "[2,1,5,0,3,2,2,0.25,0.6,1]",  // peer of the previous row
      "[1,1,7,0,4,4,3,0.75,0.8,2]",  //
      "[4,1,9,0,5,5,4,1,1,2]",
  };
  EXPECT_EQ(got, expected);
}

TEST(WindowTest, NtileDistribution) {
  std::vector<int64_t> ids(10);
  for (int i = 0; i < 10; ++i) ids[i] = i;
  for (int64_t buckets : {1, 3, 4, 10, 15}) {
    WindowOperator op(testing::MakeInt64Source({ids}), {},
                      {MakeSortKey(Col(0, DataType::Int64()), true)},
                      {Bind("ntile", {MakeConstant(I64(buckets))})});
    ExecContext ctx;
    std::vector<int32_t> got;
    for (const DataChunk& c : testing::Collect(op, ctx)) {
      for (size_t r = 0; r < c.size(); ++r) got.push_back(c.columns[1].data<int32_t>()[r]);
    }
    // Spark: the first (10 % b) buckets get one extra row.
    std::vector<int32_t> expected;
    int64_t size = 10 / buckets, rem = 10 % buckets;
    for (int64_t b = 0; b < buckets; ++b) {
      for (int64_t k = 0; k < size + (b < rem ? 1 : 0); ++k)
        expected.push_back(static_cast<int32_t>(b + 1));
    }
    EXPECT_EQ(got, expected) << buckets;
  }
  auto bad = BindWindowFunction("ntile", {MakeConstant(I64(0))});
  EXPECT_EQ(bad.status().error_class(), "INVALID_PARAMETER_VALUE");
}

TEST(WindowTest, LagLead) {
  Schema s = TestSchema();
  RowList rows = {{I64(0), I64(1), I64(1), I64(10)}, {I64(1), I64(1), I64(2), NullI64()},
                  {I64(2), I64(1), I64(3), I64(30)}, {I64(3), I64(1), I64(4), NullI64()},
                  {I64(4), I64(1), I64(5), I64(50)}, {I64(5), I64(2), I64(1), I64(60)}};
  ExprPtr v = Col(3, DataType::Int64());
  std::vector<WindowFunction> fns = {
      Bind("lag", {v}),
      Bind("lag", {v, MakeConstant(I64(2)), MakeConstant(I64(-1))}),
      Bind("lead", {v}),
      Bind("lead", {v, MakeConstant(I64(1))}, /*ignore_nulls=*/true),
      Bind("lag", {v, MakeConstant(I64(1))}, /*ignore_nulls=*/true),
      Bind("lag", {v, MakeConstant(I64(-1))}),                             // = lead(v, 1)
      Bind("lead", {v, MakeConstant(I64(2)), Col(0, DataType::Int64())}),  // default = id
  };
  WindowOperator op(MakeSource(s, rows), {Col(1, DataType::Int64())},
                    {MakeSortKey(Col(2, DataType::Int64()), true)}, fns);
  ExecContext ctx;
  auto got = testing::Rows(testing::Collect(op, ctx));
  std::vector<std::string> expected = {
      "[0,1,1,10,null,-1,null,30,null,null,30]", "[1,1,2,null,10,-1,30,30,10,30,null]",
      "[2,1,3,30,null,10,null,50,10,null,50]",   "[3,1,4,null,30,null,50,50,30,50,3]",
      "[4,1,5,50,null,30,null,null,30,null,4]",  "[5,2,1,60,null,-1,null,null,null,null,5]",
  };
  EXPECT_EQ(got, expected);
}

TEST(WindowTest, BindErrorsAndTypes) {
  EXPECT_EQ(BindWindowFunction("nope", {}).status().error_class(), "UNRESOLVED_ROUTINE");
  EXPECT_EQ(BindWindowFunction("row_number", {MakeConstant(I64(1))}).status().error_class(),
            "WRONG_NUM_ARGS");
  EXPECT_EQ(BindWindowFunction("lag", {}).status().error_class(), "WRONG_NUM_ARGS");
  EXPECT_EQ(BindWindowFunction("nth_value", {Col(0, DataType::Int64()), MakeConstant(I64(0))})
                .status()
                .error_class(),
            "INVALID_PARAMETER_VALUE");
  EXPECT_EQ(BindWindowFunction("lag", {Col(0, DataType::Int64()), Col(1, DataType::Int64())})
                .status()
                .error_class(),
            "DATATYPE_MISMATCH");
  auto lag = BindWindowFunction("LAG", {Col(0, DataType::String())});
  ASSERT_TRUE(lag.ok());
  EXPECT_EQ(lag->result_type->id(), TypeId::kString);
  auto first =
      BindWindowFunction("first", {Col(0, DataType::Int64()), MakeConstant(Value::Boolean(true))});
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first->ignore_nulls);
  EXPECT_TRUE(IsWindowFunction("Dense_Rank"));
  EXPECT_FALSE(IsWindowFunction("sum"));
}

TEST(WindowTest, RangeFrameErrors) {
  Schema s = Fields({{"a", DataType::String()}, {"b", DataType::Int64()}});
  RowList rows = {{Value::String("x"), I64(1)}};
  WindowFrame f = Frame(WindowFrameType::kRange, B(PR, 1), B(CR));
  ExecContext ctx;
  {
    WindowOperator op(MakeSource(s, rows), {}, {MakeSortKey(Col(0, DataType::String()), true)},
                      {Sum(Col(1, DataType::Int64()), f)});
    EXPECT_EQ(testing::CollectStatus(op, ctx).error_class(), "DATATYPE_MISMATCH");
  }
  {
    WindowOperator op(MakeSource(s, rows), {},
                      {MakeSortKey(Col(1, DataType::Int64()), true),
                       MakeSortKey(Col(0, DataType::String()), true)},
                      {Sum(Col(1, DataType::Int64()), f)});
    EXPECT_EQ(testing::CollectStatus(op, ctx).error_class(), "DATATYPE_MISMATCH");
  }
}

TEST(WindowTest, RangeOverDoublesAndDecimals) {
  Schema s = Fields(
      {{"d", DataType::Double()}, {"m", DataType::Decimal(10, 2)}, {"v", DataType::Int64()}});
  RowList rows = {{Value::Double(1.0), Value::Decimal(10, 2, 100), I64(1)},
                  {Value::Double(1.4), Value::Decimal(10, 2, 140), I64(2)},
                  {Value::Double(2.0), Value::Decimal(10, 2, 200), I64(4)},
                  {Value::Double(3.5), Value::Decimal(10, 2, 350), I64(8)}};
  ExecContext ctx;
  // RANGE BETWEEN 0.5 PRECEDING AND CURRENT ROW.
  WindowFrame fd{WindowFrameType::kRange, WindowBound{PR, Value::Double(0.5)}, B(CR)};
  WindowOperator op(MakeSource(s, rows), {}, {MakeSortKey(Col(0, DataType::Double()), true)},
                    {Sum(Col(2, DataType::Int64()), fd)});
  auto got = testing::Rows(testing::Collect(op, ctx));
  EXPECT_EQ(got[0].substr(got[0].rfind(',')), ",1]");
  EXPECT_EQ(got[1].substr(got[1].rfind(',')), ",3]");
  EXPECT_EQ(got[2].substr(got[2].rfind(',')), ",4]");  // 1.4 is below 2.0 - 0.5
  EXPECT_EQ(got[3].substr(got[3].rfind(',')), ",8]");
  WindowFrame fm{WindowFrameType::kRange, WindowBound{PR, Value::Decimal(3, 1, 5)}, B(CR)};
  WindowOperator op2(MakeSource(s, rows), {},
                     {MakeSortKey(Col(1, DataType::Decimal(10, 2)), false)},
                     {Sum(Col(2, DataType::Int64()), fm)});
  got = testing::Rows(testing::Collect(op2, ctx));
  // DESC: 0.5 PRECEDING means keys up to 0.5 above the current one.
  EXPECT_EQ(got[0].substr(got[0].rfind(',')), ",8]");  // 3.50
  EXPECT_EQ(got[1].substr(got[1].rfind(',')), ",4]");  // 2.00
  EXPECT_EQ(got[2].substr(got[2].rfind(',')), ",2]");  // 1.40: 1.40..1.90
  EXPECT_EQ(got[3].substr(got[3].rfind(',')), ",3]");  // 1.00: 1.00..1.50
}

TEST(WindowTest, EmptyInput) {
  WindowOperator op(MakeSource(TestSchema(), {}), {Col(1, DataType::Int64())},
                    {MakeSortKey(Col(2, DataType::Int64()), true)},
                    {Bind("row_number", {}), Sum(Col(3, DataType::Int64()), std::nullopt)});
  ExecContext ctx;
  EXPECT_TRUE(testing::Collect(op, ctx).empty());
  EXPECT_EQ(op.output_schema().size(), 6u);
  EXPECT_FALSE(op.output_schema()[4].nullable);
}

TEST(WindowTest, ManyRowsRunningAndSlidingSums) {
  const size_t n = 200000;
  std::vector<int64_t> id(n), p(n), v(n);
  for (size_t i = 0; i < n; ++i) {
    id[i] = static_cast<int64_t>(i);
    p[i] = static_cast<int64_t>(i % 3);
    v[i] = static_cast<int64_t>(i % 7);
  }
  WindowFrame running = Frame(WindowFrameType::kRows, B(UP), B(CR));
  WindowFrame sliding = Frame(WindowFrameType::kRows, B(PR, 5), B(FO, 5));
  WindowOperator op(testing::MakeInt64Source({id, p, v}), {Col(1, DataType::Int64())},
                    {MakeSortKey(Col(0, DataType::Int64()), true)},
                    {Sum(Col(2, DataType::Int64()), running),
                     Sum(Col(2, DataType::Int64()), sliding), Bind("row_number", {})});
  ExecContext ctx;
  std::vector<std::vector<int64_t>> part_vals(3);
  for (size_t i = 0; i < n; ++i) part_vals[i % 3].push_back(v[i]);
  size_t k = 0;
  int64_t prefix = 0;
  int64_t cur_part = -1;
  for (const DataChunk& c : testing::Collect(op, ctx)) {
    for (size_t r = 0; r < c.size(); ++r, ++k) {
      int64_t part = c.columns[1].data<int64_t>()[r];
      if (part != cur_part) {
        cur_part = part;
        prefix = 0;
      }
      int32_t rn = c.columns[5].data<int32_t>()[r];
      const auto& pv = part_vals[part];
      prefix += pv[rn - 1];
      ASSERT_EQ(c.columns[3].data<int64_t>()[r], prefix);
      int64_t lo = std::max<int64_t>(0, rn - 1 - 5),
              hi = std::min<int64_t>(pv.size() - 1, rn - 1 + 5);
      int64_t s = 0;
      for (int64_t q = lo; q <= hi; ++q) s += pv[q];
      ASSERT_EQ(c.columns[4].data<int64_t>()[r], s);
    }
  }
  EXPECT_EQ(k, n);
}

}  // namespace
}  // namespace silt::exec
