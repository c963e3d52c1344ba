// The Delta scan's work units are page-aligned row ranges of row groups: a file of one big row
// group (split into ranges, columns with different page boundaries, a dictionary that falls back
// to PLAIN) and files of several small row groups, with deletion vectors spanning ranges and
// groups, read through PushAll (aggregates, join probes: units of one file shared by the workers)
// and Next (join builds, LIMIT: units in file order), checked against values computed here.
#include "exec/delta_scan.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <functional>
#include <mutex>

#include "common/thread_pool.h"
#include "delta/snapshot.h"
#include "delta/table_writer.h"
#include "exec/functions.h"
#include "exec/runtime_bloom.h"
#include "io/local_object_store.h"
#include "io/object_store.h"
#include "parquet/reader.h"
#include "silt/silt.h"
#include "support/wall_clock.h"

namespace silt {
namespace {

// Rows [0, kBigRows) in one file of one row group (several scan units), then rows
// [kBigRows, kRows) in files of 10000 rows with row groups of 1000.
constexpr int64_t kBigRows = 2 * exec::DeltaScanOperator::kScanUnitRows + 50000;
constexpr int64_t kRows = kBigRows + 22500;
constexpr int64_t kUnit = exec::DeltaScanOperator::kScanUnitRows;

bool Deleted(int64_t id) {
  return id % 10 == 3 || (id >= 4000 && id < 6500) || (id >= kUnit - 10 && id < kUnit + 30) ||
         (id >= kBigRows + 4000 && id < kBigRows + 6500);
}

// Reads every chunk of `op` through PushAll with `threads` workers (`check` runs under a lock)
// or through Next.
void Drain(exec::DeltaScanOperator& op, exec::ExecContext& ctx, bool push, size_t threads,
           const std::function<void(const DataChunk&)>& check) {
  if (push) {
    std::mutex mu;
    auto r = op.PushAll(ctx, threads, [&](size_t, DataChunk& c) {
      std::lock_guard<std::mutex> lock(mu);
      check(c);
      return Status::OK();
    });
    ASSERT_TRUE(r.ok() && *r) << r.status().ToString();
    return;
  }
  DataChunk c;
  for (;;) {
    auto r = op.Next(ctx, &c);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    if (!*r) break;
    check(c);
  }
}

DataChunk Rows(const Schema& schema, int64_t from, int64_t to) {
  DataChunk c = DataChunk::FromSchema(schema);
  for (int64_t i = from; i < to; ++i) {
    c.columns[0].Append<int64_t>(i);
    c.columns[1].Append<int64_t>(i % 7);
    c.columns[2].AppendString("s" + std::to_string(i % 13));
  }
  return c;
}

class DeltaScanRowGroupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "silt-scan-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    table_ = dir_ + "/t";
    std::filesystem::create_directories(table_);
    auto store = std::make_shared<LocalObjectStore>(table_);
    Schema schema = {{"id", DataType::Int64(), true, "{}"},
                     {"v", DataType::Int64(), true, "{}"},
                     {"s", DataType::String(), true, "{}"}};
    delta::CreateTableOptions o = WallCreate();
    o.properties.Set("delta.enableDeletionVectors", "true");
    ASSERT_TRUE(delta::CreateTable(store, schema, {}, o).ok());
    delta::DataWriteOptions big = WallWrite();
    big.parquet.page_bytes = 64 << 10;             // id: pages of 8192 rows, s: of 20000
    big.parquet.dictionary_page_bytes = 16 << 10;  // id falls back to PLAIN after 2048 values
    auto r = delta::AppendRows(store, {Rows(schema, 0, kBigRows)}, big, WallTxn());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    delta::DataWriteOptions small = WallWrite();
    small.max_rows_per_file = 10000;
    small.parquet.row_group_max_rows = 1000;
    r = delta::AppendRows(store, {Rows(schema, kBigRows, kRows)}, small, WallTxn());
    ASSERT_TRUE(r.ok()) << r.status().ToString();

