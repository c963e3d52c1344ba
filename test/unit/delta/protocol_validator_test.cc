// An independent check of the logs silt writes: each commit line is checked with simdjson
// against the Delta protocol's rules (one action per line, required fields and their types,
// protocol/feature consistency, stats JSON shape), not through silt's own action parser.
#include <gtest/gtest.h>
#include <simdjson.h>

#include "delta/log_segment.h"
#include "delta/table_features.h"
#include "delta/table_writer.h"
#include "io/memory_object_store.h"
#include "io/object_store.h"
#include "support/wall_clock.h"
#include "vector/generate.h"

namespace silt::delta {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

void ExpectField(const object& o, const char* name, simdjson::dom::element_type type,
                 const std::string& where) {
  element e;
  ASSERT_FALSE(o[name].get(e)) << where << ": missing required field " << name;
  EXPECT_EQ(e.type(), type) << where << ": field " << name << " has the wrong type";
}

void ValidateStats(std::string_view stats, const std::string& where) {
  simdjson::dom::parser p;
  element doc;
  ASSERT_FALSE(p.parse(stats.data(), stats.size()).get(doc)) << where << ": stats are not JSON";
  object o;
  ASSERT_FALSE(doc.get(o)) << where << ": stats are not an object";
  ExpectField(o, "numRecords", simdjson::dom::element_type::INT64, where);
  for (const char* k : {"minValues", "maxValues", "nullCount"}) {
    element e;
    if (!o[k].get(e)) {
      EXPECT_EQ(e.type(), simdjson::dom::element_type::OBJECT) << where << ": " << k;
    }
  }
}

void ValidateCommit(const std::string& bytes, const std::string& where) {
  simdjson::dom::parser parser;
  size_t line_no = 0, start = 0;
  bool first = true;
  while (start < bytes.size()) {
    size_t end = bytes.find('\n', start);
    if (end == std::string::npos) end = bytes.size();
    std::string line = bytes.substr(start, end - start);
    start = end + 1;
    ++line_no;
    std::string at = where + ":" + std::to_string(line_no);
    element doc;
    ASSERT_FALSE(parser.parse(line).get(doc)) << at << ": not JSON";
    object o;
    ASSERT_FALSE(doc.get(o)) << at;
    ASSERT_EQ(o.size(), 1u) << at << ": a line holds exactly one action";
    auto [key, value] = *o.begin();
    object a;
    ASSERT_FALSE(value.get(a)) << at << ": action is not an object";
    if (first) {
      EXPECT_EQ(key, "commitInfo") << at << ": commitInfo comes first";
    }
    first = false;
    using T = simdjson::dom::element_type;
    if (key == "add") {
      ExpectField(a, "path", T::STRING, at);
      ExpectField(a, "partitionValues", T::OBJECT, at);
      ExpectField(a, "size", T::INT64, at);
      ExpectField(a, "modificationTime", T::INT64, at);
      ExpectField(a, "dataChange", T::BOOL, at);
      std::string_view stats;
      ASSERT_FALSE(a["stats"].get(stats)) << at << ": silt always writes stats";
      ValidateStats(stats, at);
      std::string_view path;
      ASSERT_FALSE(a["path"].get(path));
      EXPECT_EQ(path.find(' '), std::string_view::npos) << at << ": paths are URI-encoded";
    } else if (key == "metaData") {
      ExpectField(a, "id", T::STRING, at);
      ExpectField(a, "format", T::OBJECT, at);
      ExpectField(a, "schemaString", T::STRING, at);
      ExpectField(a, "partitionColumns", T::ARRAY, at);
      ExpectField(a, "configuration", T::OBJECT, at);
    } else if (key == "protocol") {
      int64_t r, w;
      ASSERT_FALSE(a["minReaderVersion"].get(r)) << at;
      ASSERT_FALSE(a["minWriterVersion"].get(w)) << at;
      element rf, wf;
      EXPECT_EQ(r == 3, !a["readerFeatures"].get(rf))
          << at << ": readerFeatures exactly when reader version 3";
      EXPECT_EQ(w == 7, !a["writerFeatures"].get(wf))
          << at << ": writerFeatures exactly when writer version 7";
      if (r == 3) {
        EXPECT_EQ(w, 7) << at << ": reader features need writer features";
      }
    } else if (key == "commitInfo") {
      ExpectField(a, "timestamp", T::INT64, at);
      ExpectField(a, "operation", T::STRING, at);
      ExpectField(a, "operationParameters", T::OBJECT, at);
    } else {
      EXPECT_TRUE(key == "remove" || key == "txn" || key == "domainMetadata" || key == "cdc")
          << at << ": " << key;
    }
  }
}

TEST(ProtocolValidatorTest, LogsSiltWritesFollowTheProtocol) {
  for (bool dv : {false, true}) {
    auto store = std::make_shared<InMemoryObjectStore>(WallClock());
    Schema schema = NamedTestSchema("all").value();
    CreateTableOptions opts = WallCreate();
    opts.partition_columns = {"s"};
    if (dv) opts.properties.Set("delta.enableDeletionVectors", "true");
    GenerateOptions go;
    go.string_cardinality = 5;
    ASSERT_TRUE(CreateTable(store, schema, {GenerateData(schema, 200, go)}, opts).ok());
    ASSERT_TRUE(AppendRows(store, {GenerateData(schema, 50, go)}, WallWrite(), WallTxn()).ok());
    for (int64_t v = 0; v <= 1; ++v) {
      auto bytes = store->Get(CommitKey(v));
      ASSERT_TRUE(bytes.ok());
      ValidateCommit(*bytes, CommitKey(v));
    }
  }
}

}  // namespace
}  // namespace silt::delta

