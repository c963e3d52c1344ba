// Constraints on write: NOT NULL (nested as Spark), legacy delta.invariants evaluated by the
// kernel, and CHECK constraints through the RowValidator hook (refused without one).
#include "delta/constraints.h"

#include <gtest/gtest.h>

#include "delta/snapshot.h"
#include "delta/table_writer.h"
#include "io/memory_object_store.h"
#include "io/object_store.h"
#include "support/wall_clock.h"

namespace silt::delta {
namespace {

size_t ParquetFiles(ObjectStore& store) {
  size_t n = 0;
  auto listing = store.ListFrom("").value();
  for (const auto& m : listing)
    if (m.key.size() > 8 && m.key.substr(m.key.size() - 8) == ".parquet" &&
        m.key.rfind("_delta_log", 0) != 0)
      ++n;
  return n;
}

std::string Invariant(const std::string& sql) {
  std::string inner = R"({"expression":{"expression":")" + sql + R"("}})";
  std::string escaped;
  for (char c : inner) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return R"({"delta.invariants":")" + escaped + "\"}";
}

TEST(ConstraintsTest, TopLevelNotNull) {
  auto store = std::make_shared<InMemoryObjectStore>(WallClock());
  Schema schema = {{"id", DataType::Int64(), false, ""}, {"v", DataType::String(), true, ""}};
  ASSERT_TRUE(CreateTable(store, schema, {}, WallCreate()).ok());
  DataChunk ok = DataChunk::FromSchema(schema);
  ok.columns[0].Append<int64_t>(1);
  ok.columns[1].AppendNull();
  ASSERT_TRUE(AppendRows(store, {ok}, WallWrite(), WallTxn()).ok());
  DataChunk bad = DataChunk::FromSchema(schema);
  bad.columns[0].AppendNull();
  bad.columns[1].AppendString("x");
  auto res = AppendRows(store, {ok, bad}, WallWrite(), WallTxn());
  EXPECT_EQ(res.status().error_class(), kNotNullViolatedClass);
  EXPECT_NE(res.status().message().find("NOT NULL constraint violated for column: id."),
            std::string::npos);
  // Nothing written for the refused append (not even the valid first chunk's file).
  EXPECT_EQ(ParquetFiles(*store), 1u);
  EXPECT_EQ(Snapshot::Load(store).value()->version(), 1);
}

TEST(ConstraintsTest, NestedNotNullOnlyWhereTheParentIsPresent) {
  TypePtr inner = DataType::Struct({{"x", DataType::Int32(), false, ""}});
  Schema schema = {{"s", inner, true, ""},
                   {"t", DataType::Struct({{"y", DataType::Int32(), true, ""}}), false, ""},
                   {"arr", DataType::List(DataType::Int32(), false), true, ""}};
  Metadata md;
  auto c = TableConstraints::Make(schema, md);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  auto row = [&](Value s, Value t, Value arr) {
    DataChunk chunk = DataChunk::FromSchema(schema);
    EXPECT_TRUE(chunk.columns[0].AppendValue(s).ok());
    EXPECT_TRUE(chunk.columns[1].AppendValue(t).ok());
    EXPECT_TRUE(chunk.columns[2].AppendValue(arr).ok());
    return c->Check(chunk, nullptr);
  };
  Value t_ok = Value::Nested(schema[1].type, {Value::Null(DataType::Int32())});
  Value arr_ok = Value::Nested(schema[2].type, {Value::Int32(1)});
  Value s_null = Value::Null(inner);
  // s is null: its non-nullable x is not checked.
  EXPECT_TRUE(row(s_null, t_ok, arr_ok).ok());
  Status bad_x = row(Value::Nested(inner, {Value::Null(DataType::Int32())}), t_ok, arr_ok);
  EXPECT_EQ(bad_x.error_class(), kNotNullViolatedClass);
  EXPECT_NE(bad_x.message().find("column: s.x."), std::string::npos) << bad_x.message();
  Status bad_t = row(s_null, Value::Null(schema[1].type), arr_ok);
  EXPECT_NE(bad_t.message().find("column: t."), std::string::npos) << bad_t.message();
  Status bad_elem =
      row(s_null, t_ok,
          Value::Nested(schema[2].type, {Value::Int32(1), Value::Null(DataType::Int32())}));
  EXPECT_NE(bad_elem.message().find("column: arr.element."), std::string::npos)
      << bad_elem.message();
  EXPECT_TRUE(row(s_null, t_ok, Value::Null(schema[2].type)).ok());  // a null array has no elements
}

TEST(ConstraintsTest, LegacyInvariantsAreEnforcedByTheKernel) {
  auto store = std::make_shared<InMemoryObjectStore>(WallClock());
  Schema schema = {{"value", DataType::Int32(), true, Invariant("value < 3")},
                   {"name", DataType::String(), true, ""}};
  ASSERT_TRUE(CreateTable(store, schema, {}, WallCreate()).ok());
  auto rows = [&](std::vector<std::optional<int32_t>> values) {
    DataChunk c = DataChunk::FromSchema(schema);
    for (auto v : values) {
      if (v) {
        c.columns[0].Append<int32_t>(*v);
      } else {
        c.columns[0].AppendNull();
      }
      c.columns[1].AppendString("n");
    }
    return c;
  };
  EXPECT_TRUE(AppendRows(store, {rows({1, 2})}, WallWrite(), WallTxn()).ok());
  auto res = AppendRows(store, {rows({1, 5})}, WallWrite(), WallTxn());
  EXPECT_EQ(res.status().error_class(), kConstraintViolatedClass);
  EXPECT_NE(res.status().message().find(
                "EXPRESSION(value < 3) value < 3 violated by row with values:\n - value : 5"),
            std::string::npos)
      << res.status().message();
  // NULL is a violation too (Spark's CheckDeltaInvariant: null or false).
  EXPECT_EQ(
      AppendRows(store, {rows({std::nullopt})}, WallWrite(), WallTxn()).status().error_class(),
      kConstraintViolatedClass);
  EXPECT_EQ(Snapshot::Load(store).value()->files().size(), 1u);
}

TEST(ConstraintsTest, InvariantSubset) {
  TypePtr st = DataType::Struct({{"Inner", DataType::String(), true, ""}});
  Schema base = {{"a", DataType::Int64(), true, ""},
                 {"b", DataType::Double(), true, ""},
                 {"s", st, true, ""},
                 {"f", DataType::Boolean(), true, ""},
                 {"d", DataType::Decimal(5, 2), true, ""}};
  DataChunk c = DataChunk::FromSchema(base);
  ASSERT_TRUE(c.columns[0].AppendValue(Value::Int64(10)).ok());
  ASSERT_TRUE(c.columns[1].AppendValue(Value::Double(2.5)).ok());
  ASSERT_TRUE(c.columns[2].AppendValue(Value::Nested(st, {Value::String("it's")})).ok());
  ASSERT_TRUE(c.columns[3].AppendValue(Value::Boolean(true)).ok());
  ASSERT_TRUE(c.columns[4].AppendValue(Value::Decimal(5, 2, 1250)).ok());
  auto check = [&](const std::string& sql) {
    Schema schema = base;
    schema[0].metadata_json = Invariant(sql);
    auto tc = TableConstraints::Make(schema, Metadata{});
    EXPECT_TRUE(tc.ok());
    EXPECT_TRUE(tc->needs_validator().empty()) << sql;
    return tc->Check(c, nullptr).ok();
  };
  EXPECT_TRUE(check("a > 3 AND b <= 2.5"));
  EXPECT_FALSE(check("a > 3 AND b < 2.5"));
  EXPECT_TRUE(check("NOT (a = 11) OR a IS NULL"));
  EXPECT_TRUE(check("`s`.inner = 'it''s' AND s.Inner IS NOT NULL"));
  EXPECT_TRUE(check("f AND -1 < a AND d = 12.5"));
  EXPECT_FALSE(check("f = false"));
  EXPECT_FALSE(check("a <> 10"));
  // Outside the subset: left to the validator.
  Schema schema = base;
  schema[0].metadata_json = Invariant("length(s.inner) > 2");
  auto tc = TableConstraints::Make(schema, Metadata{});
  ASSERT_TRUE(tc.ok());
  EXPECT_EQ(tc->needs_validator().size(), 1u);
  EXPECT_EQ(tc->Check(c, nullptr).error_class(), kValidatorRequiredClass);
  int calls = 0;
  EXPECT_TRUE(tc->Check(c, [&](const DataChunk&) {
                  ++calls;
                  return Status::OK();
                }).ok());
  EXPECT_EQ(calls, 1);
  // Malformed invariant metadata.
  schema[0].metadata_json = R"({"delta.invariants":"{\"nope\":1}"})";
  EXPECT_EQ(TableConstraints::Make(schema, Metadata{}).status().error_class(),
            kUnrecognizedInvariantClass);
}

