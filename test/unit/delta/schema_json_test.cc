#include "delta/schema_json.h"

#include <gtest/gtest.h>

#include "delta/actions.h"
#include "unit/delta/conformance_files.h"

namespace silt::delta {
namespace {

Schema MustParse(std::string_view json) {
  auto r = ParseSchemaString(json);
  EXPECT_TRUE(r.ok()) << r.status().ToString() << "\n" << json;
  return r.ok() ? r.MoveValue() : Schema{};
}

TEST(SchemaJsonTest, PrimitivesRoundTrip) {
  const std::string json =
      R"({"type":"struct","fields":[)"
      R"({"name":"s","type":"string","nullable":true,"metadata":{}},)"
      R"({"name":"l","type":"long","nullable":false,"metadata":{}},)"
      R"({"name":"i","type":"integer","nullable":true,"metadata":{}},)"
      R"({"name":"sh","type":"short","nullable":true,"metadata":{}},)"
      R"({"name":"b","type":"byte","nullable":true,"metadata":{}},)"
      R"({"name":"f","type":"float","nullable":true,"metadata":{}},)"
      R"({"name":"d","type":"double","nullable":true,"metadata":{}},)"
      R"({"name":"bo","type":"boolean","nullable":true,"metadata":{}},)"
      R"({"name":"bi","type":"binary","nullable":true,"metadata":{}},)"
      R"({"name":"da","type":"date","nullable":true,"metadata":{}},)"
      R"({"name":"ts","type":"timestamp","nullable":true,"metadata":{}},)"
      R"({"name":"ntz","type":"timestamp_ntz","nullable":true,"metadata":{}},)"
      R"j({"name":"dec","type":"decimal(38,18)","nullable":true,"metadata":{}},)j"
      R"({"name":"v","type":"void","nullable":true,"metadata":{}}]})";
  Schema s = MustParse(json);
  ASSERT_EQ(s.size(), 14u);
  EXPECT_EQ(s[1].type->id(), TypeId::kInt64);
  EXPECT_FALSE(s[1].nullable);
  EXPECT_EQ(s[2].type->id(), TypeId::kInt32);
  EXPECT_EQ(s[4].type->id(), TypeId::kInt8);
  EXPECT_EQ(s[11].type->id(), TypeId::kTimestampNtz);
  EXPECT_EQ(s[12].type->precision(), 38);
  EXPECT_EQ(s[12].type->scale(), 18);
  EXPECT_EQ(s[13].type->id(), TypeId::kNull);
  EXPECT_EQ(s[0].metadata_json, "{}");
  EXPECT_EQ(SerializeSchema(s), json);
}

TEST(SchemaJsonTest, DecimalSpellings) {
  for (auto [name, p, sc] : {std::tuple{"decimal(10,2)", 10, 2},
                             {"decimal(10, 2)", 10, 2},
                             {"decimal( 5 ,0 )", 5, 0},
                             {"decimal", 10, 0}}) {
    auto t = ParseDataTypeJson(std::string("\"") + name + "\"");
    ASSERT_TRUE(t.ok()) << name << t.status().ToString();
    EXPECT_EQ((*t)->precision(), p);
    EXPECT_EQ((*t)->scale(), sc);
  }
  for (const char* bad : {"\"decimal(39,0)\"", "\"decimal(5,6)\""}) {
    auto t = ParseDataTypeJson(bad);
    EXPECT_EQ(t.status().code(), StatusCode::kUnsupported) << bad;
  }
  EXPECT_TRUE(ParseDataTypeJson("\"decimal(5;2)\"").status().IsCorruption());
}

TEST(SchemaJsonTest, NestedAndMetadata) {
  const std::string json =
      R"({"type":"struct","fields":[{"name":"a","type":{"type":"struct","fields":[)"
      R"({"name":"x","type":{"type":"array","elementType":{"type":"map","keyType":"string",)"
      R"("valueType":{"type":"struct","fields":[{"name":"deep","type":"long","nullable":true,)"
      R"("metadata":{"comment":"é \"q\""}}]},"valueContainsNull":false},"containsNull":true},)"
      R"("nullable":true,"metadata":{"delta.columnMapping.id":5,)"
      R"("delta.columnMapping.physicalName":"col-x","delta.typeChanges":[{"fromType":"integer",)"
      R"("toType":"long"}],"delta.identity.start":-9223372036854775808,"flag":true,"f":1.5}}]},)"
      R"("nullable":false,"metadata":{"delta.invariants":"{\"expression\":{\"expression\":\"a > 0\"}}"}}]})";
  Schema s = MustParse(json);
  ASSERT_EQ(s.size(), 1u);
  const TypePtr& a = s[0].type;
  ASSERT_EQ(a->id(), TypeId::kStruct);
  const Field& x = a->fields()[0];
  ASSERT_EQ(x.type->id(), TypeId::kList);
  EXPECT_TRUE(x.type->contains_null());
  const TypePtr& m = x.type->element_type();
  ASSERT_EQ(m->id(), TypeId::kMap);
  EXPECT_FALSE(m->value_contains_null());
  EXPECT_EQ(m->value_type()->fields()[0].name, "deep");
  EXPECT_EQ(PhysicalName(x), "col-x");
  EXPECT_EQ(ColumnMappingId(x), 5);
  EXPECT_EQ(MetadataInt(x, "delta.identity.start"), INT64_MIN);
  EXPECT_EQ(SerializeSchema(s), json);
}

