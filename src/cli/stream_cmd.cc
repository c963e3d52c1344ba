// `silt stream SOURCE SINK --checkpoint DIR [--option KEY=VALUE ...] [--available-now | --once |
// --interval DURATION] [--upsert-keys COL[,COL...]] [--max-batches N]`: a streaming query from
// the Delta table at SOURCE into the Delta table at SINK (created on the first batch), exactly
// once through the checkpoint directory (ops/stream_query.h). --available-now (the default)
// processes what the source holds at start in rate-limited batches and exits; --once runs one
// unlimited batch; --interval runs a trigger every DURATION until SIGTERM/SIGINT. --option passes
// a Delta source option (startingVersion, maxFilesPerTrigger, skipChangeCommits, ...). One line
// per run on stdout; errors as "Error: [CLASS] message" on stderr, exit 1.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "common/clock.h"
#include "delta/history.h"
#include "io/object_store_factory.h"
#include "ops/stream_query.h"

namespace silt::cli {
namespace {

std::atomic<bool> g_stream_stop{false};

void OnStreamSignal(int) { g_stream_stop.store(true); }

void StreamUsage() {
  std::fprintf(stderr,
               "usage: silt stream SOURCE SINK --checkpoint DIR [--option KEY=VALUE ...]\n"
               "                   [--available-now | --once | --interval DURATION]\n"
               "                   [--upsert-keys COL[,COL...]] [--max-batches N]\n"
               "  SOURCE, SINK: Delta table locations (the sink is created on the first batch)\n"
               "  --option: a Delta source option, e.g. maxFilesPerTrigger=10,\n"
               "            skipChangeCommits=true, startingVersion=5, readChangeFeed=true\n"
               "  DURATION: 500ms, 30s, 15m, 1h\n");
}

std::optional<int64_t> ParseMillis(const std::string& text) {
  struct Unit {
    const char* suffix;
    int64_t ms;
  };
  for (Unit u : {Unit{"ms", 1}, Unit{"s", 1000}, Unit{"m", 60000}, Unit{"h", 3600000}}) {
    const std::string suffix = u.suffix;
    if (text.size() > suffix.size() &&
        text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0) {
      const std::string digits = text.substr(0, text.size() - suffix.size());
      if (digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
      return std::stoll(digits) * u.ms;
    }
  }
  return std::nullopt;
}

Result<std::shared_ptr<ObjectStore>> Open(const std::string& location,
                                          const std::shared_ptr<Clock>& clock) {
  SILT_ASSIGN_OR_RETURN(std::string canonical, CanonicalLocation(location));
  return OpenObjectStore(canonical, clock);
}

}  // namespace

int RunStream(const std::vector<std::string>& args) {
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> options;
  std::optional<std::string> checkpoint;
  std::optional<int64_t> interval_ms, max_batches;
  bool once = false, available_now = false;
  std::vector<std::string> keys;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--checkpoint" && has_value) {
      checkpoint = args[++i];
    } else if (a == "--option" && has_value) {
      const std::string kv = args[++i];
      const size_t eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) {
        std::fprintf(stderr, "silt stream: --option needs KEY=VALUE, got '%s'\n", kv.c_str());
        return 2;
      }
      options.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    } else if (a == "--interval" && has_value) {
      interval_ms = ParseMillis(args[++i]);
      if (!interval_ms) {
        std::fprintf(stderr, "silt stream: bad --interval '%s'\n", args[i].c_str());
        return 2;
      }
    } else if (a == "--once") {
      once = true;
    } else if (a == "--available-now") {
      available_now = true;
    } else if (a == "--max-batches" && has_value) {
      const std::string v = args[++i];
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) {
        std::fprintf(stderr, "silt stream: bad --max-batches '%s'\n", v.c_str());
        return 2;
      }
      max_batches = std::stoll(v);
    } else if (a == "--upsert-keys" && has_value) {
      std::string list = args[++i];
      size_t start = 0;
      while (start <= list.size()) {
        size_t comma = list.find(',', start);
        std::string k =
            list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!k.empty()) keys.push_back(k);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (a == "-h" || a == "--help") {
      StreamUsage();
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "silt stream: unknown option '%s'\n", a.c_str());
      StreamUsage();
      return 2;
    } else {
      positional.push_back(a);
    }
  }
  if (positional.size() != 2 || !checkpoint) {
    StreamUsage();
    return 2;
  }
  if (static_cast<int>(once) + static_cast<int>(available_now) + (interval_ms ? 1 : 0) > 1) {
    std::fprintf(stderr,
                 "silt stream: --available-now, --once and --interval exclude each other\n");
    return 2;
  }
  std::shared_ptr<Clock> clock = SystemClock::Default();
  auto fail = [](const Status& st) {
    std::fprintf(stderr, "Error: %s\n", st.ToString().c_str());
    return 1;
  };
  Result<ops::DeltaSourceOptions> source_options = ops::ParseDeltaSourceOptions(options);
  if (!source_options.ok()) return fail(source_options.status());
  ops::StreamQueryOptions q;
  q.source_options = *source_options;
  q.clock = clock;
  auto source = Open(positional[0], clock);
  if (!source.ok()) return fail(source.status());
  auto sink = Open(positional[1], clock);
  if (!sink.ok()) return fail(sink.status());
  auto cp = Open(*checkpoint, clock);
  if (!cp.ok()) return fail(cp.status());
  q.source = *source;
  q.sink.table = *sink;
  q.sink.clock = clock;
  if (!keys.empty()) {
    q.sink.mode = ops::SinkMode::kUpsert;
    q.sink.key_columns = keys;
  }
  q.checkpoint = *cp;
  q.max_batches = max_batches;
  q.warn = [](const std::string& w) { std::fprintf(stderr, "WARNING: %s\n", w.c_str()); };
  q.trigger = once          ? ops::Trigger::kOnce
              : interval_ms ? ops::Trigger::kProcessingTime
                            : ops::Trigger::kAvailableNow;
  int64_t batches_seen = 0;
  q.step_hook = [&](int64_t batch, std::string_view step) -> Status {
    if (step == "sink") {
      ++batches_seen;
      std::printf("batch %lld committed\n", static_cast<long long>(batch));
      std::fflush(stdout);
    }
    return Status::OK();
  };
  if (interval_ms) {
    g_stream_stop.store(false);
    struct sigaction sa {};
    sa.sa_handler = OnStreamSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);
    q.wait_for_trigger = [&]() {
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(*interval_ms);
      while (!g_stream_stop.load() && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(std::min<int64_t>(*interval_ms, 50)));
      }
      return !g_stream_stop.load();
    };
  }
  Result<ops::StreamQueryResult> r = ops::RunStream(q);
  if (!r.ok()) return fail(r.status());
  std::printf("query %s: %lld batches, %lld files, %lld rows\n", r->query_id.c_str(),
              static_cast<long long>(r->batches), static_cast<long long>(r->files),
              static_cast<long long>(r->rows));
  return 0;
}

}  // namespace silt::cli
