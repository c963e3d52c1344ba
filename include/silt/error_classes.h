// The error-class catalogue: one named constant per error class silt raises.
//
// `errc::kDeltaFileNotFound` is the class string "DELTA_FILE_NOT_FOUND" (a `const char[]`, so it
// passes wherever a class string goes and compares with Status::error_class()). The classes, their
// SQLSTATEs and origins are listed once, in error_classes.def; code never spells a class as a
// string literal (`make test` checks it; scripts/errclass-rewrite.py adds new classes and rewrites
// literals to constants).
#pragma once

#include <span>
#include <string_view>

namespace silt::errc {

// Where a class comes from (see error_classes.def).
enum class Origin : unsigned char { kSpark, kDelta, kSilt, kOther };

#define SILT_ERROR_CLASS(name, cls, sql_state, origin) inline constexpr char name[] = cls;
#include "silt/error_classes.def"
#undef SILT_ERROR_CLASS

struct ErrorClassInfo {
  std::string_view error_class;
  std::string_view sql_state;  // "" when none is known (silt's own classes)
  Origin origin;
};

// Every catalogued class, sorted by error_class.
std::span<const ErrorClassInfo> AllErrorClasses();

// The catalogue entry of `error_class`, or nullptr when it is not catalogued.
const ErrorClassInfo* FindErrorClass(std::string_view error_class);

}  // namespace silt::errc
