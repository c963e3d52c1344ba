// Subcommands of the `silt` binary. Each returns the process exit code: 0 success, 1 a failed
// operation (the error is printed as "ERROR_CLASS: message"), 2 a usage error.
#pragma once

#include <string>
#include <vector>

namespace silt::cli {

int RunParquet(const std::vector<std::string>& args);
int RunDemo(const std::vector<std::string>& args);
int RunDelta(const std::vector<std::string>& args);

}  // namespace silt::cli
