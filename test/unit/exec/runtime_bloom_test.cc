#include "exec/runtime_bloom.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <unordered_set>
#include <vector>

namespace silt::exec {
namespace {

TEST(KeyBloomFilterTest, SupportsIntegersOfAnyWidthStringsAndTheSameTimeType) {
  EXPECT_TRUE(KeyBloomFilter::Supports(*DataType::Int64(), *DataType::Int32()));
  EXPECT_TRUE(KeyBloomFilter::Supports(*DataType::Int32(), *DataType::Int64()));
  EXPECT_TRUE(KeyBloomFilter::Supports(*DataType::Date(), *DataType::Date()));
  EXPECT_TRUE(KeyBloomFilter::Supports(*DataType::String(), *DataType::String()));
  EXPECT_FALSE(KeyBloomFilter::Supports(*DataType::Date(), *DataType::Int32()));
  EXPECT_FALSE(KeyBloomFilter::Supports(*DataType::Timestamp(), *DataType::Date()));
  EXPECT_FALSE(KeyBloomFilter::Supports(*DataType::Double(), *DataType::Double()));
  EXPECT_FALSE(KeyBloomFilter::Supports(*DataType::String(), *DataType::Int64()));
}

// Every build key passes (an INT column probing BIGINT keys), NULL never does, and few of the
// other values do.
TEST(KeyBloomFilterTest, NoFalseNegativesFewFalsePositivesNullsNeverPass) {
  std::mt19937_64 rng(7);
  std::unordered_set<int32_t> keys;
  Vector build(DataType::Int64());
  while (keys.size() < 5000) {
    const int32_t k = static_cast<int32_t>(rng() % 10'000'000);
    if (keys.insert(k).second) build.Append<int64_t>(k);
  }
  build.AppendNull();
  auto f = KeyBloomFilter::Build(build, build.size());
  Vector probe(DataType::Int32());
  for (int32_t k : keys) probe.Append<int32_t>(k);
  const size_t members = probe.size();
  size_t others = 0;
  while (others < 100'000) {
    const int32_t k = static_cast<int32_t>(rng() % 10'000'000);
    if (keys.count(k)) continue;
    probe.Append<int32_t>(k);
    ++others;
  }
  probe.AppendNull();
  std::vector<uint8_t> keep(probe.size(), 9);
  f->Probe(probe, probe.size(), keep.data());
  for (size_t r = 0; r < members; ++r) ASSERT_EQ(keep[r], 1) << r;
  size_t false_positives = 0;
  for (size_t r = members; r < members + others; ++r) false_positives += keep[r];
  EXPECT_LT(false_positives, others / 50);  // < 2%
  EXPECT_EQ(keep.back(), 0);                // NULL
}

TEST(KeyBloomFilterTest, StringsAndAnEmptyFilter) {
  Vector build(DataType::String());
  for (int i = 0; i < 100; ++i) build.AppendString("key-" + std::to_string(i * 7));
  auto f = KeyBloomFilter::Build(build, build.size());
  Vector probe(DataType::String());
  for (int i = 0; i < 700; ++i) probe.AppendString("key-" + std::to_string(i));
  std::vector<uint8_t> keep(probe.size());
  f->Probe(probe, probe.size(), keep.data());
  size_t passed = 0;
  for (int i = 0; i < 700; ++i) {
    if (i % 7 == 0) {
      EXPECT_EQ(keep[static_cast<size_t>(i)], 1) << i;
    }
    passed += keep[static_cast<size_t>(i)];
  }
  EXPECT_LT(passed, 100u + 20u);

  Vector none(DataType::Int64());
  none.AppendNull();
  auto empty = KeyBloomFilter::Build(none, 1);
  Vector p(DataType::Int64());
  for (int64_t i = 0; i < 1000; ++i) p.Append<int64_t>(i);
  std::vector<uint8_t> k2(p.size());
  empty->Probe(p, p.size(), k2.data());
  for (uint8_t k : k2) EXPECT_EQ(k, 0);
}

// As an expression: a non-NULL BOOLEAN over the column, usable as a scan's row filter.
TEST(KeyBloomFilterTest, MightContainExpression) {
  Vector build(DataType::Int32());
  build.Append<int32_t>(3);
  build.Append<int32_t>(11);
  ExprPtr e =
      MakeBloomFilterExpr(KeyBloomFilter::Build(build, 2), MakeColumn(0, DataType::Int32(), "k"));
  EXPECT_EQ(e->ToString(), "might_contain(k)");
  DataChunk in;
  Vector col(DataType::Int32());
  col.Append<int32_t>(3);
  col.AppendNull();
  col.Append<int32_t>(11);
  in.columns.push_back(std::move(col));
  std::vector<uint32_t> sel;
  ASSERT_TRUE(EvaluateFilter(*e, in, EvalContext{}, &sel).ok());
  EXPECT_EQ(sel, (std::vector<uint32_t>{0, 2}));
}

TEST(KeyBloomFilterTest, MemoryIsChargedToTheQueryAndRefusedOverItsLimit) {
  Vector build(DataType::Int64());
  for (int64_t i = 0; i < 100000; ++i) build.Append<int64_t>(i * 3);
  const size_t bytes = KeyBloomFilter::SizeFor(build.size());
  EXPECT_GE(bytes, build.size() * 2);  // ~16 bits per key
  auto query = std::make_shared<MemoryTracker>("query", static_cast<int64_t>(bytes) + 1000);
  {
    auto f = KeyBloomFilter::Build(build, build.size(), query.get());
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    EXPECT_EQ((*f)->size_bytes(), bytes);
    EXPECT_EQ(query->used(), static_cast<int64_t>(bytes));
    // A second one does not fit: refused, nothing more reserved.
    auto g = KeyBloomFilter::Build(build, build.size(), query.get());
    ASSERT_FALSE(g.ok());
    EXPECT_EQ(g.status().error_class(), "SILT_MEMORY_LIMIT_EXCEEDED");
    EXPECT_NE(g.status().ToString().find("runtime bloom filter"), std::string::npos)
        << g.status().ToString();
    EXPECT_EQ(query->used(), static_cast<int64_t>(bytes));
    // The filter works as one built without accounting.
    std::vector<uint8_t> keep(build.size());
    (*f)->Probe(build, build.size(), keep.data());
    for (uint8_t k : keep) ASSERT_EQ(k, 1);
  }
  EXPECT_EQ(query->used(), 0);  // released with the filter
}

}  // namespace
}  // namespace silt::exec
