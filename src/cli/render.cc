#include "cli/render.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "common/datetime.h"
#include "exec/functions/function_util.h"
#include "vector/time_text.h"
#include "vector/value.h"

namespace silt::cli {

std::optional<OutputMode> ParseOutputMode(std::string_view name) {
  if (name == "box") return OutputMode::kBox;
  if (name == "tabs" || name == "tab") return OutputMode::kTabs;
  if (name == "csv") return OutputMode::kCsv;
  if (name == "json" || name == "jsonl") return OutputMode::kJson;
  return std::nullopt;
}

const char* OutputModeName(OutputMode mode) {
  switch (mode) {
    case OutputMode::kBox:
      return "box";
    case OutputMode::kTabs:
      return "tabs";
    case OutputMode::kCsv:
      return "csv";
    case OutputMode::kJson:
      return "json";
  }
  return "?";
}

namespace {

bool IsNumeric(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal:
      return true;
    default:
      return false;
  }
}

void AppendInt(int64_t x, std::string* out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, x);
  out->append(buf, r.ptr);
}

void AppendHexBytes(std::string_view bytes, std::string* out) {
  static const char* hex = "0123456789ABCDEF";
  *out += '[';
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i) *out += ' ';
    unsigned char c = static_cast<unsigned char>(bytes[i]);
    *out += hex[c >> 4];
    *out += hex[c & 15];
  }
  *out += ']';
}

void AppendCellImpl(const Vector& v, size_t i, CellStyle style, bool nested, const TimeZone* zone,
                    std::string* out) {
  if (v.IsNull(i) || v.id() == TypeId::kNull) {
    *out += (nested && style == CellStyle::kHive) ? "null" : "NULL";
    return;
  }
  switch (v.id()) {
    case TypeId::kNull:
      break;  // handled above
    case TypeId::kBoolean:
      *out += v.Get<uint8_t>(i) ? "true" : "false";
      break;
    case TypeId::kInt8:
      AppendInt(v.Get<int8_t>(i), out);
      break;
    case TypeId::kInt16:
      AppendInt(v.Get<int16_t>(i), out);
      break;
    case TypeId::kInt32:
      AppendInt(v.Get<int32_t>(i), out);
      break;
    case TypeId::kInt64:
      AppendInt(v.Get<int64_t>(i), out);
      break;
    case TypeId::kFloat:
      *out += FormatJavaFloat(v.Get<float>(i));
      break;
    case TypeId::kDouble:
      *out += FormatJavaDouble(v.Get<double>(i));
      break;
    case TypeId::kDecimal:
      *out += FormatDecimal(v.Get<int128_t>(i), v.type()->scale());
      break;
    case TypeId::kString:
      if (nested && style == CellStyle::kHive) {
        *out += '"';
        *out += v.GetString(i);
        *out += '"';
      } else {
        *out += v.GetString(i);
      }
      break;
    case TypeId::kBinary:
      if (style == CellStyle::kPretty) {
        AppendHexBytes(v.GetString(i), out);
      } else {
        // HiveResult's new String(bytes, UTF_8): each ill-formed subpart becomes U+FFFD.
        exec::fn::MakeValidUtf8(v.GetString(i), out);
      }
      break;
    case TypeId::kDate:
      *out += FormatDate(v.Get<int32_t>(i));
      break;
    case TypeId::kYearMonthInterval:
      *out += FormatYearMonthInterval(v.Get<int32_t>(i), v.type()->interval_start(),
                                      v.type()->interval_end(), false);
      break;
    case TypeId::kDayTimeInterval:
      *out += FormatDayTimeInterval(v.Get<int64_t>(i), v.type()->interval_start(),
                                    v.type()->interval_end(), false);
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: {
      // A TIMESTAMP is an instant, shown as its wall time in the session zone (Spark's
      // HiveResult); a TIMESTAMP_NTZ is a wall time already.
      int64_t micros = v.Get<int64_t>(i);
      if (zone && v.id() == TypeId::kTimestamp) micros = zone->UtcMicrosToLocal(micros);
      *out += FormatSparkTimestamp(micros);
      break;
    }
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos: {
      int64_t n = v.Get<int64_t>(i);
      if (zone && v.id() == TypeId::kTimestampNanos) {
        const int64_t us = FloorDiv(n, 1000);
        n = zone->UtcMicrosToLocal(us) * 1000 + (n - us * 1000);
      }
      *out += FormatTimestampNanosText(n);
      break;
    }
    case TypeId::kTime:
      *out += FormatTimeText(v.Get<int64_t>(i));
      break;
    case TypeId::kCalendarInterval:
      *out += FormatCalendarInterval(UnpackCalendarInterval(v.Get<int128_t>(i)));
      break;
    case TypeId::kList: {
      const Vector& el = v.child(0);
      const char* sep = style == CellStyle::kHive ? "," : ", ";
      *out += '[';
      for (uint32_t k = v.offsets()[i]; k < v.offsets()[i + 1]; ++k) {
        if (k != v.offsets()[i]) *out += sep;
        AppendCellImpl(el, k, style, true, zone, out);
      }
      *out += ']';
      break;
    }
    case TypeId::kMap: {
      const Vector& keys = v.child(0);
      const Vector& vals = v.child(1);
      uint32_t b = v.offsets()[i], e = v.offsets()[i + 1];
      if (style == CellStyle::kHive) {
        // HiveResult sorts the "k:v" texts (a Scala Map has no order of its own).
        std::vector<std::string> entries;
        for (uint32_t k = b; k < e; ++k) {
          std::string s;
          AppendCellImpl(keys, k, style, true, zone, &s);
          s += ':';
          AppendCellImpl(vals, k, style, true, zone, &s);
          entries.push_back(std::move(s));
        }
        std::sort(entries.begin(), entries.end());
        *out += '{';
        for (size_t k = 0; k < entries.size(); ++k) {
          if (k) *out += ',';
          *out += entries[k];
        }
        *out += '}';
      } else {
        *out += '{';
        for (uint32_t k = b; k < e; ++k) {
          if (k != b) *out += ", ";
          AppendCellImpl(keys, k, style, true, zone, out);
          *out += " -> ";
          AppendCellImpl(vals, k, style, true, zone, out);
        }
        *out += '}';
      }
      break;
    }
    case TypeId::kStruct: {
      const auto& fields = v.type()->fields();
      *out += '{';
      for (size_t f = 0; f < v.num_children(); ++f) {
        if (style == CellStyle::kHive) {
          if (f) *out += ',';
          *out += '"';
          *out += fields[f].name;
          *out += "\":";
        } else if (f) {
          *out += ", ";
        }
        AppendCellImpl(v.child(f), i, style, true, zone, out);
      }
      *out += '}';
      break;
    }
  }
}

}  // namespace

