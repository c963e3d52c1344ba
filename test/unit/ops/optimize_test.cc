// OPTIMIZE / ZORDER / REORG PURGE core: which files get rewritten (the 5 % rule exactly at the
// boundary, lone files, partitions), that deleted rows vanish physically, metrics and history.
#include "ops/optimize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "delta/deletion_vector.h"
#include "delta/history.h"
#include "delta/scan.h"
#include "delta/stats_json.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "io/memory_object_store.h"
#include "io/object_store.h"
#include "parquet/reader.h"
#include "support/forwarding_object_store.h"
#include "support/wall_clock.h"

namespace silt::ops {
namespace {

constexpr int64_t kT0 = 1700000000000;

class OptimizeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    clock_ = std::make_shared<ManualClock>(kT0);
    store_ = std::make_shared<InMemoryObjectStore>(clock_);
  }
  Schema TableSchema() {
    return {{"id", DataType::Int64(), true, "{}"}, {"p", DataType::String(), true, "{}"}};
  }
  void Create(bool partitioned) {
    delta::CreateTableOptions o = WallCreate();
    if (partitioned) o.partition_columns = {"p"};
    o.properties.Set("delta.enableDeletionVectors", "true");
    o.txn.clock = clock_;
    o.write.clock = clock_;
    ASSERT_TRUE(delta::CreateTable(store_, TableSchema(), {}, o).ok());
  }
  // One file of ids [from, from+n) in partition p.
  void Append(int64_t from, int64_t n, const std::string& p = "a") {
    DataChunk c = DataChunk::FromSchema(TableSchema());
    for (int64_t i = 0; i < n; ++i) {
      c.columns[0].Append<int64_t>(from + i);
      c.columns[1].AppendString(p);
    }
    delta::DataWriteOptions w = WallWrite();
    w.clock = clock_;
    delta::TransactionOptions t = WallTxn();
    t.clock = clock_;
    auto r = delta::AppendRows(store_, {c}, w, t);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    clock_->AdvanceMillis(1000);
  }
  std::shared_ptr<const delta::Snapshot> Latest() { return *delta::Snapshot::Load(store_); }
  // Marks physical rows of the file holding id `first_id` as deleted (a DV commit).
  void DeleteRows(int64_t first_id, const std::vector<uint64_t>& rows) {
    auto snap = Latest();
    for (const auto& f : snap->files()) {
      // The file's minimum id (stats ignore the DV, so later deletes still find it); partitioned
      // files have no other column in their statistics.
      const std::string min = "\"minValues\":{\"id\":" + std::to_string(first_id);
      bool mine = f.stats && (f.stats->find(min + ",") != std::string::npos ||
                              f.stats->find(min + "}") != std::string::npos);
      if (!mine) continue;
      delta::DeletionVector dv;
      for (uint64_t r : rows) {
        ASSERT_TRUE(dv.Add(r).ok());
      }
      auto file = *delta::EncodeNewDvFile({&dv});
      ASSERT_TRUE(store_->Put(file.relative_path, file.bytes).ok());
      delta::TransactionOptions t = WallTxn();
      t.clock = clock_;
      delta::Transaction txn(store_, snap, t);
      delta::RemoveFile rm;
      rm.path = f.path;
      rm.deletion_timestamp = clock_->NowMillis();
      rm.partition_values = f.partition_values;
      rm.size = f.size;
      rm.deletion_vector = f.deletion_vector;
      txn.Remove(rm);
      delta::AddFile a = f;
      a.deletion_vector = file.descriptors[0];
      txn.Add(a);
      txn.SetOperation("DELETE");
      ASSERT_TRUE(txn.Commit().ok());
      clock_->AdvanceMillis(1000);
      return;
    }
    FAIL() << "no file starts with id " << first_id;
  }
  std::vector<int64_t> Ids() {
    auto snap = Latest();
    auto made = delta::TableScan::Make(snap);
    EXPECT_TRUE(made.ok());
    auto scan = std::move(*made);
    std::vector<int64_t> ids;
    DataChunk c;
    while (*scan->Next(&c)) {
      for (size_t i = 0; i < c.size(); ++i) ids.push_back(c.columns[0].Get<int64_t>(i));
    }
    std::sort(ids.begin(), ids.end());
    return ids;
  }
  OptimizeResult Run(OptimizeOptions o) {
    o.clock = clock_;
    auto r = Optimize(store_, o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : OptimizeResult{};
  }
  std::vector<int64_t> Range(int64_t from, int64_t to) {
    std::vector<int64_t> v;
    for (int64_t i = from; i < to; ++i) v.push_back(i);
    return v;
  }

  std::shared_ptr<ManualClock> clock_;
  std::shared_ptr<InMemoryObjectStore> store_;
};

TEST_F(OptimizeTest, CompactsSmallFilesOfAPartitionIntoOne) {
  Create(false);
  Append(0, 10);
  Append(10, 10);
  Append(20, 10);
  auto r = Run({});
  EXPECT_EQ(r.num_files_removed, 3);
  EXPECT_EQ(r.num_files_added, 1);
  ASSERT_TRUE(r.committed_version.has_value());
  EXPECT_EQ(Latest()->files().size(), 1u);
  EXPECT_FALSE(Latest()->files()[0].data_change);
  EXPECT_EQ(Ids(), Range(0, 30));
  auto hist = *delta::ReadHistory(*store_, 1);
  EXPECT_EQ(*hist[0].commit_info->operation, "OPTIMIZE");
  EXPECT_EQ(*hist[0].commit_info->operation_metrics->Find("numRemovedFiles"), "3");
  EXPECT_EQ(*hist[0].commit_info->isolation_level, "SnapshotIsolation");
}

TEST_F(OptimizeTest, ALoneFileWithoutDeletedRowsIsNeverRewrittenAndNothingIsCommitted) {
  Create(false);
  Append(0, 10);
  int64_t before = Latest()->version();
  auto r = Run({});
  EXPECT_EQ(r.num_files_added, 0);
  EXPECT_FALSE(r.committed_version.has_value());
  EXPECT_EQ(Latest()->version(), before);
}

TEST_F(OptimizeTest, FilesLargerThanMinFileSizeAreLeftAlone) {
  Create(false);
  Append(0, 10);
  Append(10, 10);
  OptimizeOptions o;
  o.min_file_size = 1;  // every file counts as large
  auto r = Run(o);
  EXPECT_EQ(r.num_files_removed, 0);
}

TEST_F(OptimizeTest, TheDeletedRowsRatioIsStrictlyGreaterThan) {
  Create(false);
  Append(0, 100);
  DeleteRows(0, {0, 1, 2, 3, 4});  // exactly 5 %: not above the ratio
  OptimizeOptions o;
  o.min_file_size = 1;
  auto r = Run(o);
  EXPECT_EQ(r.num_files_removed, 0);
  DeleteRows(0, {0, 1, 2, 3, 4, 5});  // 6 %
  r = Run(o);
  EXPECT_EQ(r.num_files_removed, 1)
      << "a lone file with > 5 % deleted rows is rewritten (silt decision)";
  EXPECT_EQ(r.num_deletion_vectors_removed, 1);
  EXPECT_FALSE(Latest()->files()[0].deletion_vector.has_value());
  EXPECT_EQ(Ids(), Range(6, 100));
}

TEST_F(OptimizeTest, BinsRespectMaxFileSizeAndPartitions) {
  Create(true);
  Append(0, 10, "a");
  Append(10, 10, "a");
  Append(20, 10, "b");
  Append(30, 10, "b");
  Append(40, 10, "c");  // alone in its partition: untouched
  auto r = Run({});
  EXPECT_EQ(r.partitions_optimized, 2);
  EXPECT_EQ(r.num_files_removed, 4);
  EXPECT_EQ(r.num_files_added, 2);
  EXPECT_EQ(Latest()->files().size(), 3u);
  EXPECT_EQ(Ids(), Range(0, 50));
  OptimizeOptions tiny;
  tiny.max_file_size = 1;  // every file is its own bin → nothing to compact
  Append(50, 10, "a");
  r = Run(tiny);
  EXPECT_EQ(r.num_files_removed, 0);
}

TEST_F(OptimizeTest, PartitionFilterRestrictsTheFiles) {
  Create(true);
  Append(0, 10, "a");
  Append(10, 10, "a");
  Append(20, 10, "b");
  Append(30, 10, "b");
  OptimizeOptions o;
  o.partition_filter = [](const delta::AddFile& f) -> Result<bool> {
    const auto* v = f.partition_values.Find("p");
    return v && *v && **v == "b";
  };
  auto r = Run(o);
  EXPECT_EQ(r.num_files_removed, 2);
  EXPECT_EQ(Latest()->files().size(), 3u);
}

TEST_F(OptimizeTest, ReorgPurgeRewritesEveryFileWithADeletionVectorEvenBelowTheRatio) {
  Create(false);
  Append(0, 100);
  Append(100, 100);
  DeleteRows(0, {7});  // 1 %: OPTIMIZE would not care
  OptimizeOptions o;
  o.mode = OptimizeOptions::Mode::kReorgPurge;
  auto r = Run(o);
  EXPECT_EQ(r.num_files_removed, 1);
  EXPECT_EQ(r.num_files_added, 1);
  EXPECT_EQ(r.num_deletion_vector_rows_removed, 1);
  auto ids = Ids();
  EXPECT_EQ(ids.size(), 199u);
  EXPECT_FALSE(std::binary_search(ids.begin(), ids.end(), 7));
  auto hist = *delta::ReadHistory(*store_, 1);
  EXPECT_EQ(*hist[0].commit_info->operation, "REORG");
  EXPECT_EQ(*hist[0].commit_info->operation_parameters->Find("applyPurge"), "true");
  // No DVs left: a second PURGE is a no-op without a commit.
  int64_t v = Latest()->version();
  r = Run(o);
  EXPECT_FALSE(r.committed_version.has_value());
  EXPECT_EQ(Latest()->version(), v);
}

TEST_F(OptimizeTest, AllRowsDeletedFileJustDisappears) {
  Create(false);
  Append(0, 3);
  DeleteRows(0, {0, 1, 2});
  OptimizeOptions o;
  o.mode = OptimizeOptions::Mode::kReorgPurge;
  auto r = Run(o);
  EXPECT_EQ(r.num_files_removed, 1);
  EXPECT_EQ(r.num_files_added, 0);
  EXPECT_TRUE(Latest()->files().empty());
}

TEST_F(OptimizeTest, ReorgOnAPoolStreamsTheFilesInOrder) {
  // Twelve files (one bin) read in parallel while the new file is written: it holds the
  // surviving rows in the bin's file order (smallest file first).
  Create(false);
  std::map<int64_t, int64_t> rows_of;  // first id -> rows
  for (int64_t i = 0, from = 0; i < 12; ++i) {
    int64_t n = 40 + 15 * i;
    Append(from, n);
    rows_of[from] = n;
    DeleteRows(from, {0, static_cast<uint64_t>(n / 2)});
    from += n;
  }
  auto before = Latest();
  std::vector<std::pair<int64_t, int64_t>> order;  // (size, first id)
  for (const auto& f : before->files()) {
    auto st = delta::ParseStats(*f.stats, TableSchema()).value();
    order.emplace_back(f.size, st.Find("id")->min->integer());
  }
  std::sort(order.begin(), order.end());
  std::vector<int64_t> want;
  for (const auto& [size, from] : order) {
    int64_t n = rows_of[from];
    for (int64_t id = from; id < from + n; ++id)
      if (id != from && id != from + n / 2) want.push_back(id);
  }
  ThreadPool pool(3);
  OptimizeOptions o;
  o.mode = OptimizeOptions::Mode::kReorgPurge;
  o.pool = &pool;
  auto r = Run(o);
  EXPECT_EQ(r.num_files_removed, 12);
  EXPECT_EQ(r.num_files_added, 1);
  std::vector<std::string> added;
  auto after = Latest();
  for (const auto& f : after->files()) added.push_back(f.path);
  ASSERT_EQ(added.size(), 1u);
  auto pf = parquet::ParquetFile::Open(std::make_shared<BufferFile>(store_->Get(added[0]).value()))
                .value();
  std::vector<int64_t> got;
  for (int rg = 0; rg < pf->num_row_groups(); ++rg) {
    DataChunk c;
    ASSERT_TRUE(pf->ReadRowGroup(rg, {}, &c).ok());
    for (size_t i = 0; i < c.size(); ++i) got.push_back(c.columns[0].Get<int64_t>(i));
  }
  EXPECT_EQ(got, want);
}

TEST_F(OptimizeTest, AFailedStreamedRewriteLeavesNoNewFiles) {
  Create(false);
  for (int64_t i = 0; i < 6; ++i) {
    Append(i * 100, 100);
    DeleteRows(i * 100, {3});
  }
  auto parquet_files = [&] {
    std::vector<std::string> keys;
    EXPECT_TRUE(store_
                    ->ListRecursive("",
                                    [&](const ObjectMeta& m) {
                                      if (m.key.ends_with(".parquet") &&
                                          !m.key.starts_with("_delta_log"))
                                        keys.push_back(m.key);
                                      return Status::OK();
                                    })
                    .ok());
    return keys;
  };
  std::vector<std::string> keys = parquet_files();
  ASSERT_EQ(keys.size(), 6u);
  ASSERT_TRUE(store_->Delete(keys[3]).ok());  // a file of the bin is gone
  keys.erase(keys.begin() + 3);
  ThreadPool pool(2);
  OptimizeOptions o;
  o.mode = OptimizeOptions::Mode::kReorgPurge;
  o.pool = &pool;
  o.clock = clock_;
  int64_t v = Latest()->version();
  auto r = Optimize(store_, o);
  ASSERT_FALSE(r.ok());
  // The missing file's error, not that of a file that stopped reading because of it.
  EXPECT_NE(r.status().code(), StatusCode::kCancelled) << r.status().ToString();
  EXPECT_EQ(parquet_files(), keys);
  EXPECT_EQ(Latest()->version(), v);
}

TEST_F(OptimizeTest, ZOrderSortsRowsSoFilesHaveNarrowRanges) {
  Create(false);
  // Two files with interleaved ids; after ZORDER BY id into two files of half the size each,
  // ids are sorted within the bin.
  Append(0, 50);
  Append(50, 50);
  OptimizeOptions o;
  o.mode = OptimizeOptions::Mode::kZOrder;
  o.zorder_by = {"id"};
  auto r = Run(o);
  EXPECT_EQ(r.num_files_removed, 2);
  auto snap = Latest();
  auto made = delta::TableScan::Make(snap);
  ASSERT_TRUE(made.ok());
  auto scan = std::move(*made);
  std::vector<int64_t> order;
  for (const auto& f : snap->files()) {
    ASSERT_TRUE(scan->ScanFile(f,
                               [&](DataChunk& c) {
                                 for (size_t i = 0; i < c.size(); ++i)
                                   order.push_back(c.columns[0].Get<int64_t>(i));
                                 return Status::OK();
                               })
                    .ok());
  }
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
  EXPECT_EQ(order.size(), 100u);
}

TEST_F(OptimizeTest, ZOrderErrors) {
  Create(true);
  Append(0, 10);
  OptimizeOptions o;
  o.mode = OptimizeOptions::Mode::kZOrder;
  o.zorder_by = {"nope"};
  o.clock = clock_;
  auto r = Optimize(store_, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), "DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST");
  o.zorder_by = {"p"};
  r = Optimize(store_, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), "DELTA_ZORDERING_ON_PARTITION_COLUMN");
}

