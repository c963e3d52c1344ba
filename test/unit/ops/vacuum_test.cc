// VACUUM command core: the given/when/then scenarios of ../shared/specs/vacuum.md §10 that need
// no SQL (each test is named after its scenario id), plus silt's own edge cases.
#include "ops/vacuum.h"

#include <gtest/gtest.h>

#include <fstream>
#include <limits>

#include "common/thread_pool.h"
#include "delta/checkpoint_writer.h"
#include "delta/deletion_vector.h"
#include "delta/history.h"
#include "io/local_object_store.h"
#include "io/memory_object_store.h"
#include "support/wall_clock.h"
#include "unit/ops/vacuum_test_util.h"
#include "vector/vector.h"

namespace silt::ops {
namespace {

using testing::kDay;
using testing::kHour;
using testing::kT0;
using testing::TempDir;
using testing::VacuumTable;

using Keys = std::vector<std::string>;

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

delta::CommitInfo CommitInfoAt(ObjectStore& store, int64_t version) {
  std::vector<delta::Action> actions;
  EXPECT_TRUE(delta::ParseCommit(*store.Get(delta::CommitKey(version)), &actions, "c").ok());
  for (auto& a : actions) {
    if (auto* ci = a.get_if<delta::CommitInfo>()) return *ci;
  }
  ADD_FAILURE() << "no commitInfo in version " << version;
  return {};
}

// ---------------------------------------------------------------------------------------------
// Resolution and protocol

TEST(VacuumResolution, D_nonexistent_EmptyStoreOrPlainParquetDirIsNotADeltaTable) {
  VacuumOptions plain;
  plain.clock = std::make_shared<ManualClock>(kT0);
  auto store = std::make_shared<InMemoryObjectStore>(plain.clock);
  auto r = Vacuum(store, plain);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), kErrorTableOnlyOperation);
  EXPECT_TRUE(Contains(r.status().message(), "is not a Delta table.")) << r.status().ToString();
  ASSERT_TRUE(store->Put("part-0.parquet", "PAR1").ok());
  VacuumOptions dry = plain;
  dry.dry_run = true;
  EXPECT_EQ(Vacuum(store, dry).status().error_class(), kErrorTableOnlyOperation);
}

TEST(VacuumResolution, D_partition_path_APartitionDirectoryIsNotADeltaTable) {
  TempDir tmp;
  VacuumTable t(tmp.path());
  t.Create({}, {"v2"});
  t.AddFileCommitted("v2=a/f.parquet");
  auto part = std::make_shared<LocalObjectStore>(tmp.path() + "/v2=a");
  VacuumOptions o = t.Options(0);
  auto r = Vacuum(part, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), kErrorTableOnlyOperation);
  EXPECT_TRUE(Contains(r.status().message(),
                       "v2=a` is not a Delta table. VACUUM is only supported for Delta tables."))
      << r.status().ToString();
  EXPECT_TRUE(t.Exists("v2=a/f.parquet"));
}

TEST(VacuumResolution, D_no_state_ALogWithoutCommitsRefusesToGarbageCollect) {
  auto store = std::make_shared<InMemoryObjectStore>(WallClock());
  ASSERT_TRUE(store->Put("_delta_log/_last_checkpoint", "{}").ok());
  ASSERT_TRUE(store->Put("f.parquet", "x").ok());
  VacuumOptions o;
  o.clock = std::make_shared<ManualClock>(kT0);
  auto r = Vacuum(store, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), kErrorVacuumNoState);
  EXPECT_TRUE(Contains(r.status().message(), "No state defined for this table"));
  EXPECT_TRUE(store->Head("f.parquet").ok());
}

TEST(VacuumResolution, D_catalog_managed_IsBlockedAlsoForDryRun) {
  VacuumTable t;
  delta::Protocol p;
  p.min_reader_version = 3;
  p.min_writer_version = 7;
  p.reader_features = std::vector<std::string>{"catalogManaged"};
  p.writer_features = std::vector<std::string>{"catalogManaged"};
  t.Create({}, {}, &p);
  for (bool dry : {false, true}) {
    auto r = t.Run(t.Options(std::nullopt, dry));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().error_class(), kErrorCatalogManagedOperation) << r.status().ToString();
    EXPECT_TRUE(Contains(r.status().message(), "VACUUM is blocked by the catalog"));
  }
}

TEST(VacuumResolution, S_vacuumProtocolCheck_UnsupportedWriterFeatureIsRefusedBeforeAnyDelete) {
  VacuumTable t;
  delta::Protocol p;
  p.min_reader_version = 3;
  p.min_writer_version = 7;
  p.reader_features = std::vector<std::string>{"vacuumProtocolCheck"};
  p.writer_features = std::vector<std::string>{"vacuumProtocolCheck", "icebergCompatV3"};
  t.Create({}, {}, &p);
  t.Write("junk.parquet", "x", kT0 - 30 * kDay);
  for (bool dry : {true, false}) {
    auto r = t.Run(t.Options(0, dry));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().error_class(), "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE");
  }
  EXPECT_TRUE(t.Exists("junk.parquet"));
  // With only supported features (vacuumProtocolCheck itself is one) VACUUM runs.
  VacuumTable ok;
  p.writer_features = std::vector<std::string>{"vacuumProtocolCheck"};
  ok.Create({}, {}, &p);
  ok.Write("junk.parquet", "x", kT0 - 30 * kDay);
  EXPECT_EQ(ok.DryRunKeys(), Keys{"junk.parquet"});
}

TEST(VacuumResolution, D_syntax_5_InventoryIsNotCompatibleWithLite) {
  VacuumTable t;
  t.Create();
  VacuumOptions o = t.Options();
  o.mode = VacuumMode::kLite;
  o.inventory = std::vector<InventoryEntry>{};
  auto r = t.Run(o);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.status().message(), "Inventory option is not compatible with LITE"));
}

// ---------------------------------------------------------------------------------------------
// Basic behaviour

TEST(VacuumBasic, D_basic_path_DryRunListsTheOldUncommittedFileThenTheRunDeletesOnlyIt) {
  TempDir tmp;
  VacuumTable t(tmp.path());
  t.Create();
  t.AddFileCommitted("file1.parquet");
  t.Write("file2.parquet");
  t.clock()->AdvanceMillis(8 * kDay);
  VacuumResult dry = t.RunOk(t.Options(std::nullopt, true));
  ASSERT_EQ(dry.candidates.size(), 1u);
  EXPECT_EQ(dry.candidates[0].key, "file2.parquet");
  EXPECT_EQ(dry.candidates[0].path, "file://" + tmp.path() + "/file2.parquet");
  EXPECT_EQ(dry.table_path, "file://" + tmp.path());
  EXPECT_TRUE(t.Exists("file2.parquet"));
  VacuumResult run = t.RunOk(t.Options());
  EXPECT_EQ(run.table_path, "file://" + tmp.path());
  EXPECT_EQ(run.deleted, Keys{"file2.parquet"});
  EXPECT_FALSE(t.Exists("file2.parquet"));
  EXPECT_TRUE(t.Exists("file1.parquet"));
}

TEST(VacuumBasic, D_scala_api_DefaultRetentionDeletesOldUntrackedThenZeroDeletesRemoved) {
  VacuumTable t;
  t.Create();
  t.AddFileCommitted("a.parquet");
  t.Write("untracked.parquet");
  t.clock()->AdvanceMillis(7 * kDay + 1);
  VacuumResult r = t.RunOk(t.Options());
  EXPECT_EQ(r.deleted, Keys{"untracked.parquet"});
  EXPECT_FALSE(r.specified_retention_millis.has_value());
  EXPECT_EQ(r.min_retained_timestamp_ms, t.clock()->NowMillis() - 7 * kDay);
  t.Remove("a.parquet");
  t.clock()->AdvanceMillis(1000);
  EXPECT_TRUE(t.Exists("a.parquet"));
  EXPECT_EQ(t.RunOk(t.Options(0)).deleted, Keys{"a.parquet"});
}

// silt.dask's seam: the deletes of each batch go to delete_files (a cluster) instead of the store;
// its failures count as the store's would.
TEST(VacuumBasic, S_delete_files_TheBatchesGoToTheHookAndItsFailuresAreCounted) {
  VacuumTable t;
  t.Create();
  t.AddFileCommitted("a.parquet");
  t.Write("x.parquet");
  t.Write("y.parquet");
  t.Write("z.parquet");
  t.clock()->AdvanceMillis(8 * kDay);
  VacuumOptions o = t.Options();
  o.delete_batch_size = 2;
  std::vector<Keys> batches;
  o.delete_files = [&](std::span<const std::string_view> keys, std::span<Status> statuses) {
    batches.emplace_back(keys.begin(), keys.end());
    for (size_t i = 0; i < keys.size(); ++i) {
      statuses[i] = keys[i] == "y.parquet" ? Status::IoError("worker lost") : Status::OK();
    }
  };
  VacuumResult r = t.RunOk(o);
  EXPECT_EQ(batches, (std::vector<Keys>{{"x.parquet", "y.parquet"}, {"z.parquet"}}));
  EXPECT_EQ(r.deleted, (Keys{"x.parquet", "z.parquet"}));
  EXPECT_EQ(r.num_failed_deletes, 1);
  EXPECT_EQ(r.first_delete_error.message(), "worker lost");
  EXPECT_TRUE(t.Exists("x.parquet")) << "the hook deletes, not Vacuum";
  EXPECT_TRUE(t.Exists("a.parquet"));
}

// ---------------------------------------------------------------------------------------------
// Retention and the safety check

