// `silt parquet schema|meta|cat|gen|scan` and `silt demo`: inspect and produce Parquet files.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <numeric>
#include <string>

#include "cli/commands.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "parquet/compression.h"
#include "parquet/reader.h"
#include "parquet/row_ranges.h"
#include "parquet/writer.h"
#include "vector/generate.h"

namespace silt::cli {
namespace {

using parquet::ParquetFile;

int Fail(const Status& s) {
  std::fprintf(stderr, "%s\n", s.ToString().c_str());
  return 1;
}

int Usage(const char* text) {
  std::fprintf(stderr, "usage: %s\n", text);
  return 2;
}

// Parses "--flag value" / "--flag=value" options after the positional arguments.
struct Flags {
  std::vector<std::string> positional;
  std::map<std::string, std::string> values;
  bool Has(const std::string& k) const { return values.count(k) > 0; }
  std::string Get(const std::string& k, const std::string& def = "") const {
    auto it = values.find(k);
    return it == values.end() ? def : it->second;
  }
  Result<int64_t> GetInt(const std::string& k, int64_t def) const {
    if (!Has(k)) return def;
    const std::string& v = values.at(k);
    char* end = nullptr;
    long long x = std::strtoll(v.c_str(), &end, 10);
    if (v.empty() || *end)
      return Status::InvalidArgument("--" + k + " needs an integer, got '" + v + "'");
    return static_cast<int64_t>(x);
  }
};

Flags ParseFlags(const std::vector<std::string>& args, size_t from,
                 const std::vector<std::string>& bool_flags) {
  Flags f;
  for (size_t i = from; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) == 0) {
      std::string k = a.substr(2), v;
      size_t eq = k.find('=');
      if (eq != std::string::npos) {
        v = k.substr(eq + 1);
        k = k.substr(0, eq);
      } else if (std::find(bool_flags.begin(), bool_flags.end(), k) == bool_flags.end() &&
                 i + 1 < args.size()) {
        v = args[++i];
      }
      f.values[k] = v;
    } else {
      f.positional.push_back(a);
    }
  }
  return f;
}

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  size_t b = 0;
  while (b <= s.size()) {
    size_t e = s.find(',', b);
    if (e == std::string::npos) e = s.size();
    if (e > b) out.push_back(s.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

std::string Join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

// Prints rows as a boxed table (values cut at 40 characters).
void PrintTable(const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> w(header.size());
  auto cut = [](const std::string& s) { return s.size() > 40 ? s.substr(0, 37) + "..." : s; };
  for (size_t c = 0; c < header.size(); ++c) w[c] = header[c].size();
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size(); ++c) w[c] = std::max(w[c], cut(r[c]).size());
  auto line = [&] {
    std::string s = "+";
    for (size_t x : w) s += std::string(x + 2, '-') + "+";
    std::printf("%s\n", s.c_str());
  };
  auto row = [&](const std::vector<std::string>& r) {
    std::string s = "|";
    for (size_t c = 0; c < r.size(); ++c) {
      std::string v = cut(r[c]);
      s += " " + v + std::string(w[c] - v.size(), ' ') + " |";
    }
    std::printf("%s\n", s.c_str());
  };
  line();
  row(header);
  line();
  for (const auto& r : rows) row(r);
  line();
}

int PrintSchema(const Flags& f) {
  auto pf = ParquetFile::OpenPath(f.positional[0]);
  if (!pf.ok()) return Fail(pf.status());
  const auto& schema = (*pf)->schema();
  if (f.Has("types")) {
    for (const auto& field : schema.schema())
      std::printf("%s\t%s\n", field.name.c_str(), field.type->ToString().c_str());
  } else {
    std::printf("%s", schema.ToString().c_str());
  }
  return 0;
}

std::string StatText(const std::optional<Value>& v) { return v ? v->ToString() : "-"; }

int Meta(const Flags& f) {
  auto pfr = ParquetFile::OpenPath(f.positional[0]);
  if (!pfr.ok()) return Fail(pfr.status());
  const ParquetFile& pf = **pfr;
  const auto& md = pf.metadata();
  std::printf("file:        %s\n", pf.name().c_str());
  std::printf("created_by:  %s\n", md.created_by.value_or("-").c_str());
  std::printf("version:     %d\n", md.version);
  std::printf("rows:        %lld\n", static_cast<long long>(md.num_rows));
  std::printf("row groups:  %zu\n", md.row_groups.size());
  std::printf("columns:     %d leaves\n", pf.schema().num_leaves());
  for (const auto& kv : md.key_value_metadata) {
    std::string v = kv.value.value_or("");
    if (v.size() > 80) v = v.substr(0, 77) + "...";
    std::printf("meta:        %s = %s\n", kv.key.c_str(), v.c_str());
  }
  for (size_t r = 0; r < md.row_groups.size(); ++r) {
    const auto& rg = md.row_groups[r];
    std::printf("\nrow group %zu: %lld rows, %lld bytes uncompressed\n", r,
                static_cast<long long>(rg.num_rows), static_cast<long long>(rg.total_byte_size));
    std::vector<std::vector<std::string>> rows;
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      const auto& cc = rg.columns[c];
      if (!cc.meta_data) continue;
      const auto& m = *cc.meta_data;
      std::vector<std::string> encs;
      for (auto e : m.encodings) encs.push_back(parquet::EncodingName(e));
      auto st = pf.GetStatistics(static_cast<int>(r), static_cast<int>(c));
      rows.push_back({Join(m.path_in_schema, "."), parquet::TypeName(m.type),
                      parquet::CodecName(m.codec), Join(encs, ","), std::to_string(m.num_values),
                      std::to_string(m.total_compressed_size),
                      std::to_string(m.total_uncompressed_size),
                      st.null_count ? std::to_string(*st.null_count) : "-", StatText(st.min),
                      StatText(st.max), cc.column_index_offset ? "yes" : "no"});
    }
    PrintTable({"column", "type", "codec", "encodings", "values", "compressed", "uncompressed",
                "nulls", "min", "max", "page index"},
               rows);
  }
  return 0;
}

