// JSON writing and reading helpers shared by the Delta JSON layer (actions, schema, stats).
//
// Writing follows Jackson's output (what Delta-Spark writes): strings escape `"`, `\`, the short
// escapes \b \t \n \f \r and other control characters as \u00XX with uppercase hex; everything
// else, including non-ASCII UTF-8 and '/', is written raw.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace silt::delta {

// Appends `s` as a quoted JSON string, escaped like Jackson.
void AppendJacksonString(std::string* out, std::string_view s);

// Appends the decimal text of `v`.
void AppendInt(std::string* out, int64_t v);

// Appends `element` as compact JSON in Jackson's style (keys in source order; integers exact;
// doubles formatted like Java's Double.toString). Used to carry arbitrary JSON (field metadata,
// commitInfo parameters) through a round trip.
void AppendJsonElement(std::string* out, simdjson::dom::element element);

// Human-readable name of a DOM element type for error messages ("string", "object", ...).
const char* JsonTypeName(simdjson::dom::element_type type);

}  // namespace silt::delta
