// The Arrow C data / C stream import (silt/arrow.h): arrays built here by hand from the Arrow C
// data interface specification alone (validity bitmaps LSB first, offsets, a struct's offset
// applying to its children, dictionary indices, time units), export → import round trips of every
// type, the errors, and temporary views over the imported rows feeding CREATE TABLE / INSERT.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "silt/arrow.h"
#include "silt/silt.h"

namespace {

// --- a minimal Arrow producer ---------------------------------------------------------------

struct SchemaData {
  std::string format, name;
  std::vector<ArrowSchema*> children;
};

void ReleaseTestSchema(ArrowSchema* s) {
  auto* d = static_cast<SchemaData*>(s->private_data);
  for (ArrowSchema* c : d->children) {
    if (c->release) c->release(c);
    delete c;
  }
  if (s->dictionary) {
    if (s->dictionary->release) s->dictionary->release(s->dictionary);
    delete s->dictionary;
  }
  delete d;
  s->release = nullptr;
}

ArrowSchema* NewSchema(std::string format, std::string name, bool nullable = true,
                       std::vector<ArrowSchema*> children = {}, ArrowSchema* dictionary = nullptr) {
  auto* d = new SchemaData{std::move(format), std::move(name), std::move(children)};
  auto* s = new ArrowSchema();
  s->format = d->format.c_str();
  s->name = d->name.c_str();
  s->metadata = nullptr;
  s->flags = nullable ? ARROW_FLAG_NULLABLE : 0;
  s->n_children = static_cast<int64_t>(d->children.size());
  s->children = d->children.empty() ? nullptr : d->children.data();
  s->dictionary = dictionary;
  s->release = ReleaseTestSchema;
  s->private_data = d;
  return s;
}

struct ArrayData {
  std::vector<std::vector<uint8_t>> buffers;
  std::vector<const void*> pointers;
  std::vector<ArrowArray*> children;
};

void ReleaseTestArray(ArrowArray* a) {
  auto* d = static_cast<ArrayData*>(a->private_data);
  for (ArrowArray* c : d->children) {
    if (c->release) c->release(c);
    delete c;
  }
  if (a->dictionary) {
    if (a->dictionary->release) a->dictionary->release(a->dictionary);
    delete a->dictionary;
  }
  delete d;
  a->release = nullptr;
}

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

// A validity (or boolean) bitmap from 0/1 flags, LSB first.
std::vector<uint8_t> Bits(const std::vector<int>& flags) {
  std::vector<uint8_t> out((flags.size() + 7) / 8, 0);
  for (size_t i = 0; i < flags.size(); ++i)
    if (flags[i]) out[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
  return out;
}

// buffers[0] empty = no validity bitmap (null pointer).
ArrowArray* NewArray(int64_t length, int64_t null_count, int64_t offset,
                     std::vector<std::vector<uint8_t>> buffers,
                     std::vector<ArrowArray*> children = {}, ArrowArray* dictionary = nullptr) {
  auto* d = new ArrayData{std::move(buffers), {}, std::move(children)};
  for (size_t i = 0; i < d->buffers.size(); ++i) {
    d->pointers.push_back(i == 0 && d->buffers[0].empty() ? nullptr : d->buffers[i].data());
  }
  auto* a = new ArrowArray();
  a->length = length;
  a->null_count = null_count;
  a->offset = offset;
  a->n_buffers = static_cast<int64_t>(d->pointers.size());
  a->buffers = d->pointers.data();
  a->n_children = static_cast<int64_t>(d->children.size());
  a->children = d->children.empty() ? nullptr : d->children.data();
  a->dictionary = dictionary;
  a->release = ReleaseTestArray;
  a->private_data = d;
  return a;
}

// A stream over one schema and a list of arrays (moved out one by one); counts its releases.
struct TestStream {
  ArrowSchema* schema;
  std::vector<ArrowArray*> arrays;
  size_t next = 0;
  int fail_at = -1;  // get_next fails with EIO at this array
  int* released;
};

ArrowArrayStream MakeStream(TestStream* t) {
  ArrowArrayStream s{};
  s.get_schema = [](ArrowArrayStream* st, ArrowSchema* out) {
    auto* t = static_cast<TestStream*>(st->private_data);
    *out = *t->schema;  // moved: the stream no longer owns it
    t->schema->release = nullptr;
    return 0;
  };
  s.get_next = [](ArrowArrayStream* st, ArrowArray* out) {
    auto* t = static_cast<TestStream*>(st->private_data);
    if (static_cast<int>(t->next) == t->fail_at) return 5;
    if (t->next == t->arrays.size()) {
      out->release = nullptr;
      return 0;
    }
    *out = *t->arrays[t->next];
    t->arrays[t->next]->release = nullptr;
    ++t->next;
    return 0;
  };
  s.get_last_error = [](ArrowArrayStream*) -> const char* { return "disk on fire"; };
  s.release = [](ArrowArrayStream* st) {
    auto* t = static_cast<TestStream*>(st->private_data);
    ++*t->released;
    if (t->schema->release) t->schema->release(t->schema);
    delete t->schema;
    for (ArrowArray* a : t->arrays) {
      if (a->release) a->release(a);
      delete a;
    }
    st->release = nullptr;
  };
  s.private_data = t;
  return s;
}

std::vector<std::string> Rows(const std::vector<silt::DataChunk>& chunks) {
  std::vector<std::string> out;
  for (const silt::DataChunk& c : chunks) {
    for (size_t r = 0; r < c.size(); ++r) {
      std::string row;
      for (size_t k = 0; k < c.columns.size(); ++k) {
        if (k) row += " | ";
        row += c.columns[k].GetValue(r).ToString();
      }
      out.push_back(row);
    }
  }
  return out;
}

class ArrowImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    silt::DatabaseOptions opts;
    opts.warehouse = "memory://arrow-import-test";
    opts.threads = 2;
    auto db = silt::Database::Open(opts);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    con_ = std::make_unique<silt::Connection>(*db);
  }
  std::vector<std::string> QueryRows(const std::string& sql) {
    auto r = con_->Query(sql);
    EXPECT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
    return r.ok() ? Rows((*r)->chunks()) : std::vector<std::string>{};
  }
  std::unique_ptr<silt::Connection> con_;
};

