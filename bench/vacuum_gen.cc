// Generator of a Delta table with many data files, for bench/vacuum.sh (VACUUM at 100k–1M files,
// which SQL INSERT cannot write in reasonable time).
//
//   vacuum_gen create DIR --files N [--removed R] [--untracked U] [--per-dir D] [--commits K]
//                         [--age-days A]
//     Writes N empty data files `p=<dir>/part-<i>-<uuid>.c000.snappy.parquet` (D per partition
//     directory, default 1000), a log of K commits adding them (default 10; version 0 also holds
//     protocol and metadata), one commit removing R of them (spread evenly; deletionTimestamp A
//     days ago, default 30) and a checkpoint of that last version; then U untracked files (never in
//     the log) in the same directories. The removed and untracked files stay on disk: exactly what
//     VACUUM FULL deletes (with a retention that their ages pass). Deterministic (fixed seed).
//   vacuum_gen remove DIR --count M [--age-days A]
//     Commits (through delta::Transaction) the removal of M live files of the latest version,
//     spread evenly; the files stay on disk. For VACUUM LITE after a FULL run.
//
// Prints one line: `gen=<mode> seconds=<s> files=<data files on disk> removed=<r> untracked=<u>
// version=<v>`.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "common/clock.h"
#include "delta/actions.h"
#include "delta/checkpoint_writer.h"
#include "delta/log_segment.h"
#include "delta/snapshot.h"
#include "delta/transaction.h"
#include "io/local_object_store.h"
#include "io/object_store.h"

namespace {

using silt::delta::Action;
using silt::delta::AddFile;
using silt::delta::CommitInfo;
using silt::delta::Metadata;
using silt::delta::Protocol;
using silt::delta::RemoveFile;

namespace fs = std::filesystem;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "vacuum_gen: %s\n", what.c_str());
  std::exit(1);
}

void WriteFile(const fs::path& p, const std::string& bytes) {
  FILE* f = std::fopen(p.c_str(), "wb");
  if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() || std::fclose(f) != 0)
    Die("cannot write " + p.string());
}

// An empty file through a cached directory fd (the generator's hot loop at 1M files).
void Touch(int dirfd, const std::string& name) {
  int fd = ::openat(dirfd, name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || ::close(fd) != 0) Die("cannot create " + name);
}

std::string Uuid(std::mt19937_64& rng) {
  static const char* kHex = "0123456789abcdef";
  std::string s(36, '-');
  for (int i = 0; i < 36; ++i)
    if (i != 8 && i != 13 && i != 18 && i != 23) s[static_cast<size_t>(i)] = kHex[rng() & 15];
  return s;
}

std::string DirName(int64_t d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%05lld", static_cast<long long>(d));
  return buf;
}

std::string FileName(int64_t i, std::mt19937_64& rng) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "part-%07lld-", static_cast<long long>(i));
  return buf + Uuid(rng) + ".c000.snappy.parquet";
}

int64_t WallMillis() { return silt::SystemClock::Default()->NowMillis(); }

struct Args {
  std::string mode, dir;
  int64_t files = 0, removed = 0, untracked = 0, per_dir = 1000, commits = 10, count = 0;
  int64_t age_days = 30;
};

Args Parse(int argc, char** argv) {
  if (argc < 3) {
    Die("usage: vacuum_gen create DIR --files N [--removed R] [--untracked U] [--per-dir D] "
        "[--commits K] [--age-days A] | vacuum_gen remove DIR --count M [--age-days A]");
  }
  Args a;
  a.mode = argv[1];
  a.dir = argv[2];
  for (int i = 3; i < argc; ++i) {
    std::string k = argv[i];
    if (i + 1 >= argc) Die("missing value for " + k);
    int64_t v = std::atoll(argv[++i]);
    if (v < 0) Die("negative " + k);
    if (k == "--files")
      a.files = v;
    else if (k == "--removed")
      a.removed = v;
    else if (k == "--untracked")
      a.untracked = v;
    else if (k == "--per-dir")
      a.per_dir = v;
    else if (k == "--commits")
      a.commits = v;
    else if (k == "--count")
      a.count = v;
    else if (k == "--age-days")
      a.age_days = v;
    else
      Die("unknown option " + k);
  }
  if (a.per_dir < 1 || a.commits < 1) Die("--per-dir and --commits must be >= 1");
  return a;
}

CommitInfo GenCommitInfo(int64_t ts, const std::string& op) {
  CommitInfo ci;
  ci.timestamp = ts;
  ci.operation = op;
  ci.engine_info = "silt-vacuum-gen";
  return ci;
}

