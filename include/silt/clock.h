// Clock: the only source of "now" in silt. Retention (VACUUM), TTL expiry, log cleanup and commit
// timestamps read it, so tests inject a ManualClock and never sleep.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace silt {

class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds since the Unix epoch (UTC). Thread-safe.
  virtual int64_t NowMillis() const = 0;
  int64_t NowMicros() const { return NowMillis() * 1000; }
};

// Wall-clock time of the machine.
class SystemClock final : public Clock {
 public:
  int64_t NowMillis() const override;
  // A process-wide instance (stateless, so sharing it hides nothing).
  static std::shared_ptr<Clock> Default();
};

// A clock that moves only when told. Thread-safe.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_millis = 0) : now_(start_millis) {}
  int64_t NowMillis() const override { return now_.load(std::memory_order_relaxed); }
  void SetMillis(int64_t millis) { now_.store(millis, std::memory_order_relaxed); }
  void AdvanceMillis(int64_t delta) { now_.fetch_add(delta, std::memory_order_relaxed); }
  void AdvanceHours(int64_t hours) { AdvanceMillis(hours * 3600 * 1000); }

 private:
  std::atomic<int64_t> now_;
};

}  // namespace silt
