#include "delta/stats_json.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <limits>

#include "common/datetime.h"
#include "common/error_classes.h"
#include "common/number_format.h"
#include "delta/json_util.h"
#include "delta/partition_values.h"
#include "vector/vector.h"

namespace silt::delta {

namespace ondemand = simdjson::ondemand;

std::string StatsPathKey(const std::vector<std::string>& path) {
  std::string key;
  for (size_t i = 0; i < path.size(); ++i) {
    if (i) key += '.';
    const std::string& p = path[i];
    if (p.find_first_of(".`") == std::string::npos) {
      key += p;
      continue;
    }
    key += '`';
    for (char c : p) {
      if (c == '`') key += '`';
      key += c;
    }
    key += '`';
  }
  return key;
}

const ColumnStats* FileStats::Find(std::string_view key) const {
  auto it = columns.find(key);
  return it == columns.end() ? nullptr : &it->second;
}

namespace {

// ---------------------------------------------------------------------------------------------
// Parsing

Status BadStats(std::string what) {
  return Status::Corruption("invalid stats JSON: " + what, kInvalidStatsClass);
}

Status JsonError(simdjson::error_code err) { return BadStats(simdjson::error_message(err)); }

void AppendPathKey(std::string* key, std::string_view name) {
  if (!key->empty()) *key += '.';
  if (name.find_first_of(".`") == std::string_view::npos) {
    key->append(name);
    return;
  }
  *key += StatsPathKey({std::string(name)});
}

bool IsIntegral(TypeId id) {
  return id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 ||
         id == TypeId::kInt64;
}

std::string_view TrimToken(std::string_view t) {
  while (!t.empty() &&
         (t.back() == ' ' || t.back() == '\t' || t.back() == '\n' || t.back() == '\r')) {
    t.remove_suffix(1);
  }
  return t;
}

// A leaf stat from a JSON number token; nullopt when it does not fit the type.
std::optional<Value> FromNumber(std::string_view tok, const TypePtr& type) {
  TypeId id = type->id();
  if (IsIntegral(id)) {
    int64_t v;
    auto r = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (r.ec != std::errc() || r.ptr != tok.data() + tok.size()) return std::nullopt;
    int bits = type->fixed_width() * 8;
    if (bits < 64) {
      int64_t hi = (int64_t{1} << (bits - 1)) - 1;
      if (v > hi || v < -hi - 1) return std::nullopt;
    }
    return Value::Integer(type, v);
  }
  if (id == TypeId::kFloat || id == TypeId::kDouble) {
    double v;
    auto r = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (r.ec != std::errc() || r.ptr != tok.data() + tok.size()) return std::nullopt;
    if (id == TypeId::kFloat) v = static_cast<double>(static_cast<float>(v));
    return Value::Floating(type, v);
  }
  if (id == TypeId::kDecimal) {
    int128_t u;
    if (!ParseDecimalText(tok, type->precision(), type->scale(), &u)) return std::nullopt;
    return Value::Decimal(type->precision(), type->scale(), u);
  }
  return std::nullopt;
}

std::optional<Value> FromString(std::string_view s, const TypePtr& type) {
  switch (type->id()) {
    case TypeId::kString:
      return Value::String(std::string(s));
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double v;
      if (s == "NaN") {
        v = std::numeric_limits<double>::quiet_NaN();
      } else if (s == "Infinity") {
        v = std::numeric_limits<double>::infinity();
      } else if (s == "-Infinity") {
        v = -std::numeric_limits<double>::infinity();
      } else {
        return std::nullopt;
      }
      return Value::Floating(type, v);
    }
    case TypeId::kDecimal: {
      int128_t u;
      if (!ParseDecimalText(s, type->precision(), type->scale(), &u)) return std::nullopt;
      return Value::Decimal(type->precision(), type->scale(), u);
    }
    case TypeId::kDate: {
      int32_t d;
      if (!ParseIsoDate(s, &d)) return std::nullopt;
      return Value::Integer(type, d);
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: {
      int64_t us;
      bool has_zone;
      if (!ParseIsoTimestamp(s, &us, &has_zone)) return std::nullopt;
      // A zoned value for a no-zone column has no defined instant→local mapping: drop it.
      if (has_zone && type->id() == TypeId::kTimestampNtz) return std::nullopt;
      return Value::Integer(type, us);
    }
    default:
      return std::nullopt;
  }
}

class StatsReader {
 public:
  explicit StatsReader(FileStats* out) : out_(out) {}