TEST(VacuumRetention, D_check_default_ZeroHoursFailsWithTheSafetyMessageUnlessDisabled) {
  VacuumTable t;
  t.Create();
  VacuumOptions o = t.Options(0);
  o.retention_check_enabled = true;
  for (bool dry : {false, true}) {
    o.dry_run = dry;
    auto r = t.Run(o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().error_class(), kErrorVacuumRetentionTooShort);
    EXPECT_TRUE(Contains(r.status().message(), "delta.retentionDurationCheck.enabled = false"));
    EXPECT_TRUE(Contains(r.status().message(), "168 hours"));
    EXPECT_TRUE(Contains(r.status().message(), "The specified VACUUM retention period is too low"));
  }
  o.retention_check_enabled = false;
  EXPECT_TRUE(t.Run(o).ok());
  // No RETAIN at all is always safe.
  VacuumOptions plain = t.Options();
  plain.retention_check_enabled = true;
  EXPECT_TRUE(t.Run(plain).ok());
}

TEST(VacuumRetention, D_check_dv_DeletionVectorTableStillHasTheSafetyCheck) {
  VacuumTable t;
  t.Create({{"delta.enableDeletionVectors", "true"}});
  t.AddFileCommitted("f.parquet");
  VacuumOptions o = t.Options(0);
  o.retention_check_enabled = true;
  auto r = t.Run(o);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.status().message(), "The specified VACUUM retention period is too low"));
}

TEST(VacuumRetention, D_negative_NegativeRetainFailsEvenWithTheCheckOff) {
  VacuumTable t;
  t.Create();
  auto r = t.Run(t.Options(-2));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), kErrorVacuumRetentionNegative);
  EXPECT_TRUE(
      Contains(r.status().message(), "Retention period for Vacuum can't be less than 0 hours"));
  // Delta 4.1+ mode ignores a non-zero RETAIN, negative ones included.
  VacuumOptions o = t.Options(-2, true);
  o.retain_argument_mode = RetainArgumentMode::kIgnoreNonZero;
  auto ignored = t.Run(o);
  ASSERT_TRUE(ignored.ok()) << ignored.status().ToString();
  EXPECT_TRUE(ignored->retain_ignored);
}

TEST(VacuumRetention, D_ignore_nonzero_Delta41IgnoresRetain24HoursAndUsesTheProperty) {
  VacuumTable t;
  t.Create();
  t.AddFileCommitted("file1.parquet");
  t.AddFileCommitted("file2.parquet");
  t.Remove("file1.parquet");
  t.clock()->AdvanceMillis(7 * kDay + 1000);
  t.Remove("file2.parquet");
  t.clock()->AdvanceMillis(1 * kDay + 1000);  // T + 8d + 2s
  VacuumOptions o = t.Options(24, true);
  o.retain_argument_mode = RetainArgumentMode::kIgnoreNonZero;
  o.retention_check_enabled = true;  // 24 h < 168 h, but ignored → no safety error
  VacuumResult r = t.RunOk(o);
  ASSERT_EQ(r.candidates.size(), 1u);
  EXPECT_EQ(r.candidates[0].key, "file1.parquet");
  EXPECT_TRUE(r.retain_ignored);
  EXPECT_FALSE(r.specified_retention_millis.has_value());
  // Honor mode (the default) with the check off: 24 h makes both removes expired.
  EXPECT_EQ(t.DryRunKeys(24), (Keys{"file1.parquet", "file2.parquet"}));
}

TEST(VacuumRetention, S_check_table_property_ComparesWithTheTablesRetentionNotWith168Hours) {
  VacuumTable t;
  t.Create({{"delta.deletedFileRetentionDuration", "interval 1 hours"}});
  VacuumOptions o = t.Options(1, true);
  o.retention_check_enabled = true;
  EXPECT_TRUE(t.Run(o).ok());
  o.retain_hours = 0;
  auto r = t.Run(o);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.status().message(), "at least 1 hours")) << r.status().ToString();
  // A 30-day table rejects RETAIN 168 HOURS.
  VacuumTable month;
  month.Create({{"delta.deletedFileRetentionDuration", "interval 30 days"}});
  VacuumOptions w = month.Options(168, true);
  w.retention_check_enabled = true;
  auto rw = month.Run(w);
  ASSERT_FALSE(rw.ok());
  EXPECT_TRUE(Contains(rw.status().message(), "at least 720 hours"));
}

TEST(VacuumRetention, S_check_rounding_up_NinetyMinutesNeedsTwoHours) {
  VacuumTable t;
  t.Create({{"delta.deletedFileRetentionDuration", "interval 90 minutes"}});
  VacuumOptions o = t.Options(1, true);
  o.retention_check_enabled = true;
  auto r = t.Run(o);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.status().message(), "at least 2 hours")) << r.status().ToString();
}

TEST(VacuumRetention, S_retain_fraction_RoundsHalfUpToWholeHours) {
  VacuumTable t;
  t.Create({{"delta.deletedFileRetentionDuration", "interval 1 hours"}});
  VacuumOptions o = t.Options(0.4, true);
  o.retention_check_enabled = true;
  auto r = t.Run(o);  // 0.4 → 0 h < 1 h
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), kErrorVacuumRetentionTooShort);
  o.retain_hours = 0.5;  // → 1 h
  auto half = t.Run(o);
  ASSERT_TRUE(half.ok()) << half.status().ToString();
  EXPECT_EQ(half->specified_retention_millis, kHour);
  o.retain_hours = 1.49;
  EXPECT_EQ(t.Run(o)->specified_retention_millis, kHour);
  o.retain_hours = 1e300;  // saturates: nothing is ever old enough
  auto huge = t.Run(o);
  ASSERT_TRUE(huge.ok());
  EXPECT_EQ(huge->specified_retention_millis, std::numeric_limits<int64_t>::max());
}

