// An independent check of the logs silt writes: each commit line is checked with simdjson
// against the Delta protocol's rules (one action per line, required fields and their types,
// protocol/feature consistency, stats JSON shape), not through silt's own action parser.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "delta/log_segment.h"
#include "delta/table_features.h"
#include "delta/table_writer.h"
#include "io/http_client.h"
#include "io/local_object_store.h"
#include "io/memory_object_store.h"
#include "io/object_store.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "silt/silt.h"
#include "support/wall_clock.h"
#include "unit/delta/conformance_files.h"
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

// Generated, identity and default columns on a table built by hand as Databricks makes them (a
// legacy (1, 6) protocol, column metadata per PROTOCOL.md, a Parquet file written directly): SQL
// writes compute the generated values, allocate identity values and use defaults, and every
// commit they make passes ValidateCommit; the high-water mark follows the values handed out.
// Then 8 writers insert concurrently: identity values stay unique (a loser fails with
// DELTA_METADATA_CHANGED and retries the statement).
namespace silt::delta {
namespace {

namespace fs = std::filesystem;

class GeneratedColumnsLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "silt-gencols-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    DatabaseOptions opts;
    opts.warehouse = dir_ + "/wh";
    opts.clock = std::make_shared<ManualClock>(1'700'000'000'000);
    opts.threads = 2;
    auto db = Database::Open(opts);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = *db;
  }
  void TearDown() override {
    db_.reset();
    fs::remove_all(dir_);
  }
  Status Exec(Connection& con, const std::string& sql) { return con.Query(sql).status(); }
  std::vector<std::string> Rows(Connection& con, const std::string& sql) {
    auto r = con.Query(sql);
    EXPECT_TRUE(r.ok()) << sql << "\n" << r.status().ToString();
    std::vector<std::string> out;
    if (!r.ok()) return out;
    for (size_t i = 0; i < (*r)->num_rows(); ++i) {
      std::string line;
      for (const Value& v : (*r)->Row(i)) line += v.ToString() + "|";
      out.push_back(line);
    }
    return out;
  }
  // The table: id BIGINT GENERATED ALWAYS AS IDENTITY (high-water mark 2), a INT,
  // g INT GENERATED ALWAYS AS (a + 1), s STRING DEFAULT 'none' (allowColumnDefaults needs table
  // features, so with `defaults` the protocol is (1, 7) listing the features instead of (1, 6)).
  std::string MakeTable(bool defaults) {
    const std::string root = dir_ + "/t";
    fs::create_directories(root + "/_delta_log");
    Schema file_schema = {{"id", DataType::Int64(), true, "{}"},
                          {"a", DataType::Int32(), true, "{}"},
                          {"g", DataType::Int32(), true, "{}"},
                          {"s", DataType::String(), true, "{}"}};
    DataChunk rows;
    rows.num_rows_without_columns = 2;
    for (const Field& f : file_schema) rows.columns.emplace_back(f.type);
    for (int r = 0; r < 2; ++r) {
      EXPECT_TRUE(rows.columns[0].AppendValue(Value::Int64(r + 1)).ok());
      EXPECT_TRUE(rows.columns[1].AppendValue(Value::Int32(5 + 2 * r)).ok());
      EXPECT_TRUE(rows.columns[2].AppendValue(Value::Int32(6 + 2 * r)).ok());
      EXPECT_TRUE(rows.columns[3].AppendValue(Value::String("x")).ok());
    }
    {
      LocalObjectStore store(root);
      auto sink = store.OpenWrite("part-00000-hand.snappy.parquet");
      EXPECT_TRUE(sink.ok());
      auto w = parquet::ParquetWriter::Make(std::move(*sink), file_schema, {});
      EXPECT_TRUE(w.ok());
      EXPECT_TRUE((*w)->Write(rows).ok());
      EXPECT_TRUE((*w)->Close().ok());
    }
    const auto size = fs::file_size(root + "/part-00000-hand.snappy.parquet");
    std::string schema =
        R"({"type":"struct","fields":[)"
        R"({"name":"id","type":"long","nullable":true,"metadata":{"delta.identity.start":1,"delta.identity.step":1,"delta.identity.highWaterMark":2,"delta.identity.allowExplicitInsert":false}},)"
        R"({"name":"a","type":"integer","nullable":true,"metadata":{}},)"
        R"({"name":"g","type":"integer","nullable":true,"metadata":{"delta.generationExpression":"a + 1"}},)";
    schema +=
        defaults
            ? R"({"name":"s","type":"string","nullable":true,"metadata":{"CURRENT_DEFAULT":"'none'"}}]})"
            : R"({"name":"s","type":"string","nullable":true,"metadata":{}}]})";
    std::string escaped;
    for (char c : schema) escaped += c == '"' ? std::string("\\\"") : std::string(1, c);
    std::string log =
        R"({"commitInfo":{"timestamp":1700000000000,"operation":"CREATE TABLE","operationParameters":{}}})"
        "\n";
    log +=
        defaults
            ? R"({"protocol":{"minReaderVersion":1,"minWriterVersion":7,"writerFeatures":["appendOnly","invariants","generatedColumns","identityColumns","allowColumnDefaults"]}})"
            : R"({"protocol":{"minReaderVersion":1,"minWriterVersion":6}})";
    log += "\n";
    log +=
        R"({"metaData":{"id":"5b2c2a9e-0000-4000-8000-000000000001","format":{"provider":"parquet","options":{}},"schemaString":")" +
        escaped + R"(","partitionColumns":[],"configuration":{},"createdTime":1700000000000}})" +
        "\n";
    log += R"({"add":{"path":"part-00000-hand.snappy.parquet","partitionValues":{},"size":)" +
           std::to_string(size) +
           R"(,"modificationTime":1700000000000,"dataChange":true,"stats":"{\"numRecords\":2}"}})" +
           "\n";
    std::ofstream(root + "/_delta_log/00000000000000000000.json") << log;
    return root;
  }
  int64_t HighWaterMark(const std::string& root) {
    auto snap = Snapshot::Load(std::make_shared<LocalObjectStore>(root), std::nullopt);
    EXPECT_TRUE(snap.ok());
    if (!snap.ok()) return -1;
    return MetadataInt((*snap)->schema()[0], "delta.identity.highWaterMark").value_or(-1);
  }
  std::string dir_;
  std::shared_ptr<Database> db_;
};

