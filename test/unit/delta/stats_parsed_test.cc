// add.stats_parsed in checkpoints: turned into the stats JSON Spark would have written, and used
// by the snapshot when the checkpoint has no JSON stats (delta.checkpoint.writeStatsAsJson =
// false, writeStatsAsStruct = true).
#include <gtest/gtest.h>

#include "delta/checkpoint_writer.h"
#include "delta/stats_json.h"
#include "log_test_util.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "support/wall_clock.h"

namespace silt::delta {
namespace {

using namespace silt::delta::testing;  // NOLINT

TypePtr ValuesType() {
  return DataType::Struct({{"id", DataType::Int64(), true, ""},
                           {"s", DataType::Struct({{"x", DataType::String(), true, ""}}), true, ""},
                           {"ts", DataType::Timestamp(), true, ""},
                           {"d", DataType::Date(), true, ""}});
}
TypePtr CountsType() {
  return DataType::Struct({{"id", DataType::Int64(), true, ""},
                           {"s", DataType::Struct({{"x", DataType::Int64(), true, ""}}), true, ""},
                           {"ts", DataType::Int64(), true, ""},
                           {"d", DataType::Int64(), true, ""}});
}
TypePtr StatsParsedType() {
  return DataType::Struct({{"numRecords", DataType::Int64(), true, ""},
                           {"minValues", ValuesType(), true, ""},
                           {"maxValues", ValuesType(), true, ""},
                           {"nullCount", CountsType(), true, ""},
                           {"tightBounds", DataType::Boolean(), true, ""}});
}

TEST(StatsParsedTest, StructToSparkJson) {
  TypePtr vt = ValuesType(), ct = CountsType();
  TypePtr xs = vt->fields()[1].type, xc = ct->fields()[1].type;
  const int64_t kJan1 = 1704067200000000;  // 2024-01-01T00:00:00Z in micros
  Value min = Value::Nested(vt, {Value::Int64(-5), Value::Nested(xs, {Value::String("a\"b")}),
                                 Value::Integer(DataType::Timestamp(), kJan1 + 1500),
                                 Value::Integer(DataType::Date(), 19724)});
  // A null max of a column means "no max": left out, and so is an all-null struct.
  Value max = Value::Nested(
      vt, {Value::Int64(7), Value::Nested(xs, {Value::Null(DataType::String())}),
           Value::Null(DataType::Timestamp()), Value::Integer(DataType::Date(), 19725)});
  Value counts = Value::Nested(ct, {Value::Int64(0), Value::Nested(xc, {Value::Int64(2)}),
                                    Value::Int64(1), Value::Int64(0)});
  Vector v(StatsParsedType());
  ASSERT_TRUE(v.AppendValue(Value::Nested(StatsParsedType(), {Value::Int64(3), min, max, counts,
                                                              Value::Boolean(true)}))
                  .ok());
  ASSERT_TRUE(v.AppendValue(Value::Null(StatsParsedType())).ok());
  EXPECT_EQ(
      StatsJsonFromParsed(v, 0),
      R"({"numRecords":3,"minValues":{"id":-5,"s":{"x":"a\"b"},"ts":"2024-01-01T00:00:00.001Z","d":"2024-01-02"},)"
      R"("maxValues":{"id":7,"d":"2024-01-03"},"nullCount":{"id":0,"s":{"x":2},"ts":1,"d":0},"tightBounds":true})");
  EXPECT_EQ(StatsJsonFromParsed(v, 1), std::nullopt);
}