TEST(InterleaveBitsTest, MostSignificantBitsFirstAlternatingColumns) {
  // Two columns: a = 0b10..., b = 0b01... → first byte bits a31 b31 a30 b30 ... = 1 0 0 1 ...
  std::string z = InterleaveBits({0x80000000u, 0x40000000u});
  ASSERT_EQ(z.size(), 8u);
  EXPECT_EQ(static_cast<uint8_t>(z[0]), 0x90);
  EXPECT_EQ(InterleaveBits({1u}), std::string("\0\0\0\1", 4));
}

// The distributed steps (docs/scale-out.md): each bin travels as a serialized task, is rewritten
// against the planned version loaded anew (as a worker does) and comes back as a serialized
// output; the commit then matches the local command's.
class DistributedOptimizeTest : public OptimizeTest {
 protected:
  // What a worker does with a task: parse it, load its version, rewrite, serialize the output.
  std::string RunTask(const std::string& text) {
    auto task = ParseOptimizeTask(text);
    EXPECT_TRUE(task.ok()) << task.status().ToString();
    auto snap = *delta::Snapshot::Load(store_, task->version);
    std::vector<const delta::AddFile*> bin;
    for (const auto& f : task->files) {
      for (const auto& live : snap->files())
        if (live.path == f.path) bin.push_back(&live);
    }
    EXPECT_EQ(bin.size(), task->files.size());
    OptimizeOptions o;
    o.clock = clock_;
    o.mode = task->mode;
    o.zorder_by = task->zorder_by;
    o.max_file_size = task->max_file_size;
    auto added = RewriteOptimizeBin(store_, snap, bin, o);
    EXPECT_TRUE(added.ok()) << added.status().ToString();
    return SerializeOptimizeOutput(
        {task->job, task->bin, added.ok() ? *added : std::vector<delta::AddFile>{}});
  }
  std::vector<std::string> Tasks(const OptimizePlan& plan, const OptimizeOptions& o) {
    std::vector<std::string> out;
    for (size_t b = 0; b < plan.bins.size(); ++b) {
      OptimizeTask t{"job-1", "mem://t",   plan.snapshot->version(), static_cast<int64_t>(b),
                     o.mode,  o.zorder_by, o.max_file_size,          {}};
      for (const auto* f : plan.bins[b]) t.files.push_back(*f);
      out.push_back(SerializeOptimizeTask(t));
    }
    return out;
  }
  Result<OptimizeResult> Commit(const OptimizePlan& plan, const std::vector<std::string>& outputs,
                                const OptimizeOptions& o) {
    std::vector<std::vector<delta::AddFile>> added(plan.bins.size());
    for (const auto& text : outputs) {
      auto out = ParseOptimizeOutput(text);
      EXPECT_TRUE(out.ok()) << out.status().ToString();
      EXPECT_EQ(out->job, "job-1");
      added[static_cast<size_t>(out->bin)] = out->added;
    }
    return CommitOptimize(store_, plan, std::move(added), o);
  }
  void Fill() {
    Create(true);
    Append(0, 100, "a");
    Append(100, 100, "a");
    Append(200, 100, "b");
    Append(300, 100, "b");
    Append(400, 100, "c");
    DeleteRows(400, {1, 2, 3, 4, 5, 6});  // 6 %: the lone file of c is rewritten
  }
};

