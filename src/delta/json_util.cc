#include "delta/json_util.h"

#include <charconv>

#include "delta/partition_values.h"

namespace silt::delta {

void AppendJacksonString(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out->push_back('"');
  size_t run = 0;  // start of the pending unescaped run: copy runs in bulk
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      case '\b': *out += "\\b"; break;
      case '\f': *out += "\\f"; break;
      default:
        *out += "\\u00";
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 15]);
    }
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
}

void AppendInt(std::string* out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, static_cast<size_t>(r.ptr - buf));
}

void AppendJsonElement(std::string* out, simdjson::dom::element e) {
  using simdjson::dom::element_type;
  switch (e.type()) {
    case element_type::OBJECT: {
      out->push_back('{');
      bool first = true;
      simdjson::dom::object obj = e.get_object().value_unsafe();
      for (auto field : obj) {
        if (!first) out->push_back(',');
        first = false;
        AppendJacksonString(out, field.key);
        out->push_back(':');
        AppendJsonElement(out, field.value);
      }
      out->push_back('}');
      break;
    }
    case element_type::ARRAY: {
      out->push_back('[');
      bool first = true;
      simdjson::dom::array arr = e.get_array().value_unsafe();
      for (auto child : arr) {
        if (!first) out->push_back(',');
        first = false;
        AppendJsonElement(out, child);
      }
      out->push_back(']');
      break;
    }
    case element_type::INT64: AppendInt(out, e.get_int64().value_unsafe()); break;
    case element_type::UINT64: *out += std::to_string(e.get_uint64().value_unsafe()); break;
    case element_type::DOUBLE: *out += FormatJavaDouble(e.get_double().value_unsafe()); break;
    case element_type::STRING: AppendJacksonString(out, e.get_string().value_unsafe()); break;
    case element_type::BOOL: *out += e.get_bool().value_unsafe() ? "true" : "false"; break;
    case element_type::NULL_VALUE: *out += "null"; break;
  }
}

const char* JsonTypeName(simdjson::dom::element_type type) {
  using simdjson::dom::element_type;
  switch (type) {
    case element_type::OBJECT: return "object";
    case element_type::ARRAY: return "array";
    case element_type::INT64:
    case element_type::UINT64: return "integer";
    case element_type::DOUBLE: return "number";
    case element_type::STRING: return "string";
    case element_type::BOOL: return "boolean";
    case element_type::NULL_VALUE: return "null";
  }
  return "?";
}

}  // namespace silt::delta