  // minValues / maxValues object mirroring `fields`.
  Status Values(ondemand::object obj, const std::vector<Field>& fields, std::string* key,
                bool is_min) {
    for (auto&& fr : obj) {
      ondemand::field field;
      if (auto err = std::move(fr).get(field)) return JsonError(err);
      std::string_view name;
      if (auto err = field.unescaped_key().get(name)) return JsonError(err);
      int idx = FindField(fields, std::string(name));
      if (idx < 0) continue;  // unknown column: skipped by the iterator
      const Field& f = fields[static_cast<size_t>(idx)];
      ondemand::value v = field.value();
      ondemand::json_type jt;
      if (auto err = v.type().get(jt)) return JsonError(err);
      size_t mark = key->size();
      AppendPathKey(key, f.name);
      if (f.type->id() == TypeId::kStruct) {
        if (jt == ondemand::json_type::object) {
          ondemand::object child;
          if (auto err = v.get_object().get(child)) return JsonError(err);
          SILT_RETURN_NOT_OK(Values(child, f.type->fields(), key, is_min));
        }
      } else {
        std::optional<Value> val;
        SILT_RETURN_NOT_OK(Leaf(v, jt, f.type, &val));
        if (val) {
          ColumnStats& cs = out_->columns[*key];
          (is_min ? cs.min : cs.max) = std::move(val);
        }
      }
      key->resize(mark);
    }
    return Status::OK();
  }

  Status NullCounts(ondemand::object obj, const std::vector<Field>& fields, std::string* key) {
    for (auto&& fr : obj) {
      ondemand::field field;
      if (auto err = std::move(fr).get(field)) return JsonError(err);
      std::string_view name;
      if (auto err = field.unescaped_key().get(name)) return JsonError(err);
      int idx = FindField(fields, std::string(name));
      if (idx < 0) continue;
      const Field& f = fields[static_cast<size_t>(idx)];
      ondemand::value v = field.value();
      ondemand::json_type jt;
      if (auto err = v.type().get(jt)) return JsonError(err);
      size_t mark = key->size();
      AppendPathKey(key, f.name);
      if (jt == ondemand::json_type::object && f.type->id() == TypeId::kStruct) {
        ondemand::object child;
        if (auto err = v.get_object().get(child)) return JsonError(err);
        SILT_RETURN_NOT_OK(NullCounts(child, f.type->fields(), key));
      } else if (jt == ondemand::json_type::number) {
        std::string_view tok = TrimToken(v.raw_json_token());
        int64_t n;
        auto r = std::from_chars(tok.data(), tok.data() + tok.size(), n);
        if (r.ec == std::errc() && r.ptr == tok.data() + tok.size() && n >= 0) {
          out_->columns[*key].null_count = n;
        }
      }
      key->resize(mark);
    }
    return Status::OK();
  }

 private:
  Status Leaf(ondemand::value v, ondemand::json_type jt, const TypePtr& type,
              std::optional<Value>* out) {
    switch (jt) {
      case ondemand::json_type::number: {
        *out = FromNumber(TrimToken(v.raw_json_token()), type);
        break;
      }
      case ondemand::json_type::string: {
        std::string_view s;
        if (auto err = v.get_string().get(s)) return JsonError(err);
        *out = FromString(s, type);
        break;
      }
      case ondemand::json_type::boolean: {
        bool b;
        if (auto err = v.get_bool().get(b)) return JsonError(err);
        if (type->id() == TypeId::kBoolean) *out = Value::Boolean(b);
        break;
      }
      default:
        break;  // null, or a nested value for a leaf: no stat
    }
    return Status::OK();
  }

