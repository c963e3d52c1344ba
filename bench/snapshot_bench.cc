// Snapshot::Load at scale: a 300k-file table (100 commits of 3000 adds with realistic paths,
// partition values and stats) without and with a checkpoint, and a 100k-commit log of small
// commits without and with a checkpoint near its end.
//
// Each measurement runs in a fresh child process (this binary re-executed with --load), so its
// peak RSS (getrusage ru_maxrss) is that of one load and not of the generator. Load times are the
// best of 3. Output, one line per case:
//   bench=<name> seconds=<best> rss_mb=<peak> files=<live files> version=<v> checkpoint=<cv>
//
// usage: snapshot_bench [--dir DIR] [--keep]   (default: a fresh directory under $TMPDIR/tmp)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "delta/actions.h"
#include "delta/checkpoint_writer.h"
#include "delta/log_segment.h"
#include "delta/snapshot.h"
#include "io/local_object_store.h"
#include "io/object_store.h"

namespace {

using silt::delta::Action;
using silt::delta::AddFile;
using silt::delta::CommitInfo;
using silt::delta::Metadata;
using silt::delta::Protocol;

namespace fs = std::filesystem;

constexpr int64_t kT0 = 1700000000000;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double PeakRssMb() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // Linux: KiB
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "snapshot_bench: %s\n", what.c_str());
  std::exit(1);
}

// Plain buffered writes: the generator needs no fsync per file (100k commits).
void WriteFile(const fs::path& p, const std::string& bytes) {
  FILE* f = std::fopen(p.c_str(), "wb");
  if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() || std::fclose(f) != 0)
    Die("cannot write " + p.string());
}

std::string Uuid(std::mt19937_64& rng) {
  static const char* kHex = "0123456789abcdef";
  std::string s(36, '-');
  for (int i = 0; i < 36; ++i)
    if (i != 8 && i != 13 && i != 18 && i != 23) s[static_cast<size_t>(i)] = kHex[rng() & 15];
  return s;
}

Protocol BenchProtocol() {
  Protocol p;
  p.min_reader_version = 1;
  p.min_writer_version = 2;
  return p;
}

Metadata BenchMetadata() {
  Metadata m;
  m.id = "5d3c1f6e-9f0a-4c1e-8d5b-3b1a2c4d5e6f";
  m.schema_string =
      R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},)"
      R"({"name":"name","type":"string","nullable":true,"metadata":{}},)"
      R"({"name":"ts","type":"timestamp","nullable":true,"metadata":{}},)"
      R"({"name":"amount","type":"double","nullable":true,"metadata":{}},)"
      R"({"name":"date","type":"string","nullable":true,"metadata":{}},)"
      R"({"name":"region","type":"string","nullable":true,"metadata":{}}]})";
  m.partition_columns = {"date", "region"};
  m.created_time = kT0;
  return m;
}

CommitInfo BenchCommitInfo(int64_t v) {
  CommitInfo ci;
  ci.timestamp = kT0 + v * 1000;
  ci.operation = "WRITE";
  ci.operation_parameters = silt::delta::StringMap{{"mode", "\"Append\""}, {"partitionBy", "[]"}};
  ci.is_blind_append = true;
  ci.engine_info = "silt-bench";
  return ci;
}

AddFile BenchAdd(std::mt19937_64& rng, int64_t v, int i) {
  static const char* kRegions[] = {"us-east", "eu-west", "ap-south"};
  char date[16];
  std::snprintf(date, sizeof date, "2024-%02d-%02d", static_cast<int>(1 + (v / 28) % 12),
                static_cast<int>(1 + v % 28));
  std::string region = kRegions[i % 3];
  AddFile a;
  a.path = std::string("date=") + date + "/region=" + region + "/part-" +
           std::to_string(100000 + i).substr(1) + "-" + Uuid(rng) + ".c000.snappy.parquet";
  a.partition_values.Append("date", std::string(date));
  a.partition_values.Append("region", region);
  a.size = 1000000 + static_cast<int64_t>(rng() % 9000000);
  a.modification_time = kT0 + v * 1000 + i;
  a.data_change = true;
  int64_t n = 10000 + static_cast<int64_t>(rng() % 90000);
  int64_t lo = (v * 3000 + i) * 100000;
  a.stats =
      "{\"numRecords\":" + std::to_string(n) + ",\"minValues\":{\"id\":" + std::to_string(lo) +
      ",\"name\":\"aaron-" + std::to_string(rng() % 1000) +
      "\",\"ts\":\"2024-01-01T00:00:00.000Z\",\"amount\":" + std::to_string(rng() % 100) +
      ".25},\"maxValues\":{\"id\":" + std::to_string(lo + n) + ",\"name\":\"zoe-" +
      std::to_string(rng() % 1000) +
      "\",\"ts\":\"2024-12-31T23:59:59.999Z\",\"amount\":" + std::to_string(10000 + rng() % 1000) +
      ".5},\"nullCount\":{\"id\":0,\"name\":" + std::to_string(rng() % 50) +
      ",\"ts\":0,\"amount\":" + std::to_string(rng() % 10) + "}}";
  return a;
}

