// AzureBlobStore and its HTTP layer. The parsing, configuration and retry tests run everywhere
// (the retry tests against tiny local socket servers); the rest needs Azurite, which
// test/cloud/run.sh starts (SILT_TEST_AZURE=1): they skip with a message otherwise. The generic
// ObjectStore conformance suite runs on Azure too (object_store_test.cc, AzurePrefix and
// AzureContainer), and so does the whole sqllogictest suite (silt_sql_tests --store azure);
// tables on Azure are in cloud_store_test.cc.
#include "io/azure_blob_store.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <set>
#include <thread>

#include "io/object_store_factory.h"
#include "io/storage_config.h"
#include "planner/session_config.h"
#include "silt/silt.h"
#include "unit/io/cloud_test_util.h"

namespace silt {
namespace {

using cloudtest::ScopedEnv;
using cloudtest::Unique;

bool AzureAvailable() {
  const char* v = std::getenv("SILT_TEST_AZURE");
  return v != nullptr && std::string(v) == "1";
}

#define REQUIRE_AZURITE()                                           \
  if (!AzureAvailable())                                            \
  GTEST_SKIP() << "SKIP Azurite is not running (test/cloud/run.sh " \
                  "starts it)"

// ---- URL forms -------------------------------------------------------------------------------

TEST(AzureLocationTest, ParsesEveryUrlForm) {
  auto a = ParseAzureLocation("abfss://data@acct.dfs.core.windows.net/lake/events/");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->account, "acct");
  EXPECT_EQ(a->container, "data");
  EXPECT_EQ(a->path, "lake/events");
  EXPECT_EQ(a->host, "acct.dfs.core.windows.net");
  EXPECT_EQ(a->canonical, "abfss://data@acct.dfs.core.windows.net/lake/events");
  EXPECT_FALSE(a->onelake);

  auto b = ParseAzureLocation("ABFS://data@Acct.dfs.core.windows.net");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->account, "acct");
  EXPECT_EQ(b->path, "");
  auto w = ParseAzureLocation("wasbs://c@acct.blob.core.windows.net/t");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->container, "c");
  EXPECT_EQ(w->path, "t");
  auto h = ParseAzureLocation("https://acct.blob.core.windows.net/c/dir/t");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->account, "acct");
  EXPECT_EQ(h->container, "c");
  EXPECT_EQ(h->path, "dir/t");
  EXPECT_EQ(h->canonical, "https://acct.blob.core.windows.net/c/dir/t");
  EXPECT_TRUE(IsAzureLocation("https://acct.dfs.core.windows.net/c/t"));
  EXPECT_FALSE(IsAzureLocation("https://example.com/c/t"));
  EXPECT_FALSE(IsAzureLocation("/local/path"));

  auto o = ParseAzureLocation(
      "abfss://ws@onelake.dfs.fabric.microsoft.com/sales.Lakehouse/Tables/orders");
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o->onelake);
  EXPECT_EQ(o->account, "onelake");
  EXPECT_EQ(o->container, "ws");
  EXPECT_EQ(o->path, "sales.Lakehouse/Tables/orders");

  {
    ScopedEnv account("AZURE_STORAGE_ACCOUNT", "envacct");
    ScopedEnv name("AZURE_STORAGE_ACCOUNT_NAME", nullptr);
    auto z = ParseAzureLocation("az://c/t");
    ASSERT_TRUE(z.ok());
    EXPECT_EQ(z->account, "envacct");
    EXPECT_EQ(z->container, "c");
    EXPECT_EQ(z->canonical, "az://c/t");
  }
  {
    ScopedEnv account("AZURE_STORAGE_ACCOUNT", nullptr);
    ScopedEnv name("AZURE_STORAGE_ACCOUNT_NAME", nullptr);
    ScopedEnv emu("AZURE_STORAGE_USE_EMULATOR", nullptr);
    auto z = ParseAzureLocation("az://c/t");
    EXPECT_EQ(z.status().code(), StatusCode::kInvalidArgument) << z.status().ToString();
    EXPECT_NE(z.status().message().find("AZURE_STORAGE_ACCOUNT"), std::string_view::npos);
  }
  EXPECT_EQ(ParseAzureLocation("abfss://acct.dfs.core.windows.net/x").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseAzureLocation("abfss://c@acct.dfs.core.windows.net/a/../b").status().code(),
            StatusCode::kInvalidArgument);
  // A SAS token pasted into the URL is refused without being echoed.
  auto sas = ParseAzureLocation("https://acct.blob.core.windows.net/c/t?sv=2021&sig=SECRETSIG");
  EXPECT_EQ(sas.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(sas.status().ToString().find("SECRETSIG"), std::string::npos)
      << sas.status().ToString();
  EXPECT_NE(sas.status().message().find("AZURE_STORAGE_SAS_TOKEN"), std::string_view::npos);
  EXPECT_EQ(ParseAzureLocation("adl://acct.azuredatalakestore.net/x").status().code(),
            StatusCode::kNotImplemented);
  // The factory knows the forms: canonical locations and children.
  EXPECT_EQ(*CanonicalLocation("abfss://data@acct.dfs.core.windows.net/lake/"),
            "abfss://data@acct.dfs.core.windows.net/lake");
  EXPECT_EQ(ChildLocation("abfss://data@acct.dfs.core.windows.net/lake", "t"),
            "abfss://data@acct.dfs.core.windows.net/lake/t");
  EXPECT_EQ(OpenObjectStore("gs://b/t", nullptr).status().code(), StatusCode::kNotImplemented);
}