  FileStats* out_;
};

}  // namespace

Result<FileStats> ParseStats(std::string_view json, const Schema& physical_schema) {
  thread_local ondemand::parser parser;
  thread_local std::string buffer;
  buffer.assign(json);
  buffer.resize(json.size() + simdjson::SIMDJSON_PADDING);
  simdjson::padded_string_view view(buffer.data(), json.size(), buffer.size());
  ondemand::document doc;
  if (auto err = parser.iterate(view).get(doc)) return JsonError(err);
  ondemand::object obj;
  if (auto err = doc.get_object().get(obj)) return JsonError(err);
  FileStats stats;
  StatsReader reader(&stats);
  std::string key;
  for (auto&& fr : obj) {
    ondemand::field field;
    if (auto err = std::move(fr).get(field)) return JsonError(err);
    std::string_view name;
    if (auto err = field.unescaped_key().get(name)) return JsonError(err);
    ondemand::value v = field.value();
    ondemand::json_type jt;
    if (auto err = v.type().get(jt)) return JsonError(err);
    if (name == "numRecords") {
      if (jt == ondemand::json_type::null) continue;
      int64_t n;
      if (v.get_int64().get(n)) return BadStats("numRecords is not a long");
      if (n < 0) return BadStats("numRecords is negative");
      stats.num_records = n;
    } else if (name == "tightBounds") {
      if (jt == ondemand::json_type::null) continue;
      bool b;
      if (v.get_bool().get(b)) return BadStats("tightBounds is not a boolean");
      stats.tight_bounds = b;
    } else if (name == "minValues" || name == "maxValues" || name == "nullCount") {
      if (jt != ondemand::json_type::object) continue;
      ondemand::object child;
      if (auto err = v.get_object().get(child)) return JsonError(err);
      key.clear();
      if (name == "nullCount") {
        SILT_RETURN_NOT_OK(reader.NullCounts(child, physical_schema, &key));
      } else {
        SILT_RETURN_NOT_OK(reader.Values(child, physical_schema, &key, name == "minValues"));
      }
    }
  }
  // current_location() is an error exactly when the whole input was consumed.
  const char* trailing;
  if (!doc.current_location().get(trailing)) return BadStats("trailing content after the object");
  return stats;
}

// ---------------------------------------------------------------------------------------------
// Truncation

namespace {

// Length in bytes and in UTF-16 units of the code point starting at s[i]; invalid bytes count as
// one byte / one unit.
void NextCodePoint(std::string_view s, size_t i, size_t* bytes, int* units, uint32_t* cp) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
  if (i + n > s.size()) n = 1;
  uint32_t v = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < n; ++k) v = (v << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  *bytes = n;
  *units = v >= 0x10000 ? 2 : 1;
  *cp = v;
}

int Utf16Length(std::string_view s) {
  int units = 0;
  for (size_t i = 0; i < s.size();) {
    size_t b;
    int u;
    uint32_t cp;
    NextCodePoint(s, i, &b, &u, &cp);
    i += b;
    units += u;
  }
  return units;
}

// Byte length of Java's input.take(prefix) extended over a split surrogate pair; *units_out is
// the UTF-16 length of that prefix.
size_t MinPrefixBytes(std::string_view s, int prefix, int* units_out) {
  size_t i = 0;
  int units = 0;
  while (i < s.size() && units < prefix) {
    size_t b;
    int u;
    uint32_t cp;
    NextCodePoint(s, i, &b, &u, &cp);
    i += b;
    units += u;
  }
  *units_out = units;
  return i;
}

}  // namespace

std::string TruncateMinString(std::string_view s, int prefix_length) {
  if (Utf16Length(s) <= prefix_length) return std::string(s);
  if (prefix_length <= 0) return "";
  int units;
  return std::string(s.substr(0, MinPrefixBytes(s, prefix_length, &units)));
}

