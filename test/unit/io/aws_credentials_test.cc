// AWS credentials beyond static keys (io/aws_credentials.h): web identity through STS, container
// credentials, EC2 instance metadata (IMDSv2), refreshed before they expire, and S3A's
// fs.s3a.aws.credentials.provider; every endpoint served by FakeS3Server on 127.0.0.1 (the
// SDKs' endpoint overrides point there), so the S3 requests show which credentials signed them.
#include "io/aws_credentials.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "common/clock.h"
#include "io/cloud_util.h"
#include "io/s3_object_store.h"
#include "io/storage_config.h"
#include "support/fake_s3_server.h"
#include "unit/io/cloud_test_util.h"

namespace silt {
namespace {

using cloudtest::ScopedEnv;

std::string CredentialJson(const std::string& key, int64_t expires_ms) {
  return "{\"Code\":\"Success\",\"Type\":\"AWS-HMAC\",\"AccessKeyId\":\"" + key +
         "\",\"SecretAccessKey\":\"S\\/ECRET\",\"Token\":\"TOK-" + key + "\",\"Expiration\":\"" +
         cloud::FormatIso8601Millis(expires_ms) + "\"}";
}

std::string Header(const FakeS3Server::Request& r, const char* name) {
  auto it = r.headers.find(name);
  return it == r.headers.end() ? "" : it->second;
}

// No credentials anywhere but what a test sets.
class AwsCredentialsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    AwsCredentialsProvider::ForgetSharedForTesting();
    S3ObjectStore::ForgetConditionalWriteProbesForTesting();
    for (const char* name :
         {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
          "AWS_DEFAULT_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN",
          "AWS_ROLE_SESSION_NAME", "AWS_ENDPOINT_URL_STS", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
          "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_AUTHORIZATION_TOKEN",
          "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", "AWS_EC2_METADATA_SERVICE_ENDPOINT",
          "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_REGION", "AWS_DEFAULT_REGION"}) {
      env_.push_back(std::make_unique<ScopedEnv>(name, nullptr));
    }
    env_.push_back(std::make_unique<ScopedEnv>("AWS_SHARED_CREDENTIALS_FILE", "/dev/null"));
    env_.push_back(std::make_unique<ScopedEnv>("AWS_CONFIG_FILE", "/dev/null"));
    env_.push_back(std::make_unique<ScopedEnv>("AWS_EC2_METADATA_DISABLED", "true"));
    dir_ = std::filesystem::temp_directory_path() /
           ("silt-awscreds-" + std::to_string(::getpid()) + "-" + cloudtest::Unique("d"));
    std::filesystem::create_directories(dir_);
    SetStorageConfig("fs.s3a.endpoint", server_.endpoint());
    SetStorageConfig("fs.s3a.retry.interval", "1");
    SetStorageConfig("fs.s3a.conditional.put", "single-process");
  }
  void TearDown() override {
    SetStorageConfig("fs.s3a.endpoint", std::nullopt);
    SetStorageConfig("fs.s3a.retry.interval", std::nullopt);
    SetStorageConfig("fs.s3a.conditional.put", std::nullopt);
    SetStorageConfig("fs.s3a.aws.credentials.provider", std::nullopt);
    env_.clear();
    std::filesystem::remove_all(dir_);
    AwsCredentialsProvider::ForgetSharedForTesting();
    S3ObjectStore::ForgetConditionalWriteProbesForTesting();
  }
  std::shared_ptr<S3ObjectStore> OpenStore() {
    auto store = S3ObjectStore::Open("s3://b/t");
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? *store : nullptr;
  }
  // The S3 (not credential) requests' Authorization and security token.
  std::vector<std::pair<std::string, std::string>> S3Signatures() {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& r : server_.requests()) {
      if (r.path.starts_with("/b")) {
        out.emplace_back(Header(r, "authorization"), Header(r, "x-amz-security-token"));
      }
    }
    return out;
  }
  FakeS3Server server_;
  std::vector<std::unique_ptr<ScopedEnv>> env_;
  std::filesystem::path dir_;
};