// Rewrites a checkpoint as a writeStatsAsStruct-only writer would: stats null, stats_parsed set.
// Rewrites a checkpoint as a writeStatsAsStruct-only writer would: stats null, stats_parsed set.
// Row group by row group, so the layout (small actions in a row group of their own) is kept.
void ReplaceJsonStatsWithParsed(ObjectStore& store, const std::string& key) {
  auto pf = parquet::ParquetFile::Open(store.OpenRead(key).value()).value();
  Schema schema = pf->schema().schema();
  int ai = FindField(schema, "add");
  ASSERT_GE(ai, 0);
  TypePtr vt = DataType::Struct({{"id", DataType::Int64(), true, ""}});
  TypePtr spt = DataType::Struct({{"numRecords", DataType::Int64(), true, ""},
                                  {"minValues", vt, true, ""},
                                  {"maxValues", vt, true, ""},
                                  {"nullCount", vt, true, ""}});
  std::vector<DataChunk> chunks(static_cast<size_t>(pf->num_row_groups()));
  for (int rg = 0; rg < pf->num_row_groups(); ++rg) {
    DataChunk& chunk = chunks[static_cast<size_t>(rg)];
    ASSERT_TRUE(pf->ReadRowGroup(rg, {}, &chunk).ok());
    Vector& add = chunk.columns[static_cast<size_t>(ai)];
    std::vector<Field> fields = add.type()->fields();
    int si = FindField(fields, "stats");
    ASSERT_GE(si, 0);
    Vector parsed(spt), nulls(DataType::String());
    for (size_t r = 0; r < chunk.size(); ++r) {
      nulls.AppendNull();
      if (add.IsNull(r)) {
        ASSERT_TRUE(parsed.AppendValue(Value::Null(spt)).ok());
        continue;
      }
      auto st = ParseStats(std::string(add.child(static_cast<size_t>(si)).GetString(r)),
                           {{"id", DataType::Int64(), true, ""}});
      ASSERT_TRUE(st.ok());
      const ColumnStats* id = st->Find("id");
      ASSERT_TRUE(id && id->min && id->max && id->null_count);
      ASSERT_TRUE(parsed
                      .AppendValue(Value::Nested(
                          spt, {Value::Int64(*st->num_records), Value::Nested(vt, {*id->min}),
                                Value::Nested(vt, {*id->max}),
                                Value::Nested(vt, {Value::Int64(*id->null_count)})}))
                      .ok());
    }
    add.children()[static_cast<size_t>(si)] = std::move(nulls);
    add.children().push_back(std::move(parsed));
    fields.push_back({"stats_parsed", spt, true, ""});
    add.ResetType(DataType::Struct(fields));
    schema[static_cast<size_t>(ai)].type = add.type();
  }
  ASSERT_TRUE(store.Delete(key).ok());
  auto writer = parquet::ParquetWriter::Make(store.OpenWrite(key).value(), schema).value();
  for (const DataChunk& chunk : chunks) {
    ASSERT_TRUE(writer->Write(chunk).ok());
    ASSERT_TRUE(writer->FlushRowGroup().ok());
  }
  ASSERT_TRUE(writer->Close().ok());
}

TEST(StatsParsedTest, SnapshotUsesStatsParsedWhenTheJsonIsAbsent) {
  TestTable t;
  int64_t ts = kT0;
  AddFile a = TestAdd("a.parquet", "x", ts), b = TestAdd("b.parquet", "y", ts);
  a.stats = StatsJson(10, -3, 9);
  b.stats = StatsJson(5, 100, 200);
  ASSERT_TRUE(t.Commit(0, {TestCommitInfo(ts), TestProtocol(false), TestMetadata(), a, b}).ok());
  auto json = t.Load().value();
  ASSERT_TRUE(WriteCheckpoint(*t.store, *json, WallCheckpoint()).ok());
  ReplaceJsonStatsWithParsed(*t.store, CheckpointKey(0));
  auto snap = t.Load();
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  ASSERT_EQ((*snap)->segment().checkpoint_version, 0);
  ASSERT_EQ((*snap)->files().size(), 2u);
  for (const AddFile& f : (*snap)->files()) {
    ASSERT_TRUE(f.stats) << f.path;
    EXPECT_EQ(*f.stats, f.path == a.path ? *a.stats : *b.stats);
  }
}

}  // namespace
}  // namespace silt::delta
