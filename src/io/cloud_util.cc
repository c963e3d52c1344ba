#include "io/cloud_util.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>

namespace silt::cloud {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool IsTrue(const std::optional<std::string>& v) {
  return v && (Lower(*v) == "true" || *v == "1" || Lower(*v) == "yes");
}

std::string XmlUnescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out.push_back(s[i]);
      continue;
    }
    size_t semi = s.find(';', i);
    if (semi == std::string_view::npos) {
      out.push_back('&');
      continue;
    }
    std::string_view ent = s.substr(i + 1, semi - i - 1);
    if (ent == "amp") {
      out.push_back('&');
    } else if (ent == "lt") {
      out.push_back('<');
    } else if (ent == "gt") {
      out.push_back('>');
    } else if (ent == "quot") {
      out.push_back('"');
    } else if (ent == "apos") {
      out.push_back('\'');
    } else if (!ent.empty() && ent[0] == '#') {
      uint32_t cp =
          ent.size() > 1 && (ent[1] == 'x' || ent[1] == 'X')
              ? static_cast<uint32_t>(std::strtoul(std::string(ent.substr(2)).c_str(), nullptr, 16))
              : static_cast<uint32_t>(
                    std::strtoul(std::string(ent.substr(1)).c_str(), nullptr, 10));
      if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
      } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      }
    } else {
      out.append(s.substr(i, semi - i + 1));
    }
    i = semi;
  }
  return out;
}

std::string XmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::optional<std::string> XmlText(std::string_view xml, std::string_view tag, std::string* attrs) {
  std::string open = "<" + std::string(tag);
  size_t pos = 0;
  while ((pos = xml.find(open, pos)) != std::string_view::npos) {
    size_t after = pos + open.size();
    if (after < xml.size() && (xml[after] == '>' || xml[after] == ' ' || xml[after] == '/')) break;
    pos = after;
  }
  if (pos == std::string_view::npos) return std::nullopt;
  size_t gt = xml.find('>', pos);
  if (gt == std::string_view::npos) return std::nullopt;
  if (attrs != nullptr) *attrs = std::string(xml.substr(pos + open.size(), gt - pos - open.size()));
  if (xml[gt - 1] == '/') return std::string();
  std::string close = "</" + std::string(tag) + ">";
  size_t end = xml.find(close, gt + 1);
  if (end == std::string_view::npos) return std::nullopt;
  return XmlUnescape(xml.substr(gt + 1, end - gt - 1));
}

std::string RandomHex(int n) {
  thread_local std::mt19937_64 rng(std::random_device{}());
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < n; ++i) s.push_back(hex[rng() & 15]);
  return s;
}

namespace {

std::string Digest(const EVP_MD* md, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out, &len, md, nullptr);
  return std::string(reinterpret_cast<char*>(out), len);
}

}  // namespace

std::string Sha256(std::string_view data) { return Digest(EVP_sha256(), data); }
std::string Md5(std::string_view data) { return Digest(EVP_md5(), data); }

std::string Hex(std::string_view bytes) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(hex[c >> 4]);
    out.push_back(hex[c & 15]);
  }
  return out;
}

int64_t IntSetting(const std::optional<std::string>& v, int64_t fallback) {
  if (!v) return fallback;
  char* end = nullptr;
  long long n = std::strtoll(v->c_str(), &end, 10);
  return end != v->c_str() && *end == '\0' && n >= 0 ? n : fallback;
}

int64_t DurationMsSetting(const std::optional<std::string>& v, int64_t bare_unit_ms,
                          int64_t fallback) {
  if (!v) return fallback;
  char* end = nullptr;
  long long n = std::strtoll(v->c_str(), &end, 10);
  if (end == v->c_str() || n < 0) return fallback;
  std::string unit = Lower(std::string_view(end));
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  if (unit.empty()) return n * bare_unit_ms;
  if (unit == "ms") return n;
  if (unit == "s") return n * 1000;
  if (unit == "m") return n * 60000;
  if (unit == "h") return n * 3600000;
  if (unit == "d") return n * 86400000;
  return fallback;
}

int64_t BytesSetting(const std::optional<std::string>& v, int64_t fallback) {
  if (!v) return fallback;
  char* end = nullptr;
  long long n = std::strtoll(v->c_str(), &end, 10);
  if (end == v->c_str() || n < 0) return fallback;
  std::string unit = Lower(std::string_view(end));
  if (unit.empty() || unit == "b") return n;
  if (unit == "k" || unit == "kb") return n << 10;
  if (unit == "m" || unit == "mb") return n << 20;
  if (unit == "g" || unit == "gb") return n << 30;
  if (unit == "t" || unit == "tb") return n << 40;
  return fallback;
}

std::string FormatIso8601Millis(int64_t millis) {
  time_t t = static_cast<time_t>(millis / 1000);
  struct tm tm;
  gmtime_r(&t, &tm);
  char buf[40];
  strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  char ms[8];
  std::snprintf(ms, sizeof(ms), ".%03dZ", static_cast<int>(millis % 1000));
  return std::string(buf) + ms;
}

int64_t ParseIso8601Millis(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS[.fff]Z
  if (text.size() < 19) return -1;
  struct tm tm = {};
  std::string s(text);
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6) {
    return -1;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  int64_t ms = static_cast<int64_t>(timegm(&tm)) * 1000;
  if (s.size() > 20 && s[19] == '.') {
    int64_t frac = 0;
    int digits = 0;
    for (size_t i = 20; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
      if (digits < 3) {
        frac = frac * 10 + (s[i] - '0');
        ++digits;
      }
    }
    while (digits < 3) {
      frac *= 10;
      ++digits;
    }
    ms += frac;
  }
  return ms;
}

Status ImpliedDirs::Visit(const ObjectMeta& m, const ObjectVisitor& visit) {
  std::vector<std::string> dirs;
  for (size_t p = m.key.find('/', prefix_.size()); p != std::string::npos;
       p = m.key.find('/', p + 1)) {
    dirs.push_back(m.key.substr(0, p + 1));
  }
  size_t common = 0;
  while (common < dirs.size() && common < open_dirs_.size() && dirs[common] == open_dirs_[common])
    ++common;
  for (size_t i = common; i < dirs.size(); ++i) {
    ObjectMeta d;
    d.key = dirs[i].substr(0, dirs[i].size() - 1);
    d.is_dir = true;
    SILT_RETURN_NOT_OK(visit(d));
  }
  open_dirs_ = std::move(dirs);
  return visit(m);
}

}  // namespace silt::cloud