int Cat(const Flags& f) {
  auto pf = ParquetFile::OpenPath(f.positional[0]);
  if (!pf.ok()) return Fail(pf.status());
  parquet::ScanOptions so;
  if (f.Has("columns")) so.columns = SplitComma(f.Get("columns"));
  auto limit = f.GetInt("limit", -1);
  if (!limit.ok()) return Fail(limit.status());
  so.limit = *limit;
  std::shared_ptr<const ParquetFile> file(std::move(pf).value());
  auto scanner = parquet::ParquetScanner::Make(file, so);
  if (!scanner.ok()) return Fail(scanner.status());
  const auto& schema = (*scanner)->output_schema();
  bool json = f.Has("json");
  std::vector<std::vector<std::string>> table;
  DataChunk chunk;
  for (;;) {
    auto more = (*scanner)->Next(&chunk);
    if (!more.ok()) return Fail(more.status());
    if (!*more) break;
    for (size_t i = 0; i < chunk.size(); ++i) {
      if (json) {
        std::string line = "{";
        for (size_t c = 0; c < schema.size(); ++c) {
          if (c) line += ",";
          AppendJsonString(&line, schema[c].name);
          line += ":" + chunk.columns[c].GetValue(i).ToJson();
        }
        line += "}\n";
        std::fwrite(line.data(), 1, line.size(), stdout);
      } else {
        std::vector<std::string> row;
        for (size_t c = 0; c < schema.size(); ++c)
          row.push_back(chunk.columns[c].GetValue(i).ToString());
        table.push_back(std::move(row));
      }
    }
  }
  if (!json) {
    std::vector<std::string> header;
    for (const auto& fl : schema) header.push_back(fl.name);
    PrintTable(header, table);
    std::printf("%zu rows\n", table.size());
  }
  return 0;
}

