// Status and Result<T>: errors as values (never exceptions across module boundaries).
//
// A Status is OK or carries a StatusCode (what kind of failure, for programs), an error class
// (Delta/Spark style, a constant of silt/error_classes.h such as
// errc::kDeltaVacuumRetentionPeriodTooShort, for users and tests) and a message. The message
// never repeats the class: ToString() renders both the way Spark prints an error. OK statuses
// allocate nothing. Thread-compatible: a Status is a value.
#pragma once

#include <cassert>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "silt/error_classes.h"

namespace silt {

enum class StatusCode : unsigned char {
  kOk = 0,
  kInvalidArgument,  // the caller's input is wrong (bad SQL value, bad option)
  kNotFound,         // a file, table, column, version does not exist
  kAlreadyExists,    // put-if-absent lost; CREATE of an existing object
  kCommitConflict,   // a concurrent commit won and conflicts with ours
  kCorruption,       // stored bytes are malformed (Parquet, JSON log, DV file)
  kIoError,          // the storage failed
  kNotImplemented,   // a feature silt does not have (yet)
  kUnsupported,      // a table feature/format silt refuses on purpose
  kOutOfMemory,      // a memory limit was hit
  kCancelled,
  kInternal,  // a bug: an invariant did not hold
};

const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() noexcept = default;
  Status(StatusCode code, std::string error_class, std::string message);
  Status(const Status& other) : state_(other.state_ ? new State(*other.state_) : nullptr) {}
  Status& operator=(const Status& other) {
    if (this != &other) state_.reset(other.state_ ? new State(*other.state_) : nullptr);
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status OK() { return Status(); }
  // Constructors per code; error_class may be empty (then the code's name is shown).
  static Status InvalidArgument(std::string msg, std::string cls = "") {
    return Status(StatusCode::kInvalidArgument, std::move(cls), std::move(msg));
  }
  static Status NotFound(std::string msg, std::string cls = "") {
    return Status(StatusCode::kNotFound, std::move(cls), std::move(msg));
  }
  static Status AlreadyExists(std::string msg, std::string cls = "") {
    return Status(StatusCode::kAlreadyExists, std::move(cls), std::move(msg));
  }
  static Status CommitConflict(std::string msg, std::string cls = "") {
    return Status(StatusCode::kCommitConflict, std::move(cls), std::move(msg));
  }
  static Status Corruption(std::string msg, std::string cls = "") {
    return Status(StatusCode::kCorruption, std::move(cls), std::move(msg));
  }
  static Status IoError(std::string msg, std::string cls = "") {
    return Status(StatusCode::kIoError, std::move(cls), std::move(msg));
  }
  static Status NotImplemented(std::string msg, std::string cls = errc::kNotImplemented) {
    return Status(StatusCode::kNotImplemented, std::move(cls), std::move(msg));
  }
  static Status Unsupported(std::string msg, std::string cls = "") {
    return Status(StatusCode::kUnsupported, std::move(cls), std::move(msg));
  }
  static Status OutOfMemory(std::string msg, std::string cls = "") {
    return Status(StatusCode::kOutOfMemory, std::move(cls), std::move(msg));
  }
  static Status Cancelled(std::string msg) {
    return Status(StatusCode::kCancelled, "", std::move(msg));
  }
  static Status Internal(std::string msg) {
    return Status(StatusCode::kInternal, errc::kInternalError, std::move(msg));
  }

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  // The Delta/Spark error class, or the code's name when none was given.
  std::string_view error_class() const;
  // The message, without the class.
  std::string_view message() const { return state_ ? std::string_view(state_->message) : ""; }
  // The error class's SQLSTATE from the catalogue (silt/error_classes.def); "" when OK or none
  // is known.
  std::string_view sql_state() const;
  // As Spark prints an error: "[ERROR_CLASS] message SQLSTATE: 42P01", without the SQLSTATE part
  // when none is known; "OK" when OK.
  std::string ToString() const;

  bool IsNotFound() const { return code() == StatusCode::kNotFound; }
  bool IsAlreadyExists() const { return code() == StatusCode::kAlreadyExists; }
  bool IsCorruption() const { return code() == StatusCode::kCorruption; }

  // Returns a copy whose message is prefixed with `context + ": "` (code and class kept).
  Status WithContext(std::string_view context) const;

 private:
  struct State {
    StatusCode code;
    std::string error_class;
    std::string message;
  };
  std::unique_ptr<State> state_;
};

// Result<T>: a T or a non-OK Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(const T& value) : has_value_(true) { new (&storage_) T(value); }        // NOLINT
  Result(T&& value) : has_value_(true) { new (&storage_) T(std::move(value)); }  // NOLINT
  template <typename U, typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                                    !std::is_same_v<std::decay_t<U>, T> &&
                                                    !std::is_same_v<std::decay_t<U>, Status> &&
                                                    !std::is_same_v<std::decay_t<U>, Result<T>>>>
  Result(U&& value) : has_value_(true) {  // NOLINT
    new (&storage_) T(std::forward<U>(value));
  }
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    assert(!status_.ok() && "Result constructed from an OK Status");
    if (status_.ok()) status_ = Status::Internal("Result constructed from an OK Status");
  }
  Result(const Result& o) : status_(o.status_), has_value_(o.has_value_) {
    if (has_value_) new (&storage_) T(o.value());
  }
  Result(Result&& o) noexcept : status_(std::move(o.status_)), has_value_(o.has_value_) {
    if (has_value_) new (&storage_) T(std::move(o.value()));
  }
  Result& operator=(Result o) noexcept {
    Reset();
    status_ = std::move(o.status_);
    has_value_ = o.has_value_;
    if (has_value_) new (&storage_) T(std::move(o.value()));
    return *this;
  }
  ~Result() { Reset(); }

  bool ok() const { return has_value_; }
  // The error (OK when a value is held). On a temporary Result the Status is returned by value,
  // so `SILT_RETURN_NOT_OK(f().status())` and `const Status& s = f().status();` hold no reference
  // into a destroyed Result.
  const Status& status() const& { return status_; }
  Status status() && { return std::move(status_); }
  T& value() & { return *ptr(); }
  const T& value() const& { return *ptr(); }
  T&& value() && { return std::move(*ptr()); }
  T& operator*() & { return *ptr(); }
  const T& operator*() const& { return *ptr(); }
  T* operator->() { return ptr(); }
  const T* operator->() const { return ptr(); }
  T ValueOr(T other) const& { return ok() ? value() : std::move(other); }
  // Moves the value out; only call when ok().
  T MoveValue() { return std::move(*ptr()); }

 private:
  void Reset() {
    if (has_value_) ptr()->~T();
    has_value_ = false;
  }
  T* ptr() {
    assert(has_value_);
    return std::launder(reinterpret_cast<T*>(&storage_));
  }
  const T* ptr() const {
    assert(has_value_);
    return std::launder(reinterpret_cast<const T*>(&storage_));
  }
  Status status_;
  bool has_value_ = false;
  alignas(T) unsigned char storage_[sizeof(T)];
};

namespace internal {
inline const Status& GetStatus(const Status& s) { return s; }
template <typename T>
const Status& GetStatus(const Result<T>& r) {
  return r.status();
}
}  // namespace internal

}  // namespace silt

#define SILT_CONCAT_IMPL(a, b) a##b
#define SILT_CONCAT(a, b) SILT_CONCAT_IMPL(a, b)

// Returns the Status of `expr` (a Status or Result) from the enclosing function when not OK.
#define SILT_RETURN_NOT_OK(expr)                                    \
  do {                                                              \
    auto&& _silt_s = (expr);                                        \
    if (!_silt_s.ok()) return ::silt::internal::GetStatus(_silt_s); \
  } while (0)

#define SILT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()

// `SILT_ASSIGN_OR_RETURN(auto x, ResultExpr())`: assigns the value or returns the error.
#define SILT_ASSIGN_OR_RETURN(lhs, expr) \
  SILT_ASSIGN_OR_RETURN_IMPL(SILT_CONCAT(_silt_r_, __LINE__), lhs, expr)
