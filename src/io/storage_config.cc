#include "io/storage_config.h"

#include <cstdlib>
#include <map>
#include <mutex>

namespace silt {

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, std::string, std::less<>> values;
};

Registry& GetRegistry() {
  static Registry* r = new Registry();  // never destroyed: stores may be used at exit
  return *r;
}

constexpr std::string_view kSparkHadoop = "spark.hadoop.";

std::string_view Strip(std::string_view key) {
  if (key.starts_with(kSparkHadoop)) key.remove_prefix(kSparkHadoop.size());
  return key;
}

}  // namespace

bool IsStorageConfigKey(std::string_view key) {
  key = Strip(key);
  return key.starts_with("fs.azure.") || key.starts_with("fs.s3a.");
}

void SetStorageConfig(std::string_view key, std::optional<std::string> value) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::string k(Strip(key));
  if (value) {
    r.values[k] = std::move(*value);
  } else {
    r.values.erase(k);
  }
}

std::optional<std::string> GetStorageConfig(std::string_view key) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.values.find(Strip(key));
  if (it == r.values.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> StorageSetting(std::string_view key, const char* env) {
  if (auto v = GetStorageConfig(key)) return v;
  if (env != nullptr) {
    const char* e = std::getenv(env);
    if (e != nullptr && *e != '\0') return std::string(e);
  }
  return std::nullopt;
}

void ClearStorageConfig() {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.values.clear();
}

}  // namespace silt
