// Write path of the kernel: create/append round trips, partitions with special characters,
// stats, concurrent writers, conflicts and fault injection at every store operation.
#include "delta/table_writer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "delta/checkpoint_writer.h"
#include "delta/history.h"
#include "delta/scan.h"
#include "delta/snapshot.h"
#include "delta/stats_json.h"
#include "delta/streaming_write.h"
#include "delta/table_features.h"
#include "delta/transaction.h"
#include "io/local_object_store.h"
#include "io/memory_object_store.h"
#include "io/object_store.h"
#include "parquet/reader.h"
#include "support/fault_injecting_object_store.h"
#include "support/wall_clock.h"
#include "vector/generate.h"

namespace silt::delta {
namespace {

std::vector<std::string> ScanRows(std::shared_ptr<ObjectStore> store,
                                  std::optional<int64_t> version = std::nullopt) {
  auto snap = Snapshot::Load(store, version);
  EXPECT_TRUE(snap.ok()) << snap.status().ToString();
  if (!snap.ok()) return {};
  auto scan = TableScan::Make(*snap).value();
  std::vector<std::string> rows;
  DataChunk c;
  while (true) {
    auto more = scan->Next(&c);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    for (size_t r = 0; r < c.size(); ++r) {
      std::string s;
      for (const auto& col : c.columns) s += col.GetValue(r).ToJson() + "|";
      rows.push_back(s);
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::vector<std::string> ChunkRows(const DataChunk& c) {
  std::vector<std::string> rows;
  for (size_t r = 0; r < c.size(); ++r) {
    std::string s;
    for (const auto& col : c.columns) s += col.GetValue(r).ToJson() + "|";
    rows.push_back(s);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

TEST(TableWriterTest, CreateAppendAndScanEveryType) {
  auto store = std::make_shared<InMemoryObjectStore>(WallClock());
  Schema schema = NamedTestSchema("all").value();
  DataChunk first = GenerateData(schema, 700, {});
  auto created = CreateTable(store, schema, {first}, WallCreate());
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->version, 0);
  DataChunk second = GenerateData(schema, 300, {9});
  auto appended = AppendRows(store, {second}, WallWrite(), WallTxn());
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  EXPECT_EQ(appended->version, 1);
  auto expected = ChunkRows(first);
  auto more = ChunkRows(second);
  expected.insert(expected.end(), more.begin(), more.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(ScanRows(store), expected);
  EXPECT_EQ(ScanRows(store, 0), ChunkRows(first));  // time travel
  auto snap = Snapshot::Load(store).value();
  EXPECT_EQ(snap->protocol().min_reader_version, 3);  // timestamp_ntz column → table features
  ASSERT_EQ(snap->files().size(), 2u);
  for (const auto& f : snap->files()) {
    ASSERT_TRUE(f.stats);
    auto phys = ToPhysicalSchema(snap->schema(), ColumnMappingMode::kNone).value();
    auto st = ParseStats(*f.stats, phys);
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    EXPECT_TRUE(st->num_records == 700 || st->num_records == 300);
    const ColumnStats* id = st->Find("id");
    ASSERT_TRUE(id);
    ASSERT_TRUE(id->min.has_value());
    EXPECT_EQ(id->min->integer(), 0);
  }
  // commitInfo as Spark writes it.
  std::string log = store->Get(CommitKey(1)).value();
  EXPECT_NE(log.find("\"operation\":\"WRITE\""), std::string::npos) << log.substr(0, 400);
  EXPECT_NE(log.find("\"mode\":\"Append\""), std::string::npos);
  EXPECT_NE(log.find("\"isBlindAppend\":true"), std::string::npos);
  EXPECT_NE(log.find("\"numOutputRows\":\"300\""), std::string::npos);
  EXPECT_EQ(CreateTable(store, schema, {}, WallCreate()).status().error_class(),
            "DELTA_TABLE_ALREADY_EXISTS");
}

TEST(TableWriterTest, PartitionValuesWithSpecialCharactersRoundTrip) {
  auto store = std::make_shared<InMemoryObjectStore>(WallClock());
  Schema schema = {{"p", DataType::String(), true, ""},
                   {"d", DataType::Date(), true, ""},
                   {"v", DataType::Int64(), true, ""}};
  DataChunk c = DataChunk::FromSchema(schema);
  const char* values[] = {"a:b", "x y", "100%", "é/ü", "a=b", nullptr};
  int64_t i = 0;
  for (const char* v : values) {
    if (v) {
      c.columns[0].AppendString(v);
    } else {
      c.columns[0].AppendNull();
    }
    c.columns[1].Append<int32_t>(19000 + static_cast<int32_t>(i));
    c.columns[2].Append<int64_t>(i++);
  }
  CreateTableOptions opts = WallCreate();
  opts.partition_columns = {"p", "d"};
  ASSERT_TRUE(CreateTable(store, schema, {c}, opts).ok());
  EXPECT_EQ(ScanRows(store), ChunkRows(c));
  auto snap = Snapshot::Load(store).value();
  EXPECT_EQ(snap->files().size(), 6u);
  bool saw_escaped = false;
  for (const auto& f : snap->files())
    if (f.path.rfind("p=a%253Ab/", 0) == 0) saw_escaped = true;  // dir p=a%3Ab, URI-encoded again
  EXPECT_TRUE(saw_escaped);
  std::vector<std::string> keys;
  ASSERT_TRUE(store
                  ->ListRecursive("",
                                  [&](const ObjectMeta& m) {
                                    if (!m.is_dir) keys.push_back(m.key);
                                    return Status::OK();
                                  })
                  .ok());
  EXPECT_NE(std::find_if(keys.begin(), keys.end(),
                         [](const std::string& k) {
                           return k.rfind("p=__HIVE_DEFAULT_PARTITION__/", 0) == 0;
                         }),
            keys.end());
}

// Files are cut by rows per partition across the input's chunks, not one per chunk: 3 chunks of
// 1000 rows over partitions {0, 1} with at most 1200 rows per file → per partition 1500 rows in
// files of 1200 and 300.
TEST(TableWriterTest, FilesSpanChunksUpToMaxRowsPerFile) {
  auto store = std::make_shared<InMemoryObjectStore>(WallClock());
  Schema schema = {{"p", DataType::Int32(), true, ""}, {"v", DataType::Int64(), true, ""}};
  std::vector<DataChunk> chunks;
  for (int c = 0; c < 3; ++c) {
    DataChunk chunk = DataChunk::FromSchema(schema);
    for (int64_t r = 0; r < 1000; ++r) {
      chunk.columns[0].Append<int32_t>(static_cast<int32_t>(r % 2));
      chunk.columns[1].Append<int64_t>(c * 1000 + r);
    }
    chunks.push_back(std::move(chunk));
  }
  CreateTableOptions opts = WallCreate();
  opts.partition_columns = {"p"};
  opts.write.max_rows_per_file = 1200;
  ASSERT_TRUE(CreateTable(store, schema, chunks, opts).ok());
  auto snap = Snapshot::Load(store).value();
  std::vector<std::pair<std::string, int64_t>> files;  // (partition value, numRecords)
  for (const auto& f : snap->files()) {
    auto stats = ParseStats(*f.stats, {{"v", DataType::Int64(), true, ""}}).value();
    files.emplace_back(**f.partition_values.Find("p"), *stats.num_records);
  }
  std::sort(files.begin(), files.end());
  std::vector<std::pair<std::string, int64_t>> want = {
      {"0", 300}, {"0", 1200}, {"1", 300}, {"1", 1200}};
  EXPECT_EQ(files, want);
  EXPECT_EQ(ScanRows(store).size(), 3000u);
}

// A written data file as (partition values, stats, row counts of its row groups, its rows in
// order).
struct WrittenFile {
  std::string partition, stats;
  std::vector<int64_t> row_groups;
  std::vector<std::string> rows;
  bool operator==(const WrittenFile&) const = default;
};

std::vector<WrittenFile> ReadWritten(ObjectStore& store, const std::vector<AddFile>& adds) {
  std::vector<WrittenFile> out;
  for (const AddFile& a : adds) {
    WrittenFile w;
    for (const auto& [k, v] : a.partition_values)
      w.partition += k + "=" + v.value_or("<null>") + ";";
    w.stats = a.stats.value_or("");
    auto bytes = store.Get(a.path);  // plain names: the path is the key
    EXPECT_TRUE(bytes.ok()) << a.path;
    if (!bytes.ok()) continue;
    EXPECT_EQ(static_cast<int64_t>(bytes->size()), a.size);
    auto pf = parquet::ParquetFile::Open(std::make_shared<BufferFile>(*bytes)).value();
    for (int rg = 0; rg < pf->num_row_groups(); ++rg) {
      w.row_groups.push_back(pf->metadata().row_groups[static_cast<size_t>(rg)].num_rows);
      DataChunk c;
      EXPECT_TRUE(pf->ReadRowGroup(rg, {}, &c).ok());
      for (size_t r = 0; r < c.size(); ++r) {
        std::string row;
        for (const auto& col : c.columns) row += col.GetValue(r).ToJson() + "|";
        w.rows.push_back(row);
      }
    }
    out.push_back(std::move(w));
  }
  return out;
}

TEST(TableWriterTest, StreamingWriterWritesWhatWriteDataFilesWrites) {
  // Chunks of uneven sizes (one empty), row groups and files that span chunks, nulls and strings:
  // handing the chunks over one at a time gives the same files (rows in order, row group
  // boundaries, stats) as writing them all at once; with partitions, each partition's files too.
  for (bool partitioned : {false, true}) {
    auto store = std::make_shared<InMemoryObjectStore>(WallClock());
    Schema schema = {{"id", DataType::Int64(), true, ""},
                     {"s", DataType::String(), true, ""},
                     {"p", DataType::Int32(), true, ""}};
    CreateTableOptions opts = WallCreate();
    if (partitioned) opts.partition_columns = {"p"};
    ASSERT_TRUE(CreateTable(store, schema, {}, opts).ok());
    auto snap = Snapshot::Load(store).value();
    std::vector<DataChunk> chunks;
    int64_t id = 0;
    for (size_t n : {700, 0, 1300, 450, 2100}) {
      DataChunk c = DataChunk::FromSchema(schema);
      for (size_t r = 0; r < n; ++r, ++id) {
        c.columns[0].Append<int64_t>(id * 7 % 1000);
        if (id % 11 == 0) {
          c.columns[1].AppendNull();
        } else {
          c.columns[1].AppendString("v" + std::to_string(id % 37));
        }
        c.columns[2].Append<int32_t>(static_cast<int32_t>(id / 900 % 3));
      }
      chunks.push_back(std::move(c));
    }
    DataWriteOptions w = WallWrite();
    w.max_rows_per_file = 1100;
    w.parquet.row_group_max_rows = 400;
    w.parquet.page_rows = 150;
    auto all = WriteDataFiles(*store, snap->metadata(), schema, chunks, w);
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    auto writer = DataFileWriter::Make(*store, snap->metadata(), schema, w);
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    for (const DataChunk& c : chunks) ASSERT_TRUE((*writer)->Write(c).ok());
    auto streamed = (*writer)->Finish();
    ASSERT_TRUE(streamed.ok()) << streamed.status().ToString();
    std::vector<WrittenFile> want = ReadWritten(*store, *all), got = ReadWritten(*store, *streamed);
    ASSERT_EQ(want.size(),
              5u);  // unpartitioned: 4550 rows by 1100; partitions of 1800, 1800 and 950 rows
    // Partitions' files are started in the order their rows come; within one, in row order.
    auto by_partition = [](std::vector<WrittenFile> v) {
      std::stable_sort(v.begin(), v.end(), [](const WrittenFile& a, const WrittenFile& b) {
        return a.partition < b.partition;
      });
      return v;
    };
    EXPECT_TRUE(by_partition(want) == by_partition(got)) << "partitioned " << partitioned;
    if (!partitioned) {
      EXPECT_EQ(want[0].row_groups, (std::vector<int64_t>{400, 400, 300}));
    }
  }
}

TEST(TableWriterTest, StreamingWriterDeletesItsFilesWhenAChunkViolatesAConstraint) {
  auto store = std::make_shared<InMemoryObjectStore>(WallClock());
  Schema schema = {{"id", DataType::Int64(), false, ""}};
  ASSERT_TRUE(CreateTable(store, schema, {}, WallCreate()).ok());
  auto snap = Snapshot::Load(store).value();
  DataWriteOptions w = WallWrite();
  w.max_rows_per_file = 100;
  auto writer = DataFileWriter::Make(*store, snap->metadata(), schema, w).value();
  DataChunk good = DataChunk::FromSchema(schema), bad = DataChunk::FromSchema(schema);
  for (int64_t i = 0; i < 250; ++i) good.columns[0].Append<int64_t>(i);
  bad.columns[0].Append<int64_t>(1);
  bad.columns[0].AppendNull();
  ASSERT_TRUE(writer->Write(good).ok());
  auto data_files = [&] {
    size_t n = 0;
    EXPECT_TRUE(store
                    ->ListRecursive("",
                                    [&](const ObjectMeta& m) {
                                      n += m.key.find(".parquet") != std::string::npos;
                                      return Status::OK();
                                    })
                    .ok());
    return n;
  };
  EXPECT_EQ(data_files(), 2u);  // two complete files (the third is open: not yet in the store)
  Status st = writer->Write(bad);
  EXPECT_EQ(st.error_class(), "DELTA_NOT_NULL_CONSTRAINT_VIOLATED") << st.ToString();
  EXPECT_EQ(data_files(), 0u);
  EXPECT_FALSE(writer->Finish().ok());
}

// CTAS's path: rows handed over by a source as they come. A source that fails after files were
// written (a query error halfway) leaves no data file and no table; one that succeeds creates
// version 0 with every row, its files cut at max_rows_per_file and Spark's CTAS metrics.
TEST(TableWriterTest, CreateTableFromASourceWritesAsRowsComeAndLeavesNothingOnFailure) {
  Schema schema = {{"id", DataType::Int64(), true, ""}};
  auto chunk_of = [&](int64_t from, int64_t n) {
    DataChunk c = DataChunk::FromSchema(schema);
    for (int64_t i = 0; i < n; ++i) c.columns[0].Append<int64_t>(from + i);
    return c;
  };
  auto files_in = [](ObjectStore& store) {
    size_t n = 0;
    EXPECT_TRUE(store
                    .ListRecursive("",
                                   [&](const ObjectMeta& m) {
                                     n += m.key.find(".parquet") != std::string::npos;
                                     n += m.key.find("_delta_log/") != std::string::npos;
                                     return Status::OK();
                                   })
                    .ok());
    return n;
  };
  CreateTableOptions opts = WallCreate();
  opts.write.max_rows_per_file = 1000;
  {
    auto store = std::make_shared<InMemoryObjectStore>(WallClock());
    int64_t written = 0;
    RowSource failing = [&](const std::function<Status(const DataChunk&)>& write) -> Status {
      for (int k = 0; k < 5; ++k) {
        SILT_RETURN_NOT_OK(write(chunk_of(k * 700, 700)));
        written += 700;
      }
      return Status::InvalidArgument("the query failed", "DIVIDE_BY_ZERO");
    };
    auto r = CreateTableFrom(store, schema, failing, opts);
    EXPECT_EQ(r.status().error_class(), "DIVIDE_BY_ZERO") << r.status().ToString();
    EXPECT_EQ(written, 3500);  // three files were complete when it failed
    EXPECT_EQ(files_in(*store), 0u);
  }
  auto store = std::make_shared<InMemoryObjectStore>(WallClock());
  RowSource rows = [&](const std::function<Status(const DataChunk&)>& write) -> Status {
    for (int k = 0; k < 5; ++k) SILT_RETURN_NOT_OK(write(chunk_of(k * 700, 700)));
    return Status::OK();
  };
  auto r = CreateTableFrom(store, schema, rows, opts);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 0);
  auto snap = Snapshot::Load(store).value();
  EXPECT_EQ(snap->files().size(), 4u);  // 3500 rows by 1000
  EXPECT_EQ(ScanRows(store).size(), 3500u);
  auto history = ReadHistory(*store, std::nullopt).value();
  ASSERT_EQ(history.size(), 1u);
  ASSERT_TRUE(history[0].commit_info.has_value());
  const CommitInfo& info = *history[0].commit_info;
  EXPECT_EQ(info.operation, "CREATE TABLE AS SELECT");
  ASSERT_TRUE(info.operation_metrics.has_value());
  EXPECT_EQ(*info.operation_metrics->Find("numOutputRows"), "3500");
  EXPECT_EQ(*info.operation_metrics->Find("numFiles"), "4");
}

TEST(TransactionTest, ConcurrentBlindAppendsAllLand) {
  std::string dir =
      std::filesystem::temp_directory_path() / ("silt-txn-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto store = std::make_shared<LocalObjectStore>(dir);
  Schema schema = {{"id", DataType::Int64(), false, ""}};
  ASSERT_TRUE(CreateTable(store, schema, {}, WallCreate()).ok());
  constexpr int kThreads = 6, kEach = 4;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < kEach; ++k) {
        DataChunk c = DataChunk::FromSchema(schema);
        c.columns[0].Append<int64_t>(t * 100 + k);
        if (!AppendRows(store, {c}, WallWrite(), WallTxn()).ok()) ++failures;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  auto snap = Snapshot::Load(store).value();
  EXPECT_EQ(snap->version(), kThreads * kEach);
  EXPECT_EQ(snap->files().size(), static_cast<size_t>(kThreads * kEach));
  EXPECT_EQ(ScanRows(store).size(), static_cast<size_t>(kThreads * kEach));
  std::filesystem::remove_all(dir);
}

TEST(TransactionTest, ConflictsUseDeltasExceptionClasses) {
  auto store = std::make_shared<InMemoryObjectStore>(WallClock());
  Schema schema = {{"id", DataType::Int64(), false, ""}};
  DataChunk c = DataChunk::FromSchema(schema);
  c.columns[0].Append<int64_t>(1);
  ASSERT_TRUE(CreateTable(store, schema, {c}, WallCreate()).ok());
  auto snap = Snapshot::Load(store).value();
  const AddFile& file = snap->files()[0];
  auto remove_of = [&](const AddFile& f) {
    RemoveFile r;
    r.path = f.path;
    r.deletion_timestamp = 1;
    r.data_change = true;
    return r;
  };
  // Two deletes of the same file: the second loses with ConcurrentDeleteDelete.
  Transaction a(store, snap, WallTxn()), b(store, snap, WallTxn());
  a.SetOperation("DELETE");
  b.SetOperation("DELETE");
  a.Remove(remove_of(file));
  b.Remove(remove_of(file));
  ASSERT_TRUE(a.Commit().ok());
  auto rb = b.Commit();
  ASSERT_FALSE(rb.ok());
  EXPECT_EQ(rb.status().error_class(), "DELTA_CONCURRENT_DELETE_DELETE");
  EXPECT_EQ(rb.status().code(), StatusCode::kCommitConflict);
  // A reader of the whole table loses against a concurrent append.
  auto snap2 = Snapshot::Load(store).value();
  Transaction reader(store, snap2, WallTxn());
  reader.SetReadScope(ReadScope::kWholeTable);
  reader.SetOperation("UPDATE");
  ASSERT_TRUE(AppendRows(store, {c}, WallWrite(), WallTxn()).ok());
  auto rr = reader.Commit();
  EXPECT_EQ(rr.status().error_class(), "DELTA_CONCURRENT_APPEND");
  // A blind append does not conflict with a concurrent append: it retries at the next version.
  auto snap3 = Snapshot::Load(store).value();
  Transaction blind(store, snap3, WallTxn());
  AddFile extra = snap3->files()[0];
  extra.path = "extra.parquet";
  blind.Add(extra);
  ASSERT_TRUE(AppendRows(store, {c}, WallWrite(), WallTxn()).ok());
  auto rbl = blind.Commit();
  ASSERT_TRUE(rbl.ok()) << rbl.status().ToString();
  EXPECT_EQ(rbl->version, snap3->version() + 2);
  EXPECT_EQ(rbl->attempts, 2);
  // A metadata change wins over everything.
  auto snap4 = Snapshot::Load(store).value();
  Transaction alter(store, snap4, WallTxn()), other(store, snap4, WallTxn());
  Metadata md = snap4->metadata();
  md.configuration.Set("delta.appendOnly", "false");
  alter.UpdateMetadata(md);
  other.Add(extra);
  ASSERT_TRUE(alter.Commit().ok());
  EXPECT_EQ(other.Commit().status().error_class(), "DELTA_METADATA_CHANGED");
}

TEST(TransactionTest, FaultAtEveryStoreOperationLeavesTheTableReadable) {
  Schema schema = {{"p", DataType::Int32(), true, ""}, {"v", DataType::String(), true, ""}};
  DataChunk base = GenerateData(schema, 50, {});
  DataChunk more = GenerateData(schema, 20, {3});
  CreateTableOptions opts = WallCreate();
  opts.partition_columns = {"p"};
  // Count the operations of one append.
  int64_t ops;
  {
    auto mem = std::make_shared<InMemoryObjectStore>(WallClock());
    ASSERT_TRUE(CreateTable(mem, schema, {base}, opts).ok());
    auto faulty = std::make_shared<FaultInjectingObjectStore>(mem);
    ASSERT_TRUE(AppendRows(faulty, {more}, WallWrite(), WallTxn()).ok());
    ops = faulty->total_ops();
  }
  ASSERT_GT(ops, 3);
  auto before = [&] {
    auto mem = std::make_shared<InMemoryObjectStore>(WallClock());
    EXPECT_TRUE(CreateTable(mem, schema, {base}, opts).ok());
    return mem;
  };
  auto base_rows = ChunkRows(base);
  for (int64_t n = 0; n < ops; ++n) {
    for (auto action : {FaultRule::Action::kFail, FaultRule::Action::kCrashMidWrite}) {
      auto mem = before();
      auto faulty = std::make_shared<FaultInjectingObjectStore>(mem);
      FaultRule rule;
      rule.action = action;
      rule.after = n;
      rule.max_faults = 1;
      faulty->AddRule(rule);
      auto r = AppendRows(faulty, {more}, WallWrite(), WallTxn());
      auto snap = Snapshot::Load(mem);
      ASSERT_TRUE(snap.ok()) << "fault after " << n << ": " << snap.status().ToString();
      if (r.ok()) {
        EXPECT_EQ((*snap)->version(), 1);
      } else {
        EXPECT_EQ((*snap)->version(), 0) << "fault after " << n;
        EXPECT_EQ(ScanRows(mem), base_rows) << "fault after " << n;
      }
    }
  }
}

}  // namespace
}  // namespace silt::delta

namespace silt::delta {
namespace {

TEST(TableFeaturesTest, WritesRefuseWhatSiltCannotHonour) {
  auto store = std::make_shared<InMemoryObjectStore>(WallClock());
  Schema schema = {{"id", DataType::Int64(), false, ""}};
  DataChunk c = DataChunk::FromSchema(schema);
  c.columns[0].Append<int64_t>(1);
  CreateTableOptions opts = WallCreate();
  opts.properties.Set("delta.appendOnly", "true");
  ASSERT_TRUE(CreateTable(store, schema, {c}, opts).ok());
  auto snap = Snapshot::Load(store).value();
  Transaction del(store, snap, WallTxn());
  RemoveFile r;
  r.path = snap->files()[0].path;
  r.data_change = true;
  del.Remove(r);
  EXPECT_EQ(del.Commit().status().error_class(), "DELTA_CANNOT_MODIFY_APPEND_ONLY");
  EXPECT_TRUE(AppendRows(store, {c}, WallWrite(), WallTxn()).ok());  // appends are fine
  // A writer feature silt does not implement.
  Transaction up(store, Snapshot::Load(store).value(), WallTxn());
  Protocol p;
  p.min_reader_version = 1;
  p.min_writer_version = 7;
  p.writer_features = std::vector<std::string>{"appendOnly", "icebergCompatV3"};
  up.UpdateProtocol(p);
  auto res = up.Commit();
  EXPECT_EQ(res.status().error_class(), "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE");
  EXPECT_NE(res.status().message().find("icebergCompatV3"), std::string::npos);
  // Nothing was committed by the refused transactions.
  EXPECT_EQ(Snapshot::Load(store).value()->version(), 1);
}

TEST(TableFeaturesTest, ReadsRefuseUnknownReaderFeatures) {
  Protocol p;
  p.min_reader_version = 3;
  p.min_writer_version = 7;
  p.reader_features = std::vector<std::string>{"deletionVectors", "variantType"};
  Status s = CheckReadSupported(p, "t");
  EXPECT_EQ(s.error_class(), "DELTA_UNSUPPORTED_FEATURES_FOR_READ");
  EXPECT_NE(s.message().find("variantType"), std::string::npos);
  p.reader_features =
      std::vector<std::string>{"deletionVectors", "columnMapping", "timestampNtz", "v2Checkpoint"};
  EXPECT_TRUE(CheckReadSupported(p, "t").ok());
  p.min_reader_version = 4;
  EXPECT_EQ(CheckReadSupported(p, "t").error_class(), "DELTA_INVALID_PROTOCOL_VERSION");
}

}  // namespace
}  // namespace silt::delta

namespace silt::delta {
namespace {

// A one-column table with in-commit timestamps, created at the clock's 1'700'000'000'000 ms.
void CreateIctTable(const std::shared_ptr<ObjectStore>& store,
                    const std::shared_ptr<ManualClock>& clock, const Schema& schema) {
  CreateTableOptions opts = WallCreate();
  opts.properties.Set("delta.enableInCommitTimestamps", "true");
  opts.txn.clock = clock;
  ASSERT_TRUE(CreateTable(store, schema, {}, opts).ok());
}

TEST(TransactionTest, InCommitTimestampsIncreaseEvenWhenTheClockGoesBack) {
  auto store = std::make_shared<InMemoryObjectStore>(WallClock());
  auto clock = std::make_shared<ManualClock>(1'700'000'000'000);
  Schema schema = {{"id", DataType::Int64(), false, ""}};
  CreateIctTable(store, clock, schema);
  auto snap = Snapshot::Load(store).value();
  EXPECT_EQ(snap->timestamp_ms(), 1'700'000'000'000);
  ASSERT_NE(std::find(snap->protocol().writer_features->begin(),
                      snap->protocol().writer_features->end(), "inCommitTimestamp"),
            snap->protocol().writer_features->end());
  clock->SetMillis(1'600'000'000'000);  // the clock jumps back
  TransactionOptions to = WallTxn();
  to.clock = clock;
  DataChunk c = DataChunk::FromSchema(schema);
  c.columns[0].Append<int64_t>(1);
  ASSERT_TRUE(AppendRows(store, {c}, WallWrite(), to).ok());
  EXPECT_EQ(Snapshot::Load(store).value()->timestamp_ms(), 1'700'000'000'001);
}

// A commitInfo-only commit followed by another on the same read snapshot (VACUUM START / END):
// the second reads on from the first, without a reload and without a lost first attempt.
TEST(TransactionTest, ReadAfterOwnCommitGoesOnFromIt) {
  auto store = std::make_shared<InMemoryObjectStore>(WallClock());
  auto clock = std::make_shared<ManualClock>(1'700'000'000'000);
  CreateIctTable(store, clock, {{"id", DataType::Int64(), false, ""}});
  auto snap = Snapshot::Load(store).value();
  TransactionOptions to = WallTxn();
  to.clock = clock;  // frozen: ICT must still increase
  Transaction first(store, snap, to);
  first.SetOperation("VACUUM START");
  auto a = first.Commit();
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->version, 1);
  EXPECT_EQ(a->timestamp_ms, 1'700'000'000'001);
  Transaction second(store, snap, to);
  second.ReadAfter(*a);
  EXPECT_EQ(second.read_version(), 1);
  second.SetOperation("VACUUM END");
  auto b = second.Commit();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->version, 2);
  EXPECT_EQ(b->attempts, 1);
  EXPECT_EQ(b->timestamp_ms, 1'700'000'000'002);
  auto history = ReadHistory(*store, 1);
  ASSERT_TRUE(history.ok());
  EXPECT_EQ((*history)[0].commit_info->read_version, 1);
  // Not the next version (another commit came between): ignored, the commit loop catches up.
  Transaction third(store, snap, to);
  third.ReadAfter(*b);
  EXPECT_EQ(third.read_version(), 0);
  third.SetOperation("VACUUM END");
  auto c = third.Commit();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->version, 3);
  EXPECT_EQ(c->timestamp_ms, 1'700'000'000'003);
}

}  // namespace
}  // namespace silt::delta

namespace silt::delta {
namespace {

TEST(TransactionTest, CheckpointsEveryIntervalAfterCommit) {
  auto store = std::make_shared<InMemoryObjectStore>(WallClock());
  Schema schema = {{"id", DataType::Int64(), false, ""}};
  CreateTableOptions opts = WallCreate();
  opts.properties.Set("delta.checkpointInterval", "3");
  ASSERT_TRUE(CreateTable(store, schema, {}, opts).ok());
  DataChunk c = DataChunk::FromSchema(schema);
  c.columns[0].Append<int64_t>(1);
  for (int v = 1; v <= 7; ++v) {
    auto r = AppendRows(store, {c}, WallWrite(), WallTxn());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->checkpointed, v % 3 == 0) << v;
  }
  auto snap = Snapshot::Load(store).value();
  EXPECT_EQ(snap->segment().checkpoint_version, 6);
  EXPECT_EQ(snap->files().size(), 7u);
  EXPECT_EQ(ScanRows(store).size(), 7u);
}

// The engine has no clock default: a write, commit or checkpoint without one fails with
// INTERNAL_ERROR instead of silently reading wall time, and writes nothing.
TEST(TableWriterTest, MissingClockFailsInsteadOfReadingWallTime) {
  auto clock = std::make_shared<ManualClock>(1'700'000'000'000);
  auto store = std::make_shared<InMemoryObjectStore>(clock);
  Schema schema = {{"id", DataType::Int64(), true, ""}};
  DataChunk rows = GenerateData(schema, 10, {});

  CreateTableOptions no_txn_clock;
  no_txn_clock.write.clock = clock;
  auto created = CreateTable(store, schema, {rows}, no_txn_clock);
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().error_class(), "INTERNAL_ERROR");
  EXPECT_NE(created.status().message().find("TransactionOptions.clock"), std::string::npos);
  EXPECT_TRUE(store->ListFrom(kLogDir).value().empty());