// ---- Configuration ------------------------------------------------------------------------------

class AzureConfigTest : public ::testing::Test {
 protected:
  void SetUp() override { ClearStorageConfig(); }
  void TearDown() override { ClearStorageConfig(); }
  ScopedEnv e1_{"AZURE_STORAGE_ACCOUNT", nullptr};
  ScopedEnv e2_{"AZURE_STORAGE_KEY", nullptr};
  ScopedEnv e3_{"AZURE_STORAGE_ACCOUNT_KEY", nullptr};
  ScopedEnv e4_{"AZURE_STORAGE_SAS_TOKEN", nullptr};
  ScopedEnv e5_{"AZURE_STORAGE_TOKEN", nullptr};
  ScopedEnv e6_{"AZURE_STORAGE_ENDPOINT", nullptr};
  ScopedEnv e7_{"AZURE_STORAGE_USE_EMULATOR", nullptr};
  ScopedEnv e8_{"AZURE_STORAGE_ACCOUNT_NAME", nullptr};
};

TEST_F(AzureConfigTest, CredentialsAndEndpointsByHadoopNamesAndEnvironment) {
  auto loc = *ParseAzureLocation("abfss://c@acct.dfs.core.windows.net/t");
  // Nothing configured: anonymous, the account's blob endpoint.
  auto o = AzureOptionsFromConfig(loc);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->credentials.kind, AzureCredentials::Kind::kAnonymous);
  EXPECT_EQ(o->endpoint, "https://acct.blob.core.windows.net");
  // The environment.
  {
    ScopedEnv sas("AZURE_STORAGE_SAS_TOKEN", "?sv=2021&sig=abc");
    o = AzureOptionsFromConfig(loc);
    EXPECT_EQ(o->credentials.kind, AzureCredentials::Kind::kSas);
    EXPECT_EQ(o->credentials.sas, "sv=2021&sig=abc");
    ScopedEnv key("AZURE_STORAGE_KEY", "a2V5");  // "key"
    o = AzureOptionsFromConfig(loc);
    EXPECT_EQ(o->credentials.kind, AzureCredentials::Kind::kSharedKey);
    EXPECT_EQ(o->credentials.key, "key");
    // An environment account of another name does not lend its key.
    ScopedEnv other("AZURE_STORAGE_ACCOUNT", "other");
    o = AzureOptionsFromConfig(loc);
    EXPECT_EQ(o->credentials.kind, AzureCredentials::Kind::kAnonymous);
  }
  {
    ScopedEnv token("AZURE_STORAGE_TOKEN", "eyJ0eXAi");
    o = AzureOptionsFromConfig(loc);
    EXPECT_EQ(o->credentials.kind, AzureCredentials::Kind::kBearer);
    EXPECT_EQ(o->credentials.token, "eyJ0eXAi");
  }
  // Hadoop names win over the environment; "spark.hadoop." prefixes are dropped.
  ScopedEnv token("AZURE_STORAGE_TOKEN", "eyJ0eXAi");
  SetStorageConfig("spark.hadoop.fs.azure.account.key.acct.dfs.core.windows.net", "c2VjcmV0");
  o = AzureOptionsFromConfig(loc);
  EXPECT_EQ(o->credentials.kind, AzureCredentials::Kind::kSharedKey);
  EXPECT_EQ(o->credentials.key, "secret");
  SetStorageConfig("fs.azure.account.key.acct.dfs.core.windows.net", std::nullopt);
  SetStorageConfig("fs.azure.sas.fixed.token.acct.dfs.core.windows.net", "sv=x&sig=y");
  o = AzureOptionsFromConfig(loc);
  EXPECT_EQ(o->credentials.kind, AzureCredentials::Kind::kSas);
  SetStorageConfig("fs.azure.storage.endpoint.acct", "http://127.0.0.1:1/acct/");
  SetStorageConfig("fs.azure.io.retry.max.retries", "3");
  SetStorageConfig("fs.azure.write.request.size", "1048576");
  o = AzureOptionsFromConfig(loc);
  EXPECT_EQ(o->endpoint, "http://127.0.0.1:1/acct");
  EXPECT_EQ(o->http.max_retries, 3);
  EXPECT_EQ(o->block_size, 1048576);
  // OneLake: the Fabric blob endpoint.
  auto one =
      *ParseAzureLocation("abfss://ws@onelake.dfs.fabric.microsoft.com/i.Lakehouse/Tables/t");
  EXPECT_EQ(AzureOptionsFromConfig(one)->endpoint, "https://onelake.blob.fabric.microsoft.com");
  // The emulator switch: Azurite's account, key and endpoint.
  ScopedEnv emu("AZURE_STORAGE_USE_EMULATOR", "true");
  ClearStorageConfig();
  auto dev = *ParseAzureLocation("az://c/t");
  EXPECT_EQ(dev.account, "devstoreaccount1");
  auto d = AzureOptionsFromConfig(dev);
  EXPECT_EQ(d->endpoint, "http://127.0.0.1:10000/devstoreaccount1");
  EXPECT_EQ(d->credentials.kind, AzureCredentials::Kind::kBearer);  // the token set above wins
}

