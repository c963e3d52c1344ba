// JSON string quoting.
#pragma once

#include <string>
#include <string_view>

namespace silt {

// How \u00XX escapes spell their hex digits: Jackson (Spark's JSON writer, Delta's log) writes
// upper case, silt's own Value::ToJson lower case.
enum class JsonHexCase { kLower, kUpper };

// Appends `s` as a quoted JSON string to *out: '"' and '\\' escaped, \n \r \t \b \f as two-letter
// escapes, other control bytes below 0x20 as \u00XX; every other byte (UTF-8 included) as is.
// (vector/value.h's two-argument AppendJsonString is this with JsonHexCase::kLower.)
void AppendJsonString(std::string* out, std::string_view s, JsonHexCase hex);

}  // namespace silt