TEST_F(ArrowImportTest, HandBuiltArraysWithOffsetsNullsAndUnits) {
  // 4 rows of a struct sliced at offset 1 (5 physical rows), whose children have offsets of
  // their own on top.
  std::vector<ArrowSchema*> fields = {
      NewSchema("i", "i"),     NewSchema("b", "flag", false), NewSchema("u", "s"),
      NewSchema("U", "big"),   NewSchema("tsn:UTC", "ts"),    NewSchema("tss:", "tn"),
      NewSchema("L", "u64"),   NewSchema("tdm", "d64"),       NewSchema("d:5,2", "dec"),
      NewSchema("tDm", "dur"),
  };
  std::vector<ArrowArray*> columns;
  // i: child offset 2 → physical rows 3..6 of [_, _, _, 10, null, 30, 40]; validity bit 4 off.
  columns.push_back(
      NewArray(7, 1, 2, {Bits({1, 1, 1, 1, 0, 1, 1}), Bytes<int32_t>({0, 0, 0, 10, 999, 30, 40})}));
  // flag: bits 1..4 of 0,1,0,1,1 (no validity).
  columns.push_back(NewArray(5, 0, 0, {{}, Bits({0, 1, 0, 1, 1})}));
  // s: rows 1..4: "bb", null (its slot holds "junk"), "", "dddd".
  columns.push_back(
      NewArray(5, 1, 0,
               {Bits({1, 1, 0, 1, 1}), Bytes<int32_t>({0, 1, 3, 7, 7, 11}),
                Bytes<char>({'a', 'b', 'b', 'j', 'u', 'n', 'k', 'd', 'd', 'd', 'd'})}));
  // big: large strings.
  columns.push_back(NewArray(
      5, 0, 0, {{}, Bytes<int64_t>({0, 0, 1, 2, 3, 4}), Bytes<char>({'w', 'x', 'y', 'z'})}));
  // ts: nanoseconds, floored to microseconds (also below the epoch).
  columns.push_back(
      NewArray(5, 0, 0, {{}, Bytes<int64_t>({0, 1500, -1500, 1704164645123456789LL, 999})}));
  // tn: seconds.
  columns.push_back(NewArray(5, 0, 0, {{}, Bytes<int64_t>({0, 1, -1, 86400, 2})}));
  // u64: beyond int64.
  columns.push_back(
      NewArray(5, 0, 0, {{}, Bytes<uint64_t>({0, 1, 18446744073709551615ULL, 7, 8})}));
  // d64: milliseconds → days (floored).
  columns.push_back(NewArray(5, 0, 0, {{}, Bytes<int64_t>({0, 86400000, -1, 0, 172800001})}));
  // dec: 128-bit little-endian two's complement, scale 2.
  std::vector<int64_t> dec = {0, 0, 1234, 0, -5, -1, 0, 0, 99999, 0};
  columns.push_back(NewArray(5, 0, 0, {{}, Bytes<int64_t>(dec)}));
  // dur: milliseconds.
  columns.push_back(NewArray(5, 0, 0, {{}, Bytes<int64_t>({0, 1, -2, 3000, 86400000})}));
  ArrowSchema* schema = NewSchema("+s", "", false, fields);
  ArrowArray* array = NewArray(4, 0, 1, {{}}, columns);

  std::vector<silt::DataChunk> chunks;
  silt::Status st = silt::ImportArrowArray(schema, array, &chunks);
  ASSERT_TRUE(st.ok()) << st.ToString();
  auto cols = silt::ImportArrowSchema(schema);
  ASSERT_TRUE(cols.ok());
  std::vector<std::string> types;
  for (const silt::Field& f : *cols)
    types.push_back(f.name + " " + f.type->ToString() + (f.nullable ? "" : " not null"));
  EXPECT_EQ(types, (std::vector<std::string>{"i int", "flag boolean not null", "s string",
                                             "big string", "ts timestamp", "tn timestamp_ntz",
                                             "u64 decimal(20,0)", "d64 date", "dec decimal(5,2)",
                                             "dur interval day to second"}));
  ASSERT_EQ(chunks.size(), 1u);
  // Rendered through a SQL view, so the values show as Spark prints them.
  ASSERT_TRUE(silt::RegisterTemporaryView(*con_, "hand", *cols, std::move(chunks)).ok());
  EXPECT_EQ(QueryRows("SELECT i, flag, s, big, CAST(ts AS STRING), CAST(tn AS STRING), u64, "
                      "d64, dec, CAST(dur AS STRING) FROM hand"),
            (std::vector<std::string>{
                "10 | true | bb | w | 1970-01-01 00:00:00.000001 | 1970-01-01 00:00:01 | 1 | "
                "1970-01-02 | 12.34 | INTERVAL '0 00:00:00.001' DAY TO SECOND",
                "NULL | false | NULL | x | 1969-12-31 23:59:59.999998 | 1969-12-31 23:59:59 | "
                "18446744073709551615 | 1969-12-31 | -0.05 | INTERVAL '-0 00:00:00.002' DAY TO "
                "SECOND",
                "30 | true |  | y | 2024-01-02 03:04:05.123456 | 1970-01-02 00:00:00 | 7 | "
                "1970-01-01 | 0.00 | INTERVAL '0 00:00:03' DAY TO SECOND",
                "40 | true | dddd | z | 1970-01-01 00:00:00 | 1970-01-01 00:00:02 | 8 | "
                "1970-01-03 | 999.99 | INTERVAL '1 00:00:00' DAY TO SECOND"}));
  array->release(array);
  delete array;
  schema->release(schema);
  delete schema;
}

