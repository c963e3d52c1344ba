// Spark's JSON functions (jsonExpressions.scala): get_json_object, json_array_length,
// json_object_keys, schema_of_json, from_json and to_json. Parsing is simdjson's DOM (one parser
// per kernel call); writing follows Jackson's compact output as Spark configures it (no spaces,
// NULL struct fields left out, timestamps "yyyy-MM-dd'T'HH:mm:ss.SSSXXX" in the session zone).
// Invalid JSON gives NULL (from_json: a struct of NULLs in the default PERMISSIVE mode).
#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include "common/ascii.h"
#include "common/error_classes.h"
#include "common/number_format.h"
#include "delta/json_util.h"
#include "delta/schema_json.h"
#include "exec/cast.h"
#include "exec/function_registry.h"
#include "exec/functions/datetime_calendar.h"
#include "exec/functions/function_util.h"
#include "vector/time_text.h"
#include "vector/type_sql.h"

namespace silt::exec {

namespace {

using fn::CheckArity;
using fn::CoerceArg;
using fn::MakeCall;
using fn::NullAt;
using simdjson::dom::element;
using simdjson::dom::element_type;

using Args = std::vector<ExprPtr>;

// Parses one JSON document; false when it is not valid JSON (or empty).
bool ParseJson(simdjson::dom::parser& parser, std::string_view s, element* out) {
  return !parser.parse(s.data(), s.size(), true).get(*out);
}

// Jackson features Spark enables beyond strict JSON, done by rewriting the text into strict JSON
// (into *scratch) and parsing again when the strict parse fails:
// - control_chars (ALLOW_UNQUOTED_CONTROL_CHARS; get_json_object, json_array_length,
//   json_object_keys): raw control characters inside strings;
// - single_quotes (allowSingleQuotes, on by default for from_json and schema_of_json):
//   'strings' and 'names' in single quotes.
struct Leniency {
  bool control_chars = false;
  bool single_quotes = false;
};

bool ParseJsonLenient(simdjson::dom::parser& parser, std::string_view s, Leniency lenient,
                      std::string* scratch, element* out) {
  simdjson::error_code err = parser.parse(s.data(), s.size(), true).get(*out);
  if (!err) return true;
  bool control = lenient.control_chars && err == simdjson::UNESCAPED_CHARS;
  bool single = lenient.single_quotes && s.find('\'') != std::string_view::npos;
  if (!control && !single) return false;
  static constexpr char kHex[] = "0123456789ABCDEF";
  scratch->clear();
  char quote = 0;  // the quote of the string we are in, 0 outside strings
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote == 0) {
      if (c == '"' || (c == '\'' && single)) {
        quote = c;
        c = '"';
      }
      scratch->push_back(c);
    } else if (c == '\\' && i + 1 < s.size()) {
      if (quote == '\'' && s[i + 1] == '\'') {
        scratch->push_back('\'');  // \' is no JSON escape
      } else {
        scratch->push_back('\\');
        scratch->push_back(s[i + 1]);
      }
      ++i;
    } else if (c == quote) {
      quote = 0;
      scratch->push_back('"');
    } else if (c == '"') {  // a double quote inside a single-quoted string
      *scratch += "\\\"";
    } else if (control && static_cast<unsigned char>(c) < 0x20) {
      *scratch += "\\u00";
      scratch->push_back(kHex[(c >> 4) & 15]);
      scratch->push_back(kHex[c & 15]);
    } else {
      scratch->push_back(c);
    }
  }
  return ParseJson(parser, *scratch, out);
}

constexpr Leniency kControlChars{true, false};
constexpr Leniency kSingleQuotes{false, true};

// The value of a foldable argument (literal or constant expression such as schema_of_json('…')).
Result<Value> FoldedArg(std::string_view name, const ExprPtr& e, const char* what) {
  if (!IsConstantExpr(*e)) {
    return fn::TypeMismatch(name, "the input " + std::string(what) +
                                      " should be a foldable expression; however, got " +
                                      e->ToString() + ".");
  }
  return EvaluateConstant(*e, EvalContext{});
}

// ---------------------------------------------------------------------------------------------
// get_json_object

struct PathStep {
  // kKey: .name / ['name']; kIndex: [n]; kWildcard: [*]; kFieldWildcard: .* / ['*'] (matches
  // nothing at an object, as in Spark).
  enum Kind { kKey, kIndex, kWildcard, kFieldWildcard } kind;
  std::string key;
  int64_t index = 0;
};

// Spark's JsonPathParser: "$" then ".name", "['name']", "[n]", "[*]", ".*" or "['*']"; nullopt
// when invalid.
std::optional<std::vector<PathStep>> ParsePath(std::string_view p) {
  if (p.empty() || p[0] != '$') return std::nullopt;
  std::vector<PathStep> steps;
  size_t i = 1;
  while (i < p.size()) {
    if (p[i] == '.') {
      size_t e = p.find_first_of(".[", i + 1);
      if (e == std::string_view::npos) e = p.size();
      if (e == i + 1) return std::nullopt;
      std::string key(p.substr(i + 1, e - i - 1));
      steps.push_back(key == "*" ? PathStep{PathStep::kFieldWildcard, "", 0}
                                 : PathStep{PathStep::kKey, key, 0});
      i = e;
    } else if (p[i] == '[') {
      size_t e = p.find(']', i);
      if (e == std::string_view::npos) return std::nullopt;
      std::string_view in = p.substr(i + 1, e - i - 1);
      if (in == "*") {
        steps.push_back({PathStep::kWildcard, "", 0});
      } else if (in == "'*'") {
        steps.push_back({PathStep::kFieldWildcard, "", 0});
      } else if (in.size() >= 3 && in.front() == '\'' && in.back() == '\'') {
        std::string key(in.substr(1, in.size() - 2));
        if (key.find_first_of("'?") != std::string::npos) return std::nullopt;
        steps.push_back({PathStep::kKey, key, 0});
      } else {
        int64_t k = 0;
        auto [ptr, ec] = std::from_chars(in.data(), in.data() + in.size(), k);
        if (in.empty() || in[0] == '-' || in[0] == '+' || ec != std::errc() ||
            ptr != in.data() + in.size()) {
          return std::nullopt;
        }
        steps.push_back({PathStep::kIndex, "", k});
      }
      i = e + 1;
    } else {
      return std::nullopt;
    }
  }
  return steps;
}

// Compact JSON output with the commas of the enclosing arrays (a small Jackson generator).
class JsonOut {
 public:
  std::string& text() { return s_; }
  void BeginArray() {
    Separate();
    s_.push_back('[');
    first_.push_back(true);
  }
  void EndArray() {
    s_.push_back(']');
    first_.pop_back();
  }
  // Starts a value: the caller appends its text to text().
  void Separate() {
    if (first_.empty()) return;
    if (!first_.back()) s_.push_back(',');
    first_.back() = false;
  }

 private:
  std::string s_;
  std::vector<bool> first_;
};

// Spark's GetJsonObject.evaluatePath: raw style writes a string match unquoted; below a
// wildcard values are quoted, a wildcard with one match yields that match alone and more
// matches an array; [*][*] flattens. Returns whether anything matched.
enum class PathStyle { kRaw, kQuoted, kFlatten };