TEST(VacuumRetention, S_interval_parse_PropertySpellingsAndInvalidValues) {
  for (const char* v :
       {"7 days", "interval 1 week", "INTERVAL 168 HOURS", " interval 1 day 144 hours "}) {
    VacuumTable t;
    t.Create({{"delta.deletedFileRetentionDuration", v}});
    VacuumResult r = t.RunOk(t.Options(std::nullopt, true));
    EXPECT_EQ(r.default_retention_millis, 604800000) << v;
  }
  for (const char* bad : {"interval 1 month", "", "soon"}) {
    VacuumTable t;
    t.Create();
    // Another engine wrote the bad value: VACUUM parses defensively and refuses.
    auto md = t.Latest()->metadata();
    md.configuration.Set("delta.deletedFileRetentionDuration", bad);
    delta::Transaction txn(t.store(), t.Latest(), t.TxnOptions());
    txn.UpdateMetadata(md);
    ASSERT_TRUE(txn.Commit().ok());
    auto r = t.Run(t.Options(std::nullopt, true));
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST(VacuumRetention, S_retain_longer_than_property_DoesNotProtectFilesWhoseTombstoneExpired) {
  VacuumTable t;
  t.Create();
  t.AddFileCommitted("old.parquet");  // written at T
  t.clock()->AdvanceMillis(30 * kDay);
  t.Remove("old.parquet");              // removed at T + 30 d
  t.clock()->AdvanceMillis(10 * kDay);  // now T + 40 d: tombstone 10 d old > 7 d table retention
  // RETAIN 720 h: cutoff T + 10 d; the file's mtime T is older and its tombstone is gone.
  EXPECT_EQ(t.DryRunKeys(720), Keys{"old.parquet"});
  // A tombstone within the table's retention is honoured by the longer RETAIN.
  VacuumTable u;
  u.Create();
  u.AddFileCommitted("f.parquet");
  u.clock()->AdvanceMillis(30 * kDay);
  u.Remove("f.parquet");
  u.clock()->AdvanceMillis(5 * kDay);
  EXPECT_TRUE(u.DryRunKeys(720).empty());
}

// ---------------------------------------------------------------------------------------------
// FULL listing semantics

TEST(VacuumFull, D_invisible_HiddenFilesAndDirectoriesAndTheLogAreNeverTouched) {
  VacuumTable t;
  t.Create();
  t.AddFileCommitted("file1.txt");
  t.Write("_hidden_dir/000001.text");
  t.Write(".hidden.txt");
  t.Write("_delta_log/unknown-old-file.json");
  t.Write("_delta_log/_staged_commits/x.json");
  t.clock()->AdvanceMillis(30 * kDay);
  auto log_before = *t.store()->ListFrom("_delta_log/");
  VacuumOptions o = t.Options(0);
  o.logging_enabled = false;
  o.full_records_lite_watermark = false;
  VacuumResult r = t.RunOk(o);
  EXPECT_TRUE(r.deleted.empty());
  for (const char* k :
       {"file1.txt", "_hidden_dir/000001.text", ".hidden.txt", "_delta_log/unknown-old-file.json",
        "_delta_log/_staged_commits/x.json", "_delta_log/00000000000000000000.json"}) {
    EXPECT_TRUE(t.Exists(k)) << k;
  }
  auto log_after = *t.store()->ListFrom("_delta_log/");
  // Only _last_vacuum_info ({} in Spark-parity mode) was added.
  ASSERT_EQ(log_after.size(), log_before.size() + 1);
  EXPECT_EQ(*t.store()->Get(kLastVacuumInfoKey), "{}");
}

TEST(VacuumFull, D_underscore_partition_PartitionDirectoriesStartingWithUnderscoreAreVacuumed) {
  VacuumTable t;
  t.Create({}, {"_underscore_col_"});
  t.AddFileCommitted("_underscore_col_=10/f.parquet");
  t.Remove("_underscore_col_=10/f.parquet");
  t.Write("_not_a_partition=1/junk.parquet");
  t.clock()->AdvanceMillis(8 * kDay);
  EXPECT_EQ(t.DryRunKeys(), Keys{"_underscore_col_=10/f.parquet"});
  t.RunOk(t.Options());
  EXPECT_FALSE(t.Exists("_underscore_col_=10/f.parquet"));
  EXPECT_TRUE(t.Exists("_not_a_partition=1/junk.parquet"));
}

TEST(VacuumFull, D_empty_dirs_multilevel_NestedDirectoriesGoInTheNextRun) {
  TempDir tmp;
  VacuumTable t(tmp.path());
  t.Create();
  t.AddFileCommitted("file1.txt");
  t.Write("abc/def/file2.txt");
  t.clock()->AdvanceMillis(8 * kDay);
  VacuumResult first = t.RunOk(t.Options());
  EXPECT_EQ(first.deleted, Keys{"abc/def/file2.txt"});
  EXPECT_TRUE(t.Exists("abc/def"));
  EXPECT_TRUE(t.Exists("abc"));
  // Spark needs two more runs (it deletes directories in any order); silt deletes deepest first.
  EXPECT_EQ(t.DryRunKeys(), (Keys{"abc", "abc/def"}));
  VacuumResult second = t.RunOk(t.Options());
  EXPECT_EQ(second.num_deleted_files, 2);
  EXPECT_FALSE(t.Exists("abc"));
  EXPECT_TRUE(t.Exists("file1.txt"));
}

TEST(VacuumFull, D_base_path_SecondRunSucceedsAndTheRootStays) {
  TempDir tmp;
  VacuumTable t(tmp.path());
  t.Create();
  t.AddFileCommitted("f.parquet");
  t.Remove("f.parquet");
  t.clock()->AdvanceMillis(8 * kDay);
  EXPECT_EQ(t.RunOk(t.Options()).deleted, Keys{"f.parquet"});
  VacuumResult again = t.RunOk(t.Options());
  EXPECT_TRUE(again.deleted.empty());
  EXPECT_TRUE(std::filesystem::exists(tmp.path() + "/_delta_log"));
}

TEST(VacuumFull, D_correctness_UntrackedByMtimeRemovedByTombstoneThenTheEmptyDirectory) {
  TempDir tmp;
  VacuumTable t(tmp.path());
  t.Create();
  t.AddFileCommitted("file1.txt");
  t.AddFileCommitted("abc/file2.txt");
  t.clock()->AdvanceMillis(8 * kDay);
  EXPECT_TRUE(t.DryRunKeys().empty());
  t.Write("file3.txt");
  t.clock()->AdvanceMillis(7 * kDay - 1000);  // retention − 1 s
  EXPECT_TRUE(t.RunOk(t.Options()).deleted.empty());
  t.clock()->AdvanceMillis(2000);  // retention + 1 s
  EXPECT_EQ(t.RunOk(t.Options()).deleted, Keys{"file3.txt"});
  t.Remove("abc/file2.txt");
  t.clock()->AdvanceMillis(7 * kDay - 1000);
  EXPECT_TRUE(t.RunOk(t.Options()).deleted.empty());
  EXPECT_TRUE(t.Exists("abc/file2.txt"));
  t.clock()->AdvanceMillis(2000);
  EXPECT_EQ(t.RunOk(t.Options()).deleted, Keys{"abc/file2.txt"});
  EXPECT_EQ(t.RunOk(t.Options()).deleted, Keys{"abc"});
  EXPECT_TRUE(t.Exists("file1.txt"));
}

TEST(VacuumFull, D_external_file_AFileOutsideTheRootIsNeverDeleted) {
  TempDir tmp;
  VacuumTable t(tmp.path() + "/table");
  t.Create();
  std::filesystem::create_directories(tmp.path() + "/external");
  std::string ext = tmp.path() + "/external/ext.parquet";
  { std::ofstream(ext) << "x"; }
  t.CommitActions({t.AddAction(LocalPathToFileUri(ext))});
  t.CommitActions({}, {t.RemoveAction(LocalPathToFileUri(ext))});
  t.clock()->AdvanceMillis(14 * kDay);
  VacuumResult r = t.RunOk(t.Options(0));
  EXPECT_TRUE(r.deleted.empty());
  EXPECT_TRUE(std::filesystem::exists(ext));
}

TEST(VacuumFull, D_parallel_ParallelDeleteDeletesOnlyTheRemovedFile) {
  VacuumTable t;
  t.Create();
  t.AddFileCommitted("a.parquet");
  t.AddFileCommitted("b.parquet");
  t.Remove("b.parquet");
  for (int i = 0; i < 50; ++i) t.Write("junk/" + std::to_string(i) + ".parquet");
  t.clock()->AdvanceMillis(8 * kDay);
  ThreadPool pool(2);
  VacuumOptions o = t.Options();
  o.delete_pool = &pool;
  o.delete_batch_size = 7;
  VacuumResult r = t.RunOk(o);
  // 50 junk files and b; junk/ holds old files, so it is no candidate itself (Delta's count rule).
  EXPECT_EQ(r.num_deleted_files, 51);
  EXPECT_TRUE(t.Exists("a.parquet"));
  EXPECT_FALSE(t.Exists("b.parquet"));
  VacuumResult again = t.RunOk(o);
  EXPECT_EQ(again.num_deleted_files, 0);
}

TEST(VacuumFull, D_delete_dirs_AnEmptyDirectoryIsACandidateAndGoes) {
  TempDir tmp;
  VacuumTable t(tmp.path());
  t.Create();
  t.AddFileCommitted("abc/def/file1.txt");
  t.AddFileCommitted("abc/def/file2.txt");
  t.MakeDir("ghi");
  t.clock()->AdvanceMillis(8 * kDay);
  VacuumResult dry = t.RunOk(t.Options(std::nullopt, true));
  ASSERT_EQ(dry.candidates.size(), 1u);
  EXPECT_EQ(dry.candidates[0].key, "ghi");
  EXPECT_TRUE(dry.candidates[0].is_dir);
  t.RunOk(t.Options());
  EXPECT_FALSE(t.Exists("ghi"));
  EXPECT_TRUE(t.Exists("abc/def/file1.txt"));
}

TEST(VacuumFull, D_special_chars_EncodedLogPathsMatchRawNamesAndDryRunPrintsDecoded) {
  TempDir tmp;
  VacuumTable t(tmp.path());
  t.Create();
  t.AddFileCommitted("abc def/#1/file1.txt");  // log path abc%20def/%231/file1.txt
  EXPECT_EQ(t.Latest()->files()[0].path, "abc%20def/%231/file1.txt");
  t.Write("abc def/#1/file2.txt");
  t.clock()->AdvanceMillis(8 * kDay);
  VacuumResult dry = t.RunOk(t.Options(std::nullopt, true));
  ASSERT_EQ(dry.candidates.size(), 1u);
  EXPECT_EQ(dry.candidates[0].path, "file://" + tmp.path() + "/abc def/#1/file2.txt");
  t.RunOk(t.Options());
  EXPECT_TRUE(t.Exists("abc def/#1/file1.txt"));
  EXPECT_FALSE(t.Exists("abc def/#1/file2.txt"));
}

TEST(VacuumFull, D_uniform_metadata_MetadataDirIsVacuumableUnlessIcebergUniformIsOn) {
  TempDir tmp;
  VacuumTable t(tmp.path());
  t.Create();
  t.Write("metadata/file1.json");
  t.clock()->AdvanceMillis(8 * kDay);
  EXPECT_EQ(t.DryRunKeys(), Keys{"metadata/file1.json"});
  t.RunOk(t.Options());
  EXPECT_FALSE(t.Exists("metadata/file1.json"));
  EXPECT_TRUE(t.Exists("metadata"));
  t.RunOk(t.Options());
  EXPECT_FALSE(t.Exists("metadata"));
  VacuumTable u;
  // A real UniForm table (IcebergCompatV2 is required): its commit writes metadata/ too.
  u.Create({{"delta.enableIcebergCompatV2", "true"},
            {"delta.columnMapping.mode", "name"},
            {"delta.universalFormat.enabledFormats", "iceberg"}});
  u.Write("metadata/file1.json");
  u.clock()->AdvanceMillis(8 * kDay);
  EXPECT_TRUE(u.DryRunKeys().empty());
}

TEST(VacuumFull, D_hudi_DotHoodieStays) {
  TempDir tmp;
  VacuumTable t(tmp.path());
  t.Create();
  t.Write(".hoodie/00001.commit");
  t.clock()->AdvanceMillis(8 * kDay);
  t.RunOk(t.Options());
  EXPECT_TRUE(t.Exists(".hoodie/00001.commit"));
}

TEST(VacuumFull, S_crc_in_partition_HiddenNamesInsidePartitionsStay) {
  TempDir tmp;
  VacuumTable t(tmp.path());
  t.Create({}, {"p"});
  t.AddFileCommitted("p=1/part-0.parquet");
  t.Write("p=1/.part-0.parquet.crc");
  t.Write("p=1/_SUCCESS");
  t.Write("p=1/_tmp/x.parquet");
  t.clock()->AdvanceMillis(8 * kDay);
  EXPECT_TRUE(t.DryRunKeys().empty());
  t.RunOk(t.Options());
  for (const char* k : {"p=1/.part-0.parquet.crc", "p=1/_SUCCESS", "p=1/_tmp/x.parquet"}) {
    EXPECT_TRUE(t.Exists(k)) << k;
  }
}

TEST(VacuumFull, S_young_dir_ADirectoryWithOnlyYoungFilesIsListedButSurvives) {
  TempDir tmp;
  VacuumTable t(tmp.path());
  t.Create();
  t.clock()->AdvanceMillis(8 * kDay);
  t.Write("x/young.parquet");
  EXPECT_EQ(t.DryRunKeys(), Keys{"x"});  // Delta parity
  VacuumResult r = t.RunOk(t.Options());
  EXPECT_EQ(r.num_files_to_delete, 1);
  EXPECT_EQ(r.num_deleted_files, 0);
  EXPECT_EQ(r.num_failed_deletes, 0);  // a non-empty directory is not a failure
  EXPECT_TRUE(t.Exists("x/young.parquet"));
}

TEST(VacuumFull, S_young_dir_InMemoryStoreBehavesTheSame) {
  VacuumTable t;
  t.Create();
  t.clock()->AdvanceMillis(8 * kDay);
  t.Write("x/young.parquet");
  VacuumResult r = t.RunOk(t.Options());
  EXPECT_EQ(r.num_files_to_delete, 1);
  EXPECT_EQ(r.num_deleted_files, 0);
  EXPECT_TRUE(t.Exists("x/young.parquet"));
}

// Deletes go to the store in per-directory runs (DeleteKeys), on the pool by default in SQL: any
// pool and batch size deletes the same files as the sequential run, on a local store.
TEST(VacuumFull, S_parallel_delete_SameResultForAnyPoolAndBatch) {
  struct Case {
    int threads;
    size_t batch;
  };
  std::vector<std::string> want;
  for (Case c : {Case{0, 1000}, Case{2, 1}, Case{2, 7}, Case{3, 1000}, Case{1, 50}}) {
    TempDir tmp;
    VacuumTable t(tmp.path());
    t.Create();
    std::vector<delta::AddFile> adds;
    for (int d = 0; d < 4; ++d) {
      for (int i = 0; i < 12; ++i) {
        std::string key = "p=" + std::to_string(d) + "/f" + std::to_string(i) + ".parquet";
        t.Write(key, "x", kT0 - 30 * kDay);
        if (i % 3 != 0) adds.push_back(t.AddAction(key));
      }
    }
    t.CommitActions(adds);
    t.Write("p=9/only.parquet", "x", kT0 - 30 * kDay);  // an old file keeps its directory (§3.3)
    std::unique_ptr<ThreadPool> pool;
    VacuumOptions o = t.Options(0);
    if (c.threads > 0) {
      pool = std::make_unique<ThreadPool>(static_cast<size_t>(c.threads));
      o.delete_pool = pool.get();
    }
    o.delete_batch_size = c.batch;
    VacuumResult r = t.RunOk(o);
    std::vector<std::string> deleted = r.deleted;
    std::sort(deleted.begin(), deleted.end());
    EXPECT_EQ(r.num_failed_deletes, 0);
    EXPECT_EQ(deleted.size(), 4u * 4 + 1) << c.threads << " threads, batch " << c.batch;
    if (want.empty()) want = deleted;
    EXPECT_EQ(deleted, want) << c.threads << " threads, batch " << c.batch;
    for (const auto& k : deleted) EXPECT_FALSE(t.Exists(k)) << k;
    EXPECT_TRUE(t.Exists("p=0/f1.parquet"));
  }
}

// A table with many directories, hidden and partition directories starting with '_', special
// characters, empty and young directories: the parallel listing (any pool size) plans and deletes
// exactly what the sequential walk does. (The store's own tests cover pending-queue overflow.)
void BuildWideVacuumTable(VacuumTable& t) {
  t.Create({}, {"_c"});
  // Per directory: f0 untracked, f1 live, f2 live or (every 4th directory) removed.
  auto dir_of = [](int d) { return "_c=" + std::to_string(d) + (d % 5 == 0 ? " a%b#c" : ""); };
  std::vector<delta::AddFile> adds;
  std::vector<delta::RemoveFile> removes;
  for (int d = 0; d < 40; ++d) {
    for (int i = 0; i < 3; ++i) {
      std::string key = dir_of(d) + "/f" + std::to_string(i) + ".parquet";
      t.Write(key, "xy", kT0 - 30 * kDay);
      if (i > 0) adds.push_back(t.AddAction(ToDeltaPath(key)));
      if (i == 2 && d % 4 == 0) removes.push_back(t.RemoveAction(ToDeltaPath(key)));
    }
  }
  t.CommitActions(adds);
  t.CommitActions({}, removes);
  t.Write("_tmp/old.parquet", "x", kT0 - 30 * kDay);     // hidden directory
  t.Write(".hidden/old.parquet", "x", kT0 - 30 * kDay);  // hidden directory
  t.Write("_c=7/.crc", "x", kT0 - 30 * kDay);            // hidden name in a partition
  t.Write("young/new.parquet", "x", kT0 + 7 * kDay);     // young: its directory stays
  t.MakeDir("empty/nested/deeper");
  t.clock()->AdvanceMillis(8 * kDay);
}

TEST(VacuumFull, S_parallel_listing_SameCandidatesAndDeletesAsTheSequentialWalk) {
  TempDir seq_dir;
  VacuumTable seq(seq_dir.path());
  BuildWideVacuumTable(seq);
  VacuumOptions so = seq.Options(std::nullopt, true);
  VacuumResult seq_dry = seq.RunOk(so);
  ASSERT_GT(seq_dry.candidates.size(), 40u);
  VacuumResult seq_run = seq.RunOk(seq.Options());
  for (size_t threads : {1, 3}) {
    TempDir dir;
    VacuumTable t(dir.path());
    BuildWideVacuumTable(t);
    ThreadPool pool(threads);
    VacuumOptions o = t.Options(std::nullopt, true);
    o.list_pool = &pool;
    VacuumResult dry = t.RunOk(o);
    EXPECT_EQ(dry.candidates.size(), seq_dry.candidates.size()) << threads;
    for (size_t i = 0; i < std::min(dry.candidates.size(), seq_dry.candidates.size()); ++i) {
      EXPECT_EQ(dry.candidates[i].key, seq_dry.candidates[i].key);
      EXPECT_EQ(dry.candidates[i].size, seq_dry.candidates[i].size);
      EXPECT_EQ(dry.candidates[i].is_dir, seq_dry.candidates[i].is_dir);
    }
    EXPECT_EQ(dry.num_vacuumed_directories, seq_dry.num_vacuumed_directories);
    EXPECT_EQ(dry.size_of_data_to_delete, seq_dry.size_of_data_to_delete);
    o = t.Options();
    o.list_pool = &pool;
    VacuumResult run = t.RunOk(o);
    EXPECT_EQ(run.deleted, seq_run.deleted) << threads;
    EXPECT_EQ(run.num_failed_deletes, 0);
  }
  EXPECT_TRUE(seq.Exists("_c=1/f1.parquet"));
  EXPECT_FALSE(seq.Exists("_c=1/f0.parquet"));
  EXPECT_FALSE(seq.Exists("_c=0 a%b#c/f2.parquet"));
  EXPECT_TRUE(seq.Exists("_tmp/old.parquet"));
  EXPECT_TRUE(seq.Exists(".hidden/old.parquet"));
  EXPECT_TRUE(seq.Exists("_c=7/.crc"));
  EXPECT_TRUE(seq.Exists("young/new.parquet"));
  EXPECT_FALSE(seq.Exists("empty/nested/deeper"));
}

// Enough live files that the valid set grows (rehashes) several times: none of them, and every
// one of the removed files, is a candidate.
TEST(VacuumFull, S_many_live_files_ValidSetKeepsEveryOne) {
  VacuumTable t;
  t.Create();
  std::vector<delta::AddFile> adds;
  std::vector<delta::RemoveFile> removes;
  for (int i = 0; i < 3000; ++i) {
    std::string key = "d" + std::to_string(i % 7) + "/f" + std::to_string(i) + ".parquet";
    t.Write(key, "x", kT0 - 30 * kDay);
    if (i % 10 == 0) {
      removes.push_back(t.RemoveAction(key));
    } else {
      adds.push_back(t.AddAction(key));
    }
  }
  t.CommitActions(adds);
  t.CommitActions({}, removes);
  t.clock()->AdvanceMillis(8 * kDay);
  std::vector<std::string> want;
  for (const auto& r : removes) want.push_back(r.path);
  std::sort(want.begin(), want.end());
  EXPECT_EQ(t.DryRunKeys(), want);
}

TEST(VacuumFull, S_readd_TheCurrentSnapshotWins) {
  VacuumTable t;
  t.Create();
  t.AddFileCommitted("f.parquet");
  t.Remove("f.parquet");
  t.clock()->AdvanceMillis(9 * kDay);
  t.CommitActions({t.AddAction("f.parquet")});
  t.clock()->AdvanceMillis(1 * kDay);
  EXPECT_TRUE(t.DryRunKeys(0).empty());
}

TEST(VacuumFull, S_absolute_inside_root_IsRelativizedAndKept) {
  TempDir tmp;
  VacuumTable t(tmp.path());
  t.Create();
  t.Write("f.parquet");
  t.Write("g.parquet");
  t.CommitActions({t.AddAction(LocalPathToFileUri(tmp.path() + "/f.parquet")),
                   t.AddAction("file:" + tmp.path() + "/g.parquet")});
  t.Write("h.parquet");
  t.CommitActions({t.AddAction(tmp.path() + "/h.parquet")});  // scheme-less absolute
  t.clock()->AdvanceMillis(30 * kDay);
  EXPECT_TRUE(t.DryRunKeys(0).empty());
  t.RunOk(t.Options(0));
  EXPECT_TRUE(t.Exists("f.parquet") && t.Exists("g.parquet") && t.Exists("h.parquet"));
}

TEST(VacuumFull, S_cross_fs_absolute_OtherFileSystemFailsUnlessIgnored) {
  VacuumTable t;
  t.Create();
  t.Write("f.parquet");
  t.CommitActions({t.AddAction("s3://other-bucket/t/f.parquet")});
  t.clock()->AdvanceMillis(30 * kDay);
  auto r = t.Run(t.Options(0, true));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), kErrorFailRelativizePath);
  EXPECT_TRUE(
      Contains(r.status().message(), "spark.databricks.delta.vacuum.relativize.ignoreError"));
  VacuumOptions o = t.Options(0, true);
  o.relativize_ignore_error = true;
  auto ignored = t.Run(o);
  ASSERT_TRUE(ignored.ok());
  ASSERT_EQ(ignored->candidates.size(), 1u);  // the local f.parquet is untracked
  // Same file system, outside the root: ignored without error.
  VacuumTable u;
  u.Create();
  u.CommitActions({u.AddAction("memory:///elsewhere/f.parquet")});
  EXPECT_TRUE(u.Run(u.Options(0, true)).ok());
}

