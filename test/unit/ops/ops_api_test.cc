// The ops API driven without SQL, as an embedder or the maintenance service drives it: a table in
// the in-memory ObjectStore, a manual clock, typed options and results. Covers the Auto-TTL chain
// (DELETE -> REORG PURGE -> VACUUM), TRUNCATE and RESTORE, the explicit-clock rule and the
// per-snapshot write-support verdict.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "delta/snapshot.h"
#include "io/object_store.h"
#include "ops/convert_to_delta.h"
#include "ops/dml.h"
#include "ops/ops.h"
#include "ops/optimize.h"
#include "ops/restore.h"
#include "ops/truncate.h"
#include "ops/vacuum.h"
#include "parquet/writer.h"
#include "unit/ops/dml_test_util.h"

namespace silt::ops {
namespace {

using testing::DmlTable;
using testing::kT0;
using testing::MatchInt;
using testing::ReadRows;

constexpr int64_t kHourMs = 3600LL * 1000;
constexpr int64_t kWeekMs = 7 * 24 * kHourMs;

std::vector<std::string> Rows(std::initializer_list<const char*> rows) {
  return {rows.begin(), rows.end()};
}

DeleteSpec DeleteIdAtMost(const DmlTable& t, int64_t max_id) {
  DeleteSpec s;
  s.predicate_sql = "(id <= " + std::to_string(max_id) + ")";
  s.columns = {"id"};
  s.matcher = MatchInt(0, [max_id](int64_t v) { return v <= max_id; });
  s.options = t.Options();
  return s;
}

TEST(OpsApi, DeleteThenPurgeThenVacuumWithoutSql) {
  DmlTable t;
  t.Create({{1, "a", {}}, {2, "b", {}}, {3, "c", {}}, {4, "d", {}}}, /*partitioned=*/false,
           /*dvs=*/true);
  std::shared_ptr<const delta::Snapshot> v0 = t.Latest();
  ASSERT_EQ(v0->files().size(), 1u);
  const std::string first_file = v0->files()[0].path;

  // DELETE: a deletion vector on the one file, the rows gone from reads.
  Result<DmlResult> deleted = DeleteRows(t.store(), v0, DeleteIdAtMost(t, 2));
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(deleted->version, 1);
  EXPECT_EQ(deleted->num_affected_rows, 2);
  EXPECT_TRUE(deleted->used_deletion_vectors);
  EXPECT_EQ(deleted->metrics.num_deletion_vectors_added, 1);
  EXPECT_EQ(ReadRows(t.store()), Rows({"3|c", "4|d"}));
  std::shared_ptr<const delta::Snapshot> v1 = t.Latest();
  ASSERT_EQ(v1->files().size(), 1u);
  ASSERT_TRUE(v1->files()[0].deletion_vector.has_value());
  EXPECT_EQ(v1->files()[0].path, first_file);

  // REORG PURGE an hour later: the file is rewritten without the deleted rows.
  t.clock()->AdvanceMillis(kHourMs);
  OptimizeOptions purge;
  purge.mode = OptimizeOptions::Mode::kReorgPurge;
  purge.clock = t.clock();
  Result<OptimizeResult> purged = Optimize(t.store(), purge);
  ASSERT_TRUE(purged.ok()) << purged.status().ToString();
  EXPECT_EQ(purged->committed_version, 2);
  EXPECT_EQ(purged->num_files_removed, 1);
  EXPECT_EQ(purged->num_files_added, 1);
  EXPECT_EQ(purged->num_deletion_vectors_removed, 1);
  EXPECT_EQ(purged->num_deletion_vector_rows_removed, 2);
  EXPECT_EQ(purged->start_time_ms, kT0 + kHourMs);  // the options' clock, not wall time
  std::shared_ptr<const delta::Snapshot> v2 = t.Latest();
  ASSERT_EQ(v2->files().size(), 1u);
  EXPECT_FALSE(v2->files()[0].deletion_vector.has_value());
  EXPECT_NE(v2->files()[0].path, first_file);
  EXPECT_EQ(ReadRows(t.store()), Rows({"3|c", "4|d"}));

  // VACUUM inside the 7-day retention: nothing to delete.
  VacuumOptions vacuum;
  vacuum.clock = t.clock();
  vacuum.dry_run = true;
  Result<VacuumResult> early = Vacuum(t.store(), vacuum);
  ASSERT_TRUE(early.ok()) << early.status().ToString();
  EXPECT_TRUE(early->candidates.empty());

  // A week after the purge: the purged data file and the DELETE's DV file go.
  t.clock()->AdvanceMillis(kWeekMs + 1);
  vacuum.dry_run = false;
  Result<VacuumResult> done = Vacuum(t.store(), vacuum);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(done->min_retained_timestamp_ms, kT0 + kHourMs + 1);
  EXPECT_EQ(done->num_files_to_delete, 2);
  EXPECT_EQ(done->num_deleted_files, 2);
  ASSERT_EQ(done->candidates.size(), 2u);
  bool saw_first_file = false, saw_dv_file = false;
  for (const VacuumCandidate& c : done->candidates) {
    saw_first_file |= c.key == first_file;
    saw_dv_file |= c.key.rfind("deletion_vector_", 0) == 0;
  }
  EXPECT_TRUE(saw_first_file);
  EXPECT_TRUE(saw_dv_file);
  EXPECT_EQ(t.store()->Head(first_file).status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(t.store()->Head(v2->files()[0].path).ok());
  EXPECT_EQ(ReadRows(t.store()), Rows({"3|c", "4|d"}));
}

TEST(OpsApi, TruncateThenRestore) {
  DmlTable t;
  t.Create({{1, "a", {}}, {2, "b", {}}}, /*partitioned=*/false, /*dvs=*/false);
  t.Append({{3, "c", {}}});
  std::shared_ptr<const delta::Snapshot> v1 = t.Latest();
  ASSERT_EQ(v1->files().size(), 2u);

  Result<DmlResult> truncated = Truncate(t.store(), v1, t.Options());
  ASSERT_TRUE(truncated.ok()) << truncated.status().ToString();
  EXPECT_EQ(truncated->version, 2);
  EXPECT_EQ(truncated->metrics.num_removed_files, 2);
  EXPECT_EQ(truncated->metrics.files_removed_unread, 2);
  EXPECT_TRUE(ReadRows(t.store()).empty());
  // An empty table: nothing to remove, no commit.
  Result<DmlResult> again = Truncate(t.store(), t.Latest(), t.Options());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(again->version.has_value());

  t.clock()->AdvanceMillis(kHourMs);
  RestoreOptions restore;
  restore.clock = t.clock();
  restore.parameters.Set("version", "1");
  Result<RestoreResult> restored = Restore(t.store(), t.Latest(), v1, restore);
  ASSERT_TRUE(restored.ok()) << restored.status().ToString();
  EXPECT_EQ(restored->version, 3);
  EXPECT_EQ(restored->num_restored_files, 2);
  EXPECT_EQ(restored->num_removed_files, 0);
  EXPECT_EQ(restored->num_of_files_after_restore, 2);
  EXPECT_EQ(restored->restored_files_size, v1->files()[0].size + v1->files()[1].size);
  EXPECT_EQ(restored->table_size_after_restore, restored->restored_files_size);
  EXPECT_EQ(ReadRows(t.store()), Rows({"1|a", "2|b", "3|c"}));
  std::shared_ptr<const delta::Snapshot> v3 = t.Latest();
  EXPECT_EQ(v3->timestamp_ms(), kT0 + kHourMs);
}

TEST(OpsApi, RestoreRefusesMissingFilesUnlessTold) {
  DmlTable t;
  t.Create({{1, "a", {}}}, /*partitioned=*/false, /*dvs=*/false);
  std::shared_ptr<const delta::Snapshot> v0 = t.Latest();
  ASSERT_TRUE(Truncate(t.store(), v0, t.Options()).ok());
  ASSERT_TRUE(t.store()->Delete(v0->files()[0].path).ok());

  RestoreOptions restore;
  restore.clock = t.clock();
  restore.parameters.Set("version", "0");
  Result<RestoreResult> refused = Restore(t.store(), t.Latest(), v0, restore);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().error_class(), "DELTA_RESTORE_MISSED_DATA_FILES");
  EXPECT_NE(refused.status().message().find(v0->files()[0].path), std::string::npos);
  EXPECT_EQ(t.Latest()->version(), 1) << "the table is left untouched";

  restore.ignore_missing_files = true;
  Result<RestoreResult> forced = Restore(t.store(), t.Latest(), v0, restore);
  ASSERT_TRUE(forced.ok()) << forced.status().ToString();
  EXPECT_EQ(forced->num_restored_files, 1);
}

TEST(OpsApi, EveryOperationNeedsAnExplicitClock) {
  DmlTable t;
  t.Create({{1, "a", {}}, {2, "b", {}}}, /*partitioned=*/false, /*dvs=*/true);
  std::shared_ptr<const delta::Snapshot> v0 = t.Latest();
  auto expect_missing_clock = [](const Status& st, const std::string& what) {
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << what << ": " << st.ToString();
    EXPECT_EQ(st.error_class(), kErrorMissingClock) << what;
  };

  DeleteSpec del = DeleteIdAtMost(t, 1);
  del.options.clock = nullptr;
  expect_missing_clock(DeleteRows(t.store(), v0, del).status(), "DeleteRows");
  expect_missing_clock(MatchDeletedRows(t.store(), v0, del).status(), "MatchDeletedRows");

  UpdateSpec up;
  up.matcher = MatchInt(0, [](int64_t) { return true; });
  up.columns = {"id"};
  up.updater = [](const DataChunk& rows) -> Result<DataChunk> { return rows; };
  expect_missing_clock(UpdateRows(t.store(), v0, up).status(), "UpdateRows");

  expect_missing_clock(ApplyRowChanges(t.store(), v0, RowChanges{}, DmlOptions{}).status(),
                       "ApplyRowChanges");
  expect_missing_clock(Truncate(t.store(), v0, DmlOptions{}).status(), "Truncate");
  expect_missing_clock(Optimize(t.store(), OptimizeOptions{}).status(), "Optimize");
  expect_missing_clock(Vacuum(t.store(), VacuumOptions{}).status(), "Vacuum");
  expect_missing_clock(Restore(t.store(), v0, v0, RestoreOptions{}).status(), "Restore");
  expect_missing_clock(ConvertToDelta(t.store(), ConvertOptions{}).status(), "ConvertToDelta");

  EXPECT_EQ(t.Latest()->version(), 0) << "nothing was committed";
  EXPECT_EQ(ReadRows(t.store()), Rows({"1|a", "2|b"}));
}

TEST(OpsApi, WriteSupportVerdictIsPerSnapshotAndErrorsAreNotCached) {
  DmlTable t;
  delta::StringMap props;
  props.Set("delta.appendOnly", "true");
  t.Create({{1, "a", {}}}, /*partitioned=*/false, /*dvs=*/false, props);
  std::shared_ptr<const delta::Snapshot> v0 = t.Latest();
  for (int attempt = 0; attempt < 2; ++attempt) {
    Result<DmlResult> r = DeleteRows(t.store(), v0, DeleteIdAtMost(t, 1));
    ASSERT_FALSE(r.ok()) << "attempt " << attempt;
    EXPECT_EQ(r.status().error_class(), "DELTA_CANNOT_MODIFY_APPEND_ONLY") << "attempt " << attempt;
  }
  // Appending is allowed, and a verdict of one kind does not answer the other.
  EXPECT_TRUE(v0->CheckWriteSupported(false, t.store()->root()).ok());
  EXPECT_EQ(v0->CheckWriteSupported(true, t.store()->root()).error_class(),
            "DELTA_CANNOT_MODIFY_APPEND_ONLY");
  EXPECT_TRUE(v0->CheckWriteSupported(false, t.store()->root()).ok());
  EXPECT_EQ(ReadRows(t.store()), Rows({"1|a"}));
}

TEST(OpsApi, ConvertParquetDirectoryInTheInMemoryStore) {
  auto clock = std::make_shared<ManualClock>(kT0);
  auto store = std::make_shared<InMemoryObjectStore>(clock);
  ConvertOptions options;
  options.clock = clock;
  options.partition_columns = {{"p", DataType::String()}};
  Result<ConvertResult> missing = ConvertToDelta(store, options);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().error_class(), kErrorFileNotFound);

