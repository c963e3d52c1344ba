#include "cli/progress.h"

namespace silt::cli {

void ProgressLine::Start(Clock::time_point now) {
  start_ = now;
  last_ = {};
  drawn_ = false;
}

bool ProgressLine::Update(const std::string& line, Clock::time_point now) {
  if (!enabled_ || now - start_ < delay_) return false;
  if (drawn_ && now - last_ < interval_) return false;
  // Carriage return + erase line: the line is redrawn in place.
  std::fprintf(out_, "\r\033[K%s", line.c_str());
  std::fflush(out_);
  last_ = now;
  drawn_ = true;
  return true;
}

void ProgressLine::Finish() {
  if (drawn_) {
    std::fprintf(out_, "\r\033[K");
    std::fflush(out_);
  }
  drawn_ = false;
}

}  // namespace silt::cli