TEST_F(AzureConfigTest, SecretsAreNeverShown) {
  auto loc = *ParseAzureLocation("abfss://c@acct.dfs.core.windows.net/t");
  SetStorageConfig("fs.azure.account.key.acct.dfs.core.windows.net", "not base64 TOPSECRET!");
  auto o = AzureOptionsFromConfig(loc);
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().error_class(), kErrorCloudAuth);
  EXPECT_EQ(o.status().ToString().find("TOPSECRET"), std::string::npos) << o.status().ToString();
  // SET stores the value for the stores and shows only the redaction text.
  planner::SessionConfig conf;
  ASSERT_TRUE(conf.Set("fs.azure.account.key.acct.dfs.core.windows.net", "c2VjcmV0").ok());
  EXPECT_EQ(*conf.Get("fs.azure.account.key.acct.dfs.core.windows.net"), kRedactedValue);
  EXPECT_EQ(conf.values().at("fs.azure.account.key.acct.dfs.core.windows.net"), kRedactedValue);
  EXPECT_EQ(*GetStorageConfig("fs.azure.account.key.acct.dfs.core.windows.net"), "c2VjcmV0");
  conf.Reset("fs.azure.account.key.acct.dfs.core.windows.net");
  EXPECT_FALSE(GetStorageConfig("fs.azure.account.key.acct.dfs.core.windows.net").has_value());
}