  CreateTableOptions with_clock;
  with_clock.write.clock = clock;
  with_clock.txn.clock = clock;
  ASSERT_TRUE(CreateTable(store, schema, {rows}, with_clock).ok());

  TransactionOptions txn;
  txn.clock = clock;
  auto no_write_clock = AppendRows(store, {rows}, DataWriteOptions(), txn);
  ASSERT_FALSE(no_write_clock.ok());
  EXPECT_EQ(no_write_clock.status().error_class(), "INTERNAL_ERROR");
  EXPECT_NE(no_write_clock.status().message().find("DataWriteOptions.clock"), std::string::npos);

  DataWriteOptions write;
  write.clock = clock;
  auto no_commit_clock = AppendRows(store, {rows}, write, TransactionOptions());
  ASSERT_FALSE(no_commit_clock.ok());
  EXPECT_EQ(no_commit_clock.status().error_class(), "INTERNAL_ERROR");

  auto snap = Snapshot::Load(store);
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ((*snap)->version(), 0);
  Status checkpoint = WriteCheckpoint(*store, **snap, CheckpointOptions());
  EXPECT_EQ(checkpoint.error_class(), "INTERNAL_ERROR");
  CheckpointOptions with_checkpoint_clock;
  with_checkpoint_clock.clock = clock.get();
  EXPECT_TRUE(WriteCheckpoint(*store, **snap, with_checkpoint_clock).ok());

  // With a clock everything works, and the commit time is the clock's.
  auto appended = AppendRows(store, {rows}, write, txn);
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  EXPECT_EQ(appended->timestamp_ms, clock->NowMillis());
}

}  // namespace
}  // namespace silt::delta