bool EvalPath(element e, std::span<const PathStep> path, PathStyle style, JsonOut* out) {
  if (path.empty()) {
    std::string_view str;
    if (style == PathStyle::kRaw && !e.get_string().get(str)) {
      out->Separate();
      out->text().append(str);
      return true;
    }
    simdjson::dom::array arr;
    if (style == PathStyle::kFlatten && !e.get_array().get(arr)) {
      bool dirty = false;
      for (element c : arr) dirty |= EvalPath(c, path, style, out);
      return dirty;
    }
    out->Separate();
    delta::AppendJsonElement(&out->text(), e);
    return true;
  }
  const PathStep& step = path[0];
  std::span<const PathStep> rest = path.subspan(1);
  if (step.kind == PathStep::kKey) {
    simdjson::dom::object obj;
    if (e.get_object().get(obj)) return false;
    for (auto field : obj) {  // the first match that is not null
      if (field.key == step.key && !field.value.is_null())
        return EvalPath(field.value, rest, style, out);
    }
    return false;
  }
  simdjson::dom::array arr;
  if (step.kind == PathStep::kFieldWildcard || e.get_array().get(arr)) return false;
  if (step.kind == PathStep::kIndex) {
    element c;
    if (arr.at(static_cast<size_t>(step.index)).get(c)) return false;
    // an index followed by a wildcard has one or more results: quoted from here on
    bool wildcard_next = !rest.empty() && rest[0].kind == PathStep::kWildcard;
    return EvalPath(c, rest, wildcard_next ? PathStyle::kQuoted : style, out);
  }
  if (!rest.empty() && rest[0].kind == PathStep::kWildcard) {  // [*][*]: Hive's flattening
    bool dirty = false;
    out->BeginArray();
    for (element c : arr) dirty |= EvalPath(c, rest.subspan(1), PathStyle::kFlatten, out);
    out->EndArray();
    return dirty;
  }
  if (style == PathStyle::kQuoted) {
    bool dirty = false;
    out->BeginArray();
    for (element c : arr) dirty |= EvalPath(c, rest, PathStyle::kQuoted, out);
    out->EndArray();
    return dirty;
  }
  // Matches go to a buffer first: one match is written without the array around it.
  JsonOut buffer;
  buffer.BeginArray();
  int matches = 0;
  PathStyle next = style == PathStyle::kRaw ? PathStyle::kQuoted : style;
  for (element c : arr) matches += EvalPath(c, rest, next, &buffer) ? 1 : 0;
  buffer.EndArray();
  const std::string& b = buffer.text();
  if (matches > 0) {
    out->Separate();
    out->text().append(matches > 1 ? std::string_view(b)
                                   : std::string_view(b).substr(1, b.size() - 2));
  }
  return matches > 0;
}

// ---------------------------------------------------------------------------------------------
// schema_of_json: Spark's JsonInferSchema (integers → bigint, other numbers → double, fields
// sorted by name, conflicting types → string)

TypePtr Merge(const TypePtr& a, const TypePtr& b);

TypePtr InferType(element e) {
  switch (e.type()) {
    case element_type::INT64:
      return DataType::Int64();
    case element_type::UINT64:
      return DataType::Decimal(20, 0);
    case element_type::DOUBLE:
      return DataType::Double();
    case element_type::STRING:
      return DataType::String();
    case element_type::BOOL:
      return DataType::Boolean();
    case element_type::NULL_VALUE:
      return DataType::Null();
    case element_type::ARRAY: {
      TypePtr t = DataType::Null();
      simdjson::dom::array arr = e.get_array().value_unsafe();
      for (element c : arr) t = Merge(t, InferType(c));
      return DataType::List(t);
    }
    case element_type::OBJECT: {
      std::vector<Field> fields;
      simdjson::dom::object obj = e.get_object().value_unsafe();
      for (auto f : obj) {
        std::string name(f.key);
        TypePtr t = InferType(f.value);
        int at = FindField(fields, name);
        if (at >= 0 && fields[static_cast<size_t>(at)].name == name) {
          fields[static_cast<size_t>(at)].type = Merge(fields[static_cast<size_t>(at)].type, t);
        } else {
          fields.push_back(Field{name, t, true, "{}"});
        }
      }
      std::stable_sort(fields.begin(), fields.end(),
                       [](const Field& a, const Field& b) { return a.name < b.name; });
      return DataType::Struct(std::move(fields));
    }
  }
  return DataType::String();
}

TypePtr Merge(const TypePtr& a, const TypePtr& b) {
  if (a->Equals(*b)) return a;
  TypeId x = a->id(), y = b->id();
  if (x == TypeId::kNull) return b;
  if (y == TypeId::kNull) return a;
  if ((x == TypeId::kDouble && fn::IsNumericId(y)) ||
      (y == TypeId::kDouble && fn::IsNumericId(x))) {
    return DataType::Double();
  }
  if (fn::IsNumericId(x) && fn::IsNumericId(y)) {
    auto t = CommonType(a, b);  // bigint with decimal(20,0)
    if (t.ok()) return *t;
  }
  if (x == TypeId::kList && y == TypeId::kList)
    return DataType::List(Merge(a->element_type(), b->element_type()));
  if (x == TypeId::kStruct && y == TypeId::kStruct) {
    std::vector<Field> fields = a->fields();
    for (const Field& f : b->fields()) {
      auto it = std::find_if(fields.begin(), fields.end(),
                             [&](const Field& g) { return g.name == f.name; });
      if (it == fields.end()) {
        fields.push_back(f);
      } else {
        it->type = Merge(it->type, f.type);
      }
    }
    std::stable_sort(fields.begin(), fields.end(),
                     [](const Field& p, const Field& q) { return p.name < q.name; });
    return DataType::Struct(std::move(fields));
  }
  return DataType::String();
}

// Spark's canonicalizeType: NULL → string, empty structs inside dropped.
TypePtr Canonical(const TypePtr& t, bool top) {
  switch (t->id()) {
    case TypeId::kNull:
      return DataType::String();
    case TypeId::kList: {
      TypePtr e = Canonical(t->element_type(), false);
      return e ? DataType::List(e) : nullptr;
    }
    case TypeId::kStruct: {
      std::vector<Field> fields;
      for (const Field& f : t->fields()) {
        if (TypePtr c = Canonical(f.type, false)) fields.push_back(Field{f.name, c, true, "{}"});
      }
      if (fields.empty() && !top) return nullptr;
      return DataType::Struct(std::move(fields));
    }
    default:
      return t;
  }
}

// ---------------------------------------------------------------------------------------------
// from_json