TEST(SchemaJsonTest, MissingMetadataDefaultsToEmpty) {
  Schema s =
      MustParse(R"({"type":"struct","fields":[{"name":"a","type":"integer","nullable":true}]})");
  EXPECT_EQ(
      SerializeSchema(s),
      R"({"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,"metadata":{}}]})");
}

TEST(SchemaJsonTest, Errors) {
  auto unsupported = [](const char* type) {
    std::string json = std::string(R"({"type":"struct","fields":[{"name":"a","type":)") + type +
                       R"(,"nullable":true,"metadata":{}}]})";
    auto r = ParseSchemaString(json);
    EXPECT_EQ(r.status().code(), StatusCode::kUnsupported) << type;
    EXPECT_EQ(r.status().error_class(), kUnsupportedDataTypeClass) << type;
  };
  unsupported("\"variant\"");
  unsupported("\"interval\"");
  unsupported("\"geometry(OGC:CRS84)\"");
  unsupported(R"({"type":"udt","class":"x"})");
  for (
      const char* bad : {
          "",
          "{",
          "[]",
          R"("integer")",
          R"({"type":"struct"})",
          R"({"type":"struct","fields":[{"type":"integer","nullable":true}]})",
          R"({"type":"struct","fields":[{"name":"a","nullable":true}]})",
          R"({"type":"struct","fields":[{"name":"a","type":"integer"}]})",
          R"({"type":"struct","fields":[{"name":"a","type":"integer","nullable":"yes"}]})",
          R"({"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,"metadata":[]}]})",
          R"({"type":"struct","fields":[{"name":"a","type":{"type":"array","elementType":"long"},"nullable":true}]})",
          R"({"type":"struct","fields":[{"name":"a","type":{"type":"map","keyType":"long","valueContainsNull":true},"nullable":true}]})",
          R"({"type":"struct","fields":[{"name":"a","type":5,"nullable":true}]})",
      }) {
    auto r = ParseSchemaString(bad);
    EXPECT_TRUE(r.status().IsCorruption()) << bad << " → " << r.status().ToString();
  }
  // Deep nesting is refused, not a stack overflow.
  std::string deep;
  for (int i = 0; i < 400; ++i) deep += R"({"type":"array","elementType":)";
  deep += "\"long\"";
  for (int i = 0; i < 400; ++i) deep += R"(,"containsNull":true})";
  EXPECT_TRUE(ParseDataTypeJson(deep).status().IsCorruption());
}

