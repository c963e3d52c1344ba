#include "common/thread_pool.h"

#include <atomic>
#include <memory>

#include "common/exception_status.h"
#include "common/logging.h"
#include "common/query_memory.h"

namespace silt {

ThreadPool::ThreadPool(size_t num_threads) {
  if (num_threads == 0) num_threads = std::max(1u, std::thread::hardware_concurrency());
  workers_.reserve(num_threads);
  for (size_t i = 0; i < num_threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::Submit(std::function<void()> task) {
  // The task works for the submitter's statement: it checks values against the same limit.
  if (std::shared_ptr<MemoryTracker> memory = CurrentQueryMemory()) {
    task = [memory = std::move(memory), inner = std::move(task)] {
      ScopedQueryMemory scope(memory);
      inner();
    };
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
}

namespace {

// A task that throws (it must not: ParallelFor's tasks are guarded) is logged; letting the
// exception leave the worker thread would terminate the process.
void RunTask(const std::function<void()>& task) {
  try {
    task();
  } catch (...) {
    Status s = StatusFromCurrentException();
    SILT_LOG(kError) << "a thread pool task threw: " << s.ToString();
  }
}

}  // namespace

void ThreadPool::WorkerLoop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    RunTask(task);
  }
}

bool ThreadPool::RunOneQueued() {
  std::function<void()> task;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (queue_.empty()) return false;
    task = std::move(queue_.front());
    queue_.pop_front();
  }
  RunTask(task);
  return true;
}

Status ThreadPool::ParallelFor(size_t n, const std::function<Status(size_t)>& fn) {
  if (n == 0) return Status::OK();
  if (n == 1) return fn(0);
  struct Shared {
    std::atomic<size_t> next{0};
    std::atomic<size_t> done{0};
    std::atomic<bool> failed{false};  // once a task failed, the ones not started are skipped
    std::vector<Status> results;
    std::mutex mu;
    std::condition_variable cv;
  };
  auto shared = std::make_shared<Shared>();
  shared->results.resize(n);
  auto drain = [shared, n, &fn] {
    for (size_t i; (i = shared->next.fetch_add(1)) < n;) {
      // An exception (std::bad_alloc, a library's) becomes the task's error: escaping the
      // worker thread it would terminate the process.
      if (!shared->failed.load(std::memory_order_acquire)) {
        Status s = CatchAsStatus([&] { return fn(i); });
        if (!s.ok()) {
          shared->results[i] = std::move(s);
          shared->failed.store(true, std::memory_order_release);
        }
      }
      if (shared->done.fetch_add(1) + 1 == n) {
        std::lock_guard<std::mutex> lock(shared->mu);
        shared->cv.notify_all();
      }
    }
  };
  size_t helpers = std::min(n - 1, workers_.size());
  for (size_t i = 0; i < helpers; ++i) Submit(drain);
  drain();
  // While others finish, help with queued work (avoids deadlock when nested in a task).
  while (shared->done.load() < n) {
    if (!RunOneQueued()) {
      std::unique_lock<std::mutex> lock(shared->mu);
      shared->cv.wait_for(lock, std::chrono::milliseconds(1),
                          [&] { return shared->done.load() >= n; });
    }
  }
  for (auto& s : shared->results)
    if (!s.ok()) return s;
  return Status::OK();
}

Status ParallelFor(ThreadPool* pool, size_t n, const std::function<Status(size_t)>& fn) {
  if (pool && n > 1) return pool->ParallelFor(n, fn);
  for (size_t i = 0; i < n; ++i) SILT_RETURN_NOT_OK(CatchAsStatus([&] { return fn(i); }));
  return Status::OK();
}

}  // namespace silt