TEST_F(DistributedOptimizeTest, TheStepsCommitWhatOptimizeCommits) {
  Fill();
  OptimizeOptions o;
  o.clock = clock_;
  auto plan = PlanOptimize(store_, Latest(), o);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->bins.size(), 3u);
  std::vector<std::string> outputs;
  for (const auto& t : Tasks(*plan, o)) outputs.push_back(RunTask(t));
  std::reverse(outputs.begin(), outputs.end());  // outputs arrive in any order
  auto r = Commit(*plan, outputs, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_files_removed, 5);
  EXPECT_EQ(r->num_files_added, 3);
  EXPECT_EQ(r->num_deletion_vectors_removed, 1);
  EXPECT_EQ(r->partitions_optimized, 3);
  EXPECT_EQ(Latest()->files().size(), 3u);
  std::vector<int64_t> want = Range(0, 400);
  for (int64_t i = 407; i < 500; ++i) want.push_back(i);
  want.push_back(400);
  std::sort(want.begin(), want.end());
  EXPECT_EQ(Ids(), want);
  auto hist = *delta::ReadHistory(*store_, 1);
  EXPECT_EQ(*hist[0].commit_info->operation, "OPTIMIZE");
  EXPECT_EQ(*hist[0].commit_info->operation_metrics->Find("numRemovedFiles"), "5");
  EXPECT_EQ(*hist[0].commit_info->operation_metrics->Find("numAddedFiles"), "3");
  EXPECT_EQ(*hist[0].commit_info->read_version, plan->snapshot->version());

  // The local command on the same input commits the same shape.
  store_ = std::make_shared<InMemoryObjectStore>(clock_);
  Fill();
  auto local = Run({});
  EXPECT_EQ(local.num_files_removed, r->num_files_removed);
  EXPECT_EQ(local.num_files_added, r->num_files_added);
  EXPECT_EQ(local.files_added.total_files, r->files_added.total_files);
  EXPECT_EQ(Ids(), want);
}

