#include "delta/actions.h"

#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <string>
#include <vector>

namespace silt::delta {
namespace {

// Lines taken verbatim from Spark-written logs under shared/conformance.
const char* const kSparkLines[] =
    {
        R"json({"protocol":{"minReaderVersion":1,"minWriterVersion":2}})json",
        R"json({"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["deletionVectors","v2Checkpoint"],"writerFeatures":["deletionVectors","v2Checkpoint","appendOnly","invariants"]}})json",
        R"json({"metaData":{"id":"testId","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{\"delta.columnMapping.id\":1,\"delta.columnMapping.physicalName\":\"col-10623d2b-e242-4e70-bda5-826469ad0d2a\"}},{\"name\":\"tsNtz\",\"type\":\"timestamp_ntz\",\"nullable\":true,\"metadata\":{\"delta.columnMapping.id\":2,\"delta.columnMapping.physicalName\":\"col-3095b00d-efaa-493e-b85d-8db894dffffc\"}},{\"name\":\"tsNtzPartition\",\"type\":\"timestamp_ntz\",\"nullable\":true,\"metadata\":{\"delta.columnMapping.id\":3,\"delta.columnMapping.physicalName\":\"col-31f31113-4fc7-437c-b8e8-b7bca8a2f698\"}}]}","partitionColumns":["tsNtzPartition"],"configuration":{"delta.columnMapping.mode":"id","delta.columnMapping.maxColumnId":"3"},"createdTime":1712333993412}})json",
        R"json({"metaData":{"id":"f571bf08-452e-4155-9f52-f793e630c55c","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":[],"configuration":{"delta.checkpointPolicy":"v2","delta.checkpointInterval":"1"},"createdTime":1739329697356}})json",
        R"json({"add":{"path":"part=6/part-00001-6fc16401-ac51-4b89-bf08-bb86cecb5cc2.c000.snappy.parquet","partitionValues":{"part":"6"},"size":736,"modificationTime":1688691720000,"dataChange":true,"stats":"{\"numRecords\":3,\"minValues\":{\"col1\":26,\"col2\":\"foo1\"},\"maxValues\":{\"col1\":46,\"col2\":\"foo1\"},\"nullCount\":{\"col1\":0,\"col2\":0},\"tightBounds\":false}","deletionVector":{"storageType":"u","pathOrInlineDv":"]g#Gi8g29gLy&KMkGJr?","offset":1,"sizeInBytes":34,"cardinality":1}}})json",
        R"json({"add":{"path":"part=1/test%25file%25prefix-part-00000-ad2e4232-aae1-41ea-b46c-569d88253339.c000.snappy.parquet","partitionValues":{"part":"1"},"size":986,"modificationTime":1774306408636,"dataChange":true,"stats":"{\"numRecords\":1,\"minValues\":{\"id\":1,\"value\":\"value_1\"},\"maxValues\":{\"id\":1,\"value\":\"value_1\"},\"nullCount\":{\"id\":0,\"value\":0},\"tightBounds\":true}","tags":{"INSERTION_TIME":"1774306408636000","MIN_INSERTION_TIME":"1774306408636000","MAX_INSERTION_TIME":"1774306408636000","OPTIMIZE_TARGET_SIZE":"268435456"}}})json",
        R"json({"add":{"path":"part=__HIVE_DEFAULT_PARTITION__/part-00001-f81daebf-3993-4686-bf72-470e1fe078d9.c000.snappy.parquet","partitionValues":{"part":null},"size":654,"modificationTime":1692156993000,"dataChange":true,"stats":"{\"numRecords\":1,\"minValues\":{\"id\":4},\"maxValues\":{\"id\":4},\"nullCount\":{\"id\":0,\"time\":1}}"}})json",
        R"json({"remove":{"path":"part-00000-e0bed4e7-0c50-4859-af0d-b26932e59a3b.c000.snappy.parquet","deletionTimestamp":1734070130501,"dataChange":false,"extendedFileMetadata":true,"partitionValues":{},"size":958,"tags":{"MAX_INSERTION_TIME":"1734070127000000","NUM_AUTO_OPTIMIZES":"4","INSERTION_TIME":"1734070073000000","compactedInto":"[\"part-00000-9d12b4eb-8732-4bd6-9102-ac21984f2f71.c000.snappy.parquet\"]","compactionInfo":"[{\"rowOffsetInTarget\":0,\"sourceNumPhysicalRecords\":8}]","MIN_INSERTION_TIME":"1734070073000000","OPTIMIZE_TARGET_SIZE":"67108864"},"deletionVector":{"storageType":"u","pathOrInlineDv":"9o*B3A9$@MU{2@BJ{d6N","offset":1,"sizeInBytes":34,"cardinality":1},"stats":"{\"numRecords\":8}"}})json",
        R"json({"remove":{"path":"file:/some/unqualified/absolute/path","deletionTimestamp":200,"dataChange":false}})json",
        R"json({"cdc":{"path":"_change_data/cdc-00000-441420ce-d865-42bd-9979-82338e193452.c000.snappy.parquet","partitionValues":{},"size":1063,"dataChange":false}})json",
        R"json({"txn":{"appId":"app-1","version":2}})json",
        R"json({"sidecar":{"path":"00000000000000000000.checkpoint.0000000001.0000000001.9167a758-dd93-4e52-8636-7cf5776eb10f.parquet","sizeInBytes":9203,"modificationTime":1739329764031}})json",
        R"json({"checkpointMetadata":{"version":0}})json",
        R"json({"commitInfo":{"timestamp":1767019603960,"operation":"CREATE TABLE","operationParameters":{"partitionBy":"[]","clusterBy":"[]","description":null,"isManaged":"false","properties":"{\"delta.checkpointInterval\":\"2\",\"delta.writePartitionColumnsToParquet\":\"true\"}","statsOnLoad":false},"isolationLevel":"WriteSerializable","isBlindAppend":true,"operationMetrics":{},"tags":{"restoresDeletedRows":"false"},"engineInfo":"Databricks-Runtime/<unknown>","txnId":"ca257341-0877-4bb4-bf7a-a67daefc7e02"}})json",
};

