// The CLI's progress line for long commands (VACUUM's "N of M deleted, K listed"): drawn in place
// on stderr when it is a terminal, only once a statement has run for a while, at a bounded rate,
// and erased when the statement ends, so quick statements and piped output never see it.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace silt::cli {

class ProgressLine {
 public:
  using Clock = std::chrono::steady_clock;
  // delay: how long a statement runs before its first line; interval: between redraws.
  explicit ProgressLine(std::FILE* out, bool enabled,
                        std::chrono::milliseconds delay = std::chrono::seconds(1),
                        std::chrono::milliseconds interval = std::chrono::milliseconds(200))
      : out_(out), enabled_(enabled), delay_(delay), interval_(interval) {}

  // A statement starts (resets the delay).
  void Start(Clock::time_point now);
  // A progress message; returns whether it was drawn (the pure decision, for tests).
  bool Update(const std::string& line, Clock::time_point now);
  // The statement ended: erases a drawn line.
  void Finish();

 private:
  std::FILE* out_;
  bool enabled_;
  std::chrono::milliseconds delay_, interval_;
  Clock::time_point start_{}, last_{};
  bool drawn_ = false;
};

}  // namespace silt::cli