TEST_F(GeneratedColumnsLogTest, HandBuiltTableIsWrittenAndItsLogValidates) {
  for (bool defaults : {false, true}) {
    SCOPED_TRACE(defaults);
    const std::string root = MakeTable(defaults);
    const std::string t = "delta.`" + root + "`";
    Connection con(db_);
    ASSERT_TRUE(Exec(con, "INSERT INTO " + t + " (a) VALUES (9)").ok());
    EXPECT_EQ(HighWaterMark(root), 3);
    Status st = Exec(con, "INSERT INTO " + t + " (id, a) VALUES (7, 1)");
    EXPECT_EQ(st.error_class(), "DELTA_IDENTITY_COLUMNS_EXPLICIT_INSERT_NOT_SUPPORTED");
    st = Exec(con, "INSERT INTO " + t + " (a, g) VALUES (1, 3)");
    EXPECT_EQ(st.error_class(), "DELTA_VIOLATE_CONSTRAINT_WITH_VALUES");
    ASSERT_TRUE(Exec(con, "UPDATE " + t + " SET a = 20 WHERE id = 1").ok());
    ASSERT_TRUE(Exec(con, "DELETE FROM " + t + " WHERE id = 2").ok());
    ASSERT_TRUE(Exec(con, "OPTIMIZE " + t).ok());
    ASSERT_TRUE(Exec(con, "MERGE INTO " + t +
                              " USING (SELECT 3 AS k, 30 AS a UNION ALL SELECT 100, 40) s ON id = k"
                              " WHEN MATCHED THEN UPDATE SET a = s.a"
                              " WHEN NOT MATCHED THEN INSERT (a) VALUES (s.a)")
                    .ok());
    EXPECT_EQ(HighWaterMark(root), 4);
    EXPECT_EQ(Rows(con, "SELECT id, a, g, s FROM " + t + " ORDER BY id"),
              (std::vector<std::string>{
                  "1|20|21|x|", "3|30|31|" + std::string(defaults ? "none" : "NULL") + "|",
                  "4|40|41|" + std::string(defaults ? "none" : "NULL") + "|"}));
    auto store = std::make_shared<LocalObjectStore>(root);
    for (int64_t v = 1; v <= 5; ++v) {
      auto bytes = store->Get(CommitKey(v));
      ASSERT_TRUE(bytes.ok()) << v;
      ValidateCommit(*bytes, CommitKey(v));
    }
    fs::remove_all(root);
  }
}

// The writers run in a forked child: eight threads allocating at once leave malloc arenas
// (address space) behind, which would squeeze the tests that cap a child's address space.
TEST_F(GeneratedColumnsLogTest, IdentityValuesStayUniqueUnderEightConcurrentWriters) {
  const std::string root = MakeTable(false);
  const std::string t = "delta.`" + root + "`";
  constexpr int kWriters = 8, kInsertsEach = 3, kRowsEach = 4;
  const int64_t expected = 2 + kWriters * kInsertsEach * kRowsEach;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    std::string out;
    {
      DatabaseOptions opts;
      opts.warehouse = dir_ + "/wh2";
      opts.clock = std::make_shared<ManualClock>(1'700'000'000'000);
      opts.threads = 2;
      auto db = Database::Open(opts);
      if (!db.ok()) out = db.status().ToString();
      std::mutex mu;
      std::vector<std::thread> threads;
      for (int w = 0; db.ok() && w < kWriters; ++w) {
        threads.emplace_back([&, w] {
          Connection con(*db);
          for (int done = 0; done < kInsertsEach;) {
            std::string values;
            for (int r = 0; r < kRowsEach; ++r)
              values +=
                  std::string(r ? ", " : "") + "(" + std::to_string(w * 100 + done * 10 + r) + ")";
            Status st = con.Query("INSERT INTO " + t + " (a) VALUES " + values).status();
            if (st.ok()) {
              ++done;
            } else if (st.error_class() != "DELTA_METADATA_CHANGED") {
              // DELTA_METADATA_CHANGED: another writer's high-water mark won; the statement is
              // retried against it. Anything else is a failure.
              std::lock_guard<std::mutex> l(mu);
              out += st.ToString() + "\n";
              return;
            }
          }
        });
      }
      for (auto& th : threads) th.join();
      if (db.ok() && out.empty()) {
        Connection con(*db);
        auto r = con.Query(
            "SELECT count(*), count(DISTINCT id), min(id), max(id), "
            "count_if(g <=> a + 1) FROM " +
            t);
        if (!r.ok()) {
          out = r.status().ToString();
        } else {
          for (const Value& v : (*r)->Row(0)) out += v.ToString() + "|";
        }
      }
    }
    ssize_t w = ::write(fds[1], out.data(), out.size());
    (void)w;
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string got;
  char buf[4096];
  for (ssize_t k; (k = ::read(fds[0], buf, sizeof buf)) > 0;)
    got.append(buf, static_cast<size_t>(k));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  // Every row kept, no identity value handed out twice, no gaps (each commit's allocation starts
  // after the winner's high-water mark), and the generated column computed for every row.
  const std::string n = std::to_string(expected);
  EXPECT_EQ(got, n + "|" + n + "|1|" + n + "|" + n + "|");
  EXPECT_EQ(HighWaterMark(root), expected);
}