std::optional<std::string> TruncateMaxString(std::string_view s, int prefix_length) {
  if (Utf16Length(s) <= prefix_length) return std::string(s);
  if (prefix_length <= 0) return std::nullopt;
  const int max_len = 2 * prefix_length;
  int curr_len;
  size_t pos = MinPrefixBytes(s, prefix_length, &curr_len);
  while (curr_len <= max_len) {
    if (pos >= s.size()) return std::string(s);
    size_t b;
    int u;
    uint32_t cp;
    NextCodePoint(s, pos, &b, &u, &cp);
    if (cp == 0x10FFFF) {  // already the maximum: keep it and look further
      pos += b;
      curr_len += 2;
    } else if (cp < 0x7F) {
      return std::string(s.substr(0, pos)) + "\x7F";
    } else {
      return std::string(s.substr(0, pos)) + "\xF4\x8F\xBF\xBF";  // U+10FFFF
    }
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Serialization

namespace {

enum class StatKind { kMin, kMax, kNullCount };

// Whether `v`'s storage fits the schema leaf type (guards the Value accessors).
bool Compatible(const Value& v, const DataType& t) {
  TypeId a = v.type()->id(), b = t.id();
  if (a == b) return true;
  bool a_int =
      IsIntegral(a) || a == TypeId::kDate || a == TypeId::kTimestamp || a == TypeId::kTimestampNtz;
  if (IsIntegral(b) && a_int) return true;
  if ((b == TypeId::kFloat || b == TypeId::kDouble) &&
      (a == TypeId::kFloat || a == TypeId::kDouble)) {
    return true;
  }
  if (b == TypeId::kString && a == TypeId::kBinary) return true;
  return false;
}

// Appends the JSON value of a min/max stat; false when none should be written.
bool AppendStatValue(std::string* out, const Value& v, const DataType& t, bool is_min,
                     int prefix_length) {
  if (v.is_null() || !MinMaxEligible(t.id()) || !Compatible(v, t)) return false;
  switch (t.id()) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      AppendInt(out, v.integer());
      return true;
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double d = v.floating();
      if (!std::isfinite(d)) return false;
      *out +=
          t.id() == TypeId::kFloat ? FormatJavaFloat(static_cast<float>(d)) : FormatJavaDouble(d);
      return true;
    }
    case TypeId::kDecimal:
      *out += FormatJavaBigDecimal(v.decimal(), t.scale());
      return true;
    case TypeId::kString: {
      if (is_min) {
        AppendJacksonString(out, TruncateMinString(v.str(), prefix_length));
        return true;
      }
      std::optional<std::string> m = TruncateMaxString(v.str(), prefix_length);
      if (!m) return false;
      AppendJacksonString(out, *m);
      return true;
    }
    case TypeId::kDate:
      AppendJacksonString(out, FormatDate(static_cast<int32_t>(v.integer())));
      return true;
    case TypeId::kTimestamp:
      AppendJacksonString(out, FormatIsoTimestampMillis(v.integer(), true));
      return true;
    case TypeId::kTimestampNtz:
      AppendJacksonString(out, FormatIsoTimestampMillis(v.integer(), false));
      return true;
    default:
      return false;
  }
}

class StatsWriter {
 public:
  StatsWriter(const std::unordered_map<std::string, const LeafStats*>& inputs,
              const std::unordered_map<std::string, bool>& selected, int prefix_length)
      : inputs_(inputs), selected_(selected), prefix_length_(prefix_length) {}

  // Appends `"key":{...}` for the struct `fields`, or nothing when it would be empty.
  bool Struct(std::string* out, std::string_view key, const std::vector<Field>& fields,
              std::string* path, StatKind kind) {
    size_t mark = out->size();
    AppendJacksonString(out, key);
    *out += ":{";
    bool any = false;
    for (const Field& f : fields) {
      size_t pmark = path->size();
      AppendPathKey(path, f.name);
      size_t before = out->size();
      if (any) out->push_back(',');
      bool wrote = f.type->id() == TypeId::kStruct
                       ? Struct(out, f.name, f.type->fields(), path, kind)
                       : Leaf(out, f, *path, kind);
      if (wrote) {
        any = true;
      } else {
        out->resize(before);
      }
      path->resize(pmark);
    }
    if (!any) {
      out->resize(mark);
      return false;
    }
    out->push_back('}');
    return true;
  }

 private:
  bool Leaf(std::string* out, const Field& f, const std::string& path, StatKind kind) {
    if (!selected_.count(path)) return false;
    auto it = inputs_.find(path);
    if (it == inputs_.end()) return false;
    const LeafStats& in = *it->second;
    size_t mark = out->size();
    AppendJacksonString(out, f.name);
    out->push_back(':');
    bool wrote;
    if (kind == StatKind::kNullCount) {
      wrote = in.null_count.has_value();
      if (wrote) AppendInt(out, *in.null_count);
    } else {
      wrote = AppendStatValue(out, kind == StatKind::kMin ? in.min : in.max, *f.type,
                              kind == StatKind::kMin, prefix_length_);
    }
    if (!wrote) out->resize(mark);
    return wrote;
  }

  const std::unordered_map<std::string, const LeafStats*>& inputs_;
  const std::unordered_map<std::string, bool>& selected_;
  int prefix_length_;
};

// Leaves (non-struct fields) in schema order with their paths.
void CollectLeaves(const std::vector<Field>& fields, std::vector<std::string>* path,
                   std::vector<std::vector<std::string>>* out) {
  for (const Field& f : fields) {
    path->push_back(f.name);
    if (f.type->id() == TypeId::kStruct) {
      CollectLeaves(f.type->fields(), path, out);
    } else {
      out->push_back(*path);
    }
    path->pop_back();
  }
}

bool IsPrefix(const std::vector<std::string>& prefix, const std::vector<std::string>& path) {
  if (prefix.size() > path.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (prefix[i] != path[i]) return false;
  }
  return true;
}

}  // namespace

