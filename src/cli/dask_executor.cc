#include "cli/dask_executor.h"

#include <simdjson.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <utility>
#include <vector>

#include "common/error_classes.h"
#include "delta/json_util.h"

extern char** environ;

namespace silt::cli {
namespace {

std::string JsonList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    delta::AppendJacksonString(&out, items[i]);
  }
  return out + "]";
}

// A temporary directory, removed with its files when the object goes.
class TempDir {
 public:
  TempDir() {
    std::string t = (std::filesystem::temp_directory_path() / "silt-dask-XXXXXX").string();
    if (mkdtemp(t.data())) path_ = t;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct Runner {
  std::string python, scheduler;

  // Runs `python -m silt._dask_runner SCHEDULER command args… [IN] OUT` and returns OUT's JSON.
  Result<std::string> Run(const std::string& command, std::vector<std::string> args,
                          const std::string* input) const {
    TempDir dir;
    if (dir.path().empty()) return Status::IoError("cannot create a temporary directory");
    std::vector<std::string> argv = {python, "-m", "silt._dask_runner", scheduler, command};
    for (std::string& a : args) argv.push_back(std::move(a));
    if (input) {
      const std::string in = dir.path() + "/in.json";
      std::ofstream f(in, std::ios::binary);
      f << *input;
      if (!f.flush()) return Status::IoError("cannot write " + in);
      argv.push_back(in);
    }
    const std::string out = dir.path() + "/out.json";
    argv.push_back(out);
    std::vector<char*> cargv;
    for (std::string& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    pid_t pid = 0;
    if (int err = posix_spawnp(&pid, python.c_str(), nullptr, nullptr, cargv.data(), environ)) {
      return Status::InvalidArgument(
          "cannot run " + python + " for the Dask executor: " + std::strerror(err),
          errc::kSiltDaskUnavailable);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
      if (errno != EINTR) return Status::IoError("waitpid: " + std::string(std::strerror(errno)));
    }
    std::ifstream f(out, std::ios::binary);
    std::stringstream text;
    text << f.rdbuf();
    const std::string json = text.str();
    if (!f || json.empty()) {
      return Status::InvalidArgument(
          python + " -m silt._dask_runner ended (status " +
              std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
              ") without an answer: can " + python + " import the silt package (PYTHONPATH)?",
          errc::kSiltDaskUnavailable);
    }
    simdjson::dom::parser parser;
    simdjson::dom::object obj;
    if (parser.parse(json).get(obj)) {
      return Status::IoError("the Dask runner wrote something that is not JSON: " + json);
    }
    std::string_view cls, message;
    if (!obj["error_class"].get(cls) && !obj["message"].get(message)) {
      const StatusCode code =
          cls == errc::kSiltDaskUnavailable ? StatusCode::kInvalidArgument : StatusCode::kIoError;
      return Status(code, std::string(cls),
                    std::string(message) + " (Dask scheduler " + scheduler + ")");
    }
    return json;
  }
};

Result<std::vector<std::string>> Strings(const std::string& json, const char* field) {
  simdjson::dom::parser parser;
  simdjson::dom::array arr;
  if (parser.parse(json)[field].get(arr)) {
    return Status::IoError(std::string("the Dask runner's answer has no ") + field);
  }
  std::vector<std::string> out;
  for (simdjson::dom::element e : arr) {
    std::string_view s;
    if (e.get(s)) return Status::IoError(std::string("a non-string in the runner's ") + field);
    out.emplace_back(s);
  }
  return out;
}

}  // namespace

Result<maintenance::RemoteExecutor> MakeDaskExecutor(const std::string& scheduler,
                                                     const std::string& python,
                                                     int64_t min_table_bytes) {
  auto runner = std::make_shared<Runner>(Runner{python, scheduler});
  SILT_RETURN_NOT_OK(runner->Run("check", {}, nullptr).status());
  maintenance::RemoteExecutor ex;
  ex.name = "dask " + scheduler;
  ex.min_table_bytes = min_table_bytes;
  ex.run_tasks = [runner](const std::vector<std::string>& tasks) {
    const std::string in = JsonList(tasks);
    Result<std::string> json = runner->Run("run", {}, &in);
    if (!json.ok()) return Result<std::vector<std::string>>(json.status());
    return Strings(*json, "outputs");
  };
  ex.delete_files = [runner](const std::string& table_uri, const std::vector<std::string>& keys) {
    const std::string in = JsonList(keys);
    Result<std::string> json = runner->Run("delete", {table_uri}, &in);
    Result<std::vector<std::string>> errors =
        json.ok() ? Strings(*json, "errors") : Result<std::vector<std::string>>(json.status());
    std::vector<Status> out;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (!errors.ok()) {
        out.push_back(errors.status());
      } else if (i < errors->size() && (*errors)[i].empty()) {
        out.push_back(Status::OK());
      } else {
        out.push_back(Status::IoError(i < errors->size() ? (*errors)[i] : "no status"));
      }
    }
    return out;
  };
  return ex;
}

}  // namespace silt::cli