  const Schema data{Field{"id", DataType::Int64(), true, "{}"}};
  auto write = [&](const std::string& key, std::vector<int64_t> ids) {
    auto sink = store->OpenWrite(key);
    ASSERT_TRUE(sink.ok()) << sink.status().ToString();
    auto writer = parquet::ParquetWriter::Make(std::move(*sink), data);
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    DataChunk c = DataChunk::FromSchema(data);
    for (int64_t id : ids) c.columns[0].Append<int64_t>(id);
    ASSERT_TRUE((*writer)->Write(c).ok());
    ASSERT_TRUE((*writer)->Close().ok());
  };
  write("p=a/f1.parquet", {1, 2});
  write("p=b/f2.parquet", {3});
  write("_hidden/ignored.parquet", {9});

  Result<ConvertResult> converted = ConvertToDelta(store, options);
  ASSERT_TRUE(converted.ok()) << converted.status().ToString();
  EXPECT_EQ(converted->version, 0);
  EXPECT_EQ(converted->num_converted_files, 2);
  auto snap = delta::Snapshot::Load(store);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ((*snap)->files().size(), 2u);
  EXPECT_EQ((*snap)->partition_columns(), std::vector<std::string>{"p"});
  EXPECT_EQ((*snap)->metadata().created_time, std::optional<int64_t>(kT0));
  EXPECT_EQ(ReadRows(store), Rows({"1|a", "2|a", "3|b"}));

  // Idempotent: a directory with a Delta log is left alone.
  Result<ConvertResult> again = ConvertToDelta(store, options);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(again->version.has_value());
  auto after = delta::Snapshot::Load(store);
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ((*after)->version(), 0);
}

}  // namespace
}  // namespace silt::ops