TEST(ConstraintsTest, CheckConstraintsNeedAValidator) {
  auto store = std::make_shared<InMemoryObjectStore>(WallClock());
  Schema schema = {{"id", DataType::Int64(), true, ""}};
  CreateTableOptions opts = WallCreate();
  opts.properties.Set("delta.constraints.positive", "id > 0");
  ASSERT_TRUE(CreateTable(store, schema, {}, opts).ok());
  auto snap = Snapshot::Load(store).value();
  EXPECT_EQ(snap->protocol().min_writer_version, 7);
  DataChunk c = DataChunk::FromSchema(schema);
  c.columns[0].Append<int64_t>(-1);
  // Without a validator the write is refused, never silently unchecked.
  auto res = AppendRows(store, {c}, WallWrite(), WallTxn());
  EXPECT_EQ(res.status().error_class(), kValidatorRequiredClass);
  EXPECT_NE(res.status().message().find("positive"), std::string::npos);
  // The SQL layer's validator decides.
  DataWriteOptions w = WallWrite();
  size_t seen_rows = 0;
  w.row_validator = [&](const DataChunk& chunk) {
    seen_rows += chunk.size();
    if (chunk.columns[0].Get<int64_t>(0) <= 0)
      return Status::InvalidArgument(
          "CHECK constraint positive (id > 0) violated by row with values:\n - id : -1",
          kConstraintViolatedClass);
    return Status::OK();
  };
  EXPECT_EQ(AppendRows(store, {c}, w, WallTxn()).status().error_class(), kConstraintViolatedClass);
  DataChunk good = DataChunk::FromSchema(schema);
  good.columns[0].Append<int64_t>(7);
  EXPECT_TRUE(AppendRows(store, {good}, w, WallTxn()).ok());
  EXPECT_EQ(seen_rows, 2u);
  EXPECT_EQ(ParquetFiles(*store), 1u);
}

}  // namespace
}  // namespace silt::delta