// A table with a generated partition column as Databricks makes it, its data files written by
// DuckDB 1.5.6 (`SET TimeZone = 'UTC'`, then
//   COPY (SELECT * FROM (VALUES (1::BIGINT, TIMESTAMPTZ '2024-01-01 10:00:00+00', 5, 6, 'x'),
//     (2::BIGINT, TIMESTAMPTZ '2024-01-01 20:00:00+00', 7, 8, 'x')) v(id, ts, a, g, s))
//     TO 'p1.parquet' (FORMAT parquet, COMPRESSION uncompressed)
// and the same for (3, '2024-01-02 09:00:00+00', 9, 10, 'y') to p2.parquet; the bytes below)
// and a log built by hand: id identity, g = a + 1, s DEFAULT 'none', d DATE GENERATED ALWAYS AS
// (CAST(ts AS DATE)) the partition column. Filters on ts prune d's partitions, the writes compute
// d, g, id and s, and every commit passes ValidateCommit.
constexpr const char* kDuckDbPart1 =
    "UEFSMRUAFSwVLCwVBBUAFQYVBgAAAgAAAAQBAQAAAAAAAAACAAAAAAAAABUAFSwVLCwVBBUAFQYVBgAAAgAAAAQBAI"
    "jlcd8NBgAA8KnT5w0GABUAFRwVHCwVBBUAFQYVBgAAAgAAAAQBBQAAAAcAAAAVABUcFRwsFQQVABUGFQYAAAIAAAAE"
    "AQYAAAAIAAAAFQAVIBUgLBUEFQAVBhUGAAACAAAABAEBAAAAeAEAAAB4FQIZbDUAGA1kdWNrZGJfc2NoZW1hFQoAFQ"
    "QlAhgCaWQlJAAVBCUCGAJ0cyUUTIwRHCwAAAAAABUCJQIYAWElIgAVAiUCGAFnJSIAFQwlAhgBcyUAABYEGRwZXCYA"
    "HBUEGRUAGRgCaWQVABYEFk4WTiYIPBgIAgAAAAAAAAAYCAEAAAAAAAAAFgAoCAIAAAAAAAAAGAgBAAAAAAAAABERAA"
    "AAJgAcFQQZFQAZGAJ0cxUAFgQWThZOJlY8GAgA8KnT5w0GABgIAIjlcd8NBgAWACgIAPCp0+cNBgAYCACI5XHfDQYA"
    "EREAAAAmABwVAhkVABkYAWEVABYEFj4WPiakATwYBAcAAAAYBAUAAAAWACgEBwAAABgEBQAAABERAAAAJgAcFQIZFQ"
    "AZGAFnFQAWBBY+Fj4m4gE8GAQIAAAAGAQGAAAAFgAoBAgAAAAYBAYAAAAREQAAACYAHBUMGRUAGRgBcxUAFgQWQhZC"
    "JqACPBgBeBgBeBYAKAF4GAF4EREAAAAW2gIWBCYIFtoCACgoRHVja0RCIHZlcnNpb24gdjEuNS42IChidWlsZCAwNj"
    "ljYzlmOWI1KRlcHAAAHAAAHAAAHAAAHAAAAMkBAABQQVIx";
