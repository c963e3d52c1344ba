#include "io/object_store.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "common/clock.h"
#include "common/thread_pool.h"
#include "io/azure_blob_store.h"
#include "io/local_object_store.h"
#include "io/memory_object_store.h"
#include "io/object_store_factory.h"
#include "io/s3_object_store.h"
#include "support/fault_injecting_object_store.h"
#include "support/wall_clock.h"

namespace silt {
namespace {

namespace fs = std::filesystem;

// The value of an OK result; a failure (and a default value) otherwise.
template <typename T>
T Must(Result<T> r) {
  if (!r.ok()) {
    ADD_FAILURE() << r.status().ToString();
    return T{};
  }
  return r.MoveValue();
}

std::string MakeTempDir() {
  char tmpl[] = "/tmp/silt_store_test_XXXXXX";
  char* dir = ::mkdtemp(tmpl);
  EXPECT_NE(dir, nullptr);
  return dir ? dir : "";
}

std::string Pattern(size_t n, uint32_t seed = 1) {
  std::string s(n, '\0');
  uint32_t x = seed;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    s[i] = static_cast<char>(x >> 24);
  }
  return s;
}

bool IsHidden(const std::string& key) {
  size_t slash = key.rfind('/');
  return key[slash == std::string::npos ? 0 : slash + 1] == '.';
}

std::vector<std::string> Keys(const std::vector<ObjectMeta>& metas) {
  std::vector<std::string> keys;
  for (const auto& m : metas) keys.push_back(m.key);
  return keys;
}

// ListRecursive as "key" / "key/" (directories) strings.
std::vector<std::string> Walk(ObjectStore& store, const std::string& dir) {
  std::vector<std::string> out;
  Status st = store.ListRecursive(dir, [&](const ObjectMeta& m) {
    out.push_back(m.is_dir ? m.key + "/" : m.key);
    return Status::OK();
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

std::vector<std::string> WalkObjects(ObjectStore& store, const std::string& dir) {
  std::vector<std::string> out;
  for (auto& k : Walk(store, dir))
    if (k.back() != '/') out.push_back(k);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The conformance suite: every ObjectStore implementation must pass it.

struct StoreKind {
  std::string name;
  bool has_dirs;  // real (possibly empty) directories
  std::function<std::shared_ptr<ObjectStore>(const std::string& tmp_dir)> make;
  bool flat_namespace = false;  // "a" and "a/b" may both be objects (cloud blob stores)
  // s3rver (the S3 emulator) drops a delimiter listing's CommonPrefixes whose objects all lie
  // two or more levels down (docs/cloud-storage.md); real S3 does not.
  bool shallow_common_prefixes = false;
};

// The Azure stores run when test/cloud/run.sh started Azurite (SILT_TEST_AZURE=1 and the
// emulator's endpoint in AZURE_STORAGE_ENDPOINT); a fresh prefix or container per test.
bool AzureEmulatorAvailable() {
  const char* v = std::getenv("SILT_TEST_AZURE");
  return v != nullptr && std::string(v) == "1";
}

std::string UniqueAzureName(const char* what) {
  static std::atomic<int> counter{0};
  return std::string(what) + "-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
}

void AddAzureStores(std::vector<StoreKind>* kinds) {
  if (!AzureEmulatorAvailable()) return;
  // A table-like prefix in a shared container; objects outside it must stay invisible.
  kinds->push_back({"AzurePrefix", false,
                    [](const std::string&) {
                      auto container = Must(AzureBlobStore::Open("az://conformance"));
                      EXPECT_TRUE(container->CreateContainer().ok());
                      std::string name = UniqueAzureName("t");
                      EXPECT_TRUE(container->Put(name + "-sibling/f", "x").ok());
                      EXPECT_TRUE(container->Put(name + "x", "x").ok());
                      return Must(OpenObjectStore("az://conformance/" + name, WallClock()));
                    },
                    true});
  // A whole container, through the abfss:// form users paste (the endpoint comes from the
  // environment).
  kinds->push_back(
      {"AzureContainer", false,
       [](const std::string&) {
         std::string container = UniqueAzureName("c");
         auto store = Must(OpenObjectStore(
             "abfss://" + container + "@devstoreaccount1.dfs.core.windows.net", WallClock()));
         auto* azure = dynamic_cast<AzureBlobStore*>(store.get());
         EXPECT_NE(azure, nullptr);
         if (azure != nullptr) {
           EXPECT_TRUE(azure->CreateContainer().ok());
         }
         return store;
       },
       true});
}

// The S3 stores run when test/cloud/run-s3.sh started the S3 emulator (SILT_TEST_S3=1, its
// endpoint and keys in the AWS_* environment); a fresh prefix or bucket per test.
void AddS3Stores(std::vector<StoreKind>* kinds) {
  const char* v = std::getenv("SILT_TEST_S3");
  if (v == nullptr || std::string(v) != "1") return;
  // A table-like prefix in a shared bucket; objects outside it must stay invisible.
  kinds->push_back({"S3Prefix", false,
                    [](const std::string&) {
                      auto bucket = Must(S3ObjectStore::Open("s3://conformance"));
                      EXPECT_TRUE(bucket->CreateBucket().ok());
                      std::string name = UniqueAzureName("t");
                      EXPECT_TRUE(bucket->Put(name + "-sibling/f", "x").ok());
                      EXPECT_TRUE(bucket->Put(name + "x", "x").ok());
                      return Must(OpenObjectStore("s3://conformance/" + name, WallClock()));
                    },
                    true, true});
  // A whole bucket, through the s3a:// form.
  kinds->push_back({"S3Bucket", false,
                    [](const std::string&) {
                      std::string bucket = UniqueAzureName("b");
                      auto store = Must(OpenObjectStore("s3a://" + bucket, WallClock()));
                      auto* s3 = dynamic_cast<S3ObjectStore*>(store.get());
                      EXPECT_NE(s3, nullptr);
                      if (s3 != nullptr) {
                        EXPECT_TRUE(s3->CreateBucket().ok());
                      }
                      return store;
                    },
                    true, true});
}

void PrintTo(const StoreKind& kind, std::ostream* os) { *os << kind.name; }

std::vector<StoreKind> AllStores() {
  std::vector<StoreKind> kinds = {
      {"Local", true,
       [](const std::string& d) { return std::make_shared<LocalObjectStore>(d + "/root"); }},
      {"InMemory", false,
       [](const std::string&) { return std::make_shared<InMemoryObjectStore>(WallClock()); }},
      {"FaultInjectingLocal", true,
       [](const std::string& d) {
         return std::make_shared<FaultInjectingObjectStore>(
             std::make_shared<LocalObjectStore>(d + "/root"));
       }},
      {"FaultInjectingInMemory", false,
       [](const std::string&) {
         return std::make_shared<FaultInjectingObjectStore>(
             std::make_shared<InMemoryObjectStore>(WallClock()));
       }},
      // The factory's stores (io/object_store_factory.h): a file: URI and a named memory store
      // seen from a subdirectory (the view a memory://<name>/<table> location gets).
      {"FactoryFileUri", true,
       [](const std::string& d) {
         return Must(OpenObjectStore("file://" + d + "/root", WallClock()));
       }},
      {"FactoryMemorySubtree", false,
       [](const std::string&) {
         static std::atomic<int> counter{0};
         std::string name = "conformance-" + std::to_string(++counter);
         // Objects outside the subtree must stay invisible to it.
         auto whole = Must(MemoryStore(name, WallClock()));
         EXPECT_TRUE(whole->Put("outside", "x").ok());
         EXPECT_TRUE(whole->Put("tables/sibling/f", "x").ok());
         auto store = Must(OpenObjectStore("memory://" + name + "/tables/t", WallClock()));
         DropMemoryStore(name);  // the view keeps the store alive
         return store;
       }},
  };
  AddAzureStores(&kinds);
  AddS3Stores(&kinds);
  return kinds;
}

class ObjectStoreConformance : public ::testing::TestWithParam<StoreKind> {
 protected:
  void SetUp() override {
    tmp_ = MakeTempDir();
    store_ = GetParam().make(tmp_);
  }
  void TearDown() override {
    store_.reset();
    std::error_code ec;
    fs::remove_all(tmp_, ec);
  }
  void PutOk(const std::string& key, std::string_view data = "x") {
    Status st = store_->Put(key, data);
    ASSERT_TRUE(st.ok()) << key << ": " << st.ToString();
  }
  std::string tmp_;
  std::shared_ptr<ObjectStore> store_;
};

TEST_P(ObjectStoreConformance, PutGetHead) {
  int64_t before = SystemClock().NowMillis();
  PutOk("a/b/c.json", "hello");
  int64_t after = SystemClock().NowMillis();
  EXPECT_EQ(*store_->Get("a/b/c.json"), "hello");
  auto head = store_->Head("a/b/c.json");
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->key, "a/b/c.json");
  EXPECT_EQ(head->size, 5);
  EXPECT_FALSE(head->is_dir);
  // File systems keep coarse times; allow slack either side.
  EXPECT_GE(head->modification_time_ms, before - 2000);
  EXPECT_LE(head->modification_time_ms, after + 2000);
  auto listed = store_->ListFrom("a/b/");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0], *head);
}

TEST_P(ObjectStoreConformance, MissingObjectsAreNotFoundWithTheKey) {
  PutOk("dir/present");
  for (const std::string key : {"absent", "dir/absent", "nodir/absent", "dir", "dir/present/x"}) {
    auto head = store_->Head(key);
    ASSERT_FALSE(head.ok()) << key;
    EXPECT_TRUE(head.status().IsNotFound()) << key << ": " << head.status().ToString();
    EXPECT_EQ(head.status().error_class(), kErrorFileNotFound);
    EXPECT_NE(head.status().message().find(key), std::string_view::npos);
    EXPECT_TRUE(store_->Get(key).status().IsNotFound()) << key;
    EXPECT_TRUE(store_->OpenRead(key).status().IsNotFound()) << key;
  }
}

TEST_P(ObjectStoreConformance, PutOverwritesAndOpenHandlesKeepTheirBytes) {
  PutOk("k", "first version");
  auto old_handle = store_->OpenRead("k");
  ASSERT_TRUE(old_handle.ok());
  PutOk("k", "second");
  EXPECT_EQ(*store_->Get("k"), "second");
  EXPECT_EQ(store_->Head("k")->size, 6);
  std::string buf(5, '\0');
  ASSERT_TRUE((*old_handle)->ReadAt(0, 5, reinterpret_cast<uint8_t*>(buf.data())).ok());
  EXPECT_EQ(buf, "first");
}

// A hint (no fsync on local disk) still replaces the object atomically, and stages no visible
// temp file.
TEST_P(ObjectStoreConformance, PutHintCreatesAndReplaces) {
  ASSERT_TRUE(store_->PutHint("_delta_log/_last_vacuum_info", "{\"a\":1}").ok());
  EXPECT_EQ(*store_->Get("_delta_log/_last_vacuum_info"), "{\"a\":1}");
  ASSERT_TRUE(store_->PutHint("_delta_log/_last_vacuum_info", "{}").ok());
  EXPECT_EQ(*store_->Get("_delta_log/_last_vacuum_info"), "{}");
  auto listed = store_->ListFrom("_delta_log/");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].key, "_delta_log/_last_vacuum_info");
}

