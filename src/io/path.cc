#include "io/path.h"

#include <cstdint>

#include "common/ascii.h"

namespace silt {

namespace {

constexpr char kHex[] = "0123456789ABCDEF";

void AppendEscaped(std::string* out, unsigned char c) {
  out->push_back('%');
  out->push_back(kHex[c >> 4]);
  out->push_back(kHex[c & 0xF]);
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Length of the UTF-8 sequence starting at s[i] and its code point; 0 when invalid.
size_t DecodeUtf8(std::string_view s, size_t i, uint32_t* cp) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  size_t len;
  uint32_t v;
  if (c < 0x80) {
    *cp = c;
    return 1;
  } else if ((c & 0xE0) == 0xC0) {
    len = 2;
    v = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3;
    v = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4;
    v = c & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b(i + k) & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < kMin[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return len;
}

// java.net.URI quotes "other" characters that are ISO controls or Unicode space separators.
bool JavaQuotesCodePoint(uint32_t cp) {
  if (cp >= 0x80 && cp <= 0x9F) return true;
  switch (cp) {
    case 0x00A0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200A;
  }
}

bool UriQuotesAscii(unsigned char c) {
  if (c < 0x20 || c == 0x7F) return true;
  switch (c) {
    case ' ':
    case '"':
    case '#':
    case '%':
    case '<':
    case '>':
    case '?':
    case '[':
    case '\\':
    case ']':
    case '^':
    case '`':
    case '{':
    case '|':
    case '}':
      return true;
    default:
      return false;
  }
}

bool HiveEscapes(unsigned char c) {
  if (c < 0x20 || c == 0x7F) return true;
  switch (c) {
    case '"':
    case '#':
    case '%':
    case '\'':
    case '*':
    case '/':
    case ':':
    case '=':
    case '?':
    case '\\':
    case '{':
    case '[':
    case ']':
    case '^':
      return true;
    default:
      return false;
  }
}

std::string_view StripTrailingSlashes(std::string_view p) {
  while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);
  return p;
}

}  // namespace

bool HasUriScheme(std::string_view s) {
  if (s.empty() || !IsAlpha(s[0])) return false;
  for (size_t i = 1; i < s.size(); ++i) {
    char c = s[i];
    if (c == ':') return i >= 2;
    if (!IsAlpha(c) && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.') return false;
  }
  return false;
}

std::string UriScheme(std::string_view s) {
  if (!HasUriScheme(s)) return "";
  return AsciiLower(s.substr(0, s.find(':')));
}

Result<std::string> PercentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    int hi = i + 2 < s.size() ? HexValue(s[i + 1]) : -1;
    int lo = hi >= 0 ? HexValue(s[i + 2]) : -1;
    if (hi < 0 || lo < 0)
      return Status::InvalidArgument("malformed percent escape at offset " + std::to_string(i) +
                                         " in path '" + std::string(s) + "'",
                                     kErrorInvalidPath);
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

std::string EncodePathUri(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (size_t i = 0; i < path.size();) {
    unsigned char c = static_cast<unsigned char>(path[i]);
    if (c < 0x80) {
      if (UriQuotesAscii(c)) {
        AppendEscaped(&out, c);
      } else {
        out.push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    uint32_t cp;
    size_t len = DecodeUtf8(path, i, &cp);
    if (len == 0) {
      AppendEscaped(&out, c);
      ++i;
      continue;
    }
    if (JavaQuotesCodePoint(cp)) {
      for (size_t k = 0; k < len; ++k) AppendEscaped(&out, static_cast<unsigned char>(path[i + k]));
    } else {
      out.append(path.substr(i, len));
    }
    i += len;
  }
  return out;
}

Result<std::string> LocalPathFromUri(std::string_view uri_or_path) {
  if (uri_or_path.empty()) return Status::InvalidArgument("empty table path", kErrorInvalidPath);
  if (!HasUriScheme(uri_or_path)) return std::string(StripTrailingSlashes(uri_or_path));
  std::string scheme = UriScheme(uri_or_path);
  if (scheme != "file")
    return Status::NotImplemented("storage scheme '" + scheme +
                                  "' is not supported yet: " + std::string(uri_or_path));
  std::string_view rest = uri_or_path.substr(5);  // after "file:"
  if (rest.starts_with("//")) {
    rest.remove_prefix(2);
    size_t slash = rest.find('/');
    std::string_view host = rest.substr(0, slash);
    if (!host.empty() && host != "localhost")
      return Status::InvalidArgument(
          "file URI with remote host '" + std::string(host) + "': " + std::string(uri_or_path),
          kErrorInvalidPath);
    rest = slash == std::string_view::npos ? std::string_view("/") : rest.substr(slash);
  }
  if (!rest.starts_with("/"))
    return Status::InvalidArgument("file URI without an absolute path: " + std::string(uri_or_path),
                                   kErrorInvalidPath);
  SILT_ASSIGN_OR_RETURN(std::string decoded, PercentDecode(rest));
  return std::string(StripTrailingSlashes(decoded));
}

std::string LocalPathToFileUri(std::string_view absolute_path) {
  return "file://" + EncodePathUri(absolute_path);
}

std::string JoinPath(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  while (a.size() > 1 && a.back() == '/') a.remove_suffix(1);
  while (!b.empty() && b.front() == '/') b.remove_prefix(1);
  std::string out(a);
  if (out.back() != '/') out.push_back('/');
  out.append(b);
  return out;
}

Result<DeltaPath> ParseDeltaPath(std::string_view log_path) {
  if (log_path.empty()) return Status::InvalidArgument("empty path in the log", kErrorInvalidPath);
  DeltaPath p;
  p.absolute = HasUriScheme(log_path) || log_path.front() == '/';
  SILT_ASSIGN_OR_RETURN(p.path, PercentDecode(log_path));
  return p;
}

Result<std::string> DeltaPathToKey(std::string_view log_path, std::string_view table_root_path) {
  SILT_ASSIGN_OR_RETURN(DeltaPath p, ParseDeltaPath(log_path));
  if (!p.absolute) return std::move(p.path);
  std::string local;
  if (log_path.front() == '/') {
    local = std::move(p.path);
  } else if (UriScheme(log_path) == "file") {
    SILT_ASSIGN_OR_RETURN(local, LocalPathFromUri(log_path));
  }
  if (!local.empty()) {
    std::string prefix(StripTrailingSlashes(table_root_path));
    if (prefix.back() != '/') prefix.push_back('/');
    if (local.starts_with(prefix) && local.size() > prefix.size())
      return local.substr(prefix.size());
  }
  return Status::Unsupported("path '" + std::string(log_path) + "' is outside the table root " +
                                 std::string(table_root_path),
                             kErrorInvalidPath);
}

std::string EscapePathName(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (HiveEscapes(c)) {
      AppendEscaped(&out, c);
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

std::string UnescapePathName(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      int hi = HexValue(s[i + 1]);
      int lo = hi >= 0 ? HexValue(s[i + 2]) : -1;
      if (lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

std::string EscapePartitionValue(const std::optional<std::string>& value) {
  if (!value || value->empty()) return kHiveDefaultPartition;
  return EscapePathName(*value);
}

std::optional<std::string> UnescapePartitionValue(std::string_view dir_value) {
  if (dir_value == kHiveDefaultPartition) return std::nullopt;
  return UnescapePathName(dir_value);
}

std::string PartitionPath(const PartitionValues& values) {
  std::string out;
  for (const auto& [name, value] : values) {
    if (!out.empty()) out.push_back('/');
    out += EscapePathName(name);
    out.push_back('=');
    out += EscapePartitionValue(value);
  }
  return out;
}

Result<PartitionValues> ParsePartitionPath(std::string_view dirs) {
  PartitionValues out;
  if (dirs.ends_with('/')) dirs.remove_suffix(1);
  if (dirs.empty()) return out;
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find('/', start);
    if (end == std::string_view::npos) end = dirs.size();
    std::string_view seg = dirs.substr(start, end - start);
    size_t eq = seg.find('=');
    if (eq == std::string_view::npos || eq == 0)
      return Status::InvalidArgument("'" + std::string(seg) +
                                         "' is not a partition directory (col=value) in '" +
                                         std::string(dirs) + "'",
                                     kErrorInvalidPath);
    out.emplace_back(UnescapePathName(seg.substr(0, eq)),
                     UnescapePartitionValue(seg.substr(eq + 1)));
    start = end + 1;
  }
  return out;
}

}  // namespace silt
