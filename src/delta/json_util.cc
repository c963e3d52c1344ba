#include "delta/json_util.h"

#include <charconv>

#include "common/json_escape.h"
#include "common/number_format.h"

namespace silt::delta {

void AppendJacksonString(std::string* out, std::string_view s) {
  AppendJsonString(out, s, JsonHexCase::kUpper);
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
    case element_type::INT64:
      AppendInt(out, e.get_int64().value_unsafe());
      break;
    case element_type::UINT64:
      *out += std::to_string(e.get_uint64().value_unsafe());
      break;
    case element_type::DOUBLE:
      *out += FormatJavaDouble(e.get_double().value_unsafe());
      break;
    case element_type::STRING:
      AppendJacksonString(out, e.get_string().value_unsafe());
      break;
    case element_type::BOOL:
      *out += e.get_bool().value_unsafe() ? "true" : "false";
      break;
    case element_type::NULL_VALUE:
      *out += "null";
      break;
  }
}

const char* JsonTypeName(simdjson::dom::element_type type) {
  using simdjson::dom::element_type;
  switch (type) {
    case element_type::OBJECT:
      return "object";
    case element_type::ARRAY:
      return "array";
    case element_type::INT64:
    case element_type::UINT64:
      return "integer";
    case element_type::DOUBLE:
      return "number";
    case element_type::STRING:
      return "string";
    case element_type::BOOL:
      return "boolean";
    case element_type::NULL_VALUE:
      return "null";
  }
  return "?";
}

}  // namespace silt::delta