Action Parse(std::string_view line) {
  Action a;
  Status st = ParseActionLine(line, &a);
  EXPECT_TRUE(st.ok()) << st.ToString() << "\n" << line;
  return a;
}

TEST(ActionSerializeTest, ByteEqualToSparkLines) {
  for (const char* line : kSparkLines) {
    Action a = Parse(line);
    EXPECT_EQ(SerializeAction(a), line);
  }
}

TEST(ActionSerializeTest, CommitInfoFromFieldsMatchesSparkStructurally) {
  Action a = Parse(kSparkLines[13]);
  auto* ci = a.get_if<CommitInfo>();
  ASSERT_NE(ci, nullptr);
  EXPECT_EQ(ci->timestamp, 1767019603960);
  EXPECT_EQ(ci->operation, "CREATE TABLE");
  ASSERT_TRUE(ci->operation_parameters);
  EXPECT_EQ(*ci->operation_parameters->Find("partitionBy"), "\"[]\"");
  EXPECT_EQ(*ci->operation_parameters->Find("description"), "null");
  EXPECT_EQ(*ci->operation_parameters->Find("statsOnLoad"), "false");
  EXPECT_EQ(ci->is_blind_append, true);
  EXPECT_EQ(ci->txn_id, "ca257341-0877-4bb4-bf7a-a67daefc7e02");
  CommitInfo fields = *ci;
  fields.raw_json.clear();
  // This line has no job/notebook objects, so the field-wise form is the same bytes.
  EXPECT_EQ(SerializeAction(Action(fields)), kSparkLines[13]);
  Action back = Parse(SerializeAction(Action(fields)));
  auto* ci2 = back.get_if<CommitInfo>();
  ASSERT_NE(ci2, nullptr);
  ci2->raw_json.clear();
  EXPECT_EQ(*ci2, fields);
}