namespace silt::delta {
namespace {

// Protocol upgrades when a property turns a feature on (Protocol.withFeatures).
TEST(WithFeaturesTest, LegacyStaysLegacyWhenItCanElseTableFeatures) {
  Protocol legacy;
  legacy.min_reader_version = 1;
  legacy.min_writer_version = 2;
  EXPECT_EQ(WithFeatures(legacy, {"appendOnly"}), legacy);
  Protocol cdf = WithFeatures(legacy, {"changeDataFeed"});
  EXPECT_EQ(cdf.min_reader_version, 1);
  EXPECT_EQ(cdf.min_writer_version, 4);
  EXPECT_FALSE(cdf.writer_features);
  Protocol cm = WithFeatures(legacy, {"columnMapping"});
  EXPECT_EQ(cm.min_reader_version, 2);
  EXPECT_EQ(cm.min_writer_version, 5);

  Protocol dv = WithFeatures(cm, {"deletionVectors"});
  EXPECT_EQ(dv.min_reader_version, 3);
  EXPECT_EQ(dv.min_writer_version, 7);
  EXPECT_EQ(*dv.reader_features, (std::vector<std::string>{"columnMapping", "deletionVectors"}));
  EXPECT_EQ(
      *dv.writer_features,
      (std::vector<std::string>{"appendOnly", "invariants", "checkConstraints", "changeDataFeed",
                                "generatedColumns", "columnMapping", "deletionVectors"}));
  // Writer-only features on table features keep the reader version.
  Protocol ict = WithFeatures(legacy, {"inCommitTimestamp"});
  EXPECT_EQ(ict.min_reader_version, 1);
  EXPECT_EQ(ict.min_writer_version, 7);
  EXPECT_FALSE(ict.reader_features);
  EXPECT_EQ(WithFeatures(dv, {"deletionVectors", "columnMapping"}), dv);
  // Listed but unused legacy features (generatedColumns) do not block writes.
  Metadata m;
  m.schema_string = R"({"type":"struct","fields":[]})";
  EXPECT_TRUE(CheckWriteSupported(dv, m, false, "t").ok());
}

}  // namespace
}  // namespace silt::delta