TEST_F(AwsCredentialsTest, WebIdentityTokenIsExchangedAtStsOnceAndSignsRequests) {
  std::string token_file = (dir_ / "token").string();
  std::ofstream(token_file) << "eyJ.web.identity\n";
  ScopedEnv f("AWS_WEB_IDENTITY_TOKEN_FILE", token_file.c_str());
  ScopedEnv a("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/reader");
  ScopedEnv s("AWS_ROLE_SESSION_NAME", "silt-test");
  std::string sts = server_.endpoint() + "/sts";
  ScopedEnv e("AWS_ENDPOINT_URL_STS", sts.c_str());
  int calls = 0;
  std::string sts_body;
  server_.SetHandler(
      [&](const FakeS3Server::Request& r, const std::string& body, int* status, std::string* out) {
        if (!r.path.starts_with("/sts")) return false;
        ++calls;
        sts_body = body;
        *status = 200;
        *out =
            "<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials>"
            "<AccessKeyId>ASIAWEB</AccessKeyId><SecretAccessKey>websecret</SecretAccessKey>"
            "<SessionToken>WEBTOKEN</SessionToken><Expiration>" +
            cloud::FormatIso8601Millis(SystemClock().NowMillis() + 3600 * 1000) +
            "</Expiration></Credentials></AssumeRoleWithWebIdentityResult>"
            "</AssumeRoleWithWebIdentityResponse>";
        return true;
      });
  auto store = OpenStore();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Put("a", "1").ok());
  auto again = OpenStore();  // a later statement's store shares the credentials
  ASSERT_TRUE(again->Get("a").ok());
  EXPECT_EQ(calls, 1);
  EXPECT_NE(sts_body.find("Action=AssumeRoleWithWebIdentity"), std::string::npos);
  EXPECT_NE(sts_body.find("RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Freader"),
            std::string::npos)
      << sts_body;
  EXPECT_TRUE(sts_body.ends_with("&WebIdentityToken=eyJ.web.identity")) << sts_body;
  EXPECT_NE(sts_body.find("RoleSessionName=silt-test"), std::string::npos);
  auto sigs = S3Signatures();
  ASSERT_EQ(sigs.size(), 2u);
  for (const auto& [auth, token] : sigs) {
    EXPECT_TRUE(auth.starts_with("AWS4-HMAC-SHA256 Credential=ASIAWEB/")) << auth;
    EXPECT_EQ(token, "WEBTOKEN");
  }
  // STS refusing the token: an auth error naming the role, not the token.
  AwsCredentialsProvider::ForgetSharedForTesting();
  server_.SetHandler(
      [](const FakeS3Server::Request& r, const std::string&, int* status, std::string* out) {
        if (!r.path.starts_with("/sts")) return false;
        *status = 400;
        *out = "<ErrorResponse><Error><Code>InvalidIdentityToken</Code></Error></ErrorResponse>";
        return true;
      });
  auto refused = OpenStore();
  Status st = refused->Put("b", "2");
  EXPECT_EQ(st.error_class(), kErrorCloudAuth) << st.ToString();
  EXPECT_NE(st.message().find("InvalidIdentityToken"), std::string_view::npos) << st.ToString();
  EXPECT_EQ(st.ToString().find("eyJ"), std::string::npos);
}

TEST_F(AwsCredentialsTest, ContainerCredentialsAreRefreshedBeforeTheyExpire) {
  ManualClock clock(1'700'000'000'000);
  int calls = 0;
  std::string auth;
  server_.SetHandler(
      [&](const FakeS3Server::Request& r, const std::string&, int* status, std::string* out) {
        if (r.path != "/v2/credentials/abc") return false;
        ++calls;
        auth = Header(r, "authorization");
        *status = 200;
        *out = CredentialJson("AK" + std::to_string(calls), clock.NowMillis() + 10 * 60 * 1000);
        return true;
      });
  AwsCredentialsProvider::Options o;
  o.chain = {AwsCredentialsProvider::Source::kContainer};
  o.container_uri = server_.endpoint() + "/v2/credentials/abc";
  std::string token_file = (dir_ / "auth").string();
  std::ofstream(token_file) << "Bearer pod-identity\n";
  o.container_auth_file = token_file;
  o.clock = &clock;
  AwsCredentialsProvider p(o);
  auto c = p.Get();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->access_key, "AK1");
  EXPECT_EQ(c->secret_key, "S/ECRET");
  EXPECT_EQ(c->session_token, "TOK-AK1");
  EXPECT_EQ(auth, "Bearer pod-identity");
  clock.AdvanceMillis(4 * 60 * 1000);  // 6 minutes left: still good
  EXPECT_EQ(p.Get()->access_key, "AK1");
  EXPECT_EQ(calls, 1);
  clock.AdvanceMillis(2 * 60 * 1000);  // 4 minutes left: fetched anew
  EXPECT_EQ(p.Get()->access_key, "AK2");
  EXPECT_EQ(calls, 2);
  // The endpoint failing while the old credentials still hold: they are kept.
  server_.SetHandler(
      [](const FakeS3Server::Request&, const std::string&, int* status, std::string* out) {
        *status = 500;
        *out = "";
        return true;
      });
  clock.AdvanceMillis(7 * 60 * 1000);  // 3 minutes left of AK2
  EXPECT_EQ(p.Get()->access_key, "AK2");
  clock.AdvanceMillis(4 * 60 * 1000);  // expired
  Status st = p.Get().status();
  EXPECT_EQ(st.error_class(), kErrorCloudAuth) << st.ToString();
  // FULL_URI over plain http only to the hosts the SDKs allow.
  EXPECT_TRUE(ContainerCredentialsHostAllowed("http://127.0.0.1:8080/creds"));
  EXPECT_TRUE(ContainerCredentialsHostAllowed("http://169.254.170.23/v1/credentials"));
  EXPECT_TRUE(ContainerCredentialsHostAllowed("http://[::1]/c"));
  EXPECT_TRUE(ContainerCredentialsHostAllowed("https://creds.example.com/c"));
  EXPECT_FALSE(ContainerCredentialsHostAllowed("http://10.0.0.7/creds"));
  EXPECT_FALSE(ContainerCredentialsHostAllowed("http://169.254.170.2.evil.com/creds"));
}