std::shared_ptr<const TimeZone> RenderZone(const std::string& time_zone) {
  if (time_zone.empty() || time_zone == "UTC") return nullptr;
  auto zone = TimeZone::Find(time_zone);
  return zone.ok() ? *zone : nullptr;
}

std::string FormatSparkTimestamp(int64_t micros) {
  // FormatTimestampMicros gives "yyyy-MM-dd HH:mm:ss.ffffff"; Spark drops trailing zeros of the
  // fraction and the dot when it is zero.
  std::string s = FormatTimestampMicros(micros);
  size_t dot = s.rfind('.');
  if (dot != std::string::npos) {
    size_t end = s.size();
    while (end > dot + 1 && s[end - 1] == '0') --end;
    s.resize(end == dot + 1 ? dot : end);
  }
  return s;
}

void AppendCell(const Vector& v, size_t row, CellStyle style, std::string* out,
                const TimeZone* zone) {
  AppendCellImpl(v, row, style, false, zone, out);
}

std::string FormatCell(const Vector& v, size_t row, CellStyle style, const TimeZone* zone) {
  std::string s;
  AppendCellImpl(v, row, style, false, zone, &s);
  return s;
}

void AppendJsonCell(const Vector& v, size_t i, std::string* out) {
  if (v.IsNull(i) || v.id() == TypeId::kNull) {
    *out += "null";
    return;
  }
  switch (v.id()) {
    case TypeId::kBoolean:
      *out += v.Get<uint8_t>(i) ? "true" : "false";
      return;
    case TypeId::kInt8:
      AppendInt(v.Get<int8_t>(i), out);
      return;
    case TypeId::kInt16:
      AppendInt(v.Get<int16_t>(i), out);
      return;
    case TypeId::kInt32:
      AppendInt(v.Get<int32_t>(i), out);
      return;
    case TypeId::kInt64:
      AppendInt(v.Get<int64_t>(i), out);
      return;
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double d = v.id() == TypeId::kFloat ? static_cast<double>(v.Get<float>(i)) : v.Get<double>(i);
      if (std::isfinite(d)) {
        *out += FormatDouble(d);
      } else {
        AppendJsonString(out, FormatDouble(d));
      }
      return;
    }
    case TypeId::kDecimal:
      AppendJsonString(out, FormatDecimal(v.Get<int128_t>(i), v.type()->scale()));
      return;
    case TypeId::kString:
      AppendJsonString(out, v.GetString(i));
      return;
    case TypeId::kDate:
      AppendJsonString(out, FormatDate(v.Get<int32_t>(i)));
      return;
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      AppendJsonString(out, FormatTimestampMicros(v.Get<int64_t>(i)));
      return;
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:
      AppendJsonString(out, FormatTimestampNanos(v.Get<int64_t>(i)));
      return;
    case TypeId::kTime:
      AppendJsonString(out, FormatTimeText(v.Get<int64_t>(i)));
      return;
    default:
      // Binary and nested values: rare in output, the slow path keeps one definition of the format.
      *out += v.GetValue(i).ToJson();
      return;
  }
}

