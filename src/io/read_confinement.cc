#include "io/read_confinement.h"

#include <climits>
#include <cstdlib>

#include "common/error_classes.h"
#include "io/object_store_factory.h"

namespace silt {
namespace {

bool IsMemoryLocation(std::string_view l) { return l.starts_with("memory://"); }

// The canonical form of `l`, and for an existing local path its symlink-free form too.
std::vector<std::string> Forms(std::string_view l) {
  std::vector<std::string> out;
  Result<std::string> c = CanonicalLocation(l);
  if (!c.ok()) return out;
  out.push_back(*c);
  if (!IsMemoryLocation(*c)) {
    char buf[PATH_MAX];
    if (realpath(c->c_str(), buf) != nullptr && *c != buf) out.emplace_back(buf);
  }
  return out;
}

bool Below(const std::vector<std::string>& bases, const std::string& location) {
  for (const std::string& b : bases) {
    if (b == "/") return location.size() > 1 && location[0] == '/';
    if (RelativeLocation(b, location)) return true;
  }
  return false;
}

}  // namespace

Result<std::shared_ptr<const ReadConfinement>> ReadConfinement::Make(
    std::string_view prefixes_csv) {
  auto c = std::make_shared<ReadConfinement>();
  size_t pos = 0;
  while (pos <= prefixes_csv.size()) {
    size_t comma = prefixes_csv.find(',', pos);
    if (comma == std::string_view::npos) comma = prefixes_csv.size();
    std::string_view item = prefixes_csv.substr(pos, comma - pos);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (!item.empty()) {
      Result<std::string> canon = CanonicalLocation(item);
      if (!canon.ok())
        return Status::InvalidArgument(
            std::string(kAllowedReadPrefixesKey) + ": '" + std::string(item) +
                "' is not a location: " + std::string(canon.status().message()),
            errc::kInvalidConfValue);
      c->allowed_prefixes.push_back(std::move(canon).value());
    }
    pos = comma + 1;
  }
  return std::shared_ptr<const ReadConfinement>(std::move(c));
}

Status CheckConfinedRead(const ReadConfinement& c, std::string_view table_root,
                         std::string_view location) {
  const std::vector<std::string> loc = Forms(location);
  bool allowed = !loc.empty();
  if (allowed) {
    std::vector<std::string> bases = Forms(table_root);
    for (const std::string& p : c.allowed_prefixes) {
      std::vector<std::string> f = Forms(p);
      bases.insert(bases.end(), f.begin(), f.end());
    }
    // Every form of the location (the lexical one and the one symlinks lead to) must be inside.
    for (const std::string& l : loc) allowed = allowed && Below(bases, l);
  }
  if (allowed) return Status::OK();
  return Status::InvalidArgument(
      "the Delta log of " + std::string(table_root) + " names " + std::string(location) +
          ", outside the table root and the locations in " + kAllowedReadPrefixesKey +
          "; reads are confined by " + kConfineReadsKey + " = true",
      kReadOutsideTableRootClass);
}

}  // namespace silt