void GenerateTable(const fs::path& root, int64_t commits, int adds_per_commit) {
  fs::create_directories(root / "_delta_log");
  std::mt19937_64 rng(42 + static_cast<uint64_t>(commits));
  std::vector<Action> actions;
  for (int64_t v = 0; v < commits; ++v) {
    actions.clear();
    actions.push_back(BenchCommitInfo(v));
    if (v == 0) {
      actions.push_back(BenchProtocol());
      actions.push_back(BenchMetadata());
    }
    for (int i = 0; i < adds_per_commit; ++i) actions.push_back(BenchAdd(rng, v, i));
    WriteFile(root / silt::delta::CommitKey(v), silt::delta::SerializeCommit(actions));
  }
}

std::shared_ptr<const silt::delta::Snapshot> LoadOrDie(const std::string& dir,
                                                       std::optional<int64_t> v = {}) {
  auto snap = silt::delta::Snapshot::Load(std::make_shared<silt::LocalObjectStore>(dir), v);
  if (!snap.ok()) Die("load " + dir + ": " + snap.status().ToString());
  return *snap;
}

// Child: best of 3 loads of the table in `dir`.
int MeasureLoad(const std::string& dir, const std::string& name) {
  double best = 1e300;
  size_t files = 0;
  int64_t version = -1, checkpoint = -1;
  for (int run = 0; run < 3; ++run) {
    double t = Now();
    auto snap = LoadOrDie(dir);
    best = std::min(best, Now() - t);
    files = snap->files().size();
    version = snap->version();
    checkpoint = snap->segment().checkpoint_version;
  }
  std::printf("bench=%s seconds=%.3f rss_mb=%.0f files=%zu version=%lld checkpoint=%lld\n",
              name.c_str(), best, PeakRssMb(), files, static_cast<long long>(version),
              static_cast<long long>(checkpoint));
  return 0;
}

// Child: loads version `version` and writes its checkpoint (timing both together and the write).
int MeasureCheckpoint(const std::string& dir, int64_t version, const std::string& name) {
  double t0 = Now();
  auto snap = LoadOrDie(dir, version);
  double t1 = Now();
  silt::delta::CheckpointInfo info;
  auto store = std::make_shared<silt::LocalObjectStore>(dir);
  silt::delta::CheckpointOptions options;
  options.clock = silt::SystemClock::Default().get();
  // SILT_BENCH_ROW_GROUP_MB: checkpoint row group size to try (default: the writer's).
  if (const char* mb = std::getenv("SILT_BENCH_ROW_GROUP_MB"))
    options.parquet.row_group_bytes = std::atoll(mb) << 20;
  silt::Status s = silt::delta::WriteCheckpoint(*store, *snap, options, &info);
  if (!s.ok()) Die("checkpoint: " + s.ToString());
  double t2 = Now();
  std::printf("bench=%s seconds=%.3f load_seconds=%.3f rss_mb=%.0f actions=%lld bytes=%lld\n",
              name.c_str(), t2 - t1, t1 - t0, PeakRssMb(), static_cast<long long>(info.num_actions),
              static_cast<long long>(info.size_in_bytes));
  return 0;
}

void RunChild(const std::vector<std::string>& args) {
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) Die("fork failed");
  if (pid == 0) {
    std::vector<char*> argv;
    static std::string self = "/proc/self/exe";
    argv.push_back(self.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    Die("child failed: " + args[0] + " " + args[1]);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 3 && args[0] == "--load") return MeasureLoad(args[1], args[2]);
  if (args.size() == 4 && args[0] == "--checkpoint")
    return MeasureCheckpoint(args[1], std::stoll(args[2]), args[3]);

  fs::path base;
  bool keep = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--dir" && i + 1 < args.size()) {
      base = args[++i];
    } else if (args[i] == "--keep") {
      keep = true;
    } else {
      Die("usage: snapshot_bench [--dir DIR] [--keep]");
    }
  }
  if (base.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/silt_snapshot_bench_XXXXXX";
    if (!mkdtemp(tmpl.data())) Die("mkdtemp failed");
    base = tmpl;
  }
  fs::create_directories(base);

  // 300k files in 100 commits.
  fs::path big = base / "files_300k";
  double t = Now();
  GenerateTable(big, 100, 3000);
  std::printf("gen=files_300k seconds=%.1f log_mb=%.0f\n", Now() - t, [&] {
    double bytes = 0;
    for (const auto& e : fs::directory_iterator(big / "_delta_log")) bytes += e.file_size();
    return bytes / 1e6;
  }());
  RunChild({"--load", big.string(), "snapshot_300k_json"});
  RunChild({"--checkpoint", big.string(), "99", "checkpoint_write_300k"});
  RunChild({"--load", big.string(), "snapshot_300k_checkpoint"});

  // 100k small commits.
  fs::path many = base / "commits_100k";
  t = Now();
  GenerateTable(many, 100000, 1);
  std::printf("gen=commits_100k seconds=%.1f\n", Now() - t);
  RunChild({"--load", many.string(), "snapshot_100k_commits_json"});
  RunChild({"--checkpoint", many.string(), "99990", "checkpoint_write_100k_commits"});
  RunChild({"--load", many.string(), "snapshot_100k_commits_checkpoint"});

  if (!keep) {
    std::error_code ec;
    fs::remove_all(base, ec);
  } else {
    std::printf("kept %s\n", base.c_str());
  }
  return 0;
}