int Create(const Args& a) {
  if (a.files < 1 || a.removed > a.files) Die("need --files >= 1 and --removed <= --files");
  double t0 = Now();
  const fs::path root = a.dir;
  fs::create_directories(root / "_delta_log");
  std::mt19937_64 rng(20261203);
  const int64_t dirs = (a.files + a.per_dir - 1) / a.per_dir;
  std::vector<int> dirfds(static_cast<size_t>(dirs));
  for (int64_t d = 0; d < dirs; ++d) {
    fs::path p = root / ("p=" + DirName(d));
    fs::create_directories(p);
    dirfds[static_cast<size_t>(d)] = ::open(p.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfds[static_cast<size_t>(d)] < 0) Die("cannot open " + p.string());
  }
  const int64_t now = WallMillis();
  const int64_t old = now - a.age_days * 86400000LL;

  Protocol protocol;
  protocol.min_reader_version = 1;
  protocol.min_writer_version = 2;
  Metadata meta;
  meta.id = "7a1c9e52-3b4d-4f6a-9c8e-1d2f3a4b5c6d";
  meta.schema_string =
      R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},)"
      R"({"name":"p","type":"string","nullable":true,"metadata":{}}]})";
  meta.partition_columns = {"p"};
  meta.created_time = old;

  // Removed files: every (files / removed)-th file, remembered by index for the remove commit.
  const int64_t stride = a.removed > 0 ? a.files / a.removed : 0;
  std::vector<AddFile> to_remove;
  to_remove.reserve(static_cast<size_t>(a.removed));
  const int64_t per_commit = (a.files + a.commits - 1) / a.commits;
  int64_t version = 0;
  std::vector<Action> actions;
  for (int64_t begin = 0; begin < a.files; begin += per_commit, ++version) {
    const int64_t end = std::min(a.files, begin + per_commit);
    actions.clear();
    actions.push_back(GenCommitInfo(old + version * 1000, "WRITE"));
    if (version == 0) {
      actions.push_back(protocol);
      actions.push_back(meta);
    }
    for (int64_t i = begin; i < end; ++i) {
      const int64_t d = i / a.per_dir;
      AddFile f;
      std::string name = FileName(i, rng);
      f.path = "p=" + DirName(d) + "/" + name;
      f.partition_values.Append("p", DirName(d));
      f.size = 0;
      f.modification_time = old + version * 1000;
      f.data_change = true;
      f.stats = "{\"numRecords\":1000,\"minValues\":{\"id\":" + std::to_string(i * 1000) +
                "},\"maxValues\":{\"id\":" + std::to_string(i * 1000 + 999) +
                "},\"nullCount\":{\"id\":0}}";
      Touch(dirfds[static_cast<size_t>(d)], name);
      if (stride > 0 && i % stride == 0 && static_cast<int64_t>(to_remove.size()) < a.removed)
        to_remove.push_back(f);
      actions.push_back(std::move(f));
    }
    WriteFile(root / silt::delta::CommitKey(version), silt::delta::SerializeCommit(actions));
  }
  if (!to_remove.empty()) {
    actions.clear();
    actions.push_back(GenCommitInfo(old + version * 1000, "DELETE"));
    for (const AddFile& f : to_remove) {
      RemoveFile r;
      r.path = f.path;
      r.deletion_timestamp = old + version * 1000;
      r.data_change = true;
      r.extended_file_metadata = true;
      r.partition_values = f.partition_values;
      r.size = f.size;
      actions.push_back(std::move(r));
    }
    WriteFile(root / silt::delta::CommitKey(version), silt::delta::SerializeCommit(actions));
    ++version;
  }
  const int64_t last = version - 1;
  // Untracked files: names no commit mentions, spread over the directories.
  for (int64_t u = 0; u < a.untracked; ++u) {
    const int64_t d = (u * dirs) / std::max<int64_t>(1, a.untracked);
    Touch(dirfds[static_cast<size_t>(d)], FileName(a.files + u, rng));
  }
  for (int fd : dirfds) ::close(fd);

  auto store = std::make_shared<silt::LocalObjectStore>(root.string());
  auto snap = silt::delta::Snapshot::Load(store);
  if (!snap.ok()) Die("load: " + snap.status().ToString());
  silt::delta::CheckpointInfo info;
  silt::delta::CheckpointOptions checkpoint;
  checkpoint.clock = silt::SystemClock::Default().get();
  silt::Status st = silt::delta::WriteCheckpoint(*store, **snap, checkpoint, &info);
  if (!st.ok()) Die("checkpoint: " + st.ToString());
  if ((*snap)->files().size() != static_cast<size_t>(a.files - a.removed))
    Die("snapshot has " + std::to_string((*snap)->files().size()) + " files");
  std::printf("gen=create seconds=%.1f files=%lld removed=%zu untracked=%lld version=%lld\n",
              Now() - t0, static_cast<long long>(a.files + a.untracked), to_remove.size(),
              static_cast<long long>(a.untracked), static_cast<long long>(last));
  return 0;
}

int Remove(const Args& a) {
  double t0 = Now();
  auto store = std::make_shared<silt::LocalObjectStore>(a.dir);
  auto snap = silt::delta::Snapshot::Load(store);
  if (!snap.ok()) Die("load: " + snap.status().ToString());
  const auto& files = (*snap)->files();
  if (a.count < 1 || static_cast<size_t>(a.count) > files.size()) Die("bad --count");
  silt::delta::TransactionOptions options;
  options.clock = silt::SystemClock::Default();
  options.post_commit_hooks = false;  // no checkpoint of 1M files in the middle of a benchmark
  silt::delta::Transaction txn(store, *snap, options);
  txn.SetOperation("DELETE");
  txn.SetReadScope(silt::delta::ReadScope::kWholeTable);
  const int64_t ts = WallMillis() - a.age_days * 86400000LL;
  const size_t stride = files.size() / static_cast<size_t>(a.count);
  for (int64_t k = 0; k < a.count; ++k) {
    const AddFile& f = files[static_cast<size_t>(k) * stride];
    RemoveFile r;
    r.path = f.path;
    r.deletion_timestamp = ts;
    r.data_change = true;
    r.extended_file_metadata = true;
    r.partition_values = f.partition_values;
    r.size = f.size;
    txn.Remove(std::move(r));
  }
  auto committed = txn.Commit();
  if (!committed.ok()) Die("commit: " + committed.status().ToString());
  std::printf("gen=remove seconds=%.1f files=%zu removed=%lld untracked=0 version=%lld\n",
              Now() - t0, files.size(), static_cast<long long>(a.count),
              static_cast<long long>(committed->version));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a = Parse(argc, argv);
  if (a.mode == "create") return Create(a);
  if (a.mode == "remove") return Remove(a);
  Die("unknown mode " + a.mode);
}
