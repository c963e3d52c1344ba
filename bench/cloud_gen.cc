// Preparation tool of bench/cloud.sh at 100k files: builds the benchmark table locally with silt's
// own writer and log, and loads it into a cloud store, so the emulator's pace at 100k PUTs is not
// paid through a single INSERT (and the INSERT is not what the bench measures).
//
//   cloud_gen create DIR --files N [--rows R] [--commits K]
//     Creates the table `id BIGINT, v STRING` (deletion vectors off) at local directory DIR and
//     appends N * R rows (id 0.., v = 'v<id>') in K commits (default 25) of R rows per data file
//     (default 10) through delta::AppendRows, with the post-commit hooks on: the log is what a
//     table written by K appends has (a checkpoint every delta.checkpointInterval = 10 commits and
//     the JSON commits after the last one), not one commit of N adds.
//   cloud_gen upload DIR LOCATION [--parallel P]
//     Puts every object below DIR (hidden names skipped) under LOCATION (az://…, s3://…) through
//     silt's ObjectStore for that location (the real client: its signing, retries and keep-alive
//     connection pool), on P threads (default 16): the data files first, then the log in key
//     order with _delta_log/_last_checkpoint last, so the table appears only when complete.
//
// Prints one line: `gen=<mode> seconds=<s> objects=<n> bytes=<b> version=<v>` (create) or
// `gen=upload seconds=<s> objects=<n> bytes=<b> requests: <list=…>` (upload); upload also prints
// `progress objects=<n> seconds=<s> rate=<objects/s over the last 10000>` every 10000 objects
// (an emulator whose cost per PUT grows with the objects already stored shows it there).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "delta/snapshot.h"
#include "delta/table_writer.h"
#include "io/http_client.h"
#include "io/local_object_store.h"
#include "io/memory_object_store.h"
#include "io/object_store.h"
#include "io/object_store_factory.h"

namespace {

namespace fs = std::filesystem;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "cloud_gen: %s\n", what.c_str());
  std::exit(1);
}

struct Args {
  std::string mode, dir, location;
  int64_t files = 0, rows = 10, commits = 25, parallel = 16;
};

Args Parse(int argc, char** argv) {
  if (argc < 3) {
    Die("usage: cloud_gen create DIR --files N [--rows R] [--commits K] | "
        "cloud_gen upload DIR LOCATION [--parallel P]");
  }
  Args a;
  a.mode = argv[1];
  a.dir = argv[2];
  int i = 3;
  if (a.mode == "upload") {
    if (argc < 4) Die("upload needs DIR and LOCATION");
    a.location = argv[i++];
  }
  for (; i < argc; ++i) {
    std::string k = argv[i];
    if (i + 1 >= argc) Die("missing value for " + k);
    int64_t v = std::atoll(argv[++i]);
    if (v < 1) Die(k + " must be >= 1");
    if (k == "--files")
      a.files = v;
    else if (k == "--rows")
      a.rows = v;
    else if (k == "--commits")
      a.commits = v;
    else if (k == "--parallel")
      a.parallel = v;
    else
      Die("unknown option " + k);
  }
  return a;
}

int Create(const Args& a) {
  using silt::DataChunk;
  using silt::DataType;
  using silt::Schema;
  if (a.files < 1) Die("need --files >= 1");
  const double t0 = Now();
  // Written in memory, then copied to DIR without an fsync per file: the local store's durable
  // writes cost ~15 ms each on a loaded disk, 25 minutes for 100k files of a throw-away table.
  auto clock = silt::SystemClock::Default();
  auto store = std::make_shared<silt::InMemoryObjectStore>(clock);
  const Schema schema = {{"id", DataType::Int64(), true, ""}, {"v", DataType::String(), true, ""}};
  silt::delta::CreateTableOptions create;
  create.properties.Append("delta.enableDeletionVectors", "false");
  create.write.clock = clock;
  create.txn.clock = clock;
  auto created = silt::delta::CreateTable(store, schema, {}, create);
  if (!created.ok()) Die("create: " + created.status().ToString());
  silt::delta::DataWriteOptions write;
  write.clock = clock;
  write.max_rows_per_file = a.rows;
  silt::delta::TransactionOptions txn;
  txn.clock = clock;
  const int64_t commits = std::min(a.commits, a.files);
  int64_t version = created->version;
  int64_t file = 0;
  for (int64_t c = 0; c < commits; ++c) {
    const int64_t end = a.files * (c + 1) / commits;
    DataChunk chunk = DataChunk::FromSchema(schema);
    for (int64_t id = file * a.rows; id < end * a.rows; ++id) {
      chunk.columns[0].Append<int64_t>(id);
      chunk.columns[1].AppendString("v" + std::to_string(id));
    }
    file = end;
    auto appended = silt::delta::AppendRows(store, {chunk}, write, txn);
    if (!appended.ok()) Die("append: " + appended.status().ToString());
    version = appended->version;
  }
  auto snap = silt::delta::Snapshot::Load(store);
  if (!snap.ok()) Die("load: " + snap.status().ToString());
  if ((*snap)->files().size() != static_cast<size_t>(a.files))
    Die("snapshot has " + std::to_string((*snap)->files().size()) + " files, not " +
        std::to_string(a.files));
  int64_t objects = 0, bytes = 0;
  silt::Status st = store->ListRecursive("", [&](const silt::ObjectMeta& m) {
    if (m.is_dir) return silt::Status::OK();
    auto got = store->Get(m.key);
    if (!got.ok()) return got.status();
    const fs::path path = fs::path(a.dir) / m.key;
    fs::create_directories(path.parent_path());
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(got->data(), 1, got->size(), f) != got->size() || std::fclose(f) != 0)
      Die("cannot write " + path.string());
    ++objects;
    bytes += m.size;
    return silt::Status::OK();
  });
  if (!st.ok()) Die("list: " + st.ToString());
  std::printf("gen=create seconds=%.1f objects=%lld bytes=%lld version=%lld\n", Now() - t0,
              static_cast<long long>(objects), static_cast<long long>(bytes),
              static_cast<long long>(version));
  return 0;
}

