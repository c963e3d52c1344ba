// Paths and URIs of Delta tables (Delta protocol 1.10 "Partition values and paths").
//
// Three encodings meet here and must not be confused:
//  - object keys (io/object_store.h): raw bytes, '/'-separated, relative to the table root;
//  - Hive-style partition directory names: Spark's escapePathName (`p=a%3Ab` for value `a:b`);
//  - `add.path` / `remove.path` / DV paths in the log: URIs, i.e. the (Hive-escaped) relative path
//    percent-encoded again like Hadoop `Path.toUri()` (`p=a%253Ab`). Readers decode exactly once.
// All functions are pure and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error_classes.h"
#include "common/status.h"

namespace silt {

inline constexpr auto& kErrorInvalidPath = errc::kDeltaInvalidPath;
inline constexpr char kHiveDefaultPartition[] = "__HIVE_DEFAULT_PARTITION__";

// True when `s` starts with an RFC 3986 scheme followed by ':' ("s3://…", "abfss://…", "file:/…").
// One-letter schemes are not schemes (Windows drive letters, as Hadoop treats them).
bool HasUriScheme(std::string_view s);
// The scheme in lower case, or "" when HasUriScheme is false.
std::string UriScheme(std::string_view s);

// Decodes %XX escapes once (hex digits of either case). A '%' not followed by two hex digits is
// InvalidArgument (kErrorInvalidPath). '+' stays '+' (paths are not form data).
Result<std::string> PercentDecode(std::string_view s);

// Percent-encodes a path like Hadoop `new Path(p).toUri().getRawPath()` (java.net.URI quoting):
// ASCII controls, space and " # % < > ? [ \ ] ^ ` { | } become %XX (upper case); other ASCII and
// non-ASCII UTF-8 stay raw, except Unicode controls (U+0080–U+009F) and space separators (e.g.
// U+00A0, U+3000), which Java also quotes. Invalid UTF-8 bytes become %XX.
std::string EncodePathUri(std::string_view path);

// A table root as a local path: a plain path is returned as is (no decoding); "file:/p",
// "file:///p" and "file://localhost/p" give the percent-decoded "/p". Trailing '/' are dropped
// (except for "/"). Errors: empty input or a file URI with another host or a relative path:
// InvalidArgument; any other scheme: NotImplemented.
Result<std::string> LocalPathFromUri(std::string_view uri_or_path);
// "file:///abs/path" for an absolute local path (percent-encoded with EncodePathUri).
std::string LocalPathToFileUri(std::string_view absolute_path);

// `a` + "/" + `b` with exactly one '/' between them; an empty side returns the other.
std::string JoinPath(std::string_view a, std::string_view b);

// A path from the log (`add.path`, …), decoded once. `absolute` when it has a scheme or starts
// with '/' (a scheme-less absolute path, as Hadoop resolves it); then `path` is the whole decoded
// URI or path, else a key relative to the table root.
struct DeltaPath {
  bool absolute = false;
  std::string path;
};
Result<DeltaPath> ParseDeltaPath(std::string_view log_path);
// The inverse for relative paths: the string a writer puts in `add.path` for an object key.
inline std::string ToDeltaPath(std::string_view relative_key) {
  return EncodePathUri(relative_key);
}
// The object key of a log path for a table at local `table_root_path`: relative paths as decoded,
// absolute file: URIs and '/'-paths inside the root relativized. Absolute URIs outside the root or
// of another scheme: Unsupported (kErrorInvalidPath) — the caller must open another store for them.
Result<std::string> DeltaPathToKey(std::string_view log_path, std::string_view table_root_path);

// Spark ExternalCatalogUtils.escapePathName: %XX (upper case) for ASCII 0x00–0x1F, 0x7F and
// " # % ' * / : = ? \ { [ ] ^. Space, '}' and non-ASCII stay raw.
std::string EscapePathName(std::string_view s);
// Spark unescapePathName: decodes every '%' followed by two hex digits; other '%' stay literal.
std::string UnescapePathName(std::string_view s);

// A partition directory value: null and "" become __HIVE_DEFAULT_PARTITION__, others escaped.
std::string EscapePartitionValue(const std::optional<std::string>& value);
// The inverse: __HIVE_DEFAULT_PARTITION__ is null, others unescaped.
std::optional<std::string> UnescapePartitionValue(std::string_view dir_value);

// Partition columns in `partitionColumns` order with their values (nullopt = null).
using PartitionValues = std::vector<std::pair<std::string, std::optional<std::string>>>;
// "a=1/b=x%3Ay" (names and values escaped); "" for no columns. No trailing '/'.
std::string PartitionPath(const PartitionValues& values);
// Parses "a=1/b=x%3Ay" (a trailing '/' is allowed). A segment without '=' or with an empty name:
// InvalidArgument (kErrorInvalidPath).
Result<PartitionValues> ParsePartitionPath(std::string_view dirs);

}  // namespace silt