TEST(VacuumFull, D_cdc_ChangeDataFilesAreProtectedOnlyByTheirAge) {
  VacuumTable t;
  t.Create({{"delta.enableChangeDataFeed", "true"}});
  t.AddFileCommitted("a.parquet");
  t.Write("_change_data/cdc-0.parquet");
  delta::AddCDCFile cdc;
  cdc.path = "_change_data/cdc-0.parquet";
  cdc.size = 9;
  t.Write("b.parquet");
  t.CommitActions({t.AddAction("b.parquet")}, {t.RemoveAction("a.parquet")}, {cdc}, "UPDATE");
  t.clock()->AdvanceMillis(10 * kHour);
  // The young CDC file keeps nothing but its directory on the (Delta-parity) candidate list.
  EXPECT_EQ(t.DryRunKeys(100), Keys{"_change_data"});
  t.RunOk(t.Options(100));
  EXPECT_TRUE(t.Exists("_change_data/cdc-0.parquet"));
  EXPECT_TRUE(t.Exists("a.parquet"));
  EXPECT_EQ(t.DryRunKeys(0), (Keys{"_change_data/cdc-0.parquet", "a.parquet"}));
  t.RunOk(t.Options(0));
  EXPECT_FALSE(t.Exists("_change_data/cdc-0.parquet"));
  EXPECT_TRUE(t.Exists("b.parquet"));
}