int Upload(const Args& a) {
  const double t0 = Now();
  silt::LocalObjectStore local(a.dir);
  auto opened = silt::OpenObjectStore(a.location, silt::SystemClock::Default());
  if (!opened.ok()) Die("open " + a.location + ": " + opened.status().ToString());
  std::shared_ptr<silt::ObjectStore> remote = *opened;
  // Data files (everything outside _delta_log/) first, then the log in key order (commits and
  // checkpoints by version), _last_checkpoint last.
  std::vector<std::string> data, log;
  silt::Status st = local.ListRecursive("", [&](const silt::ObjectMeta& m) {
    if (m.is_dir) return silt::Status::OK();
    const std::string_view name = std::string_view(m.key).substr(m.key.rfind('/') + 1);
    if (name.starts_with(".")) return silt::Status::OK();
    (m.key.starts_with("_delta_log/") ? log : data).push_back(m.key);
    return silt::Status::OK();
  });
  if (!st.ok()) Die("list: " + st.ToString());
  std::sort(log.begin(), log.end(), [](const std::string& x, const std::string& y) {
    const bool xl = x.ends_with("/_last_checkpoint"), yl = y.ends_with("/_last_checkpoint");
    return xl != yl ? yl : x < y;
  });
  std::atomic<int64_t> bytes{0};
  std::mutex mu;
  silt::Status failed = silt::Status::OK();
  // Puts `keys` on `parallel` threads; the first failure stops the others.
  std::atomic<int64_t> done{0};
  double last_progress = t0;
  auto put_all = [&](const std::vector<std::string>& keys, int64_t parallel) {
    std::atomic<size_t> next{0};
    std::atomic<bool> stop{false};
    auto work = [&] {
      for (size_t i; !stop && (i = next++) < keys.size();) {
        silt::Status s;
        auto got = local.Get(keys[i]);
        if (!got.ok()) {
          s = got.status();
        } else {
          bytes += static_cast<int64_t>(got->size());
          s = remote->Put(keys[i], *got);
        }
        if (!s.ok()) {
          std::lock_guard<std::mutex> lock(mu);
          if (failed.ok()) failed = s;
          stop = true;
        }
        if (const int64_t n = ++done; n % 10000 == 0) {
          std::lock_guard<std::mutex> lock(mu);
          const double now = Now();
          std::printf("progress objects=%lld seconds=%.1f rate=%.0f\n", static_cast<long long>(n),
                      now - t0, 10000 / (now - last_progress));
          std::fflush(stdout);
          last_progress = now;
        }
      }
    };
    std::vector<std::thread> threads;
    for (int64_t t = 1; t < parallel; ++t) threads.emplace_back(work);
    work();
    for (auto& t : threads) t.join();
  };
  put_all(data, a.parallel);
  // The log in order, one at a time: a reader never sees a commit before its predecessors.
  if (failed.ok()) put_all(log, 1);
  if (!failed.ok()) Die("put: " + failed.ToString());
  std::printf("gen=upload seconds=%.1f objects=%zu bytes=%lld requests: %s\n", Now() - t0,
              data.size() + log.size(), static_cast<long long>(bytes.load()),
              silt::GlobalRequestCounts().ToString().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a = Parse(argc, argv);
  if (a.mode == "create") return Create(a);
  if (a.mode == "upload") return Upload(a);
  Die("unknown mode " + a.mode);
}
