// ThreadPool: a fixed set of worker threads running submitted tasks. Injected wherever work runs in
// parallel (scans, deletes), so tests can use a pool of one thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "common/status.h"

namespace silt {

class ThreadPool {
 public:
  // num_threads == 0 means std::thread::hardware_concurrency() (at least 1).
  explicit ThreadPool(size_t num_threads = 0);
  // Waits for queued tasks to finish, then joins the workers.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  size_t num_threads() const { return workers_.size(); }
  // Queues a task. Thread-safe. Tasks must not throw (one that does is logged and dropped).
  void Submit(std::function<void()> task);

  // Runs fn(i) for i in [0, n) on the pool (the caller's thread helps) and returns the first
  // non-OK status (by index), after every task has finished. Once one fails, the indices not yet
  // started are skipped. An exception thrown by fn becomes its status (see
  // common/exception_status.h). Safe to call from inside a task.
  Status ParallelFor(size_t n, const std::function<Status(size_t)>& fn);

 private:
  void WorkerLoop();
  bool RunOneQueued();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

// Runs fn(i) for i in [0, n): on `pool` when there is one and n > 1, otherwise serially in
// order, stopping at the first error (exceptions become errors the same way).
Status ParallelFor(ThreadPool* pool, size_t n, const std::function<Status(size_t)>& fn);

}  // namespace silt