// ---------------------------------------------------------------------------------------------
// Display width

namespace {

// Decodes one UTF-8 code point at s[*pos] (invalid bytes count as one code point each).
uint32_t DecodeUtf8(std::string_view s, size_t* pos) {
  unsigned char c = static_cast<unsigned char>(s[*pos]);
  int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
  if (*pos + static_cast<size_t>(len) > s.size()) len = 1;
  uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
  for (int k = 1; k < len; ++k) {
    unsigned char cc = static_cast<unsigned char>(s[*pos + static_cast<size_t>(k)]);
    if ((cc >> 6) != 2) {
      len = 1;
      cp = c;
      break;
    }
    cp = (cp << 6) | (cc & 0x3F);
  }
  *pos += static_cast<size_t>(len);
  return cp;
}

int CodePointWidth(uint32_t cp) {
  if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) ||
      (cp >= 0xFE00 && cp <= 0xFE0F)) {
    return 0;  // combining marks, zero-width spaces, variation selectors
  }
  if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF && cp != 0x303F) ||
      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
      (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
      (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
      (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD)) {
    return 2;
  }
  return 1;
}

// Cuts s to at most `width` display columns, ending in "…" when something was cut.
std::string Truncate(const std::string& s, size_t width) {
  if (DisplayWidth(s) <= width) return s;
  if (width == 0) return "";
  std::string out;
  size_t used = 0, pos = 0;
  while (pos < s.size()) {
    size_t start = pos;
    int w = CodePointWidth(DecodeUtf8(s, &pos));
    if (used + static_cast<size_t>(w) > width - 1) break;
    used += static_cast<size_t>(w);
    out.append(s, start, pos - start);
  }
  return out + "…";
}

