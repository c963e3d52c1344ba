// Locating the shared conformance data (Delta tables written by Spark) for delta/ unit tests.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "unit/shared_dir.h"

namespace silt::delta::testing {

// SharedDir()/conformance (the repository's ../shared/conformance); "" when absent.
inline std::string ConformanceDir() {
  for (std::string base : {std::string(silt::testing::SharedDir())}) {
    std::filesystem::path p = std::filesystem::path(base) / "conformance";
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) return p.string();
  }
  return "";
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every *.json under a _delta_log directory (commits, JSON checkpoints, sidecars), grouped by
// the _delta_log directory, each group sorted by file name.
inline std::map<std::string, std::vector<std::string>> DeltaLogJsonFiles() {
  std::map<std::string, std::vector<std::string>> out;
  std::string dir = ConformanceDir();
  if (dir.empty()) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    std::string p = e.path().string();
    size_t at = p.find("/_delta_log/");
    if (at == std::string::npos) continue;
    out[p.substr(0, at + 11)].push_back(p);
  }
  for (auto& [log, files] : out) std::sort(files.begin(), files.end());
  return out;
}

}  // namespace silt::delta::testing
