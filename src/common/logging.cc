#include "common/logging.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace silt {
namespace {
LogLevel LevelFromEnv() {
  const char* v = std::getenv("SILT_LOG_LEVEL");
  if (!v) return LogLevel::kWarn;
  if (!strcmp(v, "debug")) return LogLevel::kDebug;
  if (!strcmp(v, "info")) return LogLevel::kInfo;
  if (!strcmp(v, "error")) return LogLevel::kError;
  return LogLevel::kWarn;
}
std::atomic<int> g_level{static_cast<int>(LevelFromEnv())};
const char* LevelName(LogLevel l) {
  switch (l) {
    case LogLevel::kDebug:
      return "D";
    case LogLevel::kInfo:
      return "I";
    case LogLevel::kWarn:
      return "W";
    case LogLevel::kError:
      return "E";
  }
  return "?";
}
}  // namespace

void SetLogLevel(LogLevel level) { g_level.store(static_cast<int>(level)); }
LogLevel GetLogLevel() { return static_cast<LogLevel>(g_level.load()); }

void LogLine(LogLevel level, const char* file, int line, const std::string& text) {
  const char* base = strrchr(file, '/');
  std::string out = std::string(LevelName(level)) + " " + (base ? base + 1 : file) + ":" +
                    std::to_string(line) + "] " + text + "\n";
  fwrite(out.data(), 1, out.size(), stderr);
}

namespace internal {
void CheckFailed(const char* cond, const char* file, int line) {
  fprintf(stderr, "silt: check failed: %s at %s:%d\n", cond, file, line);
  abort();
}
}  // namespace internal

}  // namespace silt