constexpr const char* kDuckDbPart2 =
    "UEFSMRUAFRwVHCwVAhUAFQYVBgAAAgAAAAIBAwAAAAAAAAAVABUcFRwsFQIVABUGFQYAAAIAAAACAQBEKbnyDQYAFQ"
    "AVFBUULBUCFQAVBhUGAAACAAAAAgEJAAAAFQAVFBUULBUCFQAVBhUGAAACAAAAAgEKAAAAFQAVFhUWLBUCFQAVBhUG"
    "AAACAAAAAgEBAAAAeRUCGWw1ABgNZHVja2RiX3NjaGVtYRUKABUEJQIYAmlkJSQAFQQlAhgCdHMlFEyMERwsAAAAAA"
    "AVAiUCGAFhJSIAFQIlAhgBZyUiABUMJQIYAXMlAAAWAhkcGVwmABwVBBkVABkYAmlkFQAWAhY+Fj4mCDwYCAMAAAAA"
    "AAAAGAgDAAAAAAAAABYAKAgDAAAAAAAAABgIAwAAAAAAAAAREQAAACYAHBUEGRUAGRgCdHMVABYCFj4WPiZGPBgIAE"
    "QpufINBgAYCABEKbnyDQYAFgAoCABEKbnyDQYAGAgARCm58g0GABERAAAAJgAcFQIZFQAZGAFhFQAWAhY2FjYmhAE8"
    "GAQJAAAAGAQJAAAAFgAoBAkAAAAYBAkAAAAREQAAACYAHBUCGRUAGRgBZxUAFgIWNhY2JroBPBgECgAAABgECgAAAB"
    "YAKAQKAAAAGAQKAAAAEREAAAAmABwVDBkVABkYAXMVABYCFjgWOCbwATwYAXkYAXkWACgBeRgBeRERAAAAFqACFgIm"
    "CBagAgAoKER1Y2tEQiB2ZXJzaW9uIHYxLjUuNiAoYnVpbGQgMDY5Y2M5ZjliNSkZXBwAABwAABwAABwAABwAAADJAQ"
    "AAUEFSMQ==";

TEST_F(GeneratedColumnsLogTest, DuckDbFilesWithGeneratedPartitionColumnArePrunedAndWritten) {
  const std::string root = dir_ + "/duck";
  const std::pair<const char*, const char*> parts[] = {{"2024-01-01", kDuckDbPart1},
                                                       {"2024-01-02", kDuckDbPart2}};
  std::string adds;
  for (const auto& [day, b64] : parts) {
    fs::create_directories(root + "/d=" + day);
    auto bytes = Base64Decode(b64);
    ASSERT_TRUE(bytes.ok());
    const std::string path = std::string("d=") + day + "/part-00000-duckdb.parquet";
    std::ofstream(root + "/" + path, std::ios::binary) << *bytes;
    adds += R"({"add":{"path":")" + path + R"(","partitionValues":{"d":")" + day + R"("},"size":)" +
            std::to_string(bytes->size()) +
            R"(,"modificationTime":1700000000000,"dataChange":true,"stats":"{\"numRecords\":)" +
            (day[9] == '1' ? "2" : "1") + R"(}"}})" + "\n";
  }
  const std::string schema =
      R"({"type":"struct","fields":[)"
      R"({"name":"id","type":"long","nullable":true,"metadata":{"delta.identity.start":1,"delta.identity.step":1,"delta.identity.highWaterMark":3,"delta.identity.allowExplicitInsert":false}},)"
      R"({"name":"ts","type":"timestamp","nullable":true,"metadata":{}},)"
      R"({"name":"a","type":"integer","nullable":true,"metadata":{}},)"
      R"({"name":"g","type":"integer","nullable":true,"metadata":{"delta.generationExpression":"a + 1"}},)"
      R"({"name":"s","type":"string","nullable":true,"metadata":{"CURRENT_DEFAULT":"'none'"}},)"
      R"js({"name":"d","type":"date","nullable":true,"metadata":{"delta.generationExpression":"CAST(ts AS DATE)"}}]})js";
  std::string escaped;
  for (char c : schema) escaped += c == '"' ? std::string("\\\"") : std::string(1, c);
  fs::create_directories(root + "/_delta_log");
  std::ofstream(root + "/_delta_log/00000000000000000000.json")
      << R"({"commitInfo":{"timestamp":1700000000000,"operation":"CREATE TABLE","operationParameters":{}}})"
      << "\n"
      << R"({"protocol":{"minReaderVersion":1,"minWriterVersion":7,"writerFeatures":["appendOnly","invariants","generatedColumns","identityColumns","allowColumnDefaults"]}})"
      << "\n"
      << R"({"metaData":{"id":"5b2c2a9e-0000-4000-8000-000000000002","format":{"provider":"parquet","options":{}},"schemaString":")"
      << escaped << R"(","partitionColumns":["d"],"configuration":{},"createdTime":1700000000000}})"
      << "\n"
      << adds;
  const std::string t = "delta.`" + root + "`";
  Connection con(db_);
  const std::vector<std::string> plan =
      Rows(con, "EXPLAIN SELECT a FROM " + t + " WHERE ts >= TIMESTAMP'2024-01-02 00:00:00'");
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_NE(plan[0].find("generatedPartitionFilters=[((d >= DATE '2024-01-02') OR (d IS NULL))]"),
            std::string::npos)
      << plan[0];
  EXPECT_NE(plan[0].find("files: 1 of 2 (partition pruning: 1 skipped"), std::string::npos)
      << plan[0];
  EXPECT_EQ(Rows(con, "SELECT a FROM " + t + " WHERE ts >= TIMESTAMP'2024-01-02 00:00:00'"),
            (std::vector<std::string>{"9|"}));
  ASSERT_TRUE(
      Exec(con, "INSERT INTO " + t + " (ts, a) VALUES (TIMESTAMP'2024-01-03 08:00:00', 11)").ok());
  EXPECT_EQ(HighWaterMark(root), 4);
  ASSERT_TRUE(
      Exec(con, "UPDATE " + t + " SET a = 50 WHERE ts >= TIMESTAMP'2024-01-02 00:00:00' AND a = 9")
          .ok());
  ASSERT_TRUE(Exec(con, "DELETE FROM " + t + " WHERE ts < TIMESTAMP'2024-01-01 12:00:00'").ok());
  ASSERT_TRUE(Exec(con, "MERGE INTO " + t +
                            " USING (SELECT TIMESTAMP'2024-01-01 20:00:00' AS k, 70 AS v UNION ALL"
                            " SELECT TIMESTAMP'2024-01-04 00:00:00', 80) s ON ts = s.k"
                            " WHEN MATCHED THEN UPDATE SET a = s.v"
                            " WHEN NOT MATCHED THEN INSERT (ts, a) VALUES (s.k, s.v)")
                  .ok());
  EXPECT_EQ(HighWaterMark(root), 5);
  EXPECT_EQ(Rows(con, "SELECT id, CAST(ts AS STRING), a, g, s, CAST(d AS STRING) FROM " + t +
                          " ORDER BY id"),
            (std::vector<std::string>{"2|2024-01-01 20:00:00|70|71|x|2024-01-01|",
                                      "3|2024-01-02 09:00:00|50|51|y|2024-01-02|",
                                      "4|2024-01-03 08:00:00|11|12|none|2024-01-03|",
                                      "5|2024-01-04 00:00:00|80|81|none|2024-01-04|"}));
  auto store = std::make_shared<LocalObjectStore>(root);
  for (int64_t v = 1; v <= 4; ++v) {
    auto bytes = store->Get(CommitKey(v));
    ASSERT_TRUE(bytes.ok()) << v;
    ValidateCommit(*bytes, CommitKey(v));
  }
}

}  // namespace
}  // namespace silt::delta