TEST_F(DistributedOptimizeTest, ALostAttemptsFilesAreNeverReferenced) {
  Create(false);
  Append(0, 50);
  Append(50, 50);
  DeleteRows(0, {3});
  OptimizeOptions o;
  o.clock = clock_;
  o.mode = OptimizeOptions::Mode::kReorgPurge;
  auto plan = *PlanOptimize(store_, Latest(), o);
  ASSERT_EQ(plan.bins.size(), 1u);
  const std::string task = Tasks(plan, o)[0];
  const std::string lost = RunTask(task);   // a worker that died before reporting
  const std::string retry = RunTask(task);  // Dask's retry
  ASSERT_NE(lost, retry);
  ASSERT_TRUE(Commit(plan, {retry}, o).ok());
  const std::string lost_path = ParseOptimizeOutput(lost)->added.at(0).path;
  auto latest = Latest();  // held: the loop reads its files
  for (const auto& f : latest->files()) EXPECT_NE(f.path, lost_path);
  EXPECT_TRUE(store_->Head(lost_path).ok()) << "left for VACUUM";
  auto ids = Ids();
  EXPECT_EQ(ids.size(), 99u);
  auto hist = *delta::ReadHistory(*store_, 1);
  EXPECT_EQ(*hist[0].commit_info->operation, "REORG");
}

