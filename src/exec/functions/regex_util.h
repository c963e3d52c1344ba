// Java regular expressions (Spark's dialect) on RE2, and Spark's LIKE matcher. Used by the
// string functions (rlike, regexp_*, split, like, ilike). Implemented in java_regex.cc and
// like_matcher.cc.
//
// RE2 has no backreferences, lookaround, atomic groups, possessive quantifiers or class
// intersections: such patterns fail with INVALID_PARAMETER_VALUE.PATTERN naming the feature.
// Java-only syntax RE2 lacks but can express is rewritten: \p{Alpha}-style POSIX classes,
// (?<name>...) groups, \Z.
#pragma once

#include <re2/re2.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace silt::exec::fn {

// Compiles a Java regex for function `func` (named in errors).
Result<std::shared_ptr<const RE2>> CompileJavaRegex(std::string_view pattern,
                                                    std::string_view func);

// A compiled LIKE pattern (Spark semantics: '_' one character, '%' any sequence, `escape`
// before '_', '%' or itself makes it literal; any other use of the escape character is an
// INVALID_FORMAT error). Patterns without '_' match with prefix/suffix/substring scans;
// others with RE2.
class LikeMatcher {
 public:
  static Result<LikeMatcher> Compile(std::string_view pattern, uint32_t escape);
  bool Match(std::string_view s) const;

 private:
  enum class Kind { kExact, kSegments, kRegex };
  Kind kind_ = Kind::kExact;
  // kExact: segments_[0]. kSegments: pieces between '%'; the first is a required prefix and the
  // last a required suffix (either may be empty).
  std::vector<std::string> segments_;
  std::shared_ptr<const RE2> re_;
};

}  // namespace silt::exec::fn