// ALTER TABLE … DROP FEATURE deletionVectors on a table silt made: every commit the procedure
// writes passes ValidateCommit, and the protocol ends as Delta's: (1, 7) with checkpointProtection
// after the fast drop, the legacy (1, 2) after TRUNCATE HISTORY — no reader feature either way.
// The commits of SHALLOW and DEEP clones pass ValidateCommit as well.
namespace silt::delta {
namespace {

namespace fs = std::filesystem;

TEST(RemoveFeatureTest, NormalizesLikeDelta) {
  Protocol dv;
  dv.min_reader_version = 3;
  dv.min_writer_version = 7;
  dv.reader_features = std::vector<std::string>{"deletionVectors"};
  dv.writer_features = std::vector<std::string>{"appendOnly", "invariants", "deletionVectors"};
  Protocol legacy;
  legacy.min_reader_version = 1;
  legacy.min_writer_version = 2;
  EXPECT_EQ(RemoveFeature(dv, "deletionVectors"), legacy);
  Protocol protected_p =
      RemoveFeature(WithFeatures(dv, {"checkpointProtection"}), "deletionVectors");
  EXPECT_EQ(protected_p.min_reader_version, 1);
  EXPECT_EQ(protected_p.min_writer_version, 7);
  EXPECT_FALSE(protected_p.reader_features);
  EXPECT_EQ(*protected_p.writer_features,
            (std::vector<std::string>{"appendOnly", "invariants", "checkpointProtection"}));
  // Legacy (1, 3) without checkConstraints is (1, 2); without invariants it needs features.
  Protocol three;
  three.min_reader_version = 1;
  three.min_writer_version = 3;
  EXPECT_EQ(RemoveFeature(three, "checkConstraints"), legacy);
  Protocol no_inv = RemoveFeature(three, "invariants");
  EXPECT_EQ(no_inv.min_writer_version, 7);
  EXPECT_EQ(*no_inv.writer_features, (std::vector<std::string>{"appendOnly", "checkConstraints"}));
}

// A warehouse in a temporary folder, a connection on it and a clock the tests move.
class DropFeatureLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "silt-dropfeature-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    clock_ = std::make_shared<ManualClock>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                               std::chrono::system_clock::now().time_since_epoch())
                                               .count());
    DatabaseOptions opts;
    opts.warehouse = dir_ + "/wh";
    opts.clock = clock_;
    opts.threads = 2;
    auto db = Database::Open(opts);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = *db;
    con_ = std::make_unique<Connection>(db_);
  }
  void TearDown() override {
    con_.reset();
    db_.reset();
    fs::remove_all(dir_);
  }
  Status Exec(const std::string& sql) { return con_->Query(sql).status(); }
  // The rows of `sql` as "v|v|…|" lines, sorted.
  std::vector<std::string> SortedRows(const std::string& sql) {
    std::vector<std::string> out;
    auto r = con_->Query(sql);
    EXPECT_TRUE(r.ok()) << sql << "\n" << r.status().ToString();
    if (!r.ok()) return out;
    for (size_t i = 0; i < (*r)->num_rows(); ++i) {
      std::string line;
      for (const Value& v : (*r)->Row(i)) line += v.ToString() + "|";
      out.push_back(line);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  // Every commit of `store` from `from` to `to` is there and passes ValidateCommit.
  void ValidateCommits(ObjectStore& store, int64_t from, int64_t to, const std::string& where) {
    for (int64_t v = from; v <= to; ++v) {
      auto bytes = store.Get(CommitKey(v));
      ASSERT_TRUE(bytes.ok()) << where << " " << v;
      ValidateCommit(*bytes, where + "/" + CommitKey(v));
    }
  }

  std::string dir_;
  std::shared_ptr<ManualClock> clock_;
  std::shared_ptr<Database> db_;
  std::unique_ptr<Connection> con_;
};

TEST_F(DropFeatureLogTest, DeletionVectorsDropValidatesAndDowngrades) {
  for (const char* name : {"fast", "trunc"}) {
    const std::string root = dir_ + "/" + name;
    const std::string t = "delta.`" + root + "`";
    ASSERT_TRUE(Exec("CREATE TABLE " + t +
                     " (id INT) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = "
                     "'true')")
                    .ok());
    ASSERT_TRUE(Exec("INSERT INTO " + t + " VALUES (1), (2), (3)").ok());
    ASSERT_TRUE(Exec("DELETE FROM " + t + " WHERE id = 2").ok());
    const bool fast = std::string(name) == "fast";
    if (fast) {
      Status st = Exec("ALTER TABLE " + t + " DROP FEATURE deletionVectors");
      ASSERT_TRUE(st.ok()) << st.ToString();
    } else {
      Status st = Exec("ALTER TABLE " + t + " DROP FEATURE deletionVectors TRUNCATE HISTORY");
      EXPECT_EQ(st.error_class(), "DELTA_FEATURE_DROP_WAIT_FOR_RETENTION_PERIOD");
      clock_->AdvanceHours(25);
      st = Exec("ALTER TABLE " + t + " DROP FEATURE deletionVectors TRUNCATE HISTORY");
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
    auto store = std::make_shared<LocalObjectStore>(root);
    auto snap = Snapshot::Load(store, std::nullopt);
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    const Protocol& p = (*snap)->protocol();
    EXPECT_EQ(p.min_reader_version, 1);
    EXPECT_FALSE(p.reader_features);
    if (fast) {
      EXPECT_EQ(p.min_writer_version, 7);
      EXPECT_EQ(*p.writer_features,
                (std::vector<std::string>{"appendOnly", "invariants", "checkpointProtection"}));
    } else {
      EXPECT_EQ(p.min_writer_version, 2);
      EXPECT_FALSE(p.writer_features);
    }
    for (const auto& f : (*snap)->files()) EXPECT_FALSE(f.deletion_vector) << f.path;
    int checked = 0;
    for (int64_t v = 0; v <= (*snap)->version(); ++v) {
      auto bytes = store->Get(CommitKey(v));
      if (!bytes.ok()) continue;  // truncated history
      ValidateCommit(*bytes, CommitKey(v));
      ++checked;
    }
    EXPECT_GT(checked, 0);
    EXPECT_TRUE(Exec("INSERT INTO " + t + " VALUES (4)").ok());
  }
  // Shallow and deep clones of a DV table (absolute paths and 'p' DVs, copied files), and a
  // DELETE on the shallow clone, write logs that validate too.
  const std::string src = "delta.`" + dir_ + "/csrc`";
  ASSERT_TRUE(Exec("CREATE TABLE " + src + " (id INT) USING DELTA").ok());
  ASSERT_TRUE(Exec("INSERT INTO " + src + " VALUES (1), (2), (3)").ok());
  ASSERT_TRUE(Exec("DELETE FROM " + src + " WHERE id = 2").ok());
  for (const char* kind : {"SHALLOW", "DEEP"}) {
    const std::string root = dir_ + "/c" + kind;
    const std::string t = "delta.`" + root + "`";
    Status st = Exec("CREATE TABLE " + t + " " + kind + " CLONE " + src);
    ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_TRUE(Exec("DELETE FROM " + t + " WHERE id = 3").ok());
    LocalObjectStore store(root);
    ValidateCommits(store, 0, 1, kind);
  }
}

// DROP FEATURE v2Checkpoint, rowTracking and domainMetadata: every commit validates, the last
// snapshot carries no trace of the feature and the protocol is the one Delta leaves.
TEST_F(DropFeatureLogTest, V2CheckpointRowTrackingAndDomainMetadataDrops) {
  // v2Checkpoint: a table whose log holds a V2 checkpoint.
  const std::string v2root = dir_ + "/v2";
  const std::string v2 = "delta.`" + v2root + "`";
  ASSERT_TRUE(Exec("CREATE TABLE " + v2 +
                   " (id INT) USING DELTA TBLPROPERTIES ('delta.checkpointPolicy' = 'v2', "
                   "'delta.checkpointInterval' = '1', 'delta.enableDeletionVectors' = 'false')")
                  .ok());
  ASSERT_TRUE(Exec("INSERT INTO " + v2 + " VALUES (1), (2)").ok());
  auto v2store = std::make_shared<LocalObjectStore>(v2root);
  auto before = Snapshot::Load(v2store);
  ASSERT_TRUE(before.ok());
  ASSERT_EQ((*before)->segment().checkpoint_parts.at(0).kind, LogFileKind::kUuidCheckpoint);
  Status st = Exec("ALTER TABLE " + v2 + " DROP FEATURE v2Checkpoint");
  ASSERT_TRUE(st.ok()) << st.ToString();
  auto after = Snapshot::Load(v2store);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ((*after)->segment().checkpoint_parts.at(0).kind, LogFileKind::kCheckpoint);
  EXPECT_EQ((*after)->protocol().min_reader_version, 1);
  EXPECT_FALSE((*after)->protocol().reader_features);
  EXPECT_FALSE(HasFeature((*after)->protocol(), "v2Checkpoint"));
  EXPECT_TRUE(HasFeature((*after)->protocol(), "checkpointProtection"));
  EXPECT_EQ((*after)->property("delta.checkpointPolicy"), "classic");
  ValidateCommits(*v2store, 0, (*after)->version(), "v2");

  // rowTracking, then domainMetadata.
  const std::string rtroot = dir_ + "/rt";
  const std::string rt = "delta.`" + rtroot + "`";
  ASSERT_TRUE(Exec("CREATE TABLE " + rt +
                   " (id INT) USING DELTA TBLPROPERTIES ('delta.enableRowTracking' = 'true', "
                   "'delta.enableDeletionVectors' = 'false')")
                  .ok());
  ASSERT_TRUE(Exec("INSERT INTO " + rt + " VALUES (1), (2)").ok());
  ASSERT_TRUE(Exec("INSERT INTO " + rt + " VALUES (3)").ok());
  auto rtstore = std::make_shared<LocalObjectStore>(rtroot);
  auto tracked = Snapshot::Load(rtstore);
  ASSERT_TRUE(tracked.ok());
  ASSERT_EQ((*tracked)->files().size(), 2u);
  for (const auto& f : (*tracked)->files()) ASSERT_TRUE(f.base_row_id) << f.path;
  ASSERT_TRUE((*tracked)->domains().count("delta.rowTracking"));
  st = Exec("ALTER TABLE " + rt + " DROP FEATURE rowTracking");
  ASSERT_TRUE(st.ok()) << st.ToString();
  auto untracked = Snapshot::Load(rtstore);
  ASSERT_TRUE(untracked.ok());
  ASSERT_EQ((*untracked)->files().size(), 2u);
  for (const auto& f : (*untracked)->files()) {
    EXPECT_FALSE(f.base_row_id) << f.path;
    EXPECT_FALSE(f.default_row_commit_version) << f.path;
  }
  EXPECT_TRUE((*untracked)->domains().empty());
  for (const char* k : {"delta.enableRowTracking", "delta.rowTrackingSuspended"})
    EXPECT_FALSE((*untracked)->property(k)) << k;
  EXPECT_FALSE(HasFeature((*untracked)->protocol(), "rowTracking"));
  EXPECT_TRUE(HasFeature((*untracked)->protocol(), "domainMetadata"));
  ASSERT_TRUE(Exec("ALTER TABLE " + rt + " DROP FEATURE domainMetadata").ok());
  ASSERT_TRUE(Exec("INSERT INTO " + rt + " VALUES (4)").ok());
  auto legacy = Snapshot::Load(rtstore);
  ASSERT_TRUE(legacy.ok());
  EXPECT_EQ((*legacy)->protocol().min_writer_version, 2);
  EXPECT_FALSE((*legacy)->protocol().writer_features);
  for (const auto& f : (*legacy)->files()) EXPECT_FALSE(f.base_row_id) << f.path;
  ValidateCommits(*rtstore, 0, (*legacy)->version(), "rt");

  // columnMapping: the rewritten files name their columns by the logical names (a renamed
  // column too), carry no field ids, and the schema has no column mapping metadata left.
  const std::string cmroot = dir_ + "/cm";
  const std::string cm = "delta.`" + cmroot + "`";
  ASSERT_TRUE(Exec("CREATE TABLE " + cm +
                   " (id INT, v STRING) USING DELTA TBLPROPERTIES ("
                   "'delta.columnMapping.mode' = 'name', 'delta.enableDeletionVectors' = "
                   "'false')")
                  .ok());
  ASSERT_TRUE(Exec("INSERT INTO " + cm + " VALUES (1, 'a'), (2, 'b')").ok());
  ASSERT_TRUE(Exec("ALTER TABLE " + cm + " RENAME COLUMN v TO w").ok());
  st = Exec("ALTER TABLE " + cm + " DROP FEATURE columnMapping");
  ASSERT_TRUE(st.ok()) << st.ToString();
  auto cmstore = std::make_shared<LocalObjectStore>(cmroot);
  auto plain = Snapshot::Load(cmstore);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ((*plain)->column_mapping_mode(), ColumnMappingMode::kNone);
  EXPECT_EQ(SerializeSchema((*plain)->schema()),
            R"({"type":"struct","fields":[{"name":"id","type":"integer","nullable":true,)"
            R"("metadata":{}},{"name":"w","type":"string","nullable":true,"metadata":{}}]})");
  EXPECT_FALSE((*plain)->protocol().reader_features);
  EXPECT_EQ((*plain)->protocol().min_reader_version, 1);
  ASSERT_EQ((*plain)->files().size(), 1u);
  auto pf = parquet::ParquetFile::Open(*cmstore->OpenRead((*plain)->files()[0].path));
  ASSERT_TRUE(pf.ok()) << pf.status().ToString();
  const Schema& file_schema = (*pf)->schema().schema();
  ASSERT_EQ(file_schema.size(), 2u);
  EXPECT_EQ(file_schema[0].name, "id");
  EXPECT_EQ(file_schema[1].name, "w");
  ValidateCommits(*cmstore, 0, (*plain)->version(), "cm");

  // A hand-built table with a domain no feature owns (Delta's "leaked" domain metadata): the
  // pre-downgrade removes it in a DOMAIN METADATA CLEANUP commit, then the feature goes.
  const std::string dmroot = dir_ + "/dm";
  auto dmstore = std::make_shared<LocalObjectStore>(dmroot);
  const std::string commit0 =
      R"({"commitInfo":{"timestamp":1700000000000,"operation":"CREATE TABLE","operationParameters":{},"isBlindAppend":true}}
{"protocol":{"minReaderVersion":1,"minWriterVersion":7,"writerFeatures":["domainMetadata"]}}
{"metaData":{"id":"6f9d3c1e-0000-4000-8000-000000000001","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":[],"configuration":{},"createdTime":1700000000000}}
{"domainMetadata":{"domain":"myApp.settings","configuration":"{}","removed":false}}
)";
  ASSERT_TRUE(dmstore->PutIfAbsent(CommitKey(0), commit0).ok());
  st = Exec("ALTER TABLE delta.`" + dmroot + "` DROP FEATURE domainMetadata");
  ASSERT_TRUE(st.ok()) << st.ToString();
  auto dm = Snapshot::Load(dmstore);
  ASSERT_TRUE(dm.ok()) << dm.status().ToString();
  EXPECT_EQ((*dm)->version(), 2);
  EXPECT_TRUE((*dm)->domains().empty());
  EXPECT_FALSE(HasFeature((*dm)->protocol(), "domainMetadata"));
  EXPECT_EQ((*dm)->protocol().min_writer_version, 1);
  auto cleanup = dmstore->Get(CommitKey(1));
  ASSERT_TRUE(cleanup.ok());
  EXPECT_NE(cleanup->find("\"DOMAIN METADATA CLEANUP\""), std::string::npos);
  EXPECT_NE(cleanup->find("\"domainMetadataRemovedCount\":1"), std::string::npos);
  EXPECT_NE(cleanup->find("\"removed\":true"), std::string::npos);
  ValidateCommits(*dmstore, 0, 2, "dm");
}

// DROP FEATURE columnMapping (then deletionVectors) on copies of tables Delta-Spark wrote: the
// rows read the same before and after, the new commits validate, and the protocol ends without
// reader features.
TEST_F(DropFeatureLogTest, ColumnMappingDropOnSparkTables) {
  const std::string conformance = testing::ConformanceDir();
  if (conformance.empty()) GTEST_SKIP() << "conformance data not found";
  for (const char* name : {"table-with-columnmapping-mode-id", "dv-with-columnmapping"}) {
    const std::string src = conformance + "/golden/" + name + "/delta";
    ASSERT_TRUE(fs::is_directory(src)) << src;
    const std::string root = dir_ + "/" + name;
    fs::copy(src, root, fs::copy_options::recursive);
    const std::string t = "delta.`" + root + "`";
    auto store = std::make_shared<LocalObjectStore>(root);
    auto before = Snapshot::Load(store);
    ASSERT_TRUE(before.ok()) << before.status().ToString();
    ASSERT_NE((*before)->column_mapping_mode(), ColumnMappingMode::kNone) << name;
    const std::vector<std::string> expected = SortedRows("SELECT * FROM " + t);
    ASSERT_FALSE(expected.empty()) << name;
    Status st = Exec("ALTER TABLE " + t + " DROP FEATURE columnMapping");
    ASSERT_TRUE(st.ok()) << name << ": " << st.ToString();
    EXPECT_EQ(SortedRows("SELECT * FROM " + t), expected) << name;
    if (HasFeature((*before)->protocol(), "deletionVectors")) {
      st = Exec("ALTER TABLE " + t + " DROP FEATURE deletionVectors");
      ASSERT_TRUE(st.ok()) << name << ": " << st.ToString();
      EXPECT_EQ(SortedRows("SELECT * FROM " + t), expected) << name;
    }
    auto after = Snapshot::Load(store);
    ASSERT_TRUE(after.ok()) << after.status().ToString();
    EXPECT_EQ((*after)->column_mapping_mode(), ColumnMappingMode::kNone) << name;
    EXPECT_FALSE(HasFeature((*after)->protocol(), "columnMapping")) << name;
    EXPECT_EQ((*after)->protocol().min_reader_version, 1) << name;
    EXPECT_FALSE((*after)->protocol().reader_features) << name;
    for (const Field& f : (*after)->schema())
      EXPECT_EQ(f.metadata_json.find("delta.columnMapping"), std::string::npos) << f.name;
    ValidateCommits(*store, (*before)->version() + 1, (*after)->version(), name);
  }
}

}  // namespace
}  // namespace silt::delta
