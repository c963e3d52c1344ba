// Session configuration: Spark/Delta configuration keys set with SET and cleared with RESET.
// Known keys have defaults and a doc line (SET -v lists them); unknown keys are stored as given
// (Spark accepts any key), except that values of known keys are validated (booleans, sizes).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace silt::planner {

struct ConfigKey {
  const char* key;
  const char* default_value;
  const char* doc;
  enum class Kind { kString, kBool, kInt, kBytes, kDouble } kind = Kind::kString;
};

// All keys silt knows, sorted by key.
const std::vector<ConfigKey>& KnownConfigKeys();

class SessionConfig {
 public:
  // Validates known keys (INVALID_CONF_VALUE-style error) and stores the value.
  Status Set(const std::string& key, const std::string& value);
  void Reset(const std::string& key);  // back to the default
  void ResetAll() { values_.clear(); }
  // The value set in the session, else the known default, else nullopt.
  std::optional<std::string> Get(const std::string& key) const;
  bool GetBool(const std::string& key, bool fallback) const;
  int64_t GetInt(const std::string& key, int64_t fallback) const;
  double GetDouble(const std::string& key, double fallback) const;
  // Byte sizes accept "1g", "512m", "1024", "1GB".
  int64_t GetBytes(const std::string& key, int64_t fallback) const;
  // Keys set in this session (SET with no arguments lists them).
  const std::map<std::string, std::string>& values() const { return values_; }

 private:
  std::map<std::string, std::string> values_;
};

// Parses "true"/"false" (case-insensitive).
std::optional<bool> ParseBoolText(const std::string& text);
// Parses a byte size: plain number, or with b/k/kb/m/mb/g/gb/t/tb suffix (binary units, as Spark).
std::optional<int64_t> ParseByteSize(const std::string& text);

}  // namespace silt::planner