    DatabaseOptions opts;
    opts.warehouse = dir_ + "/wh";
    opts.threads = 2;
    auto db = Database::Open(opts);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = *db;
    con_ = std::make_unique<Connection>(db_);
    ref_ = "delta.`" + table_ + "`";
    Run("DELETE FROM " + ref_ + " WHERE id % 10 = 3 OR (id >= 4000 AND id < 6500) OR (id >= " +
        std::to_string(kUnit - 10) + " AND id < " + std::to_string(kUnit + 30) + ") OR (id >= " +
        std::to_string(kBigRows + 4000) + " AND id < " + std::to_string(kBigRows + 6500) + ")");

    // The layout the tests rely on: one file of one big row group, three of several row groups,
    // each with a DV.
    auto snap = delta::Snapshot::Load(store);
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    ASSERT_EQ((*snap)->files().size(), 4u);
    int big_files = 0;
    for (const auto& f : (*snap)->files()) {
      EXPECT_TRUE(f.deletion_vector.has_value()) << f.path;
      auto pf = parquet::ParquetFile::OpenPath(table_ + "/" + f.path);
      ASSERT_TRUE(pf.ok()) << pf.status().ToString();
      if ((*pf)->num_rows() == kBigRows) {
        ++big_files;
        EXPECT_EQ((*pf)->num_row_groups(), 1);
      } else {
        EXPECT_GE((*pf)->num_row_groups(), 3);
      }
    }
    EXPECT_EQ(big_files, 1);
  }
  void TearDown() override {
    con_.reset();
    db_.reset();
    std::filesystem::remove_all(dir_);
  }
  std::unique_ptr<QueryResult> Run(const std::string& sql) {
    auto r = con_->Query(sql);
    EXPECT_TRUE(r.ok()) << sql << "\n" << r.status().ToString();
    if (!r.ok()) return std::make_unique<QueryResult>(Schema{}, std::vector<DataChunk>{});
    return std::move(*r);
  }

  std::string dir_, table_, ref_;
  std::shared_ptr<Database> db_;
  std::unique_ptr<Connection> con_;
};

TEST_F(DeltaScanRowGroupTest, AggregatesSeeEverySurvivingRowOnce) {
  for (const char* threads : {"1", "2"}) {
    SCOPED_TRACE(threads);
    Run(std::string("SET silt.threads = ") + threads);
    int64_t count = 0, sum = 0;
    std::vector<int64_t> by_v(7), sum_by_v(7);
    for (int64_t i = 0; i < kRows; ++i) {
      if (Deleted(i) || i < 500) continue;
      ++count;
      sum += i;
      ++by_v[i % 7];
      sum_by_v[i % 7] += i;
    }
    auto r = Run("SELECT count(*), sum(id) FROM " + ref_ + " WHERE id >= 500");
    ASSERT_EQ(r->num_rows(), 1u);
    EXPECT_EQ(r->Row(0)[0].ToString(), std::to_string(count));
    EXPECT_EQ(r->Row(0)[1].ToString(), std::to_string(sum));
    r = Run("SELECT v, count(*), sum(id) FROM " + ref_ + " WHERE id >= 500 GROUP BY v ORDER BY v");
    ASSERT_EQ(r->num_rows(), 7u);
    for (size_t v = 0; v < 7; ++v) {
      EXPECT_EQ(r->Row(v)[1].ToString(), std::to_string(by_v[v]));
      EXPECT_EQ(r->Row(v)[2].ToString(), std::to_string(sum_by_v[v]));
    }
  }
}

TEST_F(DeltaScanRowGroupTest, LimitReturnsEachFilesSurvivorsInOrder) {
  // Most of the table, so the big file contributes several units whichever place it has among
  // the files: its rows must be its first survivors, in order (units emitted in row order).
  std::vector<int64_t> big;
  size_t survivors = 0;
  for (int64_t i = 0; i < kRows; ++i) {
    if (Deleted(i)) continue;
    ++survivors;
    if (i < kBigRows) big.push_back(i);
  }
  const size_t limit = survivors - 1000;
  auto r = Run("SELECT id, s FROM " + ref_ + " LIMIT " + std::to_string(limit));
  ASSERT_EQ(r->num_rows(), limit);
  size_t next_big = 0;
  std::vector<bool> seen(kRows, false);
  for (const DataChunk& c : r->chunks()) {
    for (size_t i = 0; i < c.size(); ++i) {
      int64_t id = c.columns[0].Get<int64_t>(i);
      ASSERT_TRUE(id >= 0 && id < kRows && !Deleted(id) && !seen[id]) << id;
      seen[id] = true;
      ASSERT_EQ(c.columns[1].GetString(i), "s" + std::to_string(id % 13)) << id;
      if (id < kBigRows) {
        ASSERT_EQ(id, big[next_big++]);
      }
    }
  }
  EXPECT_GT(next_big, static_cast<size_t>(kUnit));
}