TEST_P(ObjectStoreConformance, EmptyObjects) {
  PutOk("empty", "");
  EXPECT_EQ(*store_->Get("empty"), "");
  EXPECT_EQ(store_->Head("empty")->size, 0);
  auto f = store_->OpenRead("empty");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)->size(), 0);
  uint8_t b;
  EXPECT_TRUE((*f)->ReadAt(0, 0, &b).ok());
  EXPECT_FALSE((*f)->ReadAt(0, 1, &b).ok());
  ASSERT_TRUE(store_->PutIfAbsent("empty2", "").ok());
  EXPECT_EQ(store_->Head("empty2")->size, 0);
}

TEST_P(ObjectStoreConformance, RangedReads) {
  std::string data = Pattern(10000);
  PutOk("r/data.bin", data);
  auto f = store_->OpenRead("r/data.bin");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)->size(), 10000);
  EXPECT_NE((*f)->name().find("data.bin"), std::string::npos);
  for (auto [off, n] : std::vector<std::pair<int64_t, int64_t>>{
           {0, 1}, {0, 10000}, {9999, 1}, {1234, 4321}, {5000, 0}, {10000, 0}}) {
    std::string buf(static_cast<size_t>(n), '\0');
    ASSERT_TRUE((*f)->ReadAt(off, n, reinterpret_cast<uint8_t*>(buf.data())).ok()) << off;
    EXPECT_EQ(buf, data.substr(static_cast<size_t>(off), static_cast<size_t>(n)));
  }
  std::string buf(10, '\0');
  auto* out = reinterpret_cast<uint8_t*>(buf.data());
  EXPECT_EQ((*f)->ReadAt(9995, 10, out).code(), StatusCode::kIoError);
  EXPECT_FALSE((*f)->ReadAt(-1, 1, out).ok());
  EXPECT_FALSE((*f)->ReadAt(10001, 0, out).ok());
}

TEST_P(ObjectStoreConformance, ListFromSemantics) {
  const std::string log = "_delta_log/";
  for (int v = 0; v <= 5; ++v) {
    char name[64];
    std::snprintf(name, sizeof(name), "%020d.json", v);
    PutOk(log + name, std::string(static_cast<size_t>(v + 1), 'j'));
  }
  PutOk(log + "00000000000000000003.checkpoint.parquet", "cp");
  PutOk(log + "_last_checkpoint", "{}");
  PutOk(log + "_sidecars/s.parquet", "side");
  PutOk(log + "_staged_commits/00000000000000000006.uuid.json", "st");
  PutOk("part-0.parquet");

  auto from3 = store_->ListFrom(log + "00000000000000000003");
  ASSERT_TRUE(from3.ok()) << from3.status().ToString();
  EXPECT_EQ(Keys(*from3), (std::vector<std::string>{
                              log + "00000000000000000003.checkpoint.parquet",
                              log + "00000000000000000003.json", log + "00000000000000000004.json",
                              log + "00000000000000000005.json", log + "_last_checkpoint"}));
  EXPECT_EQ((*from3)[1].size, 4);
  // The start key itself is included (>=).
  auto from4 = store_->ListFrom(log + "00000000000000000004.json");
  EXPECT_EQ(Keys(*from4), (std::vector<std::string>{log + "00000000000000000004.json",
                                                    log + "00000000000000000005.json",
                                                    log + "_last_checkpoint"}));
  // A trailing '/' lists the whole directory; subdirectories are not reported.
  auto all = store_->ListFrom(log);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 8u);
  EXPECT_TRUE(
      std::is_sorted(all->begin(), all->end(), [](auto& a, auto& b) { return a.key < b.key; }));
  for (auto& m : *all) EXPECT_EQ(m.key.find('/', log.size()), std::string::npos) << m.key;
  // The root: objects only, not the _delta_log directory.
  EXPECT_EQ(Keys(*store_->ListFrom("")), std::vector<std::string>{"part-0.parquet"});
  EXPECT_EQ(Keys(*store_->ListFrom("_delta_log")), std::vector<std::string>{"part-0.parquet"});
  EXPECT_TRUE(store_->ListFrom(log + "zzz")->empty());
  EXPECT_TRUE(store_->ListFrom("missing/")->empty());
  EXPECT_TRUE(store_->ListFrom("missing/deeper/00000000000000000000.json")->empty());
  EXPECT_TRUE(store_->ListFrom("part-0.parquet/")->empty());  // a file is no directory
}

TEST_P(ObjectStoreConformance, ListingOrderIsBytewise) {
  // Names that a prefix-unaware or locale-aware sort would misorder.
  std::vector<std::string> names = {"a", "a-b", "a.b",      "a0", "aB", "a_",
                                    "b", "B",   "\xC3\xA9", "z~", "~"};
  for (auto& n : names) PutOk("o/" + n);
  std::sort(names.begin(), names.end());
  std::vector<std::string> expected;
  for (auto& n : names) expected.push_back("o/" + n);
  EXPECT_EQ(Keys(*store_->ListFrom("o/")), expected);
  EXPECT_EQ(WalkObjects(*store_, "o"), expected);
}

TEST_P(ObjectStoreConformance, RecursiveListingIsSortedAndReportsDirectories) {
  for (const char* k : {"t/a.parquet", "t/p=1/x.parquet", "t/p=1/y.parquet", "t/p=10/z.parquet",
                        "t/p-1.parquet", "t/p=1.txt", "t/_delta_log/0.json", "u/other"})
    PutOk(k);
  std::vector<std::string> expected = {"t/_delta_log/",   "t/_delta_log/0.json", "t/a.parquet",
                                       "t/p-1.parquet",   "t/p=1.txt",           "t/p=1/",
                                       "t/p=1/x.parquet", "t/p=1/y.parquet",     "t/p=10/",
                                       "t/p=10/z.parquet"};
  EXPECT_EQ(Walk(*store_, "t"), expected);
  EXPECT_EQ(Walk(*store_, "t/"), expected);
  auto root = Walk(*store_, "");
  EXPECT_TRUE(std::is_sorted(root.begin(), root.end()));
  EXPECT_EQ(root.size(), expected.size() + 3);  // t/, u/, u/other
  EXPECT_TRUE(Walk(*store_, "missing").empty());
  EXPECT_TRUE(Walk(*store_, "t/a.parquet").empty());

  // A visitor's error stops the walk and is returned.
  int seen = 0;
  Status st = store_->ListRecursive("t", [&](const ObjectMeta&) {
    return ++seen == 3 ? Status::Cancelled("enough") : Status::OK();
  });
  EXPECT_EQ(st.code(), StatusCode::kCancelled);
  EXPECT_EQ(seen, 3);

  // Object metadata matches Head.
  ASSERT_TRUE(store_
                  ->ListRecursive("t/p=1",
                                  [&](const ObjectMeta& m) {
                                    if (m.is_dir) return Status::OK();
                                    auto head = store_->Head(m.key);
                                    EXPECT_TRUE(head.ok());
                                    if (head.ok()) {
                                      EXPECT_EQ(*head, m);
                                    }
                                    return Status::OK();
                                  })
                  .ok());
}

