#include "common/status.h"

namespace silt {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case StatusCode::kNotFound:
      return "NOT_FOUND";
    case StatusCode::kAlreadyExists:
      return "ALREADY_EXISTS";
    case StatusCode::kCommitConflict:
      return "COMMIT_CONFLICT";
    case StatusCode::kCorruption:
      return "CORRUPTION";
    case StatusCode::kIoError:
      return "IO_ERROR";
    case StatusCode::kNotImplemented:
      return "NOT_IMPLEMENTED";
    case StatusCode::kUnsupported:
      return "UNSUPPORTED";
    case StatusCode::kOutOfMemory:
      return "OUT_OF_MEMORY";
    case StatusCode::kCancelled:
      return "CANCELLED";
    case StatusCode::kInternal:
      return "INTERNAL_ERROR";
  }
  return "UNKNOWN";
}

Status::Status(StatusCode code, std::string error_class, std::string message) {
  if (code == StatusCode::kOk) return;
  state_ = std::make_unique<State>(State{code, std::move(error_class), std::move(message)});
}

std::string_view Status::error_class() const {
  if (!state_) return "";
  if (!state_->error_class.empty()) return state_->error_class;
  return StatusCodeName(state_->code);
}

std::string_view Status::sql_state() const {
  if (!state_) return "";
  const errc::ErrorClassInfo* info = errc::FindErrorClass(error_class());
  return info ? info->sql_state : "";
}

// Spark's SparkThrowableHelper.getMessage: "[CLASS] message SQLSTATE: xxxxx".
std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out = "[";
  out += error_class();
  out += "] ";
  out += state_->message;
  std::string_view state = sql_state();
  if (!state.empty()) {
    out += " SQLSTATE: ";
    out += state;
  }
  return out;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  std::string msg(context);
  msg += ": ";
  msg += state_->message;
  return Status(state_->code, state_->error_class, std::move(msg));
}

}  // namespace silt
