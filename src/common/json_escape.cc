#include "common/json_escape.h"

namespace silt {

void AppendJsonString(std::string* out, std::string_view s, JsonHexCase hex_case) {
  const char* hex = hex_case == JsonHexCase::kUpper ? "0123456789ABCDEF" : "0123456789abcdef";
  out->push_back('"');
  size_t run = 0;  // start of the pending unescaped run: copy runs in bulk
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '\b':
        *out += "\\b";
        break;
      case '\f':
        *out += "\\f";
        break;
      default:
        *out += "\\u00";
        out->push_back(hex[c >> 4]);
        out->push_back(hex[c & 15]);
    }
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
}

}  // namespace silt
