// Crash at every storage operation (issue 31): a child process (this binary again, running the
// Child test) performs a write sequence — appends with post-commit checkpoints and log cleanup,
// a file-replacing commit, an explicit checkpoint, temp-file cleanup — on a local table and dies
// with _exit at its k-th storage operation (or its k-th Append/Close of a streamed write), for
// every k until the sequence completes. After each death the table must load at a committed
// version with exactly that version's files and rows (a reference run is the model), every
// referenced data file must exist, and a rerun (one more append) must succeed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "delta/checkpoint_writer.h"
#include "delta/log_cleanup.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "io/local_object_store.h"
#include "support/forwarding_object_store.h"
#include "support/wall_clock.h"
#include "vector/generate.h"

namespace silt::delta {
namespace {

constexpr int kDeathExit = 137;  // what a SIGKILLed child reports to a shell

// Forwards to `inner`; the kill_at-th counted operation (1-based) ends the process first.
class KillAtOpStore final : public ForwardingObjectStore {
 public:
  KillAtOpStore(std::shared_ptr<ObjectStore> inner, int64_t kill_at)
      : ForwardingObjectStore(std::move(inner)), kill_at_(kill_at) {}
  void Tick() {
    if (++ops_ == kill_at_) _exit(kDeathExit);
  }
  int64_t ops() const { return ops_; }

  Result<std::unique_ptr<WritableFile>> OpenWrite(const std::string& key) override {
    SILT_ASSIGN_OR_RETURN(auto w, ForwardingObjectStore::OpenWrite(key));
    return std::unique_ptr<WritableFile>(new Writer(this, std::move(w)));
  }

 protected:
  void OnCall() override { Tick(); }

 private:
  class Writer final : public WritableFile {
   public:
    Writer(KillAtOpStore* store, std::unique_ptr<WritableFile> inner)
        : store_(store), inner_(std::move(inner)) {}
    Status Append(std::string_view data) override {
      store_->Tick();
      return inner_->Append(data);
    }
    Status Close() override {
      store_->Tick();
      return inner_->Close();
    }
    int64_t bytes_written() const override { return inner_->bytes_written(); }

   private:
    KillAtOpStore* store_;
    std::unique_ptr<WritableFile> inner_;
  };