TEST_P(ObjectStoreConformance, RecursiveListingToleratesDeletesFromTheVisitor) {
  for (int i = 0; i < 600; ++i)  // more than one in-memory batch
    PutOk("t/d" + std::to_string(i % 7) + "/f" + std::to_string(i));
  int objects = 0;
  ASSERT_TRUE(store_
                  ->ListRecursive("t",
                                  [&](const ObjectMeta& m) {
                                    if (m.is_dir) return Status::OK();
                                    ++objects;
                                    return store_->Delete(m.key);
                                  })
                  .ok());
  EXPECT_EQ(objects, 600);
  EXPECT_TRUE(WalkObjects(*store_, "t").empty());
}

TEST_P(ObjectStoreConformance, PutIfAbsent) {
  ASSERT_TRUE(store_->PutIfAbsent("_delta_log/00000000000000000000.json", "v0").ok());
  Status st = store_->PutIfAbsent("_delta_log/00000000000000000000.json", "other");
  EXPECT_TRUE(st.IsAlreadyExists()) << st.ToString();
  EXPECT_EQ(st.error_class(), kErrorFileAlreadyExists);
  EXPECT_NE(st.message().find("00000000000000000000.json"), std::string_view::npos);
  EXPECT_EQ(*store_->Get("_delta_log/00000000000000000000.json"), "v0");
  // Put still overwrites; PutIfAbsent after Delete succeeds again.
  PutOk("_delta_log/00000000000000000000.json", "v0b");
  ASSERT_TRUE(store_->Delete("_delta_log/00000000000000000000.json").ok());
  EXPECT_TRUE(store_->PutIfAbsent("_delta_log/00000000000000000000.json", "v0c").ok());
  EXPECT_EQ(*store_->Get("_delta_log/00000000000000000000.json"), "v0c");
  // Losing leaves no temp objects behind.
  EXPECT_EQ(store_->ListFrom("_delta_log/")->size(), 1u);
}

