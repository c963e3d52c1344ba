#include "exec/input_file.h"

#include <utility>

namespace silt::exec {

namespace {
thread_local std::weak_ptr<const std::string> t_input_file;
}  // namespace

void SetInputFile(std::weak_ptr<const std::string> uri) { t_input_file = std::move(uri); }

std::string CurrentInputFile() {
  std::shared_ptr<const std::string> uri = t_input_file.lock();
  return uri ? *uri : std::string();
}

ScopedInputFile::ScopedInputFile(std::weak_ptr<const std::string> uri)
    : saved_(std::move(t_input_file)) {
  t_input_file = std::move(uri);
}

ScopedInputFile::~ScopedInputFile() { t_input_file = std::move(saved_); }

}  // namespace silt::exec