TEST(SchemaJsonTest, ColumnMappingPhysicalSchema) {
  Schema s = MustParse(
      R"({"type":"struct","fields":[{"name":"a","type":{"type":"struct","fields":[)"
      R"({"name":"b","type":"integer","nullable":true,"metadata":{"delta.columnMapping.id":2,)"
      R"("delta.columnMapping.physicalName":"col-b"}}]},"nullable":true,)"
      R"("metadata":{"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-a"}},)"
      R"({"name":"arr","type":{"type":"array","elementType":{"type":"struct","fields":[)"
      R"({"name":"e","type":"long","nullable":true,"metadata":{"delta.columnMapping.id":4,)"
      R"("delta.columnMapping.physicalName":"col-e"}}]},"containsNull":true},"nullable":true,)"
      R"("metadata":{"delta.columnMapping.id":3,"delta.columnMapping.physicalName":"col-arr"}}]})");
  auto none = ToPhysicalSchema(s, ColumnMappingMode::kNone);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(SchemaEquals(*none, s));
  auto name = ToPhysicalSchema(s, ColumnMappingMode::kName);
  ASSERT_TRUE(name.ok()) << name.status().ToString();
  const Schema& p = *name;
  EXPECT_EQ(p[0].name, "col-a");
  EXPECT_EQ(p[0].type->fields()[0].name, "col-b");
  EXPECT_EQ(p[1].name, "col-arr");
  EXPECT_EQ(p[1].type->element_type()->fields()[0].name, "col-e");
  EXPECT_EQ(MetadataInt(p[0], kParquetFieldIdKey), 1);
  EXPECT_EQ(MetadataInt(p[1].type->element_type()->fields()[0], kParquetFieldIdKey), 4);
  EXPECT_EQ(
      p[0].type->fields()[0].metadata_json,
      R"({"delta.columnMapping.id":2,"delta.columnMapping.physicalName":"col-b","parquet.field.id":2})");

  Schema plain = MustParse(
      R"({"type":"struct","fields":[{"name":"x","type":"long","nullable":true,"metadata":{}}]})");
  auto by_name = ToPhysicalSchema(plain, ColumnMappingMode::kName);
  ASSERT_TRUE(by_name.ok());
  EXPECT_EQ((*by_name)[0].name, "x");  // no physical name: the logical one, as Spark does
  EXPECT_TRUE(ToPhysicalSchema(plain, ColumnMappingMode::kId).status().IsCorruption());

  EXPECT_EQ(*ParseColumnMappingMode(std::nullopt), ColumnMappingMode::kNone);
  EXPECT_EQ(*ParseColumnMappingMode("Name"), ColumnMappingMode::kName);
  EXPECT_EQ(*ParseColumnMappingMode("id"), ColumnMappingMode::kId);
  EXPECT_EQ(ParseColumnMappingMode("bogus").status().code(), StatusCode::kUnsupported);
}

// Every schemaString in the conformance logs: parse → serialize → parse is the same schema, and
// Spark-written schemas serialize back to the same bytes.
TEST(SchemaJsonTest, ConformanceSchemasRoundTrip) {
  auto logs = testing::DeltaLogJsonFiles();
  if (logs.empty()) GTEST_SKIP() << "no conformance data";
  int schemas = 0, byte_equal = 0;
  for (const auto& [log, files] : logs) {
    for (const std::string& file : files) {
      std::vector<Action> actions;
      ASSERT_TRUE(ParseCommit(testing::ReadFile(file), &actions, file).ok()) << file;
      for (const Action& a : actions) {
        const auto* m = a.get_if<Metadata>();
        if (!m || !m->schema_string) continue;
        auto s = ParseSchemaString(*m->schema_string);
        ASSERT_TRUE(s.ok()) << file << ": " << s.status().ToString();
        std::string text = SerializeSchema(*s);
        auto again = ParseSchemaString(text);
        ASSERT_TRUE(again.ok()) << again.status().ToString();
        EXPECT_TRUE(SchemaEquals(*s, *again)) << file;
        EXPECT_EQ(SerializeSchema(*again), text);
        ++schemas;
        byte_equal += text == *m->schema_string;
      }
    }
  }
  EXPECT_GT(schemas, 50);
  // All conformance schemas are Spark/Jackson output.
  EXPECT_EQ(byte_equal, schemas);
}

}  // namespace
}  // namespace silt::delta