// The schema argument: a DDL type ("array<int>", "struct<a:int>"), a table schema
// ("a INT, b STRING") or Spark's JSON form of a type. The DDL forms are parsed by the SQL type
// grammar the binder injects (`parse_data_type`).
Result<TypePtr> ParseJsonSchema(std::string_view s, const BindContext& ctx) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  if (!s.empty() && s.front() == '{') return delta::ParseDataTypeJson(s);
  if (!ctx.parse_data_type) {
    return Status::NotImplemented("from_json with a DDL schema string needs the SQL type parser");
  }
  auto direct = ctx.parse_data_type(s);
  if (direct.ok()) return direct;
  // A table schema: top-level comma-separated "name type [NOT NULL] [COMMENT '…']" (name may be
  // `quoted`). Errors in a column's type are reported as such once one column has parsed.
  std::vector<Field> fields;
  int depth = 0;
  char quote = 0;
  size_t from = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    char c = i < s.size() ? s[i] : ',';
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '`' || c == '\'' || c == '"') quote = c;
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if (c != ',' || depth != 0) continue;
    std::string_view col = s.substr(from, i - from);
    from = i + 1;
    while (!col.empty() && std::isspace(static_cast<unsigned char>(col.front())))
      col.remove_prefix(1);
    std::string name;
    size_t k = 0;
    if (!col.empty() && col[0] == '`') {
      for (k = 1; k < col.size(); ++k) {
        if (col[k] == '`') {
          if (k + 1 < col.size() && col[k + 1] == '`') {
            name += '`';
            ++k;
            continue;
          }
          ++k;
          break;
        }
        name += col[k];
      }
    } else {
      while (k < col.size() && !std::isspace(static_cast<unsigned char>(col[k])) && col[k] != ':')
        name += col[k++];
    }
    std::string_view rest = col.substr(k);
    while (!rest.empty() &&
           (std::isspace(static_cast<unsigned char>(rest.front())) || rest.front() == ':')) {
      rest.remove_prefix(1);
    }
    if (name.empty() || rest.empty()) return direct.status();
    // The type ends at a top-level NOT NULL or COMMENT (nullability is not kept: from_json's
    // result fields are nullable in Spark too).
    int d = 0;
    for (size_t j = 0; j < rest.size(); ++j) {
      char ch = rest[j];
      if (ch == '<' || ch == '(') ++d;
      if (ch == '>' || ch == ')') --d;
      if (d != 0 || !std::isspace(static_cast<unsigned char>(ch))) continue;
      std::string_view word = rest.substr(j + 1, 7);
      auto starts = [&](std::string_view kw) { return StartsWithIgnoreCase(word, kw); };
      if (starts("NOT ") || starts("COMMENT")) {
        rest = rest.substr(0, j);
        break;
      }
    }
    auto t = ctx.parse_data_type(rest);
    if (!t.ok()) return t.status();
    fields.push_back(Field{name, *t, true, "{}"});
  }
  return DataType::Struct(std::move(fields));
}

// Converts JSON values to silt vectors for one from_json call; `malformed` records whether a
// value did not fit its type (it became NULL). Values are checked (Convert without a vector)
// before they are appended, so a value that does not fit leaves no partial rows behind.
class JsonReader {
 public:
  // Custom formats (the timestampFormat, timestampNTZFormat and dateFormat options) replace
  // Spark's default lenient parsing when set.
  struct Formats {
    std::optional<cal::DateTimePattern> timestamp, timestamp_ntz, date, time;
  };
  JsonReader(const cal::TimeZone* zone, const Formats* formats) : zone_(zone), formats_(formats) {}
  bool malformed = false;

  // Appends a root struct row from obj: each top-level field is converted on its own, and a
  // field whose value does not fit its type (anywhere inside) is NULL — Spark 3.5's partial
  // results (spark.sql.json.enablePartialResults off: no partial values below the top level).
  void AppendRootStruct(Vector* v, simdjson::dom::object obj) {
    const std::vector<Field>& fields = v->type()->fields();
    for (size_t k = 0; k < fields.size(); ++k) {
      element c;
      if (obj.at_key(fields[k].name).get(c) || c.is_null()) {
        v->child(k).AppendNull();
      } else if (Convert(*fields[k].type, c, nullptr)) {
        Convert(*fields[k].type, c, &v->child(k));
      } else {
        malformed = true;
        v->child(k).AppendNull();
      }
    }
    v->SetSizeUnchecked(v->size() + 1);
  }

  // Appends a root array or map: NULL unless all of e fits.
  void AppendRoot(Vector* v, element e) {
    if (Convert(*v->type(), e, nullptr)) {
      Convert(*v->type(), e, v);
    } else {
      malformed = true;
      v->AppendNull();
    }
  }

  // Appends a struct row of NULL fields (PERMISSIVE's result for a malformed record).
  static void AppendNullFields(Vector* v) {
    for (size_t k = 0; k < v->num_children(); ++k) v->child(k).AppendNull();
    v->SetSizeUnchecked(v->size() + 1);
  }

 private:
  // Converts non-null e to type t and appends it to v; with v == nullptr only tells whether it
  // fits (a value that fits then appends without failing).
  bool Convert(const DataType& t, element e, Vector* v) {
    switch (t.id()) {
      case TypeId::kBoolean: {
        bool b;
        if (e.get_bool().get(b)) return false;
        if (v) v->Append<uint8_t>(b ? 1 : 0);
        return true;
      }
      case TypeId::kInt8:
      case TypeId::kInt16:
      case TypeId::kInt32:
      case TypeId::kInt64: {
        int64_t x;
        if (e.type() != element_type::INT64 || e.get_int64().get(x)) return false;
        int bits = t.fixed_width() * 8;
        if (bits < 64 && (x < -(int64_t{1} << (bits - 1)) || x >= (int64_t{1} << (bits - 1))))
          return false;
        if (!v) return true;
        if (bits == 8) v->Append<int8_t>(static_cast<int8_t>(x));
        if (bits == 16) v->Append<int16_t>(static_cast<int16_t>(x));
        if (bits == 32) v->Append<int32_t>(static_cast<int32_t>(x));
        if (bits == 64) v->Append<int64_t>(x);
        return true;
      }
      case TypeId::kFloat:
      case TypeId::kDouble: {
        double d;
        if (e.is_number()) {
          d = e.get_double().value_unsafe();
        } else if (e.is_string()) {  // allowNonNumericNumbers
          std::string_view s = e.get_string().value_unsafe();
          if (s == "NaN") {
            d = std::nan("");
          } else if (s == "Infinity" || s == "+Infinity" || s == "+INF" || s == "INF") {
            d = HUGE_VAL;
          } else if (s == "-Infinity" || s == "-INF") {
            d = -HUGE_VAL;
          } else {
            return false;
          }
        } else {
          return false;
        }
        if (!v) return true;
        if (t.id() == TypeId::kFloat) {
          v->Append<float>(static_cast<float>(d));
        } else {
          v->Append<double>(d);
        }
        return true;
      }
      case TypeId::kDecimal: {
        if (!e.is_number()) return false;
        Value num = e.type() == element_type::INT64 ? Value::Int64(e.get_int64().value_unsafe())
                                                    : Value::Double(e.get_double().value_unsafe());
        auto cast = CastValue(num, DataType::Decimal(t.precision(), t.scale()), false);
        if (!cast.ok() || cast->is_null()) return false;
        if (v) v->Append<int128_t>(cast->decimal());
        return true;
      }
      case TypeId::kString: {
        std::string_view s;
        if (!v) return true;  // any JSON value reads as a string
        if (!e.get_string().get(s)) {
          v->AppendString(s);
        } else {
          scratch_.clear();
          delta::AppendJsonElement(&scratch_, e);
          v->AppendString(scratch_);
        }
        return true;
      }
      case TypeId::kDate: {
        std::string_view s;
        if (e.get_string().get(s)) return false;
        std::optional<int32_t> d;
        if (formats_->date) {
          auto micros = formats_->date->Parse(s, nullptr);
          if (micros) d = static_cast<int32_t>(cal::FloorDiv(*micros, cal::kMicrosPerDay));
        } else {
          d = cal::ParseDate(s);
        }
        if (!d) return false;
        if (v) v->Append<int32_t>(*d);
        return true;
      }
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz: {
        bool ntz = t.id() == TypeId::kTimestampNtz;
        if (e.type() == element_type::INT64 && !ntz) {  // seconds since the epoch
          if (v) v->Append<int64_t>(e.get_int64().value_unsafe() * 1000000);
          return true;
        }
        std::string_view s;
        if (e.get_string().get(s)) return false;
        const std::optional<cal::DateTimePattern>& format =
            ntz ? formats_->timestamp_ntz : formats_->timestamp;
        auto ts = format ? format->Parse(s, ntz ? nullptr : zone_)
                  : ntz  ? cal::ParseTimestampNtz(s)
                         : cal::ParseTimestamp(s, *zone_);
        if (!ts) return false;
        if (v) v->Append<int64_t>(*ts);
        return true;
      }
      case TypeId::kTime: {
        // The timeFormat option's pattern (its time of day), else Spark's time grammar.
        std::string_view s;
        if (e.get_string().get(s)) return false;
        int64_t ns;
        if (formats_->time) {
          auto micros = formats_->time->Parse(s, nullptr);
          if (!micros) return false;
          ns = cal::FloorMod(*micros, cal::kMicrosPerDay) * kNanosPerMicro;
        } else if (!ParseTimeText(s, &ns)) {
          return false;
        }
        if (v) v->Append<int64_t>(TruncateNanos(ns, t.precision()));
        return true;
      }
      case TypeId::kList: {
        simdjson::dom::array arr;
        if (e.get_array().get(arr)) return false;
        for (element c : arr) {
          if (!Child(*t.element_type(), c, v ? &v->child(0) : nullptr)) return false;
        }
        if (v) v->FinishListRow();
        return true;
      }
      case TypeId::kMap: {
        simdjson::dom::object obj;
        if (e.get_object().get(obj)) return false;
        for (auto f : obj) {
          if (!Child(*t.value_type(), f.value, v ? &v->child(1) : nullptr)) return false;
          if (v) v->child(0).AppendString(f.key);
        }
        if (v) v->FinishListRow();
        return true;
      }
      case TypeId::kStruct: {
        simdjson::dom::object obj;
        if (e.get_object().get(obj)) return false;
        const std::vector<Field>& fields = t.fields();
        for (size_t k = 0; k < fields.size(); ++k) {
          element c;
          bool absent = obj.at_key(fields[k].name).get(c) != simdjson::SUCCESS;
          if (absent) {
            if (v) v->child(k).AppendNull();
          } else if (!Child(*fields[k].type, c, v ? &v->child(k) : nullptr)) {
            return false;
          }
        }
        if (v) v->SetSizeUnchecked(v->size() + 1);
        return true;
      }
      case TypeId::kYearMonthInterval:
      case TypeId::kDayTimeInterval:
      case TypeId::kCalendarInterval: {
        // Spark's JacksonParser: the string as CAST(s AS <interval type>) (a calendar interval
        // through safeStringToInterval).
        std::string_view s;
        if (e.get_string().get(s)) return false;
        auto iv = CastValue(Value::String(std::string(s)), std::make_shared<DataType>(t), false);
        if (!iv.ok() || iv->is_null()) return false;
        if (v) return v->AppendValue(*iv).ok();
        return true;
      }
      case TypeId::kBinary: {  // base64 text, as Jackson's getBinaryValue
        std::string_view s;
        if (e.get_string().get(s)) return false;
        if (!v) return true;
        scratch_.clear();
        fn::Base64Decode(s, &scratch_);
        v->AppendString(scratch_);
        return true;
      }
      default:
        return false;
    }
  }