TEST(ActionParseTest, AddFields) {
  Action a = Parse(kSparkLines[4]);
  ASSERT_EQ(a.kind(), ActionKind::kAdd);
  const AddFile& add = *a.get_if<AddFile>();
  EXPECT_EQ(add.path, "part=6/part-00001-6fc16401-ac51-4b89-bf08-bb86cecb5cc2.c000.snappy.parquet");
  ASSERT_NE(add.partition_values.Find("part"), nullptr);
  EXPECT_EQ(*add.partition_values.Find("part"), "6");
  EXPECT_EQ(add.size, 736);
  EXPECT_EQ(add.modification_time, 1688691720000);
  EXPECT_TRUE(add.data_change);
  ASSERT_TRUE(add.stats);
  EXPECT_EQ(add.stats->substr(0, 15), "{\"numRecords\":3");
  ASSERT_TRUE(add.deletion_vector);
  EXPECT_EQ(add.deletion_vector->storage_type, 'u');
  EXPECT_EQ(add.deletion_vector->path_or_inline_dv, "]g#Gi8g29gLy&KMkGJr?");
  EXPECT_EQ(add.deletion_vector->offset, 1);
  EXPECT_EQ(add.deletion_vector->size_in_bytes, 34);
  EXPECT_EQ(add.deletion_vector->cardinality, 1);
  EXPECT_EQ(add.deletion_vector->UniqueId(), "u]g#Gi8g29gLy&KMkGJr?@1");
  EXPECT_FALSE(add.tags);
  EXPECT_FALSE(add.base_row_id);
}

TEST(ActionParseTest, NullPartitionValueAndExplicitNullOptionals) {
  // delta-rs writes absent optionals as explicit nulls.
  Action a = Parse(
      R"({"add":{"path":"p=x/f.parquet","partitionValues":{"p":null,"q":"1"},"size":1,)"
      R"("modificationTime":2,"dataChange":true,"stats":null,"tags":null,"deletionVector":null,)"
      R"("baseRowId":null,"defaultRowCommitVersion":null,"clusteringProvider":null}})");
  const AddFile& add = *a.get_if<AddFile>();
  ASSERT_NE(add.partition_values.Find("p"), nullptr);
  EXPECT_FALSE(add.partition_values.Find("p")->has_value());
  EXPECT_EQ(*add.partition_values.Find("q"), "1");
  EXPECT_FALSE(add.stats || add.tags || add.deletion_vector || add.base_row_id ||
               add.default_row_commit_version || add.clustering_provider);
  EXPECT_EQ(SerializeAction(a),
            R"({"add":{"path":"p=x/f.parquet","partitionValues":{"p":null,"q":"1"},"size":1,)"
            R"("modificationTime":2,"dataChange":true}})");
}

TEST(ActionParseTest, UnknownKeysAndFieldsAreIgnored) {
  Action a = Parse(R"({"futureAction":{"x":1}})");
  EXPECT_EQ(a.kind(), ActionKind::kUnknown);
  EXPECT_EQ(a.get_if<UnknownAction>()->key, "futureAction");
  a = Parse(R"({"txn":{"appId":"a","version":5,"newField":[1,{"y":2}]},"other":3})");
  ASSERT_EQ(a.kind(), ActionKind::kTxn);
  EXPECT_EQ(a.get_if<SetTransaction>()->version, 5);
  a = Parse(R"({"add":null})");
  EXPECT_EQ(a.kind(), ActionKind::kUnknown);
}