Status GenImpl(const Flags& f) {
  const std::string& out = f.positional[0];
  SILT_ASSIGN_OR_RETURN(int64_t rows, f.GetInt("rows", 10000));
  SILT_ASSIGN_OR_RETURN(int64_t seed, f.GetInt("seed", 42));
  SILT_ASSIGN_OR_RETURN(int64_t pv, f.GetInt("page-version", 1));
  SILT_ASSIGN_OR_RETURN(int64_t rg_rows, f.GetInt("row-group-rows", -1));
  std::string set = f.Get("columns", "all");
  SILT_ASSIGN_OR_RETURN(silt::Schema schema, NamedTestSchema(set));
  parquet::WriterOptions wo;
  SILT_ASSIGN_OR_RETURN(wo.codec, parquet::ParseCodecName(f.Get("codec", "snappy")));
  wo.data_page_version = static_cast<int>(pv);
  wo.dictionary = f.Get("dictionary", "on") != "off";
  wo.write_page_index = f.Get("page-index", "on") != "off";
  wo.row_group_max_rows = rg_rows;
  GenerateOptions go;
  go.seed = static_cast<uint64_t>(seed);
  if (set == "dict_string") go.string_cardinality = 1000;
  SILT_ASSIGN_OR_RETURN(auto sink, CreateLocalFile(out));
  SILT_ASSIGN_OR_RETURN(auto w, parquet::ParquetWriter::Make(std::move(sink), schema, wo));
  auto t0 = std::chrono::steady_clock::now();
  double gen_seconds = 0;
  const int64_t kBatch = 1 << 16;
  for (int64_t done = 0; done < rows; done += kBatch) {
    go.seed = static_cast<uint64_t>(seed) * 7919 + static_cast<uint64_t>(done);
    auto g0 = std::chrono::steady_clock::now();
    DataChunk chunk = GenerateData(schema, static_cast<size_t>(std::min(kBatch, rows - done)), go);
    if (schema[0].name == "id")  // keep ids unique across batches
      for (size_t i = 0; i < chunk.size(); ++i) chunk.columns[0].data<int64_t>()[i] += done;
    gen_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - g0).count();
    SILT_RETURN_NOT_OK(w->Write(chunk));
  }
  SILT_RETURN_NOT_OK(w->Close());
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (f.Has("timing"))
    std::printf("rows=%lld write_seconds=%.6f bytes=%lld\n", static_cast<long long>(rows),
                total - gen_seconds, static_cast<long long>(w->bytes_written()));
  return Status::OK();
}

int Scan(const Flags& f) {
  auto threads = f.GetInt("threads", 1);
  if (!threads.ok()) return Fail(threads.status());
  // CPU time of the whole process (every thread): on a loaded machine it says more than the wall.
  auto cpu_now = [] {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
  };
  const double cpu0 = cpu_now();
  auto t0 = std::chrono::steady_clock::now();
  auto pf = ParquetFile::OpenPath(f.positional[0]);
  if (!pf.ok()) return Fail(pf.status());
  std::shared_ptr<const ParquetFile> file(std::move(pf).value());
  std::atomic<int64_t> rows{0};
  // Work units: page-aligned row ranges of about kUnitRows rows of each row group, as the Delta
  // scan reads them (small buffers that stay in the cache and the heap; a big row group feeds
  // every thread).
  constexpr int64_t kUnitRows = 200'000;
  struct Unit {
    int rg;
    int64_t begin, end;
  };
  std::vector<int> columns(file->schema().columns().size());  // every column is read
  std::iota(columns.begin(), columns.end(), 0);
  std::vector<Unit> units;
  for (int rg = 0; rg < file->num_row_groups(); ++rg)
    for (const auto& [b, e] : parquet::PageAlignedRowRanges(*file, rg, columns, kUnitRows))
      units.push_back({rg, b, e});
  // Columns decode as the engine's scan consumes them: dictionary-encoded strings stay
  // dictionaries (an index per row), as DuckDB's reader keeps them.
  auto read = [&](size_t u) {
    EncodedChunk chunk;
    SILT_RETURN_NOT_OK(file->ReadRowGroupEncoded(units[u].rg, {}, &chunk, units[u].begin,
                                                 units[u].end - units[u].begin));
    rows += static_cast<int64_t>(chunk.size());
    return Status::OK();
  };
  Status s;
  if (*threads <= 1) {
    for (size_t u = 0; u < units.size() && s.ok(); ++u) s = read(u);
  } else {
    // ParallelFor runs on the caller too: threads - 1 workers make `threads` in all.
    ThreadPool pool(static_cast<size_t>(*threads - 1));
    s = pool.ParallelFor(units.size(), read);
  }
  if (!s.ok()) return Fail(s);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // seconds= last: bench/run.sh takes the last "seconds=" of the line.
  std::printf("rows=%lld cpu_seconds=%.6f seconds=%.6f\n", static_cast<long long>(rows.load()),
              cpu_now() - cpu0, secs);
  return 0;
}

}  // namespace

int RunParquet(const std::vector<std::string>& args) {
  const char* usage = "silt parquet schema|meta|cat|gen|scan FILE [options] (see `silt help`)";
  if (args.size() < 2) return Usage(usage);
  Flags f = ParseFlags(args, 1, {"types", "json", "timing"});
  if (f.positional.size() != 1) return Usage(usage);
  const std::string& sub = args[0];
  if (sub == "schema") return PrintSchema(f);
  if (sub == "meta") return Meta(f);
  if (sub == "cat") return Cat(f);
  if (sub == "scan") return Scan(f);
  if (sub == "gen") {
    Status s = GenImpl(f);
    return s.ok() ? 0 : Fail(s);
  }
  return Usage(usage);
}

}  // namespace silt::cli
