// Subcommands of the `silt` binary. Each returns the process exit code: 0 success, 1 a failed
// operation (the error is printed as "ERROR_CLASS: message"), 2 a usage error.
#pragma once

#include <string>
#include <vector>

namespace silt::cli {

int RunParquet(const std::vector<std::string>& args);
int RunDemo(const std::vector<std::string>& args);
int RunDelta(const std::vector<std::string>& args);
// `silt sql` / `silt shell`: exit 1 at the first failed statement ("Error: [CLASS] message" on
// stderr), 2 for usage errors.
int RunSql(const std::vector<std::string>& args);
int RunShell(const std::vector<std::string>& args);
// `silt inspect TABLE`: live-file health report (cli/inspect.h).
int RunInspect(const std::vector<std::string>& args);
// `silt maintain`: the maintenance service, one pass or a daemon (cli/maintain_cmd.cc).
int RunMaintain(const std::vector<std::string>& args);
// `silt stream`: a Delta-to-Delta streaming query, exactly once (cli/stream_cmd.cc).
int RunStream(const std::vector<std::string>& args);
// `silt serve`: the web console (cli/serve.cc, server/server.h).
int RunServe(const std::vector<std::string>& args);

}  // namespace silt::cli