// Box cells show control characters escaped so that a row stays on one line.
std::string EscapeControl(std::string s) {
  bool has = false;
  for (unsigned char c : s) has |= c < 0x20 || c == 0x7F;
  if (!has) return s;
  std::string out;
  for (unsigned char c : s) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

void Pad(std::string* out, size_t n) { out->append(n, ' '); }

// Appends `text` (already fitting `width`) aligned in a field of `width` columns.
void AppendAligned(std::string* out, const std::string& text, size_t width, int align) {
  size_t w = DisplayWidth(text);
  size_t gap = width > w ? width - w : 0;
  if (align > 0) {  // right
    Pad(out, gap);
    *out += text;
  } else if (align == 0) {  // center
    Pad(out, gap / 2);
    *out += text;
    Pad(out, gap - gap / 2);
  } else {
    *out += text;
    Pad(out, gap);
  }
}

void AppendRule(std::string* out, const std::vector<size_t>& widths, const char* left,
                const char* mid, const char* right) {
  *out += left;
  for (size_t c = 0; c < widths.size(); ++c) {
    if (c) *out += mid;
    for (size_t k = 0; k < widths[c] + 2; ++k) *out += "─";
  }
  *out += right;
  *out += '\n';
}

void RenderBox(const Schema& schema, const std::vector<DataChunk>& chunks, const RenderOptions& opt,
               std::ostream& os) {
  size_t total = 0;
  for (const DataChunk& c : chunks) total += c.size();
  size_t top = total, bottom = 0;
  if (opt.max_rows > 0 && total > opt.max_rows) {
    top = (opt.max_rows + 1) / 2;
    bottom = opt.max_rows - top;
  }
  const size_t ncols = schema.size();
  // Only the shown rows are formatted.
  std::vector<std::vector<std::string>> rows;
  rows.reserve(top + bottom);
  size_t base = 0;
  for (const DataChunk& chunk : chunks) {
    for (size_t r = 0; r < chunk.size(); ++r) {
      size_t g = base + r;
      if (g >= top && g < total - bottom) continue;
      std::vector<std::string> cells(ncols);
      for (size_t c = 0; c < ncols; ++c) {
        cells[c] =
            EscapeControl(FormatCell(chunk.columns[c], r, CellStyle::kPretty, opt.time_zone.get()));
      }
      rows.push_back(std::move(cells));
    }
    base += chunk.size();
  }
  std::vector<std::string> names(ncols), types(ncols);
  std::vector<size_t> widths(ncols, 1);
  std::vector<int> align(ncols);
  for (size_t c = 0; c < ncols; ++c) {
    names[c] = EscapeControl(schema[c].name);
    types[c] = schema[c].type->ToString();
    align[c] = IsNumeric(schema[c].type->id()) ? 1 : -1;
    widths[c] = std::max({widths[c], DisplayWidth(names[c]), DisplayWidth(types[c])});
    for (const auto& row : rows) widths[c] = std::max(widths[c], DisplayWidth(row[c]));
    if (opt.max_cell_width > 0)
      widths[c] = std::min(widths[c], std::max<size_t>(opt.max_cell_width, 3));
  }
  if (opt.max_width > 0) {
    // Narrow the widest column, one character at a time, until the table fits (or all are at
    // the minimum). Tables have few columns; this is cheap.
    auto line_width = [&] {
      size_t w = 1;
      for (size_t x : widths) w += x + 3;
      return w;
    };
    while (line_width() > opt.max_width) {
      size_t widest = 0;
      for (size_t c = 1; c < ncols; ++c) {
        if (widths[c] > widths[widest]) widest = c;
      }
      if (widths[widest] <= 3) break;
      --widths[widest];
    }
  }
  const std::vector<size_t> cut = widths;  // the footer may widen columns, never uncut cells
  std::string footer;
  if (total == 0) {
    footer = "0 rows";
  } else if (top + bottom < total) {
    footer = std::to_string(total) + " rows (" + std::to_string(top + bottom) + " shown)";
  }
  if (!footer.empty() && ncols > 0) {
    size_t inner = 0;
    for (size_t x : widths) inner += x + 3;
    inner -= 3;
    if (DisplayWidth(footer) > inner) widths.back() += DisplayWidth(footer) - inner;
  }

  std::string out;
  AppendRule(&out, widths, "┌", "┬", "┐");
  for (const auto* line : {&names, &types}) {
    out += "│";
    for (size_t c = 0; c < ncols; ++c) {
      out += ' ';
      AppendAligned(&out, Truncate((*line)[c], cut[c]), widths[c], 0);
      out += " │";
    }
    out += '\n';
  }
  if (rows.empty()) {
    AppendRule(&out, widths, "├", "┴", "┤");  // straight to the footer
  } else {
    AppendRule(&out, widths, "├", "┼", "┤");
  }
  auto emit_row = [&](const std::vector<std::string>& row) {
    out += "│";
    for (size_t c = 0; c < ncols; ++c) {
      out += ' ';
      AppendAligned(&out, Truncate(row[c], cut[c]), widths[c], align[c]);
      out += " │";
    }
    out += '\n';
  };
  for (size_t r = 0; r < top && r < rows.size(); ++r) emit_row(rows[r]);
  if (bottom > 0) {
    out += "│";
    for (size_t c = 0; c < ncols; ++c) {
      out += ' ';
      AppendAligned(&out, "·", widths[c], 0);
      out += " │";
    }
    out += '\n';
    for (size_t r = top; r < rows.size(); ++r) emit_row(rows[r]);
  }
  if (!footer.empty()) {
    if (!rows.empty()) AppendRule(&out, widths, "├", "┴", "┤");
    size_t inner = 0;
    for (size_t x : widths) inner += x + 3;
    inner -= 3;
    out += "│ ";
    AppendAligned(&out, footer, inner, -1);
    out += " │\n";
    std::vector<size_t> one{inner};
    AppendRule(&out, one, "└", "┴", "┘");
  } else {
    AppendRule(&out, widths, "└", "┴", "┘");
  }
  os << out;
}

bool CsvNeedsQuotes(std::string_view s) {
  if (s.empty()) return true;  // "" is the empty string; an empty field is NULL
  return s.find_first_of(",\"\r\n") != std::string_view::npos;
}

void AppendCsvField(std::string_view s, std::string* out) {
  if (!CsvNeedsQuotes(s)) {
    out->append(s);
    return;
  }
  *out += '"';
  for (char c : s) {
    if (c == '"') *out += '"';
    *out += c;
  }
  *out += '"';
}

}  // namespace