TEST(VacuumFull, R_recent_tombstone_ARecentlyRemovedFileWithAnOldMtimeIsKept) {
  VacuumTable t;
  t.Create();
  t.Write("tombstoned.parquet", "x", kT0 - 30 * kDay);
  t.CommitActions({t.AddAction("tombstoned.parquet")});
  t.Write("stale-orphan.parquet", "x", kT0 - 30 * kDay);
  t.clock()->AdvanceMillis(10 * 1000);
  t.Remove("tombstoned.parquet");
  t.Write("recent-orphan.parquet");
  t.clock()->AdvanceMillis(1000);
  // RETAIN is in hours; a 5-second retention is the table property here.
  auto md = t.Latest()->metadata();
  md.configuration.Set("delta.deletedFileRetentionDuration", "interval 5 seconds");
  delta::Transaction txn(t.store(), t.Latest(), t.TxnOptions());
  txn.UpdateMetadata(md);
  ASSERT_TRUE(txn.Commit().ok());
  EXPECT_EQ(t.DryRunKeys(), Keys{"stale-orphan.parquet"});
}

TEST(VacuumFull, R_recent_uncommitted_AYoungUntrackedFileIsKept) {
  VacuumTable t;
  t.Create();
  t.clock()->AdvanceMillis(10 * kDay);
  t.Write("in-flight.parquet");
  t.clock()->AdvanceMillis(1000);
  EXPECT_TRUE(t.DryRunKeys().empty());
}

TEST(VacuumFull, R_partitioned_OnlyTheTombstonedFileGoes) {
  VacuumTable t;
  t.Create({}, {"date"});
  for (const char* d : {"2024-01-01", "2024-01-02"})
    t.AddFileCommitted(std::string("date=") + d + "/f.parquet");
  t.Remove("date=2024-01-01/f.parquet");
  t.clock()->AdvanceMillis(8 * kDay);
  EXPECT_EQ(t.DryRunKeys(), Keys{"date=2024-01-01/f.parquet"});
}

TEST(VacuumFull, S_files_outside_root_listing_never_leaves_the_root) {
  TempDir tmp;
  VacuumTable t(tmp.path() + "/t");
  t.Create();
  { std::ofstream(tmp.path() + "/sibling.parquet") << "x"; }
  t.Write("junk.parquet", "x", kT0 - 30 * kDay);
  VacuumResult r = t.RunOk(t.Options(0));
  EXPECT_EQ(r.deleted, Keys{"junk.parquet"});
  EXPECT_TRUE(std::filesystem::exists(tmp.path() + "/sibling.parquet"));
}

// ---------------------------------------------------------------------------------------------
// Deletion vectors

struct DvTable {
  VacuumTable t;
  // Writes `n` data files and commits them.
  void Files(int n) {
    t.Create({{"delta.enableDeletionVectors", "true"}});
    std::vector<delta::AddFile> adds;
    for (int i = 0; i < n; ++i) {
      t.Write("f" + std::to_string(i) + ".parquet");
      adds.push_back(t.AddAction("f" + std::to_string(i) + ".parquet"));
    }
    t.CommitActions(adds);
  }
  // A DELETE that gives file i a new DV in its own DV file (DV packing off); returns the key.
  std::string DeleteRows(int i, const std::string& prefix = "") {
    auto snap = t.Latest();
    delta::AddFile old;
    for (const auto& f : snap->files())
      if (f.path == "f" + std::to_string(i) + ".parquet") old = f;
    delta::DeletionVector dv;
    EXPECT_TRUE(dv.Add(static_cast<uint64_t>(snap->version())).ok());
    auto nf = delta::EncodeDvFileAs({&dv}, delta::Uuid::Random(), prefix);
    EXPECT_TRUE(nf.ok());
    t.Write(nf->relative_path, nf->bytes);
    delta::RemoveFile r = t.RemoveAction(old.path);
    r.deletion_vector = old.deletion_vector;
    delta::AddFile a = old;
    a.deletion_vector = nf->descriptors[0];
    a.data_change = true;
    t.CommitActions({a}, {r}, {}, "DELETE");
    return nf->relative_path;
  }
  // A DELETE of every row of file i: the file is removed; an "ephemeral" DV file was written.
  std::string DeleteFile(int i) {
    auto snap = t.Latest();
    delta::AddFile old;
    for (const auto& f : snap->files())
      if (f.path == "f" + std::to_string(i) + ".parquet") old = f;
    delta::DeletionVector dv;
    EXPECT_TRUE(dv.Add(0).ok());
    auto nf = delta::EncodeDvFileAs({&dv}, delta::Uuid::Random(), "");
    t.Write(nf->relative_path, nf->bytes);
    delta::RemoveFile r = t.RemoveAction(old.path);
    r.deletion_vector = old.deletion_vector;
    t.CommitActions({}, {r}, {}, "DELETE");
    return nf->relative_path;
  }
  int DvFiles() {
    int n = 0;
    EXPECT_TRUE(t.store()
                    ->ListRecursive("",
                                    [&](const ObjectMeta& m) {
                                      if (!m.is_dir &&
                                          m.key.find("deletion_vector_") != std::string::npos)
                                        ++n;
                                      return Status::OK();
                                    })
                    .ok());
    return n;
  }
};

TEST(VacuumDv, D_dv_persistent_LiveDvFilesAreKeptSupersededOnesGo) {
  for (VacuumMode mode : {VacuumMode::kFull, VacuumMode::kLite}) {
    DvTable d;
    d.Files(10);
    for (int i = 0; i < 10; ++i) d.DeleteRows(i, i % 2 ? "ab" : "");
    d.t.clock()->AdvanceMillis(1000);
    VacuumOptions o = d.t.Options(0);
    o.mode = mode;
    d.t.RunOk(o);
    EXPECT_EQ(d.DvFiles(), 10);
    d.DeleteRows(1, "ab");
    EXPECT_EQ(d.DvFiles(), 11);
    d.t.clock()->AdvanceMillis(1000);
    d.t.RunOk(o);
    EXPECT_EQ(d.DvFiles(), 10);
    for (int i = 5; i < 10; ++i) d.DeleteFile(i);
    EXPECT_EQ(d.DvFiles(), 15);
    d.t.clock()->AdvanceMillis(1000);
    o.retain_hours = 10;
    d.t.RunOk(o);
    EXPECT_EQ(d.DvFiles(), 15);
    d.t.clock()->AdvanceMillis(11 * kHour);
    o.retain_hours = 0;
    d.t.RunOk(o);
    // FULL sees the 5 ephemeral DV files; LITE only what removes name.
    EXPECT_EQ(d.DvFiles(), mode == VacuumMode::kFull ? 5 : 10)
        << (mode == VacuumMode::kFull ? "FULL" : "LITE");
    EXPECT_EQ(d.t.Latest()->files().size(), 5u);
  }
}

TEST(VacuumDv, S_dv_p_inside_root_AnAbsolutePathDvInsideTheRootIsKept) {
  DvTable d;
  d.Files(1);
  delta::DeletionVector dv;
  ASSERT_TRUE(dv.Add(1).ok());
  auto nf = *delta::EncodeDvFileAs({&dv}, delta::Uuid::Random(), "");
  d.t.Write("dvs/" + nf.relative_path, nf.bytes);
  delta::AddFile a = d.t.Latest()->files()[0];
  delta::DeletionVectorDescriptor desc = nf.descriptors[0];
  desc.storage_type = 'p';
  desc.path_or_inline_dv = "memory:///dvs/" + nf.relative_path;
  a.deletion_vector = desc;
  delta::RemoveFile r = d.t.RemoveAction(a.path);
  d.t.CommitActions({a}, {r});
  d.t.clock()->AdvanceMillis(30 * kDay);
  Keys keys = d.t.DryRunKeys(0);
  EXPECT_TRUE(keys.empty()) << keys[0];
}

TEST(VacuumDv, S_dv_tombstone_DvTombstonesProtectTheDvFileUntilTheyExpire) {
  DvTable d;
  d.Files(1);
  std::string dv_key = d.DeleteRows(0);
  d.t.clock()->AdvanceMillis(1 * kDay);
  // Dropping the feature: data rewritten without DV, plus a remove naming the DV file itself.
  delta::AddFile a = d.t.Latest()->files()[0];
  delta::RemoveFile r = d.t.RemoveAction(a.path);
  r.deletion_vector = a.deletion_vector;
  a.deletion_vector.reset();
  delta::RemoveFile dv_tombstone = d.t.RemoveAction(dv_key);
  dv_tombstone.data_change = false;
  d.t.CommitActions({a}, {r, dv_tombstone});
  d.t.clock()->AdvanceMillis(1 * kDay);
  EXPECT_TRUE(d.t.DryRunKeys().empty());
  d.t.clock()->AdvanceMillis(7 * kDay);
  EXPECT_EQ(d.t.DryRunKeys(), Keys{dv_key});
}

