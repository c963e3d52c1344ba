// VACUUM against real tables (Parquet data files, deletion-vector files): a randomized property
// test over histories of appends, removes and DV deletes with clock advances, and fault injection
// in the delete and commit phases.
#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <random>
#include <set>

#include "common/thread_pool.h"
#include "delta/deletion_vector.h"
#include "delta/scan.h"
#include "ops/vacuum.h"
#include "support/fault_injecting_object_store.h"
#include "support/wall_clock.h"
#include "unit/ops/vacuum_test_util.h"
#include "vector/generate.h"

namespace silt::ops {
namespace {

using testing::kDay;
using testing::kHour;
using testing::kT0;
using testing::TwoColumnSchema;

using Rows = std::vector<std::string>;

Result<Rows> ReadRows(std::shared_ptr<ObjectStore> store, std::optional<int64_t> version) {
  SILT_ASSIGN_OR_RETURN(auto snap, delta::Snapshot::Load(store, version));
  SILT_ASSIGN_OR_RETURN(auto scan, delta::TableScan::Make(snap));
  Rows rows;
  DataChunk c;
  while (true) {
    SILT_ASSIGN_OR_RETURN(bool more, scan->Next(&c));
    if (!more) break;
    for (size_t r = 0; r < c.size(); ++r) {
      std::string s;
      for (const auto& col : c.columns) s += col.GetValue(r).ToJson() + "|";
      rows.push_back(s);
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::set<std::string> AllKeys(ObjectStore& store) {
  std::set<std::string> keys;
  EXPECT_TRUE(store
                  .ListRecursive("",
                                 [&](const ObjectMeta& m) {
                                   if (!m.is_dir) keys.insert(m.key);
                                   return Status::OK();
                                 })
                  .ok());
  return keys;
}

int64_t NumRecords(const delta::AddFile& f) {
  size_t at = f.stats ? f.stats->find("\"numRecords\":") : std::string::npos;
  return at == std::string::npos ? 0 : std::stoll(f.stats->substr(at + 13));
}

// A table whose history the test drives and remembers: rows and commit time of every version.
class History {
 public:
  explicit History(uint64_t seed) : rng_(seed) {}

  testing::VacuumTable t;
  std::map<int64_t, Rows> rows_at;
  std::map<int64_t, int64_t> time_at;  // commit timestamp (clock at commit)
  std::set<std::string> data_files, dv_files, junk;
  std::map<std::string, delta::DeletionVector> dvs;  // current DV per data file
  std::mt19937_64 rng_;
  int64_t max_cutoff_ = std::numeric_limits<int64_t>::min();

  void Create() {
    t.Create({{"delta.deletedFileRetentionDuration", "interval 2 days"},
              {"delta.enableDeletionVectors", "true"},
              {"delta.enableExpiredLogCleanup", "false"}});
    Record();
  }
  // Remembers the latest version(s) with the current rows.
  void Record() {
    int64_t latest = t.Version();
    auto rows = ReadRows(t.store(), std::nullopt);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    for (int64_t v = rows_at.empty() ? 0 : rows_at.rbegin()->first + 1; v <= latest; ++v) {
      rows_at[v] = *rows;
      time_at[v] = t.clock()->NowMillis();
    }
  }
  int Pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }

  void Append() {
    GenerateOptions g;
    g.seed = rng_();
    DataChunk chunk = GenerateData(TwoColumnSchema(), 1 + static_cast<size_t>(Pick(20)), g);
    delta::DataWriteOptions w = WallWrite();
    w.clock = t.clock();
    auto r = delta::AppendRows(t.store(), {chunk}, w, t.TxnOptions());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    auto snap = t.Latest();
    for (const auto& f : snap->files()) data_files.insert(f.path);
    Record();
  }
  std::optional<delta::AddFile> RandomLiveFile() {
    auto snap = t.Latest();
    if (snap->files().empty()) return std::nullopt;
    return snap->files()[static_cast<size_t>(Pick(static_cast<int>(snap->files().size())))];
  }
  delta::RemoveFile RemoveOf(const delta::AddFile& f) {
    delta::RemoveFile r = t.RemoveAction(f.path, f.size);
    r.deletion_vector = f.deletion_vector;
    r.partition_values = f.partition_values;
    return r;
  }
  void RemoveFile() {
    auto f = RandomLiveFile();
    if (!f) return;
    t.CommitActions({}, {RemoveOf(*f)}, {}, "DELETE");
    Record();
  }
  // A DELETE of some rows of one file through a new DV file (or of the file when all go).
  void DeleteRows() {
    auto f = RandomLiveFile();
    if (!f) return;
    int64_t n = NumRecords(*f);
    delta::DeletionVector dv = dvs[f->path];
    for (int i = 0; i < 1 + Pick(3); ++i) {
      ASSERT_TRUE(dv.Add(static_cast<uint64_t>(Pick(static_cast<int>(n)))).ok());
    }
    if (dv.Cardinality() == static_cast<uint64_t>(n)) {
      t.CommitActions({}, {RemoveOf(*f)}, {}, "DELETE");
    } else {
      auto nf = delta::EncodeNewDvFile({&dv}, Pick(2) ? 2 : 0);
      ASSERT_TRUE(nf.ok());
      t.Write(nf->relative_path, nf->bytes);
      dv_files.insert(nf->relative_path);
      delta::AddFile a = *f;
      a.deletion_vector = nf->descriptors[0];
      t.CommitActions({a}, {RemoveOf(*f)}, {}, "DELETE");
      dvs[f->path] = dv;
    }
    Record();
  }
  void Junk() {
    std::string key = "junk-" + std::to_string(rng_() % 100000) + ".parquet";
    t.Write(key, "junk");
    junk.insert(key);
    t.Write("_hidden/" + key, "junk");
    t.Write("p=1/.hidden-" + key + ".crc", "junk");
  }

  // VACUUM with random options; checks what it deleted and that every version still in the
  // retention window reads exactly as it did.
  void VacuumAndCheck() {
    static const std::optional<double> kRetains[] = {std::nullopt, 0.0, 12.0, 24.0, 47.0};
    VacuumOptions o = t.Options(kRetains[Pick(5)]);
    o.mode = Pick(3) == 0 ? VacuumMode::kLite : VacuumMode::kFull;
    o.logging_enabled = Pick(2) == 0;
    std::set<std::string> before = AllKeys(*t.store());
    auto r = t.Run(o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    std::set<std::string> after = AllKeys(*t.store());
    for (const auto& k : before) {
      if (after.count(k)) continue;
      EXPECT_TRUE(data_files.count(ToDeltaPath(k)) || dv_files.count(k) || junk.count(k))
          << "VACUUM deleted " << k << ", which is no data, DV or junk file";
    }
    for (const auto& k : before) {
      if (k.starts_with("_delta_log/") || k.starts_with("_hidden/") || k.starts_with("p=1/.")) {
        EXPECT_TRUE(after.count(k)) << "VACUUM deleted " << k;
      }
    }
    Record();
    // An earlier run with a shorter RETAIN may have had a later cutoff: the window is the
    // intersection of all runs' windows.
    max_cutoff_ = std::max(max_cutoff_, r->min_retained_timestamp_ms);
    const int64_t cutoff = max_cutoff_;
    for (const auto& [v, expected] : rows_at) {
      auto next = time_at.find(v + 1);
      if (next != time_at.end() && next->second <= cutoff) continue;  // outside the window
      auto rows = ReadRows(t.store(), v);
      ASSERT_TRUE(rows.ok()) << "version " << v << " after VACUUM (cutoff " << cutoff
                             << "): " << rows.status().ToString();
      EXPECT_EQ(*rows, expected) << "version " << v;
    }
  }
};

TEST(VacuumProperty, RandomHistoriesKeepEveryVersionInsideTheRetentionWindowReadable) {
  for (uint64_t seed = 1; seed <= 16; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    History h(seed);
    h.Create();
    for (int step = 0; step < 40; ++step) {
      // Advance between one minute and a day and a half, so removes age past the 2-day window.
      h.t.clock()->AdvanceMillis(
          60'000 + static_cast<int64_t>(h.rng_() % static_cast<uint64_t>(36 * kHour)));
      switch (h.Pick(6)) {
        case 0:
        case 1:
          h.Append();
          break;
        case 2:
          h.RemoveFile();
          break;
        case 3:
          h.DeleteRows();
          break;
        case 4:
          h.Junk();
          break;
        default:
          h.VacuumAndCheck();
          break;
      }
      if (::testing::Test::HasFatalFailure()) return;
    }
    h.t.clock()->AdvanceMillis(3 * kDay);
    h.VacuumAndCheck();
  }
}

// ---------------------------------------------------------------------------------------------
// Fault injection

struct FaultTable {
  testing::VacuumTable t;
  std::shared_ptr<FaultInjectingObjectStore> faults;
  Rows latest_rows;

  // Ten data files, six of them removed long ago, plus untracked junk.
  void Build() {
    t.Create();
    delta::DataWriteOptions w = WallWrite();
    w.clock = t.clock();
    for (int i = 0; i < 10; ++i) {
      GenerateOptions g;
      g.seed = static_cast<uint64_t>(i);
      ASSERT_TRUE(
          delta::AppendRows(t.store(), {GenerateData(TwoColumnSchema(), 5, g)}, w, t.TxnOptions())
              .ok());
    }
    auto snap = t.Latest();
    std::vector<delta::RemoveFile> removes;
    for (size_t i = 0; i < 6; ++i) removes.push_back(t.RemoveAction(snap->files()[i].path));
    t.CommitActions({}, removes, {}, "DELETE");
    for (int i = 0; i < 4; ++i) t.Write("junk" + std::to_string(i));
    t.clock()->AdvanceMillis(8 * kDay);
    latest_rows = *ReadRows(t.store(), std::nullopt);
    faults = std::make_shared<FaultInjectingObjectStore>(t.store(), 7);
    t.set_store(faults);
  }
  void ExpectLatestReads() {
    auto rows = ReadRows(t.store(), std::nullopt);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    EXPECT_EQ(*rows, latest_rows);
  }
};

TEST(VacuumFaults, DeleteFailsMidwayTableReadsAndARerunFinishes) {
  FaultTable f;
  f.Build();
  f.faults->AddRule(FaultRule::FailAfter(3, ObjectOp::kDelete));
  VacuumOptions o = f.t.Options();
  o.delete_batch_size = 2;
  VacuumResult first = f.t.RunOk(o);
  EXPECT_EQ(first.num_files_to_delete, 10);
  EXPECT_EQ(first.num_deleted_files, 3);
  EXPECT_EQ(first.num_failed_deletes, 7);
  EXPECT_EQ(first.first_delete_error.error_class(), kErrorInjectedFault);
  EXPECT_FALSE(first.recorded_watermark.has_value());  // a partial run does not advance LITE
  f.ExpectLatestReads();
  f.faults->ClearRules();
  VacuumResult second = f.t.RunOk(o);
  EXPECT_EQ(second.num_deleted_files, 7);
  EXPECT_EQ(second.num_failed_deletes, 0);
  EXPECT_TRUE(f.t.DryRunKeys().empty());
  f.ExpectLatestReads();
}

TEST(VacuumFaults, RandomDeleteFaultsOnAPoolConvergeOverReruns) {
  FaultTable f;
  f.Build();
  f.faults->AddRule(FaultRule::FailWithProbability(0.5, ObjectOp::kDelete));
  ThreadPool pool(2);
  VacuumOptions o = f.t.Options();
  o.delete_pool = &pool;
  o.delete_batch_size = 3;
  int64_t deleted = 0;
  int runs = 0;
  while (runs < 50) {
    ++runs;
    VacuumResult r = f.t.RunOk(o);
    deleted += r.num_deleted_files;
    f.ExpectLatestReads();
    if (r.num_failed_deletes == 0) break;
  }
  EXPECT_GT(runs, 1);
  EXPECT_EQ(deleted, 10);
  f.faults->ClearRules();
  EXPECT_TRUE(f.t.DryRunKeys().empty());
}

TEST(VacuumFaults, EndCommitFailsAfterDeletesTheErrorIsReturnedAndTheTableReads) {
  FaultTable f;
  f.Build();
  FaultRule rule = FaultRule::FailAfter(1, ObjectOp::kPutIfAbsent);  // START ok, END fails
  f.faults->AddRule(rule);
  auto r = f.t.Run(f.t.Options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), kErrorInjectedFault);
  f.ExpectLatestReads();
  f.faults->ClearRules();
  VacuumResult again = f.t.RunOk(f.t.Options());
  EXPECT_EQ(again.num_deleted_files, 0);  // the failed run had deleted everything already
  f.ExpectLatestReads();
}

TEST(VacuumFaults, StartCommitFailsNothingIsDeleted) {
  FaultTable f;
  f.Build();
  f.faults->AddRule(FaultRule::FailAll(ObjectOp::kPutIfAbsent));
  std::set<std::string> before = AllKeys(f.faults->inner());
  auto r = f.t.Run(f.t.Options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(f.faults->op_count(ObjectOp::kDelete), 0);
  EXPECT_EQ(AllKeys(f.faults->inner()), before);
}

TEST(VacuumFaults, ListingFailsTheRunFailsBeforeAnyDelete) {
  FaultTable f;
  f.Build();
  f.faults->AddRule(FaultRule::FailAll(ObjectOp::kListRecursive));
  auto r = f.t.Run(f.t.Options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(f.faults->op_count(ObjectOp::kDelete), 0);
  EXPECT_EQ(f.faults->op_count(ObjectOp::kPutIfAbsent), 0);
}

TEST(VacuumDvHistory, D_dv_history_VersionByVersionVacuumKeepsTimeTravelOfTheVacuumedAtVersion) {
  History h(99);
  h.t.Create({{"delta.deletedFileRetentionDuration", "interval 1 hours"},
              {"delta.enableDeletionVectors", "true"}});
  h.Record();
  h.Append();
  h.Append();
  for (int i = 0; i < 4; ++i) {
    h.t.clock()->AdvanceMillis(10 * 60'000);
    h.DeleteRows();
  }
  // Clock just past each version + 1 h: VACUUM with the table's retention.
  auto times = h.time_at;
  for (const auto& [v, ts] : times) {
    if (ts + kHour + 1 <= h.t.clock()->NowMillis()) continue;
    h.t.clock()->SetMillis(ts + kHour + 1);
    VacuumOptions o = h.t.Options();
    o.retention_check_enabled = true;
    auto r = h.t.Run(o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    auto rows = ReadRows(h.t.store(), v);
    ASSERT_TRUE(rows.ok()) << "version " << v << ": " << rows.status().ToString();
    EXPECT_EQ(*rows, h.rows_at[v]) << "version " << v;
    h.Record();
  }
  // Superseded DV files are gone by now, the live ones remain.
  std::set<std::string> keys = AllKeys(*h.t.store());
  int dv_left = 0;
  for (const auto& k : keys) dv_left += k.find("deletion_vector_") != std::string::npos;
  int live_dvs = 0;
  auto latest = h.t.Latest();
  for (const auto& f : latest->files()) live_dvs += f.deletion_vector.has_value();
  EXPECT_EQ(dv_left, live_dvs);
}

}  // namespace
}  // namespace silt::ops
