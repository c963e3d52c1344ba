// MemoryTracker: counts bytes that a query or command holds and enforces an optional limit.
// Trackers form a tree (query → operator); a child's reservation counts against every ancestor.
// Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"

namespace silt {

class MemoryTracker {
 public:
  // limit_bytes < 0 means unlimited. parent may be null.
  explicit MemoryTracker(std::string label, int64_t limit_bytes = -1,
                         std::shared_ptr<MemoryTracker> parent = nullptr);
  // Reserves bytes here and in every ancestor; fails with OutOfMemory (nothing reserved) when a
  // limit would be exceeded: error class SILT_MEMORY_LIMIT_EXCEEDED, the message names the
  // tracker whose limit was hit, the limit, the request and what is in use.
  Status Reserve(int64_t bytes);
  void Release(int64_t bytes);
  int64_t used() const { return used_.load(std::memory_order_relaxed); }
  int64_t peak() const { return peak_.load(std::memory_order_relaxed); }
  int64_t limit() const { return limit_; }
  const std::string& label() const { return label_; }

 private:
  bool TryReserveHere(int64_t bytes);
  std::string label_;
  int64_t limit_;
  std::shared_ptr<MemoryTracker> parent_;
  std::atomic<int64_t> used_{0};
  std::atomic<int64_t> peak_{0};
};

// RAII reservation: releases what it reserved on destruction.
class MemoryReservation {
 public:
  MemoryReservation() = default;
  // owner: who holds the memory (an operator name, "HashAggregate"); a failed Resize names it.
  explicit MemoryReservation(MemoryTracker* tracker, std::string owner = {})
      : tracker_(tracker), owner_(std::move(owner)) {}
  ~MemoryReservation() { Resize(0).ok(); }
  MemoryReservation(const MemoryReservation&) = delete;
  MemoryReservation& operator=(const MemoryReservation&) = delete;
  // Grows or shrinks the reservation to exactly `bytes`; a limit hit fails with the tracker's
  // error prefixed by "owner: ".
  Status Resize(int64_t bytes);
  int64_t bytes() const { return bytes_; }

 private:
  MemoryTracker* tracker_ = nullptr;
  std::string owner_;
  int64_t bytes_ = 0;
};

}  // namespace silt