TEST(HttpUtilTest, EncodingSigningAndDates) {
  EXPECT_EQ(UrlEncode("a b/c%d\xC3\xA9", true), "a%20b/c%25d%C3%A9");
  EXPECT_EQ(UrlEncode("a/b", false), "a%2Fb");
  EXPECT_EQ(UrlDecode("a%20b%2fc%zz"), "a b/c%zz");
  EXPECT_EQ(Base64Encode("hello"), "aGVsbG8=");
  EXPECT_EQ(*Base64Decode("aGVsbG8="), "hello");
  EXPECT_EQ(*Base64Decode("aGk="), "hi");
  EXPECT_FALSE(Base64Decode("abc").ok());
  // RFC 4231 test case 2.
  EXPECT_EQ(
      Base64Encode(HmacSha256("Jefe", "what do ya want for nothing?")),
      Base64Encode(std::string("\x5b\xdc\xc1\x46\xbf\x60\x75\x4e\x6a\x04\x24\x26\x08\x95\x75\xc7"
                               "\x5a\x00\x3f\x08\x9d\x27\x39\x83\x9d\xec\x58\xb9\x64\xec\x38\x43",
                               32)));
  EXPECT_EQ(HttpDate(784111777000), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(ParseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT"), 784111777000);
}

// ---- Retries against local socket servers
// ---------------------------------------------------------

// A TCP server on 127.0.0.1 answering each connection with `handler(connection index, fd)`.
class TinyServer {
 public:
  explicit TinyServer(std::function<void(int, int)> handler) : handler_(std::move(handler)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    socklen_t len = sizeof(addr);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    ::listen(fd_, 16);
    thread_ = std::thread([this] {
      for (int i = 0;; ++i) {
        int c = ::accept(fd_, nullptr, nullptr);
        if (c < 0 || stop_) {
          if (c >= 0) ::close(c);
          return;
        }
        handler_(i, c);
      }
    });
  }
  ~TinyServer() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/x"; }

 private:
  std::function<void(int, int)> handler_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

void ReadRequest(int fd) {
  char buf[4096];
  std::string req;
  while (req.find("\r\n\r\n") == std::string::npos) {
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) return;
    req.append(buf, static_cast<size_t>(n));
  }
}

void Reply(int fd, int status, const std::string& body) {
  std::string r = "HTTP/1.1 " + std::to_string(status) +
                  " X\r\nContent-Length: " + std::to_string(body.size()) +
                  "\r\nConnection: close\r\n\r\n" + body;
  ::send(fd, r.data(), r.size(), MSG_NOSIGNAL);
}

HttpOptions FastRetries(int max_retries, std::vector<int64_t>* sleeps) {
  HttpOptions o;
  o.max_retries = max_retries;
  o.min_backoff_ms = 10;
  o.max_backoff_ms = 80;
  o.connect_timeout_ms = 2000;
  o.request_timeout_ms = 3000;
  o.sleep = [sleeps](int64_t ms) { sleeps->push_back(ms); };
  return o;
}

std::function<Result<HttpRequest>()> Get(const std::string& url) {
  return [url]() -> Result<HttpRequest> {
    HttpRequest r;
    r.method = "GET";
    r.url = url;
    return r;
  };
}

TEST(HttpClientTest, RetriesThrottlingAndServerErrorsWithBoundedJitteredBackoff) {
  TinyServer server([](int i, int fd) {
    ReadRequest(fd);
    Reply(fd, i == 0 ? 429 : i == 1 ? 503 : i == 2 ? 500 : 200, i < 3 ? "busy" : "ok");
    ::close(fd);
  });
  std::vector<int64_t> sleeps;
  HttpClient client(FastRetries(5, &sleeps));
  auto r = client.SendWithRetries(Get(server.url()), RequestKind::kGet, "GET test");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "ok");
  EXPECT_EQ(client.counts().get(), 4);
  EXPECT_EQ(client.counts().retries, 3);
  ASSERT_EQ(sleeps.size(), 3u);
  for (int64_t ms : sleeps) {
    EXPECT_GE(ms, 5);
    EXPECT_LE(ms, 80);
  }
}

TEST(HttpClientTest, PersistentThrottlingEndsWithTheLastStatus) {
  TinyServer server([](int, int fd) {
    ReadRequest(fd);
    Reply(fd, 503, "");
    ::close(fd);
  });
  std::vector<int64_t> sleeps;
  HttpClient client(FastRetries(3, &sleeps));
  auto r = client.SendWithRetries(Get(server.url()), RequestKind::kGet, "GET test");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(client.counts().get(), 4);
  EXPECT_EQ(sleeps.size(), 3u);
}

TEST(HttpClientTest, DroppedConnectionsAreRetriedAndMarkTheOutcomeUnknown) {
  TinyServer server([](int i, int fd) {
    ReadRequest(fd);
    if (i >= 2) Reply(fd, 200, "ok");
    ::close(fd);  // the first two: closed without an answer
  });
  std::vector<int64_t> sleeps;
  HttpClient client(FastRetries(4, &sleeps));
  bool ambiguous = false;
  auto r = client.SendWithRetries(Get(server.url()), RequestKind::kGet, "GET test", &ambiguous);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(ambiguous);
  EXPECT_EQ(client.counts().retries, 2);
}

TEST(HttpClientTest, TimeoutsAreRetriedThenAClearError) {
  std::vector<int> held;
  std::mutex mu;
  TinyServer server([&](int, int fd) {
    ReadRequest(fd);
    std::lock_guard<std::mutex> lock(mu);
    held.push_back(fd);  // never answered
  });
  std::vector<int64_t> sleeps;
  HttpOptions o = FastRetries(2, &sleeps);
  o.request_timeout_ms = 200;
  HttpClient client(o);
  auto r = client.SendWithRetries(Get(server.url() + "?sig=SECRETSIG"), RequestKind::kGet,
                                  "GET az://c/key");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kIoError);
  EXPECT_EQ(r.status().error_class(), kErrorCloudStorage);
  std::string msg(r.status().message());
  EXPECT_NE(msg.find("GET az://c/key failed after 3 attempts: timed out"), std::string::npos)
      << msg;
  EXPECT_EQ(msg.find("SECRETSIG"), std::string::npos) << msg;
  EXPECT_EQ(client.counts().get(), 3);
  std::lock_guard<std::mutex> lock(mu);
  for (int fd : held) ::close(fd);
}