  // A nested value: NULL appends NULL, anything else converts.
  bool Child(const DataType& t, element e, Vector* v) {
    if (e.is_null()) {
      if (v) v->AppendNull();
      return true;
    }
    return Convert(t, e, v);
  }

  const cal::TimeZone* zone_;
  const Formats* formats_;
  std::string scratch_;
};

// Options of from_json/to_json: a constant map<string,string>.
Result<std::vector<std::pair<std::string, std::string>>> JsonOptions(std::string_view name,
                                                                     const ExprPtr& e) {
  if (e->type->id() != TypeId::kMap) {
    return Status::InvalidArgument("Invalid options: Must use the `map()` function for options.",
                                   errc::kInvalidOptionsNonMapFunction);
  }
  const TypeId k = e->type->key_type()->id(), v_type = e->type->value_type()->id();
  auto is_string = [](TypeId t) { return t == TypeId::kString || t == TypeId::kNull; };
  if (!is_string(k) || !is_string(v_type)) {
    return Status::InvalidArgument(
        "Invalid options: A type of keys and values in `map()` must be "
        "string, but got \"" +
            TypeSql(e->type) + "\".",
        errc::kInvalidOptionsNonStringType);
  }
  SILT_ASSIGN_OR_RETURN(Value v, FoldedArg(name, e, "options"));
  std::vector<std::pair<std::string, std::string>> out;
  if (v.is_null()) return out;
  const std::vector<Value>& kv = v.children();
  for (size_t i = 0; i + 1 < kv.size(); i += 2) {
    out.emplace_back(CastToString(kv[i]), kv[i + 1].is_null() ? "" : CastToString(kv[i + 1]));
  }
  return out;
}

bool OptionIs(const std::string& a, std::string_view b) { return EqualsIgnoreCase(a, b); }

// ---------------------------------------------------------------------------------------------
// to_json

struct JsonWriter {
  cal::DateTimePattern timestamp_format, timestamp_ntz_format, date_format;
  std::optional<cal::DateTimePattern> time_format;  // the timeFormat option
  bool ignore_null_fields = true;                   // the ignoreNullFields option

  // Appends row r of v; timestamps are shown in `zone`.
  void Write(const Vector& v, size_t r, const cal::TimeZone* zone, std::string* out) const {
    if (v.id() == TypeId::kNull || v.IsNull(r)) {
      *out += "null";
      return;
    }
    switch (v.id()) {
      case TypeId::kBoolean:
        *out += v.data<uint8_t>()[r] ? "true" : "false";
        break;
      case TypeId::kInt8:
        delta::AppendInt(out, v.data<int8_t>()[r]);
        break;
      case TypeId::kInt16:
        delta::AppendInt(out, v.data<int16_t>()[r]);
        break;
      case TypeId::kInt32:
        delta::AppendInt(out, v.data<int32_t>()[r]);
        break;
      case TypeId::kInt64:
        delta::AppendInt(out, v.data<int64_t>()[r]);
        break;
      case TypeId::kFloat:
      case TypeId::kDouble: {
        double d = v.id() == TypeId::kFloat ? v.data<float>()[r] : v.data<double>()[r];
        std::string s = v.id() == TypeId::kFloat ? fn::JavaFloatingToString(v.data<float>()[r])
                                                 : fn::JavaFloatingToString(d);
        if (std::isfinite(d)) {
          *out += s;
        } else {  // Jackson quotes non-numeric numbers
          *out += '"' + s + '"';
        }
        break;
      }
      case TypeId::kDecimal:
        *out += FormatJavaBigDecimal(v.data<int128_t>()[r], v.type()->scale());
        break;
      case TypeId::kString:
        delta::AppendJacksonString(out, v.GetString(r));
        break;
      case TypeId::kBinary: {  // Jackson's writeBinary: base64 without line breaks
        out->push_back('"');
        fn::Base64Encode(v.GetString(r), out, SIZE_MAX);
        out->push_back('"');
        break;
      }
      case TypeId::kDate: {
        std::string s;
        date_format.Format(static_cast<int64_t>(v.data<int32_t>()[r]) * cal::kMicrosPerDay, nullptr,
                           &s);
        delta::AppendJacksonString(out, s);
        break;
      }
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz: {
        std::string s;
        bool ntz = v.id() == TypeId::kTimestampNtz;
        (ntz ? timestamp_ntz_format : timestamp_format)
            .Format(v.data<int64_t>()[r], ntz ? nullptr : zone, &s);
        delta::AppendJacksonString(out, s);
        break;
      }
      case TypeId::kYearMonthInterval:
      case TypeId::kDayTimeInterval:
      case TypeId::kCalendarInterval:
        // JacksonGenerator: the interval's CAST(... AS STRING) text.
        delta::AppendJacksonString(out, CastToString(v.GetValue(r)));
        break;
      case TypeId::kTime: {
        const int64_t ns = v.data<int64_t>()[r];
        std::string s;
        if (time_format) {
          time_format->Format(cal::FloorDiv(ns, kNanosPerMicro), nullptr, &s);
        } else {
          s = FormatTimeText(ns);
        }
        delta::AppendJacksonString(out, s);
        break;
      }
      case TypeId::kList: {
        out->push_back('[');
        const uint32_t* off = v.offsets();
        for (uint32_t j = off[r]; j < off[r + 1]; ++j) {
          if (j > off[r]) out->push_back(',');
          Write(v.child(0), j, zone, out);
        }
        out->push_back(']');
        break;
      }
      case TypeId::kMap: {
        out->push_back('{');
        const uint32_t* off = v.offsets();
        for (uint32_t j = off[r]; j < off[r + 1]; ++j) {
          if (j > off[r]) out->push_back(',');
          const Vector& keys = v.child(0);
          delta::AppendJacksonString(out, keys.id() == TypeId::kString
                                              ? std::string(keys.GetString(j))
                                              : CastToString(keys.GetValue(j)));
          out->push_back(':');
          Write(v.child(1), j, zone, out);
        }
        out->push_back('}');
        break;
      }
      case TypeId::kStruct: {
        out->push_back('{');
        bool first = true;
        const std::vector<Field>& fields = v.type()->fields();
        for (size_t k = 0; k < fields.size(); ++k) {
          const Vector& c = v.child(k);
          if (ignore_null_fields && (c.id() == TypeId::kNull || c.IsNull(r))) continue;
          if (!first) out->push_back(',');
          first = false;
          delta::AppendJacksonString(out, fields[k].name);
          out->push_back(':');
          Write(c, r, zone, out);
        }
        out->push_back('}');
        break;
      }
      default:
        *out += "null";
        break;
    }
  }
};

