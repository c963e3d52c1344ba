#include "common/memory.h"

#include <cstdio>
#include <string>

#include "common/error_classes.h"
#include "common/query_memory.h"

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

namespace {
// "1.5 MiB (1572864 bytes)"
std::string Bytes(int64_t n) {
  static const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  if (u == 0) return std::to_string(n) + " bytes";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.1f %s (%lld bytes)", v, units[u], static_cast<long long>(n));
  return buf;
}
}  // namespace

Status MemoryTracker::Reserve(int64_t bytes) {
  if (bytes <= 0) return Status::OK();
  if (!TryReserveHere(bytes)) {
    std::string hint = label_ == "query"      ? " (raise it with SET silt.memory.limit = <size>)"
                       : label_ == "database" ? " (DatabaseOptions.memory_limit_bytes)"
                                              : "";
    return Status::OutOfMemory("memory limit of " + Bytes(limit_) + " for the " + label_ +
                                   " exceeded" + hint + ": requested " + Bytes(bytes) +
                                   " more with " + Bytes(used()) + " in use",
                               errc::kSiltMemoryLimitExceeded);
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
    Status s = tracker_->Reserve(bytes - bytes_);
    if (!s.ok()) return owner_.empty() ? s : s.WithContext(owner_);
  } else if (bytes < bytes_) {
    tracker_->Release(bytes_ - bytes);
  }
  bytes_ = bytes;
  return Status::OK();
}

namespace {
thread_local std::shared_ptr<MemoryTracker> current_query_memory;
}  // namespace

const std::shared_ptr<MemoryTracker>& CurrentQueryMemory() { return current_query_memory; }

ScopedQueryMemory::ScopedQueryMemory(std::shared_ptr<MemoryTracker> tracker)
    : saved_(std::move(current_query_memory)) {
  current_query_memory = std::move(tracker);
}

ScopedQueryMemory::~ScopedQueryMemory() { current_query_memory = std::move(saved_); }

Status CheckQueryMemory(int64_t bytes, std::string_view owner) {
  MemoryTracker* t = current_query_memory.get();
  if (!t || bytes <= 0) return Status::OK();
  Status s = t->Reserve(bytes);
  if (!s.ok()) return owner.empty() ? s : s.WithContext(std::string(owner));
  t->Release(bytes);
  return Status::OK();
}

}  // namespace silt