TEST(HttpClientTest, ConnectionRefusedIsRetriedThenAnError) {
  int port;
  {
    TinyServer s([](int, int fd) { ::close(fd); });
    port = std::stoi(s.url().substr(17, s.url().find('/', 17) - 17));
  }
  std::vector<int64_t> sleeps;
  HttpClient client(FastRetries(2, &sleeps));
  auto r = client.SendWithRetries(Get("http://127.0.0.1:" + std::to_string(port) + "/"),
                                  RequestKind::kList, "LIST az://c/");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("could not connect"), std::string_view::npos)
      << r.status().ToString();
  EXPECT_EQ(client.counts().list(), 3);
}

// ---- Against Azurite ----------------------------------------------------------------------------

std::shared_ptr<AzureBlobStore> OpenFresh(const std::string& container = "units") {
  auto whole = AzureBlobStore::Open("az://" + container);
  EXPECT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_TRUE((*whole)->CreateContainer().ok());
  auto store = AzureBlobStore::Open("az://" + container + "/" + Unique("u"));
  EXPECT_TRUE(store.ok());
  return *store;
}

TEST(AzureBlobStoreTest, AWrongKeyIsAnAuthErrorThatShowsNoSecret) {
  REQUIRE_AZURITE();
  OpenFresh();
  auto loc = *ParseAzureLocation("az://units/x");
  auto options = *AzureOptionsFromConfig(loc);
  options.credentials.key = "WRONGKEYBYTES";
  options.http.max_retries = 0;
  AzureBlobStore store(loc, options);
  auto head = store.Head("k");
  ASSERT_FALSE(head.ok());
  EXPECT_EQ(head.status().error_class(), kErrorCloudAuth) << head.status().ToString();
  EXPECT_NE(head.status().message().find("HTTP 403"), std::string_view::npos);
  EXPECT_EQ(head.status().ToString().find("WRONGKEY"), std::string::npos);
  EXPECT_EQ(head.status().ToString().find("SharedKey"), std::string::npos);
  EXPECT_EQ(head.status().ToString().find(Base64Encode("WRONGKEYBYTES")), std::string::npos);
}