// A string argument (JSON text, path): Spark casts only an untyped NULL (ExpectsInputTypes).
Status StringArg(std::string_view n, Args& a, size_t i, const BindContext& c) {
  TypeId id = a[i]->type->id();
  if (id != TypeId::kString && id != TypeId::kNull)
    return fn::UnexpectedType(n, i, "\"STRING\"", a[i]->type);
  return CoerceArg(n, a, i, DataType::String(), c);
}

// ---------------------------------------------------------------------------------------------
// from_csv: the same schema and datetime options as from_json, over one CSV record.

struct CsvOptions {
  char sep = ',';
  char quote = '"';
  char escape = '\\';
  std::string null_value;  // nullValue: an unquoted field equal to it is NULL
  std::string nan_value = "NaN", positive_inf = "Inf", negative_inf = "-Inf";
  JsonReader::Formats formats;
  bool failfast = false;
};

// One option's single character (sep, quote, escape): Spark takes "\t" as a tab and refuses a
// longer string.
Result<char> CsvOptionChar(const std::string& k, const std::string& v) {
  if (v == "\\t") return '\t';
  if (v.size() == 1) return v[0];
  if (v.empty() && !OptionIs(k, "sep") && !OptionIs(k, "delimiter")) return '\0';
  return Status::InvalidArgument("Unsupported special character for delimiter: " + v,
                                 errc::kInvalidParameterValue);
}

Result<CsvOptions> ParseCsvOptions(std::string_view n, const ExprPtr& map) {
  CsvOptions o;
  SILT_ASSIGN_OR_RETURN(auto opts, JsonOptions(n, map));
  for (const auto& [k, v] : opts) {
    if (OptionIs(k, "sep") || OptionIs(k, "delimiter")) {
      SILT_ASSIGN_OR_RETURN(o.sep, CsvOptionChar(k, v));
    } else if (OptionIs(k, "quote")) {
      SILT_ASSIGN_OR_RETURN(o.quote, CsvOptionChar(k, v));
    } else if (OptionIs(k, "escape")) {
      SILT_ASSIGN_OR_RETURN(o.escape, CsvOptionChar(k, v));
    } else if (OptionIs(k, "nullValue")) {
      o.null_value = v;
    } else if (OptionIs(k, "nanValue")) {
      o.nan_value = v;
    } else if (OptionIs(k, "positiveInf")) {
      o.positive_inf = v;
    } else if (OptionIs(k, "negativeInf")) {
      o.negative_inf = v;
    } else if (OptionIs(k, "timestampFormat")) {
      SILT_ASSIGN_OR_RETURN(o.formats.timestamp, cal::DateTimePattern::Compile(v));
    } else if (OptionIs(k, "timestampNTZFormat")) {
      SILT_ASSIGN_OR_RETURN(o.formats.timestamp_ntz, cal::DateTimePattern::Compile(v));
    } else if (OptionIs(k, "dateFormat")) {
      SILT_ASSIGN_OR_RETURN(o.formats.date, cal::DateTimePattern::Compile(v));
    } else if (OptionIs(k, "mode")) {
      if (OptionIs(v, "FAILFAST")) {
        o.failfast = true;
      } else if (!OptionIs(v, "PERMISSIVE")) {
        return Status::InvalidArgument(std::string(n) + "() doesn't support the " + v +
                                           " mode. Acceptable modes are PERMISSIVE and FAILFAST.",
                                       errc::kParseModeUnsupported);
      }
    }
  }
  return o;
}

// Splits one CSV record into its fields; a quoted field's quotes and escapes are removed
// (`quoted` tells which fields were quoted: they are never nullValue).
void SplitCsv(std::string_view text, const CsvOptions& o, std::vector<std::string>* fields,
              std::vector<bool>* quoted) {
  fields->clear();
  quoted->clear();
  size_t i = 0;
  while (true) {
    std::string f;
    bool q = o.quote && i < text.size() && text[i] == o.quote;
    if (q) {
      for (++i; i < text.size(); ++i) {
        char c = text[i];
        if (o.escape && c == o.escape && i + 1 < text.size() &&
            (text[i + 1] == o.quote || text[i + 1] == o.escape)) {
          f += text[++i];
        } else if (c == o.quote && i + 1 < text.size() && text[i + 1] == o.quote) {
          f += text[++i];  // a doubled quote
        } else if (c == o.quote) {
          ++i;
          break;
        } else {
          f += c;
        }
      }
      // (text after the closing quote up to the separator is kept, as univocity does)
      while (i < text.size() && text[i] != o.sep) f += text[i++];
    } else {
      while (i < text.size() && text[i] != o.sep) f += text[i++];
    }
    fields->push_back(std::move(f));
    quoted->push_back(q);
    if (i >= text.size()) break;
    ++i;  // the separator
  }
}

// to_csv's record writer (Spark's UnivocityGenerator with the writer settings Spark gives
// univocity): dates and timestamps through their patterns, intervals in their ANSI / calendar
// text, everything else as its string form; NULL is nullValue, an empty string `""`; a value is
// trimmed, and quoted (its quotes escaped) when it holds the separator, a quote or a line break.
struct CsvWriter {
  CsvOptions options;
  cal::DateTimePattern timestamp_format, timestamp_ntz_format, date_format;