TEST_F(AwsCredentialsTest, InstanceMetadataV2ByTheS3aProviderName) {
  int token_requests = 0;
  server_.SetHandler([&](const FakeS3Server::Request& r, const std::string&, int* status,
                         std::string* out) {
    if (!r.path.starts_with("/latest/")) return false;
    if (r.path == "/latest/api/token") {
      ++token_requests;
      *status = r.method == "PUT" && Header(r, "x-aws-ec2-metadata-token-ttl-seconds") == "21600"
                    ? 200
                    : 400;
      *out = "IMDSTOKEN";
      return true;
    }
    if (Header(r, "x-aws-ec2-metadata-token") != "IMDSTOKEN") {
      *status = 401;
      return true;
    }
    *status = 200;
    if (r.path == "/latest/meta-data/iam/security-credentials/") {
      *out = "ec2-role\n";
    } else if (r.path == "/latest/meta-data/iam/security-credentials/ec2-role") {
      *out = CredentialJson("ASIAEC2", SystemClock().NowMillis() + 6 * 3600 * 1000);
    } else {
      *status = 404;
    }
    return true;
  });
  ScopedEnv on("AWS_EC2_METADATA_DISABLED", nullptr);
  std::string imds = server_.endpoint();
  ScopedEnv ep("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.c_str());
  SetStorageConfig("fs.s3a.aws.credentials.provider",
                   "org.apache.hadoop.fs.s3a.auth.IAMInstanceCredentialsProvider");
  auto store = OpenStore();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Put("a", "1").ok());
  ASSERT_TRUE(store->Get("a").ok());
  EXPECT_EQ(token_requests, 1);
  auto sigs = S3Signatures();
  ASSERT_EQ(sigs.size(), 2u);
  EXPECT_TRUE(sigs[0].first.starts_with("AWS4-HMAC-SHA256 Credential=ASIAEC2/")) << sigs[0].first;
  EXPECT_EQ(sigs[0].second, "TOK-ASIAEC2");
  // Named providers: the anonymous one signs nothing, an unknown one is refused clearly.
  SetStorageConfig("fs.s3a.aws.credentials.provider",
                   "org.apache.hadoop.fs.s3a.AnonymousAWSCredentialsProvider");
  auto anon = S3OptionsFromConfig(*ParseS3Location("s3://b/t"));
  ASSERT_TRUE(anon.ok());
  EXPECT_EQ(anon->credentials_provider, nullptr);
  EXPECT_TRUE(anon->credentials.access_key.empty());
  SetStorageConfig("fs.s3a.aws.credentials.provider", "com.example.MyProvider");
  auto unknown = S3OptionsFromConfig(*ParseS3Location("s3://b/t"));
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotImplemented);
  EXPECT_NE(unknown.status().message().find("com.example.MyProvider"), std::string_view::npos);
  // The SDK's environment provider named alone: the environment's keys, no other source.
  SetStorageConfig("fs.s3a.aws.credentials.provider",
                   "com.amazonaws.auth.EnvironmentVariableCredentialsProvider");
  ScopedEnv k("AWS_ACCESS_KEY_ID", "AKENV");
  ScopedEnv s("AWS_SECRET_ACCESS_KEY", "envsecret");
  auto env = S3OptionsFromConfig(*ParseS3Location("s3://b/t"));
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->credentials.access_key, "AKENV");
  EXPECT_EQ(env->credentials_provider, nullptr);
}

// Without any credentials the default chain asks the metadata service once and then signs
// nothing (public buckets, emulators), as before these sources existed.
TEST_F(AwsCredentialsTest, TheDefaultChainEndsAnonymous) {
  ScopedEnv on("AWS_EC2_METADATA_DISABLED", nullptr);
  std::string imds = server_.endpoint() + "/nothing-here";
  ScopedEnv ep("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.c_str());
  auto store = OpenStore();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Put("a", "1").ok());
  ASSERT_TRUE(store->Get("a").ok());
  auto sigs = S3Signatures();
  ASSERT_EQ(sigs.size(), 2u);
  EXPECT_EQ(sigs[0].first, "");
  int imds_calls = 0;
  for (const auto& r : server_.requests())
    imds_calls += r.path.starts_with("/nothing-here") ? 1 : 0;
  EXPECT_EQ(imds_calls, 1);
}

}  // namespace
}  // namespace silt
