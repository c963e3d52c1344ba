// `silt parquet schema|meta|cat FILE`: inspect Parquet files.
#include <cstdio>

#include "cli/commands.h"
#include "common/status.h"

namespace silt::cli {

int RunParquet(const std::vector<std::string>& args) {
  if (args.size() < 2) {
    std::fprintf(stderr, "usage: silt parquet schema|meta|cat FILE\n");
    return 2;
  }
  Status s = Status::NotImplemented("the Parquet reader is not built yet");
  std::fprintf(stderr, "%s\n", s.ToString().c_str());
  return 1;
}

int RunDemo(const std::vector<std::string>&) {
  Status s = Status::NotImplemented("the demo needs the Parquet writer, which is not built yet");
  std::fprintf(stderr, "%s\n", s.ToString().c_str());
  return 1;
}

}  // namespace silt::cli