bool MinMaxEligible(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal:
    case TypeId::kString:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return true;
    default:
      return false;
  }
}

std::string SerializeStats(const Schema& schema, int64_t num_records,
                           const std::vector<LeafStats>& leaves, const StatsOptions& options) {
  std::unordered_map<std::string, const LeafStats*> inputs;
  for (const LeafStats& l : leaves) inputs.emplace(StatsPathKey(l.path), &l);
  std::vector<std::vector<std::string>> all;
  std::vector<std::string> scratch;
  CollectLeaves(schema, &scratch, &all);
  std::unordered_map<std::string, bool> selected;
  for (size_t i = 0; i < all.size(); ++i) {
    bool sel;
    if (options.stats_columns) {
      sel = false;
      for (const auto& c : *options.stats_columns) sel = sel || IsPrefix(c, all[i]);
    } else {
      sel = options.num_indexed_cols < 0 || i < static_cast<size_t>(options.num_indexed_cols);
    }
    if (sel) selected.emplace(StatsPathKey(all[i]), true);
  }
  StatsWriter writer(inputs, selected, options.string_prefix_length);
  std::string out = "{\"numRecords\":";
  AppendInt(&out, num_records);
  std::string path;
  static constexpr std::pair<const char*, StatKind> kSections[] = {
      {"minValues", StatKind::kMin},
      {"maxValues", StatKind::kMax},
      {"nullCount", StatKind::kNullCount},
  };
  for (const auto& [name, kind] : kSections) {
    size_t mark = out.size();
    out.push_back(',');
    path.clear();
    if (!writer.Struct(&out, name, schema, &path, kind)) out.resize(mark);
  }
  if (options.tight_bounds)
    out += *options.tight_bounds ? ",\"tightBounds\":true" : ",\"tightBounds\":false";
  out.push_back('}');
  return out;
}

namespace {

// Integer value of an integral vector row (nullCount / numRecords columns are long, but a
// writer may use int).
std::optional<int64_t> IntegralAt(const Vector& v, size_t row) {
  if (v.IsNull(row)) return std::nullopt;
  switch (v.id()) {
    case TypeId::kInt64:
      return v.Get<int64_t>(row);
    case TypeId::kInt32:
      return v.Get<int32_t>(row);
    case TypeId::kInt16:
      return v.Get<int16_t>(row);
    default:
      return std::nullopt;
  }
}

// Appends `"key":{...}` for a struct of stats_parsed (minValues/maxValues/nullCount, nested);
// nothing when no field is non-null.
bool AppendParsed(std::string* out, std::string_view key, const Vector& st, size_t row,
                  StatKind kind) {
  if (st.id() != TypeId::kStruct || st.IsNull(row)) return false;
  size_t mark = out->size();
  AppendJacksonString(out, key);
  *out += ":{";
  bool any = false;
  const auto& fields = st.type()->fields();
  for (size_t k = 0; k < fields.size(); ++k) {
    const Vector& c = st.child(k);
    if (c.IsNull(row)) continue;
    size_t before = out->size();
    if (any) out->push_back(',');
    bool wrote;
    if (c.id() == TypeId::kStruct) {
      wrote = AppendParsed(out, fields[k].name, c, row, kind);
    } else {
      AppendJacksonString(out, fields[k].name);
      out->push_back(':');
      if (kind == StatKind::kNullCount) {
        std::optional<int64_t> n = IntegralAt(c, row);
        wrote = n.has_value();
        if (n) AppendInt(out, *n);
      } else {
        // The checkpoint holds the values the writer chose: no truncation again.
        wrote = AppendStatValue(out, c.GetValue(row), *c.type(), kind == StatKind::kMin,
                                std::numeric_limits<int>::max() / 4);
      }
    }
    if (wrote) {
      any = true;
    } else {
      out->resize(before);
    }
  }
  if (!any) {
    out->resize(mark);
    return false;
  }
  out->push_back('}');
  return true;
}

}  // namespace