TEST(AzureBlobStoreTest, ListingFollowsPagesAndRequestsAreCounted) {
  REQUIRE_AZURITE();
  auto base = OpenFresh();
  AzureBlobStoreOptions o = *AzureOptionsFromConfig(base->location());
  o.list_page_size = 3;
  AzureBlobStore store(base->location(), o);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(store.Put("d/f" + std::to_string(i), "x").ok());
  ASSERT_TRUE(store.Put("d/sub/g", "y").ok());
  store.http().ResetCounts();
  auto listed = store.ListFrom("d/");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), 10u);
  EXPECT_GE(store.counts().list(), 4);  // 10 blobs and a prefix, 3 a page
  EXPECT_EQ(store.counts().get() + store.counts().put(), 0);
  int entries = 0;
  store.http().ResetCounts();
  ASSERT_TRUE(store
                  .ListRecursive("d",
                                 [&](const ObjectMeta&) {
                                   ++entries;
                                   return Status::OK();
                                 })
                  .ok());
  EXPECT_EQ(entries, 12);  // 11 objects and d/sub
  EXPECT_EQ(store.counts().list(), 4);
  EXPECT_EQ(store.counts().ToString(), "list=4 head=0 get=0 put=0 delete=0 retries=0");
}

// VACUUM's DeleteKeys: Blob Batches of 256 Delete Blob subrequests, one status per key.
TEST(AzureBlobStoreTest, DeleteKeysSendsBlobBatches) {
  REQUIRE_AZURITE();
  auto store = OpenFresh();
  std::vector<std::string> names;
  for (int i = 0; i < 300; ++i) {
    names.push_back("p=" + std::to_string(i % 3) + "/part " + std::to_string(i) + ".parquet");
    ASSERT_TRUE(store->Put(names.back(), "x").ok());
  }
  ASSERT_TRUE(store->Put("keep", "k").ok());
  std::vector<std::string_view> keys(names.begin(), names.end());
  keys.push_back("missing/one");
  keys.push_back("../bad");
  std::vector<Status> statuses(keys.size(), Status::Internal("unset"));
  store->http().ResetCounts();
  store->DeleteKeys(keys, statuses);
  for (size_t i = 0; i + 1 < keys.size(); ++i)
    EXPECT_TRUE(statuses[i].ok()) << keys[i] << statuses[i].ToString();
  EXPECT_EQ(statuses.back().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store->counts().del(), 2);  // 256 + 45
  int left = 0;
  ASSERT_TRUE(store
                  ->ListRecursive("",
                                  [&](const ObjectMeta& m) {
                                    left += m.is_dir ? 0 : 1;
                                    return Status::OK();
                                  })
                  .ok());
  EXPECT_EQ(left, 1);
  EXPECT_EQ(*store->Get("keep"), "k");
}

TEST(AzureBlobStoreTest, BlockUploadsAndRangedReadsPinnedToTheOpenedVersion) {
  REQUIRE_AZURITE();
  auto base = OpenFresh();
  AzureBlobStoreOptions o = *AzureOptionsFromConfig(base->location());
  o.single_put_limit = 1000;
  o.block_size = 400;
  o.prefetch_bytes = 100;
  auto store = std::make_shared<AzureBlobStore>(base->location(), o);
  std::string data;
  for (int i = 0; i < 2500; ++i) data.push_back(static_cast<char>('a' + i % 26));
  store->http().ResetCounts();
  ASSERT_TRUE(store->Put("big", data).ok());
  EXPECT_EQ(store->counts().put(), 8);  // 7 blocks and the list
  EXPECT_EQ(*store->Get("big"), data);
  // PutIfAbsent through blocks is exclusive too.
  EXPECT_TRUE(store->PutIfAbsent("big", data).IsAlreadyExists());
  ASSERT_TRUE(store->PutIfAbsent("big2", data).ok());
  // A streamed write of three blocks appears at Close only.
  auto w = store->OpenWrite("streamed").MoveValue();
  ASSERT_TRUE(w->Append(data.substr(0, 1000)).ok());
  EXPECT_TRUE(store->Head("streamed").status().IsNotFound());
  ASSERT_TRUE(w->Close().ok());
  EXPECT_EQ(*store->Get("streamed"), data.substr(0, 1000));
  // A handle reads the version it opened: the prefetched head stays, a later range of a replaced
  // object is an error, never bytes of another version.
  auto f = *store->OpenRead("big");
  EXPECT_EQ(f->size(), 2500);
  std::string buf(50, '\0');
  ASSERT_TRUE(f->ReadAt(2000, 50, reinterpret_cast<uint8_t*>(buf.data())).ok());
  EXPECT_EQ(buf, data.substr(2000, 50));
  ASSERT_TRUE(store->Put("big", std::string(2500, 'Z')).ok());
  ASSERT_TRUE(f->ReadAt(0, 50, reinterpret_cast<uint8_t*>(buf.data())).ok());
  EXPECT_EQ(buf, data.substr(0, 50));
  Status st = f->ReadAt(1000, 50, reinterpret_cast<uint8_t*>(buf.data()));
  EXPECT_EQ(st.code(), StatusCode::kIoError);
  EXPECT_NE(st.message().find("changed since it was opened"), std::string_view::npos)
      << st.ToString();
}