// VACUUM streams the snapshot's file actions (no file list) unless the caller hands it a loaded
// snapshot; from a Parquet checkpoint plus later commits both give the same candidates: a path
// removed and re-added after the checkpoint, and a DV file a remove names but a live add uses
// again, are kept (§3.4, §4.2); a young tombstone protects its file in FULL.
TEST(VacuumDv, S_streamed_state_SameCandidatesAsTheLoadedFileList) {
  for (VacuumMode mode : {VacuumMode::kFull, VacuumMode::kLite}) {
    DvTable d;
    d.Files(6);
    std::string a = d.DeleteRows(0, "ab");  // f0 with DV file a
    std::string b = d.DeleteRows(1);        // f1 with DV file b ...
    d.DeleteRows(1);                        // ... superseded: b is garbage
    d.t.Remove("f2.parquet");
    ASSERT_TRUE(delta::WriteCheckpoint(*d.t.store(), *d.t.Latest(), WallCheckpoint()).ok());
    d.t.CommitActions({d.t.AddAction("f2.parquet")});  // re-added after the checkpoint
    d.t.Remove("f3.parquet");
    delta::AddFile f0;
    auto before = d.t.Latest();
    for (const auto& f : before->files())
      if (f.path == "f0.parquet") f0 = f;
    ASSERT_TRUE(f0.deletion_vector.has_value());
    delta::RemoveFile r0 = d.t.RemoveAction("f0.parquet");
    r0.deletion_vector = f0.deletion_vector;
    d.t.CommitActions({}, {r0}, {}, "DELETE");
    d.t.CommitActions({f0});  // the same (path, DV) pair live again
    d.t.clock()->AdvanceMillis(2 * kHour);
    d.t.Remove("f4.parquet");  // a young tombstone: f4 stays in FULL, is not eligible in LITE
    VacuumOptions o = d.t.Options(1, /*dry_run=*/true);
    o.mode = mode;
    VacuumResult streamed = d.t.RunOk(o);
    auto loaded = d.t.Latest();
    ASSERT_TRUE(loaded->files_loaded());
    o.snapshot = loaded;
    VacuumResult listed = d.t.RunOk(o);
    const char* name = mode == VacuumMode::kFull ? "FULL" : "LITE";
    EXPECT_EQ(streamed.candidates, listed.candidates) << name;
    std::vector<std::string> keys;
    for (const auto& c : streamed.candidates) keys.push_back(c.key);
    EXPECT_EQ(keys, (Keys{b, "f3.parquet"})) << name;
    o.dry_run = false;
    o.snapshot = nullptr;
    d.t.RunOk(o);
    EXPECT_FALSE(d.t.Exists(b));
    EXPECT_FALSE(d.t.Exists("f3.parquet"));
    for (const char* kept : {"f0.parquet", "f2.parquet", "f4.parquet"})
      EXPECT_TRUE(d.t.Exists(kept)) << kept;
    EXPECT_TRUE(d.t.Exists(a));
  }
}

// ---------------------------------------------------------------------------------------------
// Inventory

DataChunk InventoryChunk(const Schema& schema, const std::vector<InventoryEntry>& rows) {
  DataChunk c = DataChunk::FromSchema(schema);
  for (const auto& e : rows) {
    EXPECT_TRUE(c.columns[0].AppendValue(Value::String(e.path)).ok());
    EXPECT_TRUE(c.columns[1].AppendValue(Value::Int64(e.length)).ok());
    EXPECT_TRUE(c.columns[2].AppendValue(Value::Boolean(e.is_dir)).ok());
    EXPECT_TRUE(c.columns[3].AppendValue(Value::Int64(e.modification_time_ms)).ok());
  }
  return c;
}

Schema InventorySchema() {
  return {Field{"path", DataType::String(), true, "{}"},
          Field{"length", DataType::Int64(), true, "{}"},
          Field{"isDir", DataType::Boolean(), true, "{}"},
          Field{"modificationTime", DataType::Int64(), true, "{}"}};
}

TEST(VacuumInventory, D_inv_schema_WrongColumnsFailWithTheRequiredSchemaTree) {
  Schema wrong = {Field{"file", DataType::String(), true, "{}"},
                  Field{"size", DataType::Int64(), true, "{}"},
                  Field{"isDir", DataType::Boolean(), true, "{}"},
                  Field{"modificationTime", DataType::Int64(), true, "{}"}};
  auto r = ValidateInventorySchema(wrong);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), kErrorInvalidInventorySchema);
  EXPECT_TRUE(Contains(r.status().message(), "does not contain all of the required fields"));
  EXPECT_TRUE(Contains(r.status().message(),
                       " |-- path: string (nullable = true)\n |-- length: long (nullable = true)"));
  EXPECT_EQ(InventoryFromChunks(wrong, {}).status().error_class(), kErrorInvalidInventorySchema);
  // A timestamp modificationTime is not a BIGINT.
  Schema ts = InventorySchema();
  ts[3].type = DataType::Timestamp();
  EXPECT_EQ(ValidateInventorySchema(ts).status().error_class(), kErrorInvalidInventorySchema);
  // [silt decision] any order, other case, NOT NULL, INT lengths and extra columns are fine.
  Schema loose = {Field{"extra", DataType::Double(), true, "{}"},
                  Field{"modificationtime", DataType::Int64(), false, "{}"},
                  Field{"ISDIR", DataType::Boolean(), false, "{}"},
                  Field{"length", DataType::Int32(), true, "{}"},
                  Field{"path", DataType::String(), false, "{}"}};
  auto idx = ValidateInventorySchema(loose);
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  EXPECT_EQ(*idx, (std::vector<int>{4, 3, 2, 1}));
}

TEST(VacuumInventory, S_inv_chunks_NullsAndIntegerWidthsConvert) {
  Schema s = {Field{"path", DataType::String(), true, "{}"},
              Field{"length", DataType::Int32(), true, "{}"},
              Field{"isDir", DataType::Boolean(), true, "{}"},
              Field{"modificationTime", DataType::Int64(), true, "{}"}};
  DataChunk c = DataChunk::FromSchema(s);
  ASSERT_TRUE(c.columns[0].AppendValue(Value::String("memory://a")).ok());
  ASSERT_TRUE(c.columns[1].AppendValue(Value::Int32(7)).ok());
  ASSERT_TRUE(c.columns[2].AppendValue(Value::Boolean(true)).ok());
  ASSERT_TRUE(c.columns[3].AppendValue(Value::Int64(5)).ok());
  c.columns[0].AppendNull();  // skipped
  for (size_t i = 1; i < 4; ++i) c.columns[i].AppendNull();
  ASSERT_TRUE(c.columns[0].AppendValue(Value::String("memory://b")).ok());
  for (size_t i = 1; i < 4; ++i) c.columns[i].AppendNull();
  auto rows = InventoryFromChunks(s, {c});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0], (InventoryEntry{"memory://a", 7, true, 5}));
  EXPECT_EQ((*rows)[1],
            (InventoryEntry{"memory://b", 0, false, std::numeric_limits<int64_t>::max()}));
}

TEST(VacuumInventory, D_inv_run_InventoryRowsReplaceTheListing) {
  TempDir tmp;
  VacuumTable t(tmp.path());
  t.Create({}, {"_underscore_col_"});
  t.AddFileCommitted("file1");
  t.Write("file2");
  t.AddFileCommitted("_underscore_col_=10/test.txt");
  t.Remove("_underscore_col_=10/test.txt");
  t.Write("_underscore_col_=10/test2.txt");
  t.Write("not-in-inventory.txt", "x", 0);
  t.clock()->AdvanceMillis(1000);
  std::string root = "file://" + tmp.path();
  std::vector<InventoryEntry> inv = {
      {root, 0, true, 0},
      {root, 0, true, 0},
      {root + "/file1", 9, false, 0},
      {root + "/file2", 9, false, 0},
      {"file:" + tmp.path() + "/_underscore_col_=10/test.txt", 9, false, 0},
      {root + "/_underscore_col_=10/test2.txt", 9, false, 0},
      {"file:///tmp/random/file.txt", 9, false, 0}};
  // Through the chunk form, as the SQL layer will pass a query result.
  auto rows = InventoryFromChunks(InventorySchema(), {InventoryChunk(InventorySchema(), inv)});
  ASSERT_TRUE(rows.ok());
  VacuumOptions o = t.Options(0, true);
  o.inventory = *rows;
  VacuumResult dry = t.RunOk(o);
  Keys keys;
  for (const auto& c : dry.candidates) keys.push_back(c.key);
  EXPECT_EQ(keys, (Keys{"_underscore_col_=10/test.txt", "_underscore_col_=10/test2.txt", "file2"}));
  EXPECT_TRUE(dry.used_inventory);
  o.dry_run = false;
  t.RunOk(o);
  EXPECT_TRUE(t.Exists("file1"));
  EXPECT_FALSE(t.Exists("file2"));
  EXPECT_FALSE(t.Exists("_underscore_col_=10/test2.txt"));
  EXPECT_TRUE(t.Exists("not-in-inventory.txt"));
}