// The commit of a DELETE waits for its deletion-vector file: nothing is visible under the key
// before `before_publish` returns; its failure abandons the object (no temp object left).
TEST_P(ObjectStoreConformance, PutIfAbsentAfterPublishesOnlyAfterTheWait) {
  const std::string key = "_delta_log/00000000000000000001.json";
  int calls = 0;
  Status st = store_->PutIfAbsentAfter(key, "v1", [&]() -> Status {
    ++calls;
    EXPECT_TRUE(store_->Head(key).status().IsNotFound());
    return Status::OK();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(*store_->Get(key), "v1");
  // Exclusive as PutIfAbsent.
  st = store_->PutIfAbsentAfter(key, "other", [] { return Status::OK(); });
  EXPECT_TRUE(st.IsAlreadyExists()) << st.ToString();
  EXPECT_EQ(*store_->Get(key), "v1");

  const std::string key2 = "_delta_log/00000000000000000002.json";
  calls = 0;
  st = store_->PutIfAbsentAfter(key2, "v2", [&] {
    ++calls;
    return Status::IoError("the deletion vector could not be written");
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(st.code(), StatusCode::kIoError) << st.ToString();
  EXPECT_TRUE(store_->Head(key2).status().IsNotFound());
  EXPECT_EQ(store_->ListFrom("_delta_log/")->size(), 1u);  // no temp object left behind
  // A later commit of the same version still succeeds.
  EXPECT_TRUE(store_->PutIfAbsentAfter(key2, "v2", [] { return Status::OK(); }).ok());
  EXPECT_EQ(*store_->Get(key2), "v2");
}

TEST_P(ObjectStoreConformance, PutIfAbsentRaceHasExactlyOneWinner) {
  constexpr int kThreads = 16;
  constexpr int kVersions = 8;
  for (int v = 0; v < kVersions; ++v) {
    std::string key = "_delta_log/" + std::string(19, '0') + std::to_string(v) + ".json";
    std::atomic<int> ready{0};
    std::atomic<int> winners{0};
    std::atomic<int> losers{0};
    std::vector<std::string> payloads(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      payloads[t] = "writer " + std::to_string(t) + " " + Pattern(1000 + 37 * t, t + 1);
      threads.emplace_back([&, t] {
        ready.fetch_add(1);
        while (ready.load() < kThreads) std::this_thread::yield();
        Status st = store_->PutIfAbsent(key, payloads[t]);
        if (st.ok()) {
          winners.fetch_add(1);
        } else if (st.IsAlreadyExists()) {
          losers.fetch_add(1);
        } else {
          ADD_FAILURE() << st.ToString();
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(winners.load(), 1) << key;
    EXPECT_EQ(losers.load(), kThreads - 1) << key;
    auto got = store_->Get(key);
    ASSERT_TRUE(got.ok());
    EXPECT_NE(std::find(payloads.begin(), payloads.end(), *got), payloads.end());
  }
  // No temp objects survive the race.
  auto listed = store_->ListFrom("_delta_log/");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), static_cast<size_t>(kVersions));
  for (auto& m : *listed) EXPECT_FALSE(IsHidden(m.key)) << m.key;
}

TEST_P(ObjectStoreConformance, DeleteIsIdempotent) {
  EXPECT_TRUE(store_->Delete("never/existed").ok());
  EXPECT_TRUE(store_->Delete("never").ok());
  PutOk("d/x", "1");
  EXPECT_TRUE(store_->Delete("d").ok());  // a directory is not an object
  EXPECT_EQ(*store_->Get("d/x"), "1");
  EXPECT_TRUE(store_->Delete("d/x").ok());
  EXPECT_TRUE(store_->Head("d/x").status().IsNotFound());
  EXPECT_TRUE(store_->Delete("d/x").ok());
}

TEST_P(ObjectStoreConformance, DeleteManySerialAndParallel) {
  std::vector<std::string> keys;
  for (int i = 0; i < 50; ++i) {
    keys.push_back("m/" + std::to_string(i));
    PutOk(keys.back());
  }
  keys.push_back("m/missing");
  std::vector<std::string> first(keys.begin(), keys.begin() + 20);
  std::vector<std::string> rest(keys.begin() + 20, keys.end());
  EXPECT_TRUE(store_->DeleteMany(first).ok());
  ThreadPool pool(2);
  EXPECT_TRUE(store_->DeleteMany(rest, &pool).ok());
  EXPECT_TRUE(store_->ListFrom("m/")->empty());
  EXPECT_TRUE(store_->DeleteMany({}).ok());
  EXPECT_EQ(store_->DeleteMany({"ok", "../bad"}).code(), StatusCode::kInvalidArgument);
}

// DeleteKeys: one status per key, Delete's semantics for each (missing key or directory: OK;
// invalid key: InvalidArgument), whatever the order of directories in the run (Local caches the
// open directory between consecutive keys).
TEST_P(ObjectStoreConformance, DeleteKeysReportsEachKey) {
  for (const char* k : {"a/1", "a/2", "b/c/1", "b/c/2", "top", "a/3"}) PutOk(k);
  std::vector<std::string_view> keys = {"a/1", "a/2",    "b/c/1", "a/3",   "b/c/missing", "nodir/x",
                                        "b/c", "../bad", "top",   "b/c/2", "a/1"};
  std::vector<Status> statuses(keys.size(), Status::Internal("not set"));
  store_->DeleteKeys(keys, statuses);
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == "../bad") {
      EXPECT_EQ(statuses[i].code(), StatusCode::kInvalidArgument);
    } else {
      EXPECT_TRUE(statuses[i].ok()) << keys[i] << ": " << statuses[i].ToString();
    }
  }
  for (const char* k : {"a/1", "a/2", "a/3", "b/c/1", "b/c/2", "top"})
    EXPECT_TRUE(store_->Head(k).status().IsNotFound()) << k;
  store_->DeleteKeys({}, {});
}

TEST_P(ObjectStoreConformance, OpenWriteIsInvisibleUntilClose) {
  PutOk("w/other", "o");
  auto w = store_->OpenWrite("w/big.parquet");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->Append("hello ").ok());
  ASSERT_TRUE((*w)->Append("world").ok());
  EXPECT_EQ((*w)->bytes_written(), 11);
  EXPECT_TRUE(store_->Head("w/big.parquet").status().IsNotFound());
  for (auto& k : Keys(*store_->ListFrom("w/"))) EXPECT_NE(k, "w/big.parquet");
  for (auto& k : WalkObjects(*store_, "w")) EXPECT_NE(k, "w/big.parquet");
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_EQ(*store_->Get("w/big.parquet"), "hello world");
  EXPECT_EQ(Keys(*store_->ListFrom("w/")), (std::vector<std::string>{"w/big.parquet", "w/other"}));

  // Overwriting: the old object stays visible until Close.
  auto w2 = store_->OpenWrite("w/big.parquet");
  ASSERT_TRUE(w2.ok());
  ASSERT_TRUE((*w2)->Append("v2").ok());
  EXPECT_EQ(*store_->Get("w/big.parquet"), "hello world");
  ASSERT_TRUE((*w2)->Close().ok());
  EXPECT_EQ(*store_->Get("w/big.parquet"), "v2");

  // Abandoned writers leave nothing behind, not even a temp object.
  {
    auto w3 = store_->OpenWrite("w/abandoned");
    ASSERT_TRUE(w3.ok());
    ASSERT_TRUE((*w3)->Append("partial").ok());
  }
  EXPECT_TRUE(store_->Head("w/abandoned").status().IsNotFound());
  EXPECT_EQ(Keys(*store_->ListFrom("w/")), (std::vector<std::string>{"w/big.parquet", "w/other"}));
}

TEST_P(ObjectStoreConformance, LargeObjects) {
  constexpr size_t kSize = 8 << 20;
  std::string data = Pattern(kSize, 7);
  PutOk("large/put.bin", data);
  EXPECT_EQ(store_->Head("large/put.bin")->size, static_cast<int64_t>(kSize));
  EXPECT_TRUE(*store_->Get("large/put.bin") == data);

  auto w = store_->OpenWrite("large/stream.bin");
  ASSERT_TRUE(w.ok());
  size_t pos = 0;
  for (size_t chunk = 1; pos < kSize; chunk = chunk * 3 + 1) {  // odd sizes, up to > 1 MiB
    size_t n = std::min(kSize - pos, chunk % (3 << 20));
    ASSERT_TRUE((*w)->Append(std::string_view(data).substr(pos, n)).ok());
    pos += n;
  }
  ASSERT_TRUE((*w)->Close().ok());
  auto f = store_->OpenRead("large/stream.bin");
  ASSERT_TRUE(f.ok());
  ASSERT_EQ((*f)->size(), static_cast<int64_t>(kSize));
  for (int64_t off : {int64_t{0}, int64_t{1} << 20, int64_t{kSize} - 4096}) {
    std::string buf(4096, '\0');
    ASSERT_TRUE((*f)->ReadAt(off, 4096, reinterpret_cast<uint8_t*>(buf.data())).ok());
    EXPECT_TRUE(buf == data.substr(static_cast<size_t>(off), 4096)) << off;
  }
  ASSERT_TRUE(store_->PutIfAbsent("large/commit.bin", data).ok());
  EXPECT_TRUE(*store_->Get("large/commit.bin") == data);
}

TEST_P(ObjectStoreConformance, KeysWithSpacesPercentAndUnicode) {
  const std::vector<std::string> keys = {"p=a b/x%20y \xC3\xA9\xE2\x82\xAC.parquet",
                                         "dir with space/100%.json",
                                         "\xE6\x97\xA5\xE6\x9C\xAC/\xE3\x83\x87.bin",
                                         "sym/#?:;=&+,'\"*<>|{}[]^`~!@$()",
                                         "p=a%3Ab/part-0.parquet",
                                         ".hidden/.f",
                                         "_x/__HIVE_DEFAULT_PARTITION__"};
  for (auto& k : keys) {
    ASSERT_TRUE(store_->PutIfAbsent(k, k).ok()) << k;
    EXPECT_EQ(*store_->Get(k), k);
    auto dir = k.substr(0, k.rfind('/') + 1);
    EXPECT_EQ(Keys(*store_->ListFrom(dir)), std::vector<std::string>{k});
  }
  auto all = WalkObjects(*store_, "");
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(all, sorted);
  for (auto& k : keys) EXPECT_TRUE(store_->Delete(k).ok());
  EXPECT_TRUE(WalkObjects(*store_, "").empty());
}

TEST_P(ObjectStoreConformance, InvalidKeysAreRejected) {
  for (const std::string& bad :
       {std::string(""), std::string("/abs"), std::string("a//b"), std::string("a/../b"),
        std::string(".."), std::string("../x"), std::string("./a"), std::string("a/."),
        std::string("a/"), std::string("a\0b", 3)}) {
    Status st = store_->Put(bad, "x");
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << bad << ": " << st.ToString();
    EXPECT_EQ(st.error_class(), kErrorInvalidObjectKey);
    EXPECT_EQ(store_->PutIfAbsent(bad, "x").code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(store_->Get(bad).status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(store_->Head(bad).status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(store_->OpenRead(bad).status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(store_->OpenWrite(bad).status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(store_->Delete(bad).code(), StatusCode::kInvalidArgument) << bad;
  }
  for (const char* bad_dir : {"../", "/x/", "a//", "a/../"}) {
    EXPECT_EQ(store_->ListFrom(bad_dir).status().code(), StatusCode::kInvalidArgument) << bad_dir;
    EXPECT_EQ(store_->ListRecursive(bad_dir, [](const ObjectMeta&) { return Status::OK(); }).code(),
              StatusCode::kInvalidArgument);
    EXPECT_EQ(store_->DeleteEmptyDirs(bad_dir).status().code(), StatusCode::kInvalidArgument);
  }
  EXPECT_TRUE(WalkObjects(*store_, "").empty());
}

TEST_P(ObjectStoreConformance, AnObjectCannotAlsoBeADirectory) {
  if (GetParam().flat_namespace) GTEST_SKIP() << "a flat blob namespace allows both";
  PutOk("f", "file");
  EXPECT_FALSE(store_->Put("f/g", "x").ok());
  PutOk("d/x", "child");
  EXPECT_FALSE(store_->Put("d", "x").ok());
  EXPECT_FALSE(store_->PutIfAbsent("d", "x").ok());
  EXPECT_EQ(*store_->Get("f"), "file");
  EXPECT_EQ(*store_->Get("d/x"), "child");
}

TEST_P(ObjectStoreConformance, DeleteEmptyDirsRemovesWhatVacuumLeaves) {
  PutOk("t/a/b/c/keep");
  PutOk("t/x/y/gone");
  PutOk("t/e/f/gone");
  PutOk("t/top");
  PutOk("other/z/gone");
  for (const char* k : {"t/x/y/gone", "t/e/f/gone", "other/z/gone"})
    ASSERT_TRUE(store_->Delete(k).ok());
  auto removed = store_->DeleteEmptyDirs("t");
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(*removed, GetParam().has_dirs ? 4 : 0);  // x/y, x, e/f, e
  EXPECT_EQ(Walk(*store_, "t"),
            (std::vector<std::string>{"t/a/", "t/a/b/", "t/a/b/c/", "t/a/b/c/keep", "t/top"}));
  // Outside the given directory nothing changes.
  if (GetParam().has_dirs) {
    EXPECT_EQ(Walk(*store_, "other"), std::vector<std::string>{"other/z/"});
  }
  EXPECT_EQ(*store_->DeleteEmptyDirs("missing"), 0);
  EXPECT_EQ(*store_->DeleteEmptyDirs("t"), 0);
  // The root itself is kept and still usable.
  ASSERT_TRUE(store_->Delete("t/a/b/c/keep").ok());
  ASSERT_TRUE(store_->Delete("t/top").ok());
  ASSERT_TRUE(store_->DeleteEmptyDirs("").ok());
  EXPECT_TRUE(Walk(*store_, "").empty());
  PutOk("again", "1");
  EXPECT_EQ(*store_->Get("again"), "1");
}

TEST_P(ObjectStoreConformance, DeleteDirRemovesOnlyAnEmptyDirectory) {
  PutOk("t/a/b/file");
  PutOk("t/e/gone");
  ASSERT_TRUE(store_->Delete("t/e/gone").ok());
  // Non-empty (an object below it, or a sub-directory): refused, nothing removed.
  for (const char* dir : {"t/a/b", "t/a", "t/a/"}) {
    Status st = store_->DeleteDir(dir);
    EXPECT_EQ(st.code(), StatusCode::kIoError) << dir << ": " << st.ToString();
    EXPECT_EQ(st.error_class(), kErrorDirectoryNotEmpty) << dir;
  }
  EXPECT_EQ(*store_->Get("t/a/b/file"), "x");
  // Empty or missing: OK; on stores with directories it is gone afterwards.
  EXPECT_TRUE(store_->DeleteDir("t/e").ok());
  EXPECT_TRUE(store_->DeleteDir("t/e").ok());
  EXPECT_TRUE(store_->DeleteDir("missing/dir").ok());
  EXPECT_EQ(Walk(*store_, "t"), (std::vector<std::string>{"t/a/", "t/a/b/", "t/a/b/file"}));
  ASSERT_TRUE(store_->Delete("t/a/b/file").ok());
  EXPECT_TRUE(store_->DeleteDir("t/a/b/").ok());
  EXPECT_TRUE(store_->DeleteDir("t/a").ok());
  EXPECT_TRUE(Walk(*store_, "t").empty());
  EXPECT_EQ(store_->DeleteDir("").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->DeleteDir("../x").code(), StatusCode::kInvalidArgument);
}

TEST_P(ObjectStoreConformance, ListDirsReportsTheDirectSubdirectories) {
  auto dirs = store_->ListDirs("");
  ASSERT_TRUE(dirs.ok()) << dirs.status().ToString();
  EXPECT_TRUE(dirs->empty());
  PutOk("top");
  PutOk("b/x");
  PutOk("a/deep/er/y");
  PutOk("a/z");
  PutOk("c d/e");
  EXPECT_EQ(Must(store_->ListDirs("")), (std::vector<std::string>{"a", "b", "c d"}));
  if (GetParam().shallow_common_prefixes) {
    PutOk("a/deep/x");  // the emulator reports a prefix only with an object right below it
  }
  EXPECT_EQ(Must(store_->ListDirs("a")), (std::vector<std::string>{"deep"}));
  EXPECT_EQ(Must(store_->ListDirs("a/")), (std::vector<std::string>{"deep"}));
  EXPECT_TRUE(Must(store_->ListDirs("b")).empty());
  EXPECT_TRUE(Must(store_->ListDirs("missing")).empty());
  EXPECT_EQ(store_->ListDirs("../x").status().code(), StatusCode::kInvalidArgument);
}

TEST_P(ObjectStoreConformance, DirExists) {
  EXPECT_FALSE(Must(store_->DirExists("a")));
  PutOk("a/b/c");
  EXPECT_TRUE(Must(store_->DirExists("")));
  EXPECT_TRUE(Must(store_->DirExists("a")));
  EXPECT_TRUE(Must(store_->DirExists("a/b/")));
  EXPECT_FALSE(Must(store_->DirExists("a/b/c")));  // an object, not a directory
  EXPECT_FALSE(Must(store_->DirExists("a/x")));
  ASSERT_TRUE(store_->Delete("a/b/c").ok());
  // Stores with directories keep the emptied ones until DeleteEmptyDirs; others forget them.
  EXPECT_EQ(Must(store_->DirExists("a/b")), GetParam().has_dirs);
}

TEST_P(ObjectStoreConformance, RenameDirMovesEveryObject) {
  PutOk("old/_delta_log/00.json", "commit");
  PutOk("old/p=1/part-0.parquet", Pattern(100000));
  PutOk("old/.hidden", "h");
  PutOk("other/keep", "k");
  Status st = store_->RenameDir("old", "new");
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(WalkObjects(*store_, "new"),
            (std::vector<std::string>{"new/.hidden", "new/_delta_log/00.json",
                                      "new/p=1/part-0.parquet"}));
  EXPECT_EQ(Must(store_->Get("new/p=1/part-0.parquet")), Pattern(100000));
  EXPECT_TRUE(WalkObjects(*store_, "old").empty());
  EXPECT_FALSE(Must(store_->DirExists("old")));
  EXPECT_EQ(Must(store_->Get("other/keep")), "k");
  // A target holding objects is refused, and nothing moves.
  PutOk("x/a", "1");
  st = store_->RenameDir("x", "other");
  EXPECT_EQ(st.error_class(), kErrorFileAlreadyExists) << st.ToString();
  EXPECT_EQ(Must(store_->Get("x/a")), "1");
  EXPECT_EQ(store_->RenameDir("x", "x/y").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->RenameDir("", "y").code(), StatusCode::kInvalidArgument);
}

TEST_P(ObjectStoreConformance, DeleteTreeRemovesADirectoryWithItsContents) {
  PutOk("t/_delta_log/00.json");
  PutOk("t/_delta_log/.00.json.crc");
  PutOk("t/p=1/q=2/part-0.parquet");
  PutOk("t2/keep");
  Status st = DeleteTree(*store_, "t");
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(Walk(*store_, ""), (std::vector<std::string>{"t2/", "t2/keep"}));
  EXPECT_FALSE(Must(store_->DirExists("t")));
  EXPECT_TRUE(DeleteTree(*store_, "t").ok());  // missing: OK
  EXPECT_TRUE(DeleteTree(*store_, "").ok());   // the root: emptied, kept
  EXPECT_TRUE(WalkObjects(*store_, "").empty());
}

INSTANTIATE_TEST_SUITE_P(AllStores, ObjectStoreConformance, ::testing::ValuesIn(AllStores()),
                         [](const auto& info) { return info.param.name; });

// ---------------------------------------------------------------------------------------------
// LocalObjectStore specifics

class LocalObjectStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tmp_ = MakeTempDir();
    root_ = tmp_ + "/table";
    store_ = std::make_shared<LocalObjectStore>(root_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(tmp_, ec);
  }
  std::vector<std::string> DirNames(const std::string& dir) {
    std::vector<std::string> names;
    for (auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  std::string tmp_, root_;
  std::shared_ptr<LocalObjectStore> store_;
};

TEST_F(LocalObjectStoreTest, RootIsCreatedOnFirstWriteAndNamedAsFileUri) {
  EXPECT_FALSE(fs::exists(root_));
  EXPECT_TRUE(store_->ListFrom("")->empty());
  EXPECT_EQ(store_->root(), "file://" + root_ + "/");
  ASSERT_TRUE(store_->Put("_delta_log/00000000000000000000.json", "{}").ok());
  EXPECT_TRUE(fs::is_regular_file(root_ + "/_delta_log/00000000000000000000.json"));
  std::ifstream in(root_ + "/_delta_log/00000000000000000000.json");
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "{}");

  auto via_uri = OpenObjectStore("file://" + root_, WallClock());
  ASSERT_TRUE(via_uri.ok());
  EXPECT_EQ(*(*via_uri)->Get("_delta_log/00000000000000000000.json"), "{}");
  EXPECT_EQ((*via_uri)->root(), store_->root());
  EXPECT_EQ(OpenObjectStore("gs://bucket/t", WallClock()).status().code(),
            StatusCode::kNotImplemented);
  auto mem = OpenObjectStore("memory://", WallClock());
  ASSERT_TRUE(mem.ok());
  EXPECT_EQ((*mem)->root(), "memory://");
}

TEST_F(LocalObjectStoreTest, ModificationTimeComesFromTheFileSystem) {
  ASSERT_TRUE(store_->Put("f", "x").ok());
  struct timespec times[2] = {{1700000000, 123000000}, {1700000000, 456789000}};
  ASSERT_EQ(::utimensat(AT_FDCWD, (root_ + "/f").c_str(), times, 0), 0);
  EXPECT_EQ(store_->Head("f")->modification_time_ms, 1700000000456);
  EXPECT_EQ((*store_->ListFrom(""))[0].modification_time_ms, 1700000000456);
}

TEST_F(LocalObjectStoreTest, ListRecursiveSomeMetaSkipsOnlyTheRejectedFiles) {
  ASSERT_TRUE(store_->Put("a/live", "12345").ok());
  ASSERT_TRUE(store_->Put("a/gone", "123").ok());
  ASSERT_TRUE(store_->Put("top", "1").ok());
  std::vector<ObjectMeta> all, some;
  ASSERT_TRUE(store_
                  ->ListRecursive("",
                                  [&](const ObjectMeta& m) {
                                    all.push_back(m);
                                    return Status::OK();
                                  })
                  .ok());
  ASSERT_TRUE(store_
                  ->ListRecursiveSomeMeta(
                      "",
                      [&](const ObjectMeta& m) {
                        some.push_back(m);
                        return Status::OK();
                      },
                      [](std::string_view key) { return key != "a/live"; })
                  .ok());
  ASSERT_EQ(all.size(), 4u);  // a/, a/gone, a/live, top
  ASSERT_EQ(some.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(some[i].key, all[i].key);
    EXPECT_EQ(some[i].is_dir, all[i].is_dir);
    if (all[i].key == "a/live") {
      EXPECT_EQ(all[i].size, 5);
      EXPECT_EQ(some[i].size, 0);  // not stat'ed
      EXPECT_EQ(some[i].modification_time_ms, 0);
    } else {
      EXPECT_EQ(some[i], all[i]);
    }
  }
  // The default implementation (any other store) reports everything.
  InMemoryObjectStore mem(WallClock());
  ASSERT_TRUE(mem.Put("x", "12").ok());
  std::vector<ObjectMeta> got;
  ASSERT_TRUE(mem.ListRecursiveSomeMeta(
                     "",
                     [&](const ObjectMeta& m) {
                       got.push_back(m);
                       return Status::OK();
                     },
                     [](std::string_view) { return false; })
                  .ok());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].size, 2);
}

// A deep and wide tree: more directories than the parallel walk's pending queue holds (so
// readers also walk subdirectories themselves), hidden and empty directories, names with spaces,
// '%', '=', non-ASCII bytes and a name that is a prefix of its sibling.
void BuildWideTree(const std::string& root) {
  // Plain file writes (no fsync per object as Put does): the test is about listing.
  auto put = [&](const std::string& key, const std::string& data) {
    fs::path p = fs::path(root) / key;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << data;
  };
  for (int a = 0; a < 30; ++a) {
    std::string d1 = "p=" + std::to_string(a);
    for (int b = 0; b < 12; ++b) {
      std::string d2 = d1 + "/q=" + std::to_string(b) + (b % 3 == 0 ? " x%20y" : "");
      for (int f = 0; f < 3; ++f) put(d2 + "/f" + std::to_string(f), std::string(f, 'x'));
      if (a % 7 == 0) put(d2 + "/deep/er/still/f", "d");
    }
  }
  for (const char* k :
       {"_delta_log/00000000000000000000.json", "_delta_log/_sidecars/s.parquet", ".hidden/x",
        "_tmp/p=1/y", "caf\xc3\xa9/\xe2\x82\xac 1", "a/b", "a b/c", "a=/d", "top"}) {
    put(k, "v");
  }
  fs::create_directories(root + "/empty/nested/deeper");
  fs::create_directories(root + "/.hidden_empty");
}

std::vector<ObjectMeta> ListSomeMeta(ObjectStore& store, const std::string& dir, ThreadPool* pool,
                                     std::vector<std::thread::id>* threads = nullptr) {
  std::vector<ObjectMeta> out;
  Status st = store.ListRecursiveSomeMeta(
      dir,
      [&](const ObjectMeta& m) {
        out.push_back(m);
        if (threads) threads->push_back(std::this_thread::get_id());
        return Status::OK();
      },
      [](std::string_view key) { return key.find("f1") == std::string_view::npos; }, pool);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

TEST_F(LocalObjectStoreTest, ParallelListingYieldsTheSequentialEntries) {
  BuildWideTree(root_);
  const std::vector<ObjectMeta> seq = ListSomeMeta(*store_, "", nullptr);
  ASSERT_GT(seq.size(), 1500u);
  // Sequential: bytewise key order with directories as key + "/" (the ListRecursive contract).
  for (size_t i = 1; i < seq.size(); ++i) {
    auto k = [&](size_t j) { return seq[j].is_dir ? seq[j].key + "/" : seq[j].key; };
    EXPECT_LT(k(i - 1), k(i));
  }
  auto by_key = [](std::vector<ObjectMeta> v) {
    std::sort(v.begin(), v.end(),
              [](const ObjectMeta& a, const ObjectMeta& b) { return a.key < b.key; });
    return v;
  };
  for (size_t threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    for (const std::string dir : {"", "p=7", "empty/"}) {
      std::vector<std::thread::id> visitors;
      const std::vector<ObjectMeta> par = ListSomeMeta(*store_, dir, &pool, &visitors);
      EXPECT_EQ(by_key(par), by_key(ListSomeMeta(*store_, dir, nullptr)))
          << threads << " threads, dir " << dir;
      // The visitor runs in the caller's thread only, and a directory comes before its contents.
      for (const auto& id : visitors) EXPECT_EQ(id, std::this_thread::get_id());
      std::set<std::string> seen_dirs;
      const std::string base =
          !dir.empty() && dir.back() == '/' ? dir.substr(0, dir.size() - 1) : dir;
      for (const ObjectMeta& m : par) {
        size_t slash = m.key.rfind('/');
        std::string parent = slash == std::string::npos ? "" : m.key.substr(0, slash);
        if (parent != base) {
          EXPECT_TRUE(seen_dirs.count(parent)) << m.key << " before its directory";
        }
        if (m.is_dir) seen_dirs.insert(m.key);
      }
    }
  }
  // A missing directory lists nothing.
  ThreadPool pool(2);
  EXPECT_TRUE(ListSomeMeta(*store_, "nope/", &pool).empty());
}

TEST_F(LocalObjectStoreTest, ParallelListingStopsOnAVisitorErrorAndRunsInsideBusyPools) {
  BuildWideTree(root_);
  const size_t total = ListSomeMeta(*store_, "", nullptr).size();
  ThreadPool pool(2);
  int visited = 0;
  Status st = store_->ListRecursiveSomeMeta(
      "",
      [&](const ObjectMeta&) {
        return ++visited == 100 ? Status::Cancelled("enough") : Status::OK();
      },
      [](std::string_view) { return true; }, &pool);
  EXPECT_EQ(st.code(), StatusCode::kCancelled) << st.ToString();
  EXPECT_EQ(visited, 100);
  // The pool is left clean, and a listing started from inside tasks that occupy every pool
  // thread completes (the caller reads directories itself).
  std::atomic<size_t> sizes{0};
  ASSERT_TRUE(pool.ParallelFor(4,
                               [&](size_t) {
                                 sizes += ListSomeMeta(*store_, "", &pool).size();
                                 return Status::OK();
                               })
                  .ok());
  EXPECT_EQ(sizes.load(), 4 * total);
}

TEST_F(LocalObjectStoreTest, WritesStageInUniqueHiddenTempFiles) {
  auto w1 = store_->OpenWrite("d/data.parquet");
  auto w2 = store_->OpenWrite("d/data.parquet");
  ASSERT_TRUE(w1.ok() && w2.ok());
  auto names = DirNames(root_ + "/d");
  ASSERT_EQ(names.size(), 2u);
  EXPECT_NE(names[0], names[1]);
  for (auto& n : names) {
    EXPECT_EQ(n[0], '.') << n;
    EXPECT_TRUE(n.starts_with(".data.parquet.")) << n;
    EXPECT_TRUE(n.ends_with(".tmp")) << n;
  }
  // The listing shows them (hidden names); the object is not there.
  auto listed = store_->ListFrom("d/");
  ASSERT_EQ(listed->size(), 2u);
  for (auto& m : *listed) EXPECT_TRUE(IsHidden(m.key));
  ASSERT_TRUE((*w1)->Append("one").ok());
  ASSERT_TRUE((*w2)->Append("two").ok());
  ASSERT_TRUE((*w1)->Close().ok());
  ASSERT_TRUE((*w2)->Close().ok());
  EXPECT_EQ(*store_->Get("d/data.parquet"), "two");
  EXPECT_EQ(DirNames(root_ + "/d"), std::vector<std::string>{"data.parquet"});
  // Very long names still get a temp name within NAME_MAX.
  std::string long_name(250, 'n');
  ASSERT_TRUE(store_->PutIfAbsent("d/" + long_name, "x").ok());
  EXPECT_EQ(*store_->Get("d/" + long_name), "x");
}

TEST_F(LocalObjectStoreTest, SymlinksAreNotFollowed) {
  std::string outside = tmp_ + "/outside";
  fs::create_directories(outside);
  { std::ofstream(outside + "/secret") << "secret"; }
  ASSERT_TRUE(store_->Put("real/f", "inside").ok());
  fs::create_directory_symlink(outside, root_ + "/dirlink");
  fs::create_symlink(outside + "/secret", root_ + "/filelink");
  fs::create_directory_symlink(root_ + "/real", root_ + "/inner_link");

  for (const char* key : {"dirlink/secret", "filelink", "inner_link/f"}) {
    EXPECT_EQ(store_->Get(key).status().code(), StatusCode::kInvalidArgument) << key;
    EXPECT_EQ(store_->Head(key).status().code(), StatusCode::kInvalidArgument) << key;
  }
  EXPECT_EQ(store_->Put("dirlink/new", "x").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->PutIfAbsent("dirlink/new", "x").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->OpenWrite("dirlink/sub/new").status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(fs::exists(outside + "/new"));
  EXPECT_EQ(store_->ListFrom("dirlink/").status().code(), StatusCode::kInvalidArgument);
  // Listings skip symlinks entirely.
  EXPECT_EQ(Keys(*store_->ListFrom("")), std::vector<std::string>{});
  EXPECT_EQ(Walk(*store_, ""), (std::vector<std::string>{"real/", "real/f"}));
  // DeleteEmptyDirs does not descend into a linked directory.
  fs::create_directories(outside + "/empty");
  EXPECT_EQ(*store_->DeleteEmptyDirs(""), 0);
  EXPECT_TRUE(fs::exists(outside + "/empty"));
  // Delete removes the link, never its target.
  EXPECT_TRUE(store_->Delete("filelink").ok());
  EXPECT_FALSE(fs::is_symlink(root_ + "/filelink"));
  EXPECT_TRUE(fs::exists(outside + "/secret"));
  // DeleteKeys never deletes through a linked directory, whatever the key before it.
  std::vector<std::string_view> keys = {"real/none", "dirlink/secret"};
  std::vector<Status> statuses(keys.size());
  store_->DeleteKeys(keys, statuses);
  EXPECT_TRUE(statuses[0].ok());
  EXPECT_EQ(statuses[1].code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(fs::exists(outside + "/secret"));
  // Overwriting a symlinked name replaces the link, not the file it points to.
  fs::create_symlink(outside + "/secret", root_ + "/filelink2");
  EXPECT_TRUE(store_->Put("filelink2", "mine").ok());
  EXPECT_FALSE(fs::is_symlink(root_ + "/filelink2"));
  std::ifstream in(outside + "/secret");
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "secret");
}

TEST_F(LocalObjectStoreTest, AProcessCrashLeavesOnlyAHiddenTempFile) {
  // Simulate a writer that died after staging: the temp file exists, the object does not.
  ASSERT_TRUE(store_->Put("_delta_log/00000000000000000000.json", "v0").ok());
  { std::ofstream(root_ + "/_delta_log/.00000000000000000001.json.deadbeef.tmp") << "{\"add\":"; }
  auto from1 = store_->ListFrom("_delta_log/00000000000000000001");
  EXPECT_TRUE(from1->empty());  // hidden names sort before digits: not in a from-listing
  EXPECT_TRUE(store_->Head("_delta_log/00000000000000000001.json").status().IsNotFound());
  EXPECT_TRUE(store_->PutIfAbsent("_delta_log/00000000000000000001.json", "v1").ok());
}

// ---------------------------------------------------------------------------------------------
// InMemoryObjectStore specifics

TEST(InMemoryObjectStoreTest, ModificationTimesComeFromTheInjectedClock) {
  auto clock = std::make_shared<ManualClock>(1000);
  InMemoryObjectStore store(clock);
  ASSERT_TRUE(store.Put("a", "1").ok());
  clock->AdvanceHours(1);
  ASSERT_TRUE(store.PutIfAbsent("b", "2").ok());
  auto w = store.OpenWrite("c");
  ASSERT_TRUE(w.ok());
  clock->AdvanceMillis(5);
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_EQ(store.Head("a")->modification_time_ms, 1000);
  EXPECT_EQ(store.Head("b")->modification_time_ms, 1000 + 3600 * 1000);
  EXPECT_EQ(store.Head("c")->modification_time_ms, 1005 + 3600 * 1000);  // visible at Close
  ASSERT_TRUE(store.SetModificationTime("a", 7).ok());
  EXPECT_EQ((*store.ListFrom(""))[0].modification_time_ms, 7);
  EXPECT_TRUE(store.SetModificationTime("zz", 7).IsNotFound());
  EXPECT_EQ(store.root(), "memory://");
}

// ---------------------------------------------------------------------------------------------
// FaultInjectingObjectStore

class FaultInjectingStoreTest : public ::testing::TestWithParam<StoreKind> {
 protected:
  void SetUp() override {
    tmp_ = MakeTempDir();
    inner_ = GetParam().make(tmp_);
    store_ = std::make_shared<FaultInjectingObjectStore>(inner_, /*seed=*/7);
  }
  void TearDown() override {
    store_.reset();
    inner_.reset();
    std::error_code ec;
    fs::remove_all(tmp_, ec);
  }
  static void ExpectInjected(const Status& st) {
    EXPECT_EQ(st.code(), StatusCode::kIoError) << st.ToString();
    EXPECT_EQ(st.error_class(), kErrorInjectedFault) << st.ToString();
  }
  // Hidden objects in key's directory (crash leftovers).
  std::vector<ObjectMeta> Hidden(const std::string& dir) {
    std::vector<ObjectMeta> out;
    auto listed = inner_->ListFrom(dir);
    EXPECT_TRUE(listed.ok());
    for (auto& m : listed.ValueOr({}))
      if (IsHidden(m.key)) out.push_back(m);
    return out;
  }
  std::string tmp_;
  std::shared_ptr<ObjectStore> inner_;
  std::shared_ptr<FaultInjectingObjectStore> store_;
};

TEST_P(FaultInjectingStoreTest, FailEveryOperationOfAKind) {
  ASSERT_TRUE(store_->Put("k", "v").ok());
  store_->AddRule(FaultRule::FailAll(ObjectOp::kGet));
  for (int i = 0; i < 3; ++i) ExpectInjected(store_->Get("k").status());
  EXPECT_TRUE(store_->Head("k").ok());
  EXPECT_TRUE(store_->OpenRead("k").ok());
  EXPECT_NE(store_->Get("k").status().message().find("Get of k"), std::string_view::npos);
  EXPECT_EQ(store_->faults_injected(), 4);
  store_->ClearRules();
  EXPECT_EQ(*store_->Get("k"), "v");
}

TEST_P(FaultInjectingStoreTest, FailAfterNOperationsOfAnyKind) {
  store_->AddRule(FaultRule::FailAfter(3));
  EXPECT_TRUE(store_->Put("a", "1").ok());
  EXPECT_TRUE(store_->Head("a").ok());
  EXPECT_TRUE(store_->ListFrom("").ok());
  ExpectInjected(store_->Get("a").status());
  ExpectInjected(store_->Delete("a"));
  ExpectInjected(store_->ListRecursive("", [](const ObjectMeta&) { return Status::OK(); }));
  ExpectInjected(store_->DeleteEmptyDirs("").status());
  ExpectInjected(store_->DeleteDir("d"));
  EXPECT_EQ(store_->total_ops(), 8);
  EXPECT_EQ(store_->faults_injected(), 5);
  // The failed delete did nothing.
  EXPECT_EQ(*inner_->Get("a"), "1");
}

TEST_P(FaultInjectingStoreTest, FailAfterNOperationsOfOneKind) {
  store_->AddRule(FaultRule::FailAfter(2, ObjectOp::kPutIfAbsent));
  EXPECT_TRUE(store_->PutIfAbsent("_delta_log/0.json", "0").ok());
  EXPECT_TRUE(store_->Head("_delta_log/0.json").ok());  // other kinds do not count
  EXPECT_TRUE(store_->Put("x", "x").ok());
  EXPECT_TRUE(store_->PutIfAbsent("_delta_log/1.json", "1").ok());
  ExpectInjected(store_->PutIfAbsent("_delta_log/2.json", "2"));
  EXPECT_TRUE(inner_->Head("_delta_log/2.json").status().IsNotFound());
  EXPECT_TRUE(store_->Put("y", "y").ok());
}

TEST_P(FaultInjectingStoreTest, TransientFaultsWithMaxFaultsAndKeyFilter) {
  FaultRule rule = FaultRule::FailAll(ObjectOp::kPut);
  rule.key_contains = "_delta_log/";
  rule.max_faults = 2;
  store_->AddRule(rule);
  EXPECT_TRUE(store_->Put("data/f.parquet", "d").ok());
  ExpectInjected(store_->Put("_delta_log/_last_checkpoint", "1"));
  ExpectInjected(store_->Put("_delta_log/_last_checkpoint", "2"));
  EXPECT_TRUE(store_->Put("_delta_log/_last_checkpoint", "3").ok());  // a retry succeeds
  EXPECT_EQ(*store_->Get("_delta_log/_last_checkpoint"), "3");
}

TEST_P(FaultInjectingStoreTest, FailWithProbabilityIsSeededAndDeterministic) {
  ASSERT_TRUE(inner_->Put("k", "v").ok());
  auto pattern = [&](uint64_t seed) {
    FaultInjectingObjectStore s(inner_, seed);
    s.AddRule(FaultRule::FailWithProbability(0.3, ObjectOp::kHead));
    std::string bits;
    for (int i = 0; i < 1000; ++i) bits.push_back(s.Head("k").ok() ? '.' : 'X');
    EXPECT_EQ(s.faults_injected(), std::count(bits.begin(), bits.end(), 'X'));
    return bits;
  };
  std::string a = pattern(1), b = pattern(1), c = pattern(2);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  auto failures = std::count(a.begin(), a.end(), 'X');
  EXPECT_GT(failures, 220);
  EXPECT_LT(failures, 380);
  FaultInjectingObjectStore never(inner_, 3);
  never.AddRule(FaultRule::FailWithProbability(0.0));
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(never.Head("k").ok());
}

TEST_P(FaultInjectingStoreTest, CrashMidPutNeverLeavesAVisiblePartialObject) {
  std::string data = Pattern(1000);
  ASSERT_TRUE(store_->Put("d/obj", "old").ok());
  store_->AddRule(FaultRule::CrashMidWrite(ObjectOp::kPut));
  ExpectInjected(store_->Put("d/obj", data));
  EXPECT_EQ(*store_->Get("d/obj"), "old");  // untouched
  ExpectInjected(store_->Put("d/new", data));
  EXPECT_TRUE(store_->Head("d/new").status().IsNotFound());
  auto hidden = Hidden("d/");
  ASSERT_EQ(hidden.size(), 2u);
  for (auto& m : hidden) {
    EXPECT_EQ(m.size, 500);  // half the bytes reached storage
    EXPECT_TRUE(m.key.ends_with(".tmp")) << m.key;
    EXPECT_EQ(*inner_->Get(m.key), data.substr(0, 500));
  }
}

TEST_P(FaultInjectingStoreTest, CrashMidPutIfAbsentNeverLeavesAVisiblePartialObject) {
  std::string commit = "{\"commitInfo\":{}}\n{\"add\":{\"path\":\"f.parquet\"}}\n";
  store_->AddRule(FaultRule::CrashMidWrite(ObjectOp::kPutIfAbsent, 10));
  ExpectInjected(store_->PutIfAbsent("_delta_log/00000000000000000001.json", commit));
  EXPECT_TRUE(store_->Head("_delta_log/00000000000000000001.json").status().IsNotFound());
  EXPECT_TRUE(store_->ListFrom("_delta_log/00000000000000000001")->empty());
  auto hidden = Hidden("_delta_log/");
  ASSERT_EQ(hidden.size(), 1u);
  EXPECT_EQ(hidden[0].size, 10);
  // After "restart" the commit can still be made.
  store_->ClearRules();
  EXPECT_TRUE(store_->PutIfAbsent("_delta_log/00000000000000000001.json", commit).ok());
  EXPECT_EQ(*store_->Get("_delta_log/00000000000000000001.json"), commit);
}

TEST_P(FaultInjectingStoreTest, CrashMidOpenWrite) {
  store_->AddRule(FaultRule::CrashMidWrite(ObjectOp::kOpenWrite, 25));
  auto w = store_->OpenWrite("data/part-0.parquet");
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE((*w)->Append(std::string(10, 'a')).ok());
  EXPECT_TRUE((*w)->Append(std::string(10, 'b')).ok());
  ExpectInjected((*w)->Append(std::string(10, 'c')));  // crosses 25 bytes
  ExpectInjected((*w)->Append("more"));
  ExpectInjected((*w)->Close());
  w->reset();
  EXPECT_TRUE(store_->Head("data/part-0.parquet").status().IsNotFound());
  auto hidden = Hidden("data/");
  ASSERT_EQ(hidden.size(), 1u);
  EXPECT_EQ(*inner_->Get(hidden[0].key), std::string(10, 'a') + std::string(10, 'b') + "ccccc");

  // Default: the crash hits Close, after every byte was staged but before publishing.
  store_->ClearRules();
  store_->AddRule(FaultRule::CrashMidWrite(ObjectOp::kOpenWrite));
  auto w2 = store_->OpenWrite("data/part-1.parquet");
  ASSERT_TRUE(w2.ok());
  EXPECT_TRUE((*w2)->Append("all bytes").ok());
  ExpectInjected((*w2)->Close());
  EXPECT_TRUE(store_->Head("data/part-1.parquet").status().IsNotFound());
  EXPECT_EQ(Hidden("data/").size(), 2u);
}

TEST_P(FaultInjectingStoreTest, CrashMidOpenWriteCanSimulateANonAtomicStore) {
  FaultRule rule = FaultRule::CrashMidWrite(ObjectOp::kOpenWrite, 4);
  rule.crash_leaves_visible_partial = true;
  store_->AddRule(rule);
  auto w = store_->OpenWrite("data/torn.parquet");
  ASSERT_TRUE(w.ok());
  ExpectInjected((*w)->Append("PAR1 and the rest"));
  EXPECT_EQ(*store_->Get("data/torn.parquet"), "PAR1");
  EXPECT_TRUE(Hidden("data/").empty());
}

TEST_P(FaultInjectingStoreTest, FailedCloseAbandonsTheWrite) {
  store_->AddRule(FaultRule::FailAll(ObjectOp::kWriteClose));
  auto w = store_->OpenWrite("data/f.parquet");
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Append("bytes").ok());
  ExpectInjected((*w)->Close());
  EXPECT_EQ((*w)->bytes_written(), 5);
  EXPECT_FALSE((*w)->Close().ok());
  EXPECT_TRUE(store_->ListFrom("data/")->empty());  // not even a temp file
  store_->AddRule(FaultRule::FailAll(ObjectOp::kOpenWrite));
  ExpectInjected(store_->OpenWrite("data/g.parquet").status());
}

TEST_P(FaultInjectingStoreTest, RangedReadFaults) {
  ASSERT_TRUE(store_->Put("f", "0123456789").ok());
  FaultRule rule = FaultRule::FailAfter(1, ObjectOp::kReadAt);
  rule.max_faults = 1;
  store_->AddRule(rule);
  auto f = store_->OpenRead("f");
  ASSERT_TRUE(f.ok());
  char buf[4];
  auto* out = reinterpret_cast<uint8_t*>(buf);
  EXPECT_TRUE((*f)->ReadAt(0, 4, out).ok());
  ExpectInjected((*f)->ReadAt(4, 4, out));
  EXPECT_TRUE((*f)->ReadAt(4, 4, out).ok());
  EXPECT_EQ(std::string(buf, 4), "4567");
  EXPECT_EQ(store_->op_count(ObjectOp::kReadAt), 3);
  EXPECT_EQ((*f)->size(), 10);
  // The handle keeps working after the store is gone.
  store_.reset();
  EXPECT_TRUE((*f)->ReadAt(0, 4, out).ok());
}

TEST_P(FaultInjectingStoreTest, DelayedOperationsStillSucceed) {
  store_->AddRule(FaultRule::Delay(30, ObjectOp::kHead));
  ASSERT_TRUE(store_->Put("k", "v").ok());
  auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(store_->Head("k").ok());
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(30));
  EXPECT_EQ(store_->faults_injected(), 0);
}

TEST_P(FaultInjectingStoreTest, CountsOperationsPerKind) {
  ASSERT_TRUE(store_->Put("a", "1").ok());
  ASSERT_TRUE(store_->PutIfAbsent("b", "2").ok());
  EXPECT_TRUE(store_->PutIfAbsent("b", "2").IsAlreadyExists());
  ASSERT_TRUE(store_->Get("a").ok());
  ASSERT_TRUE(store_->Head("a").ok());
  ASSERT_TRUE(store_->ListFrom("").ok());
  ASSERT_TRUE(store_->DeleteMany({"a", "b", "c"}).ok());
  auto w = store_->OpenWrite("w");
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_EQ(store_->op_count(ObjectOp::kPut), 1);
  EXPECT_EQ(store_->op_count(ObjectOp::kPutIfAbsent), 2);
  EXPECT_EQ(store_->op_count(ObjectOp::kGet), 1);
  EXPECT_EQ(store_->op_count(ObjectOp::kHead), 1);
  EXPECT_EQ(store_->op_count(ObjectOp::kListFrom), 1);
  EXPECT_EQ(store_->op_count(ObjectOp::kDelete), 3);
  EXPECT_EQ(store_->op_count(ObjectOp::kOpenWrite), 1);
  EXPECT_EQ(store_->op_count(ObjectOp::kWriteClose), 1);
  EXPECT_EQ(store_->total_ops(), 11);
  EXPECT_STREQ(ObjectOpName(ObjectOp::kPutIfAbsent), "PutIfAbsent");
  store_->ResetCounters();
  EXPECT_EQ(store_->total_ops(), 0);
  // DeleteMany reports a fault on one key but still attempts the others.
  ASSERT_TRUE(store_->Put("x", "1").ok());
  ASSERT_TRUE(store_->Put("y", "1").ok());
  FaultRule rule = FaultRule::FailAll(ObjectOp::kDelete);
  rule.key_contains = "x";
  store_->AddRule(rule);
  ExpectInjected(store_->DeleteMany({"x", "y"}));
  EXPECT_TRUE(store_->Head("x").ok());
  EXPECT_TRUE(store_->Head("y").status().IsNotFound());
}

INSTANTIATE_TEST_SUITE_P(Inner, FaultInjectingStoreTest,
                         ::testing::Values(AllStores()[0], AllStores()[1]),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace silt