TEST(AzureBlobStoreTest, InjectedThrottlingTimeoutsAndDropsAreRetried) {
  REQUIRE_AZURITE();
  auto base = OpenFresh();
  AzureBlobStoreOptions o = *AzureOptionsFromConfig(base->location());
  o.http.min_backoff_ms = 1;
  o.http.max_backoff_ms = 5;
  AzureBlobStore store(base->location(), o);
  std::atomic<int> n{0};
  store.http().set_fault_hook([&](const HttpRequest&, RequestKind) {
    int i = n++;
    FaultDecision d;
    if (i % 4 == 0) d.action = FaultDecision::kStatus, d.status = 503;
    if (i % 4 == 1) d.action = FaultDecision::kTimeout;
    if (i % 4 == 2) d.action = FaultDecision::kDropped;
    return d;
  });
  ASSERT_TRUE(store.Put("a", "1").ok());
  EXPECT_EQ(*store.Get("a"), "1");
  EXPECT_EQ(store.ListFrom("")->size(), 1u);
  ASSERT_TRUE(store.Delete("a").ok());
  EXPECT_EQ(store.counts().retries, 12);
}

// A create whose response is lost: the retry finds the blob; reading it back tells our create
// (success) from another writer's (AlreadyExists).
TEST(AzureBlobStoreTest, PutIfAbsentWithALostResponseKnowsWhetherItWon) {
  REQUIRE_AZURITE();
  auto base = OpenFresh();
  AzureBlobStoreOptions o = *AzureOptionsFromConfig(base->location());
  o.http.min_backoff_ms = 1;
  o.http.max_backoff_ms = 5;
  AzureBlobStore store(base->location(), o);
  std::atomic<int> puts{0};
  store.http().set_fault_hook([&](const HttpRequest&, RequestKind kind) {
    FaultDecision d;
    if (kind == RequestKind::kPut && puts++ == 0) d.action = FaultDecision::kDropAfter;
    return d;
  });
  ASSERT_TRUE(store.PutIfAbsent("_delta_log/00000000000000000000.json", "mine").ok());
  EXPECT_EQ(*store.Get("_delta_log/00000000000000000000.json"), "mine");
  // Another writer's commit is there, our first attempt's response was lost: we lost.
  ASSERT_TRUE(base->Put("x", "").ok());
  AzureBlobStore other(base->location(), o);
  ASSERT_TRUE(other.Put("_delta_log/00000000000000000001.json", "theirs").ok());
  puts = 0;
  Status st = store.PutIfAbsent("_delta_log/00000000000000000001.json", "mine");
  EXPECT_TRUE(st.IsAlreadyExists()) << st.ToString();
  // Throttled for longer than the retries last: a clear error, nothing written.
  AzureBlobStoreOptions few = o;
  few.http.max_retries = 2;
  AzureBlobStore throttled(base->location(), few);
  throttled.http().set_fault_hook([](const HttpRequest&, RequestKind) {
    return FaultDecision{FaultDecision::kStatus, 503};
  });
  st = throttled.PutIfAbsent("_delta_log/00000000000000000002.json", "x");
  EXPECT_EQ(st.code(), StatusCode::kIoError);
  EXPECT_NE(st.message().find("HTTP 503"), std::string_view::npos) << st.ToString();
  EXPECT_TRUE(store.Head("_delta_log/00000000000000000002.json").status().IsNotFound());
}

}  // namespace
}  // namespace silt