TEST_F(DeltaScanRowGroupTest, JoinBuildAndProbeOverRowGroups) {
  int64_t count = 0, sum = 0;
  for (int64_t i = 1; i < kRows; ++i) {
    if (Deleted(i) || Deleted(i - 1) || i % 3 == 0) continue;
    ++count;
    sum += i;
  }
  auto r = Run("SELECT count(*), sum(a.id) FROM " + ref_ + " a JOIN (SELECT id FROM " + ref_ +
               " WHERE id % 3 <> 2) b ON a.id = b.id + 1");
  ASSERT_EQ(r->num_rows(), 1u);
  EXPECT_EQ(r->Row(0)[0].ToString(), std::to_string(count));
  EXPECT_EQ(r->Row(0)[1].ToString(), std::to_string(sum));
}

// Late materialization: a row filter on `id` (a bloom filter of keys, as dynamic file pruning
// adds) decodes `v` and `s` only for the rows it keeps, over ranges, DV-deleted rows and row
// groups; the result is the same with it switched off, and every kept row is complete.
TEST_F(DeltaScanRowGroupTest, LateMaterializedRowFilterKeepsRowsWhole) {
  auto store = std::make_shared<LocalObjectStore>(table_);
  auto snap = delta::Snapshot::Load(store);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  std::shared_ptr<const delta::Snapshot> snapshot = std::move(*snap);
  // Keys: a dense cluster (pages of every column kept), scattered ids, deleted ids, and the
  // first and last rows of the big file's units.
  Vector keys(DataType::Int64());
  std::vector<bool> is_key(kRows, false);
  auto add = [&](int64_t id) {
    if (id < 0 || id >= kRows || is_key[id]) return;
    is_key[id] = true;
    keys.Append<int64_t>(id);
  };
  for (int64_t i = 100000; i < 101000; ++i) add(i);
  for (int64_t i = 7; i < kRows; i += 4999) add(i);
  for (int64_t i : {int64_t{0}, int64_t{3}, int64_t{4000}, kUnit - 1, kUnit, kUnit + 30,
                    kBigRows - 1, kBigRows, kRows - 1})
    add(i);
  auto bloom = exec::KeyBloomFilter::Build(keys, keys.size());
  for (int threads : {1, 3}) {
    for (bool push : {false, true}) {
      for (bool late : {true, false}) {
        SCOPED_TRACE(std::to_string(threads) + (push ? " push" : " next") +
                     (late ? " late" : " whole"));
        std::vector<const delta::AddFile*> files;
        for (const auto& f : snapshot->files()) files.push_back(&f);
        auto op = exec::DeltaScanOperator::Make(snapshot, {"id", "v", "s"}, files, {}, "t");
        ASSERT_TRUE(op.ok()) << op.status().ToString();
        (*op)->AddRowFilter(
            exec::MakeBloomFilterExpr(bloom, exec::MakeColumn(0, DataType::Int64(), "id")));
        (*op)->SetLateMaterialization(late);
        ThreadPool pool(static_cast<size_t>(threads));
        exec::ExecContext ctx;
        ctx.pool = threads > 1 ? &pool : nullptr;
        std::vector<int> seen(kRows, 0);
        int64_t rows = 0;
        auto check = [&](const DataChunk& c) {
          ASSERT_EQ(c.columns.size(), 3u);
          for (size_t i = 0; i < c.size(); ++i) {
            const int64_t id = c.columns[0].Get<int64_t>(i);
            ASSERT_TRUE(id >= 0 && id < kRows && !Deleted(id)) << id;
            ++seen[id];
            ++rows;
            ASSERT_EQ(c.columns[1].Get<int64_t>(i), id % 7) << id;
            ASSERT_EQ(c.columns[2].GetString(i), "s" + std::to_string(id % 13)) << id;
          }
        };
        ASSERT_NO_FATAL_FAILURE(Drain(**op, ctx, push, static_cast<size_t>(threads), check));
        int64_t false_positives = 0;
        for (int64_t id = 0; id < kRows; ++id) {
          ASSERT_LE(seen[id], 1) << id;
          if (is_key[id] && !Deleted(id)) {
            ASSERT_EQ(seen[id], 1) << id;
          }
          false_positives += !is_key[id] && seen[id];
        }
        EXPECT_LT(false_positives, kRows / 50);
        if (late) {
          EXPECT_GT((*op)->late_rows_seen(), 0);
          EXPECT_EQ((*op)->late_rows_kept(), rows);
        } else {
          EXPECT_EQ((*op)->late_rows_seen(), 0);
        }
      }
    }
  }
}

