// Temporary AWS credentials from the sources the AWS SDKs and Hadoop S3A resolve beyond static
// keys (those stay in S3OptionsFromConfig, io/s3_object_store.h):
// - Web identity (EKS IRSA, GitHub OIDC…): AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN
//   (AWS_ROLE_SESSION_NAME optional) -> STS AssumeRoleWithWebIdentity (unsigned, the token is
//   the proof) at AWS_ENDPOINT_URL_STS, else sts.<region>.amazonaws.com.
// - Container credentials (ECS tasks, EKS Pod Identity): AWS_CONTAINER_CREDENTIALS_RELATIVE_URI
//   (on http://169.254.170.2) or AWS_CONTAINER_CREDENTIALS_FULL_URI (http only to a loopback or
//   the ECS/EKS link-local hosts, as the SDKs allow), with AWS_CONTAINER_AUTHORIZATION_TOKEN or
//   AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE as the Authorization header.
// - EC2 instance metadata, IMDSv2: PUT /latest/api/token, then the role name and its
//   credentials under /latest/meta-data/iam/security-credentials/ with that token;
//   AWS_EC2_METADATA_SERVICE_ENDPOINT overrides the endpoint, AWS_EC2_METADATA_DISABLED=true
//   turns it off.
// The sources of a chain are tried in order; the credentials are cached and fetched anew
// `refresh_before_ms` before they expire (time from the injected Clock). Providers are shared
// per process by their settings, so the stores the engine opens per statement do not call STS or
// the metadata service each time. Nothing here logs, and errors never carry a token or a key.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "io/http_client.h"

namespace silt {

struct AwsSessionCredentials {
  std::string access_key;
  std::string secret_key;
  std::string session_token;
  int64_t expiration_ms = 0;  // 0: does not expire
};

class AwsCredentialsProvider {
 public:
  enum class Source { kWebIdentity, kContainer, kInstance };
  struct Options {
    std::vector<Source> chain;
    // Web identity.
    std::string token_file;
    std::string role_arn;
    std::string session_name;
    std::string sts_endpoint;  // scheme://host[:port]
    // Container.
    std::string container_uri;        // the whole URL
    std::string container_auth;       // the Authorization header value, or
    std::string container_auth_file;  // a file holding it (read at every fetch)
    // Instance metadata.
    std::string imds_endpoint = "http://169.254.169.254";
    // When every source fails: unsigned requests instead of an error (the default chain's
    // last resort, as silt behaved before these sources: public buckets, emulators).
    bool anonymous_fallback = false;
    int64_t refresh_before_ms = 5 * 60 * 1000;
    HttpOptions http;              // short timeouts and few retries by default (see .cc)
    const Clock* clock = nullptr;  // SystemClock when null
  };

  explicit AwsCredentialsProvider(Options options);

  // The current credentials (empty access_key: anonymous), fetched when missing or about to
  // expire. An error (class kErrorCloudAuth) names the sources tried, never a secret.
  Result<AwsSessionCredentials> Get();
  // How many times credentials were fetched (tests).
  int64_t fetches() const;
  const Options& options() const { return options_; }

  // The provider for `options`, shared per process by its settings.
  static std::shared_ptr<AwsCredentialsProvider> Shared(const Options& options);
  static void ForgetSharedForTesting();

 private:
  Result<AwsSessionCredentials> Fetch(Source source);
  Result<AwsSessionCredentials> FetchWebIdentity();
  Result<AwsSessionCredentials> FetchContainer();
  Result<AwsSessionCredentials> FetchInstance();
  int64_t Now() const;

  Options options_;
  HttpClient http_;
  mutable std::mutex mu_;
  std::optional<AwsSessionCredentials> cached_;
  int64_t fetches_ = 0;
};

// Whether an http:// container-credentials URL may be used (a loopback host or the ECS/EKS
// link-local hosts; https is always allowed).
bool ContainerCredentialsHostAllowed(const std::string& url);

}  // namespace silt