  void Field(const Vector& v, size_t r, const cal::TimeZone* zone, std::string* out) const {
    if (v.id() == TypeId::kNull || v.IsNull(r)) {
      *out += options.null_value;
      return;
    }
    std::string s;
    switch (v.id()) {
      case TypeId::kDate:
        date_format.Format(static_cast<int64_t>(v.data<int32_t>()[r]) * cal::kMicrosPerDay, nullptr,
                           &s);
        break;
      case TypeId::kTimestamp:
        timestamp_format.Format(v.data<int64_t>()[r], zone, &s);
        break;
      case TypeId::kTimestampNtz:
        timestamp_ntz_format.Format(v.data<int64_t>()[r], nullptr, &s);
        break;
      default:
        s = CastToString(v.GetValue(r));
        break;
    }
    size_t b = 0, e = s.size();
    while (b < e && static_cast<unsigned char>(s[b]) <= ' ') ++b;
    while (e > b && static_cast<unsigned char>(s[e - 1]) <= ' ') --e;
    std::string_view t(s.data() + b, e - b);
    const char quote = options.quote;
    if (t.empty()) {
      if (quote) *out += std::string(2, quote);
      return;
    }
    const bool needs_quotes =
        quote && t.find_first_of(std::string{options.sep, quote, '\n', '\r'}) != t.npos;
    if (!needs_quotes) {
      *out += t;
      return;
    }
    *out += quote;
    for (char c : t) {
      if (c == quote && options.escape) *out += options.escape;
      *out += c;
    }
    *out += quote;
  }
};

// A string per row of the first argument (to_json, to_csv): `write(v, r, zone, out)` appends
// row r of v, timestamps shown in the session zone; NULL in, NULL out.
template <typename W>
ExprPtr TextPerRow(std::string_view n, Args a, W write) {
  return MakeCall(
      std::string(n), DataType::String(), std::move(a),
      [write](std::span<const Arg> x, size_t rows, const EvalContext& ec, Vector* out) -> Status {
        SILT_ASSIGN_OR_RETURN(auto zone,
                              cal::TimeZone::Find(ec.time_zone.empty() ? "UTC" : ec.time_zone));
        fn::StringWriter w(out, rows);
        for (size_t i = 0; i < rows; ++i) {
          if (NullAt(x[0], i)) {
            w.CommitNull();
            continue;
          }
          write(*x[0].vector, x[0].index(i), zone.get(), &w.buf());
          w.Commit();
        }
        w.Finish();
        return Status::OK();
      });
}

// A CSV field as type t (Spark's UnivocityParser converters); nullopt when it does not fit.
std::optional<Value> CsvValue(const std::string& s, const TypePtr& t, const CsvOptions& o,
                              const cal::TimeZone& zone) {
  switch (t->id()) {
    case TypeId::kString:
      return Value::String(s);
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64: {
      // Java's parseInt: an optional sign and digits, no spaces.
      std::string_view d = s;
      if (!d.empty() && d[0] == '+') d.remove_prefix(1);
      int64_t x = 0;
      auto [end, ec] = std::from_chars(d.data(), d.data() + d.size(), x);
      if (d.empty() || ec != std::errc() || end != d.data() + d.size()) return std::nullopt;
      auto cast = CastValue(Value::Int64(x), t, true);
      if (!cast.ok()) return std::nullopt;
      return *cast;
    }
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double d;
      if (s == o.nan_value) {
        d = std::nan("");
      } else if (s == o.positive_inf) {
        d = HUGE_VAL;
      } else if (s == o.negative_inf) {
        d = -HUGE_VAL;
      } else {
        auto cast = CastValue(Value::String(s), DataType::Double(), false);
        if (!cast.ok() || cast->is_null()) return std::nullopt;
        d = cast->floating();
      }
      return Value::Floating(t, t->id() == TypeId::kFloat ? static_cast<float>(d) : d);
    }
    case TypeId::kDate: {
      std::optional<int32_t> d;
      if (o.formats.date) {
        auto micros = o.formats.date->Parse(s, nullptr);
        if (micros) d = static_cast<int32_t>(cal::FloorDiv(*micros, cal::kMicrosPerDay));
      } else {
        d = cal::ParseDate(s);
      }
      if (!d) return std::nullopt;
      return Value::Integer(t, *d);
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: {
      const bool ntz = t->id() == TypeId::kTimestampNtz;
      const std::optional<cal::DateTimePattern>& format =
          ntz ? o.formats.timestamp_ntz : o.formats.timestamp;
      auto ts = format ? format->Parse(s, ntz ? nullptr : &zone)
                : ntz  ? cal::ParseTimestampNtz(s)
                       : cal::ParseTimestamp(s, zone);
      if (!ts) return std::nullopt;
      return Value::Integer(t, *ts);
    }
    default: {
      // Booleans, decimals, intervals, …: Spark's string conversions, as a non-ANSI CAST.
      auto cast = CastValue(Value::String(s), t, false);
      if (!cast.ok() || cast->is_null()) return std::nullopt;
      return *cast;
    }
  }
}

// from_json / from_csv (text, schema, …): the text a string, the schema a foldable string.
Result<TypePtr> TextAndSchemaArgs(std::string_view n, Args& a, const BindContext& c) {
  SILT_RETURN_NOT_OK(StringArg(n, a, 0, c));
  SILT_ASSIGN_OR_RETURN(Value sv, FoldedArg(n, a[1], "schema"));
  if (sv.is_null() || sv.type()->id() != TypeId::kString) {
    return fn::TypeMismatch(
        n, "The input schema " + sv.ToString() + " must be a foldable \"STRING\".");
  }
  return ParseJsonSchema(sv.str(), c);
}

// A malformed record under mode FAILFAST.
Status MalformedFailFast() {
  return Status::InvalidArgument(
      "Malformed records are detected in record parsing: [null]. Parse Mode: FAILFAST. To process "
      "malformed records as null result, try setting the option 'mode' as 'PERMISSIVE'.",
      errc::kMalformedRecordInParsingWithoutSuggestion);
}

}  // namespace