// Runs `before_commit` (another writer's commit) once, just before the next commit is published.
class InterleavingStore : public ForwardingObjectStore {
 public:
  using ForwardingObjectStore::ForwardingObjectStore;
  std::function<void()> before_commit;
  Status PutIfAbsent(const std::string& key, std::string_view data) override {
    if (before_commit && key.starts_with("_delta_log/") && key.ends_with(".json")) {
      std::function<void()> commit = std::move(before_commit);
      before_commit = nullptr;
      commit();
    }
    return ForwardingObjectStore::PutIfAbsent(key, data);
  }
};

// The same other writer's commit lands while OPTIMIZE runs locally and while the cluster
// rewrites: both end the same way.
TEST_F(DistributedOptimizeTest, AConcurrentCommitEndsAsItDoesForTheLocalCommand) {
  struct Case {
    bool dv_before;           // the planned file already has a deletion vector
    bool delete_rows;         // the other writer deletes a row of a planned file (else appends)
    const char* error_class;  // "" = the OPTIMIZE commits
  };
  for (const Case& c :
       {Case{false, true, "DELTA_CONCURRENT_DELETE_DELETE"},
        Case{true, true, "DELTA_CONCURRENT_DELETE_DELETE"}, Case{false, false, ""}}) {
    SCOPED_TRACE(std::to_string(c.dv_before) + std::to_string(c.delete_rows));
    auto other_writer = [&] {
      if (c.delete_rows) {
        DeleteRows(0, c.dv_before ? std::vector<uint64_t>{1, 2, 7} : std::vector<uint64_t>{1, 2});
      } else {
        Append(1000, 10);
      }
    };
    std::string outcome[2];
    for (int distributed = 0; distributed < 2; ++distributed) {
      store_ = std::make_shared<InMemoryObjectStore>(clock_);
      Create(false);
      Append(0, 50);
      Append(50, 50);
      if (c.dv_before) DeleteRows(0, {7});
      const int64_t before = Latest()->version();
      OptimizeOptions o;
      o.clock = clock_;
      Result<OptimizeResult> r = Status::Internal("not run");
      if (distributed) {
        auto plan = *PlanOptimize(store_, Latest(), o);
        std::vector<std::string> outputs;
        for (const auto& t : Tasks(plan, o)) outputs.push_back(RunTask(t));
        other_writer();
        r = Commit(plan, outputs, o);
      } else {
        auto store = std::make_shared<InterleavingStore>(store_);
        store->before_commit = other_writer;
        r = Optimize(store, o);
      }
      outcome[distributed] = r.ok() ? "" : r.status().error_class();
      EXPECT_EQ(outcome[distributed], c.error_class);
      EXPECT_EQ(Latest()->version(), before + (r.ok() ? 2 : 1));
      EXPECT_EQ(Ids().size(), c.delete_rows ? 100u - (c.dv_before ? 3 : 2) : 110u);
    }
    EXPECT_EQ(outcome[0], outcome[1]);
  }
}