TEST(VacuumInventory, D_inv_hidden_NonPartitionUnderscoreDirsAreHiddenInInventoryToo) {
  VacuumTable t;
  t.Create({}, {"v1", "v2"});
  for (const char* k :
       {"file1", "file2", "_underscore_col_=10/test.txt", "_underscore_col_=10/test2.txt",
        "v1=a/_SUCCESS", "v1=a/.f.crc", "_delta_log/00000000000000000000.json"})
    if (!t.Exists(k)) t.Write(k, "x", 0);
  std::vector<InventoryEntry> inv;
  for (const char* k :
       {"file1", "file2", "_underscore_col_=10/test.txt", "_underscore_col_=10/test2.txt",
        "v1=a/_SUCCESS", "v1=a/.f.crc", "_delta_log/00000000000000000000.json"})
    inv.push_back({std::string("memory:///") + k, 1, false, 0});
  VacuumOptions o = t.Options(0);
  o.inventory = inv;
  VacuumResult r = t.RunOk(o);
  std::sort(r.deleted.begin(), r.deleted.end());
  EXPECT_EQ(r.deleted, (Keys{"file1", "file2"}));
  for (const char* k : {"_underscore_col_=10/test.txt", "v1=a/_SUCCESS", "v1=a/.f.crc"}) {
    EXPECT_TRUE(t.Exists(k)) << k;
  }
  EXPECT_TRUE(t.Latest() != nullptr);
}

TEST(VacuumInventory, S_inv_outside_scheme_RowsOfAnotherSchemeDeleteNothing) {
  VacuumTable t;
  t.Create();
  t.Write("junk", "x", 0);
  VacuumOptions o = t.Options(0);
  o.inventory = std::vector<InventoryEntry>{{"s3a://bucket/junk", 1, false, 0},
                                            {"memory:/junk", 1, false, 0}};
  EXPECT_TRUE(t.RunOk(o).deleted.empty());
  EXPECT_TRUE(t.Exists("junk"));
}

// ---------------------------------------------------------------------------------------------
// LITE

TEST(VacuumLite, D_lite_syntax_LiteDeletesRemovedFilesNotUntrackedOnesFullDoes) {
  DvTable d;
  d.Files(4);
  d.t.Write("uncommitted.parquet", "x", kT0 - kDay);
  std::string dv = d.DeleteRows(0);
  d.t.clock()->AdvanceMillis(1000);
  // PURGE: rewrite every file, removing the old ones (incl. the one with a DV).
  std::vector<delta::AddFile> adds;
  std::vector<delta::RemoveFile> removes;
  auto before_purge = d.t.Latest();
  for (const auto& f : before_purge->files()) {
    delta::RemoveFile r = d.t.RemoveAction(f.path);
    r.deletion_vector = f.deletion_vector;
    removes.push_back(r);
    d.t.Write("new-" + f.path);
    adds.push_back(d.t.AddAction("new-" + f.path));
  }
  d.t.CommitActions(adds, removes, {}, "REORG");
  d.t.clock()->AdvanceMillis(1000);
  VacuumOptions lite = d.t.Options(0);
  lite.mode = VacuumMode::kLite;
  VacuumResult r = d.t.RunOk(lite);
  std::sort(r.deleted.begin(), r.deleted.end());
  EXPECT_EQ(r.deleted, (Keys{dv, "f0.parquet", "f1.parquet", "f2.parquet", "f3.parquet"}));
  EXPECT_TRUE(d.t.Exists("uncommitted.parquet"));
  EXPECT_EQ(d.t.RunOk(d.t.Options(0)).deleted, Keys{"uncommitted.parquet"});
}

// Versions 0-2 with a checkpoint at 2 and commit 0 deleted.
void CleanedUpLog(VacuumTable& t) {
  t.Create();
  t.AddFileCommitted("a.parquet");
  t.clock()->AdvanceMillis(1000);
  t.Remove("a.parquet");
  ASSERT_TRUE(delta::WriteCheckpoint(*t.store(), *t.Latest(), WallCheckpoint()).ok());
  ASSERT_TRUE(t.store()->Delete(delta::CommitKey(0)).ok());
  t.clock()->AdvanceMillis(1000);
}

TEST(VacuumLite, L_commit0_missing_WithoutAWatermarkLiteCannotRun) {
  VacuumTable t;
  CleanedUpLog(t);
  VacuumOptions lite = t.Options(0);
  lite.mode = VacuumMode::kLite;
  auto r = t.Run(lite);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), kErrorCannotVacuumLite);
  EXPECT_TRUE(Contains(r.status().message(), "VACUUM LITE cannot delete all eligible files"));
  EXPECT_TRUE(t.Exists("a.parquet"));
}

TEST(VacuumLite, L_commits_since_last_missing_WatermarkMakesCleanupHarmlessUntilAGap) {
  VacuumTable t;
  t.Create();
  t.AddFileCommitted("a.parquet");  // v1
  t.clock()->AdvanceMillis(1000);
  VacuumOptions lite = t.Options(0);
  lite.mode = VacuumMode::kLite;
  lite.logging_enabled = false;
  VacuumResult first = t.RunOk(lite);
  EXPECT_EQ(first.recorded_watermark, 1);
  t.AddFileCommitted("b.parquet");  // v2
  t.Remove("a.parquet");            // v3
  ASSERT_TRUE(delta::WriteCheckpoint(*t.store(), *t.Latest(), WallCheckpoint()).ok());
  ASSERT_TRUE(t.store()->Delete(delta::CommitKey(0)).ok());
  t.clock()->AdvanceMillis(1000);
  VacuumResult second = t.RunOk(lite);
  EXPECT_EQ(second.eligible_start_commit_version, 2);
  EXPECT_EQ(second.eligible_end_commit_version, 3);
  EXPECT_EQ(second.deleted, Keys{"a.parquet"});
  // Now the watermark is 3; dropping 1 and 2 leaves earliest = 3 → fine; dropping 3 too is not.
  ASSERT_TRUE(t.store()->Delete(delta::CommitKey(1)).ok());
  ASSERT_TRUE(t.store()->Delete(delta::CommitKey(2)).ok());
  EXPECT_TRUE(t.Run(lite).ok());
  ASSERT_TRUE(t.store()
                  ->Put(kLastVacuumInfoKey, "{\"latestCommitVersionOutsideOfRetentionWindow\":1}")
                  .ok());
  auto r = t.Run(lite);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), kErrorCannotVacuumLite);
}

TEST(VacuumLite, L_repeat_DryRunThenRunThenNoOps) {
  VacuumTable t;
  t.Create();
  t.AddFileCommitted("a.parquet");
  t.AddFileCommitted("b.parquet");
  t.CommitActions({}, {t.RemoveAction("a.parquet"), t.RemoveAction("b.parquet")});
  t.clock()->AdvanceMillis(8 * kDay);
  EXPECT_EQ(t.DryRunKeys(std::nullopt, VacuumMode::kLite), (Keys{"a.parquet", "b.parquet"}));
  VacuumOptions lite = t.Options();
  lite.mode = VacuumMode::kLite;
  EXPECT_EQ(t.RunOk(lite).num_deleted_files, 2);
  for (int i = 0; i < 2; ++i) {
    t.clock()->AdvanceMillis(8 * kDay);
    VacuumResult again = t.RunOk(lite);
    EXPECT_EQ(again.num_deleted_files, 0);
    EXPECT_EQ(again.num_files_to_delete, 0);
  }
}

TEST(VacuumLite, L_untracked_LiteNeverSeesUncommittedFiles) {
  VacuumTable t;
  t.Create();
  t.Write("untracked.parquet", "x", 0);
  t.clock()->AdvanceMillis(8 * kDay);
  VacuumOptions lite = t.Options(0);
  lite.mode = VacuumMode::kLite;
  EXPECT_TRUE(t.RunOk(lite).deleted.empty());
  EXPECT_TRUE(t.Exists("untracked.parquet"));
}

TEST(VacuumLite, S_lite_after_full_SparkParityFailsSiltWatermarkSucceeds) {
  for (bool parity : {true, false}) {
    VacuumTable t;
    CleanedUpLog(t);
    VacuumOptions full = t.Options(0);
    full.full_records_lite_watermark = !parity;
    t.RunOk(full);
    EXPECT_EQ(*t.store()->Get(kLastVacuumInfoKey),
              parity ? "{}" : "{\"latestCommitVersionOutsideOfRetentionWindow\":2}");
    t.clock()->AdvanceMillis(1000);
    VacuumOptions lite = t.Options(0);
    lite.mode = VacuumMode::kLite;
    auto r = t.Run(lite);
    EXPECT_EQ(r.ok(), !parity) << r.status().ToString();
    if (parity) {
      EXPECT_EQ(r.status().error_class(), kErrorCannotVacuumLite);
    }
  }
}

// v1 adds a, v2 adds b, v3 removes a, v4 removes b with a deletionTimestamp 500 ms after its
// commit's time (a lagging mtime or another writer's clock); then the clock stands 100 ms past
// v4's commit, so RETAIN 0 HOURS puts the cutoff between v4's commit time and b's tombstone.
void YoungRemoveAfterItsCommit(VacuumTable& t) {
  t.Create();
  t.AddFileCommitted("a.parquet");
  t.AddFileCommitted("b.parquet");
  t.clock()->AdvanceMillis(1000);
  t.Remove("a.parquet");
  delta::RemoveFile young = t.RemoveAction("b.parquet");
  young.deletion_timestamp = *young.deletion_timestamp + 500;
  t.CommitActions({}, {young});
  t.clock()->AdvanceMillis(100);
}

TEST(VacuumLite, L_young_remove_WatermarkStopsBeforeTheCommitTheNextRunDeletesIt) {
  VacuumTable t;
  YoungRemoveAfterItsCommit(t);
  VacuumOptions lite = t.Options(0);
  lite.mode = VacuumMode::kLite;
  lite.logging_enabled = false;
  VacuumResult first = t.RunOk(lite);
  EXPECT_EQ(first.deleted, Keys{"a.parquet"});
  EXPECT_EQ(first.eligible_end_commit_version, 4);
  // Spark would record 4, and no later LITE run would read v4 again.
  EXPECT_EQ(first.recorded_watermark, 3);
  EXPECT_TRUE(t.Exists("b.parquet"));
  t.clock()->AdvanceMillis(1000);
  VacuumResult second = t.RunOk(lite);
  EXPECT_EQ(second.eligible_start_commit_version, 4);
  EXPECT_EQ(second.deleted, Keys{"b.parquet"});
  EXPECT_EQ(second.recorded_watermark, 4);
}

