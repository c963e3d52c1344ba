#include "exec/spill.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include "common/error_classes.h"
#include "common/memory.h"
#include "exec/sort.h"
#include "unit/exec/exec_test_util.h"

namespace silt::exec {
namespace {

using testing::Col;
using testing::Fields;
using testing::I64;
using testing::MakeSource;
using testing::NullI64;
using testing::Rows;
using testing::Str;
using RowList = std::vector<std::vector<Value>>;

std::filesystem::path TestRoot(const std::string& name) {
  std::filesystem::path p = std::filesystem::temp_directory_path() /
                            ("silt-spill-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  return p;
}

TEST(SpillFileTest, RoundTripsEveryLayoutWithNulls) {
  TypePtr list = DataType::List(DataType::Int32());
  TypePtr st = DataType::Struct(
      {{"x", DataType::Int64(), true, "{}"}, {"s", DataType::String(), true, "{}"}});
  TypePtr map = DataType::Map(DataType::String(), DataType::Double());
  Schema schema = Fields({{"n", DataType::Null()},
                          {"b", DataType::Boolean()},
                          {"i", DataType::Int64()},
                          {"s", DataType::String()},
                          {"bin", DataType::Binary()},
                          {"d", DataType::Decimal(30, 2)},
                          {"l", list},
                          {"st", st},
                          {"m", map}});
  RowList rows;
  for (int r = 0; r < 5000; ++r) {
    std::vector<Value> row;
    row.push_back(Value::Null(DataType::Null()));
    row.push_back(r % 7 == 0 ? Value::Null(DataType::Boolean()) : Value::Boolean(r % 2));
    row.push_back(r % 5 == 0 ? NullI64() : I64(r * 1000003LL));
    row.push_back(r % 11 == 0 ? Value::Null(DataType::String())
                              : Str(std::string(r % 13, 'a' + r % 26)));
    row.push_back(Value::Binary(std::string("\0\1\2", 3) + std::to_string(r)));
    row.push_back(Value::Decimal(30, 2, static_cast<int128_t>(r) * 123456789));
    if (r % 9 == 0) {
      row.push_back(Value::Null(list));
    } else {
      std::vector<Value> elems;
      for (int k = 0; k < r % 4; ++k) {
        elems.push_back(k == 1 ? Value::Null(DataType::Int32()) : Value::Int32(r + k));
      }
      row.push_back(Value::Nested(list, elems));
    }
    row.push_back(r % 6 == 0
                      ? Value::Null(st)
                      : Value::Nested(st, {I64(r), r % 4 ? Str("v" + std::to_string(r))
                                                         : Value::Null(DataType::String())}));
    if (r % 8 == 0) {
      row.push_back(Value::Null(map));
    } else {
      row.push_back(Value::Nested(
          map, {Str("k"), Value::Double(r), Str("j"), Value::Null(DataType::Double())}));
    }
    rows.push_back(std::move(row));
  }
  auto source = MakeSource(schema, rows, 700);
  ExecContext ctx;
  std::vector<DataChunk> chunks = testing::Collect(*source, ctx);
  std::filesystem::path root = TestRoot("roundtrip");
  std::string dir;
  std::unique_ptr<SpillFile> outlived;  // a file its operator still holds when the statement ends
  {
    SpillManager spill(root.string());
    EXPECT_TRUE(spill.directory().empty());  // created lazily
    auto file = spill.CreateFile(schema);
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    dir = spill.directory();
    EXPECT_TRUE(std::filesystem::is_directory(dir));
    for (const DataChunk& c : chunks) ASSERT_TRUE((*file)->Append(c).ok());
    ASSERT_TRUE((*file)->FinishWriting().ok());
    EXPECT_EQ((*file)->rows(), 5000);
    EXPECT_EQ(spill.bytes_written(), (*file)->bytes());
    EXPECT_GT(spill.bytes_written(), 5000);
    EXPECT_EQ(spill.files_created(), 1);
    for (int pass = 0; pass < 2; ++pass) {
      std::vector<DataChunk> back;
      DataChunk c;
      while (true) {
        auto more = (*file)->Read(&c);
        ASSERT_TRUE(more.ok()) << more.status().ToString();
        if (!*more) break;
        back.push_back(std::move(c));
      }
      EXPECT_EQ(back.size(), chunks.size());
      EXPECT_EQ(Rows(back), Rows(chunks));
      ASSERT_TRUE((*file)->Rewind().ok());
    }
    // A file still open when the statement ends goes with the directory.
    auto left = spill.CreateFile(schema);
    ASSERT_TRUE(left.ok());
    ASSERT_TRUE((*left)->Append(chunks[0]).ok());
    outlived = std::move(*left);
  }
  EXPECT_FALSE(std::filesystem::exists(dir));
  outlived.reset();
  std::filesystem::remove_all(root);
}

TEST(SpillFileTest, CorruptFileIsAnErrorNotACrash) {
  std::filesystem::path root = TestRoot("corrupt");
  SpillManager spill(root.string());
  Schema schema = Fields({{"s", DataType::String()}});
  auto file = spill.CreateFile(schema);
  ASSERT_TRUE(file.ok());
  DataChunk c = DataChunk::FromSchema(schema);
  c.columns[0].AppendString("hello");
  ASSERT_TRUE((*file)->Append(c).ok());
  ASSERT_TRUE((*file)->FinishWriting().ok());
  std::filesystem::resize_file((*file)->path(), std::filesystem::file_size((*file)->path()) - 3);
  DataChunk out;
  auto r = (*file)->Read(&out);
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption());
}

TEST(SpillFileTest, UncreatableDirectoryIsAnIoError) {
  std::filesystem::path root = TestRoot("blocked");
  std::filesystem::create_directories(root.parent_path());
  {
    std::FILE* f = std::fopen(root.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
  }
  SpillManager spill((root / "sub").string());
  auto file = spill.CreateFile(Fields({{"a", DataType::Int64()}}));
  EXPECT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), StatusCode::kIoError);
  std::filesystem::remove(root);
}

// The budget of a spilling operator: 3/4 of the room the statement's limit and the database's
// (the SpillManager's shared tracker) leave, the tighter of the two; -1 without any limit.
TEST(SpillBudgetTest, TighterOfTheStatementAndTheDatabaseLimit) {
  auto db = std::make_shared<MemoryTracker>("database", 1000);
  MemoryTracker unlimited_db("database");
  SpillManager spill("");
  EXPECT_EQ(SpillBudget(nullptr, nullptr), -1);
  EXPECT_EQ(SpillBudget(nullptr, &spill), -1);
  {
    // Only a database limit: the budget is what it leaves (before, -1: fill up to the limit).
    MemoryTracker query("query", -1, db);
    spill.set_shared_memory(db.get());
    EXPECT_EQ(SpillBudget(&query, &spill), 750);
    ASSERT_TRUE(query.Reserve(200).ok());
    EXPECT_EQ(SpillBudget(&query, &spill), 600);
    // Another statement's use of the database's memory counts as well.
    MemoryTracker other("query", -1, db);
    ASSERT_TRUE(other.Reserve(400).ok());
    EXPECT_EQ(SpillBudget(&query, &spill), 300);
    other.Release(400);
    query.Release(200);
  }
  {
    // The statement's own limit is tighter than the database's room, and the other way round.
    MemoryTracker query("query", 400, db);
    EXPECT_EQ(SpillBudget(&query, &spill), 300);
    MemoryTracker big("query", 4000, db);
    EXPECT_EQ(SpillBudget(&big, &spill), 750);
    ASSERT_TRUE(big.Reserve(1000).ok());
    EXPECT_EQ(SpillBudget(&big, &spill), 0);
    big.Release(1000);
  }
  {
    // An unlimited database: only the statement's limit.
    spill.set_shared_memory(&unlimited_db);
    MemoryTracker query("query", 400);
    EXPECT_EQ(SpillBudget(&query, &spill), 300);
    MemoryTracker none("query");
    EXPECT_EQ(SpillBudget(&none, &spill), -1);
  }
}

// External sort: a limit far below the input gives the in-memory sort's rows (stable: ties in
// input order), spills several runs, and leaves no files behind.
TEST(ExternalSortTest, TinyLimitSortsLikeInMemory) {
  Schema s =
      Fields({{"k", DataType::Int64()}, {"seq", DataType::Int64()}, {"t", DataType::String()}});
  RowList rows;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 60000; ++i) {
    int64_t k = static_cast<int64_t>(rng() % 500);
    rows.push_back({i % 97 == 0 ? NullI64() : I64(k), I64(i), Str("row" + std::to_string(i % 31))});
  }
  std::vector<SortKey> keys = {SortKey{Col(0, DataType::Int64()), false, false},
                               SortKey{Col(2, DataType::String()), true, true}};
  ExecContext plain;
  SortOperator in_memory(MakeSource(s, rows, 1000), keys);
  std::vector<std::string> expected = Rows(testing::Collect(in_memory, plain));
  ASSERT_EQ(expected.size(), rows.size());

