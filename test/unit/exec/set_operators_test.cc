#include "exec/set_operators.h"

#include <gtest/gtest.h>

#include <cmath>

#include "agg_test_util.h"
#include "exec/row_hash.h"

namespace silt::exec {
namespace {

using namespace silt::exec::aggtest;  // NOLINT

OperatorPtr Src(DataChunk data, size_t chunk_rows = 2) {
  Schema s = SchemaOf(data);
  return std::make_unique<ChunkSource>(s, Split(data, chunk_rows));
}

// Two columns (int, string) with duplicates and NULLs.
DataChunk Left() {
  auto i = DataType::Int32();
  auto s = DataType::String();
  return Chunk({Col(i, {I32(1), I32(1), I32(1), I32(2), Null(i), Null(i), I32(3)}),
                Col(s, {Str("a"), Str("a"), Str("a"), Str("b"), Null(s), Null(s), Str("c")})});
}
DataChunk Right() {
  auto i = DataType::Int32();
  auto s = DataType::String();
  return Chunk({Col(i, {I32(1), I32(1), Null(i), I32(2), I32(4)}),
                Col(s, {Str("a"), Str("a"), Null(s), Str("x"), Str("d")})});
}

std::vector<std::string> Rows(OperatorPtr op) {
  ExecContext ctx;
  return SortedRows(*op, ctx);
}

TEST(SetOperatorsTest, Distinct) {
  EXPECT_EQ(Rows(std::make_unique<DistinctOperator>(Src(Left()))),
            (std::vector<std::string>{"1|\"a\"", "2|\"b\"", "3|\"c\"", "null|null"}));
  auto d = DataType::Double();
  EXPECT_EQ(Rows(std::make_unique<DistinctOperator>(
                     Src(Chunk({Col(d, {Dbl(NAN), Dbl(-0.0), Dbl(0.0), Dbl(NAN)})}))))
                .size(),
            2u);
  auto empty = std::make_unique<DistinctOperator>(std::make_unique<ChunkSource>(
      Schema{{"a", DataType::Int32(), true, ""}}, std::vector<DataChunk>{}));
  EXPECT_TRUE(Rows(std::move(empty)).empty());
}

TEST(SetOperatorsTest, DistinctStreamsFirstAppearances) {
  auto i = DataType::Int64();
  auto op = std::make_unique<DistinctOperator>(
      Src(Chunk({Col(i, {I64(5), I64(5), I64(7), I64(5), I64(8), I64(7)})}), 2));
  ExecContext ctx;
  auto chunks = CollectAll(*op, ctx);
  ASSERT_TRUE(chunks.ok());
  std::vector<std::string> order;
  for (const DataChunk& c : *chunks) {
    for (size_t r = 0; r < c.size(); ++r) order.push_back(RowString(c, r));
  }
  EXPECT_EQ(order, (std::vector<std::string>{"5", "7", "8"}));
}

TEST(SetOperatorsTest, UnionAllAndUnion) {
  std::vector<OperatorPtr> kids;
  kids.push_back(Src(Left()));
  kids.push_back(Src(Right()));
  EXPECT_EQ(Rows(std::make_unique<UnionAllOperator>(std::move(kids))).size(), 12u);
  std::vector<OperatorPtr> kids2;
  kids2.push_back(Src(Left()));
  kids2.push_back(Src(Right()));
  EXPECT_EQ(Rows(MakeUnionDistinct(std::move(kids2))),
            (std::vector<std::string>{"1|\"a\"", "2|\"b\"", "2|\"x\"", "3|\"c\"", "4|\"d\"",
                                      "null|null"}));
}

TEST(SetOperatorsTest, UnionAllNullability) {
  Schema a{{"x", DataType::Int32(), false, ""}};
  Schema b{{"y", DataType::Int32(), true, ""}};
  std::vector<OperatorPtr> kids;
  kids.push_back(std::make_unique<ChunkSource>(a, std::vector<DataChunk>{}));
  kids.push_back(std::make_unique<ChunkSource>(b, std::vector<DataChunk>{}));
  UnionAllOperator u(std::move(kids));
  EXPECT_EQ(u.output_schema()[0].name, "x");
  EXPECT_TRUE(u.output_schema()[0].nullable);
}

TEST(SetOperatorsTest, Intersect) {
  EXPECT_EQ(Rows(std::make_unique<SetOperator>(SetOpKind::kIntersect, Src(Left()), Src(Right()))),
            (std::vector<std::string>{"1|\"a\"", "null|null"}));  // NULLs compare equal
  EXPECT_EQ(
      Rows(std::make_unique<SetOperator>(SetOpKind::kIntersectAll, Src(Left()), Src(Right()))),
      (std::vector<std::string>{"1|\"a\"", "1|\"a\"", "null|null"}));
}

TEST(SetOperatorsTest, Except) {
  EXPECT_EQ(Rows(std::make_unique<SetOperator>(SetOpKind::kExcept, Src(Left()), Src(Right()))),
            (std::vector<std::string>{"2|\"b\"", "3|\"c\""}));
  EXPECT_EQ(Rows(std::make_unique<SetOperator>(SetOpKind::kExceptAll, Src(Left()), Src(Right()))),
            (std::vector<std::string>{"1|\"a\"", "2|\"b\"", "3|\"c\"", "null|null"}));
  // Against an empty right side everything (deduplicated for EXCEPT) remains.
  auto empty = [] {
    return std::make_unique<ChunkSource>(SchemaOf(Right()), std::vector<DataChunk>{});
  };
  EXPECT_EQ(Rows(std::make_unique<SetOperator>(SetOpKind::kExcept, Src(Left()), empty())).size(),
            4u);
  EXPECT_EQ(Rows(std::make_unique<SetOperator>(SetOpKind::kExceptAll, Src(Left()), empty())).size(),
            7u);
  EXPECT_TRUE(
      Rows(std::make_unique<SetOperator>(SetOpKind::kIntersect, Src(Left()), empty())).empty());
}

TEST(SetOperatorsTest, ExceptAllLargeCounts) {
  // One row 5000 times minus 1200 times: the copies span several output chunks.
  auto i = DataType::Int64();
  Vector l(i), r(i);
  for (int k = 0; k < 5000; ++k) l.Append<int64_t>(42);
  for (int k = 0; k < 1200; ++k) r.Append<int64_t>(42);
  auto op = std::make_unique<SetOperator>(SetOpKind::kExceptAll, Src(Chunk({std::move(l)}), 1000),
                                          Src(Chunk({std::move(r)}), 1000));
  ExecContext ctx;
  auto chunks = CollectAll(*op, ctx);
  ASSERT_TRUE(chunks.ok());
  size_t rows = 0;
  for (const DataChunk& c : *chunks) {
    EXPECT_LE(c.size(), kChunkRows);
    rows += c.size();
  }
  EXPECT_EQ(rows, 3800u);
}

TEST(SetOperatorsTest, MemoryLimit) {
  auto i = DataType::Int64();
  Vector l(i);
  for (int k = 0; k < 100000; ++k) l.Append<int64_t>(k);
  MemoryTracker tracker("q", 256 << 10);
  ExecContext ctx;
  ctx.memory = &tracker;
  DistinctOperator op(Src(Chunk({std::move(l)}), 2048));
  Status st;
  SortedRows(op, ctx, &st);
  EXPECT_EQ(st.error_class(), "SILT_MEMORY_LIMIT_EXCEEDED");
}

TEST(RowHashTest, HashAndEquality) {
  auto s = DataType::String();
  Vector a = Col(s, {Str("x"), Null(s), Str("")});
  Vector b = Col(s, {Str(""), Str("x"), Null(s)});
  uint64_t ha[3], hb[3];
  HashColumn(a, 3, ha, false);
  HashColumn(b, 3, hb, false);
  EXPECT_EQ(ha[0], hb[1]);
  EXPECT_EQ(ha[1], hb[2]);
  EXPECT_EQ(ha[2], hb[0]);
  EXPECT_NE(ha[0], ha[2]);
  EXPECT_TRUE(ValuesEqualAt(a, 1, b, 2, NullEquality::kNullsEqual));
  EXPECT_FALSE(ValuesEqualAt(a, 1, b, 2, NullEquality::kNullsNeverEqual));
  // NULL slots with arbitrary defined data hash alike.
  Vector x(DataType::Int64());
  x.Append<int64_t>(7);
  x.Append<int64_t>(9);
  x.SetValid(0, false);
  x.SetValid(1, false);
  uint64_t hx[2];
  HashColumn(x, 2, hx, false);
  EXPECT_EQ(hx[0], hx[1]);
  EXPECT_EQ(hx[0], kNullHash);
  // Column-wise match refinement.
  uint32_t arow[3] = {0, 1, 2}, brow[3] = {1, 2, 0}, cand[3] = {0, 1, 2}, miss[3];
  size_t nmiss = 0;
  EXPECT_EQ(MatchColumn(a, arow, b, brow, cand, 3, NullEquality::kNullsEqual, miss, &nmiss), 3u);
  size_t nmiss2 = 0;
  uint32_t cand2[3] = {0, 1, 2};
  EXPECT_EQ(MatchColumn(a, arow, b, brow, cand2, 3, NullEquality::kNullsNeverEqual, miss, &nmiss2),
            2u);
  EXPECT_EQ(nmiss2, 1u);
  EXPECT_EQ(miss[0], 1u);
  // Nested values.
  auto lt = DataType::List(DataType::Int32());
  Vector l1 =
      Col(lt, {Value::Nested(lt, {I32(1), Null(DataType::Int32())}), Value::Nested(lt, {I32(1)})});
  Vector l2 = Col(lt, {Value::Nested(lt, {I32(1), Null(DataType::Int32())})});
  EXPECT_TRUE(ValuesEqualAt(l1, 0, l2, 0, NullEquality::kNullsNeverEqual));
  EXPECT_FALSE(ValuesEqualAt(l1, 1, l2, 0, NullEquality::kNullsEqual));
  EXPECT_EQ(HashValueAt(l1, 0), HashValueAt(l2, 0));
  // Multi-column row hashes are order-sensitive.
  Vector p = Col(DataType::Int32(), {I32(1), I32(2)});
  Vector q = Col(DataType::Int32(), {I32(2), I32(1)});
  const Vector* pq[2] = {&p, &q};
  uint64_t h[2];
  HashRows(pq, 2, h);
  EXPECT_NE(h[0], h[1]);
  EXPECT_TRUE(RowsEqual(pq, 0, pq, 0, NullEquality::kNullsEqual));
  EXPECT_FALSE(RowsEqual(pq, 0, pq, 1, NullEquality::kNullsEqual));
}

}  // namespace
}  // namespace silt::exec
