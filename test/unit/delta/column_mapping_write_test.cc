// Writes to column-mapped tables (delta.columnMapping.mode name and id): CREATE assigns ids and
// physical names, data files use physical names and Parquet field ids, stats and partition
// values are keyed by physical names, and the TableScan reads the rows back.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "delta/scan.h"
#include "delta/schema_json.h"
#include "delta/snapshot.h"
#include "delta/stats_json.h"
#include "delta/table_writer.h"
#include "io/memory_object_store.h"
#include "io/object_store.h"
#include "parquet/reader.h"
#include "parquet/schema.h"
#include "support/wall_clock.h"

namespace silt::delta {
namespace {

Schema TestSchema() {
  TypePtr s =
      DataType::Struct({{"x", DataType::Int32(), true, ""}, {"y", DataType::String(), true, ""}});
  return {{"id", DataType::Int64(), true, ""},
          {"s", s, true, ""},
          {"tags", DataType::List(DataType::String()), true, ""},
          {"part", DataType::String(), true, ""}};
}

DataChunk TestRows(int64_t first, size_t n) {
  Schema schema = TestSchema();
  DataChunk c = DataChunk::FromSchema(schema);
  for (size_t i = 0; i < n; ++i) {
    int64_t id = first + static_cast<int64_t>(i);
    EXPECT_TRUE(c.columns[0].AppendValue(Value::Int64(id)).ok());
    Value st = Value::Nested(schema[1].type, {Value::Int32(static_cast<int32_t>(id * 10)),
                                              Value::String("y" + std::to_string(id))});
    EXPECT_TRUE(c.columns[1].AppendValue(st).ok());
    EXPECT_TRUE(c.columns[2].AppendValue(Value::Nested(schema[2].type, {Value::String("t")})).ok());
    EXPECT_TRUE(c.columns[3].AppendValue(Value::String(id % 2 ? "odd" : "even")).ok());
  }
  return c;
}

std::vector<std::string> Rows(const DataChunk& c) {
  std::vector<std::string> rows;
  for (size_t r = 0; r < c.size(); ++r) {
    std::string s;
    for (const auto& col : c.columns) s += col.GetValue(r).ToJson() + "|";
    rows.push_back(s);
  }
  return rows;
}

std::vector<std::string> ScanAll(std::shared_ptr<ObjectStore> store) {
  auto snap = Snapshot::Load(store);
  EXPECT_TRUE(snap.ok()) << snap.status().ToString();
  if (!snap.ok()) return {};
  auto scan = TableScan::Make(*snap);
  EXPECT_TRUE(scan.ok()) << scan.status().ToString();
  if (!scan.ok()) return {};
  std::vector<std::string> rows;
  DataChunk c;
  while (true) {
    auto more = (*scan)->Next(&c);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    auto r = Rows(c);
    rows.insert(rows.end(), r.begin(), r.end());
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

class ColumnMappingWriteTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ColumnMappingWriteTest, CreateAppendScanWithPhysicalNames) {
  auto store = std::make_shared<InMemoryObjectStore>(WallClock());
  CreateTableOptions opts = WallCreate();
  opts.partition_columns = {"part"};
  opts.properties.Set("delta.columnMapping.mode", GetParam());
  DataChunk first = TestRows(0, 6);
  auto created = CreateTable(store, TestSchema(), {first}, opts);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  DataChunk second = TestRows(100, 3);
  auto appended = AppendRows(store, {second}, WallWrite(), WallTxn());
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();

  auto snap = Snapshot::Load(store).value();
  EXPECT_EQ(snap->protocol().min_reader_version, 2);
  EXPECT_EQ(snap->protocol().min_writer_version, 5);
  // Ids in pre-order (a struct before its fields), physical names col-<uuid>.
  const Schema& schema = snap->schema();
  ASSERT_EQ(schema.size(), 4u);
  EXPECT_EQ(ColumnMappingId(schema[0]), 1);
  EXPECT_EQ(ColumnMappingId(schema[1]), 2);
  EXPECT_EQ(ColumnMappingId(schema[1].type->fields()[0]), 3);
  EXPECT_EQ(ColumnMappingId(schema[1].type->fields()[1]), 4);
  EXPECT_EQ(ColumnMappingId(schema[2]), 5);
  EXPECT_EQ(ColumnMappingId(schema[3]), 6);
  EXPECT_EQ(snap->property("delta.columnMapping.maxColumnId"), "6");
  std::vector<std::string> physical;
  for (const Field& f : schema) {
    auto p = PhysicalName(f);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->rfind("col-", 0), 0u) << *p;
    EXPECT_EQ(p->size(), 40u);
    physical.push_back(*p);
  }
  std::string x_phys = *PhysicalName(schema[1].type->fields()[0]);

  ASSERT_EQ(snap->files().size(), 4u);  // even + odd in each commit
  auto phys_schema = ToPhysicalSchema(schema, snap->column_mapping_mode()).value();
  Schema phys_data(phys_schema.begin(), phys_schema.begin() + 3);
  for (const AddFile& f : snap->files()) {
    // Partition values and directories by physical name.
    ASSERT_EQ(f.partition_values.size(), 1u);
    EXPECT_EQ(f.partition_values.entries()[0].first, physical[3]);
    EXPECT_EQ(f.path.rfind(physical[3] + "=", 0), 0u) << f.path;
    // Stats by physical name, nested too.
    ASSERT_TRUE(f.stats);
    EXPECT_EQ(f.stats->find("\"id\""), std::string::npos) << *f.stats;
    auto st = ParseStats(*f.stats, phys_data);
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    ASSERT_TRUE(st->Find(physical[0]));
    EXPECT_TRUE(st->Find(physical[0])->min);
    EXPECT_TRUE(st->FindPath({physical[1], x_phys}));
    // The Parquet file: physical names and field ids = column mapping ids.
    auto pf = parquet::ParquetFile::Open(store->OpenRead(f.path).value()).value();
    const auto& cols = pf->schema().columns();
    ASSERT_EQ(cols.size(), 3u);
    EXPECT_EQ(cols[0].name, physical[0]);
    EXPECT_EQ(cols[0].field_id, 1);
    EXPECT_EQ(cols[1].name, physical[1]);
    EXPECT_EQ(cols[1].field_id, 2);
    ASSERT_EQ(cols[1].children.size(), 2u);
    EXPECT_EQ(cols[1].children[0].name, x_phys);
    EXPECT_EQ(cols[1].children[0].field_id, 3);
    EXPECT_EQ(cols[2].field_id, 5);
  }

  auto expected = Rows(first);
  auto more = Rows(second);
  expected.insert(expected.end(), more.begin(), more.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(ScanAll(store), expected);
}

INSTANTIATE_TEST_SUITE_P(Modes, ColumnMappingWriteTest, ::testing::Values("name", "id"));

// Delta's example for rewriteFieldIdsForIceberg: col1 ARRAY<INT>, col2 MAP<INT, INT>,
// col3 STRUCT<a INT, b ARRAY<STRUCT<c INT, d MAP<INT, INT>>>>. The nested ids live on the nearest
// struct field, keyed by the path from its physical name, after the largest column id.
TEST(ColumnMappingWriteTest, NestedIdsForIceberg) {
  auto field = [](const char* name, TypePtr t, int id, const char* physical) {
    return Field{name, std::move(t), true,
                 std::string(R"({"delta.columnMapping.id":)") + std::to_string(id) +
                     R"(,"delta.columnMapping.physicalName":")" + physical + "\"}"};
  };
  TypePtr inner =
      DataType::Struct({field("c", DataType::Int32(), 6, "pc"),
                        field("d", DataType::Map(DataType::Int32(), DataType::Int32()), 7, "pd")});
  Schema schema = {field("col1", DataType::List(DataType::Int32()), 1, "p1"),
                   field("col2", DataType::Map(DataType::Int32(), DataType::Int32()), 2, "p2"),
                   field("col3",
                         DataType::Struct({field("a", DataType::Int32(), 4, "pa"),
                                           field("b", DataType::List(inner), 5, "pb")}),
                         3, "p3")};
  int64_t max_id = 0;
  Schema out = AssignNestedColumnIds(schema, &max_id);
  using Ids = std::vector<std::pair<std::string, int64_t>>;
  EXPECT_EQ(NestedColumnIds(out[0]), (Ids{{"p1.element", 8}}));
  EXPECT_EQ(NestedColumnIds(out[1]), (Ids{{"p2.key", 9}, {"p2.value", 10}}));
  EXPECT_EQ(NestedColumnIds(out[2]), Ids{});
  EXPECT_NE(out[2].metadata_json.find(R"("delta.columnMapping.nested.ids":{})"), std::string::npos);
  const Field& b = out[2].type->fields()[1];
  EXPECT_EQ(NestedColumnIds(b), (Ids{{"pb.element", 11}}));
  const Field& d = b.type->element_type()->fields()[1];
  EXPECT_EQ(NestedColumnIds(d), (Ids{{"pd.key", 12}, {"pd.value", 13}}));
  EXPECT_EQ(max_id, 13);

  // Idempotent, and existing ids are kept when a column is added.
  int64_t again = 13;
  EXPECT_TRUE(SchemaEquals(AssignNestedColumnIds(out, &again), out));
  EXPECT_EQ(again, 13);
  out.push_back(field("col4", DataType::List(DataType::String()), 14, "p4"));
  again = 14;
  Schema added = AssignNestedColumnIds(out, &again);
  EXPECT_EQ(NestedColumnIds(added[0]), (Ids{{"p1.element", 8}}));
  EXPECT_EQ(NestedColumnIds(added[3]), (Ids{{"p4.element", 15}}));
  // AssignColumnMapping counts nested ids as taken.
  int64_t next = 0;
  AssignColumnMapping(added, &next);
  EXPECT_EQ(next, 15);

  // The Parquet schema: field ids on the element and key/value nodes too.
  auto physical = ToPhysicalSchema(added, ColumnMappingMode::kName);
  ASSERT_TRUE(physical.ok()) << physical.status().ToString();
  auto elements = parquet::MakeParquetSchema(*physical);
  ASSERT_TRUE(elements.ok()) << elements.status().ToString();
  std::map<std::string, int32_t> ids;
  for (const auto& e : *elements)
    if (e.field_id) ids[e.name + "#" + std::to_string(*e.field_id)] = *e.field_id;
  for (const char* want : {"p1#1", "element#8", "key#9", "value#10", "pb#5", "element#11", "pd#7",
                           "key#12", "value#13", "element#15"})
    EXPECT_TRUE(ids.count(want)) << want;
}

TEST(ColumnMappingWriteTest, AssignKeepsExistingIdsAndNames) {
  Schema schema = TestSchema();
  schema[0].metadata_json =
      R"({"comment":"c","delta.columnMapping.id":7,"delta.columnMapping.physicalName":"keep"})";
  int64_t max_id = 0;
  Schema out = AssignColumnMapping(schema, &max_id);
  EXPECT_EQ(ColumnMappingId(out[0]), 7);
  EXPECT_EQ(PhysicalName(out[0]), "keep");
  EXPECT_EQ(MetadataString(out[0], "comment"), "c");
  EXPECT_EQ(ColumnMappingId(out[1]), 8);
  EXPECT_EQ(ColumnMappingId(out[3]), 12);
  EXPECT_EQ(max_id, 12);
  // Round-trips through the schema string.
  auto parsed = ParseSchemaString(SerializeSchema(out));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(ColumnMappingId((*parsed)[1].type->fields()[1]), 10);
}

TEST(ColumnMappingWriteTest, ColumnMappingWithOtherFeaturesUsesTableFeatures) {
  StringMap props;
  props.Set("delta.columnMapping.mode", "name");
  props.Set("delta.enableDeletionVectors", "true");
  Protocol p = ProtocolForNewTable(TestSchema(), props);
  EXPECT_EQ(p.min_reader_version, 3);
  EXPECT_EQ(p.min_writer_version, 7);
  ASSERT_TRUE(p.reader_features);
  EXPECT_NE(std::find(p.reader_features->begin(), p.reader_features->end(), "columnMapping"),
            p.reader_features->end());
  EXPECT_NE(std::find(p.writer_features->begin(), p.writer_features->end(), "columnMapping"),
            p.writer_features->end());
}

}  // namespace
}  // namespace silt::delta