  std::filesystem::path root = TestRoot("sort");
  std::string dir;
  {
    MemoryTracker tracker("query", 512 << 10);
    SpillManager spill(root.string());
    ExecContext ctx;
    ctx.memory = &tracker;
    ctx.spill = &spill;
    SortOperator op(MakeSource(s, rows, 1000), keys);
    EXPECT_EQ(Rows(testing::Collect(op, ctx)), expected);
    EXPECT_GT(spill.files_created(), 3);
    EXPECT_NE(op.RuntimeMetrics().find("sorted runs"), std::string::npos) << op.RuntimeMetrics();
    EXPECT_LE(tracker.peak(), 512 << 10);
    dir = spill.directory();
    EXPECT_TRUE(std::filesystem::is_empty(dir));  // runs are deleted once merged
  }
  EXPECT_FALSE(std::filesystem::exists(dir));
  std::filesystem::remove_all(root);
}

TEST(ExternalSortTest, MoreRunsThanTheFanInMergeInPasses) {
  Schema s = Fields({{"k", DataType::Int64()}, {"seq", DataType::Int64()}});
  RowList rows;
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200000; ++i)
    rows.push_back({I64(static_cast<int64_t>(rng() % 1000)), I64(i)});
  std::vector<SortKey> keys = {MakeSortKey(Col(0, DataType::Int64()), true)};
  ExecContext plain;
  SortOperator in_memory(MakeSource(s, rows, 2048), keys);
  std::vector<std::string> expected = Rows(testing::Collect(in_memory, plain));
  std::filesystem::path root = TestRoot("passes");
  {
    MemoryTracker tracker("query", 160 << 10);
    SpillManager spill(root.string());
    ExecContext ctx;
    ctx.memory = &tracker;
    ctx.spill = &spill;
    SortOperator op(MakeSource(s, rows, 2048), keys);
    EXPECT_EQ(Rows(testing::Collect(op, ctx)), expected);
    // More files than sorted runs: runs were merged into longer ones before the last merge.
    std::string m = op.RuntimeMetrics();  // "spilled N sorted runs, B bytes"
    ASSERT_EQ(m.rfind("spilled ", 0), 0u) << m;
    int64_t runs = std::stoll(m.substr(8));
    EXPECT_GT(runs, 20) << m;
    EXPECT_GT(spill.files_created(), runs) << m;
  }
  std::filesystem::remove_all(root);
}