TEST_F(ArrowImportTest, DictionaryListsAndMaps) {
  // c: dictionary-encoded strings (int8 indices, a null index); l: a list sliced by offsets;
  // m: map<string, int>.
  ArrowSchema* dict_schema = NewSchema("u", "");
  std::vector<ArrowSchema*> fields = {
      NewSchema("c", "c", true, {}, dict_schema),
      NewSchema("+l", "l", true, {NewSchema("l", "element")}),
      NewSchema("+m", "m", true,
                {NewSchema("+s", "entries", false,
                           {NewSchema("u", "key", false), NewSchema("i", "value")})}),
  };
  ArrowArray* dict = NewArray(3, 0, 0,
                              {{},
                               Bytes<int32_t>({0, 3, 6, 9}),
                               Bytes<char>({'r', 'e', 'd', 'n', 'e', 'w', 'o', 'l', 'd'})});
  std::vector<ArrowArray*> columns;
  columns.push_back(
      NewArray(4, 1, 0, {Bits({1, 0, 1, 1}), Bytes<int8_t>({2, 99, 0, 2})}, {}, dict));
  // l: rows [1,2], null, [], [3]; the child has offset 1 (physical [_, 1, 2, 3]).
  columns.push_back(NewArray(4, 1, 0, {Bits({1, 0, 1, 1}), Bytes<int32_t>({0, 2, 2, 2, 3})},
                             {NewArray(3, 0, 1, {{}, Bytes<int64_t>({-1, 1, 2, 3})})}));
  // m: rows {a -> 1, b -> null}, {}, null, {c -> 3}; the entries struct has offset 1.
  ArrowArray* keys =
      NewArray(4, 0, 0, {{}, Bytes<int32_t>({0, 1, 2, 3, 4}), Bytes<char>({'z', 'a', 'b', 'c'})});
  ArrowArray* values = NewArray(4, 1, 0, {Bits({1, 1, 0, 1}), Bytes<int32_t>({0, 1, 0, 3})});
  ArrowArray* entries = NewArray(3, 0, 1, {{}}, {keys, values});
  columns.push_back(
      NewArray(4, 1, 0, {Bits({1, 1, 0, 1}), Bytes<int32_t>({0, 2, 2, 2, 3})}, {entries}));
  ArrowSchema* schema = NewSchema("+s", "", false, fields);
  ArrowArray* array = NewArray(4, 0, 0, {{}}, columns);
  int released = 0;
  TestStream t{schema, {array}, 0, -1, &released};
  ArrowArrayStream stream = MakeStream(&t);
  silt::Schema cols;
  std::vector<silt::DataChunk> chunks;
  silt::Status st = silt::ImportArrowStream(&stream, &cols, &chunks);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(released, 1);  // the import released the stream
  EXPECT_EQ(stream.release, nullptr);
  ASSERT_EQ(cols.size(), 3u);
  EXPECT_EQ(cols[0].type->ToString(), "string");  // decoded
  EXPECT_EQ(cols[1].type->ToString(), "array<bigint>");
  EXPECT_EQ(cols[2].type->ToString(), "map<string,int>");
  ASSERT_TRUE(silt::RegisterTemporaryView(*con_, "nested", cols, std::move(chunks)).ok());
  EXPECT_EQ(QueryRows("SELECT c, to_json(l), to_json(m) FROM nested"),
            (std::vector<std::string>{"old | [1,2] | {\"a\":1,\"b\":null}", "NULL | NULL | {}",
                                      "red | [] | NULL", "old | [3] | {\"c\":3}"}));
}