// Every action type with every field set survives serialize → parse.
TEST(ActionRoundTripTest, EveryActionType) {
  DeletionVectorDescriptor dv{'i', "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L",
                              std::nullopt, 40, 6};
  Protocol protocol{3, 7, std::vector<std::string>{"deletionVectors", "columnMapping"},
                    std::vector<std::string>{"deletionVectors", "columnMapping", "appendOnly"}};
  Metadata metadata;
  metadata.id = "8d0a2b3c-0000-4000-8000-000000000000";
  metadata.name = "t";
  metadata.description = "a \"quoted\"\ndescription \x01 é";
  metadata.format.options.Set("k", "v");
  metadata.schema_string = R"({"type":"struct","fields":[]})";
  metadata.partition_columns = {"p", "q"};
  metadata.configuration.Set("delta.enableDeletionVectors", "true");
  metadata.configuration.Set("a", "");
  metadata.created_time = 1700000000000;
  AddFile add;
  add.path = "p=a%253Ab/part-0.parquet";
  add.partition_values.Set("p", "a:b");
  add.partition_values.Set("q", std::nullopt);
  add.size = 123;
  add.modification_time = 456;
  add.data_change = false;
  add.stats = R"({"numRecords":1})";
  add.tags = StringMap{{"INSERTION_TIME", "1"}};
  add.deletion_vector = dv;
  add.base_row_id = 10;
  add.default_row_commit_version = 3;
  add.clustering_provider = "liquid";
  RemoveFile remove;
  remove.path = "x.parquet";
  remove.deletion_timestamp = 99;
  remove.data_change = true;
  remove.extended_file_metadata = true;
  remove.partition_values = PartitionValues{{"p", std::nullopt}};
  remove.size = 5;
  remove.tags = StringMap{};
  remove.deletion_vector = DeletionVectorDescriptor{'u', "ab^-aqEH.-t@S}K{vb[*k^", 4, 40, 6};
  remove.base_row_id = 1;
  remove.default_row_commit_version = 2;
  remove.stats = R"({"numRecords":2})";
  AddCDCFile cdc{"_change_data/c.parquet", PartitionValues{{"p", "1"}}, 7, StringMap{{"a", "b"}},
                 false};
  SetTransaction txn{"app", -1, 1234};
  CommitInfo ci;
  ci.version = 3;
  ci.in_commit_timestamp = 1700000000001;
  ci.timestamp = 1700000000000;
  ci.user_id = "u";
  ci.user_name = "n";
  ci.operation = "WRITE";
  ci.operation_parameters = StringMap{
      {"mode", "\"Append\""}, {"partitionBy", "\"[]\""}, {"statsOnLoad", "false"}, {"n", "null"}};
  ci.cluster_id = "c";
  ci.read_version = 2;
  ci.isolation_level = "Serializable";
  ci.is_blind_append = true;
  ci.operation_metrics = StringMap{{"numFiles", "1"}};
  ci.user_metadata = "m";
  ci.tags = StringMap{{"t", "v"}};
  ci.engine_info = "silt/0.1";
  ci.txn_id = "id";
  DomainMetadata dm{"delta.rowTracking", R"({"rowIdHighWaterMark":9})", false};
  CheckpointMetadata cm{12, StringMap{{"sidecarNumActions", "3"}}};
  Sidecar sidecar{"s.parquet", 100, 200, StringMap{{"x", "y"}}};

  std::vector<Action> actions = {protocol, metadata, add, remove,  cdc,       txn,
                                 ci,       dm,       cm,  sidecar, Protocol{}};
  std::string bytes = SerializeCommit(actions);
  std::vector<Action> back;
  ASSERT_TRUE(ParseCommit(bytes, &back, "rt.json").ok());
  ASSERT_EQ(back.size(), actions.size());
  for (size_t i = 0; i < actions.size(); ++i) {
    if (auto* c = back[i].get_if<CommitInfo>()) {
      EXPECT_EQ(SerializeAction(back[i]), SerializeAction(actions[i]));
      c->raw_json.clear();
    }
    EXPECT_EQ(back[i], actions[i]) << i << ": " << SerializeAction(actions[i]);
    EXPECT_EQ(SerializeAction(back[i]), SerializeAction(actions[i]));
  }
}