std::optional<std::string> StatsJsonFromParsed(const Vector& stats_parsed, size_t row) {
  if (stats_parsed.id() != TypeId::kStruct || stats_parsed.IsNull(row)) return std::nullopt;
  const auto& fields = stats_parsed.type()->fields();
  auto child = [&](const char* name) -> const Vector* {
    int i = FindField(fields, name);
    return i < 0 ? nullptr : &stats_parsed.child(static_cast<size_t>(i));
  };
  std::string out = "{";
  if (const Vector* n = child("numRecords")) {
    if (auto v = IntegralAt(*n, row)) {
      out += "\"numRecords\":";
      AppendInt(&out, *v);
    }
  }
  static constexpr std::pair<const char*, StatKind> kSections[] = {
      {"minValues", StatKind::kMin},
      {"maxValues", StatKind::kMax},
      {"nullCount", StatKind::kNullCount}};
  for (const auto& [name, kind] : kSections) {
    const Vector* v = child(name);
    if (!v) continue;
    size_t mark = out.size();
    if (out.size() > 1) out.push_back(',');
    if (!AppendParsed(&out, name, *v, row, kind)) out.resize(mark);
  }
  if (const Vector* t = child("tightBounds"); t && t->id() == TypeId::kBoolean && t->IsValid(row)) {
    if (out.size() > 1) out.push_back(',');
    out += t->Get<uint8_t>(row) ? "\"tightBounds\":true" : "\"tightBounds\":false";
  }
  out.push_back('}');
  return out;
}

Result<std::vector<std::vector<std::string>>> ParseStatsColumnList(std::string_view text) {
  std::vector<std::vector<std::string>> out;
  std::vector<std::string> column;
  std::string part;
  bool quoted_part = false;  // the current part was backtick-quoted
  auto bad = [&](const char* why) {
    return Status::InvalidArgument(
        "invalid delta.dataSkippingStatsColumns '" + std::string(text) + "': " + why,
        errc::kDeltaInvalidStatsColumns);
  };
  auto trim = [](std::string s) {
    size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  };
  auto end_part = [&]() -> bool {
    std::string p = quoted_part ? part : trim(part);
    if (p.empty() && !quoted_part) return false;
    column.push_back(std::move(p));
    part.clear();
    quoted_part = false;
    return true;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '`') {
      if (!trim(part).empty()) return bad("backtick inside a name");
      part.clear();
      size_t j = i + 1;
      for (;; ++j) {
        if (j >= text.size()) return bad("unclosed backtick");
        if (text[j] == '`') {
          if (j + 1 < text.size() && text[j + 1] == '`') {
            part += '`';
            ++j;
          } else {
            break;
          }
        } else {
          part += text[j];
        }
      }
      quoted_part = true;
      i = j;
      while (i + 1 < text.size() && (text[i + 1] == ' ' || text[i + 1] == '\t')) ++i;
      if (i + 1 < text.size() && text[i + 1] != '.' && text[i + 1] != ',') {
        return bad("text after a quoted name");
      }
    } else if (c == '.') {
      if (!end_part()) return bad("empty name part");
    } else if (c == ',') {
      if (!end_part()) return bad("empty column");
      out.push_back(std::move(column));
      column.clear();
    } else {
      part += c;
    }
  }
  if (!end_part()) {
    if (out.empty() && column.empty()) return out;  // empty list
    return bad("empty column");
  }
  out.push_back(std::move(column));
  return out;
}

std::optional<int64_t> StatsNumRecords(std::string_view json) {
  constexpr std::string_view kKey = "\"numRecords\":";
  size_t at = json.find(kKey);
  if (at == std::string_view::npos) return std::nullopt;
  size_t i = at + kKey.size();
  while (i < json.size() && json[i] == ' ') ++i;
  int64_t n = 0;
  size_t digits = 0;
  for (; i < json.size() && json[i] >= '0' && json[i] <= '9' && digits < 18; ++i, ++digits)
    n = n * 10 + (json[i] - '0');
  if (digits == 0) return std::nullopt;
  return n;
}

}  // namespace silt::delta