TEST(VacuumLite, L_young_remove_FullRecordsNoWatermarkPastTheCommitEither) {
  VacuumTable t;
  YoungRemoveAfterItsCommit(t);
  VacuumOptions full = t.Options(0);
  full.logging_enabled = false;
  VacuumResult r = t.RunOk(full);
  EXPECT_EQ(r.deleted, Keys{"a.parquet"});
  EXPECT_EQ(r.recorded_watermark, 3);
  t.clock()->AdvanceMillis(1000);
  VacuumOptions lite = t.Options(0);
  lite.mode = VacuumMode::kLite;
  lite.logging_enabled = false;
  VacuumResult next = t.RunOk(lite);
  EXPECT_EQ(next.eligible_start_commit_version, 4);
  EXPECT_EQ(next.deleted, Keys{"b.parquet"});
  // A young tombstone in a commit after the watermark does not hold it back.
  t.AddFileCommitted("c.parquet");  // v5
  t.clock()->AdvanceMillis(2 * 3600 * 1000);
  t.Remove("c.parquet");  // v6
  t.clock()->AdvanceMillis(1800 * 1000);
  full.retain_hours = 1;  // the cutoff falls between v5 and v6
  VacuumResult last = t.RunOk(full);
  EXPECT_TRUE(last.deleted.empty());
  EXPECT_EQ(last.recorded_watermark, 5);
  EXPECT_TRUE(t.Exists("c.parquet"));
}

TEST(VacuumLite, R_full_vs_lite_NeverReferencedFilesAreForFullOnly) {
  VacuumTable t;
  t.Create();
  t.AddFileCommitted("committed.parquet");
  for (int i = 0; i < 4; ++i) t.Write("part-" + std::to_string(i) + ".parquet", "x", 0);
  t.clock()->AdvanceMillis(1000);
  EXPECT_TRUE(t.DryRunKeys(0, VacuumMode::kLite).empty());
  EXPECT_EQ(t.DryRunKeys(0).size(), 4u);
}

TEST(VacuumLite, S_lite_no_commit_older_than_cutoff_IsANoOp) {
  VacuumTable t;
  t.Create();
  t.AddFileCommitted("a.parquet");
  t.Remove("a.parquet");
  VacuumOptions lite = t.Options();
  lite.mode = VacuumMode::kLite;
  VacuumResult r = t.RunOk(lite);
  EXPECT_EQ(r.num_files_to_delete, 0);
  EXPECT_FALSE(r.recorded_watermark.has_value());
  EXPECT_TRUE(t.Exists("a.parquet"));
}

// ---------------------------------------------------------------------------------------------
// History commits

TEST(VacuumHistory, D_log_0h_StartAndEndCommitsCarrySparksParametersAndMetrics) {
  VacuumTable t;
  t.Create({{"delta.deletedFileRetentionDuration", "interval 0 hours"}});
  t.AddFileCommitted("f.parquet");
  t.Remove("f.parquet");
  t.clock()->AdvanceMillis(10 * kHour);
  VacuumResult r = t.RunOk(t.Options(0));
  ASSERT_TRUE(r.start_commit_version && r.end_commit_version);
  EXPECT_EQ(*r.end_commit_version, *r.start_commit_version + 1);
  EXPECT_EQ(t.Version(), *r.end_commit_version);
  delta::CommitInfo start = CommitInfoAt(*t.store(), *r.start_commit_version);
  delta::CommitInfo end = CommitInfoAt(*t.store(), *r.end_commit_version);
  EXPECT_EQ(start.operation, "VACUUM START");
  EXPECT_EQ(*start.operation_parameters, (delta::StringMap{{"retentionCheckEnabled", "false"},
                                                           {"defaultRetentionMillis", "0"},
                                                           {"specifiedRetentionMillis", "0"}}));
  EXPECT_EQ(*start.operation_metrics,
            (delta::StringMap{{"numFilesToDelete", "1"}, {"sizeOfDataToDelete", "9"}}));
  EXPECT_EQ(end.operation, "VACUUM END");
  EXPECT_EQ(end.read_version, r.start_commit_version);  // END reads on from START
  EXPECT_EQ(*end.operation_parameters, (delta::StringMap{{"status", "\"COMPLETED\""}}));
  EXPECT_EQ(*end.operation_metrics,
            (delta::StringMap{{"numDeletedFiles", "1"}, {"numVacuumedDirectories", "1"}}));
  // The commits hold nothing but commitInfo.
  std::vector<delta::Action> actions;
  ASSERT_TRUE(
      delta::ParseCommit(*t.store()->Get(delta::CommitKey(*r.end_commit_version)), &actions, "x")
          .ok());
  EXPECT_EQ(actions.size(), 1u);
  auto history = delta::ReadHistory(*t.store(), 2);
  ASSERT_TRUE(history.ok());
  EXPECT_EQ((*history)[0].commit_info->operation, "VACUUM END");
  EXPECT_EQ((*history)[1].commit_info->operation, "VACUUM START");
}

TEST(VacuumHistory, D_log_dryrun_DryRunWritesNothing) {
  VacuumTable t;
  t.Create();
  t.AddFileCommitted("f.parquet");
  t.Remove("f.parquet");
  t.clock()->AdvanceMillis(8 * kDay);
  int64_t before = t.Version();
  VacuumResult r = t.RunOk(t.Options(std::nullopt, true));
  EXPECT_EQ(r.num_files_to_delete, 1);
  EXPECT_EQ(t.Version(), before);
  EXPECT_TRUE(t.Exists("f.parquet"));
  EXPECT_TRUE(t.store()->Head(kLastVacuumInfoKey).status().IsNotFound());
}

TEST(VacuumHistory, D_log_disabled_NoStartOrEnd) {
  VacuumTable t;
  t.Create();
  t.AddFileCommitted("f.parquet");
  t.Remove("f.parquet");
  t.clock()->AdvanceMillis(8 * kDay);
  int64_t before = t.Version();
  VacuumOptions o = t.Options();
  o.logging_enabled = false;
  VacuumResult r = t.RunOk(o);
  EXPECT_EQ(r.num_deleted_files, 1);
  EXPECT_EQ(t.Version(), before);
  EXPECT_FALSE(r.start_commit_version.has_value());
}

TEST(VacuumHistory, D_log_nothing_BothCommitsEvenWithNothingToDelete) {
  VacuumTable t;
  t.Create({{"delta.deletedFileRetentionDuration", "interval 20 hours"}});
  t.AddFileCommitted("f.parquet");
  t.Remove("f.parquet");
  t.clock()->AdvanceMillis(10 * kHour);
  VacuumResult r = t.RunOk(t.Options());
  ASSERT_TRUE(r.end_commit_version.has_value());
  EXPECT_EQ(*CommitInfoAt(*t.store(), *r.start_commit_version).operation_metrics,
            (delta::StringMap{{"numFilesToDelete", "0"}, {"sizeOfDataToDelete", "0"}}));
  EXPECT_EQ(
      (*CommitInfoAt(*t.store(), *r.end_commit_version).operation_metrics->Find("numDeletedFiles")),
      "0");
}

TEST(VacuumHistory, S_progress_cancel_EndSaysFailedAndARerunFinishes) {
  VacuumTable t;
  t.Create();
  for (int i = 0; i < 5; ++i) t.Write("junk" + std::to_string(i), "x", 0);
  VacuumOptions o = t.Options(0);
  o.delete_batch_size = 2;
  std::vector<VacuumProgress> seen;
  o.progress = [&](const VacuumProgress& p) -> Status {
    seen.push_back(p);
    if (p.phase == VacuumProgress::Phase::kDeleting) return Status::Cancelled("stop");
    return Status::OK();
  };
  auto r = t.Run(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].phase, VacuumProgress::Phase::kPlanned);
  EXPECT_EQ(seen[0].to_delete, 5);
  EXPECT_EQ(seen[1].deleted, 2);
  delta::CommitInfo end = CommitInfoAt(*t.store(), t.Version());
  EXPECT_EQ(end.operation, "VACUUM END");
  EXPECT_EQ(*end.operation_parameters, (delta::StringMap{{"status", "\"FAILED\""}}));
  EXPECT_FALSE(end.operation_metrics.has_value());
  EXPECT_TRUE(t.store()->Head(kLastVacuumInfoKey).status().IsNotFound());
  o.progress = nullptr;
  EXPECT_EQ(t.RunOk(o).num_deleted_files, 3);
}

// ---------------------------------------------------------------------------------------------
// Hidden-name rule

TEST(VacuumHidden, IsHiddenNameFollowsDeltaTableUtils) {
  std::vector<std::string> parts = {"_p="};
  EXPECT_TRUE(IsHiddenName("_delta_log", parts, false));
  EXPECT_TRUE(IsHiddenName(".x.crc", parts, false));
  EXPECT_TRUE(IsHiddenName("_SUCCESS", parts, false));
  EXPECT_FALSE(IsHiddenName("_delta_index", parts, false));
  EXPECT_FALSE(IsHiddenName("_change_data", parts, false));
  EXPECT_FALSE(IsHiddenName("_p=1", parts, false));
  EXPECT_TRUE(IsHiddenName("_p", parts, false));
  EXPECT_FALSE(IsHiddenName("metadata", parts, false));
  EXPECT_TRUE(IsHiddenName("metadata", parts, true));
  EXPECT_FALSE(IsHiddenName("part-0.parquet", parts, true));
}

}  // namespace
}  // namespace silt::ops
