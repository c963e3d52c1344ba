// The hostile-input corpus (issue 31): Parquet files, deletion vectors and Delta log JSON made to
// lie — truncated and garbled footers, absurd row/value counts and sizes, page headers claiming
// more than their bytes hold, dictionary indexes out of range, DV blobs with bad offsets, sizes,
// checksums and cardinalities, log lines with wrong types, huge numbers, missing fields and deep
// nesting. Each case runs in a forked child under an address-space limit (RLIMIT_AS at the
// child's size + 1 GiB; not under sanitizers, whose shadow memory needs terabytes of address
// space) and must end with its exact error class: a signal, an allocation failure or a success is
// a failure. The whole corpus runs in a few seconds.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "delta/actions.h"
#include "delta/deletion_vector.h"
#include "delta/stats_json.h"
#include "parquet/metadata.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "vector/generate.h"

namespace silt {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

constexpr uint64_t kHeadroomBytes = 1ULL << 30;

uint64_t VmSizeBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) * 1024;
  return 0;
}

struct Outcome {
  std::string cls;  // "OK", the error class, or "signal N" / "exit N"
  std::string message;
};

// Runs fn in a forked child under RLIMIT_AS = its size + kHeadroomBytes and a 60 s alarm.
Outcome RunBounded(const std::function<Status()>& fn) {
  int fds[2];
  if (pipe(fds) != 0) return {"pipe failed", ""};
  std::fflush(nullptr);  // the child must not print the parent's buffered output again
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    if (!kSanitized) {
      const rlim_t limit = VmSizeBytes() + kHeadroomBytes;
      rlimit rl{limit, limit};
      setrlimit(RLIMIT_AS, &rl);
    }
    alarm(60);
    Status s = fn();
    std::string out = s.ok() ? std::string("OK") : std::string(s.error_class());
    out += '\n';
    out += s.ToString();
    size_t done = 0;
    while (done < out.size()) {
      ssize_t n = write(fds[1], out.data() + done, out.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string got;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) return {"signal " + std::to_string(WTERMSIG(status)), got};
  if (WEXITSTATUS(status) != 0) return {"exit " + std::to_string(WEXITSTATUS(status)), got};
  size_t nl = got.find('\n');
  if (nl == std::string::npos) return {got, ""};
  return {got.substr(0, nl), got.substr(nl + 1)};
}

// Whether fn ends with `expected` ("OK" or an error class) in the bounded child.
::testing::AssertionResult Ends(const std::string& expected, const std::function<Status()>& fn) {
  Outcome o = RunBounded(fn);
  if (o.cls == expected) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "expected " << expected << ", got " << o.cls << ": " << o.message;
}

#define EXPECT_OUTCOME(expected_class, fn) EXPECT_TRUE(Ends(expected_class, fn))

// ------------------------------------------------------------------ Parquet

class StringSink : public WritableFile {
 public:
  explicit StringSink(std::string* out) : out_(out) {}
  Status Append(std::string_view d) override {
    out_->append(d);
    return Status::OK();
  }
  Status Close() override { return Status::OK(); }
  int64_t bytes_written() const override { return static_cast<int64_t>(out_->size()); }

 private:
  std::string* out_;
};

// One row group, one page per column, no page index or CRC: the pages are easy to find and edit.
std::string WriteParquet(const Schema& schema, const DataChunk& data,
                         parquet::CompressionCodec codec = parquet::CompressionCodec::UNCOMPRESSED,
                         bool dictionary = false) {
  std::string bytes;
  parquet::WriterOptions wo;
  wo.codec = codec;
  wo.dictionary = dictionary;
  wo.write_page_index = false;
  wo.write_page_crc = false;
  auto w = parquet::ParquetWriter::Make(std::make_unique<StringSink>(&bytes), schema, wo);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  if (!w.ok()) return bytes;
  EXPECT_TRUE((*w)->Write(data).ok());
  EXPECT_TRUE((*w)->Close().ok());
  return bytes;
}

Schema OneColumn(TypePtr type) { return Schema{Field{"a", std::move(type), true, "{}"}}; }

std::string SmallLongs(parquet::CompressionCodec codec = parquet::CompressionCodec::UNCOMPRESSED) {
  Schema s = OneColumn(DataType::Int64());
  return WriteParquet(s, GenerateData(s, 100, {}), codec);
}

std::string SmallStrings(
    bool dictionary, parquet::CompressionCodec codec = parquet::CompressionCodec::UNCOMPRESSED) {
  Schema s = OneColumn(DataType::String());
  DataChunk c = DataChunk::FromSchema(s);
  for (int i = 0; i < 100; ++i)
    c.columns[0].AppendString(i % 3 == 0 ? "apple" : (i % 3 == 1 ? "pear" : "plum"));
  return WriteParquet(s, c, codec, dictionary);
}

struct Split {
  std::string body;  // bytes before the footer (leading PAR1 included)
  parquet::FileMetaData md;
};

Split SplitFile(const std::string& file) {
  uint32_t len;
  std::memcpy(&len, file.data() + file.size() - 8, 4);
  Split s;
  s.body = file.substr(0, file.size() - 8 - len);
  Status st = parquet::DeserializeFileMetaData(
      reinterpret_cast<const uint8_t*>(file.data()) + s.body.size(), len, &s.md, {});
  EXPECT_TRUE(st.ok()) << st.ToString();
  return s;
}

std::string JoinFile(const std::string& body, const parquet::FileMetaData& md) {
  std::string footer;
  parquet::SerializeFileMetaData(md, &footer);
  uint32_t len = static_cast<uint32_t>(footer.size());
  std::string out = body + footer;
  out.append(reinterpret_cast<const char*>(&len), 4);
  out += "PAR1";
  return out;
}

std::string EditFooter(const std::string& file,
                       const std::function<void(parquet::FileMetaData&)>& edit) {
  Split s = SplitFile(file);
  edit(s.md);
  return JoinFile(s.body, s.md);
}

// Rewrites the header of the first page of the first column (the dictionary page when `dict`,
// else the first data page), moving the bytes after it and fixing the footer's offsets.
std::string EditPage(const std::string& file, bool dict,
                     const std::function<void(parquet::PageHeader&)>& edit) {
  Split s = SplitFile(file);
  parquet::ColumnMetaData& md = *s.md.row_groups[0].columns[0].meta_data;
  size_t pos = static_cast<size_t>(md.dictionary_page_offset && *md.dictionary_page_offset > 0 &&
                                           *md.dictionary_page_offset < md.data_page_offset
                                       ? *md.dictionary_page_offset
                                       : md.data_page_offset);
  for (;;) {
    parquet::PageHeader h;
    size_t consumed = 0;
    Status st =
        parquet::DeserializePageHeader(reinterpret_cast<const uint8_t*>(s.body.data()) + pos,
                                       s.body.size() - pos, &h, &consumed, {});
    EXPECT_TRUE(st.ok()) << st.ToString();
    if (!st.ok()) return file;
    const bool is_dict = h.type == parquet::PageType::DICTIONARY_PAGE;
    if (is_dict != dict) {
      pos += consumed + static_cast<size_t>(h.compressed_page_size);
      continue;
    }
    edit(h);
    std::string header;
    parquet::SerializePageHeader(h, &header);
    const int64_t delta = static_cast<int64_t>(header.size()) - static_cast<int64_t>(consumed);
    s.body = s.body.substr(0, pos) + header + s.body.substr(pos + consumed);
    md.total_compressed_size += delta;
    md.total_uncompressed_size += delta;
    if (is_dict) md.data_page_offset += delta;
    return JoinFile(s.body, s.md);
  }
}

// Opens the bytes and reads every row group: the whole reader's path.
Status ReadAllOf(const std::string& bytes) {
  auto pf = parquet::ParquetFile::Open(std::make_shared<BufferFile>(bytes, "hostile.parquet"));
  SILT_RETURN_NOT_OK(pf.status());
  for (int rg = 0; rg < (*pf)->num_row_groups(); ++rg) {
    DataChunk out;
    SILT_RETURN_NOT_OK((*pf)->ReadRowGroup(rg, {}, &out));
    DataChunk range;
    SILT_RETURN_NOT_OK((*pf)->ReadRowGroup(rg, {}, &range, 1, 3));
  }
  return Status::OK();
}

std::function<Status()> Read(std::string bytes) {
  return [b = std::move(bytes)] { return ReadAllOf(b); };
}

constexpr char kCorrupt[] = "SILT_PARQUET_CORRUPT";

TEST(HostileParquet, IntactFilesReadInTheHarness) {
  EXPECT_OUTCOME("OK", Read(SmallLongs()));
  EXPECT_OUTCOME("OK", Read(SmallStrings(true, parquet::CompressionCodec::SNAPPY)));
  EXPECT_OUTCOME("OK", Read(SmallLongs(parquet::CompressionCodec::ZSTD)));
  EXPECT_OUTCOME("OK", Read(SmallLongs(parquet::CompressionCodec::GZIP)));
}

// The issue's repro: a small file whose row group claims 2^40 rows aborted in Vector::Reserve.
TEST(HostileParquet, RowGroupClaimingTwoToTheFortyRows) {
  std::string f = EditFooter(SmallLongs(), [](parquet::FileMetaData& md) {
    md.row_groups[0].num_rows = int64_t{1} << 40;
    md.num_rows = int64_t{1} << 40;
  });
  EXPECT_OUTCOME(kCorrupt, Read(f));
  // The column chunk agreeing with the lie does not make it true: its bytes cannot hold them.
  std::string g = EditFooter(SmallLongs(), [](parquet::FileMetaData& md) {
    md.row_groups[0].num_rows = int64_t{1} << 40;
    md.row_groups[0].columns[0].meta_data->num_values = int64_t{1} << 40;
  });
  EXPECT_OUTCOME(kCorrupt, Read(g));
  // Every flavour of absurd count.
  for (int64_t rows : {int64_t{1} << 31, int64_t{1} << 62, INT64_MAX, int64_t{-1}}) {
    std::string h = EditFooter(
        SmallStrings(true), [&](parquet::FileMetaData& md) { md.row_groups[0].num_rows = rows; });
    EXPECT_OUTCOME(kCorrupt, Read(h)) << rows;
  }
}

TEST(HostileParquet, ManyRowGroupsWhoseCountsOverflow) {
  std::string f = EditFooter(SmallLongs(), [](parquet::FileMetaData& md) {
    for (int i = 0; i < 4; ++i) md.row_groups.push_back(md.row_groups[0]);
    for (auto& rg : md.row_groups) {
      rg.num_rows = INT64_MAX / 2;
      rg.columns[0].meta_data->num_values = INT64_MAX / 2;
    }
  });
  EXPECT_OUTCOME(kCorrupt, Read(f));
}

TEST(HostileParquet, ValueCountsAndChunkSizes) {
  for (int64_t v : {int64_t{-5}, int64_t{1} << 40}) {
    std::string f = EditFooter(SmallLongs(), [&](parquet::FileMetaData& md) {
      md.row_groups[0].columns[0].meta_data->num_values = v;
    });
    EXPECT_OUTCOME(kCorrupt, Read(f)) << v;
  }
  for (int64_t size : {int64_t{-1}, int64_t{1} << 40, INT64_MAX}) {
    std::string f = EditFooter(SmallLongs(), [&](parquet::FileMetaData& md) {
      md.row_groups[0].columns[0].meta_data->total_compressed_size = size;
    });
    EXPECT_OUTCOME(kCorrupt, Read(f)) << size;
  }
  for (int64_t off : {int64_t{-100}, int64_t{0}, int64_t{1} << 40, INT64_MAX}) {
    std::string f = EditFooter(SmallLongs(), [&](parquet::FileMetaData& md) {
      md.row_groups[0].columns[0].meta_data->data_page_offset = off;
    });
    EXPECT_OUTCOME(kCorrupt, Read(f)) << off;
  }
}

TEST(HostileParquet, TruncatedAndGarbledFooters) {
  const std::string good = SmallStrings(true, parquet::CompressionCodec::SNAPPY);
  for (size_t keep :
       {size_t{0}, size_t{3}, size_t{4}, size_t{11}, good.size() / 2, good.size() - 1}) {
    EXPECT_OUTCOME(kCorrupt, Read(good.substr(0, keep))) << keep;
  }
  // Footer length beyond the file, and lengths reaching into the data pages.
  for (uint32_t len : {0xFFFFFFFFu, 0x7FFFFFF0u, static_cast<uint32_t>(good.size() - 9), 1u}) {
    std::string b = good;
    std::memcpy(b.data() + b.size() - 8, &len, 4);
    EXPECT_OUTCOME(kCorrupt, Read(b)) << len;
  }
  // Garbage over the footer's bytes, position by position.
  Split s = SplitFile(good);
  const size_t footer_at = s.body.size(), footer_len = good.size() - 8 - footer_at;
  int failures = 0;
  for (size_t i = 0; i < footer_len; i += 7) {
    std::string b = good;
    b[footer_at + i] = static_cast<char>(0xFF);
    Outcome o = RunBounded(Read(b));
    // Some bytes (e.g. inside a statistics value) may be harmless; none may crash.
    EXPECT_TRUE(o.cls == "OK" || o.cls == kCorrupt || o.cls == "SILT_PARQUET_UNSUPPORTED" ||
                o.cls == "NOT_IMPLEMENTED" || o.cls == "SILT_PARQUET_PAGE_TOO_LARGE")
        << i << ": " << o.cls << " " << o.message;
    failures += o.cls != "OK";
  }
  EXPECT_GT(failures, 0);
}

TEST(HostileParquet, PageHeadersClaimingMoreThanTheirBytes) {
  using parquet::CompressionCodec;
  for (CompressionCodec codec :
       {CompressionCodec::UNCOMPRESSED, CompressionCodec::SNAPPY, CompressionCodec::GZIP,
        CompressionCodec::ZSTD, CompressionCodec::LZ4_RAW}) {
    // Within the reader's page limit but far beyond what the compressed bytes can expand to.
    std::string f = EditPage(SmallLongs(codec), false,
                             [](parquet::PageHeader& h) { h.uncompressed_page_size = 900 << 20; });
    EXPECT_OUTCOME(kCorrupt, Read(f)) << static_cast<int>(codec);
    // A few bytes off: the codec's own size check (item 7: SILT_PARQUET_CORRUPT, not CORRUPTION).
    std::string g = EditPage(SmallLongs(codec), false,
                             [](parquet::PageHeader& h) { h.uncompressed_page_size += 3; });
    EXPECT_OUTCOME(kCorrupt, Read(g)) << static_cast<int>(codec);
  }
  // Above the page limit: refused as unsupported, before any allocation.
  std::string big = EditPage(SmallLongs(), false,
                             [](parquet::PageHeader& h) { h.uncompressed_page_size = INT32_MAX; });
  EXPECT_OUTCOME("SILT_PARQUET_PAGE_TOO_LARGE", Read(big));
  for (int32_t v : {-1, INT32_MAX}) {
    std::string f =
        EditPage(SmallLongs(), false, [&](parquet::PageHeader& h) { h.compressed_page_size = v; });
    EXPECT_OUTCOME(kCorrupt, Read(f)) << v;
    std::string g = EditPage(SmallLongs(), false,
                             [&](parquet::PageHeader& h) { h.data_page_header->num_values = v; });
    EXPECT_OUTCOME(kCorrupt, Read(g)) << v;
  }
}

TEST(HostileParquet, DictionaryLies) {
  // A dictionary shorter than the indexes: every index must be checked.
  std::string f = EditPage(SmallStrings(true), true, [](parquet::PageHeader& h) {
    h.dictionary_page_header->num_values = 1;
  });
  EXPECT_OUTCOME(kCorrupt, Read(f));
  for (int32_t v : {-1, INT32_MAX, 1 << 20}) {
    std::string g = EditPage(SmallStrings(true), true, [&](parquet::PageHeader& h) {
      h.dictionary_page_header->num_values = v;
    });
    EXPECT_OUTCOME(kCorrupt, Read(g)) << v;
  }
  std::string z = EditPage(SmallStrings(true, parquet::CompressionCodec::ZSTD), true,
                           [](parquet::PageHeader& h) { h.uncompressed_page_size = 500 << 20; });
  EXPECT_OUTCOME(kCorrupt, Read(z));
}

// ------------------------------------------------------------------ deletion vectors

struct DvCase {
  std::string file;
  delta::DeletionVectorDescriptor descriptor;
};

DvCase MakeDv() {
  delta::DeletionVector dv;
  EXPECT_TRUE(dv.AddRange(3, 40).ok());
  EXPECT_TRUE(dv.Add(1000000).ok());
  auto f = delta::EncodeNewDvFile({&dv});
  EXPECT_TRUE(f.ok()) << f.status().ToString();
  return {f->bytes, f->descriptors[0]};
}

std::function<Status()> ReadDvOf(std::string file, delta::DeletionVectorDescriptor d) {
  return [file = std::move(file), d = std::move(d)]() -> Status {
    auto opener = [&](const std::string& path) -> Result<std::shared_ptr<RandomAccessFile>> {
      return std::shared_ptr<RandomAccessFile>(std::make_shared<BufferFile>(file, path));
    };
    return delta::ReadDv(d, "/table", opener).status();
  };
}

TEST(HostileDeletionVector, DescriptorsAndFiles) {
  DvCase good = MakeDv();
  EXPECT_OUTCOME("OK", ReadDvOf(good.file, good.descriptor));
  auto with = [&](const std::function<void(delta::DeletionVectorDescriptor&)>& edit) {
    delta::DeletionVectorDescriptor d = good.descriptor;
    edit(d);
    return d;
  };
  EXPECT_OUTCOME("DELTA_INVALID_DELETION_VECTOR",
                 ReadDvOf(good.file, with([](auto& d) { d.offset = INT32_MAX; })));
  EXPECT_OUTCOME("DELTA_INVALID_DELETION_VECTOR",
                 ReadDvOf(good.file, with([](auto& d) { d.size_in_bytes = INT32_MAX; })));
  EXPECT_OUTCOME("DELTA_INVALID_DELETION_VECTOR",
                 ReadDvOf(good.file, with([](auto& d) { d.size_in_bytes = -1; })));
  EXPECT_OUTCOME("DELTA_INVALID_DELETION_VECTOR",
                 ReadDvOf(good.file, with([](auto& d) { d.offset = 0; })));
  EXPECT_OUTCOME("DELTA_DELETION_VECTOR_SIZE_MISMATCH",
                 ReadDvOf(good.file, with([](auto& d) { d.size_in_bytes -= 1; })));
  EXPECT_OUTCOME("DELTA_DELETION_VECTOR_CARDINALITY_MISMATCH",
                 ReadDvOf(good.file, with([](auto& d) { d.cardinality = INT64_MAX; })));
  EXPECT_OUTCOME("DELTA_INVALID_DELETION_VECTOR",
                 ReadDvOf(good.file.substr(0, good.file.size() - 3), good.descriptor));
  // A flipped bitmap byte: the CRC catches it.
  std::string flipped = good.file;
  flipped[12] = static_cast<char>(flipped[12] ^ 0x40);
  EXPECT_OUTCOME("DELTA_DELETION_VECTOR_CHECKSUM_MISMATCH", ReadDvOf(flipped, good.descriptor));
}

std::function<Status()> DeserializeDv(std::string bytes) {
  return [b = std::move(bytes)] { return delta::DeletionVector::Deserialize(b).status(); };
}

std::string Le32(uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
std::string Le64(uint64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); }

TEST(HostileDeletionVector, RoaringBlobs) {
  const std::string magic = Le32(delta::kPortableDvMagic);
  // Bucket counts far beyond the bytes, then a bucket whose container count lies.
  EXPECT_OUTCOME("DELTA_INVALID_DELETION_VECTOR", DeserializeDv(magic + Le64(uint64_t{1} << 62)));
  EXPECT_OUTCOME("DELTA_INVALID_DELETION_VECTOR", DeserializeDv(magic + Le64(UINT64_MAX)));
  EXPECT_OUTCOME("DELTA_INVALID_DELETION_VECTOR",
                 DeserializeDv(magic + Le64(1) + Le32(0) + Le32(0x3B30) + Le32(0xFFFF)));
  EXPECT_OUTCOME("DELTA_INVALID_DELETION_VECTOR",
                 DeserializeDv(magic + Le64(1) + Le32(0) + Le32(12346) + Le32(0x7FFFFFFF) +
                               std::string(64, '\xFF')));
  EXPECT_OUTCOME("DELTA_INVALID_DELETION_VECTOR",
                 DeserializeDv(Le32(delta::kNativeDvMagic) + Le32(0x7FFFFFFF)));
  EXPECT_OUTCOME("DELTA_INVALID_DELETION_VECTOR", DeserializeDv("abc"));
}

// ------------------------------------------------------------------ the Delta log

std::function<Status()> ParseLog(std::string bytes) {
  return [b = std::move(bytes)] {
    std::vector<delta::Action> actions;
    return delta::ParseCommit(b, &actions, "00000000000000000007.json");
  };
}

TEST(HostileLog, CommitLines) {
  const std::string add_head = R"({"add":{"path":"a.parquet","partitionValues":{},"size":)";
  EXPECT_OUTCOME("OK", ParseLog(add_head + R"(10,"modificationTime":1,"dataChange":true}})"));
  // Wrong types, huge numbers, missing fields.
  const char* bad_lines[] = {
      R"({"add":{"path":"a.parquet","partitionValues":{},"size":"ten","modificationTime":1,"dataChange":true}})",
      R"({"add":{"path":"a.parquet","partitionValues":{},"size":1e300,"modificationTime":1,"dataChange":true}})",
      R"({"add":{"path":"a.parquet","partitionValues":{},"size":99999999999999999999999,"modificationTime":1,"dataChange":true}})",
      R"({"add":{"partitionValues":{},"size":10,"modificationTime":1,"dataChange":true}})",
      R"({"add":{"path":7,"partitionValues":{},"size":10,"modificationTime":1,"dataChange":true}})",
      R"({"add":{"path":"a.parquet","partitionValues":[],"size":10,"modificationTime":1,"dataChange":true}})",
      R"({"add":{"path":"a.parquet","partitionValues":{},"size":-10,"modificationTime":1,"dataChange":true}})",
      R"({"cdc":{"path":"c.parquet","partitionValues":{},"size":-1,"dataChange":false}})",
      R"({"add":{"path":"a.parquet","partitionValues":{},"size":10,"modificationTime":1,"dataChange":true,"deletionVector":{"storageType":"u","pathOrInlineDv":"ab","offset":1,"sizeInBytes":34,"cardinality":-1}}})",
      R"({"add":{"path":"a.parquet","partitionValues":{},"size":10,"modificationTime":1,"dataChange":true,"deletionVector":{"storageType":"u","pathOrInlineDv":"ab","offset":1,"sizeInBytes":-34,"cardinality":1}}})",
      R"({"add":{"path":"a.parquet","partitionValues":{},"size":10,"modificationTime":1,"dataChange":true,"deletionVector":{"storageType":"u","pathOrInlineDv":"ab","offset":-1,"sizeInBytes":34,"cardinality":1}}})",
      R"({"protocol":{"minReaderVersion":"3","minWriterVersion":7}})",
      R"({"metaData":{"id":1}})",
      R"({"add":)",
      "\xFF\xFE{}",
  };
  for (const char* line : bad_lines) {
    Outcome o = RunBounded(ParseLog(line));
    EXPECT_EQ(o.cls, delta::kInvalidCommitFileClass) << line << "\n" << o.message;
  }
  // Deep nesting, long lines.
  std::string deep =
      R"({"commitInfo":{"x":)" + std::string(100000, '[') + std::string(100000, ']') + "}}";
  EXPECT_OUTCOME(delta::kInvalidCommitFileClass, ParseLog(deep));
  std::string deep_obj;
  for (int i = 0; i < 50000; ++i) deep_obj += R"({"a":)";
  deep_obj += "1" + std::string(50000, '}');
  EXPECT_OUTCOME(delta::kInvalidCommitFileClass, ParseLog(R"({"commitInfo":)" + deep_obj + "}"));
}

std::function<Status()> ParseStatsOf(std::string json) {
  return [j = std::move(json)] {
    return delta::ParseStats(j, Schema{Field{"a", DataType::Int64(), true, "{}"}}).status();
  };
}

TEST(HostileLog, Stats) {
  EXPECT_OUTCOME(
      "OK", ParseStatsOf(
                R"({"numRecords":3,"minValues":{"a":1},"maxValues":{"a":2},"nullCount":{"a":0}})"));
  EXPECT_OUTCOME("DELTA_INVALID_STATS", ParseStatsOf(R"({"numRecords":-3})"));
  EXPECT_OUTCOME("DELTA_INVALID_STATS", ParseStatsOf(R"({"numRecords":1e300})"));
  EXPECT_OUTCOME("DELTA_INVALID_STATS", ParseStatsOf(R"({"numRecords":"many"})"));
  EXPECT_OUTCOME("DELTA_INVALID_STATS", ParseStatsOf("{" + std::string(100000, '[')));
}

}  // namespace
}  // namespace silt
