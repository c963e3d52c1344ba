#include "common/memory.h"

#include <string>

namespace silt {

MemoryTracker::MemoryTracker(std::string label, int64_t limit_bytes,
                             std::shared_ptr<MemoryTracker> parent)
    : label_(std::move(label)), limit_(limit_bytes), parent_(std::move(parent)) {}

bool MemoryTracker::TryReserveHere(int64_t bytes) {
  int64_t cur = used_.load(std::memory_order_relaxed);
  do {
    if (limit_ >= 0 && cur + bytes > limit_) return false;
  } while (!used_.compare_exchange_weak(cur, cur + bytes, std::memory_order_relaxed));
  int64_t now = cur + bytes;
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return true;
}

Status MemoryTracker::Reserve(int64_t bytes) {
  if (bytes <= 0) return Status::OK();
  if (!TryReserveHere(bytes)) {
    return Status::OutOfMemory("memory limit of " + std::to_string(limit_) + " bytes for '" +
                                   label_ + "' exceeded (requested " + std::to_string(bytes) +
                                   ", in use " + std::to_string(used()) + ")",
                               "SILT_MEMORY_LIMIT_EXCEEDED");
  }
  if (parent_) {
    Status s = parent_->Reserve(bytes);
    if (!s.ok()) {
      used_.fetch_sub(bytes, std::memory_order_relaxed);
      return s;
    }
  }
  return Status::OK();
}

void MemoryTracker::Release(int64_t bytes) {
  if (bytes <= 0) return;
  used_.fetch_sub(bytes, std::memory_order_relaxed);
  if (parent_) parent_->Release(bytes);
}

Status MemoryReservation::Resize(int64_t bytes) {
  if (!tracker_) {
    bytes_ = bytes;
    return Status::OK();
  }
  if (bytes > bytes_) {
    SILT_RETURN_NOT_OK(tracker_->Reserve(bytes - bytes_));
  } else if (bytes < bytes_) {
    tracker_->Release(bytes_ - bytes);
  }
  bytes_ = bytes;
  return Status::OK();
}

}  // namespace silt
