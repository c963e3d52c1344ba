// Storage configuration: credentials, endpoints and retry settings of the cloud object stores,
// by their Hadoop/Spark names (fs.azure.account.key.<account>.dfs.core.windows.net, ...).
//
// Process-wide, like a Spark application's Hadoop configuration: `SET fs.azure...` in any session
// (or "spark.hadoop.fs.azure...", the prefix is dropped) sets it for every store opened afterwards;
// a value set here wins over the environment (AZURE_STORAGE_ACCOUNT, AZURE_STORAGE_KEY, ...; see
// docs/cloud-storage.md). Values are secrets: nothing prints them (RedactedValue is what SET and
// DESCRIBE show) and the stores never put them in a message.
//
// Thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace silt {

// Whether `key` is a storage key this module keeps (fs.azure.*, fs.s3a.*, with or without a
// "spark.hadoop." prefix).
bool IsStorageConfigKey(std::string_view key);

// Sets (or, with an empty optional, removes) a storage key; the "spark.hadoop." prefix is
// dropped. Stores opened later see it.
void SetStorageConfig(std::string_view key, std::optional<std::string> value);
// The value set with SetStorageConfig, else nullopt.
std::optional<std::string> GetStorageConfig(std::string_view key);
// The first of: the value set for `key`, the environment variable `env` (when given).
std::optional<std::string> StorageSetting(std::string_view key, const char* env = nullptr);
// Forgets every value set (tests).
void ClearStorageConfig();

// What SET, SET -v and DESCRIBE show for a secret value (Spark's redaction text).
inline constexpr char kRedactedValue[] = "*********(redacted)";

}  // namespace silt