TEST(ActionParseTest, CommitSkipsBlankLinesAndCarriageReturns) {
  std::string bytes = std::string(kSparkLines[0]) + "\r\n\n   \n" + kSparkLines[10];
  std::vector<Action> out;
  ASSERT_TRUE(ParseCommit(bytes, &out, "0.json").ok());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].kind(), ActionKind::kProtocol);
  EXPECT_EQ(out[1].kind(), ActionKind::kTxn);
}

void ExpectCorrupt(std::string_view bytes, std::string_view needle) {
  std::vector<Action> out;
  Status st = ParseCommit(bytes, &out, "00000000000000000007.json");
  ASSERT_FALSE(st.ok()) << bytes;
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_EQ(st.error_class(), kInvalidCommitFileClass);
  EXPECT_NE(st.message().find("00000000000000000007.json:"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find(needle), std::string::npos) << st.ToString();
}

TEST(ActionParseTest, HostileInputIsCorruption) {
  std::string good = std::string(kSparkLines[4]) + "\n";
  // Truncations of a valid line at every position.
  std::string add = kSparkLines[4];
  for (size_t n = 1; n < add.size(); ++n) {
    std::vector<Action> out;
    Status st = ParseCommit(good + add.substr(0, n), &out, "t.json");
    EXPECT_TRUE(st.IsCorruption()) << n;
    if (st.ok()) break;
    EXPECT_NE(st.message().find("t.json:2"), std::string::npos) << st.ToString();
  }
  ExpectCorrupt("[1,2]", "expected an object");
  ExpectCorrupt("\"add\"", "expected an object");
  ExpectCorrupt(
      R"({"add":{"path":"a","partitionValues":{},"size":"1","modificationTime":1,"dataChange":true}})",
      "add.size: expected a long, found string");
  ExpectCorrupt(R"({"add":{"path":"a","partitionValues":{},"size":1,"dataChange":true}})",
                "add.modificationTime: required field is missing");
  ExpectCorrupt(
      R"({"add":{"path":"","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true}})",
      "add.path");
  ExpectCorrupt(
      R"({"add":{"path":"a","partitionValues":[],"size":1,"modificationTime":1,"dataChange":true}})",
      "add.partitionValues");
  ExpectCorrupt(
      R"({"add":{"path":"a","partitionValues":{"p":{"x":1}},"size":1,"modificationTime":1,"dataChange":true}})",
      "add.partitionValues");
  ExpectCorrupt(
      R"({"add":{"path":"a","partitionValues":{},"size":1.5,"modificationTime":1,"dataChange":true}})",
      "add.size");
  ExpectCorrupt(
      R"({"add":{"path":"a","partitionValues":{},"size":1,"modificationTime":1,"dataChange":1}})",
      "add.dataChange");
  ExpectCorrupt(
      R"({"add":{"path":"a","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true,"deletionVector":{"storageType":"uu","pathOrInlineDv":"x","sizeInBytes":1,"cardinality":1}}})",
      "add.deletionVector.storageType");
  ExpectCorrupt(
      R"({"add":{"path":"a","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true,"deletionVector":{"storageType":"u","pathOrInlineDv":"x","sizeInBytes":1}}})",
      "add.deletionVector.cardinality");
  ExpectCorrupt(
      R"({"add":{"path":"a","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true,"deletionVector":{"storageType":"u","pathOrInlineDv":"x","sizeInBytes":3000000000,"cardinality":1}}})",
      "out of range");
  ExpectCorrupt(R"({"protocol":{"minReaderVersion":1}})", "protocol.minWriterVersion");
  ExpectCorrupt(R"({"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":[1]}})",
                "protocol.readerFeatures");
  ExpectCorrupt(R"({"metaData":{"format":{"provider":"parquet"}}})", "metaData.id");
  ExpectCorrupt(
      R"({"metaData":{"id":"x","format":{"provider":"parquet"},"configuration":{"a":[1]}}})",
      "metaData.configuration");
  ExpectCorrupt(R"({"txn":{"appId":"a"}})", "txn.version");
  ExpectCorrupt(R"({"domainMetadata":{"domain":"d","configuration":"{}"}})",
                "domainMetadata.removed");
  ExpectCorrupt(R"({"sidecar":{"path":"p","sizeInBytes":1}})", "sidecar.modificationTime");
  ExpectCorrupt(R"({"checkpointMetadata":{}})", "checkpointMetadata.version");
  ExpectCorrupt(R"({"cdc":{"path":"p","partitionValues":{}}})", "cdc.size");
  ExpectCorrupt(R"({"commitInfo":5})", "commitInfo");
  ExpectCorrupt(
      R"({"add":{"path":"a","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true},"remove":{"path":"a"}})",
      "more than one action");
  ExpectCorrupt("{\"txn\":{\"appId\":\"\xff\",\"version\":1}}", "invalid JSON");
  ExpectCorrupt(R"({"txn":{"appId":"a","version":1}} trailing)", "invalid JSON");
  // Integers beyond 64 bits are rejected by the JSON parser itself.
  ExpectCorrupt(R"({"txn":{"appId":"a","version":99999999999999999999}})", "invalid JSON");
  ExpectCorrupt(R"({"txn":{"appId":"a","version":18446744073709551615}})", "txn.version");
  // Deep nesting inside an ignored field.
  std::string deep = R"({"txn":{"appId":"a","version":1,"x":)" + std::string(100000, '[') +
                     std::string(100000, ']') + "}}";
  ExpectCorrupt(deep, "invalid JSON");
}