size_t DisplayWidth(std::string_view s) {
  size_t w = 0, pos = 0;
  bool ascii = true;
  for (char c : s) ascii &= static_cast<unsigned char>(c) < 0x80;
  if (ascii) return s.size();
  while (pos < s.size()) w += static_cast<size_t>(CodePointWidth(DecodeUtf8(s, &pos)));
  return w;
}

void RenderResult(const Schema& schema, const std::vector<DataChunk>& chunks,
                  const RenderOptions& options, std::ostream& out) {
  if (schema.empty()) return;
  const size_t ncols = schema.size();
  std::string buf;
  switch (options.mode) {
    case OutputMode::kBox:
      RenderBox(schema, chunks, options, out);
      return;
    case OutputMode::kTabs:
      for (const DataChunk& chunk : chunks) {
        buf.clear();
        for (size_t r = 0; r < chunk.size(); ++r) {
          for (size_t c = 0; c < ncols; ++c) {
            if (c) buf += '\t';
            AppendCell(chunk.columns[c], r, CellStyle::kHive, &buf, options.time_zone.get());
          }
          buf += '\n';
        }
        out << buf;
      }
      return;
    case OutputMode::kCsv: {
      if (options.header) {
        for (size_t c = 0; c < ncols; ++c) {
          if (c) buf += ',';
          AppendCsvField(schema[c].name, &buf);
        }
        buf += '\n';
        out << buf;
      }
      std::string cell;
      for (const DataChunk& chunk : chunks) {
        buf.clear();
        for (size_t r = 0; r < chunk.size(); ++r) {
          for (size_t c = 0; c < ncols; ++c) {
            if (c) buf += ',';
            const Vector& v = chunk.columns[c];
            if (v.IsNull(r) || v.id() == TypeId::kNull) continue;
            cell.clear();
            AppendCell(v, r, CellStyle::kHive, &cell, options.time_zone.get());
            AppendCsvField(cell, &buf);
          }
          buf += '\n';
        }
        out << buf;
      }
      return;
    }
    case OutputMode::kJson: {
      std::vector<std::string> keys(ncols);
      for (size_t c = 0; c < ncols; ++c) {
        AppendJsonString(&keys[c], schema[c].name);
        keys[c] += ':';
      }
      for (const DataChunk& chunk : chunks) {
        buf.clear();
        for (size_t r = 0; r < chunk.size(); ++r) {
          buf += '{';
          for (size_t c = 0; c < ncols; ++c) {
            if (c) buf += ',';
            buf += keys[c];
            AppendJsonCell(chunk.columns[c], r, &buf);
          }
          buf += "}\n";
        }
        out << buf;
      }
      return;
    }
  }
}

std::string RenderToString(const Schema& schema, const std::vector<DataChunk>& chunks,
                           const RenderOptions& options) {
  std::ostringstream os;
  RenderResult(schema, chunks, options, os);
  return os.str();
}

}  // namespace silt::cli