// A projection that drops a filter-only column (Q6's l_shipdate): the scan copies only the
// columns the projection reads, and a constant in the projection still gets one value per row,
// whether the filter keeps some rows (a selection per piece) or all of them (ranges of a big
// row group).
TEST_F(DeltaScanRowGroupTest, ProjectionWithoutFilterOnlyColumns) {
  auto store = std::make_shared<LocalObjectStore>(table_);
  auto snap = delta::Snapshot::Load(store);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  std::shared_ptr<const delta::Snapshot> snapshot = std::move(*snap);
  exec::BindContext bctx;
  const exec::ExprPtr id = exec::MakeColumn(0, DataType::Int64(), "id");
  auto mod = exec::BindScalarFunction("%", {id, exec::MakeConstant(Value::Int64(2))}, bctx);
  ASSERT_TRUE(mod.ok());
  auto even = exec::BindScalarFunction("=", {*mod, exec::MakeConstant(Value::Int64(0))}, bctx);
  ASSERT_TRUE(even.ok());
  auto any = exec::BindScalarFunction(">=", {id, exec::MakeConstant(Value::Int64(0))}, bctx);
  ASSERT_TRUE(any.ok());
  for (bool half : {true, false}) {
    int64_t want_rows = 0, want_v = 0;
    for (int64_t i = 0; i < kRows; ++i) {
      if (Deleted(i) || (half && i % 2 != 0)) continue;
      ++want_rows;
      want_v += i % 7;
    }
    for (bool late : {true, false}) {
      for (bool push : {false, true}) {
        SCOPED_TRACE(std::string(half ? "half" : "all") + (late ? " late" : " whole") +
                     (push ? " push" : " next"));
        std::vector<const delta::AddFile*> files;
        for (const auto& f : snapshot->files()) files.push_back(&f);
        auto op = exec::DeltaScanOperator::Make(snapshot, {"id", "v", "s"}, files,
                                                {half ? *even : *any}, "t");
        ASSERT_TRUE(op.ok()) << op.status().ToString();
        (*op)->SetLateMaterialization(late);
        // [7, v, s]: id (column 0) only filters.
        (*op)->SetProjection(
            {exec::MakeConstant(Value::Int32(7)), exec::MakeColumn(1, DataType::Int64(), "v"),
             exec::MakeColumn(2, DataType::String(), "s")},
            {{"k", DataType::Int32(), false, "{}"},
             {"v", DataType::Int64(), true, "{}"},
             {"s", DataType::String(), true, "{}"}});
        ThreadPool pool(2);
        exec::ExecContext ctx;
        ctx.pool = &pool;
        int64_t rows = 0, sum_v = 0;
        auto check = [&](const DataChunk& c) {
          ASSERT_EQ(c.columns.size(), 3u);
          ASSERT_EQ(c.columns[0].size(), c.size());
          ASSERT_EQ(c.columns[1].size(), c.size());
          ASSERT_EQ(c.columns[2].size(), c.size());
          for (size_t i = 0; i < c.size(); ++i) {
            ASSERT_EQ(c.columns[0].Get<int32_t>(i), 7);
            const int64_t v = c.columns[1].Get<int64_t>(i);
            ASSERT_TRUE(v >= 0 && v < 7) << v;
            ASSERT_EQ(c.columns[2].GetString(i).substr(0, 1), "s");
            sum_v += v;
            ++rows;
          }
        };
        ASSERT_NO_FATAL_FAILURE(Drain(**op, ctx, push, 2, check));
        EXPECT_EQ(rows, want_rows);
        EXPECT_EQ(sum_v, want_v);
      }
    }
  }
}

}  // namespace
}  // namespace silt
