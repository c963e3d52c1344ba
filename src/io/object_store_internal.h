// Helpers shared by the ObjectStore implementations in io/ (not part of the public seam).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace silt::store_internal {

// "a/b/c" -> {"a/b/", "c"}; "c" -> {"", "c"}; "a/" -> {"a/", ""}.
std::pair<std::string, std::string> SplitKey(const std::string& key);
// Directory segments of a directory prefix ("a/b/" or "a/b") -> {"a", "b"}.
std::vector<std::string> DirSegments(std::string_view dir);
// "a/b" or "a/b/" -> "a/b/"; "" -> "".
std::string DirPrefix(std::string_view dir);
// NotFound (kErrorFileNotFound) / AlreadyExists (kErrorFileAlreadyExists) naming key and root.
Status NotFoundError(const std::string& root, const std::string& key);
Status AlreadyExistsError(const std::string& root, const std::string& key);

}  // namespace silt::store_internal
