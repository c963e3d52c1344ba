// Change data feed reads (delta/change_data_feed.h) over tables the DML core wrote: commits with
// change files are read through them alone, commits without from their add/remove files (a DV
// change as the rows that differ), dataChange=false commits contribute nothing.
#include "delta/change_data_feed.h"

#include <gtest/gtest.h>

#include "delta/transaction.h"
#include "io/path.h"
#include "ops/dml.h"
#include "ops/optimize.h"
#include "parquet/reader.h"
#include "unit/ops/dml_test_util.h"

namespace silt::ops {
namespace {

using testing::DmlTable;
using testing::MatchInt;
using testing::Row;
using testing::Sorted;

std::vector<Row> Ids(int64_t from, int64_t to) {
  std::vector<Row> rows;
  for (int64_t i = from; i < to; ++i) rows.push_back({i, "v" + std::to_string(i), std::nullopt});
  return rows;
}

// "id|v|_change_type|_commit_version", sorted (a partition column p is left out).
std::vector<std::string> Feed(const DmlTable& t, int64_t start,
                              std::optional<int64_t> end = std::nullopt) {
  std::vector<std::string> out;
  auto feed = delta::ReadChangeFeed(t.store(), start, end);
  EXPECT_TRUE(feed.ok()) << feed.status().ToString();
  if (!feed.ok()) return out;
  const size_t n = feed->schema.size();
  EXPECT_EQ(n, t.partitioned() ? 6u : 5u);
  EXPECT_EQ(feed->schema[n - 3].name, "_change_type");
  EXPECT_EQ(feed->schema[n - 2].name, "_commit_version");
  EXPECT_EQ(feed->schema[n - 1].name, "_commit_timestamp");
  for (const DataChunk& c : feed->chunks) {
    EXPECT_EQ(c.columns.size(), n);
    for (size_t i = 0; i < c.size(); ++i) {
      out.push_back(
          c.columns[0].GetValue(i).ToString() + "|" + c.columns[1].GetValue(i).ToString() + "|" +
          c.columns[n - 3].GetValue(i).ToString() + "|" + c.columns[n - 2].GetValue(i).ToString());
      EXPECT_EQ(c.columns[n - 1].type()->id(), TypeId::kTimestamp);
      EXPECT_FALSE(c.columns[n - 1].IsNull(i));
    }
  }
  return Sorted(out);
}

const delta::StringMap kCdf = {{"delta.enableChangeDataFeed", "true"}};

std::vector<delta::Action> ActionsAt(ObjectStore& store, int64_t version) {
  std::vector<delta::Action> actions;
  auto bytes = store.Get(delta::CommitKey(version));
  EXPECT_TRUE(bytes.ok());
  EXPECT_TRUE(delta::ParseCommit(*bytes, &actions, "c").ok());
  return actions;
}

// The cdc actions of `version`, each checked for Spark's layout: a relative path
// `_change_data/[<partition dirs>/]cdc-….parquet` that exists with the recorded size,
// dataChange=false. Returns "<partition value or ->|<rows as id|v|_change_type, sorted,
// ';'-joined>" per file, sorted; the rows are read straight from the Parquet file (no Delta scan).
std::vector<std::string> CdcFilesAt(const DmlTable& t, int64_t version) {
  std::vector<std::string> out;
  for (const delta::Action& a : ActionsAt(*t.store(), version)) {
    const auto* c = a.get_if<delta::AddCDCFile>();
    if (c == nullptr) continue;
    EXPECT_FALSE(c->data_change) << c->path;
    std::string part = "-";
    std::string dir = "_change_data/";
    if (const auto* p = c->partition_values.Find("p"); p != nullptr && *p) {
      part = **p;
      dir += "p=" + **p + "/";
    }
    EXPECT_EQ(c->path.rfind(dir + "cdc-", 0), 0u) << c->path;
    EXPECT_NE(c->path.find(".parquet"), std::string::npos) << c->path;
    auto key = PercentDecode(c->path);
    EXPECT_TRUE(key.ok());
    if (!key.ok()) continue;
    auto bytes = t.store()->Get(*key);
    EXPECT_TRUE(bytes.ok()) << c->path;
    if (!bytes.ok()) continue;
    EXPECT_EQ(static_cast<int64_t>(bytes->size()), c->size);
    auto raw = t.store()->OpenRead(*key);
    EXPECT_TRUE(raw.ok());
    auto pf = parquet::ParquetFile::Open(*raw);
    EXPECT_TRUE(pf.ok()) << pf.status().ToString();
    if (!pf.ok()) continue;
    // Table data columns (partition columns live in the path) then _change_type.
    const Schema& fs = (*pf)->schema().schema();
    EXPECT_EQ(fs.size(), 3u);
    if (fs.size() != 3u) continue;
    EXPECT_EQ(fs[0].name, "id");
    EXPECT_EQ(fs[1].name, "v");
    EXPECT_EQ(fs[2].name, "_change_type");
    std::vector<std::string> rows;
    for (int rg = 0; rg < (*pf)->num_row_groups(); ++rg) {
      DataChunk chunk;
      EXPECT_TRUE((*pf)->ReadRowGroup(rg, {}, &chunk).ok());
      for (size_t i = 0; i < chunk.size(); ++i) {
        rows.push_back(chunk.columns[0].GetValue(i).ToString() + "|" +
                       chunk.columns[1].GetValue(i).ToString() + "|" +
                       chunk.columns[2].GetValue(i).ToString());
      }
    }
    std::string joined;
    for (const auto& r : Sorted(rows)) joined += (joined.empty() ? "" : ";") + r;
    out.push_back(part + "|" + joined);
  }
  return Sorted(out);
}

int CountCdcActions(const DmlTable& t, int64_t version) {
  int n = 0;
  for (const delta::Action& a : ActionsAt(*t.store(), version))
    n += a.get_if<delta::AddCDCFile>() != nullptr;
  return n;
}

RowUpdater PrefixV(std::optional<std::string> new_p = std::nullopt) {
  return [new_p](const DataChunk& in) -> Result<DataChunk> {
    DataChunk out;
    out.columns.push_back(in.columns[0]);
    Vector v(DataType::String());
    for (size_t i = 0; i < in.size(); ++i)
      v.AppendString("u" + in.columns[1].GetValue(i).ToString());
    out.columns.push_back(std::move(v));
    if (in.columns.size() > 2) {
      Vector p(DataType::String());
      for (size_t i = 0; i < in.size(); ++i) {
        new_p ? p.AppendString(*new_p) : p.AppendString(in.columns[2].GetValue(i).ToString());
      }
      out.columns.push_back(std::move(p));
    }
    out.num_rows_without_columns = in.size();
    return out;
  };
}

TEST(ChangeDataFeed, InsertsFromAddFilesAndDvDeletesFromChangeFiles) {
  DmlTable t;
  t.Create(Ids(0, 4), false, true, kCdf);
  DeleteSpec s;
  s.matcher = MatchInt(0, [](int64_t v) { return v == 1; });
  s.columns = {"id"};
  s.options = t.Options();
  auto r = DeleteRows(t.store(), t.Latest(), s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->used_deletion_vectors);
  // Version 1 has remove+add of the same file (new DV) and a change file: only the cdc rows.
  EXPECT_EQ(Feed(t, 1), std::vector<std::string>{"1|v1|delete|1"});
  EXPECT_EQ(Feed(t, 0), Sorted({"0|v0|insert|0", "1|v1|insert|0", "2|v2|insert|0", "3|v3|insert|0",
                                "1|v1|delete|1"}));
}

TEST(ChangeDataFeed, DvChangeWithoutChangeFilesGivesOnlyTheNewlyDeletedRows) {
  DmlTable t;
  t.Create(Ids(0, 6), false, true, kCdf);
  for (std::vector<uint64_t> rows : {std::vector<uint64_t>{1, 3}, std::vector<uint64_t>{0, 1}}) {
    auto snap = t.Latest();
    ASSERT_EQ(snap->files().size(), 1u);
    RowChanges c;
    c.operation = "DELETE";
    FileRowDeletion d;
    d.file = snap->files()[0];
    ASSERT_TRUE(d.rows.AddMany(rows.data(), rows.size()).ok());
    c.deletions.push_back(std::move(d));
    // No change_rows: the commit carries no cdc action (as an engine without CDF writes would).
    auto r = ApplyRowChanges(t.store(), snap, std::move(c), t.Options());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  EXPECT_EQ(Feed(t, 1, 1), Sorted({"1|v1|delete|1", "3|v3|delete|1"}));
  EXPECT_EQ(Feed(t, 2, 2), std::vector<std::string>{"0|v0|delete|2"});
}

TEST(ChangeDataFeed, DataChangeFalseCommitsContributeNothing) {
  DmlTable t;
  t.Create(Ids(0, 2), false, false, kCdf);
  auto snap = t.Latest();
  delta::Transaction txn(t.store(), snap, t.TxnOptions());
  txn.SetOperation("OPTIMIZE", {});
  delta::RemoveFile rm;
  rm.path = snap->files()[0].path;
  rm.data_change = false;
  rm.deletion_timestamp = testing::kT0;
  txn.Remove(rm);
  delta::AddFile add = snap->files()[0];
  add.data_change = false;
  txn.Add(add);
  auto cr = txn.Commit();
  ASSERT_TRUE(cr.ok()) << cr.status().ToString();
  EXPECT_TRUE(Feed(t, 1).empty());
}

TEST(ChangeDataFeed, RangeErrors) {
  DmlTable t;
  t.Create(Ids(0, 2), false, false, kCdf);
  t.Append(Ids(2, 3));
  EXPECT_EQ(delta::ReadChangeFeed(t.store(), 1, 0).status().error_class(),
            delta::kErrorInvalidCdcRange);
  auto after = delta::ReadChangeFeed(t.store(), 2, std::nullopt);
  EXPECT_FALSE(after.ok());
  EXPECT_NE(after.status().message().find(
                "Start version cannot be greater than the latest version of the table(1)"),
            std::string::npos)
      << after.status().ToString();
  EXPECT_EQ(Feed(t, 1, 7), std::vector<std::string>{"2|v2|insert|1"});

  DmlTable plain;
  plain.Create(Ids(0, 2), false, false);
  EXPECT_EQ(delta::ReadChangeFeed(plain.store(), 0, std::nullopt).status().error_class(),
            delta::kErrorMissingChangeData);
}

// File layout of DELETE, UPDATE (with a partition move) and MERGE-style changes, partitioned and
// not, with and without deletion vectors: cdc actions in the same commit, files that exist under
// _change_data/ with the partition directories, readable as plain Parquet with _change_type.
TEST(ChangeDataFeedLayout, DeleteUpdateAndMergeChangeFiles) {
  for (bool partitioned : {false, true}) {
    for (bool dvs : {false, true}) {
      SCOPED_TRACE(std::string(partitioned ? "partitioned" : "flat") + (dvs ? " dvs" : " cow"));
      std::optional<std::string> pa = partitioned ? std::optional<std::string>("a") : std::nullopt;
      DmlTable u;
      std::vector<Row> rows;
      for (int64_t i = 0; i < 4; ++i) rows.push_back({i, "v" + std::to_string(i), pa});
      u.Create(rows, partitioned, dvs, kCdf);
      const std::string P = partitioned ? "a" : "-";

      DeleteSpec del;
      del.matcher = MatchInt(0, [](int64_t v) { return v == 1; });
      del.columns = {"id"};
      del.options = u.Options();
      auto r1 = DeleteRows(u.store(), u.Latest(), del);
      ASSERT_TRUE(r1.ok()) << r1.status().ToString();
      EXPECT_EQ(r1->used_deletion_vectors, dvs);
      EXPECT_EQ(CdcFilesAt(u, 1), std::vector<std::string>{P + "|1|v1|delete"});

      UpdateSpec up;
      up.matcher = MatchInt(0, [](int64_t v) { return v == 2; });
      up.columns = {"id"};
      up.updater = PrefixV(partitioned ? std::optional<std::string>("b") : std::nullopt);
      up.options = u.Options();
      auto r2 = UpdateRows(u.store(), u.Latest(), up);
      ASSERT_TRUE(r2.ok()) << r2.status().ToString();
      if (partitioned) {
        // The pre-image stays in the old partition's directory, the post-image goes to the new one.
        EXPECT_EQ(CdcFilesAt(u, 2), Sorted({"a|2|v2|update_preimage", "b|2|uv2|update_postimage"}));
      } else {
        EXPECT_EQ(CdcFilesAt(u, 2),
                  std::vector<std::string>{"-|2|uv2|update_postimage;2|v2|update_preimage"});
      }

      // MERGE-style: delete row 0, update row 3, insert row 9 — all four change types.
      auto snap = u.Latest();
      RowChanges c;
      c.operation = "MERGE";
      c.metric_names = MetricNames::kMerge;
      std::vector<uint32_t> sel0, sel3;
      DataChunk target;
      {
        auto scan = delta::TableScan::Make(snap, delta::TableScanOptions{});
        ASSERT_TRUE(scan.ok());
        std::vector<DataChunk> all;
        DataChunk chunk;
        while (true) {
          auto more = (*scan)->Next(&chunk);
          ASSERT_TRUE(more.ok());
          if (!*more) break;
          all.push_back(chunk);
        }
        ASSERT_FALSE(all.empty());
        target = all[0];
        for (size_t k = 1; k < all.size(); ++k) {
          for (size_t col = 0; col < target.columns.size(); ++col) {
            target.columns[col].AppendRange(all[k].columns[col], 0, all[k].size());
          }
        }
      }
      for (uint32_t i = 0; i < target.size(); ++i) {
        int64_t id = target.columns[0].GetValue(i).integer();
        if (id == 0) sel0.push_back(i);
        if (id == 3) sel3.push_back(i);
      }
      ASSERT_EQ(sel0.size(), 1u);
      ASSERT_EQ(sel3.size(), 1u);
      const size_t ncols = target.columns.size();
      ChangeRows pre{"update_preimage", {Gather(target, ncols, sel3)}};
      auto post_rows = PrefixV()(Gather(target, ncols, sel3));
      ASSERT_TRUE(post_rows.ok());
      ChangeRows post{"update_postimage", {*post_rows}};
      ChangeRows gone{"delete", {Gather(target, ncols, sel0)}};
      std::vector<Row> ins_row{{9, "v9", pa}};
      DataChunk ins_chunk = testing::MakeRows(ins_row, partitioned);
      ChangeRows ins{"insert", {ins_chunk}};
      // Rows 0 and 3 live in the same (only) file of partition a / the table: physical rows 0, 3.
      for (const delta::AddFile& f : snap->files()) {
        FileRowDeletion d;
        d.file = f;
        auto scan = delta::TableScan::Make(snap, [] {
          delta::TableScanOptions o;
          o.with_row_index = true;
          return o;
        }());
        ASSERT_TRUE(scan.ok());
        Status s = (*scan)->ScanFile(f, [&](DataChunk& chunk) -> Status {
          const int64_t* idx = chunk.columns.back().data<int64_t>();
          for (size_t i = 0; i < chunk.size(); ++i) {
            int64_t id = chunk.columns[0].GetValue(i).integer();
            if (id == 0 || id == 3) SILT_RETURN_NOT_OK(d.rows.Add(static_cast<uint64_t>(idx[i])));
          }
          return Status::OK();
        });
        ASSERT_TRUE(s.ok()) << s.ToString();
        if (!d.rows.IsEmpty()) c.deletions.push_back(std::move(d));
      }
      c.new_rows = {*post_rows, ins_chunk};
      c.change_rows = {pre, post, gone, ins};
      auto r3 = ApplyRowChanges(u.store(), snap, std::move(c), u.Options());
      ASSERT_TRUE(r3.ok()) << r3.status().ToString();
      EXPECT_EQ(CdcFilesAt(u, 3),
                std::vector<std::string>{
                    P + "|0|v0|delete;3|uv3|update_postimage;3|v3|update_preimage;9|v9|insert"});

      // The reader sees exactly the change files of each commit.
      EXPECT_EQ(Feed(u, 1),
                Sorted({"1|v1|delete|1", "2|v2|update_preimage|2", "2|uv2|update_postimage|2",
                        "0|v0|delete|3", "3|v3|update_preimage|3", "3|uv3|update_postimage|3",
                        "9|v9|insert|3"}));
    }
  }
}

// OPTIMIZE and REORG … PURGE on a CDF table: no change files, nothing in the feed.
TEST(ChangeDataFeedLayout, OptimizeAndPurgeWriteNoChangeFiles) {
  DmlTable t;
  t.Create(Ids(0, 3), false, true, kCdf);
  t.Append(Ids(3, 6));
  DeleteSpec del;
  del.matcher = MatchInt(0, [](int64_t v) { return v == 4; });
  del.columns = {"id"};
  del.options = t.Options();
  ASSERT_TRUE(DeleteRows(t.store(), t.Latest(), del).ok());  // version 2, with a DV
  OptimizeOptions purge;
  purge.mode = OptimizeOptions::Mode::kReorgPurge;
  purge.clock = t.clock();
  auto r1 = Optimize(t.store(), purge);
  ASSERT_TRUE(r1.ok()) << r1.status().ToString();
  ASSERT_EQ(r1->committed_version, 3);
  OptimizeOptions compact;
  compact.clock = t.clock();
  auto r2 = Optimize(t.store(), compact);
  ASSERT_TRUE(r2.ok()) << r2.status().ToString();
  ASSERT_EQ(r2->committed_version, 4);
  for (int64_t v : {3, 4}) {
    EXPECT_EQ(CountCdcActions(t, v), 0) << v;
    for (const delta::Action& a : ActionsAt(*t.store(), v)) {
      if (const auto* add = a.get_if<delta::AddFile>()) {
        EXPECT_FALSE(add->data_change);
      }
      if (const auto* rm = a.get_if<delta::RemoveFile>()) {
        EXPECT_FALSE(rm->data_change);
      }
    }
  }
  EXPECT_TRUE(Feed(t, 3).empty());
  EXPECT_EQ(Feed(t, 2), std::vector<std::string>{"4|v4|delete|2"});
}

}  // namespace
}  // namespace silt::ops
