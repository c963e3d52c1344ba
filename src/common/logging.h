// Minimal leveled logging to stderr. The level comes from SILT_LOG_LEVEL (debug|info|warn|error,
// default warn) or SetLogLevel(). Thread-safe: each line is written with one call.
#pragma once

#include <sstream>
#include <string>

namespace silt {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };

void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
void LogLine(LogLevel level, const char* file, int line, const std::string& text);

namespace internal {
class LogMessage {
 public:
  LogMessage(LogLevel level, const char* file, int line)
      : level_(level), file_(file), line_(line) {}
  ~LogMessage() { LogLine(level_, file_, line_, stream_.str()); }
  std::ostringstream& stream() { return stream_; }

 private:
  LogLevel level_;
  const char* file_;
  int line_;
  std::ostringstream stream_;
};
}  // namespace internal

}  // namespace silt

#define SILT_LOG(level)                                  \
  if (::silt::LogLevel::level < ::silt::GetLogLevel()) { \
  } else                                                 \
    ::silt::internal::LogMessage(::silt::LogLevel::level, __FILE__, __LINE__).stream()

// Aborts with a message when an internal invariant does not hold (a bug, never bad input).
#define SILT_CHECK(cond)                                                   \
  do {                                                                     \
    if (!(cond)) ::silt::internal::CheckFailed(#cond, __FILE__, __LINE__); \
  } while (0)

namespace silt::internal {
[[noreturn]] void CheckFailed(const char* cond, const char* file, int line);
}
