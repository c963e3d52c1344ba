#include <gtest/gtest.h>

#include <atomic>

#include "common/clock.h"
#include "common/key_filter.h"
#include "common/memory.h"
#include "common/status.h"
#include "common/thread_pool.h"

namespace silt {
namespace {

Result<int> Half(int x) {
  if (x % 2) return Status::InvalidArgument("odd", "SILT_ODD");
  return x / 2;
}

Result<int> Quarter(int x) {
  SILT_ASSIGN_OR_RETURN(int h, Half(x));
  SILT_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(StatusTest, OkAndErrorCarryCodeClassAndMessage) {
  EXPECT_TRUE(Status::OK().ok());
  EXPECT_EQ(Status::OK().ToString(), "OK");
  Status s = Status::Corruption("bad footer", "SILT_PARQUET_CORRUPT");
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_EQ(s.error_class(), "SILT_PARQUET_CORRUPT");
  EXPECT_EQ(s.ToString(), "[SILT_PARQUET_CORRUPT] bad footer");
  EXPECT_EQ(Status::IoError("x").error_class(), "IO_ERROR");
  EXPECT_EQ(s.WithContext("file a.parquet").ToString(),
            "[SILT_PARQUET_CORRUPT] file a.parquet: bad footer");
  Status copy = s;
  EXPECT_EQ(copy.message(), "bad footer");
}

TEST(StatusTest, ResultPropagates) {
  EXPECT_EQ(*Quarter(8), 2);
  auto r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), "SILT_ODD");
  Result<std::string> str = std::string("abc");
  Result<std::string> moved = std::move(str);
  EXPECT_EQ(moved.value(), "abc");
}

TEST(ClockTest, ManualClockMovesOnlyWhenTold) {
  ManualClock c(1000);
  EXPECT_EQ(c.NowMillis(), 1000);
  c.AdvanceHours(1);
  EXPECT_EQ(c.NowMillis(), 1000 + 3600 * 1000);
  c.SetMillis(5);
  EXPECT_EQ(c.NowMicros(), 5000);
  EXPECT_GT(SystemClock::Default()->NowMillis(), 1600000000000LL);
}

TEST(ThreadPoolTest, ParallelForRunsAllAndReportsFirstError) {
  ThreadPool pool(2);
  std::atomic<int> sum{0};
  ASSERT_TRUE(pool.ParallelFor(100,
                               [&](size_t i) {
                                 sum += static_cast<int>(i);
                                 return Status::OK();
                               })
                  .ok());
  EXPECT_EQ(sum.load(), 4950);
  Status s = pool.ParallelFor(10, [&](size_t i) {
    return i == 7 ? Status::IoError("seven") : (i == 3 ? Status::IoError("three") : Status::OK());
  });
  EXPECT_EQ(s.message(), "three");
  // Nested use must not deadlock.
  std::atomic<int> inner{0};
  ASSERT_TRUE(pool.ParallelFor(4,
                               [&](size_t) {
                                 return pool.ParallelFor(4, [&](size_t) {
                                   ++inner;
                                   return Status::OK();
                                 });
                               })
                  .ok());
  EXPECT_EQ(inner.load(), 16);
}

TEST(MemoryTrackerTest, LimitsApplyToAncestors) {
  auto root = std::make_shared<MemoryTracker>("query", 100);
  MemoryTracker child("scan", -1, root);
  ASSERT_TRUE(child.Reserve(60).ok());
  Status s = child.Reserve(50);
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory);
  EXPECT_EQ(child.used(), 60);
  EXPECT_EQ(root->used(), 60);
  child.Release(60);
  EXPECT_EQ(root->used(), 0);
  EXPECT_EQ(root->peak(), 60);
  {
    MemoryReservation r(&child);
    ASSERT_TRUE(r.Resize(80).ok());
    EXPECT_EQ(root->used(), 80);
    ASSERT_TRUE(r.Resize(10).ok());
    EXPECT_EQ(root->used(), 10);
  }
  EXPECT_EQ(root->used(), 0);
}

TEST(MemoryTrackerTest, ErrorNamesTheOwnerTheTrackerAndTheLimit) {
  auto query = std::make_shared<MemoryTracker>("query", 1 << 20);
  MemoryReservation r(query.get(), "HashJoin");
  ASSERT_TRUE(r.Resize(1000).ok());
  Status s = r.Resize(3 << 20);
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory);
  EXPECT_EQ(s.error_class(), "SILT_MEMORY_LIMIT_EXCEEDED");
  EXPECT_EQ(
      s.message(),
      "HashJoin: memory limit of 1.0 MiB (1048576 bytes) for the query exceeded (raise it with SET "
      "silt.memory.limit = <size>): requested 3.0 MiB (3144728 bytes) more with 1000 bytes in use");
  EXPECT_EQ(r.bytes(), 1000);  // a failed Resize keeps the old reservation
  EXPECT_EQ(query->used(), 1000);
  // A database-wide limit hit through a query tracker names the database.
  auto db = std::make_shared<MemoryTracker>("database", 2048);
  MemoryTracker q("query", -1, db);
  MemoryReservation r2(&q, "Sort");
  s = r2.Resize(4096);
  EXPECT_EQ(s.message(),
            "Sort: memory limit of 2.0 KiB (2048 bytes) for the database exceeded "
            "(DatabaseOptions.memory_limit_bytes): requested 4.0 KiB (4096 bytes) more with 0 "
            "bytes in use");
  EXPECT_EQ(q.used(), 0);
  EXPECT_EQ(db->used(), 0);
}

}  // namespace
}  // namespace silt

namespace silt {
namespace {

// No false negatives, and few false positives for paths that differ only in their UUID or their
// directory (the reason it looks at the middle and the start of a key, not only its end).
TEST(KeyQuickFilterTest, NeverRejectsAnAddedKeyAndRejectsMostOthers) {
  KeyQuickFilter f;
  auto path = [](int i) {
    return "p=" + std::to_string(i % 97) + "/part-" + std::to_string(i) + "-6c4f53af-cd85-" +
           std::to_string(i * 7919 % 100003) + ".c000.snappy.parquet";
  };
  for (int i = 0; i < 200; ++i) f.Add(path(i));
  for (const char* k : {"", "a", "p=1", "1234567", "12345678"}) f.Add(k);
  for (int i = 0; i < 200; ++i) EXPECT_TRUE(f.MayContain(path(i))) << path(i);
  for (const char* k : {"", "a", "p=1", "1234567", "12345678"}) EXPECT_TRUE(f.MayContain(k)) << k;
  int false_positives = 0;
  for (int i = 200; i < 100200; ++i) false_positives += f.MayContain(path(i));
  EXPECT_LT(false_positives, 1000);  // ~0.3% expected for 205 bits of 65536
}

}  // namespace
}  // namespace silt