TEST_F(ArrowImportTest, RoundTripOfTheExportKeepsEveryValue) {
  const std::string sql =
      "SELECT * FROM VALUES "
      "(true, CAST(1 AS TINYINT), CAST(-2 AS SMALLINT), 3, CAST(4 AS BIGINT), CAST(1.5 AS FLOAT), "
      " 2.25D, CAST('-12.30' AS DECIMAL(5,2)), 'héllo', X'00FF', DATE'2024-01-02', "
      " TIMESTAMP'2024-01-02 03:04:05', TIMESTAMP_NTZ'2024-01-02 03:04:05', "
      " INTERVAL '1-2' YEAR TO MONTH, INTERVAL '1 02:03:04' DAY TO SECOND, array(1, NULL), "
      " map('k', named_struct('a', 1)), named_struct('x', array('p'), 'y', NULL)),"
      "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
      " NULL, NULL, NULL)"
      " AS t(bo, i1, i2, i4, i8, f4, f8, de, st, bi, da, ts, tn, ym, dt, l, m, s)";
  auto result = con_->Query(sql);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  std::shared_ptr<const silt::QueryResult> original(std::move(*result));
  ArrowArrayStream stream;
  ASSERT_TRUE(silt::ExportArrowStream(original, &stream).ok());
  silt::Schema cols;
  std::vector<silt::DataChunk> chunks;
  silt::Status st = silt::ImportArrowStream(&stream, &cols, &chunks);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(cols.size(), original->schema().size());
  for (size_t i = 0; i < cols.size(); ++i) {
    EXPECT_EQ(cols[i].name, original->schema()[i].name);
    EXPECT_TRUE(cols[i].type->Equals(*original->schema()[i].type)) << cols[i].type->ToString();
  }
  EXPECT_EQ(Rows(chunks), Rows(original->chunks()));
  EXPECT_EQ(Rows(chunks).size(), 2u);
}