  int64_t kill_at_;
  std::atomic<int64_t> ops_{0};
};

Schema TestSchema() { return NamedTestSchema("int64").value(); }

// The write sequence of the child (and of the reference run). Versions: 0 create, 1..4 appends
// (post-commit checkpoints at 2 and 4, each followed by log cleanup), 5 removes the oldest file,
// then a checkpoint of 5 and the temp-file sweep.
Status WriteSequence(const std::shared_ptr<ObjectStore>& store) {
  Schema schema = TestSchema();
  CreateTableOptions create = WallCreate();
  create.properties.Set("delta.checkpointInterval", "2");
  // (Results are kept in variables: the status of a temporary Result dies with it.)
  auto created = CreateTable(store, schema, {GenerateData(schema, 10, {.seed = 1})}, create);
  SILT_RETURN_NOT_OK(created.status());
  for (uint64_t i = 0; i < 4; ++i) {
    auto appended =
        AppendRows(store, {GenerateData(schema, 20 + i, {.seed = 2 + i})}, WallWrite(), WallTxn());
    SILT_RETURN_NOT_OK(appended.status());
  }
  SILT_ASSIGN_OR_RETURN(auto snap, Snapshot::Load(store));
  Transaction txn(store, snap, WallTxn());
  txn.SetOperation("DELETE");
  const AddFile& oldest = snap->files().front();
  RemoveFile r;
  r.path = oldest.path;
  r.deletion_timestamp = WallClock()->NowMillis();
  r.data_change = true;
  r.size = oldest.size;
  txn.Remove(r);
  auto committed = txn.Commit();
  SILT_RETURN_NOT_OK(committed.status());
  SILT_ASSIGN_OR_RETURN(auto last, Snapshot::Load(store));
  SILT_RETURN_NOT_OK(WriteCheckpoint(*store, *last, WallCheckpoint()));
  return DeleteStaleLogTempFiles(*store, *WallClock(), 0).status();
}

// Per version: (number of files, rows by stats).
struct VersionState {
  size_t files = 0;
  int64_t rows = 0;
  bool operator==(const VersionState&) const = default;
};

int64_t Rows(const Snapshot& s) {
  int64_t n = 0;
  for (const AddFile& f : s.files()) {
    auto p = f.stats ? f.stats->find("\"numRecords\":") : std::string::npos;
    if (p != std::string::npos) n += std::atoll(f.stats->c_str() + p + 13);
  }
  return n;
}

std::string TempRoot(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("silt-crashop-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// The child: runs the sequence on SILT_CRASHOP_DIR, dying at operation SILT_CRASHOP_AT.
TEST(CrashAtStorageOpTest, Child) {
  const char* dir = std::getenv("SILT_CRASHOP_DIR");
  const char* at = std::getenv("SILT_CRASHOP_AT");
  if (!dir || !at) GTEST_SKIP() << "run by CrashAtStorageOpTest.EveryOperation";
  auto store =
      std::make_shared<KillAtOpStore>(std::make_shared<LocalObjectStore>(dir), std::atoll(at));
  Status s = WriteSequence(store);
  ASSERT_TRUE(s.ok()) << s.ToString();
}

TEST(CrashAtStorageOpTest, EveryOperation) {
  // The model: every version's files and rows from an undisturbed run.
  std::string ref_dir = TempRoot("ref");
  auto counted = std::make_shared<KillAtOpStore>(std::make_shared<LocalObjectStore>(ref_dir), -1);
  ASSERT_TRUE(WriteSequence(counted).ok());
  const int64_t total_ops = counted->ops();
  auto ref = std::make_shared<LocalObjectStore>(ref_dir);
  std::map<int64_t, VersionState> model;
  for (int64_t v = 0; v <= 5; ++v) {
    auto s = Snapshot::Load(ref, v);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    model[v] = {(*s)->files().size(), Rows(**s)};
  }
  ASSERT_TRUE(model.count(5));
  std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  // The crash points: every operation with SILT_CRASHOP_ALL=1 (make stress: about a thousand,
  // each a child process), else kSampled of them spread evenly over the sequence from a per-run
  // offset, so that successive runs cover different ones.
  constexpr int64_t kSampled = 40;
  std::vector<int64_t> points;
  const char* all = std::getenv("SILT_CRASHOP_ALL");
  // The count varies by a few operations between runs (the checkpoint's Parquet is appended in
  // as many pieces as its compressed size needs, and that size depends on the random file
  // names), so the last point is one no run reaches: the undisturbed sequence must complete.
  constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  if ((all && std::string(all) == "1") || total_ops <= kSampled) {
    for (int64_t k = 1; k <= total_ops; ++k) points.push_back(k);
  } else {
    const int64_t offset = 1 + static_cast<int64_t>(::getpid()) % (total_ops / kSampled);
    for (int64_t i = 0; i < kSampled; ++i) points.push_back(offset + i * total_ops / kSampled);
  }
  points.push_back(kNever);
  int kills = 0;
  for (int64_t k : points) {
    std::string dir = TempRoot("k" + std::to_string(k));
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int null_fd = ::open("/dev/null", O_WRONLY);
      if (null_fd >= 0) {
        ::dup2(null_fd, 1);
        ::dup2(null_fd, 2);
      }
      ::setenv("SILT_CRASHOP_DIR", dir.c_str(), 1);
      ::setenv("SILT_CRASHOP_AT", std::to_string(k).c_str(), 1);
      ::execl(self.c_str(), self.c_str(), "--gtest_filter=CrashAtStorageOpTest.Child",
              "--gtest_brief=1", static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    const int code = WEXITSTATUS(status);
    ASSERT_TRUE(code == 0 || code == kDeathExit)
        << "child exited with " << code << " at operation " << k;
    auto store = std::make_shared<LocalObjectStore>(dir);
    auto snap = Snapshot::Load(store);
    if (!snap.ok()) {
      // Died before commit 0 was written: no table, and creating it again works.
      ASSERT_EQ(snap.status().error_class(), "DELTA_TABLE_NOT_FOUND")
          << "operation " << k << ": " << snap.status().ToString();
    } else {
      const int64_t v = (*snap)->version();
      ASSERT_TRUE(model.count(v)) << "operation " << k << ": version " << v;
      EXPECT_EQ((VersionState{(*snap)->files().size(), Rows(**snap)}), model[v])
          << "operation " << k << ", version " << v;
      for (const AddFile& f : (*snap)->files())
        EXPECT_TRUE(store->Head(f.path).ok())
            << "operation " << k << ": " << f.path << " is referenced but missing";
      // A rerun completes.
      Schema schema = TestSchema();
      auto again =
          AppendRows(store, {GenerateData(schema, 5, {.seed = 99})}, WallWrite(), WallTxn());
      ASSERT_TRUE(again.ok()) << "operation " << k << ": " << again.status().ToString();
      auto after = Snapshot::Load(store);
      ASSERT_TRUE(after.ok()) << "operation " << k << ": " << after.status().ToString();
      EXPECT_EQ(Rows(**after), model[v].rows + 5);
    }
    std::filesystem::remove_all(dir);
    if (k == kNever) {
      EXPECT_EQ(code, 0) << "the undisturbed sequence must complete";
    }
    if (code != 0) ++kills;
  }
  std::filesystem::remove_all(ref_dir);
  EXPECT_GE(total_ops, 100) << "the write sequence should have many storage operations";
  std::printf(
      "CrashAtStorageOp: %d crash points of %lld operations, every one left a committed version\n",
      kills, static_cast<long long>(total_ops));
}

}  // namespace
}  // namespace silt::delta