TEST_F(DistributedOptimizeTest, MalformedTasksAndOutputsAreRefused) {
  Create(false);
  Append(0, 10);
  Append(10, 10);
  OptimizeOptions o;
  o.clock = clock_;
  auto plan = *PlanOptimize(store_, Latest(), o);
  const int64_t before = Latest()->version();
  auto missing = CommitOptimize(store_, plan, {}, o);
  EXPECT_EQ(missing.status().error_class(), "SILT_OPTIMIZE_BIN_MISMATCH");
  EXPECT_EQ(Latest()->version(), before);
  for (const char* bad : {"", "[]", "{}", "{\"job\":1}"}) {
    EXPECT_EQ(ParseOptimizeTask(bad).status().error_class(), "SILT_INVALID_DISTRIBUTED_TASK")
        << bad;
    EXPECT_EQ(ParseOptimizeOutput(bad).status().error_class(), "SILT_INVALID_DISTRIBUTED_TASK")
        << bad;
  }
  // A task survives its round trip exactly.
  const std::string text = Tasks(plan, o)[0];
  auto parsed = ParseOptimizeTask(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(SerializeOptimizeTask(*parsed), text);
  EXPECT_EQ(parsed->files.size(), 2u);
}

}  // namespace
}  // namespace silt::ops
