// Helpers shared by the cloud object stores (io/azure_blob_store.h, io/s3_object_store.h): the
// little XML their list and error responses need, hashes, random names, settings by name, and
// the directories a flat listing implies. The HTTP layer with its retries is io/http_client.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "io/object_store.h"

namespace silt::cloud {

// ASCII lower case.
std::string Lower(std::string_view s);
// Whether a setting reads as true ("true", "1", "yes", any case).
bool IsTrue(const std::optional<std::string>& v);

// Replaces the XML entities (&amp; &lt; &gt; &quot; &apos; &#N; &#xN;) by their characters.
std::string XmlUnescape(std::string_view s);
// Escapes & < > " ' for XML text.
std::string XmlEscape(std::string_view s);
// The text of the first <tag ...>text</tag> in `xml` (unescaped); `attrs` gets the attributes.
// nullopt when absent; "" for <tag/>.
std::optional<std::string> XmlText(std::string_view xml, std::string_view tag,
                                   std::string* attrs = nullptr);
// Calls f(element body) for each <tag>...</tag> (not nested) in `xml`; f returns a Status.
template <typename F>
Status ForEachElement(std::string_view xml, std::string_view tag, F f) {
  std::string open = "<" + std::string(tag) + ">";
  std::string close = "</" + std::string(tag) + ">";
  size_t pos = 0;
  while ((pos = xml.find(open, pos)) != std::string_view::npos) {
    size_t end = xml.find(close, pos);
    if (end == std::string_view::npos) return Status::IoError("malformed listing XML");
    SILT_RETURN_NOT_OK(f(xml.substr(pos + open.size(), end - pos - open.size())));
    pos = end + close.size();
  }
  return Status::OK();
}

// `n` random lower-case hex digits.
std::string RandomHex(int n);
// SHA-256 and MD5 digests (raw bytes), and lower-case hex of bytes.
std::string Sha256(std::string_view data);
std::string Md5(std::string_view data);
std::string Hex(std::string_view bytes);

// A non-negative integer setting, else `fallback` (unset or unparsable).
int64_t IntSetting(const std::optional<std::string>& value, int64_t fallback);
// A duration in milliseconds: a bare number is `bare_unit_ms` per unit (Hadoop's time values:
// "500ms", "60s", "2m", "1h", "1d" too); `fallback` when unset or unparsable.
int64_t DurationMsSetting(const std::optional<std::string>& value, int64_t bare_unit_ms,
                          int64_t fallback);
// A byte size: a bare number of bytes, or with K/M/G/T (binary) as Hadoop's getLongBytes takes.
int64_t BytesSetting(const std::optional<std::string>& value, int64_t fallback);

// Milliseconds since the epoch of an ISO-8601 UTC time ("2009-10-12T17:50:30.000Z"), or -1.
int64_t ParseIso8601Millis(std::string_view text);
// The ISO-8601 UTC time of `millis` since the epoch, with milliseconds ("…T17:50:30.000Z").
std::string FormatIso8601Millis(int64_t millis);

// ListRecursive over a flat, key-ordered listing: reports the directories implied by the names
// between `prefix` (a directory prefix, "" or ending in '/') and each object once, before their
// contents, then the object. `open_dirs` carries state between calls (start empty).
class ImpliedDirs {
 public:
  explicit ImpliedDirs(std::string prefix) : prefix_(std::move(prefix)) {}
  Status Visit(const ObjectMeta& m, const ObjectVisitor& visit);

 private:
  std::string prefix_;
  std::vector<std::string> open_dirs_;  // each with a trailing '/'
};

}  // namespace silt::cloud