TEST(ActionParseTest, CommitInfoIsLenient) {
  Action a = Parse(R"({"commitInfo":{"timestamp":"soon","operation":7,"operationParameters":[],)"
                   R"("readVersion":2,"job":{"jobId":"j"},"x":[1,2.5e300]}})");
  const CommitInfo& ci = *a.get_if<CommitInfo>();
  EXPECT_FALSE(ci.timestamp);
  EXPECT_FALSE(ci.operation);
  EXPECT_FALSE(ci.operation_parameters);
  EXPECT_EQ(ci.read_version, 2);
  EXPECT_EQ(ci.raw_json,
            R"({"timestamp":"soon","operation":7,"operationParameters":[],"readVersion":2,)"
            R"("job":{"jobId":"j"},"x":[1,2.5e300]})");
}

}  // namespace
}  // namespace silt::delta

namespace silt::delta {
namespace {

// A commit with many adds (a checkpoint-sized JSON log); prints the rate, checks the result.
TEST(ActionParsePerfTest, ManyAdds) {
  const int n = 20000;
  std::string bytes;
  for (int i = 0; i < n; ++i) {
    AddFile add;
    add.path = "part=" + std::to_string(i % 7) + "/part-00000-6fc16401-ac51-4b89-bf08-" +
               std::to_string(100000000000 + i) + ".c000.snappy.parquet";
    add.partition_values.Set("part", std::to_string(i % 7));
    add.size = 1000 + i;
    add.modification_time = 1688691720000 + i;
    add.stats = R"({"numRecords":3,"minValues":{"col1":26,"col2":"foo1"},"maxValues":{"col1":46,)"
                R"("col2":"foo1"},"nullCount":{"col1":0,"col2":0},"tightBounds":false})";
    add.tags = StringMap{{"INSERTION_TIME", "1688691720000000"}};
    bytes += SerializeAction(Action(std::move(add)));
    bytes += '\n';
  }
  std::vector<Action> out;
  out.reserve(n);
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(ParseCommit(bytes, &out, "big.json").ok());
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(out.size(), static_cast<size_t>(n));
  EXPECT_EQ(out.back().get_if<AddFile>()->size, 1000 + n - 1);
  std::cout << "[perf] " << n << " add lines (" << bytes.size() / 1024 << " KiB) in " << secs * 1e3
            << " ms: " << n / secs / 1e3 << "k lines/s\n";
}

}  // namespace
}  // namespace silt::delta