TEST_F(ArrowImportTest, ErrorsAndTheStreamIsReleased) {
  int released = 0;
  {  // a format silt has no type for
    ArrowSchema* schema = NewSchema("+s", "", false, {NewSchema("e", "half")});
    TestStream t{schema, {}, 0, -1, &released};
    ArrowArrayStream stream = MakeStream(&t);
    silt::Schema cols;
    std::vector<silt::DataChunk> chunks;
    silt::Status st = silt::ImportArrowStream(&stream, &cols, &chunks);
    EXPECT_EQ(st.error_class(), "NOT_IMPLEMENTED");
    EXPECT_NE(st.message().find("'e'"), std::string::npos) << st.ToString();
    EXPECT_EQ(released, 1);
  }
  {  // the producer fails
    ArrowSchema* schema = NewSchema("+s", "", false, {NewSchema("i", "x")});
    TestStream t{schema, {}, 0, 0, &released};
    ArrowArrayStream stream = MakeStream(&t);
    silt::Schema cols;
    std::vector<silt::DataChunk> chunks;
    silt::Status st = silt::ImportArrowStream(&stream, &cols, &chunks);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("disk on fire"), std::string::npos) << st.ToString();
    EXPECT_EQ(released, 2);
  }
  {  // a dictionary index out of range; rows that are not a struct
    ArrowSchema* schema =
        NewSchema("+s", "", false, {NewSchema("s", "c", true, {}, NewSchema("u", ""))});
    ArrowArray* dict = NewArray(1, 0, 0, {{}, Bytes<int32_t>({0, 1}), Bytes<char>({'a'})});
    ArrowArray* array =
        NewArray(2, 0, 0, {{}}, {NewArray(2, 0, 0, {{}, Bytes<int16_t>({0, 1})}, {}, dict)});
    std::vector<silt::DataChunk> chunks;
    silt::Status st = silt::ImportArrowArray(schema, array, &chunks);
    EXPECT_EQ(st.error_class(), "INVALID_PARAMETER_VALUE") << st.ToString();
    EXPECT_FALSE(silt::ImportArrowSchema(schema->children[0]).ok());
    array->release(array);
    delete array;
    schema->release(schema);
    delete schema;
  }
}

TEST_F(ArrowImportTest, TemporaryViewsFeedCreateTableAndInsert) {
  auto source = con_->Query("SELECT id, CAST(id AS STRING) AS s FROM range(0, 200000)");
  ASSERT_TRUE(source.ok());
  std::shared_ptr<const silt::QueryResult> rows(std::move(*source));
  ArrowArrayStream stream;
  ASSERT_TRUE(silt::ExportArrowStream(rows, &stream).ok());
  silt::Schema cols;
  std::vector<silt::DataChunk> chunks;
  ASSERT_TRUE(silt::ImportArrowStream(&stream, &cols, &chunks).ok());
  EXPECT_GE(chunks.size(), static_cast<size_t>(200000 / silt::kArrowImportChunkRows));
  ASSERT_TRUE(silt::RegisterTemporaryView(*con_, "Src", cols, std::move(chunks)).ok());
  EXPECT_EQ(QueryRows("CREATE TABLE t USING DELTA AS SELECT * FROM src WHERE id < 1000"),
            std::vector<std::string>{});
  EXPECT_EQ(QueryRows("INSERT INTO t BY NAME SELECT s, id FROM src WHERE id >= 199000"),
            (std::vector<std::string>{"1000 | 1000"}));
  EXPECT_EQ(QueryRows("SELECT count(*), sum(id), max(s) FROM t"),
            (std::vector<std::string>{"2000 | 199999000 | 999"}));
  // Replaced by name; dropped.
  ASSERT_TRUE(silt::RegisterTemporaryView(*con_, "src", cols, {}).ok());
  EXPECT_EQ(QueryRows("SELECT count(*) FROM src"), (std::vector<std::string>{"0"}));
  ASSERT_TRUE(silt::DropTemporaryView(*con_, "SRC").ok());
  auto gone = con_->Query("SELECT * FROM src");
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.status().error_class(), "TABLE_OR_VIEW_NOT_FOUND");
  // A chunk that does not match the schema.
  std::vector<silt::DataChunk> bad(1);
  bad[0] = silt::DataChunk::FromSchema({{"x", silt::DataType::String(), true, "{}"}});
  EXPECT_FALSE(silt::RegisterTemporaryView(*con_, "bad", cols, std::move(bad)).ok());
}

}  // namespace