void RegisterJsonFunctions(FunctionRegistry& r) {
  Reg(r, {"get_json_object"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
        SILT_RETURN_NOT_OK(StringArg(n, a, 0, c));
        SILT_RETURN_NOT_OK(StringArg(n, a, 1, c));
        return MakeCall(std::string(n), DataType::String(), std::move(a),
                        [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
                          fn::StringWriter w(out, rows);
                          simdjson::dom::parser parser;
                          std::string scratch;
                          std::string last_path;
                          std::optional<std::vector<PathStep>> path;
                          bool have_path = false;
                          for (size_t i = 0; i < rows; ++i) {
                            element doc;
                            if (AnyNull(x, i)) {
                              w.CommitNull();
                              continue;
                            }
                            std::string_view p = fn::StrAt(x[1], i);
                            if (!have_path || p != last_path) {
                              last_path = std::string(p);
                              path = ParsePath(p);
                              have_path = true;
                            }
                            if (!path || !ParseJsonLenient(parser, fn::StrAt(x[0], i),
                                                           kControlChars, &scratch, &doc)) {
                              w.CommitNull();
                              continue;
                            }
                            JsonOut result;
                            if (EvalPath(doc, *path, PathStyle::kRaw, &result)) {
                              w.Append(result.text());
                            } else {
                              w.CommitNull();
                            }
                          }
                          w.Finish();
                          return Status::OK();
                        });
      });
  Reg(r, {"json_array_length"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
        SILT_RETURN_NOT_OK(StringArg(n, a, 0, c));
        return MakeCall(
            std::string(n), DataType::Int32(), std::move(a),
            [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
              fn::FixedWriter<int32_t> w(out, rows);
              simdjson::dom::parser parser;
              std::string scratch;
              for (size_t i = 0; i < rows; ++i) {
                element doc;
                simdjson::dom::array arr;
                if (NullAt(x[0], i) ||
                    !ParseJsonLenient(parser, fn::StrAt(x[0], i), kControlChars, &scratch, &doc) ||
                    doc.get_array().get(arr)) {
                  w.SetNull(i);
                  continue;
                }
                w.Set(i, static_cast<int32_t>(arr.size()));
              }
              return Status::OK();
            });
      });
  // json_tuple's row (the binder makes json_tuple a generator over it): a struct of the named
  // top-level fields as strings — a string unquoted, anything else as compact JSON; NULL fields
  // for a missing field, a JSON null, or text that is not a JSON object.
  Reg(r, {"__json_tuple"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        if (a.size() < 2) {
          return Status::InvalidArgument("The `json_tuple` requires more than one argument.",
                                         errc::kWrongNumArgsWithoutSuggestion);
        }
        std::vector<Field> fields;
        for (size_t i = 0; i < a.size(); ++i) {
          SILT_RETURN_NOT_OK(StringArg("json_tuple", a, i, c));
          if (i) fields.push_back({"c" + std::to_string(i - 1), DataType::String(), true, "{}"});
        }
        return MakeCall(
            std::string(n), DataType::Struct(std::move(fields)), std::move(a),
            [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
              simdjson::dom::parser parser;
              std::string scratch, text;
              const size_t nf = x.size() - 1;
              std::vector<std::optional<std::string>> got(nf);
              for (size_t i = 0; i < rows; ++i) {
                std::fill(got.begin(), got.end(), std::nullopt);
                element doc;
                simdjson::dom::object obj;
                if (!NullAt(x[0], i) &&
                    ParseJsonLenient(parser, fn::StrAt(x[0], i), kControlChars, &scratch, &doc) &&
                    !doc.get_object().get(obj)) {
                  for (auto field : obj) {
                    for (size_t k = 0; k < nf; ++k) {
                      if (NullAt(x[k + 1], i) || fn::StrAt(x[k + 1], i) != field.key) continue;
                      std::string_view str;
                      if (field.value.is_null()) {
                        got[k].reset();
                      } else if (!field.value.get_string().get(str)) {
                        got[k] = std::string(str);
                      } else {
                        text.clear();
                        delta::AppendJsonElement(&text, field.value);
                        got[k] = text;
                      }
                    }
                  }
                }
                for (size_t k = 0; k < nf; ++k) {
                  if (got[k])
                    out->child(k).AppendString(*got[k]);
                  else
                    out->child(k).AppendNull();
                }
              }
              out->SetSizeUnchecked(rows);
              return Status::OK();
            });
      });
  Reg(r, {"json_object_keys"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
        SILT_RETURN_NOT_OK(StringArg(n, a, 0, c));
        return MakeCall(
            std::string(n), DataType::List(DataType::String(), false), std::move(a),
            [](std::span<const Arg> x, size_t rows, const EvalContext&, Vector* out) {
              simdjson::dom::parser parser;
              std::string scratch;
              for (size_t i = 0; i < rows; ++i) {
                element doc;
                simdjson::dom::object obj;
                if (NullAt(x[0], i) ||
                    !ParseJsonLenient(parser, fn::StrAt(x[0], i), kControlChars, &scratch, &doc) ||
                    doc.get_object().get(obj)) {
                  out->AppendNull();
                  continue;
                }
                for (auto f : obj) out->child(0).AppendString(f.key);
                out->FinishListRow();
              }
              return Status::OK();
            });
      });
  Reg(r, {"schema_of_json"},
      [](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 2));
        SILT_ASSIGN_OR_RETURN(Value v, FoldedArg(n, a[0], "json"));
        if (v.is_null() || v.type()->id() != TypeId::kString) {
          return fn::TypeMismatch(
              n, "the input json should be a foldable \"STRING\" expression and not null.");
        }
        simdjson::dom::parser parser;
        element doc;
        std::string scratch;
        if (!ParseJsonLenient(parser, v.str(), kSingleQuotes, &scratch, &doc)) {
          return Status::InvalidArgument(
              "Malformed records are detected in schema inference. Parse Mode: FAILFAST.",
              errc::kMalformedRecordInParsing);
        }
        std::string schema = TypeSql(Canonical(InferType(doc), true));
        return MakeConstant(Value::String(std::move(schema)));
      });
  Reg(r, {"from_json"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 3));
    SILT_ASSIGN_OR_RETURN(TypePtr schema, TextAndSchemaArgs(n, a, c));
    TypeId sid = schema->id();
    if (sid != TypeId::kStruct && sid != TypeId::kList && sid != TypeId::kMap) {
      return Status::InvalidArgument(
          "Input schema \"" + schema->ToString() + "\" must be a struct, an array or a map.",
          errc::kInvalidSchemaNonStructType);
    }
    if (sid == TypeId::kMap && schema->key_type()->id() != TypeId::kString) {
      return fn::TypeMismatch(
          n, "from_json reads map keys as strings: the schema's key type must be STRING.");
    }
    bool failfast = false;
    auto formats = std::make_shared<JsonReader::Formats>();
    if (a.size() == 3) {
      SILT_ASSIGN_OR_RETURN(auto opts, JsonOptions(n, a[2]));
      for (const auto& [k, v] : opts) {
        if (OptionIs(k, "timestampFormat")) {
          SILT_ASSIGN_OR_RETURN(formats->timestamp, cal::DateTimePattern::Compile(v));
        } else if (OptionIs(k, "timestampNTZFormat")) {
          SILT_ASSIGN_OR_RETURN(formats->timestamp_ntz, cal::DateTimePattern::Compile(v));
        } else if (OptionIs(k, "dateFormat")) {
          SILT_ASSIGN_OR_RETURN(formats->date, cal::DateTimePattern::Compile(v));
        } else if (OptionIs(k, "timeFormat")) {
          SILT_ASSIGN_OR_RETURN(formats->time, cal::DateTimePattern::Compile(v));
        }
        if (!OptionIs(k, "mode")) continue;
        if (OptionIs(v, "FAILFAST")) {
          failfast = true;
        } else if (!OptionIs(v, "PERMISSIVE")) {
          return Status::InvalidArgument("from_json() doesn't support the " + v +
                                             " mode. Acceptable modes are PERMISSIVE and FAILFAST.",
                                         errc::kParseModeUnsupported);
        }
      }
      a.pop_back();
    }
    a.pop_back();  // the schema is folded into the call's type
    return MakeCall(std::string(n), schema, std::move(a),
                    [failfast, formats](std::span<const Arg> x, size_t rows, const EvalContext& ec,
                                        Vector* out) -> Status {
                      SILT_ASSIGN_OR_RETURN(
                          auto zone,
                          cal::TimeZone::Find(ec.time_zone.empty() ? "UTC" : ec.time_zone));
                      simdjson::dom::parser parser;
                      std::string scratch;
                      bool is_struct = out->id() == TypeId::kStruct;
                      for (size_t i = 0; i < rows; ++i) {
                        if (NullAt(x[0], i)) {
                          out->AppendNull();
                          continue;
                        }
                        std::string_view text = fn::StrAt(x[0], i);
                        if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
                          out->AppendNull();  // no record at all
                          continue;
                        }
                        element doc;
                        JsonReader reader(zone.get(), formats.get());
                        bool parsed = ParseJsonLenient(parser, text, kSingleQuotes, &scratch, &doc);
                        if (parsed && out->id() == TypeId::kList && doc.is_object() &&
                            out->type()->element_type()->id() == TypeId::kStruct) {
                          // a single object read as an array of structs is an array of one
                          reader.AppendRootStruct(&out->child(0), doc.get_object().value_unsafe());
                          out->FinishListRow();
                        } else if (parsed && !doc.is_null() &&
                                   (is_struct                    ? doc.is_object()
                                    : out->id() == TypeId::kList ? doc.is_array()
                                                                 : doc.is_object())) {
                          if (is_struct) {
                            reader.AppendRootStruct(out, doc.get_object().value_unsafe());
                          } else {
                            reader.AppendRoot(out, doc);
                          }
                        } else {
                          reader.malformed = true;
                          if (is_struct) {
                            JsonReader::AppendNullFields(out);
                          } else {
                            out->AppendNull();
                          }
                        }
                        if (failfast && reader.malformed) {
                          return MalformedFailFast();
                        }
                      }
                      return Status::OK();
                    });
  });
  // to_csv(struct[, options]): one CSV record of the struct's fields.
  Reg(r, {"to_csv"}, [](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 2));
    const TypePtr& t = a[0]->type;
    bool ok = t->id() == TypeId::kStruct;
    for (const Field& f : t->fields()) ok = ok && !f.type->is_nested();
    if (!ok) {
      return Status::InvalidArgument("Cannot resolve \"" + a[0]->ToString() + "\" due to data " +
                                         "type mismatch: The input of `to_csv` can't be " +
                                         TypeSql(t) + " type data.",
                                     errc::kDatatypeMismatchUnsupportedInputType);
    }
    auto writer = std::make_shared<CsvWriter>();
    if (a.size() == 2) {
      SILT_ASSIGN_OR_RETURN(writer->options, ParseCsvOptions(n, a[1]));
      a.pop_back();
    }
    // The option's pattern, else Spark's writing default.
    auto pattern = [](const std::optional<cal::DateTimePattern>& given,
                      std::string_view deflt) -> Result<cal::DateTimePattern> {
      if (given) return *given;
      return cal::DateTimePattern::Compile(deflt);
    };
    const JsonReader::Formats& f = writer->options.formats;
    SILT_ASSIGN_OR_RETURN(writer->timestamp_format,
                          pattern(f.timestamp, "yyyy-MM-dd'T'HH:mm:ss.SSSXXX"));
    SILT_ASSIGN_OR_RETURN(writer->timestamp_ntz_format,
                          pattern(f.timestamp_ntz, "yyyy-MM-dd'T'HH:mm:ss.SSS"));
    SILT_ASSIGN_OR_RETURN(writer->date_format, pattern(f.date, "yyyy-MM-dd"));
    return TextPerRow(
        n, std::move(a),
        [writer](const Vector& row, size_t r, const cal::TimeZone* zone, std::string* out) {
          for (size_t c = 0; c < row.num_children(); ++c) {
            if (c) *out += writer->options.sep;
            writer->Field(row.child(c), r, zone, out);
          }
        });
  });
  Reg(r, {"from_csv"}, [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 3));
    SILT_ASSIGN_OR_RETURN(TypePtr schema, TextAndSchemaArgs(n, a, c));
    if (schema->id() != TypeId::kStruct) {
      return Status::InvalidArgument(
          "The input schema \"" + schema->ToString() + "\" is not a struct type.",
          errc::kInvalidSchemaNonStructType);
    }
    for (const Field& f : schema->fields()) {
      TypeId id = f.type->id();
      if (id == TypeId::kStruct || id == TypeId::kList || id == TypeId::kMap) {
        return Status::InvalidArgument(
            "CSV data source does not support " + TypeSql(f.type) + " data type.",
            errc::kUnsupportedDataTypeForDatasource);
      }
    }
    auto options = std::make_shared<CsvOptions>();
    if (a.size() == 3) {
      SILT_ASSIGN_OR_RETURN(*options, ParseCsvOptions(n, a[2]));
      a.pop_back();
    }
    a.pop_back();  // the schema is folded into the call's type
    return MakeCall(
        std::string(n), schema, std::move(a),
        [options](std::span<const Arg> x, size_t rows, const EvalContext& ec,
                  Vector* out) -> Status {
          SILT_ASSIGN_OR_RETURN(auto zone,
                                cal::TimeZone::Find(ec.time_zone.empty() ? "UTC" : ec.time_zone));
          const std::vector<Field>& fields = out->type()->fields();
          std::vector<std::string> tokens;
          std::vector<bool> quoted;
          for (size_t i = 0; i < rows; ++i) {
            if (NullAt(x[0], i)) {
              out->AppendNull();
              continue;
            }
            SplitCsv(fn::StrAt(x[0], i), *options, &tokens, &quoted);
            bool malformed = false;
            for (size_t k = 0; k < fields.size(); ++k) {
              // Missing fields are NULL; a field that does not convert is NULL (PERMISSIVE's
              // partial result) or fails the statement (FAILFAST).
              std::optional<Value> v;
              if (k < tokens.size() && (quoted[k] || tokens[k] != options->null_value)) {
                v = CsvValue(tokens[k], fields[k].type, *options, *zone);
                malformed |= !v;
              }
              if (v) {
                SILT_RETURN_NOT_OK(out->child(k).AppendValue(*v));
              } else {
                out->child(k).AppendNull();
              }
            }
            if (malformed && options->failfast) {
              return MalformedFailFast();
            }
            out->SetSizeUnchecked(out->size() + 1);
          }
          return Status::OK();
        });
  });
  Reg(r, {"to_json"}, [](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 2));
    TypeId id = a[0]->type->id();
    if (id != TypeId::kStruct && id != TypeId::kList && id != TypeId::kMap) {
      return fn::TypeMismatch(
          n, "Parameter 1 requires the (\"STRUCT\" or \"ARRAY\" or \"MAP\") type, however \"" +
                 a[0]->ToString() + "\" has the type \"" + a[0]->type->ToString() + "\".");
    }
    std::string ts = "yyyy-MM-dd'T'HH:mm:ss.SSSXXX", ts_ntz = "yyyy-MM-dd'T'HH:mm:ss.SSS",
                date = "yyyy-MM-dd";
    auto writer = std::make_shared<JsonWriter>();
    if (a.size() == 2) {
      SILT_ASSIGN_OR_RETURN(auto opts, JsonOptions(n, a[1]));
      for (const auto& [k, v] : opts) {
        if (OptionIs(k, "ignoreNullFields")) writer->ignore_null_fields = !OptionIs(v, "false");
        if (OptionIs(k, "timestampFormat")) ts = v;
        if (OptionIs(k, "timestampNTZFormat")) ts_ntz = v;
        if (OptionIs(k, "dateFormat")) date = v;
        if (OptionIs(k, "timeFormat")) {
          SILT_ASSIGN_OR_RETURN(writer->time_format, cal::DateTimePattern::Compile(v));
        }
      }
      a.pop_back();
    }
    SILT_ASSIGN_OR_RETURN(writer->timestamp_format, cal::DateTimePattern::Compile(ts));
    SILT_ASSIGN_OR_RETURN(writer->timestamp_ntz_format, cal::DateTimePattern::Compile(ts_ntz));
    SILT_ASSIGN_OR_RETURN(writer->date_format, cal::DateTimePattern::Compile(date));
    return TextPerRow(n, std::move(a),
                      [writer](const Vector& v, size_t r, const cal::TimeZone* zone,
                               std::string* out) { writer->Write(v, r, zone, out); });
  });
}

}  // namespace silt::exec