TEST(ExternalSortTest, OneChunkAboveTheLimitKeepsTheMemoryError) {
  Schema s = Fields({{"t", DataType::String()}});
  RowList rows = {{Str(std::string(200000, 'x'))}, {Str("y")}};
  std::filesystem::path root = TestRoot("toobig");
  MemoryTracker tracker("query", 64 << 10);
  SpillManager spill(root.string());
  ExecContext ctx;
  ctx.memory = &tracker;
  ctx.spill = &spill;
  SortOperator op(MakeSource(s, rows, 1), {MakeSortKey(Col(0, DataType::String()), true)});
  Status st = testing::CollectStatus(op, ctx);
  EXPECT_EQ(st.code(), StatusCode::kOutOfMemory);
  EXPECT_EQ(st.error_class(), errc::kSiltMemoryLimitExceeded);
  std::filesystem::remove_all(root);
}

TEST(ExternalSortTest, DisabledSpillingFailsAsBefore) {
  Schema s = Fields({{"k", DataType::Int64()}});
  RowList rows;
  for (int i = 0; i < 50000; ++i) rows.push_back({I64(50000 - i)});
  std::filesystem::path root = TestRoot("disabled");
  MemoryTracker tracker("query", 64 << 10);
  SpillManager spill(root.string(), /*enabled=*/false);
  ExecContext ctx;
  ctx.memory = &tracker;
  ctx.spill = &spill;
  SortOperator op(MakeSource(s, rows, 2048), {MakeSortKey(Col(0, DataType::Int64()), true)});
  Status st = testing::CollectStatus(op, ctx);
  EXPECT_EQ(st.error_class(), errc::kSiltMemoryLimitExceeded);
  EXPECT_EQ(spill.files_created(), 0);
  EXPECT_FALSE(std::filesystem::exists(root));
}

}  // namespace
}  // namespace silt::exec
