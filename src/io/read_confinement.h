// Confining reads to a table's own files (issue 31). The Delta protocol lets `add` and deletion
// vector paths be absolute (a shallow clone points at its source table's files), so a log can
// name any file the process may read. Under a ReadConfinement an absolute path is read only when
// it lies below the table root or below one of the allowed prefixes; any other fails with
// SILT_READ_OUTSIDE_TABLE_ROOT before the file is opened.
//
// Sessions turn it on with `silt.io.confineReadsToTableRoot` (default false, so shallow clones stay
// readable from plain SQL) and list extra locations in `silt.io.allowedReadPrefixes`
// (comma-separated); the maintenance service and the web console run with it on
// (kConfineReadsDefaultForServices).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/error_classes.h"
#include "common/status.h"

namespace silt {

inline constexpr auto& kReadOutsideTableRootClass = errc::kSiltReadOutsideTableRoot;
inline constexpr char kConfineReadsKey[] = "silt.io.confineReadsToTableRoot";
inline constexpr char kAllowedReadPrefixesKey[] = "silt.io.allowedReadPrefixes";
// What the maintenance service and the web console set for their sessions.
inline constexpr bool kConfineReadsDefaultForServices = true;

struct ReadConfinement {
  // Canonical locations (CanonicalLocation form) below which absolute paths may also be read.
  std::vector<std::string> allowed_prefixes;

  // From `silt.io.allowedReadPrefixes`: comma-separated locations (blanks around items ignored).
  // InvalidArgument for a location CanonicalLocation refuses.
  static Result<std::shared_ptr<const ReadConfinement>> Make(std::string_view prefixes_csv);
};

// OK when `location` (an absolute path or URI from the log, decoded) lies strictly below
// `table_root` (a location or a store's root()) or below one of c's allowed prefixes, compared
// after lexical normalization and, for local files that exist, after resolving symbolic links.
// Else InvalidArgument with kReadOutsideTableRootClass, naming the path, the root and the setting.
Status CheckConfinedRead(const ReadConfinement& c, std::string_view table_root,
                         std::string_view location);

}  // namespace silt
