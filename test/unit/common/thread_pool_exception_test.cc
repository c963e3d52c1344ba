// Exceptions thrown inside pool tasks: before the guard an exception escaping a worker thread
// called std::terminate (these tests died); now it becomes the task's Status, the sibling tasks
// not yet started are skipped, and the pool stays usable.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/exception_status.h"
#include "common/thread_pool.h"

namespace silt {
namespace {

TEST(ThreadPoolExceptionTest, BadAllocInATaskIsAMemoryLimitError) {
  ThreadPool pool(2);
  Status s = pool.ParallelFor(64, [](size_t i) -> Status {
    if (i == 37) throw std::bad_alloc();
    return Status::OK();
  });
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory);
  EXPECT_EQ(s.error_class(), "SILT_MEMORY_LIMIT_EXCEEDED");
}

TEST(ThreadPoolExceptionTest, LengthErrorFromAContainerIsAMemoryLimitError) {
  ThreadPool pool(2);
  Status s = pool.ParallelFor(8, [](size_t i) -> Status {
    if (i == 5) {
      std::vector<int64_t> v;
      v.reserve(std::numeric_limits<size_t>::max() / 2);  // throws std::length_error
    }
    return Status::OK();
  });
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error_class(), "SILT_MEMORY_LIMIT_EXCEEDED");
}

TEST(ThreadPoolExceptionTest, OtherExceptionsAreInternalErrorsWithTheirText) {
  ThreadPool pool(3);
  Status s = pool.ParallelFor(16, [](size_t i) -> Status {
    if (i % 4 == 1) throw std::runtime_error("library said no");
    return Status::OK();
  });
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error_class(), "INTERNAL_ERROR");
  EXPECT_NE(std::string(s.message()).find("library said no"), std::string::npos);
  Status t = pool.ParallelFor(4, [](size_t i) -> Status {
    if (i == 2) throw 42;  // not even a std::exception
    return Status::OK();
  });
  EXPECT_EQ(t.error_class(), "INTERNAL_ERROR");
}

TEST(ThreadPoolExceptionTest, AFailureCancelsTheTasksNotYetStarted) {
  ThreadPool pool(2);
  constexpr size_t kTasks = 2000;
  std::atomic<size_t> ran{0};
  Status s = pool.ParallelFor(kTasks, [&](size_t i) -> Status {
    ran.fetch_add(1);
    if (i == 0) throw std::runtime_error("first task fails");
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    return Status::OK();
  });
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error_class(), "INTERNAL_ERROR");
  // Index 0 is taken first; the workers already in a task finish it, nothing else starts.
  EXPECT_LT(ran.load(), kTasks / 4);

  // A returned error cancels the same way.
  ran = 0;
  s = pool.ParallelFor(kTasks, [&](size_t i) -> Status {
    ran.fetch_add(1);
    if (i == 0) return Status::InvalidArgument("bad");
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    return Status::OK();
  });
  EXPECT_FALSE(s.ok());
  EXPECT_LT(ran.load(), kTasks / 4);
}

TEST(ThreadPoolExceptionTest, NestedParallelForPropagatesAnInnerException) {
  ThreadPool pool(2);
  Status s = pool.ParallelFor(4, [&](size_t i) -> Status {
    return pool.ParallelFor(8, [&](size_t j) -> Status {
      if (i == 3 && j == 6) throw std::bad_alloc();
      return Status::OK();
    });
  });
  EXPECT_EQ(s.error_class(), "SILT_MEMORY_LIMIT_EXCEEDED");
}

TEST(ThreadPoolExceptionTest, AThrowingSubmittedTaskDoesNotKillThePool) {
  ThreadPool pool(2);
  std::atomic<int> after{0};
  for (int i = 0; i < 4; ++i) pool.Submit([] { throw std::runtime_error("raw task"); });
  Status s = pool.ParallelFor(32, [&](size_t) -> Status {
    after.fetch_add(1);
    return Status::OK();
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(after.load(), 32);
}

TEST(ThreadPoolExceptionTest, SerialParallelForCatchesToo) {
  size_t ran = 0;
  Status s = ParallelFor(nullptr, 5, [&](size_t i) -> Status {
    ++ran;
    if (i == 2) throw std::bad_alloc();
    return Status::OK();
  });
  EXPECT_EQ(s.error_class(), "SILT_MEMORY_LIMIT_EXCEEDED");
  EXPECT_EQ(ran, 3u);
}

}  // namespace
}  // namespace silt
